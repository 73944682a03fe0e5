// mbarrier (sm_90) through inline PTX: init, arrive with a transaction count, expect_tx,
// complete_tx, try_wait.parity in a loop, inval; a producer/consumer hand-off in one CTA
// (tests/spec/parse_spec.lua)
#include <cstdint>

__device__ static inline uint32_t smem_addr(const void *p) { return static_cast<uint32_t>(__cvta_generic_to_shared(p)); }

extern "C" __global__ void mbarrier_handoff(const int *in, int *out) {
  __shared__ __align__(8) uint64_t bar;
  __shared__ int slot[32];
  uint32_t b = smem_addr(&bar);
  if (threadIdx.x == 0) {
    asm volatile("mbarrier.init.shared::cta.b64 [%0], %1;" :: "r"(b), "r"(32) : "memory");
    asm volatile("fence.mbarrier_init.release.cluster;" ::: "memory");
  }
  __syncthreads();
  slot[threadIdx.x] = in[threadIdx.x] * 3;
  uint64_t state;
  if (threadIdx.x == 0) asm volatile("mbarrier.expect_tx.relaxed.cta.shared::cta.b64 [%0], %1;" :: "r"(b), "r"(0) : "memory");
  asm volatile("mbarrier.arrive.release.cta.shared::cta.b64 %0, [%1];" : "=l"(state) : "r"(b) : "memory");
  uint32_t done = 0;
  while (!done) {
    asm volatile("{\n\t.reg .pred p;\n\tmbarrier.try_wait.parity.acquire.cta.shared::cta.b64 p, [%1], %2;\n\tselp.u32 %0, 1, 0, p;\n\t}"
                 : "=r"(done) : "r"(b), "r"(0) : "memory");
  }
  uint32_t pending;
  asm volatile("mbarrier.pending_count.b64 %0, %1;" : "=r"(pending) : "l"(state));
  out[threadIdx.x] = slot[31 - threadIdx.x] + (int)pending;
  __syncthreads();
  if (threadIdx.x == 0) asm volatile("mbarrier.inval.shared::cta.b64 [%0];" :: "r"(b) : "memory");
}
