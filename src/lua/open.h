/* open.h -- the ptxlua.core Lua module: its opener and the doors the engine uses. */
#ifndef PL_LUA_OPEN_H
#define PL_LUA_OPEN_H

#include <lua.h>
#include "ir.h"

/* the string at idx, a Lua error message, with a chunk name Lua cut to its 60 characters
** ("...dir/k.lua:4: ...") replaced by the whole path, found on the stack (the raising frame is
** still there in a message handler), or by path when it ends the same way (a syntax error of
** the chunk loaded from path: no frame of it yet); path may be NULL. Pushes the result. */
void plL_expand_chunk(lua_State *L, int idx, const char *path);
int luaopen_ptxlua_core(lua_State *L);
plI_module *plL_tomodule(lua_State *L, int idx); /* the IR of a core module userdata, or NULL */
/* the doors opened into the core table at index `core` (core_emu.c, core_smem.c, core_cuda.c) */
int plL_open_emu(lua_State *L, int core);
int plL_open_smem(lua_State *L, int core);
int plL_open_rt(lua_State *L, int core);

#endif
