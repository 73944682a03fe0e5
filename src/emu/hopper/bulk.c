/* hopper/bulk.c -- bulk groups (commit, wait_group, the bytes their stores read and write) and
** bulk copies. */
#include "state.h"
#include "fail.h"
#include "mem.h"
#include "layout.h"
#include "race.h"
#include "hooks.h"
#include "hopper.h"
#include "tmap.h"
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

/* ---- bulk groups
** -----------------------------------------------------------------------------------
** cp.async.bulk.commit_group closes a thread's open bulk group; wait_group N completes all but
** its N most recent groups, wait_group.read N only their reads of the source. The emulator
** copies at issue, so what it checks is the program's side: an ld.global (by the issuing CTA) of
** bytes a bulk store still writes, an ordinary shared store over bytes one still reads. Groups
** are numbered per thread from 0; a store joins the open one (the count of commits so far). */
static uint32_t *bg_of(plX_cta *c, uint32_t tid) {
  return c->h.bg + (size_t)tid * 3;
}

/* the range of the sources still unread and the first of them (the generic-write check skips
** every write outside the range, and the read records before the first) */
static void bs_range(plX_cta *c) {
  uint32_t lo = UINT32_MAX, hi = 0, first = c->h.bs.n;
  for (uint32_t i = 0; i < c->h.bs.n; i++) {
    const plX_bst *r = &c->h.bs.p[i];
    if (r->shi <= r->slo) continue;
    if (i < first) first = i;
    if (r->slo < lo) lo = r->slo;
    if (r->shi > hi) hi = r->shi;
  }
  c->h.bs_lo = lo;
  c->h.bs_hi = hi;
  c->h.bs_live = first;
}

/* row j of r's global bytes */
static inline void bst_row(const plX_bst *r, uint32_t j, uint64_t *lo, uint64_t *hi) {
  *lo = r->glo + (uint64_t)j * r->gstride;
  *hi = j + 1 == r->rows ? r->ghi : *lo + r->rw;
}

static void bst_drop(plX_emu *e, plX_cta *c) {
  uint32_t k = 0;
  for (uint32_t i = 0; i < c->h.bs.n; i++) {
    plX_bst *r = &c->h.bs.p[i];
    const uint32_t *g = bg_of(c, r->tid);
    if (r->grp < g[1]) { /* written: gone */
      e->H.gst--;
      c->h.bs_rows -= r->rows;
      if (e->gsync)
        for (uint32_t j = 0; j < r->rows; j++) {
          uint64_t lo, hi;
          bst_row(r, j, &lo, &hi);
          plX__global_done(e, lo, hi);
        }
      continue;
    }
    if (r->grp < g[2]) r->shi = r->slo; /* its source was read */
    if (k != i) c->h.bs.p[k] = *r;      /* (kept in place while nothing before it went) */
    k++;
  }
  c->h.bs.n = k;
  bs_range(c);
}

/* a bulk store by thread tid: shared [slo, shi) read, global [glo, ghi) written, until its group
** completes */
int plX__h_bst_push(plX_emu *e, const plX_ins *in, uint32_t tid, uint32_t slo, uint32_t shi,
                    uint64_t glo, uint64_t ghi) {
  plX_cta *c = e->C;
  if (!c->h.bg) return 0;
  uint32_t grp = bg_of(c, tid)[0], pc = (uint32_t)(in - e->xf.code);
  /* the same TMA store: the bytes after its last row's (that row grows), or its next row (a
  ** record of rows: the ranges one record per row would hold, in the same order) */
  if (c->h.bs.n) {
    plX_bst *l = &c->h.bs.p[c->h.bs.n - 1];
    if (l->tid == tid && l->pc == pc && l->grp == grp && l->slo == slo) {
      uint64_t last = l->glo + (uint64_t)(l->rows - 1) * l->gstride; /* the last row's start */
      if (l->ghi == glo) {
        if (l->rows == 1 || ghi - last <= l->rw) { /* (a row no wider than the others) */
          l->ghi = ghi;
          return 0;
        }
        /* wider than the others: the last row becomes a record of its own */
        l->rows--;
        l->ghi = l->glo + (uint64_t)(l->rows - 1) * l->gstride + l->rw;
        plX_bst r = { tid, grp, pc, l->slo, l->shi, last, ghi, 0, 0, 1 };
        if (!plB_vec_push(c->h.bs, r)) return plX__fail(e, in->stmt, "out of memory");
        e->H.gst++;
        return 0;
      }
      if (c->h.bs_rows >= 65536) return 0; /* a program that never waits: stop tracking */
      if (l->shi == shi && glo > l->glo) {
        uint64_t stride = l->rows == 1 ? glo - l->glo : l->gstride, w = l->ghi - last;
        if (l->rows == 1 ? stride > w : (w == l->rw && glo == last + stride)) {
          l->rw = w;
          l->gstride = stride;
          l->rows++;
          l->ghi = ghi;
          c->h.bs_rows++;
          return 0;
        }
      }
    }
  }
  /* a program that never waits: stop tracking */
  if (c->h.bs_rows >= 65536) return 0;
  plX_bst r = { tid, grp, pc, slo, shi, glo, ghi, 0, 0, 1 };
  if (!c->h.bs.n) c->h.bs_live = 0;
  if (!c->h.bs.n || slo < c->h.bs_lo) c->h.bs_lo = slo;
  if (!c->h.bs.n || shi > c->h.bs_hi) c->h.bs_hi = shi;
  if (!plB_vec_push(c->h.bs, r)) return plX__fail(e, in->stmt, "out of memory");
  e->H.gst++;
  c->h.bs_rows++;
  return 0;
}

/* a generic write by thread tid of the executing CTA into the shared memory of CTA c (its own, or
** another's of the cluster) over the source of a bulk store c's threads issued and no wait_group
** has covered */
int plX__h_bst_overwrite(plX_emu *e, const plX_ins *in, plX_cta *c, uint32_t off, uint32_t n,
                         uint32_t tid) {
  if (off >= c->h.bs_hi || off + n <= c->h.bs_lo) return 0;
  for (uint32_t i = c->h.bs_live; i < c->h.bs.n; i++) {
    const plX_bst *r = &c->h.bs.p[i];
    if (off >= r->shi || off + n <= r->slo) continue;
    plB_buf b;
    plB_buf_init(&b);
    plB_buf_printf(&b, "%s by ", plX__opname(e, in->stmt));
    whot(e, &b, e->C, tid);
    plB_buf_printf(&b, " writes shared byte 0x%x", off > r->slo ? off : r->slo);
    if (c != e->C) plB_buf_printf(&b, " of CTA (%u,%u,%u)", c->ctaid[0], c->ctaid[1], c->ctaid[2]);
    plB_buf_printf(&b, ", which the %s of line %s (by ", plX__opname(e, e->xf.code[r->pc].stmt),
                   line_of(e, r->pc));
    whot(e, &b, c, r->tid);
    plB_buf_puts(&b, ") may still be reading: no cp.async.bulk.wait_group (.read or not) has "
                     "covered its bulk group");
    plX__fail(e, in->stmt, "%s", plB_buf_cstr(&b));
    plB_buf_free(&b);
    return 1;
  }
  return 0;
}

int plX__hop_gload(plX_emu *e, const plX_ins *in, uint64_t a, uint32_t n, uint32_t tid) {
  plX_cta *c = e->C;
  if (in->op != X_LD || !c->h.bs.n) return 0;
  for (uint32_t i = 0; i < c->h.bs.n; i++) {
    const plX_bst *r = &c->h.bs.p[i];
    if (a >= r->ghi || a + n <= r->glo) continue;
    /* the first row it touches */
    uint64_t lo = r->glo, hi = r->ghi;
    if (r->rows > 1) {
      uint32_t j = a > r->glo ? (uint32_t)((a - r->glo) / r->gstride) : 0;
      for (; j < r->rows; j++) {
        bst_row(r, j, &lo, &hi);
        if (a < hi && a + n > lo) break;
        if (lo >= a + n) j = r->rows - 1; /* past it */
      }
      if (j >= r->rows) continue;
    }
    int readonly = r->grp < bg_of(c, r->tid)[2];
    plB_buf b;
    plB_buf_init(&b);
    plB_buf_printf(&b, "%s by ", plX__opname(e, in->stmt));
    whot(e, &b, c, tid);
    plB_buf_printf(&b, " reads global address 0x%llx, which the %s of line %s (by ",
                   (unsigned long long)(a > lo ? a : lo), plX__opname(e, e->xf.code[r->pc].stmt),
                   line_of(e, r->pc));
    whot(e, &b, c, r->tid);
    if (readonly)
      plB_buf_puts(&b,
                   ") may still be writing: its bulk group was waited for with "
                   "cp.async.bulk.wait_group.read only, which waits "
                   "until the source is read, not until the writes are done (wait without .read)");
    else
      plB_buf_puts(
          &b, ") may still be writing: no cp.async.bulk.wait_group has covered its bulk group");
    plX__fail(e, in->stmt, "%s", plB_buf_cstr(&b));
    plB_buf_free(&b);
    return 1;
  }
  return 0;
}

int plX__h_exec_bulkgrp(plX_emu *e, plX_warp *w, plX_ins *in, uint32_t em) {
  plX_cta *c = e->C;
  if (!c->h.bg) return 0;
  LANES(l, em, {
    uint32_t *g = bg_of(c, (uint32_t)w->idx * 32 + (uint32_t)l);
    if (in->op == X_BULKCOMMIT) {
      g[0]++;
      continue;
    }
    uint32_t done = g[0] >= in->c ? g[0] - in->c : 0;
    if (!in->sub2 && done > g[1]) g[1] = done;
    if (done > g[2]) g[2] = done;
  });
  if (in->op == X_BULKWAIT && c->h.bs.n) bst_drop(e, c);
  return 0;
}

/* ---- bulk copies
** ------------------------------------------------------------------------------------ */
/* do the n global bytes at a (both ends in bounds) lie in one buffer? */
static int one_buffer(plX_emu *e, uint64_t a, uint32_t n) {
  int32_t c1 = -1, c2 = -1;
  return plX__find(e->mem, a, &c1) == plX__find(e->mem, a + n - 1, &c2);
}

int plX__h_exec_bulk(plX_emu *e, plX_warp *w, plX_ins *in, uint32_t em) {
  uint64_t *SZ = wslot(w, in->b);
  LANES(l, em, {
    uint32_t tid = (uint32_t)w->idx * 32 + (uint32_t)l;
    uint32_t n = (uint32_t)SZ[l];
    if (n == 0 || n % 16)
      return plX__fail_lanef(e, in, w, l, "the size %u is not a positive multiple of 16", n);
    uint64_t src = plX__h_src_addr(in, w, l);
    plX_ins tmp = *in;
    tmp.space = XS_GLOBAL;
    tmp.cache = -1;
    /* prefetch: bounds only (it reads nothing a thread sees) */
    if (in->sub == 4) {
      if (src % 16)
        return plX__fail_lanef(e, in, w, l, "the global address 0x%llx is not a multiple of 16",
                               (unsigned long long)src);
      if (!plX__mem(e, &tmp, XS_GLOBAL, src, 1, tid, 4) ||
          !plX__mem(e, &tmp, XS_GLOBAL, src + n - 1, 1, tid, 4))
        return e->status;
      continue;
    }
    if (in->sub >= 2 && in->sub != 5) { /* shared::cta -> global */
      plX_cta *c;
      uint32_t off;
      if (!plX__h_smem_at(e, in, w, l, src, XS_SHARED, 0, n, 16, &c, &off, "the source"))
        return e->status;
      if (plX__h_source_read(e, in, w, l, c, off, n)) return e->status;
      uint64_t dst = addr_of(in, w, l);
      if (dst % 16)
        return plX__fail_lanef(e, in, w, l, "the global address 0x%llx is not a multiple of 16",
                               (unsigned long long)dst);
      uint8_t *gp = plX__mem(e, &tmp, XS_GLOBAL, dst, 1, tid, 3),
              *gl = gp ? plX__mem(e, &tmp, XS_GLOBAL, dst + n - 1, 1, tid, 3) : NULL;
      if (!gl) return e->status;
      if (!one_buffer(e, dst, n))
        return plX__fail_lanef(e, in, w, l,
                               "the %u bytes at global 0x%llx run past the end of their buffer", n,
                               (unsigned long long)dst);
      if (plX__h_bst_push(e, in, tid, off, off + n, dst, dst + n)) return e->status;
      if (in->sub == 2) {
        plX_buf *gb = plX__find(e->mem, dst, &tmp.cache);
        if (e->gsync && plX__global_access(e, in, gb, dst - gb->addr, n, tid, 3)) return e->status;
        memmove(gp, c->smem + off, n);
        continue;
      }
      int es = tb(in->t) / 8;
      if (es < 1 || n % (uint32_t)es)
        return plX__fail_lanef(e, in, w, l, "the size is not a whole number of elements");
      /* a reduction: an atomic per element (races check) */
      if (e->gsync) {
        plX_buf *gb = plX__find(e->mem, dst, &tmp.cache);
        if (plX__global_access(e, in, gb, dst - gb->addr, n, tid, 2)) return e->status;
      }
      int dt = in->t == PLT_F32    ? PLB_TM_F32
               : in->t == PLT_F16  ? PLB_TM_F16
               : in->t == PLT_BF16 ? PLB_TM_BF16
               : in->t == PLT_F64  ? PLB_TM_F64
               : in->t == PLT_S32  ? PLB_TM_S32
               : in->t == PLT_S64  ? PLB_TM_S64
               : es == 8           ? PLB_TM_U64
                                   : PLB_TM_U32;
      for (uint32_t j = 0; j < n; j += (uint32_t)es) {
        uint64_t old = 0, v = 0;
        memcpy(&old, gp + j, (size_t)es);
        memcpy(&v, c->smem + off + j, (size_t)es);
        uint64_t r = plX__h_red_apply(in->sub2, dt, old, v);
        memcpy(gp + j, &r, (size_t)es);
      }
      continue;
    }
    uint8_t *data = malloc(n);
    if (!data) return plX__fail(e, in->stmt, "out of memory");
    if (in->sub == 0) { /* global -> shared::cluster */
      if (src % 16) {
        free(data);
        return plX__fail_lanef(e, in, w, l, "the global address 0x%llx is not a multiple of 16",
                               (unsigned long long)src);
      }
      uint8_t *gp = plX__mem(e, &tmp, XS_GLOBAL, src, 1, tid, 4),
              *gl = gp ? plX__mem(e, &tmp, XS_GLOBAL, src + n - 1, 1, tid, 4) : NULL;
      if (!gl) {
        free(data);
        return e->status;
      }
      if (!one_buffer(e, src, n)) {
        free(data);
        return plX__fail_lanef(e, in, w, l,
                               "the %u bytes at global 0x%llx run past the end of their buffer", n,
                               (unsigned long long)src);
      }
      /* its bytes: plain reads by the issuing thread */
      if (e->gsync) {
        plX_buf *gb = plX__find(e->mem, src, &tmp.cache);
        if (plX__global_access(e, in, gb, src - gb->addr, n, tid, 5)) {
          free(data);
          return e->status;
        }
      }
      memcpy(data, gp, n);
      /* shared::cta -> shared::cluster */
    } else {
      plX_cta *c;
      uint32_t off;
      if (!plX__h_smem_at(e, in, w, l, src, XS_SHARED, 0, n, 16, &c, &off, "the source")) {
        free(data);
        return e->status;
      }
      if (plX__h_source_read(e, in, w, l, c, off, n)) {
        free(data);
        return e->status;
      }
      memcpy(data, c->smem + off, n);
    }
    plX_cta *dc;
    uint32_t doff;
    if (!plX__h_smem_at(e, in, w, l, addr_of(in, w, l), XS_SHARED, 1, n, 16, &dc, &doff,
                        "the destination")) {
      free(data);
      return e->status;
    }
    plX_cta *mc;
    uint32_t moff;
    if (!plX__h_smem_at(e, in, w, l, plX__h_mbar_addr(in, w, l), XS_SHARED, 1, 8, 8, &mc, &moff,
                        "the mbarrier")) {
      free(data);
      return e->status;
    }
    if (mc != dc) {
      free(data);
      return plX__fail_lanef(e, in, w, l, "the mbarrier is in another CTA than the destination");
    }
    uint32_t mask = 1u << dc->rank;
    if (in->fl & XF_CLUSTER) {
      mask = (uint32_t)wslot(w, in->c)[l] & 0xffffu;
      if (!mask || (mask >> e->H.ncl)) {
        free(data);
        return plX__fail_lanef(e, in, w, l, "ctaMask 0x%x names CTAs outside the cluster of %u",
                               mask, e->H.ncl);
      }
    }
    if (plX__h_mb_copy_visible(e, in, w, l, mask, moff)) {
      free(data);
      return e->status;
    }
    if (e->nregions) { /* inside the allocation */
      char what[48];
      snprintf(what, sizeof what, "%u bytes", n);
      if (plX__region_check(e, in, w, l, doff, n, what)) {
        free(data);
        return e->status;
      }
    }
    if (plX__h_queue(e, in, tid, mask, doff, n, moff, n, data, NULL, -1, -1)) return e->status;
    /* cp.reduce.async.bulk: applied as it lands */
    if (in->sub == 5) {
      int es = tb(in->t) / 8;
      plX_async *q = &e->H.q.p[e->H.q.n - 1];
      q->red = in->sub2;
      q->rdt = in->t == PLT_S32 ? PLB_TM_S32 : es == 8 ? PLB_TM_U64 : PLB_TM_U32;
    }
  });
  return 0;
}
