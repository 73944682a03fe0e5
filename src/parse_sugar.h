/* parse_sugar.h -- `ptxlua --from-ptx FILE.ptx --sugar`: a parsed module -> an editable DSL script
** (lua/ptxlua/sugar.lua) that prints the file back byte for byte, checked by running it. */
#ifndef PL_PARSE_SUGAR_H
#define PL_PARSE_SUGAR_H

#include "ir.h"

/* runs a script (chunk name, text) and returns its PTX in ptx (0), or its error in err (nonzero);
** given by the executable, which embeds the Lua engine (the core library does not) */
typedef int (*plR_runner)(const char *chunk, const char *text, size_t n, plU_buf *ptx, plU_buf *err);
void plR_set_runner(plR_runner run);

/* the sugared script for m (src: the file's text, for the check); notes ("FILE:line: note: kept
** verbatim: why" lines) into notes; chunk: the name the script runs under. 0 ok. */
int plR_to_sugar(const plI_module *m, const char *path, const char *name, const char *chunk,
                 plU_buf *out, plU_buf *notes);

#endif
