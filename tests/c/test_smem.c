/* test_smem.c -- unit tests of src/base/smem.c: swizzles against the TMA definition (the 16-byte chunk
** index within a W-byte row xored with the 128-byte row number), the wgmma matrix descriptor's bit
** layout, canonical tile descriptors for every swizzle mode x element width x major-ness, the swizzle
** check, and the shared-memory planner (alignment, padding, stages, static/dynamic, limits). */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include "smem.h"
#include "check.h"

/* the TMA swizzle as the CUDA driver documents it: within each W-byte row segment, the 16-byte
** chunk index is xored with the row number (rows of 128 bytes) modulo W / 16 */
static uint32_t ref_swizzle(int W, uint32_t off) {
  if (!W) return off;
  uint32_t nchunk = (uint32_t)W / 16;
  uint32_t chunk = (off >> 4) & (nchunk - 1), row = (off >> 7) & (nchunk - 1);
  return (off & ~((nchunk - 1) << 4)) | ((chunk ^ row) << 4);
}

static void test_swizzle(void) {
  static const struct { int sw, bytes, B; uint32_t mask, repeat; const char *name; } T[] = {
    {PLSM_SW_NONE, 0, 0, 0, 16, "none"}, {PLSM_SW_32B, 32, 1, 0x80, 256, "32B"},
    {PLSM_SW_64B, 64, 2, 0x180, 512, "64B"}, {PLSM_SW_128B, 128, 3, 0x380, 1024, "128B"},
  };
  for (int i = 0; i < 4; i++) {
    int B, M, S;
    plB_sm_swizzle_bms(T[i].sw, &B, &M, &S);
    CHECK(B == T[i].B && M == 4 && S == 3);
    CHECK(plB_sm_swizzle_bytes(T[i].sw) == T[i].bytes);
    CHECK(plB_sm_swizzle_mask(T[i].sw) == T[i].mask);
    CHECK(plB_sm_swizzle_repeat(T[i].sw) == T[i].repeat);
    CHECK(plB_sm_swizzle_parse(T[i].name) == T[i].sw);
    CHECK(!strcmp(plB_sm_swizzle_name(T[i].sw), T[i].name));
    unsigned char seen[4096] = {0};
    for (uint32_t off = 0; off < 4096; off++) {
      uint32_t y = plB_sm_swizzle(T[i].sw, off);
      if (y != ref_swizzle(T[i].bytes, off)) { CHECK(y == ref_swizzle(T[i].bytes, off)); break; }
      /* the emitted sequence: t = and x, mask; t = shr t, 3; y = xor x, t */
      uint32_t t = off & plB_sm_swizzle_mask(T[i].sw); t >>= 3;
      if ((off ^ t) != y) { CHECK((off ^ t) == y); break; }
      seen[y] = 1;
    }
    int all = 1;
    for (int k = 0; k < 4096; k++) all &= seen[k];
    CHECK(all);                                   /* a permutation of each repeat */
  }
  CHECK(plB_sm_swizzle(PLSM_SW_128B, 0x80) == 0x90);  /* row 1: chunk 0 -> 1 */
  CHECK(plB_sm_swizzle(PLSM_SW_128B, 0x3f0) == 0x380); /* row 7, chunk 7 -> 0 */
  CHECK(plB_sm_swizzle_parse("16B") == -1);
}

static void test_desc_bits(void) {
  char err[256];
  uint64_t v;
  plB_sm_desc d = {0x400, 16, 1024, 0, PLSM_SW_128B};
  CHECK(plB_sm_desc_encode(&d, &v, err, sizeof err));
  CHECK(v == ((uint64_t)0x40 | (1ull << 16) | (64ull << 32) | (1ull << 62)));
  d = (plB_sm_desc){0x3fff0, 0x3fff0, 0x3fff0, 7, PLSM_SW_32B};
  CHECK(plB_sm_desc_encode(&d, &v, err, sizeof err));
  CHECK(v == ((uint64_t)0x3fff | (0x3fffull << 16) | (0x3fffull << 32) | (7ull << 49) | (3ull << 62)));
  d = (plB_sm_desc){0x200, 128, 256, 0, PLSM_SW_64B};
  CHECK(plB_sm_desc_encode(&d, &v, err, sizeof err) && (v >> 62) == 2);
  d.swizzle = PLSM_SW_NONE;
  CHECK(plB_sm_desc_encode(&d, &v, err, sizeof err) && (v >> 62) == 0);
  /* round trip over fields */
  for (uint32_t s = 0; s < (1u << 18); s += 0x1230)
    for (int sw = 0; sw < 4; sw++) {
      plB_sm_desc a = {s & ~15u, (s * 7u) & 0x3fff0u, (s * 13u) & 0x3fff0u, (int)(s >> 4) & 7, sw}, b;
      if (!plB_sm_desc_encode(&a, &v, err, sizeof err)) { CHECK(0); continue; }
      plB_sm_desc_decode(v, &b);
      if (memcmp(&a, &b, sizeof a)) { CHECK(!memcmp(&a, &b, sizeof a)); }
      CHECK(((v >> 14) & 3) == 0 && ((v >> 30) & 3) == 0 && ((v >> 46) & 7) == 0 && ((v >> 52) & 0x3ff) == 0);
    }
  /* fields that do not fit */
  d = (plB_sm_desc){8, 16, 16, 0, 0};
  CHECK(!plB_sm_desc_encode(&d, &v, err, sizeof err)); CHECK_HAS(err, "16-byte aligned");
  d = (plB_sm_desc){1u << 18, 16, 16, 0, 0};
  CHECK(!plB_sm_desc_encode(&d, &v, err, sizeof err));
  d = (plB_sm_desc){0, 24, 16, 0, 0};
  CHECK(!plB_sm_desc_encode(&d, &v, err, sizeof err)); CHECK_HAS(err, "leading byte offset");
  d = (plB_sm_desc){0, 16, 1u << 18, 0, 0};
  CHECK(!plB_sm_desc_encode(&d, &v, err, sizeof err)); CHECK_HAS(err, "stride byte offset");
  d = (plB_sm_desc){0, 16, 16, 8, 0};
  CHECK(!plB_sm_desc_encode(&d, &v, err, sizeof err)); CHECK_HAS(err, "base offset");
}

/* where a TMA box of the tile's swizzle puts element (i along mn, j along k), byte address */
static uint32_t tma_addr(uint32_t base, int elt, int mn, int k, int kmajor, int sw, int i, int j) {
  uint32_t W = (uint32_t)plB_sm_swizzle_bytes(sw);
  uint32_t lin;
  if (kmajor) {
    uint32_t rowb = W ? W : (uint32_t)(k * elt);              /* a none tile: one row of all k */
    uint32_t jb = (uint32_t)(j * elt), blk = W ? jb / W : 0;
    lin = blk * (uint32_t)mn * rowb + (uint32_t)i * rowb + (jb - blk * (W ? W : 0));
  } else {
    uint32_t rowb = W ? W : (uint32_t)(mn * elt);
    uint32_t ib = (uint32_t)(i * elt), blk = W ? ib / W : 0;
    lin = blk * (uint32_t)k * rowb + (uint32_t)j * rowb + (ib - blk * (W ? W : 0));
  }
  return base + plB_sm_swizzle(sw, lin);
}
/* where the hardware reads element (i, j) through a descriptor, for the canonical layouts of the PTX
** ISA (in 16-byte core-matrix rows; swizzled modes swizzle the address within the repeat) */
static uint32_t desc_addr(const plB_sm_desc *d, int elt, int kmajor, int i, int j) {
  uint32_t W = (uint32_t)plB_sm_swizzle_bytes(d->swizzle), per = 16 / (uint32_t)elt;   /* elements per 16 bytes */
  uint32_t lin;
  if (kmajor) {
    uint32_t jb = (uint32_t)j * (uint32_t)elt;
    if (W) lin = (uint32_t)(i / 8) * d->sbo + (uint32_t)(i % 8) * W + jb;            /* within one W column block */
    else lin = (uint32_t)(i / 8) * d->sbo + (uint32_t)(j / per) * d->lbo + (uint32_t)(i % 8) * 16 + (uint32_t)(j % per) * elt;
  } else {
    uint32_t ib = (uint32_t)i * (uint32_t)elt;
    if (W) lin = (ib / W) * d->lbo + (uint32_t)(j / 8) * d->sbo + (uint32_t)(j % 8) * W + ib % W;
    else lin = (uint32_t)(i / per) * d->sbo + (uint32_t)(j / 8) * d->lbo + (uint32_t)(j % 8) * 16 + (uint32_t)(i % per) * elt;
  }
  return d->start + plB_sm_swizzle(d->swizzle, lin);
}

static void test_desc_tiles(void) {
  char err[256];
  static const int elts[] = {1, 2, 4};
  int cases = 0;
  for (int sw = 0; sw < 4; sw++)
    for (int e = 0; e < 3; e++)
      for (int kmajor = 0; kmajor <= 1; kmajor++) {
        int elt = elts[e], W = plB_sm_swizzle_bytes(sw);
        /* a tile one wgmma reads: 64 rows of mn; k: one swizzle row (or 32 bytes unswizzled) */
        int mn = kmajor ? 64 : (W ? W / elt : 64), k = kmajor ? (W ? W / elt : 32 / elt) : 16;
        if (k % 8) k = 8;
        plB_sm_desc d;
        uint32_t base = 2048;
        CHECK(plB_sm_desc_tile(base, elt, mn, k, kmajor, sw, &d, err, sizeof err));
        CHECK(d.swizzle == sw && d.base_offset == 0 && d.start == base);
        if (kmajor && sw) { CHECK(d.sbo == 8u * (uint32_t)W && d.lbo == 16); }
        if (kmajor && !sw) { CHECK(d.lbo == 128 && d.sbo == 128u * (uint32_t)(k * elt / 16)); }
        if (!kmajor && sw) { CHECK(d.sbo == 8u * (uint32_t)W && d.lbo == (uint32_t)k * (uint32_t)W); }
        if (!kmajor && !sw) { CHECK(d.sbo == 128 && d.lbo == 128u * (uint32_t)(mn * elt / 16)); }
        /* the descriptor reads every element where the TMA box wrote it (unswizzled tiles are
        ** stored in core-matrix order, so only swizzled ones are compared with a box) */
        if (sw) {
          int bad = 0;
          for (int i = 0; i < mn && !bad; i++)
            for (int j = 0; j < k && !bad; j++)
              bad = desc_addr(&d, elt, kmajor, i, j) != tma_addr(base, elt, mn, k, kmajor, sw, i, j);
          CHECK(!bad);
        }
        uint64_t v;
        CHECK(plB_sm_desc_encode(&d, &v, err, sizeof err));
        CHECK(plB_sm_desc_check(v, sw, err, sizeof err));
        CHECK(!plB_sm_desc_check(v, (sw + 1) % 4, err, sizeof err));
        CHECK_HAS(err, "the tile was written with");
        cases++;
      }
  CHECK(cases == 24);
  /* a start off the repeat: the base offset is (addr >> 7) & 7 */
  plB_sm_desc d;
  CHECK(plB_sm_desc_tile(1024 + 384, 2, 64, 64, 1, PLSM_SW_128B, &d, err, sizeof err) && d.base_offset == 3);
  CHECK(!plB_sm_desc_tile(0, 2, 64, 24, 1, PLSM_SW_128B, &d, err, sizeof err));
  CHECK_HAS(err, "multiple of 128 bytes");
  CHECK(!plB_sm_desc_tile(0, 3, 64, 64, 1, PLSM_SW_128B, &d, err, sizeof err));
  CHECK(!plB_sm_desc_tile(0, 2, 60, 64, 1, PLSM_SW_128B, &d, err, sizeof err));
}

static void test_plan(void) {
  char err[256], buf[2048];
  plB_sm_plan p;
  plB_sm_init(&p, 90);
  CHECK(plB_sm_add(&p, "bar", 8, 4, 1, 8, PLSM_SW_NONE, err, sizeof err) == 0);
  CHECK(p.a[0].offset == 0 && p.a[0].size == 32 && p.a[0].align == 8);
  CHECK(plB_sm_add(&p, "A", 2, 128 * 64, 4, 0, PLSM_SW_128B, err, sizeof err) == 1);
  CHECK(p.a[1].align == 1024 && p.a[1].offset == 1024 && p.a[1].pad == 992);
  CHECK(p.a[1].stage_bytes == 16384 && p.a[1].size == 65536);
  CHECK(plB_sm_add(&p, "c", 4, 3, 2, 0, PLSM_SW_NONE, err, sizeof err) == 2);
  CHECK(p.a[2].align == 128 && p.a[2].stage_bytes == 128 && p.a[2].offset == 66560);
  CHECK(p.align == 1024);
  CHECK(plB_sm_dynamic(&p));
  size_t len = plB_sm_format(&p, buf, sizeof buf);
  CHECK(len < sizeof buf);
  CHECK_HAS(buf, "A                    1024    65536   1024      4    128B    992");
  CHECK_HAS(buf, "dynamic");
  /* errors: duplicates, swizzled stages off the repeat, the target's limit */
  CHECK(plB_sm_add(&p, "A", 2, 64, 1, 0, 0, err, sizeof err) < 0); CHECK_HAS(err, "already exists");
  CHECK(plB_sm_add(&p, "s", 2, 100, 1, 0, PLSM_SW_64B, err, sizeof err) < 0); CHECK_HAS(err, "multiple of 512 bytes");
  CHECK(plB_sm_add(&p, "huge", 1, 200000, 1, 0, 0, err, sizeof err) < 0);
  CHECK_HAS(err, "over the 232448 bytes (227 KB) a block may use on sm_90");
  plB_sm_free(&p);
  /* 48 KB is static; a byte more is dynamic */
  plB_sm_init(&p, 80);
  CHECK(plB_sm_add(&p, "x", 1, PLSM_STATIC_MAX, 1, 0, 0, err, sizeof err) == 0 && !plB_sm_dynamic(&p));
  CHECK(plB_sm_add(&p, "y", 1, 1, 1, 16, 0, err, sizeof err) == 1 && plB_sm_dynamic(&p));
  plB_sm_format(&p, buf, sizeof buf);
  CHECK_HAS(buf, "limit 166912 on sm_80");
  plB_sm_free(&p);
  CHECK(plB_sm_limit(90) == 232448 && plB_sm_limit(100) == 232448 && plB_sm_limit(80) == 166912);
  CHECK(plB_sm_limit(89) == 101376 && plB_sm_limit(120) == 101376 && plB_sm_limit(75) == 65536);
}

int main(void) {
  test_swizzle();
  test_desc_bits();
  test_desc_tiles();
  test_plan();
  return check_done("test_smem");
}
