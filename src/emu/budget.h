/* budget.h -- what the scheduler (emu.c) offers the warp loop: the budget and SIGINT. */
#ifndef PL_EMU_BUDGET_H
#define PL_EMU_BUDGET_H

#include <signal.h>
#include "state.h"

/* set by SIGINT (plX_interrupt): every warp loop stops at its next instruction */
extern volatile sig_atomic_t plX__sigint;
/* the budget is spent or SIGINT came (interrupted): the report naming, for each warp still running,
** where it is, its threads, its CTA and the instructions it ran; at stmt (the executing one) */
int plX__stopped(plX_emu *e, uint32_t stmt, int interrupted);

#endif
