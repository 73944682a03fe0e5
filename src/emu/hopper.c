/* hopper.c -- the Hopper families: mbarrier objects (phases, arrival and transaction counts),
** TMA tensor copies and bulk copies (with the emulator's tensor maps), wgmma from registers and
** matrix descriptors, clusters (barrier.cluster, mapa, distributed shared memory, multicast),
** elect.sync, setmaxnreg budgets, and the async-proxy checks (fence.proxy.async, the swizzle a tile
** was written with, writes into a wgmma's operands before its wait_group).
**
** Copies into shared memory (TMA loads, bulk copies) are read from their source when issued and land
** when every warp of the cluster waits (emu.c's scheduler calls plX__hop_flush): the latest moment
** the hardware could deliver them, so code that reads a destination before its mbarrier says so
** sees stale bytes (and the uninit_shared check names the copy). Copies out of shared memory (TMA
** stores and reductions, bulk stores) happen when issued; bulk groups are counted per thread so that
** touching their bytes before the wait_group that covers them is reported. tensormap.replace edits
** the emulator's tensor maps in memory, with the tensormap-proxy fences checked at the TMA.
** try_wait and test_wait suspend the thread until the phase completes. */
#include "state.h"
#include "fail.h"
#include "mem.h"
#include "layout.h"
#include "race.h"
#include "exec.h"
#include "fp.h"
#include "hooks.h"
#include "smem.h"
#include "tmap.h"
#include <stdio.h>
#include <stdlib.h>
#include <stdarg.h>
#include <math.h>

#define DSM_MASK ((1u << X_DSM_SHIFT) - 1)

static int regs_wake(plX_emu *e);

/* "LINE" (or "LINE in FILE") of the instruction at pc, for a message naming a second place */
#define line_of(e, pc) X_AT((e), (e)->xf.code[pc].stmt)

static void whot(plX_emu *e, plB_buf *b, const plX_cta *c, uint32_t tid) { plX__who(e, b, c->ctaid, tid); }

/* ---- shared::cluster addresses ----------------------------------------------------------------- */
int plX__hop_smem(plX_emu *e, uint64_t a, plX_cta **c, uint32_t *off) {
  uint32_t r = (uint32_t)(a >> X_DSM_SHIFT);
  if (a >= X_WIN) return 0;
  if (r == 0) { *c = e->C; *off = (uint32_t)a; return 1; }
  if (r - 1 >= e->H.ncl) return 0;
  *c = &e->ctas[r - 1];
  *off = (uint32_t)a & DSM_MASK;
  return 1;
}

/* the shared address of an operand (space: shared, shared::cluster with XF_CLUSTER, or generic) for
** lane l, as a CTA and an offset checked against n bytes aligned to al; 0 after reporting */
static int smem_at(plX_emu *e, const plX_ins *in, plX_warp *w, int l, uint64_t a, int space, int cluster, uint32_t n,
                   uint32_t al, plX_cta **c, uint32_t *off, const char *what) {
  if (space == XS_GENERIC) {
    if (a - X_SH_BASE >= X_WIN) return plX__fail_lanef(e, in, w, l, "%s: generic address 0x%llx is not in the shared window", what, (unsigned long long)a), 0;
    a -= X_SH_BASE;
    cluster = 1;
  }
  if (!plX__hop_smem(e, a, c, off))
    return plX__fail_lanef(e, in, w, l, "%s: shared address 0x%llx names no CTA of the cluster (%u CTAs)", what, (unsigned long long)a, e->H.ncl), 0;
  if (*c != e->C && !cluster)
    return plX__fail_lanef(e, in, w, l, "%s: shared address 0x%llx is in another CTA (a shared::cluster address) but the instruction is .shared::cta", what, (unsigned long long)a), 0;
  if ((uint64_t)*off + n > e->smem_size)
    return plX__fail_lanef(e, in, w, l, "%s: shared address 0x%x (%u bytes) outside the %u bytes of shared memory", what, *off, n, e->smem_size), 0;
  if (al > 1 && *off % al) return plX__fail_lanef(e, in, w, l, "%s: shared address 0x%x is not a multiple of %u", what, *off, al), 0;
  if (*c != e->C) {                                                /* a CTA of the cluster that exited: reported */
    const char *does = !strcmp(what, "mbarrier") ? "uses the mbarrier at" : !strcmp(what, "the mbarrier") ? "completes on the mbarrier at"
                     : !strcmp(what, "the destination") ? "copies into" : "reads";
    if (plX__exited(e, in->stmt, *c, *off, (uint32_t)w->idx * 32 + (uint32_t)l, does)) return 0;
  }
  return 1;
}

/* the second address operand of TMA loads and bulk copies: the mbarrier (slot e, bits rnd, offset target) */
static uint64_t mbar_addr(const plX_ins *in, const plX_warp *w, int l) {
  uint64_t v = w->R[(size_t)in->e * 32 + (size_t)l];
  if (in->rnd == 32) v = (uint32_t)v;
  return v + in->target;
}
static uint64_t src_addr(const plX_ins *in, const plX_warp *w, int l) {
  uint64_t v = w->R[(size_t)in->a * 32 + (size_t)l];
  if (in->t3 == 32) v = (uint32_t)v;
  return v + (uint64_t)in->off2;
}

/* ---- mbarrier objects ---------------------------------------------------------------------------- */
static void wg_release(plX_emu *e, plX_warp *w, plX_ins *in, plX_cta *c, plX_mbar *m);
static void wg_acquire(plX_emu *e, plX_warp *w, plX_cta *c, plX_mbar *m);
static plX_mbar *mb_find(plX_cta *c, uint32_t off) {
  for (uint32_t i = 0; i < c->h.mb.n; i++) if (c->h.mb.p[i].off == off) return &c->h.mb.p[i];
  return NULL;
}

static void mb_wake(plX_emu *e, plX_cta *c, uint32_t off) {
  for (uint32_t w = 0; w < e->nwarps; w++) {
    plX_warp *W = &c->warps[w];
    uint32_t m = W->waiting;
    while (m) {
      int l = __builtin_ctz(m);
      m &= m - 1;
      if (W->bid[l] == XB_MBAR && W->wmb[l] == off) W->waiting &= ~(1u << l);
    }
  }
}

/* m's wait_group counts: of this phase's arrivals (last = 0) or of the last completed phase's, by
** slot rank * nwarps + warp */
static uint32_t *mb_dn(plX_cta *c, const plX_mbar *m, int last) {
  return c->h.dnv.p + m->dn + (m->cur ^ (uint32_t)last) * c->h.nslot;
}

static void mb_progress(plX_emu *e, plX_cta *c, plX_mbar *m) {
  if (m->pending || m->tx) return;
  m->lxsum = m->xsum;                                              /* the expect_tx check */
  m->lgot = m->got;
  m->lxpc = m->xpc;
  m->lcpc = m->cpc;
  m->xsum = m->got = m->xpc = m->cpc = 0;
  m->phase++;
  e->gbars++;
  c->h.mbdone++;
  plX__hop_fence_snap(e);
  m->pending = m->expected;
  m->tx = 0;
  m->cur ^= 1;                                                     /* this phase's counts become the last's */
  if (e->H.has_wgmma) memset(mb_dn(c, m, 0), 0, c->h.nslot * sizeof(uint32_t));
  mb_wake(e, c, m->off);
}

static plX_mbar *mb_get(plX_emu *e, const plX_ins *in, plX_warp *w, int l, plX_cta *c, uint32_t off) {
  plX_mbar *m = mb_find(c, off);
  if (!m || !m->valid) {
    plX__fail_lanef(e, in, w, l, "the mbarrier at shared 0x%x of CTA (%u,%u,%u) is not initialized (no mbarrier.init%s)", off,
              c->ctaid[0], c->ctaid[1], c->ctaid[2], m ? " since its mbarrier.inval" : "");
    return NULL;
  }
  return m;
}

/* the mbarrier.init is visible to the executing thread (lane l of w, CTA e->C) using mbarrier m of
** CTA c: in its warp by program order; in another warp of the same CTA after a barrier completed
** (bar.sync, a cluster barrier, or a phase of another mbarrier of the CTA: lenient, the one
** completed need not be the one ordering the two); in another CTA after a barrier.cluster
** completed. Before that the hardware may show it the object's memory as it was: an mbarrier not
** yet initialized */
static int mb_visible(plX_emu *e, const plX_ins *in, plX_warp *w, int l, const plX_cta *c, const plX_mbar *m) {
  uint32_t tid = (uint32_t)w->idx * 32 + (uint32_t)l;
  if (e->C == c) {
    if (m->irank == c->rank && m->itid / 32 == tid / 32) return 0;
    if (c->epoch != m->iepoch || c->h.mbdone != m->imb) return 0;
  } else if (e->H.clphase != m->icl) return 0;
  plB_buf b; plB_buf_init(&b);
  plB_buf_printf(&b, "uses the mbarrier at shared 0x%x", m->off);
  if (c != e->C) plB_buf_printf(&b, " of CTA (%u,%u,%u)", c->ctaid[0], c->ctaid[1], c->ctaid[2]);
  plB_buf_puts(&b, c == e->C ? ", which " : ", which its ");
  plX__thread(e, &b, m->itid);
  plB_buf_printf(&b, " initialized at line %s, before %s completed since: it may still look uninitialized here (%s)", line_of(e, m->pc),
                 c == e->C ? "any barrier of the CTA" : "a barrier.cluster",
                 c == e->C ? "a bar.sync after the init" : "fence.mbarrier_init.release.cluster after the init, then barrier.cluster.arrive and wait");
  plX__fail_lane(e, in, w, l, plB_buf_cstr(&b));
  plB_buf_free(&b);
  return e->status;
}

/* a copy completing on the mbarrier at shared offset moff of each CTA in mask: its issuer must see
** each one initialized (a correct program orders the issue after every destination's init, so the
** emulator has run that init by then) */
static int mb_copy_visible(plX_emu *e, const plX_ins *in, plX_warp *w, int l, uint32_t mask, uint32_t moff) {
  for (uint32_t r = 0; r < (e->H.ncl ? e->H.ncl : 1); r++) {
    plX_cta *c = e->H.ncl ? &e->ctas[r] : e->C;
    if (!(mask >> c->rank & 1)) continue;
    plX_mbar *m = mb_find(c, moff);
    if ((!m || !m->valid) && c != e->C)
      return plX__fail_lanef(e, in, w, l, "completes on the mbarrier at shared 0x%x of CTA (%u,%u,%u), which that CTA has not initialized (yet): "
                       "order the copy after its mbarrier.init (fence.mbarrier_init.release.cluster, then barrier.cluster.arrive and wait)",
                       moff, c->ctaid[0], c->ctaid[1], c->ctaid[2]);
    if (!m || !m->valid) m = mb_get(e, in, w, l, c, moff);
    if (!m || mb_visible(e, in, w, l, c, m)) return e->status;
  }
  return 0;
}

/* count arrivals (drop: also for the phases after this one); the state before them */
static int mb_arrive(plX_emu *e, const plX_ins *in, plX_warp *w, int l, plX_cta *c, plX_mbar *m, uint32_t count, int drop, int nocomplete,
                     uint64_t *state) {
  if (count == 0 || count > 0xfffff) return plX__fail_lanef(e, in, w, l, "arrival count %u outside 1..2^20-1", count);
  if (count > m->pending)
    return plX__fail_lanef(e, in, w, l, "%u arrival%s at the mbarrier at shared 0x%x (initialized at line %s for %u per phase), where only %u %s pending in phase %u",
                     count, count == 1 ? "" : "s", m->off, line_of(e, m->pc), m->expected, m->pending, m->pending == 1 ? "is" : "are", m->phase);
  if (drop) {
    if (count > m->expected) return plX__fail_lanef(e, in, w, l, "arrive_drop of %u below zero expected arrivals", count);
    m->expected -= count;
  }
  if (state) *state = (uint64_t)m->phase << 32 | m->pending;
  m->pending -= count;
  if (nocomplete && m->pending == 0 && m->tx == 0)
    return plX__fail_lanef(e, in, w, l, "a .noComplete arrival completes the phase of the mbarrier at shared 0x%x", m->off);
  mb_progress(e, c, m);
  return 0;
}

/* the tx-count of the current phase moves by delta (expect_tx: up; complete_tx, a copy landing: down).
** The PTX ISA lets it range over [-(2^20-1), 2^20-1]: bytes may land before the expect_tx that
** announces them (the count goes negative meanwhile); the phase completes when it and the pending
** arrival count are both zero, so a count left below zero (more bytes than expected) never does. */
static int mb_tx(plX_emu *e, uint32_t stmt, plX_cta *c, plX_mbar *m, int64_t delta, const char *who) {
  int64_t t = (int64_t)m->tx + delta;
  if (t < -0xfffff || t > 0xfffff)
    return plX__fail(e, stmt, "%s %s %lld bytes on the mbarrier at shared 0x%x of CTA (%u,%u,%u), whose transaction count in phase %u is %d: "
                     "%lld is outside the range -(2^20-1)..2^20-1 the PTX ISA allows", who, delta < 0 ? "completes" : "expects",
                     (long long)(delta < 0 ? -delta : delta), m->off, c->ctaid[0], c->ctaid[1], c->ctaid[2], m->phase, m->tx, (long long)t);
  m->tx = (int32_t)t;
  mb_progress(e, c, m);
  return 0;
}

static int exec_mbar(plX_emu *e, plX_warp *w, plX_ins *in, uint32_t em) {
  uint64_t *D = wslot(w, in->d), *B = wslot(w, in->b);
  int cl = (in->fl & XF_CLUSTER) != 0;
  LANES(l, em, {
    plX_cta *c; uint32_t off;
    if (!smem_at(e, in, w, l, addr_of(in, w, l), in->space, cl, 8, 8, &c, &off, "mbarrier")) return e->status;
    uint32_t v = (uint32_t)B[l];
    if (in->sub == 0) {                                            /* init */
      plX_mbar *m = mb_find(c, off);
      if (m && m->valid)
        return plX__fail_lanef(e, in, w, l, "the mbarrier at shared 0x%x is initialized twice (first at line %s) without mbarrier.inval between",
                         off, line_of(e, m->pc));
      if (v == 0 || v > 0xfffff) return plX__fail_lanef(e, in, w, l, "mbarrier.init count %u outside 1..2^20-1", v);
      if (!m) {
        plX_mbar z; memset(&z, 0, sizeof z);
        z.dn = c->h.dnv.n;
        if (e->H.has_wgmma) {                                      /* its two halves of wait_group counts */
          if (c->h.dnv.n + 2 * c->h.nslot > c->h.dnv.cap &&
              !plB_vec_grow((void **)&c->h.dnv.p, &c->h.dnv.cap, c->h.dnv.n + 2 * c->h.nslot, sizeof *c->h.dnv.p))
            return plX__fail(e, in->stmt, "out of memory");
          c->h.dnv.n += 2 * c->h.nslot;
        }
        if (!plB_vec_push(c->h.mb, z)) return plX__fail(e, in->stmt, "out of memory");
        m = &c->h.mb.p[c->h.mb.n - 1];
      }
      m->off = off; m->expected = m->pending = v; m->tx = 0; m->phase = 0; m->valid = 1; m->cur = 0;
      m->xsum = m->got = m->xpc = m->cpc = m->lxsum = m->lgot = m->lxpc = m->lcpc = 0;
      m->irank = e->C->rank; m->itid = (uint32_t)w->idx * 32 + (uint32_t)l; m->iepoch = c->epoch; m->icl = e->H.clphase;
      m->imb = c->h.mbdone;
      if (e->H.has_wgmma) memset(c->h.dnv.p + m->dn, 0, 2 * c->h.nslot * sizeof(uint32_t));
      m->pc = (uint32_t)(in - e->xf.code);
      memset(c->smem + off, 0, 8);
      if (c->smem_def) memset(c->smem_def + off, 1, 8);
      continue;
    }
    plX_mbar *m = mb_get(e, in, w, l, c, off);
    if (!m || mb_visible(e, in, w, l, c, m)) return e->status;
    switch (in->sub) {
    case 1: m->valid = 0; break;                                   /* inval */
    case 2: case 3: {                                              /* arrive, arrive_drop */
      uint32_t count = v;
      if (in->sub2 & 1) {                                          /* .expect_tx: tx bytes, one arrival */
        m->xsum += v; m->xpc = (uint32_t)(in - e->xf.code) + 1;
        if (mb_tx(e, in->stmt, c, m, (int64_t)v, plX__opname(e, in->stmt))) return e->status;
        count = 1;
      }
      uint64_t st;
      if (e->H.has_wgmma) wg_release(e, w, in, c, m);            /* local or remote: the released reads */
      if (mb_arrive(e, in, w, l, c, m, count, in->sub == 3, (in->sub2 & 2) != 0, &st)) return e->status;
      D[l] = st;
      break;
    }
    case 4:                                                        /* expect_tx */
      m->xsum += v; m->xpc = (uint32_t)(in - e->xf.code) + 1;
      if (mb_tx(e, in->stmt, c, m, (int64_t)v, plX__opname(e, in->stmt))) return e->status;
      break;
    default:                                                       /* complete_tx */
      m->got += v;
      if (mb_tx(e, in->stmt, c, m, -(int64_t)v, plX__opname(e, in->stmt))) return e->status;
      break;
    }
  });
  return 0;
}

/* test_wait / try_wait: lanes whose phase completed get true; the others are returned (they wait) */
static int exec_mbwait(plX_emu *e, plX_warp *w, plX_ins *in, uint32_t pc, uint32_t em, uint32_t *blocked) {
  uint64_t *B = wslot(w, in->b);
  uint32_t ok = 0, wait = 0;
  LANES(l, em, {
    plX_cta *c; uint32_t off;
    if (!smem_at(e, in, w, l, addr_of(in, w, l), in->space, 0, 8, 8, &c, &off, "mbarrier")) return e->status;
    plX_mbar *m = mb_get(e, in, w, l, c, off);
    if (!m || mb_visible(e, in, w, l, c, m)) return e->status;
    int done;
    if (in->sub2) done = (m->phase & 1) != (B[l] & 1);             /* the phase of that parity completed */
    else done = (uint32_t)(B[l] >> 32) != m->phase;                /* the state's phase is no longer current */
    if (done) { ok |= 1u << l; e->C->racc = 0; if (c == e->C && e->H.has_wgmma) wg_acquire(e, w, c, m); }   /* (racc: lenient) */
    else { wait |= 1u << l; w->wmb[l] = off; w->bid[l] = XB_MBAR; w->bpc[l] = pc; }
  });
  w->P[in->d] = pmerge(w->P[in->d], ~0u, ok);
  w->waiting |= wait;
  *blocked = wait;
  return 0;
}

/* ---- the tensor map --------------------------------------------------------------------------------
** 128 bytes, little-endian: 0 magic "PLXTMAP1"; 8 global address (u64); 16 rank, 17 dtype (PLB_TM_*),
** 18 swizzle (PLSM_SW_*), 19 element bytes (u8); 20 checksum (u32, FNV-1a of bytes 24..127);
** 24 dims (u32 x 5); 48 strides in bytes of dims 1..4 (u64 x 4); 80 box (u16 x 5); 90 element
** strides (u8 x 5); 95 mode (0 tile, 1 im2col); 96 interleave, 97 L2 promotion, 98 OOB fill (u8,
** the driver's enums); im2col only: 100 pixel box lower corner, 106 upper corner (s16 x 3, the
** spatial dimensions W, H, D innermost first), 112 channels per pixel, 114 pixels per column (u16);
** the rest zero. A tile map leaves bytes 95.. zero, as it did before the im2col fields. */
static const uint8_t TM_MAGIC[8] = {'P', 'L', 'X', 'T', 'M', 'A', 'P', '1'};

typedef struct xtmap {
  uint64_t addr; int rank, dtype, sw, esize;
  uint64_t dims[5], strides[5];      /* strides[0] = esize */
  uint32_t box[5], es[5];
  int mode, oob;                     /* 1: im2col; 1: NaN fill */
  int32_t lo[3], hi[3];              /* im2col: the pixel box corners of W, H, D */
  uint32_t cpp, ppc;                 /* im2col: channels per pixel, pixels per column */
} xtmap;

static int tm_esize(int dt) {
  static const int S[] = {1, 2, 4, 4, 8, 8, 2, 4, 8, 2, 4, 4, 4};
  return dt >= 0 && dt < 13 ? S[dt] : 0;
}

static uint32_t fnv(const uint8_t *p, size_t n) {
  uint32_t h = 2166136261u;
  for (size_t i = 0; i < n; i++) { h ^= p[i]; h *= 16777619u; }
  return h;
}

#define ERR(...) (err && n ? (void)snprintf(err, n, __VA_ARGS__) : (void)0)

/* what both kinds of map share: dims, element strides and byte strides checked (st[] gets the byte
** stride of every dimension), the tensor inside one device array, then the header, dims, strides and
** element strides written; 0 ok */
static int tm_dims(plX_mem *m, int es, int rank, uint64_t addr, const uint64_t *dims, const uint64_t *strides,
                   const uint32_t *estr, uint64_t st[5], char *err, size_t n) {
  if (addr % 16) { ERR("tensor map: the global address 0x%llx is not a multiple of 16 bytes", (unsigned long long)addr); return -1; }
  st[0] = (uint64_t)es;
  for (int i = 0; i < rank; i++) {
    if (dims[i] == 0 || dims[i] > ((uint64_t)1 << 32)) { ERR("tensor map: dims[%d] = %llu outside 1..2^32", i + 1, (unsigned long long)dims[i]); return -1; }
    uint32_t e1 = estr ? estr[i] : 1;
    if (e1 == 0 || e1 > 8) { ERR("tensor map: element_strides[%d] = %u outside 1..8", i + 1, e1); return -1; }
    if (i > 0) {
      uint64_t s = strides[i - 1];
      if (s % 16 || s >= ((uint64_t)1 << 40)) { ERR("tensor map: strides[%d] = %llu must be a multiple of 16 below 2^40", i, (unsigned long long)s); return -1; }
      if (s < dims[i - 1] * st[i - 1]) {
        ERR("tensor map: strides[%d] = %llu bytes is less than the %llu bytes of the dimension below it", i, (unsigned long long)s,
            (unsigned long long)(dims[i - 1] * st[i - 1]));
        return -1;
      }
      st[i] = s;
    }
  }
  return 0;
}

static int tm_place(plX_mem *m, uint8_t out[128], int dtype, int es, int rank, uint64_t addr, const uint64_t *dims,
                    const uint64_t *st, const uint32_t *estr, int sw, char *err, size_t n) {
  uint64_t extent = (uint64_t)es;
  for (int i = 0; i < rank; i++) extent += (dims[i] - 1) * st[i];
  int32_t cache = -1;
  plX_buf *b = m ? plX__find(m, addr, &cache) : NULL;
  if (!b) { ERR("tensor map: the global address 0x%llx is not in a device array of this emulator", (unsigned long long)addr); return -1; }
  if (addr - b->addr + extent > b->size) {
    ERR("tensor map: the tensor (%llu bytes from 0x%llx) runs past the end of buffer '%s' (%llu bytes)", (unsigned long long)extent,
        (unsigned long long)addr, b->name ? b->name : "?", (unsigned long long)b->size);
    return -1;
  }
  memset(out, 0, 128);
  memcpy(out, TM_MAGIC, 8);
  memcpy(out + 8, &addr, 8);
  out[16] = (uint8_t)rank; out[17] = (uint8_t)dtype; out[18] = (uint8_t)sw; out[19] = (uint8_t)es;
  for (int i = 0; i < rank; i++) {
    uint32_t d32 = (uint32_t)(dims[i] - 1);                 /* dims - 1: 2^32 fits */
    memcpy(out + 24 + 4 * i, &d32, 4);
    if (i > 0) memcpy(out + 48 + 8 * (i - 1), &st[i], 8);
    out[90 + i] = (uint8_t)(estr ? estr[i] : 1);
  }
  return 0;
}

static void tm_seal(uint8_t out[128]) {
  uint32_t h = fnv(out + 24, 104);
  memcpy(out + 20, &h, 4);
}

int plX_tensormap(plX_mem *m, uint8_t out[128], int dtype, int rank, uint64_t addr, const uint64_t *dims,
                  const uint64_t *strides, const uint32_t *box, const uint32_t *estr, int sw, char *err, size_t n) {
  int es = tm_esize(dtype);
  if (!es) { ERR("tensor map: unknown element type %d", dtype); return -1; }
  if (rank < 1 || rank > 5) { ERR("tensor map: rank %d outside 1..5", rank); return -1; }
  if (sw < 0 || sw > 3) { ERR("tensor map: bad swizzle mode %d", sw); return -1; }
  uint64_t st[5];
  if (tm_dims(m, es, rank, addr, dims, strides, estr, st, err, n)) return -1;
  for (int i = 0; i < rank; i++)
    if (box[i] == 0 || box[i] > 256) { ERR("tensor map: box[%d] = %u outside 1..256", i + 1, box[i]); return -1; }
  if (((uint64_t)box[0] * (uint64_t)es) % 16) { ERR("tensor map: the inner box (%u elements of %d bytes) must be a multiple of 16 bytes", box[0], es); return -1; }
  if (sw && (uint64_t)box[0] * (uint64_t)es > (uint64_t)plB_sm_swizzle_bytes(sw)) {
    ERR("tensor map: the inner box (%u bytes) exceeds the %d-byte span of swizzle %s", box[0] * (uint32_t)es, plB_sm_swizzle_bytes(sw), plB_sm_swizzle_name(sw));
    return -1;
  }
  if (tm_place(m, out, dtype, es, rank, addr, dims, st, estr, sw, err, n)) return -1;
  for (int i = 0; i < rank; i++) {
    uint16_t b16 = (uint16_t)box[i];
    memcpy(out + 80 + 2 * i, &b16, 2);
  }
  tm_seal(out);
  return 0;
}

int plX_tensormap_im2col(plX_mem *m, uint8_t out[128], int dtype, int rank, uint64_t addr, const uint64_t *dims,
                         const uint64_t *strides, const int32_t *lower, const int32_t *upper, uint32_t cpp, uint32_t ppc,
                         const uint32_t *estr, int interleave, int sw, int l2, int oob, char *err, size_t n) {
  int es = tm_esize(dtype);
  if (!es) { ERR("tensor map: unknown element type %d", dtype); return -1; }
  if (rank < 3 || rank > 5) { ERR("tensor map: an im2col map has rank 3, 4 or 5 (NWC, NHWC, NDHWC), not %d", rank); return -1; }
  if (sw < 0 || sw > 3) { ERR("tensor map: bad swizzle mode %d", sw); return -1; }
  if (interleave < 0 || interleave > 2) { ERR("tensor map: bad interleave mode %d", interleave); return -1; }
  if (l2 < 0 || l2 > 3) { ERR("tensor map: bad L2 promotion %d", l2); return -1; }
  if (oob < 0 || oob > 1) { ERR("tensor map: bad OOB fill %d", oob); return -1; }
  if (oob && (dtype < PLB_TM_F16 || dtype == PLB_TM_F64)) { ERR("tensor map: the NaN OOB fill needs a 16- or 32-bit floating-point element type"); return -1; }
  if (interleave) { ERR("tensor map: interleaved layouts (interleave %s) are not emulated", interleave == 1 ? "16B" : "32B"); return -1; }
  uint64_t st[5];
  if (tm_dims(m, es, rank, addr, dims, strides, estr, st, err, n)) return -1;
  int32_t lim = rank == 3 ? 32768 : rank == 4 ? 128 : 16;      /* the corners' range: [-lim, lim - 1] */
  static const char *const SP[] = {"W", "H", "D"};
  for (int i = 0; i < rank - 2; i++) {
    if (lower[i] < -lim || lower[i] >= lim || upper[i] < -lim || upper[i] >= lim) {
      ERR("tensor map: pixel box corner of %s (lower %d, upper %d) outside %d..%d for rank %d", SP[i], (int)lower[i], (int)upper[i], -lim, lim - 1, rank);
      return -1;
    }
    if ((int64_t)dims[i + 1] + upper[i] - lower[i] < 1) {
      ERR("tensor map: the pixel box along %s is empty (from %d to %lld)", SP[i], (int)lower[i], (long long)dims[i + 1] - 1 + upper[i]);
      return -1;
    }
  }
  if (cpp == 0 || cpp > 256) { ERR("tensor map: channels_per_pixel = %u outside 1..256", cpp); return -1; }
  if (ppc == 0 || ppc > 1024) { ERR("tensor map: pixels_per_column = %u outside 1..1024", ppc); return -1; }
  if (((uint64_t)cpp * (uint64_t)es) % 16) { ERR("tensor map: a pixel's channels (%u elements of %d bytes) must be a multiple of 16 bytes", cpp, es); return -1; }
  if (sw && (uint64_t)cpp * (uint64_t)es > (uint64_t)plB_sm_swizzle_bytes(sw)) {
    ERR("tensor map: a pixel's channels (%u bytes) exceed the %d-byte span of swizzle %s", cpp * (uint32_t)es, plB_sm_swizzle_bytes(sw), plB_sm_swizzle_name(sw));
    return -1;
  }
  if (tm_place(m, out, dtype, es, rank, addr, dims, st, estr, sw, err, n)) return -1;
  out[95] = 1; out[96] = (uint8_t)interleave; out[97] = (uint8_t)l2; out[98] = (uint8_t)oob;
  for (int i = 0; i < rank - 2; i++) {
    int16_t lo = (int16_t)lower[i], hi = (int16_t)upper[i];
    memcpy(out + 100 + 2 * i, &lo, 2);
    memcpy(out + 106 + 2 * i, &hi, 2);
  }
  uint16_t c16 = (uint16_t)cpp, p16 = (uint16_t)ppc;
  memcpy(out + 112, &c16, 2); memcpy(out + 114, &p16, 2);
  tm_seal(out);
  return 0;
}
#undef ERR

static int tm_checks(plX_emu *e, plX_ins *in, plX_warp *w, int l, uint64_t a, const xtmap *t, const uint8_t raw[128]);
/* the tensor map at generic address a (a kernel parameter, or global memory) for lane l */
static int tm_read(plX_emu *e, plX_ins *in, plX_warp *w, int l, uint64_t a, xtmap *t) {
  uint8_t raw[128];
  uint32_t tid = (uint32_t)w->idx * 32 + (uint32_t)l;
  if (a % 64) return plX__fail_lanef(e, in, w, l, "the tensor map address 0x%llx is not 64-byte aligned", (unsigned long long)a);
  plX_ins tmp = *in; tmp.space = XS_GENERIC; tmp.cache = -1;
  for (int h = 0; h < 2; h++) {
    uint8_t *p = plX__mem(e, &tmp, XS_GENERIC, a + 64 * (uint64_t)h, 64, tid, 0);
    if (!p) return e->status;
    memcpy(raw + 64 * h, p, 64);
  }
  uint32_t h;
  memcpy(&h, raw + 20, 4);
  if (memcmp(raw, TM_MAGIC, 8) || h != fnv(raw + 24, 104))
    return plX__fail_lanef(e, in, w, l, "the 128 bytes at 0x%llx are not a tensor map of this emulator (make it with dev:tensormap(array, {...}))",
                     (unsigned long long)a);
  memset(t, 0, sizeof *t);
  memcpy(&t->addr, raw + 8, 8);
  t->rank = raw[16]; t->dtype = raw[17]; t->sw = raw[18]; t->esize = raw[19];
  t->strides[0] = (uint64_t)t->esize;
  for (int i = 0; i < t->rank && i < 5; i++) {
    uint32_t d32; memcpy(&d32, raw + 24 + 4 * i, 4); t->dims[i] = (uint64_t)d32 + 1;
    if (i > 0) memcpy(&t->strides[i], raw + 48 + 8 * (i - 1), 8);
    uint16_t b16; memcpy(&b16, raw + 80 + 2 * i, 2); t->box[i] = b16;
    t->es[i] = raw[90 + i];
  }
  t->mode = raw[95]; t->oob = raw[98];
  if (t->mode == 1) {
    for (int i = 0; i < 3; i++) {
      int16_t lo, hi;
      memcpy(&lo, raw + 100 + 2 * i, 2); memcpy(&hi, raw + 106 + 2 * i, 2);
      t->lo[i] = lo; t->hi[i] = hi;
    }
    uint16_t c16, p16;
    memcpy(&c16, raw + 112, 2); memcpy(&p16, raw + 114, 2);
    t->cpp = c16; t->ppc = p16;
  }
  /* fields the copies rely on (a map left half-filled by tensormap.replace, or forged bytes with a
  ** valid checksum): refused, never trusted */
  char why[96]; why[0] = 0;
  if (t->rank < (t->mode == 1 ? 3 : 1) || t->rank > 5) snprintf(why, sizeof why, "rank %d outside %d..5", t->rank, t->mode == 1 ? 3 : 1);
  else if (t->mode > 1) snprintf(why, sizeof why, "mode byte %d", t->mode);
  else if (t->esize != tm_esize(t->dtype)) snprintf(why, sizeof why, "element type %d with %d-byte elements", t->dtype, t->esize);
  else if (t->sw > 3) snprintf(why, sizeof why, "swizzle mode %d (96B needs sm_100a)", t->sw);
  else if (t->oob > 1 || (t->oob && t->esize != 2 && t->esize != 4))
    snprintf(why, sizeof why, "fill mode %d with %d-byte elements (the NaN fill is for 16- and 32-bit floats)", t->oob, t->esize);
  for (int i = 0; !why[0] && i < t->rank; i++) {
    if (t->es[i] < 1 || t->es[i] > 8) snprintf(why, sizeof why, "element stride %d = %u outside 1..8", i, t->es[i]);
    else if (t->mode == 0 && (t->box[i] < 1 || t->box[i] > 256)) snprintf(why, sizeof why, "box_dim %d = %u outside 1..256", i, t->box[i]);
  }
  if (!why[0] && t->mode == 1 && (t->cpp < 1 || t->cpp > 256 || t->ppc < 1 || t->ppc > 1024))
    snprintf(why, sizeof why, "%u channels per pixel, %u pixels per column", t->cpp, t->ppc);
  if (why[0]) return plX__fail_lanef(e, in, w, l, "the tensor map at 0x%llx is not usable: %s", (unsigned long long)a, why);
  return tm_checks(e, in, w, l, a, t, raw);                        /* tensormap.replace: consistency, fences */
}

/* ---- tensormap.replace and the tensormap proxy ------------------------------------------------------
** tensormap.replace.tile.FIELD rewrites one field of a map in global or shared memory (a generic-proxy
** write); the checksum is recomputed, and 128 zero bytes count as an empty map to fill field by field.
** Values the PTX ISA rules out are errors at the line; combinations (an inner box that is not a
** multiple of 16 bytes, a box wider than its swizzle, a tensor past its array) are legal in between
** and checked when a TMA uses the map (tm_checks). Each result is remembered (plX_tmimg): a TMA through
** a map in global memory holding those bytes needs a fence.proxy.tensormap::generic.release (or
** tensormap.cp_fenceproxy) after the change, by the writer or by a thread of its CTA after a
** barrier, and a fence.proxy.tensormap::generic.acquire of that map by the TMA's thread after that. */
static const char *const TM_FIELD[] = { "global_address", "rank", "box_dim", "global_dim", "global_stride", "element_stride",
  "elemtype", "interleave_layout", "swizzle_mode", "swizzle_atomicity", "fill_mode" };

static const plX_tmimg *tm_image(plX_emu *e, const uint8_t raw[128]) {
  for (uint32_t i = e->H.tmi.n; i-- > 0;)
    if (!memcmp(e->H.tmi.p[i].b + 20, raw + 20, 4) && !memcmp(e->H.tmi.p[i].b, raw, 128)) return &e->H.tmi.p[i];
  return NULL;
}

static int tm_checks(plX_emu *e, plX_ins *in, plX_warp *w, int l, uint64_t a, const xtmap *t, const uint8_t raw[128]) {
  const plX_tmimg *img = e->H.tmi.n ? tm_image(e, raw) : NULL;
  char why[200]; why[0] = 0;
  if (t->mode == 0) {
    uint64_t inner = (uint64_t)t->box[0] * (uint64_t)t->esize;
    if (raw[96]) snprintf(why, sizeof why, "interleave_layout %d (interleaved layouts are not emulated)", raw[96]);
    else if (raw[99]) snprintf(why, sizeof why, "swizzle_atomicity %d (only the 16-byte atomicity is emulated)", raw[99]);
    else if (t->addr % 16) snprintf(why, sizeof why, "the global address 0x%llx is not a multiple of 16", (unsigned long long)t->addr);
    else if (inner % 16) snprintf(why, sizeof why, "the inner box (%u elements of %d bytes) is not a multiple of 16 bytes", t->box[0], t->esize);
    else if (t->sw && inner > (uint64_t)plB_sm_swizzle_bytes(t->sw))
      snprintf(why, sizeof why, "the inner box (%llu bytes) exceeds the %d-byte span of swizzle %s", (unsigned long long)inner,
               plB_sm_swizzle_bytes(t->sw), plB_sm_swizzle_name(t->sw));
    for (int i = 1; !why[0] && i < t->rank; i++) {
      uint64_t st = t->strides[i];
      if (st % 16 || st >= ((uint64_t)1 << 40)) snprintf(why, sizeof why, "global_stride %d = %llu is not a multiple of 16 below 2^40", i - 1, (unsigned long long)st);
      else if (st < t->dims[i - 1] * t->strides[i - 1])
        snprintf(why, sizeof why, "global_stride %d = %llu bytes is less than the %llu bytes of the dimension below it", i - 1, (unsigned long long)st,
                 (unsigned long long)(t->dims[i - 1] * t->strides[i - 1]));
    }
    if (!why[0]) {
      uint64_t extent = (uint64_t)t->esize;
      for (int i = 0; i < t->rank; i++) extent += (t->dims[i] - 1) * t->strides[i];
      int32_t cache = -1;
      plX_buf *b = plX__find(e->mem, t->addr, &cache);
      if (!b) snprintf(why, sizeof why, "its global address 0x%llx is in no device array", (unsigned long long)t->addr);
      else if (t->addr - b->addr + extent > b->size)
        snprintf(why, sizeof why, "the tensor (%llu bytes from 0x%llx) runs past the end of buffer '%s' (%llu bytes)", (unsigned long long)extent,
                 (unsigned long long)t->addr, b->name ? b->name : "?", (unsigned long long)b->size);
    }
  }
  if (why[0]) {
    if (img) return plX__fail_lanef(e, in, w, l, "the tensor map at 0x%llx, as the tensormap.replace of line %s left it, is not usable: %s",
                              (unsigned long long)a, line_of(e, img->pc), why);
    return plX__fail_lanef(e, in, w, l, "the tensor map at 0x%llx is not usable: %s", (unsigned long long)a, why);
  }
  if (!img || a < X_GL_BASE) return 0;                             /* unmodified, or a kernel parameter */
  plB_buf b; plB_buf_init(&b);
  uint32_t tid = (uint32_t)w->idx * 32 + (uint32_t)l;
  const plX_tmacq *q = NULL;
  for (uint32_t i = 0; i < e->H.tacq.n; i++) {
    const plX_tmacq *x = &e->H.tacq.p[i];
    if (x->addr == a && x->cta == e->C->cta_linear && x->tid == tid) q = x;
  }
  plB_buf_printf(&b, "a TMA through the tensor map at 0x%llx, which the tensormap.replace of line %s modified, ", (unsigned long long)a, line_of(e, img->pc));
  if (!img->rel)
    plB_buf_puts(&b, "with no fence.proxy.tensormap::generic.release (or tensormap.cp_fenceproxy) after the change: the tensormap proxy may still see the old map");
  else if (!q || q->seq < img->rel)
    plB_buf_puts(&b, "without a fence.proxy.tensormap::generic.acquire [map], 128 by this thread after its release: the tensormap proxy may still see the old map");
  else { plB_buf_free(&b); return 0; }
  plX__fail_lane(e, in, w, l, plB_buf_cstr(&b));
  plB_buf_free(&b);
  return e->status;
}

/* a tensormap-proxy release by thread tid of the current CTA: the maps it (or, after a barrier, its CTA) changed */
static void tm_release(plX_emu *e, uint32_t tid, const uint8_t *only) {
  plX_cta *c = e->C;
  uint32_t seq = ++e->H.tmseq;
  for (uint32_t i = 0; i < e->H.tmi.n; i++) {
    plX_tmimg *m = &e->H.tmi.p[i];
    if (m->rel || m->cta != c->cta_linear || (only && memcmp(only, m->b, 128))) continue;
    if (m->tid == tid || m->epoch != c->epoch || only) m->rel = seq;
  }
}

static int tm_acquire(plX_emu *e, const plX_ins *in, uint64_t a, uint32_t tid) {
  plX_hop *H = &e->H;
  uint32_t seq = ++H->tmseq;
  for (uint32_t i = 0; i < H->tacq.n; i++) {
    plX_tmacq *x = &H->tacq.p[i];
    if (x->addr == a && x->cta == e->C->cta_linear && x->tid == tid) { x->seq = seq; return 0; }
  }
  if (H->tacq.n >= 65536) H->tacq.n = 0;                          /* bounded: forget the oldest */
  plX_tmacq x = {a, e->C->cta_linear, tid, seq};
  if (!plB_vec_push(H->tacq, x)) return plX__fail(e, in->stmt, "out of memory");
  return 0;
}

/* the 128 bytes at a (space) for lane l: two 64-byte halves, checked as memory accesses */
static int tm_bytes(plX_emu *e, plX_ins *in, plX_warp *w, int l, int space, uint64_t a, int write, uint8_t *p[2]) {
  uint32_t tid = (uint32_t)w->idx * 32 + (uint32_t)l;
  plX_ins tmp = *in; tmp.cache = -1;
  if (a % 64) return plX__fail_lanef(e, in, w, l, "the tensor map address 0x%llx is not 64-byte aligned", (unsigned long long)a);
  for (int h = 0; h < 2; h++) {
    p[h] = plX__mem(e, &tmp, space, a + 64 * (uint64_t)h, 64, tid, write);
    if (!p[h]) return e->status;
  }
  return 0;
}

static int exec_tmap(plX_emu *e, plX_warp *w, plX_ins *in, uint32_t em) {
  if (in->sub == XTM_CP) {                                         /* tensormap.cp_fenceproxy: copy, then release */
    if ((w->exists & ~w->exited) & ~em) return plX__fail_warp(e, in, w, "tensormap.cp_fenceproxy (.sync.aligned) executed by part of a warp", (w->exists & ~w->exited) & ~em);
    LANES(l, em, {
      uint8_t *s[2], *d[2], raw[128];
      if (tm_bytes(e, in, w, l, XS_SHARED, src_addr(in, w, l), 0, s)) return e->status;
      memcpy(raw, s[0], 64); memcpy(raw + 64, s[1], 64);
      if (tm_bytes(e, in, w, l, in->space, addr_of(in, w, l), 1, d)) return e->status;
      memcpy(d[0], raw, 64); memcpy(d[1], raw + 64, 64);
      tm_release(e, (uint32_t)w->idx * 32 + (uint32_t)l, raw);
    });
    return 0;
  }
  uint64_t *B = wslot(w, in->b);
  int f = in->sub;
  LANES(l, em, {
    uint64_t a = addr_of(in, w, l);
    int space = in->space;
    if (space == XS_GENERIC && a - X_SH_BASE < X_WIN) { space = XS_SHARED; a -= X_SH_BASE; }
    else if (space == XS_GENERIC) {
      if (a < X_GL_BASE) return plX__fail_lanef(e, in, w, l, "the generic address 0x%llx is in neither the global nor the shared window", (unsigned long long)a);
      space = XS_GLOBAL;
    }
    uint8_t *p[2], raw[128];
    if (tm_bytes(e, in, w, l, space, a, 1, p)) return e->status;
    memcpy(raw, p[0], 64); memcpy(raw + 64, p[1], 64);
    uint32_t h; memcpy(&h, raw + 20, 4);
    int zero = 1;
    for (int i = 0; i < 128 && zero; i++) zero = raw[i] == 0;
    if (zero) { memcpy(raw, TM_MAGIC, 8); raw[19] = 1; }            /* an empty map: every field zero, u8 elements */
    else if (memcmp(raw, TM_MAGIC, 8) || h != fnv(raw + 24, 104))
      return plX__fail_lanef(e, in, w, l, "the 128 bytes at %s 0x%llx are neither a tensor map of this emulator (copy one made by dev:tensormap) nor zeros",
                       space == XS_SHARED ? "shared" : "global", (unsigned long long)a);
    if (raw[95]) return plX__fail_lanef(e, in, w, l, "tensormap.replace.tile on an im2col tensor map");
    uint64_t v = in->sub <= 5 ? B[l] : in->c;
    uint32_t ord = in->c;
    if (f == 4 && ord > 3) return plX__fail_lanef(e, in, w, l, "global_stride ordinal %u outside 0..3 (the stride of dimension ord + 1)", ord);
    if (f >= 2 && f <= 5 && ord > 4) return plX__fail_lanef(e, in, w, l, "%s ordinal %u outside 0..4", TM_FIELD[f], ord);
    if (f != 0 && f != 4 && f <= 5) v = (uint32_t)v;
    switch (f) {
    case 0:
      if (v % 16) return plX__fail_lanef(e, in, w, l, "global_address 0x%llx is not a multiple of 16", (unsigned long long)v);
      memcpy(raw + 8, &v, 8); break;
    case 1:
      if (v > 4) return plX__fail_lanef(e, in, w, l, "rank value %llu outside 0..4 (the field holds the rank minus one)", (unsigned long long)v);
      raw[16] = (uint8_t)(v + 1); break;
    case 2: {
      if (v == 0 || v > 256) return plX__fail_lanef(e, in, w, l, "box_dim %u = %llu outside 1..256", ord, (unsigned long long)v);
      uint16_t b16 = (uint16_t)v; memcpy(raw + 80 + 2 * ord, &b16, 2); break;
    }
    case 3: {
      if (v == 0) return plX__fail_lanef(e, in, w, l, "global_dim %u = 0 (a dimension has 1..2^32 elements)", ord);
      uint32_t d32 = (uint32_t)(v - 1); memcpy(raw + 24 + 4 * ord, &d32, 4); break;
    }
    case 4:
      if (v % 16 || v >= ((uint64_t)1 << 40)) return plX__fail_lanef(e, in, w, l, "global_stride %u = %llu is not a multiple of 16 below 2^40", ord, (unsigned long long)v);
      memcpy(raw + 48 + 8 * ord, &v, 8); break;
    case 5:
      if (v == 0 || v > 8) return plX__fail_lanef(e, in, w, l, "element_stride %u = %llu outside 1..8", ord, (unsigned long long)v);
      raw[90 + ord] = (uint8_t)v; break;
    case 6:
      if (v >= 13 && v <= 15) return plX__fail_lanef(e, in, w, l, "elemtype %llu (a packed sub-byte type) is not emulated", (unsigned long long)v);
      if (v > 12) return plX__fail_lanef(e, in, w, l, "elemtype %llu outside 0..15", (unsigned long long)v);
      raw[17] = (uint8_t)v; raw[19] = (uint8_t)tm_esize((int)v); break;
    case 7:
      if (v > 2) return plX__fail_lanef(e, in, w, l, "interleave_layout %llu outside 0..2", (unsigned long long)v);
      raw[96] = (uint8_t)v; break;
    case 8:
      if (v == 4) return plX__fail_lanef(e, in, w, l, "swizzle_mode 4 (96B) needs sm_100a or later");
      if (v > 4) return plX__fail_lanef(e, in, w, l, "swizzle_mode %llu outside 0..4", (unsigned long long)v);
      raw[18] = (uint8_t)v; break;
    case 9:
      if (v > 3) return plX__fail_lanef(e, in, w, l, "swizzle_atomicity %llu outside 0..3", (unsigned long long)v);
      raw[99] = (uint8_t)v; break;
    default:
      if (v > 1) return plX__fail_lanef(e, in, w, l, "fill_mode %llu outside 0..1", (unsigned long long)v);
      raw[98] = (uint8_t)v; break;
    }
    h = fnv(raw + 24, 104);
    memcpy(raw + 20, &h, 4);
    memcpy(p[0], raw, 64); memcpy(p[1], raw + 64, 64);
    /* remember the result: a TMA through a copy of it in global memory needs the tensormap-proxy fences */
    plX_hop *H = &e->H;
    uint64_t loc = (uint64_t)space << 60 | a;
    plX_tmimg *m = NULL;
    for (uint32_t i = 0; i < H->tmi.n && !m; i++)
      if (H->tmi.p[i].loc == loc && (space != XS_SHARED || H->tmi.p[i].cta == e->C->cta_linear)) m = &H->tmi.p[i];
    if (!m) {
      if (H->tmi.n >= 65536) continue;                             /* bounded: later changes go unchecked */
      plX_tmimg z; memset(&z, 0, sizeof z);
      if (!plB_vec_push(H->tmi, z)) return plX__fail(e, in->stmt, "out of memory");
      m = &H->tmi.p[H->tmi.n - 1];
    }
    memcpy(m->b, raw, 128);
    m->cta = e->C->cta_linear; m->loc = loc; m->tid = (uint32_t)w->idx * 32 + (uint32_t)l; m->pc = (uint32_t)(in - e->xf.code);
    m->seq = ++H->tmseq; m->epoch = e->C->epoch; m->rel = 0;
  });
  return 0;
}

/* ---- the async proxy's view of shared memory ------------------------------------------------------ */
static int bst_overwrite(plX_emu *e, const plX_ins *in, plX_cta *c, uint32_t off, uint32_t n, uint32_t tid);
/* pw names a writer by its CTA's rank and its thread, so that a store through shared::cluster is
** remembered in the CTA it lands in; the fence that clears it is the writer's (fence.proxy.async
** orders the executing thread's own accesses), and for another CTA's bytes one that covers
** shared::cluster: a .shared::cta fence does not reach memory outside the executing CTA */
static uint32_t pw_of(plX_emu *e, const plX_cta *wc, uint32_t tid) { return wc->rank * e->nthreads + tid + 1; }

void plX__hop_generic_write(plX_emu *e, const plX_ins *in, uint32_t off, uint32_t n, uint32_t tid) {
  plX_cta_hop *h = &e->C->h;
  uint32_t f = h->fences[tid], who = pw_of(e, e->C, tid);
  for (uint32_t i = off; i < off + n; i++) { h->pw[i] = who; h->ps[i] = f; h->psw[i] = 0; }
  if (h->bs.n) bst_overwrite(e, in, e->C, off, n, tid);
}

void plX__hop_remote_write(plX_emu *e, const plX_ins *in, plX_cta *c, uint32_t off, uint32_t n, uint32_t tid) {
  plX_cta_hop *h = &c->h;
  uint32_t f = e->C->h.cfences[tid], who = pw_of(e, e->C, tid);
  for (uint32_t i = off; i < off + n; i++) { h->pw[i] = who; h->ps[i] = f; h->psw[i] = 0; }
  if (h->bs.n) bst_overwrite(e, in, c, off, n, tid);
}

/* a barrier, mbarrier phase or cluster barrier completed: a store is ordered before the async proxy's
** reads after it only if its writer's fence.proxy.async came before it (proxy_read). Every CTA of
** the cluster takes its snapshot (lenient: the barrier that completed need not be the one ordering
** the two) */
void plX__hop_fence_snap(plX_emu *e) {
  for (uint32_t r = 0; r < (e->H.ncl ? e->H.ncl : 1); r++) {
    plX_cta *c = e->H.ncl ? &e->ctas[r] : e->C;
    if (!c->h.fsnap) continue;
    memcpy(c->h.fsnap, c->h.fences, e->nthreads * sizeof *c->h.fsnap);
    memcpy(c->h.cfsnap, c->h.cfences, e->nthreads * sizeof *c->h.cfsnap);
  }
}

/* ---- bulk groups -----------------------------------------------------------------------------------
** cp.async.bulk.commit_group closes a thread's open bulk group; wait_group N completes all but its N
** most recent groups, wait_group.read N only their reads of the source. The emulator copies at issue,
** so what it checks is the program's side: an ld.global (by the issuing CTA) of bytes a bulk store
** still writes, an ordinary shared store over bytes one still reads. Groups are numbered per thread
** from 0; a store joins the open one (the count of commits so far). */
static uint32_t *bg_of(plX_cta *c, uint32_t tid) { return c->h.bg + (size_t)tid * 3; }

static void bst_drop(plX_emu *e, plX_cta *c) {
  uint32_t k = 0;
  for (uint32_t i = 0; i < c->h.bs.n; i++) {
    plX_bst *r = &c->h.bs.p[i];
    const uint32_t *g = bg_of(c, r->tid);
    if (r->grp < g[1]) {                                           /* written: gone */
      e->H.gst--;
      if (e->gsync) plX__global_done(e, r->glo, r->ghi);
      continue;
    }
    if (r->grp < g[2]) r->shi = r->slo;                            /* its source was read */
    c->h.bs.p[k++] = *r;
  }
  c->h.bs.n = k;
}

/* a bulk store by thread tid: shared [slo, shi) read, global [glo, ghi) written, until its group completes */
static int bst_push(plX_emu *e, const plX_ins *in, uint32_t tid, uint32_t slo, uint32_t shi, uint64_t glo, uint64_t ghi) {
  plX_cta *c = e->C;
  if (!c->h.bg) return 0;
  uint32_t grp = bg_of(c, tid)[0], pc = (uint32_t)(in - e->xf.code);
  if (c->h.bs.n) {                                                 /* the next row of the same TMA store */
    plX_bst *l = &c->h.bs.p[c->h.bs.n - 1];
    if (l->tid == tid && l->pc == pc && l->grp == grp && l->ghi == glo && l->slo == slo) { l->ghi = ghi; return 0; }
  }
  if (c->h.bs.n >= 65536) return 0;                                /* a program that never waits: stop tracking */
  plX_bst r = {tid, grp, pc, slo, shi, glo, ghi};
  if (!plB_vec_push(c->h.bs, r)) return plX__fail(e, in->stmt, "out of memory");
  e->H.gst++;
  return 0;
}

/* a generic write by thread tid of the executing CTA into the shared memory of CTA c (its own, or
** another's of the cluster) over the source of a bulk store c's threads issued and no wait_group
** has covered */
static int bst_overwrite(plX_emu *e, const plX_ins *in, plX_cta *c, uint32_t off, uint32_t n, uint32_t tid) {
  for (uint32_t i = 0; i < c->h.bs.n; i++) {
    const plX_bst *r = &c->h.bs.p[i];
    if (off >= r->shi || off + n <= r->slo) continue;
    plB_buf b; plB_buf_init(&b);
    plB_buf_printf(&b, "%s by ", plX__opname(e, in->stmt));
    whot(e, &b, e->C, tid);
    plB_buf_printf(&b, " writes shared byte 0x%x", off > r->slo ? off : r->slo);
    if (c != e->C) plB_buf_printf(&b, " of CTA (%u,%u,%u)", c->ctaid[0], c->ctaid[1], c->ctaid[2]);
    plB_buf_printf(&b, ", which the %s of line %s (by ", plX__opname(e, e->xf.code[r->pc].stmt), line_of(e, r->pc));
    whot(e, &b, c, r->tid);
    plB_buf_puts(&b, ") may still be reading: no cp.async.bulk.wait_group (.read or not) has covered its bulk group");
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
    int readonly = r->grp < bg_of(c, r->tid)[2];
    plB_buf b; plB_buf_init(&b);
    plB_buf_printf(&b, "%s by ", plX__opname(e, in->stmt));
    whot(e, &b, c, tid);
    plB_buf_printf(&b, " reads global address 0x%llx, which the %s of line %s (by ", (unsigned long long)(a > r->glo ? a : r->glo),
                   plX__opname(e, e->xf.code[r->pc].stmt), line_of(e, r->pc));
    whot(e, &b, c, r->tid);
    if (readonly)
      plB_buf_puts(&b, ") may still be writing: its bulk group was waited for with cp.async.bulk.wait_group.read only, which waits "
                   "until the source is read, not until the writes are done (wait without .read)");
    else plB_buf_puts(&b, ") may still be writing: no cp.async.bulk.wait_group has covered its bulk group");
    plX__fail(e, in->stmt, "%s", plB_buf_cstr(&b));
    plB_buf_free(&b);
    return 1;
  }
  return 0;
}

static int exec_bulkgrp(plX_emu *e, plX_warp *w, plX_ins *in, uint32_t em) {
  plX_cta *c = e->C;
  if (!c->h.bg) return 0;
  LANES(l, em, {
    uint32_t *g = bg_of(c, (uint32_t)w->idx * 32 + (uint32_t)l);
    if (in->op == X_BULKCOMMIT) { g[0]++; continue; }
    uint32_t done = g[0] >= in->c ? g[0] - in->c : 0;
    if (!in->sub2 && done > g[1]) g[1] = done;
    if (done > g[2]) g[2] = done;
  });
  if (in->op == X_BULKWAIT && c->h.bs.n) bst_drop(e, c);
  return 0;
}

/* ---- wgmma operands in flight ------------------------------------------------------------------------
** A wgmma reads its shared operands at some point before the wait_group that covers its group: a
** write to those bytes in between (a TMA load landing in a stage released too early, an st.shared)
** races with the tensor cores. The emulator reads at issue, so it records what each wgmma read and
** reports such writes instead of silently computing with the old bytes. */
static int wg_pending(const plX_cta *c, const plX_wgrd *r) {
  return r->group - 1 >= c->warps[r->warp].wg_done;
}

/* a retired read still matters while a warp ordered after its early release may write there, or one
** may still complete a wait on the phase it was released into */
static int wg_keep(plX_emu *e, plX_cta *c, const plX_wgrd *r) {
  if (wg_pending(c, r) || r->acq) return 1;
  if (!r->rel || r->rel_rank >= e->H.ncl) return 0;
  plX_mbar *m = mb_find(&e->ctas[r->rel_rank], r->rel_mb);
  return m && m->valid && m->phase <= r->rel_phase + 1;
}

/* drop the records nothing can race with any more */
static void wg_retire(plX_emu *e, plX_cta *c) {
  uint32_t k = 0;
  for (uint32_t i = 0; i < c->h.rd.n; i++)
    if (wg_keep(e, c, &c->h.rd.p[i])) c->h.rd.p[k++] = c->h.rd.p[i];
  c->h.rd.n = k;
}

/* r, released again into phase `phase` of the mbarrier at `mb` of CTA `rank`: a copy whose waiters are
** ordered after that arrive, unless one exists; rel: the early arrive the messages name (1 + pc; 0:
** r's, when the release runs through a chain) */
static void wg_forward(plX_cta *o, uint32_t i, uint32_t mb, uint32_t phase, uint32_t rank, uint32_t rel) {
  plX_wgrd f = o->h.rd.p[i];
  if (rel) f.rel = rel;
  for (uint32_t j = 0; j < o->h.rd.n; j++) {
    const plX_wgrd *q = &o->h.rd.p[j];
    if (q->pc == f.pc && q->warp == f.warp && q->group == f.group && q->lo == f.lo && q->rel_mb == mb &&
        q->rel_phase == phase && q->rel_rank == rank) return;
  }
  f.rel_mb = mb; f.rel_phase = phase; f.rel_rank = rank; f.acq = 0;
  plB_vec_push(o->h.rd, f);                                        /* out of memory: the chain is not followed */
}

/* warp w (of e->C) arrives on m (of CTA c, local or remote) while wgmma reads of its own are pending:
** a waiter on that phase is ordered after the arrive, not after the wait_group that retires the reads
** (the PTX memory model only guarantees a wgmma's shared reads complete at that wait_group). The
** same holds for every read w is ordered after through an earlier early release (a chain: what a
** waiter acquires is what the phase's arrivers released). Also note what w has retired. */
static void wg_release(plX_emu *e, plX_warp *w, plX_ins *in, plX_cta *c, plX_mbar *m) {
  uint32_t wi = (uint32_t)w->idx, me = e->C->rank;
  uint32_t *dv = mb_dn(c, m, 0), *dn = dv + me * e->nwarps + wi;  /* the slot of this CTA's warp wi */
  if (*dn < w->wg_done + 1) *dn = w->wg_done + 1;
  const uint32_t *kw = e->C->h.know + (size_t)wi * c->h.nslot;    /* and what wi is ordered after */
  for (uint32_t j = 0; j < c->h.nslot; j++) if (kw[j] > dv[j]) dv[j] = kw[j];
  for (uint32_t k = 0; k < e->H.ncl || (k == 0 && !e->H.ncl); k++) {
    plX_cta *o = e->H.ncl ? &e->ctas[k] : e->C;
    uint32_t n = o->h.rd.n;
    for (uint32_t i = 0; i < n; i++) {
      plX_wgrd *r = &o->h.rd.p[i];
      if (o == e->C && r->warp == wi && wg_pending(o, r)) {      /* its own pending reads */
        if (!r->rel) { r->rel = (uint32_t)(in - e->xf.code) + 1; r->rel_mb = m->off; r->rel_phase = m->phase; r->rel_rank = c->rank; }
        else if (r->rel_mb != m->off || r->rel_phase != m->phase || r->rel_rank != c->rank)
          wg_forward(o, i, m->off, m->phase, c->rank, (uint32_t)(in - e->xf.code) + 1);
      } else if (r->rel_rank == me && wi < 32 && (r->acq >> wi & 1))  /* reads w acquired early */
        wg_forward(o, i, m->off, m->phase, c->rank, 0);
    }
  }
}

/* warp w of c completed a wait on m (of c): it is ordered after the early releases into m's completed
** phases, and after the wait_groups of the warps (of any CTA of the cluster: remote arrivals count
** in their own CTA's slots) that arrived on m's last completed phase */
static void wg_acquire(plX_emu *e, plX_warp *w, plX_cta *c, plX_mbar *m) {
  uint32_t wi = (uint32_t)w->idx;
  if (wi >= 32) return;
  const uint32_t *ldn = mb_dn(c, m, 1);
  uint32_t *kw = c->h.know + (size_t)wi * c->h.nslot;             /* transitively: what the arrivers knew */
  for (uint32_t j = 0; j < c->h.nslot; j++) if (ldn[j] > kw[j]) kw[j] = ldn[j];
  for (uint32_t k = 0; k < e->H.ncl || (k == 0 && !e->H.ncl); k++) {
    plX_cta *o = e->H.ncl ? &e->ctas[k] : c;
    for (uint32_t i = 0; i < o->h.rd.n; i++) {
      plX_wgrd *r = &o->h.rd.p[i];
      if (!r->rel || r->rel_rank != c->rank) continue;
      if (r->rel_mb == m->off && r->rel_phase < m->phase && (o != c || r->warp != wi)) r->acq |= 1u << wi;
      if ((r->acq >> wi & 1) && kw[o->rank * e->nwarps + r->warp] > r->group) r->acq &= ~(1u << wi);
    }
  }
}

void plX__hop_bar_sync(plX_cta *c) {
  for (uint32_t i = 0; i < c->h.rd.n; i++)
    if (!wg_pending(c, &c->h.rd.p[i]) && c->h.rd.p[i].rel_rank == c->rank) c->h.rd.p[i].acq = 0;
}

/* a write by warp `warp` of c (-1: unknown) to shared bytes [off, off + n) of c; only_acq: report
** only the writes ordered after an early release (a copy being issued: it lands later) */
static int wg_check(plX_emu *e, uint32_t stmt, plX_cta *c, uint32_t off, uint32_t n, int warp, int only_acq, const char *who) {
  for (uint32_t i = 0; i < c->h.rd.n; i++) {
    const plX_wgrd *r = &c->h.rd.p[i];
    if (off >= r->hi || off + n <= r->lo) continue;
    int acq = warp >= 0 && warp < 32 && r->rel_rank == e->C->rank && (r->acq >> warp & 1);  /* the writer: e->C's */
    if (!acq && (only_acq || !wg_pending(c, r))) continue;
    uint32_t at = off > r->lo ? off : r->lo;
    if (acq)
      plX__fail(e, stmt, "%s writes shared byte 0x%x of CTA (%u,%u,%u), which the wgmma.mma_async of line %s (warp %u) reads: "
                "stage released at line %s before wgmma.wait_group covers the wgmma at line %s (this write is ordered after that "
                "mbarrier arrive, not after the wait_group; arrive only after the wait_group that retires the stage's readers)",
                who, at, c->ctaid[0], c->ctaid[1], c->ctaid[2], line_of(e, r->pc), r->warp, line_of(e, r->rel - 1), line_of(e, r->pc));
    else
      plX__fail(e, stmt, "%s writes shared byte 0x%x of CTA (%u,%u,%u), which the wgmma.mma_async of line %s (warp %u) reads: no "
                "wgmma.wait_group has covered that wgmma yet (release a buffer only after the wait_group that retires its readers)",
                who, at, c->ctaid[0], c->ctaid[1], c->ctaid[2], line_of(e, r->pc), r->warp);
    return 1;
  }
  return 0;
}

int plX__hop_wg_clobber(plX_emu *e, uint32_t stmt, plX_cta *c, uint32_t off, uint32_t n, int warp, const char *who) {
  return wg_check(e, stmt, c, off, n, warp, 0, who);
}

/* an async-proxy read of shared bytes [off, off + n) of CTA c: written by a generic store without a
** fence.proxy.async by its writer since is an error; want_sw >= 0 also checks the TMA swizzle */
static int proxy_read(plX_emu *e, const plX_ins *in, plX_warp *w, int l, plX_cta *c, uint32_t off, uint32_t n, int want_sw, const char *what) {
  plX_cta_hop *h = &c->h;
  if (!h->pw) return 0;
  uint32_t me = (uint32_t)w->idx * 32 + (uint32_t)l;
  for (uint32_t i = off; i < off + n; i++) {
    uint32_t wr = h->pw[i], r = wr ? (wr - 1) / e->nthreads : 0, t = wr ? (wr - 1) % e->nthreads : 0;
    const plX_cta *wc = r == c->rank ? c : &e->ctas[r];               /* the writer's CTA */
    uint32_t now = wr ? (wc == c ? wc->h.fences : wc->h.cfences)[t] : 0;   /* the writer's fences so far */
    /* another thread is ordered after the store by a barrier: the fence must precede it */
    uint32_t before = !wr || (wc == e->C && t == me) ? now : (wc == c ? wc->h.fsnap : wc->h.cfsnap)[t];
    if (wr && before == h->ps[i]) {
      plB_buf b; plB_buf_init(&b);
      plB_buf_printf(&b, "%s reads shared byte 0x%x", what, i);
      if (wc != c) plB_buf_printf(&b, " of CTA (%u,%u,%u)", c->ctaid[0], c->ctaid[1], c->ctaid[2]);
      plB_buf_puts(&b, ", written by ");
      whot(e, &b, wc, t);
      if (now != h->ps[i])
        plB_buf_puts(&b, " with an ordinary store, whose fence.proxy.async by that thread comes after the barrier that orders it before"
                         " this read: the fence must come between the store and the barrier (the async proxy may not see it)");
      else if (wc == c) plB_buf_puts(&b, " with an ordinary store and no fence.proxy.async by that thread since: the async proxy may not see it");
      else plB_buf_puts(&b, " with an ordinary store through shared::cluster and no fence.proxy.async (or .shared::cluster; .shared::cta does"
                            " not cover another CTA's memory) by that thread since: the async proxy may not see it");
      plX__fail_lane(e, in, w, l, plB_buf_cstr(&b));
      plB_buf_free(&b);
      return e->status;
    }
    if (want_sw >= 0 && h->psw[i] && h->psw[i] - 1 != want_sw)
      return plX__fail_lanef(e, in, w, l, "%s reads shared byte 0x%x through a descriptor declaring swizzle %s, but a TMA load wrote it with swizzle %s",
                       what, i, plB_sm_swizzle_name(want_sw), plB_sm_swizzle_name(h->psw[i] - 1));
  }
  return 0;
}

/* ---- copies in flight ------------------------------------------------------------------------------ */
static int queue(plX_emu *e, const plX_ins *in, uint32_t tid, uint32_t mask, uint32_t lo, uint32_t n, uint32_t mbar, uint32_t tx,
                 uint8_t *data, uint8_t *valid, int sw) {
  for (uint32_t r = 0; r < e->H.ncl; r++)                          /* a destination that exited: reported */
    if ((mask >> r & 1) && plX__exited(e, in->stmt, &e->ctas[r], lo, tid, "copies into")) { free(data); free(valid); return e->status; }
  for (uint32_t r = 0; r < (e->H.ncl ? e->H.ncl : 1); r++) {       /* each destination, this CTA or another */
    plX_cta *c = e->H.ncl ? &e->ctas[r] : e->C;
    if (!(mask >> c->rank & 1) || !c->h.rd.n || !wg_check(e, in->stmt, c, lo, n, (int)(tid / 32), 1, plX__opname(e, in->stmt))) continue;
    free(data); free(valid);
    return e->status;
  }
  plX_async a;
  a.pc = (uint32_t)(in - e->xf.code); a.tid = tid; a.rank = e->C->rank; a.mask = mask; a.lo = lo; a.n = n;
  a.mbar = mbar; a.tx = tx; a.data = data; a.valid = valid; a.sw = sw; a.red = -1; a.rdt = 0;
  memset(a.ph, 0, sizeof a.ph);
  for (uint32_t r = 0; mbar != X_NOSLOT && r < e->H.ncl && r < 16; r++) {   /* its phases */
    const plX_mbar *m = (mask >> r & 1) ? mb_find(&e->ctas[r], mbar) : NULL;
    if (m) a.ph[r] = m->phase;
  }
  if (!plB_vec_push(e->H.q, a)) { free(data); free(valid); return plX__fail(e, in->stmt, "out of memory"); }
  return 0;
}

/* the expect_tx check, as copy a lands on mbarrier m of CTA c: its bytes belong to the phase it was
** issued in (a correct program completes that phase only once they land; the PTX ISA lets a copy
** land before the expect_tx announcing it, the count going below zero meanwhile, which is fine),
** and the bytes delivered to a phase must not pass what it expects once all its arrivals are in:
** the phase would complete in the middle of the copy, the rest counting against the next phase
** (a box larger than its tile, an expect_tx short of the copies). At the copy's line; 1 if
** reported */
static int tx_check(plX_emu *e, const plX_async *a, plX_cta *c, plX_mbar *m) {
  uint32_t stmt = e->xf.code[a->pc].stmt, ph = c->rank < 16 ? a->ph[c->rank] : m->phase;
  const char *op = plX__opname(e, stmt);
  char where[64];
  snprintf(where, sizeof where, "shared 0x%x of CTA (%u,%u,%u)", m->off, c->ctaid[0], c->ctaid[1],
           c->ctaid[2]);
  plB_buf b; plB_buf_init(&b);
  if (m->phase != ph) {                                            /* it completed without it */
    plB_buf_printf(&b, "%s: the copy was issued in phase %u of the mbarrier at %s, but lands after "
                   "that phase completed: its %u transaction bytes count against phase %u. ", op,
                   ph, where, a->tx, m->phase);
    if (m->phase == ph + 1 && m->lxpc)
      plB_buf_printf(&b, "Phase %u's expect_tx announced %u bytes (line %s) and its copies had "
                     "brought %u: the copies of a phase bring more bytes than its expect_tx counts "
                     "(a box or size larger than the tile, a copy too many)", ph, m->lxsum,
                     line_of(e, m->lxpc - 1), m->lgot);
    else if (m->phase == ph + 1)
      plB_buf_printf(&b, "Phase %u completed with no expect_tx announcing these bytes (its copies "
                     "had brought %u): arrive with mbarrier.arrive.expect_tx for the bytes the "
                     "phase's copies bring", ph, m->lgot);
    else plB_buf_printf(&b, "%u phases completed since it was issued", m->phase - ph);
  } else if (m->pending == 0 && m->tx > 0 && (int64_t)a->tx > m->tx) {   /* it ends mid-copy */
    plB_buf_printf(&b, "%s: the copy completes %u transaction bytes on the mbarrier at %s, whose "
                   "phase %u has all its arrivals and expects only %d more (", op, a->tx, where,
                   m->phase, m->tx);
    if (m->xpc)
      plB_buf_printf(&b, "its expect_tx announced %u bytes, line %s", m->xsum,
                     line_of(e, m->xpc - 1));
    else plB_buf_puts(&b, "no expect_tx in this phase");
    plB_buf_printf(&b, "; its copies brought %u before this one): the phase completes before the "
                   "copy ends, and its last %u bytes count against phase %u -- the copy brings "
                   "more bytes than the expect_tx counts (a box or size larger than the tile?)",
                   m->got, a->tx - (uint32_t)m->tx, m->phase + 1);
  }
  if (b.n) {
    plX__fail(e, stmt, "%s", plB_buf_cstr(&b));
    plB_buf_free(&b);
    return 1;
  }
  plB_buf_free(&b);
  m->got += a->tx;
  m->cpc = a->pc + 1;
  return 0;
}

static uint64_t red_apply(int op, int dt, uint64_t old, uint64_t v);
int plX__hop_flush(plX_emu *e) {
  plX_hop *H = &e->H;
  if (!H->q.n) return 0;
  plX_cta *keep = e->C;
  int err = 0;
  for (uint32_t i = 0; i < H->q.n && !err; i++) {
    plX_async *a = &H->q.p[i];
    e->C = &e->ctas[a->rank];
    for (uint32_t r = 0; r < H->ncl && !err; r++) {
      if (!(a->mask >> r & 1)) continue;
      plX_cta *c = &e->ctas[r];
      if (plX__exited(e, e->xf.code[a->pc].stmt, c, a->lo, a->tid, "lands in")) { err = 1; break; }   /* (its issuer's CTA: e->C) */
      if (c->h.rd.n && plX__hop_wg_clobber(e, e->xf.code[a->pc].stmt, c, a->lo, a->n, (int)(a->tid / 32), plX__opname(e, e->xf.code[a->pc].stmt))) {
        err = 1;
        break;
      }
      int es = a->red >= 0 ? tm_esize(a->rdt) : 1;
      for (uint32_t j = 0; j < a->n; j++) {
        if (a->valid && !a->valid[j]) continue;
        uint32_t o = a->lo + j;
        if (a->red >= 0 && j % (uint32_t)es == 0) {                /* one element of a reduction */
          uint64_t old = 0, v = 0;
          memcpy(&old, c->smem + o, (size_t)es); memcpy(&v, a->data + j, (size_t)es);
          uint64_t rv = red_apply(a->red, a->rdt, old, v);
          memcpy(a->data + j, &rv, (size_t)es);
        }
        c->smem[o] = a->data[j];
        if (c->smem_def) c->smem_def[o] = 1;
        if (c->h.pw) { c->h.pw[o] = 0; c->h.psw[o] = (uint8_t)(a->sw >= 0 ? a->sw + 1 : 0); }
      }
      if (a->mbar == X_NOSLOT) continue;
      plX_mbar *m = mb_find(c, a->mbar);
      uint32_t stmt = e->xf.code[a->pc].stmt;
      if (!m || !m->valid) {
        plX__fail(e, stmt, "%s: the mbarrier at shared 0x%x of CTA (%u,%u,%u) that it completes on is not initialized", plX__opname(e, stmt),
                  a->mbar, c->ctaid[0], c->ctaid[1], c->ctaid[2]);
        err = 1;
        break;
      }
      if (tx_check(e, a, c, m)) err = 1;
      else if (mb_tx(e, stmt, c, m, -(int64_t)a->tx, plX__opname(e, stmt))) err = 1;
    }
  }
  for (uint32_t i = 0; i < H->q.n; i++) { free(H->q.p[i].data); free(H->q.p[i].valid); }
  H->q.n = 0;
  e->C = keep;
  return err ? -1 : 1;
}

/* a read of shared bytes [lo, hi) of CTA c by lane l of w (-1: the warp as a whole) of the executing
** CTA while a copy (TMA, bulk, multicast, a reduction) still writes some of them: issued and not yet
** seen to land by any mbarrier wait, it writes them at a moment the reader does not know -- a
** missing wait, a wait on the wrong phase parity, a stage read before its refill lands */
int plX__hop_inflight_read(plX_emu *e, const plX_ins *in, plX_warp *w, int l, const plX_cta *c, uint32_t lo, uint32_t hi, const char *what) {
  for (uint32_t i = 0; i < e->H.q.n; i++) {
    const plX_async *a = &e->H.q.p[i];
    if (!(a->mask >> c->rank & 1) || hi <= a->lo || lo >= a->lo + a->n) continue;
    uint32_t from = lo > a->lo ? lo : a->lo, to = hi < a->lo + a->n ? hi : a->lo + a->n, b = from;
    if (a->valid) while (b < to && !a->valid[b - a->lo]) b++;
    if (b >= to) continue;
    const plX_cta *ic = &e->ctas[a->rank];
    char at[48] = "";
    if (c != e->C) snprintf(at, sizeof at, " of CTA (%u,%u,%u)", c->ctaid[0], c->ctaid[1], c->ctaid[2]);
    plB_buf m; plB_buf_init(&m);
    plB_buf_printf(&m, "%s reads shared byte 0x%x%s, which the %s of line %s (by ", what, b, at, plX__opname(e, e->xf.code[a->pc].stmt),
                   line_of(e, a->pc));
    whot(e, &m, e->H.ncl ? ic : e->C, a->tid);
    plB_buf_printf(&m, ") is still writing: no wait on its mbarrier (shared 0x%x) has seen the copy land -- a missing wait, a wait on "
                   "the wrong phase parity, or a stage read before its refill", a->mbar);
    if (l < 0) plX__fail_warp(e, in, w, plB_buf_cstr(&m), 0);
    else plX__fail_lane(e, in, w, l, plB_buf_cstr(&m));
    plB_buf_free(&m);
    return e->status;
  }
  return 0;
}

/* the shared source [off, off + n) of a TMA or bulk copy out of CTA c's shared memory, read when issued:
** written for the async proxy (proxy_read), and by no copy still in flight */
static int source_read(plX_emu *e, const plX_ins *in, plX_warp *w, int l, plX_cta *c, uint32_t off, uint32_t n) {
  const char *what = plX__opname(e, in->stmt);
  return proxy_read(e, in, w, l, c, off, n, -1, what) || (e->H.q.n && plX__hop_inflight_read(e, in, w, l, c, off, off + n, what));
}

/* ---- TMA ------------------------------------------------------------------------------------------- */
static uint64_t red_apply(int op, int dt, uint64_t old, uint64_t v) {
  int fmt = dt == PLB_TM_F16 ? XFMT_F16 : dt == PLB_TM_BF16 ? XFMT_BF16 : (dt == PLB_TM_F32 || dt == PLB_TM_F32_FTZ) ? XFMT_F32 :
            dt == PLB_TM_F64 ? XFMT_F64 : -1;
  int sgn = dt == PLB_TM_S32 || dt == PLB_TM_S64;
  int bits = tm_esize(dt) * 8;
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
  case XA_MIN: return sgn ? (sx(v, bits) < sx(old, bits) ? v : old) : (zx(v, bits) < zx(old, bits) ? v : old);
  case XA_MAX: return sgn ? (sx(v, bits) > sx(old, bits) ? v : old) : (zx(v, bits) > zx(old, bits) ? v : old);
  case XA_INC: return zx(old >= v ? 0 : old + 1, bits);
  case XA_DEC: return zx((old == 0 || old > v) ? v : old - 1, bits);
  case XA_AND: return old & v;
  case XA_OR: return old | v;
  case XA_XOR: return old ^ v;
  }
  return old;
}

static int red_ok(int op, int dt) {
  int fl = dt == PLB_TM_F16 || dt == PLB_TM_BF16 || dt == PLB_TM_F32 || dt == PLB_TM_F32_FTZ || dt == PLB_TM_F64;
  if (dt == PLB_TM_TF32 || dt == PLB_TM_TF32_FTZ) return 0;
  if (fl) return op == XA_ADD || op == XA_MIN || op == XA_MAX;
  return 1;
}

/* im2col: the next pixel of the walk px (W, H, D, then N; dims - 1 entries): each spatial coordinate
** steps by its element stride and, past the pixel box's upper corner, wraps to its lower corner
** carrying into the next dimension; N has no box */
static void pix_step(const xtmap *t, int dims, int64_t *px) {
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

/* in->t2: 1 for the im2col forms (loads and prefetches take D-2 offsets after the coordinates in
** the vector slots; stores and reductions are .im2col_no_offs) */
static int exec_tma(plX_emu *e, plX_warp *w, plX_ins *in, uint32_t em) {
  const uint32_t *vs = e->xf.vslots + in->vs;
  int dims = in->vec, i2c = in->t2 == 1;
  LANES(l, em, {
    uint32_t tid = (uint32_t)w->idx * 32 + (uint32_t)l;
    xtmap t;
    if (tm_read(e, in, w, l, wslot(w, vs[0])[l], &t)) return e->status;
    if (t.mode != i2c)
      return plX__fail_lanef(e, in, w, l, i2c ? "an im2col copy through a tile-mode tensor map (make one with dev:tensormap(array, { mode = \"im2col\", ... }))"
                                        : "a tile-mode copy through an im2col tensor map (it takes the .im2col forms)");
    if (t.rank != dims) return plX__fail_lanef(e, in, w, l, "a %dd copy through a tensor map of rank %d", dims, t.rank);
    int64_t c0[5], ioff[3] = {0, 0, 0};
    for (int i = 0; i < dims; i++) c0[i] = (int32_t)wslot(w, vs[1 + i])[l];
    if (i2c && (in->sub == 0 || in->sub == 3))                     /* the im2col offsets: signed 16-bit */
      for (int i = 0; i < dims - 2; i++) ioff[i] = (int16_t)wslot(w, vs[1 + dims + i])[l];
    if (in->sub == 3) continue;                                    /* prefetch: checked, no effect */
    if (in->sub == 2 && !red_ok(in->sub2, t.dtype)) return plX__fail_lanef(e, in, w, l, "this reduction is not defined for the tensor map's element type");
    uint32_t cnt[5] = {1, 1, 1, 1, 1}, total = 1;
    if (i2c) total = t.cpp * t.ppc;                                /* ppc pixels of cpp channels each */
    else for (int i = 0; i < dims; i++) { cnt[i] = (t.box[i] + t.es[i] - 1) / t.es[i]; total *= cnt[i]; }
    int64_t px[4] = {0, 0, 0, 0};
    for (int i = 1; i < dims; i++) px[i - 1] = c0[i];
    uint32_t bytes = total * (uint32_t)t.esize;
    uint32_t span = t.sw ? (bytes + 127) / 128 * 128 : bytes;
    plX_cta *c; uint32_t off;
    int ld = in->sub == 0;
    if (!smem_at(e, in, w, l, addr_of(in, w, l), XS_SHARED, ld, span, 128, &c, &off, ld ? "the destination" : "the source")) return e->status;
    uint8_t *data = NULL, *valid = NULL;
    if (ld) {
      data = calloc(span, 1); valid = calloc(span, 1);
      if (!data || !valid) { free(data); free(valid); return plX__fail(e, in->stmt, "out of memory"); }
    } else if (source_read(e, in, w, l, c, off, span)) return e->status;
    int32_t cache = -1;
    uint32_t stored = 0;                                           /* elements in bounds (a store) */
    for (uint32_t k = 0; k < total; k++) {
      uint32_t lin = k * (uint32_t)t.esize;
      int64_t g[5];
      if (i2c) {                                                   /* pixel k / cpp, channel k % cpp */
        uint32_t ch = k % t.cpp;
        if (ch == 0 && k) pix_step(&t, dims, px);
        g[0] = c0[0] + ch;
        for (int i = 1; i < dims - 1; i++) g[i] = px[i - 1] + ioff[i - 1];
        g[dims - 1] = px[dims - 2];
      } else {
        uint32_t rem = k;
        for (int i = 0; i < dims; i++) { uint32_t ki = rem % cnt[i]; rem /= cnt[i]; g[i] = c0[i] + (int64_t)ki * t.es[i]; }
      }
      int inb = 1;
      uint64_t ga = t.addr;
      for (int i = 0; i < dims; i++) {
        if (g[i] < 0 || (uint64_t)g[i] >= t.dims[i]) inb = 0;
        else ga += (uint64_t)g[i] * t.strides[i];
      }
      uint32_t so = plB_sm_swizzle(t.sw, off + lin) - off;        /* the swizzle of the absolute address */
      if (ld) { for (int b = 0; b < t.esize; b++) valid[so + (uint32_t)b] = 1; }
      if (!inb) {                                                  /* zeros (or NaN) on a load, skipped on a store */
        if (ld && t.oob) oob_nan(data + so, t.esize);
        continue;
      }
      plX_buf *gb = plX__find(e->mem, ga, &cache);
      if (!gb || ga - gb->addr + (uint64_t)t.esize > gb->size) {
        if (data) { free(data); free(valid); }
        plB_buf b; plB_buf_init(&b);
        plB_buf_printf(&b, "the tensor map's element at ");
        plX__describe_addr(e, &b, ga, (uint64_t)t.esize);
        plB_buf_puts(&b, " (was its array freed?)");
        plX__fail_lane(e, in, w, l, plB_buf_cstr(&b));
        plB_buf_free(&b);
        return e->status;
      }
      uint8_t *gp = gb->p + (ga - gb->addr);
      if (!ld && bst_push(e, in, tid, off, off + span, ga, ga + (uint64_t)t.esize)) return e->status;   /* bulk group tracking */
      stored++;
      if (ld) {                                                    /* a plain read by the issuing thread (races check) */
        if (e->gsync && plX__global_access(e, in, gb, ga - gb->addr, (uint32_t)t.esize, tid, 5)) { free(data); free(valid); return e->status; }
        memcpy(data + so, gp, (size_t)t.esize);
      }
      else if (gb->ro) return plX__fail_lanef(e, in, w, l, "a TMA store into constant memory");
      else if (in->sub == 1) {
        if (e->gsync && plX__global_access(e, in, gb, ga - gb->addr, (uint32_t)t.esize, tid, 3)) return e->status;
        memcpy(gp, c->smem + off + so, (size_t)t.esize);
      }
      else {                                                       /* a reduction: an atomic per element (races check) */
        if (e->gsync && plX__global_access(e, in, gb, ga - gb->addr, (uint32_t)t.esize, tid, 2)) return e->status;
        uint64_t old = 0, v = 0;
        memcpy(&old, gp, (size_t)t.esize); memcpy(&v, c->smem + off + so, (size_t)t.esize);
        uint64_t r = red_apply(in->sub2, t.dtype, old, v);
        memcpy(gp, &r, (size_t)t.esize);
      }
    }
    /* a box wholly outside the tensor writes nothing, and still reads its source until its group
    ** completes (.read): the source-overwrite check needs its record */
    if (!ld && !stored && in->sub != 3 && bst_push(e, in, tid, off, off + span, 0, 0)) return e->status;
    if (!ld) continue;
    uint32_t mask = 1u << c->rank;
    if (in->fl & XF_CLUSTER) {
      mask = (uint32_t)wslot(w, in->c)[l] & 0xffffu;
      if (!mask || (mask >> e->H.ncl)) { free(data); free(valid); return plX__fail_lanef(e, in, w, l, "ctaMask 0x%x names CTAs outside the cluster of %u", mask, e->H.ncl); }
    }
    plX_cta *mc; uint32_t moff;
    if (!smem_at(e, in, w, l, mbar_addr(in, w, l), XS_SHARED, 1, 8, 8, &mc, &moff, "the mbarrier")) { free(data); free(valid); return e->status; }
    if (mc != c) { free(data); free(valid); return plX__fail_lanef(e, in, w, l, "the mbarrier is in another CTA than the destination"); }
    if (mb_copy_visible(e, in, w, l, mask, moff)) { free(data); free(valid); return e->status; }
    if (e->nregions) {                                             /* inside the tile it lands in */
      uint32_t wn = span;
      while (wn && !valid[wn - 1]) wn--;
      plB_buf wb; plB_buf_init(&wb);                              /* what the copy is */
      if (i2c) plB_buf_printf(&wb, "%u pixels of %u channels of %d bytes", t.ppc, t.cpp, t.esize);
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
    if (queue(e, in, tid, mask, off, span, moff, bytes, data, valid, t.sw)) return e->status;
  });
  return 0;
}

/* ---- bulk copies ------------------------------------------------------------------------------------ */
/* do the n global bytes at a (both ends in bounds) lie in one buffer? */
static int one_buffer(plX_emu *e, uint64_t a, uint32_t n) {
  int32_t c1 = -1, c2 = -1;
  return plX__find(e->mem, a, &c1) == plX__find(e->mem, a + n - 1, &c2);
}

static int exec_bulk(plX_emu *e, plX_warp *w, plX_ins *in, uint32_t em) {
  uint64_t *SZ = wslot(w, in->b);
  LANES(l, em, {
    uint32_t tid = (uint32_t)w->idx * 32 + (uint32_t)l;
    uint32_t n = (uint32_t)SZ[l];
    if (n == 0 || n % 16) return plX__fail_lanef(e, in, w, l, "the size %u is not a positive multiple of 16", n);
    uint64_t src = src_addr(in, w, l);
    plX_ins tmp = *in; tmp.space = XS_GLOBAL; tmp.cache = -1;
    if (in->sub == 4) {                                            /* prefetch: bounds only (it reads nothing a thread sees) */
      if (src % 16) return plX__fail_lanef(e, in, w, l, "the global address 0x%llx is not a multiple of 16", (unsigned long long)src);
      if (!plX__mem(e, &tmp, XS_GLOBAL, src, 1, tid, 4) || !plX__mem(e, &tmp, XS_GLOBAL, src + n - 1, 1, tid, 4)) return e->status;
      continue;
    }
    if (in->sub >= 2 && in->sub != 5) {                            /* shared::cta -> global */
      plX_cta *c; uint32_t off;
      if (!smem_at(e, in, w, l, src, XS_SHARED, 0, n, 16, &c, &off, "the source")) return e->status;
      if (source_read(e, in, w, l, c, off, n)) return e->status;
      uint64_t dst = addr_of(in, w, l);
      if (dst % 16) return plX__fail_lanef(e, in, w, l, "the global address 0x%llx is not a multiple of 16", (unsigned long long)dst);
      uint8_t *gp = plX__mem(e, &tmp, XS_GLOBAL, dst, 1, tid, 3), *gl = gp ? plX__mem(e, &tmp, XS_GLOBAL, dst + n - 1, 1, tid, 3) : NULL;
      if (!gl) return e->status;
      if (!one_buffer(e, dst, n)) return plX__fail_lanef(e, in, w, l, "the %u bytes at global 0x%llx run past the end of their buffer", n, (unsigned long long)dst);
      if (bst_push(e, in, tid, off, off + n, dst, dst + n)) return e->status;
      if (in->sub == 2) {
        plX_buf *gb = plX__find(e->mem, dst, &tmp.cache);
        if (e->gsync && plX__global_access(e, in, gb, dst - gb->addr, n, tid, 3)) return e->status;
        memmove(gp, c->smem + off, n);
        continue;
      }
      int es = tb(in->t) / 8;
      if (es < 1 || n % (uint32_t)es) return plX__fail_lanef(e, in, w, l, "the size is not a whole number of elements");
      if (e->gsync) {                                              /* a reduction: an atomic per element (races check) */
        plX_buf *gb = plX__find(e->mem, dst, &tmp.cache);
        if (plX__global_access(e, in, gb, dst - gb->addr, n, tid, 2)) return e->status;
      }
      int dt = in->t == PLT_F32 ? PLB_TM_F32 : in->t == PLT_F16 ? PLB_TM_F16 : in->t == PLT_BF16 ? PLB_TM_BF16 : in->t == PLT_F64 ? PLB_TM_F64
             : in->t == PLT_S32 ? PLB_TM_S32 : in->t == PLT_S64 ? PLB_TM_S64 : es == 8 ? PLB_TM_U64 : PLB_TM_U32;
      for (uint32_t j = 0; j < n; j += (uint32_t)es) {
        uint64_t old = 0, v = 0;
        memcpy(&old, gp + j, (size_t)es); memcpy(&v, c->smem + off + j, (size_t)es);
        uint64_t r = red_apply(in->sub2, dt, old, v);
        memcpy(gp + j, &r, (size_t)es);
      }
      continue;
    }
    uint8_t *data = malloc(n);
    if (!data) return plX__fail(e, in->stmt, "out of memory");
    if (in->sub == 0) {                                            /* global -> shared::cluster */
      if (src % 16) { free(data); return plX__fail_lanef(e, in, w, l, "the global address 0x%llx is not a multiple of 16", (unsigned long long)src); }
      uint8_t *gp = plX__mem(e, &tmp, XS_GLOBAL, src, 1, tid, 4), *gl = gp ? plX__mem(e, &tmp, XS_GLOBAL, src + n - 1, 1, tid, 4) : NULL;
      if (!gl) { free(data); return e->status; }
      if (!one_buffer(e, src, n)) { free(data); return plX__fail_lanef(e, in, w, l, "the %u bytes at global 0x%llx run past the end of their buffer", n, (unsigned long long)src); }
      if (e->gsync) {                                              /* its bytes: plain reads by the issuing thread */
        plX_buf *gb = plX__find(e->mem, src, &tmp.cache);
        if (plX__global_access(e, in, gb, src - gb->addr, n, tid, 5)) { free(data); return e->status; }
      }
      memcpy(data, gp, n);
    } else {                                                       /* shared::cta -> shared::cluster */
      plX_cta *c; uint32_t off;
      if (!smem_at(e, in, w, l, src, XS_SHARED, 0, n, 16, &c, &off, "the source")) { free(data); return e->status; }
      if (source_read(e, in, w, l, c, off, n)) { free(data); return e->status; }
      memcpy(data, c->smem + off, n);
    }
    plX_cta *dc; uint32_t doff;
    if (!smem_at(e, in, w, l, addr_of(in, w, l), XS_SHARED, 1, n, 16, &dc, &doff, "the destination")) { free(data); return e->status; }
    plX_cta *mc; uint32_t moff;
    if (!smem_at(e, in, w, l, mbar_addr(in, w, l), XS_SHARED, 1, 8, 8, &mc, &moff, "the mbarrier")) { free(data); return e->status; }
    if (mc != dc) { free(data); return plX__fail_lanef(e, in, w, l, "the mbarrier is in another CTA than the destination"); }
    uint32_t mask = 1u << dc->rank;
    if (in->fl & XF_CLUSTER) {
      mask = (uint32_t)wslot(w, in->c)[l] & 0xffffu;
      if (!mask || (mask >> e->H.ncl)) { free(data); return plX__fail_lanef(e, in, w, l, "ctaMask 0x%x names CTAs outside the cluster of %u", mask, e->H.ncl); }
    }
    if (mb_copy_visible(e, in, w, l, mask, moff)) { free(data); return e->status; }
    if (e->nregions) {                                             /* inside the allocation */
      char what[48];
      snprintf(what, sizeof what, "%u bytes", n);
      if (plX__region_check(e, in, w, l, doff, n, what)) { free(data); return e->status; }
    }
    if (queue(e, in, tid, mask, doff, n, moff, n, data, NULL, -1)) return e->status;
    if (in->sub == 5) {                                            /* cp.reduce.async.bulk: applied as it lands */
      int es = tb(in->t) / 8;
      plX_async *q = &e->H.q.p[e->H.q.n - 1];
      q->red = in->sub2;
      q->rdt = in->t == PLT_S32 ? PLB_TM_S32 : es == 8 ? PLB_TM_U64 : PLB_TM_U32;
    }
  });
  return 0;
}

/* ---- wgmma ------------------------------------------------------------------------------------------- */
static inline double elem(uint32_t bits, int t) {
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
static inline uint32_t desc_at(const plB_sm_desc *d, uint32_t mask, int elt, int mn, uint32_t i, uint32_t j) {
  uint32_t W = (uint32_t)plB_sm_swizzle_bytes(d->swizzle), per = 16 / (uint32_t)elt, lin;
  if (!mn) {
    uint32_t jb = j * (uint32_t)elt;
    if (W) lin = (i / 8) * d->sbo + (i % 8) * W + jb;
    else lin = (i / 8) * d->sbo + (j / per) * d->lbo + (i % 8) * 16 + (j % per) * (uint32_t)elt;
  } else {
    uint32_t ib = i * (uint32_t)elt;
    if (W) lin = (ib / W) * d->lbo + (j / 8) * d->sbo + (j % 8) * W + ib % W;
    else lin = (i / per) * d->sbo + (j / 8) * d->lbo + (j % 8) * 16 + (i % per) * (uint32_t)elt;
  }
  uint32_t a = d->start + lin, row = (a >> 7) - (d->start >> 7) + (uint32_t)d->base_offset;
  return a ^ (((row << 7) & mask) >> 3);
}

/* rows [r0, r0 + rows) x K of a matrix in shared memory through a descriptor, into out[row][k] */
static int desc_load(plX_emu *e, plX_ins *in, plX_warp *w, uint64_t desc, int t, int mn, uint32_t r0, uint32_t rows, uint32_t K,
                     double *out, const char *which, plX_wgrd *span) {
  plB_sm_desc d;
  plB_sm_desc_decode(desc, &d);
  int elt = tb(t) / 8;
  if (mn && elt != 2) return plX__fail_warp(e, in, w, "a transposed (MN-major) operand needs 16-bit elements", 0xffffffffu);
  plX_cta *c = e->C;
  char what[96];
  snprintf(what, sizeof what, "%s (%s)", plX__opname(e, in->stmt), which);
  span->lo = UINT32_MAX; span->hi = 0;
  uint32_t mask = plB_sm_swizzle_mask(d.swizzle);
  int skew = ((((d.start >> 7) - (uint32_t)d.base_offset) << 7) & mask) != 0;  /* not the absolute pattern */
  for (uint32_t r = 0; r < rows; r++)
    for (uint32_t k = 0; k < K; k++) {
      uint32_t a = desc_at(&d, mask, elt, mn, r0 + r, k);
      if ((uint64_t)a + (uint32_t)elt > e->smem_size)
        return plX__fail_warp(e, in, w, "a matrix descriptor reads outside shared memory", 0xffffffffu);
      if (c->h.pw && proxy_read(e, in, w, 0, c, a, (uint32_t)elt, d.swizzle, what)) return e->status;
      if (skew && c->h.psw && c->h.psw[a] > 1 + PLSM_SW_NONE) {
        char m[320];
        snprintf(m, sizeof m, "%s reads shared byte 0x%x through a descriptor with base offset %d, but a TMA load wrote it "
                 "with the %s pattern of the absolute address: for the tile at 0x%x the base offset is %u",
                 what, a, d.base_offset, plB_sm_swizzle_name(d.swizzle), d.start, (d.start >> 7) & 7);
        return plX__fail_warp(e, in, w, m, 0xffffffffu);
      }
      /* opt-in: kept, the run goes on (a copy in flight there: the always-on check names it) */
      if ((e->checks & PLX_CHECK_UNINIT_SHARED) && c->smem_def && !e->ndeferred) {
        for (int b = 0; b < elt; b++) {
          if (c->smem_def[a + (uint32_t)b]) continue;
          const uint32_t *id = e->C->ctaid;
          plX__optin(e, in->stmt, "%s in warp %d of CTA (%u,%u,%u): %s reads shared byte 0x%x, "
                     "which nothing has written", plX__opname(e, in->stmt), w->idx, id[0], id[1],
                     id[2], which, a + (uint32_t)b);
          break;
        }
      }
      uint32_t bits = 0;
      memcpy(&bits, c->smem + a, (size_t)elt);
      out[(size_t)r * K + k] = elem(bits, t);
      if (a < span->lo) span->lo = a;
      if (a + (uint32_t)elt > span->hi) span->hi = a + (uint32_t)elt;
    }
  if (e->H.q.n && span->hi > span->lo && plX__hop_inflight_read(e, in, w, -1, c, span->lo, span->hi, what)) return e->status;
  return 0;
}

/* sparse A (wgmma.mma_async.sp): the stored M x K/2 values Ac of this warp's 16 rows, placed by the
** metadata into the columns kx of a K-wide row (Ac[r][j] is A[r][kx[r][j]], the other columns are
** zero). Each warp holds the metadata of its own rows (docs/emulator.md, "Sparse wgmma"):
**   f16/bf16 (2:4, K 32) and tf32 (1:2, K 16): lanes 4g + 2 sel and 4g + 2 sel + 1 (sel 0 or 1)
**     hold rows g (bits 0-15) and g + 8 (bits 16-31), the first lane chunks 0-3, the second 4-7;
**   e4m3/e5m2/s8/u8 (2:4, K 64; sel 0): lane 4g + h + 2 c holds row g + 8 h, chunks 8c..8c+7.
** Chunk q's 4 bits are at 4 (q % 4) (4 (q % 8) for 8-bit) above the row's base: two 2-bit
** positions (low: the first stored value's) for 2:4, 0b0100 or 0b1110 (position 0 or 1) for tf32. */
static int sp_place(plX_emu *e, plX_ins *in, plX_warp *w, int at, int K, uint8_t kx[16][32]) {
  uint32_t sel = (uint32_t)(in->off2 - 1);
  int tf = at == PLT_TF32, b8 = !tf && at != PLT_F16 && at != PLT_BF16;
  const uint64_t *M = wslot(w, in->e);
  if (b8 ? sel != 0 : sel > 1) {
    char m[128];
    snprintf(m, sizeof m, "sparsity selector %u: must be %s (other values are undefined)", sel, b8 ? "0 for 8-bit types" : "0 or 1");
    return plX__fail_warp(e, in, w, m, 0xffffffffu);
  }
  int chunks = tf ? K / 2 : K / 4;
  for (int r = 0; r < 16; r++)
    for (int q = 0; q < chunks; q++) {
      int g = r % 8, h = r / 8, lane, bit;
      if (b8) { lane = 4 * g + h + 2 * (q / 8); bit = 4 * (q % 8); }
      else { lane = 4 * g + 2 * (int)sel + q / 4; bit = 16 * h + 4 * (q % 4); }
      uint32_t nib = (uint32_t)(M[lane] >> bit) & 15;
      if (tf) {
        if (nib != 4 && nib != 14)
          return plX__fail_lanef(e, in, w, lane, "sparsity metadata 0x%x (bits %d-%d) for row %d, columns %d-%d of A: a tf32 chunk's "
                           "index is 0b0100 or 0b1110 (other values are undefined)", nib, bit + 3, bit, 16 * (w->idx % 4) + r, 2 * q, 2 * q + 1);
        kx[r][q] = (uint8_t)(2 * q + (nib == 14));
      } else {
        uint32_t i0 = nib & 3, i1 = nib >> 2;
        if (i0 == i1)
          return plX__fail_lanef(e, in, w, lane, "sparsity metadata 0x%x (bits %d-%d) for row %d, columns %d-%d of A: both stored values "
                           "at position %u (0b0000, 0b0101, 0b1010, 0b1111 are undefined)", nib, bit + 3, bit, 16 * (w->idx % 4) + r,
                           4 * q, 4 * q + 3, i0);
        kx[r][2 * q] = (uint8_t)(4 * q + (int)i0); kx[r][2 * q + 1] = (uint8_t)(4 * q + (int)i1);
      }
    }
  return 0;
}

/* the registers instruction `in` (not a wgmma) reads or writes, stamped with the warp's clock */
void plX__hop_wg_touch(plX_emu *e, plX_warp *w, const plX_ins *in) {
  size_t base = (size_t)w->idx * e->xf.nslots;
  const uint32_t *c = e->xf.chk + in->chk;
  uint32_t pc = (uint32_t)(in - e->xf.code);
  for (int i = 0; i < in->nrd + in->nwr; i++) {
    if (c[i] & X_PREDBIT) continue;
    e->C->h.wga[base + c[i]] = w->clock; e->C->h.wgapc[base + c[i]] = pc;
  }
}

/* the PTX ISA wants a wgmma.fence by every warp of the warpgroup before its first wgmma.mma_async, and
** between any other access to a register and a wgmma that uses it as an accumulator or as an A
** fragment (accumulator accesses by wgmmas of the same shape need none): else what the tensor
** cores read or write there is undefined */
static int wg_fenced(plX_emu *e, plX_warp *w, const plX_ins *in, uint32_t slot, const char *as) {
  size_t k = (size_t)w->idx * e->xf.nslots + slot;
  if (e->C->h.wga[k] <= w->wgf) return 0;
  plB_buf b; plB_buf_init(&b);
  plB_buf_puts(&b, "it uses ");
  plI_regname(e->m, e->xf.slot_reg[slot], &b);
  plB_buf_printf(&b, " as %s, which the %s of line %s accessed after the warp's last wgmma.fence (line %s): "
                 "a wgmma.fence must come between them", as, plX__opname(e, e->xf.code[e->C->h.wgapc[k]].stmt),
                 line_of(e, e->C->h.wgapc[k]), line_of(e, w->wgf_pc));
  plX__fail_warp(e, in, w, plB_buf_cstr(&b), 0);
  plB_buf_free(&b);
  return e->status;
}

/* a new read record joins a recent one of the same warp, group and source line (the k-steps of one
** wgmma loop) whose bytes it overlaps or touches, while neither has been released: the union of two
** such ranges is one range, and the messages name the same line. The records stay few (the
** early-release chains scan them at every arrive). */
static int wg_merge(plX_emu *e, plX_cta *c, const plX_wgrd *r) {
  const plI_stmt *sr = plX__stmt(e, e->xf.code[r->pc].stmt);
  uint32_t n = c->h.rd.n, from = n > 8 ? n - 8 : 0;
  for (uint32_t i = n; i-- > from;) {
    plX_wgrd *q = &c->h.rd.p[i];
    if (q->warp != r->warp || q->group != r->group || q->rel || q->acq || r->lo > q->hi || q->lo > r->hi) continue;
    const plI_stmt *sq = plX__stmt(e, e->xf.code[q->pc].stmt);
    if (!sr || !sq || sr->line != sq->line || sr->file != sq->file) continue;
    if (r->lo < q->lo) q->lo = r->lo;
    if (r->hi > q->hi) q->hi = r->hi;
    return 1;
  }
  return 0;
}

static int exec_wgmma(plX_emu *e, plX_warp *w, plX_ins *in, uint32_t em) {
  if (plX__full_warp(e, in, w, em)) return e->status;
  const uint32_t *vs = e->xf.vslots;
  int N = in->vec * 8, dt = in->t, at = in->t2, bt = in->t3, sparse = in->off2 != 0;
  if (e->C->h.wga) {                                               /* the wgmma.fence check */
    if (!w->wgf)
      return plX__fail_warp(e, in, w, "a wgmma.mma_async with no wgmma.fence before it in this warp: the first wgmma of a "
                            "warpgroup needs one (and one after any other access to its accumulator or A registers)", 0);
    int nacc = dt == PLT_F16 ? N / 4 : N / 2;
    for (int i = 0; i < nacc; i++) if (wg_fenced(e, w, in, vs[in->vs + (uint32_t)i], "an accumulator")) return e->status;
    if (in->sub & 16)
      for (uint32_t j = 0; j < 4; j++) if (wg_fenced(e, w, in, vs[in->a + j], "an A fragment")) return e->status;
  }
  int K = at == PLT_TF32 ? 8 : (at == PLT_F16 || at == PLT_BF16) ? 16 : 32;
  int integer = at == PLT_S8 || at == PLT_U8;
  uint32_t wi = (uint32_t)w->idx % 4;                              /* this warp's 16 rows of the 64 */
  double A[16 * 32], *B;
  uint8_t kx[16][32];
  plX_wgrd sa_span, sb_span;
  memset(&sa_span, 0, sizeof sa_span); memset(&sb_span, 0, sizeof sb_span);
  if (sparse && sp_place(e, in, w, at, 2 * K, kx)) return e->status;
  B = malloc(sizeof(double) * (size_t)N * (size_t)K * (sparse ? 2u : 1u));
  if (!B) return plX__fail(e, in->stmt, "out of memory");
  if (in->sub & 16) {                                              /* A in registers: the mma.sync A fragments */
    for (int l = 0; l < 32; l++) {                                 /* (sparse: of the stored K/2 columns) */
      int g = l / 4, tq = l % 4;
      for (int j = 0; j < 4; j++) {
        uint32_t v = (uint32_t)wslot(w, vs[in->a + (uint32_t)j])[l];
        int row = g + 8 * (j & 1);
        if (K == 16) { int col = 2 * tq + 8 * (j >> 1); A[row * K + col] = elem(v, at); A[row * K + col + 1] = elem(v >> 16, at); }
        else if (K == 8) A[row * K + tq + 4 * (j >> 1)] = elem(v, at);
        else for (int b = 0; b < 4; b++) A[row * K + 4 * tq + 16 * (j >> 1) + b] = elem(v >> (8 * b), at);
      }
    }
  } else if (desc_load(e, in, w, wslot(w, in->a)[0], at, (in->sub & 1) != 0, 16 * wi, 16, (uint32_t)K, A, "operand A", &sa_span)) { free(B); return e->status; }
  int KB = sparse ? 2 * K : K;                                     /* B's K */
  if (desc_load(e, in, w, wslot(w, in->b)[0], bt, (in->sub & 2) != 0, 0, (uint32_t)N, (uint32_t)KB, B, "operand B", &sb_span)) { free(B); return e->status; }
  for (int l = 1; l < 32; l++)
    if (wslot(w, in->b)[l] != wslot(w, in->b)[0] || (!(in->sub & 16) && wslot(w, in->a)[l] != wslot(w, in->a)[0])) {
      free(B);
      return plX__fail_warp(e, in, w, "the matrix descriptors differ between the lanes of the warp", 0xffffffffu);
    }
  double sa = (in->sub & 4) ? -1 : 1, sb = (in->sub & 8) ? -1 : 1;
  uint32_t scd = (in->sub & 32) ? ((in->sub & 64) ? ~0u : 0) : w->P[in->c];
  int nd = dt == PLT_F16 ? N / 4 : N / 2;
  for (int l = 0; l < 32; l++) {
    int g = l / 4, tq = l % 4, keep = (scd >> l) & 1;
    for (int i = 0; i < nd; i++) {
      uint64_t *R = wslot(w, vs[in->vs + (uint32_t)i]);
      int halves = dt == PLT_F16 ? 2 : 1;
      uint64_t out = 0;
      for (int h = 0; h < halves; h++) {
        int row, col;
        if (dt == PLT_F16) { row = g + 8 * (i & 1); col = 8 * (i >> 1) + 2 * tq + h; }
        else { row = g + 8 * ((i >> 1) & 1); col = 8 * (i >> 2) + 2 * tq + (i & 1); }
        const double *ar = A + row * K, *bc = B + (size_t)col * (size_t)KB;
        const uint8_t *kr = kx[row];
        if (integer) {
          int64_t s = keep ? (int64_t)(int32_t)R[l] : 0;
          if (sparse) for (int k = 0; k < K; k++) s += (int64_t)ar[k] * (int64_t)bc[kr[k]];
          else for (int k = 0; k < K; k++) s += (int64_t)ar[k] * (int64_t)bc[k];
          if (in->fl & XF_SATF) { if (s > INT32_MAX) s = INT32_MAX; if (s < INT32_MIN) s = INT32_MIN; }
          out = (uint32_t)s;
        } else {
          double s = 0;
          if (keep) s = dt == PLT_F16 ? plX__to_double((R[l] >> (16 * h)) & 0xffff, XFMT_F16) : f32(R[l]);
          if (sparse) for (int k = 0; k < K; k++) s += (sa * ar[k]) * (sb * bc[kr[k]]);
          else for (int k = 0; k < K; k++) s += (sa * ar[k]) * (sb * bc[k]);
          if (dt == PLT_F16) out |= plX__round(s, 0, XFMT_F16, XR_RN, 0) << (16 * h);
          else out = c32((float)s);
        }
      }
      R[l] = out;
    }
  }
  free(B);
  /* the operands stay in use until a wait_group covers the open group */
  plX_cta *cc = e->C;
  if (cc->h.rd.n >= 4096) wg_retire(e, cc);
  for (int o = 0; o < 2; o++) {
    plX_wgrd r = o ? sb_span : sa_span;
    if (r.hi <= r.lo) continue;
    r.warp = (uint32_t)w->idx; r.group = w->wg_cur + 1; r.pc = (uint32_t)(in - e->xf.code);
    if (wg_merge(e, cc, &r)) continue;
    if (!plB_vec_push(cc->h.rd, r)) return plX__fail(e, in->stmt, "out of memory");
  }
  /* the accumulators belong to the open group until a wait_group covers it */
  if (e->C->h.wgg) {
    uint32_t *G = e->C->h.wgg + (size_t)w->idx * e->xf.nslots;
    for (int i = 0; i < nd; i++) G[vs[in->vs + (uint32_t)i]] = w->wg_cur + 1;
    if (w->wg_last != w->wg_cur + 1) { w->wg_gpc[w->wg_cur % 16] = (uint32_t)(in - e->xf.code); w->wg_last = w->wg_cur + 1; }
  }
  return 0;
}

int plX__hop_accum_check(plX_emu *e, plX_warp *w, plX_ins *in) {
  const uint32_t *G = e->C->h.wgg + (size_t)w->idx * e->xf.nslots;
  const uint32_t *c = e->xf.chk + in->chk;
  for (int i = 0; i < in->nrd + in->nwr; i++) {
    uint32_t r = c[i];
    if (r & X_PREDBIT) continue;
    uint32_t g = G[r];
    if (!g || g - 1 < w->wg_done) continue;
    plB_buf b; plB_buf_init(&b);
    plB_buf_printf(&b, "accumulator read before wgmma.wait_group: %s ", i < in->nrd ? "reads" : "writes");
    plI_regname(e->m, e->xf.slot_reg[r], &b);
    plB_buf_printf(&b, ", an accumulator of the wgmma.mma_async of line %s, which no wgmma.wait_group has waited for",
                   line_of(e, w->wg_gpc[(g - 1) % 16]));
    int lane = __builtin_ctz(w->exists & ~w->exited);
    plX__fail_lane(e, in, w, lane, plB_buf_cstr(&b));
    plB_buf_free(&b);
    return e->status;
  }
  return 0;
}

/* ---- clusters --------------------------------------------------------------------------------------- */
static void cl_complete(plX_emu *e) {
  plX_hop *H = &e->H;
  H->clphase++;
  e->gbars++;
  H->clcount = 0;
  for (uint32_t r = 0; r < H->ncl; r++) e->ctas[r].epoch++;     /* a barrier of every CTA's threads too */
  plX__hop_fence_snap(e);
  for (uint32_t r = 0; r < H->ncl; r++)
    for (uint32_t w = 0; w < e->nwarps; w++) {
      plX_warp *W = &e->ctas[r].warps[w];
      uint32_t m = W->waiting;
      while (m) { int l = __builtin_ctz(m); m &= m - 1; if (W->bid[l] == XB_CLUSTER) W->waiting &= ~(1u << l); }
    }
}

/* has every non-exited thread of the cluster arrived in this phase? */
static int cl_all(plX_emu *e) {
  plX_hop *H = &e->H;
  for (uint32_t r = 0; r < H->ncl; r++) {
    plX_cta *c = &e->ctas[r];
    for (uint32_t w = 0; w < e->nwarps; w++) {
      plX_warp *W = &c->warps[w];
      uint32_t live = W->exists & ~W->exited;
      while (live) {
        int l = __builtin_ctz(live); live &= live - 1;
        if (c->h.clarr[(uint32_t)w * 32 + (uint32_t)l] != H->clphase + 1) return 0;
      }
    }
  }
  return 1;
}

int plX__hop_cluster_check(plX_emu *e) {
  if (e->ctas[0].h.nreg) {                                       /* exits may have freed registers */
    int any = 0;
    plX_cta *keep = e->C;
    for (uint32_t r = 0; r < e->H.ncl; r++) { e->C = &e->ctas[r]; any |= regs_wake(e); }
    e->C = keep;
    if (any) return 1;
  }
  if (!e->H.clcount || !e->ctas[0].h.clarr || !cl_all(e)) return 0;
  cl_complete(e);
  return 1;
}

static int exec_clbar(plX_emu *e, plX_warp *w, plX_ins *in, uint32_t pc, uint32_t em, uint32_t *blocked) {
  plX_hop *H = &e->H;
  uint32_t *A = e->C->h.clarr;
  if ((in->fl & XF_ALIGNED) && em != (w->exists & ~w->exited))
    return plX__fail_warp(e, in, w, "an aligned barrier executed by part of a warp", (w->exists & ~w->exited) & ~em);
  uint32_t wait = 0;
  LANES(l, em, {
    uint32_t tid = (uint32_t)w->idx * 32 + (uint32_t)l;
    if (in->sub == 0) {
      if (A[tid] == H->clphase + 1) return plX__fail_lane(e, in, w, l, "arrives twice at the cluster barrier without a barrier.cluster.wait between");
      A[tid] = H->clphase + 1;
      H->clcount++;
    } else {
      if (!A[tid]) return plX__fail_lane(e, in, w, l, "barrier.cluster.wait without a barrier.cluster.arrive before it");
      if (A[tid] <= H->clphase) A[tid] = 0;                       /* its phase completed */
      else { wait |= 1u << l; w->bid[l] = XB_CLUSTER; w->bpc[l] = pc; }
    }
  });
  w->waiting |= wait;
  *blocked = wait;
  if (in->sub == 0 && cl_all(e)) cl_complete(e);
  return 0;
}

static int exec_mapa(plX_emu *e, plX_warp *w, plX_ins *in, uint32_t em) {
  uint64_t *D = wslot(w, in->d), *A = wslot(w, in->a), *B = wslot(w, in->b);
  int gen = in->space == XS_GENERIC;
  LANES(l, em, {
    uint64_t a = A[l];
    if (in->t == PLT_U32 || in->abits == 32) a = (uint32_t)a;
    if (gen) {
      if (a - X_SH_BASE >= X_WIN) return plX__fail_lanef(e, in, w, l, "generic address 0x%llx is not in the shared window", (unsigned long long)a);
      a -= X_SH_BASE;
    }
    plX_cta *c; uint32_t off;
    if (!plX__hop_smem(e, a, &c, &off)) return plX__fail_lanef(e, in, w, l, "shared address 0x%llx names no CTA of the cluster", (unsigned long long)a);
    if (in->op == X_GETRANK) { D[l] = c->rank; continue; }
    uint32_t r = (uint32_t)B[l];
    if (r >= e->H.ncl) return plX__fail_lanef(e, in, w, l, "CTA rank %u is outside the cluster of %u", r, e->H.ncl);
    uint64_t v = (uint64_t)(r + 1) << X_DSM_SHIFT | off;
    D[l] = gen ? X_SH_BASE + v : v;
  });
  return 0;
}

/* ---- the rest ------------------------------------------------------------------------------------- */
static int exec_elect(plX_emu *e, plX_warp *w, plX_ins *in, uint32_t em) {
  if (!em) return 0;
  uint64_t *M = wslot(w, in->e), *D = wslot(w, in->d);
  /* per lane, as the other .sync instructions (exec.c member_check): in its own mask, and the
  ** non-exited lanes it names execute this with the same mask; each group elects its lowest lane */
  uint32_t out = 0, live = w->exists & ~w->exited, lead = 0;
  LANES(l, em, if (!((uint32_t)M[l] >> l & 1)) out |= 1u << l);
  if (out) return plX__fail_warp(e, in, w, "executing lanes are missing from their membermask", out);
  LANES(l, em, {
    uint32_t mk = (uint32_t)M[l], absent = mk & live & ~em, diff = 0;
    if (absent) return plX__fail_warp(e, in, w, "lanes named in membermask did not execute this instruction with the others", absent);
    for (uint32_t q = mk & live; q; q &= q - 1) { int j = __builtin_ctz(q); if ((uint32_t)M[j] != mk) diff |= 1u << j; }
    if (diff) return plX__fail_warp(e, in, w, "membermask differs between lanes", diff | 1u << l);
  });
  LANES(l, em, { int leader = __builtin_ctz((uint32_t)M[l] & em); D[l] = (uint64_t)leader; lead |= 1u << leader; });
  w->P[in->d2] = pmerge(w->P[in->d2], lead, em);
  return 0;
}

static uint64_t regs_used(plX_emu *e);
static uint64_t regs_pool(plX_emu *e);

/* wake the warps of the current CTA waiting in setmaxnreg.inc whose request fits now; 1 if any */
static int regs_wake(plX_emu *e) {
  int any = 0;
  for (uint32_t i = 0; i < e->nwarps; i++) {
    plX_warp *W = &e->C->warps[i];
    uint32_t m = W->waiting & ~W->exited;
    if (!m) continue;
    int l = __builtin_ctz(m);
    if (W->bid[l] != XB_REGS) continue;
    uint32_t n = e->xf.code[W->bpc[l]].c, cur = e->C->h.nreg[i] & 0x7fffffffu;
    if (regs_used(e) - (uint64_t)cur * 32 + (uint64_t)n * 32 > regs_pool(e)) continue;
    for (int k = 0; k < 32; k++) if ((m >> k & 1) && W->bid[k] == XB_REGS) W->waiting &= ~(1u << k);
    any = 1;
  }
  return any;
}

/* setmaxnreg: the registers of the CTA's warps may not pass its pool -- the register file (64K) or,
** with .maxnreg, .maxnreg x threads. A warp that has not run setmaxnreg counts its share of the pool
** (ptxas decides the real launch count); inc/dec against a count an earlier setmaxnreg set are checked. */
static uint64_t regs_used(plX_emu *e) {
  uint64_t used = 0;
  for (uint32_t i = 0; i < e->nwarps; i++) {
    plX_warp *W = &e->C->warps[i];
    if (W->exists & ~W->exited) used += (uint64_t)(e->C->h.nreg[i] & 0x7fffffffu) * 32;
  }
  return used;
}
static uint64_t regs_pool(plX_emu *e) {
  const plI_func *f = &e->m->funcs.p[e->func];
  uint64_t pool = 65536;
  if (f->maxnreg && (uint64_t)f->maxnreg * e->nthreads < pool) pool = (uint64_t)f->maxnreg * e->nthreads;
  return pool;
}

/* setmaxnreg: the registers of the CTA's warps come from its pool -- the register file (64K) or,
** with .maxnreg, .maxnreg x threads. A warp that has not run setmaxnreg holds its share of the pool
** (ptxas decides the real launch count). An inc that does not fit waits until decs (or exits) free
** registers, as on the hardware: one that never fits is a deadlock at its line. An inc below (a dec
** above) a count an earlier setmaxnreg gave the warp is an error. */
static int exec_setmaxnreg(plX_emu *e, plX_warp *w, plX_ins *in, uint32_t pc, uint32_t em, uint32_t *blocked) {
  if (plX__full_warp(e, in, w, em)) return e->status;
  uint32_t n = in->c, *R = e->C->h.nreg, cur = R[w->idx];
  int known = (cur & 0x80000000u) != 0;
  cur &= 0x7fffffffu;
  if (n < 24 || n > 256 || n % 8) return plX__fail_warp(e, in, w, "the register count must be a multiple of 8 in 24..256", em);
  if (known && in->sub && n < cur) {
    char m[160]; snprintf(m, sizeof m, "setmaxnreg.inc to %u, below the %u registers per thread an earlier setmaxnreg gave the warp", n, cur);
    return plX__fail_warp(e, in, w, m, em);
  }
  if (known && !in->sub && n > cur) {
    char m[160]; snprintf(m, sizeof m, "setmaxnreg.dec to %u, above the %u registers per thread an earlier setmaxnreg gave the warp", n, cur);
    return plX__fail_warp(e, in, w, m, em);
  }
  if (in->sub) {
    uint64_t used = regs_used(e) - (uint64_t)cur * 32 + (uint64_t)n * 32;
    if (used > regs_pool(e)) {                                   /* wait for registers */
      LANES(l, em, { w->bid[l] = XB_REGS; w->bpc[l] = pc; });
      w->waiting |= em;
      *blocked = em;
      return 0;
    }
  }
  R[w->idx] = n | 0x80000000u;
  if (!in->sub) regs_wake(e);                                    /* registers freed: incs may fit now */
  return 0;
}

int plX__hop_exec(plX_emu *e, plX_warp *w, plX_ins *in, uint32_t pc, uint32_t am, uint32_t em) {
  (void)pc; (void)am;
  switch (in->op) {
  case X_MBAR: return exec_mbar(e, w, in, em);
  case X_MBPENDING: {
    uint64_t *D = wslot(w, in->d), *A = wslot(w, in->a);
    LANES(l, em, D[l] = (uint32_t)A[l] & 0xfffffu);
    return 0;
  }
  case X_CPMBARRIVE:
    LANES(l, em, {
      uint32_t tid = (uint32_t)w->idx * 32 + (uint32_t)l;
      plX__cp_complete(e, tid, UINT32_MAX);
      if (e->status) return e->status;
      plX_cta *c; uint32_t off;
      if (!smem_at(e, in, w, l, addr_of(in, w, l), in->space, 0, 8, 8, &c, &off, "mbarrier")) return e->status;
      plX_mbar *m = mb_get(e, in, w, l, c, off);
      if (!m) return e->status;
      if (in->sub && mb_arrive(e, in, w, l, c, m, 1, 0, 0, NULL)) return e->status;
    });
    return 0;
  case X_TMA: return exec_tma(e, w, in, em);
  case X_BULK: return exec_bulk(e, w, in, em);
  case X_BULKCOMMIT: case X_BULKWAIT: return exec_bulkgrp(e, w, in, em);   /* stores happen when issued; these say when it is safe */
  case X_WGFENCE: if (plX__full_warp(e, in, w, em)) return e->status; w->wgf = w->clock; w->wgf_pc = (uint32_t)(in - e->xf.code); return 0;
  case X_WGMMA: return exec_wgmma(e, w, in, em);
  case X_WGCOMMIT:
    if (plX__full_warp(e, in, w, em)) return e->status;
    w->wg_cur++;
    return 0;
  case X_WGWAIT:
    if (plX__full_warp(e, in, w, em)) return e->status;
    if (w->wg_cur >= in->c && w->wg_cur - in->c > w->wg_done) w->wg_done = w->wg_cur - in->c;
    if (e->C->h.rd.n) wg_retire(e, e->C);
    return 0;
  case X_MAPA: case X_GETRANK: return exec_mapa(e, w, in, em);
  case X_ELECT: return exec_elect(e, w, in, em);
  case X_FENCEPROXY:
    if (in->sub == 1 && e->gpf && (in->sub2 == 0 || in->sub2 == 3)) e->gpf[e->C->cta_linear]++;   /* races check: global */
    if (in->sub == 1 && e->C->h.fences)                            /* sub2: 0 no space, 1 ::cta, 2 ::cluster, 3 global */
      LANES(l, em, {
        uint32_t t = (uint32_t)w->idx * 32 + (uint32_t)l;
        if (in->sub2 != 3) e->C->h.fences[t]++;
        if (in->sub2 == 0 || in->sub2 == 2) e->C->h.cfences[t]++;
      });
    if (in->sub == 2) LANES(l, em, tm_release(e, (uint32_t)w->idx * 32 + (uint32_t)l, NULL));
    if (in->sub == 3) LANES(l, em, { if (tm_acquire(e, in, addr_of(in, w, l), (uint32_t)w->idx * 32 + (uint32_t)l)) return e->status; });
    return 0;
  case X_TMAP: return exec_tmap(e, w, in, em);
  }
  return plX__fail(e, in->stmt, "%s is not emulated", plX__opname(e, in->stmt));
}

/* the blocking ones, from the warp loop: lanes that must wait are returned in *blocked */
int plX__hop_wait(plX_emu *e, plX_warp *w, plX_ins *in, uint32_t pc, uint32_t em, uint32_t *blocked) {
  *blocked = 0;
  if (in->op == X_MBWAIT) return exec_mbwait(e, w, in, pc, em, blocked);
  if (in->op == X_SETMAXNREG) return exec_setmaxnreg(e, w, in, pc, em, blocked);
  return exec_clbar(e, w, in, pc, em, blocked);
}

/* ---- CTAs ------------------------------------------------------------------------------------------- */
void plX__hop_scan(plX_emu *e) {
  plX_hop *H = &e->H;
  if (H->scanned) return;
  H->scanned = 1;
  for (uint32_t i = 0; i < e->xf.ncode; i++) {
    int op = e->xf.code[i].op;
    if (op >= X_MBAR && op < X__COUNT) H->used = 1;
    if (op == X_WGMMA) H->has_wgmma = 1;
    if (op == X_WGMMA || op == X_TMA || op == X_BULK) H->track = 1;
  }
}

int plX__hop_setup(plX_emu *e, plX_cta *c) {
  plX_hop *H = &e->H;
  plX__hop_scan(e);
  if (c->rank == 0) {
    for (uint32_t i = 0; i < H->q.n; i++) { free(H->q.p[i].data); free(H->q.p[i].valid); }
    H->q.n = 0;
    H->clphase = H->clcount = 0;
    H->gst = 0;                                                    /* the last cluster's bulk stores are done */
    if (c->cta_linear == 0) { H->tmi.n = 0; H->tacq.n = 0; H->tmseq = 0; }   /* a launch starts */
    const plI_func *f = &e->m->funcs.p[e->func];
    uint32_t b = 65536 / (e->nthreads ? e->nthreads : 1);
    if (f->maxnreg && f->maxnreg < b) b = f->maxnreg;
    if (b > 255) b = 255;
    H->budget = b & ~7u;
  }
  c->h.mb.n = 0;
  c->h.dnv.n = 0;
  c->h.mbdone = 0;
  c->h.nslot = (H->ncl ? H->ncl : 1) * e->nwarps;
  c->h.rd.n = 0;
  for (uint32_t w = 0; w < e->nwarps; w++) {
    plX_warp *W = &c->warps[w];
    W->wg_cur = W->wg_done = W->wg_last = 0;
  }
  if (!H->used) return 0;
  plX__hop_free(c);
  size_t sm = e->smem_size ? e->smem_size : 1;
  c->h.nreg = malloc(e->nwarps * sizeof *c->h.nreg);
  c->h.clarr = calloc(e->nthreads, sizeof *c->h.clarr);
  if (!c->h.nreg || !c->h.clarr) return plX__fail(e, X_NOSLOT, "out of memory");
  for (uint32_t w = 0; w < e->nwarps; w++) c->h.nreg[w] = H->budget;
  if (H->track) {
    c->h.psw = calloc(sm, 1);
    c->h.pw = calloc(sm, sizeof *c->h.pw);
    c->h.ps = calloc(sm, sizeof *c->h.ps);
    c->h.fences = calloc(e->nthreads, sizeof *c->h.fences);
    c->h.cfences = calloc(e->nthreads, sizeof *c->h.cfences);
    c->h.fsnap = calloc(e->nthreads, sizeof *c->h.fsnap);
    c->h.cfsnap = calloc(e->nthreads, sizeof *c->h.cfsnap);
    if (!c->h.fsnap || !c->h.cfsnap) return plX__fail(e, X_NOSLOT, "out of memory");
    c->h.bg = calloc((size_t)e->nthreads * 3, sizeof *c->h.bg);
    if (!c->h.psw || !c->h.pw || !c->h.ps || !c->h.fences || !c->h.cfences || !c->h.bg) return plX__fail(e, X_NOSLOT, "out of memory");
  }
  if (H->has_wgmma) {
    c->h.wgg = calloc((size_t)e->nwarps * e->xf.nslots, sizeof *c->h.wgg);
    c->h.know = calloc((size_t)e->nwarps * c->h.nslot, sizeof *c->h.know);
    if (!c->h.know) return plX__fail(e, X_NOSLOT, "out of memory");
    c->h.wga = calloc((size_t)e->nwarps * e->xf.nslots, sizeof *c->h.wga);
    c->h.wgapc = calloc((size_t)e->nwarps * e->xf.nslots, sizeof *c->h.wgapc);
    if (!c->h.wgg || !c->h.wga || !c->h.wgapc) return plX__fail(e, X_NOSLOT, "out of memory");
  }
  return 0;
}

void plX__hop_free(plX_cta *c) {
  free(c->h.psw); free(c->h.pw); free(c->h.ps); free(c->h.fences); free(c->h.cfences); free(c->h.wgg); free(c->h.nreg); free(c->h.clarr);
  free(c->h.fsnap); free(c->h.cfsnap); free(c->h.wga); free(c->h.wgapc); free(c->h.know);
  c->h.wga = NULL; c->h.wgapc = NULL; c->h.know = NULL;
  c->h.psw = NULL; c->h.pw = c->h.ps = c->h.fences = c->h.cfences = c->h.wgg = c->h.nreg = c->h.clarr = NULL;
  c->h.fsnap = c->h.cfsnap = NULL;
  plB_vec_free(c->h.mb);
  memset(&c->h.mb, 0, sizeof c->h.mb);
  plB_vec_free(c->h.dnv);
  plB_vec_free(c->h.rd);
  memset(&c->h.rd, 0, sizeof c->h.rd);
  plB_vec_free(c->h.bs);
  free(c->h.bg);
  c->h.bg = NULL;
}

/* at a deadlock (no warp can run, no copy is in flight): an mbarrier phase with all its
** arrivals whose transaction count is not zero can never complete -- its copies delivered other
** bytes than its expect_tx announced. The report names both, at the line of the last copy that
** landed on the phase (else the expect_tx's, else the init's), and the wait stuck on it; 1 if
** reported */
int plX__hop_tx_stuck(plX_emu *e) {
  for (int pass = 0; pass < 2; pass++)                             /* one a warp waits on first */
    for (uint32_t r = 0; r < e->H.ncl; r++) {
      plX_cta *c = &e->ctas[r];
      for (uint32_t i = 0; i < c->h.mb.n; i++) {
        plX_mbar *m = &c->h.mb.p[i];
        if (!m->valid || m->pending || !m->tx) continue;
        const plX_warp *W = NULL; int wl = 0;
        for (uint32_t w = 0; w < e->nwarps && !W; w++) {
          const plX_warp *X = &c->warps[w];
          for (uint32_t q = X->waiting & ~X->exited; q; q &= q - 1) {
            int l = __builtin_ctz(q);
            if (X->bid[l] == XB_MBAR && X->wmb[l] == m->off) { W = X; wl = l; break; }
          }
        }
        if (!W && pass == 0) continue;
        uint32_t pc = m->cpc ? m->cpc - 1 : m->xpc ? m->xpc - 1 : m->pc;
        plB_buf b; plB_buf_init(&b);
        const uint32_t *id = c->ctaid;
        plB_buf_printf(&b, "%s: phase %u of the mbarrier at shared 0x%x of CTA (%u,%u,%u) "
                       "(initialized at line %s) can never complete: all its %u arrivals are in, "
                       "but ", plX__opname(e, e->xf.code[pc].stmt), m->phase, m->off, id[0], id[1],
                       id[2], line_of(e, m->pc), m->expected);
        if (m->cpc)
          plB_buf_printf(&b, "its copies brought %u transaction bytes (the last at line %s)",
                         m->got, line_of(e, m->cpc - 1));
        else plB_buf_printf(&b, "no copy completed bytes on it (%u by complete_tx)", m->got);
        if (m->xpc)
          plB_buf_printf(&b, " where its expect_tx announced %u (line %s)", m->xsum,
                         line_of(e, m->xpc - 1));
        else plB_buf_puts(&b, " with no expect_tx in this phase");
        if (m->tx > 0)
          plB_buf_printf(&b, ": %d bytes are missing, and no copy in flight will bring them",
                         m->tx);
        else plB_buf_printf(&b, ": %d bytes too many (its transaction count is %d)", -m->tx, m->tx);
        if (W)
          plB_buf_printf(&b, "; a deadlock: %s at line %s waits on it (warp %d of CTA (%u,%u,%u))",
                         plX__opname(e, e->xf.code[W->bpc[wl]].stmt), line_of(e, W->bpc[wl]),
                         W->idx, id[0], id[1], id[2]);
        plX__fail(e, e->xf.code[pc].stmt, "%s", plB_buf_cstr(&b));
        plB_buf_free(&b);
        return 1;
      }
    }
  return 0;
}

int plX__hop_deadlock(plX_emu *e, plB_buf *m, plX_warp *W, int lane) {
  plX_cta *c = e->C;
  uint32_t stmt = e->xf.code[W->bpc[lane]].stmt;
  if (W->bid[lane] == XB_MBAR) {
    plX_mbar *b = mb_find(c, W->wmb[lane]);
    plB_buf_printf(m, "deadlock in CTA (%u,%u,%u): %s waits on the mbarrier at shared 0x%x", c->ctaid[0], c->ctaid[1], c->ctaid[2],
                   plX__opname(e, stmt), W->wmb[lane]);
    if (b && b->tx >= 0)
      plB_buf_printf(m, " (initialized at line %s), whose phase %u still misses %u of %u arrivals and %d transaction bytes",
                     line_of(e, b->pc), b->phase, b->pending, b->expected, b->tx);
    else if (b)                                                    /* more bytes landed than expect_tx announced */
      plB_buf_printf(m, " (initialized at line %s), whose phase %u still misses %u of %u arrivals and has a transaction count of %d: "
                     "%d bytes more arrived than its expect_tx announced", line_of(e, b->pc), b->phase, b->pending, b->expected, b->tx, -b->tx);
  } else if (W->bid[lane] == XB_REGS) {
    plB_buf_printf(m, "deadlock in CTA (%u,%u,%u): %s waits for registers: the CTA's warps hold %llu of its pool of %llu (%s) and none will free enough",
                   c->ctaid[0], c->ctaid[1], c->ctaid[2], plX__opname(e, stmt), (unsigned long long)regs_used(e),
                   (unsigned long long)regs_pool(e), e->m->funcs.p[e->func].maxnreg ? ".maxnreg x threads" : "the 64K-register file");
  } else {
    uint32_t arrived = 0, live = 0;
    for (uint32_t r = 0; r < e->H.ncl; r++)
      for (uint32_t w = 0; w < e->nwarps; w++) {
        plX_warp *X = &e->ctas[r].warps[w];
        for (int l = 0; l < 32; l++)
          if ((X->exists & ~X->exited) >> l & 1) {
            live++;
            if (e->ctas[r].h.clarr[w * 32 + (uint32_t)l] == e->H.clphase + 1) arrived++;
          }
      }
    plB_buf_printf(m, "deadlock in the cluster of CTA (%u,%u,%u): %s waits for the %u non-exited threads of the cluster, %u arrived",
                   c->ctaid[0], c->ctaid[1], c->ctaid[2], plX__opname(e, stmt), live, arrived);
  }
  return 0;
}
