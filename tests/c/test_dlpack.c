/* test_dlpack.c -- tensors the C API does not own: DLPack tensors passed to pointer parameters on
** "emu" (CPU memory read and written in place, no copy), each checked against the kernel's
** declaration before anything runs (device, element type, rank, every extent -- numbers,
** templates, expressions of templates, scalar parameters of the same launch --, packed strides,
** alignment), the message naming the argument and both shapes; buffers over memory the caller
** owns; tensor maps over an address. The CUDA side (device memory, the driver's pointer
** attributes, the launch's stream) is in test_dlpack_mock.c. */
#include <dlpack/dlpack.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include "ptxlua.h"
#include "check.h"
#include "test_engine.h"

static const char *SCRIPT =
    "local ptx = require 'ptxlua'\n"
    "ptx.kernel { name = 'shapes', templates = { M = 4, K = 8 },\n"
    "  params = { {'a', 'f32*', shape = {'M', 'K'}}, {'b', 'u8*', shape = {'n', 3}}, {'c', 'b16*', "
    "shape = {'K*2'}},\n"
    "             {'d', 's32*'}, {'n', 'u32'} },\n"
    "  grid = { 1 }, block = { 32 },\n"
    "  body = function(t, a, b, c, d, n) ptx.ret() end }\n"
    /* extents as arithmetic over scalar parameters (and templates): checked at each launch */
    "ptx.kernel { name = 'exprs', templates = { G = 3 },\n"
    "  params = { {'v', ptx.tensor('f32', { 'n * G', 'm + 1', '(n + m) % 4' })}, {'n', 'u32'}, "
    "{'m', 's32'} },\n"
    "  grid = { 1 }, block = { 32 },\n"
    "  body = function(t) ptx.ret() end }\n"
    /* out[i] = i for i < n: a kernel that writes what the test reads back in place */
    "ptx.kernel { name = 'iota', params = { {'out', 'u32*', shape = {'n'}}, {'n', 'u32'} },\n"
    "  grid = { 2 }, block = { 64 },\n"
    "  body = function(t, out, n)\n"
    "    local p = ptx.global_ptrs(out)\n"
    "    local i = ptx.special('ctaid.x'):mad(ptx.special 'ntid.x', ptx.special 'tid.x')\n"
    "    local L = ptx.label 'done'\n"
    "    ptx.at(i:ge(n:load())).bra(L)\n"
    "    ptx.st.global.u32(ptx.addr(p + i:mul_wide(4)), i)\n"
    "    ptx.place(L)\n"
    "    ptx.ret()\n"
    "  end }\n";

static DLManagedTensor tensor(void *data, int ndim, int64_t *shape, int64_t *strides, uint8_t code,
                              uint8_t bits) {
  DLManagedTensor m;
  memset(&m, 0, sizeof m);
  m.dl_tensor.data = data;
  m.dl_tensor.device.device_type = kDLCPU;
  m.dl_tensor.ndim = ndim;
  m.dl_tensor.dtype.code = code;
  m.dl_tensor.dtype.bits = bits;
  m.dl_tensor.dtype.lanes = 1;
  m.dl_tensor.shape = shape;
  m.dl_tensor.strides = strides;
  return m;
}

int main(void) {
  ptxlua_engine *e = test_engine();
  ptxlua_device *d = NULL;
  ptxlua_kernel *k = NULL, *io = NULL;
  if (!e) return 1;
  CHECKMSG(ptxlua_load_string(e, "shapes.lua", SCRIPT, strlen(SCRIPT)) == PTXLUA_OK, e);
  CHECKMSG(ptxlua_device_open(e, "emu", &d) == PTXLUA_OK, e);
  CHECKMSG(ptxlua_kernel_prepare(d, "shapes", &k) == PTXLUA_OK, e);
  CHECKMSG(ptxlua_kernel_prepare(d, "iota", &io) == PTXLUA_OK, e);
  if (!k || !io) {
    ptxlua_close(e);
    return 1;
  }

  /* what the declaration says, as ptxlua_kernel_param_shape gives it */
  int64_t dims[8];
  int names[8];
  CHECK(ptxlua_kernel_param_shape(k, 0, dims, names, 8) == 2 && dims[0] == 4 && dims[1] == 8 &&
        names[0] == -1);
  CHECK(ptxlua_kernel_param_shape(k, 1, dims, names, 8) == 2 && dims[0] == -1 && names[0] == 4 &&
        dims[1] == 3);
  CHECK(ptxlua_kernel_param_shape(k, 2, dims, names, 8) == 1 && dims[0] == 16);
  CHECK(ptxlua_kernel_param_shape(k, 3, dims, names, 8) == -1);            /* no shape declared */
  CHECK(ptxlua_kernel_param_shape(k, 4, dims, names, 8) == PTXLUA_MISUSE); /* a scalar */

  /* extents over scalar parameters: n * G, m + 1, (n + m) % 4 for this launch's n and m */
  {
    ptxlua_kernel *ex = NULL;
    CHECKMSG(ptxlua_kernel_prepare(d, "exprs", &ex) == PTXLUA_OK, e);
    static float fv[6 * 3 * 3];
    int64_t sv[3] = { 6, 3, 3 };
    DLManagedTensor tv = tensor(fv, 3, sv, NULL, kDLFloat, 32);
    ptxlua_arg xa[3] = { ptxlua_arg_dlpack(&tv), ptxlua_arg_u32(2), ptxlua_arg_s32(2) };
    CHECK(ptxlua_kernel_param_shape(ex, 0, dims, names, 8) == 3 && dims[0] == -1 &&
          names[0] == -1); /* arithmetic: neither a number nor one parameter */
    CHECK(ex && ptxlua_launch(ex, NULL, NULL, 0, NULL, xa, 3) == PTXLUA_MISUSE);
    CHECK_MSG(e, "argument 1 (v): a tensor of shape [6, 3, 3], where the kernel declares shape "
                 "{n * G, m + 1, (n + m) % 4} = [6, 3, 0]");
    xa[2] = ptxlua_arg_s32(-3); /* Lua's %: (2 - 3) % 4 = 3 */
    CHECK(ex && ptxlua_launch(ex, NULL, NULL, 0, NULL, xa, 3) == PTXLUA_MISUSE);
    CHECK_MSG(e, "declares shape {n * G, m + 1, (n + m) % 4} = [6, -2, 3]");
    sv[1] = 1;
    xa[2] = ptxlua_arg_s32(0);
    xa[1] = ptxlua_arg_u32(3);
    sv[0] = 9;
    sv[2] = 3;
    CHECKMSG(ex && ptxlua_launch(ex, NULL, NULL, 0, NULL, xa, 3) == PTXLUA_OK, e);
    xa[1] = ptxlua_arg_u32(2);
    CHECK(ex && ptxlua_launch(ex, NULL, NULL, 0, NULL, xa, 3) == PTXLUA_MISUSE);
    CHECK_MSG(
        e, "a tensor of shape [9, 1, 3], where the kernel declares shape {n * G, m + 1, (n + m) % "
           "4} = [6, 1, 2]");
    ptxlua_kernel_free(ex);
  }

  /* tensors that fit: every extent as declared */
  static float fa[4 * 8];
  static uint8_t ub[5 * 3];
  static uint16_t hc[16];
  static int32_t sd[7];
  int64_t sa[2] = { 4, 8 }, sb[2] = { 5, 3 }, sc[1] = { 16 }, s7[1] = { 7 };
  DLManagedTensor ta = tensor(fa, 2, sa, NULL, kDLFloat, 32),
                  tb = tensor(ub, 2, sb, NULL, kDLUInt, 8);
  DLManagedTensor tc = tensor(hc, 1, sc, NULL, kDLBfloat, 16),
                  td = tensor(sd, 1, s7, NULL, kDLInt, 32);
  ptxlua_arg args[5] = { ptxlua_arg_dlpack(&ta), ptxlua_arg_dlpack(&tb), ptxlua_arg_dlpack(&tc),
                         ptxlua_arg_dlpack(&td), ptxlua_arg_u32(5) };
  CHECKMSG(ptxlua_launch(k, NULL, NULL, 0, NULL, args, 5) == PTXLUA_OK, e);
  /* explicit packed strides are packed too; an extent of 1 takes any stride */
  int64_t st_a[2] = { 8, 1 };
  ta.dl_tensor.strides = st_a;
  CHECKMSG(ptxlua_launch(k, NULL, NULL, 0, NULL, args, 5) == PTXLUA_OK, e);

  /* shape: a fixed extent (a template), each message naming the argument and both shapes */
  int64_t bad_a[2] = { 4, 9 };
  ta.dl_tensor.shape = bad_a;
  ta.dl_tensor.strides = NULL;
  CHECK(ptxlua_launch(k, NULL, NULL, 0, NULL, args, 5) == PTXLUA_MISUSE);
  CHECK_MSG(
      e, "shapes.lua:2: error: launch of shapes: argument 1 (a): a tensor of shape [4, 9], where "
         "the kernel declares shape {M, K} = [4, 8]");
  ta.dl_tensor.shape = sa;
  /* the rank */
  ta.dl_tensor.ndim = 1;
  CHECK(ptxlua_launch(k, NULL, NULL, 0, NULL, args, 5) == PTXLUA_MISUSE);
  CHECK_MSG(
      e, "argument 1 (a): a tensor of shape [4], where the kernel declares shape {M, K} = [4, 8]");
  ta.dl_tensor.ndim = 2;
  /* a scalar parameter of the same launch, and a number */
  args[4] = ptxlua_arg_u32(6);
  CHECK(ptxlua_launch(k, NULL, NULL, 0, NULL, args, 5) == PTXLUA_MISUSE);
  CHECK_MSG(
      e,
      "argument 2 (b): a tensor of shape [5, 3], where the kernel declares shape {n, 3} = [6, 3]");
  args[4] = ptxlua_arg_u32(5);
  sb[1] = 4;
  CHECK(ptxlua_launch(k, NULL, NULL, 0, NULL, args, 5) == PTXLUA_MISUSE);
  CHECK_MSG(
      e,
      "argument 2 (b): a tensor of shape [5, 4], where the kernel declares shape {n, 3} = [5, 3]");
  sb[1] = 3;
  /* an expression of the templates, with the templates set otherwise (-D K=...) prepared again */
  sc[0] = 15;
  CHECK(ptxlua_launch(k, NULL, NULL, 0, NULL, args, 5) == PTXLUA_MISUSE);
  CHECK_MSG(e,
            "argument 3 (c): a tensor of shape [15], where the kernel declares shape {K*2} = [16]");
  sc[0] = 16;
  /* the element type: kind and width; a .bN pointer takes any N-bit type */
  ta.dl_tensor.dtype.bits = 64;
  CHECK(ptxlua_launch(k, NULL, NULL, 0, NULL, args, 5) == PTXLUA_MISUSE);
  CHECK_MSG(e, "argument 1 (a): a tensor of f64, where the kernel declares f32* (a tensor of f32)");
  ta.dl_tensor.dtype.bits = 32;
  ta.dl_tensor.dtype.code = kDLInt;
  CHECK(ptxlua_launch(k, NULL, NULL, 0, NULL, args, 5) == PTXLUA_MISUSE);
  CHECK_MSG(e, "argument 1 (a): a tensor of s32, where the kernel declares f32*");
  ta.dl_tensor.dtype.code = kDLFloat;
  tc.dl_tensor.dtype.code = kDLInt; /* s16 for b16*: fine */
  CHECKMSG(ptxlua_launch(k, NULL, NULL, 0, NULL, args, 5) == PTXLUA_OK, e);
  tc.dl_tensor.dtype.bits = 32;
  sc[0] = 16;
  CHECK(ptxlua_launch(k, NULL, NULL, 0, NULL, args, 5) == PTXLUA_MISUSE);
  CHECK_MSG(e, "argument 3 (c): a tensor of s32, where the kernel declares b16*");
  tc.dl_tensor.dtype.bits = 16;
  /* strides: a transposed view is not what a pointer reads */
  int64_t tr[2] = { 1, 4 };
  ta.dl_tensor.strides = tr;
  CHECK(ptxlua_launch(k, NULL, NULL, 0, NULL, args, 5) == PTXLUA_MISUSE);
  CHECK_MSG(
      e, "argument 1 (a): a tensor with strides [1, 4] (elements), where a pointer parameter reads "
         "it packed in row-major order (strides [8, 1])");
  ta.dl_tensor.strides = NULL;
  /* the device: CUDA memory on the emulator */
  td.dl_tensor.device.device_type = kDLCUDA;
  CHECK(ptxlua_launch(k, NULL, NULL, 0, NULL, args, 5) == PTXLUA_MISUSE);
  CHECK_MSG(
      e, "argument 4 (d): a tensor in CUDA memory of device 0, where \"emu\" runs on CPU memory");
  td.dl_tensor.device.device_type = kDLCPU;
  /* alignment */
  td.dl_tensor.byte_offset = 2;
  CHECK(ptxlua_launch(k, NULL, NULL, 0, NULL, args, 5) == PTXLUA_MISUSE);
  CHECK_MSG(e, "argument 4 (d): a tensor at 0x");
  CHECK_MSG(e, "not a multiple of its 4-byte elements");
  td.dl_tensor.byte_offset = 0;
  /* a tensor for a scalar parameter, and NULL */
  args[4] = ptxlua_arg_dlpack(&td);
  CHECK(ptxlua_launch(k, NULL, NULL, 0, NULL, args, 5) == PTXLUA_MISUSE);
  CHECK_MSG(e, "argument 5 (n): a DLPack tensor goes to a pointer parameter (or a tensormap that "
               "declares the tensor it views); this one is not a pointer");
  args[4] = ptxlua_arg_u32(5);
  args[3] = ptxlua_arg_dlpack(NULL);
  CHECK(ptxlua_launch(k, NULL, NULL, 0, NULL, args, 5) == PTXLUA_MISUSE);
  CHECK_MSG(e, "argument 4 (d): a NULL DLPack tensor");
  args[3] = ptxlua_arg_dlpack(&td);
  CHECKMSG(ptxlua_launch(k, NULL, NULL, 0, NULL, args, 5) == PTXLUA_OK, e);

  /* zero copy: the kernel writes the caller's memory in place; a refused launch writes nothing */
  static uint32_t out[100];
  memset(out, 0xEE, sizeof out);
  int64_t s100[1] = { 100 };
  DLManagedTensor to = tensor(out, 1, s100, NULL, kDLUInt, 32);
  ptxlua_arg ia[2] = { ptxlua_arg_dlpack(&to), ptxlua_arg_u32(99) };
  CHECK(ptxlua_launch(io, NULL, NULL, 0, NULL, ia, 2) == PTXLUA_MISUSE);
  CHECK_MSG(
      e, "argument 1 (out): a tensor of shape [100], where the kernel declares shape {n} = [99]");
  CHECK(out[0] == 0xEEEEEEEEu);
  ia[1] = ptxlua_arg_u32(100);
  CHECKMSG(ptxlua_launch(io, NULL, NULL, 0, NULL, ia, 2) == PTXLUA_OK, e);
  int bad = 0;
  for (uint32_t i = 0; i < 100; i++) bad += out[i] != i;
  CHECK(bad == 0);
  /* a view into the middle (byte_offset): the kernel sees its first element at the pointer */
  memset(out, 0, sizeof out);
  int64_t s50[1] = { 50 };
  to.dl_tensor.shape = s50;
  to.dl_tensor.byte_offset = 40 * 4;
  ia[1] = ptxlua_arg_u32(50);
  CHECKMSG(ptxlua_launch(io, NULL, NULL, 0, NULL, ia, 2) == PTXLUA_OK, e);
  CHECK(out[39] == 0 && out[40] == 0 && out[41] == 1 && out[89] == 49 && out[90] == 0);
  /* the emulator's bounds apply to the tensor: n past its end is an out-of-bounds write, at the
  ** line */
  ia[1] = ptxlua_arg_u32(60);
  int64_t s60[1] = { 60 };
  to.dl_tensor.shape = s60;
  to.dl_tensor.byte_offset = 0;
  int64_t s40[1] = { 40 };
  DLManagedTensor small = tensor(out, 1, s40, NULL, kDLUInt, 32);
  ptxlua_arg ib[2] = { ptxlua_arg_dlpack(&small), ptxlua_arg_u32(60) };
  /* a mismatch is caught by the declaration first ... */
  CHECK(ptxlua_launch(io, NULL, NULL, 0, NULL, ib, 2) == PTXLUA_MISUSE);
  CHECK_MSG(e, "a tensor of shape [40], where the kernel declares shape {n} = [60]");

  /* buffers over memory the caller owns: launches, copies, tensor maps over their addresses */
  static uint32_t host[256] __attribute__((aligned(64)));
  ptxlua_buffer *w = NULL;
  CHECKMSG(ptxlua_buffer_wrap(d, host, sizeof host, &w) == PTXLUA_OK, e);
  ptxlua_arg wa[2] = { ptxlua_arg_buffer(w), ptxlua_arg_u32(100) };
  CHECKMSG(ptxlua_launch(io, NULL, NULL, 0, NULL, wa, 2) == PTXLUA_OK, e);
  CHECK(host[0] == 0 && host[7] == 7 && host[99] == 99 && host[100] == 0);
  uint32_t back[4];
  CHECKMSG(ptxlua_buffer_download(w, 4 * 4, back, sizeof back) == PTXLUA_OK, e);
  CHECK(back[0] == 4 && back[3] == 7);
  ptxlua_tensormap tm;
  uint64_t tdims[2] = { 16, 16 };
  uint32_t box[2] = { 16, 4 };
  CHECKMSG(ptxlua_tensormap_encode_address(d, ptxlua_buffer_address(w), "u32", 2, tdims, NULL, box,
                                           "none", &tm) == PTXLUA_OK,
           e);
  CHECKMSG(ptxlua_tensormap_encode_address(d, ptxlua_buffer_address(w) + 64, "u32", 2, tdims, NULL,
                                           box, "none", &tm) == PTXLUA_ERROR,
           e);
  CHECK_MSG(e, "runs past the end of buffer");
  CHECK(ptxlua_tensormap_encode_address(d, 16, "u32", 2, tdims, NULL, box, "none", &tm) ==
        PTXLUA_ERROR);
  CHECK_MSG(e, "is not in a device array of this emulator");
  ptxlua_buffer_free(w); /* forgets it; host is still ours */
  host[0] = 1;
  CHECK(ptxlua_buffer_wrap(d, NULL, 16, &w) == PTXLUA_MISUSE && !w);
  CHECK(ptxlua_buffer_wrap(d, host, 0, &w) == PTXLUA_MISUSE && !w);
  /* a DLPack tensor as a buffer: its span, strides honoured */
  int64_t s2[2] = { 3, 4 }, st2[2] = { 8, 1 };
  DLManagedTensor tv = tensor(host, 2, s2, st2, kDLUInt, 32);
  CHECKMSG(ptxlua_buffer_wrap_dlpack(d, &tv, &w) == PTXLUA_OK, e);
  CHECK(w && ptxlua_buffer_size(w) == (2 * 8 + 4) * 4);
  ptxlua_buffer_free(w);
  tv.dl_tensor.device.device_type = kDLCUDA;
  CHECK(ptxlua_buffer_wrap_dlpack(d, &tv, &w) == PTXLUA_MISUSE);
  CHECK_MSG(e, "ptxlua_buffer_wrap_dlpack: a tensor in CUDA memory of device 0");
  CHECK(ptxlua_buffer_wrap_dlpack(d, NULL, &w) == PTXLUA_MISUSE);

  ptxlua_close(e);
  return check_done("test_dlpack");
}
