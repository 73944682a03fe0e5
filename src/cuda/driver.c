/* driver.c -- the CUDA driver through dlopen + cuGetProcAddress (never linked, no cuda.h needed).
** The driver is the one piece of global state: loaded once (pthread_once), then read-only. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <dlfcn.h>
#include <pthread.h>
#include "driver.h"

/* ---- the driver API, declared here: the types and the few enum values used ------------------ */
typedef int CUresult;
typedef int CUdevice;
typedef void *CUcontext, *CUmodule, *CUfunction, *CUstream, *CUevent;
typedef unsigned long long CUdeviceptr;
typedef struct {
  unsigned x, y, z;
} CUclusterDim;
typedef union {
  char pad[64];
  CUclusterDim clusterDim;
} CUlaunchAttributeValue;
typedef struct {
  int id;
  char pad[4];
  CUlaunchAttributeValue value;
} CUlaunchAttribute;
typedef struct {
  unsigned gridDimX, gridDimY, gridDimZ, blockDimX, blockDimY, blockDimZ, sharedMemBytes;
  CUstream hStream;
  CUlaunchAttribute *attrs;
  unsigned numAttrs;
} CUlaunchConfig;
enum {
  CU_LAUNCH_ATTRIBUTE_CLUSTER_DIMENSION = 4,
  CU_FUNC_ATTRIBUTE_MAX_DYNAMIC_SHARED_SIZE_BYTES = 8,
  CU_FUNC_ATTRIBUTE_REQUIRED_CLUSTER_WIDTH = 11, /* HEIGHT 12, DEPTH 13 */
  CU_DEVICE_ATTRIBUTE_MULTIPROCESSOR_COUNT = 16,
  CU_DEVICE_ATTRIBUTE_CC_MAJOR = 75,
  CU_DEVICE_ATTRIBUTE_CC_MINOR = 76,
  CU_JIT_INFO_LOG_BUFFER = 3,
  CU_JIT_INFO_LOG_BUFFER_SIZE_BYTES = 4,
  CU_JIT_ERROR_LOG_BUFFER = 5,
  CU_JIT_ERROR_LOG_BUFFER_SIZE_BYTES = 6
};

typedef CUresult (*getproc_t)(const char *, void **, int, unsigned long long, int *);
#define PL_CUDA_VERSION 12000 /* the ABI of each entry point we ask for (cuMemAlloc -> _v2, ...) */

/* clang-format off */
#define CUFUNCS(X) \
  X(cuInit, (unsigned))                                                                   \
  X(cuDriverGetVersion, (int *))                                                          \
  X(cuGetErrorName, (CUresult, const char **))                                            \
  X(cuGetErrorString, (CUresult, const char **))                                          \
  X(cuDeviceGetCount, (int *))                                                            \
  X(cuDeviceGet, (CUdevice *, int))                                                       \
  X(cuDeviceGetAttribute, (int *, int, CUdevice))                                         \
  X(cuDeviceGetName, (char *, int, CUdevice))                                             \
  X(cuDevicePrimaryCtxRetain, (CUcontext *, CUdevice))                                    \
  X(cuDevicePrimaryCtxRelease, (CUdevice))                                                \
  X(cuCtxSetCurrent, (CUcontext))                                                         \
  X(cuCtxSynchronize, (void))                                                             \
  X(cuPointerGetAttribute, (void *, int, CUdeviceptr))                                    \
  X(cuModuleLoadData, (CUmodule *, const void *))                                         \
  X(cuModuleLoadDataEx, (CUmodule *, const void *, unsigned, int *, void **))             \
  X(cuModuleUnload, (CUmodule))                                                           \
  X(cuModuleGetFunction, (CUfunction *, CUmodule, const char *))                          \
  X(cuFuncSetAttribute, (CUfunction, int, int))                                           \
  X(cuFuncGetAttribute, (int *, int, CUfunction))                                         \
  X(cuLaunchKernelEx, (const CUlaunchConfig *, CUfunction, void **, void **))             \
  X(cuMemAlloc, (CUdeviceptr *, size_t))                                                  \
  X(cuMemFree, (CUdeviceptr))                                                             \
  X(cuMemcpyHtoD, (CUdeviceptr, const void *, size_t))                                    \
  X(cuMemcpyDtoH, (void *, CUdeviceptr, size_t))                                          \
  X(cuMemcpyDtoD, (CUdeviceptr, CUdeviceptr, size_t))                                     \
  X(cuMemsetD8, (CUdeviceptr, unsigned char, size_t))                                     \
  X(cuStreamCreate, (CUstream *, unsigned))                                               \
  X(cuStreamSynchronize, (CUstream))                                                      \
  X(cuStreamDestroy, (CUstream))                                                          \
  X(cuEventCreate, (CUevent *, unsigned))                                                 \
  X(cuEventRecord, (CUevent, CUstream))                                                   \
  X(cuEventSynchronize, (CUevent))                                                        \
  X(cuEventElapsedTime, (float *, CUevent, CUevent))                                      \
  X(cuEventDestroy, (CUevent))                                                            \
  X(cuTensorMapEncodeTiled,                                                               \
    (void *, int, unsigned, void *, const uint64_t *, const uint64_t *, const uint32_t *, \
    const uint32_t *, int, int, int, int))                                                \
  X(cuTensorMapEncodeIm2col,                                                              \
    (void *, int, unsigned, void *, const uint64_t *, const uint64_t *, const int *,      \
    const int *, unsigned, unsigned, const uint32_t *, int, int, int, int))
/* clang-format on */

#define DECL(name, args) CUresult(*name) args;
static struct { CUFUNCS(DECL) } D;
#undef DECL

static pthread_once_t ONCE = PTHREAD_ONCE_INIT;
static int LOADED;     /* 1: every entry point resolved and cuInit succeeded */
static char WHY[1024]; /* why not */
/* how far it got: 0 nothing, 1 libcuda loaded, 2 entry points, 3 cuInit */
static int STAGE;

static const char *errname(CUresult r) {
  const char *s = NULL;
  if (D.cuGetErrorName && D.cuGetErrorName(r, &s) == 0 && s) return s;
  return "CUDA_ERROR_UNKNOWN";
}
static int fail(CUresult r, const char *what, char *err, size_t n) {
  const char *txt = NULL;
  if (D.cuGetErrorString) D.cuGetErrorString(r, &txt);
  if (err && n) snprintf(err, n, "%s: %s (%s)", what, errname(r), txt ? txt : "no description");
  return -1;
}
#define CK(call, what)                     \
  do {                                     \
    CUresult r_ = (call);                  \
    if (r_) return fail(r_, what, err, n); \
  } while (0)

static void load(void) {
  const char *lib = getenv("PTXLUA_LIBCUDA"); /* tests point this at a missing file */
  if (!lib || !*lib) lib = "libcuda.so.1";
  void *h = dlopen(lib, RTLD_NOW | RTLD_LOCAL);
  if (!h) {
    const char *e = dlerror();
    snprintf(WHY, sizeof WHY, "no CUDA driver: cannot load %s (%s)", lib, e ? e : "not found");
    return;
  }
  STAGE = 1;
  getproc_t gp = (getproc_t)dlsym(h, "cuGetProcAddress_v2");
  if (!gp) gp = (getproc_t)dlsym(h, "cuGetProcAddress");
  if (!gp) {
    snprintf(WHY, sizeof WHY,
             "%s has no cuGetProcAddress (driver too old: CUDA 12 or later needed)", lib);
    return;
  }
  int st;
#define RESOLVE(name, args)                                                                      \
  if (gp(#name, (void **)&D.name, PL_CUDA_VERSION, 0, &st) != 0 || !D.name) {                    \
    snprintf(WHY, sizeof WHY, "%s: cuGetProcAddress found no %s (driver too old?)", lib, #name); \
    return;                                                                                      \
  }
  CUFUNCS(RESOLVE)
#undef RESOLVE
  STAGE = 2;
  CUresult r = D.cuInit(0);
  if (r) {
    const char *t = NULL;
    D.cuGetErrorString(r, &t);
    snprintf(WHY, sizeof WHY, "cuInit failed: %s (%s)", errname(r), t ? t : "");
    return;
  }
  STAGE = 3;
  LOADED = 1;
}

int plC_init(char *err, size_t n) {
  pthread_once(&ONCE, load);
  if (!LOADED) {
    if (err && n) snprintf(err, n, "%s", WHY);
    return -1;
  }
  return 0;
}
#define INIT()                       \
  do {                               \
    if (plC_init(err, n)) return -1; \
  } while (0)

int plC_driver_version(int *v, char *err, size_t n) {
  INIT();
  CK(D.cuDriverGetVersion(v), "cuDriverGetVersion");
  return 0;
}
int plC_device_count(int *c, char *err, size_t n) {
  INIT();
  CK(D.cuDeviceGetCount(c), "cuDeviceGetCount");
  return 0;
}

int plC_native_arch(char *out, size_t on, char *err, size_t n) {
  INIT();
  int count = 0, ma = 0, mi = 0;
  CUdevice d;
  CK(D.cuDeviceGetCount(&count), "cuDeviceGetCount");
  if (count < 1) {
    snprintf(err, n, "the CUDA driver sees no device");
    return -1;
  }
  CK(D.cuDeviceGet(&d, 0), "cuDeviceGet");
  CK(D.cuDeviceGetAttribute(&ma, CU_DEVICE_ATTRIBUTE_CC_MAJOR, d), "cuDeviceGetAttribute");
  CK(D.cuDeviceGetAttribute(&mi, CU_DEVICE_ATTRIBUTE_CC_MINOR, d), "cuDeviceGetAttribute");
  snprintf(out, on, "sm_%d%d%s", ma, mi, ma >= 9 ? "a" : "");
  return 0;
}

int plC_device_open(int ordinal, plC_device *d, char *err, size_t n) {
  INIT();
  memset(d, 0, sizeof *d);
  int count = 0;
  CK(D.cuDeviceGetCount(&count), "cuDeviceGetCount");
  if (ordinal < 0 || ordinal >= count) {
    snprintf(err, n, "no CUDA device %d (the driver sees %d)", ordinal, count);
    return -1;
  }
  d->ordinal = ordinal;
  CK(D.cuDeviceGet(&d->dev, ordinal), "cuDeviceGet");
  CK(D.cuDeviceGetAttribute(&d->cc_major, CU_DEVICE_ATTRIBUTE_CC_MAJOR, d->dev),
     "cuDeviceGetAttribute");
  CK(D.cuDeviceGetAttribute(&d->cc_minor, CU_DEVICE_ATTRIBUTE_CC_MINOR, d->dev),
     "cuDeviceGetAttribute");
  CK(D.cuDeviceGetAttribute(&d->sm_count, CU_DEVICE_ATTRIBUTE_MULTIPROCESSOR_COUNT, d->dev),
     "cuDeviceGetAttribute");
  CK(D.cuDeviceGetName(d->name, (int)sizeof d->name, d->dev), "cuDeviceGetName");
  CK(D.cuDevicePrimaryCtxRetain(&d->ctx, d->dev), "cuDevicePrimaryCtxRetain");
  CK(D.cuCtxSetCurrent(d->ctx), "cuCtxSetCurrent");
  return 0;
}
void plC_device_close(plC_device *d) {
  if (LOADED && d && d->ctx) {
    D.cuDevicePrimaryCtxRelease(d->dev);
    d->ctx = NULL;
  }
}
int plC_make_current(void *ctx, char *err, size_t n) {
  INIT();
  CK(D.cuCtxSetCurrent(ctx), "cuCtxSetCurrent");
  return 0;
}

int plC_module_load(const void *image, size_t len, int is_ptx, void **mod, char *err, size_t n) {
  INIT();
  (void)len;
  if (!is_ptx) {
    CK(D.cuModuleLoadData((CUmodule *)mod, image), "cuModuleLoadData");
    return 0;
  }
  char log[16384];
  log[0] = 0;
  int opts[2] = { CU_JIT_ERROR_LOG_BUFFER, CU_JIT_ERROR_LOG_BUFFER_SIZE_BYTES };
  void *vals[2] = { log, (void *)(uintptr_t)sizeof log };
  CUresult r = D.cuModuleLoadDataEx((CUmodule *)mod, image, 2, opts, vals);
  if (r) {
    fail(r, "cuModuleLoadDataEx (PTX JIT)", err, n);
    if (log[0]) snprintf(err, n, "%s", log);
    return -1;
  }
  return 0;
}
void plC_module_unload(void *mod) {
  if (LOADED && mod) D.cuModuleUnload(mod);
}
int plC_function(void *mod, const char *name, void **fn, char *err, size_t n) {
  INIT();
  CK(D.cuModuleGetFunction((CUfunction *)fn, mod, name), "cuModuleGetFunction");
  return 0;
}
int plC_set_dynamic_smem(void *fn, int bytes, char *err, size_t n) {
  INIT();
  CK(D.cuFuncSetAttribute(fn, CU_FUNC_ATTRIBUTE_MAX_DYNAMIC_SHARED_SIZE_BYTES, bytes),
     "cuFuncSetAttribute(MAX_DYNAMIC_SHARED_SIZE_BYTES)");
  return 0;
}

int plC_function_cluster(void *fn, unsigned c[3], char *err, size_t n) {
  INIT();
  for (int i = 0; i < 3; i++) {
    int v = 0;
    CK(D.cuFuncGetAttribute(&v, CU_FUNC_ATTRIBUTE_REQUIRED_CLUSTER_WIDTH + i, fn),
       "cuFuncGetAttribute(REQUIRED_CLUSTER_*)");
    c[i] = v > 0 ? (unsigned)v : 0;
  }
  return 0;
}

int plC_launch(void *fn, const unsigned grid[3], const unsigned block[3], const unsigned cluster[3],
               unsigned smem, void *stream, void **params, char *err, size_t n) {
  if (!LOADED) INIT();
  CUlaunchAttribute at;
  memset(&at, 0, sizeof at);
  CUlaunchConfig c = { grid[0],  grid[1], grid[2], block[0], block[1],
                       block[2], smem,    stream,  NULL,     0 };
  if (cluster && cluster[0] * cluster[1] * cluster[2] > 1) {
    at.id = CU_LAUNCH_ATTRIBUTE_CLUSTER_DIMENSION;
    at.value.clusterDim.x = cluster[0];
    at.value.clusterDim.y = cluster[1];
    at.value.clusterDim.z = cluster[2];
    c.attrs = &at;
    c.numAttrs = 1;
  }
  CK(D.cuLaunchKernelEx(&c, fn, params, NULL), "cuLaunchKernelEx");
  return 0;
}

int plC_alloc(uint64_t *p, size_t bytes, char *err, size_t n) {
  INIT();
  CUdeviceptr d = 0;
  CK(D.cuMemAlloc(&d, bytes), "cuMemAlloc");
  *p = d;
  return 0;
}
int plC_free(uint64_t p) {
  return LOADED && p ? (D.cuMemFree(p) ? -1 : 0) : 0;
}
int plC_htod(uint64_t dst, const void *src, size_t bytes, char *err, size_t n) {
  INIT();
  CK(D.cuMemcpyHtoD(dst, src, bytes), "cuMemcpyHtoD");
  return 0;
}
int plC_dtoh(void *dst, uint64_t src, size_t bytes, char *err, size_t n) {
  INIT();
  CK(D.cuMemcpyDtoH(dst, src, bytes), "cuMemcpyDtoH");
  return 0;
}
int plC_dtod(uint64_t dst, uint64_t src, size_t bytes, char *err, size_t n) {
  INIT();
  CK(D.cuMemcpyDtoD(dst, src, bytes), "cuMemcpyDtoD");
  return 0;
}
int plC_memset8(uint64_t dst, unsigned char v, size_t bytes, char *err, size_t n) {
  INIT();
  CK(D.cuMemsetD8(dst, v, bytes), "cuMemsetD8");
  return 0;
}
int plC_sync(char *err, size_t n) {
  INIT();
  CK(D.cuCtxSynchronize(), "cuCtxSynchronize (a kernel failed?)");
  return 0;
}

int plC_pointer_device(uint64_t p, int *ordinal, char *err, size_t n) {
  INIT();
  int ord = -1;
  CK(D.cuPointerGetAttribute(&ord, 9 /* CU_POINTER_ATTRIBUTE_DEVICE_ORDINAL */, p),
     "cuPointerGetAttribute");
  *ordinal = ord;
  return 0;
}

int plC_stream_create(void **s, char *err, size_t n) {
  INIT();
  CK(D.cuStreamCreate((CUstream *)s, 0), "cuStreamCreate");
  return 0;
}
int plC_stream_sync(void *s, char *err, size_t n) {
  INIT();
  CK(D.cuStreamSynchronize(s), "cuStreamSynchronize");
  return 0;
}
void plC_stream_destroy(void *s) {
  if (LOADED && s) D.cuStreamDestroy(s);
}
int plC_event_create(void **ev, char *err, size_t n) {
  INIT();
  CK(D.cuEventCreate((CUevent *)ev, 0), "cuEventCreate");
  return 0;
}
int plC_event_record(void *ev, void *s, char *err, size_t n) {
  INIT();
  CK(D.cuEventRecord(ev, s), "cuEventRecord");
  return 0;
}
int plC_event_elapsed(float *ms, void *a, void *b, char *err, size_t n) {
  INIT();
  CK(D.cuEventSynchronize(b), "cuEventSynchronize");
  CK(D.cuEventElapsedTime(ms, a, b), "cuEventElapsedTime");
  return 0;
}
void plC_event_destroy(void *ev) {
  if (LOADED && ev) D.cuEventDestroy(ev);
}

int plC_tensormap_im2col(uint8_t out[128], int dtype, int rank, uint64_t addr, const uint64_t *dims,
                         const uint64_t *strides, const int32_t *lower, const int32_t *upper,
                         uint32_t cpp, uint32_t ppc, const uint32_t *estrides, int interleave,
                         int swizzle, int l2, int oob, char *err, size_t n) {
  INIT();
  _Alignas(64) uint8_t tm[128];
  memset(tm, 0, sizeof tm);
  int lo[3] = { 0, 0, 0 }, hi[3] = { 0, 0, 0 };
  for (int i = 0; i < rank - 2 && i < 3; i++) {
    lo[i] = lower[i];
    hi[i] = upper[i];
  }
  CK(D.cuTensorMapEncodeIm2col(tm, dtype, (unsigned)rank, (void *)(uintptr_t)addr, dims, strides,
                               lo, hi, cpp, ppc, estrides, interleave, swizzle, l2, oob),
     "cuTensorMapEncodeIm2col");
  memcpy(out, tm, 128);
  return 0;
}

int plC_tensormap(uint8_t out[128], int dtype, int rank, uint64_t addr, const uint64_t *dims,
                  const uint64_t *strides, const uint32_t *box, const uint32_t *estrides,
                  int swizzle, char *err, size_t n) {
  INIT();
  _Alignas(64) uint8_t tm[128];
  memset(tm, 0, sizeof tm);
  CK(D.cuTensorMapEncodeTiled(tm, dtype, (unsigned)rank, (void *)(uintptr_t)addr, dims, strides,
                              box, estrides, 0 /* interleave none */, swizzle,
                              2 /* L2 promotion 128B */, 0 /* OOB fill zeros */),
     "cuTensorMapEncodeTiled");
  memcpy(out, tm, 128);
  return 0;
}

int plC_cubin_arch(const char *target, int major, int minor, char *arch, size_t an, char *err,
                   size_t n) {
  int num = 0, len = 0;
  char suffix = 0;
  if (!target || sscanf(target, "sm_%d%n", &num, &len) != 1 || num < 10) {
    if (err && n)
      snprintf(err, n, "target '%.40s' is not an sm_XY architecture", target ? target : "(none)");
    return -1;
  }
  if (target[len] == 'a' || target[len] == 'f') suffix = target[len++];
  if (target[len]) {
    if (err && n) snprintf(err, n, "target '%.40s' is not an sm_XY architecture", target);
    return -1;
  }
  int dev = major * 10 + minor;
  int ok = suffix == 'a'   ? num == dev
           : suffix == 'f' ? (num / 10 == major && num % 10 <= minor)
                           : num <= dev;
  if (!ok) {
    if (err && n)
      snprintf(err, n, "PTX for %s cannot run on this device (sm_%d, compute capability %d.%d)%s",
               target, dev, major, minor,
               suffix == 'a' ? ": an arch-specific target runs only on that architecture" : "");
    return -1;
  }
  if (num == dev)
    snprintf(arch, an, "%s", target);
  else
    snprintf(arch, an, "sm_%d", dev);
  return 0;
}

int plC_doctor(FILE *f) {
  char err[1024];
  int ok = plC_init(err, sizeof err) == 0;
  const char *lib = getenv("PTXLUA_LIBCUDA");
  if (!lib || !*lib) lib = "libcuda.so.1";
  fprintf(f, "%-22s %s\n", "libcuda loads", STAGE >= 1 ? "yes" : "no");
  if (STAGE < 1) fprintf(f, "  why: %s\n", WHY);
  fprintf(f, "%-22s %s\n", "entry points",
          STAGE >= 2   ? "yes (cuGetProcAddress, CUDA 12 ABI)"
          : STAGE >= 1 ? "no"
                       : "-");
  if (STAGE == 1) fprintf(f, "  why: %s\n", WHY);
  fprintf(f, "%-22s %s\n", "cuInit", STAGE >= 3 ? "ok" : STAGE == 2 ? "failed" : "-");
  if (STAGE == 2) fprintf(f, "  why: %s\n", WHY);
  if (!ok) {
    fprintf(f, "%-22s -\n%-22s -\n", "device count", "compute capability");
    return 1;
  }
  int v = 0, count = 0;
  plC_driver_version(&v, err, sizeof err);
  fprintf(f, "%-22s %d.%d\n", "driver version", v / 1000, (v % 1000) / 10);
  if (plC_device_count(&count, err, sizeof err)) {
    fprintf(f, "%-22s failed\n  why: %s\n", "device count", err);
    return 1;
  }
  fprintf(f, "%-22s %d\n", "device count", count);
  for (int i = 0; i < count; i++) {
    CUdevice d;
    int ma = 0, mi = 0;
    char name[256] = "?";
    if (D.cuDeviceGet(&d, i)) continue;
    D.cuDeviceGetAttribute(&ma, CU_DEVICE_ATTRIBUTE_CC_MAJOR, d);
    D.cuDeviceGetAttribute(&mi, CU_DEVICE_ATTRIBUTE_CC_MINOR, d);
    D.cuDeviceGetName(name, sizeof name, d);
    fprintf(f, "%-22s device %d: %s, sm_%d%d\n", "compute capability", i, name, ma, mi);
  }
  if (!count) fprintf(f, "%-22s -\n  why: the driver sees no device\n", "compute capability");
  return count ? 0 : 1;
}
