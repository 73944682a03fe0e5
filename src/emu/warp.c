/* warp.c -- the warp loop: which threads execute together, branches, exits and barriers.
**
** A warp executes one instruction at a time for the threads at the lowest PC among its ready
** threads (not exited, not waiting at a barrier). Threads that branch elsewhere leave the group;
** they rejoin it when the group reaches their PC again. Structured code therefore reconverges at
** the first instruction after an if/else or a loop, as on the hardware; the order in which the
** two sides of a divergent branch run is that policy (the lower PC first), and is documented.
** Also here: barriers (arrival, completion, bar.red), the opt-in register check and the trace. */
#include "state.h"
#include "fail.h"
#include "mem.h"
#include "race.h"
#include "budget.h"
#include "warp.h"
#include "exec.h"
#include "fp.h"
#include "hooks.h"
#include "bwhooks.h"
#include <stdio.h>

static void who(plX_emu *e, plB_buf *b, plX_warp *w, int lane) {
  plX__who(e, b, e->C->ctaid, (uint32_t)w->idx * 32 + (uint32_t)lane);
}

/* ---- the opt-in register check and the trace
** ---------------------------------------------------- */
static int check_reads(plX_emu *e, plX_warp *w, plX_ins *in, uint32_t am, uint32_t em) {
  const uint32_t *c = e->xf.chk + in->chk;
  if (e->ndeferred) return 0; /* an opt-in report is kept already */
  for (int i = 0; i < in->nrd; i++) {
    uint32_t r = c[i];
    uint32_t want = (i == 0 && in->guard >= 0) ? am : em;
    uint32_t have = (r & X_PREDBIT) ? w->pdef[r & ~X_PREDBIT] : w->rdef[r];
    if ((have & want) != want) {
      int lane = __builtin_ctz(want & ~have);
      uint32_t id = (r & X_PREDBIT) ? e->xf.pred_reg[r & ~X_PREDBIT] : e->xf.slot_reg[r];
      plB_buf b;
      plB_buf_init(&b);
      plB_buf_printf(&b, "%s: reads ", plX__opname(e, in->stmt));
      plI_regname(e->m, id, &b);
      plB_buf_puts(&b, ", which no instruction has written (");
      who(e, &b, w, lane);
      plB_buf_puts(&b, ")");
      plX__optin(e, in->stmt, "%s", plB_buf_cstr(&b)); /* opt-in: kept, the run goes on */
      plB_buf_free(&b);
      return e->status;
    }
  }
  return 0;
}

static void mark_writes(plX_emu *e, plX_warp *w, plX_ins *in, uint32_t em) {
  const uint32_t *c = e->xf.chk + in->chk + in->nrd;
  for (int i = 0; i < in->nwr; i++) {
    uint32_t r = c[i];
    if (r & X_PREDBIT)
      w->pdef[r & ~X_PREDBIT] |= em;
    else
      w->rdef[r] |= em;
  }
}

static void value(plB_buf *b, int t, uint64_t v, int hex) {
  switch (t) {
  case PLT_F32: plB_buf_printf(b, hex ? "%.9g (0x%08x)" : "%.9g", f32(v), (uint32_t)v); break;
  case PLT_F64: plB_buf_printf(b, "%.17g", f64(v)); break;
  case PLT_F16:
  case PLT_BF16:
    plB_buf_printf(b, hex ? "%.6g (0x%04x)" : "%.6g", plX__to_double(v & 0xffff, plX__fmt_of(t)),
                   (unsigned)(v & 0xffff));
    break;
  default:
    if (plB_type_info[t].cls == PLT_CS)
      plB_buf_printf(b, "%lld", (long long)sx(v, plB_type_info[t].bits));
    else if (hex)
      plB_buf_printf(b, "%llu (0x%llx)", (unsigned long long)zx(v, plB_type_info[t].bits),
                     (unsigned long long)zx(v, plB_type_info[t].bits));
    else if (zx(v, plB_type_info[t].bits) > 0xffffffffu)
      plB_buf_printf(b, "0x%llx", (unsigned long long)zx(v, plB_type_info[t].bits));
    else
      plB_buf_printf(b, "%llu", (unsigned long long)zx(v, plB_type_info[t].bits));
  }
}

/* one line per instruction: its anchor and opcode, then the registers it wrote -- for one lane
** (lane >= 0), or for the whole warp (lane < 0: masks, then each register's value in every lane) */
static void trace(plX_emu *e, plX_warp *w, plX_ins *in, int lane, uint32_t am, uint32_t em) {
  plB_buf *b = &e->trace;
  const plI_stmt *s = plX__stmt(e, in->stmt);
  if (lane < 0) plB_buf_printf(b, "[warp %d, lanes 0x%08x] ", w->idx, am);
  if (in->op == X_EXIT && in->sub) {
    plB_buf_puts(b, "(the end of the kernel: exit)\n");
    return;
  }
  if (in->op == X_RET && in->sub) {
    plB_buf_puts(b, "(the end of the function: ret)\n");
    return;
  }
  if (s && s->file) plB_buf_printf(b, "%s:%u: ", plI_cstr(e->m, s->file), s->line);
  plB_buf_puts(b, plX__opname(e, in->stmt));
  if (lane >= 0 ? !(em >> lane & 1) : !em) {
    plB_buf_puts(b, "  (guard false)\n");
    return;
  }
  if (lane < 0 && em != am) plB_buf_printf(b, "  (guard true in lanes 0x%08x)", em);
  const uint32_t *c = e->xf.chk + in->chk + in->nrd;
  for (int i = 0; i < in->nwr; i++) {
    uint32_t r = c[i];
    uint32_t id = (r & X_PREDBIT) ? e->xf.pred_reg[r & ~X_PREDBIT] : e->xf.slot_reg[r];
    if (!id) continue;
    plB_buf_puts(b, i ? ", " : "  ");
    plI_regname(e->m, id, b);
    int t = e->m->regs.p[id - 1].type;
    if (lane >= 0) {
      plB_buf_puts(b, " = ");
      if (r & X_PREDBIT)
        plB_buf_puts(b, (w->P[r & ~X_PREDBIT] >> lane & 1) ? "true" : "false");
      else
        value(b, t, w->R[(size_t)r * 32 + (size_t)lane], 1);
      continue;
    }
    plB_buf_puts(b, " = {");
    for (int l = 0; l < 32; l++) {
      if (!(w->exists >> l & 1)) break;
      if (l) plB_buf_puts(b, ", ");
      if (!(em >> l & 1))
        plB_buf_putc(b, '_');
      else if (r & X_PREDBIT)
        plB_buf_putc(b, (w->P[r & ~X_PREDBIT] >> l & 1) ? '1' : '0');
      else
        value(b, t, w->R[(size_t)r * 32 + (size_t)l], 0);
    }
    plB_buf_putc(b, '}');
  }
  plB_buf_putc(b, '\n');
}

/* ---- barriers
** --------------------------------------------------------------------------------------- */
static int uniform_u32(plX_emu *e, plX_ins *in, plX_warp *w, uint32_t slot, uint32_t em,
                       uint32_t *out, const char *what) {
  uint64_t *V = wslot(w, slot);
  int first = __builtin_ctz(em);
  uint32_t v = (uint32_t)V[first];
  LANES(
      l, em, if ((uint32_t)V[l] != v) {
        char m[96];
        snprintf(m, sizeof m, "the %s differs between the threads of the warp", what);
        return plX__fail_warp(e, in, w, m, em);
      });
  *out = v;
  return 0;
}

static void bar_complete(plX_emu *e, int id) {
  plX_bar *b = &e->C->bars[id];
  for (uint32_t i = 0; i < b->red.n; i++) {
    plX_waiter *wt = &b->red.p[i];
    plX_warp *W = &e->C->warps[wt->warp];
    if (wt->pred)
      W->P[wt->d] =
          pmerge(W->P[wt->d], (wt->pred == XBAR_RED_AND ? b->all : b->any) ? ~0u : 0, wt->mask);
    else {
      uint64_t *D = W->R + (size_t)wt->d * 32;
      LANES(l, wt->mask, D[l] = b->popc);
    }
  }
  for (uint32_t w = 0; w < e->nwarps; w++) {
    plX_warp *W = &e->C->warps[w];
    uint32_t m = W->waiting;
    while (m) {
      int l = __builtin_ctz(m);
      m &= m - 1;
      if (W->bid[l] == id) W->waiting &= ~(1u << l);
    }
  }
  b->expected = b->arrived = 0;
  b->red.n = 0;
  b->popc = 0;
  b->all = 1;
  b->any = 0;
  e->C->epoch++;
  e->gbars++;
  plX__hop_fence_snap(e);
  if (e->C->h.rd.n) plX__hop_bar_sync(e->C);
  if (e->C->bw) plX__bw_bar_sync(e, e->C);
}

/* arrive (and for sync/red, wait); returns 0 ok */
static int barrier(plX_emu *e, plX_warp *w, plX_ins *in, uint32_t pc, uint32_t em) {
  uint32_t id, count = 0;
  if (uniform_u32(e, in, w, in->a, em, &id, "barrier number")) return e->status;
  if (id > 15) return plX__fail_warp(e, in, w, "barrier number above 15", em);
  if (in->b != X_NOSLOT) {
    if (uniform_u32(e, in, w, in->b, em, &count, "thread count")) return e->status;
    if (count == 0 || count % 32)
      return plX__fail_warp(e, in, w, "the thread count must be a positive multiple of 32", em);
  }
  int aligned = (in->fl & XF_ALIGNED) != 0;
  if (aligned && em != (w->exists & ~w->exited))
    return plX__fail_warp(e, in, w,
                          "an aligned barrier executed by part of a warp: these non-exited threads "
                          "of the warp are elsewhere",
                          (w->exists & ~w->exited) & ~em);
  uint32_t expected = count ? count : aligned ? e->nwarps * 32 : e->nthreads;
  plX_bar *b = &e->C->bars[id];
  if (b->expected == 0) {
    b->expected = expected;
    b->pc = pc;
    b->all = 1;
    b->any = 0;
    b->popc = 0;
  } else if (b->expected != expected) {
    char m[1300];
    snprintf(m, sizeof m,
             "barrier %u expects %u threads here but %u at line %s, where other threads wait", id,
             expected, b->expected, X_AT(e, e->xf.code[b->pc].stmt));
    return plX__fail_warp(e, in, w, m, em);
  }
  if (in->sub >= XBAR_RED_POPC) {
    uint32_t pv = (w->P[in->c] ^ ((in->fl & XF_NEGC) ? ~0u : 0)) & em;
    b->popc += (uint32_t)__builtin_popcount(pv);
    if (pv != em) b->all = 0;
    if (pv) b->any = 1;
    plX_waiter wt = { w->idx, em, in->d, in->sub == XBAR_RED_POPC ? 0 : in->sub };
    if (!plB_vec_push(b->red, wt)) return plX__fail(e, in->stmt, "out of memory");
  }
  b->arrived += aligned ? 32 : (uint32_t)__builtin_popcount(em);
  if (in->sub != XBAR_ARRIVE) {
    w->waiting |= em;
    LANES(l, em, {
      w->bid[l] = (uint8_t)id;
      w->bpc[l] = pc;
    });
  }
  if (b->arrived > b->expected)
    return plX__fail_warp(e, in, w, "more threads arrived at the barrier than its thread count",
                          em);
  if (b->arrived == b->expected) bar_complete(e, (int)id);
  return 0;
}

/* ---- the warp loop
** ---------------------------------------------------------------------------------- */
int plX__run_warp(plX_emu *e, plX_warp *w) {
  plX_ins *code = e->xf.code;
  int checks = (e->checks & PLX_CHECK_UNINIT_REGS) != 0;
  int tracing = e->trace_cta >= 0 && (uint64_t)e->trace_cta == e->C->cta_linear &&
                e->trace_thread >= 0 && (uint64_t)e->trace_thread / 32 == (uint64_t)w->idx;
  int tlane = e->trace_warp ? -1 : (int)(e->trace_thread % 32);
  for (;;) {
    uint32_t ready = w->exists & ~w->exited & ~w->waiting;
    if (!ready) return 0;
    uint32_t pc = UINT32_MAX, next = UINT32_MAX, am = 0;
    for (uint32_t m = ready; m; m &= m - 1) {
      int l = __builtin_ctz(m);
      if (w->pc[l] < pc) pc = w->pc[l];
    }
    for (uint32_t m = ready; m; m &= m - 1) {
      int l = __builtin_ctz(m);
      if (w->pc[l] == pc)
        am |= 1u << l;
      else if (w->pc[l] < next)
        next = w->pc[l];
    }
    for (;;) {
      if (pc == next) break; /* others wait here: join them */
      plX_ins *in = &code[pc];
      uint32_t em = am;
      if (in->guard >= 0) em &= in->gneg ? ~w->P[in->guard] : w->P[in->guard];
      if (e->st.warp_insns >= e->limit || plX__sigint) { /* the budget spent, or SIGINT */
        LANES(l, am, w->pc[l] = pc);
        return plX__stopped(e, in->stmt, plX__sigint != 0);
      }
      e->st.thread_insns += (uint64_t)__builtin_popcount(am);
      e->st.warp_insns++;
      w->clock++;
      if (checks && check_reads(e, w, in, am, em)) return e->status;
      if (w->wg_last > w->wg_done && in->op != X_WGMMA && e->C->h.wgg &&
          plX__hop_accum_check(e, w, in))
        return e->status;
      if (e->C->h.wga && in->op != X_WGMMA && in->nrd + in->nwr) plX__hop_wg_touch(e, w, in);
      int tr = tracing && (tlane < 0 ? am != 0 : (am >> tlane & 1));
      switch (in->op) {
      case X_BRA:
        if (em == am) {
          pc = in->target;
          if (tr) trace(e, w, in, tlane, am, em);
          if (pc > next) goto regroup; /* lower PCs wait elsewhere: they go first */
          continue;
        }
        if (em == 0) {
          pc++;
          if (tr) trace(e, w, in, tlane, am, em);
          continue;
        }
        LANES(l, am, w->pc[l] = (em >> l & 1) ? in->target : pc + 1);
        if (tr) trace(e, w, in, tlane, am, em);
        am = 0;
        goto regroup;
      case X_EXIT:
        if (tr) trace(e, w, in, tlane, am, em);
        if (em && e->nrpend && plX__race_flush(e, w, em)) return e->status;
        if (em) {
          w->exited |= em;
          w->exitpc = pc;
          am &= ~em;
        }
        if (em && e->C->racc && !(w->exists & ~w->exited) && plX__exit_check(e)) return e->status;
        pc++;
        if (!am) goto regroup;
        continue;
      case X_CALL: /* like a branch, after passing the arguments */
        if (tr) trace(e, w, in, tlane, am, em);
        if (in->t3) { /* vprintf: printed here, no branch */
          if (em && plX__vprintf(e, w, in, em)) return e->status;
          pc++;
          continue;
        }
        if (em && plX__call(e, w, in, pc, em)) return e->status;
        if (em == am) {
          pc = in->target;
          if (pc > next) goto regroup;
          continue;
        }
        if (em == 0) {
          pc++;
          continue;
        }
        LANES(l, am, w->pc[l] = (em >> l & 1) ? in->target : pc + 1);
        am = 0;
        goto regroup;
      case X_RET: { /* each lane to its caller; with none, it exits */
        if (tr) trace(e, w, in, tlane, am, em);
        uint32_t ex = em ? plX__ret(e, w, em) : 0;
        if (ex && e->nrpend && plX__race_flush(e, w, ex)) return e->status;
        if (ex) {
          w->exited |= ex;
          w->exitpc = pc;
        }
        if (ex && e->C->racc && !(w->exists & ~w->exited) && plX__exit_check(e)) return e->status;
        if (em & ~ex) { /* the returning lanes' pcs are set */
          LANES(l, am & ~em, w->pc[l] = pc + 1);
          am = 0;
          goto regroup;
        }
        am &= ~em;
        pc++;
        if (!am) goto regroup;
        continue;
      }
      case X_TRAP:
        if (em) return plX__fail_lane(e, in, w, __builtin_ctz(em), "trap");
        pc++;
        continue;
      case X_BAR:
        if (!em) {
          pc++;
          continue;
        }
        if (tr) trace(e, w, in, tlane, am, em);
        if (e->nrpend && plX__race_flush(e, w, em)) return e->status;
        if (barrier(e, w, in, pc, em)) return e->status;
        LANES(l, am, w->pc[l] = pc + 1);
        am = 0;
        goto regroup;
      case X_MBWAIT:
      case X_CLBAR:
      case X_SETMAXNREG: { /* lanes that must wait stay at this pc */
        if (!em) {
          pc++;
          continue;
        }
        if (tr) trace(e, w, in, tlane, am, em);
        uint32_t blocked;
        if (e->nrpend && in->op != X_SETMAXNREG && plX__race_flush(e, w, em)) return e->status;
        if (plX__hop_wait(e, w, in, pc, em, &blocked)) return e->status;
        if (checks) mark_writes(e, w, in, em & ~blocked);
        if (!blocked) {
          pc++;
          continue;
        }
        LANES(l, am, w->pc[l] = (blocked >> l & 1) ? pc : pc + 1);
        am = 0;
        goto regroup;
      }
      default:
        if (plX__exec(e, w, in, am, em)) return e->status;
        if (checks) mark_writes(e, w, in, em);
        if (tr) trace(e, w, in, tlane, am, em);
        pc++;
        continue;
      }
    }
  regroup:
    LANES(l, am, w->pc[l] = pc);
  }
}
