/* mock_cuda.c -- a stand-in libcuda.so.1 for tests: the driver entry points ptxlua's runtime uses,
** reached through cuGetProcAddress as with the real driver. It reports one sm_90 device, keeps
** "device memory" in host memory, loads cubins by reading their ELF (symbol table and the
** .nv.info.<kernel> parameter records, EIATTR_KPARAM_INFO), and on a launch copies the parameter
** bytes out of kernelParams exactly as the driver does: parameter i, of the size the cubin gives
** it, to its offset in the parameter block. A test then reads what was launched through the
** ptxmock_* functions (dlsym, or LuaJIT's ffi). It runs no kernel: it proves our side of the
** driver ABI, not the GPU. It refuses what the driver refuses where ptxlua could get it wrong: a
** cubin of another SM major (CUDA_ERROR_NO_BINARY_FOR_GPU), a launch whose static + dynamic shared
** memory is over 48 KB without cuFuncSetAttribute, the tensor-map encodings' documented rules, a
** cluster that does not divide the grid.
**
** Failure injection: ptxmock_fail("cuModuleLoadData", 218) makes the next call of that entry point
** return 218; PTXMOCK_FAIL="cuInit=100" in the environment does the same from the first call
** (for a test that runs a child process). PTXMOCK_DEVICES=0 reports no device. PTXMOCK_HANG=name:
** after a launch of kernel `name`, every wait for the GPU (cuCtxSynchronize, cuStreamSynchronize,
** cuEventSynchronize) blocks forever, as a kernel that never finishes does. PTXMOCK_CC=8.6: the
** compute capability every device reports (default 9.0), and the SM a cubin must be for. */
#define _GNU_SOURCE 1
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>
#include <pthread.h>
#include "ptxmock.h"

#define API __attribute__((visibility("default")))

typedef int CUresult;
enum {
  OK = 0,
  E_INVALID_VALUE = 1,
  E_OUT_OF_MEMORY = 2,
  E_NOT_INITIALIZED = 3,
  E_NO_DEVICE = 100,
  E_INVALID_DEVICE = 101,
  E_INVALID_IMAGE = 200,
  E_NO_BINARY_FOR_GPU = 209,
  E_INVALID_CONTEXT = 201,
  E_INVALID_HANDLE = 400,
  E_NOT_FOUND = 500,
  E_NOT_READY = 600,
  E_LAUNCH_OUT_OF_RESOURCES = 701,
  E_INVALID_CLUSTER_SIZE = 912
};

/* ---- state
** ------------------------------------------------------------------------------------ */
#define MAXP 64
typedef struct {
  char name[256];
  int nparams;
  uint32_t off[MAXP], size[MAXP];
  uint32_t param_bytes; /* EIATTR_CBANK_PARAM_SIZE, or the end of the last parameter */
  int layout_known;
  int max_dyn_smem;        /* CU_FUNC_ATTRIBUTE_MAX_DYNAMIC_SHARED_SIZE_BYTES */
  unsigned req_cluster[3]; /* .reqnctapercluster (EIATTR_CTA_PER_CLUSTER 0x3d), 0s: none */
  /* the cubin's static shared memory (.nv.shared.<name>, less sm_90's reserved 1 KB) */
  int static_smem;
  int module;
} mfunc;

typedef struct {
  int launches;
  struct ptxmock_launch last;
} mstate;

static pthread_mutex_t LOCK = PTHREAD_MUTEX_INITIALIZER;
static int INITED;
static mfunc FUNCS[256];
static int NFUNCS;
static int NMODULES;
static size_t MODULE_BYTES[64];
static unsigned char *MODULE_IMAGE[64]; /* a copy of each image loaded (its MODULE_BYTES bytes) */
static mstate S;
static char FAIL_NAME[64];
static int FAIL_CODE;
static int CTX_RETAINED;
static double CLOCK_MS; /* the fake GPU clock: advances on every call that "runs" */
static int PTX_MODULES;

typedef struct {
  uintptr_t base;
  size_t bytes;
} mbuf;
static mbuf BUFS[4096];
static int NBUFS;
static size_t ALLOCATED;

typedef struct {
  int recorded;
  double ms;
} mevent;

static void env_fail(void) {
  const char *f = getenv("PTXMOCK_FAIL");
  if (f && *f) {
    const char *eq = strchr(f, '=');
    if (eq && (size_t)(eq - f) < sizeof FAIL_NAME) {
      memcpy(FAIL_NAME, f, (size_t)(eq - f));
      FAIL_NAME[eq - f] = 0;
      FAIL_CODE = atoi(eq + 1);
    }
  }
}

/* a pending injected failure of this entry point (consumed) */
static int injected(const char *name) {
  if (FAIL_CODE && strcmp(FAIL_NAME, name) == 0) {
    int c = FAIL_CODE;
    FAIL_CODE = 0;
    return c;
  }
  return 0;
}
#define ENTER(name)          \
  do {                       \
    int c_ = injected(name); \
    if (c_) return c_;       \
  } while (0)
#define NEED_INIT()                        \
  do {                                     \
    if (!INITED) return E_NOT_INITIALIZED; \
  } while (0)

static double now_ms(void) {
  struct timespec ts;
  clock_gettime(CLOCK_MONOTONIC, &ts);
  double t = ts.tv_sec * 1e3 + ts.tv_nsec / 1e6;
  if (t <= CLOCK_MS) t = CLOCK_MS + 1e-6; /* strictly monotone */
  CLOCK_MS = t;
  return t;
}

static mbuf *find_buf(uintptr_t p, size_t bytes) {
  for (int i = 0; i < NBUFS; i++)
    if (p >= BUFS[i].base && p - BUFS[i].base <= BUFS[i].bytes &&
        bytes <= BUFS[i].bytes - (p - BUFS[i].base))
      return &BUFS[i];
  return NULL;
}

/* ---- the test's side
** -------------------------------------------------------------------------- */
API int ptxmock_launch_count(void) {
  return S.launches;
}
API const struct ptxmock_launch *ptxmock_last_launch(void) {
  return &S.last;
}
API int ptxmock_module_count(void) {
  return NMODULES;
}
API int ptxmock_ptx_module_count(void) {
  return PTX_MODULES;
}
API size_t ptxmock_module_bytes(int i) {
  return i >= 0 && i < NMODULES && i < 64 ? MODULE_BYTES[i] : 0;
}
/* the bytes of image i as the driver received them (ptxmock_module_bytes(i) of them), or NULL */
API const unsigned char *ptxmock_module_image(int i) {
  return i >= 0 && i < NMODULES && i < 64 ? MODULE_IMAGE[i] : NULL;
}
API int ptxmock_context_refs(void) {
  return CTX_RETAINED;
}
API size_t ptxmock_allocated(void) {
  return ALLOCATED;
}
API int ptxmock_buffers(void) {
  return NBUFS;
}
API void ptxmock_fail(const char *entry, int code) {
  snprintf(FAIL_NAME, sizeof FAIL_NAME, "%s", entry ? entry : "");
  FAIL_CODE = code;
}
/* the parameter layout the cubin gave function `name`: count, or -1 when unknown */
API int ptxmock_param_layout(const char *name, uint32_t *off, uint32_t *size, int max) {
  for (int i = 0; i < NFUNCS; i++)
    if (strcmp(FUNCS[i].name, name) == 0) {
      if (!FUNCS[i].layout_known) return -1;
      for (int j = 0; j < FUNCS[i].nparams && j < max; j++) {
        off[j] = FUNCS[i].off[j];
        size[j] = FUNCS[i].size[j];
      }
      return FUNCS[i].nparams;
    }
  return -1;
}
API int ptxmock_static_smem(const char *name) {
  for (int i = 0; i < NFUNCS; i++)
    if (strcmp(FUNCS[i].name, name) == 0) return FUNCS[i].static_smem;
  return -1;
}
API int ptxmock_max_dynamic_smem(const char *name) {
  for (int i = 0; i < NFUNCS; i++)
    if (strcmp(FUNCS[i].name, name) == 0) return FUNCS[i].max_dyn_smem;
  return -1;
}

/* ---- errors
** ------------------------------------------------------------------------------------ */
static const struct {
  int code;
  const char *name, *text;
} ERRS[] = {
  { OK, "CUDA_SUCCESS", "no error" },
  { E_INVALID_VALUE, "CUDA_ERROR_INVALID_VALUE", "invalid argument" },
  { E_OUT_OF_MEMORY, "CUDA_ERROR_OUT_OF_MEMORY", "out of memory" },
  { E_NOT_INITIALIZED, "CUDA_ERROR_NOT_INITIALIZED", "initialization error" },
  { E_NO_DEVICE, "CUDA_ERROR_NO_DEVICE", "no CUDA-capable device is detected" },
  { E_INVALID_DEVICE, "CUDA_ERROR_INVALID_DEVICE", "invalid device ordinal" },
  { E_INVALID_IMAGE, "CUDA_ERROR_INVALID_IMAGE", "device kernel image is invalid" },
  { E_NO_BINARY_FOR_GPU, "CUDA_ERROR_NO_BINARY_FOR_GPU",
    "no kernel image is available for execution on the device" },
  { E_INVALID_CONTEXT, "CUDA_ERROR_INVALID_CONTEXT", "invalid device context" },
  { 218, "CUDA_ERROR_INVALID_PTX", "a PTX JIT compilation failed" },
  { E_INVALID_HANDLE, "CUDA_ERROR_INVALID_HANDLE", "invalid resource handle" },
  { E_NOT_FOUND, "CUDA_ERROR_NOT_FOUND", "named symbol not found" },
  { E_NOT_READY, "CUDA_ERROR_NOT_READY", "device not ready" },
  { 700, "CUDA_ERROR_ILLEGAL_ADDRESS", "an illegal memory access was encountered" },
  { E_LAUNCH_OUT_OF_RESOURCES, "CUDA_ERROR_LAUNCH_OUT_OF_RESOURCES",
    "too many resources requested for launch" },
  { E_INVALID_CLUSTER_SIZE, "CUDA_ERROR_INVALID_CLUSTER_SIZE", "invalid cluster size" },
};
static CUresult cuGetErrorName(CUresult r, const char **s) {
  for (size_t i = 0; i < sizeof ERRS / sizeof ERRS[0]; i++)
    if (ERRS[i].code == r) {
      *s = ERRS[i].name;
      return OK;
    }
  *s = NULL;
  return E_INVALID_VALUE;
}
static CUresult cuGetErrorString(CUresult r, const char **s) {
  for (size_t i = 0; i < sizeof ERRS / sizeof ERRS[0]; i++)
    if (ERRS[i].code == r) {
      *s = ERRS[i].text;
      return OK;
    }
  *s = NULL;
  return E_INVALID_VALUE;
}

/* ---- init, devices, contexts
** ------------------------------------------------------------------ */
static int ndevices(void) {
  const char *d = getenv("PTXMOCK_DEVICES");
  return d && *d ? atoi(d) : 1;
}

static CUresult cuInit(unsigned flags) {
  ENTER("cuInit");
  if (flags != 0) return E_INVALID_VALUE;
  INITED = 1;
  return OK;
}
static CUresult cuDriverGetVersion(int *v) {
  ENTER("cuDriverGetVersion");
  if (!v) return E_INVALID_VALUE;
  *v = 12040;
  return OK;
}
static CUresult cuDeviceGetCount(int *c) {
  ENTER("cuDeviceGetCount");
  NEED_INIT();
  if (!c) return E_INVALID_VALUE;
  *c = ndevices();
  return OK;
}
static CUresult cuDeviceGet(int *d, int ordinal) {
  ENTER("cuDeviceGet");
  NEED_INIT();
  if (!d) return E_INVALID_VALUE;
  if (ordinal < 0 || ordinal >= ndevices()) return E_INVALID_DEVICE;
  *d = ordinal;
  return OK;
}
/* the compute capability the mock reports: 9.0, or $PTXMOCK_CC ("8.6", "10.0") */
static void mock_cc(int *ma, int *mi) {
  const char *cc = getenv("PTXMOCK_CC");
  *ma = 9;
  *mi = 0;
  if (cc && *cc) {
    *ma = atoi(cc);
    const char *dot = strchr(cc, '.');
    *mi = dot ? atoi(dot + 1) : 0;
  }
}

static CUresult cuDeviceGetAttribute(int *v, int attr, int dev) {
  ENTER("cuDeviceGetAttribute");
  NEED_INIT();
  if (!v) return E_INVALID_VALUE;
  if (dev < 0 || dev >= ndevices()) return E_INVALID_DEVICE;
  switch (attr) {
  case 75:
  case 76: { /* compute capability: 9.0, or $PTXMOCK_CC ("8.6") */
    int ma, mi;
    mock_cc(&ma, &mi);
    *v = attr == 75 ? ma : mi;
    break;
  }
  case 16: *v = 132; break;    /* multiprocessors */
  case 1: *v = 1024; break;    /* max threads per block */
  case 8: *v = 49152; break;   /* shared memory per block */
  case 97: *v = 232448; break; /* shared memory per block, opt-in */
  default: *v = 0;
  }
  return OK;
}
static CUresult cuDeviceGetName(char *name, int len, int dev) {
  ENTER("cuDeviceGetName");
  NEED_INIT();
  if (!name || len <= 0) return E_INVALID_VALUE;
  if (dev < 0 || dev >= ndevices()) return E_INVALID_DEVICE;
  snprintf(name, (size_t)len, "ptxlua mock device (sm_90)");
  return OK;
}
static int CTX_TOKEN;
static CUresult cuDevicePrimaryCtxRetain(void **ctx, int dev) {
  ENTER("cuDevicePrimaryCtxRetain");
  NEED_INIT();
  if (!ctx) return E_INVALID_VALUE;
  if (dev < 0 || dev >= ndevices()) return E_INVALID_DEVICE;
  CTX_RETAINED++;
  *ctx = &CTX_TOKEN;
  return OK;
}
static CUresult cuDevicePrimaryCtxRelease(int dev) {
  ENTER("cuDevicePrimaryCtxRelease");
  NEED_INIT();
  if (dev < 0 || dev >= ndevices()) return E_INVALID_DEVICE;
  if (CTX_RETAINED <= 0) return E_INVALID_CONTEXT;
  CTX_RETAINED--;
  return OK;
}
static void *CURRENT;
static CUresult cuCtxSetCurrent(void *ctx) {
  ENTER("cuCtxSetCurrent");
  NEED_INIT();
  if (ctx && ctx != &CTX_TOKEN) return E_INVALID_CONTEXT;
  CURRENT = ctx;
  return OK;
}
#define NEED_CTX()                          \
  do {                                      \
    NEED_INIT();                            \
    if (!CURRENT) return E_INVALID_CONTEXT; \
  } while (0)
static int HUNG; /* a launch of $PTXMOCK_HANG's kernel: waits never return */
static void hang_if_hung(void) {
  while (HUNG) sleep(1);
}
/* the context current on the calling thread (the mock's one context, or NULL) */
API void *ptxmock_current_context(void) {
  return CURRENT;
}
static CUresult cuCtxGetCurrent(void **ctx) {
  ENTER("cuCtxGetCurrent");
  NEED_INIT();
  if (!ctx) return E_INVALID_VALUE;
  *ctx = CURRENT;
  return OK;
}
static CUresult cuCtxSynchronize(void) {
  ENTER("cuCtxSynchronize");
  NEED_CTX();
  hang_if_hung();
  now_ms();
  return OK;
}

/* ---- modules: the cubin's ELF
** ----------------------------------------------------------------- */
static uint16_t rd16(const unsigned char *p) {
  return (uint16_t)(p[0] | p[1] << 8);
}
static uint32_t rd32(const unsigned char *p) {
  return (uint32_t)p[0] | (uint32_t)p[1] << 8 | (uint32_t)p[2] << 16 | (uint32_t)p[3] << 24;
}
static uint64_t rd64(const unsigned char *p) {
  return rd32(p) | (uint64_t)rd32(p + 4) << 32;
}

static mfunc *add_func(const char *name, size_t len, int module) {
  if (NFUNCS >= 256 || len >= 256) return NULL;
  mfunc *f = &FUNCS[NFUNCS++];
  memset(f, 0, sizeof *f);
  memcpy(f->name, name, len);
  f->name[len] = 0;
  f->module = module;
  f->max_dyn_smem = 49152;
  f->static_smem = 0;
  return f;
}

/* an ELF64 cubin: its size from the headers, its functions from .symtab, their parameters from
** .nv.info.<name> (EIATTR_KPARAM_INFO 0x17: ordinal, offset, size << 18; EIATTR_CBANK_PARAM_SIZE
** 0x19) */
static CUresult load_elf(const unsigned char *d, int module, size_t *bytes) {
  if (d[4] != 2 || d[5] != 1) return E_INVALID_IMAGE; /* 64-bit little-endian */
  /* the machine code's SM (e_flags: bits 8..15 from ELF ABI version 8, bits 0..7 before): a cubin
  ** runs only on its own major version at the same or a higher minor -- the mock's (9.0 unless
  ** $PTXMOCK_CC says otherwise) */
  uint32_t eflags = rd32(d + 0x30);
  unsigned sm = d[8] >= 8 ? (eflags >> 8) & 0xff : eflags & 0xff;
  int ma, mi;
  mock_cc(&ma, &mi);
  if (sm / 10 != (unsigned)ma || sm % 10 > (unsigned)mi) return E_NO_BINARY_FOR_GPU;
  uint64_t phoff = rd64(d + 0x20), shoff = rd64(d + 0x28);
  uint16_t phentsize = rd16(d + 0x36), phnum = rd16(d + 0x38), shentsize = rd16(d + 0x3a),
           shnum = rd16(d + 0x3c), shstrndx = rd16(d + 0x3e);
  if (shentsize != 64 || shnum == 0 || shstrndx >= shnum || shoff > (1u << 30))
    return E_INVALID_IMAGE;
  size_t size = (size_t)(shoff + (uint64_t)shnum * shentsize);
  if (phnum && phoff + (uint64_t)phnum * phentsize > size)
    size = (size_t)(phoff + (uint64_t)phnum * phentsize);
  const unsigned char *sh = d + shoff;
  const unsigned char *shstr = d + rd64(sh + shstrndx * 64 + 0x18);
  int nf0 = NFUNCS;
  for (int i = 0; i < shnum; i++) { /* functions: STT_FUNC symbols */
    const unsigned char *s = sh + i * 64;
    uint64_t off = rd64(s + 0x18), sz = rd64(s + 0x20);
    if (off + sz > size && rd32(s + 4) != 8) size = (size_t)(off + sz);
    if (rd32(s + 4) != 2) continue; /* SHT_SYMTAB */
    const unsigned char *strtab = d + rd64(sh + rd32(s + 0x28) * 64 + 0x18);
    for (uint64_t k = 0; k + 24 <= sz; k += 24) {
      const unsigned char *sym = d + off + k;
      if ((sym[4] & 0xf) != 2) continue; /* STT_FUNC */
      const char *name = (const char *)strtab + rd32(sym);
      if (*name) add_func(name, strlen(name), module);
    }
  }
  /* static shared memory: .nv.shared.<name> (NOBITS) holds the kernel's static arrays and, for
  ** sm_90 code (ptxas and nvJitLink alike), the 1 KB the system reserves in every block. As the
  ** driver does, a function's default dynamic limit is then 48 KB less its static arrays, and
  ** cuFuncSetAttribute may raise it to 227 KB less them. */
  int reserved = sm >= 90 ? 1024 : 0;
  for (int i = 0; i < shnum; i++) {
    const unsigned char *s = sh + i * 64;
    const char *sname = (const char *)shstr + rd32(s);
    if (strncmp(sname, ".nv.shared.", 11) != 0 || strncmp(sname, ".nv.shared.reserved.", 20) == 0)
      continue;
    for (int j = nf0; j < NFUNCS; j++)
      if (strcmp(FUNCS[j].name, sname + 11) == 0) {
        int64_t st = (int64_t)rd64(s + 0x20) - reserved;
        FUNCS[j].static_smem = st > 0 ? (int)st : 0;
        FUNCS[j].max_dyn_smem = 49152 - FUNCS[j].static_smem;
      }
  }
  for (int i = 0; i < shnum; i++) { /* parameters */
    const unsigned char *s = sh + i * 64;
    const char *sname = (const char *)shstr + rd32(s);
    if (strncmp(sname, ".nv.info.", 9) != 0) continue;
    mfunc *f = NULL;
    for (int j = nf0; j < NFUNCS; j++)
      if (strcmp(FUNCS[j].name, sname + 9) == 0) f = &FUNCS[j];
    if (!f) continue;
    f->layout_known = 1;
    const unsigned char *p = d + rd64(s + 0x18), *end = p + rd64(s + 0x20);
    while (p + 4 <= end) {
      unsigned fmt = p[0], attr = p[1], v = rd16(p + 2);
      p += 4;
      if (fmt == 4) {
        if (attr == 0x3d && v >= 12)
          for (int k = 0; k < 3; k++) f->req_cluster[k] = rd32(p + 4 * k);
        if (attr == 0x17 && v >= 12) {
          unsigned ord = rd16(p + 4), off = rd16(p + 6), sz = rd32(p + 8) >> 18;
          if (ord < MAXP) {
            f->off[ord] = off;
            f->size[ord] = sz;
            if ((int)ord + 1 > f->nparams) f->nparams = (int)ord + 1;
            if (off + sz > f->param_bytes) f->param_bytes = off + sz;
          }
        }
        p += v;
      } else if (fmt == 3 && attr == 0x19) {
        if (v > f->param_bytes) f->param_bytes = v;
      }
    }
  }
  *bytes = size;
  return OK;
}

/* PTX text: the .entry names (the real driver would JIT it; the mock knows no parameter layout) */
static CUresult load_ptx(const char *t, int module, size_t *bytes) {
  *bytes = strlen(t);
  if (!strstr(t, ".version") || !strstr(t, ".target")) return 218;
  for (const char *p = strstr(t, ".entry"); p; p = strstr(p + 6, ".entry")) {
    const char *q = p + 6;
    while (*q == ' ' || *q == '\t') q++;
    size_t n = strcspn(q, " \t\r\n(");
    if (n) add_func(q, n, module);
  }
  PTX_MODULES++;
  return OK;
}

static CUresult load_image(void **mod, const void *image) {
  NEED_CTX();
  if (!mod || !image) return E_INVALID_VALUE;
  const unsigned char *d = image;
  int module = NMODULES + 1;
  size_t bytes = 0;
  CUresult r;
  if (d[0] == 0x7f && d[1] == 'E' && d[2] == 'L' && d[3] == 'F')
    r = load_elf(d, module, &bytes);
  else if (d[0] == '/' || d[0] == '.' || d[0] == '\n' || d[0] == ' ' || d[0] == '\t')
    r = load_ptx(image, module, &bytes);
  else
    r = E_INVALID_IMAGE;
  if (r) return r;
  if (NMODULES < 64) {
    MODULE_BYTES[NMODULES] = bytes;
    MODULE_IMAGE[NMODULES] = malloc(bytes ? bytes : 1);
    if (MODULE_IMAGE[NMODULES]) memcpy(MODULE_IMAGE[NMODULES], image, bytes);
  }
  NMODULES++;
  *mod = (void *)(uintptr_t)module;
  return OK;
}
static CUresult cuModuleLoadData(void **mod, const void *image) {
  ENTER("cuModuleLoadData");
  return load_image(mod, image);
}
static CUresult cuModuleLoadDataEx(void **mod, const void *image, unsigned n, int *opts,
                                   void **vals) {
  ENTER("cuModuleLoadDataEx");
  CUresult r = load_image(mod, image);
  /* the JIT's log, as the driver gives it */
  if (r == 218) {
    for (unsigned i = 0; i < n; i++)
      if (opts[i] == 5) {
        size_t cap = 0;
        for (unsigned j = 0; j < n; j++)
          if (opts[j] == 6) cap = (size_t)(uintptr_t)vals[j];
        if (cap)
          snprintf((char *)vals[i], cap, "ptxas fatal   : PTX has no .version/.target (mock JIT)");
      }
  }
  return r;
}
static CUresult cuModuleUnload(void *mod) {
  ENTER("cuModuleUnload");
  NEED_INIT();
  int m = (int)(uintptr_t)mod;
  if (m < 1 || m > NMODULES) return E_INVALID_HANDLE;
  for (int i = 0; i < NFUNCS; i++)
    if (FUNCS[i].module == m) FUNCS[i].module = -1;
  return OK;
}
static CUresult cuModuleGetFunction(void **fn, void *mod, const char *name) {
  ENTER("cuModuleGetFunction");
  NEED_CTX();
  if (!fn || !name) return E_INVALID_VALUE;
  int m = (int)(uintptr_t)mod;
  if (m < 1 || m > NMODULES) return E_INVALID_HANDLE;
  for (int i = 0; i < NFUNCS; i++)
    if (FUNCS[i].module == m && strcmp(FUNCS[i].name, name) == 0) {
      *fn = &FUNCS[i];
      return OK;
    }
  return E_NOT_FOUND;
}
static mfunc *as_func(void *f) {
  mfunc *p = f;
  return p >= FUNCS && p < FUNCS + NFUNCS && p->module > 0 ? p : NULL;
}
static CUresult cuFuncGetAttribute(int *v, int attr, void *fn) {
  ENTER("cuFuncGetAttribute");
  NEED_CTX();
  mfunc *f = as_func(fn);
  if (!f) return E_INVALID_HANDLE;
  if (!v) return E_INVALID_VALUE;
  switch (attr) {
  case 8: *v = f->max_dyn_smem; return OK;
  /* REQUIRED_CLUSTER_WIDTH .. */
  case 11:
  case 12:
  case 13: *v = (int)f->req_cluster[attr - 11]; return OK;
  default: return E_INVALID_VALUE;
  }
}
static CUresult cuFuncSetAttribute(void *fn, int attr, int value) {
  ENTER("cuFuncSetAttribute");
  NEED_CTX();
  mfunc *f = as_func(fn);
  if (!f) return E_INVALID_HANDLE;
  if (attr == 8) {
    /* sm_90: 227 KB a block, static included */
    if (value < 0 || value > 232448 - f->static_smem) return E_INVALID_VALUE;
    f->max_dyn_smem = value;
    return OK;
  }
  return E_INVALID_VALUE;
}

/* ---- launches
** --------------------------------------------------------------------------------- */
typedef struct {
  unsigned x, y, z;
} dim3;
typedef union {
  char pad[64];
  dim3 cluster;
} attrval;
typedef struct {
  int id;
  char pad[4];
  attrval value;
} attr_t;
typedef struct {
  unsigned gx, gy, gz, bx, by, bz, smem;
  void *stream;
  attr_t *attrs;
  unsigned nattrs;
} config_t;

static CUresult cuLaunchKernelEx(const config_t *c, void *fn, void **params, void **extra) {
  ENTER("cuLaunchKernelEx");
  NEED_CTX();
  if (!c) return E_INVALID_VALUE;
  mfunc *f = as_func(fn);
  if (!f) return E_INVALID_HANDLE;
  if (!c->gx || !c->gy || !c->gz || !c->bx || !c->by || !c->bz) return E_INVALID_VALUE;
  if ((uint64_t)c->bx * c->by * c->bz > 1024 || c->bz > 64 || c->gy > 65535 || c->gz > 65535)
    return E_INVALID_VALUE;
  /* static + dynamic above 48 KB needs cuFuncSetAttribute */
  if ((int)c->smem > f->max_dyn_smem) return E_INVALID_VALUE;
  if (c->nattrs && !c->attrs) return E_INVALID_VALUE;
  /* a kernel compiled for a cluster (.reqnctapercluster) runs in those clusters; a launch attribute
  ** naming others is refused (the size is fixed at compile time) */
  unsigned cl[3] = { 1, 1, 1 };
  int attr_seen = 0;
  if (f->req_cluster[0]) memcpy(cl, f->req_cluster, sizeof cl);
  for (unsigned i = 0; i < c->nattrs; i++) {
    if (c->attrs[i].id == 4) {
      dim3 d = c->attrs[i].value.cluster;
      if (f->req_cluster[0] && (d.x != cl[0] || d.y != cl[1] || d.z != cl[2]))
        return E_INVALID_CLUSTER_SIZE;
      cl[0] = d.x;
      cl[1] = d.y;
      cl[2] = d.z;
      attr_seen = 1;
    }
  }
  if (!cl[0] || !cl[1] || !cl[2] || cl[0] * cl[1] * cl[2] > 8 || c->gx % cl[0] || c->gy % cl[1] ||
      c->gz % cl[2])
    return E_INVALID_CLUSTER_SIZE;
  if (extra) return E_INVALID_VALUE; /* the runtime passes kernelParams only */
  if (f->nparams && !params) return E_INVALID_VALUE;
  struct ptxmock_launch *L = &S.last;
  memset(L, 0, sizeof *L);
  snprintf(L->func, sizeof L->func, "%s", f->name);
  L->grid[0] = c->gx;
  L->grid[1] = c->gy;
  L->grid[2] = c->gz;
  L->block[0] = c->bx;
  L->block[1] = c->by;
  L->block[2] = c->bz;
  memcpy(L->cluster, cl, sizeof cl);
  L->cluster_attr = attr_seen;
  L->smem = c->smem;
  L->stream = c->stream;
  L->param_size = f->param_bytes;
  /* what the driver copies into the param block */
  for (int i = 0; i < f->nparams; i++) {
    if (!params[i]) return E_INVALID_VALUE;
    if (f->off[i] + f->size[i] <= sizeof L->params)
      memcpy(L->params + f->off[i], params[i], f->size[i]);
  }
  S.launches++;
  const char *hang = getenv("PTXMOCK_HANG");
  if (hang && strcmp(hang, f->name) == 0) HUNG = 1;
  now_ms();
  return OK;
}

/* ---- memory
** ----------------------------------------------------------------------------------- */
static CUresult cuMemAlloc(uint64_t *p, size_t bytes) {
  ENTER("cuMemAlloc");
  NEED_CTX();
  if (!p || !bytes) return E_INVALID_VALUE;
  if (NBUFS >= 4096 || bytes > ((size_t)1 << 34)) return E_OUT_OF_MEMORY;
  void *m = NULL;
  if (posix_memalign(&m, 256, bytes)) return E_OUT_OF_MEMORY;
  memset(m, 0xCD, bytes); /* never zeros: fresh memory is garbage */
  BUFS[NBUFS].base = (uintptr_t)m;
  BUFS[NBUFS].bytes = bytes;
  NBUFS++;
  ALLOCATED += bytes;
  *p = (uintptr_t)m;
  return OK;
}
static CUresult cuMemFree(uint64_t p) {
  ENTER("cuMemFree");
  NEED_CTX();
  for (int i = 0; i < NBUFS; i++)
    if (BUFS[i].base == p) {
      free((void *)BUFS[i].base);
      ALLOCATED -= BUFS[i].bytes;
      BUFS[i] = BUFS[--NBUFS];
      return OK;
    }
  return E_INVALID_VALUE;
}
static CUresult cuMemcpyHtoD(uint64_t dst, const void *src, size_t n) {
  ENTER("cuMemcpyHtoD");
  NEED_CTX();
  if (!n) return OK;
  if (!src || !find_buf(dst, n)) return E_INVALID_VALUE;
  memcpy((void *)(uintptr_t)dst, src, n);
  return OK;
}
static CUresult cuMemcpyDtoH(void *dst, uint64_t src, size_t n) {
  ENTER("cuMemcpyDtoH");
  NEED_CTX();
  if (!n) return OK;
  if (!dst || !find_buf(src, n)) return E_INVALID_VALUE;
  memcpy(dst, (void *)(uintptr_t)src, n);
  return OK;
}
static CUresult cuMemcpyDtoD(uint64_t dst, uint64_t src, size_t n) {
  ENTER("cuMemcpyDtoD");
  NEED_CTX();
  if (!n) return OK;
  if (!find_buf(dst, n) || !find_buf(src, n)) return E_INVALID_VALUE;
  memmove((void *)(uintptr_t)dst, (void *)(uintptr_t)src, n);
  now_ms();
  return OK;
}
static CUresult cuMemsetD8(uint64_t dst, unsigned char v, size_t n) {
  ENTER("cuMemsetD8");
  NEED_CTX();
  if (!n) return OK;
  if (!find_buf(dst, n)) return E_INVALID_VALUE;
  memset((void *)(uintptr_t)dst, v, n);
  return OK;
}

/* CU_POINTER_ATTRIBUTE_DEVICE_ORDINAL (9) of memory cuMemAlloc gave: device 0; any other address
** is not device memory (CUDA_ERROR_INVALID_VALUE, as the driver answers for an unregistered host
** pointer) */
static CUresult cuPointerGetAttribute(void *data, int attr, uint64_t p) {
  ENTER("cuPointerGetAttribute");
  NEED_INIT();
  if (!data) return E_INVALID_VALUE;
  if (attr != 9) return E_INVALID_VALUE;
  if (!find_buf((uintptr_t)p, 1)) return E_INVALID_VALUE;
  *(int *)data = 0;
  return OK;
}

/* ---- streams and events
** ----------------------------------------------------------------------- */
static int STREAMS;
static CUresult cuStreamCreate(void **s, unsigned flags) {
  ENTER("cuStreamCreate");
  NEED_CTX();
  if (!s || flags > 1) return E_INVALID_VALUE;
  int *h = malloc(sizeof *h);
  if (!h) return E_OUT_OF_MEMORY;
  *h = 0x5157;
  STREAMS++;
  *s = h;
  return OK;
}
static CUresult cuStreamSynchronize(void *s) {
  ENTER("cuStreamSynchronize");
  NEED_CTX();
  if (s && *(int *)s != 0x5157) return E_INVALID_HANDLE;
  hang_if_hung();
  now_ms();
  return OK;
}
static CUresult cuStreamDestroy(void *s) {
  ENTER("cuStreamDestroy");
  NEED_CTX();
  if (!s || *(int *)s != 0x5157) return E_INVALID_HANDLE;
  *(int *)s = 0;
  free(s);
  STREAMS--;
  return OK;
}
static CUresult cuEventCreate(void **e, unsigned flags) {
  ENTER("cuEventCreate");
  NEED_CTX();
  if (!e) return E_INVALID_VALUE;
  mevent *ev = calloc(1, sizeof *ev);
  if (!ev) return E_OUT_OF_MEMORY;
  *e = ev;
  return OK;
}
static CUresult cuEventRecord(void *e, void *s) {
  ENTER("cuEventRecord");
  NEED_CTX();
  if (!e) return E_INVALID_HANDLE;
  if (s && *(int *)s != 0x5157) return E_INVALID_HANDLE;
  mevent *ev = e;
  ev->recorded = 1;
  ev->ms = now_ms();
  return OK;
}
static CUresult cuEventSynchronize(void *e) {
  ENTER("cuEventSynchronize");
  NEED_CTX();
  hang_if_hung();
  return e ? OK : E_INVALID_HANDLE;
}
static CUresult cuEventElapsedTime(float *ms, void *a, void *b) {
  ENTER("cuEventElapsedTime");
  NEED_CTX();
  if (!ms) return E_INVALID_VALUE;
  if (!a || !b) return E_INVALID_HANDLE;
  mevent *x = a, *y = b;
  if (!x->recorded || !y->recorded) return E_INVALID_HANDLE;
  *ms = (float)(y->ms - x->ms);
  return OK;
}
static CUresult cuEventDestroy(void *e) {
  ENTER("cuEventDestroy");
  NEED_CTX();
  if (!e) return E_INVALID_HANDLE;
  free(e);
  return OK;
}

/* ---- tensor maps: the driver documentation's requirements, then 128 deterministic bytes
** -------- */
/* bits of an element: the 13 byte types, then the packed 16U4_ALIGN8B, 16U4_ALIGN16B,
** 16U6_ALIGN16B of CUDA 12.8 (4, 4 and 6 bits; the dims count the values) */
static const int TM_BITS[] = { 8, 16, 32, 32, 64, 64, 16, 32, 64, 16, 32, 32, 32, 4, 4, 6 };
/* the rules of the packed types (cuda.h, cuTensorMapEncodeTiled): ALIGN16B: a 32-byte aligned
** address, dims[0] a multiple of 128, strides of 32, box[0] 128, swizzle none or 128B (16U4: loads
** only); 16U4_ALIGN8B: dims[0] even; 16U6 no interleave; no NaN fill */
static int tm_packed_ok(int dtype, uintptr_t addr, const uint64_t *dims, const uint64_t *strides,
                        unsigned rank, const uint32_t *box, int interleave, int swizzle, int oob) {
  if (dtype < 13) return 1;
  if (oob) return 0;
  if (dtype == 13) return dims[0] % 2 == 0;
  if ((addr & 31) || dims[0] % 128 || (box && box[0] != 128)) return 0;
  for (unsigned i = 0; i + 1 < rank; i++)
    if (strides[i] % 32) return 0;
  if (swizzle != 0 && swizzle != 3) return 0;
  return dtype != 15 || interleave == 0;
}
static struct ptxmock_tiled LAST_TILED; /* ptxmock_last_tiled: the last valid call's arguments */
API const struct ptxmock_tiled *ptxmock_last_tiled(void) {
  return &LAST_TILED;
}
static CUresult cuTensorMapEncodeTiled(void *map, int dtype, unsigned rank, void *addr,
                                       const uint64_t *dims, const uint64_t *strides,
                                       const uint32_t *box, const uint32_t *estr, int interleave,
                                       int swizzle, int l2, int oob) {
  ENTER("cuTensorMapEncodeTiled");
  NEED_INIT();
  if (!map || ((uintptr_t)map & 63)) return E_INVALID_VALUE; /* 64-byte aligned */
  if (dtype < 0 || dtype > 15) return E_INVALID_VALUE;
  if (interleave < 0 || interleave > 2 || swizzle < 0 || swizzle > 3 || l2 < 0 || l2 > 3 ||
      oob < 0 || oob > 1)
    return E_INVALID_VALUE;
  if (rank < (interleave ? 3u : 1u) || rank > 5) return E_INVALID_VALUE;
  if (dims && strides &&
      !tm_packed_ok(dtype, (uintptr_t)addr, dims, strides, rank, box, interleave, swizzle, oob))
    return E_INVALID_VALUE;
  /* 16 (32) byte aligned */
  if (((uintptr_t)addr & (interleave == 2 ? 31 : 15))) return E_INVALID_VALUE;
  if (!dims || !box || !estr || (rank > 1 && !strides)) return E_INVALID_VALUE;
  int eb = TM_BITS[dtype];
  for (unsigned i = 0; i < rank; i++) {
    if (dims[i] == 0 || dims[i] > ((uint64_t)1 << 32)) return E_INVALID_VALUE;
    if (box[i] == 0 || box[i] > 256) return E_INVALID_VALUE;
    if (estr[i] == 0 || estr[i] > 8) return E_INVALID_VALUE;
  }
  uint64_t extent = (dims[0] * (uint64_t)eb + 7) / 8;
  for (unsigned i = 0; i + 1 < rank; i++) {
    if (strides[i] % (interleave == 2 ? 32 : 16) || strides[i] >= ((uint64_t)1 << 40))
      return E_INVALID_VALUE;
    if (strides[i] < extent) return E_INVALID_VALUE; /* dims overlap */
    extent = strides[i] * dims[i + 1];
  }
  if (!interleave) {
    /* inner box: 16-byte multiple */
    if ((box[0] * (uint64_t)eb) % 128) return E_INVALID_VALUE;
    static const unsigned span[] = { 0, 32, 64, 128 };
    if (swizzle && box[0] * (uint64_t)eb / 8 > span[swizzle]) return E_INVALID_VALUE;
  }
  /* NaN fill: float types */
  if (oob == 1 && (dtype < 6 || dtype == 8 || dtype > 12)) return E_INVALID_VALUE;
  struct ptxmock_tiled *r = &LAST_TILED;
  memset(r, 0, sizeof *r);
  r->dtype = dtype;
  r->rank = rank;
  r->addr = (uintptr_t)addr;
  r->interleave = interleave;
  r->swizzle = swizzle;
  r->l2 = l2;
  r->oob = oob;
  for (unsigned i = 0; i < rank; i++) {
    r->dims[i] = dims[i];
    r->box[i] = box[i];
    r->estr[i] = estr[i];
    if (i + 1 < rank) r->strides[i] = strides[i];
  }
  /* deterministic contents: FNV-1a of every argument, spread over the 128 bytes */
  uint64_t h = 1469598103934665603ull;
#define MIX(v)                       \
  do {                               \
    uint64_t v_ = (uint64_t)(v);     \
    for (int b_ = 0; b_ < 8; b_++) { \
      h ^= (v_ >> (8 * b_)) & 0xff;  \
      h *= 1099511628211ull;         \
    }                                \
  } while (0)
  MIX(dtype);
  MIX(rank);
  MIX((uintptr_t)addr);
  MIX(interleave);
  MIX(swizzle);
  MIX(l2);
  MIX(oob);
  for (unsigned i = 0; i < rank; i++) {
    MIX(dims[i]);
    MIX(box[i]);
    MIX(estr[i]);
    if (i + 1 < rank) MIX(strides[i]);
  }
  unsigned char *out = map;
  for (int i = 0; i < 128; i += 8) {
    MIX(i);
    memcpy(out + i, &h, 8);
  }
#undef MIX
  return OK;
}

/* the im2col encode: the same rules for the type, address, dims and strides, then the pixel box
** corners (rank 3: one in [-32768, 32767]; rank 4: two in [-128, 127]; rank 5: three in [-16, 15];
** a non-empty box), channelsPerPixel <= 256, pixelsPerColumn <= 1024, the swizzle span over a
** pixel's channels. The last call's arguments are kept for ptxmock_last_im2col. */
static struct ptxmock_im2col LAST_IM2COL;
API const struct ptxmock_im2col *ptxmock_last_im2col(void) {
  return &LAST_IM2COL;
}
static CUresult cuTensorMapEncodeIm2col(void *map, int dtype, unsigned rank, void *addr,
                                        const uint64_t *dims, const uint64_t *strides,
                                        const int *lower, const int *upper, unsigned cpp,
                                        unsigned ppc, const uint32_t *estr, int interleave,
                                        int swizzle, int l2, int oob) {
  ENTER("cuTensorMapEncodeIm2col");
  NEED_INIT();
  if (!map || ((uintptr_t)map & 63)) return E_INVALID_VALUE;
  if (dtype < 0 || dtype > 15) return E_INVALID_VALUE;
  if (interleave < 0 || interleave > 2 || swizzle < 0 || swizzle > 3 || l2 < 0 || l2 > 3 ||
      oob < 0 || oob > 1)
    return E_INVALID_VALUE;
  if (rank < 3 || rank > 5) return E_INVALID_VALUE;
  if (dims && strides &&
      !tm_packed_ok(dtype, (uintptr_t)addr, dims, strides, rank, NULL, interleave, swizzle, oob))
    return E_INVALID_VALUE;
  if (((uintptr_t)addr & (interleave == 2 ? 31 : 15))) return E_INVALID_VALUE;
  if (!dims || !strides || !lower || !upper || !estr) return E_INVALID_VALUE;
  int eb = TM_BITS[dtype];
  for (unsigned i = 0; i < rank; i++) {
    if (dims[i] == 0 || dims[i] > ((uint64_t)1 << 32)) return E_INVALID_VALUE;
    if (estr[i] == 0 || estr[i] > 8) return E_INVALID_VALUE;
  }
  uint64_t extent = (dims[0] * (uint64_t)eb + 7) / 8;
  for (unsigned i = 0; i + 1 < rank; i++) {
    if (strides[i] % (interleave == 2 ? 32 : 16) || strides[i] >= ((uint64_t)1 << 40))
      return E_INVALID_VALUE;
    if (strides[i] < extent) return E_INVALID_VALUE;
    extent = strides[i] * dims[i + 1];
  }
  int lim = rank == 3 ? 32768 : rank == 4 ? 128 : 16;
  for (unsigned i = 0; i + 2 < rank; i++) {
    if (lower[i] < -lim || lower[i] >= lim || upper[i] < -lim || upper[i] >= lim)
      return E_INVALID_VALUE;
    /* an empty pixel box */
    if ((int64_t)dims[i + 1] + upper[i] - lower[i] < 1) return E_INVALID_VALUE;
  }
  if (cpp == 0 || cpp > 256 || ppc == 0 || ppc > 1024) return E_INVALID_VALUE;
  /* 32B interleave: 32B swizzle */
  if (interleave == 2 && swizzle != 1) return E_INVALID_VALUE;
  if (!interleave) {
    static const unsigned span[] = { 0, 32, 64, 128 };
    if (swizzle && cpp * (uint64_t)eb / 8 > span[swizzle]) return E_INVALID_VALUE;
  }
  if (oob == 1 && (dtype < 6 || dtype == 8 || dtype > 12)) return E_INVALID_VALUE;
  struct ptxmock_im2col *r = &LAST_IM2COL;
  memset(r, 0, sizeof *r);
  r->dtype = dtype;
  r->rank = rank;
  r->addr = (uintptr_t)addr;
  r->channels = cpp;
  r->pixels = ppc;
  r->interleave = interleave;
  r->swizzle = swizzle;
  r->l2 = l2;
  r->oob = oob;
  for (unsigned i = 0; i < rank; i++) {
    r->dims[i] = dims[i];
    r->estr[i] = estr[i];
    if (i + 1 < rank) r->strides[i] = strides[i];
  }
  for (unsigned i = 0; i + 2 < rank; i++) {
    r->lower[i] = lower[i];
    r->upper[i] = upper[i];
  }
  uint64_t h = 1469598103934665603ull;
#define MIX(v)                       \
  do {                               \
    uint64_t v_ = (uint64_t)(v);     \
    for (int b_ = 0; b_ < 8; b_++) { \
      h ^= (v_ >> (8 * b_)) & 0xff;  \
      h *= 1099511628211ull;         \
    }                                \
  } while (0)
  MIX(0x12c0);
  MIX(dtype);
  MIX(rank);
  MIX((uintptr_t)addr);
  MIX(cpp);
  MIX(ppc);
  MIX(interleave);
  MIX(swizzle);
  MIX(l2);
  MIX(oob);
  for (unsigned i = 0; i < rank; i++) {
    MIX(dims[i]);
    MIX(estr[i]);
    if (i + 1 < rank) MIX(strides[i]);
    if (i + 2 < rank) {
      MIX(lower[i]);
      MIX(upper[i]);
    }
  }
  unsigned char *out = map;
  for (int i = 0; i < 128; i += 8) {
    MIX(i);
    memcpy(out + i, &h, 8);
  }
#undef MIX
  return OK;
}

/* ---- cuGetProcAddress
** ------------------------------------------------------------------------- */
#define ENTRY(n) \
  { #n, (void *)n }
static const struct {
  const char *name;
  void *fn;
} TABLE[] = {
  ENTRY(cuInit),
  ENTRY(cuDriverGetVersion),
  ENTRY(cuGetErrorName),
  ENTRY(cuGetErrorString),
  ENTRY(cuDeviceGetCount),
  ENTRY(cuDeviceGet),
  ENTRY(cuDeviceGetAttribute),
  ENTRY(cuDeviceGetName),
  ENTRY(cuDevicePrimaryCtxRetain),
  ENTRY(cuDevicePrimaryCtxRelease),
  ENTRY(cuCtxSetCurrent),
  ENTRY(cuCtxGetCurrent),
  ENTRY(cuCtxSynchronize),
  ENTRY(cuPointerGetAttribute),
  ENTRY(cuModuleLoadData),
  ENTRY(cuModuleLoadDataEx),
  ENTRY(cuModuleUnload),
  ENTRY(cuModuleGetFunction),
  ENTRY(cuFuncSetAttribute),
  ENTRY(cuFuncGetAttribute),
  ENTRY(cuLaunchKernelEx),
  ENTRY(cuMemAlloc),
  ENTRY(cuMemFree),
  ENTRY(cuMemcpyHtoD),
  ENTRY(cuMemcpyDtoH),
  ENTRY(cuMemcpyDtoD),
  ENTRY(cuMemsetD8),
  ENTRY(cuStreamCreate),
  ENTRY(cuStreamSynchronize),
  ENTRY(cuStreamDestroy),
  ENTRY(cuEventCreate),
  ENTRY(cuEventRecord),
  ENTRY(cuEventSynchronize),
  ENTRY(cuEventElapsedTime),
  ENTRY(cuEventDestroy),
  ENTRY(cuTensorMapEncodeTiled),
  ENTRY(cuTensorMapEncodeIm2col),
};

API CUresult cuGetProcAddress_v2(const char *symbol, void **pfn, int version, uint64_t flags,
                                 int *status) {
  static pthread_once_t once = PTHREAD_ONCE_INIT;
  pthread_once(&once, env_fail);
  if (!symbol || !pfn) return E_INVALID_VALUE;
  pthread_mutex_lock(&LOCK);
  int c = injected("cuGetProcAddress");
  pthread_mutex_unlock(&LOCK);
  if (c) return c;
  if (version < 12000) {
    if (status) *status = 2;
    return E_NOT_FOUND;
  } /* the mock speaks the CUDA 12 ABI */
  for (size_t i = 0; i < sizeof TABLE / sizeof TABLE[0]; i++)
    if (strcmp(TABLE[i].name, symbol) == 0) {
      *pfn = TABLE[i].fn;
      if (status) *status = 0;
      return OK;
    }
  *pfn = NULL;
  /* CU_GET_PROC_ADDRESS_SYMBOL_NOT_FOUND */
  if (status) *status = 1;
  return E_NOT_FOUND;
}
API CUresult cuGetProcAddress(const char *symbol, void **pfn, int version, uint64_t flags,
                              int *status) {
  return cuGetProcAddress_v2(symbol, pfn, version, flags, status);
}
