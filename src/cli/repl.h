/* repl.h -- the interactive session of the ptxlua command (src/cli/repl.c). */
#ifndef PL_REPL_H
#define PL_REPL_H

#include "ptxlua.h"

/* read, evaluate, print until end of input; 0 at EOF, 1 when the DSL cannot be loaded */
int plM_repl(ptxlua_engine *e);

#endif
