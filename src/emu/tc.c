/* tc.c -- the tensor-core engine (tc.h): a register-tiled double GEMM. Every D[m][n] is summed in
** the order k = 0, 1, ... onto its own value, exactly the loop `s = D; for k: s += a * b`: the
** tiles only change which sums run side by side, never the order within one, so the result is
** bit-identical to the naive loop (the products are exact, so a fused multiply-add would change
** nothing either). B is packed, a chunk of K at a time, into panels of TN rows laid out k-major,
** so the micro-kernel reads TN values of B with unit stride and four of A (one per row), and the
** compiler keeps the TM x TN sums in registers (two-wide SSE2 on x86-64). A chunk's sums go back
** to D and the next chunk continues from there: the same sequence of additions. */
#include "tc.h"
#include <string.h>

#define TM 4   /* rows of A per micro-tile */
#define TN 4   /* rows of B (columns of D) per micro-tile */
#define KC 256 /* k per chunk */

/* the TM x TN sums of one micro-tile over kc steps: rows ar[i][k] of A, bp[k * TN + j] */
static void micro(int kc, const double *const ar[TM], const double *__restrict bp,
                  double acc[TM][TN]) {
  const double *__restrict r0 = ar[0], *__restrict r1 = ar[1], *__restrict r2 = ar[2],
                           *__restrict r3 = ar[3];
  double c00 = acc[0][0], c01 = acc[0][1], c02 = acc[0][2], c03 = acc[0][3];
  double c10 = acc[1][0], c11 = acc[1][1], c12 = acc[1][2], c13 = acc[1][3];
  double c20 = acc[2][0], c21 = acc[2][1], c22 = acc[2][2], c23 = acc[2][3];
  double c30 = acc[3][0], c31 = acc[3][1], c32 = acc[3][2], c33 = acc[3][3];
  for (int k = 0; k < kc; k++) {
    const double *b = bp + (size_t)k * TN;
    double b0 = b[0], b1 = b[1], b2 = b[2], b3 = b[3];
    double a0 = r0[k], a1 = r1[k], a2 = r2[k], a3 = r3[k];
    c00 += a0 * b0;
    c01 += a0 * b1;
    c02 += a0 * b2;
    c03 += a0 * b3;
    c10 += a1 * b0;
    c11 += a1 * b1;
    c12 += a1 * b2;
    c13 += a1 * b3;
    c20 += a2 * b0;
    c21 += a2 * b1;
    c22 += a2 * b2;
    c23 += a2 * b3;
    c30 += a3 * b0;
    c31 += a3 * b1;
    c32 += a3 * b2;
    c33 += a3 * b3;
  }
  acc[0][0] = c00, acc[0][1] = c01, acc[0][2] = c02, acc[0][3] = c03;
  acc[1][0] = c10, acc[1][1] = c11, acc[1][2] = c12, acc[1][3] = c13;
  acc[2][0] = c20, acc[2][1] = c21, acc[2][2] = c22, acc[2][3] = c23;
  acc[3][0] = c30, acc[3][1] = c31, acc[3][2] = c32, acc[3][3] = c33;
}

/* rows [n0, n0 + n) (n <= TN) of B, columns [k0, k0 + kc), k-major into p[k * TN + j]; the rows
** past n are zeros (their sums are computed and dropped) */
static void pack_b(int n, int kc, const double *B, size_t ldb, int n0, int k0, double *p) {
  if (n < TN) memset(p, 0, sizeof(double) * (size_t)kc * TN);
  for (int j = 0; j < n; j++) {
    const double *x = B + (size_t)(n0 + j) * ldb + k0;
    for (int k = 0; k < kc; k++) p[(size_t)k * TN + (size_t)j] = x[k];
  }
}

void plX__tc_gemm(int M, int N, int K, const double *A, size_t lda, const double *B, size_t ldb,
                  double *D, size_t ldd) {
  static const double zero[KC]; /* the rows past M */
  double bp[TN * KC];
  if (M <= 0 || N <= 0 || K <= 0) return;
  for (int k0 = 0; k0 < K; k0 += KC) {
    int kc = K - k0 < KC ? K - k0 : KC;
    for (int n0 = 0; n0 < N; n0 += TN) {
      int nn = N - n0 < TN ? N - n0 : TN;
      pack_b(nn, kc, B, ldb, n0, k0, bp);
      for (int m0 = 0; m0 < M; m0 += TM) {
        int mm = M - m0 < TM ? M - m0 : TM;
        const double *ar[TM];
        double acc[TM][TN] = { { 0 } };
        for (int r = 0; r < TM; r++) ar[r] = r < mm ? A + (size_t)(m0 + r) * lda + k0 : zero;
        for (int r = 0; r < mm; r++)
          for (int j = 0; j < nn; j++) acc[r][j] = D[(size_t)(m0 + r) * ldd + (size_t)(n0 + j)];
        micro(kc, ar, bp, acc);
        for (int r = 0; r < mm; r++)
          for (int j = 0; j < nn; j++) D[(size_t)(m0 + r) * ldd + (size_t)(n0 + j)] = acc[r][j];
      }
    }
  }
}
