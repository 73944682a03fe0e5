/* parse_bench.c -- the PTX parser's speed, in process: parse MB/s, transpile (--from-ptx, parse
** + Lua writer) MB/s and the round trip (parse + print back + compare) per file, for each file
** given and for a synthetic file made by concatenating them to at least SYN_MB megabytes. Usage:
** parse_bench [-r RUNS] [-s SYN_MB] FILE.ptx... (CPU time, best of RUNS; see bench/README.md) */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include "parse.h"
#include "print.h"
#include "isa.h"

static double cpu(void) {
  struct timespec t;
  clock_gettime(CLOCK_PROCESS_CPUTIME_ID, &t);
  return t.tv_sec + 1e-9 * t.tv_nsec;
}

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

static plA_ctx *isa;
/* best CPU seconds of `runs` repetitions of `reps` parses (+ lua writer / + print and compare) */
static double time_it(const char *t, size_t n, int what, int runs, int reps, int *ok) {
  double best = 1e30;
  *ok = 1;
  for (int k = 0; k < runs; k++) {
    double t0 = cpu();
    for (int j = 0; j < reps; j++) {
      plB_buf err;
      plB_buf_init(&err);
      plI_module *m = plP_parse(isa, t, n, "bench.ptx", &err);
      if (!m) {
        *ok = 0;
        fprintf(stderr, "%s\n", plB_buf_cstr(&err));
        plB_buf_free(&err);
        return 0;
      }
      plB_buf out;
      plB_buf_init(&out);
      if (what == 1) plP_to_lua(m, "bench.ptx", "bench", &out);
      if (what == 2) {
        int r = plI_print(m, NULL, &out);
        if (r != 0 || out.n != n || memcmp(out.p ? out.p : "", t, n) != 0) *ok = 0;
      }
      plB_buf_free(&out);
      plB_buf_free(&err);
      plI_free(m);
    }
    double s = (cpu() - t0) / reps;
    if (s < best) best = s;
  }
  return best;
}

static void row(const char *name, const char *t, size_t n, int runs) {
  int reps = n < 100000 ? (int)(2000000 / (n + 1)) + 1 : 1, ok1, ok2, ok3;
  double p = time_it(t, n, 0, runs, reps, &ok1);
  double l = time_it(t, n, 1, runs, reps, &ok2);
  double rt = time_it(t, n, 2, runs, reps, &ok3);
  printf("| %-28s | %10.3f | %9.0f | %13.0f | %12.3f | %-9s |\n", name, n / 1e6,
         ok1 ? n / 1e6 / p : 0.0, ok2 ? n / 1e6 / l : 0.0, rt * 1e3, ok3 ? "identical" : "DIFFERS");
}

int main(int argc, char **argv) {
  int runs = 5;
  double syn = 32;
  int i = 1;
  for (; i < argc && argv[i][0] == '-'; i++) {
    if (!strcmp(argv[i], "-r") && i + 1 < argc)
      runs = atoi(argv[++i]);
    else if (!strcmp(argv[i], "-s") && i + 1 < argc)
      syn = atof(argv[++i]);
    else {
      fprintf(stderr, "usage: parse_bench [-r RUNS] [-s SYN_MB] FILE.ptx...\n");
      return 2;
    }
  }
  if (i >= argc) {
    fprintf(stderr, "usage: parse_bench [-r RUNS] [-s SYN_MB] FILE.ptx...\n");
    return 2;
  }
  isa = plA_new();
  printf("| %-28s | %10s | %9s | %13s | %12s | %-9s |\n", "file", "MB", "parse MB/s",
         "transpile MB/s", "round trip ms", "print-back");
  printf("| %.28s | %.10s | %.9s | %.13s | %.12s | %.9s |\n", "-----------------------------",
         "----------", "---------", "-------------", "------------", "---------");
  plB_buf cat;
  plB_buf_init(&cat);
  for (int k = i; k < argc; k++) {
    size_t n;
    char *t = slurp(argv[k], &n);
    if (!t) {
      fprintf(stderr, "parse_bench: cannot read %s\n", argv[k]);
      return 1;
    }
    const char *b = strrchr(argv[k], '/');
    row(b ? b + 1 : argv[k], t, n, runs);
    plB_buf_add(&cat, t, n);
    free(t);
  }
  /* synthetic: the files concatenated until SYN_MB (functions repeat: not valid PTX, parsed the
  ** same) */
  size_t one = cat.n;
  char *first = one ? malloc(one) : NULL;
  if (first) memcpy(first, cat.p, one);
  while (first && cat.n < (size_t)(syn * 1e6)) plB_buf_add(&cat, first, one);
  free(first);
  if (cat.n) {
    char nm[64];
    snprintf(nm, sizeof nm, "synthetic (%d files)", argc - i);
    row(nm, cat.p, cat.n, runs < 3 ? runs : 3);
  }
  plB_buf_free(&cat);
  plA_unref(isa);
  return 0;
}
