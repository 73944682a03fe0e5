// sugar_standin.cu -- the source of bench/sugar_speed.sh's stand-ins for the held-out compiler
// output of issue 15: an attention-style main loop built from inline-PTX helpers written the way
// CUTLASS, CuTe, FlashAttention-3 and cuda_fp16.h write them (each asm statement in its own
// `{ }` block with scoped `.reg` declarations, bare names, lists of names, `%%t<3>` ranges, labels
// every copy of a wait loop reuses), unrolled by templates. The script instantiates `attn`
// STANDIN_N times (attn_instances.inc) to reach a file size, and compiles it with nvcc 13.0 as is,
// with -lineinfo and with -G. Not a kernel to run: its numbers mean nothing.
#include <cuda_fp16.h>
#include <cuda_bf16.h>
#include <stdint.h>

// mbarrier wait: a loop on labels every inlined copy places again (CUTLASS ClusterBarrier::wait)
__device__ __forceinline__ void bar_wait(uint32_t smem, uint32_t phase) {
  asm volatile("{\n.reg .pred                P1;\nLAB_WAIT:\n"
               "mbarrier.try_wait.parity.shared::cta.b64 P1, [%0], %1;\n"
               "@P1 bra DONE;\nbra                   LAB_WAIT;\nDONE:\n}\n"
               :: "r"(smem), "r"(phase));
}
// arrive: a scoped .b64 result (CUTLASS ClusterBarrier::arrive)
__device__ __forceinline__ void bar_arrive(uint32_t smem) {
  asm volatile("{\n\t.reg .b64 state; \n\tmbarrier.arrive.shared::cta.b64   state, [%0];\n\t}" :: "r"(smem));
}
// elect.sync with %-named scoped registers (cute::elect_one_sync)
__device__ __forceinline__ uint32_t elect_one() {
  uint32_t pred = 0, laneid = 0;
  asm volatile("{\n.reg .b32 %%rx;\n.reg .pred %%px;\n     elect.sync %%rx|%%px, %2;\n@%%px mov.s32 %1, 1;\n     mov.s32 %0, %%rx;\n}\n"
               : "+r"(laneid), "+r"(pred) : "r"(0xFFFFFFFF));
  return pred;
}
// two halves packed: a list of bare names (cuda_fp16.hpp's style)
__device__ __forceinline__ uint32_t pack(float a, float b) {
  uint32_t r;
  asm("{\n  .reg .b16 lo, hi;\n  cvt.rn.f16.f32 lo, %1;\n  cvt.rn.f16.f32 hi, %2;\n  mov.b32 %0, {lo, hi};\n}\n" : "=r"(r) : "f"(a), "f"(b));
  return r;
}
// a predicated copy (cute's cp.async with a guard predicate)
__device__ __forceinline__ void cp_async(uint32_t s, const void *g, bool p) {
  asm volatile("{\n  .reg .pred p;\n  setp.ne.b32 p, %2, 0;\n  @p cp.async.cg.shared.global [%0], [%1], 16;\n}\n"
               :: "r"(s), "l"(g), "r"((int)p));
}
// a scoped range of temporaries
__device__ __forceinline__ uint32_t scoped_tmp(uint32_t a, uint32_t b) {
  uint32_t d;
  asm("{\n\t.reg .b32 %%t<3>;\n\tadd.u32 %%t1, %1, %2;\n\tshl.b32 %%t2, %%t1, 2;\n\txor.b32 %0, %%t2, %1;\n\t}" : "=r"(d) : "r"(a), "r"(b));
  return d;
}
// a block inside a block, the inner one hiding the outer's name
__device__ __forceinline__ uint32_t nested(uint32_t a) {
  uint32_t d;
  asm("{\n\t.reg .b32 t;\n\tadd.u32 t, %1, 7;\n\t{\n\t.reg .b32 t;\n\tmul.lo.u32 t, %1, 3;\n\tadd.u32 %0, t, 1;\n\t}\n\tadd.u32 %0, %0, t;\n\t}"
      : "=r"(d) : "r"(a));
  return d;
}
__device__ __forceinline__ void mma16816(float *d, const uint32_t *a, const uint32_t *b) {
  asm volatile("mma.sync.aligned.m16n8k16.row.col.f32.f16.f16.f32 {%0, %1, %2, %3}, {%4, %5, %6, %7}, {%8, %9}, {%0, %1, %2, %3};\n"
               : "+f"(d[0]), "+f"(d[1]), "+f"(d[2]), "+f"(d[3]) : "r"(a[0]), "r"(a[1]), "r"(a[2]), "r"(a[3]), "r"(b[0]), "r"(b[1]));
}
__device__ __forceinline__ void ldsm4(uint32_t *r, uint32_t addr) {
  asm volatile("ldmatrix.sync.aligned.m8n8.x4.shared.b16 {%0, %1, %2, %3}, [%4];\n"
               : "=r"(r[0]), "=r"(r[1]), "=r"(r[2]), "=r"(r[3]) : "r"(addr));
}
__device__ __forceinline__ float ex2(float x) { float y; asm("ex2.approx.ftz.f32 %0, %1;" : "=f"(y) : "f"(x)); return y; }

template <int N, int V>
__global__ void __launch_bounds__(128) attn(const half *q, const half *k, float *o, float scale, int n) {
  __shared__ __align__(16) half sq[128 * 8];
  __shared__ uint64_t bar[2];
  uint32_t sbase = (uint32_t)__cvta_generic_to_shared(sq);
  uint32_t b0 = (uint32_t)__cvta_generic_to_shared(&bar[0]);
  int t = threadIdx.x;
  float acc[4] = {0, 0, 0, 0};
  float mx = -1e30f, sum = 0.f;
#pragma unroll
  for (int it = 0; it < N; it++) {
    cp_async(sbase + 16 * t, q + (it * 128 + t) * 8, it * 128 + t < n);
    if (elect_one()) bar_arrive(b0);
    bar_wait(b0, it & 1);
    uint32_t a[4], b[2];
    ldsm4(a, sbase + (t % 16) * 16 + it * V);
    b[0] = scoped_tmp(a[0], a[1] + it);
    b[1] = pack(__half2float(k[t + it]), scale) ^ nested(a[2]);
    mma16816(acc, a, b);
#pragma unroll
    for (int j = 0; j < 4; j++) {
      float s = acc[j] * scale;
      float m2 = fmaxf(mx, s);
      sum = sum * ex2(mx - m2) + ex2(s - m2);
      mx = m2;
    }
  }
  __nv_bfloat16 hb = __float2bfloat16(sum);
  o[blockIdx.x * 128 + t] = acc[0] + acc[1] + acc[2] + acc[3] + mx + __bfloat162float(hb);
}

#include "attn_instances.inc"
