/* blackwell/clc.c -- cluster launch control: clusterlaunchcontrol.try_cancel takes the next
** cluster of the launch that has not started (emu.c's grid walk then skips it) and writes a
** response through the async proxy; clusterlaunchcontrol.query_cancel decodes one.
**
** The response is the emulator's own 16 bytes (the hardware's encoding is opaque):
**   word 0   0xC1C00000 | (the try_cancel's pc, 19 bits) << 1 | canceled
**   word 1-3 the ctaid x, y, z of the canceled cluster's first CTA (0xffffffff after a failure)
** It travels as a copy in flight (hopper/inflight.c) into the CTA's shared memory (every CTA of
** the cluster with .multicast::cluster::all), landing with complete_tx of 16 bytes on the
** mbarrier at the same offset: a read of it before a wait has seen it land is reported as for a
** TMA load, and a value no try_cancel wrote does not decode. */
#include "state.h"
#include "fail.h"
#include "hooks.h"
#include "hopper.h"
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#define CLC_MAGIC      0xC1C00000u
#define CLC_MAGIC_MASK 0xfff00000u
#define CLC_PC_NONE    0x7ffffu /* a pc beyond 19 bits: not recorded */

void plX_set_clc(plX_emu *e, int mode) {
  e->H.clc_mode = mode;
}

/* one address operand of try_cancel, in the executing CTA's shared memory (.shared::cta, or a
** generic address that must fall in its window): its offset; 0 after reporting */
static int own_smem(plX_emu *e, plX_ins *in, plX_warp *w, int l, uint64_t a, uint32_t n,
                    const char *what, uint32_t *off) {
  plX_cta *c;
  if (!plX__h_smem_at(e, in, w, l, a, in->space, 0, n, n, &c, off, what)) return 0;
  if (c != e->C) {
    plX__fail_lanef(e, in, w, l,
                    "%s: generic address 0x%llx is in another CTA's shared memory: try_cancel "
                    "takes addresses in the executing CTA's (.shared::cta) window",
                    what, (unsigned long long)a);
    return 0;
  }
  return 1;
}

/* "line N" of the try_cancel a response names */
static void req_line(plX_emu *e, plB_buf *b, uint32_t w0) {
  uint32_t pc = w0 >> 1 & CLC_PC_NONE;
  if (pc == CLC_PC_NONE || pc >= e->xf.ncode)
    plB_buf_puts(b, "a clusterlaunchcontrol.try_cancel");
  else
    plB_buf_printf(b, "the clusterlaunchcontrol.try_cancel of line %s", line_of(e, pc));
}

static int exec_try(plX_emu *e, plX_warp *w, plX_ins *in, uint32_t em) {
  plX_hop *H = &e->H;
  uint32_t pc = (uint32_t)(in - e->xf.code);
  LANES(l, em, {
    uint32_t tid = (uint32_t)w->idx * 32 + (uint32_t)l, off, moff;
    if (!own_smem(e, in, w, l, addr_of(in, w, l), 16, "the response", &off) ||
        !own_smem(e, in, w, l, plX__h_mbar_addr(in, w, l), 8, "the mbarrier", &moff))
      return e->status;
    if (e->C->h.clc_fail) /* PTX ISA: undefined behavior */
      return plX__fail_lanef(e, in, w, l,
                             "a try_cancel after this CTA saw a request fail (the "
                             "clusterlaunchcontrol.query_cancel of line %s): the behavior is "
                             "undefined -- stop asking after the first failed request",
                             line_of(e, e->C->h.clc_fail - 1));
    uint64_t k = H->clc_req++;
    int ok = H->clc_next < H->clc_total &&
             (H->clc_mode == PLX_CLC_ALL || (H->clc_mode == PLX_CLC_ALTERNATE && k % 2 == 0));
    uint32_t v[4] = { CLC_MAGIC | (pc < CLC_PC_NONE ? pc : CLC_PC_NONE) << 1 | (uint32_t)ok,
                      0xffffffffu, 0xffffffffu, 0xffffffffu };
    if (ok) { /* the next cluster of the grid's walk (emu.c), which now never starts */
      uint64_t i = H->clc_next++, nx = e->grid[0] / H->cl[0], ny = e->grid[1] / H->cl[1];
      v[1] = (uint32_t)(i % nx) * H->cl[0];
      v[2] = (uint32_t)(i / nx % ny) * H->cl[1];
      v[3] = (uint32_t)(i / (nx * ny)) * H->cl[2];
      e->st.canceled += H->ncl;
    }
    uint32_t mask = in->sub2 ? (uint32_t)((1ull << H->ncl) - 1) : 1u << e->C->rank;
    if (plX__h_mb_copy_visible(e, in, w, l, mask, moff)) return e->status;
    uint8_t *data = malloc(16);
    if (!data) return plX__fail(e, in->stmt, "out of memory");
    memcpy(data, v, 16);
    if (plX__h_queue(e, in, tid, mask, off, 16, moff, 16, data, NULL, -1)) return e->status;
  });
  return 0;
}

static int exec_query(plX_emu *e, plX_warp *w, plX_ins *in, uint32_t em) {
  const uint64_t *LO = wslot(w, in->a), *HI = wslot(w, in->a + 1);
  uint32_t p = 0;
  LANES(l, em, {
    uint32_t w0 = (uint32_t)LO[l];
    uint32_t xyz[3] = { (uint32_t)(LO[l] >> 32), (uint32_t)HI[l], (uint32_t)(HI[l] >> 32) };
    if ((w0 & CLC_MAGIC_MASK) != CLC_MAGIC)
      return plX__fail_lanef(e, in, w, l,
                             "decodes 0x%016llx%016llx, which no clusterlaunchcontrol.try_cancel "
                             "wrote: load the response from the try_cancel's address after a wait "
                             "on its mbarrier saw the phase complete",
                             (unsigned long long)HI[l], (unsigned long long)LO[l]);
    int ok = w0 & 1;
    if (in->sub == 0) {
      p |= (uint32_t)ok << l;
      if (!ok && !e->C->h.clc_fail) e->C->h.clc_fail = (uint32_t)(in - e->xf.code) + 1;
      continue;
    }
    if (!ok) {
      plB_buf b;
      plB_buf_init(&b);
      plB_buf_puts(&b, "get_first_ctaid of a failed request's response (");
      req_line(e, &b, w0);
      plB_buf_puts(&b, " canceled no cluster): its ctaid is undefined -- decode it only where "
                       "query_cancel.is_canceled is true");
      plX__fail_lane(e, in, w, l, plB_buf_cstr(&b));
      plB_buf_free(&b);
      return e->status;
    }
    if (in->sub < 4)
      wslot(w, in->d)[l] = xyz[in->sub - 1];
    else
      for (int i = 0; i < 3; i++) wslot(w, e->xf.vslots[in->vs + (uint32_t)i])[l] = xyz[i];
  });
  if (in->sub == 0) w->P[in->d] = pmerge(w->P[in->d], p, em);
  return 0;
}

int plX__h_exec_clc(plX_emu *e, plX_warp *w, plX_ins *in, uint32_t em) {
  return in->op == X_CLCTRY ? exec_try(e, w, in, em) : exec_query(e, w, in, em);
}
