/* ptxlua.h -- the public C API of ptxlua: load a kernel script, set its template parameters,
** and get its PTX. One opaque engine handle; integer result codes; the last error's message
** and the script file:line it points at are kept on the handle until the next call on it. */
#ifndef PTXLUA_H
#define PTXLUA_H

#include <stddef.h>
#include <stdint.h>
#include <stdio.h>

#ifdef __cplusplus
extern "C" {
#endif

#if defined(__GNUC__)
#define PTXLUA_API __attribute__((visibility("default")))
#else
#define PTXLUA_API
#endif

#define PTXLUA_VERSION_STRING "0.1.0"

/* result codes */
enum {
  PTXLUA_OK = 0,
  PTXLUA_ERROR = 1, /* an error in the script or kernel: see ptxlua_errmsg */
  PTXLUA_NOMEM = 2,
  PTXLUA_IO = 3,    /* reading or writing a file failed */
  PTXLUA_MISUSE = 4 /* a bad argument to the API itself */
};

/* flags for the PTX text */
enum {
  PTXLUA_ANCHOR_COMMENTS = 1, /* "// file:line" after each instruction */
  PTXLUA_ANCHOR_LOC = 2 /* .file / .loc directives (profilers and ptxas point at the script) */
};

typedef struct ptxlua_engine ptxlua_engine;

PTXLUA_API const char *ptxlua_version(void);

/* an engine: one Lua state with the DSL loaded; NULL on out of memory */
PTXLUA_API ptxlua_engine *ptxlua_open(void);
PTXLUA_API void ptxlua_close(ptxlua_engine *e); /* NULL is a no-op */

/* where the DSL's Lua files are (default: found beside the executable or the build tree) */
PTXLUA_API int ptxlua_set_lua_dir(ptxlua_engine *e, const char *dir);

/* load and run a kernel script; kernels it defines replace those of a previous load */
PTXLUA_API int ptxlua_load_file(ptxlua_engine *e, const char *path);
PTXLUA_API int ptxlua_load_string(ptxlua_engine *e, const char *chunkname, const char *text,
                                  size_t len);

/* kernels of the loaded script */
PTXLUA_API int ptxlua_kernel_count(ptxlua_engine *e);
PTXLUA_API const char *ptxlua_kernel_name(ptxlua_engine *e, int i); /* valid until the next load */

/* template parameters (as with -D NAME=VALUE); value NULL removes the override */
PTXLUA_API int ptxlua_define(ptxlua_engine *e, const char *name, const char *value);
/* override every kernel's target ("sm_90a", "sm_100a", ...); NULL restores the scripts' own.
** An unknown target is PTXLUA_MISUSE (the previous setting stays). */
PTXLUA_API int ptxlua_set_arch(ptxlua_engine *e, const char *arch);

/* PTX of one kernel (name), several (comma separated) or all (NULL), in one module.
** ptxlua_ptx: *out is malloc'ed text the caller frees with ptxlua_free.
** ptxlua_write_ptx: written atomically (a temporary file renamed into place). */
PTXLUA_API int ptxlua_ptx(ptxlua_engine *e, const char *kernels, int flags, char **out,
                          size_t *len);
PTXLUA_API int ptxlua_write_ptx(ptxlua_engine *e, const char *kernels, int flags, const char *path);
/* streamed to an open stream (standard output, a pipe): nothing is held in memory twice */
PTXLUA_API int ptxlua_fwrite_ptx(ptxlua_engine *e, const char *kernels, int flags, FILE *f);
PTXLUA_API void ptxlua_free(void *p);

/* opt-in checks for ptxlua_emulate (always on: out-of-bounds and misaligned accesses, deadlocks,
** and the Hopper checks of docs/emulator.md -- proxy fences, wgmma.fence, in-flight copies,
** mbarrier inits, ...) */
enum {
  /* races: shared memory between two barriers, global memory across warps and CTAs */
  PTXLUA_CHECK_RACES = 1,
  PTXLUA_CHECK_UNINIT_SHARED = 2, /* reads of never-written shared memory */
  PTXLUA_CHECK_UNINIT_REGS = 4    /* reads of never-written registers */
};
/* run kernels (as ptxlua_ptx selects them) in the CPU emulator on generated inputs sized by their
** parameters' shapes; *summary (malloc'ed, free with ptxlua_free) says what ran and what it wrote.
** A kernel that declares a reference is compared with it: a mismatch is PTXLUA_ERROR with *summary
** still set (it says which elements are off) and the error message naming the largest error */
PTXLUA_API int ptxlua_emulate(ptxlua_engine *e, const char *kernels, int checks, char **summary);
/* the emulator's budget: the warp instructions one launch may run (ptxlua_emulate, and
** ptxlua_launch on "emu"), past which it stops with an error naming where each warp still running
** is (SIGINT stops it the same way). PTXLUA_LIMIT_DEFAULT (10^8, docs/emulator.md) or
** PTXLUA_LIMIT_NONE. ptxlua_emulate refuses a launch a quick sample says would exceed the default
** budget (or run over an hour), naming its cost and the templates that shrink it; a limit set
** here, any but the default, lets it run. */
#define PTXLUA_LIMIT_DEFAULT 0u
#define PTXLUA_LIMIT_NONE    UINT64_MAX
PTXLUA_API int ptxlua_set_emu_limit(ptxlua_engine *e, uint64_t warp_insns);
/* the emulator's cluster launch control (ptxlua_emulate, and ptxlua_launch on "emu"): which
** clusterlaunchcontrol.try_cancel requests succeed -- PTXLUA_CLC_ALL (the default: each one while a
** cluster of the launch has not started), PTXLUA_CLC_NONE (none: the kernel's fallback path) or
** PTXLUA_CLC_ALTERNATE (alternately, the first succeeding) */
enum { PTXLUA_CLC_ALL = 0, PTXLUA_CLC_NONE = 1, PTXLUA_CLC_ALTERNATE = 2 };
PTXLUA_API int ptxlua_set_emu_clc(ptxlua_engine *e, int mode);

/* assembling (no GPU needed): nvJitLink from the CUDA toolkit, else the ptxas binary, through a
** disk cache ($PTXLUA_CACHE_DIR, $XDG_CACHE_HOME/ptxlua, ~/.cache/ptxlua). Flags add to the PTX
** ones. */
enum {
  PTXLUA_NO_CACHE = 0x100, /* neither read nor write the cache */
  PTXLUA_JSON = 0x200      /* ptxlua_check: the report as JSON */
};
/* resources of one assembled function (valid until the next call on the engine) */
typedef struct ptxlua_resources {
  const char *kernel;
  int registers, barriers;
  long smem_static, smem_dynamic; /* bytes; dynamic: the kernel's `smem` for its templates */
  long stack_frame, spill_stores, spill_loads;
  int warnings;
} ptxlua_resources;
/* assemble the kernels and report their resources; *report (malloc'ed) is a table per kernel with
** warnings at the script's lines (JSON with PTXLUA_JSON). An assembly error is PTXLUA_ERROR with
** every error as "file:line: error: ..." in ptxlua_errmsg (the report is still filled). */
PTXLUA_API int ptxlua_check(ptxlua_engine *e, const char *kernels, int flags, char **report);
PTXLUA_API int ptxlua_resource_count(ptxlua_engine *e);
PTXLUA_API const ptxlua_resources *ptxlua_resource(ptxlua_engine *e, int i);
/* the cubin of the kernels (malloc'ed; free with ptxlua_free) */
PTXLUA_API int ptxlua_compile(ptxlua_engine *e, const char *kernels, int flags, void **cubin,
                              size_t *len);
/* remove every cache entry; returns how many, or -1 */
PTXLUA_API int ptxlua_clear_cache(void);

/* ---- running kernels: a device, its buffers, prepared kernels, launches with typed arguments ----
** A device is "emu" (the CPU emulator: exact, slow, always there) or "cuda:N" (GPU N through the
** driver, loaded at run time). Devices, buffers and kernels belong to the engine they were opened
** on; errors go to that engine's ptxlua_errmsg. ptxlua_close closes what is still open. */
typedef struct ptxlua_device ptxlua_device;
typedef struct ptxlua_buffer ptxlua_buffer;
typedef struct ptxlua_kernel ptxlua_kernel;

/* name "emu" or "cuda:0" ("cuda" = "cuda:0"); without a driver "cuda:N" is PTXLUA_ERROR naming
** the missing piece */
PTXLUA_API int ptxlua_device_open(ptxlua_engine *e, const char *name, ptxlua_device **out);
/* its buffers and kernels too; NULL no-op */
PTXLUA_API void ptxlua_device_close(ptxlua_device *d);
PTXLUA_API int ptxlua_device_sync(ptxlua_device *d); /* wait for every launch */
PTXLUA_API const char *
ptxlua_device_describe(ptxlua_device *d); /* "emu", "cuda:0 (NVIDIA H200, sm_90)" */

/* device memory: bytes, not zeroed */
PTXLUA_API int ptxlua_buffer_alloc(ptxlua_device *d, size_t bytes, ptxlua_buffer **out);
PTXLUA_API int ptxlua_buffer_upload(ptxlua_buffer *b, size_t offset, const void *src, size_t bytes);
PTXLUA_API int ptxlua_buffer_download(ptxlua_buffer *b, size_t offset, void *dst, size_t bytes);
PTXLUA_API uint64_t ptxlua_buffer_address(const ptxlua_buffer *b); /* the device address */
PTXLUA_API size_t ptxlua_buffer_size(const ptxlua_buffer *b);
PTXLUA_API void ptxlua_buffer_free(ptxlua_buffer *b); /* NULL is a no-op */

/* a TMA tensor map over a buffer (on "emu", the emulator's own encoding), passed by value to a
** `tensormap` parameter: dims innermost first, strides in bytes for dims 2..rank (NULL: packed),
** box the tile a copy moves, swizzle "none", "32B", "64B" or "128B"; dtype "bf16", "f16", "f32",
** "u8", ... */
#if defined(__GNUC__)
typedef struct ptxlua_tensormap {
  unsigned char bytes[128];
} __attribute__((aligned(64))) ptxlua_tensormap;
#else
typedef struct ptxlua_tensormap {
  _Alignas(64) unsigned char bytes[128];
} ptxlua_tensormap;
#endif
PTXLUA_API int ptxlua_tensormap_encode(ptxlua_buffer *b, const char *dtype, int rank,
                                       const uint64_t *dims, const uint64_t *strides,
                                       const uint32_t *box, const char *swizzle,
                                       ptxlua_tensormap *out);

/* an im2col tensor map (cuTensorMapEncodeIm2col; on "emu", the emulator's encoding) for the
** cp.async.bulk.tensor.{3,4,5}d ... .im2col forms: rank 3, 4 or 5 (NWC, NHWC, NDHWC; dims C first,
** N last). The box a copy moves is pixels_per_column pixels of channels_per_pixel channels, the
** pixels walked W first inside the pixel box (lower_corner .. dims - 1 + upper_corner per spatial
** dim, rank - 2 entries each, W first). NULL strings take the defaults. */
typedef struct ptxlua_im2col {
  const int *lower_corner, *upper_corner; /* rank - 2 entries each, W first */
  uint32_t channels_per_pixel;            /* 1..256 */
  uint32_t pixels_per_column;             /* 1..1024 */
  const uint32_t *element_strides;        /* rank entries (the traversal strides); NULL: all 1 */
  const char *swizzle;                    /* "none" (NULL), "32B", "64B", "128B" */
  const char *interleave;                 /* "none" (NULL), "16B", "32B" (not on "emu") */
  const char *l2_promotion;               /* "none", "64B", "128B" (NULL), "256B" */
  const char *oob_fill;                   /* "zero" (NULL), "nan" (floating-point types) */
} ptxlua_im2col;
PTXLUA_API int ptxlua_tensormap_encode_im2col(ptxlua_buffer *b, const char *dtype, int rank,
                                              const uint64_t *dims, const uint64_t *strides,
                                              const ptxlua_im2col *spec, ptxlua_tensormap *out);

/* a kernel of the loaded script, traced with the engine's current template parameters and target,
** assembled (through the cache) and loaded on the device once; later ptxlua_define calls do not
** change it (prepare again). */
PTXLUA_API int ptxlua_kernel_prepare(ptxlua_device *d, const char *kernel, ptxlua_kernel **out);
PTXLUA_API void ptxlua_kernel_free(ptxlua_kernel *k); /* NULL is a no-op */

/* its parameters, as the script declared them and the .param layout places them */
enum { PTXLUA_PARAM_POINTER = 1, PTXLUA_PARAM_SCALAR, PTXLUA_PARAM_TENSORMAP, PTXLUA_PARAM_BYTES };
typedef struct ptxlua_param {
  const char *name;
  int kind;          /* PTXLUA_PARAM_* */
  const char *dtype; /* scalar: "u32", "f32", ...; pointer: the element type; else "b8" */
  unsigned offset, size, align; /* in the parameter block */
} ptxlua_param;
PTXLUA_API int ptxlua_kernel_param_count(const ptxlua_kernel *k);
PTXLUA_API int ptxlua_kernel_param(const ptxlua_kernel *k, int i, ptxlua_param *p);
/* the kernel's own launch geometry for its templates (grid/block/cluster {x, y, z}, dynamic
** smem) */
PTXLUA_API int ptxlua_kernel_dims(const ptxlua_kernel *k, unsigned grid[3], unsigned block[3],
                                  unsigned cluster[3], unsigned *smem);

/* a typed argument: build them with the ptxlua_arg_* functions below */
enum {
  PTXLUA_ARG_BUFFER = 1,
  PTXLUA_ARG_ADDRESS,
  PTXLUA_ARG_TENSORMAP,
  PTXLUA_ARG_BYTES,
  PTXLUA_ARG_U8,
  PTXLUA_ARG_U16,
  PTXLUA_ARG_U32,
  PTXLUA_ARG_U64,
  PTXLUA_ARG_S8,
  PTXLUA_ARG_S16,
  PTXLUA_ARG_S32,
  PTXLUA_ARG_S64,
  PTXLUA_ARG_F16,
  PTXLUA_ARG_BF16,
  PTXLUA_ARG_F32,
  PTXLUA_ARG_F64,
  PTXLUA_ARG_DLPACK /* a DLPack tensor for a pointer parameter (below) */
};
struct DLManagedTensor; /* <dlpack/dlpack.h>; only pointers to it here */
typedef struct ptxlua_arg {
  int type;    /* PTXLUA_ARG_* */
  size_t size; /* PTXLUA_ARG_BYTES: the byte count */
  union {
    const ptxlua_buffer *buffer;
    const ptxlua_tensormap *tensormap;
    const void *bytes;
    const struct DLManagedTensor *dlpack;
    uint64_t u; /* unsigned integers, an address, f16/bf16 bits */
    int64_t s;
    double f;
  } v;
} ptxlua_arg;
static inline ptxlua_arg ptxlua_arg_make_(int type) {
  ptxlua_arg a;
  a.type = type;
  a.size = 0;
  a.v.u = 0;
  return a;
}
static inline ptxlua_arg ptxlua_arg_buffer(const ptxlua_buffer *b) {
  ptxlua_arg a = ptxlua_arg_make_(PTXLUA_ARG_BUFFER);
  a.v.buffer = b;
  return a;
}
static inline ptxlua_arg ptxlua_arg_address(uint64_t p) {
  ptxlua_arg a = ptxlua_arg_make_(PTXLUA_ARG_ADDRESS);
  a.v.u = p;
  return a;
}
static inline ptxlua_arg ptxlua_arg_tensormap(const ptxlua_tensormap *t) {
  ptxlua_arg a = ptxlua_arg_make_(PTXLUA_ARG_TENSORMAP);
  a.v.tensormap = t;
  return a;
}
static inline ptxlua_arg ptxlua_arg_bytes(const void *p, size_t n) {
  ptxlua_arg a = ptxlua_arg_make_(PTXLUA_ARG_BYTES);
  a.v.bytes = p;
  a.size = n;
  return a;
}
static inline ptxlua_arg ptxlua_arg_u32(uint32_t x) {
  ptxlua_arg a = ptxlua_arg_make_(PTXLUA_ARG_U32);
  a.v.u = x;
  return a;
}
static inline ptxlua_arg ptxlua_arg_u64(uint64_t x) {
  ptxlua_arg a = ptxlua_arg_make_(PTXLUA_ARG_U64);
  a.v.u = x;
  return a;
}
static inline ptxlua_arg ptxlua_arg_s32(int32_t x) {
  ptxlua_arg a = ptxlua_arg_make_(PTXLUA_ARG_S32);
  a.v.s = x;
  return a;
}
static inline ptxlua_arg ptxlua_arg_s64(int64_t x) {
  ptxlua_arg a = ptxlua_arg_make_(PTXLUA_ARG_S64);
  a.v.s = x;
  return a;
}
static inline ptxlua_arg ptxlua_arg_f32(float x) {
  ptxlua_arg a = ptxlua_arg_make_(PTXLUA_ARG_F32);
  a.v.f = x;
  return a;
}
static inline ptxlua_arg ptxlua_arg_f64(double x) {
  ptxlua_arg a = ptxlua_arg_make_(PTXLUA_ARG_F64);
  a.v.f = x;
  return a;
}
static inline ptxlua_arg ptxlua_arg_dlpack(const struct DLManagedTensor *t) {
  ptxlua_arg a = ptxlua_arg_make_(PTXLUA_ARG_DLPACK);
  a.v.dlpack = t;
  return a;
}
static inline ptxlua_arg ptxlua_arg_scalar(int type, uint64_t bits) {
  ptxlua_arg a = ptxlua_arg_make_(type);
  a.v.u = bits;
  return a;
} /* u8/u16/s8/s16/f16/bf16 by their bits */

/* launch: grid/block NULL = the kernel's own (ptxlua_kernel_dims), cluster dims the kernel's;
** smem the dynamic shared bytes (PTXLUA_SMEM_KERNEL: the kernel's `smem`); stream a CUstream (NULL:
** the default stream; ignored by "emu"). The arguments are checked against the parameters (count,
** kind, dtype, size) first: a mismatch is PTXLUA_MISUSE naming the argument, and nothing runs.
** On "emu" the launch runs to completion; on CUDA it is asynchronous (ptxlua_device_sync).
** A launch of a prepared kernel on CUDA does not allocate and does not enter Lua. */
#define PTXLUA_SMEM_KERNEL 0xFFFFFFFFu
PTXLUA_API int ptxlua_launch(ptxlua_kernel *k, const unsigned grid[3], const unsigned block[3],
                             unsigned smem, void *stream, const ptxlua_arg *args, int nargs);

/* the same launch with its arguments in one block (a binding fills the block once per kernel and
** changes only what a call changes: one argument to pass, not seven) */
typedef struct ptxlua_launch_args {
  ptxlua_kernel *kernel;
  const unsigned *grid, *block; /* NULL: the kernel's own */
  unsigned smem;                /* PTXLUA_SMEM_KERNEL: the kernel's */
  void *stream;
  const ptxlua_arg *args;
  int nargs;
} ptxlua_launch_args;
PTXLUA_API int ptxlua_launch_block(const ptxlua_launch_args *l);

/* ---- tensors ptxlua does not own: DLPack (<dlpack/dlpack.h>, Debian's libdlpack-dev) ----------
** A DLPack tensor is borrowed: never copied, and never released (its deleter stays the caller's
** to call). On "emu" it is CPU memory (kDLCPU, kDLCUDAHost), which the emulated kernel reads and
** writes in place; on "cuda:N" memory of device N (kDLCUDA, kDLCUDAManaged; the driver is asked
** where the pointer lives). It must outlive the launch (on CUDA: until its stream has run it).
** A bare DLTensor goes in a DLManagedTensor on the stack ({t, NULL, NULL}).
**
** ptxlua_arg_dlpack(t) passes it to a pointer parameter. Before anything runs, the launch checks it
** against the parameter's declaration ({"x", "f32*", shape = {"n", 4}}): the device, the element
** type, the rank and each extent (a number, a template, or a scalar parameter's value in this
** launch), packed row-major strides and an element-aligned address. A mismatch is PTXLUA_MISUSE
** naming the argument, the parameter and both shapes; nothing is launched.
**
** A tensormap parameter that declares the tensor it views (ptx.tensormap { of = "A", box = ...,
** swizzle = ... }) takes that tensor instead of a map, and the launch builds the map (on "emu" the
** emulator's encoding, on CUDA cuTensorMapEncodeTiled / Im2col): a DLPack tensor (checked as
** above, against the viewed tensor's declaration; its strides are the map's, any with the
** innermost one 1, unless the declaration fixes them; dims and strides from its shape), or a
** buffer or an address (the declaration gives the shape and strides: each extent must be known at
** the launch). Box, element strides, swizzle and im2col's fields come from the declaration. A
** prebuilt map (ptxlua_arg_tensormap) is still taken as it is. */
/* the shape pointer parameter i declares (for a tensormap parameter: of the tensor it views):
** its rank (-1: none declared; PTXLUA_MISUSE: neither a pointer nor a map); per extent (up to
** max) its value (-1 if not a number for these templates) and the index of the scalar parameter
** it names (-1 if none: a number, or arithmetic over scalars, which the launch checks) */
PTXLUA_API int ptxlua_kernel_param_shape(const ptxlua_kernel *k, int i, int64_t *dims, int *params,
                                         int max);
/* the tensor tensormap parameter i views (ptx.tensormap { of = "A", ... }): *tensor its name (NULL:
** the map declares none, and takes only a prebuilt map), *param the index of the pointer parameter
** of that name (-1: a `tensors` entry of the kernel). PTXLUA_MISUSE: not a tensormap parameter. */
PTXLUA_API int ptxlua_kernel_param_view(const ptxlua_kernel *k, int i, const char **tensor,
                                        int *param);
/* a buffer over memory ptxlua does not own: on "emu" `bytes` of host memory at ptr, on CUDA a
** device address (as a pointer) of this device. Kernels, copies and tensor maps take it like any
** buffer; ptxlua_buffer_free forgets it and frees nothing. */
PTXLUA_API int ptxlua_buffer_wrap(ptxlua_device *d, void *ptr, size_t bytes, ptxlua_buffer **out);
/* the same over a DLPack tensor's memory (its first element to its last, strides honoured) */
PTXLUA_API int ptxlua_buffer_wrap_dlpack(ptxlua_device *d, const struct DLManagedTensor *t,
                                         ptxlua_buffer **out);
/* tensor maps over an address of device memory rather than a buffer (a buffer's address plus an
** offset; on CUDA any allocation of the device, as the driver sees it; on "emu" inside a buffer,
** wrapped ones included); the arguments otherwise as ptxlua_tensormap_encode(_im2col) */
PTXLUA_API int ptxlua_tensormap_encode_address(ptxlua_device *d, uint64_t addr, const char *dtype,
                                               int rank, const uint64_t *dims,
                                               const uint64_t *strides, const uint32_t *box,
                                               const char *swizzle, ptxlua_tensormap *out);
PTXLUA_API int ptxlua_tensormap_encode_im2col_address(ptxlua_device *d, uint64_t addr,
                                                      const char *dtype, int rank,
                                                      const uint64_t *dims, const uint64_t *strides,
                                                      const ptxlua_im2col *spec,
                                                      ptxlua_tensormap *out);

/* ---- ahead of time: C source with the cubins embedded (ptxlua --emit-c DIR) --------------------
** Each kernel (as ptxlua_ptx selects them), traced with the engine's templates and target and
** assembled (through the cache; PTXLUA_NO_CACHE in flags: not), goes into DIR/NAME.h and
** DIR/NAME.c: its cubin as a byte array and a typed launcher NAME_KERNEL_launch(stream, arguments
** in parameter order), with NAME_load / NAME_unload, the driver opened by dlopen("libcuda.so.1"):
** no LuaJIT and no libptxlua at run time (docs/interop.md, "Ahead of time: --emit-c"). NAME must be
** a C identifier; script (or NULL) is named in the files' first comment. DIR is made when missing
** (one level); nothing is written unless every kernel assembled, and both files replace what DIR
** held together. */
PTXLUA_API int ptxlua_emit_c(ptxlua_engine *e, const char *kernels, int flags, const char *dir,
                             const char *name, const char *script);

/* the last error: message as "file:line: error: text", and its parts (file NULL, line 0 if none) */
PTXLUA_API const char *ptxlua_errmsg(ptxlua_engine *e);
PTXLUA_API const char *ptxlua_errfile(ptxlua_engine *e);
PTXLUA_API int ptxlua_errline(ptxlua_engine *e);

#ifdef __cplusplus
}
#endif
#endif
