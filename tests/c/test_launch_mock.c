/* test_launch_mock.c -- every CUDA path of the runtime and the C launch API against the mock driver
** (tests/mock_cuda, $PTXLUA_MOCK_LIBCUDA): device and context, module load of the cubin ptxas made,
** the parameter block the driver would receive compared byte for byte with the .param layout the
** cubin declares, dynamic shared memory above 48 KB, cluster dims, 128-byte tensor maps by value,
** wrong arguments rejected before the driver sees a launch, memory round trips, events, and driver
** errors turned into messages. The mock runs no kernel: this proves our side of the ABI only. */
#include <dlfcn.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include "ptxlua.h"
#include "test_engine.h"
#include "../mock_cuda/ptxmock.h"
#include "driver.h"
#include "check.h"

static int (*launch_count)(void);
static const struct ptxmock_launch *(*last_launch)(void);
static void (*mock_fail)(const char *, int);
static int (*param_layout)(const char *, uint32_t *, uint32_t *, int);
static int (*max_dyn_smem)(const char *);
static int (*module_count)(void);
static int (*context_refs)(void);
static int (*buffers)(void);

static const char *SCRIPT =
    "local ptx = require 'ptxlua'\n"
    "ptx.kernel { name = 'abi', target = 'sm_90a', templates = { SMEM = 100000 },\n"
    "  params = { {'out', 'f32*'}, {'n', 'u32'}, {'map', 'tensormap'}, {'h', 'u16'}, {'d', "
    "'f64'},\n"
    "             {'blob', 'b8', size = 12, align = 4}, {'last', 'u8'} },\n"
    "  grid = { 4 }, block = { 64 }, cluster = { 2, 1, 1 },\n"
    "  smem = function(t) return t.SMEM end,\n"
    "  body = function(t, out, n, map, h, d, blob, last)\n"
    "    local p = ptx.global_ptrs(out)\n"
    "    local v = ptx.reg.u32()\n"
    "    ptx.ld.param.u32(v, ptx.addr(n))\n"
    "    local f = ptx.reg.f32()\n"
    "    ptx.cvt.rn.f32.u32(f, v)\n"
    "    ptx.st.global.f32(ptx.addr(p), f)\n"
    "    ptx.ret()\n"
    "  end }\n";

#define SYM(var, name)                           \
  do {                                           \
    *(void **)&var = dlsym(h, name);             \
    if (!var) {                                  \
      fprintf(stderr, "mock has no %s\n", name); \
      return 1;                                  \
    }                                            \
  } while (0)

int main(void) {
  const char *mock = getenv("PTXLUA_MOCK_LIBCUDA");
  if (!mock || !*mock) {
    fprintf(stderr, "PTXLUA_MOCK_LIBCUDA is not set (run through ctest)\n");
    return 1;
  }
  setenv("PTXLUA_LIBCUDA", mock, 1);
  void *h = dlopen(mock, RTLD_NOW | RTLD_LOCAL); /* the same library the runtime will load */
  if (!h) {
    fprintf(stderr, "%s\n", dlerror());
    return 1;
  }
  SYM(launch_count, "ptxmock_launch_count");
  SYM(last_launch, "ptxmock_last_launch");
  SYM(mock_fail, "ptxmock_fail");
  SYM(param_layout, "ptxmock_param_layout");
  SYM(max_dyn_smem, "ptxmock_max_dynamic_smem");
  SYM(module_count, "ptxmock_module_count");
  SYM(context_refs, "ptxmock_context_refs");
  SYM(buffers, "ptxmock_buffers");

  ptxlua_engine *e = test_engine();
  if (!e) return 1;
  CHECKMSG(ptxlua_load_string(e, "abi.lua", SCRIPT, strlen(SCRIPT)) == PTXLUA_OK, e);

  /* a driver error while opening: mapped to its name and text */
  ptxlua_device *d = NULL;
  mock_fail("cuDevicePrimaryCtxRetain", 201);
  CHECK(ptxlua_device_open(e, "cuda:0", &d) == PTXLUA_ERROR && !d);
  CHECK(strstr(ptxlua_errmsg(e),
               "cuDevicePrimaryCtxRetain: CUDA_ERROR_INVALID_CONTEXT (invalid device context)") !=
        NULL);
  CHECK(ptxlua_device_open(e, "cuda:1", &d) == PTXLUA_ERROR);
  CHECK(strstr(ptxlua_errmsg(e), "no CUDA device 1 (the driver sees 1)") != NULL);
  CHECKMSG(ptxlua_device_open(e, "cuda", &d) == PTXLUA_OK, e);
  if (!d) {
    ptxlua_close(e);
    return 1;
  }
  CHECK(strcmp(ptxlua_device_describe(d), "cuda:0 (ptxlua mock device (sm_90), sm_90)") == 0);
  CHECK(context_refs() == 1);

  /* module load: the cubin ptxas made. Its parameter records (EIATTR_KPARAM_INFO) give the sizes we
  ** pack; their offsets are the driver's business (absolute alignment in constant bank 0, which
  ** starts at 0x210 on sm_90), ours are the .param layout the emulator uses */
  ptxlua_kernel *k = NULL;
  int mods = module_count();
  mock_fail("cuModuleLoadData", 200);
  CHECK(ptxlua_kernel_prepare(d, "abi", &k) == PTXLUA_ERROR && !k);
  CHECK(strstr(ptxlua_errmsg(e), "loading abi: cuModuleLoadData: CUDA_ERROR_INVALID_IMAGE (device "
                                 "kernel image is invalid)") != NULL);
  CHECKMSG(ptxlua_kernel_prepare(d, "abi", &k) == PTXLUA_OK, e);
  if (!k) {
    ptxlua_close(e);
    return 1;
  }
  CHECK(module_count() == mods + 1);
  uint32_t off[16], size[16];
  int np = param_layout("abi", off, size, 16);
  CHECK(np == 7 && ptxlua_kernel_param_count(k) == 7);
  for (int i = 0; i < np && i < 7; i++) {
    ptxlua_param p;
    ptxlua_kernel_param(k, i, &p);
    if (p.size != size[i] || (0x210 + off[i]) % (p.align < 16 ? p.align : 16) != 0) {
      fprintf(stderr, "parameter %d (%s): ours size %u align %u, the cubin's at %u size %u\n", i,
              p.name, p.size, p.align, off[i], size[i]);
      failures++;
    }
  }
  ptxlua_param pm;
  ptxlua_kernel_param(k, 2, &pm);
  CHECK(pm.kind == PTXLUA_PARAM_TENSORMAP && pm.offset == 64 && pm.size == 128 && pm.align == 64);

  /* memory round trip */
  ptxlua_buffer *buf = NULL;
  CHECKMSG(ptxlua_buffer_alloc(d, 1 << 16, &buf) == PTXLUA_OK, e);
  CHECK(buffers() == 1);
  static unsigned char in[1 << 16], out[1 << 16];
  for (size_t i = 0; i < sizeof in; i++) in[i] = (unsigned char)(i * 7 + 3);
  CHECKMSG(ptxlua_buffer_upload(buf, 0, in, sizeof in) == PTXLUA_OK, e);
  CHECKMSG(ptxlua_buffer_download(buf, 100, out, 1000) == PTXLUA_OK, e);
  CHECK(memcmp(out, in + 100, 1000) == 0);
  mock_fail("cuMemcpyDtoH", 700);
  CHECK(ptxlua_buffer_download(buf, 0, out, 16) == PTXLUA_ERROR);
  CHECK(
      strstr(
          ptxlua_errmsg(e),
          "cuMemcpyDtoH: CUDA_ERROR_ILLEGAL_ADDRESS (an illegal memory access was encountered)") !=
      NULL);

  /* a tensor map: validated by the driver's rules, 128 bytes passed by value */
  ptxlua_tensormap tm, tm2;
  uint64_t dims[2] = { 64, 256 };
  uint32_t box[2] = { 64, 32 };
  CHECKMSG(ptxlua_tensormap_encode(buf, "bf16", 2, dims, NULL, box, "128B", &tm) == PTXLUA_OK, e);
  CHECKMSG(ptxlua_tensormap_encode(buf, "bf16", 2, dims, NULL, box, "128B", &tm2) == PTXLUA_OK, e);
  CHECK(memcmp(tm.bytes, tm2.bytes, 128) == 0); /* deterministic */
  uint32_t badbox[2] = { 4, 32 };               /* 8 bytes inner: not a multiple of 16 */
  CHECK(ptxlua_tensormap_encode(buf, "bf16", 2, dims, NULL, badbox, "128B", &tm2) == PTXLUA_ERROR);
  CHECK(strstr(ptxlua_errmsg(e), "cuTensorMapEncodeTiled: CUDA_ERROR_INVALID_VALUE") != NULL);
  /* 256 bytes inner: wider than the 128B swizzle */
  uint32_t widebox[2] = { 128, 32 };
  CHECK(ptxlua_tensormap_encode(buf, "bf16", 2, dims, NULL, widebox, "128B", &tm2) == PTXLUA_ERROR);
  uint64_t big[2] = { 64, 1 << 20 };
  CHECK(ptxlua_tensormap_encode(buf, "bf16", 2, big, NULL, box, "128B", &tm2) == PTXLUA_MISUSE);
  CHECK(strstr(ptxlua_errmsg(e), "the buffer has 65536") != NULL);
  CHECK(ptxlua_tensormap_encode(buf, "bf16", 2, dims, NULL, box, "96B", &tm2) == PTXLUA_MISUSE);

  /* a launch: the parameter block as the driver copies it */
  unsigned char blob[12] = { 1, 2, 3, 4, 5, 6, 7, 8, 9, 10, 11, 12 };
  ptxlua_arg args[7] = { ptxlua_arg_buffer(buf),
                         ptxlua_arg_u32(0xA1B2C3D4u),
                         ptxlua_arg_tensormap(&tm),
                         ptxlua_arg_scalar(PTXLUA_ARG_U16, 0xBEEF),
                         ptxlua_arg_f64(-2.75),
                         ptxlua_arg_bytes(blob, 12),
                         ptxlua_arg_scalar(PTXLUA_ARG_U8, 0x7E) };
  int before = launch_count();
  CHECKMSG(ptxlua_launch(k, NULL, NULL, PTXLUA_SMEM_KERNEL, NULL, args, 7) == PTXLUA_OK, e);
  CHECK(launch_count() == before + 1);
  const struct ptxmock_launch *L = last_launch();
  CHECK(strcmp(L->func, "abi") == 0);
  CHECK(L->grid[0] == 4 && L->grid[1] == 1 && L->block[0] == 64 && L->block[2] == 1);
  CHECK(L->cluster[0] == 2 && L->cluster[1] == 1 && L->cluster[2] == 1);
  /* compiled for its cluster (.reqnctapercluster): no launch attribute */
  CHECK(L->cluster_attr == 0);
  CHECK(L->smem == 100000 && max_dyn_smem("abi") == 100000); /* cuFuncSetAttribute first */
  unsigned char expect[4096];
  memset(expect, 0, sizeof expect);
  uint64_t a = ptxlua_buffer_address(buf);
  uint32_t n = 0xA1B2C3D4u;
  uint16_t hv = 0xBEEF;
  double dv = -2.75;
  unsigned char last = 0x7E;
  memcpy(expect + off[0], &a, 8);
  memcpy(expect + off[1], &n, 4);
  memcpy(expect + off[2], tm.bytes, 128);
  memcpy(expect + off[3], &hv, 2);
  memcpy(expect + off[4], &dv, 8);
  memcpy(expect + off[5], blob, 12);
  memcpy(expect + off[6], &last, 1);
  CHECK(L->param_size == off[6] + 1);
  CHECK(memcmp(L->params, expect, L->param_size) == 0);

  /* explicit dims; a cluster that does not divide the grid is refused before the driver sees it */
  unsigned grid[3] = { 8, 2, 1 }, block[3] = { 32, 4, 1 };
  CHECKMSG(ptxlua_launch(k, grid, block, 0, NULL, args, 7) == PTXLUA_OK, e);
  L = last_launch();
  CHECK(L->grid[0] == 8 && L->grid[1] == 2 && L->block[0] == 32 && L->block[1] == 4 &&
        L->smem == 0);
  unsigned odd[3] = { 3, 1, 1 };
  int nl = launch_count();
  CHECK(ptxlua_launch(k, odd, block, 0, NULL, args, 7) == PTXLUA_MISUSE);
  CHECKMSG(
      strstr(ptxlua_errmsg(e),
             "launch of abi: the grid (3, 1, 1) is not a whole number of clusters (2, 1, 1)") !=
          NULL,
      e);
  CHECK(launch_count() == nl);
  mock_fail("cuLaunchKernelEx", 701);
  CHECK(ptxlua_launch(k, NULL, NULL, 0, NULL, args, 7) == PTXLUA_ERROR);
  CHECK(strstr(ptxlua_errmsg(e),
               "CUDA_ERROR_LAUNCH_OUT_OF_RESOURCES (too many resources requested for launch)") !=
        NULL);

  /* wrong arguments never reach the driver */
  before = launch_count();
  ptxlua_arg wrong[7];
  memcpy(wrong, args, sizeof wrong);
  wrong[2] = ptxlua_arg_bytes(blob, 12);
  CHECK(ptxlua_launch(k, NULL, NULL, 0, NULL, wrong, 7) == PTXLUA_MISUSE);
  CHECK(strstr(ptxlua_errmsg(e), "abi.lua:2: error: launch of abi: argument 3 (map): a tensormap "
                                 "parameter takes a tensor map") != NULL);
  wrong[2] = args[2];
  wrong[5] = ptxlua_arg_bytes(blob, 11);
  CHECK(ptxlua_launch(k, NULL, NULL, 0, NULL, wrong, 7) == PTXLUA_MISUSE);
  CHECK(strstr(ptxlua_errmsg(e), "argument 6 (blob): 11 bytes for a 12-byte array") != NULL);
  wrong[5] = args[5];
  wrong[3] = ptxlua_arg_u32(1);
  CHECK(ptxlua_launch(k, NULL, NULL, 0, NULL, wrong, 7) == PTXLUA_MISUSE);
  CHECK(strstr(ptxlua_errmsg(e), "argument 4 (h): a .u16 parameter (2 bytes), got u32") != NULL);
  CHECK(ptxlua_launch(k, NULL, NULL, 0, NULL, args, 6) == PTXLUA_MISUSE);
  CHECK(launch_count() == before);

  /* events: fake timings, but monotone */
  char err[512];
  void *ev[3];
  for (int i = 0; i < 3; i++) CHECK(plC_event_create(&ev[i], err, sizeof err) == 0);
  CHECK(plC_event_record(ev[0], NULL, err, sizeof err) == 0);
  CHECK(ptxlua_launch(k, NULL, NULL, 0, NULL, args, 7) == PTXLUA_OK);
  CHECK(plC_event_record(ev[1], NULL, err, sizeof err) == 0);
  float ms = -1;
  CHECK(plC_event_elapsed(&ms, ev[0], ev[1], err, sizeof err) == 0 && ms > 0);
  CHECK(plC_event_elapsed(&ms, ev[0], ev[2], err, sizeof err) == -1); /* never recorded */
  CHECK(strstr(err, "cuEventElapsedTime: CUDA_ERROR_INVALID_HANDLE") != NULL);
  for (int i = 0; i < 3; i++) plC_event_destroy(ev[i]);
  void *s = NULL;
  CHECK(plC_stream_create(&s, err, sizeof err) == 0);
  CHECK(ptxlua_launch(k, NULL, NULL, 0, s, args, 7) == PTXLUA_OK && last_launch()->stream == s);
  CHECK(plC_stream_sync(s, err, sizeof err) == 0);
  plC_stream_destroy(s);
  CHECK(ptxlua_device_sync(d) == PTXLUA_OK);

  /* the device's architecture: PTX of .target sm_80 is assembled for sm_90 (an sm_80 cubin does
  ** not load there: CUDA_ERROR_NO_BINARY_FOR_GPU), sm_100a is refused at the script's line; and
  ** 40 KB of static shared memory with 16 KB of dynamic needs cuFuncSetAttribute (48 KB in all) */
  static const char *ARCH =
      "local ptx = require 'ptxlua'\n"
      "for _, t in ipairs { 'sm_80', 'sm_100a' } do\n"
      "  ptx.kernel { name = 'old_' .. t, target = t, params = { {'out', 'f32*'} }, grid = { 1 }, "
      "block = { 32 },\n"
      "    body = function(_, o) ptx.st.global.f32(ptx.addr(ptx.global_ptrs(o)), 1.5); ptx.ret() "
      "end }\n"
      "end\n"
      "ptx.kernel { name = 'mixed', target = 'sm_90a', params = { {'out', 'f32*'} }, grid = { 1 }, "
      "block = { 32 }, smem = 16384,\n"
      "  body = function(_, o)\n"
      "    local st = ptx.shared('st', 'f32', 10240)\n"
      "    local v = ptx.reg.f32()\n"
      "    ptx.ld.shared.f32(v, ptx.addr(st, 40000))\n"
      "    ptx.st.global.f32(ptx.addr(ptx.global_ptrs(o)), v)\n"
      "    ptx.ret()\n"
      "  end }\n";
  CHECKMSG(ptxlua_load_string(e, "arch.lua", ARCH, strlen(ARCH)) == PTXLUA_OK, e);
  ptxlua_kernel *ko = NULL, *kf = NULL, *km = NULL;
  ptxlua_buffer *ob = NULL;
  CHECKMSG(ptxlua_buffer_alloc(d, 4, &ob) == PTXLUA_OK, e);
  ptxlua_arg oa[1] = { ptxlua_arg_buffer(ob) };
  CHECKMSG(ptxlua_kernel_prepare(d, "old_sm_80", &ko) == PTXLUA_OK, e);
  if (ko) {
    CHECKMSG(ptxlua_launch(ko, NULL, NULL, PTXLUA_SMEM_KERNEL, NULL, oa, 1) == PTXLUA_OK, e);
    CHECK(strcmp(last_launch()->func, "old_sm_80") == 0);
  }
  CHECK(ptxlua_kernel_prepare(d, "old_sm_100a", &kf) == PTXLUA_ERROR && !kf);
  CHECK(
      strstr(ptxlua_errmsg(e),
             "arch.lua:3: error: old_sm_100a: PTX for sm_100a cannot run on this device (sm_90") !=
      NULL);
  CHECKMSG(ptxlua_kernel_prepare(d, "mixed", &km) == PTXLUA_OK, e);
  if (km) {
    CHECKMSG(ptxlua_launch(km, NULL, NULL, PTXLUA_SMEM_KERNEL, NULL, oa, 1) == PTXLUA_OK, e);
    CHECK(strcmp(last_launch()->func, "mixed") == 0 && last_launch()->smem == 16384 &&
          max_dyn_smem("mixed") >= 16384);
  }

  ptxlua_close(e); /* frees the buffer, unloads, releases the context */
  CHECK(buffers() == 0);
  CHECK(context_refs() == 0);
  return check_done("test_launch_mock");
}
