/* test_ir.c -- unit tests of the trace IR (src/ir/ir.c): functions, parameters, registers, pools
** and ranges, name collisions, variables, statements with every operand kind, the sticky error
** status, and bad ids / NULLs that must fail cleanly instead of crashing. Plain C; exit 1 on a
** failure. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include "ir.h"
#include "isa.h"
#include "check.h"

/* the module's error message, then clear the status (as the Lua binding does after reporting) */
static const char *take_error(plI_module *m, char *buf, size_t n) {
  snprintf(buf, n, "%s", m->status ? plB_buf_cstr(&m->err) : "");
  m->status = 0;
  m->err.n = 0;
  return buf;
}

static const char *regname(plI_module *m, uint32_t id) {
  static char out[64];
  plB_buf b;
  plB_buf_init(&b);
  plI_regname(m, id, &b);
  snprintf(out, sizeof out, "%s", plB_buf_cstr(&b));
  plB_buf_free(&b);
  return out;
}

static void test_functions_and_params(void) {
  char e[256];
  plI_module *m = plI_new(NULL);
  CHECK(m != NULL);
  CHECK(m->address_size == 64 && m->status == 0);
  int f0 = plI_func_new(m, "k", PLF_ENTRY, PLK_VISIBLE);
  int f1 = plI_func_new(m, "helper", PLF_FUNC, PLK_NONE);
  CHECK(f0 == 0 && f1 == 1 && m->funcs.n == 2);
  CHECK_STR(plI_cstr(m, m->funcs.p[0].name), "k");
  CHECK(m->funcs.p[1].kind == PLF_FUNC && m->funcs.p[0].linkage == PLK_VISIBLE);
  /* a second definition of a name */
  CHECK(plI_func_new(m, "k", PLF_ENTRY, PLK_VISIBLE) == -1);
  CHECK_STR(take_error(m, e, sizeof e), "function 'k' is defined twice");
  CHECK(m->funcs.n == 2);
  /* parameters, return parameters */
  CHECK(plI_param(m, f0, "x", PLT_U64, 0, 0, 0) == 0);
  CHECK(plI_param(m, f0, "buf", PLT_B8, 16, 128, 0) == 0);
  CHECK(plI_param(m, f1, "r", PLT_B32, 0, 0, 1) == 0);
  CHECK(m->funcs.p[0].params.n == 2 && m->funcs.p[1].rets.n == 1 && m->funcs.p[1].params.n == 0);
  const plI_var *pb = &m->funcs.p[0].params.p[1];
  CHECK(pb->space == PLV_PARAM && pb->type == PLT_B8 && pb->align == 16 && pb->count == 128);
  CHECK_STR(plI_cstr(m, pb->name), "buf");
  CHECK(plI_param(m, f0, "x", PLT_U32, 0, 0, 0) == -1);
  CHECK_STR(take_error(m, e, sizeof e), "parameter 'x' declared twice");
  CHECK(plI_param(m, 7, "y", PLT_U32, 0, 0, 0) == -1);
  CHECK_STR(take_error(m, e, sizeof e), "no such function");
  CHECK(plI_param(m, -1, "y", PLT_U32, 0, 0, 0) == -1);
  CHECK_STR(take_error(m, e, sizeof e), "no such function");
  plI_free(m);
}

static void test_registers(void) {
  char e[256];
  plI_module *m = plI_new(NULL);
  int f = plI_func_new(m, "k", PLF_ENTRY, PLK_VISIBLE);
  int g = plI_func_new(m, "k2", PLF_ENTRY, PLK_VISIBLE);
  /* a scalar */
  uint32_t acc = plI_reg_scalar(m, f, "acc", PLT_F32);
  CHECK(acc == 1);
  CHECK_STR(regname(m, acc), "%acc");
  CHECK(m->regs.p[acc - 1].type == PLT_F32 && m->regs.p[acc - 1].index == -1 &&
        m->regs.p[acc - 1].func == (uint32_t)f);
  /* a pool: %f1, %f2, ... declared %f<N> (%f0 never handed out) */
  uint32_t p1 = plI_reg_pool(m, f, "f", PLT_F32);
  uint32_t p2 = plI_reg_pool(m, f, "f", PLT_F32);
  uint32_t p3 = plI_reg_pool(m, f, "f", PLT_F32);
  CHECK(p1 && p2 == p1 + 1 && p3 == p2 + 1);
  CHECK_STR(regname(m, p1), "%f1");
  CHECK_STR(regname(m, p3), "%f3");
  const plI_func *F = &m->funcs.p[f];
  CHECK(F->regdecls.n == 2);
  CHECK_STR(plI_cstr(m, F->regdecls.p[1].name), "f");
  CHECK(F->regdecls.p[1].count == 4 && F->regdecls.p[1].type == PLT_F32);
  /* a bf16 register is kept as bf16 but declared .b16 */
  uint32_t hb = plI_reg_pool(m, f, "hb", PLT_BF16);
  CHECK(m->regs.p[hb - 1].type == PLT_BF16);
  CHECK(m->funcs.p[f].regdecls.p[2].type == PLT_B16);
  /* a range: consecutive ids %v0..%v3 */
  uint32_t v = plI_reg_range(m, f, "v", PLT_U32, 4);
  CHECK(v == hb + 1);
  CHECK_STR(regname(m, v), "%v0");
  CHECK_STR(regname(m, v + 3), "%v3");
  CHECK(m->regs.p[v + 3 - 1].index == 3);
  /* the same names in another function are separate registers */
  uint32_t acc2 = plI_reg_scalar(m, g, "acc", PLT_F32);
  uint32_t q1 = plI_reg_pool(m, g, "f", PLT_F32);
  CHECK(acc2 && acc2 != acc && q1 && m->regs.p[q1 - 1].func == (uint32_t)g);
  CHECK_STR(regname(m, q1), "%f1");
  /* back in the first function, its pool goes on where it was (no second %f<N> declaration) */
  uint32_t p4 = plI_reg_pool(m, f, "f", PLT_F32);
  CHECK_STR(regname(m, p4), "%f4");
  CHECK(m->funcs.p[f].regdecls.n == 4 && m->funcs.p[f].regdecls.p[1].count == 5);
  CHECK(m->status == 0);

  /* collisions and bad declarations: each fails with its message, and nothing is declared */
  uint32_t nregs = m->regs.n, ndecl = m->funcs.p[f].regdecls.n;
  CHECK(plI_reg_scalar(m, f, "acc", PLT_U32) == 0);
  CHECK_STR(take_error(m, e, sizeof e), "register name '%acc' is already declared");
  CHECK(plI_reg_scalar(m, f, "f7", PLT_F32) == 0);
  CHECK_STR(take_error(m, e, sizeof e), "register name '%f7' collides with a register range");
  CHECK(plI_reg_scalar(m, f, "v12", PLT_F32) == 0);
  CHECK_STR(take_error(m, e, sizeof e), "register name '%v12' collides with a register range");
  CHECK(plI_reg_scalar(m, f, "x2", PLT_U32) != 0);
  CHECK(plI_reg_range(m, f, "x", PLT_U32, 3) == 0);
  CHECK_STR(take_error(m, e, sizeof e), "register range '%x' collides with register '%x2'");
  CHECK(plI_reg_pool(m, f, "x", PLT_U32) == 0);
  CHECK_STR(take_error(m, e, sizeof e), "register range '%x' collides with register '%x2'");
  nregs++;
  ndecl++; /* %x2 */
  CHECK(plI_reg_pool(m, f, "f", PLT_U32) == 0);
  CHECK_STR(take_error(m, e, sizeof e), "register pool '%f' holds another type");
  CHECK(plI_reg_scalar(m, f, "1x", PLT_U32) == 0);
  CHECK_STR(take_error(m, e, sizeof e), "bad register name '1x'");
  CHECK(plI_reg_scalar(m, f, "", PLT_U32) == 0);
  CHECK_STR(take_error(m, e, sizeof e), "bad register name ''");
  CHECK(plI_reg_scalar(m, f, "a.b", PLT_U32) == 0);
  CHECK_STR(take_error(m, e, sizeof e), "bad register name 'a.b'");
  CHECK(plI_reg_scalar(m, f, "y", PLT_NONE) == 0);
  CHECK_STR(take_error(m, e, sizeof e), "bad register type");
  CHECK(plI_reg_scalar(m, f, "y", PLT__COUNT + 3) == 0);
  CHECK_STR(take_error(m, e, sizeof e), "bad register type");
  CHECK(plI_reg_scalar(m, f, "y", PLT_E2M1) == 0); /* 4 bits: not a register type */
  CHECK_STR(take_error(m, e, sizeof e), "bad register type");
  CHECK(plI_reg_range(m, f, "z", PLT_U32, 0) == 0);
  CHECK_STR(take_error(m, e, sizeof e), "bad register range size 0");
  CHECK(plI_reg_scalar(m, 9, "y", PLT_U32) == 0);
  CHECK_STR(take_error(m, e, sizeof e), "no current function");
  CHECK(plI_reg_pool(m, -1, "y", PLT_U32) == 0);
  CHECK_STR(take_error(m, e, sizeof e), "no current function");
  CHECK(m->regs.n == nregs && m->funcs.p[f].regdecls.n == ndecl);
  /* $ and _ are name characters */
  CHECK(plI_reg_scalar(m, f, "_t$1", PLT_PRED) != 0);
  CHECK(m->status == 0);
  plI_free(m);
}

static void test_variables_labels_raw(void) {
  char e[256];
  plI_module *m = plI_new(NULL);
  int f = plI_func_new(m, "k", PLF_ENTRY, PLK_VISIBLE);
  CHECK(plI_var_new(m, f, "tile", PLV_SHARED, PLK_NONE, PLT_F32, 16, 256, NULL) == 0);
  CHECK(plI_var_new(m, f, "smem", PLV_SHARED, PLK_EXTERN, PLT_B8, 16, UINT64_MAX, NULL) == 1);
  CHECK(plI_var_new(m, -1, "counter", PLV_GLOBAL, PLK_VISIBLE, PLT_U32, 4, 0, "5") == 0);
  CHECK(m->funcs.p[f].vars.n == 2 && m->globals.n == 1);
  CHECK_STR(plI_cstr(m, m->globals.p[0].init), "5");
  CHECK(plI_var_new(m, f, "tile", PLV_SHARED, PLK_NONE, PLT_F32, 4, 1, NULL) == -1);
  CHECK_STR(take_error(m, e, sizeof e), "'tile' is declared twice in k: first .shared .align 16 "
                                        ".f32 tile[256], then .shared .align 4 .f32 tile[1]");
  CHECK(plI_var_new(m, -1, "counter", PLV_GLOBAL, PLK_NONE, PLT_U32, 4, 0, NULL) == -1);
  CHECK_STR(take_error(m, e, sizeof e),
            "'counter' is declared twice at module scope: first .visible .global .align 4 .u32 "
            "counter, then .global .align 4 .u32 counter");
  /* a module-scope variable named like one of the current function's would be hidden there */
  CHECK(plI_var_new(m, -1, "tile", PLV_SHARED, PLK_EXTERN, PLT_B8, 16, UINT64_MAX, NULL) == -1);
  CHECK_STR(take_error(m, e, sizeof e),
            "'tile' is declared twice in k (at module scope, hidden by the kernel's own): first "
            ".shared .align 16 .f32 tile[256], then .extern .shared .align 16 .b8 tile[]");
  /* a parameter's name (ptxas: duplicate definition) */
  CHECK(plI_param(m, f, "x", PLT_U64, 0, 0, 0) == 0);
  CHECK(plI_var_new(m, f, "x", PLV_SHARED, PLK_NONE, PLT_F32, 4, 8, NULL) == -1);
  CHECK_STR(take_error(m, e, sizeof e),
            "'x' is already a parameter of k: the variable .shared .align 4 .f32 x[8] needs "
            "another name (ptxas: duplicate definition)");
  CHECK(m->funcs.p[f].vars.n == 2 && m->globals.n == 1);
  CHECK(plI_var_new(m, f, "odd", PLV_SHARED, PLK_NONE, PLT_F32, 12, 4, NULL) == -1);
  CHECK_STR(take_error(m, e, sizeof e), "alignment 12 of 'odd' is not a power of two");
  CHECK(plI_var_new(m, 5, "w", PLV_SHARED, PLK_NONE, PLT_F32, 4, 4, NULL) == -1);
  CHECK_STR(take_error(m, e, sizeof e), "no such function");
  /* labels and raw lines are statements, with their anchors */
  uint32_t file = plI_str(m, "kernel.lua");
  CHECK(plI_label(m, f, plI_str(m, "$L__1"), file, 12) == 0);
  CHECK(plI_raw(m, f, ".pragma \"nounroll\";", file, 13) == 1);
  const plI_stmt *s = m->funcs.p[f].stmts.p;
  CHECK(s[0].kind == PLS_LABEL && s[0].file == file && s[0].line == 12);
  CHECK_STR(plI_cstr(m, s[0].opc), "$L__1");
  CHECK(s[1].kind == PLS_RAW && s[1].line == 13);
  CHECK_STR(plI_cstr(m, s[1].opc), ".pragma \"nounroll\";");
  CHECK(plI_label(m, 3, 1, 0, 0) == -1);
  CHECK_STR(take_error(m, e, sizeof e), "no current function");
  plI_free(m);
}

static void test_instructions(void) {
  char e[256];
  plA_ctx *isa = plA_new();
  CHECK(isa != NULL);
  plI_module *m = plI_new(isa);
  plA_unref(isa); /* the module holds its own reference */
  int f = plI_func_new(m, "k", PLF_ENTRY, PLK_VISIBLE);
  uint32_t r1 = plI_reg_pool(m, f, "r", PLT_U32), r2 = plI_reg_pool(m, f, "r", PLT_U32);
  uint32_t p1 = plI_reg_pool(m, f, "p", PLT_PRED), p2 = plI_reg_pool(m, f, "p", PLT_PRED);
  uint32_t opc = plA_opcode(m->isa, "add.u32", 7);
  CHECK(opc != 0);
  CHECK_STR(plA_opcode_text(m->isa, opc), "add.u32");
  /* the operand kinds, as the binding builds them */
  plI_opnd el[2] = { { PLO_REG, 0, 0, r1, 0 }, { PLO_REG, 0, 0, r2, 0 } };
  uint32_t v0 = plI_opnd_push(m, &el[0]);
  plI_opnd_push(m, &el[1]);
  plI_opnd pq[2] = { { PLO_REG, 0, 0, p1, 0 }, { PLO_REG, 0, 0, p2, 0 } };
  uint32_t q0 = plI_opnd_push(m, &pq[0]);
  plI_opnd_push(m, &pq[1]);
  CHECK(v0 == 0 && q0 == 2 && m->opnds.n == 4);
  plI_opnd ops[] = {
    { PLO_REG, 0, 0, r1, 0 },
    { PLO_IMM, 0, 0, 0, (uint64_t)-5 },
    { PLO_IMM, PLOF_HEX, 0, 0, 0xff },
    { PLO_IMM, PLOF_UNSIGNED, 0, 0, UINT64_MAX },
    { PLO_F32, 0, 0, 0, 0x3F800000u },
    { PLO_F64, 0, 0, 0, 0x3FF0000000000000ull },
    { PLO_SYM, 0, 0, plI_str(m, "tile"), 0 },
    { PLO_ADDR, PLOF_BASE_REG, 0, r2, (uint64_t)-4 },
    { PLO_ADDR, PLOF_BASE_SYM, 0, plI_str(m, "x"), 8 },
    { PLO_ADDR, 0, 0, 0, 256 },
    { PLO_VEC, 0, 2, v0, 0 },
    { PLO_SINK, 0, 0, 0, 0 },
    { PLO_RAW, 0, 0, plI_str(m, "{%r1, %r2}"), 0 },
    { PLO_PAIR, 0, 2, q0, 0 },
    { PLO_LABEL, 0, 0, plI_str(m, "$done"), 0 },
    { PLO_SREG, 0, PLT_U32, plI_str(m, "tid.x"), 0 },
    { PLO_REG, PLOF_NEG, 0, p1, 0 },
  };
  int nops = (int)(sizeof ops / sizeof ops[0]);
  uint32_t file = plI_str(m, "k.lua");
  int si = plI_insn(m, f, opc, ops, nops, p1 + 1, 1, file, 42);
  CHECK(si == 0);
  const plI_stmt *s = &m->funcs.p[f].stmts.p[0];
  CHECK(s->kind == PLS_INSN && s->opc == opc && s->nops == nops && s->ops == 4);
  CHECK(s->guard == p1 + 1 && (s->flags & PLOF_NEG) && s->file == file && s->line == 42);
  CHECK(m->opnds.n == 4 + (uint32_t)nops);
  CHECK(memcmp(&m->opnds.p[4], ops, sizeof ops) == 0); /* copied as given */
  /* no operands, no guard */
  CHECK(plI_insn(m, f, plA_opcode(m->isa, "ret", 3), NULL, 0, 0, 0, 0, 0) == 1);
  CHECK(m->funcs.p[f].stmts.p[1].nops == 0 && m->funcs.p[f].stmts.p[1].guard == 0);
  /* bad function, bad operand lists */
  uint32_t nop = m->opnds.n;
  CHECK(plI_insn(m, 4, opc, ops, 2, 0, 0, 0, 0) == -1);
  CHECK_STR(take_error(m, e, sizeof e), "no current function");
  CHECK(plI_insn(m, f, opc, NULL, 2, 0, 0, 0, 0) == -1);
  CHECK_STR(take_error(m, e, sizeof e), "operands missing (NULL)");
  CHECK(plI_insn(m, f, opc, ops, -1, 0, 0, 0, 0) == -1);
  CHECK_STR(take_error(m, e, sizeof e), "too many operands");
  CHECK(m->opnds.n == nop && m->funcs.p[f].stmts.n == 2);
  plI_free(m);
}

static void test_sticky_status(void) {
  char e[256];
  plI_module *m = plI_new(NULL);
  int f = plI_func_new(m, "k", PLF_ENTRY, PLK_VISIBLE);
  uint32_t r = plI_reg_scalar(m, f, "r", PLT_U32);
  CHECK(r != 0);
  /* the first error is kept; later calls are no-ops that do not replace it */
  CHECK(plI_reg_scalar(m, f, "r", PLT_U32) == 0);
  CHECK(m->status == 1);
  uint32_t nregs = m->regs.n, nfun = m->funcs.n, nop = m->opnds.n;
  plI_opnd o = { PLO_REG, 0, 0, r, 0 };
  CHECK(plI_reg_scalar(m, f, "fresh", PLT_U32) == 0);
  CHECK(plI_reg_pool(m, f, "q", PLT_U32) == 0);
  CHECK(plI_reg_range(m, f, "w", PLT_U32, 2) == 0);
  CHECK(plI_func_new(m, "other", PLF_ENTRY, PLK_VISIBLE) == -1);
  CHECK(plI_param(m, f, "p", PLT_U32, 0, 0, 0) == -1);
  CHECK(plI_var_new(m, f, "s", PLV_SHARED, PLK_NONE, PLT_U32, 4, 1, NULL) == -1);
  CHECK(plI_insn(m, f, 1, &o, 1, 0, 0, 0, 0) == -1);
  CHECK(plI_label(m, f, plI_str(m, "$x"), 0, 0) == -1);
  CHECK(plI_raw(m, f, "// x", 0, 0) == -1);
  CHECK(plI_opnd_push(m, &o) == UINT32_MAX);
  CHECK(plI_fail(m, 7, "a later error") == 1);
  CHECK(m->regs.n == nregs && m->funcs.n == nfun && m->opnds.n == nop &&
        m->funcs.p[f].stmts.n == 0);
  CHECK_STR(take_error(m, e, sizeof e), "register name '%r' is already declared");
  /* once cleared, the module is usable again */
  CHECK(plI_reg_scalar(m, f, "fresh", PLT_U32) != 0);
  CHECK(plI_fail(m, 3, "code %d", 3) == 3);
  CHECK(m->status == 3);
  CHECK_STR(take_error(m, e, sizeof e), "code 3");
  plI_free(m);
}

static void test_nulls_and_bad_ids(void) {
  char e[256];
  plI_free(NULL);
  CHECK(plI_func_new(NULL, "k", PLF_ENTRY, PLK_VISIBLE) == -1);
  CHECK(plI_param(NULL, 0, "x", PLT_U32, 0, 0, 0) == -1);
  CHECK(plI_reg_scalar(NULL, 0, "x", PLT_U32) == 0);
  CHECK(plI_reg_range(NULL, 0, "x", PLT_U32, 2) == 0);
  CHECK(plI_reg_pool(NULL, 0, "x", PLT_U32) == 0);
  CHECK(plI_var_new(NULL, 0, "x", PLV_SHARED, PLK_NONE, PLT_U32, 4, 1, NULL) == -1);
  CHECK(plI_insn(NULL, 0, 1, NULL, 0, 0, 0, 0, 0) == -1);
  CHECK(plI_label(NULL, 0, 1, 0, 0) == -1);
  CHECK(plI_raw(NULL, 0, "x", 0, 0) == -1);
  CHECK(plI_opnd_push(NULL, NULL) == UINT32_MAX);
  CHECK(plI_str(NULL, "x") == 0);
  CHECK(plI_fail(NULL, 2, "x") == 2);
  plB_buf b;
  plB_buf_init(&b);
  plI_regname(NULL, 1, &b);
  CHECK_STR(plB_buf_cstr(&b), "%<bad>");
  plB_buf_free(&b);
  plI_regname(NULL, 1, NULL);

  plI_module *m = plI_new(NULL);
  int f = plI_func_new(m, "k", PLF_ENTRY, PLK_VISIBLE);
  CHECK(plI_func_new(m, NULL, PLF_ENTRY, PLK_VISIBLE) == -1);
  CHECK_STR(take_error(m, e, sizeof e), "a name is missing (NULL)");
  CHECK(plI_param(m, f, NULL, PLT_U32, 0, 0, 0) == -1);
  CHECK_STR(take_error(m, e, sizeof e), "a name is missing (NULL)");
  CHECK(plI_reg_scalar(m, f, NULL, PLT_U32) == 0);
  CHECK_STR(take_error(m, e, sizeof e), "bad register name '(null)'");
  CHECK(plI_reg_pool(m, f, NULL, PLT_U32) == 0);
  CHECK_STR(take_error(m, e, sizeof e), "bad register name '(null)'");
  CHECK(plI_reg_range(m, f, NULL, PLT_U32, 3) == 0);
  CHECK_STR(take_error(m, e, sizeof e), "bad register name '(null)'");
  CHECK(plI_var_new(m, f, NULL, PLV_SHARED, PLK_NONE, PLT_U32, 4, 1, NULL) == -1);
  CHECK_STR(take_error(m, e, sizeof e), "a name is missing (NULL)");
  CHECK(plI_raw(m, f, NULL, 0, 0) == -1);
  CHECK_STR(take_error(m, e, sizeof e), "a name is missing (NULL)");
  CHECK(plI_opnd_push(m, NULL) == UINT32_MAX);
  /* bad register and string ids */
  CHECK_STR(regname(m, 0), "%<bad>");
  CHECK_STR(regname(m, 999), "%<bad>");
  CHECK_STR(plI_cstr(m, 0), "");
  CHECK_STR(plI_cstr(m, 1u << 30), "");
  CHECK(m->status == 0);
  plI_free(m);
}

int main(void) {
  test_functions_and_params();
  test_registers();
  test_variables_labels_raw();
  test_instructions();
  test_sticky_status();
  test_nulls_and_bad_ids();
  return check_done("test_ir");
}
