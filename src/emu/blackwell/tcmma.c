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

/* one more read of shared bytes by op seq of this warp: joins a record of the same instruction and
** warp it overlaps or touches (the k-steps and stages of one MMA loop) */
static int rd_note(plX_emu *e, plX_cta *c, const plX_wgrd *span, uint32_t warp, uint32_t seq,
                   uint32_t pc) {
  plX_bw_cta *b = c->bw;
  if (span->hi <= span->lo) return 0;
  for (uint32_t i = 0; i < b->rd.n; i++) {
    plX_tcrd *r = &b->rd.p[i];
    if (r->pc != pc || r->warp != warp || r->rank != e->C->rank || span->lo > r->hi ||
        r->lo > span->hi)
      continue;
    if (span->lo < r->lo) r->lo = span->lo;
    if (span->hi > r->hi) r->hi = span->hi;
    r->seq = seq;
    return 0;
  }
  plX_tcrd r = { span->lo, span->hi, e->C->rank, warp, seq, pc };
  return plB_vec_push(b->rd, r) ? 0 : plX__fail(e, X_NOSLOT, "out of memory");
}

int plX__b_exec_mma(plX_emu *e, plX_warp *w, plX_ins *in, uint32_t em) {
  if (!em) return 0;
  int l = one_lane(e, in, w, em, "MMA");
  if (l < 0) return e->status;
  plX_cta *c = e->C;
  plX_bw_cta *b = c->bw;
  if (in->rnd == 2)
    return lfail(e, in, w, l, "tcgen05.mma.cta_group::2 is not emulated (CTA pairs: not yet)");
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
  int K = in->sub2 == PLTC_F16 ? 16 : in->sub2 == PLTC_TF32 ? 8 : 32;
  int integer = in->sub2 == PLTC_I8, atmem = in->sub & 1;
  if (at < 0 || bt < 0)
    return lfail(e, in, w, l,
                 ".kind::f8f6f4 with %s x %s is not emulated (the shared-memory container of 6- "
                 "and 4-bit elements is not pinned)",
                 plB_tc_type_name(id.a), plB_tc_type_name(id.b));
  if (id.d == PLTC_T_F16)
    return lfail(e, in, w, l,
                 "an f16 D is not emulated (where 16-bit accumulators land in tensor memory is "
                 "not pinned)");
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
  /* D: its lanes and columns */
  uint32_t dta = (uint32_t)(wslot(w, in->abase)[l] + (uint64_t)in->off), dl = dta >> 16,
           dc = dta & 0xffff;
  if (M == 128 ? dl != 0 : dl != 0 && dl != 16)
    return lfail(e, in, w, l,
                 "D at tensor-memory address 0x%08x: lane field %u, where an M=%d D starts at %s",
                 dta, dl, M, M == 128 ? "lane 0" : "lane 0 or 16");
  if (dc + (uint32_t)N > BW_COLS)
    return lfail(e, in, w, l, "D columns %u-%u: past column 511", dc, dc + (uint32_t)N - 1);
  if (plX__b_in_alloc(e, in, w, l, c, dc, dc + (uint32_t)N, "D:")) return e->status;
  uint32_t al = 0, ac = 0;
  if (atmem) {
    uint32_t ata = (uint32_t)(wslot(w, in->a)[l] + (uint64_t)in->off2);
    al = ata >> 16;
    ac = ata & 0xffff;
    if (al != dl)
      return lfail(e, in, w, l,
                   "A in tensor memory at lane %u and D at lane %u: they need the same lane "
                   "alignment",
                   al, dl);
    if (ac + 8 > BW_COLS || plX__b_in_alloc(e, in, w, l, c, ac, ac + 8, "A:"))
      return e->status ? e->status : lfail(e, in, w, l, "A columns past column 511");
  }
  /* disable-output-lane: bit i of the mask skips lane i */
  uint32_t dis[8] = { 0 };
  for (uint32_t i = 0; i < in->vec; i++) dis[i] = (uint32_t)wslot(w, e->xf.vslots[in->vs + i])[l];
  int acc = (int)((w->P[in->c] >> l) & 1) ^ ((in->fl & XF_NEGC) != 0);
  /* what it reads of tensor memory: A there, and D when accumulating */
  for (uint32_t q = 0; q < (uint32_t)M / 16; q++) {
    uint32_t l0 = row_lane(M, dl, 16 * q);
    if (atmem &&
        plX__b_read_cells(e, in, w, l, c, l0, l0 + 16, ac, ac + 8, 1, 1, "tcgen05.mma (A)"))
      return e->status;
    if (!acc) continue;
    for (uint32_t ln = l0; ln < l0 + 16; ln++) {
      if (dis[ln / 32] >> (ln % 32) & 1) continue;
      for (uint32_t n = dc; n < dc + (uint32_t)N; n++)
        if (!b->tag[ln * BW_COLS + n])
          return lfail(e, in, w, l,
                       "enable-input-d is true, but D's lane %u, column %u was never written: the "
                       "first MMA into an accumulator passes false (tensor memory is not zeroed)",
                       ln, n);
    }
    if (plX__b_read_cells(e, in, w, l, c, l0, l0 + 16, dc, dc + (uint32_t)N, 1, 0,
                          "tcgen05.mma (D)"))
      return e->status;
  }
  for (uint32_t q = 0; q < (uint32_t)M / 16; q++) {
    uint32_t l0 = row_lane(M, dl, 16 * q);
    if (plX__b_write_cells(e, in, w, c, l0, l0 + 16, dc, dc + (uint32_t)N, "tcgen05.mma"))
      return e->status;
  }
  /* the operands, as doubles */
  size_t na = (size_t)M * (size_t)K, nb = (size_t)N * (size_t)K, nd = (size_t)M * (size_t)N;
  double *A = malloc(sizeof(double) * (na + nb + nd));
  if (!A) return plX__fail(e, in->stmt, "out of memory");
  double *B = A + na, *D = B + nb;
  plX_wgrd sa, sb;
  memset(&sa, 0, sizeof sa);
  memset(&sb, 0, sizeof sb);
  int rc = 0;
  if (atmem) {
    int bits = tb(at);
    for (uint32_t m = 0; m < (uint32_t)M; m++) {
      const uint32_t *row = b->cell + row_lane(M, dl, m) * BW_COLS + ac;
      for (int k = 0; k < K; k++) {
        uint32_t bit = (uint32_t)(k * bits);
        A[m * (size_t)K + (size_t)k] = plX__h_elem(row[bit / 32] >> (bit % 32), at);
      }
    }
  } else
    rc = plX__h_desc_load(e, in, w, 100, adesc, at, id.trans_a, 0, (uint32_t)M, (uint32_t)K, A,
                          "operand A", &sa);
  if (!rc)
    rc = plX__h_desc_load(e, in, w, 100, bdesc, bt, id.trans_b, 0, (uint32_t)N, (uint32_t)K, B,
                          "operand B", &sb);
  if (rc) {
    free(A);
    return e->status;
  }
  /* the collector: fill keeps A, use and lastuse read it (the same A as the fill's), discard
  ** and lastuse empty it */
  uint32_t tid = (uint32_t)w->idx * 32 + (uint32_t)l;
  if (in->t3 == 2 || in->t3 == 3) {
    if (!b->coll_pc || b->coll_tid != tid || b->coll_m != (uint32_t)M || b->coll_k != (uint32_t)K) {
      free(A);
      return lfail(e, in, w, l,
                   ".collector::a::%s with no A of this shape in the collector: a "
                   ".collector::a::fill by this thread comes first",
                   in->t3 == 2 ? "use" : "lastuse");
    }
    for (size_t i = 0; i < na; i++)
      if (A[i] != b->coll[i] && !(A[i] != A[i] && b->coll[i] != b->coll[i])) {
        uint32_t pc = b->coll_pc - 1;
        free(A);
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
      free(A);
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
  if (id.neg_a)
    for (size_t i = 0; i < na; i++) A[i] = -A[i];
  if (id.neg_b)
    for (size_t i = 0; i < nb; i++) B[i] = -B[i];
  double scale = in->target > 1 ? ldexp(1.0, -(int)(in->target - 1)) : 1.0;
  for (uint32_t m = 0; m < (uint32_t)M; m++) {
    const uint32_t *row = b->cell + row_lane(M, dl, m) * BW_COLS + dc;
    for (uint32_t n = 0; n < (uint32_t)N; n++)
      D[m * (size_t)N + n] = !acc      ? 0
                             : integer ? (double)(int32_t)row[n]
                                       : scale * (double)f32(row[n]);
  }
  plX__tc_gemm(M, N, K, A, (size_t)K, B, (size_t)K, D, (size_t)N);
  uint32_t seq = ++b->seq[w->idx], tag = bw_tag(b->ops.n, c->rank);
  plX_tcop op = { (uint32_t)(in - e->xf.code), (uint32_t)w->idx, seq, (uint32_t)l };
  if (!plB_vec_push(b->ops, op)) {
    free(A);
    return plX__fail(e, in->stmt, "out of memory");
  }
  for (uint32_t m = 0; m < (uint32_t)M; m++) {
    uint32_t ln = row_lane(M, dl, m);
    if (dis[ln / 32] >> (ln % 32) & 1) continue;
    uint32_t *row = b->cell + ln * BW_COLS + dc, *tg = b->tag + ln * BW_COLS + dc;
    for (uint32_t n = 0; n < (uint32_t)N; n++) {
      double v = D[m * (size_t)N + n];
      if (integer) {
        if (id.saturate)
          v = v > 2147483647.0 ? 2147483647.0 : v < -2147483648.0 ? -2147483648.0 : v;
        row[n] = (uint32_t)(int64_t)v; /* (wraps without .satfinite: 8-bit sums are exact) */
      } else
        row[n] = (uint32_t)c32((float)v);
      tg[n] = tag;
    }
  }
  free(A);
  /* the shared bytes stay in use until the MMA completes */
  if (rd_note(e, c, &sa, (uint32_t)w->idx, seq, op.pc) ||
      rd_note(e, c, &sb, (uint32_t)w->idx, seq, op.pc))
    return e->status;
  return 0;
}

int plX__b_exec_commit(plX_emu *e, plX_warp *w, plX_ins *in, uint32_t em) {
  if (!em) return 0;
  int l = one_lane(e, in, w, em, "commit (one arrival each)");
  if (l < 0) return e->status;
  if (in->rnd == 2)
    return lfail(e, in, w, l, "tcgen05.commit.cta_group::2 is not emulated (CTA pairs: not yet)");
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
