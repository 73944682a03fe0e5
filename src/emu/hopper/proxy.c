/* hopper/proxy.c -- the async proxy's view of shared memory: generic writes a copy or wgmma
** reads after. */
#include "state.h"
#include "hooks.h"
#include "hopper.h"
#include <string.h>

/* ---- the async proxy's view of shared memory
** ------------------------------------------------------ */
/* pw names a writer by its CTA's rank and its thread, so that a store through shared::cluster is
** remembered in the CTA it lands in; the fence that clears it is the writer's (fence.proxy.async
** orders the executing thread's own accesses), and for another CTA's bytes one that covers
** shared::cluster: a .shared::cta fence does not reach memory outside the executing CTA */
static uint32_t pw_of(plX_emu *e, const plX_cta *wc, uint32_t tid) {
  return wc->rank * e->nthreads + tid + 1;
}

void plX__hop_generic_write(plX_emu *e, const plX_ins *in, uint32_t off, uint32_t n, uint32_t tid) {
  plX_cta_hop *h = &e->C->h;
  uint32_t f = h->fences[tid], who = pw_of(e, e->C, tid);
  for (uint32_t i = off; i < off + n; i++) {
    h->pw[i] = who;
    h->ps[i] = f;
    h->psw[i] = 0;
  }
  plX__h_pw_mark(h, off, n);
  if (h->bs.n) plX__h_bst_overwrite(e, in, e->C, off, n, tid);
}

void plX__hop_remote_write(plX_emu *e, const plX_ins *in, plX_cta *c, uint32_t off, uint32_t n,
                           uint32_t tid) {
  plX_cta_hop *h = &c->h;
  uint32_t f = e->C->h.cfences[tid], who = pw_of(e, e->C, tid);
  for (uint32_t i = off; i < off + n; i++) {
    h->pw[i] = who;
    h->ps[i] = f;
    h->psw[i] = 0;
  }
  plX__h_pw_mark(h, off, n);
  if (h->bs.n) plX__h_bst_overwrite(e, in, c, off, n, tid);
}

/* a barrier, mbarrier phase or cluster barrier completed: a store is ordered before the async
** proxy's reads after it only if its writer's fence.proxy.async came before it
** (plX__h_proxy_read). Every CTA of the cluster takes its snapshot (lenient: the barrier that
** completed need not be the one ordering the two) */
/* bar.warp.sync by lanes `lanes` of warp w of the executing CTA: it orders their memory
** accesses among themselves (the ISA: lanes may store, bar.warp.sync, then read each other's
** values), so their fences so far count as before it, as a CTA barrier's do for all threads */
void plX__hop_fence_snap_lanes(plX_emu *e, uint32_t w, uint32_t lanes) {
  plX_cta *c = e->C;
  if (!c->h.fsnap) return;
  for (; lanes; lanes &= lanes - 1) {
    uint32_t tid = w * 32 + (uint32_t)__builtin_ctz(lanes);
    if (tid >= e->nthreads) continue;
    c->h.fsnap[tid] = c->h.fences[tid];
    c->h.cfsnap[tid] = c->h.cfences[tid];
  }
}

void plX__hop_fence_snap(plX_emu *e) {
  for (uint32_t r = 0; r < (e->H.ncl ? e->H.ncl : 1); r++) {
    plX_cta *c = e->H.ncl ? &e->ctas[r] : e->C;
    if (!c->h.fsnap) continue;
    memcpy(c->h.fsnap, c->h.fences, e->nthreads * sizeof *c->h.fsnap);
    memcpy(c->h.cfsnap, c->h.cfences, e->nthreads * sizeof *c->h.cfsnap);
  }
}
