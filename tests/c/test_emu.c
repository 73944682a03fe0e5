/* test_emu.c -- the emulator's C API (src/emu/emu.h) on IR built directly: device memory, a SIMT
** loop kernel against a C reference, errors with anchors (out of bounds, a missing parameter, an
** instruction that is not emulated), and the throughput benchmark: PTXLUA_BENCH=1
** build/tests/test_emu prints thread-instructions per second on one core. Plain C; exit 1 on a
** failure. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <math.h>
#include <time.h>
#include "ir.h"
#include "isa.h"
#include "emu.h"
#include "check.h"

/* ---- a small IR builder
** -------------------------------------------------------------------------- */
typedef struct B {
  plA_ctx *isa;
  plI_module *m;
  int f;
  uint32_t file;
  uint32_t line;
} B;

static plI_opnd R(uint32_t id) {
  plI_opnd o;
  memset(&o, 0, sizeof o);
  o.kind = PLO_REG;
  o.id = id;
  return o;
}
static plI_opnd I(uint64_t v) {
  plI_opnd o;
  memset(&o, 0, sizeof o);
  o.kind = PLO_IMM;
  o.v = v;
  return o;
}
static plI_opnd F(float f) {
  plI_opnd o;
  memset(&o, 0, sizeof o);
  o.kind = PLO_F32;
  uint32_t u;
  memcpy(&u, &f, 4);
  o.v = u;
  return o;
}
static plI_opnd A(uint32_t reg, int64_t off) {
  plI_opnd o;
  memset(&o, 0, sizeof o);
  o.kind = PLO_ADDR;
  o.flags = PLOF_BASE_REG;
  o.id = reg;
  o.v = (uint64_t)off;
  return o;
}
static plI_opnd AS(B *b, const char *sym) {
  plI_opnd o;
  memset(&o, 0, sizeof o);
  o.kind = PLO_ADDR;
  o.flags = PLOF_BASE_SYM;
  o.id = plI_str(b->m, sym);
  return o;
}
static plI_opnd L(B *b, const char *name) {
  plI_opnd o;
  memset(&o, 0, sizeof o);
  o.kind = PLO_LABEL;
  o.id = plI_str(b->m, name);
  return o;
}
static plI_opnd SR(B *b, const char *name) {
  plI_opnd o;
  memset(&o, 0, sizeof o);
  o.kind = PLO_SREG;
  o.id = plI_str(b->m, name);
  o.n = PLT_U32;
  return o;
}

static void ins(B *b, const char *opc, int n, plI_opnd o0, plI_opnd o1, plI_opnd o2, plI_opnd o3) {
  plI_opnd ops[4] = { o0, o1, o2, o3 };
  uint32_t id = plA_opcode(b->isa, opc, strlen(opc));
  plI_insn(b->m, b->f, id, ops, n, 0, 0, b->file, ++b->line);
}
static void gins(B *b, uint32_t guard, const char *opc, int n, plI_opnd o0, plI_opnd o1,
                 plI_opnd o2, plI_opnd o3) {
  plI_opnd ops[4] = { o0, o1, o2, o3 };
  uint32_t id = plA_opcode(b->isa, opc, strlen(opc));
  plI_insn(b->m, b->f, id, ops, n, guard + 1, 0, b->file, ++b->line);
}
#define NO R(0)

static void begin(B *b, const char *name) {
  b->isa = plA_new();
  b->m = plI_new(b->isa);
  b->f = plI_func_new(b->m, name, PLF_ENTRY, PLK_VISIBLE);
  b->file = plI_str(b->m, "test.lua");
  b->line = 0;
}
static void end(B *b) {
  plI_free(b->m);
  plA_unref(b->isa);
}

/* out[i] = sum over k < n of (fma chain, integer hash), i = ctaid.x * ntid.x + tid.x */
static void loop_kernel(B *b) {
  begin(b, "loop");
  plI_param(b->m, b->f, "out", PLT_U64, 0, 0, 0);
  plI_param(b->m, b->f, "n", PLT_U32, 0, 0, 0);
  uint32_t rd1 = plI_reg_scalar(b->m, b->f, "rd1", PLT_U64),
           rd2 = plI_reg_scalar(b->m, b->f, "rd2", PLT_U64);
  uint32_t rd3 = plI_reg_scalar(b->m, b->f, "rd3", PLT_U64);
  uint32_t r = plI_reg_range(b->m, b->f, "r", PLT_U32, 10);
  uint32_t f = plI_reg_range(b->m, b->f, "f", PLT_F32, 5);
  uint32_t p = plI_reg_scalar(b->m, b->f, "p", PLT_PRED);
  ins(b, "ld.param.u64", 2, R(rd1), AS(b, "out"), NO, NO);
  ins(b, "ld.param.u32", 2, R(r + 1), AS(b, "n"), NO, NO);
  ins(b, "mov.u32", 2, R(r + 2), SR(b, "tid.x"), NO, NO);
  ins(b, "mov.u32", 2, R(r + 3), SR(b, "ctaid.x"), NO, NO);
  ins(b, "mov.u32", 2, R(r + 9), SR(b, "ntid.x"), NO, NO);
  ins(b, "mad.lo.u32", 4, R(r + 4), R(r + 3), R(r + 9), R(r + 2));
  ins(b, "mov.u32", 2, R(r + 5), I(0), NO, NO);
  ins(b, "mov.u32", 2, R(r + 6), I(0), NO, NO);
  ins(b, "mov.f32", 2, R(f + 1), F(0), NO, NO);
  plI_label(b->m, b->f, plI_str(b->m, "$L"), b->file, ++b->line);
  ins(b, "cvt.rn.f32.u32", 2, R(f + 2), R(r + 5), NO, NO);
  ins(b, "fma.rn.f32", 4, R(f + 1), R(f + 2), F(0.5f), R(f + 1));
  ins(b, "add.u32", 3, R(r + 7), R(r + 4), R(r + 5), NO);
  ins(b, "xor.b32", 3, R(r + 8), R(r + 7), I(0x55), NO);
  ins(b, "and.b32", 3, R(r + 8), R(r + 8), I(255), NO);
  ins(b, "add.u32", 3, R(r + 6), R(r + 6), R(r + 8), NO);
  ins(b, "mul.rn.f32", 3, R(f + 1), R(f + 1), F(0.999f), NO);
  ins(b, "add.u32", 3, R(r + 5), R(r + 5), I(1), NO);
  ins(b, "setp.lt.u32", 3, R(p), R(r + 5), R(r + 1), NO);
  gins(b, p, "bra", 1, L(b, "$L"), NO, NO, NO);
  ins(b, "mul.wide.u32", 3, R(rd2), R(r + 4), I(4), NO);
  ins(b, "add.u64", 3, R(rd3), R(rd1), R(rd2), NO);
  ins(b, "cvt.rn.f32.u32", 2, R(f + 3), R(r + 6), NO, NO);
  ins(b, "add.f32", 3, R(f + 4), R(f + 1), R(f + 3), NO);
  ins(b, "st.global.f32", 2, A(rd3, 0), R(f + 4), NO, NO);
  ins(b, "ret", 0, NO, NO, NO, NO);
}

static float loop_ref(uint32_t i, uint32_t n) {
  float acc = 0;
  uint32_t x = 0;
  for (uint32_t k = 0; k < n; k++) {
    acc = fmaf((float)k, 0.5f, acc);
    x += ((i + k) ^ 0x55) & 255;
    acc = acc * 0.999f;
  }
  return acc + (float)x;
}

static int run_loop(B *b, plX_mem *mem, uint32_t grid, uint32_t n, uint64_t out, plX_stats *st) {
  plX_emu *e = plX_new(b->m, b->f, mem);
  CHECK(e && plX_status(e) == 0);
  uint32_t g[3] = { grid, 1, 1 }, bl[3] = { 256, 1, 1 };
  plX_set_param(e, 0, &out, 8);
  plX_set_param(e, 1, &n, 4);
  plX_set_launch(e, g, bl, 0);
  int rc = plX_run(e);
  if (rc) fprintf(stderr, "%s\n", plX_error(e));
  if (st) plX_get_stats(e, st);
  plX_free(e);
  return rc;
}

static void test_memory(void) {
  plX_mem *m = plX_mem_new();
  uint64_t a = plX_mem_alloc(m, 100, "a"), b = plX_mem_alloc(m, 7, "b");
  CHECK(a && b && b > a + 100 && a % 256 == 0 && b % 256 == 0);
  uint64_t sz = 0;
  uint8_t *p = plX_mem_host(m, a, &sz);
  CHECK(p && sz == 100 && p[99] == 0);
  CHECK(plX_mem_host(m, a + 4, NULL) == NULL);
  CHECK(plX_mem_alloc(m, 0, "zero") == 0);
  CHECK(plX_mem_release(m, b) == 0 && plX_mem_release(m, b) == -1);
  plX_mem_free(m);
  plX_mem_free(NULL);
}

static void test_loop(void) {
  B b;
  loop_kernel(&b);
  plX_mem *mem = plX_mem_new();
  uint32_t n = 37, grid = 2;
  uint64_t out = plX_mem_alloc(mem, grid * 256 * 4, "out");
  plX_stats st;
  CHECK(run_loop(&b, mem, grid, n, out, &st) == 0);
  float *o = (float *)plX_mem_host(mem, out, NULL);
  int bad = 0;
  for (uint32_t i = 0; i < grid * 256; i++)
    if (o[i] != loop_ref(i, n)) bad++;
  CHECK(bad == 0);
  CHECK(st.ctas == 2 && st.thread_insns == (uint64_t)grid * 256 * (9 + 10 * n + 6));
  /* the same launch with one buffer too small: out of bounds, at the store's line */
  uint64_t small = plX_mem_alloc(mem, 256 * 4, "small");
  plX_emu *e = plX_new(b.m, b.f, mem);
  uint32_t g[3] = { 2, 1, 1 }, bl[3] = { 256, 1, 1 };
  plX_set_param(e, 0, &small, 8);
  plX_set_launch(e, g, bl, 0);
  CHECK(plX_run(e) != 0);
  CHECK_HAS(plX_error(e), "error: parameter 'n' was not set");
  plX_clear(e);
  plX_set_param(e, 1, &n, 4);
  CHECK(plX_run(e) != 0);
  CHECK_HAS(plX_error(e),
            "test.lua:25: error: out-of-bounds st.global.f32 by thread (0,0,0) of CTA (1,0,0)");
  CHECK_HAS(plX_error(e), "is just past the end of buffer 'small' (1024 bytes");
  plX_free(e);
  plX_mem_free(mem);
  end(&b);
}

static void test_unsupported(void) {
  B b;
  begin(&b, "k");
  uint32_t r = plI_reg_range(b.m, b.f, "r", PLT_B32, 4);
  ins(&b, "mov.b32", 2, R(r), I(1), NO, NO);
  ins(&b, "fns.b32", 4, R(r + 1), R(r), I(1), I(1));
  plX_mem *mem = plX_mem_new();
  plX_emu *e = plX_new(b.m, b.f, mem);
  uint32_t g[3] = { 1, 1, 1 };
  plX_set_launch(e, g, g, 0);
  CHECK(plX_run(e) != 0);
  CHECK_HAS(plX_error(e), "test.lua:2: error: fns.b32 is not emulated");
  plX_free(e);
  plX_mem_free(mem);
  plX_free(NULL);
  end(&b);
}

/* thread-instructions per second of the SIMT loop: 64 CTAs of 256 threads, 1000 iterations */
static void bench(void) {
  B b;
  loop_kernel(&b);
  plX_mem *mem = plX_mem_new();
  uint32_t grid = 64, n = 1000;
  uint64_t out = plX_mem_alloc(mem, grid * 256 * 4, "out");
  plX_stats st;
  struct timespec t0, t1;
  clock_gettime(CLOCK_MONOTONIC, &t0);
  CHECK(run_loop(&b, mem, grid, n, out, &st) == 0);
  clock_gettime(CLOCK_MONOTONIC, &t1);
  double s = (double)(t1.tv_sec - t0.tv_sec) + (double)(t1.tv_nsec - t0.tv_nsec) * 1e-9;
  printf("emulator: %.0f thread-instructions (%.0f warp-instructions) in %.3f s: %.1f M "
         "thread-instructions/s\n",
         (double)st.thread_insns, (double)st.warp_insns, s, (double)st.thread_insns / s / 1e6);
  plX_mem_free(mem);
  end(&b);
}

int main(void) {
  test_memory();
  test_loop();
  test_unsupported();
  if (getenv("PTXLUA_BENCH")) bench();
  return check_done("test_emu");
}
