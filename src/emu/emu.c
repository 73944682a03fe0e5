/* emu.c -- the emulator's frame: device memory, the layout of a kernel's state spaces,
** launches, the CTA scheduler with its barriers and deadlock reports, and error messages.
**
** Scheduling: CTAs run one after another in linear order (x fastest). Inside a CTA, each warp
** runs until all its threads have exited or wait at a barrier; then the next warp runs; rounds
** repeat until every thread has exited. A round in which no warp can run is a deadlock. Inside a
** warp, the threads at the lowest PC among the ready ones execute together (exec.c). */
#include "emu_impl.h"
#include <pthread.h>
#include "isa.h"
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <stdarg.h>
#include <ctype.h>
#include <math.h>

/* ---- device memory --------------------------------------------------------------------------- */
plX_mem *plX_mem_new(void) {
  plX_mem *m = calloc(1, sizeof *m);
  if (m) m->next = X_GL_BASE;
  return m;
}

void plX_mem_free(plX_mem *m) {
  if (!m) return;
  for (uint32_t i = 0; i < m->n; i++) { if (!m->b[i].ext) free(m->b[i].p); free(m->b[i].name); free(m->b[i].gw); free(m->b[i].gr); free(m->b[i].ga); }
  free(m->b);
  free(m);
}

/* a buffer record at the next device address over host memory p (owned unless ext) */
static uint64_t mem_add(plX_mem *m, uint8_t *p, uint64_t bytes, const char *name, int ext) {
  if (m->n == m->cap) {
    uint32_t nc = m->cap ? m->cap * 2 : 16;
    xbuf *nb = realloc(m->b, nc * sizeof *nb);
    if (!nb) return 0;
    m->b = nb; m->cap = nc;
  }
  xbuf b;
  b.p = p;
  b.name = NULL;
  if (name) {
    size_t n = strlen(name) + 1;
    b.name = malloc(n);
    if (b.name) memcpy(b.name, name, n);
  }
  b.addr = m->next; b.size = bytes; b.ro = 0; b.ext = ext; b.gw = NULL; b.gr = NULL; b.ga = NULL;
  /* 256-byte aligned, with at least 256 unmapped bytes after each buffer: an access just past
  ** the end of one buffer is never inside the next */
  m->next = (m->next + bytes + 256 + 255) & ~(uint64_t)255;
  m->b[m->n++] = b;                               /* addresses only grow: the array stays sorted */
  return b.addr;
}

uint64_t plX_mem_alloc(plX_mem *m, uint64_t bytes, const char *name) {
  if (!m || bytes == 0 || bytes > ((uint64_t)1 << 40)) return 0;
  uint8_t *p = calloc(1, (size_t)bytes);
  if (!p) return 0;
  uint64_t a = mem_add(m, p, bytes, name, 0);
  if (!a) free(p);
  return a;
}

uint64_t plX_mem_map(plX_mem *m, void *host, uint64_t bytes, const char *name) {
  if (!m || !host || bytes == 0 || bytes > ((uint64_t)1 << 40)) return 0;
  return mem_add(m, host, bytes, name, 1);
}

int plX_mem_release(plX_mem *m, uint64_t addr) {
  if (!m) return -1;
  for (uint32_t i = 0; i < m->n; i++)
    if (m->b[i].addr == addr) {
      if (!m->b[i].ext) free(m->b[i].p);
      free(m->b[i].name); free(m->b[i].gw); free(m->b[i].gr); free(m->b[i].ga);
      memmove(m->b + i, m->b + i + 1, (m->n - i - 1) * sizeof *m->b);
      m->n--;
      return 0;
    }
  return -1;
}

uint8_t *plX_mem_host(plX_mem *m, uint64_t addr, uint64_t *size) {
  int32_t c = -1;
  xbuf *b = m ? plX__find(m, addr, &c) : NULL;
  if (!b || b->addr != addr) return NULL;
  if (size) *size = b->size;
  return b->p;
}

xbuf *plX__find(plX_mem *m, uint64_t a, int32_t *cache) {
  int32_t c = *cache;
  if (c >= 0 && (uint32_t)c < m->n && a - m->b[c].addr < m->b[c].size) return &m->b[c];
  uint32_t lo = 0, hi = m->n;
  while (lo < hi) {                               /* first buffer with addr > a */
    uint32_t mid = (lo + hi) / 2;
    if (m->b[mid].addr <= a) lo = mid + 1; else hi = mid;
  }
  if (lo == 0) return NULL;
  xbuf *b = &m->b[lo - 1];
  if (a - b->addr >= b->size) return NULL;
  *cache = (int32_t)(lo - 1);
  return b;
}

/* "address 0x... is just past the end of buffer 'out' (4000 bytes at 0x...)": the nearest buffer */
void plX__describe_addr(plX_emu *e, plB_buf *o, uint64_t a, uint64_t n) {
  plX_mem *m = e->mem;
  xbuf *below = NULL, *above = NULL, *in = NULL;
  for (uint32_t i = 0; i < m->n; i++) {
    xbuf *b = &m->b[i];
    if (a >= b->addr && a - b->addr < b->size) in = b;
    else if (a >= b->addr + b->size) below = b;          /* sorted: the last one is the nearest */
    else if (a < b->addr && !above) above = b;
  }
  plB_buf_printf(o, "address 0x%llx", (unsigned long long)a);
  if (in) {
    plB_buf_printf(o, " (%llu bytes) runs %llu bytes past the end of buffer '%s' (%llu bytes at 0x%llx)",
                   (unsigned long long)n, (unsigned long long)(a + n - in->addr - in->size), in->name ? in->name : "?",
                   (unsigned long long)in->size, (unsigned long long)in->addr);
    return;
  }
  uint64_t dpast = below ? a - below->addr - below->size : UINT64_MAX;
  uint64_t dbefore = above ? above->addr - a : UINT64_MAX;
  if (!below && !above) { plB_buf_puts(o, " is in no buffer"); return; }
  if (dpast <= dbefore) {
    if (dpast == 0) plB_buf_puts(o, " is just past the end");
    else plB_buf_printf(o, " is %llu bytes past the end", (unsigned long long)dpast);
    plB_buf_printf(o, " of buffer '%s' (%llu bytes at 0x%llx)", below->name ? below->name : "?",
                   (unsigned long long)below->size, (unsigned long long)below->addr);
  } else
    plB_buf_printf(o, " is %llu bytes before buffer '%s' (%llu bytes at 0x%llx)", (unsigned long long)dbefore,
                   above->name ? above->name : "?", (unsigned long long)above->size, (unsigned long long)above->addr);
}

int plX_status(const plX_emu *e) { return e ? e->status : 2; }
const char *plX_error(const plX_emu *e) {
  if (!e) return "error: out of memory";
  return e->status ? plB_buf_cstr((plB_buf *)&e->err) : "";
}
void plX_clear(plX_emu *e) {
  if (!e) return;
  e->status = 0;
  e->err.n = 0;
  e->deferred.n = 0;
  e->ndeferred = 0;
}

/* ---- layout: variables and parameters ------------------------------------------------------- */
static uint32_t elem_size(int t) { uint32_t b = plB_type_info[t].bits; return b < 8 ? 1 : b / 8; }
static uint64_t align_up(uint64_t v, uint64_t a) { return a > 1 ? (v + a - 1) / a * a : v; }

/* an initializer "{1, 2.5, 0f3F800000}" or "7" into n elements of type t; 0 when not understood */
static int parse_init(const char *s, int t, uint8_t *out, uint64_t n) {
  uint32_t es = elem_size(t);
  int cls = plB_type_info[t].cls;
  uint64_t i = 0;
  while (*s == ' ' || *s == '{') s++;
  while (*s && *s != '}') {
    if (i >= n) return 0;
    const char *q = s;
    while (*q && *q != ',' && *q != '}') q++;
    char tok[64];
    size_t k = (size_t)(q - s);
    while (k && s[k - 1] == ' ') k--;
    if (k == 0 || k >= sizeof tok) return 0;
    memcpy(tok, s, k); tok[k] = 0;
    uint64_t bits;
    char *end;
    if ((tok[0] == '0' && (tok[1] == 'f' || tok[1] == 'F')) || (tok[0] == '0' && (tok[1] == 'd' || tok[1] == 'D'))) {
      bits = strtoull(tok + 2, &end, 16);
      if (*end) return 0;
      if ((tok[1] | 32) == 'f' && t == PLT_F64) { uint32_t u = (uint32_t)bits; float f; memcpy(&f, &u, 4); double d = f; memcpy(&bits, &d, 8); }
      else if ((tok[1] | 32) == 'd' && t == PLT_F32) { double d; memcpy(&d, &bits, 8); float f = (float)d; uint32_t u; memcpy(&u, &f, 4); bits = u; }
    } else if (cls == PLT_CF) {
      double d = strtod(tok, &end);
      if (*end) return 0;
      if (t == PLT_F32) { float f = (float)d; uint32_t u; memcpy(&u, &f, 4); bits = u; }
      else if (t == PLT_F64) memcpy(&bits, &d, 8);
      else return 0;
    } else {
      int neg = tok[0] == '-';
      bits = strtoull(tok + neg, &end, 0);
      if (*end == 'U' || *end == 'u') end++;
      if (*end) return 0;
      if (neg) bits = (uint64_t)-(int64_t)bits;
    }
    memcpy(out + i * es, &bits, es);              /* little-endian host */
    i++;
    s = q;
    while (*s == ',' || *s == ' ') s++;
  }
  return 1;
}

static int layout(plX_emu *e) {
  const plI_module *m = e->m;
  const plI_func *f = &m->funcs.p[e->func];
  uint32_t nv = f->vars.n + m->globals.n;
  e->vars = calloc(nv ? nv : 1, sizeof *e->vars);
  e->gaddr = calloc(m->globals.n ? m->globals.n : 1, sizeof *e->gaddr);
  e->params = calloc(f->params.n ? f->params.n : 1, sizeof *e->params);
  if (!e->vars || !e->gaddr || !e->params) return plX__fail(e, X_NOSLOT, "out of memory");
  uint64_t sh = 0, loc = 0;
  uint32_t dyn_align = 0;
  e->smem_align = 16;
  /* module scope first, then the function: shared and local offsets in declaration order */
  for (int pass = 0; pass < 2; pass++) {
    uint32_t n = pass == 0 ? m->globals.n : f->vars.n;
    for (uint32_t i = 0; i < n; i++) {
      const plI_var *v = pass == 0 ? &m->globals.p[i] : &f->vars.p[i];
      xvar *x = &e->vars[e->nvars++];
      x->name = v->name;
      uint32_t es = elem_size(v->type);
      uint64_t al = v->align ? v->align : es;
      uint64_t cnt = v->count == UINT64_MAX ? 0 : (v->count ? v->count : 1);
      x->size = cnt * es;
      switch (v->space) {
      case PLV_SHARED:
        x->space = XS_SHARED;
        if (v->count == UINT64_MAX || v->linkage == PLK_EXTERN) {
          x->addr = UINT64_MAX;                    /* the dynamic block: placed below */
          if (al > dyn_align) dyn_align = (uint32_t)al;
          e->has_dyn = 1;
        } else {
          sh = align_up(sh, al);
          x->addr = sh; sh += x->size;
          if (al > e->smem_align) e->smem_align = (uint32_t)al;
        }
        break;
      case PLV_PARAM:                              /* a call's argument or result (nvcc's { .param .b32 param0; ... call }) */
        if (pass == 0) return plX__fail(e, X_NOSLOT, "variable '%s' in this state space is not emulated", plI_cstr(m, v->name));
        /* in the thread's local memory, as a .func's parameters (decode.c) */
        /* fallthrough */
      case PLV_LOCAL:
        x->space = XS_LOCAL;
        loc = align_up(loc, al);
        x->addr = loc; loc += x->size;
        break;
      case PLV_GLOBAL: case PLV_CONST: {
        x->space = v->space == PLV_CONST ? XS_CONST : XS_GLOBAL;
        if (x->size == 0) return plX__fail(e, X_NOSLOT, "module variable '%s' has no size", plI_cstr(m, v->name));
        uint64_t a = plX_mem_alloc(e->mem, x->size, plI_cstr(m, v->name));
        if (!a) return plX__fail(e, X_NOSLOT, "out of memory");
        if (pass == 0) e->gaddr[i] = a;
        x->addr = a;
        uint64_t sz; uint8_t *p = plX_mem_host(e->mem, a, &sz);
        if (v->space == PLV_CONST) {
          int32_t c = -1; plX__find(e->mem, a, &c); e->mem->b[c].ro = 1;
        }
        if (v->init && !parse_init(plI_cstr(m, v->init), v->type, p, cnt)) {
          return plX__fail_decl(e, v->file, v->line, "the initializer of '%s' is not emulated",
                                plI_cstr(m, v->name));
        }
        break;
      }
      default:
        return plX__fail(e, X_NOSLOT, "variable '%s' in this state space is not emulated", plI_cstr(m, v->name));
      }
    }
  }
  if (sh > 0xffffffffu || loc > 0xffffffffu) return plX__fail(e, X_NOSLOT, "shared or local memory too large");
  e->dyn_off = (uint32_t)align_up(sh, dyn_align ? dyn_align : 16);
  e->smem_static = (uint32_t)sh;
  for (uint32_t i = 0; i < e->nvars; i++)
    if (e->vars[i].space == XS_SHARED && e->vars[i].addr == UINT64_MAX) e->vars[i].addr = e->dyn_off;
  e->local_size = (uint32_t)align_up(loc, 16);
  /* the parameter block */
  uint64_t po = 0;
  for (uint32_t i = 0; i < f->params.n; i++) {
    const plI_var *v = &f->params.p[i];
    plX_param *p = &e->params[e->nparams++];
    uint32_t es = elem_size(v->type);
    p->name = plI_cstr(m, v->name);
    p->type = v->type;
    p->align = v->align ? v->align : es;
    uint64_t bytes = (uint64_t)(v->count ? v->count : 1) * es;
    if (bytes > 32764 || po + bytes > 32764)                       /* the CUDA driver's limit on a launch's parameters */
      return plX__fail(e, X_NOSLOT, "the kernel's parameters take more than 32764 bytes (parameter '%s')", p->name);
    p->size = (uint32_t)bytes;
    po = align_up(po, p->align);
    p->offset = (uint32_t)po;
    po += p->size;
  }
  e->psize = (uint32_t)po;
  e->pblock = calloc(1, po ? po : 1);
  e->pset = calloc(1, e->nparams ? e->nparams : 1);
  if (!e->pblock || !e->pset) return plX__fail(e, X_NOSLOT, "out of memory");
  return 0;
}

/* the state space and address of a symbol: variables, then parameters */
int plX__var_addr(plX_emu *e, uint32_t name, uint8_t *space, uint64_t *addr) {
  if (e->dfn > 0) {                               /* in a .func: its parameters and results, then module scope */
    const xfn *fn = &e->fns[e->dfn];
    const plI_func *cf = &e->m->funcs.p[fn->func];
    for (uint32_t i = 0; i < cf->params.n + cf->rets.n; i++) {
      const plI_var *v = i < cf->params.n ? &cf->params.p[i] : &cf->rets.p[i - cf->params.n];
      if (v->name == name) { *space = XS_LOCAL; *addr = e->ploc[fn->ppar + i].off; return 1; }
    }
    for (uint32_t i = cf->vars.n; i-- > 0;)       /* its variables (.local, its calls' .param), the last declared first */
      if (cf->vars.p[i].name == name) { *space = XS_LOCAL; *addr = e->ploc[fn->ppar + cf->params.n + cf->rets.n + i].off; return 1; }
    for (uint32_t i = e->m->globals.n; i-- > 0;)
      if (e->vars[i].name == name) { *space = e->vars[i].space; *addr = e->vars[i].addr; return 1; }
    return 0;
  }
  for (uint32_t i = e->nvars; i-- > 0;)           /* function scope shadows module scope */
    if (e->vars[i].name == name) { *space = e->vars[i].space; *addr = e->vars[i].addr; return 1; }
  const plI_func *f = &e->m->funcs.p[e->func];
  for (uint32_t i = 0; i < f->params.n; i++)
    if (f->params.p[i].name == name) { *space = XS_PARAM; *addr = e->params[i].offset; return 1; }
  return 0;
}

/* ---- where copies into shared memory may write --------------------------------------------------
** The regions: each static .shared variable (its declared bytes), and the allocations of the
** shared-memory plans the DSL passes (plX_add_region), which cover their plan's variable. */
struct xregion {
  uint32_t lo, stride, bytes, stages;   /* shared offsets: stage s is [lo + s * stride, + bytes) */
  uint32_t vlo;                         /* the variable's first byte (a plan's block) */
  int plan;                             /* a plan's allocation (1) or a variable (0) */
  int covered;                          /* a variable whose plan's allocations stand for it */
  char var[64], name[64];
};
typedef struct xregion xregion;

static xregion *region_new(plX_emu *e) {
  if (e->nregions == e->cregions) {
    uint32_t nc = e->cregions ? e->cregions * 2 : 8;
    xregion *p = realloc(e->regions, nc * sizeof *p);
    if (!p) return NULL;
    e->regions = p; e->cregions = nc;
  }
  xregion *r = &e->regions[e->nregions++];
  memset(r, 0, sizeof *r);
  return r;
}

/* the variables', when the kernel is laid out */
static void var_regions(plX_emu *e) {
  for (uint32_t i = 0; i < e->nvars; i++) {
    const xvar *x = &e->vars[i];
    if (x->space != XS_SHARED || x->size == 0) continue;          /* (dynamic: its plan's only) */
    xregion *r = region_new(e);
    if (!r) return;                                                /* out of memory: fewer checks */
    r->lo = (uint32_t)x->addr; r->stride = r->bytes = (uint32_t)x->size; r->stages = 1;
    snprintf(r->var, sizeof r->var, "%s", plI_cstr(e->m, x->name));
    snprintf(r->name, sizeof r->name, "%s", r->var);
  }
}

int plX_add_region(plX_emu *e, const char *var, const char *name, uint32_t offset,
                   uint32_t stage_bytes, uint32_t bytes, uint32_t stages) {
  if (!e || !var || !name || !stages || !bytes || bytes > stage_bytes) return -1;
  const xvar *x = NULL;
  for (uint32_t i = e->nvars; i-- > 0 && !x;) {                    /* function scope first */
    const xvar *c = &e->vars[i];
    if (c->space == XS_SHARED && strcmp(plI_cstr(e->m, c->name), var) == 0) x = c;
  }
  if (!x) return -1;
  uint64_t end = (uint64_t)offset + (uint64_t)stage_bytes * (stages - 1) + bytes;
  if (x->size && end > x->size) return -1;                         /* a static block holds them */
  if (x->addr + end > 0xffffffffu) return -1;
  for (uint32_t i = 0; i < e->nregions; i++)
    if (!e->regions[i].plan && strcmp(e->regions[i].var, var) == 0) e->regions[i].covered = 1;
  xregion *r = region_new(e);
  if (!r) return -1;
  r->lo = (uint32_t)x->addr + offset;
  r->stride = stage_bytes;
  r->bytes = bytes;
  r->stages = stages;
  r->plan = 1;
  r->vlo = (uint32_t)x->addr;
  snprintf(r->var, sizeof r->var, "%s", var);
  snprintf(r->name, sizeof r->name, "%s", name);
  return 0;
}

/* the region holding shared byte off, and its stage; a plan's allocation before a variable */
static const xregion *region_at(const plX_emu *e, uint32_t off, uint32_t *stage) {
  for (int pass = 1; pass >= 0; pass--)
    for (uint32_t i = 0; i < e->nregions; i++) {
      const xregion *r = &e->regions[i];
      if (r->plan != pass || r->covered || off < r->lo) continue;
      uint64_t d = off - r->lo;
      if (d >= (uint64_t)r->stride * r->stages) continue;
      *stage = (uint32_t)(d / r->stride);
      return r;
    }
  return NULL;
}

static void region_name(plB_buf *b, const xregion *r, uint32_t stage) {
  if (!r->plan) { plB_buf_printf(b, "shared variable '%s'", r->name); return; }
  if (r->stages > 1) plB_buf_printf(b, "stage %u of ", stage);
  plB_buf_printf(b, "allocation '%s' of plan '%s'", r->name, r->var);
}

int plX__region_check(plX_emu *e, const xins *in, xwarp *w, int l, uint32_t off, uint32_t n,
                      const char *what) {
  if (!e->nregions || !n) return 0;
  uint32_t s;
  const xregion *r = region_at(e, off, &s);
  uint32_t slo = r ? r->lo + s * r->stride : 0, send = r ? slo + r->bytes : 0;
  if (r && off < send && (uint64_t)off + n <= send) return 0;      /* inside one stage: fine */
  plB_buf b; plB_buf_init(&b);
  plB_buf_printf(&b, "the copy (%s) writes shared bytes 0x%x..0x%llx", what, off,
                 (unsigned long long)off + n - 1);
  if (!r) {                                                      /* between a plan's allocations? */
    const xregion *v = NULL;
    for (uint32_t i = 0; i < e->nregions && !v; i++) {
      const xregion *q = &e->regions[i];
      if (!q->plan || off < q->vlo) continue;
      uint64_t end = 0;                                            /* the block: to its last one */
      for (uint32_t j = 0; j < e->nregions; j++) {
        const xregion *t = &e->regions[j];
        uint64_t te = (uint64_t)t->lo + (uint64_t)t->stride * (t->stages - 1) + t->bytes;
        if (t->plan && t->vlo == q->vlo && te > end) end = te;
      }
      if (off < end) v = q;
    }
    if (!v) {                                                      /* the bounds check's */
      plB_buf_free(&b);
      return 0;
    }
    plB_buf_printf(&b, ", starting in none of the allocations of plan '%s' (in the padding between "
                   "them)", v->var);
  } else if (off >= send) {
    plB_buf_puts(&b, ", starting in the padding after ");
    region_name(&b, r, s);
    plB_buf_printf(&b, " (0x%x..0x%x: %u bytes)", slo, send - 1, r->bytes);
  } else {
    plB_buf_printf(&b, ": %llu past the end of ", (unsigned long long)off + n - send);
    region_name(&b, r, s);
    plB_buf_printf(&b, " (0x%x..0x%x: %u bytes", slo, send - 1, r->bytes);
    if (r->stages > 1) plB_buf_printf(&b, " a stage, %u stages", r->stages);
    plB_buf_puts(&b, "), into ");
    uint32_t s2;
    const xregion *o = region_at(e, send, &s2);
    uint32_t olo = o ? o->lo + s2 * o->stride : 0;
    if (o && send < olo + o->bytes) region_name(&b, o, s2);
    else if (o) plB_buf_puts(&b, "the padding after it");
    else plB_buf_puts(&b, "bytes of no allocation");
  }
  plB_buf_puts(&b, ": a box or size larger than the tile it lands in overwrites its neighbours");
  plX__fail_lane(e, in, w, l, plB_buf_cstr(&b));
  plB_buf_free(&b);
  return e->status;
}

/* ---- the emulator object ---------------------------------------------------------------------- */
plX_emu *plX_new(const plI_module *m, int func, plX_mem *mem) {
  plX_emu *e = calloc(1, sizeof *e);
  if (!e) return NULL;
  plB_buf_init(&e->err);
  plB_buf_init(&e->trace);
  e->m = m; e->func = func; e->mem = mem;
  e->trace_cta = -1; e->trace_thread = -1;
  e->limit = PLX_LIMIT_DEFAULT;
  plB_buf_init(&e->deferred);
  if (!m || func < 0 || (uint32_t)func >= m->funcs.n) { plX__fail(e, X_NOSLOT, "no such kernel"); e->func = 0; return e; }
  if (!mem) { plX__fail(e, X_NOSLOT, "no device memory"); return e; }
  if (m->funcs.p[func].kind != PLF_ENTRY) { plX__fail(e, X_NOSLOT, "'%s' is not a kernel (.entry)", plI_cstr(m, m->funcs.p[func].name)); return e; }
  if (layout(e)) return e;
  var_regions(e);
  plX__decode(e);
  return e;
}

static void free_cta(xcta *c, uint32_t nthreads) {
  free(c->Rall); free(c->Pall); free(c->rdefall); free(c->pdefall); free(c->warps);
  free(c->smem); free(c->smem_def); free(c->race_w); free(c->race_r); free(c->race_e); free(c->local);
  free(c->cstack); free(c->cdepth);
  if (c->fstk) for (uint32_t i = 0; i < nthreads; i++) free(c->fstk[i].p);
  free(c->fstk);
  if (c->cpq) for (uint32_t i = 0; i < nthreads; i++) plB_vec_free(c->cpq[i].q);
  free(c->cpq);
  for (int i = 0; i < 16; i++) plB_vec_free(c->bars[i].red);
  plX__hop_free(c);
  memset(c, 0, sizeof *c);
}

static void free_ctas(plX_emu *e) {
  for (uint32_t i = 0; i < e->nctas_cap; i++) free_cta(&e->ctas[i], e->ctas[i].cap_threads);
  free(e->ctas);
  e->ctas = NULL; e->nctas_cap = 0; e->C = NULL;
}

static void rp_clear(plX_emu *e);
void plX_free(plX_emu *e) {
  if (!e) return;
  free_ctas(e);
  for (uint32_t i = 0; i < e->H.q.n; i++) { free(e->H.q.p[i].data); free(e->H.q.p[i].valid); }
  plB_vec_free(e->H.q);
  plB_vec_free(e->H.tmi); plB_vec_free(e->H.tacq);
  if (e->mem && e->gaddr && e->m && e->func >= 0 && (uint32_t)e->func < e->m->funcs.n)
    for (uint32_t i = 0; i < e->m->globals.n; i++) if (e->gaddr[i]) plX_mem_release(e->mem, e->gaddr[i]);
  if (e->fns) for (uint32_t i = 0; i < e->nfns; i++) free(e->fns[i].regs);
  free(e->vars); free(e->gaddr); free(e->params); free(e->pblock); free(e->pset); free(e->fns); free(e->ploc);
  xfunc *x = &e->xf;
  free(x->code); free(x->consts); free(x->vslots); free(x->chk); free(x->slot_of); free(x->slot_reg); free(x->pred_reg); free(x->msgs);
  plB_buf_free(&e->err);
  plB_buf_free(&e->trace);
  plB_buf_free(&e->deferred);
  free(e->regions);
  free(e->gsync); free(e->gev); free(e->gevc);
  rp_clear(e); free(e->rpend);
  free(e);
}

int plX_param_count(const plX_emu *e) { return e ? (int)e->nparams : 0; }
int plX_param_info(const plX_emu *e, int i, plX_param *p) {
  if (!e || i < 0 || (uint32_t)i >= e->nparams) return -1;
  *p = e->params[i];
  return 0;
}
int plX_set_param(plX_emu *e, int i, const void *bytes, size_t n) {
  if (e->status) return e->status;
  if (i < 0 || (uint32_t)i >= e->nparams) return plX__fail(e, X_NOSLOT, "no parameter #%d", i + 1);
  if (n != e->params[i].size)
    return plX__fail(e, X_NOSLOT, "parameter '%s' takes %u bytes, got %u", e->params[i].name, e->params[i].size, (unsigned)n);
  memcpy(e->pblock + e->params[i].offset, bytes, n);
  e->pset[i] = 1;
  return 0;
}

int plX_geometry_check(const uint32_t grid[3], const uint32_t block[3], const uint32_t cluster[3],
                       char *err, size_t n) {
  static const char *const AX = "xyz";
  uint64_t nt = (uint64_t)block[0] * block[1] * block[2];
  for (int i = 0; i < 3; i++) {
    if (!grid[i] || !block[i] || (cluster && !cluster[i])) {
      snprintf(err, n, "launch dimensions must be positive integers");
      return 1;
    }
  }
  if (nt > 1024) {
    snprintf(err, n, "a block of %llu threads (%u, %u, %u) exceeds the 1024 a CTA can have",
             (unsigned long long)nt, block[0], block[1], block[2]);
    return 1;
  }
  if (block[2] > 64) {
    snprintf(err, n, "block.z %u exceeds 64", block[2]);
    return 1;
  }
  for (int i = 0; i < 3; i++) {
    uint32_t max = i ? 65535u : 2147483647u;
    if (grid[i] > max) {
      snprintf(err, n, "grid.%c %u exceeds the device's limit of %u", AX[i], grid[i], max);
      return 1;
    }
  }
  if (!cluster) return 0;
  uint64_t nc = (uint64_t)cluster[0] * cluster[1] * cluster[2];
  if (nc > 16) {
    snprintf(err, n, "a cluster of %llu CTAs (%u, %u, %u) exceeds 16", (unsigned long long)nc, cluster[0],
             cluster[1], cluster[2]);
    return 1;
  }
  for (int i = 0; i < 3; i++) {
    if (grid[i] % cluster[i]) {
      snprintf(err, n, "the grid (%u, %u, %u) is not a whole number of clusters (%u, %u, %u): grid.%c %u "
               "is not a multiple of %u", grid[0], grid[1], grid[2], cluster[0], cluster[1], cluster[2],
               AX[i], grid[i], cluster[i]);
      return 1;
    }
  }
  return 0;
}

int plX_set_launch(plX_emu *e, const uint32_t grid[3], const uint32_t block[3], uint32_t dyn) {
  if (e->status) return e->status;
  uint64_t nt = (uint64_t)block[0] * block[1] * block[2];
  char gerr[256];
  if (plX_geometry_check(grid, block, NULL, gerr, sizeof gerr)) return plX__fail(e, X_NOSLOT, "%s", gerr);
  const plI_func *f = &e->m->funcs.p[e->func];
  if (f->reqntid[0] && (f->reqntid[0] != block[0] || f->reqntid[1] != block[1] || f->reqntid[2] != block[2]))
    return plX__fail(e, X_NOSLOT, "the block (%u, %u, %u) differs from .reqntid %u, %u, %u", block[0], block[1], block[2],
                     f->reqntid[0], f->reqntid[1], f->reqntid[2]);
  if (f->maxntid[0] && nt > (uint64_t)f->maxntid[0] * (f->maxntid[1] ? f->maxntid[1] : 1) * (f->maxntid[2] ? f->maxntid[2] : 1))
    return plX__fail(e, X_NOSLOT, "a block of %llu threads exceeds .maxntid", (unsigned long long)nt);
  if (dyn && !e->has_dyn) return plX__fail(e, X_NOSLOT, "%u bytes of dynamic shared memory, but the kernel declares no extern .shared array", dyn);
  if ((uint64_t)e->dyn_off + dyn > 232448)
    return plX__fail(e, X_NOSLOT, "%llu bytes of shared memory exceed the 227 KB a CTA may have", (unsigned long long)e->dyn_off + dyn);
  memcpy(e->grid, grid, sizeof e->grid);
  memcpy(e->block, block, sizeof e->block);
  e->dyn_smem = dyn;
  e->launched = 1;
  return plX_set_cluster(e, NULL);
}

/* the cluster shape: launch's, else the kernel's .reqnctapercluster, else one CTA (implicit) */
int plX_set_cluster(plX_emu *e, const uint32_t cl[3]) {
  if (e->status) return e->status;
  const plI_func *f = &e->m->funcs.p[e->func];
  uint32_t c[3] = {1, 1, 1};
  int expl = 0;
  if (f->reqnctapercluster[0]) {
    for (int i = 0; i < 3; i++) c[i] = f->reqnctapercluster[i] ? f->reqnctapercluster[i] : 1;
    expl = 1;
  }
  if (cl) {
    if (!cl[0] || !cl[1] || !cl[2]) return plX__fail(e, X_NOSLOT, "cluster dimensions must be positive");
    if (expl && (cl[0] != c[0] || cl[1] != c[1] || cl[2] != c[2]))
      return plX__fail(e, X_NOSLOT, "the cluster (%u, %u, %u) differs from .reqnctapercluster %u, %u, %u", cl[0], cl[1], cl[2], c[0], c[1], c[2]);
    memcpy(c, cl, sizeof c);
    expl = 1;
  }
  if (f->explicitcluster) expl = 1;
  uint64_t n = (uint64_t)c[0] * c[1] * c[2];
  if (n > 16) return plX__fail(e, X_NOSLOT, "a cluster of %llu CTAs exceeds 16", (unsigned long long)n);
  if (f->maxclusterrank && n > f->maxclusterrank)
    return plX__fail(e, X_NOSLOT, "a cluster of %llu CTAs exceeds .maxclusterrank %u", (unsigned long long)n, f->maxclusterrank);
  memcpy(e->H.cl, c, sizeof c);
  e->H.ncl = (uint32_t)n;
  e->H.explicit_cl = expl;
  return 0;
}

void plX_set_checks(plX_emu *e, unsigned flags) { e->checks = flags; }
void plX_set_limit(plX_emu *e, uint64_t n) { e->limit = n ? n : UINT64_MAX; }
void plX_set_sample(plX_emu *e, uint64_t n) { e->sample = n; }
void plX_set_trace(plX_emu *e, int64_t cta, int64_t thread, int whole_warp) {
  e->trace_cta = cta; e->trace_thread = thread; e->trace_warp = whole_warp != 0;
}
const char *plX_trace_text(plX_emu *e, size_t *len) { if (len) *len = e->trace.n; return plB_buf_cstr(&e->trace); }
void plX_get_stats(const plX_emu *e, plX_stats *s) { *s = e->st; }

/* ---- memory accesses of one thread ------------------------------------------------------------- */
static void who(plX_emu *e, plB_buf *b, uint32_t tid) { plX__who(e, b, e->C->ctaid, tid); }

static const char *space_name(int s) {
  switch (s) {
  case XS_GLOBAL: return "global"; case XS_SHARED: return "shared"; case XS_LOCAL: return "local";
  case XS_PARAM: return "param"; case XS_CONST: return "const"; default: return "generic";
  }
}

static uint8_t *mem_fail(plX_emu *e, const xins *in, int space, uint64_t a, uint32_t n, uint32_t tid, const char *what) {
  plB_buf b; plB_buf_init(&b);
  plB_buf_printf(&b, "%s %s by ", what, plX__opname(e, in->stmt));
  who(e, &b, tid);
  plB_buf_puts(&b, ": ");
  if (space == XS_GLOBAL || space == XS_CONST) plX__describe_addr(e, &b, a, n);
  else if (space == XS_PARAM) {                                    /* the access and the block */
    plB_buf_printf(&b, "bytes %llu..%llu of the kernel's parameters", (unsigned long long)a,
                   (unsigned long long)a + n - 1);
    if (in->space == XS_GENERIC)
      plB_buf_printf(&b, " (generic address 0x%llx)", (unsigned long long)(a + X_PAR_BASE));
    plB_buf_printf(&b, ", outside its %u-byte parameter block", e->psize);
    for (uint32_t i = 0; i < e->nparams && i < 8; i++) {
      const plX_param *q = &e->params[i];
      plB_buf_printf(&b, "%s%s: bytes %u..%u", i ? ", " : " (", q->name, q->offset,
                     q->offset + q->size - 1);
    }
    if (e->nparams > 8) plB_buf_printf(&b, ", and %u more", e->nparams - 8);
    if (e->nparams) plB_buf_puts(&b, ")");
  } else {
    uint64_t lim = space == XS_SHARED ? e->smem_size : space == XS_LOCAL ? e->local_size : e->psize;
    plB_buf_printf(&b, "%s address 0x%llx (%u bytes) outside the %llu bytes of %s memory", space_name(space),
                   (unsigned long long)a, n, (unsigned long long)lim, space_name(space));
  }
  plX__fail(e, in->stmt, "%s", plB_buf_cstr(&b));
  plB_buf_free(&b);
  return NULL;
}

/* a store, red or atom by thread tid of e->C into shared bytes [off, off + n) of another CTA c of the
** cluster: checked against c's wgmma operand reads in flight like a local store; 1 after reporting */
static int remote_clobber(plX_emu *e, const xins *in, xcta *c, uint32_t off, uint32_t n, uint32_t tid) {
  plB_buf b; plB_buf_init(&b);
  plB_buf_printf(&b, "%s by ", plX__opname(e, in->stmt));
  who(e, &b, tid);
  int r = plX__hop_wg_clobber(e, in->stmt, c, off, n, (int)(tid / 32), plB_buf_cstr(&b));
  plB_buf_free(&b);
  return r;
}

/* another CTA's shared memory is gone once every thread of that CTA has exited (the CUDA programming
** guide: distributed shared memory must not be accessed after its CTA exits; the usual bug is a
** kernel without a final cluster barrier). Reported whether or not checks are on */
static int cta_gone(plX_emu *e, xcta *c) {
  if (c->done) return 1;
  for (uint32_t w = 0; w < e->nwarps; w++) if (c->warps[w].exists & ~c->warps[w].exited) return 0;
  return c->done = 1;
}

int plX__exited(plX_emu *e, uint32_t stmt, xcta *c, uint32_t off, uint32_t tid, const char *what) {
  if (c == e->C) return 0;
  if (!cta_gone(e, c)) {                                           /* remembered: checked at c's exit */
    c->racc = 1; c->racc_stmt = stmt; c->racc_rank = e->C->rank; c->racc_tid = tid; c->racc_cl = e->H.clphase;
    c->racc_off = off; c->racc_what = what;
    return 0;
  }
  plB_buf b; plB_buf_init(&b);
  plB_buf_printf(&b, "%s by ", plX__opname(e, stmt));
  who(e, &b, tid);
  plB_buf_printf(&b, " %s shared 0x%x of CTA (%u,%u,%u), which has exited (every thread of it): a CTA's shared memory must not be "
                 "accessed once that CTA has exited, and nothing kept it running; end the kernel with barrier.cluster.arrive and "
                 "barrier.cluster.wait in every CTA of the cluster, so that none exits while another may still access its shared memory",
                 what, off, c->ctaid[0], c->ctaid[1], c->ctaid[2]);
  plX__fail(e, stmt, "%s", plB_buf_cstr(&b));
  plB_buf_free(&b);
  return e->status;
}

int plX__exit_check(plX_emu *e) {
  xcta *c = e->C;
  if (!c->racc || !cta_gone(e, c)) return 0;
  c->racc = 0;
  if (c->racc_cl != e->H.clphase) return 0;                        /* a barrier.cluster completed since */
  xcta *a = &e->ctas[c->racc_rank];
  plB_buf b; plB_buf_init(&b);
  plB_buf_printf(&b, "%s by ", plX__opname(e, c->racc_stmt));
  plX__who(e, &b, a->ctaid, c->racc_tid);
  plB_buf_printf(&b, " %s shared 0x%x of CTA (%u,%u,%u), which then exited with nothing ordering the access before its exit "
                 "(no barrier.cluster completed between them, no mbarrier wait of that CTA after it): a CTA's shared memory must "
                 "not be accessed once that CTA may have exited; end the kernel with barrier.cluster.arrive and barrier.cluster.wait "
                 "in every CTA of the cluster, so that none exits while another may still access its shared memory",
                 c->racc_what, c->racc_off, c->ctaid[0], c->ctaid[1], c->ctaid[2]);
  plX__fail(e, c->racc_stmt, "%s", plB_buf_cstr(&b));
  plB_buf_free(&b);
  return e->status;
}

static void race_check(plX_emu *e, const xins *in, xcta *c, uint32_t off, uint32_t n, uint32_t tid, int write);
uint8_t *plX__mem(plX_emu *e, const xins *in, int space, uint64_t a, uint32_t n, uint32_t tid, int write) {
  if (space == XS_GENERIC) {
    if (a - X_SH_BASE < X_WIN) { space = XS_SHARED; a -= X_SH_BASE; }
    else if (a - X_LOC_BASE < X_WIN) { space = XS_LOCAL; a -= X_LOC_BASE; }
    else if (a - X_PAR_BASE < X_WIN) { space = XS_PARAM; a -= X_PAR_BASE; }
    else space = XS_GLOBAL;
  }
  if (n > 1 && (a & (n - 1))) {
    plB_buf b; plB_buf_init(&b);
    plB_buf_printf(&b, "misaligned %s by ", plX__opname(e, in->stmt));
    who(e, &b, tid);
    plB_buf_printf(&b, ": %s address 0x%llx is not a multiple of %u", space_name(space), (unsigned long long)a, n);
    plX__fail(e, in->stmt, "%s", plB_buf_cstr(&b));
    plB_buf_free(&b);
    return NULL;
  }
  switch (space) {
  case XS_GLOBAL: case XS_CONST: {
    xbuf *b = plX__find(e->mem, a, (int32_t *)&in->cache);
    if (!b || a - b->addr + n > b->size) return mem_fail(e, in, XS_GLOBAL, a, n, tid, "out-of-bounds");
    if (write && write != 4 && b->ro) return mem_fail(e, in, XS_CONST, a, n, tid, "write to constant memory by");
    if (!write && e->H.gst && plX__hop_gload(e, in, a, n, tid)) return NULL;   /* bulk stores in flight */
    if (e->gsync) {                                                /* the races check */
      if (write == 2) {                                            /* an atomic: checked before it counts for its CTA */
        if (plX__global_access(e, in, b, a - b->addr, n, tid, 2)) return NULL;
        e->gsync[e->C->cta_linear]++;
      } else {
        if (in->gsync & 1) e->gsync[e->C->cta_linear]++;
        if (write < 2 && plX__global_access(e, in, b, a - b->addr, n, tid, write)) return NULL;
      }
    }
    return b->p + (a - b->addr);
  }
  case XS_SHARED: {
    xcta *c = e->C;
    if (a >= ((uint64_t)1 << X_DSM_SHIFT) && a < X_WIN) {   /* a shared::cluster address (mapa) */
      uint32_t off;
      if (!plX__hop_smem(e, a, &c, &off)) return mem_fail(e, in, space, a, n, tid, "out-of-bounds (no such CTA in the cluster)");
      if (c != e->C && !(in->fl & XF_CLUSTER) && in->space != XS_GENERIC)
        return mem_fail(e, in, space, a, n, tid, "another CTA's shared memory (a shared::cluster address) in a .shared::cta access:");
      a = off;
    }
    if (a + n > e->smem_size) return mem_fail(e, in, space, a, n, tid, "out-of-bounds");
    if (c == e->C && (e->checks & (PLX_CHECK_UNINIT_SHARED | PLX_CHECK_RACES | X_CHECK_TRACK))) {
      plX__shared_access(e, in, (uint32_t)a, n, tid, write);
      if (e->status) return NULL;
    } else if (c != e->C && write) {                         /* into another CTA of the cluster */
      if (c->h.pw) { plX__hop_remote_write(e, in, c, (uint32_t)a, n, tid); if (e->status) return NULL; }
      if (c->smem_def) memset(c->smem_def + a, 1, n);
      if (c->h.rd.n && remote_clobber(e, in, c, (uint32_t)a, n, tid)) return NULL;
      if (c->race_e) { race_check(e, in, c, (uint32_t)a, n, tid, write == 2 ? 2 : 1); if (e->status) return NULL; }
    } else if (c != e->C && !write) {                         /* a read of another CTA's shared memory */
      if (e->H.q.n && plX__hop_inflight_read(e, in, &e->C->warps[tid / 32], (int)(tid % 32), c, (uint32_t)a, (uint32_t)a + n,
                                             plX__opname(e, in->stmt))) return NULL;
      if (c->race_e) { race_check(e, in, c, (uint32_t)a, n, tid, 0); if (e->status) return NULL; }
    }
    /* another CTA's that exited: always on (after the races check, which keeps its report back) */
    if (c != e->C && plX__exited(e, in->stmt, c, (uint32_t)a, tid, write == 2 ? "updates" : write ? "writes" : "reads")) return NULL;
    return c->smem + a;
  }
  case XS_LOCAL:
    if (a + n > e->local_size) return mem_fail(e, in, space, a, n, tid, "out-of-bounds");
    return e->C->local + (uint64_t)tid * e->local_size + a;
  case XS_PARAM:
    if (a + n > e->psize) return mem_fail(e, in, space, a, n, tid, "out-of-bounds");
    if (write) return mem_fail(e, in, space, a, n, tid, "write to a kernel parameter with");
    return e->pblock + a;
  }
  return mem_fail(e, in, space, a, n, tid, "bad state space in");
}

/* after a read of never-written shared memory: a cp.async still in flight to that byte is the likely
** cause (a missing or too-early cp.async.wait_group), so name it and its line */
static void pending_copy(plX_emu *e, plB_buf *b, uint32_t byte) {
  for (uint32_t t = 0; t < e->nthreads; t++) {
    const xcpq *q = &e->C->cpq[t];
    for (uint32_t j = q->head; j < q->q.n; j++) {
      const xcp *c = &q->q.p[j];
      if (byte < c->dst || byte - c->dst >= c->n) continue;
      plB_buf_printf(b, " (a cp.async of line %s by ", X_AT(e, e->xf.code[c->pc].stmt));
      who(e, b, t);
      plB_buf_puts(b, " writes it, still in flight: no cp.async.wait_group has covered its group)");
      return;
    }
  }
}

/* the races check holds back one report per thread (of the cluster: rank * nthreads + tid): that of
** a plain load of bytes another thread's unordered atomic wrote, when the atomics are its only
** conflict. The CUDA Programming Guide's CAS loop seeds its first atom.cas with such a load (`old =
** *addr; do { assumed = old; old = atomicCAS(addr, assumed, f(assumed)); } while (assumed != old)`):
** the value is a guess the CAS verifies, so an atom.cas by the thread on those bytes drops the report.
** The thread's exit, its barrier (bar, barrier.cluster, mbarrier wait), the end of its cluster's run
** or a second held-back report makes it, at the load's line, as it would have been made at once.
** cta: 0 global memory (lo, hi: addresses), else shared memory of the CTA of rank cta - 1 (offsets) */
struct xrpend { char *msg; uint32_t stmt, cta; uint64_t lo, hi; };
typedef struct xrpend xrpend;

static void rp_clear(plX_emu *e) {
  for (uint32_t i = 0; i < e->crpend; i++) { free(e->rpend[i].msg); e->rpend[i].msg = NULL; }
  e->nrpend = 0;
}

/* make the held-back report p */
static int rp_report(plX_emu *e, xrpend *p) {
  char *m = p->msg;
  p->msg = NULL;
  e->nrpend--;
  plX__optin(e, p->stmt, "%s", m);
  free(m);
  return e->status;
}

/* hold back the report m (taken) of a plain load by thread tid of e->C at stmt; a report held for the
** thread already is made instead (so is m itself when there is no room: out of memory, no races check) */
static int rp_hold(plX_emu *e, uint32_t tid, uint32_t stmt, uint32_t cta, uint64_t lo, uint64_t hi, plB_buf *m) {
  size_t i = (size_t)e->C->rank * e->nthreads + tid;
  if (!e->rpend || i >= e->crpend || m->oom) {
    plX__optin(e, stmt, "%s", plB_buf_cstr(m));
    plB_buf_free(m);
    return e->status;
  }
  xrpend *p = &e->rpend[i];
  if (p->msg) { plB_buf_free(m); return rp_report(e, p); }
  plB_buf_cstr(m);
  p->msg = m->p; p->stmt = stmt; p->cta = cta; p->lo = lo; p->hi = hi;
  e->nrpend++;
  return 0;
}

/* an atom.cas by thread tid of e->C on [lo, hi) (cta as in xrpend): the report held for its seed load goes */
static void rp_cas(plX_emu *e, uint32_t tid, uint32_t cta, uint64_t lo, uint64_t hi) {
  size_t i = (size_t)e->C->rank * e->nthreads + tid;
  if (!e->nrpend || i >= e->crpend) return;
  xrpend *p = &e->rpend[i];
  if (p->msg && p->cta == cta && lo < p->hi && p->lo < hi) { free(p->msg); p->msg = NULL; e->nrpend--; }
}

int plX__race_flush(plX_emu *e, const xwarp *w, uint32_t lanes) {
  if (!e->nrpend) return 0;
  for (uint32_t m = lanes; m; m &= m - 1) {
    size_t i = (size_t)e->C->rank * e->nthreads + (uint32_t)w->idx * 32 + (uint32_t)__builtin_ctz(m);
    if (i < e->crpend && e->rpend[i].msg && rp_report(e, &e->rpend[i])) return e->status;
  }
  return 0;
}

static int is_cas(const xins *in) { return in->op == X_ATOM && in->sub == XA_CAS; }

/* the races check names a thread by its CTA's rank in the cluster and its thread: rank * nthreads +
** tid + 1 (0: none), so that an access through shared::cluster is compared with the target CTA's own */
static void who_rank(plX_emu *e, plB_buf *b, uint32_t id) {
  plX__who(e, b, e->ctas[(id - 1) / e->nthreads].ctaid, (id - 1) % e->nthreads);
}

/* the races check on the shared memory of CTA c (the executing one's, or through shared::cluster
** another's of the cluster): two threads of different warps touching the same byte, at least one
** writing, with no barrier between them (epochs count the target CTA's barriers and the cluster's).
** write: 0 a read, 1 a write, 2 an atomic. Atomics never race with each other, nor with a strong
** access (.volatile, .relaxed, .acquire, .release: the PTX memory model's morally strong pairs; a
** .cta one covers its own CTA's atomics only); with a plain (weak) access they race. Per byte and
** epoch, ids (rank * nthreads + tid + 1, below 2^14 + 2: 15 bits; X_RMANY: threads of two warps or
** more): race_w holds the last writer (bits 0-14), whether it was strong (X_RSTRONG) and the atomics
** (bits 16-30); race_r the first reader (bits 0-14), the weak readers (bits 15-29) and whether
** threads of two warps read it (X_RREADERS) */
#define X_RID 0x7fffu
#define X_RMANY 0x7fffu
#define X_RSTRONG 0x8000u
#define X_RREADERS 0x80000000u
static void race_msg(plX_emu *e, plB_buf *b, const xins *in, xcta *c, uint32_t byte, uint32_t tid, int write, uint32_t other, int otherk) {
  static const char *const now[] = { "reads", "writes", "updates" }, *const then[] = { "read", "wrote", "updated" };
  plB_buf_printf(b, "shared-memory race on byte 0x%x", byte);
  if (c != e->C) plB_buf_printf(b, " of CTA (%u,%u,%u)", c->ctaid[0], c->ctaid[1], c->ctaid[2]);
  plB_buf_printf(b, ": %s by ", plX__opname(e, in->stmt));
  who(e, b, tid);
  plB_buf_printf(b, " %s it%s", now[write], write == 2 ? " atomically" : "");
  if (other == X_RMANY) plB_buf_printf(b, " while threads of other warps %s it%s", otherk == 2 ? "update" : "read", otherk == 2 ? " atomically" : "");
  else {
    plB_buf_printf(b, " after ");
    who_rank(e, b, other);
    plB_buf_printf(b, " %s it%s", then[otherk], otherk == 2 ? " atomically" : "");
  }
  plB_buf_puts(b, c != e->C || (other != X_RMANY && (other - 1) / e->nthreads != e->C->rank)
               ? " with no barrier.cluster between" : " with no barrier between");
  if (write == 2 || otherk == 2)
    plB_buf_puts(b, " (an atomic and a plain access race: only two atomics, or an atomic and a strong access such as ld.volatile, do not)");
}
static void race_report(plX_emu *e, const xins *in, xcta *c, uint32_t byte, uint32_t tid, int write, uint32_t other, int otherk) {
  plB_buf b; plB_buf_init(&b);
  race_msg(e, &b, in, c, byte, tid, write, other, otherk);
  plX__optin(e, in->stmt, "%s", plB_buf_cstr(&b));
  plB_buf_free(&b);
}

static void race_check(plX_emu *e, const xins *in, xcta *c, uint32_t off, uint32_t n, uint32_t tid, int write) {
  uint32_t me = e->C->rank * e->nthreads + tid + 1;
  uint32_t sc = write < 2 ? (uint32_t)(in->gsync >> 1 & 3) : 0;   /* a strong ld/st's scope */
#define X_SAMEWARP(id) (((id) - 1) / e->nthreads == e->C->rank && ((id) - 1) % e->nthreads / 32 == tid / 32)
#define X_OTHER(id) ((id) == X_RMANY || ((id) && !X_SAMEWARP(id)))
  int cas = write == 2 && is_cas(in), held = 0;
  if (cas) rp_cas(e, tid, c->rank + 1, off, (uint64_t)off + n);
  for (uint32_t i = off; i < off + n; i++) {
    if (c->race_e[i] != c->epoch) { c->race_e[i] = c->epoch; c->race_w[i] = 0; c->race_r[i] = 0; }
    uint32_t w = c->race_w[i], r = c->race_r[i];
    uint32_t ow = w & X_RID, oa = w >> 16 & X_RID, orr = r & X_RID, owr = r >> 15 & X_RID;
    uint32_t other = 0; int otherk = 0;
    if (ow && !X_SAMEWARP(ow) && !(write == 2 && (w & X_RSTRONG))) { other = ow; otherk = 1; }
    else if (write == 1 && (r & X_RREADERS)) other = X_RMANY;
    else if (write == 1 && orr && !X_SAMEWARP(orr)) other = orr;
    else if (write == 2 && X_OTHER(owr)) other = owr;
    else if (write < 2 && X_OTHER(oa) && !(sc >= 2 || (sc == 1 && oa != X_RMANY && (oa - 1) / e->nthreads == e->C->rank))) {
      other = oa; otherk = 2;
    }
    if (other && write == 0 && otherk == 2) {                     /* a load after atomics only: held back (a CAS seed?) */
      if (!held) {
        plB_buf b; plB_buf_init(&b);
        race_msg(e, &b, in, c, i, tid, write, other, otherk);
        if (rp_hold(e, tid, in->stmt, c->rank + 1, off, (uint64_t)off + n, &b)) return;
        held = 1;
      }
      other = 0;
    }
    if (other) { race_report(e, in, c, i, tid, write, other, otherk); return; }
    if (write == 1) c->race_w[i] = (w & ~(X_RID | X_RSTRONG)) | me | (sc ? X_RSTRONG : 0);
    else if (write == 2) {
      if (!oa) c->race_w[i] = w | me << 16;
      else if (oa != me && oa != X_RMANY && !X_SAMEWARP(oa)) c->race_w[i] = w | X_RMANY << 16;
      if (cas) {                                                   /* its own plain reads are forgotten: the CAS re-reads */
        if (owr == me) r &= ~(X_RID << 15);
        if (orr == me && !(r & X_RREADERS)) r &= ~X_RID;
        c->race_r[i] = r;
      }
    } else {
      if (!orr) r |= me;
      else if (orr != me && !X_SAMEWARP(orr)) r |= X_RREADERS;
      if (!sc) {
        if (!owr) r |= me << 15;
        else if (owr != me && owr != X_RMANY && !X_SAMEWARP(owr)) r |= X_RMANY << 15;
      }
      c->race_r[i] = r;
    }
  }
#undef X_OTHER
#undef X_SAMEWARP
}

/* opt-in checks of shared memory: bytes never written; two threads of different warps touching
** the same byte, at least one writing, with no barrier between them (epochs count barriers) */
void plX__shared_access(plX_emu *e, const xins *in, uint32_t off, uint32_t n, uint32_t tid, int write) {
  if (!write && e->H.q.n &&
      plX__hop_inflight_read(e, in, &e->C->warps[tid / 32], (int)(tid % 32), e->C, off, off + n, plX__opname(e, in->stmt))) return;
  if (write && e->C->h.pw) plX__hop_generic_write(e, in, off, n, tid);
  if (write && e->C->h.rd.n && plX__hop_wg_clobber(e, in->stmt, e->C, off, n, (int)(tid / 32), plX__opname(e, in->stmt))) return;
  if (!(e->checks & (PLX_CHECK_UNINIT_SHARED | PLX_CHECK_RACES))) return;
  for (uint32_t i = off; i < off + n; i++) {
    if ((e->checks & PLX_CHECK_UNINIT_SHARED) && !write && !e->C->smem_def[i]) {
      plB_buf b; plB_buf_init(&b);
      plB_buf_printf(&b, "%s by ", plX__opname(e, in->stmt));
      who(e, &b, tid);
      plB_buf_printf(&b, " reads shared byte 0x%x, which no thread has written", i);
      pending_copy(e, &b, i);
      plX__optin(e, in->stmt, "%s", plB_buf_cstr(&b));
      plB_buf_free(&b);
      return;
    }
    if (write && e->C->smem_def) e->C->smem_def[i] = 1;
  }
  if (e->checks & PLX_CHECK_RACES) race_check(e, in, e->C, off, n, tid, write);
}

/* the races check on global memory. A launch's CTAs run one cluster after another here, in any
** order on a GPU, so two accesses of one byte by two CTAs, at least one a write, race unless
** something orders them: in one cluster, a barrier, mbarrier phase or barrier.cluster completed
** between them (any of the cluster: lenient); in two clusters, a fence, an atomic or a strong
** (.volatile/.relaxed/.acquire/.release) access of global memory by the first access's CTA after it
** and one by the second's CTA before it (any such, at any time: lenient; the handshake of a split-K
** or a last-block reduction). Two threads of one warp are never reported against each other.
** Atomics (and the async proxy's reductions, cp.reduce.async.bulk: each element a .relaxed.gpu
** atomic) never race with each other, nor with a strong access whose scope covers both threads (the
** PTX memory model: both morally strong); with a plain (weak) access they race as two plain accesses
** do, an atomic ordering itself after it (it is its own release: only the second CTA's fence, atomic
** or strong access before its access is asked for; and an atomic second does not count itself).
** Each byte remembers its last plain write (xgw), the plain reads since (xgr) and its latest atomics
** (xga): a read is checked against the write and the atomics, a write against the write, the reads
** and the atomics, an atomic against the write and the reads. TMA and bulk loads read as their
** issuing thread; TMA and bulk stores write as theirs. */
static void who_cta(plX_emu *e, plB_buf *b, uint32_t cta, uint32_t tid) {
  const uint32_t id[3] = { cta % e->grid[0], cta / e->grid[0] % e->grid[1], (uint32_t)(cta / ((uint64_t)e->grid[0] * e->grid[1])) };
  plX__who(e, b, id, tid);
}

/* the event of an access by thread tid of the executing CTA at stmt now (pending: a bulk store's;
** strong: a strong ld/st's scope), the thread's last one when nothing changed since; X_NOSLOT when
** out of memory */
static uint32_t g_event(plX_emu *e, uint32_t tid, uint32_t stmt, int pending, uint32_t strong) {
  uint32_t me = (uint32_t)e->C->cta_linear, gs = pending ? XGW_PENDING : e->gsync[me];
  uint32_t *c = &e->gevc[(size_t)e->C->rank * e->nthreads + tid];
  if (*c < e->ngev) {
    const xgev *v = &e->gev[*c];
    if (v->stmt == stmt && v->bars == e->gbars && v->gsync == gs && v->cta == me && v->clser == e->clser && v->tid == tid &&
        v->strong == strong) return *c;
  }
  if (e->ngev == e->cgev) {
    uint32_t nc = e->cgev ? e->cgev * 2 : 4096;
    xgev *p = nc > e->cgev && nc < X_NOSLOT ? realloc(e->gev, (size_t)nc * sizeof *p) : NULL;
    if (!p) return X_NOSLOT;
    e->gev = p; e->cgev = nc;
  }
  xgev *v = &e->gev[e->ngev];
  v->cta = me; v->stmt = stmt; v->clser = e->clser; v->bars = e->gbars; v->gsync = gs; v->tid = (uint16_t)tid;
  v->strong = (uint16_t)strong;
  return *c = e->ngev++;
}

/* is an access by thread tid of the executing CTA (me) ordered after the access v? */
static int g_ordered(const plX_emu *e, const xgev *v, uint32_t me, uint32_t tid) {
  int same_cta = v->cta == me && v->clser == e->clser;
  if (same_cta && v->tid / 32u == tid / 32) return 1;              /* (a load of a store in flight: plX__hop_gload) */
  if (v->gsync == XGW_PENDING) return 0;                           /* a bulk store no wait_group has completed */
  if (v->clser == e->clser && v->bars != e->gbars) return 1;
  return !same_cta && e->gsync[v->cta] > v->gsync && e->gsync[me] > 0;
}

/* does a strong access of scope s by a thread of CTA (cta, clser) cover a thread of CTA (cta2, clser2)? */
static int g_covers(uint32_t s, uint32_t cta, uint32_t clser, uint32_t cta2, uint32_t clser2) {
  return s == 3 || (s == 2 && clser == clser2) || (s == 1 && clser == clser2 && cta == cta2);
}

enum { GK_READ, GK_WRITE, GK_ATOMIC };                             /* the kinds of access a race names */

/* why the earlier access v (of kind vk) is not ordered before the executing one (of kind k) */
static const char *g_why(const plX_emu *e, const xgev *v, uint32_t me, int vk, int k) {
  if (v->gsync == XGW_PENDING)
    return "a TMA or bulk store is ordered with other threads only once a cp.async.bulk.wait_group (not .read) "
           "has completed its bulk group, then a barrier, or a fence or atomic";
  int atomic = vk == GK_ATOMIC || k == GK_ATOMIC;
  if (v->cta == me && v->clser == e->clser)
    return atomic ? "no barrier completed between them (an atomic and a plain access race: only two atomics, or an atomic "
                    "and a strong access such as ld.relaxed.gpu, do not)" : "no barrier completed between them";
  if (v->clser == e->clser)
    return atomic ? "no barrier, mbarrier phase or barrier.cluster completed between them (an atomic and a plain access "
                    "race: only two atomics, or an atomic and a strong access such as ld.relaxed.gpu, do not)"
                  : "no barrier, mbarrier phase or barrier.cluster completed between them";
  if (vk == GK_ATOMIC)
    return "two CTAs of other clusters run in any order (a fence, atomic or strong access by the second CTA before its access "
           "orders it after the atomic; an atomic and a plain access race: a strong access such as ld.relaxed.gpu or "
           "ld.acquire.gpu would not)";
  if (k == GK_ATOMIC)
    return vk == GK_WRITE ? "two CTAs of other clusters run in any order (a fence or atomic by the writer after its store and one "
                            "by the atomic's CTA before the atomic, not the atomic itself, order them)"
                          : "two CTAs of other clusters run in any order (a fence or atomic by the reader's CTA after its load and "
                            "one by the atomic's CTA before the atomic, not the atomic itself, order them)";
  return vk == GK_WRITE ? "two CTAs of other clusters run in any order (a fence or atomic by the writer after its store and one by the other before its access order them)"
                        : "two CTAs of other clusters run in any order (a fence or atomic by the reader's CTA after its load and one by the writer's before its store order them)";
}

/* the executing access (of kind k) of byte i of b races with the access v (of kind vk) */
static void g_msg(plX_emu *e, plB_buf *m, const xins *in, const xbuf *b, uint64_t i, uint32_t tid, int k, const xgev *v, int vk) {
  static const char *const now[] = { "reads", "writes", "updates" }, *const then[] = { "read", "wrote", "updated" };
  uint32_t me = (uint32_t)e->C->cta_linear;
  plB_buf_printf(m, "global-memory race on byte %llu of buffer '%s' (address 0x%llx): %s by ", (unsigned long long)i,
                 b->name ? b->name : "?", (unsigned long long)(b->addr + i), plX__opname(e, in->stmt));
  who(e, m, tid);
  plB_buf_printf(m, " %s it%s after ", now[k], k == GK_ATOMIC ? " atomically" : "");
  who_cta(e, m, v->cta, v->tid);
  plB_buf_printf(m, " %s it%s (line %s) with nothing ordering the two: %s", then[vk], vk == GK_ATOMIC ? " atomically" : "",
                 X_AT(e, v->stmt), g_why(e, v, me, vk, k));
}
static int g_race(plX_emu *e, const xins *in, const xbuf *b, uint64_t i, uint32_t tid, int k, const xgev *v, int vk) {
  plB_buf m; plB_buf_init(&m);
  g_msg(e, &m, in, b, i, tid, k, v, vk);
  plX__optin(e, in->stmt, "%s", plB_buf_cstr(&m));
  plB_buf_free(&m);
  return e->status;
}

/* the async proxy's read (a TMA or bulk load) of byte i of b, which a generic store (v) wrote with no
** fence.proxy.async covering global memory after it: by the writer's CTA after the store, or (another
** CTA's store) by the reader's CTA before this load (lenient: any thread of the CTA, at any time) */
static int g_proxy(plX_emu *e, const xins *in, const xbuf *b, uint64_t i, uint32_t tid, const xgev *v, int same_cta) {
  plB_buf m; plB_buf_init(&m);
  plB_buf_printf(&m, "%s by ", plX__opname(e, in->stmt));
  who(e, &m, tid);
  plB_buf_printf(&m, " reads byte %llu of buffer '%s' (address 0x%llx) through the async proxy, written by ", (unsigned long long)i,
                 b->name ? b->name : "?", (unsigned long long)(b->addr + i));
  who_cta(e, &m, v->cta, v->tid);
  plB_buf_printf(&m, " with an ordinary store (line %s) and no fence.proxy.async (.global, or no state space) %s: the async proxy "
                 "may not see it", X_AT(e, v->stmt), same_cta ? "by that CTA between the two" : "by either CTA since");
  plX__optin(e, in->stmt, "%s", plB_buf_cstr(&m));
  plB_buf_free(&m);
  return e->status;
}

/* record the read ev (by thread tid of the executing CTA, me) of the byte q describes */
static void g_read(plX_emu *e, xgr *q, uint32_t gen, uint32_t me, uint32_t tid, uint32_t ev) {
  if (q->gen != gen) { q->gen = gen; q->fl = 0; }
  else if (q->r == ev) return;
  else if (q->clser != e->clser) {                                 /* its cluster run ended: its CTAs' counts are final */
    const xgev *r = &e->gev[q->r], *r2 = (q->fl & XGR_R2) ? &e->gev[q->r2] : NULL;
    int rel1 = e->gsync[r->cta] > r->gsync, rel2 = !r2 || e->gsync[r2->cta] > r2->gsync;
    if (!(q->fl & XGR_O) || ((q->fl & XGR_OREL) && !(rel1 && rel2))) {   /* an unordered one stays */
      q->o = rel1 && !rel2 ? q->r2 : q->r;
      q->fl = (q->fl & ~(uint32_t)XGR_OREL) | XGR_O | (rel1 && rel2 ? XGR_OREL : 0);
    }
    q->fl &= ~(uint32_t)XGR_R2;
  } else {
    const xgev *r = &e->gev[q->r];
    if (r->cta == me && r->tid / 32u == tid / 32) { q->r = ev; return; }   /* the same warp again: the latest moves */
    q->r2 = q->r; q->fl |= XGR_R2;                                 /* another warp: the latest becomes the second */
  }
  q->r = ev; q->clser = e->clser;
}

/* the atomics recorded for a byte (ga), checked against a plain access by thread tid of the executing
** CTA (me), of strong scope sc: the one it races with, or NULL */
static const xgev *g_atomics(plX_emu *e, const xga *ga, uint32_t me, uint32_t tid, uint32_t sc) {
  for (int j = 0; j < 2; j++) {
    uint32_t a = j ? ga->a2 : ga->a;
    if (a == X_NOSLOT) continue;
    const xgev *v = &e->gev[a];
    if (!g_ordered(e, v, me, tid) && !g_covers(sc, me, e->clser, v->cta, v->clser)) return v;
  }
  return NULL;
}

/* an atom.cas by thread tid of the executing CTA (me) of the byte q describes: its own plain read of
** it is forgotten (the CAS re-reads it atomically; the CAS loop's seed load) */
static void g_forget(plX_emu *e, xgr *q, uint32_t gen, uint32_t me, uint32_t tid) {
#define X_MINE(ev) (e->gev[ev].cta == me && e->gev[ev].clser == e->clser && e->gev[ev].tid == tid)
  if (!q || q->gen != gen) return;
  if ((q->fl & XGR_R2) && X_MINE(q->r2)) q->fl &= ~(uint32_t)XGR_R2;
  if (!X_MINE(q->r)) return;
  if (q->fl & XGR_R2) { q->r = q->r2; q->fl &= ~(uint32_t)XGR_R2; }
  else if (q->fl & XGR_O) { q->r = q->o; q->clser = e->gev[q->o].clser; }   /* o stands for the latest too */
  else q->gen = 0;
#undef X_MINE
}

/* record the atomic ev (by thread tid of the executing CTA, me) of the byte ga describes */
static void g_atomic(plX_emu *e, xga *ga, uint32_t gen, uint32_t me, uint32_t tid, uint32_t ev) {
  if (ga->gen != gen) { ga->gen = gen; ga->a = ev; ga->a2 = X_NOSLOT; return; }
  if (ga->a == ev) return;
  const xgev *v = &e->gev[ga->a];
  if (!(v->cta == me && v->clser == e->clser && v->tid / 32u == tid / 32)) ga->a2 = ga->a;   /* another warp's: the second */
  ga->a = ev;
}

/* is the recorded plain access v a strong one covering the executing atomic's thread? */
static int g_strong(const plX_emu *e, const xgev *v, uint32_t me) { return g_covers(v->strong, v->cta, v->clser, me, e->clser); }

int plX__global_access(plX_emu *e, const xins *in, xbuf *b, uint64_t o, uint32_t n, uint32_t tid, int write) {
  if (b->ro) return 0;                                             /* constant memory: never written */
  int async = write == 3, aread = write == 5, atomic = write == 2;
  uint32_t sc = write < 2 ? (uint32_t)(in->gsync >> 1 & 3) : 0;   /* a strong ld/st's scope */
  int k = atomic ? GK_ATOMIC : write == 1 || async ? GK_WRITE : GK_READ;
  write = k != GK_READ;
  if (atomic ? !b->ga : write ? !b->gw : !b->gr) {                /* made at the first write, read or atomic */
    void *p = atomic ? (void *)(b->ga = calloc((size_t)b->size, sizeof *b->ga))
            : write ? (void *)(b->gw = calloc((size_t)b->size, sizeof *b->gw)) : (void *)(b->gr = calloc((size_t)b->size, sizeof *b->gr));
    if (!p) return plX__fail(e, in->stmt, "out of memory (the races check on global memory)");
  }
  uint32_t gen = e->mem->gwgen, me = (uint32_t)e->C->cta_linear;
  uint32_t ev = g_event(e, tid, in->stmt, async, sc);
  if (ev == X_NOSLOT) return plX__fail(e, in->stmt, "out of memory (the races check on global memory)");
  int cas = atomic && is_cas(in), held = 0;
  if (cas) rp_cas(e, tid, 0, b->addr + o, b->addr + o + n);
  for (uint64_t i = o; i < o + n; i++) {
    xgw *r = b->gw ? &b->gw[i] : NULL;
    if (r && r->gen == gen) {
      const xgev *v = &e->gev[r->ev];
      if (!g_ordered(e, v, me, tid) && !(atomic && g_strong(e, v, me))) return g_race(e, in, b, i, tid, k, v, GK_WRITE);
      int same_cta = v->cta == me && v->clser == e->clser;
      if (aread && r->pf != XGW_ASYNC && e->gpf[v->cta] == r->pf && (same_cta || !e->gpf[me]))
        return g_proxy(e, in, b, i, tid, v, same_cta);
    }
    xga *ga = b->ga ? &b->ga[i] : NULL;
    const xgev *va = !atomic && ga && ga->gen == gen ? g_atomics(e, ga, me, tid, sc) : NULL;
    if (va && k == GK_READ && !aread) {                            /* a load after atomics only: held back (a CAS seed?) */
      if (!held) {
        plB_buf m; plB_buf_init(&m);
        g_msg(e, &m, in, b, i, tid, k, va, GK_ATOMIC);
        if (rp_hold(e, tid, in->stmt, 0, b->addr + o, b->addr + o + n, &m)) return e->status;
        held = 1;
      }
    } else if (va) return g_race(e, in, b, i, tid, k, va, GK_ATOMIC);
    xgr *q = b->gr ? &b->gr[i] : NULL;
    if (!write) { g_read(e, q, gen, me, tid, ev); continue; }
    if (q && q->gen == gen) {                                      /* write (or atomic) after read */
      const xgev *v = &e->gev[q->r];
      if (!g_ordered(e, v, me, tid) && !(atomic && g_strong(e, v, me))) return g_race(e, in, b, i, tid, k, v, GK_READ);
      if ((q->fl & XGR_R2) && !g_ordered(e, v = &e->gev[q->r2], me, tid) && !(atomic && g_strong(e, v, me)))
        return g_race(e, in, b, i, tid, k, v, GK_READ);
      if ((q->fl & XGR_O) && !((q->fl & XGR_OREL) && e->gsync[me] > 0) && !(atomic && g_strong(e, &e->gev[q->o], me)))
        return g_race(e, in, b, i, tid, k, &e->gev[q->o], GK_READ);
      if (!atomic) q->gen = 0;                                     /* ordered before this write: forgotten */
    }
    if (cas) g_forget(e, q, gen, me, tid);
    if (atomic) { g_atomic(e, ga, gen, me, tid, ev); continue; }
    r->gen = gen; r->ev = ev; r->pf = async ? XGW_ASYNC : e->gpf[me];
  }
  return 0;
}

/* a bulk store of the executing CTA to global [lo, hi) completed (a wait_group without .read): its
** bytes are ordered as a plain store made now would be */
void plX__global_done(plX_emu *e, uint64_t lo, uint64_t hi) {
  int32_t cache = -1;
  xbuf *b = lo < hi ? plX__find(e->mem, lo, &cache) : NULL;
  if (!b || !b->gw) return;
  uint32_t gen = e->mem->gwgen, me = (uint32_t)e->C->cta_linear, from = X_NOSLOT, to = X_NOSLOT;
  uint64_t end = hi - b->addr < b->size ? hi - b->addr : b->size;
  for (uint64_t i = lo - b->addr; i < end; i++) {
    xgw *r = &b->gw[i];
    if (r->gen != gen) continue;
    if (r->ev != from) {
      const xgev *v = &e->gev[r->ev];
      if (v->cta != me || v->clser != e->clser || v->gsync != XGW_PENDING) continue;
      uint32_t nv = g_event(e, v->tid, v->stmt, 0, 0);
      if (nv == X_NOSLOT) return;                                  /* out of memory: stays pending (a report, not a crash) */
      from = r->ev; to = nv;
    }
    r->ev = to;
  }
}

/* ---- CTAs -------------------------------------------------------------------------------------- */
static int setup_cta(plX_emu *e, xcta *C) {
  const xfunc *x = &e->xf;
  uint32_t nt = e->block[0] * e->block[1] * e->block[2];
  uint32_t nw = (nt + 31) / 32;
  unsigned ck = e->checks & (PLX_CHECK_UNINIT_REGS | PLX_CHECK_UNINIT_SHARED | PLX_CHECK_RACES);
  if (C->warp_cap && (C->cap_threads != nt || C->cap_smem != e->smem_size || C->cap_checks != ck)) {
    xcta keep = *C;                                                /* its place in the grid and the cluster stays */
    free_cta(C, C->cap_threads);
    memcpy(C->ctaid, keep.ctaid, sizeof C->ctaid); C->cta_linear = keep.cta_linear; C->rank = keep.rank;
  }
  e->C = C;
  if (e->C->warp_cap != nw) {
    e->C->warps = calloc(nw, sizeof *e->C->warps);
    e->C->Rall = malloc((size_t)nw * x->nslots * 32 * sizeof(uint64_t));
    e->C->Pall = malloc((size_t)nw * x->npreds * sizeof(uint32_t));
    e->C->smem = malloc(e->smem_size ? e->smem_size : 1);
    e->C->local = malloc((size_t)nt * (e->local_size ? e->local_size : 1));
    e->C->cpq = calloc(nt, sizeof *e->C->cpq);
    e->C->cstack = malloc((size_t)nt * (e->maxdepth ? e->maxdepth : 1) * sizeof *e->C->cstack);
    e->C->cdepth = malloc((size_t)nt * sizeof *e->C->cdepth);
    if (!e->C->cstack || !e->C->cdepth) return plX__fail(e, X_NOSLOT, "out of memory");
    if (e->has_rec && !(e->C->fstk = calloc(nt, sizeof *e->C->fstk))) return plX__fail(e, X_NOSLOT, "out of memory");
    if (!e->C->warps || !e->C->Rall || !e->C->Pall || !e->C->smem || !e->C->local || !e->C->cpq) return plX__fail(e, X_NOSLOT, "out of memory");
    if (e->checks & PLX_CHECK_UNINIT_REGS) {
      e->C->rdefall = malloc((size_t)nw * x->nslots * sizeof(uint32_t));
      e->C->pdefall = malloc((size_t)nw * x->npreds * sizeof(uint32_t));
      if (!e->C->rdefall || !e->C->pdefall) return plX__fail(e, X_NOSLOT, "out of memory");
    }
    if (e->checks & (PLX_CHECK_UNINIT_SHARED | PLX_CHECK_RACES)) {
      e->C->smem_def = malloc(e->smem_size ? e->smem_size : 1);
      if (!e->C->smem_def) return plX__fail(e, X_NOSLOT, "out of memory");
    }
    if (e->checks & PLX_CHECK_RACES) {
      size_t n = e->smem_size ? e->smem_size : 1;
      e->C->race_w = malloc(n * 4); e->C->race_r = malloc(n * 4); e->C->race_e = malloc(n * 4);
      if (!e->C->race_w || !e->C->race_r || !e->C->race_e) return plX__fail(e, X_NOSLOT, "out of memory");
    }
    e->C->warp_cap = nw;
    C->cap_threads = nt; C->cap_smem = e->smem_size; C->cap_checks = ck;
  }
  memset(e->C->smem, 0, e->smem_size ? e->smem_size : 1);
  memset(e->C->local, 0, (size_t)nt * (e->local_size ? e->local_size : 1));
  memset(e->C->cdepth, 0, (size_t)nt * sizeof *e->C->cdepth);
  if (e->C->fstk) for (uint32_t i = 0; i < nt; i++) e->C->fstk[i].n = 0;
  if (e->C->smem_def) memset(e->C->smem_def, 0, e->smem_size ? e->smem_size : 1);
  if (e->C->race_e) { memset(e->C->race_e, 0xff, (size_t)(e->smem_size ? e->smem_size : 1) * 4); }
  e->C->epoch = 0;
  size_t rs = (size_t)x->nslots * 32;
  for (uint32_t w = 0; w < nw; w++) {
    xwarp *W = &e->C->warps[w];
    memset(W, 0, sizeof *W);
    W->idx = (int)w;
    for (int l = 0; l < 32; l++) W->pc[l] = e->entry_pc;
    W->R = e->C->Rall + w * rs;
    W->P = e->C->Pall + (size_t)w * x->npreds;
    memset(W->R, 0, x->nregslots * 32 * sizeof(uint64_t) + 32 * sizeof(uint64_t));
    for (uint32_t c = 0; c < x->nconsts; c++) {
      uint64_t *s = W->R + (size_t)(x->nregslots + 1 + c) * 32, v = x->consts[c];
      for (int l = 0; l < 32; l++) s[l] = v;
    }
    memset(W->P, 0, x->npreds * sizeof(uint32_t));
    if (e->C->rdefall) {
      W->rdef = e->C->rdefall + (size_t)w * x->nslots;
      W->pdef = e->C->pdefall + (size_t)w * x->npreds;
      memset(W->rdef, 0, x->nslots * sizeof(uint32_t));
      for (uint32_t s = x->nregslots; s < x->nslots; s++) W->rdef[s] = 0xffffffffu;  /* junk and constants */
      memset(W->pdef, 0, x->npreds * sizeof(uint32_t));
      W->pdef[x->npreds - 1] = 0xffffffffu;
    }
    uint32_t n = nt - w * 32 < 32 ? nt - w * 32 : 32;
    W->exists = n == 32 ? 0xffffffffu : ((1u << n) - 1);
  }
  for (int i = 0; i < 16; i++) { xbar *b = &e->C->bars[i]; b->expected = b->arrived = 0; b->red.n = 0; }
  for (uint32_t t = 0; t < nt; t++) { e->C->cpq[t].q.n = 0; e->C->cpq[t].head = 0; e->C->cpq[t].gnext = 0; }
  C->done = 0; C->racc = 0;
  return plX__hop_setup(e, C);
}

/* the deadlock report: which barrier waits, for how many, and where every other thread is */
static int deadlock(plX_emu *e) {
  if (e->H.used && plX__hop_tx_stuck(e)) return e->status;       /* a phase's bytes: more precise */
  xwarp *W = NULL; int lane = 0;
  for (uint32_t c = 0; c < e->H.ncl && !W; c++) {
    e->C = &e->ctas[c];
    for (uint32_t w = 0; w < e->nwarps && !W; w++)
      if (e->C->warps[w].waiting & ~e->C->warps[w].exited) { W = &e->C->warps[w]; lane = __builtin_ctz(W->waiting & ~W->exited); }
  }
  if (!W) return plX__fail(e, X_NOSLOT, "deadlock");
  plB_buf m; plB_buf_init(&m);
  int id = W->bid[lane];
  uint32_t stmt = e->xf.code[W->bpc[lane]].stmt;
  if (id >= XB_MBAR) plX__hop_deadlock(e, &m, W, lane);
  else {
    xbar *b = &e->C->bars[id];
    plB_buf_printf(&m, "deadlock in CTA (%u,%u,%u): %s waits on barrier %d for %u threads, %u arrived",
                   e->C->ctaid[0], e->C->ctaid[1], e->C->ctaid[2], plX__opname(e, stmt), id, b->expected, b->arrived);
  }
  int shown = 0;
  for (uint32_t w = 0; w < e->nwarps && shown < 4; w++) {
    xwarp *X = &e->C->warps[w];
    uint32_t ex = X->exited & X->exists, other = X->waiting & X->exists & ~X->exited;
    uint32_t elsewhere = 0;
    for (int l = 0; l < 32; l++) if ((other >> l & 1) && (X->bid[l] != id || X->bpc[l] != W->bpc[lane])) elsewhere |= 1u << l;
    if (ex) {
      const xins *xi = &e->xf.code[X->exitpc];
      plB_buf_printf(&m, "; warp %u: %d thread%s exited", w, __builtin_popcount(ex), __builtin_popcount(ex) == 1 ? "" : "s");
      if (xi->sub) plB_buf_puts(&m, " (at the end of the kernel)");
      else plB_buf_printf(&m, " (line %s)", X_AT(e, xi->stmt));
      shown++;
    }
    if (elsewhere) {
      int l = __builtin_ctz(elsewhere);
      int b = X->bid[l];
      plB_buf_printf(&m, "; warp %u: %d thread%s wait ", w, __builtin_popcount(elsewhere), __builtin_popcount(elsewhere) == 1 ? "" : "s");
      if (b < XB_MBAR) plB_buf_printf(&m, "on barrier %d", b);
      else plB_buf_printf(&m, "in %s", plX__opname(e, e->xf.code[X->bpc[l]].stmt));
      plB_buf_printf(&m, " (line %s)", X_AT(e, e->xf.code[X->bpc[l]].stmt));
      shown++;
    }
  }
  plX__fail(e, stmt, "%s", plB_buf_cstr(&m));
  plB_buf_free(&m);
  return e->status;
}

/* ---- the budget and SIGINT: where every warp still running is --------------------------------
** One line per place: the warps (of the CTAs of the cluster being run) whose threads are at one
** instruction, running or waiting there, in program order with the executing one's first; each
** names its threads, CTA and the instructions its warps ran. At most X_WHERE_LINES lines. */
volatile sig_atomic_t plX__sigint;
void plX_interrupt(void) { plX__sigint = 1; }

#define X_WHERE_LINES 8
typedef struct xwhere {
  uint32_t stmt, rank, warp, lanes;     /* where, the CTA's rank and the warp, its lanes there */
  int bid;                              /* the barrier they wait at (xwarp.bid), -1 running */
  uint64_t clock;                       /* the warp's instructions (0: it has not started) */
} xwhere;
#define X_SAMEPLACE(a, b) \
  ((a).stmt == (b).stmt && (a).bid == (b).bid && ((a).clock == 0) == ((b).clock == 0))

static int where_cmp(const void *pa, const void *pb) {
  const xwhere *a = pa, *b = pb;
  if (a->stmt != b->stmt) return a->stmt < b->stmt ? -1 : 1;
  if (a->bid != b->bid) return a->bid < b->bid ? -1 : 1;
  if ((a->clock == 0) != (b->clock == 0)) return a->clock == 0 ? 1 : -1;   /* not started: last */
  if (a->rank != b->rank) return a->rank < b->rank ? -1 : 1;
  return a->warp < b->warp ? -1 : a->warp > b->warp;
}

/* "threads (0,0,0)..(63,0,0) of CTA (0,0,0) (warps 0-1)" for the warps [i, j) of one CTA, all their
** listed lanes; a single partial warp: its thread count and first thread */
static void where_who(plX_emu *e, plB_buf *b, const xwhere *v, uint32_t i, uint32_t j) {
  const xcta *c = &e->ctas[v[i].rank];
  uint32_t first = v[i].warp * 32 + (uint32_t)__builtin_ctz(v[i].lanes);
  uint32_t last = v[j - 1].warp * 32 + 31 - (uint32_t)__builtin_clz(v[j - 1].lanes);
  uint32_t n = 0;
  for (uint32_t k = i; k < j; k++) n += (uint32_t)__builtin_popcount(v[k].lanes);
  if (n == 1) {
    plX__who(e, b, c->ctaid, first);
    plB_buf_printf(b, " (warp %u)", v[i].warp);
    return;
  }
  const uint32_t *B = e->block;
  uint32_t fx = first % B[0], fy = first / B[0] % B[1], fz = first / (B[0] * B[1]);
  uint32_t lx = last % B[0], ly = last / B[0] % B[1], lz = last / (B[0] * B[1]);
  if (n == last - first + 1)
    plB_buf_printf(b, "threads (%u,%u,%u)..(%u,%u,%u)", fx, fy, fz, lx, ly, lz);
  else
    plB_buf_printf(b, "%u threads from (%u,%u,%u)", n, fx, fy, fz);
  plB_buf_printf(b, " of CTA (%u,%u,%u)", c->ctaid[0], c->ctaid[1], c->ctaid[2]);
  if (j - i == 1) plB_buf_printf(b, " (warp %u)", v[i].warp);
  else plB_buf_printf(b, " (warps %u-%u)", v[i].warp, v[j - 1].warp);
}

int plX__stopped(plX_emu *e, uint32_t stmt, int interrupted) {
  uint32_t ncl = e->H.ncl ? e->H.ncl : 1;
  xwhere *v = calloc((size_t)ncl * e->nwarps * 32, sizeof *v);   /* at most one entry per lane */
  if (!v)
    return plX__fail(e, stmt, "%s (and out of memory for the report)",
                     interrupted ? "interrupted" : "the instruction limit was reached");
  uint32_t nv = 0;
  for (uint32_t r = 0; r < ncl; r++) {
    xcta *c = e->H.ncl ? &e->ctas[r] : e->C;
    for (uint32_t w = 0; w < e->nwarps; w++) {
      const xwarp *W = &c->warps[w];
      uint32_t live = W->exists & ~W->exited, from = nv;
      for (uint32_t m = live; m; m &= m - 1) {
        int l = __builtin_ctz(m);
        int wt = (W->waiting >> l & 1) != 0;
        uint32_t pc = wt ? W->bpc[l] : W->pc[l];
        uint32_t st = pc < e->xf.ncode ? e->xf.code[pc].stmt : X_NOSLOT;
        int bid = wt ? W->bid[l] : -1;
        uint32_t k = from;
        while (k < nv && !(v[k].stmt == st && v[k].bid == bid)) k++;
        if (k == nv) {                                             /* a new place of this warp */
          xwhere x = { st, r, w, 0, bid, W->clock };
          v[nv++] = x;
        }
        v[k].lanes |= 1u << l;
      }
    }
  }
  qsort(v, nv, sizeof *v, where_cmp);
  uint32_t a = 0, b = 0;                                         /* the executing place first */
  while (a < nv && v[a].stmt != stmt) a++;
  b = a;
  while (b < nv && v[b].stmt == stmt) b++;
  if (a < nv && a > 0) {
    xwhere *t = malloc((size_t)(b - a) * sizeof *t);
    if (t) {
      memcpy(t, v + a, (size_t)(b - a) * sizeof *t);
      memmove(v + (b - a), v, (size_t)a * sizeof *v);
      memcpy(v, t, (size_t)(b - a) * sizeof *t);
      free(t);
    }
  }
  plB_buf m; plB_buf_init(&m);
  if (interrupted)
    plB_buf_printf(&m, "interrupted (SIGINT) after %llu warp instructions",
                   (unsigned long long)e->st.warp_insns);
  else
    plB_buf_printf(&m, "the instruction limit (%llu warp instructions) was reached: does the "
                   "kernel loop forever? (--limit N, or limit = N in rt.launch, raises it; "
                   "docs/emulator.md, \"The instruction budget\")", (unsigned long long)e->limit);
  uint64_t total = (uint64_t)e->grid[0] * e->grid[1] * e->grid[2];
  plB_buf_printf(&m, "; grid (%u,%u,%u): %llu CTA%s finished, %u running, %llu not started; ",
                 e->grid[0], e->grid[1], e->grid[2], (unsigned long long)e->st.ctas,
                 e->st.ctas == 1 ? "" : "s", ncl, (unsigned long long)(total - e->st.ctas - ncl));
  plB_buf_puts(&m, "where the warps still running are:");
  uint32_t lines = 0, i = 0;
  while (i < nv) {
    uint32_t j = i + 1;
    while (j < nv && X_SAMEPLACE(v[j], v[i])) j++;
    if (lines == X_WHERE_LINES) {                                  /* the rest, counted */
      uint32_t places = 0, warps = 0;
      for (uint32_t k = i; k < nv; k++) {
        warps++;
        if (k == i || !X_SAMEPLACE(v[k], v[k - 1])) places++;
      }
      plB_buf_printf(&m, "\n  ... and %u more place%s (%u warp%s)", places, places == 1 ? "" : "s",
                     warps, warps == 1 ? "" : "s");
      break;
    }
    lines++;
    const plI_stmt *st = v[i].stmt != X_NOSLOT ? plX__stmt(e, v[i].stmt) : NULL;
    plB_buf_puts(&m, "\n  ");
    if (st && st->file) plB_buf_printf(&m, "%s:%u", plI_cstr(e->m, st->file), st->line);
    else plB_buf_puts(&m, "?");
    plB_buf_printf(&m, " (%s%s): ", plX__opname(e, v[i].stmt), v[i].bid >= 0 ? ", waiting" : "");
    uint64_t lo = v[i].clock, hi = v[i].clock;
    uint32_t runs = 0, k = i;
    while (k < j) {                                              /* runs of whole warps of a CTA */
      uint32_t q = k + 1;
      int whole = v[k].lanes == 0xffffffffu;
      while (whole && q < j && v[q].rank == v[k].rank && v[q].warp == v[q - 1].warp + 1 &&
             v[q].lanes == v[k].lanes)
        q++;
      if (runs == 3) {
        uint32_t left = 0;
        for (uint32_t x = k; x < j; x++) left++;
        plB_buf_printf(&m, ", and %u more warp%s", left, left == 1 ? "" : "s");
        break;
      }
      if (runs) plB_buf_puts(&m, ", ");
      where_who(e, &m, v, k, q);
      runs++;
      k = q;
    }
    for (uint32_t x = i; x < j; x++) {
      if (v[x].clock < lo) lo = v[x].clock;
      if (v[x].clock > hi) hi = v[x].clock;
    }
    if (hi == 0)
      plB_buf_puts(&m, "; not started (this scheduler runs a warp until it waits or exits)");
    else if (lo == hi)
      plB_buf_printf(&m, "; %llu instructions%s", (unsigned long long)lo, j - i > 1 ? " each" : "");
    else
      plB_buf_printf(&m, "; %llu to %llu instructions", (unsigned long long)lo,
                     (unsigned long long)hi);
    i = j;
  }
  free(v);
  plX__fail(e, stmt, "%s", plB_buf_cstr(&m));
  plB_buf_free(&m);
  return e->status;
}

/* one cluster (one CTA without clusters): its CTAs run together, round by round; when no warp can
** run, the copies in flight land (and may complete mbarrier phases), else it is a deadlock */
static int run_cluster(plX_emu *e, const uint32_t first[3]) {
  xhop *H = &e->H;
  e->clser++;
  for (uint32_t r = 0; r < H->ncl; r++) {
    xcta *c = &e->ctas[r];
    c->ctaid[0] = first[0] + r % H->cl[0];
    c->ctaid[1] = first[1] + r / H->cl[0] % H->cl[1];
    c->ctaid[2] = first[2] + r / (H->cl[0] * H->cl[1]);
    c->cta_linear = ((uint64_t)c->ctaid[2] * e->grid[1] + c->ctaid[1]) * e->grid[0] + c->ctaid[0];
    c->rank = r;
    if (setup_cta(e, c)) return e->status;
  }
  for (;;) {
    int ran = 0, live = 0;
    for (uint32_t r = 0; r < H->ncl; r++) {
      e->C = &e->ctas[r];
      for (uint32_t w = 0; w < e->nwarps; w++) {
        xwarp *W = &e->C->warps[w];
        uint32_t ready = W->exists & ~W->exited & ~W->waiting;
        if (W->exists & ~W->exited) live = 1;
        if (!ready) continue;
        ran = 1;
        if (plX__run_warp(e, W)) return e->status;
      }
    }
    if (!live) break;
    if (ran) continue;
    int f = plX__hop_flush(e);
    if (f < 0) return e->status;
    if (f) continue;
    f = plX__hop_cluster_check(e);
    if (f < 0) return e->status;
    if (f) continue;
    return deadlock(e);
  }
  for (uint32_t i = 0; e->nrpend && i < e->crpend; i++)          /* reports held back to the end */
    if (e->rpend[i].msg && rp_report(e, &e->rpend[i])) return e->status;
  if (plX__hop_flush(e) < 0) return e->status;      /* copies nobody waited for land too */
  for (uint32_t r = 0; r < H->ncl; r++) {
    e->C = &e->ctas[r];
    /* copies still in flight when their thread exited land now */
    for (uint32_t t = 0; t < e->nthreads; t++) plX__cp_complete(e, t, 0);
    if (e->status) return e->status;
    e->st.ctas++;
  }
  return e->status;
}

/* SIGINT while an emulation runs: the first stops every run at its next instruction (plX__sigint)
** and gives the signal back to the process's previous handler, so a second one acts as before.
** Installed by the first of the runs in progress (threads may run several), restored by the last;
** a SIGINT the process ignores (a background job) stays ignored. */
static pthread_mutex_t X_SIGMU = PTHREAD_MUTEX_INITIALIZER;
static int x_sigdepth, x_sigmine;
static struct sigaction x_sigold;
static void on_sigint(int sig) {
  (void)sig;
  plX__sigint = 1;
  sigaction(SIGINT, &x_sigold, NULL);
}
static void sig_enter(void) {
  pthread_mutex_lock(&X_SIGMU);
  if (x_sigdepth++ == 0) {
    struct sigaction cur;
    x_sigmine = 0;
    plX__sigint = 0;
    if (sigaction(SIGINT, NULL, &cur) == 0 && cur.sa_handler != SIG_IGN) {
      struct sigaction sa;
      memset(&sa, 0, sizeof sa);
      sa.sa_handler = on_sigint;
      sa.sa_flags = SA_RESTART;                                    /* (printf's writes go on) */
      sigemptyset(&sa.sa_mask);
      x_sigold = cur;
      x_sigmine = sigaction(SIGINT, &sa, NULL) == 0;
    }
  }
  pthread_mutex_unlock(&X_SIGMU);
}
static void sig_leave(void) {
  pthread_mutex_lock(&X_SIGMU);
  if (--x_sigdepth == 0 && x_sigmine) { sigaction(SIGINT, &x_sigold, NULL); x_sigmine = 0; }
  pthread_mutex_unlock(&X_SIGMU);
}

static int run_grid(plX_emu *e);
int plX_run(plX_emu *e) {
  if (e->status) return e->status;
  e->deferred.n = 0; e->ndeferred = 0;
  sig_enter();
  int rc = run_grid(e);
  sig_leave();
  if (!rc && e->ndeferred) rc = plX__optin_made(e);             /* no always-on one: the kept one */
  e->deferred.n = 0; e->ndeferred = 0;
  return rc;
}

static int run_grid(plX_emu *e) {
  if (!e->launched) return plX__fail(e, X_NOSLOT, "no launch geometry (grid, block) was set");
  for (uint32_t i = 0; i < e->nparams; i++)
    if (!e->pset[i]) return plX__fail(e, X_NOSLOT, "parameter '%s' was not set", e->params[i].name);
  xhop *H = &e->H;
  for (int i = 0; i < 3; i++)
    if (e->grid[i] % H->cl[i])
      return plX__fail(e, X_NOSLOT, "the grid (%u, %u, %u) is not a whole number of clusters (%u, %u, %u)", e->grid[0], e->grid[1],
                       e->grid[2], H->cl[0], H->cl[1], H->cl[2]);
  e->nthreads = e->block[0] * e->block[1] * e->block[2];
  e->nwarps = (e->nthreads + 31) / 32;
  e->smem_size = e->has_dyn ? e->dyn_off + e->dyn_smem : e->smem_static;
  if (e->nctas_cap < H->ncl) {
    xcta *nc = realloc(e->ctas, H->ncl * sizeof *nc);
    if (!nc) return plX__fail(e, X_NOSLOT, "out of memory");
    memset(nc + e->nctas_cap, 0, (H->ncl - e->nctas_cap) * sizeof *nc);
    e->ctas = nc; e->nctas_cap = H->ncl;
  }
  e->trace.n = 0;
  memset(&e->st, 0, sizeof e->st);  /* statistics, the limit and %globaltimer count this run only */
  e->checks &= ~(unsigned)X_CHECK_TRACK;
  plX__hop_scan(e);
  if (e->H.track) e->checks |= X_CHECK_TRACK;
  free(e->gsync); e->gsync = NULL; e->gpf = NULL; e->ngsync = 0;
  rp_clear(e);                                                     /* (a failed run's) */
  if (e->checks & PLX_CHECK_RACES) {                               /* the races check on global memory */
    uint64_t n = (uint64_t)e->grid[0] * e->grid[1] * e->grid[2];
    if (n > ((uint64_t)1 << 31) || !(e->gsync = calloc((size_t)n * 2, sizeof *e->gsync)))
      return plX__fail(e, X_NOSLOT, "out of memory (the races check on global memory, %llu CTAs)", (unsigned long long)n);
    e->ngsync = n; e->gpf = e->gsync + n;
    uint32_t nc = (H->ncl ? H->ncl : 1) * e->nthreads;
    if (e->cgevc < nc) {
      uint32_t *p = realloc(e->gevc, (size_t)nc * sizeof *p);
      if (!p) return plX__fail(e, X_NOSLOT, "out of memory (the races check on global memory)");
      e->gevc = p; e->cgevc = nc;
    }
    memset(e->gevc, 0xff, (size_t)nc * sizeof *e->gevc);
    if (e->crpend < nc) {
      free(e->rpend); e->crpend = 0;
      if (!(e->rpend = calloc(nc, sizeof *e->rpend))) return plX__fail(e, X_NOSLOT, "out of memory (the races check on global memory)");
      e->crpend = nc;
    }
    e->ngev = 0;
    if (++e->mem->gwgen == 0) e->mem->gwgen = 1;                 /* 0: never written */
    e->clser = 0;
  }
  uint64_t runs = 0;
  for (uint32_t z = 0; z < e->grid[2]; z += H->cl[2])
    for (uint32_t y = 0; y < e->grid[1]; y += H->cl[1])
      for (uint32_t x = 0; x < e->grid[0]; x += H->cl[0]) {
        uint32_t first[3] = {x, y, z};
        if (e->sample && runs++ == e->sample) return 0;            /* a sample: the first only */
        if (run_cluster(e, first)) return e->status;
      }
  return 0;
}
