// thread-block clusters (sm_90) through CUDA C and inline PTX: cluster special registers,
// mapa / getctarank into a neighbour's shared memory, the cluster barrier, elect.sync
// (tests/spec/parse_spec.lua)
#include <cstdint>

extern "C" __global__ void __cluster_dims__(2, 1, 1) cluster_exchange(int *out) {
  __shared__ int mine[64];
  uint32_t rank, nrank, cid;
  asm("mov.u32 %0, %%cluster_ctarank;" : "=r"(rank));
  asm("mov.u32 %0, %%cluster_nctarank;" : "=r"(nrank));
  asm("mov.u32 %0, %%clusterid.x;" : "=r"(cid));
  mine[threadIdx.x] = (int)(rank * 1000 + threadIdx.x);
  asm volatile("barrier.cluster.arrive.release.aligned;\n\tbarrier.cluster.wait.acquire.aligned;" ::: "memory");
  uint32_t local = static_cast<uint32_t>(__cvta_generic_to_shared(&mine[threadIdx.x]));
  uint32_t remote, owner;
  asm("mapa.shared::cluster.u32 %0, %1, %2;" : "=r"(remote) : "r"(local), "r"((rank + 1) % nrank));
  asm("getctarank.shared::cluster.u32 %0, %1;" : "=r"(owner) : "r"(remote));
  int v;
  asm volatile("ld.shared::cluster.u32 %0, [%1];" : "=r"(v) : "r"(remote) : "memory");
  uint32_t leader;
  asm volatile("{\n\t.reg .pred p;\n\telect.sync _|p, 0xffffffff;\n\tselp.u32 %0, 1, 0, p;\n\t}" : "=r"(leader));
  out[(cid * nrank + rank) * 64 + threadIdx.x] = v + (int)owner + (int)leader;
  asm volatile("barrier.cluster.arrive.release.aligned;\n\tbarrier.cluster.wait.acquire.aligned;" ::: "memory");
}
