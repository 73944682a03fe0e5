/* print.h -- the PTX printer: IR -> text, deterministic, laid out the way nvcc lays PTX out. */
#ifndef PL_PRINT_H
#define PL_PRINT_H

#include "ir.h"

enum { PLP_ANCHOR_NONE, PLP_ANCHOR_COMMENT, PLP_ANCHOR_LOC };

typedef struct plP_opts {
  int anchors;          /* PLP_ANCHOR_* */
  const char *header;   /* first comment block text (NULL: the default) */
  int func;             /* print only this function (-1: all) */
} plP_opts;

/* a sink receives the text in pieces; return 0 to stop (an I/O error) */
typedef int (*plP_sink)(void *ud, const char *s, size_t n);

int plP_print(const plI_module *m, const plP_opts *o, plU_buf *out);            /* 0 ok */
int plP_write(const plI_module *m, const plP_opts *o, plP_sink sink, void *ud);  /* streaming */
void plP_operand(const plI_module *m, const plI_opnd *op, plU_buf *b);
/* one instruction as the printer writes it, without its indentation and newline, `gap` between
** the opcode and the operands (the printer's is " \t"): `@%p1 bra \t$L__BB0_2;` */
void plP_insn(const plI_module *m, const plI_stmt *s, const char *gap, size_t ngap, plU_buf *b);
/* a register declaration's line, a function variable's line (`\t.reg .b32 \t%r<5>;\n`) */
void plP_decl(const plI_module *m, const plI_regdecl *d, plU_buf *b);
void plP_var(const plI_module *m, const plI_var *v, plU_buf *b);

#endif
