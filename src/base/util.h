/* util.h -- growable buffers, an arena and a string interner.
** The small pieces every other room of the core is built from. */
#ifndef PL_UTIL_H
#define PL_UTIL_H

#include <stddef.h>
#include <stdint.h>
#include <stdarg.h>

/* growable byte buffer */
typedef struct plB_buf {
  char *p;
  size_t n, cap;
  int oom;
} plB_buf;
void plB_buf_init(plB_buf *b);
void plB_buf_free(plB_buf *b);
int plB_buf_reserve(plB_buf *b, size_t extra);
void plB_buf_add(plB_buf *b, const char *s, size_t n);
void plB_buf_puts(plB_buf *b, const char *s);
void plB_buf_putc(plB_buf *b, char c);
void plB_buf_printf(plB_buf *b, const char *fmt, ...);
void plB_buf_vprintf(plB_buf *b, const char *fmt, va_list ap);
const char *plB_buf_cstr(plB_buf *b); /* NUL-terminated view, never NULL */

/* growable array of fixed-size elements */
#define PLB_VEC(T)   \
  struct {           \
    T *p;            \
    uint32_t n, cap; \
  }
int plB_vec_grow(void **p, uint32_t *cap, uint32_t need, size_t elsize);
#define plB_vec_push(v, x)                                                               \
  ((v).n < (v).cap || plB_vec_grow((void **)&(v).p, &(v).cap, (v).n + 1, sizeof(*(v).p)) \
       ? ((void)((v).p[(v).n++] = (x)), 1)                                               \
       : 0)
#define plB_vec_free(v) (free((v).p), (v).p = NULL, (v).n = (v).cap = 0)

/* string interner: ids are dense, 1-based (0 means "no string") */
typedef struct plB_strtab {
  char **str; /* id -> NUL-terminated string (owned) */
  uint32_t *len;
  uint32_t n, cap; /* n = number of strings + 1 */
  uint32_t *hash;  /* open addressing table of ids */
  uint32_t hcap;
} plB_strtab;
void plB_strtab_init(plB_strtab *t);
void plB_strtab_free(plB_strtab *t);
uint32_t plB_intern(plB_strtab *t, const char *s, size_t n);     /* 0 on OOM */
uint32_t plB_find(const plB_strtab *t, const char *s, size_t n); /* 0 if absent */
static inline const char *plB_str(const plB_strtab *t, uint32_t id) {
  return t->str[id];
}
static inline uint32_t plB_strlen(const plB_strtab *t, uint32_t id) {
  return t->len[id];
}

uint32_t plB_hash(const char *s, size_t n);

#endif
