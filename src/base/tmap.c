/* tmap.c -- the tensor-map codes both devices read: element types, swizzles, interleaves,
** L2 promotions and out-of-bounds fills by name, as the CUDA driver numbers them. */
#include <string.h>
#include "tmap.h"

int plB_tmap_dtype(const char *t) {
  static const char *names[] = { "u8",  "u16", "u32",  "s32",     "u64",  "s64",     "f16",
                                 "f32", "f64", "bf16", "f32_ftz", "tf32", "tf32_ftz" };
  for (int i = 0; i < 13; i++)
    if (strcmp(t, names[i]) == 0) return i;
  if (strcmp(t, "16u4_align8b") == 0) return PLB_TM_16U4_ALIGN8B;
  if (strcmp(t, "16u4_align16b") == 0) return PLB_TM_16U4_ALIGN16B;
  if (strcmp(t, "16u6_align16b") == 0) return PLB_TM_16U6_ALIGN16B;
  if (strcmp(t, "b8") == 0 || strcmp(t, "s8") == 0) return PLB_TM_U8;
  if (strcmp(t, "b16") == 0 || strcmp(t, "s16") == 0) return PLB_TM_U16;
  if (strcmp(t, "b32") == 0) return PLB_TM_U32;
  if (strcmp(t, "b64") == 0) return PLB_TM_U64;
  return -1;
}
int plB_tmap_bits(int dt) {
  static const unsigned char B[] = { 8, 16, 32, 32, 64, 64, 16, 32, 64, 16, 32, 32, 32, 4, 4, 6 };
  return dt >= 0 && dt < (int)sizeof B ? B[dt] : 0;
}
int plB_tmap_swizzle(const char *s) {
  if (!s || strcmp(s, "none") == 0) return 0;
  if (strcmp(s, "32B") == 0 || strcmp(s, "32") == 0) return 1;
  if (strcmp(s, "64B") == 0 || strcmp(s, "64") == 0) return 2;
  if (strcmp(s, "128B") == 0 || strcmp(s, "128") == 0) return 3;
  return -1;
}

int plB_tmap_interleave(const char *s) {
  if (!s || strcmp(s, "none") == 0) return 0;
  if (strcmp(s, "16B") == 0) return 1;
  if (strcmp(s, "32B") == 0) return 2;
  return -1;
}
int plB_tmap_l2promotion(const char *s) {
  if (!s) return 2; /* the default of ptxlua's tile maps: 128B */
  if (strcmp(s, "none") == 0) return 0;
  if (strcmp(s, "64B") == 0) return 1;
  if (strcmp(s, "128B") == 0) return 2;
  if (strcmp(s, "256B") == 0) return 3;
  return -1;
}
int plB_tmap_oobfill(const char *s) {
  if (!s || strcmp(s, "zero") == 0) return 0;
  if (strcmp(s, "nan") == 0) return 1;
  return -1;
}
