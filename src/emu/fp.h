/* fp.h -- floating-point formats and exact rounding (fp.c). */
#ifndef PL_EMU_FP_H
#define PL_EMU_FP_H

#include <stdint.h>
#include "emu.h"

/* the formats: emu.h's, by their short names */
enum {
  XFMT_F16 = PLX_FP_F16,
  XFMT_BF16 = PLX_FP_BF16,
  XFMT_TF32 = PLX_FP_TF32,
  XFMT_F32 = PLX_FP_F32,
  XFMT_F64 = PLX_FP_F64,
  XFMT_E4M3 = PLX_FP_E4M3,
  XFMT_E5M2 = PLX_FP_E5M2
};
/* round (x + an infinitesimal of sign `sticky` relative to x, |that| < half an ulp of x in double)
** into fmt with mode XR_RN/RZ/RM/RP; satf: clamp infinities and overflow to the largest finite */
uint64_t plX__round(double x, int sticky, int fmt, int mode, int satf);
/* the same from sign * (m + f) * 2^e, f in (0, 1) when st, else f = 0 */
uint64_t plX__round_int(int sign, uint64_t m, int e, int st, int fmt, int mode, int satf);
double plX__to_double(uint64_t bits, int fmt);
int plX__isnan(uint64_t bits, int fmt);
int plX__fmt_of(int type); /* PLT_* -> XFMT_*, -1 if not a float */
/* exact operations on doubles that hold values of fmt, rounded once into fmt */
uint64_t plX__add(double a, double b, int fmt, int mode);
uint64_t plX__mul(double a, double b, int fmt, int mode);
uint64_t plX__fma(double a, double b, double c, int fmt, int mode);
uint64_t plX__div(double a, double b, int fmt, int mode);
uint64_t plX__sqrt(double a, int fmt, int mode);
uint64_t plX__canon_nan(int fmt);
double plX__flush(double x, int fmt); /* subnormal of fmt -> signed zero */

#endif
