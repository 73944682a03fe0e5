// tcgen05 (sm_100a) through inline PTX: tensor-memory allocation, a 5th-generation tensor-core
// product (kind::f16, cta_group::1) from two shared-memory descriptors into tensor memory, the
// commit to an mbarrier, tcgen05.ld of the accumulator, tcgen05.st/cp/shift, the fences and the
// deallocation (tests/spec/parse_spec.lua)
#include <cstdint>

__device__ static inline uint32_t smem_addr(const void *p) { return static_cast<uint32_t>(__cvta_generic_to_shared(p)); }
__device__ static inline uint64_t desc_of(const void *smem) {
  return (uint64_t)((smem_addr(smem) & 0x3FFFF) >> 4) | ((uint64_t)1 << 16) | ((uint64_t)8 << 32) | ((uint64_t)1 << 46);
}

extern "C" __global__ void __launch_bounds__(128) tcgen05_mma(const uint4 *a, const uint4 *b, float *c, uint32_t idesc) {
  __shared__ __align__(1024) uint4 sa[128 * 16 / 8];
  __shared__ __align__(1024) uint4 sb[128 * 16 / 8];
  __shared__ __align__(16) uint32_t tslot;
  __shared__ __align__(8) uint64_t bar;
  unsigned t = threadIdx.x, warp = t / 32;
  sa[t * 2] = a[t * 2]; sa[t * 2 + 1] = a[t * 2 + 1];
  sb[t * 2] = b[t * 2]; sb[t * 2 + 1] = b[t * 2 + 1];
  if (warp == 0) {
    asm volatile("tcgen05.alloc.cta_group::1.sync.aligned.shared::cta.b32 [%0], 128;" :: "r"(smem_addr(&tslot)) : "memory");
    asm volatile("tcgen05.relinquish_alloc_permit.cta_group::1.sync.aligned;" ::: "memory");
  }
  if (t == 0) asm volatile("mbarrier.init.shared::cta.b64 [%0], 1;" :: "r"(smem_addr(&bar)) : "memory");
  asm volatile("fence.proxy.async.shared::cta;" ::: "memory");
  asm volatile("tcgen05.fence::before_thread_sync;" ::: "memory");
  __syncthreads();
  asm volatile("tcgen05.fence::after_thread_sync;" ::: "memory");
  uint32_t tmem = tslot;
  if (t == 0) {
    asm volatile("{\n\t.reg .pred p;\n\tsetp.ne.b32 p, %4, 0;\n\t"
                 "tcgen05.mma.cta_group::1.kind::f16 [%0], %1, %2, %3, p;\n\t}"
                 :: "r"(tmem), "l"(desc_of(sa)), "l"(desc_of(sb)), "r"(idesc), "r"(0) : "memory");
    asm volatile("tcgen05.commit.cta_group::1.mbarrier::arrive::one.shared::cluster.b64 [%0];" :: "r"(smem_addr(&bar)) : "memory");
  }
  asm volatile("{\n\t.reg .pred p;\n\tW: mbarrier.try_wait.parity.shared::cta.b64 p, [%0], 0;\n\t@!p bra W;\n\t}" :: "r"(smem_addr(&bar)) : "memory");
  asm volatile("tcgen05.fence::after_thread_sync;" ::: "memory");
  uint32_t r0, r1, r2, r3;
  asm volatile("tcgen05.ld.sync.aligned.32x32b.x4.b32 {%0, %1, %2, %3}, [%4];"
               : "=r"(r0), "=r"(r1), "=r"(r2), "=r"(r3) : "r"(tmem + ((warp * 32) << 16)));
  asm volatile("tcgen05.wait::ld.sync.aligned;" ::: "memory");
  uint32_t h0, h1;
  asm volatile("tcgen05.ld.sync.aligned.16x128b.x1.b32 {%0, %1}, [%2];" : "=r"(h0), "=r"(h1) : "r"(tmem + 4));
  asm volatile("tcgen05.wait::ld.sync.aligned;" ::: "memory");
  asm volatile("tcgen05.st.sync.aligned.32x32b.x2.b32 [%0], {%1, %2};" :: "r"(tmem + 8), "r"(h0), "r"(h1) : "memory");
  asm volatile("tcgen05.wait::st.sync.aligned;" ::: "memory");
  if (t == 0) {
    asm volatile("tcgen05.cp.cta_group::1.128x256b [%0], %1;" :: "r"(tmem + 16), "l"(desc_of(sa)) : "memory");
    asm volatile("tcgen05.shift.cta_group::1.down [%0];" :: "r"(tmem + 16) : "memory");
  }
  float *o = c + t * 6;
  o[0] = __uint_as_float(r0); o[1] = __uint_as_float(r1); o[2] = __uint_as_float(r2); o[3] = __uint_as_float(r3);
  o[4] = __uint_as_float(h0); o[5] = __uint_as_float(h1);
  asm volatile("tcgen05.fence::before_thread_sync;" ::: "memory");
  __syncthreads();
  if (warp == 0) asm volatile("tcgen05.dealloc.cta_group::1.sync.aligned.b32 %0, 128;" :: "r"(tmem) : "memory");
}
