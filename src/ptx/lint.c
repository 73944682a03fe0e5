/* lint.c -- the PTX linter: the ISA table run over a parsed module. Reports what it knows to
** be wrong (undeclared registers and symbols, unknown opcodes and modifiers, wrong operands, forms
** the .target or .version lacks, targets the toolkit dropped) and stays silent on instructions the
** table does not model, so that what it rejects, ptxas rejects too. */
#include "parse.h"
#include "isa.h"
#include "smem.h"
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

/* PTX instructions the ISA table has no forms for: never reported as unknown */
static const char *const OTHER[] = { "call",
                                     "tcgen05",
                                     "clusterlaunchcontrol",
                                     "multimem",
                                     "stacksave",
                                     "stackrestore",
                                     "alloca",
                                     "tex",
                                     "tld4",
                                     "suld",
                                     "sust",
                                     "sured",
                                     "suq",
                                     "txq",
                                     "istypep",
                                     "wmma",
                                     "vadd",
                                     "vsub",
                                     "vabsdiff",
                                     "vmin",
                                     "vmax",
                                     "vshl",
                                     "vshr",
                                     "vmad",
                                     "vset",
                                     "vadd2",
                                     "vsub2",
                                     "vavrg2",
                                     "vabsdiff2",
                                     "vmin2",
                                     "vmax2",
                                     "vset2",
                                     "vadd4",
                                     "vsub4",
                                     "vavrg4",
                                     "vabsdiff4",
                                     "vmin4",
                                     "vmax4",
                                     "vset4",
                                     "st",
                                     "ld",
                                     "cp",
                                     "red",
                                     "ex2",
                                     "fma",
                                     "cvt",
                                     "mov",
                                     "getctarank",
                                     "mapa",
                                     "elect",
                                     "mbarrier",
                                     "barrier",
                                     "bar",
                                     "fence",
                                     "membar",
                                     "cvta",
                                     "prefetch",
                                     "applypriority",
                                     "discard",
                                     "createpolicy",
                                     "isspacep",
                                     "ldu",
                                     "setmaxnreg",
                                     "griddepcontrol",
                                     "tensormap",
                                     "wgmma",
                                     "mma",
                                     "ldmatrix",
                                     "stmatrix",
                                     "movmatrix",
                                     "shfl",
                                     "vote",
                                     "match",
                                     "redux",
                                     "activemask",
                                     "nanosleep",
                                     "pmevent",
                                     "trap",
                                     "brkpt",
                                     "exit",
                                     "ret",
                                     "bra",
                                     "brx",
                                     "cp.async",
                                     "atom",
                                     "testp",
                                     "copysign",
                                     "tanh",
                                     "cos",
                                     "sin",
                                     "lg2",
                                     "rcp",
                                     "rsqrt",
                                     "sqrt",
                                     "div",
                                     "rem",
                                     "abs",
                                     "neg",
                                     "min",
                                     "max",
                                     "add",
                                     "sub",
                                     "mul",
                                     "mad",
                                     "mul24",
                                     "mad24",
                                     "sad",
                                     "popc",
                                     "clz",
                                     "bfind",
                                     "fns",
                                     "brev",
                                     "bfe",
                                     "bfi",
                                     "bmsk",
                                     "szext",
                                     "dp4a",
                                     "dp2a",
                                     "and",
                                     "or",
                                     "xor",
                                     "not",
                                     "cnot",
                                     "lop3",
                                     "shf",
                                     "shl",
                                     "shr",
                                     "prmt",
                                     "selp",
                                     "slct",
                                     "set",
                                     "setp",
                                     "addc",
                                     "subc",
                                     "madc",
                                     "mad.wide",
                                     "st.async",
                                     "red.async",
                                     "cp.reduce",
                                     "fence.proxy",
                                     "bar.warp",
                                     NULL };

typedef struct LT {
  plI_module *m;
  const char *file;
  int n;
  plA_target t;
  int have_t;
  plB_buf msg, one;
  void (*each)(void *ud, int line, int col, const char *msg);
  void *ud;
  uint32_t lc_off, lc_ls; /* the last offset placed (lines count on from it), its line's start */
  int lc_line;
} LT;

/* line and column of off, counting on from the last one placed (errors come in file order, so the
** file is read once however many there are) */
static void linecol(LT *l, uint32_t off, int *line, int *col) {
  const char *s = l->m->vsrc.p ? l->m->vsrc.p : "";
  if (off > l->m->vsrc.n) off = (uint32_t)l->m->vsrc.n;
  if (off < l->lc_off) {
    l->lc_off = 0;
    l->lc_ls = 0;
    l->lc_line = 1;
  }
  for (uint32_t i = l->lc_off; i < off; i++)
    if (s[i] == '\n') {
      l->lc_line++;
      l->lc_ls = i + 1;
    }
  l->lc_off = off;
  *line = l->lc_line;
  *col = (int)(off - l->lc_ls) + 1;
}

static void report(LT *l, uint32_t off, const char *fmt, const char *a, const char *b) {
  int line, col;
  linecol(l, off, &line, &col);
  l->one.n = 0;
  plB_buf_printf(&l->one, fmt, a, b);
  l->each(l->ud, line, col, plB_buf_cstr(&l->one));
  l->n++;
}

static int base_known(const char *opc, size_t *blen) {
  size_t n = strcspn(opc, ".");
  *blen = n;
  for (int i = 0; OTHER[i]; i++)
    if (strlen(OTHER[i]) == n && memcmp(OTHER[i], opc, n) == 0) return 1;
  return 0;
}

/* the table's bases: what plA_resolve models (a failure there is a real error) */
static int base_in_table(const char *opc, size_t n) {
  for (int i = 0; i < plA_form_count(); i++) {
    const char *p, *o;
    int a, b, c;
    plA_form_info(i, &p, &o, &a, &b, &c);
    if (p && strncmp(p, opc, n) == 0 &&
        (p[n] == '.' || p[n] == '{' || p[n] == '(' || p[n] == '$' || p[n] == 0 || p[n] == ' '))
      return 1;
  }
  return 0;
}

/* the state space a symbol lives in: a PLV_ space, 5 for a function, -1 when not declared */
enum { SP_FUNC = 5 };
static int sym_space(const plI_module *m, const plI_func *f, uint32_t id, int *input_param) {
  *input_param = 0;
  for (uint32_t i = 0; i < f->params.n; i++)
    if (f->params.p[i].name == id) {
      *input_param = 1;
      return PLV_PARAM;
    }
  for (uint32_t i = 0; i < f->rets.n; i++)
    if (f->rets.p[i].name == id) return PLV_PARAM;
  for (uint32_t i = f->vars.n; i-- > 0;)
    if (f->vars.p[i].name == id) return f->vars.p[i].space;
  const plI_syminfo *e = plI_sym(m, id); /* module scope: the index, not a scan per use */
  if (e && e->global) return e->gspace;
  if (e && e->func) return SP_FUNC;
  return -1;
}
/* is %name (given without its '%') declared in f: a scalar, or an element of a range %name<N> */
static int reg_declared(const plI_module *m, const plI_func *f, const char *nm) {
  size_t n = strlen(nm);
  for (uint32_t i = 0; i < f->regdecls.n; i++) {
    const plI_regdecl *d = &f->regdecls.p[i];
    const char *dn = plI_cstr(m, d->name);
    size_t k = strlen(dn);
    if (!d->count) {
      if (k == n && memcmp(dn, nm, n) == 0) return 1;
      continue;
    }
    if (k >= n || memcmp(dn, nm, k) != 0 || strspn(nm + k, "0123456789") != n - k) continue;
    if (strtoul(nm + k, NULL, 10) < d->count) return 1;
  }
  return 0;
}

/* .reg parameters of a .func, used by name: operands the table's kinds do not cover */
static int reg_param(const plI_func *f, uint32_t id) {
  for (uint32_t i = 0; i < f->params.n; i++)
    if (f->params.p[i].name == id) return 1;
  for (uint32_t i = 0; i < f->rets.n; i++)
    if (f->rets.p[i].name == id) return 1;
  return 0;
}

static const char *const SPNAME[] = { ".global", ".shared", ".const",
                                      ".local",  ".param",  "a function" };

/* the state-space modifiers of an opcode, in order (".shared::cta" counts as .shared,
** ".param::func" as .param); at most 4. Returns how many. */
static int opcode_spaces(const char *opc, int *sp) {
  int n = 0;
  for (const char *p = strchr(opc, '.'); p && n < 4; p = strchr(p + 1, '.')) {
    size_t k = strcspn(p + 1, ".");
    const char *t = p + 1;
    int s = -1;
    if ((k == 6 && !memcmp(t, "global", 6)))
      s = PLV_GLOBAL;
    else if ((k == 6 && !memcmp(t, "shared", 6)) || (k == 11 && !memcmp(t, "shared::cta", 11)) ||
             (k == 15 && !memcmp(t, "shared::cluster", 15)))
      s = PLV_SHARED;
    else if (k == 5 && !memcmp(t, "local", 5))
      s = PLV_LOCAL;
    else if (k == 5 && !memcmp(t, "const", 5))
      s = PLV_CONST;
    else if ((k == 5 && !memcmp(t, "param", 5)) || (k == 12 && !memcmp(t, "param::entry", 12)) ||
             (k == 11 && !memcmp(t, "param::func", 11)))
      s = PLV_PARAM;
    if (s >= 0) sp[n++] = s;
  }
  return n;
}

/* does the form of opcode id take a generic address in a 32-bit register (isa_table.h: n)? */
static int form_addr32(plI_module *m, uint32_t id) {
  const plA_res *r = plA_resolve(m->isa, id, NULL);
  for (int i = 0; r && i < r->nops; i++)
    if (r->ops[i].flags & PLA_ADDR32) return 1;
  return 0;
}

static int base_is(const char *opc, const char *b) {
  size_t n = strlen(b);
  return strncmp(opc, b, n) == 0 && (opc[n] == '.' || opc[n] == 0);
}

/* an instruction whose address operands name a state space: which space the k-th address of
** the instruction is in (-1 generic, -2 not checked). Generic addresses reach .global, .shared
** and .local variables (not .const or .param); an mbarrier is always in .shared. */
static int addr_space(const char *opc, int k) {
  int sp[4], n = opcode_spaces(opc, sp);
  /* cp.*.dst.src: then an mbarrier */
  if (base_is(opc, "cp")) return k < n ? sp[k] : PLV_SHARED;
  if (base_is(opc, "mbarrier")) return PLV_SHARED;
  if (base_is(opc, "ld") || base_is(opc, "st") || base_is(opc, "ldu") || base_is(opc, "atom") ||
      base_is(opc, "red") || (base_is(opc, "prefetch") && !strstr(opc, ".tensormap")) ||
      base_is(opc, "prefetchu"))
    return n ? sp[0] : -1;
  /* wmma.load.a...shared, tensormap.replace...shared::cta, ldmatrix... */
  return n == 1 ? sp[0] : -2;
}

/* special registers: the base names the table knows (%tid of %tid.x), for messages */
static int sreg_base_known(const char *nm, size_t n, const char **parts) {
  for (int i = 0; i < plA_sreg_count(); i++) {
    const char *name, *pp;
    int t, a, b;
    plA_sreg_info(i, &name, &t, &a, &b, &pp);
    if (strlen(name) == n && memcmp(name, nm, n) == 0) {
      *parts = pp;
      return 1;
    }
  }
  return 0;
}

/* 1.5, 0.0, 1e-3, -2.5: a decimal float literal (ptxas takes it as a 64-bit float) */
static int is_decimal_float(const char *t) {
  const char *p = t + (*t == '-');
  size_t d = strspn(p, "0123456789");
  if (!d) return 0;
  p += d;
  int frac = 0, ex = 0;
  if (*p == '.') {
    frac = 1;
    p++;
    p += strspn(p, "0123456789");
  }
  if (*p == 'e' || *p == 'E') {
    ex = 1;
    p++;
    if (*p == '+' || *p == '-') p++;
    if (!strspn(p, "0123456789")) return 0;
    p += strspn(p, "0123456789");
  }
  return (frac || ex) && *p == 0;
}

/* immediates and their operand's type, as ptxas has them: an integer never stands for a float
** (add.f32 d, a, 1 is an error: 1.0 or 0f3F800000); a float literal stands for a float, or for
** .b32 (0f...) or .b64 (0d... and 1.5) bits of its own size */
static void imm_check(LT *l, const plI_opnd *x, int want, const char *opc, int opi, uint32_t off) {
  if (want == PLT_NONE || want >= PLT__COUNT) return;
  const plB_typeinfo *ti = &plB_type_info[want];
  char a[160];
  if (x->kind == PLO_IMM && ti->cls == PLT_CF) {
    snprintf(a, sizeof a,
             "operand %d of '%s' is .%s: an integer immediate does not stand for a float (write "
             "1.0 or 0f3F800000)",
             opi, opc, ti->name);
    report(l, off, "%s%s", a, "");
  } else if ((x->kind == PLO_F32 || x->kind == PLO_F64) && ti->cls != PLT_CF &&
             !(ti->cls == PLT_CB && ti->bits == (x->kind == PLO_F32 ? 32 : 64))) {
    snprintf(
        a, sizeof a,
        "operand %d of '%s' is .%s: a float immediate stands only for a float or for .b%d bits",
        opi, opc, ti->name, x->kind == PLO_F32 ? 32 : 64);
    report(l, off, "%s%s", a, "");
  }
}
static void imm_types(LT *l, const plI_module *m, const plA_res *r, const char *opc,
                      const plI_opnd *ops, int n, uint32_t off) {
  for (int i = 0; r->nalt && i < n; i++) /* mov.b32 d, {a, b}: an alternative took them */
    if (ops[i].kind == PLO_VEC) return;
  for (int i = 0; i < n; i++) {
    int want = plA_optype_n(r, i, n);
    if (ops[i].kind == PLO_VEC && !(ops[i].flags & PLOF_PAREN)) {
      for (uint16_t e = 0; e < ops[i].n; e++)
        imm_check(l, &m->opnds.p[ops[i].id + e], want, opc, i + 1, off);
    } else
      imm_check(l, &ops[i], want, opc, i + 1, off);
  }
}

/* call (results), f, (arguments): as many as f declares */
static void call_arity(LT *l, const plI_module *m, const plI_opnd *ops, int n, uint32_t off) {
  int fi = -1, nr = -1, na = -1, k = 0;
  if (k < n && ops[k].kind == PLO_VEC && (ops[k].flags & PLOF_PAREN)) nr = ops[k++].n;
  if (k < n && ops[k].kind == PLO_SYM) {
    /* the index: no scan of every function per call */
    const plI_syminfo *e = plI_sym(m, ops[k].id);
    if (e && e->func) fi = e->flast;
    k++;
  }
  if (fi < 0) return; /* an indirect call, or through a prototype */
  if (k < n && ops[k].kind == PLO_VEC && (ops[k].flags & PLOF_PAREN)) na = ops[k++].n;
  const plI_func *f = &m->funcs.p[fi];
  char a[200];
  if ((nr < 0 ? 0 : nr) != (int)f->rets.n || (na < 0 ? 0 : na) != (int)f->params.n) {
    snprintf(a, sizeof a, "call of '%s' with %d result%s and %d argument%s: it declares %u and %u",
             plI_cstr(m, f->name), nr < 0 ? 0 : nr, nr == 1 ? "" : "s", na < 0 ? 0 : na,
             na == 1 ? "" : "s", f->rets.n, f->params.n);
    report(l, off, "%s%s", a, "");
  }
}

/* '_' (the sink) and WARP_SZ (the warp-size constant) are no names for variables, parameters
** or functions: ptxas fails to parse the declaration */
static void lint_reserved(LT *l, const plI_module *m, uint32_t name, uint32_t off) {
  const char *s = plI_cstr(m, name);
  if (strcmp(s, "_") == 0 || strcmp(s, "WARP_SZ") == 0)
    report(l, off, "'%s' is reserved in PTX (%s), not a name to declare", s,
           s[0] == '_' ? "the sink" : "the predefined warp-size constant");
}

/* in one function: a parameter or result twice (its header: nested { } blocks may declare a
** variable or register again, as nvcc's call sequences do), a reserved name, and a variable or
** parameter that hides a function the function calls */
static void lint_names(LT *l, const plI_module *m, uint32_t fi) {
  const plI_func *f = &m->funcs.p[fi];
  uint32_t off = f->vhead.off;
  PLB_VEC(uint32_t) names = { 0 };
  const PLB_VEC(plI_var) *
      lists[3] = { (const void *)&f->params, (const void *)&f->rets, (const void *)&f->vars };
  for (int k = 0; k < 3; k++)
    for (uint32_t i = 0; i < lists[k]->n; i++)
      if (!plB_vec_push(names, lists[k]->p[i].name)) goto done;
  for (uint32_t i = 0; i < names.n; i++) lint_reserved(l, m, names.p[i], off);
  for (uint32_t i = 0; i < f->params.n + f->rets.n; i++)
    for (uint32_t j = 0; j < i; j++)
      if (names.p[i] == names.p[j]) {
        report(l, off, "parameter '%s' of '%s' is declared twice (ptxas: duplicate definition)",
               plI_cstr(m, names.p[i]), plI_cstr(m, f->name));
        break;
      }
  /* a local name that hides a function this one calls */
  for (uint32_t i = 0; i < names.n; i++) {
    const plI_syminfo *e = plI_sym(m, names.p[i]);
    if (!e || !e->func) continue;
    for (uint32_t si = 0; si < f->stmts.n; si++) {
      const plI_stmt *s = &f->stmts.p[si];
      if (s->kind != PLS_INSN || strncmp(plA_opcode_text(m->isa, s->opc), "call", 4) != 0) continue;
      for (uint16_t k = 0; k < s->nops; k++)
        if (m->opnds.p[s->ops + k].kind == PLO_SYM && m->opnds.p[s->ops + k].id == names.p[i]) {
          report(l, si < f->vtext.n ? f->vtext.p[si].tok : off,
                 "'%s' names a variable of '%s' here, which hides the "
                 "function of that name from the call (ptxas: arguments mismatch)",
                 plI_cstr(m, names.p[i]), plI_cstr(m, f->name));
          goto next_name;
        }
    }
  next_name:;
  }
done:
  plB_vec_free(names);
}

/* registers declared twice in one scope (ptxas: "Duplicate definition of variable"): a name twice,
** a range twice (whatever the counts), a scalar %bK beside a range %b<N> with K < N; the same name
** in a nested { } block only shadows. Sorted by (scope, name), so a function of many declarations
** is one sort, not a scan per pair. */
typedef struct {
  uint32_t scope, i;
  const char *name;
} rd_ent;
static int rd_cmp(const void *x, const void *y) {
  const rd_ent *a = x, *b = y;
  if (a->scope != b->scope) return a->scope < b->scope ? -1 : 1;
  int c = strcmp(a->name, b->name);
  if (c) return c;
  return a->i < b->i ? -1 : a->i > b->i;
}
/* the range of scope `scope` named exactly name[0..n) in the sorted ranges, or NULL */
static const rd_ent *rd_find(const rd_ent *r, size_t nr, uint32_t scope, const char *name,
                             size_t n) {
  size_t lo = 0, hi = nr;
  while (lo < hi) {
    size_t mid = lo + (hi - lo) / 2;
    int c = r[mid].scope != scope ? (r[mid].scope < scope ? -1 : 1) : strncmp(r[mid].name, name, n);
    if (!c && r[mid].scope == scope && r[mid].name[n]) c = 1; /* longer: after */
    if (c < 0)
      lo = mid + 1;
    else if (c > 0)
      hi = mid;
    else
      return &r[mid];
  }
  return NULL;
}
static void lint_regdecls(LT *l, const plI_module *m, uint32_t fi) {
  const plI_func *f = &m->funcs.p[fi];
  uint32_t n = f->regdecls.n, ns = 0, nr = 0;
  if (n < 2) return;
  rd_ent *sc = malloc(sizeof *sc * n), *rg = malloc(sizeof *rg * n);
  uint8_t *bad = calloc(n, 1); /* reported already (one report a declaration) */
  if (!sc || !rg || !bad) goto done;
  for (uint32_t i = 0; i < n; i++) {
    const plI_regdecl *d = &f->regdecls.p[i];
    if (d->pool || d->laid) continue;
    rd_ent e = { d->scope, i, plI_cstr(m, d->name) };
    if (d->count)
      rg[nr++] = e;
    else
      sc[ns++] = e;
  }
  qsort(sc, ns, sizeof *sc, rd_cmp);
  qsort(rg, nr, sizeof *rg, rd_cmp);
  for (uint32_t k = 1; k < ns; k++)
    if (sc[k].scope == sc[k - 1].scope && !strcmp(sc[k].name, sc[k - 1].name)) bad[sc[k].i] = 1;
  for (uint32_t k = 1; k < nr; k++)
    if (rg[k].scope == rg[k - 1].scope && !strcmp(rg[k].name, rg[k - 1].name)) bad[rg[k].i] = 2;
  for (uint32_t k = 0; k < ns; k++) { /* %bK with a range %b<N>, K < N, in its scope */
    const char *nm = sc[k].name;
    size_t len = strlen(nm), q = len;
    while (q > 0 && nm[q - 1] >= '0' && nm[q - 1] <= '9') q--;
    if (q == len || q == 0 || len - q > 9) continue;
    const rd_ent *r = rd_find(rg, nr, sc[k].scope, nm, q);
    if (!r) continue;
    if (strtoul(nm + q, NULL, 10) < f->regdecls.p[r->i].count) {
      uint32_t later = r->i > sc[k].i ? r->i : sc[k].i; /* the second declaration */
      if (!bad[later]) bad[later] = later == sc[k].i ? 3 : 4;
    }
  }
  for (uint32_t i = 0; i < n; i++) {
    if (!bad[i]) continue;
    const plI_regdecl *d = &f->regdecls.p[i];
    char nm[160];
    snprintf(nm, sizeof nm, "%s%.100s%s", d->bare ? "" : "%", plI_cstr(m, d->name),
             d->count ? "<..>" : "");
    report(l, d->off ? d->off : f->vhead.off,
           bad[i] == 1   ? "register '%s' is declared twice in one scope (ptxas: duplicate "
                           "definition)%s"
           : bad[i] == 2 ? "register range '%s' is declared twice in one scope (ptxas: duplicate "
                           "definition; a range's name is declared whatever its count)%s"
           : bad[i] == 3 ? "register '%s' is declared twice in one scope: a range declared before "
                           "it holds it (ptxas: duplicate definition)%s"
                         : "register range '%s' holds a register declared before it in this scope "
                           "(ptxas: duplicate definition)%s",
           nm, "");
  }
done:
  free(sc);
  free(rg);
  free(bad);
}

/* a label defined twice in one block (ptxas: "Duplicate definition of label"); the same label in
** another { } block is another label. The blocks are the "{" and "}" statements. */
static void lint_labels(LT *l, const plI_module *m, uint32_t fi) {
  const plI_func *f = &m->funcs.p[fi];
  uint32_t n = 0, depth = 0, stack[66];
  for (uint32_t si = 0; si < f->stmts.n; si++) n += f->stmts.p[si].kind == PLS_LABEL;
  if (n < 2) return;
  rd_ent *e = malloc(sizeof *e * n);
  if (!e) return;
  n = 0;
  for (uint32_t si = 0; si < f->stmts.n; si++) {
    const plI_stmt *st = &f->stmts.p[si];
    if (st->kind == PLS_RAW && st->opc) {
      const char *t = plI_cstr(m, st->opc);
      if (t[0] == '{' && !t[1] && depth < 64) stack[++depth] = si + 1;
      if (t[0] == '}' && !t[1] && depth) depth--;
    } else if (st->kind == PLS_LABEL)
      e[n++] = (rd_ent){ depth ? stack[depth] : 0, si, plI_cstr(m, st->opc) };
  }
  qsort(e, n, sizeof *e, rd_cmp);
  /* the later definitions, then reported in file order (statement order) */
  uint8_t *twice = calloc(f->stmts.n, 1);
  if (twice) {
    for (uint32_t k = 1; k < n; k++)
      if (e[k].scope == e[k - 1].scope && !strcmp(e[k].name, e[k - 1].name)) twice[e[k].i] = 1;
    for (uint32_t si = 0; si < f->stmts.n; si++)
      if (twice[si])
        report(l, si < f->vtext.n ? f->vtext.p[si].tok : f->vhead.off,
               "label '%s' is defined twice in one block (ptxas: duplicate definition)%s",
               plI_cstr(m, f->stmts.p[si].opc), "");
  }
  free(twice);
  free(e);
}

/* a variable declared twice in one scope of a body, or at the body's top under a parameter's or
** result's name (ptxas: "Duplicate definition of variable"); a nested { } block's own variables
** only shadow (nvcc's call sequences declare .param variables again in each) */
static void lint_vars(LT *l, const plI_module *m, uint32_t fi) {
  const plI_func *f = &m->funcs.p[fi];
  uint32_t np = f->params.n + f->rets.n, n = np + f->vars.n;
  if (!f->vars.n || n < 2) return;
  rd_ent *e = malloc(sizeof *e * n);
  if (!e) return;
  uint32_t k = 0;
  for (uint32_t i = 0; i < f->params.n; i++)
    e[k++] = (rd_ent){ 0, i, plI_cstr(m, f->params.p[i].name) };
  for (uint32_t i = 0; i < f->rets.n; i++)
    e[k++] = (rd_ent){ 0, f->params.n + i, plI_cstr(m, f->rets.p[i].name) };
  for (uint32_t i = 0; i < f->vars.n; i++)
    e[k++] = (rd_ent){ f->vars.p[i].scope, np + i, plI_cstr(m, f->vars.p[i].name) };
  qsort(e, n, sizeof *e, rd_cmp);
  /* the later declarations (1: after a variable, 2: after a parameter), reported in file order */
  uint8_t *twice = calloc(f->vars.n, 1);
  if (twice) {
    for (uint32_t j = 1; j < n; j++)
      if (e[j].scope == e[j - 1].scope && !strcmp(e[j].name, e[j - 1].name) && e[j].i >= np)
        twice[e[j].i - np] = e[j - 1].i < np ? 2 : 1;
    for (uint32_t i = 0; i < f->vars.n; i++) {
      if (!twice[i]) continue;
      const plI_var *v = &f->vars.p[i];
      report(l, v->off ? v->off : f->vhead.off,
             twice[i] == 2 ? "variable '%s' has the name of a parameter of '%s' (ptxas: duplicate "
                             "definition)"
                           : "variable '%s' is declared twice in one scope of '%s' (ptxas: "
                             "duplicate definition)",
             plI_cstr(m, v->name), plI_cstr(m, f->name));
    }
  }
  free(twice);
  free(e);
}

/* module scope: a function defined twice, a module-scope variable named like a function */
static void lint_module_names(LT *l, const plI_module *m) {
  for (uint32_t g = 0; g < m->globals.n; g++) lint_reserved(l, m, m->globals.p[g].name, 0);
  for (uint32_t i = 0; i < m->funcs.n; i++) {
    const plI_func *f = &m->funcs.p[i];
    lint_reserved(l, m, f->name, f->vhead.off);
    /* the index: no scan of the module per function */
    const plI_syminfo *e = plI_sym(m, f->name);
    if (!e) continue;
    if (!f->declared_only && e->fdef0 >= 0 && (uint32_t)e->fdef0 != i)
      report(l, f->vhead.off, "function '%s' is defined twice (ptxas: duplicate definition)%s",
             plI_cstr(m, f->name), "");
    if (e->global)
      report(l, f->vhead.off,
             "'%s' is both a function and a module-scope variable (ptxas: inconsistent "
             "redefinition)%s",
             plI_cstr(m, f->name), "");
  }
}

int plP_lint_each(plI_module *m, void (*each)(void *ud, int line, int col, const char *msg),
                  void *ud) {
  LT l;
  memset(&l, 0, sizeof l);
  l.m = m;
  l.each = each;
  l.ud = ud;
  l.lc_line = 1;
  plB_buf_init(&l.msg);
  plB_buf_init(&l.one);
  const char *tg = plI_cstr(m, m->target);
  uint32_t toff = 0;
  {
    const char *p = m->vsrc.p ? strstr(m->vsrc.p, ".target") : NULL;
    if (p) toff = (uint32_t)(p - m->vsrc.p);
  }
  if (!*tg)
    report(&l, 0, "the module has no .target%s%s", "", "");
  else if (!plA_target_parse(tg, &l.t))
    report(
        &l, toff,
        "unknown target '%s' (sm_75 ... sm_121, with a or f for arch- or family-specific forms)%s",
        tg, "");
  else {
    l.have_t = 1;
    if (l.t.sm < 75)
      report(&l, toff,
             "target %s is not supported by ptxas 13 (CUDA 13 dropped Maxwell, Pascal and Volta; "
             "use sm_75 or later)%s",
             tg, "");
    int minv = plA_target_min_version(&l.t);
    if (m->version && m->version < minv) {
      char a[32], b[96];
      snprintf(a, sizeof a, "%d.%d", m->version / 10, m->version % 10);
      snprintf(b, sizeof b, "%s needs .version %d.%d or later", tg, minv / 10, minv % 10);
      report(&l, toff, "PTX .version %s does not support .target %s", a, b);
    }
    l.t.version = m->version;
  }
  lint_module_names(&l, m);
  for (uint32_t fi = 0; fi < m->funcs.n; fi++) {
    plI_func *f = &m->funcs.p[fi];
    if (!f->declared_only) {
      lint_names(&l, m, fi);
      lint_regdecls(&l, m, fi);
      lint_labels(&l, m, fi);
      lint_vars(&l, m, fi);
    }
    if (f->kind == PLF_ENTRY && !f->declared_only) {
      /* the sizes ptxas checks for a kernel: its static .shared variables and its parameters */
      char a[64], b[200];
      uint64_t sh = plI_space_bytes(m, fi, PLV_SHARED, NULL);
      uint32_t lim = l.have_t ? plB_sm_static_limit(l.t.sm, l.t.arch_a) : 0;
      if (lim && sh > lim) {
        snprintf(a, sizeof a, "%.40s", plI_cstr(m, f->name));
        snprintf(b, sizeof b, "%llu bytes of static .shared, over the %u bytes ptxas allows on %s",
                 (unsigned long long)sh, lim, tg);
        report(&l, f->vhead.off, "kernel '%s' declares %s", a, b);
      }
      uint64_t pb = plI_space_bytes(m, fi, PLV_PARAM, NULL);
      uint32_t plim = m->version >= 81 ? PLSM_PARAM_MAX : PLSM_PARAM_MAX_OLD;
      if (pb > plim) {
        snprintf(a, sizeof a, "%.40s", plI_cstr(m, f->name));
        snprintf(b, sizeof b, "%llu bytes of parameters, over the %u bytes ptxas allows%s",
                 (unsigned long long)pb, plim, m->version >= 81 ? "" : " below PTX ISA 8.1");
        report(&l, f->vhead.off, "kernel '%s' takes %s", a, b);
      }
    }
    /* the function's tcgen05 .cta_group, and the line of its first use */
    int cg = 0, cg_line = 0;
    for (uint32_t si = 0; si < f->stmts.n; si++) {
      const plI_stmt *s = &f->stmts.p[si];
      if (s->kind != PLS_INSN) continue;
      uint32_t off = si < f->vtext.n ? f->vtext.p[si].tok : 0;
      const char *opc = plA_opcode_text(m->isa, s->opc);
      /* a function's tcgen05 instructions all use one .cta_group (PTX ISA 9.0; ptxas rejects a
      ** function that mixes ::1 and ::2) */
      const char *cgs = strncmp(opc, "tcgen05.", 8) == 0 ? strstr(opc, ".cta_group::") : NULL;
      if (cgs && (cgs[12] == '1' || cgs[12] == '2')) {
        int g = cgs[12] - '0';
        if (!cg) {
          int col;
          cg = g;
          linecol(&l, off, &cg_line, &col);
        } else if (g != cg) {
          char a[160], b[160];
          snprintf(a, sizeof a, "%.100s' uses .cta_group::%d", opc, g);
          snprintf(
              b, sizeof b,
              "use .cta_group::%d (the first at line %d); a function's tcgen05 instructions all "
              "use one .cta_group",
              cg, cg_line);
          report(&l, off, "'%s, but this function's tcgen05 instructions %s", a, b);
        }
      }
      /* the state spaces in the form's order (ptxas reads a one-way copy's spaces in any order) */
      const char *copc = plA_canonical(m->isa, s->opc);
      if (s->flags & 0x80)
        report(&l, off, "the guard of '%s' is not a declared predicate register%s", opc, "");
      int raw = 0, bad = 0, naddr = 0, has_sreg = 0, fl = 0, need = 0;
      /* vadd ... %r1.b0: byte and half selectors */
      int video = opc[0] == 'v' && base_known(opc, &(size_t){ 0 });
      for (uint16_t k = 0; k < s->nops; k++) {
        const plI_opnd *o = &m->opnds.p[s->ops + k];
        const plI_opnd *el = o;
        uint16_t ne = 1;
        if (o->kind == PLO_VEC || o->kind == PLO_PAIR) {
          el = &m->opnds.p[o->id];
          ne = o->kind == PLO_PAIR ? 2 : o->n;
        }
        if (o->kind == PLO_ADDR || o->kind == PLO_TADDR ||
            (o->kind == PLO_RAW && plI_cstr(m, o->id)[0] == '['))
          naddr++;
        for (uint16_t e = 0; e < ne; e++) {
          const plI_opnd *x = &el[e];
          if (x->kind == PLO_RAW) {
            const char *t = plI_cstr(m, x->id);
            if (is_decimal_float(t)) {
              if (x == o) {
                fl = 1;
                continue;
              } /* checked below as a 64-bit float immediate */
              raw = 1;
              continue;
            }
            raw = 1;
            const char *t1 = t + 1 + (t[0] == '[' ? strspn(t + 1, " \t") : 0);
            if (t[0] == '[' && ((*t1 >= '0' && *t1 <= '9') || *t1 == '-')) { /* [1+32] */
              int sp[4], n = opcode_spaces(copc, sp);
              int want = base_is(opc, "cp") ? (naddr - 1 < n ? sp[naddr - 1] : PLV_SHARED)
                         : n                ? sp[0]
                                            : -1;
              if (want != PLV_LOCAL) {
                report(&l, off,
                       "an immediate address (%s) is legal only in the .local state space; address "
                       "through a register or a variable in '%s'",
                       t, opc);
                bad = 1;
              }
              continue;
            }
            if (o->kind != PLO_PAIR && strchr(t, '|') && t[0] != '[' &&
                (strchr("0123456789-", t[0]) ||
                 strchr("0123456789-", strchr(t, '|')[1 + strspn(strchr(t, '|') + 1, " \t")]))) {
              report(
                  &l, off,
                  "'%s': a pair p|q is two predicate registers or '_' (in '%s'), not an immediate",
                  t, opc);
              bad = 1;
              continue;
            }
            /* %name or [%name...] whose name is a plain identifier (not %clusterid.w, not [%rd1,
            ** {...}]) */
            const char *c = t + (t[0] == '[');
            char nm[96];
            size_t q = 0;
            if (*c == '%') nm[q++] = *c++;
            while (*c && q < sizeof nm - 1 &&
                   ((*c >= 'a' && *c <= 'z') || (*c >= 'A' && *c <= 'Z') ||
                    (*c >= '0' && *c <= '9') || *c == '_' || *c == '$'))
              nm[q++] = *c++;
            nm[q] = 0;
            int plain = q > 1 && (t[0] == '[' ? (*c == ']' || *c == '+' || *c == '-' || *c == ' ')
                                              : *c == 0);
            const char *parts = NULL;
            int sb = t[0] == '%' && q > 1 && sreg_base_known(nm + 1, q - 1, &parts);
            if (sb && (plain || *c == '.')) {
              /* a special register with a component it lacks, or without the one it needs */
              char want[64];
              if (!parts[0])
                snprintf(want, sizeof want, "%s (no component)", nm);
              else if (parts[0] == 'x')
                snprintf(want, sizeof want, "%s.x, %s.y, %s.z (or %s.w)", nm, nm, nm, nm);
              else
                snprintf(want, sizeof want, "%s%s", nm, parts);
              report(&l, off, "'%s' is not a special register; PTX has %s", t, want);
              bad = 1;
            } else if (t[0] == '%' ? plain
                                   : (t[0] == '[' && t[1] == '%' && plain &&
                                      (*c == ']' || !reg_declared(m, f, nm + 1)))) {
              report(&l, off, "'%s' is not a declared register (in '%s')", nm, opc);
              bad = 1;
            } else if (t[0] == '%' && q > 1 && *c == '.' && !video) {
              /* %r1.x: only the video instructions select parts (.b0 ... .h1) of a register */
              report(&l, off,
                     "'%s': a component of a register is legal only in the video instructions "
                     "(vadd, vmad, ...)%s",
                     t, "");
              bad = 1;
            } else if (t[0] >= '0' && t[0] <= '9' && t[strspn(t, "0123456789")] == '.' &&
                       strchr("abcdfghijklmnopqrstuvwxyzABCDFGHIJKLMNOPQRSTUVWXYZ_",
                              t[strspn(t, "0123456789") + 1]) &&
                       t[strspn(t, "0123456789") + 1]) {
              /* 1.x: a number with a component (a special register replaced by a number); 1.5 is
              ** a float */
              report(
                  &l, off,
                  "'%s' is not an operand (an immediate is a plain number: 42, 0x2a, 0f3F800000)%s",
                  t, "");
              bad = 1;
            }
          } else if (x->kind == PLO_SREG) {
            const char *sr = plI_cstr(m, x->id);
            has_sreg = 1;
            if (!base_is(opc, "mov") && !base_is(opc, "cvt")) {
              report(&l, off,
                     "a special register (%%%s) is read only by mov or cvt, not by '%s'; move it "
                     "into a register first",
                     sr, opc);
              bad = 1;
            }
          } else if (x->kind == PLO_ADDR && (x->flags & PLOF_BASE_REG) && m->address_size == 64 &&
                     x->id && x->id <= m->regs.n &&
                     plB_type_info[m->regs.p[x->id - 1].type < PLT__COUNT
                                       ? m->regs.p[x->id - 1].type
                                       : 0]
                             .bits == 32 &&
                     !strstr(opc, ".shared") && !strstr(opc, ".local") && !strstr(opc, ".param") &&
                     !strstr(opc, ".const")
                     /* [%r1]: a tensor-memory address */
                     && !strstr(opc, ".global") && !base_is(opc, "tcgen05") &&
                     !form_addr32(m, s->opc)) {
            report(
                &l, off,
                "a 32-bit address register in a generic address of '%s' under .address_size 64%s",
                opc, " (ptxas: conflicting with .address_size)");
            bad = 1;
          } else if (x->kind == PLO_ADDR && (x->flags & PLOF_BASE_SYM)) {
            int input, sp = sym_space(m, f, x->id, &input);
            const char *nm = plI_cstr(m, x->id);
            int want = addr_space(copc, naddr - 1);
            if (sp < 0) {
              report(&l, off,
                     "'%s' is not declared (in '%s'): a parameter, variable or function name goes "
                     "here",
                     nm, opc);
              bad = 1;
            } else if (sp == SP_FUNC && want != -2) {
              report(&l, off,
                     "'%s' is a function: '%s' takes the address of a variable or parameter", nm,
                     opc);
              bad = 1;
            } else if (want >= 0 && sp != want) {
              char why[160];
              snprintf(why, sizeof why, "'%s' is in %s, but this address of '%s' is in %s", nm,
                       SPNAME[sp], opc, SPNAME[want]);
              report(&l, off, "state space mismatch: %s%s", why,
                     base_is(opc, "mbarrier") ? " (an mbarrier object lives in .shared)" : "");
              bad = 1;
            } else if (want == -1 && (sp == PLV_CONST || sp == PLV_PARAM)) {
              char why[200];
              snprintf(why, sizeof why,
                       "'%s' is in %s, which a generic address does not reach; write '%s' with the "
                       "state space",
                       nm, sp == PLV_CONST ? ".const" : ".param", opc);
              report(&l, off, "state space mismatch: %s%s", why, "");
              bad = 1;
            } else if (want == PLV_PARAM && input && base_is(opc, "st")) {
              report(&l, off,
                     "'%s' is an input parameter: st.param writes only a function's return values "
                     "and the .param variables of a call%s",
                     nm, "");
              bad = 1;
            }
          } else if (x->kind == PLO_ADDR && !(x->flags & (PLOF_BASE_REG | PLOF_BASE_SYM))) {
            int sp[4], n = opcode_spaces(copc, sp);
            int want = base_is(opc, "cp") ? (naddr - 1 < n ? sp[naddr - 1] : PLV_SHARED)
                       : n                ? sp[0]
                                          : -1;
            if (want != PLV_LOCAL) {
              report(&l, off,
                     "an immediate address ([%s]) is legal only in the .local state space; address "
                     "through a register or a variable in '%s'",
                     "N", opc);
              bad = 1;
            }
          } else if (x->kind == PLO_SYM && reg_param(f, x->id)) {
            /* a .reg parameter used by name: the table's operand kinds do not cover it */
            raw = 1;
          }
        }
      }
      if (bad) continue;
      size_t blen;
      l.msg.n = 0;
      const plA_res *r = plA_resolve(m->isa, s->opc, &l.msg);
      if (!r) {
        if (base_in_table(opc, strcspn(opc, ".")) && strncmp(opc, "st.async", 8) != 0 &&
            strncmp(opc, "red.async", 9) != 0)
          report(&l, off, "%s%s", plB_buf_cstr(&l.msg), "");
        else if (!base_known(opc, &blen) && !base_in_table(opc, strcspn(opc, ".")))
          report(&l, off, "unknown instruction '%s'%s", opc, "");
        continue;
      }
      if (l.have_t) {
        l.msg.n = 0;
        if (!plA_check_target(r, opc, &l.t, 1, &l.msg)) {
          report(&l, off, "%s%s", plB_buf_cstr(&l.msg), "");
          continue;
        }
      }
      /* a destination is a register: never an immediate, an address or a symbol */
      if (s->nops && r->nops && (r->ops[0].flags & PLA_DEST)) {
        const plI_opnd *d0 = &m->opnds.p[s->ops];
        if (d0->kind == PLO_IMM || d0->kind == PLO_F32 || d0->kind == PLO_F64) {
          report(&l, off, "operand 1 of '%s' is its destination: a register, not an immediate%s",
                 opc, "");
          continue;
        }
        /* nor is an element of a destination vector ({%r1, 1, ...}), whatever the other operands */
        int imm_el = 0;
        int dvec = d0->kind == PLO_VEC && !(d0->flags & PLOF_PAREN);
        for (uint16_t e = 0; dvec && e < d0->n && !imm_el; e++) {
          int ek = m->opnds.p[d0->id + e].kind;
          imm_el = ek == PLO_IMM || ek == PLO_F32 || ek == PLO_F64;
        }
        if (imm_el) {
          report(&l, off,
                 "operand 1 of '%s' is its destination: a vector of registers, not of immediates%s",
                 opc, "");
          continue;
        }
      }
      if (has_sreg) {
        /* mov reads a special register of its own size (mov.u32 %r, %tid.x; mov.u64 %rd, %clock64),
        ** cvt converts one between integer types */
        int ok = 1;
        for (int k = 0; k < r->ntypes; k++) {
          int cls = plB_type_info[r->types[k] < PLT__COUNT ? r->types[k] : 0].cls;
          if (cls == PLT_CF) ok = 0;
        }
        for (uint16_t k = 0; ok && k < s->nops && base_is(opc, "mov"); k++) {
          const plI_opnd *o = &m->opnds.p[s->ops + k];
          int st;
          int pm, sm;
          if (o->kind != PLO_SREG || !plA_sreg(plI_cstr(m, o->id), &st, &pm, &sm)) continue;
          if (!r->ntypes || plB_type_info[st].bits !=
                                plB_type_info[r->types[0] < PLT__COUNT ? r->types[0] : 0].bits)
            ok = 0;
        }
        if (!ok) {
          report(&l, off,
                 "'%s' cannot read this special register: mov takes one of the register's size "
                 "(.u32/.s32/.b32 for %%tid.x, .u64 for %%clock64), cvt converts it between "
                 "integer types%s",
                 opc, "");
          continue;
        }
        if (base_is(opc, "cvt")) continue;
      }
      if (raw) {
        /* operands the table's kinds do not cover: their count still has to fit */
        int lo = r->nops - r->nopt;
        if (!r->nalt && (s->nops < lo || s->nops > r->nops)) {
          plB_buf a;
          plB_buf_init(&a);
          if (lo == r->nops)
            plB_buf_printf(&a, "%d", lo);
          else
            plB_buf_printf(&a, "%d to %d", lo, r->nops);
          plB_buf_puts(&a, " operands (");
          plA_put_roles(&a, r->ops, r->nops, r->nopt); /* by role, as everywhere */
          plB_buf_printf(&a, "), got %d", s->nops);
          report(&l, off, "'%s' takes %s", opc, plB_buf_cstr(&a));
          plB_buf_free(&a);
        } else if (!r->nalt && s->nops <= PLA_MAXOPS) {
          /* the immediates beside them are still checked against their operand's type */
          plI_opnd rops[PLA_MAXOPS];
          for (int k = 0; k < s->nops; k++) rops[k] = m->opnds.p[s->ops + k];
          imm_types(&l, m, r, opc, rops, s->nops, off);
        }
        continue;
      }
      /* the operands, with 1.5-style floats as 64-bit float immediates (ptxas reads them so) */
      plI_opnd ops[PLA_MAXOPS];
      int nops = s->nops < PLA_MAXOPS ? s->nops : PLA_MAXOPS;
      for (int k = 0; k < nops; k++) {
        ops[k] = m->opnds.p[s->ops + k];
        if (fl && ops[k].kind == PLO_RAW && is_decimal_float(plI_cstr(m, ops[k].id))) {
          ops[k].kind = PLO_F64;
          ops[k].v = 0;
        }
      }
      l.msg.n = 0;
      if (s->nops > PLA_MAXOPS) {
        report(&l, off, "'%s' takes %s", opc, *r->operands ? r->operands : "no operands");
      } else if (!(need = plI_check_ops(r, m, opc, nops ? ops : NULL, nops, &l.msg))) {
        const char *msg = plB_buf_cstr(&l.msg);
        /* immediates for predicates (wgmma scale-d, mov.pred): legal PTX the table's operand kinds
        ** do not cover yet */
        if (!strstr(msg, "of type .pred, got an immediate")) report(&l, off, "%s%s", msg, "");
      } else if (l.have_t && l.t.version && need > l.t.version) {
        /* the operands fit a form of a later version than the opcode's own (the elemtype values
        ** 13..15 of tensormap.replace: PTX 8.7), or name a special register of one */
        char v[64];
        snprintf(v, sizeof v, "%d.%d (the module declares %d.%d)", need / 10, need % 10,
                 l.t.version / 10, l.t.version % 10);
        report(&l, off, "'%s' with these operands requires PTX ISA %s", opc, v);
      } else {
        imm_types(&l, m, r, opc, ops, nops, off);
      }
      if (base_is(opc, "call")) call_arity(&l, m, ops, nops, off);
    }
  }
  plB_buf_free(&l.msg);
  plB_buf_free(&l.one);
  return l.n;
}

/* ---- the report: each distinct message once ---------------------------------------------------
** A file with thousands of errors repeats a few of them: each distinct message is printed once, at
** its first line, with how many times it occurs and the first lines of the others. Messages are
** told apart in a hash table, so the report costs time linear in the number of errors. */
enum { LINT_LINES = 8 }; /* the lines of a repeated error listed after its first */
typedef struct {
  uint32_t msg, len;
  int line, col, count;
  int lines[LINT_LINES];
} lgroup;
typedef struct {
  PLB_VEC(lgroup) g;
  plB_buf text;         /* the messages, one after another */
  uint32_t *hash, hcap; /* open addressing: group index + 1 */
  int oom;
} lgroups;

static int lg_rehash(lgroups *G) {
  uint32_t cap = G->hcap ? G->hcap * 2 : 256;
  uint32_t *h = calloc(cap, sizeof *h);
  if (!h) return 0;
  for (uint32_t i = 0; i < G->g.n; i++) {
    const lgroup *x = &G->g.p[i];
    uint32_t k = plB_hash(G->text.p + x->msg, x->len) & (cap - 1);
    while (h[k]) k = (k + 1) & (cap - 1);
    h[k] = i + 1;
  }
  free(G->hash);
  G->hash = h;
  G->hcap = cap;
  return 1;
}

static void lg_add(void *ud, int line, int col, const char *msg) {
  lgroups *G = ud;
  if (G->oom) return;
  size_t n = strlen(msg);
  if ((G->g.n + 1) * 2 > G->hcap && !lg_rehash(G)) {
    G->oom = 1;
    return;
  }
  uint32_t k = plB_hash(msg, n) & (G->hcap - 1);
  for (; G->hash[k]; k = (k + 1) & (G->hcap - 1)) {
    lgroup *x = &G->g.p[G->hash[k] - 1];
    if (x->len == n && memcmp(G->text.p + x->msg, msg, n) == 0) {
      if (x->count <= LINT_LINES) x->lines[x->count - 1] = line;
      x->count++;
      return;
    }
  }
  lgroup x = { (uint32_t)G->text.n, (uint32_t)n, line, col, 1, { 0 } };
  plB_buf_add(&G->text, msg, n);
  if (G->text.oom || !plB_vec_push(G->g, x)) {
    G->oom = 1;
    return;
  }
  G->hash[k] = G->g.n;
}

int plP_lint(plI_module *m, const char *file, plB_buf *out) {
  lgroups G;
  memset(&G, 0, sizeof G);
  plB_buf_init(&G.text);
  int n = plP_lint_each(m, lg_add, &G);
  for (uint32_t i = 0; i < G.g.n; i++) {
    const lgroup *x = &G.g.p[i];
    plB_buf_printf(out, "%s:%d:%d: error: ", file, x->line, x->col);
    plB_buf_add(out, G.text.p + x->msg, x->len);
    if (x->count > 1) {
      int listed = x->count - 1 < LINT_LINES ? x->count - 1 : LINT_LINES;
      plB_buf_printf(out, "\n%s:%d: note: the same error %d more time%s, at line%s", file, x->line,
                     x->count - 1, x->count == 2 ? "" : "s", x->count == 2 ? "" : "s");
      for (int k = 0; k < listed; k++) plB_buf_printf(out, "%s %d", k ? "," : "", x->lines[k]);
      if (x->count - 1 > listed) plB_buf_printf(out, " and %d more", x->count - 1 - listed);
    }
    plB_buf_putc(out, '\n');
  }
  if (G.g.n > 1 && (uint32_t)n > G.g.n)
    plB_buf_printf(out, "%s: %d errors, %u distinct\n", file, n, G.g.n);
  if (G.oom) plB_buf_printf(out, "%s: error: out of memory while reporting (%d errors)\n", file, n);
  plB_vec_free(G.g);
  plB_buf_free(&G.text);
  free(G.hash);
  return n;
}
