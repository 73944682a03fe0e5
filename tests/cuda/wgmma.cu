// wgmma (sm_90a) through inline PTX: a warpgroup m64n8k16 f16 -> f32 product (f16 pairs in 32-bit words) from two
// shared-memory descriptors, with the fence / commit / wait protocol around it (tests/spec/parse_spec.lua)
#include <cstdint>

__device__ static inline uint64_t desc_of(const void *smem) {
  // a matrix descriptor: start address >> 4 in bits 0-13, no swizzle, unit strides
  uint32_t a = static_cast<uint32_t>(__cvta_generic_to_shared(smem));
  return (uint64_t)((a & 0x3FFFF) >> 4) | ((uint64_t)1 << 16) | ((uint64_t)8 << 32);
}

extern "C" __global__ void __launch_bounds__(128) wgmma_m64n8k16(const uint32_t *a, const uint32_t *b, float *c) {
  __shared__ __align__(128) uint32_t sa[64 * 16 / 2];
  __shared__ __align__(128) uint32_t sb[8 * 16 / 2];
  unsigned t = threadIdx.x;
  for (unsigned i = t; i < 64 * 8; i += 128) sa[i] = a[i];
  if (t < 64) sb[t] = b[t];
  __syncthreads();
  float d0 = 0.f, d1 = 0.f, d2 = 0.f, d3 = 0.f;
  uint64_t da = desc_of(sa), db = desc_of(sb);
  asm volatile("wgmma.fence.sync.aligned;" ::: "memory");
  asm volatile("{\n\t.reg .pred p;\n\tsetp.ne.b32 p, %6, 0;\n\t"
               "wgmma.mma_async.sync.aligned.m64n8k16.f32.f16.f16 {%0, %1, %2, %3}, %4, %5, p, 1, 1, 0, 0;\n\t}"
               : "+f"(d0), "+f"(d1), "+f"(d2), "+f"(d3)
               : "l"(da), "l"(db), "r"(1));
  asm volatile("wgmma.commit_group.sync.aligned;" ::: "memory");
  asm volatile("wgmma.wait_group.sync.aligned 0;" ::: "memory");
  c[t * 4] = d0; c[t * 4 + 1] = d1; c[t * 4 + 2] = d2; c[t * 4 + 3] = d3;
}
