/* test_ptx_launch.c -- the C launch API on kernels read from PTX: a kernel file transpiled by
** the ptxlua command (plain and --sugar), the script loaded with ptxlua_load_file, the kernel
** prepared on the emulator and launched with buffers, an address and a 64-bit integer for its
** .u64 parameters, results checked element by element; the .reqntid block as the default; an
** out-of-bounds load at the script line that holds it (ptxlua_errfile/ptxlua_errline); and on
** "cuda:0" against the mock driver ($PTXLUA_MOCK_LIBCUDA) the parameter block the driver
** receives. */
#include <dlfcn.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>
#include "ptxlua.h"
#include "test_engine.h"
#include "fixture.h"
#include "../mock_cuda/ptxmock.h"
#include "check.h"

/* the kernels, as nvcc lays them out (tests/fixtures/nvcc/): saxpy.ptx, y[i] = a * x[i] + y[i] for
** i < n, its block required (.reqntid 64); cp_bytes.ptx, a byte-array parameter as nvcc declares a
** CUtensorMap, the kernel copying its 128 bytes out (tests/spec/ptx_emu_spec.lua runs it too) */

static char dir[64];

static int write_file(const char *path, const char *text) {
  FILE *f = fopen(path, "wb");
  if (!f) return 1;
  int bad = fputs(text, f) < 0;
  return fclose(f) != 0 || bad;
}

/* the number of the first line of `path` holding `needle`, 0 if none */
static int line_holding(const char *path, const char *needle) {
  FILE *f = fopen(path, "rb");
  if (!f) return 0;
  char buf[8192];
  int n = 0, found = 0;
  while (!found && fgets(buf, sizeof buf, f)) {
    n++;
    if (strstr(buf, needle)) found = n;
  }
  fclose(f);
  return found;
}

/* dir/base.ptx transpiled by the ptxlua command into script (extra: "" or " --sugar") */
static int transpile(const char *base, const char *script, const char *extra) {
  const char *exe = getenv("PTXLUA_EXE");
  if (!exe || !*exe) {
    fprintf(stderr, "PTXLUA_EXE is not set (run through ctest)\n");
    return 1;
  }
  char cmd[4096];
  snprintf(cmd, sizeof cmd, "'%s' --from-ptx %s/%s.ptx%s -o '%s' 2>/dev/null", exe, dir, base,
           extra, script);
  return system(cmd) != 0;
}

static void on_emulator(const char *script, const char *load_y) {
  ptxlua_engine *e = test_engine();
  CHECK(e != NULL);
  if (!e) return;
  CHECKMSG(ptxlua_load_file(e, script) == PTXLUA_OK, e);
  CHECK(ptxlua_kernel_count(e) == 1 && strcmp(ptxlua_kernel_name(e, 0), "saxpy") == 0);
  ptxlua_device *d = NULL;
  ptxlua_kernel *k = NULL;
  CHECKMSG(ptxlua_device_open(e, "emu", &d) == PTXLUA_OK, e);
  if (d) CHECKMSG(ptxlua_kernel_prepare(d, "saxpy", &k) == PTXLUA_OK, e);
  if (!k) {
    ptxlua_close(e);
    return;
  }
  /* the parameters as the PTX declares them: .u64 are pointers, the rest scalars */
  CHECK(ptxlua_kernel_param_count(k) == 4);
  ptxlua_param p;
  ptxlua_kernel_param(k, 0, &p);
  CHECK(p.kind == PTXLUA_PARAM_POINTER && strcmp(p.name, "saxpy_param_0") == 0 && p.offset == 0 &&
        p.size == 8);
  ptxlua_kernel_param(k, 2, &p);
  CHECK(p.kind == PTXLUA_PARAM_SCALAR && strcmp(p.dtype, "f32") == 0 && p.offset == 16 &&
        p.size == 4);
  unsigned grid[3], block[3], cluster[3], smem = 1;
  ptxlua_kernel_dims(k, grid, block, cluster, &smem);
  CHECK(block[0] == 64 && block[1] == 1 && block[2] == 1 && smem == 0); /* .reqntid */

  enum { N = 1000 };
  static float x[N], y[N], out[N];
  for (int i = 0; i < N; i++) {
    x[i] = (float)i * 0.25f - 7.0f;
    y[i] = (float)(i % 17) * 1.5f;
  }
  ptxlua_buffer *bx = NULL, *by = NULL, *small = NULL;
  CHECKMSG(ptxlua_buffer_alloc(d, sizeof x, &bx) == PTXLUA_OK, e);
  CHECKMSG(ptxlua_buffer_alloc(d, sizeof y, &by) == PTXLUA_OK, e);
  if (!bx || !by) {
    ptxlua_close(e);
    return;
  }
  ptxlua_buffer_upload(bx, 0, x, sizeof x);
  ptxlua_buffer_upload(by, 0, y, sizeof y);
  unsigned g[3] = { (N + 63) / 64, 1, 1 };
  /* x as a buffer, y as an address: the block from .reqntid (block NULL) */
  ptxlua_arg args[4] = { ptxlua_arg_buffer(bx), ptxlua_arg_address(ptxlua_buffer_address(by)),
                         ptxlua_arg_f32(3.0f), ptxlua_arg_u32(N) };
  CHECKMSG(ptxlua_launch(k, g, NULL, 0, NULL, args, 4) == PTXLUA_OK, e);
  CHECKMSG(ptxlua_buffer_download(by, 0, out, sizeof out) == PTXLUA_OK, e);
  int bad = 0;
  /* exact: fma of small binary fractions */
  for (int i = 0; i < N; i++)
    if (out[i] != x[i] * 3.0f + y[i]) bad++;
  CHECK(bad == 0);
  /* a .u64 read from PTX also takes a 64-bit integer: y again, now y = 3x + (3x + y) */
  args[1] = ptxlua_arg_u64(ptxlua_buffer_address(by));
  CHECKMSG(ptxlua_launch(k, g, NULL, 0, NULL, args, 4) == PTXLUA_OK, e);
  CHECKMSG(ptxlua_buffer_download(by, 0, out, sizeof out) == PTXLUA_OK, e);
  bad = 0;
  for (int i = 0; i < N; i++)
    if (out[i] != x[i] * 3.0f + (x[i] * 3.0f + y[i])) bad++;
  CHECK(bad == 0);
  /* a float is not an address */
  args[1] = ptxlua_arg_f64(1.0);
  CHECK(ptxlua_launch(k, g, NULL, 0, NULL, args, 4) == PTXLUA_MISUSE);
  CHECK(strstr(ptxlua_errmsg(e), "argument 2 (saxpy_param_1): a .u64 parameter read from PTX takes "
                                 "a buffer, an address or a 64-bit integer, got f64") != NULL);

  /* y one element short: the last thread's load of y is out of bounds, at the script line
  ** holding it */
  CHECKMSG(ptxlua_buffer_alloc(d, (N - 1) * sizeof(float), &small) == PTXLUA_OK, e);
  args[1] = ptxlua_arg_buffer(small);
  CHECK(ptxlua_launch(k, g, NULL, 0, NULL, args, 4) == PTXLUA_ERROR);
  int line = line_holding(script, load_y);
  char want[1200];
  snprintf(want, sizeof want, "%s:%d: error: out-of-bounds ld.global.f32 ", script, line);
  CHECK(line > 0 && strncmp(ptxlua_errmsg(e), want, strlen(want)) == 0);
  if (strncmp(ptxlua_errmsg(e), want, strlen(want)) != 0)
    fprintf(stderr, "  want %s\n  got  %s\n", want, ptxlua_errmsg(e));
  CHECK(strcmp(ptxlua_errfile(e), script) == 0 && ptxlua_errline(e) == line);
  /* another block than .reqntid: the emulator refuses it */
  unsigned b32[3] = { 32, 1, 1 };
  args[1] = ptxlua_arg_buffer(by);
  CHECK(ptxlua_launch(k, g, b32, 0, NULL, args, 4) == PTXLUA_ERROR);
  CHECK(strstr(ptxlua_errmsg(e), "reqntid") != NULL);
  ptxlua_close(e);
}

/* a tensor map (or 128 raw bytes) for the .b8 [128] parameter */
static void tensormap_bytes(const char *script) {
  ptxlua_engine *e = test_engine();
  if (!e) {
    failures++;
    return;
  }
  CHECKMSG(ptxlua_load_file(e, script) == PTXLUA_OK, e);
  ptxlua_device *d = NULL;
  ptxlua_kernel *k = NULL;
  ptxlua_buffer *src = NULL, *out = NULL;
  CHECKMSG(ptxlua_device_open(e, "emu", &d) == PTXLUA_OK, e);
  if (d) CHECKMSG(ptxlua_kernel_prepare(d, "cp", &k) == PTXLUA_OK, e);
  if (k)
    CHECKMSG(ptxlua_buffer_alloc(d, 64 * 16 * 4, &src) == PTXLUA_OK &&
                 ptxlua_buffer_alloc(d, 128, &out) == PTXLUA_OK,
             e);
  if (!src || !out) {
    ptxlua_close(e);
    return;
  }
  ptxlua_param p;
  ptxlua_kernel_param(k, 0, &p);
  CHECK(p.kind == PTXLUA_PARAM_BYTES && p.size == 128 && p.align == 64);
  ptxlua_tensormap tm;
  uint64_t dims[2] = { 64, 16 };
  uint32_t box[2] = { 32, 8 };
  CHECKMSG(ptxlua_tensormap_encode(src, "f32", 2, dims, NULL, box, "none", &tm) == PTXLUA_OK, e);
  ptxlua_arg args[2] = { ptxlua_arg_tensormap(&tm), ptxlua_arg_buffer(out) };
  unsigned g[3] = { 1, 1, 1 };
  CHECKMSG(ptxlua_launch(k, g, NULL, 0, NULL, args, 2) == PTXLUA_OK, e);
  unsigned char got[128];
  CHECKMSG(ptxlua_buffer_download(out, 0, got, 128) == PTXLUA_OK, e);
  CHECK(memcmp(got, tm.bytes, 128) == 0);
  unsigned char raw[128];
  for (int i = 0; i < 128; i++) raw[i] = (unsigned char)(i * 37 + 1);
  args[0] = ptxlua_arg_bytes(raw, 128);
  CHECKMSG(ptxlua_launch(k, g, NULL, 0, NULL, args, 2) == PTXLUA_OK, e);
  CHECKMSG(ptxlua_buffer_download(out, 0, got, 128) == PTXLUA_OK, e);
  CHECK(memcmp(got, raw, 128) == 0);
  args[0] = ptxlua_arg_bytes(raw, 64);
  CHECK(ptxlua_launch(k, g, NULL, 0, NULL, args, 2) == PTXLUA_MISUSE);
  CHECK(strstr(ptxlua_errmsg(e), "64 bytes for a 128-byte array") != NULL);
  ptxlua_close(e);
}

static void on_mock_cuda(const char *script) {
  const char *mock = getenv("PTXLUA_MOCK_LIBCUDA");
  if (!mock || !*mock) {
    fprintf(stderr, "PTXLUA_MOCK_LIBCUDA is not set: the CUDA path is not checked\n");
    return;
  }
  setenv("PTXLUA_LIBCUDA", mock, 1);
  void *h = dlopen(mock, RTLD_NOW | RTLD_LOCAL);
  if (!h) {
    fprintf(stderr, "%s\n", dlerror());
    failures++;
    return;
  }
  const struct ptxmock_launch *(*last_launch)(void);
  int (*param_layout)(const char *, uint32_t *, uint32_t *, int);
  *(void **)&last_launch = dlsym(h, "ptxmock_last_launch");
  *(void **)&param_layout = dlsym(h, "ptxmock_param_layout");
  CHECK(last_launch && param_layout);
  if (!last_launch || !param_layout) return;
  ptxlua_engine *e = test_engine();
  if (!e) {
    failures++;
    return;
  }
  CHECKMSG(ptxlua_load_file(e, script) == PTXLUA_OK, e);
  ptxlua_device *d = NULL;
  ptxlua_kernel *k = NULL;
  CHECKMSG(ptxlua_device_open(e, "cuda:0", &d) == PTXLUA_OK, e);
  /* ptxas assembles the PTX */
  if (d) CHECKMSG(ptxlua_kernel_prepare(d, "saxpy", &k) == PTXLUA_OK, e);
  ptxlua_buffer *b = NULL;
  if (k) CHECKMSG(ptxlua_buffer_alloc(d, 4096, &b) == PTXLUA_OK, e);
  if (!b) {
    ptxlua_close(e);
    return;
  }
  uint32_t off[8], size[8];
  CHECK(param_layout("saxpy", off, size, 8) == 4);
  ptxlua_arg args[4] = { ptxlua_arg_buffer(b), ptxlua_arg_u64(0x123456789abcull),
                         ptxlua_arg_f32(-0.5f), ptxlua_arg_u32(777) };
  unsigned g[3] = { 16, 1, 1 };
  CHECKMSG(ptxlua_launch(k, g, NULL, 0, NULL, args, 4) == PTXLUA_OK, e);
  const struct ptxmock_launch *L = last_launch();
  CHECK(strcmp(L->func, "saxpy") == 0 && L->grid[0] == 16 && L->block[0] == 64 && L->block[1] == 1);
  unsigned char expect[64];
  memset(expect, 0, sizeof expect);
  uint64_t a = ptxlua_buffer_address(b), y = 0x123456789abcull;
  float s = -0.5f;
  uint32_t n = 777;
  memcpy(expect + off[0], &a, 8);
  memcpy(expect + off[1], &y, 8);
  memcpy(expect + off[2], &s, 4);
  memcpy(expect + off[3], &n, 4);
  CHECK(L->param_size == off[3] + 4 && memcmp(L->params, expect, L->param_size) == 0);
  ptxlua_close(e);
}

int main(void) {
  snprintf(dir, sizeof dir, "/tmp/ptxlua-ptxlaunch.XXXXXX");
  if (!mkdtemp(dir)) {
    perror("mkdtemp");
    return 1;
  }
  char ptx[128], plain[128], sugar[128], cp_ptx[128], cp[128];
  snprintf(ptx, sizeof ptx, "%s/saxpy.ptx", dir);
  snprintf(plain, sizeof plain, "%s/saxpy.lua", dir);
  snprintf(sugar, sizeof sugar, "%s/saxpy_sugar.lua", dir);
  snprintf(cp_ptx, sizeof cp_ptx, "%s/cp.ptx", dir);
  snprintf(cp, sizeof cp, "%s/cp.lua", dir);
  char *saxpy_text = fixture_text("nvcc/saxpy.ptx"), *cp_text = fixture_text("nvcc/cp_bytes.ptx");
  if (!saxpy_text || !cp_text) return 1;
  if (write_file(ptx, saxpy_text) || transpile("saxpy", plain, "") ||
      transpile("saxpy", sugar, " --sugar") || write_file(cp_ptx, cp_text) ||
      transpile("cp", cp, "")) {
    fprintf(stderr, "cannot transpile the PTX of %s\n", dir);
    return 1;
  }
  free(saxpy_text);
  free(cp_text);
  tensormap_bytes(cp);
  on_emulator(plain, "ld.global.f32 \\t%f3, [%rd7];");
  on_emulator(sugar, "ptx.ld.global.f32(f[3], ptx.addr(rd[7]))");
  on_mock_cuda(plain);
  char cmd[256];
  snprintf(cmd, sizeof cmd, "rm -rf '%s'", dir);
  if (system(cmd) != 0) fprintf(stderr, "could not remove %s\n", dir);
  return check_done("test_ptx_launch");
}
