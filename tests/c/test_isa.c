/* test_isa.c -- unit tests of the ISA matcher (src/isa/isa.c) and the type rules
** (src/base/types.c): every form of the table compiles, opcode texts resolve or fail with the
** right message, targets and versions are checked (modifier minimums, arch- and family-specific
** targets), operands are checked (kinds, counts, conditional and optional operands, vectors,
** pairs, alternatives, special registers), and register types follow ptxas. Plain C; exit 1 on a
** failure. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include "ir.h"
#include "isa.h"
#include "types.h"
#include "check.h"

static plA_ctx *isa;
static plB_buf err;

static const plA_res *resolve(const char *text) {
  err.n = 0;
  return plA_resolve(isa, plA_opcode(isa, text, strlen(text)), &err);
}
static const char *emsg(void) {
  return plB_buf_cstr(&err);
}

static plA_target target(const char *s) {
  plA_target t;
  if (!plA_target_parse(s, &t)) {
    fprintf(stderr, "bad target %s\n", s);
    exit(1);
  }
  return t;
}

/* 1 if the opcode text is valid on the target (versions not checked) */
static int on(const char *text, const char *tgt) {
  const plA_res *r = resolve(text);
  if (!r) return 0;
  plA_target t = target(tgt);
  err.n = 0;
  return plA_check_target(r, text, &t, 0, &err);
}

/* ---- the table ------------------------------------------------------------------------------- */
static void test_table_compiles(void) {
  int first = -2;
  int bad = plA_bad_forms(isa, &first);
  CHECK(bad == 0);
  if (bad) {
    const char *p, *o;
    int v, s, f;
    plA_form_info(first, &p, &o, &v, &s, &f);
    fprintf(stderr, "  %d forms do not compile, the first: %s (%s)\n", bad, p, o);
  }
  CHECK(first == -1 || bad);
  CHECK(plA_form_count() > 300);
  CHECK(plA_set_count() > 20);
  CHECK(plA_mod_count() > 20);
  CHECK(plA_sreg_count() > 30);
  const char *p, *o;
  int v, s, f;
  plA_form_info(-1, &p, &o, &v, &s, &f);
  CHECK(p == NULL && o == NULL);
  plA_form_info(0, &p, &o, &v, &s, &f);
  CHECK(p && o && v >= 10 && s >= 10);
}

/* ---- resolving opcode texts ------------------------------------------------------------------ */
static void test_resolve_valid(void) {
  static const char *ok[] = {
    "add.f32",
    "add.rn.ftz.sat.f32",
    "add.s64",
    "add.u16x2",
    "add.rn.f16x2",
    "add.rn.bf16",
    "add.rn.f32x2",
    "mul.wide.u32",
    "mad.lo.cc.u64",
    "fma.rn.oob.relu.bf16x2",
    "min.NaN.xorsign.abs.f16",
    "max.relu.s16x2",
    "setp.lt.f32",
    "setp.lt.and.ftz.f32",
    "setp.hi.u32",
    "setp.ne.b64",
    "set.lt.and.f32.s32",
    "set.eq.f16.u32",
    "selp.b32",
    "slct.ftz.u64.f32",
    "lop3.b32",
    "lop3.or.b32",
    "shf.l.wrap.b32",
    "prmt.b32.rc16",
    "cvt.rn.f32.s32",
    "cvt.rzi.s8.f64",
    "cvt.sat.u8.s32",
    "cvt.rn.relu.satfinite.bf16x2.f32",
    "cvt.rna.tf32.f32",
    "cvt.rn.satfinite.e4m3x2.f32",
    "cvt.rn.f16x2.e5m2x2",
    "cvt.rs.satfinite.e2m1x4.f32",
    "cvt.pack.sat.s8.s32.b32",
    "cvta.to.global.u64",
    "cvta.shared::cluster.u64",
    "isspacep.param",
    "mov.b32",
    "mov.b128",
    "mov.pred",
    "ld.global.v4.f32",
    "ld.global.nc.L1::no_allocate.L2::cache_hint.L2::256B.v2.f64",
    "ld.shared::cta.b128",
    "ld.relaxed.gpu.global.u32",
    "ld.acquire.cluster.shared::cluster.v2.b32",
    "ld.volatile.global.L2::64B.u8",
    "ld.global.L1::evict_last.L2::evict_first.v8.f32",
    "ld.param::entry.b32",
    "ld.mmio.relaxed.sys.global.u32",
    "st.release.sys.global.v4.s32",
    "st.global.L1::no_allocate.v4.f64",
    "st.param::func.b64",
    "ldu.global.v2.f32",
    "prefetch.global.L2::evict_last",
    "prefetch.param.tensormap",
    "createpolicy.fractional.L2::evict_last.b64",
    "atom.global.add.u32",
    "atom.acq_rel.cluster.shared::cluster.cas.b64",
    "atom.cas.b16",
    "atom.exch.b128",
    "atom.global.add.L2::cache_hint.f64",
    "atom.global.v8.bf16.add.noftz" /* the manual's example order: ptxas takes it */,
    "red.release.gpu.global.max.s64",
    "red.global.add.noftz.v4.f16x2",
    "shfl.sync.bfly.b32",
    "vote.sync.ballot.b32",
    "activemask.b32",
    "redux.sync.min.abs.NaN.f32",
    "match.all.sync.b64",
    "bar.warp.sync",
    "bar.sync",
    "bar.cta.red.popc.u32",
    "barrier.sync.aligned",
    "barrier.red.or.aligned.pred",
    "barrier.cluster.arrive.release.aligned",
    "membar.gl",
    "fence.sc.cluster",
    "fence.proxy.async.shared::cta",
    "fence.mbarrier_init.release.cluster",
    "fence.proxy.tensormap::generic.acquire.gpu",
    "bra.uni",
    "brx.idx",
    "ret",
    "exit",
    "trap",
    "nanosleep.u32",
    "ldmatrix.sync.aligned.m8n8.x4.trans.shared.b16",
    "cp.async.cg.shared.global.L2::cache_hint.L2::128B",
  };
  for (size_t i = 0; i < sizeof ok / sizeof ok[0]; i++) {
    const plA_res *r = resolve(ok[i]);
    if (!r) {
      failures++;
      fprintf(stderr, "does not resolve: %s: %s\n", ok[i], emsg());
    }
    checks++;
  }
  /* the same text resolves to the same (cached) result */
  CHECK(resolve("add.f32") == resolve("add.f32"));
  const plA_res *r = resolve("ld.global.v4.f32");
  CHECK(r && r->vec == 4 && r->ntypes == 1 && r->types[0] == PLT_F32);
  r = resolve("ldmatrix.sync.aligned.m8n8.x2.shared.b16");
  CHECK(r && r->xn == 2);
  r = resolve("cvt.rn.f32.s32");
  CHECK(r && r->ntypes == 2 && r->types[0] == PLT_F32 && r->types[1] == PLT_S32);
  CHECK(r && plA_optype(r, 0) == PLT_F32 && plA_optype(r, 1) == PLT_S32 &&
        plA_optype(r, 5) == PLT_NONE);
}

static void test_resolve_invalid(void) {
  CHECK(resolve("foo.bar") == NULL);
  CHECK_HAS(emsg(), "unknown instruction 'foo'");
  CHECK(resolve("add.f33") == NULL);
  CHECK_HAS(emsg(), "unknown modifier '.f33' in 'add.f33'");
  CHECK_HAS(emsg(), "did you mean '.f32'?; nearest forms: add.f32, ");
  CHECK(resolve("add.b32") == NULL); /* add has no bit-size type */
  CHECK_HAS(emsg(), "'add.b32' is not a valid form of add");
  static const char *bad[] = {
    "add",
    "mul.u32",
    "cvt.u32.f32" /* float to int needs a rounding */,
    "cvt.sat.u32.u32",
    "cvt.sat.u64.u32",
    "setp.lo.s32",
    "setp.lt.b32",
    "ld.shared.v4.f64" /* 256 bits: only .global (sm_100) */,
    "ld.shared.v8.f32",
    "ld.volatile.local.u32",
    "ld.volatile.global.cg.u32",
    "ld.relaxed.param.u32",
    "ld.relaxed.gpu.shared.L2::cache_hint.u32",
    "ld.global.v2.b128",
    "st.const.u32",
    "st.global.L2::64B.u32",
    "ld.global.ca.nc.L1::evict_last.u32",
    "atom.shared.add.L2::cache_hint.u32",
    "atom.add.b32",
    "atom.and.u32",
    "atom.inc.s32",
    "red.acquire.add.u32",
    "red.global.cas.b32",
    "lop3.xor.b32",
    "cvta.global.u32",
    "shfl.sync.bfly.b64",
    "mov.f16",
    "mov.u8",
    "fence.acquire.sync_restrict::shared::cta.cluster",
    "add.rn.ftz.bf16",
    "min.ftz.bf16",
    "cvt.rn.satfinite.f16.u32",
    "bar.sync.aligned",
  };
  for (size_t i = 0; i < sizeof bad / sizeof bad[0]; i++) {
    const plA_res *r = resolve(bad[i]);
    if (r) {
      failures++;
      fprintf(stderr, "resolves but is not PTX: %s (%s)\n", bad[i], r->pattern);
    }
    checks++;
  }
}

/* ---- targets and versions -------------------------------------------------------------------- */
static void test_targets(void) {
  plA_target t = target("sm_90a");
  CHECK(t.sm == 90 && t.arch_a == 1);
  t = target("sm_100f");
  CHECK(t.sm == 100 && t.arch_a == 2);
  t = target("compute_80");
  CHECK(t.sm == 80 && t.arch_a == 0);
  plA_target x;
  CHECK(!plA_target_parse("sm_9", &x) && !plA_target_parse("sm_99", &x) &&
        !plA_target_parse("gfx90a", &x));
  CHECK(plA_target_min_version(&(plA_target){ 80, 0, 0 }) == 70);
  t = target("sm_90a");
  CHECK(plA_target_min_version(&t) == 80);
  t = target("sm_100f");
  CHECK(plA_target_min_version(&t) == 88);
  t = target("sm_120");
  CHECK(plA_target_min_version(&t) == 87);

  /* minimum target */
  CHECK(!on("add.u16x2", "sm_80"));
  CHECK_HAS(emsg(), "'add.u16x2' requires sm_90 or later (the target is sm_80)");
  CHECK(on("add.u16x2", "sm_90"));
  CHECK(on("add.f32", "sm_75"));
  CHECK(on("ld.global.v4.f64", "sm_100")); /* 256-bit loads */
  CHECK(!on("ld.global.v4.f64", "sm_90a"));
  /* modifier minimums raise a form's */
  const plA_res *r = resolve("ld.global.f32");
  CHECK(r && r->ptx_min == 10 && r->sm_min == 10);
  r = resolve("ld.global.L2::cache_hint.f32");
  CHECK(r && r->ptx_min == 74 && r->sm_min == 80);
  r = resolve("ld.shared::cluster.u32");
  CHECK(r && r->ptx_min == 78 && r->sm_min == 90);
  r = resolve("ld.relaxed.gpu.global.u32");
  CHECK(r && r->ptx_min == 60 && r->sm_min == 70);
  r = resolve("atom.gpu.global.add.u32");
  CHECK(r && r->ptx_min == 50 && r->sm_min == 60);
  r = resolve("bar.cta.sync");
  CHECK(r && r->ptx_min == 78);
  r = resolve("membar.cta"); /* .cta raises bar's minimum, not membar's */
  CHECK(r && r->ptx_min < 78);
  /* versions */
  r = resolve("ld.global.L2::cache_hint.f32");
  plA_target v = target("sm_80");
  v.version = 70;
  err.n = 0;
  CHECK(!plA_check_target(r, "ld.global.L2::cache_hint.f32", &v, 1, &err));
  CHECK_HAS(emsg(), "requires PTX ISA 7.4 (the module declares 7.0)");
  /* versions not checked */
  CHECK(plA_check_target(r, "ld.global.L2::cache_hint.f32", &v, 0, &err));
  v.version = 74;
  CHECK(plA_check_target(r, "ld.global.L2::cache_hint.f32", &v, 1, &err));

  /* arch-specific (sm_100a, sm_103a) */
  CHECK(on("cvt.rs.f16x2.f32", "sm_100a"));
  CHECK(on("cvt.rs.f16x2.f32", "sm_103a"));
  CHECK(!on("cvt.rs.f16x2.f32", "sm_100f"));
  CHECK(!on("cvt.rs.f16x2.f32", "sm_100"));
  CHECK(!on("cvt.rs.f16x2.f32", "sm_120a"));
  CHECK_HAS(
      emsg(),
      "'cvt.rs.f16x2.f32' requires sm_100a or sm_103a (arch-specific; the target is sm_120a)");
  /* family-specific (sm_100a, sm_100f, sm_103a, sm_103f) */
  CHECK(on("redux.sync.min.f32", "sm_100a"));
  CHECK(on("redux.sync.min.f32", "sm_100f"));
  CHECK(on("redux.sync.min.f32", "sm_103f"));
  CHECK(!on("redux.sync.min.f32", "sm_100"));
  CHECK(!on("redux.sync.min.f32", "sm_90a"));
  CHECK(!on("redux.sync.min.f32", "sm_120a"));
  CHECK_HAS(emsg(), "family-specific");
  /* any arch- or family-specific target from sm_100 on */
  CHECK(on("cvt.rn.satfinite.e2m1x2.f32", "sm_100a"));
  CHECK(on("cvt.rn.satfinite.e2m1x2.f32", "sm_120f"));
  CHECK(on("cvt.rn.satfinite.e2m1x2.f32", "sm_110a"));
  CHECK(!on("cvt.rn.satfinite.e2m1x2.f32", "sm_120"));
  CHECK(!on("cvt.rn.satfinite.e2m1x2.f32", "sm_90a"));
  /* not arch-specific: any later target */
  CHECK(on("add.rn.f32x2", "sm_100"));
  CHECK(on("add.rn.f32x2", "sm_120"));
  CHECK(!on("add.rn.f32x2", "sm_90a"));
}

/* ---- type rules (as ptxas: see tests/spec/isa_forms_spec.lua for the check against it)
** -------- */
static void test_types(void) {
  CHECK(plB_type_from_name("f32", 3) == PLT_F32 && plB_type_from_name("bf16x2", 6) == PLT_BF16X2);
  CHECK(plB_type_from_name("f33", 3) == PLT_NONE && plB_type_from_name("e2m1x4", 6) == PLT_E2M1X4);
  CHECK(plB_type_info[PLT_F32X2].bits == 64 && plB_type_info[PLT_BF16].decl == PLT_B16);
  struct {
    int ins, reg, relaxed, want;
  } c[] = {
    { PLT_F32, PLT_F32, 0, 1 },   { PLT_F32, PLT_B32, 0, 1 },    { PLT_F32, PLT_U32, 0, 0 },
    { PLT_F32, PLT_S32, 0, 0 },   { PLT_F32, PLT_F64, 0, 0 },    { PLT_F32, PLT_B64, 0, 0 },
    { PLT_F32, PLT_B64, 1, 1 },   { PLT_F32, PLT_F64, 1, 0 },    { PLT_U32, PLT_U32, 0, 1 },
    { PLT_U32, PLT_S32, 0, 1 },   { PLT_U32, PLT_B32, 0, 1 },    { PLT_U32, PLT_F32, 0, 0 },
    { PLT_U32, PLT_U64, 0, 0 },   { PLT_U32, PLT_U64, 1, 1 },    { PLT_U32, PLT_U16, 1, 0 },
    { PLT_U16, PLT_U32, 1, 1 },   { PLT_S8, PLT_S32, 1, 1 },     { PLT_S8, PLT_F16, 1, 0 },
    { PLT_U32, PLT_F16X2, 0, 0 }, { PLT_B32, PLT_F32, 0, 1 },    { PLT_B32, PLT_U32, 0, 1 },
    { PLT_B32, PLT_F16X2, 0, 1 }, { PLT_B32, PLT_B64, 0, 0 },    { PLT_B32, PLT_B64, 1, 1 },
    { PLT_B8, PLT_F16, 1, 1 },    { PLT_B16, PLT_U16, 0, 1 },    { PLT_B64, PLT_F64, 0, 1 },
    { PLT_F16, PLT_F16, 0, 1 },   { PLT_F16, PLT_B16, 0, 1 },    { PLT_F16, PLT_U16, 0, 0 },
    { PLT_F16, PLT_B32, 1, 1 },   { PLT_BF16, PLT_B16, 0, 1 },   { PLT_BF16, PLT_F16, 0, 0 },
    { PLT_F16X2, PLT_B32, 0, 1 }, { PLT_F16X2, PLT_F32, 0, 0 },  { PLT_TF32, PLT_B32, 0, 1 },
    { PLT_TF32, PLT_F32, 0, 0 },  { PLT_E4M3X2, PLT_B16, 0, 1 }, { PLT_E4M3X2, PLT_U16, 0, 0 },
    { PLT_PRED, PLT_PRED, 0, 1 }, { PLT_PRED, PLT_B32, 0, 0 },   { PLT_B32, PLT_PRED, 1, 0 },
    { PLT_NONE, PLT_B32, 0, 0 },
  };
  for (size_t i = 0; i < sizeof c / sizeof c[0]; i++) {
    int got = plB_type_compatible(c[i].ins, c[i].reg, c[i].relaxed);
    checks++;
    if (got != c[i].want) {
      failures++;
      fprintf(stderr, "plB_type_compatible(.%s, .%s register%s) is %d, want %d\n",
              plB_type_info[c[i].ins].name, plB_type_info[c[i].reg].name,
              c[i].relaxed ? ", relaxed" : "", got, c[i].want);
    }
  }
}

/* ---- operands
** --------------------------------------------------------------------------------- */
static plI_module *mod;
static int fn;

static plI_opnd reg(int type) {
  static int k;
  char name[16];
  snprintf(name, sizeof name, "r%d", k++);
  plI_opnd o = { PLO_REG, 0, 0, plI_reg_scalar(mod, fn, name, type), 0 };
  return o;
}
static plI_opnd vec(int n, int type) {
  plI_opnd e[8];
  for (int i = 0; i < n; i++) e[i] = reg(type);
  plI_opnd o = { PLO_VEC, 0, (uint16_t)n, mod->opnds.n, 0 };
  for (int i = 0; i < n; i++) plI_opnd_push(mod, &e[i]);
  return o;
}
static plI_opnd pair(plI_opnd a, plI_opnd b) {
  plI_opnd o = { PLO_PAIR, 0, 2, mod->opnds.n, 0 };
  plI_opnd_push(mod, &a);
  plI_opnd_push(mod, &b);
  return o;
}
static plI_opnd imm(uint64_t v) {
  plI_opnd o = { PLO_IMM, 0, 0, 0, v };
  return o;
}
static plI_opnd addr(plI_opnd base) {
  plI_opnd o = { PLO_ADDR, PLOF_BASE_REG, 0, base.id, 0 };
  return o;
}
static plI_opnd sreg(const char *name, int type) {
  plI_opnd o = { PLO_SREG, 0, (uint16_t)type, plI_str(mod, name), 0 };
  return o;
}
static plI_opnd neg(plI_opnd o) {
  o.flags |= PLOF_NEG;
  return o;
}

/* the PTX version needed (> 0), or 0 with the message in err */
static int ops(const char *text, const plI_opnd *o, int n) {
  const plA_res *r = resolve(text);
  if (!r) {
    fprintf(stderr, "does not resolve: %s: %s\n", text, emsg());
    return 0;
  }
  err.n = 0;
  return plI_check_ops(r, mod, text, o, n, &err);
}
#define OPS(text, ...)                   \
  ops(text, (plI_opnd[]){ __VA_ARGS__ }, \
      (int)(sizeof(plI_opnd[]){ __VA_ARGS__ } / sizeof(plI_opnd)))

static void set_target(const char *t) {
  mod->target = plI_str(mod, t);
}

static void test_operands(void) {
  mod = plI_new(isa);
  fn = plI_func_new(mod, "k", PLF_ENTRY, PLK_VISIBLE);
  set_target("sm_90a");
  plI_opnd p64 = reg(PLT_U64);

  /* types and kinds */
  CHECK(OPS("add.f32", reg(PLT_F32), reg(PLT_F32), reg(PLT_B32)) == 10);
  CHECK(!OPS("add.f32", reg(PLT_F32), reg(PLT_U32), reg(PLT_F32)));
  CHECK_HAS(emsg(), "operand 2 of 'add.f32': expected a .f32 register, got %r");
  CHECK(OPS("add.u32", reg(PLT_U32), reg(PLT_S32), imm(1)));
  CHECK(!OPS("add.u32", reg(PLT_U32), reg(PLT_U32)));
  CHECK_HAS(emsg(), "'add.u32' takes 3 operands (d, a, b), got 2");
  CHECK(!OPS("add.rn.f16", reg(PLT_F16), reg(PLT_F16), imm(1))); /* no half-precision immediates */
  CHECK(!OPS("selp.b32", reg(PLT_B32), reg(PLT_B32), reg(PLT_B32), reg(PLT_B32)));
  CHECK(OPS("selp.b32", reg(PLT_B32), reg(PLT_B32), reg(PLT_B32), neg(reg(PLT_PRED))));
  CHECK(!OPS("add.u32", reg(PLT_U32), neg(reg(PLT_U32)), reg(PLT_U32)));
  CHECK_HAS(emsg(), "cannot be negated");
  /* relaxed: ld, st, cvt take wider registers */
  CHECK(OPS("ld.global.u8", reg(PLT_U32), addr(p64)));
  CHECK(OPS("ld.global.f32", reg(PLT_B64), addr(p64)));
  CHECK(!OPS("ld.global.u32", reg(PLT_U16), addr(p64)));
  CHECK(!OPS("ld.global.u32", reg(PLT_U32), addr(reg(PLT_F32))));
  CHECK_HAS(emsg(), "an address register must be a 32- or 64-bit integer");
  CHECK(OPS("cvt.rn.f32.u16", reg(PLT_F32), reg(PLT_U32)));
  /* vectors */
  CHECK(OPS("ld.global.v4.f32", vec(4, PLT_F32), addr(p64)));
  CHECK(!OPS("ld.global.v4.f32", vec(2, PLT_F32), addr(p64)));
  CHECK_HAS(emsg(), "expected a vector of 4 registers, got 2");
  CHECK(!OPS("ld.global.v4.f32", reg(PLT_F32), addr(p64)));
  CHECK(OPS("ldmatrix.sync.aligned.m8n8.x4.shared.b16", vec(4, PLT_B32), addr(p64)));
  CHECK(!OPS("ldmatrix.sync.aligned.m8n8.x2.shared.b16", vec(4, PLT_B32), addr(p64)));
  CHECK_HAS(emsg(), "expected a vector of 2 registers");
  /* pack: an alternative of mov.b32 */
  CHECK(OPS("mov.b32", reg(PLT_B32), vec(2, PLT_B16)));
  CHECK(OPS("mov.b32", vec(2, PLT_B16), reg(PLT_B32))); /* unpack */
  CHECK(OPS("mov.b32", reg(PLT_B32), reg(PLT_U32)));
  CHECK(!OPS("mov.b32", reg(PLT_B32), vec(3, PLT_B16)));
  CHECK_HAS(emsg(), "other forms take");
  /* conditional operands: the cache-policy of .L2::cache_hint */
  CHECK(OPS("ld.global.L2::cache_hint.f32", reg(PLT_F32), addr(p64), reg(PLT_U64)) == 74);
  CHECK(!OPS("ld.global.L2::cache_hint.f32", reg(PLT_F32), addr(p64)));
  CHECK(!OPS("ld.global.f32", reg(PLT_F32), addr(p64), reg(PLT_U64)));
  CHECK(OPS("setp.lt.and.f32", reg(PLT_PRED), reg(PLT_F32), reg(PLT_F32), neg(reg(PLT_PRED))));
  CHECK(!OPS("setp.lt.f32", reg(PLT_PRED), reg(PLT_F32), reg(PLT_F32), reg(PLT_PRED)));
  /* optional operands, also before required ones: bar.red.popc.u32 d, a{, b}, {!}c */
  CHECK(OPS("bar.red.popc.u32", reg(PLT_U32), imm(0), reg(PLT_PRED)));
  CHECK(OPS("bar.red.popc.u32", reg(PLT_U32), imm(0), imm(64), neg(reg(PLT_PRED))));
  CHECK(!OPS("bar.red.popc.u32", reg(PLT_U32), imm(0)));
  CHECK_HAS(emsg(), "takes 3 to 4 operands");
  {
    const plA_res *r = resolve("bar.red.popc.u32");
    CHECK(r && plA_optype_n(r, 2, 3) == PLT_PRED && plA_optype_n(r, 2, 4) == PLT_U32 &&
          plA_optype(r, 2) == PLT_U32);
  }
  /* pairs: d|p (shfl.sync), p|q (setp), a pair required (lop3.or) */
  CHECK(OPS("shfl.sync.bfly.b32", pair(reg(PLT_B32), reg(PLT_PRED)), reg(PLT_B32), imm(1), imm(31),
            imm(0xffffffff)));
  CHECK(OPS("shfl.sync.bfly.b32", reg(PLT_B32), reg(PLT_B32), imm(1), imm(31), imm(0xffffffff)));
  CHECK(!OPS("shfl.sync.bfly.b32", pair(reg(PLT_PRED), reg(PLT_PRED)), reg(PLT_B32), imm(1),
             imm(31), imm(0xffffffff)));
  CHECK(OPS("setp.lt.f32", pair(reg(PLT_PRED), reg(PLT_PRED)), reg(PLT_F32), reg(PLT_F32)));
  CHECK(!OPS("add.f32", pair(reg(PLT_F32), reg(PLT_PRED)), reg(PLT_F32), reg(PLT_F32)));
  CHECK(OPS("lop3.or.b32", pair(reg(PLT_B32), reg(PLT_PRED)), reg(PLT_B32), reg(PLT_B32),
            reg(PLT_B32), imm(0x80), reg(PLT_PRED)));
  CHECK(!OPS("lop3.or.b32", reg(PLT_B32), reg(PLT_B32), reg(PLT_B32), reg(PLT_B32), imm(0x80),
             reg(PLT_PRED)));
  /* alternatives with their own minimums: min.f32 with three sources exists from sm_100 (PTX
  ** 8.8) */
  CHECK(OPS("min.f32", reg(PLT_F32), reg(PLT_F32), reg(PLT_F32)) == 10);
  CHECK(!OPS("min.f32", reg(PLT_F32), reg(PLT_F32), reg(PLT_F32), reg(PLT_F32)));
  CHECK_HAS(emsg(), "requires sm_100 or later (the target is sm_90a)");
  set_target("sm_100");
  CHECK(OPS("min.f32", reg(PLT_F32), reg(PLT_F32), reg(PLT_F32), reg(PLT_F32)) == 88);
  set_target("sm_90a");
  /* special registers */
  CHECK(OPS("mov.u32", reg(PLT_U32), sreg("tid.x", PLT_U32)) == 20);
  CHECK(OPS("mov.b32", reg(PLT_B32), sreg("envreg31", PLT_B32)));
  CHECK(OPS("mov.u64", reg(PLT_U64), sreg("pm7_64", PLT_U64)));
  CHECK(OPS("mov.u32", reg(PLT_U32), sreg("aggr_smem_size", PLT_U32)) == 81);
  CHECK(OPS("mov.pred", reg(PLT_PRED), sreg("is_explicit_cluster", PLT_PRED)) == 78);
  /* .w is the .v4's fourth: ptxas takes it */
  CHECK(!OPS("mov.u32", reg(PLT_U32), sreg("tid.q", PLT_U32)));
  CHECK_HAS(emsg(), "PTX has no special register %tid.q");
  CHECK(!OPS("mov.u32", reg(PLT_U32), sreg("envreg32", PLT_U32)));
  CHECK(!OPS("mov.u32", reg(PLT_U32), sreg("envreg01", PLT_U32)));
  CHECK(!OPS("mov.u64", reg(PLT_U64), sreg("tid.x", PLT_U32)));
  CHECK_HAS(emsg(), "%tid.x is .u32");
  CHECK(!OPS("add.u32", reg(PLT_U32), sreg("tid.x", PLT_U32), imm(1))); /* only mov reads them */
  set_target("sm_80");
  CHECK(!OPS("mov.u32", reg(PLT_U32), sreg("cluster_ctarank", PLT_U32)));
  CHECK_HAS(emsg(), "%cluster_ctarank requires sm_90 or later");
  {
    int t, v, s;
    CHECK(plA_sreg("clock64", &t, &v, &s) && t == PLT_U64 && s == 20);
    CHECK(plA_sreg("ctaid.z", &t, NULL, NULL) && t == PLT_U32);
    CHECK(!plA_sreg("ctaid", NULL, NULL, NULL) && !plA_sreg("", NULL, NULL, NULL));
  }
  plI_free(mod);
}

int main(void) {
  plB_buf_init(&err);
  isa = plA_new();
  if (!isa) {
    fprintf(stderr, "plA_new failed\n");
    return 1;
  }
  test_table_compiles();
  test_resolve_valid();
  test_resolve_invalid();
  test_targets();
  test_types();
  test_operands();
  plA_unref(isa);
  plB_buf_free(&err);
  return check_done("test_isa");
}
