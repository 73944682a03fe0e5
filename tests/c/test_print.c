/* test_print.c -- unit tests of the PTX printer (src/ir/print.c): the exact text of a small
** hand-built module (header, parameters, performance directives, register and variable
** declarations, every operand kind, guards, labels, raw lines, anchors), streaming equal to
** printing, and malformed IR printed without crashing. Plain C; exit 1 on a failure. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include "ir.h"
#include "isa.h"
#include "print.h"
#include "check.h"

static uint32_t opc(plI_module *m, const char *text) {
  return plA_opcode(m->isa, text, strlen(text));
}

static char *print_module(const plI_module *m, int anchors, int func, const char *header) {
  plI_print_opts o = { anchors, header, func };
  plB_buf b;
  plB_buf_init(&b);
  int r = plI_print(m, &o, &b);
  CHECK(r == 0);
  plB_buf_cstr(&b);
  return b.p; /* the caller frees */
}

static const char *operand_text(const plI_module *m, plI_opnd o) {
  static char out[256];
  plB_buf b;
  plB_buf_init(&b);
  plI_print_operand(m, &o, &b);
  snprintf(out, sizeof out, "%s", plB_buf_cstr(&b));
  plB_buf_free(&b);
  return out;
}

/* the small module every test prints */
static plI_module *build(void) {
  plA_ctx *isa = plA_new();
  plI_module *m = plI_new(isa);
  plA_unref(isa);
  m->version = 80;
  m->target = plI_str(m, "sm_90a");
  plI_var_new(m, -1, "counter", PLV_GLOBAL, PLK_VISIBLE, PLT_U32, 4, 0, "5");
  plI_var_new(m, -1, "table", PLV_CONST, PLK_NONE, PLT_F32, 0, 2, "{0f3F800000, 0f40000000}");

  int f = plI_func_new(m, "k", PLF_ENTRY, PLK_VISIBLE);
  plI_param(m, f, "x", PLT_U64, 0, 0, 0);
  plI_param(m, f, "buf", PLT_B8, 16, 128, 0);
  plI_param(m, f, "n", PLT_U32, 0, 0, 0);
  plI_func *F = &m->funcs.p[f];
  F->maxntid[0] = 128;
  F->maxntid[1] = 1;
  F->maxntid[2] = 1;
  F->reqntid[0] = 64; /* the other dimensions default to 1 */
  F->minnctapersm = 2;
  F->maxnreg = 64;
  F->explicitcluster = 1;
  F->reqnctapercluster[0] = 2;
  F->reqnctapercluster[1] = 1;
  F->reqnctapercluster[2] = 1;
  F->maxclusterrank = 8;
  uint32_t f1 = plI_reg_pool(m, f, "f", PLT_F32), f2 = plI_reg_pool(m, f, "f", PLT_F32);
  uint32_t acc = plI_reg_scalar(m, f, "acc", PLT_F32);
  uint32_t rd1 = plI_reg_pool(m, f, "rd", PLT_U64);
  uint32_t p1 = plI_reg_pool(m, f, "p", PLT_PRED), p2 = plI_reg_pool(m, f, "p", PLT_PRED);
  uint32_t v = plI_reg_range(m, f, "v", PLT_U32, 4);
  uint32_t hb = plI_reg_pool(m, f, "hb", PLT_BF16);
  plI_var_new(m, f, "tile", PLV_SHARED, PLK_NONE, PLT_F32, 16, 256, NULL);
  plI_var_new(m, f, "smem", PLV_SHARED, PLK_EXTERN, PLT_B8, 16, UINT64_MAX, NULL);

  uint32_t file = plI_str(m, "k.lua"), other = plI_str(m, "lib/helpers.lua");
  plI_opnd o3[3];
  /* ld.param.u64 %rd1, [x];  (line 3) */
  plI_opnd ld[2] = { { PLO_REG, 0, 0, rd1, 0 },
                     { PLO_ADDR, PLOF_BASE_SYM, 0, plI_str(m, "x"), 0 } };
  plI_insn(m, f, opc(m, "ld.param.u64"), ld, 2, 0, 0, file, 3);
  /* two instructions on line 4 */
  o3[0] = (plI_opnd){ PLO_REG, 0, 0, f1, 0 };
  o3[1] = (plI_opnd){ PLO_ADDR, PLOF_BASE_REG, 0, rd1, 16 };
  plI_insn(m, f, opc(m, "ld.global.f32"), o3, 2, 0, 0, file, 4);
  o3[1] = (plI_opnd){ PLO_ADDR, PLOF_BASE_REG, 0, rd1, (uint64_t)-4 };
  plI_insn(m, f, opc(m, "ld.global.f32"), o3, 2, 0, 0, file, 4);
  /* float immediates; a guard */
  o3[0] = (plI_opnd){ PLO_REG, 0, 0, f2, 0 };
  o3[1] = (plI_opnd){ PLO_REG, 0, 0, f1, 0 };
  o3[2] = (plI_opnd){ PLO_F32, 0, 0, 0, 0x3FC00000u };
  plI_insn(m, f, opc(m, "add.rn.f32"), o3, 3, p1 + 1, 0, file, 5);
  plI_opnd dd[2] = { { PLO_REG, 0, 0, acc, 0 }, { PLO_F64, 0, 0, 0, 0xBFF0000000000000ull } };
  plI_insn(m, f, opc(m, "mov.f64"), dd, 2, p2 + 1, 1, other, 17);
  /* integer immediates: signed, unsigned 64-bit, hex */
  plI_opnd ii[3] = { { PLO_REG, 0, 0, v, 0 },
                     { PLO_REG, 0, 0, v + 1, 0 },
                     { PLO_IMM, 0, 0, 0, (uint64_t)-7 } };
  plI_insn(m, f, opc(m, "add.s32"), ii, 3, 0, 0, file, 6);
  ii[2] = (plI_opnd){ PLO_IMM, PLOF_UNSIGNED, 0, 0, UINT64_MAX };
  plI_insn(m, f, opc(m, "and.b64"), ii, 3, 0, 0, file, 6);
  ii[2] = (plI_opnd){ PLO_IMM, PLOF_HEX, 0, 0, 0xDEADBEEFu };
  plI_insn(m, f, opc(m, "xor.b32"), ii, 3, 0, 0, 0, 0); /* no anchor */
  /* a vector, with the sink */
  plI_opnd e[4] = { { PLO_REG, 0, 0, v, 0 },
                    { PLO_REG, 0, 0, v + 1, 0 },
                    { PLO_SINK, 0, 0, 0, 0 },
                    { PLO_REG, 0, 0, v + 3, 0 } };
  uint32_t e0 = plI_opnd_push(m, &e[0]);
  for (int i = 1; i < 4; i++) plI_opnd_push(m, &e[i]);
  plI_opnd vv[2] = { { PLO_VEC, 0, 4, e0, 0 },
                     { PLO_ADDR, PLOF_BASE_SYM, 0, plI_str(m, "tile"), 32 } };
  plI_insn(m, f, opc(m, "ld.shared.v4.u32"), vv, 2, 0, 0, file, 8);
  /* a p|q pair, !p, a symbol, a special register, an absolute address */
  plI_opnd pq[2] = { { PLO_REG, 0, 0, p1, 0 }, { PLO_REG, 0, 0, p2, 0 } };
  uint32_t q0 = plI_opnd_push(m, &pq[0]);
  plI_opnd_push(m, &pq[1]);
  plI_opnd sp[3] = { { PLO_PAIR, 0, 2, q0, 0 },
                     { PLO_REG, 0, 0, v, 0 },
                     { PLO_SREG, 0, PLT_U32, plI_str(m, "tid.x"), 0 } };
  plI_insn(m, f, opc(m, "setp.lt.u32"), sp, 3, 0, 0, file, 9);
  plI_opnd sel[4] = { { PLO_REG, 0, 0, v, 0 },
                      { PLO_REG, 0, 0, v, 0 },
                      { PLO_SYM, 0, 0, plI_str(m, "tile"), 0 },
                      { PLO_REG, PLOF_NEG, 0, p1, 0 } };
  plI_insn(m, f, opc(m, "selp.u32"), sel, 4, 0, 0, file, 9);
  plI_opnd ab[2] = { { PLO_REG, 0, 0, hb, 0 }, { PLO_ADDR, 0, 0, 0, 256 } };
  plI_insn(m, f, opc(m, "ld.global.b16"), ab, 2, 0, 0, file, 10);
  /* a raw line, a label, a branch, a return */
  plI_raw(m, f, ".pragma \"nounroll\";", file, 11);
  plI_label(m, f, plI_str(m, "$L__loop1"), file, 11);
  plI_opnd br = { PLO_LABEL, 0, 0, plI_str(m, "$L__loop1"), 0 };
  plI_insn(m, f, opc(m, "bra.uni"), &br, 1, p1 + 1, 1, file, 12);
  plI_insn(m, f, opc(m, "ret"), NULL, 0, 0, 0, file, 13);

  /* a .func with a return parameter, and a prototype with no body */
  int g = plI_func_new(m, "helper", PLF_FUNC, PLK_NONE);
  plI_param(m, g, "r", PLT_B32, 0, 0, 1);
  plI_param(m, g, "a", PLT_B32, 0, 0, 0);
  m->funcs.p[g].noreturn = 0;
  plI_insn(m, g, opc(m, "ret"), NULL, 0, 0, 0, other, 30);
  int h = plI_func_new(m, "ext", PLF_FUNC, PLK_EXTERN);
  m->funcs.p[h].declared_only = 1;
  m->funcs.p[h].noreturn = 1;
  CHECK(m->status == 0);
  return m;
}

static const char *HEADER =
    "//\n// Generated by ptxlua\n//\n\n.version 8.0\n.target sm_90a\n.address_size 64\n";

static const char *GLOBALS = "\n.visible .global .align 4 .u32 counter = 5;\n.const .f32 table[2] "
                             "= {0f3F800000, 0f40000000};\n";

static const char *FUNC_K_HEAD =
    "\n\t// .globl\tk\n"
    ".visible .entry k(\n\t.param .u64 x,\n\t.param .align 16 .b8 buf[128],\n\t.param .u32 n\n)\n"
    ".maxntid 128, 1, 1\n.reqntid 64, 1, 1\n.minnctapersm 2\n.maxnreg 64\n.explicitcluster\n"
    ".reqnctapercluster 2, 1, 1\n.maxclusterrank 8\n"
    "{\n"
    "\t.reg .f32 \t%f<3>;\n\t.reg .f32 \t%acc;\n\t.reg .u64 \t%rd<2>;\n\t.reg .pred \t%p<3>;\n"
    "\t.reg .u32 \t%v<4>;\n\t.reg .b16 \t%hb<2>;\n"
    "\t.shared .align 16 .f32 tile[256];\n\t.extern .shared .align 16 .b8 smem[];\n\n";

/* the instruction lines of k, each with its anchor (NULL: none) */
static const struct {
  const char *text, *anchor;
  int line;
} K_BODY[] = {
  { "\tld.param.u64 \t%rd1, [x];", "k.lua", 3 },
  { "\tld.global.f32 \t%f1, [%rd1+16];", "k.lua", 4 },
  { "\tld.global.f32 \t%f1, [%rd1+-4];", "k.lua", 4 },
  { "\t@%p1 add.rn.f32 \t%f2, %f1, 0f3FC00000;", "k.lua", 5 },
  { "\t@!%p2 mov.f64 \t%acc, 0dBFF0000000000000;", "lib/helpers.lua", 17 },
  { "\tadd.s32 \t%v0, %v1, -7;", "k.lua", 6 },
  { "\tand.b64 \t%v0, %v1, 18446744073709551615;", "k.lua", 6 },
  { "\txor.b32 \t%v0, %v1, 0xDEADBEEF;", NULL, 0 },
  { "\tld.shared.v4.u32 \t{%v0, %v1, _, %v3}, [tile+32];", "k.lua", 8 },
  { "\tsetp.lt.u32 \t%p1|%p2, %v0, %tid.x;", "k.lua", 9 },
  { "\tselp.u32 \t%v0, %v0, tile, !%p1;", "k.lua", 9 },
  { "\tld.global.b16 \t%hb1, [256];", "k.lua", 10 },
  { "\t.pragma \"nounroll\";", NULL, -1 }, /* raw: never anchored */
  { "$L__loop1:", NULL, -1 },              /* label: never anchored */
  { "\t@!%p1 bra.uni \t$L__loop1;", "k.lua", 12 },
  { "\tret;", "k.lua", 13 },
};

static const char *FUNCS_REST =
    "\n}\n"
    "\n.func (.param .b32 r) helper(\n\t.param .b32 a\n)\n{\n\tret;%s\n\n}\n"
    "\n.extern .func ext .noreturn\n;\n\n";

/* the whole text with anchors as comments, as .loc, or none */
static char *expected(int anchors) {
  plB_buf b;
  plB_buf_init(&b);
  plB_buf_puts(&b, HEADER);
  if (anchors == PLI_ANCHOR_LOC)
    plB_buf_puts(&b, ".file\t1 \"k.lua\"\n.file\t2 \"lib/helpers.lua\"\n");
  plB_buf_puts(&b, GLOBALS);
  plB_buf_puts(&b, FUNC_K_HEAD);
  const char *lastf = NULL;
  int lastl = 0;
  for (size_t i = 0; i < sizeof K_BODY / sizeof K_BODY[0]; i++) {
    if (anchors == PLI_ANCHOR_LOC && K_BODY[i].anchor &&
        (K_BODY[i].anchor != lastf || K_BODY[i].line != lastl)) {
      plB_buf_printf(&b, "\t.loc\t%d %d 0\n", strcmp(K_BODY[i].anchor, "k.lua") == 0 ? 1 : 2,
                     K_BODY[i].line);
      lastf = K_BODY[i].anchor;
      lastl = K_BODY[i].line;
    }
    plB_buf_puts(&b, K_BODY[i].text);
    if (anchors == PLI_ANCHOR_COMMENT && K_BODY[i].anchor)
      plB_buf_printf(&b, "\t// %s:%d", K_BODY[i].anchor, K_BODY[i].line);
    plB_buf_putc(&b, '\n');
  }
  const char *helper_anchor = anchors == PLI_ANCHOR_COMMENT ? "\t// lib/helpers.lua:30" : "";
  if (anchors == PLI_ANCHOR_LOC) {
    /* the .loc of helper's ret: a new line in the other file */
    plB_buf_printf(&b, FUNCS_REST, "");
    char *s = b.p ? strstr(b.p, "{\n\tret;\n\n}\n\n.extern") : NULL;
    if (s) {
      plB_buf t;
      plB_buf_init(&t);
      plB_buf_add(&t, b.p, (size_t)(s - b.p));
      plB_buf_puts(&t, "{\n\t.loc\t2 30 0\n\tret;\n\n}\n\n.extern .func ext .noreturn\n;\n\n");
      plB_buf_free(&b);
      b = t;
    }
  } else
    plB_buf_printf(&b, FUNCS_REST, helper_anchor);
  plB_buf_cstr(&b);
  return b.p;
}

static void test_exact_text(void) {
  plI_module *m = build();
  for (int a = PLI_ANCHOR_NONE; a <= PLI_ANCHOR_LOC; a++) {
    char *got = print_module(m, a, -1, NULL);
    char *want = expected(a);
    CHECK_TEXT(got, want,
               a == PLI_ANCHOR_NONE      ? "the module"
               : a == PLI_ANCHOR_COMMENT ? "the module with // anchors"
                                         : "the module with .loc");
    free(got);
    free(want);
  }
  /* a custom header, one function only */
  char *got = print_module(m, PLI_ANCHOR_NONE, 1, "// mine\n");
  CHECK_TEXT(got,
             "// mine\n\n.version 8.0\n.target sm_90a\n.address_size 64\n"
             "\n.visible .global .align 4 .u32 counter = 5;\n"
             ".const .f32 table[2] = {0f3F800000, 0f40000000};\n"
             "\n.func (.param .b32 r) helper(\n\t.param .b32 a\n)\n{\n\tret;\n\n}\n",
             "one function");
  free(got);
  /* printing with no options is printing with the defaults */
  plB_buf b;
  plB_buf_init(&b);
  CHECK(plI_print(m, NULL, &b) == 0);
  char *dflt = print_module(m, PLI_ANCHOR_NONE, -1, NULL);
  CHECK_TEXT(plB_buf_cstr(&b), dflt, "the default options");
  free(dflt);
  plB_buf_free(&b);
  plI_free(m);
}

static void test_operands(void) {
  plI_module *m = build();
  uint32_t r = 1; /* %f0 exists in the IR (never handed out), %f1 is id 2 */
  CHECK(strcmp(operand_text(m, (plI_opnd){ PLO_REG, 0, 0, r + 1, 0 }), "%f1") == 0);
  struct {
    plI_opnd o;
    const char *want;
  } T[] = {
    { { PLO_IMM, 0, 0, 0, 0 }, "0" },
    { { PLO_IMM, 0, 0, 0, (uint64_t)INT64_MIN }, "-9223372036854775808" },
    { { PLO_IMM, 0, 0, 0, (uint64_t)INT64_MAX }, "9223372036854775807" },
    { { PLO_IMM, PLOF_UNSIGNED, 0, 0, 10000000000000000000ull }, "10000000000000000000" },
    { { PLO_IMM, PLOF_HEX, 0, 0, 0 }, "0x0000" },
    { { PLO_IMM, PLOF_HEX, 0, 0, 0x12345 }, "0x12345" },
    { { PLO_IMM, PLOF_HEX, 0, 0, UINT64_MAX }, "0xFFFFFFFFFFFFFFFF" },
    { { PLO_F32, 0, 0, 0, 0x80000000u }, "0f80000000" },
    { { PLO_F32, 0, 0, 0, 0x7FC00000u }, "0f7FC00000" },
    { { PLO_F64, 0, 0, 0, 0x3FB999999999999Aull }, "0d3FB999999999999A" },
    { { PLO_ADDR, 0, 0, 0, 0 }, "[0]" },
    { { PLO_ADDR, 0, 0, 0, (uint64_t)-8 }, "[-8]" },
    { { PLO_ADDR, PLOF_BASE_REG, 0, 2, 0 }, "[%f1]" },
    { { PLO_ADDR, PLOF_BASE_REG | PLOF_NEG, 0, 2, 0 }, "[%f1]" }, /* ! never on an address */
    { { PLO_SINK, 0, 0, 0, 0 }, "_" },
    { { PLO_SREG, 0, PLT_U32, plI_str(m, "ctaid.y"), 0 }, "%ctaid.y" },
    { { PLO_LABEL, 0, 0, plI_str(m, "$done"), 0 }, "$done" },
    { { PLO_RAW, 0, 0, plI_str(m, "{%r1, %r2}"), 0 }, "{%r1, %r2}" },
    /* malformed: bad ids and kinds print a marker, never read out of bounds */
    { { PLO_REG, 0, 0, 0, 0 }, "%<bad>" },
    { { PLO_REG, 0, 0, 100000, 0 }, "%<bad>" },
    { { PLO_ADDR, PLOF_BASE_REG, 0, 100000, 4 }, "[%<bad>+4]" },
    { { PLO_SYM, 0, 0, 1u << 30, 0 }, "" },
    { { PLO_VEC, 0, 4, 1u << 30, 0 }, "<?>" },
    { { PLO_VEC, 0, 60000, 0, 0 }, "<?>" },
    { { PLO_PAIR, 0, 2, UINT32_MAX, 0 }, "<?>" },
    { { PLO_NONE, 0, 0, 0, 0 }, "<?>" },
    { { 200, 0, 0, 0, 0 }, "<?>" },
  };
  for (size_t i = 0; i < sizeof T / sizeof T[0]; i++) {
    const char *got = operand_text(m, T[i].o);
    checks++;
    if (strcmp(got, T[i].want) != 0) {
      failures++;
      fprintf(stderr, "%s:%d: operand %zu: got \"%s\", want \"%s\"\n", __FILE__, __LINE__, i, got,
              T[i].want);
    }
  }
  /* a vector whose element is itself (a cycle) stops instead of recursing forever */
  plI_opnd self = { PLO_VEC, 0, 1, m->opnds.n, 0 };
  plI_opnd_push(m, &self);
  const char *got = operand_text(m, self);
  CHECK(strstr(got, "<?>") != NULL);
  plI_free(m);
}

static void test_malformed_statements(void) {
  plI_module *m = build();
  /* an instruction whose operands lie past the pool, an unknown opcode id, a bad guard */
  plI_stmt s = { PLS_INSN, 0, 2, 0, m->opnds.n + 100, 99999, 0, 0 };
  plB_vec_push(m->funcs.p[0].stmts, s);
  plI_stmt l = { PLS_LABEL, 0, 0, 1u << 30, 0, 0, 0, 0 };
  plB_vec_push(m->funcs.p[0].stmts, l);
  char *got = print_module(m, PLI_ANCHOR_LOC, 0, NULL);
  CHECK(got && strstr(got, "\t@%<bad> ? \t<?>, <?>;\n:\n") != NULL);
  free(got);
  /* a module with no ISA context prints '?' for opcodes */
  plI_module *bare = plI_new(NULL);
  bare->version = 78;
  bare->target = plI_str(bare, "sm_90");
  int f = plI_func_new(bare, "e", PLF_ENTRY, PLK_NONE);
  plI_insn(bare, f, 1, NULL, 0, 0, 0, 0, 0);
  got = print_module(bare, PLI_ANCHOR_NONE, -1, "");
  CHECK_TEXT(got, "\n.version 7.8\n.target sm_90\n.address_size 64\n\n.entry e()\n{\n\t?;\n\n}\n",
             "a bare module");
  free(got);
  plI_free(bare);
  plI_free(m);
}

/* streaming: plI_write gives the same bytes as plI_print, in pieces, and reports a failing sink */
typedef struct {
  plB_buf b;
  int calls;
  int fail_after;
} sinkbuf;
static int collect(void *ud, const char *s, size_t n) {
  sinkbuf *k = (sinkbuf *)ud;
  k->calls++;
  if (k->fail_after && k->calls > k->fail_after) return 0;
  plB_buf_add(&k->b, s, n);
  return 1;
}

static void test_streaming(void) {
  plI_module *m = build();
  /* a long body, so the text is flushed in several pieces */
  int f = 0;
  uint32_t v = 0;
  for (uint32_t i = 1; i <= m->regs.n; i++)
    if (strcmp(plI_cstr(m, m->regs.p[i - 1].name), "v") == 0) {
      v = i;
      break;
    }
  plI_opnd ops[3] = { { PLO_REG, 0, 0, v, 0 },
                      { PLO_REG, 0, 0, v + 1, 0 },
                      { PLO_IMM, 0, 0, 0, 1 } };
  uint32_t add = opc(m, "add.u32"), file = plI_str(m, "k.lua");
  for (int i = 0; i < 20000; i++) {
    ops[2].v = (uint64_t)i;
    plI_insn(m, f, add, ops, 3, 0, 0, file, 100 + (uint32_t)(i % 7));
  }
  CHECK(m->status == 0);
  for (int a = PLI_ANCHOR_NONE; a <= PLI_ANCHOR_LOC; a++) {
    plI_print_opts o = { a, NULL, -1 };
    char *printed = print_module(m, a, -1, NULL);
    sinkbuf k;
    plB_buf_init(&k.b);
    k.calls = 0;
    k.fail_after = 0;
    CHECK(plI_write(m, &o, collect, &k) == 0);
    CHECK(k.calls > 1);
    CHECK(printed && k.b.n == strlen(printed));
    CHECK_TEXT(plB_buf_cstr(&k.b), printed, "the streamed text");
    plB_buf_free(&k.b);
    free(printed);
  }
  /* a sink that fails (a full disk): an error, and no more calls after it */
  plI_print_opts o = { PLI_ANCHOR_NONE, NULL, -1 };
  sinkbuf k;
  plB_buf_init(&k.b);
  k.calls = 0;
  k.fail_after = 1;
  CHECK(plI_write(m, &o, collect, &k) == 3);
  CHECK(k.calls == 2);
  plB_buf_free(&k.b);
  plI_free(m);
}

int main(void) {
  test_exact_text();
  test_operands();
  test_malformed_statements();
  test_streaming();
  return check_done("test_print");
}
