/* isa.h -- the PTX ISA table: which instruction forms exist, their operands, and where.
** The table itself is data (isa_table.h); this is the matcher that reads it. */
#ifndef PL_ISA_H
#define PL_ISA_H

#include "util.h"
#include "types.h"

/* operand kinds a form accepts (bit mask) */
enum {
  PLA_KREG = 1,
  PLA_KIMM = 2,
  PLA_KADDR = 4,
  PLA_KLABEL = 8,
  PLA_KSYM = 16,
  PLA_KSREG = 32,
  PLA_KVEC = 64,
  PLA_KSINK = 128,
  PLA_KPAIR = 256,
  /* a parenthesized list (a, b) of any length (call's arguments and results) */
  PLA_KLIST = 512,
  PLA_KTADDR = 1024 /* a tensor address [tmap, {c, ...}] (cp.async.bulk.tensor) */
};
/* operand flags */
enum {
  PLA_DEST = 1,
  PLA_RELAXED = 2,
  PLA_OPTIONAL = 4,
  PLA_NEGOK = 8,
  PLA_VECV = 16, /* a vector iff the instruction has .vN (N registers) */
  PLA_VECX = 32, /* a vector of N registers, N from the instruction's .xN (ldmatrix .x4) */
  PLA_VECN = 64, /* a vector of N/vec registers, N from the shape .mMnNkK (wgmma) */
  /* a vector of D-vec registers, D from the dimension .Dd (cp.async.bulk.tensor) */
  PLA_VECD = 128,
  PLA_WRITE = 512, /* an address the instruction writes: never a function's input parameter */
  /* an address through a register only: ptxas takes no variable there (st.bulk.shared::cta) */
  PLA_REGADDR = 1024,
  /* a generic address a 32-bit register may give under .address_size 64 (st.bulk's: the
  ** .shared::cta window, which ptxas takes in a 32-bit register) */
  PLA_ADDR32 = 2048,
  /* an address in the instruction's own state space (its .global, .shared, ..., or generic when
  ** it names none): a .global or generic one is a 64-bit register under .address_size 64, and a
  ** variable's space must be the instruction's */
  PLA_SPACE = 256
};
/* register classes: which registers of the operand's width ptxas takes where the table says .bN
** (plain .bN takes any register of the width) */
enum { PLA_RC_ANY, PLA_RC_BITS, PLA_RC_HALF, PLA_RC_INT };
/* constraints on an immediate operand's value (bits of plA_opspec.ikind; the numbers are in the
** context's constraint at plA_opspec.ival): a multiple of K, within lo..hi, one of a list (of
** powers of two: a size), at most the immediate before it */
enum { PLA_IV_MULT = 1, PLA_IV_RANGE = 2, PLA_IV_SET = 4, PLA_IV_SIZES = 8, PLA_IV_LEPREV = 16 };
/* state spaces an instruction names (plA_res.space) */
enum { PLA_SP_GENERIC, PLA_SP_GLOBAL, PLA_SP_SHARED, PLA_SP_LOCAL, PLA_SP_PARAM, PLA_SP_CONST };
/* form flags: where a form exists beyond "sm_min or later" (a family is the sm numbers that
** share their tens: sm_100 and sm_103; sm_110; sm_120 and sm_121) */
enum {
  /* only on an arch-specific target (sm_90a, sm_100a, sm_103a) of its family */
  PLA_ARCH_A = 1,
  /* only on an arch- or family-specific target (sm_100a, sm_100f, ...) of its family */
  PLA_FAMILY_A = 2,
  PLA_BRANCH = 4, /* a control transfer: its label operand must be defined */
  /* only on arch- or family-specific targets (sm_XXa, sm_XXf), from sm_min on */
  PLA_SPECIFIC = 8,
  /* set by resolution, not in the table: the operand check looks at values (immediates, which
  ** variable an address names), not only at kinds and types */
  PLA_VALUES = 16,
  /* with PLA_ARCH_A / PLA_FAMILY_A of sm_100: the sm_110 family has it too (ptxas 13 gives
  ** sm_110a/f the tcgen05 forms, not sm_100's other ones) */
  PLA_SM110 = 32,
  PLA_NO103 = 64 /* not on sm_103a/f though its family has it (.kind::i8) */
};

/* the operation a form performs (isa_ops.h; the table's last column): what the emulator runs */
enum {
#define PL_OP(name, dec, arity, elem) PLA_OP_##name,
#include "isa_ops.h"
#undef PL_OP
  PLA_OP__COUNT,
  PLA_OP__ = PLA_OP_UNSUP /* the table's _: a form the emulator does not run */
};

#define PLA_MAXOPS  16
#define PLA_MAXMODS 24 /* modifiers of an opcode text (the matcher's limit) */
#define PLA_MAXALT  6

typedef struct plA_opspec {
  uint16_t kinds;
  uint8_t tsrc; /* 0: fixed type; 1..6: the Nth type modifier of the instruction */
  uint8_t type; /* fixed type, or PLT_NONE for "any" */
  uint16_t flags;
  uint8_t vec;    /* fixed vector length (0 = scalar unless PLA_VECV / PLA_VECX) */
  uint8_t rclass; /* PLA_RC_*: the registers a .bN operand takes */
  /* 0, or 1 + where the 0-ended list of modifiers that make this operand present
  ** (<.L2::cache_hint>, <$boolop>) starts; always 0 in a resolution */
  uint32_t cond;
  uint8_t ikind;    /* PLA_IV_* bits: constraints on an immediate's value, 0 for none */
  uint16_t ival;    /* where the constraint's numbers are in the context (1-based) */
  uint8_t gspace;   /* PLA_G_*: the space of a PLA_SPACE address */
  const char *role; /* the operand's name in messages (d, a, b, addr, cache-policy: PL_ROLES) */
} plA_opspec;
/* the state space a PLA_SPACE address is in: the opcode's first (generic when it names none), its
** second (cp.async.shared.global's source), .shared whatever the opcode says (an mbarrier object,
** which a generic address reaches only there), .global (prefetchu's generic address) */
enum { PLA_G_OWN, PLA_G_SECOND, PLA_G_SHARED, PLA_G_GLOBAL };

typedef struct plA_res {
  int form;         /* index in the form table */
  uint8_t types[6]; /* the instruction's type modifiers, in order */
  uint8_t ntypes;
  uint8_t vec;  /* .v2/.v4/.v8 width, 0 if none */
  uint8_t xn;   /* .x1/.x2/.x4 count, 0 if none */
  uint8_t dims; /* .1d ... .5d, 0 if none */
  uint16_t nn;  /* N of a shape .mMnNkK, 0 if none */
  uint16_t ptx_min, sm_min;
  uint16_t flags;
  uint32_t canon; /* the opcode id of the text with its modifiers in the form's order */
  uint16_t op;    /* PLA_OP_*: the form's operation (the table's last column) */
  uint8_t nmods;  /* the modifiers (types too), without the '.', in the form's order: */
  const char *mods[PLA_MAXMODS]; /* the table's own strings, alive with the context */
  uint8_t space;                 /* PLA_SP_*: the state space the opcode names */
  uint8_t space2;     /* PLA_SP_*: the second one it names (cp.async.shared.global: .global) */
  uint8_t nops, nopt; /* operand count, of which optional (the last ones are left out first) */
  const plA_opspec *ops;
  const char *pattern, *operands; /* for messages */
  /* later forms that match the same opcode text, told apart by their operands (mov.b32 d, {a, b});
  ** each with its own minimums, never below the first form's */
  uint8_t nalt;
  struct {
    const plA_opspec *ops;
    uint8_t nops, nopt;
    const char *operands;
    uint16_t ptx_min, sm_min, flags;
  } alt[PLA_MAXALT];
  /* operands of the form and its alternatives, conditional ones resolved */
  plA_opspec opbuf[PLA_MAXALT + 1][PLA_MAXOPS];
} plA_res;

typedef struct plA_ctx plA_ctx;

plA_ctx *plA_new(void);
void plA_ref(plA_ctx *c);
void plA_unref(plA_ctx *c);                                  /* frees at zero */
uint32_t plA_opcode(plA_ctx *c, const char *text, size_t n); /* intern; 0 on OOM */
const char *plA_opcode_text(const plA_ctx *c, uint32_t id);
uint32_t plA_opcode_len(const plA_ctx *c, uint32_t id);
/* resolve an opcode text to its form; NULL with a message in err when no form matches. ptxas
** reads modifiers in any order after the instruction's name (isa_table.h: PL_NAME, PL_ORDER), and
** so does this; r->canon is the same text in the form's order (what the emulator decodes). */
const plA_res *plA_resolve(plA_ctx *c, uint32_t id, plB_buf *err);
/* the opcode text in its form's order ("ldmatrix.sync.aligned.x4.m8n8.shared.b16" ->
** "ldmatrix.sync.aligned.m8n8.x4.shared.b16"); the text itself when it resolves to no form */
const char *plA_canonical(plA_ctx *c, uint32_t id);
/* the operands of a form as the PTX ISA names them: "d, [a], b{, cache-policy}" */
void plA_put_roles(plB_buf *b, const plA_opspec *ops, int nops, int nopt);
/* the operand type expected at position i when every operand is given */
int plA_optype(const plA_res *r, int i);
/* the operand type expected at position i of n given operands (optional ones left out) */
int plA_optype_n(const plA_res *r, int i, int n);
/* is the form available for this target and PTX version? 1 yes, 0 no (message in err) */
typedef struct plA_target {
  int sm;
  int arch_a;
  int version;
} plA_target;
int plA_target_parse(const char *s, plA_target *t); /* "sm_90a" -> sm=90, arch_a=1 */
int plA_target_min_version(const plA_target *t);
int plA_check_target(const plA_res *r, const char *opc, const plA_target *t, int check_version,
                     plB_buf *err);

/* an immediate operand's value constraint (plA_opspec.ival, 1-based; NULL for none): a multiple,
** a range, or a set of values */
#define PLA_MAXIVALS 6
typedef struct plA_ival {
  uint32_t mult;
  int64_t lo, hi;
  uint8_t nvals;
  int32_t vals[PLA_MAXIVALS];
} plA_ival;
const plA_ival *plA_ival_of(const plA_ctx *c, int ival);
/* which spec stands at each of n given operands (the last nops - n optional ones left out): 0 if
** none */
int plA_map_ops(const plA_opspec *ops, int nops, int n, uint8_t *idx);
/* the type operand o takes in the resolution r (PLT_NONE: none); r's target rule
** (plA_check_target) by parts */
int plA_spec_type(const plA_res *r, const plA_opspec *o);
int plA_target_ok(int sm_min, int flags, int ptx_min, const char *opc, const plA_target *t,
                  int check_version, plB_buf *err);

/* the table, for tests and generators */
int plA_form_count(void);
void plA_form_info(int i, const char **pattern, const char **operands, int *ptx_min, int *sm_min,
                   int *flags);
int plA_mod_count(void);
void plA_mod_info(int i, const char **base, const char **tok, int *ptx_min, int *sm_min);
/* special registers: the type and minimums of %name ("tid.x"); 0 if PTX has no such register */
int plA_sreg(const char *name, int *type, int *ptx_min, int *sm_min);
int plA_sreg_count(void);
void plA_sreg_info(int i, const char **name, int *type, int *ptx_min, int *sm_min,
                   const char **parts);
int plA_set_count(void);
void plA_set_info(int i, const char **name, const char **alts);
/* forms whose pattern or operand list did not compile (table bugs); the first bad index in
** *first */
int plA_bad_forms(const plA_ctx *c, int *first);

#endif
