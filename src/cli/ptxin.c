/* ptxin.c -- the PTX-in options of the ptxlua command: --from-ptx, --lint, --diff.
** plM_ptxin looks for them first; with none of them it leaves the command line to main.c. */
#include "ptxin.h"
#include "parse.h"
#include "sugar.h"
#include "isa.h"
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

static char *slurp(const char *path, size_t *n) {
  FILE *f = fopen(path, "rb");
  if (!f) return NULL;
  plB_buf b;
  plB_buf_init(&b);
  char tmp[1 << 16];
  size_t k;
  while ((k = fread(tmp, 1, sizeof tmp, f)) > 0) plB_buf_add(&b, tmp, k);
  int bad = ferror(f) || b.oom;
  fclose(f);
  if (bad) {
    plB_buf_free(&b);
    return NULL;
  }
  *n = b.n;
  plB_buf_cstr(&b);
  return b.p ? b.p : calloc(1, 1);
}

static plI_module *load(plA_ctx *isa, const char *path) {
  size_t n;
  char *t = slurp(path, &n);
  if (!t) {
    fprintf(stderr, "%s: error: cannot read the file\n", path);
    return NULL;
  }
  plB_buf err;
  plB_buf_init(&err);
  plI_module *m = plP_parse(isa, t, n, path, &err);
  free(t);
  if (!m) fprintf(stderr, "%s\n", plB_buf_cstr(&err));
  plB_buf_free(&err);
  return m;
}

static int write_out(const char *path, const plB_buf *b) {
  if (!path) return fwrite(b->p ? b->p : "", 1, b->n, stdout) == b->n ? 0 : 1;
  size_t n = strlen(path);
  char *tmp = malloc(n + 16);
  if (!tmp) return 1;
  snprintf(tmp, n + 16, "%s.tmp%ld", path, (long)getpid());
  FILE *f = fopen(tmp, "wb");
  int ok = f && fwrite(b->p ? b->p : "", 1, b->n, f) == b->n;
  if (f && fclose(f) != 0) ok = 0;
  if (ok && rename(tmp, path) != 0) ok = 0;
  if (!ok) {
    remove(tmp);
    fprintf(stderr, "%s: error: cannot write\n", path);
  }
  free(tmp);
  return ok ? 0 : 1;
}

/* the stem of a path: dir/foo.ptx -> foo */
static void stem(const char *path, char *out, size_t cap) {
  const char *s = strrchr(path, '/');
  s = s ? s + 1 : path;
  snprintf(out, cap, "%s", s);
  char *dot = strrchr(out, '.');
  if (dot && dot != out) *dot = 0;
}

int plM_ptxin(int argc, char **argv, int *handled) {
  const char *from = NULL, *lint = NULL, *da = NULL, *db = NULL, *name = NULL, *out = NULL;
  int sugar = 0;
  *handled = 0;
  for (int i = 1; i < argc; i++) {
    const char *a = argv[i];
    if (strcmp(a, "--from-ptx") == 0 && i + 1 < argc)
      from = argv[++i];
    else if (strcmp(a, "--lint") == 0 && i + 1 < argc)
      lint = argv[++i];
    else if (strcmp(a, "--diff") == 0 && i + 2 < argc) {
      da = argv[++i];
      db = argv[++i];
    }
  }
  if (!from && !lint && !da) return 0;
  *handled = 1;
  for (int i = 1; i < argc; i++) {
    const char *a = argv[i];
    if (strcmp(a, "--from-ptx") == 0 || strcmp(a, "--lint") == 0)
      i++;
    else if (strcmp(a, "--diff") == 0)
      i += 2;
    else if (strcmp(a, "--name") == 0 && i + 1 < argc)
      name = argv[++i];
    else if (strcmp(a, "-o") == 0 && i + 1 < argc)
      out = argv[++i];
    else if (strcmp(a, "--sugar") == 0)
      sugar = 1;
    else {
      fprintf(
          stderr,
          "ptxlua: '%s' does not go with --from-ptx, --lint or --diff\n(ptxlua --help for usage)\n",
          a);
      return 2;
    }
  }
  if (!!from + !!lint + !!da > 1) {
    fprintf(stderr, "ptxlua: give one of --from-ptx, --lint, --diff\n");
    return 2;
  }
  if (sugar && !from) {
    fprintf(stderr, "ptxlua: --sugar goes with --from-ptx\n(ptxlua --help for usage)\n");
    return 2;
  }
  plA_ctx *isa = plA_new();
  if (!isa) {
    fprintf(stderr, "ptxlua: out of memory\n");
    return 1;
  }
  int rc = 0;
  plB_buf b;
  plB_buf_init(&b);
  if (from) {
    plI_module *m = load(isa, from);
    if (!m)
      rc = 1;
    else {
      char nm[256];
      if (name)
        snprintf(nm, sizeof nm, "%s", name);
      else
        stem(from, nm, sizeof nm);
      const char *base = strrchr(from, '/');
      if (sugar) {
        /* the sugared script, checked by running it; what it keeps as written is said on stderr */
        plB_buf notes;
        plB_buf_init(&notes);
        rc =
            plP_to_sugar(m, from, nm, out ? out : "sugar.lua", &b, &notes) ? 1 : write_out(out, &b);
        fputs(plB_buf_cstr(&notes), stderr);
        plB_buf_free(&notes);
      } else
        rc = plP_to_lua(m, base ? base + 1 : from, nm, &b) ? 1 : write_out(out, &b);
      plI_free(m);
    }
  } else if (lint) {
    plI_module *m = load(isa, lint);
    if (!m)
      rc = 1;
    else {
      int n = plP_lint(m, lint, &b);
      fputs(plB_buf_cstr(&b), stderr);
      rc = n ? 1 : 0;
      plI_free(m);
    }
  } else {
    plI_module *a = load(isa, da), *c = a ? load(isa, db) : NULL;
    if (!a || !c)
      rc = 2;
    else {
      int n = plP_diff(a, c, da, db, &b);
      fputs(plB_buf_cstr(&b), stdout);
      rc = n ? 1 : 0;
    }
    plI_free(a);
    plI_free(c);
  }
  plB_buf_free(&b);
  plA_unref(isa);
  return rc;
}
