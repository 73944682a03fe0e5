/* dlpack.h -- tensors ptxlua does not own (DLPack) checked against what a kernel declares of a
** pointer parameter. One function, plE_tensor_check, decides whether a tensor fits: the kernel's
** declarations (today a pointer's element type and its `shape`) fill a plE_tensor_decl, whatever
** declares more later fills more of it. */
#ifndef PL_API_DLPACK_H
#define PL_API_DLPACK_H

#include <stddef.h>
#include <stdint.h>
#include <dlpack/dlpack.h>

#define PLE_MAXDIM 8

/* one declared extent: a number, a scalar parameter's value, or text ptxlua cannot evaluate here */
enum { PLE_DIM_FIXED = 1, PLE_DIM_PARAM, PLE_DIM_OPEN };
typedef struct plE_dim {
  int kind;
  int64_t value; /* FIXED */
  int param;     /* PARAM: the parameter's index */
  char text[48]; /* as the script wrote it */
} plE_dim;

typedef struct plE_tensor_decl {
  char dtype[16]; /* the element type: "f32", "bf16", "b32", ...; "" any */
  int code;       /* the DLPack type code dtype means (-1: any of `bits`, a .bN type) */
  unsigned bits;  /* its width, lanes included (0: the dtype is not a tensor's type) */
  int ndim;       /* -1: no shape declared */
  plE_dim dims[PLE_MAXDIM];
} plE_tensor_decl;

/* the device a launch runs on: emu (CPU memory) or CUDA device `ordinal` */
typedef struct plE_tensor_dev {
  int cuda, ordinal;
} plE_tensor_dev;

/* code and bits from dtype: once, when the declaration is read (the check formats nothing) */
void plE_decl_parse(plE_tensor_decl *decl);
/* does t fit decl on dev? 0, else -1 with why in `why` ("a tensor of shape [3, 4] where ...").
** param_values[j] / have_value[j]: the integer arguments of the launch, for extents naming them
** (NULL: none known). *bytes: the span of memory the tensor covers from its first element. */
int plE_tensor_check(const plE_tensor_decl *decl, const DLTensor *t, plE_tensor_dev dev,
                     const int64_t *param_values, const unsigned char *have_value, uint64_t *bytes,
                     char *why, size_t n);
/* the span in bytes of a tensor's elements (strides honoured); -1 with why if it is malformed */
int plE_tensor_span(const DLTensor *t, uint64_t *bytes, char *why, size_t n);
/* a DLPack element type by ptxlua's name ("f32", "bf16", "s8", ...); "?" when it has none */
void plE_dtype_name(DLDataType dt, char *out, size_t n);

#endif
