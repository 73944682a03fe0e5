// nvcuda::wmma of every type CUDA's mma.h has: f16 (f16 and f32 accumulators, the three shapes),
// bf16, tf32, u8/s8, f64 (m8n8k4), and the experimental sub-byte s4/u4 (m8n8k32) and b1
// (m8n8k128, xor and and popc), row- and column-major fragments from global and shared memory.
#include <mma.h>
#include <cuda_fp16.h>
#include <cuda_bf16.h>
using namespace nvcuda;

template <typename AT, typename CT, int M, int N, int K, typename LA, typename LB>
__device__ void tile(const AT *a, const AT *b, CT *c, int lda, int ldb, int ldc) {
  wmma::fragment<wmma::matrix_a, M, N, K, AT, LA> fa;
  wmma::fragment<wmma::matrix_b, M, N, K, AT, LB> fb;
  wmma::fragment<wmma::accumulator, M, N, K, CT> fc;
  wmma::load_matrix_sync(fc, c, ldc, wmma::mem_row_major);
  wmma::load_matrix_sync(fa, a, lda);
  wmma::load_matrix_sync(fb, b, ldb);
  wmma::mma_sync(fc, fa, fb, fc);
  wmma::store_matrix_sync(c, fc, ldc, wmma::mem_col_major);
}

__global__ void wmma_f16(const half *a, const half *b, float *c, half *ch) {
  tile<half, float, 16, 16, 16, wmma::row_major, wmma::col_major>(a, b, c, 16, 16, 16);
  tile<half, half, 16, 16, 16, wmma::col_major, wmma::row_major>(a, b, ch, 16, 16, 16);
  tile<half, float, 32, 8, 16, wmma::row_major, wmma::row_major>(a, b, c, 16, 8, 8);
  tile<half, half, 8, 32, 16, wmma::col_major, wmma::col_major>(a, b, ch, 8, 16, 32);
}
__global__ void wmma_f16_shared(const half *a, const half *b, float *c) {
  __shared__ __align__(32) half sa[256], sb[256];
  __shared__ __align__(32) float sc[256];
  sa[threadIdx.x] = a[threadIdx.x]; sb[threadIdx.x] = b[threadIdx.x]; sc[threadIdx.x] = 0.f;
  __syncthreads();
  tile<half, float, 16, 16, 16, wmma::row_major, wmma::col_major>(sa, sb, sc, 16, 16, 16);
  __syncthreads();
  c[threadIdx.x] = sc[threadIdx.x];
}
#if __CUDA_ARCH__ >= 800
__global__ void wmma_bf16(const __nv_bfloat16 *a, const __nv_bfloat16 *b, float *c) {
  tile<__nv_bfloat16, float, 16, 16, 16, wmma::row_major, wmma::col_major>(a, b, c, 16, 16, 16);
  tile<__nv_bfloat16, float, 32, 8, 16, wmma::col_major, wmma::row_major>(a, b, c, 32, 8, 8);
  tile<__nv_bfloat16, float, 8, 32, 16, wmma::row_major, wmma::row_major>(a, b, c, 16, 32, 32);
}
__global__ void wmma_tf32(const float *a, const float *b, float *c) {
  wmma::fragment<wmma::matrix_a, 16, 16, 8, wmma::precision::tf32, wmma::row_major> fa;
  wmma::fragment<wmma::matrix_b, 16, 16, 8, wmma::precision::tf32, wmma::col_major> fb;
  wmma::fragment<wmma::accumulator, 16, 16, 8, float> fc;
  wmma::fill_fragment(fc, 0.f);
  wmma::load_matrix_sync(fa, a, 8);
  wmma::load_matrix_sync(fb, b, 8);
  for (int i = 0; i < fa.num_elements; i++) fa.x[i] = wmma::__float_to_tf32(fa.x[i]);
  wmma::mma_sync(fc, fa, fb, fc);
  wmma::store_matrix_sync(c, fc, 16, wmma::mem_row_major);
}
__global__ void wmma_f64(const double *a, const double *b, double *c) {
  tile<double, double, 8, 8, 4, wmma::row_major, wmma::col_major>(a, b, c, 4, 4, 8);
  tile<double, double, 8, 8, 4, wmma::col_major, wmma::row_major>(a, b, c, 8, 8, 8);
}
#endif
__global__ void wmma_int8(const signed char *a, const signed char *b, const unsigned char *ua, const unsigned char *ub, int *c) {
  tile<signed char, int, 16, 16, 16, wmma::row_major, wmma::col_major>(a, b, c, 16, 16, 16);
  tile<unsigned char, int, 32, 8, 16, wmma::row_major, wmma::col_major>(ua, ub, c, 16, 16, 8);
  tile<signed char, int, 8, 32, 16, wmma::col_major, wmma::row_major>(a, b, c, 8, 32, 32);
}
__global__ void wmma_subbyte(const void *a, const void *b, int *c) {
  using namespace wmma::experimental;
  wmma::fragment<wmma::matrix_a, 8, 8, 32, precision::s4, wmma::row_major> fa;
  wmma::fragment<wmma::matrix_b, 8, 8, 32, precision::s4, wmma::col_major> fb;
  wmma::fragment<wmma::accumulator, 8, 8, 32, int> fc;
  wmma::fill_fragment(fc, 0);
  wmma::load_matrix_sync(fa, a, 32);
  wmma::load_matrix_sync(fb, b, 32);
  wmma::mma_sync(fc, fa, fb, fc);
  wmma::fragment<wmma::matrix_a, 8, 8, 32, precision::u4, wmma::row_major> ua;
  wmma::fragment<wmma::matrix_b, 8, 8, 32, precision::u4, wmma::col_major> ub;
  wmma::load_matrix_sync(ua, a, 32);
  wmma::load_matrix_sync(ub, b, 32);
  wmma::mma_sync(fc, ua, ub, fc);
  wmma::fragment<wmma::matrix_a, 8, 8, 128, precision::b1, wmma::row_major> ba;
  wmma::fragment<wmma::matrix_b, 8, 8, 128, precision::b1, wmma::col_major> bb;
  wmma::load_matrix_sync(ba, a, 128);
  wmma::load_matrix_sync(bb, b, 128);
  wmma::fragment<wmma::accumulator, 8, 8, 128, int> bc;
  wmma::fill_fragment(bc, 0);
  wmma::bmma_sync(bc, ba, bb, bc, bmmaBitOpXOR);
  wmma::bmma_sync(bc, ba, bb, bc, bmmaBitOpAND);
  wmma::store_matrix_sync(c, fc, 8, wmma::mem_row_major);
  wmma::store_matrix_sync(c + 64, bc, 8, wmma::mem_col_major);
}
