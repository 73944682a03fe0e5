/* parse_lint.c -- the PTX linter: the ISA table run over a parsed module. Reports what it knows to
** be wrong (undeclared registers and symbols, unknown opcodes and modifiers, wrong operands, forms
** the .target or .version lacks, targets the toolkit dropped) and stays silent on instructions the
** table does not model, so that what it rejects, ptxas rejects too. */
#include "parse.h"
#include "isa.h"
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

/* PTX instructions the ISA table has no forms for: never reported as unknown */
static const char *const OTHER[] = {
  "call", "tcgen05", "clusterlaunchcontrol", "multimem", "stacksave", "stackrestore", "alloca", "tex",
  "tld4", "suld", "sust", "sured", "suq", "txq", "istypep", "wmma", "vadd", "vsub", "vabsdiff", "vmin",
  "vmax", "vshl", "vshr", "vmad", "vset", "vadd2", "vsub2", "vavrg2", "vabsdiff2", "vmin2", "vmax2",
  "vset2", "vadd4", "vsub4", "vavrg4", "vabsdiff4", "vmin4", "vmax4", "vset4", "st", "ld", "cp", "red",
  "ex2", "fma", "cvt", "mov", "getctarank", "mapa", "elect", "mbarrier", "barrier", "bar", "fence",
  "membar", "cvta", "prefetch", "applypriority", "discard", "createpolicy", "isspacep", "ldu", "setmaxnreg",
  "griddepcontrol", "tensormap", "wgmma", "mma", "ldmatrix", "stmatrix", "movmatrix", "shfl", "vote",
  "match", "redux", "activemask", "nanosleep", "pmevent", "trap", "brkpt", "exit", "ret", "bra", "brx",
  "cp.async", "atom", "testp", "copysign", "tanh", "cos", "sin", "lg2", "rcp", "rsqrt", "sqrt", "div",
  "rem", "abs", "neg", "min", "max", "add", "sub", "mul", "mad", "mul24", "mad24", "sad", "popc", "clz",
  "bfind", "fns", "brev", "bfe", "bfi", "bmsk", "szext", "dp4a", "dp2a", "and", "or", "xor", "not",
  "cnot", "lop3", "shf", "shl", "shr", "prmt", "selp", "slct", "set", "setp", "addc", "subc", "madc",
  "mad.wide", "st.async", "red.async", "cp.reduce", "fence.proxy", "bar.warp", NULL
};

typedef struct LT {
  plI_module *m; const char *file; plU_buf *out; int n;
  plA_target t; int have_t;
  plU_buf msg;
} LT;

static void report(LT *l, uint32_t off, const char *fmt, const char *a, const char *b) {
  int line, col;
  plR_linecol(l->m, off, &line, &col);
  plU_buf_printf(l->out, "%s:%d:%d: error: ", l->file, line, col);
  plU_buf_printf(l->out, fmt, a, b);
  plU_buf_putc(l->out, '\n');
  l->n++;
}

static int base_known(const char *opc, size_t *blen) {
  size_t n = strcspn(opc, ".");
  *blen = n;
  for (int i = 0; OTHER[i]; i++) if (strlen(OTHER[i]) == n && memcmp(OTHER[i], opc, n) == 0) return 1;
  return 0;
}

/* the table's bases: what plA_resolve models (a failure there is a real error) */
static int base_in_table(const char *opc, size_t n) {
  for (int i = 0; i < plA_form_count(); i++) {
    const char *p, *o; int a, b, c;
    plA_form_info(i, &p, &o, &a, &b, &c);
    if (p && strncmp(p, opc, n) == 0 && (p[n] == '.' || p[n] == '{' || p[n] == 0 || p[n] == ' ')) return 1;
  }
  return 0;
}

static int sym_declared(const plI_module *m, const plI_func *f, uint32_t id) {
  for (uint32_t i = 0; i < f->params.n; i++) if (f->params.p[i].name == id) return 1;
  for (uint32_t i = 0; i < f->rets.n; i++) if (f->rets.p[i].name == id) return 1;
  for (uint32_t i = 0; i < f->vars.n; i++) if (f->vars.p[i].name == id) return 1;
  for (uint32_t i = 0; i < m->globals.n; i++) if (m->globals.p[i].name == id) return 1;
  for (uint32_t i = 0; i < m->funcs.n; i++) if (m->funcs.p[i].name == id) return 1;
  return 0;
}

int plR_lint(plI_module *m, const char *file, plU_buf *out) {
  LT l;
  memset(&l, 0, sizeof l);
  l.m = m; l.file = file; l.out = out;
  plU_buf_init(&l.msg);
  const char *tg = plI_cstr(m, m->target);
  uint32_t toff = 0;
  { const char *p = m->vsrc.p ? strstr(m->vsrc.p, ".target") : NULL; if (p) toff = (uint32_t)(p - m->vsrc.p); }
  if (!*tg) report(&l, 0, "the module has no .target%s%s", "", "");
  else if (!plA_target_parse(tg, &l.t)) report(&l, toff, "unknown target '%s' (sm_75 ... sm_121, with a or f for arch- or family-specific forms)%s", tg, "");
  else {
    l.have_t = 1;
    if (l.t.sm < 75) report(&l, toff, "target %s is not supported by ptxas 13 (CUDA 13 dropped Maxwell, Pascal and Volta; use sm_75 or later)%s", tg, "");
    int minv = plA_target_min_version(&l.t);
    if (m->version && m->version < minv) {
      char a[32], b[96];
      snprintf(a, sizeof a, "%d.%d", m->version / 10, m->version % 10);
      snprintf(b, sizeof b, "%s needs .version %d.%d or later", tg, minv / 10, minv % 10);
      report(&l, toff, "PTX .version %s does not support .target %s", a, b);
    }
    l.t.version = m->version;
  }
  for (uint32_t fi = 0; fi < m->funcs.n; fi++) {
    plI_func *f = &m->funcs.p[fi];
    for (uint32_t si = 0; si < f->stmts.n; si++) {
      const plI_stmt *s = &f->stmts.p[si];
      if (s->kind != PLS_INSN) continue;
      uint32_t off = si < f->vtext.n ? f->vtext.p[si].tok : 0;
      const char *opc = plA_opcode_text(m->isa, s->opc);
      if (s->flags & 0x80) report(&l, off, "the guard of '%s' is not a declared predicate register%s", opc, "");
      int raw = 0, bad = 0;
      for (uint16_t k = 0; k < s->nops; k++) {
        const plI_opnd *o = &m->opnds.p[s->ops + k];
        const plI_opnd *el = o;
        uint16_t ne = 1;
        if (o->kind == PLO_VEC || o->kind == PLO_PAIR) { el = &m->opnds.p[o->id]; ne = o->kind == PLO_PAIR ? 2 : o->n; }
        for (uint16_t e = 0; e < ne; e++) {
          const plI_opnd *x = &el[e];
          if (x->kind == PLO_RAW) {
            const char *t = plI_cstr(m, x->id);
            raw = 1;
            /* %name or [%name...] whose name is a plain identifier (not %clusterid.w, not [%rd1, {...}]) */
            const char *c = t + (t[0] == '[');
            char nm[96]; size_t q = 0;
            if (*c == '%') nm[q++] = *c++;
            while (*c && q < sizeof nm - 1 && ((*c >= 'a' && *c <= 'z') || (*c >= 'A' && *c <= 'Z') || (*c >= '0' && *c <= '9') || *c == '_' || *c == '$')) nm[q++] = *c++;
            nm[q] = 0;
            int plain = q > 1 && (t[0] == '[' ? *c == ']' : *c == 0);
            if (t[0] == '%' ? plain : (t[0] == '[' && t[1] == '%' && plain)) {
              report(&l, off, "'%s' is not a declared register (in '%s')", nm, opc);
              bad = 1;
            }
          } else if (x->kind == PLO_SREG && strncmp(opc, "mov", 3) != 0) {
            raw = 1;     /* the table's operand kinds do not list every place a special register may go */
          } else if (x->kind == PLO_ADDR && (x->flags & PLOF_BASE_REG) && m->address_size == 64 && x->id && x->id <= m->regs.n
                     && plT_info_tab[m->regs.p[x->id - 1].type < PLT__COUNT ? m->regs.p[x->id - 1].type : 0].bits == 32
                     && !strstr(opc, ".shared") && !strstr(opc, ".local") && !strstr(opc, ".param") && !strstr(opc, ".const")
                     && !strstr(opc, ".global")) {
            report(&l, off, "a 32-bit address register in a generic address of '%s' under .address_size 64%s", opc, " (ptxas: conflicting with .address_size)");
            bad = 1;
          } else if (x->kind == PLO_ADDR && (x->flags & PLOF_BASE_SYM) && !sym_declared(m, f, x->id)) {
            report(&l, off, "'%s' is not declared (in '%s'): a parameter, variable or function name goes here", plI_cstr(m, x->id), opc);
            bad = 1;
          }
        }
      }
      if (bad) continue;
      size_t blen;
      l.msg.n = 0;
      const plA_res *r = plA_resolve(m->isa, s->opc, &l.msg);
      if (!r) {
        if (base_in_table(opc, strcspn(opc, ".")) && strncmp(opc, "st.async", 8) != 0 && strncmp(opc, "red.async", 9) != 0)
          report(&l, off, "%s%s", plU_buf_cstr(&l.msg), "");
        else if (!base_known(opc, &blen) && !base_in_table(opc, strcspn(opc, ".")))
          report(&l, off, "unknown instruction '%s'%s", opc, "");
        continue;
      }
      if (l.have_t) {
        l.msg.n = 0;
        if (!plA_check_target(r, opc, &l.t, 1, &l.msg)) {
          /* the table marks some forms sm_90a-only that later arch-specific targets also have */
          if (!(strstr(plU_buf_cstr(&l.msg), "exists only on the arch-specific") && l.t.arch_a && l.t.sm > 90))
            report(&l, off, "%s%s", plU_buf_cstr(&l.msg), "");
          continue;
        }
      }
      if (raw) continue;
      l.msg.n = 0;
      if (!plA_check_ops(r, m, opc, s->nops ? &m->opnds.p[s->ops] : NULL, s->nops, &l.msg)) {
        const char *msg = plU_buf_cstr(&l.msg);
        /* immediates for predicates (wgmma scale-d, mov.pred) and .reg parameters used by name:
        ** legal PTX the table's operand kinds do not cover yet */
        if (!strstr(msg, "got an immediate") && !strstr(msg, "got a symbol")) report(&l, off, "%s%s", msg, "");
      }
    }
  }
  plU_buf_free(&l.msg);
  return l.n;
}
