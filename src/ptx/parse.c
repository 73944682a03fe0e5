/* parse.c -- PTX text -> the trace IR, keeping the text: every statement remembers the span of
** source it came from (its leading comments and blank lines, itself, the rest of its line), so
** the printer gives the file back byte for byte, while instructions are real opcodes and operands.
** One pass, no recursion deeper than a vector operand; bounded scopes; every allocation checked. */
#define _DEFAULT_SOURCE 1 /* madvise and MADV_HUGEPAGE (the build defines only _POSIX_C_SOURCE) */
#include "parse.h"
#include "isa.h"
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#if defined(__linux__)
#include <sys/mman.h>
#endif

/* a declared register name in scope: a scalar (count 0, id) or a range %name<count> whose
** element registers are made on first use (so %r<100000000> costs nothing until used) */
typedef struct RegEnt {
  uint32_t off, len, hash, next; /* name bytes in the source (without %), bucket chain */
  uint32_t id, count, serial;
  uint8_t type, bare; /* bare: declared without '%' */
  uint32_t *ids;      /* a range of at most 65536: element ids made so far (0 none) */
} RegEnt;

typedef struct R {
  const char *s;
  uint32_t n;
  plI_module *m;
  plA_ctx *isa;
  const char *file;
  plB_buf *err;
  int failed;
  uint32_t fileid;        /* the chunk name interned: each statement's anchor file */
  uint32_t lcoff, lcline; /* line counter cache: line of offset lcoff */
  int func;
  PLB_VEC(RegEnt) ents;
  uint32_t *buckets, nb; /* entry index + 1 */
  uint32_t serial;
  uint64_t *ckey;
  uint32_t *cval;
  uint32_t ccap, cn; /* (serial, index) -> register id */
  uint32_t marks[PLR_MAXDEPTH + 2];
  int depth;
  /* the `{` statement of each open block (its declarations' scope) */
  uint32_t bstmt[PLR_MAXDEPTH + 2];
  PLB_VEC(plI_opnd) tmp;
  uint32_t stmt; /* 1 + the offset of the statement being read (0: none) */
} R;

#define ISID0(c) \
  (((c) >= 'a' && (c) <= 'z') || ((c) >= 'A' && (c) <= 'Z') || (c) == '_' || (c) == '$')
#define ISID(c)  (ISID0(c) || ((c) >= '0' && (c) <= '9'))
#define ISDIG(c) ((c) >= '0' && (c) <= '9')
#define ISSP(c) \
  ((c) == ' ' || (c) == '\t' || (c) == '\r' || (c) == '\n' || (c) == '\f' || (c) == '\v')

static uint32_t line_of(R *r, uint32_t off) {
  if (off < r->lcoff) { /* a step back (a declaration's name, then its statement): count back */
    uint32_t line = r->lcline;
    for (uint32_t k = off; k < r->lcoff; k++) line -= r->s[k] == '\n';
    r->lcoff = off;
    r->lcline = line;
    return line;
  }
  const char *p = r->s + r->lcoff, *e = r->s + off;
  uint32_t line = r->lcline;
  while (p < e && (p = memchr(p, '\n', (size_t)(e - p))) != NULL) {
    line++;
    p++;
  }
  r->lcoff = off;
  r->lcline = line;
  return line;
}

void plP_linecol(const plI_module *m, uint32_t off, int *line, int *col) {
  const char *s = m->vsrc.p ? m->vsrc.p : "";
  if (off > m->vsrc.n) off = (uint32_t)m->vsrc.n;
  int l = 1;
  uint32_t ls = 0;
  for (uint32_t i = 0; i < off; i++)
    if (s[i] == '\n') {
      l++;
      ls = i + 1;
    }
  if (line) *line = l;
  if (col) *col = (int)(off - ls) + 1;
}

static int fail(R *r, uint32_t off, const char *fmt, ...) {
  if (r->failed) return 0;
  r->failed = 1;
  if (off > r->n) off = r->n;
  uint32_t line = line_of(r, off), ls = off;
  while (ls > 0 && r->s[ls - 1] != '\n') ls--;
  plB_buf_printf(r->err, "%s:%u:%u: error: ", r->file, line, off - ls + 1);
  va_list ap;
  va_start(ap, fmt);
  plB_buf_vprintf(r->err, fmt, ap);
  va_end(ap);
  /* an error lines after its statement's start (a statement that lacks its ';' runs into the
  ** next one) names that start too; ptxlua.verbatim reports such an error at the statement's
  ** script line */
  if (r->stmt && r->stmt - 1 < off) {
    uint32_t sl = line_of(r, r->stmt - 1);
    if (sl < line) plB_buf_printf(r->err, " (in the statement that starts on line %u)", sl);
  }
  return 0;
}
static int oom(R *r) {
  return fail(r, 0, "out of memory");
}

/* ---- scanning ------------------------------------------------------------------------------ */

/* whitespace and comments; UINT32_MAX after an unterminated comment (reported) */
static uint32_t skip_trivia(R *r, uint32_t i) {
  const char *s = r->s;
  while (i < r->n) {
    char c = s[i];
    if (ISSP(c)) {
      i++;
      continue;
    }
    if (c == '/' && i + 1 < r->n && s[i + 1] == '/') {
      const char *nl = memchr(s + i, '\n', r->n - i);
      i = nl ? (uint32_t)(nl - s) + 1 : r->n;
      continue;
    }
    if (c == '/' && i + 1 < r->n && s[i + 1] == '*') {
      uint32_t j = i + 2;
      while (j + 1 < r->n && !(s[j] == '*' && s[j + 1] == '/')) j++;
      if (j + 1 >= r->n) {
        fail(r, i, "unterminated comment");
        return UINT32_MAX;
      }
      i = j + 2;
      continue;
    }
    break;
  }
  return i;
}

/* the rest of a statement's line: blanks, a // comment, the newline */
static uint32_t line_end(R *r, uint32_t i) {
  const char *s = r->s;
  while (i < r->n && (s[i] == ' ' || s[i] == '\t')) i++;
  if (i + 1 < r->n && s[i] == '/' && s[i + 1] == '/') {
    const char *nl = memchr(s + i, '\n', r->n - i);
    return nl ? (uint32_t)(nl - s) + 1 : r->n;
  }
  if (i < r->n && s[i] == '\r' && i + 1 < r->n && s[i + 1] == '\n') return i + 2;
  if (i < r->n && s[i] == '\n') return i + 1;
  return i;
}

/* end of a line-terminated directive (.version, .target, .file, .loc): before a // comment */
static uint32_t eol(R *r, uint32_t i) {
  const char *s = r->s;
  int instr = 0;
  while (i < r->n && s[i] != '\n') {
    if (s[i] == '"')
      instr = !instr;
    else if (!instr && s[i] == '/' && i + 1 < r->n && (s[i + 1] == '/' || s[i + 1] == '*'))
      break;
    i++;
  }
  while (i > 0 && (s[i - 1] == ' ' || s[i - 1] == '\t' || s[i - 1] == '\r')) i--;
  return i;
}

static uint32_t trim_end(R *r, uint32_t a, uint32_t b) {
  while (b > a && ISSP(r->s[b - 1])) b--;
  return b;
}

/* the ';' that ends the statement at i (or, with stop_brace, a '{' at depth 0); brackets,
** strings and comments skipped. UINT32_MAX on error (reported). */
static uint32_t stmt_end(R *r, uint32_t i, int stop_brace) {
  const char *s = r->s;
  uint32_t start = i;
  int depth = 0;
  /* the bytes the switch below acts on; the others are skipped eight at a time */
  static const unsigned char hot[256] = { [';'] = 1, ['"'] = 1, ['/'] = 1, ['{'] = 1, ['['] = 1,
                                          ['('] = 1, ['}'] = 1, [']'] = 1, [')'] = 1 };
  const unsigned char *u = (const unsigned char *)s;
  while (i < r->n) {
    while (i + 8 <= r->n && !(hot[u[i]] | hot[u[i + 1]] | hot[u[i + 2]] | hot[u[i + 3]] |
                              hot[u[i + 4]] | hot[u[i + 5]] | hot[u[i + 6]] | hot[u[i + 7]]))
      i += 8;
    while (i < r->n && !hot[u[i]]) i++;
    if (i >= r->n) break;
    char c = s[i];
    switch (c) {
    case ';':
      if (depth == 0) return i;
      break;
    case '"':
      for (i++; i < r->n && s[i] != '"' && s[i] != '\n'; i++)
        if (s[i] == '\\') i++;
      if (i >= r->n || s[i] != '"') {
        fail(r, start, "unterminated string");
        return UINT32_MAX;
      }
      break;
    case '/':
      if (i + 1 < r->n && (s[i + 1] == '/' || s[i + 1] == '*')) {
        uint32_t j = skip_trivia(r, i);
        if (j == UINT32_MAX) return j;
        i = j;
        continue;
      }
      break;
    case '{':
      if (stop_brace && depth == 0) return i;
      /* fallthrough */
    case '[':
    case '(': depth++; break;
    case '}':
    case ']':
    case ')':
      /* reported where the ';' is missing, after the statement's last token (the closing bracket
      ** is often the next line's, another statement's: the error names the one that lacks it) */
      if (--depth < 0) {
        fail(r, trim_end(r, start, i), "expected ';' before '%c'", c);
        return UINT32_MAX;
      }
      break;
    default: break;
    }
    i++;
  }
  fail(r, start, "expected ';' at the end of the statement (the file ends first)");
  return UINT32_MAX;
}

static uint32_t trim_start(R *r, uint32_t a, uint32_t b) {
  while (a < b && ISSP(r->s[a])) a++;
  return a;
}

static uint32_t intern(R *r, uint32_t a, uint32_t b) {
  uint32_t id = plB_intern(&r->m->strs, r->s + a, b - a);
  if (!id) oom(r);
  return id;
}

/* a token of a directive: a word (.name, identifier, %reg, number) or one punctuation char */
typedef struct Tok {
  uint32_t a, b;
  char c;
} Tok; /* c: 'w' word, '"' string, else the char, 0 end */
static int next_tok(R *r, uint32_t *i, uint32_t e, Tok *t) {
  uint32_t j = *i;
  const char *s = r->s;
  for (;;) {
    while (j < e && ISSP(s[j])) j++;
    if (j + 1 < e && s[j] == '/' && (s[j + 1] == '/' || s[j + 1] == '*')) {
      uint32_t k = skip_trivia(r, j);
      if (k == UINT32_MAX) {
        t->c = 0;
        return 0;
      }
      j = k;
      continue;
    }
    break;
  }
  t->a = j;
  if (j >= e) {
    t->b = j;
    t->c = 0;
    *i = j;
    return 0;
  }
  char c = s[j];
  if (ISID(c) || c == '.' || c == '%' || c == ':' || c == '-') {
    j++;
    /* a directive word ends at the next '.': ptxas takes ".reg.b32 f;" and ".local.align 8"
    ** (cuda_fp16.hpp's inline asm writes the first) as ".reg .b32 f;", ".local .align 8" */
    while (j < e && (ISID(s[j]) || (s[j] == '.' && c != '.') || s[j] == ':')) j++;
    t->c = 'w';
  } else if (c == '"') {
    for (j++; j < e && s[j] != '"'; j++)
      if (s[j] == '\\') j++;
    if (j < e) j++;
    t->c = '"';
  } else {
    j++;
    t->c = c;
  }
  t->b = j;
  *i = j;
  return 1;
}
static int tok_is(R *r, const Tok *t, const char *w) {
  size_t n = strlen(w);
  return t->c == 'w' && t->b - t->a == n && memcmp(r->s + t->a, w, n) == 0;
}
static uint64_t tok_num(R *r, const Tok *t, int *ok) {
  uint64_t v = 0;
  *ok = t->c == 'w' && t->b > t->a;
  for (uint32_t k = t->a; *ok && k < t->b; k++) {
    if (!ISDIG(r->s[k]) || v > UINT64_MAX / 10 - 10)
      *ok = 0;
    else
      v = v * 10 + (uint64_t)(r->s[k] - '0');
  }
  return v;
}

/* ---- registers in scope --------------------------------------------------------------------- */

static int rehash(R *r, uint32_t nb) {
  uint32_t *b = calloc(nb, sizeof *b);
  if (!b) return 0;
  for (uint32_t k = 0; k < r->ents.n; k++) {
    RegEnt *e = &r->ents.p[k];
    e->next = b[e->hash & (nb - 1)];
    b[e->hash & (nb - 1)] = k + 1;
  }
  free(r->buckets);
  r->buckets = b;
  r->nb = nb;
  return 1;
}

static RegEnt *find_ent(R *r, const char *name, uint32_t len, int range) {
  if (!r->nb) return NULL;
  uint32_t h = plB_hash(name, len);
  for (uint32_t k = r->buckets[h & (r->nb - 1)]; k; k = r->ents.p[k - 1].next) {
    RegEnt *e = &r->ents.p[k - 1];
    if (e->hash == h && e->len == len && memcmp(r->s + e->off, name, len) == 0 &&
        (!range || e->count))
      return e;
  }
  return NULL;
}

static uint32_t new_reg(R *r, uint32_t name, int32_t index, int type, int bare) {
  plI_reg g = { name, index, (uint8_t)type, (uint8_t)bare, (uint32_t)r->func };
  if (!plB_vec_push(r->m->regs, g)) {
    oom(r);
    return 0;
  }
  return r->m->regs.n;
}

/* declare %name (count 0) or %name<count>: a redeclaration in the same scope shadows too (ptxas
** decides whether that is legal; the parser keeps what was written) */
static int declare(R *r, uint32_t a, uint32_t b, int type, uint32_t count) {
  uint32_t name = intern(r, a + (r->s[a] == '%'), b); /* keyed with its '%', named without */
  if (!name) return 0;
  plI_func *f = &r->m->funcs.p[r->func];
  int bare = r->s[a] != '%';
  plI_regdecl d = { .name = name,
                    .count = count,
                    .type = plB_type_info[type].decl,
                    .bare = (uint8_t)bare,
                    .scope = r->depth ? r->bstmt[r->depth] + 1 : 0,
                    .off = a };
  if (!plB_vec_push(f->regdecls, d)) return oom(r);
  RegEnt e = {
    a,   b - a, plB_hash(r->s + a, b - a), 0, 0, count, ++r->serial, (uint8_t)type, (uint8_t)bare,
    NULL
  };
  if (!count && !(e.id = new_reg(r, name, -1, type, bare))) return 0;
  if (count) e.id = name; /* a range: its name, for the element registers */
  if (r->ents.n + 1 > 2 * r->nb && !rehash(r, r->nb ? r->nb * 4 : 256)) return oom(r);
  if (!plB_vec_push(r->ents, e)) return oom(r);
  RegEnt *pe = &r->ents.p[r->ents.n - 1];
  pe->next = r->buckets[pe->hash & (r->nb - 1)];
  r->buckets[pe->hash & (r->nb - 1)] = r->ents.n;
  return 1;
}

static void pop_scope(R *r, uint32_t mark) {
  while (r->ents.n > mark) {
    RegEnt *e = &r->ents.p[r->ents.n - 1];
    r->buckets[e->hash & (r->nb - 1)] = e->next;
    free(e->ids);
    r->ents.n--;
  }
}

static uint32_t range_elem(R *r, RegEnt *e, uint32_t idx) {
  if (e->count <= 65536) {
    if (!e->ids && !(e->ids = calloc(e->count, sizeof *e->ids))) {
      oom(r);
      return 0;
    }
    if (e->ids[idx]) return e->ids[idx];
    return e->ids[idx] = new_reg(r, e->id, (int32_t)idx, e->type, e->bare);
  }
  uint64_t key = ((uint64_t)e->serial << 32) | idx;
  if (r->cn * 2 >= r->ccap) {
    uint32_t nc = r->ccap ? r->ccap * 2 : 1024;
    uint64_t *k = calloc(nc, sizeof *k);
    uint32_t *v = calloc(nc, sizeof *v);
    if (!k || !v) {
      free(k);
      free(v);
      oom(r);
      return 0;
    }
    for (uint32_t i = 0; i < r->ccap; i++)
      if (r->ckey[i]) {
        uint32_t h = (uint32_t)((r->ckey[i] * 0x9E3779B97F4A7C15ull) >> 32) & (nc - 1);
        while (k[h]) h = (h + 1) & (nc - 1);
        k[h] = r->ckey[i];
        v[h] = r->cval[i];
      }
    free(r->ckey);
    free(r->cval);
    r->ckey = k;
    r->cval = v;
    r->ccap = nc;
  }
  uint32_t h = (uint32_t)((key * 0x9E3779B97F4A7C15ull) >> 32) & (r->ccap - 1);
  while (r->ckey[h]) {
    if (r->ckey[h] == key) return r->cval[h];
    h = (h + 1) & (r->ccap - 1);
  }
  uint32_t id = new_reg(r, e->id, (int32_t)idx, e->type, e->bare);
  if (!id) return 0;
  r->ckey[h] = key;
  r->cval[h] = id;
  r->cn++;
  return id;
}

/* %name or name (a, b: the whole token) -> register id, 0 if not declared. The innermost
** declaration that declares the name wins: a scalar %r1, or a range %r<N> with N > 1. A range
** declares its elements one by one (ptxas: an inner %r<3> hides %r0..%r2 of an outer %r<15>, and
** %r7 inside it is still the outer one), so a range that does not hold the index is passed over. */
static uint32_t lookup_reg(R *r, uint32_t a, uint32_t b) {
  RegEnt *e = find_ent(r, r->s + a, b - a, 0);
  /* the innermost scalar of that name (a range of it is no use) */
  RegEnt *sc = e && !e->count ? e : NULL;
  if (e && e->count) {
    for (uint32_t k = e->next; k && !sc; k = r->ents.p[k - 1].next) {
      RegEnt *x = &r->ents.p[k - 1];
      if (x->hash == e->hash && x->len == e->len && !x->count &&
          memcmp(r->s + x->off, r->s + a, b - a) == 0)
        sc = x;
    }
  }
  uint32_t k = b;
  while (k > a && ISDIG(r->s[k - 1])) k--;
  if (k == b || k == a + (r->s[a] == '%') || b - k > 9 || (r->s[k] == '0' && b - k > 1))
    return sc ? sc->id : 0;
  uint32_t idx = 0;
  for (uint32_t j = k; j < b; j++) idx = idx * 10 + (uint32_t)(r->s[j] - '0');
  /* the innermost range %tmp<N> that holds the index (a scalar %tmp may shadow the name %tmp) */
  RegEnt *rg = NULL;
  if (r->nb) {
    uint32_t h = plB_hash(r->s + a, k - a), len = k - a;
    for (uint32_t q = r->buckets[h & (r->nb - 1)]; q && !rg; q = r->ents.p[q - 1].next) {
      RegEnt *x = &r->ents.p[q - 1];
      if (x->hash == h && x->len == len && x->count && idx < x->count &&
          memcmp(r->s + x->off, r->s + a, len) == 0)
        rg = x;
    }
  }
  /* the later declaration is the inner one */
  if (sc && (!rg || sc->serial > rg->serial)) return sc->id;
  if (!rg) return 0;
  return range_elem(r, rg, idx);
}

/* ---- operands ------------------------------------------------------------------------------ */

static int parse_opnd(R *r, uint32_t a, uint32_t b, plI_opnd *o, int branch, int depth);
static int raw_opnd(R *r, uint32_t a, uint32_t b, plI_opnd *o);

/* [tmap, {c0, c1, ...}] (s[a] '[', s[b-1] ']', the first comma at k): a tensor address, the base (a
** register or a symbol) then 1 to 5 coordinates (registers or integers) in the pool, as the DSL
** records it; anything else stays raw text */
static int tensor_addr(R *r, uint32_t a, uint32_t b, uint32_t k, plI_opnd *o) {
  const char *s = r->s;
  uint32_t x = trim_start(r, a + 1, b - 1), xe = trim_end(r, x, k);
  uint32_t v = trim_start(r, k + 1, b - 1), ve = trim_end(r, v, b - 1);
  if (v >= ve || s[v] != '{' || s[ve - 1] != '}' || xe <= x) return raw_opnd(r, a, b, o);
  plI_opnd e[6];
  memset(e, 0, sizeof e);
  if (!parse_opnd(r, x, xe, &e[0], 0, 1)) return 0;
  if ((e[0].kind != PLO_REG && e[0].kind != PLO_SYM) || (e[0].flags & PLOF_NEG))
    return raw_opnd(r, a, b, o);
  uint32_t n = 0, j = v + 1, end = ve - 1;
  for (;;) {
    uint32_t q = j;
    while (q < end && s[q] != ',') q++;
    if (n == 5) return raw_opnd(r, a, b, o);
    uint32_t ca = trim_start(r, j, q), cb = trim_end(r, ca, q);
    if (ca >= cb) return raw_opnd(r, a, b, o);
    if (!parse_opnd(r, ca, cb, &e[n + 1], 0, 1)) return 0;
    if ((e[n + 1].kind != PLO_REG && e[n + 1].kind != PLO_IMM) || (e[n + 1].flags & PLOF_NEG))
      return raw_opnd(r, a, b, o);
    n++;
    if (q >= end) break;
    j = q + 1;
  }
  uint32_t first = r->m->opnds.n;
  for (uint32_t i = 0; i <= n; i++)
    if (!plB_vec_push(r->m->opnds, e[i])) return oom(r);
  memset(o, 0, sizeof *o);
  o->kind = PLO_TADDR;
  o->id = first;
  o->n = (uint16_t)n;
  return 1;
}

static int raw_opnd(R *r, uint32_t a, uint32_t b, plI_opnd *o) {
  memset(o, 0, sizeof *o);
  o->kind = PLO_RAW;
  o->id = intern(r, a, b);
  return o->id != 0;
}

static int parse_int(R *r, uint32_t a, uint32_t b, uint64_t *v, int *hex) {
  const char *s = r->s;
  *hex = 0;
  if (a < b && (s[b - 1] == 'U' || s[b - 1] == 'u')) b--;
  if (a >= b) return 0;
  uint64_t x = 0;
  if (b - a > 2 && s[a] == '0' && (s[a + 1] == 'x' || s[a + 1] == 'X')) {
    if (b - a - 2 > 16) return 0;
    for (uint32_t k = a + 2; k < b; k++) {
      char c = s[k];
      int d = ISDIG(c)                 ? c - '0'
              : (c >= 'a' && c <= 'f') ? c - 'a' + 10
              : (c >= 'A' && c <= 'F') ? c - 'A' + 10
                                       : -1;
      if (d < 0) return 0;
      x = x << 4 | (uint64_t)d;
    }
    *hex = 1;
  } else if (b - a > 2 && s[a] == '0' && (s[a + 1] == 'b' || s[a + 1] == 'B')) {
    if (b - a - 2 > 64) return 0;
    for (uint32_t k = a + 2; k < b; k++) {
      if (s[k] != '0' && s[k] != '1') return 0;
      x = x << 1 | (uint64_t)(s[k] - '0');
    }
  } else {
    int base = (s[a] == '0' && b - a > 1) ? 8 : 10;
    for (uint32_t k = a; k < b; k++) {
      if (!ISDIG(s[k]) || (base == 8 && s[k] > '7')) return 0;
      uint64_t nx = x * (uint64_t)base + (uint64_t)(s[k] - '0');
      if (nx / (uint64_t)base != x && x) return 0;
      if (x > UINT64_MAX / (uint64_t)base) return 0;
      x = nx;
    }
  }
  *v = x;
  return 1;
}

/* an immediate: integer (decimal, hex, octal, binary, U suffix, minus), 0fXXXXXXXX, 0dX{16} */
static int parse_imm(R *r, uint32_t a, uint32_t b, plI_opnd *o) {
  const char *s = r->s;
  int neg = 0;
  if (a < b && s[a] == '-') {
    neg = 1;
    a++;
  }
  if (a >= b || !ISDIG(s[a])) return 0;
  if (!neg && b - a >= 2 && s[a] == '0' && (s[a + 1] | 32) == 'f' && b - a == 10) {
    uint64_t v = 0;
    for (uint32_t k = a + 2; k < b; k++) {
      char c = s[k];
      int d = ISDIG(c) ? c - '0' : ((c | 32) >= 'a' && (c | 32) <= 'f') ? (c | 32) - 'a' + 10 : -1;
      if (d < 0) return 0;
      v = v << 4 | (uint64_t)d;
    }
    o->kind = PLO_F32;
    o->v = v;
    return 1;
  }
  if (!neg && b - a >= 2 && s[a] == '0' && (s[a + 1] | 32) == 'd' && b - a == 18) {
    uint64_t v = 0;
    for (uint32_t k = a + 2; k < b; k++) {
      char c = s[k];
      int d = ISDIG(c) ? c - '0' : ((c | 32) >= 'a' && (c | 32) <= 'f') ? (c | 32) - 'a' + 10 : -1;
      if (d < 0) return 0;
      v = v << 4 | (uint64_t)d;
    }
    o->kind = PLO_F64;
    o->v = v;
    return 1;
  }
  uint64_t v;
  int hex;
  if (!parse_int(r, a, b, &v, &hex)) return 0;
  o->kind = PLO_IMM;
  o->v = neg ? (uint64_t)0 - v : v;
  if (hex) o->flags |= PLOF_HEX;
  if (s[b - 1] == 'U' || s[b - 1] == 'u') o->flags |= PLOF_UNSIGNED;
  return 1;
}

static int is_word(R *r, uint32_t a, uint32_t b) {
  if (a >= b || !ISID0(r->s[a])) return 0;
  for (uint32_t k = a + 1; k < b; k++)
    if (!ISID(r->s[k])) return 0;
  return 1;
}

/* %name or %sreg.x -> REG / SREG; 0 when neither (the caller keeps the text raw) */
static int reg_opnd(R *r, uint32_t a, uint32_t b, plI_opnd *o) {
  const char *s = r->s;
  if (b - a < 2 || s[a] != '%') return 0;
  uint32_t dot = a + 1;
  while (dot < b && s[dot] != '.') dot++;
  if (dot == b) {
    for (uint32_t k = a + 1; k < b; k++)
      if (!ISID(s[k])) return 0;
    uint32_t id = lookup_reg(r, a, b);
    if (id) {
      o->kind = PLO_REG;
      o->id = id;
      return 1;
    }
  }
  char nm[64];
  if (b - a - 1 >= sizeof nm) return 0;
  memcpy(nm, s + a + 1, b - a - 1);
  nm[b - a - 1] = 0;
  int t, pm, sm;
  if (!plA_sreg(nm, &t, &pm, &sm)) return 0;
  o->kind = PLO_SREG;
  o->n = (uint16_t)t;
  o->id = intern(r, a + 1, b);
  return o->id != 0;
}

/* an operand of the text [a, b); depth 1 inside a vector (elements are simple) */
static int parse_opnd(R *r, uint32_t a, uint32_t b, plI_opnd *o, int branch, int depth) {
  const char *s = r->s;
  a = trim_start(r, a, b);
  b = trim_end(r, a, b);
  memset(o, 0, sizeof *o);
  if (a >= b) return raw_opnd(r, a, b, o);
  char c = s[a];
  if (c == '!' && depth == 0) {
    uint32_t a2 = trim_start(r, a + 1, b);
    if (a2 < b && s[a2] == '%' && reg_opnd(r, a2, b, o)) {
      o->flags |= PLOF_NEG;
      return 1;
    }
    return raw_opnd(r, a, b, o);
  }
  if (c == '%') {
    /* p|q: two predicate destinations */
    const char *bar = memchr(s + a, '|', b - a);
    if (bar && depth == 0) {
      uint32_t k = (uint32_t)(bar - s);
      plI_opnd p[2];
      memset(p, 0, sizeof p);
      if (reg_opnd(r, a, trim_end(r, a, k), &p[0]) &&
          reg_opnd(r, trim_start(r, k + 1, b), b, &p[1])) {
        uint32_t first = r->m->opnds.n;
        if (!plB_vec_push(r->m->opnds, p[0]) || !plB_vec_push(r->m->opnds, p[1])) return oom(r);
        o->kind = PLO_PAIR;
        o->id = first;
        o->n = 2;
        return 1;
      }
      return raw_opnd(r, a, b, o);
    }
    if (reg_opnd(r, a, b, o)) return 1;
    return raw_opnd(r, a, b, o);
  }
  if (c == '_' && b == a + 1) {
    o->kind = PLO_SINK;
    return 1;
  }
  if ((c == '{' && s[b - 1] == '}') || (c == '(' && s[b - 1] == ')' && depth == 0)) {
    if (depth > 0) return raw_opnd(r, a, b, o);
    /* elements: split at commas (no nesting inside an element) */
    uint32_t n = 0, k = a + 1, e = b - 1;
    plI_opnd el;
    size_t mark = r->tmp.n;
    if (trim_start(r, k, e) < e) {
      for (;;) {
        uint32_t j = k;
        while (j < e && s[j] != ',') j++;
        if (!parse_opnd(r, k, j, &el, branch, 1)) return 0;
        if (!plB_vec_push(r->tmp, el)) return oom(r);
        n++;
        if (j >= e) break;
        k = j + 1;
      }
    }
    if (n > 0xffff) {
      r->tmp.n = (uint32_t)mark;
      return raw_opnd(r, a, b, o);
    }
    uint32_t first = r->m->opnds.n;
    for (uint32_t i = 0; i < n; i++)
      if (!plB_vec_push(r->m->opnds, r->tmp.p[mark + i])) return oom(r);
    r->tmp.n = (uint32_t)mark;
    o->kind = PLO_VEC;
    o->id = first;
    o->n = (uint16_t)n;
    if (c == '(') o->flags |= PLOF_PAREN;
    return 1;
  }
  if (c == '[' && s[b - 1] == ']') {
    uint32_t x = trim_start(r, a + 1, b - 1), y = trim_end(r, x, b - 1);
    uint32_t k = x;
    const char *comma = depth == 0 && x < y ? memchr(s + x, ',', y - x) : NULL;
    if (comma) return tensor_addr(r, a, b, (uint32_t)(comma - s), o);
    o->kind = PLO_ADDR;
    if (k < y && s[k] == '%') {
      k++;
      while (k < y && ISID(s[k])) k++;
      uint32_t id = lookup_reg(r, x, k);
      if (!id) return raw_opnd(r, a, b, o);
      o->flags |= PLOF_BASE_REG;
      o->id = id;
    } else if (k < y && ISID0(s[k])) {
      while (k < y && (ISID(s[k]) || s[k] == '.')) k++;
      uint32_t id = lookup_reg(r, x, k);
      if (id) {
        o->flags |= PLOF_BASE_REG;
        o->id = id;
      } else {
        o->flags |= PLOF_BASE_SYM;
        o->id = intern(r, x, k);
        if (!o->id) return 0;
      }
    } else {
      plI_opnd im;
      memset(&im, 0, sizeof im);
      if (!parse_imm(r, x, y, &im) || im.kind != PLO_IMM) return raw_opnd(r, a, b, o);
      o->v = im.v;
      return 1;
    }
    k = trim_start(r, k, y);
    if (k < y) {
      int neg = 0;
      if (s[k] == '+') {
        k = trim_start(r, k + 1, y);
        if (k < y && s[k] == '-') {
          neg = 1;
          k++;
        }
      } else if (s[k] == '-') {
        neg = 1;
        k++;
      } else
        return raw_opnd(r, a, b, o);
      plI_opnd im;
      memset(&im, 0, sizeof im);
      if (!parse_imm(r, trim_start(r, k, y), y, &im) || im.kind != PLO_IMM)
        return raw_opnd(r, a, b, o);
      o->v = neg ? (uint64_t)0 - im.v : im.v;
    }
    return 1;
  }
  if (ISDIG(c) || c == '-') {
    if (parse_imm(r, a, b, o)) return 1;
    return raw_opnd(r, a, b, o);
  }
  if (is_word(r, a, b)) {
    uint32_t id = lookup_reg(r, a, b); /* a register declared without '%' */
    if (id) {
      o->kind = PLO_REG;
      o->id = id;
      return 1;
    }
    o->kind = branch ? PLO_LABEL : PLO_SYM;
    o->id = intern(r, a, b);
    return o->id != 0;
  }
  return raw_opnd(r, a, b, o);
}

/* ---- statements ---------------------------------------------------------------------------- */

static int push_stmt(R *r, plI_stmt *st, uint32_t off, uint32_t end, uint32_t tok) {
  plI_func *f = &r->m->funcs.p[r->func];
  plI_span sp = { off, end - off, tok };
  st->file = r->fileid;
  st->line = line_of(r, tok);
  if (!plB_vec_push(f->stmts, *st) || !plB_vec_push(f->vtext, sp)) return oom(r);
  return 1;
}

static int raw_stmt(R *r, uint32_t a, uint32_t b, uint32_t off, uint32_t end, int keep) {
  plI_stmt st;
  memset(&st, 0, sizeof st);
  st.kind = PLS_RAW;
  st.opc = keep ? intern(r, a, b) : 0;
  if (keep && !st.opc) return 0;
  return push_stmt(r, &st, off, end, a);
}

/* an instruction [a, e) (e at its ';') */
static int insn(R *r, uint32_t a, uint32_t e, uint32_t off, uint32_t end) {
  const char *s = r->s;
  plI_stmt st;
  memset(&st, 0, sizeof st);
  st.kind = PLS_INSN;
  uint32_t i = a;
  if (s[i] == '@') {
    i = trim_start(r, i + 1, e);
    if (i < e && s[i] == '!') {
      st.flags |= PLOF_NEG;
      i = trim_start(r, i + 1, e);
    }
    uint32_t g = i;
    if (g >= e || !(s[g] == '%' || ISID0(s[g])))
      return fail(r, g, "expected a predicate register after '@'");
    i = g + 1;
    while (i < e && ISID(s[i])) i++;
    uint32_t id = lookup_reg(r, g, i);
    if (r->failed) return 0;
    if (id)
      st.guard = id + 1;
    else
      st.flags |= 0x80; /* the guard is not a declared register (the linter says so) */
    i = trim_start(r, i, e);
  }
  uint32_t o0 = i;
  if (i >= e || !ISID0(s[i]) || s[i] == '$')
    return fail(r, i, "expected an instruction, a label or a directive");
  while (i < e && (ISID(s[i]) || s[i] == '.' || s[i] == ':') && s[i] != '$') i++;
  st.opc = plA_opcode(r->isa, s + o0, i - o0);
  if (!st.opc) return oom(r);
  int branch = (i - o0 >= 3 && memcmp(s + o0, "bra", 3) == 0) ||
               (i - o0 >= 3 && memcmp(s + o0, "brx", 3) == 0);
  i = trim_start(r, i, e);
  uint32_t mark = r->tmp.n;
  if (i < e) {
    for (;;) {
      uint32_t j = i;
      int depth = 0;
      while (j < e) {
        char c = s[j];
        if (c == '[' || c == '{' || c == '(')
          depth++;
        else if (c == ']' || c == '}' || c == ')')
          depth--;
        else if (c == ',' && depth == 0)
          break;
        j++;
      }
      plI_opnd o;
      if (!parse_opnd(r, i, j, &o, branch, 0)) return 0;
      if (!plB_vec_push(r->tmp, o)) return oom(r);
      if (j >= e) break;
      i = j + 1;
    }
  }
  uint32_t nops = r->tmp.n - mark;
  if (nops > 0xffff) return fail(r, a, "too many operands");
  st.nops = (uint16_t)nops;
  st.ops = r->m->opnds.n;
  for (uint32_t k = 0; k < nops; k++)
    if (!plB_vec_push(r->m->opnds, r->tmp.p[mark + k])) return oom(r);
  r->tmp.n = mark;
  return push_stmt(r, &st, off, end, a);
}

/* .reg .type %a, %b<N>; */
static int reg_decl(R *r, uint32_t a, uint32_t e) {
  uint32_t i = a;
  Tok t;
  int type = 0;
  next_tok(r, &i, e, &t); /* .reg */
  while (next_tok(r, &i, e, &t)) {
    if (t.c == 'w' && r->s[t.a] == '.') {
      int ty = plB_type_from_name(r->s + t.a + 1, t.b - t.a - 1);
      if (ty) type = ty;
      continue;
    }
    if (t.c == ',') continue;
    if (t.c == 'w' && (r->s[t.a] == '%' || ISID0(r->s[t.a])) && t.b - t.a > (r->s[t.a] == '%')) {
      uint32_t na = t.a + (r->s[t.a] == '%'), nb = t.b;
      for (uint32_t k = na; k < nb; k++)
        if (!ISID(r->s[k])) return fail(r, t.a, "bad register name");
      uint32_t count = 0, save = i;
      Tok u;
      if (next_tok(r, &i, e, &u) && u.c == '<') {
        Tok v, w;
        int ok;
        next_tok(r, &i, e, &v);
        uint64_t c = tok_num(r, &v, &ok);
        if (!ok || !next_tok(r, &i, e, &w) || w.c != '>')
          return fail(r, v.a, "expected a register count: %%name<N>");
        if (c == 0 || c > 0x7fffffff) return fail(r, v.a, "bad register count");
        count = (uint32_t)c;
      } else
        i = save;
      if (!type)
        return fail(r, t.a, "a register declaration needs a type (.b32, .f32, .pred, ...)");
      if (!declare(r, t.a, nb, type, count)) return 0;
      continue;
    }
    return fail(r, t.a, "unexpected '%.*s' in a register declaration",
                (int)(t.b - t.a > 40 ? 40 : t.b - t.a), r->s + t.a);
  }
  return !r->failed;
}

static int space_of(R *r, const Tok *t) {
  if (tok_is(r, t, ".global")) return PLV_GLOBAL;
  if (tok_is(r, t, ".shared")) return PLV_SHARED;
  if (tok_is(r, t, ".const")) return PLV_CONST;
  if (tok_is(r, t, ".local")) return PLV_LOCAL;
  if (tok_is(r, t, ".param")) return PLV_PARAM;
  return -1;
}
static int linkage_of(R *r, const Tok *t) {
  if (tok_is(r, t, ".visible")) return PLK_VISIBLE;
  if (tok_is(r, t, ".extern")) return PLK_EXTERN;
  if (tok_is(r, t, ".weak")) return PLK_WEAK;
  if (tok_is(r, t, ".common")) return PLK_COMMON;
  return -1;
}

/* a variable declaration: [linkage] space [.align N] [.vN] .type name[N]... [= init], ... */
static int var_decl(R *r, uint32_t a, uint32_t e, int func, int param_ret) {
  uint32_t i = a;
  Tok t;
  plI_var v;
  memset(&v, 0, sizeof v);
  v.space = PLV_PARAM;
  int named = 0;
  while (next_tok(r, &i, e, &t)) {
    if (t.c == 'w' && r->s[t.a] == '.') {
      int k;
      if ((k = linkage_of(r, &t)) >= 0)
        v.linkage = (uint8_t)k;
      else if ((k = space_of(r, &t)) >= 0)
        v.space = (uint8_t)k;
      else if (tok_is(r, &t, ".align")) {
        Tok n;
        int ok;
        next_tok(r, &i, e, &n);
        uint64_t al = tok_num(r, &n, &ok);
        if (ok && al < 0x80000000u) v.align = (uint32_t)al;
      } else {
        int ty = plB_type_from_name(r->s + t.a + 1, t.b - t.a - 1);
        if (ty) v.type = (uint8_t)ty;
      }
      continue;
    }
    if (t.c == 'w' && (ISID0(r->s[t.a]) || r->s[t.a] == '%')) {
      v.name = intern(r, t.a, t.b);
      if (!v.name) return 0;
      v.count = 0;
      uint32_t save = i;
      Tok u;
      while (next_tok(r, &i, e, &u) && u.c == '[') {
        Tok n;
        int ok;
        uint32_t s2 = i;
        next_tok(r, &i, e, &n);
        if (n.c == ']') {
          v.count = UINT64_MAX;
          save = i;
          continue;
        }
        uint64_t c = tok_num(r, &n, &ok);
        if (!ok) {
          i = s2;
          break;
        }
        Tok cl;
        if (!next_tok(r, &i, e, &cl) || cl.c != ']') break;
        v.count = v.count && v.count != UINT64_MAX
                      ? (c && v.count > UINT64_MAX / c ? UINT64_MAX - 1 : v.count * c)
                      : c;
        save = i;
      }
      i = save;
      v.init = 0;
      uint32_t s3 = i;
      Tok eq;
      if (next_tok(r, &i, e, &eq) && eq.c == '=') {
        uint32_t ia = trim_start(r, i, e), ib = trim_end(r, ia, e);
        if (ia < ib && !(v.init = intern(r, ia, ib))) return 0;
        i = e;
      } else
        i = s3;
      v.file = r->fileid;
      v.line = line_of(r, t.a);
      v.off = t.a;
      v.scope = func >= 0 && !param_ret && r->depth ? r->bstmt[r->depth] + 1 : 0;
      int ok = 1;
      if (func < 0)
        ok = plB_vec_push(r->m->globals, v);
      else {
        plI_func *f = &r->m->funcs.p[func];
        if (param_ret == 1)
          ok = plB_vec_push(f->params, v);
        else if (param_ret == 2)
          ok = plB_vec_push(f->rets, v);
        else
          ok = plB_vec_push(f->vars, v);
      }
      if (!ok) return oom(r);
      r->m->nvars++;
      named = 1;
      continue;
    }
    if (t.c == ',' || t.c == '<' || t.c == '>' || t.c == 'w' || t.c == '"') continue;
    break;
  }
  (void)named;
  return !r->failed;
}

/* a body directive [a, e) */
static int body_directive(R *r, uint32_t a, uint32_t e) {
  uint32_t i = a;
  Tok t;
  next_tok(r, &i, e, &t);
  if (tok_is(r, &t, ".reg")) return reg_decl(r, a, e);
  if (space_of(r, &t) >= 0 || linkage_of(r, &t) >= 0) return var_decl(r, a, e, r->func, 0);
  return 1;
}

/* parameter lists: ( decl, decl ) into params (which 1) or rets (2); i after the '(' */
static int param_list(R *r, uint32_t *i, uint32_t e, int which) {
  const char *s = r->s;
  uint32_t k = *i, start = k;
  int depth = 0;
  for (; k < e; k++) {
    char c = s[k];
    if (c == '[' || c == '(')
      depth++;
    else if (c == ']')
      depth--;
    else if ((c == ',' && depth == 0) || (c == ')' && depth == 0)) {
      if (trim_start(r, start, k) < k && !var_decl(r, start, k, r->func, which)) return 0;
      start = k + 1;
      if (c == ')') {
        *i = k + 1;
        return 1;
      }
    } else if (c == ')')
      depth--;
  }
  return fail(r, *i, "missing ')' after the parameters");
}

/* a function header [a, e): linkage .entry|.func [(rets)] name [(params)] directives */
static int func_header(R *r, uint32_t a, uint32_t e, int *fidx) {
  uint32_t i = a;
  Tok t;
  int linkage = PLK_NONE, kind = -1;
  while (next_tok(r, &i, e, &t)) {
    int k = linkage_of(r, &t);
    if (k >= 0) {
      linkage = k;
      continue;
    }
    if (tok_is(r, &t, ".entry")) {
      kind = PLF_ENTRY;
      break;
    }
    if (tok_is(r, &t, ".func")) {
      kind = PLF_FUNC;
      break;
    }
    return fail(r, t.a, "expected .entry or .func");
  }
  if (kind < 0) return fail(r, a, "expected .entry or .func");
  plI_func f;
  memset(&f, 0, sizeof f);
  f.kind = (uint8_t)kind;
  f.linkage = (uint8_t)linkage;
  f.file = r->fileid;
  f.line = line_of(r, a);
  if (!plB_vec_push(r->m->funcs, f)) return oom(r);
  r->func = (int)r->m->funcs.n - 1;
  *fidx = r->func;
  if (!next_tok(r, &i, e, &t)) return fail(r, t.a, "expected the function's name");
  if (t.c == '(') {
    if (!param_list(r, &i, e, 2)) return 0;
    if (!next_tok(r, &i, e, &t)) return fail(r, t.a, "expected the function's name");
  }
  if (t.c != 'w' || !(ISID0(r->s[t.a]) || r->s[t.a] == '%'))
    return fail(r, t.a, "expected the function's name");
  uint32_t name = intern(r, t.a, t.b);
  if (!name) return 0;
  r->m->funcs.p[r->func].name = name;
  uint32_t save = i;
  if (next_tok(r, &i, e, &t) && t.c == '(') {
    if (!param_list(r, &i, e, 1)) return 0;
  } else
    i = save;
  plI_func *fp = &r->m->funcs.p[r->func];
  while (next_tok(r, &i, e, &t)) {
    uint32_t *dims = NULL;
    uint32_t *one = NULL;
    if (tok_is(r, &t, ".maxntid"))
      dims = fp->maxntid;
    else if (tok_is(r, &t, ".reqntid"))
      dims = fp->reqntid;
    else if (tok_is(r, &t, ".reqnctapercluster"))
      dims = fp->reqnctapercluster;
    else if (tok_is(r, &t, ".minnctapersm"))
      one = &fp->minnctapersm;
    else if (tok_is(r, &t, ".maxnreg"))
      one = &fp->maxnreg;
    else if (tok_is(r, &t, ".maxclusterrank"))
      one = &fp->maxclusterrank;
    else if (tok_is(r, &t, ".noreturn")) {
      fp->noreturn = 1;
      continue;
    } else if (tok_is(r, &t, ".explicitcluster")) {
      fp->explicitcluster = 1;
      continue;
    } else
      continue; /* other directives, strings, commas: kept in the text */
    uint32_t d[3] = { 0, 0, 0 };
    for (int n = 0; n < 3; n++) {
      uint32_t s2 = i;
      Tok v;
      int ok;
      if (n > 0) {
        if (!next_tok(r, &i, e, &v) || v.c != ',') {
          i = s2;
          break;
        }
      }
      next_tok(r, &i, e, &v);
      uint64_t x = tok_num(r, &v, &ok);
      if (!ok) return fail(r, v.a, "expected a number");
      d[n] = x > 0xffffffffu ? 0xffffffffu : (uint32_t)x;
    }
    if (dims)
      memcpy(dims, d, sizeof d);
    else
      *one = d[0];
  }
  return !r->failed;
}

/* the body after '{' (span start at off); sets the tail span */
static uint32_t body(R *r, uint32_t off) {
  const char *s = r->s;
  r->depth = 0;
  r->marks[0] = r->ents.n;
  uint32_t fstart = r->ents.n;
  for (;;) {
    uint32_t i = skip_trivia(r, off);
    if (i == UINT32_MAX) return 0;
    r->stmt = i + 1;
    if (i >= r->n) return fail(r, i, "missing '}' at the end of the function body");
    char c = s[i];
    uint32_t end;
    if (c == '}') {
      end = line_end(r, i + 1);
      if (r->depth == 0) {
        plI_func *f = &r->m->funcs.p[r->func];
        f->vtail = (plI_span){ off, end - off, i };
        pop_scope(r, fstart);
        return end;
      }
      pop_scope(r, r->marks[r->depth]);
      r->depth--;
      if (!raw_stmt(r, i, i + 1, off, end, 1)) return 0;
    } else if (c == '{') {
      if (r->depth >= PLR_MAXDEPTH) return fail(r, i, "blocks nested deeper than %d", PLR_MAXDEPTH);
      r->marks[++r->depth] = r->ents.n;
      r->bstmt[r->depth] = r->m->funcs.p[r->func].stmts.n;
      end = line_end(r, i + 1);
      if (!raw_stmt(r, i, i + 1, off, end, 1)) return 0;
    } else if (c == '.') {
      uint32_t k = i + 1;
      while (k < r->n && ISID(s[k])) k++;
      uint32_t e;
      if ((k - i == 4 && memcmp(s + i, ".loc", 4) == 0) ||
          (k - i == 5 && memcmp(s + i, ".file", 5) == 0)) {
        e = eol(r, i);
        end = line_end(r, e);
        if (!raw_stmt(r, i, e, off, end, 1)) return 0;
      } else {
        e = stmt_end(r, i, 0);
        if (e == UINT32_MAX) return 0;
        end = line_end(r, e + 1);
        if (!body_directive(r, i, e)) return 0;
        if (!raw_stmt(r, i, e + 1, off, end, 1)) return 0;
      }
    } else {
      /* a label? name ':' (not '::') */
      uint32_t k = i;
      while (k < r->n && ISID(s[k])) k++;
      uint32_t c2 = k;
      while (c2 < r->n && (s[c2] == ' ' || s[c2] == '\t')) c2++;
      if (k > i && ISID0(s[i]) && c2 < r->n && s[c2] == ':' &&
          !(c2 + 1 < r->n && s[c2 + 1] == ':')) {
        uint32_t nx = c2 + 1;
        while (nx < r->n && (s[nx] == ' ' || s[nx] == '\t')) nx++;
        if (r->n - nx >= 14 && memcmp(s + nx, ".callprototype", 14) == 0) {
          uint32_t e = stmt_end(r, i, 0);
          if (e == UINT32_MAX) return 0;
          end = line_end(r, e + 1);
          if (!raw_stmt(r, i, e + 1, off, end, 1)) return 0;
        } else {
          end = line_end(r, c2 + 1);
          plI_stmt st;
          memset(&st, 0, sizeof st);
          st.kind = PLS_LABEL;
          if (!(st.opc = intern(r, i, k))) return 0;
          if (!push_stmt(r, &st, off, end, i)) return 0;
        }
      } else {
        uint32_t e = stmt_end(r, i, 0);
        if (e == UINT32_MAX) return 0;
        end = line_end(r, e + 1);
        if (!insn(r, i, e, off, end)) return 0;
      }
    }
    off = end;
  }
}

static int add_piece(R *r, int kind, uint32_t func, uint32_t a, uint32_t b) {
  if (kind == PLI_PIECE_TEXT && a == b) return 1;
  plI_piece p = { (uint32_t)kind, func, { a, b - a, a } };
  if (!plB_vec_push(r->m->vpieces, p)) return oom(r);
  return 1;
}

/* a line directive at module scope: .version, .target, .address_size, .file */
static int module_line_directive(R *r, uint32_t a, uint32_t e) {
  uint32_t i = a;
  Tok t, v;
  next_tok(r, &i, e, &t);
  if (tok_is(r, &t, ".version")) {
    next_tok(r, &i, e, &v);
    const char *s = r->s;
    uint32_t k = v.a;
    int maj = 0, min = 0, ok = 0;
    while (k < v.b && ISDIG(s[k]) && maj < 1000) {
      maj = maj * 10 + s[k++] - '0';
      ok = 1;
    }
    if (ok && k < v.b && s[k] == '.') {
      k++;
      ok = 0;
      while (k < v.b && ISDIG(s[k]) && min < 1000) {
        min = min * 10 + s[k++] - '0';
        ok = 1;
      }
    } else
      ok = 0;
    if (!ok || k != v.b) return fail(r, v.a, "expected a version such as 8.5 after .version");
    r->m->version = maj * 10 + (min > 9 ? 9 : min);
  } else if (tok_is(r, &t, ".target")) {
    if (!next_tok(r, &i, e, &v) || v.c != 'w')
      return fail(r, v.a, "expected a target such as sm_90a after .target");
    if (!(r->m->target = intern(r, v.a, v.b))) return 0;
  } else if (tok_is(r, &t, ".address_size")) {
    int ok;
    next_tok(r, &i, e, &v);
    uint64_t x = tok_num(r, &v, &ok);
    if (!ok || (x != 32 && x != 64)) return fail(r, v.a, "expected 32 or 64 after .address_size");
    r->m->address_size = (int)x;
  }
  return 1;
}

static int parse_module(R *r) {
  const char *s = r->s;
  uint32_t pos = 0, piece = 0;
  for (;;) {
    uint32_t i = skip_trivia(r, pos);
    if (i == UINT32_MAX) return 0;
    r->stmt = i + 1;
    if (i >= r->n) return add_piece(r, PLI_PIECE_TEXT, 0, piece, r->n);
    char c = s[i];
    if (c != '.') {
      if (c == '{' || c == '}') return fail(r, i, "unexpected '%c' outside a function", c);
      return fail(r, i, "expected a directive (.version, .target, .entry, .func, .global, ...)");
    }
    uint32_t k = i + 1;
    while (k < r->n && ISID(s[k])) k++;
    uint32_t wl = k - i;
#define W(lit) (wl == sizeof(lit) - 1 && memcmp(s + i, lit, wl) == 0)
    if (W(".version") || W(".target") || W(".address_size") || W(".file") || W(".loc")) {
      uint32_t e = eol(r, i);
      if (!module_line_directive(r, i, e)) return 0;
      pos = line_end(r, e);
      continue;
    }
    uint32_t e = stmt_end(r, i, 1);
    if (e == UINT32_MAX) return 0;
    /* what kind of statement: look at its words */
    int isfunc = 0, issection = 0;
    {
      uint32_t j = i;
      Tok t;
      while (next_tok(r, &j, e, &t)) {
        if (tok_is(r, &t, ".entry") || tok_is(r, &t, ".func")) {
          isfunc = 1;
          break;
        }
        if (tok_is(r, &t, ".section")) {
          issection = 1;
          break;
        }
        if (t.c == '(' || t.c == '=') break;
      }
      if (r->failed) return 0;
    }
    if (s[e] == '{' && issection) {
      /* a debug section: kept as text; braces matched, strings skipped */
      int depth = 0;
      uint32_t j = e;
      for (; j < r->n; j++) {
        char ch = s[j];
        if (ch == '"') {
          for (j++; j < r->n && s[j] != '"' && s[j] != '\n'; j++)
            if (s[j] == '\\') j++;
        } else if (ch == '/' && j + 1 < r->n && (s[j + 1] == '/' || s[j + 1] == '*')) {
          uint32_t q = skip_trivia(r, j);
          if (q == UINT32_MAX) return 0;
          j = q - 1;
        } else if (ch == '{')
          depth++;
        else if (ch == '}' && --depth == 0)
          break;
      }
      if (j >= r->n) return fail(r, e, "missing '}' at the end of the section");
      pos = line_end(r, j + 1);
      continue;
    }
    if (s[e] == '{' && isfunc) {
      int fi;
      if (!add_piece(r, PLI_PIECE_TEXT, 0, piece, i)) return 0;
      if (!func_header(r, i, e, &fi)) return 0;
      uint32_t hend = line_end(r, e + 1);
      r->m->funcs.p[fi].vhead = (plI_span){ i, hend - i, i };
      uint32_t end = body(r, hend);
      if (!end) return 0;
      if (!add_piece(r, PLI_PIECE_FUNC, (uint32_t)fi, i, i)) return 0;
      pos = piece = end;
      continue;
    }
    if (s[e] == '{') {
      /* an initializer: ... = { ... }; */
      e = stmt_end(r, i, 0);
      if (e == UINT32_MAX) return 0;
    }
    if (isfunc) {
      int fi;
      if (!add_piece(r, PLI_PIECE_TEXT, 0, piece, i)) return 0;
      if (!func_header(r, i, e, &fi)) return 0;
      uint32_t hend = line_end(r, e + 1);
      r->m->funcs.p[fi].vhead = (plI_span){ i, hend - i, i };
      r->m->funcs.p[fi].declared_only = 1;
      if (!add_piece(r, PLI_PIECE_FUNC, (uint32_t)fi, i, i)) return 0;
      pos = piece = hend;
      continue;
    }
    {
      uint32_t j = i;
      Tok t;
      next_tok(r, &j, e, &t);
      if (linkage_of(r, &t) >= 0 || space_of(r, &t) >= 0) {
        if (!var_decl(r, i, e, -1, 0)) return 0;
      }
    }
    pos = line_end(r, e + 1);
#undef W
  }
}

/* large buffers filled once (the source copy, the operand array): advise transparent huge pages,
** so that touching fresh memory costs one fault per 2 MiB instead of one per 4 KiB (on a VM a page
** fault is several microseconds: at 4 KiB pages, half the parse time of a 30 MB file) */
static void advise_huge(void *p, size_t bytes) {
#if defined(__linux__) && defined(MADV_HUGEPAGE)
  if (!p || bytes < (4u << 20)) return;
  uintptr_t a = ((uintptr_t)p + (2u << 20) - 1) & ~(uintptr_t)((2u << 20) - 1);
  uintptr_t b = ((uintptr_t)p + bytes) & ~(uintptr_t)((2u << 20) - 1);
  if (b > a) (void)madvise((void *)a, b - a, MADV_HUGEPAGE);
#else
  (void)p;
  (void)bytes;
#endif
}

plI_module *plP_parse(struct plA_ctx *isa, const char *text, size_t n, const char *file,
                      plB_buf *err) {
  R r;
  memset(&r, 0, sizeof r);
  r.file = file ? file : "<ptx>";
  r.err = err;
  r.lcline = 1;
  if (n > PLR_MAXTEXT) {
    plB_buf_printf(err, "%s:1:1: error: the file is too large (%zu bytes)", r.file, n);
    return NULL;
  }
  if (!text && n) {
    plB_buf_printf(err, "%s:1:1: error: no text", r.file);
    return NULL;
  }
  plI_module *m = plI_new(isa);
  if (!m) {
    plB_buf_printf(err, "%s:1:1: error: out of memory", r.file);
    return NULL;
  }
  m->address_size = 64;
  /* the module keeps its own copy of the text, allocated at its size (no doubling): n bytes, the
  ** terminating NUL, and the one byte more that plB_buf_reserve(.., 1) below asks for (without it
  ** the reserve doubled the block, copying the whole text once more) */
  m->vsrc.p = malloc(n + 2);
  if (m->vsrc.p) {
    advise_huge(m->vsrc.p, n + 2);
    if (n) memcpy(m->vsrc.p, text, n);
    m->vsrc.n = n;
    m->vsrc.cap = n + 2;
  } else
    m->vsrc.oom = 1;
  if (m->vsrc.oom || !plB_buf_reserve(&m->vsrc, 1)) {
    plI_free(m);
    plB_buf_printf(err, "%s:1:1: error: out of memory", r.file);
    return NULL;
  }
  m->vsrc.p[n] = 0;
  r.s = m->vsrc.p ? m->vsrc.p : "";
  r.n = (uint32_t)n;
  r.m = m;
  r.isa = isa;
  /* statements, functions and variables are anchored at their lines of this chunk (the emulator's
  ** messages name them: "K.ptx:12: error: ...") */
  if (!(r.fileid = plI_str(m, r.file))) {
    plI_free(m);
    plB_buf_printf(err, "%s:1:1: error: out of memory", r.file);
    return NULL;
  }
  /* room for the operands up front (untouched pages cost nothing): no copying while growing */
  if (n > 4096 &&
      !plB_vec_grow((void **)&m->opnds.p, &m->opnds.cap, (uint32_t)(n / 8), sizeof *m->opnds.p)) {
    plI_free(m);
    plB_buf_printf(err, "%s:1:1: error: out of memory", r.file);
    return NULL;
  }
  advise_huge(m->opnds.p, (size_t)m->opnds.cap * sizeof *m->opnds.p);
  int ok = parse_module(&r);
  if (ok && !r.failed && !m->vpieces.n) { /* an empty file: one empty piece keeps it verbatim */
    plI_piece p = { PLI_PIECE_TEXT, 0, { 0, 0, 0 } };
    if (!plB_vec_push(m->vpieces, p)) ok = oom(&r);
  }
  pop_scope(&r, 0);
  free(r.buckets);
  free(r.ckey);
  free(r.cval);
  plB_vec_free(r.ents);
  plB_vec_free(r.tmp);
  if (!ok || r.failed || m->status) {
    if (!r.failed)
      plB_buf_printf(err, "%s:1:1: error: %s", r.file,
                     m->status ? plB_buf_cstr(&m->err) : "parse failed");
    plI_free(m);
    return NULL;
  }
  return m;
}
