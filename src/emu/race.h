/* race.h -- the races check on shared and global memory (race.c). */
#ifndef PL_EMU_RACE_H
#define PL_EMU_RACE_H

#include "state.h"

/* the races check on global memory: a plain access (write 0/1) of n bytes at offset o of buffer b
** by thread tid of the executing CTA, or (write 2) an atomic's (compared with plain accesses
** only), or (write 3) a TMA or bulk store's, which nothing orders until its bulk group completes
** (plX__global_done), or (write 5) a TMA or bulk load's, read as plain reads by the issuing thread
** and through the async proxy (a generic store needs a fence.proxy.async before it); 0, or the
** error */
int plX__global_access(plX_emu *e, const plX_ins *in, plX_buf *b, uint64_t o, uint32_t n,
                       uint32_t tid, int write);
/* a bulk store of e->C's to [lo, hi) completed */
void plX__global_done(plX_emu *e, uint64_t lo, uint64_t hi);
/* an access of e->C's own shared memory: the uninit-shared and races checks, the Hopper tracking */
void plX__shared_access(plX_emu *e, const plX_ins *in, uint32_t off, uint32_t n, uint32_t tid,
                        int write);
/* the races check on shared bytes [off, off + n) of CTA c of the cluster (write: 0 read, 1 write,
** 2 atomic); may report */
void plX__race_check(plX_emu *e, const plX_ins *in, plX_cta *c, uint32_t off, uint32_t n,
                     uint32_t tid, int write);
/* the races check: make the reports held back for these lanes of w (of e->C), at their exit or a
** barrier */
int plX__race_flush(plX_emu *e, const plX_warp *w, uint32_t lanes);
/* the end of a cluster's run: make every report still held back; the status */
int plX__race_held(plX_emu *e);
/* room for a held-back report per thread of the cluster (nc threads); 0, or -1 out of memory */
int plX__race_hold_room(plX_emu *e, uint32_t nc);
/* forget the reports held back (a new run, or the emulator freed) */
void plX__race_reset(plX_emu *e);

#endif
