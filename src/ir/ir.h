/* ir.h -- the trace IR: one module of PTX, as the DSL records it and the parser reads it.
** Flat arrays of small records; strings interned; no pointers between records, only ids. */
#ifndef PL_IR_H
#define PL_IR_H

#include "util.h"
#include "types.h"
#include "isa.h"

/* operand kinds */
enum {
  PLO_NONE,
  PLO_REG,
  PLO_IMM,
  PLO_F32,
  PLO_F64,
  PLO_SYM,
  PLO_ADDR,
  PLO_VEC,
  PLO_SINK,
  PLO_RAW,
  PLO_PAIR,  /* p|q: two operands at id, id+1 of the pool */
  PLO_LABEL, /* id: label name string */
  PLO_SREG,  /* id: special register name string ("tid.x"), n: its type */
  /* [tmap, {c0, c1, ...}]: a tensor address (cp.async.bulk.tensor); the pool holds the base (a
  ** symbol or register) at id, then its n coordinates (registers or immediates) */
  PLO_TADDR
};
/* operand flags */
enum {
  PLOF_NEG = 1,       /* !p */
  PLOF_HEX = 2,       /* integer immediate printed in hex */
  PLOF_BASE_REG = 4,  /* ADDR: id is a register */
  PLOF_BASE_SYM = 8,  /* ADDR: id is a symbol string; neither: absolute address v */
  PLOF_UNSIGNED = 16, /* IMM: print as unsigned (v is uint64) */
  PLOF_PAREN = 32,    /* VEC: a parenthesized list, as call writes its arguments: (a, b) */
  /* VEC: every element a register, their ids a run of m->vregs from id (4 bytes an element, not
  ** a 16-byte operand each: how the DSL records register vectors); read the elements of any VEC
  ** with plI_elem */
  PLOF_REGS = 64
};

typedef struct plI_opnd {
  uint8_t kind, flags;
  uint16_t n;  /* VEC: element count */
  uint32_t id; /* REG: register id; SYM/RAW: string id; ADDR: base; VEC/PAIR: first element */
  uint64_t v;  /* IMM: value; F32/F64: bits; ADDR: offset (int64) */
} plI_opnd;

/* statement kinds */
enum { PLS_INSN, PLS_LABEL, PLS_RAW };

typedef struct plI_stmt {
  uint8_t kind, flags; /* flags: PLOF_NEG on the guard */
  uint16_t nops;
  uint32_t opc;   /* INSN: opcode id (ISA context); LABEL: name string; RAW: text string */
  uint32_t ops;   /* first operand in the module's pool */
  uint32_t guard; /* register id + 1, 0 = unguarded */
  uint32_t file;  /* anchor: file string id (0 = none) */
  uint32_t line;
} plI_stmt;

typedef struct plI_reg {
  uint32_t name; /* base name string id */
  int32_t index; /* element index in a %name<N> range, -1 for a scalar */
  uint8_t type;  /* logical type (bf16 kept as bf16) */
  uint8_t bare;  /* named without '%' (`.reg .pred p;`, as inline asm writes scoped names) */
  uint32_t func; /* owning function */
} plI_reg;

typedef struct plI_regdecl {
  uint32_t name;  /* base name */
  uint32_t count; /* 0: scalar %name; else %name<count> */
  uint8_t type;   /* PTX declaration type */
  uint8_t pool;   /* a pool of generated registers (%f1, %f2, ...), grown as they are handed out */
  uint8_t bare;   /* the name has no '%' */
  /* printed elsewhere by whoever lays the body out (a sugared script's sugar.regs) */
  uint8_t laid;
  /* 0: the function's top; else 1 + the index of the `{` statement opening the nested block it
  ** is declared in (printed at the top of that block) */
  uint32_t scope;
  uint32_t off; /* a parsed module: the source offset of its name (0 otherwise) */
} plI_regdecl;

/* state spaces of variables and parameters */
enum { PLV_GLOBAL, PLV_SHARED, PLV_CONST, PLV_LOCAL, PLV_PARAM };
enum { PLK_NONE, PLK_VISIBLE, PLK_EXTERN, PLK_WEAK, PLK_COMMON };

typedef struct plI_var {
  uint32_t name;
  uint8_t space, linkage, type, ptr; /* ptr: param is a pointer (.ptr) -- reserved */
  uint32_t align;                    /* 0 = natural */
  uint64_t count;                    /* 0 = scalar; UINT64_MAX = unsized [] */
  uint32_t init;                     /* initializer text string id ("{1, 2}"), 0 = none */
  uint32_t file, line;
  /* a parsed function body's variable: 0 the body's top, else 1 + the index of the `{` statement
  ** of its nested block; and its name's source offset (0: not parsed) */
  uint32_t scope, off;
} plI_var;

enum { PLF_ENTRY, PLF_FUNC };

/* verbatim layout (a parsed module): spans of m->vsrc, the text as it was read, so that the
** printer gives a file back byte for byte; a statement without a span prints canonically */
/* tok: first token's offset */
typedef struct plI_span {
  uint32_t off, len;
  uint32_t tok;
} plI_span;
enum { PLI_PIECE_TEXT, PLI_PIECE_FUNC };
typedef struct plI_piece {
  uint32_t kind, func;
  plI_span text;
} plI_piece;

typedef struct plI_func {
  uint32_t name;
  uint8_t kind, linkage, noreturn, explicitcluster;
  PLB_VEC(plI_var) params;
  PLB_VEC(plI_var) rets;
  uint32_t maxntid[3], reqntid[3], reqnctapercluster[3];
  uint32_t minnctapersm, maxnreg, maxclusterrank;
  PLB_VEC(plI_regdecl) regdecls;
  PLB_VEC(plI_var) vars; /* function-scope .shared/.local */
  PLB_VEC(plI_stmt) stmts;
  uint32_t file, line;
  int declared_only;       /* a prototype with no body */
  PLB_VEC(plI_span) vtext; /* verbatim: the text of each statement (parallel to stmts), or none */
  plI_span vhead, vtail;   /* verbatim: header through '{', and the closing '}' line */
} plI_func;

struct plA_ctx;

typedef struct plI_frame {
  uint32_t stmt, undo, decl0, reg0;
} plI_frame;
typedef struct plI_undo {
  uint32_t name;
  uint64_t old;
} plI_undo;

typedef struct plI_module {
  struct plA_ctx *isa; /* opcode names and forms (shared, refcounted) */
  plB_strtab strs;
  int version;     /* 10*major + minor, e.g. 80 */
  uint32_t target; /* string id, e.g. "sm_90a" */
  int address_size;
  PLB_VEC(plI_func) funcs;
  PLB_VEC(plI_var) globals;
  PLB_VEC(plI_reg) regs;
  PLB_VEC(plI_opnd) opnds;
  PLB_VEC(uint32_t) vregs; /* register ids of the PLOF_REGS vectors */
  uint32_t cur;            /* current function index */
  uint64_t *declmap;       /* string id -> (func, register declaration) */
  uint32_t declmap_n;
  int status;  /* sticky: 0 ok, else first error code */
  plB_buf err; /* first error's message */
  /* nested blocks being traced (plI_scope_open/close): each open block's `{` statement, where
  ** its declarations begin, and how far back the declaration map is restored when it closes */
  PLB_VEC(plI_frame) frames;
  PLB_VEC(plI_undo) undo;
  /* verbatim: the source text a parser read (empty for a traced module) */
  plB_buf vsrc;
  uint32_t nvars;             /* variables and parameters declared so far (every push counts one) */
  struct plI_symidx *symidx;  /* the symbol index (plI_sym), made for nvars declarations */
  PLB_VEC(plI_piece) vpieces; /* verbatim: the module in source order, text between functions */
} plI_module;

/* what the declarations of a name say across the module, for the checks that look a symbol up */
typedef struct plI_syminfo {
  uint32_t name;
  uint8_t vspaces;  /* bit 1 << space (PLV_GLOBAL .. PLV_PARAM) of each variable named so */
  uint8_t params;   /* 1: an input parameter of some function, 2: a result of some function */
  uint8_t global;   /* 1: a module-scope variable */
  uint8_t gspace;   /* the space of the first module-scope variable named so */
  uint8_t local;    /* 1: a variable of some function */
  uint8_t func;     /* 1: a function's name */
  int32_t fdef0;    /* the first function of this name with a body (not only declared), -1 none */
  int32_t param_fn; /* the last function with an input parameter of this name, -1 none */
  int32_t flast;    /* the last function of this name (a definition or a declaration), -1 none */
} plI_syminfo;
/* the declarations named `name` in m (NULL: none): an index made once for the module as it is,
** and again only after declarations were added (linear in the module, whatever the number of
** lookups) */
const plI_syminfo *plI_sym(const plI_module *m, uint32_t name);

plI_module *plI_new(struct plA_ctx *isa);
void plI_free(plI_module *m);
uint32_t plI_str(plI_module *m, const char *s); /* intern; 0 on OOM */
static inline const char *plI_cstr(const plI_module *m, uint32_t id) {
  return id && id < m->strs.n ? m->strs.str[id] : "";
}

/* functions */
int plI_func_new(plI_module *m, const char *name, int kind, int linkage); /* index or -1 */
int plI_param(plI_module *m, int func, const char *name, int type, uint32_t align, uint64_t count,
              int ret);
/* registers: returns the first register id (count consecutive for a range) or 0 on error */
uint32_t plI_reg_scalar(plI_module *m, int func, const char *name, int type);
uint32_t plI_reg_range(plI_module *m, int func, const char *name, int type, uint32_t count);
uint32_t plI_reg_pool(plI_module *m, int func, const char *prefix, int type); /* next %prefixN */
/* bytes a function's variables of a space take laid out in declaration order, each at its
** alignment (0: natural), as ptxas counts them: its static (not .extern) .shared variables, or its
** parameters (PLV_PARAM: the kernel parameter space); extra: one more variable's end, or NULL */
uint64_t plI_space_bytes(const plI_module *m, uint32_t func, int space, const plI_var *extra);
/* where variable v ends laid out after off bytes (at its alignment): plI_space_bytes one at a
** time */
uint64_t plI_var_end(uint64_t off, const plI_var *v);
/* a scalar or range (count > 0) named without '%' (`.reg .pred p;`) */
uint32_t plI_reg_bare(plI_module *m, int func, const char *name, int type, uint32_t count);
/* a range %name<count> (name without '%' if bare) whose registers are made only as they are used:
** returns its declaration's index in the function + 1 (a file declares %r<100000> and uses ten);
** plI_reg_elem makes register `index` of it (once: the caller keeps the id) and returns its id */
uint32_t plI_reg_range_lazy(plI_module *m, int func, const char *name, int type, uint32_t count,
                            int bare);
uint32_t plI_reg_elem(plI_module *m, int func, uint32_t decl, int type, uint32_t index);

/* nested blocks (`{ ... }`) of the function being traced: open records the `{` statement, and the
** registers declared until the matching close are the block's (printed at its top, visible only
** inside it, free to reuse an enclosing block's names: ptxas lets an inner declaration hide an
** outer one); close records the `}`. Returns the statement index, or -1. */
int plI_scope_open(plI_module *m, int func, uint32_t file, uint32_t line);
int plI_scope_close(plI_module *m, int func, uint32_t file, uint32_t line);
/* the scope a declaration made now belongs to: 0 (the function's top) or 1 + its `{` statement */
static inline uint32_t plI_scope_cur(const plI_module *m) {
  return m->frames.n ? m->frames.p[m->frames.n - 1].stmt + 1 : 0;
}
int plI_var_new(plI_module *m, int func, const char *name, int space, int linkage, int type,
                uint32_t align, uint64_t count, const char *init); /* func -1: module scope */

/* statements; return the statement index or -1 */
int plI_insn(plI_module *m, int func, uint32_t opc, const plI_opnd *ops, int nops, uint32_t guard,
             int negguard, uint32_t file, uint32_t line);
int plI_label(plI_module *m, int func, uint32_t name, uint32_t file, uint32_t line);
int plI_raw(plI_module *m, int func, const char *text, uint32_t file, uint32_t line);
uint32_t plI_opnd_push(plI_module *m, const plI_opnd *o); /* index, or UINT32_MAX on OOM */

/* element k of the vector (VEC), pair (PAIR) or tensor address (TADDR) o, as an operand record:
** a compact register vector's elements come back as PLO_REG records. The caller checks k against
** the element count (plI_elems_ok says whether the elements lie within the pools). */
static inline plI_opnd plI_elem(const plI_module *m, const plI_opnd *o, uint32_t k) {
  if (o->kind == PLO_VEC && (o->flags & PLOF_REGS)) {
    plI_opnd e = { PLO_REG, 0, 0, m->vregs.p[o->id + k], 0 };
    return e;
  }
  return m->opnds.p[o->id + k];
}
static inline int plI_elems_ok(const plI_module *m, const plI_opnd *o, uint32_t n) {
  if (o->kind == PLO_VEC && (o->flags & PLOF_REGS))
    return o->id <= m->vregs.n && n <= m->vregs.n - o->id;
  return o->id <= m->opnds.n && n <= m->opnds.n - o->id;
}

/* sticky error */
int plI_fail(plI_module *m, int code, const char *fmt, ...);

/* name of register `id` into buf ("%f12") */
void plI_regname(const plI_module *m, uint32_t id, plB_buf *b);

/* check.c: check the operands of an instruction against its form and, failing that, its
** alternatives (an alternative must also suit the module's target). 0 with a message when none
** takes them; else the PTX version the operand form that took them needs (>= r->ptx_min). */
int plI_check_ops(const plA_res *r, const plI_module *m, const char *opc, const plI_opnd *ops,
                  int n, plB_buf *err);

#endif
