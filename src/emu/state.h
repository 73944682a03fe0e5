/* state.h -- the emulator's internal state: every struct a run keeps (device buffers, decoded
** instructions, warps, CTAs, the Hopper state, the emulator object), the constants they use and
** inline accessors of them. Types only: no file's functions are declared here (each module has
** its header: mem.h, layout.h, race.h, budget.h, decode.h, warp.h, exec.h, ops.h, fp.h, mma.h,
** fail.h, and hopper/hooks.h for the Hopper families). Seen by src/emu/ and src/emu/hopper/ only:
** the rest of ptxlua sees the emulator through emu.h. */
#ifndef PL_EMU_STATE_H
#define PL_EMU_STATE_H

#include <string.h>
#include "emu.h"
#include "util.h"
#include "isa.h"
#include "types.h"

/* ---- address windows of the generic space (global buffers live above X_GL_BASE) ---------- */
#define X_SH_BASE  0x0000100000000000ull /* generic shared  = X_SH_BASE + shared offset */
#define X_LOC_BASE 0x0000200000000000ull /* generic local   = X_LOC_BASE + local offset */
#define X_PAR_BASE 0x0000300000000000ull /* generic param   = X_PAR_BASE + param offset */
#define X_WIN      0x0000000100000000ull /* each window spans 4 GiB */
#define X_GL_BASE  0x0000700000000000ull /* first global buffer */

enum { XS_GENERIC, XS_GLOBAL, XS_SHARED, XS_LOCAL, XS_PARAM, XS_CONST };

/* the races check on global memory. An access event: a plain access of global memory by one thread,
** and what orders it with others; the launch's events sit in plX_emu.gev (a thread's accesses share
** one while its statement, barriers and fences do not change) and the per-byte records name them */
typedef struct plX_gev {
  uint32_t cta; /* its CTA (linear id, low 32 bits) */
  uint32_t stmt;
  uint32_t clser; /* the cluster run it was in (plX_emu.clser) */
  /* plX_emu.gbars then: barrier completions in the cluster */
  uint32_t bars;
  /* its CTA's fences and atomics then (plX_emu.gsync); XGW_PENDING: a bulk store not yet
  ** completed */
  uint32_t gsync;
  uint16_t tid;
  /* a strong ld/st's scope (plX_ins.gsync >> 1: 1 .cta, 2 .cluster, 3 .gpu/.sys); 0 weak. With
  ** an atomic it covers: no race */
  uint16_t strong;
} plX_gev;

/* the last plain write of one byte in the launch gen */
typedef struct plX_gw {
  /* plX_mem.gwgen of that launch (another: no write yet) */
  uint32_t gen;
  uint32_t ev; /* the write (plX_emu.gev) */
  /* a generic store: the writer CTA's plX_emu.gpf then, which a fence.proxy.async must pass
  ** before the async proxy reads it; XGW_ASYNC: written by the async proxy (a TMA or bulk store) */
  uint32_t pf;
} plX_gw;
#define XGW_ASYNC   0xffffffffu
#define XGW_PENDING 0xffffffffu /* plX_gev.gsync of a bulk store in flight */

/* the plain reads of one byte since its last plain write, in the launch gen. Kept exactly: the
** latest read, and the latest before it by another warp (of its cluster run); folded when a CTA of
** a later cluster run reads it: `o` keeps one read of an earlier cluster run, an unordered one (no
** fence or atomic by its CTA after it) if there was one. Reads beyond these are forgotten (missed
** reports, never false ones) */
typedef struct plX_gr {
  /* plX_mem.gwgen of that launch (another: no read since the last write) */
  uint32_t gen;
  /* events: the latest read, the latest by another warp (XGR_R2), o (XGR_O) */
  uint32_t r, r2, o;
  uint32_t clser; /* r's cluster run */
  uint32_t fl;    /* XGR_* */
} plX_gr;
/* XGR_OREL: o's CTA did a fence or atomic after it */
enum { XGR_R2 = 1, XGR_O = 2, XGR_OREL = 4 };

/* the atomics (atom, red, cp.reduce.async.bulk) of one byte in the launch gen, which plain accesses
** are checked against: the latest, and the latest before it by another warp */
typedef struct plX_ga {
  /* plX_mem.gwgen of that launch (another: no atomic yet) */
  uint32_t gen;
  uint32_t a, a2; /* events; a2: X_NOSLOT when none */
} plX_ga;
_Static_assert(sizeof(plX_gw) == 12 && sizeof(plX_gr) == 24 && sizeof(plX_gev) == 24 &&
                   sizeof(plX_ga) == 12,
               "docs/emulator.md gives these sizes (the races check's memory)");

typedef struct plX_buf {
  uint64_t addr, size;
  uint8_t *p;
  char *name;
  int ro; /* a .const variable */
  /* p is memory the caller owns (plX_mem_map): never freed */
  int ext;
  /* races check: per byte, made at the first checked write */
  plX_gw *gw;
  /* races check: per byte, made at the first checked read */
  plX_gr *gr;
  plX_ga *ga; /* races check: per byte, made at the first atomic */
} plX_buf;

struct plX_mem {
  plX_buf *b; /* sorted by address */
  uint32_t n, cap;
  uint64_t next;  /* next free device address */
  uint32_t gwgen; /* launches run with the races check (plX_gw.gen) */
};

/* ---- decoded instructions ---------------------------------------------------------------- */
/* the operations: one per row of src/isa/isa_ops.h, in its order, so X_name == PLA_OP_name (a
** form's op is the decoder's starting point); the decoders refine some (an add of floats is
** X_FADD) */
enum {
#define PL_OP(name, dec, arity, elem) X_##name,
#include "isa_ops.h"
#undef PL_OP
  X__COUNT
};
#define XTM_CP 16

/* flags */
enum {
  XF_FTZ = 1,
  XF_SAT = 2,
  XF_APPROX = 4,
  XF_NAN = 8,
  XF_XORSIGN = 16,
  XF_RELU = 32,
  XF_SATF = 64,
  XF_CCIN = 128,
  XF_CCOUT = 256,
  XF_NEGC = 512,
  XF_TRANS = 1024,
  XF_ALIGNED = 2048,
  XF_SIGNED = 4096,
  XF_SHIFTAMT = 8192,
  XF_FULL = 16384,
  XF_CLUSTER = 32768 /* a .shared::cluster access: another CTA's shared memory is allowed */
};
/* rounding modes */
enum { XR_NONE, XR_RN, XR_RZ, XR_RM, XR_RP, XR_RNI, XR_RZI, XR_RMI, XR_RPI, XR_RNA };
/* comparison operators (setp/set) */
enum {
  XC_EQ,
  XC_NE,
  XC_LT,
  XC_LE,
  XC_GT,
  XC_GE,
  XC_LO,
  XC_LS,
  XC_HI,
  XC_HS,
  XC_EQU,
  XC_NEU,
  XC_LTU,
  XC_LEU,
  XC_GTU,
  XC_GEU,
  XC_NUM,
  XC_NAN
};
enum { XB_NONE, XB_AND, XB_OR, XB_XOR };
/* atomic / reduction operators */
enum { XA_ADD, XA_MIN, XA_MAX, XA_INC, XA_DEC, XA_AND, XA_OR, XA_XOR, XA_EXCH, XA_CAS };
/* barrier kinds */
enum { XBAR_SYNC, XBAR_ARRIVE, XBAR_RED_POPC, XBAR_RED_AND, XBAR_RED_OR };
/* special registers */
enum {
  XSR_TID_X,
  XSR_TID_Y,
  XSR_TID_Z,
  XSR_NTID_X,
  XSR_NTID_Y,
  XSR_NTID_Z,
  XSR_CTAID_X,
  XSR_CTAID_Y,
  XSR_CTAID_Z,
  XSR_NCTAID_X,
  XSR_NCTAID_Y,
  XSR_NCTAID_Z,
  XSR_LANEID,
  XSR_WARPID,
  XSR_NWARPID,
  XSR_SMID,
  XSR_NSMID,
  XSR_GRIDID,
  XSR_LANEMASK_EQ,
  XSR_LANEMASK_LE,
  XSR_LANEMASK_LT,
  XSR_LANEMASK_GE,
  XSR_LANEMASK_GT,
  XSR_CLOCK,
  XSR_CLOCK_HI,
  XSR_CLOCK64,
  XSR_GLOBALTIMER,
  XSR_ZERO,
  XSR_ONE,
  XSR_DYNSMEM,
  XSR_TOTALSMEM,
  XSR_CL_RANK,
  XSR_CL_NRANK,
  XSR_CL_CTAID_X,
  XSR_CL_CTAID_Y,
  XSR_CL_CTAID_Z,
  XSR_CL_NCTAID_X,
  XSR_CL_NCTAID_Y,
  XSR_CL_NCTAID_Z,
  XSR_CLID_X,
  XSR_CLID_Y,
  XSR_CLID_Z,
  XSR_NCLID_X,
  XSR_NCLID_Y,
  XSR_NCLID_Z,
  XSR_CL_EXPLICIT
};
/* where a waiting lane waits (plX_warp.bid): a named barrier 0..15, or */
enum { XB_MBAR = 16, XB_CLUSTER = 17, XB_REGS = 18 };

#define X_NOSLOT      0xffffffffu
#define X_CHECK_TRACK 0x100u /* internal check bit: proxy and swizzle tracking (Hopper) */
#define X_DSM_SHIFT   24     /* shared::cluster address = (rank + 1) << 24 | offset */

typedef struct plX_ins {
  uint16_t op;
  uint8_t t, t2, t3;      /* instruction types (t: main, t2: source of cvt, ...) */
  uint8_t rnd, sub, sub2; /* rounding; cmp / atomic op / mode; bool op / shape */
  /* state space; vector width; guard negated; address base bits */
  uint8_t space, vec, gneg, abits;
  uint16_t fl; /* XF_* */
  /* bit 0: a fence (gpu/sys scope) or a strong ld/st: orders global memory (races check); bits
  ** 1-2 (ld/st): a strong access's scope, 1 .cta, 2 .cluster, 3 .gpu/.sys; 0 weak */
  uint8_t gsync;
  int32_t guard;          /* predicate index, -1 unguarded */
  uint32_t d, a, b, c, e; /* value slots, or predicate indices where the op says so */
  uint32_t d2;            /* second destination (predicate q of p|q, ...) */
  uint32_t abase;         /* address base slot, X_NOSLOT for a constant address */
  int64_t off;            /* address offset (or the whole constant address) */
  int64_t off2;           /* cp.async: the source address offset (base slot a, bits t3) */
  uint32_t vs;            /* first slot of the vector operands in xf->vslots */
  uint32_t target;        /* branch target */
  uint32_t stmt;          /* statement index: anchor and opcode text */
  /* opt-in register checks: first entry in xf->chk (reads, then writes) */
  uint32_t chk;
  uint16_t nrd, nwr;
  int32_t cache; /* last global buffer hit */
} plX_ins;

/* an element function (isa_ops.h's last column): one lane's result from its sources' values (a,
** b, c: 64-bit slots, the unused ones junk); exec.c runs it for every active lane of an
** operation that has one */
typedef uint64_t (*plX_elem_fn)(const plX_ins *in, uint64_t a, uint64_t b, uint64_t c);

#define X_MAXDEPTH 1024u /* calls a thread may nest when functions recurse */

/* a register of the check lists: value slot, or predicate index | X_PREDBIT */
#define X_PREDBIT 0x80000000u

typedef struct plX_func {
  plX_ins *code;
  uint32_t ncode;
  uint32_t nslots, npreds; /* value slots (registers, junk, constants); predicates (+ junk) */
  uint32_t nregslots;      /* slots that are registers (the rest are junk + constants) */
  uint64_t *consts;
  uint32_t nconsts; /* values of slots nregslots+1 .. */
  uint32_t *vslots;
  uint32_t nvslots, cvslots;
  uint32_t *chk;
  uint32_t nchk, cchk;
  /* register id -> slot (or predicate index | X_PREDBIT), module-wide */
  uint32_t *slot_of;
  uint32_t nregs;
  uint32_t *slot_reg; /* slot -> register id (for messages) */
  uint32_t *pred_reg;
  char *msgs; /* X_UNSUP messages (at plX_ins.off) */
} plX_func;

/* a function the kernel reaches through calls (fns[0] is the kernel): its first pc, where its
** statements are numbered (plX_ins.stmt = sbase + index), and its parameters then its results in
** ploc[ppar ...] (a .func's parameters live in each thread's local memory) */
typedef struct plX_fn {
  uint32_t func, sbase, nstmt, pc, ppar;
  /* a recursive function (rec): what a call saves for its outer activation and its return restores,
  ** per lane: its registers (regs: nv value slots, then np predicate indices) and its local bytes
  ** [llo, lhi) (parameters, results, variables) */
  uint32_t *regs, nv, np, llo, lhi;
  int rec;
} plX_fn;
/* a thread's saved activations */
typedef struct plX_fstk {
  uint8_t *p;
  size_t n, cap;
} plX_fstk;
typedef struct plX_ploc {
  uint32_t off;
  uint8_t type, size;
} plX_ploc;

/* a variable's place: state space and offset (shared/local/param) or device address */
typedef struct plX_var {
  uint32_t name;
  uint8_t space;
  uint64_t addr;
  uint64_t size;
} plX_var;

/* ---- run state ---------------------------------------------------------------------------- */
typedef struct plX_warp {
  uint64_t *R;           /* nslots x 32 */
  uint32_t *P;           /* npreds */
  uint32_t *rdef, *pdef; /* opt-in: lanes that wrote each slot / predicate */
  uint32_t pc[32];
  uint32_t bpc[32]; /* where a waiting lane waits (barrier pc) */
  uint8_t bid[32];  /* and on which barrier */
  uint32_t wmb[32]; /* XB_MBAR: the mbarrier's shared offset */
  /* wgmma groups: the open one, those below done are complete, last+1 issued */
  uint32_t wg_cur, wg_done, wg_last;
  uint32_t wg_gpc[16]; /* the first wgmma pc of group g % 16 (messages) */
  /* the clock and pc of the warp's last wgmma.fence (0: none yet) */
  uint64_t wgf;
  uint32_t wgf_pc;
  /* the clock and mbarrier of the warp's last acquire of early-released wgmma reads: the
  ** other lanes of the same wait on the same mbarrier change nothing */
  uint64_t wgq_clock;
  const void *wgq_mb;
  uint32_t exists, exited, waiting;
  uint32_t cc;     /* carry flags */
  uint32_t exitpc; /* last exit executed (for deadlock messages) */
  uint64_t clock;
  int idx;
} plX_warp;

typedef struct plX_waiter {
  int warp;
  uint32_t mask;
  uint32_t d;
  int pred;
} plX_waiter;

typedef struct plX_bar {
  uint32_t expected, arrived; /* 0 expected: idle */
  uint32_t pc;                /* first arrival (for messages) */
  uint32_t popc;
  int all, any;
  PLB_VEC(plX_waiter) red; /* bar.red waiters: results written at completion */
} plX_bar;

/* a pending cp.async */
typedef struct plX_cp {
  uint32_t grp, dst, n, pc;
  uint8_t data[16];
} plX_cp;
typedef struct plX_cpq {
  PLB_VEC(plX_cp) q;
  uint32_t head, gnext;
} plX_cpq;

/* ---- Hopper state (hopper.c) ---------------------------------------------------------- */
typedef struct plX_mbar {
  uint32_t off;               /* shared offset of the 8-byte object */
  uint32_t expected, pending; /* arrivals a phase needs (arrive_drop lowers it), still missing */
  int32_t tx;                 /* the transaction count of the current phase */
  uint32_t phase;             /* phases completed */
  uint32_t pc;                /* the init (messages) */
  int valid;
  uint32_t irank, itid; /* the init's thread (its CTA's rank and thread), */
  /* the mbarrier's CTA's epoch, the cluster's barrier phase and the CTA's completed mbarrier
  ** phases (h.mbdone) then: its visibility */
  uint32_t iepoch, icl, imb;
  /* the transaction bytes of the current phase (the expect_tx check): what its expect_tx
  ** announced (the last one at pc xpc - 1) and what copies and complete_tx delivered (the last
  ** copy at pc cpc - 1); l*: those of the last completed phase */
  uint32_t xsum, got, xpc, cpc;
  uint32_t lxsum, lgot, lxpc, lcpc;
  /* per (CTA rank, warp) of the cluster, 1 + its wgmma groups retired at its last arrive in this
  ** and in the last completed phase: two halves of h.nslot words at h.dnv.p + dn, cur: the half
  ** of this phase (arrivals from another CTA, through mapa, have slots of their own) */
  uint32_t dn, cur;
} plX_mbar;

/* shared bytes [lo, hi) a wgmma.mma_async of warp `warp` reads through a descriptor, until a
** wgmma.wait_group covers its group (1-based, as wgg): writes there before are reported */
typedef struct plX_wgrd {
  uint32_t lo, hi, warp, group, pc;
  /* 1 + the pc of an mbarrier arrive by that warp while the read was pending, 0 none */
  uint32_t rel;
  uint32_t rel_mb, rel_phase; /* that arrive's mbarrier (shared offset) and phase */
  /* the cluster rank of that mbarrier's CTA (a remote arrive, a chain) */
  uint32_t rel_rank;
  /* warps of CTA rel_rank ordered after that arrive (a completed wait, directly or through a
  ** chain of mbarriers) but not after the wait_group */
  uint32_t acq;
} plX_wgrd;

/* a bulk store (cp.async.bulk / .tensor / cp.reduce.async.bulk out of shared memory) in its bulk
** group: it reads shared [slo, shi) until a wait_group{.read} covers the group, writes global
** [glo, ghi) until a wait_group without .read does (the emulator copies at issue; these say when
** the program may touch those bytes) */
typedef struct plX_bst {
  uint32_t tid, grp, pc; /* issuer (CTA-linear thread), its bulk group, the instruction */
  uint32_t slo, shi;     /* shared source bytes; slo == shi once checked as read */
  /* global destination bytes: rows rows (the box rows of one TMA store, one after another) at
  ** glo + r gstride, each rw bytes but the last, which ends at ghi (one row: [glo, ghi)) */
  uint64_t glo, ghi;
  uint64_t gstride, rw;
  uint32_t rows;
} plX_bst;

typedef struct plX_cta_hop {
  PLB_VEC(plX_mbar) mb;
  PLB_VEC(uint32_t) dnv; /* the mbarriers' per-(CTA, warp) wait_group counts (plX_mbar.dn) */
  uint32_t nslot;        /* their slots: CTAs of the cluster x warps of a CTA */
  /* mbarrier phases completed in this CTA (the mbarrier-init visibility check) */
  uint32_t mbdone;
  PLB_VEC(plX_bst) bs; /* bulk stores whose group no wait_group has covered */
  /* while bs.n: a range holding every unread source of bs, and an index before which every
  ** source is read (the generic-write check's filters) */
  uint32_t bs_lo, bs_hi, bs_live;
  uint32_t bs_rows; /* the rows of bs (the tracking's bound) */
  /* per thread, 3 words: bulk groups committed, completed (writes), source-read */
  uint32_t *bg;
  PLB_VEC(plX_wgrd) rd; /* the wgmma operand reads not yet waited for */
  /* a range holding every record of rd (while rd.n: the shared-write check's filter) */
  uint32_t rd_lo, rd_hi;
  /* an early release's index of rd (hopper/wgmma.c, wg_forward): fwcap slots of two words (the
  ** generation fwgen that filled it, the record), open addressing */
  uint32_t *fwt, fwcap, fwgen;
  /* every bit an acq of rd holds (and perhaps bits one held: an early release skips the CTAs
  ** none of whose records its warp acquired) */
  uint32_t rd_acq;
  /* per warp w < 32: no record of rd before this index is w's and pending, or has w's acq bit
  ** (an early release by w starts there); exact again at each retire */
  uint32_t rd_first[32];
  uint32_t mb_hint; /* the index in mb of the mbarrier last looked up */
  /* per shared byte: 1 + the swizzle a TMA load wrote it with; 0 other writers */
  uint8_t *psw;
  /* per shared byte: the generic writer (1 + its rank x threads + thread, rank: the CTA it ran
  ** in, which may be another of the cluster) and its fence count then */
  uint32_t *pw, *ps;
  /* per 16-byte block of shared memory (PW_BLK), a summary of pw and psw there (hopper.h): bit
  ** 0x80 clear when every pw of the block is 0 (set: some may not be), the low bits the one psw
  ** value of all 16 bytes, 0x7f when not known to be one; the writers keep it true, a check that
  ** finds it unsure looks at the block and makes it exact, so that the async-proxy checks of a
  ** descriptor's reads take a byte a block */
  uint8_t *pwd;
  /* per thread: fence.proxy.async covering its own CTA's shared memory (none, ::cta, ::cluster) */
  uint32_t *fences;
  /* per thread: those covering other CTAs' shared memory too (no space, .shared::cluster) */
  uint32_t *cfences;
  /* per thread: fences and cfences when a barrier, mbarrier phase or cluster barrier of the
  ** cluster last completed (a fence after it does not order a store before it) */
  uint32_t *fsnap, *cfsnap;
  /* per warp and slot: 1 + the wgmma group writing it (accumulator check) */
  uint32_t *wgg;
  /* per warp and slot: the warp's clock at the last access by another instruction than a wgmma
  ** (the wgmma.fence check), and its pc in wgapc */
  uint64_t *wga;
  uint32_t *wgapc;
  /* per warp and slot (CTA rank x warp of the cluster): 1 + the wgmma groups of that warp it is
  ** ordered after (through mbarrier phases, transitively: what the arrivers knew) */
  uint32_t *know;
  /* the wgmma operands' and accumulators' doubles (grown as needed, kept between wgmmas) */
  double *tcs;
  size_t tcn;
  struct plX_dcache *dc; /* the descriptor gathers of this CTA (hopper/desc.c) */
  uint32_t *nreg;        /* per warp: its setmaxnreg count */
  uint32_t *clarr;       /* per thread: 1 + the cluster-barrier phase it arrived in, 0 none */
  /* cluster launch control: 1 + the pc of the query_cancel that saw a failed request, 0 none */
  uint32_t clc_fail;
} plX_cta_hop;

/* a copy into shared memory in flight (TMA load, bulk copy): it lands when every warp of the
** cluster waits (hopper.c), in each CTA of mask, with complete_tx on the mbarrier at the same
** offset */
typedef struct plX_async {
  uint32_t pc, tid, rank; /* issued by: instruction, thread, CTA rank */
  uint32_t mask;          /* destination ranks */
  uint32_t lo, n;         /* shared bytes [lo, lo + n) of each destination */
  uint32_t mbar, tx;      /* the mbarrier and the transaction bytes it completes */
  uint32_t ph[16];        /* by destination rank: its mbarrier's phase at the issue */
  uint8_t *data, *valid;  /* n bytes, and which of them are written (NULL: all) */
  int sw;                 /* the swizzle of a TMA load (psw tracking), -1 none */
  /* a TMA load's .cta_group::2: the mbarrier is in the CTA of this parity of each destination's
  ** pair (rank & ~1 | bpar); -1: in each destination (every other copy) */
  int bpar;
  /* cp.reduce.async.bulk into shared::cluster: the XA_* op (-1: a copy), PLB_TM_* type */
  int red, rdt;
} plX_async;

/* a tensor map a tensormap.replace produced (its 128 bytes after it), by thread tid of CTA cta,
** and when (seq); rel: the seq of the tensormap-proxy release that covers it, 0 none. A TMA
** through a map in global memory holding those bytes needs that release and an acquire of the
** map by its thread since. */
/* loc: where (space << 60 | address) */
typedef struct plX_tmimg {
  uint8_t b[128];
  uint64_t cta, loc;
  uint32_t tid, pc, seq, epoch, rel;
} plX_tmimg;
/* fence.proxy.tensormap::generic.acquire */
typedef struct plX_tmacq {
  uint64_t addr, cta;
  uint32_t tid, seq;
} plX_tmacq;

typedef struct plX_hop {
  int used;            /* the kernel has Hopper instructions: tracking is on */
  int track;           /* proxy and swizzle tracking arrays are kept */
  uint32_t cl[3], ncl; /* cluster shape and size */
  int explicit_cl;
  uint32_t clphase, clcount; /* barrier.cluster */
  PLB_VEC(plX_async) q;      /* copies in flight */
  uint32_t budget;           /* setmaxnreg: registers per thread at launch */
  /* bulk stores in flight writing global memory (the CTAs' bs): loads take the checked path */
  uint32_t gst;
  PLB_VEC(plX_tmimg) tmi;  /* this launch's tensormap.replace results */
  PLB_VEC(plX_tmacq) tacq; /* and tensormap-proxy acquires */
  uint32_t tmseq;
  int scanned, has_wgmma; /* the code was looked at once */
  /* cluster launch control (blackwell/clc.c): the mode (PLX_CLC_*), the launch's clusters, the
  ** next one neither launched nor canceled (emu.c's grid walk takes it), try_cancel requests */
  int clc_mode;
  uint64_t clc_total, clc_next, clc_req;
} plX_hop;

/* the state of one CTA: its shared and local memory, warps, barriers and copies in flight. The CTAs
** of a cluster run together (emu.c), each with its own; e->C is the one executing. */
typedef struct plX_cta {
  uint32_t ctaid[3];
  uint64_t cta_linear;
  uint32_t rank; /* %cluster_ctarank */
  uint8_t *smem;
  uint8_t *smem_def;                  /* uninit-shared check: written bytes */
  uint32_t *race_w, *race_r, *race_e; /* race check: writer, reader, epoch per byte */
  uint32_t epoch;
  uint8_t *local;
  plX_warp *warps;
  uint64_t *Rall;
  uint32_t *Pall;
  uint32_t *rdefall, *pdefall;
  plX_bar bars[16];
  plX_cpq *cpq;              /* per thread */
  uint32_t *cstack, *cdepth; /* per thread: maxdepth return pcs, and how many */
  /* per thread, when a function is recursive: saved activations */
  plX_fstk *fstk;
  uint32_t warp_cap;
  uint32_t cap_threads, cap_smem;
  unsigned cap_checks; /* what the buffers were made for */
  int done;            /* every thread exited */
  /* an access of another CTA to its shared memory not yet ordered before its exit */
  int racc;
  /* that access (emu.c: plX__exited) */
  uint32_t racc_stmt, racc_rank, racc_tid, racc_cl, racc_off;
  const char *racc_what;
  /* mbarriers, proxy and swizzle tracking (hopper.c) */
  plX_cta_hop h;
  struct plX_bw_cta *bw; /* tensor memory and tcgen05 (blackwell/), NULL when the kernel has none */
} plX_cta;

struct plX_emu {
  const plI_module *m;
  int func;
  plX_mem *mem;
  int status;
  plB_buf err;
  plX_func xf;
  /* layout */
  plX_var *vars;
  uint32_t nvars;
  uint32_t *gbufs;
  uint32_t ngbufs; /* device addresses of module .global/.const vars */
  uint64_t *gaddr;
  uint32_t smem_static, smem_align, dyn_off;
  int has_dyn;
  uint32_t local_size;
  plX_param *params;
  uint32_t nparams;
  uint8_t *pblock;
  uint32_t psize;
  uint8_t *pset; /* which parameters were set */
  /* .func: the functions reached by calls, and each thread's call stack of return pcs */
  plX_fn *fns;
  uint32_t nfns;
  plX_ploc *ploc;
  uint32_t nploc;
  /* the kernel's first instruction (callees come first) */
  uint32_t entry_pc;
  int dfn;           /* while decoding: the function (index in fns) */
  uint32_t maxdepth; /* the deepest call chain (X_MAXDEPTH with recursion) */
  int has_rec;       /* a reached function is recursive */
  /* launch */
  uint32_t grid[3], block[3], dyn_smem;
  int launched;
  unsigned checks;
  uint64_t limit;   /* the budget of warp instructions (UINT64_MAX: none) */
  uint64_t sample;  /* run only this many clusters (0: all) */
  plB_buf deferred; /* the first opt-in report: made if no always-on one */
  int ndeferred;    /* opt-in reports this run (the first one is kept) */
  /* where copies into shared memory may write (emu.c) */
  struct plX_region *regions;
  uint32_t nregions, cregions;
  int64_t trace_cta, trace_thread;
  int trace_warp; /* trace the whole warp of trace_thread */
  plB_buf trace;
  plX_stats st;
  /* the CTAs of the cluster being run (one without clusters); C is the one executing */
  uint32_t nthreads, nwarps;
  uint32_t smem_size;
  plX_cta *ctas;
  uint32_t nctas_cap;
  plX_cta *C;
  plX_hop H; /* Hopper state shared by the cluster (hopper.c) */
  /* the races check on global memory (plX_gw) */
  uint32_t clser; /* clusters run in this launch */
  /* barrier, mbarrier-phase and cluster-barrier completions */
  uint32_t gbars;
  /* per CTA (linear id): fences, atomics, strong ld/st executed */
  uint32_t *gsync;
  uint64_t ngsync;
  /* per CTA: fence.proxy.async covering global executed (in gsync's block) */
  uint32_t *gpf;
  plX_gev *gev;
  uint32_t ngev, cgev; /* this launch's access events */
  /* per thread of the cluster (rank * nthreads + tid): its last event */
  uint32_t *gevc;
  uint32_t cgevc;
  /* races check: per thread of the cluster, a held-back report (emu.c) */
  struct plX_rpend *rpend;
  uint32_t crpend, nrpend;
};

/* ---- inline accessors ------------------------------------------------------------------------ */
/* body once per active lane of mask em, the lane in variable l: a straight loop for a full warp,
** else the set bits only */
#define LANES(l, em, ...)            \
  do {                               \
    uint32_t _m = (em);              \
    if (_m == 0xffffffffu) {         \
      for (int l = 0; l < 32; l++) { \
        __VA_ARGS__;                 \
      }                              \
    } else {                         \
      while (_m) {                   \
        int l = __builtin_ctz(_m);   \
        _m &= _m - 1;                \
        __VA_ARGS__;                 \
      }                              \
    }                                \
  } while (0)

/* the 32 lanes of value slot x in warp w (a macro: as an inline function, gcc 12 -O2 made the
** mma.sync GEMM of bench/emu_throughput.lua a quarter slower) */
#define wslot(w, x) ((w)->R + (size_t)(x)*32)

static inline float f32(uint64_t v) {
  float f;
  uint32_t u = (uint32_t)v;
  memcpy(&f, &u, 4);
  return f;
}
static inline uint64_t b32(float f) {
  uint32_t u;
  memcpy(&u, &f, 4);
  return u;
}
static inline double f64(uint64_t v) {
  double d;
  memcpy(&d, &v, 8);
  return d;
}
static inline uint64_t b64(double d) {
  uint64_t u;
  memcpy(&u, &d, 8);
  return u;
}
static inline uint64_t c32(float f) {
  return f != f ? 0x7fffffffu : b32(f);
}
static inline uint64_t c64(double f) {
  return f != f ? 0x7fffffffffffffffull : b64(f);
}
static inline int64_t sx(uint64_t v, int bits) {
  return bits >= 64 ? (int64_t)v : (int64_t)(v << (64 - bits)) >> (64 - bits);
}
static inline uint64_t zx(uint64_t v, int bits) {
  return bits >= 64 ? v : v & ((1ull << bits) - 1);
}
static inline int tb(int t) {
  return plB_type_info[t].bits;
}
static inline int tsig(int t) {
  return plB_type_info[t].cls == PLT_CS;
}
static inline uint32_t pmerge(uint32_t old, uint32_t v, uint32_t em) {
  return (old & ~em) | (v & em);
}

static inline uint64_t addr_of(const plX_ins *in, const plX_warp *w, int l) {
  uint64_t base = w->R[(size_t)in->abase * 32 + (size_t)l];
  if (in->abits == 32) base = (uint32_t)base;
  return base + (uint64_t)in->off;
}

#endif
