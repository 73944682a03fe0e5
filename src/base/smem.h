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

int plB_sm_swizzle_parse(const char *s); /* "none" "32B" "64B" "128B" (or "32"...) -> mode, -1 */
const char *plB_sm_swizzle_name(int sw);
int plB_sm_swizzle_bytes(int sw);       /* 0, 32, 64, 128 */
uint32_t plB_sm_swizzle_repeat(int sw); /* 16 (none), 256, 512, 1024 */
void plB_sm_swizzle_bms(int sw, int *B, int *M, int *S);
/* the and mask: 0x80, 0x180, 0x380 (0 for none) */
uint32_t plB_sm_swizzle_mask(int sw);
uint32_t plB_sm_swizzle(int sw, uint32_t off); /* the swizzled byte offset */

/* ---- the wgmma shared-memory matrix descriptor (64 bits) --------------------------------------
** bits  0-13  start address >> 4 (of the 18-bit shared address)
** bits 16-29  leading dimension byte offset >> 4
** bits 32-45  stride dimension byte offset >> 4
** bits 49-51  matrix base offset (swizzled modes, when the start is not on the pattern's repeat)
** bits 62-63  layout: 0 none (interleave), 1 128B, 2 64B, 3 32B swizzle */
typedef struct plB_sm_desc {
  uint32_t start;    /* byte address in the CTA's shared window */
  uint32_t lbo, sbo; /* leading / stride byte offsets */
  int base_offset;   /* 0..7 */
  int swizzle;       /* PLSM_SW_* (PLSM_SW_128B_32B only in the tcgen05 layout) */
  int tcgen05;       /* 0: the wgmma (sm_90) layout; 1: the tcgen05 (sm_100) layout below */
  int lbo_mode;      /* tcgen05 only, bit 52: 0 the LBO is relative, 1 absolute (sm_103a) */
} plB_sm_desc;

int plB_sm_desc_layout_bits(int sw); /* the value of bits 62-63 for a mode */
/* 0 + message if a field does not fit */
int plB_sm_desc_encode(const plB_sm_desc *d, uint64_t *out, char *err, size_t n);
void plB_sm_desc_decode(uint64_t v, plB_sm_desc *d);
/* the canonical descriptor of a tile of mn x k elements of elt_bytes bytes at addr, K-major
** (kmajor = 1: k contiguous) or MN-major, written with swizzle sw; see docs/hopper.md */
int plB_sm_desc_tile(uint32_t addr, int elt_bytes, int mn, int k, int kmajor, int sw,
                     plB_sm_desc *d, char *err, size_t n);
/* does the descriptor declare the swizzle the tile was written with? 0 + message if not */
int plB_sm_desc_check(uint64_t desc, int sw, char *err, size_t n);

/* ---- the tcgen05 shared-memory matrix descriptor (sm_100 family, PTX ISA "Shared memory
** descriptor layout") ------------------------------------------------------------------------
** bits  0-13, 16-29, 32-45  start, LBO, SBO >> 4, as wgmma's
** bits 46-48  the fixed value 0b001 (the descriptor's version)
** bits 49-51  matrix base offset          bit 52  LBO mode (0 relative, 1 absolute)
** bits 53-60  0
** bits 61-63  swizzle: 0 none, 1 128B with 32B atomicity, 2 128B, 4 64B, 6 32B (3, 5, 7 invalid)
** The 128B, 64B and 32B codes set the same bits as wgmma's 2-bit field at 62-63. */
enum { PLSM_SW_128B_32B = 4 }; /* a descriptor mode only: no plan allocation or TMA of ptxlua's */
/* the layout the target's MMA reads: 90 for sm_90 (wgmma), 100 for the sm_100 family (sm_100,
** sm_103, sm_110: tcgen05), 0 where neither exists */
int plB_sm_desc_layout(int sm);
int plB_sm_desc_tc_swizzle_code(int sw); /* the value of bits 61-63, -1 for none */
/* a descriptor in the layout of target sm (plB_sm_desc_layout), every field checked; the tcgen05
** layout is chosen by the target, whatever d->tcgen05 says. 0 + message */
int plB_sm_desc_encode_sm(int sm, const plB_sm_desc *d, uint64_t *out, char *err, size_t n);
/* the fields of a descriptor in the layout of target sm; 0 + message when a fixed or reserved bit
** is wrong (the version bits, bits 53-60, the gaps at 14-15 and 30-31, a swizzle code 3/5/7) */
int plB_sm_desc_decode_sm(int sm, uint64_t v, plB_sm_desc *d, char *err, size_t n);
/* plB_sm_desc_tile for target sm: the same canonical strides, the layout of the target */
int plB_sm_desc_tile_sm(int sm, uint32_t addr, int elt_bytes, int mn, int k, int kmajor, int sw,
                        plB_sm_desc *d, char *err, size_t n);

/* ---- the tcgen05.mma instruction descriptor (32 bits; PTX ISA "Instruction descriptor") -------
** kinds f16, tf32, f8f6f4, i8:
**   0-1 sparsity selector  2 sparse  3 saturate (i8)  4-5 D type (f16 0, f32 1, s32 2)
**   7-9 A type, 10-12 B type (f16 0 bf16 1 tf32 2; e4m3 0 e5m2 1 e2m3 3 e3m2 4 e2m1 5; u8 0 s8 1)
**   13, 14 negate A, B  15, 16 transpose A, B (1: MN-major)  17-22 N >> 3  24-28 M >> 4
**   30-31 the maximum shift of .ws B reuse (0 none, 1 8, 2 16, 3 32); 6, 23, 29 reserved
** kinds mxf8f6f4, mxf4, mxf4nvf4 (block scaled):
**   2 sparse  4-5 B scale-factor ID  7-9 A type, 10-12 B type (mxf8f6f4 as f8f6f4; mxf4 and
**   mxf4nvf4 e2m1 = 1, B in 10-11)  13-16 as above  17-22 N >> 3  23 scale type (ue4m3 0,
**   ue8m0 1)  27-28 M >> 7  29-30 A scale-factor ID  31 K = 96 (mxf4 family, dense)
**   0-1, 3, 6, 24-26 reserved (and 12 for the mxf4 family, 31 for mxf8f6f4) */
enum {
  PLTC_F16,
  PLTC_TF32,
  PLTC_F8F6F4,
  PLTC_I8,
  PLTC_MXF8F6F4,
  PLTC_MXF4,
  PLTC_MXF4NVF4,
  PLTC_NKIND
};
/* element types of the descriptor's fields */
enum {
  PLTC_T_NONE,
  PLTC_T_F16,
  PLTC_T_BF16,
  PLTC_T_TF32,
  PLTC_T_F32,
  PLTC_T_S32,
  PLTC_T_E4M3,
  PLTC_T_E5M2,
  PLTC_T_E2M3,
  PLTC_T_E3M2,
  PLTC_T_E2M1,
  PLTC_T_U8,
  PLTC_T_S8,
  PLTC_T_UE4M3,
  PLTC_T_UE8M0,
  PLTC_T_N
};
typedef struct plB_tc_idesc {
  int kind; /* PLTC_* */
  /* 1 or 2: the shapes it takes (Table "Various combinations of .kind and shapes"); not a bit of
  ** the descriptor */
  int cta_group;
  int ws;      /* 1: for tcgen05.mma.ws (its shapes; max_shift allowed) */
  int d, a, b; /* PLTC_T_* (d unused by the block-scaled kinds) */
  int m, n;
  int sparse, selector; /* the sparsity selector 0..3 (sparse only) */
  int saturate;         /* i8 only */
  int neg_a, neg_b, trans_a, trans_b;
  int max_shift;      /* .ws only: 0, 8, 16 or 32 */
  int scale;          /* block scaled: PLTC_T_UE4M3 or PLTC_T_UE8M0 */
  int sfa_id, sfb_id; /* block scaled: the scale factors' sub-column */
  int k96;            /* mxf4 family, dense: K = 96 (sm_103a) */
} plB_tc_idesc;
int plB_tc_kind_parse(const char *s); /* "f16" "tf32" "f8f6f4" "i8" "mxf8f6f4" ... or -1 */
const char *plB_tc_kind_name(int kind);
int plB_tc_type_parse(const char *s); /* "f16" "bf16" ... "ue8m0" -> PLTC_T_*, or -1 */
const char *plB_tc_type_name(int t);
int plB_tc_idesc_encode(const plB_tc_idesc *d, uint32_t *out, char *err, size_t n);
/* the fields of v read for kind (and cta_group, ws: which shapes are valid); 0 + message when
** a reserved bit is set or a field holds a value the kind does not define */
int plB_tc_idesc_decode(uint32_t v, int kind, int cta_group, int ws, plB_tc_idesc *d, char *err,
                        size_t n);

/* ---- the allocation plan ----------------------------------------------------------------------
** Allocations get offsets in one block as they are made (aligned bump allocation), so a script
** can use them at once; what is decided at the end is only how the block is declared: a static
** .shared array up to 48 KB, an extern dynamic one above. */
#define PLSM_STATIC_MAX 49152u
#define PLSM_NAME       48

typedef struct plB_sm_alloc {
  char name[PLSM_NAME];
  uint32_t elt;   /* element bytes */
  uint64_t elems; /* elements per stage */
  uint32_t stages;
  uint32_t align;
  int swizzle;
  uint32_t offset; /* from the block's start */
  /* one stage, rounded up to the alignment (stage s at offset + s * stage_bytes) */
  uint32_t stage_bytes;
  uint32_t size; /* stages * stage_bytes */
  uint32_t pad;  /* bytes skipped before it to align it */
} plB_sm_alloc;

typedef struct plB_sm_plan {
  int sm; /* target, for the limit */
  plB_sm_alloc *a;
  int n, cap;
  uint32_t top;   /* bytes used */
  uint32_t align; /* the block's alignment: the largest of its allocations' */
} plB_sm_plan;

uint32_t plB_sm_limit(int sm); /* bytes of shared memory one block may use */
/* the static .shared bytes ptxas lets one kernel declare: 48 KB, except on the arch-specific
** targets (sm_90a, sm_100a, sm_120a, ...: arch_a 1), whose limit is the block's (plB_sm_limit) */
uint32_t plB_sm_static_limit(int sm, int arch_a);
/* the bytes of a kernel's parameters ptxas takes: 4352 below PTX ISA 8.1, 32764 from 8.1 on */
#define PLSM_PARAM_MAX_OLD 4352u
#define PLSM_PARAM_MAX     32764u
void plB_sm_init(plB_sm_plan *p, int sm);
void plB_sm_free(plB_sm_plan *p);
/* align 0: 128, or the swizzle's repeat when larger (1024 for 128B). The index, or -1 + message */
int plB_sm_add(plB_sm_plan *p, const char *name, uint32_t elt, uint64_t elems, uint32_t stages,
               uint32_t align, int sw, char *err, size_t n);
/* 1 when the block must be dynamic (> 48 KB) */
int plB_sm_dynamic(const plB_sm_plan *p);
/* the plan as a table, one line per allocation; returns the length written (snprintf style) */
size_t plB_sm_format(const plB_sm_plan *p, char *buf, size_t n);

#endif
