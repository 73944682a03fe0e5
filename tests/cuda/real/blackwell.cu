// blackwell.cu -- tcgen05, cluster launch control and the sm_100 TMA forms through inline PTX
// and libcu++'s cuda::ptx wrappers, as a persistent Blackwell GEMM writes them (nvcc output for
// the lint and round-trip checks of tests/spec/real_ptx_spec.lua)
#include <cuda/ptx>
#include <cstdint>
#include <cudaTypedefs.h>
namespace ptx = cuda::ptx;

__device__ __forceinline__ uint32_t smem_u32(const void *p) {
  return static_cast<uint32_t>(__cvta_generic_to_shared(p));
}

// a persistent loop: ask the scheduler for the next cluster, decode the response
__global__ void __cluster_dims__(2, 1, 1) clc_loop(int *out) {
  __shared__ alignas(16) uint4 resp;
  __shared__ alignas(8) uint64_t bar;
  int tile = blockIdx.x;
  if (threadIdx.x == 0) ptx::mbarrier_init(&bar, 1);
  __syncthreads();
  for (int phase = 0;; phase ^= 1) {
    out[tile] = tile;
    if (threadIdx.x == 0) {
      ptx::clusterlaunchcontrol_try_cancel(&resp, &bar);
      ptx::mbarrier_arrive_expect_tx(ptx::sem_release, ptx::scope_cta, ptx::space_shared, &bar, 16);
    }
    while (!ptx::mbarrier_try_wait_parity(&bar, phase)) {}
    uint4 r;
    asm volatile("ld.shared.b128 %0, [%1];" : "=q"(*reinterpret_cast<__int128 *>(&r)) : "r"(smem_u32(&resp)));
    __int128 h = *reinterpret_cast<__int128 *>(&r);
    if (!ptx::clusterlaunchcontrol_query_cancel_is_canceled(h)) break;
    tile = ptx::clusterlaunchcontrol_query_cancel_get_first_ctaid_x<int>(h);
    uint32_t x, y, z, w;
    asm volatile("clusterlaunchcontrol.query_cancel.get_first_ctaid.v4.b32.b128 {%0, %1, %2, %3}, %4;"
                 : "=r"(x), "=r"(y), "=r"(z), "=r"(w) : "q"(h));
    out[tile + 1024] = x + y + z + w;
  }
}

// the multicast response (arch- and family-specific targets)
__global__ void __cluster_dims__(2, 1, 1) clc_multicast(int *out) {
  __shared__ alignas(16) uint4 resp;
  __shared__ alignas(8) uint64_t bar;
  if (threadIdx.x == 0) {
    ptx::mbarrier_init(&bar, 1);
    asm volatile("clusterlaunchcontrol.try_cancel.async.shared::cta.mbarrier::complete_tx::bytes.multicast::cluster::all.b128 [%0], [%1];"
                 :: "r"(smem_u32(&resp)), "r"(smem_u32(&bar)) : "memory");
  }
  __syncthreads();
  out[threadIdx.x] = resp.x;
}

// one tile of a 1-CTA GEMM: alloc, TMA loads, MMAs of several kinds, commit, ld, dealloc
__global__ void mma_tile(const __grid_constant__ CUtensorMap tmap, float *out, uint64_t adesc, uint64_t bdesc,
                         uint32_t idesc, int kiters) {
  __shared__ alignas(1024) uint8_t tiles[2 * 16384];
  __shared__ alignas(8) uint64_t full, done;
  __shared__ uint32_t slot;
  int warp = threadIdx.x / 32;
  if (warp == 0) {
    asm volatile("tcgen05.alloc.cta_group::1.sync.aligned.shared::cta.b32 [%0], 256;" :: "r"(smem_u32(&slot)));
    asm volatile("tcgen05.relinquish_alloc_permit.cta_group::1.sync.aligned;");
  }
  if (threadIdx.x == 0) { ptx::mbarrier_init(&full, 1); ptx::mbarrier_init(&done, 1); }
  asm volatile("tcgen05.fence::before_thread_sync;");
  __syncthreads();
  asm volatile("tcgen05.fence::after_thread_sync;");
  uint32_t tmem = slot;
  if (threadIdx.x == 0) {
    for (int k = 0; k < kiters; k++) {
      asm volatile("cp.async.bulk.tensor.2d.shared::cta.global.tile.mbarrier::complete_tx::bytes.cta_group::1 [%0], [%1, {%2, %3}], [%4];"
                   :: "r"(smem_u32(tiles)), "l"(reinterpret_cast<uint64_t>(&tmap)), "r"(k * 64), "r"(0), "r"(smem_u32(&full)) : "memory");
      asm volatile("cp.async.bulk.tensor.2d.shared::cta.global.tile.mbarrier::complete_tx::bytes [%0], [%1, {%2, %3}], [%4];"
                   :: "r"(smem_u32(tiles + 16384)), "l"(reinterpret_cast<uint64_t>(&tmap)), "r"(k * 64), "r"(128), "r"(smem_u32(&full)) : "memory");
      ptx::mbarrier_arrive_expect_tx(ptx::sem_release, ptx::scope_cta, ptx::space_shared, &full, 32768);
      while (!ptx::mbarrier_try_wait_parity(&full, k & 1)) {}
      asm volatile("tcgen05.fence::after_thread_sync;");
      asm volatile("{\n\t.reg .pred p;\n\tsetp.ne.b32 p, %4, 0;\n\t"
                   "tcgen05.mma.cta_group::1.kind::f16 [%0], %1, %2, %3, p;\n\t}"
                   :: "r"(tmem), "l"(adesc + 2 * k), "l"(bdesc + 2 * k), "r"(idesc), "r"(k));
#if __CUDA_ARCH__ < 1100  // scale-input-d: the sm_100 family only
      asm volatile("{\n\t.reg .pred p;\n\tsetp.ne.b32 p, %4, 0;\n\t"
                   "tcgen05.mma.cta_group::1.kind::f16.collector::a::fill [%0], %1, %2, %3, {%5, %5, %5, %5}, p, 2;\n\t}"
                   :: "r"(tmem), "l"(adesc), "l"(bdesc), "r"(idesc), "r"(k), "r"(0u));
#endif
      asm volatile("{\n\t.reg .pred p;\n\tsetp.ne.b32 p, %4, 0;\n\t"
                   "tcgen05.mma.cta_group::1.kind::tf32.ashift.collector::a::lastuse [%0], [%1], %2, %3, p;\n\t}"
                   :: "r"(tmem), "r"(tmem + 128), "l"(bdesc), "r"(idesc), "r"(k));
      asm volatile("{\n\t.reg .pred p;\n\tsetp.ne.b32 p, %4, 0;\n\t"
                   "tcgen05.mma.sp.cta_group::1.kind::f8f6f4 [%0], %1, %2, [%5], %3, p;\n\t}"
                   :: "r"(tmem), "l"(adesc), "l"(bdesc), "r"(idesc), "r"(k), "r"(tmem + 192));
      asm volatile("{\n\t.reg .pred p;\n\tsetp.ne.b32 p, %4, 0;\n\t"
                   "tcgen05.mma.cta_group::1.kind::mxf8f6f4.block_scale.block32 [%0], %1, %2, %3, [%5], [%6], p;\n\t}"
                   :: "r"(tmem), "l"(adesc), "l"(bdesc), "r"(idesc), "r"(k), "r"(tmem + 224), "r"(tmem + 228));
#ifdef __CUDA_ARCH_SPECIFIC__  // .scale_vec::NX: the arch-specific targets only
      asm volatile("{\n\t.reg .pred p;\n\tsetp.ne.b32 p, %4, 0;\n\t"
                   "tcgen05.mma.cta_group::1.kind::mxf4nvf4.block_scale.scale_vec::4X [%0], %1, %2, %3, [%5], [%6], p;\n\t}"
                   :: "r"(tmem), "l"(adesc), "l"(bdesc), "r"(idesc), "r"(k), "r"(tmem + 232), "r"(tmem + 236));
#endif
      asm volatile("{\n\t.reg .pred p;\n\tsetp.ne.b32 p, %4, 0;\n\t"
                   "tcgen05.mma.ws.cta_group::1.kind::f16.collector::b1::use [%0], %1, %2, %3, p, %5;\n\t}"
                   :: "r"(tmem), "l"(adesc), "l"(bdesc), "r"(idesc), "r"(k), "l"(0ull));
      asm volatile("tcgen05.cp.cta_group::1.32x128b.warpx4.b8x16.b4x16_p64 [%0], %1;" :: "r"(tmem + 240), "l"(adesc));
      asm volatile("tcgen05.commit.cta_group::1.mbarrier::arrive::one.shared::cluster.b64 [%0];" :: "r"(smem_u32(&done)));
      while (!ptx::mbarrier_try_wait_parity(&done, k & 1)) {}
    }
  }
  __syncthreads();
  asm volatile("tcgen05.fence::after_thread_sync;");
  uint32_t v[8];
  asm volatile("tcgen05.ld.sync.aligned.32x32b.x8.b32 {%0, %1, %2, %3, %4, %5, %6, %7}, [%8];"
               : "=r"(v[0]), "=r"(v[1]), "=r"(v[2]), "=r"(v[3]), "=r"(v[4]), "=r"(v[5]), "=r"(v[6]), "=r"(v[7])
               : "r"(tmem + ((warp * 32) << 16)));
  asm volatile("tcgen05.wait::ld.sync.aligned;");
  for (int i = 0; i < 8; i++) out[threadIdx.x * 8 + i] = __uint_as_float(v[i]);
  asm volatile("tcgen05.fence::before_thread_sync;");
  __syncthreads();
  if (warp == 0) asm volatile("tcgen05.dealloc.cta_group::1.sync.aligned.b32 %0, 256;" :: "r"(tmem));
}

// a CTA pair: cta_group::2 throughout, the leader's MMA and a multicast commit
__global__ void __cluster_dims__(2, 1, 1) pair_tile(const __grid_constant__ CUtensorMap tmap, uint64_t adesc,
                                                    uint64_t bdesc, uint32_t idesc, float *out) {
  __shared__ alignas(1024) uint8_t tile[16384];
  __shared__ alignas(8) uint64_t full, done;
  __shared__ uint32_t slot;
  if (threadIdx.x < 32)
    asm volatile("tcgen05.alloc.cta_group::2.sync.aligned.shared::cta.b32 [%0], 128;" :: "r"(smem_u32(&slot)));
  if (threadIdx.x == 0) { ptx::mbarrier_init(&full, 1); ptx::mbarrier_init(&done, 1); }
  asm volatile("tcgen05.fence::before_thread_sync;");
  __syncthreads();
  asm volatile("tcgen05.fence::after_thread_sync;");
  uint32_t tmem = slot;
  uint32_t rank;
  asm volatile("mov.u32 %0, %%cluster_ctarank;" : "=r"(rank));
  if (threadIdx.x == 0) {
    asm volatile("cp.async.bulk.tensor.2d.shared::cluster.global.tile.mbarrier::complete_tx::bytes.cta_group::2 [%0], [%1, {%2, %3}], [%4];"
                 :: "r"(smem_u32(tile)), "l"(reinterpret_cast<uint64_t>(&tmap)), "r"(0), "r"(int(rank) * 128), "r"(smem_u32(&full) & 0xFEFFFFFF) : "memory");
    if (rank == 0) {
      ptx::mbarrier_arrive_expect_tx(ptx::sem_release, ptx::scope_cta, ptx::space_shared, &full, 32768);
      while (!ptx::mbarrier_try_wait_parity(&full, 0)) {}
      asm volatile("{\n\t.reg .pred p;\n\tsetp.ne.b32 p, %4, 0;\n\t"
                   "tcgen05.mma.cta_group::2.kind::f16 [%0], %1, %2, %3, {%5, %5, %5, %5, %5, %5, %5, %5}, p;\n\t}"
                   :: "r"(tmem), "l"(adesc), "l"(bdesc), "r"(idesc), "r"(0), "r"(0u));
      uint16_t mask = 3;
      asm volatile("tcgen05.commit.cta_group::2.mbarrier::arrive::one.shared::cluster.multicast::cluster.b64 [%0], %1;"
                   :: "r"(smem_u32(&done)), "h"(mask));
    }
  }
  while (!ptx::mbarrier_try_wait_parity(&done, 0)) {}
  asm volatile("tcgen05.fence::after_thread_sync;");
  uint32_t v;
  asm volatile("tcgen05.ld.sync.aligned.16x64b.x1.b32 {%0}, [%1];" : "=r"(v) : "r"(tmem));
  asm volatile("tcgen05.wait::ld.sync.aligned;");
  out[threadIdx.x] = __uint_as_float(v);
  asm volatile("barrier.cluster.arrive.release.aligned;\n\tbarrier.cluster.wait.acquire.aligned;");
  if (threadIdx.x < 32) asm volatile("tcgen05.dealloc.cta_group::2.sync.aligned.b32 %0, 128;" :: "r"(tmem));
}
