/* engine.h -- internals shared by the library's engine and the ptxlua executable. */
#ifndef PL_ENGINE_H
#define PL_ENGINE_H

#include <stdio.h>
#include <lua.h>
#include "ptxlua.h"
#include "ir.h"

lua_State *plE_lua(ptxlua_engine *e);
int plE_set_error(ptxlua_engine *e, int code, const char *msg); /* normalizes to file:line: error: */
/* lua_pcall with the engine's message handler: an error value that is not a string becomes one at
** the line of the frame that raised it (with the value's type and text) */
int plE_pcall(lua_State *L, int nargs, int nresults);
/* the string at idx, a Lua error message, with a chunk name Lua cut to its 60 characters
** ("...dir/k.lua:4: ...") replaced by the whole path, found on the stack (the raising frame is
** still there in a message handler), or by path when it ends the same way (a syntax error of
** the chunk loaded from path: no frame of it yet); path may be NULL. Pushes the result. */
void plL_expand_chunk(lua_State *L, int idx, const char *path);   /* lbind.c */
/* flags within `allowed` (each entry point its own): PTXLUA_OK, else PTXLUA_MISUSE with the message set */
int plE_check_flags(ptxlua_engine *e, int flags, int allowed);
int luaopen_ptxlua_core(lua_State *L);
plI_module *plL_tomodule(lua_State *L, int idx);  /* the IR of a core module userdata, or NULL */
plI_module *plE_build(ptxlua_engine *e, const char *kernels, int *rc);  /* leaves the module on the stack */
int plE_defines_ref(ptxlua_engine *e);
uint64_t plE_emu_limit(ptxlua_engine *e);        /* ptxlua_set_emu_limit's value */
void plE_set_resources(ptxlua_engine *e, ptxlua_resources *r, char *names, int n);  /* takes ownership */
void plE_clear_error(ptxlua_engine *e);
ptxlua_device **plE_devices(ptxlua_engine *e);   /* the devices open on the engine (launch.c) */
void plK_close_all(ptxlua_engine *e);            /* launch.c: close them, their buffers and kernels */
int plE_write_atomic(const char *path, int (*fill)(void *ud, FILE *f), void *ud, char *err, size_t errlen);

#endif
