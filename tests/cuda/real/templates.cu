// Templates and warp-level code in the style of CUTLASS / CUB / llm.c: a templated block reduction,
// a vectorized elementwise kernel over half, bf16, float and double, a softmax row kernel with
// warp shuffles, and cooperative groups (tiles, reduce, coalesced groups, grid sync under -rdc).
// tests/spec/real_ptx_spec.lua: compiled by nvcc for several targets and flags, linted, assembled.
#include <cuda_fp16.h>
#include <cuda_bf16.h>
#include <cooperative_groups.h>
#include <cooperative_groups/reduce.h>
namespace cg = cooperative_groups;

template <typename T> struct Sum { __device__ T operator()(T a, T b) const { return a + b; } };
template <typename T> struct Max { __device__ T operator()(T a, T b) const { return a > b ? a : b; } };

template <typename T, typename Op, int WARPS>
__device__ T block_reduce(T v, Op op) {
  __shared__ T part[WARPS];
  int lane = threadIdx.x % 32, warp = threadIdx.x / 32;
#pragma unroll
  for (int o = 16; o > 0; o >>= 1) v = op(v, __shfl_xor_sync(0xffffffffu, v, o));
  if (lane == 0) part[warp] = v;
  __syncthreads();
  v = lane < WARPS ? part[lane] : T(0);
  if (warp == 0) {
#pragma unroll
    for (int o = WARPS / 2; o > 0; o >>= 1) v = op(v, __shfl_down_sync(0xffffffffu, v, o));
  }
  return v;
}

template <typename T, int WARPS>
__global__ void reduce_kernel(const T *__restrict__ x, T *out, long n) {
  T acc = T(0);
  for (long i = blockIdx.x * (long)blockDim.x + threadIdx.x; i < n; i += (long)gridDim.x * blockDim.x) acc += __ldg(&x[i]);
  acc = block_reduce<T, Sum<T>, WARPS>(acc, Sum<T>());
  if (threadIdx.x == 0) atomicAdd(out, acc);
}
template __global__ void reduce_kernel<float, 8>(const float *, float *, long);
template __global__ void reduce_kernel<double, 4>(const double *, double *, long);
template __global__ void reduce_kernel<int, 8>(const int *, int *, long);
template __global__ void reduce_kernel<unsigned long long, 8>(const unsigned long long *, unsigned long long *, long);

// vectorized: 128-bit loads and stores, streaming hints
template <typename T>
__global__ void axpby(const T *__restrict__ a, const T *__restrict__ b, T *c, T alpha, T beta, int n) {
  int i = (blockIdx.x * blockDim.x + threadIdx.x) * 4;
  if (i + 3 < n) {
    const float4 va = __ldcs(reinterpret_cast<const float4 *>(a + i));
    const float4 vb = __ldg(reinterpret_cast<const float4 *>(b + i));
    const T *pa = reinterpret_cast<const T *>(&va), *pb = reinterpret_cast<const T *>(&vb);
    T r[sizeof(float4) / sizeof(T)];
#pragma unroll
    for (int k = 0; k < (int)(sizeof(float4) / sizeof(T)); k++) r[k] = alpha * pa[k] + beta * pb[k];
    __stcs(reinterpret_cast<float4 *>(c + i), *reinterpret_cast<float4 *>(r));
  } else {
    for (; i < n; i++) c[i] = alpha * a[i] + beta * b[i];
  }
}
template __global__ void axpby<float>(const float *, const float *, float *, float, float, int);
template __global__ void axpby<double>(const double *, const double *, double *, double, double, int);
template __global__ void axpby<__half>(const __half *, const __half *, __half *, __half, __half, int);
template __global__ void axpby<__nv_bfloat16>(const __nv_bfloat16 *, const __nv_bfloat16 *, __nv_bfloat16 *, __nv_bfloat16, __nv_bfloat16, int);

// softmax over rows, one warp a row, llm.c style (expf, max-subtract, half2 math for the store)
__global__ void softmax_rows(const float *__restrict__ x, __half2 *y, int rows, int cols) {
  cg::thread_block blk = cg::this_thread_block();
  cg::thread_block_tile<32> warp = cg::tiled_partition<32>(blk);
  int row = blockIdx.x * (blockDim.x / 32) + warp.meta_group_rank();
  if (row >= rows) return;
  const float *xr = x + (long)row * cols;
  float m = -INFINITY;
  for (int i = warp.thread_rank(); i < cols; i += 32) m = fmaxf(m, xr[i]);
  m = cg::reduce(warp, m, cg::greater<float>());
  float s = 0.f;
  for (int i = warp.thread_rank(); i < cols; i += 32) s += __expf(xr[i] - m);
  s = cg::reduce(warp, s, cg::plus<float>());
  float inv = __frcp_rn(s);
  for (int i = warp.thread_rank() * 2; i + 1 < cols; i += 64) {
    float2 v = make_float2(__expf(xr[i] - m) * inv, __expf(xr[i + 1] - m) * inv);
    y[((long)row * cols + i) / 2] = __hmul2(__float22half2_rn(v), __float2half2_rn(1.0f));
  }
}

// coalesced groups and tiles of 4 and 16: votes, ballots, match, labeled partitions
__global__ void groups(const int *keys, int *out, unsigned *ballots) {
  int k = keys[blockIdx.x * blockDim.x + threadIdx.x];
  if (k & 1) {
    cg::coalesced_group active = cg::coalesced_threads();
    int rank = active.thread_rank();
    int total = cg::reduce(active, k, cg::plus<int>());
    if (rank == 0) atomicAdd(out, total);
  }
  cg::thread_block_tile<4> t4 = cg::tiled_partition<4>(cg::this_thread_block());
  cg::thread_block_tile<16> t16 = cg::tiled_partition<16>(cg::this_thread_block());
  int any = t4.any(k > 10), all = t16.all(k > 0);
  unsigned b = t16.ballot(k == 3);
  unsigned same = __match_any_sync(__activemask(), k);
  int pred;
  unsigned eq = __match_all_sync(0xffffffffu, k, &pred);
  ballots[threadIdx.x] = b ^ same ^ eq ^ (unsigned)(any + all + pred) ^ __reduce_add_sync(0xffffffffu, (unsigned)k)
                         ^ (unsigned)__reduce_max_sync(0xffffffffu, k) ^ __reduce_or_sync(0xffffffffu, (unsigned)k);
}

// integer and float intrinsics a kernel library uses
__global__ void intrinsics(const unsigned *a, unsigned long long *b, float *f, double *d) {
  unsigned x = a[threadIdx.x], y = a[threadIdx.x + 1];
  unsigned r = __funnelshift_l(x, y, x & 31) + __funnelshift_rc(x, y, 7) + __byte_perm(x, y, 0x5140) + __brev(x)
             + __popc(x) + __clz(y) + __ffs(x) + __usad(x, y, 3) + __umulhi(x, y) + __vabsdiffu4(x, y)
             + __dp4a(x, y, 1u) + __dp2a_lo(x, y, 2u) + __sad(int(x), int(y), 1u) + x / (y | 1) + x % (y | 3);
  unsigned long long w = __umul64hi(b[threadIdx.x], b[threadIdx.x + 1]) + __popcll(b[0]) + __brevll(b[1]) + __clzll(b[2]);
  b[threadIdx.x] = w + r;
  float v = f[threadIdx.x];
  f[threadIdx.x] = __fdividef(v, 3.0f) + __sinf(v) + __cosf(v) + __log2f(v) + __exp10f(v) + rsqrtf(v) + __fsqrt_rn(v)
                 + __fmaf_rz(v, v, 1.f) + __saturatef(v) + truncf(v) + roundf(v) + copysignf(v, -1.f) + tanhf(v) + erff(v);
  double e = d[threadIdx.x];
  d[threadIdx.x] = __dadd_rn(e, 1.0) + __dmul_ru(e, e) + __fma_rd(e, e, e) + sqrt(e) + rsqrt(e) + rcbrt(e) + __ddiv_rz(e, 3.0) + exp(e);
}

// a grid-wide barrier (cooperative launch; needs -rdc for the grid group's sync)
#if defined(RDC)
__global__ void grid_sync_kernel(float *x, int n) {
  cg::grid_group g = cg::this_grid();
  for (int i = g.thread_rank(); i < n; i += g.size()) x[i] *= 2.f;
  g.sync();
  for (int i = g.thread_rank(); i < n; i += g.size()) x[i] += x[(i + 1) % n];
}
#endif
