/* decode.h -- the kernel's statements into internal instructions (decode.c). */
#ifndef PL_EMU_DECODE_H
#define PL_EMU_DECODE_H

#include "state.h"

/* e->xf from e's kernel and the functions it calls; 0, or the error */
int plX__decode(plX_emu *e);

#endif
