/* diff.c -- an instruction-level diff of two parsed modules: functions matched by name,
** their instructions and labels compared as the IR holds them (opcode, guard, operands), so
** formatting, comments, register renumbering of the same shape and .loc lines do not show. */
#include "parse.h"
#include "print.h"
#include "isa.h"
#include <stdlib.h>
#include <string.h>

/* the statement's canonical text ("@%p1 bra $L1"), or NULL for one that does not count */
static int key(const plI_module *m, const plI_stmt *s, plB_buf *b) {
  b->n = 0;
  if (s->kind == PLS_LABEL) {
    plB_buf_puts(b, plI_cstr(m, s->opc));
    plB_buf_putc(b, ':');
    return 1;
  }
  if (s->kind != PLS_INSN) return 0;
  if (s->guard) {
    plB_buf_puts(b, s->flags & PLOF_NEG ? "@!" : "@");
    plI_regname(m, s->guard - 1, b);
    plB_buf_putc(b, ' ');
  }
  plB_buf_puts(b, plA_opcode_text(m->isa, s->opc));
  for (uint16_t k = 0; k < s->nops; k++) {
    plB_buf_puts(b, k ? ", " : " ");
    plI_print_operand(m, &m->opnds.p[s->ops + k], b);
  }
  return 1;
}

typedef struct L {
  char **t;
  int *line;
  int n;
} L;
static int collect(const plI_module *m, const plI_func *f, L *l) {
  l->t = calloc(f->stmts.n + 1, sizeof *l->t);
  l->line = calloc(f->stmts.n + 1, sizeof *l->line);
  l->n = 0;
  if (!l->t || !l->line) return 0;
  plB_buf b;
  plB_buf_init(&b);
  for (uint32_t i = 0; i < f->stmts.n; i++) {
    if (!key(m, &f->stmts.p[i], &b)) continue;
    l->t[l->n] = strdup(plB_buf_cstr(&b));
    if (!l->t[l->n]) {
      plB_buf_free(&b);
      return 0;
    }
    l->line[l->n++] = (int)f->stmts.p[i].line;
  }
  plB_buf_free(&b);
  return 1;
}
static void freel(L *l) {
  for (int i = 0; i < l->n; i++) free(l->t[i]);
  free(l->t);
  free(l->line);
}

/* longest common subsequence over the statements (bounded: past 4096x4096, a positional walk) */
static int diff_func(const plI_module *a, const plI_func *fa, const plI_module *b,
                     const plI_func *fb, const char *na, const char *nb, plB_buf *out) {
  L x, y;
  int nd = 0;
  if (!collect(a, fa, &x) || !collect(b, fb, &y)) {
    freel(&x);
    freel(&y);
    return -1;
  }
  /* the common head and tail are matched as they are (the walk below takes equal statements
  ** first); the table covers only what lies between them, so a file against itself, or a
  ** function changed in one place, costs time linear in its statements */
  int pre = 0, suf = 0;
  while (pre < x.n && pre < y.n && strcmp(x.t[pre], y.t[pre]) == 0) pre++;
  while (suf < x.n - pre && suf < y.n - pre && strcmp(x.t[x.n - 1 - suf], y.t[y.n - 1 - suf]) == 0)
    suf++;
  int n = x.n - suf, m = y.n - suf; /* the walk runs over [pre, n) x [pre, m) */
  int tn = n - pre, tm = m - pre;
  uint16_t *t = NULL;
  if ((long)tn * tm <= 4096L * 4096L) t = calloc((size_t)(tn + 1) * (size_t)(tm + 1), sizeof *t);
#define T(i, j) t[(size_t)((i)-pre) * (size_t)(tm + 1) + (size_t)((j)-pre)]
  if (t) {
    for (int i = n - 1; i >= pre; i--)
      for (int j = m - 1; j >= pre; j--)
        T(i, j) = strcmp(x.t[i], y.t[j]) == 0
                      ? T(i + 1, j + 1) + 1
                      : (T(i + 1, j) > T(i, j + 1) ? T(i + 1, j) : T(i, j + 1));
  }
  int i = pre, j = pre;
  while (i < n || j < m) {
    if (i < n && j < m && strcmp(x.t[i], y.t[j]) == 0) {
      i++;
      j++;
      continue;
    }
    int takea = j >= m || (i < n && (!t || T(i + 1, j) >= T(i, j + 1)));
    if (takea) {
      plB_buf_printf(out, "-%s:%d: %s\n", na, x.line[i], x.t[i]);
      i++;
    } else {
      plB_buf_printf(out, "+%s:%d: %s\n", nb, y.line[j], y.t[j]);
      j++;
    }
    nd++;
  }
#undef T
  free(t);
  freel(&x);
  freel(&y);
  return nd;
}

int plP_diff(const plI_module *a, const plI_module *b, const char *fa, const char *fb,
             plB_buf *out) {
  int nd = 0;
  /* b's functions by name (a string id of b): the last definition and the last declaration of
  ** each; a's names, to find those only in b. One index each, not a scan per function */
  uint32_t *bdef = calloc(b->strs.n + 1, sizeof *bdef),
           *bdecl = calloc(b->strs.n + 1, sizeof *bdecl);
  uint8_t *ina = calloc(a->strs.n + 1, 1);
  if (!bdef || !bdecl || !ina) {
    free(bdef);
    free(bdecl);
    free(ina);
    return -1;
  }
  for (uint32_t k = 0; k < b->funcs.n; k++) {
    uint32_t id = b->funcs.p[k].name;
    if (id < b->strs.n) (b->funcs.p[k].declared_only ? bdecl : bdef)[id] = k + 1;
  }
  for (uint32_t i = 0; i < a->funcs.n; i++)
    if (a->funcs.p[i].name < a->strs.n) ina[a->funcs.p[i].name] = 1;
  for (uint32_t i = 0; i < a->funcs.n; i++) {
    const plI_func *f = &a->funcs.p[i];
    const char *name = plI_cstr(a, f->name);
    const plI_func *g = NULL;
    uint32_t bid = plB_find(&b->strs, name, strlen(name));
    uint32_t gk = bid && bid < b->strs.n ? (f->declared_only ? bdecl : bdef)[bid] : 0;
    if (gk) g = &b->funcs.p[gk - 1];
    if (!g) {
      plB_buf_printf(out, "-%s: function %s (only in %s)\n", fa, name, fa);
      nd++;
      continue;
    }
    plB_buf hdr;
    plB_buf_init(&hdr);
    size_t mark = out->n;
    plB_buf_printf(out, "@@ %s\n", name);
    int d = diff_func(a, f, b, g, fa, fb, out);
    if (d < 0) {
      plB_buf_free(&hdr);
      free(bdef);
      free(bdecl);
      free(ina);
      return -1;
    }
    if (d == 0) out->n = mark;
    nd += d;
    plB_buf_free(&hdr);
  }
  for (uint32_t k = 0; k < b->funcs.n; k++) {
    const char *name = plI_cstr(b, b->funcs.p[k].name);
    uint32_t aid = plB_find(&a->strs, name, strlen(name));
    if (!(aid && aid < a->strs.n && ina[aid])) {
      plB_buf_printf(out, "+%s: function %s (only in %s)\n", fb, name, fb);
      nd++;
    }
  }
  free(bdef);
  free(bdecl);
  free(ina);
  if (a->version != b->version) {
    plB_buf_printf(out, "version: %d.%d -> %d.%d\n", a->version / 10, a->version % 10,
                   b->version / 10, b->version % 10);
    nd++;
  }
  if (strcmp(plI_cstr(a, a->target), plI_cstr(b, b->target)) != 0) {
    plB_buf_printf(out, "target: %s -> %s\n", plI_cstr(a, a->target), plI_cstr(b, b->target));
    nd++;
  }
  return nd;
}
