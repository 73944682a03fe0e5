/* print.h -- the PTX printer: IR -> text, deterministic, laid out the way nvcc lays PTX out. */
#ifndef PL_PRINT_H
#define PL_PRINT_H

#include "ir.h"

enum { PLI_ANCHOR_NONE, PLI_ANCHOR_COMMENT, PLI_ANCHOR_LOC };

typedef struct plI_print_opts {
  int anchors;        /* PLI_ANCHOR_* */
  const char *header; /* first comment block text (NULL: the default) */
  int func;           /* print only this function (-1: all) */
} plI_print_opts;

/* a sink receives the text in pieces; return 0 to stop (an I/O error) */
typedef int (*plI_print_sink)(void *ud, const char *s, size_t n);

int plI_print(const plI_module *m, const plI_print_opts *o, plB_buf *out); /* 0 ok */
/* streaming */
int plI_write(const plI_module *m, const plI_print_opts *o, plI_print_sink sink, void *ud);
void plI_print_operand(const plI_module *m, const plI_opnd *op, plB_buf *b);
/* one instruction as the printer writes it, without its indentation and newline, `gap` between
** the opcode and the operands (the printer's is " \t"): `@%p1 bra \t$L__BB0_2;` */
void plI_print_insn(const plI_module *m, const plI_stmt *s, const char *gap, size_t ngap,
                    plB_buf *b);
/* a register declaration's line, a function variable's line (`\t.reg .b32 \t%r<5>;\n`) */
void plI_print_decl(const plI_module *m, const plI_regdecl *d, plB_buf *b);
void plI_print_var(const plI_module *m, const plI_var *v, plB_buf *b);

#endif
