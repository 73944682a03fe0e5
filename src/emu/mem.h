/* mem.h -- device memory and the memory accesses of one thread (mem.c). */
#ifndef PL_EMU_MEM_H
#define PL_EMU_MEM_H

#include "state.h"

plX_buf *plX__find(plX_mem *m, uint64_t addr, int32_t *cache);
void plX__describe_addr(plX_emu *e, plB_buf *b, uint64_t addr, uint64_t n);
/* a pointer to n bytes at addr in `space` for thread `tid` (CTA-linear), NULL after reporting */
/* write: 0 a read, 1 a write, 2 an atomic, 3 a bulk copy's bounds (the caller checks its bytes), 4
** the bounds of a bulk copy's global source or of a prefetch (read-only; the caller checks the
** bytes a load reads) */
uint8_t *plX__mem(plX_emu *e, const plX_ins *in, int space, uint64_t addr, uint32_t n, uint32_t tid,
                  int write);
/* an access by thread tid of e->C (at stmt) to shared byte off of CTA c of its cluster: 0
** while c runs; after c exited (every thread of it), reported (what: the access, e.g.
** "writes"), the error */
int plX__exited(plX_emu *e, uint32_t stmt, plX_cta *c, uint32_t off, uint32_t tid,
                const char *what);
/* the last threads of e->C exited: an access of another CTA to its shared memory that nothing
** ordered before (no barrier.cluster completed since, no mbarrier wait of e->C's) is reported */
int plX__exit_check(plX_emu *e);

/* n bytes at a for lane l of w: the common cases inline, the rest (and every error) in plX__mem */
static inline uint8_t *lane_mem(plX_emu *e, plX_ins *in, plX_warp *w, int l, uint64_t a, uint32_t n,
                                int write) {
  if (in->space == XS_GLOBAL && in->cache >= 0 && !e->H.gst && !e->gsync && !(a & (n - 1))) {
    plX_buf *b = &e->mem->b[in->cache];
    uint64_t o = a - b->addr;
    if (o < b->size && n <= b->size - o && !(write && b->ro)) return b->p + o;
  } else if (in->space == XS_SHARED && !e->checks && !(a & (n - 1)) && a + n <= e->smem_size) {
    return e->C->smem + a;
  }
  return plX__mem(e, in, in->space, a, n, (uint32_t)w->idx * 32 + (uint32_t)l, write);
}

#endif
