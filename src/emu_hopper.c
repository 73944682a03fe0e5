/* emu_hopper.c -- the Hopper families: mbarrier objects (phases, arrival and transaction counts),
** TMA tensor copies and bulk copies (with the emulator's tensor maps), wgmma from registers and
** matrix descriptors, clusters (barrier.cluster, mapa, distributed shared memory, multicast),
** elect.sync, setmaxnreg budgets, and the async-proxy checks (fence.proxy.async, the swizzle a tile
** was written with, writes into a wgmma's operands before its wait_group).
**
** Copies into shared memory (TMA loads, bulk copies) are read from their source when issued and land
** when every warp of the cluster waits (emu.c's scheduler calls plX__hop_flush): the latest moment
** the hardware could deliver them, so code that reads a destination before its mbarrier says so
** sees stale bytes (and the uninit_shared check names the copy). Copies out of shared memory (TMA
** stores and reductions, bulk stores) happen when issued; their bulk-group waits are no-ops.
** try_wait and test_wait suspend the thread until the phase completes. */
#include "emu_impl.h"
#include "smem.h"
#include "runtime.h"
#include <stdio.h>
#include <stdlib.h>
#include <stdarg.h>
#include <math.h>

#define DSM_MASK ((1u << X_DSM_SHIFT) - 1)

static int regs_wake(plX_emu *e);

static uint32_t line_of(plX_emu *e, uint32_t pc) {
  const plI_stmt *s = plX__stmt(e, e->xf.code[pc].stmt);
  return s ? s->line : 0;
}

static void whot(plX_emu *e, plU_buf *b, const xcta *c, uint32_t tid) {
  uint32_t x = tid % e->block[0], y = tid / e->block[0] % e->block[1], z = tid / (e->block[0] * e->block[1]);
  plU_buf_printf(b, "thread (%u,%u,%u) of CTA (%u,%u,%u)", x, y, z, c->ctaid[0], c->ctaid[1], c->ctaid[2]);
}

static int lane_fail(plX_emu *e, const xins *in, xwarp *w, int l, const char *fmt, ...) {
  char m[512];
  va_list ap;
  va_start(ap, fmt);
  vsnprintf(m, sizeof m, fmt, ap);
  va_end(ap);
  return plX__fail_lane(e, in, w, l, m);
}

/* ---- shared::cluster addresses ----------------------------------------------------------------- */
int plX__hop_smem(plX_emu *e, uint64_t a, xcta **c, uint32_t *off) {
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
static int smem_at(plX_emu *e, const xins *in, xwarp *w, int l, uint64_t a, int space, int cluster, uint32_t n,
                   uint32_t al, xcta **c, uint32_t *off, const char *what) {
  if (space == XS_GENERIC) {
    if (a - X_SH_BASE >= X_WIN) return lane_fail(e, in, w, l, "%s: generic address 0x%llx is not in the shared window", what, (unsigned long long)a), 0;
    a -= X_SH_BASE;
    cluster = 1;
  }
  if (!plX__hop_smem(e, a, c, off))
    return lane_fail(e, in, w, l, "%s: shared address 0x%llx names no CTA of the cluster (%u CTAs)", what, (unsigned long long)a, e->H.ncl), 0;
  if (*c != e->C && !cluster)
    return lane_fail(e, in, w, l, "%s: shared address 0x%llx is in another CTA (a shared::cluster address) but the instruction is .shared::cta", what, (unsigned long long)a), 0;
  if ((uint64_t)*off + n > e->smem_size)
    return lane_fail(e, in, w, l, "%s: shared address 0x%x (%u bytes) outside the %u bytes of shared memory", what, *off, n, e->smem_size), 0;
  if (al > 1 && *off % al) return lane_fail(e, in, w, l, "%s: shared address 0x%x is not a multiple of %u", what, *off, al), 0;
  return 1;
}

/* the second address operand of TMA loads and bulk copies: the mbarrier (slot e, bits rnd, offset target) */
static uint64_t mbar_addr(const xins *in, const xwarp *w, int l) {
  uint64_t v = w->R[(size_t)in->e * 32 + (size_t)l];
  if (in->rnd == 32) v = (uint32_t)v;
  return v + in->target;
}
static uint64_t src_addr(const xins *in, const xwarp *w, int l) {
  uint64_t v = w->R[(size_t)in->a * 32 + (size_t)l];
  if (in->t3 == 32) v = (uint32_t)v;
  return v + (uint64_t)in->off2;
}

/* ---- mbarrier objects ---------------------------------------------------------------------------- */
static void wg_release(plX_emu *e, xwarp *w, xins *in, xcta *c, xmbar *m);
static void wg_acquire(xwarp *w, xcta *c, xmbar *m);
static xmbar *mb_find(xcta *c, uint32_t off) {
  for (uint32_t i = 0; i < c->h.mb.n; i++) if (c->h.mb.p[i].off == off) return &c->h.mb.p[i];
  return NULL;
}

static void mb_wake(plX_emu *e, xcta *c, uint32_t off) {
  for (uint32_t w = 0; w < e->nwarps; w++) {
    xwarp *W = &c->warps[w];
    uint32_t m = W->waiting;
    while (m) {
      int l = __builtin_ctz(m);
      m &= m - 1;
      if (W->bid[l] == XB_MBAR && W->wmb[l] == off) W->waiting &= ~(1u << l);
    }
  }
}

static void mb_progress(plX_emu *e, xcta *c, xmbar *m) {
  if (m->pending || m->tx) return;
  m->phase++;
  m->pending = m->expected;
  m->tx = 0;
  memcpy(m->ldn, m->dn, sizeof m->dn);
  memset(m->dn, 0, sizeof m->dn);
  mb_wake(e, c, m->off);
}

static xmbar *mb_get(plX_emu *e, const xins *in, xwarp *w, int l, xcta *c, uint32_t off) {
  xmbar *m = mb_find(c, off);
  if (!m || !m->valid) {
    lane_fail(e, in, w, l, "the mbarrier at shared 0x%x of CTA (%u,%u,%u) is not initialized (no mbarrier.init%s)", off,
              c->ctaid[0], c->ctaid[1], c->ctaid[2], m ? " since its mbarrier.inval" : "");
    return NULL;
  }
  return m;
}

/* count arrivals (drop: also for the phases after this one); the state before them */
static int mb_arrive(plX_emu *e, const xins *in, xwarp *w, int l, xcta *c, xmbar *m, uint32_t count, int drop, int nocomplete,
                     uint64_t *state) {
  if (count == 0 || count > 0xfffff) return lane_fail(e, in, w, l, "arrival count %u outside 1..2^20-1", count);
  if (count > m->pending)
    return lane_fail(e, in, w, l, "%u arrival%s at the mbarrier at shared 0x%x (initialized at line %u for %u per phase), where only %u %s pending in phase %u",
                     count, count == 1 ? "" : "s", m->off, line_of(e, m->pc), m->expected, m->pending, m->pending == 1 ? "is" : "are", m->phase);
  if (drop) {
    if (count > m->expected) return lane_fail(e, in, w, l, "arrive_drop of %u below zero expected arrivals", count);
    m->expected -= count;
  }
  if (state) *state = (uint64_t)m->phase << 32 | m->pending;
  m->pending -= count;
  if (nocomplete && m->pending == 0 && m->tx == 0)
    return lane_fail(e, in, w, l, "a .noComplete arrival completes the phase of the mbarrier at shared 0x%x", m->off);
  mb_progress(e, c, m);
  return 0;
}

static int mb_tx(plX_emu *e, uint32_t stmt, xcta *c, xmbar *m, int64_t delta, const char *who) {
  int64_t t = (int64_t)m->tx + delta;
  if (t < 0)
    return plX__fail(e, stmt, "%s completes %lld bytes on the mbarrier at shared 0x%x of CTA (%u,%u,%u), which expects only %d more in phase %u (its transaction count would go negative)",
                     who, (long long)-delta, m->off, c->ctaid[0], c->ctaid[1], c->ctaid[2], m->tx, m->phase);
  if (t > 0xfffff) return plX__fail(e, stmt, "%s: the transaction count of the mbarrier at shared 0x%x exceeds 2^20-1", who, m->off);
  m->tx = (int32_t)t;
  mb_progress(e, c, m);
  return 0;
}

static int exec_mbar(plX_emu *e, xwarp *w, xins *in, uint32_t em) {
  uint64_t *D = S(in->d), *B = S(in->b);
  int cl = (in->fl & XF_CLUSTER) != 0;
  LANES(em, {
    xcta *c; uint32_t off;
    if (!smem_at(e, in, w, l, addr_of(in, w, l), in->space, cl, 8, 8, &c, &off, "mbarrier")) return e->status;
    uint32_t v = (uint32_t)B[l];
    if (in->sub == 0) {                                            /* init */
      xmbar *m = mb_find(c, off);
      if (m && m->valid)
        return lane_fail(e, in, w, l, "the mbarrier at shared 0x%x is initialized twice (first at line %u) without mbarrier.inval between",
                         off, line_of(e, m->pc));
      if (v == 0 || v > 0xfffff) return lane_fail(e, in, w, l, "mbarrier.init count %u outside 1..2^20-1", v);
      if (!m) {
        xmbar z; memset(&z, 0, sizeof z);
        if (!plU_vec_push(c->h.mb, z)) return plX__fail(e, in->stmt, "out of memory");
        m = &c->h.mb.p[c->h.mb.n - 1];
      }
      m->off = off; m->expected = m->pending = v; m->tx = 0; m->phase = 0; m->valid = 1;
      memset(m->dn, 0, sizeof m->dn); memset(m->ldn, 0, sizeof m->ldn);
      m->pc = (uint32_t)(in - e->xf.code);
      memset(c->smem + off, 0, 8);
      if (c->smem_def) memset(c->smem_def + off, 1, 8);
      continue;
    }
    xmbar *m = mb_get(e, in, w, l, c, off);
    if (!m) return e->status;
    switch (in->sub) {
    case 1: m->valid = 0; break;                                   /* inval */
    case 2: case 3: {                                              /* arrive, arrive_drop */
      uint32_t count = v;
      if (in->sub2 & 1) {                                          /* .expect_tx: tx bytes, one arrival */
        if (mb_tx(e, in->stmt, c, m, (int64_t)v, "mbarrier.expect_tx")) return e->status;
        count = 1;
      }
      uint64_t st;
      if (c == e->C) wg_release(e, w, in, c, m);
      if (mb_arrive(e, in, w, l, c, m, count, in->sub == 3, (in->sub2 & 2) != 0, &st)) return e->status;
      D[l] = st;
      break;
    }
    case 4: if (mb_tx(e, in->stmt, c, m, (int64_t)v, "mbarrier.expect_tx")) return e->status; break;
    default: if (mb_tx(e, in->stmt, c, m, -(int64_t)v, "mbarrier.complete_tx")) return e->status; break;
    }
  });
  return 0;
}

/* test_wait / try_wait: lanes whose phase completed get true; the others are returned (they wait) */
static int exec_mbwait(plX_emu *e, xwarp *w, xins *in, uint32_t pc, uint32_t em, uint32_t *blocked) {
  uint64_t *B = S(in->b);
  uint32_t ok = 0, wait = 0;
  LANES(em, {
    xcta *c; uint32_t off;
    if (!smem_at(e, in, w, l, addr_of(in, w, l), in->space, 0, 8, 8, &c, &off, "mbarrier")) return e->status;
    xmbar *m = mb_get(e, in, w, l, c, off);
    if (!m) return e->status;
    int done;
    if (in->sub2) done = (m->phase & 1) != (B[l] & 1);             /* the phase of that parity completed */
    else done = (uint32_t)(B[l] >> 32) != m->phase;                /* the state's phase is no longer current */
    if (done) { ok |= 1u << l; if (c == e->C && c->h.rd.n) wg_acquire(w, c, m); }
    else { wait |= 1u << l; w->wmb[l] = off; w->bid[l] = XB_MBAR; w->bpc[l] = pc; }
  });
  w->P[in->d] = pmerge(w->P[in->d], ~0u, ok);
  w->waiting |= wait;
  *blocked = wait;
  return 0;
}

/* ---- the tensor map --------------------------------------------------------------------------------
** 128 bytes, little-endian: 0 magic "PLXTMAP1"; 8 global address (u64); 16 rank, 17 dtype (PLR_TM_*),
** 18 swizzle (PLSM_SW_*), 19 element bytes (u8); 20 checksum (u32, FNV-1a of bytes 24..127);
** 24 dims (u32 x 5); 48 strides in bytes of dims 1..4 (u64 x 4); 80 box (u16 x 5); 90 element
** strides (u8 x 5); the rest zero. */
static const uint8_t TM_MAGIC[8] = {'P', 'L', 'X', 'T', 'M', 'A', 'P', '1'};

typedef struct xtmap {
  uint64_t addr; int rank, dtype, sw, esize;
  uint64_t dims[5], strides[5];      /* strides[0] = esize */
  uint32_t box[5], es[5];
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

int plX_tensormap(plX_mem *m, uint8_t out[128], int dtype, int rank, uint64_t addr, const uint64_t *dims,
                  const uint64_t *strides, const uint32_t *box, const uint32_t *estr, int sw, char *err, size_t n) {
  int es = tm_esize(dtype);
  if (!es) { ERR("tensor map: unknown element type %d", dtype); return -1; }
  if (rank < 1 || rank > 5) { ERR("tensor map: rank %d outside 1..5", rank); return -1; }
  if (sw < 0 || sw > 3) { ERR("tensor map: bad swizzle mode %d", sw); return -1; }
  if (addr % 16) { ERR("tensor map: the global address 0x%llx is not a multiple of 16 bytes", (unsigned long long)addr); return -1; }
  uint64_t st[5];
  st[0] = (uint64_t)es;
  for (int i = 0; i < rank; i++) {
    if (dims[i] == 0 || dims[i] > ((uint64_t)1 << 32)) { ERR("tensor map: dims[%d] = %llu outside 1..2^32", i + 1, (unsigned long long)dims[i]); return -1; }
    if (box[i] == 0 || box[i] > 256) { ERR("tensor map: box[%d] = %u outside 1..256", i + 1, box[i]); return -1; }
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
  if (((uint64_t)box[0] * (uint64_t)es) % 16) { ERR("tensor map: the inner box (%u elements of %d bytes) must be a multiple of 16 bytes", box[0], es); return -1; }
  if (sw && (uint64_t)box[0] * (uint64_t)es > (uint64_t)plSm_swizzle_bytes(sw)) {
    ERR("tensor map: the inner box (%u bytes) exceeds the %d-byte span of swizzle %s", box[0] * (uint32_t)es, plSm_swizzle_bytes(sw), plSm_swizzle_name(sw));
    return -1;
  }
  uint64_t extent = (uint64_t)es;
  for (int i = 0; i < rank; i++) extent += (dims[i] - 1) * st[i];
  int32_t cache = -1;
  xbuf *b = m ? plX__find(m, addr, &cache) : NULL;
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
    uint16_t b16 = (uint16_t)box[i];
    memcpy(out + 80 + 2 * i, &b16, 2);
    out[90 + i] = (uint8_t)(estr ? estr[i] : 1);
  }
  uint32_t h = fnv(out + 24, 104);
  memcpy(out + 20, &h, 4);
  return 0;
}
#undef ERR

/* the tensor map at generic address a (a kernel parameter, or global memory) for lane l */
static int tm_read(plX_emu *e, xins *in, xwarp *w, int l, uint64_t a, xtmap *t) {
  uint8_t raw[128];
  uint32_t tid = (uint32_t)w->idx * 32 + (uint32_t)l;
  if (a % 64) return lane_fail(e, in, w, l, "the tensor map address 0x%llx is not 64-byte aligned", (unsigned long long)a);
  xins tmp = *in; tmp.space = XS_GENERIC; tmp.cache = -1;
  for (int h = 0; h < 2; h++) {
    uint8_t *p = plX__mem(e, &tmp, XS_GENERIC, a + 64 * (uint64_t)h, 64, tid, 0);
    if (!p) return e->status;
    memcpy(raw + 64 * h, p, 64);
  }
  uint32_t h;
  memcpy(&h, raw + 20, 4);
  if (memcmp(raw, TM_MAGIC, 8) || h != fnv(raw + 24, 104))
    return lane_fail(e, in, w, l, "the 128 bytes at 0x%llx are not a tensor map of this emulator (make it with dev:tensormap(array, {...}))",
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
  return 0;
}

/* ---- the async proxy's view of shared memory ------------------------------------------------------ */
void plX__hop_generic_write(plX_emu *e, uint32_t off, uint32_t n, uint32_t tid) {
  xcta_hop *h = &e->C->h;
  uint32_t f = h->fences[tid];
  for (uint32_t i = off; i < off + n; i++) { h->pw[i] = tid + 1; h->ps[i] = f; h->psw[i] = 0; }
}

/* ---- wgmma operands in flight ------------------------------------------------------------------------
** A wgmma reads its shared operands at some point before the wait_group that covers its group: a
** write to those bytes in between (a TMA load landing in a stage released too early, an st.shared)
** races with the tensor cores. The emulator reads at issue, so it records what each wgmma read and
** reports such writes instead of silently computing with the old bytes. */
static int wg_pending(const xcta *c, const xwgrd *r) {
  return r->group - 1 >= c->warps[r->warp].wg_done;
}

/* a retired read still matters while a warp ordered after its early release may write there, or one
** may still complete a wait on the phase it was released into */
static int wg_keep(xcta *c, const xwgrd *r) {
  if (wg_pending(c, r) || r->acq) return 1;
  if (!r->rel) return 0;
  xmbar *m = mb_find(c, r->rel_mb);
  return m && m->valid && m->phase <= r->rel_phase + 1;
}

/* drop the records nothing can race with any more */
static void wg_retire(xcta *c) {
  uint32_t k = 0;
  for (uint32_t i = 0; i < c->h.rd.n; i++)
    if (wg_keep(c, &c->h.rd.p[i])) c->h.rd.p[k++] = c->h.rd.p[i];
  c->h.rd.n = k;
}

/* warp w arrives on m while wgmma reads of its own are pending: a waiter on that phase is ordered
** after the arrive, not after the wait_group that retires the reads (the PTX memory model only
** guarantees a wgmma's shared reads complete at that wait_group). Also note what w has retired. */
static void wg_release(plX_emu *e, xwarp *w, xins *in, xcta *c, xmbar *m) {
  uint32_t wi = (uint32_t)w->idx;
  if (wi < 32 && m->dn[wi] < w->wg_done + 1) m->dn[wi] = w->wg_done + 1;
  for (uint32_t i = 0; i < c->h.rd.n; i++) {
    xwgrd *r = &c->h.rd.p[i];
    if (r->warp != wi || r->rel || !wg_pending(c, r)) continue;
    r->rel = (uint32_t)(in - e->xf.code) + 1; r->rel_mb = m->off; r->rel_phase = m->phase;
  }
}

/* warp w completed a wait on m: it is ordered after the early releases into m's completed phases,
** and after the wait_groups of the warps that arrived on m's last completed phase */
static void wg_acquire(xwarp *w, xcta *c, xmbar *m) {
  uint32_t wi = (uint32_t)w->idx;
  if (wi >= 32) return;
  for (uint32_t i = 0; i < c->h.rd.n; i++) {
    xwgrd *r = &c->h.rd.p[i];
    if (r->rel && r->rel_mb == m->off && r->rel_phase < m->phase && r->warp != wi) r->acq |= 1u << wi;
    if ((r->acq >> wi & 1) && r->warp < 32 && m->ldn[r->warp] > r->group) r->acq &= ~(1u << wi);
  }
}

void plX__hop_bar_sync(xcta *c) {
  for (uint32_t i = 0; i < c->h.rd.n; i++)
    if (!wg_pending(c, &c->h.rd.p[i])) c->h.rd.p[i].acq = 0;
}

/* a write by warp `warp` of c (-1: unknown) to shared bytes [off, off + n) of c; only_acq: report
** only the writes ordered after an early release (a copy being issued: it lands later) */
static int wg_check(plX_emu *e, uint32_t stmt, xcta *c, uint32_t off, uint32_t n, int warp, int only_acq, const char *who) {
  for (uint32_t i = 0; i < c->h.rd.n; i++) {
    const xwgrd *r = &c->h.rd.p[i];
    if (off >= r->hi || off + n <= r->lo) continue;
    int acq = warp >= 0 && warp < 32 && (r->acq >> warp & 1);
    if (!acq && (only_acq || !wg_pending(c, r))) continue;
    uint32_t at = off > r->lo ? off : r->lo;
    if (acq)
      plX__fail(e, stmt, "%s writes shared byte 0x%x of CTA (%u,%u,%u), which the wgmma.mma_async of line %u (warp %u) reads: "
                "stage released at line %u before wgmma.wait_group covers the wgmma at line %u (this write is ordered after that "
                "mbarrier arrive, not after the wait_group; arrive only after the wait_group that retires the stage's readers)",
                who, at, c->ctaid[0], c->ctaid[1], c->ctaid[2], line_of(e, r->pc), r->warp, line_of(e, r->rel - 1), line_of(e, r->pc));
    else
      plX__fail(e, stmt, "%s writes shared byte 0x%x of CTA (%u,%u,%u), which the wgmma.mma_async of line %u (warp %u) reads: no "
                "wgmma.wait_group has covered that wgmma yet (release a buffer only after the wait_group that retires its readers)",
                who, at, c->ctaid[0], c->ctaid[1], c->ctaid[2], line_of(e, r->pc), r->warp);
    return 1;
  }
  return 0;
}

int plX__hop_wg_clobber(plX_emu *e, uint32_t stmt, xcta *c, uint32_t off, uint32_t n, int warp, const char *who) {
  return wg_check(e, stmt, c, off, n, warp, 0, who);
}

/* an async-proxy read of shared bytes [off, off + n) of CTA c: written by a generic store without a
** fence.proxy.async by its writer since is an error; want_sw >= 0 also checks the TMA swizzle */
static int proxy_read(plX_emu *e, const xins *in, xwarp *w, int l, xcta *c, uint32_t off, uint32_t n, int want_sw, const char *what) {
  xcta_hop *h = &c->h;
  if (!h->pw) return 0;
  for (uint32_t i = off; i < off + n; i++) {
    uint32_t wr = h->pw[i];
    if (wr && h->fences[wr - 1] == h->ps[i]) {
      plU_buf b; plU_buf_init(&b);
      plU_buf_printf(&b, "%s reads shared byte 0x%x, written by ", what, i);
      whot(e, &b, c, wr - 1);
      plU_buf_puts(&b, " with an ordinary store and no fence.proxy.async by that thread since: the async proxy may not see it");
      plX__fail_lane(e, in, w, l, plU_buf_cstr(&b));
      plU_buf_free(&b);
      return e->status;
    }
    if (want_sw >= 0 && h->psw[i] && h->psw[i] - 1 != want_sw)
      return lane_fail(e, in, w, l, "%s reads shared byte 0x%x through a descriptor declaring swizzle %s, but a TMA load wrote it with swizzle %s",
                       what, i, plSm_swizzle_name(want_sw), plSm_swizzle_name(h->psw[i] - 1));
  }
  return 0;
}

/* ---- copies in flight ------------------------------------------------------------------------------ */
static int queue(plX_emu *e, const xins *in, uint32_t tid, uint32_t mask, uint32_t lo, uint32_t n, uint32_t mbar, uint32_t tx,
                 uint8_t *data, uint8_t *valid, int sw) {
  if ((mask >> e->C->rank & 1) && e->C->h.rd.n && wg_check(e, in->stmt, e->C, lo, n, (int)(tid / 32), 1, plX__opname(e, in->stmt))) {
    free(data); free(valid);
    return e->status;
  }
  xasync a;
  a.pc = (uint32_t)(in - e->xf.code); a.tid = tid; a.rank = e->C->rank; a.mask = mask; a.lo = lo; a.n = n;
  a.mbar = mbar; a.tx = tx; a.data = data; a.valid = valid; a.sw = sw;
  if (!plU_vec_push(e->H.q, a)) { free(data); free(valid); return plX__fail(e, in->stmt, "out of memory"); }
  return 0;
}

int plX__hop_flush(plX_emu *e) {
  xhop *H = &e->H;
  if (!H->q.n) return 0;
  xcta *keep = e->C;
  int err = 0;
  for (uint32_t i = 0; i < H->q.n && !err; i++) {
    xasync *a = &H->q.p[i];
    e->C = &e->ctas[a->rank];
    for (uint32_t r = 0; r < H->ncl && !err; r++) {
      if (!(a->mask >> r & 1)) continue;
      xcta *c = &e->ctas[r];
      if (c->h.rd.n && plX__hop_wg_clobber(e, e->xf.code[a->pc].stmt, c, a->lo, a->n, r == a->rank ? (int)(a->tid / 32) : -1, plX__opname(e, e->xf.code[a->pc].stmt))) {
        err = 1;
        break;
      }
      for (uint32_t j = 0; j < a->n; j++) {
        if (a->valid && !a->valid[j]) continue;
        uint32_t o = a->lo + j;
        c->smem[o] = a->data[j];
        if (c->smem_def) c->smem_def[o] = 1;
        if (c->h.pw) { c->h.pw[o] = 0; c->h.psw[o] = (uint8_t)(a->sw >= 0 ? a->sw + 1 : 0); }
      }
      if (a->mbar == X_NOSLOT) continue;
      xmbar *m = mb_find(c, a->mbar);
      uint32_t stmt = e->xf.code[a->pc].stmt;
      if (!m || !m->valid) {
        plX__fail(e, stmt, "%s: the mbarrier at shared 0x%x of CTA (%u,%u,%u) that it completes on is not initialized", plX__opname(e, stmt),
                  a->mbar, c->ctaid[0], c->ctaid[1], c->ctaid[2]);
        err = 1;
        break;
      }
      if (mb_tx(e, stmt, c, m, -(int64_t)a->tx, plX__opname(e, stmt))) err = 1;
    }
  }
  for (uint32_t i = 0; i < H->q.n; i++) { free(H->q.p[i].data); free(H->q.p[i].valid); }
  H->q.n = 0;
  e->C = keep;
  return err ? -1 : 1;
}

/* the copy in flight that writes shared byte off of the current CTA, for uninit_shared messages */
static const xasync *inflight(plX_emu *e, uint32_t off) {
  for (uint32_t i = 0; i < e->H.q.n; i++) {
    const xasync *a = &e->H.q.p[i];
    if ((a->mask >> e->C->rank & 1) && off >= a->lo && off - a->lo < a->n && (!a->valid || a->valid[off - a->lo])) return a;
  }
  return NULL;
}

/* ---- TMA ------------------------------------------------------------------------------------------- */
static uint64_t red_apply(int op, int dt, uint64_t old, uint64_t v) {
  int fmt = dt == PLR_TM_F16 ? XFMT_F16 : dt == PLR_TM_BF16 ? XFMT_BF16 : (dt == PLR_TM_F32 || dt == PLR_TM_F32_FTZ) ? XFMT_F32 :
            dt == PLR_TM_F64 ? XFMT_F64 : -1;
  int sgn = dt == PLR_TM_S32 || dt == PLR_TM_S64;
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
  int fl = dt == PLR_TM_F16 || dt == PLR_TM_BF16 || dt == PLR_TM_F32 || dt == PLR_TM_F32_FTZ || dt == PLR_TM_F64;
  if (dt == PLR_TM_TF32 || dt == PLR_TM_TF32_FTZ) return 0;
  if (fl) return op == XA_ADD || op == XA_MIN || op == XA_MAX;
  return 1;
}

static int exec_tma(plX_emu *e, xwarp *w, xins *in, uint32_t em) {
  const uint32_t *vs = e->xf.vslots + in->vs;
  int dims = in->vec;
  LANES(em, {
    uint32_t tid = (uint32_t)w->idx * 32 + (uint32_t)l;
    xtmap t;
    if (tm_read(e, in, w, l, S(vs[0])[l], &t)) return e->status;
    if (t.rank != dims) return lane_fail(e, in, w, l, "a %dd copy through a tensor map of rank %d", dims, t.rank);
    int64_t c0[5];
    for (int i = 0; i < dims; i++) c0[i] = (int32_t)S(vs[1 + i])[l];
    if (in->sub == 3) continue;                                    /* prefetch: checked, no effect */
    if (in->sub == 2 && !red_ok(in->sub2, t.dtype)) return lane_fail(e, in, w, l, "this reduction is not defined for the tensor map's element type");
    uint32_t cnt[5] = {1, 1, 1, 1, 1}, total = 1;
    for (int i = 0; i < dims; i++) { cnt[i] = (t.box[i] + t.es[i] - 1) / t.es[i]; total *= cnt[i]; }
    uint32_t bytes = total * (uint32_t)t.esize;
    uint32_t span = t.sw ? (bytes + 127) / 128 * 128 : bytes;
    xcta *c; uint32_t off;
    int ld = in->sub == 0;
    if (!smem_at(e, in, w, l, addr_of(in, w, l), XS_SHARED, ld, span, 128, &c, &off, ld ? "the destination" : "the source")) return e->status;
    uint8_t *data = NULL, *valid = NULL;
    if (ld) {
      data = calloc(span, 1); valid = calloc(span, 1);
      if (!data || !valid) { free(data); free(valid); return plX__fail(e, in->stmt, "out of memory"); }
    } else if (proxy_read(e, in, w, l, c, off, span, -1, plX__opname(e, in->stmt))) return e->status;
    int32_t cache = -1;
    for (uint32_t k = 0; k < total; k++) {
      uint32_t rem = k, lin = k * (uint32_t)t.esize;
      int inb = 1;
      uint64_t ga = t.addr;
      for (int i = 0; i < dims; i++) {
        uint32_t ki = rem % cnt[i]; rem /= cnt[i];
        int64_t g = c0[i] + (int64_t)ki * t.es[i];
        if (g < 0 || (uint64_t)g >= t.dims[i]) inb = 0;
        else ga += (uint64_t)g * t.strides[i];
      }
      uint32_t so = plSm_swizzle(t.sw, off + lin) - off;        /* the swizzle of the absolute address */
      if (ld) { for (int b = 0; b < t.esize; b++) valid[so + (uint32_t)b] = 1; }
      if (!inb) continue;                                          /* zeros on a load, skipped on a store */
      xbuf *gb = plX__find(e->mem, ga, &cache);
      if (!gb || ga - gb->addr + (uint64_t)t.esize > gb->size) {
        if (data) { free(data); free(valid); }
        plU_buf b; plU_buf_init(&b);
        plU_buf_printf(&b, "the tensor map's element at ");
        plX__describe_addr(e, &b, ga, (uint64_t)t.esize);
        plU_buf_puts(&b, " (was its array freed?)");
        plX__fail_lane(e, in, w, l, plU_buf_cstr(&b));
        plU_buf_free(&b);
        return e->status;
      }
      uint8_t *gp = gb->p + (ga - gb->addr);
      if (ld) memcpy(data + so, gp, (size_t)t.esize);
      else if (gb->ro) return lane_fail(e, in, w, l, "a TMA store into constant memory");
      else if (in->sub == 1) memcpy(gp, c->smem + off + so, (size_t)t.esize);
      else {
        uint64_t old = 0, v = 0;
        memcpy(&old, gp, (size_t)t.esize); memcpy(&v, c->smem + off + so, (size_t)t.esize);
        uint64_t r = red_apply(in->sub2, t.dtype, old, v);
        memcpy(gp, &r, (size_t)t.esize);
      }
    }
    if (!ld) continue;
    uint32_t mask = 1u << c->rank;
    if (in->fl & XF_CLUSTER) {
      mask = (uint32_t)S(in->c)[l] & 0xffffu;
      if (!mask || (mask >> e->H.ncl)) { free(data); free(valid); return lane_fail(e, in, w, l, "ctaMask 0x%x names CTAs outside the cluster of %u", mask, e->H.ncl); }
    }
    xcta *mc; uint32_t moff;
    if (!smem_at(e, in, w, l, mbar_addr(in, w, l), XS_SHARED, 1, 8, 8, &mc, &moff, "the mbarrier")) { free(data); free(valid); return e->status; }
    if (mc != c) { free(data); free(valid); return lane_fail(e, in, w, l, "the mbarrier is in another CTA than the destination"); }
    if (queue(e, in, tid, mask, off, span, moff, bytes, data, valid, t.sw)) return e->status;
  });
  return 0;
}

/* ---- bulk copies ------------------------------------------------------------------------------------ */
static int exec_bulk(plX_emu *e, xwarp *w, xins *in, uint32_t em) {
  uint64_t *SZ = S(in->b);
  LANES(em, {
    uint32_t tid = (uint32_t)w->idx * 32 + (uint32_t)l;
    uint32_t n = (uint32_t)SZ[l];
    if (n == 0 || n % 16) return lane_fail(e, in, w, l, "the size %u is not a positive multiple of 16", n);
    uint64_t src = src_addr(in, w, l);
    xins tmp = *in; tmp.space = XS_GLOBAL; tmp.cache = -1;
    if (in->sub == 4) {                                            /* prefetch: bounds only */
      if (src % 16) return lane_fail(e, in, w, l, "the global address 0x%llx is not a multiple of 16", (unsigned long long)src);
      if (!plX__mem(e, &tmp, XS_GLOBAL, src, 1, tid, 0) || !plX__mem(e, &tmp, XS_GLOBAL, src + n - 1, 1, tid, 0)) return e->status;
      continue;
    }
    if (in->sub >= 2) {                                            /* shared::cta -> global */
      xcta *c; uint32_t off;
      if (!smem_at(e, in, w, l, src, XS_SHARED, 0, n, 16, &c, &off, "the source")) return e->status;
      if (proxy_read(e, in, w, l, c, off, n, -1, plX__opname(e, in->stmt))) return e->status;
      uint64_t dst = addr_of(in, w, l);
      if (dst % 16) return lane_fail(e, in, w, l, "the global address 0x%llx is not a multiple of 16", (unsigned long long)dst);
      uint8_t *gp = plX__mem(e, &tmp, XS_GLOBAL, dst, 1, tid, 1);
      if (!gp || !plX__mem(e, &tmp, XS_GLOBAL, dst + n - 1, 1, tid, 1)) return e->status;
      if (in->sub == 2) { memmove(gp, c->smem + off, n); continue; }
      int es = tb(in->t) / 8;
      if (es < 1 || n % (uint32_t)es) return lane_fail(e, in, w, l, "the size is not a whole number of elements");
      int dt = in->t == PLT_F32 ? PLR_TM_F32 : in->t == PLT_F16 ? PLR_TM_F16 : in->t == PLT_BF16 ? PLR_TM_BF16 : in->t == PLT_F64 ? PLR_TM_F64
             : in->t == PLT_S32 ? PLR_TM_S32 : in->t == PLT_S64 ? PLR_TM_S64 : es == 8 ? PLR_TM_U64 : PLR_TM_U32;
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
      if (src % 16) { free(data); return lane_fail(e, in, w, l, "the global address 0x%llx is not a multiple of 16", (unsigned long long)src); }
      uint8_t *gp = plX__mem(e, &tmp, XS_GLOBAL, src, 1, tid, 0);
      if (!gp || !plX__mem(e, &tmp, XS_GLOBAL, src + n - 1, 1, tid, 0)) { free(data); return e->status; }
      memcpy(data, gp, n);
    } else {                                                       /* shared::cta -> shared::cluster */
      xcta *c; uint32_t off;
      if (!smem_at(e, in, w, l, src, XS_SHARED, 0, n, 16, &c, &off, "the source")) { free(data); return e->status; }
      if (proxy_read(e, in, w, l, c, off, n, -1, plX__opname(e, in->stmt))) { free(data); return e->status; }
      memcpy(data, c->smem + off, n);
    }
    xcta *dc; uint32_t doff;
    if (!smem_at(e, in, w, l, addr_of(in, w, l), XS_SHARED, 1, n, 16, &dc, &doff, "the destination")) { free(data); return e->status; }
    xcta *mc; uint32_t moff;
    if (!smem_at(e, in, w, l, mbar_addr(in, w, l), XS_SHARED, 1, 8, 8, &mc, &moff, "the mbarrier")) { free(data); return e->status; }
    if (mc != dc) { free(data); return lane_fail(e, in, w, l, "the mbarrier is in another CTA than the destination"); }
    uint32_t mask = 1u << dc->rank;
    if (in->fl & XF_CLUSTER) {
      mask = (uint32_t)S(in->c)[l] & 0xffffu;
      if (!mask || (mask >> e->H.ncl)) { free(data); return lane_fail(e, in, w, l, "ctaMask 0x%x names CTAs outside the cluster of %u", mask, e->H.ncl); }
    }
    if (queue(e, in, tid, mask, doff, n, moff, n, data, NULL, -1)) return e->status;
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
** unless mn): the canonical layouts of docs/hopper.md, the swizzle applied to the absolute address */
static inline uint32_t desc_at(const plSm_desc *d, int elt, int mn, uint32_t i, uint32_t j) {
  uint32_t W = (uint32_t)plSm_swizzle_bytes(d->swizzle), per = 16 / (uint32_t)elt, lin;
  if (!mn) {
    uint32_t jb = j * (uint32_t)elt;
    if (W) lin = (i / 8) * d->sbo + (i % 8) * W + jb;
    else lin = (i / 8) * d->sbo + (j / per) * d->lbo + (i % 8) * 16 + (j % per) * (uint32_t)elt;
  } else {
    uint32_t ib = i * (uint32_t)elt;
    if (W) lin = (ib / W) * d->lbo + (j / 8) * d->sbo + (j % 8) * W + ib % W;
    else lin = (i / per) * d->sbo + (j / 8) * d->lbo + (j % 8) * 16 + (i % per) * (uint32_t)elt;
  }
  return plSm_swizzle(d->swizzle, d->start + lin);
}

/* rows [r0, r0 + rows) x K of a matrix in shared memory through a descriptor, into out[row][k] */
static int desc_load(plX_emu *e, xins *in, xwarp *w, uint64_t desc, int t, int mn, uint32_t r0, uint32_t rows, uint32_t K,
                     double *out, const char *which, xwgrd *span) {
  plSm_desc d;
  plSm_desc_decode(desc, &d);
  int elt = tb(t) / 8;
  if (mn && elt != 2) return plX__fail_warp(e, in, w, "a transposed (MN-major) operand needs 16-bit elements", 0xffffffffu);
  xcta *c = e->C;
  char what[96];
  snprintf(what, sizeof what, "%s (%s)", plX__opname(e, in->stmt), which);
  span->lo = UINT32_MAX; span->hi = 0;
  for (uint32_t r = 0; r < rows; r++)
    for (uint32_t k = 0; k < K; k++) {
      uint32_t a = desc_at(&d, elt, mn, r0 + r, k);
      if ((uint64_t)a + (uint32_t)elt > e->smem_size)
        return plX__fail_warp(e, in, w, "a matrix descriptor reads outside shared memory", 0xffffffffu);
      if (c->h.pw && proxy_read(e, in, w, 0, c, a, (uint32_t)elt, d.swizzle, what)) return e->status;
      if ((e->checks & PLX_CHECK_UNINIT_SHARED) && c->smem_def) {
        for (int b = 0; b < elt; b++)
          if (!c->smem_def[a + (uint32_t)b]) {
            const xasync *q = inflight(e, a + (uint32_t)b);
            if (q) return plX__fail_warp(e, in, w, "reads shared memory a copy still writes (no mbarrier wait has seen it land)", 0xffffffffu);
            char m[160]; snprintf(m, sizeof m, "%s reads shared byte 0x%x, which nothing has written", which, a + (uint32_t)b);
            return plX__fail_warp(e, in, w, m, 0xffffffffu);
          }
      }
      uint32_t bits = 0;
      memcpy(&bits, c->smem + a, (size_t)elt);
      out[(size_t)r * K + k] = elem(bits, t);
      if (a < span->lo) span->lo = a;
      if (a + (uint32_t)elt > span->hi) span->hi = a + (uint32_t)elt;
    }
  return 0;
}

static int exec_wgmma(plX_emu *e, xwarp *w, xins *in, uint32_t em) {
  if (plX__full_warp(e, in, w, em)) return e->status;
  const uint32_t *vs = e->xf.vslots;
  int N = in->vec * 8, dt = in->t, at = in->t2, bt = in->t3;
  int K = at == PLT_TF32 ? 8 : (at == PLT_F16 || at == PLT_BF16) ? 16 : 32;
  int integer = at == PLT_S8 || at == PLT_U8;
  uint32_t wi = (uint32_t)w->idx % 4;                              /* this warp's 16 rows of the 64 */
  double A[16 * 32], *B = malloc(sizeof(double) * (size_t)N * (size_t)K);
  xwgrd sa_span, sb_span;
  memset(&sa_span, 0, sizeof sa_span); memset(&sb_span, 0, sizeof sb_span);
  if (!B) return plX__fail(e, in->stmt, "out of memory");
  if (in->sub & 16) {                                              /* A in registers: the mma.sync A fragments */
    for (int l = 0; l < 32; l++) {
      int g = l / 4, tq = l % 4;
      for (int j = 0; j < 4; j++) {
        uint32_t v = (uint32_t)S(vs[in->a + (uint32_t)j])[l];
        int row = g + 8 * (j & 1);
        if (K == 16) { int col = 2 * tq + 8 * (j >> 1); A[row * K + col] = elem(v, at); A[row * K + col + 1] = elem(v >> 16, at); }
        else if (K == 8) A[row * K + tq + 4 * (j >> 1)] = elem(v, at);
        else for (int b = 0; b < 4; b++) A[row * K + 4 * tq + 16 * (j >> 1) + b] = elem(v >> (8 * b), at);
      }
    }
  } else if (desc_load(e, in, w, S(in->a)[0], at, (in->sub & 1) != 0, 16 * wi, 16, (uint32_t)K, A, "operand A", &sa_span)) { free(B); return e->status; }
  if (desc_load(e, in, w, S(in->b)[0], bt, (in->sub & 2) != 0, 0, (uint32_t)N, (uint32_t)K, B, "operand B", &sb_span)) { free(B); return e->status; }
  for (int l = 1; l < 32; l++)
    if (S(in->b)[l] != S(in->b)[0] || (!(in->sub & 16) && S(in->a)[l] != S(in->a)[0])) {
      free(B);
      return plX__fail_warp(e, in, w, "the matrix descriptors differ between the lanes of the warp", 0xffffffffu);
    }
  double sa = (in->sub & 4) ? -1 : 1, sb = (in->sub & 8) ? -1 : 1;
  uint32_t scd = (in->sub & 32) ? ((in->sub & 64) ? ~0u : 0) : w->P[in->c];
  int nd = dt == PLT_F16 ? N / 4 : N / 2;
  for (int l = 0; l < 32; l++) {
    int g = l / 4, tq = l % 4, keep = (scd >> l) & 1;
    for (int i = 0; i < nd; i++) {
      uint64_t *R = S(vs[in->vs + (uint32_t)i]);
      int halves = dt == PLT_F16 ? 2 : 1;
      uint64_t out = 0;
      for (int h = 0; h < halves; h++) {
        int row, col;
        if (dt == PLT_F16) { row = g + 8 * (i & 1); col = 8 * (i >> 1) + 2 * tq + h; }
        else { row = g + 8 * ((i >> 1) & 1); col = 8 * (i >> 2) + 2 * tq + (i & 1); }
        const double *ar = A + row * K;
        if (integer) {
          int64_t s = keep ? (int64_t)(int32_t)R[l] : 0;
          for (int k = 0; k < K; k++) s += (int64_t)ar[k] * (int64_t)B[(size_t)col * (size_t)K + (size_t)k];
          if (in->fl & XF_SATF) { if (s > INT32_MAX) s = INT32_MAX; if (s < INT32_MIN) s = INT32_MIN; }
          out = (uint32_t)s;
        } else {
          double s = 0;
          if (keep) s = dt == PLT_F16 ? plX__to_double((R[l] >> (16 * h)) & 0xffff, XFMT_F16) : f32(R[l]);
          for (int k = 0; k < K; k++) s += (sa * ar[k]) * (sb * B[(size_t)col * (size_t)K + (size_t)k]);
          if (dt == PLT_F16) out |= plX__round(s, 0, XFMT_F16, XR_RN, 0) << (16 * h);
          else out = c32((float)s);
        }
      }
      R[l] = out;
    }
  }
  free(B);
  /* the operands stay in use until a wait_group covers the open group */
  xcta *cc = e->C;
  if (cc->h.rd.n >= 4096) wg_retire(cc);
  for (int o = 0; o < 2; o++) {
    xwgrd r = o ? sb_span : sa_span;
    if (r.hi <= r.lo) continue;
    r.warp = (uint32_t)w->idx; r.group = w->wg_cur + 1; r.pc = (uint32_t)(in - e->xf.code);
    if (!plU_vec_push(cc->h.rd, r)) return plX__fail(e, in->stmt, "out of memory");
  }
  /* the accumulators belong to the open group until a wait_group covers it */
  if (e->C->h.wgg) {
    uint32_t *G = e->C->h.wgg + (size_t)w->idx * e->xf.nslots;
    for (int i = 0; i < nd; i++) G[vs[in->vs + (uint32_t)i]] = w->wg_cur + 1;
    if (w->wg_last != w->wg_cur + 1) { w->wg_gpc[w->wg_cur % 16] = (uint32_t)(in - e->xf.code); w->wg_last = w->wg_cur + 1; }
  }
  return 0;
}

int plX__hop_accum_check(plX_emu *e, xwarp *w, xins *in) {
  const uint32_t *G = e->C->h.wgg + (size_t)w->idx * e->xf.nslots;
  const uint32_t *c = e->xf.chk + in->chk;
  for (int i = 0; i < in->nrd + in->nwr; i++) {
    uint32_t r = c[i];
    if (r & X_PREDBIT) continue;
    uint32_t g = G[r];
    if (!g || g - 1 < w->wg_done) continue;
    plU_buf b; plU_buf_init(&b);
    plU_buf_printf(&b, "accumulator read before wgmma.wait_group: %s ", i < in->nrd ? "reads" : "writes");
    plI_regname(e->m, e->xf.slot_reg[r], &b);
    plU_buf_printf(&b, ", an accumulator of the wgmma.mma_async of line %u, which no wgmma.wait_group has waited for",
                   line_of(e, w->wg_gpc[(g - 1) % 16]));
    int lane = __builtin_ctz(w->exists & ~w->exited);
    plX__fail_lane(e, in, w, lane, plU_buf_cstr(&b));
    plU_buf_free(&b);
    return e->status;
  }
  return 0;
}

/* ---- clusters --------------------------------------------------------------------------------------- */
static void cl_complete(plX_emu *e) {
  xhop *H = &e->H;
  H->clphase++;
  H->clcount = 0;
  for (uint32_t r = 0; r < H->ncl; r++)
    for (uint32_t w = 0; w < e->nwarps; w++) {
      xwarp *W = &e->ctas[r].warps[w];
      uint32_t m = W->waiting;
      while (m) { int l = __builtin_ctz(m); m &= m - 1; if (W->bid[l] == XB_CLUSTER) W->waiting &= ~(1u << l); }
    }
}

/* has every non-exited thread of the cluster arrived in this phase? */
static int cl_all(plX_emu *e) {
  xhop *H = &e->H;
  for (uint32_t r = 0; r < H->ncl; r++) {
    xcta *c = &e->ctas[r];
    for (uint32_t w = 0; w < e->nwarps; w++) {
      xwarp *W = &c->warps[w];
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
    xcta *keep = e->C;
    for (uint32_t r = 0; r < e->H.ncl; r++) { e->C = &e->ctas[r]; any |= regs_wake(e); }
    e->C = keep;
    if (any) return 1;
  }
  if (!e->H.clcount || !e->ctas[0].h.clarr || !cl_all(e)) return 0;
  cl_complete(e);
  return 1;
}

static int exec_clbar(plX_emu *e, xwarp *w, xins *in, uint32_t pc, uint32_t em, uint32_t *blocked) {
  xhop *H = &e->H;
  uint32_t *A = e->C->h.clarr;
  if ((in->fl & XF_ALIGNED) && em != (w->exists & ~w->exited))
    return plX__fail_warp(e, in, w, "an aligned barrier executed by part of a warp", (w->exists & ~w->exited) & ~em);
  uint32_t wait = 0;
  LANES(em, {
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

static int exec_mapa(plX_emu *e, xwarp *w, xins *in, uint32_t em) {
  uint64_t *D = S(in->d), *A = S(in->a), *B = S(in->b);
  int gen = in->space == XS_GENERIC;
  LANES(em, {
    uint64_t a = A[l];
    if (in->t == PLT_U32 || in->abits == 32) a = (uint32_t)a;
    if (gen) {
      if (a - X_SH_BASE >= X_WIN) return lane_fail(e, in, w, l, "generic address 0x%llx is not in the shared window", (unsigned long long)a);
      a -= X_SH_BASE;
    }
    xcta *c; uint32_t off;
    if (!plX__hop_smem(e, a, &c, &off)) return lane_fail(e, in, w, l, "shared address 0x%llx names no CTA of the cluster", (unsigned long long)a);
    if (in->op == X_GETRANK) { D[l] = c->rank; continue; }
    uint32_t r = (uint32_t)B[l];
    if (r >= e->H.ncl) return lane_fail(e, in, w, l, "CTA rank %u is outside the cluster of %u", r, e->H.ncl);
    uint64_t v = (uint64_t)(r + 1) << X_DSM_SHIFT | off;
    D[l] = gen ? X_SH_BASE + v : v;
  });
  return 0;
}

/* ---- the rest ------------------------------------------------------------------------------------- */
static int exec_elect(plX_emu *e, xwarp *w, xins *in, uint32_t em) {
  if (!em) return 0;
  uint64_t *M = S(in->e), *D = S(in->d);
  uint32_t m0 = (uint32_t)M[__builtin_ctz(em)];
  LANES(em, if ((uint32_t)M[l] != m0) return plX__fail_warp(e, in, w, "membermask differs between lanes", em));
  if (em & ~m0) return plX__fail_warp(e, in, w, "executing lanes are missing from membermask", em & ~m0);
  uint32_t absent = m0 & ~em & w->exists & ~w->exited;
  if (absent) return plX__fail_warp(e, in, w, "lanes named in membermask did not execute this instruction with the others", absent);
  int leader = __builtin_ctz(em);
  LANES(em, D[l] = (uint64_t)leader);
  w->P[in->d2] = pmerge(w->P[in->d2], 1u << leader, em);
  return 0;
}

static uint64_t regs_used(plX_emu *e);
static uint64_t regs_pool(plX_emu *e);

/* wake the warps of the current CTA waiting in setmaxnreg.inc whose request fits now; 1 if any */
static int regs_wake(plX_emu *e) {
  int any = 0;
  for (uint32_t i = 0; i < e->nwarps; i++) {
    xwarp *W = &e->C->warps[i];
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
    xwarp *W = &e->C->warps[i];
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
static int exec_setmaxnreg(plX_emu *e, xwarp *w, xins *in, uint32_t pc, uint32_t em, uint32_t *blocked) {
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
      LANES(em, { w->bid[l] = XB_REGS; w->bpc[l] = pc; });
      w->waiting |= em;
      *blocked = em;
      return 0;
    }
  }
  R[w->idx] = n | 0x80000000u;
  if (!in->sub) regs_wake(e);                                    /* registers freed: incs may fit now */
  return 0;
}

int plX__hop_exec(plX_emu *e, xwarp *w, xins *in, uint32_t pc, uint32_t am, uint32_t em) {
  (void)pc; (void)am;
  switch (in->op) {
  case X_MBAR: return exec_mbar(e, w, in, em);
  case X_MBPENDING: {
    uint64_t *D = S(in->d), *A = S(in->a);
    LANES(em, D[l] = (uint32_t)A[l] & 0xfffffu);
    return 0;
  }
  case X_CPMBARRIVE:
    LANES(em, {
      uint32_t tid = (uint32_t)w->idx * 32 + (uint32_t)l;
      plX__cp_complete(e, tid, UINT32_MAX);
      if (e->status) return e->status;
      xcta *c; uint32_t off;
      if (!smem_at(e, in, w, l, addr_of(in, w, l), in->space, 0, 8, 8, &c, &off, "mbarrier")) return e->status;
      xmbar *m = mb_get(e, in, w, l, c, off);
      if (!m) return e->status;
      if (in->sub && mb_arrive(e, in, w, l, c, m, 1, 0, 0, NULL)) return e->status;
    });
    return 0;
  case X_TMA: return exec_tma(e, w, in, em);
  case X_BULK: return exec_bulk(e, w, in, em);
  case X_BULKCOMMIT: case X_BULKWAIT: case X_WGFENCE: return 0;   /* stores happen when issued */
  case X_WGMMA: return exec_wgmma(e, w, in, em);
  case X_WGCOMMIT:
    if (plX__full_warp(e, in, w, em)) return e->status;
    w->wg_cur++;
    return 0;
  case X_WGWAIT:
    if (plX__full_warp(e, in, w, em)) return e->status;
    if (w->wg_cur >= in->c && w->wg_cur - in->c > w->wg_done) w->wg_done = w->wg_cur - in->c;
    if (e->C->h.rd.n) wg_retire(e->C);
    return 0;
  case X_MAPA: case X_GETRANK: return exec_mapa(e, w, in, em);
  case X_ELECT: return exec_elect(e, w, in, em);
  case X_FENCEPROXY:
    if (in->sub && e->C->h.fences) LANES(em, e->C->h.fences[(uint32_t)w->idx * 32 + (uint32_t)l]++);
    return 0;
  }
  return plX__fail(e, in->stmt, "%s is not emulated", plX__opname(e, in->stmt));
}

/* the blocking ones, from the warp loop: lanes that must wait are returned in *blocked */
int plX__hop_wait(plX_emu *e, xwarp *w, xins *in, uint32_t pc, uint32_t em, uint32_t *blocked) {
  *blocked = 0;
  if (in->op == X_MBWAIT) return exec_mbwait(e, w, in, pc, em, blocked);
  if (in->op == X_SETMAXNREG) return exec_setmaxnreg(e, w, in, pc, em, blocked);
  return exec_clbar(e, w, in, pc, em, blocked);
}

/* ---- CTAs ------------------------------------------------------------------------------------------- */
void plX__hop_scan(plX_emu *e) {
  xhop *H = &e->H;
  if (H->scanned) return;
  H->scanned = 1;
  for (uint32_t i = 0; i < e->xf.ncode; i++) {
    int op = e->xf.code[i].op;
    if (op >= X_MBAR && op < X__COUNT) H->used = 1;
    if (op == X_WGMMA) H->has_wgmma = 1;
    if (op == X_WGMMA || op == X_TMA || op == X_BULK) H->track = 1;
  }
}

int plX__hop_setup(plX_emu *e, xcta *c) {
  xhop *H = &e->H;
  plX__hop_scan(e);
  if (c->rank == 0) {
    for (uint32_t i = 0; i < H->q.n; i++) { free(H->q.p[i].data); free(H->q.p[i].valid); }
    H->q.n = 0;
    H->clphase = H->clcount = 0;
    const plI_func *f = &e->m->funcs.p[e->func];
    uint32_t b = 65536 / (e->nthreads ? e->nthreads : 1);
    if (f->maxnreg && f->maxnreg < b) b = f->maxnreg;
    if (b > 255) b = 255;
    H->budget = b & ~7u;
  }
  c->h.mb.n = 0;
  c->h.rd.n = 0;
  for (uint32_t w = 0; w < e->nwarps; w++) {
    xwarp *W = &c->warps[w];
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
    if (!c->h.psw || !c->h.pw || !c->h.ps || !c->h.fences) return plX__fail(e, X_NOSLOT, "out of memory");
  }
  if (H->has_wgmma) {
    c->h.wgg = calloc((size_t)e->nwarps * e->xf.nslots, sizeof *c->h.wgg);
    if (!c->h.wgg) return plX__fail(e, X_NOSLOT, "out of memory");
  }
  return 0;
}

void plX__hop_free(xcta *c) {
  free(c->h.psw); free(c->h.pw); free(c->h.ps); free(c->h.fences); free(c->h.wgg); free(c->h.nreg); free(c->h.clarr);
  c->h.psw = NULL; c->h.pw = c->h.ps = c->h.fences = c->h.wgg = c->h.nreg = c->h.clarr = NULL;
  plU_vec_free(c->h.mb);
  memset(&c->h.mb, 0, sizeof c->h.mb);
  plU_vec_free(c->h.rd);
  memset(&c->h.rd, 0, sizeof c->h.rd);
}

int plX__hop_deadlock(plX_emu *e, plU_buf *m, xwarp *W, int lane) {
  xcta *c = e->C;
  uint32_t stmt = e->xf.code[W->bpc[lane]].stmt;
  if (W->bid[lane] == XB_MBAR) {
    xmbar *b = mb_find(c, W->wmb[lane]);
    plU_buf_printf(m, "deadlock in CTA (%u,%u,%u): %s waits on the mbarrier at shared 0x%x", c->ctaid[0], c->ctaid[1], c->ctaid[2],
                   plX__opname(e, stmt), W->wmb[lane]);
    if (b) plU_buf_printf(m, " (initialized at line %u), whose phase %u still misses %u of %u arrivals and %d transaction bytes",
                          line_of(e, b->pc), b->phase, b->pending, b->expected, b->tx);
  } else if (W->bid[lane] == XB_REGS) {
    plU_buf_printf(m, "deadlock in CTA (%u,%u,%u): %s waits for registers: the CTA's warps hold %llu of its pool of %llu (%s) and none will free enough",
                   c->ctaid[0], c->ctaid[1], c->ctaid[2], plX__opname(e, stmt), (unsigned long long)regs_used(e),
                   (unsigned long long)regs_pool(e), e->m->funcs.p[e->func].maxnreg ? ".maxnreg x threads" : "the 64K-register file");
  } else {
    uint32_t arrived = 0, live = 0;
    for (uint32_t r = 0; r < e->H.ncl; r++)
      for (uint32_t w = 0; w < e->nwarps; w++) {
        xwarp *X = &e->ctas[r].warps[w];
        for (int l = 0; l < 32; l++)
          if ((X->exists & ~X->exited) >> l & 1) {
            live++;
            if (e->ctas[r].h.clarr[w * 32 + (uint32_t)l] == e->H.clphase + 1) arrived++;
          }
      }
    plU_buf_printf(m, "deadlock in the cluster of CTA (%u,%u,%u): %s waits for the %u non-exited threads of the cluster, %u arrived",
                   c->ctaid[0], c->ctaid[1], c->ctaid[2], plX__opname(e, stmt), live, arrived);
  }
  return 0;
}
