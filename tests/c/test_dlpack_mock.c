/* test_dlpack_mock.c -- DLPack tensors and wrapped memory on "cuda:0" against the mock driver
** (tests/mock_cuda): a tensor of device memory is passed by its address, no copy, on the stream
** the caller names; the driver's pointer attributes decide whose memory an address is (host memory
** or another device's is refused before the launch); a tensor map over an address. The mock runs
** no kernel: this proves our side of the driver ABI only. */
#include <dlfcn.h>
#include <dlpack/dlpack.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include "ptxlua.h"
#include "check.h"
#include "test_engine.h"
#include "../mock_cuda/ptxmock.h"

static const char *SCRIPT =
    "local ptx = require 'ptxlua'\n"
    "ptx.kernel { name = 'fill', target = 'sm_90a', params = { {'out', "
    "'f32*', shape = {'n'}}, {'n', 'u32'} },\n"
    "  grid = { 1 }, block = { 32 },\n"
    "  body = function(t, out, n)\n"
    "    local p = ptx.global_ptrs(out)\n"
    "    ptx.st.global.f32(ptx.addr(p), 1.0)\n"
    "    ptx.ret()\n"
    "  end }\n"
    /* maps declared over a pointer parameter, a tensors entry whose shape
                            ** is arithmetic over scalars, and an im2col one */
    "ptx.kernel { name = 'maps', target = 'sm_90a',\n"
    "  tensors = { Y = ptx.tensor('bf16', { 'rows * 2', 'cols' }),\n"
    "              Z = ptx.tensor('f16', { 2, 9, 9, 64 }) },\n"
    "  params = { { 'x', ptx.tensor('f32', { 'rows', 'cols' }) },\n"
    "    { 'xm', ptx.tensormap { of = 'x', box = { 32, 8 }, swizzle = "
    "'128B' } },\n"
    "    { 'ym', ptx.tensormap { of = 'Y', box = { 64, 'rows' } } },\n"
    "    { 'zm', ptx.tensormap { of = 'Z', mode = 'im2col', lower_corner = "
    "{ -1, -1 },\n"
    "      upper_corner = { 1, 1 }, channels_per_pixel = 64, "
    "pixels_per_column = 128, swizzle = '128B' } },\n"
    "    { 'rows', 'u32' }, { 'cols', 'u32' } },\n"
    "  grid = { 1 }, block = { 32 },\n"
    "  body = function(t) ptx.ret() end }\n"
    /* a map over packed e2m1 values (two a byte), in 16-byte slots */
    "ptx.kernel { name = 'packed', target = 'sm_90a',\n"
    "  tensors = { Q = ptx.tensor('e2m1', { 'rows', 256 }) },\n"
    "  params = { { 'qm', ptx.tensormap { of = 'Q', box = { 128, 4 }, dtype = "
    "'16u4_align16b', swizzle = '128B' } },\n"
    "    { 'rows', 'u32' } },\n"
    "  grid = { 1 }, block = { 32 },\n"
    "  body = function(t) ptx.ret() end }\n";

int main(void) {
  const char *mock = getenv("PTXLUA_MOCK_LIBCUDA");
  if (!mock || !*mock) {
    fprintf(stderr, "PTXLUA_MOCK_LIBCUDA is not set (run through ctest)\n");
    return 1;
  }
  setenv("PTXLUA_LIBCUDA", mock, 1);
  void *h = dlopen(mock, RTLD_NOW | RTLD_LOCAL);
  if (!h) {
    fprintf(stderr, "%s\n", dlerror());
    return 1;
  }
  int (*launch_count)(void) = (int (*)(void))dlsym(h, "ptxmock_launch_count");
  const struct ptxmock_launch *(*last)(void) =
      (const struct ptxmock_launch *(*)(void))dlsym(h, "ptxmock_last_launch");
  if (!launch_count || !last) return 1;

  ptxlua_engine *e = test_engine();
  ptxlua_device *d = NULL;
  ptxlua_kernel *k = NULL;
  ptxlua_buffer *b = NULL;
  CHECKMSG(ptxlua_load_string(e, "fill.lua", SCRIPT, strlen(SCRIPT)) == PTXLUA_OK, e);
  CHECKMSG(ptxlua_device_open(e, "cuda:0", &d) == PTXLUA_OK, e);
  CHECKMSG(d && ptxlua_kernel_prepare(d, "fill", &k) == PTXLUA_OK, e);
  CHECKMSG(d && ptxlua_buffer_alloc(d, 4096, &b) == PTXLUA_OK, e);
  if (!k || !b) {
    ptxlua_close(e);
    return 1;
  }

  /* a tensor of device memory (as PyTorch or CuPy export one), at an offset into the allocation */
  int64_t shape[1] = { 256 };
  DLManagedTensor t;
  memset(&t, 0, sizeof t);
  t.dl_tensor.data = (void *)(uintptr_t)ptxlua_buffer_address(b);
  t.dl_tensor.byte_offset = 1024;
  t.dl_tensor.device.device_type = kDLCUDA;
  t.dl_tensor.ndim = 1;
  t.dl_tensor.shape = shape;
  t.dl_tensor.dtype.code = kDLFloat;
  t.dl_tensor.dtype.bits = 32;
  t.dl_tensor.dtype.lanes = 1;
  void *stream = (void *)(uintptr_t)0x5000; /* the mock records the stream; it runs nothing */
  ptxlua_arg args[2] = { ptxlua_arg_dlpack(&t), ptxlua_arg_u32(256) };
  int n0 = launch_count();
  CHECKMSG(ptxlua_launch(k, NULL, NULL, 0, stream, args, 2) == PTXLUA_OK, e);
  CHECK(launch_count() == n0 + 1);
  uint64_t passed = 0;
  memcpy(&passed, last()->params, 8);
  CHECK(passed == ptxlua_buffer_address(b) + 1024); /* the tensor's own address: no copy */
  CHECK(last()->stream == stream);
  /* another device's tensor, and host memory that calls itself CUDA memory: refused, not
  ** launched */
  t.dl_tensor.device.device_id = 1;
  CHECK(ptxlua_launch(k, NULL, NULL, 0, stream, args, 2) == PTXLUA_MISUSE);
  CHECK_MSG(
      e, "argument 1 (out): a tensor in CUDA memory of device 1, where the kernel runs on cuda:0");
  t.dl_tensor.device.device_id = 0;
  static float host[256];
  t.dl_tensor.data = host;
  t.dl_tensor.byte_offset = 0;
  CHECK(ptxlua_launch(k, NULL, NULL, 0, stream, args, 2) == PTXLUA_MISUSE);
  CHECK_MSG(e, "argument 1 (out): the driver knows 0x");
  CHECK_MSG(e, "as no device memory (cuPointerGetAttribute: CUDA_ERROR_INVALID_VALUE");
  t.dl_tensor.device.device_type = kDLCPU;
  CHECK(ptxlua_launch(k, NULL, NULL, 0, stream, args, 2) == PTXLUA_MISUSE);
  CHECK_MSG(e, "argument 1 (out): a tensor in CPU memory, where the kernel runs on cuda:0");
  /* the shape is checked on CUDA as on the emulator */
  t.dl_tensor.device.device_type = kDLCUDA;
  t.dl_tensor.data = (void *)(uintptr_t)ptxlua_buffer_address(b);
  args[1] = ptxlua_arg_u32(255);
  CHECK(ptxlua_launch(k, NULL, NULL, 0, stream, args, 2) == PTXLUA_MISUSE);
  CHECK_MSG(e, "a tensor of shape [256], where the kernel declares shape {n} = [255]");
  CHECK(launch_count() == n0 + 1);

  /* wrapped device memory and tensor maps over an address */
  ptxlua_buffer *w = NULL;
  CHECKMSG(ptxlua_buffer_wrap(d, (void *)(uintptr_t)(ptxlua_buffer_address(b) + 256), 1024, &w) ==
               PTXLUA_OK,
           e);
  CHECK(ptxlua_buffer_wrap(d, host, sizeof host, &w) == PTXLUA_MISUSE);
  CHECK_MSG(e, "ptxlua_buffer_wrap: the driver knows 0x");
  ptxlua_tensormap tm;
  uint64_t dims[2] = { 64, 8 };
  uint32_t box[2] = { 64, 8 };
  CHECKMSG(ptxlua_tensormap_encode_address(d, ptxlua_buffer_address(b) + 1024, "f32", 2, dims, NULL,
                                           box, "none", &tm) == PTXLUA_OK,
           e);
  CHECK(ptxlua_tensormap_encode_address(d, (uint64_t)(uintptr_t)host, "f32", 2, dims, NULL, box,
                                        "none", &tm) == PTXLUA_MISUSE);
  CHECK_MSG(e, "tensor map: the driver knows 0x");
  /* maps built from the tensors they view, by the driver: the same bytes as a map encoded by hand
  ** with the dims, strides, box and swizzle the declaration gives */
  const struct ptxmock_tiled *(*tiled)(void) =
      (const struct ptxmock_tiled *(*)(void))dlsym(h, "ptxmock_last_tiled");
  const struct ptxmock_im2col *(*im2col)(void) =
      (const struct ptxmock_im2col *(*)(void))dlsym(h, "ptxmock_last_im2col");
  ptxlua_kernel *km = NULL;
  ptxlua_buffer *big = NULL;
  CHECKMSG(ptxlua_kernel_prepare(d, "maps", &km) == PTXLUA_OK, e);
  CHECKMSG(ptxlua_buffer_alloc(d, 1 << 20, &big) == PTXLUA_OK, e);
  if (km && big && tiled && im2col) {
    uint64_t base = ptxlua_buffer_address(big);
    int64_t xs[2] = { 8, 64 };
    DLManagedTensor tx = t;
    tx.dl_tensor.data = (void *)(uintptr_t)base;
    tx.dl_tensor.byte_offset = 0;
    tx.dl_tensor.ndim = 2;
    tx.dl_tensor.shape = xs;
    ptxlua_arg ma[6] = { ptxlua_arg_dlpack(&tx), ptxlua_arg_dlpack(&tx),
                         ptxlua_arg_buffer(big), ptxlua_arg_address(base + 65536),
                         ptxlua_arg_u32(8),      ptxlua_arg_u32(64) };
    n0 = launch_count();
    CHECKMSG(ptxlua_launch(km, NULL, NULL, 0, stream, ma, 6) == PTXLUA_OK, e);
    CHECK(launch_count() == n0 + 1);
    /* where the cubin places the maps (ptxas aligns them in the constant bank, not in the block) */
    int (*layout)(const char *, uint32_t *, uint32_t *, int) =
        (int (*)(const char *, uint32_t *, uint32_t *, int))dlsym(h, "ptxmock_param_layout");
    uint32_t off[6] = { 0 }, size[6];
    CHECK(layout && layout("maps", off, size, 6) == 6 && size[1] == 128);
    unsigned char got_x[128], got_y[128];
    memcpy(got_x, last()->params + off[1], 128);
    memcpy(got_y, last()->params + off[2], 128);
    /* Z's map was the last made: the im2col fields as declared, dims C first */
    CHECK(im2col()->dtype == 6 && im2col()->rank == 4 && im2col()->addr == base + 65536);
    CHECK(im2col()->dims[0] == 64 && im2col()->dims[1] == 9 && im2col()->dims[3] == 2);
    CHECK(im2col()->strides[0] == 128 && im2col()->strides[2] == 128 * 81);
    CHECK(im2col()->lower[0] == -1 && im2col()->upper[1] == 1 && im2col()->channels == 64 &&
          im2col()->pixels == 128 && im2col()->swizzle == 3);
    ptxlua_tensormap want;
    uint64_t xd[2] = { 64, 8 }, yd[2] = { 64, 16 };
    uint32_t xb[2] = { 32, 8 }, yb[2] = { 64, 8 };
    CHECKMSG(ptxlua_tensormap_encode_address(d, base, "f32", 2, xd, NULL, xb, "128B", &want) == 0,
             e);
    CHECK(memcmp(got_x, want.bytes, 128) == 0);
    CHECK(tiled()->dtype == 7 && tiled()->dims[1] == 8 && tiled()->strides[0] == 256 &&
          tiled()->box[0] == 32 && tiled()->swizzle == 3);
    /* Y: rows * 2 = 16 rows of cols = 64 bf16 at the buffer's address, box {64, rows} */
    CHECKMSG(ptxlua_tensormap_encode_address(d, base, "bf16", 2, yd, NULL, yb, "none", &want) == 0,
             e);
    CHECK(memcmp(got_y, want.bytes, 128) == 0);
    CHECK(tiled()->dtype == 9 && tiled()->dims[1] == 16 && tiled()->box[1] == 8);
    /* the shapes against the scalars of this launch: x is 8 x 64 only for rows = 8 */
    ma[4] = ptxlua_arg_u32(4);
    CHECK(ptxlua_launch(km, NULL, NULL, 0, stream, ma, 6) == PTXLUA_MISUSE);
    CHECK_MSG(
        e,
        "argument 1 (x): a tensor of shape [8, 64], where the kernel declares shape {rows, cols} "
        "= [4, 64]");
    /* Y as a DLPack tensor: its shape against {rows * 2, cols} */
    int64_t ys[2] = { 17, 64 };
    DLManagedTensor ty = tx;
    ty.dl_tensor.shape = ys;
    ty.dl_tensor.dtype.code = kDLBfloat;
    ty.dl_tensor.dtype.bits = 16;
    ma[4] = ptxlua_arg_u32(8);
    ma[2] = ptxlua_arg_dlpack(&ty);
    CHECK(ptxlua_launch(km, NULL, NULL, 0, stream, ma, 6) == PTXLUA_MISUSE);
    CHECK_MSG(
        e, "argument 3 (ym): tensor Y: a tensor of shape [17, 64], where the kernel declares shape "
           "{rows * 2, cols} = [16, 64]");
    ys[0] = 16;
    CHECKMSG(ptxlua_launch(km, NULL, NULL, 0, stream, ma, 6) == PTXLUA_OK, e);
    memcpy(got_y, last()->params + off[2], 128);
    CHECKMSG(ptxlua_tensormap_encode_address(d, base, "bf16", 2, yd, NULL, yb, "none", &want) == 0,
             e);
    CHECK(memcmp(got_y, want.bytes, 128) == 0);
    /* a buffer for Y, with rows not given as an integer: its shape cannot be known */
    ma[2] = ptxlua_arg_buffer(big);
    ma[4] = ptxlua_arg_f32(8.0f);
    CHECK(ptxlua_launch(km, NULL, NULL, 0, stream, ma, 6) == PTXLUA_MISUSE);
    CHECK(launch_count() == n0 + 2);
  }
  /* packed e2m1: from a buffer (the declaration's rows x 256 values, 128 bytes a row) and from a
  ** 4-bit DLPack tensor; the driver's 16U4_ALIGN16B type, the dims in values */
  ptxlua_kernel *kp = NULL;
  CHECKMSG(ptxlua_kernel_prepare(d, "packed", &kp) == PTXLUA_OK, e);
  if (kp && big && tiled) {
    ptxlua_arg pa[2] = { ptxlua_arg_buffer(big), ptxlua_arg_u32(8) };
    CHECKMSG(ptxlua_launch(kp, NULL, NULL, 0, stream, pa, 2) == PTXLUA_OK, e);
    CHECK(tiled()->dtype == 14 && tiled()->dims[0] == 256 && tiled()->dims[1] == 8 &&
          tiled()->strides[0] == 128 && tiled()->box[0] == 128 && tiled()->swizzle == 3);
    int64_t qs[2] = { 6, 256 };
    DLManagedTensor tq = t;
    tq.dl_tensor.data = (void *)(uintptr_t)ptxlua_buffer_address(big);
    tq.dl_tensor.byte_offset = 0;
    tq.dl_tensor.ndim = 2;
    tq.dl_tensor.shape = qs;
    tq.dl_tensor.dtype.code = kDLUInt;
    tq.dl_tensor.dtype.bits = 4;
    pa[0] = ptxlua_arg_dlpack(&tq);
    pa[1] = ptxlua_arg_u32(6);
    CHECKMSG(ptxlua_launch(kp, NULL, NULL, 0, stream, pa, 2) == PTXLUA_OK, e);
    CHECK(tiled()->dtype == 14 && tiled()->dims[1] == 6 && tiled()->strides[0] == 128);
    tq.dl_tensor.dtype.bits = 8; /* bytes are not e2m1 values: a buffer carries packed bytes */
    CHECK(ptxlua_launch(kp, NULL, NULL, 0, stream, pa, 2) == PTXLUA_MISUSE);
    CHECK_MSG(e, "argument 1 (qm): tensor Q: a tensor of u8, where the kernel declares e2m1*");
    /* on the emulator: not emulated, said at the launch */
    ptxlua_device *emu = NULL;
    ptxlua_kernel *ke = NULL;
    ptxlua_buffer *eb = NULL;
    CHECKMSG(ptxlua_device_open(e, "emu", &emu) == PTXLUA_OK, e);
    CHECKMSG(emu && ptxlua_kernel_prepare(emu, "packed", &ke) == PTXLUA_OK, e);
    CHECKMSG(emu && ptxlua_buffer_alloc(emu, 4096, &eb) == PTXLUA_OK, e);
    if (ke && eb) {
      ptxlua_arg ea[2] = { ptxlua_arg_buffer(eb), ptxlua_arg_u32(8) };
      CHECK(ptxlua_launch(ke, NULL, NULL, 0, NULL, ea, 2) != PTXLUA_OK);
      CHECK_MSG(e, "argument 1 (qm): the tensor map of Q: tensor map: packed 4-bit elements "
                   "(16u4_align16b) are not emulated");
    }
  }
  /* frees b; forgets the wrapped one (the mock would refuse a second cuMemFree) */
  ptxlua_close(e);
  return check_done("test_dlpack_mock");
}
