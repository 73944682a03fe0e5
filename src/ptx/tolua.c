/* tolua.c -- a parsed module -> the Lua script (ptxlua.verbatim) that rebuilds it byte for
** byte: one call per statement, its text kept as written, kernels registered under their names. */
#include "parse.h"
#include <string.h>

/* a Lua string literal: printable ASCII as is, the rest escaped (decimal escapes, as Lua 5.1);
** the sugared writer (sugar.c) writes its strings with it too */
void plP_lua_str(plB_buf *b, const char *s, uint32_t n) {
  plB_buf_putc(b, '"');
  uint32_t from = 0; /* the characters kept as they are go in spans, not one by one */
  for (uint32_t i = 0; i < n; i++) {
    unsigned char c = (unsigned char)s[i];
    if (c >= 32 && c < 127 && c != '"' && c != '\\') continue;
    plB_buf_add(b, s + from, i - from);
    from = i + 1;
    switch (c) {
    case '"': plB_buf_add(b, "\\\"", 2); break;
    case '\\': plB_buf_add(b, "\\\\", 2); break;
    case '\n': plB_buf_add(b, "\\n", 2); break;
    case '\t': plB_buf_add(b, "\\t", 2); break;
    case '\r': plB_buf_add(b, "\\r", 2); break;
    default: {
      char e[4] = { '\\', (char)('0' + c / 100), (char)('0' + c / 10 % 10), (char)('0' + c % 10) };
      plB_buf_add(b, e, 4);
    }
    }
  }
  plB_buf_add(b, s + from, n - from);
  plB_buf_putc(b, '"');
}

typedef struct LW {
  plB_buf *b;
  const plI_module *m;
  uint32_t inblock;
} LW;

static void stmt(LW *w, plI_span sp) {
  if (!sp.len) return;
  if (w->inblock >= 2000) {
    plB_buf_puts(w->b, "end)\nm:block(function(m)\n");
    w->inblock = 0;
  }
  const char *p = w->m->vsrc.p + sp.off;
  uint32_t n = sp.len;
  /* most statements end in their newline: m "text\n" */
  plB_buf_puts(w->b, "m ");
  plP_lua_str(w->b, p, n);
  plB_buf_putc(w->b, '\n');
  w->inblock++;
}

int plP_to_lua(const plI_module *m, const char *srcname, const char *name, plB_buf *out) {
  LW w = { out, m, 0 };
  plB_buf_printf(
      out,
      "-- %s as a ptxlua script (ptxlua --from-ptx): `ptxlua THIS.lua --print-ptx` prints it back\n"
      "-- byte for byte. Each m \"...\" is one PTX statement kept as written, with the comments "
      "and\n"
      "-- blank lines before it; edit them freely (ptxlua --lint checks the result).\n",
      srcname);
  plB_buf_puts(out, "local ptx = require \"ptxlua.verbatim\"\nlocal m = ptx.module ");
  plP_lua_str(out, name, (uint32_t)strlen(name));
  plB_buf_puts(out, "\nm:block(function(m)\n");
  for (uint32_t i = 0; i < m->vpieces.n; i++) {
    const plI_piece *pc = &m->vpieces.p[i];
    if (pc->kind == PLI_PIECE_TEXT) {
      stmt(&w, pc->text);
      continue;
    }
    if (pc->func >= m->funcs.n) continue;
    const plI_func *f = &m->funcs.p[pc->func];
    const char *fn = plI_cstr(m, f->name);
    plB_buf_printf(out, "-- %s %s\n", f->kind == PLF_ENTRY ? ".entry" : ".func", fn);
    if (f->kind == PLF_ENTRY && !f->declared_only) {
      plB_buf_puts(out, "m:func(");
      plP_lua_str(out, fn, (uint32_t)strlen(fn));
      plB_buf_puts(out, ", \"entry\")\n");
    }
    stmt(&w, f->vhead);
    for (uint32_t s = 0; s < f->vtext.n; s++) stmt(&w, f->vtext.p[s]);
    stmt(&w, f->vtail);
  }
  plB_buf_puts(out, "end)\nm:done()\n");
  return out->oom ? 2 : 0;
}
