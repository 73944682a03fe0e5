/* hopper.h -- what the files of src/emu/hopper/ share among themselves (the core emulator sees
** none of it: it calls the Hopper families through hooks.h). */
#ifndef PL_EMU_HOPPER_H
#define PL_EMU_HOPPER_H

#include "state.h"
#include "fail.h"

/* The Hopper families: mbarrier objects (phases, arrival and transaction counts), TMA tensor
** copies and bulk copies (with the emulator's tensor maps), wgmma from registers and matrix
** descriptors, clusters (barrier.cluster, mapa, distributed shared memory, multicast),
** elect.sync, setmaxnreg budgets, and the async-proxy checks (fence.proxy.async, the swizzle a
** tile was written with, writes into a wgmma's operands before its wait_group).
**
** Copies into shared memory (TMA loads, bulk copies) are read from their source when issued and
** land when every warp of the cluster waits (emu.c's scheduler calls plX__hop_flush): the latest
** moment the hardware could deliver them, so code that reads a destination before its mbarrier
** says so sees stale bytes (and the uninit_shared check names the copy). Copies out of shared
** memory (TMA stores and reductions, bulk stores) happen when issued; bulk groups are counted
** per thread so that touching their bytes before the wait_group that covers them is reported.
** tensormap.replace edits the emulator's tensor maps in memory, with the tensormap-proxy fences
** checked at the TMA. try_wait and test_wait suspend the thread until the phase completes. */

#define DSM_MASK       ((1u << X_DSM_SHIFT) - 1)
/* "LINE" (or "LINE in FILE") of the instruction at pc, for a message naming a second place */
#define line_of(e, pc) X_AT((e), (e)->xf.code[pc].stmt)

static inline void whot(plX_emu *e, plB_buf *b, const plX_cta *c, uint32_t tid) {
  plX__who(e, b, c->ctaid, tid);
}

/* the async-proxy summary (plX_cta_hop.pwd): per 16-byte block, BLK_PW when some pw may be
** nonzero, the low bits psw's one value there or BLK_MIX */
#define PW_BLK  16
#define BLK_PW  0x80
#define BLK_MIX 0x7f

/* block b's summary made exact */
static inline uint8_t plX__h_blk_fix(plX_cta_hop *h, uint32_t b) {
  const uint32_t *p = h->pw + (size_t)b * PW_BLK;
  const uint8_t *s = h->psw + (size_t)b * PW_BLK;
  uint32_t any = 0, mix = 0;
  for (int i = 0; i < PW_BLK; i++) {
    any |= p[i];
    mix |= (uint32_t)(s[i] ^ s[0]);
  }
  uint8_t f = (uint8_t)((any ? BLK_PW : 0) | (mix || s[0] >= BLK_MIX ? BLK_MIX : s[0]));
  h->pwd[b] = f;
  return f;
}

/* no generic writer on record in shared bytes [a, a + n) of h */
static inline int plX__h_pw_none(plX_cta_hop *h, uint32_t a, uint32_t n) {
  if (!n) return 1;
  for (uint32_t b = a / PW_BLK, last = (a + n - 1) / PW_BLK; b <= last; b++) {
    if (!(h->pwd[b] & BLK_PW)) continue;
    uint32_t lo = b * PW_BLK, hi = lo + PW_BLK;
    if (a <= lo && a + n >= hi) {
      if (plX__h_blk_fix(h, b) & BLK_PW) return 0;
    } else { /* part of the block: those bytes */
      uint32_t from = a > lo ? a : lo, to = a + n < hi ? a + n : hi;
      for (uint32_t i = from; i < to; i++)
        if (h->pw[i]) return 0;
    }
  }
  return 1;
}

/* a generic write of bytes [off, off + n) of h: a writer on record there, psw 0 */
static inline void plX__h_pw_mark(plX_cta_hop *h, uint32_t off, uint32_t n) {
  if (!n) return;
  for (uint32_t b = off / PW_BLK, last = (off + n - 1) / PW_BLK; b <= last; b++) {
    uint32_t lo = b * PW_BLK;
    int whole = off <= lo && off + n >= lo + PW_BLK;
    h->pwd[b] = (uint8_t)(BLK_PW | (whole || !(h->pwd[b] & BLK_MIX) ? 0 : BLK_MIX));
  }
}

/* a copy landed in bytes [off, off + n) of h: no generic writer on record there (pw zeroed,
** where the summary does not already say so), psw v */
static inline void plX__h_land(plX_cta_hop *h, uint32_t off, uint32_t n, uint8_t v) {
  memset(h->psw + off, v, n);
  uint32_t end = off + n;
  while (off < end) {
    uint32_t b = off / PW_BLK, bend = (b + 1) * PW_BLK, to = bend < end ? bend : end;
    uint8_t f = h->pwd[b];
    if (f & BLK_PW) memset(h->pw + off, 0, (to - off) * sizeof *h->pw);
    if (off == b * PW_BLK && to == bend)
      h->pwd[b] = v < BLK_MIX ? v : BLK_MIX;
    else
      h->pwd[b] = (uint8_t)((f & BLK_PW) | ((f & BLK_MIX) == v ? v : BLK_MIX));
    off = to;
  }
}

typedef struct plX_tmap {
  uint64_t addr;
  int rank, dtype, sw, esize;
  uint64_t dims[5], strides[5]; /* strides[0] = esize */
  uint32_t box[5], es[5];
  int mode, oob;        /* 1: im2col; 1: NaN fill */
  int32_t lo[3], hi[3]; /* im2col: the pixel box corners of W, H, D */
  uint32_t cpp, ppc;    /* im2col: channels per pixel, pixels per column */
} plX_tmap;

/* desc.c: one element of type t (PLT_*) from its bits; rows [r0, r0 + rows) x K of a matrix
** in shared memory through descriptor desc in the layout of target sm (90: wgmma, 100: tcgen05,
** decoded and checked), into out[row * K + k]; MN-major if mn. span: the bytes read. 0 ok. */
double plX__h_elem(uint32_t bits, int t);
int plX__h_desc_load(plX_emu *e, plX_ins *in, plX_warp *w, int sm, uint64_t desc, int t, int mn,
                     uint32_t r0, uint32_t rows, uint32_t K, double *out, const char *which,
                     plX_wgrd *span);
/* the same, where *res is set to the values: out, or the gather cache's copy (read-only, valid
** until the next gather of this CTA) */
int plX__h_desc_load_ref(plX_emu *e, plX_ins *in, plX_warp *w, int sm, uint64_t desc, int t, int mn,
                         uint32_t r0, uint32_t rows, uint32_t K, double *out, const double **res,
                         const char *which, plX_wgrd *span);
/* plX__h_desc_load of a K-major byte matrix (t an 8-bit type) whose 16-byte chunks hold elements
** in their first data bytes only, the rest padding that the uninitialized-read check passes over
** (the .b4x16_p64 / .b6x16_p32 containers of tcgen05.mma) */
int plX__h_desc_load_pad(plX_emu *e, plX_ins *in, plX_warp *w, int sm, uint64_t desc, int t,
                         uint32_t rows, uint32_t K, uint32_t data, double *out, const char *which,
                         plX_wgrd *span);
void plX__h_desc_free(plX_cta *c); /* the gather cache desc_load keeps per CTA */

/* cluster.c */
int plX__h_smem_at(plX_emu *e, const plX_ins *in, plX_warp *w, int l, uint64_t a, int space,
                   int cluster, uint32_t n, uint32_t al, plX_cta **c, uint32_t *off,
                   const char *what);
uint64_t plX__h_mbar_addr(const plX_ins *in, const plX_warp *w, int l);
uint64_t plX__h_src_addr(const plX_ins *in, const plX_warp *w, int l);
int plX__h_exec_clbar(plX_emu *e, plX_warp *w, plX_ins *in, uint32_t pc, uint32_t em,
                      uint32_t *blocked);
int plX__h_exec_mapa(plX_emu *e, plX_warp *w, plX_ins *in, uint32_t em);

/* mbarrier.c */
plX_mbar *plX__h_mb_find(plX_cta *c, uint32_t off);
uint32_t *plX__h_mb_dn(plX_cta *c, const plX_mbar *m, int last);
plX_mbar *plX__h_mb_get(plX_emu *e, const plX_ins *in, plX_warp *w, int l, plX_cta *c,
                        uint32_t off);
int plX__h_mb_copy_visible(plX_emu *e, const plX_ins *in, plX_warp *w, int l, uint32_t mask,
                           uint32_t moff);
int plX__h_mb_arrive(plX_emu *e, const plX_ins *in, plX_warp *w, int l, plX_cta *c, plX_mbar *m,
                     uint32_t count, int drop, int nocomplete, uint64_t *state);
int plX__h_mb_tx(plX_emu *e, uint32_t stmt, plX_cta *c, plX_mbar *m, int64_t delta,
                 const char *who);
int plX__h_exec_mbar(plX_emu *e, plX_warp *w, plX_ins *in, uint32_t em);
int plX__h_exec_mbwait(plX_emu *e, plX_warp *w, plX_ins *in, uint32_t pc, uint32_t em,
                       uint32_t *blocked);

/* tensormap.c */
int plX__h_tm_esize(int dt);
int plX__h_tm_read(plX_emu *e, plX_ins *in, plX_warp *w, int l, uint64_t a, plX_tmap *t);
void plX__h_tm_release(plX_emu *e, uint32_t tid, const uint8_t *only);
int plX__h_tm_acquire(plX_emu *e, const plX_ins *in, uint64_t a, uint32_t tid);
int plX__h_exec_tmap(plX_emu *e, plX_warp *w, plX_ins *in, uint32_t em);

/* bulk.c */
int plX__h_bst_push(plX_emu *e, const plX_ins *in, uint32_t tid, uint32_t slo, uint32_t shi,
                    uint64_t glo, uint64_t ghi);
int plX__h_bst_overwrite(plX_emu *e, const plX_ins *in, plX_cta *c, uint32_t off, uint32_t n,
                         uint32_t tid);
int plX__h_exec_bulkgrp(plX_emu *e, plX_warp *w, plX_ins *in, uint32_t em);
int plX__h_exec_bulk(plX_emu *e, plX_warp *w, plX_ins *in, uint32_t em);

/* wgmma.c */
void plX__h_wg_retire(plX_emu *e, plX_cta *c);
void plX__h_wg_release(plX_emu *e, plX_warp *w, plX_ins *in, plX_cta *c, plX_mbar *m);
void plX__h_wg_acquire(plX_emu *e, plX_warp *w, plX_cta *c, plX_mbar *m);
int plX__h_wg_check(plX_emu *e, uint32_t stmt, plX_cta *c, uint32_t off, uint32_t n, int warp,
                    int only_acq, const char *who);
int plX__h_proxy_read(plX_emu *e, const plX_ins *in, plX_warp *w, int l, plX_cta *c, uint32_t off,
                      uint32_t n, int want_sw, const char *what);
int plX__h_exec_wgmma(plX_emu *e, plX_warp *w, plX_ins *in, uint32_t em);

/* inflight.c */
/* a copy into shared [lo, lo + n) of the CTAs of mask, completing tx bytes on the mbarrier at
** offset mbar of each destination (bpar >= 0: of the CTA rank & ~1 | bpar of its pair) */
int plX__h_queue(plX_emu *e, const plX_ins *in, uint32_t tid, uint32_t mask, uint32_t lo,
                 uint32_t n, uint32_t mbar, uint32_t tx, uint8_t *data, uint8_t *valid, int sw,
                 int bpar);
int plX__h_source_read(plX_emu *e, const plX_ins *in, plX_warp *w, int l, plX_cta *c, uint32_t off,
                       uint32_t n);

/* tma.c */
uint64_t plX__h_red_apply(int op, int dt, uint64_t old, uint64_t v);
int plX__h_exec_tma(plX_emu *e, plX_warp *w, plX_ins *in, uint32_t em);

/* hopper.c */
int plX__h_regs_wake(plX_emu *e);

/* ../blackwell/clc.c: clusterlaunchcontrol.try_cancel and query_cancel */
int plX__h_exec_clc(plX_emu *e, plX_warp *w, plX_ins *in, uint32_t em);

#endif
