/* mma.h -- warp-collective matrix instructions (mma.c). */
#ifndef PL_EMU_MMA_H
#define PL_EMU_MMA_H

#include "state.h"

int plX__ldmatrix(plX_emu *e, plX_ins *in, plX_warp *w, uint32_t em);
int plX__stmatrix(plX_emu *e, plX_ins *in, plX_warp *w, uint32_t em);
int plX__mma(plX_emu *e, plX_ins *in, plX_warp *w, uint32_t em);
/* wmma: shapes (plX_ins.sub2), the registers of a fragment (mat 0 A, 1 B, 2 C/D) of element type t
** (0: no such fragment), and the instruction */
enum { XWM_M16N16K16 = 1, XWM_M32N8K16, XWM_M8N32K16, XWM_M16N16K8 };
int plX__wmma_regs(int mat, int shape, int t);
int plX__wmma(plX_emu *e, plX_ins *in, plX_warp *w, uint32_t em);

#endif
