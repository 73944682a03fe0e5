/* driver.h -- the CUDA driver, loaded at run time: dlopen("libcuda.so.1") once, every entry
** point through cuGetProcAddress; contexts, modules, launches, memory, streams, events, tensor
** maps. Never linked against libcuda: a machine without a driver builds, prints, assembles and
** emulates. */
#ifndef PL_RUNTIME_H
#define PL_RUNTIME_H

#include <stddef.h>
#include <stdint.h>
#include <stdio.h>

/* every call returns 0 on success, else -1 with a message in err ("cuMemAlloc: CUDA_ERROR_...
** (text)") */
int plC_init(char *err, size_t n); /* loads the driver and calls cuInit(0), once */
int plC_driver_version(int *v, char *err, size_t n);
int plC_device_count(int *count, char *err, size_t n);
/* "native": the target of device 0 (its compute capability; the arch-specific sm_XYa from 9.0 on,
** where a cubin runs only on that very capability anyway), into out */
int plC_native_arch(char *out, size_t on, char *err, size_t n);

typedef struct plC_device {
  int ordinal, dev, cc_major, cc_minor, sm_count;
  void *ctx; /* the primary context (retained) */
  char name[256];
} plC_device;
int plC_device_open(int ordinal, plC_device *d, char *err, size_t n); /* retains, makes current */
void plC_device_close(plC_device *d);                                 /* releases */
int plC_make_current(void *ctx, char *err, size_t n);

/* a module from a cubin (is_ptx 0) or PTX text (is_ptx 1: the JIT's error log into err) */
int plC_module_load(const void *image, size_t len, int is_ptx, void **mod, char *err, size_t n);
void plC_module_unload(void *mod);
int plC_function(void *mod, const char *name, void **fn, char *err, size_t n);
int plC_set_dynamic_smem(void *fn, int bytes, char *err, size_t n); /* above 48 KB needs this */
/* the cluster the function was compiled for (.reqnctapercluster; {0, 0, 0}: none). Such a kernel is
** launched without the cluster launch attribute, as a __cluster_dims__ kernel is by <<< >>> */
int plC_function_cluster(void *fn, unsigned c[3], char *err, size_t n);
/* cluster NULL or 1 x 1 x 1: no cluster launch attribute */
int plC_launch(void *fn, const unsigned grid[3], const unsigned block[3], const unsigned cluster[3],
               unsigned smem, void *stream, void **params, char *err, size_t n);

int plC_alloc(uint64_t *ptr, size_t bytes, char *err, size_t n);
int plC_free(uint64_t ptr);
int plC_htod(uint64_t dst, const void *src, size_t bytes, char *err, size_t n);
int plC_dtoh(void *dst, uint64_t src, size_t bytes, char *err, size_t n);
int plC_dtod(uint64_t dst, uint64_t src, size_t bytes, char *err, size_t n);
int plC_memset8(uint64_t dst, unsigned char v, size_t bytes, char *err, size_t n);
int plC_sync(char *err, size_t n);
/* the ordinal of the device whose memory ptr is (cuPointerGetAttribute); -1 with why if none */
/* the current context */
int plC_pointer_device(uint64_t ptr, int *ordinal, char *err, size_t n);

int plC_stream_create(void **s, char *err, size_t n);
int plC_stream_sync(void *s, char *err, size_t n);
void plC_stream_destroy(void *s);
int plC_event_create(void **ev, char *err, size_t n);
int plC_event_record(void *ev, void *stream, char *err, size_t n);
int plC_event_elapsed(float *ms, void *start, void *end, char *err, size_t n); /* waits for end */
void plC_event_destroy(void *ev);

#include "tmap.h"

/* TMA: a 128-byte CUtensorMap from a global tensor (dims/strides innermost first, strides in bytes
** for dims 1..rank-1), the box a copy moves and the swizzle ("none", "32B", "64B", "128B") */
int plC_tensormap(uint8_t out[128], int dtype, int rank, uint64_t addr, const uint64_t *dims,
                  const uint64_t *strides, const uint32_t *box, const uint32_t *estrides,
                  int swizzle, char *err, size_t n);
/* the im2col map (cuTensorMapEncodeIm2col): rank 3-5, the pixel box corners of the rank-2
** spatial dims (W first), channels per pixel, pixels per column, and the driver's enum codes:
** interleave ("none", "16B", "32B"), L2 promotion ("none", "64B", "128B", "256B"; NULL 128B),
** OOB fill ("zero", "nan"); the parsers give -1 for an unknown name */
int plC_tensormap_im2col(uint8_t out[128], int dtype, int rank, uint64_t addr, const uint64_t *dims,
                         const uint64_t *strides, const int32_t *lower, const int32_t *upper,
                         uint32_t cpp, uint32_t ppc, const uint32_t *estrides, int interleave,
                         int swizzle, int l2, int oob, char *err, size_t n);

/* the architecture to assemble PTX of `.target target` for, to run on a device of compute
** capability major.minor: a cubin runs only on its own major version, at the same or a higher
** minor, so PTX of an older target (sm_80 on an sm_90 device) is assembled for the device
** ("sm_90"); an arch-specific target (sm_90a) only for that very device; a family one (sm_100f)
** for its family's devices. 0 with the arch in arch, else -1 with why in err ("... cannot run on
** this device") */
int plC_cubin_arch(const char *target, int major, int minor, char *arch, size_t an, char *err,
                   size_t n);

/* ptxlua --doctor, driver half: libcuda loads / cuInit / device count / compute capability */
int plC_doctor(FILE *f);

#endif
