/* check.c -- an instruction's operands against the ISA form the matcher resolved: kinds,
** register classes and types, state spaces, immediate ranges, with messages that name operands
** by role. It sits in the IR layer because it reads the module (declarations, symbols) the
** operands point into. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include "isa.h"
#include "ir.h"

#define MAXOPS PLA_MAXOPS

/* ---- operand checks ------------------------------------------------------------------------ */
static const char *kindname(int k) {
  switch (k) {
  case PLO_REG: return "a register";
  case PLO_IMM:
  case PLO_F32:
  case PLO_F64: return "an immediate";
  case PLO_SYM: return "a symbol";
  case PLO_ADDR: return "an address";
  case PLO_VEC: return "a vector";
  case PLO_SINK: return "'_'";
  case PLO_PAIR: return "a predicate pair";
  case PLO_LABEL: return "a label";
  case PLO_SREG: return "a special register";
  case PLO_TADDR: return "a tensor address";
  default: return "an operand";
  }
}
static const char *expected_kinds(uint16_t k) {
  if (k & PLA_KLIST) return "a parenthesized list (..)";
  if (k & PLA_KADDR) return "an address [...]";
  if (k & PLA_KTADDR) return "a tensor address [tmap, {..}]";
  if (k & PLA_KLABEL) return (k & PLA_KSYM) ? "a label or symbol" : "a label";
  if ((k & PLA_KVEC) && !(k & (PLA_KIMM))) return "a register vector";
  if ((k & PLA_KREG) && (k & PLA_KIMM)) return "a register or immediate";
  if (k & PLA_KREG) return "a register";
  if (k & PLA_KIMM) return "an immediate";
  return "something else";
}

/* does a register declared as type `have` fall in register class rc (PLA_RC_*)? ptxas judges by the
** declaration (.bf16x2 registers are declared .b32) */
static int in_rclass(int have, int rc) {
  if (rc == PLA_RC_ANY || have <= PLT_NONE || have >= PLT__COUNT) return 1;
  int d = plB_type_info[have].decl, cls = plB_type_info[d].cls;
  if (rc == PLA_RC_BITS) return cls == PLT_CB;
  if (rc == PLA_RC_HALF) return cls == PLT_CB || d == PLT_F16 || d == PLT_F16X2;
  return cls == PLT_CB || cls == PLT_CU || cls == PLT_CS; /* PLA_RC_INT */
}

/* the vector length an operand takes for this resolution (0: a scalar) */
static int want_vec(const plA_res *r, const plA_opspec *s) {
  return (s->flags & PLA_VECV)   ? r->vec
         : (s->flags & PLA_VECX) ? r->xn * (s->vec ? s->vec : 1)
         : (s->flags & PLA_VECN) ? (s->vec ? r->nn / s->vec : 0)
         : (s->flags & PLA_VECD) ? r->dims - s->vec
                                 : s->vec;
}

/* the operands by role with what each takes, for a form beside the one that was tried:
** "d {128 x .f32}, a {4 x .b32}, b .b64, scale-d .pred, imm-scale-a .s32" */
static void put_roles_typed_iv(plB_buf *b, const plA_res *r, const plA_opspec *ops, int nops,
                               int nopt, const plA_ctx *isa);
static void put_roles_typed(plB_buf *b, const plA_res *r, const plA_opspec *ops, int nops,
                            int nopt) {
  put_roles_typed_iv(b, r, ops, nops, nopt, NULL);
}

/* an immediate's value constraint after its type: " 13 to 15", " -1/1", " a multiple of 16" */
static void put_ival(plB_buf *b, const plA_opspec *o, const plA_ctx *isa) {
  const plA_ival *iv = isa && o->ival ? plA_ival_of(isa, o->ival) : NULL;
  if (!iv) return;
  if (o->ikind & (PLA_IV_SET | PLA_IV_SIZES))
    for (int k = 0; k < iv->nvals; k++) plB_buf_printf(b, "%c%d", k ? '/' : ' ', (int)iv->vals[k]);
  if (o->ikind & PLA_IV_RANGE) {
    if (iv->lo == iv->hi)
      plB_buf_printf(b, " %lld", (long long)iv->lo);
    else
      plB_buf_printf(b, " %lld to %lld", (long long)iv->lo, (long long)iv->hi);
  }
  if (o->ikind & PLA_IV_MULT) plB_buf_printf(b, " a multiple of %u", iv->mult);
}

/* put_roles_typed, with the immediates' value constraints when isa is given (for forms whose
** operands differ in their values alone: tensormap.replace's swizzle_mode on sm_103a) */
static void put_roles_typed_iv(plB_buf *b, const plA_res *r, const plA_opspec *ops, int nops,
                               int nopt, const plA_ctx *isa) {
  uint8_t opt[MAXOPS] = { 0 };
  for (int j = nops - 1; j >= 0 && nopt > 0; j--)
    if (ops[j].flags & PLA_OPTIONAL) {
      opt[j] = 1;
      nopt--;
    }
  for (int i = 0; i < nops; i++) {
    const plA_opspec *o = &ops[i];
    int t = plA_spec_type(r, o), v = want_vec(r, o);
    plB_buf_puts(b, i ? (opt[i] ? " {, " : ", ") : (opt[i] ? "{" : ""));
    plB_buf_puts(b, o->role ? o->role : "?");
    const char *tn = t > PLT_NONE && t < PLT__COUNT ? plB_type_info[t].name : NULL;
    if (o->kinds & PLA_KADDR)
      plB_buf_puts(b, " [address]");
    else if (o->kinds & PLA_KLIST)
      plB_buf_puts(b, " (list)");
    else if (v > 1 && tn)
      plB_buf_printf(b, " {%d x .%s}", v, tn);
    else if (v > 1)
      plB_buf_printf(b, " {%d}", v);
    else if (tn)
      plB_buf_printf(b, " .%s", tn);
    put_ival(b, o, isa);
    if (opt[i]) plB_buf_putc(b, '}');
  }
}

static int check_reg_rc(const plI_module *m, uint32_t id, int want, int relaxed, int rc, int opi,
                        const char *opc, plB_buf *err) {
  if (id == 0 || id > m->regs.n) {
    if (err) plB_buf_printf(err, "operand %d of '%s': unknown register", opi, opc);
    return 0;
  }
  int have = m->regs.p[id - 1].type;
  if (want == PLT_NONE) return 1;
  if (rc && want > PLT_NONE && want < PLT__COUNT && plB_type_compatible(want, have, relaxed) &&
      !in_rclass(have, rc)) {
    if (err) {
      const char *w = plB_type_info[want].name;
      int bits = plB_type_info[want].bits;
      plB_buf_printf(err, "operand %d of '%s': ptxas takes only .%s%s registers here, got ", opi,
                     opc, w,
                     rc == PLA_RC_HALF  ? (bits == 16 ? " or .f16" : " or .f16x2")
                     : rc == PLA_RC_INT ? " or integer (.u, .s)"
                                        : "");
      plI_regname(m, id, err);
      plB_buf_printf(err, " (.%s); declare it .%s (ptx.reg.%s)", plB_type_info[have].name, w, w);
    }
    return 0;
  }
  if (want == have) return 1;
  int ok = want == PLT_PRED ? have == PLT_PRED : plB_type_compatible(want, have, relaxed);
  if (!ok && err) {
    plB_buf_printf(err, "operand %d of '%s': expected a .%s register, got ", opi, opc,
                   plB_type_info[want].name);
    plI_regname(m, id, err);
    plB_buf_printf(err, " (.%s)", have < PLT__COUNT ? plB_type_info[have].name : "?");
  }
  return ok;
}
static int check_reg(const plI_module *m, uint32_t id, int want, int relaxed, int opi,
                     const char *opc, plB_buf *err) {
  return check_reg_rc(m, id, want, relaxed, PLA_RC_ANY, opi, opc, err);
}

/* the state space of the variable a symbol names (PLA_SP_*), or -1 when no variable or more than
** one (of different spaces) has that name. A parameter is .param whatever its space field says (a
** parsed .ptr .global records the space it points into there). */
static int sym_space(const plI_module *m, uint32_t name) {
  static const int map[] = { PLA_SP_GLOBAL, PLA_SP_SHARED, PLA_SP_CONST, PLA_SP_LOCAL,
                             PLA_SP_PARAM };
  const plI_syminfo *e = plI_sym(m, name);
  if (!e) return -1;
  int sp = e->params ? PLA_SP_PARAM : -1;
  for (int k = 0; k < 5; k++) {
    if (!(e->vspaces & (1u << k))) continue;
    if (sp >= 0 && sp != map[k]) return -1;
    sp = map[k];
  }
  return sp;
}
/* the function whose input parameter a symbol names (-1: none, or the name is also a result, a
** variable or a module-scope variable somewhere, and the write may reach that) */
static int input_param_of(const plI_module *m, uint32_t name) {
  const plI_syminfo *e = plI_sym(m, name);
  if (!e || e->global || e->local || (e->params & 2)) return -1;
  return e->param_fn;
}
static const char *space_name(int sp) {
  static const char *n[] = { "generic", ".global", ".shared", ".local", ".param", ".const" };
  return sp >= 0 && sp <= PLA_SP_CONST ? n[sp] : "?";
}

/* an address operand in the instruction's own state space (PLA_SPACE): 1 ok, 0 with a message */
static int check_space(const plA_res *r, const plA_opspec *s, const plI_module *m,
                       const plI_opnd *o, int opi, const char *opc, plB_buf *err) {
  int sp = s->gspace == PLA_G_SECOND ? r->space2 : r->space;
  if (o->flags & PLOF_BASE_REG) {
    if (o->id == 0 || o->id > m->regs.n) return 1;
    int t = m->regs.p[o->id - 1].type;
    if ((sp == PLA_SP_GLOBAL || (sp == PLA_SP_GENERIC && !(s->flags & PLA_ADDR32))) &&
        m->address_size != 32 && t > PLT_NONE && t < PLT__COUNT && plB_type_info[t].bits == 32) {
      if (err) {
        plB_buf_printf(
            err,
            "operand %d of '%s': %s address must be a 64-bit register (.address_size 64), got ",
            opi, opc, sp == PLA_SP_GLOBAL ? "a .global" : "a generic (no state space)");
        plI_regname(m, o->id, err);
        plB_buf_printf(err,
                       " (.%s); a 32-bit register addresses only .shared, .local, .param and "
                       ".const (widen it with "
                       "cvt.u64.u32, or name the state space)",
                       plB_type_info[t].name);
      }
      return 0;
    }
    return 1;
  }
  if (!(o->flags & PLOF_BASE_SYM)) return 1;
  int vs = sym_space(m, o->id);
  if (vs < 0) return 1;
  int writes_param = vs == PLA_SP_PARAM && sp == PLA_SP_PARAM && (s->flags & PLA_WRITE);
  int fn = writes_param ? input_param_of(m, o->id) : -1;
  if (fn >= 0) {
    const plI_func *f = &m->funcs.p[fn];
    if (err)
      plB_buf_printf(err,
                     "operand %d of '%s': '%s' is an input parameter of %s %s, which is "
                     "read-only (ptxas: illegal to write to function input parameter); %s",
                     opi, opc, plI_cstr(m, o->id), f->kind == PLF_ENTRY ? "kernel" : "function",
                     plI_cstr(m, f->name),
                     f->kind == PLF_ENTRY
                         ? "load it into a register (p:load()) and change that"
                         : "st.param writes a function's results (r:store(v)), not its parameters");
    return 0;
  }
  /* an mbarrier object is a .shared variable, and prefetchu reaches .global ones, through a
  ** generic address too */
  if (s->gspace == PLA_G_SHARED) sp = PLA_SP_SHARED;
  if (s->gspace == PLA_G_GLOBAL) sp = PLA_SP_GLOBAL;
  int ok = sp == PLA_SP_GENERIC ? (vs == PLA_SP_GLOBAL || vs == PLA_SP_SHARED || vs == PLA_SP_LOCAL)
                                : vs == sp;
  if (!ok && err) {
    plB_buf_printf(err,
                   "operand %d of '%s': '%s' is a %s variable, which a%s%s access cannot address "
                   "(ptxas: state space mismatch)",
                   opi, opc, plI_cstr(m, o->id), space_name(vs),
                   sp == PLA_SP_GENERIC ? " generic" : " ",
                   sp == PLA_SP_GENERIC ? "" : space_name(sp));
    if (vs == PLA_SP_PARAM)
      plB_buf_puts(err, sp == PLA_SP_GENERIC || sp == PLA_SP_GLOBAL
                            ? "; a pointer parameter holds an address: load it with ld.param "
                              "(ptx.global_ptrs) and address through that register"
                            : "; read a parameter with ld.param");
    else if (s->gspace == PLA_G_SHARED)
      plB_buf_puts(err, "; an mbarrier object lives in .shared");
    else
      plB_buf_printf(err, "; use ld/st%s", vs == PLA_SP_CONST ? ".const" : space_name(vs));
  }
  return ok;
}

/* an immediate's value against the operand's constraints (PLA_IV_*): 1 ok, 0 with a message */
static int check_ival(const plA_opspec *s, const plI_module *m, const plI_opnd *ops, int i, int opi,
                      const char *opc, plB_buf *err) {
  const plI_opnd *o = &ops[i];
  if (!s->ikind || o->kind != PLO_IMM) return 1;
  long long v = (o->flags & PLOF_UNSIGNED)
                    ? (long long)(o->v > (uint64_t)INT64_MAX ? INT64_MAX : o->v)
                    : (long long)(int64_t)o->v;
  if (s->ikind & PLA_IV_LEPREV) {
    if (i > 0 && ops[i - 1].kind == PLO_IMM) {
      long long pv = (long long)(int64_t)ops[i - 1].v;
      if (v < 0 || v > pv) {
        if (err)
          plB_buf_printf(err, "operand %d of '%s': %lld is out of range (0 to operand %d, %lld)",
                         opi, opc, v, opi - 1, pv);
        return 0;
      }
    }
  }
  const plA_ival *iv = m->isa ? plA_ival_of(m->isa, s->ival) : NULL;
  if (!iv) return 1;
  if (s->ikind & (PLA_IV_SET | PLA_IV_SIZES)) {
    int ok = 0;
    for (int k = 0; k < iv->nvals; k++) ok |= v == iv->vals[k];
    if (!ok) {
      if (err) {
        plB_buf_printf(err, "operand %d of '%s': %lld is not ", opi, opc, v);
        plB_buf_puts(err, iv->nvals > 1 ? "one of " : "");
        for (int k = 0; k < iv->nvals; k++)
          plB_buf_printf(err, "%s%d", k ? ", " : "", (int)iv->vals[k]);
        if (iv->nvals == 1)
          plB_buf_puts(err, (s->ikind & PLA_IV_SIZES) ? " (the only size this form takes)"
                                                      : " (the only value this form takes)");
      }
      return 0;
    }
  }
  if ((s->ikind & PLA_IV_RANGE) && (v < iv->lo || v > iv->hi)) {
    if (err)
      plB_buf_printf(err, "operand %d of '%s': %lld is out of range (%lld to %lld)", opi, opc, v,
                     (long long)iv->lo, (long long)iv->hi);
    return 0;
  }
  if ((s->ikind & PLA_IV_MULT) && v % iv->mult != 0) {
    if (err)
      plB_buf_printf(
          err, "operand %d of '%s': %lld is not a multiple of %u%s", opi, opc, v, iv->mult,
          iv->mult == 32 ? " (a barrier's thread count is a whole number of warps)" : "");
    return 0;
  }
  return 1;
}

/* 0 with a message, or the PTX version the instruction needs with these operands */
static int check_ops_one(const plA_res *r, const plI_module *m, const char *opc,
                         const plI_opnd *ops, int n, plB_buf *err) {
  int lo = r->nops - r->nopt, need = r->ptx_min;
  if (n < lo || n > r->nops) {
    if (err) {
      if (lo == r->nops)
        plB_buf_printf(err, "'%s' takes %d operand%s", opc, lo, lo == 1 ? "" : "s");
      else
        plB_buf_printf(err, "'%s' takes %d to %d operands", opc, lo, r->nops);
      if (r->nops) {
        plB_buf_puts(err, " (");
        plA_put_roles(err, r->ops, r->nops, r->nopt);
        plB_buf_putc(err, ')');
      }
      plB_buf_printf(err, ", got %d", n);
    }
    return 0;
  }
  uint8_t idx[MAXOPS];
  plA_map_ops(r->ops, r->nops, n, idx);
  for (int i = 0; i < n; i++) {
    const plA_opspec *s = &r->ops[idx[i]];
    const plI_opnd *o = &ops[i];
    int want = plA_spec_type(r, s), relaxed = (s->flags & PLA_RELAXED) != 0;
    int k = o->kind, opi = i + 1;
    if ((o->flags & PLOF_NEG) && !(s->flags & PLA_NEGOK) && k != PLO_ADDR) {
      if (err) plB_buf_printf(err, "operand %d of '%s' cannot be negated", opi, opc);
      return 0;
    }
    int wantvec = want_vec(r, s);
    switch (k) {
    case PLO_REG:
      if (!(s->kinds & PLA_KREG) || wantvec > 1) goto badkind;
      if (!check_reg_rc(m, o->id, want, relaxed, s->rclass, opi, opc, err)) return 0;
      break;
    case PLO_VEC:
      if (s->kinds & PLA_KLIST) { /* (a, b, ...): any length, any register type */
        if (!(o->flags & PLOF_PAREN)) goto badkind;
        for (uint16_t j = 0; j < o->n; j++) {
          plI_opnd ev = plI_elem(m, o, j);
          const plI_opnd *e = &ev;
          int ek = e->kind;
          if (ek == PLO_SYM) continue; /* a .param variable, as nvcc writes calls */
          if (ek == PLO_REG ? !check_reg(m, e->id, PLT_NONE, 0, opi, opc, err)
                            : !(!(s->flags & PLA_DEST) &&
                                (ek == PLO_IMM || ek == PLO_F32 || ek == PLO_F64))) {
            if (err && ek != PLO_REG)
              plB_buf_printf(err,
                             "operand %d of '%s': element %d of the list is %s, expected a "
                             "register, a .param variable%s",
                             opi, opc, j + 1, kindname(ek),
                             (s->flags & PLA_DEST) ? "" : " or an immediate");
            return 0;
          }
        }
        break;
      }
      if ((s->flags & PLA_VECV) && !wantvec && o->n == 1 && !(o->flags & PLOF_PAREN)) {
        /* ld/st without .vN: ptxas takes a one-element vector {%r1} for the scalar */
        plI_opnd ev = plI_elem(m, o, 0);
        const plI_opnd *e = &ev;
        if (e->kind == PLO_REG) {
          if (!check_reg_rc(m, e->id, want, relaxed, s->rclass, opi, opc, err)) return 0;
          break;
        }
        if ((e->kind == PLO_IMM || e->kind == PLO_F32 || e->kind == PLO_F64) &&
            (s->kinds & PLA_KIMM))
          break;
        goto badkind;
      }
      if (!(s->kinds & PLA_KVEC) || !wantvec || (o->flags & PLOF_PAREN)) goto badkind;
      if (o->n != wantvec) {
        if (err)
          plB_buf_printf(err, "operand %d of '%s': expected a vector of %d registers, got %d", opi,
                         opc, wantvec, o->n);
        return 0;
      }
      for (uint16_t j = 0; j < o->n; j++) {
        plI_opnd ev = plI_elem(m, o, j);
        const plI_opnd *e = &ev;
        if (e->kind == PLO_SINK && (s->kinds & PLA_KSINK)) continue;
        if (e->kind == PLO_IMM || e->kind == PLO_F32 || e->kind == PLO_F64) {
          if (!(s->flags & PLA_DEST)) continue; /* st.v4 [a], {%r1, 0, ...} */
        }
        if (e->kind != PLO_REG) {
          if (err)
            plB_buf_printf(
                err, "operand %d of '%s': element %d of the vector is %s, expected a register", opi,
                opc, j + 1, kindname(e->kind));
          return 0;
        }
        if (!check_reg_rc(m, e->id, want, relaxed, s->rclass, opi, opc, err)) return 0;
      }
      break;
    case PLO_IMM:
    case PLO_F32:
    case PLO_F64:
      if (!(s->kinds & PLA_KIMM) || wantvec > 1) goto badkind;
      if (want == PLT_PRED) goto badkind;
      if (!check_ival(s, m, ops, i, opi, opc, err)) return 0;
      break;
    case PLO_ADDR:
      if (!(s->kinds & PLA_KADDR)) goto badkind;
      if (o->flags & PLOF_BASE_REG) {
        if (o->id == 0 || o->id > m->regs.n) goto badkind;
        int t = m->regs.p[o->id - 1].type;
        const plB_typeinfo *ti = &plB_type_info[t < PLT__COUNT ? t : 0];
        if (!((ti->bits == 32 || ti->bits == 64) &&
              (ti->cls == PLT_CB || ti->cls == PLT_CU || ti->cls == PLT_CS))) {
          if (err) {
            plB_buf_printf(
                err,
                "operand %d of '%s': an address register must be a 32- or 64-bit integer, got ",
                opi, opc);
            plI_regname(m, o->id, err);
            plB_buf_printf(err, " (.%s)", ti->name);
          }
          return 0;
        }
      }
      if ((s->flags & PLA_REGADDR) && !(o->flags & PLOF_BASE_REG)) {
        if (err)
          plB_buf_printf(err,
                         "operand %d of '%s': the address must be a register (ptxas takes no "
                         "variable here: move its address into one first)",
                         opi, opc);
        return 0;
      }
      if ((s->flags & PLA_SPACE) && !check_space(r, s, m, o, opi, opc, err)) return 0;
      /* m:b32=: the address register's own class (a tensor-memory address of tcgen05.mma is a
      ** .b32 register; ptxas takes no .u32 there) */
      if ((o->flags & PLOF_BASE_REG) && s->tsrc == 0 && s->type != PLT_NONE &&
          !check_reg_rc(m, o->id, s->type, 0, s->rclass, opi, opc, err))
        return 0;
      break;
    case PLO_TADDR: { /* [tmap, {c, ...}]: tmap a symbol or a 64-bit integer register */
      if (!(s->kinds & PLA_KTADDR)) goto badkind;
      const plI_opnd *base = &m->opnds.p[o->id];
      if (base->kind == PLO_REG) {
        if (base->id == 0 || base->id > m->regs.n) goto badkind;
        int bt = m->regs.p[base->id - 1].type;
        const plB_typeinfo *ti = &plB_type_info[bt < PLT__COUNT ? bt : 0];
        if (!(ti->bits == 64 && (ti->cls == PLT_CB || ti->cls == PLT_CU || ti->cls == PLT_CS))) {
          if (err) {
            plB_buf_printf(
                err, "operand %d of '%s': a tensor map register must be a 64-bit integer, got ",
                opi, opc);
            plI_regname(m, base->id, err);
            plB_buf_printf(err, " (.%s)", ti->name);
          }
          return 0;
        }
      } else if (base->kind != PLO_SYM) {
        if (err)
          plB_buf_printf(err,
                         "operand %d of '%s': a tensor map must be a symbol or a register, got %s",
                         opi, opc, kindname(base->kind));
        return 0;
      }
      if (wantvec && o->n != wantvec) {
        if (err)
          plB_buf_printf(err, "operand %d of '%s': expected %d tensor coordinates, got %d", opi,
                         opc, wantvec, o->n);
        return 0;
      }
      for (uint16_t j = 0; j < o->n; j++) {
        const plI_opnd *e = &m->opnds.p[o->id + 1 + j];
        if (e->kind == PLO_IMM) continue;
        if (e->kind != PLO_REG) {
          if (err)
            plB_buf_printf(
                err,
                "operand %d of '%s': tensor coordinate %d is %s, expected a register or an integer",
                opi, opc, j + 1, kindname(e->kind));
          return 0;
        }
        if (!check_reg(m, e->id, want, relaxed, opi, opc, err)) return 0;
      }
      break;
    }
    case PLO_SYM:
      if (!(s->kinds & PLA_KSYM)) goto badkind;
      break;
    case PLO_LABEL:
      if (!(s->kinds & PLA_KLABEL)) goto badkind;
      break;
    case PLO_SREG: {
      if (!(s->kinds & PLA_KSREG)) goto badkind;
      const char *name = plI_cstr(m, o->id);
      int sr_type, sr_ptx, sr_sm;
      if (!plA_sreg(name, &sr_type, &sr_ptx, &sr_sm)) {
        if (err)
          plB_buf_printf(err, "operand %d of '%s': PTX has no special register %%%s", opi, opc,
                         name);
        return 0;
      }
      if (want != PLT_NONE && !plB_type_compatible(want, sr_type, 0) &&
          !plB_type_compatible(sr_type, want, 0)) {
        if (err)
          plB_buf_printf(err, "operand %d of '%s': %%%s is .%s", opi, opc, name,
                         plB_type_info[sr_type].name);
        return 0;
      }
      plA_target t;
      if (m->target && plA_target_parse(plI_cstr(m, m->target), &t) && t.sm < sr_sm) {
        if (err)
          plB_buf_printf(err, "operand %d of '%s': %%%s requires sm_%d or later (the target is %s)",
                         opi, opc, name, sr_sm, plI_cstr(m, m->target));
        return 0;
      }
      if (sr_ptx > need) need = sr_ptx;
      break;
    }
    case PLO_SINK:
      if (!(s->kinds & PLA_KSINK)) goto badkind;
      break;
    case PLO_PAIR:
      if (!(s->kinds & PLA_KPAIR)) goto badkind;
      for (int j = 0; j < 2; j++) { /* p|q, or d|p: the first of the operand's type */
        const plI_opnd *e = &m->opnds.p[o->id + (uint32_t)j];
        if (e->kind == PLO_SINK) continue;
        if (e->kind != PLO_REG) goto badkind;
        if (!check_reg(m, e->id, j ? PLT_PRED : want, j ? 0 : relaxed, opi, opc, err)) return 0;
      }
      break;
    case PLO_RAW: break;
    default: goto badkind;
    }
    continue;
  badkind:
    if (err)
      plB_buf_printf(err, "operand %d of '%s': expected %s%s%s, got %s", opi, opc,
                     wantvec > 1 && !(s->kinds & PLA_KTADDR) ? "a vector of registers"
                                                             : expected_kinds(s->kinds),
                     want != PLT_NONE ? " of type ." : "",
                     want != PLT_NONE ? plB_type_info[want].name : "", kindname(k));
    return 0;
  }
  return need;
}

/* the ISA context when alternative i of r reads (put_roles_typed) like the form or another
** alternative -- they differ in the values of their immediates alone, which it is then written
** with -- else NULL. An error's text only: it renders the forms again for each alternative */
static const plA_ctx *alt_values(const plA_res *r, const plI_module *m, int i) {
  plB_buf me, other;
  plB_buf_init(&me);
  plB_buf_init(&other);
  put_roles_typed(&me, r, r->alt[i].ops, r->alt[i].nops, r->alt[i].nopt);
  int same = 0;
  for (int j = -1; j < r->nalt && !same; j++) { /* -1: the form itself */
    if (j == i) continue;
    other.n = 0;
    if (j < 0)
      put_roles_typed(&other, r, r->ops, r->nops, r->nopt);
    else
      put_roles_typed(&other, r, r->alt[j].ops, r->alt[j].nops, r->alt[j].nopt);
    same = strcmp(plB_buf_cstr(&me), plB_buf_cstr(&other)) == 0;
  }
  plB_buf_free(&me);
  plB_buf_free(&other);
  return same ? m->isa : NULL;
}

int plI_check_ops(const plA_res *r, const plI_module *m, const char *opc, const plI_opnd *ops,
                  int n, plB_buf *err) {
  int need = check_ops_one(r, m, opc, ops, n, r->nalt ? NULL : err);
  if (need || !r->nalt) return need;
  plA_target t;
  int have_t = m->target && plA_target_parse(plI_cstr(m, m->target), &t);
  int target_miss = -1;
  for (int i = 0; i < r->nalt; i++) {
    plA_res a = *r;
    a.ops = r->alt[i].ops;
    a.nops = r->alt[i].nops;
    a.nopt = r->alt[i].nopt;
    a.operands = r->alt[i].operands;
    a.ptx_min = r->alt[i].ptx_min;
    int aneed = check_ops_one(&a, m, opc, ops, n, NULL);
    if (!aneed) continue;
    if (have_t &&
        !plA_target_ok(r->alt[i].sm_min, r->alt[i].flags, r->alt[i].ptx_min, opc, &t, 0, NULL)) {
      if (target_miss < 0) target_miss = i;
      continue;
    }
    return aneed;
  }
  if (err) {
    if (target_miss >= 0) { /* the operands fit a form this target lacks */
      plB_buf_printf(err, "'%s' with operands (", opc);
      put_roles_typed_iv(err, r, r->alt[target_miss].ops, r->alt[target_miss].nops,
                         r->alt[target_miss].nopt, alt_values(r, m, target_miss));
      plB_buf_puts(err, "): ");
      plA_target_ok(r->alt[target_miss].sm_min, r->alt[target_miss].flags,
                    r->alt[target_miss].ptx_min, opc, &t, 0, err);
      return 0;
    }
    /* the operand count fits an alternative but not the form: that alternative's complaint */
    if (n < r->nops - r->nopt || n > r->nops)
      for (int i = 0; i < r->nalt; i++)
        if (n >= r->alt[i].nops - r->alt[i].nopt && n <= r->alt[i].nops) {
          plA_res a = *r;
          a.ops = r->alt[i].ops;
          a.nops = r->alt[i].nops;
          a.nopt = r->alt[i].nopt;
          a.operands = r->alt[i].operands;
          check_ops_one(&a, m, opc, ops, n, err);
          return 0;
        }
    check_ops_one(r, m, opc, ops, n, err);
    plB_buf_puts(err, "; other forms take (");
    for (int i = 0; i < r->nalt; i++) {
      if (i) plB_buf_puts(err, "), (");
      put_roles_typed_iv(err, r, r->alt[i].ops, r->alt[i].nops, r->alt[i].nopt,
                         alt_values(r, m, i));
    }
    plB_buf_puts(err, ")");
  }
  return 0;
}
