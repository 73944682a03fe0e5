/* mem.c -- device memory (the buffers standing for global memory, each at a device address) and
** the memory accesses of one thread: the generic windows, alignment, bounds, constant memory, the
** shared memory of another CTA of the cluster (and of one that has exited), with the opt-in checks
** and the Hopper tracking called at each (race.c, hopper/hooks.h). */
#include "state.h"
#include "fail.h"
#include "mem.h"
#include "race.h"
#include "hooks.h"
#include "bwhooks.h"
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

/* ---- device memory --------------------------------------------------------------------------- */
plX_mem *plX_mem_new(void) {
  plX_mem *m = calloc(1, sizeof *m);
  if (m) m->next = X_GL_BASE;
  return m;
}

void plX_mem_free(plX_mem *m) {
  if (!m) return;
  for (uint32_t i = 0; i < m->n; i++) {
    if (!m->b[i].ext) free(m->b[i].p);
    free(m->b[i].name);
    free(m->b[i].gw);
    free(m->b[i].gr);
    free(m->b[i].ga);
  }
  free(m->b);
  free(m);
}

/* a buffer record at the next device address over host memory p (owned unless ext) */
static uint64_t mem_add(plX_mem *m, uint8_t *p, uint64_t bytes, const char *name, int ext) {
  if (m->n == m->cap) {
    uint32_t nc = m->cap ? m->cap * 2 : 16;
    plX_buf *nb = realloc(m->b, nc * sizeof *nb);
    if (!nb) return 0;
    m->b = nb;
    m->cap = nc;
  }
  plX_buf b;
  b.p = p;
  b.name = NULL;
  if (name) {
    size_t n = strlen(name) + 1;
    b.name = malloc(n);
    if (b.name) memcpy(b.name, name, n);
  }
  b.addr = m->next;
  b.size = bytes;
  b.ro = 0;
  b.ext = ext;
  b.gw = NULL;
  b.gr = NULL;
  b.ga = NULL;
  /* 256-byte aligned, with at least 256 unmapped bytes after each buffer: an access just past
  ** the end of one buffer is never inside the next */
  m->next = (m->next + bytes + 256 + 255) & ~(uint64_t)255;
  m->b[m->n++] = b; /* addresses only grow: the array stays sorted */
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
      free(m->b[i].name);
      free(m->b[i].gw);
      free(m->b[i].gr);
      free(m->b[i].ga);
      memmove(m->b + i, m->b + i + 1, (m->n - i - 1) * sizeof *m->b);
      m->n--;
      return 0;
    }
  return -1;
}

uint8_t *plX_mem_host(plX_mem *m, uint64_t addr, uint64_t *size) {
  int32_t c = -1;
  plX_buf *b = m ? plX__find(m, addr, &c) : NULL;
  if (!b || b->addr != addr) return NULL;
  if (size) *size = b->size;
  return b->p;
}

plX_buf *plX__find(plX_mem *m, uint64_t a, int32_t *cache) {
  int32_t c = *cache;
  if (c >= 0 && (uint32_t)c < m->n && a - m->b[c].addr < m->b[c].size) return &m->b[c];
  uint32_t lo = 0, hi = m->n;
  while (lo < hi) { /* first buffer with addr > a */
    uint32_t mid = (lo + hi) / 2;
    if (m->b[mid].addr <= a)
      lo = mid + 1;
    else
      hi = mid;
  }
  if (lo == 0) return NULL;
  plX_buf *b = &m->b[lo - 1];
  if (a - b->addr >= b->size) return NULL;
  *cache = (int32_t)(lo - 1);
  return b;
}

/* "address 0x... is just past the end of buffer 'out' (4000 bytes at 0x...)": the nearest buffer */
void plX__describe_addr(plX_emu *e, plB_buf *o, uint64_t a, uint64_t n) {
  plX_mem *m = e->mem;
  plX_buf *below = NULL, *above = NULL, *in = NULL;
  for (uint32_t i = 0; i < m->n; i++) {
    plX_buf *b = &m->b[i];
    if (a >= b->addr && a - b->addr < b->size)
      in = b;
    else if (a >= b->addr + b->size)
      below = b; /* sorted: the last one is the nearest */
    else if (a < b->addr && !above)
      above = b;
  }
  plB_buf_printf(o, "address 0x%llx", (unsigned long long)a);
  if (in) {
    plB_buf_printf(
        o, " (%llu bytes) runs %llu bytes past the end of buffer '%s' (%llu bytes at 0x%llx)",
        (unsigned long long)n, (unsigned long long)(a + n - in->addr - in->size),
        in->name ? in->name : "?", (unsigned long long)in->size, (unsigned long long)in->addr);
    return;
  }
  uint64_t dpast = below ? a - below->addr - below->size : UINT64_MAX;
  uint64_t dbefore = above ? above->addr - a : UINT64_MAX;
  if (!below && !above) {
    plB_buf_puts(o, " is in no buffer");
    return;
  }
  if (dpast <= dbefore) {
    if (dpast == 0)
      plB_buf_puts(o, " is just past the end");
    else
      plB_buf_printf(o, " is %llu bytes past the end", (unsigned long long)dpast);
    plB_buf_printf(o, " of buffer '%s' (%llu bytes at 0x%llx)", below->name ? below->name : "?",
                   (unsigned long long)below->size, (unsigned long long)below->addr);
  } else
    plB_buf_printf(o, " is %llu bytes before buffer '%s' (%llu bytes at 0x%llx)",
                   (unsigned long long)dbefore, above->name ? above->name : "?",
                   (unsigned long long)above->size, (unsigned long long)above->addr);
}

/* ---- memory accesses of one thread
** ------------------------------------------------------------- */
static void who(plX_emu *e, plB_buf *b, uint32_t tid) {
  plX__who(e, b, e->C->ctaid, tid);
}

static const char *space_name(int s) {
  switch (s) {
  case XS_GLOBAL: return "global";
  case XS_SHARED: return "shared";
  case XS_LOCAL: return "local";
  case XS_PARAM: return "param";
  case XS_CONST: return "const";
  default: return "generic";
  }
}

static uint8_t *mem_fail(plX_emu *e, const plX_ins *in, int space, uint64_t a, uint32_t n,
                         uint32_t tid, const char *what) {
  plB_buf b;
  plB_buf_init(&b);
  plB_buf_printf(&b, "%s %s by ", what, plX__opname(e, in->stmt));
  who(e, &b, tid);
  plB_buf_puts(&b, ": ");
  if (space == XS_GLOBAL || space == XS_CONST)
    plX__describe_addr(e, &b, a, n);
  else if (space == XS_PARAM) { /* the access and the block */
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
    plB_buf_printf(&b, "%s address 0x%llx (%u bytes) outside the %llu bytes of %s memory",
                   space_name(space), (unsigned long long)a, n, (unsigned long long)lim,
                   space_name(space));
  }
  plX__fail(e, in->stmt, "%s", plB_buf_cstr(&b));
  plB_buf_free(&b);
  return NULL;
}

/* a store, red or atom by thread tid of e->C into shared bytes [off, off + n) of another CTA c
** of the cluster: checked against c's wgmma operand reads in flight like a local store; 1 after
** reporting */
static int remote_clobber(plX_emu *e, const plX_ins *in, plX_cta *c, uint32_t off, uint32_t n,
                          uint32_t tid) {
  plB_buf b;
  plB_buf_init(&b);
  plB_buf_printf(&b, "%s by ", plX__opname(e, in->stmt));
  who(e, &b, tid);
  int r = plX__hop_wg_clobber(e, in->stmt, c, off, n, (int)(tid / 32), plB_buf_cstr(&b));
  plB_buf_free(&b);
  return r;
}

/* another CTA's shared memory is gone once every thread of that CTA has exited (the CUDA
** programming guide: distributed shared memory must not be accessed after its CTA exits; the
** usual bug is a kernel without a final cluster barrier). Reported whether or not checks are on */
static int cta_gone(plX_emu *e, plX_cta *c) {
  if (c->done) return 1;
  for (uint32_t w = 0; w < e->nwarps; w++)
    if (c->warps[w].exists & ~c->warps[w].exited) return 0;
  return c->done = 1;
}

int plX__exited(plX_emu *e, uint32_t stmt, plX_cta *c, uint32_t off, uint32_t tid,
                const char *what) {
  if (c == e->C) return 0;
  /* remembered: checked at c's exit */
  if (!cta_gone(e, c)) {
    c->racc = 1;
    c->racc_stmt = stmt;
    c->racc_rank = e->C->rank;
    c->racc_tid = tid;
    c->racc_cl = e->H.clphase;
    c->racc_off = off;
    c->racc_what = what;
    return 0;
  }
  plB_buf b;
  plB_buf_init(&b);
  plB_buf_printf(&b, "%s by ", plX__opname(e, stmt));
  who(e, &b, tid);
  plB_buf_printf(&b,
                 " %s shared 0x%x of CTA (%u,%u,%u), which has exited (every thread of it): a "
                 "CTA's shared memory must not be "
                 "accessed once that CTA has exited, and nothing kept it running; end the kernel "
                 "with barrier.cluster.arrive and "
                 "barrier.cluster.wait in every CTA of the cluster, so that none exits while "
                 "another may still access its shared memory",
                 what, off, c->ctaid[0], c->ctaid[1], c->ctaid[2]);
  plX__fail(e, stmt, "%s", plB_buf_cstr(&b));
  plB_buf_free(&b);
  return e->status;
}

int plX__exit_check(plX_emu *e) {
  plX_cta *c = e->C;
  if (!c->racc || !cta_gone(e, c)) return 0;
  c->racc = 0;
  /* a barrier.cluster completed since */
  if (c->racc_cl != e->H.clphase) return 0;
  plX_cta *a = &e->ctas[c->racc_rank];
  plB_buf b;
  plB_buf_init(&b);
  plB_buf_printf(&b, "%s by ", plX__opname(e, c->racc_stmt));
  plX__who(e, &b, a->ctaid, c->racc_tid);
  plB_buf_printf(&b,
                 " %s shared 0x%x of CTA (%u,%u,%u), which then exited with nothing ordering the "
                 "access before its exit "
                 "(no barrier.cluster completed between them, no mbarrier wait of that CTA after "
                 "it): a CTA's shared memory must "
                 "not be accessed once that CTA may have exited; end the kernel with "
                 "barrier.cluster.arrive and barrier.cluster.wait "
                 "in every CTA of the cluster, so that none exits while another may still access "
                 "its shared memory",
                 c->racc_what, c->racc_off, c->ctaid[0], c->ctaid[1], c->ctaid[2]);
  plX__fail(e, c->racc_stmt, "%s", plB_buf_cstr(&b));
  plB_buf_free(&b);
  return e->status;
}

uint8_t *plX__mem(plX_emu *e, const plX_ins *in, int space, uint64_t a, uint32_t n, uint32_t tid,
                  int write) {
  if (space == XS_GENERIC) {
    if (a - X_SH_BASE < X_WIN) {
      space = XS_SHARED;
      a -= X_SH_BASE;
    } else if (a - X_LOC_BASE < X_WIN) {
      space = XS_LOCAL;
      a -= X_LOC_BASE;
    } else if (a - X_PAR_BASE < X_WIN) {
      space = XS_PARAM;
      a -= X_PAR_BASE;
    } else
      space = XS_GLOBAL;
  }
  if (n > 1 && (a & (n - 1))) {
    plB_buf b;
    plB_buf_init(&b);
    plB_buf_printf(&b, "misaligned %s by ", plX__opname(e, in->stmt));
    who(e, &b, tid);
    plB_buf_printf(&b, ": %s address 0x%llx is not a multiple of %u", space_name(space),
                   (unsigned long long)a, n);
    plX__fail(e, in->stmt, "%s", plB_buf_cstr(&b));
    plB_buf_free(&b);
    return NULL;
  }
  switch (space) {
  case XS_GLOBAL:
  case XS_CONST: {
    plX_buf *b = plX__find(e->mem, a, (int32_t *)&in->cache);
    if (!b || a - b->addr + n > b->size)
      return mem_fail(e, in, XS_GLOBAL, a, n, tid, "out-of-bounds");
    if (write && write != 4 && b->ro)
      return mem_fail(e, in, XS_CONST, a, n, tid, "write to constant memory by");
    /* bulk stores in flight */
    if (!write && e->H.gst && plX__hop_gload(e, in, a, n, tid)) return NULL;
    if (e->gsync) { /* the races check */
      /* an atomic: checked before it counts for its CTA */
      if (write == 2) {
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
    plX_cta *c = e->C;
    if (a >= ((uint64_t)1 << X_DSM_SHIFT) && a < X_WIN) { /* a shared::cluster address (mapa) */
      uint32_t off;
      if (!plX__hop_smem(e, a, &c, &off))
        return mem_fail(e, in, space, a, n, tid, "out-of-bounds (no such CTA in the cluster)");
      if (c != e->C && !(in->fl & XF_CLUSTER) && in->space != XS_GENERIC)
        return mem_fail(
            e, in, space, a, n, tid,
            "another CTA's shared memory (a shared::cluster address) in a .shared::cta access:");
      a = off;
    }
    if (a + n > e->smem_size) return mem_fail(e, in, space, a, n, tid, "out-of-bounds");
    if (c == e->C && (e->checks & (PLX_CHECK_UNINIT_SHARED | PLX_CHECK_RACES | X_CHECK_TRACK))) {
      plX__shared_access(e, in, (uint32_t)a, n, tid, write);
      if (e->status) return NULL;
    } else if (c != e->C && write) { /* into another CTA of the cluster */
      if (c->h.pw) {
        plX__hop_remote_write(e, in, c, (uint32_t)a, n, tid);
        if (e->status) return NULL;
      }
      if (c->smem_def) memset(c->smem_def + a, 1, n);
      if (c->h.rd.n && remote_clobber(e, in, c, (uint32_t)a, n, tid)) return NULL;
      if (c->bw &&
          plX__bw_smem_write(e, in->stmt, c, (uint32_t)a, n, tid, plX__opname(e, in->stmt)))
        return NULL;
      if (c->race_e) {
        plX__race_check(e, in, c, (uint32_t)a, n, tid, write == 2 ? 2 : 1);
        if (e->status) return NULL;
      }
      /* a read of another CTA's shared memory */
    } else if (c != e->C && !write) {
      if (e->H.q.n &&
          plX__hop_inflight_read(e, in, &e->C->warps[tid / 32], (int)(tid % 32), c, (uint32_t)a,
                                 (uint32_t)a + n, plX__opname(e, in->stmt)))
        return NULL;
      if (c->race_e) {
        plX__race_check(e, in, c, (uint32_t)a, n, tid, 0);
        if (e->status) return NULL;
      }
    }
    /* another CTA's that exited: always on (after the races check, which keeps its report back) */
    if (c != e->C && plX__exited(e, in->stmt, c, (uint32_t)a, tid,
                                 write == 2 ? "updates"
                                 : write    ? "writes"
                                            : "reads"))
      return NULL;
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
