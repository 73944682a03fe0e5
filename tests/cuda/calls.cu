// a device function kept as a call, and printf (tests/spec/parse_spec.lua; also compiled with -G)
#include <cstdio>
__device__ __noinline__ float scale(float v, float s) { return v * s + 1.0f; }
extern "C" __global__ void calls(float *x, int n) {
  int i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i < n) x[i] = scale(x[i], 2.0f);
  if (i == 0) printf("n = %d, x0 = %f\n", n, x[0]);
}
