/* exec.h -- one instruction for the active lanes of a warp (exec.c). */
#ifndef PL_EMU_EXEC_H
#define PL_EMU_EXEC_H

#include "state.h"

/* one instruction for the active lanes (em: after the guard; am: before it) */
int plX__exec(plX_emu *e, plX_warp *w, plX_ins *in, uint32_t am, uint32_t em);
/* a .sync.aligned instruction: every lane of the warp must execute it; 0, or the error */
int plX__full_warp(plX_emu *e, plX_ins *in, plX_warp *w, uint32_t em);
/* call: lanes em push pc + 1 and pass their arguments; ret: lanes em return (their results land in
** the call's registers and their pc is set), and the lanes with no caller (a kernel's ret) are
** returned */
int plX__call(plX_emu *e, plX_warp *w, const plX_ins *in, uint32_t pc, uint32_t em);
uint32_t plX__ret(plX_emu *e, plX_warp *w, uint32_t em);
/* a call of vprintf (printf): each lane of em formats and prints to stdout, lanes ascending */
int plX__vprintf(plX_emu *e, plX_warp *w, const plX_ins *in, uint32_t em);
/* land thread tid's cp.async copies of groups below limit */
void plX__cp_complete(plX_emu *e, uint32_t tid, uint32_t limit);

#endif
