/* blackwell.h -- what the files of src/emu/blackwell/ share among themselves (the core emulator
** sees none of it: it calls them through bwhooks.h). */
#ifndef PL_EMU_BLACKWELL_H
#define PL_EMU_BLACKWELL_H

#include "state.h"
#include "fail.h"
#if defined(__SSE2__)
#include <emmintrin.h>
#endif

/* Tensor memory: per CTA 128 lanes x 512 columns of 32-bit cells, each with a tag saying who wrote
** it last (0 nothing: tensor memory is not zeroed; 1 a tcgen05.st; 2 + 16 * op + rank the
** tcgen05.mma op of CTA rank's op table), the allocations (columns, owner warp, cta_group) and the
** allocation permit.
**
** Completion knowledge: the async ops (tcgen05.mma) of warp w of CTA r are numbered 1, 2, ... in
** issue order; a warp knows "the first k ops of (r, w) are complete" when a chain of
** tcgen05.commit -> mbarrier phase -> wait (then more arrives, waits and CTA or cluster barriers)
** leads to it. ka is what it acquired, kf what a tcgen05.fence::after_thread_sync since made usable
** by its tcgen05 instructions. The emulator computes each MMA when it is issued, so every access
** that could observe it early is checked against this knowledge instead. */
#define BW_LANES 128
#define BW_COLS  512

typedef struct plX_tcop { /* an async tcgen05 op */
  uint32_t pc, warp, seq, lane;
} plX_tcop;
typedef struct
    plX_tcrd { /* shared bytes [lo, hi) of the CTA holding it, read by op seq of (rank, warp) */
  uint32_t lo, hi, rank, warp, seq, pc;
} plX_tcrd;
typedef struct plX_tcpend { /* cells lanes [l0, l1) x columns [c0, c1) of a ld/st not yet waited */
  uint32_t l0, l1, c0, c1, pc;
} plX_tcpend;
typedef struct plX_tcalloc {
  uint32_t col, n, pc, warp, group;
} plX_tcalloc;
typedef struct plX_tcmk {  /* an mbarrier's knowledge: of the open phase, of the completed ones */
  uint32_t off, phase, at; /* at: its 2 x nslot words in kmv */
} plX_tcmk;

typedef struct plX_bw_cta {
  uint32_t *cell, *tag; /* BW_LANES x BW_COLS */
  PLB_VEC(plX_tcalloc) al;
  uint32_t relinq;          /* 1 + the pc of the relinquish_alloc_permit, 0 none */
  uint32_t last_n, last_pc; /* the last allocation's columns (0 none) and pc */
  PLB_VEC(plX_tcop) ops;
  PLB_VEC(plX_tcrd) rd;
  PLB_VEC(plX_tcmk) mk;
  PLB_VEC(uint32_t) kmv;
  uint32_t nslot, nwarps; /* CTAs of the cluster x warps; warps */
  uint32_t *ka, *kf;      /* per warp x slot */
  uint32_t *kpc;          /* per warp: 1 + the pc of the wait that last taught it something */
  uint32_t *seq;          /* per warp: its async ops so far */
  PLB_VEC(plX_tcpend) * pld, *pst; /* per warp */
  /* the A collector buffer: the A (M x K) the last .collector::a::fill read, and who filled it */
  double *coll;
  uint32_t coll_m, coll_k, coll_pc, coll_tid; /* coll_pc: 1 + pc, 0 empty */
  double *scr; /* an MMA's operands and D (tcmma.c), kept between MMAs */
  size_t nscr; /* its doubles */
} plX_bw_cta;

static inline uint32_t bw_tag(uint32_t op, uint32_t rank) {
  return 2 + op * 16 + rank;
}

/* the first i' in [i, n) with p[i'] != v, n if none */
static inline uint32_t bw_skip_eq(const uint32_t *p, uint32_t i, uint32_t n, uint32_t v) {
#if defined(__SSE2__)
  const __m128i vv = _mm_set1_epi32((int)v);
  for (; i + 8 <= n; i += 8) {
    __m128i x = _mm_cmpeq_epi32(_mm_loadu_si128((const __m128i *)(const void *)(p + i)), vv),
            y = _mm_cmpeq_epi32(_mm_loadu_si128((const __m128i *)(const void *)(p + i + 4)), vv);
    if (_mm_movemask_epi8(_mm_and_si128(x, y)) != 0xffff) break;
  }
  for (; i + 4 <= n; i += 4) {
    int mk = _mm_movemask_epi8(
        _mm_cmpeq_epi32(_mm_loadu_si128((const __m128i *)(const void *)(p + i)), vv));
    if (mk != 0xffff) return i + (uint32_t)__builtin_ctz(~(unsigned)mk & 0xffffu) / 4;
  }
#endif
  while (i < n && p[i] == v) i++;
  return i;
}

/* tmem.c */
/* the op a tag names (tag >= 2), and its CTA */
const plX_tcop *plX__b_op(plX_emu *e, uint32_t tag, plX_cta **c);
/* cells [l0, l1) x [c0, c1) of CTA c are read by warp w of e->C (lane l; what: the message's
** subject): written by an op it does not know complete (own: its own thread's ops are ordered),
** or by a tcgen05.st of another warp not waited for; never-written cells are reported when
** uninit. 0 ok */
int plX__b_read_cells(plX_emu *e, plX_ins *in, plX_warp *w, int l, plX_cta *c, uint32_t l0,
                      uint32_t l1, uint32_t c0, uint32_t c1, int own, int uninit, const char *what);
/* the tag part of plX__b_read_cells for one tag: 1 when a cell with tag t passes it */
int plX__b_tag_fine(plX_emu *e, plX_warp *w, int l, uint32_t t, int own, int uninit);
/* the rest of plX__b_read_cells: a tcgen05.st of another warp not waited for overlaps the cells;
** 0 ok */
int plX__b_read_pending_st(plX_emu *e, plX_ins *in, plX_warp *w, plX_cta *c, uint32_t l0,
                           uint32_t l1, uint32_t c0, uint32_t c1, const char *what);
/* an async op writes cells [l0, l1) x [c0, c1) of c: a tcgen05.ld of any warp not waited for
** still reads some; 0 ok */
int plX__b_write_cells(plX_emu *e, plX_ins *in, plX_warp *w, plX_cta *c, uint32_t l0, uint32_t l1,
                       uint32_t c0, uint32_t c1, const char *what);
/* columns [c0, c1) lie in one allocation of c; 0 ok */
int plX__b_in_alloc(plX_emu *e, plX_ins *in, plX_warp *w, int l, plX_cta *c, uint32_t c0,
                    uint32_t c1, const char *what);
/* warp w's knowledge (ka, its own ops up to seq) goes into mbarrier m of c (open phase) */
void plX__b_give(plX_emu *e, plX_warp *w, plX_cta *c, const plX_mbar *m, uint32_t own);

/* tcmma.c */
int plX__b_exec_mma(plX_emu *e, plX_warp *w, plX_ins *in, uint32_t em);
int plX__b_exec_commit(plX_emu *e, plX_warp *w, plX_ins *in, uint32_t em);
int plX__b_exec_cp(plX_emu *e, plX_warp *w, plX_ins *in, uint32_t em);

#endif
