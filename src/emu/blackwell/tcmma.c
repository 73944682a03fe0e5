/* blackwell/tcmma.c -- tcgen05.mma (A from a descriptor or tensor memory, B from a descriptor, D in
** tensor memory) through the one tensor-core engine, and tcgen05.commit to mbarriers. */
#include "state.h"
#include "fail.h"
#include "fp.h"
#include "tc.h"
#include "hopper.h"
#include "bwhooks.h"
#include "blackwell.h"
#include "smem.h"
#include <math.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

static int lfail(plX_emu *e, const plX_ins *in, plX_warp *w, int l, const char *fmt, ...) {
  char m[1024];
  va_list ap;
  va_start(ap, fmt);
  vsnprintf(m, sizeof m, fmt, ap);
  va_end(ap);
  return plX__fail_lane(e, in, w, l, m);
}

/* a single thread issues it (check 10); its lane, or -1 after reporting */
static int one_lane(plX_emu *e, const plX_ins *in, plX_warp *w, uint32_t em, const char *what) {
  int n = __builtin_popcount(em);
  if (n == 1) return __builtin_ctz(em);
  char m[400];
  snprintf(m, sizeof m,
           "issued by %d threads of the warp at once: each thread issues its own %s (%d of them); "
           "a single thread issues it (elect.sync, or a lane-0 guard)",
           n, what, n);
  plX__fail_warp(e, in, w, m, em);
  return -1;
}

/* the emulator's element type of an idesc type, or -1 (not emulated) */
static int elem_type(int t) {
  switch (t) {
  case PLTC_T_F16: return PLT_F16;
  case PLTC_T_BF16: return PLT_BF16;
  case PLTC_T_TF32: return PLT_TF32;
  case PLTC_T_E4M3: return PLT_E4M3;
  case PLTC_T_E5M2: return PLT_E5M2;
  case PLTC_T_U8: return PLT_U8;
  case PLTC_T_S8: return PLT_S8;
  default: return -1;
  }
}

/* row m of an M-row D (or tensor-memory A) at lane field base: layout D (M = 128) lane m, layout F
** (M = 64) rows 16q + r at lane 32q + r (+ base 0 or 16) */
static uint32_t row_lane(int M, uint32_t base, uint32_t m) {
  return M == 128 ? m : 32 * (m / 16) + m % 16 + base;
}

/* where D[m][n] lands: CTA k of the pair, lane, column. cta_group::1: layout D (M = 128) or F
** (M = 64), column dc + n; ::2, M = 256 (layout A): rows 0-127 in the even CTA, 128-255 in the odd
** one, lane m % 128; ::2, M = 128 (layout B): 64 rows a CTA, lane m % 64 + 64 for the columns of
** the second half, column dc + n % (N / 2) */
static void dpos(int M, int N, int pair, uint32_t dl, uint32_t dc, uint32_t m, uint32_t n,
                 uint32_t *k, uint32_t *ln, uint32_t *cl) {
  if (!pair) {
    *k = 0;
    *ln = row_lane(M, dl, m);
    *cl = dc + n;
  } else if (M == 256) {
    *k = m / 128;
    *ln = m % 128;
    *cl = dc + n;
  } else {
    uint32_t h = (uint32_t)N / 2;
    *k = m / 64;
    *ln = m % 64 + 64 * (n >= h);
    *cl = dc + n % h;
  }
}

/* a run of D's row m: columns [n0, n0 + cnt) at lane ln, columns col, col + 1, ... of CTA k */
typedef struct plX_dseg {
  uint32_t k, ln, col, n0, cnt;
} plX_dseg;

/* row m of D as runs (dpos's places, n in increasing order): one, or two under layout B (the
** second half of the columns 64 lanes down); their count */
static int dseg(int M, int N, int pair, uint32_t dl, uint32_t dc, uint32_t m, plX_dseg *s) {
  if (!pair || M == 256) {
    uint32_t k, ln, cl;
    dpos(M, N, pair, dl, dc, m, 0, &k, &ln, &cl);
    s[0] = (plX_dseg){ k, ln, cl, 0, (uint32_t)N };
    return 1;
  }
  uint32_t h = (uint32_t)N / 2;
  s[0] = (plX_dseg){ m / 64, m % 64, dc, 0, h };
  s[1] = (plX_dseg){ m / 64, m % 64 + 64, dc, h, h };
  return 2;
}

/* dst[j] = scale * (double)f32(src[j]) for j < n */
static void get_f32(double *dst, const uint32_t *src, uint32_t n, double scale) {
  uint32_t j = 0;
#if defined(__SSE2__)
  const __m128d sc = _mm_set1_pd(scale);
  for (; j + 4 <= n; j += 4) {
    __m128 f = _mm_castsi128_ps(_mm_loadu_si128((const __m128i *)(const void *)(src + j)));
    _mm_storeu_pd(dst + j, _mm_mul_pd(sc, _mm_cvtps_pd(f)));
    _mm_storeu_pd(dst + j + 2, _mm_mul_pd(sc, _mm_cvtps_pd(_mm_movehl_ps(f, f))));
  }
#endif
  for (; j < n; j++) dst[j] = scale * (double)f32(src[j]);
}

/* cell[j] = c32((float)src[j]) for j < n: the conversion rounds as the scalar one does (both
** under MXCSR's mode), a NaN becomes 0x7fffffff */
static void put_f32(uint32_t *cell, const double *src, uint32_t n) {
  uint32_t j = 0;
#if defined(__SSE2__)
  const __m128 qnan = _mm_castsi128_ps(_mm_set1_epi32(0x7fffffff));
  for (; j + 4 <= n; j += 4) {
    __m128 lo = _mm_cvtpd_ps(_mm_loadu_pd(src + j)), hi = _mm_cvtpd_ps(_mm_loadu_pd(src + j + 2));
    __m128 f = _mm_movelh_ps(lo, hi), u = _mm_cmpunord_ps(f, f);
    f = _mm_or_ps(_mm_andnot_ps(u, f), _mm_and_ps(u, qnan));
    _mm_storeu_si128((__m128i *)(void *)(cell + j), _mm_castps_si128(f));
  }
#endif
  for (; j < n; j++) cell[j] = (uint32_t)c32((float)src[j]);
}

static void fill_tag(uint32_t *tg, uint32_t n, uint32_t tag) {
  uint32_t j = 0;
#if defined(__SSE2__)
  const __m128i t = _mm_set1_epi32((int)tag);
  for (; j + 4 <= n; j += 4) _mm_storeu_si128((__m128i *)(void *)(tg + j), t);
#endif
  for (; j < n; j++) tg[j] = tag;
}

/* one more read of shared bytes by op seq of this warp: joins a record of the same instruction and
** warp it overlaps (the k-steps of one stage); a span that only touches one (the next stage of a
** ring) is a record of its own, or a refill of a finished stage would look like one still read */
static int rd_note(plX_emu *e, plX_cta *c, const plX_wgrd *span, uint32_t warp, uint32_t seq,
                   uint32_t pc) {
  plX_bw_cta *b = c->bw;
  if (span->hi <= span->lo) return 0;
  for (uint32_t i = 0; i < b->rd.n; i++) {
    plX_tcrd *r = &b->rd.p[i];
    if (r->pc != pc || r->warp != warp || r->rank != e->C->rank || span->lo >= r->hi ||
        r->lo >= span->hi)
      continue;
    if (span->lo < r->lo) r->lo = span->lo;
    if (span->hi > r->hi) r->hi = span->hi;
    r->seq = seq;
    return 0;
  }
  plX_tcrd r = { span->lo, span->hi, e->C->rank, warp, seq, pc };
  return plB_vec_push(b->rd, r) ? 0 : plX__fail(e, X_NOSLOT, "out of memory");
}

/* the block-scaled kinds' scale factors: rows (M's rows or N's columns, at most 256) of one CTA's
** scale matrix at column sc, nsf of them a row (the scale vector: 1X, 2X or 4X), bytes id .. id +
** nsf - 1 of each cell, byte id + s the factor of the row's s-th chunk of K / nsf elements (the
** ISA, "Scale Factor A ID": the ID is a byte offset for 1X, a half-word one for 2X, 0 for 4X):
** row r at lane r % 32 of column sc + r / 32, duplicated in all four lane quarters (the ISA:
** "Scale factors for A and B matrices need to be duplicated to all 32 lane partitions"); the cells
** are read as the MMA reads D (written, and known complete unless this thread's own ops wrote
** them). UE8M0: 2^(e - 127), 0xff NaN; UE4M3: the unsigned e4m3 of the low 7 bits, 0x7f NaN.
** out[r * nsf + s]. 0 ok */
static int sf_read(plX_emu *e, plX_ins *in, plX_warp *w, int l, plX_cta *kc, uint32_t sta,
                   uint32_t rows, int id, int nsf, int ue4m3, const char *what, double *out) {
  uint32_t sl = sta >> 16, sc = sta & 0xffff, ncol = (rows + 31) / 32;
  if (sl != 0)
    return lfail(e, in, w, l,
                 "%s at tensor-memory address 0x%08x: lane field %u is not emulated (the scale "
                 "factors' lanes are pinned from lane 0)",
                 what, sta, sl);
  if (sc + ncol > BW_COLS)
    return lfail(e, in, w, l, "%s columns %u-%u: past column 511", what, sc, sc + ncol - 1);
  if (plX__b_in_alloc(e, in, w, l, kc, sc, sc + ncol, what)) return e->status;
  for (uint32_t c = 0; c < ncol; c++) {
    uint32_t cnt = rows - 32 * c < 32 ? rows - 32 * c : 32;
    for (uint32_t q = 0; q < 4; q++)
      if (plX__b_read_cells(e, in, w, l, kc, 32 * q, 32 * q + cnt, sc + c, sc + c + 1, 1, 1, what))
        return e->status;
  }
  const uint32_t *cell = kc->bw->cell;
  for (uint32_t r = 0; r < rows; r++)
    for (int s = 0; s < nsf; s++) {
      int by = id + s;
      uint32_t col = sc + r / 32, v = cell[(r % 32) * BW_COLS + col] >> (8 * by) & 0xff;
      for (uint32_t q = 1; q < 4; q++) {
        uint32_t u = cell[(r % 32 + 32 * q) * BW_COLS + col] >> (8 * by) & 0xff;
        if (u != v)
          return lfail(e, in, w, l,
                       "%s of row %u: byte %d of lane %u, column %u of CTA (%u,%u,%u) holds "
                       "0x%02x, lane %u 0x%02x: the scale factors are duplicated in all four lane "
                       "quarters (tcgen05.cp .32x128b.warpx4 does that)",
                       what, r, by, r % 32, col, kc->ctaid[0], kc->ctaid[1], kc->ctaid[2], v,
                       r % 32 + 32 * q, u);
      }
      double x;
      if (!ue4m3)
        x = v == 0xff ? NAN : ldexp(1.0, (int)v - 127);
      else if (v & 0x80)
        return lfail(e, in, w, l,
                     "%s of row %u: byte %d of lane %u, column %u holds 0x%02x, a ue4m3 code with "
                     "its top bit set: what the tensor core makes of it is not emulated (a ue4m3 "
                     "value is 7 bits, the top one 0)",
                     what, r, by, r % 32, col, v);
      else
        x = v == 0x7f ? NAN : plX__to_double(v, XFMT_E4M3);
      out[(size_t)r * (size_t)nsf + (size_t)s] = x;
    }
  return 0;
}

/* the 4- and 6-bit element types: their bits (0: another type) */
static int sub_bits(int t) {
  return t == PLTC_T_E2M1 ? 4 : t == PLTC_T_E2M3 || t == PLTC_T_E3M2 ? 6 : 0;
}

/* the value of code c of e2m1, e2m3 or e3m2 (OCP MX: a sign, no infinity or NaN; subnormal at
** exponent 0; bias 1 for 2 exponent bits, 3 for 3) */
static double small_val(uint32_t c, int t) {
  int eb = t == PLTC_T_E3M2 ? 3 : 2, mb = t == PLTC_T_E2M1 ? 1 : t == PLTC_T_E2M3 ? 3 : 2;
  int bias = (1 << (eb - 1)) - 1;
  uint32_t s = c >> (eb + mb) & 1, ex = c >> mb & ((1u << eb) - 1), m = c & ((1u << mb) - 1);
  double v =
      ex ? ldexp(1.0 + ldexp((double)m, -mb), (int)ex - bias) : ldexp((double)m, 1 - bias - mb);
  return s ? -v : v;
}

/* a K-major operand of 4- or 6-bit elements (rows x K of type t) through descriptor desc: its
** bytes read as an 8-bit operand's are (every check of plX__h_desc_load_pad), into tmp, then
** unpacked.
** packed (.kind::mxf4, mxf4nvf4; the ISA: "two 4-bit elements in a 8-bit container, with no
** padding"): K / 2 bytes a row, element 2j in the low nibble of byte j. Else (.kind::f8f6f4,
** mxf8f6f4: "contiguously packed along with padding", the .b4x16_p64 / .b6x16_p32 layouts a TMA
** load makes: sixteen elements packed, then 64 or 32 bits of padding): K bytes a row as 8-bit
** elements take, each 16-byte chunk holding 16 elements from its first byte, element i at bits
** [b i, b i + b) of the chunk read little-endian. 0 ok */
static int sub_load(plX_emu *e, plX_ins *in, plX_warp *w, uint64_t desc, int t, int packed,
                    uint32_t rows, uint32_t K, double *out, double *tmp, const char *which,
                    plX_wgrd *span) {
  uint32_t kb = packed ? K / 2 : K, b = (uint32_t)sub_bits(t);
  /* a chunk's data: all 16 bytes packed, else 8 or 12, the rest padding */
  if (plX__h_desc_load_pad(e, in, w, 100, desc, PLT_U8, rows, kb, packed ? 16 : 2 * b, tmp, which,
                           span))
    return e->status;
  double lut[64];
  for (uint32_t c = 0; c < (1u << b); c++) lut[c] = small_val(c, t);
  for (uint32_t r = 0; r < rows; r++) {
    const double *src = tmp + (size_t)r * kb;
    double *dst = out + (size_t)r * K;
    if (packed) {
      for (uint32_t j = 0; j < kb; j++) {
        uint32_t v = (uint32_t)src[j];
        dst[2 * j] = lut[v & 15];
        dst[2 * j + 1] = lut[v >> 4];
      }
      continue;
    }
    for (uint32_t c = 0; c < kb / 16; c++) {
      uint8_t q[16];
      for (int i = 0; i < 16; i++) q[i] = (uint8_t)src[16 * c + (uint32_t)i];
      for (uint32_t i = 0; i < 16; i++) {
        uint32_t bit = b * i, v = (uint32_t)q[bit / 8] | (uint32_t)q[bit / 8 + 1] << 8;
        dst[16 * c + i] = lut[v >> (bit % 8) & ((1u << b) - 1)];
      }
    }
  }
  return 0;
}

/* the CTAs of a cta_group::2 op (tcgen05.<op>) issued by thread l of w: cs[0] the executing one,
** cs[1] its peer (rank ^ 1), which must exist and still run; the even CTA leads. 0 ok */
static int pair_ctas(plX_emu *e, plX_warp *w, plX_ins *in, int l, const char *op, plX_cta *cs[2]) {
  const plX_cta *c = e->C;
  if (e->H.ncl < 2 || e->H.ncl % 2)
    return lfail(e, in, w, l,
                 "tcgen05.%s.cta_group::2 in a cluster of %u CTA%s: a CTA pair is two CTAs of a "
                 "cluster whose ranks differ in bit 0",
                 op, e->H.ncl ? e->H.ncl : 1, e->H.ncl == 1 ? "" : "s");
  if (c->rank & 1)
    return lfail(e, in, w, l,
                 "tcgen05.%s.cta_group::2 issued by the odd CTA of its pair is not emulated (the "
                 "even one leads)",
                 op);
  cs[1] = &e->ctas[c->rank ^ 1];
  if (cs[1]->done || !cs[1]->bw)
    return lfail(e, in, w, l,
                 "tcgen05.%s.cta_group::2: the peer CTA (%u,%u,%u) has exited (its tensor memory "
                 "and shared memory are gone)",
                 op, cs[1]->ctaid[0], cs[1]->ctaid[1], cs[1]->ctaid[2]);
  return 0;
}

int plX__b_exec_mma(plX_emu *e, plX_warp *w, plX_ins *in, uint32_t em) {
  if (!em) return 0;
  int l = one_lane(e, in, w, em, "MMA");
  if (l < 0) return e->status;
  plX_cta *c = e->C;
  plX_bw_cta *b = c->bw;
  uint32_t iv = (uint32_t)wslot(w, in->e)[l];
  plB_tc_idesc id;
  char err[300];
  if (!plB_tc_idesc_decode(iv, in->sub2, in->rnd, 0, &id, err, sizeof err))
    return lfail(e, in, w, l, "an invalid instruction descriptor for .kind::%s: %s",
                 plB_tc_kind_name(in->sub2), err);
  if (id.sparse)
    return lfail(e, in, w, l,
                 "instruction descriptor 0x%08x sets the sparse bit (2), but this is not "
                 "tcgen05.mma.sp",
                 iv);
  int M = id.m, N = id.n, at = elem_type(id.a), bt = elem_type(id.b);
  int bs = in->sub2 >= PLTC_MXF8F6F4;                            /* block scaled */
  int fp4k = in->sub2 == PLTC_MXF4 || in->sub2 == PLTC_MXF4NVF4; /* packed e2m1 */
  int sba = sub_bits(id.a), sbb = sub_bits(id.b), atmem = in->sub & 1;
  if (id.k96)
    return lfail(e, in, w, l,
                 "K = 96 (bit 31 of the instruction descriptor, sm_103a) is not emulated (where "
                 "its three or six scale factors a row lie is given by figures only)");
  if (bs && in->rnd == 2 && M == 128)
    return lfail(e, in, w, l,
                 "a block-scaled M=128 cta_group::2 MMA is not emulated (where each CTA's 64 rows "
                 "of scale factors lie is not pinned)");
  int K = in->sub2 == PLTC_F16 ? 16 : in->sub2 == PLTC_TF32 ? 8 : fp4k ? 64 : 32;
  int integer = in->sub2 == PLTC_I8;
  /* the scale vector: nsf factors a row of A (column of B) and MMA, each over K / nsf elements */
  int nsf = bs ? K / (in->t2 ? in->t2 : 32) : 0, ue4m3 = bs && id.scale == PLTC_T_UE4M3;
  if (bs && (in->sub2 == PLTC_MXF8F6F4 ? nsf != 1 : nsf != 2 && nsf != 4))
    return lfail(e, in, w, l, ".kind::%s with %d scale factors a row (K = %d, blocks of %d)",
                 plB_tc_kind_name(in->sub2), nsf, K, in->t2);
  if (ue4m3 && nsf != 4)
    return lfail(e, in, w, l,
                 "ue4m3 scale factors (instruction descriptor 0x%08x, bit 23 clear) with "
                 ".scale_vec::2X / .block32: ue4m3 goes with .scale_vec::4X / .block16 only "
                 "(ue8m0 sets bit 23)",
                 iv);
  if (nsf == 4 && (id.sfa_id || id.sfb_id))
    return lfail(e, in, w, l,
                 "scale-factor IDs A %d, B %d with .scale_vec::4X / .block16: the four factors "
                 "of a row fill the whole 32-bit cell, so both IDs are 0",
                 id.sfa_id, id.sfb_id);
  for (int o = 0; o < 2; o++) {
    int sb = o ? sbb : sba, tr = o ? id.trans_b : id.trans_a;
    if (!sb) continue;
    if (o == 0 && atmem)
      return lfail(e, in, w, l,
                   "A of %d-bit %s elements in tensor memory is not emulated (where an element "
                   "lies in its container is given by figures only)",
                   sb, plB_tc_type_name(id.a));
    if (tr)
      return lfail(e, in, w, l,
                   "a transposed (MN-major) operand %c of %d-bit %s elements is not emulated",
                   o ? 'B' : 'A', sb, plB_tc_type_name(o ? id.b : id.a));
  }
  if ((at < 0 && !sba) || (bt < 0 && !sbb))
    return lfail(e, in, w, l, ".kind::%s with %s x %s is not emulated", plB_tc_kind_name(in->sub2),
                 plB_tc_type_name(id.a), plB_tc_type_name(id.b));
  /* an f16 D (the ISA, "Packing format for matrix D in Tensor Memory": a sub-word D element is
  ** not packed, a 16-bit one stands in the lower 16 bits of its 32-bit cell): summed as wgmma's
  ** f16 accumulators are, in double from the f16 values and rounded to f16 (RN) once; the upper
  ** 16 bits are written 0 */
  int d16 = id.d == PLTC_T_F16;
  if (atmem && id.trans_a)
    return lfail(e, in, w, l,
                 "instruction descriptor 0x%08x transposes A, which is in tensor memory (only a "
                 "shared-memory operand has a major-ness)",
                 iv);
  uint64_t adesc = wslot(w, in->a)[l], bdesc = wslot(w, in->b)[l];
  /* Table 49: tf32 transposes only with the 128B swizzle with 32-byte atomicity, which only a
  ** transposed tf32 operand takes */
  for (int o = atmem; o < 2; o++) {
    plB_sm_desc sd;
    if (!plB_sm_desc_decode_sm(100, o ? bdesc : adesc, &sd, NULL, 0)) continue; /* desc_load */
    int tr = o ? id.trans_b : id.trans_a, tf = (o ? bt : at) == PLT_TF32;
    if (tf && tr && sd.swizzle != PLSM_SW_128B_32B)
      return lfail(e, in, w, l,
                   "a transposed (MN-major) tf32 operand %c needs the 128B swizzle with 32-byte "
                   "atomicity (descriptor swizzle %s)",
                   o ? 'B' : 'A', plB_sm_swizzle_name(sd.swizzle));
    if (sd.swizzle == PLSM_SW_128B_32B && !(tf && tr))
      return lfail(e, in, w, l,
                   "operand %c: only a transposed tf32 operand takes the 128B swizzle with "
                   "32-byte atomicity",
                   o ? 'B' : 'A');
  }
  /* the CTAs: this one, and under cta_group::2 its peer (rank ^ 1), which holds half of A (its
  ** rows), half of B (its columns) and its rows of D at the same addresses */
  int pair = in->rnd == 2;
  plX_cta *cs[2] = { c, c };
  if (pair && pair_ctas(e, w, in, l, "mma", cs)) return e->status;
  int nc = pair ? 2 : 1, lay_b = pair && M == 128;
  /* D: its lanes and columns (layout B: each CTA's 64 rows over 128 lanes, N/2 columns) */
  uint32_t dta = (uint32_t)(wslot(w, in->abase)[l] + (uint64_t)in->off), dl = dta >> 16,
           dc = dta & 0xffff, ncol = lay_b ? (uint32_t)N / 2 : (uint32_t)N;
  if (M == 64 ? dl != 0 && dl != 16 : dl != 0)
    return lfail(e, in, w, l,
                 "D at tensor-memory address 0x%08x: lane field %u, where an M=%d D starts at %s",
                 dta, dl, M, M == 64 ? "lane 0 or 16" : "lane 0");
  if (dc + ncol > BW_COLS)
    return lfail(e, in, w, l, "D columns %u-%u: past column 511", dc, dc + ncol - 1);
  for (int k = 0; k < nc; k++) {
    if (plX__b_in_alloc(e, in, w, l, cs[k], dc, dc + ncol, "D:")) return e->status;
    const plX_bw_cta *kb = cs[k]->bw;
    for (uint32_t i = 0; i < kb->al.n; i++)
      if (dc >= kb->al.p[i].col && dc < kb->al.p[i].col + kb->al.p[i].n &&
          kb->al.p[i].group != in->rnd)
        return lfail(e, in, w, l,
                     "a cta_group::%d MMA into columns CTA (%u,%u,%u) allocated with "
                     "cta_group::%u at line %s: the cta_group of an MMA is its D's allocation's",
                     in->rnd, cs[k]->ctaid[0], cs[k]->ctaid[1], cs[k]->ctaid[2], kb->al.p[i].group,
                     line_of(e, kb->al.p[i].pc));
  }
  uint32_t al = 0, ac = 0;
  if (atmem) {
    if (lay_b)
      return lfail(e, in, w, l,
                   "A in tensor memory for an M=128 cta_group::2 MMA is not emulated (where its "
                   "rows lie is not pinned)");
    uint32_t ata = (uint32_t)(wslot(w, in->a)[l] + (uint64_t)in->off2);
    al = ata >> 16;
    ac = ata & 0xffff;
    if (al != dl)
      return lfail(e, in, w, l,
                   "A in tensor memory at lane %u and D at lane %u: they need the same lane "
                   "alignment",
                   al, dl);
    if (ac + 8 > BW_COLS) return lfail(e, in, w, l, "A columns past column 511");
    for (int k = 0; k < nc; k++)
      if (plX__b_in_alloc(e, in, w, l, cs[k], ac, ac + 8, "A:")) return e->status;
  }
  /* disable-output-lane: bit 128 k + i of the mask skips lane i of CTA k */
  uint32_t dis[8] = { 0 };
  for (uint32_t i = 0; i < in->vec; i++) dis[i] = (uint32_t)wslot(w, e->xf.vslots[in->vs + i])[l];
  int acc = (int)((w->P[in->c] >> l) & 1) ^ ((in->fl & XF_NEGC) != 0);
  /* what it reads of tensor memory (A there, D when accumulating) and writes, by 16-lane group */
  uint32_t ngrp = pair ? 8 : (uint32_t)M / 16;
  for (int k = 0; k < nc; k++)
    for (uint32_t q = 0; q < ngrp; q++) {
      plX_cta *kc = cs[k];
      uint32_t l0 = pair ? 16 * q : row_lane(M, dl, 16 * q);
      if (atmem &&
          plX__b_read_cells(e, in, w, l, kc, l0, l0 + 16, ac, ac + 8, 1, 1, "tcgen05.mma (A)"))
        return e->status;
      /* the usual accumulator: every cell of the group's lanes holds one tag, fine for this
      ** read and not 0; then neither the never-written check nor the tags' part of the read can
      ** fire, and only the pending tcgen05.st are left to check */
      int same = 0;
      if (acc) {
        const uint32_t *tg = kc->bw->tag;
        uint32_t t0 = tg[l0 * BW_COLS + dc];
        same = t0 != 0 && plX__b_tag_fine(e, w, l, t0, 1, 0);
        for (uint32_t ln = l0; ln < l0 + 16 && same; ln++)
          same = bw_skip_eq(tg + ln * BW_COLS, dc, dc + ncol, t0) == dc + ncol;
      }
      if (same) {
        if (plX__b_read_pending_st(e, in, w, kc, l0, l0 + 16, dc, dc + ncol, "tcgen05.mma (D)"))
          return e->status;
      } else if (acc) {
        for (uint32_t ln = l0; ln < l0 + 16; ln++) {
          uint32_t bi = 128 * (uint32_t)k + ln;
          if (dis[bi / 32] >> (bi % 32) & 1) continue;
          for (uint32_t n = dc; n < dc + ncol; n++)
            if (!kc->bw->tag[ln * BW_COLS + n])
              return lfail(e, in, w, l,
                           "enable-input-d is true, but D's lane %u, column %u of CTA (%u,%u,%u) "
                           "was never written: the first MMA into an accumulator passes false "
                           "(tensor memory is not zeroed)",
                           ln, n, kc->ctaid[0], kc->ctaid[1], kc->ctaid[2]);
        }
        if (plX__b_read_cells(e, in, w, l, kc, l0, l0 + 16, dc, dc + ncol, 1, 0, "tcgen05.mma (D)"))
          return e->status;
      }
      if (plX__b_write_cells(e, in, w, kc, l0, l0 + 16, dc, dc + ncol, "tcgen05.mma"))
        return e->status;
    }
  /* the operands, as doubles: A's rows and B's rows (D's columns) half from each CTA of a pair */
  size_t na = (size_t)M * (size_t)K, nb = (size_t)N * (size_t)K, nd = (size_t)M * (size_t)N;
  size_t nt = sba || sbb ? (na > nb ? na : nb) : 0; /* sub_load's bytes */
  if (b->nscr < na + nb + nd + nt) {
    double *p = realloc(b->scr, sizeof(double) * (na + nb + nd + nt));
    if (!p) return plX__fail(e, in->stmt, "out of memory");
    b->scr = p;
    b->nscr = na + nb + nd + nt;
  }
  double *A = b->scr;
  double *B = A + na, *D = B + nb, *T = D + nd;
  plX_wgrd sa[2], sb[2];
  memset(sa, 0, sizeof sa);
  memset(sb, 0, sizeof sb);
  int rc = 0;
  uint32_t ma = (uint32_t)M / (uint32_t)nc, nbr = (uint32_t)N / (uint32_t)nc;
  for (int k = 0; k < nc && !rc; k++) {
    e->C = cs[k]; /* the CTA whose shared memory the descriptors address */
    if (atmem) {
      int bits = tb(at);
      for (uint32_t m = 0; m < ma; m++) {
        const uint32_t *row = cs[k]->bw->cell + (pair ? m : row_lane(M, dl, m)) * BW_COLS + ac;
        for (int kk = 0; kk < K; kk++) {
          uint32_t bit = (uint32_t)(kk * bits);
          A[(k * ma + m) * (size_t)K + (size_t)kk] = plX__h_elem(row[bit / 32] >> (bit % 32), at);
        }
      }
    } else if (sba)
      rc = sub_load(e, in, w, adesc, id.a, fp4k, ma, (uint32_t)K, A + (size_t)k * ma * (size_t)K, T,
                    "operand A", &sa[k]);
    else
      rc = plX__h_desc_load(e, in, w, 100, adesc, at, id.trans_a, 0, ma, (uint32_t)K,
                            A + (size_t)k * ma * (size_t)K, "operand A", &sa[k]);
    if (!rc && sbb)
      rc = sub_load(e, in, w, bdesc, id.b, fp4k, nbr, (uint32_t)K, B + (size_t)k * nbr * (size_t)K,
                    T, "operand B", &sb[k]);
    else if (!rc)
      rc = plX__h_desc_load(e, in, w, 100, bdesc, bt, id.trans_b, 0, nbr, (uint32_t)K,
                            B + (size_t)k * nbr * (size_t)K, "operand B", &sb[k]);
  }
  e->C = c;
  if (rc) return e->status;
  /* the block-scaled kinds: each row of A and column of B times its nsf scale factors (the s-th
  ** over elements s K / nsf .. (s + 1) K / nsf - 1); A's rows from each CTA's own scale matrix,
  ** B's from the even CTA's (the odd one must hold the same: which one a pair's MMA reads is not
  ** pinned) */
  double *sfa = NULL, *sfb = NULL;
  size_t nsz = (size_t)nsf;
  if (bs) {
    sfa = malloc(sizeof(double) * (size_t)(M + 2 * N) * nsz);
    if (!sfa) return plX__fail(e, in->stmt, "out of memory");
    sfb = sfa + (size_t)M * nsz;
    uint32_t sat = (uint32_t)(wslot(w, in->d)[l] + (uint64_t)in->target),
             sbt = (uint32_t)(wslot(w, in->d2)[l] + (uint64_t)in->vs);
    for (int k = 0; k < nc && !rc; k++) {
      rc = sf_read(e, in, w, l, cs[k], sat, ma, id.sfa_id, nsf, ue4m3, "scale-A",
                   sfa + (size_t)k * ma * nsz);
      if (!rc)
        rc = sf_read(e, in, w, l, cs[k], sbt, (uint32_t)N, id.sfb_id, nsf, ue4m3, "scale-B",
                     k ? sfb + (size_t)N * nsz : sfb);
    }
    for (size_t i = 0; i < (size_t)N * nsz && !rc && nc == 2; i++) {
      double x = sfb[i], y = sfb[(size_t)N * nsz + i];
      if (x != y && !(x != x && y != y))
        rc = lfail(e, in, w, l,
                   "scale-B of column %u differs between the CTAs of the pair (%g and %g): "
                   "which CTA's scale factors a cta_group::2 MMA reads for B is not emulated",
                   (uint32_t)(i / nsz), x, y);
    }
    if (rc) {
      free(sfa);
      return e->status;
    }
  }
  /* the collector: fill keeps A, use and lastuse read it (the same A as the fill's), discard
  ** and lastuse empty it */
  uint32_t tid = (uint32_t)w->idx * 32 + (uint32_t)l;
  if (in->t3 == 2 || in->t3 == 3) {
    if (!b->coll_pc || b->coll_tid != tid || b->coll_m != (uint32_t)M || b->coll_k != (uint32_t)K) {
      free(sfa);
      return lfail(e, in, w, l,
                   ".collector::a::%s with no A of this shape in the collector: a "
                   ".collector::a::fill by this thread comes first",
                   in->t3 == 2 ? "use" : "lastuse");
    }
    for (size_t i = 0; i < na; i++)
      if (A[i] != b->coll[i] && !(A[i] != A[i] && b->coll[i] != b->coll[i])) {
        uint32_t pc = b->coll_pc - 1;
        free(sfa);
        return lfail(e, in, w, l,
                     ".collector::a::%s: A[%u][%u] differs from what the .collector::a::fill of "
                     "line %s read (the MMA uses the collector's A, not the one A now names)",
                     in->t3 == 2 ? "use" : "lastuse", (uint32_t)(i / (size_t)K),
                     (uint32_t)(i % (size_t)K), line_of(e, pc));
      }
  }
  if (in->t3 == 1) {
    double *cp = realloc(b->coll, sizeof(double) * na);
    if (!cp) {
      free(sfa);
      return plX__fail(e, in->stmt, "out of memory");
    }
    memcpy(cp, A, sizeof(double) * na);
    b->coll = cp;
    b->coll_m = (uint32_t)M;
    b->coll_k = (uint32_t)K;
    b->coll_tid = tid;
    b->coll_pc = (uint32_t)(in - e->xf.code) + 1;
  } else if (in->t3 == 3 || in->t3 == 4)
    b->coll_pc = 0;
  if (bs) {
    int chunk = K / nsf;
    for (uint32_t m = 0; m < (uint32_t)M; m++)
      for (int kk = 0; kk < K; kk++)
        A[m * (size_t)K + (size_t)kk] *= sfa[m * nsz + (size_t)(kk / chunk)];
    for (uint32_t n = 0; n < (uint32_t)N; n++)
      for (int kk = 0; kk < K; kk++)
        B[n * (size_t)K + (size_t)kk] *= sfb[n * nsz + (size_t)(kk / chunk)];
    free(sfa);
  }
  if (id.neg_a)
    for (size_t i = 0; i < na; i++) A[i] = -A[i];
  if (id.neg_b)
    for (size_t i = 0; i < nb; i++) B[i] = -B[i];
  double scale = !bs && in->target > 1 ? ldexp(1.0, -(int)(in->target - 1)) : 1.0;
  /* D, a row's segments at a time (dseg) */
  if (!acc)
    memset(D, 0, sizeof(double) * nd);
  else
    for (uint32_t m = 0; m < (uint32_t)M; m++) {
      plX_dseg sg[2];
      int ns = dseg(M, N, pair, dl, dc, m, sg);
      for (int i = 0; i < ns; i++) {
        const uint32_t *src = cs[sg[i].k]->bw->cell + sg[i].ln * BW_COLS + sg[i].col;
        double *dst = D + m * (size_t)N + sg[i].n0;
        uint32_t cnt = sg[i].cnt;
        if (integer)
          for (uint32_t j = 0; j < cnt; j++) dst[j] = (double)(int32_t)src[j];
        else if (d16)
          for (uint32_t j = 0; j < cnt; j++)
            dst[j] = scale * plX__to_double(src[j] & 0xffffu, XFMT_F16);
        else
          get_f32(dst, src, cnt, scale);
      }
    }
  plX__tc_gemm(M, N, K, A, (size_t)K, B, (size_t)K, D, (size_t)N);
  uint32_t seq = ++b->seq[w->idx], tag = bw_tag(b->ops.n, c->rank);
  plX_tcop op = { (uint32_t)(in - e->xf.code), (uint32_t)w->idx, seq, (uint32_t)l };
  if (!plB_vec_push(b->ops, op)) return plX__fail(e, in->stmt, "out of memory");
  for (uint32_t m = 0; m < (uint32_t)M; m++) {
    plX_dseg sg[2];
    int ns = dseg(M, N, pair, dl, dc, m, sg);
    for (int i = 0; i < ns; i++) {
      uint32_t bi = 128 * sg[i].k + sg[i].ln, cnt = sg[i].cnt;
      if (dis[bi / 32] >> (bi % 32) & 1) continue;
      size_t o = (size_t)sg[i].ln * BW_COLS + sg[i].col;
      uint32_t *cell = cs[sg[i].k]->bw->cell + o, *tg = cs[sg[i].k]->bw->tag + o;
      const double *src = D + m * (size_t)N + sg[i].n0;
      if (integer)
        for (uint32_t j = 0; j < cnt; j++) {
          double v = src[j];
          if (id.saturate)
            v = v > 2147483647.0 ? 2147483647.0 : v < -2147483648.0 ? -2147483648.0 : v;
          cell[j] = (uint32_t)(int64_t)v; /* (wraps without saturate: 8-bit sums are exact) */
        }
      else if (d16)
        for (uint32_t j = 0; j < cnt; j++)
          cell[j] = (uint32_t)plX__round(src[j], 0, XFMT_F16, XR_RN, 0) & 0xffffu;
      else
        put_f32(cell, src, cnt);
      fill_tag(tg, cnt, tag);
    }
  }
  /* the shared bytes stay in use until the MMA completes */
  for (int k = 0; k < nc; k++)
    if (rd_note(e, cs[k], &sa[k], (uint32_t)w->idx, seq, op.pc) ||
        rd_note(e, cs[k], &sb[k], (uint32_t)w->idx, seq, op.pc))
      return e->status;
  return 0;
}

int plX__b_exec_commit(plX_emu *e, plX_warp *w, plX_ins *in, uint32_t em) {
  if (!em) return 0;
  int l = one_lane(e, in, w, em, "commit (one arrival each)");
  if (l < 0) return e->status;
  plX_cta *c;
  uint32_t off;
  if (!plX__h_smem_at(e, in, w, l, addr_of(in, w, l), in->space, (in->fl & XF_CLUSTER) != 0, 8, 8,
                      &c, &off, "mbarrier"))
    return e->status;
  uint32_t mask = 1u << c->rank;
  if (in->sub) {
    mask = (uint32_t)wslot(w, in->c)[l] & 0xffffu;
    uint32_t ncl = e->H.ncl ? e->H.ncl : 1;
    if (!mask || mask >> ncl)
      return lfail(e, in, w, l, "ctaMask 0x%04x names no CTA or one past the cluster's %u", mask,
                   ncl);
  }
  if (plX__h_mb_copy_visible(e, in, w, l, mask, off)) return e->status;
  uint32_t own = e->C->bw->seq[w->idx];
  for (uint32_t r = 0; r < (e->H.ncl ? e->H.ncl : 1); r++) {
    plX_cta *t = e->H.ncl ? &e->ctas[r] : e->C;
    if (!(mask >> t->rank & 1)) continue;
    plX_mbar *m = plX__h_mb_get(e, in, w, l, t, off);
    if (!m) return e->status;
    plX__b_give(e, w, t, m, own);
    if (plX__h_mb_arrive(e, in, w, l, t, m, 1, 0, 0, NULL)) return e->status;
  }
  return 0;
}

/* tcgen05.cp: the shape's rows x bytes read through the descriptor as a K-major matrix of bytes
** (the canonical layouts the MMA operands use), row r into lane r of the tensor-memory address,
** its bytes in increasing columns (byte j at column j / 4, bits 8 (j % 4)); .32x128b.warpx4
** copies its 32 rows into lanes l, 32 + l, 64 + l and 96 + l. cta_group::2: the even CTA's
** instruction copies in both CTAs of the pair, each from its own shared memory at the
** descriptor's address. Ordered before the thread's later MMAs, completed by tcgen05.commit. */
int plX__b_exec_cp(plX_emu *e, plX_warp *w, plX_ins *in, uint32_t em) {
  static const uint32_t ROWS[6] = { 128, 4, 128, 64, 64, 32 },
                        BYTES[6] = { 32, 32, 16, 16, 16, 16 };
  static const char *const NAME[6] = {
    ".128x256b",      ".4x256b", ".128x128b", ".64x128b.warpx2::02_13", ".64x128b.warpx2::01_23",
    ".32x128b.warpx4"
  };
  if (!em) return 0;
  int l = one_lane(e, in, w, em, "tcgen05.cp");
  if (l < 0) return e->status;
  uint32_t s = in->sub;
  if (in->sub2)
    return lfail(e, in, w, l,
                 "tcgen05.cp with .b8x16.%s is not emulated (the ISA gives the packed source "
                 "layout as a figure only)",
                 in->sub2 == 1 ? "b6x16_p32" : "b4x16_p64");
  if (s == 1 || s == 3 || s == 4)
    return lfail(e, in, w, l,
                 "tcgen05.cp%s is not emulated (which tensor-memory lanes its rows land in is "
                 "not pinned by the ISA's text)",
                 NAME[s]);
  plX_cta *c = e->C;
  plX_bw_cta *b = c->bw;
  int pair = in->rnd == 2;
  plX_cta *cs[2] = { c, c };
  if (pair && pair_ctas(e, w, in, l, "cp", cs)) return e->status;
  int nc = pair ? 2 : 1;
  uint32_t ta = (uint32_t)(wslot(w, in->abase)[l] + (uint64_t)in->off), tl = ta >> 16,
           tc = ta & 0xffff, rows = ROWS[s], nby = BYTES[s], ncol = nby / 4;
  if (tl != 0)
    return lfail(e, in, w, l,
                 "tcgen05.cp%s to tensor-memory address 0x%08x: lane field %u, where the copy "
                 "starts at lane 0",
                 NAME[s], ta, tl);
  if (tc + ncol > BW_COLS)
    return lfail(e, in, w, l, "tcgen05.cp columns %u-%u: past column 511", tc, tc + ncol - 1);
  uint64_t desc = wslot(w, in->a)[l];
  double *v = malloc(sizeof(double) * rows * nby * 2);
  if (!v) return plX__fail(e, in->stmt, "out of memory");
  plX_wgrd sp[2];
  memset(sp, 0, sizeof sp);
  for (int k = 0; k < nc; k++) {
    if (plX__b_in_alloc(e, in, w, l, cs[k], tc, tc + ncol, "tcgen05.cp:") ||
        plX__b_write_cells(e, in, w, cs[k], 0, BW_LANES, tc, tc + ncol, "tcgen05.cp")) {
      free(v);
      return e->status;
    }
    e->C = cs[k];
    int rc = plX__h_desc_load(e, in, w, 100, desc, PLT_U8, 0, 0, rows, nby,
                              v + (size_t)k * rows * nby, "the tcgen05.cp source", &sp[k]);
    e->C = c;
    if (rc) {
      free(v);
      return e->status;
    }
  }
  uint32_t seq = ++b->seq[w->idx], tag = bw_tag(b->ops.n, c->rank);
  plX_tcop op = { (uint32_t)(in - e->xf.code), (uint32_t)w->idx, seq, (uint32_t)l };
  if (!plB_vec_push(b->ops, op)) {
    free(v);
    return plX__fail(e, in->stmt, "out of memory");
  }
  uint32_t reps = s == 5 ? 4 : 1;
  for (int k = 0; k < nc; k++)
    for (uint32_t r = 0; r < rows; r++)
      for (uint32_t q = 0; q < reps; q++) {
        uint32_t ln = r + 32 * q;
        for (uint32_t cl = 0; cl < ncol; cl++) {
          uint32_t word = 0;
          for (uint32_t j = 0; j < 4; j++)
            word |= (uint32_t)v[(size_t)k * rows * nby + r * nby + cl * 4 + j] << (8 * j);
          cs[k]->bw->cell[ln * BW_COLS + tc + cl] = word;
          cs[k]->bw->tag[ln * BW_COLS + tc + cl] = tag;
        }
      }
  free(v);
  for (int k = 0; k < nc; k++)
    if (rd_note(e, cs[k], &sp[k], (uint32_t)w->idx, seq, op.pc)) return e->status;
  return 0;
}
