/* test_parse.c -- the PTX parser: byte-identical print-back (corpus, when present), error
** positions, hostile input (truncated, binary, deeply nested, huge tokens), and its speed. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <dirent.h>
#include <sys/stat.h>
#include "parse.h"
#include "print.h"
#include "isa.h"
#include "check.h"
#include "fixture.h"

static plA_ctx *isa;

static char *slurp(const char *path, size_t *n) {
  FILE *f = fopen(path, "rb");
  if (!f) return NULL;
  fseek(f, 0, SEEK_END);
  long len = ftell(f);
  fseek(f, 0, SEEK_SET);
  char *p = malloc((size_t)len + 1);
  if (p && fread(p, 1, (size_t)len, f) != (size_t)len) {
    free(p);
    p = NULL;
  }
  fclose(f);
  if (p) {
    p[len] = 0;
    *n = (size_t)len;
  }
  return p;
}

/* parse and print back: 1 identical, 0 different, -1 parse error (message in err) */
static int roundtrip(const char *text, size_t n, const char *name, plB_buf *err) {
  plI_module *m = plP_parse(isa, text, n, name, err);
  if (!m) return -1;
  plB_buf out;
  plB_buf_init(&out);
  int r = plI_print(m, NULL, &out);
  int same = r == 0 && out.n == n && memcmp(out.p ? out.p : "", text, n) == 0;
  plB_buf_free(&out);
  plI_free(m);
  return same;
}

static int nfiles, nsame;
static void walk(const char *dir) {
  DIR *d = opendir(dir);
  if (!d) return;
  struct dirent *e;
  while ((e = readdir(d))) {
    if (e->d_name[0] == '.') continue;
    char path[4096];
    snprintf(path, sizeof path, "%s/%s", dir, e->d_name);
    struct stat st;
    if (stat(path, &st) != 0) continue;
    if (S_ISDIR(st.st_mode)) {
      walk(path);
      continue;
    }
    size_t len = strlen(path);
    if (len < 4 || strcmp(path + len - 4, ".ptx") != 0) continue;
    size_t n;
    char *t = slurp(path, &n);
    if (!t) continue;
    plB_buf err;
    plB_buf_init(&err);
    int r = roundtrip(t, n, path, &err);
    nfiles++;
    if (r == 1)
      nsame++;
    else
      fprintf(stderr, "round trip %s: %s\n", path, r < 0 ? plB_buf_cstr(&err) : "differs");
    plB_buf_free(&err);
    free(t);
  }
  closedir(d);
}

static void expect_error(const char *text, const char *want) {
  plB_buf err;
  plB_buf_init(&err);
  plI_module *m = plP_parse(isa, text, strlen(text), "t.ptx", &err);
  CHECK(!m, "expected an error for: %s", text);
  CHECK(strstr(plB_buf_cstr(&err), want) != NULL, "error '%s' does not contain '%s'",
        plB_buf_cstr(&err), want);
  plI_free(m);
  plB_buf_free(&err);
}

/* a small kernel (tests/fixtures/parse/small_kernel.ptx): a comment, a trailing comment, a nested
** block, a label; read in main */
static char *K;

int main(void) {
  K = fixture_text("parse/small_kernel.ptx");
  if (!K) return 1;
  isa = plA_new();
  plB_buf err;
  plB_buf_init(&err);
  /* the structure a small kernel parses into */
  plI_module *m = plP_parse(isa, K, strlen(K), "k.ptx", &err);
  CHECK(m != NULL, "parse: %s", plB_buf_cstr(&err));
  if (m) {
    CHECK(m->version == 85 && m->address_size == 64, "version %d", m->version);
    CHECK(strcmp(plI_cstr(m, m->target), "sm_90a") == 0, "target");
    CHECK(m->funcs.n == 1 && m->funcs.p[0].params.n == 1, "one function, one param");
    int insns = 0, labels = 0;
    for (uint32_t i = 0; i < m->funcs.p[0].stmts.n; i++) {
      insns += m->funcs.p[0].stmts.p[i].kind == PLS_INSN;
      labels += m->funcs.p[0].stmts.p[i].kind == PLS_LABEL;
    }
    CHECK(insns == 6 && labels == 1, "insns %d labels %d", insns, labels);
    plI_free(m);
  }
  CHECK(roundtrip(K, strlen(K), "k.ptx", &err) == 1, "small kernel round trip");
  /* joined directive words, as ptxas takes them (cuda_fp16.hpp's inline asm writes ".reg.b32 f,
  ** C;"): ".reg.b32" is ".reg .b32", ".local.align 8" is ".local .align 8" */
  {
    static const char *J = ".version 8.5\n.target sm_80\n.address_size 64\n.visible .entry j()\n{\n"
                           "\t.local.align 8 .b8 \tbuf[16];\n\t.shared.align 16 .b8 sh[32];\n"
                           "\t{.reg.b32 f, C;\n\t.reg.pred q;\n\tmov.b32 f, 1;\n\tadd.u32 C, f, "
                           "2;\n\tsetp.gt.u32 q, C, f;\n}\n\tret;\n}\n";
    plI_module *mj = plP_parse(isa, J, strlen(J), "j.ptx", &err);
    CHECK(mj != NULL, "joined forms: %s", plB_buf_cstr(&err));
    if (mj) {
      const plI_func *f = &mj->funcs.p[0];
      int b32 = 0, pred = 0;
      for (uint32_t i = 0; i < mj->regs.n; i++) {
        const char *nm = plI_cstr(mj, mj->regs.p[i].name);
        if ((!strcmp(nm, "f") || !strcmp(nm, "C")) && mj->regs.p[i].type == PLT_B32) b32++;
        if (!strcmp(nm, "q") && mj->regs.p[i].type == PLT_PRED) pred++;
      }
      CHECK(b32 == 2 && pred == 1, ".reg.b32 f, C; / .reg.pred q; declare them: %d %d", b32, pred);
      CHECK(f->vars.n == 2 && f->vars.p[0].space == PLV_LOCAL && f->vars.p[0].align == 8 &&
                f->vars.p[0].count == 16 && f->vars.p[1].space == PLV_SHARED &&
                f->vars.p[1].align == 16,
            ".local.align 8 / .shared.align 16");
      /* every operand is a register: f, C and q were declared */
      int bad = 0;
      for (uint32_t i = 0; i < f->stmts.n; i++) {
        const plI_stmt *st = &f->stmts.p[i];
        if (st->kind != PLS_INSN) continue;
        for (uint16_t k = 0; k < st->nops; k++) bad += mj->opnds.p[st->ops + k].kind == PLO_SYM;
      }
      CHECK(bad == 0, "%d operands read as symbols, not registers", bad);
      plI_free(mj);
    }
    CHECK(roundtrip(J, strlen(J), "j.ptx", &err) == 1, "joined forms round trip");
  }
  CHECK(roundtrip("", 0, "e.ptx", &err) == 1, "empty file round trip");
  CHECK(roundtrip("// only a comment", 17, "c.ptx", &err) == 1, "comment-only file");
  /* errors with positions */
  /* a missing ';' is reported after the statement that lacks it, not at the '}' of the next line */
  expect_error(".version 8.5\n.target sm_90a\n.visible .entry k()\n{\n\tret\n}\n",
               "t.ptx:5:5: error: expected ';' before '}'");
  expect_error(".version 8.5\n.target sm_90a\n.visible .entry k()\n{\n\tret // done\n\n}\n",
               "t.ptx:5:13: error: expected ';' before '}'");
  /* an error lines after its statement's start names the start (a declaration that ran on) */
  expect_error(
      ".version 8.5\n.target sm_90a\n.entry k()\n{\n\t.reg .b32 %r<4>\n\tmov.u32 %r1, 1;\n}\n",
      "t.ptx:6:2: error: bad register name (in the statement that starts on line 5)");
  expect_error(".version 8.5\n.target sm_90a\n.entry k()\n{\n\t.reg .b32 %r<4>;\n\tret;\n}\n}\n",
               "t.ptx:8:1: error: unexpected '}' outside a function\0");
  expect_error(".version 8.5\n.target sm_90a\n.entry k()\n{\n\tret;\n", "missing '}'");
  expect_error(".version 8.5\nmov.u32 %r1, 1;\n", "t.ptx:2:1: error: expected a directive");
  expect_error("/* open", "t.ptx:1:1: error: unterminated comment");
  expect_error(".version x\n", "t.ptx:1:10: error: expected a version");
  /* hostile input: every prefix of the kernel, nested blocks, binary, huge tokens */
  for (size_t n = 0; n <= strlen(K); n++) {
    plB_buf e2;
    plB_buf_init(&e2);
    plI_module *mm = plP_parse(isa, K, n, "p.ptx", &e2);
    if (mm)
      CHECK(roundtrip(K, n, "p.ptx", &e2) == 1, "prefix %zu round trip", n);
    else
      CHECK(strncmp(plB_buf_cstr(&e2), "p.ptx:", 6) == 0, "prefix %zu error form: %s", n,
            plB_buf_cstr(&e2));
    plI_free(mm);
    plB_buf_free(&e2);
  }
  {
    plB_buf b;
    plB_buf_init(&b);
    plB_buf_puts(&b, ".version 8.5\n.target sm_90a\n.entry k()\n{\n");
    for (int i = 0; i < 100000; i++) plB_buf_putc(&b, '{');
    plB_buf_puts(&b, "\n}\n");
    plB_buf e2;
    plB_buf_init(&e2);
    plI_module *mm = plP_parse(isa, b.p, b.n, "deep.ptx", &e2);
    CHECK(!mm && strstr(plB_buf_cstr(&e2), "nested deeper"), "deep nesting: %s", plB_buf_cstr(&e2));
    plI_free(mm);
    plB_buf_free(&e2);
    plB_buf_free(&b);
  }
  {
    size_t n = 1 << 20;
    char *bin = malloc(n);
    unsigned x = 12345;
    for (size_t i = 0; i < n; i++) {
      x = x * 1103515245u + 12345u;
      bin[i] = (char)(x >> 16);
    }
    plB_buf e2;
    plB_buf_init(&e2);
    plI_module *mm = plP_parse(isa, bin, n, "bin.ptx", &e2);
    CHECK(!mm, "binary input rejected");
    plI_free(mm);
    plB_buf_free(&e2);
    /* a 4 MB identifier as a function name, an opcode and a register */
    plB_buf b;
    plB_buf_init(&b);
    plB_buf_puts(&b, ".version 8.5\n.target sm_90a\n.entry _Z");
    for (int i = 0; i < (4 << 20); i++) plB_buf_putc(&b, 'a');
    plB_buf_puts(&b, "()\n{\n\t.reg .b32 %r");
    for (int i = 0; i < 5000; i++) plB_buf_putc(&b, 'x');
    plB_buf_puts(&b, "<1000000000>;\n\tmov.b32 %r");
    for (int i = 0; i < 5000; i++) plB_buf_putc(&b, 'x');
    plB_buf_puts(&b, "999999999, 1;\n\tfoo");
    for (int i = 0; i < 100000; i++) plB_buf_puts(&b, ".x");
    plB_buf_puts(&b, " %r;\n}\n");
    CHECK(roundtrip(b.p, b.n, "huge.ptx", &e2) == 1, "huge tokens: %s", plB_buf_cstr(&e2));
    plB_buf_free(&b);
    plB_buf_free(&e2);
    free(bin);
  }
  /* the corpus, when present beside the repository */
  const char *root = getenv("PTXLUA_ROOT");
  char dir[4096];
  snprintf(dir, sizeof dir, "%s/../shared/corpus/pyptx", root ? root : ".");
  struct stat st;
  if (stat(dir, &st) == 0) {
    walk(dir);
    printf("corpus: %d of %d files round-trip byte for byte\n", nsame, nfiles);
    CHECK(nfiles > 0 && nsame == nfiles, "corpus round trip %d/%d", nsame, nfiles);
    /* speed: the largest corpus file, parsed repeatedly */
    size_t n;
    char *t = slurp("../shared/corpus/pyptx/less_slow_sm90a.ptx", &n);
    if (!t) {
      char p2[4200];
      snprintf(p2, sizeof p2, "%s/less_slow_sm90a.ptx", dir);
      t = slurp(p2, &n);
    }
    if (t) {
      plB_buf big;
      plB_buf_init(&big);
      while (big.n < (32u << 20)) plB_buf_add(&big, t, n);
      /* one module of many copies is not valid PTX (functions twice) but parses the same way */
      struct timespec t0, t1;
      clock_gettime(CLOCK_MONOTONIC, &t0);
      plI_module *mm = plP_parse(isa, big.p, big.n, "big.ptx", &err);
      clock_gettime(CLOCK_MONOTONIC, &t1);
      double s = (double)(t1.tv_sec - t0.tv_sec) + 1e-9 * (double)(t1.tv_nsec - t0.tv_nsec);
      printf("parse: %.1f MB in %.3f s = %.0f MB/s\n", big.n / 1e6, s, big.n / 1e6 / s);
      CHECK(mm != NULL, "big parse: %s", plB_buf_cstr(&err));
      plI_free(mm);
      plB_buf_free(&big);
      free(t);
    }
  } else
    printf("corpus: absent (%s), skipped\n", dir);
  plB_buf_free(&err);
  plA_unref(isa);
  free(K);
  return check_done("test_parse");
}
