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
  uint32_t W = (uint32_t)plB_sm_swizzle_bytes(d->swizzle), per = 16 / (uint32_t)elt, lin;
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
  return a ^ (((row << 7) & mask) >> 3);
}

/* nothing in these n bytes the per-byte checks could report: no generic writer on record, no TMA
** swizzle but the descriptor's (want: 1 + it), and under a skewed base offset no TMA swizzle at
** all; branch-free, so that the 16-byte runs vectorize */
static inline int run_clean(const uint32_t *pw, const uint8_t *psw, uint32_t n, uint32_t want,
                            int skew) {
  uint32_t any = 0, bad = 0, top = skew ? 1 + PLSM_SW_NONE : 255;
  for (uint32_t b = 0; b < n; b++) {
    any |= pw[b];
    bad |= (uint32_t)(psw[b] != 0 && psw[b] != want) | (uint32_t)(psw[b] > top);
  }
  return !(any | bad);
}

/* the fast gather: the matrix in runs of consecutive bytes (a 16-byte chunk of one row along K,
** or along M/N when MN-major: the canonical layouts and the swizzles move whole 16-byte chunks),
** each run checked at once over its bytes for what could make the per-byte checks report: outside
** shared memory, a generic writer on record (the async-proxy check), a TMA swizzle other than
** the descriptor's, a TMA-swizzled byte under a skewed base offset. 0 when any run has one: the
** caller then redoes the whole gather byte by byte, so every report is exactly the per-byte
** path's, on the same byte. A run whose last element is not where contiguity puts it (a layout
** this does not know) is read element by element, with the same checks. */
static int desc_fast(plX_emu *e, const plB_sm_desc *d, uint32_t mask, int elt, int mn, int t,
                     uint32_t r0, uint32_t rows, uint32_t K, int skew, double *out,
                     plX_wgrd *span) {
  plX_cta *c = e->C;
  const uint8_t *psw = c->h.psw;
  const uint32_t *pw = c->h.pw;
  uint32_t per = 16 / (uint32_t)elt, lo = UINT32_MAX, hi = 0, want = (uint32_t)d->swizzle + 1;
  /* along K (K-major) or along the rows (MN-major) */
  uint32_t outer = mn ? K : rows, inner = mn ? rows : K;
  for (uint32_t o = 0; o < outer; o++)
    for (uint32_t x = 0; x < inner;) {
      uint32_t pos = mn ? r0 + x : x, L = per - pos % per;
      if (L > inner - x) L = inner - x;
      uint32_t i = mn ? r0 + x : r0 + o, j = mn ? o : x;
      uint32_t a = desc_at(d, mask, elt, mn, i, j), n = L * (uint32_t)elt;
      size_t step = (size_t)elt;
      if (L > 1 && desc_at(d, mask, elt, mn, mn ? i + L - 1 : i, mn ? j : j + L - 1) !=
                       a + n - (uint32_t)elt)
        L = 1, n = (uint32_t)elt;
      if ((uint64_t)a + n > e->smem_size) return 0;
      if (pw && (n == 16 ? !run_clean(pw + a, psw + a, 16, want, skew)
                         : !run_clean(pw + a, psw + a, n, want, skew)))
        return 0;
      const uint8_t *p = c->smem + a;
      size_t oi = mn ? (size_t)x * K + o : (size_t)o * K + x, os = mn ? K : 1;
      switch (t) {
      case PLT_BF16:
        for (uint32_t q = 0; q < L; q++, p += step, oi += os) {
          uint16_t h;
          memcpy(&h, p, 2);
          out[oi] = f32((uint64_t)h << 16);
        }
        break;
      default:
        for (uint32_t q = 0; q < L; q++, p += step, oi += os) {
          uint32_t bits = 0;
          memcpy(&bits, p, (size_t)elt);
          out[oi] = plX__h_elem(bits, t);
        }
      }
      if (a < lo) lo = a;
      if (a + n > hi) hi = a + n;
      x += L;
    }
  span->lo = lo;
  span->hi = hi;
  return 1;
}

int plX__h_desc_load(plX_emu *e, plX_ins *in, plX_warp *w, int sm, uint64_t desc, int t, int mn,
                     uint32_t r0, uint32_t rows, uint32_t K, double *out, const char *which,
                     plX_wgrd *span) {
  plB_sm_desc d;
  if (sm >= 100) {
    char err[200], m[300];
    if (plB_sm_desc_decode_sm(sm, desc, &d, err, sizeof err)) {
      snprintf(m, sizeof m, "%s: an invalid shared-memory descriptor 0x%016llx for %s: %s",
               plX__opname(e, in->stmt), (unsigned long long)desc, which, err);
      return plX__fail_warp(e, in, w, m, 0xffffffffu);
    }
    if (d.swizzle == PLSM_SW_128B_32B)
      return plX__fail_warp(e, in, w, "the 128B swizzle with 32-byte atomicity is not emulated",
                            0xffffffffu);
  } else
    plB_sm_desc_decode(desc, &d);
  int elt = tb(t) / 8;
  if (mn && elt != 2)
    return plX__fail_warp(e, in, w, "a transposed (MN-major) operand needs 16-bit elements",
                          0xffffffffu);
  plX_cta *c = e->C;
  span->lo = UINT32_MAX;
  span->hi = 0;
  uint32_t mask = plB_sm_swizzle_mask(d.swizzle);
  /* not the absolute pattern */
  int skew = ((((d.start >> 7) - (uint32_t)d.base_offset) << 7) & mask) != 0;
  /* the opt-in uninitialized-read check reports and goes on: byte by byte; else the fast gather
  ** (rows = 0: nothing left for the loop below) */
  int uninit = (e->checks & PLX_CHECK_UNINIT_SHARED) && c->smem_def && !e->ndeferred;
  if (!uninit && desc_fast(e, &d, mask, elt, mn, t, r0, rows, K, skew, out, span)) {
    if (!e->H.q.n) return 0;
    rows = 0;
  }
  char what[96];
  snprintf(what, sizeof what, "%s (%s)", plX__opname(e, in->stmt), which);
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
