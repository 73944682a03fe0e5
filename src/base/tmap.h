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
  PLB_TM_TF32_FTZ
};
int plB_tmap_dtype(const char *dtype); /* -1 if none */
int plB_tmap_swizzle(const char *s);   /* -1 if unknown */
int plB_tmap_interleave(const char *s);
int plB_tmap_l2promotion(const char *s);
int plB_tmap_oobfill(const char *s);

#endif
