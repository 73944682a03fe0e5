/* main.c -- the ptxlua command: print a kernel script's PTX (the REPL and runtime come later).
** A thin shell over the public API; exit 0 ok, 1 an error in the script or kernel, 2 bad usage. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include "ptxlua.h"
#include "engine.h"
#include "parse.h"
#include "parse_sugar.h"
#include "compile.h"
#include "runtime.h"
#include "repl.h"

static const char *USAGE =
  "usage: ptxlua FILE.lua [options]\n"
  "       ptxlua --from-ptx FILE.ptx [--sugar] [--name NAME] [-o OUT.lua] | --lint FILE.ptx | --diff A.ptx B.ptx\n"
  "       ptxlua                (no arguments: the interactive session, docs/repl.md)\n"
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
  "  --check              (without a list) assemble every kernel (nvJitLink or ptxas) and report registers,\n"
  "                       shared memory, stack, spills and warnings; errors at the script's lines\n"
  "  --json               with --check: the report as JSON\n"
  "  --max-spills N       with --check: exit 1 when a kernel spills more than N bytes (stores + loads)\n"
  "  --no-cache           with --check: do not use the cubin cache\n"
  "  --clear-cache        empty the cubin cache ($PTXLUA_CACHE_DIR, $XDG_CACHE_HOME/ptxlua, ~/.cache/ptxlua)\n"
  "  --doctor             say whether the CUDA toolkit and driver are usable, and why not\n"
  "  --from-ptx FILE.ptx  write a Lua script that prints FILE.ptx back byte for byte (-o OUT.lua)\n"
  "  --sugar              with --from-ptx: an editable DSL script (docs/transpiler.md); it says which\n"
  "                       lines it keeps as written, and why\n"
  "  --lint FILE.ptx      check PTX against the ISA table: file:line:col: error: ... (exit 1 on errors)\n"
  "  --diff A.ptx B.ptx   instruction-level diff of two PTX files\n"
  "  --help               this text\n"
  "  --version            the version\n";

/* runs a sugared script for --from-ptx --sugar, which checks that it prints the file back */
static int sugar_run(const char *chunk, const char *text, size_t n, plU_buf *ptx, plU_buf *err) {
  ptxlua_engine *e = ptxlua_open();
  if (!e) { plU_buf_puts(err, "out of memory"); return 1; }
  int rc = ptxlua_load_string(e, chunk, text, n);
  if (!rc) {
    char *o = NULL; size_t len = 0;
    rc = ptxlua_ptx(e, NULL, 0, &o, &len);
    if (!rc && o) plU_buf_add(ptx, o, len);
    ptxlua_free(o);
  }
  if (rc) plU_buf_puts(err, ptxlua_errmsg(e));
  ptxlua_close(e);
  return rc;
}

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

/* -o FILE with --print-ptx: the text traced once, written to FILE (atomically) and to stdout */
typedef struct { const char *p; size_t n; } ptx_text;
static int fill_text(void *ud, FILE *f) { ptx_text *t = (ptx_text *)ud; return fwrite(t->p, 1, t->n, f) == t->n ? 0 : 1; }

static int fail(ptxlua_engine *e, int rc) {
  fprintf(stderr, "%s\n", ptxlua_errmsg(e));
  show_line(ptxlua_errfile(e), ptxlua_errline(e));
  ptxlua_close(e);
  return rc == PTXLUA_MISUSE ? 2 : 1;
}

/* "races,uninit-regs": a list for --check with --emulate (anything else after --check is not) */
static int is_check_list(const char *s) {
  char buf[256];
  if (!*s || strlen(s) >= sizeof buf) return 0;
  snprintf(buf, sizeof buf, "%s", s);
  for (char *tok = strtok(buf, ","); tok; tok = strtok(NULL, ","))
    if (strcmp(tok, "races") && strcmp(tok, "uninit-shared") && strcmp(tok, "uninit-regs") && strcmp(tok, "all")) return 0;
  return 1;
}

/* one screen: which step of finding the toolkit and the driver holds, and why not */
static int doctor(void) {
  const plC_toolkit *t = plC_toolkit_get();
  printf("%-22s %s\n", "ptxas runs", t->ptxas[0] ? t->ptxas_version : "no");
  if (t->ptxas[0]) printf("  at: %s\n", t->ptxas); else printf("  why: %s\n", t->ptxas_why);
  if (t->nvjitlink[0]) printf("%-22s yes (%d.%d)\n  at: %s\n", "nvJitLink loads", t->nvj_major, t->nvj_minor, t->nvjitlink);
  else printf("%-22s no\n  why: %s\n", "nvJitLink loads", t->nvjitlink_why[0] ? t->nvjitlink_why : "not found");
  printf("%-22s %s\n", "toolkit found", t->ptxas[0] || t->nvjitlink[0] ? "yes (assembling works)" : "no (--check cannot assemble)");
  char dir[4096];
  if (plC_cache_dir(dir, sizeof dir) == 0) printf("%-22s %s\n", "cubin cache", dir);
  int rc = plR_doctor(stdout);
  printf("%s\n", rc ? "no GPU use here: printing, --check and --emulate work; launching on a CUDA device does not"
                     : "ready: kernels can be assembled and launched");
  return 0;
}

static int clear_cache(void) {
  char err[512], dir[4096] = "?";
  plC_cache_dir(dir, sizeof dir);
  int n = plC_cache_clear(err, sizeof err);
  if (n < 0) { fprintf(stderr, "ptxlua: error: %s\n", err); return 1; }
  printf("removed %d cache entr%s from %s\n", n, n == 1 ? "y" : "ies", dir);
  return 0;
}

int main(int argc, char **argv) {
  plR_set_runner(sugar_run);
  { int handled, prc = plR_main(argc, argv, &handled); if (handled) return prc; }  /* PTX in: parse_cli.c */
  const char *file = NULL, *out = NULL, *arch = NULL;
  int flags = 0, print = 0, emulate = 0, checks = 0, assemble = 0, json = 0, nocache = 0;
  long max_spills = -1;
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
    else if (strcmp(a, "--doctor") == 0) return doctor();
    else if (strcmp(a, "--clear-cache") == 0) return clear_cache();
    else if (strcmp(a, "--json") == 0) json = 1;
    else if (strcmp(a, "--no-cache") == 0) nocache = 1;
    else if (strcmp(a, "--max-spills") == 0 || strncmp(a, "--max-spills=", 13) == 0) {
      const char *v = a[12] == '=' ? a + 13 : (++i < argc ? argv[i] : NULL);
      char *end;
      if (!v || !*v || (max_spills = strtol(v, &end, 10), *end) || max_spills < 0) return usage_error("--max-spills needs a number of bytes, got '%s'", v ? v : "");
    }
    else if (strcmp(a, "--check") == 0 && (i + 1 >= argc || !is_check_list(argv[i + 1]))) assemble = 1;  /* no list: assemble */
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
  if (!file && argc == 1) {  /* no script and no other action: the REPL (src/repl.c) */
    ptxlua_engine *re = ptxlua_open();
    if (!re) { fprintf(stderr, "ptxlua: out of memory\n"); return 1; }
    int rrc = plX_repl(re);
    ptxlua_close(re);
    return rrc;
  }
  if (!file) { fputs(USAGE, stderr); return 2; }
  if (checks && !emulate) return usage_error("--check LIST goes with --emulate%s", "");
  if ((json || max_spills >= 0 || nocache) && !assemble) return usage_error("--json, --max-spills and --no-cache go with --check%s", "");
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
  if (assemble) {
    char *report = NULL;
    rc = ptxlua_check(e, *kernels ? kernels : NULL, (json ? PTXLUA_JSON : 0) | (nocache ? PTXLUA_NO_CACHE : 0), &report);
    if (report) { fputs(report, stdout); fflush(stdout); ptxlua_free(report); }
    if (rc) return fail(e, rc);
    int over = 0;
    for (int k = 0; max_spills >= 0 && k < ptxlua_resource_count(e); k++) {
      const ptxlua_resources *r = ptxlua_resource(e, k);
      if (r->spill_stores + r->spill_loads > max_spills) {
        fprintf(stderr, "ptxlua: error: kernel %s spills %ld bytes (%ld stored, %ld loaded), more than --max-spills %ld\n",
                r->kernel, r->spill_stores + r->spill_loads, r->spill_stores, r->spill_loads, max_spills);
        over = 1;
      }
    }
    if (over || (!emulate && !out && !print)) { ptxlua_close(e); return over; }
  }
  if (emulate) {
    char *summary = NULL;
    rc = ptxlua_emulate(e, *kernels ? kernels : NULL, checks, &summary);
    if (rc) return fail(e, rc);
    fputs(summary, stdout);
    fflush(stdout);
    ptxlua_free(summary);
  }
  if (out && print) {                 /* -o with --print-ptx: both, from one trace */
    char *txt = NULL;
    size_t len = 0;
    rc = ptxlua_ptx(e, *kernels ? kernels : NULL, flags, &txt, &len);
    if (rc) return fail(e, rc);
    ptx_text t = {txt, len};
    char err[4400];
    rc = plE_write_atomic(out, fill_text, &t, err, sizeof err);
    if (rc == 0 && (fwrite(txt, 1, len, stdout) != len || fflush(stdout) != 0)) {
      snprintf(err, sizeof err, "ptxlua: error: writing the PTX to standard output failed");
      rc = PTXLUA_IO;
    }
    ptxlua_free(txt);
    if (rc) { fprintf(stderr, "%s\n", err); ptxlua_close(e); return rc == PTXLUA_MISUSE ? 2 : 1; }
    ptxlua_close(e);
    return 0;
  }
  if (out) {
    rc = ptxlua_write_ptx(e, *kernels ? kernels : NULL, flags, out);
    if (rc) return fail(e, rc);
  }
  if (!out && (!emulate || print)) {  /* --emulate alone prints no PTX */
    rc = ptxlua_fwrite_ptx(e, *kernels ? kernels : NULL, flags, stdout);
    if (rc) return fail(e, rc);
  }
  ptxlua_close(e);
  return 0;
}
