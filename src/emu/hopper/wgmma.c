/* hopper/wgmma.c -- wgmma: operands from registers and matrix descriptors, groups, the operand
** reads in flight. */
#include "state.h"
#include "fail.h"
#include "exec.h"
#include "fp.h"
#include "hooks.h"
#include "hopper.h"
#include "smem.h"
#include "tc.h"
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

/* ---- wgmma operands in flight
** ------------------------------------------------------------------------ A wgmma reads its
** shared operands at some point before the wait_group that covers its group: a write to those
** bytes in between (a TMA load landing in a stage released too early, an st.shared) races with
** the tensor cores. The emulator reads at issue, so it records what each wgmma read and reports
** such writes instead of silently computing with the old bytes. */
static int wg_pending(const plX_cta *c, const plX_wgrd *r) {
  return r->group - 1 >= c->warps[r->warp].wg_done;
}

/* a retired read still matters while a warp ordered after its early release may write there, or one
** may still complete a wait on the phase it was released into */
static int wg_keep(plX_emu *e, plX_cta *c, const plX_wgrd *r, plX_mbar **lm, uint32_t *lrank,
                   uint32_t *lmb) {
  if (wg_pending(c, r) || r->acq) return 1;
  if (!r->rel || r->rel_rank >= e->H.ncl) return 0;
  if (!*lm || *lrank != r->rel_rank || *lmb != r->rel_mb) { /* (the last record's, else found) */
    *lm = plX__h_mb_find(&e->ctas[r->rel_rank], r->rel_mb);
    *lrank = r->rel_rank;
    *lmb = r->rel_mb;
    if (!*lm) return 0;
  }
  plX_mbar *m = *lm;
  return m->valid && m->phase <= r->rel_phase + 1;
}

/* drop the records nothing can race with any more */
void plX__h_wg_retire(plX_emu *e, plX_cta *c) {
  uint32_t k = 0, acq = 0;
  uint32_t lo = UINT32_MAX, hi = 0;
  for (int w = 0; w < 32; w++) c->h.rd_first[w] = UINT32_MAX;
  plX_mbar *lm = NULL; /* wg_keep's last mbarrier */
  uint32_t lrank = 0, lmb = 0;
  for (uint32_t i = 0; i < c->h.rd.n; i++)
    if (wg_keep(e, c, &c->h.rd.p[i], &lm, &lrank, &lmb)) {
      const plX_wgrd *r = &c->h.rd.p[i];
      if (r->lo < lo) lo = r->lo;
      if (r->hi > hi) hi = r->hi;
      acq |= r->acq;
      for (uint32_t m = r->acq; m; m &= m - 1)
        if (c->h.rd_first[__builtin_ctz(m)] > k) c->h.rd_first[__builtin_ctz(m)] = k;
      if (r->warp < 32 && c->h.rd_first[r->warp] > k && wg_pending(c, r))
        c->h.rd_first[r->warp] = k;
      c->h.rd.p[k++] = *r;
    }
  c->h.rd.n = k;
  c->h.rd_acq = acq;
  c->h.rd_lo = lo;
  c->h.rd_hi = hi;
}

/* a record joins c's reads: rd_lo, rd_hi hold every record (set afresh when there were none) */
static int wg_push(plX_cta *c, const plX_wgrd *r) {
  if (!c->h.rd.n || r->lo < c->h.rd_lo) c->h.rd_lo = r->lo;
  if (!c->h.rd.n || r->hi > c->h.rd_hi) c->h.rd_hi = r->hi;
  if (r->warp < 32 && c->h.rd_first[r->warp] > c->h.rd.n && wg_pending(c, r))
    c->h.rd_first[r->warp] = c->h.rd.n;
  return plB_vec_push(c->h.rd, *r);
}

/* the records of o released into one (mbarrier, phase, CTA), the key of one release: a hash set
** over rd's indices, built at the first copy the release makes (o->h.fwt; fwgen tells this
** release's slots from older ones). A record is in it when its (rel_mb, rel_phase, rel_rank) is
** the key; the duplicate test below is on (pc, warp, group, lo) among those. */
typedef struct fw_idx {
  int built, ok; /* ok 0: no memory for the set, scanned instead */
  uint32_t mb, phase, rank;
} fw_idx;

static uint32_t fw_hash(uint32_t pc, uint32_t warp, uint32_t group, uint32_t lo) {
  uint32_t h = pc * 0x9e3779b1u ^ warp * 0x85ebca77u ^ group * 0xc2b2ae3du ^ lo * 0x27d4eb2fu;
  h ^= h >> 15;
  h *= 0x2c1b3c6du;
  return h ^ h >> 13;
}

static int fw_match(const plX_wgrd *q, const plX_wgrd *f, const fw_idx *x) {
  return q->pc == f->pc && q->warp == f->warp && q->group == f->group && q->lo == f->lo &&
         q->rel_mb == x->mb && q->rel_phase == x->phase && q->rel_rank == x->rank;
}

static void fw_insert(plX_cta *o, uint32_t i) {
  const plX_wgrd *r = &o->h.rd.p[i];
  uint32_t mask = o->h.fwcap - 1, *t = o->h.fwt;
  for (uint32_t s = fw_hash(r->pc, r->warp, r->group, r->lo) & mask;; s = (s + 1) & mask)
    if (t[2 * s] != o->h.fwgen) {
      t[2 * s] = o->h.fwgen;
      t[2 * s + 1] = i;
      return;
    }
}

/* the set for a release that may still add `more` records (each record of rd enters once) */
static void fw_build(plX_cta *o, fw_idx *x, uint32_t more) {
  x->built = 1;
  x->ok = 0;
  uint64_t want = 2 * ((uint64_t)o->h.rd.n + 2 * (uint64_t)more) + 16;
  if (want > (1u << 30)) return;
  if (o->h.fwcap < want) {
    uint32_t cap = 64;
    while (cap < want) cap *= 2;
    uint32_t *t = calloc((size_t)cap * 2, sizeof *t);
    if (!t) return;
    free(o->h.fwt);
    o->h.fwt = t;
    o->h.fwcap = cap;
    o->h.fwgen = 0;
  }
  if (++o->h.fwgen == 0) { /* the generations wrapped: every slot free again */
    memset(o->h.fwt, 0, (size_t)o->h.fwcap * 2 * sizeof *o->h.fwt);
    o->h.fwgen = 1;
  }
  x->ok = 1;
  for (uint32_t j = 0; j < o->h.rd.n; j++) {
    const plX_wgrd *q = &o->h.rd.p[j];
    if (q->rel_mb == x->mb && q->rel_phase == x->phase && q->rel_rank == x->rank) fw_insert(o, j);
  }
}

/* r, released again into phase `phase` of the mbarrier at `mb` of CTA `rank` (x's key): a copy
** whose waiters are ordered after that arrive, unless one exists; rel: the early arrive the
** messages name (1 + pc; 0: r's, when the release runs through a chain); more: the bound on the
** records this release may still add to o */
static void wg_forward(plX_cta *o, uint32_t i, fw_idx *x, uint32_t rel, uint32_t more) {
  plX_wgrd f = o->h.rd.p[i];
  if (rel) f.rel = rel;
  if (!x->built) fw_build(o, x, more);
  if (x->ok) {
    uint32_t mask = o->h.fwcap - 1;
    const uint32_t *t = o->h.fwt;
    for (uint32_t s = fw_hash(f.pc, f.warp, f.group, f.lo) & mask; t[2 * s] == o->h.fwgen;
         s = (s + 1) & mask)
      if (fw_match(&o->h.rd.p[t[2 * s + 1]], &f, x)) return;
  } else
    for (uint32_t j = o->h.rd.n; j-- > 0;)
      if (fw_match(&o->h.rd.p[j], &f, x)) return;
  f.rel_mb = x->mb;
  f.rel_phase = x->phase;
  f.rel_rank = x->rank;
  f.acq = 0;
  /* out of memory: the chain is not followed */
  if (wg_push(o, &f) && x->ok) fw_insert(o, o->h.rd.n - 1);
}

/* warp w (of e->C) arrives on m (of CTA c, local or remote) while wgmma reads of its own are
** pending: a waiter on that phase is ordered after the arrive, not after the wait_group that
** retires the reads (the PTX memory model only guarantees a wgmma's shared reads complete at
** that wait_group). The same holds for every read w is ordered after through an earlier early
** release (a chain: what a waiter acquires is what the phase's arrivers released). Also note
** what w has retired. */
void plX__h_wg_release(plX_emu *e, plX_warp *w, plX_ins *in, plX_cta *c, plX_mbar *m) {
  uint32_t wi = (uint32_t)w->idx, me = e->C->rank;
  /* the slot of this CTA's warp wi */
  uint32_t *dv = plX__h_mb_dn(c, m, 0), *dn = dv + me * e->nwarps + wi;
  if (*dn < w->wg_done + 1) *dn = w->wg_done + 1;
  const uint32_t *kw = e->C->h.know + (size_t)wi * c->h.nslot; /* and what wi is ordered after */
  for (uint32_t j = 0; j < c->h.nslot; j++)
    if (kw[j] > dv[j]) dv[j] = kw[j];
  for (uint32_t k = 0; k < e->H.ncl || (k == 0 && !e->H.ncl); k++) {
    plX_cta *o = e->H.ncl ? &e->ctas[k] : e->C;
    /* another CTA's records matter only through what wi acquired */
    if (o != e->C && !(wi < 32 && (o->h.rd_acq >> wi & 1))) continue;
    uint32_t n = o->h.rd.n;
    fw_idx x = { 0, 0, m->off, m->phase, c->rank };
    /* (the records before rd_first[wi] are neither wi's pending ones nor acquired by wi) */
    for (uint32_t i = wi < 32 && o->h.rd_first[wi] < n ? o->h.rd_first[wi]
                      : wi < 32                        ? n
                                                       : 0;
         i < n; i++) {
      plX_wgrd *r = &o->h.rd.p[i];
      if (o == e->C && r->warp == wi && wg_pending(o, r)) { /* its own pending reads */
        if (!r->rel) {
          int was = r->rel_mb == x.mb && r->rel_phase == x.phase && r->rel_rank == x.rank;
          r->rel = (uint32_t)(in - e->xf.code) + 1;
          r->rel_mb = m->off;
          r->rel_phase = m->phase;
          r->rel_rank = c->rank;
          if (x.built && x.ok && !was) fw_insert(o, i);
        } else if (r->rel_mb != m->off || r->rel_phase != m->phase || r->rel_rank != c->rank)
          wg_forward(o, i, &x, (uint32_t)(in - e->xf.code) + 1, n - i);
      } else if (r->rel_rank == me && wi < 32 && (r->acq >> wi & 1)) /* reads w acquired early */
        wg_forward(o, i, &x, 0, n - i);
    }
  }
}

/* warp w of c completed a wait on m (of c): it is ordered after the early releases into m's
** completed phases, and after the wait_groups of the warps (of any CTA of the cluster: remote
** arrivals count in their own CTA's slots) that arrived on m's last completed phase */
void plX__h_wg_acquire(plX_emu *e, plX_warp *w, plX_cta *c, plX_mbar *m) {
  uint32_t wi = (uint32_t)w->idx;
  if (wi >= 32) return;
  /* a second lane of this wait on the same mbarrier: the first one's acquire already ran, and a
  ** repeat sets and clears the same bits (know only grows) */
  if (w->wgq_clock == w->clock && w->wgq_mb == m) return;
  w->wgq_clock = w->clock;
  w->wgq_mb = m;
  const uint32_t *ldn = plX__h_mb_dn(c, m, 1);
  /* transitively: what the arrivers knew */
  uint32_t *kw = c->h.know + (size_t)wi * c->h.nslot;
  for (uint32_t j = 0; j < c->h.nslot; j++)
    if (ldn[j] > kw[j]) kw[j] = ldn[j];
  for (uint32_t k = 0; k < e->H.ncl || (k == 0 && !e->H.ncl); k++) {
    plX_cta *o = e->H.ncl ? &e->ctas[k] : c;
    for (uint32_t i = 0; i < o->h.rd.n; i++) {
      plX_wgrd *r = &o->h.rd.p[i];
      if (!r->rel || r->rel_rank != c->rank) continue;
      if (r->rel_mb == m->off && r->rel_phase < m->phase && (o != c || r->warp != wi)) {
        r->acq |= 1u << wi, o->h.rd_acq |= 1u << wi;
        if (o->h.rd_first[wi] > i) o->h.rd_first[wi] = i;
      }
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
int plX__h_wg_check(plX_emu *e, uint32_t stmt, plX_cta *c, uint32_t off, uint32_t n, int warp,
                    int only_acq, const char *who) {
  if (off >= c->h.rd_hi || off + n <= c->h.rd_lo) return 0;
  for (uint32_t i = 0; i < c->h.rd.n; i++) {
    const plX_wgrd *r = &c->h.rd.p[i];
    if (off >= r->hi || off + n <= r->lo) continue;
    /* the writer: e->C's */
    int acq = warp >= 0 && warp < 32 && r->rel_rank == e->C->rank && (r->acq >> warp & 1);
    if (!acq && (only_acq || !wg_pending(c, r))) continue;
    uint32_t at = off > r->lo ? off : r->lo;
    if (acq)
      plX__fail(e, stmt,
                "%s writes shared byte 0x%x of CTA (%u,%u,%u), which the wgmma.mma_async of line "
                "%s (warp %u) reads: "
                "stage released at line %s before wgmma.wait_group covers the wgmma at line %s "
                "(this write is ordered after that "
                "mbarrier arrive, not after the wait_group; arrive only after the wait_group that "
                "retires the stage's readers)",
                who, at, c->ctaid[0], c->ctaid[1], c->ctaid[2], line_of(e, r->pc), r->warp,
                line_of(e, r->rel - 1), line_of(e, r->pc));
    else
      plX__fail(e, stmt,
                "%s writes shared byte 0x%x of CTA (%u,%u,%u), which the wgmma.mma_async of line "
                "%s (warp %u) reads: no "
                "wgmma.wait_group has covered that wgmma yet (release a buffer only after the "
                "wait_group that retires its readers)",
                who, at, c->ctaid[0], c->ctaid[1], c->ctaid[2], line_of(e, r->pc), r->warp);
    return 1;
  }
  return 0;
}

int plX__hop_wg_clobber(plX_emu *e, uint32_t stmt, plX_cta *c, uint32_t off, uint32_t n, int warp,
                        const char *who) {
  return plX__h_wg_check(e, stmt, c, off, n, warp, 0, who);
}

static int sw_fail(plX_emu *e, const plX_ins *in, plX_warp *w, int l, const plX_cta_hop *h,
                   uint32_t i, int want_sw, const char *what) {
  return plX__fail_lanef(e, in, w, l,
                         "%s reads shared byte 0x%x through a descriptor declaring swizzle %s, "
                         "but a TMA load wrote it with swizzle %s",
                         what, i, plB_sm_swizzle_name(want_sw), plB_sm_swizzle_name(h->psw[i] - 1));
}

/* an async-proxy read of shared bytes [off, off + n) of CTA c: written by a generic store without a
** fence.proxy.async by its writer since is an error; want_sw >= 0 also checks the TMA swizzle */
int plX__h_proxy_read(plX_emu *e, const plX_ins *in, plX_warp *w, int l, plX_cta *c, uint32_t off,
                      uint32_t n, int want_sw, const char *what) {
  plX_cta_hop *h = &c->h;
  if (!h->pw) return 0;
  uint32_t me = (uint32_t)w->idx * 32 + (uint32_t)l;
  /* the last writer seen (lw, 0: none yet) and what follows from it */
  uint32_t lw = 0, t = 0, now = 0, before = 0;
  const plX_cta *wc = c;
  for (uint32_t i = off; i < off + n;) { /* a block at a time */
    uint32_t end = (i / PW_BLK + 1) * PW_BLK;
    if (end > off + n) end = off + n;
    if (plX__h_pw_none(h, i, 1)) { /* no generic writer in the block: only the swizzle is left */
      if (want_sw >= 0)
        for (; i < end; i++)
          if (h->psw[i] && h->psw[i] - 1 != want_sw)
            return sw_fail(e, in, w, l, h, i, want_sw, what);
      i = end;
      continue;
    }
    for (; i < end; i++) {
      uint32_t wr = h->pw[i];
      if (wr && wr != lw) { /* a writer other than the last byte's */
        uint32_t r = (wr - 1) / e->nthreads;
        t = (wr - 1) % e->nthreads;
        wc = r == c->rank ? c : &e->ctas[r]; /* the writer's CTA */
        /* the writer's fences so far */
        now = (wc == c ? wc->h.fences : wc->h.cfences)[t];
        /* another thread is ordered after the store by a barrier: the fence must precede it */
        before = wc == e->C && t == me ? now : (wc == c ? wc->h.fsnap : wc->h.cfsnap)[t];
        lw = wr;
      }
      if (wr && before == h->ps[i]) {
        plB_buf b;
        plB_buf_init(&b);
        plB_buf_printf(&b, "%s reads shared byte 0x%x", what, i);
        if (wc != c)
          plB_buf_printf(&b, " of CTA (%u,%u,%u)", c->ctaid[0], c->ctaid[1], c->ctaid[2]);
        plB_buf_puts(&b, ", written by ");
        whot(e, &b, wc, t);
        if (now != h->ps[i])
          plB_buf_puts(&b, " with an ordinary store, whose fence.proxy.async by that thread comes "
                           "after the barrier that orders it before"
                           " this read: the fence must come between the store and the barrier (the "
                           "async proxy may not see it)");
        else if (wc == c)
          plB_buf_puts(&b, " with an ordinary store and no fence.proxy.async by that thread since: "
                           "the async proxy may not see it");
        else
          plB_buf_puts(&b,
                       " with an ordinary store through shared::cluster and no fence.proxy.async "
                       "(or .shared::cluster; .shared::cta does"
                       " not cover another CTA's memory) by that thread since: the async proxy "
                       "may not see it");
        plX__fail_lane(e, in, w, l, plB_buf_cstr(&b));
        plB_buf_free(&b);
        return e->status;
      }
      if (want_sw >= 0 && h->psw[i] && h->psw[i] - 1 != want_sw)
        return sw_fail(e, in, w, l, h, i, want_sw, what);
    }
  }
  return 0;
}

/* ---- wgmma
** ------------------------------------------------------------------------------------------- */
/* sparse A (wgmma.mma_async.sp): the stored M x K/2 values Ac of this warp's 16 rows, placed by
** the metadata into the columns kx of a K-wide row (Ac[r][j] is A[r][kx[r][j]], the other
** columns are zero). Each warp holds the metadata of its own rows (docs/emulator.md, "Sparse
** wgmma"): f16/bf16 (2:4, K 32) and tf32 (1:2, K 16): lanes 4g + 2 sel and 4g + 2 sel + 1 (sel 0
** or 1) hold rows g (bits 0-15) and g + 8 (bits 16-31), the first lane chunks 0-3, the second
** 4-7; e4m3/e5m2/s8/u8 (2:4, K 64; sel 0): lane 4g + h + 2 c holds row g + 8 h, chunks 8c..8c+7.
** Chunk q's 4 bits are at 4 (q % 4) (4 (q % 8) for 8-bit) above the row's base: two 2-bit
** positions (low: the first stored value's) for 2:4, 0b0100 or 0b1110 (position 0 or 1) for
** tf32. */
static int sp_place(plX_emu *e, plX_ins *in, plX_warp *w, int at, int K, uint8_t kx[16][32]) {
  uint32_t sel = (uint32_t)(in->off2 - 1);
  int tf = at == PLT_TF32, b8 = !tf && at != PLT_F16 && at != PLT_BF16;
  const uint64_t *M = wslot(w, in->e);
  if (b8 ? sel != 0 : sel > 1) {
    char m[128];
    snprintf(m, sizeof m, "sparsity selector %u: must be %s (other values are undefined)", sel,
             b8 ? "0 for 8-bit types" : "0 or 1");
    return plX__fail_warp(e, in, w, m, 0xffffffffu);
  }
  int chunks = tf ? K / 2 : K / 4;
  for (int r = 0; r < 16; r++)
    for (int q = 0; q < chunks; q++) {
      int g = r % 8, h = r / 8, lane, bit;
      if (b8) {
        lane = 4 * g + h + 2 * (q / 8);
        bit = 4 * (q % 8);
      } else {
        lane = 4 * g + 2 * (int)sel + q / 4;
        bit = 16 * h + 4 * (q % 4);
      }
      uint32_t nib = (uint32_t)(M[lane] >> bit) & 15;
      if (tf) {
        if (nib != 4 && nib != 14)
          return plX__fail_lanef(
              e, in, w, lane,
              "sparsity metadata 0x%x (bits %d-%d) for row %d, columns %d-%d of A: a tf32 chunk's "
              "index is 0b0100 or 0b1110 (other values are undefined)",
              nib, bit + 3, bit, 16 * (w->idx % 4) + r, 2 * q, 2 * q + 1);
        kx[r][q] = (uint8_t)(2 * q + (nib == 14));
      } else {
        uint32_t i0 = nib & 3, i1 = nib >> 2;
        if (i0 == i1)
          return plX__fail_lanef(e, in, w, lane,
                                 "sparsity metadata 0x%x (bits %d-%d) for row %d, columns %d-%d of "
                                 "A: both stored values "
                                 "at position %u (0b0000, 0b0101, 0b1010, 0b1111 are undefined)",
                                 nib, bit + 3, bit, 16 * (w->idx % 4) + r, 4 * q, 4 * q + 3, i0);
        kx[r][2 * q] = (uint8_t)(4 * q + (int)i0);
        kx[r][2 * q + 1] = (uint8_t)(4 * q + (int)i1);
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
    e->C->h.wga[base + c[i]] = w->clock;
    e->C->h.wgapc[base + c[i]] = pc;
  }
}

/* the PTX ISA wants a wgmma.fence by every warp of the warpgroup before its first
** wgmma.mma_async, and between any other access to a register and a wgmma that uses it as an
** accumulator or as an A fragment (accumulator accesses by wgmmas of the same shape need none):
** else what the tensor cores read or write there is undefined */
static __attribute__((noinline)) int wg_unfenced(plX_emu *e, plX_warp *w, const plX_ins *in,
                                                 uint32_t slot, const char *as) {
  size_t k = (size_t)w->idx * e->xf.nslots + slot;
  plB_buf b;
  plB_buf_init(&b);
  plB_buf_puts(&b, "it uses ");
  plI_regname(e->m, e->xf.slot_reg[slot], &b);
  plB_buf_printf(
      &b,
      " as %s, which the %s of line %s accessed after the warp's last wgmma.fence (line %s): "
      "a wgmma.fence must come between them",
      as, plX__opname(e, e->xf.code[e->C->h.wgapc[k]].stmt), line_of(e, e->C->h.wgapc[k]),
      line_of(e, w->wgf_pc));
  plX__fail_warp(e, in, w, plB_buf_cstr(&b), 0);
  plB_buf_free(&b);
  return e->status;
}

static inline int wg_fenced(plX_emu *e, plX_warp *w, const plX_ins *in, uint32_t slot,
                            const char *as) {
  if (e->C->h.wga[(size_t)w->idx * e->xf.nslots + slot] <= w->wgf) return 0;
  return wg_unfenced(e, w, in, slot, as);
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
    if (q->warp != r->warp || q->group != r->group || q->rel || q->acq || r->lo > q->hi ||
        q->lo > r->hi)
      continue;
    const plI_stmt *sq = plX__stmt(e, e->xf.code[q->pc].stmt);
    if (!sr || !sq || sr->line != sq->line || sr->file != sq->file) continue;
    if (r->lo < q->lo) q->lo = r->lo;
    if (r->hi > q->hi) q->hi = r->hi;
    if (q->lo < c->h.rd_lo) c->h.rd_lo = q->lo;
    if (q->hi > c->h.rd_hi) c->h.rd_hi = q->hi;
    return 1;
  }
  return 0;
}

/* the (row, column) of D that half h of accumulator register i of lane (g = lane / 4, tq = lane %
** 4) holds: f16 accumulators pack two columns a register */
static inline void wg_cell(int dt, int g, int tq, int i, int h, int *row, int *col) {
  if (dt == PLT_F16) {
    *row = g + 8 * (i & 1);
    *col = 8 * (i >> 1) + 2 * tq + h;
  } else {
    *row = g + 8 * ((i >> 1) & 1);
    *col = 8 * (i >> 2) + 2 * tq + (i & 1);
  }
}

int plX__h_exec_wgmma(plX_emu *e, plX_warp *w, plX_ins *in, uint32_t em) {
  if (plX__full_warp(e, in, w, em)) return e->status;
  const uint32_t *vs = e->xf.vslots;
  int N = in->vec * 8, dt = in->t, at = in->t2, bt = in->t3, sparse = in->off2 != 0;
  if (e->C->h.wga) { /* the wgmma.fence check */
    if (!w->wgf)
      return plX__fail_warp(
          e, in, w,
          "a wgmma.mma_async with no wgmma.fence before it in this warp: the first wgmma of a "
          "warpgroup needs one (and one after any other access to its accumulator or A registers)",
          0);
    int nacc = dt == PLT_F16 ? N / 4 : N / 2;
    for (int i = 0; i < nacc; i++)
      if (wg_fenced(e, w, in, vs[in->vs + (uint32_t)i], "an accumulator")) return e->status;
    if (in->sub & 16)
      for (uint32_t j = 0; j < 4; j++)
        if (wg_fenced(e, w, in, vs[in->a + j], "an A fragment")) return e->status;
  }
  int K = at == PLT_TF32 ? 8 : (at == PLT_F16 || at == PLT_BF16) ? 16 : 32;
  int integer = at == PLT_S8 || at == PLT_U8;
  /* this warp's 16 rows of the 64 */
  uint32_t wi = (uint32_t)w->idx % 4;
  double A[16 * 32], *B;
  uint8_t kx[16][32];
  plX_wgrd sa_span, sb_span;
  memset(&sa_span, 0, sizeof sa_span);
  memset(&sb_span, 0, sizeof sb_span);
  if (sparse && sp_place(e, in, w, at, 2 * K, kx)) return e->status;
  /* B (N x KB), then D (16 x N), then sparse: one row's B (N x K) */
  size_t need = (size_t)N * (size_t)K * (sparse ? 3u : 1u) + 16u * (size_t)N;
  if (e->C->h.tcn < need) {
    double *p = realloc(e->C->h.tcs, sizeof(double) * need);
    if (!p) return plX__fail(e, in->stmt, "out of memory");
    e->C->h.tcs = p;
    e->C->h.tcn = need;
  }
  B = e->C->h.tcs;
  /* A in registers: the mma.sync A fragments */
  if (in->sub & 16) {
    /* (sparse: of the stored K/2 columns) */
    for (int l = 0; l < 32; l++) {
      int g = l / 4, tq = l % 4;
      for (int j = 0; j < 4; j++) {
        uint32_t v = (uint32_t)wslot(w, vs[in->a + (uint32_t)j])[l];
        int row = g + 8 * (j & 1);
        if (K == 16) {
          int col = 2 * tq + 8 * (j >> 1);
          A[row * K + col] = plX__h_elem(v, at);
          A[row * K + col + 1] = plX__h_elem(v >> 16, at);
        } else if (K == 8)
          A[row * K + tq + 4 * (j >> 1)] = plX__h_elem(v, at);
        else
          for (int b = 0; b < 4; b++)
            A[row * K + 4 * tq + 16 * (j >> 1) + b] = plX__h_elem(v >> (8 * b), at);
      }
    }
  } else if (plX__h_desc_load(e, in, w, 90, wslot(w, in->a)[0], at, (in->sub & 1) != 0, 16 * wi, 16,
                              (uint32_t)K, A, "operand A", &sa_span))
    return e->status;
  int KB = sparse ? 2 * K : K; /* B's K */
  const double *Bv;            /* B's values: in B, or the gather cache's */
  if (plX__h_desc_load_ref(e, in, w, 90, wslot(w, in->b)[0], bt, (in->sub & 2) != 0, 0, (uint32_t)N,
                           (uint32_t)KB, B, &Bv, "operand B", &sb_span))
    return e->status;
  for (int l = 1; l < 32; l++)
    if (wslot(w, in->b)[l] != wslot(w, in->b)[0] ||
        (!(in->sub & 16) && wslot(w, in->a)[l] != wslot(w, in->a)[0]))
      return plX__fail_warp(e, in, w, "the matrix descriptors differ between the lanes of the warp",
                            0xffffffffu);
  /* the product on the engine: this warp's 16 rows of D (row-major, N columns) start from the
  ** accumulators (zero where scale-d is 0), every product exact, one rounding per element below */
  double sa = (in->sub & 4) ? -1 : 1, sb = (in->sub & 8) ? -1 : 1;
  uint32_t scd = (in->sub & 32) ? ((in->sub & 64) ? ~0u : 0) : w->P[in->c];
  int nd = dt == PLT_F16 ? N / 4 : N / 2, halves = dt == PLT_F16 ? 2 : 1;
  double *D = B + (size_t)N * (size_t)KB;
  if (!integer && sa < 0)
    for (int q = 0; q < 16 * K; q++) A[q] = -A[q];
  if (!integer && sb < 0) {
    for (size_t q = 0; q < (size_t)N * (size_t)KB; q++) B[q] = -Bv[q];
    Bv = B;
  }
  /* f32 accumulators of every lane kept or every lane zeroed: the engine works on the registers in
  ** place (the same sums, the same roundings) */
  int done = 0;
  if (dt == PLT_F32 && !sparse && (scd == ~0u || scd == 0)) {
    /* (the slots distinct: rising; else a register named twice goes the staged way) */
    uint64_t *Rs[128];
    int rising = 1;
    for (int i = 0; i < nd; i++) {
      Rs[i] = wslot(w, vs[in->vs + (uint32_t)i]);
      if (i && vs[in->vs + (uint32_t)i] <= vs[in->vs + (uint32_t)i - 1]) rising = 0;
    }
    done = rising && plX__tc_wgmma_f32(N, K, A, Bv, (size_t)KB, Rs, scd == 0);
  }
  if (!done) {
    if (dt ==
        PLT_F32) /* register 4 c + 2 h + x of lane l: row l / 4 + 8 h, column 8 c + 2 (l % 4) + x */
      for (int i = 0; i < nd; i++) {
        const uint64_t *R = wslot(w, vs[in->vs + (uint32_t)i]);
        double *Dc =
            D + (size_t)(8 * ((i >> 1) & 1)) * (size_t)N + (size_t)(8 * (i >> 2) + (i & 1));
        if (scd == ~0u) /* lane 4 g + q: row g, column 2 q */
          for (int g = 0; g < 8; g++, Dc += N, R += 4) {
            Dc[0] = (double)f32(R[0]);
            Dc[2] = (double)f32(R[1]);
            Dc[4] = (double)f32(R[2]);
            Dc[6] = (double)f32(R[3]);
          }
        else
          for (int l = 0; l < 32; l++)
            Dc[(l >> 2) * N + 2 * (l & 3)] = (scd >> l & 1) ? (double)f32(R[l]) : 0;
      }
    else
      for (int i = 0; i < nd; i++) {
        const uint64_t *R = wslot(w, vs[in->vs + (uint32_t)i]);
        for (int l = 0; l < 32; l++) {
          int keep = (scd >> l) & 1;
          for (int h = 0; h < halves; h++) {
            int row, col;
            wg_cell(dt, l / 4, l % 4, i, h, &row, &col);
            double x = 0;
            if (keep)
              x = integer         ? (double)(int32_t)R[l]
                  : dt == PLT_F16 ? plX__to_double((R[l] >> (16 * h)) & 0xffff, XFMT_F16)
                                  : (double)f32(R[l]);
            D[row * N + col] = x;
          }
        }
      }
    if (!sparse)
      plX__tc_gemm(16, N, K, A, (size_t)K, Bv, (size_t)KB, D, (size_t)N);
    else { /* row by row: B's columns that row's metadata selects, in its order */
      double *Br = D + 16 * (size_t)N;
      for (int r = 0; r < 16; r++) {
        for (int n = 0; n < N; n++)
          for (int k = 0; k < K; k++) Br[n * K + k] = Bv[(size_t)n * (size_t)KB + kx[r][k]];
        plX__tc_gemm(N, 1, K, Br, (size_t)K, A + r * K, (size_t)K, D + r * N, 1);
      }
    }
    if (dt == PLT_F32) /* the f32 accumulators: one rounding each */
      for (int i = 0; i < nd; i++) {
        uint64_t *R = wslot(w, vs[in->vs + (uint32_t)i]);
        const double *Dc =
            D + (size_t)(8 * ((i >> 1) & 1)) * (size_t)N + (size_t)(8 * (i >> 2) + (i & 1));
        for (int g = 0; g < 8; g++, Dc += N, R += 4) {
          R[0] = c32((float)Dc[0]);
          R[1] = c32((float)Dc[2]);
          R[2] = c32((float)Dc[4]);
          R[3] = c32((float)Dc[6]);
        }
      }
    else
      for (int i = 0; i < nd; i++) {
        uint64_t *R = wslot(w, vs[in->vs + (uint32_t)i]);
        for (int l = 0; l < 32; l++) {
          uint64_t out = 0;
          for (int h = 0; h < halves; h++) {
            int row, col;
            wg_cell(dt, l / 4, l % 4, i, h, &row, &col);
            double s = D[row * N + col];
            if (integer) {
              int64_t si = (int64_t)s;
              if (in->fl & XF_SATF) {
                if (si > INT32_MAX) si = INT32_MAX;
                if (si < INT32_MIN) si = INT32_MIN;
              }
              out = (uint32_t)si;
            } else if (dt == PLT_F16)
              out |= plX__round(s, 0, XFMT_F16, XR_RN, 0) << (16 * h);
            else
              out = c32((float)s);
          }
          R[l] = out;
        }
      }
  }
  /* the operands stay in use until a wait_group covers the open group */
  plX_cta *cc = e->C;
  if (cc->h.rd.n >= 4096) plX__h_wg_retire(e, cc);
  for (int o = 0; o < 2; o++) {
    plX_wgrd r = o ? sb_span : sa_span;
    if (r.hi <= r.lo) continue;
    r.warp = (uint32_t)w->idx;
    r.group = w->wg_cur + 1;
    r.pc = (uint32_t)(in - e->xf.code);
    if (wg_merge(e, cc, &r)) continue;
    if (!wg_push(cc, &r)) return plX__fail(e, in->stmt, "out of memory");
  }
  /* the accumulators belong to the open group until a wait_group covers it */
  if (e->C->h.wgg) {
    uint32_t *G = e->C->h.wgg + (size_t)w->idx * e->xf.nslots;
    for (int i = 0; i < nd; i++) G[vs[in->vs + (uint32_t)i]] = w->wg_cur + 1;
    if (w->wg_last != w->wg_cur + 1) {
      w->wg_gpc[w->wg_cur % 16] = (uint32_t)(in - e->xf.code);
      w->wg_last = w->wg_cur + 1;
    }
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
    plB_buf b;
    plB_buf_init(&b);
    plB_buf_printf(&b, "accumulator read before wgmma.wait_group: %s ",
                   i < in->nrd ? "reads" : "writes");
    plI_regname(e->m, e->xf.slot_reg[r], &b);
    plB_buf_printf(&b,
                   ", an accumulator of the wgmma.mma_async of line %s, which no wgmma.wait_group "
                   "has waited for",
                   line_of(e, w->wg_gpc[(g - 1) % 16]));
    int lane = __builtin_ctz(w->exists & ~w->exited);
    plX__fail_lane(e, in, w, lane, plB_buf_cstr(&b));
    plB_buf_free(&b);
    return e->status;
  }
  return 0;
}
