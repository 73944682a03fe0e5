/* smem.h -- shared memory for Hopper kernels: the allocation plan, swizzles, wgmma descriptors.
** Pure functions and one plain struct; no Lua, no IR. The DSL (lua/ptxlua/hopper.lua, through
** src/lua/core_smem.c) records what a script asks for here and prints what this decides. */
#ifndef PL_SMEM_H
#define PL_SMEM_H

#include <stddef.h>
#include <stdint.h>

/* ---- swizzles ------------------------------------------------------------------------------ */
/* The modes of TMA and wgmma, as CuTe's Swizzle<B,M,S> on byte offsets: M = 4 (16-byte units
** stay whole), S = 3, B = 1, 2, 3 for 32B, 64B, 128B. Bits [M+S, M+S+B) of the offset are
** xored into bits [M, M+B): y = x ^ ((x & mask) >> S), mask = ((1 << B) - 1) << (M + S).
** The pattern repeats every 2^(M+S+B) bytes (256, 512, 1024): a swizzled tile starts there. */
enum { PLSM_SW_NONE = 0, PLSM_SW_32B = 1, PLSM_SW_64B = 2, PLSM_SW_128B = 3 };

int plB_sm_swizzle_parse(const char *s);             /* "none" "32B" "64B" "128B" (or "32"...) -> mode, -1 */
const char *plB_sm_swizzle_name(int sw);
int plB_sm_swizzle_bytes(int sw);                    /* 0, 32, 64, 128 */
uint32_t plB_sm_swizzle_repeat(int sw);              /* 16 (none), 256, 512, 1024 */
void plB_sm_swizzle_bms(int sw, int *B, int *M, int *S);
uint32_t plB_sm_swizzle_mask(int sw);                /* the and mask: 0x80, 0x180, 0x380 (0 for none) */
uint32_t plB_sm_swizzle(int sw, uint32_t off);       /* the swizzled byte offset */

/* ---- the wgmma shared-memory matrix descriptor (64 bits) --------------------------------------
** bits  0-13  start address >> 4 (of the 18-bit shared address)
** bits 16-29  leading dimension byte offset >> 4
** bits 32-45  stride dimension byte offset >> 4
** bits 49-51  matrix base offset (swizzled modes, when the start is not on the pattern's repeat)
** bits 62-63  layout: 0 none (interleave), 1 128B, 2 64B, 3 32B swizzle */
typedef struct plB_sm_desc {
  uint32_t start;      /* byte address in the CTA's shared window */
  uint32_t lbo, sbo;   /* leading / stride byte offsets */
  int base_offset;     /* 0..7 */
  int swizzle;         /* PLSM_SW_* */
} plB_sm_desc;

int plB_sm_desc_layout_bits(int sw);                 /* the value of bits 62-63 for a mode */
int plB_sm_desc_encode(const plB_sm_desc *d, uint64_t *out, char *err, size_t n);  /* 0 + message if a field does not fit */
void plB_sm_desc_decode(uint64_t v, plB_sm_desc *d);
/* the canonical descriptor of a tile of mn x k elements of elt_bytes bytes at addr, K-major
** (kmajor = 1: k contiguous) or MN-major, written with swizzle sw; see docs/hopper.md */
int plB_sm_desc_tile(uint32_t addr, int elt_bytes, int mn, int k, int kmajor, int sw, plB_sm_desc *d, char *err, size_t n);
/* does the descriptor declare the swizzle the tile was written with? 0 + message if not */
int plB_sm_desc_check(uint64_t desc, int sw, char *err, size_t n);

/* ---- the allocation plan ----------------------------------------------------------------------
** Allocations get offsets in one block as they are made (aligned bump allocation), so a script
** can use them at once; what is decided at the end is only how the block is declared: a static
** .shared array up to 48 KB, an extern dynamic one above. */
#define PLSM_STATIC_MAX 49152u
#define PLSM_NAME 48

typedef struct plB_sm_alloc {
  char name[PLSM_NAME];
  uint32_t elt;          /* element bytes */
  uint64_t elems;        /* elements per stage */
  uint32_t stages;
  uint32_t align;
  int swizzle;
  uint32_t offset;       /* from the block's start */
  uint32_t stage_bytes;  /* one stage, rounded up to the alignment (stage s at offset + s * stage_bytes) */
  uint32_t size;         /* stages * stage_bytes */
  uint32_t pad;          /* bytes skipped before it to align it */
} plB_sm_alloc;

typedef struct plB_sm_plan {
  int sm;                /* target, for the limit */
  plB_sm_alloc *a;
  int n, cap;
  uint32_t top;          /* bytes used */
  uint32_t align;        /* the block's alignment: the largest of its allocations' */
} plB_sm_plan;

uint32_t plB_sm_limit(int sm);                       /* bytes of shared memory one block may use */
/* the static .shared bytes ptxas lets one kernel declare: 48 KB, except on the arch-specific
** targets (sm_90a, sm_100a, sm_120a, ...: arch_a 1), whose limit is the block's (plB_sm_limit) */
uint32_t plB_sm_static_limit(int sm, int arch_a);
/* the bytes of a kernel's parameters ptxas takes: 4352 below PTX ISA 8.1, 32764 from 8.1 on */
#define PLSM_PARAM_MAX_OLD 4352u
#define PLSM_PARAM_MAX 32764u
void plB_sm_init(plB_sm_plan *p, int sm);
void plB_sm_free(plB_sm_plan *p);
/* align 0: 128, or the swizzle's repeat when larger (1024 for 128B). The index, or -1 + message */
int plB_sm_add(plB_sm_plan *p, const char *name, uint32_t elt, uint64_t elems, uint32_t stages, uint32_t align,
             int sw, char *err, size_t n);
int plB_sm_dynamic(const plB_sm_plan *p);              /* 1 when the block must be dynamic (> 48 KB) */
/* the plan as a table, one line per allocation; returns the length written (snprintf style) */
size_t plB_sm_format(const plB_sm_plan *p, char *buf, size_t n);

#endif
