/* types.h -- the PTX fundamental types, as one X-macro list.
** name, PTX spelling, width in bits, class, PTX type used to declare a register of it. */
#ifndef PL_TYPES_H
#define PL_TYPES_H

#include <stddef.h>
#include <stdint.h>

enum { PLT_CNONE, PLT_CPRED, PLT_CB, PLT_CU, PLT_CS, PLT_CF };

#define PL_TYPELIST(_)                   \
  _(NONE, "", 0, PLT_CNONE, NONE)        \
  _(PRED, "pred", 1, PLT_CPRED, PRED)    \
  _(B8, "b8", 8, PLT_CB, B8)             \
  _(B16, "b16", 16, PLT_CB, B16)         \
  _(B32, "b32", 32, PLT_CB, B32)         \
  _(B64, "b64", 64, PLT_CB, B64)         \
  _(B128, "b128", 128, PLT_CB, B128)     \
  _(U8, "u8", 8, PLT_CU, U8)             \
  _(U16, "u16", 16, PLT_CU, U16)         \
  _(U32, "u32", 32, PLT_CU, U32)         \
  _(U64, "u64", 64, PLT_CU, U64)         \
  _(S8, "s8", 8, PLT_CS, S8)             \
  _(S16, "s16", 16, PLT_CS, S16)         \
  _(S32, "s32", 32, PLT_CS, S32)         \
  _(S64, "s64", 64, PLT_CS, S64)         \
  _(F16, "f16", 16, PLT_CF, F16)         \
  _(F16X2, "f16x2", 32, PLT_CF, F16X2)   \
  _(BF16, "bf16", 16, PLT_CF, B16)       \
  _(BF16X2, "bf16x2", 32, PLT_CF, B32)   \
  _(TF32, "tf32", 32, PLT_CF, B32)       \
  _(F32, "f32", 32, PLT_CF, F32)         \
  _(F64, "f64", 64, PLT_CF, F64)         \
  _(E4M3, "e4m3", 8, PLT_CF, B8)         \
  _(E5M2, "e5m2", 8, PLT_CF, B8)         \
  _(E4M3X2, "e4m3x2", 16, PLT_CF, B16)   \
  _(E5M2X2, "e5m2x2", 16, PLT_CF, B16)   \
  _(E2M1X2, "e2m1x2", 8, PLT_CF, B8)     \
  _(E2M3X2, "e2m3x2", 16, PLT_CF, B16)   \
  _(E3M2X2, "e3m2x2", 16, PLT_CF, B16)   \
  _(UE8M0X2, "ue8m0x2", 16, PLT_CF, B16) \
  _(E2M1, "e2m1", 4, PLT_CF, B8)         \
  _(E2M3, "e2m3", 8, PLT_CF, B8)         \
  _(E3M2, "e3m2", 8, PLT_CF, B8)         \
  _(UE8M0, "ue8m0", 8, PLT_CF, B8)       \
  _(UE4M3, "ue4m3", 8, PLT_CF, B8)       \
  _(F32X2, "f32x2", 64, PLT_CF, B64)     \
  _(E4M3X4, "e4m3x4", 32, PLT_CF, B32)   \
  _(E5M2X4, "e5m2x4", 32, PLT_CF, B32)   \
  _(E2M1X4, "e2m1x4", 16, PLT_CF, B16)   \
  _(E2M3X4, "e2m3x4", 32, PLT_CF, B32)   \
  _(E3M2X4, "e3m2x4", 32, PLT_CF, B32)

enum {
#define PLT_ENUM(n, s, w, c, d) PLT_##n,
  PL_TYPELIST(PLT_ENUM)
#undef PLT_ENUM
      PLT__COUNT
};

typedef struct plB_typeinfo {
  const char *name;
  uint16_t bits;
  uint8_t cls;
  uint8_t decl;
} plB_typeinfo;
extern const plB_typeinfo plB_type_info[PLT__COUNT];

int plB_type_from_name(const char *s, size_t n); /* PLT_NONE (0) if not a type name */
/* may a register of type `reg` stand where an instruction of type `ins` wants one? As ptxas:
** .bN takes any register of N bits; .uN/.sN take .bN/.uN/.sN; a float type takes itself or .bN.
** relaxed (ld/st/cvt operands marked so in the table): the register may also be wider. */
int plB_type_compatible(int ins, int reg, int relaxed);
/* the integer immediates an operand of type t takes, as ptxas: any value its N bits hold, read as
** signed or unsigned whatever the type (add.u32 %r, %r, -1 is 4294967295); N = 64 for no type.
** Sets [*lo, *hi] and returns N. */
int plB_type_imm_range(int t, double *lo, double *hi);

#endif
