/* race.c -- the races check (PLX_CHECK_RACES): shared memory between two barriers, global memory
** across warps and CTAs (the access events, each byte's last write, reads and atomics), and the
** reports it holds back (a CAS loop's seed load). */
#include "state.h"
#include "fail.h"
#include "mem.h"
#include "race.h"
#include "hooks.h"
#include "bwhooks.h"
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

static void who(plX_emu *e, plB_buf *b, uint32_t tid) {
  plX__who(e, b, e->C->ctaid, tid);
}

/* after a read of never-written shared memory: a cp.async still in flight to that byte is the
** likely cause (a missing or too-early cp.async.wait_group), so name it and its line */
static void pending_copy(plX_emu *e, plB_buf *b, uint32_t byte) {
  for (uint32_t t = 0; t < e->nthreads; t++) {
    const plX_cpq *q = &e->C->cpq[t];
    for (uint32_t j = q->head; j < q->q.n; j++) {
      const plX_cp *c = &q->q.p[j];
      if (byte < c->dst || byte - c->dst >= c->n) continue;
      plB_buf_printf(b, " (a cp.async of line %s by ", X_AT(e, e->xf.code[c->pc].stmt));
      who(e, b, t);
      plB_buf_puts(b, " writes it, still in flight: no cp.async.wait_group has covered its group)");
      return;
    }
  }
}

/* the races check holds back one report per thread (of the cluster: rank * nthreads + tid): that
** of a plain load of bytes another thread's unordered atomic wrote, when the atomics are its
** only conflict. The CUDA Programming Guide's CAS loop seeds its first atom.cas with such a load
** (`old = *addr; do { assumed = old; old = atomicCAS(addr, assumed, f(assumed)); } while
** (assumed != old)`): the value is a guess the CAS verifies, so an atom.cas by the thread on
** those bytes drops the report. The thread's exit, its barrier (bar, barrier.cluster, mbarrier
** wait), the end of its cluster's run or a second held-back report makes it, at the load's line,
** as it would have been made at once. cta: 0 global memory (lo, hi: addresses), else shared
** memory of the CTA of rank cta - 1 (offsets) */
struct plX_rpend {
  char *msg;
  uint32_t stmt, cta;
  uint64_t lo, hi;
};
typedef struct plX_rpend plX_rpend;

void plX__race_reset(plX_emu *e) {
  for (uint32_t i = 0; i < e->crpend; i++) {
    free(e->rpend[i].msg);
    e->rpend[i].msg = NULL;
  }
  e->nrpend = 0;
}

/* make the held-back report p */
static int rp_report(plX_emu *e, plX_rpend *p) {
  char *m = p->msg;
  p->msg = NULL;
  e->nrpend--;
  plX__optin(e, p->stmt, "%s", m);
  free(m);
  return e->status;
}

/* hold back the report m (taken) of a plain load by thread tid of e->C at stmt; a report held
** for the thread already is made instead (so is m itself when there is no room: out of memory,
** no races check) */
static int rp_hold(plX_emu *e, uint32_t tid, uint32_t stmt, uint32_t cta, uint64_t lo, uint64_t hi,
                   plB_buf *m) {
  size_t i = (size_t)e->C->rank * e->nthreads + tid;
  if (!e->rpend || i >= e->crpend || m->oom) {
    plX__optin(e, stmt, "%s", plB_buf_cstr(m));
    plB_buf_free(m);
    return e->status;
  }
  plX_rpend *p = &e->rpend[i];
  if (p->msg) {
    plB_buf_free(m);
    return rp_report(e, p);
  }
  plB_buf_cstr(m);
  p->msg = m->p;
  p->stmt = stmt;
  p->cta = cta;
  p->lo = lo;
  p->hi = hi;
  e->nrpend++;
  return 0;
}

/* an atom.cas by thread tid of e->C on [lo, hi) (cta as in plX_rpend): the report held for its
** seed load goes */
static void rp_cas(plX_emu *e, uint32_t tid, uint32_t cta, uint64_t lo, uint64_t hi) {
  size_t i = (size_t)e->C->rank * e->nthreads + tid;
  if (!e->nrpend || i >= e->crpend) return;
  plX_rpend *p = &e->rpend[i];
  if (p->msg && p->cta == cta && lo < p->hi && p->lo < hi) {
    free(p->msg);
    p->msg = NULL;
    e->nrpend--;
  }
}

int plX__race_hold_room(plX_emu *e, uint32_t nc) {
  if (e->crpend >= nc) return 0;
  free(e->rpend);
  e->crpend = 0;
  if (!(e->rpend = calloc(nc, sizeof *e->rpend))) return -1;
  e->crpend = nc;
  return 0;
}

int plX__race_held(plX_emu *e) {
  for (uint32_t i = 0; e->nrpend && i < e->crpend; i++)
    if (e->rpend[i].msg && rp_report(e, &e->rpend[i])) return e->status;
  return 0;
}

int plX__race_flush(plX_emu *e, const plX_warp *w, uint32_t lanes) {
  if (!e->nrpend) return 0;
  for (uint32_t m = lanes; m; m &= m - 1) {
    size_t i =
        (size_t)e->C->rank * e->nthreads + (uint32_t)w->idx * 32 + (uint32_t)__builtin_ctz(m);
    if (i < e->crpend && e->rpend[i].msg && rp_report(e, &e->rpend[i])) return e->status;
  }
  return 0;
}

static int is_cas(const plX_ins *in) {
  return in->op == X_ATOM && in->sub == XA_CAS;
}

/* the races check names a thread by its CTA's rank in the cluster and its thread: rank *
** nthreads + tid + 1 (0: none), so that an access through shared::cluster is compared with the
** target CTA's own */
static void who_rank(plX_emu *e, plB_buf *b, uint32_t id) {
  plX__who(e, b, e->ctas[(id - 1) / e->nthreads].ctaid, (id - 1) % e->nthreads);
}

/* the races check on the shared memory of CTA c (the executing one's, or through shared::cluster
** another's of the cluster): two threads of different warps touching the same byte, at least one
** writing, with no barrier between them (epochs count the target CTA's barriers and the
** cluster's). write: 0 a read, 1 a write, 2 an atomic. Atomics never race with each other, nor
** with a strong access (.volatile, .relaxed, .acquire, .release: the PTX memory model's morally
** strong pairs; a .cta one covers its own CTA's atomics only); with a plain (weak) access they
** race. Per byte and epoch, ids (rank * nthreads + tid + 1, below 2^14 + 2: 15 bits; X_RMANY:
** threads of two warps or more): race_w holds the last writer (bits 0-14), whether it was strong
** (X_RSTRONG) and the atomics (bits 16-30); race_r the first reader (bits 0-14), the weak
** readers (bits 15-29) and whether threads of two warps read it (X_RREADERS) */
#define X_RID      0x7fffu
#define X_RMANY    0x7fffu
#define X_RSTRONG  0x8000u
#define X_RREADERS 0x80000000u
static void race_msg(plX_emu *e, plB_buf *b, const plX_ins *in, plX_cta *c, uint32_t byte,
                     uint32_t tid, int write, uint32_t other, int otherk) {
  static const char *const now[] = { "reads", "writes", "updates" }, *const then[] = { "read",
                                                                                       "wrote",
                                                                                       "updated" };
  plB_buf_printf(b, "shared-memory race on byte 0x%x", byte);
  if (c != e->C) plB_buf_printf(b, " of CTA (%u,%u,%u)", c->ctaid[0], c->ctaid[1], c->ctaid[2]);
  plB_buf_printf(b, ": %s by ", plX__opname(e, in->stmt));
  who(e, b, tid);
  plB_buf_printf(b, " %s it%s", now[write], write == 2 ? " atomically" : "");
  if (other == X_RMANY)
    plB_buf_printf(b, " while threads of other warps %s it%s", otherk == 2 ? "update" : "read",
                   otherk == 2 ? " atomically" : "");
  else {
    plB_buf_printf(b, " after ");
    who_rank(e, b, other);
    plB_buf_printf(b, " %s it%s", then[otherk], otherk == 2 ? " atomically" : "");
  }
  plB_buf_puts(b, c != e->C || (other != X_RMANY && (other - 1) / e->nthreads != e->C->rank)
                      ? " with no barrier.cluster between"
                      : " with no barrier between");
  if (write == 2 || otherk == 2)
    plB_buf_puts(b, " (an atomic and a plain access race: only two atomics, or an atomic and a "
                    "strong access such as ld.volatile, do not)");
}
static void race_report(plX_emu *e, const plX_ins *in, plX_cta *c, uint32_t byte, uint32_t tid,
                        int write, uint32_t other, int otherk) {
  plB_buf b;
  plB_buf_init(&b);
  race_msg(e, &b, in, c, byte, tid, write, other, otherk);
  plX__optin(e, in->stmt, "%s", plB_buf_cstr(&b));
  plB_buf_free(&b);
}

void plX__race_check(plX_emu *e, const plX_ins *in, plX_cta *c, uint32_t off, uint32_t n,
                     uint32_t tid, int write) {
  uint32_t me = e->C->rank * e->nthreads + tid + 1;
  uint32_t sc = write < 2 ? (uint32_t)(in->gsync >> 1 & 3) : 0; /* a strong ld/st's scope */
#define X_SAMEWARP(id) \
  (((id)-1) / e->nthreads == e->C->rank && ((id)-1) % e->nthreads / 32 == tid / 32)
#define X_OTHER(id) ((id) == X_RMANY || ((id) && !X_SAMEWARP(id)))
  int cas = write == 2 && is_cas(in), held = 0;
  if (cas) rp_cas(e, tid, c->rank + 1, off, (uint64_t)off + n);
  for (uint32_t i = off; i < off + n; i++) {
    if (c->race_e[i] != c->epoch) {
      c->race_e[i] = c->epoch;
      c->race_w[i] = 0;
      c->race_r[i] = 0;
    }
    uint32_t w = c->race_w[i], r = c->race_r[i];
    uint32_t ow = w & X_RID, oa = w >> 16 & X_RID, orr = r & X_RID, owr = r >> 15 & X_RID;
    uint32_t other = 0;
    int otherk = 0;
    if (ow && !X_SAMEWARP(ow) && !(write == 2 && (w & X_RSTRONG))) {
      other = ow;
      otherk = 1;
    } else if (write == 1 && (r & X_RREADERS))
      other = X_RMANY;
    else if (write == 1 && orr && !X_SAMEWARP(orr))
      other = orr;
    else if (write == 2 && X_OTHER(owr))
      other = owr;
    else if (write < 2 && X_OTHER(oa) &&
             !(sc >= 2 || (sc == 1 && oa != X_RMANY && (oa - 1) / e->nthreads == e->C->rank))) {
      other = oa;
      otherk = 2;
    }
    /* a load after atomics only: held back (a CAS seed?) */
    if (other && write == 0 && otherk == 2) {
      if (!held) {
        plB_buf b;
        plB_buf_init(&b);
        race_msg(e, &b, in, c, i, tid, write, other, otherk);
        if (rp_hold(e, tid, in->stmt, c->rank + 1, off, (uint64_t)off + n, &b)) return;
        held = 1;
      }
      other = 0;
    }
    if (other) {
      race_report(e, in, c, i, tid, write, other, otherk);
      return;
    }
    if (write == 1)
      c->race_w[i] = (w & ~(X_RID | X_RSTRONG)) | me | (sc ? X_RSTRONG : 0);
    else if (write == 2) {
      if (!oa)
        c->race_w[i] = w | me << 16;
      else if (oa != me && oa != X_RMANY && !X_SAMEWARP(oa))
        c->race_w[i] = w | X_RMANY << 16;
      /* its own plain reads are forgotten: the CAS re-reads */
      if (cas) {
        if (owr == me) r &= ~(X_RID << 15);
        if (orr == me && !(r & X_RREADERS)) r &= ~X_RID;
        c->race_r[i] = r;
      }
    } else {
      if (!orr)
        r |= me;
      else if (orr != me && !X_SAMEWARP(orr))
        r |= X_RREADERS;
      if (!sc) {
        if (!owr)
          r |= me << 15;
        else if (owr != me && owr != X_RMANY && !X_SAMEWARP(owr))
          r |= X_RMANY << 15;
      }
      c->race_r[i] = r;
    }
  }
#undef X_OTHER
#undef X_SAMEWARP
}

/* opt-in checks of shared memory: bytes never written; two threads of different warps touching
** the same byte, at least one writing, with no barrier between them (epochs count barriers) */
void plX__shared_access(plX_emu *e, const plX_ins *in, uint32_t off, uint32_t n, uint32_t tid,
                        int write) {
  if (!write && e->H.q.n &&
      plX__hop_inflight_read(e, in, &e->C->warps[tid / 32], (int)(tid % 32), e->C, off, off + n,
                             plX__opname(e, in->stmt)))
    return;
  if (write && e->C->h.pw) plX__hop_generic_write(e, in, off, n, tid);
  if (write && e->C->h.rd.n &&
      plX__hop_wg_clobber(e, in->stmt, e->C, off, n, (int)(tid / 32), plX__opname(e, in->stmt)))
    return;
  if (write && e->C->bw &&
      plX__bw_smem_write(e, in->stmt, e->C, off, n, tid, plX__opname(e, in->stmt)))
    return;
  if (!(e->checks & (PLX_CHECK_UNINIT_SHARED | PLX_CHECK_RACES))) return;
  for (uint32_t i = off; i < off + n; i++) {
    if ((e->checks & PLX_CHECK_UNINIT_SHARED) && !write && !e->C->smem_def[i]) {
      plB_buf b;
      plB_buf_init(&b);
      plB_buf_printf(&b, "%s by ", plX__opname(e, in->stmt));
      who(e, &b, tid);
      plB_buf_printf(&b, " reads shared byte 0x%x, which no thread has written", i);
      pending_copy(e, &b, i);
      plX__optin(e, in->stmt, "%s", plB_buf_cstr(&b));
      plB_buf_free(&b);
      return;
    }
    if (write && e->C->smem_def) e->C->smem_def[i] = 1;
  }
  if (e->checks & PLX_CHECK_RACES) plX__race_check(e, in, e->C, off, n, tid, write);
}

/* the races check on global memory. A launch's CTAs run one cluster after another here, in any
** order on a GPU, so two accesses of one byte by two CTAs, at least one a write, race unless
** something orders them: in one cluster, a barrier, mbarrier phase or barrier.cluster completed
** between them (any of the cluster: lenient); in two clusters, a fence, an atomic or a strong
** (.volatile/.relaxed/.acquire/.release) access of global memory by the first access's CTA after
** it and one by the second's CTA before it (any such, at any time: lenient; the handshake of a
** split-K or a last-block reduction). Two threads of one warp are never reported against each
** other. Atomics (and the async proxy's reductions, cp.reduce.async.bulk: each element a
** .relaxed.gpu atomic) never race with each other, nor with a strong access whose scope covers
** both threads (the PTX memory model: both morally strong); with a plain (weak) access they race
** as two plain accesses do, an atomic ordering itself after it (it is its own release: only the
** second CTA's fence, atomic or strong access before its access is asked for; and an atomic
** second does not count itself). Each byte remembers its last plain write (plX_gw), the plain
** reads since (plX_gr) and its latest atomics (plX_ga): a read is checked against the write and
** the atomics, a write against the write, the reads and the atomics, an atomic against the write
** and the reads. TMA and bulk loads read as their issuing thread; TMA and bulk stores write as
** theirs. */
static void who_cta(plX_emu *e, plB_buf *b, uint32_t cta, uint32_t tid) {
  const uint32_t id[3] = { cta % e->grid[0], cta / e->grid[0] % e->grid[1],
                           (uint32_t)(cta / ((uint64_t)e->grid[0] * e->grid[1])) };
  plX__who(e, b, id, tid);
}

/* the event of an access by thread tid of the executing CTA at stmt now (pending: a bulk store's;
** strong: a strong ld/st's scope), the thread's last one when nothing changed since; X_NOSLOT when
** out of memory */
static uint32_t g_event(plX_emu *e, uint32_t tid, uint32_t stmt, int pending, uint32_t strong) {
  uint32_t me = (uint32_t)e->C->cta_linear, gs = pending ? XGW_PENDING : e->gsync[me];
  uint32_t *c = &e->gevc[(size_t)e->C->rank * e->nthreads + tid];
  if (*c < e->ngev) {
    const plX_gev *v = &e->gev[*c];
    if (v->stmt == stmt && v->bars == e->gbars && v->gsync == gs && v->cta == me &&
        v->clser == e->clser && v->tid == tid && v->strong == strong)
      return *c;
  }
  if (e->ngev == e->cgev) {
    uint32_t nc = e->cgev ? e->cgev * 2 : 4096;
    plX_gev *p = nc > e->cgev && nc < X_NOSLOT ? realloc(e->gev, (size_t)nc * sizeof *p) : NULL;
    if (!p) return X_NOSLOT;
    e->gev = p;
    e->cgev = nc;
  }
  plX_gev *v = &e->gev[e->ngev];
  v->cta = me;
  v->stmt = stmt;
  v->clser = e->clser;
  v->bars = e->gbars;
  v->gsync = gs;
  v->tid = (uint16_t)tid;
  v->strong = (uint16_t)strong;
  return *c = e->ngev++;
}

/* is an access by thread tid of the executing CTA (me) ordered after the access v? */
static int g_ordered(const plX_emu *e, const plX_gev *v, uint32_t me, uint32_t tid) {
  int same_cta = v->cta == me && v->clser == e->clser;
  /* (a load of a store in flight: plX__hop_gload) */
  if (same_cta && v->tid / 32u == tid / 32) return 1;
  /* a bulk store no wait_group has completed */
  if (v->gsync == XGW_PENDING) return 0;
  if (v->clser == e->clser && v->bars != e->gbars) return 1;
  return !same_cta && e->gsync[v->cta] > v->gsync && e->gsync[me] > 0;
}

/* does a strong access of scope s by a thread of CTA (cta, clser) cover a thread of CTA (cta2,
** clser2)? */
static int g_covers(uint32_t s, uint32_t cta, uint32_t clser, uint32_t cta2, uint32_t clser2) {
  return s == 3 || (s == 2 && clser == clser2) || (s == 1 && clser == clser2 && cta == cta2);
}

/* the kinds of access a race names */
enum { GK_READ, GK_WRITE, GK_ATOMIC };

/* why the earlier access v (of kind vk) is not ordered before the executing one (of kind k) */
static const char *g_why(const plX_emu *e, const plX_gev *v, uint32_t me, int vk, int k) {
  if (v->gsync == XGW_PENDING)
    return "a TMA or bulk store is ordered with other threads only once a cp.async.bulk.wait_group "
           "(not .read) "
           "has completed its bulk group, then a barrier, or a fence or atomic";
  int atomic = vk == GK_ATOMIC || k == GK_ATOMIC;
  if (v->cta == me && v->clser == e->clser)
    return atomic ? "no barrier completed between them (an atomic and a plain access race: only "
                    "two atomics, or an atomic "
                    "and a strong access such as ld.relaxed.gpu, do not)"
                  : "no barrier completed between them";
  if (v->clser == e->clser)
    return atomic ? "no barrier, mbarrier phase or barrier.cluster completed between them (an "
                    "atomic and a plain access "
                    "race: only two atomics, or an atomic and a strong access such as "
                    "ld.relaxed.gpu, do not)"
                  : "no barrier, mbarrier phase or barrier.cluster completed between them";
  if (vk == GK_ATOMIC)
    return "two CTAs of other clusters run in any order (a fence, atomic or strong access by the "
           "second CTA before its access "
           "orders it after the atomic; an atomic and a plain access race: a strong access such as "
           "ld.relaxed.gpu or "
           "ld.acquire.gpu would not)";
  if (k == GK_ATOMIC)
    return vk == GK_WRITE
               ? "two CTAs of other clusters run in any order (a fence or atomic by the writer "
                 "after its store and one "
                 "by the atomic's CTA before the atomic, not the atomic itself, order them)"
               : "two CTAs of other clusters run in any order (a fence or atomic by the reader's "
                 "CTA after its load and "
                 "one by the atomic's CTA before the atomic, not the atomic itself, order them)";
  return vk == GK_WRITE
             ? "two CTAs of other clusters run in any order (a fence or atomic by the writer after "
               "its store and one by the other before its access order them)"
             : "two CTAs of other clusters run in any order (a fence or atomic by the reader's CTA "
               "after its load and one by the writer's before its store order them)";
}

/* the executing access (of kind k) of byte i of b races with the access v (of kind vk) */
static void g_msg(plX_emu *e, plB_buf *m, const plX_ins *in, const plX_buf *b, uint64_t i,
                  uint32_t tid, int k, const plX_gev *v, int vk) {
  static const char *const now[] = { "reads", "writes", "updates" }, *const then[] = { "read",
                                                                                       "wrote",
                                                                                       "updated" };
  uint32_t me = (uint32_t)e->C->cta_linear;
  plB_buf_printf(m, "global-memory race on byte %llu of buffer '%s' (address 0x%llx): %s by ",
                 (unsigned long long)i, b->name ? b->name : "?", (unsigned long long)(b->addr + i),
                 plX__opname(e, in->stmt));
  who(e, m, tid);
  plB_buf_printf(m, " %s it%s after ", now[k], k == GK_ATOMIC ? " atomically" : "");
  who_cta(e, m, v->cta, v->tid);
  plB_buf_printf(m, " %s it%s (line %s) with nothing ordering the two: %s", then[vk],
                 vk == GK_ATOMIC ? " atomically" : "", X_AT(e, v->stmt), g_why(e, v, me, vk, k));
}
static int g_race(plX_emu *e, const plX_ins *in, const plX_buf *b, uint64_t i, uint32_t tid, int k,
                  const plX_gev *v, int vk) {
  plB_buf m;
  plB_buf_init(&m);
  g_msg(e, &m, in, b, i, tid, k, v, vk);
  plX__optin(e, in->stmt, "%s", plB_buf_cstr(&m));
  plB_buf_free(&m);
  return e->status;
}

/* the async proxy's read (a TMA or bulk load) of byte i of b, which a generic store (v) wrote
** with no fence.proxy.async covering global memory after it: by the writer's CTA after the
** store, or (another CTA's store) by the reader's CTA before this load (lenient: any thread of
** the CTA, at any time) */
static int g_proxy(plX_emu *e, const plX_ins *in, const plX_buf *b, uint64_t i, uint32_t tid,
                   const plX_gev *v, int same_cta) {
  plB_buf m;
  plB_buf_init(&m);
  plB_buf_printf(&m, "%s by ", plX__opname(e, in->stmt));
  who(e, &m, tid);
  plB_buf_printf(
      &m, " reads byte %llu of buffer '%s' (address 0x%llx) through the async proxy, written by ",
      (unsigned long long)i, b->name ? b->name : "?", (unsigned long long)(b->addr + i));
  who_cta(e, &m, v->cta, v->tid);
  plB_buf_printf(&m,
                 " with an ordinary store (line %s) and no fence.proxy.async (.global, or no state "
                 "space) %s: the async proxy "
                 "may not see it",
                 X_AT(e, v->stmt),
                 same_cta ? "by that CTA between the two" : "by either CTA since");
  plX__optin(e, in->stmt, "%s", plB_buf_cstr(&m));
  plB_buf_free(&m);
  return e->status;
}

/* record the read ev (by thread tid of the executing CTA, me) of the byte q describes */
static void g_read(plX_emu *e, plX_gr *q, uint32_t gen, uint32_t me, uint32_t tid, uint32_t ev) {
  if (q->gen != gen) {
    q->gen = gen;
    q->fl = 0;
  } else if (q->r == ev)
    return;
  /* its cluster run ended: its CTAs' counts are final */
  else if (q->clser != e->clser) {
    const plX_gev *r = &e->gev[q->r], *r2 = (q->fl & XGR_R2) ? &e->gev[q->r2] : NULL;
    int rel1 = e->gsync[r->cta] > r->gsync, rel2 = !r2 || e->gsync[r2->cta] > r2->gsync;
    /* an unordered one stays */
    if (!(q->fl & XGR_O) || ((q->fl & XGR_OREL) && !(rel1 && rel2))) {
      q->o = rel1 && !rel2 ? q->r2 : q->r;
      q->fl = (q->fl & ~(uint32_t)XGR_OREL) | XGR_O | (rel1 && rel2 ? XGR_OREL : 0);
    }
    q->fl &= ~(uint32_t)XGR_R2;
  } else {
    const plX_gev *r = &e->gev[q->r];
    if (r->cta == me && r->tid / 32u == tid / 32) {
      q->r = ev;
      return;
    } /* the same warp again: the latest moves */
    /* another warp: the latest becomes the second */
    q->r2 = q->r;
    q->fl |= XGR_R2;
  }
  q->r = ev;
  q->clser = e->clser;
}

/* the atomics recorded for a byte (ga), checked against a plain access by thread tid of the
** executing CTA (me), of strong scope sc: the one it races with, or NULL */
static const plX_gev *g_atomics(plX_emu *e, const plX_ga *ga, uint32_t me, uint32_t tid,
                                uint32_t sc) {
  for (int j = 0; j < 2; j++) {
    uint32_t a = j ? ga->a2 : ga->a;
    if (a == X_NOSLOT) continue;
    const plX_gev *v = &e->gev[a];
    if (!g_ordered(e, v, me, tid) && !g_covers(sc, me, e->clser, v->cta, v->clser)) return v;
  }
  return NULL;
}

/* an atom.cas by thread tid of the executing CTA (me) of the byte q describes: its own plain
** read of it is forgotten (the CAS re-reads it atomically; the CAS loop's seed load) */
static void g_forget(plX_emu *e, plX_gr *q, uint32_t gen, uint32_t me, uint32_t tid) {
#define X_MINE(ev) (e->gev[ev].cta == me && e->gev[ev].clser == e->clser && e->gev[ev].tid == tid)
  if (!q || q->gen != gen) return;
  if ((q->fl & XGR_R2) && X_MINE(q->r2)) q->fl &= ~(uint32_t)XGR_R2;
  if (!X_MINE(q->r)) return;
  if (q->fl & XGR_R2) {
    q->r = q->r2;
    q->fl &= ~(uint32_t)XGR_R2;
  } else if (q->fl & XGR_O) {
    q->r = q->o;
    q->clser = e->gev[q->o].clser;
  } /* o stands for the latest too */
  else
    q->gen = 0;
#undef X_MINE
}

/* record the atomic ev (by thread tid of the executing CTA, me) of the byte ga describes */
static void g_atomic(plX_emu *e, plX_ga *ga, uint32_t gen, uint32_t me, uint32_t tid, uint32_t ev) {
  if (ga->gen != gen) {
    ga->gen = gen;
    ga->a = ev;
    ga->a2 = X_NOSLOT;
    return;
  }
  if (ga->a == ev) return;
  const plX_gev *v = &e->gev[ga->a];
  /* another warp's: the second */
  if (!(v->cta == me && v->clser == e->clser && v->tid / 32u == tid / 32)) ga->a2 = ga->a;
  ga->a = ev;
}

/* is the recorded plain access v a strong one covering the executing atomic's thread? */
static int g_strong(const plX_emu *e, const plX_gev *v, uint32_t me) {
  return g_covers(v->strong, v->cta, v->clser, me, e->clser);
}

int plX__global_access(plX_emu *e, const plX_ins *in, plX_buf *b, uint64_t o, uint32_t n,
                       uint32_t tid, int write) {
  /* constant memory: never written */
  if (b->ro) return 0;
  int async = write == 3, aread = write == 5, atomic = write == 2;
  uint32_t sc = write < 2 ? (uint32_t)(in->gsync >> 1 & 3) : 0; /* a strong ld/st's scope */
  int k = atomic ? GK_ATOMIC : write == 1 || async ? GK_WRITE : GK_READ;
  write = k != GK_READ;
  /* made at the first write, read or atomic */
  if (atomic ? !b->ga : write ? !b->gw : !b->gr) {
    void *p = atomic  ? (void *)(b->ga = calloc((size_t)b->size, sizeof *b->ga))
              : write ? (void *)(b->gw = calloc((size_t)b->size, sizeof *b->gw))
                      : (void *)(b->gr = calloc((size_t)b->size, sizeof *b->gr));
    if (!p) return plX__fail(e, in->stmt, "out of memory (the races check on global memory)");
  }
  uint32_t gen = e->mem->gwgen, me = (uint32_t)e->C->cta_linear;
  uint32_t ev = g_event(e, tid, in->stmt, async, sc);
  if (ev == X_NOSLOT)
    return plX__fail(e, in->stmt, "out of memory (the races check on global memory)");
  int cas = atomic && is_cas(in), held = 0;
  if (cas) rp_cas(e, tid, 0, b->addr + o, b->addr + o + n);
  for (uint64_t i = o; i < o + n; i++) {
    plX_gw *r = b->gw ? &b->gw[i] : NULL;
    if (r && r->gen == gen) {
      const plX_gev *v = &e->gev[r->ev];
      if (!g_ordered(e, v, me, tid) && !(atomic && g_strong(e, v, me)))
        return g_race(e, in, b, i, tid, k, v, GK_WRITE);
      int same_cta = v->cta == me && v->clser == e->clser;
      if (aread && r->pf != XGW_ASYNC && e->gpf[v->cta] == r->pf && (same_cta || !e->gpf[me]))
        return g_proxy(e, in, b, i, tid, v, same_cta);
    }
    plX_ga *ga = b->ga ? &b->ga[i] : NULL;
    const plX_gev *va = !atomic && ga && ga->gen == gen ? g_atomics(e, ga, me, tid, sc) : NULL;
    /* a load after atomics only: held back (a CAS seed?) */
    if (va && k == GK_READ && !aread) {
      if (!held) {
        plB_buf m;
        plB_buf_init(&m);
        g_msg(e, &m, in, b, i, tid, k, va, GK_ATOMIC);
        if (rp_hold(e, tid, in->stmt, 0, b->addr + o, b->addr + o + n, &m)) return e->status;
        held = 1;
      }
    } else if (va)
      return g_race(e, in, b, i, tid, k, va, GK_ATOMIC);
    plX_gr *q = b->gr ? &b->gr[i] : NULL;
    if (!write) {
      g_read(e, q, gen, me, tid, ev);
      continue;
    }
    /* write (or atomic) after read */
    if (q && q->gen == gen) {
      const plX_gev *v = &e->gev[q->r];
      if (!g_ordered(e, v, me, tid) && !(atomic && g_strong(e, v, me)))
        return g_race(e, in, b, i, tid, k, v, GK_READ);
      if ((q->fl & XGR_R2) && !g_ordered(e, v = &e->gev[q->r2], me, tid) &&
          !(atomic && g_strong(e, v, me)))
        return g_race(e, in, b, i, tid, k, v, GK_READ);
      if ((q->fl & XGR_O) && !((q->fl & XGR_OREL) && e->gsync[me] > 0) &&
          !(atomic && g_strong(e, &e->gev[q->o], me)))
        return g_race(e, in, b, i, tid, k, &e->gev[q->o], GK_READ);
      /* ordered before this write: forgotten */
      if (!atomic) q->gen = 0;
    }
    if (cas) g_forget(e, q, gen, me, tid);
    if (atomic) {
      g_atomic(e, ga, gen, me, tid, ev);
      continue;
    }
    r->gen = gen;
    r->ev = ev;
    r->pf = async ? XGW_ASYNC : e->gpf[me];
  }
  return 0;
}

/* a bulk store of the executing CTA to global [lo, hi) completed (a wait_group without .read): its
** bytes are ordered as a plain store made now would be */
void plX__global_done(plX_emu *e, uint64_t lo, uint64_t hi) {
  int32_t cache = -1;
  plX_buf *b = lo < hi ? plX__find(e->mem, lo, &cache) : NULL;
  if (!b || !b->gw) return;
  uint32_t gen = e->mem->gwgen, me = (uint32_t)e->C->cta_linear, from = X_NOSLOT, to = X_NOSLOT;
  uint64_t end = hi - b->addr < b->size ? hi - b->addr : b->size;
  for (uint64_t i = lo - b->addr; i < end; i++) {
    plX_gw *r = &b->gw[i];
    if (r->gen != gen) continue;
    if (r->ev != from) {
      const plX_gev *v = &e->gev[r->ev];
      if (v->cta != me || v->clser != e->clser || v->gsync != XGW_PENDING) continue;
      uint32_t nv = g_event(e, v->tid, v->stmt, 0, 0);
      /* out of memory: stays pending (a report, not a crash) */
      if (nv == X_NOSLOT) return;
      from = r->ev;
      to = nv;
    }
    r->ev = to;
  }
}
