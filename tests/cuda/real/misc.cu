// The rest of what kernels use: cache-hinted loads and stores, clocks and timers, dynamic shared
// memory, cuda::pipeline over cp.async, fp8 and fp4 conversions, bf16 and half math, trap and
// nanosleep, special registers, and the Blackwell consumer (sm_120a) block-scaled mma.sync.
#include <cuda_fp16.h>
#include <cuda_bf16.h>
#include <cuda_fp8.h>
#include <cuda/pipeline>
#include <cooperative_groups.h>
#include <cooperative_groups/memcpy_async.h>
#include <stdint.h>
namespace cg = cooperative_groups;
#if __CUDA_ARCH__ >= 1000
#include <cuda_fp4.h>
#endif

__global__ void hints(const float *in, float *out, const int4 *v, int4 *w, int n) {
  int i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i >= n) return;
  float a = __ldca(in + i) + __ldcg(in + i + 1) + __ldcs(in + i + 2) + __ldlu(in + i + 3) + __ldcv(in + i + 4) + __ldg(in + i + 5);
  __stwb(out + i, a); __stcg(out + i + 1, a); __stcs(out + i + 2, a); __stwt(out + i + 3, a);
  int4 x = __ldg(v + i);
  w[i] = make_int4(x.w, x.z, x.y, x.x);
  long long t0 = clock64();
  unsigned c = clock();
  unsigned long long g;
  asm volatile("mov.u64 %0, %%globaltimer;" : "=l"(g));
  unsigned sm, warp, lane;
  asm("mov.u32 %0, %%smid;" : "=r"(sm)); asm("mov.u32 %0, %%warpid;" : "=r"(warp)); asm("mov.u32 %0, %%laneid;" : "=r"(lane));
  unsigned lt;
  asm("mov.u32 %0, %%lanemask_lt;" : "=r"(lt));
  __nanosleep(32);
  out[i + 4] = (float)(clock64() - t0) + (float)(c + sm + warp + lane + lt) + (float)g;
  if (a != a) __trap();
}

__global__ void dyn_smem(const float *in, float *out, int n) {
  extern __shared__ float sm[];
  cg::thread_block blk = cg::this_thread_block();
  cg::memcpy_async(blk, sm, in + blockIdx.x * n, sizeof(float) * n);
  cg::wait(blk);
  out[blockIdx.x * n + threadIdx.x] = sm[(threadIdx.x * 3) % n];
}

__global__ void pipelined(const float *in, float *out, int tiles) {
  __shared__ float buf[2][128];
  auto pipe = cuda::make_pipeline();
  for (int t = 0; t < tiles; t++) {
    pipe.producer_acquire();
    cuda::memcpy_async(&buf[t & 1][threadIdx.x], &in[t * 128 + threadIdx.x], sizeof(float), pipe);
    pipe.producer_commit();
    pipe.consumer_wait();
    out[t * 128 + threadIdx.x] = buf[t & 1][threadIdx.x] * 2.f;
    pipe.consumer_release();
  }
}

__global__ void half_math(const __half2 *a, const __nv_bfloat162 *b, __half2 *c, __nv_bfloat162 *d, float *f) {
  int i = threadIdx.x;
  __half2 x = a[i];
  c[i] = __hfma2(x, h2exp2(x), __hmax2(x, __habs2(x))) + h2rcp(x) + __hmin2_nan(x, x);
  __nv_bfloat162 y = b[i];
  d[i] = __hfma2(y, y, __hneg2(y)) + __hmax2(y, y);
  f[i] = __half2float(__low2half(x)) + __bfloat162float(__high2bfloat16(y)) + __half2float(__float2half_rz(f[i]))
       + __bfloat162float(__float2bfloat16_rd(f[i])) + (float)__half2int_rn(__low2half(x)) + (float)__hisnan(__low2half(x));
}

#if __CUDA_ARCH__ >= 890
__global__ void fp8(const float2 *in, __nv_fp8x2_storage_t *e4, __nv_fp8x2_storage_t *e5, __half2 *back) {
  int i = threadIdx.x;
  e4[i] = __nv_cvt_float2_to_fp8x2(in[i], __NV_SATFINITE, __NV_E4M3);
  e5[i] = __nv_cvt_float2_to_fp8x2(in[i], __NV_SATFINITE, __NV_E5M2);
  __half2_raw h = __nv_cvt_fp8x2_to_halfraw2(e4[i], __NV_E4M3);
  back[i] = *reinterpret_cast<__half2 *>(&h);
}
#endif

#if __CUDA_ARCH__ >= 1000
__global__ void fp4(const float2 *in, __nv_fp4x2_storage_t *e2, float *out) {
  int i = threadIdx.x;
  e2[i] = __nv_cvt_float2_to_fp4x2(in[i], __NV_E2M1, cudaRoundNearest);
  __half2_raw h = __nv_cvt_fp4x2_to_halfraw2(e2[i], __NV_E2M1);
  out[i] = __half2float(__ushort_as_half(h.x));
}
#endif

#if defined(__CUDA_ARCH_SPECIFIC__) && __CUDA_ARCH__ >= 1000
// sm_120a: mma.sync with fp8 operands and f32 accumulators (kind::f8f6f4)
__global__ void mma_f8f6f4(const uint32_t *a, const uint32_t *b, float *c) {
  float d[4] = {0.f, 0.f, 0.f, 0.f};
  int t = threadIdx.x;
  asm volatile("mma.sync.aligned.m16n8k32.row.col.kind::f8f6f4.f32.e4m3.e4m3.f32 {%0,%1,%2,%3}, {%4,%5,%6,%7}, {%8,%9}, {%0,%1,%2,%3};"
               : "+f"(d[0]), "+f"(d[1]), "+f"(d[2]), "+f"(d[3])
               : "r"(a[t * 4]), "r"(a[t * 4 + 1]), "r"(a[t * 4 + 2]), "r"(a[t * 4 + 3]), "r"(b[t * 2]), "r"(b[t * 2 + 1]));
  for (int k = 0; k < 4; k++) c[t * 4 + k] = d[k];
}
#endif
