/* fuzz_emu.c -- libFuzzer target for the emulator: any PTX the parser accepts is laid out and run
** (two CTAs of 64 or 128 threads, or the kernel's .reqntid; 64 KB buffers; 227 KB of dynamic shared
** memory; a bounded number of warp instructions; the opt-in checks chosen by the input) on buffers
** of known size. Whatever the kernel does -- out-of-bounds accesses, division by zero, shifts past
** the width, conversions of NaN and infinities, deadlocks, bad operand shapes -- the emulator must
** end with status 0 or an error placed in the input, never a crash, a leak or undefined behaviour
** (the target is built with AddressSanitizer and UBSan). */
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include "parse.h"
#include "isa.h"
#include "emu.h"
#include "driver.h"
#include "smem.h"

static plA_ctx *isa;

/* FNV-1a of the input: picks the checks and the launch shape, so the same input always runs the
** same way */
static uint32_t hash(const uint8_t *p, size_t n) {
  uint32_t h = 2166136261u;
  for (size_t i = 0; i < n; i++) h = (h ^ p[i]) * 16777619u;
  return h;
}

static void positioned(const char *msg) {
  /* an emulator error names its place in the input: "fuzz.ptx:LINE: error: ..." */
  if (!msg || strncmp(msg, "fuzz.ptx:", 9) != 0 || !strstr(msg, ": error: ")) {
    fprintf(stderr, "fuzz_emu: an error without its place: %s\n", msg ? msg : "(null)");
    abort();
  }
}

static void run_one(const plI_module *m, int fi, uint32_t h) {
  plX_mem *mem = plX_mem_new();
  if (!mem) return;
  plX_emu *e = plX_new(m, fi, mem);
  if (!e) {
    plX_mem_free(mem);
    return;
  }
  if (plX_status(e)) {
    positioned(plX_error(e));
    goto done;
  }
  uint64_t buf[3];
  for (int i = 0; i < 3; i++) buf[i] = plX_mem_alloc(mem, 65536, i == 0 ? "a" : i == 1 ? "b" : "c");
  /* a tensor map over buffer a: 32 x 32 bf16, 32 x 32 boxes, the swizzle chosen by the input */
  uint8_t tm[128];
  char err[256];
  const uint64_t dims[2] = { 32, 32 }, strides[1] = { 64 };
  const uint32_t box[2] = { 32, 32 }, es[2] = { 1, 1 };
  const int sw[4] = { PLSM_SW_NONE, PLSM_SW_32B, PLSM_SW_64B, PLSM_SW_128B };
  if (plX_tensormap(mem, tm, PLB_TM_BF16, 2, buf[0], dims, strides, box, es, sw[(h >> 8) & 3], err,
                    sizeof err) &&
      plX_tensormap(mem, tm, PLB_TM_BF16, 2, buf[0], dims, strides, box, es, PLSM_SW_NONE, err,
                    sizeof err))
    abort();
  int np = plX_param_count(e), nptr = 0;
  for (int i = 0; i < np; i++) {
    plX_param p;
    if (plX_param_info(e, i, &p)) abort();
    uint8_t bytes[256];
    if (p.size > sizeof bytes) continue;
    memset(bytes, 0, p.size);
    if (p.size == 128)
      memcpy(bytes, tm, 128);
    else if (p.size == 8) {
      uint64_t v = (h >> 4 & 1) && i % 2 ? 5 : buf[nptr++ % 3];
      memcpy(bytes, &v, 8);
    } else if (p.size == 4) {
      uint32_t v = 3 + (uint32_t)i * 7 % 29;
      memcpy(bytes, &v, 4);
    } else
      for (uint32_t j = 0; j < p.size; j++) bytes[j] = (uint8_t)(h >> (j % 4 * 8));
    if (plX_set_param(e, i, bytes, p.size)) {
      positioned(plX_error(e));
      plX_clear(e);
    }
  }
  const uint32_t grid[3] = { 2, 1, 1 };
  uint32_t block[3] = { (h & 1) ? 128u : 64u, 1, 1 };
  /* a declared block, when it is small */
  const uint32_t *rq = m->funcs.p[fi].reqntid;
  if (rq[0] && (uint64_t)rq[0] * (rq[1] ? rq[1] : 1) * (rq[2] ? rq[2] : 1) <= 384)
    for (int i = 0; i < 3; i++) block[i] = rq[i] ? rq[i] : 1;
  /* a kernel with no extern .shared takes none */
  if (plX_set_launch(e, grid, block, 227 * 1024)) {
    positioned(plX_error(e));
    plX_clear(e);
    if (plX_set_launch(e, grid, block, 0)) {
      positioned(plX_error(e));
      goto done;
    }
  }
  if (h >> 2 & 1) {
    const uint32_t cl[3] = { 2, 1, 1 };
    if (plX_set_cluster(e, cl)) {
      positioned(plX_error(e));
      plX_clear(e);
    }
  }
  plX_set_checks(e, (h >> 12) & 7);
  plX_set_limit(e, 4000);
  if (h >> 3 & 1) plX_set_trace(e, 0, 0, (h >> 5) & 1);
  if (plX_run(e)) positioned(plX_error(e));
  plX_stats s;
  plX_get_stats(e, &s);
  if (h >> 3 & 1) {
    size_t n;
    const char *t = plX_trace_text(e, &n);
    if (!t || strlen(t) != n) abort();
  }
done:
  if (getenv("FUZZ_EMU_VERBOSE"))
    fprintf(stderr, "fuzz_emu: %s\n", plX_status(e) ? plX_error(e) : "ran to the end");
  plX_free(e);
  plX_mem_free(mem);
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t n) {
  if (!isa) isa = plA_new();
  plB_buf err;
  plB_buf_init(&err);
  plI_module *m = plP_parse(isa, (const char *)data, n, "fuzz.ptx", &err);
  plB_buf_free(&err);
  if (!m) return 0;
  if (!m->status) {
    uint32_t h = hash(data, n);
    int runs = 0;
    for (size_t f = 0; f < m->funcs.n && runs < 2; f++)
      if (!m->funcs.p[f].declared_only && m->funcs.p[f].kind == PLF_ENTRY) {
        run_one(m, (int)f, h);
        runs++;
      }
  }
  plI_free(m);
  return 0;
}
