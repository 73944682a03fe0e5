/* isa.h -- the PTX ISA table: which instruction forms exist, their operands, and where.
** The table itself is data (isa_table.h); this is the matcher that reads it. */
#ifndef PL_ISA_H
#define PL_ISA_H

#include "util.h"
#include "types.h"

/* operand kinds a form accepts (bit mask) */
enum {
  PLA_KREG = 1, PLA_KIMM = 2, PLA_KADDR = 4, PLA_KLABEL = 8, PLA_KSYM = 16, PLA_KSREG = 32,
  PLA_KVEC = 64, PLA_KSINK = 128, PLA_KPAIR = 256
};
/* operand flags */
enum { PLA_DEST = 1, PLA_RELAXED = 2, PLA_OPTIONAL = 4, PLA_NEGOK = 8, PLA_VECV = 16 /* vector iff .vN */ };
/* form flags */
enum {
  PLA_ARCH_A = 1,      /* needs the arch-specific target of its sm (sm_90a) */
  PLA_FAMILY_A = 2,    /* needs an arch-specific target of the sm_100 family (sm_100a, sm_101a, sm_103a) */
  PLA_BRANCH = 4,      /* a control transfer: its label operand must be defined */
  PLA_MAXSM = 8        /* only up to the sm in `maxsm` */
};

typedef struct plA_opspec {
  uint16_t kinds;
  uint8_t tsrc;   /* 0: fixed type; 1..4: the Nth type modifier of the instruction */
  uint8_t type;   /* fixed type, or PLT_NONE for "any" */
  uint8_t flags;
  uint8_t vec;    /* fixed vector length (0 = scalar unless PLA_VECV) */
} plA_opspec;

typedef struct plA_res {
  int form;               /* index in the form table */
  uint8_t types[6];       /* the instruction's type modifiers, in order */
  uint8_t ntypes;
  uint8_t vec;            /* .v2/.v4/.v8 width, 0 if none */
  uint16_t ptx_min, sm_min;
  uint16_t flags;
  uint8_t nops, nopt;     /* operand count, of which optional (trailing) */
  const plA_opspec *ops;
  const char *pattern, *operands; /* for messages */
  /* further forms with the same modifiers but other operands (mov.b32 d, {a, b}) */
  uint8_t nalt;
  struct { const plA_opspec *ops; uint8_t nops, nopt; const char *operands; } alt[4];
} plA_res;

typedef struct plA_ctx plA_ctx;

plA_ctx *plA_new(void);
void     plA_ref(plA_ctx *c);
void     plA_unref(plA_ctx *c);          /* frees at zero */
uint32_t plA_opcode(plA_ctx *c, const char *text, size_t n); /* intern; 0 on OOM */
const char *plA_opcode_text(const plA_ctx *c, uint32_t id);
uint32_t plA_opcode_len(const plA_ctx *c, uint32_t id);
/* resolve an opcode text to its form; NULL with a message in err when no form matches */
const plA_res *plA_resolve(plA_ctx *c, uint32_t id, plU_buf *err);
/* the operand type expected at position i */
int plA_optype(const plA_res *r, int i);
/* is the form available for this target and PTX version? 1 yes, 0 no (message in err) */
typedef struct plA_target { int sm; int arch_a; int version; } plA_target;
int plA_target_parse(const char *s, plA_target *t); /* "sm_90a" -> sm=90, arch_a=1 */
int plA_target_min_version(const plA_target *t);
int plA_check_target(const plA_res *r, const char *opc, const plA_target *t, int check_version, plU_buf *err);

/* check the operands of an instruction against its form; 1 ok, 0 with a message */
struct plI_module; struct plI_opnd;
int plA_check_ops(const plA_res *r, const struct plI_module *m, const char *opc,
                  const struct plI_opnd *ops, int n, plU_buf *err);

/* the table, for tests and generators */
int plA_form_count(void);
void plA_form_info(int i, const char **pattern, const char **operands, int *ptx_min, int *sm_min, int *flags);
int plA_set_count(void);
void plA_set_info(int i, const char **name, const char **alts);

#endif
