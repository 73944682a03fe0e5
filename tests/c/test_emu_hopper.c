/* test_emu_hopper.c -- the emulator's Hopper families through its C API, on PTX text read by the
** parser: tensor maps (the encoding's validation), mbarrier phases with transaction counts
** completed by arrivals, a deadlock and an over-arrival at their lines, a 2-CTA cluster reading
** its neighbour's shared memory through mapa. (The parser reads no tensor-address operand yet,
** so TMA and wgmma are tested from the DSL in tests/spec/emu_tma_spec.lua and
** emu_wgmma_spec.lua.) Plain C; exit 1 on a failure. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <math.h>
#include "parse.h"
#include "isa.h"
#include "emu.h"
#include "driver.h"
#include "smem.h"
#include "check.h"
#include "fixture.h"

static plA_ctx *isa;

static plI_module *parse(const char *text) {
  plB_buf err;
  plB_buf_init(&err);
  plI_module *m = plP_parse(isa, text, strlen(text), "k.ptx", &err);
  if (!m || m->status) {
    fprintf(stderr, "parse: %s\n", plB_buf_cstr(&err));
    exit(1);
  }
  plB_buf_free(&err);
  return m;
}

/* the module in tests/fixtures/NAME, parsed as k.ptx */
static plI_module *parse_fixture(const char *name) {
  char *text = fixture_text(name);
  if (!text) exit(1);
  plI_module *m = parse(text);
  free(text);
  return m;
}

static plX_emu *kernel(plI_module *m, plX_mem *mem) {
  plX_emu *e = plX_new(m, 0, mem);
  if (plX_status(e)) fprintf(stderr, "%s\n", plX_error(e));
  return e;
}

static void launch(plX_emu *e, uint32_t gx, uint32_t bx, uint32_t cl) {
  uint32_t g[3] = { gx, 1, 1 }, b[3] = { bx, 1, 1 }, c[3] = { cl, 1, 1 };
  plX_set_launch(e, g, b, 0);
  if (cl) plX_set_cluster(e, c);
}

static void test_tensormap(void) {
  plX_mem *mem = plX_mem_new();
  uint64_t a = plX_mem_alloc(mem, 64 * 64 * 2, "a");
  uint8_t tm[128];
  char err[256];
  uint64_t dims[2] = { 64, 64 }, st[1] = { 128 };
  uint32_t box[2] = { 64, 8 }, es[2] = { 1, 1 };
  CHECK(plX_tensormap(mem, tm, PLB_TM_BF16, 2, a, dims, st, box, es, PLSM_SW_128B, err,
                      sizeof err) == 0);
  CHECK(memcmp(tm, "PLXTMAP1", 8) == 0);
  box[1] = 257;
  CHECK(plX_tensormap(mem, tm, PLB_TM_BF16, 2, a, dims, st, box, es, PLSM_SW_128B, err,
                      sizeof err) != 0);
  CHECK_HAS(err, "box[2] = 257");
  box[1] = 8;
  CHECK(plX_tensormap(mem, tm, PLB_TM_BF16, 2, a, dims, st, box, es, PLSM_SW_32B, err,
                      sizeof err) != 0);
  CHECK_HAS(err, "exceeds the 32-byte span");
  dims[1] = 65;
  CHECK(plX_tensormap(mem, tm, PLB_TM_BF16, 2, a, dims, st, box, es, PLSM_SW_NONE, err,
                      sizeof err) != 0);
  CHECK_HAS(err, "runs past the end of buffer 'a'");
  dims[1] = 64;
  st[0] = 120;
  CHECK(plX_tensormap(mem, tm, PLB_TM_BF16, 2, a, dims, st, box, es, PLSM_SW_NONE, err,
                      sizeof err) != 0);
  CHECK(plX_tensormap(mem, tm, PLB_TM_BF16, 2, a + 8, dims, st, box, es, PLSM_SW_NONE, err,
                      sizeof err) != 0);
  CHECK(plX_tensormap(mem, tm, PLB_TM_BF16, 2, 0x1234560, dims, st, box, es, PLSM_SW_NONE, err,
                      sizeof err) != 0);
  plX_mem_free(mem);
}

/* tests/fixtures/hopper/mbarrier_stuck.ptx: 64 threads arrive on an mbarrier expecting 65 (its
** parameter n); the wait never completes */
static void test_mbarrier(void) {
  plI_module *m = parse_fixture("hopper/mbarrier_stuck.ptx");
  plX_mem *mem = plX_mem_new();
  plX_emu *e = kernel(m, mem);
  uint32_t n = 65;
  launch(e, 1, 64, 0);
  plX_set_param(e, 0, &n, 4);
  CHECK(plX_run(e) != 0);
  CHECK_HAS(plX_error(e), "deadlock in CTA (0,0,0): mbarrier.try_wait.parity.shared::cta.b64 waits "
                          "on the mbarrier at shared 0x0 (initialized at line 13)");
  CHECK_HAS(plX_error(e), "still misses 1 of 65 arrivals");
  plX_clear(e);
  /* completes; then thread 0 arrives 100 times: too many */
  n = 64;
  launch(e, 1, 64, 0);
  plX_set_param(e, 0, &n, 4);
  CHECK(plX_run(e) != 0);
  CHECK_HAS(plX_error(e),
            "mbarrier.arrive.shared::cta.b64: 100 arrivals at the mbarrier at shared 0x0 "
            "(initialized at line 13 for 64 per phase), where only 64 are pending in phase 1");
  plX_free(e);
  plX_mem_free(mem);
  plI_free(m);
}

/* tests/fixtures/hopper/cluster_mapa.ptx: a cluster of 2, each CTA writes its rank into shared
** memory, then reads the other's through mapa */
static void test_cluster(void) {
  plI_module *m = parse_fixture("hopper/cluster_mapa.ptx");
  plX_mem *mem = plX_mem_new();
  uint64_t out = plX_mem_alloc(mem, 6 * 32 * 4, "out");
  plX_emu *e = kernel(m, mem);
  launch(e, 6, 32, 2);
  plX_set_param(e, 0, &out, 8);
  CHECK(plX_run(e) == 0);
  if (plX_status(e)) fprintf(stderr, "%s\n", plX_error(e));
  const uint32_t *o = (const uint32_t *)plX_mem_host(mem, out, NULL);
  int bad = 0;
  for (uint32_t c = 0; c < 6; c++)
    for (uint32_t t = 0; t < 32; t++)
      if (o[c * 32 + t] != (c ^ 1) * 100 + t) bad++;
  CHECK(bad == 0);
  plX_clear(e); /* a grid that is not whole clusters */
  launch(e, 5, 32, 2);
  plX_set_param(e, 0, &out, 8);
  CHECK(plX_run(e) != 0);
  CHECK_HAS(plX_error(e), "not a whole number of clusters");
  plX_free(e);
  plX_mem_free(mem);
  plI_free(m);
}

int main(void) {
  isa = plA_new();
  test_tensormap();
  test_mbarrier();
  test_cluster();
  plA_unref(isa);
  return check_done("test_emu_hopper");
}
