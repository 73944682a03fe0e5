/* mma.c -- warp-collective matrix instructions: ldmatrix, stmatrix and mma.sync, with the
** fragment layouts of the PTX ISA. Each needs the whole warp (.sync.aligned). */
#include "state.h"
#include "fail.h"
#include "mem.h"
#include "exec.h"
#include "fp.h"
#include "mma.h"
#include "tc.h"
#include <math.h>
#include <stdio.h>

/* ---- matrices
** -------------------------------------------------------------------------------------- */
int plX__ldmatrix(plX_emu *e, plX_ins *in, plX_warp *w, uint32_t em) {
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
    uint64_t *D = wslot(w, e->xf.vslots[in->vs + (uint32_t)i]);
    for (int l = 0; l < 32; l++) {
      int g = l / 4, c = 2 * (l % 4);
      uint32_t lo, hi;
      if (in->fl & XF_TRANS) {
        lo = rows[i][c][g];
        hi = rows[i][c + 1][g];
      } else {
        lo = rows[i][g][c];
        hi = rows[i][g][c + 1];
      }
      D[l] = lo | hi << 16;
    }
  }
  return 0;
}

int plX__stmatrix(plX_emu *e, plX_ins *in, plX_warp *w, uint32_t em) {
  if (plX__full_warp(e, in, w, em)) return e->status;
  uint16_t rows[4][8][8];
  int num = in->vec;
  for (int i = 0; i < num; i++) {
    uint64_t *A = wslot(w, e->xf.vslots[in->vs + (uint32_t)i]);
    for (int l = 0; l < 32; l++) {
      int g = l / 4, c = 2 * (l % 4);
      uint16_t lo = (uint16_t)A[l], hi = (uint16_t)(A[l] >> 16);
      if (in->fl & XF_TRANS) {
        rows[i][c][g] = lo;
        rows[i][c + 1][g] = hi;
      } else {
        rows[i][g][c] = lo;
        rows[i][g][c + 1] = hi;
      }
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
int plX__mma(plX_emu *e, plX_ins *in, plX_warp *w, uint32_t em) {
  if (plX__full_warp(e, in, w, em)) return e->status;
  const uint32_t *vs = e->xf.vslots;
  int sh = in->sub2, at = in->t2, bt = in->t3, dt = in->t;
  int K = sh == 1 ? 16 : sh == 2 ? 8 : 32;
  /* A 16 x K, B as 8 rows of K (the engine's form: Bt[n][k] = B[k][n]), D 16 x 8 from C; the
  ** integer kinds as exact doubles (their sums stay far below 2^53) */
  double A[16][32], Bt[8][32], D[16][8];
  int integer = at == PLT_S8 || at == PLT_U8;
  for (int l = 0; l < 32; l++) {
    int g = l / 4, t = l % 4;
    if (at == PLT_TF32) {
      for (int j = 0; j < 4; j++)
        A[g + 8 * (j & 1)][t + 4 * (j >> 1)] =
            f32(wslot(w, vs[in->a + (uint32_t)j])[l] & 0xffffe000u);
      for (int j = 0; j < 2; j++)
        Bt[g][t + 4 * j] = f32(wslot(w, vs[in->b + (uint32_t)j])[l] & 0xffffe000u);
    } else if (integer) {
      for (int j = 0; j < 4; j++) {
        uint32_t v = (uint32_t)wslot(w, vs[in->a + (uint32_t)j])[l];
        for (int k = 0; k < 4; k++) {
          uint8_t by = (uint8_t)(v >> (8 * k));
          A[g + 8 * (j & 1)][4 * t + 16 * (j >> 1) + k] = at == PLT_S8 ? (int8_t)by : by;
        }
      }
      for (int j = 0; j < 2; j++) {
        uint32_t v = (uint32_t)wslot(w, vs[in->b + (uint32_t)j])[l];
        for (int k = 0; k < 4; k++) {
          uint8_t by = (uint8_t)(v >> (8 * k));
          Bt[g][4 * t + 16 * j + k] = bt == PLT_S8 ? (int8_t)by : by;
        }
      }
    } else {
      int fmt = at == PLT_F16 ? XFMT_F16 : XFMT_BF16;
      int na = K == 16 ? 4 : 2;
      for (int j = 0; j < na; j++) {
        uint32_t v = (uint32_t)wslot(w, vs[in->a + (uint32_t)j])[l];
        int row = K == 16 ? g + 8 * (j & 1) : g + 8 * j,
            col = K == 16 ? 2 * t + 8 * (j >> 1) : 2 * t;
        A[row][col] = half_value(v & 0xffff, fmt);
        A[row][col + 1] = half_value(v >> 16, fmt);
      }
      for (int j = 0; j < (K == 16 ? 2 : 1); j++) {
        uint32_t v = (uint32_t)wslot(w, vs[in->b + (uint32_t)j])[l];
        Bt[g][2 * t + 8 * j] = half_value(v & 0xffff, fmt);
        Bt[g][2 * t + 8 * j + 1] = half_value(v >> 16, fmt);
      }
    }
    if (dt == PLT_F16) {
      for (int j = 0; j < 2; j++) {
        uint32_t v = (uint32_t)wslot(w, vs[in->c + (uint32_t)j])[l];
        D[g + 8 * j][2 * t] = plX__to_double(v & 0xffff, XFMT_F16);
        D[g + 8 * j][2 * t + 1] = plX__to_double(v >> 16, XFMT_F16);
      }
    } else {
      for (int j = 0; j < 4; j++) {
        uint64_t v = wslot(w, vs[in->c + (uint32_t)j])[l];
        D[g + 8 * (j >> 1)][2 * t + (j & 1)] = dt == PLT_S32 ? (double)(int32_t)v : f32(v);
      }
    }
  }
  plX__tc_gemm(16, 8, K, &A[0][0], 32, &Bt[0][0], 32, &D[0][0], 8);
  uint64_t Dv[16][8];
  for (int i = 0; i < 16; i++)
    for (int j = 0; j < 8; j++) {
      if (integer) {
        int64_t s = (int64_t)D[i][j];
        if (in->fl & XF_SATF) {
          if (s > INT32_MAX) s = INT32_MAX;
          if (s < INT32_MIN) s = INT32_MIN;
        }
        Dv[i][j] = (uint32_t)s;
      } else /* one rounding */
        Dv[i][j] = dt == PLT_F16 ? plX__round(D[i][j], 0, XFMT_F16, XR_RN, 0) : c32((float)D[i][j]);
    }
  for (int l = 0; l < 32; l++) {
    int g = l / 4, t = l % 4;
    if (dt == PLT_F16) {
      for (int j = 0; j < 2; j++)
        wslot(w, vs[in->vs + (uint32_t)j])[l] = Dv[g + 8 * j][2 * t] | Dv[g + 8 * j][2 * t + 1]
                                                                           << 16;
    } else {
      for (int j = 0; j < 4; j++)
        wslot(w, vs[in->vs + (uint32_t)j])[l] = Dv[g + 8 * (j >> 1)][2 * t + (j & 1)];
    }
  }
  return 0;
}

/* ---- wmma
** ------------------------------------------------------------------------------------------ */
/* The PTX ISA leaves the distribution of a wmma fragment's elements over the warp unspecified.
** The emulator uses the mma.sync fragments of the same element type, the shape cut into m16n8
** (m8n8 for m8n32k16) tiles (docs/emulator.md, "wmma"): A is the mma.sync A fragment of each 16
** rows (of the 8 rows of m8n32k16: its rows g only), B the B fragment of each 8 columns, C/D the
** accumulator of each tile, tiles in row-major order. .f16 A/B fragments are eight registers
** whatever the shape: the elements repeat (cyclically) to fill them, and wmma.mma reads the
** first copy. Fragments do not depend on the memory layout: wmma.load/store transpose a .col
** matrix. */
static void wm_dims(int sh, int *M, int *N, int *K) {
  *M = sh == XWM_M32N8K16 ? 32 : sh == XWM_M8N32K16 ? 8 : 16;
  *N = sh == XWM_M32N8K16 ? 8 : sh == XWM_M8N32K16 ? 32 : 16;
  *K = sh == XWM_M16N16K8 ? 8 : 16;
}

static int wm_bits(int t) {
  return t == PLT_F16 || t == PLT_BF16 ? 16 : t == PLT_S8 || t == PLT_U8 ? 8 : 32;
}

int plX__wmma_regs(int mat, int sh, int t) {
  int M, N, K;
  if (sh < XWM_M16N16K16 || sh > XWM_M16N16K8) return 0;
  wm_dims(sh, &M, &N, &K);
  if (mat == 2) {
    if (t == PLT_F32) return 8;
    if (sh == XWM_M16N16K8) return 0;
    return t == PLT_F16 ? 4 : t == PLT_S32 ? 8 : 0;
  }
  if (sh == XWM_M16N16K8) return t == PLT_TF32 ? 4 : 0;
  int els = (mat == 0 ? M * K : K * N) / 32;
  if (t == PLT_F16) return 8;
  if (t == PLT_BF16) return els / 2;
  if (t == PLT_S8 || t == PLT_U8) return els / 4;
  return 0;
}

/* the (row, column) of each distinct element lane l holds, in register order (low bits first);
** how many */
static int wm_frag(int mat, int sh, int t, int l, uint8_t rc[16][2]) {
  int M, N, K, g = l / 4, q = l % 4, bits = wm_bits(t), n = 0;
  wm_dims(sh, &M, &N, &K);
#define PUT(r, c) (rc[n][0] = (uint8_t)(r), rc[n][1] = (uint8_t)(c), n++)
  if (mat == 0) {
    int mb = M < 16 ? 8 : 16;
    for (int b0 = 0; b0 < M; b0 += mb) {
      if (bits == 32) {
        PUT(b0 + g, q);
        PUT(b0 + g + 8, q);
        PUT(b0 + g, q + 4);
        PUT(b0 + g + 8, q + 4);
      } else if (bits == 16)
        for (int j = 0; j < (mb == 16 ? 4 : 2); j++) {
          int row = b0 + g + (mb == 16 ? 8 * (j & 1) : 0),
              col = 2 * q + 8 * (mb == 16 ? j >> 1 : j);
          PUT(row, col);
          PUT(row, col + 1);
        }
      else
        for (int j = 0; j < mb / 8; j++)
          for (int s = 0; s < 4; s++) PUT(b0 + g + 8 * j, 4 * q + s);
    }
  } else if (mat == 1) {
    for (int c0 = 0; c0 < N; c0 += 8) {
      if (bits == 32) {
        PUT(q, c0 + g);
        PUT(q + 4, c0 + g);
      } else if (bits == 16)
        for (int j = 0; j < 2; j++) {
          PUT(2 * q + 8 * j, c0 + g);
          PUT(2 * q + 8 * j + 1, c0 + g);
        }
      else
        for (int s = 0; s < 4; s++) PUT(4 * q + s, c0 + g);
    }
  } else {
    int mb = M < 16 ? 8 : 16;
    for (int r0 = 0; r0 < M; r0 += mb)
      for (int c0 = 0; c0 < N; c0 += 8) {
        PUT(r0 + g, c0 + 2 * q);
        PUT(r0 + g, c0 + 2 * q + 1);
        if (mb == 16) {
          PUT(r0 + g + 8, c0 + 2 * q);
          PUT(r0 + g + 8, c0 + 2 * q + 1);
        }
      }
  }
#undef PUT
  return n;
}

/* wmma.load / wmma.store: every lane gives the same address and stride (in elements: between the
** starts of rows for .row, of columns for .col; the row or column length when left out); the
** matrix is read or written in 16-byte pieces (8 for a line of 8 bytes), each charged to the lane
** whose fragment holds its first element, through the checked memory path */
static int wm_ldst(plX_emu *e, plX_ins *in, plX_warp *w) {
  int mat = in->sub < 2 ? in->sub : 2, t = in->t, sh = in->sub2, store = in->sub == 3, M, N, K;
  wm_dims(sh, &M, &N, &K);
  int R = mat == 1 ? K : M, C = mat == 0 ? K : N, col = (in->fl & XF_TRANS) != 0;
  uint32_t es = (uint32_t)wm_bits(t) / 8, lines = (uint32_t)(col ? C : R),
           len = (uint32_t)(col ? R : C);
  uint64_t a0 = addr_of(in, w, 0), st = in->vec ? (uint32_t)wslot(w, in->b)[0] : len;
  char msg[200];
  for (int l = 1; l < 32; l++) {
    if (addr_of(in, w, l) != a0) {
      snprintf(msg, sizeof msg,
               "address 0x%llx differs from lane 0's 0x%llx (the warp loads or stores one matrix: "
               "every lane gives the same address)",
               (unsigned long long)addr_of(in, w, l), (unsigned long long)a0);
      return plX__fail_lane(e, in, w, l, msg);
    }
    if (in->vec && (uint32_t)wslot(w, in->b)[l] != st) {
      snprintf(msg, sizeof msg,
               "stride %u differs from lane 0's %llu (every lane gives the same stride)",
               (uint32_t)wslot(w, in->b)[l], (unsigned long long)st);
      return plX__fail_lane(e, in, w, l, msg);
    }
  }
  if (a0 & 31) {
    snprintf(msg, sizeof msg,
             "misaligned matrix: address 0x%llx is not a multiple of 32 (a wmma matrix starts "
             "256-bit aligned)",
             (unsigned long long)a0);
    return plX__fail_lane(e, in, w, 0, msg);
  }
  /* a stride given (the default is the line's length) */
  if (in->vec && st * es % 16) {
    snprintf(msg, sizeof msg, "stride %llu (%llu bytes) is not a multiple of 16 bytes",
             (unsigned long long)st, (unsigned long long)(st * es));
    return plX__fail_lane(e, in, w, 0, msg);
  }
  uint8_t m[32 * 32 * 4], own[32][32], rc[16][2];
  int nregs = plX__wmma_regs(mat, sh, t), per = 32 / wm_bits(t), bits = wm_bits(t);
  const uint32_t *vs = e->xf.vslots + in->vs;
  for (int l = 0; l < 32; l++) {
    int n = wm_frag(mat, sh, t, l, rc);
    for (int i = 0; i < n; i++) own[rc[i][0]][rc[i][1]] = (uint8_t)l;
    if (store)
      for (int i = 0; i < n; i++) {
        uint64_t v = wslot(w, vs[i / per])[l] >> (i % per * bits);
        /* little-endian: the low bytes */
        memcpy(m + ((size_t)rc[i][0] * (size_t)C + rc[i][1]) * es, &v, es);
      }
  }
  uint32_t lb = len * es, ch = lb < 16 ? lb : 16;
  for (uint32_t i = 0; i < lines; i++)
    for (uint32_t off = 0; off < lb; off += ch) {
      uint32_t p0 = off / es;
      int lane = col ? own[p0][i] : own[i][p0];
      uint8_t *p = lane_mem(e, in, w, lane, a0 + (uint64_t)i * st * es + off, ch, store);
      if (!p) return e->status;
      for (uint32_t k = 0; k < ch / es; k++) {
        uint32_t r = col ? p0 + k : i, c = col ? i : p0 + k;
        uint8_t *q = m + ((size_t)r * (size_t)C + c) * es;
        if (store)
          memcpy(p + k * es, q, es);
        else
          memcpy(q, p + k * es, es);
      }
    }
  if (!store)
    for (int l = 0; l < 32; l++) {
      int n = wm_frag(mat, sh, t, l, rc);
      for (int r = 0; r < nregs; r++) {
        uint64_t v = 0;
        for (int s = 0; s < per; s++) {
          int i = (r * per + s) % n;
          uint32_t x = 0;
          memcpy(&x, m + ((size_t)rc[i][0] * (size_t)C + rc[i][1]) * es, es);
          v |= (uint64_t)x << (s * bits);
        }
        wslot(w, vs[r])[l] = v;
      }
    }
  return 0;
}

/* one element of a fragment: its value (float types) or integer */
static double wm_val(uint32_t raw, int t) {
  if (t == PLT_F16) return half_value(raw, XFMT_F16);
  if (t == PLT_BF16) return half_value(raw, XFMT_BF16);
  if (t == PLT_TF32) return f32(raw & 0xffffe000u);
  return f32(raw);
}

/* wmma.mma: D = A B + C over M x N x K, as mma.sync: exact products summed with C in double, one
** rounding (f32 or f16); integers exact, .satfinite clamping to the s32 range, else wrapping */
static int wm_mma(plX_emu *e, plX_ins *in, plX_warp *w) {
  int sh = in->sub2, dt = in->t, at = in->t2, bt = in->t3, ct = in->vec, M, N, K;
  wm_dims(sh, &M, &N, &K);
  int integer = at == PLT_S8 || at == PLT_U8;
  double A[32][16], B[16][32], Cm[32][32];
  int64_t Ai[32][16], Bi[16][32], Ci[32][32];
  uint8_t rc[16][2];
  const uint32_t *vs = e->xf.vslots;
  int srcs[3][2] = { { 0, at }, { 1, bt }, { 2, ct } };
  uint32_t first[3] = { in->a, in->b, in->c };
  for (int l = 0; l < 32; l++)
    for (int f = 0; f < 3; f++) {
      int mat = srcs[f][0], t = srcs[f][1], bits = wm_bits(t), per = 32 / bits;
      int n = wm_frag(mat, sh, t, l, rc);
      for (int i = 0; i < n; i++) {
        uint32_t raw =
            (uint32_t)(wslot(w, vs[first[f] + (uint32_t)(i / per)])[l] >> (i % per * bits));
        if (bits < 32) raw &= (1u << bits) - 1;
        int r = rc[i][0], c = rc[i][1];
        if (integer) {
          int64_t v = t == PLT_S8 ? (int8_t)raw : t == PLT_S32 ? (int32_t)raw : (int64_t)raw;
          if (mat == 0)
            Ai[r][c] = v;
          else if (mat == 1)
            Bi[r][c] = v;
          else
            Ci[r][c] = v;
        } else {
          double v = wm_val(raw, t);
          if (mat == 0)
            A[r][c] = v;
          else if (mat == 1)
            B[r][c] = v;
          else
            Cm[r][c] = v;
        }
      }
    }
  uint32_t D[32][32];
  for (int i = 0; i < M; i++)
    for (int j = 0; j < N; j++) {
      if (integer) {
        int64_t s = Ci[i][j];
        for (int k = 0; k < K; k++) s += Ai[i][k] * Bi[k][j];
        if (in->fl & XF_SATF) {
          if (s > INT32_MAX) s = INT32_MAX;
          if (s < INT32_MIN) s = INT32_MIN;
        }
        D[i][j] = (uint32_t)s;
      } else {
        double s = Cm[i][j];
        for (int k = 0; k < K; k++) s += A[i][k] * B[k][j];
        D[i][j] = (uint32_t)(dt == PLT_F16 ? plX__round(s, 0, XFMT_F16, XR_RN, 0) : c32((float)s));
      }
    }
  int bits = wm_bits(dt), per = 32 / bits, nregs = plX__wmma_regs(2, sh, dt);
  for (int l = 0; l < 32; l++) {
    wm_frag(2, sh, dt, l, rc);
    for (int r = 0; r < nregs; r++) {
      uint64_t v = 0;
      for (int s = 0; s < per; s++)
        v |= (uint64_t)D[rc[r * per + s][0]][rc[r * per + s][1]] << (s * bits);
      wslot(w, vs[in->vs + (uint32_t)r])[l] = v;
    }
  }
  return 0;
}

int plX__wmma(plX_emu *e, plX_ins *in, plX_warp *w, uint32_t em) {
  if (plX__full_warp(e, in, w, em)) return e->status;
  return in->sub == 4 ? wm_mma(e, in, w) : wm_ldst(e, in, w);
}
