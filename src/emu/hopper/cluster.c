/* hopper/cluster.c -- clusters: shared::cluster addresses (mapa, distributed shared memory),
** barrier.cluster. */
#include "state.h"
#include "fail.h"
#include "mem.h"
#include "hooks.h"
#include "hopper.h"
#include "bwhooks.h"

/* ---- shared::cluster addresses
** ----------------------------------------------------------------- */
int plX__hop_smem(plX_emu *e, uint64_t a, plX_cta **c, uint32_t *off) {
  uint32_t r = (uint32_t)(a >> X_DSM_SHIFT);
  if (a >= X_WIN) return 0;
  if (r == 0) {
    *c = e->C;
    *off = (uint32_t)a;
    return 1;
  }
  if (r - 1 >= e->H.ncl) return 0;
  *c = &e->ctas[r - 1];
  *off = (uint32_t)a & DSM_MASK;
  return 1;
}

/* the shared address of an operand (space: shared, shared::cluster with XF_CLUSTER, or generic) for
** lane l, as a CTA and an offset checked against n bytes aligned to al; 0 after reporting */
int plX__h_smem_at(plX_emu *e, const plX_ins *in, plX_warp *w, int l, uint64_t a, int space,
                   int cluster, uint32_t n, uint32_t al, plX_cta **c, uint32_t *off,
                   const char *what) {
  if (space == XS_GENERIC) {
    if (a - X_SH_BASE >= X_WIN)
      return plX__fail_lanef(e, in, w, l, "%s: generic address 0x%llx is not in the shared window",
                             what, (unsigned long long)a),
             0;
    a -= X_SH_BASE;
    cluster = 1;
  }
  if (!plX__hop_smem(e, a, c, off))
    return plX__fail_lanef(e, in, w, l,
                           "%s: shared address 0x%llx names no CTA of the cluster (%u CTAs)", what,
                           (unsigned long long)a, e->H.ncl),
           0;
  if (*c != e->C && !cluster)
    return plX__fail_lanef(e, in, w, l,
                           "%s: shared address 0x%llx is in another CTA (a shared::cluster "
                           "address) but the instruction is .shared::cta",
                           what, (unsigned long long)a),
           0;
  if ((uint64_t)*off + n > e->smem_size)
    return plX__fail_lanef(
               e, in, w, l,
               "%s: shared address 0x%x (%u bytes) outside the %u bytes of shared memory", what,
               *off, n, e->smem_size),
           0;
  if (al > 1 && *off % al)
    return plX__fail_lanef(e, in, w, l, "%s: shared address 0x%x is not a multiple of %u", what,
                           *off, al),
           0;
  /* a CTA of the cluster that exited: reported */
  if (*c != e->C) {
    const char *does = !strcmp(what, "mbarrier")          ? "uses the mbarrier at"
                       : !strcmp(what, "the mbarrier")    ? "completes on the mbarrier at"
                       : !strcmp(what, "the destination") ? "copies into"
                                                          : "reads";
    if (plX__exited(e, in->stmt, *c, *off, (uint32_t)w->idx * 32 + (uint32_t)l, does)) return 0;
  }
  return 1;
}

/* the second address operand of TMA loads and bulk copies: the mbarrier (slot e, bits rnd,
** offset target) */
uint64_t plX__h_mbar_addr(const plX_ins *in, const plX_warp *w, int l) {
  uint64_t v = w->R[(size_t)in->e * 32 + (size_t)l];
  if (in->rnd == 32) v = (uint32_t)v;
  return v + in->target;
}
uint64_t plX__h_src_addr(const plX_ins *in, const plX_warp *w, int l) {
  uint64_t v = w->R[(size_t)in->a * 32 + (size_t)l];
  if (in->t3 == 32) v = (uint32_t)v;
  return v + (uint64_t)in->off2;
}

/* ---- clusters
** --------------------------------------------------------------------------------------- */
static void cl_complete(plX_emu *e) {
  plX_hop *H = &e->H;
  H->clphase++;
  e->gbars++;
  H->clcount = 0;
  /* a barrier of every CTA's threads too */
  for (uint32_t r = 0; r < H->ncl; r++) e->ctas[r].epoch++;
  plX__hop_fence_snap(e);
  plX__bw_cluster_sync(e);
  for (uint32_t r = 0; r < H->ncl; r++)
    for (uint32_t w = 0; w < e->nwarps; w++) {
      plX_warp *W = &e->ctas[r].warps[w];
      uint32_t m = W->waiting;
      while (m) {
        int l = __builtin_ctz(m);
        m &= m - 1;
        if (W->bid[l] == XB_CLUSTER) W->waiting &= ~(1u << l);
      }
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
        int l = __builtin_ctz(live);
        live &= live - 1;
        if (c->h.clarr[(uint32_t)w * 32 + (uint32_t)l] != H->clphase + 1) return 0;
      }
    }
  }
  return 1;
}

int plX__hop_cluster_check(plX_emu *e) {
  /* exits may have freed registers */
  if (e->ctas[0].h.nreg) {
    int any = 0;
    plX_cta *keep = e->C;
    for (uint32_t r = 0; r < e->H.ncl; r++) {
      e->C = &e->ctas[r];
      any |= plX__h_regs_wake(e);
    }
    e->C = keep;
    if (any) return 1;
  }
  if (!e->H.clcount || !e->ctas[0].h.clarr || !cl_all(e)) return 0;
  cl_complete(e);
  return 1;
}

int plX__h_exec_clbar(plX_emu *e, plX_warp *w, plX_ins *in, uint32_t pc, uint32_t em,
                      uint32_t *blocked) {
  plX_hop *H = &e->H;
  uint32_t *A = e->C->h.clarr;
  if ((in->fl & XF_ALIGNED) && em != (w->exists & ~w->exited))
    return plX__fail_warp(e, in, w, "an aligned barrier executed by part of a warp",
                          (w->exists & ~w->exited) & ~em);
  uint32_t wait = 0;
  LANES(l, em, {
    uint32_t tid = (uint32_t)w->idx * 32 + (uint32_t)l;
    if (in->sub == 0) {
      if (A[tid] == H->clphase + 1)
        return plX__fail_lane(
            e, in, w, l,
            "arrives twice at the cluster barrier without a barrier.cluster.wait between");
      A[tid] = H->clphase + 1;
      H->clcount++;
    } else {
      if (!A[tid])
        return plX__fail_lane(e, in, w, l,
                              "barrier.cluster.wait without a barrier.cluster.arrive before it");
      if (A[tid] <= H->clphase)
        A[tid] = 0; /* its phase completed */
      else {
        wait |= 1u << l;
        w->bid[l] = XB_CLUSTER;
        w->bpc[l] = pc;
      }
    }
  });
  w->waiting |= wait;
  *blocked = wait;
  if (in->sub == 0 && cl_all(e)) cl_complete(e);
  return 0;
}

int plX__h_exec_mapa(plX_emu *e, plX_warp *w, plX_ins *in, uint32_t em) {
  uint64_t *D = wslot(w, in->d), *A = wslot(w, in->a), *B = wslot(w, in->b);
  int gen = in->space == XS_GENERIC;
  LANES(l, em, {
    uint64_t a = A[l];
    if (in->t == PLT_U32 || in->abits == 32) a = (uint32_t)a;
    if (gen) {
      if (a - X_SH_BASE >= X_WIN)
        return plX__fail_lanef(e, in, w, l, "generic address 0x%llx is not in the shared window",
                               (unsigned long long)a);
      a -= X_SH_BASE;
    }
    plX_cta *c;
    uint32_t off;
    if (!plX__hop_smem(e, a, &c, &off))
      return plX__fail_lanef(e, in, w, l, "shared address 0x%llx names no CTA of the cluster",
                             (unsigned long long)a);
    if (in->op == X_GETRANK) {
      D[l] = c->rank;
      continue;
    }
    uint32_t r = (uint32_t)B[l];
    if (r >= e->H.ncl)
      return plX__fail_lanef(e, in, w, l, "CTA rank %u is outside the cluster of %u", r, e->H.ncl);
    uint64_t v = (uint64_t)(r + 1) << X_DSM_SHIFT | off;
    D[l] = gen ? X_SH_BASE + v : v;
  });
  return 0;
}
