/* util.h -- growable buffers, an arena and a string interner.
** The small pieces every other room of the core is built from. */
#ifndef PL_UTIL_H
#define PL_UTIL_H

#include <stddef.h>
#include <stdint.h>
#include <stdarg.h>

/* growable byte buffer */
typedef struct plU_buf { char *p; size_t n, cap; int oom; } plU_buf;
void   plU_buf_init(plU_buf *b);
void   plU_buf_free(plU_buf *b);
int    plU_buf_reserve(plU_buf *b, size_t extra);
void   plU_buf_add(plU_buf *b, const char *s, size_t n);
void   plU_buf_puts(plU_buf *b, const char *s);
void   plU_buf_putc(plU_buf *b, char c);
void   plU_buf_printf(plU_buf *b, const char *fmt, ...);
void   plU_buf_vprintf(plU_buf *b, const char *fmt, va_list ap);
const char *plU_buf_cstr(plU_buf *b); /* NUL-terminated view, never NULL */

/* growable array of fixed-size elements */
#define PLU_VEC(T) struct { T *p; uint32_t n, cap; }
int plU_vec_grow(void **p, uint32_t *cap, uint32_t need, size_t elsize);
#define plU_vec_push(v, x) \
  ((v).n < (v).cap || plU_vec_grow((void **)&(v).p, &(v).cap, (v).n + 1, sizeof(*(v).p)) \
     ? ((void)((v).p[(v).n++] = (x)), 1) : 0)
#define plU_vec_free(v) (free((v).p), (v).p = NULL, (v).n = (v).cap = 0)

/* string interner: ids are dense, 1-based (0 means "no string") */
typedef struct plU_strtab {
  char   **str;     /* id -> NUL-terminated string (owned) */
  uint32_t *len;
  uint32_t n, cap;  /* n = number of strings + 1 */
  uint32_t *hash;   /* open addressing table of ids */
  uint32_t hcap;
} plU_strtab;
void     plU_strtab_init(plU_strtab *t);
void     plU_strtab_free(plU_strtab *t);
uint32_t plU_intern(plU_strtab *t, const char *s, size_t n); /* 0 on OOM */
uint32_t plU_find(const plU_strtab *t, const char *s, size_t n); /* 0 if absent */
static inline const char *plU_str(const plU_strtab *t, uint32_t id) { return t->str[id]; }
static inline uint32_t plU_strlen(const plU_strtab *t, uint32_t id) { return t->len[id]; }

uint32_t plU_hash(const char *s, size_t n);

#endif
