/* main.c -- the ptxlua command: print a kernel script's PTX (the REPL and runtime come later).
** A thin shell over the public API; exit 0 ok, 1 an error in the script or kernel, 2 bad usage. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include "ptxlua.h"
#include "engine.h"

static const char *USAGE =
  "usage: ptxlua FILE.lua [options]\n"
  "\n"
  "Runs a kernel script and prints the PTX of the kernels it defines.\n"
  "\n"
  "options:\n"
  "  --print-ptx          print the PTX to standard output (the default without -o; with -o, both)\n"
  "  -o FILE              write the PTX to FILE (atomically: a failed run leaves FILE as it was)\n"
  "  --arch SM            target for every kernel (sm_80, sm_90a, sm_100a, ...)\n"
  "  -D NAME=VALUE        set a template parameter (repeatable)\n"
  "  --kernel NAME        only this kernel (repeatable)\n"
  "  --anchors[=MODE]     mark each instruction with its script line: comment (default) or loc\n"
  "  --emulate            run the kernels in the CPU emulator on generated inputs and summarize\n"
  "  --check LIST         with --emulate, also check: races, uninit-shared, uninit-regs (comma separated)\n"
  "  --help               this text\n"
  "  --version            the version\n";

static int usage_error(const char *fmt, const char *arg) {
  fprintf(stderr, "ptxlua: ");
  fprintf(stderr, fmt, arg);
  fprintf(stderr, "\n(ptxlua --help for usage)\n");
  return 2;
}

/* the offending source line with a caret under its first character */
static void show_line(const char *file, int line) {
  if (!file || line <= 0) return;
  FILE *f = fopen(file, "rb");
  if (!f) return;
  char buf[4096];
  int n = 0;
  while (fgets(buf, sizeof buf, f)) {
    if (++n == line) {
      size_t len = strlen(buf);
      while (len && (buf[len - 1] == '\n' || buf[len - 1] == '\r')) buf[--len] = 0;
      size_t ind = 0;
      while (buf[ind] == ' ' || buf[ind] == '\t') ind++;
      fprintf(stderr, "  %s\n  ", buf);
      for (size_t i = 0; i < ind; i++) fputc(buf[i] == '\t' ? '\t' : ' ', stderr);
      fprintf(stderr, "^\n");
      break;
    }
  }
  fclose(f);
}

static int fail(ptxlua_engine *e, int rc) {
  fprintf(stderr, "%s\n", ptxlua_errmsg(e));
  show_line(ptxlua_errfile(e), ptxlua_errline(e));
  ptxlua_close(e);
  return rc == PTXLUA_MISUSE ? 2 : 1;
}

int main(int argc, char **argv) {
  const char *file = NULL, *out = NULL, *arch = NULL;
  int flags = 0, print = 0, emulate = 0, checks = 0;
  char kernels[4096] = "";
  const char *defs[256];
  int ndefs = 0;
  for (int i = 1; i < argc; i++) {
    const char *a = argv[i];
    if (strcmp(a, "--help") == 0 || strcmp(a, "-h") == 0) { fputs(USAGE, stdout); return 0; }
    if (strcmp(a, "--version") == 0) { printf("ptxlua %s\n", ptxlua_version()); return 0; }
    if (strcmp(a, "--print-ptx") == 0) print = 1;
    else if (strcmp(a, "-o") == 0) { if (++i >= argc) return usage_error("%s needs a file name", a); out = argv[i]; }
    else if (strcmp(a, "--arch") == 0) { if (++i >= argc) return usage_error("%s needs a target", a); arch = argv[i]; }
    else if (strncmp(a, "--arch=", 7) == 0) arch = a + 7;
    else if (strcmp(a, "-D") == 0 || (strncmp(a, "-D", 2) == 0 && a[2])) {
      const char *d = a[2] ? a + 2 : (++i < argc ? argv[i] : NULL);
      if (!d) return usage_error("%s needs NAME=VALUE", a);
      const char *eq = strchr(d, '=');
      if (!eq || eq == d) return usage_error("-D expects NAME=VALUE, got '%s'", d);
      if (ndefs == 256) return usage_error("too many -D options%s", "");
      defs[ndefs++] = d;
    }
    else if (strcmp(a, "--kernel") == 0 || strncmp(a, "--kernel=", 9) == 0) {
      const char *k = a[8] == '=' ? a + 9 : (++i < argc ? argv[i] : NULL);
      if (!k || !*k) return usage_error("%s needs a kernel name", a);
      if (strlen(kernels) + strlen(k) + 2 >= sizeof kernels) return usage_error("too many kernels%s", "");
      if (*kernels) strcat(kernels, ",");
      strcat(kernels, k);
    }
    else if (strcmp(a, "--emulate") == 0) emulate = 1;
    else if (strcmp(a, "--check") == 0 || strncmp(a, "--check=", 8) == 0) {
      const char *l = a[7] == '=' ? a + 8 : (++i < argc ? argv[i] : NULL);
      if (!l || !*l) return usage_error("%s needs a list: races, uninit-shared, uninit-regs", a);
      char buf[256];
      snprintf(buf, sizeof buf, "%s", l);
      for (char *tok = strtok(buf, ","); tok; tok = strtok(NULL, ",")) {
        if (strcmp(tok, "races") == 0) checks |= PTXLUA_CHECK_RACES;
        else if (strcmp(tok, "uninit-shared") == 0) checks |= PTXLUA_CHECK_UNINIT_SHARED;
        else if (strcmp(tok, "uninit-regs") == 0) checks |= PTXLUA_CHECK_UNINIT_REGS;
        else if (strcmp(tok, "all") == 0) checks |= PTXLUA_CHECK_RACES | PTXLUA_CHECK_UNINIT_SHARED | PTXLUA_CHECK_UNINIT_REGS;
        else return usage_error("unknown check '%s' (races, uninit-shared, uninit-regs, all)", tok);
      }
    }
    else if (strcmp(a, "--anchors") == 0 || strcmp(a, "--anchors=comment") == 0) flags = PTXLUA_ANCHOR_COMMENTS;
    else if (strcmp(a, "--anchors=loc") == 0) flags = PTXLUA_ANCHOR_LOC;
    else if (strncmp(a, "--anchors=", 10) == 0) return usage_error("--anchors takes comment or loc, got '%s'", a + 10);
    else if (a[0] == '-' && a[1]) return usage_error("unknown option '%s'", a);
    else if (!file) file = a;
    else return usage_error("more than one script given ('%s')", a);
  }
  if (!file) { fputs(USAGE, stderr); return 2; }
  if (checks && !emulate) return usage_error("--check goes with --emulate%s", "");
  ptxlua_engine *e = ptxlua_open();
  if (!e) { fprintf(stderr, "ptxlua: out of memory\n"); return 1; }
  for (int i = 0; i < ndefs; i++) {
    char name[256];
    const char *eq = strchr(defs[i], '=');
    size_t n = (size_t)(eq - defs[i]);
    if (n >= sizeof name) { ptxlua_close(e); return usage_error("-D name too long: '%s'", defs[i]); }
    memcpy(name, defs[i], n); name[n] = 0;
    ptxlua_define(e, name, eq + 1);
  }
  if (arch && ptxlua_set_arch(e, arch)) {
    fprintf(stderr, "ptxlua: %s\n(ptxlua --help for usage)\n", ptxlua_errmsg(e));
    ptxlua_close(e);
    return 2;
  }
  int rc = ptxlua_load_file(e, file);
  if (rc) return fail(e, rc);
  if (emulate) {
    char *summary = NULL;
    rc = ptxlua_emulate(e, *kernels ? kernels : NULL, checks, &summary);
    if (rc) return fail(e, rc);
    fputs(summary, stdout);
    fflush(stdout);
    ptxlua_free(summary);
  }
  if (out) {
    rc = ptxlua_write_ptx(e, *kernels ? kernels : NULL, flags, out);
    if (rc) return fail(e, rc);
  }
  if ((!out && !emulate) || print) {  /* -o with --print-ptx: both; --emulate alone prints no PTX */
    rc = ptxlua_fwrite_ptx(e, *kernels ? kernels : NULL, flags, stdout);
    if (rc) return fail(e, rc);
  }
  ptxlua_close(e);
  return 0;
}
