/* util.c -- growable buffers and the string interner.
** Everything here reports allocation failure instead of aborting. */
#include "util.h"
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

void plB_buf_init(plB_buf *b) {
  b->p = NULL;
  b->n = b->cap = 0;
  b->oom = 0;
}
void plB_buf_free(plB_buf *b) {
  free(b->p);
  plB_buf_init(b);
}

int plB_buf_reserve(plB_buf *b, size_t extra) {
  if (b->oom) return 0;
  if (b->n + extra + 1 <= b->cap) return 1;
  size_t cap = b->cap ? b->cap : 256;
  while (cap < b->n + extra + 1) {
    if (cap > ((size_t)-1) / 2) {
      b->oom = 1;
      return 0;
    }
    cap *= 2;
  }
  char *p = realloc(b->p, cap);
  if (!p) {
    b->oom = 1;
    return 0;
  }
  b->p = p;
  b->cap = cap;
  return 1;
}

void plB_buf_add(plB_buf *b, const char *s, size_t n) {
  if (!plB_buf_reserve(b, n)) return;
  memcpy(b->p + b->n, s, n);
  b->n += n;
}
void plB_buf_puts(plB_buf *b, const char *s) {
  plB_buf_add(b, s, strlen(s));
}
void plB_buf_putc(plB_buf *b, char c) {
  if (b->n + 2 <= b->cap || plB_buf_reserve(b, 1)) b->p[b->n++] = c;
}

void plB_buf_vprintf(plB_buf *b, const char *fmt, va_list ap) {
  va_list aq;
  va_copy(aq, ap);
  char tmp[256];
  int k = vsnprintf(tmp, sizeof tmp, fmt, aq);
  va_end(aq);
  if (k < 0) return;
  if ((size_t)k < sizeof tmp) {
    plB_buf_add(b, tmp, (size_t)k);
    return;
  }
  if (!plB_buf_reserve(b, (size_t)k)) return;
  vsnprintf(b->p + b->n, (size_t)k + 1, fmt, ap);
  b->n += (size_t)k;
}
void plB_buf_printf(plB_buf *b, const char *fmt, ...) {
  va_list ap;
  va_start(ap, fmt);
  plB_buf_vprintf(b, fmt, ap);
  va_end(ap);
}
const char *plB_buf_cstr(plB_buf *b) {
  if (!b->p || !plB_buf_reserve(b, 0)) return "";
  b->p[b->n] = 0;
  return b->p;
}

int plB_vec_grow(void **p, uint32_t *cap, uint32_t need, size_t elsize) {
  uint32_t c = *cap ? *cap : 8;
  while (c < need) {
    if (c > 0x7fffffffu) return 0;
    c *= 2;
  }
  if ((size_t)c > ((size_t)-1) / elsize) return 0;
  void *q = realloc(*p, (size_t)c * elsize);
  if (!q) return 0;
  *p = q;
  *cap = c;
  return 1;
}

uint32_t plB_hash(const char *s, size_t n) { /* FNV-1a */
  uint32_t h = 2166136261u;
  for (size_t i = 0; i < n; i++) {
    h ^= (unsigned char)s[i];
    h *= 16777619u;
  }
  return h;
}

void plB_strtab_init(plB_strtab *t) {
  memset(t, 0, sizeof *t);
}
void plB_strtab_free(plB_strtab *t) {
  for (uint32_t i = 1; i < t->n; i++) free(t->str[i]);
  free(t->str);
  free(t->len);
  free(t->hash);
  memset(t, 0, sizeof *t);
}

static uint32_t slot_of(const plB_strtab *t, const char *s, size_t n, uint32_t h) {
  uint32_t m = t->hcap - 1, i = h & m;
  for (;;) {
    uint32_t id = t->hash[i];
    if (!id || (t->len[id] == n && memcmp(t->str[id], s, n) == 0)) return i;
    i = (i + 1) & m;
  }
}

uint32_t plB_find(const plB_strtab *t, const char *s, size_t n) {
  if (!t->hcap) return 0;
  return t->hash[slot_of(t, s, n, plB_hash(s, n))];
}

static int rehash(plB_strtab *t) {
  uint32_t nc = t->hcap ? t->hcap * 2 : 256;
  uint32_t *nh = calloc(nc, sizeof *nh);
  if (!nh) return 0;
  free(t->hash);
  t->hash = nh;
  t->hcap = nc;
  for (uint32_t id = 1; id < t->n; id++)
    t->hash[slot_of(t, t->str[id], t->len[id], plB_hash(t->str[id], t->len[id]))] = id;
  return 1;
}

uint32_t plB_intern(plB_strtab *t, const char *s, size_t n) {
  if (n > 0xffffffffu) return 0;
  if (t->n == 0) { /* slot 0 is "no string" */
    t->str = calloc(16, sizeof *t->str);
    t->len = calloc(16, sizeof *t->len);
    if (!t->str || !t->len) return 0;
    t->cap = 16;
    t->n = 1;
    t->str[0] = NULL;
  }
  if ((t->n + 1) * 2 > t->hcap && !rehash(t)) return 0;
  uint32_t h = plB_hash(s, n), i = slot_of(t, s, n, h);
  if (t->hash[i]) return t->hash[i];
  if (t->n == t->cap) {
    uint32_t c = t->cap * 2;
    char **ns = realloc(t->str, c * sizeof *ns);
    if (!ns) return 0;
    t->str = ns;
    uint32_t *nl = realloc(t->len, c * sizeof *nl);
    if (!nl) return 0;
    t->len = nl;
    t->cap = c;
  }
  char *cp = malloc(n + 1);
  if (!cp) return 0;
  memcpy(cp, s, n);
  cp[n] = 0;
  uint32_t id = t->n++;
  t->str[id] = cp;
  t->len[id] = (uint32_t)n;
  t->hash[i] = id;
  return id;
}
