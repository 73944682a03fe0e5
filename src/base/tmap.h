/* tmap.h -- the tensor-map codes both devices read (the CUDA driver's numbering); the parsers
** give -1 for an unknown name. */
#ifndef PL_TMAP_H
#define PL_TMAP_H

/* element types (CUtensorMapDataType) */
enum {
  PLB_TM_U8,
  PLB_TM_U16,
  PLB_TM_U32,
  PLB_TM_S32,
  PLB_TM_U64,
  PLB_TM_S64,
  PLB_TM_F16,
  PLB_TM_F32,
  PLB_TM_F64,
  PLB_TM_BF16,
  PLB_TM_F32_FTZ,
  PLB_TM_TF32,
  PLB_TM_TF32_FTZ,
  /* packed sub-byte values (CUDA 12.8): 16 x 4 bits in 8 bytes, in shared memory dense or each
  ** 8 bytes in a 16-byte slot; 16 x 6 bits in 12 bytes, each 12 in a 16-byte slot */
  PLB_TM_16U4_ALIGN8B,
  PLB_TM_16U4_ALIGN16B,
  PLB_TM_16U6_ALIGN16B
};
/* by name: "u8" .. "tf32_ftz", the .bN and .sN spellings, and "16u4_align8b", "16u4_align16b",
** "16u6_align16b"; -1 if none */
int plB_tmap_dtype(const char *dtype);
int plB_tmap_bits(int dtype); /* the bits of one element (4 and 6 for the packed ones); 0 unknown */
int plB_tmap_swizzle(const char *s); /* -1 if unknown */
int plB_tmap_interleave(const char *s);
int plB_tmap_l2promotion(const char *s);
int plB_tmap_oobfill(const char *s);

#endif
