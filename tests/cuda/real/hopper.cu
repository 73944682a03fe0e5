// A Hopper warp-specialized GEMM main loop in the style of DeepGEMM, FlashAttention-3 and
// ThunderKittens: TMA loads into swizzled shared memory completing on mbarriers, a producer warp
// group that lowers its registers and a consumer that raises them, wgmma with descriptors,
// fences between the proxies, clusters (mapa, multicast, barrier.cluster), elect.sync, PDL
// (griddepcontrol), and libcu++'s cuda::barrier and cuda::memcpy_async on shared memory.
#include <cuda.h>
#include <cuda/barrier>
#include <cooperative_groups.h>
#include <stdint.h>
namespace cg = cooperative_groups;

__device__ __forceinline__ uint32_t smem(const void *p) { return (uint32_t)__cvta_generic_to_shared(p); }

__device__ __forceinline__ void mbar_init(uint64_t *bar, uint32_t count) {
  asm volatile("mbarrier.init.shared::cta.b64 [%0], %1;" :: "r"(smem(bar)), "r"(count));
}
__device__ __forceinline__ void mbar_expect_tx(uint64_t *bar, uint32_t bytes) {
  asm volatile("mbarrier.arrive.expect_tx.shared::cta.b64 _, [%0], %1;" :: "r"(smem(bar)), "r"(bytes));
}
__device__ __forceinline__ void mbar_wait(uint64_t *bar, uint32_t phase) {
  asm volatile("{\n\t.reg .pred P1;\n\tLAB_WAIT:\n\t"
               "mbarrier.try_wait.parity.shared::cta.b64 P1, [%0], %1, %2;\n\t"
               "@P1 bra DONE;\n\tbra LAB_WAIT;\n\tDONE:\n\t}" :: "r"(smem(bar)), "r"(phase), "r"(0x989680));
}
__device__ __forceinline__ void mbar_arrive_cluster(uint64_t *bar, uint32_t cta) {
  asm volatile("{\n\t.reg .b32 remAddr32;\n\tmapa.shared::cluster.u32 remAddr32, %0, %1;\n\t"
               "mbarrier.arrive.release.cluster.shared::cluster.b64 _, [remAddr32];\n\t}" :: "r"(smem(bar)), "r"(cta));
}
__device__ __forceinline__ void tma_load_2d(void *dst, const CUtensorMap *map, uint64_t *bar, int c0, int c1) {
  asm volatile("cp.async.bulk.tensor.2d.shared::cluster.global.tile.mbarrier::complete_tx::bytes [%0], [%1, {%3, %4}], [%2];"
               :: "r"(smem(dst)), "l"(map), "r"(smem(bar)), "r"(c0), "r"(c1) : "memory");
}
__device__ __forceinline__ void tma_load_2d_mc(void *dst, const CUtensorMap *map, uint64_t *bar, int c0, int c1, uint16_t mask) {
  asm volatile("cp.async.bulk.tensor.2d.shared::cluster.global.mbarrier::complete_tx::bytes.multicast::cluster.L2::cache_hint"
               " [%0], [%1, {%3, %4}], [%2], %5, %6;"
               :: "r"(smem(dst)), "l"(map), "r"(smem(bar)), "r"(c0), "r"(c1), "h"(mask), "l"(0x14F0000000000000ull) : "memory");
}
__device__ __forceinline__ void tma_store_2d(const CUtensorMap *map, const void *src, int c0, int c1) {
  asm volatile("cp.async.bulk.tensor.2d.global.shared::cta.bulk_group [%0, {%2, %3}], [%1];" :: "l"(map), "r"(smem(src)), "r"(c0), "r"(c1) : "memory");
  asm volatile("cp.async.bulk.commit_group;");
  asm volatile("cp.async.bulk.wait_group.read 0;" ::: "memory");
}
__device__ __forceinline__ uint64_t desc(const void *p) {      // a 128-byte-swizzle wgmma descriptor
  uint64_t a = smem(p);
  return ((a & 0x3FFFF) >> 4) | (1ull << 16) | (64ull << 32) | (1ull << 62);
}
__device__ __forceinline__ void wgmma_m64n64k16(float (&d)[32], uint64_t da, uint64_t db, int scale_d) {
  asm volatile("{\n.reg .pred p;\nsetp.ne.b32 p, %34, 0;\n"
    "wgmma.mma_async.sync.aligned.m64n64k16.f32.bf16.bf16 "
    "{%0, %1, %2, %3, %4, %5, %6, %7, %8, %9, %10, %11, %12, %13, %14, %15, "
    "%16, %17, %18, %19, %20, %21, %22, %23, %24, %25, %26, %27, %28, %29, %30, %31}, %32, %33, p, 1, 1, 0, 0;\n}\n"
    : "+f"(d[0]), "+f"(d[1]), "+f"(d[2]), "+f"(d[3]), "+f"(d[4]), "+f"(d[5]), "+f"(d[6]), "+f"(d[7]),
      "+f"(d[8]), "+f"(d[9]), "+f"(d[10]), "+f"(d[11]), "+f"(d[12]), "+f"(d[13]), "+f"(d[14]), "+f"(d[15]),
      "+f"(d[16]), "+f"(d[17]), "+f"(d[18]), "+f"(d[19]), "+f"(d[20]), "+f"(d[21]), "+f"(d[22]), "+f"(d[23]),
      "+f"(d[24]), "+f"(d[25]), "+f"(d[26]), "+f"(d[27]), "+f"(d[28]), "+f"(d[29]), "+f"(d[30]), "+f"(d[31])
    : "l"(da), "l"(db), "r"(scale_d));
}

template <int STAGES>
__global__ void __cluster_dims__(2, 1, 1) __launch_bounds__(384, 1)
ws_gemm(const __grid_constant__ CUtensorMap ma, const __grid_constant__ CUtensorMap mb, const __grid_constant__ CUtensorMap mc, int K) {
  extern __shared__ __align__(1024) uint8_t buf[];
  uint16_t *sA = (uint16_t *)buf, *sB = (uint16_t *)(buf + STAGES * 8192);
  float *sC = (float *)(buf + STAGES * 16384);
  __shared__ uint64_t full[STAGES], empty[STAGES];
  cg::cluster_group cluster = cg::this_cluster();
  int wg = threadIdx.x / 128, rank = cluster.block_rank();
  if (threadIdx.x == 0) {
    for (int s = 0; s < STAGES; s++) { mbar_init(&full[s], 1); mbar_init(&empty[s], 2); }
    asm volatile("fence.mbarrier_init.release.cluster;" ::: "memory");
    asm volatile("prefetch.tensormap [%0];" :: "l"(&ma) : "memory");
  }
  cluster.sync();
  asm volatile("griddepcontrol.wait;" ::: "memory");
  if (wg == 0) {                                   // producer
    asm volatile("setmaxnreg.dec.sync.aligned.u32 40;");
    uint32_t is_leader;
    asm volatile("{\n\t.reg .pred p;\n\telect.sync _|p, 0xffffffff;\n\tselp.u32 %0, 1, 0, p;\n\t}" : "=r"(is_leader));
    if (is_leader && threadIdx.x < 32) {
      for (int k = 0, s = 0, ph = 0; k < K / 64; k++, s = (s + 1) % STAGES, ph ^= (s == 0)) {
        mbar_wait(&empty[s], ph ^ 1);
        mbar_expect_tx(&full[s], 16384);
        tma_load_2d(sA + s * 4096, &ma, &full[s], k * 64, blockIdx.y * 64);
        tma_load_2d_mc(sB + s * 4096, &mb, &full[s], k * 64, blockIdx.x * 64, (uint16_t)(1 << rank));
      }
    }
  } else {                                         // consumers
    asm volatile("setmaxnreg.inc.sync.aligned.u32 232;");
    float acc[32] = {};
    for (int k = 0, s = 0, ph = 0; k < K / 64; k++, s = (s + 1) % STAGES, ph ^= (s == 0)) {
      mbar_wait(&full[s], ph);
      asm volatile("wgmma.fence.sync.aligned;" ::: "memory");
#pragma unroll
      for (int kk = 0; kk < 4; kk++) wgmma_m64n64k16(acc, desc(sA + s * 4096 + kk * 16), desc(sB + s * 4096 + kk * 16), k | kk);
      asm volatile("wgmma.commit_group.sync.aligned;" ::: "memory");
      asm volatile("wgmma.wait_group.sync.aligned 0;" ::: "memory");
      if (threadIdx.x % 128 == 0) mbar_arrive_cluster(&empty[s], rank ^ 1);
    }
    for (int i = 0; i < 32; i++) sC[(threadIdx.x - 128) * 32 + i] = acc[i];
    asm volatile("fence.proxy.async.shared::cta;" ::: "memory");
    asm volatile("bar.sync 1, 256;" ::: "memory");
    if (threadIdx.x == 128) tma_store_2d(&mc, sC, blockIdx.x * 64, blockIdx.y * 64);
  }
  asm volatile("griddepcontrol.launch_dependents;" ::: "memory");
  asm volatile("barrier.cluster.arrive.release.aligned;\n\tbarrier.cluster.wait.acquire.aligned;" ::: "memory");
}
template __global__ void ws_gemm<4>(const __grid_constant__ CUtensorMap, const __grid_constant__ CUtensorMap, const __grid_constant__ CUtensorMap, int);

// libcu++: cuda::barrier in shared memory (mbarrier) and cuda::memcpy_async (cp.async.bulk on sm_90)
__global__ void libcu_barrier(const float4 *in, float4 *out) {
  __shared__ __align__(16) float4 tile[256];
#pragma nv_diag_suppress static_var_with_dynamic_init
  __shared__ cuda::barrier<cuda::thread_scope_block> bar;
  if (threadIdx.x == 0) init(&bar, blockDim.x);
  __syncthreads();
  cuda::memcpy_async(tile, in + blockIdx.x * 256, cuda::aligned_size_t<16>(sizeof(tile)), bar);
  bar.arrive_and_wait();
  out[blockIdx.x * 256 + threadIdx.x] = tile[(threadIdx.x + 1) % 256];
}

// cluster distributed shared memory: read a neighbour's shared memory
__global__ void __cluster_dims__(4, 1, 1) dsmem(int *out) {
  __shared__ int v[128];
  cg::cluster_group c = cg::this_cluster();
  v[threadIdx.x] = threadIdx.x * (int)c.block_rank();
  c.sync();
  int *peer = c.map_shared_rank(v, (c.block_rank() + 1) % c.num_blocks());
  out[blockIdx.x * 128 + threadIdx.x] = peer[threadIdx.x] + (int)c.dim_blocks().x + (int)c.block_index().x;
  c.sync();
}
