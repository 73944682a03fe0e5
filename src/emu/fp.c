/* fp.c -- floating-point formats for the emulator, rounded exactly in every mode. Every narrow
** result is computed from an exact value (or an exact pair s + t), then rounded once. */
#include "state.h"
#include "fp.h"
#include "types.h"
#include <math.h>
#include <fenv.h>
#include <string.h>
#include <float.h>

typedef struct {
  int eb, mb, bias, inf;
} fmtd;
static const fmtd FM[] = {
  { 5, 10, 15, 1 },    /* f16 */
  { 8, 7, 127, 1 },    /* bf16 */
  { 8, 10, 127, 1 },   /* tf32 (stored as f32 bits, low 13 bits zero) */
  { 8, 23, 127, 1 },   /* f32 */
  { 11, 52, 1023, 1 }, /* f64 */
  { 4, 3, 7, 0 },      /* e4m3: no infinity, S.1111.111 is NaN, 448 the largest */
  { 5, 2, 15, 1 },     /* e5m2 */
};

int plX__fmt_of(int t) {
  switch (t) {
  case PLT_F16:
  case PLT_F16X2: return XFMT_F16;
  case PLT_BF16:
  case PLT_BF16X2: return XFMT_BF16;
  case PLT_TF32: return XFMT_TF32;
  case PLT_F32: return XFMT_F32;
  case PLT_F64: return XFMT_F64;
  case PLT_E4M3:
  case PLT_E4M3X2: return XFMT_E4M3;
  case PLT_E5M2:
  case PLT_E5M2X2: return XFMT_E5M2;
  default: return -1;
  }
}

static uint64_t layout(int fmt, int sign, uint64_t expf, uint64_t mant) {
  const fmtd *F = &FM[fmt];
  if (fmt == XFMT_TF32) return (uint64_t)sign << 31 | expf << 23 | mant << 13;
  return (uint64_t)sign << (F->eb + F->mb) | expf << F->mb | mant;
}

static uint64_t maxfinite(int fmt, int sign) {
  const fmtd *F = &FM[fmt];
  uint64_t em = (1u << F->eb) - 1, mm = (1ull << F->mb) - 1;
  if (!F->inf) return layout(fmt, sign, em, mm - 1);
  return layout(fmt, sign, em - 1, mm);
}

static uint64_t infinity(int fmt, int sign) {
  const fmtd *F = &FM[fmt];
  if (!F->inf) return layout(fmt, sign, (1u << F->eb) - 1, (1ull << F->mb) - 1); /* e4m3: NaN */
  return layout(fmt, sign, (1u << F->eb) - 1, 0);
}

uint64_t plX__canon_nan(int fmt) {
  switch (fmt) {
  case XFMT_F16:
  case XFMT_BF16: return 0x7fff;
  case XFMT_F64: return 0x7fffffffffffffffull;
  case XFMT_E4M3:
  case XFMT_E5M2: return 0x7f;
  default: return 0x7fffffff;
  }
}

static uint64_t overflow(int fmt, int sign, int mode, int satf) {
  if (satf) return maxfinite(fmt, sign);
  switch (mode) {
  case XR_RZ: return maxfinite(fmt, sign);
  case XR_RM: return sign ? infinity(fmt, sign) : maxfinite(fmt, sign);
  case XR_RP: return sign ? maxfinite(fmt, sign) : infinity(fmt, sign);
  default: return infinity(fmt, sign);
  }
}

/* Rounding of sign * (m + f) * 2^e: keep the bits down to the format's ulp, decide on the rest
** (its comparison with half an ulp, and whether anything is left at all). */
uint64_t plX__round_int(int sign, uint64_t m, int e, int st, int fmt, int mode, int satf) {
  const fmtd *F = &FM[fmt];
  if (m == 0 && !st) return layout(fmt, sign, 0, 0);
  int emin = 1 - F->bias;
  int q;
  if (m) {
    int top = 63 - __builtin_clzll(m);
    int E = top + e;
    q = (E > emin ? E : emin) - F->mb;
  } else
    q = emin - F->mb;
  int shift = q - e;
  uint64_t keep, rem = 0, half = 0;
  if (shift <= 0)
    keep = m << -shift; /* fits: the value has at most mb + 1 bits here */
  else if (shift > 64) {
    keep = 0;
    rem = m ? 1 : 0;
    half = 2;
  } /* far below half an ulp */
  else if (shift == 64) {
    keep = 0;
    rem = m;
    half = 1ull << 63;
  } else {
    keep = m >> shift;
    rem = m & ((1ull << shift) - 1);
    half = 1ull << (shift - 1);
  }
  if (shift > 64 && m) {
    rem = 1;
    half = 2;
  }
  int nonzero = rem != 0 || st;
  int inc = 0;
  switch (mode) {
  case XR_RZ: break;
  case XR_RM: inc = sign && nonzero; break;
  case XR_RP: inc = !sign && nonzero; break;
  case XR_RNA: inc = half && rem >= half; break;
  default: inc = half && (rem > half || (rem == half && (st || (keep & 1)))); break;
  }
  keep += (uint64_t)inc;
  if (keep >> (F->mb + 1)) {
    keep >>= 1;
    q++;
  }
  uint64_t expf, mant;
  if (keep >> F->mb) {
    expf = (uint64_t)(q + F->mb + F->bias);
    mant = keep & ((1ull << F->mb) - 1);
  } else {
    expf = 0;
    mant = keep;
  }
  uint64_t em = (1u << F->eb) - 1;
  if (F->inf ? expf >= em : (expf > em || (expf == em && mant == (1ull << F->mb) - 1)))
    return overflow(fmt, sign, mode, satf);
  return layout(fmt, sign, expf, mant);
}

/* s + t exactly, |t| <= half an ulp of s (as TwoSum gives it); tsign alone when t is only a sign */
static uint64_t round2(double s, double t, int tsign, int fmt, int mode, int satf) {
  if (isnan(s)) return plX__canon_nan(fmt);
  int sign = signbit(s) != 0;
  if (isinf(s)) return satf ? maxfinite(fmt, sign) : infinity(fmt, sign);
  if (t != 0) tsign = t > 0 ? 1 : -1;
  if (fmt == XFMT_F64) { /* s is already the nearest double: directed modes step one ulp */
    double r = s;
    if (tsign && mode != XR_RN && mode != XR_NONE && mode != XR_RNA) {
      if (mode == XR_RZ) {
        if ((tsign > 0) != (s > 0) && s != 0)
          r = nextafter(s, 0.0);
        else if (s == 0)
          r = 0;
      } else if (mode == XR_RM && tsign < 0)
        r = nextafter(s, -INFINITY);
      else if (mode == XR_RP && tsign > 0)
        r = nextafter(s, INFINITY);
    }
    if (isinf(r) && satf) r = copysign(DBL_MAX, r);
    uint64_t b;
    memcpy(&b, &r, 8);
    return b;
  }
  if (s == 0) { /* only an infinitesimal is left */
    if (!tsign) return layout(fmt, sign, 0, 0);
    return plX__round_int(tsign < 0, 0, -2000, 1, fmt, mode, satf);
  }
  int e;
  double fr = frexp(fabs(s), &e);
  uint64_t m = (uint64_t)ldexp(fr, 53); /* |s| = m * 2^(e - 53) */
  int rel = tsign == 0 ? 0 : ((tsign > 0) == (s > 0) ? 1 : -1);
  if (rel == 0) return plX__round_int(sign, m, e - 53, 0, fmt, mode, satf);
  if (t != 0 && fabs(t) == ldexp(1.0, e - 54)) /* exactly half an ulp away */
    return plX__round_int(sign, 2 * m + (uint64_t)(int64_t)rel, e - 54, 0, fmt, mode, satf);
  return plX__round_int(sign, 2 * m - (rel < 0 ? 1 : 0), e - 54, 1, fmt, mode, satf);
}

uint64_t plX__round(double x, int sticky, int fmt, int mode, int satf) {
  /* one hardware rounding is exact */
  if (!sticky && !satf && (mode == XR_RN || mode == XR_NONE)) {
    if (fmt == XFMT_F32) {
      if (x != x) return 0x7fffffff;
      float f = (float)x;
      uint32_t u;
      memcpy(&u, &f, 4);
      return u;
    }
    if (fmt == XFMT_F64) {
      if (x != x) return 0x7fffffffffffffffull;
      uint64_t u;
      memcpy(&u, &x, 8);
      return u;
    }
  }
  return round2(x, 0, sticky, fmt, mode, satf);
}

double plX__to_double(uint64_t bits, int fmt) {
  if (fmt == XFMT_F32 || fmt == XFMT_TF32) {
    uint32_t u = (uint32_t)bits;
    float f;
    memcpy(&f, &u, 4);
    return f;
  }
  if (fmt == XFMT_F64) {
    double d;
    memcpy(&d, &bits, 8);
    return d;
  }
  if (fmt == XFMT_BF16) {
    uint32_t u = (uint32_t)(bits & 0xffff) << 16;
    float f;
    memcpy(&f, &u, 4);
    return f;
  }
  if (fmt == XFMT_F16) { /* normal numbers: widen the fields into an f32 */
    uint32_t h = (uint32_t)bits & 0xffff, ex = h >> 10 & 31, mant = h & 1023, sign = h >> 15;
    if (ex != 0 && ex != 31) {
      uint32_t u = sign << 31 | (ex + 112) << 23 | mant << 13;
      float f;
      memcpy(&f, &u, 4);
      return f;
    }
  }
  const fmtd *F = &FM[fmt];
  int sign = (int)(bits >> (F->eb + F->mb)) & 1;
  uint64_t expf = (bits >> F->mb) & ((1u << F->eb) - 1), mant = bits & ((1ull << F->mb) - 1);
  uint64_t em = (1u << F->eb) - 1;
  double v;
  if (F->inf && expf == em)
    v = mant ? NAN : INFINITY;
  else if (!F->inf && expf == em && mant == (1ull << F->mb) - 1)
    v = NAN;
  else if (expf == 0)
    v = ldexp((double)mant, 1 - F->bias - F->mb);
  else
    v = ldexp((double)(mant | (1ull << F->mb)), (int)expf - F->bias - F->mb);
  return sign ? -v : v;
}

int plX__isnan(uint64_t bits, int fmt) {
  return isnan(plX__to_double(bits, fmt));
}

double plX__flush(double x, int fmt) {
  const fmtd *F = &FM[fmt];
  if (x != 0 && fabs(x) < ldexp(1.0, 1 - F->bias)) return copysign(0.0, x);
  return x;
}

/* ---- exact operations ----------------------------------------------------------------------- */
static uint64_t zero_sum(double a, double b, int fmt, int mode) { /* an exact zero sum */
  int sign = (a == 0 && b == 0)
                 ? (mode == XR_RM ? (signbit(a) || signbit(b)) : (signbit(a) && signbit(b)))
                 : mode == XR_RM;
  return layout(fmt, sign, 0, 0);
}

uint64_t plX__add(double a, double b, int fmt, int mode) {
  double s = a + b;
  if (isnan(s)) return plX__canon_nan(fmt);
  if (isinf(s)) {
    if (isfinite(a) && isfinite(b)) return overflow(fmt, s < 0, mode, 0);
    return infinity(fmt, s < 0);
  }
  double bb = s - a, t = (a - (s - bb)) + (b - bb);
  if (s == 0 && t == 0) return zero_sum(a, b, fmt, mode);
  return round2(s, t, 0, fmt, mode, 0);
}

uint64_t plX__mul(double a, double b, int fmt, int mode) {
  double p = a * b;
  if (isnan(p)) return plX__canon_nan(fmt);
  if (isinf(p)) {
    if (isfinite(a) && isfinite(b)) return overflow(fmt, p < 0, mode, 0);
    return infinity(fmt, p < 0);
  }
  /* narrower formats: the double product is exact */
  double t = fmt == XFMT_F64 ? fma(a, b, -p) : 0;
  if (p == 0 && t == 0 && a != 0 && b != 0) { /* a double underflow: only f64 gets here */
    return round2(0, 0, (signbit(a) != signbit(b)) ? -1 : 1, fmt, mode, 0);
  }
  return round2(p, t, 0, fmt, mode, 0);
}

static double __attribute__((noinline)) fma_directed(double a, double b, double c, int mode) {
  volatile double va = a, vb = b, vc = c;
  int old = fegetround();
  fesetround(mode == XR_RZ ? FE_TOWARDZERO : mode == XR_RM ? FE_DOWNWARD : FE_UPWARD);
  volatile double r = fma(va, vb, vc);
  fesetround(old);
  return r;
}

uint64_t plX__fma(double a, double b, double c, int fmt, int mode) {
  if (fmt == XFMT_F64) {
    double r = (mode == XR_RZ || mode == XR_RM || mode == XR_RP) ? fma_directed(a, b, c, mode)
                                                                 : fma(a, b, c);
    if (isnan(r)) return plX__canon_nan(fmt);
    uint64_t u;
    memcpy(&u, &r, 8);
    return u;
  }
  double p = a * b; /* exact: at most 2 x 24 significant bits */
  if (isnan(p)) return plX__canon_nan(fmt);
  double s = p + c;
  if (isnan(s)) return plX__canon_nan(fmt);
  if (isinf(s)) return infinity(fmt, s < 0);
  double bb = s - p, t = (p - (s - bb)) + (c - bb);
  if (s == 0 && t == 0) return zero_sum(p, c, fmt, mode);
  return round2(s, t, 0, fmt, mode, 0);
}

uint64_t plX__div(double a, double b, int fmt, int mode) {
  double q = a / b;
  if (isnan(q)) return plX__canon_nan(fmt);
  if (isinf(q)) {
    if (isfinite(a) && b != 0) return overflow(fmt, q < 0, mode, 0);
    return infinity(fmt, q < 0);
  }
  if (q == 0) {
    if (a == 0 || isinf(b)) return layout(fmt, signbit(q) != 0, 0, 0);
    return round2(0, 0, (signbit(a) != signbit(b)) ? -1 : 1, fmt, mode, 0);
  }
  double r = fma(-q, b, a); /* exact remainder: a - q*b */
  int st = r == 0 ? 0 : ((r > 0) == (b > 0) ? 1 : -1);
  return round2(q, 0, st, fmt, mode, 0);
}

uint64_t plX__sqrt(double a, int fmt, int mode) {
  double s = sqrt(a);
  if (isnan(s)) return plX__canon_nan(fmt);
  if (isinf(s) || s == 0) return round2(s, 0, 0, fmt, mode, 0);
  double r = fma(-s, s, a);
  return round2(s, 0, r == 0 ? 0 : (r > 0 ? 1 : -1), fmt, mode, 0);
}

/* ---- the API's view (emu.h) ------------------------------------------------------------------ */
int plX_fp_format(int type) {
  return plX__fmt_of(type);
}
uint64_t plX_fp_round(int fmt, double x) {
  return plX__round(x, 0, fmt, XR_RN, 0);
}
double plX_fp_value(int fmt, uint64_t bits) {
  return plX__to_double(bits, fmt);
}
