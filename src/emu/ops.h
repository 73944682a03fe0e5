/* ops.h -- the semantics of one element (ops.c). */
#ifndef PL_EMU_OPS_H
#define PL_EMU_OPS_H

#include "state.h"

/* the element functions (isa_ops.h's last column), by operation, NULL for none */
extern const plX_elem_fn plX__elem[X__COUNT];
int      plX__mode(int rnd);
uint64_t plX__flush_bits(uint64_t r, int fmt);
/* x2: both halves */
uint64_t plX__fop(const plX_ins *in, int op, uint64_t A, uint64_t B, uint64_t C, int t);
int      plX__fcmp(int c, double a, double b);
int      plX__icmp(int c, uint64_t a, uint64_t b, int t);
int      plX__cmp_lane(const plX_ins *in, uint64_t A, uint64_t B, int half);
uint64_t plX__cvt(const plX_ins *in, uint64_t A);
uint64_t plX__cvtpack(const plX_ins *in, uint64_t A, uint64_t B);
uint64_t plX__mulhi(uint64_t a, uint64_t b, int t);
uint64_t plX__mulwide(uint64_t a, uint64_t b, int t);
uint64_t plX__brev(uint64_t v, int bits);
uint64_t plX__bfind(uint64_t a, int t, int shiftamt);
uint64_t plX__bfe(uint64_t a, uint32_t pos, uint32_t len, int t);
uint64_t plX__bfi(uint64_t a, uint64_t b, uint32_t pos, uint32_t len, int t);
uint32_t plX__prmt(uint32_t a, uint32_t b, uint32_t c, int mode);
uint64_t plX__sreg(plX_emu *e, plX_warp *w, int id, int l);
uint64_t plX__atom_op(const plX_ins *in, uint64_t old, uint64_t b, uint64_t c);

#endif
