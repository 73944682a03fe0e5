/* bwhooks.h -- the Blackwell families (src/emu/blackwell/) as the core emulator sees them: the one
** door through which emu.c, exec.c, warp.c, race.c, mem.c and the Hopper families reach tensor
** memory and tcgen05. */
#ifndef PL_EMU_BWHOOKS_H
#define PL_EMU_BWHOOKS_H

#include "state.h"

/* a tcgen05 instruction (X_TC*) for lanes em; 0 ok */
int plX__bw_exec(plX_emu *e, plX_warp *w, plX_ins *in, uint32_t em);
int plX__bw_setup(plX_emu *e, plX_cta *c); /* a CTA starts (state only if the kernel needs it) */
void plX__bw_free(plX_cta *c);
/* every thread of the cluster exited: a live allocation is an error */
int plX__bw_cta_end(plX_emu *e, plX_cta *c);
/* warp w of e->C arrives on mbarrier m of CTA c (before the arrival is counted): what it knows of
** tcgen05 completions goes with the phase */
void plX__bw_arrive(plX_emu *e, plX_warp *w, plX_cta *c, const plX_mbar *m);
/* warp w of c completed a wait (at pc) on m: it learns what the arrivals of the completed phases
** knew */
void plX__bw_acquire(plX_emu *e, plX_warp *w, plX_cta *c, const plX_mbar *m, uint32_t pc);
/* a CTA barrier of c completed: its warps share what they know */
void plX__bw_bar_sync(plX_emu *e, plX_cta *c);
/* a barrier.cluster completed: every warp of the cluster shares what it knows */
void plX__bw_cluster_sync(plX_emu *e);
/* thread tid of e->C writes shared bytes [off, off + n) of CTA c (who: the message's subject): a
** tcgen05.mma whose completion the writer does not know still reads some; 1 after reporting */
int plX__bw_smem_write(plX_emu *e, uint32_t stmt, plX_cta *c, uint32_t off, uint32_t n,
                       uint32_t tid, const char *who);

#endif
