/* test_im2col.c -- im2col tensor maps through the C API (ptxlua_tensormap_encode_im2col): on
** "emu", a 4d im2col TMA load of an NHWC tensor (3x3 filter, padding 1, a column that runs from
** one image into the next, three filter offsets, the 32B swizzle) launched from C, every element
** of the shared tile checked against im2col computed here the convolution way; the map's
** validation (corner ranges, rank, names); then, against the mock driver ($PTXLUA_MOCK_LIBCUDA),
** the arguments cuTensorMapEncodeIm2col receives and a driver refusal turned into a message. */
#include <dlfcn.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include "ptxlua.h"
#include "test_engine.h"
#include "../mock_cuda/ptxmock.h"
#include "check.h"

enum { N = 2, H = 6, W = 9, C = 16, CPP = 16, PPC = 40, M0 = 20 };

/* thread 0 loads PPC pixels x CPP f16 channels (32B swizzle) at (c, w, h, n) with offsets (ow, oh);
** every thread copies the tile's raw u16 slots to out */
static const char *SCRIPT =
    "local ptx = require 'ptxlua'\n"
    "local BYTES = 40 * 16 * 2\n"
    "ptx.kernel { name = 'im2col_load', target = 'sm_90a', grid = {1}, block = {128},\n"
    "  params = { {'tmap', 'tensormap'}, {'out', 'u16*'}, {'c', 's32'}, {'w', 's32'}, {'h', "
    "'s32'}, {'n', 's32'},\n"
    "             {'ow', 'u16'}, {'oh', 'u16'} },\n"
    "  body = function(_, tmap, out, c, w, h, n, ow, oh)\n"
    "    local plan = ptx.smem_plan()\n"
    "    local bar = plan:alloc('bar', 'b64', 1, { align = 8 })\n"
    "    local tile = plan:alloc('tile', 'b8', BYTES, { align = 1024 })\n"
    "    local desc = ptx.reg.u64()\n"
    "    ptx.op 'cvta.param.u64' (desc, tmap)\n"
    "    local tid = ptx.special 'tid.x'\n"
    "    ptx.if_(tid:eq(0), function()\n"
    "      ptx.op 'mbarrier.init.shared::cta.b64' (bar:addr(0), 1)\n"
    "      ptx.op 'mbarrier.arrive.expect_tx.shared::cta.b64' (ptx._, bar:addr(0), BYTES)\n"
    "      local co, of = {}, {}\n"
    "      for i, p in ipairs { c, w, h, n } do co[i] = ptx.reg.b32(); ptx.mov.b32(co[i], "
    "p:load()) end\n"
    "      for i, p in ipairs { ow, oh } do of[i] = ptx.reg.b16(); ptx.mov.b16(of[i], p:load()) "
    "end\n"
    "      local ld = ptx.op "
    "'cp.async.bulk.tensor.4d.shared::cluster.global.im2col.mbarrier::complete_tx::bytes'\n"
    "      ld(tile:addr(0), ptx.taddr(desc, co), bar:addr(0), of)\n"
    "    end)\n"
    "    ptx.bar.sync(0)\n"
    "    ptx.mbarrier_wait(bar, 0)\n"
    "    local po = ptx.global_ptrs(out)\n"
    "    local sa = ptx.reg.u32()\n"
    "    ptx.mov.u32(sa, ptx.sym 'smem')\n"
    "    for i = 0, BYTES / 2 / 128 - 1 do\n"
    "      local idx = tid + i * 128\n"
    "      local v = ptx.reg.u16()\n"
    "      ptx.ld.shared.u16(v, ptx.addr(sa + tile.offset + idx:shl(1)))\n"
    "      ptx.st.global.u16(ptx.addr(po + idx:mul_wide(2)), v)\n"
    "    end\n"
    "  end }\n";

static unsigned short value(int n, int h, int w, int c) {
  return (unsigned short)((((n * H + h) * W + w) * C + c) * 2654435761u >> 12);
}

/* output pixel m of the 3x3, padding-1 convolution: image n, window corner (h, w) */
static void out_pixel(int m, int *n, int *h, int *w) {
  int q = W, p = H; /* (W - 1 + (-1) - (-1)) / 1 + 1 */
  *w = -1 + m % q;
  m /= q;
  *h = -1 + m % p;
  m /= p;
  *n = m;
}

static void test_emu(void) {
  ptxlua_engine *e = test_engine();
  if (!e) {
    failures++;
    return;
  }
  ptxlua_device *d = NULL;
  ptxlua_kernel *k = NULL;
  CHECKMSG(ptxlua_load_string(e, "im2col.lua", SCRIPT, strlen(SCRIPT)) == PTXLUA_OK, e);
  CHECKMSG(ptxlua_device_open(e, "emu", &d) == PTXLUA_OK, e);
  CHECKMSG(ptxlua_kernel_prepare(d, "im2col_load", &k) == PTXLUA_OK, e);
  if (!k) {
    ptxlua_close(e);
    return;
  }
  static unsigned short src[N * H * W * C], got[PPC * CPP];
  for (int n = 0; n < N; n++)
    for (int h = 0; h < H; h++)
      for (int w = 0; w < W; w++)
        for (int c = 0; c < C; c++) src[((n * H + h) * W + w) * C + c] = value(n, h, w, c);
  ptxlua_buffer *bs = NULL, *bo = NULL;
  CHECKMSG(ptxlua_buffer_alloc(d, sizeof src, &bs) == PTXLUA_OK, e);
  CHECKMSG(ptxlua_buffer_alloc(d, sizeof got, &bo) == PTXLUA_OK, e);
  CHECKMSG(ptxlua_buffer_upload(bs, 0, src, sizeof src) == PTXLUA_OK, e);
  uint64_t dims[4] = { C, W, H, N };
  int lower[2] = { -1, -1 }, upper[2] = { -1, -1 };
  ptxlua_im2col spec = { lower, upper, CPP, PPC, NULL, "32B", NULL, NULL, NULL };
  ptxlua_tensormap tm;
  CHECKMSG(ptxlua_tensormap_encode_im2col(bs, "f16", 4, dims, NULL, &spec, &tm) == PTXLUA_OK, e);
  static const int offs[3][2] = { { 0, 0 }, { 2, 1 }, { 1, 2 } };
  int n0, h0, w0;
  out_pixel(M0, &n0, &h0, &w0);
  for (int o = 0; o < 3; o++) {
    memset(got, 0xA5, sizeof got);
    CHECKMSG(ptxlua_buffer_upload(bo, 0, got, sizeof got) == PTXLUA_OK, e);
    ptxlua_arg args[8] = { ptxlua_arg_tensormap(&tm),
                           ptxlua_arg_buffer(bo),
                           ptxlua_arg_s32(0),
                           ptxlua_arg_s32(w0),
                           ptxlua_arg_s32(h0),
                           ptxlua_arg_s32(n0),
                           ptxlua_arg_scalar(PTXLUA_ARG_U16, (uint16_t)offs[o][0]),
                           ptxlua_arg_scalar(PTXLUA_ARG_U16, (uint16_t)offs[o][1]) };
    CHECKMSG(ptxlua_launch(k, NULL, NULL, 0, NULL, args, 8) == PTXLUA_OK, e);
    CHECKMSG(ptxlua_buffer_download(bo, 0, got, sizeof got) == PTXLUA_OK, e);
    int bad = 0, zeros = 0;
    for (int p = 0; p < PPC; p++) {
      int n, h, w;
      out_pixel(M0 + p, &n, &h, &w);
      h += offs[o][1];
      w += offs[o][0];
      for (int c = 0; c < CPP; c++) {
        int in = n < N && h >= 0 && h < H && w >= 0 && w < W;
        unsigned want = in ? value(n, h, w, c) : 0;
        zeros += !in;
        unsigned off = (unsigned)(p * CPP + c) * 2;
        unsigned slot = (off ^ ((off & 0x80) >> 3)) / 2;
        if (got[slot] != want) bad++;
      }
    }
    if (bad)
      fprintf(stderr, "im2col offsets (%d, %d): %d elements wrong\n", offs[o][0], offs[o][1], bad);
    CHECK(bad == 0);
    /* the column covers padding and pixels */
    CHECK(zeros > 0 && zeros < PPC * CPP);
  }
  /* validation: a corner outside [-128, 127] for rank 4; rank 2; unknown names */
  int far[2] = { -1, 130 };
  spec.upper_corner = far;
  CHECK(ptxlua_tensormap_encode_im2col(bs, "f16", 4, dims, NULL, &spec, &tm) == PTXLUA_ERROR);
  CHECK(strstr(ptxlua_errmsg(e), "outside -128..127 for rank 4") != NULL);
  spec.upper_corner = upper;
  CHECK(ptxlua_tensormap_encode_im2col(bs, "f16", 2, dims, NULL, &spec, &tm) == PTXLUA_MISUSE);
  CHECK(strstr(ptxlua_errmsg(e), "3 to 5 dimensions") != NULL);
  spec.oob_fill = "inf";
  CHECK(ptxlua_tensormap_encode_im2col(bs, "f16", 4, dims, NULL, &spec, &tm) == PTXLUA_MISUSE);
  CHECK(strstr(ptxlua_errmsg(e), "oob_fill 'inf'") != NULL);
  spec.oob_fill = "nan";
  spec.pixels_per_column = 0;
  CHECK(ptxlua_tensormap_encode_im2col(bs, "f16", 4, dims, NULL, &spec, &tm) == PTXLUA_ERROR);
  CHECK(strstr(ptxlua_errmsg(e), "pixels_per_column = 0 outside 1..1024") != NULL);
  /* a tile map under the im2col copy: an error at the copy's line of the script */
  uint32_t box[4] = { 16, 4, 4, 1 };
  CHECKMSG(ptxlua_tensormap_encode(bs, "f16", 4, dims, NULL, box, "none", &tm) == PTXLUA_OK, e);
  ptxlua_arg args[8] = { ptxlua_arg_tensormap(&tm),
                         ptxlua_arg_buffer(bo),
                         ptxlua_arg_s32(0),
                         ptxlua_arg_s32(0),
                         ptxlua_arg_s32(0),
                         ptxlua_arg_s32(0),
                         ptxlua_arg_scalar(PTXLUA_ARG_U16, 0),
                         ptxlua_arg_scalar(PTXLUA_ARG_U16, 0) };
  CHECK(ptxlua_launch(k, NULL, NULL, 0, NULL, args, 8) == PTXLUA_ERROR);
  CHECK(strstr(ptxlua_errmsg(e), "im2col.lua:20: error:") != NULL);
  CHECK(strstr(ptxlua_errmsg(e), "an im2col copy through a tile-mode tensor map") != NULL);
  ptxlua_close(e);
}

static void test_mock(void) {
  const char *mock = getenv("PTXLUA_MOCK_LIBCUDA");
  if (!mock || !*mock) {
    fprintf(stderr, "PTXLUA_MOCK_LIBCUDA is not set (run through ctest)\n");
    failures++;
    return;
  }
  setenv("PTXLUA_LIBCUDA", mock, 1);
  void *h = dlopen(mock, RTLD_NOW | RTLD_LOCAL);
  if (!h) {
    fprintf(stderr, "%s\n", dlerror());
    failures++;
    return;
  }
  const struct ptxmock_im2col *(*last)(void);
  *(void **)&last = dlsym(h, "ptxmock_last_im2col");
  if (!last) {
    fprintf(stderr, "the mock has no ptxmock_last_im2col\n");
    failures++;
    dlclose(h);
    return;
  }
  ptxlua_engine *e = test_engine();
  if (!e) {
    failures++;
    dlclose(h);
    return;
  }
  ptxlua_device *d = NULL;
  CHECKMSG(ptxlua_device_open(e, "cuda:0", &d) == PTXLUA_OK, e);
  ptxlua_buffer *b = NULL;
  uint64_t dims[5] = { 64, 7, 6, 5, 3 }; /* pixels padded to 288 bytes */
  uint64_t strides[4] = { 64 * 4 + 32, (64 * 4 + 32) * 7, (64 * 4 + 32) * 7 * 6,
                          (64 * 4 + 32) * 7 * 6 * 5 };
  int lower[3] = { -2, -1, 0 }, upper[3] = { 1, -3, -4 };
  uint32_t es[5] = { 1, 2, 1, 3, 1 };
  ptxlua_im2col spec = { lower, upper, 32, 1000, es, "128B", NULL, "256B", "nan" };
  ptxlua_tensormap tm;
  memset(&tm, 0, sizeof tm);
  if (d) {
    CHECKMSG(ptxlua_buffer_alloc(d, strides[3] * 3 - 4, &b) == PTXLUA_OK, e);
    CHECK(b &&
          ptxlua_tensormap_encode_im2col(b, "f32", 5, dims, strides, &spec, &tm) == PTXLUA_MISUSE);
    CHECK(strstr(ptxlua_errmsg(e), "the buffer has") != NULL);
    ptxlua_buffer_free(b);
    b = NULL;
    CHECKMSG(ptxlua_buffer_alloc(d, strides[3] * 3, &b) == PTXLUA_OK, e);
    if (b) {
      /* dims, pitches, corners (W first) and strides as given; the strings as the driver's codes */
      CHECKMSG(ptxlua_tensormap_encode_im2col(b, "f32", 5, dims, strides, &spec, &tm) == PTXLUA_OK,
               e);
      const struct ptxmock_im2col *r = last();
      CHECK(r->dtype == 7 && r->rank == 5 && r->addr == ptxlua_buffer_address(b));
      for (int i = 0; i < 5; i++) CHECK(r->dims[i] == dims[i] && r->estr[i] == es[i]);
      for (int i = 0; i < 4; i++) CHECK(r->strides[i] == strides[i]);
      for (int i = 0; i < 3; i++) CHECK(r->lower[i] == lower[i] && r->upper[i] == upper[i]);
      CHECK(r->channels == 32 && r->pixels == 1000 && r->interleave == 0 && r->swizzle == 3 &&
            r->l2 == 3 && r->oob == 1);
      int zero = 1;
      for (int i = 0; i < 128; i++) zero &= tm.bytes[i] == 0;
      CHECK(!zero); /* the driver's bytes came back */
      /* the driver's own checks: a corner outside [-16, 15] for rank 5 */
      lower[1] = -17;
      CHECK(ptxlua_tensormap_encode_im2col(b, "f32", 5, dims, strides, &spec, &tm) == PTXLUA_ERROR);
      CHECK(strstr(ptxlua_errmsg(e), "cuTensorMapEncodeIm2col: CUDA_ERROR_INVALID_VALUE") != NULL);
      lower[1] = -1;
      /* 256 bytes over the 128B swizzle span */
      spec.channels_per_pixel = 64;
      CHECK(ptxlua_tensormap_encode_im2col(b, "f32", 5, dims, strides, &spec, &tm) == PTXLUA_ERROR);
      CHECK(strstr(ptxlua_errmsg(e), "cuTensorMapEncodeIm2col: CUDA_ERROR_INVALID_VALUE") != NULL);
    }
    /* the im2col kernel prepared for the device: its PTX assembled by ptxas (sm_90a) and loaded */
    ptxlua_kernel *k = NULL;
    CHECKMSG(ptxlua_load_string(e, "im2col.lua", SCRIPT, strlen(SCRIPT)) == PTXLUA_OK, e);
    CHECKMSG(ptxlua_kernel_prepare(d, "im2col_load", &k) == PTXLUA_OK, e);
    CHECK(k != NULL);
  }
  ptxlua_close(e);
  dlclose(h);
}

int main(void) {
  test_emu();
  test_mock();
  return check_done("test_im2col");
}
