/* hooks.h -- the Hopper families (src/emu/hopper/) as the core emulator sees them: the one door
** through which emu.c, mem.c, race.c, decode.c, warp.c and exec.c reach mbarriers, TMA and bulk
** copies, wgmma, clusters, setmaxnreg and the async-proxy checks. */
#ifndef PL_EMU_HOOKS_H
#define PL_EMU_HOOKS_H

#include "state.h"

/* an instruction of the Hopper families for lanes em (am: before the guard); 0 ok */
int plX__hop_exec(plX_emu *e, plX_warp *w, plX_ins *in, uint32_t pc, uint32_t am, uint32_t em);
/* mbarrier waits and barrier.cluster: the lanes that block in *blocked; 0 ok */
int plX__hop_wait(plX_emu *e, plX_warp *w, plX_ins *in, uint32_t pc, uint32_t em,
                  uint32_t *blocked);
int plX__hop_setup(plX_emu *e, plX_cta *c); /* a CTA starts */
void plX__hop_scan(plX_emu *e);             /* which Hopper state the kernel needs (once) */
void plX__hop_free(plX_cta *c);
/* land the copies in flight: 1 if any landed, -1 error */
int plX__hop_flush(plX_emu *e);
/* barrier.cluster completes when exits leave only arrivals */
int plX__hop_cluster_check(plX_emu *e);
/* the mbarrier/cluster part of a report */
int plX__hop_deadlock(plX_emu *e, plB_buf *m, plX_warp *W, int lane);
/* at a deadlock: a phase whose bytes differ from its expect_tx; 1 if reported */
int plX__hop_tx_stuck(plX_emu *e);
/* accumulator read before wait_group */
int plX__hop_accum_check(plX_emu *e, plX_warp *w, plX_ins *in);
/* may report */
void plX__hop_generic_write(plX_emu *e, const plX_ins *in, uint32_t off, uint32_t n, uint32_t tid);
/* a generic store into CTA c != e->C */
void plX__hop_remote_write(plX_emu *e, const plX_ins *in, plX_cta *c, uint32_t off, uint32_t n,
                           uint32_t tid);
/* a global read while bulk stores are in flight; 1 after reporting */
int plX__hop_gload(plX_emu *e, const plX_ins *in, uint64_t a, uint32_t n, uint32_t tid);
/* 1 after reporting; warp: the writer's in c, -1 */
int plX__hop_wg_clobber(plX_emu *e, uint32_t stmt, plX_cta *c, uint32_t off, uint32_t n, int warp,
                        const char *who);
/* a CTA barrier completed: its warps are ordered after the retired wgmma reads */
void plX__hop_bar_sync(plX_cta *c);
/* the registers an instruction accesses (wgmma.fence check) */
void plX__hop_wg_touch(plX_emu *e, plX_warp *w, const plX_ins *in);
/* a barrier of the cluster completed: the fences before it (proxy check) */
void plX__hop_fence_snap(plX_emu *e);
/* bar.warp.sync of lanes `lanes` of warp w: their fences so far precede it (for their async-proxy
** reads after it) */
void plX__hop_fence_snap_lanes(plX_emu *e, uint32_t w, uint32_t lanes);
/* a read of CTA c's shared bytes [lo, hi) while a copy still writes some of them: the error (lane
** l of w, -1 the warp) */
int plX__hop_inflight_read(plX_emu *e, const plX_ins *in, plX_warp *w, int l, const plX_cta *c,
                           uint32_t lo, uint32_t hi, const char *what);
/* shared::cluster address -> CTA, offset */
int plX__hop_smem(plX_emu *e, uint64_t a, plX_cta **c, uint32_t *off);

#endif
