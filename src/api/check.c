/* check.c -- ptxlua_check / ptxlua_compile: build the kernels' module, print it with anchors,
** assemble it (compile.c) and map every assembler message back to the script's file:line. */
#include <lua.h>
#include <lauxlib.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include "engine.h"
#include "print.h"
#include "compile.h"

typedef struct mapped {
  char file[1024];
  int line;
} mapped;

/* where a diagnostic points in the script: the anchor of its PTX line, else the definition of the
** function it names (or encloses the line), else nowhere */
/* the line of the ptx.kernel call that defined kernel `name` (from the DSL's registry) */
static int kernel_where(ptxlua_engine *e, const char *name, mapped *o) {
  lua_State *L = plE_lua(e);
  int found = 0;
  lua_getglobal(L, "package");
  lua_getfield(L, -1, "loaded");
  lua_getfield(L, -1, "ptxlua");
  if (lua_istable(L, -1)) {
    lua_getfield(L, -1, "_registry");
    for (int i = 1; !found && lua_istable(L, -1); i++) {
      lua_rawgeti(L, -1, i);
      if (!lua_istable(L, -1)) {
        lua_pop(L, 1);
        break;
      }
      lua_getfield(L, -1, "name");
      lua_getfield(L, -2, "file");
      lua_getfield(L, -3, "line");
      const char *n = lua_tostring(L, -3), *f = lua_tostring(L, -2);
      if (n && f && strcmp(n, name) == 0) {
        snprintf(o->file, sizeof o->file, "%s", f);
        o->line = (int)lua_tointeger(L, -1);
        found = 1;
      }
      lua_pop(L, 4);
    }
    lua_pop(L, 1);
  }
  lua_pop(L, 3);
  return found;
}

/* a parsed module (a kernel read from PTX) prints its text as read: PTX line `line` lies in the
** span of one statement, whose anchor (the script line that holds it, or its line in the PTX
** file) is the place */
static int parsed_anchor(const plI_module *m, int line, mapped *o) {
  if (!m->vpieces.n || line <= 0 || !m->vsrc.p) return 0;
  const char *s = m->vsrc.p;
  size_t n = m->vsrc.n, a = 0;
  for (int l = 1; l < line; l++) {
    const char *nl = a < n ? memchr(s + a, '\n', n - a) : NULL;
    if (!nl) return 0;
    a = (size_t)(nl - s) + 1;
  }
  for (uint32_t fi = 0; fi < m->funcs.n; fi++) {
    const plI_func *f = &m->funcs.p[fi];
    for (uint32_t si = 0; si < f->stmts.n && si < f->vtext.n; si++) {
      const plI_span *sp = &f->vtext.p[si];
      if (sp->off <= a && a < (size_t)sp->off + sp->len && f->stmts.p[si].file) {
        snprintf(o->file, sizeof o->file, "%s", plI_cstr(m, f->stmts.p[si].file));
        o->line = (int)f->stmts.p[si].line;
        return 1;
      }
    }
  }
  return 0;
}

static void map_diag(ptxlua_engine *e, const plI_module *m, const char *ptx, const plC_diag *d,
                     mapped *o) {
  o->file[0] = 0;
  o->line = 0;
  if (d->line && plC_anchor_of(ptx, d->line, o->file, sizeof o->file, &o->line)) return;
  if (d->line && parsed_anchor(m, d->line, o)) return;
  char fn[256];
  if (d->func[0])
    snprintf(fn, sizeof fn, "%s", d->func);
  else if (d->line)
    plC_func_at(ptx, d->line, fn, sizeof fn);
  else
    fn[0] = 0;
  for (uint32_t i = 0; fn[0] && i < m->funcs.n; i++) {
    const plI_func *f = &m->funcs.p[i];
    if (strcmp(plI_cstr(m, f->name), fn) == 0 && f->file) {
      snprintf(o->file, sizeof o->file, "%s", plI_cstr(m, f->file));
      o->line = (int)f->line;
      return;
    }
  }
  if (fn[0]) kernel_where(e, fn, o);
}

static void json_str(plB_buf *b, const char *s) {
  plB_buf_putc(b, '"');
  for (; *s; s++) {
    unsigned char c = (unsigned char)*s;
    if (c == '"' || c == '\\') {
      plB_buf_putc(b, '\\');
      plB_buf_putc(b, (char)c);
    } else if (c == '\n')
      plB_buf_puts(b, "\\n");
    else if (c == '\t')
      plB_buf_puts(b, "\\t");
    else if (c < 0x20)
      plB_buf_printf(b, "\\u%04x", c);
    else
      plB_buf_putc(b, (char)c);
  }
  plB_buf_putc(b, '"');
}

/* the kernel's dynamic shared memory for the defines: ptxlua.cuda.dynamic_smem(name, defines) */
static long dynamic_smem(ptxlua_engine *e, const char *name) {
  lua_State *L = plE_lua(e);
  lua_getglobal(L, "require");
  lua_pushliteral(L, "ptxlua.cuda");
  if (lua_pcall(L, 1, 1, 0)) {
    lua_pop(L, 1);
    return 0;
  }
  lua_getfield(L, -1, "dynamic_smem");
  lua_remove(L, -2);
  lua_pushstring(L, name);
  lua_rawgeti(L, LUA_REGISTRYINDEX, plE_defines_ref(e));
  long v = 0;
  if (lua_pcall(L, 2, 1, 0) == 0) v = (long)lua_tonumber(L, -1);
  lua_pop(L, 1);
  return v;
}

/* assemble: r filled, the module stays on the Lua stack until the caller pops it */
static int assemble(ptxlua_engine *e, const char *kernels, int flags, plC_result *r, plB_buf *ptx,
                    plI_module **mod) {
  int rc;
  plI_module *m = plE_build(e, kernels, &rc);
  if (!m) return rc;
  plB_buf_init(ptx);
  plI_print_opts po = { PLI_ANCHOR_COMMENT, NULL, -1 };
  if (plI_print(m, &po, ptx)) {
    lua_pop(plE_lua(e), 1);
    plB_buf_free(ptx);
    return plE_set_error(e, PTXLUA_NOMEM, "out of memory while printing");
  }
  plB_buf_cstr(ptx);
  plC_opts co = { plI_cstr(m, m->target), (flags & PTXLUA_NO_CACHE) ? PLC_NO_CACHE : 0,
                  getenv("PTXLUA_PTXAS_OPTIONS"), NULL };
  char err[2048];
  if (plC_compile(ptx->p, ptx->n, &co, r, err, sizeof err)) {
    lua_pop(plE_lua(e), 1);
    plB_buf_free(ptx);
    return plE_set_error(e, PTXLUA_ERROR, err);
  }
  *mod = m;
  return PTXLUA_OK;
}

/* is the line that starts at byte at of b (after its '\n' when at > 0) one of the lines before
** it? */
static int seen_line(plB_buf *b, size_t at) {
  if (!b->p || b->oom) return 0;
  const char *line = b->p + at + (at > 0);
  size_t n = b->n - (size_t)(line - b->p);
  for (size_t i = 0; i < at;) {
    size_t j = i;
    while (j < at && b->p[j] != '\n') j++;
    if (j - i == n && memcmp(b->p + i, line, n) == 0) return 1;
    i = j + 1;
  }
  return 0;
}

PTXLUA_API int ptxlua_check(ptxlua_engine *e, const char *kernels, int flags, char **report) {
  if (!e || !report) return PTXLUA_MISUSE;
  *report = NULL;
  if (plE_check_flags(e, flags,
                      PTXLUA_ANCHOR_COMMENTS | PTXLUA_ANCHOR_LOC | PTXLUA_NO_CACHE | PTXLUA_JSON))
    return PTXLUA_MISUSE;
  plC_result r;
  plB_buf ptx;
  plI_module *m = NULL;
  int rc = assemble(e, kernels, flags, &r, &ptx, &m);
  if (rc) return rc;
  const plC_toolkit *tk = plC_toolkit_get();
  char via[200];
  if (strcmp(r.via, "nvJitLink") == 0)
    snprintf(via, sizeof via, "nvJitLink %d.%d", tk->nvj_major, tk->nvj_minor);
  else
    snprintf(via, sizeof via, "ptxas %s", tk->ptxas_version);
  const char *target = plI_cstr(m, m->target);
  /* resources, in the assembler's order */
  ptxlua_resources *res = calloc((size_t)r.nf + 1, sizeof *res);
  char *names = calloc((size_t)r.nf + 1, 256);
  if (!res || !names) {
    free(res);
    free(names);
    plC_result_free(&r);
    plB_buf_free(&ptx);
    lua_pop(plE_lua(e), 1);
    return plE_set_error(e, PTXLUA_NOMEM, "out of memory");
  }
  for (int i = 0; i < r.nf; i++) {
    plC_func *f = &r.f[i];
    snprintf(names + 256 * i, 256, "%s", f->name);
    res[i].kernel = names + 256 * i;
    res[i].registers = f->regs;
    res[i].barriers = f->barriers;
    res[i].smem_static = f->smem;
    res[i].smem_dynamic = dynamic_smem(e, f->name);
    res[i].stack_frame = f->stack;
    res[i].spill_stores = f->spill_st;
    res[i].spill_loads = f->spill_ld;
  }
  /* diagnostics at the script's lines */
  mapped *mp = calloc((size_t)r.nd + 1, sizeof *mp);
  plB_buf errs;
  plB_buf_init(&errs);
  int nerr = 0;
  for (int i = 0; mp && i < r.nd; i++) {
    map_diag(e, m, ptx.p, &r.d[i], &mp[i]);
    char fn[256] = "";
    if (r.d[i].func[0])
      snprintf(fn, sizeof fn, "%s", r.d[i].func);
    else if (r.d[i].line)
      plC_func_at(ptx.p, r.d[i].line, fn, sizeof fn);
    for (int j = 0; j < r.nf; j++)
      if (!r.d[i].error && strcmp(r.f[j].name, fn) == 0) res[j].warnings++;
    if (r.d[i].error) { /* each message once (the assembler repeats some, one per operand) */
      size_t at = errs.n;
      if (nerr) plB_buf_putc(&errs, '\n');
      if (mp[i].file[0]) plB_buf_printf(&errs, "%s:%d: ", mp[i].file, mp[i].line);
      plB_buf_printf(&errs, "error: %s", r.d[i].msg);
      if (r.d[i].line) plB_buf_printf(&errs, " (PTX line %d)", r.d[i].line);
      if (seen_line(&errs, at))
        errs.n = at;
      else
        nerr++;
    }
  }
  plB_buf b;
  plB_buf_init(&b);
  if (flags & PTXLUA_JSON) {
    plB_buf_puts(&b, "{\"target\": ");
    json_str(&b, target);
    plB_buf_puts(&b, ", \"assembler\": ");
    json_str(&b, via);
    plB_buf_printf(&b, ", \"cached\": %s, \"ok\": %s, \"kernels\": [", r.cached ? "true" : "false",
                   r.ok ? "true" : "false");
    for (int i = 0; i < r.nf; i++) {
      plB_buf_puts(&b, i ? ", {\"name\": " : "{\"name\": ");
      json_str(&b, res[i].kernel);
      plB_buf_printf(&b,
                     ", \"registers\": %d, \"barriers\": %d, \"smem_static\": %ld, "
                     "\"smem_dynamic\": %ld, \"stack_frame\": %ld, "
                     "\"spill_stores\": %ld, \"spill_loads\": %ld, \"warnings\": %d}",
                     res[i].registers, res[i].barriers, res[i].smem_static, res[i].smem_dynamic,
                     res[i].stack_frame, res[i].spill_stores, res[i].spill_loads, res[i].warnings);
    }
    plB_buf_puts(&b, "], \"diagnostics\": [");
    for (int i = 0; mp && i < r.nd; i++) {
      plB_buf_printf(&b, "%s{\"severity\": \"%s\", \"file\": ", i ? ", " : "",
                     r.d[i].error ? "error" : "warning");
      if (mp[i].file[0])
        json_str(&b, mp[i].file);
      else
        plB_buf_puts(&b, "null");
      plB_buf_printf(&b, ", \"line\": %d, \"ptx_line\": %d, \"message\": ", mp[i].line,
                     r.d[i].line);
      json_str(&b, r.d[i].msg);
      plB_buf_putc(&b, '}');
    }
    plB_buf_puts(&b, "]}\n");
  } else {
    plB_buf_printf(&b,
                   r.ok ? "assembled for %s by %s%s\n"
                        : "rejected for %s by %s%s (the errors are on standard error)\n",
                   target, via, r.cached ? " (cached)" : "");
    if (r.nf) {
      plB_buf_printf(&b, "%-24s %5s %12s %12s %7s %10s %10s %8s\n", "kernel", "regs", "smem static",
                     "smem dynamic", "stack", "spill st", "spill ld", "warnings");
      for (int i = 0; i < r.nf; i++)
        plB_buf_printf(&b, "%-24s %5d %12ld %12ld %7ld %10ld %10ld %8d\n", res[i].kernel,
                       res[i].registers, res[i].smem_static, res[i].smem_dynamic,
                       res[i].stack_frame, res[i].spill_stores, res[i].spill_loads,
                       res[i].warnings);
    }
    for (int i = 0; mp && i < r.nd; i++) {
      if (r.d[i].error) continue;
      if (mp[i].file[0]) plB_buf_printf(&b, "%s:%d: ", mp[i].file, mp[i].line);
      plB_buf_printf(&b, "warning: %s\n", r.d[i].msg);
    }
  }
  plB_buf_cstr(&b);
  *report = b.p ? b.p : strdup("");
  plE_set_resources(e, res, names, r.nf);
  int ok = r.ok;
  free(mp);
  lua_pop(plE_lua(e), 1);
  plB_buf_free(&ptx);
  plC_result_free(&r);
  if (!ok) {
    plB_buf_cstr(&errs);
    rc = plE_set_error(e, PTXLUA_ERROR,
                       nerr && errs.p ? errs.p : "the assembler rejected the PTX (no message)");
    plB_buf_free(&errs);
    return rc;
  }
  plB_buf_free(&errs);
  return PTXLUA_OK;
}

PTXLUA_API int ptxlua_compile(ptxlua_engine *e, const char *kernels, int flags, void **cubin,
                              size_t *len) {
  if (!e || !cubin) return PTXLUA_MISUSE;
  *cubin = NULL;
  if (len) *len = 0;
  if (plE_check_flags(e, flags, PTXLUA_ANCHOR_COMMENTS | PTXLUA_ANCHOR_LOC | PTXLUA_NO_CACHE))
    return PTXLUA_MISUSE;
  plC_result r;
  plB_buf ptx;
  plI_module *m;
  int rc = assemble(e, kernels, flags, &r, &ptx, &m);
  if (rc) return rc;
  lua_pop(plE_lua(e), 1);
  plB_buf_free(&ptx);
  if (!r.ok) { /* the check maps every error to the script's line */
    plC_result_free(&r);
    char *rep = NULL;
    rc = ptxlua_check(e, kernels, flags & ~PTXLUA_JSON, &rep);
    free(rep);
    return rc ? rc : plE_set_error(e, PTXLUA_ERROR, "the assembler rejected the PTX");
  }
  *cubin = r.cubin;
  r.cubin = NULL;
  if (len) *len = r.cubin_len;
  plC_result_free(&r);
  return PTXLUA_OK;
}

PTXLUA_API int ptxlua_clear_cache(void) {
  char err[512];
  return plC_cache_clear(err, sizeof err);
}
