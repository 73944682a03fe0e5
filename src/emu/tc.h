/* tc.h -- the tensor-core engine: the one product behind mma.sync, wgmma and tcgen05.mma (tc.c).
** Each instruction gathers its operands into double matrices (its element formats decoded, its
** negations applied), calls the engine, then rounds D once to its type. Doubles hold every
** product of the tensor-core formats exactly (bf16, f16, tf32, fp8/6/4 and 8-bit integers), and
** the integer kinds' sums exactly (8-bit products summed over K <= 256 stay below 2^53). */
#ifndef PL_EMU_TC_H
#define PL_EMU_TC_H

#include <stddef.h>
#include <stdint.h>

/* D[m][n] += sum_k A[m][k] * B[n][k] for m < M, n < N, k < K: row m of A at A + m * lda, row n
** of B at B + n * ldb (B is N x K: the K-contiguous "column" form every operand is gathered in),
** row m of D at D + m * ldd. */
void plX__tc_gemm(int M, int N, int K, const double *A, size_t lda, const double *B, size_t ldb,
                  double *D, size_t ldd);

/* wgmma's f32 accumulators of one warp in place: R[i] (i < N / 2) the 32 lanes of accumulator
** register i (f32 in the low word), D[8 h + g][8 c + 2 q + x] in lane 4 g + q of register
** 4 c + 2 h + x; D (zero: from 0) += A B^T as plX__tc_gemm sums it, A 16 x K (lda K), B N x K;
** then each rounded once to f32. 0: not done (no SSE2, or a shape it does not take: K > 32,
** N % 8), the caller goes through plX__tc_gemm. */
int plX__tc_wgmma_f32(int N, int K, const double *A, const double *B, size_t ldb,
                      uint64_t *const *R, int zero);

#endif
