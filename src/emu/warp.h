/* warp.h -- the warp loop (warp.c). */
#ifndef PL_EMU_WARP_H
#define PL_EMU_WARP_H

#include "state.h"

/* run warp w until it blocks or exits; 0 ok, else an error was reported */
int plX__run_warp(plX_emu *e, plX_warp *w);

#endif
