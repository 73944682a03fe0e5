/* test_launch.c -- the C launch API on the emulator: buffers, a prepared kernel launched with typed
** arguments and its results checked element by element; wrong arguments rejected before anything
** runs; emulator errors at the script's line; and "cuda:0" without a driver a clear error. */
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include "ptxlua.h"
#include "test_engine.h"
#include "check.h"

static const char *SCRIPT =
    "local ptx = require 'ptxlua'\n"
    "ptx.kernel { name = 'axpb', templates = { N = 1000, BLOCK = 128 },\n"
    "  params = { {'x', 'f32*'}, {'y', 'f32*'}, {'a', 'f32'}, {'n', 'u32'}, {'b', 'f64'}, {'k', "
    "'s16'} },\n"
    "  grid = function(t) return { math.ceil(t.N / t.BLOCK) } end, block = function(t) return { "
    "t.BLOCK } end,\n"
    "  body = function(t, x, y, a, n, b, k)\n"
    "    local px, py = ptx.global_ptrs(x, y)\n"
    "    local i = ptx.special('ctaid.x'):mad(ptx.special 'ntid.x', ptx.special 'tid.x')\n"
    "    local L = ptx.label 'done'\n"
    "    ptx.at(i:ge(n:load())).bra(L)\n"
    "    local off = i:mul_wide(4)\n"
    "    local v = ptx.reg.f32()\n"
    "    ptx.ld.global.f32(v, ptx.addr(px + off))\n"
    "    local bd = b:load()\n"
    "    local bf = ptx.reg.f32()\n"
    "    ptx.cvt.rn.f32.f64(bf, bd)\n"
    "    local kk = ptx.reg.s16()\n"
    "    ptx.ld.param.s16(kk, ptx.addr(k))\n"
    "    local kf = ptx.reg.f32()\n"
    "    ptx.cvt.rn.f32.s16(kf, kk)\n"
    "    ptx.st.global.f32(ptx.addr(py + off), v * a:load() + bf + kf)\n"
    "    ptx.place(L)\n"
    "    ptx.ret()\n"
    "  end }\n";

/* a TMA load from C on the emulator: a 2D box (64 x 16 bf16, 128B swizzle) of a row-padded tensor
** into shared memory, its raw bytes copied out with ld.shared; every element checked at its
** swizzled slot, zeros where the box leaves the tensor */
static const char *TMA_SCRIPT =
    "local ptx = require 'ptxlua'\n"
    "ptx.kernel { name = 'tma_box', target = 'sm_90a',\n"
    "  params = { {'tmap', 'tensormap'}, {'out', 'u16*'}, {'x0', 'u32'}, {'y0', 'u32'} },\n"
    "  grid = {1}, block = {128},\n"
    "  body = function(_, tmap, out, x0, y0)\n"
    "    local plan = ptx.smem_plan()\n"
    "    local bar = plan:alloc('bar', 'b64', 1, { align = 8 })\n"
    "    local tile = plan:alloc('tile', 'bf16', { 16, 64 }, { swizzle = '128B' })\n"
    "    local desc = ptx.reg.u64()\n"
    "    ptx.op 'cvta.param.u64' (desc, tmap)\n"
    "    local tid = ptx.special 'tid.x'\n"
    "    ptx.if_(tid:eq(0), function()\n"
    "      ptx.op 'mbarrier.init.shared::cta.b64' (bar:addr(0), 1)\n"
    "      ptx.op 'mbarrier.arrive.expect_tx.shared::cta.b64' (ptx._, bar:addr(0), 16 * 128)\n"
    "      local x, y = ptx.reg.b32(), ptx.reg.b32()\n"
    "      ptx.mov.b32(x, x0:load())\n"
    "      ptx.mov.b32(y, y0:load())\n"
    "      local ld = ptx.op "
    "'cp.async.bulk.tensor.2d.shared::cluster.global.tile.mbarrier::complete_tx::bytes'\n"
    "      ld(tile:addr(0), ptx.taddr(desc, { x, y }), bar:addr(0))\n"
    "    end)\n"
    "    ptx.bar.sync(0)\n"
    "    ptx.mbarrier_wait(bar, 0)\n"
    "    local po = ptx.global_ptrs(out)\n"
    "    for i = 0, 7 do\n"
    "      local idx = tid + i * 128\n"
    "      local v, sa = ptx.reg.u16(), ptx.reg.u32()\n"
    "      ptx.mov.u32(sa, ptx.sym 'smem')\n"
    "      ptx.ld.shared.u16(v, ptx.addr(sa + tile.offset + idx:shl(1)))\n"
    "      ptx.st.global.u16(ptx.addr(po + idx:mul_wide(2)), v)\n"
    "    end\n"
    "  end }\n";

static void tma_from_c(void) {
  ptxlua_engine *e = test_engine();
  CHECK(e != NULL);
  if (!e) return;
  ptxlua_device *d = NULL;
  ptxlua_kernel *k = NULL;
  CHECKMSG(ptxlua_load_string(e, "tma.lua", TMA_SCRIPT, strlen(TMA_SCRIPT)) == PTXLUA_OK, e);
  CHECKMSG(ptxlua_device_open(e, "emu", &d) == PTXLUA_OK, e);
  CHECKMSG(ptxlua_kernel_prepare(d, "tma_box", &k) == PTXLUA_OK, e);
  if (!k) {
    ptxlua_close(e);
    return;
  }
  enum { W = 100, H = 40, PITCH = 104 }; /* 40 rows of 100 bf16, rows 208 bytes apart */
  static unsigned short src[PITCH * H], got[16 * 64];
  for (int i = 0; i < PITCH * H; i++) src[i] = (unsigned short)(((i + 1) * 37) % 65536);
  ptxlua_buffer *bs = NULL, *bo = NULL;
  CHECKMSG(ptxlua_buffer_alloc(d, sizeof src, &bs) == PTXLUA_OK, e);
  CHECKMSG(ptxlua_buffer_alloc(d, sizeof got, &bo) == PTXLUA_OK, e);
  CHECKMSG(ptxlua_buffer_upload(bs, 0, src, sizeof src) == PTXLUA_OK, e);
  ptxlua_tensormap tm;
  uint64_t dims[2] = { W, H }, strides[1] = { PITCH * 2 };
  uint32_t box[2] = { 64, 16 };
  CHECKMSG(ptxlua_tensormap_encode(bs, "bf16", 2, dims, strides, box, "128B", &tm) == PTXLUA_OK, e);
  static const unsigned corner[3][2] = { { 0, 0 }, { 64, 30 }, { 40, 0 } };
  for (int c = 0; c < 3; c++) {
    memset(got, 0xA5, sizeof got);
    CHECKMSG(ptxlua_buffer_upload(bo, 0, got, sizeof got) == PTXLUA_OK, e);
    ptxlua_arg args[4] = { ptxlua_arg_tensormap(&tm), ptxlua_arg_buffer(bo),
                           ptxlua_arg_u32(corner[c][0]), ptxlua_arg_u32(corner[c][1]) };
    CHECKMSG(ptxlua_launch(k, NULL, NULL, 0, NULL, args, 4) == PTXLUA_OK, e);
    CHECKMSG(ptxlua_buffer_download(bo, 0, got, sizeof got) == PTXLUA_OK, e);
    int bad = 0;
    for (unsigned r = 0; r < 16; r++)
      for (unsigned col = 0; col < 64; col++) {
        unsigned gx = corner[c][0] + col, gy = corner[c][1] + r;
        unsigned want = (gx < W && gy < H) ? src[gy * PITCH + gx] : 0;
        unsigned off = r * 128 + col * 2;
        unsigned slot = (off ^ ((off & 0x380) >> 3)) / 2;
        if (got[slot] != want) bad++;
      }
    if (bad)
      fprintf(stderr, "tma box at (%u, %u): %d elements misplaced\n", corner[c][0], corner[c][1],
              bad);
    CHECK(bad == 0);
  }
  ptxlua_close(e);
}

/* a shared-memory plan over 48 KB is one dynamic block: the prepared kernel's smem (what a launch
** with PTXLUA_SMEM_KERNEL asks the driver for) is its size, at the engine's template values */
static const char *PLAN_SCRIPT =
    "local ptx = require 'ptxlua'\n"
    "ptx.kernel { name = 'planned', target = 'sm_90a', templates = { ROWS = 256 }, block = {32}, "
    "grid = {1},\n"
    "  body = function(t)\n"
    "    local tile = ptx.smem_plan():alloc('tile', 'f32', { t.ROWS, 64 }, { swizzle = '128B' })\n"
    "    local v = ptx.reg.f32()\n"
    "    ptx.ld.shared.f32(v, tile:addr(0))\n"
    "    ptx.ret()\n"
    "  end }\n";

static void planned_smem(void) {
  static const struct {
    const char *rows;
    unsigned bytes;
  } C[] = { { NULL, 65536 }, { "384", 98304 }, { "100", 0 } };
  for (int i = 0; i < 3; i++) {
    ptxlua_engine *e = test_engine();
    CHECK(e != NULL);
    if (!e) return;
    if (C[i].rows) CHECKMSG(ptxlua_define(e, "ROWS", C[i].rows) == PTXLUA_OK, e);
    ptxlua_device *d = NULL;
    ptxlua_kernel *k = NULL;
    CHECKMSG(ptxlua_load_string(e, "plan.lua", PLAN_SCRIPT, strlen(PLAN_SCRIPT)) == PTXLUA_OK, e);
    CHECKMSG(ptxlua_device_open(e, "emu", &d) == PTXLUA_OK, e);
    CHECKMSG(ptxlua_kernel_prepare(d, "planned", &k) == PTXLUA_OK, e);
    unsigned smem = 7;
    CHECK(k && ptxlua_kernel_dims(k, NULL, NULL, NULL, &smem) == PTXLUA_OK);
    if (smem != C[i].bytes)
      fprintf(stderr, "plan of %s rows: smem %u, expected %u\n", C[i].rows ? C[i].rows : "256",
              smem, C[i].bytes);
    /* 100 rows: 25600 bytes, a static .shared array */
    CHECK(smem == C[i].bytes);
    ptxlua_close(e);
  }
}

/* the emulator through the C API: a bulk copy larger than its plan's allocation is reported at the
** copy's line (the plan's layout reaches the emulator from ptxlua_kernel_prepare too); a loop that
** never ends stops at the engine's budget (ptxlua_set_emu_limit), naming where its warps are */
static const char *COPY_SCRIPT =
    "local ptx = require 'ptxlua'\n"
    "ptx.kernel { name = 'copy', target = 'sm_90a', templates = { N = 256 }, block = {1},\n"
    "  grid = {1},\n"
    "  params = { {'src', 'u32*'} },\n"
    "  body = function(t, src)\n"
    "    local plan = ptx.smem_plan()\n"
    "    local bar = plan:alloc('bar', 'b64', 1, { align = 8 })\n"
    "    local a, b = plan:alloc('a', 'u32', 32), plan:alloc('b', 'u32', 32)\n"
    "    local ps = ptx.global_ptrs(src)\n"
    "    ptx.op 'mbarrier.init.shared::cta.b64' (bar:addr(0), 1)\n"
    "    ptx.op 'mbarrier.arrive.expect_tx.shared::cta.b64' (ptx._, bar:addr(0), t.N)\n"
    "    local copy = ptx.op 'cp.async.bulk.shared::cluster.global.mbarrier::complete_tx::bytes'\n"
    "    copy(a:addr(0), ptx.addr(ps), t.N, bar:addr(0))\n"
    "    ptx.mbarrier_wait(bar, 0)\n"
    "  end }\n"
    "ptx.kernel { name = 'spin', block = {64}, grid = {1},\n"
    "  body = function(t)\n"
    "    local x = ptx.special 'tid.x' + 1\n"
    "    local L = ptx.label 'again'\n"
    "    ptx.place(L)\n"
    "    ptx.bra(L)\n"
    "  end }\n";

static void emu_checks_from_c(void) {
  ptxlua_engine *e = test_engine();
  CHECK(e != NULL);
  if (!e) return;
  ptxlua_device *d = NULL;
  ptxlua_kernel *k = NULL, *spin = NULL;
  ptxlua_buffer *src = NULL;
  CHECKMSG(ptxlua_load_string(e, "copy.lua", COPY_SCRIPT, strlen(COPY_SCRIPT)) == PTXLUA_OK, e);
  CHECKMSG(ptxlua_device_open(e, "emu", &d) == PTXLUA_OK, e);
  CHECKMSG(ptxlua_kernel_prepare(d, "copy", &k) == PTXLUA_OK, e);
  CHECKMSG(ptxlua_buffer_alloc(d, 1024, &src) == PTXLUA_OK, e);
  ptxlua_arg args[1] = { ptxlua_arg_buffer(src) };
  CHECK(ptxlua_launch(k, NULL, NULL, 0, NULL, args, 1) == PTXLUA_ERROR);
  const char *msg = ptxlua_errmsg(e);
  CHECK(strstr(msg, "copy.lua:13: error: cp.async.bulk.shared::cluster.global.mbarrier::"
                    "complete_tx::bytes: the copy (256 bytes) writes shared bytes 0x80..0x17f: 128 "
                    "past the end of allocation 'a' of plan 'smem'") != NULL);
  CHECKMSG(ptxlua_kernel_prepare(d, "spin", &spin) == PTXLUA_OK, e);
  CHECK(ptxlua_set_emu_limit(NULL, 5) == PTXLUA_MISUSE);
  CHECK(ptxlua_set_emu_limit(e, 1000) == PTXLUA_OK);
  CHECK(ptxlua_launch(spin, NULL, NULL, 0, NULL, NULL, 0) == PTXLUA_ERROR);
  msg = ptxlua_errmsg(e);
  CHECK(strstr(msg, "copy.lua:21: error: the instruction limit (1000 warp instructions) was "
                    "reached") != NULL);
  CHECK(strstr(msg, "\n  copy.lua:21 (bra): threads (0,0,0)..(31,0,0) of CTA (0,0,0) (warp 0); "
                    "1000 instructions") != NULL);
  CHECK(strstr(msg, "\n  copy.lua:18 (mov.u32): threads (32,0,0)..(63,0,0) of CTA (0,0,0) "
                    "(warp 1); not started") != NULL);               /* warp 1 did not start */
  CHECK(ptxlua_set_emu_limit(e, PTXLUA_LIMIT_DEFAULT) == PTXLUA_OK); /* (10^8: not run here) */
  /* cluster launch control's mode (tests/spec/emu_clc_spec.lua runs it through --clc) */
  CHECK(ptxlua_set_emu_clc(NULL, PTXLUA_CLC_NONE) == PTXLUA_MISUSE);
  CHECK(ptxlua_set_emu_clc(e, 3) == PTXLUA_MISUSE);
  CHECK(ptxlua_set_emu_clc(e, PTXLUA_CLC_ALTERNATE) == PTXLUA_OK);
  CHECK(ptxlua_set_emu_clc(e, PTXLUA_CLC_ALL) == PTXLUA_OK);
  ptxlua_close(e);
}

int main(void) {
  CHECK(ptxlua_device_open(NULL, "emu", NULL) == PTXLUA_MISUSE);
  ptxlua_device_close(NULL);
  ptxlua_buffer_free(NULL);
  ptxlua_kernel_free(NULL);

  ptxlua_engine *e = test_engine();
  CHECK(e != NULL);
  if (!e) return 1;
  ptxlua_device *d = NULL;
  CHECK(ptxlua_device_open(e, "gpu7", &d) == PTXLUA_MISUSE && d == NULL);
  CHECK(strstr(ptxlua_errmsg(e), "expected \"emu\" or \"cuda:N\"") != NULL);
  CHECK(ptxlua_device_open(e, "emu", &d) == PTXLUA_OK && d != NULL);
  CHECK(strcmp(ptxlua_device_describe(d), "emu") == 0);

  ptxlua_kernel *k = NULL;
  CHECK(ptxlua_kernel_prepare(d, "axpb", &k) == PTXLUA_MISUSE); /* nothing loaded yet */
  CHECKMSG(ptxlua_load_string(e, "axpb.lua", SCRIPT, strlen(SCRIPT)) == PTXLUA_OK, e);
  CHECK(ptxlua_kernel_prepare(d, "nosuch", &k) == PTXLUA_ERROR);
  CHECK(strstr(ptxlua_errmsg(e), "no kernel named 'nosuch' (loaded: axpb)") != NULL);

  enum { N = 1000 };
  CHECKMSG(ptxlua_define(e, "N", "1000") == PTXLUA_OK, e);
  CHECKMSG(ptxlua_kernel_prepare(d, "axpb", &k) == PTXLUA_OK, e);
  if (!k) {
    ptxlua_close(e);
    return 1;
  }

  /* the parameters, laid out as .param (f64 on 8 bytes, s16 after it) */
  CHECK(ptxlua_kernel_param_count(k) == 6);
  ptxlua_param p;
  static const struct {
    const char *name;
    int kind;
    const char *dtype;
    unsigned off, size;
  } want[] = {
    { "x", PTXLUA_PARAM_POINTER, "f32", 0, 8 }, { "y", PTXLUA_PARAM_POINTER, "f32", 8, 8 },
    { "a", PTXLUA_PARAM_SCALAR, "f32", 16, 4 }, { "n", PTXLUA_PARAM_SCALAR, "u32", 20, 4 },
    { "b", PTXLUA_PARAM_SCALAR, "f64", 24, 8 }, { "k", PTXLUA_PARAM_SCALAR, "s16", 32, 2 }
  };
  for (int i = 0; i < 6; i++) {
    CHECK(ptxlua_kernel_param(k, i, &p) == PTXLUA_OK);
    CHECK(strcmp(p.name, want[i].name) == 0 && p.kind == want[i].kind &&
          strcmp(p.dtype, want[i].dtype) == 0);
    CHECK(p.offset == want[i].off && p.size == want[i].size);
  }
  CHECK(ptxlua_kernel_param(k, 6, &p) == PTXLUA_MISUSE);
  unsigned g[3], b[3], c[3], smem = 7;
  CHECK(ptxlua_kernel_dims(k, g, b, c, &smem) == PTXLUA_OK);
  CHECK(g[0] == 8 && g[1] == 1 && b[0] == 128 && c[0] == 1 && smem == 0);

  /* buffers: upload inputs, poison the output */
  ptxlua_buffer *x = NULL, *y = NULL, *small = NULL;
  CHECK(ptxlua_buffer_alloc(d, 0, &x) == PTXLUA_MISUSE);
  CHECKMSG(ptxlua_buffer_alloc(d, N * 4, &x) == PTXLUA_OK, e);
  CHECKMSG(ptxlua_buffer_alloc(d, N * 4, &y) == PTXLUA_OK, e);
  CHECKMSG(ptxlua_buffer_alloc(d, 64, &small) == PTXLUA_OK, e);
  CHECK(ptxlua_buffer_size(x) == N * 4 && ptxlua_buffer_address(x) % 16 == 0);
  float hx[N], hy[N];
  for (int i = 0; i < N; i++) {
    hx[i] = (float)(i % 97) * 0.25f - 7.0f;
    hy[i] = NAN;
  }
  CHECKMSG(ptxlua_buffer_upload(x, 0, hx, sizeof hx) == PTXLUA_OK, e);
  CHECKMSG(ptxlua_buffer_upload(y, 0, hy, sizeof hy) == PTXLUA_OK, e);
  CHECK(ptxlua_buffer_upload(x, 8, hx, sizeof hx) == PTXLUA_MISUSE); /* past the end */
  CHECK(strstr(ptxlua_errmsg(e), "upload of 4000 bytes at offset 8: the buffer has 4000") != NULL);

  ptxlua_arg args[6] = {
    ptxlua_arg_buffer(x), ptxlua_arg_buffer(y),
    ptxlua_arg_f32(1.5f), ptxlua_arg_u32(N),
    ptxlua_arg_f64(0.5),  ptxlua_arg_scalar(PTXLUA_ARG_S16, (uint64_t)(int64_t)-3)
  };
  CHECKMSG(ptxlua_launch(k, NULL, NULL, 0, NULL, args, 6) == PTXLUA_OK, e);
  CHECKMSG(ptxlua_buffer_download(y, 0, hy, sizeof hy) == PTXLUA_OK, e);
  int bad = 0;
  for (int i = 0; i < N; i++)
    if (hy[i] != hx[i] * 1.5f + 0.5f - 3.0f) bad++;
  CHECK(bad == 0);
  CHECK(ptxlua_device_sync(d) == PTXLUA_OK);

  /* wrong arguments: rejected with the argument named, before anything runs */
  for (int i = 0; i < N; i++) hy[i] = NAN;
  ptxlua_buffer_upload(y, 0, hy, sizeof hy);
  ptxlua_arg wrong[6];
  memcpy(wrong, args, sizeof wrong);
  CHECK(ptxlua_launch(k, NULL, NULL, 0, NULL, args, 5) == PTXLUA_MISUSE);
  CHECK(strcmp(ptxlua_errmsg(e),
               "axpb.lua:2: error: launch of axpb: 5 arguments for 6 parameters") == 0);
  CHECK(strcmp(ptxlua_errfile(e), "axpb.lua") == 0 && ptxlua_errline(e) == 2);
  /* launch geometry past the device's limits: at the kernel's definition, before anything runs */
  {
    static const struct {
      unsigned g[3], b[3];
      const char *msg;
    } G[] = {
      { { 8, 1, 1 },
        { 2048, 1, 1 },
        "axpb.lua:2: error: launch of axpb: a block of 2048 threads (2048, 1, 1) exceeds the "
        "1024" },
      { { 8, 1, 1 }, { 8, 1, 128 }, "axpb.lua:2: error: launch of axpb: block.z 128 exceeds 64" },
      { { 8, 70000, 1 },
        { 128, 1, 1 },
        "axpb.lua:2: error: launch of axpb: grid.y 70000 exceeds the device's limit of 65535" },
      { { 2147483648u, 1, 1 },
        { 128, 1, 1 },
        "axpb.lua:2: error: launch of axpb: grid.x 2147483648 exceeds" },
    };
    for (size_t i = 0; i < sizeof G / sizeof G[0]; i++) {
      CHECK(ptxlua_launch(k, G[i].g, G[i].b, 0, NULL, args, 6) == PTXLUA_MISUSE);
      CHECKMSG(strncmp(ptxlua_errmsg(e), G[i].msg, strlen(G[i].msg)) == 0, e);
      CHECK(ptxlua_errline(e) == 2);
    }
  }
  wrong[3] = ptxlua_arg_f32(1000.0f);
  CHECK(ptxlua_launch(k, NULL, NULL, 0, NULL, wrong, 6) == PTXLUA_MISUSE);
  CHECK(strstr(ptxlua_errmsg(e), "argument 4 (n): a .u32 parameter (4 bytes), got f32") != NULL);
  wrong[3] = ptxlua_arg_u64(N);
  CHECK(ptxlua_launch(k, NULL, NULL, 0, NULL, wrong, 6) == PTXLUA_MISUSE);
  CHECK(strstr(ptxlua_errmsg(e), "argument 4 (n): a .u32 parameter (4 bytes), got u64") != NULL);
  wrong[3] = args[3];
  wrong[2] = ptxlua_arg_f64(1.5);
  CHECK(ptxlua_launch(k, NULL, NULL, 0, NULL, wrong, 6) == PTXLUA_MISUSE);
  CHECK(strstr(ptxlua_errmsg(e), "argument 3 (a): a .f32 parameter (4 bytes), got f64") != NULL);
  wrong[2] = args[2];
  wrong[0] = ptxlua_arg_u64(5);
  CHECK(ptxlua_launch(k, NULL, NULL, 0, NULL, wrong, 6) == PTXLUA_MISUSE);
  CHECK(strstr(ptxlua_errmsg(e), "argument 1 (x): a pointer parameter takes a buffer, an address "
                                 "or a DLPack tensor, got u64") != NULL);
  wrong[0] = args[0];
  float four = 4.0f;
  wrong[4] = ptxlua_arg_bytes(&four, 4);
  CHECK(ptxlua_launch(k, NULL, NULL, 0, NULL, wrong, 6) == PTXLUA_MISUSE);
  CHECK(strstr(ptxlua_errmsg(e), "argument 5 (b): 4 bytes for a 8-byte .f64") != NULL);
  wrong[4] = args[4];
  ptxlua_device *d2 = NULL;
  ptxlua_buffer *other = NULL;
  CHECK(ptxlua_device_open(e, "emu", &d2) == PTXLUA_OK);
  CHECK(ptxlua_buffer_alloc(d2, N * 4, &other) == PTXLUA_OK);
  wrong[1] = ptxlua_arg_buffer(other);
  CHECK(ptxlua_launch(k, NULL, NULL, 0, NULL, wrong, 6) == PTXLUA_MISUSE);
  CHECK(strstr(ptxlua_errmsg(e), "argument 2 (y): the buffer lives on another device") != NULL);
  ptxlua_device_close(d2); /* frees `other` too */
  CHECKMSG(ptxlua_buffer_download(y, 0, hy, sizeof hy) == PTXLUA_OK, e);
  bad = 0;
  for (int i = 0; i < N; i++)
    if (!isnan(hy[i])) bad++;
  CHECK(bad == 0); /* nothing ran */

  /* an error while running: the out-of-bounds store at the script's line */
  wrong[1] = ptxlua_arg_buffer(small);
  CHECK(ptxlua_launch(k, NULL, NULL, 0, NULL, wrong, 6) == PTXLUA_ERROR);
  CHECK(strncmp(ptxlua_errmsg(e), "axpb.lua:20: error:", 19) == 0);
  CHECK(ptxlua_errline(e) == 20);
  /* and the kernel still launches afterwards, with explicit dims */
  unsigned grid[3] = { 4, 1, 1 }, block[3] = { 256, 1, 1 };
  CHECKMSG(ptxlua_launch(k, grid, block, 0, NULL, args, 6) == PTXLUA_OK, e);
  CHECKMSG(ptxlua_buffer_download(y, 0, hy, sizeof hy) == PTXLUA_OK, e);
  CHECK(hy[N - 1] == hx[N - 1] * 1.5f + 0.5f - 3.0f);

  /* tensor maps on the emulator: validated as the driver validates them (a box over 256) */
  ptxlua_tensormap tm;
  uint64_t dims[1] = { N };
  uint32_t box[1] = { 300 };
  CHECK(ptxlua_tensormap_encode(x, "f32", 1, dims, NULL, box, "none", &tm) == PTXLUA_ERROR);
  CHECK(strstr(ptxlua_errmsg(e), "256") != NULL);
  /* and one that reaches past its buffer */
  uint64_t big[1] = { N + 1 };
  box[0] = 64;
  CHECK(ptxlua_tensormap_encode(x, "f32", 1, big, NULL, box, "none", &tm) == PTXLUA_MISUSE);
  CHECK(strstr(ptxlua_errmsg(e), "the buffer has") != NULL);

  /* a template change needs a new prepare; the old kernel keeps its own */
  ptxlua_kernel *k2 = NULL;
  CHECK(ptxlua_define(e, "BLOCK", "32") == PTXLUA_OK);
  CHECKMSG(ptxlua_kernel_prepare(d, "axpb", &k2) == PTXLUA_OK, e);
  CHECK(ptxlua_kernel_dims(k2, g, b, NULL, NULL) == PTXLUA_OK && g[0] == 32 && b[0] == 32);
  CHECK(ptxlua_kernel_dims(k, g, b, NULL, NULL) == PTXLUA_OK && g[0] == 8 && b[0] == 128);

  /* without a driver: a clear error naming it (the test sets PTXLUA_LIBCUDA to a missing file) */
  setenv("PTXLUA_LIBCUDA", "/nonexistent/libcuda.so.1", 1);
  ptxlua_device *cu = NULL;
  CHECK(ptxlua_device_open(e, "cuda:0", &cu) == PTXLUA_ERROR && cu == NULL);
  CHECK(strstr(ptxlua_errmsg(e), "error: CUDA device 0 is not available: no CUDA driver: cannot "
                                 "load /nonexistent/libcuda.so.1") != NULL);
  CHECK(ptxlua_device_open(e, "cuda:x", &cu) == PTXLUA_MISUSE);

  ptxlua_close(e); /* closes d, its buffers and kernels */
  tma_from_c();
  planned_smem();
  emu_checks_from_c();
  return check_done("test_launch");
}
