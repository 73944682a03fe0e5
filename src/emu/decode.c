/* decode.c -- a kernel's statements into internal instructions, once per launchable kernel.
** Each distinct opcode text is taken apart into its modifiers once (dec_mods); every modifier must
** be understood, or the instruction becomes X_UNSUP and stops the run with "<opcode> is not
** emulated" when executed. Each statement then binds its operands (dec_ops).
** Registers become value slots (64 bits per lane) or predicates (one bit per lane); immediates and
** symbol addresses become constant slots, so every operand is a slot and no lane loop branches. */
#include "state.h"
#include "fail.h"
#include "layout.h"
#include "decode.h"
#include "exec.h"
#include "fp.h"
#include "mma.h"
#include "isa.h"
#include "smem.h"
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#define MAXTOK 24

typedef struct toks {
  const char *s[MAXTOK]; /* [0] the base (never looked at), then the form's modifiers */
  int n;
  uint32_t used;
  int types[6], nt;
} toks;

typedef struct D {
  plX_emu *e;
  plX_func *x;
  const plI_module *m;
  const plI_func *f;
  uint32_t *labelpc; /* string id -> pc + 1 */
  /* labels placed more than once in a function, each in its own nested block (inline asm's
  ** LAB_WAIT in every copy of a wait loop): (name, block) -> pc + 1, and each block's parent; a
  ** branch finds the innermost block around it that places the name */
  uint8_t *ldup;
  uint64_t *lkey;
  uint32_t *lval, lcap;
  uint32_t *bpar, nblk, bcur;
  plX_ins *tmpl;
  uint8_t *have;
  uint32_t ntmpl; /* opcode id -> its modifiers, decoded once */
  uint64_t *ckey;
  uint32_t *cval;
  uint32_t ccap; /* constant value -> slot */
  /* registers this instruction reads, writes (a wgmma m64n256 f32: 128 accumulators each way) */
  uint32_t rd[320], wr[320];
  int nrd, nwr;
  const char *opc;
  uint32_t stmt;
  plB_buf msgs;
  int bad; /* an operand the emulator cannot take */
  /* .func: which function reaches which through calls (fns indices) */
  uint8_t *reach;
  /* the statement being decoded (its line resolves scoped variables) */
  const plI_stmt *cur;
  char why[160];
} D;

/* ---- scoped labels -------------------------------------------------------------------------- */
static int is_directive(const char *s);
static int is_brace(const plI_module *m, const plI_stmt *s, char c) {
  if (s->kind != PLS_RAW) return 0;
  const char *t = plI_cstr(m, s->opc);
  return t[0] == c && t[1] == 0;
}
static uint32_t lab_slot(const D *d, uint64_t key) {
  uint32_t h = (uint32_t)((key * 0x9E3779B97F4A7C15ull) >> 32) & (d->lcap - 1);
  while (d->lkey[h] && d->lkey[h] != key) h = (h + 1) & (d->lcap - 1);
  return h;
}
static uint32_t lab_get(const D *d, uint32_t name, uint32_t blk) {
  uint64_t key = ((uint64_t)name << 32 | blk) + 1;
  uint32_t h = lab_slot(d, key);
  return d->lkey[h] ? d->lval[h] : 0;
}
static void lab_free(D *d) {
  free(d->ldup);
  free(d->lkey);
  free(d->lval);
  free(d->bpar);
  d->ldup = NULL;
  d->lkey = NULL;
  d->lval = NULL;
  d->bpar = NULL;
  d->lcap = d->nblk = 0;
}
/* function f places a label name twice: the (name, block) table and the blocks' parents; 0 on
** OOM */
static int lab_build(D *d, const plI_func *f, uint32_t pc0) {
  const plI_module *m = d->m;
  uint32_t nl = 0, nb = 1;
  for (uint32_t i = 0; i < f->stmts.n; i++) {
    nl += f->stmts.p[i].kind == PLS_LABEL;
    nb += is_brace(m, &f->stmts.p[i], '{');
  }
  d->lcap = 16;
  while (d->lcap < 2 * nl) d->lcap *= 2;
  d->ldup = calloc(m->strs.n + 1, 1);
  d->lkey = calloc(d->lcap, sizeof *d->lkey);
  d->lval = calloc(d->lcap, sizeof *d->lval);
  d->bpar = calloc(nb, sizeof *d->bpar);
  uint32_t *stack = calloc(nb + 1, sizeof *stack);
  if (!d->ldup || !d->lkey || !d->lval || !d->bpar || !stack) {
    free(stack);
    lab_free(d);
    return 0;
  }
  uint32_t sp = 0, blk = 0, pc = pc0;
  d->nblk = 1;
  for (uint32_t i = 0; i < f->stmts.n; i++) {
    const plI_stmt *s = &f->stmts.p[i];
    if (is_brace(m, s, '{')) {
      stack[sp++] = blk;
      d->bpar[d->nblk] = blk;
      blk = d->nblk++;
      continue;
    }
    if (is_brace(m, s, '}')) {
      if (sp) blk = stack[--sp];
      continue;
    }
    if (s->kind == PLS_LABEL) {
      uint64_t key = ((uint64_t)s->opc << 32 | blk) + 1;
      uint32_t h = lab_slot(d, key);
      d->lkey[h] = key;
      d->lval[h] = pc + 1;
      /* 2: placed more than once */
      if (s->opc <= m->strs.n && d->ldup[s->opc] < 2) d->ldup[s->opc]++;
    } else if (s->kind == PLS_INSN || !is_directive(plI_cstr(m, s->opc)))
      pc++;
  }
  free(stack);
  return 1;
}

/* ---- modifiers ------------------------------------------------------------------------------ */
/* the modifiers of the form the matcher resolved, in the form's order (the ISA table's strings);
** the type modifiers marked used and listed */
static int fill_toks(const plA_res *r, toks *k) {
  memset(k, 0, sizeof *k);
  k->s[k->n++] = "";
  for (int i = 0; i < r->nmods; i++) {
    if (k->n == MAXTOK) return 0;
    const char *w = r->mods[i];
    int t = plB_type_from_name(w, strlen(w));
    if (t && k->nt < 6) {
      k->types[k->nt++] = t;
      k->used |= 1u << k->n;
    }
    k->s[k->n++] = w;
  }
  k->used |= 1; /* the base name */
  return 1;
}

static int T(toks *k, const char *name) {
  for (int i = 1; i < k->n; i++)
    if (strcmp(k->s[i], name) == 0) {
      k->used |= 1u << i;
      return 1;
    }
  return 0;
}

/* index + 1 in list of the first token that is one of list, 0 if none */
static int TL(toks *k, const char *const *list) {
  for (int i = 1; i < k->n; i++)
    for (int j = 0; list[j]; j++)
      if (strcmp(k->s[i], list[j]) == 0) {
        k->used |= 1u << i;
        return j + 1;
      }
  return 0;
}

/* every not yet used token that is one of list: marked used; how many */
static int TLALL(toks *k, const char *const *list) {
  int c = 0;
  for (int i = 1; i < k->n; i++)
    for (int j = 0; list[j]; j++)
      if (!(k->used >> i & 1) && strcmp(k->s[i], list[j]) == 0) {
        k->used |= 1u << i;
        c++;
        break;
      }
  return c;
}

static const char *unused(toks *k) {
  for (int i = 0; i < k->n; i++)
    if (!(k->used >> i & 1)) return k->s[i];
  return NULL;
}

/* a token is there (not marked used) */
static int has(const toks *k, const char *t) {
  for (int i = 1; i < k->n; i++)
    if (strcmp(k->s[i], t) == 0) return 1;
  return 0;
}

/* a strong access (.volatile, .relaxed, .acquire, .release): it orders global memory for the
** races check */
static int strong(const toks *k) {
  return has(k, "volatile") || has(k, "relaxed") || has(k, "acquire") || has(k, "release");
}

/* cache hints, memory orders and scopes: no effect on a sequential emulation */
static void noise(toks *k) {
  static const char *const N[] = { "ca",
                                   "cg",
                                   "cs",
                                   "lu",
                                   "cv",
                                   "wb",
                                   "wt",
                                   "weak",
                                   "volatile",
                                   "relaxed",
                                   "acquire",
                                   "release",
                                   "acq_rel",
                                   "sc",
                                   "cta",
                                   "gpu",
                                   "sys",
                                   "L2::cache_hint",
                                   "L2::64B",
                                   "L2::128B",
                                   "L2::256B",
                                   "L1::evict_normal",
                                   "L1::evict_unchanged",
                                   "L1::evict_first",
                                   "L1::evict_last",
                                   "L1::no_allocate",
                                   "L2::evict_normal",
                                   "L2::evict_first",
                                   "L2::evict_last",
                                   "L1",
                                   "L2",
                                   "uni",
                                   NULL };
  for (int i = 1; i < k->n; i++)
    for (int j = 0; N[j]; j++)
      if (strcmp(k->s[i], N[j]) == 0) k->used |= 1u << i;
}

static int space_tok(toks *k) {
  static const char *const S[] = { "global", "shared", "shared::cta", "local",
                                   "param",  "const",  NULL };
  switch (TL(k, S)) {
  case 1: return XS_GLOBAL;
  case 2:
  case 3: return XS_SHARED;
  case 4: return XS_LOCAL;
  case 5: return XS_PARAM;
  case 6: return XS_CONST;
  }
  return XS_GENERIC;
}

static int rnd_tok(toks *k) {
  static const char *const R[] = {
    "rn", "rz", "rm", "rp", "rni", "rzi", "rmi", "rpi", "rna", NULL
  };
  static const int V[] = { XR_RN, XR_RZ, XR_RM, XR_RP, XR_RNI, XR_RZI, XR_RMI, XR_RPI, XR_RNA };
  int i = TL(k, R);
  return i ? V[i - 1] : XR_NONE;
}

static int cmp_tok(toks *k) {
  static const char *const C[] = { "eq",  "ne",  "lt",  "le",  "gt",  "ge",  "lo",
                                   "ls",  "hi",  "hs",  "equ", "neu", "ltu", "leu",
                                   "gtu", "geu", "num", "nan", NULL };
  return TL(k, C) - 1;
}

/* ---- slots
** ------------------------------------------------------------------------------------ */
static void bad(D *d, const char *fmt, const char *arg) {
  if (d->bad) return;
  d->bad = 1;
  snprintf(d->why, sizeof d->why, fmt, arg);
}

static uint32_t cslot(D *d, uint64_t v) {
  plX_func *x = d->x;
  if (x->nconsts * 2 >= d->ccap) {
    uint32_t nc = d->ccap ? d->ccap * 2 : 256;
    uint64_t *nk = calloc(nc, sizeof *nk);
    uint32_t *nv = calloc(nc, sizeof *nv);
    if (!nk || !nv) {
      free(nk);
      free(nv);
      bad(d, "out of memory%s", "");
      return 0;
    }
    for (uint32_t i = 0; i < d->ccap; i++)
      if (d->cval[i]) {
        uint32_t h = (uint32_t)((d->ckey[i] * 0x9E3779B97F4A7C15ull) >> 40) & (nc - 1);
        while (nv[h]) h = (h + 1) & (nc - 1);
        nk[h] = d->ckey[i];
        nv[h] = d->cval[i];
      }
    free(d->ckey);
    free(d->cval);
    d->ckey = nk;
    d->cval = nv;
    d->ccap = nc;
    uint64_t *c = realloc(x->consts, nc / 2 * sizeof *c);
    if (!c) {
      bad(d, "out of memory%s", "");
      return 0;
    }
    x->consts = c;
  }
  uint32_t h = (uint32_t)((v * 0x9E3779B97F4A7C15ull) >> 40) & (d->ccap - 1);
  while (d->cval[h]) {
    if (d->ckey[h] == v) return x->nregslots + d->cval[h];
    h = (h + 1) & (d->ccap - 1);
  }
  x->consts[x->nconsts++] = v;
  d->ckey[h] = v;
  d->cval[h] = x->nconsts; /* slot nregslots + 1 + index */
  return x->nregslots + x->nconsts;
}

static uint32_t junk(D *d) {
  return d->x->nregslots;
}
static uint32_t pjunk(D *d) {
  return d->x->npreds - 1;
}

static int regtype(D *d, uint32_t id) {
  return d->m->regs.p[id - 1].type;
}

static int fbits(int t, double v, uint64_t *out) { /* a value as the bits of float type t */
  int fmt = plX__fmt_of(t);
  if (fmt < 0) return 0;
  *out = plX__round(v, 0, fmt, XR_RN, 0);
  return 1;
}

static uint64_t imm_bits(D *d, const plI_opnd *o, int t) {
  int cls = t > PLT_NONE && t < PLT__COUNT ? plB_type_info[t].cls : PLT_CB;
  uint64_t b = o->v;
  if (o->kind == PLO_IMM) {
    if (cls == PLT_CF && t != PLT_F16X2 && t != PLT_BF16X2) {
      double v = (o->flags & PLOF_UNSIGNED) ? (double)o->v : (double)(int64_t)o->v;
      fbits(t, v, &b);
    }
    return b;
  }
  if (o->kind == PLO_F32) {
    if (t == PLT_F32 || cls != PLT_CF) return b;
    uint32_t u = (uint32_t)b;
    float f;
    memcpy(&f, &u, 4);
    fbits(t, f, &b);
    return b;
  }
  if (o->kind == PLO_F64) {
    if (t == PLT_F64 || cls != PLT_CF) return b;
    double v;
    memcpy(&v, &b, 8);
    fbits(t, v, &b);
    return b;
  }
  return b;
}

static void rdreg(D *d, uint32_t s) {
  if (d->nrd < 320) d->rd[d->nrd++] = s;
}
static void wrreg(D *d, uint32_t s) {
  if (d->nwr < 320) d->wr[d->nwr++] = s;
}

/* a symbol's state space and address for the statement being decoded: a variable of the function
** first. nvcc declares `.param .b32 param0;` anew in each call's { } block, with another type or
** size at times: of the function's variables of that name, the one declared last at or above the
** statement's line is the one in scope (declarations come before their uses in a block) */
static int fvar_addr(D *d, uint32_t name, uint8_t *sp, uint64_t *a) {
  const plI_func *f = d->f;
  int pick = -1, any = -1;
  for (uint32_t i = 0; i < f->vars.n; i++) {
    const plI_var *v = &f->vars.p[i];
    if (v->name != name) continue;
    any = (int)i;
    if (!d->cur || (v->file == d->cur->file && v->line <= d->cur->line)) pick = (int)i;
  }
  if (pick < 0) pick = any;
  if (pick < 0) return plX__var_addr(d->e, name, sp, a);
  plX_emu *e = d->e;
  if (e->dfn == 0) {
    const plX_var *x = &e->vars[e->m->globals.n + (uint32_t)pick];
    *sp = x->space;
    *a = x->addr;
    return 1;
  }
  const plX_fn *fn = &e->fns[e->dfn];
  *sp = XS_LOCAL;
  *a = e->ploc[fn->ppar + f->params.n + f->rets.n + (uint32_t)pick].off;
  return 1;
}

/* a symbol's value as an operand: its address in its state space */
static uint64_t sym_value(D *d, uint32_t name, int generic) {
  uint8_t sp;
  uint64_t a;
  if (!fvar_addr(d, name, &sp, &a)) {
    bad(d, "unknown symbol '%s'", plI_cstr(d->m, name));
    return 0;
  }
  if (generic) {
    if (sp == XS_SHARED)
      a += X_SH_BASE;
    else if (sp == XS_LOCAL)
      a += X_LOC_BASE;
    else if (sp == XS_PARAM)
      a += X_PAR_BASE;
  }
  return a;
}

static uint32_t vsrc(D *d, const plI_opnd *o, int t) {
  switch (o->kind) {
  case PLO_REG: {
    uint32_t s = d->x->slot_of[o->id - 1];
    if (s & X_PREDBIT) {
      bad(d, "a predicate where a value is expected%s", "");
      return junk(d);
    }
    rdreg(d, s);
    return s;
  }
  case PLO_IMM:
  case PLO_F32:
  case PLO_F64: return cslot(d, imm_bits(d, o, t));
  case PLO_SYM: return cslot(d, sym_value(d, o->id, 0));
  default: bad(d, "an operand of this kind%s", ""); return junk(d);
  }
}

static uint32_t vdst(D *d, const plI_opnd *o) {
  if (o->kind == PLO_SINK) return junk(d);
  if (o->kind != PLO_REG) {
    bad(d, "a destination of this kind%s", "");
    return junk(d);
  }
  uint32_t s = d->x->slot_of[o->id - 1];
  if (s & X_PREDBIT) {
    bad(d, "a predicate destination where a value is expected%s", "");
    return junk(d);
  }
  wrreg(d, s);
  return s;
}

static uint32_t psrc(D *d, const plI_opnd *o, int *neg) {
  if (neg) *neg = (o->flags & PLOF_NEG) != 0;
  if (o->kind != PLO_REG) {
    bad(d, "a predicate operand of this kind%s", "");
    return pjunk(d);
  }
  uint32_t s = d->x->slot_of[o->id - 1];
  if (!(s & X_PREDBIT)) {
    bad(d, "a value where a predicate is expected%s", "");
    return pjunk(d);
  }
  rdreg(d, s);
  return s & ~X_PREDBIT;
}

static uint32_t pdst(D *d, const plI_opnd *o) {
  if (o->kind == PLO_SINK) return pjunk(d);
  if (o->kind != PLO_REG) {
    bad(d, "a predicate destination of this kind%s", "");
    return pjunk(d);
  }
  uint32_t s = d->x->slot_of[o->id - 1];
  if (!(s & X_PREDBIT)) {
    bad(d, "a value where a predicate is expected%s", "");
    return pjunk(d);
  }
  wrreg(d, s);
  return s & ~X_PREDBIT;
}

static uint32_t vpush(D *d, uint32_t s) {
  plX_func *x = d->x;
  if (x->nvslots == x->cvslots) {
    uint32_t nc = x->cvslots ? x->cvslots * 2 : 256;
    uint32_t *p = realloc(x->vslots, nc * sizeof *p);
    if (!p) {
      bad(d, "out of memory%s", "");
      return 0;
    }
    x->vslots = p;
    x->cvslots = nc;
  }
  x->vslots[x->nvslots++] = s;
  return x->nvslots - 1;
}

/* a vector operand {a, b, ...} of n elements (a scalar register counts as one) */
static int vvec(D *d, const plI_opnd *o, int n, int dest, int t, uint32_t *first) {
  *first = d->x->nvslots;
  if (o->kind != PLO_VEC) {
    if (n != 1) {
      bad(d, "a scalar where a vector is expected%s", "");
      return 0;
    }
    vpush(d, dest ? vdst(d, o) : vsrc(d, o, t));
    return 1;
  }
  if (o->n != n) {
    bad(d, "a vector of another length%s", "");
    return 0;
  }
  for (int i = 0; i < n; i++) {
    plI_opnd el = plI_elem(d->m, o, (uint32_t)i);
    vpush(d, dest ? vdst(d, &el) : vsrc(d, &el, t));
  }
  return 1;
}

/* a .b128 register operand: its first slot (the low half; the high half is the next), both
** read or written */
static uint32_t q128(D *d, const plI_opnd *o, int dest) {
  if (o->kind != PLO_REG || regtype(d, o->id) != PLT_B128) {
    bad(d, "a 128-bit operand other than a .b128 register%s", "");
    return junk(d);
  }
  uint32_t s = d->x->slot_of[o->id - 1];
  if (dest) {
    wrreg(d, s);
    wrreg(d, s + 1);
  } else {
    rdreg(d, s);
    rdreg(d, s + 1);
  }
  return s;
}
/* the two halves of a .b128 register as a vector of two slots (ld/st.b128) */
static void vq(D *d, const plI_opnd *o, int dest, uint32_t *first) {
  *first = d->x->nvslots;
  uint32_t s = q128(d, o, dest);
  vpush(d, s);
  vpush(d, s == junk(d) ? s : s + 1);
}

/* [base + off]: the base register (or the zero constant) and the offset; symbols resolved */
static void vaddr(D *d, const plI_opnd *o, plX_ins *in, int space) {
  if (o->kind != PLO_ADDR) {
    bad(d, "an address operand of this kind%s", "");
    return;
  }
  int64_t off = (int64_t)o->v;
  in->abits = 64;
  if (o->flags & PLOF_BASE_REG) {
    uint32_t s = d->x->slot_of[o->id - 1];
    if (s & X_PREDBIT) {
      bad(d, "a predicate as an address%s", "");
      return;
    }
    rdreg(d, s);
    in->abase = s;
    in->abits = (uint8_t)(plB_type_info[regtype(d, o->id)].bits == 32 ? 32 : 64);
    in->off = off;
    return;
  }
  in->abase = cslot(d, 0);
  if (o->flags & PLOF_BASE_SYM) {
    uint8_t sp;
    uint64_t a;
    if (!fvar_addr(d, o->id, &sp, &a)) {
      bad(d, "unknown symbol '%s'", plI_cstr(d->m, o->id));
      return;
    }
    if (space == XS_GENERIC) {
      if (sp == XS_SHARED)
        a += X_SH_BASE;
      else if (sp == XS_LOCAL)
        a += X_LOC_BASE;
      else if (sp == XS_PARAM)
        a += X_PAR_BASE;
    } else if (sp == XS_LOCAL && space == XS_PARAM) {
      /* a .func's parameter, a call's .param variable: in the thread's local memory */
      in->space = XS_LOCAL;
    } else if (sp != space && !(sp == XS_CONST && space == XS_GLOBAL) &&
               !(sp == XS_GLOBAL && space == XS_CONST)) {
      bad(d, "symbol '%s' in another state space than the instruction's", plI_cstr(d->m, o->id));
      return;
    }
    in->off = (int64_t)a + off;
    return;
  }
  in->off = off;
}

/* ---- special registers
** -------------------------------------------------------------------------- */
static int sreg_id(const char *s) {
  static const struct {
    const char *n;
    int id;
  } S[] = {
    { "tid.x", XSR_TID_X },
    { "tid.y", XSR_TID_Y },
    { "tid.z", XSR_TID_Z },
    { "ntid.x", XSR_NTID_X },
    { "ntid.y", XSR_NTID_Y },
    { "ntid.z", XSR_NTID_Z },
    { "ctaid.x", XSR_CTAID_X },
    { "ctaid.y", XSR_CTAID_Y },
    { "ctaid.z", XSR_CTAID_Z },
    { "nctaid.x", XSR_NCTAID_X },
    { "nctaid.y", XSR_NCTAID_Y },
    { "nctaid.z", XSR_NCTAID_Z },
    { "laneid", XSR_LANEID },
    { "warpid", XSR_WARPID },
    { "nwarpid", XSR_NWARPID },
    { "smid", XSR_SMID },
    { "nsmid", XSR_NSMID },
    { "gridid", XSR_GRIDID },
    { "lanemask_eq", XSR_LANEMASK_EQ },
    { "lanemask_le", XSR_LANEMASK_LE },
    { "lanemask_lt", XSR_LANEMASK_LT },
    { "lanemask_ge", XSR_LANEMASK_GE },
    { "lanemask_gt", XSR_LANEMASK_GT },
    { "clock", XSR_CLOCK },
    { "clock_hi", XSR_CLOCK_HI },
    { "clock64", XSR_CLOCK64 },
    { "globaltimer", XSR_GLOBALTIMER },
    { "cluster_ctarank", XSR_CL_RANK },
    { "cluster_nctarank", XSR_CL_NRANK },
    { "cluster_ctaid.x", XSR_CL_CTAID_X },
    { "cluster_ctaid.y", XSR_CL_CTAID_Y },
    { "cluster_ctaid.z", XSR_CL_CTAID_Z },
    { "cluster_nctaid.x", XSR_CL_NCTAID_X },
    { "cluster_nctaid.y", XSR_CL_NCTAID_Y },
    { "cluster_nctaid.z", XSR_CL_NCTAID_Z },
    { "clusterid.x", XSR_CLID_X },
    { "clusterid.y", XSR_CLID_Y },
    { "clusterid.z", XSR_CLID_Z },
    { "nclusterid.x", XSR_NCLID_X },
    { "nclusterid.y", XSR_NCLID_Y },
    { "nclusterid.z", XSR_NCLID_Z },
    { "is_explicit_cluster", XSR_CL_EXPLICIT },
    { "dynamic_smem_size", XSR_DYNSMEM },
    { "total_smem_size", XSR_TOTALSMEM },
    { "aggr_smem_size", XSR_TOTALSMEM },
  };
  for (size_t i = 0; i < sizeof S / sizeof S[0]; i++)
    if (strcmp(S[i].n, s) == 0) return S[i].id;
  return -1;
}

/* ---- one instruction
** ------------------------------------------------------------------------------ */
static int isfloat(int t) {
  return t > PLT_NONE && t < PLT__COUNT && plB_type_info[t].cls == PLT_CF;
}
static int tbits(int t) {
  return t > PLT_NONE && t < PLT__COUNT ? plB_type_info[t].bits : 0;
}

static int unsup(D *d, plX_ins *in, const char *detail) {
  in->op = X_UNSUP;
  in->off = (int64_t)d->msgs.n;
  plB_buf_printf(&d->msgs, "%s is not emulated", d->opc);
  if (detail && *detail) plB_buf_printf(&d->msgs, " (%s)", detail);
  plB_buf_putc(&d->msgs, 0);
  return 0;
}

/* a .param variable of the function being decoded that lives in the thread's local memory: a
** .func's parameter or result, or a call's .param variable (nvcc's { .param .b32 param0; ... }),
** as fvar_addr picks it; its bytes, and what it is, for messages. 0 when name is none of those */
static int local_param(D *d, uint32_t name, uint64_t *bytes, const char **role) {
  const plI_func *f = d->f;
  const plI_var *v = NULL;
  int pick = -1, any = -1;
  for (uint32_t i = 0; i < f->vars.n; i++) {
    if (f->vars.p[i].name != name) continue;
    any = (int)i;
    const plI_var *q = &f->vars.p[i];
    if (!d->cur || (q->file == d->cur->file && q->line <= d->cur->line)) pick = (int)i;
  }
  if (pick < 0) pick = any;
  if (pick >= 0) {
    v = &f->vars.p[pick];
    *role = "the .param variable";
  }
  for (uint32_t i = 0; !v && d->e->dfn > 0 && i < f->params.n + f->rets.n; i++) {
    const plI_var *q = i < f->params.n ? &f->params.p[i] : &f->rets.p[i - f->params.n];
    if (q->name == name) {
      v = q;
      *role = i < f->params.n ? "parameter" : "the result";
    }
  }
  if (!v || v->space != PLV_PARAM) return 0;
  uint32_t b = plB_type_info[v->type].bits;
  *bytes = (uint64_t)(b < 8 ? 1 : b / 8) * (v->count && v->count != UINT64_MAX ? v->count : 1);
  return 1;
}

/* an ld.param / st.param of a function's own .param variable past its bytes: each is a variable of
** its own (its neighbours in the emulator's local memory are no part of it), so the access is out
** of range: reported when it runs, as an unsupported instruction is */
static int param_range(D *d, plX_ins *in, const plI_opnd *o) {
  uint64_t bytes;
  const char *role;
  if (!(o->flags & PLOF_BASE_SYM) || !local_param(d, o->id, &bytes, &role)) return 0;
  int64_t off = (int64_t)o->v;
  uint64_t w = (uint64_t)(tbits(in->t) / 8 ? tbits(in->t) / 8 : 1) * (in->vec ? in->vec : 1);
  if (off >= 0 && (uint64_t)off + w <= bytes) return 0;
  const char *does = in->op == X_LD ? "reads" : "writes", *name = plI_cstr(d->m, o->id);
  int of = d->e->dfn > 0 && *role == 'p'; /* a parameter: its function */
  in->op = X_UNSUP;
  in->off = (int64_t)d->msgs.n;
  plB_buf_printf(&d->msgs, "out-of-range %s: it %s bytes %lld..%lld of %s '%s'", d->opc, does,
                 (long long)off, (long long)off + (long long)w - 1, role, name);
  if (of) plB_buf_printf(&d->msgs, " of %s", plI_cstr(d->m, d->f->name));
  plB_buf_printf(&d->msgs,
                 ", which holds %llu byte%s (0..%llu): each .param of a function (a "
                 "parameter, a result, a call's .param variable) is a variable of its own, with "
                 "nothing past its end",
                 (unsigned long long)bytes, bytes == 1 ? "" : "s", (unsigned long long)bytes - 1);
  plB_buf_putc(&d->msgs, 0);
  return 1;
}

#define NEED(cond, why)                    \
  do {                                     \
    if (!(cond)) return unsup(d, in, why); \
  } while (0)
#define NOPS(k) NEED(n == (k), "operand count")

/* Phase 1, once per opcode text: the modifiers, from the form the matcher resolved. The form's
** operation (the ISA table's last column, src/isa/isa_ops.h) names the decoder; each decoder reads
** the modifiers its operation takes and sets op (the form's own, or the one it refines to), types,
** rounding, flags, sub-operations, space and vector width; X_UNSUP (with its message) when a
** modifier is not understood. A decoder returns 0 after unsup(). */
typedef int (*decfn)(D *d, toks *k, plX_ins *in, int op);
#define DEC(name) static int dec_##name(D *d, toks *k, plX_ins *in, int op)

/* a form the emulator does not run, and the rows no form names */
DEC(none) {
  (void)k;
  (void)op;
  return unsup(d, in, "");
}
DEC(nop) {
  (void)d;
  (void)k;
  (void)op;
  in->op = X_NOP;
  return 1;
}
/* an operation of element functions (isa_ops.h): its forms' modifiers are its own (the element
** function reads what it needs from the instruction: types, rounding, flags) */
__attribute__((unused)) /* (while no row of isa_ops.h names it) */
DEC(elem) {
  (void)d;
  k->used = k->n >= 32 ? 0xffffffffu : (1u << k->n) - 1;
  in->op = (uint16_t)op;
  return 1;
}
/* the operation as the form names it: no modifiers of its own */
DEC(plain) {
  (void)d;
  (void)k;
  in->op = (uint16_t)op;
  return 1;
}

DEC(addsub) {
  int sub = op == X_SUB || op == X_SUBC || op == X_SUBSAT || op == X_FSUB;
  int carry = op == X_ADDC || op == X_SUBC, t = in->t;
  int cc = T(k, "cc");
  if (isfloat(t)) {
    NEED(!carry && !cc && k->nt == 1, "");
    in->op = sub ? X_FSUB : X_FADD;
  } else if (carry || cc) {
    in->op = sub ? X_SUBC : X_ADDC;
    if (carry) in->fl |= XF_CCIN;
    if (cc) in->fl |= XF_CCOUT;
  } else if (in->fl & XF_SAT) {
    NEED(t == PLT_S32, "");
    in->fl &= (uint16_t)~XF_SAT;
    in->op = sub ? X_SUBSAT : X_ADDSAT;
  } else
    in->op = sub ? X_SUB : X_ADD;
  return 1;
}

/* mul, mad, madc, fma */
DEC(mul) {
  int mad = !(op == X_MULLO || op == X_MULHI || op == X_MULWIDE || op == X_FMUL), t = in->t;
  int lo = T(k, "lo"), hi = T(k, "hi"), wide = T(k, "wide"), cc = T(k, "cc");
  if (isfloat(t)) {
    NEED(!lo && !hi && !wide && !cc, "");
    in->op = mad ? X_FFMA : X_FMUL;
  } else if (!mad) {
    NEED(lo + hi + wide == 1, "");
    in->op = lo ? X_MULLO : hi ? X_MULHI : X_MULWIDE;
  } else {
    NEED(lo + hi + wide == 1 && op != X_FFMA, "");
    in->op = wide ? X_MADWIDE : lo ? X_MADLO : X_MADHI;
    if (cc || op == X_MADC) {
      in->op = X_MADC;
      in->sub = (uint8_t)hi;
      if (cc) in->fl |= XF_CCOUT;
      if (op == X_MADC) in->fl |= XF_CCIN;
    }
    if (in->fl & XF_SAT) NEED(hi && t == PLT_S32 && in->op == X_MADHI, "");
  }
  return 1;
}

DEC(mul24) {
  (void)d;
  in->sub = (uint8_t)T(k, "hi");
  T(k, "lo");
  in->op = (uint16_t)op;
  return 1;
}

DEC(div) {
  (void)d;
  (void)op;
  if (!isfloat(in->t)) {
    in->op = X_DIV;
    return 1;
  }
  if (T(k, "full")) in->fl |= XF_FULL;
  in->op = X_FDIV;
  return 1;
}

DEC(absneg) {
  (void)d;
  (void)k;
  int neg = op == X_NEG || op == X_FNEG, F = isfloat(in->t);
  in->op = neg ? (F ? X_FNEG : X_NEG) : (F ? X_FABS : X_ABS);
  return 1;
}

DEC(minmax) {
  int mx = op == X_MAX || op == X_FMAX;
  if (!isfloat(in->t)) {
    in->op = mx ? X_MAX : X_MIN;
    return 1;
  }
  if (T(k, "xorsign")) {
    NEED(T(k, "abs"), "");
    in->fl |= XF_XORSIGN;
  }
  in->op = mx ? X_FMAX : X_FMIN;
  return 1;
}

DEC(bfind) {
  (void)d;
  (void)op;
  if (T(k, "shiftamt")) in->fl |= XF_SHIFTAMT;
  in->op = X_BFIND;
  return 1;
}

/* bmsk, szext: .clamp or .wrap */
DEC(bmsk) {
  (void)d;
  in->sub = (uint8_t)T(k, "clamp");
  T(k, "wrap");
  in->op = (uint16_t)op;
  return 1;
}

/* dp4a, dp2a */
DEC(dp) {
  (void)d;
  in->sub = (uint8_t)T(k, "hi");
  T(k, "lo");
  in->op = (uint16_t)op;
  return 1;
}

/* and, or, xor, not: of predicates, the predicate operations */
DEC(logic) {
  (void)d;
  (void)k;
  if (in->t != PLT_PRED) {
    in->op = (uint16_t)op;
    return 1;
  }
  in->op = op == X_AND ? X_PAND : op == X_OR ? X_POR : op == X_XOR ? X_PXOR : X_PNOT;
  return 1;
}

DEC(shf) {
  (void)d;
  (void)op;
  in->sub = (uint8_t)T(k, "r");
  T(k, "l");
  in->sub2 = (uint8_t)T(k, "clamp");
  T(k, "wrap");
  in->op = X_SHF;
  return 1;
}

DEC(prmt) {
  (void)d;
  (void)op;
  static const char *const M[] = { "f4e", "b4e", "rc8", "ecl", "ecr", "rc16", NULL };
  in->sub = (uint8_t)TL(k, M);
  in->op = X_PRMT;
  return 1;
}

/* setp, set */
DEC(setp) {
  int c = cmp_tok(k), t = in->t, t2 = in->t2;
  static const char *const B[] = { "and", "or", "xor", NULL };
  int bo = TL(k, B);
  NEED(c >= 0, "comparison");
  int st = op == X_SETP ? t : t2; /* the compared type */
  in->sub = (uint8_t)c;
  in->sub2 = (uint8_t)bo;
  in->t = (uint8_t)st;
  in->t2 = (uint8_t)t; /* set: t2 = the destination type */
  in->op = (uint16_t)op;
  return 1;
}

/* rcp, sqrt, rsqrt, sin, cos, lg2, ex2, tanh */
DEC(mufu) {
  (void)k;
  NEED(isfloat(in->t), "");
  in->op = (uint16_t)op;
  return 1;
}

DEC(testp) {
  (void)d;
  (void)op;
  static const char *const C[] = { "finite", "infinite",  "number", "notanumber",
                                   "normal", "subnormal", NULL };
  in->sub = (uint8_t)TL(k, C);
  in->op = X_TESTP;
  return 1;
}

DEC(cvt) {
  (void)op;
  int t = in->t, t2 = in->t2;
  NEED(k->nt == 2, "");
  for (int i = 0; i < 2; i++) {
    int ti = k->types[i];
    NEED(!isfloat(ti) || ti == PLT_F16 || ti == PLT_BF16 || ti == PLT_TF32 || ti == PLT_F32 ||
             ti == PLT_F64 || ti == PLT_F16X2 || ti == PLT_BF16X2 || ti == PLT_E4M3X2 ||
             ti == PLT_E5M2X2,
         "type");
  }
  NEED(!(t2 == PLT_E4M3X2 || t2 == PLT_E5M2X2) || t == PLT_F16X2, "");
  int df = isfloat(t), sf = isfloat(t2), r = in->rnd;
  int exact = t == t2 || (!df && !sf) ||
              ((t2 == PLT_F16 || t2 == PLT_BF16) && (t == PLT_F32 || t == PLT_F64)) ||
              (t2 == PLT_F32 && t == PLT_F64) || t == PLT_F16X2;
  if (sf && !df)
    NEED(r >= XR_RNI && r <= XR_RPI,
         "a float-to-integer conversion needs .rni, .rzi, .rmi or .rpi");
  else if (!sf && df)
    NEED(r >= XR_RN && r <= XR_RP, "an integer-to-float conversion needs .rn, .rz, .rm or .rp");
  else if (!exact)
    NEED((r >= XR_RN && r <= XR_RP) || (r == XR_RNA && t == PLT_TF32),
         "a narrowing conversion needs a rounding modifier");
  in->op = X_CVT; /* X_CVTPACK when it has two sources */
  return 1;
}

DEC(cvta) {
  (void)op;
  int to = T(k, "to");
  int sp = space_tok(k);
  NEED(sp != XS_GENERIC, "");
  NEED(in->t == PLT_U64, "32-bit generic addresses");
  in->op = to ? X_CVTATO : X_CVTA;
  in->space = (uint8_t)sp;
  return 1;
}

DEC(isspacep) {
  (void)op;
  int sp = space_tok(k);
  NEED(sp != XS_GENERIC, "");
  in->op = X_ISSPACEP;
  in->space = (uint8_t)sp;
  return 1;
}

/* X_MOVSREG, X_PACK, X_UNPACK by operands */
DEC(mov) {
  (void)d;
  (void)k;
  (void)op;
  in->op = in->t == PLT_PRED ? X_PMOV : X_MOV;
  return 1;
}

/* ld, ldu, st */
DEC(ldst) {
  int t = in->t;
  /* bit 0: orders global memory (races check); bits 1-2: a strong access's scope (1 .cta, 2
  ** .cluster, 3 .gpu/.sys/.volatile): with an atomic whose thread it covers, no race */
  in->gsync = (uint8_t)((strong(k) && !has(k, "cta")) | (!strong(k)          ? 0
                                                         : has(k, "cta")     ? 2
                                                         : has(k, "cluster") ? 4
                                                                             : 6));
  noise(k);
  T(k, "nc");
  if (T(k, "shared::cluster")) in->fl |= XF_CLUSTER;
  int sp = (in->fl & XF_CLUSTER) ? XS_SHARED : space_tok(k);
  static const char *const V[] = { "v2", "v4", "v8", NULL };
  int v = TL(k, V);
  in->vec = (uint8_t)(v == 0 ? 1 : v == 1 ? 2 : v == 2 ? 4 : 8);
  /* a .b128 access: the two 64-bit halves of its register, as .v2.b64 (t2 says so) */
  if (k->nt == 1 && t == PLT_B128 && !v) {
    in->t = PLT_B64;
    in->t2 = PLT_B128;
    in->vec = 2;
  }
  NEED(k->nt == 1 && tbits(in->t) >= 8 && tbits(in->t) <= 64, "vectors of .b128");
  in->space = (uint8_t)sp;
  in->op = (uint16_t)op;
  return 1;
}

/* prefetch, prefetchu */
DEC(prefetch) {
  (void)d;
  (void)op;
  noise(k);
  space_tok(k);
  T(k, "tensormap");
  in->op = X_NOP;
  return 1;
}

/* atom, red */
DEC(atom) {
  noise(k);
  static const char *const A[] = { "add", "min", "max",  "inc", "dec", "and",
                                   "or",  "xor", "exch", "cas", NULL };
  if (T(k, "shared::cluster")) in->fl |= XF_CLUSTER;
  int sp = (in->fl & XF_CLUSTER) ? XS_SHARED : space_tok(k);
  T(k, "cluster");
  NEED(sp == XS_GENERIC || sp == XS_GLOBAL || sp == XS_SHARED, "");
  int a = TL(k, A);
  NEED(a, "");
  T(k, "noftz");
  in->sub = (uint8_t)(a - 1);
  in->space = (uint8_t)sp;
  in->op = (uint16_t)op;
  return 1;
}

DEC(shfl) {
  (void)op;
  static const char *const M[] = { "up", "down", "bfly", "idx", NULL };
  NEED(T(k, "sync"), "shfl without .sync");
  in->sub = (uint8_t)TL(k, M);
  NEED(in->sub, "");
  in->op = X_SHFL;
  return 1;
}

DEC(vote) {
  (void)op;
  static const char *const M[] = { "all", "any", "uni", "ballot", NULL };
  NEED(T(k, "sync"), "vote without .sync");
  in->sub = (uint8_t)TL(k, M);
  NEED(in->sub, "");
  in->op = X_VOTE;
  return 1;
}

DEC(redux) {
  (void)op;
  static const char *const M[] = { "add", "min", "max", "and", "or", "xor", NULL };
  NEED(T(k, "sync"), "");
  int o = TL(k, M);
  NEED(o && !isfloat(in->t), "");
  in->sub = (uint8_t)o;
  in->op = X_REDUX;
  return 1;
}

DEC(match) {
  (void)op;
  in->sub = (uint8_t)T(k, "all");
  T(k, "any");
  NEED(T(k, "sync"), "");
  in->op = X_MATCH;
  return 1;
}

DEC(barwarp) {
  (void)op;
  T(k, "warp");
  NEED(T(k, "sync"), "");
  in->op = X_BARWARP;
  return 1;
}

/* bar (X_BAR: .aligned implied) and barrier (X_BARRIER: .aligned when written) */
DEC(bar) {
  T(k, "cta");
  if (op == X_BAR) in->fl |= XF_ALIGNED; /* bar = barrier.aligned */
  if (T(k, "aligned")) in->fl |= XF_ALIGNED;
  in->op = X_BAR;
  if (T(k, "sync"))
    in->sub = XBAR_SYNC;
  else if (T(k, "arrive"))
    in->sub = XBAR_ARRIVE;
  else if (T(k, "red")) {
    static const char *const M[] = { "popc", "and", "or", NULL };
    int o = TL(k, M);
    NEED(o, "");
    in->sub = (uint8_t)(o == 1 ? XBAR_RED_POPC : o == 2 ? XBAR_RED_AND : XBAR_RED_OR);
  } else
    return unsup(d, in, "");
  return 1;
}

DEC(fenceproxy) {
  (void)op;
  static const char *const M[] = {
    "shared::cta", "shared::cluster", "global", "shared", "release", "acquire",
    "cta",         "cluster",         "gpu",    "sys",    NULL
  };
  T(k, "proxy");
  /* sub2: the space the fence covers (hopper.c) */
  if (T(k, "async")) {
    in->sub = 1;
    in->sub2 = (uint8_t)(T(k, "shared::cta") || T(k, "shared") ? 1
                         : T(k, "shared::cluster")             ? 2
                         : T(k, "global")                      ? 3
                                                               : 0);
  } else if (T(k, "async::generic")) {
    /* the async proxy's writes seen by generic accesses (and back): copies land whole, no effect */
    in->sub = 4;
    T(k, "sync_restrict::shared::cluster");
    T(k, "sync_restrict::shared::cta");
  } else if (T(k, "tensormap::generic"))
    in->sub = T(k, "acquire") ? 3 : T(k, "release") ? 2 : 0;
  else if (T(k, "alias"))
    in->sub = 0;
  else
    return unsup(d, in, "");
  TLALL(k, M);
  in->op = X_FENCEPROXY;
  return 1;
}

DEC(fencembinit) {
  (void)d;
  (void)op;
  T(k, "mbarrier_init");
  T(k, "release");
  T(k, "cluster");
  in->op = X_NOP;
  return 1;
}

/* membar, fence */
DEC(membar) {
  (void)d;
  (void)op;
  static const char *const M[] = { "gl", "sys", "cta", "sc", "acq_rel", "gpu", "cluster", NULL };
  /* membar.gl/.sys, fence.*.gpu/.sys */
  in->gsync = (uint8_t)(!has(k, "cta") && !has(k, "cluster"));
  TLALL(k, M);
  in->op = X_NOP;
  return 1;
}

DEC(bra) {
  (void)d;
  (void)op;
  T(k, "uni");
  in->op = X_BRA;
  return 1;
}
DEC(ret) {
  (void)d;
  (void)op;
  T(k, "uni");
  in->op = X_RET;
  return 1;
} /* in a kernel (no caller): exit */
DEC(call) {
  (void)d;
  (void)op;
  T(k, "uni");
  in->op = X_CALL;
  return 1;
}
/* brkpt, nanosleep, pmevent */
DEC(brkpt) {
  (void)d;
  (void)op;
  T(k, "mask");
  in->op = X_NOP;
  return 1;
}

DEC(wmma) {
  (void)op;
  int t = in->t;
  static const char *const SH[] = { "m16n16k16", "m32n8k16", "m8n32k16", "m16n16k8", NULL };
  static const char *const LAY[] = { "row", "col", NULL };
  NEED(T(k, "sync") && T(k, "aligned"), "");
  int sh = TL(k, SH);
  NEED(sh, "shape");
  in->op = X_WMMA;
  in->sub2 = (uint8_t)sh;
  /* the layouts: fragments do not depend on them here */
  if (T(k, "mma")) {
    NEED(TLALL(k, LAY) == 2, "layouts");
    int dt = k->types[0], ct = k->types[k->nt - 1], at = PLT_F16, bt = PLT_F16;
    NEED(k->nt == 2 || k->nt == 4, "types");
    if (k->nt == 4) {
      at = k->types[1];
      bt = k->types[2];
    }
    int integer = at == PLT_S8 || at == PLT_U8;
    NEED(!(in->fl & XF_SATF) || integer, "");
    NEED(plX__wmma_regs(0, sh, at) && plX__wmma_regs(1, sh, bt) && plX__wmma_regs(2, sh, dt) &&
             plX__wmma_regs(2, sh, ct),
         "type");
    NEED(integer ? (bt == PLT_S8 || bt == PLT_U8) && dt == PLT_S32 && ct == PLT_S32
                 : at == bt && (at == PLT_F16 ? k->nt == 2 : dt == PLT_F32 && ct == PLT_F32),
         "type combination");
    in->sub = 4;
    in->t = (uint8_t)dt;
    in->t2 = (uint8_t)at;
    in->t3 = (uint8_t)bt;
    in->vec = (uint8_t)ct;
  } else {
    int ld = T(k, "load"), st = !ld && T(k, "store");
    int mat = T(k, "a") ? 0 : T(k, "b") ? 1 : T(k, "c") ? 2 : T(k, "d") ? 3 : -1;
    NEED(ld ? mat >= 0 && mat <= 2 : st && mat == 3, "");
    int lay = TL(k, LAY);
    NEED(lay, "layout");
    if (lay == 2) in->fl |= XF_TRANS; /* .col */
    int sp = space_tok(k);
    NEED(sp == XS_GENERIC || sp == XS_GLOBAL || sp == XS_SHARED, "");
    NEED(k->nt == 1 && plX__wmma_regs(mat < 2 ? mat : 2, sh, t), "type");
    in->space = (uint8_t)sp;
    in->sub = (uint8_t)mat;
  }
  return 1;
}

DEC(mma) {
  (void)op;
  NEED(T(k, "sync") && T(k, "aligned") && T(k, "row") && T(k, "col"), "");
  static const char *const S[] = { "m16n8k16", "m16n8k8", "m16n8k32", NULL };
  int sh = TL(k, S);
  NEED(sh && k->nt == 4, "");
  int dt = k->types[0], at = k->types[1], bt = k->types[2], ct = k->types[3];
  NEED(at == bt || ((at == PLT_S8 || at == PLT_U8) && (bt == PLT_S8 || bt == PLT_U8)), "");
  NEED(dt == ct, "");
  int ok = ((at == PLT_F16 || at == PLT_BF16) && (sh == 1 || sh == 2) &&
            (dt == PLT_F32 || (dt == PLT_F16 && at == PLT_F16))) ||
           (at == PLT_TF32 && sh == 2 && dt == PLT_F32) ||
           ((at == PLT_S8 || at == PLT_U8) && sh == 3 && dt == PLT_S32);
  NEED(ok, "");
  in->op = X_MMA;
  in->sub2 = (uint8_t)sh;
  in->t = (uint8_t)dt;
  in->t2 = (uint8_t)at;
  in->t3 = (uint8_t)bt;
  return 1;
}

/* ldmatrix, stmatrix */
DEC(ldmatrix) {
  NEED(T(k, "sync") && T(k, "aligned") && T(k, "m8n8") && in->t == PLT_B16, "");
  static const char *const X[] = { "x1", "x2", "x4", NULL };
  int xn = TL(k, X);
  NEED(xn, "");
  in->vec = (uint8_t)(xn == 3 ? 4 : xn);
  if (T(k, "trans")) in->fl |= XF_TRANS;
  int sp = space_tok(k);
  NEED(sp == XS_SHARED || sp == XS_GENERIC, "");
  in->space = (uint8_t)sp;
  in->op = (uint16_t)op;
  return 1;
}

/* cp.async: the copy, commit_group, wait_group, wait_all */
DEC(cpasync) {
  (void)op;
  if (!T(k, "async")) return unsup(d, in, "");
  if (T(k, "commit_group"))
    in->op = X_CPCOMMIT;
  else if (T(k, "wait_group"))
    in->op = X_CPWAIT;
  else if (T(k, "wait_all")) {
    in->op = X_CPWAIT;
    in->sub2 = 1;
  } else {
    noise(k);
    NEED(T(k, "global"), "");
    NEED(space_tok(k) == XS_SHARED, "");
    in->op = X_CPASYNC;
  }
  return 1;
}

/* ---- the Hopper families (their semantics: hopper.c) ---- */
static const char *const HSC[] = { "cta",     "cluster", "release", "relaxed",
                                   "acquire", "sync",    "aligned", NULL };

/* mbarrier: init, inval, arrive(_drop), expect_tx, complete_tx, test_wait, try_wait,
** pending_count */
DEC(mbar) {
  (void)op;
  static const char *const K[] = { "init",          "inval",       "arrive",    "arrive_drop",
                                   "expect_tx",     "complete_tx", "test_wait", "try_wait",
                                   "pending_count", NULL };
  int kind = TL(k, K);
  if (!kind) return unsup(d, in, "");
  TLALL(k, HSC);
  if (T(k, "shared::cluster"))
    in->fl |= XF_CLUSTER;
  else if (T(k, "shared") || T(k, "shared::cta"))
    in->space = XS_SHARED;
  else
    in->space = XS_GENERIC;
  if (in->fl & XF_CLUSTER) in->space = XS_SHARED;
  if (kind >= 1 && kind <= 6) {
    in->op = X_MBAR;
    in->sub = (uint8_t)(kind - 1);
    if ((kind == 3 || kind == 4) && T(k, "expect_tx")) in->sub2 |= 1;
    if ((kind == 3 || kind == 4) && T(k, "noComplete")) in->sub2 |= 2;
    T(k, "bytes");
  } else if (kind == 7 || kind == 8) {
    in->op = X_MBWAIT;
    in->sub = (uint8_t)(kind == 8);
    if (T(k, "parity")) in->sub2 = 1;
  } else
    in->op = X_MBPENDING;
  if (!T(k, "b64")) return unsup(d, in, "type");
  return 1;
}

DEC(cpmbarrive) {
  (void)op;
  T(k, "mbarrier");
  NEED(T(k, "async") && T(k, "arrive") && T(k, "b64"), "");
  in->sub = (uint8_t)T(k, "noinc");
  in->space = (T(k, "shared") || T(k, "shared::cta")) ? XS_SHARED : XS_GENERIC;
  in->op = X_CPMBARRIVE;
  return 1;
}

/* cp.async.bulk and cp.reduce.async.bulk: copies, tensor copies (TMA), prefetches, groups */
DEC(bulk) {
  (void)op;
  T(k, "bulk");
  int red = T(k, "reduce");
  NEED(T(k, "async"), "");
  noise(k);
  T(k, "L2::cache_hint");
  if (T(k, "commit_group")) {
    in->op = X_BULKCOMMIT;
    return 1;
  }
  if (T(k, "wait_group")) {
    in->op = X_BULKWAIT;
    in->sub2 = (uint8_t)T(k, "read");
    return 1;
  }
  static const char *const DIM[] = { "1d", "2d", "3d", "4d", "5d", NULL };
  static const char *const OPS[] = { "add", "min", "max", "inc", "dec", "and", "or", "xor", NULL };
  int tensor = T(k, "tensor");
  int dims = tensor ? TL(k, DIM) : 0;
  if (tensor) NEED(dims, "");
  NEED(!T(k, "im2col::w") && !T(k, "im2col::w::128"),
       "the im2col::w modes (sm_100) are not emulated");
  /* loads and prefetches; stores and reductions */
  int i2c = T(k, "im2col"), i2c_no = T(k, "im2col_no_offs");
  if (i2c || i2c_no) {
    NEED(tensor && dims >= 3, "im2col takes 3 to 5 dimensions");
    in->t2 = 1;
  }
  T(k, "tile");
  int mc = T(k, "multicast::cluster");
  int txb = T(k, "mbarrier::complete_tx::bytes"), grp = T(k, "bulk_group");
  int sh_cl = T(k, "shared::cluster"), sh_cta = T(k, "shared::cta"), gl = T(k, "global");
  int pf = T(k, "prefetch");
  int cg = T(k, "cta_group::1") ? 1 : T(k, "cta_group::2") ? 2 : 0; /* sm_100 TMA loads */
  T(k, "L2");
  if (red) {
    int o = TL(k, OPS);
    NEED(o, "");
    in->sub2 = (uint8_t)(o - 1);
    T(k, "noftz");
  }
  if (mc) in->fl |= XF_CLUSTER;
  in->vec = (uint8_t)dims;
  if (pf) {
    NEED(gl && !red, "");
    in->sub = tensor ? 3 : 4;
  } else if (red && sh_cl) {
    NEED(!tensor && sh_cta && txb && !gl && !grp, "");
    in->sub = 5;
  } /* shared::cta -> shared::cluster, mbarrier */
  else if (red) {
    NEED(gl && sh_cta && grp, "");
    in->sub = tensor ? 2 : 3;
  } else if (txb && gl) {
    NEED(!grp, "");
    in->sub = 0;
  } /* global -> shared, mbarrier */
  else if (txb && sh_cl && sh_cta) {
    NEED(!tensor && !mc, "");
    in->sub = 1;
  } /* shared::cta -> shared::cluster */
  else if (grp && gl && sh_cta) {
    in->sub = tensor ? 1 : 2;
  } /* shared -> global */
  else
    return unsup(d, in, "");
  NEED(!cg || (tensor && in->sub == 0), "");
  /* a TMA load: sub2 bits 0-1 its cta_group, bit 2 a .shared::cta destination */
  if (tensor && in->sub == 0) in->sub2 = (uint8_t)(cg | (sh_cta && !sh_cl ? 4 : 0));
  if (tensor) {
    in->op = X_TMA;
    NEED(!i2c || in->sub == 0 || in->sub == 3, "stores and reductions take .im2col_no_offs");
    NEED(!i2c_no || in->sub == 1 || in->sub == 2,
         "loads and prefetches take .im2col (with offsets)");
  } else
    in->op = X_BULK;
  if (in->op == X_BULK && in->sub == 0 && mc) in->fl |= XF_CLUSTER;
  return 1;
}

/* clusterlaunchcontrol: try_cancel (sub2: 1 .multicast::cluster::all; space: shared, or generic)
** and query_cancel (sub: 0 is_canceled, 1-3 get_first_ctaid::x/y/z, 4 get_first_ctaid.v4) */
DEC(clc) {
  if (op == X_CLCTRY) {
    NEED(T(k, "try_cancel") && T(k, "async") && T(k, "mbarrier::complete_tx::bytes"), "");
    in->space = T(k, "shared::cta") ? XS_SHARED : XS_GENERIC;
    in->sub2 = (uint8_t)T(k, "multicast::cluster::all");
  } else {
    static const char *const Q[] = { "is_canceled",        "get_first_ctaid::x",
                                     "get_first_ctaid::y", "get_first_ctaid::z",
                                     "get_first_ctaid",    NULL };
    NEED(T(k, "query_cancel"), "");
    int q = TL(k, Q);
    NEED(q, "");
    in->sub = (uint8_t)(q - 1);
    if (q == 5) NEED(T(k, "v4"), "");
  }
  (void)d;
  in->op = (uint16_t)op;
  return 1;
}

/* wgmma: mma_async, fence, commit_group, wait_group */
DEC(wgmma) {
  (void)op;
  if (T(k, "fence")) {
    NEED(T(k, "sync") && T(k, "aligned"), "");
    in->op = X_WGFENCE;
    return 1;
  }
  if (T(k, "commit_group")) {
    NEED(T(k, "sync") && T(k, "aligned"), "");
    in->op = X_WGCOMMIT;
    return 1;
  }
  if (T(k, "wait_group")) {
    NEED(T(k, "sync") && T(k, "aligned"), "");
    in->op = X_WGWAIT;
    return 1;
  }
  NEED(T(k, "mma_async") && T(k, "sync") && T(k, "aligned"), "");
  int sp = T(k, "sp"); /* sparse A: K twice the dense one */
  /* operands: off2 = 1 + the sparsity selector */
  if (sp) in->rnd = 1;
  if (T(k, "satfinite")) in->fl |= XF_SATF;
  int sh = -1;
  for (int i = 1; i < k->n; i++) {
    unsigned mm, nn, kk;
    char tail;
    if (sscanf(k->s[i], "m%un%uk%u%c", &mm, &nn, &kk, &tail) == 3 && mm == 64) {
      sh = (int)nn;
      k->used |= 1u << i;
      in->sub2 = (uint8_t)kk;
    }
  }
  NEED(sh >= 8 && sh <= 256 && sh % 8 == 0, "shape");
  NEED(k->nt == 3, "types");
  int dt = k->types[0], at = k->types[1], bt = k->types[2];
  int kx = sp ? 2 : 1;
  int f16 = (at == PLT_F16 || at == PLT_BF16) && at == bt && in->sub2 == 16 * kx &&
            (dt == PLT_F32 || (dt == PLT_F16 && at == PLT_F16));
  int tf = at == PLT_TF32 && bt == PLT_TF32 && in->sub2 == 8 * kx && dt == PLT_F32;
  int f8 = (at == PLT_E4M3 || at == PLT_E5M2) && (bt == PLT_E4M3 || bt == PLT_E5M2) &&
           in->sub2 == 32 * kx && (dt == PLT_F32 || dt == PLT_F16);
  int i8 = (at == PLT_S8 || at == PLT_U8) && (bt == PLT_S8 || bt == PLT_U8) &&
           in->sub2 == 32 * kx && dt == PLT_S32;
  NEED(f16 || tf || f8 || i8, "type combination");
  in->op = X_WGMMA;
  in->t = (uint8_t)dt;
  in->t2 = (uint8_t)at;
  in->t3 = (uint8_t)bt;
  in->vec = (uint8_t)(sh / 8);
  return 1;
}

/* barrier.cluster.arrive, .wait */
DEC(clbar) {
  (void)op;
  T(k, "cluster");
  if (T(k, "arrive"))
    in->sub = 0;
  else if (T(k, "wait"))
    in->sub = 1;
  else
    return unsup(d, in, "");
  T(k, "release");
  T(k, "relaxed");
  T(k, "acquire");
  if (T(k, "aligned")) in->fl |= XF_ALIGNED;
  in->op = X_CLBAR;
  return 1;
}

/* mapa, getctarank */
DEC(mapa) {
  if (T(k, "shared::cluster"))
    in->space = XS_SHARED;
  else
    in->space = XS_GENERIC;
  NEED(k->nt == 1 && (k->types[0] == PLT_U32 || k->types[0] == PLT_U64), "type");
  NEED(in->space == XS_SHARED || k->types[0] == PLT_U64, "32-bit generic addresses");
  in->op = (uint16_t)op;
  return 1;
}

DEC(elect) {
  (void)op;
  NEED(T(k, "sync"), "");
  in->op = X_ELECT;
  return 1;
}

DEC(setmaxnreg) {
  (void)op;
  if (T(k, "inc"))
    in->sub = 1;
  else if (T(k, "dec"))
    in->sub = 0;
  else
    return unsup(d, in, "");
  NEED(T(k, "sync") && T(k, "aligned") && k->nt == 1 && k->types[0] == PLT_U32, "");
  in->op = X_SETMAXNREG;
  return 1;
}

DEC(griddep) {
  (void)d;
  (void)op;
  T(k, "launch_dependents");
  T(k, "wait");
  in->op = X_NOP;
  return 1;
}

/* tensormap.replace, tensormap.cp_fenceproxy */
DEC(tmap) {
  (void)op;
  in->op = X_TMAP;
  /* shared::cta -> global, with the release */
  if (T(k, "cp_fenceproxy")) {
    NEED(T(k, "global") && T(k, "shared::cta") && T(k, "tensormap::generic") && T(k, "release") &&
             T(k, "sync") && T(k, "aligned"),
         "");
    TLALL(k, HSC);
    T(k, "gpu");
    T(k, "sys");
    in->sub = XTM_CP;
    return 1;
  }
  static const char *const F[] = {
    "global_address", "rank",     "box_dim",           "global_dim",   "global_stride",
    "element_stride", "elemtype", "interleave_layout", "swizzle_mode", "swizzle_atomicity",
    "fill_mode",      NULL
  };
  NEED(T(k, "replace") && T(k, "tile") && T(k, "b1024"), "");
  int f = TL(k, F);
  NEED(f, "");
  in->sub = (uint8_t)(f - 1);
  in->space = T(k, "global") ? XS_GLOBAL : T(k, "shared::cta") ? XS_SHARED : XS_GENERIC;
  /* global_address, global_stride: .b64 */
  int wide = f == 1 || f == 5;
  NEED(k->nt == 1 && k->types[0] == (wide ? PLT_B64 : PLT_B32), "type");
  return 1;
}
/* tcgen05 (src/emu/blackwell/): rnd the .cta_group (1, 2); alloc: the space of [dst]; ld/st: sub
** the shape (0 32x32b, 1 16x64b, 2 16x128b, 3 16x256b), vec .num, sub2 .pack/.unpack::16b; wait:
** sub 1 wait::st; fence: sub 1 after_thread_sync; mma: sub2 the kind (PLTC_*), t3 the collector
** usage (1 fill, 2 use, 3 lastuse, 4 discard), t2 the block-scaled kinds' scale block (16, 32);
** commit: sub 1 .multicast::cluster; cp: sub the
** shape (0 128x256b, 1 4x256b, 2 128x128b, 3 64x128b.warpx2::02_13, 4 ::01_23, 5 32x128b.warpx4),
** sub2 the decompression (1 .b6x16_p32, 2 .b4x16_p64) */
DEC(tcgen05) {
  static const char *const SHAPE[] = { "32x32b", "16x64b", "16x128b", "16x256b", NULL };
  static const char *const KIND[] = { "kind::f16",      "kind::tf32", "kind::f8f6f4",   "kind::i8",
                                      "kind::mxf8f6f4", "kind::mxf4", "kind::mxf4nvf4", NULL };
  static const char *const COLL[] = { "collector::a::fill", "collector::a::use",
                                      "collector::a::lastuse", "collector::a::discard", NULL };
  static const char *const WORD[] = { "alloc",  "dealloc", "relinquish_alloc_permit",
                                      "ld",     "st",      "mma",
                                      "commit", "cp",      NULL };
  in->op = (uint16_t)op;
  TLALL(k, WORD);
  in->rnd = T(k, "cta_group::2") ? 2 : T(k, "cta_group::1") ? 1 : 0;
  T(k, "sync");
  T(k, "aligned");
  switch (op) {
  case X_TCALLOC: in->space = T(k, "shared::cta") ? XS_SHARED : XS_GENERIC; break;
  case X_TCLD:
  case X_TCST: {
    int s = TL(k, SHAPE);
    NEED(s, "shape");
    in->sub = (uint8_t)(s - 1);
    for (int i = 1; i < k->n; i++) {
      unsigned x;
      char tail;
      if (sscanf(k->s[i], "x%u%c", &x, &tail) == 1 && x >= 1 && x <= 128) {
        in->vec = (uint8_t)x;
        k->used |= 1u << i;
      }
    }
    NEED(in->vec, ".num");
    if (T(k, op == X_TCLD ? "pack::16b" : "unpack::16b")) in->sub2 = 1;
    break;
  }
  case X_TCWAIT:
    in->sub = T(k, "wait::st") || strstr(d->opc, "wait::st");
    T(k, "wait::ld");
    break;
  case X_TCFENCE:
    in->sub = T(k, "fence::after_thread_sync") || strstr(d->opc, "after_thread_sync");
    T(k, "fence::before_thread_sync");
    break;
  case X_TCMMA: {
    int kd = TL(k, KIND);
    NEED(kd, "kind");
    in->sub2 = (uint8_t)(kd - 1);
    in->t3 = (uint8_t)TL(k, COLL);
    if (in->sub2 >= PLTC_MXF8F6F4) { /* t2: elements a scale factor covers */
      static const char *const SV[] = { "scale_vec::1X", "scale_vec::2X", "scale_vec::4X",
                                        "block16",       "block32",       NULL };
      NEED(T(k, "block_scale"), "block_scale");
      int v = TL(k, SV);
      in->t2 = v == 3 || v == 4 ? 16 : 32;
      if (v == 2 && in->sub2 == PLTC_MXF4NVF4) in->t2 = 32;
    }
    break;
  }
  case X_TCCP: {
    static const char *const CPS[] = {
      "128x256b", "4x256b", "128x128b", "64x128b", "32x128b", NULL
    };
    static const char *const CPM[] = { "warpx2::02_13", "warpx2::01_23", "warpx4", NULL };
    int s = TL(k, CPS), mc = TL(k, CPM);
    NEED(s, "shape");
    in->sub = (uint8_t)(s == 4 ? (mc == 2 ? 4 : 3) : s == 5 ? 5 : s - 1);
    T(k, "b8x16");
    in->sub2 = T(k, "b6x16_p32") ? 1 : T(k, "b4x16_p64") ? 2 : 0;
    break;
  }
  case X_TCCOMMIT:
    NEED(T(k, "mbarrier::arrive::one"), "");
    if (T(k, "shared::cluster")) {
      in->space = XS_SHARED;
      in->fl |= XF_CLUSTER;
    } else
      in->space = XS_GENERIC;
    if (T(k, "multicast::cluster")) in->sub = 1;
    break;
  default: break;
  }
  return 1;
}
#undef DEC

/* each operation's decoder, and the operand count of those whose form's specs bind the operands */
static const decfn DECODERS[X__COUNT] = {
#define PL_OP(name, dec, arity, elem) dec_##dec,
#include "isa_ops.h"
#undef PL_OP
};
static const uint8_t ARITY[X__COUNT] = {
#define PL_OP(name, dec, arity, elem) arity,
#include "isa_ops.h"
#undef PL_OP
};
_Static_assert((int)X__COUNT == (int)PLA_OP__COUNT,
               "the emulator's operations are the ISA's (isa_ops.h)");

static int dec_mods(D *d, plX_ins *in, const plA_res *r) {
  toks K, *k = &K;
  if (!r || !fill_toks(r, k)) return unsup(d, in, "");
  int op = r->op;
  int t = k->nt > 0 ? k->types[0] : PLT_NONE, t2 = k->nt > 1 ? k->types[1] : PLT_NONE;
  in->t = (uint8_t)t;
  in->t2 = (uint8_t)t2;
  in->rnd = (uint8_t)rnd_tok(k);
  if (T(k, "ftz")) in->fl |= XF_FTZ;
  if (T(k, "sat")) in->fl |= XF_SAT;
  if (T(k, "satfinite")) in->fl |= XF_SATF;
  if (T(k, "relu")) in->fl |= XF_RELU;
  if (T(k, "approx")) in->fl |= XF_APPROX;
  if (T(k, "NaN")) in->fl |= XF_NAN;
  /* .b128: moves, loads and stores (as two 64-bit halves) and cluster launch control's responses */
  int q128 = op == X_LD || op == X_ST || op == X_MOV || op == X_CLCTRY || op == X_CLCQUERY;
  for (int i = 0; i < k->nt; i++)
    if (tbits(k->types[i]) > 64 && !(q128 && k->types[i] == PLT_B128))
      return unsup(d, in, "128-bit types");
  if (T(k, "s16x2")) {
    in->t = PLT_S32;
    in->sub2 = 1;
  } /* min/max.relu.s16x2: two halves */
  /* cvt, (w)mma, wgmma: their decoders check their types */
  int own = op == X_CVT || op == X_MMA || op == X_WMMA || op == X_WGMMA || op == X_WGFENCE ||
            op == X_WGCOMMIT || op == X_WGWAIT;
  for (int i = 0; i < k->nt && !own; i++) {
    int ti = k->types[i];
    if (isfloat(ti) && ti != PLT_F16 && ti != PLT_F16X2 && ti != PLT_BF16 && ti != PLT_BF16X2 &&
        ti != PLT_F32 && ti != PLT_F64)
      return unsup(d, in, "type");
  }
  if (!DECODERS[op](d, k, in, op) || in->op == X_UNSUP) return 0;
  const char *u = unused(k);
  if (u) {
    char m[64];
    snprintf(m, sizeof m, "modifier .%s", u);
    return unsup(d, in, m);
  }
  return 1;
}

/* Phase 2, per statement: the operands, for the op (and fields) phase 1 chose */
static int callee(const plI_module *m, const plI_stmt *s);
static int param_var(D *d, uint32_t name, uint64_t *off, uint64_t *bytes);
static int vprintf_fn(const plI_module *m, uint32_t name);
static int fn_index(const plX_emu *e, int func);

/* the operands of an operation with an arity (isa_ops.h): the first the destination, the others
** the sources a, b, c, e, each of the type its spec in the form gives (the instruction's type
** where the spec says any) */
static int bind_spec(D *d, const plI_opnd *O, int n, plX_ins *in, const plA_res *r) {
  uint8_t idx[PLA_MAXOPS];
  const plA_opspec *ops = NULL;
  for (int a = 0; r && a <= r->nalt && !ops; a++) {
    const plA_opspec *o = a ? r->alt[a - 1].ops : r->ops;
    int no = a ? r->alt[a - 1].nops : r->nops;
    if (n <= PLA_MAXOPS && plA_map_ops(o, no, n, idx)) ops = o;
  }
  uint32_t *src[4] = { &in->a, &in->b, &in->c, &in->e };
  in->d = vdst(d, &O[0]);
  for (int i = 1; i < n && i <= 4; i++) {
    int ty = ops ? plA_spec_type(r, &ops[idx[i]]) : PLT_NONE;
    *src[i - 1] = vsrc(d, &O[i], ty != PLT_NONE ? ty : in->t);
  }
  return 1;
}

static int dec_ops(D *d, const plI_stmt *s, plX_ins *in, const plA_res *r) {
  /* a module of operand-less statements has none */
  const plI_opnd *O = d->m->opnds.p ? &d->m->opnds.p[s->ops] : NULL;
  int n = s->nops, t = in->t, t2 = in->t2;
#define DST(i)        (in->d = vdst(d, &O[i]))
#define SRC(f, i, ty) (in->f = vsrc(d, &O[i], (ty)))
  if (ARITY[in->op]) {
    NOPS(ARITY[in->op]);
    bind_spec(d, O, n, in, r);
    if (d->bad) return unsup(d, in, d->why);
    return 1;
  }
  switch (in->op) {
  case X_PAND:
  case X_POR:
  case X_PXOR: {
    NOPS(3);
    int na, nb;
    in->d = pdst(d, &O[0]);
    in->a = psrc(d, &O[1], &na);
    in->b = psrc(d, &O[2], &nb);
    in->sub = (uint8_t)na;
    in->sub2 = (uint8_t)nb;
    break;
  }
  case X_PNOT:
  case X_PMOV: {
    NOPS(2);
    int na;
    /* mov.pred p, 0/1 (nvcc's short-circuit &&): junk ^ junk, negated for true */
    if (O[1].kind == PLO_IMM) {
      NEED(O[1].v <= 1, "a predicate immediate other than 0 or 1");
      in->d = pdst(d, &O[0]);
      in->sub = (uint8_t)((O[1].v != 0) ^ (in->op == X_PNOT));
      in->op = X_PXOR;
      in->a = in->b = pjunk(d);
      in->sub2 = 0;
      break;
    }
    in->d = pdst(d, &O[0]);
    in->a = psrc(d, &O[1], &na);
    in->sub = (uint8_t)na;
    break;
  }
  case X_LOP3:
    NOPS(5);
    NEED(O[4].kind == PLO_IMM, "");
    DST(0);
    SRC(a, 1, t);
    SRC(b, 2, t);
    SRC(c, 3, t);
    in->sub = (uint8_t)O[4].v;
    break;
  case X_SETP:
  case X_SET:
    NEED(n == 3 + (in->sub2 != 0), "operand count");
    if (in->op == X_SETP) {
      if (O[0].kind == PLO_PAIR) {
        in->d = pdst(d, &d->m->opnds.p[O[0].id]);
        in->d2 = pdst(d, &d->m->opnds.p[O[0].id + 1]);
      } else {
        NEED(t != PLT_F16X2 && t != PLT_BF16X2, "a packed comparison needs p|q");
        in->d = pdst(d, &O[0]);
        in->d2 = pjunk(d);
      }
    } else
      DST(0);
    SRC(a, 1, t);
    SRC(b, 2, t);
    if (in->sub2) {
      int ng;
      in->c = psrc(d, &O[3], &ng);
      if (ng) in->fl |= XF_NEGC;
    }
    break;
  case X_SELP: {
    NOPS(4);
    DST(0);
    SRC(a, 1, t);
    SRC(b, 2, t);
    int ng;
    in->c = psrc(d, &O[3], &ng);
    if (ng) in->fl |= XF_NEGC;
    break;
  }
  case X_TESTP:
    NOPS(2);
    in->d = pdst(d, &O[0]);
    SRC(a, 1, t);
    break;
  case X_CVT:
    if (n == 3) { /* cvt.rn.f16x2.f32 d, a, b: a the upper half */
      NEED(t == PLT_F16X2 || t == PLT_BF16X2 || t == PLT_E4M3X2 || t == PLT_E5M2X2, "");
      NEED(t2 != PLT_E4M3X2 && t2 != PLT_E5M2X2, "");
      in->op = X_CVTPACK;
      DST(0);
      SRC(a, 1, t2);
      SRC(b, 2, t2);
    } else {
      NOPS(2);
      NEED(t != PLT_BF16X2 && t != PLT_E4M3X2 && t != PLT_E5M2X2, "operand count");
      NEED(t != PLT_F16X2 || t2 == PLT_E4M3X2 || t2 == PLT_E5M2X2, "operand count");
      DST(0);
      SRC(a, 1, t2);
    }
    break;
  case X_CVTA:
  case X_CVTATO:
    NOPS(2);
    DST(0);
    if (O[1].kind == PLO_SYM)
      in->a = cslot(d, sym_value(d, O[1].id, in->op == X_CVTATO));
    else
      SRC(a, 1, t);
    break;
  case X_ISSPACEP:
    NOPS(2);
    in->d = pdst(d, &O[0]);
    SRC(a, 1, PLT_U64);
    break;
  case X_MOV:
    NOPS(2);
    if (t == PLT_B128) { /* MOV128: sub 0 a copy, 1 packed from {..}, 2 unpacked into {..} */
      in->op = X_MOV128;
      if (O[1].kind == PLO_VEC || O[0].kind == PLO_VEC) {
        int pk = O[1].kind == PLO_VEC, nv = pk ? O[1].n : O[0].n;
        NEED(nv == 2 || nv == 4, "");
        in->sub = (uint8_t)(pk ? 1 : 2);
        in->vec = (uint8_t)nv;
        in->d = q128(d, &O[pk ? 0 : 1], pk);
        vvec(d, &O[pk], nv, !pk, nv == 2 ? PLT_B64 : PLT_B32, &in->vs);
      } else {
        in->d = q128(d, &O[0], 1);
        in->a = q128(d, &O[1], 0);
      }
      break;
    }
    if (O[1].kind == PLO_SREG) {
      int id = sreg_id(plI_cstr(d->m, O[1].id));
      NEED(id >= 0, plI_cstr(d->m, O[1].id));
      in->op = X_MOVSREG;
      in->sub = (uint8_t)id;
      DST(0);
    } else if (O[1].kind == PLO_VEC) {
      NEED(O[1].n == 2 || O[1].n == 4, "");
      in->op = X_PACK;
      in->vec = (uint8_t)O[1].n;
      DST(0);
      vvec(d, &O[1], O[1].n, 0, PLT_NONE, &in->vs);
    } else if (O[0].kind == PLO_VEC) {
      NEED(O[0].n == 2 || O[0].n == 4, "");
      in->op = X_UNPACK;
      in->vec = (uint8_t)O[0].n;
      SRC(a, 1, t);
      vvec(d, &O[0], O[0].n, 1, PLT_NONE, &in->vs);
    } else {
      DST(0);
      SRC(a, 1, t);
    }
    break;
  case X_LD:
  case X_ST: {
    NEED(n == 2 || n == 3, "operand count");
    int ps = in->space == XS_PARAM;
    if (in->op == X_LD) {
      if (in->t2 == PLT_B128)
        vq(d, &O[0], 1, &in->vs);
      else
        vvec(d, &O[0], in->vec, 1, t, &in->vs);
      vaddr(d, &O[1], in, in->space);
    } else {
      vaddr(d, &O[0], in, in->space);
      if (in->t2 == PLT_B128)
        vq(d, &O[1], 0, &in->vs);
      else
        vvec(d, &O[1], in->vec, 0, t, &in->vs);
    }
    if (n == 3) vsrc(d, &O[2], PLT_U64); /* the cache policy: read, no effect */
    if (ps && in->space == XS_LOCAL) param_range(d, in, &O[in->op == X_LD ? 1 : 0]); /* .func's */
    break;
  }
  case X_NOP:
    for (int i = 0; i < n; i++)
      if (O[i].kind == PLO_REG) vsrc(d, &O[i], PLT_U32);
    break;
  case X_ATOM:
  case X_RED: {
    int at = in->op == X_ATOM;
    NEED(n == (at ? 3 : 2) + (in->sub == XA_CAS), "operand count");
    if (at)
      DST(0);
    else
      in->d = junk(d);
    vaddr(d, &O[at], in, in->space);
    SRC(b, at + 1, t);
    if (in->sub == XA_CAS) SRC(c, at + 2, t);
    break;
  }
  case X_SHFL: /* d[|p]: p, the source lane was in range */
    NOPS(5);
    if (O[0].kind == PLO_PAIR) {
      in->d = vdst(d, &d->m->opnds.p[O[0].id]);
      in->d2 = pdst(d, &d->m->opnds.p[O[0].id + 1]);
    } else
      DST(0);
    SRC(a, 1, PLT_B32);
    SRC(b, 2, PLT_U32);
    SRC(c, 3, PLT_U32);
    SRC(e, 4, PLT_U32);
    break;
  case X_VOTE: {
    NOPS(3);
    if (in->sub == 4)
      DST(0);
    else
      in->d = pdst(d, &O[0]);
    int ng;
    in->a = psrc(d, &O[1], &ng);
    if (ng) in->fl |= XF_NEGC;
    SRC(e, 2, PLT_U32);
    break;
  }
  case X_ACTIVEMASK:
    NOPS(1);
    DST(0);
    break;
  case X_REDUX:
  case X_MATCH: /* match.all d[|p]: p, every lane's value was the same */
    NOPS(3);
    if (O[0].kind == PLO_PAIR) {
      in->d = vdst(d, &d->m->opnds.p[O[0].id]);
      in->d2 = pdst(d, &d->m->opnds.p[O[0].id + 1]);
    } else
      DST(0);
    SRC(a, 1, t);
    SRC(e, 2, PLT_U32);
    break;
  case X_BARWARP:
    NOPS(1);
    SRC(e, 0, PLT_U32);
    break;
  case X_BAR:
    if (in->sub == XBAR_SYNC) {
      NEED(n == 1 || n == 2, "operand count");
      SRC(a, 0, PLT_U32);
      in->b = n == 2 ? vsrc(d, &O[1], PLT_U32) : X_NOSLOT;
    } else if (in->sub == XBAR_ARRIVE) {
      NOPS(2);
      SRC(a, 0, PLT_U32);
      SRC(b, 1, PLT_U32);
    } else {
      NEED(n == 3 || n == 4, "operand count");
      if (in->sub == XBAR_RED_POPC)
        DST(0);
      else
        in->d = pdst(d, &O[0]);
      SRC(a, 1, PLT_U32);
      in->b = n == 4 ? vsrc(d, &O[2], PLT_U32) : X_NOSLOT;
      int ng;
      in->c = psrc(d, &O[n - 1], &ng);
      if (ng) in->fl |= XF_NEGC;
    }
    break;
  case X_BRA: {
    NOPS(1);
    NEED(O[0].kind == PLO_LABEL, "an indirect branch");
    uint32_t id = O[0].id;
    NEED(id < d->m->strs.n && d->labelpc[id], "an undefined label");
    in->target = d->labelpc[id] - 1;
    if (d->ldup && d->ldup[id] == 2) { /* the labels placed once keep the plain table */
      uint32_t pcs = 0;
      for (uint32_t b = d->bcur; !pcs; b = d->bpar[b]) {
        pcs = lab_get(d, id, b);
        if (!b) break;
      }
      NEED(pcs, "a label that no block around the branch places");
      in->target = pcs - 1;
    }
    break;
  }
  case X_EXIT:
  case X_RET: NOPS(0); break;
  case X_CALL: { /* call (results), f, (arguments) */
    int si = n > 1 && O[1].kind == PLO_SYM ? 1 : 0;
    NEED(n >= 1 && O[si].kind == PLO_SYM, "an indirect call");
    NEED(n - si <= 2, "operand count");
    int c = callee(d->m, s), fi;
    if (c < 0 && (c = vprintf_fn(d->m, O[si].id)) >= 0) {
      fi = 0;
      in->t3 = 1;
    } /* printf: exec.c plX__vprintf */
    else {
      NEED(c >= 0, "a call to a function with no body");
      fi = fn_index(d->e, c);
      NEED(fi > 0, "a call to a kernel");
    }
    const plI_func *cf = &d->m->funcs.p[c];
    const plI_opnd *R = si ? &O[0] : NULL, *A = si + 1 < n ? &O[si + 1] : NULL;
    int nr = R ? (R->kind == PLO_VEC ? R->n : -1) : 0,
        na = A ? (A->kind == PLO_VEC ? A->n : -1) : 0;
    NEED(nr == (int)cf->rets.n && na == (int)cf->params.n,
         "results or arguments other than the function's");
    NEED(nr < 256 && na < 256, "operand count");
    in->vs = d->x->nvslots;
    /* a register passes its value (the DSL's calls); a .param variable of the caller (nvcc's
    ** calling convention: st.param into param0, call, ld.param from retval0) its bytes:
    ** X_PREDBIT | its local offset */
    for (int k = 0; k < nr + na; k++) {
      plI_opnd e = plI_elem(d->m, k < nr ? R : A, (uint32_t)(k < nr ? k : k - nr));
      const plI_var *cv = k < nr ? &cf->rets.p[k] : &cf->params.p[k - nr];
      if (e.kind == PLO_SYM) {
        uint64_t off, bytes;
        if (!param_var(d, e.id, &off, &bytes) || off >= X_PREDBIT) {
          bad(d, "a call %s that is not a .param variable of the caller",
              k < nr ? "result" : "argument");
          break;
        }
        uint32_t b = plB_type_info[cv->type].bits;
        if (bytes != (uint64_t)(b < 8 ? 1 : b / 8) * (cv->count ? cv->count : 1)) {
          bad(d, "a .param variable of another size than the function's %s",
              k < nr ? "result" : "parameter");
          break;
        }
        vpush(d, X_PREDBIT | (uint32_t)off);
      } else
        vpush(d, k < nr ? vdst(d, &e) : vsrc(d, &e, cv->type));
    }
    in->c = (uint32_t)fi;
    in->sub = (uint8_t)nr;
    in->sub2 = (uint8_t)na;
    in->target = in->t3 ? 0 : d->e->fns[fi].pc;
    break;
  }
  case X_TRAP: break;
  case X_MMA: {
    NOPS(4);
    int at = in->t2, sh = in->sub2;
    int na = at == PLT_TF32 ? 4
             : sh == 2      ? 2
                            : 4,
        nb = at == PLT_TF32 ? 2
             : sh == 2      ? 1
                            : 2,
        nc = t == PLT_F16 ? 2 : 4;
    uint32_t v0, v1, v2, v3;
    vvec(d, &O[0], nc, 1, PLT_NONE, &v0);
    vvec(d, &O[1], na, 0, PLT_NONE, &v1);
    vvec(d, &O[2], nb, 0, PLT_NONE, &v2);
    vvec(d, &O[3], nc, 0, PLT_NONE, &v3);
    in->vs = v0;
    in->a = v1;
    in->b = v2;
    in->c = v3; /* vslots indices of D, A, B, C */
    break;
  }
  case X_WMMA:
    if (in->sub == 4) { /* d, a, b, c: vslots indices in vs, a, b, c */
      NOPS(4);
      uint32_t v1, v2, v3;
      vvec(d, &O[0], plX__wmma_regs(2, in->sub2, t), 1, PLT_NONE, &in->vs);
      vvec(d, &O[1], plX__wmma_regs(0, in->sub2, in->t2), 0, PLT_NONE, &v1);
      vvec(d, &O[2], plX__wmma_regs(1, in->sub2, in->t3), 0, PLT_NONE, &v2);
      vvec(d, &O[3], plX__wmma_regs(2, in->sub2, in->vec), 0, PLT_NONE, &v3);
      in->a = v1;
      in->b = v2;
      in->c = v3;
      /* load r, [p]{, stride}; store [p], r{, stride} */
    } else {
      NEED(n == 2 || n == 3, "operand count");
      int nr = plX__wmma_regs(in->sub < 2 ? in->sub : 2, in->sub2, t);
      if (in->sub < 3) {
        vvec(d, &O[0], nr, 1, PLT_NONE, &in->vs);
        vaddr(d, &O[1], in, in->space);
      } else {
        vaddr(d, &O[0], in, in->space);
        vvec(d, &O[1], nr, 0, PLT_NONE, &in->vs);
      }
      if (n == 3) {
        in->b = vsrc(d, &O[2], PLT_U32);
        in->vec = 1;
      } /* vec: a stride is given */
    }
    break;
  case X_LDMATRIX:
    NOPS(2);
    vvec(d, &O[0], in->vec, 1, PLT_NONE, &in->vs);
    vaddr(d, &O[1], in, in->space);
    break;
  case X_STMATRIX:
    NOPS(2);
    vaddr(d, &O[0], in, in->space);
    vvec(d, &O[1], in->vec, 0, PLT_NONE, &in->vs);
    break;
  case X_CPCOMMIT: NOPS(0); break;
  case X_CPWAIT:
    if (in->sub2) {
      NOPS(0);
      in->c = 0;
    } else {
      NOPS(1);
      NEED(O[0].kind == PLO_IMM, "");
      in->c = (uint32_t)O[0].v;
    }
    break;
  case X_CPASYNC: {
    NEED(n == 3 || n == 4, "operand count");
    NEED(O[2].kind == PLO_IMM && (O[2].v == 4 || O[2].v == 8 || O[2].v == 16), "copy size");
    in->vec = (uint8_t)O[2].v;
    vaddr(d, &O[0], in, XS_SHARED);
    plX_ins src;
    memset(&src, 0, sizeof src);
    vaddr(d, &O[1], &src, XS_GLOBAL);
    in->a = src.abase;
    in->t3 = src.abits;
    in->off2 = src.off; /* the source address */
    in->b = n == 4 ? vsrc(d, &O[3], PLT_U32) : cslot(d, O[2].v);
    break;
  }
  /* ---- Hopper ---- */
  case X_MBAR:
    switch (in->sub) {
    /* init [a], count */
    case 0:
      NOPS(2);
      vaddr(d, &O[0], in, in->space);
      SRC(b, 1, PLT_U32);
      break;
    /* inval [a] */
    case 1:
      NOPS(1);
      vaddr(d, &O[0], in, in->space);
      break;
    case 2:
    case 3: /* arrive(_drop) s, [a]{, n} */
      NEED(n == 2 || n == 3, "operand count");
      DST(0);
      vaddr(d, &O[1], in, in->space);
      in->b = n == 3 ? vsrc(d, &O[2], PLT_U32) : cslot(d, 1);
      NEED(n == 3 || !(in->sub2 & 1), "operand count");
      break;
    /* expect_tx / complete_tx */
    default:
      NOPS(2);
      vaddr(d, &O[0], in, in->space);
      SRC(b, 1, PLT_U32);
      break;
    }
    break;
  case X_MBWAIT:
    NEED(n == 3 || n == 4, "operand count");
    in->d = pdst(d, &O[0]);
    vaddr(d, &O[1], in, in->space);
    SRC(b, 2, in->sub2 ? PLT_U32 : PLT_U64);
    if (n == 4) vsrc(d, &O[3], PLT_U32);
    break;
  case X_MBPENDING:
    NOPS(2);
    DST(0);
    SRC(a, 1, PLT_U64);
    break;
  case X_CPMBARRIVE:
    NOPS(1);
    vaddr(d, &O[0], in, in->space);
    break;
  case X_CLCTRY: { /* [addr], [mbar]: the mbarrier as TMA's (slot e, bits rnd, offset target) */
    NOPS(2);
    vaddr(d, &O[0], in, in->space);
    plX_ins mt;
    memset(&mt, 0, sizeof mt);
    vaddr(d, &O[1], &mt, in->space);
    in->e = mt.abase;
    in->rnd = mt.abits;
    in->target = (uint32_t)mt.off;
    break;
  }
  case X_CLCQUERY: /* d (p, or {x, y, z, w}), a .b128 response */
    NOPS(2);
    if (in->sub == 0)
      in->d = pdst(d, &O[0]);
    else if (in->sub < 4)
      DST(0);
    else {
      NEED(O[0].kind == PLO_VEC && O[0].n == 4, "");
      /* the fourth element, which the ISA leaves undefined, is not written */
      plI_opnd el[3];
      in->vs = d->x->nvslots;
      for (uint32_t i = 0; i < 3; i++) {
        el[i] = plI_elem(d->m, &O[0], i);
        vpush(d, vdst(d, &el[i]));
      }
    }
    in->a = q128(d, &O[1], 0);
    break;
  case X_TMA: {
    const plI_opnd *ta = NULL, *sm = NULL, *mb = NULL;
    int extra = 0;
    if (in->sub == 0) {
      NEED(n >= 3, "operand count");
      sm = &O[0];
      ta = &O[1];
      mb = &O[2];
      extra = 3;
    } else if (in->sub == 3) {
      NEED(n >= 1, "operand count");
      ta = &O[0];
      extra = 1;
    } else {
      NEED(n >= 2, "operand count");
      ta = &O[0];
      sm = &O[1];
      extra = 2;
    }
    NEED(ta->kind == PLO_TADDR && ta->n == in->vec,
         "a tensor address [tmap, {c0, ...}] with one coordinate per dimension");
    in->vs = d->x->nvslots;
    const plI_opnd *base = &d->m->opnds.p[ta->id];
    /* the parameter's generic address */
    if (base->kind == PLO_SYM)
      vpush(d, cslot(d, sym_value(d, base->id, 1)));
    else
      vpush(d, vsrc(d, base, PLT_U64));
    for (int i = 0; i < ta->n; i++)
      vpush(d, vsrc(d, &d->m->opnds.p[ta->id + 1 + (uint32_t)i], PLT_S32));
    /* im2col: D-2 .b16 offsets, after the coordinates */
    if (in->t2 == 1 && (in->sub == 0 || in->sub == 3)) {
      NEED(n > extra && ((O[extra].kind == PLO_VEC && O[extra].n == in->vec - 2) ||
                         (in->vec == 3 && O[extra].kind == PLO_REG)),
           "the im2col offsets: a vector of D-2 .b16 values");
      uint32_t first;
      vvec(d, &O[extra], in->vec - 2, 0, PLT_U16, &first);
      extra++;
    }
    if (sm) vaddr(d, sm, in, XS_SHARED);
    if (mb) {
      plX_ins mt;
      memset(&mt, 0, sizeof mt);
      vaddr(d, mb, &mt, XS_SHARED);
      in->e = mt.abase;
      in->rnd = mt.abits;
      in->target = (uint32_t)mt.off;
    }
    if (in->fl & XF_CLUSTER) {
      NEED(n > extra, "the ctaMask operand of .multicast::cluster");
      SRC(c, extra, PLT_U16);
      extra++;
    }
    NEED(n <= extra + 1, "operand count");
    /* the cache policy: no effect */
    if (n == extra + 1) vsrc(d, &O[extra], PLT_U64);
    break;
  }
  case X_BULK: {
    int k = 0;
    if (in->sub == 4) {
      NEED(n == 2 || n == 3, "operand count");
    } else {
      NEED(n >= 3, "operand count");
      vaddr(d, &O[k++], in, in->sub <= 1 || in->sub == 5 ? XS_SHARED : XS_GLOBAL);
    }
    plX_ins src;
    memset(&src, 0, sizeof src);
    vaddr(d, &O[k++], &src, in->sub == 0 || in->sub == 4 ? XS_GLOBAL : XS_SHARED);
    in->a = src.abase;
    in->t3 = src.abits;
    in->off2 = src.off;
    SRC(b, k, PLT_U32);
    k++;
    if (in->sub <= 1 || in->sub == 5) {
      NEED(n > k, "operand count");
      plX_ins mt;
      memset(&mt, 0, sizeof mt);
      vaddr(d, &O[k++], &mt, XS_SHARED);
      in->e = mt.abase;
      in->rnd = mt.abits;
      in->target = (uint32_t)mt.off;
    }
    if (in->fl & XF_CLUSTER) {
      NEED(n > k, "the ctaMask operand");
      SRC(c, k, PLT_U16);
      k++;
    }
    NEED(n <= k + 1, "operand count");
    if (n == k + 1) vsrc(d, &O[k], PLT_U64);
    break;
  }
  case X_BULKCOMMIT:
  case X_WGFENCE:
  case X_WGCOMMIT: NOPS(0); break;
  case X_BULKWAIT:
  case X_WGWAIT:
    NOPS(1);
    NEED(O[0].kind == PLO_IMM, "a wait_group count that is not an immediate");
    in->c = (uint32_t)O[0].v;
    break;
  case X_WGMMA: {
    int N = in->vec * 8, at = in->t2, dt = in->t;
    int f16ab = at == PLT_F16 || at == PLT_BF16, integer = at == PLT_S8 || at == PLT_U8;
    int nd = dt == PLT_F16 ? N / 4 : N / 2;
    NEED(n >= 4, "operand count");
    vvec(d, &O[0], nd, 1, PLT_NONE, &in->vs);
    int aregs = O[1].kind == PLO_VEC;
    if (aregs) {
      uint32_t v;
      vvec(d, &O[1], 4, 0, PLT_NONE, &v);
      in->a = v;
      in->sub |= 16;
    } else
      SRC(a, 1, PLT_U64);
    SRC(b, 2, PLT_U64);
    /* sparse: sp-meta and sp-sel follow b-desc */
    int sp = in->rnd ? 2 : 0;
    if (sp) {
      NEED(n >= 6 && O[4].kind == PLO_IMM, "a sparsity selector that is not an immediate");
      SRC(e, 3, PLT_U32);
      /* checked when executed (undefined values) */
      in->off2 = 1 + (int64_t)(O[4].v & 0xffffffffu);
    }
    if (O[3 + sp].kind == PLO_IMM) {
      in->sub |= 32;
      if (O[3 + sp].v) in->sub |= 64;
    } else
      in->c = psrc(d, &O[3 + sp], NULL);
    int want = sp + (integer ? 4 : f16ab ? (aregs ? 7 : 8) : 6);
    NEED(n == want, "operand count");
    for (int i = 4 + sp; i < n; i++) NEED(O[i].kind == PLO_IMM, "an immediate scale or transpose");
    if (!integer) {
      int64_t sa = (int64_t)O[4 + sp].v, sb = (int64_t)O[5 + sp].v;
      NEED((sa == 1 || sa == -1) && (sb == 1 || sb == -1), "imm-scale-a/b must be 1 or -1");
      if (sa == -1) in->sub |= 4;
      if (sb == -1) in->sub |= 8;
    }
    if (f16ab) {
      if (!aregs) {
        NEED(O[6 + sp].v <= 1, "imm-trans-a must be 0 or 1");
        if (O[6 + sp].v) in->sub |= 1;
      }
      NEED(O[n - 1].v <= 1, "imm-trans-b must be 0 or 1");
      if (O[n - 1].v) in->sub |= 2;
    }
    break;
  }
  case X_TCALLOC:
    NOPS(2);
    vaddr(d, &O[0], in, in->space);
    SRC(b, 1, PLT_U32);
    break;
  case X_TCDEALLOC:
    NOPS(2);
    SRC(a, 0, PLT_U32);
    SRC(b, 1, PLT_U32);
    break;
  case X_TCRELINQ:
  case X_TCWAIT:
  case X_TCFENCE: NOPS(0); break;
  case X_TCLD:
  case X_TCST: { /* registers: .num, twice for 16x128b, 4 times for 16x256b */
    int nr = in->vec * (in->sub == 2 ? 2 : in->sub == 3 ? 4 : 1), ld = in->op == X_TCLD;
    NOPS(2);
    vaddr(d, &O[ld], in, XS_GENERIC);
    vvec(d, &O[1 - ld], nr, ld, PLT_B32, &in->vs);
    break;
  }
  case X_TCMMA: { /* [d], a-desc or [a], b-desc, idesc, {disable-output-lane}, enable-input-d,
                  ** {scale-input-d}: off2 [a]'s offset, vs/vec the lane mask, target 1 + scale */
    NEED(n >= 5, "operand count");
    vaddr(d, &O[0], in, XS_GENERIC);
    if (O[1].kind == PLO_ADDR) {
      plX_ins ta;
      memset(&ta, 0, sizeof ta);
      vaddr(d, &O[1], &ta, XS_GENERIC);
      in->a = ta.abase;
      in->off2 = ta.off;
      in->sub |= 1;
    } else
      SRC(a, 1, PLT_B64);
    SRC(b, 2, PLT_B64);
    SRC(e, 3, PLT_B32);
    int q = 4;
    if (in->sub2 >= PLTC_MXF8F6F4) { /* [scale-A-tmem] in d + target, [scale-B-tmem] d2 + vs */
      NEED(n == 7 && O[4].kind == PLO_ADDR && O[5].kind == PLO_ADDR, "scale operands");
      plX_ins ta;
      memset(&ta, 0, sizeof ta);
      vaddr(d, &O[4], &ta, XS_GENERIC);
      in->d = ta.abase != X_NOSLOT ? ta.abase : cslot(d, 0); /* a constant address: all offset */
      in->target = (uint32_t)ta.off;
      memset(&ta, 0, sizeof ta);
      vaddr(d, &O[5], &ta, XS_GENERIC);
      in->d2 = ta.abase != X_NOSLOT ? ta.abase : cslot(d, 0);
      in->vs = (uint32_t)ta.off;
      q = 6;
    } else if (O[q].kind == PLO_VEC) {
      NEED(O[q].n == 4 || O[q].n == 8, "disable-output-lane");
      in->vec = (uint8_t)O[q].n;
      vvec(d, &O[q], O[q].n, 0, PLT_B32, &in->vs);
      q++;
    }
    NEED(n > q, "operand count");
    int ng;
    in->c = psrc(d, &O[q++], &ng);
    if (ng) in->fl |= XF_NEGC;
    if (n > q && O[q].kind == PLO_IMM && in->sub2 < PLTC_MXF8F6F4)
      in->target = 1 + (uint32_t)O[q++].v;
    NEED(n == q, "the second predicate of .kind::i8");
    break;
  }
  case X_TCCP: /* [taddr], s-desc */
    NOPS(2);
    vaddr(d, &O[0], in, XS_GENERIC);
    SRC(a, 1, PLT_B64);
    break;
  case X_TCCOMMIT:
    NEED(n == 1 + (in->sub != 0), "operand count");
    vaddr(d, &O[0], in, in->space);
    if (in->sub) SRC(c, 1, PLT_U16);
    break;
  case X_CLBAR: NOPS(0); break;
  case X_MAPA:
    NOPS(3);
    DST(0);
    if (O[1].kind == PLO_SYM)
      in->a = cslot(d, sym_value(d, O[1].id, in->space == XS_GENERIC));
    else
      SRC(a, 1, t);
    SRC(b, 2, PLT_U32);
    break;
  case X_GETRANK:
    NOPS(2);
    DST(0);
    if (O[1].kind == PLO_SYM)
      in->a = cslot(d, sym_value(d, O[1].id, in->space == XS_GENERIC));
    else
      SRC(a, 1, t);
    break;
  case X_ELECT:
    NOPS(2);
    if (O[0].kind == PLO_PAIR) {
      in->d = vdst(d, &d->m->opnds.p[O[0].id]);
      in->d2 = pdst(d, &d->m->opnds.p[O[0].id + 1]);
    } else
      in->d2 = pdst(d, &O[0]);
    SRC(e, 1, PLT_U32);
    break;
  case X_SETMAXNREG:
    NOPS(1);
    NEED(O[0].kind == PLO_IMM, "a register count that is not an immediate");
    in->c = (uint32_t)O[0].v;
    break;
  case X_FENCEPROXY:
    /* tensormap acquire [addr], 128 */
    if (in->sub == 3) {
      NOPS(2);
      vaddr(d, &O[0], in, XS_GENERIC);
      NEED(O[1].kind == PLO_IMM && O[1].v == 128, "a size other than 128");
    } else
      NOPS(0);
    break;
  case X_TMAP:
    if (in->sub == XTM_CP) { /* [dst], [src], 128 */
      NOPS(3);
      vaddr(d, &O[0], in, XS_GLOBAL);
      plX_ins src;
      memset(&src, 0, sizeof src);
      vaddr(d, &O[1], &src, XS_SHARED);
      in->a = src.abase;
      in->t3 = src.abits;
      in->off2 = src.off;
      NEED(O[2].kind == PLO_IMM && O[2].v == 128, "a size other than 128");
    } else if (in->sub >= 2 && in->sub <= 5) { /* [addr], ord, new_val */
      NOPS(3);
      vaddr(d, &O[0], in, in->space);
      NEED(O[1].kind == PLO_IMM, "an ordinal that is not an immediate");
      in->c = (uint32_t)O[1].v;
      SRC(b, 2, t);
    } else if (in->sub <= 1) {
      NOPS(2);
      vaddr(d, &O[0], in, in->space);
      SRC(b, 1, t);
    }      /* [addr], new_val */
    else { /* [addr], immediate */
      NOPS(2);
      vaddr(d, &O[0], in, in->space);
      NEED(O[1].kind == PLO_IMM, "a new value that is not an immediate");
      in->c = (uint32_t)O[1].v;
    }
    break;
  default: return unsup(d, in, "");
  }
#undef DST
#undef SRC
  if (d->bad) return unsup(d, in, d->why);
  return 1;
}

/* ---- the whole function
** -------------------------------------------------------------------------- */
/* raw statements that do not execute: directives, comments, and the braces of a nested { } block
** (a block only scopes declarations, which the parser has already resolved) */
static int is_directive(const char *s) {
  while (*s == ' ' || *s == '\t') s++;
  return *s == 0 || *s == '.' || *s == '{' || *s == '}' || (s[0] == '/' && s[1] == '/') ||
         (s[0] == '/' && s[1] == '*');
}

static int chk_push(D *d, uint32_t v) {
  plX_func *x = d->x;
  if (x->nchk == x->cchk) {
    uint32_t nc = x->cchk ? x->cchk * 2 : 1024;
    uint32_t *p = realloc(x->chk, nc * sizeof *p);
    if (!p) return 0;
    x->chk = p;
    x->cchk = nc;
  }
  x->chk[x->nchk++] = v;
  return 1;
}

/* a call's callee: the function with a body that the call's symbol names; -1 when the statement
** is no call, -2 for a call to no function with a body (an indirect call, a prototype) */
static int callee(const plI_module *m, const plI_stmt *s) {
  if (s->kind != PLS_INSN) return -1;
  const char *t = plA_opcode_text(m->isa, s->opc);
  if (strncmp(t, "call", 4) != 0 || (t[4] && t[4] != '.')) return -1;
  for (uint16_t i = 0; i < s->nops; i++) {
    const plI_opnd *o = &m->opnds.p[s->ops + i];
    if (o->kind != PLO_SYM) continue;
    for (uint32_t f = 0; f < m->funcs.n; f++)
      if (m->funcs.p[f].name == o->id && m->funcs.p[f].kind == PLF_FUNC &&
          !m->funcs.p[f].declared_only)
        return (int)f;
    return -2;
  }
  return -2;
}

/* the .extern .func vprintf (what nvcc calls for printf: (.param .b32 r) vprintf(.param .b64 fmt,
** .param .b64 args)) that symbol `name` names, or -1 */
static int vprintf_fn(const plI_module *m, uint32_t name) {
  if (strcmp(plI_cstr(m, name), "vprintf") != 0) return -1;
  for (uint32_t f = 0; f < m->funcs.n; f++) {
    const plI_func *F = &m->funcs.p[f];
    if (F->name != name || F->kind != PLF_FUNC || !F->declared_only) continue;
    if (F->params.n != 2 || F->rets.n != 1 || plB_type_info[F->params.p[0].type].bits != 64 ||
        plB_type_info[F->params.p[1].type].bits != 64 ||
        plB_type_info[F->rets.p[0].type].bits != 32)
      return -1;
    return (int)f;
  }
  return -1;
}

/* a .param variable of the function being decoded (the last declared of that name): its offset
** in the thread's local memory and its bytes; 0 when the name is none */
static int param_var(D *d, uint32_t name, uint64_t *off, uint64_t *bytes) {
  int pick = -1, any = -1;
  for (uint32_t i = 0; i < d->f->vars.n; i++) { /* the one in scope, as fvar_addr */
    const plI_var *v = &d->f->vars.p[i];
    if (v->name != name) continue;
    any = (int)i;
    if (v->file == d->cur->file && v->line <= d->cur->line) pick = (int)i;
  }
  if (pick < 0) pick = any;
  if (pick < 0) return 0;
  const plI_var *v = &d->f->vars.p[pick];
  uint8_t sp;
  if (v->space != PLV_PARAM || !fvar_addr(d, name, &sp, off) || sp != XS_LOCAL) return 0;
  uint32_t b = plB_type_info[v->type].bits;
  *bytes = (uint64_t)(b < 8 ? 1 : b / 8) * (v->count && v->count != UINT64_MAX ? v->count : 1);
  return 1;
}

/* the kernel and the functions it reaches: fns[0] the kernel, then the callees in module order (a
** function is defined before its callers, so a callee sits at lower pcs than its calls: lanes that
** skip a divergent call wait after it, and the callers rejoin them there on return) */
static int reach_fns(plX_emu *e, uint8_t **reachp) {
  const plI_module *m = e->m;
  uint32_t nf = m->funcs.n;
  uint8_t *in = calloc(nf, 1);
  int *list = malloc(nf * sizeof *list);
  if (!in || !list) {
    free(in);
    free(list);
    return 0;
  }
  uint32_t n = 0;
  list[n++] = e->func;
  in[e->func] = 1;
  for (uint32_t k = 0; k < n; k++) {
    const plI_func *f = &m->funcs.p[list[k]];
    for (uint32_t i = 0; i < f->stmts.n; i++) {
      int c = callee(m, &f->stmts.p[i]);
      if (c >= 0 && !in[c]) {
        in[c] = 1;
        list[n++] = c;
      }
    }
  }
  e->nfns = n;
  e->fns = calloc(n, sizeof *e->fns);
  /* reach[a * n + b]: fns[a] calls fns[b], maybe through others */
  uint8_t *reach = calloc((size_t)n * n, 1);
  if (!e->fns || !reach) {
    free(in);
    free(list);
    free(reach);
    return 0;
  }
  e->fns[0].func = (uint32_t)e->func;
  uint32_t k = 1;
  for (uint32_t f = 0; f < nf; f++)
    if (in[f] && f != (uint32_t)e->func) e->fns[k++].func = f;
  uint32_t sb = m->funcs.p[e->func].stmts.n, np = 0;
  for (uint32_t i = 0; i < n; i++) {
    const plI_func *f = &m->funcs.p[e->fns[i].func];
    e->fns[i].nstmt = f->stmts.n;
    if (i) {
      e->fns[i].sbase = sb;
      sb += f->stmts.n;
      e->fns[i].ppar = np;
      np += f->params.n + f->rets.n + f->vars.n;
    }
    for (uint32_t j = 0; j < f->stmts.n; j++) {
      int c = callee(m, &f->stmts.p[j]);
      if (c >= 0)
        for (uint32_t q = 0; q < n; q++)
          if (e->fns[q].func == (uint32_t)c) reach[i * n + q] = 1;
    }
  }
  for (uint32_t q = 0; q < n; q++) /* the transitive closure */
    for (uint32_t a = 0; a < n; a++)
      if (reach[a * n + q])
        for (uint32_t b = 0; b < n; b++) reach[a * n + b] |= reach[q * n + b];
  /* parameters and results of the callees: in each thread's local memory, after the kernel's */
  e->ploc = calloc(np ? np : 1, sizeof *e->ploc);
  if (!e->ploc) {
    free(in);
    free(list);
    free(reach);
    return 0;
  }
  uint64_t loc = e->local_size;
  for (uint32_t i = 1; i < n; i++) {
    const plI_func *f = &m->funcs.p[e->fns[i].func];
    e->fns[i].llo = (uint32_t)loc;
    for (uint32_t j = 0; j < f->params.n + f->rets.n; j++) {
      const plI_var *v = j < f->params.n ? &f->params.p[j] : &f->rets.p[j - f->params.n];
      plX_ploc *p = &e->ploc[e->fns[i].ppar + j];
      uint32_t b = plB_type_info[v->type].bits;
      uint32_t es = b < 8 ? 1 : b / 8;
      /* .param .align 8 .b8 p[16]: a struct by value */
      uint32_t al = v->align > es ? v->align : es;
      loc = (loc + al - 1) / al * al;
      p->off = (uint32_t)loc;
      p->type = v->type;
      p->size = (uint8_t)es;
      loc += es * (v->count ? v->count : 1);
    }
    /* then its variables: .local ones and the .param ones of its calls (x.ploc after the
    ** results) */
    for (uint32_t j = 0; j < f->vars.n; j++) {
      const plI_var *v = &f->vars.p[j];
      plX_ploc *p = &e->ploc[e->fns[i].ppar + f->params.n + f->rets.n + j];
      uint32_t b = plB_type_info[v->type].bits;
      uint64_t es = b < 8 ? 1 : b / 8, al = v->align ? v->align : es;
      uint64_t cnt = v->count == UINT64_MAX ? 0 : (v->count ? v->count : 1);
      loc = (loc + al - 1) / al * al;
      p->off = (uint32_t)loc;
      p->type = v->type;
      p->size = 0;
      if (loc + es * cnt < loc || loc + es * cnt > 0xffffffffu) {
        free(in);
        free(list);
        free(reach);
        return 0;
      }
      loc += es * cnt;
    }
    e->fns[i].lhi = (uint32_t)loc;
    /* it reaches itself: each call saves its outer activation */
    e->fns[i].rec = reach[i * n + i];
    if (e->fns[i].rec) e->has_rec = 1;
  }
  e->local_size = (uint32_t)((loc + 15) / 16 * 16);
  e->nploc = np;
  e->maxdepth = e->has_rec ? X_MAXDEPTH : n;
  free(in);
  free(list);
  *reachp = reach;
  return 1;
}

static int fn_index(const plX_emu *e, int func) {
  for (uint32_t i = 0; i < e->nfns; i++)
    if (e->fns[i].func == (uint32_t)func) return (int)i;
  return -1;
}

int plX__decode(plX_emu *e) {
  const plI_module *m = e->m;
  plX_func *x = &e->xf;
  D dd;
  memset(&dd, 0, sizeof dd);
  D *d = &dd;
  d->e = e;
  d->x = x;
  d->m = m;
  uint8_t *reach = NULL;
  if (!reach_fns(e, &reach)) return plX__fail(e, X_NOSLOT, "out of memory");
  d->reach = reach;
  for (uint32_t i = 1; i < e->nfns; i++) {
    const plI_func *cf = &m->funcs.p[e->fns[i].func];
    for (uint32_t j = 0; j < cf->vars.n; j++)
      if (cf->vars.p[j].space != PLV_LOCAL && cf->vars.p[j].space != PLV_PARAM) {
        free(reach);
        return plX__fail(
            e, X_NOSLOT,
            "variable '%s' declared inside .func '%s' in this state space is not emulated",
            plI_cstr(m, cf->vars.p[j].name), plI_cstr(m, cf->name));
      }
  }
  plB_buf_init(&d->msgs);
  /* registers: value slots and predicates of these functions (their ids differ: one register
  ** file) */
  uint8_t *infn = calloc(m->funcs.n ? m->funcs.n : 1, 1);
  if (!infn) {
    free(reach);
    return plX__fail(e, X_NOSLOT, "out of memory");
  }
  for (uint32_t i = 0; i < e->nfns; i++) infn[e->fns[i].func] = 1;
  x->nregs = m->regs.n;
  x->slot_of = calloc(m->regs.n ? m->regs.n : 1, sizeof *x->slot_of);
  if (!x->slot_of) {
    free(reach);
    free(infn);
    return plX__fail(e, X_NOSLOT, "out of memory");
  }
  uint32_t nv = 0, np = 0;
  for (uint32_t i = 0; i < m->regs.n; i++) {
    if (!infn[m->regs.p[i].func]) {
      x->slot_of[i] = X_NOSLOT;
      continue;
    }
    if (m->regs.p[i].type == PLT_PRED)
      x->slot_of[i] = np++ | X_PREDBIT;
    else { /* a .b128 register: two slots, the low 64 bits then the high */
      x->slot_of[i] = nv;
      nv += m->regs.p[i].type == PLT_B128 ? 2 : 1;
    }
  }
  free(infn);
  x->nregslots = nv;
  x->npreds = np + 1;
  x->slot_reg = calloc(nv + 1, sizeof *x->slot_reg);
  x->pred_reg = calloc(np + 1, sizeof *x->pred_reg);
  if (!x->slot_reg || !x->pred_reg) {
    free(reach);
    return plX__fail(e, X_NOSLOT, "out of memory");
  }
  for (uint32_t i = 0; i < m->regs.n; i++) {
    uint32_t s = x->slot_of[i];
    if (s == X_NOSLOT) continue;
    if (s & X_PREDBIT)
      x->pred_reg[s & ~X_PREDBIT] = i + 1;
    else {
      x->slot_reg[s] = i + 1;
      if (m->regs.p[i].type == PLT_B128) x->slot_reg[s + 1] = i + 1;
    }
  }
  /* a recursive function's registers: its value slots, then its predicates (what a call saves) */
  for (uint32_t k = 1; k < e->nfns; k++) {
    plX_fn *fn = &e->fns[k];
    if (!fn->rec) continue;
    uint32_t cnt = 0;
    for (uint32_t i = 0; i < m->regs.n; i++)
      if (m->regs.p[i].func == fn->func && x->slot_of[i] != X_NOSLOT)
        cnt += m->regs.p[i].type == PLT_B128 ? 2 : 1;
    fn->regs = malloc((cnt ? cnt : 1) * sizeof *fn->regs);
    if (!fn->regs) {
      free(reach);
      return plX__fail(e, X_NOSLOT, "out of memory");
    }
    fn->nv = fn->np = 0;
    for (uint32_t i = 0; i < m->regs.n; i++)
      if (m->regs.p[i].func == fn->func && x->slot_of[i] != X_NOSLOT &&
          !(x->slot_of[i] & X_PREDBIT)) {
        fn->regs[fn->nv++] = x->slot_of[i];
        if (m->regs.p[i].type == PLT_B128) fn->regs[fn->nv++] = x->slot_of[i] + 1;
      }
    for (uint32_t i = 0; i < m->regs.n; i++)
      if (m->regs.p[i].func == fn->func && x->slot_of[i] != X_NOSLOT && (x->slot_of[i] & X_PREDBIT))
        fn->regs[fn->nv + fn->np++] = x->slot_of[i] & ~X_PREDBIT;
  }
  /* pcs: the callees first, then the kernel; each function ends in an implicit ret (the kernel:
  ** exit) */
  uint32_t total = 0;
  for (uint32_t k = 0; k < e->nfns; k++) {
    uint32_t i = (k + 1) % e->nfns;
    const plI_func *f = &m->funcs.p[e->fns[i].func];
    e->fns[i].pc = total;
    for (uint32_t j = 0; j < f->stmts.n; j++) {
      const plI_stmt *s = &f->stmts.p[j];
      if (s->kind == PLS_INSN || (s->kind == PLS_RAW && !is_directive(plI_cstr(m, s->opc))))
        total++;
    }
    total++;
  }
  e->entry_pc = e->fns[0].pc;
  d->labelpc = calloc(m->strs.n + 1, sizeof *d->labelpc);
  x->code = calloc(total, sizeof *x->code);
  /* never NULL: xf.chk + in->chk */
  if (!x->chk && (x->chk = malloc(1024 * sizeof *x->chk))) x->cchk = 1024;
  if (!d->labelpc || !x->code || !x->chk) {
    free(d->labelpc);
    free(reach);
    return plX__fail(e, X_NOSLOT, "out of memory");
  }
  int oom = 0;
  for (uint32_t fk = 0; fk < e->nfns && !oom; fk++) {
    uint32_t fi = (fk + 1) % e->nfns;
    const plI_func *f = &m->funcs.p[e->fns[fi].func];
    uint32_t sbase = e->fns[fi].sbase;
    d->f = f;
    e->dfn = (int)fi;
    /* labels -> pcs (labels are the function's own); statements that execute */
    memset(d->labelpc, 0, (m->strs.n + 1) * sizeof *d->labelpc);
    uint32_t pc = e->fns[fi].pc;
    int dup = 0;
    for (uint32_t i = 0; i < f->stmts.n; i++) {
      const plI_stmt *s = &f->stmts.p[i];
      if (s->kind == PLS_LABEL) {
        if (s->opc < m->strs.n + 1) {
          dup |= d->labelpc[s->opc] != 0;
          d->labelpc[s->opc] = pc + 1;
        }
      } else if (s->kind == PLS_INSN || !is_directive(plI_cstr(m, s->opc)))
        pc++;
    }
    lab_free(d);
    if (dup && !lab_build(d, f, e->fns[fi].pc)) {
      oom = 1;
      break;
    }
    pc = e->fns[fi].pc;
    uint32_t bnext = 1; /* the blocks numbered as lab_build numbered them */
    d->bcur = 0;
    for (uint32_t i = 0; i < f->stmts.n; i++) {
      const plI_stmt *s = &f->stmts.p[i];
      if (d->ldup && is_brace(m, s, '{') && bnext < d->nblk)
        d->bcur = bnext++;
      else if (d->ldup && is_brace(m, s, '}'))
        d->bcur = d->bpar[d->bcur];
      if (s->kind == PLS_LABEL) continue;
      if (s->kind == PLS_RAW && is_directive(plI_cstr(m, s->opc))) continue;
      plX_ins *in = &x->code[pc++];
      memset(in, 0, sizeof *in);
      in->stmt = sbase + i;
      in->guard = -1;
      in->cache = -1;
      in->a = in->b = in->c = in->e = in->d = in->d2 = X_NOSLOT;
      d->nrd = d->nwr = 0;
      d->bad = 0;
      d->cur = s;
      if (s->kind == PLS_RAW) {
        d->opc = plI_cstr(m, s->opc);
        unsup(d, in, "raw text");
        continue;
      }
      d->opc = plA_opcode_text(m->isa, s->opc);
      d->stmt = sbase + i;
      const plA_res *res = plA_resolve(m->isa, s->opc, NULL); /* cached: the form of the opcode */
      if (s->opc >= d->ntmpl) {
        uint32_t nn = d->ntmpl ? d->ntmpl : 64;
        while (nn <= s->opc) nn *= 2;
        plX_ins *nt = realloc(d->tmpl, nn * sizeof *nt);
        uint8_t *nh = realloc(d->have, nn);
        if (nt) d->tmpl = nt;
        if (nh) d->have = nh;
        if (!nt || !nh) {
          oom = 1;
          break;
        }
        memset(nh + d->ntmpl, 0, nn - d->ntmpl);
        d->tmpl = nt;
        d->have = nh;
        d->ntmpl = nn;
      }
      if (!d->have[s->opc]) { /* phase 1, once per opcode text */
        plX_ins t;
        memcpy(&t, in, sizeof t);
        dec_mods(d, &t, res);
        d->tmpl[s->opc] = t;
        d->have[s->opc] = 1;
      }
      {
        const plX_ins *t = &d->tmpl[s->opc];
        in->op = t->op;
        in->t = t->t;
        in->t2 = t->t2;
        in->t3 = t->t3;
        in->rnd = t->rnd;
        in->sub = t->sub;
        in->sub2 = t->sub2;
        in->space = t->space;
        in->vec = t->vec;
        in->fl = t->fl;
        in->gsync = t->gsync;
        if (t->op == X_UNSUP) in->off = t->off;
      }
      if (s->guard) {
        plI_opnd g;
        memset(&g, 0, sizeof g);
        g.kind = PLO_REG;
        g.id = s->guard - 1;
        in->guard = (int32_t)psrc(d, &g, NULL);
        in->gneg = (s->flags & PLOF_NEG) != 0;
      }
      if (in->op != X_UNSUP) dec_ops(d, s, in, res);
      in->chk = x->nchk;
      in->nrd = (uint16_t)d->nrd;
      in->nwr = (uint16_t)d->nwr;
      for (int j = 0; j < d->nrd; j++) chk_push(d, d->rd[j]);
      for (int j = 0; j < d->nwr; j++) chk_push(d, d->wr[j]);
    }
    /* the end of the function: an implicit exit (the kernel) or ret (a .func) */
    plX_ins *end = &x->code[pc++];
    memset(end, 0, sizeof *end);
    /* sub 1: the end of the body */
    end->op = fi ? X_RET : X_EXIT;
    end->guard = -1;
    end->cache = -1;
    end->sub = 1;
    end->stmt = f->stmts.n ? sbase + f->stmts.n - 1 : X_NOSLOT;
  }
  e->dfn = 0;
  free(reach);
  d->reach = NULL;
  x->ncode = total;
  x->nslots = x->nregslots + 1 + x->nconsts;
  /* operand fields an instruction does not use name the junk slot: every field is a valid slot */
  for (uint32_t i = 0; i < x->ncode; i++) {
    plX_ins *in = &x->code[i];
    uint32_t js = x->nregslots, jp = x->npreds - 1;
    if (in->a == X_NOSLOT) in->a = js;
    /* a barrier without a thread count keeps it */
    if (in->b == X_NOSLOT && in->op != X_BAR) in->b = js;
    if (in->c == X_NOSLOT)
      in->c = (in->op == X_SETP || in->op == X_SET || in->op == X_SELP) ? jp : js;
    if (in->e == X_NOSLOT) in->e = js;
    if (in->d == X_NOSLOT) in->d = js;
    if (in->d2 == X_NOSLOT) in->d2 = jp;
  }
  e->xf.consts = x->consts;
  free(d->labelpc);
  free(d->ckey);
  free(d->cval);
  free(d->tmpl);
  free(d->have);
  lab_free(d);
  if (oom) {
    plB_buf_free(&d->msgs);
    return plX__fail(e, X_NOSLOT, "out of memory");
  }
  /* the messages of X_UNSUP instructions outlive decoding */
  if (d->msgs.n) {
    char *msg = malloc(d->msgs.n);
    if (!msg) {
      plB_buf_free(&d->msgs);
      return plX__fail(e, X_NOSLOT, "out of memory");
    }
    memcpy(msg, d->msgs.p, d->msgs.n);
    x->msgs = msg;
  }
  plB_buf_free(&d->msgs);
  return 0;
}
