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
#include "test_engine.h"
#include "../mock_cuda/ptxmock.h"

static int failures;
#define CHECK(c)                                                            \
  do {                                                                      \
    if (!(c)) {                                                             \
      fprintf(stderr, "%s:%d: check failed: %s\n", __FILE__, __LINE__, #c); \
      failures++;                                                           \
    }                                                                       \
  } while (0)
#define CHECKMSG(c, e)                                                                             \
  do {                                                                                             \
    if (!(c)) {                                                                                    \
      fprintf(stderr, "%s:%d: check failed: %s (%s)\n", __FILE__, __LINE__, #c, ptxlua_errmsg(e)); \
      failures++;                                                                                  \
    }                                                                                              \
  } while (0)
#define HAS(e, s)                                                                 \
  do {                                                                            \
    if (!strstr(ptxlua_errmsg(e), s)) {                                           \
      fprintf(stderr, "%s:%d: message lacks \"%s\": %s\n", __FILE__, __LINE__, s, \
              ptxlua_errmsg(e));                                                  \
      failures++;                                                                 \
    }                                                                             \
  } while (0)

static const char *SCRIPT = "local ptx = require 'ptxlua'\n"
                            "ptx.kernel { name = 'fill', target = 'sm_90a', params = { {'out', "
                            "'f32*', shape = {'n'}}, {'n', 'u32'} },\n"
                            "  grid = { 1 }, block = { 32 },\n"
                            "  body = function(t, out, n)\n"
                            "    local p = ptx.global_ptrs(out)\n"
                            "    ptx.st.global.f32(ptx.addr(p), 1.0)\n"
                            "    ptx.ret()\n"
                            "  end }\n";

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
  HAS(e, "argument 1 (out): a tensor in CUDA memory of device 1, where the kernel runs on cuda:0");
  t.dl_tensor.device.device_id = 0;
  static float host[256];
  t.dl_tensor.data = host;
  t.dl_tensor.byte_offset = 0;
  CHECK(ptxlua_launch(k, NULL, NULL, 0, stream, args, 2) == PTXLUA_MISUSE);
  HAS(e, "argument 1 (out): the driver knows 0x");
  HAS(e, "as no device memory (cuPointerGetAttribute: CUDA_ERROR_INVALID_VALUE");
  t.dl_tensor.device.device_type = kDLCPU;
  CHECK(ptxlua_launch(k, NULL, NULL, 0, stream, args, 2) == PTXLUA_MISUSE);
  HAS(e, "argument 1 (out): a tensor in CPU memory, where the kernel runs on cuda:0");
  /* the shape is checked on CUDA as on the emulator */
  t.dl_tensor.device.device_type = kDLCUDA;
  t.dl_tensor.data = (void *)(uintptr_t)ptxlua_buffer_address(b);
  args[1] = ptxlua_arg_u32(255);
  CHECK(ptxlua_launch(k, NULL, NULL, 0, stream, args, 2) == PTXLUA_MISUSE);
  HAS(e, "a tensor of shape [256], where the kernel declares shape {n} = [255]");
  CHECK(launch_count() == n0 + 1);

  /* wrapped device memory and tensor maps over an address */
  ptxlua_buffer *w = NULL;
  CHECKMSG(ptxlua_buffer_wrap(d, (void *)(uintptr_t)(ptxlua_buffer_address(b) + 256), 1024, &w) ==
               PTXLUA_OK,
           e);
  CHECK(ptxlua_buffer_wrap(d, host, sizeof host, &w) == PTXLUA_MISUSE);
  HAS(e, "ptxlua_buffer_wrap: the driver knows 0x");
  ptxlua_tensormap tm;
  uint64_t dims[2] = { 64, 8 };
  uint32_t box[2] = { 64, 8 };
  CHECKMSG(ptxlua_tensormap_encode_address(d, ptxlua_buffer_address(b) + 1024, "f32", 2, dims, NULL,
                                           box, "none", &tm) == PTXLUA_OK,
           e);
  CHECK(ptxlua_tensormap_encode_address(d, (uint64_t)(uintptr_t)host, "f32", 2, dims, NULL, box,
                                        "none", &tm) == PTXLUA_MISUSE);
  HAS(e, "tensor map: the driver knows 0x");
  /* frees b; forgets the wrapped one (the mock would refuse a second cuMemFree) */
  ptxlua_close(e);
  if (failures) fprintf(stderr, "%d failures\n", failures);
  return failures != 0;
}
