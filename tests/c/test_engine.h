/* test_engine.h -- for the C tests: an engine whose Lua files are this tree's ($PTXLUA_ROOT/lua,
** as ctest sets it; else the path the build was configured with), or NULL when it cannot open. */
#ifndef PTXLUA_TEST_ENGINE_H
#define PTXLUA_TEST_ENGINE_H
#include <stdio.h>
#include <stdlib.h>
#include "ptxlua.h"

static ptxlua_engine *test_engine(void) {
  ptxlua_engine *e = ptxlua_open();
  const char *root = getenv("PTXLUA_ROOT");
  if (e && root) {
    char dir[4096];
    snprintf(dir, sizeof dir, "%s/lua", root);
    ptxlua_set_lua_dir(e, dir);
  }
  return e;
}
#endif
