// TMA (sm_90) through inline PTX: a 2-D tile load cp.async.bulk.tensor completing on an
// mbarrier, a tile store back through a bulk group, a 1-D bulk copy and a tensor-map prefetch
// (tests/spec/parse_spec.lua)
#include <cstdint>
#include <cuda.h>

__device__ static inline uint32_t smem_addr(const void *p) { return static_cast<uint32_t>(__cvta_generic_to_shared(p)); }

extern "C" __global__ void tma_tile_copy(const __grid_constant__ CUtensorMap src, const __grid_constant__ CUtensorMap dst,
                                         const float *lin, float *lout, int x, int y) {
  __shared__ __align__(128) float tile[32 * 32];
  __shared__ __align__(128) float line[256];
  __shared__ __align__(8) uint64_t bar;
  uint32_t b = smem_addr(&bar), s = smem_addr(tile), l = smem_addr(line);
  uint64_t sm = reinterpret_cast<uint64_t>(&src), dm = reinterpret_cast<uint64_t>(&dst);
  if (threadIdx.x == 0) {
    asm volatile("prefetch.tensormap [%0];" :: "l"(sm) : "memory");
    asm volatile("mbarrier.init.shared::cta.b64 [%0], 1;" :: "r"(b) : "memory");
    asm volatile("fence.proxy.async.shared::cta;" ::: "memory");
    asm volatile("mbarrier.arrive.expect_tx.shared::cta.b64 _, [%0], %1;" :: "r"(b), "r"(32 * 32 * 4 + 1024) : "memory");
    asm volatile("cp.async.bulk.tensor.2d.shared::cluster.global.tile.mbarrier::complete_tx::bytes [%0], [%1, {%2, %3}], [%4];"
                 :: "r"(s), "l"(sm), "r"(x), "r"(y), "r"(b) : "memory");
    asm volatile("cp.async.bulk.shared::cluster.global.mbarrier::complete_tx::bytes [%0], [%1], 1024, [%2];"
                 :: "r"(l), "l"(lin), "r"(b) : "memory");
  }
  __syncthreads();
  asm volatile("{\n\t.reg .pred p;\n\tW: mbarrier.try_wait.parity.shared::cta.b64 p, [%0], 0;\n\t@!p bra W;\n\t}" :: "r"(b) : "memory");
  for (int i = threadIdx.x; i < 32 * 32; i += blockDim.x) tile[i] *= 2.0f;
  asm volatile("fence.proxy.async.shared::cta;" ::: "memory");
  __syncthreads();
  if (threadIdx.x == 0) {
    asm volatile("cp.async.bulk.tensor.2d.global.shared::cta.tile.bulk_group [%0, {%1, %2}], [%3];" :: "l"(dm), "r"(x), "r"(y), "r"(s) : "memory");
    asm volatile("cp.async.bulk.global.shared::cta.bulk_group [%0], [%1], 1024;" :: "l"(lout), "r"(l) : "memory");
    asm volatile("cp.async.bulk.commit_group;" ::: "memory");
    asm volatile("cp.async.bulk.wait_group.read 0;" ::: "memory");
  }
}
