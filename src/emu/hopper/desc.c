/* hopper/desc.c -- matrix operands in shared memory read through a matrix descriptor: the
** wgmma (sm_90) and tcgen05 (sm_100) layouts, their canonical layouts and swizzles, with the
** async-proxy, swizzle, copy-in-flight and uninitialized-read checks of every byte read. */
#include "state.h"
#include "fail.h"
#include "exec.h"
#include "fp.h"
#include "hooks.h"
#include "hopper.h"
#include "smem.h"
#include <stdio.h>
#include <string.h>

double plX__h_elem(uint32_t bits, int t) {
  switch (t) {
  case PLT_BF16: return f32((uint64_t)(bits & 0xffff) << 16);
  case PLT_F16: return plX__to_double(bits & 0xffff, XFMT_F16);
  case PLT_TF32: return f32(bits & 0xffffe000u);
  case PLT_E4M3: return plX__to_double(bits & 0xff, XFMT_E4M3);
  case PLT_E5M2: return plX__to_double(bits & 0xff, XFMT_E5M2);
  case PLT_S8: return (double)(int8_t)bits;
  default: return (double)(uint8_t)bits;
  }
}

/* the shared byte address of element (i along M or N, j along K) through descriptor d (K-major
** unless mn): the canonical layouts of docs/hopper.md, then the swizzle. The pattern's row (address
** bits 7-9, which select the 16-byte chunk's XOR) counts from the start address's row plus the
** base offset: with base offset (start >> 7) & 7, the ISA's value for a tile that does not start on
** the pattern's repeat, that is the absolute address's row, the pattern a TMA load writes. */
static inline uint32_t desc_at(const plB_sm_desc *d, uint32_t mask, int elt, int mn, uint32_t i,
                               uint32_t j) {
  uint32_t W = d->swizzle == PLSM_SW_128B_32B ? 128u : (uint32_t)plB_sm_swizzle_bytes(d->swizzle),
           per = 16 / (uint32_t)elt, lin;
  if (!mn) {
    uint32_t jb = j * (uint32_t)elt;
    if (W)
      lin = (i / 8) * d->sbo + (i % 8) * W + jb;
    else
      lin = (i / 8) * d->sbo + (j / per) * d->lbo + (i % 8) * 16 + (j % per) * (uint32_t)elt;
  } else {
    uint32_t ib = i * (uint32_t)elt;
    if (W)
      lin = (ib / W) * d->lbo + (j / 8) * d->sbo + (j % 8) * W + ib % W;
    else
      lin = (i / per) * d->sbo + (j / 8) * d->lbo + (j % 8) * 16 + (i % per) * (uint32_t)elt;
  }
  uint32_t a = d->start + lin, row = (a >> 7) - (d->start >> 7) + (uint32_t)d->base_offset;
  if (d->swizzle == PLSM_SW_128B_32B) return a ^ (((row << 7) & 0x180u) >> 2); /* Swizzle<2,5,2> */
  return a ^ (((row << 7) & mask) >> 3);
}

int plX__h_desc_load(plX_emu *e, plX_ins *in, plX_warp *w, int sm, uint64_t desc, int t, int mn,
                     uint32_t r0, uint32_t rows, uint32_t K, double *out, const char *which,
                     plX_wgrd *span) {
  plB_sm_desc d;
  if (sm >= 100) {
    char err[200], m[300];
    if (!plB_sm_desc_decode_sm(sm, desc, &d, err, sizeof err)) {
      snprintf(m, sizeof m, "%s: an invalid shared-memory descriptor 0x%016llx for %s: %s",
               plX__opname(e, in->stmt), (unsigned long long)desc, which, err);
      return plX__fail_warp(e, in, w, m, 0xffffffffu);
    }
    if (d.swizzle == PLSM_SW_128B_32B && !mn)
      return plX__fail_warp(e, in, w,
                            "the 128B swizzle with 32-byte atomicity is for MN-major operands only",
                            0xffffffffu);
    if (d.swizzle == PLSM_SW_128B_32B && d.base_offset)
      return plX__fail_warp(e, in, w,
                            "a base offset with the 128B swizzle with 32-byte atomicity is not "
                            "emulated",
                            0xffffffffu);
    if (d.lbo_mode)
      return plX__fail_warp(e, in, w, "the absolute LBO mode (bit 52) is not emulated",
                            0xffffffffu);
  } else
    plB_sm_desc_decode(desc, &d);
  int elt = tb(t) / 8;
  if (mn && elt != 2 && sm < 100) /* tcgen05 also transposes 8-bit and tf32 operands */
    return plX__fail_warp(e, in, w, "a transposed (MN-major) operand needs 16-bit elements",
                          0xffffffffu);
  plX_cta *c = e->C;
  char what[96];
  snprintf(what, sizeof what, "%s (%s)", plX__opname(e, in->stmt), which);
  span->lo = UINT32_MAX;
  span->hi = 0;
  uint32_t mask = plB_sm_swizzle_mask(d.swizzle);
  /* not the absolute pattern */
  int skew = ((((d.start >> 7) - (uint32_t)d.base_offset) << 7) & mask) != 0;
  for (uint32_t r = 0; r < rows; r++)
    for (uint32_t k = 0; k < K; k++) {
      uint32_t a = desc_at(&d, mask, elt, mn, r0 + r, k);
      if ((uint64_t)a + (uint32_t)elt > e->smem_size)
        return plX__fail_warp(e, in, w, "a matrix descriptor reads outside shared memory",
                              0xffffffffu);
      if (c->h.pw && plX__h_proxy_read(e, in, w, 0, c, a, (uint32_t)elt, d.swizzle, what))
        return e->status;
      if (skew && c->h.psw && c->h.psw[a] > 1 + PLSM_SW_NONE) {
        char m[320];
        snprintf(m, sizeof m,
                 "%s reads shared byte 0x%x through a descriptor with base offset %d, but a TMA "
                 "load wrote it "
                 "with the %s pattern of the absolute address: for the tile at 0x%x the base "
                 "offset is %u",
                 what, a, d.base_offset, plB_sm_swizzle_name(d.swizzle), d.start,
                 (d.start >> 7) & 7);
        return plX__fail_warp(e, in, w, m, 0xffffffffu);
      }
      /* opt-in: kept, the run goes on (a copy in flight there: the always-on check names it) */
      if ((e->checks & PLX_CHECK_UNINIT_SHARED) && c->smem_def && !e->ndeferred) {
        for (int b = 0; b < elt; b++) {
          if (c->smem_def[a + (uint32_t)b]) continue;
          const uint32_t *id = e->C->ctaid;
          plX__optin(e, in->stmt,
                     "%s in warp %d of CTA (%u,%u,%u): %s reads shared byte 0x%x, "
                     "which nothing has written",
                     plX__opname(e, in->stmt), w->idx, id[0], id[1], id[2], which, a + (uint32_t)b);
          break;
        }
      }
      uint32_t bits = 0;
      memcpy(&bits, c->smem + a, (size_t)elt);
      out[(size_t)r * K + k] = plX__h_elem(bits, t);
      if (a < span->lo) span->lo = a;
      if (a + (uint32_t)elt > span->hi) span->hi = a + (uint32_t)elt;
    }
  if (e->H.q.n && span->hi > span->lo &&
      plX__hop_inflight_read(e, in, w, -1, c, span->lo, span->hi, what))
    return e->status;
  return 0;
}
