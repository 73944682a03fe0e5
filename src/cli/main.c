/* main.c -- the ptxlua command: print a kernel script's PTX (the REPL and runtime come later).
** A thin shell over the public API; exit 0 ok, 1 an error in the script or kernel, 2 bad usage. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>
#include <sys/stat.h>
#include "ptxlua.h"
#include "engine.h"
#include "parse.h"
#include "ptxin.h"
#include "sugar.h"
#include "compile.h"
#include "driver.h"
#include "repl.h"

static const char *USAGE =
    "usage: ptxlua FILE.lua [options]\n"
    "       ptxlua --from-ptx FILE.ptx [--sugar] [--name NAME] [-o OUT.lua] | --lint FILE.ptx | "
    "--diff A.ptx B.ptx\n"
    "       ptxlua                (no arguments: the interactive session, docs/repl.md)\n"
    "\n"
    "Runs a kernel script and prints the PTX of the kernels it defines.\n"
    "\n"
    "options:\n"
    "  --print-ptx          print the PTX to standard output (the default without -o; with -o, "
    "both)\n"
    "  -o FILE              write the PTX to FILE (atomically: a failed run leaves FILE as it "
    "was)\n"
    "  --arch SM            target for every kernel (sm_80, sm_90a, sm_100a, ...); native: the "
    "GPU's\n"
    "                       (its compute capability, asked of the CUDA driver)\n"
    "  -D NAME=VALUE        set a template parameter (repeatable)\n"
    "  --kernel NAME        only this kernel (repeatable)\n"
    "  --anchors[=MODE]     mark each instruction with its script line: comment (default) or loc\n"
    "  --emulate            run the kernels in the CPU emulator on generated inputs and summarize; "
    "a\n"
    "                       kernel's declared sizes and reference: compared, exit 1 on a mismatch\n"
    "  --limit N            with --emulate: the budget of warp instructions per launch (default\n"
    "                       100000000; none: no budget); past it, or at Ctrl-C, the run stops "
    "naming\n"
    "                       where each warp is. Given, it also runs what the cost estimate "
    "refuses\n"
    "  --clc MODE           with --emulate: which clusterlaunchcontrol.try_cancel requests "
    "succeed:\n"
    "                       all (the default), none (the fallback path) or alternate\n"
    "  --check LIST         with --emulate, also check: races, uninit-shared, uninit-regs or all "
    "(comma\n"
    "                       separated, '_' or '-'); the next word is a LIST when it holds only "
    "names and\n"
    "                       commas (no '.', '/' or leading '-'), as --check=LIST always is\n"
    "  --check              (without a list) assemble every kernel (nvJitLink or ptxas) and report "
    "registers,\n"
    "                       shared memory, stack, spills and warnings; errors at the script's "
    "lines\n"
    "  --json               with --check: the report as JSON\n"
    "  --max-spills N       with --check: exit 1 when a kernel spills more than N bytes (stores + "
    "loads)\n"
    "  --no-cache           with --check: do not use the cubin cache\n"
    "  --clear-cache        empty the cubin cache ($PTXLUA_CACHE_DIR, $XDG_CACHE_HOME/ptxlua, "
    "~/.cache/ptxlua)\n"
    "  --emit-c DIR         write DIR/NAME.h and DIR/NAME.c: each kernel's cubin embedded, a "
    "typed\n"
    "                       launcher per kernel, only the CUDA driver needed at run time (NAME: "
    "the\n"
    "                       script's name; docs/interop.md)\n"
    "  --emit-name NAME     with --emit-c: the prefix of the generated names (a C identifier)\n"
    "  --doctor             say whether the CUDA toolkit and driver are usable, and why not\n"
    "  --from-ptx FILE.ptx  write a Lua script that prints FILE.ptx back byte for byte (-o "
    "OUT.lua)\n"
    "  --sugar              with --from-ptx: an editable DSL script (docs/transpiler.md); it says "
    "which\n"
    "                       lines it keeps as written, and why\n"
    "  --lint FILE.ptx      check PTX against the ISA table: file:line:col: error: ... (exit 1 on "
    "errors)\n"
    "  --diff A.ptx B.ptx   instruction-level diff of two PTX files\n"
    "  --help               this text\n"
    "  --version            the version\n";

/* calls require(mod).fn(arg) in L (arg: a boolean, or none when < 0); 0, or the error on the
** stack */
static int call_in(lua_State *L, const char *mod, const char *fn, int arg) {
  lua_getglobal(L, "require");
  lua_pushstring(L, mod);
  if (plE_pcall(L, 1, 1)) return 1;
  lua_getfield(L, -1, fn);
  lua_remove(L, -2);
  if (arg >= 0) lua_pushboolean(L, arg);
  return plE_pcall(L, arg >= 0 ? 1 : 0, 1);
}

/* runs the check script of --from-ptx --sugar (src/ptx/sugar.c): its functions' lines as traced
** (ptxlua.sugar's check_canon), without anchors */
static int sugar_run(const char *chunk, const char *text, size_t n, plB_buf *ptx, plB_buf *err) {
  /* PTXLUA_SUGAR_CHECK=FILE: the check script of the last round there (how much the check traces:
  ** tests/spec/sugar_scale_spec.lua, docs/performance.md) */
  const char *dump = getenv("PTXLUA_SUGAR_CHECK");
  if (dump && *dump) {
    FILE *f = fopen(dump, "wb");
    if (f) {
      if (n) fwrite(text, 1, n, f);
      fclose(f);
    }
  }
  ptxlua_engine *e = ptxlua_open();
  if (!e) {
    plB_buf_puts(err, "out of memory");
    return 1;
  }
  lua_State *L = plE_lua(e);
  int rc = call_in(L, "ptxlua.core", "sugar_check", 1);
  if (rc) {
    plB_buf_puts(err, lua_isstring(L, -1) ? lua_tostring(L, -1) : "error");
    ptxlua_close(e);
    return rc;
  }
  lua_pop(L, 1);
  rc = ptxlua_load_string(e, chunk, text, n);
  if (rc)
    plB_buf_puts(err, ptxlua_errmsg(e));
  else if (call_in(L, "ptxlua.sugar", "check_canon", -1)) {
    plB_buf_puts(err, lua_isstring(L, -1) ? lua_tostring(L, -1) : "error");
    rc = 1;
  } else {
    size_t len = 0;
    const char *o = lua_tolstring(L, -1, &len);
    if (o) plB_buf_add(ptx, o, len);
  }
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
typedef struct {
  const char *p;
  size_t n;
} ptx_text;
static int fill_text(void *ud, FILE *f) {
  ptx_text *t = (ptx_text *)ud;
  return fwrite(t->p, 1, t->n, f) == t->n ? 0 : 1;
}

static int fail(ptxlua_engine *e, int rc) {
  fprintf(stderr, "%s\n", ptxlua_errmsg(e));
  show_line(ptxlua_errfile(e), ptxlua_errline(e));
  ptxlua_close(e);
  return rc == PTXLUA_MISUSE ? 2 : 1;
}

/* "races,uninit-regs": the word after --check is its list when it can only be one: names and
** commas, no '.' or '/' (which a script's name has) and no leading '-' (an option). Decided by
** the word's form alone, never by whether its names are known: a misspelt check is reported, not
** taken for a script. */
static int looks_like_list(const char *s) {
  if (!*s || *s == '-') return 0;
  for (; *s; s++)
    if (!((*s >= 'a' && *s <= 'z') || (*s >= 'A' && *s <= 'Z') || (*s >= '0' && *s <= '9') ||
          *s == '_' || *s == '-' || *s == ','))
      return 0;
  return 1;
}

/* the flag of one check name (len bytes at p), 0 when unknown; both spellings: uninit-regs as the
** command's help writes it, uninit_regs as the Lua API's checks table does */
static int check_flag(const char *p, size_t len) {
  static const struct {
    const char *name;
    int flag;
  } NAMES[] = {
    { "races", PTXLUA_CHECK_RACES },
    { "uninit-shared", PTXLUA_CHECK_UNINIT_SHARED },
    { "uninit-regs", PTXLUA_CHECK_UNINIT_REGS },
    { "all", PTXLUA_CHECK_RACES | PTXLUA_CHECK_UNINIT_SHARED | PTXLUA_CHECK_UNINIT_REGS },
  };
  for (size_t i = 0; i < sizeof NAMES / sizeof *NAMES; i++) {
    const char *n = NAMES[i].name;
    if (strlen(n) != len) continue;
    size_t j = 0;
    while (j < len && (p[j] == n[j] || (p[j] == '_' && n[j] == '-'))) j++;
    if (j == len) return NAMES[i].flag;
  }
  return 0;
}

/* the checks of a list into *checks; 2 with the usage message printed when a name is unknown */
static int parse_checks(const char *l, int *checks) {
  for (const char *p = l;;) {
    const char *q = strchr(p, ',');
    size_t n = q ? (size_t)(q - p) : strlen(p);
    int f = check_flag(p, n);
    if (!f) {
      fprintf(stderr, "ptxlua: ");
      if (n)
        fprintf(stderr, "unknown check '%.*s'", (int)(n > 200 ? 200 : n), p);
      else
        fprintf(stderr, "an empty name in the check list '%.200s'", l);
      fprintf(stderr, " (races, uninit-shared, uninit-regs, all)");
      if (!q && p == l && access(l, F_OK) == 0)
        fprintf(stderr, "; '%.200s' is a file: a script goes before --check", l);
      fprintf(stderr, "\n(ptxlua --help for usage)\n");
      return 2;
    }
    *checks |= f;
    if (!q) return 0;
    p = q + 1;
  }
}

/* a word given where a script goes that reads as an option's value: what it was probably meant
** as */
static const char *value_hint(const char *a, char *buf, size_t n) {
  const char *eq = strchr(a, '=');
  int ident = eq && eq > a && !(a[0] >= '0' && a[0] <= '9');
  for (const char *c = a; ident && c < eq; c++)
    if (!((*c >= 'a' && *c <= 'z') || (*c >= 'A' && *c <= 'Z') || (*c >= '0' && *c <= '9') ||
          *c == '_'))
      ident = 0;
  if (ident)
    snprintf(buf, n, "did you mean -D %.200s?", a);
  else if (strncmp(a, "sm_", 3) == 0 && a[3] >= '0' && a[3] <= '9' && !strchr(a, '.'))
    snprintf(buf, n, "did you mean --arch %.200s?", a);
  else if (looks_like_list(a)) {
    for (const char *p = a;;) {
      const char *q = strchr(p, ',');
      if (!check_flag(p, q ? (size_t)(q - p) : strlen(p))) return NULL;
      if (!q) break;
      p = q + 1;
    }
    snprintf(buf, n, "a check list goes right after --check: --emulate --check %.200s", a);
  } else
    return NULL;
  return buf;
}

/* does -o name the script itself (or any .lua file: the output is PTX)? */
static int same_file(const char *a, const char *b) {
  struct stat sa, sb;
  return stat(a, &sa) == 0 && stat(b, &sb) == 0 && sa.st_dev == sb.st_dev && sa.st_ino == sb.st_ino;
}

static int ends_with(const char *s, const char *suffix) {
  size_t n = strlen(s), k = strlen(suffix);
  return n >= k && strcmp(s + n - k, suffix) == 0;
}

/* one screen: which step of finding the toolkit and the driver holds, and why not */
static int doctor(void) {
  const plC_toolkit *t = plC_toolkit_get();
  printf("%-22s %s\n", "ptxas runs", t->ptxas[0] ? t->ptxas_version : "no");
  if (t->ptxas[0])
    printf("  at: %s\n", t->ptxas);
  else
    printf("  why: %s\n", t->ptxas_why);
  if (t->nvjitlink[0])
    printf("%-22s yes (%d.%d)\n  at: %s\n", "nvJitLink loads", t->nvj_major, t->nvj_minor,
           t->nvjitlink);
  else
    printf("%-22s no\n  why: %s\n", "nvJitLink loads",
           t->nvjitlink_why[0] ? t->nvjitlink_why : "not found");
  printf("%-22s %s\n", "toolkit found",
         t->ptxas[0] || t->nvjitlink[0] ? "yes (assembling works)"
                                        : "no (--check cannot assemble)");
  char dir[4096];
  if (plC_cache_dir(dir, sizeof dir) == 0) printf("%-22s %s\n", "cubin cache", dir);
  int rc = plC_doctor(stdout);
  printf("%s\n", rc ? "no GPU use here: printing, --check and --emulate work; launching on a CUDA "
                      "device does not"
                    : "ready: kernels can be assembled and launched");
  return 0;
}

static int clear_cache(void) {
  char err[512], dir[4096] = "?";
  plC_cache_dir(dir, sizeof dir);
  int n = plC_cache_clear(err, sizeof err);
  if (n < 0) {
    fprintf(stderr, "ptxlua: error: %s\n", err);
    return 1;
  }
  printf("removed %d cache entr%s from %s\n", n, n == 1 ? "y" : "ies", dir);
  return 0;
}

int main(int argc, char **argv) {
  plP_set_runner(sugar_run);
  {
    int handled, prc = plM_ptxin(argc, argv, &handled);
    if (handled) return prc;
  } /* PTX in: ptxin.c */
  const char *file = NULL, *out = NULL, *arch = NULL;
  int flags = 0, print = 0, emulate = 0, checks = 0, assemble = 0, json = 0, nocache = 0;
  int limited = 0;                                /* --limit given */
  int clc = -1;                                   /* --clc MODE: PTXLUA_CLC_* */
  const char *emit_dir = NULL, *emit_name = NULL; /* --emit-c DIR, --emit-name NAME */
  uint64_t limit = PTXLUA_LIMIT_DEFAULT;
  long max_spills = -1;
  char kernels[4096] = "";
  const char *defs[256];
  int ndefs = 0;
  const char *lua_value = NULL, *lua_opt = NULL; /* an option's value that names a .lua file */
  char hint[512];
  for (int i = 1; i < argc; i++) {
    const char *a = argv[i];
    if (strcmp(a, "--help") == 0 || strcmp(a, "-h") == 0) {
      fputs(USAGE, stdout);
      return 0;
    }
    if (strcmp(a, "--version") == 0) {
      printf("ptxlua %s\n", ptxlua_version());
      return 0;
    }
    if (strcmp(a, "--print-ptx") == 0)
      print = 1;
    else if (strcmp(a, "-o") == 0) {
      if (++i >= argc) return usage_error("%s needs a file name", a);
      const char *v = argv[i];
      if (v[0] == '-')
        return usage_error(
            "-o needs a file name, got '%s' (a file whose name starts with '-': write ./NAME)", v);
      if (out) {
        fprintf(stderr, "ptxlua: -o given twice ('%s', then '%s')\n(ptxlua --help for usage)\n",
                out, v);
        return 2;
      }
      if (ends_with(v, ".lua")) {
        lua_value = v;
        lua_opt = "-o";
      }
      out = v;
    } else if (strcmp(a, "--arch") == 0 || strncmp(a, "--arch=", 7) == 0) {
      const char *v = a[6] == '=' ? a + 7 : (++i < argc ? argv[i] : NULL);
      if (!v || !*v || (v[0] == '-' && a[6] != '='))
        return usage_error("--arch needs a target (sm_80, sm_90a, sm_100a, ...), got '%s'",
                           v ? v : "");
      if (ends_with(v, ".lua")) {
        lua_value = v;
        lua_opt = "--arch";
      }
      arch = v;
    } else if (strcmp(a, "-D") == 0 || (strncmp(a, "-D", 2) == 0 && a[2])) {
      const char *d = a[2] ? a + 2 : (++i < argc ? argv[i] : NULL);
      if (!d) return usage_error("%s needs NAME=VALUE", a);
      const char *eq = strchr(d, '=');
      if (!eq || eq == d) return usage_error("-D expects NAME=VALUE, got '%s'", d);
      int ident = !(d[0] >= '0' && d[0] <= '9');
      for (const char *c = d; ident && c < eq; c++)
        if (!((*c >= 'a' && *c <= 'z') || (*c >= 'A' && *c <= 'Z') || (*c >= '0' && *c <= '9') ||
              *c == '_'))
          ident = 0;
      if (!ident)
        return usage_error(
            "-D expects NAME=VALUE with NAME a template's name (letters, digits, '_'), got '%s'",
            d);
      if (ndefs == 256) return usage_error("too many -D options%s", "");
      defs[ndefs++] = d;
    } else if (strcmp(a, "--kernel") == 0 || strncmp(a, "--kernel=", 9) == 0) {
      const char *k = a[8] == '=' ? a + 9 : (++i < argc ? argv[i] : NULL);
      if (!k || !*k) return usage_error("%s needs a kernel name", a);
      if (k[0] == '-' || strchr(k, '/') || ends_with(k, ".lua"))
        return usage_error("--kernel needs the name of a kernel the script defines, got '%s'", k);
      if (strlen(kernels) + strlen(k) + 2 >= sizeof kernels)
        return usage_error("too many kernels%s", "");
      if (*kernels) strcat(kernels, ",");
      strcat(kernels, k);
    } else if (strcmp(a, "--emit-c") == 0 || strncmp(a, "--emit-c=", 9) == 0) {
      const char *v = a[8] == '=' ? a + 9 : (++i < argc ? argv[i] : NULL);
      if (!v || !*v || (v[0] == '-' && a[8] != '='))
        return usage_error("--emit-c needs a directory, got '%s'", v ? v : "");
      if (ends_with(v, ".lua")) {
        lua_value = v;
        lua_opt = "--emit-c";
      }
      emit_dir = v;
    } else if (strcmp(a, "--emit-name") == 0 || strncmp(a, "--emit-name=", 12) == 0) {
      const char *v = a[11] == '=' ? a + 12 : (++i < argc ? argv[i] : NULL);
      if (!v || !*v) return usage_error("--emit-name needs a name (a C identifier)%s", "");
      emit_name = v;
    } else if (strcmp(a, "--emulate") == 0)
      emulate = 1;
    else if (strcmp(a, "--limit") == 0 || strncmp(a, "--limit=", 8) == 0) { /* N, or none */
      const char *v = a[7] == '=' ? a + 8 : (++i < argc ? argv[i] : NULL);
      if (!v) return usage_error("--limit needs a number of warp instructions (or none)%s", "");
      if (strcmp(v, "none") == 0)
        limit = PTXLUA_LIMIT_NONE;
      else {
        int digits = *v != 0;
        for (const char *c = v; *c; c++)
          if (*c < '0' || *c > '9') digits = 0;
        char *end;
        unsigned long long n = digits ? strtoull(v, &end, 10) : 0;
        if (!digits || n == 0 || n >= PTXLUA_LIMIT_NONE)
          return usage_error("--limit needs a positive number of warp instructions (or none), "
                             "got '%s'",
                             v);
        limit = n;
      }
      limited = 1;
    } else if (strcmp(a, "--clc") == 0 || strncmp(a, "--clc=", 6) == 0) {
      const char *v = a[5] == '=' ? a + 6 : (++i < argc ? argv[i] : NULL);
      clc = !v                            ? -1
            : strcmp(v, "all") == 0       ? PTXLUA_CLC_ALL
            : strcmp(v, "none") == 0      ? PTXLUA_CLC_NONE
            : strcmp(v, "alternate") == 0 ? PTXLUA_CLC_ALTERNATE
                                          : -1;
      if (clc < 0)
        return usage_error("--clc needs all, none or alternate, got '%s'", v ? v : "nothing");
    } else if (strcmp(a, "--doctor") == 0)
      return doctor();
    else if (strcmp(a, "--clear-cache") == 0)
      return clear_cache();
    else if (strcmp(a, "--json") == 0)
      json = 1;
    else if (strcmp(a, "--no-cache") == 0)
      nocache = 1;
    else if (strcmp(a, "--max-spills") == 0 || strncmp(a, "--max-spills=", 13) == 0) {
      const char *v = a[12] == '=' ? a + 13 : (++i < argc ? argv[i] : NULL);
      char *end;
      if (!v || !*v || (max_spills = strtol(v, &end, 10), *end) || max_spills < 0)
        return usage_error("--max-spills needs a number of bytes, got '%s'", v ? v : "");
    }
    /* --check LIST (--check=LIST): the word after --check is its list when it reads as one (names
    ** and commas, looks_like_list); otherwise --check stands alone: assemble */
    else if (strcmp(a, "--check") == 0 && (i + 1 >= argc || !looks_like_list(argv[i + 1])))
      assemble = 1;
    else if (strcmp(a, "--check") == 0 || strncmp(a, "--check=", 8) == 0) {
      const char *l = a[7] == '=' ? a + 8 : argv[++i];
      if (!*l) return usage_error("%s needs a list: races, uninit-shared, uninit-regs, all", a);
      if (parse_checks(l, &checks)) return 2;
    } else if (strcmp(a, "--anchors") == 0 || strcmp(a, "--anchors=comment") == 0)
      flags = PTXLUA_ANCHOR_COMMENTS;
    else if (strcmp(a, "--anchors=loc") == 0)
      flags = PTXLUA_ANCHOR_LOC;
    else if (strncmp(a, "--anchors=", 10) == 0)
      return usage_error("--anchors takes comment or loc, got '%s'", a + 10);
    else if (a[0] == '-' && a[1])
      return usage_error("unknown option '%s'", a);
    else if (!file)
      file = a;
    else { /* two scripts: say which word reads as an option's value, if one does */
      const char *h = value_hint(a, hint, sizeof hint);
      if (h) {
        fprintf(stderr,
                "ptxlua: more than one script given ('%s'): %s\n(ptxlua --help for usage)\n", a, h);
        return 2;
      }
      if ((h = value_hint(file, hint, sizeof hint))) {
        fprintf(stderr, "ptxlua: '%s' is not a script: %s\n(ptxlua --help for usage)\n", file, h);
        return 2;
      }
      return usage_error("more than one script given ('%s')", a);
    }
  }
  if (!file && argc == 1) { /* no script and no other action: the REPL (src/cli/repl.c) */
    ptxlua_engine *re = ptxlua_open();
    if (!re) {
      fprintf(stderr, "ptxlua: out of memory\n");
      return 1;
    }
    int rrc = plM_repl(re);
    ptxlua_close(re);
    return rrc;
  }
  if (!file) {
    if (lua_value) {
      fprintf(stderr,
              "ptxlua: no script given ('%s' is the value of %s)\n(ptxlua --help for usage)\n",
              lua_value, lua_opt);
      return 2;
    }
    fputs(USAGE, stderr);
    return 2;
  }
  if (access(file, F_OK) != 0 && value_hint(file, hint, sizeof hint)) {
    fprintf(stderr, "ptxlua: '%s' is not a script (no such file): %s\n(ptxlua --help for usage)\n",
            file, hint);
    return 2;
  }
  if (out && (ends_with(out, ".lua") || same_file(out, file))) {
    fprintf(stderr,
            "ptxlua: -o %s: %s; the output is PTX (write -o NAME.ptx)\n(ptxlua --help for usage)\n",
            out, same_file(out, file) ? "that is the script itself" : "a .lua name is a script's");
    return 2;
  }
  if (checks && !emulate) return usage_error("--check LIST goes with --emulate%s", "");
  if (limited && !emulate) return usage_error("--limit goes with --emulate%s", "");
  if (clc >= 0 && !emulate) return usage_error("--clc goes with --emulate%s", "");
  if ((json || max_spills >= 0) && !assemble)
    return usage_error("--json and --max-spills go with --check%s", "");
  if (nocache && !assemble && !emit_dir)
    return usage_error("--no-cache goes with --check or --emit-c%s", "");
  if (emit_name && !emit_dir) return usage_error("--emit-name goes with --emit-c%s", "");
  /* --emit-c writes C, nothing else: the name its generated identifiers start with */
  char emit_buf[256];
  if (emit_dir) {
    if (out || print || emulate || assemble)
      return usage_error(
          "--emit-c writes C only: it does not go with -o, --print-ptx, --emulate or --check%s",
          "");
    if (!emit_name) {
      const char *base = strrchr(file, '/');
      base = base ? base + 1 : file;
      size_t n = strlen(base);
      if (ends_with(base, ".lua")) n -= 4;
      snprintf(emit_buf, sizeof emit_buf, "%.*s", (int)(n > 200 ? 200 : n), base);
      emit_name = emit_buf;
    }
    int ok = (emit_name[0] < '0' || emit_name[0] > '9') && *emit_name;
    for (const char *c = emit_name; ok && *c; c++)
      ok = (*c >= 'a' && *c <= 'z') || (*c >= 'A' && *c <= 'Z') || (*c >= '0' && *c <= '9') ||
           *c == '_';
    if (!ok)
      return usage_error("--emit-c: '%s' is no C identifier, and the generated names start with it "
                         "(give one with --emit-name NAME)",
                         emit_name);
  }
  ptxlua_engine *e = ptxlua_open();
  if (!e) {
    fprintf(stderr, "ptxlua: out of memory\n");
    return 1;
  }
  for (int i = 0; i < ndefs; i++) {
    char name[256];
    const char *eq = strchr(defs[i], '=');
    size_t n = (size_t)(eq - defs[i]);
    if (n >= sizeof name) {
      ptxlua_close(e);
      return usage_error("-D name too long: '%s'", defs[i]);
    }
    memcpy(name, defs[i], n);
    name[n] = 0;
    ptxlua_define(e, name, eq + 1);
  }
  if (arch && ptxlua_set_arch(e, arch)) {
    int native = strcmp(arch, "native") == 0; /* no driver or no GPU: not a usage mistake */
    fprintf(stderr, "ptxlua: %s\n%s", ptxlua_errmsg(e),
            native ? "" : "(ptxlua --help for usage)\n");
    ptxlua_close(e);
    return native ? 1 : 2;
  }
  int rc = ptxlua_load_file(e, file);
  if (rc) return fail(e, rc);
  if (emit_dir) {
    rc = ptxlua_emit_c(e, *kernels ? kernels : NULL, nocache ? PTXLUA_NO_CACHE : 0, emit_dir,
                       emit_name, file);
    if (rc) return fail(e, rc);
    ptxlua_close(e);
    return 0;
  }
  if (assemble) {
    char *report = NULL;
    rc = ptxlua_check(e, *kernels ? kernels : NULL,
                      (json ? PTXLUA_JSON : 0) | (nocache ? PTXLUA_NO_CACHE : 0), &report);
    if (report) {
      fputs(report, stdout);
      fflush(stdout);
      ptxlua_free(report);
    }
    if (rc) return fail(e, rc);
    int over = 0;
    for (int k = 0; max_spills >= 0 && k < ptxlua_resource_count(e); k++) {
      const ptxlua_resources *r = ptxlua_resource(e, k);
      if (r->spill_stores + r->spill_loads > max_spills) {
        fprintf(stderr,
                "ptxlua: error: kernel %s spills %ld bytes (%ld stored, %ld loaded), more than "
                "--max-spills %ld\n",
                r->kernel, r->spill_stores + r->spill_loads, r->spill_stores, r->spill_loads,
                max_spills);
        over = 1;
      }
    }
    if (over || (!emulate && !out && !print)) {
      ptxlua_close(e);
      return over;
    }
  }
  if (emulate) {
    char *summary = NULL;
    ptxlua_set_emu_limit(e, limit);
    if (clc >= 0) ptxlua_set_emu_clc(e, clc);
    rc = ptxlua_emulate(e, *kernels ? kernels : NULL, checks, &summary);
    if (summary) { /* also on a mismatch with a reference: what ran, then why */
      fputs(summary, stdout);
      fflush(stdout);
      ptxlua_free(summary);
    }
    if (rc) return fail(e, rc);
  }
  if (out && print) { /* -o with --print-ptx: both, from one trace */
    char *txt = NULL;
    size_t len = 0;
    rc = ptxlua_ptx(e, *kernels ? kernels : NULL, flags, &txt, &len);
    if (rc) return fail(e, rc);
    ptx_text t = { txt, len };
    char err[4400];
    rc = plE_write_atomic(out, fill_text, &t, err, sizeof err);
    if (rc == 0 && (fwrite(txt, 1, len, stdout) != len || fflush(stdout) != 0)) {
      snprintf(err, sizeof err, "ptxlua: error: writing the PTX to standard output failed");
      rc = PTXLUA_IO;
    }
    ptxlua_free(txt);
    if (rc) {
      fprintf(stderr, "%s\n", err);
      ptxlua_close(e);
      return rc == PTXLUA_MISUSE ? 2 : 1;
    }
    ptxlua_close(e);
    return 0;
  }
  if (out) {
    rc = ptxlua_write_ptx(e, *kernels ? kernels : NULL, flags, out);
    if (rc) return fail(e, rc);
  }
  if (!out && (!emulate || print)) { /* --emulate alone prints no PTX */
    rc = ptxlua_fwrite_ptx(e, *kernels ? kernels : NULL, flags, stdout);
    if (rc) return fail(e, rc);
  }
  ptxlua_close(e);
  return 0;
}
