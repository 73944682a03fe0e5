/* launch_overhead_c.c -- host time per launch of a cached (prepared) kernel through the C API:
** ptxlua_launch of vector_add with four typed arguments on "cuda:0", N launches back to back, then
** one device sync (not counted per launch). Target: under 3 us (pyptx: about 14 us).
**   build/bench/launch_overhead_c [ITERS] [kernels/vector_add.lua]
** Without a CUDA driver it prints "no CUDA driver: ..." and exits 0. With the test build's mock
** driver (PTXLUA_LIBCUDA=build/tests/mock_cuda/libcuda.so.1) it measures ptxlua's side only: the
** mock's cuLaunchKernelEx does almost nothing, so the figure is our overhead, not the GPU's. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include "ptxlua.h"

static double now(void) {
  struct timespec ts;
  clock_gettime(CLOCK_MONOTONIC, &ts);
  return ts.tv_sec + ts.tv_nsec * 1e-9;
}

int main(int argc, char **argv) {
  long iters = argc > 1 ? atol(argv[1]) : 200000;
  const char *script = argc > 2 ? argv[2] : "kernels/vector_add.lua";
  if (iters < 1) iters = 1;
  ptxlua_engine *e = ptxlua_open();
  if (!e) return 1;
  ptxlua_device *d = NULL;
  if (ptxlua_device_open(e, "cuda:0", &d) != PTXLUA_OK) {
    const char *m = strstr(ptxlua_errmsg(e), "not available: ");
    printf("%s\n", m ? m + 15 : ptxlua_errmsg(e));
    ptxlua_close(e);
    return 0;
  }
  enum { N = 1 << 20 };
  ptxlua_kernel *k = NULL;
  ptxlua_buffer *x = NULL, *y = NULL, *out = NULL;
  if (ptxlua_load_file(e, script) || ptxlua_define(e, "N", "1048576") ||
      ptxlua_kernel_prepare(d, "vector_add", &k) || ptxlua_buffer_alloc(d, N * 4, &x) ||
      ptxlua_buffer_alloc(d, N * 4, &y) || ptxlua_buffer_alloc(d, N * 4, &out)) {
    fprintf(stderr, "%s\n", ptxlua_errmsg(e));
    ptxlua_close(e);
    return 1;
  }
  ptxlua_arg args[4] = { ptxlua_arg_buffer(x), ptxlua_arg_buffer(y), ptxlua_arg_buffer(out),
                         ptxlua_arg_u32(N) };
  for (int i = 0; i < 1000; i++) /* warm up */
    if (ptxlua_launch(k, NULL, NULL, 0, NULL, args, 4)) {
      fprintf(stderr, "%s\n", ptxlua_errmsg(e));
      return 1;
    }
  ptxlua_device_sync(d);
  double best = 1e9;
  for (int rep = 0; rep < 5; rep++) { /* the best of 5 rounds */
    double t0 = now();
    for (long i = 0; i < iters; i++) ptxlua_launch(k, NULL, NULL, 0, NULL, args, 4);
    double t = (now() - t0) / (double)iters;
    if (ptxlua_device_sync(d)) {
      fprintf(stderr, "%s\n", ptxlua_errmsg(e));
      return 1;
    }
    if (t < best) best = t;
  }
  printf("%s: %ld launches of vector_add x 5, best %.3f us host time per launch (C API)%s\n",
         ptxlua_device_describe(d), iters, best * 1e6,
         strstr(ptxlua_device_describe(d), "mock") ? " [mock driver: ptxlua's side only]" : "");
  ptxlua_close(e);
  return 0;
}
