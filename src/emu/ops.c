/* ops.c -- the semantics of one element: floating point in every mode and format, conversions,
** comparisons, the integer and bit helpers, special registers and atomic operations.
** The instruction loop (exec.c) calls these per lane when no inline fast path applies. */
#include "state.h"
#include "ops.h"
#include "fp.h"
#include <math.h>
#include <float.h>

/* ---- floating point, one element
** ----------------------------------------------------------------- */
int plX__mode(int r) {
  return (r == XR_RZ || r == XR_RM || r == XR_RP || r == XR_RNA) ? r : XR_RN;
}

uint64_t plX__flush_bits(uint64_t r, int fmt) {
  double v = plX__to_double(r, fmt);
  double f = plX__flush(v, fmt);
  return f != v ? plX__round(f, 0, fmt, XR_RN, 0) : r;
}

static uint64_t post(const plX_ins *in, uint64_t r, int fmt) {
  if (in->fl & XF_FTZ) r = plX__flush_bits(r, fmt);
  if (in->fl & XF_SAT) {
    double v = plX__to_double(r, fmt);
    if (v != v || v <= 0)
      r = 0;
    else if (v > 1)
      r = plX__round(1.0, 0, fmt, XR_RN, 0);
  }
  if (in->fl & XF_RELU) {
    double v = plX__to_double(r, fmt);
    if (v != v)
      r = plX__canon_nan(fmt);
    else if (v < 0)
      r = 0;
  }
  return r;
}

static double arg(const plX_ins *in, uint64_t v, int fmt) {
  double x = plX__to_double(v, fmt);
  return (in->fl & XF_FTZ) ? plX__flush(x, fmt) : x;
}

static uint64_t minmax(const plX_ins *in, int mx, uint64_t A, uint64_t B, int fmt) {
  double a = arg(in, A, fmt), b = arg(in, B, fmt);
  int na = a != a, nb = b != b, sign = 0;
  if (in->fl & XF_XORSIGN) {
    sign = (signbit(a) != 0) ^ (signbit(b) != 0);
    a = fabs(a);
    b = fabs(b);
  }
  double r;
  if (na || nb) {
    if ((in->fl & XF_NAN) || (na && nb)) return plX__canon_nan(fmt);
    r = na ? b : a;
  } else if (mx)
    r = (a > b || (a == b && !signbit(a))) ? a : b; /* +0 is above -0 */
  else
    r = (a < b || (a == b && signbit(a))) ? a : b;
  if ((in->fl & XF_XORSIGN) && r == r) r = sign ? -fabs(r) : fabs(r);
  uint64_t bits = plX__round(r, 0, fmt, XR_RN, 0);
  if (in->fl & XF_RELU) return post(in, bits, fmt);
  return bits;
}

/* the approximate functions: computed in double and rounded once, well inside the PTX bounds */
static uint64_t approx1(const plX_ins *in, int op, uint64_t A, int fmt) {
  double a = arg(in, A, fmt), r;
  int mode = plX__mode(in->rnd);
  switch (op) {
  case X_RCP:
    if ((in->fl & XF_APPROX) && fmt == XFMT_F64) {
      r = 1.0 / a;
      break;
    }
    return post(in, plX__div(1.0, a, fmt, mode), fmt);
  case X_SQRT: return post(in, plX__sqrt(a, fmt, mode), fmt);
  case X_RSQRT: r = a == 0 ? (signbit(a) ? -INFINITY : INFINITY) : 1.0 / sqrt(a); break;
  case X_SIN: r = sin(a); break;
  case X_COS: r = cos(a); break;
  case X_LG2: r = a == 0 ? -INFINITY : log2(a); break;
  case X_EX2: r = exp2(a); break;
  case X_TANH: r = tanh(a); break;
  default: r = NAN;
  }
  return post(in, plX__round(r, 0, fmt, XR_RN, 0), fmt);
}

static uint64_t farith(const plX_ins *in, int op, uint64_t A, uint64_t B, uint64_t C, int fmt) {
  double a = arg(in, A, fmt), b = arg(in, B, fmt), c;
  int mode = plX__mode(in->rnd);
  uint64_t r;
  switch (op) {
  case X_FADD: r = plX__add(a, b, fmt, mode); break;
  case X_FSUB: r = plX__add(a, -b, fmt, mode); break;
  case X_FMUL: r = plX__mul(a, b, fmt, mode); break;
  case X_FFMA:
    c = arg(in, C, fmt);
    r = plX__fma(a, b, c, fmt, mode);
    break;
  case X_FDIV:
    if ((in->fl & XF_APPROX) && fmt == XFMT_F32 && fabs(b) > 0x1p126 && !isinf(b))
      r = isinf(a) ? plX__canon_nan(fmt) : 0; /* div.approx: 2^126 < |b| < 2^128 gives 0 */
    else
      r = plX__div(a, b, fmt, mode);
    break;
  case X_FMIN: return minmax(in, 0, A, B, fmt);
  case X_FMAX: return minmax(in, 1, A, B, fmt);
  case X_FABS:
  case X_FNEG: {
    uint64_t v = (in->fl & XF_FTZ) ? plX__flush_bits(A, fmt) : A;
    int sb = fmt == XFMT_F16 || fmt == XFMT_BF16 ? 15 : fmt == XFMT_F64 ? 63 : 31;
    return op == X_FABS ? v & ~(1ull << sb) : v ^ (1ull << sb);
  }
  default: return approx1(in, op, A, fmt);
  }
  return post(in, r, fmt);
}

/* a float op on a register: scalar, or the two halves of an x2 register */
uint64_t plX__fop(const plX_ins *in, int op, uint64_t A, uint64_t B, uint64_t C, int t) {
  if (t == PLT_F16X2 || t == PLT_BF16X2) {
    int fmt = t == PLT_F16X2 ? XFMT_F16 : XFMT_BF16;
    uint64_t lo = farith(in, op, A & 0xffff, B & 0xffff, C & 0xffff, fmt);
    uint64_t hi = farith(in, op, (A >> 16) & 0xffff, (B >> 16) & 0xffff, (C >> 16) & 0xffff, fmt);
    return (lo & 0xffff) | (hi & 0xffff) << 16;
  }
  return farith(in, op, A, B, C, plX__fmt_of(t));
}

int plX__fcmp(int c, double a, double b) {
  int un = a != a || b != b;
  switch (c) {
  case XC_EQ: return !un && a == b;
  case XC_NE: return !un && a != b;
  case XC_LT: return !un && a < b;
  case XC_LE: return !un && a <= b;
  case XC_GT: return !un && a > b;
  case XC_GE: return !un && a >= b;
  case XC_EQU: return un || a == b;
  case XC_NEU: return un || a != b;
  case XC_LTU: return un || a < b;
  case XC_LEU: return un || a <= b;
  case XC_GTU: return un || a > b;
  case XC_GEU: return un || a >= b;
  case XC_NUM: return !un;
  case XC_NAN: return un;
  }
  return 0;
}

int plX__icmp(int c, uint64_t a, uint64_t b, int t) {
  int bits = tb(t);
  if (tsig(t)) {
    int64_t x = sx(a, bits), y = sx(b, bits);
    switch (c) {
    case XC_EQ: return x == y;
    case XC_NE: return x != y;
    case XC_LT: return x < y;
    case XC_LE: return x <= y;
    case XC_GT: return x > y;
    case XC_GE: return x >= y;
    }
  }
  uint64_t x = zx(a, bits), y = zx(b, bits);
  switch (c) {
  case XC_EQ: return x == y;
  case XC_NE: return x != y;
  case XC_LT:
  case XC_LO: return x < y;
  case XC_LE:
  case XC_LS: return x <= y;
  case XC_GT:
  case XC_HI: return x > y;
  case XC_GE:
  case XC_HS: return x >= y;
  }
  return 0;
}

int plX__cmp_lane(const plX_ins *in, uint64_t A, uint64_t B, int half) {
  int t = in->t;
  if (plB_type_info[t].cls != PLT_CF) return plX__icmp(in->sub, A, B, t);
  int fmt = plX__fmt_of(t);
  if (t == PLT_F16X2 || t == PLT_BF16X2) {
    A = (A >> (16 * half)) & 0xffff;
    B = (B >> (16 * half)) & 0xffff;
  }
  return plX__fcmp(in->sub, arg(in, A, fmt), arg(in, B, fmt));
}

/* ---- conversions
** ------------------------------------------------------------------------------- */
typedef __int128 i128;

static uint64_t int_to_int(const plX_ins *in, uint64_t A) {
  int dt = in->t, st = in->t2, db = tb(dt), sb = tb(st);
  i128 v = tsig(st) ? (i128)sx(A, sb) : (i128)zx(A, sb);
  if (in->fl & XF_SAT) {
    i128 lo = tsig(dt) ? -((i128)1 << (db - 1)) : 0;
    i128 hi = tsig(dt) ? ((i128)1 << (db - 1)) - 1 : ((i128)1 << db) - 1;
    if (v < lo) v = lo;
    if (v > hi) v = hi;
  }
  uint64_t r = zx((uint64_t)v, db);
  return tsig(dt) ? (uint64_t)sx(r, db) : r; /* extended to a wider register */
}

static uint64_t float_to_int(const plX_ins *in, uint64_t A) {
  int dt = in->t, db = tb(dt), fmt = plX__fmt_of(in->t2);
  double x = arg(in, A, fmt);
  if (x != x) return 0;
  switch (in->rnd) {
  case XR_RZI: x = trunc(x); break;
  case XR_RMI: x = floor(x); break;
  case XR_RPI: x = ceil(x); break;
  /* the default environment: nearest, ties to even */
  default: x = nearbyint(x); break;
  }
  double lo = tsig(dt) ? -ldexp(1, db - 1) : 0, hi = tsig(dt) ? ldexp(1, db - 1) : ldexp(1, db);
  uint64_t r;
  if (x < lo)
    r = tsig(dt) ? (uint64_t)(-((i128)1 << (db - 1))) : 0;
  else if (x >= hi)
    r = tsig(dt) ? (uint64_t)(((i128)1 << (db - 1)) - 1) : (db == 64 ? ~0ull : (1ull << db) - 1);
  else
    r = tsig(dt) ? (uint64_t)(int64_t)x : (uint64_t)x;
  r = zx(r, db);
  return tsig(dt) ? (uint64_t)sx(r, db) : r;
}

static uint64_t int_to_float(const plX_ins *in, uint64_t A) {
  int st = in->t2, sb = tb(st), fmt = plX__fmt_of(in->t);
  int sign = 0;
  uint64_t mag;
  if (tsig(st)) {
    int64_t v = sx(A, sb);
    sign = v < 0;
    mag = sign ? (uint64_t)0 - (uint64_t)v : (uint64_t)v;
  } else
    mag = zx(A, sb);
  uint64_t r = plX__round_int(sign, mag, 0, 0, fmt, plX__mode(in->rnd), 0);
  return post(in, r, fmt);
}

static uint64_t float_to_float(const plX_ins *in, uint64_t A, int dt, int st) {
  int dfmt = plX__fmt_of(dt), sfmt = plX__fmt_of(st);
  double x = plX__to_double(A, sfmt);
  if ((in->fl & XF_FTZ) && (sfmt == XFMT_F32)) x = plX__flush(x, sfmt);
  uint64_t r;
  if (in->rnd >= XR_RNI && in->rnd <= XR_RPI) { /* to an integral value in the same format */
    switch (in->rnd) {
    case XR_RZI: x = trunc(x); break;
    case XR_RMI: x = floor(x); break;
    case XR_RPI: x = ceil(x); break;
    default: x = nearbyint(x); break;
    }
    r = plX__round(x, 0, dfmt, XR_RN, 0);
  } else {
    if (x != x)
      r = plX__canon_nan(dfmt);
    else
      r = plX__round(x, 0, dfmt, plX__mode(in->rnd), (in->fl & XF_SATF) != 0);
  }
  if ((in->fl & XF_FTZ) && dfmt == XFMT_F32) r = plX__flush_bits(r, dfmt);
  if (in->fl & XF_SAT) {
    double v = plX__to_double(r, dfmt);
    if (v != v || v <= 0)
      r = 0;
    else if (v > 1)
      r = plX__round(1.0, 0, dfmt, XR_RN, 0);
  }
  if (in->fl & XF_RELU) {
    double v = plX__to_double(r, dfmt);
    if (v != v)
      r = plX__canon_nan(dfmt);
    else if (v < 0)
      r = 0;
  }
  return r;
}

uint64_t plX__cvt(const plX_ins *in, uint64_t A) {
  int dt = in->t, st = in->t2;
  int df = plB_type_info[dt].cls == PLT_CF, sf = plB_type_info[st].cls == PLT_CF;
  if (dt == PLT_F16X2 && (st == PLT_E4M3X2 || st == PLT_E5M2X2)) {
    uint64_t lo = float_to_float(in, A & 0xff, PLT_F16, st == PLT_E4M3X2 ? PLT_E4M3 : PLT_E5M2);
    uint64_t hi =
        float_to_float(in, (A >> 8) & 0xff, PLT_F16, st == PLT_E4M3X2 ? PLT_E4M3 : PLT_E5M2);
    return lo | hi << 16;
  }
  if (!df && !sf) return int_to_int(in, A);
  if (sf && !df) return float_to_int(in, A);
  if (!sf && df) return int_to_float(in, A);
  uint64_t r = float_to_float(in, A, dt, st);
  if (dt == PLT_TF32) r &= 0xffffe000u;
  return r;
}

uint64_t plX__cvtpack(const plX_ins *in, uint64_t A, uint64_t B) {
  int dt = in->t;
  int et = dt == PLT_F16X2    ? PLT_F16
           : dt == PLT_BF16X2 ? PLT_BF16
           : dt == PLT_E4M3X2 ? PLT_E4M3
                              : PLT_E5M2;
  int sh = (dt == PLT_E4M3X2 || dt == PLT_E5M2X2) ? 8 : 16;
  uint64_t hi = float_to_float(in, A, et, in->t2), lo = float_to_float(in, B, et, in->t2);
  return lo | hi << sh;
}

/* ---- integer helpers
** ---------------------------------------------------------------------------- */
uint64_t plX__mulhi(uint64_t a, uint64_t b, int t) {
  int bits = tb(t);
  if (bits == 64) {
    if (tsig(t)) return (uint64_t)(((i128)(int64_t)a * (int64_t)b) >> 64);
    return (uint64_t)(((unsigned __int128)a * b) >> 64);
  }
  if (tsig(t)) return zx((uint64_t)((sx(a, bits) * sx(b, bits)) >> bits), bits);
  return zx((zx(a, bits) * zx(b, bits)) >> bits, bits);
}

uint64_t plX__mulwide(uint64_t a, uint64_t b, int t) {
  int bits = tb(t);
  if (tsig(t)) return zx((uint64_t)(sx(a, bits) * sx(b, bits)), 2 * bits);
  return zx(zx(a, bits) * zx(b, bits), 2 * bits);
}

uint64_t plX__brev(uint64_t v, int bits) {
  uint64_t r = 0;
  for (int i = 0; i < bits; i++) r |= ((v >> i) & 1) << (bits - 1 - i);
  return r;
}

uint64_t plX__bfind(uint64_t a, int t, int shiftamt) {
  int bits = tb(t);
  uint64_t v = zx(a, bits);
  if (tsig(t) && (v >> (bits - 1) & 1)) v = zx(~v, bits);
  if (!v) return 0xffffffffu;
  int pos = 63 - __builtin_clzll(v);
  return shiftamt ? (uint64_t)(bits - 1 - pos) : (uint64_t)pos;
}

uint64_t plX__bfe(uint64_t a, uint32_t pos, uint32_t len, int t) {
  int bits = tb(t), msb = bits - 1;
  pos &= 0xff;
  len &= 0xff;
  uint64_t av = zx(a, bits);
  int sbit = 0;
  if (tsig(t) && len) {
    uint32_t p = pos + len - 1;
    if (p > (uint32_t)msb) p = (uint32_t)msb;
    sbit = (int)(av >> p & 1);
  }
  uint64_t r = 0;
  for (int i = 0; i <= msb; i++) {
    int bit = ((uint32_t)i < len && pos + (uint32_t)i <= (uint32_t)msb)
                  ? (int)(av >> (pos + (uint32_t)i) & 1)
                  : sbit;
    r |= (uint64_t)bit << i;
  }
  return r;
}

uint64_t plX__bfi(uint64_t a, uint64_t b, uint32_t pos, uint32_t len, int t) {
  int bits = tb(t), msb = bits - 1;
  pos &= 0xff;
  len &= 0xff;
  uint64_t f = zx(b, bits);
  for (uint32_t i = 0; i < len && pos + i <= (uint32_t)msb; i++)
    f = (f & ~(1ull << (pos + i))) | ((a >> i & 1) << (pos + i));
  return f;
}

uint32_t plX__prmt(uint32_t a, uint32_t b, uint32_t c, int mode) {
  uint64_t x = (uint64_t)b << 32 | a;
  uint32_t r = 0;
  if (!mode) {
    for (int i = 0; i < 4; i++) {
      uint32_t sel = c >> (4 * i) & 15;
      uint32_t byte = (uint32_t)(x >> (8 * (sel & 7))) & 0xff;
      if (sel & 8) byte = (byte & 0x80) ? 0xff : 0;
      r |= byte << (8 * i);
    }
    return r;
  }
  static const uint8_t tab[6][4][4] = {
    /* [mode][c & 3][byte 0..3]: source byte */
    { { 0, 1, 2, 3 }, { 1, 2, 3, 4 }, { 2, 3, 4, 5 }, { 3, 4, 5, 6 } }, /* f4e */
    { { 0, 7, 6, 5 }, { 1, 0, 7, 6 }, { 2, 1, 0, 7 }, { 3, 2, 1, 0 } }, /* b4e */
    { { 0, 0, 0, 0 }, { 1, 1, 1, 1 }, { 2, 2, 2, 2 }, { 3, 3, 3, 3 } }, /* rc8 */
    { { 0, 1, 2, 3 }, { 1, 1, 2, 3 }, { 2, 2, 2, 3 }, { 3, 3, 3, 3 } }, /* ecl */
    { { 0, 0, 0, 0 }, { 0, 1, 1, 1 }, { 0, 1, 2, 2 }, { 0, 1, 2, 3 } }, /* ecr */
    { { 0, 1, 0, 1 }, { 2, 3, 2, 3 }, { 0, 1, 0, 1 }, { 2, 3, 2, 3 } }, /* rc16 */
  };
  for (int i = 0; i < 4; i++)
    r |= (uint32_t)((x >> (8 * tab[mode - 1][c & 3][i])) & 0xff) << (8 * i);
  return r;
}

/* ---- special registers
** --------------------------------------------------------------------------- */
uint64_t plX__sreg(plX_emu *e, plX_warp *w, int id, int l) {
  uint32_t tid = (uint32_t)w->idx * 32 + (uint32_t)l;
  switch (id) {
  case XSR_TID_X: return tid % e->block[0];
  case XSR_TID_Y: return tid / e->block[0] % e->block[1];
  case XSR_TID_Z: return tid / (e->block[0] * e->block[1]);
  case XSR_NTID_X: return e->block[0];
  case XSR_NTID_Y: return e->block[1];
  case XSR_NTID_Z: return e->block[2];
  case XSR_CTAID_X: return e->C->ctaid[0];
  case XSR_CTAID_Y: return e->C->ctaid[1];
  case XSR_CTAID_Z: return e->C->ctaid[2];
  case XSR_NCTAID_X: return e->grid[0];
  case XSR_NCTAID_Y: return e->grid[1];
  case XSR_NCTAID_Z: return e->grid[2];
  case XSR_LANEID: return (uint64_t)l;
  case XSR_WARPID: return (uint64_t)w->idx;
  case XSR_NWARPID: return e->nwarps;
  case XSR_SMID:
  case XSR_GRIDID:
  case XSR_ZERO: return 0;
  case XSR_NSMID:
  case XSR_ONE: return 1;
  case XSR_LANEMASK_EQ: return 1u << l;
  case XSR_LANEMASK_LE: return l == 31 ? 0xffffffffu : (2u << l) - 1;
  case XSR_LANEMASK_LT: return (1u << l) - 1;
  case XSR_LANEMASK_GE: return ~((1u << l) - 1) & 0xffffffffu;
  case XSR_LANEMASK_GT: return l == 31 ? 0 : ~((2u << l) - 1) & 0xffffffffu;
  case XSR_CLOCK: return (uint32_t)w->clock;
  case XSR_CLOCK_HI: return (uint32_t)(w->clock >> 32);
  case XSR_CLOCK64: return w->clock;
  case XSR_GLOBALTIMER: return e->st.warp_insns * 32;
  case XSR_DYNSMEM: return e->dyn_smem;
  case XSR_CL_RANK: return e->C->rank;
  case XSR_CL_NRANK: return e->H.ncl;
  case XSR_CL_CTAID_X: return e->C->ctaid[0] % e->H.cl[0];
  case XSR_CL_CTAID_Y: return e->C->ctaid[1] % e->H.cl[1];
  case XSR_CL_CTAID_Z: return e->C->ctaid[2] % e->H.cl[2];
  case XSR_CL_NCTAID_X: return e->H.cl[0];
  case XSR_CL_NCTAID_Y: return e->H.cl[1];
  case XSR_CL_NCTAID_Z: return e->H.cl[2];
  case XSR_CLID_X: return e->C->ctaid[0] / e->H.cl[0];
  case XSR_CLID_Y: return e->C->ctaid[1] / e->H.cl[1];
  case XSR_CLID_Z: return e->C->ctaid[2] / e->H.cl[2];
  case XSR_NCLID_X: return e->grid[0] / e->H.cl[0];
  case XSR_NCLID_Y: return e->grid[1] / e->H.cl[1];
  case XSR_NCLID_Z: return e->grid[2] / e->H.cl[2];
  case XSR_CL_EXPLICIT: return (uint64_t)e->H.explicit_cl;
  case XSR_TOTALSMEM: return e->smem_size;
  }
  return 0;
}

/* ---- atomics
** ------------------------------------------------------------------------------------ */
uint64_t plX__atom_op(const plX_ins *in, uint64_t old, uint64_t b, uint64_t c) {
  int t = in->t, bits = tb(t);
  switch (in->sub) {
  case XA_ADD:
    switch (t) {
    case PLT_F32: {
      uint64_t r =
          plX__add(plX__flush(f32(old), XFMT_F32), plX__flush(f32(b), XFMT_F32), XFMT_F32, XR_RN);
      return plX__flush_bits(r, XFMT_F32); /* atom.add.f32 flushes subnormals */
    }
    case PLT_F64: return plX__add(f64(old), f64(b), XFMT_F64, XR_RN);
    case PLT_F16:
    case PLT_BF16: {
      int fmt = plX__fmt_of(t);
      return plX__add(plX__to_double(old, fmt), plX__to_double(b, fmt), fmt, XR_RN);
    }
    case PLT_F16X2:
    case PLT_BF16X2: {
      int fmt = plX__fmt_of(t);
      uint64_t lo =
          plX__add(plX__to_double(old & 0xffff, fmt), plX__to_double(b & 0xffff, fmt), fmt, XR_RN);
      uint64_t hi = plX__add(plX__to_double(old >> 16 & 0xffff, fmt),
                             plX__to_double(b >> 16 & 0xffff, fmt), fmt, XR_RN);
      return lo | hi << 16;
    }
    default: return zx(old + b, bits);
    }
  case XA_MIN:
    return tsig(t) ? (sx(old, bits) < sx(b, bits) ? old : b)
                   : (zx(old, bits) < zx(b, bits) ? old : b);
  case XA_MAX:
    return tsig(t) ? (sx(old, bits) > sx(b, bits) ? old : b)
                   : (zx(old, bits) > zx(b, bits) ? old : b);
  case XA_INC: return (uint32_t)old >= (uint32_t)b ? 0 : (uint32_t)old + 1;
  case XA_DEC:
    return ((uint32_t)old == 0 || (uint32_t)old > (uint32_t)b) ? (uint32_t)b : (uint32_t)old - 1;
  case XA_AND: return old & b;
  case XA_OR: return old | b;
  case XA_XOR: return old ^ b;
  case XA_EXCH: return b;
  case XA_CAS: return zx(old, bits) == zx(b, bits) ? c : old;
  }
  return old;
}

/* ---- element functions ----------------------------------------------------------------------- */
/* the operations that isa_ops.h gives an element function E_<name>: d = E(in, a, b, c) per lane.
** Adding one is a row of isa_ops.h, the op in the forms' rows of the ISA table, and the function */

/* add.u16x2, add.s16x2: two 16-bit halves, each wrapping (signed or not, the bits are the same) */
static uint64_t E_add16x2(const plX_ins *in, uint64_t a, uint64_t b, uint64_t c) {
  (void)in;
  (void)c;
  uint32_t lo = (uint32_t)(a + b) & 0xffffu;
  uint32_t hi = (uint32_t)((a >> 16) + (b >> 16)) & 0xffffu;
  return lo | hi << 16;
}

#define E__ NULL
const plX_elem_fn plX__elem[X__COUNT] = {
#define PL_OP(name, dec, arity, elem) E_##elem,
#include "isa_ops.h"
#undef PL_OP
};
#undef E__
