/* sugar.c -- a parsed module -> the sugared Lua script of `ptxlua --from-ptx F.ptx --sugar`:
** kernels as DSL bodies (named parameters, register arrays, instruction chains, guards, labels,
** runs folded into Lua loops), with the layout the printer would not reproduce kept beside them
** (lua/ptxlua/sugar.lua). The script is then run and its PTX compared with the file: a statement
** that does not come back identical is kept as written, and the command says so. */
#include "parse.h"
#include "sugar.h"
#include "print.h"
#include "isa.h"
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <ctype.h>
#include <math.h>

static plP_runner RUN = NULL;
void plP_set_runner(plP_runner run) {
  RUN = run;
}

static void lua_cstr(plB_buf *b, const char *s) {
  plP_lua_str(b, s, (uint32_t)strlen(s));
}

static const char *const KEYWORDS[] = { "and", "break", "do", "else", "elseif", "end", "false",
                                        "for", "function", "goto", "if", "in", "local", "nil",
                                        "not", "or", "repeat", "return", "then", "true", "until",
                                        "while",
                                        /* the script's own names */
                                        "ptx", "sugar", "doc", "t", "L", "R", "A", "i", NULL };
static int is_keyword(const char *s, size_t n) {
  if (n < 1 || n > 8) return 0; /* the longest is "function" */
  for (int i = 0; KEYWORDS[i]; i++)
    if (KEYWORDS[i][0] == s[0] && strlen(KEYWORDS[i]) == n && memcmp(KEYWORDS[i], s, n) == 0)
      return 1;
  return 0;
}
/* decimal integers without printf (the writer formats millions of register indices) */
static void put_dec(plB_buf *o, int64_t v) {
  char tmp[24];
  int i = 24;
  uint64_t u = v < 0 ? (uint64_t)0 - (uint64_t)v : (uint64_t)v;
  do {
    tmp[--i] = (char)('0' + u % 10);
    u /= 10;
  } while (u);
  if (v < 0) tmp[--i] = '-';
  plB_buf_add(o, tmp + i, (size_t)(24 - i));
}
static int is_ident(const char *s, size_t n) {
  if (!n || !((s[0] >= 'a' && s[0] <= 'z') || (s[0] >= 'A' && s[0] <= 'Z') || s[0] == '_'))
    return 0;
  for (size_t i = 1; i < n; i++) {
    char c = s[i];
    if (!((c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') || (c >= '0' && c <= '9') || c == '_'))
      return 0;
  }
  return 1;
}

/* a keep flag per statement of every function, with why (kept across the checking rounds) */
/* next: the function's previous + 1 */
typedef struct Keep {
  uint32_t func, stmt, next;
  char *why;
} Keep;
/* text: the whole function as written; khead, nhead: its last entry of G.keep, G.nofold + 1 */
typedef struct Fn {
  int text;
  char *why;
  int head, tail;
  uint32_t khead, nhead;
} Fn;
/* script line -> statement; kind W_LOOP/W_RUN: a line of a folded loop or run, whose statements
** (stmt .. stmt+n-1) are written one by one in the next round when the DSL refuses that line;
** W_SCOPE: the line of a nested block's ptx.scope (stmt: its `{`), kept as written next round */
enum { W_STMT, W_LOOP, W_RUN, W_SCOPE };
/* shape: an instruction's */
typedef struct Where {
  uint32_t line, func, stmt, n, kind;
  uint64_t shape;
} Where;
typedef struct Nofold {
  uint32_t func, stmt, next;
} Nofold;

/* one statement of a function body as the script writes it: Lua lines in G.ib, [a, b) before the
** statement (layout), [b, c) the statement, [c, d) after it (the rest of its line) */
enum { IT_TEXT, IT_DECL, IT_LABEL, IT_INSN, IT_KEPT, IT_OPEN, IT_CLOSE };
typedef struct Item {
  uint32_t a, b, c, d;
  uint32_t loop_end; /* a label: the branch closing the loop it heads, 0 if none */
  /* an instruction: its call with integers as \1 (G.tb), the integers (G.vals) */
  uint32_t tpl, ntpl, val, nval;
  uint32_t blk; /* IT_OPEN / IT_CLOSE: the block (G.blks) */
  uint8_t kind, depth, mbar, nofold;
  uint8_t brace; /* 1 a `{`, 2 a `}` (a ptx.scope's or one kept as written) */
  /* names the loop folds need, resolved when the statement was written (G.xb, NUL-terminated; 0
  ** none): a label's Lua expression; a guarded bra's predicate; an mbarrier.try_wait's operands */
  uint32_t x0, x1;
  /* an instruction: its call's shape (the call with its integers left out, the register types);
  ** chk: the first of its shape, run by the check */
  uint64_t shape;
  uint8_t chk;
  uint8_t lonly; /* a loop's label: named only by branches inside the loop */
} Item;
typedef struct Lv {
  uint32_t n;
  int open;
} Lv;

/* a name in scope: a register declaration (count 0: a scalar) or a label, and the Lua name the
** script calls it by (G.lnames); prev: the binding of the same name it hides */
/* owns: took its Lua name */
typedef struct Bind {
  uint32_t name, lua, count, prev;
  uint8_t bare, table, label, owns;
} Bind;
/* a nested { } block of the function being written: its `{` and `}`, whether it is a ptx.scope
** (why: the reason it is kept as written instead), its labels' Lua table and its layout */
typedef struct Blk {
  uint32_t open, close, lua; /* lua: the labels' table name (G.lnames), 0 none */
  uint32_t lab0, nlab;       /* its labels: G.blab[lab0 .. lab0+nlab) (statement indices) */
  /* the `{` and `}` as written (source offset, length), n 0: as printed */
  uint32_t xo, xn, yo, yn;
  const char *why;
} Blk;
/* the check's expectation for one function: its lines in G.exp [off, off+n), their statements in
** G.expst [s0, s0+ns); a shape kept as written in every call of it, and why */
/* [l0, l1): its check script lines */
typedef struct ExpF {
  uint32_t fi, off, n, s0, ns, l0, l1;
} ExpF;
typedef struct KShape {
  uint64_t key;
  char *why;
} KShape;
/* a run of statements kept as written, for the summary */
typedef struct Kev {
  const char *why;
  uint32_t off, n;
} Kev;

typedef struct G {
  const plI_module *m;
  plB_buf *b;
  uint32_t line; /* script line being written (1-based) */
  PLB_VEC(Keep) keep;
  Fn *fn;
  PLB_VEC(Where) where;
  /* per function being written */
  uint32_t fi;
  /* statement -> why it is kept (g->keep of this function), or NULL */
  const char **kwhy;
  uint8_t *nof;    /* statement -> not to be folded into a loop or run */
  uint32_t *declb; /* a top-level `.reg` statement -> the binding it makes + 1 */
  /* name string id -> binding + 1 (registers, labels), for strs.n ids */
  uint32_t *rbind, *lbind, nbind;
  PLB_VEC(Bind) binds;
  plB_buf lnames;    /* Lua names, NUL-terminated; offset 0 is "" */
  plB_strtab ltaken; /* the Lua names in scope: interned, counted in taken[] */
  PLB_VEC(uint32_t) taken;
  PLB_VEC(Blk) blks;
  PLB_VEC(uint32_t) blab;
  int use_table; /* registers in a table R (too many for locals) */
  char **pname;  /* the Lua local of each parameter, or NULL (then A[i]) */
  uint32_t npname;
  char indent[64];
  char gap[64];
  uint32_t inblock;
  /* the body's statements, built first (p1: writing into ib), then written with loops and runs */
  int p1;
  plB_buf ib, tb, xb, scratch;
  /* opcode id -> its DSL chain (offset in opcb), made once */
  plB_buf opcb;
  PLB_VEC(uint32_t) opcl;
  /* (opcode, operand signature) pairs the DSL's check accepts */
  uint64_t *sigset;
  uint32_t sigcap, nsig;
  PLB_VEC(Item) items;
  PLB_VEC(int64_t) vals;
  PLB_VEC(Nofold) nofold;
  uint32_t lvl;
  Lv lv[96];
  /* the check (plP_to_sugar): a second script holding the structure of each function and the
  ** first call of each shape only (ck: being written, into cb), what its calls must print (exp,
  ** one line per statement expst[]), per function (expf); shapes seen this round; shapes kept */
  int ck;
  uint32_t ckdecl; /* declarations of a new shape written into the check */
  plB_buf cb, exp;
  uint32_t cline, mline;
  /* expfold: the fold (its first statement + 1) a line is part of, 0 none */
  PLB_VEC(uint32_t) expst, expfold;
  PLB_VEC(uint64_t) expshape; /* an instruction line's shape */
  uint32_t fold;              /* the fold being written, + 1 */
  uint32_t *lmark, lstamp;    /* label name -> lstamp: a call of the check names it */
  PLB_VEC(ExpF) expf;
  uint64_t *seen;
  uint32_t seencap, nseen;
  PLB_VEC(KShape) kshape;
  uint32_t *kset, kscap; /* kshape by key: open addressing, index + 1 */
  /* what this round kept as written, in source order (the summary of the last round is printed) */
  PLB_VEC(Kev) kev;
  uint32_t nstmts; /* statements of the functions written */
  /* the main chunk's pieces in sugar.block groups (a file of thousands of functions) */
  int grouped, gopen;
  uint32_t ingroup;
} G;

static void put(G *g, const char *s) {
  for (const char *p = s; *p; p++)
    if (*p == '\n') g->line++;
  plB_buf_puts(g->b, s);
}
static void putf(G *g, const char *fmt, const char *s) {
  size_t before = g->b->n;
  plB_buf_printf(g->b, fmt, s);
  for (size_t i = before; i < g->b->n; i++)
    if (g->b->p[i] == '\n') g->line++;
}
static void putstr(G *g, const char *s, uint32_t n) {
  size_t before = g->b->n;
  plP_lua_str(g->b, s, n);
  for (size_t i = before; i < g->b->n; i++)
    if (g->b->p[i] == '\n') g->line++;
}

/* the indentation of a script line at the current loop depth, then s */
static void put_ind(G *g, const char *s) {
  static const char sp[] = "                                                                ";
  uint32_t n = 4 + 2 * g->lvl;
  while (n > 64) {
    plB_buf_add(g->b, sp, 64);
    n -= 64;
  }
  plB_buf_add(g->b, sp, n);
  put(g, s);
}

/* why statement s of function f is kept (any function: the checking loop's look), from f's own
** entries (each function chains its own: no look at every other function's) */
static const char *kept_any(G *g, uint32_t f, uint32_t s) {
  for (uint32_t i = g->fn[f].khead; i; i = g->keep.p[i - 1].next)
    if (g->keep.p[i - 1].stmt == s) return g->keep.p[i - 1].why;
  return NULL;
}
/* statement s of function f is kept as written, for why (owned by G.keep); 0 out of memory */
static int keep_add(G *g, uint32_t f, uint32_t s, char *why) {
  Keep kp = { f, s, g->fn[f].khead, why };
  if (!why || !plB_vec_push(g->keep, kp)) {
    free(why);
    return 0;
  }
  g->fn[f].khead = g->keep.n;
  return 1;
}
/* statement s of function f is not folded into a loop or a run; 0 out of memory */
static int nofold_add(G *g, uint32_t f, uint32_t s) {
  Nofold nf = { f, s, g->fn[f].nhead };
  if (!plB_vec_push(g->nofold, nf)) return 0;
  g->fn[f].nhead = g->nofold.n;
  return 1;
}
/* ... of the function being written */
static const char *kept(G *g, uint32_t s) {
  return g->kwhy ? g->kwhy[s] : NULL;
}

static const char *SRC(G *g, plI_span sp) {
  return g->m->vsrc.p + sp.off;
}

/* the Lua name of register id, from the innermost declaration in scope that declares it (an inner
** %r<3> declares %r0..%r2 only: %r7 is still the enclosing %r<15>'s), or 0 */
static int reg_lua(G *g, uint32_t id, plB_buf *o) {
  const plI_module *m = g->m;
  if (!id || id > m->regs.n) return 0;
  const plI_reg *r = &m->regs.p[id - 1];
  if (r->func != g->fi || r->name >= g->nbind) return 0;
  for (uint32_t b = g->rbind[r->name]; b; b = g->binds.p[b - 1].prev) {
    const Bind *x = &g->binds.p[b - 1];
    if (x->bare != r->bare) continue;
    if (x->count ? !(r->index >= 0 && (uint32_t)r->index < x->count) : r->index >= 0) continue;
    if (x->table) plB_buf_puts(o, "R.");
    plB_buf_puts(o, g->lnames.p + x->lua);
    if (r->index >= 0) {
      plB_buf_putc(o, '[');
      put_dec(o, r->index);
      plB_buf_putc(o, ']');
    }
    return 1;
  }
  return 0;
}

/* ---- names in scope
** ----------------------------------------------------------------------------- */
static uint32_t lname_add(G *g, const char *s) {
  if (!g->lnames.n) plB_buf_putc(&g->lnames, 0);
  uint32_t off = (uint32_t)g->lnames.n;
  plB_buf_puts(&g->lnames, s);
  plB_buf_putc(&g->lnames, 0);
  return off;
}
static uint32_t *taken_slot(G *g, const char *s) {
  uint32_t id = plB_intern(&g->ltaken, s, strlen(s));
  if (!id) return NULL;
  while (g->taken.n <= id) {
    uint32_t z = 0;
    if (!plB_vec_push(g->taken, z)) return NULL;
  }
  return &g->taken.p[id];
}
static int is_taken(G *g, const char *s) {
  uint32_t id = plB_find(&g->ltaken, s, strlen(s));
  return id && id < g->taken.n && g->taken.p[id];
}
/* a Lua local name for base not in scope (base, base_2, base_3, ...), taken; its offset in
** lnames */
static uint32_t lname_fresh(G *g, const char *base) {
  char nm[160];
  snprintf(nm, sizeof nm, "%s%s", base, is_keyword(base, strlen(base)) ? "_" : "");
  size_t n = strlen(nm);
  for (int k = 2; is_taken(g, nm) && k < 100000; k++) snprintf(nm + n, sizeof nm - n, "_%d", k);
  uint32_t *t = taken_slot(g, nm);
  if (t) (*t)++;
  return lname_add(g, nm);
}
/* a binding of name (a string id of m) to the Lua name at offset lua */
static int bind(G *g, int label, uint32_t name, uint32_t lua, uint32_t count, int bare, int table,
                int owns) {
  if (name >= g->nbind) return 0;
  uint32_t *head = label ? &g->lbind[name] : &g->rbind[name];
  Bind b = {
    name, lua, count, *head, (uint8_t)bare, (uint8_t)table, (uint8_t)label, (uint8_t)owns
  };
  if (!plB_vec_push(g->binds, b)) return 0;
  *head = g->binds.n;
  return 1;
}
/* the bindings made since mark go out of scope (a block closes), and their local names with them */
static void unbind(G *g, uint32_t mark) {
  while (g->binds.n > mark) {
    Bind *b = &g->binds.p[g->binds.n - 1];
    (b->label ? g->lbind : g->rbind)[b->name] = b->prev;
    if (b->owns) {
      uint32_t id = plB_find(&g->ltaken, g->lnames.p + b->lua, strlen(g->lnames.p + b->lua));
      if (id && id < g->taken.n && g->taken.p[id]) g->taken.p[id]--;
    }
    g->binds.n--;
  }
}

/* symbol -> Lua: a parameter of this function (its local), else ptx.sym "name" */
static void sym_lua(G *g, const plI_func *f, uint32_t id, plB_buf *o) {
  for (uint32_t i = 0; i < f->params.n; i++)
    if (f->params.p[i].name == id) {
      if (g->pname && g->pname[i])
        plB_buf_puts(o, g->pname[i]);
      else
        plB_buf_printf(o, "A[%u]", i + 1);
      return;
    }
  plB_buf_puts(o, "ptx.sym ");
  lua_cstr(o, plI_cstr(g->m, id));
}

static int opnd_lua(G *g, const plI_func *f, const plI_opnd *o, plB_buf *out, int depth) {
  const plI_module *m = g->m;
  switch (o->kind) {
  case PLO_REG:
    if (!reg_lua(g, o->id, out)) return 0;
    if (o->flags & PLOF_NEG) plB_buf_puts(out, ":inv()");
    return 1;
  case PLO_IMM:
    if (o->flags & PLOF_NEG) return 0;
    if (o->flags & PLOF_HEX) {
      if (o->v >> 53) return 0;
      plB_buf_printf(out, "ptx.hex(0x%llX)", (unsigned long long)o->v);
      return 1;
    }
    if (o->flags & PLOF_UNSIGNED) {
      if (o->v >> 53) return 0;
      plB_buf_printf(out, "%llu", (unsigned long long)o->v);
      return 1;
    }
    {
      int64_t v = (int64_t)o->v;
      if (v > (1LL << 53) || v < -(1LL << 53)) return 0;
      put_dec(out, v);
    }
    return 1;
  case PLO_F32: {
    uint32_t bits = (uint32_t)o->v;
    float x;
    memcpy(&x, &bits, 4);
    if (x != x || x - x != 0 || (x == 0 && bits)) return 0;
    char tmp[64];
    snprintf(tmp, sizeof tmp, "%.9g", (double)x);
    if ((float)strtod(tmp, NULL) != x) return 0;
    if (!strpbrk(tmp, ".en")) strcat(tmp, ".0");
    plB_buf_puts(out, tmp);
    return 1;
  }
  case PLO_F64: {
    double x;
    memcpy(&x, &o->v, 8);
    if (x != x || x - x != 0 || (x == 0 && o->v)) return 0;
    char tmp[64];
    snprintf(tmp, sizeof tmp, "%.17g", x);
    if (strtod(tmp, NULL) != x) return 0;
    if (!strpbrk(tmp, ".en")) strcat(tmp, ".0");
    plB_buf_puts(out, tmp);
    return 1;
  }
  case PLO_SYM:
    if (o->flags & PLOF_NEG) return 0;
    sym_lua(g, f, o->id, out);
    return 1;
  /* in the table of the innermost block that places it (L: the function's top) */
  case PLO_LABEL: {
    const char *nm = plI_cstr(m, o->id);
    const char *tab = "L";
    if (o->id < g->nbind && g->lbind[o->id])
      tab = g->lnames.p + g->binds.p[g->lbind[o->id] - 1].lua;
    if (strncmp(nm, "$L__", 4) == 0 && is_ident(nm + 4, strlen(nm + 4)))
      plB_buf_printf(out, "%s.%s", tab, nm + 4);
    else {
      plB_buf_printf(out, "%s[", tab);
      lua_cstr(out, nm);
      plB_buf_putc(out, ']');
    }
    return 1;
  }
  case PLO_SREG: {
    const char *nm = plI_cstr(m, o->id);
    const char *dot = strchr(nm, '.');
    if (o->flags & PLOF_NEG) return 0;
    if (dot && is_ident(nm, (size_t)(dot - nm)) && is_ident(dot + 1, strlen(dot + 1)) &&
        !is_keyword(nm, (size_t)(dot - nm)))
      plB_buf_printf(out, "ptx.sreg.%s", nm);
    else if (!dot && is_ident(nm, strlen(nm)) && !is_keyword(nm, strlen(nm)))
      plB_buf_printf(out, "ptx.sreg.%s", nm);
    else {
      plB_buf_puts(out, "ptx.sreg[");
      lua_cstr(out, nm);
      plB_buf_putc(out, ']');
    }
    return 1;
  }
  case PLO_SINK: plB_buf_puts(out, "ptx._"); return 1;
  case PLO_ADDR: {
    int64_t off = (int64_t)o->v;
    if (off > (1LL << 53) || off < -(1LL << 53)) return 0;
    plB_buf_puts(out, "ptx.addr(");
    if (o->flags & PLOF_BASE_REG) {
      if (!reg_lua(g, o->id, out)) return 0;
    } else if (o->flags & PLOF_BASE_SYM)
      sym_lua(g, f, o->id, out);
    else
      plB_buf_puts(out, "nil");
    if (off) {
      plB_buf_puts(out, ", ");
      put_dec(out, off);
    }
    plB_buf_putc(out, ')');
    return 1;
  }
  case PLO_PAIR:
    if (depth || o->id + 2 > m->opnds.n) return 0;
    plB_buf_puts(out, "ptx.pair(");
    if (!opnd_lua(g, f, &m->opnds.p[o->id], out, depth + 1)) return 0;
    plB_buf_puts(out, ", ");
    if (!opnd_lua(g, f, &m->opnds.p[o->id + 1], out, depth + 1)) return 0;
    plB_buf_putc(out, ')');
    return 1;
  case PLO_TADDR: /* ptx.taddr(tmap, {c0, ...}) */
    if (depth || o->flags || !o->n || o->n > 5 || o->id + 1u + o->n > m->opnds.n) return 0;
    plB_buf_puts(out, "ptx.taddr(");
    if (!opnd_lua(g, f, &m->opnds.p[o->id], out, depth + 1)) return 0;
    plB_buf_puts(out, ", {");
    for (uint32_t k = 0; k < o->n; k++) {
      if (k) plB_buf_puts(out, ", ");
      if (!opnd_lua(g, f, &m->opnds.p[o->id + 1 + k], out, depth + 1)) return 0;
    }
    plB_buf_puts(out, "})");
    return 1;
  case PLO_VEC:
    if (depth || (o->flags & ~(uint8_t)PLOF_NEG) || (o->flags & PLOF_NEG) ||
        o->id + o->n > m->opnds.n || !o->n)
      return 0;
    plB_buf_putc(out, '{');
    for (uint32_t k = 0; k < o->n; k++) {
      if (k) plB_buf_puts(out, ", ");
      if (!opnd_lua(g, f, &m->opnds.p[o->id + k], out, depth + 1)) return 0;
    }
    plB_buf_putc(out, '}');
    return 1;
  default: return 0;
  }
}

/* the opcode as a DSL chain (ptx.ld.global.f32) or ptx.op "text" */
static const char *const HELPERS[] = { "call",  "cvt_",    "op",     "at",     "label", "place",
                                       "loop",  "range",   "reg",    "regs",   "pred",  "special",
                                       "addr",  "sym",     "hex",    "imm",    "pair",  "sink",
                                       "error", "func",    "kernel", "build",  "ptx",   "convert",
                                       "reset", "kernels", "funcs",  "shared", "sreg",  "types",
                                       "taddr", NULL };
static void opcode_lua(plB_buf *o, const char *op, uint32_t n) {
  plB_buf chain;
  plB_buf_init(&chain);
  int ok = 1;
  uint32_t i = 0, part = 0;
  while (ok && i < n) {
    uint32_t j = i;
    while (j < n && op[j] != '.') j++;
    const char *s = op + i;
    uint32_t len = j - i;
    /* a part: letters and digits, pieces joined by "::" */
    plB_buf key;
    plB_buf_init(&key);
    if (len && s[0] >= '0' && s[0] <= '9') plB_buf_putc(&key, '_');
    for (uint32_t k = 0; k < len && ok; k++) {
      char c = s[k];
      if ((c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') || (c >= '0' && c <= '9'))
        plB_buf_putc(&key, c);
      else if (c == ':' && k + 1 < len && s[k + 1] == ':' && k > 0 && k + 2 < len &&
               s[k + 2] != ':') {
        plB_buf_puts(&key, "__");
        k++;
      } else
        ok = 0;
    }
    if (!len) ok = 0;
    if (ok) {
      const char *ks = plB_buf_cstr(&key);
      if (is_keyword(ks, strlen(ks))) plB_buf_putc(&key, '_');
      if (part == 0)
        for (int h = 0; HELPERS[h]; h++)
          if (strcmp(HELPERS[h], plB_buf_cstr(&key)) == 0) ok = 0;
      plB_buf_putc(&chain, '.');
      plB_buf_puts(&chain, plB_buf_cstr(&key));
    }
    plB_buf_free(&key);
    i = j + 1;
    part++;
    if (j == n) break;
    if (j + 1 == n) ok = 0; /* a trailing dot */
  }
  if (ok) {
    plB_buf_puts(o, "ptx");
    plB_buf_add(o, chain.p, chain.n);
  } else {
    plB_buf_puts(o, "ptx.op ");
    plP_lua_str(o, op, n);
  }
  plB_buf_free(&chain);
}

/* ---- one statement -------------------------------------------------------------------------- */

/* the (opcode, operand signature) pairs found legal: a set of keys (open addressing); add: put
** key in */
/* the slot of a 64-bit key in a table of cap (a power of two) slots: the key's bits mixed first
** (FNV keys differ in few of their bits; probing unmixed ones runs along long clusters) */
static uint32_t slot64(uint64_t k, uint32_t cap) {
  k ^= k >> 33;
  k *= 0xff51afd7ed558ccdull;
  k ^= k >> 33;
  return (uint32_t)k & (cap - 1);
}
static int sig_known(G *g, uint64_t key, int add) {
  if (add && 2 * (g->nsig + 1) > g->sigcap) {
    uint32_t nc = g->sigcap ? 2 * g->sigcap : 1024;
    uint64_t *t = calloc(nc, sizeof *t);
    if (!t) return 0;
    for (uint32_t i = 0; i < g->sigcap; i++)
      if (g->sigset[i]) {
        uint32_t h = slot64(g->sigset[i], nc);
        while (t[h]) h = (h + 1) & (nc - 1);
        t[h] = g->sigset[i];
      }
    free(g->sigset);
    g->sigset = t;
    g->sigcap = nc;
  }
  if (!g->sigcap) return 0;
  uint32_t h = slot64(key, g->sigcap);
  while (g->sigset[h]) {
    if (g->sigset[h] == key) return 1;
    h = (h + 1) & (g->sigcap - 1);
  }
  if (add) {
    g->sigset[h] = key;
    g->nsig++;
  }
  return 0;
}
/* the operand signature the check depends on: kinds, flags, element counts and register types
** (values: symbols and integers too) */
static uint64_t opnd_sig(const plI_module *m, const plI_opnd *ops, uint32_t n, int values) {
  uint64_t h = 1469598103934665603ull ^ n;
  for (uint32_t i = 0; i < n; i++) {
    const plI_opnd *o = &ops[i];
    h = (h ^ ((uint64_t)o->kind | (uint64_t)o->flags << 8 | (uint64_t)o->n << 16)) *
        1099511628211ull;
    if (values && (o->kind == PLO_SYM || o->kind == PLO_IMM ||
                   (o->kind == PLO_ADDR && (o->flags & PLOF_BASE_SYM))))
      h = (h ^ (o->kind == PLO_IMM ? o->v : (uint64_t)o->id << 1)) * 1099511628211ull;
    if (o->kind == PLO_REG || (o->kind == PLO_ADDR && (o->flags & PLOF_BASE_REG)))
      h = (h ^ (o->id && o->id <= m->regs.n ? m->regs.p[o->id - 1].type : 0xff)) * 1099511628211ull;
    else if ((o->kind == PLO_VEC || o->kind == PLO_PAIR || o->kind == PLO_TADDR)) {
      uint32_t k = o->kind == PLO_PAIR ? 2 : o->kind == PLO_TADDR ? (uint32_t)o->n + 1 : o->n;
      if (!plI_elems_ok(m, o, k)) return 0; /* never matches: checked each time */
      for (uint32_t j = 0; j < k; j++) {
        plI_opnd e = plI_elem(m, o, j);
        h = (h ^ ((uint64_t)e.kind | (uint64_t)e.flags << 8)) * 1099511628211ull;
        if (e.kind == PLO_REG)
          h = (h ^ (e.id && e.id <= m->regs.n ? m->regs.p[e.id - 1].type : 0xff)) *
              1099511628211ull;
      }
    }
  }
  return h ? h : 1;
}

/* what the DSL would refuse in an instruction, found before running the script (each refusal
** found by running it costs a run of the whole script): an opcode the ISA table does not resolve,
** an integer immediate outside its operand's type. The same messages as the DSL's (src/lua/core.c).
** 1 with the message in msg; what this misses, the check by running still finds. */
static int dsl_refuses(G *g, const plI_stmt *st, plB_buf *msg) {
  const plI_module *m = g->m;
  if (!m->isa) return 0;
  const plA_res *r = plA_resolve(m->isa, st->opc, NULL);
  if (!r) {
    plA_resolve(m->isa, st->opc, msg);
    if (!msg->n) plB_buf_puts(msg, "unknown opcode");
    return 1;
  }
  const char *otext = plA_opcode_text(m->isa, st->opc);
  for (uint16_t k = 0; k < st->nops && st->ops + k < m->opnds.n; k++) {
    const plI_opnd *o = &m->opnds.p[st->ops + k];
    if ((o->kind != PLO_IMM && o->kind != PLO_F32 && o->kind != PLO_F64) ||
        (o->flags & (PLOF_HEX | PLOF_NEG)))
      continue;
    int t = k < r->nops ? plA_optype_n(r, k, st->nops) : PLT_NONE;
    const plB_typeinfo *ti = &plB_type_info[t];
    int f32 =
        t == PLT_F32 || (ti->cls == PLT_CF && ti->bits == 32 && t != PLT_F16X2 && t != PLT_BF16X2);
    if (o->kind != PLO_IMM) {
      /* a Lua number is an integer where the operand is not a float, and 0f/0d by the operand's
      ** type */
      if (!f32 && t != PLT_F64) {
        plB_buf_printf(msg,
                       "operand %d of '%s': a float immediate for a .%s operand (the DSL writes a "
                       "number there as an integer)",
                       k + 1, otext, t ? ti->name : "b64");
        return 1;
      }
      if ((o->kind == PLO_F32) != f32) {
        plB_buf_printf(msg, "operand %d of '%s': a %s immediate for a .%s operand", k + 1, otext,
                       o->kind == PLO_F32 ? "0f" : "0d", ti->name);
        return 1;
      }
      continue;
    }
    double v = (o->flags & PLOF_UNSIGNED) ? (double)o->v : (double)(int64_t)o->v;
    if (f32 || t == PLT_F64) continue;
    if (ti->cls == PLT_CF) {
      plB_buf_printf(msg, "operand %d of '%s': a .%s operand cannot be an immediate", k + 1, otext,
                     ti->name);
      return 1;
    }
    if (t == PLT_PRED) {
      plB_buf_printf(msg, "operand %d of '%s': a predicate cannot be a number", k + 1, otext);
      return 1;
    }
    double lo, hi;
    if (plB_type_imm_range(t, &lo, &hi) >= 64) continue;
    if (v < lo || v > hi) {
      plB_buf_printf(msg, "operand %d of '%s': immediate %.14g does not fit .%s", k + 1, otext, v,
                     t ? ti->name : "b64");
      return 1;
    }
  }
  /* the operand kinds and register types, as the DSL checks them; as the DSL does, an opcode's
  ** operand signature accepted once needs no second look unless the check reads values */
  if (st->ops + st->nops > m->opnds.n) return 0;
  /* a check that reads values (immediates against a constraint, a variable's state space) has them
  ** in its signature: the symbol and the value, not only the kind */
  uint64_t sig = opnd_sig(m, &m->opnds.p[st->ops], st->nops, (r->flags & PLA_VALUES) != 0);
  uint64_t key = (sig ^ ((uint64_t)st->opc * 0x9E3779B97F4A7C15ull)) | 1;
  if (sig && sig_known(g, key, 0)) return 0;
  if (!plI_check_ops(r, m, otext, &m->opnds.p[st->ops], st->nops, NULL)) {
    plI_check_ops(r, m, otext, &m->opnds.p[st->ops], st->nops, msg);
    return 1;
  }
  if (sig) sig_known(g, key, 1);
  return 0;
}

/* n statements from source offset off kept as written, for why (the summary groups them) */
static void kev(G *g, const char *why, uint32_t off, uint32_t n) {
  Kev e = { why, off, n };
  plB_vec_push(g->kev, e);
}

/* the check script's lines: which statement or fold each holds (an error there names it) */
static void where(G *g, uint32_t s) {
  if (g->p1 || !g->ck) return;
  const Item *x = s < g->items.n ? &g->items.p[s] : NULL;
  Where w = { g->line, g->fi, s, 1, W_STMT, x && x->kind == IT_INSN ? x->shape : 0 };
  plB_vec_push(g->where, w);
}
static void where_fold(G *g, uint32_t s, uint32_t n, uint32_t kind) {
  if (!g->ck) return;
  Where w = { g->line, g->fi, s, n, kind, 0 };
  plB_vec_push(g->where, w);
}
/* the check: statement s must trace as the printer prints it (an instruction with the printer's
** gap, a label as `name:`) */
static void expect(G *g, uint32_t s) {
  if (!g->ck) return;
  const plI_stmt *st = &g->m->funcs.p[g->fi].stmts.p[s];
  if (st->kind == PLS_INSN)
    plI_print_insn(g->m, st, " \t", 2, &g->exp);
  else if (st->kind == PLS_LABEL) {
    plB_buf_puts(&g->exp, plI_cstr(g->m, st->opc));
    plB_buf_putc(&g->exp, ':');
  } else
    return;
  plB_buf_putc(&g->exp, '\n');
  plB_vec_push(g->expst, s);
  plB_vec_push(g->expfold, g->fold);
  uint64_t sh = s < g->items.n && g->items.p[s].kind == IT_INSN ? g->items.p[s].shape : 0;
  plB_vec_push(g->expshape, sh);
}

/* the body is cut into sugar.block(function() ... end) chunks of at most 300 lines per function
** (Lua limits the constants of one function); a loop body is a function of its own */
static void block_open(G *g) {
  if (g->p1) return;
  Lv *v = &g->lv[g->lvl];
  if (v->n >= 300 && (v->open || g->lvl)) {
    if (v->open) put_ind(g, "end)\n");
    v->open = 0;
    v->n = 0;
    if (g->lvl) {
      put_ind(g, "sugar.block(function()\n");
      v->open = 1;
    }
  }
  if (!g->lvl && !v->open) {
    put_ind(g, "sugar.block(function()\n");
    v->open = 1;
  }
  v->n++;
}
static void block_close(G *g) {
  if (g->p1) return;
  Lv *v = &g->lv[g->lvl];
  if (v->open) put_ind(g, "end)\n");
  v->open = 0;
  v->n = 0;
}

static void text_call(G *g, const char *fn, const char *s, uint32_t n) {
  block_open(g);
  plB_buf_puts(g->b, "    sugar.");
  plB_buf_puts(g->b, fn);
  plB_buf_putc(g->b, ' ');
  putstr(g, s, n);
  plB_buf_putc(g->b, '\n');
  g->line++;
}

/* an instruction as a DSL call into c; the canonical text (no indent, no newline) into canon, and
** its gap (what follows the opcode: " \t" in the printer's layout). 0: it has no DSL form */
static int insn_lua(G *g, const plI_func *f, const plI_stmt *st, plB_buf *c, plB_buf *canon) {
  const plI_module *m = g->m;
  if (!m->isa || (st->flags & 0x80)) return 0;
  if (st->guard) {
    plB_buf_puts(c, st->flags & PLOF_NEG ? "ptx.at_not(" : "ptx.at(");
    if (!reg_lua(g, st->guard - 1, c)) return 0;
    plB_buf_puts(c, ")");
    plB_buf_putc(canon, '@');
    if (st->flags & PLOF_NEG) plB_buf_putc(canon, '!');
    plI_regname(m, st->guard - 1, canon);
    plB_buf_putc(canon, ' ');
  }
  const char *op = plA_opcode_text(m->isa, st->opc);
  uint32_t on = plA_opcode_len(m->isa, st->opc);
  /* the chain, once per opcode (a file holds millions of instructions of a few hundred opcodes) */
  while (g->opcl.n <= st->opc) {
    uint32_t z = 0;
    if (!plB_vec_push(g->opcl, z)) return 0;
  }
  if (!g->opcl.p[st->opc]) {
    if (!g->opcb.n) plB_buf_putc(&g->opcb, 0);
    g->opcl.p[st->opc] = (uint32_t)g->opcb.n;
    opcode_lua(&g->opcb, op, on);
    plB_buf_putc(&g->opcb, 0);
    if (g->opcb.oom) return 0;
  }
  const char *chain = g->opcb.p + g->opcl.p[st->opc];
  plB_buf_puts(c, st->guard
                      ? chain + 3
                      : chain); /* ptx.at(p) returns the root: the chain from it, "ptx" dropped */
  plB_buf_add(canon, op, on);
  plB_buf_putc(c, '(');
  for (uint16_t k = 0; k < st->nops; k++) {
    if (st->ops + k >= m->opnds.n) return 0;
    const plI_opnd *o = &m->opnds.p[st->ops + k];
    if (k) plB_buf_puts(c, ", ");
    if (!opnd_lua(g, f, o, c, 0)) return 0;
    plB_buf_puts(canon, k ? ", " : " \t");
    plI_print_operand(m, o, canon);
  }
  plB_buf_putc(c, ')');
  return !c->oom && !canon->oom;
}

/* ---- loops and runs ------------------------------------------------------------------------- */

static int has_sub(const char *s, uint32_t n, const char *w) {
  size_t wn = strlen(w);
  for (uint32_t i = 0; i + wn <= n; i++)
    if (memcmp(s + i, w, wn) == 0) return 1;
  return 0;
}

static void putn(G *g, const char *s, size_t n) {
  for (const char *p = s, *e = s + n; (p = memchr(p, '\n', (size_t)(e - p))) != NULL; p++)
    g->line++;
  plB_buf_add(g->b, s, n);
}

/* an instruction's call with its integer literals (not in a name, a float, a hex number or a
** string) as \1 into g->tb, their values into g->vals */
static void template_of(G *g, Item *it, const char *s0, uint32_t n0) {
  it->tpl = (uint32_t)g->tb.n;
  it->val = g->vals.n;
  it->nval = 0;
  /* ptx.addr(x) is ptx.addr(x, 0) here, so that [x], [x+4], [x+8] step */
  plB_buf *nb = &g->scratch;
  nb->n = 0;
  uint32_t from = 0;
  for (uint32_t i = 0; i + 9 <= n0;) {
    const char *q = memchr(s0 + i, 'p', n0 - 8 - i);
    if (!q) break;
    i = (uint32_t)(q - s0);
    if (memcmp(s0 + i, "ptx.addr(", 9) != 0 || (i && isalnum((unsigned char)s0[i - 1]))) {
      i++;
      continue;
    }
    uint32_t j = i + 9;
    int depth = 0, comma = 0;
    for (; j < n0; j++) {
      char ch = s0[j];
      if (ch == '"') {
        j++;
        while (j < n0 && s0[j] != '"') {
          if (s0[j] == '\\') j++;
          j++;
        }
        continue;
      }
      if (ch == '(' || ch == '[' || ch == '{')
        depth++;
      else if (ch == ')' || ch == ']' || ch == '}') {
        if (!depth) break;
        depth--;
      } else if (ch == ',' && !depth)
        comma = 1;
    }
    if (j < n0 && !comma && j > i + 9) {
      plB_buf_add(nb, s0 + from, j - from);
      plB_buf_puts(nb, ", 0");
      from = j;
    }
    i += 9;
  }
  plB_buf_add(nb, s0 + from, n0 - from);
  const char *s = nb->p ? nb->p : "";
  uint32_t n = (uint32_t)nb->n;
  uint32_t i = 0;
  while (i < n) {
    unsigned char ch = (unsigned char)s[i];
    if (ch == '"') {
      uint32_t j = i + 1;
      while (j < n && s[j] != '"') {
        if (s[j] == '\\') j++;
        j++;
      }
      if (j < n) j++;
      if (j > n) j = n;
      plB_buf_add(&g->tb, s + i, j - i);
      i = j;
      continue;
    }
    if (isalpha(ch) || ch == '_') {
      uint32_t j = i;
      while (j < n && (isalnum((unsigned char)s[j]) || s[j] == '_')) j++;
      plB_buf_add(&g->tb, s + i, j - i);
      i = j;
      continue;
    }
    int neg = ch == '-' && i + 1 < n && isdigit((unsigned char)s[i + 1]);
    if (isdigit(ch) || neg) {
      uint32_t j = i + (uint32_t)neg, d0 = j;
      while (j < n && isdigit((unsigned char)s[j])) j++;
      int plain =
          !(j < n && (isalnum((unsigned char)s[j]) || s[j] == '.' || s[j] == '_')) && j - d0 <= 15;
      if (!plain) {
        while (j < n && (isalnum((unsigned char)s[j]) || s[j] == '.' || s[j] == '_' ||
                         ((s[j] == '-' || s[j] == '+') && (s[j - 1] == 'e' || s[j - 1] == 'E'))))
          j++;
        plB_buf_add(&g->tb, s + i, j - i);
        i = j;
        continue;
      }
      int64_t v = 0;
      for (uint32_t k = d0; k < j; k++) v = v * 10 + (s[k] - '0');
      if (neg) v = -v;
      if (!plB_vec_push(g->vals, v)) {
        g->tb.oom = 1;
        break;
      }
      it->nval++;
      plB_buf_putc(&g->tb, '\1');
      i = j;
      continue;
    }
    uint32_t j = i + 1; /* punctuation: a run of it at once */
    while (j < n && s[j] != '"' && !isalnum((unsigned char)s[j]) && s[j] != '_' && s[j] != '-') j++;
    plB_buf_add(&g->tb, s + i, j - i);
    i = j;
  }
  it->ntpl = (uint32_t)g->tb.n - it->tpl;
  if (g->tb.oom || nb->oom) it->ntpl = 0;
}

/* statement s: a `bra` or `bra.uni` to a label (its name id in *label) */
static int bra_to(G *g, const plI_func *f, uint32_t s, uint32_t *label, int *uni) {
  const plI_module *m = g->m;
  const plI_stmt *st = &f->stmts.p[s];
  if (st->kind != PLS_INSN || !m->isa || st->nops != 1 || st->ops >= m->opnds.n) return 0;
  const char *op = plA_opcode_text(m->isa, st->opc);
  uint32_t on = plA_opcode_len(m->isa, st->opc);
  if (on == 3 && memcmp(op, "bra", 3) == 0)
    *uni = 0;
  else if (on == 7 && memcmp(op, "bra.uni", 7) == 0)
    *uni = 1;
  else
    return 0;
  const plI_opnd *o = &m->opnds.p[st->ops];
  if (o->kind != PLO_LABEL) return 0;
  *label = o->id;
  return 1;
}

/* does instruction st name label `name`? */
static int names_label(const plI_module *m, const plI_stmt *st, uint32_t name) {
  if (st->kind != PLS_INSN) return 0;
  for (uint32_t k = 0; k < st->nops && st->ops + k < m->opnds.n; k++)
    if (m->opnds.p[st->ops + k].kind == PLO_LABEL && m->opnds.p[st->ops + k].id == name) return 1;
  return 0;
}
static const char BRANCH_TO_KEPT[] =
    "a branch to a label kept as written (the DSL would not know the label)";

/* an aux text of an item (G.xb): its offset, 0 on failure */
static uint32_t aux(G *g, const plB_buf *t) {
  if (!g->xb.n) plB_buf_putc(&g->xb, 0);
  uint32_t off = (uint32_t)g->xb.n;
  plB_buf_add(&g->xb, t->p ? t->p : "", t->n);
  plB_buf_putc(&g->xb, 0);
  return g->xb.oom ? 0 : off;
}
/* the names a fold of instruction st may need later, in the scope it is written in */
static void insn_aux(G *g, const plI_func *f, const plI_stmt *st, Item *it) {
  const plI_module *m = g->m;
  uint32_t lab;
  int uni;
  plB_buf t;
  plB_buf_init(&t);
  if (st->guard && bra_to(g, f, (uint32_t)(st - f->stmts.p), &lab, &uni)) {
    if (reg_lua(g, st->guard - 1, &t)) it->x0 = aux(g, &t);
  } else if (st->nops == 3 && st->ops + 3 <= m->opnds.n) {
    const char *op = plA_opcode_text(m->isa, st->opc);
    if (plA_opcode_len(m->isa, st->opc) > 18 && memcmp(op, "mbarrier.try_wait.", 18) == 0) {
      if (opnd_lua(g, f, &m->opnds.p[st->ops + 1], &t, 0)) it->x0 = aux(g, &t);
      t.n = 0;
      if (it->x0 && opnd_lua(g, f, &m->opnds.p[st->ops + 2], &t, 0)) it->x1 = aux(g, &t);
    }
  }
  plB_buf_free(&t);
}

/* loops: a label heading a run of statements that ends with the last branch back to it, each
** other label inside reached only from inside, no declaration at its own level, the blocks inside
** it whole (it lies in one block), loops nested properly. Labels are resolved as PTX scopes them:
** a branch goes to the label of that name in the innermost block around it that places one. */
typedef struct LRef {
  uint32_t id, s;
} LRef; /* id: the label's statement */
static int lref_cmp(const void *a, const void *b) {
  const LRef *x = a, *y = b;
  return x->id != y->id ? (x->id < y->id ? -1 : 1) : x->s != y->s ? (x->s < y->s ? -1 : 1) : 0;
}
/* the first entry of id in the sorted v[0..n), or n */
static uint32_t lref_find(const LRef *v, uint32_t n, uint32_t id) {
  uint32_t lo = 0, hi = n;
  while (lo < hi) {
    uint32_t mid = lo + (hi - lo) / 2;
    if (v[mid].id < id)
      lo = mid + 1;
    else
      hi = mid;
  }
  return lo < n && v[lo].id == id ? lo : n;
}
/* (label name, block) -> its statement + 1 */
typedef struct LKey {
  uint64_t key;
  uint32_t s;
} LKey;
static uint32_t lk_slot(const LKey *t, uint32_t mask, uint64_t key) {
  uint32_t h = (uint32_t)((key * 0x9E3779B97F4A7C15ull) >> 32) & mask;
  while (t[h].key && t[h].key != key) h = (h + 1) & mask;
  return h;
}
static void find_loops(G *g, const plI_func *f) {
  const plI_module *m = g->m;
  uint32_t n = g->items.n;
  Item *it = g->items.p;
  PLB_VEC(LRef) refs = { 0 };
  uint32_t *end = calloc(n + 1, sizeof *end), *blk = calloc(n + 1, sizeof *blk),
           *par = calloc(n + 2, sizeof *par);
  uint32_t nl = 0;
  for (uint32_t s = 0; s < n; s++) nl += f->stmts.p[s].kind == PLS_LABEL;
  uint32_t cap = 16;
  while (cap < 2 * nl) cap *= 2;
  LKey *lt = calloc(cap, sizeof *lt);
  if (!end || !blk || !par || !lt) goto out;
  /* each statement's block (0: the top), each block's parent, each label under (name, block) */
  uint32_t cur = 0, nb = 1;
  for (uint32_t s = 0; s < n; s++) {
    const plI_stmt *st = &f->stmts.p[s];
    if (it[s].brace == 1) {
      par[nb] = cur;
      cur = nb++;
    }
    blk[s] = cur;
    if (it[s].brace == 2) cur = par[cur];
    if (st->kind == PLS_LABEL) {
      uint64_t key = ((uint64_t)st->opc << 32 | blk[s]) + 1;
      uint32_t h = lk_slot(lt, cap - 1, key);
      lt[h].key = key;
      lt[h].s = s + 1;
    }
  }
  for (uint32_t s = 0; s < n; s++) {
    const plI_stmt *st = &f->stmts.p[s];
    if (st->kind != PLS_INSN) continue;
    for (uint32_t k = 0; k < st->nops && st->ops + k < m->opnds.n; k++) {
      const plI_opnd *o = &m->opnds.p[st->ops + k];
      if (o->kind != PLO_LABEL) continue;
      uint32_t to = 0;
      for (uint32_t b = blk[s];; b = par[b]) {
        uint32_t h = lk_slot(lt, cap - 1, ((uint64_t)o->id << 32 | b) + 1);
        if (lt[h].key) {
          to = lt[h].s;
          break;
        }
        if (!b) break;
      }
      if (!to) continue;
      LRef r = { to - 1, s };
      if (!plB_vec_push(refs, r)) goto out;
    }
  }
  if (refs.n) qsort(refs.p, refs.n, sizeof *refs.p, lref_cmp);
  for (uint32_t i = 0; i < refs.n; i++) { /* the last branch back wins (refs are sorted by s) */
    uint32_t lab, a = refs.p[i].id, s = refs.p[i].s;
    int uni;
    if (a >= s || it[s].kind != IT_INSN || it[a].kind != IT_LABEL || !bra_to(g, f, s, &lab, &uni))
      continue;
    /* a branch from inside a nested block: no loop of this level */
    if (blk[a] != blk[s]) continue;
    end[a] = s;
  }
  uint32_t stack[16], sp = 0;
  uint64_t work = 0;
  for (uint32_t a = 0; a < n; a++) {
    while (sp && stack[sp - 1] < a) sp--;
    uint32_t b = end[a];
    if (!b || it[a].nofold || sp >= 16 || (sp && b >= stack[sp - 1])) continue;
    /* hostile input: bounded time, loops left unfolded */
    if ((work += b - a) > 64u * 1024 * 1024) break;
    int ok = 1;
    for (uint32_t k = a + 1; k < b && ok; k++) {
      if (blk[k] == blk[a] && (it[k].kind == IT_DECL || it[k].kind == IT_CLOSE)) ok = 0;
      if (it[k].depth < it[a].depth) ok = 0;
      const plI_stmt *st = &f->stmts.p[k];
      if (st->kind != PLS_LABEL) continue;
      /* every reference to an inner label is inside (a, b] */
      for (uint32_t r = lref_find(refs.p, refs.n, k); r < refs.n && refs.p[r].id == k; r++)
        if (refs.p[r].s <= a || refs.p[r].s > b) {
          ok = 0;
          break;
        }
    }
    if (!ok) continue;
    it[a].loop_end = b;
    it[a].lonly = 1;
    for (uint32_t r = lref_find(refs.p, refs.n, a); r < refs.n && refs.p[r].id == a; r++)
      if (refs.p[r].s <= a || refs.p[r].s > b) it[a].lonly = 0;
    stack[sp++] = b;
    /* the mbarrier wait: L: mbarrier.try_wait... p, [bar], parity; @!p bra L; with nothing
    ** between */
    if (b == a + 2 && it[a + 1].kind == IT_INSN && !it[a + 1].nofold && it[a].c == it[a].d &&
        it[a + 1].a == it[a + 1].b && it[a + 1].c == it[a + 1].d && it[b].a == it[b].b) {
      const plI_stmt *w = &f->stmts.p[a + 1], *br = &f->stmts.p[b];
      const char *op = plA_opcode_text(m->isa, w->opc);
      uint32_t on = plA_opcode_len(m->isa, w->opc);
      if (on > 17 && memcmp(op, "mbarrier.try_wait", 17) == 0 && (op[17] == '.') && !w->guard &&
          w->nops == 3 && w->ops + 3 <= m->opnds.n && br->guard && (br->flags & PLOF_NEG)) {
        const plI_opnd *p0 = &m->opnds.p[w->ops];
        if (p0->kind == PLO_REG && !(p0->flags & PLOF_NEG) && p0->id == br->guard - 1u)
          it[a].mbar = 1;
      }
    }
  }
out:
  free(refs.p);
  free(end);
  free(blk);
  free(par);
  free(lt);
}

/* Lua lines [from, to) of g->ib at the current depth; map: each line is statement s */
/* the labels the check script's calls name (G.lmark[name] == G.lstamp), marked before it is
** written */
static void mark_labels(G *g, const plI_func *f) {
  const plI_module *m = g->m;
  if (++g->lstamp == 0) {
    memset(g->lmark, 0, g->nbind * sizeof *g->lmark);
    g->lstamp = 1;
  }
  for (uint32_t s = 0; s < g->items.n; s++) {
    const Item *x = &g->items.p[s];
    const plI_stmt *st = &f->stmts.p[s];
    if (x->kind != IT_INSN || !x->chk || st->kind != PLS_INSN) continue;
    for (uint32_t k = 0; k < st->nops && st->ops + k < m->opnds.n; k++) {
      const plI_opnd *o = &m->opnds.p[st->ops + k];
      if (o->kind == PLO_LABEL && o->id < g->nbind) g->lmark[o->id] = g->lstamp;
    }
  }
}
static int label_wanted(G *g, uint32_t s) {
  const plI_stmt *st = &g->m->funcs.p[g->fi].stmts.p[s];
  return st->opc < g->nbind && g->lmark[st->opc] == g->lstamp;
}

static void emit_lines(G *g, uint32_t from, uint32_t to, uint32_t s, int map) {
  if (from >= to) return;
  if (g->ck) { /* the check script: no layout; of the calls, the first of each shape */
    const Item *x = &g->items.p[s];
    if (!map || x->kind == IT_KEPT || x->kind == IT_TEXT || (x->kind == IT_INSN && !x->chk)) return;
    /* a label no call of the check names */
    if (x->kind == IT_LABEL && !label_wanted(g, s)) return;
    expect(g, s);
  }
  const char *p = g->ib.p + from, *e = g->ib.p + to;
  while (p < e) {
    const char *nl = memchr(p, '\n', (size_t)(e - p));
    nl = nl ? nl + 1 : e;
    const char *q = (nl - p >= 4 && memcmp(p, "    ", 4) == 0) ? p + 4 : p;
    block_open(g);
    if (map) where(g, s);
    put_ind(g, "");
    plB_buf_add(g->b, q, (size_t)(nl - q)); /* one line */
    if (nl[-1] == '\n') g->line++;
    p = nl;
  }
}

static void template_of(G *g, Item *it, const char *s0, uint32_t n0);
/* an instruction's template, made when a run is looked for at it (most never are): its call is
** the line [b, c) of g->ib, "    CALL\n" */
static int tpl_ok(G *g, Item *x) {
  if (x->ntpl == UINT32_MAX) {
    if (x->c < x->b + 5) {
      x->ntpl = 0;
      return 0;
    }
    template_of(g, x, g->ib.p + x->b + 4, x->c - x->b - 5);
  }
  return x->ntpl != 0;
}
static int eligible(const Item *x) {
  return x->kind == IT_INSN && !x->nofold && x->ntpl;
}
static int same_tpl(G *g, Item *x, Item *y) {
  if (!tpl_ok(g, x) || !tpl_ok(g, y)) return 0;
  return x->ntpl == y->ntpl && x->nval == y->nval &&
         memcmp(g->tb.p + x->tpl, g->tb.p + y->tpl, x->ntpl) == 0;
}

/* a run at k: p statements repeated reps >= 3 times, every integer stepping by a constant from one
** repetition to the next, nothing written between them; the longest, the shortest period first */
static int find_run(G *g, uint32_t k, uint32_t hi, uint32_t *pp, uint32_t *reps,
                    uint32_t *same_end) {
  Item *it = g->items.p;
  const plI_stmt *st = g->m->funcs.p[g->fi].stmts.p;
  uint32_t best = 0;
  *same_end = k;
  if (!eligible(&it[k])) return 0;
  for (uint32_t p = 1; p <= 8 && k + 3 * p <= hi; p++) {
    int ok = 1;
    for (uint32_t r = 1; r < p && ok; r++) {
      const Item *x = &it[k + r];
      if (!eligible(x) || x->a != x->b || it[k + r - 1].c != it[k + r - 1].d) ok = 0;
    }
    /* three repetitions of the same opcodes, before any template is made */
    for (uint32_t r = 0; r < p && ok; r++)
      if (st[k + r].opc != st[k + r + p].opc || st[k + r].opc != st[k + r + 2 * p].opc ||
          st[k + r].nops != st[k + r + p].nops)
        ok = 0;
    if (!ok) continue;
    uint32_t y = k + p;
    int moves = 0;
    for (; y < hi && y - k < 512; y++) { /* longer runs are several loops: bounded time */
      Item *x = &it[y], *x0 = &it[k + (y - k) % p], *prev = &it[y - p];
      if (!eligible(x) || x->a != x->b || it[y - 1].c != it[y - 1].d || !same_tpl(g, x0, x)) break;
      const int64_t *v = g->vals.p + x->val, *vp = g->vals.p + prev->val;
      if (y >= k + 2 * p) {
        const int64_t *vpp = g->vals.p + it[y - 2 * p].val;
        uint32_t j = 0;
        for (; j < x->nval; j++)
          if (v[j] - vp[j] != vp[j] - vpp[j]) break;
        if (j < x->nval) break;
      } else {
        for (uint32_t j = 0; j < x->nval; j++)
          if (v[j] != vp[j]) moves = 1;
      }
    }
    uint32_t r = (y - k) / p;
    if (r >= 3 && moves && r * p > best) {
      best = r * p;
      *pp = p;
      *reps = r;
    }
    if (p == 1 && !moves) *same_end = y; /* k .. y-1 all the same call */
  }
  return best > 0;
}

static void slot_text(plB_buf *o, int64_t v0, int64_t d) {
  if (!d) {
    plB_buf_printf(o, "%lld", (long long)v0);
    return;
  }
  if (v0)
    plB_buf_printf(o, "%lld %c ", (long long)v0, d > 0 ? '+' : '-');
  else if (d < 0)
    plB_buf_putc(o, '-');
  uint64_t a = d > 0 ? (uint64_t)d : (uint64_t)0 - (uint64_t)d;
  if (a != 1) plB_buf_printf(o, "%llu * ", (unsigned long long)a);
  plB_buf_putc(o, 'i');
}

/* a zero offset closing ptx.addr(base, 0): written ptx.addr(base), as the single calls are */
static int addr_zero(const plB_buf *line, const char *rest, uint32_t nrest) {
  if (!nrest || rest[0] != ')' || line->n < 2 || memcmp(line->p + line->n - 2, ", ", 2) != 0)
    return 0;
  int depth = 0;
  for (size_t i = line->n; i-- > 0;) {
    char ch = line->p[i];
    if (ch == ')' || ch == ']' || ch == '}')
      depth++;
    else if (ch == '(' || ch == '[' || ch == '{') {
      if (depth) {
        depth--;
        continue;
      }
      return ch == '(' && i >= 8 && memcmp(line->p + i - 8, "ptx.addr", 8) == 0;
    }
  }
  return 0;
}

static int shape_new(G *g, uint64_t key);
static void emit_run(G *g, uint32_t k, uint32_t p, uint32_t reps) {
  Item *it = g->items.p;
  uint32_t last = k + p * reps - 1;
  if (g->ck) {
    /* the check traces a run once per shape: the shapes of its group's calls (each repetition is
    ** the group's calls with other integers, and the integers are the file's own). A run holding
    ** the first call of a shape is traced whole */
    uint64_t key = 0x72756e0000000000ull ^ p;
    int first = 0;
    for (uint32_t q = k; q <= last; q++) first |= it[q].chk;
    for (uint32_t q = k; q < k + p; q++) key = (key ^ it[q].shape) * 1099511628211ull;
    if (!shape_new(g, key | 1) && !first) return;
  }
  g->fold = k + 1;
  for (uint32_t q = k; q <= last; q++) expect(g, q);
  g->fold = 0;
  emit_lines(g, it[k].a, it[k].b, k, 0);
  block_open(g);
  where_fold(g, k, p * reps, W_RUN);
  char head[64];
  snprintf(head, sizeof head, "for i = 0, %u do%s", reps - 1, p == 1 ? " " : "\n");
  put_ind(g, head);
  for (uint32_t r = 0; r < p; r++) {
    const Item *x = &it[k + r];
    const int64_t *v = g->vals.p + x->val, *v1 = g->vals.p + it[k + r + p].val;
    plB_buf line;
    plB_buf_init(&line);
    uint32_t j = 0;
    for (uint32_t c = 0; c < x->ntpl; c++) {
      char ch = g->tb.p[x->tpl + c];
      if (ch == '\1' && !v[j] && v1[j] == v[j] &&
          addr_zero(&line, g->tb.p + x->tpl + c + 1, x->ntpl - c - 1)) {
        line.n -= 2;
        j++;
      } else if (ch == '\1') {
        slot_text(&line, v[j], v1[j] - v[j]);
        j++;
      } else
        plB_buf_putc(&line, ch);
    }
    if (p == 1) {
      put(g, plB_buf_cstr(&line));
      put(g, " end\n");
    } else {
      where_fold(g, k, p * reps, W_RUN);
      put_ind(g, "  ");
      put(g, plB_buf_cstr(&line));
      put(g, "\n");
    }
    plB_buf_free(&line);
  }
  if (p > 1) {
    where_fold(g, k, p * reps, W_RUN);
    put_ind(g, "end\n");
  }
  emit_lines(g, it[last].c, it[last].d, last, 0);
}

/* h and the Lua text s hashed with its integers left out (not the digits of a name: the rule of
** shape_of) */
static uint64_t text_key(uint64_t h, const char *s) {
  for (size_t i = 0; s[i]; i++) {
    unsigned char ch = (unsigned char)s[i];
    if (ch >= '0' && ch <= '9' && !(i && (isalpha((unsigned char)s[i - 1]) || s[i - 1] == '_'))) {
      while (s[i + 1] >= '0' && s[i + 1] <= '9') i++;
      ch = 1;
    }
    h = (h ^ ch) * 1099511628211ull;
  }
  return (h ^ 0xff) * 1099511628211ull;
}
/* a loop's shape (what the check traces once): its closing branch's shape, the Lua of its label
** and predicate with their integers left out (a label's name is printed as given: the DSL checks
** no more of it than that it is placed once), the predicate's sense, bra or bra.uni */
static uint64_t loop_key(uint64_t bra_shape, const char *label, const char *pred,
                         const plI_stmt *br, int uni) {
  uint64_t h = 0x6c6f6f7000000000ull ^ bra_shape;
  h = text_key(h * 1099511628211ull, label);
  h = text_key(h, pred);
  h = (h ^ (uint64_t)(br->guard ? 1 + ((br->flags & PLOF_NEG) != 0) : 0)) * 1099511628211ull;
  h = (h ^ (uint64_t)(uni != 0)) * 1099511628211ull;
  return h | 1;
}

/* items [lo, hi) at the current depth: loops as ptx.do_while / ptx.mbarrier_wait, runs as for */
static void emit_range(G *g, const plI_func *f, uint32_t lo, uint32_t hi) {
  const plI_module *m = g->m;
  uint32_t skip = 0; /* no run starts before this statement */
  for (uint32_t k = lo; k < hi;) {
    Item *x = &g->items.p[k];
    if (x->kind == IT_DECL) {
      block_close(g);
      where(g, k);
      const char *q = g->ib.p + x->b;
      if (x->c - x->b >= 4 && memcmp(q, "    ", 4) == 0) q += 4;
      put_ind(g, "");
      if (g->ck && x->x0 > x->b && x->x0 < x->c) {
        putn(g, q, (size_t)(g->ib.p + x->x0 - q));
        put(g, ")\n");
      } /* no text */
      else
        putn(g, q, (size_t)(g->ib.p + x->c - q));
      if (g->ck) { /* a declaration of a new shape (its line, at the top or in a block) */
        uint64_t key = 0x6465636c00000000ull ^ (x->depth ? 1u : 0u);
        for (const char *e = g->ib.p + x->c; q < e; q++)
          key = (key ^ (unsigned char)*q) * 1099511628211ull;
        if (shape_new(g, key | 1)) g->ckdecl++;
      }
      k++;
      continue;
    }
    if (x->kind == IT_OPEN) { /* a nested block: ptx.scope(function() ... end) */
      const Blk *bk = &g->blks.p[x->blk];
      uint32_t c = bk->close;
      /* the check leaves out a block with nothing to trace in it: no call of a new shape, no run
      ** or loop, no declaration of a new shape, no labels (what it holds behaves as what the
      ** check traces elsewhere) */
      size_t ck_n = g->b->n, ck_exp = g->exp.n;
      uint32_t ck_line = g->line, ck_where = g->where.n, ck_decl = g->ckdecl;
      Lv ck_lv = g->lv[g->lvl];
      emit_lines(g, x->a, x->b, k, 0); /* comments before the `{` */
      block_open(g);
      where_fold(g, k, c - k + 1, W_SCOPE);
      /* the flat form of ptx.scope: a Lua block (no function per block) between sugar.open and
      ** sugar.close, which carry the `{` and `}` lines when they are not the printer's */
      put_ind(g, "do sugar.open(");
      if (bk->xn && !g->ck) putstr(g, g->m->vsrc.p + bk->xo, bk->xn);
      put(g, ")\n");
      g->lvl++;
      memset(&g->lv[g->lvl], 0, sizeof g->lv[0]);
      if (bk->nlab) { /* its labels, in a table of its own */
        where_fold(g, k, c - k + 1, W_SCOPE);
        put_ind(g, "local ");
        put(g, g->lnames.p + bk->lua);
        put(g, " = sugar.labels {");
        for (uint32_t i = 0; i < bk->nlab; i++) {
          const char *ln = plI_cstr(g->m, f->stmts.p[g->blab.p[bk->lab0 + i]].opc);
          put(g, i ? ", " : " ");
          putstr(g, ln, (uint32_t)strlen(ln));
        }
        put(g, " }\n");
      }
      emit_range(g, f, k + 1, c);
      Item *xc = &g->items.p[c];
      emit_lines(g, xc->a, xc->b, c, 0); /* comments before the `}` */
      block_close(g);
      g->lvl--;
      where_fold(g, k, c - k + 1, W_SCOPE);
      put_ind(g, "sugar.close(");
      if (bk->yn && !g->ck) putstr(g, g->m->vsrc.p + bk->yo, bk->yn);
      put(g, ") end\n");
      emit_lines(g, xc->c, xc->d, c, 0);
      if (g->ck && !bk->nlab && g->exp.n == ck_exp && g->ckdecl == ck_decl) {
        g->b->n = ck_n;
        g->line = ck_line;
        g->where.n = ck_where;
        g->lv[g->lvl] = ck_lv;
      }
      k = c + 1;
      continue;
    }
    if (x->loop_end && g->lvl + 1 < sizeof g->lv / sizeof g->lv[0]) {
      uint32_t b = x->loop_end;
      const plI_stmt *br = &f->stmts.p[b];
      uint32_t lab;
      int uni = 0;
      bra_to(g, f, b, &lab, &uni);
      plB_buf e;
      plB_buf_init(&e);
      plB_buf le;
      plB_buf_init(&le);
      const Item *xbr = &g->items.p[b], *xw = &g->items.p[k + 1];
      int ok = x->x0 != 0;
      if (ok) plB_buf_puts(&le, g->xb.p + x->x0);
      if (br->guard) {
        if (xbr->x0)
          plB_buf_puts(&e, g->xb.p + xbr->x0);
        else
          ok = 0;
      }
      if (ok && x->mbar) {
        const plI_stmt *w = &f->stmts.p[k + 1];
        plB_buf c;
        plB_buf_init(&c);
        plB_buf_puts(&c, "ptx.mbarrier_wait(");
        int wok = xw->x0 && xw->x1;
        if (wok) {
          plB_buf_puts(&c, g->xb.p + xw->x0);
          plB_buf_puts(&c, ", ");
          plB_buf_puts(&c, g->xb.p + xw->x1);
        }
        plB_buf_printf(&c, ", { label = %s, pred = %s", plB_buf_cstr(&le), plB_buf_cstr(&e));
        const char *op = plA_opcode_text(m->isa, w->opc);
        uint32_t on = plA_opcode_len(m->isa, w->opc);
        static const char DEF[] = "mbarrier.try_wait.parity.shared::cta.b64";
        if (on != sizeof DEF - 1 || memcmp(op, DEF, on) != 0) {
          plB_buf_puts(&c, ", op = ");
          plP_lua_str(&c, op, on);
        }
        if (uni) plB_buf_puts(&c, ", uni = true");
        plB_buf_puts(&c, " })\n");
        if (wok && !c.oom) {
          emit_lines(g, x->a, x->b, k, 0);
          block_open(g);
          g->fold = k + 1;
          expect(g, k);
          expect(g, k + 1);
          expect(g, b);
          g->fold = 0;
          where_fold(g, k, 3, W_LOOP);
          put_ind(g, plB_buf_cstr(&c));
          emit_lines(g, g->items.p[b].c, g->items.p[b].d, b, 0);
          plB_buf_free(&c);
          plB_buf_free(&e);
          plB_buf_free(&le);
          k = b + 1;
          continue;
        }
        plB_buf_free(&c);
      }
      if (ok) {
        /* the check leaves out a loop with nothing new (as a nested block): a loop of a known
        ** shape, nothing traced inside it, its label named only by the branches inside it */
        size_t ck_n = g->b->n, ck_exp = g->exp.n;
        uint32_t ck_line = g->line, ck_where = g->where.n, ck_decl = g->ckdecl, ck_st = g->expst.n;
        Lv ck_lv = g->lv[g->lvl];
        emit_lines(g, x->a, x->b, k, 0);
        block_open(g);
        where_fold(g, k, b - k + 1, W_LOOP);
        put_ind(g, "ptx.do_while(");
        put(g, plB_buf_cstr(&le));
        put(g, ", function()\n");
        g->fold = k + 1;
        expect(g, k);
        g->fold = 0;
        g->lvl++;
        memset(&g->lv[g->lvl], 0, sizeof g->lv[0]);
        emit_lines(g, x->c, x->d, k, 0); /* the rest of the label's line */
        emit_range(g, f, k + 1, b);
        Item *xb = &g->items.p[b];
        emit_lines(g, xb->a, xb->b, b, 0); /* layout before the branch */
        block_close(g);                    /* the return is the body's own */
        g->fold = k + 1;
        expect(g, b);
        g->fold = 0;
        where_fold(g, k, b - k + 1, W_LOOP);
        put_ind(g, "return ");
        if (!br->guard)
          put(g, "true\n");
        else {
          put(g, plB_buf_cstr(&e));
          put(g, (br->flags & PLOF_NEG) ? ":inv()\n" : "\n");
        }
        g->lvl--;
        where_fold(g, k, b - k + 1, W_LOOP);
        put_ind(g, uni ? "end, { uni = true })\n" : "end)\n");
        emit_lines(g, xb->c, xb->d, b, 0); /* the rest of the branch's line */
        if (g->ck) {
          uint64_t key = loop_key(xbr->shape, plB_buf_cstr(&le), plB_buf_cstr(&e), br, uni);
          if (!shape_new(g, key) && x->lonly && !label_wanted(g, k) && g->expst.n == ck_st + 2 &&
              g->ckdecl == ck_decl) {
            g->b->n = ck_n;
            g->line = ck_line;
            g->where.n = ck_where;
            g->lv[g->lvl] = ck_lv;
            g->exp.n = ck_exp;
            g->expst.n = g->expfold.n = g->expshape.n = ck_st;
          }
        }
        plB_buf_free(&e);
        plB_buf_free(&le);
        k = b + 1;
        continue;
      }
      plB_buf_free(&e);
      plB_buf_free(&le);
    }
    uint32_t p = 0, reps = 0;
    if (k >= skip) {
      uint32_t same;
      if (find_run(g, k, hi, &p, &reps, &same)) {
        emit_run(g, k, p, reps);
        k += p * reps;
        continue;
      }
      /* in a stretch of one same call, no run starts before its last 16 */
      if (same > k + 16) skip = same - 16;
    }
    emit_lines(g, x->a, x->b, k, 0);
    emit_lines(g, x->b, x->c, k, 1);
    emit_lines(g, x->c, x->d, k, 0);
    k++;
  }
}

/* ---- one function --------------------------------------------------------------------------- */

/* a decl RAW statement `.reg .T name<N>;` or `.reg .T name;` (one name): 1 with its parts */
/* a decl RAW statement `.reg .T %name<N>;`, `.reg .T name;` or a list of such names
** (`.reg .b16 lo, hi;`; bare: without '%'): 1 with its parts */
typedef struct RegList {
  char t[64];
  int n;
  struct {
    char nm[128];
    long cnt;
    int bare;
  } e[16];
} RegList;
static int parse_reg(const char *s, uint32_t n, RegList *rl) {
  char buf[512];
  if (n >= sizeof buf) return 0;
  memcpy(buf, s, n);
  buf[n] = 0;
  rl->n = 0;
  if (strncmp(buf, ".reg", 4) != 0) return 0;
  const char *p = buf + 4;
  while (*p == ' ' || *p == '\t' || *p == '\n' || *p == '\r') p++;
  if (*p++ != '.') return 0;
  size_t tl = 0;
  while (((*p >= 'a' && *p <= 'z') || (*p >= '0' && *p <= '9')) && tl < sizeof rl->t - 1)
    rl->t[tl++] = *p++;
  rl->t[tl] = 0;
  if (!tl) return 0;
  for (;;) {
    int ws = 0;
    while (*p == ' ' || *p == '\t' || *p == '\n' || *p == '\r') p++, ws = 1;
    if (rl->n == 16) return 0;
    int bare = *p != '%';
    if (!bare)
      p++;
    else if (!ws && !rl->n)
      return 0; /* `.reg .b32t;` */
    const char *q = p;
    while ((*q >= 'a' && *q <= 'z') || (*q >= 'A' && *q <= 'Z') || (*q >= '0' && *q <= '9') ||
           *q == '_' || *q == '$')
      q++;
    if (q == p || (size_t)(q - p) >= sizeof rl->e[0].nm) return 0;
    memcpy(rl->e[rl->n].nm, p, (size_t)(q - p));
    rl->e[rl->n].nm[q - p] = 0;
    p = q;
    long cnt = 0;
    if (*p == '<') {
      char *e;
      cnt = strtol(p + 1, &e, 10);
      if (*e != '>' || cnt < 1 || cnt > 1000000) return 0;
      p = e + 1;
    }
    if (!is_ident(rl->e[rl->n].nm, strlen(rl->e[rl->n].nm))) return 0;
    rl->e[rl->n].cnt = cnt;
    rl->e[rl->n].bare = bare;
    rl->n++;
    while (*p == ' ' || *p == '\t' || *p == '\n' || *p == '\r') p++;
    if (*p == ';') return p[1] == 0;
    if (*p != ',') return 0;
    p++;
  }
}
static const char *const DSLTYPES[] = { "pred", "b8",    "b16",  "b32",    "b64", "b128", "u8",
                                        "u16",  "u32",   "u64",  "s8",     "s16", "s32",  "s64",
                                        "f16",  "f16x2", "bf16", "bf16x2", "f32", "f64",  NULL };
static int dsl_type(const char *t) {
  for (int i = 0; DSLTYPES[i]; i++)
    if (strcmp(DSLTYPES[i], t) == 0) return 1;
  return 0;
}

/* the header the DSL prints for a kernel with these parameters */
static void canon_head(const plI_module *m, const plI_func *f, plB_buf *b) {
  plB_buf_printf(b, ".visible .entry %s(", plI_cstr(m, f->name));
  for (uint32_t i = 0; i < f->params.n; i++) {
    const plI_var *v = &f->params.p[i];
    plB_buf_puts(b, i ? ",\n\t" : "\n\t");
    plB_buf_puts(b, ".param ");
    if (v->align) plB_buf_printf(b, ".align %u ", v->align);
    plB_buf_printf(b, ".%s %s", plB_type_info[v->type].name, plI_cstr(m, v->name));
    if (v->count) plB_buf_printf(b, "[%llu]", (unsigned long long)v->count);
  }
  plB_buf_puts(b, f->params.n ? "\n)\n{\n" : ")\n{\n");
}

static int func_ok(const plI_module *m, const plI_func *f) {
  if (f->declared_only || !is_ident(plI_cstr(m, f->name), strlen(plI_cstr(m, f->name)))) return 0;
  for (uint32_t i = 0; i < f->params.n; i++) {
    const plI_var *v = &f->params.p[i];
    const char *t = plB_type_info[v->type].name;
    if (!dsl_type(t) || !strcmp(t, "pred") || v->count == UINT64_MAX ||
        !is_ident(plI_cstr(m, v->name), strlen(plI_cstr(m, v->name))))
      return 0;
    if (v->count && strcmp(t, "b8") &&
        v->align) { /* only .b8 arrays carry an align in the DSL's specs */
    }
  }
  return 1;
}

static void group_room(G *g, uint32_t cost);
static void func_text(G *g, const plI_func *f) {
  put(g, "doc:text ");
  putstr(g, SRC(g, f->vhead), f->vhead.len);
  put(g, "\n");
  for (uint32_t s = 0; s < f->vtext.n; s++) {
    if (!f->vtext.p[s].len) continue;
    group_room(g, 1);
    put(g, "doc:text ");
    putstr(g, SRC(g, f->vtext.p[s]), f->vtext.p[s].len);
    put(g, "\n");
  }
  put(g, "doc:text ");
  putstr(g, SRC(g, f->vtail), f->vtail.len);
  put(g, "\n");
}

/* ---- the shape of a call (what the check runs once) ----------------------------------------- */
/* An instruction's DSL call behaves as every call of its shape does: the same chain, operand kinds
** and register types, integers aside (the writer checks each integer and float itself: its range
** for the operand's type, the exact round trip of its text). Opcodes whose check reads values
** (PLA_VALUES) keep their integers in the shape. */
/* does the DSL's check of the opcode read an immediate's value (a constraint beyond its type's
** range: a set, a range, a multiple, at most the previous operand)? The other values it reads are
** a symbol's state space and an address register's type (check_space), not an address's offset */
static int imm_values(const plA_res *r) {
  if (!r || !(r->flags & PLA_VALUES)) return 0;
  for (int a = 0; a <= r->nalt; a++) {
    const plA_opspec *ops = a ? r->alt[a - 1].ops : r->ops;
    int n = a ? r->alt[a - 1].nops : r->nops;
    for (int i = 0; i < n; i++)
      if (ops[i].ikind) return 1;
  }
  return 0;
}
static uint64_t shape_of(G *g, const plI_stmt *st, const char *c, size_t n) {
  const plI_module *m = g->m;
  const plA_res *r = m->isa ? plA_resolve(m->isa, st->opc, NULL) : NULL;
  int values = imm_values(r);
  uint64_t h = 1469598103934665603ull;
  for (size_t i = 0; i < n; i++) {
    unsigned char ch = (unsigned char)c[i];
    if (ch == 'p' && n - i > 9 && memcmp(c + i, "ptx.sym \"", 9) == 0) {
      /* a variable's name: the DSL prints any name as given and knows no variable of the file
      ** (a function is traced alone), so the call behaves as one naming another variable of the
      ** same declarations does. A function's name or a parameter's keeps its name in the shape */
      const char *q = c + i + 9, *e = memchr(q, '"', n - i - 9);
      const plI_syminfo *si = NULL;
      if (e && !memchr(q, '\\', (size_t)(e - q))) {
        uint32_t id = plB_find(&m->strs, q, (size_t)(e - q));
        si = id ? plI_sym(m, id) : NULL;
      }
      if (si && !si->func && !si->params) {
        uint64_t cls[5] = { 2, si->vspaces, si->global, si->gspace, si->local };
        for (int k = 0; k < 5; k++) h = (h ^ cls[k]) * 1099511628211ull;
        i = (size_t)(e - c);
        continue;
      }
    }
    if (!values && ch >= '0' && ch <= '9' &&
        !(i && (isalpha((unsigned char)c[i - 1]) || c[i - 1] == '_'))) {
      while (i + 1 < n && c[i + 1] >= '0' && c[i + 1] <= '9') i++;
      ch = 1; /* an integer, whatever its digits */
    }
    h = (h ^ ch) * 1099511628211ull;
  }
  /* the register types (a name is bound to one type, but the same Lua name may be another's
  ** elsewhere) */
  for (uint16_t k = 0; k < st->nops && st->ops + k < m->opnds.n; k++) {
    const plI_opnd *o = &m->opnds.p[st->ops + k];
    uint32_t id = o->kind == PLO_REG                                    ? o->id
                  : (o->kind == PLO_ADDR && (o->flags & PLOF_BASE_REG)) ? o->id
                                                                        : 0;
    if (id && id <= m->regs.n)
      h = (h ^ (0x100u + m->regs.p[id - 1].type)) * 1099511628211ull;
    else if (o->kind == PLO_VEC && !(o->flags & PLOF_REGS) && plI_elems_ok(m, o, o->n))
      for (uint16_t j = 0; j < o->n; j++) {
        plI_opnd e = plI_elem(m, o, j);
        if (e.kind == PLO_REG && e.id && e.id <= m->regs.n)
          h = (h ^ (0x200u + m->regs.p[e.id - 1].type)) * 1099511628211ull;
      }
  }
  if (st->guard && st->guard - 1 < m->regs.n)
    h = (h ^ (0x300u + m->regs.p[st->guard - 1].type)) * 1099511628211ull;
  return h ? h : 1;
}
/* this round's set of shapes seen: 1 when key is new (and added) */
static int shape_new(G *g, uint64_t key) {
  if (2 * (g->nseen + 1) > g->seencap) {
    uint32_t nc = g->seencap ? 2 * g->seencap : 4096;
    uint64_t *t = calloc(nc, sizeof *t);
    if (!t) return 1; /* no memory for the set: every call is checked */
    for (uint32_t i = 0; i < g->seencap; i++)
      if (g->seen[i]) {
        uint32_t h = slot64(g->seen[i], nc);
        while (t[h]) h = (h + 1) & (nc - 1);
        t[h] = g->seen[i];
      }
    free(g->seen);
    g->seen = t;
    g->seencap = nc;
  }
  uint32_t h = slot64(key, g->seencap);
  while (g->seen[h]) {
    if (g->seen[h] == key) return 0;
    h = (h + 1) & (g->seencap - 1);
  }
  g->seen[h] = key;
  g->nseen++;
  return 1;
}
/* why every call of this shape is kept as written, or NULL (a set of G.kshape's indices + 1) */
static const char *shape_kept(G *g, uint64_t key) {
  if (!g->kscap) return NULL;
  for (uint32_t h = slot64(key, g->kscap); g->kset[h]; h = (h + 1) & (g->kscap - 1))
    if (g->kshape.p[g->kset[h] - 1].key == key) return g->kshape.p[g->kset[h] - 1].why;
  return NULL;
}
/* every call of this shape is kept as written, for why (owned by G.kshape); 0 out of memory */
static int kshape_add(G *g, uint64_t key, char *why) {
  KShape ks = { key, why };
  if (!why) return 0;
  if (2 * (g->kshape.n + 1) > g->kscap) {
    uint32_t nc = g->kscap ? 2 * g->kscap : 256;
    uint32_t *t = calloc(nc, sizeof *t);
    if (!t) {
      free(why);
      return 0;
    }
    for (uint32_t i = 0; i < g->kshape.n; i++) {
      uint64_t k = g->kshape.p[i].key;
      uint32_t h = slot64(k, nc);
      while (t[h]) h = (h + 1) & (nc - 1);
      t[h] = i + 1;
    }
    free(g->kset);
    g->kset = t;
    g->kscap = nc;
  }
  if (!plB_vec_push(g->kshape, ks)) {
    free(why);
    return 0;
  }
  uint32_t h = slot64(key, g->kscap);
  while (g->kset[h]) h = (h + 1) & (g->kscap - 1);
  g->kset[h] = g->kshape.n;
  return 1;
}

/* the Lua text of a register name for sugar.reg/sugar.regs: "r" or { "t", bare = true } */
static void reg_name_lua(plB_buf *o, const char *nm, int bare) {
  if (bare) {
    plB_buf_puts(o, "{ ");
    lua_cstr(o, nm);
    plB_buf_puts(o, ", bare = true }");
  } else
    lua_cstr(o, nm);
}

/* the limits of a nested block written as ptx.scope: Lua function nesting, locals in scope (a Lua
** function has at most 60 upvalues, 200 locals) */
enum { MAX_BLOCK_DEPTH = 24, MAX_BLOCK_DECLS = 40, MAX_LOCALS = 52 };

/* why nested block bk (its `{` at s0, nothing decided inside it yet) stays as written, or NULL:
** each of its own declarations must have a DSL form, once */
static const char *block_why(G *g, const plI_func *f, const Blk *bk, uint32_t depth,
                             uint32_t nlocals) {
  const plI_module *m = g->m;
  const char *kw = kept(g, bk->open);
  if (kw) return kw;
  if (bk->close == UINT32_MAX) return "a nested { } block that does not close";
  if (depth > MAX_BLOCK_DEPTH)
    return "a nested { } block nested deeper than the script writes blocks";
  uint32_t nd = 0, d = 0, nl = nlocals + (bk->nlab ? 1 : 0);
  /* names seen so far in the block, bound for the check, unbound after */
  uint32_t first = g->binds.n;
  const char *why = NULL;
  for (uint32_t s = bk->open + 1; s < bk->close && !why; s++) {
    const plI_stmt *st = &f->stmts.p[s];
    plI_span sp = f->vtext.p[s];
    const char *tx = SRC(g, sp) + (sp.tok - sp.off);
    uint32_t tn = sp.off + sp.len - sp.tok;
    if (st->kind == PLS_RAW && tn && tx[0] == '{') {
      d++;
      continue;
    }
    if (st->kind == PLS_RAW && tn && tx[0] == '}') {
      d--;
      continue;
    }
    if (d || st->kind != PLS_RAW || tn < 4 || memcmp(tx, ".reg", 4) != 0) continue;
    RegList rl;
    const char *semi = memchr(tx, ';', tn);
    if (!semi || !parse_reg(tx, (uint32_t)(semi - tx + 1), &rl) || !dsl_type(rl.t)) {
      why = "a nested { } block declaring a register the DSL does not make (a vector, an unknown "
            "type or a name Lua cannot hold)";
      break;
    }
    for (int k = 0; k < rl.n && !why; k++) {
      uint32_t id = plB_find(&m->strs, rl.e[k].nm, strlen(rl.e[k].nm));
      for (uint32_t b = id && id < g->nbind ? g->rbind[id] : 0; b > first && !why;
           b = g->binds.p[b - 1].prev)
        if (g->binds.p[b - 1].bare == rl.e[k].bare)
          why = "a nested { } block declaring a register twice";
      if (!why && id) bind(g, 0, id, 0, (uint32_t)rl.e[k].cnt, rl.e[k].bare, 1, 0);
      if (++nd > MAX_BLOCK_DECLS || ++nl > MAX_LOCALS)
        why = "a nested { } block with more registers in scope than a Lua function holds";
    }
  }
  while (g->binds.n > first) { /* the check's bindings go */
    Bind *x = &g->binds.p[g->binds.n - 1];
    g->rbind[x->name] = x->prev;
    g->binds.n--;
  }
  return why;
}

/* the number of Lua locals in scope (not the R table's, not labels' tables of enclosing blocks) */
static uint32_t locals_in_scope(G *g) {
  uint32_t n = 0;
  for (uint32_t i = 0; i < g->binds.n; i++) n += !g->binds.p[i].table && !g->binds.p[i].label;
  return n + g->npname;
}

/* a function's skeleton for the check: its kind, whether its header is the DSL's, its parameters'
** types, sizes, alignments and Lua names, and its body as the check script holds it (the names of
** the function and its parameters left out: doc:check_names checks those) */
static uint64_t skeleton(G *g, const plI_func *f, int wrote_head, const char *body, size_t n) {
  const plI_module *m = g->m;
  uint64_t h = 0x736b656c65746f6eull;
  uint64_t w[5] = { (uint64_t)f->kind, (uint64_t)wrote_head, (uint64_t)f->linkage, f->params.n,
                    (uint64_t)g->use_table };
  for (int i = 0; i < 5; i++) h = (h ^ w[i]) * 1099511628211ull;
  for (uint32_t i = 0; i < f->params.n; i++) {
    const plI_var *v = &f->params.p[i];
    uint64_t x[3] = { (uint64_t)v->type, v->count, v->align };
    for (int k = 0; k < 3; k++) h = (h ^ x[k]) * 1099511628211ull;
    const char *pl = g->pname && g->pname[i] ? g->pname[i] : "";
    for (const char *q = pl;; q++) {
      h = (h ^ (unsigned char)*q) * 1099511628211ull;
      if (!*q) break;
    }
  }
  (void)m;
  for (size_t i = 0; i < n; i++) h = (h ^ (unsigned char)body[i]) * 1099511628211ull;
  return h ? h : 1;
}

/* the check script's labels' table of function f: the labels of the top its calls place or name
** (those its expectations hold, from ef->s0), in the script's order, one line inserted at at in
** the check script (its line was counted when the header was copied); 0 out of memory */
static int check_labels(G *g, const plI_func *f, const ExpF *ef, size_t at) {
  const plI_module *m = g->m;
  if (++g->lstamp == 0) {
    memset(g->lmark, 0, g->nbind * sizeof *g->lmark);
    g->lstamp = 1;
  }
  for (uint32_t i = ef->s0; i < g->expst.n; i++) {
    uint32_t s = g->expst.p[i];
    if (s >= f->stmts.n) continue;
    const plI_stmt *st = &f->stmts.p[s];
    if (st->kind == PLS_LABEL && st->opc < g->nbind) g->lmark[st->opc] = g->lstamp;
    if (st->kind != PLS_INSN) continue;
    for (uint32_t k = 0; k < st->nops && st->ops + k < m->opnds.n; k++) {
      const plI_opnd *o = &m->opnds.p[st->ops + k];
      if (o->kind == PLO_LABEL && o->id < g->nbind) g->lmark[o->id] = g->lstamp;
    }
  }
  plB_buf t;
  plB_buf_init(&t);
  plB_buf_puts(&t, "    local L = sugar.labels {");
  int depth = 0, any = 0;
  for (uint32_t s = 0; s < f->stmts.n; s++) {
    const plI_stmt *st = &f->stmts.p[s];
    plI_span sp = f->vtext.p[s];
    const char *tx = SRC(g, sp) + (sp.tok - sp.off);
    if (st->kind == PLS_RAW && tx[0] == '{') depth++;
    if (st->kind == PLS_RAW && tx[0] == '}') depth--;
    if (depth || st->kind != PLS_LABEL || st->opc >= g->nbind || g->lmark[st->opc] != g->lstamp)
      continue;
    plB_buf_puts(&t, any ? ", " : " ");
    any = 1;
    const char *ln = plI_cstr(m, st->opc);
    plP_lua_str(&t, ln, (uint32_t)strlen(ln));
  }
  plB_buf_puts(&t, " }\n");
  if (!t.oom) plB_buf_add(&g->cb, t.p, t.n);
  int ok = !t.oom && !g->cb.oom;
  if (ok) { /* moved to its place: the body after it */
    memmove(g->cb.p + at + t.n, g->cb.p + at, g->cb.n - t.n - at);
    memcpy(g->cb.p + at, t.p, t.n);
  }
  plB_buf_free(&t);
  return ok;
}

static int write_func(G *g, uint32_t fi, const char *path) {
  const plI_module *m = g->m;
  const plI_func *f = &m->funcs.p[fi];
  const char *fname = plI_cstr(m, f->name);
  Fn *fs = &g->fn[fi];
  (void)path;
  g->nstmts += f->stmts.n;
  if (!fs->text && !func_ok(m, f)) {
    fs->text = 1;
    if (!fs->why && !f->declared_only) fs->why = strdup("its name or a parameter has no DSL form");
  }
  if (fs->text) {
    if (fs->why) kev(g, fs->why, f->vhead.tok, f->stmts.n ? f->stmts.n : 1);
    func_text(g, f);
    return 0;
  }
  g->fi = fi;
  g->inblock = 0;
  /* why each statement is kept, which are not folded (this function's entries of keep, nofold) */
  free(g->kwhy);
  free(g->nof);
  free(g->declb);
  g->kwhy = calloc(f->stmts.n + 1, sizeof *g->kwhy);
  g->nof = calloc(f->stmts.n + 1, 1);
  g->declb = calloc(f->stmts.n + 1, sizeof *g->declb); /* a top `.reg` -> its binding + 1 */
  if (!g->kwhy || !g->nof || !g->declb) return 2;
  for (uint32_t i = fs->khead; i; i = g->keep.p[i - 1].next)
    if (g->keep.p[i - 1].stmt < f->stmts.n && !g->kwhy[g->keep.p[i - 1].stmt])
      g->kwhy[g->keep.p[i - 1].stmt] = g->keep.p[i - 1].why;
  for (uint32_t i = fs->nhead; i; i = g->nofold.p[i - 1].next)
    if (g->nofold.p[i - 1].stmt < f->stmts.n) g->nof[g->nofold.p[i - 1].stmt] = 1;
  /* a label kept as written is no label to the DSL: the branches to it are kept too (else each
  ** would be refused by a run of its own). Labels the writer will keep: kept, or written in
  ** another layout than the printer's `name:` */
  for (uint32_t s = 0; s < f->stmts.n; s++) {
    const plI_stmt *st = &f->stmts.p[s];
    if (st->kind != PLS_LABEL) continue;
    plI_span sp = f->vtext.p[s];
    const char *tx = SRC(g, sp) + (sp.tok - sp.off);
    uint32_t tn = sp.off + sp.len - sp.tok, ln = m->strs.len[st->opc];
    if (!g->kwhy[s] && tn > ln && memcmp(tx, plI_cstr(m, st->opc), ln) == 0 && tx[ln] == ':')
      continue;
    for (uint32_t q = 0; q < f->stmts.n; q++)
      if (!g->kwhy[q] && names_label(m, &f->stmts.p[q], st->opc)) g->kwhy[q] = BRANCH_TO_KEPT;
  }
  /* the nested blocks: each `{` with its `}`, its own labels */
  g->blks.n = 0;
  g->blab.n = 0;
  uint32_t *bstack = calloc(PLR_MAXDEPTH + 2, sizeof *bstack), bsp = 0;
  uint32_t *blkof = calloc(f->stmts.n + 1, sizeof *blkof); /* `{` or `}` statement -> block + 1 */
  if (!bstack || !blkof) {
    free(bstack);
    free(blkof);
    return 2;
  }
  for (uint32_t s = 0; s < f->stmts.n; s++) {
    const plI_stmt *st = &f->stmts.p[s];
    plI_span sp = f->vtext.p[s];
    const char *tx = SRC(g, sp) + (sp.tok - sp.off);
    uint32_t tn = sp.off + sp.len - sp.tok;
    if (st->kind == PLS_RAW && tn && tx[0] == '{') {
      Blk bk = { s, UINT32_MAX, 0, 0, 0, 0, 0, 0, 0, NULL };
      if (!plB_vec_push(g->blks, bk)) {
        free(bstack);
        free(blkof);
        return 2;
      }
      blkof[s] = g->blks.n;
      if (bsp < PLR_MAXDEPTH + 2) bstack[bsp++] = g->blks.n - 1;
    } else if (st->kind == PLS_RAW && tn && tx[0] == '}' && bsp) {
      g->blks.p[bstack[--bsp]].close = s;
      blkof[s] = bstack[bsp] + 1;
    }
  }
  /* the labels of each block, in order (the blocks' own, not their children's) */
  {
    uint32_t nb = g->blks.n, *cnt = calloc(nb + 1, sizeof *cnt), cur = 0;
    uint32_t *stk = calloc(PLR_MAXDEPTH + 2, sizeof *stk), sp2 = 0;
    if (!cnt || !stk) {
      free(cnt);
      free(stk);
      free(bstack);
      free(blkof);
      return 2;
    }
    for (int pass = 0; pass < 2; pass++) {
      cur = 0;
      sp2 = 0;
      if (pass) { /* offsets into blab */
        uint32_t o = 0;
        for (uint32_t i = 0; i < nb; i++) {
          g->blks.p[i].lab0 = o;
          o += cnt[i + 1];
          g->blks.p[i].nlab = 0;
        }
        while (g->blab.n < o) {
          uint32_t z = 0;
          if (!plB_vec_push(g->blab, z)) break;
        }
      }
      for (uint32_t s = 0; s < f->stmts.n; s++) {
        const plI_stmt *st = &f->stmts.p[s];
        if (blkof[s] && g->blks.p[blkof[s] - 1].open == s) {
          if (sp2 < PLR_MAXDEPTH + 2) stk[sp2++] = cur;
          cur = blkof[s];
          continue;
        }
        if (blkof[s]) {
          cur = sp2 ? stk[--sp2] : 0;
          continue;
        }
        if (st->kind != PLS_LABEL || !cur) continue;
        if (!pass)
          cnt[cur]++;
        else if (g->blab.n > g->blks.p[cur - 1].lab0 + g->blks.p[cur - 1].nlab)
          g->blab.p[g->blks.p[cur - 1].lab0 + g->blks.p[cur - 1].nlab++] = s;
      }
    }
    free(cnt);
    free(stk);
  }
  /* registers declared at the top, in a form the DSL declares */
  int depth = 0;
  uint32_t nlabels = 0, ntop = 0;
  for (int pass = 0; pass < 2; pass++) {
    depth = 0;
    for (uint32_t s = 0; s < f->stmts.n; s++) {
      const plI_stmt *st = &f->stmts.p[s];
      plI_span sp = f->vtext.p[s];
      const char *tx = SRC(g, sp) + (sp.tok - sp.off);
      uint32_t tn = sp.off + sp.len - sp.tok;
      if (st->kind == PLS_RAW && tn && tx[0] == '{') {
        depth++;
        continue;
      }
      if (st->kind == PLS_RAW && tn && tx[0] == '}') {
        depth--;
        continue;
      }
      if (depth) continue;
      if (st->kind == PLS_LABEL) {
        if (pass) {
          nlabels++;
          bind(g, 1, st->opc, 0, 0, 0, 0, 0);
        } /* in the table L (its name set below) */
        continue;
      }
      if (st->kind == PLS_RAW && !kept(g, s)) {
        RegList rl;
        const char *semi = memchr(tx, ';', tn);
        if (semi && parse_reg(tx, (uint32_t)(semi - tx + 1), &rl) && dsl_type(rl.t)) {
          if (!pass) {
            ntop += (uint32_t)rl.n;
            continue;
          }
          /* a second declaration of a name (or of another name the script spells the same, %p
          ** and p) is kept as written, with the others of its statement */
          char lnm[16][160];
          uint32_t ids[16];
          int ok = 1;
          for (int k = 0; k < rl.n && ok; k++) {
            snprintf(lnm[k], sizeof lnm[k], "%s%s", rl.e[k].nm,
                     is_keyword(rl.e[k].nm, strlen(rl.e[k].nm)) ? "_" : "");
            ids[k] = plB_find(&m->strs, rl.e[k].nm, strlen(rl.e[k].nm));
            if (!ids[k] || ids[k] >= g->nbind || is_taken(g, lnm[k])) ok = 0;
            for (int q = 0; q < k && ok; q++)
              if (!strcmp(lnm[q], lnm[k])) ok = 0;
          }
          if (!ok) continue;
          for (int k = 0; k < rl.n; k++) {
            uint32_t lua = lname_add(g, lnm[k]);
            uint32_t *tk = taken_slot(g, lnm[k]);
            if (tk) (*tk)++;
            if (!bind(g, 0, ids[k], lua, (uint32_t)rl.e[k].cnt, rl.e[k].bare, g->use_table, 1))
              break;
            if (!k) g->declb[s] = g->binds.n;
          }
        }
      }
    }
    if (!pass) g->use_table = ntop + f->params.n > 40;
  }
  /* every .entry is a launchable kernel, whatever its linkage (nvcc -G writes template
  ** instantiations as .weak .entry): the header below keeps the linkage as written */
  size_t hdr0 = g->b->n; /* the header, written once here and copied into the check script */
  uint32_t hdrline = g->line;
  if (f->kind == PLF_ENTRY)
    put(g, "doc:kernel {\n");
  else
    put(g, "doc:func {\n");
  put(g, "  name = ");
  putstr(g, fname, (uint32_t)strlen(fname));
  put(g, ",\n");
  put(g, "  params = {");
  for (uint32_t i = 0; i < f->params.n; i++) {
    const plI_var *v = &f->params.p[i];
    put(g, i ? ", {" : " {");
    const char *pn = plI_cstr(m, v->name);
    putstr(g, pn, (uint32_t)strlen(pn));
    putf(g, ", \"%s\"", plB_type_info[v->type].name);
    if (v->count) {
      char tmp[64];
      snprintf(tmp, sizeof tmp, ", size = %llu", (unsigned long long)v->count);
      put(g, tmp);
    }
    if (v->align) {
      char tmp[64];
      snprintf(tmp, sizeof tmp, ", align = %u", v->align);
      put(g, tmp);
    }
    put(g, "}");
  }
  put(g, f->params.n ? " },\n" : "},\n");
  plB_buf canon;
  plB_buf_init(&canon);
  canon_head(m, f, &canon);
  int wrote_head = 0;
  if (fs->head || f->kind != PLF_ENTRY || f->linkage != PLK_VISIBLE || canon.n != f->vhead.len ||
      memcmp(canon.p, SRC(g, f->vhead), canon.n) != 0) {
    put(g, "  head = ");
    putstr(g, SRC(g, f->vhead), f->vhead.len);
    put(g, ",\n");
    wrote_head = 1;
  }
  if (fs->tail || f->vtail.len != 3 || memcmp(SRC(g, f->vtail), "\n}\n", 3) != 0) {
    put(g, "  tail = ");
    putstr(g, SRC(g, f->vtail), f->vtail.len);
    put(g, ",\n");
  }
  /* parameters: param_0, ... (the mangled prefix dropped) */
  put(g, "  body = function(t, ...)\n    local A = { ... }");
  if (g->pname) {
    for (uint32_t i = 0; i < g->npname; i++) free(g->pname[i]);
    free(g->pname);
  }
  g->pname = calloc(f->params.n + 1, sizeof *g->pname);
  g->npname = f->params.n;
  for (uint32_t i = 0; i < f->params.n; i++) {
    const char *pn = plI_cstr(m, f->params.p[i].name);
    size_t fl = strlen(fname);
    const char *shortn = pn;
    if (strncmp(pn, fname, fl) == 0 && pn[fl] == '_' && is_ident(pn + fl + 1, strlen(pn + fl + 1)))
      shortn = pn + fl + 1;
    uint32_t rid = plB_find(&m->strs, shortn, strlen(shortn));
    if (!is_keyword(shortn, strlen(shortn)) && !g->use_table && strlen(shortn) < 60 &&
        !(rid && rid < g->nbind && g->rbind[rid]) && !is_taken(g, shortn)) {
      int dup = 0;
      for (uint32_t j = 0; j < i; j++)
        if (g->pname && g->pname[j] && !strcmp(g->pname[j], shortn)) dup = 1;
      if (!dup && g->pname) {
        g->pname[i] = strdup(shortn);
        uint32_t *tk = taken_slot(g, shortn);
        if (tk) (*tk)++;
        char tmp[32];
        snprintf(tmp, sizeof tmp, " = A[%u]   -- ", i + 1);
        put(g, "\n    local ");
        put(g, shortn);
        put(g, tmp);
        put(g, pn);
      }
    }
  }
  put(g, "\n");
  if (g->use_table) put(g, "    local R = {}\n");
  /* the labels' table [lt0, lt1) of the script, ltlines lines: the check script's holds only the
  ** labels its calls place or name, on one line (written once its body is) */
  size_t lt0 = g->b->n, lt1 = lt0;
  uint32_t ltline = g->line, ltlines = 0;
  if (nlabels) {
    put(g, "    local L = sugar.labels {");
    uint32_t k = 0;
    depth = 0;
    for (uint32_t s = 0; s < f->stmts.n; s++) {
      const plI_stmt *st = &f->stmts.p[s];
      plI_span sp = f->vtext.p[s];
      const char *tx = SRC(g, sp) + (sp.tok - sp.off);
      if (st->kind == PLS_RAW && tx[0] == '{') depth++;
      if (st->kind == PLS_RAW && tx[0] == '}') depth--;
      if (depth || st->kind != PLS_LABEL) continue;
      put(g, k == 0 ? "\n      " : k % 8 ? ", " : ",\n      ");
      k++;
      const char *ln = plI_cstr(m, st->opc);
      putstr(g, ln, (uint32_t)strlen(ln));
    }
    put(g, " }\n");
    lt1 = g->b->n;
    ltlines = g->line - ltline;
  }
  /* the top's labels are in the table L: lnames offset of "L" */
  {
    uint32_t lo = lname_add(g, "L");
    for (uint32_t i = 0; i < g->binds.n; i++)
      if (g->binds.p[i].label) g->binds.p[i].lua = lo;
  }
  uint32_t cl0 = g->cline; /* the function's first line in the check script */
  size_t cb0 = g->cb.n;
  plB_buf_add(&g->cb, g->b->p + hdr0, lt0 - hdr0);
  size_t cl_at = g->cb.n; /* where the check's labels' line goes */
  plB_buf_add(&g->cb, g->b->p + lt1, g->b->n - lt1);
  g->cline += g->line - hdrline - ltlines + (lt1 > lt0);
  size_t cbody = g->cb.n; /* its body in the check script */
  snprintf(g->indent, sizeof g->indent, "\t");
  snprintf(g->gap, sizeof g->gap, " \t");
  int noloops = 0;
  /* the statements */
  depth = 0;
  const char *run_why = NULL;
  uint32_t run_n = 0;
  plI_span run_sp = { 0, 0, 0 };
  plB_buf c;
  plB_buf_init(&c);
  /* first each statement's Lua lines (into g->ib), then the body with loops and runs folded */
  plB_buf *outb = g->b;
  uint32_t outline = g->line;
  g->b = &g->ib;
  g->ib.n = 0;
  g->tb.n = 0;
  g->xb.n = 0;
  g->items.n = 0;
  g->vals.n = 0;
  g->p1 = 1;
  /* the blocks open at this statement: each with its binding mark; vdepth: inside a block kept
  ** as written (everything in it is), and why */
  uint32_t bmark[PLR_MAXDEPTH + 2], nopen = 0, vdepth = 0;
  const char *vwhy = NULL;
#define MARK_B() (it.b = (uint32_t)g->ib.n)
#define MARK_C() (it.c = (uint32_t)g->ib.n)
  for (uint32_t s = 0; s < f->stmts.n; s++) {
    const plI_stmt *st = &f->stmts.p[s];
    plI_span sp = f->vtext.p[s];
    const char *all = SRC(g, sp);
    uint32_t lead = sp.tok - sp.off;
    const char *tx = all + lead;
    uint32_t tn = sp.len - lead;
    const char *why = kept(g, s);
    c.n = 0;
    canon.n = 0;
    int open = blkof[s] && g->blks.p[blkof[s] - 1].open == s, close = blkof[s] && !open;
    Blk *bk = blkof[s] ? &g->blks.p[blkof[s] - 1] : NULL;
    if (open) depth++;
    Item it;
    memset(&it, 0, sizeof it);
    it.a = it.b = it.c = UINT32_MAX;
    it.a = (uint32_t)g->ib.n;
    it.depth = (uint8_t)(depth > 255 ? 255 : depth);
    it.nofold = g->nof[s];
    it.brace = (uint8_t)(open ? 1 : close ? 2 : 0);
    it.blk = bk ? blkof[s] - 1 : 0;
    int done = 0;
    /* a nested block: ptx.scope, or kept as written whole */
    if (open && !vdepth) {
      bk->why = block_why(g, f, bk, (uint32_t)depth, locals_in_scope(g));
      if (bk->why) {
        vdepth = (uint32_t)depth;
        vwhy = bk->why;
      }
    }
    if (vdepth) {
      if (!why) why = vwhy;
      if (close && (uint32_t)depth == vdepth) vdepth = 0;
    } else if (open || close) {
      uint32_t ind = lead;
      while (ind > 0 && (all[ind - 1] == ' ' || all[ind - 1] == '\t')) ind--;
      int canon_ok = lead - ind == strlen(g->indent) &&
                     memcmp(all + ind, g->indent, lead - ind) == 0 && tn == 2 &&
                     tx[0] == (open ? '{' : '}') && tx[1] == '\n';
      if (ind) text_call(g, "text", all, ind); /* comments before it */
      MARK_B();
      it.kind = open ? IT_OPEN : IT_CLOSE;
      if (open) {
        if (!canon_ok) {
          bk->xo = sp.off + ind;
          bk->xn = sp.len - ind;
        }
        if (nopen < PLR_MAXDEPTH + 2) bmark[nopen++] = g->binds.n;
        if (bk->nlab) { /* its labels: in a table of its own, named for the block's depth */
          char tn2[16];
          snprintf(tn2, sizeof tn2, "L%d", depth);
          bk->lua = lname_fresh(g, tn2);
          for (uint32_t i = 0; i < bk->nlab; i++)
            bind(g, 1, f->stmts.p[g->blab.p[bk->lab0 + i]].opc, bk->lua, 0, 0, 0, 0);
        }
      } else {
        if (!canon_ok) {
          bk->yo = sp.off + ind;
          bk->yn = sp.len - ind;
        }
        if (nopen) unbind(g, bmark[--nopen]);
        if (bk->lua) { /* its labels' table name goes out of scope */
          uint32_t id = plB_find(&g->ltaken, g->lnames.p + bk->lua, strlen(g->lnames.p + bk->lua));
          if (id && id < g->taken.n && g->taken.p[id]) g->taken.p[id]--;
        }
      }
      MARK_C();
      done = 1;
    }
    if (close) depth--;
    if (!why && !done && st->kind == PLS_LABEL) {
      plB_buf_puts(&canon, plI_cstr(m, st->opc));
      plB_buf_putc(&canon, ':');
      if (tn >= canon.n && memcmp(tx, canon.p, canon.n) == 0) {
        if (lead) text_call(g, "text", all, lead);
        block_open(g);
        where(g, s);
        MARK_B();
        it.kind = IT_LABEL;
        put(g, "    ptx.place(");
        plB_buf lb;
        plB_buf_init(&lb);
        plI_opnd lo = { PLO_LABEL, 0, 0, st->opc, 0 };
        opnd_lua(g, f, &lo, &lb, 0);
        put(g, plB_buf_cstr(&lb));
        it.x0 = aux(g, &lb);
        plB_buf_free(&lb);
        put(g, ")\n");
        MARK_C();
        if (tn - canon.n != 1 || tx[canon.n] != '\n')
          text_call(g, "eol", tx + canon.n, tn - (uint32_t)canon.n);
        done = 1;
      } else
        why = "the label is written differently from the printer's 'name:'";
    }
    if (!why && !done && st->kind == PLS_RAW) {
      RegList rl;
      const char *semi = memchr(tx, ';', tn);
      if (tn >= 4 && memcmp(tx, ".reg", 4) == 0) {
        if (semi && parse_reg(tx, (uint32_t)(semi - tx + 1), &rl) && dsl_type(rl.t)) {
          /* at the top: bound before, for the first declaration of the names; in a block: bound
          ** here, where the block declares them */
          uint32_t b0 = 0;
          int ok = 0;
          if (!depth) {
            if (g->declb[s]) {
              b0 = g->declb[s] - 1;
              ok = 1;
            }
          } else {
            ok = 1;
            b0 = g->binds.n;
            for (int k = 0; k < rl.n && ok; k++) {
              uint32_t id = plB_find(&m->strs, rl.e[k].nm, strlen(rl.e[k].nm));
              uint32_t lua = id ? lname_fresh(g, rl.e[k].nm) : 0;
              if (!id || !bind(g, 0, id, lua, (uint32_t)rl.e[k].cnt, rl.e[k].bare, 0, 1)) ok = 0;
            }
          }
          if (ok && b0 + (uint32_t)rl.n <= g->binds.n) {
            block_close(g);
            where(g, s);
            MARK_B();
            it.kind = IT_DECL;
            plB_buf line;
            plB_buf_init(&line);
            uint32_t textcut = 0;
            plB_buf_puts(&line, !depth && g->use_table ? "    " : "    local ");
            for (int k = 0; k < rl.n; k++)
              plB_buf_printf(&line, "%s%s%s", k ? ", " : "", !depth && g->use_table ? "R." : "",
                             g->lnames.p + g->binds.p[b0 + (uint32_t)k].lua);
            plB_buf_puts(&line, " = ");
            for (int k = 0; k < rl.n; k++) {
              if (k) plB_buf_puts(&line, ", ");
              plB_buf_puts(&line, rl.e[k].cnt ? "sugar.regs(" : "sugar.reg(");
              lua_cstr(&line, rl.t);
              if (rl.e[k].cnt) plB_buf_printf(&line, ", %ld", rl.e[k].cnt);
              plB_buf_puts(&line, ", ");
              reg_name_lua(&line, rl.e[k].nm, rl.e[k].bare);
              if (k) {
                plB_buf_puts(&line, ", \"\")");
                continue;
              } /* the statement's text goes with the first */
              /* the printer's declaration: \t.reg .T \t%name<N>;\n */
              plB_buf d;
              plB_buf_init(&d);
              const char *t = rl.t;
              plB_buf_printf(&d, "\t.reg .%s \t%s%s",
                             !strcmp(t, "bf16")                            ? "b16"
                             : !strcmp(t, "bf16x2") || !strcmp(t, "f16x2") ? "b32"
                                                                           : t,
                             rl.e[0].bare ? "" : "%", rl.e[0].nm);
              if (rl.e[0].cnt) plB_buf_printf(&d, "<%ld>", rl.e[0].cnt);
              plB_buf_puts(&d, ";\n");
              if (rl.n > 1 || d.n != sp.len || memcmp(d.p, all, d.n) != 0) {
                /* the check script leaves the text out */
                if (rl.n == 1) textcut = (uint32_t)line.n;
                plB_buf_puts(&line, ", ");
                plP_lua_str(&line, all, sp.len);
              }
              plB_buf_free(&d);
              plB_buf_putc(&line, ')');
            }
            plB_buf_puts(&line, "\n");
            if (textcut) it.x0 = it.b + textcut; /* ib offset of ", TEXT)" */
            put(g, plB_buf_cstr(&line));
            plB_buf_free(&line);
            MARK_C();
            done = 1;
          } else
            why = "a register declared twice";
        } else
          why = "a register declaration the DSL does not make (a vector, an unknown type or a name "
                "Lua cannot hold)";
      } else if (tn >= 5 && memcmp(tx, ".loc", 4) == 0) {
        /* debug line information: layout, kept as written */
        MARK_B();
        text_call(g, "text", all, sp.len);
        MARK_C();
        done = 1;
      } else if (tn >= 6 && memcmp(tx, ".file", 5) == 0) {
        MARK_B();
        text_call(g, "text", all, sp.len);
        MARK_C();
        done = 1;
      } else if (tn && tx[0] == '.') {
        /* a variable or another directive in the body: declared as written */
        MARK_B();
        text_call(g, "text", all, sp.len);
        MARK_C();
        if (has_sub(tx, tn, "branchtargets")) noloops = 1; /* labels named in text */
        done = 1;
      } else
        why = "a statement the parser keeps as text";
    }
    int have = 0; /* the instruction's DSL call in c, its canonical text in canon */
    if (!why && !done && st->kind == PLS_INSN) {
      have = insn_lua(g, f, st, &c, &canon);
      plB_buf rm;
      plB_buf_init(&rm);
      plB_buf_puts(&rm, "the DSL refuses it: ");
      size_t n0 = rm.n;
      if (have && !(st->flags & 0x80) && dsl_refuses(g, st, &rm) && rm.n > n0 && !rm.oom) {
        if (keep_add(g, fi, s, strdup(plB_buf_cstr(&rm)))) why = g->keep.p[g->keep.n - 1].why;
      }
      plB_buf_free(&rm);
    }
    uint64_t shape = 0;
    if (!why && !done && st->kind == PLS_INSN && have) {
      shape = shape_of(g, st, c.p, c.n);
      why = shape_kept(g, shape);
    }
    if (!why && !done && st->kind == PLS_INSN) {
      if (!have)
        why = "an operand or opcode the DSL has no call for (kept as written)";
      else {
        /* the indentation and the gap after the opcode, as written */
        uint32_t ind = lead;
        while (ind > 0 && (all[ind - 1] == ' ' || all[ind - 1] == '\t')) ind--;
        const char *op = plA_opcode_text(m->isa, st->opc);
        uint32_t on = plA_opcode_len(m->isa, st->opc);
        const char *gs = NULL;
        uint32_t gn = 0;
        /* locate the opcode in the text: after the guard */
        const char *p = tx;
        const char *end = tx + tn;
        if (st->guard) {
          const char *sp2 = memchr(p, ' ', (size_t)(end - p));
          p = sp2 ? sp2 + 1 : end;
        }
        int shape_ok = (size_t)(end - p) >= on && memcmp(p, op, on) == 0;
        if (shape_ok && st->nops) {
          gs = p + on;
          while (gs + gn < end && (gs[gn] == ' ' || gs[gn] == '\t')) gn++;
          if (!gn || gn >= sizeof g->gap) shape_ok = 0;
        }
        if (lead - ind >= sizeof g->indent) shape_ok = 0;
        /* the canonical text with this gap */
        plB_buf want;
        plB_buf_init(&want);
        if (shape_ok) {
          const char *cg = st->nops ? strstr(plB_buf_cstr(&canon), " \t") : NULL;
          if (cg) {
            plB_buf_add(&want, canon.p, (size_t)(cg - canon.p));
            plB_buf_add(&want, gs, gn);
            plB_buf_puts(&want, cg + 2);
          } else
            plB_buf_add(&want, canon.p, canon.n);
          plB_buf_putc(&want, ';');
        }
        if (shape_ok && tn >= want.n && memcmp(tx, want.p, want.n) == 0) {
          if (lead - ind != strlen(g->indent) || memcmp(all + ind, g->indent, lead - ind) != 0) {
            memcpy(g->indent, all + ind, lead - ind);
            g->indent[lead - ind] = 0;
            text_call(g, "indent", g->indent, lead - ind);
          }
          if (gn && (gn != strlen(g->gap) || memcmp(gs, g->gap, gn) != 0)) {
            memcpy(g->gap, gs, gn);
            g->gap[gn] = 0;
            text_call(g, "gap", g->gap, gn);
          }
          if (ind) text_call(g, "text", all, ind);
          block_open(g);
          where(g, s);
          MARK_B();
          it.kind = IT_INSN;
          put(g, "    ");
          put(g, plB_buf_cstr(&c));
          put(g, "\n");
          MARK_C();
          if (tn - want.n != 1 || tx[want.n] != '\n')
            text_call(g, "eol", tx + want.n, tn - (uint32_t)want.n);
          it.ntpl = UINT32_MAX; /* the template when a run is looked for (tpl_ok) */
          it.shape = shape;
          /* the first call of its shape: the check runs it */
          it.chk = (uint8_t)shape_new(g, shape);
          insn_aux(g, f, st, &it);
          done = 1;
        } else
          why = "written differently from the printer's layout (spacing or operand spelling)";
        plB_buf_free(&want);
      }
    }
    if (!done) {
      /* kept as written */
      block_open(g);
      where(g, s);
      MARK_B();
      it.kind = IT_KEPT;
      text_call(g, "text", all, sp.len);
      MARK_C();
      if (run_why && run_why != why && strcmp(run_why, why) != 0) {
        kev(g, run_why, run_sp.tok, run_n);
        run_why = NULL;
      }
      if (!run_why) {
        run_why = why;
        run_n = 0;
        run_sp = sp;
      }
      run_n++;
    } else if (run_why) {
      kev(g, run_why, run_sp.tok, run_n);
      run_why = NULL;
    }
    it.d = (uint32_t)g->ib.n;
    if (it.b == UINT32_MAX) it.b = it.a;
    if (it.c == UINT32_MAX) it.c = it.d;
    if (!plB_vec_push(g->items, it)) {
      g->ib.oom = 1;
      break;
    }
  }
#undef MARK_B
#undef MARK_C
  if (run_why) kev(g, run_why, run_sp.tok, run_n);
  free(bstack);
  free(blkof);
  g->p1 = 0;
  g->b = outb;
  g->line = outline;
  if (g->ib.oom) {
    plB_buf_free(&c);
    plB_buf_free(&canon);
    unbind(g, 0);
    return 2;
  }
  /* then the body, loops and runs folded: first the check script's (its structure and the first
  ** call of each shape, with what they must print), then the script's */
  if (!noloops) find_loops(g, f);
  plB_buf *mainb = g->b;
  uint32_t mainline = g->line;
  g->b = &g->cb;
  g->line = g->cline;
  g->ck = 1;
  mark_labels(g, f);
  ExpF ef = { fi, (uint32_t)g->exp.n, 0, g->expst.n, 0, cl0, 0 };
  uint32_t wn0 = g->where.n, hlines = 0;
  if (!wrote_head) { /* the header the DSL prints must be the file's */
    size_t h0 = g->exp.n;
    canon_head(m, f, &g->exp);
    for (size_t q = h0; q < g->exp.n; q++)
      if (g->exp.p[q] == '\n') {
        uint32_t z = UINT32_MAX, zz = 0;
        uint64_t zs = 0;
        plB_vec_push(g->expst, z);
        plB_vec_push(g->expfold, zz);
        plB_vec_push(g->expshape, zs);
        hlines++;
      }
  }
  g->lvl = 0;
  memset(g->lv, 0, sizeof g->lv);
  emit_range(g, f, 0, g->items.n);
  block_close(g);
  put(g, "  end,\n}\n");
  size_t cl_n = g->cb.n;
  if (lt1 > lt0 && !check_labels(g, f, &ef, cl_at)) {
    plB_buf_free(&c);
    plB_buf_free(&canon);
    unbind(g, 0);
    return 2;
  }
  cbody += g->cb.n - cl_n; /* the body moved past the labels' line */
  ef.n = (uint32_t)g->exp.n - ef.off;
  ef.ns = g->expst.n - ef.s0;
  ef.l1 = g->line;
  /* a function whose check holds no call of a new shape and expects nothing of its body runs as
  ** the first function of its skeleton does (the same header but for the names, the same body in
  ** the check script): the check runs that one, and of this one only its names (a file of
  ** thousands of small functions is one check of each kind, not one of each function) */
  int anychk = 0;
  for (uint32_t s = 0; s < g->items.n && !anychk; s++)
    anychk = g->items.p[s].kind == IT_INSN && g->items.p[s].chk;
  if (!anychk && ef.ns == hlines &&
      !shape_new(g, skeleton(g, f, wrote_head, g->cb.p + cbody, g->cb.n - cbody))) {
    g->cb.n = cb0;
    g->line = cl0;
    g->exp.n = ef.off;
    g->expst.n = g->expfold.n = g->expshape.n = ef.s0;
    g->where.n = wn0;
    put(g, "doc:check_names {");
    putstr(g, fname, (uint32_t)strlen(fname));
    for (uint32_t i = 0; i < f->params.n; i++) {
      const char *pn = plI_cstr(m, f->params.p[i].name);
      put(g, ", ");
      putstr(g, pn, (uint32_t)strlen(pn));
    }
    put(g, " }\n");
    ef.n = 0;
    ef.ns = 0;
    ef.l1 = g->line;
  }
  plB_vec_push(g->expf, ef);
  g->cline = g->line;
  g->ck = 0;
  g->b = mainb;
  g->line = mainline;
  g->lvl = 0;
  memset(g->lv, 0, sizeof g->lv);
  emit_range(g, f, 0, g->items.n);
  block_close(g);
  plB_buf_free(&c);
  plB_buf_free(&canon);
  put(g, "  end,\n}\n");
  /* the function's names go out of scope */
  unbind(g, 0);
  for (uint32_t i = 0; i < g->npname; i++)
    if (g->pname && g->pname[i]) {
      uint32_t id = plB_find(&g->ltaken, g->pname[i], strlen(g->pname[i]));
      if (id && id < g->taken.n && g->taken.p[id]) g->taken.p[id]--;
    }
  return 0;
}

/* the constants a piece puts in the function that writes it (an upper bound), 0: nothing written;
** whole: the function is kept whole (a doc:text per statement, counted by func_text) */
static uint32_t piece_consts(G *g, const plI_piece *pc, int *whole) {
  const plI_module *m = g->m;
  *whole = 0;
  if (pc->kind == PLI_PIECE_TEXT) return pc->text.len ? 1 : 0;
  if (pc->func >= m->funcs.n) return 0;
  const plI_func *f = &m->funcs.p[pc->func];
  if (g->fn[pc->func].text || !func_ok(m, f)) {
    *whole = 1;
    return 2;
  }
  return 8 + 2 * f->params.n;
}
/* at most this many in a group, and a file of at most GROUP_FLAT is not grouped */
enum { GROUP_FLAT = 32768, GROUP_MAX = 16384 };
/* room for cost more constants in the current group: a new group when it would pass GROUP_MAX
** (the lines around a group are in the script and in the check script alike) */
static void group_room(G *g, uint32_t cost) {
  if (!g->grouped || (g->gopen && g->ingroup + cost <= GROUP_MAX)) {
    g->ingroup += cost;
    return;
  }
  if (g->gopen) {
    put(g, "end)\n");
    plB_buf_puts(&g->cb, "end)\n");
    g->cline++;
  }
  put(g, "sugar.block(function()\n");
  plB_buf_puts(&g->cb, "sugar.block(function()\n");
  g->cline++;
  g->gopen = 1;
  g->ingroup = cost;
}

static int write_script(G *g, const char *path, const char *srcname, const char *name) {
  const plI_module *m = g->m;
  g->line = 1;
  g->where.n = 0;
  g->kev.n = 0;
  g->nstmts = 0;
  put(g, "-- ");
  put(g, srcname);
  put(g,
      " as an editable ptxlua script (ptxlua --from-ptx --sugar): `ptxlua THIS.lua --print-ptx`\n"
      "-- prints it back byte for byte. Each kernel body is DSL code (docs/dsl.md); sugar.text "
      "keeps\n"
      "-- comments, blank lines and statements the DSL cannot write as they were "
      "(docs/transpiler.md).\n");
  size_t pre0 = g->b->n;
  uint32_t preline = g->line;
  put(g, "local ptx = require \"ptxlua\"\nlocal sugar = require \"ptxlua.sugar\"\nlocal doc = "
         "sugar.module ");
  putstr(g, name, (uint32_t)strlen(name));
  put(g, "\n");
  const char *tg = plI_cstr(m, m->target);
  if (is_ident(tg, strlen(tg))) {
    put(g, "doc:target_is ");
    putstr(g, tg, (uint32_t)strlen(tg));
    put(g, "\n");
  }
  /* the check script: the same module, its functions' structure (no text between them) */
  g->cb.n = 0;
  g->exp.n = 0;
  g->expst.n = 0;
  g->expfold.n = 0;
  g->expshape.n = 0;
  g->expf.n = 0;
  g->nseen = 0;
  if (g->seen) memset(g->seen, 0, g->seencap * sizeof *g->seen);
  plB_buf_add(&g->cb, g->b->p + pre0, g->b->n - pre0);
  /* a function the DSL refuses is that function's error */
  plB_buf_puts(&g->cb, "sugar.check_mode()\n");
  g->cline = 2 + g->line - preline;
  /* Lua holds at most 65536 constants in one function, and each piece puts some in the main
  ** chunk (a text piece its string; a function its name, header, closing, parameter tables and
  ** body). A file of thousands of functions has its pieces in sugar.block(function() ... end)
  ** groups, in the script and in the check script alike; a smaller file is written flat */
  uint64_t total = 0;
  for (uint32_t i = 0; i < m->vpieces.n; i++) {
    int whole;
    total += piece_consts(g, &m->vpieces.p[i], &whole);
    if (whole) total += m->funcs.p[m->vpieces.p[i].func].vtext.n;
  }
  g->grouped = total > GROUP_FLAT;
  g->gopen = 0;
  g->ingroup = 0;
  for (uint32_t i = 0; i < m->vpieces.n; i++) {
    const plI_piece *pc = &m->vpieces.p[i];
    int whole;
    uint32_t cost = piece_consts(g, pc, &whole);
    if (!cost) continue;
    group_room(g, cost);
    if (pc->kind == PLI_PIECE_TEXT) {
      put(g, "doc:text ");
      putstr(g, SRC(g, pc->text), pc->text.len);
      put(g, "\n");
      continue;
    }
    int r = write_func(g, pc->func, path);
    if (r) return r;
  }
  if (g->gopen) {
    put(g, "end)\n");
    plB_buf_puts(&g->cb, "end)\n");
    g->cline++;
  }
  put(g, "doc:done()\n");
  plB_buf_puts(&g->cb, "doc:done()\n");
  return g->b->oom || g->cb.oom || g->exp.oom ? 2 : 0;
}

static void first_line(char *dst, size_t cap, const char *s) {
  snprintf(dst, cap, "%s", s);
  char *nl = strchr(dst, '\n');
  if (nl) *nl = 0;
}

/* the summary of what the last round kept as written, in one place: how many statements, then one
** line per reason, the most statements first, with the lines of its first runs */
typedef struct Rsn {
  const char *why;
  uint32_t n, runs, first;
  uint32_t lines[5];
} Rsn;
static int rsn_cmp(const void *a, const void *b) {
  const Rsn *x = a, *y = b;
  if (x->n != y->n) return x->n > y->n ? -1 : 1;
  return x->first < y->first ? -1 : x->first > y->first;
}
static void summary(G *g, const char *path, plB_buf *notes) {
  const plI_module *m = g->m;
  if (!g->kev.n) return;
  PLB_VEC(Rsn) rs = { 0 };
  /* reasons by their text (the same reason comes from several places) */
  uint32_t cap = 64;
  while (cap < 2 * g->kev.n) cap *= 2;
  uint32_t *slot = calloc(cap, sizeof *slot);
  if (!slot) return;
  const char *src = m->vsrc.p;
  uint32_t line = 1, at = 0, total = 0;
  for (uint32_t i = 0; i < g->kev.n; i++) {
    const Kev *e = &g->kev.p[i];
    if (e->off < at) {
      line = 1;
      at = 0;
    } /* events come in source order; never back, but safe */
    for (const char *p = src + at, *q = src + (e->off < m->vsrc.n ? e->off : m->vsrc.n);
         (p = memchr(p, '\n', (size_t)(q - p))) != NULL; p++)
      line++;
    at = e->off < m->vsrc.n ? e->off : (uint32_t)m->vsrc.n;
    uint32_t h = plB_hash(e->why, (uint32_t)strlen(e->why)) & (cap - 1);
    while (slot[h] && strcmp(rs.p[slot[h] - 1].why, e->why) != 0) h = (h + 1) & (cap - 1);
    if (!slot[h]) {
      Rsn r;
      memset(&r, 0, sizeof r);
      r.why = e->why;
      r.first = line;
      if (!plB_vec_push(rs, r)) break;
      slot[h] = rs.n;
    }
    Rsn *r = &rs.p[slot[h] - 1];
    if (r->runs < 5) r->lines[r->runs] = line;
    r->runs++;
    r->n += e->n;
    total += e->n;
  }
  free(slot);
  qsort(rs.p, rs.n, sizeof *rs.p, rsn_cmp);
  plB_buf_printf(notes, "%s: note: kept verbatim: %u of %u statements, for %u reason%s:\n", path,
                 total, g->nstmts, rs.n, rs.n == 1 ? "" : "s");
  uint32_t shown = rs.n < 12 ? rs.n : 12, rest = 0;
  for (uint32_t i = 0; i < rs.n; i++) {
    const Rsn *r = &rs.p[i];
    if (i >= shown) {
      rest += r->n;
      continue;
    }
    plB_buf_printf(notes, "%s:%u: note: kept verbatim: %u statement%s", path, r->first, r->n,
                   r->n == 1 ? "" : "s");
    if (r->runs > 1) {
      plB_buf_printf(notes, " in %u places (lines", r->runs);
      for (uint32_t k = 0; k < r->runs && k < 5; k++)
        plB_buf_printf(notes, "%s %u", k ? "," : "", r->lines[k]);
      plB_buf_puts(notes, r->runs > 5 ? ", ...)" : ")");
    }
    plB_buf_printf(notes, ": %s\n", r->why);
  }
  if (rs.n > shown)
    plB_buf_printf(notes, "%s: note: kept verbatim: %u more statements for %u more reasons\n", path,
                   rest, rs.n - shown);
  free(rs.p);
}

/* the last entry of G.where at or before check script line `line`, or NULL (they are in line
** order) */
static const Where *where_at(const G *g, uint32_t line) {
  uint32_t lo = 0, hi = g->where.n;
  while (lo < hi) {
    uint32_t mid = lo + (hi - lo) / 2;
    if (g->where.p[mid].line <= line)
      lo = mid + 1;
    else
      hi = mid;
  }
  return lo ? &g->where.p[lo - 1] : NULL;
}
/* the function (its G.expf index) whose check script lines hold `line`, or UINT32_MAX */
static uint32_t func_at(const G *g, uint32_t line) {
  uint32_t lo = 0, hi = g->expf.n;
  while (lo < hi) {
    uint32_t mid = lo + (hi - lo) / 2;
    if (g->expf.p[mid].l0 <= line)
      lo = mid + 1;
    else
      hi = mid;
  }
  return lo && line < g->expf.p[lo - 1].l1 ? lo - 1 : UINT32_MAX;
}

/* one failure of the check, in function ei of G.expf (UINT32_MAX: the script's main chunk):
** an error (e: CHUNK:LINE: error: ...) or the first line mline that traced differently (msg),
** and what the next round writes instead. 0: done; 2: out of memory; 3: no sugared form (the
** plain script instead). An error on no statement's line keeps the function whose lines hold it
** whole, and one on no function's lines gives up at once: a failure that is no statement's
** costs one round, not one per function */
static int on_fail(G *g, uint32_t ei, const char *e, uint32_t mline, const char *mmsg,
                   const char *chunk) {
  uint32_t fi = 0, si = 0;
  int part = -1;
  uint64_t shape = 0;
  char msg[420];
  if (e) {
    /* CHUNK:LINE: error: ... -> the statement written at that line */
    const char *at = strstr(e, chunk);
    long line = 0;
    if (at) line = strtol(at + strlen(chunk) + 1, NULL, 10);
    const char *msgp = strstr(e, "error: ");
    char first[300];
    first_line(first, sizeof first, msgp ? msgp + 7 : e);
    uint32_t in = line > 0 ? func_at(g, (uint32_t)line) : UINT32_MAX;
    /* a line outside the function that failed */
    if (ei != UINT32_MAX && in != ei) in = UINT32_MAX;
    const Where *w = line > 0 ? where_at(g, (uint32_t)line) : NULL;
    if (w && w->line == (uint32_t)line && in != UINT32_MAX && w->func == g->expf.p[in].fi) {
      /* a nested block's line: the block is kept as written next time */
      if (w->kind == W_SCOPE) {
        char whyb[420];
        snprintf(whyb, sizeof whyb, "a nested { } block the DSL refuses: %s", first);
        return keep_add(g, w->func, w->stmt, strdup(whyb)) ? 0 : 2;
      }
      if (w->kind != W_STMT) { /* a folded loop or run: its statements one by one next time */
        for (uint32_t q = 0; q < (w->kind == W_RUN ? w->n : 1); q++)
          if (!nofold_add(g, w->func, w->stmt + q)) return 2;
        return 0;
      }
      fi = w->func;
      si = w->stmt;
      shape = w->shape;
      part = 0;
    } else {
      /* not a statement's line: the function that failed (or whose lines hold it) is kept whole */
      if (ei != UINT32_MAX) in = ei;
      if (in == UINT32_MAX) return 3;
      fi = g->expf.p[in].fi;
      part = 3;
    }
    snprintf(msg, sizeof msg, "the DSL refuses it: %s", first);
  } else {
    /* the statement of the first line that differs: a fold's is written one at a time next round */
    const ExpF *ef = &g->expf.p[ei];
    snprintf(msg, sizeof msg, "%s", mmsg);
    fi = ef->fi;
    uint32_t j = mline < ef->ns ? mline : ef->ns ? ef->ns - 1 : 0;
    if (!ef->ns)
      part = 3;
    else {
      si = g->expst.p[ef->s0 + j];
      if (si == UINT32_MAX) { /* the header: kept as written next round */
        if (g->fn[fi].head) return 3;
        g->fn[fi].head = 1;
        return 0;
      }
      uint32_t fold = g->expfold.p[ef->s0 + j];
      if (fold) {
        for (uint32_t q = fold - 1; q <= si; q++)
          if (!nofold_add(g, fi, q)) return 2;
        return 0;
      }
      part = 0;
      shape = g->expshape.p[ef->s0 + j];
    }
  }
  if (part == 0 && shape) { /* every call of that shape is kept as written */
    if (shape_kept(g, shape))
      part = 3;
    else
      return kshape_add(g, shape, strdup(msg)) ? 0 : 2;
  }
  if (part == 0) {
    if (kept_any(g, fi, si)) part = 3;
    /* a label's branches follow it (write_func) */
    else
      return keep_add(g, fi, si, strdup(msg)) ? 0 : 2;
  }
  if (g->fn[fi].text) return 3;
  g->fn[fi].text = 1;
  g->fn[fi].why = strdup(msg);
  return 0;
}

int plP_to_sugar(const plI_module *m, const char *path, const char *name, const char *chunk,
                 plB_buf *out, plB_buf *notes) {
  G g;
  memset(&g, 0, sizeof g);
  g.m = m;
  g.fn = calloc(m->funcs.n + 1, sizeof *g.fn);
  g.nbind = m->strs.n + 1;
  g.rbind = calloc(g.nbind, sizeof *g.rbind);
  g.lbind = calloc(g.nbind, sizeof *g.lbind);
  g.lmark = calloc(g.nbind, sizeof *g.lmark);
  plB_strtab_init(&g.ltaken);
  if (!g.fn || !g.rbind || !g.lbind || !g.lmark) {
    free(g.fn);
    free(g.rbind);
    free(g.lbind);
    free(g.lmark);
    plB_strtab_free(&g.ltaken);
    return 2;
  }
  const char *base = strrchr(path, '/');
  base = base ? base + 1 : path;
  int rc = 0;
  plB_buf ptx, err;
  plB_buf_init(&ptx);
  plB_buf_init(&err);
  for (int round = 0;; round++) {
    out->n = 0;
    notes->n = 0;
    g.b = out;
    rc = write_script(&g, path, base, name);
    if (rc || !RUN) break;
    ptx.n = 0;
    err.n = 0;
    /* the check: the check script's calls (the first of each shape, in each function's structure)
    ** must trace as the file's statements print; what does not is kept as written next round.
    ** Every function's first failure is taken in the same round */
    int bad = RUN(chunk, g.cb.p ? g.cb.p : "", g.cb.n, &ptx, &err);
    uint32_t changed = 0;
    /* the script did not run (its main chunk failed): one error, maybe no function's */
    if (bad) {
      int r = on_fail(&g, UINT32_MAX, plB_buf_cstr(&err), 0, NULL, chunk);
      if (r) {
        rc = r;
        break;
      }
      changed = 1;
    } else { /* per function: its traced lines, or "\2" and its error, up to "\1\n" */
      size_t pos = 0;
      for (uint32_t i = 0; i < g.expf.n; i++) {
        const ExpF *ef = &g.expf.p[i];
        const char *t = ptx.p ? ptx.p + pos : "", *end = ptx.p ? ptx.p + ptx.n : "";
        const char *sep = t < end ? memchr(t, '\1', (size_t)(end - t)) : NULL;
        size_t tn = sep ? (size_t)(sep - t) : (size_t)(end - t);
        pos += tn + 2;
        if (tn == ef->n && (!tn || memcmp(t, g.exp.p + ef->off, tn) == 0)) continue;
        int r;
        if (tn && t[0] == '\2') { /* the DSL refused something of this function */
          plB_buf e1;
          plB_buf_init(&e1);
          plB_buf_add(&e1, t + 1, tn - 1);
          r = on_fail(&g, i, plB_buf_cstr(&e1), 0, NULL, chunk);
          plB_buf_free(&e1);
        } else {
          char msg[420];
          uint32_t mline = 0;
          const char *e = g.exp.p + ef->off; /* the first line that differs */
          size_t k = 0;
          while (k < tn && k < ef->n && t[k] == e[k]) {
            if (t[k] == '\n') mline++;
            k++;
          }
          snprintf(msg, sizeof msg, "the DSL prints it as '");
          size_t ls = k;
          while (ls > 0 && t[ls - 1] != '\n') ls--;
          size_t ml = strlen(msg);
          for (size_t q = ls; q < tn && t[q] != '\n' && ml + 3 < sizeof msg; q++)
            msg[ml++] = t[q] == '\t' ? ' ' : t[q];
          msg[ml++] = '\'';
          msg[ml] = 0;
          if (tn <= ls) snprintf(msg, sizeof msg, "the DSL prints nothing for it");
          r = on_fail(&g, i, NULL, mline, msg, chunk);
        }
        if (r) {
          rc = r;
          break;
        }
        changed++;
      }
      if (rc) break;
    }
    /* every call traced as the file has it: the script prints the file back */
    if (!changed) break;
    if (round >= 200) {
      rc = 3;
      break;
    }
  }
  if (!rc) summary(&g, path, notes);
  if (rc == 3) {
    /* no sugared form came back identical: the plain script, said so */
    out->n = 0;
    notes->n = 0;
    plB_buf_printf(
        notes,
        "%s: note: kept verbatim: the whole file (the sugared script did not print it back)\n",
        path);
    rc = plP_to_lua(m, base, name, out) ? 2 : 0;
  }
  for (uint32_t i = 0; i < g.keep.n; i++) free(g.keep.p[i].why);
  free(g.keep.p);
  for (uint32_t i = 0; i < m->funcs.n; i++) free(g.fn[i].why);
  free(g.fn);
  free(g.where.p);
  free(g.items.p);
  free(g.vals.p);
  free(g.nofold.p);
  plB_buf_free(&g.ib);
  plB_buf_free(&g.tb);
  plB_buf_free(&g.xb);
  plB_buf_free(&g.opcb);
  free(g.opcl.p);
  free(g.sigset);
  plB_buf_free(&g.scratch);
  free(g.rbind);
  free(g.lbind);
  free(g.lmark);
  free(g.binds.p);
  free(g.taken.p);
  plB_buf_free(&g.lnames);
  plB_strtab_free(&g.ltaken);
  free(g.blks.p);
  free(g.blab.p);
  free(g.kev.p);
  free(g.kwhy);
  free(g.nof);
  free(g.declb);
  plB_buf_free(&g.cb);
  plB_buf_free(&g.exp);
  free(g.expst.p);
  free(g.expfold.p);
  free(g.expshape.p);
  free(g.expf.p);
  free(g.seen);
  for (uint32_t i = 0; i < g.kshape.n; i++) free(g.kshape.p[i].why);
  free(g.kshape.p);
  free(g.kset);
  if (g.pname) {
    for (uint32_t i = 0; i < g.npname; i++) free(g.pname[i]);
    free(g.pname);
  }
  plB_buf_free(&ptx);
  plB_buf_free(&err);
  return rc;
}

/* ---- a sugared body laid out (the script side: lua/ptxlua/sugar.lua) ------------------------- */
/* The DSL traced a sugared body into m: its instructions, and between them the layout markers
** sugar.text / eol / indent / gap / regs / scope recorded. The text is the file's layout again:
** each instruction in the current indentation and gap, each marker's text where it was recorded,
** the header and closing as given, and a map from each piece to the script line that wrote it. */

/* n newlines in [s, s+len) */
static uint32_t count_nl(const char *s, size_t len) {
  uint32_t n = 0;
  if (!s || !len) return 0;
  for (const char *p = s, *e = s + len; (p = memchr(p, '\n', (size_t)(e - p))) != NULL; p++) n++;
  return n;
}

/* line: of out's end */
typedef struct LO {
  plB_buf *out;
  plP_map *map;
  uint32_t line;
  size_t mark;
} LO;

/* a piece starts here: the map names the script line that wrote it */
static void lo_at(LO *o, uint32_t sline, uint32_t sfile) {
  if (o->out->p) o->line += count_nl(o->out->p + o->mark, o->out->n - o->mark);
  o->mark = o->out->n;
  plP_mapent e = { o->line, (uint32_t)o->out->n, sline, sfile };
  if (!plB_vec_push(*o->map, e)) o->out->oom = 1;
}
/* a text line of the DSL's printer ("\t..."), in the layout's indentation */
static void lo_indented(LO *o, const char *ind, const char *s, size_t n) {
  plB_buf_puts(o->out, ind);
  plB_buf_add(o->out, s, n);
  plB_buf_putc(o->out, '\n');
}

int plP_sugar_layout(const plI_module *m, uint32_t fi, const char *head, size_t nhead,
                     const char *tail, size_t ntail, uint32_t docline, plB_buf *out, plP_map *map) {
  if (fi >= m->funcs.n) return 1;
  const plI_func *f = &m->funcs.p[fi];
  LO o = { out, map, 1, out->n };
  lo_at(&o, docline, 0);
  if (head)
    plB_buf_add(out, head, nhead);
  else
    canon_head(m, f, out);
  /* declarations the DSL made that the script does not lay out (an edit's new registers) */
  size_t u0 = out->n;
  for (uint32_t i = 0; i < f->regdecls.n; i++)
    if (!f->regdecls.p[i].scope && !f->regdecls.p[i].laid)
      plI_print_decl(m, &f->regdecls.p[i], out);
  for (uint32_t i = 0; i < f->vars.n; i++) plI_print_var(m, &f->vars.p[i], out);
  if (out->n > u0) { /* mapped from their own start */
    size_t keep = out->n;
    out->n = u0;
    lo_at(&o, docline, 0);
    out->n = keep;
  }
  /* the nested blocks' declarations the script does not lay out, by block */
  uint32_t nsc = 0;
  for (uint32_t i = 0; i < f->regdecls.n; i++)
    nsc += f->regdecls.p[i].scope && !f->regdecls.p[i].laid;
  uint32_t *sc = nsc ? malloc(nsc * sizeof *sc) : NULL, si_ = 0;
  if (nsc && !sc) return 2;
  for (uint32_t i = 0, k = 0; i < f->regdecls.n; i++) /* in block order already: see below */
    if (f->regdecls.p[i].scope && !f->regdecls.p[i].laid) sc[k++] = i;
  char ind[64] = "\t", gap[64] = " \t";
  const char *open = NULL;
  uint32_t nopen = 0;
  size_t close_at = SIZE_MAX;
  for (uint32_t s = 0; s < f->stmts.n && !out->oom; s++) {
    const plI_stmt *st = &f->stmts.p[s];
    const char *tx = st->kind == PLS_INSN ? "" : plI_cstr(m, st->opc);
    uint32_t tn = st->kind == PLS_INSN ? 0 : m->strs.len[st->opc];
    if (st->kind == PLS_RAW && st->flags) {
      switch (st->flags) {
      case PLP_MK_TEXT:
      case PLP_MK_DECL:
        lo_at(&o, st->line, 0);
        plB_buf_add(out, tx, tn);
        break;
      case PLP_MK_EOL: /* the rest of the previous line: it replaces that line's newline */
        if (out->n > o.mark && out->p[out->n - 1] == '\n') out->n--; /* the piece's own newline */
        plB_buf_add(out, tx, tn);
        break;
      case PLP_MK_INDENT:
      case PLP_MK_GAP: {
        char *d = st->flags == PLP_MK_INDENT ? ind : gap;
        size_t k = tn < 63 ? tn : 63;
        memcpy(d, tx, k);
        d[k] = 0;
        break;
      }
      case PLP_MK_OPEN:
        open = tx;
        nopen = tn;
        break;
      case PLP_MK_CLOSE: /* the block just closed, as written */
        if (close_at != SIZE_MAX && close_at <= out->n) {
          out->n = close_at;
          if (o.mark > out->n) o.mark = out->n;
        }
        plB_buf_add(out, tx, tn);
        close_at = SIZE_MAX;
        break;
      default: break;
      }
      continue;
    }
    /* a ptx.scope block */
    if (st->kind == PLS_RAW && tn == 1 && (tx[0] == '{' || tx[0] == '}')) {
      lo_at(&o, st->line, 0);
      if (tx[0] == '}') {
        close_at = out->n;
        lo_indented(&o, ind, "}", 1);
        continue;
      }
      if (open)
        plB_buf_add(out, open, nopen);
      else
        lo_indented(&o, ind, "{", 1);
      open = NULL;
      /* regdecls are made in statement order, so a block's come after every earlier block's */
      while (si_ < nsc && f->regdecls.p[sc[si_]].scope <= s + 1) {
        if (f->regdecls.p[sc[si_]].scope == s + 1) plI_print_decl(m, &f->regdecls.p[sc[si_]], out);
        si_++;
      }
      continue;
    }
    lo_at(&o, st->line, st->file);
    if (st->kind == PLS_RAW) {
      lo_indented(&o, ind, tx, tn);
      continue;
    }
    if (st->kind == PLS_LABEL) {
      plB_buf_add(out, tx, tn);
      plB_buf_puts(out, ":\n");
      continue;
    }
    plB_buf_puts(out, ind);
    plI_print_insn(m, st, gap, strlen(gap), out);
    plB_buf_putc(out, '\n');
  }
  free(sc);
  lo_at(&o, docline, 0);
  plB_buf_add(out, tail, ntail);
  if (out->p) o.line += count_nl(out->p + o.mark, out->n - o.mark);
  return out->oom ? 2 : 0;
}

/* the check's side of a traced sugared function: its header as the DSL prints it (with_head), then
** each instruction and label as the printer writes it, one a line */
int plP_sugar_canon(const plI_module *m, uint32_t fi, int with_head, plB_buf *out) {
  if (fi >= m->funcs.n) return 1;
  const plI_func *f = &m->funcs.p[fi];
  if (with_head) canon_head(m, f, out);
  for (uint32_t s = 0; s < f->stmts.n; s++) {
    const plI_stmt *st = &f->stmts.p[s];
    if (st->kind == PLS_INSN)
      plI_print_insn(m, st, " \t", 2, out);
    else if (st->kind == PLS_LABEL) {
      plB_buf_puts(out, plI_cstr(m, st->opc));
      plB_buf_putc(out, ':');
    } else
      continue;
    plB_buf_putc(out, '\n');
  }
  return out->oom ? 2 : 0;
}
