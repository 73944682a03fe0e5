/* launch.c -- the C launch API of include/ptxlua.h: devices ("emu", "cuda:N"), buffers, tensor
** maps, prepared kernels and launches with typed arguments checked against the kernel's
** parameters. Preparing a kernel enters Lua (trace, then assemble through the cache and load on
** CUDA); the CUDA launch of a prepared kernel does not: it checks the arguments, packs them into
** the kernel's preallocated parameter block and calls cuLaunchKernelEx -- no allocation, no Lua. */
#include <lua.h>
#include <lauxlib.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include "engine.h"
#include "dlpack.h"
#include "emu.h"
#include "compile.h"
#include "print.h"
#include "driver.h"
#include "types.h"
#include "util.h"

enum { DEV_EMU, DEV_CUDA };

struct ptxlua_device {
  ptxlua_engine *e;
  int kind;
  plX_mem *mem;  /* emu: the device memory */
  plC_device cu; /* cuda: the device and its primary context */
  char desc[320];
  ptxlua_buffer *buffers;
  ptxlua_kernel *kernels;
  ptxlua_device *next; /* the engine's list */
};

struct ptxlua_buffer {
  ptxlua_device *d;
  uint64_t addr;
  size_t bytes;
  int borrowed; /* ptxlua_buffer_wrap: memory the caller owns, never freed */
  ptxlua_buffer *next, **prev;
};

typedef struct kparam {
  char name[64];
  char dtype[16];
  int kind, type; /* PTXLUA_PARAM_*, PLT_* of the declaration */
  /* a .u64/.b64 parameter read from PTX (a pointer or an integer): takes a buffer, an address,
  ** or a 64-bit integer argument */
  int addr_int;
  unsigned offset, size, align;
  plE_tensor_decl decl; /* a pointer: what a tensor passed to it must be (dlpack.c) */
  plE_view *view;       /* a tensormap: the tensor it views and the map's fields (NULL: none) */
} kparam;

struct ptxlua_kernel {
  ptxlua_device *d;
  char name[256];
  char file[1024];
  int line;
  int np;
  kparam *p;
  unsigned grid[3], block[3], cluster[3], smem;
  /* cuda: the cluster the cubin was compiled for (0s: none): no launch attribute */
  unsigned ct_cluster[3];
  int has_grid, has_block;
  /* cuda */
  void *module, *fn;
  /* the dynamic shared memory the function was allowed (cuFuncSetAttribute) */
  unsigned smem_set;
  unsigned char *block_store; /* the parameter bytes, 64-byte aligned slots */
  void **params;              /* params[i] -> its slot */
  int64_t *pv;                /* a launch's integer arguments, for the extents that name them */
  unsigned char *have;        /* pv[i] holds one */
  /* a launch's tensor arguments: the device address each is passed as (on "emu", the mapping a
  ** tensor argument made, released after the run) */
  uint64_t *dladdr;
  /* the maps a launch builds for tensormap parameters given a tensor (64-byte aligned) */
  ptxlua_tensormap *maps;
  /* emu */
  int modref; /* registry ref of the traced module */
  plX_emu *emu;
  ptxlua_kernel *next, **prev;
};

/* ---- errors
** ------------------------------------------------------------------------------------ */
static int fail(ptxlua_engine *e, int code, const char *fmt, ...)
    __attribute__((format(printf, 3, 4)));
static int fail(ptxlua_engine *e, int code, const char *fmt, ...) {
  char buf[4096];
  va_list ap;
  va_start(ap, fmt);
  vsnprintf(buf, sizeof buf, fmt, ap);
  va_end(ap);
  return plE_set_error(e, code, buf);
}

/* ---- devices
** ----------------------------------------------------------------------------------- */
PTXLUA_API int ptxlua_device_open(ptxlua_engine *e, const char *name, ptxlua_device **out) {
  if (!e || !name || !out) return PTXLUA_MISUSE;
  *out = NULL;
  plE_clear_error(e);
  ptxlua_device *d = calloc(1, sizeof *d);
  if (!d) return fail(e, PTXLUA_NOMEM, "out of memory");
  d->e = e;
  if (strcmp(name, "emu") == 0) {
    d->kind = DEV_EMU;
    d->mem = plX_mem_new();
    if (!d->mem) {
      free(d);
      return fail(e, PTXLUA_NOMEM, "out of memory");
    }
    snprintf(d->desc, sizeof d->desc, "emu");
  } else if (strncmp(name, "cuda", 4) == 0 && (name[4] == 0 || name[4] == ':')) {
    char *end = NULL;
    long ord = name[4] ? strtol(name + 5, &end, 10) : 0;
    if (name[4] && (end == name + 5 || *end || ord < 0 || ord > 1024)) {
      free(d);
      return fail(e, PTXLUA_MISUSE, "device '%.100s': expected \"emu\" or \"cuda:N\"", name);
    }
    char err[2048];
    d->kind = DEV_CUDA;
    if (plC_device_open((int)ord, &d->cu, err, sizeof err)) {
      free(d);
      return fail(e, PTXLUA_ERROR, "CUDA device %ld is not available: %s", ord, err);
    }
    snprintf(d->desc, sizeof d->desc, "cuda:%ld (%s, sm_%d%d)", ord, d->cu.name, d->cu.cc_major,
             d->cu.cc_minor);
  } else {
    free(d);
    return fail(e, PTXLUA_MISUSE, "device '%.100s': expected \"emu\" or \"cuda:N\"", name);
  }
  ptxlua_device **list = plE_devices(e);
  d->next = *list;
  *list = d;
  *out = d;
  return PTXLUA_OK;
}

PTXLUA_API const char *ptxlua_device_describe(ptxlua_device *d) {
  return d ? d->desc : "";
}

static int make_current(ptxlua_device *d) {
  if (d->kind != DEV_CUDA) return PTXLUA_OK;
  char err[1024];
  if (plC_make_current(d->cu.ctx, err, sizeof err)) return fail(d->e, PTXLUA_ERROR, "%s", err);
  return PTXLUA_OK;
}

PTXLUA_API int ptxlua_device_sync(ptxlua_device *d) {
  if (!d) return PTXLUA_MISUSE;
  plE_clear_error(d->e);
  if (d->kind == DEV_EMU) return PTXLUA_OK;
  int rc = make_current(d);
  if (rc) return rc;
  char err[1024];
  if (plC_sync(err, sizeof err)) return fail(d->e, PTXLUA_ERROR, "%s", err);
  return PTXLUA_OK;
}

PTXLUA_API void ptxlua_device_close(ptxlua_device *d) {
  if (!d) return;
  while (d->kernels) ptxlua_kernel_free(d->kernels);
  while (d->buffers) ptxlua_buffer_free(d->buffers);
  ptxlua_device **list = plE_devices(d->e);
  for (ptxlua_device **p = list; *p; p = &(*p)->next)
    if (*p == d) {
      *p = d->next;
      break;
    }
  if (d->kind == DEV_EMU)
    plX_mem_free(d->mem);
  else
    plC_device_close(&d->cu);
  free(d);
}

/* engine.c: ptxlua_close closes what is left */
void plE_close_devices(ptxlua_engine *e) {
  ptxlua_device **list = plE_devices(e);
  while (*list) ptxlua_device_close(*list);
}

/* ---- buffers
** ----------------------------------------------------------------------------------- */
PTXLUA_API int ptxlua_buffer_alloc(ptxlua_device *d, size_t bytes, ptxlua_buffer **out) {
  if (!d || !out) return PTXLUA_MISUSE;
  *out = NULL;
  plE_clear_error(d->e);
  if (bytes == 0) return fail(d->e, PTXLUA_MISUSE, "a buffer of 0 bytes");
  ptxlua_buffer *b = calloc(1, sizeof *b);
  if (!b) return fail(d->e, PTXLUA_NOMEM, "out of memory");
  if (d->kind == DEV_EMU) {
    b->addr = plX_mem_alloc(d->mem, bytes, NULL);
    if (!b->addr) {
      free(b);
      return fail(d->e, PTXLUA_NOMEM, "out of memory (a buffer of %zu bytes)", bytes);
    }
  } else {
    char err[1024];
    int rc = make_current(d);
    if (rc) {
      free(b);
      return rc;
    }
    if (plC_alloc(&b->addr, bytes, err, sizeof err)) {
      free(b);
      return fail(d->e, PTXLUA_ERROR, "%s", err);
    }
  }
  b->d = d;
  b->bytes = bytes;
  b->next = d->buffers;
  if (d->buffers) d->buffers->prev = &b->next;
  b->prev = &d->buffers;
  d->buffers = b;
  *out = b;
  return PTXLUA_OK;
}

PTXLUA_API uint64_t ptxlua_buffer_address(const ptxlua_buffer *b) {
  return b ? b->addr : 0;
}
PTXLUA_API size_t ptxlua_buffer_size(const ptxlua_buffer *b) {
  return b ? b->bytes : 0;
}

static int range_ok(ptxlua_buffer *b, size_t off, size_t n, const char *what) {
  if (off > b->bytes || n > b->bytes - off)
    return fail(b->d->e, PTXLUA_MISUSE, "%s of %zu bytes at offset %zu: the buffer has %zu", what,
                n, off, b->bytes);
  return PTXLUA_OK;
}

PTXLUA_API int ptxlua_buffer_upload(ptxlua_buffer *b, size_t off, const void *src, size_t n) {
  if (!b || (!src && n)) return PTXLUA_MISUSE;
  plE_clear_error(b->d->e);
  int rc = range_ok(b, off, n, "upload");
  if (rc || !n) return rc;
  if (b->d->kind == DEV_EMU) {
    memcpy(plX_mem_host(b->d->mem, b->addr, NULL) + off, src, n);
    return PTXLUA_OK;
  }
  if ((rc = make_current(b->d))) return rc;
  char err[1024];
  if (plC_htod(b->addr + off, src, n, err, sizeof err))
    return fail(b->d->e, PTXLUA_ERROR, "%s", err);
  return PTXLUA_OK;
}

PTXLUA_API int ptxlua_buffer_download(ptxlua_buffer *b, size_t off, void *dst, size_t n) {
  if (!b || (!dst && n)) return PTXLUA_MISUSE;
  plE_clear_error(b->d->e);
  int rc = range_ok(b, off, n, "download");
  if (rc || !n) return rc;
  if (b->d->kind == DEV_EMU) {
    memcpy(dst, plX_mem_host(b->d->mem, b->addr, NULL) + off, n);
    return PTXLUA_OK;
  }
  if ((rc = make_current(b->d))) return rc;
  char err[1024];
  if (plC_dtoh(dst, b->addr + off, n, err, sizeof err))
    return fail(b->d->e, PTXLUA_ERROR, "%s", err);
  return PTXLUA_OK;
}

PTXLUA_API void ptxlua_buffer_free(ptxlua_buffer *b) {
  if (!b) return;
  /* a wrapped one: forgotten only */
  if (b->d->kind == DEV_EMU)
    plX_mem_release(b->d->mem, b->addr);
  else if (!b->borrowed && make_current(b->d) == PTXLUA_OK)
    plC_free(b->addr);
  *b->prev = b->next;
  if (b->next) b->next->prev = b->prev;
  free(b);
}

/* CUDA: is addr memory of device d? (the driver's pointer attributes) */
static int cuda_owns(ptxlua_device *d, uint64_t addr, char *why, size_t n) {
  int ord = -1;
  char err[512];
  if (plC_pointer_device(addr, &ord, err, sizeof err)) {
    snprintf(why, n, "the driver knows 0x%llx as no device memory (%s)", (unsigned long long)addr,
             err);
    return -1;
  }
  if (ord != d->cu.ordinal) {
    snprintf(why, n, "0x%llx is memory of CUDA device %d, not of cuda:%d", (unsigned long long)addr,
             ord, d->cu.ordinal);
    return -1;
  }
  return 0;
}

static void buffer_link(ptxlua_device *d, ptxlua_buffer *b) {
  b->d = d;
  b->next = d->buffers;
  if (d->buffers) d->buffers->prev = &b->next;
  b->prev = &d->buffers;
  d->buffers = b;
}

PTXLUA_API int ptxlua_buffer_wrap(ptxlua_device *d, void *ptr, size_t bytes, ptxlua_buffer **out) {
  if (!d || !out) return PTXLUA_MISUSE;
  *out = NULL;
  plE_clear_error(d->e);
  if (!ptr || !bytes)
    return fail(d->e, PTXLUA_MISUSE, "a wrapped buffer needs memory: %s",
                ptr ? "0 bytes" : "a NULL pointer");
  ptxlua_buffer *b = calloc(1, sizeof *b);
  if (!b) return fail(d->e, PTXLUA_NOMEM, "out of memory");
  if (d->kind == DEV_EMU) {
    b->addr = plX_mem_map(d->mem, ptr, bytes, "wrapped");
    if (!b->addr) {
      free(b);
      return fail(d->e, PTXLUA_NOMEM, "out of memory (wrapping %zu bytes)", bytes);
    }
  } else {
    char why[768];
    int rc = make_current(d);
    if (rc) {
      free(b);
      return rc;
    }
    b->addr = (uint64_t)(uintptr_t)ptr;
    if (cuda_owns(d, b->addr, why, sizeof why)) {
      free(b);
      return fail(d->e, PTXLUA_MISUSE, "ptxlua_buffer_wrap: %s", why);
    }
  }
  b->bytes = bytes;
  b->borrowed = 1;
  buffer_link(d, b);
  *out = b;
  return PTXLUA_OK;
}

PTXLUA_API int ptxlua_buffer_wrap_dlpack(ptxlua_device *d, const struct DLManagedTensor *mt,
                                         ptxlua_buffer **out) {
  if (!d || !mt || !out) return PTXLUA_MISUSE;
  *out = NULL;
  plE_clear_error(d->e);
  const DLTensor *t = &mt->dl_tensor;
  /* any element type, rank and shape: only the device and the memory's span matter here */
  plE_tensor_decl any;
  memset(&any, 0, sizeof any);
  any.ndim = -1;
  plE_tensor_dev dev = { d->kind == DEV_CUDA, d->kind == DEV_CUDA ? d->cu.ordinal : 0 };
  uint64_t bytes = 0;
  char why[768];
  if (plE_tensor_span(t, &bytes, why, sizeof why))
    return fail(d->e, PTXLUA_MISUSE, "ptxlua_buffer_wrap_dlpack: %s", why);
  DLTensor flat = *t; /* strides need not be packed for a buffer */
  flat.strides = NULL;
  flat.ndim = 0;
  if (plE_tensor_check(&any, &flat, dev, NULL, NULL, 0, &(uint64_t){ 0 }, why, sizeof why))
    return fail(d->e, PTXLUA_MISUSE, "ptxlua_buffer_wrap_dlpack: %s", why);
  if (!bytes)
    return fail(d->e, PTXLUA_MISUSE, "ptxlua_buffer_wrap_dlpack: the tensor has no elements");
  return ptxlua_buffer_wrap(d, (char *)t->data + t->byte_offset, (size_t)bytes, out);
}

/* the byte strides of dims 1.. (given, or packed), and the tensor inside the `limit` bytes a buffer
** has (UINT64_MAX: an address, where the device checks); 0 ok */
static int tm_strides(ptxlua_engine *e, uint64_t limit, int dt, int rank, const uint64_t *dims,
                      const uint64_t *strides, uint64_t st[5]) {
  uint64_t extent = (dims[0] * (uint64_t)plB_tmap_bits(dt) + 7) / 8; /* packed 4- and 6-bit too */
  for (int i = 0; i < rank - 1; i++) {
    st[i] = strides ? strides[i] : extent;
    extent = st[i] * dims[i + 1];
  }
  if (limit != UINT64_MAX && extent > limit)
    return fail(e, PTXLUA_MISUSE, "the tensor map covers %llu bytes: the buffer has %llu",
                (unsigned long long)extent, (unsigned long long)limit);
  return 0;
}

/* a tiled map over addr of device d; limit as tm_strides */
static int tm_encode(ptxlua_device *d, uint64_t addr, uint64_t limit, const char *dtype, int rank,
                     const uint64_t *dims, const uint64_t *strides, const uint32_t *box,
                     const uint32_t *estrides, const char *swizzle, ptxlua_tensormap *out) {
  ptxlua_engine *e = d->e;
  int dt = plB_tmap_dtype(dtype);
  if (dt < 0)
    return fail(e, PTXLUA_MISUSE,
                "tensor map element type '%.40s' (u8 .. f64, bf16, tf32, 16u4_align8b, "
                "16u4_align16b, 16u6_align16b)",
                dtype);
  int sw = plB_tmap_swizzle(swizzle);
  if (sw < 0) return fail(e, PTXLUA_MISUSE, "swizzle '%.40s' (none, 32B, 64B or 128B)", swizzle);
  if (rank < 1 || rank > 5)
    return fail(e, PTXLUA_MISUSE, "a tensor map has 1 to 5 dimensions (got %d)", rank);
  uint64_t st[5];
  if (tm_strides(e, limit, dt, rank, dims, strides, st)) return PTXLUA_MISUSE;
  uint32_t es[5] = { 1, 1, 1, 1, 1 };
  if (estrides) memcpy(es, estrides, (size_t)rank * sizeof es[0]);
  char err[1024];
  if (d->kind != DEV_CUDA) { /* the emulator's own encoding, decoded by its TMA copies */
    if (plX_tensormap(d->mem, out->bytes, dt, rank, addr, dims, st, box, es, sw, err, sizeof err))
      return fail(e, PTXLUA_ERROR, "%s", err);
    return PTXLUA_OK;
  }
  int rc = make_current(d);
  if (rc) return rc;
  if (limit == UINT64_MAX && cuda_owns(d, addr, err, sizeof err))
    return fail(e, PTXLUA_MISUSE, "tensor map: %s", err);
  if (plC_tensormap(out->bytes, dt, rank, addr, dims, st, box, es, sw, err, sizeof err))
    return fail(e, PTXLUA_ERROR, "%s", err);
  return PTXLUA_OK;
}

PTXLUA_API int ptxlua_tensormap_encode(ptxlua_buffer *b, const char *dtype, int rank,
                                       const uint64_t *dims, const uint64_t *strides,
                                       const uint32_t *box, const char *swizzle,
                                       ptxlua_tensormap *out) {
  if (!b || !dtype || !dims || !box || !out) return PTXLUA_MISUSE;
  plE_clear_error(b->d->e);
  return tm_encode(b->d, b->addr, b->bytes, dtype, rank, dims, strides, box, NULL, swizzle, out);
}

PTXLUA_API int ptxlua_tensormap_encode_address(ptxlua_device *d, uint64_t addr, const char *dtype,
                                               int rank, const uint64_t *dims,
                                               const uint64_t *strides, const uint32_t *box,
                                               const char *swizzle, ptxlua_tensormap *out) {
  if (!d || !dtype || !dims || !box || !out) return PTXLUA_MISUSE;
  plE_clear_error(d->e);
  return tm_encode(d, addr, UINT64_MAX, dtype, rank, dims, strides, box, NULL, swizzle, out);
}

static int im2col_encode(ptxlua_device *d, uint64_t addr, uint64_t limit, const char *dtype,
                         int rank, const uint64_t *dims, const uint64_t *strides,
                         const ptxlua_im2col *spec, ptxlua_tensormap *out) {
  ptxlua_engine *e = d->e;
  int dt = plB_tmap_dtype(dtype);
  if (dt < 0)
    return fail(e, PTXLUA_MISUSE,
                "tensor map element type '%.40s' (u8 .. f64, bf16, tf32, 16u4_align8b, "
                "16u4_align16b, 16u6_align16b)",
                dtype);
  if (rank < 3 || rank > 5)
    return fail(e, PTXLUA_MISUSE, "an im2col tensor map has 3 to 5 dimensions (got %d)", rank);
  if (!spec->lower_corner || !spec->upper_corner)
    return fail(e, PTXLUA_MISUSE,
                "an im2col tensor map needs lower_corner and upper_corner (%d entries each)",
                rank - 2);
  int sw = plB_tmap_swizzle(spec->swizzle), il = plB_tmap_interleave(spec->interleave),
      l2 = plB_tmap_l2promotion(spec->l2_promotion), oob = plB_tmap_oobfill(spec->oob_fill);
  if (sw < 0)
    return fail(e, PTXLUA_MISUSE, "swizzle '%.40s' (none, 32B, 64B or 128B)", spec->swizzle);
  if (il < 0)
    return fail(e, PTXLUA_MISUSE, "interleave '%.40s' (none, 16B or 32B)", spec->interleave);
  if (l2 < 0)
    return fail(e, PTXLUA_MISUSE, "l2_promotion '%.40s' (none, 64B, 128B or 256B)",
                spec->l2_promotion);
  if (oob < 0) return fail(e, PTXLUA_MISUSE, "oob_fill '%.40s' (zero or nan)", spec->oob_fill);
  uint64_t st[5];
  if (tm_strides(e, limit, dt, rank, dims, strides, st)) return PTXLUA_MISUSE;
  uint32_t es[5] = { 1, 1, 1, 1, 1 };
  if (spec->element_strides) memcpy(es, spec->element_strides, (size_t)rank * sizeof es[0]);
  int32_t lo[3] = { 0, 0, 0 }, hi[3] = { 0, 0, 0 };
  for (int i = 0; i < rank - 2; i++) {
    lo[i] = spec->lower_corner[i];
    hi[i] = spec->upper_corner[i];
  }
  char err[1024];
  if (d->kind != DEV_CUDA) {
    if (plX_tensormap_im2col(d->mem, out->bytes, dt, rank, addr, dims, st, lo, hi,
                             spec->channels_per_pixel, spec->pixels_per_column, es, il, sw, l2, oob,
                             err, sizeof err))
      return fail(e, PTXLUA_ERROR, "%s", err);
    return PTXLUA_OK;
  }
  int rc = make_current(d);
  if (rc) return rc;
  if (limit == UINT64_MAX && cuda_owns(d, addr, err, sizeof err))
    return fail(e, PTXLUA_MISUSE, "tensor map: %s", err);
  if (plC_tensormap_im2col(out->bytes, dt, rank, addr, dims, st, lo, hi, spec->channels_per_pixel,
                           spec->pixels_per_column, es, il, sw, l2, oob, err, sizeof err))
    return fail(e, PTXLUA_ERROR, "%s", err);
  return PTXLUA_OK;
}

PTXLUA_API int ptxlua_tensormap_encode_im2col(ptxlua_buffer *b, const char *dtype, int rank,
                                              const uint64_t *dims, const uint64_t *strides,
                                              const ptxlua_im2col *spec, ptxlua_tensormap *out) {
  if (!b || !dtype || !dims || !spec || !out) return PTXLUA_MISUSE;
  plE_clear_error(b->d->e);
  return im2col_encode(b->d, b->addr, b->bytes, dtype, rank, dims, strides, spec, out);
}

PTXLUA_API int ptxlua_tensormap_encode_im2col_address(ptxlua_device *d, uint64_t addr,
                                                      const char *dtype, int rank,
                                                      const uint64_t *dims, const uint64_t *strides,
                                                      const ptxlua_im2col *spec,
                                                      ptxlua_tensormap *out) {
  if (!d || !dtype || !dims || !spec || !out) return PTXLUA_MISUSE;
  plE_clear_error(d->e);
  return im2col_encode(d, addr, UINT64_MAX, dtype, rank, dims, strides, spec, out);
}

/* ---- kernels
** ----------------------------------------------------------------------------------- */
/* what the DSL knows of kernel `name` for the engine's defines: file, line, dims, smem, params */
static const char *INFO_LUA =
    "local name, defines = ...\n"
    "local ptx = require 'ptxlua'\n"
    "local k\n"
    "for _, kk in ipairs(ptx.kernels()) do if kk.name == name then k = kk end end\n"
    "if not k then\n"
    "  local names = {}\n"
    "  for _, kk in ipairs(ptx.kernels()) do names[#names + 1] = kk.name end\n"
    "  error(string.format('error: no kernel named \\'%s\\' (loaded: %s)', name, #names > 0 and "
    "table.concat(names, ', ') or 'none'), 0)\n"
    "end\n"
    "local g, b, c = k:launch_dims(defines)\n"
    /* what a pointer declares of its tensor, and a map of the tensor it views (tensors.lua) */
    "local info = require('ptxlua.tensors').c_info(k, defines)\n"
    "local ps = {}\n"
    "for i, p in ipairs(k.params) do\n"
    "  ps[i] = { p[1], p.pointer and 1 or p.tensormap and 3 or (p.count and p.count > 0) and 4 or "
    "2, p.pointer and p.elem or p.ptype,\n"
    "            p.ptx and p.pointer and 1 or 0, info[i] or false }\n"
    "end\n"
    "return k.file, k.line, g, b, c, ps\n";

static void get_dims(lua_State *L, int idx, unsigned d[3], int *has) {
  d[0] = d[1] = d[2] = 1;
  *has = lua_istable(L, idx);
  if (!*has) return;
  for (int i = 0; i < 3; i++) {
    lua_rawgeti(L, idx, i + 1);
    d[i] = (unsigned)lua_tointeger(L, -1);
    lua_pop(L, 1);
  }
}

/* what INFO_LUA gives of parameter p (c_info's entry, at the top of the stack) */
static void read_decl(lua_State *L, kparam *p) {
  plE_tensor_decl *d = &p->decl;
  memset(d, 0, sizeof *d);
  snprintf(d->dtype, sizeof d->dtype, "%s", p->dtype);
  d->ndim = -1;
  if (!lua_istable(L, -1)) {
    plE_decl_parse(d);
    return;
  }
  if (p->kind == PTXLUA_PARAM_POINTER) {
    lua_getfield(L, -1, "tensor");
    d->dtype[0] = 0;
    plE_read_tensor(L, d, p->dtype);
    /* the pointer's type rules when the tensor's is a template's the DSL resolved to the same */
    if (!d->bits) {
      snprintf(d->dtype, sizeof d->dtype, "%s", p->dtype);
      plE_decl_parse(d);
    }
    lua_pop(L, 1);
    return;
  }
  plE_decl_parse(d);
  if (p->kind == PTXLUA_PARAM_TENSORMAP && p->view) plE_read_view(L, p->view);
}

static unsigned type_bytes(int t) {
  unsigned b = plB_type_info[t].bits / 8;
  return b ? b : 1;
}

/* the .param layout of function fi of m, as ptxas and the emulator lay it out: each parameter at
** the next multiple of its alignment (declared, else its element size) */
static int layout(ptxlua_kernel *k, const plI_module *m, int fi) {
  const plI_func *f = &m->funcs.p[fi];
  if ((int)f->params.n != k->np)
    return fail(k->d->e, PTXLUA_ERROR, "kernel %s: %d parameters in the module, %d declared",
                k->name, (int)f->params.n, k->np);
  unsigned off = 0;
  for (int i = 0; i < k->np; i++) {
    const plI_var *v = &f->params.p[i];
    kparam *p = &k->p[i];
    unsigned es = type_bytes(v->type);
    p->type = v->type;
    p->size = v->count ? (unsigned)(v->count * es) : es;
    p->align = v->align ? v->align : es;
    off = (off + p->align - 1) / p->align * p->align;
    p->offset = off;
    off += p->size;
  }
  return PTXLUA_OK;
}

/* what prepare allocated beside the kernel itself */
static void free_parts(ptxlua_kernel *k) {
  for (int i = 0; k->p && i < k->np; i++) free(k->p[i].view);
  free(k->p);
  free(k->pv);
  free(k->have);
  free(k->dladdr);
  free(k->maps);
}

static int find_func(const plI_module *m, const char *name) {
  for (uint32_t i = 0; i < m->funcs.n; i++)
    if (!m->funcs.p[i].declared_only && strcmp(plI_cstr(m, m->funcs.p[i].name), name) == 0)
      return (int)i;
  return -1;
}

PTXLUA_API int ptxlua_kernel_prepare(ptxlua_device *d, const char *name, ptxlua_kernel **out) {
  if (!d || !name || !out) return PTXLUA_MISUSE;
  *out = NULL;
  ptxlua_engine *e = d->e;
  lua_State *L = plE_lua(e);
  plE_clear_error(e);
  if (ptxlua_kernel_count(e) == 0)
    return fail(e, PTXLUA_MISUSE, "no script is loaded (or it defines no kernel)");
  ptxlua_kernel *k = calloc(1, sizeof *k);
  if (!k) return fail(e, PTXLUA_NOMEM, "out of memory");
  k->d = d;
  k->modref = LUA_NOREF;
  snprintf(k->name, sizeof k->name, "%s", name);
  int top = lua_gettop(L);
  /* 1. what the DSL says: file:line, launch dims, smem, parameters */
  if (luaL_loadbuffer(L, INFO_LUA, strlen(INFO_LUA), "=ptxlua_kernel_prepare")) goto lua_fail;
  lua_pushstring(L, name);
  lua_rawgeti(L, LUA_REGISTRYINDEX, plE_defines_ref(e));
  if (plE_pcall(L, 2, 6)) goto lua_fail;
  snprintf(k->file, sizeof k->file, "%s", lua_tostring(L, top + 1) ? lua_tostring(L, top + 1) : "");
  k->line = (int)lua_tointeger(L, top + 2);
  get_dims(L, top + 3, k->grid, &k->has_grid);
  get_dims(L, top + 4, k->block, &k->has_block);
  int has;
  get_dims(L, top + 5, k->cluster, &has);
  k->np = (int)lua_objlen(L, top + 6);
  k->p = calloc((size_t)(k->np ? k->np : 1), sizeof *k->p);
  k->pv = calloc((size_t)(k->np ? k->np : 1), sizeof *k->pv);
  k->have = calloc((size_t)(k->np ? k->np : 1), 1);
  k->dladdr = calloc((size_t)(k->np ? k->np : 1), sizeof *k->dladdr);
  int nomem = !k->p || !k->pv || !k->have || !k->dladdr ||
              posix_memalign((void **)&k->maps, 64, sizeof *k->maps * (size_t)(k->np ? k->np : 1));
  for (int i = 0; i < k->np && !nomem; i++) {
    lua_rawgeti(L, top + 6, i + 1);
    lua_rawgeti(L, -1, 2);
    k->p[i].kind = (int)lua_tointeger(L, -1);
    lua_pop(L, 2);
    if (k->p[i].kind == PTXLUA_PARAM_TENSORMAP && !(k->p[i].view = calloc(1, sizeof(plE_view))))
      nomem = 1;
  }
  if (nomem) {
    lua_settop(L, top);
    free_parts(k);
    free(k);
    return fail(e, PTXLUA_NOMEM, "out of memory");
  }
  for (int i = 0; i < k->np; i++) {
    lua_rawgeti(L, top + 6, i + 1);
    lua_rawgeti(L, -1, 1);
    snprintf(k->p[i].name, sizeof k->p[i].name, "%s",
             lua_tostring(L, -1) ? lua_tostring(L, -1) : "?");
    lua_pop(L, 1);
    lua_rawgeti(L, -1, 2);
    k->p[i].kind = (int)lua_tointeger(L, -1);
    lua_pop(L, 1);
    lua_rawgeti(L, -1, 3);
    snprintf(k->p[i].dtype, sizeof k->p[i].dtype, "%s",
             lua_tostring(L, -1) ? lua_tostring(L, -1) : "b8");
    lua_pop(L, 1);
    lua_rawgeti(L, -1, 4);
    k->p[i].addr_int = (int)lua_tointeger(L, -1);
    lua_pop(L, 1);
    lua_rawgeti(L, -1, 5);
    read_decl(L, &k->p[i]);
    lua_pop(L, 1);
    lua_pop(L, 1);
  }
  lua_settop(L, top);
  /* 2. the module (traced with the engine's defines and arch): the parameter layout */
  int rc;
  plI_module *m = plE_build(e, name, &rc);
  if (!m) goto fail_k;
  { /* dynamic shared memory for these defines, right after the trace (KERNEL.dynamic_smem_for) */
    static const char *DYN_LUA = "local name, defines = ...\n"
                                 "for _, k in ipairs(require('ptxlua').kernels()) do if k.name == "
                                 "name then return k:dynamic_smem_for(defines) end end\n"
                                 "return 0\n";
    int t2 = lua_gettop(L);
    if (luaL_loadbuffer(L, DYN_LUA, strlen(DYN_LUA), "=ptxlua_kernel_prepare")) goto lua_fail;
    lua_pushstring(L, name);
    lua_rawgeti(L, LUA_REGISTRYINDEX, plE_defines_ref(e));
    if (plE_pcall(L, 2, 1)) goto lua_fail;
    k->smem = (unsigned)lua_tointeger(L, -1);
    lua_settop(L, t2);
  }
  int fi = find_func(m, name);
  if (fi < 0) {
    lua_settop(L, top);
    rc = fail(e, PTXLUA_ERROR, "the module has no kernel '%s'", name);
    goto fail_k;
  }
  if ((rc = layout(k, m, fi))) {
    lua_settop(L, top);
    goto fail_k;
  }
  if (d->kind == DEV_EMU) {
    k->emu = plX_new(m, fi, d->mem);
    if (!k->emu) {
      lua_settop(L, top);
      rc = fail(e, PTXLUA_NOMEM, "out of memory");
      goto fail_k;
    }
    if (plX_status(k->emu)) {
      rc = plE_set_error(e, PTXLUA_ERROR, plX_error(k->emu));
      lua_settop(L, top);
      goto fail_k;
    }
    k->modref = luaL_ref(L, LUA_REGISTRYINDEX); /* the emulator points into the module */
    { /* the trace's shared-memory plans: copies must stay in the allocation they land in */
      static const char *REG_LUA = "local name = ...\n"
                                   "for _, k in ipairs(require('ptxlua').kernels()) do\n"
                                   "  if k.name == name then return k.smem_regions end\n"
                                   "end\n";
      int t3 = lua_gettop(L), ok = 0; /* (none on a failure: fewer checks) */
      if (!luaL_loadbuffer(L, REG_LUA, strlen(REG_LUA), "=ptxlua_kernel_prepare")) {
        lua_pushstring(L, name);
        ok = !plE_pcall(L, 1, 1);
      }
      for (int i = 1; ok && lua_istable(L, -1) && i <= (int)lua_objlen(L, -1); i++) {
        lua_rawgeti(L, -1, i);
        static const char *const F[] = {
          "var", "name", "offset", "stage_bytes", "bytes", "stages"
        };
        for (int f = 0; f < 6; f++) lua_getfield(L, -1 - f, F[f]);
        const char *var = lua_tostring(L, -6), *rn = lua_tostring(L, -5);
        if (var && rn)
          plX_add_region(k->emu, var, rn, (uint32_t)lua_tointeger(L, -4),
                         (uint32_t)lua_tointeger(L, -3), (uint32_t)lua_tointeger(L, -2),
                         (uint32_t)lua_tointeger(L, -1));
        lua_pop(L, 7);
      }
      lua_settop(L, t3);
    }
  } else {
    /* 3. CUDA: assemble for this device (through the cache), load, look up; the parameter block.
    ** A cubin runs only on its own SM major version: PTX of an older target (sm_80 on an sm_90
    ** device) is assembled for the device, an arch-specific target only on its own device. */
    char arch[64], err[16384];
    const char *target = plI_cstr(m, m->target);
    void *cubin = NULL;
    size_t len = 0;
    if (plC_cubin_arch(target, d->cu.cc_major, d->cu.cc_minor, arch, sizeof arch, err,
                       sizeof err)) {
      lua_settop(L, top);
      rc = k->file[0] ? fail(e, PTXLUA_ERROR, "%s:%d: error: %s: %s", k->file, k->line, name, err)
                      : fail(e, PTXLUA_ERROR, "%s: %s", name, err);
      goto fail_k;
    }
    if (strcmp(arch, target) == 0) {
      lua_settop(L, top);
      if ((rc = ptxlua_compile(e, name, 0, &cubin, &len))) goto fail_k;
    } else {
      plB_buf ptx;
      plB_buf_init(&ptx);
      plI_print_opts po = { PLI_ANCHOR_COMMENT, NULL, -1 };
      int bad = plI_print(m, &po, &ptx);
      lua_settop(L, top); /* m is not used past here */
      plC_opts co = { arch, 0, getenv("PTXLUA_PTXAS_OPTIONS"), NULL };
      plC_result r;
      if (bad || plC_compile(plB_buf_cstr(&ptx), ptx.n, &co, &r, err, sizeof err)) {
        plB_buf_free(&ptx);
        rc = bad ? fail(e, PTXLUA_NOMEM, "out of memory while printing")
                 : fail(e, PTXLUA_ERROR, "%s", err);
        goto fail_k;
      }
      plB_buf_free(&ptx);
      /* the errors at the script's lines, as ptxlua_compile maps them */
      if (!r.ok) {
        plC_result_free(&r);
        rc = ptxlua_compile(e, name, 0, &cubin, &len);
        free(cubin);
        if (!rc)
          rc = fail(e, PTXLUA_ERROR, "the assembler rejected the PTX of %s for %s", name, arch);
        goto fail_k;
      }
      cubin = r.cubin;
      len = r.cubin_len;
      r.cubin = NULL;
      plC_result_free(&r);
    }
    if ((rc = make_current(d))) {
      free(cubin);
      goto fail_k;
    }
    if (plC_module_load(cubin, len, 0, &k->module, err, sizeof err)) {
      free(cubin);
      rc = fail(e, PTXLUA_ERROR, "loading %s: %s", name, err);
      goto fail_k;
    }
    free(cubin);
    if (plC_function(k->module, name, &k->fn, err, sizeof err)) {
      rc = fail(e, PTXLUA_ERROR, "%s", err);
      goto fail_k;
    }
    if (plC_function_cluster(k->fn, k->ct_cluster, err, sizeof err)) {
      rc = fail(e, PTXLUA_ERROR, "%s", err);
      goto fail_k;
    }
    /* the driver's default is 48 KB less the kernel's static shared memory, not 48 KB: any dynamic
    ** size is set once (a kernel with 40 KB of static arrays cannot take 16 KB without it) */
    k->smem_set = 0;
    size_t total = 0;
    for (int i = 0; i < k->np; i++) total += (k->p[i].size + 63) / 64 * 64;
    if (posix_memalign((void **)&k->block_store, 64, total ? total : 64) ||
        !(k->params = calloc((size_t)(k->np ? k->np : 1), sizeof(void *)))) {
      rc = fail(e, PTXLUA_NOMEM, "out of memory");
      goto fail_k;
    }
    size_t off = 0;
    for (int i = 0; i < k->np; i++) {
      k->params[i] = k->block_store + off;
      off += (k->p[i].size + 63) / 64 * 64;
    }
  }
  k->next = d->kernels;
  if (d->kernels) d->kernels->prev = &k->next;
  k->prev = &d->kernels;
  d->kernels = k;
  *out = k;
  return PTXLUA_OK;

lua_fail : {
  const char *msg = lua_tostring(L, -1);
  rc = plE_set_error(e, PTXLUA_ERROR, msg ? msg : "error object is not a string");
  lua_settop(L, top);
}
fail_k:
  if (k->module) plC_module_unload(k->module);
  plX_free(k->emu);
  free(k->block_store);
  free(k->params);
  free_parts(k);
  free(k);
  return rc;
}

PTXLUA_API void ptxlua_kernel_free(ptxlua_kernel *k) {
  if (!k) return;
  if (k->module && make_current(k->d) == PTXLUA_OK) plC_module_unload(k->module);
  plX_free(k->emu);
  if (k->modref != LUA_NOREF) luaL_unref(plE_lua(k->d->e), LUA_REGISTRYINDEX, k->modref);
  *k->prev = k->next;
  if (k->next) k->next->prev = k->prev;
  free(k->block_store);
  free(k->params);
  free_parts(k);
  free(k);
}

PTXLUA_API int ptxlua_kernel_param_count(const ptxlua_kernel *k) {
  return k ? k->np : 0;
}
PTXLUA_API int ptxlua_kernel_param(const ptxlua_kernel *k, int i, ptxlua_param *p) {
  if (!k || !p || i < 0 || i >= k->np) return PTXLUA_MISUSE;
  const kparam *q = &k->p[i];
  p->name = q->name;
  p->kind = q->kind;
  p->dtype = q->dtype;
  p->offset = q->offset;
  p->size = q->size;
  p->align = q->align;
  return PTXLUA_OK;
}
PTXLUA_API int ptxlua_kernel_param_shape(const ptxlua_kernel *k, int i, int64_t *dims, int *params,
                                         int max) {
  if (!k || i < 0 || i >= k->np || (max > 0 && (!dims || !params))) return PTXLUA_MISUSE;
  const kparam *q = &k->p[i];
  const plE_tensor_decl *d = &q->decl;
  if (q->kind == PTXLUA_PARAM_TENSORMAP) { /* the tensor the map views */
    if (!q->view || !q->view->present || q->view->err[0]) return -1;
    d = &q->view->t;
  } else if (q->kind != PTXLUA_PARAM_POINTER)
    return PTXLUA_MISUSE;
  for (int j = 0; j < d->ndim && j < max; j++) {
    const plE_dim *x = &d->dims[j];
    dims[j] = x->kind == PLE_DIM_FIXED ? x->value : -1;
    params[j] = x->kind == PLE_DIM_PARAM ? x->param : -1;
  }
  return d->ndim;
}
PTXLUA_API int ptxlua_kernel_param_view(const ptxlua_kernel *k, int i, const char **tensor,
                                        int *param) {
  if (!k || i < 0 || i >= k->np || !tensor || !param) return PTXLUA_MISUSE;
  const kparam *q = &k->p[i];
  if (q->kind != PTXLUA_PARAM_TENSORMAP) return PTXLUA_MISUSE;
  int has = q->view && q->view->present;
  *tensor = has && q->view->t.name[0] ? q->view->t.name : NULL;
  *param = has ? q->view->of_param : -1;
  return PTXLUA_OK;
}
PTXLUA_API int ptxlua_kernel_dims(const ptxlua_kernel *k, unsigned grid[3], unsigned block[3],
                                  unsigned cluster[3], unsigned *smem) {
  if (!k) return PTXLUA_MISUSE;
  if (grid) memcpy(grid, k->grid, sizeof k->grid);
  if (block) memcpy(block, k->block, sizeof k->block);
  if (cluster) memcpy(cluster, k->cluster, sizeof k->cluster);
  if (smem) *smem = k->smem;
  return PTXLUA_OK;
}

/* ---- launches
** ---------------------------------------------------------------------------------- */
static const char *const ARG_NAMES[] = {
  "?",  "buffer", "address", "tensor map", "bytes", "u8",   "u16", "u32", "u64",
  "s8", "s16",    "s32",     "s64",        "f16",   "bf16", "f32", "f64", "a DLPack tensor"
};
static const unsigned char ARG_SIZE[] = { 0, 8, 8, 128, 0, 1, 2, 4, 8, 1, 2, 4, 8, 2, 2, 4, 8, 8 };

/* an error of a launch of k: "launch of NAME: msg", at the kernel's definition when the script
** gave it one (a C caller has no line of its own); a message that has its place already (the
** emulator's, at an instruction) is kept as it is */
static int launch_fail(ptxlua_kernel *k, int code, const char *msg) {
  const char *colon = strstr(msg, ": error: ");
  if (colon && colon != msg && !memchr(msg, '\n', (size_t)(colon - msg)))
    return plE_set_error(k->d->e, code, msg);
  if (strncmp(msg, "error: ", 7) == 0) msg += 7;
  if (k->file[0])
    return fail(k->d->e, code, "%s:%d: error: launch of %s: %s", k->file, k->line, k->name, msg);
  return fail(k->d->e, code, "launch of %s: %s", k->name, msg);
}

/* the argument as parameter p takes it: its bytes into dst (p->size of them); else the error */
static int arg_error(ptxlua_kernel *k, int i, const char *fmt, const char *what) {
  const kparam *p = &k->p[i];
  char msg[1400], full[1600];
  snprintf(msg, sizeof msg, fmt, what);
  snprintf(full, sizeof full, "argument %d (%s): %s", i + 1, p->name, msg);
  return launch_fail(k, PTXLUA_MISUSE, full);
}

static int pack(ptxlua_kernel *k, int i, const ptxlua_arg *a, unsigned char *dst) {
  const kparam *p = &k->p[i];
  int t = a->type;
  if (t < PTXLUA_ARG_BUFFER || t > PTXLUA_ARG_DLPACK)
    return arg_error(k, i, "unknown argument type %s", "");
  switch (p->kind) {
  case PTXLUA_PARAM_POINTER:
    if (t == PTXLUA_ARG_BUFFER) {
      const ptxlua_buffer *b = a->v.buffer;
      if (!b) return arg_error(k, i, "a NULL buffer%s", "");
      if (b->d != k->d) return arg_error(k, i, "the buffer lives on another device%s", "");
      memcpy(dst, &b->addr, 8);
      return 0;
    }
    if (t == PTXLUA_ARG_ADDRESS) {
      memcpy(dst, &a->v.u, 8);
      return 0;
    }
    if (t == PTXLUA_ARG_DLPACK) {
      memcpy(dst, &k->dladdr[i], 8);
      return 0;
    } /* tensors_in checked it */
    if (p->addr_int && (t == PTXLUA_ARG_U64 || t == PTXLUA_ARG_S64)) {
      memcpy(dst, &a->v.u, 8);
      return 0;
    }
    if (p->addr_int)
      return arg_error(
          k, i,
          "a .u64 parameter read from PTX takes a buffer, an address or a 64-bit integer, got %s",
          ARG_NAMES[t]);
    return arg_error(k, i,
                     "a pointer parameter takes a buffer, an address or a DLPack tensor, got %s",
                     ARG_NAMES[t]);
  case PTXLUA_PARAM_TENSORMAP:
    if (t == PTXLUA_ARG_DLPACK || t == PTXLUA_ARG_BUFFER || t == PTXLUA_ARG_ADDRESS) {
      memcpy(dst, k->maps[i].bytes, 128); /* tensors_in built it */
      return 0;
    }
    if (t == PTXLUA_ARG_TENSORMAP && a->v.tensormap) {
      memcpy(dst, a->v.tensormap->bytes, 128);
      return 0;
    }
    if (t == PTXLUA_ARG_BYTES && a->size == 128 && a->v.bytes) {
      memcpy(dst, a->v.bytes, 128);
      return 0;
    }
    return arg_error(
        k, i,
        "a tensormap parameter takes a tensor map (ptxlua_tensormap_encode), or the "
        "tensor it declares it views (a DLPack tensor, a buffer or an address), got %s",
        ARG_NAMES[t]);
  case PTXLUA_PARAM_BYTES:
    if (t == PTXLUA_ARG_BYTES && a->v.bytes && a->size == p->size) {
      memcpy(dst, a->v.bytes, p->size);
      return 0;
    }
    /* nvcc declares a CUtensorMap parameter as .align 64 .b8 name[128]: a tensor map fills it */
    if (t == PTXLUA_ARG_TENSORMAP && a->v.tensormap && p->size == 128) {
      memcpy(dst, a->v.tensormap->bytes, 128);
      return 0;
    }
    if (t == PTXLUA_ARG_BYTES) {
      char what[64];
      snprintf(what, sizeof what, "%zu bytes for a %u-byte array", a->size, p->size);
      return arg_error(k, i, "%s", what);
    }
    return arg_error(k, i, "a byte-array parameter takes ptxlua_arg_bytes, got %s", ARG_NAMES[t]);
  default: break;
  }
  /* a scalar */
  if (t == PTXLUA_ARG_BYTES) {
    if (a->v.bytes && a->size == p->size) {
      memcpy(dst, a->v.bytes, p->size);
      return 0;
    }
    char what[64];
    snprintf(what, sizeof what, "%zu bytes for a %u-byte .%s", a->size, p->size, p->dtype);
    return arg_error(k, i, "%s", what);
  }
  int cls = plB_type_info[p->type].cls;
  int ok = ARG_SIZE[t] == p->size;
  if (ok) {
    if (cls == PLT_CF) { /* a float parameter takes that float type */
      ok = (p->type == PLT_F32 && t == PTXLUA_ARG_F32) ||
           (p->type == PLT_F64 && t == PTXLUA_ARG_F64) ||
           (p->type == PLT_F16 && t == PTXLUA_ARG_F16) ||
           (p->type == PLT_BF16 && t == PTXLUA_ARG_BF16);
    } else if (cls == PLT_CU || cls == PLT_CS) {
      ok = t >= PTXLUA_ARG_U8 && t <= PTXLUA_ARG_S64;
    } else
      ok = t >= PTXLUA_ARG_U8; /* .bN: any scalar of N bits */
  }
  if (!ok || t < PTXLUA_ARG_U8) {
    char what[96];
    snprintf(what, sizeof what, "a .%s parameter (%u bytes), got %s", p->dtype, p->size,
             ARG_NAMES[t]);
    return arg_error(k, i, "%s", what);
  }
  switch (t) {
  case PTXLUA_ARG_F32: {
    float f = (float)a->v.f;
    memcpy(dst, &f, 4);
    return 0;
  }
  case PTXLUA_ARG_F64: memcpy(dst, &a->v.f, 8); return 0;
  default: { /* little-endian: the low bytes of the 64-bit value */
    uint64_t u = a->v.u;
    memcpy(dst, &u, p->size);
    return 0;
  }
  }
}

static int emu_launch(ptxlua_kernel *k, const unsigned grid[3], const unsigned block[3],
                      unsigned smem, const ptxlua_arg *args, int nargs, unsigned char *tmp,
                      size_t tmpsize);

/* a tensor argument for a tensormap parameter (a tensor map's own: takes one) */
static int is_map_tensor(const kparam *p, int t) {
  return p->kind == PTXLUA_PARAM_TENSORMAP &&
         (t == PTXLUA_ARG_DLPACK || t == PTXLUA_ARG_BUFFER || t == PTXLUA_ARG_ADDRESS);
}

/* an error the encoder set, as the argument's */
static int map_error(ptxlua_kernel *k, int i, const char *of) {
  char msg[1200];
  const char *m = ptxlua_errmsg(k->d->e);
  if (strncmp(m, "error: ", 7) == 0) m += 7;
  snprintf(msg, sizeof msg, "the tensor map of %s: %s", of, m);
  return arg_error(k, i, "%s", msg);
}

/* extent x of tensor `of` as a positive whole number for this launch, else the argument's error */
static int extent_of(ptxlua_kernel *k, int i, const char *of, const char *what, const plE_dim *x,
                     uint64_t *out) {
  /* a stride (elements) may pass 2^32 where an extent may not: the driver bounds both */
  double max = strcmp(what, "strides") == 0 ? 281474976710656.0 : 4294967296.0;
  double v;
  char msg[400];
  if (plE_dim_value(x, k->pv, k->have, &v)) {
    snprintf(msg, sizeof msg,
             "%s %s: '%s' is not known at this launch (%s), so the map cannot be built from an "
             "address: pass a DLPack tensor (its shape says) or the scalars it names as integers",
             of, what, x->text,
             x->kind == PLE_DIM_OPEN ? "not an expression of templates and "
                                       "scalar parameters"
                                     : "a scalar it names is not passed as an integer");
    return arg_error(k, i, "%s", msg);
  }
  if (!(v >= 1 && v <= max && v == (double)(uint64_t)v)) {
    snprintf(msg, sizeof msg, "%s %s: '%s' is %g at this launch, not a positive whole number", of,
             what, x->text, v);
    return arg_error(k, i, "%s", msg);
  }
  *out = (uint64_t)v;
  return 0;
}

/* the map of tensormap parameter i built from the tensor argument a (the tensor it views): dims
** and strides from the DLPack tensor (checked against the declaration), or from the declaration
** over a buffer or an address; box, swizzle and the rest from the declaration. Into k->maps[i]. */
static int map_in(ptxlua_kernel *k, int i, const ptxlua_arg *args, plE_tensor_dev dev,
                  int *mapped) {
  ptxlua_device *d = k->d;
  const ptxlua_arg *a = &args[i];
  const kparam *p = &k->p[i];
  const plE_view *v = p->view;
  int t = a->type;
  char why[1024];
  if (!v || !v->present)
    return arg_error(k, i,
                     "%s for a tensormap parameter that declares no tensor it views (ptx.tensormap "
                     "{ of = ..., box = ... }): pass a tensor map (ptxlua_tensormap_encode)",
                     ARG_NAMES[t]);
  if (v->err[0]) return plE_set_error(d->e, PTXLUA_MISUSE, v->err);
  const plE_tensor_decl *T = &v->t;
  const char *of = T->name;
  char ofs[96];
  snprintf(ofs, sizeof ofs, "tensor %s", of);
  uint64_t dims[5], st[4], addr = 0, limit = UINT64_MAX, bytes = 0;
  int rank;
  unsigned eb = T->bits; /* bits: 4 and 6 for the packed types */
  if (t == PTXLUA_ARG_DLPACK) {
    if (!a->v.dlpack) return arg_error(k, i, "a NULL DLPack tensor%s", "");
    const DLTensor *x = &a->v.dlpack->dl_tensor;
    if (plE_tensor_check(T, x, dev, k->pv, k->have, 1, &bytes, why, sizeof why)) {
      char msg[1200];
      snprintf(msg, sizeof msg, "%s: %s", ofs, why);
      return arg_error(k, i, "%s", msg);
    }
    rank = x->ndim;
    if (rank < 1 || rank > 5) {
      snprintf(why, sizeof why, "%s: a tensor map has 1 to 5 dimensions, the tensor %d", ofs, rank);
      return arg_error(k, i, "%s", why);
    }
    eb = (unsigned)x->dtype.bits * (x->dtype.lanes ? x->dtype.lanes : 1);
    int64_t packed = 1;
    for (int r = 0; r < rank; r++) { /* innermost first */
      int j = rank - 1 - r;
      dims[r] = (uint64_t)x->shape[j];
      int64_t sj = x->strides ? x->strides[j] : packed;
      if (r > 0) st[r - 1] = (uint64_t)sj * eb / 8;
      if (r > 0 && (uint64_t)sj * eb % 8) {
        snprintf(why, sizeof why, "%s: a stride of %lld elements of %u bits is no whole byte", ofs,
                 (long long)sj, eb);
        return arg_error(k, i, "%s", why);
      }
      packed *= x->shape[j];
    }
    void *host = (char *)x->data + x->byte_offset;
    limit = UINT64_MAX - 1; /* checked here: the encoder need not ask the driver again */
    if (d->kind == DEV_CUDA) {
      addr = (uint64_t)(uintptr_t)host;
      if (bytes && cuda_owns(d, addr, why, sizeof why)) return arg_error(k, i, "%s", why);
    } else if (v->of_param >= 0 && v->of_param < k->np && args[v->of_param].type == t &&
               args[v->of_param].v.dlpack == a->v.dlpack && k->dladdr[v->of_param]) {
      addr = k->dladdr[v->of_param]; /* the pointer parameter it views: mapped once */
    } else if (bytes) {
      addr = k->dladdr[i] = plX_mem_map(d->mem, host, bytes, p->name);
      if (!addr) return launch_fail(k, PTXLUA_NOMEM, "out of memory");
      (*mapped)++;
    }
  } else { /* a buffer or an address: the declaration says the shape and the strides */
    rank = T->ndim;
    if (rank < 1 || rank > 5) {
      snprintf(why, sizeof why,
               "%s declares %s: pass it as a DLPack tensor (its shape says), or a tensor map", ofs,
               rank < 0 ? "no shape" : "more than 5 dimensions");
      return arg_error(k, i, "%s", why);
    }
    if (!eb) {
      snprintf(why, sizeof why, "%s: elements of %s have no size a map can read", ofs, T->dtype);
      return arg_error(k, i, "%s", why);
    }
    uint64_t shape[5], strides[5], span = 1;
    for (int j = 0; j < rank; j++)
      if (extent_of(k, i, ofs, "shape", &T->dims[j], &shape[j])) return PTXLUA_MISUSE;
    uint64_t packed = 1;
    for (int j = rank - 1; j >= 0; j--) {
      strides[j] = packed;
      packed *= shape[j];
    }
    if (T->nstrides == rank)
      for (int j = 0; j < rank; j++)
        if (extent_of(k, i, ofs, "strides", &T->strides[j], &strides[j])) return PTXLUA_MISUSE;
    for (int j = 0; j < rank; j++) span += (shape[j] - 1) * strides[j];
    bytes = (span * eb + 7) / 8;
    for (int r = 0; r < rank; r++) {
      dims[r] = shape[rank - 1 - r];
      if (r > 0) st[r - 1] = strides[rank - 1 - r] * eb / 8;
      if (r > 0 && strides[rank - 1 - r] * eb % 8) {
        snprintf(why, sizeof why, "%s: a stride of %llu elements of %u bits is no whole byte", ofs,
                 (unsigned long long)strides[rank - 1 - r], eb);
        return arg_error(k, i, "%s", why);
      }
    }
    if (t == PTXLUA_ARG_BUFFER) {
      const ptxlua_buffer *b = a->v.buffer;
      if (!b) return arg_error(k, i, "a NULL buffer%s", "");
      if (b->d != d) return arg_error(k, i, "the buffer lives on another device%s", "");
      if (bytes > b->bytes) {
        char shp[160];
        size_t o = (size_t)snprintf(shp, sizeof shp, "[");
        for (int j = 0; j < rank && o < sizeof shp; j++)
          o += (size_t)snprintf(shp + o, sizeof shp - o, "%s%llu", j ? ", " : "",
                                (unsigned long long)shape[j]);
        if (o < sizeof shp) snprintf(shp + o, sizeof shp - o, "]");
        snprintf(why, sizeof why, "%s is %s %s (%llu bytes), the buffer has %zu", ofs, T->dtype,
                 shp, (unsigned long long)bytes, b->bytes);
        return arg_error(k, i, "%s", why);
      }
      addr = b->addr;
      limit = UINT64_MAX - 1;
    } else
      addr = a->v.u; /* the device checks it is its memory */
  }
  uint32_t es[5] = { 1, 1, 1, 1, 1 };
  if (v->nes) {
    if (v->nes != rank) {
      snprintf(why, sizeof why, "%d element strides for a tensor of %d dimensions", v->nes, rank);
      return arg_error(k, i, "%s", why);
    }
    for (int r = 0; r < rank; r++) {
      uint64_t x;
      if (extent_of(k, i, ofs, "element_strides", &v->es[r], &x)) return PTXLUA_MISUSE;
      es[r] = (uint32_t)x;
    }
  }
  if (!v->im2col) {
    uint32_t box[5];
    if (v->nbox != rank) {
      snprintf(why, sizeof why, "a box of %d dimensions for a tensor of %d", v->nbox, rank);
      return arg_error(k, i, "%s", why);
    }
    for (int r = 0; r < rank; r++) {
      uint64_t x;
      if (extent_of(k, i, ofs, "box", &v->box[r], &x)) return PTXLUA_MISUSE;
      box[r] = (uint32_t)x;
    }
    if (tm_encode(d, addr, limit, v->tmdtype, rank, dims, st, box, es,
                  v->swizzle[0] ? v->swizzle : NULL, &k->maps[i]))
      return map_error(k, i, of);
    return 0;
  }
  ptxlua_im2col spec;
  memset(&spec, 0, sizeof spec);
  int lo[3] = { 0, 0, 0 }, hi[3] = { 0, 0, 0 };
  if (v->ncorner && v->ncorner != rank - 2) {
    snprintf(why, sizeof why, "%d pixel box corner entries for an im2col map of rank %d (%d)",
             v->ncorner, rank, rank - 2);
    return arg_error(k, i, "%s", why);
  }
  for (int c = 0; c < v->ncorner && c < 3; c++) {
    lo[c] = v->lower[c];
    hi[c] = v->upper[c];
  }
  spec.lower_corner = lo;
  spec.upper_corner = hi;
  uint64_t x = dims[0];
  if (v->has_cpp && extent_of(k, i, ofs, "channels_per_pixel", &v->cpp, &x)) return PTXLUA_MISUSE;
  spec.channels_per_pixel = (uint32_t)x;
  if (!v->has_ppc) return arg_error(k, i, "an im2col map declares no pixels_per_column%s", "");
  if (extent_of(k, i, ofs, "pixels_per_column", &v->ppc, &x)) return PTXLUA_MISUSE;
  spec.pixels_per_column = (uint32_t)x;
  spec.element_strides = v->nes ? es : NULL;
  spec.swizzle = v->swizzle[0] ? v->swizzle : NULL;
  spec.interleave = v->interleave[0] ? v->interleave : NULL;
  spec.l2_promotion = v->l2[0] ? v->l2 : NULL;
  spec.oob_fill = v->oob[0] ? v->oob : NULL;
  if (im2col_encode(d, addr, limit, v->tmdtype, rank, dims, st, &spec, &k->maps[i]))
    return map_error(k, i, of);
  return 0;
}

/* the launch's DLPack tensors: each checked against its parameter's declaration (dlpack.c) and
** given the device address pack() passes; on "emu" its memory is mapped in place (released by
** tensors_out). Then the maps built from tensors given for tensormap parameters. 0, else the
** launch's error set. Only a launch with tensors pays for this. */
static int tensors_in(ptxlua_kernel *k, const ptxlua_arg *args, int nargs, int *mapped) {
  ptxlua_device *d = k->d;
  *mapped = 0;
  int any = 0;
  for (int i = 0; i < nargs; i++)
    any |= args[i].type == PTXLUA_ARG_DLPACK || is_map_tensor(&k->p[i], args[i].type);
  if (!any) return 0;
  for (int i = 0; i < nargs; i++) { /* the integers extents may name */
    int t = args[i].type;
    k->have[i] = k->p[i].kind == PTXLUA_PARAM_SCALAR && t >= PTXLUA_ARG_U8 && t <= PTXLUA_ARG_S64;
    if (k->have[i]) k->pv[i] = t >= PTXLUA_ARG_S8 ? args[i].v.s : (int64_t)args[i].v.u;
    k->dladdr[i] = 0;
  }
  plE_tensor_dev dev = { d->kind == DEV_CUDA, d->kind == DEV_CUDA ? d->cu.ordinal : 0 };
  char why[1024];
  for (int i = 0; i < nargs; i++) {
    if (args[i].type != PTXLUA_ARG_DLPACK || k->p[i].kind == PTXLUA_PARAM_TENSORMAP) continue;
    const struct DLManagedTensor *mt = args[i].v.dlpack;
    if (!mt) return arg_error(k, i, "a NULL DLPack tensor%s", "");
    if (k->p[i].kind != PTXLUA_PARAM_POINTER)
      return arg_error(k, i,
                       "a DLPack tensor goes to a pointer parameter (or a tensormap that declares "
                       "the tensor it views); this one is %s",
                       "not a pointer");
    const DLTensor *t = &mt->dl_tensor;
    uint64_t bytes = 0;
    if (plE_tensor_check(&k->p[i].decl, t, dev, k->pv, k->have, 0, &bytes, why, sizeof why))
      return arg_error(k, i, "%s", why);
    void *host = (char *)t->data + t->byte_offset;
    if (d->kind == DEV_CUDA) {
      k->dladdr[i] = (uint64_t)(uintptr_t)host;
      if (bytes && cuda_owns(d, k->dladdr[i], why, sizeof why)) return arg_error(k, i, "%s", why);
      continue;
    }
    if (!bytes) continue; /* no elements: nothing to read or write */
    k->dladdr[i] = plX_mem_map(d->mem, host, bytes, k->p[i].name);
    if (!k->dladdr[i]) return launch_fail(k, PTXLUA_NOMEM, "out of memory");
    (*mapped)++;
  }
  for (int i = 0; i < nargs; i++)
    if (is_map_tensor(&k->p[i], args[i].type) && map_in(k, i, args, dev, mapped)) return -1;
  return 0;
}

static void tensors_out(ptxlua_kernel *k, const ptxlua_arg *args, int nargs) {
  for (int i = 0; i < nargs; i++)
    if (k->dladdr[i] &&
        (args[i].type == PTXLUA_ARG_DLPACK || is_map_tensor(&k->p[i], args[i].type))) {
      plX_mem_release(k->d->mem, k->dladdr[i]);
      k->dladdr[i] = 0;
    }
}

PTXLUA_API int ptxlua_launch(ptxlua_kernel *k, const unsigned grid[3], const unsigned block[3],
                             unsigned smem, void *stream, const ptxlua_arg *args, int nargs) {
  if (!k || (nargs && !args)) return PTXLUA_MISUSE;
  ptxlua_device *d = k->d;
  ptxlua_engine *e = d->e;
  plE_clear_error(e);
  char msg[512];
  if (nargs != k->np) {
    snprintf(msg, sizeof msg, "%d arguments for %d parameters", nargs, k->np);
    return launch_fail(k, PTXLUA_MISUSE, msg);
  }
  if (!grid) {
    if (!k->has_grid)
      return launch_fail(k, PTXLUA_MISUSE, "no grid given, and the kernel declares none");
    grid = k->grid;
  }
  if (!block) {
    if (!k->has_block)
      return launch_fail(k, PTXLUA_MISUSE, "no block given, and the kernel declares none");
    block = k->block;
  }
  if (smem == PTXLUA_SMEM_KERNEL) smem = k->smem;
  { /* the device limits, the same on both devices */
    uint32_t g[3] = { grid[0], grid[1], grid[2] }, b[3] = { block[0], block[1], block[2] };
    uint32_t c[3] = { k->cluster[0], k->cluster[1], k->cluster[2] };
    if (plX_geometry_check(g, b, c[0] ? c : NULL, msg, sizeof msg))
      return launch_fail(k, PTXLUA_MISUSE, msg);
  }
  int mapped = 0;
  if (d->kind == DEV_CUDA) {
    if (tensors_in(k, args, nargs, &mapped)) return PTXLUA_MISUSE;
    for (int i = 0; i < nargs; i++)
      if (pack(k, i, &args[i], k->params[i])) return PTXLUA_MISUSE;
    char err[512];
    if (smem > k->smem_set) {
      if (plC_set_dynamic_smem(k->fn, (int)smem, err, sizeof err))
        return launch_fail(k, PTXLUA_ERROR, err);
      k->smem_set = smem;
    }
    /* a kernel compiled for its cluster (.reqnctapercluster) takes no cluster launch attribute */
    if (plC_launch(k->fn, grid, block, k->ct_cluster[0] ? NULL : k->cluster, smem, stream,
                   k->params, err, sizeof err))
      return launch_fail(k, PTXLUA_ERROR, err);
    return PTXLUA_OK;
  }
  /* the emulator: each argument into the parameter block, then the grid, to completion */
  unsigned char tmp[4096] __attribute__((aligned(64)));
  int rc = emu_launch(k, grid, block, smem, args, nargs, tmp, sizeof tmp);
  tensors_out(k, args, nargs); /* the tensors' memory is the caller's again */
  return rc;
}

static int emu_launch(ptxlua_kernel *k, const unsigned grid[3], const unsigned block[3],
                      unsigned smem, const ptxlua_arg *args, int nargs, unsigned char *tmp,
                      size_t tmpsize) {
  ptxlua_engine *e = k->d->e;
  char msg[512];
  int mapped = 0;
  if (tensors_in(k, args, nargs, &mapped)) return PTXLUA_MISUSE;
  plX_clear(k->emu);
  for (int i = 0; i < nargs; i++) {
    if (k->p[i].size > tmpsize) {
      snprintf(msg, sizeof msg, "parameter %d is too large", i + 1);
      return launch_fail(k, PTXLUA_MISUSE, msg);
    }
    if (pack(k, i, &args[i], tmp)) return PTXLUA_MISUSE;
    if (plX_set_param(k->emu, i, tmp, k->p[i].size))
      return launch_fail(k, PTXLUA_ERROR, plX_error(k->emu));
  }
  uint32_t cl[3] = { k->cluster[0], k->cluster[1], k->cluster[2] };
  uint64_t lim = plE_emu_limit(e); /* the engine's budget (0: the default) */
  plX_set_limit(k->emu, lim == PTXLUA_LIMIT_NONE ? 0 : lim ? lim : PLX_LIMIT_DEFAULT);
  int clc = plE_emu_clc(e);
  plX_set_clc(k->emu, clc == PTXLUA_CLC_NONE        ? PLX_CLC_NONE
                      : clc == PTXLUA_CLC_ALTERNATE ? PLX_CLC_ALTERNATE
                                                    : PLX_CLC_ALL);
  if (plX_set_launch(k->emu, grid, block, smem) || (cl[0] && plX_set_cluster(k->emu, cl)))
    return launch_fail(k, PTXLUA_ERROR, plX_error(k->emu));
  if (plX_run(k->emu)) return launch_fail(k, PTXLUA_ERROR, plX_error(k->emu));
  return PTXLUA_OK;
}

PTXLUA_API int ptxlua_launch_block(const ptxlua_launch_args *l) {
  if (!l) return PTXLUA_MISUSE;
  return ptxlua_launch(l->kernel, l->grid, l->block, l->smem, l->stream, l->args, l->nargs);
}
