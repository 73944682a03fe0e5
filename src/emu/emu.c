/* emu.c -- the emulator's frame: device memory, the layout of a kernel's state spaces,
** launches, the CTA scheduler with its barriers and deadlock reports, and error messages.
**
** Scheduling: CTAs run one after another in linear order (x fastest). Inside a CTA, each warp
** runs until all its threads have exited or wait at a barrier; then the next warp runs; rounds
** repeat until every thread has exited. A round in which no warp can run is a deadlock. Inside a
** warp, the threads at the lowest PC among the ready ones execute together (exec.c). */
#include "state.h"
#include "fail.h"
#include "layout.h"
#include "race.h"
#include "budget.h"
#include "decode.h"
#include "warp.h"
#include "exec.h"
#include "hooks.h"
#include "bwhooks.h"
#include <pthread.h>
#include "isa.h"
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <stdarg.h>
#include <ctype.h>
#include <math.h>

int plX_status(const plX_emu *e) {
  return e ? e->status : 2;
}
const char *plX_error(const plX_emu *e) {
  if (!e) return "error: out of memory";
  return e->status ? plB_buf_cstr((plB_buf *)&e->err) : "";
}
void plX_clear(plX_emu *e) {
  if (!e) return;
  e->status = 0;
  e->err.n = 0;
  e->deferred.n = 0;
  e->ndeferred = 0;
}

/* ---- the emulator object
** ---------------------------------------------------------------------- */
plX_emu *plX_new(const plI_module *m, int func, plX_mem *mem) {
  plX_emu *e = calloc(1, sizeof *e);
  if (!e) return NULL;
  plB_buf_init(&e->err);
  plB_buf_init(&e->trace);
  e->m = m;
  e->func = func;
  e->mem = mem;
  e->trace_cta = -1;
  e->trace_thread = -1;
  e->limit = PLX_LIMIT_DEFAULT;
  plB_buf_init(&e->deferred);
  if (!m || func < 0 || (uint32_t)func >= m->funcs.n) {
    plX__fail(e, X_NOSLOT, "no such kernel");
    e->func = 0;
    return e;
  }
  if (!mem) {
    plX__fail(e, X_NOSLOT, "no device memory");
    return e;
  }
  if (m->funcs.p[func].kind != PLF_ENTRY) {
    plX__fail(e, X_NOSLOT, "'%s' is not a kernel (.entry)", plI_cstr(m, m->funcs.p[func].name));
    return e;
  }
  if (plX__layout(e)) return e;
  plX__var_regions(e);
  plX__decode(e);
  return e;
}

static void free_cta(plX_cta *c, uint32_t nthreads) {
  free(c->Rall);
  free(c->Pall);
  free(c->rdefall);
  free(c->pdefall);
  free(c->warps);
  free(c->smem);
  free(c->smem_def);
  free(c->race_w);
  free(c->race_r);
  free(c->race_e);
  free(c->local);
  free(c->cstack);
  free(c->cdepth);
  if (c->fstk)
    for (uint32_t i = 0; i < nthreads; i++) free(c->fstk[i].p);
  free(c->fstk);
  if (c->cpq)
    for (uint32_t i = 0; i < nthreads; i++) plB_vec_free(c->cpq[i].q);
  free(c->cpq);
  for (int i = 0; i < 16; i++) plB_vec_free(c->bars[i].red);
  plX__hop_free(c);
  plX__bw_free(c);
  memset(c, 0, sizeof *c);
}

static void free_ctas(plX_emu *e) {
  for (uint32_t i = 0; i < e->nctas_cap; i++) free_cta(&e->ctas[i], e->ctas[i].cap_threads);
  free(e->ctas);
  e->ctas = NULL;
  e->nctas_cap = 0;
  e->C = NULL;
}

void plX_free(plX_emu *e) {
  if (!e) return;
  free_ctas(e);
  for (uint32_t i = 0; i < e->H.q.n; i++) {
    free(e->H.q.p[i].data);
    free(e->H.q.p[i].valid);
  }
  plB_vec_free(e->H.q);
  plB_vec_free(e->H.tmi);
  plB_vec_free(e->H.tacq);
  if (e->mem && e->gaddr && e->m && e->func >= 0 && (uint32_t)e->func < e->m->funcs.n)
    for (uint32_t i = 0; i < e->m->globals.n; i++)
      if (e->gaddr[i]) plX_mem_release(e->mem, e->gaddr[i]);
  if (e->fns)
    for (uint32_t i = 0; i < e->nfns; i++) free(e->fns[i].regs);
  free(e->vars);
  free(e->gaddr);
  free(e->params);
  free(e->pblock);
  free(e->pset);
  free(e->fns);
  free(e->ploc);
  plX_func *x = &e->xf;
  free(x->code);
  free(x->consts);
  free(x->vslots);
  free(x->chk);
  free(x->slot_of);
  free(x->slot_reg);
  free(x->pred_reg);
  free(x->msgs);
  plB_buf_free(&e->err);
  plB_buf_free(&e->trace);
  plB_buf_free(&e->deferred);
  free(e->regions);
  free(e->gsync);
  free(e->gev);
  free(e->gevc);
  plX__race_reset(e);
  free(e->rpend);
  free(e);
}

int plX_param_count(const plX_emu *e) {
  return e ? (int)e->nparams : 0;
}
int plX_param_info(const plX_emu *e, int i, plX_param *p) {
  if (!e || i < 0 || (uint32_t)i >= e->nparams) return -1;
  *p = e->params[i];
  return 0;
}
int plX_set_param(plX_emu *e, int i, const void *bytes, size_t n) {
  if (e->status) return e->status;
  if (i < 0 || (uint32_t)i >= e->nparams) return plX__fail(e, X_NOSLOT, "no parameter #%d", i + 1);
  if (n != e->params[i].size)
    return plX__fail(e, X_NOSLOT, "parameter '%s' takes %u bytes, got %u", e->params[i].name,
                     e->params[i].size, (unsigned)n);
  memcpy(e->pblock + e->params[i].offset, bytes, n);
  e->pset[i] = 1;
  return 0;
}

int plX_geometry_check(const uint32_t grid[3], const uint32_t block[3], const uint32_t cluster[3],
                       char *err, size_t n) {
  static const char *const AX = "xyz";
  uint64_t nt = (uint64_t)block[0] * block[1] * block[2];
  for (int i = 0; i < 3; i++) {
    if (!grid[i] || !block[i] || (cluster && !cluster[i])) {
      snprintf(err, n, "launch dimensions must be positive integers");
      return 1;
    }
  }
  if (nt > 1024) {
    snprintf(err, n, "a block of %llu threads (%u, %u, %u) exceeds the 1024 a CTA can have",
             (unsigned long long)nt, block[0], block[1], block[2]);
    return 1;
  }
  if (block[2] > 64) {
    snprintf(err, n, "block.z %u exceeds 64", block[2]);
    return 1;
  }
  for (int i = 0; i < 3; i++) {
    uint32_t max = i ? 65535u : 2147483647u;
    if (grid[i] > max) {
      snprintf(err, n, "grid.%c %u exceeds the device's limit of %u", AX[i], grid[i], max);
      return 1;
    }
  }
  if (!cluster) return 0;
  uint64_t nc = (uint64_t)cluster[0] * cluster[1] * cluster[2];
  if (nc > 16) {
    snprintf(err, n, "a cluster of %llu CTAs (%u, %u, %u) exceeds 16", (unsigned long long)nc,
             cluster[0], cluster[1], cluster[2]);
    return 1;
  }
  for (int i = 0; i < 3; i++) {
    if (grid[i] % cluster[i]) {
      snprintf(err, n,
               "the grid (%u, %u, %u) is not a whole number of clusters (%u, %u, %u): grid.%c %u "
               "is not a multiple of %u",
               grid[0], grid[1], grid[2], cluster[0], cluster[1], cluster[2], AX[i], grid[i],
               cluster[i]);
      return 1;
    }
  }
  return 0;
}

int plX_set_launch(plX_emu *e, const uint32_t grid[3], const uint32_t block[3], uint32_t dyn) {
  if (e->status) return e->status;
  uint64_t nt = (uint64_t)block[0] * block[1] * block[2];
  char gerr[256];
  if (plX_geometry_check(grid, block, NULL, gerr, sizeof gerr))
    return plX__fail(e, X_NOSLOT, "%s", gerr);
  const plI_func *f = &e->m->funcs.p[e->func];
  if (f->reqntid[0] &&
      (f->reqntid[0] != block[0] || f->reqntid[1] != block[1] || f->reqntid[2] != block[2]))
    return plX__fail(e, X_NOSLOT, "the block (%u, %u, %u) differs from .reqntid %u, %u, %u",
                     block[0], block[1], block[2], f->reqntid[0], f->reqntid[1], f->reqntid[2]);
  if (f->maxntid[0] && nt > (uint64_t)f->maxntid[0] * (f->maxntid[1] ? f->maxntid[1] : 1) *
                                (f->maxntid[2] ? f->maxntid[2] : 1))
    return plX__fail(e, X_NOSLOT, "a block of %llu threads exceeds .maxntid",
                     (unsigned long long)nt);
  if (dyn && !e->has_dyn)
    return plX__fail(
        e, X_NOSLOT,
        "%u bytes of dynamic shared memory, but the kernel declares no extern .shared array", dyn);
  if ((uint64_t)e->dyn_off + dyn > 232448)
    return plX__fail(e, X_NOSLOT, "%llu bytes of shared memory exceed the 227 KB a CTA may have",
                     (unsigned long long)e->dyn_off + dyn);
  memcpy(e->grid, grid, sizeof e->grid);
  memcpy(e->block, block, sizeof e->block);
  e->dyn_smem = dyn;
  e->launched = 1;
  return plX_set_cluster(e, NULL);
}

/* the cluster shape: launch's, else the kernel's .reqnctapercluster, else one CTA (implicit) */
int plX_set_cluster(plX_emu *e, const uint32_t cl[3]) {
  if (e->status) return e->status;
  const plI_func *f = &e->m->funcs.p[e->func];
  uint32_t c[3] = { 1, 1, 1 };
  int expl = 0;
  if (f->reqnctapercluster[0]) {
    for (int i = 0; i < 3; i++) c[i] = f->reqnctapercluster[i] ? f->reqnctapercluster[i] : 1;
    expl = 1;
  }
  if (cl) {
    if (!cl[0] || !cl[1] || !cl[2])
      return plX__fail(e, X_NOSLOT, "cluster dimensions must be positive");
    if (expl && (cl[0] != c[0] || cl[1] != c[1] || cl[2] != c[2]))
      return plX__fail(e, X_NOSLOT,
                       "the cluster (%u, %u, %u) differs from .reqnctapercluster %u, %u, %u", cl[0],
                       cl[1], cl[2], c[0], c[1], c[2]);
    memcpy(c, cl, sizeof c);
    expl = 1;
  }
  if (f->explicitcluster) expl = 1;
  uint64_t n = (uint64_t)c[0] * c[1] * c[2];
  if (n > 16)
    return plX__fail(e, X_NOSLOT, "a cluster of %llu CTAs exceeds 16", (unsigned long long)n);
  if (f->maxclusterrank && n > f->maxclusterrank)
    return plX__fail(e, X_NOSLOT, "a cluster of %llu CTAs exceeds .maxclusterrank %u",
                     (unsigned long long)n, f->maxclusterrank);
  memcpy(e->H.cl, c, sizeof c);
  e->H.ncl = (uint32_t)n;
  e->H.explicit_cl = expl;
  return 0;
}

void plX_set_checks(plX_emu *e, unsigned flags) {
  e->checks = flags;
}
void plX_set_limit(plX_emu *e, uint64_t n) {
  e->limit = n ? n : UINT64_MAX;
}
void plX_set_sample(plX_emu *e, uint64_t n) {
  e->sample = n;
}
void plX_set_trace(plX_emu *e, int64_t cta, int64_t thread, int whole_warp) {
  e->trace_cta = cta;
  e->trace_thread = thread;
  e->trace_warp = whole_warp != 0;
}
const char *plX_trace_text(plX_emu *e, size_t *len) {
  if (len) *len = e->trace.n;
  return plB_buf_cstr(&e->trace);
}
void plX_get_stats(const plX_emu *e, plX_stats *s) {
  *s = e->st;
}

/* ---- CTAs
** -------------------------------------------------------------------------------------- */
static int setup_cta(plX_emu *e, plX_cta *C) {
  const plX_func *x = &e->xf;
  uint32_t nt = e->block[0] * e->block[1] * e->block[2];
  uint32_t nw = (nt + 31) / 32;
  unsigned ck = e->checks & (PLX_CHECK_UNINIT_REGS | PLX_CHECK_UNINIT_SHARED | PLX_CHECK_RACES);
  if (C->warp_cap && (C->cap_threads != nt || C->cap_smem != e->smem_size || C->cap_checks != ck)) {
    /* its place in the grid and the cluster stays */
    plX_cta keep = *C;
    free_cta(C, C->cap_threads);
    memcpy(C->ctaid, keep.ctaid, sizeof C->ctaid);
    C->cta_linear = keep.cta_linear;
    C->rank = keep.rank;
  }
  e->C = C;
  if (e->C->warp_cap != nw) {
    e->C->warps = calloc(nw, sizeof *e->C->warps);
    e->C->Rall = malloc((size_t)nw * x->nslots * 32 * sizeof(uint64_t));
    e->C->Pall = malloc((size_t)nw * x->npreds * sizeof(uint32_t));
    e->C->smem = malloc(e->smem_size ? e->smem_size : 1);
    e->C->local = malloc((size_t)nt * (e->local_size ? e->local_size : 1));
    e->C->cpq = calloc(nt, sizeof *e->C->cpq);
    e->C->cstack = malloc((size_t)nt * (e->maxdepth ? e->maxdepth : 1) * sizeof *e->C->cstack);
    e->C->cdepth = malloc((size_t)nt * sizeof *e->C->cdepth);
    if (!e->C->cstack || !e->C->cdepth) return plX__fail(e, X_NOSLOT, "out of memory");
    if (e->has_rec && !(e->C->fstk = calloc(nt, sizeof *e->C->fstk)))
      return plX__fail(e, X_NOSLOT, "out of memory");
    if (!e->C->warps || !e->C->Rall || !e->C->Pall || !e->C->smem || !e->C->local || !e->C->cpq)
      return plX__fail(e, X_NOSLOT, "out of memory");
    if (e->checks & PLX_CHECK_UNINIT_REGS) {
      e->C->rdefall = malloc((size_t)nw * x->nslots * sizeof(uint32_t));
      e->C->pdefall = malloc((size_t)nw * x->npreds * sizeof(uint32_t));
      if (!e->C->rdefall || !e->C->pdefall) return plX__fail(e, X_NOSLOT, "out of memory");
    }
    if (e->checks & (PLX_CHECK_UNINIT_SHARED | PLX_CHECK_RACES)) {
      e->C->smem_def = malloc(e->smem_size ? e->smem_size : 1);
      if (!e->C->smem_def) return plX__fail(e, X_NOSLOT, "out of memory");
    }
    if (e->checks & PLX_CHECK_RACES) {
      size_t n = e->smem_size ? e->smem_size : 1;
      e->C->race_w = malloc(n * 4);
      e->C->race_r = malloc(n * 4);
      e->C->race_e = malloc(n * 4);
      if (!e->C->race_w || !e->C->race_r || !e->C->race_e)
        return plX__fail(e, X_NOSLOT, "out of memory");
    }
    e->C->warp_cap = nw;
    C->cap_threads = nt;
    C->cap_smem = e->smem_size;
    C->cap_checks = ck;
  }
  memset(e->C->smem, 0, e->smem_size ? e->smem_size : 1);
  memset(e->C->local, 0, (size_t)nt * (e->local_size ? e->local_size : 1));
  memset(e->C->cdepth, 0, (size_t)nt * sizeof *e->C->cdepth);
  if (e->C->fstk)
    for (uint32_t i = 0; i < nt; i++) e->C->fstk[i].n = 0;
  if (e->C->smem_def) memset(e->C->smem_def, 0, e->smem_size ? e->smem_size : 1);
  if (e->C->race_e) {
    memset(e->C->race_e, 0xff, (size_t)(e->smem_size ? e->smem_size : 1) * 4);
  }
  e->C->epoch = 0;
  size_t rs = (size_t)x->nslots * 32;
  for (uint32_t w = 0; w < nw; w++) {
    plX_warp *W = &e->C->warps[w];
    memset(W, 0, sizeof *W);
    W->idx = (int)w;
    for (int l = 0; l < 32; l++) W->pc[l] = e->entry_pc;
    W->R = e->C->Rall + w * rs;
    W->P = e->C->Pall + (size_t)w * x->npreds;
    memset(W->R, 0, x->nregslots * 32 * sizeof(uint64_t) + 32 * sizeof(uint64_t));
    for (uint32_t c = 0; c < x->nconsts; c++) {
      uint64_t *s = W->R + (size_t)(x->nregslots + 1 + c) * 32, v = x->consts[c];
      for (int l = 0; l < 32; l++) s[l] = v;
    }
    memset(W->P, 0, x->npreds * sizeof(uint32_t));
    if (e->C->rdefall) {
      W->rdef = e->C->rdefall + (size_t)w * x->nslots;
      W->pdef = e->C->pdefall + (size_t)w * x->npreds;
      memset(W->rdef, 0, x->nslots * sizeof(uint32_t));
      /* junk and constants */
      for (uint32_t s = x->nregslots; s < x->nslots; s++) W->rdef[s] = 0xffffffffu;
      memset(W->pdef, 0, x->npreds * sizeof(uint32_t));
      W->pdef[x->npreds - 1] = 0xffffffffu;
    }
    uint32_t n = nt - w * 32 < 32 ? nt - w * 32 : 32;
    W->exists = n == 32 ? 0xffffffffu : ((1u << n) - 1);
  }
  for (int i = 0; i < 16; i++) {
    plX_bar *b = &e->C->bars[i];
    b->expected = b->arrived = 0;
    b->red.n = 0;
  }
  for (uint32_t t = 0; t < nt; t++) {
    e->C->cpq[t].q.n = 0;
    e->C->cpq[t].head = 0;
    e->C->cpq[t].gnext = 0;
  }
  C->done = 0;
  C->racc = 0;
  if (plX__hop_setup(e, C)) return e->status;
  return plX__bw_setup(e, C);
}

/* the deadlock report: which barrier waits, for how many, and where every other thread is */
static int deadlock(plX_emu *e) {
  if (e->H.used && plX__hop_tx_stuck(e)) return e->status; /* a phase's bytes: more precise */
  plX_warp *W = NULL;
  int lane = 0;
  for (uint32_t c = 0; c < e->H.ncl && !W; c++) {
    e->C = &e->ctas[c];
    for (uint32_t w = 0; w < e->nwarps && !W; w++)
      if (e->C->warps[w].waiting & ~e->C->warps[w].exited) {
        W = &e->C->warps[w];
        lane = __builtin_ctz(W->waiting & ~W->exited);
      }
  }
  if (!W) return plX__fail(e, X_NOSLOT, "deadlock");
  plB_buf m;
  plB_buf_init(&m);
  int id = W->bid[lane];
  uint32_t stmt = e->xf.code[W->bpc[lane]].stmt;
  if (id >= XB_MBAR)
    plX__hop_deadlock(e, &m, W, lane);
  else {
    plX_bar *b = &e->C->bars[id];
    plB_buf_printf(&m,
                   "deadlock in CTA (%u,%u,%u): %s waits on barrier %d for %u threads, %u arrived",
                   e->C->ctaid[0], e->C->ctaid[1], e->C->ctaid[2], plX__opname(e, stmt), id,
                   b->expected, b->arrived);
  }
  int shown = 0;
  for (uint32_t w = 0; w < e->nwarps && shown < 4; w++) {
    plX_warp *X = &e->C->warps[w];
    uint32_t ex = X->exited & X->exists, other = X->waiting & X->exists & ~X->exited;
    uint32_t elsewhere = 0;
    for (int l = 0; l < 32; l++)
      if ((other >> l & 1) && (X->bid[l] != id || X->bpc[l] != W->bpc[lane])) elsewhere |= 1u << l;
    if (ex) {
      const plX_ins *xi = &e->xf.code[X->exitpc];
      plB_buf_printf(&m, "; warp %u: %d thread%s exited", w, __builtin_popcount(ex),
                     __builtin_popcount(ex) == 1 ? "" : "s");
      if (xi->sub)
        plB_buf_puts(&m, " (at the end of the kernel)");
      else
        plB_buf_printf(&m, " (line %s)", X_AT(e, xi->stmt));
      shown++;
    }
    if (elsewhere) {
      int l = __builtin_ctz(elsewhere);
      int b = X->bid[l];
      plB_buf_printf(&m, "; warp %u: %d thread%s wait ", w, __builtin_popcount(elsewhere),
                     __builtin_popcount(elsewhere) == 1 ? "" : "s");
      if (b < XB_MBAR)
        plB_buf_printf(&m, "on barrier %d", b);
      else
        plB_buf_printf(&m, "in %s", plX__opname(e, e->xf.code[X->bpc[l]].stmt));
      plB_buf_printf(&m, " (line %s)", X_AT(e, e->xf.code[X->bpc[l]].stmt));
      shown++;
    }
  }
  plX__fail(e, stmt, "%s", plB_buf_cstr(&m));
  plB_buf_free(&m);
  return e->status;
}

/* ---- the budget and SIGINT: where every warp still running is --------------------------------
** One line per place: the warps (of the CTAs of the cluster being run) whose threads are at one
** instruction, running or waiting there, in program order with the executing one's first; each
** names its threads, CTA and the instructions its warps ran. At most X_WHERE_LINES lines. */
volatile sig_atomic_t plX__sigint;
void plX_interrupt(void) {
  plX__sigint = 1;
}

#define X_WHERE_LINES 8
typedef struct xwhere {
  uint32_t stmt, rank, warp, lanes; /* where, the CTA's rank and the warp, its lanes there */
  int bid;                          /* the barrier they wait at (plX_warp.bid), -1 running */
  uint64_t clock;                   /* the warp's instructions (0: it has not started) */
} xwhere;
#define X_SAMEPLACE(a, b) \
  ((a).stmt == (b).stmt && (a).bid == (b).bid && ((a).clock == 0) == ((b).clock == 0))

static int where_cmp(const void *pa, const void *pb) {
  const xwhere *a = pa, *b = pb;
  if (a->stmt != b->stmt) return a->stmt < b->stmt ? -1 : 1;
  if (a->bid != b->bid) return a->bid < b->bid ? -1 : 1;
  if ((a->clock == 0) != (b->clock == 0)) return a->clock == 0 ? 1 : -1; /* not started: last */
  if (a->rank != b->rank) return a->rank < b->rank ? -1 : 1;
  return a->warp < b->warp ? -1 : a->warp > b->warp;
}

/* "threads (0,0,0)..(63,0,0) of CTA (0,0,0) (warps 0-1)" for the warps [i, j) of one CTA, all their
** listed lanes; a single partial warp: its thread count and first thread */
static void where_who(plX_emu *e, plB_buf *b, const xwhere *v, uint32_t i, uint32_t j) {
  const plX_cta *c = &e->ctas[v[i].rank];
  uint32_t first = v[i].warp * 32 + (uint32_t)__builtin_ctz(v[i].lanes);
  uint32_t last = v[j - 1].warp * 32 + 31 - (uint32_t)__builtin_clz(v[j - 1].lanes);
  uint32_t n = 0;
  for (uint32_t k = i; k < j; k++) n += (uint32_t)__builtin_popcount(v[k].lanes);
  if (n == 1) {
    plX__who(e, b, c->ctaid, first);
    plB_buf_printf(b, " (warp %u)", v[i].warp);
    return;
  }
  const uint32_t *B = e->block;
  uint32_t fx = first % B[0], fy = first / B[0] % B[1], fz = first / (B[0] * B[1]);
  uint32_t lx = last % B[0], ly = last / B[0] % B[1], lz = last / (B[0] * B[1]);
  if (n == last - first + 1)
    plB_buf_printf(b, "threads (%u,%u,%u)..(%u,%u,%u)", fx, fy, fz, lx, ly, lz);
  else
    plB_buf_printf(b, "%u threads from (%u,%u,%u)", n, fx, fy, fz);
  plB_buf_printf(b, " of CTA (%u,%u,%u)", c->ctaid[0], c->ctaid[1], c->ctaid[2]);
  if (j - i == 1)
    plB_buf_printf(b, " (warp %u)", v[i].warp);
  else
    plB_buf_printf(b, " (warps %u-%u)", v[i].warp, v[j - 1].warp);
}

int plX__stopped(plX_emu *e, uint32_t stmt, int interrupted) {
  uint32_t ncl = e->H.ncl ? e->H.ncl : 1;
  xwhere *v = calloc((size_t)ncl * e->nwarps * 32, sizeof *v); /* at most one entry per lane */
  if (!v)
    return plX__fail(e, stmt, "%s (and out of memory for the report)",
                     interrupted ? "interrupted" : "the instruction limit was reached");
  uint32_t nv = 0;
  for (uint32_t r = 0; r < ncl; r++) {
    plX_cta *c = e->H.ncl ? &e->ctas[r] : e->C;
    for (uint32_t w = 0; w < e->nwarps; w++) {
      const plX_warp *W = &c->warps[w];
      uint32_t live = W->exists & ~W->exited, from = nv;
      for (uint32_t m = live; m; m &= m - 1) {
        int l = __builtin_ctz(m);
        int wt = (W->waiting >> l & 1) != 0;
        uint32_t pc = wt ? W->bpc[l] : W->pc[l];
        uint32_t st = pc < e->xf.ncode ? e->xf.code[pc].stmt : X_NOSLOT;
        int bid = wt ? W->bid[l] : -1;
        uint32_t k = from;
        while (k < nv && !(v[k].stmt == st && v[k].bid == bid)) k++;
        if (k == nv) { /* a new place of this warp */
          xwhere x = { st, r, w, 0, bid, W->clock };
          v[nv++] = x;
        }
        v[k].lanes |= 1u << l;
      }
    }
  }
  qsort(v, nv, sizeof *v, where_cmp);
  uint32_t a = 0, b = 0; /* the executing place first */
  while (a < nv && v[a].stmt != stmt) a++;
  b = a;
  while (b < nv && v[b].stmt == stmt) b++;
  if (a < nv && a > 0) {
    xwhere *t = malloc((size_t)(b - a) * sizeof *t);
    if (t) {
      memcpy(t, v + a, (size_t)(b - a) * sizeof *t);
      memmove(v + (b - a), v, (size_t)a * sizeof *v);
      memcpy(v, t, (size_t)(b - a) * sizeof *t);
      free(t);
    }
  }
  plB_buf m;
  plB_buf_init(&m);
  if (interrupted)
    plB_buf_printf(&m, "interrupted (SIGINT) after %llu warp instructions",
                   (unsigned long long)e->st.warp_insns);
  else
    plB_buf_printf(&m,
                   "the instruction limit (%llu warp instructions) was reached: does the "
                   "kernel loop forever? (--limit N, or limit = N in rt.launch, raises it; "
                   "docs/emulator.md, \"The instruction budget\")",
                   (unsigned long long)e->limit);
  uint64_t total = (uint64_t)e->grid[0] * e->grid[1] * e->grid[2];
  plB_buf_printf(&m, "; grid (%u,%u,%u): %llu CTA%s finished, %u running, %llu not started; ",
                 e->grid[0], e->grid[1], e->grid[2], (unsigned long long)e->st.ctas,
                 e->st.ctas == 1 ? "" : "s", ncl,
                 (unsigned long long)(total - e->st.ctas - e->st.canceled - ncl));
  plB_buf_puts(&m, "where the warps still running are:");
  uint32_t lines = 0, i = 0;
  while (i < nv) {
    uint32_t j = i + 1;
    while (j < nv && X_SAMEPLACE(v[j], v[i])) j++;
    if (lines == X_WHERE_LINES) { /* the rest, counted */
      uint32_t places = 0, warps = 0;
      for (uint32_t k = i; k < nv; k++) {
        warps++;
        if (k == i || !X_SAMEPLACE(v[k], v[k - 1])) places++;
      }
      plB_buf_printf(&m, "\n  ... and %u more place%s (%u warp%s)", places, places == 1 ? "" : "s",
                     warps, warps == 1 ? "" : "s");
      break;
    }
    lines++;
    const plI_stmt *st = v[i].stmt != X_NOSLOT ? plX__stmt(e, v[i].stmt) : NULL;
    plB_buf_puts(&m, "\n  ");
    if (st && st->file)
      plB_buf_printf(&m, "%s:%u", plI_cstr(e->m, st->file), st->line);
    else
      plB_buf_puts(&m, "?");
    plB_buf_printf(&m, " (%s%s): ", plX__opname(e, v[i].stmt), v[i].bid >= 0 ? ", waiting" : "");
    uint64_t lo = v[i].clock, hi = v[i].clock;
    uint32_t runs = 0, k = i;
    while (k < j) { /* runs of whole warps of a CTA */
      uint32_t q = k + 1;
      int whole = v[k].lanes == 0xffffffffu;
      while (whole && q < j && v[q].rank == v[k].rank && v[q].warp == v[q - 1].warp + 1 &&
             v[q].lanes == v[k].lanes)
        q++;
      if (runs == 3) {
        uint32_t left = 0;
        for (uint32_t x = k; x < j; x++) left++;
        plB_buf_printf(&m, ", and %u more warp%s", left, left == 1 ? "" : "s");
        break;
      }
      if (runs) plB_buf_puts(&m, ", ");
      where_who(e, &m, v, k, q);
      runs++;
      k = q;
    }
    for (uint32_t x = i; x < j; x++) {
      if (v[x].clock < lo) lo = v[x].clock;
      if (v[x].clock > hi) hi = v[x].clock;
    }
    if (hi == 0)
      plB_buf_puts(&m, "; not started (this scheduler runs a warp until it waits or exits)");
    else if (lo == hi)
      plB_buf_printf(&m, "; %llu instructions%s", (unsigned long long)lo, j - i > 1 ? " each" : "");
    else
      plB_buf_printf(&m, "; %llu to %llu instructions", (unsigned long long)lo,
                     (unsigned long long)hi);
    i = j;
  }
  free(v);
  plX__fail(e, stmt, "%s", plB_buf_cstr(&m));
  plB_buf_free(&m);
  return e->status;
}

/* one cluster (one CTA without clusters): its CTAs run together, round by round; when no warp can
** run, the copies in flight land (and may complete mbarrier phases), else it is a deadlock */
static int run_cluster(plX_emu *e, const uint32_t first[3]) {
  plX_hop *H = &e->H;
  e->clser++;
  for (uint32_t r = 0; r < H->ncl; r++) {
    plX_cta *c = &e->ctas[r];
    c->ctaid[0] = first[0] + r % H->cl[0];
    c->ctaid[1] = first[1] + r / H->cl[0] % H->cl[1];
    c->ctaid[2] = first[2] + r / (H->cl[0] * H->cl[1]);
    c->cta_linear = ((uint64_t)c->ctaid[2] * e->grid[1] + c->ctaid[1]) * e->grid[0] + c->ctaid[0];
    c->rank = r;
    if (setup_cta(e, c)) return e->status;
  }
  for (;;) {
    int ran = 0, live = 0;
    for (uint32_t r = 0; r < H->ncl; r++) {
      e->C = &e->ctas[r];
      for (uint32_t w = 0; w < e->nwarps; w++) {
        plX_warp *W = &e->C->warps[w];
        uint32_t ready = W->exists & ~W->exited & ~W->waiting;
        if (W->exists & ~W->exited) live = 1;
        if (!ready) continue;
        ran = 1;
        if (plX__run_warp(e, W)) return e->status;
      }
    }
    if (!live) break;
    if (ran) continue;
    int f = plX__hop_flush(e);
    if (f < 0) return e->status;
    if (f) continue;
    f = plX__hop_cluster_check(e);
    if (f < 0) return e->status;
    if (f) continue;
    return deadlock(e);
  }
  if (plX__race_held(e)) return e->status;     /* reports held back to the end */
  if (plX__hop_flush(e) < 0) return e->status; /* copies nobody waited for land too */
  for (uint32_t r = 0; r < H->ncl; r++) {
    e->C = &e->ctas[r];
    /* copies still in flight when their thread exited land now */
    for (uint32_t t = 0; t < e->nthreads; t++) plX__cp_complete(e, t, 0);
    if (e->status || plX__bw_cta_end(e, e->C)) return e->status;
    e->st.ctas++;
  }
  return e->status;
}

/* SIGINT while an emulation runs: the first stops every run at its next instruction (plX__sigint)
** and gives the signal back to the process's previous handler, so a second one acts as before.
** Installed by the first of the runs in progress (threads may run several), restored by the last;
** a SIGINT the process ignores (a background job) stays ignored. */
static pthread_mutex_t X_SIGMU = PTHREAD_MUTEX_INITIALIZER;
static int x_sigdepth, x_sigmine;
static struct sigaction x_sigold;
static void on_sigint(int sig) {
  (void)sig;
  plX__sigint = 1;
  sigaction(SIGINT, &x_sigold, NULL);
}
static void sig_enter(void) {
  pthread_mutex_lock(&X_SIGMU);
  if (x_sigdepth++ == 0) {
    struct sigaction cur;
    x_sigmine = 0;
    plX__sigint = 0;
    if (sigaction(SIGINT, NULL, &cur) == 0 && cur.sa_handler != SIG_IGN) {
      struct sigaction sa;
      memset(&sa, 0, sizeof sa);
      sa.sa_handler = on_sigint;
      sa.sa_flags = SA_RESTART; /* (printf's writes go on) */
      sigemptyset(&sa.sa_mask);
      x_sigold = cur;
      x_sigmine = sigaction(SIGINT, &sa, NULL) == 0;
    }
  }
  pthread_mutex_unlock(&X_SIGMU);
}
static void sig_leave(void) {
  pthread_mutex_lock(&X_SIGMU);
  if (--x_sigdepth == 0 && x_sigmine) {
    sigaction(SIGINT, &x_sigold, NULL);
    x_sigmine = 0;
  }
  pthread_mutex_unlock(&X_SIGMU);
}

static int run_grid(plX_emu *e);
int plX_run(plX_emu *e) {
  if (e->status) return e->status;
  e->deferred.n = 0;
  e->ndeferred = 0;
  sig_enter();
  int rc = run_grid(e);
  sig_leave();
  if (!rc && e->ndeferred) rc = plX__optin_made(e); /* no always-on one: the kept one */
  e->deferred.n = 0;
  e->ndeferred = 0;
  return rc;
}

static int run_grid(plX_emu *e) {
  if (!e->launched) return plX__fail(e, X_NOSLOT, "no launch geometry (grid, block) was set");
  for (uint32_t i = 0; i < e->nparams; i++)
    if (!e->pset[i]) return plX__fail(e, X_NOSLOT, "parameter '%s' was not set", e->params[i].name);
  plX_hop *H = &e->H;
  for (int i = 0; i < 3; i++)
    if (e->grid[i] % H->cl[i])
      return plX__fail(e, X_NOSLOT,
                       "the grid (%u, %u, %u) is not a whole number of clusters (%u, %u, %u)",
                       e->grid[0], e->grid[1], e->grid[2], H->cl[0], H->cl[1], H->cl[2]);
  e->nthreads = e->block[0] * e->block[1] * e->block[2];
  e->nwarps = (e->nthreads + 31) / 32;
  e->smem_size = e->has_dyn ? e->dyn_off + e->dyn_smem : e->smem_static;
  if (e->nctas_cap < H->ncl) {
    plX_cta *nc = realloc(e->ctas, H->ncl * sizeof *nc);
    if (!nc) return plX__fail(e, X_NOSLOT, "out of memory");
    memset(nc + e->nctas_cap, 0, (H->ncl - e->nctas_cap) * sizeof *nc);
    e->ctas = nc;
    e->nctas_cap = H->ncl;
  }
  e->trace.n = 0;
  memset(&e->st, 0, sizeof e->st); /* statistics, the limit and %globaltimer count this run only */
  e->checks &= ~(unsigned)X_CHECK_TRACK;
  plX__hop_scan(e);
  if (e->H.track) e->checks |= X_CHECK_TRACK;
  free(e->gsync);
  e->gsync = NULL;
  e->gpf = NULL;
  e->ngsync = 0;
  plX__race_reset(e); /* (a failed run's) */
  /* the races check on global memory */
  if (e->checks & PLX_CHECK_RACES) {
    uint64_t n = (uint64_t)e->grid[0] * e->grid[1] * e->grid[2];
    if (n > ((uint64_t)1 << 31) || !(e->gsync = calloc((size_t)n * 2, sizeof *e->gsync)))
      return plX__fail(e, X_NOSLOT, "out of memory (the races check on global memory, %llu CTAs)",
                       (unsigned long long)n);
    e->ngsync = n;
    e->gpf = e->gsync + n;
    uint32_t nc = (H->ncl ? H->ncl : 1) * e->nthreads;
    if (e->cgevc < nc) {
      uint32_t *p = realloc(e->gevc, (size_t)nc * sizeof *p);
      if (!p) return plX__fail(e, X_NOSLOT, "out of memory (the races check on global memory)");
      e->gevc = p;
      e->cgevc = nc;
    }
    memset(e->gevc, 0xff, (size_t)nc * sizeof *e->gevc);
    if (plX__race_hold_room(e, nc))
      return plX__fail(e, X_NOSLOT, "out of memory (the races check on global memory)");
    e->ngev = 0;
    if (++e->mem->gwgen == 0) e->mem->gwgen = 1; /* 0: never written */
    e->clser = 0;
  }
  /* the clusters in order, x fastest; a try_cancel (blackwell/clc.c) takes the next one too */
  uint64_t runs = 0, nx = e->grid[0] / H->cl[0], ny = e->grid[1] / H->cl[1];
  H->clc_total = nx * ny * (e->grid[2] / H->cl[2]);
  H->clc_next = H->clc_req = 0;
  while (H->clc_next < H->clc_total) {
    uint64_t i = H->clc_next++;
    uint32_t first[3] = { (uint32_t)(i % nx) * H->cl[0], (uint32_t)(i / nx % ny) * H->cl[1],
                          (uint32_t)(i / (nx * ny)) * H->cl[2] };
    if (e->sample && runs++ == e->sample) return 0; /* a sample: the first only */
    if (run_cluster(e, first)) return e->status;
  }
  return 0;
}
