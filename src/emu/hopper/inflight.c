/* hopper/inflight.c -- copies into shared memory in flight (TMA loads, bulk copies): queued at
** issue, landed when every warp of the cluster waits. */
#include "state.h"
#include "fail.h"
#include "mem.h"
#include "hooks.h"
#include "hopper.h"
#include "bwhooks.h"
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

/* ---- copies in flight
** ------------------------------------------------------------------------------ */
int plX__h_queue(plX_emu *e, const plX_ins *in, uint32_t tid, uint32_t mask, uint32_t lo,
                 uint32_t n, uint32_t mbar, uint32_t tx, uint8_t *data, uint8_t *valid, int sw,
                 int bpar) {
  for (uint32_t r = 0; r < e->H.ncl; r++) /* a destination that exited: reported */
    if ((mask >> r & 1) && plX__exited(e, in->stmt, &e->ctas[r], lo, tid, "copies into")) {
      free(data);
      free(valid);
      return e->status;
    }
  /* each destination, this CTA or another */
  for (uint32_t r = 0; r < (e->H.ncl ? e->H.ncl : 1); r++) {
    plX_cta *c = e->H.ncl ? &e->ctas[r] : e->C;
    if (!(mask >> c->rank & 1) || !c->h.rd.n ||
        !plX__h_wg_check(e, in->stmt, c, lo, n, (int)(tid / 32), 1, plX__opname(e, in->stmt)))
      continue;
    free(data);
    free(valid);
    return e->status;
  }
  for (uint32_t r = 0; r < (e->H.ncl ? e->H.ncl : 1); r++) { /* a tcgen05.mma still reads there */
    plX_cta *c = e->H.ncl ? &e->ctas[r] : e->C;
    if (!(mask >> c->rank & 1) || !c->bw ||
        !plX__bw_smem_write(e, in->stmt, c, lo, n, tid, plX__opname(e, in->stmt)))
      continue;
    free(data);
    free(valid);
    return e->status;
  }
  plX_async a;
  a.pc = (uint32_t)(in - e->xf.code);
  a.tid = tid;
  a.rank = e->C->rank;
  a.mask = mask;
  a.lo = lo;
  a.n = n;
  a.mbar = mbar;
  a.tx = tx;
  a.data = data;
  a.valid = valid;
  a.sw = sw;
  a.red = -1;
  a.rdt = 0;
  a.bpar = bpar;
  memset(a.ph, 0, sizeof a.ph);
  for (uint32_t r = 0; mbar != X_NOSLOT && r < e->H.ncl && r < 16; r++) { /* its phases */
    uint32_t br = bpar < 0 ? r : (r & ~1u) | (uint32_t)bpar;
    const plX_mbar *m = (mask >> r & 1) ? plX__h_mb_find(&e->ctas[br], mbar) : NULL;
    if (m) a.ph[r] = m->phase;
  }
  if (!plB_vec_push(e->H.q, a)) {
    free(data);
    free(valid);
    return plX__fail(e, in->stmt, "out of memory");
  }
  return 0;
}

/* the expect_tx check, as copy a lands on mbarrier m of CTA c: its bytes belong to the phase it was
** issued in (a correct program completes that phase only once they land; the PTX ISA lets a copy
** land before the expect_tx announcing it, the count going below zero meanwhile, which is fine),
** and the bytes delivered to a phase must not pass what it expects once all its arrivals are in:
** the phase would complete in the middle of the copy, the rest counting against the next phase
** (a box larger than its tile, an expect_tx short of the copies). At the copy's line; 1 if
** reported. c: the mbarrier's CTA, dr: the destination's rank */
static int tx_check(plX_emu *e, const plX_async *a, plX_cta *c, plX_mbar *m, uint32_t dr) {
  uint32_t stmt = e->xf.code[a->pc].stmt, ph = dr < 16 ? a->ph[dr] : m->phase;
  const char *op = plX__opname(e, stmt);
  char where[64];
  snprintf(where, sizeof where, "shared 0x%x of CTA (%u,%u,%u)", m->off, c->ctaid[0], c->ctaid[1],
           c->ctaid[2]);
  plB_buf b;
  plB_buf_init(&b);
  if (m->phase != ph) { /* it completed without it */
    plB_buf_printf(&b,
                   "%s: the copy was issued in phase %u of the mbarrier at %s, but lands after "
                   "that phase completed: its %u transaction bytes count against phase %u. ",
                   op, ph, where, a->tx, m->phase);
    if (m->phase == ph + 1 && m->lxpc)
      plB_buf_printf(&b,
                     "Phase %u's expect_tx announced %u bytes (line %s) and its copies had "
                     "brought %u: the copies of a phase bring more bytes than its expect_tx counts "
                     "(a box or size larger than the tile, a copy too many)",
                     ph, m->lxsum, line_of(e, m->lxpc - 1), m->lgot);
    else if (m->phase == ph + 1)
      plB_buf_printf(&b,
                     "Phase %u completed with no expect_tx announcing these bytes (its copies "
                     "had brought %u): arrive with mbarrier.arrive.expect_tx for the bytes the "
                     "phase's copies bring",
                     ph, m->lgot);
    else
      plB_buf_printf(&b, "%u phases completed since it was issued", m->phase - ph);
  } else if (m->pending == 0 && m->tx > 0 && (int64_t)a->tx > m->tx) { /* it ends mid-copy */
    plB_buf_printf(&b,
                   "%s: the copy completes %u transaction bytes on the mbarrier at %s, whose "
                   "phase %u has all its arrivals and expects only %d more (",
                   op, a->tx, where, m->phase, m->tx);
    if (m->xpc)
      plB_buf_printf(&b, "its expect_tx announced %u bytes, line %s", m->xsum,
                     line_of(e, m->xpc - 1));
    else
      plB_buf_puts(&b, "no expect_tx in this phase");
    plB_buf_printf(&b,
                   "; its copies brought %u before this one): the phase completes before the "
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
      if (plX__exited(e, e->xf.code[a->pc].stmt, c, a->lo, a->tid, "lands in")) {
        err = 1;
        break;
      } /* (its issuer's CTA: e->C) */
      if (c->h.rd.n &&
          plX__hop_wg_clobber(e, e->xf.code[a->pc].stmt, c, a->lo, a->n, (int)(a->tid / 32),
                              plX__opname(e, e->xf.code[a->pc].stmt))) {
        err = 1;
        break;
      }
      int es = a->red >= 0 ? plX__h_tm_esize(a->rdt) : 1;
      /* a copy (no reduction): each run of valid bytes at once */
      for (uint32_t j = 0; a->red < 0 && j < a->n;) {
        if (a->valid && !a->valid[j]) {
          j++;
          continue;
        }
        uint32_t k = j + 1, o = a->lo + j;
        if (!a->valid)
          k = a->n;
        else {
          for (uint64_t v8; k + 8 <= a->n; k += 8) { /* (eight valid bytes a step) */
            memcpy(&v8, a->valid + k, 8);
            if (v8 != 0x0101010101010101ull) break;
          }
          while (k < a->n && a->valid[k]) k++;
        }
        memcpy(c->smem + o, a->data + j, k - j);
        if (c->smem_def) memset(c->smem_def + o, 1, k - j);
        if (c->h.pw) plX__h_land(&c->h, o, k - j, (uint8_t)(a->sw >= 0 ? a->sw + 1 : 0));
        j = k;
      }
      for (uint32_t j = 0; a->red >= 0 && j < a->n; j++) {
        if (a->valid && !a->valid[j]) continue;
        uint32_t o = a->lo + j;
        if (a->red >= 0 && j % (uint32_t)es == 0) { /* one element of a reduction */
          uint64_t old = 0, v = 0;
          memcpy(&old, c->smem + o, (size_t)es);
          memcpy(&v, a->data + j, (size_t)es);
          uint64_t rv = plX__h_red_apply(a->red, a->rdt, old, v);
          memcpy(a->data + j, &rv, (size_t)es);
        }
        c->smem[o] = a->data[j];
        if (c->smem_def) c->smem_def[o] = 1;
        if (c->h.pw) plX__h_land(&c->h, o, 1, (uint8_t)(a->sw >= 0 ? a->sw + 1 : 0));
      }
      if (a->mbar == X_NOSLOT) continue;
      if (a->bpar >= 0) c = &e->ctas[(r & ~1u) | (uint32_t)a->bpar]; /* cta_group::2 */
      plX_mbar *m = plX__h_mb_find(c, a->mbar);
      uint32_t stmt = e->xf.code[a->pc].stmt;
      if (!m || !m->valid) {
        plX__fail(e, stmt,
                  "%s: the mbarrier at shared 0x%x of CTA (%u,%u,%u) that it completes on is not "
                  "initialized",
                  plX__opname(e, stmt), a->mbar, c->ctaid[0], c->ctaid[1], c->ctaid[2]);
        err = 1;
        break;
      }
      if (tx_check(e, a, c, m, r))
        err = 1;
      else if (plX__h_mb_tx(e, stmt, c, m, -(int64_t)a->tx, plX__opname(e, stmt)))
        err = 1;
    }
  }
  for (uint32_t i = 0; i < H->q.n; i++) {
    free(H->q.p[i].data);
    free(H->q.p[i].valid);
  }
  H->q.n = 0;
  e->C = keep;
  return err ? -1 : 1;
}

/* a read of shared bytes [lo, hi) of CTA c by lane l of w (-1: the warp as a whole) of the
** executing CTA while a copy (TMA, bulk, multicast, a reduction) still writes some of them:
** issued and not yet seen to land by any mbarrier wait, it writes them at a moment the reader
** does not know -- a missing wait, a wait on the wrong phase parity, a stage read before its
** refill lands */
int plX__hop_inflight_read(plX_emu *e, const plX_ins *in, plX_warp *w, int l, const plX_cta *c,
                           uint32_t lo, uint32_t hi, const char *what) {
  for (uint32_t i = 0; i < e->H.q.n; i++) {
    const plX_async *a = &e->H.q.p[i];
    if (!(a->mask >> c->rank & 1) || hi <= a->lo || lo >= a->lo + a->n) continue;
    uint32_t from = lo > a->lo ? lo : a->lo, to = hi < a->lo + a->n ? hi : a->lo + a->n, b = from;
    if (a->valid)
      while (b < to && !a->valid[b - a->lo]) b++;
    if (b >= to) continue;
    const plX_cta *ic = &e->ctas[a->rank];
    char at[48] = "";
    if (c != e->C)
      snprintf(at, sizeof at, " of CTA (%u,%u,%u)", c->ctaid[0], c->ctaid[1], c->ctaid[2]);
    plB_buf m;
    plB_buf_init(&m);
    plB_buf_printf(&m, "%s reads shared byte 0x%x%s, which the %s of line %s (by ", what, b, at,
                   plX__opname(e, e->xf.code[a->pc].stmt), line_of(e, a->pc));
    whot(e, &m, e->H.ncl ? ic : e->C, a->tid);
    plB_buf_printf(&m,
                   ") is still writing: no wait on its mbarrier (shared 0x%x) has seen the copy "
                   "land -- a missing wait, a wait on "
                   "the wrong phase parity, or a stage read before its refill",
                   a->mbar);
    if (l < 0)
      plX__fail_warp(e, in, w, plB_buf_cstr(&m), 0);
    else
      plX__fail_lane(e, in, w, l, plB_buf_cstr(&m));
    plB_buf_free(&m);
    return e->status;
  }
  return 0;
}

/* the shared source [off, off + n) of a TMA or bulk copy out of CTA c's shared memory, read when
** issued: written for the async proxy (plX__h_proxy_read), and by no copy still in flight */
int plX__h_source_read(plX_emu *e, const plX_ins *in, plX_warp *w, int l, plX_cta *c, uint32_t off,
                       uint32_t n) {
  const char *what = plX__opname(e, in->stmt);
  return plX__h_proxy_read(e, in, w, l, c, off, n, -1, what) ||
         (e->H.q.n && plX__hop_inflight_read(e, in, w, l, c, off, off + n, what));
}
