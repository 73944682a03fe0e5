/* compile.c -- PTX -> cubin with no GPU: nvJitLink in process, else the ptxas binary; resource
** reports parsed from their logs; a disk cache keyed by SHA-256 of everything that shapes the
** cubin. */
#define _GNU_SOURCE /* dladdr, mkstemps */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <errno.h>
#include <dlfcn.h>
#include <dirent.h>
#include <fcntl.h>
#include <pthread.h>
#include <spawn.h>
#include <unistd.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include "compile.h"
#include "sha256.h"

extern char **environ;

/* ---- nvJitLink, declared here (its header is not needed to build) ---------------------------- */
typedef void *nvJitLinkHandle;
enum { NVJITLINK_SUCCESS = 0, NVJITLINK_INPUT_PTX = 2 };
typedef int (*nvjCreate_t)(nvJitLinkHandle *, uint32_t, const char **);
typedef int (*nvjDestroy_t)(nvJitLinkHandle *);
typedef int (*nvjAddData_t)(nvJitLinkHandle, int, const void *, size_t, const char *);
typedef int (*nvjComplete_t)(nvJitLinkHandle);
typedef int (*nvjSize_t)(nvJitLinkHandle, size_t *);
typedef int (*nvjGetBin_t)(nvJitLinkHandle, void *);
typedef int (*nvjGetLog_t)(nvJitLinkHandle, char *);
typedef int (*nvjVersion_t)(unsigned *, unsigned *);

static struct {
  nvjCreate_t create;
  nvjDestroy_t destroy;
  nvjAddData_t add;
  nvjComplete_t complete;
  nvjSize_t cubin_size;
  nvjGetBin_t cubin;
  nvjSize_t err_size;
  nvjGetLog_t err;
  nvjSize_t info_size;
  nvjGetLog_t info;
} NVJ;

static plC_toolkit TK;
static pthread_once_t TK_ONCE = PTHREAD_ONCE_INIT;

static int is_exec(const char *p) {
  struct stat st;
  return stat(p, &st) == 0 && S_ISREG(st.st_mode) && access(p, X_OK) == 0;
}

static int find_ptxas(char *out, size_t n) {
  const char *e = getenv("PTXLUA_PTXAS");
  if (e && *e) {
    snprintf(out, n, "%s", e);
    return is_exec(out);
  }
  const char *homes[] = { getenv("CUDA_HOME"), getenv("CUDA_PATH") };
  for (int i = 0; i < 2; i++)
    if (homes[i] && *homes[i]) {
      snprintf(out, n, "%s/bin/ptxas", homes[i]);
      if (is_exec(out)) return 1;
    }
  const char *path = getenv("PATH");
  if (path) {
    const char *p = path;
    while (*p) {
      const char *q = strchr(p, ':');
      size_t len = q ? (size_t)(q - p) : strlen(p);
      if (len && len < 4000) {
        snprintf(out, n, "%.*s/ptxas", (int)len, p);
        if (is_exec(out)) return 1;
      }
      if (!q) break;
      p = q + 1;
    }
  }
  snprintf(out, n, "/usr/local/cuda/bin/ptxas");
  return is_exec(out);
}

static int try_nvj(const char *path) {
  void *h = dlopen(path, RTLD_NOW | RTLD_LOCAL);
  if (!h) {
    const char *e = dlerror();
    size_t l = strlen(TK.nvjitlink_why);
    if (l < sizeof TK.nvjitlink_why - 8)
      snprintf(TK.nvjitlink_why + l, sizeof TK.nvjitlink_why - l, "%s%s", l ? "; " : "",
               e ? e : path);
    return 0;
  }
#define SYM(f, t, s)                                                                  \
  if (!(NVJ.f = (t)dlsym(h, s))) {                                                    \
    snprintf(TK.nvjitlink_why, sizeof TK.nvjitlink_why, "%s: no symbol %s", path, s); \
    dlclose(h);                                                                       \
    return 0;                                                                         \
  }
  SYM(create, nvjCreate_t, "nvJitLinkCreate")
  SYM(destroy, nvjDestroy_t, "nvJitLinkDestroy")
  SYM(add, nvjAddData_t, "nvJitLinkAddData")
  SYM(complete, nvjComplete_t, "nvJitLinkComplete")
  SYM(cubin_size, nvjSize_t, "nvJitLinkGetLinkedCubinSize")
  SYM(cubin, nvjGetBin_t, "nvJitLinkGetLinkedCubin")
  SYM(err_size, nvjSize_t, "nvJitLinkGetErrorLogSize")
  SYM(err, nvjGetLog_t, "nvJitLinkGetErrorLog")
  SYM(info_size, nvjSize_t, "nvJitLinkGetInfoLogSize")
  SYM(info, nvjGetLog_t, "nvJitLinkGetInfoLog")
#undef SYM
  nvjVersion_t ver = (nvjVersion_t)dlsym(h, "nvJitLinkVersion");
  unsigned ma = 0, mi = 0;
  if (ver && ver(&ma, &mi) == 0) {
    TK.nvj_major = (int)ma;
    TK.nvj_minor = (int)mi;
  }
  if (path[0] == '/')
    snprintf(TK.nvjitlink, sizeof TK.nvjitlink, "%s", path);
  else { /* found on the library path: say where */
    Dl_info di;
    if (dladdr((void *)NVJ.create, &di) && di.dli_fname)
      snprintf(TK.nvjitlink, sizeof TK.nvjitlink, "%s", di.dli_fname);
    else
      snprintf(TK.nvjitlink, sizeof TK.nvjitlink, "%s", path);
  }
  TK.nvjitlink_why[0] = 0;
  return 1;
}

static void tk_init(void) {
  if (find_ptxas(TK.ptxas, sizeof TK.ptxas)) {
    char *argv[] = { TK.ptxas, "--version", NULL };
    char *out = NULL;
    size_t n = 0;
    int rc = plC_run(argv, &out, &n);
    const char *v = out ? strstr(out, ", V") : NULL;
    if (rc == 0 && v) {
      v += 2;
      size_t k = strcspn(v, "\r\n");
      snprintf(TK.ptxas_version, sizeof TK.ptxas_version, "%.*s", (int)(k < 100 ? k : 100), v);
    } else {
      snprintf(TK.ptxas_why, sizeof TK.ptxas_why, "%s --version failed (exit %d)", TK.ptxas, rc);
      TK.ptxas[0] = 0;
    }
    free(out);
  } else {
    snprintf(TK.ptxas_why, sizeof TK.ptxas_why,
             "ptxas not found ($PTXLUA_PTXAS, $CUDA_HOME/bin, PATH, /usr/local/cuda/bin)");
    TK.ptxas[0] = 0;
  }
  const char *forced = getenv("PTXLUA_NVJITLINK");
  if (forced && *forced) {
    try_nvj(forced);
    return;
  }
  char cand[8][4200];
  int nc = 0;
  const char *homes[] = { getenv("CUDA_HOME"), getenv("CUDA_PATH") };
  for (int i = 0; i < 2; i++)
    if (homes[i] && *homes[i] && strlen(homes[i]) < 4000) {
      snprintf(cand[nc++], sizeof cand[0], "%s/lib64/libnvJitLink.so", homes[i]);
      snprintf(cand[nc++], sizeof cand[0], "%s/targets/x86_64-linux/lib/libnvJitLink.so", homes[i]);
    }
  if (TK.ptxas[0]) {
    char dir[4096];
    snprintf(dir, sizeof dir, "%s", TK.ptxas);
    char *s = strrchr(dir, '/');
    if (s) {
      *s = 0;
      snprintf(cand[nc++], sizeof cand[0], "%s/../lib64/libnvJitLink.so", dir);
      snprintf(cand[nc++], sizeof cand[0], "%s/../targets/x86_64-linux/lib/libnvJitLink.so", dir);
    }
  }
  snprintf(cand[nc++], sizeof cand[0], "/usr/local/cuda/lib64/libnvJitLink.so");
  for (int i = 0; i < nc; i++)
    if (access(cand[i], R_OK) == 0 && try_nvj(cand[i])) return;
  if (try_nvj("libnvJitLink.so")) return;
  if (try_nvj("libnvJitLink.so.13")) return;
  try_nvj("libnvJitLink.so.12");
}

const plC_toolkit *plC_toolkit_get(void) {
  pthread_once(&TK_ONCE, tk_init);
  return &TK;
}

/* ---- running a program --------------------------------------------------------------------- */
int plC_run(char *const argv[], char **out, size_t *outlen) {
  *out = NULL;
  *outlen = 0;
  int fds[2];
  if (pipe(fds) != 0) return -1;
  posix_spawn_file_actions_t fa;
  posix_spawn_file_actions_init(&fa);
  posix_spawn_file_actions_adddup2(&fa, fds[1], 1);
  posix_spawn_file_actions_adddup2(&fa, fds[1], 2);
  posix_spawn_file_actions_addclose(&fa, fds[0]);
  posix_spawn_file_actions_addclose(&fa, fds[1]);
  posix_spawn_file_actions_addopen(&fa, 0, "/dev/null", O_RDONLY, 0);
  pid_t pid;
  int rc = posix_spawn(&pid, argv[0], &fa, NULL, argv, environ);
  posix_spawn_file_actions_destroy(&fa);
  close(fds[1]);
  if (rc != 0) {
    close(fds[0]);
    errno = rc;
    return -1;
  }
  size_t cap = 4096, n = 0;
  char *buf = malloc(cap);
  for (;;) {
    if (buf && n + 1024 > cap) {
      char *nb = realloc(buf, cap * 2);
      if (!nb) {
        free(buf);
        buf = NULL;
      } else {
        buf = nb;
        cap *= 2;
      }
    }
    char tmp[1024];
    ssize_t k = read(fds[0], buf ? buf + n : tmp, buf ? cap - n - 1 : sizeof tmp);
    if (k < 0 && errno == EINTR) continue;
    if (k <= 0) break;
    if (buf) n += (size_t)k;
  }
  close(fds[0]);
  int st;
  while (waitpid(pid, &st, 0) < 0)
    if (errno != EINTR) {
      free(buf);
      return -1;
    }
  if (buf) {
    buf[n] = 0;
    *out = buf;
    *outlen = n;
  }
  return WIFEXITED(st) ? WEXITSTATUS(st) : 128 + (WIFSIGNALED(st) ? WTERMSIG(st) : 0);
}

/* ---- log parsing ----------------------------------------------------------------------------- */
static plC_func *func_named(plC_result *r, const char *name) {
  for (int i = 0; i < r->nf; i++)
    if (strcmp(r->f[i].name, name) == 0) return &r->f[i];
  plC_func *nf = realloc(r->f, sizeof *nf * (size_t)(r->nf + 1));
  if (!nf) return NULL;
  r->f = nf;
  plC_func *f = &r->f[r->nf++];
  memset(f, 0, sizeof *f);
  snprintf(f->name, sizeof f->name, "%s", name);
  return f;
}

static void quoted(const char *s, char *out, size_t n) { /* the first 'name' in s */
  out[0] = 0;
  const char *a = strchr(s, '\'');
  if (!a) return;
  const char *b = strchr(a + 1, '\'');
  if (!b) return;
  snprintf(out, n, "%.*s", (int)(b - a - 1), a + 1);
}

static long num_before(const char *s, const char *what) { /* "12 bytes stack frame" -> 12 */
  const char *p = strstr(s, what);
  if (!p) return 0;
  while (p > s && p[-1] == ' ') p--;
  while (p > s && p[-1] >= '0' && p[-1] <= '9') p--;
  return atol(p);
}

int plC_parse_log(const char *log, plC_result *r) {
  char cur[256] = "";
  const char *p = log ? log : "";
  while (*p) {
    size_t len = strcspn(p, "\n");
    char line[2048];
    snprintf(line, sizeof line, "%.*s", (int)(len < sizeof line - 1 ? len : sizeof line - 1), p);
    p += len + (p[len] == '\n');
    size_t l = strlen(line);
    while (l && (line[l - 1] == '\r' || line[l - 1] == ' ')) line[--l] = 0;
    if (!l) continue;
    const char *s = line;
    char *sev = NULL;
    int is_err = 0, is_warn = 0, is_info = 0;
    if ((sev = strstr(line, "error   :")) || (sev = strstr(line, "fatal   :")))
      is_err = 1;
    else if ((sev = strstr(line, "warning :")))
      is_warn = 1;
    else if ((sev = strstr(line, "info    :")))
      is_info = 1;
    /* ptxas says some costly things as info: "(C7504) Potential Performance Loss: 'setmaxnreg'
    ** ignored", "(C7512) ... wgmma.mma_async instructions are serialized": the user sees them as
    ** warnings */
    if (is_info && strstr(sev, "Potential Performance Loss")) is_info = 0, is_warn = 1;
    if (is_info) {
      const char *m = sev + 9;
      while (*m == ' ') m++;
      if (strncmp(m, "Compiling entry function", 24) == 0 ||
          strncmp(m, "Function properties for", 23) == 0 ||
          strncmp(m, "Compiling function", 18) == 0) {
        if (strncmp(m, "Function properties for ", 24) == 0)
          snprintf(cur, sizeof cur, "%s", m + 24);
        else
          quoted(m, cur, sizeof cur);
        if (cur[0] && !func_named(r, cur)) return -1;
      } else if (strncmp(m, "Used ", 5) == 0 && cur[0]) {
        plC_func *f = func_named(r, cur);
        if (!f) return -1;
        f->regs = (int)num_before(m, " registers");
        f->barriers = (int)num_before(m, " barriers");
        f->smem = num_before(m, " bytes smem");
        f->cmem0 = num_before(m, " bytes cmem[0]");
      }
      continue;
    }
    if (!is_err && !is_warn) {
      if (strstr(s, "bytes stack frame") && cur[0]) {
        plC_func *f = func_named(r, cur);
        if (!f) return -1;
        f->stack = num_before(s, " bytes stack frame");
        f->spill_st = num_before(s, " bytes spill stores");
        f->spill_ld = num_before(s, " bytes spill loads");
      }
      continue;
    }
    const char *m = sev + 9;
    while (*m == ' ') m++;
    if (is_err && strstr(m, "Ptx assembly aborted due to errors")) continue; /* says nothing new */
    plC_diag *nd = realloc(r->d, sizeof *nd * (size_t)(r->nd + 1));
    if (!nd) return -1;
    r->d = nd;
    plC_diag *d = &r->d[r->nd];
    memset(d, 0, sizeof *d);
    d->error = is_err;
    const char *ln = strstr(line, ", line ");
    if (ln && ln < sev) d->line = atoi(ln + 7);
    if (strstr(m, "function '") || strstr(m, "Function '") || strstr(m, "function  '"))
      quoted(m, d->func, sizeof d->func);
    /* a message that names its PTX line in the text: "... to compile instruction at line 18 in
    ** function heavy." (C7602, too few registers for an instruction) */
    const char *al = d->line ? NULL : strstr(m, " at line ");
    if (al && al[9] >= '0' && al[9] <= '9') {
      d->line = atoi(al + 9);
      const char *fn = strstr(al, " in function ");
      if (fn && !d->func[0]) {
        fn += 13;
        size_t k = 0;
        while (fn[k] && fn[k] != ' ' && fn[k] != '.' && fn[k] != ',' && k + 1 < sizeof d->func) k++;
        memcpy(d->func, fn, k);
        d->func[k] = 0;
      }
    }
    d->msg = strdup(m);
    if (!d->msg) return -1;
    r->nd++;
  }
  return 0;
}

void plC_result_free(plC_result *r) {
  if (!r) return;
  free(r->cubin);
  free(r->f);
  free(r->log);
  for (int i = 0; i < r->nd; i++) free(r->d[i].msg);
  free(r->d);
  memset(r, 0, sizeof *r);
}

/* ---- anchors --------------------------------------------------------------------------------- */
static const char *line_start(const char *ptx, int line) {
  const char *p = ptx;
  for (int i = 1; i < line && p; i++) {
    p = strchr(p, '\n');
    if (p) p++;
  }
  return p;
}

int plC_anchor_of(const char *ptx, int line, char *file, size_t filen, int *fline) {
  if (line < 1) return 0;
  const char *p = line_start(ptx, line);
  if (!p || !*p) return 0;
  size_t len = strcspn(p, "\n");
  const char *c = NULL;
  for (const char *q = p; q + 3 < p + len; q++)
    if (q[0] == '/' && q[1] == '/' && q[2] == ' ') c = q; /* the last "// " */
  if (!c) return 0;
  const char *a = c + 3, *end = p + len;
  const char *colon = NULL;
  for (const char *q = a; q < end; q++)
    if (*q == ':') colon = q;
  if (!colon || colon + 1 >= end || colon[1] < '0' || colon[1] > '9') return 0;
  snprintf(file, filen, "%.*s", (int)(colon - a), a);
  *fline = atoi(colon + 1);
  return 1;
}

void plC_func_at(const char *ptx, int line, char *name, size_t n) {
  name[0] = 0;
  const char *p = ptx;
  for (int i = 1; p && *p && i <= line; i++) {
    const char *e = strstr(p, ".entry ");
    const char *f = strstr(p, ".func ");
    size_t len = strcspn(p, "\n");
    const char *h = e && e < p + len ? e + 7 : f && f < p + len ? f + 6 : NULL;
    if (h) {
      while (*h == ' ') h++;
      if (*h == '(') {
        h = strchr(h, ')');
        h = h ? h + 1 : "";
        while (*h == ' ') h++;
      } /* .func (.reg ..) name */
      size_t k = strcspn(h, " (\n");
      snprintf(name, n, "%.*s", (int)k, h);
    }
    p = strchr(p, '\n');
    if (p) p++;
  }
}

/* ---- cache ----------------------------------------------------------------------------------- */
int plC_cache_dir(char *buf, size_t n) {
  const char *d = getenv("PTXLUA_CACHE_DIR");
  if (d && *d) {
    snprintf(buf, n, "%s", d);
    return 0;
  }
  d = getenv("XDG_CACHE_HOME");
  if (d && *d) {
    snprintf(buf, n, "%s/ptxlua", d);
    return 0;
  }
  d = getenv("HOME");
  if (d && *d) {
    snprintf(buf, n, "%s/.cache/ptxlua", d);
    return 0;
  }
  return -1;
}

static int mkdirs(const char *dir) {
  char tmp[4096];
  snprintf(tmp, sizeof tmp, "%s", dir);
  for (char *p = tmp + 1; *p; p++)
    if (*p == '/') {
      *p = 0;
      if (mkdir(tmp, 0755) != 0 && errno != EEXIST) return -1;
      *p = '/';
    }
  return mkdir(tmp, 0755) != 0 && errno != EEXIST ? -1 : 0;
}

/* entry: "PTXLUAC1" | key (64 hex) | log length (8, LE) | cubin length (8, LE) | SHA-256 of the
** bytes after the header (32) | log | cubin. A short, foreign or altered file fails validation. */
#define HDR (8 + 64 + 8 + 8 + 32)
static void put64(uint8_t *p, uint64_t v) {
  for (int i = 0; i < 8; i++) p[i] = (uint8_t)(v >> (8 * i));
}
static uint64_t get64(const uint8_t *p) {
  uint64_t v = 0;
  for (int i = 0; i < 8; i++) v |= (uint64_t)p[i] << (8 * i);
  return v;
}

int plC_entry_encode(const char key[65], const char *log, size_t loglen, const uint8_t *bin,
                     size_t binlen, uint8_t **out, size_t *outlen) {
  size_t n = HDR + loglen + binlen;
  uint8_t *p = malloc(n);
  if (!p) return -1;
  memcpy(p, "PTXLUAC1", 8);
  memcpy(p + 8, key, 64);
  put64(p + 72, loglen);
  put64(p + 80, binlen);
  if (loglen) memcpy(p + HDR, log, loglen);
  if (binlen) memcpy(p + HDR + loglen, bin, binlen);
  plB_sha256(p + HDR, loglen + binlen, p + 88);
  *out = p;
  *outlen = n;
  return 0;
}

int plC_entry_decode(const uint8_t *p, size_t n, const char key[65], const char **log,
                     size_t *loglen, const uint8_t **bin, size_t *binlen) {
  if (n < HDR || memcmp(p, "PTXLUAC1", 8) != 0 || memcmp(p + 8, key, 64) != 0) return -1;
  uint64_t ll = get64(p + 72), bl = get64(p + 80);
  if (ll > n || bl > n || HDR + ll + bl != n) return -1;
  uint8_t d[32];
  plB_sha256(p + HDR, (size_t)(ll + bl), d);
  if (memcmp(d, p + 88, 32) != 0) return -1;
  *log = (const char *)p + HDR;
  *loglen = (size_t)ll;
  *bin = p + HDR + ll;
  *binlen = (size_t)bl;
  return 0;
}

static uint8_t *read_all(const char *path, size_t *n) {
  FILE *f = fopen(path, "rb");
  if (!f) return NULL;
  size_t cap = 65536, len = 0;
  uint8_t *b = malloc(cap);
  while (b) {
    size_t k = fread(b + len, 1, cap - len, f);
    len += k;
    if (len < cap) break;
    uint8_t *nb = realloc(b, cap * 2);
    if (!nb) {
      free(b);
      b = NULL;
      break;
    }
    b = nb;
    cap *= 2;
  }
  fclose(f);
  *n = len;
  return b;
}

static int cache_load(const char *key, plC_result *r) {
  char dir[4096], path[4400];
  if (plC_cache_dir(dir, sizeof dir)) return 0;
  snprintf(path, sizeof path, "%s/%s.cubin", dir, key);
  size_t n;
  uint8_t *p = read_all(path, &n);
  if (!p) return 0;
  const char *log;
  const uint8_t *bin;
  size_t ll, bl;
  int ok = plC_entry_decode(p, n, key, &log, &ll, &bin, &bl) == 0 && bl > 0;
  if (ok) {
    r->log = malloc(ll + 1);
    r->cubin = malloc(bl);
    if (!r->log || !r->cubin)
      ok = 0;
    else {
      memcpy(r->log, log, ll);
      r->log[ll] = 0;
      memcpy(r->cubin, bin, bl);
      r->cubin_len = bl;
    }
  } else
    unlink(path); /* a truncated or foreign entry: never served; rebuilt by this run */
  free(p);
  if (!ok) {
    free(r->log);
    free(r->cubin);
    r->log = NULL;
    r->cubin = NULL;
    r->cubin_len = 0;
  }
  return ok;
}

static void cache_store(const char *key, const plC_result *r) {
  char dir[4096], path[4400], tmp[4500];
  if (plC_cache_dir(dir, sizeof dir) || mkdirs(dir)) return;
  snprintf(path, sizeof path, "%s/%s.cubin", dir, key);
  snprintf(tmp, sizeof tmp, "%s.tmp.XXXXXX", path);
  uint8_t *blob;
  size_t n;
  if (plC_entry_encode(key, r->log ? r->log : "", r->log ? strlen(r->log) : 0, r->cubin,
                       r->cubin_len, &blob, &n))
    return;
  int fd = mkstemp(tmp);
  if (fd < 0) {
    free(blob);
    return;
  }
  size_t off = 0;
  while (off < n) {
    ssize_t k = write(fd, blob + off, n - off);
    if (k < 0 && errno == EINTR) continue;
    if (k <= 0) break;
    off += (size_t)k;
  }
  free(blob);
  int ok = off == n && fsync(fd) == 0;
  if (close(fd) != 0) ok = 0;
  /* rename is atomic: readers see all or nothing */
  if (!ok || (chmod(tmp, 0644), rename(tmp, path)) != 0) unlink(tmp);
}

int plC_cache_clear(char *err, size_t errlen) {
  char dir[4096];
  if (plC_cache_dir(dir, sizeof dir)) {
    snprintf(err, errlen, "no cache directory (set PTXLUA_CACHE_DIR or HOME)");
    return -1;
  }
  DIR *d = opendir(dir);
  if (!d) {
    if (errno == ENOENT) return 0;
    snprintf(err, errlen, "%s: %s", dir, strerror(errno));
    return -1;
  }
  int n = 0;
  struct dirent *de;
  while ((de = readdir(d))) {
    const char *s = de->d_name;
    size_t l = strlen(s);
    if ((l > 6 && strcmp(s + l - 6, ".cubin") == 0) || strstr(s, ".cubin.tmp.")) {
      char path[4400];
      snprintf(path, sizeof path, "%s/%s", dir, s);
      if (unlink(path) == 0) n++;
    }
  }
  closedir(d);
  return n;
}

/* ---- assembling ------------------------------------------------------------------------------ */
int plC_needs_whole(const char *ptx, size_t n) {
  static const char w[] = "setmaxnreg";
  const size_t k = sizeof w - 1;
  for (const char *p = ptx, *e = ptx + n; p && (size_t)(e - p) >= k; p++) {
    p = memchr(p, 's', (size_t)(e - p) - k + 1);
    if (!p) break;
    if (memcmp(p, w, k) == 0) return 1;
  }
  return 0;
}

static int split_opts(const char *extra, char *store, size_t storen, const char **v, int maxv) {
  int n = 0;
  if (!extra) return 0;
  snprintf(store, storen, "%s", extra);
  for (char *t = strtok(store, " \t"); t && n < maxv; t = strtok(NULL, " \t")) v[n++] = t;
  return n;
}

static int via_nvjitlink(const char *ptx, size_t n, const plC_opts *o, plC_result *r, char *err,
                         size_t errlen) {
  char arch[64], store[1024];
  snprintf(arch, sizeof arch, "-arch=%s", o->arch);
  const char *opts[40] = { arch, "-Xptxas=-v" };
  int no = 2 + split_opts(o->extra, store, sizeof store, opts + 2, 30);
  nvJitLinkHandle h = NULL;
  int rc = NVJ.create(&h, (uint32_t)no, opts);
  if (rc != NVJITLINK_SUCCESS) {
    snprintf(err, errlen, "nvJitLinkCreate failed (%d): bad options '%s'?", rc,
             o->extra ? o->extra : "");
    return -1;
  }
  rc = NVJ.add(h, NVJITLINK_INPUT_PTX, ptx, n, "ptx");
  if (rc == NVJITLINK_SUCCESS) rc = NVJ.complete(h);
  size_t il = 0, el = 0;
  NVJ.info_size(h, &il);
  NVJ.err_size(h, &el);
  char *log = malloc(il + el + 2);
  if (!log) {
    NVJ.destroy(&h);
    snprintf(err, errlen, "out of memory");
    return -1;
  }
  log[0] = 0;
  if (el > 1) NVJ.err(h, log);
  size_t k = strlen(log);
  if (il > 1) NVJ.info(h, log + k);
  r->log = log;
  if (rc == NVJITLINK_SUCCESS) {
    size_t cl = 0;
    NVJ.cubin_size(h, &cl);
    r->cubin = malloc(cl ? cl : 1);
    if (r->cubin && cl && NVJ.cubin(h, r->cubin) == NVJITLINK_SUCCESS) {
      r->cubin_len = cl;
      r->ok = 1;
    }
  }
  NVJ.destroy(&h);
  r->via = "nvJitLink";
  return 0;
}

static int via_ptxas(const char *ptx, size_t n, const plC_opts *o, plC_result *r, char *err,
                     size_t errlen) {
  const char *td = getenv("TMPDIR");
  char src[4200], bin[4300], arch[64], store[1024];
  snprintf(src, sizeof src, "%s/ptxlua-XXXXXX.ptx", td && *td ? td : "/tmp");
  int fd = mkstemps(src, 4);
  if (fd < 0) {
    snprintf(err, errlen, "cannot create a temporary file: %s", strerror(errno));
    return -1;
  }
  size_t off = 0;
  while (off < n) {
    ssize_t k = write(fd, ptx + off, n - off);
    if (k <= 0) break;
    off += (size_t)k;
  }
  close(fd);
  if (off != n) {
    unlink(src);
    snprintf(err, errlen, "cannot write a temporary file");
    return -1;
  }
  snprintf(bin, sizeof bin, "%s.cubin", src);
  snprintf(arch, sizeof arch, "-arch=%s", o->arch);
  char *argv[48] = { TK.ptxas, arch, "-v" };
  int na = 3 + split_opts(o->extra, store, sizeof store, (const char **)argv + 3, 36);
  argv[na++] = src;
  argv[na++] = "-o";
  argv[na++] = bin;
  argv[na] = NULL;
  char *out;
  size_t ol;
  int rc = plC_run(argv, &out, &ol);
  unlink(src);
  if (rc < 0) {
    unlink(bin);
    snprintf(err, errlen, "cannot run %s: %s", TK.ptxas, strerror(errno));
    return -1;
  }
  r->log = out ? out : strdup("");
  if (rc == 0) {
    size_t bl;
    uint8_t *b = read_all(bin, &bl);
    if (b && bl) {
      r->cubin = b;
      r->cubin_len = bl;
      r->ok = 1;
    } else
      free(b);
  }
  unlink(bin);
  r->via = "ptxas";
  return 0;
}

int plC_compile(const char *ptx, size_t n, const plC_opts *o, plC_result *r, char *err,
                size_t errlen) {
  memset(r, 0, sizeof *r);
  const plC_toolkit *tk = plC_toolkit_get();
  const char *force =
      getenv("PTXLUA_ASSEMBLER"); /* "ptxas" or "nvjitlink": pick one (tests, doctor) */
  int use_nvj =
      tk->nvjitlink[0] && !(o->flags & PLC_FORCE_PTXAS) && !(force && strcmp(force, "ptxas") == 0);
  /* nvJitLink assembles each input relocatably (as ptxas -c), and ptxas then ignores setmaxnreg
  ** (C7504) and holds every thread to the kernel-wide budget: a warp-specialized kernel that moves
  ** registers to its consumers spills. ptxas assembles whole-program: prefer it for such PTX unless
  ** nvJitLink is asked for by name. */
  if (use_nvj && tk->ptxas[0] && !(force && strcmp(force, "nvjitlink") == 0) &&
      plC_needs_whole(ptx, n))
    use_nvj = 0;
  if (!use_nvj && !tk->ptxas[0]) {
    snprintf(err, errlen, "no PTX assembler: nvJitLink %s; %s",
             tk->nvjitlink[0]       ? "not used"
             : tk->nvjitlink_why[0] ? tk->nvjitlink_why
                                    : "not found",
             tk->ptxas_why);
    return -1;
  }
  /* key: everything that shapes the cubin and the report */
  plB_sha_ctx c;
  plB_sha_init(&c);
  char ver[256];
  if (use_nvj)
    snprintf(ver, sizeof ver, "nvJitLink %d.%d", tk->nvj_major, tk->nvj_minor);
  else
    snprintf(ver, sizeof ver, "ptxas %.100s", tk->ptxas_version);
  const char *parts[] = { "ptxlua-cache-1", o->arch, o->extra ? o->extra : "",
                          o->key_extra ? o->key_extra : "", ver };
  for (int i = 0; i < 5; i++) {
    plB_sha_update(&c, parts[i], strlen(parts[i]) + 1);
  } /* NUL separated */
  plB_sha_update(&c, ptx, n);
  uint8_t d[32];
  plB_sha_final(&c, d);
  plB_sha_hex(d, r->key);
  if (!(o->flags & PLC_NO_CACHE) && cache_load(r->key, r)) {
    r->ok = 1;
    r->cached = 1;
    r->via = use_nvj ? "nvJitLink" : "ptxas";
  } else {
    int rc =
        use_nvj ? via_nvjitlink(ptx, n, o, r, err, errlen) : via_ptxas(ptx, n, o, r, err, errlen);
    if (rc) {
      plC_result_free(r);
      return -1;
    }
    if (r->ok && !(o->flags & PLC_NO_CACHE)) cache_store(r->key, r);
  }
  if (plC_parse_log(r->log, r)) {
    plC_result_free(r);
    snprintf(err, errlen, "out of memory");
    return -1;
  }
  return 0;
}
