/* repl.c -- the interactive ptxlua session: read lines, evaluate them in the engine's Lua state.
** Line editing and history come from GNU readline or libedit, loaded at run time with dlopen (never
** a build dependency); without either, or when stdin is not a terminal, plain fgets. */
#include <lua.h>
#include <lauxlib.h>
#include <dlfcn.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>
#include "engine.h"
#include "repl.h"

typedef char *(*readline_fn)(const char *);
typedef int (*add_history_fn)(const char *);

typedef struct {
  void *lib;
  readline_fn readline;
  add_history_fn add_history;
  int tty;
} reader;

/* the first line-editing library that loads and has readline + add_history */
static void reader_open(reader *r) {
  static const char *const LIBS[] = { "libreadline.so.8", "libedit.so.2", "libedit.so.0", NULL };
  memset(r, 0, sizeof *r);
  r->tty = isatty(0) && isatty(1);
  if (!r->tty || getenv("PTXLUA_NO_READLINE")) return;
  for (int i = 0; LIBS[i]; i++) {
    void *h = dlopen(LIBS[i], RTLD_NOW | RTLD_LOCAL);
    if (!h) continue;
    readline_fn rl = (readline_fn)(size_t)dlsym(h, "readline");
    add_history_fn ah = (add_history_fn)(size_t)dlsym(h, "add_history");
    if (rl && ah) {
      r->lib = h;
      r->readline = rl;
      r->add_history = ah;
      return;
    }
    dlclose(h);
  }
}

/* one line without its newline, malloc'ed; NULL at end of input */
static char *reader_line(reader *r, const char *prompt) {
  if (r->readline) return r->readline(prompt);
  if (r->tty) {
    fputs(prompt, stdout);
    fflush(stdout);
  }
  size_t cap = 256, n = 0;
  char *s = malloc(cap);
  if (!s) return NULL;
  int c;
  while ((c = getchar()) != EOF && c != '\n') {
    if (n + 1 >= cap) {
      char *t = realloc(s, cap *= 2);
      if (!t) {
        free(s);
        return NULL;
      }
      s = t;
    }
    s[n++] = (char)c;
  }
  if (c == EOF && n == 0) {
    free(s);
    return NULL;
  }
  if (n && s[n - 1] == '\r') n--;
  s[n] = 0;
  return s;
}

static void report(ptxlua_engine *e, lua_State *L) {
  const char *m = lua_tostring(L, -1);
  plE_set_error(e, PTXLUA_ERROR, m ? m : "error object is not a string");
  lua_pop(L, 1);
  fflush(stdout);
  fprintf(stderr, "%s\n", ptxlua_errmsg(e));
  fflush(stderr);
}

/* ctx.check(kernels, arch) -> report | nil, error (ptxlua_check on this engine) */
static int l_check(lua_State *L) {
  ptxlua_engine *e = (ptxlua_engine *)lua_touserdata(L, lua_upvalueindex(1));
  const char *kernels = luaL_optstring(L, 1, NULL);
  const char *arch = luaL_optstring(L, 2, NULL);
  if (ptxlua_set_arch(e, arch)) {
    lua_pushnil(L);
    lua_pushstring(L, ptxlua_errmsg(e));
    return 2;
  }
  char *rep = NULL;
  int rc = ptxlua_check(e, kernels && *kernels ? kernels : NULL, 0, &rep);
  ptxlua_set_arch(e, NULL);
  if (rep)
    lua_pushstring(L, rep);
  else
    lua_pushnil(L);
  ptxlua_free(rep);
  if (rc) {
    lua_pushstring(L, ptxlua_errmsg(e));
    return 2;
  }
  return 1;
}

/* require "ptxlua.repl", hand it the context, keep it as the global `repl`; `ptx` = the DSL */
static int setup(ptxlua_engine *e, lua_State *L) {
  int rc = ptxlua_load_string(e, "repl", "", 0); /* loads the DSL (package.path, require) */
  if (rc) {
    fprintf(stderr, "%s\n", ptxlua_errmsg(e));
    return rc;
  }
  lua_getglobal(L, "require");
  lua_pushliteral(L, "ptxlua");
  if (lua_pcall(L, 1, 1, 0)) {
    report(e, L);
    return PTXLUA_ERROR;
  }
  lua_setglobal(L, "ptx");
  lua_getglobal(L, "require");
  lua_pushliteral(L, "ptxlua.repl");
  if (lua_pcall(L, 1, 1, 0)) {
    report(e, L);
    return PTXLUA_ERROR;
  }
  lua_getfield(L, -1, "init");
  lua_createtable(L, 0, 2);
  lua_rawgeti(L, LUA_REGISTRYINDEX, plE_defines_ref(e));
  lua_setfield(L, -2, "defines");
  lua_pushlightuserdata(L, e);
  lua_pushcclosure(L, l_check, 1);
  lua_setfield(L, -2, "check");
  if (lua_pcall(L, 1, 0, 0)) {
    report(e, L);
    lua_pop(L, 1);
    return PTXLUA_ERROR;
  }
  lua_setglobal(L, "repl");
  return PTXLUA_OK;
}

/* call repl.<fn> with the n values on top of the stack (protected) */
static void call_repl(ptxlua_engine *e, lua_State *L, const char *fn, int n) {
  lua_getglobal(L, "repl");
  lua_getfield(L, -1, fn);
  lua_remove(L, -2);
  lua_insert(L, -(n + 1));
  if (plE_pcall(L, n, 0)) report(e, L);
}

/* is the chunk unfinished (a syntax error at <eof>)? pops the message when so */
static int incomplete(lua_State *L) {
  size_t n;
  const char *m = lua_tolstring(L, -1, &n);
  if (m && ((n >= 7 && strcmp(m + n - 7, "'<eof>'") == 0) ||
            (n >= 5 && strcmp(m + n - 5, "<eof>") == 0))) {
    lua_pop(L, 1);
    return 1;
  }
  return 0;
}

/* evaluate one complete chunk: "return <text>" first, then <text> as statements.
** Returns 1 when more lines are needed. */
static int eval(ptxlua_engine *e, lua_State *L, const char *text, size_t len) {
  char *ret = malloc(len + 8);
  if (!ret) {
    fprintf(stderr, "ptxlua: out of memory\n");
    return 0;
  }
  memcpy(ret, "return ", 7);
  memcpy(ret + 7, text, len);
  int st = luaL_loadbuffer(L, ret, len + 7, "=stdin");
  free(ret);
  if (st) {
    lua_pop(L, 1);
    st = luaL_loadbuffer(L, text, len, "=stdin");
    if (st == LUA_ERRSYNTAX && incomplete(L)) return 1;
    if (st) {
      report(e, L);
      return 0;
    }
  }
  int base = lua_gettop(L) - 1;
  if (plE_pcall(L, 0, LUA_MULTRET)) {
    report(e, L);
    return 0;
  }
  int n = lua_gettop(L) - base;
  if (n > 0) call_repl(e, L, "print_values", n);
  return 0;
}

int plM_repl(ptxlua_engine *e) {
  lua_State *L = plE_lua(e);
  if (!L) return 1;
  if (setup(e, L)) return 1;
  reader r;
  reader_open(&r);
  if (r.tty)
    printf("ptxlua %s -- Lua with the DSL loaded as `ptx`; :help for commands, Ctrl-D to quit\n",
           ptxlua_version());
  char *buf = NULL;
  size_t blen = 0;
  for (;;) {
    char *line = reader_line(&r, blen ? "...> " : "ptx> ");
    if (!line) break;
    if (!blen && line[0] == ':') { /* a command */
      if (r.add_history) r.add_history(line);
      lua_pushstring(L, line);
      call_repl(e, L, "command", 1);
      free(line);
      fflush(stdout);
      continue;
    }
    size_t ln = strlen(line);
    if (!blen && ln == 0) {
      free(line);
      continue;
    }
    char *nb = realloc(buf, blen + ln + 2);
    if (!nb) {
      free(line);
      break;
    }
    buf = nb;
    if (blen) buf[blen++] = '\n';
    memcpy(buf + blen, line, ln);
    blen += ln;
    buf[blen] = 0;
    free(line);
    if (eval(e, L, buf, blen)) continue; /* unfinished: read on */
    if (r.add_history) r.add_history(buf);
    blen = 0;
    lua_settop(L, 0);
    fflush(stdout);
  }
  if (blen) { /* input ended inside a chunk: say why it did not run */
    if (luaL_loadbuffer(L, buf, blen, "=stdin")) report(e, L);
  }
  free(buf);
  if (r.tty) putchar('\n');
  fflush(stdout);
  return 0;
}
