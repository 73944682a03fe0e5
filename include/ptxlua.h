/* ptxlua.h -- the public C API of ptxlua: load a kernel script, set its template parameters,
** and get its PTX. One opaque engine handle; integer result codes; the last error's message
** and the script file:line it points at are kept on the handle until the next call on it. */
#ifndef PTXLUA_H
#define PTXLUA_H

#include <stddef.h>
#include <stdio.h>

#ifdef __cplusplus
extern "C" {
#endif

#if defined(__GNUC__)
#define PTXLUA_API __attribute__((visibility("default")))
#else
#define PTXLUA_API
#endif

#define PTXLUA_VERSION_STRING "0.1.0"

/* result codes */
enum {
  PTXLUA_OK = 0,
  PTXLUA_ERROR = 1,    /* an error in the script or kernel: see ptxlua_errmsg */
  PTXLUA_NOMEM = 2,
  PTXLUA_IO = 3,       /* reading or writing a file failed */
  PTXLUA_MISUSE = 4    /* a bad argument to the API itself */
};

/* flags for the PTX text */
enum {
  PTXLUA_ANCHOR_COMMENTS = 1, /* "// file:line" after each instruction */
  PTXLUA_ANCHOR_LOC = 2       /* .file / .loc directives (profilers and ptxas point at the script) */
};

typedef struct ptxlua_engine ptxlua_engine;

PTXLUA_API const char *ptxlua_version(void);

/* an engine: one Lua state with the DSL loaded; NULL on out of memory */
PTXLUA_API ptxlua_engine *ptxlua_open(void);
PTXLUA_API void ptxlua_close(ptxlua_engine *e);          /* NULL is a no-op */

/* where the DSL's Lua files are (default: found beside the executable or the build tree) */
PTXLUA_API int ptxlua_set_lua_dir(ptxlua_engine *e, const char *dir);

/* load and run a kernel script; kernels it defines replace those of a previous load */
PTXLUA_API int ptxlua_load_file(ptxlua_engine *e, const char *path);
PTXLUA_API int ptxlua_load_string(ptxlua_engine *e, const char *chunkname, const char *text, size_t len);

/* kernels of the loaded script */
PTXLUA_API int ptxlua_kernel_count(ptxlua_engine *e);
PTXLUA_API const char *ptxlua_kernel_name(ptxlua_engine *e, int i); /* valid until the next load */

/* template parameters (as with -D NAME=VALUE); value NULL removes the override */
PTXLUA_API int ptxlua_define(ptxlua_engine *e, const char *name, const char *value);
/* override every kernel's target ("sm_90a", "sm_100a", ...); NULL restores the scripts' own.
** An unknown target is PTXLUA_MISUSE (the previous setting stays). */
PTXLUA_API int ptxlua_set_arch(ptxlua_engine *e, const char *arch);

/* PTX of one kernel (name), several (comma separated) or all (NULL), in one module.
** ptxlua_ptx: *out is malloc'ed text the caller frees with ptxlua_free.
** ptxlua_write_ptx: written atomically (a temporary file renamed into place). */
PTXLUA_API int ptxlua_ptx(ptxlua_engine *e, const char *kernels, int flags, char **out, size_t *len);
PTXLUA_API int ptxlua_write_ptx(ptxlua_engine *e, const char *kernels, int flags, const char *path);
/* streamed to an open stream (standard output, a pipe): nothing is held in memory twice */
PTXLUA_API int ptxlua_fwrite_ptx(ptxlua_engine *e, const char *kernels, int flags, FILE *f);
PTXLUA_API void ptxlua_free(void *p);

/* checks for ptxlua_emulate (out-of-bounds, misaligned accesses and deadlocks are always checked) */
enum {
  PTXLUA_CHECK_RACES = 1,         /* shared-memory races between two barriers */
  PTXLUA_CHECK_UNINIT_SHARED = 2, /* reads of never-written shared memory */
  PTXLUA_CHECK_UNINIT_REGS = 4    /* reads of never-written registers */
};
/* run kernels (as ptxlua_ptx selects them) in the CPU emulator on generated inputs sized by their
** parameters' shapes; *summary (malloc'ed, free with ptxlua_free) says what ran and what it wrote */
PTXLUA_API int ptxlua_emulate(ptxlua_engine *e, const char *kernels, int checks, char **summary);

/* assembling (no GPU needed): nvJitLink from the CUDA toolkit, else the ptxas binary, through a
** disk cache ($PTXLUA_CACHE_DIR, $XDG_CACHE_HOME/ptxlua, ~/.cache/ptxlua). Flags add to the PTX ones. */
enum {
  PTXLUA_NO_CACHE = 0x100,    /* neither read nor write the cache */
  PTXLUA_JSON = 0x200         /* ptxlua_check: the report as JSON */
};
/* resources of one assembled function (valid until the next call on the engine) */
typedef struct ptxlua_resources {
  const char *kernel;
  int registers, barriers;
  long smem_static, smem_dynamic;   /* bytes; dynamic: the kernel's `smem` for its templates */
  long stack_frame, spill_stores, spill_loads;
  int warnings;
} ptxlua_resources;
/* assemble the kernels and report their resources; *report (malloc'ed) is a table per kernel with
** warnings at the script's lines (JSON with PTXLUA_JSON). An assembly error is PTXLUA_ERROR with
** every error as "file:line: error: ..." in ptxlua_errmsg (the report is still filled). */
PTXLUA_API int ptxlua_check(ptxlua_engine *e, const char *kernels, int flags, char **report);
PTXLUA_API int ptxlua_resource_count(ptxlua_engine *e);
PTXLUA_API const ptxlua_resources *ptxlua_resource(ptxlua_engine *e, int i);
/* the cubin of the kernels (malloc'ed; free with ptxlua_free) */
PTXLUA_API int ptxlua_compile(ptxlua_engine *e, const char *kernels, int flags, void **cubin, size_t *len);
/* remove every cache entry; returns how many, or -1 */
PTXLUA_API int ptxlua_clear_cache(void);

/* the last error: message as "file:line: error: text", and its parts (file NULL, line 0 if none) */
PTXLUA_API const char *ptxlua_errmsg(ptxlua_engine *e);
PTXLUA_API const char *ptxlua_errfile(ptxlua_engine *e);
PTXLUA_API int ptxlua_errline(ptxlua_engine *e);

#ifdef __cplusplus
}
#endif
#endif
