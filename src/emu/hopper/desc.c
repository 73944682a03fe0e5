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
#include <stdlib.h>
#include <string.h>
#if defined(__SSE2__)
#include <emmintrin.h>
#endif

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
/* the swizzle's row bytes W of d (0: none), desc_at's */
static inline uint32_t desc_w(const plB_sm_desc *d) {
  return d->swizzle == PLSM_SW_128B_32B ? 128u : (uint32_t)plB_sm_swizzle_bytes(d->swizzle);
}

static inline uint32_t desc_at(const plB_sm_desc *d, uint32_t W, uint32_t mask, int elt, int mn,
                               uint32_t i, uint32_t j) {
  uint32_t per = 16 / (uint32_t)elt, lin;
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

/* the bytes of v that are not zero: their high bit */
static inline uint64_t nz8(uint64_t v) {
  const uint64_t lo7 = 0x7f7f7f7f7f7f7f7full;
  return (((v & lo7) + lo7) | v) & ~lo7;
}

/* psw bytes that pass: 0 or want, and under a skew no TMA swizzle at all (0 or 1 +
** PLSM_SW_NONE = 1); eight bytes a step, branch-free */
static inline int psw_ok(const uint8_t *psw, uint32_t n, uint32_t want, int skew) {
  uint64_t bad = 0, wv = want * 0x0101010101010101ull;
  uint64_t top = skew ? 0xfefefefefefefefeull : 0;
  uint32_t b = 0;
  for (; b + 8 <= n; b += 8) {
    uint64_t x;
    memcpy(&x, psw + b, 8);
    bad |= (nz8(x) & nz8(x ^ wv)) | nz8(x & top);
  }
  for (; b < n; b++)
    bad |= (uint64_t)(psw[b] != 0 && psw[b] != want) | (uint64_t)(skew && psw[b] > 1);
  return !bad;
}

/* nothing in the n bytes at a the per-byte checks could report: no generic writer on record, no
** TMA swizzle but the descriptor's (want: 1 + it), and under a skewed base offset no TMA swizzle
** at all; a whole block from its summary (hopper.h) */
static int blk_slow(plX_cta_hop *h, uint32_t b, uint32_t want, int skew) {
  uint8_t f = plX__h_blk_fix(h, b); /* unsure: made exact */
  if (f & BLK_PW) return 0;
  uint32_t v = f & BLK_MIX;
  return v == BLK_MIX ? psw_ok(h->psw + b * PW_BLK, PW_BLK, want, skew)
                      : (v == 0 || v == want) && !(skew && v > 1);
}

/* block b from its summary */
static inline int blk_ok(plX_cta_hop *h, uint32_t b, uint32_t want, int skew) {
  uint32_t f = h->pwd[b], v = f & BLK_MIX;
  if ((f & BLK_PW) || v == BLK_MIX) return blk_slow(h, b, want, skew);
  return (v == 0 || v == want) && !(skew && v > 1);
}

static inline int run_clean(plX_cta_hop *h, uint32_t a, uint32_t n, uint32_t want, int skew) {
  if (!(a % PW_BLK) && (n == PW_BLK || n == 2 * PW_BLK)) /* the common runs: one or two blocks */
    return blk_ok(h, a / PW_BLK, want, skew) &&
           (n == PW_BLK || blk_ok(h, a / PW_BLK + 1, want, skew));
  if (!(a % PW_BLK) && !(n % PW_BLK)) {
    for (uint32_t b = a / PW_BLK, e = (a + n) / PW_BLK; b < e; b++)
      if (!blk_ok(h, b, want, skew)) return 0;
    return 1;
  }
  return psw_ok(h->psw + a, n, want, skew) && plX__h_pw_none(h, a, n);
}

/* ---- the gather cache
** ------------------------------------------------------------------------------------------
** The warps of a warpgroup (and the warpgroups of a CTA) read the same B through the same
** descriptor: each CTA keeps its last DC_N fast gathers of DC_ROWS rows or more (least recently
** used replaced), with the runs they read and those bytes. A gather with the same key is served
** from the entry when every run still holds the same bytes and is still clean for the checks
** (run_clean), tested run by run: the values are those bytes decoded, and the checks would pass
** on them in any warp (no generic writer on record means the async-proxy check cannot depend on
** the reader). Anything else gathers afresh. */
#define DC_N    16
#define DC_ROWS 64 /* the least rows kept: a wgmma's A is one warp's 16, read by no other */
typedef struct dc_ent {
  uint64_t desc, used;
  int sm, t, mn, valid;
  uint32_t r0, rows, K, lo, hi;
  uint32_t nrun, caprun, *ra; /* the runs: address, bytes in rn */
  uint8_t *rn, *snap;         /* and their bytes, one after another */
  size_t nsnap, capsnap, capval;
  double *val; /* rows x K */
} dc_ent;
struct plX_dcache {
  dc_ent e[DC_N];
  uint64_t tick;
};

void plX__h_desc_free(plX_cta *c) {
  if (!c->h.dc) return;
  for (int i = 0; i < DC_N; i++) {
    free(c->h.dc->e[i].ra);
    free(c->h.dc->e[i].rn);
    free(c->h.dc->e[i].snap);
    free(c->h.dc->e[i].val);
  }
  free(c->h.dc);
  c->h.dc = NULL;
}

/* the entry of this key (found: 1), else the one to fill (NULL: out of memory, no caching) */
static dc_ent *dc_find(plX_cta *c, int sm, uint64_t desc, int t, int mn, uint32_t r0, uint32_t rows,
                       uint32_t K, int *found) {
  *found = 0;
  if (!c->h.dc && !(c->h.dc = calloc(1, sizeof *c->h.dc))) return NULL;
  struct plX_dcache *dc = c->h.dc;
  dc_ent *old = &dc->e[0];
  for (int i = 0; i < DC_N; i++) {
    dc_ent *x = &dc->e[i];
    if (x->valid && x->desc == desc && x->sm == sm && x->t == t && x->mn == mn && x->r0 == r0 &&
        x->rows == rows && x->K == K) {
      *found = 1;
      x->used = ++dc->tick;
      return x;
    }
    if (x->used < old->used) old = x;
  }
  old->valid = 0;
  old->used = ++dc->tick;
  return old;
}

/* a hit: every run still holds its bytes and is clean; then the values (*res: the entry's, else
** copied to out), span from the entry */
static int dc_serve(plX_cta *c, const dc_ent *x, uint32_t want, int skew, double *out,
                    const double **res, plX_wgrd *span) {
  const uint32_t *pw = c->h.pw;
  const uint8_t *snap = x->snap;
  for (uint32_t q = 0; q < x->nrun; q++) {
    uint32_t a = x->ra[q], n = x->rn[q];
    if (n == 16 || n == 32) { /* the common runs, one or two 16-byte chunks: compared in words */
      uint64_t d = 0;
      for (uint32_t o = 0; o < n; o += 8) {
        uint64_t sv, mv;
        memcpy(&sv, snap + o, 8);
        memcpy(&mv, c->smem + a + o, 8);
        d |= sv ^ mv;
      }
      if (d || (pw && !run_clean(&c->h, a, n, want, skew))) return 0;
    } else if ((pw && !run_clean(&c->h, a, n, want, skew)) || memcmp(c->smem + a, snap, n))
      return 0;
    snap += n;
  }
  if (res)
    *res = x->val;
  else
    memcpy(out, x->val, sizeof(double) * (size_t)x->rows * x->K);
  span->lo = x->lo;
  span->hi = x->hi;
  return 1;
}

/* record one run of a fast gather into x (0: out of memory, x is dropped) */
static int dc_run(dc_ent *x, const uint8_t *p, uint32_t a, uint32_t n) {
  if (x->nrun == x->caprun) {
    uint32_t cap = x->caprun ? 2 * x->caprun : 64;
    uint32_t *ra = realloc(x->ra, cap * sizeof *ra);
    if (ra) x->ra = ra;
    uint8_t *rn = ra ? realloc(x->rn, cap) : NULL;
    if (!rn) return 0;
    x->rn = rn;
    x->caprun = cap;
  }
  if (x->nsnap + n > x->capsnap) {
    size_t cap = x->capsnap ? 2 * x->capsnap : 1024;
    while (cap < x->nsnap + n) cap *= 2;
    uint8_t *sn = realloc(x->snap, cap);
    if (!sn) return 0;
    x->snap = sn;
    x->capsnap = cap;
  }
  /* a run next to the last one joins it (the entry holds a set of bytes: a swizzled row's two
  ** chunks in either order are one run) */
  uint32_t L = x->nrun - 1, la = x->nrun ? x->ra[L] : 0, ln = x->nrun ? x->rn[L] : 0;
  if (x->nrun && ln + n <= 255 && (a == la + ln || a + n == la)) {
    uint8_t *t = x->snap + x->nsnap - ln; /* the last run's bytes */
    if (a == la + ln)
      memcpy(t + ln, p, n);
    else {
      memmove(t + n, t, ln);
      memcpy(t, p, n);
      x->ra[L] = a;
    }
    x->rn[L] = (uint8_t)(ln + n);
    x->nsnap += n;
    return 1;
  }
  x->ra[x->nrun] = a;
  x->rn[x->nrun++] = (uint8_t)n;
  memcpy(x->snap + x->nsnap, p, n);
  x->nsnap += n;
  return 1;
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
                     const double **res, plX_wgrd *span, dc_ent *rec) {
  plX_cta *c = e->C;
  size_t nv = (size_t)rows * K;
  if (rec && rec->capval < nv) { /* the entry's values (out of memory: no caching) */
    double *v = realloc(rec->val, nv * sizeof *v);
    if (v) {
      rec->val = v;
      rec->capval = nv;
    } else
      rec = NULL;
  }
  /* with res, straight into the entry (handed out in place below) */
  double *dst = rec && res ? rec->val : out;
  const uint32_t *pw = c->h.pw;
  uint32_t per = 16 / (uint32_t)elt, lo = UINT32_MAX, hi = 0, want = (uint32_t)d->swizzle + 1,
           W = desc_w(d);
  /* along K (K-major) or along the rows (MN-major) */
  uint32_t outer = mn ? K : rows, inner = mn ? rows : K;
  for (uint32_t o = 0; o < outer; o++)
    for (uint32_t x = 0; x < inner;) {
      uint32_t pos = mn ? r0 + x : x, L = per - pos % per;
      if (L > inner - x) L = inner - x;
      uint32_t i = mn ? r0 + x : r0 + o, j = mn ? o : x;
      uint32_t a = desc_at(d, W, mask, elt, mn, i, j), n = L * (uint32_t)elt;
      size_t step = (size_t)elt;
      if (L > 1 && desc_at(d, W, mask, elt, mn, mn ? i + L - 1 : i, mn ? j : j + L - 1) !=
                       a + n - (uint32_t)elt)
        L = 1, n = (uint32_t)elt;
      if ((uint64_t)a + n > e->smem_size) return 0;
      if (pw &&
          (n == 16 ? !run_clean(&c->h, a, 16, want, skew) : !run_clean(&c->h, a, n, want, skew)))
        return 0;
      const uint8_t *p = c->smem + a;
      if (rec && !dc_run(rec, p, a, n)) {
        if (dst != out) memcpy(out, dst, sizeof *out * nv); /* the values so far */
        dst = out;
        rec = NULL;
      }
      size_t oi = mn ? (size_t)x * K + o : (size_t)o * K + x, os = mn ? K : 1;
      switch (t) {
      case PLT_BF16:
#if defined(__SSE2__)
        if (L == 8 && os == 1) { /* a K-major chunk: bf16 to f32 is a shift, f32 to double exact */
          __m128i v = _mm_loadu_si128((const __m128i *)p), z = _mm_setzero_si128();
          __m128 f0 = _mm_castsi128_ps(_mm_unpacklo_epi16(z, v)),
                 f1 = _mm_castsi128_ps(_mm_unpackhi_epi16(z, v));
          _mm_storeu_pd(dst + oi, _mm_cvtps_pd(f0));
          _mm_storeu_pd(dst + oi + 2, _mm_cvtps_pd(_mm_movehl_ps(f0, f0)));
          _mm_storeu_pd(dst + oi + 4, _mm_cvtps_pd(f1));
          _mm_storeu_pd(dst + oi + 6, _mm_cvtps_pd(_mm_movehl_ps(f1, f1)));
          break;
        }
#endif
        for (uint32_t q = 0; q < L; q++, p += step, oi += os) {
          uint16_t h;
          memcpy(&h, p, 2);
          dst[oi] = f32((uint64_t)h << 16);
        }
        break;
      default:
        for (uint32_t q = 0; q < L; q++, p += step, oi += os) {
          uint32_t bits = 0;
          memcpy(&bits, p, (size_t)elt);
          dst[oi] = plX__h_elem(bits, t);
        }
      }
      if (a < lo) lo = a;
      if (a + n > hi) hi = a + n;
      x += L;
    }
  span->lo = lo;
  span->hi = hi;
  if (rec) { /* the entry: the values too */
    if (dst == out)
      memcpy(rec->val, out, nv * sizeof *out);
    else
      *res = rec->val;
    rec->lo = lo;
    rec->hi = hi;
    rec->valid = 1;
  }
  return 1;
}

/* the gather; data: the bytes of each 16-byte chunk along K that the uninitialized-read check
** covers (16: all of them) */
static int desc_load(plX_emu *e, plX_ins *in, plX_warp *w, int sm, uint64_t desc, int t, int mn,
                     uint32_t r0, uint32_t rows, uint32_t K, uint32_t data, double *out,
                     const double **res, const char *which, plX_wgrd *span) {
  plB_sm_desc d;
  if (res) *res = out;
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
  span->lo = UINT32_MAX;
  span->hi = 0;
  uint32_t mask = plB_sm_swizzle_mask(d.swizzle);
  /* not the absolute pattern */
  int skew = ((((d.start >> 7) - (uint32_t)d.base_offset) << 7) & mask) != 0;
  /* the opt-in uninitialized-read check reports and goes on: byte by byte; else the fast gather
  ** (rows = 0: nothing left for the loop below) */
  int uninit = (e->checks & PLX_CHECK_UNINIT_SHARED) && c->smem_def && !e->ndeferred;
  int hit = 0;
  dc_ent *rec = uninit || rows < DC_ROWS ? NULL : dc_find(c, sm, desc, t, mn, r0, rows, K, &hit);
  if (hit && !dc_serve(c, rec, (uint32_t)d.swizzle + 1, skew, out, res, span)) hit = 0;
  if (rec && !hit) {
    rec->valid = 0;
    rec->nrun = 0;
    rec->nsnap = 0;
    rec->desc = desc;
    rec->sm = sm;
    rec->t = t;
    rec->mn = mn;
    rec->r0 = r0;
    rec->rows = rows;
    rec->K = K;
  }
  if (hit ||
      (!uninit && desc_fast(e, &d, mask, elt, mn, t, r0, rows, K, skew, out, res, span, rec))) {
    if (!e->H.q.n) return 0;
    rows = 0;
  }
  char what[96];
  snprintf(what, sizeof what, "%s (%s)", plX__opname(e, in->stmt), which);
  uint32_t W = desc_w(&d);
  for (uint32_t r = 0; r < rows; r++)
    for (uint32_t k = 0; k < K; k++) {
      uint32_t a = desc_at(&d, W, mask, elt, mn, r0 + r, k);
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
      if ((e->checks & PLX_CHECK_UNINIT_SHARED) && c->smem_def && !e->ndeferred && k % 16 < data) {
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

int plX__h_desc_load(plX_emu *e, plX_ins *in, plX_warp *w, int sm, uint64_t desc, int t, int mn,
                     uint32_t r0, uint32_t rows, uint32_t K, double *out, const char *which,
                     plX_wgrd *span) {
  return desc_load(e, in, w, sm, desc, t, mn, r0, rows, K, 16, out, NULL, which, span);
}

int plX__h_desc_load_ref(plX_emu *e, plX_ins *in, plX_warp *w, int sm, uint64_t desc, int t, int mn,
                         uint32_t r0, uint32_t rows, uint32_t K, double *out, const double **res,
                         const char *which, plX_wgrd *span) {
  return desc_load(e, in, w, sm, desc, t, mn, r0, rows, K, 16, out, res, which, span);
}

int plX__h_desc_load_pad(plX_emu *e, plX_ins *in, plX_warp *w, int sm, uint64_t desc, int t,
                         uint32_t rows, uint32_t K, uint32_t data, double *out, const char *which,
                         plX_wgrd *span) {
  return desc_load(e, in, w, sm, desc, t, 0, 0, rows, K, data, out, NULL, which, span);
}
