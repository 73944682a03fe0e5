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

/* one declared extent: a number, a scalar parameter's value, arithmetic over scalar parameters
** (postfix: PLE_OP_*), or text ptxlua cannot evaluate here */
enum { PLE_DIM_FIXED = 1, PLE_DIM_PARAM, PLE_DIM_EXPR, PLE_DIM_OPEN };
enum {
  PLE_OP_NUM = 1,
  PLE_OP_PARAM,
  PLE_OP_ADD,
  PLE_OP_SUB,
  PLE_OP_MUL,
  PLE_OP_DIV,
  PLE_OP_MOD,
  PLE_OP_POW,
  PLE_OP_NEG
};
#define PLE_MAXOPS 24
typedef struct plE_dim {
  int kind;
  int64_t value; /* FIXED */
  int param;     /* PARAM: the parameter's index */
  int nops;      /* EXPR: op[i] with arg[i] (a number, a parameter's index) */
  unsigned char op[PLE_MAXOPS];
  double arg[PLE_MAXOPS];
  char text[48]; /* as the script wrote it */
} plE_dim;

typedef struct plE_tensor_decl {
  char name[64];  /* the tensor's name ("x", "A") */
  char dtype[16]; /* the element type: "f32", "bf16", "b32", ...; "" any */
  int code;       /* the DLPack type code dtype means (-1: any of `bits`, a .bN type) */
  unsigned bits;  /* its width, lanes included (0: the dtype is not a tensor's type) */
  int ndim;       /* -1: no shape declared */
  plE_dim dims[PLE_MAXDIM];
  int nstrides; /* declared strides (elements, outermost first); 0: none (packed) */
  plE_dim strides[PLE_MAXDIM];
} plE_tensor_decl;

/* a `tensormap` parameter's declaration: the tensor it views and the map's fields, templates
** resolved (docs/dsl.md, "Tensors and tensor maps") */
typedef struct plE_view {
  int present;       /* the parameter declares the tensor it views */
  char err[512];     /* its fields could not be read for these templates: why ("" none) */
  plE_tensor_decl t; /* the tensor */
  int of_param;      /* the pointer parameter it is; -1: a `tensors` entry of the kernel */
  int im2col;        /* mode = "im2col" */
  char tmdtype[16];  /* the map's element type ("bf16"; "u8" for an 8-bit narrow float) */
  int nbox, nes;     /* box (tile maps), element strides (0: all 1), innermost first */
  plE_dim box[5], es[5];
  char swizzle[8], interleave[8], l2[8], oob[8]; /* "" the default */
  int ncorner;                                   /* im2col: the pixel box corners, W first */
  int lower[3], upper[3];
  int has_cpp, has_ppc; /* channels per pixel, pixels per column */
  plE_dim cpp, ppc;
} plE_view;

/* the value of extent x for a launch's integer arguments: 0 with *v, else -1 (open, or a
** parameter the launch passes no integer for) */
int plE_dim_value(const plE_dim *x, const int64_t *pv, const unsigned char *have, double *v);

/* the device a launch runs on: emu (CPU memory) or CUDA device `ordinal` */
typedef struct plE_tensor_dev {
  int cuda, ordinal;
} plE_tensor_dev;

/* code and bits from dtype: once, when the declaration is read (the check formats nothing) */
void plE_decl_parse(plE_tensor_decl *decl);
/* does t fit decl on dev? 0, else -1 with why in `why` ("a tensor of shape [3, 4] where ...").
** param_values[j] / have_value[j]: the integer arguments of the launch, for extents naming them
** (NULL: none known). *bytes: the span of memory the tensor covers from its first element.
** strided: the tensor is read through a tensor map, which takes any strides with the innermost
** one 1 (a pointer parameter reads it packed); declared strides must be the tensor's either way. */
int plE_tensor_check(const plE_tensor_decl *decl, const DLTensor *t, plE_tensor_dev dev,
                     const int64_t *param_values, const unsigned char *have_value, int strided,
                     uint64_t *bytes, char *why, size_t n);
/* the span in bytes of a tensor's elements (strides honoured); -1 with why if it is malformed */
int plE_tensor_span(const DLTensor *t, uint64_t *bytes, char *why, size_t n);
/* a DLPack element type by ptxlua's name ("f32", "bf16", "s8", ...); "?" when it has none */
void plE_dtype_name(DLDataType dt, char *out, size_t n);

/* decl.c: c_info's tables (lua/ptxlua/tensors.lua) at the top of L's stack: an extent, a tensor
** (dtype: the pointer's when the table has none), a map's view (the parameter's whole entry) */
struct lua_State;
void plE_read_ext(struct lua_State *L, plE_dim *x);
void plE_read_tensor(struct lua_State *L, plE_tensor_decl *d, const char *dtype);
void plE_read_view(struct lua_State *L, plE_view *v);

#endif
