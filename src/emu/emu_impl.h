/* emu_impl.h -- the emulator's internals, shared by emu.c (memory, launch, CTA scheduling),
** decode.c (statements -> internal instructions), warp.c (the warp loop, barriers),
** exec.c (one instruction), ops.c (element semantics), mma.c, fp.c (rounding),
** hopper.c (mbarrier, TMA and bulk copies, wgmma, clusters, setmaxnreg). */
#ifndef PL_EMU_IMPL_H
#define PL_EMU_IMPL_H

#include <signal.h>
#include "emu.h"
#include "util.h"
#include "isa.h"

/* ---- address windows of the generic space (global buffers live above X_GL_BASE) ---------- */
#define X_SH_BASE  0x0000100000000000ull   /* generic shared  = X_SH_BASE + shared offset */
#define X_LOC_BASE 0x0000200000000000ull   /* generic local   = X_LOC_BASE + local offset */
#define X_PAR_BASE 0x0000300000000000ull   /* generic param   = X_PAR_BASE + param offset */
#define X_WIN      0x0000000100000000ull   /* each window spans 4 GiB */
#define X_GL_BASE  0x0000700000000000ull   /* first global buffer */

enum { XS_GENERIC, XS_GLOBAL, XS_SHARED, XS_LOCAL, XS_PARAM, XS_CONST };

/* the races check on global memory. An access event: a plain access of global memory by one thread,
** and what orders it with others; the launch's events sit in plX_emu.gev (a thread's accesses share
** one while its statement, barriers and fences do not change) and the per-byte records name them */
typedef struct xgev {
  uint32_t cta;                             /* its CTA (linear id, low 32 bits) */
  uint32_t stmt;
  uint32_t clser;                           /* the cluster run it was in (plX_emu.clser) */
  uint32_t bars;                            /* plX_emu.gbars then: barrier completions in the cluster */
  uint32_t gsync;                           /* its CTA's fences and atomics then (plX_emu.gsync);
                                            ** XGW_PENDING: a bulk store not yet completed */
  uint16_t tid;
  uint16_t strong;                          /* a strong ld/st's scope (xins.gsync >> 1: 1 .cta, 2 .cluster,
                                            ** 3 .gpu/.sys); 0 weak. With an atomic it covers: no race */
} xgev;

/* the last plain write of one byte in the launch gen */
typedef struct xgw {
  uint32_t gen;                             /* plX_mem.gwgen of that launch (another: no write yet) */
  uint32_t ev;                              /* the write (plX_emu.gev) */
  uint32_t pf;                              /* a generic store: the writer CTA's plX_emu.gpf then, which a
                                            ** fence.proxy.async must pass before the async proxy reads it;
                                            ** XGW_ASYNC: written by the async proxy (a TMA or bulk store) */
} xgw;
#define XGW_ASYNC 0xffffffffu

/* the plain reads of one byte since its last plain write, in the launch gen. Kept exactly: the
** latest read, and the latest before it by another warp (of its cluster run); folded when a CTA of
** a later cluster run reads it: `o` keeps one read of an earlier cluster run, an unordered one (no
** fence or atomic by its CTA after it) if there was one. Reads beyond these are forgotten (missed
** reports, never false ones) */
typedef struct xgr {
  uint32_t gen;                             /* plX_mem.gwgen of that launch (another: no read since the last write) */
  uint32_t r, r2, o;                        /* events: the latest read, the latest by another warp (XGR_R2), o (XGR_O) */
  uint32_t clser;                           /* r's cluster run */
  uint32_t fl;                              /* XGR_* */
} xgr;
enum { XGR_R2 = 1, XGR_O = 2, XGR_OREL = 4 };  /* XGR_OREL: o's CTA did a fence or atomic after it */

/* the atomics (atom, red, cp.reduce.async.bulk) of one byte in the launch gen, which plain accesses
** are checked against: the latest, and the latest before it by another warp */
typedef struct xga {
  uint32_t gen;                             /* plX_mem.gwgen of that launch (another: no atomic yet) */
  uint32_t a, a2;                           /* events; a2: X_NOSLOT when none */
} xga;
_Static_assert(sizeof(xgw) == 12 && sizeof(xgr) == 24 && sizeof(xgev) == 24 && sizeof(xga) == 12,
               "docs/emulator.md gives these sizes (the races check's memory)");

typedef struct xbuf {
  uint64_t addr, size;
  uint8_t *p;
  char *name;
  int ro;                                   /* a .const variable */
  int ext;                                  /* p is memory the caller owns (plX_mem_map): never freed */
  xgw *gw;                                  /* races check: per byte, made at the first checked write */
  xgr *gr;                                  /* races check: per byte, made at the first checked read */
  xga *ga;                                  /* races check: per byte, made at the first atomic */
} xbuf;

struct plX_mem {
  xbuf *b;                                  /* sorted by address */
  uint32_t n, cap;
  uint64_t next;                            /* next free device address */
  uint32_t gwgen;                           /* launches run with the races check (xgw.gen) */
};

/* ---- decoded instructions ---------------------------------------------------------------- */
/* the operations: one per row of src/isa/isa_ops.h, in its order, so X_name == PLA_OP_name (a
** form's op is the decoder's starting point); the decoders refine some (an add of floats is X_FADD) */
enum {
#define PL_OP(name, dec, arity, elem) X_##name,
#include "isa_ops.h"
#undef PL_OP
  X__COUNT
};
#define XTM_CP 16

/* flags */
enum {
  XF_FTZ = 1, XF_SAT = 2, XF_APPROX = 4, XF_NAN = 8, XF_XORSIGN = 16, XF_RELU = 32,
  XF_SATF = 64, XF_CCIN = 128, XF_CCOUT = 256, XF_NEGC = 512, XF_TRANS = 1024,
  XF_ALIGNED = 2048, XF_SIGNED = 4096, XF_SHIFTAMT = 8192, XF_FULL = 16384,
  XF_CLUSTER = 32768          /* a .shared::cluster access: another CTA's shared memory is allowed */
};
/* rounding modes */
enum { XR_NONE, XR_RN, XR_RZ, XR_RM, XR_RP, XR_RNI, XR_RZI, XR_RMI, XR_RPI, XR_RNA };
/* comparison operators (setp/set) */
enum { XC_EQ, XC_NE, XC_LT, XC_LE, XC_GT, XC_GE, XC_LO, XC_LS, XC_HI, XC_HS,
       XC_EQU, XC_NEU, XC_LTU, XC_LEU, XC_GTU, XC_GEU, XC_NUM, XC_NAN };
enum { XB_NONE, XB_AND, XB_OR, XB_XOR };
/* atomic / reduction operators */
enum { XA_ADD, XA_MIN, XA_MAX, XA_INC, XA_DEC, XA_AND, XA_OR, XA_XOR, XA_EXCH, XA_CAS };
/* barrier kinds */
enum { XBAR_SYNC, XBAR_ARRIVE, XBAR_RED_POPC, XBAR_RED_AND, XBAR_RED_OR };
/* special registers */
enum {
  XSR_TID_X, XSR_TID_Y, XSR_TID_Z, XSR_NTID_X, XSR_NTID_Y, XSR_NTID_Z,
  XSR_CTAID_X, XSR_CTAID_Y, XSR_CTAID_Z, XSR_NCTAID_X, XSR_NCTAID_Y, XSR_NCTAID_Z,
  XSR_LANEID, XSR_WARPID, XSR_NWARPID, XSR_SMID, XSR_NSMID, XSR_GRIDID,
  XSR_LANEMASK_EQ, XSR_LANEMASK_LE, XSR_LANEMASK_LT, XSR_LANEMASK_GE, XSR_LANEMASK_GT,
  XSR_CLOCK, XSR_CLOCK_HI, XSR_CLOCK64, XSR_GLOBALTIMER,
  XSR_ZERO, XSR_ONE,
  XSR_DYNSMEM, XSR_TOTALSMEM,
  XSR_CL_RANK, XSR_CL_NRANK, XSR_CL_CTAID_X, XSR_CL_CTAID_Y, XSR_CL_CTAID_Z, XSR_CL_NCTAID_X, XSR_CL_NCTAID_Y,
  XSR_CL_NCTAID_Z, XSR_CLID_X, XSR_CLID_Y, XSR_CLID_Z, XSR_NCLID_X, XSR_NCLID_Y, XSR_NCLID_Z, XSR_CL_EXPLICIT
};
/* where a waiting lane waits (xwarp.bid): a named barrier 0..15, or */
enum { XB_MBAR = 16, XB_CLUSTER = 17, XB_REGS = 18 };

#define X_NOSLOT 0xffffffffu
#define X_CHECK_TRACK 0x100u              /* internal check bit: proxy and swizzle tracking (Hopper) */

typedef struct xins {
  uint16_t op;
  uint8_t t, t2, t3;          /* instruction types (t: main, t2: source of cvt, ...) */
  uint8_t rnd, sub, sub2;     /* rounding; cmp / atomic op / mode; bool op / shape */
  uint8_t space, vec, gneg, abits;  /* state space; vector width; guard negated; address base bits */
  uint16_t fl;                /* XF_* */
  uint8_t gsync;              /* bit 0: a fence (gpu/sys scope) or a strong ld/st: orders global memory (races check);
                              ** bits 1-2 (ld/st): a strong access's scope, 1 .cta, 2 .cluster, 3 .gpu/.sys; 0 weak */
  int32_t guard;              /* predicate index, -1 unguarded */
  uint32_t d, a, b, c, e;     /* value slots, or predicate indices where the op says so */
  uint32_t d2;                /* second destination (predicate q of p|q, ...) */
  uint32_t abase;             /* address base slot, X_NOSLOT for a constant address */
  int64_t off;                /* address offset (or the whole constant address) */
  int64_t off2;               /* cp.async: the source address offset (base slot a, bits t3) */
  uint32_t vs;                /* first slot of the vector operands in xf->vslots */
  uint32_t target;            /* branch target */
  uint32_t stmt;              /* statement index: anchor and opcode text */
  uint32_t chk;               /* opt-in register checks: first entry in xf->chk (reads, then writes) */
  uint16_t nrd, nwr;
  int32_t cache;              /* last global buffer hit */
} xins;

/* an element function (isa_ops.h's last column): one lane's result from its sources' values (a, b, c:
** 64-bit slots, the unused ones junk); exec.c runs it for every active lane of an operation that has one */
typedef uint64_t (*plX_elem_fn)(const xins *in, uint64_t a, uint64_t b, uint64_t c);
extern const plX_elem_fn plX__elem[X__COUNT];   /* ops.c: by operation, NULL for none */

#define X_MAXDEPTH 1024u                   /* calls a thread may nest when functions recurse */

/* a register of the check lists: value slot, or predicate index | X_PREDBIT */
#define X_PREDBIT 0x80000000u

typedef struct xfunc {
  xins *code; uint32_t ncode;
  uint32_t nslots, npreds;    /* value slots (registers, junk, constants); predicates (+ junk) */
  uint32_t nregslots;         /* slots that are registers (the rest are junk + constants) */
  uint64_t *consts; uint32_t nconsts;  /* values of slots nregslots+1 .. */
  uint32_t *vslots; uint32_t nvslots, cvslots;
  uint32_t *chk; uint32_t nchk, cchk;
  uint32_t *slot_of;          /* register id -> slot (or predicate index | X_PREDBIT), module-wide */
  uint32_t nregs;
  uint32_t *slot_reg;         /* slot -> register id (for messages) */
  uint32_t *pred_reg;
  char *msgs;                 /* X_UNSUP messages (at xins.off) */
} xfunc;

/* a function the kernel reaches through calls (fns[0] is the kernel): its first pc, where its
** statements are numbered (xins.stmt = sbase + index), and its parameters then its results in
** ploc[ppar ...] (a .func's parameters live in each thread's local memory) */
typedef struct xfn {
  uint32_t func, sbase, nstmt, pc, ppar;
  /* a recursive function (rec): what a call saves for its outer activation and its return restores,
  ** per lane: its registers (regs: nv value slots, then np predicate indices) and its local bytes
  ** [llo, lhi) (parameters, results, variables) */
  uint32_t *regs, nv, np, llo, lhi;
  int rec;
} xfn;
typedef struct xfstk { uint8_t *p; size_t n, cap; } xfstk;   /* a thread's saved activations */
typedef struct xploc { uint32_t off; uint8_t type, size; } xploc;

/* a variable's place: state space and offset (shared/local/param) or device address */
typedef struct xvar { uint32_t name; uint8_t space; uint64_t addr; uint64_t size; } xvar;

/* ---- run state ---------------------------------------------------------------------------- */
typedef struct xwarp {
  uint64_t *R;                /* nslots x 32 */
  uint32_t *P;                /* npreds */
  uint32_t *rdef, *pdef;      /* opt-in: lanes that wrote each slot / predicate */
  uint32_t pc[32];
  uint32_t bpc[32];           /* where a waiting lane waits (barrier pc) */
  uint8_t bid[32];            /* and on which barrier */
  uint32_t wmb[32];           /* XB_MBAR: the mbarrier's shared offset */
  uint32_t wg_cur, wg_done, wg_last;  /* wgmma groups: the open one, those below done are complete, last+1 issued */
  uint32_t wg_gpc[16];        /* the first wgmma pc of group g % 16 (messages) */
  uint64_t wgf; uint32_t wgf_pc;  /* the clock and pc of the warp's last wgmma.fence (0: none yet) */
  uint32_t exists, exited, waiting;
  uint32_t cc;                /* carry flags */
  uint32_t exitpc;            /* last exit executed (for deadlock messages) */
  uint64_t clock;
  int idx;
} xwarp;

typedef struct xwaiter { int warp; uint32_t mask; uint32_t d; int pred; } xwaiter;

typedef struct xbar {
  uint32_t expected, arrived;  /* 0 expected: idle */
  uint32_t pc;                 /* first arrival (for messages) */
  uint32_t popc; int all, any;
  PLB_VEC(xwaiter) red;        /* bar.red waiters: results written at completion */
} xbar;

typedef struct xcp { uint32_t grp, dst, n, pc; uint8_t data[16]; } xcp;  /* a pending cp.async */
typedef struct xcpq { PLB_VEC(xcp) q; uint32_t head, gnext; } xcpq;

/* ---- Hopper state (hopper.c) ---------------------------------------------------------- */
typedef struct xmbar {
  uint32_t off;                /* shared offset of the 8-byte object */
  uint32_t expected, pending;  /* arrivals a phase needs (arrive_drop lowers it), still missing */
  int32_t tx;                  /* the transaction count of the current phase */
  uint32_t phase;              /* phases completed */
  uint32_t pc;                 /* the init (messages) */
  int valid;
  uint32_t irank, itid;        /* the init's thread (its CTA's rank and thread), */
  uint32_t iepoch, icl, imb;   /* the mbarrier's CTA's epoch, the cluster's barrier phase and the CTA's completed
                                  mbarrier phases (h.mbdone) then: its visibility */
  /* the transaction bytes of the current phase (the expect_tx check): what its expect_tx
  ** announced (the last one at pc xpc - 1) and what copies and complete_tx delivered (the last
  ** copy at pc cpc - 1); l*: those of the last completed phase */
  uint32_t xsum, got, xpc, cpc;
  uint32_t lxsum, lgot, lxpc, lcpc;
  uint32_t dn, cur;            /* per (CTA rank, warp) of the cluster, 1 + its wgmma groups retired at its last arrive in this
                                  and in the last completed phase: two halves of h.nslot words at h.dnv.p + dn, cur: the
                                  half of this phase (arrivals from another CTA, through mapa, have slots of their own) */
} xmbar;

/* shared bytes [lo, hi) a wgmma.mma_async of warp `warp` reads through a descriptor, until a
** wgmma.wait_group covers its group (1-based, as wgg): writes there before are reported */
typedef struct xwgrd {
  uint32_t lo, hi, warp, group, pc;
  uint32_t rel;                /* 1 + the pc of an mbarrier arrive by that warp while the read was pending, 0 none */
  uint32_t rel_mb, rel_phase;  /* that arrive's mbarrier (shared offset) and phase */
  uint32_t rel_rank;           /* the cluster rank of that mbarrier's CTA (a remote arrive, a chain) */
  uint32_t acq;                /* warps of CTA rel_rank ordered after that arrive (a completed wait, directly or
                                  through a chain of mbarriers) but not after the wait_group */
} xwgrd;

/* a bulk store (cp.async.bulk / .tensor / cp.reduce.async.bulk out of shared memory) in its bulk
** group: it reads shared [slo, shi) until a wait_group{.read} covers the group, writes global
** [glo, ghi) until a wait_group without .read does (the emulator copies at issue; these say when
** the program may touch those bytes) */
typedef struct xbst {
  uint32_t tid, grp, pc;       /* issuer (CTA-linear thread), its bulk group, the instruction */
  uint32_t slo, shi;           /* shared source bytes; slo == shi once checked as read */
  uint64_t glo, ghi;           /* global destination bytes */
} xbst;

typedef struct xcta_hop {
  PLB_VEC(xmbar) mb;
  PLB_VEC(uint32_t) dnv;       /* the mbarriers' per-(CTA, warp) wait_group counts (xmbar.dn) */
  uint32_t nslot;              /* their slots: CTAs of the cluster x warps of a CTA */
  uint32_t mbdone;             /* mbarrier phases completed in this CTA (the mbarrier-init visibility check) */
  PLB_VEC(xbst) bs;            /* bulk stores whose group no wait_group has covered */
  uint32_t *bg;                /* per thread, 3 words: bulk groups committed, completed (writes), source-read */
  PLB_VEC(xwgrd) rd;           /* the wgmma operand reads not yet waited for */
  uint8_t *psw;                /* per shared byte: 1 + the swizzle a TMA load wrote it with; 0 other writers */
  uint32_t *pw, *ps;           /* per shared byte: the generic writer (1 + its rank x threads + thread, rank: the
                               ** CTA it ran in, which may be another of the cluster) and its fence count then */
  uint32_t *fences;            /* per thread: fence.proxy.async covering its own CTA's shared memory (none, ::cta, ::cluster) */
  uint32_t *cfences;           /* per thread: those covering other CTAs' shared memory too (no space, .shared::cluster) */
  uint32_t *fsnap, *cfsnap;    /* per thread: fences and cfences when a barrier, mbarrier phase or cluster barrier of the
                               ** cluster last completed (a fence after it does not order a store before it) */
  uint32_t *wgg;               /* per warp and slot: 1 + the wgmma group writing it (accumulator check) */
  uint64_t *wga;               /* per warp and slot: the warp's clock at the last access by another instruction
                               ** than a wgmma (the wgmma.fence check), and its pc in wgapc */
  uint32_t *wgapc;
  uint32_t *know;              /* per warp and slot (CTA rank x warp of the cluster): 1 + the wgmma groups of that warp
                               ** it is ordered after (through mbarrier phases, transitively: what the arrivers knew) */
  uint32_t *nreg;              /* per warp: its setmaxnreg count */
  uint32_t *clarr;             /* per thread: 1 + the cluster-barrier phase it arrived in, 0 none */
} xcta_hop;

/* a copy into shared memory in flight (TMA load, bulk copy): it lands when every warp of the cluster
** waits (hopper.c), in each CTA of mask, with complete_tx on the mbarrier at the same offset */
typedef struct xasync {
  uint32_t pc, tid, rank;      /* issued by: instruction, thread, CTA rank */
  uint32_t mask;               /* destination ranks */
  uint32_t lo, n;              /* shared bytes [lo, lo + n) of each destination */
  uint32_t mbar, tx;           /* the mbarrier and the transaction bytes it completes */
  uint32_t ph[16];             /* by destination rank: its mbarrier's phase at the issue */
  uint8_t *data, *valid;       /* n bytes, and which of them are written (NULL: all) */
  int sw;                      /* the swizzle of a TMA load (psw tracking), -1 none */
  int red, rdt;                /* cp.reduce.async.bulk into shared::cluster: the XA_* op (-1: a copy), PLB_TM_* type */
} xasync;

/* a tensor map a tensormap.replace produced (its 128 bytes after it), by thread tid of CTA cta, and
** when (seq); rel: the seq of the tensormap-proxy release that covers it, 0 none. A TMA through a map in
** global memory holding those bytes needs that release and an acquire of the map by its thread since. */
typedef struct xtmimg { uint8_t b[128]; uint64_t cta, loc; uint32_t tid, pc, seq, epoch, rel; } xtmimg;  /* loc: where (space << 60 | address) */
typedef struct xtmacq { uint64_t addr, cta; uint32_t tid, seq; } xtmacq;   /* fence.proxy.tensormap::generic.acquire */

typedef struct xhop {
  int used;                    /* the kernel has Hopper instructions: tracking is on */
  int track;                   /* proxy and swizzle tracking arrays are kept */
  uint32_t cl[3], ncl;         /* cluster shape and size */
  int explicit_cl;
  uint32_t clphase, clcount;   /* barrier.cluster */
  PLB_VEC(xasync) q;           /* copies in flight */
  uint32_t budget;             /* setmaxnreg: registers per thread at launch */
  uint32_t gst;                /* bulk stores in flight writing global memory (the CTAs' bs): loads take the checked path */
  PLB_VEC(xtmimg) tmi;         /* this launch's tensormap.replace results */
  PLB_VEC(xtmacq) tacq;        /* and tensormap-proxy acquires */
  uint32_t tmseq;
  int scanned, has_wgmma;      /* the code was looked at once */
} xhop;

/* the state of one CTA: its shared and local memory, warps, barriers and copies in flight. The CTAs
** of a cluster run together (emu.c), each with its own; e->C is the one executing. */
typedef struct xcta {
  uint32_t ctaid[3];
  uint64_t cta_linear;
  uint32_t rank;                            /* %cluster_ctarank */
  uint8_t *smem;
  uint8_t *smem_def;                        /* uninit-shared check: written bytes */
  uint32_t *race_w, *race_r, *race_e;       /* race check: writer, reader, epoch per byte */
  uint32_t epoch;
  uint8_t *local;
  xwarp *warps;
  uint64_t *Rall; uint32_t *Pall; uint32_t *rdefall, *pdefall;
  xbar bars[16];
  xcpq *cpq;                                /* per thread */
  uint32_t *cstack, *cdepth;                /* per thread: maxdepth return pcs, and how many */
  xfstk *fstk;                              /* per thread, when a function is recursive: saved activations */
  uint32_t warp_cap;
  uint32_t cap_threads, cap_smem; unsigned cap_checks;   /* what the buffers were made for */
  int done;                                 /* every thread exited */
  int racc;                                 /* an access of another CTA to its shared memory not yet ordered before its exit */
  uint32_t racc_stmt, racc_rank, racc_tid, racc_cl, racc_off;   /* that access (emu.c: plX__exited) */
  const char *racc_what;
  xcta_hop h;                               /* mbarriers, proxy and swizzle tracking (hopper.c) */
} xcta;

struct plX_emu {
  const plI_module *m;
  int func;
  plX_mem *mem;
  int status;
  plB_buf err;
  xfunc xf;
  /* layout */
  xvar *vars; uint32_t nvars;
  uint32_t *gbufs; uint32_t ngbufs;        /* device addresses of module .global/.const vars */
  uint64_t *gaddr;
  uint32_t smem_static, smem_align, dyn_off; int has_dyn;
  uint32_t local_size;
  plX_param *params; uint32_t nparams;
  uint8_t *pblock; uint32_t psize;
  uint8_t *pset;                            /* which parameters were set */
  /* .func: the functions reached by calls, and each thread's call stack of return pcs */
  xfn *fns; uint32_t nfns;
  xploc *ploc; uint32_t nploc;
  uint32_t entry_pc;                        /* the kernel's first instruction (callees come first) */
  int dfn;                                  /* while decoding: the function (index in fns) */
  uint32_t maxdepth;                        /* the deepest call chain (X_MAXDEPTH with recursion) */
  int has_rec;                              /* a reached function is recursive */
  /* launch */
  uint32_t grid[3], block[3], dyn_smem;
  int launched;
  unsigned checks;
  uint64_t limit;                           /* the budget of warp instructions (UINT64_MAX: none) */
  uint64_t sample;                          /* run only this many clusters (0: all) */
  plB_buf deferred;                         /* the first opt-in report: made if no always-on one */
  int ndeferred;                            /* opt-in reports this run (the first one is kept) */
  struct xregion *regions;                  /* where copies into shared memory may write (emu.c) */
  uint32_t nregions, cregions;
  int64_t trace_cta, trace_thread;
  int trace_warp;                           /* trace the whole warp of trace_thread */
  plB_buf trace;
  plX_stats st;
  /* the CTAs of the cluster being run (one without clusters); C is the one executing */
  uint32_t nthreads, nwarps;
  uint32_t smem_size;
  xcta *ctas; uint32_t nctas_cap;
  xcta *C;
  xhop H;                                   /* Hopper state shared by the cluster (hopper.c) */
  /* the races check on global memory (xgw) */
  uint32_t clser;                           /* clusters run in this launch */
  uint32_t gbars;                           /* barrier, mbarrier-phase and cluster-barrier completions */
  uint32_t *gsync; uint64_t ngsync;         /* per CTA (linear id): fences, atomics, strong ld/st executed */
  uint32_t *gpf;                            /* per CTA: fence.proxy.async covering global executed (in gsync's block) */
  xgev *gev; uint32_t ngev, cgev;           /* this launch's access events */
  uint32_t *gevc; uint32_t cgevc;           /* per thread of the cluster (rank * nthreads + tid): its last event */
  struct xrpend *rpend; uint32_t crpend, nrpend;   /* races check: per thread of the cluster, a held-back report (emu.c) */
};

/* emu.c */
#include "fail.h"                         /* the one error path: plX__fail, plX__optin, ... */
/* set by SIGINT (plX_interrupt): every warp loop stops at its next instruction */
extern volatile sig_atomic_t plX__sigint;
/* the budget is spent or SIGINT came (interrupted): the report naming, for each warp still running,
** where it is, its threads, its CTA and the instructions it ran; at stmt (the executing one) */
int  plX__stopped(plX_emu *e, uint32_t stmt, int interrupted);
/* a copy by lane l of w writing n bytes into shared memory from offset off (the same in each
** destination CTA) must stay inside the allocation of a plan (one stage of a staged one) or the
** variable where it starts (plX_add_region); 0, or the error. what: the copy's size, as it came
** about ("a box of 64 x 128 2-byte elements"), for the message */
int  plX__region_check(plX_emu *e, const xins *in, xwarp *w, int l, uint32_t off, uint32_t n,
                       const char *what);
xbuf *plX__find(plX_mem *m, uint64_t addr, int32_t *cache);
void plX__describe_addr(plX_emu *e, plB_buf *b, uint64_t addr, uint64_t n);
int  plX__var_addr(plX_emu *e, uint32_t name, uint8_t *space, uint64_t *addr);
/* a pointer to n bytes at addr in `space` for thread `tid` (CTA-linear), NULL after reporting */
/* write: 0 a read, 1 a write, 2 an atomic, 3 a bulk copy's bounds (the caller checks its bytes), 4 the
** bounds of a bulk copy's global source or of a prefetch (read-only; the caller checks the bytes a load reads) */
uint8_t *plX__mem(plX_emu *e, const xins *in, int space, uint64_t addr, uint32_t n, uint32_t tid, int write);
/* the races check on global memory: a plain access (write 0/1) of n bytes at offset o of buffer b
** by thread tid of the executing CTA, or (write 2) an atomic's (compared with plain accesses only), or (write 3) a TMA or bulk store's, which nothing orders until
** its bulk group completes (plX__global_done), or (write 5) a TMA or bulk load's, read as plain reads
** by the issuing thread and through the async proxy (a generic store needs a fence.proxy.async
** before it); 0, or the error */
int plX__global_access(plX_emu *e, const xins *in, xbuf *b, uint64_t o, uint32_t n, uint32_t tid, int write);
void plX__global_done(plX_emu *e, uint64_t lo, uint64_t hi);     /* a bulk store of e->C's to [lo, hi) completed */
#define XGW_PENDING 0xffffffffu                                   /* xgw.gsync of a bulk store in flight */
void plX__shared_access(plX_emu *e, const xins *in, uint32_t off, uint32_t n, uint32_t tid, int write);
/* the races check: make the reports held back for these lanes of w (of e->C), at their exit or a barrier */
int  plX__race_flush(plX_emu *e, const xwarp *w, uint32_t lanes);
/* an access by thread tid of e->C (at stmt) to shared byte off of CTA c of its cluster: 0 while c
** runs; after c exited (every thread of it), reported (what: the access, e.g. "writes"), the error */
int  plX__exited(plX_emu *e, uint32_t stmt, xcta *c, uint32_t off, uint32_t tid, const char *what);
/* the last threads of e->C exited: an access of another CTA to its shared memory that nothing
** ordered before (no barrier.cluster completed since, no mbarrier wait of e->C's) is reported */
int  plX__exit_check(plX_emu *e);

/* decode.c */
int  plX__decode(plX_emu *e);

/* warp.c: run warp w until it blocks or exits; 0 ok, else an error was reported */
int  plX__run_warp(plX_emu *e, xwarp *w);
/* exec.c: land thread tid's cp.async copies of groups below limit */
void plX__cp_complete(plX_emu *e, uint32_t tid, uint32_t limit);

/* fp.c: floating-point formats and exact rounding */
enum { XFMT_F16, XFMT_BF16, XFMT_TF32, XFMT_F32, XFMT_F64, XFMT_E4M3, XFMT_E5M2 };
/* round (x + an infinitesimal of sign `sticky` relative to x, |that| < half an ulp of x in double)
** into fmt with mode XR_RN/RZ/RM/RP; satf: clamp infinities and overflow to the largest finite */
uint64_t plX__round(double x, int sticky, int fmt, int mode, int satf);
/* the same from sign * (m + f) * 2^e, f in (0, 1) when st, else f = 0 */
uint64_t plX__round_int(int sign, uint64_t m, int e, int st, int fmt, int mode, int satf);
double   plX__to_double(uint64_t bits, int fmt);
int      plX__isnan(uint64_t bits, int fmt);
int      plX__fmt_of(int type);           /* PLT_* -> XFMT_*, -1 if not a float */
/* exact operations on doubles that hold values of fmt, rounded once into fmt */
uint64_t plX__add(double a, double b, int fmt, int mode);
uint64_t plX__mul(double a, double b, int fmt, int mode);
uint64_t plX__fma(double a, double b, double c, int fmt, int mode);
uint64_t plX__div(double a, double b, int fmt, int mode);
uint64_t plX__sqrt(double a, int fmt, int mode);
uint64_t plX__canon_nan(int fmt);
double   plX__flush(double x, int fmt);    /* subnormal of fmt -> signed zero */

/* ---- shared by the execution files ----------------------------------------------------------- */
#include <string.h>
#include "types.h"

/* body once per active lane l of mask em: a straight loop for a full warp, else set bits only */
#define LANES(em, ...) do { uint32_t _m = (em); \
  if (_m == 0xffffffffu) { for (int l = 0; l < 32; l++) { __VA_ARGS__; } } \
  else { while (_m) { int l = __builtin_ctz(_m); _m &= _m - 1; __VA_ARGS__; } } } while (0)

#define S(x) (w->R + (size_t)(x) * 32)

static inline float f32(uint64_t v) { float f; uint32_t u = (uint32_t)v; memcpy(&f, &u, 4); return f; }
static inline uint64_t b32(float f) { uint32_t u; memcpy(&u, &f, 4); return u; }
static inline double f64(uint64_t v) { double d; memcpy(&d, &v, 8); return d; }
static inline uint64_t b64(double d) { uint64_t u; memcpy(&u, &d, 8); return u; }
static inline uint64_t c32(float f) { return f != f ? 0x7fffffffu : b32(f); }
static inline uint64_t c64(double f) { return f != f ? 0x7fffffffffffffffull : b64(f); }
static inline int64_t sx(uint64_t v, int bits) { return bits >= 64 ? (int64_t)v : (int64_t)(v << (64 - bits)) >> (64 - bits); }
static inline uint64_t zx(uint64_t v, int bits) { return bits >= 64 ? v : v & ((1ull << bits) - 1); }
static inline int tb(int t) { return plB_type_info[t].bits; }
static inline int tsig(int t) { return plB_type_info[t].cls == PLT_CS; }
static inline uint32_t pmerge(uint32_t old, uint32_t v, uint32_t em) { return (old & ~em) | (v & em); }

static inline uint64_t addr_of(const xins *in, const xwarp *w, int l) {
  uint64_t base = w->R[(size_t)in->abase * 32 + (size_t)l];
  if (in->abits == 32) base = (uint32_t)base;
  return base + (uint64_t)in->off;
}

/* n bytes at a for lane l: the common cases inline, the rest (and every error) in plX__mem */
static inline uint8_t *lane_mem(plX_emu *e, xins *in, xwarp *w, int l, uint64_t a, uint32_t n, int write) {
  if (in->space == XS_GLOBAL && in->cache >= 0 && !e->H.gst && !e->gsync && !(a & (n - 1))) {
    xbuf *b = &e->mem->b[in->cache];
    uint64_t o = a - b->addr;
    if (o < b->size && n <= b->size - o && !(write && b->ro)) return b->p + o;
  } else if (in->space == XS_SHARED && !e->checks && !(a & (n - 1)) && a + n <= e->smem_size) return e->C->smem + a;
  return plX__mem(e, in, in->space, a, n, (uint32_t)w->idx * 32 + (uint32_t)l, write);
}


/* exec.c: one instruction for the active lanes (em: after the guard; am: before it) */
int  plX__exec(plX_emu *e, xwarp *w, xins *in, uint32_t am, uint32_t em);
int  plX__full_warp(plX_emu *e, xins *in, xwarp *w, uint32_t em);
/* call: lanes em push pc + 1 and pass their arguments; ret: lanes em return (their results land in
** the call's registers and their pc is set), and the lanes with no caller (a kernel's ret) are returned */
int  plX__call(plX_emu *e, xwarp *w, const xins *in, uint32_t pc, uint32_t em);
uint32_t plX__ret(plX_emu *e, xwarp *w, uint32_t em);
/* a call of vprintf (printf): each lane of em formats and prints to stdout, lanes ascending */
int  plX__vprintf(plX_emu *e, xwarp *w, const xins *in, uint32_t em);

/* ops.c: the semantics of one element */
int      plX__mode(int rnd);
uint64_t plX__flush_bits(uint64_t r, int fmt);
uint64_t plX__fop(const xins *in, int op, uint64_t A, uint64_t B, uint64_t C, int t);  /* x2: both halves */
int      plX__fcmp(int c, double a, double b);
int      plX__icmp(int c, uint64_t a, uint64_t b, int t);
int      plX__cmp_lane(const xins *in, uint64_t A, uint64_t B, int half);
uint64_t plX__cvt(const xins *in, uint64_t A);
uint64_t plX__cvtpack(const xins *in, uint64_t A, uint64_t B);
uint64_t plX__mulhi(uint64_t a, uint64_t b, int t);
uint64_t plX__mulwide(uint64_t a, uint64_t b, int t);
uint64_t plX__brev(uint64_t v, int bits);
uint64_t plX__bfind(uint64_t a, int t, int shiftamt);
uint64_t plX__bfe(uint64_t a, uint32_t pos, uint32_t len, int t);
uint64_t plX__bfi(uint64_t a, uint64_t b, uint32_t pos, uint32_t len, int t);
uint32_t plX__prmt(uint32_t a, uint32_t b, uint32_t c, int mode);
uint64_t plX__sreg(plX_emu *e, xwarp *w, int id, int l);
uint64_t plX__atom_op(const xins *in, uint64_t old, uint64_t b, uint64_t c);

/* hopper.c: mbarrier, TMA and bulk copies, wgmma, clusters, elect, setmaxnreg, proxy fences */
#define X_DSM_SHIFT 24                    /* shared::cluster address = (rank + 1) << 24 | offset */
int  plX__hop_exec(plX_emu *e, xwarp *w, xins *in, uint32_t pc, uint32_t am, uint32_t em);  /* 0 ok */
int  plX__hop_wait(plX_emu *e, xwarp *w, xins *in, uint32_t pc, uint32_t em, uint32_t *blocked);  /* mbarrier waits, barrier.cluster */
int  plX__hop_setup(plX_emu *e, xcta *c);  /* a CTA starts */
void plX__hop_scan(plX_emu *e);            /* which Hopper state the kernel needs (once) */
void plX__hop_free(xcta *c);
int  plX__hop_flush(plX_emu *e);           /* land the copies in flight: 1 if any landed, -1 error */
int  plX__hop_cluster_check(plX_emu *e);   /* barrier.cluster completes when exits leave only arrivals */
int  plX__hop_deadlock(plX_emu *e, plB_buf *m, xwarp *W, int lane);   /* the mbarrier/cluster part of a report */
/* at a deadlock: a phase whose bytes differ from its expect_tx; 1 if reported */
int  plX__hop_tx_stuck(plX_emu *e);
int  plX__hop_accum_check(plX_emu *e, xwarp *w, xins *in);           /* accumulator read before wait_group */
void plX__hop_generic_write(plX_emu *e, const xins *in, uint32_t off, uint32_t n, uint32_t tid);  /* may report */
void plX__hop_remote_write(plX_emu *e, const xins *in, xcta *c, uint32_t off, uint32_t n, uint32_t tid);  /* a generic store into CTA c != e->C */
int  plX__hop_gload(plX_emu *e, const xins *in, uint64_t a, uint32_t n, uint32_t tid);  /* a global read while bulk stores are in flight; 1 after reporting */
int  plX__hop_wg_clobber(plX_emu *e, uint32_t stmt, xcta *c, uint32_t off, uint32_t n, int warp, const char *who); /* 1 after reporting; warp: the writer's in c, -1 */
void plX__hop_bar_sync(xcta *c);    /* a CTA barrier completed: its warps are ordered after the retired wgmma reads */
void plX__hop_wg_touch(plX_emu *e, xwarp *w, const xins *in);   /* the registers an instruction accesses (wgmma.fence check) */
void plX__hop_fence_snap(plX_emu *e); /* a barrier of the cluster completed: the fences before it (proxy check) */
/* a read of CTA c's shared bytes [lo, hi) while a copy still writes some of them: the error (lane l of w, -1 the warp) */
int  plX__hop_inflight_read(plX_emu *e, const xins *in, xwarp *w, int l, const xcta *c, uint32_t lo, uint32_t hi, const char *what);
int  plX__hop_smem(plX_emu *e, uint64_t a, xcta **c, uint32_t *off);  /* shared::cluster address -> CTA, offset */

/* mma.c: warp-collective matrix instructions */
int plX__ldmatrix(plX_emu *e, xins *in, xwarp *w, uint32_t em);
int plX__stmatrix(plX_emu *e, xins *in, xwarp *w, uint32_t em);
int plX__mma(plX_emu *e, xins *in, xwarp *w, uint32_t em);
/* wmma: shapes (xins.sub2), the registers of a fragment (mat 0 A, 1 B, 2 C/D) of element type t
** (0: no such fragment), and the instruction */
enum { XWM_M16N16K16 = 1, XWM_M32N8K16, XWM_M8N32K16, XWM_M16N16K8 };
int plX__wmma_regs(int mat, int shape, int t);
int plX__wmma(plX_emu *e, xins *in, xwarp *w, uint32_t em);

#endif
