/* emu_mma.c -- warp-collective matrix instructions: ldmatrix, stmatrix and mma.sync, with the
** fragment layouts of the PTX ISA. Each needs the whole warp (.sync.aligned). */
#include "emu_impl.h"
#include <math.h>

/* ---- matrices -------------------------------------------------------------------------------------- */
int plX__ldmatrix(plX_emu *e, xins *in, xwarp *w, uint32_t em) {
  if (plX__full_warp(e, in, w, em)) return e->status;
  uint16_t rows[4][8][8];
  int num = in->vec;
  for (int i = 0; i < num; i++)
    for (int r = 0; r < 8; r++) {
      int l = i * 8 + r;
      uint64_t a = addr_of(in, w, l);
      uint8_t *p = lane_mem(e, in, w, l, a, 16, 0);
      if (!p) return e->status;
      memcpy(rows[i][r], p, 16);
    }
  for (int i = 0; i < num; i++) {
    uint64_t *D = S(e->xf.vslots[in->vs + (uint32_t)i]);
    for (int l = 0; l < 32; l++) {
      int g = l / 4, c = 2 * (l % 4);
      uint32_t lo, hi;
      if (in->fl & XF_TRANS) { lo = rows[i][c][g]; hi = rows[i][c + 1][g]; }
      else { lo = rows[i][g][c]; hi = rows[i][g][c + 1]; }
      D[l] = lo | hi << 16;
    }
  }
  return 0;
}

int plX__stmatrix(plX_emu *e, xins *in, xwarp *w, uint32_t em) {
  if (plX__full_warp(e, in, w, em)) return e->status;
  uint16_t rows[4][8][8];
  int num = in->vec;
  for (int i = 0; i < num; i++) {
    uint64_t *A = S(e->xf.vslots[in->vs + (uint32_t)i]);
    for (int l = 0; l < 32; l++) {
      int g = l / 4, c = 2 * (l % 4);
      uint16_t lo = (uint16_t)A[l], hi = (uint16_t)(A[l] >> 16);
      if (in->fl & XF_TRANS) { rows[i][c][g] = lo; rows[i][c + 1][g] = hi; }
      else { rows[i][g][c] = lo; rows[i][g][c + 1] = hi; }
    }
  }
  for (int i = 0; i < num; i++)
    for (int r = 0; r < 8; r++) {
      int l = i * 8 + r;
      uint8_t *p = lane_mem(e, in, w, l, addr_of(in, w, l), 16, 1);
      if (!p) return e->status;
      memcpy(p, rows[i][r], 16);
    }
  return 0;
}

/* an f16 or bf16 value, inline for the common cases (the rest through plX__to_double) */
static inline double half_value(uint32_t h, int fmt) {
  if (fmt == XFMT_BF16) return f32((uint64_t)h << 16);
  uint32_t ex = h >> 10 & 31;
  if (ex == 0 || ex == 31) return plX__to_double(h, XFMT_F16);
  return f32((uint64_t)((h >> 15) << 31 | (ex + 112) << 23 | (h & 1023) << 13));
}

/* mma.sync: the fragments of the PTX ISA (groupID g = lane / 4, t = lane % 4). Products are exact;
** they are summed with C in double and rounded once (to f32, f16) -- the hardware's order and
** intermediate precision are not specified, so results may differ from it in the last bit. */
int plX__mma(plX_emu *e, xins *in, xwarp *w, uint32_t em) {
  if (plX__full_warp(e, in, w, em)) return e->status;
  const uint32_t *vs = e->xf.vslots;
  int sh = in->sub2, at = in->t2, bt = in->t3, dt = in->t;
  int K = sh == 1 ? 16 : sh == 2 ? 8 : 32;
  double A[16][32], B[32][8], C[16][8];
  int64_t Ai[16][32], Bi[32][8], Ci[16][8];
  int integer = at == PLT_S8 || at == PLT_U8;
  for (int l = 0; l < 32; l++) {
    int g = l / 4, t = l % 4;
    if (at == PLT_TF32) {
      for (int j = 0; j < 4; j++) A[g + 8 * (j & 1)][t + 4 * (j >> 1)] = f32(S(vs[in->a + (uint32_t)j])[l] & 0xffffe000u);
      for (int j = 0; j < 2; j++) B[t + 4 * j][g] = f32(S(vs[in->b + (uint32_t)j])[l] & 0xffffe000u);
    } else if (integer) {
      for (int j = 0; j < 4; j++) {
        uint32_t v = (uint32_t)S(vs[in->a + (uint32_t)j])[l];
        for (int k = 0; k < 4; k++) {
          uint8_t by = (uint8_t)(v >> (8 * k));
          Ai[g + 8 * (j & 1)][4 * t + 16 * (j >> 1) + k] = at == PLT_S8 ? (int8_t)by : by;
        }
      }
      for (int j = 0; j < 2; j++) {
        uint32_t v = (uint32_t)S(vs[in->b + (uint32_t)j])[l];
        for (int k = 0; k < 4; k++) {
          uint8_t by = (uint8_t)(v >> (8 * k));
          Bi[4 * t + 16 * j + k][g] = bt == PLT_S8 ? (int8_t)by : by;
        }
      }
    } else {
      int fmt = at == PLT_F16 ? XFMT_F16 : XFMT_BF16;
      int na = K == 16 ? 4 : 2;
      for (int j = 0; j < na; j++) {
        uint32_t v = (uint32_t)S(vs[in->a + (uint32_t)j])[l];
        int row = K == 16 ? g + 8 * (j & 1) : g + 8 * j, col = K == 16 ? 2 * t + 8 * (j >> 1) : 2 * t;
        A[row][col] = half_value(v & 0xffff, fmt);
        A[row][col + 1] = half_value(v >> 16, fmt);
      }
      for (int j = 0; j < (K == 16 ? 2 : 1); j++) {
        uint32_t v = (uint32_t)S(vs[in->b + (uint32_t)j])[l];
        B[2 * t + 8 * j][g] = half_value(v & 0xffff, fmt);
        B[2 * t + 8 * j + 1][g] = half_value(v >> 16, fmt);
      }
    }
    if (dt == PLT_F16) {
      for (int j = 0; j < 2; j++) {
        uint32_t v = (uint32_t)S(vs[in->c + (uint32_t)j])[l];
        C[g + 8 * j][2 * t] = plX__to_double(v & 0xffff, XFMT_F16);
        C[g + 8 * j][2 * t + 1] = plX__to_double(v >> 16, XFMT_F16);
      }
    } else {
      for (int j = 0; j < 4; j++) {
        uint64_t v = S(vs[in->c + (uint32_t)j])[l];
        if (dt == PLT_S32) Ci[g + 8 * (j >> 1)][2 * t + (j & 1)] = (int32_t)v;
        else C[g + 8 * (j >> 1)][2 * t + (j & 1)] = f32(v);
      }
    }
  }
  uint64_t Dv[16][8];
  for (int i = 0; i < 16; i++)
    for (int j = 0; j < 8; j++) {
      if (integer) {
        int64_t s = Ci[i][j];
        for (int k = 0; k < K; k++) s += Ai[i][k] * Bi[k][j];
        if (in->fl & XF_SATF) { if (s > INT32_MAX) s = INT32_MAX; if (s < INT32_MIN) s = INT32_MIN; }
        Dv[i][j] = (uint32_t)s;
      } else {
        double s = C[i][j];
        for (int k = 0; k < K; k++) s += A[i][k] * B[k][j];
        Dv[i][j] = dt == PLT_F16 ? plX__round(s, 0, XFMT_F16, XR_RN, 0) : c32((float)s);  /* one rounding */
      }
    }
  for (int l = 0; l < 32; l++) {
    int g = l / 4, t = l % 4;
    if (dt == PLT_F16) {
      for (int j = 0; j < 2; j++) S(vs[in->vs + (uint32_t)j])[l] = Dv[g + 8 * j][2 * t] | Dv[g + 8 * j][2 * t + 1] << 16;
    } else {
      for (int j = 0; j < 4; j++) S(vs[in->vs + (uint32_t)j])[l] = Dv[g + 8 * (j >> 1)][2 * t + (j & 1)];
    }
  }
  return 0;
}

