/* compile.h -- PTX -> cubin without a GPU: nvJitLink in process (dlopen'ed from the toolkit), else
** the ptxas binary; the resource report parsed from their logs; a content-addressed disk cache. */
#ifndef PL_COMPILE_H
#define PL_COMPILE_H

#include <stddef.h>
#include <stdint.h>

/* resources of one function, as ptxas reports them */
typedef struct plC_func {
  char name[256];
  int regs, barriers;
  long smem, stack, spill_st, spill_ld, cmem0;
} plC_func;

/* one error or warning: line is the PTX line it names (0: none); func the function it names (""
** none) */
typedef struct plC_diag {
  int line, error;
  char func[256];
  char *msg;
} plC_diag;

typedef struct plC_result {
  int ok; /* 1: cubin holds the assembled code */
  uint8_t *cubin;
  size_t cubin_len;
  plC_func *f;
  int nf;
  plC_diag *d;
  int nd;
  char *log;       /* the assembler's messages as it wrote them */
  const char *via; /* "nvJitLink", "ptxas" */
  int cached;      /* served from the disk cache */
  char key[65];    /* the cache key (hex SHA-256) */
} plC_result;

enum { PLC_NO_CACHE = 1, PLC_FORCE_PTXAS = 2 };

typedef struct plC_opts {
  const char *arch; /* "sm_90a" */
  int flags;        /* PLC_* */
  /* extra options to the key and the assembler (space separated), or NULL */
  const char *extra;
  const char *key_extra; /* added to the key only (a driver version when loading), or NULL */
} plC_opts;

/* assemble; returns 0 when the assembler ran (r->ok says whether it accepted the PTX), else -1
** with err set (no assembler found, out of memory) */
int plC_compile(const char *ptx, size_t n, const plC_opts *o, plC_result *r, char *err,
                size_t errlen);
void plC_result_free(plC_result *r);
/* 1 when the PTX needs whole-program assembly (it uses setmaxnreg): nvJitLink's separate
** compilation ignores it; plC_compile then uses ptxas when there is one */
int plC_needs_whole(const char *ptx, size_t n);
/* parse an assembler log into r->f / r->d (appends); 0 ok, -1 out of memory */
int plC_parse_log(const char *log, plC_result *r);

/* the toolkit: found once per process */
typedef struct plC_toolkit {
  char ptxas[4096];        /* "" if not found */
  char ptxas_version[128]; /* "V13.0.88" */
  char ptxas_why[512];
  char nvjitlink[4096]; /* path loaded ("" if none) */
  int nvj_major, nvj_minor;
  char nvjitlink_why[1024];
} plC_toolkit;
const plC_toolkit *plC_toolkit_get(void);

/* the cache directory ($PTXLUA_CACHE_DIR, $XDG_CACHE_HOME/ptxlua, ~/.cache/ptxlua) into buf */
int plC_cache_dir(char *buf, size_t n);
/* remove every entry; returns the number removed, -1 on error (err set) */
int plC_cache_clear(char *err, size_t errlen);
/* cache entries: encode a blob (key, log, cubin) / validate and decode one (0 ok, -1 invalid) */
int plC_entry_encode(const char key[65], const char *log, size_t loglen, const uint8_t *bin,
                     size_t binlen, uint8_t **out, size_t *outlen);
int plC_entry_decode(const uint8_t *p, size_t n, const char key[65], const char **log,
                     size_t *loglen, const uint8_t **bin, size_t *binlen);

/* the text of PTX line `line` (1-based): its "// file:line" anchor into file/fline; 1 found, 0
** not */
int plC_anchor_of(const char *ptx, int line, char *file, size_t filen, int *fline);
/* the function enclosing PTX line `line` ("" if none) */
void plC_func_at(const char *ptx, int line, char *name, size_t n);

/* run a program without a shell; output (stdout and stderr) into *out (malloc'ed). exit status
** or -1 */
int plC_run(char *const argv[], char **out, size_t *outlen);

#endif
