/* isa.c -- the matcher behind the ISA table: opcode text -> form, and operand checks.
** Patterns are compiled once per context; each distinct opcode text is resolved once, cached. */
#include "isa.h"
#include "ir.h"
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <ctype.h>

/* ---- the table ---------------------------------------------------------------------------- */
typedef struct { const char *name, *alts; } set_def;
typedef struct { const char *pat, *ops; uint16_t ptx, sm; uint16_t flags; } form_def;

static const set_def SETS[] = {
#define PL_SET(name, alts) {#name, alts},
#define PL_FORM(p, o, v, s, f)
#include "isa_table.h"
#undef PL_SET
#undef PL_FORM
};
static const form_def FORMS[] = {
#define PL_SET(name, alts)
#define PL_FORM(p, o, v, s, f) {p, o, v, s, f},
#include "isa_table.h"
#undef PL_SET
#undef PL_FORM
};
#define NSETS ((int)(sizeof SETS / sizeof SETS[0]))
#define NFORMS ((int)(sizeof FORMS / sizeof FORMS[0]))
#define MAXOPS 16
#define MAXTOK 24

int plA_form_count(void) { return NFORMS; }
void plA_form_info(int i, const char **pattern, const char **operands, int *ptx_min, int *sm_min, int *flags) {
  if (i < 0 || i >= NFORMS) { *pattern = *operands = NULL; return; }
  *pattern = FORMS[i].pat; *operands = FORMS[i].ops;
  *ptx_min = FORMS[i].ptx; *sm_min = FORMS[i].sm; *flags = FORMS[i].flags;
}
int plA_set_count(void) { return NSETS; }
void plA_set_info(int i, const char **name, const char **alts) {
  if (i < 0 || i >= NSETS) { *name = *alts = NULL; return; }
  *name = SETS[i].name; *alts = SETS[i].alts;
}

/* ---- compiled forms ----------------------------------------------------------------------- */
typedef struct { uint32_t tok0; uint16_t ntok; } c_alt;            /* tokens in ctx->toks_seq */
typedef struct { uint32_t alt0; uint16_t nalt; uint8_t opt; } c_elem;
typedef struct {
  uint32_t base;            /* token string id of the base name */
  uint32_t elem0; uint16_t nelem;
  uint8_t nops, nopt;
  plA_opspec ops[MAXOPS];
  int bad;                  /* the pattern did not compile (a table bug; reported by tests) */
} c_form;

struct plA_ctx {
  int refs;
  plU_strtab toks;          /* modifier tokens and base names */
  plU_strtab opcodes;       /* opcode texts seen */
  PLU_VEC(uint32_t) seq;    /* token sequences of alternatives */
  PLU_VEC(c_alt) alts;
  PLU_VEC(c_elem) elems;
  c_form *forms;
  PLU_VEC(uint32_t) bybase; /* base token id -> first form index + 1 in `chain` */
  int32_t *chain;           /* next form with the same base, -1 ends */
  plA_res **cache;          /* opcode id -> resolution (NULL: not yet / failed) */
  uint32_t ncache;
};

static const char *set_alts(const char *name, size_t n) {
  for (int i = 0; i < NSETS; i++)
    if (strlen(SETS[i].name) == n && memcmp(SETS[i].name, name, n) == 0) return SETS[i].alts;
  return NULL;
}

/* Alternatives: "a|b|c", each a sequence of .tok and $set. A $set is replaced by each of its
** alternatives in turn (textually, so sets may name sets), and every resulting sequence of
** tokens becomes one alternative of the element. */
typedef struct { uint32_t t[MAXTOK]; int n; } tokseq;

static int add_seq(plA_ctx *c, const char *p, const char *e) {
  c_alt a = {c->seq.n, 0};
  while (p < e) {
    if (*p != '.') return 0;
    const char *q = ++p;
    while (q < e && *q != '.') q++;
    if (q == p || a.ntok >= MAXTOK) return 0;
    uint32_t id = plU_intern(&c->toks, p, (size_t)(q - p));
    if (!id || !plU_vec_push(c->seq, id)) return 0;
    a.ntok++;
    p = q;
  }
  return plU_vec_push(c->alts, a);
}

static int expand_one(plA_ctx *c, const char *p, const char *e, int depth) {
  const char *d = p;
  while (d < e && *d != '$') d++;
  if (d == e) return add_seq(c, p, e);
  if (depth > 8) return 0;
  const char *q = d + 1;
  while (q < e && (isalnum((unsigned char)*q) || *q == '_')) q++;
  const char *alts = set_alts(d + 1, (size_t)(q - d - 1));
  if (!alts) return 0;
  const char *a = alts, *ae = alts + strlen(alts);
  for (;;) {
    const char *b = a;
    while (b < ae && *b != '|') b++;
    char buf[512];
    int k = snprintf(buf, sizeof buf, "%.*s%.*s%.*s", (int)(d - p), p, (int)(b - a), a, (int)(e - q), q);
    if (k < 0 || (size_t)k >= sizeof buf) return 0;
    if (!expand_one(c, buf, buf + k, depth + 1)) return 0;
    if (b == ae) break;
    a = b + 1;
  }
  return 1;
}

static int expand_alts(plA_ctx *c, const char *p, const char *e) {
  for (;;) {
    const char *q = p;
    while (q < e && *q != '|') q++;
    if (!expand_one(c, p, q, 0)) return 0;
    if (q == e) return 1;
    p = q + 1;
  }
}

static int compile_ops(c_form *f, const char *s) {
  int n = 0, opt = 0;
  const char *p = s;
  while (*p == ' ') p++;
  if (!*p) { f->nops = 0; f->nopt = 0; return 1; }
  for (;;) {
    if (n >= MAXOPS) return 0;
    plA_opspec o = {0, 1, PLT_NONE, 0, 0};
    switch (*p++) {
    case 'd': o.kinds = PLA_KREG; o.flags |= PLA_DEST; break;
    case 'a': o.kinds = PLA_KREG | PLA_KIMM; break;
    case 'r': o.kinds = PLA_KREG; break;
    case 'i': o.kinds = PLA_KIMM; break;
    case 'm': o.kinds = PLA_KADDR; o.tsrc = 0; break;
    case 'p': o.kinds = PLA_KREG; o.tsrc = 0; o.type = PLT_PRED; break;
    case 'P': o.kinds = PLA_KREG | PLA_KPAIR; o.tsrc = 0; o.type = PLT_PRED; o.flags |= PLA_DEST; break;
    case 'l': o.kinds = PLA_KLABEL; o.tsrc = 0; break;
    case 'x': o.kinds = PLA_KSYM | PLA_KLABEL; o.tsrc = 0; break;
    case 's': o.kinds = PLA_KREG | PLA_KIMM | PLA_KSREG | PLA_KSYM; break;
    case 'A': o.kinds = PLA_KREG | PLA_KSYM | PLA_KIMM; break; /* register or symbol address value */
    default: return 0;
    }
    for (;;) {
      char ch = *p;
      if (ch == 'v') { o.flags |= PLA_VECV; o.kinds |= PLA_KVEC; p++; }
      else if (ch == 'w') { o.flags |= PLA_RELAXED; p++; }
      else if (ch == '?') { o.flags |= PLA_OPTIONAL; p++; opt = 1; }
      else if (ch == '!') { o.flags |= PLA_NEGOK; p++; }
      else if (ch == '_') { o.kinds |= PLA_KSINK; p++; }
      else if (ch == '[') {
        int k = 0; p++;
        while (isdigit((unsigned char)*p)) k = k * 10 + (*p++ - '0');
        if (*p++ != ']' || k <= 0 || k > 255) return 0;
        o.vec = (uint8_t)k; o.kinds = (uint16_t)((o.kinds & ~PLA_KIMM) | PLA_KVEC);
      } else if (ch == ':') {
        const char *q = ++p;
        while (isalnum((unsigned char)*q) || *q == '*') q++;
        if (q - p == 1 && *p >= '1' && *p <= '6') { o.tsrc = (uint8_t)(*p - '0'); }
        else if (q - p == 1 && *p == '*') { o.tsrc = 0; o.type = PLT_NONE; }
        else {
          int t = plT_from_name(p, (size_t)(q - p));
          if (!t) return 0;
          o.tsrc = 0; o.type = (uint8_t)t;
        }
        p = q;
      } else break;
    }
    if (opt && !(o.flags & PLA_OPTIONAL)) return 0; /* optional operands are trailing */
    f->ops[n++] = o;
    if (opt) f->nopt++;
    while (*p == ' ') p++;
    if (!*p) break;
    if (*p++ != ',') return 0;
    while (*p == ' ') p++;
  }
  f->nops = (uint8_t)n;
  return 1;
}

static int compile_form(plA_ctx *c, int fi) {
  c_form *f = &c->forms[fi];
  const char *p = FORMS[fi].pat;
  const char *q = p;
  memset(f, 0, sizeof *f);
  while (*q && *q != '.' && *q != '{' && *q != '(' && *q != '$') q++;
  f->base = plU_intern(&c->toks, p, (size_t)(q - p));
  if (!f->base) return 0;
  f->elem0 = c->elems.n;
  p = q;
  while (*p) {
    c_elem el = {c->alts.n, 0, 0};
    if (*p == '.' && (p[1] == '(' || p[1] == '{' || p[1] == '$')) p++; /* "mul.(.lo|.hi)" */
    const char *s, *e;
    if (*p == '{' || *p == '(') {
      char close = *p == '{' ? '}' : ')';
      el.opt = *p == '{';
      s = ++p;
      int nest = 0;
      while (*p && (nest || *p != close)) { if (*p == '{' || *p == '(') nest++; if (*p == '}' || *p == ')') nest--; p++; }
      if (!*p) return 0;
      e = p++;
    } else if (*p == '.' || *p == '$') {
      s = p;
      p++;
      if (*s == '$') while (isalnum((unsigned char)*p) || *p == '_') p++;
      else while (*p && *p != '.' && *p != '{' && *p != '(' && *p != '$') p++;
      e = p;
    } else return 0;
    if (!expand_alts(c, s, e)) return 0;
    el.nalt = (uint16_t)(c->alts.n - el.alt0);
    if (!el.nalt || !plU_vec_push(c->elems, el)) return 0;
    f->nelem++;
  }
  return compile_ops(f, FORMS[fi].ops);
}

plA_ctx *plA_new(void) {
  plA_ctx *c = calloc(1, sizeof *c);
  if (!c) return NULL;
  c->refs = 1;
  plU_strtab_init(&c->toks);
  plU_strtab_init(&c->opcodes);
  c->forms = calloc(NFORMS ? NFORMS : 1, sizeof *c->forms);
  c->chain = malloc((NFORMS ? NFORMS : 1) * sizeof *c->chain);
  if (!c->forms || !c->chain) { plA_unref(c); return NULL; }
  for (int i = 0; i < NFORMS; i++) {
    if (!compile_form(c, i)) c->forms[i].bad = 1;
    c->chain[i] = -1;
  }
  /* chain forms by base, keeping table order */
  for (int i = NFORMS - 1; i >= 0; i--) {
    uint32_t b = c->forms[i].base;
    if (!b) continue;
    while (c->bybase.n <= b) if (!plU_vec_push(c->bybase, 0)) { plA_unref(c); return NULL; }
    c->chain[i] = (int32_t)c->bybase.p[b] - 1;
    c->bybase.p[b] = (uint32_t)i + 1;
  }
  return c;
}

void plA_ref(plA_ctx *c) { c->refs++; }
void plA_unref(plA_ctx *c) {
  if (!c || --c->refs > 0) return;
  for (uint32_t i = 0; i < c->ncache; i++) free(c->cache[i]);
  free(c->cache);
  plU_strtab_free(&c->toks); plU_strtab_free(&c->opcodes);
  plU_vec_free(c->seq); plU_vec_free(c->alts); plU_vec_free(c->elems); plU_vec_free(c->bybase);
  free(c->forms); free(c->chain);
  free(c);
}

uint32_t plA_opcode(plA_ctx *c, const char *text, size_t n) { return plU_intern(&c->opcodes, text, n); }
const char *plA_opcode_text(const plA_ctx *c, uint32_t id) { return id && id < c->opcodes.n ? c->opcodes.str[id] : "?"; }
uint32_t plA_opcode_len(const plA_ctx *c, uint32_t id) { return id && id < c->opcodes.n ? c->opcodes.len[id] : 1; }

/* ---- matching ------------------------------------------------------------------------------ */
static int match(const plA_ctx *c, const c_form *f, int ei, const uint32_t *tok, int nt, int ti) {
  if (ei == f->nelem) return ti == nt;
  const c_elem *el = &c->elems.p[f->elem0 + (uint32_t)ei];
  for (uint16_t a = 0; a < el->nalt; a++) {
    const c_alt *al = &c->alts.p[el->alt0 + a];
    if (ti + al->ntok > nt) continue;
    int ok = 1;
    for (uint16_t k = 0; k < al->ntok && ok; k++) ok = c->seq.p[al->tok0 + k] == tok[ti + k];
    if (ok && match(c, f, ei + 1, tok, nt, ti + al->ntok)) return 1;
  }
  return el->opt && match(c, f, ei + 1, tok, nt, ti);
}

static void list_forms(const plA_ctx *c, uint32_t base, plU_buf *err) {
  int shown = 0;
  for (int32_t i = (int32_t)c->bybase.p[base] - 1; i >= 0; i = c->chain[i]) {
    if (shown == 6) { plU_buf_puts(err, " ..."); break; }
    plU_buf_puts(err, shown ? " | " : "; known forms: ");
    plU_buf_puts(err, FORMS[i].pat);
    shown++;
  }
}

const plA_res *plA_resolve(plA_ctx *c, uint32_t id, plU_buf *err) {
  if (id == 0 || id >= c->opcodes.n) { if (err) plU_buf_puts(err, "bad opcode id"); return NULL; }
  if (id < c->ncache && c->cache[id]) return c->cache[id];
  const char *text = c->opcodes.str[id];
  size_t len = c->opcodes.len[id];
  uint32_t tok[MAXTOK];
  int nt = 0;
  const char *p = text, *e = text + len;
  const char *q = p;
  while (q < e && *q != '.') q++;
  uint32_t base = plU_find(&c->toks, p, (size_t)(q - p));
  if (!base || base >= c->bybase.n || !c->bybase.p[base]) {
    if (err) plU_buf_printf(err, "unknown instruction '%.*s'", (int)(q - p), p);
    return NULL;
  }
  while (q < e) {
    p = ++q;
    while (q < e && *q != '.') q++;
    if (nt == MAXTOK) { if (err) plU_buf_printf(err, "too many modifiers in '%s'", text); return NULL; }
    uint32_t t = plU_find(&c->toks, p, (size_t)(q - p));
    if (!t) {
      if (err) {
        plU_buf_printf(err, "unknown modifier '.%.*s' in '%s'", (int)(q - p), p, text);
        list_forms(c, base, err);
      }
      return NULL;
    }
    tok[nt++] = t;
  }
  int fi = -1, alts[4], nalt = 0;
  for (int32_t i = (int32_t)c->bybase.p[base] - 1; i >= 0; i = c->chain[i])
    if (!c->forms[i].bad && match(c, &c->forms[i], 0, tok, nt, 0)) {
      if (fi < 0) fi = i;
      else if (nalt < 4 && strcmp(FORMS[i].pat, FORMS[fi].pat) == 0) alts[nalt++] = i;
    }
  if (fi < 0) {
    if (err) { plU_buf_printf(err, "'%s' is not a valid form of %s", text, c->toks.str[base]); list_forms(c, base, err); }
    return NULL;
  }
  plA_res *r = calloc(1, sizeof *r);
  if (!r) { if (err) plU_buf_puts(err, "out of memory"); return NULL; }
  r->form = fi;
  for (int i = 0; i < nt; i++) {
    const char *ts = c->toks.str[tok[i]];
    int t = plT_from_name(ts, c->toks.len[tok[i]]);
    if (t && r->ntypes < 6) r->types[r->ntypes++] = (uint8_t)t;
    if (ts[0] == 'v' && (ts[1] == '2' || ts[1] == '4' || ts[1] == '8') && !ts[2]) r->vec = (uint8_t)(ts[1] - '0');
  }
  r->ptx_min = FORMS[fi].ptx; r->sm_min = FORMS[fi].sm; r->flags = FORMS[fi].flags;
  r->nops = c->forms[fi].nops; r->nopt = c->forms[fi].nopt;
  r->ops = c->forms[fi].ops;
  r->pattern = FORMS[fi].pat; r->operands = FORMS[fi].ops;
  for (int i = 0; i < nalt; i++) {
    r->alt[i].ops = c->forms[alts[i]].ops; r->alt[i].nops = c->forms[alts[i]].nops;
    r->alt[i].nopt = c->forms[alts[i]].nopt; r->alt[i].operands = FORMS[alts[i]].ops;
  }
  r->nalt = (uint8_t)nalt;
  if (id >= c->ncache) {
    uint32_t n = c->ncache ? c->ncache : 64;
    while (n <= id) n *= 2;
    plA_res **nc = realloc(c->cache, n * sizeof *nc);
    if (!nc) { free(r); if (err) plU_buf_puts(err, "out of memory"); return NULL; }
    memset(nc + c->ncache, 0, (n - c->ncache) * sizeof *nc);
    c->cache = nc; c->ncache = n;
  }
  c->cache[id] = r;
  return r;
}

int plA_optype(const plA_res *r, int i) {
  if (i < 0 || i >= r->nops) return PLT_NONE;
  const plA_opspec *o = &r->ops[i];
  if (o->tsrc == 0) return o->type;
  if (o->tsrc <= r->ntypes) return r->types[o->tsrc - 1];
  return PLT_NONE;
}

/* ---- targets ------------------------------------------------------------------------------- */
int plA_target_parse(const char *s, plA_target *t) {
  memset(t, 0, sizeof *t);
  if (strncmp(s, "sm_", 3) != 0 && strncmp(s, "compute_", 8) != 0) return 0;
  const char *p = s + (s[0] == 's' ? 3 : 8);
  int sm = 0, nd = 0;
  while (isdigit((unsigned char)*p) && nd < 4) sm = sm * 10 + (*p++ - '0'), nd++;
  if (nd < 2) return 0;
  if (*p == 'a' || *p == 'f') { t->arch_a = *p == 'a' ? 1 : 2; p++; }
  if (*p) return 0;
  t->sm = sm;
  static const int known[] = {50, 52, 53, 60, 61, 62, 70, 72, 75, 80, 86, 87, 88, 89, 90, 100, 101, 103, 110, 120, 121};
  for (size_t i = 0; i < sizeof known / sizeof known[0]; i++)
    if (known[i] == sm) return 1;
  return 0;
}

int plA_target_min_version(const plA_target *t) {
  int v;
  switch (t->sm) {
  case 50: case 52: case 53: v = 40; break;
  case 60: case 61: case 62: v = 50; break;
  case 70: v = 60; break;
  case 72: v = 61; break;
  case 75: v = 63; break;
  case 80: v = 70; break;
  case 86: v = 71; break;
  case 87: v = 74; break;
  case 88: v = 90; break;
  case 89: case 90: v = 78; break;
  case 100: case 101: v = 86; break;
  case 103: v = 88; break;
  case 110: v = 90; break;
  case 120: v = 87; break;
  case 121: v = 88; break;
  default: v = 90;
  }
  if (t->arch_a == 1 && t->sm == 90 && v < 80) v = 80;
  if (t->arch_a == 2 && v < 88) v = 88;
  return v;
}

int plA_check_target(const plA_res *r, const char *opc, const plA_target *t, int check_version, plU_buf *err) {
  if (t->sm < r->sm_min) {
    if (err) plU_buf_printf(err, "'%s' requires sm_%d or later (the target is sm_%d%s)", opc, r->sm_min, t->sm, t->arch_a == 1 ? "a" : "");
    return 0;
  }
  if ((r->flags & PLA_ARCH_A) && !(t->arch_a == 1 && t->sm == r->sm_min)) {
    if (err) plU_buf_printf(err, "'%s' exists only on sm_%da (the target is sm_%d%s)", opc, r->sm_min, t->sm, t->arch_a == 1 ? "a" : "");
    return 0;
  }
  if ((r->flags & PLA_FAMILY_A) && !(t->arch_a == 1 && (t->sm / 10 == r->sm_min / 10 || (r->sm_min == 100 && t->sm == 110)))) {
    if (err) plU_buf_printf(err, "'%s' exists only on the arch-specific sm_%da family (the target is sm_%d%s)", opc, r->sm_min, t->sm, t->arch_a == 1 ? "a" : "");
    return 0;
  }
  if (check_version && t->version && t->version < r->ptx_min) {
    if (err) plU_buf_printf(err, "'%s' requires PTX ISA %d.%d (the module declares %d.%d)", opc, r->ptx_min / 10, r->ptx_min % 10, t->version / 10, t->version % 10);
    return 0;
  }
  return 1;
}

/* ---- operand checks ------------------------------------------------------------------------ */
static const char *kindname(int k) {
  switch (k) {
  case PLO_REG: return "a register"; case PLO_IMM: case PLO_F32: case PLO_F64: return "an immediate";
  case PLO_SYM: return "a symbol"; case PLO_ADDR: return "an address"; case PLO_VEC: return "a vector";
  case PLO_SINK: return "'_'"; case PLO_PAIR: return "a predicate pair"; case PLO_LABEL: return "a label";
  case PLO_SREG: return "a special register"; default: return "an operand";
  }
}
static const char *expected_kinds(uint16_t k) {
  if (k & PLA_KADDR) return "an address [...]";
  if (k & PLA_KLABEL) return (k & PLA_KSYM) ? "a label or symbol" : "a label";
  if ((k & PLA_KVEC) && !(k & (PLA_KIMM))) return "a register vector";
  if ((k & PLA_KREG) && (k & PLA_KIMM)) return "a register or immediate";
  if (k & PLA_KREG) return "a register";
  if (k & PLA_KIMM) return "an immediate";
  return "something else";
}

static int check_reg(const plI_module *m, uint32_t id, int want, int relaxed, int opi, const char *opc, plU_buf *err) {
  if (id == 0 || id > m->regs.n) { if (err) plU_buf_printf(err, "operand %d of '%s': unknown register", opi, opc); return 0; }
  int have = m->regs.p[id - 1].type;
  if (want == have || want == PLT_NONE) return 1;
  int ok = want == PLT_PRED ? have == PLT_PRED : plT_compatible(want, have, relaxed);
  if (!ok && err) {
    plU_buf_printf(err, "operand %d of '%s': expected a .%s register, got ", opi, opc, plT_info_tab[want].name);
    plI_regname(m, id, err);
    plU_buf_printf(err, " (.%s)", have < PLT__COUNT ? plT_info_tab[have].name : "?");
  }
  return ok;
}

static int check_ops_one(const plA_res *r, const plI_module *m, const char *opc, const plI_opnd *ops, int n, plU_buf *err) {
  int lo = r->nops - r->nopt;
  if (n < lo || n > r->nops) {
    if (err) {
      if (lo == r->nops) plU_buf_printf(err, "'%s' takes %d operand%s (%s), got %d", opc, lo, lo == 1 ? "" : "s", *r->operands ? r->operands : "none", n);
      else plU_buf_printf(err, "'%s' takes %d to %d operands (%s), got %d", opc, lo, r->nops, r->operands, n);
    }
    return 0;
  }
  for (int i = 0; i < n; i++) {
    const plA_opspec *s = &r->ops[i];
    const plI_opnd *o = &ops[i];
    int want = plA_optype(r, i), relaxed = (s->flags & PLA_RELAXED) != 0;
    int k = o->kind, opi = i + 1;
    if ((o->flags & PLOF_NEG) && !(s->flags & PLA_NEGOK) && k != PLO_ADDR) {
      if (err) plU_buf_printf(err, "operand %d of '%s' cannot be negated", opi, opc);
      return 0;
    }
    int wantvec = (s->flags & PLA_VECV) ? r->vec : s->vec;
    switch (k) {
    case PLO_REG:
      if (!(s->kinds & PLA_KREG) || wantvec > 1) goto badkind;
      if (!check_reg(m, o->id, want, relaxed, opi, opc, err)) return 0;
      break;
    case PLO_VEC:
      if (!(s->kinds & PLA_KVEC) || !wantvec) goto badkind;
      if (o->n != wantvec) {
        if (err) plU_buf_printf(err, "operand %d of '%s': expected a vector of %d registers, got %d", opi, opc, wantvec, o->n);
        return 0;
      }
      for (uint16_t j = 0; j < o->n; j++) {
        const plI_opnd *e = &m->opnds.p[o->id + j];
        if (e->kind == PLO_SINK && (s->kinds & PLA_KSINK)) continue;
        if (e->kind == PLO_IMM || e->kind == PLO_F32 || e->kind == PLO_F64) {
          if (!(s->flags & PLA_DEST)) continue; /* st.v4 [a], {%r1, 0, ...} */
        }
        if (e->kind != PLO_REG) {
          if (err) plU_buf_printf(err, "operand %d of '%s': element %d of the vector is %s, expected a register", opi, opc, j + 1, kindname(e->kind));
          return 0;
        }
        if (!check_reg(m, e->id, want, relaxed, opi, opc, err)) return 0;
      }
      break;
    case PLO_IMM: case PLO_F32: case PLO_F64:
      if (!(s->kinds & PLA_KIMM) || wantvec > 1) goto badkind;
      if (want == PLT_PRED) goto badkind;
      break;
    case PLO_ADDR:
      if (!(s->kinds & PLA_KADDR)) goto badkind;
      if (o->flags & PLOF_BASE_REG) {
        if (o->id == 0 || o->id > m->regs.n) goto badkind;
        int t = m->regs.p[o->id - 1].type;
        const plT_info *ti = &plT_info_tab[t < PLT__COUNT ? t : 0];
        if (!((ti->bits == 32 || ti->bits == 64) && (ti->cls == PLT_CB || ti->cls == PLT_CU || ti->cls == PLT_CS))) {
          if (err) {
            plU_buf_printf(err, "operand %d of '%s': an address register must be a 32- or 64-bit integer, got ", opi, opc);
            plI_regname(m, o->id, err);
            plU_buf_printf(err, " (.%s)", ti->name);
          }
          return 0;
        }
      }
      break;
    case PLO_SYM: if (!(s->kinds & PLA_KSYM)) goto badkind; break;
    case PLO_LABEL: if (!(s->kinds & PLA_KLABEL)) goto badkind; break;
    case PLO_SREG:
      if (!(s->kinds & PLA_KSREG)) goto badkind;
      if (want != PLT_NONE && o->n && !plT_compatible(want, o->n, 1) && !plT_compatible(o->n, want, 1)) {
        if (err) plU_buf_printf(err, "operand %d of '%s': %%%s is .%s", opi, opc, m->strs.str[o->id], plT_info_tab[o->n].name);
        return 0;
      }
      break;
    case PLO_SINK: if (!(s->kinds & PLA_KSINK)) goto badkind; break;
    case PLO_PAIR:
      if (!(s->kinds & PLA_KPAIR)) goto badkind;
      for (int j = 0; j < 2; j++) {
        const plI_opnd *e = &m->opnds.p[o->id + (uint32_t)j];
        if (e->kind == PLO_SINK) continue;
        if (e->kind != PLO_REG || !check_reg(m, e->id, PLT_PRED, 0, opi, opc, err)) goto badkind;
      }
      break;
    case PLO_RAW: break;
    default: goto badkind;
    }
    continue;
  badkind:
    if (err) plU_buf_printf(err, "operand %d of '%s': expected %s%s%s, got %s", opi, opc,
                            wantvec > 1 ? "a vector of registers" : expected_kinds(s->kinds),
                            want != PLT_NONE ? " of type ." : "", want != PLT_NONE ? plT_info_tab[want].name : "",
                            kindname(k));
    return 0;
  }
  return 1;
}

int plA_check_ops(const plA_res *r, const plI_module *m, const char *opc, const plI_opnd *ops, int n, plU_buf *err) {
  if (!r->nalt) return check_ops_one(r, m, opc, ops, n, err);
  if (check_ops_one(r, m, opc, ops, n, NULL)) return 1;
  for (int i = 0; i < r->nalt; i++) {
    plA_res a = *r;
    a.ops = r->alt[i].ops; a.nops = r->alt[i].nops; a.nopt = r->alt[i].nopt; a.operands = r->alt[i].operands;
    if (check_ops_one(&a, m, opc, ops, n, NULL)) return 1;
  }
  if (err) {
    check_ops_one(r, m, opc, ops, n, err);
    plU_buf_puts(err, "; other forms take (");
    for (int i = 0; i < r->nalt; i++) { if (i) plU_buf_puts(err, "), ("); plU_buf_puts(err, r->alt[i].operands); }
    plU_buf_puts(err, ")");
  }
  return 0;
}
