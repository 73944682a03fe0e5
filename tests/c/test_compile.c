/* test_compile.c -- SHA-256 test vectors, cache entry validation, log parsing, anchor lookup. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include "sha256.h"
#include "compile.h"
#include "check.h"

static void hex_of(const char *s, size_t n, char out[65]) {
  uint8_t d[32];
  plB_sha256(s, n, d);
  plB_sha_hex(d, out);
}

int main(void) {
  char h[65];
  /* FIPS 180-4 / NIST vectors */
  hex_of("", 0, h);
  CHECK(strcmp(h, "e3b0c44298fc1c149afbf4c8996fb92427ae41e4649b934ca495991b7852b855") == 0);
  hex_of("abc", 3, h);
  CHECK(strcmp(h, "ba7816bf8f01cfea414140de5dae2223b00361a396177a9cb410ff61f20015ad") == 0);
  const char *m = "abcdbcdecdefdefgefghfghighijhijkijkljklmklmnlmnomnopnopq";
  hex_of(m, strlen(m), h);
  CHECK(strcmp(h, "248d6a61d20638b8e5c026930c3e6039a33ce45964ff2167f6ecedd419db06c1") == 0);
  /* a million 'a', fed in uneven pieces */
  plB_sha_ctx c;
  plB_sha_init(&c);
  char a[997];
  memset(a, 'a', sizeof a);
  size_t left = 1000000;
  while (left) {
    size_t k = left < sizeof a ? left : sizeof a;
    plB_sha_update(&c, a, k);
    left -= k;
  }
  uint8_t d[32];
  plB_sha_final(&c, d);
  plB_sha_hex(d, h);
  CHECK(strcmp(h, "cdc76e5c9914fb9281a1c7e284d73e67f1809a48a497200e046d39ccc7112cd0") == 0);

  /* cache entries: round trip; truncation, a changed byte, a foreign key are all rejected */
  char key[65], other[65];
  hex_of("k", 1, key);
  hex_of("other", 5, other);
  const char *log = "ptxas info    : Used 12 registers";
  uint8_t bin[300];
  for (int i = 0; i < 300; i++) bin[i] = (uint8_t)i;
  uint8_t *e;
  size_t n;
  CHECK(plC_entry_encode(key, log, strlen(log), bin, sizeof bin, &e, &n) == 0);
  const char *l2;
  const uint8_t *b2;
  size_t ll, bl;
  CHECK(plC_entry_decode(e, n, key, &l2, &ll, &b2, &bl) == 0);
  CHECK(ll == strlen(log) && memcmp(l2, log, ll) == 0 && bl == sizeof bin &&
        memcmp(b2, bin, bl) == 0);
  CHECK(plC_entry_decode(e, n - 1, key, &l2, &ll, &b2, &bl) != 0);
  CHECK(plC_entry_decode(e, 50, key, &l2, &ll, &b2, &bl) != 0);
  CHECK(plC_entry_decode(e, n, other, &l2, &ll, &b2, &bl) != 0);
  e[n - 5] ^= 1;
  CHECK(plC_entry_decode(e, n, key, &l2, &ll, &b2, &bl) != 0);
  e[n - 5] ^= 1;
  e[80] ^= 1; /* the cubin length */
  CHECK(plC_entry_decode(e, n, key, &l2, &ll, &b2, &bl) != 0);
  free(e);

  /* logs: ptxas -v and errors */
  plC_result r;
  memset(&r, 0, sizeof r);
  CHECK(
      plC_parse_log(
          "ptxas /tmp/x.ptx, line 16; error   : Unknown symbol 'nosuch'\n"
          "ptxas fatal   : Ptx assembly aborted due to errors\n"
          "ptxas info    : Compiling entry function 'k' for 'sm_90a'\n"
          "ptxas info    : Function properties for k\n"
          "    16 bytes stack frame, 8 bytes spill stores, 4 bytes spill loads\n"
          "ptxas info    : Used 40 registers, used 1 barriers, 1024 bytes smem, 368 bytes cmem[0]\n"
          "ptxas warning : Entry function 'k' uses lots of registers\n",
          &r) == 0);
  CHECK(r.nf == 1 && strcmp(r.f[0].name, "k") == 0 && r.f[0].regs == 40 && r.f[0].barriers == 1);
  CHECK(r.f[0].smem == 1024 && r.f[0].stack == 16 && r.f[0].spill_st == 8 && r.f[0].spill_ld == 4 &&
        r.f[0].cmem0 == 368);
  CHECK(r.nd == 2 && r.d[0].error && r.d[0].line == 16 &&
        strcmp(r.d[0].msg, "Unknown symbol 'nosuch'") == 0);
  CHECK(!r.d[1].error && r.d[1].line == 0 && strcmp(r.d[1].func, "k") == 0);
  plC_result_free(&r);

  /* anchors: PTX line -> script file:line; the function around a line */
  const char *ptx = ".visible .entry k(\n\t.param .u32 n\n)\n{\n\tmov.u32 \t%r1, 0;\t// dir/a "
                    "b.lua:12\n\tret;\n}\n";
  char file[256];
  int line = 0;
  CHECK(plC_anchor_of(ptx, 5, file, sizeof file, &line) == 1 && strcmp(file, "dir/a b.lua") == 0 &&
        line == 12);
  CHECK(plC_anchor_of(ptx, 6, file, sizeof file, &line) == 0);
  CHECK(plC_anchor_of(ptx, 99, file, sizeof file, &line) == 0);
  char fn[64];
  plC_func_at(ptx, 6, fn, sizeof fn);
  CHECK(strcmp(fn, "k") == 0);

  return check_done("test_compile");
}
