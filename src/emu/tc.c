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

#if defined(__SSE2__)
/* the k steps of one 4 x 4 micro-tile: c[2 j + h] holds column j, rows 2 h and 2 h + 1 (SSE2
** pairs), a[k * TM + i] the packed panel of A, bj[k] row j of B; a multiply then an add per pair,
** never fused, k in order */
static inline void mk_steps(int K, const double *__restrict a, const double *__restrict b0,
                            const double *__restrict b1, const double *__restrict b2,
                            const double *__restrict b3, __m128d c[8]) {
  __m128d c00 = c[0], c01 = c[1], c10 = c[2], c11 = c[3], c20 = c[4], c21 = c[5], c30 = c[6],
          c31 = c[7];
  for (int k = 0; k < K; k++, a += TM) {
    __m128d a0 = _mm_loadu_pd(a), a1 = _mm_loadu_pd(a + 2);
    __m128d y = _mm_load1_pd(b0 + k);
    c00 = _mm_add_pd(c00, _mm_mul_pd(a0, y));
    c01 = _mm_add_pd(c01, _mm_mul_pd(a1, y));
    y = _mm_load1_pd(b1 + k);
    c10 = _mm_add_pd(c10, _mm_mul_pd(a0, y));
    c11 = _mm_add_pd(c11, _mm_mul_pd(a1, y));
    y = _mm_load1_pd(b2 + k);
    c20 = _mm_add_pd(c20, _mm_mul_pd(a0, y));
    c21 = _mm_add_pd(c21, _mm_mul_pd(a1, y));
    y = _mm_load1_pd(b3 + k);
    c30 = _mm_add_pd(c30, _mm_mul_pd(a0, y));
    c31 = _mm_add_pd(c31, _mm_mul_pd(a1, y));
  }
  c[0] = c00, c[1] = c01, c[2] = c10, c[3] = c11, c[4] = c20, c[5] = c21, c[6] = c30, c[7] = c31;
}
#endif

/* the TM x TN sums of one micro-tile over kc steps onto d[i * ldd + j]: ap[k * TM + i] (the packed
** panel of A), rows b[j][k] of B */
static void micro(int kc, const double *__restrict ap, const double *const b[TN], double *d,
                  size_t ldd) {
  const double *__restrict b0 = b[0], *__restrict b1 = b[1], *__restrict b2 = b[2],
                           *__restrict b3 = b[3];
  double *d0 = d, *d1 = d + ldd, *d2 = d + 2 * ldd, *d3 = d + 3 * ldd;
#if defined(__SSE2__)
  /* c[2 j + h]: column j, rows 2 h and 2 h + 1 */
  __m128d c[8];
  for (int j = 0; j < TN; j++) {
    c[2 * j] = _mm_loadh_pd(_mm_load_sd(d0 + j), d1 + j);
    c[2 * j + 1] = _mm_loadh_pd(_mm_load_sd(d2 + j), d3 + j);
  }
  mk_steps(kc, ap, b0, b1, b2, b3, c);
  for (int j = 0; j < TN; j++) {
    _mm_storel_pd(d0 + j, c[2 * j]), _mm_storeh_pd(d1 + j, c[2 * j]);
    _mm_storel_pd(d2 + j, c[2 * j + 1]), _mm_storeh_pd(d3 + j, c[2 * j + 1]);
  }
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

/* ---- the f32 accumulators of one warp's wgmma, in place
** ------------------------------------------------------------------------------------------------
** Register i = 4 cb + 2 h + x of lane 4 g + q holds D[8 h + g][8 cb + 2 q + x]: for one register,
** lanes 4 g0 .. 4 g0 + 15 (g0 0 or 4) are the 4 x 4 tile of rows 8 h + g0 .. + 3 and columns
** 8 cb + x + 2 q (q = 0..3), sixteen words one after another. Each tile is micro's: SSE2 pairs of
** rows (g, g + 1) of one column, started from the f32 words (exact in double), the k steps in
** order, then one rounding each (NaN as c32 writes it, the high word 0). */
#if defined(__SSE2__)
/* c[2 j + hp]: column j, rows 2 hp, 2 hp + 1 of the tile at L */
static inline void frag_load(const uint64_t *L, __m128d c[8]) {
  for (int hp = 0; hp < 2; hp++)
    for (int jp = 0; jp < 2; jp++) { /* columns 2 jp, 2 jp + 1 of rows 2 hp (r0), 2 hp + 1 (r1) */
      __m128 r0 = _mm_loadu_ps((const float *)(L + 8 * hp + 2 * jp)); /* [j, -, j + 1, -] */
      __m128 r1 = _mm_loadu_ps((const float *)(L + 8 * hp + 4 + 2 * jp));
      __m128 t = _mm_shuffle_ps(r0, r1, _MM_SHUFFLE(2, 0, 2, 0)); /* [g j, g j+1, g' j, g' j+1] */
      t = _mm_shuffle_ps(t, t, _MM_SHUFFLE(3, 1, 2, 0));          /* [g j, g' j, g j+1, g' j+1] */
      c[2 * (2 * jp) + hp] = _mm_cvtps_pd(t);
      c[2 * (2 * jp + 1) + hp] = _mm_cvtps_pd(_mm_movehl_ps(t, t));
    }
}

static inline void frag_store(uint64_t *L, const __m128d c[8]) {
  const __m128 canon = _mm_castsi128_ps(_mm_set1_epi32(0x7fffffff)), z = _mm_setzero_ps();
  for (int hp = 0; hp < 2; hp++)
    for (int jp = 0; jp < 2; jp++) {
      __m128 t = _mm_unpacklo_ps(_mm_cvtpd_ps(c[2 * (2 * jp) + hp]),
                                 _mm_cvtpd_ps(c[2 * (2 * jp + 1) + hp])); /* as frag_load's */
      __m128 nan = _mm_cmpunord_ps(t, t);
      t = _mm_or_ps(_mm_andnot_ps(nan, t), _mm_and_ps(nan, canon));
      _mm_storeu_ps((float *)(L + 8 * hp + 2 * jp), _mm_unpacklo_ps(t, z));
      _mm_storeu_ps((float *)(L + 8 * hp + 4 + 2 * jp), _mm_unpackhi_ps(t, z));
    }
}
#endif

int plX__tc_wgmma_f32(int N, int K, const double *A, const double *B, size_t ldb,
                      uint64_t *const *R, int zero) {
#if defined(__SSE2__)
  if (K > 32 || K <= 0 || N <= 0 || N % 8) return 0;
  /* panel p = 2 h + g0 / 4: rows 8 h + g0 .. + 3, k-major */
  _Alignas(16) double ap[4][TM * 32];
  for (int p = 0; p < 4; p++) pack_a(TM, K, A, (size_t)K, 8 * (p / 2) + 4 * (p % 2), 0, ap[p]);
  for (int cb = 0; cb < N / 8; cb++)
    for (int x = 0; x < 2; x++) {
      const double *__restrict b0 = B + (size_t)(8 * cb + x) * ldb, *__restrict b1 = b0 + 2 * ldb,
                               *__restrict b2 = b0 + 4 * ldb, *__restrict b3 = b0 + 6 * ldb;
      for (int p = 0; p < 4; p++) {
        uint64_t *L = R[4 * cb + 2 * (p / 2) + x] + 16 * (p % 2); /* lane 4 g0 */
        const double *__restrict a = ap[p];
        __m128d c[8];
        if (zero)
          for (int q = 0; q < 8; q++) c[q] = _mm_setzero_pd();
        else
          frag_load(L, c);
        mk_steps(K, a, b0, b1, b2, b3, c);
        frag_store(L, c);
      }
    }
  return 1;
#else
  (void)N, (void)K, (void)A, (void)B, (void)ldb, (void)R, (void)zero;
  return 0;
#endif
}
