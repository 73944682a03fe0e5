/* isa_ops.h -- the operations an instruction form performs, one row each (as LuaJIT's IRDEF):
** the ISA table names one per form (isa_table.h, PL_FORM's last column: _ for a form the emulator
** does not run), the ISA enumerates them (PLA_OP_*, isa.h), and the emulator generates from the
** same rows its operation enum (X_*), its decoders and its element functions (src/emu/).
** No include guard: include it with PL_OP defined.
**
** PL_OP(name, decoder, arity, element)
**   decoder  the emulator's decoder of the form's modifiers, dec_<decoder> in src/emu/decode.c;
**            it sets the decoded operation (the row's own, or one it refines to: an add of
**            floats is FADD, an and of predicates PAND) and the fields it needs
**   arity    the operand count when the form's operand specs bind the operands (the first
**            destination d, then the sources a, b, c, e, each of its spec's type); 0 when the
**            decoder's operation binds its own (src/emu/decode.c, dec_ops)
**   element  _, or the name of a function of one lane's values, E_<element> in src/emu/ops.c:
**            d = E(in, a, b, c) for every active lane (src/emu/exec.c runs it)
** Rows after which the decoders refine (PAND, MOVSREG, ...) are named by no form. */

PL_OP(UNSUP, none, 0, _)    /* what the table's _ names: "<opcode> is not emulated" */
PL_OP(NOP, nop, 0, _)       /* no effect (what prefetch, membar, brkpt lower to) */
PL_OP(ADD, addsub, 3, _)    /* add, add.cc (integer; .f32, .f64, .f16: FADD) */
PL_OP(SUB, addsub, 3, _)    /* sub, sub.cc */
PL_OP(ADDSAT, addsub, 3, _) /* add.sat.s32 */
PL_OP(SUBSAT, addsub, 3, _) /* sub.sat.s32 */
PL_OP(ADDC, addsub, 3, _)   /* addc: add with the carry in (.cc: and out) */
PL_OP(SUBC, addsub, 3, _)   /* subc */
PL_OP(MULLO, mul, 3, _)     /* mul.lo (mul.hi: MULHI) */
PL_OP(MULHI, mul, 3, _)
PL_OP(MULWIDE, mul, 3, _) /* mul.wide */
PL_OP(MADLO, mul, 4, _)   /* mad.lo, mad.hi, mad.cc (with .cc: MADC) */
PL_OP(MADHI, mul, 4, _)
PL_OP(MADWIDE, mul, 4, _) /* mad.wide */
PL_OP(MADC, mul, 4, _)    /* madc, mad.cc: with the carry in and/or out */
PL_OP(MUL24, mul24, 3, _)
PL_OP(MAD24, mul24, 4, _)
PL_OP(SAD, plain, 4, _)
PL_OP(DIV, div, 3, _) /* integer division (floats: FDIV) */
PL_OP(REM, plain, 3, _)
PL_OP(ABS, absneg, 2, _) /* integer (floats: FABS) */
PL_OP(NEG, absneg, 2, _)
PL_OP(MIN, minmax, 3, _) /* integer and .s16x2 (floats: FMIN) */
PL_OP(MAX, minmax, 3, _)
PL_OP(POPC, plain, 2, _)
PL_OP(CLZ, plain, 2, _)
PL_OP(BFIND, bfind, 2, _)
PL_OP(BREV, plain, 2, _)
PL_OP(BFE, plain, 4, _)
PL_OP(BFI, plain, 5, _)
PL_OP(BMSK, bmsk, 3, _)
PL_OP(SZEXT, bmsk, 3, _)
PL_OP(DP4A, dp, 4, _)
PL_OP(DP2A, dp, 4, _)
PL_OP(AND, logic, 3, _) /* bits (.pred: PAND) */
PL_OP(OR, logic, 3, _)
PL_OP(XOR, logic, 3, _)
PL_OP(NOT, logic, 2, _)
PL_OP(CNOT, plain, 2, _)
PL_OP(LOP3, plain, 0, _)
PL_OP(SHL, plain, 3, _)
PL_OP(SHR, plain, 3, _)
PL_OP(SHF, shf, 4, _)
PL_OP(PRMT, prmt, 4, _)
PL_OP(PAND, none, 0, _) /* predicates (from AND, OR, XOR, NOT, MOV of .pred) */
PL_OP(POR, none, 0, _)
PL_OP(PXOR, none, 0, _)
PL_OP(PNOT, none, 0, _)
PL_OP(PMOV, none, 0, _)
PL_OP(SETP, setp, 0, _)
PL_OP(SET, setp, 0, _)
PL_OP(SELP, plain, 0, _)
PL_OP(SLCT, plain, 4, _)
PL_OP(FADD, addsub, 3, _) /* floating point */
PL_OP(FSUB, addsub, 3, _)
PL_OP(FMUL, mul, 3, _)
PL_OP(FFMA, mul, 4, _) /* fma, and mad of floats */
PL_OP(FDIV, div, 3, _)
PL_OP(FABS, absneg, 2, _)
PL_OP(FNEG, absneg, 2, _)
PL_OP(FMIN, minmax, 3, _)
PL_OP(FMAX, minmax, 3, _)
PL_OP(RCP, mufu, 2, _)
PL_OP(SQRT, mufu, 2, _)
PL_OP(RSQRT, mufu, 2, _)
PL_OP(SIN, mufu, 2, _)
PL_OP(COS, mufu, 2, _)
PL_OP(LG2, mufu, 2, _)
PL_OP(EX2, mufu, 2, _)
PL_OP(TANH, mufu, 2, _)
PL_OP(COPYSIGN, plain, 3, _)
PL_OP(TESTP, testp, 0, _)
PL_OP(CVT, cvt, 0, _) /* (two sources: CVTPACK) */
PL_OP(CVTPACK, none, 0, _)
PL_OP(CVTA, cvta, 0, _) /* cvta, cvta.to (CVTATO) */
PL_OP(CVTATO, cvta, 0, _)
PL_OP(ISSPACEP, isspacep, 0, _)
PL_OP(MOV, mov, 0, _) /* (by its operands: MOVSREG, PACK, UNPACK; .pred: PMOV) */
PL_OP(MOVSREG, none, 0, _)
PL_OP(PACK, none, 0, _)
PL_OP(UNPACK, none, 0, _)
PL_OP(MOV128, none, 0, _) /* mov.b128 (sub: 0 copy, 1 pack {..}, 2 unpack into {..}) */
PL_OP(LD, ldst, 0, _)     /* ld, ldu */
PL_OP(ST, ldst, 0, _)
PL_OP(ATOM, atom, 0, _)
PL_OP(RED, atom, 0, _)
PL_OP(CPASYNC, cpasync, 0, _)
PL_OP(CPCOMMIT, cpasync, 0, _)
PL_OP(CPWAIT, cpasync, 0, _) /* cp.async.wait_group, .wait_all */
PL_OP(LDMATRIX, ldmatrix, 0, _)
PL_OP(STMATRIX, ldmatrix, 0, _)
PL_OP(MMA, mma, 0, _)
PL_OP(WMMA, wmma, 0, _) /* load (sub 0 a, 1 b, 2 c), store (3), mma (4) */
PL_OP(SHFL, shfl, 0, _)
PL_OP(VOTE, vote, 0, _)
PL_OP(ACTIVEMASK, plain, 0, _)
PL_OP(REDUX, redux, 0, _)
PL_OP(MATCH, match, 0, _)
PL_OP(BARWARP, barwarp, 0, _)
PL_OP(BRA, bra, 0, _)
PL_OP(EXIT, plain, 0, _)
PL_OP(TRAP, plain, 0, _)
PL_OP(BAR, bar, 0, _) /* bar (aligned), and barrier (BARRIER) */
PL_OP(CALL, call, 0, _)
PL_OP(RET, ret, 0, _)
PL_OP(MBAR, mbar, 0, _) /* init, inval, arrive(_drop), expect_tx, complete_tx */
PL_OP(MBWAIT, mbar, 0, _)
PL_OP(MBPENDING, mbar, 0, _)
PL_OP(TMA, bulk, 0, _)  /* cp.async.bulk.tensor and its reductions, prefetches */
PL_OP(BULK, bulk, 0, _) /* cp.async.bulk, cp.reduce.async.bulk, prefetches */
PL_OP(BULKCOMMIT, bulk, 0, _)
PL_OP(BULKWAIT, bulk, 0, _)
PL_OP(WGMMA, wgmma, 0, _)
PL_OP(WGFENCE, wgmma, 0, _)
PL_OP(WGCOMMIT, wgmma, 0, _)
PL_OP(WGWAIT, wgmma, 0, _)
PL_OP(CLBAR, clbar, 0, _) /* barrier.cluster */
PL_OP(MAPA, mapa, 0, _)
PL_OP(GETRANK, mapa, 0, _)
PL_OP(ELECT, elect, 0, _)
PL_OP(SETMAXNREG, setmaxnreg, 0, _)
PL_OP(FENCEPROXY, fenceproxy, 0, _)
PL_OP(CPMBARRIVE, cpmbarrive, 0, _)
PL_OP(TMAP, tmap, 0, _)     /* replace (sub: the field), cp_fenceproxy (XTM_CP) */
PL_OP(CLCTRY, clc, 0, _)    /* clusterlaunchcontrol.try_cancel (emu: blackwell/clc.c) */
PL_OP(CLCQUERY, clc, 0, _)  /* query_cancel (sub: 0 is_canceled, 1-3 ::x ::y ::z, 4 .v4) */
PL_OP(BARRIER, bar, 0, _)   /* decoded into BAR (barrier: .aligned optional) */
PL_OP(MEMBAR, membar, 0, _) /* membar, fence: NOP (orders the races check) */
PL_OP(FENCEMBINIT, fencembinit, 0, _) /* fence.mbarrier_init: NOP */
PL_OP(PREFETCH, prefetch, 0, _)       /* prefetch, prefetchu: NOP */
PL_OP(BRKPT, brkpt, 0, _)             /* brkpt, nanosleep, pmevent: NOP */
PL_OP(GRIDDEP, griddep, 0, _)         /* griddepcontrol: NOP */
PL_OP(ADD16X2, elem, 3, add16x2)      /* add.u16x2, add.s16x2: each half wraps */
PL_OP(TCALLOC, tcgen05, 0, _)         /* tcgen05.alloc (src/emu/blackwell/) */
PL_OP(TCDEALLOC, tcgen05, 0, _)       /* tcgen05.dealloc */
PL_OP(TCRELINQ, tcgen05, 0, _)        /* tcgen05.relinquish_alloc_permit */
PL_OP(TCLD, tcgen05, 0, _)            /* tcgen05.ld (sub: the shape, vec: .num) */
PL_OP(TCST, tcgen05, 0, _)            /* tcgen05.st */
PL_OP(TCWAIT, tcgen05, 0, _)          /* tcgen05.wait::ld (sub 0), wait::st (sub 1) */
PL_OP(TCFENCE, tcgen05, 0, _)         /* tcgen05.fence::before_thread_sync (0), after (1) */
PL_OP(TCMMA, tcgen05, 0, _)           /* tcgen05.mma */
PL_OP(TCCP, tcgen05, 0, _)            /* tcgen05.cp */
PL_OP(TCCOMMIT, tcgen05, 0, _)        /* tcgen05.commit */
