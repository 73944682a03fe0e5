/* hopper/tma.c -- TMA: cp.async.bulk.tensor loads, stores, reductions and prefetches through a
** tensor map. */
#include "state.h"
#include "fail.h"
#include "mem.h"
#include "layout.h"
#include "race.h"
#include "fp.h"
#include "hooks.h"
#include "hopper.h"
#include "smem.h"
#include "tmap.h"
#include <stdlib.h>
#include <string.h>

/* ---- TMA
** ------------------------------------------------------------------------------------------- */
uint64_t plX__h_red_apply(int op, int dt, uint64_t old, uint64_t v) {
  int fmt = dt == PLB_TM_F16                             ? XFMT_F16
            : dt == PLB_TM_BF16                          ? XFMT_BF16
            : (dt == PLB_TM_F32 || dt == PLB_TM_F32_FTZ) ? XFMT_F32
            : dt == PLB_TM_F64                           ? XFMT_F64
                                                         : -1;
  int sgn = dt == PLB_TM_S32 || dt == PLB_TM_S64;
  int bits = plX__h_tm_esize(dt) * 8;
  if (fmt >= 0) {
    double a = plX__to_double(old, fmt), b = plX__to_double(v, fmt);
    switch (op) {
    case XA_ADD: return plX__add(a, b, fmt, XR_RN);
    case XA_MIN: return (b < a || a != a) ? v : old;
    case XA_MAX: return (b > a || a != a) ? v : old;
    default: return old;
    }
  }
  switch (op) {
  case XA_ADD: return zx(old + v, bits);
  case XA_MIN:
    return sgn ? (sx(v, bits) < sx(old, bits) ? v : old) : (zx(v, bits) < zx(old, bits) ? v : old);
  case XA_MAX:
    return sgn ? (sx(v, bits) > sx(old, bits) ? v : old) : (zx(v, bits) > zx(old, bits) ? v : old);
  case XA_INC: return zx(old >= v ? 0 : old + 1, bits);
  case XA_DEC: return zx((old == 0 || old > v) ? v : old - 1, bits);
  case XA_AND: return old & v;
  case XA_OR: return old | v;
  case XA_XOR: return old ^ v;
  }
  return old;
}

static int red_ok(int op, int dt) {
  int fl = dt == PLB_TM_F16 || dt == PLB_TM_BF16 || dt == PLB_TM_F32 || dt == PLB_TM_F32_FTZ ||
           dt == PLB_TM_F64;
  if (dt == PLB_TM_TF32 || dt == PLB_TM_TF32_FTZ) return 0;
  if (fl) return op == XA_ADD || op == XA_MIN || op == XA_MAX;
  return 1;
}

/* im2col: the next pixel of the walk px (W, H, D, then N; dims - 1 entries): each spatial
** coordinate steps by its element stride and, past the pixel box's upper corner, wraps to its
** lower corner carrying into the next dimension; N has no box */
static void pix_step(const plX_tmap *t, int dims, int64_t *px) {
  for (int i = 0; i < dims - 1; i++) {
    px[i] += t->es[i + 1];
    if (i == dims - 2 || px[i] <= (int64_t)t->dims[i + 1] - 1 + t->hi[i]) return;
    px[i] = t->lo[i];
  }
}

/* the NaN OOB fill (CU_TENSOR_MAP_FLOAT_OOB_FILL_NAN_REQUEST_ZERO_FMA) of a 2- or 4-byte float:
** the quiet NaN with every payload bit set */
static void oob_nan(uint8_t *p, int es) {
  uint32_t v = es == 2 ? 0x7fffu : 0x7fffffffu;
  memcpy(p, &v, (size_t)es);
}

/* the box row that starts at box element k (a multiple of cnt[0]): 0 when its outer coordinates
** lie outside the tensor; else 1, *ga the global address of the row's element 0 (coordinate
** c0[0]), elements [*lo, *hi) of the row in bounds (*lo == *hi: none) */
static int row_place(const plX_tmap *t, int dims, const int64_t *c0, const uint32_t *cnt,
                     uint32_t k, uint64_t *ga, int64_t *lo, int64_t *hi) {
  uint32_t rem = k / cnt[0];
  uint64_t a = t->addr;
  for (int i = 1; i < dims; i++) {
    uint32_t ki = rem % cnt[i];
    rem /= cnt[i];
    int64_t g = c0[i] + (int64_t)ki * t->es[i];
    if (g < 0 || (uint64_t)g >= t->dims[i]) return 0;
    a += (uint64_t)g * t->strides[i];
  }
  int64_t n0 = cnt[0], l = c0[0] < 0 ? -c0[0] : 0, end = (int64_t)t->dims[0] - c0[0];
  if (l > n0) l = n0;
  int64_t h = end < n0 ? end : n0;
  if (h < l) h = l;
  *ga = a;
  *lo = l;
  *hi = h;
  return 1;
}

/* a tile-mode load whose innermost dimension has element stride 1, without the races check on
** global memory: a row of the box at a time, the run of it in bounds read from one buffer and
** written in the 16-byte pieces the swizzle keeps whole; the same bytes as the element loop.
** 1 (nothing reported) where a run is not inside one buffer: the element loop then does it all
** again and names the element */
static int load_rows(plX_emu *e, const plX_tmap *t, int dims, const int64_t *c0,
                     const uint32_t *cnt, uint32_t total, uint32_t off, uint8_t *data,
                     uint8_t *valid) {
  uint32_t es = (uint32_t)t->esize, n0 = cnt[0];
  int32_t cache = -1;
  /* the swizzle (plB_sm_swizzle's): it moves whole 16-byte pieces; within 128-byte groups when
  ** the XOR lands in bits 4-6 */
  uint32_t mask = plB_sm_swizzle_mask(t->sw), in128 = ((mask >> 3) & ~0x70u) == 0;
#define SWZ(p) ((p) ^ (((p)&mask) >> 3))
  for (uint32_t k = 0; k < total; k += n0) {
    uint64_t ga = 0;
    int64_t lo, hi;
    if (!row_place(t, dims, c0, cnt, k, &ga, &lo, &hi)) lo = hi = n0;
    uint32_t p0 = off + k * es, pe = p0 + n0 * es;
    if (in128 && !((p0 | pe) & 127)) /* every byte of the row is written: whole groups */
      memset(valid + (p0 - off), 1, pe - p0);
    else
      for (uint32_t p = p0; p < pe;) {
        uint32_t n = 16 - (p & 15);
        if (n > pe - p) n = pe - p;
        memset(valid + (SWZ(p) - off), 1, n);
        p += n;
      }
    if (t->oob)
      for (int64_t j = 0; j < n0; j++)
        if (j < lo || j >= hi) oob_nan(data + (SWZ(p0 + (uint32_t)j * es) - off), t->esize);
    if (hi == lo) continue;
    ga += (uint64_t)(c0[0] + lo) * es;
    uint32_t nb = (uint32_t)(hi - lo) * es;
    plX_buf *gb = plX__find(e->mem, ga, &cache);
    if (!gb || ga - gb->addr + nb > gb->size) return 1;
    const uint8_t *gp = gb->p + (ga - gb->addr);
    for (uint32_t p = p0 + (uint32_t)lo * es, q = p + nb; p < q;) {
      uint32_t n = 16 - (p & 15);
      if (n > q - p) n = q - p;
      if (n == 16)
        memcpy(data + (SWZ(p) - off), gp, 16);
      else
        memcpy(data + (SWZ(p) - off), gp, n);
      gp += n;
      p += n;
    }
  }
#undef SWZ
  return 0;
}

/* a tile-mode store (no reduction) whose innermost dimension has element stride 1, without the
** races check on global memory: first every row's run in bounds is checked to lie in one
** writable buffer (else 1, nothing done: the element loop does it all and names the element),
** then each run is pushed to the bulk group as one range (what its elements would make, one after
** another) and copied from the swizzled source in 16-byte pieces; *stored: the elements written */
static int store_rows(plX_emu *e, const plX_ins *in, uint32_t tid, const plX_tmap *t, int dims,
                      const int64_t *c0, const uint32_t *cnt, uint32_t total, uint32_t off,
                      uint32_t span, uint32_t *stored) {
  uint32_t es = (uint32_t)t->esize, n0 = cnt[0];
  uint32_t mask = plB_sm_swizzle_mask(t->sw);
  const plX_cta *c = e->C;
  for (int pass = 0; pass < 2; pass++) {
    int32_t cache = -1;
    for (uint32_t k = 0; k < total; k += n0) {
      uint64_t ga = 0;
      int64_t lo, hi;
      if (!row_place(t, dims, c0, cnt, k, &ga, &lo, &hi) || hi <= lo) continue;
      ga += (uint64_t)(c0[0] + lo) * es;
      uint32_t nb = (uint32_t)(hi - lo) * es;
      plX_buf *gb = plX__find(e->mem, ga, &cache);
      if (!pass) {
        if (!gb || ga - gb->addr + nb > gb->size || gb->ro) return 1;
        continue;
      }
      if (plX__h_bst_push(e, in, tid, off, off + span, ga, ga + nb)) return -1;
      *stored += (uint32_t)(hi - lo);
      uint8_t *gp = gb->p + (ga - gb->addr);
      for (uint32_t p = off + (k + (uint32_t)lo) * es, q = p + nb; p < q;) {
        uint32_t n = 16 - (p & 15);
        if (n > q - p) n = q - p;
        uint32_t sp = p ^ ((p & mask) >> 3); /* plB_sm_swizzle's */
        if (n == 16)
          memcpy(gp, c->smem + sp, 16);
        else
          memcpy(gp, c->smem + sp, n);
        gp += n;
        p += n;
      }
    }
  }
  return 0;
}

/* in->t2: 1 for the im2col forms (loads and prefetches take D-2 offsets after the coordinates in
** the vector slots; stores and reductions are .im2col_no_offs) */
int plX__h_exec_tma(plX_emu *e, plX_warp *w, plX_ins *in, uint32_t em) {
  const uint32_t *vs = e->xf.vslots + in->vs;
  int dims = in->vec, i2c = in->t2 == 1;
  LANES(l, em, {
    uint32_t tid = (uint32_t)w->idx * 32 + (uint32_t)l;
    plX_tmap t;
    if (plX__h_tm_read(e, in, w, l, wslot(w, vs[0])[l], &t)) return e->status;
    if (t.mode != i2c)
      return plX__fail_lanef(
          e, in, w, l,
          i2c ? "an im2col copy through a tile-mode tensor map (make one with dev:tensormap(array, "
                "{ mode = \"im2col\", ... }))"
              : "a tile-mode copy through an im2col tensor map (it takes the .im2col forms)");
    if (t.rank != dims)
      return plX__fail_lanef(e, in, w, l, "a %dd copy through a tensor map of rank %d", dims,
                             t.rank);
    int64_t c0[5], ioff[3] = { 0, 0, 0 };
    for (int i = 0; i < dims; i++) c0[i] = (int32_t)wslot(w, vs[1 + i])[l];
    if (i2c && (in->sub == 0 || in->sub == 3)) /* the im2col offsets: signed 16-bit */
      for (int i = 0; i < dims - 2; i++) ioff[i] = (int16_t)wslot(w, vs[1 + dims + i])[l];
    /* prefetch: checked, no effect */
    if (in->sub == 3) continue;
    if (in->sub == 2 && !red_ok(in->sub2, t.dtype))
      return plX__fail_lanef(e, in, w, l,
                             "this reduction is not defined for the tensor map's element type");
    uint32_t cnt[5] = { 1, 1, 1, 1, 1 }, total = 1;
    /* ppc pixels of cpp channels each */
    if (i2c)
      total = t.cpp * t.ppc;
    else
      for (int i = 0; i < dims; i++) {
        cnt[i] = (t.box[i] + t.es[i] - 1) / t.es[i];
        total *= cnt[i];
      }
    int64_t px[4] = { 0, 0, 0, 0 };
    for (int i = 1; i < dims; i++) px[i - 1] = c0[i];
    uint32_t bytes = total * (uint32_t)t.esize;
    uint32_t span = t.sw ? (bytes + 127) / 128 * 128 : bytes;
    plX_cta *c;
    uint32_t off;
    int ld = in->sub == 0;
    /* a load's destination: any CTA of the cluster, its own with .shared::cta */
    if (!plX__h_smem_at(e, in, w, l, addr_of(in, w, l), XS_SHARED, ld && !(in->sub2 & 4), span, 128,
                        &c, &off, ld ? "the destination" : "the source"))
      return e->status;
    uint8_t *data = NULL, *valid = NULL;
    if (ld) {
      data = calloc(span, 1);
      valid = calloc(span, 1);
      if (!data || !valid) {
        free(data);
        free(valid);
        return plX__fail(e, in->stmt, "out of memory");
      }
    } else if (plX__h_source_read(e, in, w, l, c, off, span))
      return e->status;
    int32_t cache = -1;
    /* elements in bounds (a store) */
    uint32_t stored = 0;
    int rows = ld && !i2c && t.es[0] == 1 && !e->gsync &&
               !load_rows(e, &t, dims, c0, cnt, total, off, data, valid);
    if (!ld && in->sub == 1 && !i2c && t.es[0] == 1 && !e->gsync) {
      int r = store_rows(e, in, tid, &t, dims, c0, cnt, total, off, span, &stored);
      if (r < 0) return e->status;
      rows = r == 0;
    }
    for (uint32_t k = rows ? total : 0; k < total; k++) {
      uint32_t lin = k * (uint32_t)t.esize;
      int64_t g[5];
      /* pixel k / cpp, channel k % cpp */
      if (i2c) {
        uint32_t ch = k % t.cpp;
        if (ch == 0 && k) pix_step(&t, dims, px);
        g[0] = c0[0] + ch;
        for (int i = 1; i < dims - 1; i++) g[i] = px[i - 1] + ioff[i - 1];
        g[dims - 1] = px[dims - 2];
      } else {
        uint32_t rem = k;
        for (int i = 0; i < dims; i++) {
          uint32_t ki = rem % cnt[i];
          rem /= cnt[i];
          g[i] = c0[i] + (int64_t)ki * t.es[i];
        }
      }
      int inb = 1;
      uint64_t ga = t.addr;
      for (int i = 0; i < dims; i++) {
        if (g[i] < 0 || (uint64_t)g[i] >= t.dims[i])
          inb = 0;
        else
          ga += (uint64_t)g[i] * t.strides[i];
      }
      /* the swizzle of the absolute address */
      uint32_t so = plB_sm_swizzle(t.sw, off + lin) - off;
      if (ld) {
        for (int b = 0; b < t.esize; b++) valid[so + (uint32_t)b] = 1;
      }
      /* zeros (or NaN) on a load, skipped on a store */
      if (!inb) {
        if (ld && t.oob) oob_nan(data + so, t.esize);
        continue;
      }
      plX_buf *gb = plX__find(e->mem, ga, &cache);
      if (!gb || ga - gb->addr + (uint64_t)t.esize > gb->size) {
        if (data) {
          free(data);
          free(valid);
        }
        plB_buf b;
        plB_buf_init(&b);
        plB_buf_printf(&b, "the tensor map's element at ");
        plX__describe_addr(e, &b, ga, (uint64_t)t.esize);
        plB_buf_puts(&b, " (was its array freed?)");
        plX__fail_lane(e, in, w, l, plB_buf_cstr(&b));
        plB_buf_free(&b);
        return e->status;
      }
      uint8_t *gp = gb->p + (ga - gb->addr);
      /* bulk group tracking */
      if (!ld && plX__h_bst_push(e, in, tid, off, off + span, ga, ga + (uint64_t)t.esize))
        return e->status;
      stored++;
      /* a plain read by the issuing thread (races check) */
      if (ld) {
        if (e->gsync && plX__global_access(e, in, gb, ga - gb->addr, (uint32_t)t.esize, tid, 5)) {
          free(data);
          free(valid);
          return e->status;
        }
        memcpy(data + so, gp, (size_t)t.esize);
      } else if (gb->ro)
        return plX__fail_lanef(e, in, w, l, "a TMA store into constant memory");
      else if (in->sub == 1) {
        if (e->gsync && plX__global_access(e, in, gb, ga - gb->addr, (uint32_t)t.esize, tid, 3))
          return e->status;
        memcpy(gp, c->smem + off + so, (size_t)t.esize);
      }
      /* a reduction: an atomic per element (races check) */
      else {
        if (e->gsync && plX__global_access(e, in, gb, ga - gb->addr, (uint32_t)t.esize, tid, 2))
          return e->status;
        uint64_t old = 0, v = 0;
        memcpy(&old, gp, (size_t)t.esize);
        memcpy(&v, c->smem + off + so, (size_t)t.esize);
        uint64_t r = plX__h_red_apply(in->sub2, t.dtype, old, v);
        memcpy(gp, &r, (size_t)t.esize);
      }
    }
    /* a box wholly outside the tensor writes nothing, and still reads its source until its group
    ** completes (.read): the source-overwrite check needs its record */
    if (!ld && !stored && in->sub != 3 && plX__h_bst_push(e, in, tid, off, off + span, 0, 0))
      return e->status;
    if (!ld) continue;
    uint32_t mask = 1u << c->rank;
    if (in->fl & XF_CLUSTER) {
      mask = (uint32_t)wslot(w, in->c)[l] & 0xffffu;
      if (!mask || (mask >> e->H.ncl)) {
        free(data);
        free(valid);
        return plX__fail_lanef(e, in, w, l, "ctaMask 0x%x names CTAs outside the cluster of %u",
                               mask, e->H.ncl);
      }
    }
    plX_cta *mc;
    uint32_t moff;
    if (!plX__h_smem_at(e, in, w, l, plX__h_mbar_addr(in, w, l), XS_SHARED, 1, 8, 8, &mc, &moff,
                        "the mbarrier")) {
      free(data);
      free(valid);
      return e->status;
    }
    /* .cta_group::2: the mbarrier may be the destination's peer's (rank ^ 1); with a multicast,
    ** each destination signals the CTA of mc's parity in its own pair */
    int bpar = -1, cg = in->sub2 & 3;
    uint32_t bmask = mask;
    if (cg == 2 && (e->H.ncl % 2 || (mc->rank >> 1) != (c->rank >> 1))) {
      free(data);
      free(valid);
      return plX__fail_lanef(
          e, in, w, l,
          e->H.ncl % 2 ? "a .cta_group::2 copy in a cluster of %u CTAs: CTA pairs need an even "
                         "cluster"
                       : "with .cta_group::2 the mbarrier is in the destination's CTA or its peer "
                         "(rank ^ 1); here it is in CTA rank %u, the destination in rank %u",
          e->H.ncl % 2 ? e->H.ncl : mc->rank, c->rank);
    }
    if (cg == 2) {
      bpar = (int)(mc->rank & 1);
      bmask = 0;
      for (uint32_t r = 0; r < e->H.ncl; r++)
        if (mask >> r & 1) bmask |= 1u << ((r & ~1u) | (uint32_t)bpar);
    } else if (mc != c) {
      free(data);
      free(valid);
      return plX__fail_lanef(e, in, w, l,
                             cg ? "with .cta_group::1 the mbarrier is in the destination's CTA; "
                                  "here it is in CTA rank %u, the destination in rank %u"
                                : "the mbarrier is in another CTA than the destination (rank %u, "
                                  "the destination rank %u; .cta_group::2 on sm_100 allows the "
                                  "peer's)",
                             mc->rank, c->rank);
    }
    if (plX__h_mb_copy_visible(e, in, w, l, bmask, moff)) {
      free(data);
      free(valid);
      return e->status;
    }
    if (e->nregions) { /* inside the tile it lands in */
      uint32_t wn = span;
      while (wn && !valid[wn - 1]) wn--;
      plB_buf wb;
      plB_buf_init(&wb); /* what the copy is */
      if (i2c)
        plB_buf_printf(&wb, "%u pixels of %u channels of %d bytes", t.ppc, t.cpp, t.esize);
      else {
        plB_buf_puts(&wb, "a box of ");
        for (int i = 0; i < dims; i++) plB_buf_printf(&wb, i ? " x %u" : "%u", cnt[i]);
        plB_buf_printf(&wb, " %d-byte elements, %u bytes", t.esize, bytes);
      }
      int bad = plX__region_check(e, in, w, l, off, wn, plB_buf_cstr(&wb));
      plB_buf_free(&wb);
      if (bad) {
        free(data);
        free(valid);
        return e->status;
      }
    }
    if (plX__h_queue(e, in, tid, mask, off, span, moff, bytes, data, valid, t.sw, bpar))
      return e->status;
  });
  return 0;
}
