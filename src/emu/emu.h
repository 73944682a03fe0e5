/* emu.h -- the emulator: a traced kernel's IR executed for a whole grid on the CPU.
** Exact and deterministic; what it cannot compute exactly it refuses ("... is not emulated"). */
#ifndef PL_EMU_H
#define PL_EMU_H

#include <stddef.h>
#include <stdint.h>
#include "ir.h"

/* Device memory: host buffers standing for global memory, each at a device address with a known
** size (out-of-bounds accesses are reported against it). Shared by every kernel launched on it. */
typedef struct plX_mem plX_mem;

plX_mem *plX_mem_new(void);    /* NULL on OOM */
void plX_mem_free(plX_mem *m); /* NULL is a no-op */
/* a zero-filled buffer of `bytes` (> 0); its device address (256-aligned), 0 on OOM or bad size */
uint64_t plX_mem_alloc(plX_mem *m, uint64_t bytes, const char *name);
int plX_mem_release(plX_mem *m, uint64_t addr); /* 0 ok, -1 not a buffer */
/* a buffer over host memory the caller owns (a DLPack tensor's): the kernel reads and writes it in
** place; released like any other, the memory itself is never freed. 0 on OOM or bad size */
uint64_t plX_mem_map(plX_mem *m, void *host, uint64_t bytes, const char *name);
/* host view of the buffer that starts at addr (its size in *size), NULL if none */
uint8_t *plX_mem_host(plX_mem *m, uint64_t addr, uint64_t *size);

/* One kernel of one module, ready to launch. The module must outlive it. */
typedef struct plX_emu plX_emu;

enum {                              /* opt-in checks (plX_set_checks) */
       PLX_CHECK_UNINIT_REGS = 1,   /* reads of registers no instruction wrote */
       PLX_CHECK_UNINIT_SHARED = 2, /* reads of shared memory no thread wrote */
       PLX_CHECK_RACES =
           4, /* races: shared memory between two barriers, global memory across warps and CTAs */
       PLX_CHECK_TMEM_LANES = 8 /* tcgen05.ld/st: only the warp's own lane quarter, absolutely */
};

typedef struct plX_stats {
  uint64_t thread_insns; /* instructions x active threads */
  uint64_t warp_insns;   /* instructions issued by warps */
  uint64_t ctas;         /* CTAs run */
  uint64_t canceled;     /* CTAs not run: their cluster was canceled by a try_cancel */
} plX_stats;

typedef struct plX_param {
  const char *name;
  int type;                     /* PLT_* of the .param declaration */
  uint32_t offset, size, align; /* in the parameter block */
} plX_param;

/* NULL only on OOM; a module the emulator cannot lay out gives an emulator with an error status */
plX_emu *plX_new(const plI_module *m, int func, plX_mem *mem);
void plX_free(plX_emu *e);               /* NULL is a no-op */
int plX_status(const plX_emu *e);        /* 0 ok, else the first error */
const char *plX_error(const plX_emu *e); /* "file:line: error: ..." or "" */
void plX_clear(plX_emu *e);              /* forget the error */

int plX_param_count(const plX_emu *e);
int plX_param_info(const plX_emu *e, int i, plX_param *p);         /* 0 ok, -1 no such parameter */
int plX_set_param(plX_emu *e, int i, const void *bytes, size_t n); /* raw bytes, n == size */
int plX_set_launch(plX_emu *e, const uint32_t grid[3], const uint32_t block[3], uint32_t dyn_smem);
/* the device limits every launch obeys, on the emulator and on CUDA (sm_80 to sm_100): dimensions
** positive, a block of at most 1024 threads (x, y <= 1024, z <= 64), a grid of at most 2^31-1 x
** 65535 x 65535, and (cluster not NULL) a grid that is a whole number of clusters of at most 16
** CTAs. 0 when the geometry is legal, else 1 and the reason in err (n bytes). */
int plX_geometry_check(const uint32_t grid[3], const uint32_t block[3], const uint32_t cluster[3],
                       char *err, size_t n);
void plX_set_checks(plX_emu *e, unsigned flags);
/* the budget: warp instructions (instructions issued by warps, over the whole launch) a launch may
** run; past it the run stops with an error naming where every warp still running is. 0: none.
** plX_new sets PLX_LIMIT_DEFAULT, generous for every kernel of kernels/ at its default sizes
** (docs/emulator.md, "The instruction budget") and a few seconds of an endless loop. */
#define PLX_LIMIT_DEFAULT 100000000ull
void plX_set_limit(plX_emu *e, uint64_t max_warp_insns);
/* a sample: run only the first n clusters (CTAs, without clusters) of the grid, then stop as if
** done, printing nothing (vprintf is silent) -- what the launch costs; 0: the whole grid */
void plX_set_sample(plX_emu *e, uint64_t n);
/* stop every emulation running in this process at its next instruction, with the same report as
** the budget's (async-signal-safe). While plX_run runs it handles SIGINT so (the handler is the
** process's previous one again when the run returns, or after the first SIGINT) */
void plX_interrupt(void);
/* cluster launch control: which clusterlaunchcontrol.try_cancel requests succeed. ALL: each one
** while a cluster of the launch is neither running nor run nor canceled (the next in the grid's
** order); NONE: none (the kernel's fallback path); ALTERNATE: the launch's requests alternately,
** the first succeeding (both paths in one run) */
enum { PLX_CLC_ALL, PLX_CLC_NONE, PLX_CLC_ALTERNATE };
void plX_set_clc(plX_emu *e, int mode);
/* trace every instruction thread `thread` of CTA `cta` (linear ids; -1: off) executes into the
** trace text; whole_warp: every thread of that thread's warp, one line per warp instruction */
void plX_set_trace(plX_emu *e, int64_t cta, int64_t thread, int whole_warp);
const char *plX_trace_text(plX_emu *e, size_t *len);
/* clusters: CTAs per cluster (x, y, z); NULL: the kernel's .reqnctapercluster, else one CTA.
** plX_set_launch resets it to that default; call this after it. */
int plX_set_cluster(plX_emu *e, const uint32_t cluster[3]);
/* an allocation of a shared-memory plan (ptx.smem_plan), laid out in the shared variable `var`
** (the plan's block): `stages` stages of `bytes` bytes each, stage s at offset + s * stage_bytes
** from the variable's start. A TMA or bulk copy into shared memory must write inside one stage of
** the allocation where it starts (or inside the variable where it starts, for the others); else
** it is an error at the copy's line naming the allocation, the stage and the overflow. 0 ok, -1
** (nothing kept) when var is no shared variable of the kernel or the allocation does not fit */
int plX_add_region(plX_emu *e, const char *var, const char *name, uint32_t offset,
                   uint32_t stage_bytes, uint32_t bytes, uint32_t stages);
int plX_run(plX_emu *e); /* 0 ok, else plX_error says why */
void plX_get_stats(const plX_emu *e, plX_stats *s);

/* Floating-point element values as the emulator computes them. The formats: */
enum { PLX_FP_F16, PLX_FP_BF16, PLX_FP_TF32, PLX_FP_F32, PLX_FP_F64, PLX_FP_E4M3, PLX_FP_E5M2 };
/* the format of elements of type `type` (PLT_*; a packed pair: its halves'), -1 for no float */
int plX_fp_format(int type);
/* the bits of x in format fmt, rounded to nearest even once from the exact value */
uint64_t plX_fp_round(int fmt, double x);
/* the value of bits in format fmt */
double plX_fp_value(int fmt, uint64_t bits);

/* A tensor map for TMA (cp.async.bulk.tensor), the emulator's own 128-byte encoding (the real
** CUtensorMap is opaque): dtype a PLB_TM_* code (driver.h), dims innermost first, strides in
** bytes of dims 1..rank-1, box and element strides per dim, swizzle PLSM_SW_*. Validated as
** cuTensorMapEncodeTiled validates; addr must lie in a buffer of m. 0 ok, else -1 and a message. */
int plX_tensormap(plX_mem *m, uint8_t out[128], int dtype, int rank, uint64_t addr,
                  const uint64_t *dims, const uint64_t *strides, const uint32_t *box,
                  const uint32_t *estrides, int swizzle, char *err, size_t n);
/* The im2col map, validated as cuTensorMapEncodeIm2col validates: rank 3-5 (NWC, NHWC, NDHWC, C
** innermost), the pixel box corners of the rank-2 spatial dims (W first), channels per pixel,
** pixels per column, element strides (NULL: 1), the driver's interleave (only 0 is emulated),
** swizzle, L2 promotion and OOB fill (1: NaN) codes. */
int plX_tensormap_im2col(plX_mem *m, uint8_t out[128], int dtype, int rank, uint64_t addr,
                         const uint64_t *dims, const uint64_t *strides, const int32_t *lower,
                         const int32_t *upper, uint32_t cpp, uint32_t ppc, const uint32_t *estrides,
                         int interleave, int swizzle, int l2, int oob, char *err, size_t n);

#endif
