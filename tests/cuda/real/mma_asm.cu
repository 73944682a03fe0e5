// Tensor-core code through inline PTX, as CUTLASS, ThunderKittens and FlashAttention write it:
// ldmatrix / stmatrix in both modifier orders (.m8n8.x4 and .x4.m8n8), mma.sync of every type,
// movmatrix, cp.async with zero-fill and L2 prefetch hints, commit/wait groups, swizzled shared
// memory addresses, { } scopes with their own registers and predicates.
#include <cuda_fp16.h>
#include <cuda_bf16.h>
#include <stdint.h>

__device__ __forceinline__ uint32_t smem_u32(const void *p) { return (uint32_t)__cvta_generic_to_shared(p); }

__device__ __forceinline__ void ldsm_x4(uint32_t &a, uint32_t &b, uint32_t &c, uint32_t &d, uint32_t addr) {
  asm volatile("ldmatrix.sync.aligned.x4.m8n8.shared.b16 {%0, %1, %2, %3}, [%4];\n" : "=r"(a), "=r"(b), "=r"(c), "=r"(d) : "r"(addr));
}
__device__ __forceinline__ void ldsm_x2_t(uint32_t &a, uint32_t &b, uint32_t addr) {
  asm volatile("ldmatrix.sync.aligned.m8n8.x2.trans.shared.b16 {%0, %1}, [%2];\n" : "=r"(a), "=r"(b) : "r"(addr));
}
__device__ __forceinline__ void ldsm_x1(uint32_t &a, uint32_t addr) {
  asm volatile("ldmatrix.sync.aligned.x1.trans.m8n8.shared::cta.b16 {%0}, [%1];\n" : "=r"(a) : "r"(addr));
}
__device__ __forceinline__ void mma_bf16(float *d, const uint32_t *a, const uint32_t *b) {
  asm volatile("mma.sync.aligned.m16n8k16.row.col.f32.bf16.bf16.f32 {%0,%1,%2,%3}, {%4,%5,%6,%7}, {%8,%9}, {%0,%1,%2,%3};\n"
               : "+f"(d[0]), "+f"(d[1]), "+f"(d[2]), "+f"(d[3]) : "r"(a[0]), "r"(a[1]), "r"(a[2]), "r"(a[3]), "r"(b[0]), "r"(b[1]));
}
__device__ __forceinline__ void mma_f16_f16(uint32_t *d, const uint32_t *a, const uint32_t *b) {
  asm volatile("mma.sync.aligned.m16n8k16.row.col.f16.f16.f16.f16 {%0,%1}, {%2,%3,%4,%5}, {%6,%7}, {%0,%1};\n"
               : "+r"(d[0]), "+r"(d[1]) : "r"(a[0]), "r"(a[1]), "r"(a[2]), "r"(a[3]), "r"(b[0]), "r"(b[1]));
}
__device__ __forceinline__ void mma_tf32(float *d, const uint32_t *a, const uint32_t *b) {
  asm volatile("mma.sync.aligned.m16n8k8.row.col.f32.tf32.tf32.f32 {%0,%1,%2,%3}, {%4,%5,%6,%7}, {%8,%9}, {%0,%1,%2,%3};\n"
               : "+f"(d[0]), "+f"(d[1]), "+f"(d[2]), "+f"(d[3]) : "r"(a[0]), "r"(a[1]), "r"(a[2]), "r"(a[3]), "r"(b[0]), "r"(b[1]));
}
__device__ __forceinline__ void mma_s8(int *d, const uint32_t *a, const uint32_t *b) {
  asm volatile("mma.sync.aligned.m16n8k32.row.col.satfinite.s32.s8.s8.s32 {%0,%1,%2,%3}, {%4,%5,%6,%7}, {%8,%9}, {%0,%1,%2,%3};\n"
               : "+r"(d[0]), "+r"(d[1]), "+r"(d[2]), "+r"(d[3]) : "r"(a[0]), "r"(a[1]), "r"(a[2]), "r"(a[3]), "r"(b[0]), "r"(b[1]));
}
__device__ __forceinline__ void mma_f64(double *d, double a, double b) {
  asm volatile("mma.sync.aligned.m8n8k4.row.col.f64.f64.f64.f64 {%0,%1}, {%2}, {%3}, {%0,%1};\n" : "+d"(d[0]), "+d"(d[1]) : "d"(a), "d"(b));
}
__device__ __forceinline__ void cp_async16(uint32_t dst, const void *src, bool pred) {
  // zero-fill when !pred (src-size 0), CUTLASS's cp_async_zfill; .L2::128B prefetch as FlashAttention
  asm volatile("{\n\t.reg .pred p;\n\tsetp.ne.b32 p, %2, 0;\n\t@p cp.async.cg.shared.global.L2::128B [%0], [%1], 16;\n"
               "\t@!p cp.async.cg.shared.global.L2::128B [%0], [%1], 16, 0;\n}\n" :: "r"(dst), "l"(src), "r"((int)pred));
}
__device__ __forceinline__ void cp_async4(uint32_t dst, const void *src) {
  asm volatile("cp.async.ca.shared.global [%0], [%1], 4;\n" :: "r"(dst), "l"(src));
}

template <int BM, int BN, int BK>
__global__ void __launch_bounds__(128) gemm_bf16(const __nv_bfloat16 *A, const __nv_bfloat16 *B, float *C, int M, int N, int K) {
  __shared__ __align__(128) __nv_bfloat16 sA[2][BM * BK], sB[2][BN * BK];
  int tid = threadIdx.x, warp = tid / 32, lane = tid % 32;
  float acc[4][4] = {};
  for (int k0 = 0, s = 0; k0 < K; k0 += BK, s ^= 1) {
    for (int i = tid; i < BM * BK / 8; i += 128) {
      int r = i / (BK / 8), c = i % (BK / 8), sw = c ^ (r & 7);          // a 128-byte swizzle
      cp_async16(smem_u32(&sA[s][r * BK + sw * 8]), A + (long)(blockIdx.y * BM + r) * K + k0 + c * 8, blockIdx.y * BM + r < M);
      cp_async16(smem_u32(&sB[s][r * BK + sw * 8]), B + (long)(blockIdx.x * BN + r) * K + k0 + c * 8, blockIdx.x * BN + r < N);
    }
    asm volatile("cp.async.commit_group;\n" ::);
    asm volatile("cp.async.wait_group 0;\n" ::);
    __syncthreads();
#pragma unroll
    for (int kk = 0; kk < BK; kk += 16) {
      uint32_t a[4], b[4];
      ldsm_x4(a[0], a[1], a[2], a[3], smem_u32(&sA[s][(warp * 16 + lane % 16) * BK + kk + (lane / 16) * 8]));
      ldsm_x4(b[0], b[1], b[2], b[3], smem_u32(&sB[s][(lane % 16) * BK + kk + (lane / 16) * 8]));
#pragma unroll
      for (int j = 0; j < 4; j++) mma_bf16(acc[j], a, &b[(j & 1) * 2]);
    }
    __syncthreads();
  }
  asm volatile("cp.async.wait_all;\n" ::);
  for (int j = 0; j < 4; j++)
    for (int e = 0; e < 4; e++) C[(blockIdx.y * BM + warp * 16 + lane / 4) * N + blockIdx.x * BN + j * 8 + e] = acc[j][e];
}
template __global__ void gemm_bf16<64, 64, 32>(const __nv_bfloat16 *, const __nv_bfloat16 *, float *, int, int, int);

__global__ void mma_zoo(const uint32_t *in, float *f, int *i, double *d, uint32_t *h) {
  __shared__ __align__(16) uint16_t tile[16 * 16];
  uint32_t a[4] = {in[0], in[1], in[2], in[3]}, b[2] = {in[4], in[5]};
  float df[4] = {}; int di[4] = {}; double dd[2] = {}; uint32_t dh[2] = {};
  mma_f16_f16(dh, a, b); mma_tf32(df, a, b); mma_s8(di, a, b); mma_f64(dd, (double)in[6], (double)in[7]);
  tile[threadIdx.x % 256] = (uint16_t)in[threadIdx.x];
  __syncwarp();
  uint32_t t0, t1, t2;
  ldsm_x2_t(t0, t1, smem_u32(&tile[(threadIdx.x % 16) * 16]));
  ldsm_x1(t2, smem_u32(&tile[(threadIdx.x % 8) * 16]));
  uint32_t m;
  asm volatile("movmatrix.sync.aligned.m8n8.trans.b16 %0, %1;\n" : "=r"(m) : "r"(t0));
  cp_async4(smem_u32(&tile[0]), in + 8);
  asm volatile("cp.async.wait_all;\n" ::);
  f[threadIdx.x] = df[0] + df[3]; i[threadIdx.x] = di[1]; d[threadIdx.x] = dd[0] + dd[1];
  h[threadIdx.x] = dh[0] ^ t1 ^ t2 ^ m ^ tile[1];
}

#if __CUDA_ARCH__ >= 900
// stmatrix (sm_90) in the order DeepGEMM and FlashAttention-3 write it
__global__ void stsm(const uint32_t *in, uint32_t *out) {
  __shared__ __align__(16) uint16_t tile[4 * 64];
  uint32_t addr = smem_u32(&tile[(threadIdx.x % 16) * 8]);
  asm volatile("stmatrix.sync.aligned.x2.m8n8.shared.b16 [%0], {%1, %2};\n" :: "r"(addr), "r"(in[0]), "r"(in[1]));
  asm volatile("stmatrix.sync.aligned.m8n8.x4.trans.shared::cta.b16 [%0], {%1, %2, %3, %4};\n"
               :: "r"(addr), "r"(in[0]), "r"(in[1]), "r"(in[2]), "r"(in[3]));
  asm volatile("stmatrix.sync.aligned.x1.trans.m8n8.shared.b16 [%0], {%1};\n" :: "r"(addr), "r"(in[2]));
  __syncwarp();
  out[threadIdx.x] = tile[threadIdx.x];
}
#endif
