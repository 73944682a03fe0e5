/* blackwell/tmem.c -- tensor memory: its state per CTA, tcgen05.alloc / dealloc /
** relinquish_alloc_permit, tcgen05.ld / st and their waits, the fences, and the completion
** knowledge that travels through mbarrier phases and barriers (blackwell.h). */
#include "state.h"
#include "fail.h"
#include "race.h"
#include "exec.h"
#include "hopper.h"
#include "bwhooks.h"
#include "blackwell.h"
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

/* "OPCODE in warp W of CTA (a,b,c): message" */
static int wfail(plX_emu *e, const plX_ins *in, plX_warp *w, const char *fmt, ...) {
  char m[1024];
  va_list ap;
  va_start(ap, fmt);
  vsnprintf(m, sizeof m, fmt, ap);
  va_end(ap);
  return plX__fail_warp(e, in, w, m, 0);
}

static int uses_tcgen05(const plX_emu *e) {
  for (uint32_t i = 0; i < e->xf.ncode; i++)
    if (e->xf.code[i].op >= X_TCALLOC && e->xf.code[i].op <= X_TCCOMMIT) return 1;
  return 0;
}

void plX__bw_free(plX_cta *c) {
  plX_bw_cta *b = c->bw;
  if (!b) return;
  free(b->cell);
  free(b->tag);
  plB_vec_free(b->al);
  plB_vec_free(b->ops);
  plB_vec_free(b->rd);
  plB_vec_free(b->mk);
  plB_vec_free(b->kmv);
  free(b->ka);
  free(b->kf);
  free(b->kpc);
  free(b->seq);
  if (b->pld)
    for (uint32_t w = 0; w < b->nwarps; w++) {
      plB_vec_free(b->pld[w]);
      plB_vec_free(b->pst[w]);
    }
  free(b->pld);
  free(b->pst);
  free(b->coll);
  free(b->scr);
  free(b);
  c->bw = NULL;
}

int plX__bw_setup(plX_emu *e, plX_cta *c) {
  if (!uses_tcgen05(e)) {
    plX__bw_free(c);
    return 0;
  }
  uint32_t nslot = (e->H.ncl ? e->H.ncl : 1) * e->nwarps;
  if (c->bw && (c->bw->nwarps != e->nwarps || c->bw->nslot != nslot)) plX__bw_free(c);
  if (!c->bw) {
    plX_bw_cta *b = calloc(1, sizeof *b);
    if (!b) return plX__fail(e, X_NOSLOT, "out of memory (tensor memory)");
    c->bw = b;
    b->nwarps = e->nwarps;
    b->nslot = nslot;
    b->cell = malloc(sizeof(uint32_t) * BW_LANES * BW_COLS);
    b->tag = malloc(sizeof(uint32_t) * BW_LANES * BW_COLS);
    b->ka = malloc(sizeof(uint32_t) * e->nwarps * nslot);
    b->kf = malloc(sizeof(uint32_t) * e->nwarps * nslot);
    b->kpc = malloc(sizeof(uint32_t) * e->nwarps);
    b->seq = malloc(sizeof(uint32_t) * e->nwarps);
    b->pld = calloc(e->nwarps, sizeof *b->pld);
    b->pst = calloc(e->nwarps, sizeof *b->pst);
    if (!b->cell || !b->tag || !b->ka || !b->kf || !b->kpc || !b->seq || !b->pld || !b->pst)
      return plX__fail(e, X_NOSLOT, "out of memory (tensor memory)");
  }
  plX_bw_cta *b = c->bw;
  /* not zeroed on the hardware: the tags say nothing was written */
  memset(b->cell, 0, sizeof(uint32_t) * BW_LANES * BW_COLS);
  memset(b->tag, 0, sizeof(uint32_t) * BW_LANES * BW_COLS);
  memset(b->ka, 0, sizeof(uint32_t) * e->nwarps * nslot);
  memset(b->kf, 0, sizeof(uint32_t) * e->nwarps * nslot);
  memset(b->kpc, 0, sizeof(uint32_t) * e->nwarps);
  memset(b->seq, 0, sizeof(uint32_t) * e->nwarps);
  for (uint32_t w = 0; w < e->nwarps; w++) b->pld[w].n = b->pst[w].n = 0;
  b->al.n = b->ops.n = b->rd.n = b->mk.n = b->kmv.n = 0;
  b->relinq = b->last_n = 0;
  b->coll_pc = 0;
  return 0;
}

/* the async op's instruction, for messages */
static const char *op_word(const plX_emu *e, const plX_tcop *op) {
  return e->xf.code[op->pc].op == X_TCCP ? "tcgen05.cp" : "tcgen05.mma";
}
static const char *op_noun(const plX_emu *e, uint32_t pc) {
  return e->xf.code[pc].op == X_TCCP ? "copy" : "MMA";
}

const plX_tcop *plX__b_op(plX_emu *e, uint32_t tag, plX_cta **c) {
  uint32_t rank = (tag - 2) % 16, idx = (tag - 2) / 16;
  *c = e->H.ncl ? &e->ctas[rank] : e->C;
  return &(*c)->bw->ops.p[idx];
}

/* ---- completion knowledge
** ----------------------------------------------------------------------------------- */
static uint32_t slot_of(const plX_emu *e, uint32_t rank, uint32_t warp) {
  return rank * e->nwarps + warp;
}

/* mbarrier m's record in c (made when create), its completed phases folded in */
static plX_tcmk *mk_get(plX_emu *e, plX_cta *c, const plX_mbar *m, int create) {
  plX_bw_cta *b = c->bw;
  plX_tcmk *k = NULL;
  for (uint32_t i = 0; i < b->mk.n && !k; i++)
    if (b->mk.p[i].off == m->off) k = &b->mk.p[i];
  if (!k) {
    if (!create) return NULL;
    uint32_t at = b->kmv.n, need = at + 2 * b->nslot;
    if (need > b->kmv.cap && !plB_vec_grow((void **)&b->kmv.p, &b->kmv.cap, need, sizeof(uint32_t)))
      return NULL;
    memset(b->kmv.p + at, 0, 2 * b->nslot * sizeof(uint32_t));
    b->kmv.n = need;
    plX_tcmk z = { m->off, m->phase, at };
    if (!plB_vec_push(b->mk, z)) return NULL;
    return &b->mk.p[b->mk.n - 1];
  }
  uint32_t *acc = b->kmv.p + k->at, *done = acc + b->nslot;
  (void)e;
  if (m->phase < k->phase) { /* initialized again */
    memset(acc, 0, 2 * b->nslot * sizeof(uint32_t));
    k->phase = m->phase;
  } else if (m->phase > k->phase) { /* the open phase completed */
    for (uint32_t j = 0; j < b->nslot; j++)
      if (acc[j] > done[j]) done[j] = acc[j];
    memset(acc, 0, b->nslot * sizeof(uint32_t));
    k->phase = m->phase;
  }
  return k;
}

void plX__b_give(plX_emu *e, plX_warp *w, plX_cta *c, const plX_mbar *m, uint32_t own) {
  if (!c->bw || !e->C->bw) return;
  plX_tcmk *k = mk_get(e, c, m, 1);
  if (!k) return; /* out of memory: the knowledge is lost (later reports may be spurious) */
  uint32_t *acc = c->bw->kmv.p + k->at, n = c->bw->nslot;
  const uint32_t *ka = e->C->bw->ka + (size_t)w->idx * n;
  for (uint32_t j = 0; j < n; j++)
    if (ka[j] > acc[j]) acc[j] = ka[j];
  uint32_t s = slot_of(e, e->C->rank, (uint32_t)w->idx);
  if (own > acc[s]) acc[s] = own;
}

void plX__bw_arrive(plX_emu *e, plX_warp *w, plX_cta *c, const plX_mbar *m) {
  plX__b_give(e, w, c, m, 0);
}

void plX__bw_acquire(plX_emu *e, plX_warp *w, plX_cta *c, const plX_mbar *m, uint32_t pc) {
  if (!c->bw || c != e->C) return;
  plX_tcmk *k = mk_get(e, c, m, 0);
  if (!k) return;
  plX_bw_cta *b = c->bw;
  const uint32_t *done = b->kmv.p + k->at + b->nslot;
  uint32_t *ka = b->ka + (size_t)w->idx * b->nslot;
  for (uint32_t j = 0; j < b->nslot; j++)
    if (done[j] > ka[j]) {
      ka[j] = done[j];
      b->kpc[w->idx] = pc + 1;
    }
}

/* every warp of the CTAs in [r0, r1) learns what any of them acquired */
static void share(plX_emu *e, uint32_t r0, uint32_t r1) {
  uint32_t n = 0;
  for (uint32_t r = r0; r < r1; r++) {
    plX_cta *c = e->H.ncl ? &e->ctas[r] : e->C;
    if (c->bw) n = c->bw->nslot;
  }
  if (!n) return;
  uint32_t *mx = calloc(n, sizeof *mx);
  if (!mx) return;
  for (int pass = 0; pass < 2; pass++)
    for (uint32_t r = r0; r < r1; r++) {
      plX_cta *c = e->H.ncl ? &e->ctas[r] : e->C;
      if (!c->bw) continue;
      for (uint32_t w = 0; w < e->nwarps; w++) {
        uint32_t *ka = c->bw->ka + (size_t)w * n;
        for (uint32_t j = 0; j < n; j++)
          if (pass == 0 && ka[j] > mx[j])
            mx[j] = ka[j];
          else if (pass == 1)
            ka[j] = mx[j];
      }
    }
  free(mx);
}

void plX__bw_bar_sync(plX_emu *e, plX_cta *c) {
  if (e->H.ncl) {
    share(e, c->rank, c->rank + 1);
  } else
    share(e, 0, 1);
}

void plX__bw_cluster_sync(plX_emu *e) {
  share(e, 0, e->H.ncl ? e->H.ncl : 1);
}

/* ---- reading and writing cells
** ------------------------------------------------------------------------------ */
static int overlaps(const plX_tcpend *p, uint32_t l0, uint32_t l1, uint32_t c0, uint32_t c1) {
  return p->l0 < l1 && l0 < p->l1 && p->c0 < c1 && c0 < p->c1;
}

/* the verdict on a tag for a read by thread l of warp w (what plX__b_read_cells says of it): 0
** fine, 1 never written (uninit), 2 not known complete, 3 known complete but not fenced since */
static int tag_verdict(plX_emu *e, plX_warp *w, int l, uint32_t t, int own, int uninit,
                       const plX_tcop **opp, plX_cta **ocp) {
  if (t == 0) return uninit ? 1 : 0;
  if (t == 1) return 0;
  plX_bw_cta *me = e->C->bw;
  plX_cta *oc;
  const plX_tcop *op = plX__b_op(e, t, &oc);
  *opp = op;
  *ocp = oc;
  if (own && oc == e->C && op->warp == (uint32_t)w->idx && op->lane == (uint32_t)l)
    return 0; /* its own thread's: the pipeline orders them */
  size_t k = (size_t)w->idx * me->nslot + slot_of(e, oc->rank, op->warp);
  if (me->kf[k] >= op->seq) return 0;
  return me->ka[k] >= op->seq ? 3 : 2;
}

int plX__b_tag_fine(plX_emu *e, plX_warp *w, int l, uint32_t t, int own, int uninit) {
  const plX_tcop *op;
  plX_cta *oc;
  return tag_verdict(e, w, l, t, own, uninit, &op, &oc) == 0;
}

int plX__b_read_cells(plX_emu *e, plX_ins *in, plX_warp *w, int l, plX_cta *c, uint32_t l0,
                      uint32_t l1, uint32_t c0, uint32_t c1, int own, int uninit,
                      const char *what) {
  plX_bw_cta *b = c->bw, *me = e->C->bw;
  /* the cells in order, lane by lane: the first one whose tag is not fine is reported. A tag's
  ** verdict depends on the tag only, so runs of the last fine tag are skipped unjudged */
  uint32_t fine = 0;
  int have = 0;
  for (uint32_t ln = l0; ln < l1; ln++) {
    const uint32_t *row = b->tag + (size_t)ln * BW_COLS;
    uint32_t cl = c0;
    while (cl < c1) {
      if (have) {
        cl = bw_skip_eq(row, cl, c1, fine);
        if (cl == c1) break;
      }
      uint32_t t = row[cl];
      const plX_tcop *op = NULL;
      plX_cta *oc = NULL;
      int v = tag_verdict(e, w, l, t, own, uninit, &op, &oc);
      if (v == 0) {
        fine = t;
        have = 1;
        cl++;
        continue;
      }
      if (v == 1)
        return wfail(e, in, w,
                     "%s reads tensor memory lane %u, column %u of CTA (%u,%u,%u), which nothing "
                     "has written (tensor memory is not zeroed)",
                     what, ln, cl, c->ctaid[0], c->ctaid[1], c->ctaid[2]);
      if (v == 3)
        return wfail(e, in, w,
                     "%s reads tensor memory lane %u, column %u, written by the %s of line %s "
                     "(warp %u of CTA (%u,%u,%u)): the wait at line %s orders it after that %s's "
                     "commit, but no tcgen05.fence::after_thread_sync came since (the tcgen05 "
                     "instructions after a thread synchronization need one)",
                     what, ln, cl, op_word(e, op), line_of(e, op->pc), op->warp, oc->ctaid[0],
                     oc->ctaid[1], oc->ctaid[2],
                     me->kpc[w->idx] ? line_of(e, me->kpc[w->idx] - 1) : "?", op_noun(e, op->pc));
      return wfail(e, in, w,
                   "%s reads tensor memory lane %u, column %u, written by the %s of line %s (warp "
                   "%u of CTA (%u,%u,%u)), whose completion this warp does not know: wait on the "
                   "mbarrier a tcgen05.commit after that %s arrives on (then "
                   "tcgen05.fence::after_thread_sync) before reading its result",
                   what, ln, cl, op_word(e, op), line_of(e, op->pc), op->warp, oc->ctaid[0],
                   oc->ctaid[1], oc->ctaid[2], op_noun(e, op->pc));
    }
  }
  return plX__b_read_pending_st(e, in, w, c, l0, l1, c0, c1, what);
}

int plX__b_read_pending_st(plX_emu *e, plX_ins *in, plX_warp *w, plX_cta *c, uint32_t l0,
                           uint32_t l1, uint32_t c0, uint32_t c1, const char *what) {
  plX_bw_cta *b = c->bw;
  /* a tcgen05.st of another warp not waited for: the hand-off needs wait::st first */
  for (uint32_t x = 0; x < e->nwarps; x++) {
    if (c == e->C && x == (uint32_t)w->idx) continue;
    for (uint32_t i = 0; i < b->pst[x].n; i++) {
      const plX_tcpend *p = &b->pst[x].p[i];
      if (!overlaps(p, l0, l1, c0, c1)) continue;
      return wfail(e, in, w,
                   "%s reads tensor memory lanes %u-%u, columns %u-%u, which the tcgen05.st of "
                   "line %s (warp %u) writes: that warp has not waited for it (tcgen05.wait::st "
                   "before the fence::before_thread_sync and the hand-off)",
                   what, p->l0, p->l1 - 1, p->c0, p->c1 - 1, line_of(e, p->pc), x);
    }
  }
  return 0;
}

int plX__b_write_cells(plX_emu *e, plX_ins *in, plX_warp *w, plX_cta *c, uint32_t l0, uint32_t l1,
                       uint32_t c0, uint32_t c1, const char *what) {
  plX_bw_cta *b = c->bw;
  for (uint32_t x = 0; x < e->nwarps; x++)
    for (uint32_t i = 0; i < b->pld[x].n; i++) {
      const plX_tcpend *p = &b->pld[x].p[i];
      if (!overlaps(p, l0, l1, c0, c1)) continue;
      return wfail(e, in, w,
                   "%s writes tensor memory lanes %u-%u, columns %u-%u of CTA (%u,%u,%u), which "
                   "the tcgen05.ld of line %s (warp %u) still reads: that warp has not waited for "
                   "it (tcgen05.wait::ld before the fence::before_thread_sync and the arrive that "
                   "hands the cells back)",
                   what, p->l0, p->l1 - 1, p->c0, p->c1 - 1, c->ctaid[0], c->ctaid[1], c->ctaid[2],
                   line_of(e, p->pc), x);
    }
  return 0;
}

int plX__b_in_alloc(plX_emu *e, plX_ins *in, plX_warp *w, int l, plX_cta *c, uint32_t c0,
                    uint32_t c1, const char *what) {
  (void)l;
  const plX_bw_cta *b = c->bw;
  for (uint32_t i = 0; i < b->al.n; i++)
    if (c0 >= b->al.p[i].col && c1 <= b->al.p[i].col + b->al.p[i].n) return 0;
  plB_buf m;
  plB_buf_init(&m);
  plB_buf_printf(&m, "%s columns %u-%u of CTA (%u,%u,%u) are not inside one allocation", what, c0,
                 c1 - 1, c->ctaid[0], c->ctaid[1], c->ctaid[2]);
  if (!b->al.n) plB_buf_puts(&m, " (none is live)");
  for (uint32_t i = 0; i < b->al.n; i++)
    plB_buf_printf(&m, "%s columns %u-%u (line %s)", i ? "," : " (allocated:", b->al.p[i].col,
                   b->al.p[i].col + b->al.p[i].n - 1, line_of(e, b->al.p[i].pc));
  if (b->al.n) plB_buf_putc(&m, ')');
  plX__fail_warp(e, in, w, plB_buf_cstr(&m), 0);
  plB_buf_free(&m);
  return e->status;
}

/* ---- alloc, dealloc, relinquish_alloc_permit
** ---------------------------------------------------------------- */
/* the same value in every lane */
static int uniform(plX_emu *e, plX_ins *in, plX_warp *w, uint32_t slot, uint64_t *v,
                   const char *what) {
  const uint64_t *R = wslot(w, slot);
  for (int l = 1; l < 32; l++)
    if ((uint32_t)R[l] != (uint32_t)R[0])
      return wfail(e, in, w, "the lanes give different %s (0x%x in lane 0, 0x%x in lane %d)", what,
                   (uint32_t)R[0], (uint32_t)R[l], l);
  *v = R[0];
  return 0;
}

static int exec_alloc(plX_emu *e, plX_warp *w, plX_ins *in) {
  plX_bw_cta *b = e->C->bw;
  uint64_t nv = 0;
  if (uniform(e, in, w, in->b, &nv, "nCols")) return e->status;
  uint32_t n = (uint32_t)nv;
  if (in->rnd == 2 && (e->H.ncl < 2 || e->H.ncl % 2))
    return wfail(e, in, w,
                 "tcgen05.alloc.cta_group::2 in a cluster of %u CTA%s: a CTA pair is two CTAs of a "
                 "cluster whose ranks differ in bit 0",
                 e->H.ncl ? e->H.ncl : 1, e->H.ncl == 1 ? "" : "s");
  if (n < 32 || n > 512 || (n & (n - 1)))
    return wfail(e, in, w, "nCols %u: a power of 2 from 32 to 512", n);
  if (b->relinq)
    return wfail(e, in, w,
                 "an allocation after the CTA gave up its allocation permit "
                 "(tcgen05.relinquish_alloc_permit at line %s)",
                 line_of(e, b->relinq - 1));
  uint64_t a0 = addr_of(in, w, 0);
  for (int l = 1; l < 32; l++)
    if (addr_of(in, w, l) != a0)
      return wfail(e, in, w, "the lanes give different destination addresses");
  plX_cta *c;
  uint32_t off;
  if (!plX__h_smem_at(e, in, w, 0, a0, in->space, 0, 4, 4, &c, &off, "tcgen05.alloc destination"))
    return e->status;
  if (b->last_n && n > b->last_n)
    return wfail(e, in, w,
                 "%u columns after an allocation of %u (line %s): the column count of a CTA's "
                 "allocations should not increase (PTX ISA, tcgen05.alloc)",
                 n, b->last_n, line_of(e, b->last_pc));
  uint32_t live = 0;
  for (uint32_t i = 0; i < b->al.n; i++) live += b->al.p[i].n;
  uint32_t col = BW_COLS;
  for (uint32_t s = 0; s + n <= BW_COLS && col == BW_COLS; s += n) {
    int free_ = 1;
    for (uint32_t i = 0; i < b->al.n && free_; i++)
      if (b->al.p[i].col < s + n && s < b->al.p[i].col + b->al.p[i].n) free_ = 0;
    if (free_) col = s;
  }
  if (col == BW_COLS) {
    plB_buf m;
    plB_buf_init(&m);
    plB_buf_printf(&m,
                   "%u columns requested with %u of the 512 allocated: tcgen05.alloc would block "
                   "until a dealloc frees them, which no warp of this CTA can do while it waits "
                   "here (would block forever); live:",
                   n, live);
    for (uint32_t i = 0; i < b->al.n; i++)
      plB_buf_printf(&m, "%s columns %u-%u (line %s, warp %u)", i ? "," : "", b->al.p[i].col,
                     b->al.p[i].col + b->al.p[i].n - 1, line_of(e, b->al.p[i].pc), b->al.p[i].warp);
    plX__fail_warp(e, in, w, plB_buf_cstr(&m), 0);
    plB_buf_free(&m);
    return e->status;
  }
  plX_tcalloc a = { col, n, (uint32_t)(in - e->xf.code), (uint32_t)w->idx, in->rnd };
  if (!plB_vec_push(b->al, a)) return plX__fail(e, in->stmt, "out of memory");
  b->last_n = n;
  b->last_pc = a.pc;
  /* the address (lane 0, the first column), a weak store by lane 0 */
  uint32_t v = col;
  memcpy(c->smem + off, &v, 4);
  if (c->smem_def) memset(c->smem_def + off, 1, 4);
  if (c == e->C) plX__shared_access(e, in, off, 4, (uint32_t)w->idx * 32, 1);
  return e->status;
}

static int exec_dealloc(plX_emu *e, plX_warp *w, plX_ins *in) {
  plX_bw_cta *b = e->C->bw;
  uint64_t tv = 0, nv = 0;
  if (uniform(e, in, w, in->a, &tv, "taddr") || uniform(e, in, w, in->b, &nv, "nCols"))
    return e->status;
  uint32_t ta = (uint32_t)tv, n = (uint32_t)nv, col = ta & 0xffff;
  uint32_t i = 0;
  while (i < b->al.n && !(b->al.p[i].col == col && b->al.p[i].n == n && (ta >> 16) == 0)) i++;
  if (i == b->al.n) {
    plB_buf m;
    plB_buf_init(&m);
    plB_buf_printf(&m,
                   "deallocates %u columns at 0x%08x (lane %u, column %u), which no live "
                   "allocation of this CTA is",
                   n, ta, ta >> 16, col);
    for (uint32_t j = 0; j < b->al.n; j++)
      plB_buf_printf(&m, "%s%u columns at %u (line %s)", j ? ", " : " (live: ", b->al.p[j].n,
                     b->al.p[j].col, line_of(e, b->al.p[j].pc));
    plB_buf_puts(&m, b->al.n ? ")" : " (none is live)");
    plX__fail_warp(e, in, w, plB_buf_cstr(&m), 0);
    plB_buf_free(&m);
    return e->status;
  }
  plX_tcalloc *a = &b->al.p[i];
  if (a->group != in->rnd)
    return wfail(e, in, w,
                 "a cta_group::%d dealloc of columns %u-%u, which the cta_group::%u alloc of line "
                 "%s allocated",
                 in->rnd, a->col, a->col + a->n - 1, a->group, line_of(e, a->pc));
  if (a->warp != (uint32_t)w->idx)
    return wfail(e, in, w,
                 "warp %d deallocates columns %u-%u, which warp %u allocated at line %s: the "
                 "allocating warp owns them",
                 w->idx, a->col, a->col + a->n - 1, a->warp, line_of(e, a->pc));
  for (uint32_t x = 0; x < e->nwarps; x++)
    for (int s = 0; s < 2; s++) {
      const plX_tcpend *p = s ? b->pst[x].p : b->pld[x].p;
      uint32_t np = s ? b->pst[x].n : b->pld[x].n;
      for (uint32_t j = 0; j < np; j++)
        if (overlaps(&p[j], 0, BW_LANES, a->col, a->col + a->n))
          return wfail(e, in, w,
                       "deallocates columns %u-%u while the tcgen05.%s of line %s (warp %u) on "
                       "them is not waited for (tcgen05.wait::%s first)",
                       a->col, a->col + a->n - 1, s ? "st" : "ld", line_of(e, p[j].pc), x,
                       s ? "st" : "ld");
    }
  /* an MMA still writing there */
  uint32_t ok = 0;
  for (uint32_t ln = 0; ln < BW_LANES; ln++)
    for (uint32_t cl = a->col; cl < a->col + a->n; cl++) {
      uint32_t t = b->tag[ln * BW_COLS + cl];
      if (t < 2 || t == ok) continue;
      plX_cta *oc;
      const plX_tcop *op = plX__b_op(e, t, &oc);
      if (b->ka[(size_t)w->idx * b->nslot + slot_of(e, oc->rank, op->warp)] >= op->seq) {
        ok = t;
        continue;
      }
      return wfail(e, in, w,
                   "deallocates columns %u-%u, which the %s of line %s (warp %u) writes, and this "
                   "warp does not know it complete (wait on its tcgen05.commit first)",
                   a->col, a->col + a->n - 1, op_word(e, op), line_of(e, op->pc), op->warp);
    }
  for (uint32_t ln = 0; ln < BW_LANES; ln++)
    memset(b->tag + ln * BW_COLS + a->col, 0, a->n * sizeof(uint32_t));
  b->al.p[i] = b->al.p[--b->al.n];
  return 0;
}

int plX__bw_cta_end(plX_emu *e, plX_cta *c) {
  if (!c->bw || !c->bw->al.n) return 0;
  const plX_tcalloc *a = &c->bw->al.p[0];
  return plX__fail(e, e->xf.code[a->pc].stmt,
                   "missing dealloc: the %u columns (%u-%u) warp %u of CTA (%u,%u,%u) allocated "
                   "here are still allocated when the CTA exits (every allocation must be freed "
                   "with tcgen05.dealloc first)",
                   a->n, a->col, a->col + a->n - 1, a->warp, c->ctaid[0], c->ctaid[1], c->ctaid[2]);
}

/* ---- ld, st
** ------------------------------------------------------------------------------------------ */
/* register r of thread t for shape s: the lane and the column (from the base, in the shape's
** 32-bit columns) */
static void frag(int s, uint32_t t, uint32_t r, uint32_t *ln, uint32_t *cl) {
  switch (s) {
  case 0: *ln = t, *cl = r; break;                                           /* 32x32b */
  case 1: *ln = (t >> 2) + 8 * (t & 1), *cl = ((t >> 1) & 1) + 2 * r; break; /* 16x64b */
  case 2: *ln = (t >> 2) + 8 * (r & 1), *cl = (t & 3) + 4 * (r >> 1); break; /* 16x128b */
  default: *ln = (t >> 2) + 8 * ((r >> 1) & 1), *cl = 2 * (t & 3) + (r & 1) + 8 * (r >> 2);
  }
}

static int exec_ldst(plX_emu *e, plX_warp *w, plX_ins *in) {
  plX_bw_cta *b = e->C->bw;
  int ld = in->op == X_TCLD, s = in->sub, pack = in->sub2;
  const char *what = ld ? "tcgen05.ld" : "tcgen05.st";
  if (!ld && pack)
    return wfail(e, in, w,
                 "tcgen05.st .unpack::16b is not emulated (what it leaves in the upper halves of "
                 "the cells is not pinned)");
  uint32_t ta = (uint32_t)addr_of(in, w, 0);
  for (int l = 1; l < 32; l++)
    if ((uint32_t)addr_of(in, w, l) != ta)
      return wfail(e, in, w, "the lanes give different tensor-memory addresses");
  uint32_t lane = ta >> 16, col = ta & 0xffff, span = s == 0 ? 32 : 16;
  uint32_t q = (uint32_t)w->idx % 4, lo = 32 * q, L;
  if (lane >= lo && lane + span <= lo + 32)
    L = lane;
  else if (lane + span <= 32) {
    L = lo + lane; /* relaxed: a lane below 32 counts from the warp's own quarter */
    if (e->checks & PLX_CHECK_TMEM_LANES)
      plX__optin(e, in->stmt,
                 "%s in warp %d of CTA (%u,%u,%u) at lane %u: the warp's lane quarter is lanes "
                 "%u-%u (tmem_lanes: an address names its lane absolutely; without the check a "
                 "lane below 32 counts from the warp's quarter)",
                 what, w->idx, e->C->ctaid[0], e->C->ctaid[1], e->C->ctaid[2], lane, lo, lo + 31);
  } else
    return wfail(e, in, w,
                 "%s at lane %u: warp %d (warp %u of its warpgroup) may access lanes %u-%u only "
                 "(tensor memory's lane quarter %u)",
                 what, lane, w->idx, q, lo, lo + 31, q);
  if (lane + span > BW_LANES) return wfail(e, in, w, "%s at lane %u: past lane 127", what, lane);
  uint32_t cpr = s == 0 ? 1 : s == 1 ? 2 : s == 2 ? 4 : 8; /* columns a repetition */
  uint32_t ncol = in->vec * cpr * (pack ? 2u : 1u), nr = in->vec * (s == 2 ? 2u : s == 3 ? 4u : 1u);
  if (col + ncol > BW_COLS)
    return wfail(e, in, w, "%s columns %u-%u: past column 511", what, col, col + ncol - 1);
  if (plX__b_in_alloc(e, in, w, 0, e->C, col, col + ncol, what)) return e->status;
  const uint32_t *vs = e->xf.vslots + in->vs;
  if (ld) {
    if (plX__b_read_cells(e, in, w, 0, e->C, L, L + span, col, col + ncol, 0, 1, what))
      return e->status;
    for (uint32_t r = 0; r < nr; r++) {
      uint64_t *R = wslot(w, vs[r]);
      for (uint32_t t = 0; t < 32; t++) {
        uint32_t ln, cl;
        frag(s, t, r, &ln, &cl);
        const uint32_t *row = b->cell + (L + ln) * BW_COLS + col;
        R[t] = pack ? (row[2 * cl] & 0xffffu) | (row[2 * cl + 1] & 0xffffu) << 16 : row[cl];
      }
    }
  } else {
    if (plX__b_write_cells(e, in, w, e->C, L, L + span, col, col + ncol, what) ||
        plX__b_read_cells(e, in, w, 0, e->C, L, L + span, col, col + ncol, 0, 0, what))
      return e->status;
    for (uint32_t r = 0; r < nr; r++) {
      const uint64_t *R = wslot(w, vs[r]);
      for (uint32_t t = 0; t < 32; t++) {
        uint32_t ln, cl;
        frag(s, t, r, &ln, &cl);
        size_t k = (size_t)(L + ln) * BW_COLS + col + cl;
        b->cell[k] = (uint32_t)R[t];
        b->tag[k] = 1;
      }
    }
  }
  plX_tcpend p = { L, L + span, col, col + ncol, (uint32_t)(in - e->xf.code) };
  if (ld ? !plB_vec_push(b->pld[w->idx], p) : !plB_vec_push(b->pst[w->idx], p))
    return plX__fail(e, in->stmt, "out of memory");
  return 0;
}

/* ---- shared memory an MMA reads
** ----------------------------------------------------------------------------- */
int plX__bw_smem_write(plX_emu *e, uint32_t stmt, plX_cta *c, uint32_t off, uint32_t n,
                       uint32_t tid, const char *who) {
  plX_bw_cta *b = c->bw, *me = e->C->bw;
  if (!b || !me) return 0;
  const uint32_t *ka = me->ka + (size_t)(tid / 32) * me->nslot;
  for (uint32_t i = 0; i < b->rd.n; i++) {
    const plX_tcrd *r = &b->rd.p[i];
    if (off >= r->hi || off + n <= r->lo) continue;
    if (ka[slot_of(e, r->rank, r->warp)] >= r->seq) continue;
    const plX_cta *ic = e->H.ncl ? &e->ctas[r->rank] : e->C;
    uint32_t at = off > r->lo ? off : r->lo;
    plX__fail(e, stmt,
              "%s writes shared byte 0x%x of CTA (%u,%u,%u), which the %s of line %s (warp %u of "
              "CTA (%u,%u,%u)) reads, and this thread does not know that %s complete: release a "
              "stage with tcgen05.commit to the mbarrier the producer waits on (an "
              "mbarrier.arrive after issuing the MMA does not wait for it)",
              who, at, c->ctaid[0], c->ctaid[1], c->ctaid[2],
              e->xf.code[r->pc].op == X_TCCP ? "tcgen05.cp" : "tcgen05.mma", line_of(e, r->pc),
              r->warp, ic->ctaid[0], ic->ctaid[1], ic->ctaid[2], op_noun(e, r->pc));
    return 1;
  }
  return 0;
}

/* ---- dispatch
** ---------------------------------------------------------------------------------------- */
int plX__bw_exec(plX_emu *e, plX_warp *w, plX_ins *in, uint32_t em) {
  plX_bw_cta *b = e->C->bw;
  if (!b) return plX__fail(e, in->stmt, "internal: no tensor-memory state");
  if (in->op == X_TCMMA) return plX__b_exec_mma(e, w, in, em);
  if (in->op == X_TCCOMMIT) return plX__b_exec_commit(e, w, in, em);
  if (in->op == X_TCCP) return plX__b_exec_cp(e, w, in, em);
  if (in->op == X_TCFENCE) { /* a thread's, not .sync.aligned */
    if (in->sub && em)
      memcpy(b->kf + (size_t)w->idx * b->nslot, b->ka + (size_t)w->idx * b->nslot,
             b->nslot * sizeof(uint32_t));
    return 0;
  }
  if (plX__full_warp(e, in, w, em)) return e->status;
  switch (in->op) {
  case X_TCALLOC: return exec_alloc(e, w, in);
  case X_TCDEALLOC: return exec_dealloc(e, w, in);
  case X_TCRELINQ:
    if (!b->relinq) b->relinq = (uint32_t)(in - e->xf.code) + 1;
    return 0;
  case X_TCLD:
  case X_TCST: return exec_ldst(e, w, in);
  case X_TCWAIT:
    if (in->sub)
      b->pst[w->idx].n = 0;
    else
      b->pld[w->idx].n = 0;
    return 0;
  }
  return plX__fail(e, in->stmt, "%s is not emulated", plX__opname(e, in->stmt));
}
