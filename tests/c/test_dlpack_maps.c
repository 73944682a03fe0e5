/* test_dlpack_maps.c -- tensormap parameters given the tensors they view, on "emu": the TMA GEMM
** of kernels/gemm.lua launched through the C API with DLPack tensors (bf16, this program's memory)
** and buffers at its three map parameters, the launch building each map from the declaration
** (dims and strides from the tensor, box and swizzle declared); a strided view read through its
** map; mismatches named before anything runs; a prebuilt map still taken. The CUDA side (the maps
** the driver is asked for) is in test_dlpack_mock.c. */
#include <dlpack/dlpack.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include "ptxlua.h"
#include "check.h"
#include "test_engine.h"

enum { M = 72, N = 136, K = 64, LD = 80 }; /* LD: the row stride of a view of A */

/* bf16 of small whole numbers (exact: the top half of the float) */
static uint16_t bf16(float f) {
  uint32_t u;
  memcpy(&u, &f, 4);
  return (uint16_t)(u >> 16);
}
static float from_bf16(uint16_t h) {
  uint32_t u = (uint32_t)h << 16;
  float f;
  memcpy(&f, &u, 4);
  return f;
}

static DLManagedTensor bf16_tensor(void *data, int64_t *shape, int64_t *strides) {
  DLManagedTensor m;
  memset(&m, 0, sizeof m);
  m.dl_tensor.data = data;
  m.dl_tensor.device.device_type = kDLCPU;
  m.dl_tensor.ndim = 2;
  m.dl_tensor.dtype.code = kDLBfloat;
  m.dl_tensor.dtype.bits = 16;
  m.dl_tensor.dtype.lanes = 1;
  m.dl_tensor.shape = shape;
  m.dl_tensor.strides = strides;
  return m;
}

/* C[m][n] = sum_k A[m][k] B[n][k] with A[m][k] = (k + m) % 4, B[n][k] = n % 8 - 3: whole numbers
** below 2^8, so exact in bf16 */
static int c_ok(const uint16_t *c, const char *what) {
  int bad = 0;
  for (int m = 0; m < M && !bad; m++)
    for (int n = 0; n < N && !bad; n++) {
      float want = 0;
      for (int k = 0; k < K; k++) want += (float)((k + m) % 4) * (float)(n % 8 - 3);
      if (from_bf16(c[m * N + n]) != want) {
        fprintf(stderr, "%s: C[%d][%d] = %g, want %g\n", what, m, n, from_bf16(c[m * N + n]), want);
        bad = 1;
      }
    }
  return !bad;
}

int main(void) {
  static uint16_t a[M * K], b[N * K], c[M * N], wide[M * LD];
  for (int m = 0; m < M; m++)
    for (int k = 0; k < K; k++) {
      a[m * K + k] = bf16((float)((k + m) % 4));
      wide[m * LD + k] = a[m * K + k];
    }
  for (int m = 0; m < M; m++)
    for (int k = K; k < LD; k++) wide[m * LD + k] = bf16(1000.0f); /* outside the view */
  for (int n = 0; n < N; n++)
    for (int k = 0; k < K; k++) b[n * K + k] = bf16((float)(n % 8 - 3));

  ptxlua_engine *e = test_engine();
  ptxlua_device *d = NULL;
  ptxlua_kernel *k = NULL;
  char path[4200];
  snprintf(path, sizeof path, "%s/kernels/gemm.lua",
           getenv("PTXLUA_ROOT") ? getenv("PTXLUA_ROOT") : ".");
  CHECKMSG(ptxlua_load_file(e, path) == PTXLUA_OK, e);
  const char *defs[][2] = { { "M", "72" },  { "N", "136" },     { "K", "64" },
                            { "SMS", "2" }, { "CLUSTER", "1" }, { "BN", "64" } };
  for (size_t i = 0; i < sizeof defs / sizeof *defs; i++) ptxlua_define(e, defs[i][0], defs[i][1]);
  CHECKMSG(ptxlua_device_open(e, "emu", &d) == PTXLUA_OK, e);
  CHECKMSG(d && ptxlua_kernel_prepare(d, "gemm", &k) == PTXLUA_OK, e);
  if (!k) {
    ptxlua_close(e);
    return 1;
  }
  /* what the maps view: tensors entries of the kernel, so no pointer parameter */
  const char *tn = NULL;
  int tp = 0;
  CHECK(ptxlua_kernel_param_view(k, 0, &tn, &tp) == PTXLUA_OK && tn && !strcmp(tn, "A") &&
        tp == -1);
  CHECK(ptxlua_kernel_param_view(k, 2, &tn, &tp) == PTXLUA_OK && tn && !strcmp(tn, "C"));
  int64_t dims[4];
  int names[4];
  CHECK(ptxlua_kernel_param_shape(k, 1, dims, names, 4) == 2 && dims[0] == N && dims[1] == K);

  /* 1. DLPack tensors at the map parameters: the maps built inside */
  int64_t sa[2] = { M, K }, sb[2] = { N, K }, sc[2] = { M, N };
  DLManagedTensor ta = bf16_tensor(a, sa, NULL), tb = bf16_tensor(b, sb, NULL),
                  tc = bf16_tensor(c, sc, NULL);
  ptxlua_arg args[3] = { ptxlua_arg_dlpack(&ta), ptxlua_arg_dlpack(&tb), ptxlua_arg_dlpack(&tc) };
  memset(c, 0xff, sizeof c);
  CHECKMSG(ptxlua_launch(k, NULL, NULL, PTXLUA_SMEM_KERNEL, NULL, args, 3) == PTXLUA_OK, e);
  CHECK(c_ok(c, "DLPack"));

  /* 2. a strided view of A (rows of LD elements, K of them read): the map takes its strides */
  int64_t wst[2] = { LD, 1 };
  DLManagedTensor tw = bf16_tensor(wide, sa, wst);
  args[0] = ptxlua_arg_dlpack(&tw);
  memset(c, 0xff, sizeof c);
  CHECKMSG(ptxlua_launch(k, NULL, NULL, PTXLUA_SMEM_KERNEL, NULL, args, 3) == PTXLUA_OK, e);
  CHECK(c_ok(c, "strided view"));
  /* a column-major view: the innermost dimension not contiguous */
  int64_t cst[2] = { 1, M };
  tw.dl_tensor.strides = cst;
  CHECK(ptxlua_launch(k, NULL, NULL, PTXLUA_SMEM_KERNEL, NULL, args, 3) == PTXLUA_MISUSE);
  CHECK_MSG(e, "gemm.lua:");
  CHECK_MSG(
      e, "launch of gemm: argument 1 (A_map): tensor A: a tensor with strides [1, 72] (elements): "
         "a tensor map needs its innermost dimension contiguous (stride 1)");

  /* 3. the shape, dtype and device checked against the declaration, nothing run */
  int64_t bad[2] = { M, 32 };
  ta.dl_tensor.shape = bad;
  args[0] = ptxlua_arg_dlpack(&ta);
  CHECK(ptxlua_launch(k, NULL, NULL, PTXLUA_SMEM_KERNEL, NULL, args, 3) == PTXLUA_MISUSE);
  CHECK_MSG(e,
            "argument 1 (A_map): tensor A: a tensor of shape [72, 32], where the kernel declares "
            "shape {M, K} = [72, 64]");
  ta.dl_tensor.shape = sa;
  ta.dl_tensor.dtype.code = kDLFloat; /* f16 */
  CHECK(ptxlua_launch(k, NULL, NULL, PTXLUA_SMEM_KERNEL, NULL, args, 3) == PTXLUA_MISUSE);
  CHECK_MSG(e, "argument 1 (A_map): tensor A: a tensor of f16, where the kernel declares bf16*");
  ta.dl_tensor.dtype.code = kDLBfloat;
  ta.dl_tensor.device.device_type = kDLCUDA;
  CHECK(ptxlua_launch(k, NULL, NULL, PTXLUA_SMEM_KERNEL, NULL, args, 3) == PTXLUA_MISUSE);
  CHECK_MSG(
      e, "argument 1 (A_map): tensor A: a tensor in CUDA memory of device 0, where \"emu\" runs");
  ta.dl_tensor.device.device_type = kDLCPU;

  /* 4. buffers: the declaration gives the shape (M x K packed); too small a one is refused */
  ptxlua_buffer *ba = NULL, *bb = NULL, *small = NULL;
  CHECKMSG(ptxlua_buffer_alloc(d, sizeof a, &ba) == PTXLUA_OK, e);
  CHECKMSG(ptxlua_buffer_wrap(d, b, sizeof b, &bb) == PTXLUA_OK, e);
  CHECKMSG(ptxlua_buffer_alloc(d, sizeof a - 2, &small) == PTXLUA_OK, e);
  if (ba) ptxlua_buffer_upload(ba, 0, a, sizeof a);
  args[0] = ptxlua_arg_buffer(ba);
  args[1] = ptxlua_arg_buffer(bb);
  memset(c, 0xff, sizeof c);
  CHECKMSG(ptxlua_launch(k, NULL, NULL, PTXLUA_SMEM_KERNEL, NULL, args, 3) == PTXLUA_OK, e);
  CHECK(c_ok(c, "buffers"));
  args[0] = ptxlua_arg_buffer(small);
  CHECK(ptxlua_launch(k, NULL, NULL, PTXLUA_SMEM_KERNEL, NULL, args, 3) == PTXLUA_MISUSE);
  CHECK_MSG(e, "argument 1 (A_map): tensor A is bf16 [72, 64] (9216 bytes), the buffer has 9214");

  /* 5. a prebuilt map is still taken as it is */
  ptxlua_tensormap ma;
  uint64_t adims[2] = { K, M };
  uint32_t abox[2] = { 64, 128 };
  CHECKMSG(ptxlua_tensormap_encode(ba, "bf16", 2, adims, NULL, abox, "128B", &ma) == PTXLUA_OK, e);
  args[0] = ptxlua_arg_tensormap(&ma);
  memset(c, 0xff, sizeof c);
  CHECKMSG(ptxlua_launch(k, NULL, NULL, PTXLUA_SMEM_KERNEL, NULL, args, 3) == PTXLUA_OK, e);
  CHECK(c_ok(c, "prebuilt map"));
  args[0] = ptxlua_arg_u32(7);
  CHECK(ptxlua_launch(k, NULL, NULL, PTXLUA_SMEM_KERNEL, NULL, args, 3) == PTXLUA_MISUSE);
  CHECK_MSG(
      e, "argument 1 (A_map): a tensormap parameter takes a tensor map (ptxlua_tensormap_encode), "
         "or the tensor it declares it views (a DLPack tensor, a buffer or an address), got u32");
  ptxlua_close(e);
  return check_done("test_dlpack_maps");
}
