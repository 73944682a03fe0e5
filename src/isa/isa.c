/* isa.c -- the matcher behind the ISA table: opcode text -> form, and operand checks.
** Patterns are compiled once per context; each distinct opcode text is resolved once, cached. */
#include "isa.h"
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <ctype.h>

/* ---- the table ---------------------------------------------------------------------------- */
typedef struct {
  const char *name, *alts;
} set_def;
typedef struct {
  const char *pat, *ops;
  uint16_t ptx, sm;
  uint16_t flags;
  uint16_t op;
} form_def;
typedef struct {
  const char *base, *tok;
  uint16_t ptx, sm;
} mod_def;
typedef struct {
  const char *name;
  uint8_t type;
  uint16_t ptx, sm;
  const char *parts;
} sreg_def;

static const set_def SETS[] = {
#define PL_SET(name, alts) { #name, alts },
#define PL_MOD(b, tok, v, s)
#define PL_SREG(n, t, v, s, x)
#define PL_FORM(p, o, v, s, f, op)
#define PL_NAME(p, n)
#define PL_ORDER(c, t)
#define PL_ROLES(p, o, r)
#include "isa_table.h"
#undef PL_SET
#undef PL_MOD
#undef PL_SREG
#undef PL_FORM
#undef PL_NAME
#undef PL_ORDER
#undef PL_ROLES
};
static const mod_def MODS[] = {
#define PL_SET(name, alts)
#define PL_MOD(b, tok, v, s) { b, tok, v, s },
#define PL_SREG(n, t, v, s, x)
#define PL_FORM(p, o, v, s, f, op)
#define PL_NAME(p, n)
#define PL_ORDER(c, t)
#define PL_ROLES(p, o, r)
#include "isa_table.h"
#undef PL_SET
#undef PL_MOD
#undef PL_SREG
#undef PL_FORM
#undef PL_NAME
#undef PL_ORDER
#undef PL_ROLES
};
static const sreg_def SREGS[] = {
#define PL_SET(name, alts)
#define PL_MOD(b, tok, v, s)
#define PL_SREG(n, t, v, s, x) { n, PLT_##t, v, s, x },
#define PL_FORM(p, o, v, s, f, op)
#define PL_NAME(p, n)
#define PL_ORDER(c, t)
#define PL_ROLES(p, o, r)
#include "isa_table.h"
#undef PL_SET
#undef PL_MOD
#undef PL_SREG
#undef PL_FORM
#undef PL_NAME
#undef PL_ORDER
#undef PL_ROLES
};
static const form_def FORMS[] = {
#define PL_SET(name, alts)
#define PL_MOD(b, tok, v, s)
#define PL_SREG(n, t, v, s, x)
#define PL_FORM(p, o, v, s, f, op) { p, o, v, s, f, PLA_OP_##op },
#define PL_NAME(p, n)
#define PL_ORDER(c, t)
#define PL_ROLES(p, o, r)
#include "isa_table.h"
#undef PL_SET
#undef PL_MOD
#undef PL_SREG
#undef PL_FORM
#undef PL_NAME
#undef PL_ORDER
#undef PL_ROLES
};
/* the words ptxas reads as one name, the classes of modifiers that keep their order, the names
** of operands (isa_table.h: PL_NAME, PL_ORDER, PL_ROLES) */
typedef struct {
  const char *prefix, *name;
} name_def;
typedef struct {
  const char *cls, *toks;
} order_def;
typedef struct {
  const char *prefix, *ops, *roles;
} roles_def;
#define PL_SET(name, alts)
#define PL_MOD(b, tok, v, s)
#define PL_SREG(n, t, v, s, x)
#define PL_FORM(p, o, v, s, f, op)
#define PL_ORDER(c, t)
#define PL_ROLES(p, o, r)
static const name_def NAMES[] = {
#define PL_NAME(p, n) { p, n },
#include "isa_table.h"
#undef PL_NAME
  { NULL, NULL }
};
#define PL_NAME(p, n)
#undef PL_ORDER
#define PL_ORDER(c, t) { #c, t },
static const order_def ORDERS[] = {
#include "isa_table.h"
  { NULL, NULL }
};
#undef PL_ORDER
#define PL_ORDER(c, t)
#undef PL_ROLES
#define PL_ROLES(p, o, r) { p, o, r },
static const roles_def ROLES[] = {
#include "isa_table.h"
  { NULL, NULL, NULL }
};
#undef PL_SET
#undef PL_MOD
#undef PL_SREG
#undef PL_FORM
#undef PL_NAME
#undef PL_ORDER
#undef PL_ROLES
#define NSETS  ((int)(sizeof SETS / sizeof SETS[0]))
#define NFORMS ((int)(sizeof FORMS / sizeof FORMS[0]))
#define NMODS  ((int)(sizeof MODS / sizeof MODS[0]))
#define NSREGS ((int)(sizeof SREGS / sizeof SREGS[0]))
#define MAXOPS PLA_MAXOPS
#define MAXTOK 24

int plA_form_count(void) {
  return NFORMS;
}
void plA_form_info(int i, const char **pattern, const char **operands, int *ptx_min, int *sm_min,
                   int *flags) {
  if (i < 0 || i >= NFORMS) {
    *pattern = *operands = NULL;
    return;
  }
  *pattern = FORMS[i].pat;
  *operands = FORMS[i].ops;
  *ptx_min = FORMS[i].ptx;
  *sm_min = FORMS[i].sm;
  *flags = FORMS[i].flags;
}
int plA_mod_count(void) {
  return NMODS;
}
void plA_mod_info(int i, const char **base, const char **tok, int *ptx_min, int *sm_min) {
  if (i < 0 || i >= NMODS) {
    *base = *tok = NULL;
    return;
  }
  *base = MODS[i].base;
  *tok = MODS[i].tok;
  *ptx_min = MODS[i].ptx;
  *sm_min = MODS[i].sm;
}
/* a special register by name ("tid.x", "envreg3", "clock64"); NULL if PTX has none of that name */
static const sreg_def *find_sreg(const char *name) {
  for (int i = 0; i < NSREGS; i++) {
    const sreg_def *r = &SREGS[i];
    size_t n = strlen(r->name);
    if (strncmp(name, r->name, n) != 0) continue;
    const char *rest = name + n;
    if (!r->parts[0]) {
      if (!*rest) return r;
      continue;
    }
    /* .x .y .z, and .w of the .v4 (ptxas reads 0 there) */
    if (strcmp(r->parts, "xyzw") == 0) {
      if (rest[0] == '.' && rest[1] && strchr("xyzw", rest[1]) && !rest[2]) return r;
      continue;
    }
    int lo = 0, hi = 0, v = 0, nd = 0; /* "0-7" (then a suffix, "0-7_64"): a number in the range */
    if (sscanf(r->parts, "%d-%d", &lo, &hi) != 2) continue;
    const char *suffix = strchr(r->parts, '-') + 1;
    while (isdigit((unsigned char)*suffix)) suffix++;
    while (isdigit((unsigned char)*rest) && nd < 3) v = v * 10 + (*rest++ - '0'), nd++;
    if (nd && strcmp(rest, suffix) == 0 && v >= lo && v <= hi && !(nd > 1 && name[n] == '0'))
      return r;
  }
  return NULL;
}

int plA_sreg(const char *name, int *type, int *ptx_min, int *sm_min) {
  const sreg_def *r = find_sreg(name);
  if (!r) return 0;
  if (type) *type = r->type;
  if (ptx_min) *ptx_min = r->ptx;
  if (sm_min) *sm_min = r->sm;
  return 1;
}
int plA_sreg_count(void) {
  return NSREGS;
}
void plA_sreg_info(int i, const char **name, int *type, int *ptx_min, int *sm_min,
                   const char **parts) {
  if (i < 0 || i >= NSREGS) {
    *name = *parts = NULL;
    return;
  }
  *name = SREGS[i].name;
  *type = SREGS[i].type;
  *ptx_min = SREGS[i].ptx;
  *sm_min = SREGS[i].sm;
  *parts = SREGS[i].parts;
}

int plA_set_count(void) {
  return NSETS;
}
void plA_set_info(int i, const char **name, const char **alts) {
  if (i < 0 || i >= NSETS) {
    *name = *alts = NULL;
    return;
  }
  *name = SETS[i].name;
  *alts = SETS[i].alts;
}

/* ---- compiled forms ----------------------------------------------------------------------- */
typedef struct {
  uint32_t tok0;
  uint16_t ntok;
} c_alt; /* tokens in ctx->toks_seq */
typedef struct {
  uint32_t alt0;
  uint16_t nalt;
  uint8_t opt;
} c_elem;
/* a PL_NAME row: base, the prefix's words, and how many of them are the name */
typedef struct {
  uint32_t base;
  uint32_t tok[MAXTOK];
  uint8_t ntok, nname;
} c_name;
#define NCLS 8 /* order classes: 0 free, 1 types, then the PL_ORDER classes */

typedef struct {
  uint32_t base; /* token string id of the base name */
  uint32_t elem0;
  uint16_t nelem;
  uint8_t nops, nopt;
  plA_opspec ops[MAXOPS];
  int bad; /* the pattern did not compile (a table bug; reported by tests) */
} c_form;

/* the numbers of an immediate's value constraint (plA_opspec.ival) */
typedef plA_ival c_ival;

struct plA_ctx {
  int refs;
  PLB_VEC(c_ival) ivals; /* value constraints of the forms' operands */
  plB_strtab toks;       /* modifier tokens and base names */
  plB_strtab opcodes;    /* opcode texts seen */
  PLB_VEC(uint32_t) seq; /* token sequences of alternatives */
  PLB_VEC(c_alt) alts;
  PLB_VEC(c_elem) elems;
  c_form *forms;
  PLB_VEC(uint32_t) bybase;   /* base token id -> first form index + 1 in `chain` */
  PLB_VEC(uint32_t) condtoks; /* token lists of conditional operands, each ended by 0 */
  int32_t *chain;             /* next form with the same base, -1 ends */
  plA_res **cache;            /* opcode id -> resolution (NULL: not yet / failed) */
  /* token ids of each PL_MOD (base 0: any) */
  uint32_t modtok[NMODS ? NMODS : 1], modbase[NMODS ? NMODS : 1];
  /* a dotted base ("cp.async.ca"): the words after the first, matched against the text's first
  ** modifiers in the form's order */
  uint32_t modpre[NMODS ? NMODS : 1][3];
  uint8_t modnpre[NMODS ? NMODS : 1];
  uint32_t ncache;
  char **fail;     /* opcode id -> why it resolves to no form (FAIL_UNSAID: not said) */
  uint8_t *tokcls; /* token id -> its order class (0: free to stand anywhere; 1: a type) */
  uint32_t ntokcls;
  int badnames;          /* PL_NAME rows whose words the table does not have (table bugs) */
  PLB_VEC(c_name) names; /* PL_NAME rows, compiled */
  plB_strtab roles;      /* operand role names (PL_ROLES and the defaults) */
};

static const char *set_alts(const char *name, size_t n) {
  for (int i = 0; i < NSETS; i++)
    if (strlen(SETS[i].name) == n && memcmp(SETS[i].name, name, n) == 0) return SETS[i].alts;
  return NULL;
}

/* Alternatives: "a|b|c", each a sequence of .tok and $set. A $set is replaced by each of its
** alternatives in turn (textually, so sets may name sets), and every resulting sequence of
** tokens becomes one alternative of the element. */
typedef struct {
  uint32_t t[MAXTOK];
  int n;
} tokseq;

static int add_seq(plA_ctx *c, const char *p, const char *e) {
  c_alt a = { c->seq.n, 0 };
  while (p < e) {
    if (*p != '.') return 0;
    const char *q = ++p;
    while (q < e && *q != '.') q++;
    if (q == p || a.ntok >= MAXTOK) return 0;
    uint32_t id = plB_intern(&c->toks, p, (size_t)(q - p));
    if (!id || !plB_vec_push(c->seq, id)) return 0;
    a.ntok++;
    p = q;
  }
  return plB_vec_push(c->alts, a);
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
    int k = snprintf(buf, sizeof buf, "%.*s%.*s%.*s", (int)(d - p), p, (int)(b - a), a,
                     (int)(e - q), q);
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

/* a decimal number, optionally negative, of at most 10 digits; 0 when there is none */
static int read_num(const char **pp, int64_t *v) {
  const char *p = *pp;
  int neg = *p == '-', nd = 0;
  if (neg) p++;
  int64_t k = 0;
  while (isdigit((unsigned char)*p) && nd < 10) k = k * 10 + (*p++ - '0'), nd++;
  if (!nd || isdigit((unsigned char)*p)) return 0;
  *v = neg ? -k : k;
  *pp = p;
  return 1;
}

/* one value constraint at *pp ('%', '^', '@' or '~' and its numbers), added to the operand's;
** an operand's constraints combine (%16^1048560: a multiple of 16, 0 to 1048560) */
static int compile_ival(plA_ctx *c, plA_opspec *o, const char **pp) {
  const char *p = *pp;
  char ch = *p++;
  if (!o->ival) {
    c_ival z;
    memset(&z, 0, sizeof z);
    if (!plB_vec_push(c->ivals, z) || c->ivals.n > 65535) return 0;
    o->ival = (uint16_t)c->ivals.n;
  }
  c_ival *iv = &c->ivals.p[o->ival - 1];
  int64_t k;
  if (ch == '^' && *p == '<') { /* ^<: at most the immediate before it */
    if (o->ikind & PLA_IV_LEPREV) return 0;
    o->ikind |= PLA_IV_LEPREV;
    *pp = p + 1;
    return 1;
  }
  if (ch == '%') { /* %K: a multiple of K */
    if ((o->ikind & PLA_IV_MULT) || !read_num(&p, &k) || k <= 0 || k > (1 << 30)) return 0;
    o->ikind |= PLA_IV_MULT;
    iv->mult = (uint32_t)k;
  } else if (ch == '^') { /* ^N: 0 to N; ^L..N: L to N */
    if ((o->ikind & PLA_IV_RANGE) || !read_num(&p, &k)) return 0;
    iv->lo = 0;
    iv->hi = k;
    if (p[0] == '.' && p[1] == '.') {
      p += 2;
      iv->lo = k;
      if (!read_num(&p, &iv->hi)) return 0;
    }
    if (iv->lo > iv->hi) return 0;
    o->ikind |= PLA_IV_RANGE;
  } else { /* @a/b/c sizes (powers of two), ~a/b/c values */
    if (o->ikind & (PLA_IV_SET | PLA_IV_SIZES)) return 0;
    for (;;) {
      if (iv->nvals >= PLA_MAXIVALS || !read_num(&p, &k) || k < INT32_MIN || k > INT32_MAX)
        return 0;
      if (ch == '@' && (k <= 0 || (k & (k - 1)))) return 0;
      iv->vals[iv->nvals++] = (int32_t)k;
      if (*p != '/') break;
      p++;
    }
    o->ikind |= ch == '@' ? PLA_IV_SIZES : PLA_IV_SET;
  }
  *pp = p;
  return 1;
}

/* Operands: see the header of isa_table.h. Optional operands may stand anywhere; when fewer
** operands are given, the last optional ones are the ones left out (bar.red d, a{, b}, c).
** A conditional operand (<.tok>) is there exactly when the opcode has .tok; resolution drops the
** absent ones, so the checks below never see them. */
static int compile_ops(plA_ctx *c, c_form *f, const char *s) {
  int n = 0;
  const char *p = s;
  while (*p == ' ') p++;
  if (!*p) {
    f->nops = 0;
    f->nopt = 0;
    return 1;
  }
  for (;;) {
    if (n >= MAXOPS) return 0;
    plA_opspec o = { 0, 1, PLT_NONE, 0, 0, 0, 0, 0, 0, 0, NULL };
    switch (*p++) {
    case 'd':
      o.kinds = PLA_KREG;
      o.flags |= PLA_DEST;
      break;
    case 'a': o.kinds = PLA_KREG | PLA_KIMM; break;
    case 'r': o.kinds = PLA_KREG; break;
    case 'i': o.kinds = PLA_KIMM; break;
    case 'm':
      o.kinds = PLA_KADDR;
      o.tsrc = 0;
      break;
    case 'p':
      o.kinds = PLA_KREG;
      o.tsrc = 0;
      o.type = PLT_PRED;
      break;
    case 'P':
      o.kinds = PLA_KREG | PLA_KPAIR;
      o.tsrc = 0;
      o.type = PLT_PRED;
      o.flags |= PLA_DEST;
      break;
    case 'l':
      o.kinds = PLA_KLABEL;
      o.tsrc = 0;
      break;
    case 'x':
      o.kinds = PLA_KSYM | PLA_KLABEL;
      o.tsrc = 0;
      break;
    case 's': o.kinds = PLA_KREG | PLA_KIMM | PLA_KSREG | PLA_KSYM; break;
    /* register or symbol address value */
    case 'A': o.kinds = PLA_KREG | PLA_KSYM | PLA_KIMM; break;
    case '_':
      o.kinds = PLA_KSINK;
      o.tsrc = 0;
      o.flags |= PLA_DEST;
      break; /* the sink only */
    /* a function's name (call) */
    case 'F':
      o.kinds = PLA_KSYM;
      o.tsrc = 0;
      break;
    /* [tmap, {c, ...}]: its type the coordinates' */
    case 'T': o.kinds = PLA_KTADDR; break;
    /* (d, ...): call's results */
    case 'R':
      o.kinds = PLA_KLIST;
      o.tsrc = 0;
      o.flags |= PLA_DEST;
      break;
    /* (a, ...): call's arguments */
    case 'L':
      o.kinds = PLA_KLIST;
      o.tsrc = 0;
      break;
    default: return 0;
    }
    for (;;) {
      char ch = *p;
      if (ch == 'v') {
        o.flags |= PLA_VECV;
        o.kinds |= PLA_KVEC;
        p++;
      } else if (ch == 'w') {
        o.flags |= PLA_RELAXED;
        p++;
      } else if (ch == '?') {
        o.flags |= PLA_OPTIONAL;
        p++;
      } else if (ch == '!') {
        o.flags |= PLA_NEGOK;
        p++;
      } else if (ch == '_') {
        o.kinds |= PLA_KSINK;
        p++;
      } else if (ch == '>') { /* >: an address the instruction writes */
        if (!(o.kinds & PLA_KADDR)) return 0;
        o.flags |= PLA_WRITE;
        p++;
      } else if (ch == 'n') { /* n: a generic address a 32-bit register may give */
        if (!(o.kinds & PLA_KADDR)) return 0;
        o.flags |= PLA_ADDR32;
        p++;
      } else if (ch == '#') { /* #: an address through a register, never a variable */
        if (!(o.kinds & PLA_KADDR)) return 0;
        o.flags |= PLA_REGADDR;
        p++;
      } else if (ch == 'g') { /* g, g2, gS, gG: an address in a state space */
        if (!(o.kinds & PLA_KADDR)) return 0;
        o.flags |= PLA_SPACE;
        p++;
        if (*p == '2') {
          o.gspace = PLA_G_SECOND;
          p++;
        } else if (*p == 'S') {
          o.gspace = PLA_G_SHARED;
          p++;
        } else if (*p == 'G') {
          o.gspace = PLA_G_GLOBAL;
          p++;
        }
      } else if (ch == '%' || ch == '^' || ch == '@' || ch == '~') {
        /* an immediate's value: %K, ^N, ^L..N, ^<, @a/b/c, ~a/b/c (see isa_table.h) */
        if (!compile_ival(c, &o, &p)) return 0;
      } else if (ch == '|') {                                    /* d|p: with a predicate */
        if (o.kinds & PLA_KPAIR) o.kinds &= (uint16_t)~PLA_KREG; /* a second '|': a pair only */
        o.kinds |= PLA_KPAIR;
        p++;
      }
      /* <.tok> or <$set>: iff the opcode has .tok (a token of $set) */
      else if (ch == '<') {
        const char *q = ++p;
        while (*q && *q != '>') q++;
        if (*q != '>' || q - p < 2) return 0;
        o.cond = c->condtoks.n + 1; /* a 0-terminated list of token ids in condtoks */
        size_t before = c->alts.n;
        if (!expand_alts(c, p, q)) return 0;
        for (size_t k = before; k < c->alts.n; k++) {
          if (c->alts.p[k].ntok != 1) return 0; /* single modifiers only */
          if (!plB_vec_push(c->condtoks, c->seq.p[c->alts.p[k].tok0])) return 0;
        }
        c->alts.n = (uint32_t)before;
        if (!plB_vec_push(c->condtoks, 0)) return 0;
        p = q + 1;
      } else if (ch == '[') {
        int k = 0;
        p++;
        /* [x] or [x*K]: N or N*K registers, N from .xN */
        if (*p == 'x') {
          o.flags |= PLA_VECX;
          p++;
          if (*p == '*') {
            p++;
            while (isdigit((unsigned char)*p)) k = k * 10 + (*p++ - '0');
            if (k <= 0 || k > 8) return 0;
          }
        } else if (*p == 'n' && p[1] == '/') { /* [n/K]: N/K registers, N from .mMnNkK */
          p += 2;
          while (isdigit((unsigned char)*p)) k = k * 10 + (*p++ - '0');
          if (k <= 0 || k > 255) return 0;
          o.flags |= PLA_VECN;
        } else if (*p == 'd') { /* [d] or [d-K]: D(-K) registers, D from .Dd */
          p++;
          if (*p == '-') {
            p++;
            while (isdigit((unsigned char)*p)) k = k * 10 + (*p++ - '0');
            if (k <= 0 || k > 4) return 0;
          }
          o.flags |= PLA_VECD;
        } else {
          while (isdigit((unsigned char)*p)) k = k * 10 + (*p++ - '0');
          if (k <= 0 || k > 255) return 0;
        }
        if (*p++ != ']') return 0;
        o.vec = (uint8_t)k;
        /* T[d]: coordinates */
        if (!(o.kinds & PLA_KTADDR)) o.kinds = (uint16_t)((o.kinds & ~PLA_KIMM) | PLA_KVEC);
      } else if (ch == ':') {
        const char *q = ++p;
        while (isalnum((unsigned char)*q) || *q == '*') q++;
        if (q - p == 1 && *p >= '1' && *p <= '6') {
          o.tsrc = (uint8_t)(*p - '0');
        } else if (q - p == 1 && *p == '*') {
          o.tsrc = 0;
          o.type = PLT_NONE;
        } else {
          int t = plB_type_from_name(p, (size_t)(q - p));
          if (!t) return 0;
          o.tsrc = 0;
          o.type = (uint8_t)t;
        }
        p = q;
        if (*p == '=') { /* a register class: = .bN only, =h .bN or half, =i .bN/.uN/.sN */
          p++;
          if (*p == 'h') {
            o.rclass = PLA_RC_HALF;
            p++;
          } else if (*p == 'i') {
            o.rclass = PLA_RC_INT;
            p++;
          } else
            o.rclass = PLA_RC_BITS;
        }
      } else
        break;
    }
    if ((o.flags & PLA_OPTIONAL) && o.cond) return 0; /* one or the other */
    f->ops[n++] = o;
    if (o.flags & PLA_OPTIONAL) f->nopt++;
    while (*p == ' ') p++;
    if (!*p) break;
    if (*p++ != ',') return 0;
    while (*p == ' ') p++;
  }
  f->nops = (uint8_t)n;
  return 1;
}

/* does pattern p begin with the words of prefix (then a modifier, a group or its end)? */
static int pat_begins(const char *p, const char *prefix) {
  size_t n = strlen(prefix);
  if (strncmp(p, prefix, n) != 0) return 0;
  char ch = p[n];
  return ch == 0 || ch == '.' || ch == '{' || ch == '(' || ch == '$';
}

/* the operands' names: the PL_ROLES row of the longest prefix of the pattern with as many names as
** the form has operands, else the PTX ISA's default: a destination d (p for a predicate), then the
** sources a, b, c, ... (d skipped when a destination has it); a cache-policy and a ctaMask by
** the modifier that makes them present */
static int assign_roles(plA_ctx *c, c_form *f, const char *pat, const char *ops) {
  const char *best = NULL;
  size_t bestn = 0;
  int bestops = 0;
  for (int i = 0; ROLES[i].prefix; i++) {
    size_t n = strlen(ROLES[i].prefix);
    int named = ROLES[i].ops[0] != 0;
    if (n < bestn || !pat_begins(pat, ROLES[i].prefix)) continue;
    if (named && strcmp(ROLES[i].ops, ops) != 0) continue;
    int cnt = 1;
    for (const char *q = ROLES[i].roles; *q; q++) cnt += *q == ',';
    if (cnt != f->nops) continue;
    if (n > bestn || !best || (named && !bestops)) {
      best = ROLES[i].roles;
      bestn = n;
      bestops = named;
    }
  }
  char src = 'a';
  int dnamed = 0;
  for (int k = 0; k < f->nops; k++) {
    plA_opspec *o = &f->ops[k];
    char nm[48];
    if (best) {
      while (*best == ' ') best++;
      size_t len = strcspn(best, ",");
      while (len && best[len - 1] == ' ') len--;
      if (!len || len >= sizeof nm) return 0;
      memcpy(nm, best, len);
      nm[len] = 0;
      best += strcspn(best, ",");
      if (*best) best++;
    } else if (o->cond && c->condtoks.p[o->cond - 1] && !c->condtoks.p[o->cond] &&
               strcmp(c->toks.str[c->condtoks.p[o->cond - 1]], "L2::cache_hint") == 0) {
      strcpy(nm, "cache-policy");
    } else if (o->cond && c->condtoks.p[o->cond - 1] && !c->condtoks.p[o->cond] &&
               strcmp(c->toks.str[c->condtoks.p[o->cond - 1]], "multicast::cluster") == 0) {
      strcpy(nm, "ctaMask");
    } else if (k == 0 && (o->flags & PLA_DEST)) {
      strcpy(nm, o->type == PLT_PRED ? "p" : "d");
      dnamed = nm[0] == 'd';
    } else {
      if (src == 'd' && dnamed) src++;
      nm[0] = src <= 'z' ? src++ : 'z';
      nm[1] = 0;
    }
    uint32_t id = plB_intern(&c->roles, nm, strlen(nm));
    if (!id) return 0;
    o->role = c->roles.str[id];
  }
  return 1;
}

static int compile_form(plA_ctx *c, int fi) {
  c_form *f = &c->forms[fi];
  const char *p = FORMS[fi].pat;
  const char *q = p;
  memset(f, 0, sizeof *f);
  while (*q && *q != '.' && *q != '{' && *q != '(' && *q != '$') q++;
  f->base = plB_intern(&c->toks, p, (size_t)(q - p));
  if (!f->base) return 0;
  f->elem0 = c->elems.n;
  p = q;
  while (*p) {
    c_elem el = { c->alts.n, 0, 0 };
    if (*p == '.' && (p[1] == '(' || p[1] == '{' || p[1] == '$')) p++; /* "mul.(.lo|.hi)" */
    const char *s, *e;
    if (*p == '{' || *p == '(') {
      char close = *p == '{' ? '}' : ')';
      el.opt = *p == '{';
      s = ++p;
      int nest = 0;
      while (*p && (nest || *p != close)) {
        if (*p == '{' || *p == '(') nest++;
        if (*p == '}' || *p == ')') nest--;
        p++;
      }
      if (!*p) return 0;
      e = p++;
    } else if (*p == '.' || *p == '$') {
      s = p;
      p++;
      if (*s == '$')
        while (isalnum((unsigned char)*p) || *p == '_') p++;
      else
        while (*p && *p != '.' && *p != '{' && *p != '(' && *p != '$') p++;
      e = p;
    } else
      return 0;
    if (!expand_alts(c, s, e)) return 0;
    el.nalt = (uint16_t)(c->alts.n - el.alt0);
    if (!el.nalt || !plB_vec_push(c->elems, el)) return 0;
    f->nelem++;
  }
  return compile_ops(c, f, FORMS[fi].ops) && assign_roles(c, f, FORMS[fi].pat, FORMS[fi].ops);
}

static char FAIL_UNSAID[] = ""; /* a failed resolution whose message is built when asked for */

/* the order classes of the table's tokens (PL_ORDER and the types) and the PL_NAME rows */
static int compile_order(plA_ctx *c) {
  c->ntokcls = c->toks.n;
  c->tokcls = calloc(c->ntokcls ? c->ntokcls : 1, 1);
  if (!c->tokcls) return 0;
  const char *cls[NCLS] = { "", "type" };
  int ncls = 2;
  for (uint32_t id = 1; id < c->toks.n; id++)
    if (plB_type_from_name(c->toks.str[id], c->toks.len[id])) c->tokcls[id] = 1;
  for (int i = 0; ORDERS[i].cls; i++) {
    int k = 0;
    while (k < ncls && strcmp(cls[k], ORDERS[i].cls) != 0) k++;
    if (k == ncls) {
      if (ncls == NCLS) return 0;
      cls[ncls++] = ORDERS[i].cls;
    }
    for (const char *p = ORDERS[i].toks; *p;) {
      size_t n = strcspn(p, "|");
      uint32_t id = plB_find(&c->toks, p, n);
      if (id && id < c->ntokcls) c->tokcls[id] = (uint8_t)k;
      p += n + (p[n] == '|');
    }
  }
  for (int i = 0; NAMES[i].prefix; i++) {
    c_name nm;
    memset(&nm, 0, sizeof nm);
    const char *p = NAMES[i].prefix;
    size_t n = strcspn(p, ".");
    nm.base = plB_find(&c->toks, p, n);
    size_t namelen = strlen(NAMES[i].name);
    int ok = nm.base && strncmp(p, NAMES[i].name, namelen) == 0;
    ok = ok && (!p[namelen] || p[namelen] == '.');
    for (p += n; ok && *p == '.';) {
      p++;
      n = strcspn(p, ".");
      ok = nm.ntok < MAXTOK && (nm.tok[nm.ntok] = plB_find(&c->toks, p, n)) != 0;
      nm.ntok++;
      if ((size_t)(p + n - NAMES[i].prefix) <= namelen) nm.nname = nm.ntok;
      p += n;
    }
    if (!ok) {
      c->badnames++;
      continue;
    } /* a table bug: tests count them (plA_bad_forms) */
    if (!plB_vec_push(c->names, nm)) return 0;
  }
  return 1;
}

plA_ctx *plA_new(void) {
  plA_ctx *c = calloc(1, sizeof *c);
  if (!c) return NULL;
  c->refs = 1;
  plB_strtab_init(&c->toks);
  plB_strtab_init(&c->opcodes);
  plB_strtab_init(&c->roles);
  c->forms = calloc(NFORMS ? NFORMS : 1, sizeof *c->forms);
  c->chain = malloc((NFORMS ? NFORMS : 1) * sizeof *c->chain);
  if (!c->forms || !c->chain) {
    plA_unref(c);
    return NULL;
  }
  for (int i = 0; i < NMODS; i++) {
    const char *t = MODS[i].tok + (MODS[i].tok[0] == '.');
    c->modtok[i] = plB_intern(&c->toks, t, strlen(t));
    const char *b = MODS[i].base;
    size_t bn = strcspn(b, ".");
    c->modbase[i] = b[0] ? plB_intern(&c->toks, b, bn) : 0;
    c->modnpre[i] = 0;
    int bad = !c->modtok[i] || (b[0] && !c->modbase[i]);
    for (b += bn; !bad && *b == '.';) {
      b++;
      bn = strcspn(b, ".");
      bad = c->modnpre[i] == 3 || !bn;
      if (!bad) c->modpre[i][c->modnpre[i]++] = plB_intern(&c->toks, b, bn);
      b += bn;
    }
    if (bad) {
      plA_unref(c);
      return NULL;
    }
  }
  for (int i = 0; i < NFORMS; i++) {
    if (!compile_form(c, i)) c->forms[i].bad = 1;
    c->chain[i] = -1;
  }
  if (!compile_order(c)) {
    plA_unref(c);
    return NULL;
  }
  /* chain forms by base, keeping table order */
  for (int i = NFORMS - 1; i >= 0; i--) {
    uint32_t b = c->forms[i].base;
    if (!b) continue;
    while (c->bybase.n <= b)
      if (!plB_vec_push(c->bybase, 0)) {
        plA_unref(c);
        return NULL;
      }
    c->chain[i] = (int32_t)c->bybase.p[b] - 1;
    c->bybase.p[b] = (uint32_t)i + 1;
  }
  return c;
}

void plA_ref(plA_ctx *c) {
  c->refs++;
}
void plA_unref(plA_ctx *c) {
  if (!c || --c->refs > 0) return;
  for (uint32_t i = 0; i < c->ncache; i++) free(c->cache[i]);
  free(c->cache);
  plB_strtab_free(&c->toks);
  plB_strtab_free(&c->opcodes);
  plB_vec_free(c->ivals);
  plB_vec_free(c->seq);
  plB_vec_free(c->alts);
  plB_vec_free(c->elems);
  plB_vec_free(c->bybase);
  plB_vec_free(c->condtoks);
  for (uint32_t i = 0; i < c->ncache && c->fail; i++)
    if (c->fail[i] != FAIL_UNSAID) free(c->fail[i]);
  free(c->fail);
  free(c->tokcls);
  plB_vec_free(c->names);
  plB_strtab_free(&c->roles);
  free(c->forms);
  free(c->chain);
  free(c);
}

uint32_t plA_opcode(plA_ctx *c, const char *text, size_t n) {
  return plB_intern(&c->opcodes, text, n);
}
const char *plA_opcode_text(const plA_ctx *c, uint32_t id) {
  return id && id < c->opcodes.n ? c->opcodes.str[id] : "?";
}
uint32_t plA_opcode_len(const plA_ctx *c, uint32_t id) {
  return id && id < c->opcodes.n ? c->opcodes.len[id] : 1;
}

/* ---- matching ------------------------------------------------------------------------------ */
/* ptxas reads an opcode as its name (the base and the PL_NAME words, in order) and then modifiers
** in any order, except that the modifiers of one order class keep their relative order (the types:
** cvt.f32.s32 is not cvt.s32.f32; mma's a and b layouts; a copy's destination and source spaces).
** A form matches when its elements take every token of the text: a free token wherever it stands,
** a classed one only as the next of its class. */
typedef struct {
  const uint32_t *tok;
  int nt;
  uint8_t cpos[NCLS][MAXTOK], ccount[NCLS]; /* each class's tokens, by position */
} mtext;
typedef struct {
  uint32_t used;
  uint8_t cur[NCLS];
  uint8_t np;
  uint8_t pick[MAXTOK];
} mstate;

static int tok_class(const plA_ctx *c, uint32_t id) {
  return id < c->ntokcls ? c->tokcls[id] : 0;
}

static void mtext_init(const plA_ctx *c, mtext *x, const uint32_t *tok, int nt) {
  memset(x, 0, sizeof *x);
  x->tok = tok;
  x->nt = nt;
  for (int i = 0; i < nt; i++) {
    int k = tok_class(c, tok[i]);
    if (k) x->cpos[k][x->ccount[k]++] = (uint8_t)i;
  }
}

/* a token of an element's alternative: the text's token for it, marked taken; 0 when none is */
static int take(const plA_ctx *c, const mtext *x, mstate *s, uint32_t id) {
  int k = tok_class(c, id), pos = -1;
  if (k) {
    if (s->cur[k] >= x->ccount[k] || x->tok[x->cpos[k][s->cur[k]]] != id) return 0;
    pos = x->cpos[k][s->cur[k]++];
  } else {
    for (int i = 0; i < x->nt && pos < 0; i++)
      if (!(s->used >> i & 1) && x->tok[i] == id) pos = i;
    if (pos < 0) return 0;
  }
  s->used |= 1u << pos;
  s->pick[s->np++] = (uint8_t)pos;
  return 1;
}

static int match(const plA_ctx *c, const c_form *f, int ei, const mtext *x, mstate *s) {
  if (ei == f->nelem) return s->used == (x->nt ? (1u << x->nt) - 1 : 0);
  const c_elem *el = &c->elems.p[f->elem0 + (uint32_t)ei];
  for (uint16_t a = 0; a < el->nalt; a++) {
    const c_alt *al = &c->alts.p[el->alt0 + a];
    if (s->np + al->ntok > x->nt) continue;
    mstate t = *s;
    int ok = 1;
    for (uint16_t k = 0; k < al->ntok && ok; k++) ok = take(c, x, &t, c->seq.p[al->tok0 + k]);
    if (ok && match(c, f, ei + 1, x, &t)) {
      *s = t;
      return 1;
    }
  }
  return el->opt && match(c, f, ei + 1, x, s);
}

/* the PL_NAME row a text in a form's order (base, canon) begins with: the longest; -1 if none */
static int name_of(const plA_ctx *c, uint32_t base, const uint32_t *canon, int nt) {
  int best = -1;
  for (uint32_t i = 0; i < c->names.n; i++) {
    const c_name *n = &c->names.p[i];
    if (n->base != base || n->ntok > nt) continue;
    if (best >= 0 && n->ntok <= c->names.p[best].ntok) continue;
    int ok = 1;
    for (int k = 0; k < n->ntok && ok; k++) ok = canon[k] == n->tok[k];
    if (ok) best = (int)i;
  }
  return best;
}

/* form f takes the text: 1, with the text's tokens in the form's order in canon; 0 when it does
** not, *misname = the PL_NAME row when only the name's place was wrong */
static int form_takes(const plA_ctx *c, const c_form *f, uint32_t base, const mtext *x,
                      uint32_t *canon, int *misname) {
  mstate s;
  memset(&s, 0, sizeof s);
  if (!match(c, f, 0, x, &s)) return 0;
  for (int i = 0; i < s.np; i++) canon[i] = x->tok[s.pick[i]];
  int ni = name_of(c, base, canon, x->nt);
  if (ni < 0) return 1;
  const c_name *n = &c->names.p[ni];
  for (int k = 0; k < n->nname; k++)
    if (x->tok[k] != n->tok[k]) {
      *misname = ni;
      return 0;
    }
  return 1;
}

/* edit distance of two short strings (insertions, deletions, substitutions), capped at 64 chars */
static int edit_distance(const char *a, size_t na, const char *b, size_t nb) {
  if (na > 64) na = 64;
  if (nb > 64) nb = 64;
  int row[65];
  for (size_t j = 0; j <= nb; j++) row[j] = (int)j;
  for (size_t i = 1; i <= na; i++) {
    int diag = row[0];
    row[0] = (int)i;
    for (size_t j = 1; j <= nb; j++) {
      int up = row[j], best = diag + (a[i - 1] != b[j - 1]);
      if (up + 1 < best) best = up + 1;
      if (row[j - 1] + 1 < best) best = row[j - 1] + 1;
      diag = up;
      row[j] = best;
    }
  }
  return row[nb];
}

/* the modifier of base's forms closest to an unknown one (NULL when none is close) */
static const char *closest_modifier(const plA_ctx *c, uint32_t base, const char *t, size_t n) {
  const char *best = NULL;
  int bestd = 1 << 20;
  for (int32_t i = (int32_t)c->bybase.p[base] - 1; i >= 0; i = c->chain[i]) {
    const c_form *f = &c->forms[i];
    for (uint16_t e = 0; e < f->nelem; e++) {
      const c_elem *el = &c->elems.p[f->elem0 + e];
      for (uint16_t a = 0; a < el->nalt; a++) {
        const c_alt *al = &c->alts.p[el->alt0 + a];
        for (uint16_t k = 0; k < al->ntok; k++) {
          uint32_t id = c->seq.p[al->tok0 + k];
          int d = edit_distance(t, n, c->toks.str[id], c->toks.len[id]);
          if (d < bestd) {
            bestd = d;
            best = c->toks.str[id];
          }
        }
      }
    }
  }
  /* close enough to be a slip: at most a third of the longer name, and at least one letter kept */
  size_t bl = best ? strlen(best) : 0, longer = bl > n ? bl : n;
  return best && bestd > 0 && (size_t)bestd * 3 <= longer + 2 ? best : NULL;
}

/* form f's opcode nearest to a text (tokens tok, 0 for an unknown one): each element takes the
** alternative with the most of the text's tokens (an optional one none when it has none of them).
** Appended to out; returns the distance: the modifiers it adds, and the text's it leaves out. */
static int nearest_text(const plA_ctx *c, const c_form *f, uint32_t base, const uint32_t *tok,
                        int nt, plB_buf *out) {
  uint32_t used = 0;
  int added = 0, kept = 0;
  plB_buf_puts(out, c->toks.str[base]);
  for (uint16_t e = 0; e < f->nelem; e++) {
    const c_elem *el = &c->elems.p[f->elem0 + e];
    int best = 0, bhave = -1, bmiss = 0;
    uint32_t bused = 0;
    for (uint16_t a = 0; a < el->nalt; a++) {
      const c_alt *al = &c->alts.p[el->alt0 + a];
      uint32_t u = used;
      int have = 0;
      for (uint16_t k = 0; k < al->ntok; k++)
        for (int i = 0; i < nt; i++)
          if (!(u >> i & 1) && tok[i] == c->seq.p[al->tok0 + k]) {
            u |= 1u << i;
            have++;
            break;
          }
      int miss = al->ntok - have;
      if (have > bhave || (have == bhave && miss < bmiss)) {
        best = a;
        bhave = have;
        bmiss = miss;
        bused = u;
      }
    }
    if (bhave <= 0 && el->opt) continue;
    const c_alt *al = &c->alts.p[el->alt0 + (uint32_t)best];
    for (uint16_t k = 0; k < al->ntok; k++) {
      plB_buf_putc(out, '.');
      plB_buf_puts(out, c->toks.str[c->seq.p[al->tok0 + k]]);
    }
    added += bmiss;
    used = bused;
  }
  for (int i = 0; i < nt; i++) kept += (int)(used >> i & 1);
  return added + (nt - kept);
}

/* "; nearest: A, B, C (and N more forms of base)": the few forms of base nearest to the text */
static void put_nearest(const plA_ctx *c, uint32_t base, const uint32_t *tok, int nt,
                        plB_buf *err) {
  enum { SHOW = 4 };
  plB_buf cand[SHOW];
  int dist[SHOW], n = 0, total = 0;
  plB_buf one;
  plB_buf_init(&one);
  for (int32_t i = (int32_t)c->bybase.p[base] - 1; i >= 0; i = c->chain[i]) {
    if (c->forms[i].bad) continue;
    total++;
    one.n = 0;
    int d = nearest_text(c, &c->forms[i], base, tok, nt, &one);
    const char *t = plB_buf_cstr(&one);
    int dup = 0;
    for (int k = 0; k < n && !dup; k++) dup = strcmp(plB_buf_cstr(&cand[k]), t) == 0;
    if (dup) {
      total--;
      continue;
    }
    int at = n; /* insertion sort by distance, table order kept */
    while (at > 0 && dist[at - 1] > d) at--;
    if (at >= SHOW) continue;
    if (n == SHOW) plB_buf_free(&cand[--n]);
    for (int k = n; k > at; k--) {
      cand[k] = cand[k - 1];
      dist[k] = dist[k - 1];
    }
    plB_buf_init(&cand[at]);
    plB_buf_add(&cand[at], t, one.n);
    dist[at] = d;
    n++;
  }
  plB_buf_free(&one);
  for (int k = 0; k < n; k++) {
    const char *t = plB_buf_cstr(&cand[k]);
    plB_buf_puts(err, k ? ", " : "; nearest forms: ");
    if (cand[k].n > 96) { /* a long form cut short */
      plB_buf_add(err, t, 93);
      plB_buf_puts(err, "...");
    } else
      plB_buf_puts(err, t);
    plB_buf_free(&cand[k]);
  }
  if (total > n)
    plB_buf_printf(err, " (and %d more form%s of %s)", total - n, total - n == 1 ? "" : "s",
                   c->toks.str[base]);
}

/* the operands of form f for an opcode with these tokens: conditional operands kept only when
** their modifier is there (and then required) */
static uint8_t effective_ops(const plA_ctx *c, const c_form *f, const uint32_t *tok, int nt,
                             plA_opspec *out, uint8_t *nopt) {
  uint8_t n = 0, no = 0;
  for (int i = 0; i < f->nops; i++) {
    const plA_opspec *o = &f->ops[i];
    if (o->cond) {
      int has = 0;
      for (const uint32_t *ct = &c->condtoks.p[o->cond - 1]; *ct && !has; ct++)
        for (int k = 0; k < nt && !has; k++) has = tok[k] == *ct;
      if (!has) continue;
    }
    out[n] = *o;
    out[n].cond = 0;
    if (o->flags & PLA_OPTIONAL) no++;
    n++;
  }
  *nopt = no;
  return n;
}

/* room in the per-opcode caches for id */
static int cache_room(plA_ctx *c, uint32_t id) {
  if (id < c->ncache) return 1;
  uint32_t n = c->ncache ? c->ncache : 64;
  while (n <= id) n *= 2;
  plA_res **nc = realloc(c->cache, n * sizeof *nc);
  if (!nc) return 0;
  c->cache = nc;
  char **nf = realloc(c->fail, n * sizeof *nf);
  if (!nf) return 0;
  c->fail = nf;
  memset(nc + c->ncache, 0, (n - c->ncache) * sizeof *nc);
  memset(nf + c->ncache, 0, (n - c->ncache) * sizeof *nf);
  c->ncache = n;
  return 1;
}

/* why an opcode text resolves to no form, as a person can act on it: the modifier it does not know
** (and the one it may mean), the word that belongs right after the base, or the nearest forms */
static void explain(const plA_ctx *c, const char *text, uint32_t base, const uint32_t *tok, int nt,
                    int unknown, const char *unk, size_t unkn, int misname, plB_buf *err) {
  uint32_t t2[MAXTOK];
  memcpy(t2, tok, (size_t)nt * sizeof *tok);
  if (unknown >= 0) {
    const char *near = closest_modifier(c, base, unk, unkn);
    plB_buf_printf(err, "unknown modifier '.%.*s' in '%s'", (int)unkn, unk, text);
    if (near) plB_buf_printf(err, ": did you mean '.%s'?", near);
    t2[unknown] = near ? plB_find(&c->toks, near, strlen(near)) : 0;
    put_nearest(c, base, t2, nt, err);
    return;
  }
  plB_buf_printf(err, "'%s' is not a valid form of %s", text, c->toks.str[base]);
  if (misname >= 0) { /* the name's words out of place: where they go, and the text that works */
    const c_name *n = &c->names.p[misname];
    plB_buf_printf(err, ": ptxas reads '%s", c->toks.str[base]);
    for (int k = 0; k < n->nname; k++) plB_buf_printf(err, ".%s", c->toks.str[n->tok[k]]);
    plB_buf_printf(err, "' as the instruction's name, its words first and in that order (write '%s",
                   c->toks.str[base]);
    uint32_t left = nt < 32 ? (1u << nt) - 1 : ~0u;
    for (int k = 0; k < n->nname; k++) {
      plB_buf_printf(err, ".%s", c->toks.str[n->tok[k]]);
      for (int i = 0; i < nt; i++)
        if ((left >> i & 1) && tok[i] == n->tok[k]) {
          left &= ~(1u << i);
          break;
        }
    }
    for (int i = 0; i < nt; i++)
      if (left >> i & 1) plB_buf_printf(err, ".%s", c->toks.str[tok[i]]);
    plB_buf_puts(err, "')");
    return;
  }
  put_nearest(c, base, t2, nt, err);
}

const plA_res *plA_resolve(plA_ctx *c, uint32_t id, plB_buf *err) {
  if (id == 0 || id >= c->opcodes.n) {
    if (err) plB_buf_puts(err, "bad opcode id");
    return NULL;
  }
  if (id < c->ncache && c->cache[id]) return c->cache[id];
  if (id < c->ncache && c->fail[id] && (c->fail[id] != FAIL_UNSAID || !err)) { /* failed before */
    if (err) plB_buf_puts(err, c->fail[id]);
    return NULL;
  }
  const char *text = c->opcodes.str[id];
  size_t len = c->opcodes.len[id];
  uint32_t tok[MAXTOK];
  int nt = 0, unknown = -1, misname = -1, toomany = 0;
  const char *p = text, *e = text + len, *unk = NULL;
  size_t unkn = 0;
  const char *q = p;
  while (q < e && *q != '.') q++;
  uint32_t base = plB_find(&c->toks, p, (size_t)(q - p));
  int nobase = !base || base >= c->bybase.n || !c->bybase.p[base];
  while (!nobase && q < e) {
    p = ++q;
    while (q < e && *q != '.') q++;
    if (nt == MAXTOK) {
      toomany = 1;
      break;
    }
    uint32_t t = plB_find(&c->toks, p, (size_t)(q - p));
    if (!t && unknown < 0) {
      unknown = nt;
      unk = p;
      unkn = (size_t)(q - p);
    }
    tok[nt++] = t;
  }
  int fi = -1, alts[PLA_MAXALT], nalt = 0;
  uint32_t canon[MAXTOK], scratch[MAXTOK];
  mtext x;
  mtext_init(c, &x, tok, nt);
  int32_t first = nobase || toomany || unknown >= 0 ? -1 : (int32_t)c->bybase.p[base] - 1;
  for (int32_t i = first; i >= 0; i = c->chain[i])
    if (!c->forms[i].bad &&
        form_takes(c, &c->forms[i], base, &x, fi < 0 ? canon : scratch, &misname)) {
      if (fi < 0) {
        fi = i;
        continue;
      }
      int dup = strcmp(FORMS[i].ops, FORMS[fi].ops) == 0; /* same operands: never reached */
      for (int k = 0; k < nalt && !dup; k++) dup = strcmp(FORMS[i].ops, FORMS[alts[k]].ops) == 0;
      if (!dup && nalt < PLA_MAXALT) alts[nalt++] = i;
    }
  if (fi < 0) {
    /* failures are kept too: a file that repeats one wrong opcode pays for its message once */
    if (!cache_room(c, id)) {
      if (err) plB_buf_puts(err, "out of memory");
      return NULL;
    }
    if (!err) {
      if (!c->fail[id]) c->fail[id] = FAIL_UNSAID;
      return NULL;
    }
    size_t at = err->n;
    if (nobase)
      plB_buf_printf(err, "unknown instruction '%.*s'", (int)(strcspn(text, ".")), text);
    else if (toomany)
      plB_buf_printf(err, "too many modifiers in '%s'", text);
    else
      explain(c, text, base, tok, nt, unknown, unk, unkn, misname, err);
    char *m = malloc(err->n - at + 1);
    if (m) {
      memcpy(m, err->p + at, err->n - at);
      m[err->n - at] = 0;
      c->fail[id] = m;
    }
    return NULL;
  }
  plA_res *r = calloc(1, sizeof *r);
  if (!r) {
    if (err) plB_buf_puts(err, "out of memory");
    return NULL;
  }
  r->form = fi;
  for (int i = 0; i < nt; i++) {
    const char *ts = c->toks.str[tok[i]];
    int t = plB_type_from_name(ts, c->toks.len[tok[i]]);
    if (t && r->ntypes < 6) r->types[r->ntypes++] = (uint8_t)t;
    if (ts[0] == 'v' && (ts[1] == '2' || ts[1] == '4' || ts[1] == '8') && !ts[2])
      r->vec = (uint8_t)(ts[1] - '0');
    if (ts[0] == 'x' && ts[1] >= '1' && ts[1] <= '9' &&
        strspn(ts + 1, "0123456789") == strlen(ts + 1) &&
        strlen(ts) <= 4
        /* .x1 ... .x128 (ldmatrix, tcgen05.ld) */
        && atoi(ts + 1) <= 128)
      r->xn = (uint8_t)atoi(ts + 1);
    if (ts[0] >= '1' && ts[0] <= '5' && ts[1] == 'd' && !ts[2]) r->dims = (uint8_t)(ts[0] - '0');
    int mm, nn, kk, used = 0; /* a shape .mMnNkK: the N that sizes [n/K] vectors */
    if (ts[0] == 'm' && sscanf(ts, "m%dn%dk%d%n", &mm, &nn, &kk, &used) == 3 && !ts[used])
      r->nn = (uint16_t)nn;
  }
  uint16_t mptx = 0, msm = 0;
  for (int i = 0; i < nt; i++) { /* a modifier's own minimum raises the form's: its base's entry
                                 ** when it has one (ptxas takes cp.async's .shared::cta before
                                 ** PTX 7.8), else the entry for any base */
    int hit = -1;
    for (int k = 0; k < NMODS; k++)
      if (c->modtok[k] == tok[i] && c->modbase[k] && c->modbase[k] == base && c->modnpre[k] <= nt) {
        int ok = 1;
        for (int j = 0; j < c->modnpre[k] && ok; j++) ok = canon[j] == c->modpre[k][j];
        if (ok && (hit < 0 || c->modnpre[k] > c->modnpre[hit])) hit = k; /* the longest */
      }
    for (int k = 0; k < NMODS && hit < 0; k++)
      if (c->modtok[k] == tok[i] && !c->modbase[k]) hit = k;
    if (hit < 0) continue;
    if (MODS[hit].ptx > mptx) mptx = MODS[hit].ptx;
    if (MODS[hit].sm > msm) msm = MODS[hit].sm;
  }
  r->ptx_min = FORMS[fi].ptx > mptx ? FORMS[fi].ptx : mptx;
  r->sm_min = FORMS[fi].sm > msm ? FORMS[fi].sm : msm;
  r->flags = FORMS[fi].flags;
  r->op = FORMS[fi].op;
  r->pattern = FORMS[fi].pat;
  r->operands = FORMS[fi].ops;
  for (int i = 0; i < nt; i++) r->mods[i] = c->toks.str[canon[i]]; /* the form's order */
  r->nmods = (uint8_t)nt;
  for (int i = 0; i < nt && !r->space2; i++) { /* the state spaces the opcode names, if any */
    const char *ts = c->toks.str[tok[i]];
    size_t tl = strcspn(ts, ":");
    static const struct {
      const char *n;
      uint8_t sp;
    } SP[] = { { "global", PLA_SP_GLOBAL },
               { "shared", PLA_SP_SHARED },
               { "local", PLA_SP_LOCAL },
               { "param", PLA_SP_PARAM },
               { "const", PLA_SP_CONST } };
    for (size_t k = 0; k < sizeof SP / sizeof SP[0]; k++)
      if (strlen(SP[k].n) == tl && memcmp(ts, SP[k].n, tl) == 0) {
        if (!r->space)
          r->space = SP[k].sp;
        else
          r->space2 = SP[k].sp;
      }
  }
  r->nops = effective_ops(c, &c->forms[fi], tok, nt, r->opbuf[0], &r->nopt);
  r->ops = r->opbuf[0];
  for (int i = 0; i < nalt; i++) {
    r->alt[i].nops =
        effective_ops(c, &c->forms[alts[i]], tok, nt, r->opbuf[i + 1], &r->alt[i].nopt);
    r->alt[i].ops = r->opbuf[i + 1];
    r->alt[i].operands = FORMS[alts[i]].ops;
    r->alt[i].ptx_min = FORMS[alts[i]].ptx > r->ptx_min ? FORMS[alts[i]].ptx : r->ptx_min;
    r->alt[i].sm_min = FORMS[alts[i]].sm > r->sm_min ? FORMS[alts[i]].sm : r->sm_min;
    r->alt[i].flags = FORMS[alts[i]].flags;
  }
  r->nalt = (uint8_t)nalt;
  for (int a = 0; a <= nalt; a++) { /* operands whose check looks at values */
    const plA_opspec *ops = a ? r->alt[a - 1].ops : r->ops;
    int n = a ? r->alt[a - 1].nops : r->nops;
    for (int i = 0; i < n; i++)
      if (ops[i].ikind || (ops[i].flags & PLA_SPACE)) r->flags |= PLA_VALUES;
  }
  /* the text in the form's order: the same opcode id when it is written so */
  int same = 1;
  for (int i = 0; i < nt && same; i++) same = canon[i] == tok[i];
  if (same)
    r->canon = id;
  else {
    plB_buf ct;
    plB_buf_init(&ct);
    plB_buf_puts(&ct, c->toks.str[base]);
    for (int i = 0; i < nt; i++) {
      plB_buf_putc(&ct, '.');
      plB_buf_puts(&ct, c->toks.str[canon[i]]);
    }
    r->canon = ct.oom ? 0 : plA_opcode(c, plB_buf_cstr(&ct), ct.n);
    plB_buf_free(&ct);
    if (!r->canon) {
      free(r);
      if (err) plB_buf_puts(err, "out of memory");
      return NULL;
    }
  }
  if (!cache_room(c, id)) {
    free(r);
    if (err) plB_buf_puts(err, "out of memory");
    return NULL;
  }
  c->cache[id] = r;
  return r;
}

const char *plA_canonical(plA_ctx *c, uint32_t id) {
  const plA_res *r = plA_resolve(c, id, NULL);
  return plA_opcode_text(c, r ? r->canon : id);
}

int plA_spec_type(const plA_res *r, const plA_opspec *o) {
  if (o->tsrc == 0) return o->type;
  if (o->tsrc <= r->ntypes) return r->types[o->tsrc - 1];
  return PLT_NONE;
}

/* which spec stands at each of n given operands: the last (nops - n) optional ones are left out */
int plA_map_ops(const plA_opspec *ops, int nops, int n, uint8_t *idx) {
  int skip = nops - n;
  uint8_t omit[MAXOPS] = { 0 };
  for (int j = nops - 1; j >= 0 && skip > 0; j--)
    if (ops[j].flags & PLA_OPTIONAL) {
      omit[j] = 1;
      skip--;
    }
  if (skip > 0 || n > nops) return 0;
  for (int j = 0, i = 0; j < nops; j++)
    if (!omit[j]) idx[i++] = (uint8_t)j;
  return 1;
}

int plA_optype(const plA_res *r, int i) {
  if (i < 0 || i >= r->nops) return PLT_NONE;
  return plA_spec_type(r, &r->ops[i]);
}

int plA_optype_n(const plA_res *r, int i, int n) {
  uint8_t idx[MAXOPS];
  if (i < 0 || i >= n || n > MAXOPS || !plA_map_ops(r->ops, r->nops, n, idx))
    return plA_optype(r, i);
  return plA_spec_type(r, &r->ops[idx[i]]);
}

int plA_bad_forms(const plA_ctx *c, int *first) {
  int bad = c->badnames;
  if (first) *first = -1;
  for (int i = 0; i < NFORMS; i++)
    if (c->forms[i].bad) {
      if (first && *first < 0) *first = i;
      bad++;
    }
  return bad;
}

/* ---- targets ------------------------------------------------------------------------------- */
int plA_target_parse(const char *s, plA_target *t) {
  memset(t, 0, sizeof *t);
  if (strncmp(s, "sm_", 3) != 0 && strncmp(s, "compute_", 8) != 0) return 0;
  const char *p = s + (s[0] == 's' ? 3 : 8);
  int sm = 0, nd = 0;
  while (isdigit((unsigned char)*p) && nd < 4) sm = sm * 10 + (*p++ - '0'), nd++;
  if (nd < 2) return 0;
  if (*p == 'a' || *p == 'f') {
    t->arch_a = *p == 'a' ? 1 : 2;
    p++;
  }
  if (*p) return 0;
  t->sm = sm;
  static const int known[] = { 50, 52, 53, 60, 61,  62,  70,  72,  75,  80, 86,
                               87, 88, 89, 90, 100, 101, 103, 110, 120, 121 };
  for (size_t i = 0; i < sizeof known / sizeof known[0]; i++)
    if (known[i] == sm) return 1;
  return 0;
}

int plA_target_min_version(const plA_target *t) {
  int v;
  switch (t->sm) {
  case 50:
  case 52:
  case 53: v = 40; break;
  case 60:
  case 61:
  case 62: v = 50; break;
  case 70: v = 60; break;
  case 72: v = 61; break;
  case 75: v = 63; break;
  case 80: v = 70; break;
  case 86: v = 71; break;
  case 87: v = 74; break;
  case 88: v = 90; break;
  case 89:
  case 90: v = 78; break;
  case 100:
  case 101: v = 86; break;
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

/* the targets of a form that exists only on specific targets, as ptxas names them: "sm_90a",
** "sm_100a or sm_100f (or sm_103a, sm_103f)", "an sm_XXa or sm_XXf target from sm_100 on" */
static void put_specific(plB_buf *b, int sm_min, int flags) {
  int pair = sm_min == 100 && !(flags & PLA_NO103); /* the sm_100 family: sm_100 and sm_103 */
  int w110 = (flags & PLA_SM110) != 0;              /* and the sm_110 family */
  if (flags & PLA_ARCH_A)
    plB_buf_printf(b, "sm_%da%s%s%s (arch-specific", sm_min, pair && w110 ? ", sm_103a" : "",
                   pair && !w110 ? " or sm_103a" : "", w110 ? " or sm_110a" : "");
  else if (flags & PLA_FAMILY_A)
    plB_buf_printf(b, "sm_%da, sm_%df%s%s (arch- or family-specific", sm_min, sm_min,
                   pair ? (w110 ? ", sm_103a, sm_103f" : ", sm_103a or sm_103f") : "",
                   w110 ? ", sm_110a or sm_110f" : "");
  else
    plB_buf_printf(b, "an arch- or family-specific target from sm_%d on (sm_%da, sm_%df, ...",
                   sm_min, sm_min, sm_min);
}

/* is t in the family of a form of sm_min (the same tens; sm_110 too for PLA_SM110 forms)? */
static int in_family(int sm_min, int flags, const plA_target *t) {
  if ((flags & PLA_NO103) && t->sm == 103) return 0;
  if ((flags & PLA_SM110) && t->sm / 10 == 11) return 1;
  return t->sm / 10 == sm_min / 10;
}

int plA_target_ok(int sm_min, int flags, int ptx_min, const char *opc, const plA_target *t,
                  int check_version, plB_buf *err) {
  const char *a = t->arch_a == 1 ? "a" : t->arch_a == 2 ? "f" : "";
  int family = in_family(sm_min, flags, t);
  int specific = (flags & PLA_ARCH_A)     ? t->arch_a == 1 && family && t->sm >= sm_min
                 : (flags & PLA_FAMILY_A) ? t->arch_a && family && t->sm >= sm_min
                 : (flags & PLA_SPECIFIC) ? t->arch_a && t->sm >= sm_min
                                          : 1;
  if (!specific) {
    /* a form of specific targets says which, even below sm_min: wgmma on sm_80 needs sm_90a */
    if (err) {
      plB_buf_printf(err, "'%s' requires ", opc);
      put_specific(err, sm_min, flags);
      plB_buf_printf(err, "; the target is sm_%d%s)", t->sm, a);
    }
    return 0;
  }
  if (t->sm < sm_min) {
    if (err)
      plB_buf_printf(err, "'%s' requires sm_%d or later (the target is sm_%d%s)", opc, sm_min,
                     t->sm, a);
    return 0;
  }
  if (check_version && t->version && t->version < ptx_min) {
    if (err)
      plB_buf_printf(err, "'%s' requires PTX ISA %d.%d (the module declares %d.%d)", opc,
                     ptx_min / 10, ptx_min % 10, t->version / 10, t->version % 10);
    return 0;
  }
  return 1;
}

int plA_check_target(const plA_res *r, const char *opc, const plA_target *t, int check_version,
                     plB_buf *err) {
  return plA_target_ok(r->sm_min, r->flags, r->ptx_min, opc, t, check_version, err);
}

/* the operands by role, as the PTX ISA writes them: an address in brackets, optional ones in
** braces (the last nopt left out first), a vector in braces: "d, [a], b{, cache-policy}" */
void plA_put_roles(plB_buf *b, const plA_opspec *ops, int nops, int nopt) {
  uint8_t opt[MAXOPS] = { 0 };
  for (int j = nops - 1; j >= 0 && nopt > 0; j--)
    if (ops[j].flags & PLA_OPTIONAL) {
      opt[j] = 1;
      nopt--;
    }
  for (int i = 0; i < nops; i++) {
    const plA_opspec *o = &ops[i];
    const char *nm = o->role ? o->role : "?";
    if (opt[i])
      plB_buf_puts(b, i ? "{, " : "{");
    else if (i)
      plB_buf_puts(b, ", ");
    int vec = (o->kinds & PLA_KVEC) && !(o->flags & PLA_VECV) && !(o->kinds & PLA_KLIST);
    if (o->kinds & PLA_KADDR)
      plB_buf_printf(b, "[%s]", nm);
    else if (o->kinds & PLA_KLIST)
      plB_buf_printf(b, "(%s)", nm);
    else if (vec)
      plB_buf_printf(b, "{%s}", nm);
    else
      plB_buf_puts(b, nm);
    if (opt[i]) plB_buf_putc(b, '}');
  }
}

const plA_ival *plA_ival_of(const plA_ctx *c, int ival) {
  return ival > 0 && (size_t)ival <= c->ivals.n ? &c->ivals.p[ival - 1] : NULL;
}
