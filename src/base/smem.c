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
  static const char *names[] = {"none", "32B", "64B", "128B"};
  return sw >= 0 && sw <= 3 ? names[sw] : "?";
}
int plB_sm_swizzle_bytes(int sw) { return sw >= 1 && sw <= 3 ? 16 << sw : 0; }
uint32_t plB_sm_swizzle_repeat(int sw) { return sw >= 1 && sw <= 3 ? 128u << sw : 16u; }
void plB_sm_swizzle_bms(int sw, int *B, int *M, int *S) {
  *B = sw >= 1 && sw <= 3 ? sw : 0;
  *M = 4; *S = 3;
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
  switch (sw) { case PLSM_SW_128B: return 1; case PLSM_SW_64B: return 2; case PLSM_SW_32B: return 3; default: return 0; }
}
static int sw_of_bits(int bits) {
  switch (bits) { case 1: return PLSM_SW_128B; case 2: return PLSM_SW_64B; case 3: return PLSM_SW_32B; default: return PLSM_SW_NONE; }
}

int plB_sm_desc_encode(const plB_sm_desc *d, uint64_t *out, char *err, size_t n) {
  if (d->start % 16 || d->start >= (1u << 18)) { ERR("descriptor start address %u: must be 16-byte aligned and below 256 KB", d->start); return 0; }
  if (d->lbo % 16 || (d->lbo >> 4) >= (1u << 14)) { ERR("leading byte offset %u: must be a multiple of 16 below 256 KB", d->lbo); return 0; }
  if (d->sbo % 16 || (d->sbo >> 4) >= (1u << 14)) { ERR("stride byte offset %u: must be a multiple of 16 below 256 KB", d->sbo); return 0; }
  if (d->base_offset < 0 || d->base_offset > 7) { ERR("base offset %d: must be 0..7", d->base_offset); return 0; }
  if (d->swizzle < 0 || d->swizzle > 3) { ERR("bad swizzle mode %d", d->swizzle); return 0; }
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
int plB_sm_desc_tile(uint32_t addr, int elt, int mn, int k, int kmajor, int sw, plB_sm_desc *d, char *err, size_t n) {
  memset(d, 0, sizeof *d);
  if (elt != 1 && elt != 2 && elt != 4) { ERR("element size %d: wgmma operands are 1, 2 or 4 bytes", elt); return 0; }
  if (sw < 0 || sw > 3) { ERR("bad swizzle mode %d", sw); return 0; }
  if (mn <= 0 || k <= 0 || mn % 8 || k % 8) { ERR("tile %dx%d: both extents must be positive multiples of 8", mn, k); return 0; }
  uint32_t W = (uint32_t)plB_sm_swizzle_bytes(sw);
  uint32_t kb = (uint32_t)k * (uint32_t)elt, mnb = (uint32_t)mn * (uint32_t)elt;
  d->start = addr; d->swizzle = sw;
  if (kmajor) {
    if (sw) {
      if (kb % W) { ERR("K-major %s tile: k (%u bytes) must be a multiple of %u bytes", plB_sm_swizzle_name(sw), kb, W); return 0; }
      d->sbo = 8 * W; d->lbo = 16;
    } else {
      if (kb % 16) { ERR("K-major tile: k (%u bytes) must be a multiple of 16 bytes", kb); return 0; }
      d->lbo = 128; d->sbo = 128 * (kb / 16);
    }
  } else {
    if (sw) {
      if (mnb % W) { ERR("MN-major %s tile: mn (%u bytes) must be a multiple of %u bytes", plB_sm_swizzle_name(sw), mnb, W); return 0; }
      d->sbo = 8 * W; d->lbo = (uint32_t)k * W;
    } else {
      if (mnb % 16) { ERR("MN-major tile: mn (%u bytes) must be a multiple of 16 bytes", mnb); return 0; }
      d->sbo = 128; d->lbo = 128 * (mnb / 16);
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
    ERR("the descriptor declares swizzle %s but the tile was written with %s", plB_sm_swizzle_name(d.swizzle), plB_sm_swizzle_name(sw));
    return 0;
  }
  return 1;
}

/* ---- the plan -------------------------------------------------------------------------------- */
uint32_t plB_sm_limit(int sm) {
  /* the most shared memory one block may use (opt-in, per the CUDA programming guide's table of
  ** compute capabilities), in bytes */
  if (sm >= 120) return 101376;           /* 99 KB */
  if (sm >= 90) return 232448;            /* 227 KB: sm_90, sm_100, sm_103, sm_110 */
  if (sm == 80 || sm == 87) return 166912; /* 163 KB */
  if (sm >= 86) return 101376;            /* 99 KB: sm_86, sm_89 */
  if (sm >= 75) return 65536;             /* 64 KB */
  if (sm >= 70) return 98304;             /* 96 KB */
  return 49152;
}

uint32_t plB_sm_static_limit(int sm, int arch_a) {
  /* ptxas 13: "uses too much shared data (0xc001 bytes, 0xc000 max)" on sm_90, sm_100f, sm_120 ...,
  ** the opt-in maximum on sm_90a, sm_100a, sm_103a, sm_110a, sm_120a, sm_121a */
  return arch_a == 1 ? plB_sm_limit(sm) : PLSM_STATIC_MAX;
}

void plB_sm_init(plB_sm_plan *p, int sm) { memset(p, 0, sizeof *p); p->sm = sm; p->align = 16; }
void plB_sm_free(plB_sm_plan *p) { free(p->a); p->a = NULL; p->n = p->cap = 0; }

static uint64_t align_up(uint64_t v, uint32_t a) { return (v + a - 1) / a * a; }

int plB_sm_add(plB_sm_plan *p, const char *name, uint32_t elt, uint64_t elems, uint32_t stages, uint32_t align,
             int sw, char *err, size_t n) {
  if (!name || !*name || strlen(name) >= PLSM_NAME) { ERR("allocation name must be 1 to %d characters", PLSM_NAME - 1); return -1; }
  for (int i = 0; i < p->n; i++)
    if (!strcmp(p->a[i].name, name)) { ERR("shared allocation '%s' already exists", name); return -1; }
  if (elt == 0 || elt > 16 || (elt & (elt - 1))) { ERR("'%s': element size %u must be 1, 2, 4, 8 or 16 bytes", name, elt); return -1; }
  if (elems == 0) { ERR("'%s': empty allocation", name); return -1; }
  if (stages == 0) { ERR("'%s': stages must be at least 1", name); return -1; }
  if (sw < 0 || sw > 3) { ERR("'%s': bad swizzle mode", name); return -1; }
  if (align == 0) align = 128;
  if (sw && align < plB_sm_swizzle_repeat(sw)) align = plB_sm_swizzle_repeat(sw);
  if (align & (align - 1)) { ERR("'%s': alignment %u is not a power of two", name, align); return -1; }
  uint64_t bytes = (uint64_t)elt * elems;
  if (sw && bytes % plB_sm_swizzle_repeat(sw)) {
    ERR("'%s': a %s-swizzled stage must be a multiple of %u bytes (got %llu)", name, plB_sm_swizzle_name(sw),
        plB_sm_swizzle_repeat(sw), (unsigned long long)bytes);
    return -1;
  }
  uint64_t stage = align_up(bytes, align);
  uint64_t off = align_up(p->top, align), end = off + stage * stages;
  uint32_t lim = plB_sm_limit(p->sm);
  if (end > lim) {
    ERR("shared memory: '%s' (%llu bytes) brings the block to %llu bytes, over the %u bytes (%u KB) a block may use on sm_%d",
        name, (unsigned long long)(stage * stages), (unsigned long long)end, lim, lim / 1024, p->sm);
    return -1;
  }
  if (p->n == p->cap) {
    int nc = p->cap ? 2 * p->cap : 8;
    plB_sm_alloc *na = realloc(p->a, (size_t)nc * sizeof *na);
    if (!na) { ERR("out of memory"); return -1; }
    p->a = na; p->cap = nc;
  }
  plB_sm_alloc *a = &p->a[p->n];
  memset(a, 0, sizeof *a);
  strcpy(a->name, name);
  a->elt = elt; a->elems = elems; a->stages = stages; a->align = align; a->swizzle = sw;
  a->offset = (uint32_t)off; a->stage_bytes = (uint32_t)stage; a->size = (uint32_t)(stage * stages);
  a->pad = (uint32_t)(off - p->top);
  p->top = (uint32_t)end;
  if (align > p->align) p->align = align;
  return p->n++;
}

int plB_sm_dynamic(const plB_sm_plan *p) { return p->top > PLSM_STATIC_MAX; }

size_t plB_sm_format(const plB_sm_plan *p, char *buf, size_t n) {
  size_t len = 0;
  char scratch[1];
  if (!buf) { buf = scratch; n = 0; }   /* measuring only */
#define PUT(...) do { int k_ = snprintf(buf + (len < n ? len : n), len < n ? n - len : 0, __VA_ARGS__); \
                      if (k_ > 0) len += (size_t)k_; } while (0)
  PUT("%-16s %8s %8s %6s %6s %7s %6s\n", "allocation", "offset", "size", "align", "stage", "swizzle", "pad");
  for (int i = 0; i < p->n; i++) {
    const plB_sm_alloc *a = &p->a[i];
    PUT("%-16s %8u %8u %6u %6u %7s %6u\n", a->name, a->offset, a->size, a->align, a->stages,
        plB_sm_swizzle_name(a->swizzle), a->pad);
  }
  PUT("total %u bytes (%s, align %u; limit %u on sm_%d)\n", p->top, plB_sm_dynamic(p) ? "dynamic" : "static",
      p->align, plB_sm_limit(p->sm), p->sm);
#undef PUT
  return len;
}
