/* exec.c -- one instruction for the active lanes of a warp: a switch on the decoded operation,
** each case a tight loop over the lanes (fast paths inline, the rest in ops.c). Also loads,
** stores, atomics, cp.async queues and the warp-synchronous instructions. */
#include "state.h"
#include "fail.h"
#include "mem.h"
#include "race.h"
#include "exec.h"
#include "ops.h"
#include "fp.h"
#include "mma.h"
#include "hooks.h"
#include "bwhooks.h"
#include <stdlib.h>
#include <math.h>
#include <float.h>
#include <stdio.h>

static inline uint64_t load_ext(const uint8_t *p, int t) {
  switch (tb(t)) {
  case 8: {
    uint8_t v = *p;
    return tsig(t) ? (uint64_t)(int64_t)(int8_t)v : v;
  }
  case 16: {
    uint16_t v;
    memcpy(&v, p, 2);
    return tsig(t) ? (uint64_t)(int64_t)(int16_t)v : v;
  }
  case 32: {
    uint32_t v;
    memcpy(&v, p, 4);
    return tsig(t) ? (uint64_t)(int64_t)(int32_t)v : v;
  }
  default: {
    uint64_t v;
    memcpy(&v, p, 8);
    return v;
  }
  }
}

static inline void store(uint8_t *p, uint64_t v, int bytes) {
  memcpy(p, &v, (size_t)bytes);
} /* little-endian host */

/* ---- .func calls: a per-thread stack of return pcs; parameters and results in local memory
** ---- */
/* the bytes of a .func's parameter or result k (of params then rets) */
static uint64_t fn_pbytes(const plX_emu *e, const plX_fn *fn, uint32_t k) {
  const plI_func *cf = &e->m->funcs.p[fn->func];
  const plI_var *v = k < cf->params.n ? &cf->params.p[k] : &cf->rets.p[k - cf->params.n];
  return (uint64_t)e->ploc[fn->ppar + k].size * (v->count ? v->count : 1);
}

/* a recursive function's activation of lane l (thread tid): its registers and local bytes,
** pushed on the thread's stack by a call (the callee's outer activation, when it has one, lives
** on) and popped by the return; 0, or 1 out of memory */
static int frame_push(plX_emu *e, plX_warp *w, const plX_fn *fn, int l, uint32_t tid) {
  plX_fstk *f = &e->C->fstk[tid];
  size_t need = (size_t)fn->nv * 8 + fn->np + (fn->lhi - fn->llo);
  if (f->cap - f->n < need) {
    size_t nc = f->cap ? f->cap * 2 : 256;
    while (nc - f->n < need) nc *= 2;
    uint8_t *p = realloc(f->p, nc);
    if (!p) return 1;
    f->p = p;
    f->cap = nc;
  }
  uint8_t *q = f->p + f->n;
  for (uint32_t i = 0; i < fn->nv; i++) {
    uint64_t v = wslot(w, fn->regs[i])[l];
    memcpy(q, &v, 8);
    q += 8;
  }
  for (uint32_t i = 0; i < fn->np; i++) *q++ = (uint8_t)(w->P[fn->regs[fn->nv + i]] >> l & 1);
  memcpy(q, e->C->local + (size_t)tid * e->local_size + fn->llo, fn->lhi - fn->llo);
  f->n += need;
  return 0;
}
static void frame_pop(plX_emu *e, plX_warp *w, const plX_fn *fn, int l, uint32_t tid) {
  plX_fstk *f = &e->C->fstk[tid];
  size_t need = (size_t)fn->nv * 8 + fn->np + (fn->lhi - fn->llo);
  f->n -= need;
  const uint8_t *q = f->p + f->n;
  for (uint32_t i = 0; i < fn->nv; i++) {
    memcpy(&wslot(w, fn->regs[i])[l], q, 8);
    q += 8;
  }
  for (uint32_t i = 0; i < fn->np; i++) {
    uint32_t *P = &w->P[fn->regs[fn->nv + i]];
    *P = (*P & ~(1u << l)) | (uint32_t)*q++ << l;
  }
  memcpy(e->C->local + (size_t)tid * e->local_size + fn->llo, q, fn->lhi - fn->llo);
}

int plX__call(plX_emu *e, plX_warp *w, const plX_ins *in, uint32_t pc, uint32_t em) {
  const plX_fn *fn = &e->fns[in->c];
  /* the arguments follow the results */
  const uint32_t *vs = e->xf.vslots + in->vs + in->sub;
  LANES(l, em, {
    uint32_t tid = (uint32_t)w->idx * 32 + (uint32_t)l;
    if (e->C->cdepth[tid] >= e->maxdepth) {
      char msg[160];
      snprintf(msg, sizeof msg,
               "the call stack is full: calls nested %u deep (the emulator's limit%s)", e->maxdepth,
               e->has_rec ? " for recursion: does the recursion end?" : "");
      return plX__fail_lane(e, in, w, l, msg);
    }
    if (fn->rec && frame_push(e, w, fn, l, tid)) return plX__fail(e, in->stmt, "out of memory");
    e->C->cstack[(size_t)tid * e->maxdepth + e->C->cdepth[tid]++] = pc + 1;
    uint8_t *loc = e->C->local + (size_t)tid * e->local_size;
    for (int k = 0; k < in->sub2; k++) {
      const plX_ploc *p = &e->ploc[fn->ppar + (uint32_t)k];
      /* a .param variable */
      if (vs[k] & X_PREDBIT)
        memmove(loc + p->off, loc + (vs[k] & ~X_PREDBIT), fn_pbytes(e, fn, (uint32_t)k));
      else
        store(loc + p->off, wslot(w, vs[k])[l], p->size);
    }
  });
  return 0;
}

uint32_t plX__ret(plX_emu *e, plX_warp *w, uint32_t em) {
  uint32_t exited = 0;
  LANES(l, em, {
    uint32_t tid = (uint32_t)w->idx * 32 + (uint32_t)l;
    if (!e->C->cdepth[tid]) {
      exited |= 1u << l;
      continue;
    } /* no caller: the kernel's ret */
    uint32_t rp = e->C->cstack[(size_t)tid * e->maxdepth + --e->C->cdepth[tid]];
    const plX_ins *call = &e->xf.code[rp - 1];
    const plX_fn *fn = &e->fns[call->c];
    const uint32_t *vs = e->xf.vslots + call->vs;
    uint8_t *loc = e->C->local + (size_t)tid * e->local_size;
    /* the results read, the outer activation restored, the results written */
    if (fn->rec) {
      uint64_t bytes = 0;
      for (int k = 0; k < call->sub; k++) bytes += fn_pbytes(e, fn, call->sub2 + (uint32_t)k);
      uint8_t tmp[256], *t = bytes <= sizeof tmp ? tmp : malloc(bytes), *q = t;
      if (!t) {
        plX__fail(e, call->stmt, "out of memory");
        return exited;
      }
      for (int k = 0; k < call->sub; k++) {
        uint64_t nb = fn_pbytes(e, fn, call->sub2 + (uint32_t)k);
        memcpy(q, loc + e->ploc[fn->ppar + call->sub2 + (uint32_t)k].off, nb);
        q += nb;
      }
      frame_pop(e, w, fn, l, tid);
      q = t;
      for (int k = 0; k < call->sub; k++) {
        const plX_ploc *p = &e->ploc[fn->ppar + call->sub2 + (uint32_t)k];
        uint64_t nb = fn_pbytes(e, fn, call->sub2 + (uint32_t)k);
        if (vs[k] & X_PREDBIT)
          memcpy(loc + (vs[k] & ~X_PREDBIT), q, nb);
        else {
          wslot(w, vs[k])[l] = load_ext(q, p->type);
          if (w->rdef) w->rdef[vs[k]] |= 1u << l;
        }
        q += nb;
      }
      if (t != tmp) free(t);
      w->pc[l] = rp;
      continue;
    }
    for (int k = 0; k < call->sub; k++) {
      const plX_ploc *p = &e->ploc[fn->ppar + call->sub2 + (uint32_t)k];
      if (vs[k] & X_PREDBIT) {
        memmove(loc + (vs[k] & ~X_PREDBIT), loc + p->off,
                fn_pbytes(e, fn, call->sub2 + (uint32_t)k));
        continue;
      }
      wslot(w, vs[k])[l] = load_ext(loc + p->off, p->type);
      if (w->rdef) w->rdef[vs[k]] |= 1u << l;
    }
    w->pc[l] = rp;
  });
  return exited;
}

/* ---- printf (vprintf)
** ------------------------------------------------------------------------------ */
/* up to n bytes at generic (or global) address a for thread tid: a pointer and how many bytes
** follow it in its buffer (*avail), NULL when the address is in none */
static const uint8_t *host_at(plX_emu *e, uint64_t a, uint32_t tid, uint64_t *avail) {
  if (a >= X_LOC_BASE && a - X_LOC_BASE < e->local_size) {
    *avail = e->local_size - (a - X_LOC_BASE);
    return e->C->local + (size_t)tid * e->local_size + (a - X_LOC_BASE);
  }
  if (a >= X_SH_BASE && a - X_SH_BASE < e->smem_size) {
    *avail = e->smem_size - (a - X_SH_BASE);
    return e->C->smem + (a - X_SH_BASE);
  }
  int32_t c = -1;
  plX_buf *b = plX__find(e->mem, a, &c);
  if (!b || a < b->addr || a - b->addr >= b->size) return NULL;
  *avail = b->size - (a - b->addr);
  return b->p + (a - b->addr);
}

/* a 64-bit argument of the call: a register, or a .param variable's bytes */
static uint64_t call_arg(plX_emu *e, plX_warp *w, uint32_t v, int l, uint32_t tid) {
  if (!(v & X_PREDBIT)) return wslot(w, v)[l];
  uint64_t x;
  memcpy(&x, e->C->local + (size_t)tid * e->local_size + (v & ~X_PREDBIT), 8);
  return x;
}

/* CUDA's printf: the format string (global or constant memory), the arguments packed in a buffer
** (the thread's local memory), each at a multiple of its size: int-sized conversions 4 bytes (8
** with l, ll, j, z, t), floating point 8 (a double), %s and %p 8 (an address; %s reads a
** NUL-terminated string). Returns the arguments consumed, -1 for a null format; an argument past
** the buffer is an error */
static int vprintf_one(plX_emu *e, const plX_ins *in, plX_warp *w, int l, uint32_t tid, uint64_t fa,
                       uint64_t aa, plB_buf *out) {
  uint64_t fav, aav = 0;
  if (!fa) return -1;
  const uint8_t *f = host_at(e, fa, tid, &fav);
  if (!f) {
    char m[120];
    snprintf(m, sizeof m, "printf: the format string's address 0x%llx is in no buffer",
             (unsigned long long)fa);
    plX__fail_lane(e, in, w, l, m);
    return -2;
  }
  const uint8_t *A = aa ? host_at(e, aa, tid, &aav) : NULL;
  uint64_t ao = 0;
  int nargs = 0;
  size_t i = 0;
  while (i < fav && f[i]) {
    if (f[i] != '%') {
      plB_buf_putc(out, (char)f[i++]);
      continue;
    }
    if (i + 1 < fav && f[i + 1] == '%') {
      plB_buf_putc(out, '%');
      i += 2;
      continue;
    }
    char spec[48];
    size_t k = 0;
    spec[k++] = f[i++];
    int longs = 0, ns = 0;
    while (i < fav && f[i] && strchr("-+ #0123456789.*", f[i]) && k < 30) {
      if (f[i] == '*' && ns < 2) ns++;
      spec[k++] = (char)f[i++];
    }
    while (i < fav && f[i] && strchr("hlLqjzt", f[i])) {
      if (f[i] == 'l' || f[i] == 'L' || f[i] == 'q' || f[i] == 'j' || f[i] == 'z' || f[i] == 't')
        longs++;
      i++;
    }
    if (i >= fav || !f[i]) break;
    char cv = (char)f[i++];
    int isint = strchr("diouxXc", cv) != NULL, isflt = strchr("fFeEgGaA", cv) != NULL,
        isptr = cv == 's' || cv == 'p';
    if (!isint && !isflt && !isptr) {
      spec[k] = 0;
      plB_buf_puts(out, spec);
      plB_buf_putc(out, cv);
      continue;
    } /* as written */
    int sv[2];
    for (int q = 0; q < ns; q++) { /* '*' width or precision: an int argument */
      ao = (ao + 3) & ~(uint64_t)3;
      if (!A || ao + 4 > aav) goto past;
      int32_t x;
      memcpy(&x, A + ao, 4);
      ao += 4;
      sv[q] = x;
      nargs++;
    }
    uint32_t sz = isint ? (longs ? 8 : 4) : 8;
    ao = (ao + sz - 1) & ~(uint64_t)(sz - 1);
    if (!A || ao + sz > aav) goto past;
    uint64_t v = 0;
    memcpy(&v, A + ao, sz);
    ao += sz;
    nargs++;
    char buf[512];
    if (isint) {
      if (cv != 'c') {
        spec[k++] = 'l';
        spec[k++] = 'l';
      }
      spec[k++] = cv;
      spec[k] = 0;
      long long sxv = sz == 4 ? (long long)(int32_t)v : (long long)v;
      unsigned long long uxv = sz == 4 ? (unsigned long long)(uint32_t)v : (unsigned long long)v;
      int sgn = cv == 'd' || cv == 'i';
      if (cv == 'c') {
        if (ns == 2)
          snprintf(buf, sizeof buf, spec, sv[0], sv[1], (int)v);
        else if (ns)
          snprintf(buf, sizeof buf, spec, sv[0], (int)v);
        else
          snprintf(buf, sizeof buf, spec, (int)v);
      } else if (ns == 2) {
        if (sgn)
          snprintf(buf, sizeof buf, spec, sv[0], sv[1], sxv);
        else
          snprintf(buf, sizeof buf, spec, sv[0], sv[1], uxv);
      } else if (ns) {
        if (sgn)
          snprintf(buf, sizeof buf, spec, sv[0], sxv);
        else
          snprintf(buf, sizeof buf, spec, sv[0], uxv);
      } else {
        if (sgn)
          snprintf(buf, sizeof buf, spec, sxv);
        else
          snprintf(buf, sizeof buf, spec, uxv);
      }
    } else if (isflt) {
      spec[k++] = cv;
      spec[k] = 0;
      double x;
      memcpy(&x, &v, 8);
      if (ns == 2)
        snprintf(buf, sizeof buf, spec, sv[0], sv[1], x);
      else if (ns)
        snprintf(buf, sizeof buf, spec, sv[0], x);
      else
        snprintf(buf, sizeof buf, spec, x);
    } else if (cv == 'p') {
      snprintf(buf, sizeof buf, "0x%llx", (unsigned long long)v);
    } else { /* %s: the string at that address */
      uint64_t sav;
      const uint8_t *str = v ? host_at(e, v, tid, &sav) : NULL;
      char tmp[256];
      size_t n = 0;
      if (!v) {
        memcpy(tmp, "(null)", 7);
        n = 6;
      } else if (!str) {
        char m[120];
        snprintf(m, sizeof m, "printf: the string argument's address 0x%llx is in no buffer",
                 (unsigned long long)v);
        plX__fail_lane(e, in, w, l, m);
        return -2;
      } else {
        while (n < sav && n < sizeof tmp - 1 && str[n]) {
          tmp[n] = (char)str[n];
          n++;
        }
        tmp[n] = 0;
      }
      spec[k++] = 's';
      spec[k] = 0;
      if (ns == 2)
        snprintf(buf, sizeof buf, spec, sv[0], sv[1], tmp);
      else if (ns)
        snprintf(buf, sizeof buf, spec, sv[0], tmp);
      else
        snprintf(buf, sizeof buf, spec, tmp);
    }
    plB_buf_puts(out, buf);
  }
  return nargs;
past : {
  char m[160];
  snprintf(m, sizeof m,
           "printf: argument %d of the format is past the end of the argument buffer (%llu bytes "
           "at 0x%llx)",
           nargs + 1, (unsigned long long)aav, (unsigned long long)aa);
  plX__fail_lane(e, in, w, l, m);
  return -2;
}
}

int plX__vprintf(plX_emu *e, plX_warp *w, const plX_ins *in, uint32_t em) {
  /* the result, then the format and the argument buffer */
  const uint32_t *vs = e->xf.vslots + in->vs;
  plB_buf out;
  plB_buf_init(&out);
  LANES(l, em, {
    uint32_t tid = (uint32_t)w->idx * 32 + (uint32_t)l;
    out.n = 0;
    int r = vprintf_one(e, in, w, l, tid, call_arg(e, w, vs[in->sub], l, tid),
                        call_arg(e, w, vs[in->sub + 1], l, tid), &out);
    if (r == -2) {
      plB_buf_free(&out);
      return e->status;
    }
    if (out.n && !e->sample) fwrite(out.p, 1, out.n, stdout); /* a sample run prints nothing */
    if (in->sub) {
      uint32_t v = vs[0];
      if (v & X_PREDBIT) {
        int32_t x = r;
        memcpy(e->C->local + (size_t)tid * e->local_size + (v & ~X_PREDBIT), &x, 4);
      } else {
        wslot(w, v)[l] = (uint32_t)r;
        if (w->rdef) w->rdef[v] |= 1u << l;
      }
    }
  });
  plB_buf_free(&out);
  fflush(stdout); /* at once, through a pipe too */
  return 0;
}

void plX__cp_complete(plX_emu *e, uint32_t tid, uint32_t limit) {
  plX_cpq *q = &e->C->cpq[tid];
  while (q->head < q->q.n && q->q.p[q->head].grp < limit) {
    plX_cp *c = &q->q.p[q->head++];
    if (e->checks & (PLX_CHECK_UNINIT_SHARED | PLX_CHECK_RACES | X_CHECK_TRACK)) {
      plX__shared_access(e, &e->xf.code[c->pc], c->dst, c->n, tid, 1);
      if (e->status) return;
    }
    memcpy(e->C->smem + c->dst, c->data, c->n);
  }
  if (q->head == q->q.n) {
    q->head = 0;
    q->q.n = 0;
  }
}

/* ---- warp-collective checks
** -------------------------------------------------------------------------- */
/* membermask, per lane (the PTX ISA: a .sync instruction makes each executing thread wait for
** the non-exited threads of ITS membermask to execute it with the same mask): each executing
** lane is in its own mask, and every non-exited lane its mask names executes this instruction
** with it, with the same mask. Lanes whose masks are disjoint (cooperative-groups tiles) are
** separate groups. mk: each lane's mask */
static int member_check(plX_emu *e, plX_ins *in, plX_warp *w, uint32_t em, uint32_t *mk) {
  uint64_t *M = wslot(w, in->e);
  uint32_t out = 0;
  LANES(l, em, {
    mk[l] = (uint32_t)M[l];
    if (!(mk[l] >> l & 1)) out |= 1u << l;
  });
  if (out)
    return plX__fail_warp(e, in, w, "executing lanes are missing from their membermask", out);
  uint32_t live = w->exists & ~w->exited;
  LANES(l, em, {
    uint32_t absent = mk[l] & live & ~em;
    if (absent)
      return plX__fail_warp(
          e, in, w, "lanes named in membermask did not execute this instruction with the others",
          absent);
    uint32_t diff = 0;
    for (uint32_t m = mk[l] & live; m; m &= m - 1) {
      int j = __builtin_ctz(m);
      if (mk[j] != mk[l]) diff |= 1u << j;
    }
    if (diff) {
      char msg[160];
      snprintf(msg, sizeof msg,
               "membermask differs between lanes: lane %d passes 0x%08x, which names lanes that "
               "pass another mask",
               l, mk[l]);
      return plX__fail_warp(e, in, w, msg, diff | 1u << l);
    }
  });
  return 0;
}

int plX__full_warp(plX_emu *e, plX_ins *in, plX_warp *w, uint32_t em) {
  if (em != 0xffffffffu)
    return plX__fail_warp(
        e, in, w, "needs all 32 threads of the warp (.sync.aligned); these lanes are not here",
        ~em);
  return 0;
}

/* ---- one instruction, every active lane
** ------------------------------------------------------------ */
int plX__exec(plX_emu *e, plX_warp *w, plX_ins *in, uint32_t am, uint32_t em) {
  uint64_t *D = wslot(w, in->d), *A = wslot(w, in->a), *B = wslot(w, in->b), *C = wslot(w, in->c);
  int t = in->t, bits = tb(t);
  uint32_t *P = w->P;
  switch (in->op) {
  case X_NOP:
    if (in->gsync && e->gsync) e->gsync[e->C->cta_linear]++;
    break;
  case X_UNSUP: return plX__fail(e, in->stmt, "%s", e->xf.msgs + in->off);
  /* ---- integer ---- */
  case X_ADD:
    if (bits == 32)
      LANES(l, em, D[l] = (uint32_t)(A[l] + B[l]));
    else if (bits == 64)
      LANES(l, em, D[l] = A[l] + B[l]);
    else
      LANES(l, em, D[l] = zx(A[l] + B[l], bits));
    break;
  case X_SUB:
    if (bits == 32)
      LANES(l, em, D[l] = (uint32_t)(A[l] - B[l]));
    else if (bits == 64)
      LANES(l, em, D[l] = A[l] - B[l]);
    else
      LANES(l, em, D[l] = zx(A[l] - B[l], bits));
    break;
  case X_ADDSAT:
  case X_SUBSAT:
    LANES(l, em, {
      int64_t r = in->op == X_ADDSAT ? (int64_t)(int32_t)A[l] + (int32_t)B[l]
                                     : (int64_t)(int32_t)A[l] - (int32_t)B[l];
      if (r > INT32_MAX) r = INT32_MAX;
      if (r < INT32_MIN) r = INT32_MIN;
      D[l] = (uint32_t)r;
    });
    break;
  case X_ADDC:
  case X_SUBC: {
    uint32_t cc = w->cc, ncc = 0;
    LANES(l, em, {
      uint64_t a = zx(A[l], bits), b = zx(B[l], bits), cin = (in->fl & XF_CCIN) ? (cc >> l & 1) : 0;
      unsigned __int128 r;
      int cout;
      if (in->op == X_ADDC) {
        r = (unsigned __int128)a + b + cin;
        cout = (int)(r >> bits & 1);
      } else {
        r = (unsigned __int128)a - b - cin;
        cout = (unsigned __int128)a < (unsigned __int128)b + cin;
      }
      D[l] = zx((uint64_t)r, bits);
      ncc |= (uint32_t)cout << l;
    });
    if (in->fl & XF_CCOUT) w->cc = pmerge(w->cc, ncc, em);
    break;
  }
  case X_MULLO:
    if (bits == 32)
      LANES(l, em, D[l] = (uint32_t)(A[l] * B[l]));
    else
      LANES(l, em, D[l] = zx(A[l] * B[l], bits));
    break;
  case X_MULHI: LANES(l, em, D[l] = plX__mulhi(A[l], B[l], t)); break;
  case X_MULWIDE:
    if (t == PLT_U32)
      LANES(l, em, D[l] = (uint64_t)(uint32_t)A[l] * (uint32_t)B[l]);
    else
      LANES(l, em, D[l] = plX__mulwide(A[l], B[l], t));
    break;
  case X_MADLO:
    if (bits == 32)
      LANES(l, em, D[l] = (uint32_t)(A[l] * B[l] + C[l]));
    else
      LANES(l, em, D[l] = zx(A[l] * B[l] + C[l], bits));
    break;
  case X_MADHI:
    if (in->fl & XF_SAT)
      LANES(l, em, {
        int64_t r = (int64_t)(int32_t)plX__mulhi(A[l], B[l], PLT_S32) + (int32_t)C[l];
        if (r > INT32_MAX) r = INT32_MAX;
        if (r < INT32_MIN) r = INT32_MIN;
        D[l] = (uint32_t)r;
      });
    else
      LANES(l, em, D[l] = zx(plX__mulhi(A[l], B[l], t) + C[l], bits));
    break;
  case X_MADWIDE: LANES(l, em, D[l] = zx(plX__mulwide(A[l], B[l], t) + C[l], 2 * bits)); break;
  case X_MADC: {
    uint32_t cc = w->cc, ncc = 0;
    LANES(l, em, {
      uint64_t p = in->sub ? plX__mulhi(A[l], B[l], t) : zx(A[l] * B[l], bits);
      uint64_t cin = (in->fl & XF_CCIN) ? (cc >> l & 1) : 0;
      unsigned __int128 r = (unsigned __int128)p + zx(C[l], bits) + cin;
      D[l] = zx((uint64_t)r, bits);
      ncc |= (uint32_t)(r >> bits & 1) << l;
    });
    if (in->fl & XF_CCOUT) w->cc = pmerge(w->cc, ncc, em);
    break;
  }
  case X_MUL24:
  case X_MAD24:
    LANES(l, em, {
      int64_t a = tsig(t) ? sx(A[l], 24) : (int64_t)zx(A[l], 24),
              b = tsig(t) ? sx(B[l], 24) : (int64_t)zx(B[l], 24);
      uint64_t p = (uint64_t)(a * b);
      uint64_t r = in->sub ? (p >> 16) : p;
      if (in->op == X_MAD24) r += C[l];
      D[l] = (uint32_t)r;
    });
    break;
  case X_SAD:
    LANES(l, em, {
      uint64_t diff = tsig(t) ? (sx(A[l], bits) > sx(B[l], bits) ? A[l] - B[l] : B[l] - A[l])
                              : (zx(A[l], bits) > zx(B[l], bits) ? A[l] - B[l] : B[l] - A[l]);
      D[l] = zx(C[l] + diff, bits);
    });
    break;
  case X_DIV:
  case X_REM:
    LANES(l, em, {
      if (zx(B[l], bits) == 0)
        return plX__fail_lane(e, in, w, l, "division by zero (the result is undefined in PTX)");
      uint64_t r;
      if (tsig(t)) {
        int64_t a = sx(A[l], bits), b = sx(B[l], bits);
        /* wraps: MIN / -1 = MIN */
        if (b == -1)
          r = in->op == X_DIV ? (uint64_t)0 - (uint64_t)a : 0;
        else
          r = (uint64_t)(in->op == X_DIV ? a / b : a % b);
      } else {
        uint64_t a = zx(A[l], bits), b = zx(B[l], bits);
        r = in->op == X_DIV ? a / b : a % b;
      }
      D[l] = zx(r, bits);
    });
    break;
  case X_ABS:
    LANES(l, em, {
      int64_t a = sx(A[l], bits);
      D[l] = zx(a < 0 ? (uint64_t)0 - (uint64_t)a : (uint64_t)a, bits);
    });
    break;
  case X_NEG: LANES(l, em, D[l] = zx((uint64_t)0 - A[l], bits)); break;
  case X_MIN:
  case X_MAX: {
    int mx = in->op == X_MAX;
    /* .s16x2: two signed halves (.relu: each at least 0) */
    if (in->sub2 == 1) {
      LANES(l, em, {
        uint32_t r = 0;
        for (int h = 0; h < 2; h++) {
          int32_t a = (int16_t)(A[l] >> (16 * h)), b = (int16_t)(B[l] >> (16 * h));
          int32_t v = mx ? (a > b ? a : b) : (a < b ? a : b);
          if ((in->fl & XF_RELU) && v < 0) v = 0;
          r |= (uint32_t)(uint16_t)v << (16 * h);
        }
        D[l] = r;
      });
      break;
    }
    if (tsig(t) && bits == 32 && !(in->fl & XF_RELU))
      LANES(l, em, {
        int32_t a = (int32_t)A[l], b = (int32_t)B[l];
        D[l] = (uint32_t)(mx ? (a > b ? a : b) : (a < b ? a : b));
      });
    else if (!tsig(t) && bits == 32)
      LANES(l, em, {
        uint32_t a = (uint32_t)A[l], b = (uint32_t)B[l];
        D[l] = mx ? (a > b ? a : b) : (a < b ? a : b);
      });
    else
      LANES(l, em, {
        uint64_t r;
        if (tsig(t)) {
          int64_t a = sx(A[l], bits), b = sx(B[l], bits);
          int64_t v = mx ? (a > b ? a : b) : (a < b ? a : b);
          if ((in->fl & XF_RELU) && v < 0) v = 0;
          r = (uint64_t)v;
        } else {
          uint64_t a = zx(A[l], bits), b = zx(B[l], bits);
          r = mx ? (a > b ? a : b) : (a < b ? a : b);
        }
        D[l] = zx(r, bits);
      });
    break;
  }
  case X_POPC: LANES(l, em, D[l] = (uint64_t)__builtin_popcountll(zx(A[l], bits))); break;
  case X_CLZ:
    LANES(l, em, {
      uint64_t v = zx(A[l], bits);
      D[l] = v ? (uint64_t)(__builtin_clzll(v) - (64 - bits)) : (uint64_t)bits;
    });
    break;
  case X_BREV: LANES(l, em, D[l] = plX__brev(A[l], bits)); break;
  case X_BFIND: LANES(l, em, D[l] = plX__bfind(A[l], t, (in->fl & XF_SHIFTAMT) != 0)); break;
  case X_BFE: LANES(l, em, D[l] = plX__bfe(A[l], (uint32_t)B[l], (uint32_t)C[l], t)); break;
  case X_BFI: {
    uint64_t *E = wslot(w, in->e);
    LANES(l, em, D[l] = plX__bfi(A[l], B[l], (uint32_t)C[l], (uint32_t)E[l], t));
    break;
  }
  case X_BMSK:
    LANES(l, em, {
      uint32_t a = (uint32_t)A[l], b = (uint32_t)B[l];
      if (in->sub) {
        if (a > 32) a = 32;
        if (b > 32) b = 32;
      } else {
        a &= 31;
        b &= 31;
      }
      uint64_t m = b >= 32 ? 0xffffffffull : ((1ull << b) - 1);
      D[l] = a >= 32 ? 0 : (uint32_t)(m << a);
    });
    break;
  case X_SZEXT:
    LANES(l, em, {
      uint32_t a = (uint32_t)A[l], b = (uint32_t)B[l];
      if (in->sub) {
        if (b > 32) b = 32;
      } else
        b &= 31;
      uint32_t r;
      if (b == 0)
        r = 0;
      else if (b >= 32)
        r = a;
      else
        r = tsig(t) ? (uint32_t)sx(a, (int)b) : (uint32_t)zx(a, (int)b);
      D[l] = r;
    });
    break;
  case X_DP4A:
    LANES(l, em, {
      uint32_t a = (uint32_t)A[l], b = (uint32_t)B[l], s = (uint32_t)C[l];
      for (int k = 0; k < 4; k++) {
        int32_t x = tsig(t) ? (int8_t)(a >> (8 * k)) : (int32_t)(uint8_t)(a >> (8 * k));
        int32_t y = tsig(in->t2) ? (int8_t)(b >> (8 * k)) : (int32_t)(uint8_t)(b >> (8 * k));
        s += (uint32_t)(x * y);
      }
      D[l] = s;
    });
    break;
  case X_DP2A:
    LANES(l, em, {
      uint32_t a = (uint32_t)A[l], b = (uint32_t)B[l], s = (uint32_t)C[l];
      for (int k = 0; k < 2; k++) {
        int32_t x = tsig(t) ? (int16_t)(a >> (16 * k)) : (int32_t)(uint16_t)(a >> (16 * k));
        int sh = 8 * (k + (in->sub ? 2 : 0));
        int32_t y = tsig(in->t2) ? (int8_t)(b >> sh) : (int32_t)(uint8_t)(b >> sh);
        s += (uint32_t)(x * y);
      }
      D[l] = s;
    });
    break;
  case X_AND: LANES(l, em, D[l] = A[l] & B[l]); break;
  case X_OR: LANES(l, em, D[l] = A[l] | B[l]); break;
  case X_XOR: LANES(l, em, D[l] = A[l] ^ B[l]); break;
  case X_NOT: LANES(l, em, D[l] = zx(~A[l], bits)); break;
  case X_CNOT: LANES(l, em, D[l] = zx(A[l], bits) == 0); break;
  case X_LOP3: {
    uint8_t lut = in->sub;
    LANES(l, em, {
      uint32_t a = (uint32_t)A[l], b = (uint32_t)B[l], c = (uint32_t)C[l], r = 0;
      for (int i = 0; i < 8; i++)
        if (lut >> i & 1) r |= ((i & 4) ? a : ~a) & ((i & 2) ? b : ~b) & ((i & 1) ? c : ~c);
      D[l] = r;
    });
    break;
  }
  case X_SHL:
    if (bits == 32)
      LANES(l, em, {
        uint32_t n = (uint32_t)B[l];
        D[l] = n >= 32 ? 0 : (uint32_t)((uint32_t)A[l] << n);
      });
    else
      LANES(l, em, {
        uint32_t n = (uint32_t)B[l];
        D[l] = n >= (uint32_t)bits ? 0 : zx(A[l] << n, bits);
      });
    break;
  case X_SHR:
    if (tsig(t))
      LANES(l, em, {
        uint32_t n = (uint32_t)B[l];
        if (n > (uint32_t)bits - 1) n = (uint32_t)bits - 1;
        D[l] = zx((uint64_t)(sx(A[l], bits) >> n), bits);
      });
    else if (bits == 32)
      LANES(l, em, {
        uint32_t n = (uint32_t)B[l];
        D[l] = n >= 32 ? 0 : (uint32_t)A[l] >> n;
      });
    else
      LANES(l, em, {
        uint32_t n = (uint32_t)B[l];
        D[l] = n >= (uint32_t)bits ? 0 : zx(A[l], bits) >> n;
      });
    break;
  case X_SHF:
    LANES(l, em, {
      uint32_t n = (uint32_t)C[l];
      if (in->sub2) {
        if (n > 32) n = 32;
      } else
        n &= 31;
      uint64_t x = (uint64_t)(uint32_t)B[l] << 32 | (uint32_t)A[l];
      D[l] = in->sub ? (uint32_t)(x >> n) : (uint32_t)((x << n) >> 32);
    });
    break;
  case X_PRMT:
    LANES(l, em, D[l] = plX__prmt((uint32_t)A[l], (uint32_t)B[l], (uint32_t)C[l], in->sub));
    break;
  case X_PAND:
  case X_POR:
  case X_PXOR: {
    uint32_t a = P[in->a] ^ (in->sub ? ~0u : 0), b = P[in->b] ^ (in->sub2 ? ~0u : 0);
    uint32_t r = in->op == X_PAND ? a & b : in->op == X_POR ? a | b : a ^ b;
    P[in->d] = pmerge(P[in->d], r, em);
    break;
  }
  case X_PNOT: P[in->d] = pmerge(P[in->d], ~(P[in->a] ^ (in->sub ? ~0u : 0)), em); break;
  case X_PMOV: P[in->d] = pmerge(P[in->d], P[in->a] ^ (in->sub ? ~0u : 0), em); break;
  /* ---- comparison ---- */
  case X_SETP:
  case X_SET: {
    uint32_t p = 0, q = 0;
    int x2 = t == PLT_F16X2 || t == PLT_BF16X2;
    if (t == PLT_F32 && !(in->fl & XF_FTZ) && in->sub <= XC_GE)
      LANES(l, em, { p |= (uint32_t)plX__fcmp(in->sub, f32(A[l]), f32(B[l])) << l; });
    else if (bits == 32 && plB_type_info[t].cls != PLT_CF && !tsig(t))
      LANES(l, em,
            { p |= (uint32_t)plX__icmp(in->sub, (uint32_t)A[l], (uint32_t)B[l], PLT_U32) << l; });
    else
      LANES(l, em, {
        p |= (uint32_t)plX__cmp_lane(in, A[l], B[l], 0) << l;
        if (x2) q |= (uint32_t)plX__cmp_lane(in, A[l], B[l], 1) << l;
      });
    if (in->op == X_SET) {
      uint32_t c = in->sub2 ? (P[in->c] ^ ((in->fl & XF_NEGC) ? ~0u : 0)) : 0;
      uint32_t r = in->sub2 == XB_AND   ? p & c
                   : in->sub2 == XB_OR  ? p | c
                   : in->sub2 == XB_XOR ? p ^ c
                                        : p;
      int dt = in->t2;
      uint64_t one = dt == PLT_F32 ? 0x3f800000u : 0xffffffffu;
      LANES(l, em, D[l] = (r >> l & 1) ? one : 0);
      break;
    }
    if (x2) {
      P[in->d] = pmerge(P[in->d], p, em);
      P[in->d2] = pmerge(P[in->d2], q, em);
      break;
    }
    uint32_t np = ~p;
    if (in->sub2) {
      uint32_t c = P[in->c] ^ ((in->fl & XF_NEGC) ? ~0u : 0);
      switch (in->sub2) {
      case XB_AND:
        p &= c;
        np &= c;
        break;
      case XB_OR:
        p |= c;
        np |= c;
        break;
      case XB_XOR:
        p ^= c;
        np ^= c;
        break;
      }
    }
    P[in->d] = pmerge(P[in->d], p, em);
    P[in->d2] = pmerge(P[in->d2], np, em);
    break;
  }
  case X_SELP: {
    uint32_t c = P[in->c] ^ ((in->fl & XF_NEGC) ? ~0u : 0);
    LANES(l, em, D[l] = (c >> l & 1) ? A[l] : B[l]);
    break;
  }
  case X_SLCT:
    if (in->t2 == PLT_F32)
      LANES(l, em, {
        float c = f32(C[l]);
        if (in->fl & XF_FTZ && fabsf(c) < FLT_MIN) c = 0;
        D[l] = c >= 0 ? A[l] : B[l];
      });
    else
      LANES(l, em, D[l] = (int32_t)C[l] >= 0 ? A[l] : B[l]);
    break;
  /* ---- floating point ---- */
  case X_FADD:
  case X_FSUB:
  case X_FMUL:
  case X_FFMA:
  case X_FDIV: {
    int fast = t == PLT_F32 && in->rnd <= XR_RN &&
               !(in->fl & (XF_FTZ | XF_SAT | XF_RELU | XF_APPROX | XF_FULL));
    if (fast) {
      switch (in->op) {
      case X_FADD: LANES(l, em, D[l] = c32(f32(A[l]) + f32(B[l]))); break;
      case X_FSUB: LANES(l, em, D[l] = c32(f32(A[l]) - f32(B[l]))); break;
      case X_FMUL: LANES(l, em, D[l] = c32(f32(A[l]) * f32(B[l]))); break;
      case X_FFMA: LANES(l, em, D[l] = c32(fmaf(f32(A[l]), f32(B[l]), f32(C[l])))); break;
      default: LANES(l, em, D[l] = c32(f32(A[l]) / f32(B[l]))); break;
      }
    } else if (t == PLT_F64 && in->rnd <= XR_RN && !(in->fl & XF_APPROX)) {
      switch (in->op) {
      case X_FADD: LANES(l, em, D[l] = c64(f64(A[l]) + f64(B[l]))); break;
      case X_FSUB: LANES(l, em, D[l] = c64(f64(A[l]) - f64(B[l]))); break;
      case X_FMUL: LANES(l, em, D[l] = c64(f64(A[l]) * f64(B[l]))); break;
      case X_FFMA: LANES(l, em, D[l] = c64(fma(f64(A[l]), f64(B[l]), f64(C[l])))); break;
      default: LANES(l, em, D[l] = c64(f64(A[l]) / f64(B[l]))); break;
      }
    } else
      LANES(l, em, D[l] = plX__fop(in, in->op, A[l], B[l], C[l], t));
    break;
  }
  case X_FMIN:
  case X_FMAX:
    if (t == PLT_F32 && !(in->fl & (XF_FTZ | XF_NAN | XF_XORSIGN))) {
      int mx = in->op == X_FMAX;
      LANES(l, em, {
        float a = f32(A[l]), b = f32(B[l]), r;
        if (a != a)
          r = b;
        else if (b != b)
          r = a;
        else if (mx)
          r = (a > b || (a == b && !signbit(a))) ? a : b;
        else
          r = (a < b || (a == b && signbit(a))) ? a : b;
        D[l] = c32(r);
      });
    } else
      LANES(l, em, D[l] = plX__fop(in, in->op, A[l], B[l], 0, t));
    break;
  case X_FABS:
  case X_FNEG:
  case X_RCP:
  case X_SQRT:
  case X_RSQRT:
  case X_SIN:
  case X_COS:
  case X_LG2:
  case X_EX2:
  case X_TANH: LANES(l, em, D[l] = plX__fop(in, in->op, A[l], 0, 0, t)); break;
  case X_COPYSIGN:
    if (t == PLT_F32)
      LANES(l, em, D[l] = ((uint32_t)B[l] & 0x7fffffffu) | ((uint32_t)A[l] & 0x80000000u));
    else
      LANES(l, em, D[l] = (B[l] & ~(1ull << 63)) | (A[l] & (1ull << 63)));
    break;
  case X_TESTP: {
    uint32_t p = 0;
    int fmt = plX__fmt_of(t);
    LANES(l, em, {
      double v = plX__to_double(A[l], fmt);
      int r = 0;
      switch (in->sub) {
      case 1: r = isfinite(v); break;
      case 2: r = isinf(v); break;
      case 3: r = v == v; break;
      case 4: r = v != v; break;
      case 5: r = isfinite(v) && fabs(v) >= (t == PLT_F32 ? (double)FLT_MIN : DBL_MIN); break;
      case 6: r = v != 0 && fabs(v) < (t == PLT_F32 ? (double)FLT_MIN : DBL_MIN); break;
      }
      p |= (uint32_t)r << l;
    });
    P[in->d] = pmerge(P[in->d], p, em);
    break;
  }
  /* ---- conversion and movement ---- */
  case X_CVT: /* the common conversions inline; each is one exact rounding */
    if (t == PLT_F32 && in->t2 == PLT_F16 && !in->fl)
      LANES(l, em, D[l] = b32((float)plX__to_double(A[l] & 0xffff, XFMT_F16)));
    else if (t == PLT_F32 && in->t2 == PLT_BF16 && !in->fl)
      LANES(l, em, D[l] = (A[l] & 0xffff) << 16);
    else if (t == PLT_F32 && in->t2 == PLT_U32 && in->rnd == XR_RN && !in->fl)
      LANES(l, em, D[l] = b32((float)(uint32_t)A[l]));
    else if (t == PLT_F32 && in->t2 == PLT_S32 && in->rnd == XR_RN && !in->fl)
      LANES(l, em, D[l] = b32((float)(int32_t)A[l]));
    else if (t == PLT_BF16 && in->t2 == PLT_F32 && in->rnd == XR_RN && !in->fl)
      LANES(l, em, {
        uint32_t u = (uint32_t)A[l];
        D[l] = (u & 0x7fffffffu) > 0x7f800000u ? 0x7fff : (u + 0x7fffu + (u >> 16 & 1)) >> 16;
      });
    else
      LANES(l, em, D[l] = plX__cvt(in, A[l]));
    break;
  case X_CVTPACK: LANES(l, em, D[l] = plX__cvtpack(in, A[l], B[l])); break;
  case X_CVTA:
    switch (in->space) {
    case XS_SHARED: LANES(l, em, D[l] = X_SH_BASE + (uint32_t)A[l]); break;
    case XS_LOCAL: LANES(l, em, D[l] = X_LOC_BASE + (uint32_t)A[l]); break;
    case XS_PARAM: LANES(l, em, D[l] = X_PAR_BASE + (uint32_t)A[l]); break;
    default: LANES(l, em, D[l] = A[l]); break;
    }
    break;
  case X_CVTATO: {
    uint64_t base = in->space == XS_SHARED  ? X_SH_BASE
                    : in->space == XS_LOCAL ? X_LOC_BASE
                    : in->space == XS_PARAM ? X_PAR_BASE
                                            : 0;
    LANES(l, em, {
      uint64_t a = A[l];
      int ins = a - X_SH_BASE < X_WIN    ? XS_SHARED
                : a - X_LOC_BASE < X_WIN ? XS_LOCAL
                : a - X_PAR_BASE < X_WIN ? XS_PARAM
                                         : XS_GLOBAL;
      int want = in->space == XS_CONST ? XS_GLOBAL : in->space;
      if (ins != want) {
        char msg[128];
        snprintf(msg, sizeof msg, "generic address 0x%llx is not in the %s window",
                 (unsigned long long)a,
                 want == XS_SHARED  ? "shared"
                 : want == XS_LOCAL ? "local"
                 : want == XS_PARAM ? "param"
                                    : "global");
        return plX__fail_lane(e, in, w, l, msg);
      }
      D[l] = a - base;
    });
    break;
  }
  case X_ISSPACEP: {
    uint32_t p = 0;
    LANES(l, em, {
      uint64_t a = A[l];
      int ins = a - X_SH_BASE < X_WIN    ? XS_SHARED
                : a - X_LOC_BASE < X_WIN ? XS_LOCAL
                : a - X_PAR_BASE < X_WIN ? XS_PARAM
                                         : XS_GLOBAL;
      int want = in->space == XS_CONST ? XS_GLOBAL : in->space;
      p |= (uint32_t)(ins == want) << l;
    });
    P[in->d] = pmerge(P[in->d], p, em);
    break;
  }
  case X_MOV: LANES(l, em, D[l] = A[l]); break;
  case X_MOVSREG: LANES(l, em, D[l] = plX__sreg(e, w, in->sub, l)); break;
  case X_PACK: {
    int n = in->vec, eb = bits / n;
    const uint32_t *vs = e->xf.vslots + in->vs;
    LANES(l, em, {
      uint64_t r = 0;
      for (int i = 0; i < n; i++) r |= zx(wslot(w, vs[i])[l], eb) << (eb * i);
      D[l] = r;
    });
    break;
  }
  case X_UNPACK: {
    int n = in->vec, eb = bits / n;
    const uint32_t *vs = e->xf.vslots + in->vs;
    LANES(l, em, {
      uint64_t v = A[l];
      for (int i = 0; i < n; i++) wslot(w, vs[i])[l] = zx(v >> (eb * i), eb);
    });
    break;
  }
  case X_MOV128: { /* slots d, d + 1: the low and high halves of the .b128 register */
    uint64_t *D1 = wslot(w, in->d + 1);
    const uint32_t *vs = e->xf.vslots + in->vs;
    if (in->sub == 0) {
      const uint64_t *A1 = wslot(w, in->a + 1);
      LANES(l, em, {
        D[l] = A[l];
        D1[l] = A1[l];
      });
    } else if (in->sub == 1 && in->vec == 2)
      LANES(l, em, {
        D[l] = wslot(w, vs[0])[l];
        D1[l] = wslot(w, vs[1])[l];
      });
    else if (in->sub == 1)
      LANES(l, em, {
        D[l] = zx(wslot(w, vs[0])[l], 32) | wslot(w, vs[1])[l] << 32;
        D1[l] = zx(wslot(w, vs[2])[l], 32) | wslot(w, vs[3])[l] << 32;
      });
    else {
      const uint64_t *A1 = wslot(w, in->d + 1), *A0 = D;
      LANES(l, em, {
        uint64_t lo = A0[l], hi = A1[l];
        if (in->vec == 2) {
          wslot(w, vs[0])[l] = lo;
          wslot(w, vs[1])[l] = hi;
        } else {
          wslot(w, vs[0])[l] = zx(lo, 32);
          wslot(w, vs[1])[l] = lo >> 32;
          wslot(w, vs[2])[l] = zx(hi, 32);
          wslot(w, vs[3])[l] = hi >> 32;
        }
      });
    }
    break;
  }
  /* ---- memory ---- */
  case X_LD: {
    int es = bits / 8, n = in->vec;
    const uint32_t *vs = e->xf.vslots + in->vs;
    if (n == 1) {
      uint64_t *D0 = wslot(w, vs[0]);
      if (bits == 32 && !tsig(t))
        LANES(l, em, {
          uint8_t *p = lane_mem(e, in, w, l, addr_of(in, w, l), 4, 0);
          if (!p) return e->status;
          uint32_t v;
          memcpy(&v, p, 4);
          D0[l] = v;
        });
      else
        LANES(l, em, {
          uint8_t *p = lane_mem(e, in, w, l, addr_of(in, w, l), (uint32_t)es, 0);
          if (!p) return e->status;
          D0[l] = load_ext(p, t);
        });
    } else
      LANES(l, em, {
        uint8_t *p = lane_mem(e, in, w, l, addr_of(in, w, l), (uint32_t)(es * n), 0);
        if (!p) return e->status;
        for (int i = 0; i < n; i++) wslot(w, vs[i])[l] = load_ext(p + i * es, t);
      });
    break;
  }
  case X_ST: {
    int es = bits / 8, n = in->vec;
    const uint32_t *vs = e->xf.vslots + in->vs;
    LANES(l, em, {
      uint8_t *p = lane_mem(e, in, w, l, addr_of(in, w, l), (uint32_t)(es * n), 1);
      if (!p) return e->status;
      for (int i = 0; i < n; i++) store(p + i * es, wslot(w, vs[i])[l], es);
    });
    break;
  }
  case X_ATOM:
  case X_RED: {
    int es = bits / 8;
    LANES(l, em, {
      uint8_t *p = lane_mem(e, in, w, l, addr_of(in, w, l), (uint32_t)es, 2);
      if (!p) return e->status;
      uint64_t old = 0;
      memcpy(&old, p, (size_t)es);
      uint64_t nv = plX__atom_op(in, old, B[l], C[l]);
      store(p, nv, es);
      D[l] = tsig(t) ? (uint64_t)sx(old, bits) : old;
    });
    break;
  }
  case X_CPASYNC: {
    uint32_t n = in->vec;
    uint64_t *SZ = B;
    LANES(l, em, {
      uint32_t tid = (uint32_t)w->idx * 32 + (uint32_t)l;
      uint64_t dst = addr_of(in, w, l);
      if (dst % n || dst + n > e->smem_size) {
        plX__mem(e, in, XS_SHARED, dst, n, tid, 1);
        if (!e->status) plX__fail(e, in->stmt, "bad cp.async destination");
        return e->status;
      }
      uint64_t src = w->R[(size_t)in->a * 32 + (size_t)l];
      if (in->t3 == 32) src = (uint32_t)src;
      src += (uint64_t)in->off2;
      uint32_t sz = (uint32_t)SZ[l];
      if (sz > n) return plX__fail_lane(e, in, w, l, "src-size is larger than the copy size");
      plX_cp c;
      memset(&c, 0, sizeof c);
      if (sz) {
        if (src % n) {
          plX_ins tmp = *in;
          tmp.space = XS_GLOBAL;
          plX__mem(e, &tmp, XS_GLOBAL, src, n, tid, 0);
          return e->status;
        }
        plX_ins tmp = *in;
        tmp.space = XS_GLOBAL;
        uint8_t *p = plX__mem(e, &tmp, XS_GLOBAL, src, sz, tid, 0);
        if (!p) return e->status;
        memcpy(c.data, p, sz);
      }
      plX_cpq *q = &e->C->cpq[tid];
      c.grp = q->gnext;
      c.dst = (uint32_t)dst;
      c.n = n;
      c.pc = (uint32_t)(in - e->xf.code);
      if (!plB_vec_push(q->q, c)) return plX__fail(e, in->stmt, "out of memory");
    });
    break;
  }
  case X_CPCOMMIT: LANES(l, em, e->C->cpq[(uint32_t)w->idx * 32 + (uint32_t)l].gnext++); break;
  case X_CPWAIT:
    LANES(l, em, {
      uint32_t tid = (uint32_t)w->idx * 32 + (uint32_t)l;
      plX_cpq *q = &e->C->cpq[tid];
      if (in->sub2) q->gnext++; /* wait_all: commit, then wait for everything */
      uint32_t limit = in->sub2 ? UINT32_MAX : (q->gnext > in->c ? q->gnext - in->c : 0);
      plX__cp_complete(e, tid, limit);
      if (e->status) return e->status;
    });
    break;
  case X_LDMATRIX: return plX__ldmatrix(e, in, w, em);
  case X_STMATRIX: return plX__stmatrix(e, in, w, em);
  case X_MMA: return plX__mma(e, in, w, em);
  case X_WMMA: return plX__wmma(e, in, w, em);
  /* ---- warp ---- */
  case X_SHFL: {
    if (!em) break;
    uint32_t mk[32];
    if (member_check(e, in, w, em, mk)) return e->status;
    uint64_t src[32], out[32];
    uint32_t inr = 0; /* p: the computed source lane was in range */
    LANES(l, em, src[l] = A[l]);
    LANES(l, em, {
      int lane = l, bval = (int)(B[l] & 31), cval = (int)(C[l] & 31), seg = (int)(C[l] >> 8 & 31);
      int maxl = (lane & seg) | (cval & ~seg), minl = lane & seg;
      int j, pv;
      switch (in->sub) {
      case 1:
        j = lane - bval;
        pv = j >= maxl;
        break;
      case 2:
        j = lane + bval;
        pv = j <= maxl;
        break;
      case 3:
        j = lane ^ bval;
        pv = j <= maxl;
        break;
      default:
        j = minl | (bval & ~seg);
        pv = j <= maxl;
        break;
      }
      if (!pv)
        j = lane;
      else
        inr |= 1u << l;
      if (!(em >> j & 1) || !(mk[l] >> j & 1)) {
        char msg[128];
        snprintf(msg, sizeof msg, "reads lane %d, which %s (the value is undefined)", j,
                 (em >> j & 1) ? "is not in its membermask" : "does not execute this shfl");
        return plX__fail_lane(e, in, w, l, msg);
      }
      out[l] = src[j];
    });
    LANES(l, em, D[l] = out[l]);
    P[in->d2] = pmerge(P[in->d2], inr, em);
    break;
  }
  case X_VOTE: { /* each lane over the lanes of its membermask */
    if (!em) break;
    uint32_t mk[32];
    if (member_check(e, in, w, em, mk)) return e->status;
    uint32_t pv = (P[in->a] ^ ((in->fl & XF_NEGC) ? ~0u : 0)) & em;
    if (in->sub == 4) {
      LANES(l, em, D[l] = pv & mk[l]);
      break;
    }
    uint32_t r = 0;
    LANES(l, em, {
      uint32_t g = mk[l] & em, v = pv & g;
      if (in->sub == 1 ? v == g : in->sub == 2 ? v != 0 : (v == g || v == 0)) r |= 1u << l;
    });
    P[in->d] = pmerge(P[in->d], r, em);
    break;
  }
  case X_ACTIVEMASK: LANES(l, em, D[l] = am); break;
  case X_REDUX: {
    if (!em) break;
    uint32_t mk[32];
    if (member_check(e, in, w, em, mk)) return e->status;
    uint64_t out[32];
    LANES(l, em, {
      uint32_t g = mk[l] & em;
      int first = __builtin_ctz(g);
      uint32_t r = (uint32_t)A[first];
      for (uint32_t m = g & (g - 1); m; m &= m - 1) {
        uint32_t v = (uint32_t)A[__builtin_ctz(m)];
        switch (in->sub) {
        case 1: r += v; break;
        case 2: r = tsig(t) ? ((int32_t)v < (int32_t)r ? v : r) : (v < r ? v : r); break;
        case 3: r = tsig(t) ? ((int32_t)v > (int32_t)r ? v : r) : (v > r ? v : r); break;
        case 4: r &= v; break;
        case 5: r |= v; break;
        default: r ^= v; break;
        }
      }
      out[l] = r;
    });
    LANES(l, em, D[l] = out[l]);
    break;
  }
  case X_MATCH: {
    if (!em) break;
    uint32_t mk[32];
    if (member_check(e, in, w, em, mk)) return e->status;
    uint64_t v[32], out[32];
    uint32_t all = 0;
    LANES(l, em, v[l] = zx(A[l], bits));
    LANES(l, em, {
      uint32_t g = mk[l] & em, m = 0;
      for (uint32_t q = g; q; q &= q - 1) {
        int j = __builtin_ctz(q);
        if (v[j] == v[l]) m |= 1u << j;
      }
      if (in->sub) {
        out[l] = m == g ? g : 0;
        if (m == g) all |= 1u << l;
      } else
        out[l] = m;
    });
    LANES(l, em, D[l] = out[l]);
    if (in->sub) P[in->d2] = pmerge(P[in->d2], all, em);
    break;
  }
  case X_BARWARP: {
    if (!em) break;
    uint32_t mk[32];
    if (member_check(e, in, w, em, mk)) return e->status;
    plX__hop_fence_snap_lanes(e, (uint32_t)w->idx, em);
    break;
  }
  case X_MBAR:
  case X_MBPENDING:
  case X_CPMBARRIVE:
  case X_TMA:
  case X_BULK:
  case X_BULKCOMMIT:
  case X_BULKWAIT:
  case X_WGMMA:
  case X_WGFENCE:
  case X_WGCOMMIT:
  case X_WGWAIT:
  case X_MAPA:
  case X_GETRANK:
  case X_ELECT:
  case X_FENCEPROXY:
  case X_TMAP:
  case X_CLCTRY:
  case X_CLCQUERY: return plX__hop_exec(e, w, in, 0, am, em);
  case X_TCALLOC:
  case X_TCDEALLOC:
  case X_TCRELINQ:
  case X_TCLD:
  case X_TCST:
  case X_TCWAIT:
  case X_TCFENCE:
  case X_TCMMA:
  case X_TCCP:
  case X_TCCOMMIT: return plX__bw_exec(e, w, in, em);
  default: {
    plX_elem_fn f = plX__elem[in->op]; /* an operation of element functions (ops.c) */
    if (!f) return plX__fail(e, in->stmt, "%s is not emulated", plX__opname(e, in->stmt));
    LANES(l, em, D[l] = f(in, A[l], B[l], C[l]));
    break;
  }
  }
  return 0;
}
