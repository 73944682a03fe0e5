/* smem.c -- shared memory for Hopper kernels: the allocation plan, swizzles, wgmma descriptors.
** The bit layouts and formulas are those of the PTX ISA (wgmma "matrix descriptor", TMA swizzle
** modes); docs/hopper.md states the rules and tests/c/test_smem.c pins them. */
#include "smem.h"
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#define ERR(...) (err && n ? (void)snprintf(err, n, __VA_ARGS__) : (void)0)

/* ---- swizzles ------------------------------------------------------------------------------ */
int plB_sm_swizzle_parse(const char *s) {
  if (!s) return -1;
  if (!strcmp(s, "none") || !strcmp(s, "0")) return PLSM_SW_NONE;
  if (!strcmp(s, "32B") || !strcmp(s, "32")) return PLSM_SW_32B;
  if (!strcmp(s, "64B") || !strcmp(s, "64")) return PLSM_SW_64B;
  if (!strcmp(s, "128B") || !strcmp(s, "128")) return PLSM_SW_128B;
  return -1;
}
const char *plB_sm_swizzle_name(int sw) {
  static const char *names[] = { "none", "32B", "64B", "128B" };
  return sw >= 0 && sw <= 3 ? names[sw] : "?";
}
int plB_sm_swizzle_bytes(int sw) {
  return sw >= 1 && sw <= 3 ? 16 << sw : 0;
}
uint32_t plB_sm_swizzle_repeat(int sw) {
  return sw >= 1 && sw <= 3 ? 128u << sw : 16u;
}
void plB_sm_swizzle_bms(int sw, int *B, int *M, int *S) {
  *B = sw >= 1 && sw <= 3 ? sw : 0;
  *M = 4;
  *S = 3;
}
uint32_t plB_sm_swizzle_mask(int sw) {
  int B, M, S;
  plB_sm_swizzle_bms(sw, &B, &M, &S);
  return ((1u << B) - 1u) << (M + S);
}
uint32_t plB_sm_swizzle(int sw, uint32_t off) {
  return off ^ ((off & plB_sm_swizzle_mask(sw)) >> 3);
}

/* ---- descriptors ----------------------------------------------------------------------------- */
int plB_sm_desc_layout_bits(int sw) {
  switch (sw) {
  case PLSM_SW_128B: return 1;
  case PLSM_SW_64B: return 2;
  case PLSM_SW_32B: return 3;
  default: return 0;
  }
}
static int sw_of_bits(int bits) {
  switch (bits) {
  case 1: return PLSM_SW_128B;
  case 2: return PLSM_SW_64B;
  case 3: return PLSM_SW_32B;
  default: return PLSM_SW_NONE;
  }
}

int plB_sm_desc_encode(const plB_sm_desc *d, uint64_t *out, char *err, size_t n) {
  if (d->start % 16 || d->start >= (1u << 18)) {
    ERR("descriptor start address %u: must be 16-byte aligned and below 256 KB", d->start);
    return 0;
  }
  if (d->lbo % 16 || (d->lbo >> 4) >= (1u << 14)) {
    ERR("leading byte offset %u: must be a multiple of 16 below 256 KB", d->lbo);
    return 0;
  }
  if (d->sbo % 16 || (d->sbo >> 4) >= (1u << 14)) {
    ERR("stride byte offset %u: must be a multiple of 16 below 256 KB", d->sbo);
    return 0;
  }
  if (d->base_offset < 0 || d->base_offset > 7) {
    ERR("base offset %d: must be 0..7", d->base_offset);
    return 0;
  }
  if (d->swizzle < 0 || d->swizzle > 3) {
    ERR("bad swizzle mode %d", d->swizzle);
    return 0;
  }
  uint64_t v = (uint64_t)((d->start >> 4) & 0x3fff);
  v |= (uint64_t)((d->lbo >> 4) & 0x3fff) << 16;
  v |= (uint64_t)((d->sbo >> 4) & 0x3fff) << 32;
  v |= (uint64_t)(d->base_offset & 7) << 49;
  v |= (uint64_t)plB_sm_desc_layout_bits(d->swizzle) << 62;
  *out = v;
  return 1;
}

void plB_sm_desc_decode(uint64_t v, plB_sm_desc *d) {
  d->start = (uint32_t)(v & 0x3fff) << 4;
  d->lbo = (uint32_t)((v >> 16) & 0x3fff) << 4;
  d->sbo = (uint32_t)((v >> 32) & 0x3fff) << 4;
  d->base_offset = (int)((v >> 49) & 7);
  d->swizzle = sw_of_bits((int)(v >> 62));
  d->tcgen05 = 0; /* the wgmma layout: no version or LBO-mode bits */
  d->lbo_mode = 0;
}

/* Canonical tiles (the layouts a TMA box of the same swizzle writes), W = the swizzle's bytes:
**   K-major, swizzled: rows of W bytes (W / elt elements of k) at stride W; 8-row groups at SBO =
**     8 W; a k wider than W continues in a second column block after all mn rows (the next
**     k-step's descriptor starts there); LBO is unused by the hardware and encoded as 16 (1).
**   K-major, none: 8x16-byte core matrices, 128 bytes each; along k at LBO = 128, 8-row groups
**     at SBO = 128 * (k bytes / 16).
**   MN-major, swizzled: W bytes of mn per k row, k rows at stride W; 8-row (k) groups at SBO =
**     8 W; the next W bytes of mn at LBO = k * W.
**   MN-major, none: core matrices of 16 bytes of mn by 8 k rows; along mn at SBO = 128, 8-row
**     (k) groups at LBO = 128 * (mn bytes / 16). */
int plB_sm_desc_tile(uint32_t addr, int elt, int mn, int k, int kmajor, int sw, plB_sm_desc *d,
                     char *err, size_t n) {
  memset(d, 0, sizeof *d);
  if (elt != 1 && elt != 2 && elt != 4) {
    ERR("element size %d: wgmma operands are 1, 2 or 4 bytes", elt);
    return 0;
  }
  if (sw < 0 || sw > 3) {
    ERR("bad swizzle mode %d", sw);
    return 0;
  }
  if (mn <= 0 || k <= 0 || mn % 8 || k % 8) {
    ERR("tile %dx%d: both extents must be positive multiples of 8", mn, k);
    return 0;
  }
  uint32_t W = (uint32_t)plB_sm_swizzle_bytes(sw);
  uint32_t kb = (uint32_t)k * (uint32_t)elt, mnb = (uint32_t)mn * (uint32_t)elt;
  d->start = addr;
  d->swizzle = sw;
  if (kmajor) {
    if (sw) {
      if (kb % W) {
        ERR("K-major %s tile: k (%u bytes) must be a multiple of %u bytes", plB_sm_swizzle_name(sw),
            kb, W);
        return 0;
      }
      d->sbo = 8 * W;
      d->lbo = 16;
    } else {
      if (kb % 16) {
        ERR("K-major tile: k (%u bytes) must be a multiple of 16 bytes", kb);
        return 0;
      }
      d->lbo = 128;
      d->sbo = 128 * (kb / 16);
    }
  } else {
    if (sw) {
      if (mnb % W) {
        ERR("MN-major %s tile: mn (%u bytes) must be a multiple of %u bytes",
            plB_sm_swizzle_name(sw), mnb, W);
        return 0;
      }
      d->sbo = 8 * W;
      d->lbo = (uint32_t)k * W;
    } else {
      if (mnb % 16) {
        ERR("MN-major tile: mn (%u bytes) must be a multiple of 16 bytes", mnb);
        return 0;
      }
      d->sbo = 128;
      d->lbo = 128 * (mnb / 16);
    }
  }
  if (sw && addr % plB_sm_swizzle_repeat(sw)) d->base_offset = (int)((addr >> 7) & 7);
  uint64_t v;
  return plB_sm_desc_encode(d, &v, err, n);
}

int plB_sm_desc_check(uint64_t desc, int sw, char *err, size_t n) {
  plB_sm_desc d;
  plB_sm_desc_decode(desc, &d);
  if (d.swizzle != sw) {
    ERR("the descriptor declares swizzle %s but the tile was written with %s",
        plB_sm_swizzle_name(d.swizzle), plB_sm_swizzle_name(sw));
    return 0;
  }
  return 1;
}

/* ---- the plan -------------------------------------------------------------------------------- */
uint32_t plB_sm_limit(int sm) {
  /* the most shared memory one block may use (opt-in, per the CUDA programming guide's table of
  ** compute capabilities), in bytes */
  if (sm >= 120) return 101376;            /* 99 KB */
  if (sm >= 90) return 232448;             /* 227 KB: sm_90, sm_100, sm_103, sm_110 */
  if (sm == 80 || sm == 87) return 166912; /* 163 KB */
  if (sm >= 86) return 101376;             /* 99 KB: sm_86, sm_89 */
  if (sm >= 75) return 65536;              /* 64 KB */
  if (sm >= 70) return 98304;              /* 96 KB */
  return 49152;
}

uint32_t plB_sm_static_limit(int sm, int arch_a) {
  /* ptxas 13: "uses too much shared data (0xc001 bytes, 0xc000 max)" on sm_90, sm_100f, sm_120 ...,
  ** the opt-in maximum on sm_90a, sm_100a, sm_103a, sm_110a, sm_120a, sm_121a */
  return arch_a == 1 ? plB_sm_limit(sm) : PLSM_STATIC_MAX;
}

void plB_sm_init(plB_sm_plan *p, int sm) {
  memset(p, 0, sizeof *p);
  p->sm = sm;
  p->align = 16;
}
void plB_sm_free(plB_sm_plan *p) {
  free(p->a);
  p->a = NULL;
  p->n = p->cap = 0;
}

static uint64_t align_up(uint64_t v, uint32_t a) {
  return (v + a - 1) / a * a;
}

int plB_sm_add(plB_sm_plan *p, const char *name, uint32_t elt, uint64_t elems, uint32_t stages,
               uint32_t align, int sw, char *err, size_t n) {
  if (!name || !*name || strlen(name) >= PLSM_NAME) {
    ERR("allocation name must be 1 to %d characters", PLSM_NAME - 1);
    return -1;
  }
  for (int i = 0; i < p->n; i++)
    if (!strcmp(p->a[i].name, name)) {
      ERR("shared allocation '%s' already exists", name);
      return -1;
    }
  if (elt == 0 || elt > 16 || (elt & (elt - 1))) {
    ERR("'%s': element size %u must be 1, 2, 4, 8 or 16 bytes", name, elt);
    return -1;
  }
  if (elems == 0) {
    ERR("'%s': empty allocation", name);
    return -1;
  }
  if (stages == 0) {
    ERR("'%s': stages must be at least 1", name);
    return -1;
  }
  if (sw < 0 || sw > 3) {
    ERR("'%s': bad swizzle mode", name);
    return -1;
  }
  if (align == 0) align = 128;
  if (sw && align < plB_sm_swizzle_repeat(sw)) align = plB_sm_swizzle_repeat(sw);
  if (align & (align - 1)) {
    ERR("'%s': alignment %u is not a power of two", name, align);
    return -1;
  }
  uint64_t bytes = (uint64_t)elt * elems;
  if (sw && bytes % plB_sm_swizzle_repeat(sw)) {
    ERR("'%s': a %s-swizzled stage must be a multiple of %u bytes (got %llu)", name,
        plB_sm_swizzle_name(sw), plB_sm_swizzle_repeat(sw), (unsigned long long)bytes);
    return -1;
  }
  uint64_t stage = align_up(bytes, align);
  uint64_t off = align_up(p->top, align), end = off + stage * stages;
  uint32_t lim = plB_sm_limit(p->sm);
  if (end > lim) {
    ERR("shared memory: '%s' (%llu bytes) brings the block to %llu bytes, over the %u bytes (%u "
        "KB) a block may use on sm_%d",
        name, (unsigned long long)(stage * stages), (unsigned long long)end, lim, lim / 1024,
        p->sm);
    return -1;
  }
  if (p->n == p->cap) {
    int nc = p->cap ? 2 * p->cap : 8;
    plB_sm_alloc *na = realloc(p->a, (size_t)nc * sizeof *na);
    if (!na) {
      ERR("out of memory");
      return -1;
    }
    p->a = na;
    p->cap = nc;
  }
  plB_sm_alloc *a = &p->a[p->n];
  memset(a, 0, sizeof *a);
  strcpy(a->name, name);
  a->elt = elt;
  a->elems = elems;
  a->stages = stages;
  a->align = align;
  a->swizzle = sw;
  a->offset = (uint32_t)off;
  a->stage_bytes = (uint32_t)stage;
  a->size = (uint32_t)(stage * stages);
  a->pad = (uint32_t)(off - p->top);
  p->top = (uint32_t)end;
  if (align > p->align) p->align = align;
  return p->n++;
}

int plB_sm_dynamic(const plB_sm_plan *p) {
  return p->top > PLSM_STATIC_MAX;
}

size_t plB_sm_format(const plB_sm_plan *p, char *buf, size_t n) {
  size_t len = 0;
  char scratch[1];
  if (!buf) {
    buf = scratch;
    n = 0;
  } /* measuring only */
#define PUT(...)                                                                      \
  do {                                                                                \
    int k_ = snprintf(buf + (len < n ? len : n), len < n ? n - len : 0, __VA_ARGS__); \
    if (k_ > 0) len += (size_t)k_;                                                    \
  } while (0)
  PUT("%-16s %8s %8s %6s %6s %7s %6s\n", "allocation", "offset", "size", "align", "stage",
      "swizzle", "pad");
  for (int i = 0; i < p->n; i++) {
    const plB_sm_alloc *a = &p->a[i];
    PUT("%-16s %8u %8u %6u %6u %7s %6u\n", a->name, a->offset, a->size, a->align, a->stages,
        plB_sm_swizzle_name(a->swizzle), a->pad);
  }
  PUT("total %u bytes (%s, align %u; limit %u on sm_%d)\n", p->top,
      plB_sm_dynamic(p) ? "dynamic" : "static", p->align, plB_sm_limit(p->sm), p->sm);
#undef PUT
  return len;
}

/* ---- the tcgen05 shared-memory descriptor
** ------------------------------------------------------ */
int plB_sm_desc_layout(int sm) {
  if (sm >= 90 && sm < 100) return 90;
  if (sm >= 100 && sm < 120) return 100; /* sm_100, sm_103, sm_110 (ex sm_101): tcgen05 */
  return 0;                              /* no wgmma or tcgen05 (sm_120 has neither) */
}

int plB_sm_desc_tc_swizzle_code(int sw) {
  switch (sw) {
  case PLSM_SW_NONE: return 0;
  case PLSM_SW_128B_32B: return 1;
  case PLSM_SW_128B: return 2;
  case PLSM_SW_64B: return 4;
  case PLSM_SW_32B: return 6;
  default: return -1;
  }
}

static int sw_of_tc_code(int code) {
  switch (code) {
  case 0: return PLSM_SW_NONE;
  case 1: return PLSM_SW_128B_32B;
  case 2: return PLSM_SW_128B;
  case 4: return PLSM_SW_64B;
  case 6: return PLSM_SW_32B;
  default: return -1; /* 3, 5, 7: no mode */
  }
}

static int need_layout(int sm, char *err, size_t n) {
  int lay = plB_sm_desc_layout(sm);
  if (!lay)
    ERR("sm_%d has no shared-memory matrix descriptor (wgmma is sm_90, tcgen05 the sm_100 family)",
        sm);
  return lay;
}

int plB_sm_desc_encode_sm(int sm, const plB_sm_desc *d, uint64_t *out, char *err, size_t n) {
  int lay = need_layout(sm, err, n);
  if (!lay) return 0;
  plB_sm_desc c = *d;
  c.tcgen05 = lay == 100;
  if (!c.tcgen05) {
    if (c.lbo_mode) {
      ERR("the LBO mode bit (52) is a tcgen05 field: sm_%d's wgmma descriptor has none", sm);
      return 0;
    }
    return plB_sm_desc_encode(&c, out, err, n);
  }
  int code = plB_sm_desc_tc_swizzle_code(c.swizzle);
  if (code < 0) {
    ERR("bad swizzle mode %d", c.swizzle);
    return 0;
  }
  if (c.lbo_mode != 0 && c.lbo_mode != 1) {
    ERR("LBO mode %d: must be 0 (relative) or 1 (absolute)", c.lbo_mode);
    return 0;
  }
  /* the fields shared with wgmma, checked and placed by its encoder (with no swizzle bits) */
  plB_sm_desc h = c;
  h.swizzle = PLSM_SW_NONE;
  uint64_t v;
  if (!plB_sm_desc_encode(&h, &v, err, n)) return 0;
  v |= (uint64_t)1 << 46; /* bits 46-48: the fixed 0b001 */
  v |= (uint64_t)c.lbo_mode << 52;
  v |= (uint64_t)code << 61;
  *out = v;
  return 1;
}

int plB_sm_desc_decode_sm(int sm, uint64_t v, plB_sm_desc *d, char *err, size_t n) {
  int lay = need_layout(sm, err, n);
  if (!lay) return 0;
  memset(d, 0, sizeof *d);
  /* bits 14-15 and 30-31 are unused in both layouts */
  if (v & (((uint64_t)3 << 14) | ((uint64_t)3 << 30))) {
    ERR("descriptor 0x%016llx: bits 14-15 or 30-31 are set (unused, must be 0)",
        (unsigned long long)v);
    return 0;
  }
  if (lay == 90) {
    if (v & (((uint64_t)7 << 46) | ((uint64_t)0x3ff << 52))) {
      ERR("descriptor 0x%016llx: bits 46-48 or 52-61 are set (reserved in the wgmma layout)",
          (unsigned long long)v);
      return 0;
    }
    plB_sm_desc_decode(v, d);
    return 1;
  }
  if (((v >> 46) & 7) != 1) {
    ERR("descriptor 0x%016llx: bits 46-48 are %d, the tcgen05 layout fixes them at 0b001",
        (unsigned long long)v, (int)((v >> 46) & 7));
    return 0;
  }
  if ((v >> 53) & 0xff) {
    ERR("descriptor 0x%016llx: bits 53-60 are set (fixed at 0)", (unsigned long long)v);
    return 0;
  }
  int sw = sw_of_tc_code((int)(v >> 61));
  if (sw < 0) {
    ERR("descriptor 0x%016llx: swizzle code %d is no mode (0, 1, 2, 4 or 6)", (unsigned long long)v,
        (int)(v >> 61));
    return 0;
  }
  d->start = (uint32_t)(v & 0x3fff) << 4;
  d->lbo = (uint32_t)((v >> 16) & 0x3fff) << 4;
  d->sbo = (uint32_t)((v >> 32) & 0x3fff) << 4;
  d->base_offset = (int)((v >> 49) & 7);
  d->lbo_mode = (int)((v >> 52) & 1);
  d->swizzle = sw;
  d->tcgen05 = 1;
  return 1;
}

int plB_sm_desc_tile_sm(int sm, uint32_t addr, int elt, int mn, int k, int kmajor, int sw,
                        plB_sm_desc *d, char *err, size_t n) {
  int lay = need_layout(sm, err, n);
  if (!lay) return 0;
  if (sw == PLSM_SW_128B_32B) {
    /* its canonical strides are not stated by the ISA's table of layouts: give them
    ** (plB_sm_desc_encode_sm) rather than have them guessed */
    ERR("the 128B swizzle with 32B atomicity has no canonical tile here; encode its LBO and SBO "
        "directly");
    return 0;
  }
  if (!plB_sm_desc_tile(addr, elt, mn, k, kmajor, sw, d, err, n)) return 0;
  d->tcgen05 = lay == 100;
  return 1;
}

/* ---- the tcgen05.mma instruction descriptor ------------------------------------------------- */
static const char *const KIND_NAMES[PLTC_NKIND] = { "f16",      "tf32", "f8f6f4",  "i8",
                                                    "mxf8f6f4", "mxf4", "mxf4nvf4" };
static const char *const TYPE_NAMES[PLTC_T_N] = { "none", "f16",  "bf16", "tf32",  "f32",
                                                  "s32",  "e4m3", "e5m2", "e2m3",  "e3m2",
                                                  "e2m1", "u8",   "s8",   "ue4m3", "ue8m0" };

int plB_tc_kind_parse(const char *s) {
  for (int i = 0; s && i < PLTC_NKIND; i++)
    if (!strcmp(s, KIND_NAMES[i])) return i;
  return -1;
}
const char *plB_tc_kind_name(int kind) {
  return kind >= 0 && kind < PLTC_NKIND ? KIND_NAMES[kind] : "?";
}
int plB_tc_type_parse(const char *s) {
  for (int i = 1; s && i < PLTC_T_N; i++)
    if (!strcmp(s, TYPE_NAMES[i])) return i;
  return -1;
}
const char *plB_tc_type_name(int t) {
  return t >= 0 && t < PLTC_T_N ? TYPE_NAMES[t] : "?";
}

static int block_scaled(int kind) {
  return kind >= PLTC_MXF8F6F4;
}

/* the code of an A/B element type under a kind, -1 when the kind takes none of that type */
static int ab_code(int kind, int t) {
  switch (kind) {
  case PLTC_F16: return t == PLTC_T_F16 ? 0 : t == PLTC_T_BF16 ? 1 : -1;
  case PLTC_TF32: return t == PLTC_T_TF32 ? 2 : -1;
  case PLTC_F8F6F4:
  case PLTC_MXF8F6F4:
    switch (t) {
    case PLTC_T_E4M3: return 0;
    case PLTC_T_E5M2: return 1;
    case PLTC_T_E2M3: return 3;
    case PLTC_T_E3M2: return 4;
    case PLTC_T_E2M1: return 5;
    default: return -1;
    }
  case PLTC_I8: return t == PLTC_T_U8 ? 0 : t == PLTC_T_S8 ? 1 : -1;
  case PLTC_MXF4:
  case PLTC_MXF4NVF4: return t == PLTC_T_E2M1 ? 1 : -1;
  default: return -1;
  }
}
static int ab_type(int kind, int code) {
  for (int t = 1; t < PLTC_T_N; t++)
    if (ab_code(kind, t) == code) return t;
  return -1;
}
/* the code of D's type (kinds f16/tf32/f8f6f4/i8) */
static int d_code(int kind, int t) {
  switch (kind) {
  case PLTC_F16:
  case PLTC_F8F6F4: return t == PLTC_T_F16 ? 0 : t == PLTC_T_F32 ? 1 : -1;
  case PLTC_TF32: return t == PLTC_T_F32 ? 1 : -1;
  case PLTC_I8: return t == PLTC_T_S32 ? 2 : -1;
  default: return -1;
  }
}
static const char *d_types(int kind) {
  switch (kind) {
  case PLTC_F16:
  case PLTC_F8F6F4: return "f16 or f32";
  case PLTC_TF32: return "f32";
  default: return "s32";
  }
}
static const char *ab_types(int kind) {
  switch (kind) {
  case PLTC_F16: return "f16 or bf16";
  case PLTC_TF32: return "tf32";
  case PLTC_F8F6F4:
  case PLTC_MXF8F6F4: return "e4m3, e5m2, e2m3, e3m2 or e2m1";
  case PLTC_I8: return "u8 or s8";
  default: return "e2m1";
  }
}

/* the shapes of the ISA's table of kinds and shapes: M per cta_group (and .ws), N's step */
static int check_shape(const plB_tc_idesc *d, char *err, size_t n) {
  int kind = d->kind, m = d->m, N = d->n, cg = d->cta_group;
  const char *kn = plB_tc_kind_name(kind);
  if (cg != 1 && cg != 2) {
    ERR("cta_group %d: must be 1 or 2", cg);
    return 0;
  }
  if (d->ws) {
    if (cg != 1 || block_scaled(kind)) {
      ERR("tcgen05.mma.ws is cta_group::1 and kinds f16, tf32, f8f6f4, i8 only");
      return 0;
    }
    if (m != 32 && m != 64 && m != 128) {
      ERR(".kind::%s .ws: M = %d, must be 32, 64 or 128", kn, m);
      return 0;
    }
    if (N != 64 && N != 128 && N != 256) {
      ERR(".kind::%s .ws: N = %d, must be 64, 128 or 256", kn, N);
      return 0;
    }
    return 1;
  }
  int ok;
  if (block_scaled(kind)) {
    ok = cg == 1 ? m == 128 : (m == 128 || m == 256);
    if (ok && d->sparse && cg == 2) ok = m == 256; /* sparse ::2 block-scaled: M = 256 only */
    if (!ok) {
      ERR(".kind::%s cta_group::%d%s: M = %d, must be %s", kn, cg, d->sparse ? " sparse" : "", m,
          cg == 1     ? "128"
          : d->sparse ? "256"
                      : "128 or 256");
      return 0;
    }
  } else {
    ok = cg == 1 ? (m == 64 || m == 128) : (m == 128 || m == 256);
    if (!ok) {
      ERR(".kind::%s cta_group::%d: M = %d, must be %s", kn, cg, m,
          cg == 1 ? "64 or 128" : "128 or 256");
      return 0;
    }
  }
  if (kind == PLTC_I8) {
    if (cg == 1)
      ok = N == 8 || N == 16 || N == 24 || (N >= 32 && N <= 256 && N % 16 == 0);
    else
      ok = N >= 32 && N <= 256 && N % 32 == 0;
    if (!ok) {
      ERR(".kind::i8 cta_group::%d: N = %d, must be %s", cg, N,
          cg == 1 ? "8, 16, 24, or 32 to 256 in steps of 16" : "32 to 256 in steps of 32");
      return 0;
    }
  } else {
    int step = cg == 1 ? 8 : 16;
    if (N < step || N > 256 || N % step) {
      ERR(".kind::%s cta_group::%d: N = %d, must be %d to 256 in steps of %d", kn, cg, N, step,
          step);
      return 0;
    }
  }
  return 1;
}

int plB_tc_idesc_encode(const plB_tc_idesc *d, uint32_t *out, char *err, size_t n) {
  int kind = d->kind;
  if (kind < 0 || kind >= PLTC_NKIND) {
    ERR("bad tcgen05.mma kind %d", kind);
    return 0;
  }
  const char *kn = plB_tc_kind_name(kind);
  if (!check_shape(d, err, n)) return 0;
  int ac = ab_code(kind, d->a), bc = ab_code(kind, d->b);
  if (ac < 0) {
    ERR(".kind::%s: A of type %s, must be %s", kn, plB_tc_type_name(d->a), ab_types(kind));
    return 0;
  }
  if (bc < 0) {
    ERR(".kind::%s: B of type %s, must be %s", kn, plB_tc_type_name(d->b), ab_types(kind));
    return 0;
  }
  if (kind == PLTC_F16 && ac != bc) {
    ERR(".kind::f16: A and B must be of one type (A %s, B %s)", plB_tc_type_name(d->a),
        plB_tc_type_name(d->b));
    return 0;
  }
  if (kind == PLTC_I8 && (d->neg_a || d->neg_b)) {
    ERR(".kind::i8 cannot negate A or B");
    return 0;
  }
  if ((kind == PLTC_MXF4 || kind == PLTC_MXF4NVF4) && (d->trans_a || d->trans_b)) {
    ERR(".kind::%s cannot transpose A or B (both K-major)", kn);
    return 0;
  }
  if (d->sparse != 0 && d->sparse != 1) {
    ERR("sparse must be 0 or 1");
    return 0;
  }
  uint32_t v = 0;
  v |= (uint32_t)d->sparse << 2;
  v |= (uint32_t)ac << 7;
  v |= (uint32_t)bc << 10;
  v |= (uint32_t)(d->neg_a != 0) << 13;
  v |= (uint32_t)(d->neg_b != 0) << 14;
  v |= (uint32_t)(d->trans_a != 0) << 15;
  v |= (uint32_t)(d->trans_b != 0) << 16;
  v |= (uint32_t)(d->n >> 3) << 17;
  if (!block_scaled(kind)) {
    int dc = d_code(kind, d->d);
    if (dc < 0) {
      ERR(".kind::%s: D of type %s, must be %s", kn, plB_tc_type_name(d->d), d_types(kind));
      return 0;
    }
    if (d->selector < 0 || d->selector > 3 || (d->selector && !d->sparse)) {
      ERR("sparsity selector %d: 0..3, and only with sparse", d->selector);
      return 0;
    }
    if (d->saturate && kind != PLTC_I8) {
      ERR("saturate is for .kind::i8 only");
      return 0;
    }
    int shift = d->max_shift == 0    ? 0
                : d->max_shift == 8  ? 1
                : d->max_shift == 16 ? 2
                : d->max_shift == 32 ? 3
                                     : -1;
    if (shift < 0) {
      ERR("max_shift %d: must be 0, 8, 16 or 32", d->max_shift);
      return 0;
    }
    if (shift && !d->ws) {
      ERR("max_shift is a field of tcgen05.mma.ws only");
      return 0;
    }
    if (d->scale || d->sfa_id || d->sfb_id || d->k96) {
      ERR(".kind::%s has no scale type, scale-factor IDs or K = 96 (block-scaled kinds only)", kn);
      return 0;
    }
    v |= (uint32_t)d->selector;
    v |= (uint32_t)(d->saturate != 0) << 3;
    v |= (uint32_t)dc << 4;
    v |= (uint32_t)(d->m >> 4) << 24;
    v |= (uint32_t)shift << 30;
  } else {
    int st = d->scale == PLTC_T_UE4M3 ? 0 : d->scale == PLTC_T_UE8M0 ? 1 : -1;
    if (st < 0 || (st == 0 && kind != PLTC_MXF4NVF4)) {
      ERR(".kind::%s: scale type %s, must be %s", kn, plB_tc_type_name(d->scale),
          kind == PLTC_MXF4NVF4 ? "ue4m3 or ue8m0" : "ue8m0");
      return 0;
    }
    int fam4 = kind != PLTC_MXF8F6F4;
    int ida = d->sfa_id, idb = d->sfb_id;
    if (ida < 0 || ida > 3 || idb < 0 || idb > 3 || (fam4 && (ida % 2 || idb % 2))) {
      ERR(".kind::%s: scale-factor IDs A %d, B %d, must be %s", kn, ida, idb,
          fam4 ? "0 or 2" : "0..3");
      return 0;
    }
    if (d->k96 && (!fam4 || d->sparse)) {
      ERR("K = 96 is for the dense .kind::mxf4 and .kind::mxf4nvf4 only");
      return 0;
    }
    if (d->d != PLTC_T_NONE && d->d != PLTC_T_F32) {
      ERR(".kind::%s: D is f32 (got %s)", kn, plB_tc_type_name(d->d));
      return 0;
    }
    if (d->selector || d->saturate || d->max_shift) {
      ERR(".kind::%s has no sparsity selector, saturate or max_shift field", kn);
      return 0;
    }
    v |= (uint32_t)idb << 4;
    v |= (uint32_t)st << 23;
    v |= (uint32_t)(d->m >> 7) << 27;
    v |= (uint32_t)ida << 29;
    v |= (uint32_t)(d->k96 != 0) << 31;
  }
  *out = v;
  return 1;
}

int plB_tc_idesc_decode(uint32_t v, int kind, int cta_group, int ws, plB_tc_idesc *d, char *err,
                        size_t n) {
  memset(d, 0, sizeof *d);
  if (kind < 0 || kind >= PLTC_NKIND) {
    ERR("bad tcgen05.mma kind %d", kind);
    return 0;
  }
  const char *kn = plB_tc_kind_name(kind);
  uint32_t reserved;
  if (!block_scaled(kind))
    reserved = (1u << 6) | (1u << 23) | (1u << 29);
  else if (kind == PLTC_MXF8F6F4)
    reserved = 3u | (1u << 3) | (1u << 6) | (7u << 24) | (1u << 31);
  else
    reserved = 3u | (1u << 3) | (1u << 6) | (1u << 12) | (7u << 24);
  if (v & reserved) {
    ERR("instruction descriptor 0x%08x: reserved bits 0x%08x are set for .kind::%s", v,
        v & reserved, kn);
    return 0;
  }
  d->kind = kind;
  d->cta_group = cta_group;
  d->ws = ws;
  d->sparse = (int)((v >> 2) & 1);
  int ac = (int)((v >> 7) & 7),
      bc = (int)((v >> 10) & (kind == PLTC_MXF4 || kind == PLTC_MXF4NVF4 ? 3 : 7));
  d->a = ab_type(kind, ac);
  d->b = ab_type(kind, bc);
  d->neg_a = (int)((v >> 13) & 1);
  d->neg_b = (int)((v >> 14) & 1);
  d->trans_a = (int)((v >> 15) & 1);
  d->trans_b = (int)((v >> 16) & 1);
  d->n = (int)((v >> 17) & 0x3f) << 3;
  if (!block_scaled(kind)) {
    static const int DT[3] = { PLTC_T_F16, PLTC_T_F32, PLTC_T_S32 };
    int dc = (int)((v >> 4) & 3);
    d->d = dc < 3 ? DT[dc] : -1;
    d->selector = (int)(v & 3);
    d->saturate = (int)((v >> 3) & 1);
    d->m = (int)((v >> 24) & 0x1f) << 4;
    d->max_shift = (int)(v >> 30) ? 4 << (int)(v >> 30) : 0;
  } else {
    d->d = PLTC_T_F32;
    d->sfb_id = (int)((v >> 4) & 3);
    d->scale = (v >> 23) & 1 ? PLTC_T_UE8M0 : PLTC_T_UE4M3;
    d->m = (int)((v >> 27) & 3) << 7;
    d->sfa_id = (int)((v >> 29) & 3);
    d->k96 = (int)((v >> 31) & 1);
  }
  if (d->a < 0 || d->b < 0 || d->d < 0) {
    ERR("instruction descriptor 0x%08x: a type code .kind::%s does not define (A %d, B %d, D %d)",
        v, kn, ac, bc, (int)((v >> 4) & 3));
    return 0;
  }
  /* the fields must be what the encoder takes: its checks, and the same bits back */
  uint32_t back;
  char why[256];
  if (!plB_tc_idesc_encode(d, &back, why, sizeof why)) {
    ERR("instruction descriptor 0x%08x: %s", v, why);
    return 0;
  }
  if (back != v) {
    ERR("instruction descriptor 0x%08x does not round trip (0x%08x)", v, back);
    return 0;
  }
  return 1;
}
