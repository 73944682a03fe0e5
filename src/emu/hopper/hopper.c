/* hopper/hopper.c -- the Hopper families' dispatch (plX__hop_exec, plX__hop_wait), elect.sync,
** setmaxnreg, a CTA's Hopper state and the Hopper part of deadlock reports. */
#include "state.h"
#include "fail.h"
#include "exec.h"
#include "hooks.h"
#include "hopper.h"
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

/* ---- the rest
** ------------------------------------------------------------------------------------- */
static int exec_elect(plX_emu *e, plX_warp *w, plX_ins *in, uint32_t em) {
  if (!em) return 0;
  uint64_t *M = wslot(w, in->e), *D = wslot(w, in->d);
  /* per lane, as the other .sync instructions (exec.c member_check): in its own mask, and the
  ** non-exited lanes it names execute this with the same mask; each group elects its lowest lane */
  uint32_t out = 0, live = w->exists & ~w->exited, lead = 0;
  LANES(l, em, if (!((uint32_t)M[l] >> l & 1)) out |= 1u << l);
  if (out)
    return plX__fail_warp(e, in, w, "executing lanes are missing from their membermask", out);
  LANES(l, em, {
    uint32_t mk = (uint32_t)M[l], absent = mk & live & ~em, diff = 0;
    if (absent)
      return plX__fail_warp(
          e, in, w, "lanes named in membermask did not execute this instruction with the others",
          absent);
    for (uint32_t q = mk & live; q; q &= q - 1) {
      int j = __builtin_ctz(q);
      if ((uint32_t)M[j] != mk) diff |= 1u << j;
    }
    if (diff) return plX__fail_warp(e, in, w, "membermask differs between lanes", diff | 1u << l);
  });
  LANES(l, em, {
    int leader = __builtin_ctz((uint32_t)M[l] & em);
    D[l] = (uint64_t)leader;
    lead |= 1u << leader;
  });
  w->P[in->d2] = pmerge(w->P[in->d2], lead, em);
  return 0;
}

static uint64_t regs_used(plX_emu *e);
static uint64_t regs_pool(plX_emu *e);

/* wake the warps of the current CTA waiting in setmaxnreg.inc whose request fits now; 1 if any */
int plX__h_regs_wake(plX_emu *e) {
  int any = 0;
  for (uint32_t i = 0; i < e->nwarps; i++) {
    plX_warp *W = &e->C->warps[i];
    uint32_t m = W->waiting & ~W->exited;
    if (!m) continue;
    int l = __builtin_ctz(m);
    if (W->bid[l] != XB_REGS) continue;
    uint32_t n = e->xf.code[W->bpc[l]].c, cur = e->C->h.nreg[i] & 0x7fffffffu;
    if (regs_used(e) - (uint64_t)cur * 32 + (uint64_t)n * 32 > regs_pool(e)) continue;
    for (int k = 0; k < 32; k++)
      if ((m >> k & 1) && W->bid[k] == XB_REGS) W->waiting &= ~(1u << k);
    any = 1;
  }
  return any;
}

/* setmaxnreg: the registers of the CTA's warps may not pass its pool -- the register file (64K)
** or, with .maxnreg, .maxnreg x threads. A warp that has not run setmaxnreg counts its share of
** the pool (ptxas decides the real launch count); inc/dec against a count an earlier setmaxnreg
** set are checked. */
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
  if (f->maxnreg && (uint64_t)f->maxnreg * e->nthreads < pool)
    pool = (uint64_t)f->maxnreg * e->nthreads;
  return pool;
}

/* setmaxnreg: the registers of the CTA's warps come from its pool -- the register file (64K) or,
** with .maxnreg, .maxnreg x threads. A warp that has not run setmaxnreg holds its share of the pool
** (ptxas decides the real launch count). An inc that does not fit waits until decs (or exits) free
** registers, as on the hardware: one that never fits is a deadlock at its line. An inc below (a dec
** above) a count an earlier setmaxnreg gave the warp is an error. */
static int exec_setmaxnreg(plX_emu *e, plX_warp *w, plX_ins *in, uint32_t pc, uint32_t em,
                           uint32_t *blocked) {
  if (plX__full_warp(e, in, w, em)) return e->status;
  uint32_t n = in->c, *R = e->C->h.nreg, cur = R[w->idx];
  int known = (cur & 0x80000000u) != 0;
  cur &= 0x7fffffffu;
  if (n < 24 || n > 256 || n % 8)
    return plX__fail_warp(e, in, w, "the register count must be a multiple of 8 in 24..256", em);
  if (known && in->sub && n < cur) {
    char m[160];
    snprintf(m, sizeof m,
             "setmaxnreg.inc to %u, below the %u registers per thread an earlier setmaxnreg gave "
             "the warp",
             n, cur);
    return plX__fail_warp(e, in, w, m, em);
  }
  if (known && !in->sub && n > cur) {
    char m[160];
    snprintf(m, sizeof m,
             "setmaxnreg.dec to %u, above the %u registers per thread an earlier setmaxnreg gave "
             "the warp",
             n, cur);
    return plX__fail_warp(e, in, w, m, em);
  }
  if (in->sub) {
    uint64_t used = regs_used(e) - (uint64_t)cur * 32 + (uint64_t)n * 32;
    if (used > regs_pool(e)) { /* wait for registers */
      LANES(l, em, {
        w->bid[l] = XB_REGS;
        w->bpc[l] = pc;
      });
      w->waiting |= em;
      *blocked = em;
      return 0;
    }
  }
  R[w->idx] = n | 0x80000000u;
  /* registers freed: incs may fit now */
  if (!in->sub) plX__h_regs_wake(e);
  return 0;
}

int plX__hop_exec(plX_emu *e, plX_warp *w, plX_ins *in, uint32_t pc, uint32_t am, uint32_t em) {
  (void)pc;
  (void)am;
  switch (in->op) {
  case X_MBAR: return plX__h_exec_mbar(e, w, in, em);
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
      plX_cta *c;
      uint32_t off;
      if (!plX__h_smem_at(e, in, w, l, addr_of(in, w, l), in->space, 0, 8, 8, &c, &off, "mbarrier"))
        return e->status;
      plX_mbar *m = plX__h_mb_get(e, in, w, l, c, off);
      if (!m) return e->status;
      if (in->sub && plX__h_mb_arrive(e, in, w, l, c, m, 1, 0, 0, NULL)) return e->status;
    });
    return 0;
  case X_TMA: return plX__h_exec_tma(e, w, in, em);
  case X_BULK: return plX__h_exec_bulk(e, w, in, em);
  /* stores happen when issued; these say when it is safe */
  case X_BULKCOMMIT:
  case X_BULKWAIT: return plX__h_exec_bulkgrp(e, w, in, em);
  case X_WGFENCE:
    if (plX__full_warp(e, in, w, em)) return e->status;
    w->wgf = w->clock;
    w->wgf_pc = (uint32_t)(in - e->xf.code);
    return 0;
  case X_WGMMA: return plX__h_exec_wgmma(e, w, in, em);
  case X_WGCOMMIT:
    if (plX__full_warp(e, in, w, em)) return e->status;
    w->wg_cur++;
    return 0;
  case X_WGWAIT:
    if (plX__full_warp(e, in, w, em)) return e->status;
    if (w->wg_cur >= in->c && w->wg_cur - in->c > w->wg_done) w->wg_done = w->wg_cur - in->c;
    if (e->C->h.rd.n) plX__h_wg_retire(e, e->C);
    return 0;
  case X_MAPA:
  case X_GETRANK: return plX__h_exec_mapa(e, w, in, em);
  case X_ELECT: return exec_elect(e, w, in, em);
  case X_FENCEPROXY:
    /* races check: global */
    if (in->sub == 1 && e->gpf && (in->sub2 == 0 || in->sub2 == 3)) e->gpf[e->C->cta_linear]++;
    if (in->sub == 1 && e->C->h.fences) /* sub2: 0 no space, 1 ::cta, 2 ::cluster, 3 global */
      LANES(l, em, {
        uint32_t t = (uint32_t)w->idx * 32 + (uint32_t)l;
        if (in->sub2 != 3) e->C->h.fences[t]++;
        if (in->sub2 == 0 || in->sub2 == 2) e->C->h.cfences[t]++;
      });
    if (in->sub == 2) LANES(l, em, plX__h_tm_release(e, (uint32_t)w->idx * 32 + (uint32_t)l, NULL));
    if (in->sub == 3)
      LANES(l, em, {
        if (plX__h_tm_acquire(e, in, addr_of(in, w, l), (uint32_t)w->idx * 32 + (uint32_t)l))
          return e->status;
      });
    return 0;
  case X_TMAP: return plX__h_exec_tmap(e, w, in, em);
  case X_CLCTRY:
  case X_CLCQUERY: return plX__h_exec_clc(e, w, in, em);
  }
  return plX__fail(e, in->stmt, "%s is not emulated", plX__opname(e, in->stmt));
}

/* the blocking ones, from the warp loop: lanes that must wait are returned in *blocked */
int plX__hop_wait(plX_emu *e, plX_warp *w, plX_ins *in, uint32_t pc, uint32_t em,
                  uint32_t *blocked) {
  *blocked = 0;
  if (in->op == X_MBWAIT) return plX__h_exec_mbwait(e, w, in, pc, em, blocked);
  if (in->op == X_SETMAXNREG) return exec_setmaxnreg(e, w, in, pc, em, blocked);
  return plX__h_exec_clbar(e, w, in, pc, em, blocked);
}

/* ---- CTAs
** ------------------------------------------------------------------------------------------- */
void plX__hop_scan(plX_emu *e) {
  plX_hop *H = &e->H;
  if (H->scanned) return;
  H->scanned = 1;
  for (uint32_t i = 0; i < e->xf.ncode; i++) {
    int op = e->xf.code[i].op;
    if (op >= X_MBAR && op < X__COUNT) H->used = 1;
    if (op == X_WGMMA) H->has_wgmma = 1;
    if (op == X_WGMMA || op == X_TMA || op == X_BULK || op == X_CLCTRY || op == X_TCMMA ||
        op == X_TCCP)
      H->track = 1;
  }
}

int plX__hop_setup(plX_emu *e, plX_cta *c) {
  plX_hop *H = &e->H;
  plX__hop_scan(e);
  if (c->rank == 0) {
    for (uint32_t i = 0; i < H->q.n; i++) {
      free(H->q.p[i].data);
      free(H->q.p[i].valid);
    }
    H->q.n = 0;
    H->clphase = H->clcount = 0;
    /* the last cluster's bulk stores are done */
    H->gst = 0;
    if (c->cta_linear == 0) {
      H->tmi.n = 0;
      H->tacq.n = 0;
      H->tmseq = 0;
    } /* a launch starts */
    const plI_func *f = &e->m->funcs.p[e->func];
    uint32_t b = 65536 / (e->nthreads ? e->nthreads : 1);
    if (f->maxnreg && f->maxnreg < b) b = f->maxnreg;
    if (b > 255) b = 255;
    H->budget = b & ~7u;
  }
  c->h.mb.n = 0;
  c->h.dnv.n = 0;
  c->h.mbdone = 0;
  c->h.clc_fail = 0;
  c->h.nslot = (H->ncl ? H->ncl : 1) * e->nwarps;
  c->h.rd.n = 0;
  c->h.rd_acq = 0;
  for (int w = 0; w < 32; w++) c->h.rd_first[w] = UINT32_MAX;
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
    c->h.psw = calloc((sm + PW_BLK - 1) / PW_BLK * PW_BLK, 1);
    /* (pw padded to whole blocks: the pad stays 0) */
    c->h.pw = calloc((sm + PW_BLK - 1) / PW_BLK * PW_BLK, sizeof *c->h.pw);
    c->h.pwd = calloc((sm + PW_BLK - 1) / PW_BLK, 1);
    c->h.ps = calloc(sm, sizeof *c->h.ps);
    c->h.fences = calloc(e->nthreads, sizeof *c->h.fences);
    c->h.cfences = calloc(e->nthreads, sizeof *c->h.cfences);
    c->h.fsnap = calloc(e->nthreads, sizeof *c->h.fsnap);
    c->h.cfsnap = calloc(e->nthreads, sizeof *c->h.cfsnap);
    if (!c->h.fsnap || !c->h.cfsnap) return plX__fail(e, X_NOSLOT, "out of memory");
    c->h.bg = calloc((size_t)e->nthreads * 3, sizeof *c->h.bg);
    if (!c->h.psw || !c->h.pw || !c->h.pwd || !c->h.ps || !c->h.fences || !c->h.cfences || !c->h.bg)
      return plX__fail(e, X_NOSLOT, "out of memory");
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
  free(c->h.tcs);
  c->h.tcs = NULL;
  c->h.tcn = 0;
  plX__h_desc_free(c);
  free(c->h.psw);
  free(c->h.pw);
  free(c->h.pwd);
  c->h.pwd = NULL;
  free(c->h.fwt);
  c->h.fwt = NULL;
  c->h.fwcap = c->h.fwgen = 0;
  free(c->h.ps);
  free(c->h.fences);
  free(c->h.cfences);
  free(c->h.wgg);
  free(c->h.nreg);
  free(c->h.clarr);
  free(c->h.fsnap);
  free(c->h.cfsnap);
  free(c->h.wga);
  free(c->h.wgapc);
  free(c->h.know);
  c->h.wga = NULL;
  c->h.wgapc = NULL;
  c->h.know = NULL;
  c->h.psw = NULL;
  c->h.pw = c->h.ps = c->h.fences = c->h.cfences = c->h.wgg = c->h.nreg = c->h.clarr = NULL;
  c->h.fsnap = c->h.cfsnap = NULL;
  plB_vec_free(c->h.mb);
  memset(&c->h.mb, 0, sizeof c->h.mb);
  plB_vec_free(c->h.dnv);
  plB_vec_free(c->h.rd);
  memset(&c->h.rd, 0, sizeof c->h.rd);
  plB_vec_free(c->h.bs);
  c->h.bs_rows = 0;
  free(c->h.bg);
  c->h.bg = NULL;
}

/* at a deadlock (no warp can run, no copy is in flight): an mbarrier phase with all its
** arrivals whose transaction count is not zero can never complete -- its copies delivered other
** bytes than its expect_tx announced. The report names both, at the line of the last copy that
** landed on the phase (else the expect_tx's, else the init's), and the wait stuck on it; 1 if
** reported */
int plX__hop_tx_stuck(plX_emu *e) {
  for (int pass = 0; pass < 2; pass++) /* one a warp waits on first */
    for (uint32_t r = 0; r < e->H.ncl; r++) {
      plX_cta *c = &e->ctas[r];
      for (uint32_t i = 0; i < c->h.mb.n; i++) {
        plX_mbar *m = &c->h.mb.p[i];
        if (!m->valid || m->pending || !m->tx) continue;
        const plX_warp *W = NULL;
        int wl = 0;
        for (uint32_t w = 0; w < e->nwarps && !W; w++) {
          const plX_warp *X = &c->warps[w];
          for (uint32_t q = X->waiting & ~X->exited; q; q &= q - 1) {
            int l = __builtin_ctz(q);
            if (X->bid[l] == XB_MBAR && X->wmb[l] == m->off) {
              W = X;
              wl = l;
              break;
            }
          }
        }
        if (!W && pass == 0) continue;
        uint32_t pc = m->cpc ? m->cpc - 1 : m->xpc ? m->xpc - 1 : m->pc;
        plB_buf b;
        plB_buf_init(&b);
        const uint32_t *id = c->ctaid;
        plB_buf_printf(&b,
                       "%s: phase %u of the mbarrier at shared 0x%x of CTA (%u,%u,%u) "
                       "(initialized at line %s) can never complete: all its %u arrivals are in, "
                       "but ",
                       plX__opname(e, e->xf.code[pc].stmt), m->phase, m->off, id[0], id[1], id[2],
                       line_of(e, m->pc), m->expected);
        if (m->cpc)
          plB_buf_printf(&b, "its copies brought %u transaction bytes (the last at line %s)",
                         m->got, line_of(e, m->cpc - 1));
        else
          plB_buf_printf(&b, "no copy completed bytes on it (%u by complete_tx)", m->got);
        if (m->xpc)
          plB_buf_printf(&b, " where its expect_tx announced %u (line %s)", m->xsum,
                         line_of(e, m->xpc - 1));
        else
          plB_buf_puts(&b, " with no expect_tx in this phase");
        if (m->tx > 0)
          plB_buf_printf(&b, ": %d bytes are missing, and no copy in flight will bring them",
                         m->tx);
        else
          plB_buf_printf(&b, ": %d bytes too many (its transaction count is %d)", -m->tx, m->tx);
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
    plX_mbar *b = plX__h_mb_find(c, W->wmb[lane]);
    plB_buf_printf(m, "deadlock in CTA (%u,%u,%u): %s waits on the mbarrier at shared 0x%x",
                   c->ctaid[0], c->ctaid[1], c->ctaid[2], plX__opname(e, stmt), W->wmb[lane]);
    if (b && b->tx >= 0)
      plB_buf_printf(m,
                     " (initialized at line %s), whose phase %u still misses %u of %u arrivals and "
                     "%d transaction bytes",
                     line_of(e, b->pc), b->phase, b->pending, b->expected, b->tx);
    else if (b) /* more bytes landed than expect_tx announced */
      plB_buf_printf(m,
                     " (initialized at line %s), whose phase %u still misses %u of %u arrivals and "
                     "has a transaction count of %d: "
                     "%d bytes more arrived than its expect_tx announced",
                     line_of(e, b->pc), b->phase, b->pending, b->expected, b->tx, -b->tx);
  } else if (W->bid[lane] == XB_REGS) {
    plB_buf_printf(m,
                   "deadlock in CTA (%u,%u,%u): %s waits for registers: the CTA's warps hold %llu "
                   "of its pool of %llu (%s) and none will free enough",
                   c->ctaid[0], c->ctaid[1], c->ctaid[2], plX__opname(e, stmt),
                   (unsigned long long)regs_used(e), (unsigned long long)regs_pool(e),
                   e->m->funcs.p[e->func].maxnreg ? ".maxnreg x threads" : "the 64K-register file");
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
    plB_buf_printf(m,
                   "deadlock in the cluster of CTA (%u,%u,%u): %s waits for the %u non-exited "
                   "threads of the cluster, %u arrived",
                   c->ctaid[0], c->ctaid[1], c->ctaid[2], plX__opname(e, stmt), live, arrived);
  }
  return 0;
}
