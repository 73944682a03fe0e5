/* tc.c -- the tensor-core engine (tc.h). */
#include "tc.h"

void plX__tc_gemm(int M, int N, int K, const double *A, size_t lda, const double *B, size_t ldb,
                  double *D, size_t ldd) {
  for (int m = 0; m < M; m++) {
    const double *a = A + (size_t)m * lda;
    double *d = D + (size_t)m * ldd;
    for (int n = 0; n < N; n++) {
      const double *b = B + (size_t)n * ldb;
      double s = 0;
      for (int k = 0; k < K; k++) s += a[k] * b[k];
      d[n] += s;
    }
  }
}
