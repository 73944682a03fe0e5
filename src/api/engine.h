/* engine.h -- internals shared by the library's engine and the ptxlua executable. */
#ifndef PL_ENGINE_H
#define PL_ENGINE_H

#include <stdio.h>
#include <lua.h>
#include "ptxlua.h"
#include "ir.h"
#include "open.h"

lua_State *plE_lua(ptxlua_engine *e);
/* normalizes to file:line: error: */
int plE_set_error(ptxlua_engine *e, int code, const char *msg);
/* lua_pcall with the engine's message handler: an error value that is not a string becomes one at
** the line of the frame that raised it (with the value's type and text) */
int plE_pcall(lua_State *L, int nargs, int nresults);
/* flags within `allowed` (each entry point its own): PTXLUA_OK, else PTXLUA_MISUSE with the
** message set */
int plE_check_flags(ptxlua_engine *e, int flags, int allowed);
/* leaves the module on the stack */
plI_module *plE_build(ptxlua_engine *e, const char *kernels, int *rc);
int plE_defines_ref(ptxlua_engine *e);
uint64_t plE_emu_limit(ptxlua_engine *e); /* ptxlua_set_emu_limit's value */
int plE_emu_clc(ptxlua_engine *e);        /* ptxlua_set_emu_clc's mode (PTXLUA_CLC_*) */
/* takes ownership */
void plE_set_resources(ptxlua_engine *e, ptxlua_resources *r, char *names, int n);
void plE_clear_error(ptxlua_engine *e);
ptxlua_device **plE_devices(ptxlua_engine *e); /* the devices open on the engine (launch.c) */
/* launch.c: close them, their buffers and kernels */
void plE_close_devices(ptxlua_engine *e);
int plE_write_atomic(const char *path, int (*fill)(void *ud, FILE *f), void *ud, char *err,
                     size_t errlen);

#endif
