/* tc.c -- the tensor-core engine (tc.h): a register-tiled double GEMM. Every D[m][n] is summed in
** the order k = 0, 1, ... onto its own value, exactly the loop `s = D; for k: s += a * b`: the
** tiles only change which sums run side by side, never the order within one, so the result is
** bit-identical to the naive loop (the products are exact, so a fused multiply-add would change
** nothing either). A is packed, a panel of TM rows and a chunk of K at a time, k-major (the TM
** values of one k side by side), once per chunk: an instruction's A is the small operand (16 rows
** for wgmma and mma.sync), so this is the cheap copy. The micro-kernel then reads the panel with
** unit stride and TN rows of B, each also with unit stride along k, and keeps the TM x TN sums in
** registers: on x86-64 as SSE2 pairs of rows (m, m + 1) of one column, the baseline instruction
** set, a multiply and an add per pair, never fused. A chunk's sums go back to D and the next
** chunk continues from there: the same sequence of additions. */
#include "tc.h"
#include <string.h>
#if defined(__SSE2__)
#include <emmintrin.h>
#endif

#define TM 4   /* rows of A (of D) per micro-tile */
#define TN 4   /* rows of B (columns of D) per micro-tile */
#define KC 256 /* k per chunk */

/* the TM x TN sums of one micro-tile over kc steps onto d[i * ldd + j]: ap[k * TM + i] (the packed
** panel of A), rows b[j][k] of B */
static void micro(int kc, const double *__restrict ap, const double *const b[TN], double *d,
                  size_t ldd) {
  const double *__restrict b0 = b[0], *__restrict b1 = b[1], *__restrict b2 = b[2],
                           *__restrict b3 = b[3];
  double *d0 = d, *d1 = d + ldd, *d2 = d + 2 * ldd, *d3 = d + 3 * ldd;
#if defined(__SSE2__)
  /* cJh: column J, rows 2h and 2h + 1 */
  __m128d c00 = _mm_loadh_pd(_mm_load_sd(d0 + 0), d1 + 0),
          c01 = _mm_loadh_pd(_mm_load_sd(d2 + 0), d3 + 0);
  __m128d c10 = _mm_loadh_pd(_mm_load_sd(d0 + 1), d1 + 1),
          c11 = _mm_loadh_pd(_mm_load_sd(d2 + 1), d3 + 1);
  __m128d c20 = _mm_loadh_pd(_mm_load_sd(d0 + 2), d1 + 2),
          c21 = _mm_loadh_pd(_mm_load_sd(d2 + 2), d3 + 2);
  __m128d c30 = _mm_loadh_pd(_mm_load_sd(d0 + 3), d1 + 3),
          c31 = _mm_loadh_pd(_mm_load_sd(d2 + 3), d3 + 3);
  for (int k = 0; k < kc; k++) {
    __m128d a0 = _mm_loadu_pd(ap + (size_t)k * TM), a1 = _mm_loadu_pd(ap + (size_t)k * TM + 2);
    __m128d x = _mm_load1_pd(b0 + k);
    c00 = _mm_add_pd(c00, _mm_mul_pd(a0, x));
    c01 = _mm_add_pd(c01, _mm_mul_pd(a1, x));
    x = _mm_load1_pd(b1 + k);
    c10 = _mm_add_pd(c10, _mm_mul_pd(a0, x));
    c11 = _mm_add_pd(c11, _mm_mul_pd(a1, x));
    x = _mm_load1_pd(b2 + k);
    c20 = _mm_add_pd(c20, _mm_mul_pd(a0, x));
    c21 = _mm_add_pd(c21, _mm_mul_pd(a1, x));
    x = _mm_load1_pd(b3 + k);
    c30 = _mm_add_pd(c30, _mm_mul_pd(a0, x));
    c31 = _mm_add_pd(c31, _mm_mul_pd(a1, x));
  }
  _mm_storel_pd(d0 + 0, c00), _mm_storeh_pd(d1 + 0, c00);
  _mm_storel_pd(d2 + 0, c01), _mm_storeh_pd(d3 + 0, c01);
  _mm_storel_pd(d0 + 1, c10), _mm_storeh_pd(d1 + 1, c10);
  _mm_storel_pd(d2 + 1, c11), _mm_storeh_pd(d3 + 1, c11);
  _mm_storel_pd(d0 + 2, c20), _mm_storeh_pd(d1 + 2, c20);
  _mm_storel_pd(d2 + 2, c21), _mm_storeh_pd(d3 + 2, c21);
  _mm_storel_pd(d0 + 3, c30), _mm_storeh_pd(d1 + 3, c30);
  _mm_storel_pd(d2 + 3, c31), _mm_storeh_pd(d3 + 3, c31);
#else
  double *dr[TM] = { d0, d1, d2, d3 };
  const double *br[TN] = { b0, b1, b2, b3 };
  double c[TM][TN];
  for (int i = 0; i < TM; i++)
    for (int j = 0; j < TN; j++) c[i][j] = dr[i][j];
  for (int k = 0; k < kc; k++)
    for (int i = 0; i < TM; i++)
      for (int j = 0; j < TN; j++) c[i][j] += ap[(size_t)k * TM + (size_t)i] * br[j][k];
  for (int i = 0; i < TM; i++)
    for (int j = 0; j < TN; j++) dr[i][j] = c[i][j];
#endif
}

/* rows [m0, m0 + m) (m <= TM) of A, columns [k0, k0 + kc), k-major into p[k * TM + i]; the rows
** past m are zeros (their sums are computed and dropped) */
static void pack_a(int m, int kc, const double *A, size_t lda, int m0, int k0, double *p) {
  if (m < TM) memset(p, 0, sizeof(double) * (size_t)kc * TM);
  for (int i = 0; i < m; i++) {
    const double *x = A + (size_t)(m0 + i) * lda + k0;
    for (int k = 0; k < kc; k++) p[(size_t)k * TM + (size_t)i] = x[k];
  }
}

void plX__tc_gemm(int M, int N, int K, const double *A, size_t lda, const double *B, size_t ldb,
                  double *D, size_t ldd) {
  static const double zero[KC]; /* the rows of B past N */
  double ap[TM * KC], t[TM * TN];
  if (M <= 0 || N <= 0 || K <= 0) return;
  for (int k0 = 0; k0 < K; k0 += KC) {
    int kc = K - k0 < KC ? K - k0 : KC;
    for (int m0 = 0; m0 < M; m0 += TM) {
      int mm = M - m0 < TM ? M - m0 : TM;
      pack_a(mm, kc, A, lda, m0, k0, ap);
      for (int n0 = 0; n0 < N; n0 += TN) {
        int nn = N - n0 < TN ? N - n0 : TN;
        const double *br[TN];
        for (int j = 0; j < TN; j++) br[j] = j < nn ? B + (size_t)(n0 + j) * ldb + k0 : zero;
        double *d = D + (size_t)m0 * ldd + (size_t)n0;
        if (mm == TM && nn == TN) {
          micro(kc, ap, br, d, ldd);
          continue;
        }
        /* a partial tile: through t, the cells past the edge dropped */
        memset(t, 0, sizeof t);
        for (int i = 0; i < mm; i++)
          for (int j = 0; j < nn; j++) t[i * TN + j] = d[(size_t)i * ldd + (size_t)j];
        micro(kc, ap, br, t, TN);
        for (int i = 0; i < mm; i++)
          for (int j = 0; j < nn; j++) d[(size_t)i * ldd + (size_t)j] = t[i * TN + j];
      }
    }
  }
}
