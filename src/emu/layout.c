/* layout.c -- a kernel's state spaces laid out: its variables (shared, local, global and const
** with their initializers), its parameter block, and the regions copies into shared memory may
** write (each static .shared variable, the allocations of the shared-memory plans). */
#include "state.h"
#include "fail.h"
#include "mem.h"
#include "layout.h"
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <ctype.h>
#include <math.h>

/* ---- layout: variables and parameters ------------------------------------------------------- */
static uint32_t elem_size(int t) {
  uint32_t b = plB_type_info[t].bits;
  return b < 8 ? 1 : b / 8;
}
static uint64_t align_up(uint64_t v, uint64_t a) {
  return a > 1 ? (v + a - 1) / a * a : v;
}

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
    memcpy(tok, s, k);
    tok[k] = 0;
    uint64_t bits;
    char *end;
    if ((tok[0] == '0' && (tok[1] == 'f' || tok[1] == 'F')) ||
        (tok[0] == '0' && (tok[1] == 'd' || tok[1] == 'D'))) {
      bits = strtoull(tok + 2, &end, 16);
      if (*end) return 0;
      if ((tok[1] | 32) == 'f' && t == PLT_F64) {
        uint32_t u = (uint32_t)bits;
        float f;
        memcpy(&f, &u, 4);
        double d = f;
        memcpy(&bits, &d, 8);
      } else if ((tok[1] | 32) == 'd' && t == PLT_F32) {
        double d;
        memcpy(&d, &bits, 8);
        float f = (float)d;
        uint32_t u;
        memcpy(&u, &f, 4);
        bits = u;
      }
    } else if (cls == PLT_CF) {
      double d = strtod(tok, &end);
      if (*end) return 0;
      if (t == PLT_F32) {
        float f = (float)d;
        uint32_t u;
        memcpy(&u, &f, 4);
        bits = u;
      } else if (t == PLT_F64)
        memcpy(&bits, &d, 8);
      else
        return 0;
    } else {
      int neg = tok[0] == '-';
      bits = strtoull(tok + neg, &end, 0);
      if (*end == 'U' || *end == 'u') end++;
      if (*end) return 0;
      if (neg) bits = (uint64_t) - (int64_t)bits;
    }
    memcpy(out + i * es, &bits, es); /* little-endian host */
    i++;
    s = q;
    while (*s == ',' || *s == ' ') s++;
  }
  return 1;
}

int plX__layout(plX_emu *e) {
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
      plX_var *x = &e->vars[e->nvars++];
      x->name = v->name;
      uint32_t es = elem_size(v->type);
      uint64_t al = v->align ? v->align : es;
      uint64_t cnt = v->count == UINT64_MAX ? 0 : (v->count ? v->count : 1);
      x->size = cnt * es;
      switch (v->space) {
      case PLV_SHARED:
        x->space = XS_SHARED;
        if (v->count == UINT64_MAX || v->linkage == PLK_EXTERN) {
          x->addr = UINT64_MAX; /* the dynamic block: placed below */
          if (al > dyn_align) dyn_align = (uint32_t)al;
          e->has_dyn = 1;
        } else {
          sh = align_up(sh, al);
          x->addr = sh;
          sh += x->size;
          if (al > e->smem_align) e->smem_align = (uint32_t)al;
        }
        break;
      case PLV_PARAM: /* a call's argument or result (nvcc's { .param .b32 param0; ... call }) */
        if (pass == 0)
          return plX__fail(e, X_NOSLOT, "variable '%s' in this state space is not emulated",
                           plI_cstr(m, v->name));
        /* in the thread's local memory, as a .func's parameters (decode.c) */
        /* fallthrough */
      case PLV_LOCAL:
        x->space = XS_LOCAL;
        loc = align_up(loc, al);
        x->addr = loc;
        loc += x->size;
        break;
      case PLV_GLOBAL:
      case PLV_CONST: {
        x->space = v->space == PLV_CONST ? XS_CONST : XS_GLOBAL;
        if (x->size == 0)
          return plX__fail(e, X_NOSLOT, "module variable '%s' has no size", plI_cstr(m, v->name));
        uint64_t a = plX_mem_alloc(e->mem, x->size, plI_cstr(m, v->name));
        if (!a) return plX__fail(e, X_NOSLOT, "out of memory");
        if (pass == 0) e->gaddr[i] = a;
        x->addr = a;
        uint64_t sz;
        uint8_t *p = plX_mem_host(e->mem, a, &sz);
        if (v->space == PLV_CONST) {
          int32_t c = -1;
          plX__find(e->mem, a, &c);
          e->mem->b[c].ro = 1;
        }
        if (v->init && !parse_init(plI_cstr(m, v->init), v->type, p, cnt)) {
          return plX__fail_decl(e, v->file, v->line, "the initializer of '%s' is not emulated",
                                plI_cstr(m, v->name));
        }
        break;
      }
      default:
        return plX__fail(e, X_NOSLOT, "variable '%s' in this state space is not emulated",
                         plI_cstr(m, v->name));
      }
    }
  }
  if (sh > 0xffffffffu || loc > 0xffffffffu)
    return plX__fail(e, X_NOSLOT, "shared or local memory too large");
  e->dyn_off = (uint32_t)align_up(sh, dyn_align ? dyn_align : 16);
  e->smem_static = (uint32_t)sh;
  for (uint32_t i = 0; i < e->nvars; i++)
    if (e->vars[i].space == XS_SHARED && e->vars[i].addr == UINT64_MAX)
      e->vars[i].addr = e->dyn_off;
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
    if (bytes > 32764 || po + bytes > 32764) /* the CUDA driver's limit on a launch's parameters */
      return plX__fail(e, X_NOSLOT,
                       "the kernel's parameters take more than 32764 bytes (parameter '%s')",
                       p->name);
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
  /* in a .func: its parameters and results, then module scope */
  if (e->dfn > 0) {
    const plX_fn *fn = &e->fns[e->dfn];
    const plI_func *cf = &e->m->funcs.p[fn->func];
    for (uint32_t i = 0; i < cf->params.n + cf->rets.n; i++) {
      const plI_var *v = i < cf->params.n ? &cf->params.p[i] : &cf->rets.p[i - cf->params.n];
      if (v->name == name) {
        *space = XS_LOCAL;
        *addr = e->ploc[fn->ppar + i].off;
        return 1;
      }
    }
    for (uint32_t i = cf->vars.n;
         i-- > 0;) /* its variables (.local, its calls' .param), the last declared first */
      if (cf->vars.p[i].name == name) {
        *space = XS_LOCAL;
        *addr = e->ploc[fn->ppar + cf->params.n + cf->rets.n + i].off;
        return 1;
      }
    for (uint32_t i = e->m->globals.n; i-- > 0;)
      if (e->vars[i].name == name) {
        *space = e->vars[i].space;
        *addr = e->vars[i].addr;
        return 1;
      }
    return 0;
  }
  for (uint32_t i = e->nvars; i-- > 0;) /* function scope shadows module scope */
    if (e->vars[i].name == name) {
      *space = e->vars[i].space;
      *addr = e->vars[i].addr;
      return 1;
    }
  const plI_func *f = &e->m->funcs.p[e->func];
  for (uint32_t i = 0; i < f->params.n; i++)
    if (f->params.p[i].name == name) {
      *space = XS_PARAM;
      *addr = e->params[i].offset;
      return 1;
    }
  return 0;
}

/* ---- where copies into shared memory may write --------------------------------------------------
** The regions: each static .shared variable (its declared bytes), and the allocations of the
** shared-memory plans the DSL passes (plX_add_region), which cover their plan's variable. */
struct plX_region {
  uint32_t lo, stride, bytes, stages; /* shared offsets: stage s is [lo + s * stride, + bytes) */
  uint32_t vlo;                       /* the variable's first byte (a plan's block) */
  int plan;                           /* a plan's allocation (1) or a variable (0) */
  int covered;                        /* a variable whose plan's allocations stand for it */
  char var[64], name[64];
};
typedef struct plX_region plX_region;

static plX_region *region_new(plX_emu *e) {
  if (e->nregions == e->cregions) {
    uint32_t nc = e->cregions ? e->cregions * 2 : 8;
    plX_region *p = realloc(e->regions, nc * sizeof *p);
    if (!p) return NULL;
    e->regions = p;
    e->cregions = nc;
  }
  plX_region *r = &e->regions[e->nregions++];
  memset(r, 0, sizeof *r);
  return r;
}

/* the variables', when the kernel is laid out */
void plX__var_regions(plX_emu *e) {
  for (uint32_t i = 0; i < e->nvars; i++) {
    const plX_var *x = &e->vars[i];
    if (x->space != XS_SHARED || x->size == 0) continue; /* (dynamic: its plan's only) */
    plX_region *r = region_new(e);
    if (!r) return; /* out of memory: fewer checks */
    r->lo = (uint32_t)x->addr;
    r->stride = r->bytes = (uint32_t)x->size;
    r->stages = 1;
    snprintf(r->var, sizeof r->var, "%s", plI_cstr(e->m, x->name));
    snprintf(r->name, sizeof r->name, "%s", r->var);
  }
}

int plX_add_region(plX_emu *e, const char *var, const char *name, uint32_t offset,
                   uint32_t stage_bytes, uint32_t bytes, uint32_t stages) {
  if (!e || !var || !name || !stages || !bytes || bytes > stage_bytes) return -1;
  const plX_var *x = NULL;
  for (uint32_t i = e->nvars; i-- > 0 && !x;) { /* function scope first */
    const plX_var *c = &e->vars[i];
    if (c->space == XS_SHARED && strcmp(plI_cstr(e->m, c->name), var) == 0) x = c;
  }
  if (!x) return -1;
  uint64_t end = (uint64_t)offset + (uint64_t)stage_bytes * (stages - 1) + bytes;
  if (x->size && end > x->size) return -1; /* a static block holds them */
  if (x->addr + end > 0xffffffffu) return -1;
  for (uint32_t i = 0; i < e->nregions; i++)
    if (!e->regions[i].plan && strcmp(e->regions[i].var, var) == 0) e->regions[i].covered = 1;
  plX_region *r = region_new(e);
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
static const plX_region *region_at(const plX_emu *e, uint32_t off, uint32_t *stage) {
  for (int pass = 1; pass >= 0; pass--)
    for (uint32_t i = 0; i < e->nregions; i++) {
      const plX_region *r = &e->regions[i];
      if (r->plan != pass || r->covered || off < r->lo) continue;
      uint64_t d = off - r->lo;
      if (d >= (uint64_t)r->stride * r->stages) continue;
      *stage = (uint32_t)(d / r->stride);
      return r;
    }
  return NULL;
}

static void region_name(plB_buf *b, const plX_region *r, uint32_t stage) {
  if (!r->plan) {
    plB_buf_printf(b, "shared variable '%s'", r->name);
    return;
  }
  if (r->stages > 1) plB_buf_printf(b, "stage %u of ", stage);
  plB_buf_printf(b, "allocation '%s' of plan '%s'", r->name, r->var);
}

int plX__region_check(plX_emu *e, const plX_ins *in, plX_warp *w, int l, uint32_t off, uint32_t n,
                      const char *what) {
  if (!e->nregions || !n) return 0;
  uint32_t s;
  const plX_region *r = region_at(e, off, &s);
  uint32_t slo = r ? r->lo + s * r->stride : 0, send = r ? slo + r->bytes : 0;
  if (r && off < send && (uint64_t)off + n <= send) return 0; /* inside one stage: fine */
  plB_buf b;
  plB_buf_init(&b);
  plB_buf_printf(&b, "the copy (%s) writes shared bytes 0x%x..0x%llx", what, off,
                 (unsigned long long)off + n - 1);
  if (!r) { /* between a plan's allocations? */
    const plX_region *v = NULL;
    for (uint32_t i = 0; i < e->nregions && !v; i++) {
      const plX_region *q = &e->regions[i];
      if (!q->plan || off < q->vlo) continue;
      uint64_t end = 0; /* the block: to its last one */
      for (uint32_t j = 0; j < e->nregions; j++) {
        const plX_region *t = &e->regions[j];
        uint64_t te = (uint64_t)t->lo + (uint64_t)t->stride * (t->stages - 1) + t->bytes;
        if (t->plan && t->vlo == q->vlo && te > end) end = te;
      }
      if (off < end) v = q;
    }
    if (!v) { /* the bounds check's */
      plB_buf_free(&b);
      return 0;
    }
    plB_buf_printf(&b,
                   ", starting in none of the allocations of plan '%s' (in the padding between "
                   "them)",
                   v->var);
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
    const plX_region *o = region_at(e, send, &s2);
    uint32_t olo = o ? o->lo + s2 * o->stride : 0;
    if (o && send < olo + o->bytes)
      region_name(&b, o, s2);
    else if (o)
      plB_buf_puts(&b, "the padding after it");
    else
      plB_buf_puts(&b, "bytes of no allocation");
  }
  plB_buf_puts(&b, ": a box or size larger than the tile it lands in overwrites its neighbours");
  plX__fail_lane(e, in, w, l, plB_buf_cstr(&b));
  plB_buf_free(&b);
  return e->status;
}
