/* test_smem.c -- unit tests of src/base/smem.c: swizzles against the TMA definition (the 16-byte
** chunk index within a W-byte row xored with the 128-byte row number), the wgmma matrix
** descriptor's bit layout, canonical tile descriptors for every swizzle mode x element width x
** major-ness, the swizzle check, and the shared-memory planner (alignment, padding, stages,
** static/dynamic, limits). */
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
  static const struct {
    int sw, bytes, B;
    uint32_t mask, repeat;
    const char *name;
  } T[] = {
    { PLSM_SW_NONE, 0, 0, 0, 16, "none" },
    { PLSM_SW_32B, 32, 1, 0x80, 256, "32B" },
    { PLSM_SW_64B, 64, 2, 0x180, 512, "64B" },
    { PLSM_SW_128B, 128, 3, 0x380, 1024, "128B" },
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
    unsigned char seen[4096] = { 0 };
    for (uint32_t off = 0; off < 4096; off++) {
      uint32_t y = plB_sm_swizzle(T[i].sw, off);
      if (y != ref_swizzle(T[i].bytes, off)) {
        CHECK(y == ref_swizzle(T[i].bytes, off));
        break;
      }
      /* the emitted sequence: t = and x, mask; t = shr t, 3; y = xor x, t */
      uint32_t t = off & plB_sm_swizzle_mask(T[i].sw);
      t >>= 3;
      if ((off ^ t) != y) {
        CHECK((off ^ t) == y);
        break;
      }
      seen[y] = 1;
    }
    int all = 1;
    for (int k = 0; k < 4096; k++) all &= seen[k];
    CHECK(all); /* a permutation of each repeat */
  }
  CHECK(plB_sm_swizzle(PLSM_SW_128B, 0x80) == 0x90);   /* row 1: chunk 0 -> 1 */
  CHECK(plB_sm_swizzle(PLSM_SW_128B, 0x3f0) == 0x380); /* row 7, chunk 7 -> 0 */
  CHECK(plB_sm_swizzle_parse("16B") == -1);
}

static void test_desc_bits(void) {
  char err[256];
  uint64_t v;
  plB_sm_desc d = { 0x400, 16, 1024, 0, PLSM_SW_128B, 0, 0 };
  CHECK(plB_sm_desc_encode(&d, &v, err, sizeof err));
  CHECK(v == ((uint64_t)0x40 | (1ull << 16) | (64ull << 32) | (1ull << 62)));
  d = (plB_sm_desc){ 0x3fff0, 0x3fff0, 0x3fff0, 7, PLSM_SW_32B, 0, 0 };
  CHECK(plB_sm_desc_encode(&d, &v, err, sizeof err));
  CHECK(v ==
        ((uint64_t)0x3fff | (0x3fffull << 16) | (0x3fffull << 32) | (7ull << 49) | (3ull << 62)));
  d = (plB_sm_desc){ 0x200, 128, 256, 0, PLSM_SW_64B, 0, 0 };
  CHECK(plB_sm_desc_encode(&d, &v, err, sizeof err) && (v >> 62) == 2);
  d.swizzle = PLSM_SW_NONE;
  CHECK(plB_sm_desc_encode(&d, &v, err, sizeof err) && (v >> 62) == 0);
  /* round trip over fields */
  for (uint32_t s = 0; s < (1u << 18); s += 0x1230)
    for (int sw = 0; sw < 4; sw++) {
      plB_sm_desc
          a = { s & ~15u, (s * 7u) & 0x3fff0u, (s * 13u) & 0x3fff0u, (int)(s >> 4) & 7, sw, 0, 0 },
          b;
      if (!plB_sm_desc_encode(&a, &v, err, sizeof err)) {
        CHECK(0);
        continue;
      }
      plB_sm_desc_decode(v, &b);
      if (memcmp(&a, &b, sizeof a)) {
        CHECK(!memcmp(&a, &b, sizeof a));
      }
      CHECK(((v >> 14) & 3) == 0 && ((v >> 30) & 3) == 0 && ((v >> 46) & 7) == 0 &&
            ((v >> 52) & 0x3ff) == 0);
    }
  /* fields that do not fit */
  d = (plB_sm_desc){ 8, 16, 16, 0, 0, 0, 0 };
  CHECK(!plB_sm_desc_encode(&d, &v, err, sizeof err));
  CHECK_HAS(err, "16-byte aligned");
  d = (plB_sm_desc){ 1u << 18, 16, 16, 0, 0, 0, 0 };
  CHECK(!plB_sm_desc_encode(&d, &v, err, sizeof err));
  d = (plB_sm_desc){ 0, 24, 16, 0, 0, 0, 0 };
  CHECK(!plB_sm_desc_encode(&d, &v, err, sizeof err));
  CHECK_HAS(err, "leading byte offset");
  d = (plB_sm_desc){ 0, 16, 1u << 18, 0, 0, 0, 0 };
  CHECK(!plB_sm_desc_encode(&d, &v, err, sizeof err));
  CHECK_HAS(err, "stride byte offset");
  d = (plB_sm_desc){ 0, 16, 16, 8, 0, 0, 0 };
  CHECK(!plB_sm_desc_encode(&d, &v, err, sizeof err));
  CHECK_HAS(err, "base offset");
}

/* where a TMA box of the tile's swizzle puts element (i along mn, j along k), byte address */
static uint32_t tma_addr(uint32_t base, int elt, int mn, int k, int kmajor, int sw, int i, int j) {
  uint32_t W = (uint32_t)plB_sm_swizzle_bytes(sw);
  uint32_t lin;
  if (kmajor) {
    uint32_t rowb = W ? W : (uint32_t)(k * elt); /* a none tile: one row of all k */
    uint32_t jb = (uint32_t)(j * elt), blk = W ? jb / W : 0;
    lin = blk * (uint32_t)mn * rowb + (uint32_t)i * rowb + (jb - blk * (W ? W : 0));
  } else {
    uint32_t rowb = W ? W : (uint32_t)(mn * elt);
    uint32_t ib = (uint32_t)(i * elt), blk = W ? ib / W : 0;
    lin = blk * (uint32_t)k * rowb + (uint32_t)j * rowb + (ib - blk * (W ? W : 0));
  }
  return base + plB_sm_swizzle(sw, lin);
}
/* where the hardware reads element (i, j) through a descriptor, for the canonical layouts of the
** PTX ISA (in 16-byte core-matrix rows; swizzled modes swizzle the address within the repeat) */
static uint32_t desc_addr(const plB_sm_desc *d, int elt, int kmajor, int i, int j) {
  /* elements per 16 bytes */
  uint32_t W = (uint32_t)plB_sm_swizzle_bytes(d->swizzle), per = 16 / (uint32_t)elt;
  uint32_t lin;
  if (kmajor) {
    uint32_t jb = (uint32_t)j * (uint32_t)elt;
    /* within one W column block */
    if (W)
      lin = (uint32_t)(i / 8) * d->sbo + (uint32_t)(i % 8) * W + jb;
    else
      lin = (uint32_t)(i / 8) * d->sbo + (uint32_t)(j / per) * d->lbo + (uint32_t)(i % 8) * 16 +
            (uint32_t)(j % per) * elt;
  } else {
    uint32_t ib = (uint32_t)i * (uint32_t)elt;
    if (W)
      lin = (ib / W) * d->lbo + (uint32_t)(j / 8) * d->sbo + (uint32_t)(j % 8) * W + ib % W;
    else
      lin = (uint32_t)(i / per) * d->sbo + (uint32_t)(j / 8) * d->lbo + (uint32_t)(j % 8) * 16 +
            (uint32_t)(i % per) * elt;
  }
  return d->start + plB_sm_swizzle(d->swizzle, lin);
}

static void test_desc_tiles(void) {
  char err[256];
  static const int elts[] = { 1, 2, 4 };
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
        if (kmajor && sw) {
          CHECK(d.sbo == 8u * (uint32_t)W && d.lbo == 16);
        }
        if (kmajor && !sw) {
          CHECK(d.lbo == 128 && d.sbo == 128u * (uint32_t)(k * elt / 16));
        }
        if (!kmajor && sw) {
          CHECK(d.sbo == 8u * (uint32_t)W && d.lbo == (uint32_t)k * (uint32_t)W);
        }
        if (!kmajor && !sw) {
          CHECK(d.sbo == 128 && d.lbo == 128u * (uint32_t)(mn * elt / 16));
        }
        /* the descriptor reads every element where the TMA box wrote it (unswizzled tiles are
        ** stored in core-matrix order, so only swizzled ones are compared with a box) */
        if (sw) {
          int bad = 0;
          for (int i = 0; i < mn && !bad; i++)
            for (int j = 0; j < k && !bad; j++)
              bad =
                  desc_addr(&d, elt, kmajor, i, j) != tma_addr(base, elt, mn, k, kmajor, sw, i, j);
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
  CHECK(plB_sm_desc_tile(1024 + 384, 2, 64, 64, 1, PLSM_SW_128B, &d, err, sizeof err) &&
        d.base_offset == 3);
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
  CHECK(plB_sm_add(&p, "A", 2, 64, 1, 0, 0, err, sizeof err) < 0);
  CHECK_HAS(err, "already exists");
  CHECK(plB_sm_add(&p, "s", 2, 100, 1, 0, PLSM_SW_64B, err, sizeof err) < 0);
  CHECK_HAS(err, "multiple of 512 bytes");
  CHECK(plB_sm_add(&p, "huge", 1, 200000, 1, 0, 0, err, sizeof err) < 0);
  CHECK_HAS(err, "over the 232448 bytes (227 KB) a block may use on sm_90");
  plB_sm_free(&p);
  /* 48 KB is static; a byte more is dynamic */
  plB_sm_init(&p, 80);
  CHECK(plB_sm_add(&p, "x", 1, PLSM_STATIC_MAX, 1, 0, 0, err, sizeof err) == 0 &&
        !plB_sm_dynamic(&p));
  CHECK(plB_sm_add(&p, "y", 1, 1, 1, 16, 0, err, sizeof err) == 1 && plB_sm_dynamic(&p));
  plB_sm_format(&p, buf, sizeof buf);
  CHECK_HAS(buf, "limit 166912 on sm_80");
  plB_sm_free(&p);
  CHECK(plB_sm_limit(90) == 232448 && plB_sm_limit(100) == 232448 && plB_sm_limit(80) == 166912);
  CHECK(plB_sm_limit(89) == 101376 && plB_sm_limit(120) == 101376 && plB_sm_limit(75) == 65536);
}

/* ---- the tcgen05 (sm_100) shared-memory descriptor -------------------------------------------
** Expected values from the ISA's "Shared memory descriptor layout" table: start/LBO/SBO >> 4 at
** 0, 16, 32; 0b001 at 46-48; base offset at 49-51; LBO mode at 52; the swizzle code at 61-63
** (0 none, 1 128B with 32B atomicity, 2 128B, 4 64B, 6 32B). */
static uint64_t tc_ref(uint32_t start, uint32_t lbo, uint32_t sbo, int bo, int mode, int code) {
  return (uint64_t)(start >> 4) | ((uint64_t)(lbo >> 4) << 16) | ((uint64_t)(sbo >> 4) << 32) |
         ((uint64_t)1 << 46) | ((uint64_t)bo << 49) | ((uint64_t)mode << 52) |
         ((uint64_t)code << 61);
}

static void test_desc_sm100(void) {
  char err[256];
  uint64_t v, w;
  static const struct {
    int sw, code;
  } SW[] = {
    { PLSM_SW_NONE, 0 }, { PLSM_SW_128B_32B, 1 }, { PLSM_SW_128B, 2 },
    { PLSM_SW_64B, 4 },  { PLSM_SW_32B, 6 },
  };
  /* the target picks the layout */
  CHECK(plB_sm_desc_layout(90) == 90 && plB_sm_desc_layout(100) == 100 &&
        plB_sm_desc_layout(103) == 100);
  CHECK(plB_sm_desc_layout(110) == 100 && plB_sm_desc_layout(120) == 0 &&
        plB_sm_desc_layout(80) == 0);
  /* a worked value: LBO 16, SBO 1024, 128B swizzle, at 0x400 */
  plB_sm_desc d = { 0x400, 16, 1024, 0, PLSM_SW_128B, 0, 0 };
  CHECK(plB_sm_desc_encode_sm(100, &d, &v, err, sizeof err) &&
        v == (0x4000404000010000ull | (0x400 >> 4)));
  int cases = 0;
  for (int i = 0; i < 5; i++)
    for (uint32_t s = 0; s < (1u << 18); s += 0x2470)
      for (int mode = 0; mode < 2; mode++) {
        plB_sm_desc a = { s & ~15u,
                          (s * 5u) & 0x3fff0u,
                          (s * 11u) & 0x3fff0u,
                          (int)(s >> 5) & 7,
                          SW[i].sw,
                          0,
                          mode },
                    b;
        if (!plB_sm_desc_encode_sm(100, &a, &v, err, sizeof err)) {
          CHECK(0);
          continue;
        }
        if (v != tc_ref(a.start, a.lbo, a.sbo, a.base_offset, mode, SW[i].code)) {
          CHECK(0);
          continue;
        }
        /* the decoder gives the fields back, marked as the tcgen05 layout */
        a.tcgen05 = 1;
        if (!plB_sm_desc_decode_sm(103, v, &b, err, sizeof err) || memcmp(&a, &b, sizeof a)) {
          CHECK(0);
          continue;
        }
        /* the Hopper layout of the same fields is unchanged: no version or mode bit, 62-63 */
        if (SW[i].sw != PLSM_SW_128B_32B && !mode) {
          a.tcgen05 = 0;
          plB_sm_desc_encode(&a, &w, err, sizeof err);
          uint64_t w90;
          CHECK(plB_sm_desc_encode_sm(90, &a, &w90, err, sizeof err) && w90 == w);
          /* a Hopper descriptor plus bit 46 is the Blackwell one (the codes share bits 62-63) */
          CHECK((w | ((uint64_t)1 << 46)) == v);
        }
        cases++;
      }
  CHECK(cases == 5 * 2 * 29);
  /* the wgmma layout has no 32B-atomicity mode and no LBO mode */
  d = (plB_sm_desc){ 0, 16, 1024, 0, PLSM_SW_128B_32B, 0, 0 };
  CHECK(!plB_sm_desc_encode_sm(90, &d, &v, err, sizeof err));
  d = (plB_sm_desc){ 0, 16, 1024, 0, PLSM_SW_128B, 0, 1 };
  CHECK(!plB_sm_desc_encode_sm(90, &d, &v, err, sizeof err));
  CHECK_HAS(err, "LBO mode");
  CHECK(!plB_sm_desc_encode_sm(120, &d, &v, err, sizeof err));
  CHECK_HAS(err, "sm_120 has no");
  d.lbo_mode = 2;
  CHECK(!plB_sm_desc_encode_sm(100, &d, &v, err, sizeof err));
  CHECK_HAS(err, "LBO mode 2");
  /* the decoder refuses what the layout fixes: the version bits, 53-60, codes 3/5/7, the gaps */
  uint64_t good = tc_ref(0x400, 16, 1024, 0, 0, 2);
  CHECK(plB_sm_desc_decode_sm(100, good, &d, err, sizeof err));
  CHECK(!plB_sm_desc_decode_sm(100, good & ~((uint64_t)1 << 46), &d, err, sizeof err));
  CHECK_HAS(err, "0b001");
  CHECK(!plB_sm_desc_decode_sm(100, good | ((uint64_t)1 << 47), &d, err, sizeof err));
  CHECK_HAS(err, "0b001");
  for (int b = 53; b <= 60; b++) {
    CHECK(!plB_sm_desc_decode_sm(100, good | ((uint64_t)1 << b), &d, err, sizeof err));
  }
  CHECK_HAS(err, "53-60");
  for (int code = 3; code <= 7; code += 2) {
    uint64_t bad = (good & ~((uint64_t)7 << 61)) | ((uint64_t)code << 61);
    CHECK(!plB_sm_desc_decode_sm(100, bad, &d, err, sizeof err));
    CHECK_HAS(err, "is no mode");
  }
  CHECK(!plB_sm_desc_decode_sm(100, good | ((uint64_t)1 << 15), &d, err, sizeof err));
  CHECK_HAS(err, "14-15");
  CHECK(!plB_sm_desc_decode_sm(100, good | ((uint64_t)1 << 31), &d, err, sizeof err));
  /* and the sm_90 decoder refuses the tcgen05 bits */
  CHECK(!plB_sm_desc_decode_sm(90, good, &d, err, sizeof err));
  CHECK_HAS(err, "46-48");
  /* canonical tiles: the strides of the wgmma tiles, the tcgen05 layout */
  plB_sm_desc t90, t100;
  CHECK(plB_sm_desc_tile(1024 + 384, 2, 64, 64, 1, PLSM_SW_128B, &t90, err, sizeof err));
  CHECK(plB_sm_desc_tile_sm(100, 1024 + 384, 2, 64, 64, 1, PLSM_SW_128B, &t100, err, sizeof err));
  CHECK(t100.tcgen05 == 1 && t100.lbo == t90.lbo && t100.sbo == t90.sbo && t100.base_offset == 3);
  CHECK(plB_sm_desc_encode_sm(100, &t100, &v, err, sizeof err) &&
        v == tc_ref(1408, 16, 1024, 3, 0, 2));
  CHECK(!plB_sm_desc_tile_sm(100, 0, 4, 64, 8, 0, PLSM_SW_128B_32B, &t100, err, sizeof err));
  CHECK_HAS(err, "32B atomicity");
}

/* ---- the tcgen05.mma instruction descriptor ----------------------------------------------------
** Expected values from the ISA's tables, field by field: {lsb, width} of each field and the codes
** its values take, per kind (kinds f16/tf32/f8f6f4/i8; mxf8f6f4; mxf4/mxf4nvf4). */
static uint32_t put(uint32_t v, int lsb, int width, uint32_t x) {
  CHECK(x < (1u << width));
  return v | (x << lsb);
}

static void test_idesc(void) {
  char err[256];
  uint32_t v;
  plB_tc_idesc d, e;
  /* the worked value: bf16 x bf16 -> f32, M 128, N 256, both K-major */
  d = (plB_tc_idesc){ .kind = PLTC_F16,
                      .cta_group = 1,
                      .d = PLTC_T_F32,
                      .a = PLTC_T_BF16,
                      .b = PLTC_T_BF16,
                      .m = 128,
                      .n = 256 };
  CHECK(plB_tc_idesc_encode(&d, &v, err, sizeof err) && v == 0x08400490u);
  /* every dense kind, type pair, shape of the table, and each flag */
  static const struct {
    int kind;
    int types[5];
    int codes[5];
    int nt;
    int dt[2];
    int dc[2];
    int nd;
  } K[] = {
    { PLTC_F16, { PLTC_T_F16, PLTC_T_BF16 }, { 0, 1 }, 2, { PLTC_T_F16, PLTC_T_F32 }, { 0, 1 }, 2 },
    { PLTC_TF32, { PLTC_T_TF32 }, { 2 }, 1, { PLTC_T_F32 }, { 1 }, 1 },
    { PLTC_F8F6F4,
      { PLTC_T_E4M3, PLTC_T_E5M2, PLTC_T_E2M3, PLTC_T_E3M2, PLTC_T_E2M1 },
      { 0, 1, 3, 4, 5 },
      5,
      { PLTC_T_F16, PLTC_T_F32 },
      { 0, 1 },
      2 },
    { PLTC_I8, { PLTC_T_U8, PLTC_T_S8 }, { 0, 1 }, 2, { PLTC_T_S32 }, { 2 }, 1 },
  };
  int cases = 0;
  for (int k = 0; k < 4; k++)
    for (int cg = 1; cg <= 2; cg++)
      for (int ia = 0; ia < K[k].nt; ia++)
        for (int ib = 0; ib < K[k].nt; ib++)
          for (int id = 0; id < K[k].nd; id++)
            for (int m = 64; m <= 256; m *= 2)
              for (int N = 8; N <= 256; N += 8) {
                int kind = K[k].kind;
                if (kind == PLTC_F16 && ia != ib) continue;
                int mok = cg == 1 ? m <= 128 : m >= 128;
                int nok = kind == PLTC_I8 ? (cg == 1 ? (N <= 24 || N % 16 == 0) : N % 32 == 0)
                                          : N % (8 * cg) == 0;
                int flags = (N / 8) % 8; /* walk the flag bits with N */
                d = (plB_tc_idesc){ .kind = kind,
                                    .cta_group = cg,
                                    .d = K[k].dt[id],
                                    .a = K[k].types[ia],
                                    .b = K[k].types[ib],
                                    .m = m,
                                    .n = N,
                                    .trans_a = flags & 1,
                                    .trans_b = (flags >> 1) & 1,
                                    .neg_a = kind != PLTC_I8 && (flags & 4),
                                    .saturate = kind == PLTC_I8 && (flags & 4) };
                int ok = plB_tc_idesc_encode(&d, &v, err, sizeof err);
                CHECK(ok == (mok && nok));
                if (!ok) continue;
                uint32_t x = 0;
                x = put(x, 3, 1, (uint32_t)d.saturate);
                x = put(x, 4, 2, (uint32_t)K[k].dc[id]);
                x = put(x, 7, 3, (uint32_t)K[k].codes[ia]);
                x = put(x, 10, 3, (uint32_t)K[k].codes[ib]);
                x = put(x, 13, 1, (uint32_t)d.neg_a);
                x = put(x, 15, 1, (uint32_t)d.trans_a);
                x = put(x, 16, 1, (uint32_t)d.trans_b);
                x = put(x, 17, 6, (uint32_t)N >> 3);
                x = put(x, 24, 5, (uint32_t)m >> 4);
                if (v != x) {
                  CHECK(v == x);
                  fprintf(stderr, "  kind %d m %d n %d: 0x%08x, want 0x%08x\n", kind, m, N, v, x);
                }
                /* decode: the fields back */
                if (!plB_tc_idesc_decode(v, kind, cg, 0, &e, err, sizeof err) ||
                    memcmp(&d, &e, sizeof d)) {
                  CHECK(0);
                  fprintf(stderr, "  decode 0x%08x: %s\n", v, err);
                }
                cases++;
              }
  CHECK(cases > 2000);
  /* sparse with its selector, negate B, the .ws shapes and the max shift at 30-31 */
  d = (plB_tc_idesc){ .kind = PLTC_F16,
                      .cta_group = 1,
                      .d = PLTC_T_F32,
                      .a = PLTC_T_F16,
                      .b = PLTC_T_F16,
                      .m = 128,
                      .n = 64,
                      .sparse = 1,
                      .selector = 3,
                      .neg_b = 1 };
  CHECK(plB_tc_idesc_encode(&d, &v, err, sizeof err));
  CHECK(v == (3u | (1u << 2) | (1u << 4) | (1u << 14) | (8u << 17) | (8u << 24)));
  CHECK(plB_tc_idesc_decode(v, PLTC_F16, 1, 0, &e, err, sizeof err) && !memcmp(&d, &e, sizeof d));
  static const int SHIFT[4][2] = { { 0, 0 }, { 8, 1 }, { 16, 2 }, { 32, 3 } };
  for (int i = 0; i < 4; i++) {
    d = (plB_tc_idesc){ .kind = PLTC_TF32,
                        .cta_group = 1,
                        .ws = 1,
                        .d = PLTC_T_F32,
                        .a = PLTC_T_TF32,
                        .b = PLTC_T_TF32,
                        .m = 32,
                        .n = 128,
                        .max_shift = SHIFT[i][0] };
    CHECK(plB_tc_idesc_encode(&d, &v, err, sizeof err));
    CHECK(v == ((1u << 4) | (2u << 7) | (2u << 10) | (16u << 17) | (2u << 24) |
                ((uint32_t)SHIFT[i][1] << 30)));
    CHECK(plB_tc_idesc_decode(v, PLTC_TF32, 1, 1, &e, err, sizeof err) &&
          !memcmp(&d, &e, sizeof d));
  }
  /* block scaled: mxf8f6f4 (types as f8f6f4, scale ue8m0, SF IDs 0..3), the mxf4 pair (e2m1 = 1,
  ** B in 10-11, SF IDs 0 or 2, ue4m3 only for mxf4nvf4, K = 96 at bit 31) */
  cases = 0;
  for (int cg = 1; cg <= 2; cg++)
    for (int m = 128; m <= 256; m *= 2)
      for (int ida = 0; ida < 4; ida++)
        for (int idb = 0; idb < 4; idb++)
          for (int ia = 0; ia < 5; ia++) {
            d = (plB_tc_idesc){ .kind = PLTC_MXF8F6F4,
                                .cta_group = cg,
                                .a = K[2].types[ia],
                                .b = K[2].types[4 - ia],
                                .m = m,
                                .n = 128,
                                .scale = PLTC_T_UE8M0,
                                .sfa_id = ida,
                                .sfb_id = idb,
                                .trans_b = ia & 1,
                                .neg_a = idb & 1 };
            int ok = plB_tc_idesc_encode(&d, &v, err, sizeof err);
            CHECK(ok == (cg == 2 || m == 128));
            if (!ok) continue;
            uint32_t x = 0;
            x = put(x, 4, 2, (uint32_t)idb);
            x = put(x, 7, 3, (uint32_t)K[2].codes[ia]);
            x = put(x, 10, 3, (uint32_t)K[2].codes[4 - ia]);
            x = put(x, 13, 1, (uint32_t)d.neg_a);
            x = put(x, 16, 1, (uint32_t)d.trans_b);
            x = put(x, 17, 6, 128u >> 3);
            x = put(x, 23, 1, 1);
            x = put(x, 27, 2, (uint32_t)m >> 7);
            x = put(x, 29, 2, (uint32_t)ida);
            CHECK(v == x);
            d.d = PLTC_T_F32; /* what the decoder reports */
            CHECK(plB_tc_idesc_decode(v, PLTC_MXF8F6F4, cg, 0, &e, err, sizeof err) &&
                  !memcmp(&d, &e, sizeof d));
            cases++;
          }
  CHECK(cases == 3 * 16 * 5);
  for (int kind = PLTC_MXF4; kind <= PLTC_MXF4NVF4; kind++)
    for (int st = 0; st < 2; st++)
      for (int id = 0; id < 4; id++)
        for (int k96 = 0; k96 < 2; k96++) {
          d = (plB_tc_idesc){ .kind = kind,
                              .cta_group = 2,
                              .d = PLTC_T_F32,
                              .a = PLTC_T_E2M1,
                              .b = PLTC_T_E2M1,
                              .m = 256,
                              .n = 256,
                              .scale = st ? PLTC_T_UE8M0 : PLTC_T_UE4M3,
                              .sfa_id = id,
                              .sfb_id = 2 - (id & 2),
                              .k96 = k96 };
          int ok = plB_tc_idesc_encode(&d, &v, err, sizeof err);
          CHECK(ok == (id % 2 == 0 && (st == 1 || kind == PLTC_MXF4NVF4)));
          if (!ok) continue;
          uint32_t x = 0;
          x = put(x, 4, 2, (uint32_t)d.sfb_id);
          x = put(x, 7, 3, 1);
          x = put(x, 10, 2, 1);
          x = put(x, 17, 6, 256u >> 3);
          x = put(x, 23, 1, (uint32_t)st);
          x = put(x, 27, 2, 2);
          x = put(x, 29, 2, (uint32_t)id);
          x = put(x, 31, 1, (uint32_t)k96);
          CHECK(v == x);
          CHECK(plB_tc_idesc_decode(v, kind, 2, 0, &e, err, sizeof err) &&
                !memcmp(&d, &e, sizeof d));
        }
  /* the rules of the tables: shapes, types, negate, transpose, reserved bits */
  d = (plB_tc_idesc){ .kind = PLTC_F16,
                      .cta_group = 1,
                      .d = PLTC_T_F32,
                      .a = PLTC_T_F16,
                      .b = PLTC_T_F16,
                      .m = 256,
                      .n = 64 };
  CHECK(!plB_tc_idesc_encode(&d, &v, err, sizeof err));
  CHECK_HAS(err, "M = 256, must be 64 or 128");
  d.cta_group = 2;
  d.n = 72;
  CHECK(!plB_tc_idesc_encode(&d, &v, err, sizeof err));
  CHECK_HAS(err, "N = 72, must be 16 to 256 in steps of 16");
  d = (plB_tc_idesc){ .kind = PLTC_TF32,
                      .cta_group = 1,
                      .d = PLTC_T_F16,
                      .a = PLTC_T_TF32,
                      .b = PLTC_T_TF32,
                      .m = 128,
                      .n = 64 };
  CHECK(!plB_tc_idesc_encode(&d, &v, err, sizeof err));
  CHECK_HAS(err, "D of type f16, must be f32");
  d = (plB_tc_idesc){ .kind = PLTC_I8,
                      .cta_group = 1,
                      .d = PLTC_T_S32,
                      .a = PLTC_T_S8,
                      .b = PLTC_T_U8,
                      .m = 128,
                      .n = 64,
                      .neg_a = 1 };
  CHECK(!plB_tc_idesc_encode(&d, &v, err, sizeof err));
  CHECK_HAS(err, "cannot negate");
  d = (plB_tc_idesc){ .kind = PLTC_MXF4,
                      .cta_group = 1,
                      .a = PLTC_T_E2M1,
                      .b = PLTC_T_E2M1,
                      .m = 128,
                      .n = 64,
                      .scale = PLTC_T_UE8M0,
                      .trans_a = 1 };
  CHECK(!plB_tc_idesc_encode(&d, &v, err, sizeof err));
  CHECK_HAS(err, "cannot transpose");
  d = (plB_tc_idesc){ .kind = PLTC_MXF8F6F4,
                      .cta_group = 2,
                      .a = PLTC_T_E4M3,
                      .b = PLTC_T_E4M3,
                      .m = 128,
                      .n = 64,
                      .scale = PLTC_T_UE8M0,
                      .sparse = 1 };
  CHECK(!plB_tc_idesc_encode(&d, &v, err, sizeof err));
  CHECK_HAS(err, "must be 256");
  d = (plB_tc_idesc){ .kind = PLTC_F16,
                      .cta_group = 1,
                      .d = PLTC_T_F32,
                      .a = PLTC_T_F16,
                      .b = PLTC_T_F16,
                      .m = 128,
                      .n = 64,
                      .max_shift = 8 };
  CHECK(!plB_tc_idesc_encode(&d, &v, err, sizeof err));
  CHECK_HAS(err, ".ws only");
  d.max_shift = 0;
  d.selector = 1;
  CHECK(!plB_tc_idesc_encode(&d, &v, err, sizeof err));
  CHECK_HAS(err, "only with sparse");
  CHECK(!plB_tc_idesc_decode(0x08400490u | (1u << 23), PLTC_F16, 1, 0, &e, err, sizeof err));
  CHECK_HAS(err, "reserved");
  CHECK(!plB_tc_idesc_decode(0x08400490u | (1u << 6), PLTC_F16, 1, 0, &e, err, sizeof err));
  CHECK(!plB_tc_idesc_decode(0x08400490u | (1u << 29), PLTC_F16, 1, 0, &e, err, sizeof err));
  CHECK(!plB_tc_idesc_decode((3u << 4) | (8u << 17) | (8u << 24), PLTC_F16, 1, 0, &e, err,
                             sizeof err));
  CHECK(!plB_tc_idesc_decode((1u << 12) | (1u << 7) | (1u << 10) | (1u << 23) | (8u << 17) |
                                 (1u << 27),
                             PLTC_MXF4, 1, 0, &e, err, sizeof err));
  CHECK(!plB_tc_idesc_decode(1u << 31, PLTC_MXF8F6F4, 1, 0, &e, err, sizeof err));
  CHECK(plB_tc_kind_parse("mxf4nvf4") == PLTC_MXF4NVF4 && plB_tc_kind_parse("f32") == -1);
  CHECK(plB_tc_type_parse("ue4m3") == PLTC_T_UE4M3 && plB_tc_type_parse("none") == -1);
}

int main(void) {
  test_swizzle();
  test_desc_bits();
  test_desc_tiles();
  test_plan();
  test_desc_sm100();
  test_idesc();
  return check_done("test_smem");
}
