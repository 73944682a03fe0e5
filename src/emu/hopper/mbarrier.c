/* hopper/mbarrier.c -- mbarrier objects: phases, arrival and transaction counts, waits, the
** expect_tx check. */
#include "state.h"
#include "fail.h"
#include "hooks.h"
#include "hopper.h"
#include "bwhooks.h"
#include <string.h>

/* ---- mbarrier objects
** ---------------------------------------------------------------------------- */
plX_mbar *plX__h_mb_find(plX_cta *c, uint32_t off) {
  uint32_t h = c->h.mb_hint; /* (the offsets are distinct: the first match is the only one) */
  if (h < c->h.mb.n && c->h.mb.p[h].off == off) return &c->h.mb.p[h];
  for (uint32_t i = 0; i < c->h.mb.n; i++)
    if (c->h.mb.p[i].off == off) {
      c->h.mb_hint = i;
      return &c->h.mb.p[i];
    }
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
uint32_t *plX__h_mb_dn(plX_cta *c, const plX_mbar *m, int last) {
  return c->h.dnv.p + m->dn + (m->cur ^ (uint32_t)last) * c->h.nslot;
}

static void mb_progress(plX_emu *e, plX_cta *c, plX_mbar *m) {
  if (m->pending || m->tx) return;
  m->lxsum = m->xsum; /* the expect_tx check */
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
  /* this phase's counts become the last's */
  m->cur ^= 1;
  if (e->H.has_wgmma) memset(plX__h_mb_dn(c, m, 0), 0, c->h.nslot * sizeof(uint32_t));
  mb_wake(e, c, m->off);
}

plX_mbar *plX__h_mb_get(plX_emu *e, const plX_ins *in, plX_warp *w, int l, plX_cta *c,
                        uint32_t off) {
  plX_mbar *m = plX__h_mb_find(c, off);
  if (!m || !m->valid) {
    plX__fail_lanef(
        e, in, w, l,
        "the mbarrier at shared 0x%x of CTA (%u,%u,%u) is not initialized (no mbarrier.init%s)",
        off, c->ctaid[0], c->ctaid[1], c->ctaid[2], m ? " since its mbarrier.inval" : "");
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
static int mb_visible(plX_emu *e, const plX_ins *in, plX_warp *w, int l, const plX_cta *c,
                      const plX_mbar *m) {
  uint32_t tid = (uint32_t)w->idx * 32 + (uint32_t)l;
  if (e->C == c) {
    if (m->irank == c->rank && m->itid / 32 == tid / 32) return 0;
    if (c->epoch != m->iepoch || c->h.mbdone != m->imb) return 0;
  } else if (e->H.clphase != m->icl)
    return 0;
  plB_buf b;
  plB_buf_init(&b);
  plB_buf_printf(&b, "uses the mbarrier at shared 0x%x", m->off);
  if (c != e->C) plB_buf_printf(&b, " of CTA (%u,%u,%u)", c->ctaid[0], c->ctaid[1], c->ctaid[2]);
  plB_buf_puts(&b, c == e->C ? ", which " : ", which its ");
  plX__thread(e, &b, m->itid);
  plB_buf_printf(&b,
                 " initialized at line %s, before %s completed since: it may still look "
                 "uninitialized here (%s)",
                 line_of(e, m->pc), c == e->C ? "any barrier of the CTA" : "a barrier.cluster",
                 c == e->C ? "a bar.sync after the init"
                           : "fence.mbarrier_init.release.cluster after the init, then "
                             "barrier.cluster.arrive and wait");
  plX__fail_lane(e, in, w, l, plB_buf_cstr(&b));
  plB_buf_free(&b);
  return e->status;
}

/* a copy completing on the mbarrier at shared offset moff of each CTA in mask: its issuer must see
** each one initialized (a correct program orders the issue after every destination's init, so the
** emulator has run that init by then) */
int plX__h_mb_copy_visible(plX_emu *e, const plX_ins *in, plX_warp *w, int l, uint32_t mask,
                           uint32_t moff) {
  for (uint32_t r = 0; r < (e->H.ncl ? e->H.ncl : 1); r++) {
    plX_cta *c = e->H.ncl ? &e->ctas[r] : e->C;
    if (!(mask >> c->rank & 1)) continue;
    plX_mbar *m = plX__h_mb_find(c, moff);
    if ((!m || !m->valid) && c != e->C)
      return plX__fail_lanef(
          e, in, w, l,
          "completes on the mbarrier at shared 0x%x of CTA (%u,%u,%u), which that CTA has not "
          "initialized (yet): "
          "order the copy after its mbarrier.init (fence.mbarrier_init.release.cluster, then "
          "barrier.cluster.arrive and wait)",
          moff, c->ctaid[0], c->ctaid[1], c->ctaid[2]);
    if (!m || !m->valid) m = plX__h_mb_get(e, in, w, l, c, moff);
    if (!m || mb_visible(e, in, w, l, c, m)) return e->status;
  }
  return 0;
}

/* count arrivals (drop: also for the phases after this one); the state before them */
int plX__h_mb_arrive(plX_emu *e, const plX_ins *in, plX_warp *w, int l, plX_cta *c, plX_mbar *m,
                     uint32_t count, int drop, int nocomplete, uint64_t *state) {
  if (count == 0 || count > 0xfffff)
    return plX__fail_lanef(e, in, w, l, "arrival count %u outside 1..2^20-1", count);
  if (count > m->pending)
    return plX__fail_lanef(e, in, w, l,
                           "%u arrival%s at the mbarrier at shared 0x%x (initialized at line %s "
                           "for %u per phase), where only %u %s pending in phase %u",
                           count, count == 1 ? "" : "s", m->off, line_of(e, m->pc), m->expected,
                           m->pending, m->pending == 1 ? "is" : "are", m->phase);
  if (drop) {
    if (count > m->expected)
      return plX__fail_lanef(e, in, w, l, "arrive_drop of %u below zero expected arrivals", count);
    m->expected -= count;
  }
  if (state) *state = (uint64_t)m->phase << 32 | m->pending;
  m->pending -= count;
  if (nocomplete && m->pending == 0 && m->tx == 0)
    return plX__fail_lanef(
        e, in, w, l, "a .noComplete arrival completes the phase of the mbarrier at shared 0x%x",
        m->off);
  mb_progress(e, c, m);
  return 0;
}

/* the tx-count of the current phase moves by delta (expect_tx: up; complete_tx, a copy landing:
** down). The PTX ISA lets it range over [-(2^20-1), 2^20-1]: bytes may land before the expect_tx
** that announces them (the count goes negative meanwhile); the phase completes when it and the
** pending arrival count are both zero, so a count left below zero (more bytes than expected)
** never does. */
int plX__h_mb_tx(plX_emu *e, uint32_t stmt, plX_cta *c, plX_mbar *m, int64_t delta,
                 const char *who) {
  int64_t t = (int64_t)m->tx + delta;
  if (t < -0xfffff || t > 0xfffff)
    return plX__fail(e, stmt,
                     "%s %s %lld bytes on the mbarrier at shared 0x%x of CTA (%u,%u,%u), whose "
                     "transaction count in phase %u is %d: "
                     "%lld is outside the range -(2^20-1)..2^20-1 the PTX ISA allows",
                     who, delta < 0 ? "completes" : "expects",
                     (long long)(delta < 0 ? -delta : delta), m->off, c->ctaid[0], c->ctaid[1],
                     c->ctaid[2], m->phase, m->tx, (long long)t);
  m->tx = (int32_t)t;
  mb_progress(e, c, m);
  return 0;
}

int plX__h_exec_mbar(plX_emu *e, plX_warp *w, plX_ins *in, uint32_t em) {
  uint64_t *D = wslot(w, in->d), *B = wslot(w, in->b);
  int cl = (in->fl & XF_CLUSTER) != 0;
  LANES(l, em, {
    plX_cta *c;
    uint32_t off;
    if (!plX__h_smem_at(e, in, w, l, addr_of(in, w, l), in->space, cl, 8, 8, &c, &off, "mbarrier"))
      return e->status;
    uint32_t v = (uint32_t)B[l];
    if (in->sub == 0) { /* init */
      plX_mbar *m = plX__h_mb_find(c, off);
      if (m && m->valid)
        return plX__fail_lanef(e, in, w, l,
                               "the mbarrier at shared 0x%x is initialized twice (first at line "
                               "%s) without mbarrier.inval between",
                               off, line_of(e, m->pc));
      if (v == 0 || v > 0xfffff)
        return plX__fail_lanef(e, in, w, l, "mbarrier.init count %u outside 1..2^20-1", v);
      if (!m) {
        plX_mbar z;
        memset(&z, 0, sizeof z);
        z.dn = c->h.dnv.n;
        /* its two halves of wait_group counts */
        if (e->H.has_wgmma) {
          if (c->h.dnv.n + 2 * c->h.nslot > c->h.dnv.cap &&
              !plB_vec_grow((void **)&c->h.dnv.p, &c->h.dnv.cap, c->h.dnv.n + 2 * c->h.nslot,
                            sizeof *c->h.dnv.p))
            return plX__fail(e, in->stmt, "out of memory");
          c->h.dnv.n += 2 * c->h.nslot;
        }
        if (!plB_vec_push(c->h.mb, z)) return plX__fail(e, in->stmt, "out of memory");
        m = &c->h.mb.p[c->h.mb.n - 1];
      }
      m->off = off;
      m->expected = m->pending = v;
      m->tx = 0;
      m->phase = 0;
      m->valid = 1;
      m->cur = 0;
      m->xsum = m->got = m->xpc = m->cpc = m->lxsum = m->lgot = m->lxpc = m->lcpc = 0;
      m->irank = e->C->rank;
      m->itid = (uint32_t)w->idx * 32 + (uint32_t)l;
      m->iepoch = c->epoch;
      m->icl = e->H.clphase;
      m->imb = c->h.mbdone;
      if (e->H.has_wgmma) memset(c->h.dnv.p + m->dn, 0, 2 * c->h.nslot * sizeof(uint32_t));
      m->pc = (uint32_t)(in - e->xf.code);
      memset(c->smem + off, 0, 8);
      if (c->smem_def) memset(c->smem_def + off, 1, 8);
      continue;
    }
    plX_mbar *m = plX__h_mb_get(e, in, w, l, c, off);
    if (!m || mb_visible(e, in, w, l, c, m)) return e->status;
    switch (in->sub) {
    case 1: m->valid = 0; break; /* inval */
    case 2:
    case 3: { /* arrive, arrive_drop */
      uint32_t count = v;
      /* .expect_tx: tx bytes, one arrival */
      if (in->sub2 & 1) {
        m->xsum += v;
        m->xpc = (uint32_t)(in - e->xf.code) + 1;
        if (plX__h_mb_tx(e, in->stmt, c, m, (int64_t)v, plX__opname(e, in->stmt))) return e->status;
        count = 1;
      }
      uint64_t st;
      /* local or remote: the released reads */
      if (e->H.has_wgmma) plX__h_wg_release(e, w, in, c, m);
      if (c->bw) plX__bw_arrive(e, w, c, m);
      if (plX__h_mb_arrive(e, in, w, l, c, m, count, in->sub == 3, (in->sub2 & 2) != 0, &st))
        return e->status;
      D[l] = st;
      break;
    }
    case 4: /* expect_tx */
      m->xsum += v;
      m->xpc = (uint32_t)(in - e->xf.code) + 1;
      if (plX__h_mb_tx(e, in->stmt, c, m, (int64_t)v, plX__opname(e, in->stmt))) return e->status;
      break;
    default: /* complete_tx */
      m->got += v;
      if (plX__h_mb_tx(e, in->stmt, c, m, -(int64_t)v, plX__opname(e, in->stmt))) return e->status;
      break;
    }
  });
  return 0;
}

/* test_wait / try_wait: lanes whose phase completed get true; the others are returned (they
** wait) */
int plX__h_exec_mbwait(plX_emu *e, plX_warp *w, plX_ins *in, uint32_t pc, uint32_t em,
                       uint32_t *blocked) {
  uint64_t *B = wslot(w, in->b);
  uint32_t ok = 0, wait = 0;
  LANES(l, em, {
    plX_cta *c;
    uint32_t off;
    if (!plX__h_smem_at(e, in, w, l, addr_of(in, w, l), in->space, 0, 8, 8, &c, &off, "mbarrier"))
      return e->status;
    plX_mbar *m = plX__h_mb_get(e, in, w, l, c, off);
    if (!m || mb_visible(e, in, w, l, c, m)) return e->status;
    int done;
    /* the phase of that parity completed */
    if (in->sub2) done = (m->phase & 1) != (B[l] & 1);
    /* the state's phase is no longer current */
    else
      done = (uint32_t)(B[l] >> 32) != m->phase;
    if (done) {
      ok |= 1u << l;
      e->C->racc = 0;
      if (c == e->C && e->H.has_wgmma) plX__h_wg_acquire(e, w, c, m);
      if (c->bw) plX__bw_acquire(e, w, c, m, pc);
    } /* (racc: lenient) */
    else {
      wait |= 1u << l;
      w->wmb[l] = off;
      w->bid[l] = XB_MBAR;
      w->bpc[l] = pc;
    }
  });
  w->P[in->d] = pmerge(w->P[in->d], ~0u, ok);
  w->waiting |= wait;
  *blocked = wait;
  return 0;
}
