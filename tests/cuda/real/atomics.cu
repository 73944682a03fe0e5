// Atomics and memory orders as kernel libraries write them: cuda::atomic_ref with each order and
// scope, the __nv_atomic builtins, legacy atomicXxx of every type (half2, bf16x2, double, 64-bit
// CAS loops), volatile flags, fences, and inline PTX in the orders DeepGEMM and FlashAttention use
// (atom.add.release.gpu..., red.and.release.cta..., ld.acquire.gpu...).
#include <cuda/atomic>
#include <cuda_fp16.h>
#include <cuda_bf16.h>

__global__ void atomic_ref_orders(int *ci, unsigned long long *cu, float *cf, int *flag) {
  cuda::atomic_ref<int, cuda::thread_scope_device> a(ci[0]);
  cuda::atomic_ref<int, cuda::thread_scope_block> b(ci[1]);
  cuda::atomic_ref<int, cuda::thread_scope_system> s(ci[2]);
  cuda::atomic_ref<unsigned long long, cuda::thread_scope_device> u(cu[0]);
  cuda::atomic_ref<float, cuda::thread_scope_device> f(cf[0]);
  a.fetch_add(1, cuda::memory_order_relaxed);
  a.fetch_add(2, cuda::memory_order_release);
  a.fetch_sub(3, cuda::memory_order_acquire);
  a.fetch_and(4, cuda::memory_order_acq_rel);
  a.fetch_or(5, cuda::memory_order_seq_cst);
  b.fetch_xor(6, cuda::memory_order_relaxed);
  b.fetch_max(7, cuda::memory_order_release);
  s.fetch_min(8, cuda::memory_order_acquire);
  int expected = 0;
  a.compare_exchange_strong(expected, 9, cuda::memory_order_acq_rel);
  b.exchange(10, cuda::memory_order_seq_cst);
  u.fetch_add(11ull, cuda::memory_order_release);
  f.fetch_add(1.5f, cuda::memory_order_relaxed);
  a.store(12, cuda::memory_order_release);
  int v = a.load(cuda::memory_order_acquire) + b.load(cuda::memory_order_seq_cst) + s.load(cuda::memory_order_relaxed);
  cuda::atomic_thread_fence(cuda::memory_order_seq_cst, cuda::thread_scope_device);
  cuda::atomic_thread_fence(cuda::memory_order_acq_rel, cuda::thread_scope_block);
  flag[threadIdx.x] = v;
}

__global__ void nv_atomic_builtins(int *p, unsigned *q, float *f) {
  __nv_atomic_fetch_add(p, 1, __NV_ATOMIC_RELAXED, __NV_THREAD_SCOPE_DEVICE);
  __nv_atomic_fetch_or(q, 2u, __NV_ATOMIC_RELEASE, __NV_THREAD_SCOPE_BLOCK);
  __nv_atomic_fetch_max(p + 1, 3, __NV_ATOMIC_ACQUIRE, __NV_THREAD_SCOPE_SYSTEM);
  int e = 0, d = 4;
  __nv_atomic_compare_exchange(p + 2, &e, &d, false, __NV_ATOMIC_ACQ_REL, __NV_ATOMIC_ACQUIRE, __NV_THREAD_SCOPE_DEVICE);
  __nv_atomic_store_n(p + 3, 5, __NV_ATOMIC_RELEASE, __NV_THREAD_SCOPE_DEVICE);
  f[threadIdx.x] = (float)__nv_atomic_load_n(p + 3, __NV_ATOMIC_ACQUIRE, __NV_THREAD_SCOPE_DEVICE);
  __nv_atomic_thread_fence(__NV_ATOMIC_SEQ_CST, __NV_THREAD_SCOPE_SYSTEM);
}

__device__ double atomic_max_double(double *addr, double v) {     // a CAS loop on the bits
  unsigned long long *p = (unsigned long long *)addr, old = *p, assumed;
  do {
    assumed = old;
    if (__longlong_as_double(assumed) >= v) break;
    old = atomicCAS(p, assumed, __double_as_longlong(v));
  } while (assumed != old);
  return __longlong_as_double(old);
}

__global__ void legacy_atomics(float *f, double *d, __half2 *h, __nv_bfloat162 *b, unsigned *u, unsigned long long *l,
                               int *i, unsigned short *us) {
  __shared__ unsigned sh[32];
  sh[threadIdx.x % 32] = 0;
  __syncthreads();
  atomicAdd(f, 1.f); atomicAdd(d, 2.0); atomicAdd(h, __float2half2_rn(1.f)); atomicAdd(b, __float2bfloat162_rn(1.f));
  atomicAdd(u, 1u); atomicAdd(l, 1ull); atomicSub(i, 3); atomicExch(u + 1, 7u); atomicExch(f + 1, 2.f);
  atomicMin(i + 1, 4); atomicMax(i + 2, 5); atomicMin(l + 1, 6ull); atomicMax((long long *)l + 2, 7ll);
  atomicInc(u + 2, 100u); atomicDec(u + 3, 100u); atomicAnd(u + 4, 0xf0u); atomicOr(u + 5, 1u); atomicXor(l + 3, 3ull);
  atomicCAS(i + 3, 0, 1); atomicCAS(l + 4, 0ull, 1ull); atomicCAS(us, (unsigned short)0, (unsigned short)1);
  atomicAdd_block(f + 2, 1.f); atomicAdd_system(f + 3, 1.f); atomicOr_block(&sh[threadIdx.x % 32], 1u);
  atomic_max_double(d + 1, (double)threadIdx.x);
  __threadfence(); __threadfence_block(); __threadfence_system();
  u[8] = sh[(threadIdx.x + 1) % 32];
}

// inline PTX as DeepGEMM / FlashAttention-3 / fast.cu write it (modifier orders of their own)
__device__ __forceinline__ void red_release(int *p, int v) {
  asm volatile("red.release.gpu.global.add.s32 [%0], %1;" :: "l"(p), "r"(v) : "memory");
}
__global__ void ptx_orders(int *p, unsigned *q, int *flag) {
  int old;
  asm volatile("atom.add.release.gpu.global.s32 %0, [%1], %2;" : "=r"(old) : "l"(p), "r"(1) : "memory");
  asm volatile("atom.global.add.release.gpu.s32 %0, [%1], %2;" : "=r"(old) : "l"(p + 1), "r"(old) : "memory");
  asm volatile("red.and.release.cta.global.b32 [%0], %1;" :: "l"(q), "r"(0xffu) : "memory");
  asm volatile("red.global.or.relaxed.gpu.b32 [%0], %1;" :: "l"(q + 1), "r"(1u) : "memory");
  asm volatile("atom.acq_rel.sys.global.exch.b32 %0, [%1], %2;" : "=r"(old) : "l"(q + 2), "r"(old) : "memory");
  asm volatile("atom.relaxed.gpu.global.cas.b32 %0, [%1], %2, %3;" : "=r"(old) : "l"(q + 3), "r"(0), "r"(old) : "memory");
  red_release(p + 2, old);
  int seen;
  do { asm volatile("ld.acquire.gpu.global.b32 %0, [%1];" : "=r"(seen) : "l"(flag) : "memory"); } while (seen == 0);
  asm volatile("ld.global.acquire.gpu.b32 %0, [%1];" : "=r"(seen) : "l"(flag + 1) : "memory");
  asm volatile("st.release.gpu.global.b32 [%0], %1;" :: "l"(flag + 2), "r"(seen) : "memory");
  asm volatile("st.global.relaxed.sys.b32 [%0], %1;" :: "l"(flag + 3), "r"(seen) : "memory");
  asm volatile("ld.volatile.global.b32 %0, [%1];" : "=r"(seen) : "l"(flag + 4));
  asm volatile("fence.acq_rel.gpu;" ::: "memory");
  asm volatile("fence.sc.sys;" ::: "memory");
  asm volatile("membar.gl;" ::: "memory");
  volatile int *vf = flag + 5;
  while (*vf == 0) { __nanosleep(100); }
  flag[6] = seen + old;
}
