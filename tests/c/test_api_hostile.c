/* test_api_hostile.c -- every function of include/ptxlua.h called the wrong way: NULL engines,
** devices, buffers, kernels, strings and out-pointers; negative and huge counts, sizes and
** offsets; unknown kernels, targets, dtypes and swizzles; calls out of order (PTX before any
** load, a launch of a kernel whose device was closed is not possible: the API frees it with the
** device); scripts that fail. Each must return an error code (MISUSE for a bad argument) with a
** message, never crash, and leave the engine usable: the last steps run a kernel on the emulator
** and check its result. Run under AddressSanitizer and UBSan in CI. Plain C; exit 1 on a
** failure. */
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <dlpack/dlpack.h>
#include "ptxlua.h"
#include "test_engine.h"
#include "check.h"

static const char *SCRIPT =
    "local ptx = require 'ptxlua'\n"
    "ptx.kernel { name = 'fill', params = { {'out', 'u32*', shape = {'n'}}, {'n', 'u32'} },\n"
    "  grid = {1}, block = {64},\n"
    "  body = function(t, out, n)\n"
    "    local po = ptx.global_ptrs(out)\n"
    "    local count = n:load()\n"
    "    local i = ptx.special 'tid.x'\n"
    "    local L = ptx.label 'done'\n"
    "    ptx.at(i:ge(count)).bra(L)\n"
    "    local a = po + i:mul_wide(4)\n"
    "    ptx.st.global.u32(ptx.addr(a), i:mad(3, 1))\n"
    "    ptx.place(L)\n"
    "    ptx.ret()\n"
    "  end }\n";

static void null_everything(void) {
  char *s = NULL;
  size_t n = 0;
  void *bin = NULL;
  ptxlua_close(NULL);
  CHECK(ptxlua_set_lua_dir(NULL, "x") != PTXLUA_OK);
  CHECK(ptxlua_load_file(NULL, "x.lua") != PTXLUA_OK);
  CHECK(ptxlua_load_string(NULL, "x", "return 1", 8) != PTXLUA_OK);
  CHECK(ptxlua_kernel_count(NULL) <= 0);
  CHECK(ptxlua_kernel_name(NULL, 0) == NULL);
  CHECK(ptxlua_define(NULL, "N", "1") != PTXLUA_OK);
  CHECK(ptxlua_set_arch(NULL, "sm_90a") != PTXLUA_OK);
  CHECK(ptxlua_ptx(NULL, NULL, 0, &s, &n) != PTXLUA_OK);
  CHECK(ptxlua_write_ptx(NULL, NULL, 0, "/tmp/never.ptx") != PTXLUA_OK);
  CHECK(ptxlua_fwrite_ptx(NULL, NULL, 0, stdout) != PTXLUA_OK);
  ptxlua_free(NULL);
  CHECK(ptxlua_emulate(NULL, NULL, 0, &s) != PTXLUA_OK);
  CHECK(ptxlua_check(NULL, NULL, 0, &s) != PTXLUA_OK);
  CHECK(ptxlua_resource_count(NULL) <= 0);
  CHECK(ptxlua_resource(NULL, 0) == NULL);
  CHECK(ptxlua_compile(NULL, NULL, 0, &bin, &n) != PTXLUA_OK);
  CHECK(ptxlua_emit_c(NULL, NULL, 0, "/tmp", "x", NULL) == PTXLUA_MISUSE);
  CHECK(ptxlua_launch_block(NULL) == PTXLUA_MISUSE);
  { /* --emit-c's API on an engine given nothing to emit */
    ptxlua_engine *e = ptxlua_open();
    CHECK(ptxlua_emit_c(e, NULL, 0, NULL, "x", NULL) == PTXLUA_MISUSE);
    CHECK(ptxlua_emit_c(e, NULL, 0, "/tmp", NULL, NULL) == PTXLUA_MISUSE);
    /* no script */
    CHECK(ptxlua_emit_c(e, NULL, 0, "/tmp/ptxlua-never", "x", NULL) == PTXLUA_MISUSE);
    CHECK(ptxlua_load_string(e, "k.lua", SCRIPT, strlen(SCRIPT)) == PTXLUA_OK);
    CHECK(ptxlua_emit_c(e, NULL, 0, "/tmp/ptxlua-never", "a-b", NULL) == PTXLUA_MISUSE);
    CHECK_MSG(e, "is no C identifier");
    CHECK(ptxlua_emit_c(e, "nope", 0, "/tmp/ptxlua-never", "x", NULL) == PTXLUA_MISUSE);
    CHECK_MSG(e, "no kernel named 'nope'");
    CHECK(ptxlua_emit_c(e, NULL, 0x4000, "/tmp/ptxlua-never", "x", NULL) == PTXLUA_MISUSE);
    ptxlua_launch_args la;
    memset(&la, 0, sizeof la);
    CHECK(ptxlua_launch_block(&la) == PTXLUA_MISUSE); /* no kernel */
    ptxlua_close(e);
  }
  ptxlua_device *d = NULL;
  CHECK(ptxlua_device_open(NULL, "emu", &d) != PTXLUA_OK && d == NULL);
  ptxlua_device_close(NULL);
  CHECK(ptxlua_device_sync(NULL) != PTXLUA_OK);
  CHECK(ptxlua_device_describe(NULL) != NULL); /* a string, whatever it says */
  ptxlua_buffer *b = NULL;
  CHECK(ptxlua_buffer_alloc(NULL, 64, &b) != PTXLUA_OK && b == NULL);
  char host[16];
  CHECK(ptxlua_buffer_upload(NULL, 0, host, 16) != PTXLUA_OK);
  CHECK(ptxlua_buffer_download(NULL, 0, host, 16) != PTXLUA_OK);
  CHECK(ptxlua_buffer_address(NULL) == 0);
  CHECK(ptxlua_buffer_size(NULL) == 0);
  ptxlua_buffer_free(NULL);
  ptxlua_tensormap tm;
  uint64_t dims[2] = { 64, 64 };
  uint32_t box[2] = { 64, 64 };
  CHECK(ptxlua_tensormap_encode(NULL, "bf16", 2, dims, NULL, box, "128B", &tm) != PTXLUA_OK);
  CHECK(ptxlua_tensormap_encode_im2col(NULL, "bf16", 3, dims, NULL, NULL, &tm) != PTXLUA_OK);
  CHECK(ptxlua_tensormap_encode_address(NULL, 0, "bf16", 2, dims, NULL, box, "128B", &tm) !=
        PTXLUA_OK);
  CHECK(ptxlua_tensormap_encode_im2col_address(NULL, 0, "bf16", 3, dims, NULL, NULL, &tm) !=
        PTXLUA_OK);
  CHECK(ptxlua_buffer_wrap(NULL, host, 16, &b) != PTXLUA_OK && b == NULL);
  CHECK(ptxlua_buffer_wrap_dlpack(NULL, NULL, &b) != PTXLUA_OK && b == NULL);
  CHECK(ptxlua_kernel_param_shape(NULL, 0, NULL, NULL, 0) != PTXLUA_OK);
  ptxlua_kernel *k = NULL;
  CHECK(ptxlua_kernel_prepare(NULL, "fill", &k) != PTXLUA_OK && k == NULL);
  ptxlua_kernel_free(NULL);
  CHECK(ptxlua_kernel_param_count(NULL) <= 0);
  ptxlua_param p;
  CHECK(ptxlua_kernel_param(NULL, 0, &p) != PTXLUA_OK);
  unsigned g[3], bl[3], c[3], sm;
  CHECK(ptxlua_kernel_dims(NULL, g, bl, c, &sm) != PTXLUA_OK);
  CHECK(ptxlua_launch(NULL, NULL, NULL, 0, NULL, NULL, 0) != PTXLUA_OK);
  CHECK(ptxlua_errmsg(NULL) != NULL);
  CHECK(ptxlua_errfile(NULL) == NULL || 1);
  CHECK(ptxlua_errline(NULL) == 0);
  CHECK(ptxlua_version() && *ptxlua_version());
}

static void engine_misuse(ptxlua_engine *e) {
  char *s = NULL;
  size_t n = 0;
  void *bin = NULL;
  /* before any script */
  CHECK(ptxlua_kernel_count(e) == 0);
  CHECK(ptxlua_kernel_name(e, 0) == NULL);
  CHECK(ptxlua_kernel_name(e, -1) == NULL);
  CHECK_ERR(ptxlua_ptx(e, "nope", 0, &s, &n));
  CHECK(s == NULL);
  /* NULL and hostile strings */
  CHECK_ERR(ptxlua_load_file(e, NULL));
  CHECK_ERR(ptxlua_load_file(e, "/nonexistent/dir/k.lua"));
  CHECK_ERR(ptxlua_load_file(e, ""));
  CHECK_ERR(ptxlua_load_string(e, NULL, NULL, 5));
  CHECK_ERR(ptxlua_load_string(e, "bad.lua", "this is not lua (", 17));
  CHECK(ptxlua_errline(e) == 1);
  CHECK_MSG(e, "bad.lua:1:");
  CHECK_ERR(ptxlua_load_string(e, "bin.lua", "\0\1\2\3", 4));
  CHECK_ERR(ptxlua_load_string(e, "err.lua", "error('mine')", 13));
  CHECK_MSG(e, "mine");
  CHECK_ERR(ptxlua_define(e, NULL, "1"));
  CHECK_ERR(ptxlua_define(e, "", "1"));
  /* removing an override that is not there */
  CHECK(ptxlua_define(e, "N", NULL) == PTXLUA_OK);
  CHECK(ptxlua_set_arch(e, "sm_9000") == PTXLUA_MISUSE);
  CHECK(ptxlua_set_arch(e, "") == PTXLUA_MISUSE);
  CHECK(ptxlua_set_arch(e, NULL) == PTXLUA_OK);
  /* a good script, then the calls that select kernels by bad names or take bad out-pointers */
  if (ptxlua_load_string(e, "fill.lua", SCRIPT, strlen(SCRIPT)) != PTXLUA_OK) {
    failures++;
    fprintf(stderr, "%s\n", ptxlua_errmsg(e));
  }
  CHECK(ptxlua_kernel_count(e) == 1);
  CHECK(ptxlua_kernel_name(e, 1) == NULL);
  CHECK(ptxlua_kernel_name(e, 1 << 30) == NULL);
  CHECK_ERR(ptxlua_ptx(e, "nope", 0, &s, &n));
  CHECK(ptxlua_ptx(e, ",,,", 0, &s, &n) == PTXLUA_MISUSE);
  CHECK_MSG(e, "an empty kernel name");
  CHECK(ptxlua_ptx(e, "fill,", 0, &s, &n) == PTXLUA_MISUSE);
  CHECK(ptxlua_ptx(e, "", 0, &s, &n) == PTXLUA_MISUSE);
  CHECK_ERR(ptxlua_ptx(e, NULL, 0, NULL, &n));
  CHECK(ptxlua_ptx(e, NULL, -1, &s, &n) == PTXLUA_MISUSE);
  CHECK_MSG(e, "unknown flags");
  CHECK(ptxlua_write_ptx(e, NULL, 0x4000, "/tmp/never.ptx") == PTXLUA_MISUSE);
  CHECK(ptxlua_fwrite_ptx(e, "fill,,", 0, stdout) == PTXLUA_MISUSE);
  CHECK(ptxlua_check(e, NULL, 0x10000, &s) == PTXLUA_MISUSE);
  CHECK(ptxlua_compile(e, NULL, PTXLUA_JSON, &bin, &n) == PTXLUA_MISUSE);
  CHECK_ERR(ptxlua_write_ptx(e, NULL, 0, NULL));
  CHECK_ERR(ptxlua_write_ptx(e, NULL, 0, "/nonexistent/dir/out.ptx"));
  CHECK_ERR(ptxlua_fwrite_ptx(e, NULL, 0, NULL));
  CHECK_ERR(ptxlua_emulate(e, "nope", 0, &s));
  CHECK_ERR(ptxlua_emulate(e, NULL, 0, NULL));
  CHECK(ptxlua_emulate(e, NULL, 0x7fffffff, &s) == PTXLUA_MISUSE);
  CHECK_ERR(ptxlua_check(e, "nope", 0, &s));
  CHECK_ERR(ptxlua_check(e, NULL, 0, NULL));
  CHECK(ptxlua_resource(e, -1) == NULL);
  CHECK(ptxlua_resource(e, 1 << 30) == NULL);
  CHECK_ERR(ptxlua_compile(e, "nope", 0, &bin, &n));
  CHECK_ERR(ptxlua_compile(e, NULL, 0, NULL, &n));
  /* still fine */
  CHECK(ptxlua_ptx(e, "fill", 0, &s, &n) == PTXLUA_OK && s && n > 0 && strstr(s, ".entry fill"));
  ptxlua_free(s);
}

static void device_misuse(ptxlua_engine *e) {
  ptxlua_device *d = NULL;
  CHECK_ERR(ptxlua_device_open(e, NULL, &d));
  CHECK_ERR(ptxlua_device_open(e, "", &d));
  CHECK_ERR(ptxlua_device_open(e, "tpu:0", &d));
  CHECK_ERR(ptxlua_device_open(e, "cuda:-1", &d));
  CHECK_ERR(ptxlua_device_open(e, "cuda:99999999999999999999", &d));
  CHECK_ERR(ptxlua_device_open(e, "emu", NULL));
  CHECK(d == NULL);
  CHECK(ptxlua_device_open(e, "emu", &d) == PTXLUA_OK && d);
  if (!d) return;
  ptxlua_buffer *b = NULL;
  CHECK_ERR(ptxlua_buffer_alloc(d, 0, &b));
  CHECK_ERR(ptxlua_buffer_alloc(d, SIZE_MAX, &b));
  CHECK_ERR(ptxlua_buffer_alloc(d, (size_t)1 << 62, &b));
  CHECK_ERR(ptxlua_buffer_alloc(d, 64, NULL));
  CHECK(b == NULL);
  CHECK(ptxlua_buffer_alloc(d, 256, &b) == PTXLUA_OK && b);
  if (!b) {
    ptxlua_device_close(d);
    return;
  }
  unsigned char host[512];
  memset(host, 7, sizeof host);
  CHECK_ERR(ptxlua_buffer_upload(b, 0, host, 257));
  CHECK_ERR(ptxlua_buffer_upload(b, 255, host, 2));
  CHECK_ERR(ptxlua_buffer_upload(b, SIZE_MAX, host, 2));
  CHECK_ERR(ptxlua_buffer_upload(b, 2, host, SIZE_MAX));
  CHECK_ERR(ptxlua_buffer_upload(b, 0, NULL, 16));
  CHECK_ERR(ptxlua_buffer_download(b, 0, host, 257));
  CHECK_ERR(ptxlua_buffer_download(b, SIZE_MAX - 1, host, 4));
  CHECK_ERR(ptxlua_buffer_download(b, 0, NULL, 16));
  /* zero bytes: either answer, no crash */
  CHECK(ptxlua_buffer_upload(b, 0, host, 0) == PTXLUA_OK || 1);
  /* wrapped memory and tensor maps over addresses that are not the device's */
  ptxlua_buffer *w = NULL;
  CHECK_ERR(ptxlua_buffer_wrap(d, NULL, 16, &w));
  CHECK_ERR(ptxlua_buffer_wrap(d, host, 0, &w));
  CHECK(ptxlua_buffer_wrap(d, host, 16, NULL) == PTXLUA_MISUSE);
  /* hostile DLPack tensors: negative rank, no shape, negative or huge extents and strides */
  {
    int64_t neg[2] = { -1, 4 }, big[2] = { INT64_MAX, INT64_MAX }, bst[2] = { INT64_MAX, -5 };
    DLManagedTensor m;
    memset(&m, 0, sizeof m);
    DLTensor *tt = &m.dl_tensor;
    tt->data = host;
    tt->device.device_type = kDLCPU;
    tt->ndim = -3;
    tt->dtype.code = kDLFloat;
    tt->dtype.bits = 32;
    tt->dtype.lanes = 1;
    const DLManagedTensor *mt = &m;
    CHECK_ERR(ptxlua_buffer_wrap_dlpack(d, mt, &w));
    tt->ndim = 2;
    CHECK_ERR(ptxlua_buffer_wrap_dlpack(d, mt, &w));
    tt->shape = neg;
    CHECK_ERR(ptxlua_buffer_wrap_dlpack(d, mt, &w));
    tt->shape = big;
    CHECK_ERR(ptxlua_buffer_wrap_dlpack(d, mt, &w));
    tt->strides = bst;
    CHECK_ERR(ptxlua_buffer_wrap_dlpack(d, mt, &w));
    tt->dtype.bits = 0;
    CHECK_ERR(ptxlua_buffer_wrap_dlpack(d, mt, &w));
    CHECK(w == NULL);
  }
  /* tensor maps with bad shapes */
  ptxlua_tensormap tm;
  uint64_t dims[5] = { 64, 64, 1, 1, 1 }, huge[2] = { UINT64_MAX, UINT64_MAX },
           st[4] = { 3, 0, 0, 0 };
  uint32_t box[5] = { 64, 2, 1, 1, 1 }, zbox[2] = { 0, 0 };
  /* 64x64 bf16 > 256 bytes */
  CHECK_ERR(ptxlua_tensormap_encode(b, "bf16", 2, dims, NULL, box, "128B", &tm));
  CHECK_ERR(ptxlua_tensormap_encode(b, "nope", 2, dims, NULL, box, "none", &tm));
  CHECK_ERR(ptxlua_tensormap_encode(b, "u8", 0, dims, NULL, box, "none", &tm));
  CHECK_ERR(ptxlua_tensormap_encode(b, "u8", 6, dims, NULL, box, "none", &tm));
  CHECK_ERR(ptxlua_tensormap_encode(b, "u8", -3, dims, NULL, box, "none", &tm));
  CHECK_ERR(ptxlua_tensormap_encode(b, "u8", 2, huge, NULL, box, "none", &tm));
  CHECK_ERR(ptxlua_tensormap_encode(b, "u8", 2, dims, st, box, "none", &tm));
  CHECK_ERR(ptxlua_tensormap_encode(b, "u8", 2, dims, NULL, zbox, "none", &tm));
  CHECK_ERR(ptxlua_tensormap_encode(b, "u8", 2, dims, NULL, box, "17B", &tm));
  CHECK_ERR(ptxlua_tensormap_encode(b, "u8", 2, NULL, NULL, box, "none", &tm));
  CHECK_ERR(ptxlua_tensormap_encode(b, "u8", 2, dims, NULL, NULL, "none", &tm));
  CHECK_ERR(ptxlua_tensormap_encode(b, "u8", 2, dims, NULL, box, "none", NULL));
  ptxlua_im2col ic;
  memset(&ic, 0, sizeof ic);
  int lo[3] = { -(1 << 30), 0, 0 }, hi[3] = { 1 << 30, 0, 0 };
  ic.lower_corner = lo;
  ic.upper_corner = hi;
  ic.channels_per_pixel = 0;
  ic.pixels_per_column = 5000;
  CHECK_ERR(ptxlua_tensormap_encode_im2col(b, "bf16", 3, dims, NULL, &ic, &tm));
  CHECK_ERR(ptxlua_tensormap_encode_im2col(b, "bf16", 3, dims, NULL, NULL, &tm));
  CHECK_ERR(ptxlua_tensormap_encode_im2col(b, "bf16", 9, dims, NULL, &ic, &tm));
  /* kernels */
  ptxlua_kernel *k = NULL;
  CHECK_ERR(ptxlua_kernel_prepare(d, NULL, &k));
  CHECK_ERR(ptxlua_kernel_prepare(d, "nope", &k));
  CHECK_ERR(ptxlua_kernel_prepare(d, "fill", NULL));
  CHECK(k == NULL);
  CHECK(ptxlua_kernel_prepare(d, "fill", &k) == PTXLUA_OK && k);
  if (k) {
    ptxlua_param p;
    CHECK(ptxlua_kernel_param_count(k) == 2);
    CHECK_ERR(ptxlua_kernel_param(k, -1, &p));
    CHECK_ERR(ptxlua_kernel_param(k, 2, &p));
    CHECK_ERR(ptxlua_kernel_param(k, 0, NULL));
    CHECK(ptxlua_kernel_dims(k, NULL, NULL, NULL, NULL) == PTXLUA_OK);
    ptxlua_arg args[3] = { ptxlua_arg_buffer(b), ptxlua_arg_u32(64), ptxlua_arg_u32(1) };
    unsigned zero[3] = { 0, 1, 1 }, big[3] = { 1u << 31, 1u << 31, 1u << 31 },
             block[3] = { 64, 1, 1 }, fat[3] = { 4096, 1, 1 };
    /* one argument too many */
    CHECK(ptxlua_launch(k, NULL, NULL, 0, NULL, args, 3) == PTXLUA_MISUSE);
    CHECK(ptxlua_launch(k, NULL, NULL, 0, NULL, args, -1) == PTXLUA_MISUSE);
    CHECK(ptxlua_launch(k, NULL, NULL, 0, NULL, NULL, 2) == PTXLUA_MISUSE);
    ptxlua_arg wrong[2] = { ptxlua_arg_u32(5), ptxlua_arg_buffer(b) };
    CHECK(ptxlua_launch(k, NULL, NULL, 0, NULL, wrong, 2) == PTXLUA_MISUSE);
    ptxlua_arg badtype[2] = { ptxlua_arg_scalar(12345, 0), ptxlua_arg_u32(1) };
    CHECK(ptxlua_launch(k, NULL, NULL, 0, NULL, badtype, 2) == PTXLUA_MISUSE);
    ptxlua_arg nullbuf[2] = { ptxlua_arg_buffer(NULL), ptxlua_arg_u32(1) };
    CHECK(ptxlua_launch(k, NULL, NULL, 0, NULL, nullbuf, 2) == PTXLUA_MISUSE);
    ptxlua_arg nullbytes[2] = { ptxlua_arg_bytes(NULL, 8), ptxlua_arg_u32(1) };
    CHECK_ERR(ptxlua_launch(k, NULL, NULL, 0, NULL, nullbytes, 2));
    CHECK_ERR(ptxlua_launch(k, zero, block, 0, NULL, args, 2));
    CHECK_ERR(ptxlua_launch(k, big, block, 0, NULL, args, 2));
    CHECK_ERR(ptxlua_launch(k, NULL, fat, 0, NULL, args, 2));
    CHECK_ERR(ptxlua_launch(k, NULL, NULL, 0x7fffffff, NULL, args, 2));
    /* the kernel writes past the end of the buffer: an error at the script's line */
    ptxlua_arg over[2] = { ptxlua_arg_buffer(b), ptxlua_arg_u32(65) };
    unsigned block65[3] = { 65, 1, 1 };
    CHECK_ERR(ptxlua_launch(k, NULL, block65, 0, NULL, over, 2));
    CHECK_MSG(e, "fill.lua:11: error: out-of-bounds st.global.u32");
    /* and after all that, a good launch computes the right values */
    CHECK(ptxlua_launch(k, NULL, NULL, 0, NULL, args, 2) == PTXLUA_OK);
    uint32_t out[64];
    CHECK(ptxlua_buffer_download(b, 0, out, sizeof out) == PTXLUA_OK);
    int bad = 0;
    for (uint32_t i = 0; i < 64; i++) bad += out[i] != i * 3 + 1;
    CHECK(bad == 0);
  }
  ptxlua_device_close(d); /* frees its buffers and kernels */
}

/* error values that are not strings (error({code = 1})): every entry point gives the line of the
** frame that raised them, with errfile/errline set, and the value's type and fields -- never the
** bare "error object is not a string" */
static void nonstring_errors(ptxlua_engine *e) {
  static const char *ET = "local ptx = require 'ptxlua'\n"
                          "ptx.kernel { name = 'k', templates = { W = 0 }, params = { {'out', "
                          "'u32*', shape = {64}} },\n"
                          "  grid = {1}, block = {64}, smem = function(t) if t.W == 3 then error({ "
                          "code = 3 }) end return 0 end,\n"
                          "  body = function(t, out)\n"
                          "    if t.W == 1 then error({ code = 1 }) end\n"
                          "    if t.W == 2 then error(setmetatable({}, { __tostring = function() "
                          "return 'mine' end })) end\n"
                          "    ptx.ret()\n"
                          "  end }\n";
  static const char *TOP =
      "local ptx = require 'ptxlua'\nlocal function f() error({ top = true }) end\nf()\n";
  CHECK(ptxlua_load_string(e, "top.lua", TOP, strlen(TOP)) == PTXLUA_ERROR);
  CHECK_MSG(e, "top.lua:2: error: error object is a table, not a string: {top = true}");
  CHECK(ptxlua_errfile(e) && strcmp(ptxlua_errfile(e), "top.lua") == 0 && ptxlua_errline(e) == 2);
  if (ptxlua_load_string(e, "et.lua", ET, strlen(ET)) != PTXLUA_OK) {
    failures++;
    fprintf(stderr, "%s\n", ptxlua_errmsg(e));
    return;
  }
  char *s = NULL;
  size_t n = 0;
  ptxlua_define(e, "W", "1");
  CHECK(ptxlua_ptx(e, NULL, 0, &s, &n) == PTXLUA_ERROR);
  CHECK_MSG(e, "et.lua:5: error: error object is a table, not a string: {code = 1}");
  CHECK(ptxlua_errfile(e) && strcmp(ptxlua_errfile(e), "et.lua") == 0 && ptxlua_errline(e) == 5);
  CHECK(ptxlua_emulate(e, NULL, 0, &s) == PTXLUA_ERROR);
  CHECK_MSG(e, "et.lua:5: error: error object is a table, not a string: {code = 1}");
  ptxlua_define(e, "W", "2");
  CHECK(ptxlua_ptx(e, NULL, 0, &s, &n) == PTXLUA_ERROR);
  CHECK_MSG(e, "et.lua:6: error: error object is a table, not a string: mine");
  ptxlua_device *d = NULL;
  ptxlua_kernel *k = NULL;
  if (ptxlua_device_open(e, "emu", &d) == PTXLUA_OK) {
    CHECK(ptxlua_kernel_prepare(d, "k", &k) == PTXLUA_ERROR);
    CHECK_MSG(e, "et.lua:6: error: error object is a table, not a string: mine");
    /* the smem function, called by the launch API */
    ptxlua_define(e, "W", "3");
    CHECK(ptxlua_kernel_prepare(d, "k", &k) == PTXLUA_ERROR);
    CHECK_MSG(e, "et.lua:3: error: error object is a table, not a string: {code = 3}");
    CHECK(ptxlua_errline(e) == 3);
    ptxlua_define(e, "W", NULL);
    CHECK(ptxlua_kernel_prepare(d, "k", &k) == PTXLUA_OK);
    ptxlua_device_close(d);
  } else
    CHECK(0);
  ptxlua_define(e, "W", NULL);
  CHECK(ptxlua_ptx(e, NULL, 0, &s, &n) == PTXLUA_OK);
  ptxlua_free(s);
}

int main(void) {
  null_everything();
  ptxlua_engine *e = test_engine();
  if (!e) {
    fprintf(stderr, "no engine\n");
    return 1;
  }
  engine_misuse(e);
  device_misuse(e);
  nonstring_errors(e);
  ptxlua_close(e);
  return check_done("test_api_hostile");
}
