/* types.c -- PTX type names and the operand type-compatibility rules.
** The rules are those of the PTX ISA ("Type checking"), as ptxas applies them. */
#include <math.h>
#include "types.h"
#include <string.h>

const plB_typeinfo plB_type_info[PLT__COUNT] = {
#define PLT_INFO(n, s, w, c, d) { s, w, c, PLT_##d },
  PL_TYPELIST(PLT_INFO)
#undef PLT_INFO
};

int plB_type_from_name(const char *s, size_t n) {
  for (int i = 1; i < PLT__COUNT; i++)
    if (strlen(plB_type_info[i].name) == n && memcmp(plB_type_info[i].name, s, n) == 0) return i;
  return PLT_NONE;
}

int plB_type_compatible(int ins, int reg, int relaxed) {
  if (ins == reg) return 1;
  if (ins <= PLT_NONE || reg <= PLT_NONE || ins >= PLT__COUNT || reg >= PLT__COUNT) return 0;
  const plB_typeinfo *I = &plB_type_info[ins], *R = &plB_type_info[reg];
  if (I->cls == PLT_CPRED || R->cls == PLT_CPRED) return 0;
  int sizeok = relaxed ? (R->bits >= I->bits) : (R->bits == I->bits);
  switch (I->cls) {
  case PLT_CB: /* .bN takes any register of the size */ return sizeok;
  case PLT_CU:
  case PLT_CS: /* integers take .bN, .uN, .sN */
    return sizeok && (R->cls == PLT_CB || R->cls == PLT_CU || R->cls == PLT_CS);
  case PLT_CF: /* floats take their own type or .bN of the size (relaxed: of at least the size) */
    return R->cls == PLT_CB && sizeok;
  }
  return 0;
}

int plB_type_imm_range(int t, double *lo, double *hi) {
  int bits = t == PLT_NONE || t < 0 || t >= PLT__COUNT ? 64 : plB_type_info[t].bits;
  if (bits >= 64) {
    *lo = -9223372036854775808.0;
    *hi = 18446744073709551615.0;
    return 64;
  }
  *lo = -ldexp(1, bits - 1);
  *hi = ldexp(1, bits) - 1;
  return bits;
}
