/* print.c -- IR -> PTX text. One pass, no allocation per instruction beyond the output buffer;
** streaming through a sink so a million-instruction kernel never sits in memory twice. */
#include "print.h"
#include "isa.h"
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

typedef struct W {
  plB_buf b;
  plI_print_sink sink;
  void *ud;
  int err;
} W;

/* register names ("%f12"), formatted once per print: offsets into one buffer, which ends in
** RN_FAST spare bytes so that a short name can be copied as one fixed-size move */
typedef struct RN {
  plB_buf names;
  uint32_t *off;
  uint32_t maxlen;
} RN; /* maxlen >= RN_FAST */
#define RN_FAST 16
#if defined(__GNUC__)
/* initial-exec: a plain load, not a __tls_get_addr call per register name, in the shared object
** too */
static _Thread_local const RN *cur_rn __attribute__((tls_model("initial-exec")));
#else
static _Thread_local const RN *cur_rn;
#endif /* the names of the module being printed (NULL: format each time) */

static void flush(W *w, int force) {
  if (!w->sink || w->err) return;
  if (!force && w->b.n < (1u << 16)) return;
  if (w->b.n && !w->sink(w->ud, w->b.p, w->b.n)) w->err = 1;
  w->b.n = 0;
}

static inline void puts_(plB_buf *b, const char *s, size_t n) {
  if (b->n + n + 1 <= b->cap) {
    memcpy(b->p + b->n, s, n);
    b->n += n;
  } else
    plB_buf_add(b, s, n);
}
#define PUTL(b, lit) puts_(b, lit, sizeof(lit) - 1)
static inline void putc_(plB_buf *b, char c) {
  if (b->n + 2 <= b->cap)
    b->p[b->n++] = c;
  else
    plB_buf_putc(b, c);
}

static void put_u64(plB_buf *b, uint64_t v) {
  char tmp[24];
  int i = 24;
  do {
    tmp[--i] = (char)('0' + v % 10);
    v /= 10;
  } while (v);
  puts_(b, tmp + i, (size_t)(24 - i));
}
static void put_i64(plB_buf *b, int64_t v) {
  if (v < 0) {
    putc_(b, '-');
    put_u64(b, (uint64_t)0 - (uint64_t)v);
  } else
    put_u64(b, (uint64_t)v);
}
static void put_str(plB_buf *b, const plI_module *m, uint32_t id) {
  if (id && id < m->strs.n) puts_(b, m->strs.str[id], m->strs.len[id]);
}
static inline void put_reg(plB_buf *b, const plI_module *m, uint32_t id) {
  if (id == 0 || id > m->regs.n) {
    PUTL(b, "%<bad>");
    return;
  }
  const RN *rn = cur_rn;
  if (rn && rn->off) {
    uint32_t o = rn->off[id - 1], n = rn->off[id] - o;
    /* short names: one fixed-size move (the names end in padding) */
    if (n <= RN_FAST && b->n + RN_FAST + 1 <= b->cap) {
      memcpy(b->p + b->n, rn->names.p + o, RN_FAST);
      b->n += n;
    } else
      puts_(b, rn->names.p + o, n);
    return;
  }
  const plI_reg *r = &m->regs.p[id - 1];
  if (!r->bare) putc_(b, '%');
  put_str(b, m, r->name);
  if (r->index >= 0) put_u64(b, (uint64_t)r->index);
}
static void put_hex(plB_buf *b, uint64_t v, int digits) {
  static const char hx[] = "0123456789ABCDEF";
  char tmp[16];
  for (int i = digits - 1; i >= 0; i--) {
    tmp[i] = hx[v & 15];
    v >>= 4;
  }
  puts_(b, tmp, (size_t)digits);
}

/* elements of vectors and pairs: within the operand pool, and never nested deeper than a
** vector of pairs -- a malformed IR prints <?> instead of reading past the pool or looping */
static int elems_ok(const plI_module *m, const plI_opnd *o, uint32_t n, int depth) {
  return depth < 2 && o->id <= m->opnds.n && n <= m->opnds.n - o->id;
}

static void operand(const plI_module *m, const plI_opnd *o, plB_buf *b, int depth) {
  if (o->flags & PLOF_NEG && o->kind != PLO_ADDR) putc_(b, '!');
  switch (o->kind) {
  case PLO_REG: put_reg(b, m, o->id); break;
  case PLO_IMM:
    /* as few digits as the value needs, at least 4: 0x3C00, 0xFFFF0000 */
    if (o->flags & PLOF_HEX) {
      int digits = 4;
      while (digits < 16 && (o->v >> (4 * digits)) != 0) digits++;
      PUTL(b, "0x");
      put_hex(b, o->v, digits);
    } else if (o->flags & PLOF_UNSIGNED)
      put_u64(b, o->v);
    else
      put_i64(b, (int64_t)o->v);
    break;
  case PLO_F32:
    PUTL(b, "0f");
    put_hex(b, o->v, 8);
    break;
  case PLO_F64:
    PUTL(b, "0d");
    put_hex(b, o->v, 16);
    break;
  case PLO_SYM:
  case PLO_LABEL:
  case PLO_RAW: put_str(b, m, o->id); break;
  case PLO_SREG:
    putc_(b, '%');
    put_str(b, m, o->id);
    break;
  case PLO_SINK: putc_(b, '_'); break;
  case PLO_ADDR:
    putc_(b, '[');
    if (o->flags & PLOF_BASE_REG)
      put_reg(b, m, o->id);
    else if (o->flags & PLOF_BASE_SYM)
      put_str(b, m, o->id);
    if (o->flags & (PLOF_BASE_REG | PLOF_BASE_SYM)) {
      if (o->v) {
        putc_(b, '+');
        put_i64(b, (int64_t)o->v);
      }
    } else
      put_i64(b, (int64_t)o->v);
    putc_(b, ']');
    break;
  case PLO_VEC:
    if (o->flags & PLOF_REGS) { /* a register vector: ids in m->vregs */
      if (depth >= 2 || !plI_elems_ok(m, o, o->n)) {
        PUTL(b, "<?>");
        break;
      }
      const uint32_t *id = m->vregs.p + o->id;
      const RN *rn = cur_rn;
      size_t room = (size_t)o->n * (rn ? rn->maxlen + 2 : 0) + 2; /* each name fits its slot */
      if (rn && rn->off &&
          (b->n + room + 1 <= b->cap || (plB_buf_reserve(b, room + 1) && !b->oom))) {
        /* the names formatted once (run), copied RN_FAST bytes at a time: one move a register */
        char *d = b->p + b->n;
        *d++ = o->flags & PLOF_PAREN ? '(' : '{';
        uint32_t nregs = m->regs.n;
        for (uint16_t i = 0; i < o->n; i++) {
          if (i) {
            d[0] = ',';
            d[1] = ' ';
            d += 2;
          }
          uint32_t r = id[i];
          if (r == 0 || r > nregs) {
            b->n = (size_t)(d - b->p);
            PUTL(b, "%<bad>");
            d = b->p + b->n;
            continue;
          }
          uint32_t off = rn->off[r - 1], len = rn->off[r] - off;
          if (len <= RN_FAST)
            memcpy(d, rn->names.p + off, RN_FAST);
          else
            memcpy(d, rn->names.p + off, len);
          d += len;
        }
        *d++ = o->flags & PLOF_PAREN ? ')' : '}';
        b->n = (size_t)(d - b->p);
        break;
      }
      putc_(b, o->flags & PLOF_PAREN ? '(' : '{');
      for (uint16_t i = 0; i < o->n; i++) {
        if (i) PUTL(b, ", ");
        put_reg(b, m, id[i]);
      }
      putc_(b, o->flags & PLOF_PAREN ? ')' : '}');
      break;
    }
    if (!elems_ok(m, o, o->n, depth)) {
      PUTL(b, "<?>");
      break;
    }
    putc_(b, o->flags & PLOF_PAREN ? '(' : '{');
    for (uint16_t i = 0; i < o->n; i++) {
      if (i) PUTL(b, ", ");
      operand(m, &m->opnds.p[o->id + i], b, depth + 1);
    }
    putc_(b, o->flags & PLOF_PAREN ? ')' : '}');
    break;
  case PLO_TADDR: /* [tmap, {c0, c1}] */
    if (!elems_ok(m, o, (uint32_t)o->n + 1, depth)) {
      PUTL(b, "<?>");
      break;
    }
    putc_(b, '[');
    operand(m, &m->opnds.p[o->id], b, depth + 1);
    PUTL(b, ", {");
    for (uint16_t i = 0; i < o->n; i++) {
      if (i) PUTL(b, ", ");
      operand(m, &m->opnds.p[o->id + 1 + i], b, depth + 1);
    }
    PUTL(b, "}]");
    break;
  case PLO_PAIR:
    if (!elems_ok(m, o, 2, depth)) {
      PUTL(b, "<?>");
      break;
    }
    operand(m, &m->opnds.p[o->id], b, depth + 1);
    putc_(b, '|');
    operand(m, &m->opnds.p[o->id + 1], b, depth + 1);
    break;
  default: PUTL(b, "<?>");
  }
}

void plI_print_operand(const plI_module *m, const plI_opnd *o, plB_buf *b) {
  operand(m, o, b, 0);
}

void plI_print_insn(const plI_module *m, const plI_stmt *s, const char *gap, size_t ngap,
                    plB_buf *b) {
  if (s->guard) {
    putc_(b, '@');
    if (s->flags & PLOF_NEG) putc_(b, '!');
    put_reg(b, m, s->guard - 1);
    putc_(b, ' ');
  }
  if (m->isa)
    puts_(b, plA_opcode_text(m->isa, s->opc), plA_opcode_len(m->isa, s->opc));
  else
    putc_(b, '?');
  for (uint16_t k = 0; k < s->nops; k++) {
    if (k)
      PUTL(b, ", ");
    else
      puts_(b, gap, ngap);
    if (s->ops < m->opnds.n && k < m->opnds.n - s->ops)
      operand(m, &m->opnds.p[s->ops + k], b, 0);
    else
      PUTL(b, "<?>");
  }
  putc_(b, ';');
}

static const char *space_name(int s) {
  switch (s) {
  case PLV_GLOBAL: return ".global";
  case PLV_SHARED: return ".shared";
  case PLV_CONST: return ".const";
  case PLV_LOCAL: return ".local";
  default: return ".param";
  }
}
static const char *linkage_name(int k) {
  switch (k) {
  case PLK_VISIBLE: return ".visible ";
  case PLK_EXTERN: return ".extern ";
  case PLK_WEAK: return ".weak ";
  case PLK_COMMON: return ".common ";
  default: return "";
  }
}

static void put_var(plB_buf *b, const plI_module *m, const plI_var *v, int param) {
  if (!param) {
    plB_buf_puts(b, linkage_name(v->linkage));
    plB_buf_puts(b, space_name(v->space));
    putc_(b, ' ');
  } else
    PUTL(b, ".param ");
  if (v->align) {
    PUTL(b, ".align ");
    put_u64(b, v->align);
    putc_(b, ' ');
  }
  putc_(b, '.');
  plB_buf_puts(b, plB_type_info[v->type].name);
  putc_(b, ' ');
  put_str(b, m, v->name);
  if (v->count == UINT64_MAX)
    PUTL(b, "[]");
  else if (v->count) {
    putc_(b, '[');
    put_u64(b, v->count);
    putc_(b, ']');
  }
  if (v->init) {
    PUTL(b, " = ");
    put_str(b, m, v->init);
  }
}

void plI_print_var(const plI_module *m, const plI_var *v, plB_buf *b) {
  putc_(b, '\t');
  put_var(b, m, v, 0);
  PUTL(b, ";\n");
}

static void put_dims(plB_buf *b, const char *name, const uint32_t d[3]) {
  if (!d[0]) return;
  plB_buf_puts(b, name);
  putc_(b, ' ');
  put_u64(b, d[0]);
  PUTL(b, ", ");
  put_u64(b, d[1] ? d[1] : 1);
  PUTL(b, ", ");
  put_u64(b, d[2] ? d[2] : 1);
  putc_(b, '\n');
}

static void put_decl(plB_buf *b, const plI_module *m, const plI_regdecl *d) {
  PUTL(b, "\t.reg .");
  plB_buf_puts(b, plB_type_info[d->type].name);
  if (d->bare)
    PUTL(b, " \t");
  else
    PUTL(b, " \t%");
  put_str(b, m, d->name);
  if (d->count) {
    putc_(b, '<');
    put_u64(b, d->count);
    putc_(b, '>');
  }
  PUTL(b, ";\n");
}
void plI_print_decl(const plI_module *m, const plI_regdecl *d, plB_buf *b) {
  put_decl(b, m, d);
}

/* nested blocks' declarations by their block, then in the order they were made (qsort is not
** stable: the index breaks ties) */
static _Thread_local const plI_regdecl *cur_decls;
static int by_scope(const void *x, const void *y) {
  uint32_t a = *(const uint32_t *)x, c = *(const uint32_t *)y;
  uint32_t sa = cur_decls[a].scope, sc = cur_decls[c].scope;
  return sa != sc ? (sa < sc ? -1 : 1) : a < c ? -1 : a > c;
}

/* file ids for .loc: in order of first appearance */
typedef struct {
  uint32_t *map;
  uint32_t n;
  uint32_t next;
} fileids;

static void print_func(W *w, const plI_module *m, const plI_func *f, const plI_print_opts *o,
                       fileids *fid) {
  plB_buf *b = &w->b;
  if (f->kind == PLF_ENTRY && f->linkage == PLK_VISIBLE && !f->declared_only) {
    PUTL(b, "\t// .globl\t");
    put_str(b, m, f->name);
    PUTL(b, "\n");
  }
  plB_buf_puts(b, linkage_name(f->linkage));
  plB_buf_puts(b, f->kind == PLF_ENTRY ? ".entry " : ".func ");
  if (f->kind == PLF_FUNC && f->rets.n) {
    PUTL(b, "(");
    for (uint32_t i = 0; i < f->rets.n; i++) {
      if (i) PUTL(b, ", ");
      put_var(b, m, &f->rets.p[i], 1);
    }
    PUTL(b, ") ");
  }
  put_str(b, m, f->name);
  if (f->params.n || f->kind == PLF_ENTRY) {
    PUTL(b, "(");
    for (uint32_t i = 0; i < f->params.n; i++) {
      plB_buf_puts(b, i ? ",\n\t" : "\n\t");
      put_var(b, m, &f->params.p[i], 1);
    }
    plB_buf_puts(b, f->params.n ? "\n)" : ")");
  }
  if (f->noreturn) PUTL(b, " .noreturn");
  PUTL(b, "\n");
  put_dims(b, ".maxntid", f->maxntid);
  put_dims(b, ".reqntid", f->reqntid);
  if (f->minnctapersm) {
    PUTL(b, ".minnctapersm ");
    put_u64(b, f->minnctapersm);
    PUTL(b, "\n");
  }
  if (f->maxnreg) {
    PUTL(b, ".maxnreg ");
    put_u64(b, f->maxnreg);
    PUTL(b, "\n");
  }
  if (f->explicitcluster) PUTL(b, ".explicitcluster\n");
  put_dims(b, ".reqnctapercluster", f->reqnctapercluster);
  if (f->maxclusterrank) {
    PUTL(b, ".maxclusterrank ");
    put_u64(b, f->maxclusterrank);
    PUTL(b, "\n");
  }
  if (f->declared_only) {
    PUTL(b, ";\n\n");
    return;
  }
  PUTL(b, "{\n");
  uint32_t nscoped = 0;
  for (uint32_t i = 0; i < f->regdecls.n; i++) {
    const plI_regdecl *d = &f->regdecls.p[i];
    if (d->scope) {
      nscoped++;
      continue;
    } /* a nested block's: printed at the top of that block */
    put_decl(b, m, d);
  }
  for (uint32_t i = 0; i < f->vars.n; i++) {
    putc_(b, '\t');
    put_var(b, m, &f->vars.p[i], 0);
    PUTL(b, ";\n");
  }
  if (f->regdecls.n > nscoped || f->vars.n) PUTL(b, "\n");
  /* the nested blocks' declarations, in the order of their blocks (then of declaration) */
  uint32_t *order = nscoped ? malloc(nscoped * sizeof *order) : NULL, oi = 0;
  if (order) {
    uint32_t k = 0;
    for (uint32_t i = 0; i < f->regdecls.n; i++)
      if (f->regdecls.p[i].scope) order[k++] = i;
    cur_decls = f->regdecls.p;
    qsort(order, nscoped, sizeof *order, by_scope);
  } else if (nscoped) {
    b->oom = 1;
    nscoped = 0;
  } /* reported as out of memory by the caller */
  uint32_t lastfile = 0, lastline = 0;
  for (uint32_t si = 0; si < f->stmts.n; si++) {
    const plI_stmt *s = &f->stmts.p[si];
    if (o->anchors == PLI_ANCHOR_LOC && s->kind == PLS_INSN && s->file &&
        (s->file != lastfile || s->line != lastline)) {
      PUTL(b, "\t.loc\t");
      put_u64(b, s->file < fid->n ? fid->map[s->file] : 0);
      putc_(b, ' ');
      put_u64(b, s->line);
      PUTL(b, " 0\n");
      lastfile = s->file;
      lastline = s->line;
    }
    switch (s->kind) {
    case PLS_LABEL:
      put_str(b, m, s->opc);
      PUTL(b, ":\n");
      break;
    case PLS_RAW:
      putc_(b, '\t');
      put_str(b, m, s->opc);
      PUTL(b, "\n");
      /* a block's `{`: its declarations */
      while (oi < nscoped && f->regdecls.p[order[oi]].scope <= si + 1) {
        if (f->regdecls.p[order[oi]].scope == si + 1) put_decl(b, m, &f->regdecls.p[order[oi]]);
        oi++;
      }
      break;
    default:
      putc_(b, '\t');
      if (s->guard) {
        putc_(b, '@');
        if (s->flags & PLOF_NEG) putc_(b, '!');
        put_reg(b, m, s->guard - 1);
        putc_(b, ' ');
      }
      if (m->isa)
        puts_(b, plA_opcode_text(m->isa, s->opc), plA_opcode_len(m->isa, s->opc));
      else
        putc_(b, '?');
      for (uint16_t k = 0; k < s->nops; k++) {
        if (k)
          PUTL(b, ", ");
        else
          PUTL(b, " \t");
        if (s->ops < m->opnds.n && k < m->opnds.n - s->ops)
          operand(m, &m->opnds.p[s->ops + k], b, 0);
        else
          PUTL(b, "<?>");
      }
      putc_(b, ';');
      if (o->anchors == PLI_ANCHOR_COMMENT && s->file) {
        PUTL(b, "\t// ");
        put_str(b, m, s->file);
        putc_(b, ':');
        put_u64(b, s->line);
      }
      putc_(b, '\n');
    }
    flush(w, 0);
  }
  free(order);
  PUTL(b, "\n}\n");
}

static int run2(const plI_module *m, const plI_print_opts *o, W *w);

static int run(const plI_module *m, const plI_print_opts *o, W *w) {
  RN rn;
  plB_buf_init(&rn.names);
  rn.off = malloc(((size_t)m->regs.n + 1) * sizeof *rn.off);
  if (rn.off) {
    const RN *saved = cur_rn;
    cur_rn = NULL;
    rn.maxlen = RN_FAST;
    for (uint32_t i = 0; i < m->regs.n; i++) {
      rn.off[i] = (uint32_t)rn.names.n;
      put_reg(&rn.names, m, i + 1);
      if (rn.names.n - rn.off[i] > rn.maxlen) rn.maxlen = (uint32_t)(rn.names.n - rn.off[i]);
    }
    rn.off[m->regs.n] = (uint32_t)rn.names.n;
    static const char pad[RN_FAST];
    plB_buf_add(&rn.names, pad, RN_FAST);
    if (rn.names.oom) {
      free(rn.off);
      rn.off = NULL;
    }
    cur_rn = &rn;
    int r = run2(m, o, w);
    cur_rn = saved;
    free(rn.off);
    plB_buf_free(&rn.names);
    return r;
  }
  return run2(m, o, w);
}

/* a parsed module: its text as read, piece by piece; a statement without a span (added after
** parsing) prints in the canonical layout. Anchors and headers do not apply: the text is kept. */
static void put_span(W *w, const plI_module *m, plI_span sp) {
  if ((size_t)sp.off + sp.len <= m->vsrc.n) puts_(&w->b, m->vsrc.p + sp.off, sp.len);
  flush(w, 0);
}
static int run_verbatim(const plI_module *m, const plI_print_opts *o, W *w) {
  plI_print_opts none = { PLI_ANCHOR_NONE, NULL, -1 };
  for (uint32_t i = 0; i < m->vpieces.n; i++) {
    const plI_piece *pc = &m->vpieces.p[i];
    if (pc->kind == PLI_PIECE_TEXT) {
      put_span(w, m, pc->text);
      continue;
    }
    if (pc->func >= m->funcs.n) continue;
    const plI_func *f = &m->funcs.p[pc->func];
    put_span(w, m, f->vhead);
    for (uint32_t si = 0; si < f->stmts.n; si++) {
      if (si < f->vtext.n && f->vtext.p[si].len) {
        put_span(w, m, f->vtext.p[si]);
        continue;
      }
      plI_func one = *f; /* a statement of its own: printed as print_func prints statements */
      one.stmts.p = f->stmts.p + si;
      one.stmts.n = 1;
      size_t mark = w->b.n;
      fileids fid = { NULL, 0, 1 };
      one.regdecls.n = 0;
      one.vars.n = 0;
      one.declared_only = 0;
      one.kind = PLF_FUNC;
      one.linkage = PLK_NONE;
      one.params.n = 0;
      one.rets.n = 0;
      one.noreturn = 0;
      memset(one.maxntid, 0, sizeof one.maxntid);
      memset(one.reqntid, 0, sizeof one.reqntid);
      memset(one.reqnctapercluster, 0, sizeof one.reqnctapercluster);
      one.minnctapersm = one.maxnreg = one.maxclusterrank = 0;
      one.explicitcluster = 0;
      flush(w, 1);
      mark = w->b.n;
      print_func(w, m, &one, &none, &fid);
      /* keep only the statement line: drop ".func NAME\n{\n" before it and "\n}\n" after it */
      if (w->b.n < mark) continue; /* flushed on the way (a sink): nothing to trim */
      char *p = w->b.p + mark;
      size_t n = w->b.n - mark;
      char *brace = memchr(p, '{', n);
      if (brace && n >= 3 && (size_t)(brace - p) + 2 <= n - 3) {
        size_t start = (size_t)(brace - p) + 2, len = n - 3 - start;
        memmove(p, p + start, len);
        w->b.n = mark + len;
      }
    }
    put_span(w, m, f->vtail);
  }
  (void)o;
  flush(w, 1);
  if (w->b.oom) return 2;
  return w->err ? 3 : 0;
}

static int run2(const plI_module *m, const plI_print_opts *o, W *w) {
  plB_buf *b = &w->b;
  plI_print_opts dflt = { PLI_ANCHOR_NONE, NULL, -1 };
  if (!o) o = &dflt;
  if (m->vpieces.n) return run_verbatim(m, o, w);
  if (o->header)
    plB_buf_puts(b, o->header);
  else
    PUTL(b, "//\n// Generated by ptxlua\n//\n");
  PUTL(b, "\n.version ");
  put_u64(b, (uint64_t)(m->version / 10));
  putc_(b, '.');
  put_u64(b, (uint64_t)(m->version % 10));
  PUTL(b, "\n.target ");
  put_str(b, m, m->target);
  PUTL(b, "\n.address_size ");
  put_u64(b, (uint64_t)m->address_size);
  PUTL(b, "\n");
  fileids fid = { NULL, 0, 1 };
  if (o->anchors == PLI_ANCHOR_LOC) {
    fid.n = m->strs.n;
    fid.map = calloc(fid.n ? fid.n : 1, sizeof *fid.map);
    if (!fid.map) return 2;
    for (uint32_t fi = 0; fi < m->funcs.n; fi++) {
      const plI_func *f = &m->funcs.p[fi];
      if (o->func >= 0 && (uint32_t)o->func != fi) continue;
      for (uint32_t si = 0; si < f->stmts.n; si++) {
        uint32_t file = f->stmts.p[si].file;
        if (file && file < fid.n && !fid.map[file]) {
          fid.map[file] = fid.next++;
          PUTL(b, ".file\t");
          put_u64(b, fid.map[file]);
          PUTL(b, " \"");
          put_str(b, m, file);
          PUTL(b, "\"\n");
        }
      }
    }
  }
  if (m->globals.n) PUTL(b, "\n");
  for (uint32_t i = 0; i < m->globals.n; i++) {
    put_var(b, m, &m->globals.p[i], 0);
    PUTL(b, ";\n");
  }
  for (uint32_t fi = 0; fi < m->funcs.n; fi++) {
    if (o->func >= 0 && (uint32_t)o->func != fi) continue;
    PUTL(b, "\n");
    print_func(w, m, &m->funcs.p[fi], o, &fid);
  }
  free(fid.map);
  flush(w, 1);
  if (b->oom) return 2;
  return w->err ? 3 : 0;
}

int plI_print(const plI_module *m, const plI_print_opts *o, plB_buf *out) {
  W w = { *out, NULL, NULL, 0 };
  int r = run(m, o, &w);
  *out = w.b;
  return r;
}

int plI_write(const plI_module *m, const plI_print_opts *o, plI_print_sink sink, void *ud) {
  W w;
  plB_buf_init(&w.b);
  w.sink = sink;
  w.ud = ud;
  w.err = 0;
  if (!plB_buf_reserve(&w.b, 1u << 17)) return 2;
  int r = run(m, o, &w);
  plB_buf_free(&w.b);
  return r;
}
