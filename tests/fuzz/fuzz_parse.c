/* fuzz_parse.c -- libFuzzer target for the PTX parser: any input parses or fails with a
** positioned error; what parses prints back byte for byte, lints, diffs and becomes Lua. */
#include <stdint.h>
#include <stdlib.h>
#include <string.h>
#include "parse.h"
#include "print.h"
#include "isa.h"

static plA_ctx *isa;

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t n) {
  if (!isa) isa = plA_new();
  plB_buf err;
  plB_buf_init(&err);
  plI_module *m = plP_parse(isa, (const char *)data, n, "fuzz.ptx", &err);
  if (!m) {
    if (strncmp(plB_buf_cstr(&err), "fuzz.ptx:", 9) != 0) abort(); /* every error is positioned */
    plB_buf_free(&err);
    return 0;
  }
  plB_buf out;
  plB_buf_init(&out);
  if (plI_print(m, NULL, &out) != 0 || out.n != n || (n && memcmp(out.p, data, n) != 0)) abort();
  out.n = 0;
  plP_lint(m, "fuzz.ptx", &out);
  out.n = 0;
  plP_diff(m, m, "a", "b", &out);
  out.n = 0;
  plP_to_lua(m, "fuzz.ptx", "fuzz", &out);
  plB_buf_free(&out);
  plB_buf_free(&err);
  plI_free(m);
  return 0;
}
