/* fail.c -- the emulator's one error path: every failure of a run is reported here, as
** "file:line: error: message" at the user's line (the statement's anchor), naming the thread and
** CTA where one is at fault (plX__fail_lane, plX__fail_warp), and the first report wins (the run
** stops: plX_emu.status). The opt-in checks' reports (plX__optin) are kept until the run ends.
** Also the names messages use: statements, opcodes, "LINE in FILE", threads. */
#include "state.h"
#include "fail.h"
#include <stdarg.h>
#include <stdio.h>

static void who(plX_emu *e, plB_buf *b, plX_warp *w, int lane) {
  plX__who(e, b, e->C->ctaid, (uint32_t)w->idx * 32 + (uint32_t)lane);
}

/* ---- errors ---------------------------------------------------------------------------------- */
/* statements are numbered across the kernel (from 0) and the functions it calls (from their
** sbase) */
const plI_stmt *plX__stmt(const plX_emu *e, uint32_t stmt) {
  const plI_func *f = &e->m->funcs.p[e->func];
  if (stmt < f->stmts.n) return &f->stmts.p[stmt];
  for (uint32_t i = 1; i < e->nfns; i++)
    if (stmt - e->fns[i].sbase < e->fns[i].nstmt)
      return &e->m->funcs.p[e->fns[i].func].stmts.p[stmt - e->fns[i].sbase];
  return NULL;
}

const char *plX__opname(const plX_emu *e, uint32_t stmt) {
  const plI_stmt *s = plX__stmt(e, stmt);
  if (!s || s->kind != PLS_INSN) return "?";
  return plA_opcode_text(e->m->isa, s->opc);
}

const char *plX__at(const plX_emu *e, uint32_t stmt, char *buf, size_t n) {
  const plI_stmt *s = stmt != X_NOSLOT ? plX__stmt(e, stmt) : NULL;
  const plI_func *f = &e->m->funcs.p[e->func];
  (void)f;
  /* the file goes between two X_ATSEP marks; plX__fail keeps it (" in FILE") only when it is not
  ** the file of the line the error is reported at */
  if (!s)
    snprintf(buf, n, "?");
  else if (s->file)
    snprintf(buf, n, "%u" X_ATSEP "%s" X_ATSEP, s->line, plI_cstr(e->m, s->file));
  else
    snprintf(buf, n, "%u", s->line);
  return buf;
}

/* resolve plX__at's marks in b from byte `from` on: " in FILE", or nothing when FILE is `own` */
static void at_marks(plB_buf *b, size_t from, const char *own) {
  if (b->n <= from || !memchr(b->p + from, X_ATSEP[0], b->n - from)) return;
  plB_buf o;
  plB_buf_init(&o);
  const char *p = b->p + from, *end = b->p + b->n;
  while (p < end) {
    const char *m = memchr(p, X_ATSEP[0], (size_t)(end - p));
    if (!m) {
      plB_buf_add(&o, p, (size_t)(end - p));
      break;
    }
    plB_buf_add(&o, p, (size_t)(m - p));
    const char *q = memchr(m + 1, X_ATSEP[0], (size_t)(end - m - 1));
    if (!q) {
      p = m + 1;
      continue;
    }
    size_t fl = (size_t)(q - m - 1);
    if (!own || strlen(own) != fl || memcmp(own, m + 1, fl) != 0) {
      plB_buf_puts(&o, " in ");
      plB_buf_add(&o, m + 1, fl);
    }
    p = q + 1;
  }
  b->n = from;
  plB_buf_add(b, o.p, o.n);
  plB_buf_free(&o);
}

/* "file:line: error: " and the message into b (emptied first), at statement stmt */
static void vreport(plX_emu *e, plB_buf *b, uint32_t stmt, const char *fmt, va_list ap) {
  b->n = 0;
  const plI_func *f = &e->m->funcs.p[e->func];
  const plI_stmt *s = stmt != X_NOSLOT ? plX__stmt(e, stmt) : NULL;
  if (s && s->file)
    plB_buf_printf(b, "%s:%u: error: ", plI_cstr(e->m, s->file), s->line);
  else if (stmt == X_NOSLOT && f->file)
    plB_buf_printf(b, "%s:%u: error: ", plI_cstr(e->m, f->file), f->line);
  else
    plB_buf_puts(b, "error: ");
  size_t from = b->n;
  plB_buf_vprintf(b, fmt, ap);
  const char *own = NULL; /* the file not named again */
  if (s && s->file)
    own = plI_cstr(e->m, s->file);
  else if (stmt == X_NOSLOT && f->file)
    own = plI_cstr(e->m, f->file);
  at_marks(b, from, own);
}

int plX__fail(plX_emu *e, uint32_t stmt, const char *fmt, ...) {
  if (e->status) return e->status;
  e->status = 1;
  va_list ap;
  va_start(ap, fmt);
  vreport(e, &e->err, stmt, fmt, ap);
  va_end(ap);
  return e->status;
}

int plX__optin(plX_emu *e, uint32_t stmt, const char *fmt, ...) {
  if (e->status || e->ndeferred++) return e->status; /* the first one is the one kept */
  va_list ap;
  va_start(ap, fmt);
  vreport(e, &e->deferred, stmt, fmt, ap);
  va_end(ap);
  return 0;
}

void plX__thread(const plX_emu *e, plB_buf *b, uint32_t tid) {
  uint32_t x = tid % e->block[0], y = tid / e->block[0] % e->block[1],
           z = tid / (e->block[0] * e->block[1]);
  plB_buf_printf(b, "thread (%u,%u,%u)", x, y, z);
}

void plX__who(const plX_emu *e, plB_buf *b, const uint32_t ctaid[3], uint32_t tid) {
  plX__thread(e, b, tid);
  plB_buf_printf(b, " of CTA (%u,%u,%u)", ctaid[0], ctaid[1], ctaid[2]);
}

int plX__fail_lane(plX_emu *e, const plX_ins *in, plX_warp *w, int lane, const char *msg) {
  plB_buf b;
  plB_buf_init(&b);
  plB_buf_printf(&b, "%s: ", plX__opname(e, in->stmt));
  plB_buf_puts(&b, msg);
  plB_buf_puts(&b, " (");
  who(e, &b, w, lane);
  plB_buf_puts(&b, ")");
  plX__fail(e, in->stmt, "%s", plB_buf_cstr(&b));
  plB_buf_free(&b);
  return e->status;
}

int plX__fail_warp(plX_emu *e, const plX_ins *in, plX_warp *w, const char *msg, uint32_t lanes) {
  plB_buf b;
  plB_buf_init(&b);
  plB_buf_printf(&b, "%s in warp %d of CTA (%u,%u,%u): %s", plX__opname(e, in->stmt), w->idx,
                 e->C->ctaid[0], e->C->ctaid[1], e->C->ctaid[2], msg);
  if (lanes) plB_buf_printf(&b, " (lanes 0x%08x)", lanes); /* 0: the warp as a whole */
  plX__fail(e, in->stmt, "%s", plB_buf_cstr(&b));
  plB_buf_free(&b);
  return e->status;
}

int plX__fail_lanef(plX_emu *e, const plX_ins *in, plX_warp *w, int l, const char *fmt, ...) {
  char m[512];
  va_list ap;
  va_start(ap, fmt);
  vsnprintf(m, sizeof m, fmt, ap);
  va_end(ap);
  return plX__fail_lane(e, in, w, l, m);
}

int plX__fail_decl(plX_emu *e, uint32_t file, uint32_t line, const char *fmt, ...) {
  if (e->status) return e->status;
  e->status = 1;
  e->err.n = 0;
  if (file)
    plB_buf_printf(&e->err, "%s:%u: error: ", plI_cstr(e->m, file), line);
  else
    plB_buf_puts(&e->err, "error: ");
  va_list ap;
  va_start(ap, fmt);
  plB_buf_vprintf(&e->err, fmt, ap);
  va_end(ap);
  return e->status;
}

int plX__optin_made(plX_emu *e) {
  e->status = 1;
  plB_buf t = e->err; /* the kept report becomes the run's error */
  e->err = e->deferred;
  e->deferred = t;
  return e->status;
}
