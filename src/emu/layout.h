/* layout.h -- a kernel's state spaces laid out, and where copies into shared memory may write
** (layout.c). */
#ifndef PL_EMU_LAYOUT_H
#define PL_EMU_LAYOUT_H

#include "state.h"

/* the variables and the parameter block of e's kernel; 0, or the error */
int plX__layout(plX_emu *e);
/* the regions of the static .shared variables (after plX__layout) */
void plX__var_regions(plX_emu *e);
int plX__var_addr(plX_emu *e, uint32_t name, uint8_t *space, uint64_t *addr);
/* a copy by lane l of w writing n bytes into shared memory from offset off (the same in each
** destination CTA) must stay inside the allocation of a plan (one stage of a staged one) or the
** variable where it starts (plX_add_region); 0, or the error. what: the copy's size, as it came
** about ("a box of 64 x 128 2-byte elements"), for the message */
int plX__region_check(plX_emu *e, const plX_ins *in, plX_warp *w, int l, uint32_t off, uint32_t n,
                      const char *what);

#endif
