/* engine.c -- the public C API (include/ptxlua.h): an engine owns one Lua state with the DSL.
** No global state; errors are result codes with the message kept on the handle (as in SQLite);
** nothing longjmps across the API: every call into Lua is protected. */
#define _GNU_SOURCE 1 /* dladdr: where the library itself was loaded from */
#include <dlfcn.h>
#include <lua.h>
#include <lauxlib.h>
#include <lualib.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <errno.h>
#include <unistd.h>
#include <sys/stat.h>
#include "engine.h"
#include "isa.h"
#include "print.h"
#include "compile.h"
#include "driver.h"

#ifndef PTXLUA_SOURCE_LUA_DIR
#define PTXLUA_SOURCE_LUA_DIR ""
#endif
#ifndef PTXLUA_INSTALL_LUA_DIR
#define PTXLUA_INSTALL_LUA_DIR ""
#endif

struct ptxlua_engine {
  lua_State *L;
  int defines_ref; /* registry ref of the defines table */
  char *arch;
  char *errmsg, *errfile;
  int errline;
  char luadir[4096];
  int dsl_loaded;
  ptxlua_resources *res; /* the last check's report (names owned by resnames) */
  char *resnames;
  int nres;
  ptxlua_device *devices; /* open devices (launch.c), closed by ptxlua_close */
  uint64_t emu_limit;     /* ptxlua_set_emu_limit: PTXLUA_LIMIT_DEFAULT (0), a count, or none */
  int emu_clc;            /* ptxlua_set_emu_clc: PTXLUA_CLC_* */
};

PTXLUA_API int ptxlua_set_emu_limit(ptxlua_engine *e, uint64_t n) {
  if (!e) return PTXLUA_MISUSE;
  e->emu_limit = n;
  return PTXLUA_OK;
}
uint64_t plE_emu_limit(ptxlua_engine *e) {
  return e ? e->emu_limit : 0;
}
PTXLUA_API int ptxlua_set_emu_clc(ptxlua_engine *e, int mode) {
  if (!e || mode < PTXLUA_CLC_ALL || mode > PTXLUA_CLC_ALTERNATE) return PTXLUA_MISUSE;
  e->emu_clc = mode;
  return PTXLUA_OK;
}
int plE_emu_clc(ptxlua_engine *e) {
  return e ? e->emu_clc : PTXLUA_CLC_ALL;
}

PTXLUA_API const char *ptxlua_version(void) {
  return PTXLUA_VERSION_STRING;
}

lua_State *plE_lua(ptxlua_engine *e) {
  return e ? e->L : NULL;
}

static char *dupstr(const char *s) {
  if (!s) return NULL;
  size_t n = strlen(s) + 1;
  char *p = malloc(n);
  if (p) memcpy(p, s, n);
  return p;
}

static void clear_error(ptxlua_engine *e) {
  free(e->errmsg);
  free(e->errfile);
  e->errmsg = e->errfile = NULL;
  e->errline = 0;
}

/* "file:line: error: msg"; a plain Lua error "file:line: msg" gets the "error: " inserted */
int plE_set_error(ptxlua_engine *e, int code, const char *msg) {
  clear_error(e);
  if (!msg) msg = "unknown error";
  const char *p = msg;
  /* find "file:line: " at the start (the file name may hold ':' only before the line) */
  const char *colon = NULL;
  for (const char *q = p; *q && *q != '\n'; q++) {
    if (*q == ':' && q[1] >= '0' && q[1] <= '9') {
      const char *r = q + 1;
      while (*r >= '0' && *r <= '9') r++;
      if (r[0] == ':' && r[1] == ' ') {
        colon = q;
        break;
      }
    }
  }
  size_t n = strlen(msg);
  char *out = malloc(n + 16);
  if (!out) return code;
  if (colon && strncmp(msg, "error:", 6) != 0) {
    e->errfile = malloc((size_t)(colon - msg) + 1);
    if (e->errfile) {
      memcpy(e->errfile, msg, (size_t)(colon - msg));
      e->errfile[colon - msg] = 0;
    }
    e->errline = atoi(colon + 1);
    const char *rest = strchr(colon + 1, ':') + 2;
    if (strncmp(rest, "error: ", 7) == 0)
      memcpy(out, msg, n + 1);
    else
      snprintf(out, n + 16, "%.*s error: %s", (int)(rest - msg - 1), msg, rest);
  } else if (strncmp(msg, "error:", 6) == 0)
    memcpy(out, msg, n + 1);
  else
    snprintf(out, n + 16, "error: %s", msg);
  e->errmsg = out;
  return code;
}

static int exists_dir(const char *d) {
  char buf[4400];
  if (strlen(d) > 4096) return 0;
  snprintf(buf, sizeof buf, "%s/ptxlua/init.lua", d);
  struct stat st;
  return stat(buf, &st) == 0;
}

static void find_luadir(ptxlua_engine *e) {
  const char *env = getenv("PTXLUA_LUA_DIR");
  if (env && *env && exists_dir(env)) {
    snprintf(e->luadir, sizeof e->luadir, "%s", env);
    return;
  }
  /* an installed library: PREFIX/lib/libptxlua.so next to PREFIX/share/lua/5.1 (found wherever the
  ** prefix was moved); then an installed command beside it; then the source tree of a build */
  Dl_info info;
  if (dladdr((void *)ptxlua_open, &info) && info.dli_fname && strchr(info.dli_fname, '/')) {
    char lib[4096];
    snprintf(lib, sizeof lib, "%s", info.dli_fname);
    char *slash = strrchr(lib, '/');
    *slash = 0;
    char cand[4200];
    snprintf(cand, sizeof cand, "%.4000s/../share/lua/5.1", lib);
    if (exists_dir(cand)) {
      snprintf(e->luadir, sizeof e->luadir, "%.4000s", cand);
      return;
    }
  }
  char exe[4096];
  ssize_t n = readlink("/proc/self/exe", exe, sizeof exe - 1);
  if (n > 0) {
    exe[n] = 0;
    char *slash = strrchr(exe, '/');
    if (slash) {
      *slash = 0;
      char cand[4200];
      snprintf(cand, sizeof cand, "%.4000s/../share/lua/5.1", exe);
      if (exists_dir(cand)) {
        snprintf(e->luadir, sizeof e->luadir, "%.4000s", cand);
        return;
      }
    }
  }
  if (exists_dir(PTXLUA_SOURCE_LUA_DIR)) {
    snprintf(e->luadir, sizeof e->luadir, "%s", PTXLUA_SOURCE_LUA_DIR);
    return;
  }
  snprintf(e->luadir, sizeof e->luadir, "%s", PTXLUA_INSTALL_LUA_DIR);
}

static int preload_core(lua_State *L) {
  lua_getglobal(L, "package");
  lua_getfield(L, -1, "preload");
  lua_pushcfunction(L, luaopen_ptxlua_core);
  lua_setfield(L, -2, "ptxlua.core");
  lua_pop(L, 2);
  return 0;
}

static int set_path(lua_State *L, const char *dir) {
  lua_getglobal(L, "package");
  lua_getfield(L, -1, "path");
  const char *old = lua_tostring(L, -1);
  lua_pushfstring(L, "%s/?.lua;%s/?/init.lua;%s", dir, dir, old ? old : "");
  lua_setfield(L, -3, "path");
  lua_pop(L, 2);
  return 0;
}

PTXLUA_API ptxlua_engine *ptxlua_open(void) {
  ptxlua_engine *e = calloc(1, sizeof *e);
  if (!e) return NULL;
  e->defines_ref = LUA_NOREF;
  e->L = luaL_newstate();
  if (!e->L) {
    free(e);
    return NULL;
  }
  luaL_openlibs(e->L);
  preload_core(e->L);
  find_luadir(e);
  lua_newtable(e->L);
  e->defines_ref = luaL_ref(e->L, LUA_REGISTRYINDEX);
  return e;
}

PTXLUA_API void ptxlua_close(ptxlua_engine *e) {
  if (!e) return;
  plE_close_devices(e);
  if (e->L) lua_close(e->L);
  clear_error(e);
  free(e->arch);
  free(e->res);
  free(e->resnames);
  free(e);
}

PTXLUA_API int ptxlua_set_lua_dir(ptxlua_engine *e, const char *dir) {
  if (!e || !dir) return PTXLUA_MISUSE;
  if (e->dsl_loaded)
    return plE_set_error(e, PTXLUA_MISUSE, "the Lua directory must be set before the first load");
  snprintf(e->luadir, sizeof e->luadir, "%s", dir);
  return PTXLUA_OK;
}

/* require "ptxlua" once (protected), then reset its kernel registry */
static int load_dsl(ptxlua_engine *e) {
  lua_State *L = e->L;
  if (!e->dsl_loaded) {
    set_path(L, e->luadir);
    e->dsl_loaded = 1;
  }
  lua_getglobal(L, "require");
  lua_pushliteral(L, "ptxlua");
  if (lua_pcall(L, 1, 1, 0)) {
    const char *m = lua_tostring(L, -1);
    char buf[4600];
    snprintf(buf, sizeof buf, "cannot load the ptxlua DSL from %s: %s", e->luadir, m ? m : "?");
    lua_pop(L, 1);
    return plE_set_error(e, PTXLUA_ERROR, buf);
  }
  lua_getfield(L, -1, "reset");
  if (lua_pcall(L, 0, 0, 0)) {
    lua_pop(L, 2);
    return plE_set_error(e, PTXLUA_ERROR, "ptxlua.reset failed");
  }
  lua_pop(L, 1);
  return PTXLUA_OK;
}

/* the message handler of every call into Lua: an error value that is not a string (error({code =
** 1}) in a body, a table raised by a library) becomes "file:line: error: error object is a table,
** not a string: {code = 1}" at the frame that raised it, as a string error would carry it (the
** DSL's ptx._user_error, which kernel bodies' own handler is; without the DSL, the type alone).
** Strings and numbers pass unchanged. */
static int msgh(lua_State *L) {
  if (lua_type(L, 1) == LUA_TSTRING) {
    plL_expand_chunk(L, 1, NULL);
    return 1;
  }
  if (lua_type(L, 1) == LUA_TNUMBER) return 1;
  lua_getglobal(L, "package");
  if (lua_istable(L, -1)) {
    lua_getfield(L, -1, "loaded");
    if (lua_istable(L, -1)) {
      lua_getfield(L, -1, "ptxlua");
      if (lua_istable(L, -1)) {
        lua_getfield(L, -1, "_user_error");
        if (lua_isfunction(L, -1)) {
          lua_pushvalue(L, 1);
          if (lua_pcall(L, 1, 1, 0) == 0 && lua_type(L, -1) == LUA_TSTRING) return 1;
        }
      }
    }
  }
  lua_settop(L, 1);
  lua_Debug ar;
  for (int lvl = 1; lua_getstack(L, lvl, &ar); lvl++) { /* the first frame with a line */
    if (lua_getinfo(L, "Sl", &ar) && ar.currentline > 0) {
      lua_pushfstring(L, "%s:%d: error: error object is %s%s, not a string",
                      ar.source[0] == '@' ? ar.source + 1 : ar.short_src, ar.currentline,
                      lua_isnil(L, 1) ? "" : "a ", luaL_typename(L, 1));
      return 1;
    }
  }
  lua_pushfstring(L, "error: error object is %s%s, not a string", lua_isnil(L, 1) ? "" : "a ",
                  luaL_typename(L, 1));
  return 1;
}

int plE_pcall(lua_State *L, int nargs, int nresults) {
  int base = lua_gettop(L) - nargs; /* the function's slot */
  lua_pushcfunction(L, msgh);
  lua_insert(L, base);
  int st = lua_pcall(L, nargs, nresults, base);
  lua_remove(L, base);
  return st;
}

static int run_chunk(ptxlua_engine *e, int status, const char *path) {
  lua_State *L = e->L;
  if (status == 0)
    status = plE_pcall(L, 0, 0);
  else if (path && lua_type(L, -1) == LUA_TSTRING) { /* a syntax error: the path as given */
    plL_expand_chunk(L, -1, path);
    lua_remove(L, -2);
  }
  if (status) {
    const char *m = lua_tostring(L, -1);
    int code = status == LUA_ERRMEM ? PTXLUA_NOMEM : PTXLUA_ERROR;
    plE_set_error(e, code, m ? m : "error object is not a string");
    lua_pop(L, 1);
    return code;
  }
  return PTXLUA_OK;
}

PTXLUA_API int ptxlua_load_file(ptxlua_engine *e, const char *path) {
  if (!e || !path) return PTXLUA_MISUSE;
  clear_error(e);
  FILE *f = fopen(path, "rb");
  if (!f) {
    char buf[4400];
    snprintf(buf, sizeof buf, "%s: error: cannot open: %s", path, strerror(errno));
    e->errmsg = dupstr(buf);
    e->errfile = dupstr(path);
    return PTXLUA_IO;
  }
  fclose(f);
  int r = load_dsl(e);
  if (r) return r;
  return run_chunk(e, luaL_loadfile(e->L, path), path);
}

PTXLUA_API int ptxlua_load_string(ptxlua_engine *e, const char *chunkname, const char *text,
                                  size_t len) {
  if (!e || !text) return PTXLUA_MISUSE;
  clear_error(e);
  int r = load_dsl(e);
  if (r) return r;
  char name[1024];
  snprintf(name, sizeof name, "@%s", chunkname ? chunkname : "string");
  return run_chunk(e, luaL_loadbuffer(e->L, text, len, name), name + 1);
}

/* push require("ptxlua") */
static int push_dsl(ptxlua_engine *e) {
  lua_State *L = e->L;
  if (!e->dsl_loaded) return 0;
  lua_getglobal(L, "package");
  lua_getfield(L, -1, "loaded");
  lua_getfield(L, -1, "ptxlua");
  lua_remove(L, -2);
  lua_remove(L, -2);
  if (!lua_istable(L, -1)) {
    lua_pop(L, 1);
    return 0;
  }
  return 1;
}

PTXLUA_API int ptxlua_kernel_count(ptxlua_engine *e) {
  if (!e || !push_dsl(e)) return 0;
  lua_getfield(e->L, -1, "_registry");
  int n = (int)lua_objlen(e->L, -1);
  lua_pop(e->L, 2);
  return n;
}

PTXLUA_API const char *ptxlua_kernel_name(ptxlua_engine *e, int i) {
  if (!e || i < 0 || !push_dsl(e)) return NULL;
  lua_State *L = e->L;
  lua_getfield(L, -1, "_registry");
  lua_rawgeti(L, -1, i + 1);
  const char *name = NULL;
  if (lua_istable(L, -1)) {
    lua_getfield(L, -1, "name");
    name = lua_tostring(L, -1); /* kept alive by the registry entry */
    lua_pop(L, 1);
  }
  lua_pop(L, 3);
  return name;
}

PTXLUA_API int ptxlua_define(ptxlua_engine *e, const char *name, const char *value) {
  if (!e || !name || !*name) return PTXLUA_MISUSE;
  lua_State *L = e->L;
  lua_rawgeti(L, LUA_REGISTRYINDEX, e->defines_ref);
  if (value)
    lua_pushstring(L, value);
  else
    lua_pushnil(L);
  lua_setfield(L, -2, name);
  lua_pop(L, 1);
  return PTXLUA_OK;
}

PTXLUA_API int ptxlua_set_arch(ptxlua_engine *e, const char *arch) {
  if (!e) return PTXLUA_MISUSE;
  plA_target t;
  char native[32], why[1024];
  if (arch && strcmp(arch, "native") == 0) { /* the GPU's own target, asked of the driver */
    if (plC_native_arch(native, sizeof native, why, sizeof why)) {
      char buf[1200];
      snprintf(buf, sizeof buf, "--arch native needs the GPU's compute capability: %s", why);
      return plE_set_error(e, PTXLUA_MISUSE, buf);
    }
    arch = native;
  }
  if (arch && !plA_target_parse(arch, &t)) {
    char buf[256];
    snprintf(buf, sizeof buf, "unknown target '%.100s' (expected sm_80, sm_90a, sm_100a, ...)",
             arch);
    return plE_set_error(e, PTXLUA_MISUSE, buf);
  }
  free(e->arch);
  e->arch = arch ? dupstr(arch) : NULL;
  return arch && !e->arch ? PTXLUA_NOMEM : PTXLUA_OK;
}

int plE_check_flags(ptxlua_engine *e, int flags, int allowed) {
  if (!(flags & ~allowed)) return PTXLUA_OK;
  char buf[64];
  snprintf(buf, sizeof buf, "unknown flags 0x%x", (unsigned)(flags & ~allowed));
  return plE_set_error(e, PTXLUA_MISUSE, buf);
}

/* build the module: leaves it on the stack (returns its IR), or sets the error */
/* "a,b,c" (or NULL: all) as the Lua list the DSL's build and emulate_all take; an empty name
** ("a,,b", "a,", "") is PTXLUA_MISUSE, with nothing pushed */
static int push_kernel_list(ptxlua_engine *e, const char *kernels) {
  lua_State *L = e->L;
  lua_newtable(L);
  if (!kernels) return PTXLUA_OK;
  int n = 0;
  for (const char *p = kernels;;) {
    const char *q = strchr(p, ',');
    size_t len = q ? (size_t)(q - p) : strlen(p);
    if (!len) {
      lua_pop(L, 1);
      char buf[256];
      snprintf(buf, sizeof buf,
               "an empty kernel name in the list '%.100s' (NULL selects every kernel)", kernels);
      return plE_set_error(e, PTXLUA_MISUSE, buf);
    }
    lua_pushlstring(L, p, len);
    lua_rawseti(L, -2, ++n);
    if (!q) return PTXLUA_OK;
    p = q + 1;
  }
}

static plI_module *build(ptxlua_engine *e, const char *kernels, int *rc) {
  lua_State *L = e->L;
  clear_error(e);
  if (!push_dsl(e)) {
    *rc = plE_set_error(e, PTXLUA_MISUSE, "no script is loaded");
    return NULL;
  }
  lua_getfield(L, -1, "build");
  lua_remove(L, -2);
  lua_createtable(L, 0, 4);
  lua_rawgeti(L, LUA_REGISTRYINDEX, e->defines_ref);
  lua_setfield(L, -2, "defines");
  if (e->arch) {
    lua_pushstring(L, e->arch);
    lua_setfield(L, -2, "arch");
  }
  if ((*rc = push_kernel_list(e, kernels))) {
    lua_pop(L, 2);
    return NULL;
  }
  lua_setfield(L, -2, "kernels");
  if (plE_pcall(L, 1, 1)) {
    const char *m = lua_tostring(L, -1);
    *rc = plE_set_error(e, PTXLUA_ERROR, m ? m : "error object is not a string");
    lua_pop(L, 1);
    return NULL;
  }
  plI_module *m = plL_tomodule(L, -1);
  if (!m) {
    lua_pop(L, 1);
    *rc = plE_set_error(e, PTXLUA_ERROR, "ptxlua.build returned no module");
    return NULL;
  }
  *rc = PTXLUA_OK;
  return m;
}

static int anchors_of(int flags) {
  return (flags & PTXLUA_ANCHOR_LOC)        ? PLI_ANCHOR_LOC
         : (flags & PTXLUA_ANCHOR_COMMENTS) ? PLI_ANCHOR_COMMENT
                                            : PLI_ANCHOR_NONE;
}

PTXLUA_API int ptxlua_ptx(ptxlua_engine *e, const char *kernels, int flags, char **out,
                          size_t *len) {
  if (!e || !out) return PTXLUA_MISUSE;
  *out = NULL;
  if (len) *len = 0;
  int rc = plE_check_flags(e, flags, PTXLUA_ANCHOR_COMMENTS | PTXLUA_ANCHOR_LOC);
  if (rc) return rc;
  plI_module *m = build(e, kernels, &rc);
  if (!m) return rc;
  plB_buf b;
  plB_buf_init(&b);
  plI_print_opts o = { anchors_of(flags), NULL, -1 };
  int r = plI_print(m, &o, &b);
  lua_pop(e->L, 1);
  if (r) {
    plB_buf_free(&b);
    return plE_set_error(e, PTXLUA_NOMEM, "out of memory while printing");
  }
  plB_buf_cstr(&b);
  *out = b.p ? b.p : dupstr("");
  if (len) *len = b.n;
  return PTXLUA_OK;
}

PTXLUA_API void ptxlua_free(void *p) {
  free(p);
}

typedef struct {
  const plI_module *m;
  plI_print_opts o;
} wctx;
static int sink(void *ud, const char *s, size_t n) {
  return fwrite(s, 1, n, (FILE *)ud) == n;
}
static int fill_ptx(void *ud, FILE *f) {
  wctx *w = (wctx *)ud;
  return plI_write(w->m, &w->o, sink, f);
}

int plE_write_atomic(const char *path, int (*fill)(void *ud, FILE *f), void *ud, char *err,
                     size_t errlen) {
  /* a device, FIFO or socket (-o /dev/null, -o /dev/stdout) is written in place: renaming a
  ** temporary file over it would replace the device node itself */
  struct stat st;
  if (stat(path, &st) == 0 && !S_ISREG(st.st_mode)) {
    if (S_ISDIR(st.st_mode)) {
      snprintf(err, errlen, "%s: error: is a directory", path);
      return PTXLUA_IO;
    }
    FILE *f = fopen(path, "wb");
    if (!f) {
      snprintf(err, errlen, "%s: error: cannot write: %s", path, strerror(errno));
      return PTXLUA_IO;
    }
    int r = fill(ud, f);
    int werr = ferror(f);
    if (fclose(f) != 0) werr = 1;
    if (r || werr) {
      snprintf(err, errlen, "%s: error: %s", path,
               r == 2 ? "out of memory while printing" : "write failed");
      return r == 2 ? PTXLUA_NOMEM : PTXLUA_IO;
    }
    return PTXLUA_OK;
  }
  size_t n = strlen(path);
  char *tmp = malloc(n + 32);
  if (!tmp) {
    snprintf(err, errlen, "out of memory");
    return PTXLUA_NOMEM;
  }
  snprintf(tmp, n + 32, "%s.tmp.XXXXXX", path);
  int fd = mkstemp(tmp);
  if (fd < 0) {
    snprintf(err, errlen, "%s: error: cannot write: %s", path, strerror(errno));
    free(tmp);
    return PTXLUA_IO;
  }
  FILE *f = fdopen(fd, "wb");
  if (!f) {
    close(fd);
    unlink(tmp);
    free(tmp);
    snprintf(err, errlen, "%s: error: cannot write", path);
    return PTXLUA_IO;
  }
  int r = fill(ud, f);
  int werr = ferror(f);
  if (fclose(f) != 0) werr = 1;
  if (r || werr) {
    unlink(tmp);
    free(tmp);
    snprintf(err, errlen, "%s: error: %s", path,
             r == 2 ? "out of memory while printing" : "write failed");
    return r == 2 ? PTXLUA_NOMEM : PTXLUA_IO;
  }
  chmod(tmp, 0644);
  if (rename(tmp, path) != 0) {
    snprintf(err, errlen, "%s: error: cannot rename into place: %s", path, strerror(errno));
    unlink(tmp);
    free(tmp);
    return PTXLUA_IO;
  }
  free(tmp);
  return PTXLUA_OK;
}

PTXLUA_API int ptxlua_write_ptx(ptxlua_engine *e, const char *kernels, int flags,
                                const char *path) {
  if (!e || !path) return PTXLUA_MISUSE;
  int rc = plE_check_flags(e, flags, PTXLUA_ANCHOR_COMMENTS | PTXLUA_ANCHOR_LOC);
  if (rc) return rc;
  plI_module *m = build(e, kernels, &rc);
  if (!m) return rc;
  wctx w = { m, { anchors_of(flags), NULL, -1 } };
  char err[4400];
  rc = plE_write_atomic(path, fill_ptx, &w, err, sizeof err);
  lua_pop(e->L, 1);
  if (rc) {
    clear_error(e);
    e->errmsg = dupstr(err);
    e->errfile = dupstr(path);
  }
  return rc;
}

PTXLUA_API int ptxlua_emulate(ptxlua_engine *e, const char *kernels, int checks, char **summary) {
  if (!e || !summary) return PTXLUA_MISUSE;
  *summary = NULL;
  clear_error(e);
  if (plE_check_flags(e, checks,
                      PTXLUA_CHECK_RACES | PTXLUA_CHECK_UNINIT_SHARED | PTXLUA_CHECK_UNINIT_REGS))
    return PTXLUA_MISUSE;
  lua_State *L = e->L;
  if (!push_dsl(e)) return plE_set_error(e, PTXLUA_MISUSE, "no script is loaded");
  lua_pop(L, 1);
  lua_getglobal(L, "require");
  lua_pushliteral(L, "ptxlua.emu");
  if (lua_pcall(L, 1, 1, 0)) {
    const char *m = lua_tostring(L, -1);
    int rc = plE_set_error(e, PTXLUA_ERROR, m ? m : "cannot load the emulator");
    lua_pop(L, 1);
    return rc;
  }
  lua_getfield(L, -1, "emulate_all");
  lua_remove(L, -2);
  lua_createtable(L, 0, 4);
  lua_rawgeti(L, LUA_REGISTRYINDEX, e->defines_ref);
  lua_setfield(L, -2, "defines");
  if (e->arch) {
    lua_pushstring(L, e->arch);
    lua_setfield(L, -2, "arch");
  }
  lua_createtable(L, 0, 3);
  lua_pushboolean(L, (checks & PTXLUA_CHECK_RACES) != 0);
  lua_setfield(L, -2, "races");
  lua_pushboolean(L, (checks & PTXLUA_CHECK_UNINIT_SHARED) != 0);
  lua_setfield(L, -2, "uninit_shared");
  lua_pushboolean(L, (checks & PTXLUA_CHECK_UNINIT_REGS) != 0);
  lua_setfield(L, -2, "uninit_regs");
  lua_setfield(L, -2, "checks");
  if (e->emu_limit) { /* limit = N, or false for none; absent: the default */
    if (e->emu_limit == PTXLUA_LIMIT_NONE)
      lua_pushboolean(L, 0);
    else
      lua_pushnumber(L, (lua_Number)e->emu_limit);
    lua_setfield(L, -2, "limit");
  }
  if (e->emu_clc != PTXLUA_CLC_ALL) {
    lua_pushstring(L, e->emu_clc == PTXLUA_CLC_NONE ? "none" : "alternate");
    lua_setfield(L, -2, "clc");
  }
  int rc = push_kernel_list(e, kernels);
  if (rc) {
    lua_pop(L, 2);
    return rc;
  }
  lua_setfield(L, -2, "kernels");
  if (plE_pcall(L, 1, 2)) {
    const char *m = lua_tostring(L, -1);
    rc = plE_set_error(e, PTXLUA_ERROR, m ? m : "error object is not a string");
    lua_pop(L, 1);
    return rc;
  }
  *summary = dupstr(lua_tostring(L, -2));
  /* a kernel that does not match its reference: the summary stays, the call fails with the
  ** reason */
  const char *mismatch = lua_tostring(L, -1);
  rc = *summary ? PTXLUA_OK : plE_set_error(e, PTXLUA_NOMEM, "out of memory");
  if (rc == PTXLUA_OK && mismatch) rc = plE_set_error(e, PTXLUA_ERROR, mismatch);
  lua_pop(L, 2);
  return rc;
}

PTXLUA_API int ptxlua_fwrite_ptx(ptxlua_engine *e, const char *kernels, int flags, FILE *f) {
  if (!e || !f) return PTXLUA_MISUSE;
  int rc = plE_check_flags(e, flags, PTXLUA_ANCHOR_COMMENTS | PTXLUA_ANCHOR_LOC);
  if (rc) return rc;
  plI_module *m = build(e, kernels, &rc);
  if (!m) return rc;
  plI_print_opts o = { anchors_of(flags), NULL, -1 };
  int r = plI_write(m, &o, sink, f);
  lua_pop(e->L, 1);
  if (r == 0 && fflush(f) != 0) r = 3;
  if (r)
    return plE_set_error(e, r == 2 ? PTXLUA_NOMEM : PTXLUA_IO,
                         r == 2 ? "out of memory while printing" : "writing the PTX failed");
  return PTXLUA_OK;
}

PTXLUA_API const char *ptxlua_errmsg(ptxlua_engine *e) {
  return e && e->errmsg ? e->errmsg : (e ? "no error" : "out of memory");
}
PTXLUA_API const char *ptxlua_errfile(ptxlua_engine *e) {
  return e ? e->errfile : NULL;
}
PTXLUA_API int ptxlua_errline(ptxlua_engine *e) {
  return e ? e->errline : 0;
}

void plE_clear_error(ptxlua_engine *e) {
  if (e && (e->errmsg || e->errfile))
    clear_error(e);
  else if (e)
    e->errline = 0;
}
ptxlua_device **plE_devices(ptxlua_engine *e) {
  return &e->devices;
}

/* for check.c (ptxlua_check / ptxlua_compile): the module of the kernels, left on the stack */
plI_module *plE_build(ptxlua_engine *e, const char *kernels, int *rc) {
  return build(e, kernels, rc);
}
int plE_defines_ref(ptxlua_engine *e) {
  return e->defines_ref;
}
void plE_set_resources(ptxlua_engine *e, ptxlua_resources *r, char *names, int n) {
  free(e->res);
  free(e->resnames);
  e->res = r;
  e->resnames = names;
  e->nres = n;
}
PTXLUA_API int ptxlua_resource_count(ptxlua_engine *e) {
  return e ? e->nres : 0;
}
PTXLUA_API const ptxlua_resources *ptxlua_resource(ptxlua_engine *e, int i) {
  return e && i >= 0 && i < e->nres ? &e->res[i] : NULL;
}
