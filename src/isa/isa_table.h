/* isa_table.h -- the PTX ISA as data: every instruction form ptxlua knows, in one list.
** Included by isa.c only. Versions are 10*major+minor (PTX ISA 7.8 = 78), targets sm numbers.
** Sources: the PTX ISA 9.0 manual (syntax, modifier order, "PTX ISA notes", "Target ISA notes");
** every form is assembled by ptxas 13.0 in tests/spec/isa_forms_spec.lua at the least target and
** version this table gives it, and tests/isa/explore.lua checks those minimums are tight.
**
** PL_SET(name, "alts")   a named set of modifier alternatives, used as $name in patterns; an
**                        alternative may be a sequence (.v2.b32) and may name other sets ($ld32)
** PL_MOD("base", ".tok", ptx_min, sm_min)
**                        a modifier's own minimum: an instruction named base ("" any) that has
**                        .tok needs at least this version and target, whatever its form says
**                        (.L2::cache_hint: 7.4, sm_80), so forms need not be split by modifier;
**                        an entry for the instruction's base replaces the one for any base;
**                        a dotted base (cp.async.ca) names the first words in the form's order.
** PL_SREG(name, type, ptx_min, sm_min, "parts")
**                        a special register %name of a type; parts "xyzw": %name.x/.y/.z (and .w,
**                        the fourth component of the .v4 the ISA declares, which ptxas takes),
**                        "0-7": %name0 ... %name7. A special-register operand is checked here.
** PL_FORM(pattern, operands, ptx_min, sm_min, flags, op)
**                        op: the operation the form performs, a row of isa_ops.h (ADD, FFMA, LD,
**                        ...), which the emulator decodes and runs; _ when it does not run it
**
** Pattern: the base name, then elements in PTX order:
**   .tok        a required modifier          $set       one of a set (required)
**   (.a|.b.c)   exactly one alternative      {.a|$set}  at most one alternative (optional)
** The Nth type modifier of an instruction (.f32, .s32, .bf16x2, ...) is its type N.
** Forms are matched in table order, so a form with newer minimums that extends an older one
** comes after it.
**
** Operands, comma separated; a letter, then flags:
**   d dest register   a register or immediate   r register   i immediate   m address [..]
**   p predicate       P predicate dest (or p|q)  l label       x label or symbol
**   s register, immediate, special register or symbol (mov)   A register, symbol or immediate
**   _ the sink '_' only (a remote mbarrier.arrive returns no state)
**   F a function's name (a symbol: call's callee)
**   T a tensor address [tmap, {c0, c1, ...}] (cp.async.bulk.tensor): tmap a .b64/.u64 register
**     (ptxas wants a tensor-map parameter's address in a register: mov.b64 or cvta.param.u64 of
**     it) or a symbol, then the coordinates, registers of the operand's type or integers;
**     T[d] takes D of them, D from the dimension .Dd
**   R a parenthesized list (d1, d2, ...) of destination registers, any length and types (call's
**     results, or .param variables);  L the same, or immediates (call's arguments). Only one marked
**     parenthesized (PLOF_PAREN) is a list, and a list is nothing else; () is an empty one.
** flags: :N type N of the instruction (default 1), :f32 a fixed type, :* any type;
**   v a vector {..} when the instruction has .vN;  [K] a vector of K registers;
**   [x] a vector of N registers when the instruction has .xN (ldmatrix .x4, tcgen05.ld .x128);
**   [x*K] of N*K registers (tcgen05.ld .16x128b: 2 a column);
**   [n/K] a vector of N/K registers, N from the shape .mMnNkK (wgmma: [n/2] .f32 accumulators);
**   [d] a vector of D registers, D from the dimension .Dd; [d-K] of D-K (cp.async.bulk.tensor);
**   w a wider register is allowed (ld/st/cvt: .u8 into .u32, .f32 into .b64);
**   ! may be negated (!p);  _ may be the sink '_';  | may be a pair with a predicate (d|p),
**   || must be one;
**   ? optional: when fewer operands are given, the last optional ones are left out;
**   <.tok> there exactly when the instruction has .tok (the cache-policy of .L2::cache_hint);
**   <$set> there exactly when it has one of the set's modifiers (the c of setp.lt.and);
**   g (an address) in the instruction's own state space, generic when it names none: a .global
**     or generic address is a 64-bit register under .address_size 64 (ptxas fails the whole
**     module on a 32-bit one), and a variable named there must be of that space (a generic
**     access reaches .global, .shared and .local variables, not .param or .const ones); g2 in
**     the second space the opcode names (cp.async.shared.global's source); gS a .shared variable
**     whatever the opcode says (an mbarrier object, generic or not); gG a .global one (prefetchu);
**   > (an address) written by the instruction: not a function's input parameter (ptxas: "illegal
**     to write to function input parameter"; a kernel's parameters are read-only);
**   # (an address) through a register, never a variable (st.bulk.shared::cta: ptxas fails on one);
**   n (a generic address) a 32-bit register may give it under .address_size 64 (st.bulk's, which
**     the ISA puts in the .shared::cta window);
**   =, =h, =i after a .bN type: the registers ptxas takes there, which is fewer than any of the
**     width: = only .bN, =h .bN or the half type of the width (.f16, .f16x2), =i .bN, .uN or
**     .sN (no float); tests/isa/regtypes.lua finds them;
**   %K an immediate there is a multiple of K;  ^N at most N (and not negative);  ^L..N from L to
**     N;  ^< at most the immediate before it;  @a/b/c one of these sizes (powers of two);  ~a/b/c
**     one of these values (~-1/1); several combine (%16^1048560). tests/isa/bounds.lua finds them
**     against ptxas: where ptxas takes fewer values than the operand's type holds.
** The first form that matches an opcode text is its form; later forms that match it too are
** alternatives told apart by their operands (mov.b32 d, a | d, {a, b}), each with its own
** minimums (not below the first's), which the operand check holds to the module's target.
** Flags (src/isa/isa.h): PLA_ARCH_A only on sm_XXa of its family (sm_90a; sm_100a, sm_103a),
** PLA_FAMILY_A only on sm_XXa or sm_XXf of its family, PLA_SPECIFIC only on any sm_XXa or sm_XXf
** from sm_min on, PLA_BRANCH a control transfer.
**
** Modifier order. ptxas reads an opcode as a name followed by modifiers in any order, so a form's
** pattern gives the order ptxlua prints (and the PTX ISA writes), not the only one it reads:
** PL_NAME(prefix, name)  an opcode whose text, its modifiers put in the pattern's order, begins
**                        with prefix starts with name (a prefix of it), word for word: ptxas
**                        reads those words as the instruction's name ('mul.s32.lo' is no mul;
**                        'cp.async.shared.ca.global' is a cp.async). The longest prefix that
**                        fits applies; with none, the name is the base alone.
** PL_ORDER(class, "a|b") modifiers whose relative order carries meaning: those of one class keep
**                        their order (the row/col of mma: a's layout, then b's). The type
**                        modifiers (types.h, and those of class "type" here) are one class.
** tests/isa/orders.lua asks ptxas about every reordering of every form's modifiers and compares.
** PL_ROLES(prefix, ops, "d, a, b")  the names of the operands of the forms whose pattern begins
**                        with prefix, whose operand list is ops ("": any) and that take as many
**                        operands (the longest prefix wins, then a row that names ops). Other
**                        forms' operands are named as the PTX ISA does by default: the
**                        destination d (p for a predicate), then the sources a, b, c, ...; a
**                        cache-policy operand (<.L2::cache_hint>) is cache-policy. */
/* the table is aligned by hand (format.py wraps its long rows): */
/* clang-format off */

/* ---- modifier sets ---- */
PL_SET(rnd, ".rn|.rz|.rm|.rp")
PL_SET(irnd, ".rni|.rzi|.rmi|.rpi")
PL_SET(i16_64, ".u16|.u32|.u64|.s16|.s32|.s64")
PL_SET(s16_64, ".s16|.s32|.s64")
PL_SET(i32_64, ".u32|.s32|.u64|.s64")
PL_SET(i8_64, ".u8|.u16|.u32|.u64|.s8|.s16|.s32|.s64")
PL_SET(i8_64r, ".s64|.s32|.s16|.s8|.u64|.u32|.u16|.u8")
/* integer conversions that can overflow: the ones .sat may saturate (destination, source) */
PL_SET(cvtsat,
       ".u8.u16|.u8.u32|.u8.u64|.u8.s8|.u8.s16|.u8.s32|.u8.s64|.u16.u32|.u16.u64|.u16.s8|.u16.s16|"
       ".u16.s32|.u16.s64|.u32.u64|.u32.s8|.u32.s16|.u32.s32|.u32.s64|.u64.s8|.u64.s16|.u64.s32|"
       ".u64.s64|.s8.u8|.s8.u16|.s8.u32|.s8.u64|.s8.s16|.s8.s32|.s8.s64|.s16.u16|.s16.u32|.s16"
       ".u64|.s16.s32|.s16.s64|.s32.u32|.s32.u64|.s32.s64|.s64.u64")
PL_SET(b32_64, ".b32|.b64")
PL_SET(b16_64, ".b16|.b32|.b64")
PL_SET(lbits, ".pred|.b16|.b32|.b64")
PL_SET(shrtyp, "$b16_64|$i16_64")
PL_SET(movtyp, ".pred|$b16_64|$i16_64|.f32|.f64")
PL_SET(seltyp, "$b16_64|$i16_64|.f32|.f64")
PL_SET(icmp, ".eq|.ne|.lt|.le|.gt|.ge")
PL_SET(ucmp, ".lo|.ls|.hi|.hs")
PL_SET(u16_64, ".u16|.u32|.u64")
PL_SET(fcmp, ".eq|.ne|.lt|.le|.gt|.ge|.equ|.neu|.ltu|.leu|.gtu|.geu|.num|.nan")
PL_SET(boolop, ".and|.or|.xor")
PL_SET(fnf, ".f32|.f64")
PL_SET(f16t, ".f16|.f16x2")
PL_SET(bf16t, ".bf16|.bf16x2")
PL_SET(h16t, ".f16|.f16x2|.bf16|.bf16x2")
/* memory: types with an optional vector of at most 128 bits, and the 256-bit vectors of sm_100 */
PL_SET(ld32, ".b8|.b16|.b32|.u8|.u16|.u32|.s8|.s16|.s32|.f32")
PL_SET(ld64, ".b64|.u64|.s64|.f64")
PL_SET(ldvt, "$ld32|.v2$ld32|.v4$ld32|$ld64|.v2$ld64")
PL_SET(ldvtq, "$ldvt|.b128")
PL_SET(ldvt256, ".v8.b32|.v8.u32|.v8.s32|.v8.f32|.v4$ld64")
PL_SET(ldss,
       ".global|.shared|.local|.param|.const|.shared::cta|.shared::cluster|.param::entry|"
       ".param::func")
PL_SET(stss, ".global|.shared|.local|.param|.shared::cta|.shared::cluster|.param::func")
PL_SET(gsss, ".global|.shared|.shared::cta|.shared::cluster")
PL_SET(ldcop, ".ca|.cg|.cs|.lu|.cv")
PL_SET(stcop, ".wb|.cg|.cs|.wt")
PL_SET(scope78, ".cta|.cluster|.gpu|.sys")
PL_SET(l1evict,
       ".L1::evict_normal|.L1::evict_unchanged|.L1::evict_first|.L1::evict_last|.L1::no_allocate")
PL_SET(l2evict, ".L2::evict_normal|.L2::evict_first|.L2::evict_last")
PL_SET(prefsz, ".L2::64B|.L2::128B|.L2::256B")
PL_SET(atomsem, ".relaxed|.acquire|.release|.acq_rel")
PL_SET(cvtspace, ".global|.shared|.local|.const|.param|.shared::cta|.shared::cluster")

/* ---- instruction names and modifier order (ptxas 13.0, probed by tests/isa/orders.lua) ---- */
PL_ORDER(type, "b1|u2|s2|u4|s4")
PL_ORDER(layout, "row|col")
PL_ORDER(space,
         "global|shared|shared::cta|shared::cluster|local|const|param|param::entry|param::func")
PL_ORDER(evict, "L2::evict_normal|L2::evict_first|L2::evict_last|L2::evict_unchanged")
PL_ORDER(bitop, "and|or|xor|popc")
PL_NAME("mul.lo", "mul.lo")
PL_NAME("mul.hi", "mul.hi")
PL_NAME("mul.wide", "mul.wide")
PL_NAME("mad.lo", "mad.lo")
PL_NAME("mad.hi", "mad.hi")
PL_NAME("mad.wide", "mad.wide")
PL_NAME("mul24.lo", "mul24.lo")
PL_NAME("mul24.hi", "mul24.hi")
PL_NAME("mad24.lo", "mad24.lo")
PL_NAME("mad24.hi", "mad24.hi")
PL_NAME("madc.lo", "madc.lo")
PL_NAME("madc.hi", "madc.hi")
PL_NAME("dp2a.lo", "dp2a.lo")
PL_NAME("dp2a.hi", "dp2a.hi")
PL_NAME("shf.l", "shf.l")
PL_NAME("shf.r", "shf.r")
PL_NAME("div.full", "div.full")
PL_NAME("cvt.pack", "cvt.pack")
PL_NAME("cvta.to", "cvta.to")
PL_NAME("createpolicy.fractional", "createpolicy.fractional")
PL_NAME("createpolicy.range", "createpolicy.range")
PL_NAME("createpolicy.cvt", "createpolicy.cvt")
PL_NAME("membar.proxy", "membar.proxy")
PL_NAME("fence.proxy", "fence.proxy")
PL_NAME("bar.cta", "bar.cta")
PL_NAME("bar.red", "bar.red")
PL_NAME("bar.cta.red", "bar.cta.red")
PL_NAME("bar.warp", "bar.warp")
PL_NAME("barrier.cta", "barrier.cta")
PL_NAME("barrier.red", "barrier.red")
PL_NAME("barrier.cta.red", "barrier.cta.red")
PL_NAME("barrier.arrive", "barrier.arrive")
PL_NAME("barrier.cluster", "barrier.cluster")
PL_NAME("barrier.cluster.arrive", "barrier.cluster.arrive")
PL_NAME("barrier.cluster.wait", "barrier.cluster.wait")
PL_NAME("cp.async.ca", "cp.async")
PL_NAME("cp.async.cg", "cp.async")
PL_NAME("cp.async.bulk.shared::cluster.global", "cp.async.bulk")
PL_NAME("cp.async.bulk.global", "cp.async.bulk")
PL_NAME("cp.async.bulk.shared::cta.global", "cp.async.bulk")
PL_NAME("st.bulk", "st.bulk")
PL_NAME("mbarrier.arrive", "mbarrier.arrive")
PL_NAME("mbarrier.arrive.expect_tx", "mbarrier.arrive.expect_tx")
PL_NAME("mbarrier.arrive_drop", "mbarrier.arrive_drop")
PL_NAME("mbarrier.arrive_drop.expect_tx", "mbarrier.arrive_drop.expect_tx")
PL_NAME("mbarrier.expect_tx", "mbarrier.expect_tx")
PL_NAME("mbarrier.complete_tx", "mbarrier.complete_tx")
PL_NAME("mbarrier.test_wait", "mbarrier.test_wait")
PL_NAME("mbarrier.test_wait.parity", "mbarrier.test_wait.parity")
PL_NAME("mbarrier.try_wait", "mbarrier.try_wait")
PL_NAME("mbarrier.try_wait.parity", "mbarrier.try_wait.parity")
PL_NAME("tensormap.replace", "tensormap.replace")
PL_NAME("tensormap.cp_fenceproxy", "tensormap.cp_fenceproxy")
PL_NAME("setmaxnreg.inc", "setmaxnreg.inc")
PL_NAME("setmaxnreg.dec", "setmaxnreg.dec")
PL_NAME("wgmma.mma_async", "wgmma.mma_async")
PL_NAME("wgmma.fence", "wgmma.fence")
PL_NAME("wgmma.commit_group", "wgmma.commit_group")
PL_NAME("wgmma.wait_group", "wgmma.wait_group")
PL_NAME("tcgen05.alloc", "tcgen05.alloc")
PL_NAME("tcgen05.dealloc", "tcgen05.dealloc")
PL_NAME("tcgen05.relinquish_alloc_permit", "tcgen05.relinquish_alloc_permit")
PL_NAME("tcgen05.commit", "tcgen05.commit")
PL_NAME("tcgen05.cp", "tcgen05.cp")
PL_NAME("tcgen05.ld", "tcgen05.ld")
PL_NAME("tcgen05.ld.red", "tcgen05.ld.red")
PL_NAME("tcgen05.st", "tcgen05.st")
PL_NAME("tcgen05.mma", "tcgen05.mma")
PL_NAME("tcgen05.mma.ws", "tcgen05.mma.ws")
PL_NAME("tcgen05.shift", "tcgen05.shift")
PL_NAME("tcgen05.wait::ld", "tcgen05.wait::ld")
PL_NAME("tcgen05.wait::st", "tcgen05.wait::st")
PL_NAME("clusterlaunchcontrol.try_cancel.async", "clusterlaunchcontrol.try_cancel.async")
PL_NAME("clusterlaunchcontrol.query_cancel", "clusterlaunchcontrol.query_cancel")
/* operand names where the PTX ISA gives them (the rest: d, a, b, c, ...) */
PL_ROLES("bfi", "", "f, a, b, c, d")
PL_ROLES("fns", "", "d, mask, base, offset")
PL_ROLES("lop3", "", "d, a, b, c, immLut")
PL_ROLES("lop3", "", "d, a, b, c, immLut, q")
PL_ROLES("shfl.sync", "", "d, a, b, c, membermask")
PL_ROLES("vote.sync", "", "d, a, membermask")
PL_ROLES("redux.sync", "", "d, src, membermask")
PL_ROLES("match", "", "d, a, membermask")
PL_ROLES("bar.warp.sync", "", "membermask")
PL_ROLES("elect.sync", "", "d, membermask")
PL_ROLES("bra", "", "target")
PL_ROLES("brx.idx", "", "index, tlist")
PL_ROLES("call", "", "results, func, args")
PL_ROLES("call", "", "func, args")
PL_ROLES("call", "R, r:b64=i, L, x", "results, fptr, args, proto")
PL_ROLES("call", "r:b64=i, L, x", "fptr, args, proto")
PL_ROLES("call", "r:b64=i, x", "fptr, proto")
PL_ROLES("nanosleep", "", "t")
PL_ROLES("setmaxnreg", "", "imm-reg-count")
PL_ROLES("prefetch", "", "a")
PL_ROLES("discard", "", "a, size")
PL_ROLES("applypriority", "", "a, size")
PL_ROLES("createpolicy.fractional", "", "cache-policy, fraction")
PL_ROLES("createpolicy.range", "", "cache-policy, a, primary-size, total-size")
PL_ROLES("createpolicy.cvt", "", "cache-policy, a")
PL_ROLES("mbarrier.init", "", "addr, count")
PL_ROLES("mbarrier.inval", "", "addr")
PL_ROLES("mbarrier.arrive", "", "state, addr")
PL_ROLES("mbarrier.arrive", "", "state, addr, count")
PL_ROLES("mbarrier.arrive.expect_tx", "", "state, addr, txCount")
PL_ROLES("mbarrier.arrive_drop", "", "state, addr")
PL_ROLES("mbarrier.arrive_drop", "", "state, addr, count")
PL_ROLES("mbarrier.arrive_drop.expect_tx", "", "state, addr, txCount")
PL_ROLES("mbarrier.expect_tx", "", "addr, txCount")
PL_ROLES("mbarrier.complete_tx", "", "addr, txCount")
PL_ROLES("mbarrier.test_wait", "", "waitComplete, addr, state")
PL_ROLES("mbarrier.test_wait.parity", "", "waitComplete, addr, phaseParity")
PL_ROLES("mbarrier.try_wait", "", "waitComplete, addr, state, suspendTimeHint")
PL_ROLES("mbarrier.try_wait.parity", "", "waitComplete, addr, phaseParity, suspendTimeHint")
PL_ROLES("mbarrier.pending_count", "", "count, state")
PL_ROLES("cp.async.mbarrier.arrive", "", "addr")
PL_ROLES("cp.async.ca", "", "dst, src, cp-size, src-size, cache-policy")
PL_ROLES("cp.async.cg", "", "dst, src, cp-size, src-size, cache-policy")
PL_ROLES("cp.async.wait_group", "", "N")
PL_ROLES("cp.async.bulk.wait_group", "", "N")
PL_ROLES("cp.async.bulk.shared::cluster.global", "",
         "dstMem, srcMem, size, mbar, ctaMask, cache-policy")
PL_ROLES("cp.async.bulk.global", "", "dstMem, srcMem, size, cache-policy")
PL_ROLES("cp.async.bulk.global", "", "dstMem, srcMem, size, cache-policy, byteMask")
PL_ROLES("cp.async.bulk.shared::cta.global", "", "dstMem, srcMem, size, mbar, cache-policy")
PL_ROLES("st.bulk", "", "a, size, initval")
PL_ROLES("cp.async.bulk.shared::cluster.shared::cta", "", "dstMem, srcMem, size, mbar")
PL_ROLES("cp.async.bulk.tensor", "", "dstMem, tensorCoords, mbar, ctaMask, cache-policy")
PL_ROLES("cp.async.bulk.tensor", "",
         "dstMem, tensorCoords, mbar, im2colOffsets, ctaMask, cache-policy")
PL_ROLES("cp.async.bulk.tensor", "", "tensorCoords, srcMem, cache-policy")
PL_ROLES("cp.reduce.async.bulk.tensor", "", "tensorCoords, srcMem, cache-policy")
PL_ROLES("cp.async.bulk.prefetch.tensor", "", "tensorCoords, cache-policy")
PL_ROLES("cp.async.bulk.prefetch.tensor", "", "tensorCoords, im2colOffsets, cache-policy")
PL_ROLES("cp.async.bulk.tensor$tmadim3.shared::cta.global.im2col::w", "",
         "dstMem, tensorCoords, mbar, im2colInfo, cache-policy")
PL_ROLES("cp.async.bulk.tensor$tmadim3.shared::cta.global.im2col::w::128", "",
         "dstMem, tensorCoords, mbar, im2colInfo, cache-policy")
PL_ROLES("cp.async.bulk.tensor$tmadim3.shared::cluster.global$tmaw", "",
         "dstMem, tensorCoords, mbar, im2colInfo, ctaMask, cache-policy")
PL_ROLES("cp.async.bulk.prefetch.tensor$tmadim3.L2.global$tmaw", "",
         "tensorCoords, im2colInfo, cache-policy")
PL_ROLES("cp.async.bulk.prefetch.L2", "", "srcMem, size, cache-policy")
PL_ROLES("cp.reduce.async.bulk.global", "", "dstMem, srcMem, size, cache-policy")
PL_ROLES("cp.reduce.async.bulk.shared::cluster", "", "dstMem, srcMem, size, mbar")
PL_ROLES("wmma.load", "", "d, a, stride")
PL_ROLES("wmma.store", "", "a, b, stride")
PL_ROLES("wgmma.wait_group", "", "N")
PL_ROLES("wgmma.mma_async", "", "d, a, b, scale-d")
PL_ROLES("wgmma.mma_async", "", "d, a, b, scale-d, imm-scale-a, imm-scale-b")
PL_ROLES("wgmma.mma_async", "", "d, a, b, scale-d, imm-scale-a, imm-scale-b, imm-trans-b")
PL_ROLES("wgmma.mma_async", "",
         "d, a, b, scale-d, imm-scale-a, imm-scale-b, imm-trans-a, imm-trans-b")
PL_ROLES("wgmma.mma_async.sp", "", "d, a, b, sp-meta, sp-sel, scale-d")
PL_ROLES("wgmma.mma_async.sp", "", "d, a, b, sp-meta, sp-sel, scale-d, imm-scale-a, imm-scale-b")
PL_ROLES("wgmma.mma_async.sp", "",
         "d, a, b, sp-meta, sp-sel, scale-d, imm-scale-a, imm-scale-b, imm-trans-b")
PL_ROLES("wgmma.mma_async.sp", "",
         "d, a, b, sp-meta, sp-sel, scale-d, imm-scale-a, imm-scale-b, imm-trans-a, imm-trans-b")
PL_ROLES("tensormap.replace", "", "addr, new_val")
PL_ROLES("tensormap.replace", "", "addr, ord, new_val")
PL_ROLES("tensormap.cp_fenceproxy", "", "dst, src, size")
PL_ROLES("fence.proxy.tensormap::generic.acquire", "", "addr, size")
PL_ROLES("tcgen05.alloc", "", "dst, nCols")
PL_ROLES("tcgen05.dealloc", "", "taddr, nCols")
PL_ROLES("tcgen05.mma", "", "d-tmem, a, b-desc, idesc, enable-input-d")
PL_ROLES("tcgen05.mma", "", "d-tmem, a, b-desc, idesc, enable-input-d, scale-input-d")
PL_ROLES("tcgen05.commit", "", "mbar")
PL_ROLES("tcgen05.commit", "", "mbar, ctaMask")
PL_ROLES("tcgen05.ld", "", "r, taddr")
PL_ROLES("tcgen05.ld", "", "r, taddr, immHalfSplitoff")
PL_ROLES("tcgen05.ld.red", "", "r, redval, taddr")
PL_ROLES("tcgen05.ld.red", "", "r, redval, taddr, immHalfSplitoff")
PL_ROLES("tcgen05.st", "", "taddr, r")
PL_ROLES("tcgen05.st", "", "taddr, immHalfSplitoff, r")
PL_ROLES("tcgen05.cp", "", "taddr, s-desc")
PL_ROLES("tcgen05.shift", "", "taddr")

/* ---- modifier minimums ---- */
PL_MOD("", ".shared::cta", 78, 0)
/* ptxas takes cp.async.{ca,cg}.shared::cta from the instruction's own PTX 7.0 (every other
** .shared::cta, cp.async.mbarrier.arrive's too, needs 7.8) */
PL_MOD("cp.async.ca", ".shared::cta", 70, 0)
PL_MOD("cp.async.cg", ".shared::cta", 70, 0)
PL_MOD("", ".shared::cluster", 78, 90)
PL_MOD("", ".cluster", 78, 90)
PL_MOD("", ".param::entry", 83, 0)
PL_MOD("", ".param::func", 83, 0)
PL_MOD("", ".weak", 60, 70)
PL_MOD("", ".relaxed", 60, 70)
PL_MOD("", ".acquire", 60, 70)
PL_MOD("", ".release", 60, 70)
PL_MOD("", ".acq_rel", 60, 70)
PL_MOD("", ".L2::cache_hint", 74, 80)
PL_MOD("", ".L2::64B", 74, 75)
PL_MOD("", ".L2::128B", 74, 75)
PL_MOD("", ".L2::256B", 74, 80)
PL_MOD("", ".L1::evict_normal", 74, 70)
PL_MOD("", ".L1::evict_unchanged", 74, 70)
PL_MOD("", ".L1::evict_first", 74, 70)
PL_MOD("", ".L1::evict_last", 74, 70)
PL_MOD("", ".L1::no_allocate", 74, 70)
PL_MOD("", ".L2::evict_normal", 74, 80)
PL_MOD("", ".L2::evict_first", 74, 80)
PL_MOD("", ".L2::evict_last", 74, 80)
PL_MOD("", ".b128", 83, 70)
PL_MOD("", ".f16", 42, 53)
PL_MOD("", ".f16x2", 42, 53)
PL_MOD("", ".bf16", 70, 80)
PL_MOD("", ".bf16x2", 70, 80)
PL_MOD("", ".tf32", 70, 80)
PL_MOD("", ".u16x2", 80, 90)
PL_MOD("", ".s16x2", 80, 90)
PL_MOD("", ".f32x2", 86, 100)
PL_MOD("", ".e4m3x2", 78, 89)
PL_MOD("", ".e5m2x2", 78, 89)
PL_MOD("", ".NaN", 70, 80)
PL_MOD("", ".xorsign", 72, 86)
PL_MOD("", ".oob", 81, 90)
PL_MOD("", ".e4m3x4", 87, 100)
PL_MOD("", ".e5m2x4", 87, 100)
PL_MOD("ld", ".ca", 20, 20)
PL_MOD("ld", ".cg", 20, 20)
PL_MOD("ld", ".cs", 20, 20)
PL_MOD("ld", ".lu", 20, 20)
PL_MOD("ld", ".cv", 20, 20)
PL_MOD("st", ".wb", 20, 20)
PL_MOD("st", ".cg", 20, 20)
PL_MOD("st", ".cs", 20, 20)
PL_MOD("st", ".wt", 20, 20)
PL_MOD("atom", ".cta", 50, 60)
PL_MOD("atom", ".gpu", 50, 60)
PL_MOD("atom", ".sys", 50, 60)
PL_MOD("red", ".cta", 50, 60)
PL_MOD("red", ".gpu", 50, 60)
PL_MOD("red", ".sys", 50, 60)
PL_MOD("cvt", ".satfinite", 81, 75)
PL_MOD("set", ".bf16", 78, 90)
PL_MOD("set", ".bf16x2", 78, 90)
PL_MOD("bar", ".cta", 78, 0)
PL_MOD("barrier", ".cta", 78, 0)
PL_MOD("barrier", ".relaxed", 80, 90)
PL_MOD("barrier", ".release", 80, 90)
PL_MOD("barrier", ".acquire", 80, 90)
PL_MOD("cvta", ".param", 77, 0)
PL_MOD("isspacep", ".param", 77, 0)

/* ---- special registers ---- */
PL_SREG("tid", U32, 20, 10, "xyzw")
PL_SREG("ntid", U32, 20, 10, "xyzw")
PL_SREG("laneid", U32, 13, 10, "")
PL_SREG("warpid", U32, 13, 10, "")
PL_SREG("nwarpid", U32, 20, 20, "")
PL_SREG("ctaid", U32, 20, 10, "xyzw")
PL_SREG("nctaid", U32, 20, 10, "xyzw")
PL_SREG("smid", U32, 13, 10, "")
PL_SREG("nsmid", U32, 20, 20, "")
PL_SREG("gridid", U64, 30, 10, "")
PL_SREG("is_explicit_cluster", PRED, 78, 90, "")
PL_SREG("clusterid", U32, 78, 90, "xyzw")
PL_SREG("nclusterid", U32, 78, 90, "xyzw")
PL_SREG("cluster_ctaid", U32, 78, 90, "xyzw")
PL_SREG("cluster_nctaid", U32, 78, 90, "xyzw")
PL_SREG("cluster_ctarank", U32, 78, 90, "")
PL_SREG("cluster_nctarank", U32, 78, 90, "")
PL_SREG("lanemask_eq", U32, 20, 20, "")
PL_SREG("lanemask_le", U32, 20, 20, "")
PL_SREG("lanemask_lt", U32, 20, 20, "")
PL_SREG("lanemask_ge", U32, 20, 20, "")
PL_SREG("lanemask_gt", U32, 20, 20, "")
PL_SREG("clock", U32, 10, 10, "")
PL_SREG("clock_hi", U32, 50, 20, "")
PL_SREG("clock64", U64, 20, 20, "")
PL_SREG("pm", U32, 30, 20, "0-7")
PL_SREG("pm", U64, 40, 50, "0-7_64")
PL_SREG("envreg", B32, 21, 20, "0-31")
PL_SREG("globaltimer", U64, 31, 30, "")
PL_SREG("globaltimer_lo", U32, 31, 30, "")
PL_SREG("globaltimer_hi", U32, 31, 30, "")
PL_SREG("reserved_smem_offset_begin", B32, 76, 80, "")
PL_SREG("reserved_smem_offset_end", B32, 76, 80, "")
PL_SREG("reserved_smem_offset_cap", B32, 76, 80, "")
PL_SREG("reserved_smem_offset_", B32, 76, 80, "0-1")
PL_SREG("total_smem_size", U32, 41, 20, "")
PL_SREG("aggr_smem_size", U32, 81, 90, "")
PL_SREG("dynamic_smem_size", U32, 41, 20, "")
PL_SREG("current_graph_exec", U64, 80, 50, "")

/* ---- integer arithmetic ---- */
PL_FORM("add$i16_64", "d, a, a", 10, 10, 0, ADD)
PL_FORM("add.sat.s32", "d, a, a", 10, 10, 0, ADDSAT)
PL_FORM("add.(.u16x2|.s16x2)", "d:b32=h, r:b32=h, r:b32=h", 80, 90, 0, ADD16X2)
PL_FORM("sub$i16_64", "d, a, a", 10, 10, 0, SUB)
PL_FORM("sub.sat.s32", "d, a, a", 10, 10, 0, SUBSAT)
PL_FORM("add.cc.(.u32|.s32)", "d, a, a", 12, 10, 0, ADD)
PL_FORM("add.cc.(.u64|.s64)", "d, a, a", 43, 20, 0, ADD)
PL_FORM("addc{.cc}.(.u32|.s32)", "d, a, a", 12, 10, 0, ADDC)
PL_FORM("addc{.cc}.(.u64|.s64)", "d, a, a", 43, 20, 0, ADDC)
PL_FORM("sub.cc.(.u32|.s32)", "d, a, a", 12, 10, 0, SUB)
PL_FORM("sub.cc.(.u64|.s64)", "d, a, a", 43, 20, 0, SUB)
PL_FORM("subc{.cc}.(.u32|.s32)", "d, a, a", 12, 10, 0, SUBC)
PL_FORM("subc{.cc}.(.u64|.s64)", "d, a, a", 43, 20, 0, SUBC)
PL_FORM("mul.(.lo|.hi)$i16_64", "d, a, a", 10, 10, 0, MULLO)
PL_FORM("mul.wide.u16", "d:u32, a, a", 10, 10, 0, MULWIDE)
PL_FORM("mul.wide.s16", "d:s32, a, a", 10, 10, 0, MULWIDE)
PL_FORM("mul.wide.u32", "d:u64, a, a", 10, 10, 0, MULWIDE)
PL_FORM("mul.wide.s32", "d:s64, a, a", 10, 10, 0, MULWIDE)
PL_FORM("mad.(.lo|.hi)$i16_64", "d, a, a, a", 10, 10, 0, MADLO)
PL_FORM("mad.hi.sat.s32", "d, a, a, a", 10, 10, 0, MADLO)
PL_FORM("mad.wide.u16", "d:u32, a, a, a:u32", 10, 10, 0, MADWIDE)
PL_FORM("mad.wide.s16", "d:s32, a, a, a:s32", 10, 10, 0, MADWIDE)
PL_FORM("mad.wide.u32", "d:u64, a, a, a:u64", 10, 10, 0, MADWIDE)
PL_FORM("mad.wide.s32", "d:s64, a, a, a:s64", 10, 10, 0, MADWIDE)
PL_FORM("mad.(.lo|.hi).cc.(.u32|.s32)", "d, a, a, a", 30, 20, 0, MADLO)
PL_FORM("mad.(.lo|.hi).cc.(.u64|.s64)", "d, a, a, a", 43, 20, 0, MADLO)
PL_FORM("madc.(.lo|.hi){.cc}.(.u32|.s32)", "d, a, a, a", 30, 20, 0, MADC)
PL_FORM("madc.(.lo|.hi){.cc}.(.u64|.s64)", "d, a, a, a", 43, 20, 0, MADC)
PL_FORM("mul24.(.lo|.hi).(.u32|.s32)", "d, a, a", 10, 10, 0, MUL24)
PL_FORM("mad24.(.lo|.hi).(.u32|.s32)", "d, a, a, a", 10, 10, 0, MAD24)
PL_FORM("mad24.hi.sat.s32", "d, a, a, a", 10, 10, 0, MAD24)
PL_FORM("sad$i16_64", "d, a, a, a", 10, 10, 0, SAD)
PL_FORM("div$i16_64", "d, a, a", 10, 10, 0, DIV)
PL_FORM("rem$i16_64", "d, a, a", 10, 10, 0, REM)
PL_FORM("abs$s16_64", "d, a", 10, 10, 0, ABS)
PL_FORM("neg$s16_64", "d, a", 10, 10, 0, NEG)
PL_FORM("min$i16_64", "d, a, a", 10, 10, 0, MIN)
PL_FORM("max$i16_64", "d, a, a", 10, 10, 0, MAX)
PL_FORM("min.(.u16x2|.s16x2)", "d:b32=h, r:b32=h, r:b32=h", 80, 90, 0, MIN)
PL_FORM("max.(.u16x2|.s16x2)", "d:b32=h, r:b32=h, r:b32=h", 80, 90, 0, MAX)
PL_FORM("min.relu.s32", "d, a, a", 80, 90, 0, MIN)
PL_FORM("max.relu.s32", "d, a, a", 80, 90, 0, MAX)
PL_FORM("min.relu.s16x2", "d:b32=h, r:b32=h, r:b32=h", 80, 90, 0, MIN)
PL_FORM("max.relu.s16x2", "d:b32=h, r:b32=h, r:b32=h", 80, 90, 0, MAX)
PL_FORM("popc$b32_64", "d:u32, a", 20, 20, 0, POPC)
PL_FORM("clz$b32_64", "d:u32, a", 20, 20, 0, CLZ)
PL_FORM("bfind{.shiftamt}$i32_64", "d:u32, a", 20, 20, 0, BFIND)
PL_FORM("fns.b32", "d, a:b32, a:u32, a:s32", 60, 30, 0, _)
PL_FORM("brev$b32_64", "d, a", 20, 20, 0, BREV)
PL_FORM("bfe$i32_64", "d, a, a:u32^255, a:u32^255", 20, 20, 0, BFE)
PL_FORM("bfi$b32_64", "d, a, a, a:u32^255, a:u32^255", 20, 20, 0, BFI)
PL_FORM("bmsk.(.clamp|.wrap).b32", "d:b32=i, a:b32=i, a:b32=i", 76, 70, 0, BMSK)
PL_FORM("szext.(.clamp|.wrap).(.u32|.s32)", "d, a, a:u32", 76, 70, 0, SZEXT)
PL_FORM("dp4a.(.u32|.s32).(.u32|.s32)", "d:b32=i, a:1, a:2, a:b32=i", 50, 61, 0, DP4A)
PL_FORM("dp2a.(.lo|.hi).(.u32|.s32).(.u32|.s32)", "d:b32=i, a:1, a:2, a:b32=i", 50, 61, 0, DP2A)

/* ---- logic and shift ---- */
PL_FORM("and$lbits", "d, a, a", 10, 10, 0, AND)
PL_FORM("or$lbits", "d, a, a", 10, 10, 0, OR)
PL_FORM("xor$lbits", "d, a, a", 10, 10, 0, XOR)
PL_FORM("not$lbits", "d, a", 10, 10, 0, NOT)
PL_FORM("cnot$b16_64", "d, a", 10, 10, 0, CNOT)
PL_FORM("lop3.b32", "d, a, a, a, i", 43, 50, 0, LOP3)
PL_FORM("lop3.(.and|.or).b32", "d||, a, a, a, i, p!", 82, 70, 0, LOP3)
PL_FORM("shl$b16_64", "d, a, a:u32", 10, 10, 0, SHL)
PL_FORM("shr$shrtyp", "d, a, a:u32", 10, 10, 0, SHR)
PL_FORM("shf.(.l|.r).(.wrap|.clamp).b32", "d, a, a, a:u32", 31, 32, 0, SHF)
PL_FORM("prmt.b32{.f4e|.b4e|.rc8|.ecl|.ecr|.rc16}", "d, a, a, a", 20, 20, 0, PRMT)

/* ---- comparison and selection ---- */
/* setp and set: integers (.lo/.ls/.hi/.hs only unsigned), bits, floats, then half precision */
PL_FORM("setp$icmp{$boolop}$i16_64", "P, a, a, p!<$boolop>", 10, 10, 0, SETP)
PL_FORM("setp$ucmp{$boolop}$u16_64", "P, a, a, p!<$boolop>", 10, 10, 0, SETP)
PL_FORM("setp.(.eq|.ne){$boolop}$b16_64", "P, a, a, p!<$boolop>", 10, 10, 0, SETP)
PL_FORM("setp$fcmp{$boolop}{.ftz}.f32", "P, a, a, p!<$boolop>", 10, 10, 0, SETP)
PL_FORM("setp$fcmp{$boolop}.f64", "P, a, a, p!<$boolop>", 10, 13, 0, SETP)
PL_FORM("setp$fcmp{$boolop}{.ftz}.f16", "p, r, r, p!<$boolop>", 42, 53, 0, SETP)
PL_FORM("setp$fcmp{$boolop}{.ftz}.f16x2", "P, r, r, p!<$boolop>", 42, 53, 0, SETP)
PL_FORM("setp$fcmp{$boolop}.bf16", "p, r, r, p!<$boolop>", 78, 90, 0, SETP)
PL_FORM("setp$fcmp{$boolop}.bf16x2", "P, r, r, p!<$boolop>", 78, 90, 0, SETP)
PL_FORM("set$icmp{$boolop}.(.u32|.s32|.f32)$i16_64", "d, a:2, a:2, p!<$boolop>", 10, 10, 0, SET)
PL_FORM("set$ucmp{$boolop}.(.u32|.s32|.f32)$u16_64", "d, a:2, a:2, p!<$boolop>", 10, 10, 0, SET)
PL_FORM("set.(.eq|.ne){$boolop}.(.u32|.s32|.f32)$b16_64", "d, a:2, a:2, p!<$boolop>", 10, 10, 0,
        SET)
PL_FORM("set$fcmp{$boolop}{.ftz}.(.u32|.s32|.f32).f32", "d, a:2, a:2, p!<$boolop>", 10, 10, 0, SET)
PL_FORM("set$fcmp{$boolop}.(.u32|.s32|.f32).f64", "d, a:2, a:2, p!<$boolop>", 10, 13, 0, SET)
PL_FORM("set$icmp{$boolop}.(.f16|.bf16)$i16_64", "d:b16=h, a:2, a:2, p!<$boolop>", 42, 53, 0, SET)
PL_FORM("set$ucmp{$boolop}.(.f16|.bf16)$u16_64", "d:b16=h, a:2, a:2, p!<$boolop>", 42, 53, 0, SET)
PL_FORM("set.(.eq|.ne){$boolop}.(.f16|.bf16)$b16_64", "d:b16=h, a:2, a:2, p!<$boolop>", 42, 53, 0,
        SET)
PL_FORM("set$fcmp{$boolop}{.ftz}.f16.(.f16|.f32)", "d:b16=h, r:2, r:2, p!<$boolop>", 42, 53, 0, SET)
PL_FORM("set$fcmp{$boolop}.f16.f64", "d:b16=h, r:2, r:2, p!<$boolop>", 42, 53, 0, SET)
PL_FORM("set$fcmp{$boolop}{.ftz}.(.u16|.s16|.u32|.s32).f16", "d, r:2, r:2, p!<$boolop>", 65, 53, 0,
        SET)
PL_FORM("set$fcmp{$boolop}{.ftz}.f16x2.f16x2", "d:b32=h, r:2, r:2, p!<$boolop>", 42, 53, 0, SET)
PL_FORM("set$fcmp{$boolop}{.ftz}.(.u32|.s32).f16x2", "d, r:2, r:2, p!<$boolop>", 65, 53, 0, SET)
PL_FORM("set$fcmp{$boolop}.bf16.(.f16|.bf16|.f32|.f64)", "d:b16=i, r:2, r:2, p!<$boolop>", 78, 90,
        0, SET)
PL_FORM("set$fcmp{$boolop}.(.u16|.s16|.u32|.s32).bf16", "d, r:2, r:2, p!<$boolop>", 78, 90, 0, SET)
PL_FORM("set$fcmp{$boolop}.(.bf16x2|.u32|.s32).bf16x2", "d:b32, r:2, r:2, p!<$boolop>", 78, 90, 0,
        SET)
PL_FORM("selp$seltyp", "d, a, a, p!", 10, 10, 0, SELP)
PL_FORM("slct$seltyp.s32", "d, a, a, a:2", 10, 10, 0, SLCT)
PL_FORM("slct{.ftz}$seltyp.f32", "d, a, a, a:2", 10, 10, 0, SLCT)

/* ---- floating point: f32 and f64 ---- */
PL_FORM("add{$rnd}{.ftz}{.sat}.f32", "d, a, a", 10, 10, 0, FADD)
PL_FORM("add{$rnd}{.ftz}.f32x2", "d:b64=, r:b64=, r:b64=", 86, 100, 0, FADD)
PL_FORM("add{$rnd}.f64", "d, a, a", 10, 13, 0, FADD)
PL_FORM("sub{$rnd}{.ftz}{.sat}.f32", "d, a, a", 10, 10, 0, FSUB)
PL_FORM("sub{$rnd}{.ftz}.f32x2", "d:b64=, r:b64=, r:b64=", 86, 100, 0, FSUB)
PL_FORM("sub{$rnd}.f64", "d, a, a", 10, 13, 0, FSUB)
PL_FORM("mul{$rnd}{.ftz}{.sat}.f32", "d, a, a", 10, 10, 0, FMUL)
PL_FORM("mul{$rnd}{.ftz}.f32x2", "d:b64=, r:b64=, r:b64=", 86, 100, 0, FMUL)
PL_FORM("mul{$rnd}.f64", "d, a, a", 10, 13, 0, FMUL)
PL_FORM("fma$rnd{.ftz}{.sat}.f32", "d, a, a, a", 20, 20, 0, FFMA)
PL_FORM("fma$rnd{.ftz}.f32x2", "d:b64=, r:b64=, r:b64=, r:b64=", 86, 100, 0, FFMA)
PL_FORM("fma$rnd.f64", "d, a, a, a", 14, 13, 0, FFMA)
PL_FORM("mad$rnd{.ftz}{.sat}.f32", "d, a, a, a", 20, 20, 0, FFMA)
PL_FORM("mad$rnd.f64", "d, a, a, a", 14, 13, 0, FFMA)
PL_FORM("div.(.approx|.full){.ftz}.f32", "d, a, a", 14, 10, 0, FDIV)
PL_FORM("div$rnd{.ftz}.f32", "d, a, a", 20, 20, 0, FDIV)
PL_FORM("div$rnd.f64", "d, a, a", 14, 13, 0, FDIV)
PL_FORM("abs{.ftz}.f32", "d, a", 10, 10, 0, FABS)
PL_FORM("abs.f64", "d, a", 10, 13, 0, FABS)
PL_FORM("neg{.ftz}.f32", "d, a", 10, 10, 0, FNEG)
PL_FORM("neg.f64", "d, a", 10, 13, 0, FNEG)
PL_FORM("min{.ftz}{.NaN}.f32", "d, a, a", 10, 10, 0, FMIN)
PL_FORM("min{.ftz}{.NaN}.f32", "d, a, a, a", 88, 100, 0, FMIN)
PL_FORM("min{.ftz}{.NaN}.xorsign.abs.f32", "d, a, a", 72, 86, 0, FMIN)
PL_FORM("min.f64", "d, a, a", 10, 13, 0, FMIN)
PL_FORM("max{.ftz}{.NaN}.f32", "d, a, a", 10, 10, 0, FMAX)
PL_FORM("max{.ftz}{.NaN}.f32", "d, a, a, a", 88, 100, 0, FMAX)
PL_FORM("max{.ftz}{.NaN}.xorsign.abs.f32", "d, a, a", 72, 86, 0, FMAX)
PL_FORM("max.f64", "d, a, a", 10, 13, 0, FMAX)
PL_FORM("rcp.approx{.ftz}.f32", "d, a", 10, 10, 0, RCP)
PL_FORM("rcp$rnd{.ftz}.f32", "d, a", 20, 20, 0, RCP)
PL_FORM("rcp$rnd.f64", "d, a", 14, 13, 0, RCP)
PL_FORM("rcp.approx.ftz.f64", "d, a", 21, 20, 0, RCP)
PL_FORM("sqrt.approx{.ftz}.f32", "d, a", 10, 10, 0, SQRT)
PL_FORM("sqrt$rnd{.ftz}.f32", "d, a", 20, 20, 0, SQRT)
PL_FORM("sqrt$rnd.f64", "d, a", 14, 13, 0, SQRT)
PL_FORM("rsqrt.approx{.ftz}.f32", "d, a", 10, 10, 0, RSQRT)
PL_FORM("rsqrt.approx.f64", "d, a", 10, 13, 0, RSQRT)
PL_FORM("rsqrt.approx.ftz.f64", "d, a", 40, 20, 0, RSQRT)
PL_FORM("sin.approx{.ftz}.f32", "d, a", 10, 10, 0, SIN)
PL_FORM("cos.approx{.ftz}.f32", "d, a", 10, 10, 0, COS)
PL_FORM("lg2.approx{.ftz}.f32", "d, a", 10, 10, 0, LG2)
PL_FORM("ex2.approx{.ftz}.f32", "d, a", 10, 10, 0, EX2)
PL_FORM("tanh.approx.f32", "d, a", 70, 75, 0, TANH)
PL_FORM("copysign$fnf", "d, a, a", 20, 20, 0, COPYSIGN)
PL_FORM("testp.(.finite|.infinite|.number|.notanumber|.normal|.subnormal)$fnf", "p, a", 20, 20, 0,
        TESTP)

/* ---- floating point: f16, bf16 and their x2 forms ---- */
PL_FORM("add{.rn}{.ftz}{.sat}$f16t", "d, r, r", 42, 53, 0, FADD)
PL_FORM("sub{.rn}{.ftz}{.sat}$f16t", "d, r, r", 42, 53, 0, FSUB)
PL_FORM("mul{.rn}{.ftz}{.sat}$f16t", "d, r, r", 42, 53, 0, FMUL)
PL_FORM("add{.rn}$bf16t", "d, r, r", 78, 90, 0, FADD)
PL_FORM("sub{.rn}$bf16t", "d, r, r", 78, 90, 0, FSUB)
PL_FORM("mul{.rn}$bf16t", "d, r, r", 78, 90, 0, FMUL)
PL_FORM("fma.rn{.ftz}{.sat}$f16t", "d, r, r, r", 42, 53, 0, FFMA)
PL_FORM("fma.rn{.ftz}.relu$f16t", "d, r, r, r", 70, 80, 0, FFMA)
PL_FORM("fma.rn{.relu}$bf16t", "d, r, r, r", 70, 80, 0, FFMA)
PL_FORM("fma.rn.oob{.relu}$h16t", "d, r, r, r", 81, 90, 0, FFMA)
PL_FORM("neg{.ftz}$f16t", "d, r", 60, 53, 0, FNEG)
PL_FORM("neg$bf16t", "d, r", 70, 80, 0, FNEG)
PL_FORM("abs{.ftz}$f16t", "d, r", 65, 53, 0, FABS)
PL_FORM("abs$bf16t", "d, r", 70, 80, 0, FABS)
PL_FORM("min{.ftz}{.NaN}$f16t", "d, r, r", 70, 80, 0, FMIN)
PL_FORM("min{.ftz}{.NaN}.xorsign.abs$f16t", "d, r, r", 72, 86, 0, FMIN)
PL_FORM("min{.NaN}$bf16t", "d, r, r", 70, 80, 0, FMIN)
PL_FORM("min{.NaN}.xorsign.abs$bf16t", "d, r, r", 72, 86, 0, FMIN)
PL_FORM("max{.ftz}{.NaN}$f16t", "d, r, r", 70, 80, 0, FMAX)
PL_FORM("max{.ftz}{.NaN}.xorsign.abs$f16t", "d, r, r", 72, 86, 0, FMAX)
PL_FORM("max{.NaN}$bf16t", "d, r, r", 70, 80, 0, FMAX)
PL_FORM("max{.NaN}.xorsign.abs$bf16t", "d, r, r", 72, 86, 0, FMAX)
PL_FORM("ex2.approx$f16t", "d, r", 70, 75, 0, EX2)
PL_FORM("ex2.approx.ftz$bf16t", "d, r", 78, 90, 0, EX2)
PL_FORM("tanh.approx$f16t", "d, r", 70, 75, 0, TANH)
PL_FORM("tanh.approx$bf16t", "d, r", 78, 90, 0, TANH)

/* ---- conversion ---- */
/* integers and the classic floating point types, then bf16, tf32 and the fp8/fp6/fp4 formats */
PL_FORM("cvt$i8_64$i8_64r", "dw, aw:2", 10, 10, 0, CVT)
PL_FORM("cvt.sat$cvtsat", "dw, aw:2", 10, 10, 0, CVT)
PL_FORM("cvt$irnd{.ftz}{.sat}$i8_64.f32", "dw, aw:2", 10, 10, 0, CVT)
PL_FORM("cvt$irnd{.sat}$i8_64.f64", "dw, aw:2", 10, 13, 0, CVT)
PL_FORM("cvt$irnd{.sat}$i8_64.f16", "dw, aw:2", 42, 53, 0, CVT)
PL_FORM("cvt$irnd$i8_64.bf16", "dw, r:2", 78, 90, 0, CVT)
PL_FORM("cvt$rnd{.ftz}{.sat}.f32$i8_64", "dw, aw:2", 10, 10, 0, CVT)
PL_FORM("cvt$rnd{.sat}.f64$i8_64", "dw, aw:2", 10, 13, 0, CVT)
PL_FORM("cvt$rnd{.sat}.f16$i8_64", "dw, aw:2", 42, 53, 0, CVT)
PL_FORM("cvt$rnd.bf16$i8_64", "d, aw:2", 78, 90, 0, CVT)
PL_FORM("cvt{$irnd}{.ftz}{.sat}.f32.f32", "dw, aw:2", 10, 10, 0, CVT)
PL_FORM("cvt{$irnd}{.sat}.f64.f64", "dw, aw:2", 10, 13, 0, CVT)
PL_FORM("cvt{$irnd}{.sat}.f16.f16", "dw, aw:2", 42, 53, 0, CVT)
PL_FORM("cvt{$irnd}.bf16.bf16", "d, r:2", 78, 90, 0, CVT)
PL_FORM("cvt{.ftz}{.sat}.f32.f16", "dw, aw:2", 42, 53, 0, CVT)
PL_FORM("cvt$rnd{.ftz}{.sat}.f16.f32", "dw, aw:2", 42, 53, 0, CVT)
PL_FORM("cvt{.sat}.f64.f16", "dw, aw:2", 42, 53, 0, CVT)
PL_FORM("cvt$rnd{.sat}.f16.f64", "dw, aw:2", 42, 53, 0, CVT)
PL_FORM("cvt{.ftz}{.sat}.f64.f32", "dw, aw:2", 10, 13, 0, CVT)
PL_FORM("cvt$rnd{.ftz}{.sat}.f32.f64", "dw, aw:2", 10, 13, 0, CVT)
/* ptxas takes .satfinite alone from sm_75 (.relu from sm_80) */
PL_FORM("cvt.(.rn|.rz).satfinite.f16.f32", "d, a:2", 70, 75, 0, CVT)
PL_FORM("cvt.(.rn|.rz)(.relu|.relu.satfinite).f16.f32", "d, a:2", 70, 80, 0, CVT)
PL_FORM("cvt.(.rn|.rz){.relu}{.satfinite}.bf16.f32", "d, a:2", 70, 80, 0, CVT)
PL_FORM("cvt.(.rm|.rp).bf16.f32", "d, a:2", 70, 80, 0, CVT)
PL_FORM("cvt$rnd.bf16.(.f16|.f64)", "d, r:2", 78, 90, 0, CVT)
PL_FORM("cvt.f32.bf16", "d, r:2", 71, 80, 0, CVT)
PL_FORM("cvt.f64.bf16", "d, r:2", 78, 90, 0, CVT)
PL_FORM("cvt{$rnd}.f16.bf16", "d, r:2", 78, 90, 0, CVT)
PL_FORM("cvt.(.rn|.rz){.relu}{.satfinite}.(.f16x2|.bf16x2).f32", "d, a:2, a:2", 70, 80, 0, CVT)
PL_FORM("cvt.rs{.relu}{.satfinite}.(.f16x2|.bf16x2).f32", "d, a:2, a:2, r:b32=", 87, 100,
        PLA_ARCH_A, CVT)
PL_FORM("cvt.rna{.satfinite}.tf32.f32", "d, a:2", 70, 80, 0, CVT)
PL_FORM("cvt.(.rn|.rz){.relu}.tf32.f32", "d, a:2", 78, 90, 0, CVT)
PL_FORM("cvt.(.rn|.rz).satfinite{.relu}.tf32.f32", "d, a:2", 86, 100, 0, CVT)
PL_FORM("cvt.rn.satfinite{.relu}.(.e4m3x2|.e5m2x2).f32", "d, a:2, a:2", 81, 89, 0, CVT)
PL_FORM("cvt.rn.satfinite{.relu}.(.e4m3x2|.e5m2x2).f16x2", "d, r:2", 81, 89, 0, CVT)
PL_FORM("cvt.rn{.relu}.f16x2.(.e4m3x2|.e5m2x2)", "d, r:2", 81, 89, 0, CVT)
PL_FORM("cvt.rs{.relu}.satfinite.(.e4m3x4|.e5m2x4).f32", "d, r[4]:2, r:b32=", 87, 100, PLA_ARCH_A,
        CVT)
PL_FORM("cvt.rn.satfinite{.relu}.e2m1x2.f32", "d, a:2, a:2", 86, 100, PLA_SPECIFIC, CVT)
PL_FORM("cvt.rn{.relu}.f16x2.e2m1x2", "d, r:2", 86, 100, PLA_SPECIFIC, CVT)
PL_FORM("cvt.rs{.relu}.satfinite.e2m1x4.f32", "d, r[4]:2, r:b32=", 87, 100, PLA_ARCH_A, CVT)
PL_FORM("cvt.rn.satfinite{.relu}.(.e2m3x2|.e3m2x2).f32", "d, a:2, a:2", 86, 100, PLA_SPECIFIC, CVT)
PL_FORM("cvt.rn{.relu}.f16x2.(.e2m3x2|.e3m2x2)", "d, r:2", 86, 100, PLA_SPECIFIC, CVT)
PL_FORM("cvt.rs{.relu}.satfinite.(.e2m3x4|.e3m2x4).f32", "d, r[4]:2, r:b32=", 87, 100, PLA_ARCH_A,
        CVT)
PL_FORM("cvt.(.rz|.rp){.satfinite}.ue8m0x2.f32", "d, a:2, a:2", 86, 100, PLA_SPECIFIC, CVT)
PL_FORM("cvt.(.rz|.rp){.satfinite}.ue8m0x2.bf16x2", "d, r:2", 86, 100, PLA_SPECIFIC, CVT)
PL_FORM("cvt.rn.bf16x2.ue8m0x2", "d, r:2", 86, 100, PLA_SPECIFIC, CVT)
PL_FORM("cvt.pack.sat.(.u16|.s16).s32", "dw:b32, a:s32, a:s32", 65, 72, 0, CVT)
PL_FORM("cvt.pack.sat.(.u2|.s2|.u4|.s4|.u8|.s8).s32.b32", "dw:b32, a:s32, a:s32, a:b32", 65, 72, 0,
        CVT)

/* ---- data movement ---- */
/* mov: a value, address or special register; then {a, b} packing and unpacking */
PL_FORM("mov$movtyp", "d, s", 10, 10, 0, MOV)
PL_FORM("mov.b128", "d, r", 83, 70, 0, MOV)
PL_FORM("mov.b16", "d, r[2]:b8", 10, 10, 0, MOV)
PL_FORM("mov.b16", "d[2]:b8_, r", 10, 10, 0, MOV)
PL_FORM("mov.b32", "d, r[2]:b16", 10, 10, 0, MOV)
PL_FORM("mov.b32", "d[2]:b16_, r", 10, 10, 0, MOV)
PL_FORM("mov.b32", "d, r[4]:b8", 10, 10, 0, MOV)
PL_FORM("mov.b32", "d[4]:b8_, r", 10, 10, 0, MOV)
PL_FORM("mov.b64", "d, r[2]:b32", 10, 10, 0, MOV)
PL_FORM("mov.b64", "d[2]:b32_, r", 10, 10, 0, MOV)
PL_FORM("mov.b64", "d, r[4]:b16", 10, 10, 0, MOV)
PL_FORM("mov.b64", "d[4]:b16_, r", 10, 10, 0, MOV)
PL_FORM("mov.b128", "d, r[2]:b64", 83, 70, 0, MOV)
PL_FORM("mov.b128", "d[2]:b64_, r", 83, 70, 0, MOV)
PL_FORM("mov.b128", "d, r[4]:b32", 83, 70, 0, MOV)
PL_FORM("mov.b128", "d[4]:b32_, r", 83, 70, 0, MOV)
/* ld: weak (the default), with cache hints (.global), 256-bit vectors (sm_100), .volatile,
** .relaxed/.acquire, .mmio, the non-coherent .nc, and ldu */
PL_FORM("ld{.weak}{$ldss}{$ldcop}$ldvtq", "dvw, mg", 10, 10, 0, LD)
PL_FORM("ld{.weak}{.global}{$ldcop}.L2::cache_hint{$prefsz}$ldvtq", "dvw, mg, a:u64", 10, 10, 0, LD)
PL_FORM("ld{.weak}{.global}{$ldcop}$prefsz$ldvtq", "dvw, mg", 10, 10, 0, LD)
PL_FORM("ld{.weak}{.global}$l1evict{.L2::cache_hint}{$prefsz}$ldvtq",
        "dvw, mg, a<.L2::cache_hint>:u64", 10, 10, 0, LD)
PL_FORM("ld{.weak}{.global}{$l1evict}{$l2evict}{.L2::cache_hint}$ldvt256",
        "dv_w, mg, a<.L2::cache_hint>:u64", 88, 100, 0, LD)
PL_FORM("ld.volatile{$gsss}$ldvtq", "dvw, mg", 11, 10, 0, LD)
PL_FORM("ld.volatile{.global}$prefsz$ldvtq", "dvw, mg", 11, 10, 0, LD)
PL_FORM("ld.(.relaxed|.acquire)$scope78{$gsss}$ldvt", "dvw, mg", 60, 70, 0, LD)
PL_FORM("ld.(.relaxed|.acquire).(.cta|.cluster|.gpu){$gsss}.b128", "d, mg", 83, 70, 0, LD)
PL_FORM("ld.(.relaxed|.acquire).sys{$gsss}.b128", "d, mg", 84, 70, 0, LD)
PL_FORM("ld.(.relaxed|.acquire)$scope78{.global}{$l1evict}{.L2::cache_hint}{$prefsz}$ldvt",
        "dvw, mg, a<.L2::cache_hint>:u64", 60, 70, 0, LD)
PL_FORM("ld.(.relaxed|.acquire)$scope78{.global}{$l1evict}{$l2evict}{.L2::cache_hint}$ldvt256",
        "dv_w, mg, a<.L2::cache_hint>:u64", 88, 100, 0, LD)
PL_FORM("ld.mmio.relaxed.sys{.global}$ld32", "dw, mg", 82, 70, 0, LD)
PL_FORM("ld.global{.ca|.cg|.cs}.nc{.L2::cache_hint}{$prefsz}$ldvtq",
        "dvw, mg, a<.L2::cache_hint>:u64", 31, 32, 0, LD)
PL_FORM("ld.global.nc$l1evict{.L2::cache_hint}{$prefsz}$ldvtq", "dvw, mg, a<.L2::cache_hint>:u64",
        31, 32, 0, LD)
PL_FORM("ld.global.nc{$l1evict}{$l2evict}{.L2::cache_hint}$ldvt256",
        "dv_w, mg, a<.L2::cache_hint>:u64", 88, 100, 0, LD)
PL_FORM("ldu{.global}$ldvtq", "dvw, mg", 20, 20, 0, LD)
/* st: as ld (st.param writes a function's .param variables, not a kernel's parameters) */
PL_FORM("st{.weak}{$stss}{$stcop}$ldvtq", "mg>, avw", 10, 10, 0, ST)
PL_FORM("st{.weak}{.global}{$stcop}.L2::cache_hint$ldvtq", "mg, avw, a:u64", 10, 10, 0, ST)
PL_FORM("st{.weak}{.global}$l1evict{.L2::cache_hint}$ldvtq", "mg, avw, a<.L2::cache_hint>:u64", 10,
        10, 0, ST)
PL_FORM("st{.weak}{.global}{$l1evict}{$l2evict}{.L2::cache_hint}$ldvt256",
        "mg, avw, a<.L2::cache_hint>:u64", 88, 100, 0, ST)
PL_FORM("st.volatile{$gsss}$ldvtq", "mg, avw", 11, 10, 0, ST)
/* the older order, state space before .volatile, which ptxas still takes (nvcc and clang emit
** it) */
PL_FORM("ld$gsss.volatile$ldvtq", "dvw, mg", 11, 10, 0, LD)
PL_FORM("st$gsss.volatile$ldvtq", "mg, avw", 11, 10, 0, ST)
PL_FORM("st.(.relaxed|.release)$scope78{$gsss}$ldvt", "mg, avw", 60, 70, 0, ST)
PL_FORM("st.(.relaxed|.release).(.cta|.cluster|.gpu){$gsss}.b128", "mg, a", 83, 70, 0, ST)
PL_FORM("st.(.relaxed|.release).sys{$gsss}.b128", "mg, a", 84, 70, 0, ST)
PL_FORM("st.(.relaxed|.release)$scope78{.global}{$l1evict}{.L2::cache_hint}$ldvt",
        "mg, avw, a<.L2::cache_hint>:u64", 60, 70, 0, ST)
PL_FORM("st.(.relaxed|.release)$scope78{.global}{$l1evict}{$l2evict}{.L2::cache_hint}$ldvt256",
        "mg, avw, a<.L2::cache_hint>:u64", 88, 100, 0, ST)
PL_FORM("st.mmio.relaxed.sys{.global}$ld32", "mg, aw", 82, 70, 0, ST)
/* prefetch, cache policies, generic addresses */
PL_FORM("prefetch{.global|.local}.(.L1|.L2)", "mg", 20, 20, 0, PREFETCH)
PL_FORM("prefetch.global.(.L2::evict_last|.L2::evict_normal)", "mg", 74, 80, 0, PREFETCH)
PL_FORM("prefetch{.const|.param}.tensormap", "mg", 80, 90, 0, PREFETCH)
PL_FORM("prefetchu.L1", "mgG", 20, 20, 0, PREFETCH)
PL_FORM("createpolicy.fractional.(.L2::evict_last|.L2::evict_normal|.L2::evict_first|"
        ".L2::evict_unchanged){.L2::evict_unchanged|.L2::evict_first}.b64", "d:b64=i, i?:f32", 74,
        80, 0, _)
PL_FORM("createpolicy.range{.global}.(.L2::evict_last|.L2::evict_normal|.L2::evict_first|"
        ".L2::evict_unchanged){.L2::evict_unchanged|.L2::evict_first}.b64",
        "d:b64=i, mg, a:u32, a:u32", 74, 80, 0, _)
PL_FORM("createpolicy.cvt.L2.b64", "d:b64=i, a:b64=i", 74, 80, 0, _)
PL_FORM("discard{.global}.L2", "mg, i:u32@128", 74, 80, 0, _)
PL_FORM("applypriority{.global}.L2::evict_normal", "mg, i:u32@128", 74, 80, 0, _)
PL_FORM("cvta$cvtspace.u64", "d, A", 20, 20, 0, CVTA)
PL_FORM("cvta.to$cvtspace.u64", "d, A", 20, 20, 0, CVTATO)
PL_FORM("isspacep$cvtspace", "p, a:*", 20, 20, 0, ISSPACEP)

/* ---- atomics and reductions ---- */
/* atom: each operation with and without .L2::cache_hint (.global only); then 128-bit, half
** precision and vector (.global) forms. .sem, .scope and spaces raise the minimums (PL_MOD). */
PL_FORM("atom{$atomsem}{$scope78}{$gsss}.(.and|.or|.xor|.exch)$b32_64", "d, mg, a", 20, 20, 0, ATOM)
PL_FORM("atom{$atomsem}{$scope78}{.global}.(.and|.or|.xor|.exch).L2::cache_hint$b32_64",
        "d, mg, a, a:u64", 20, 20, 0, ATOM)
PL_FORM("atom{$atomsem}{$scope78}{$gsss}.add.(.u32|.s32|.u64|.f32)", "d, mg, a", 20, 20, 0, ATOM)
PL_FORM("atom{$atomsem}{$scope78}{.global}.add.L2::cache_hint.(.u32|.s32|.u64|.f32)",
        "d, mg, a, a:u64", 20, 20, 0, ATOM)
PL_FORM("atom{$atomsem}{$scope78}{$gsss}.add.f64", "d, mg, a", 50, 60, 0, ATOM)
PL_FORM("atom{$atomsem}{$scope78}{.global}.add.L2::cache_hint.f64", "d, mg, a, a:u64", 50, 60, 0,
        ATOM)
PL_FORM("atom{$atomsem}{$scope78}{$gsss}.(.inc|.dec).u32", "d, mg, a", 20, 20, 0, ATOM)
PL_FORM("atom{$atomsem}{$scope78}{.global}.(.inc|.dec).L2::cache_hint.u32", "d, mg, a, a:u64", 20,
        20, 0, ATOM)
PL_FORM("atom{$atomsem}{$scope78}{$gsss}.(.min|.max).(.u32|.s32)", "d, mg, a", 20, 20, 0, ATOM)
PL_FORM("atom{$atomsem}{$scope78}{.global}.(.min|.max).L2::cache_hint.(.u32|.s32)",
        "d, mg, a, a:u64", 20, 20, 0, ATOM)
PL_FORM("atom{$atomsem}{$scope78}{$gsss}.(.min|.max).(.u64|.s64)", "d, mg, a", 31, 32, 0, ATOM)
PL_FORM("atom{$atomsem}{$scope78}{.global}.(.min|.max).L2::cache_hint.(.u64|.s64)",
        "d, mg, a, a:u64", 31, 32, 0, ATOM)
PL_FORM("atom{$atomsem}{$scope78}{$gsss}.cas$b32_64", "d, mg, a, a", 20, 20, 0, ATOM)
PL_FORM("atom{$atomsem}{$scope78}{$gsss}.cas.b16", "d, mg, a, a", 63, 70, 0, ATOM)
PL_FORM("atom{$atomsem}{.cta|.cluster|.gpu}{$gsss}.cas.b128", "d, mg, r, r", 83, 90, 0, ATOM)
PL_FORM("atom{$atomsem}.sys{$gsss}.cas.b128", "d, mg, r, r", 84, 90, 0, ATOM)
PL_FORM("atom{$atomsem}{.cta|.cluster|.gpu}{$gsss}.exch.b128", "d, mg, r", 83, 90, 0, ATOM)
PL_FORM("atom{$atomsem}{.cta|.cluster|.gpu}{.global}.exch.L2::cache_hint.b128", "d, mg, r, a:u64",
        83, 90, 0, ATOM)
PL_FORM("atom{$atomsem}.sys{$gsss}.exch.b128", "d, mg, r", 84, 90, 0, ATOM)
PL_FORM("atom{$atomsem}.sys{.global}.exch.L2::cache_hint.b128", "d, mg, r, a:u64", 84, 90, 0, ATOM)
PL_FORM("atom{$atomsem}{$scope78}{$gsss}.add.noftz.f16x2", "d, mg, r", 62, 60, 0, ATOM)
PL_FORM("atom{$atomsem}{$scope78}{$gsss}.add.noftz.f16", "d, mg, r", 63, 70, 0, ATOM)
PL_FORM("atom{$atomsem}{$scope78}{$gsss}.add.noftz$bf16t", "d, mg, r", 78, 90, 0, ATOM)
PL_FORM("atom{$atomsem}{$scope78}{.global}.add.noftz.L2::cache_hint$f16t", "d, mg, r, a:u64", 74,
        80, 0, ATOM)
PL_FORM("atom{$atomsem}{$scope78}{.global}.add.noftz.L2::cache_hint$bf16t", "d, mg, r, a:u64", 78,
        90, 0, ATOM)
PL_FORM("atom{$atomsem}{$scope78}{.global}.add{.L2::cache_hint}.(.v2|.v4).f32",
        "dv, mg, rv, a<.L2::cache_hint>:u64", 81, 90, 0, ATOM)
PL_FORM("atom{$atomsem}{$scope78}{.global}.(.add|.min|.max).noftz{.L2::cache_hint}.(.v2|.v4|.v8).("
        ".f16|.bf16)", "dv, mg, rv, a<.L2::cache_hint>:u64", 81, 90, 0, ATOM)
PL_FORM("atom{$atomsem}{$scope78}{.global}.(.add|.min|.max).noftz{.L2::cache_hint}.(.v2|.v4).("
        ".f16x2|.bf16x2)", "dv, mg, rv, a<.L2::cache_hint>:u64", 81, 90, 0, ATOM)
/* red: as atom, without a result */
PL_FORM("red{.relaxed|.release}{$scope78}{$gsss}.(.and|.or|.xor)$b32_64", "mg, a", 20, 20, 0, RED)
PL_FORM("red{.relaxed|.release}{$scope78}{.global}.(.and|.or|.xor).L2::cache_hint$b32_64",
        "mg, a, a:u64", 20, 20, 0, RED)
PL_FORM("red{.relaxed|.release}{$scope78}{$gsss}.add.(.u32|.s32|.u64|.f32)", "mg, a", 20, 20, 0,
        RED)
PL_FORM("red{.relaxed|.release}{$scope78}{.global}.add.L2::cache_hint.(.u32|.s32|.u64|.f32)",
        "mg, a, a:u64", 20, 20, 0, RED)
PL_FORM("red{.relaxed|.release}{$scope78}{$gsss}.add.f64", "mg, a", 50, 60, 0, RED)
PL_FORM("red{.relaxed|.release}{$scope78}{.global}.add.L2::cache_hint.f64", "mg, a, a:u64", 50, 60,
        0, RED)
PL_FORM("red{.relaxed|.release}{$scope78}{$gsss}.(.inc|.dec).u32", "mg, a", 20, 20, 0, RED)
PL_FORM("red{.relaxed|.release}{$scope78}{.global}.(.inc|.dec).L2::cache_hint.u32", "mg, a, a:u64",
        20, 20, 0, RED)
PL_FORM("red{.relaxed|.release}{$scope78}{$gsss}.(.min|.max).(.u32|.s32)", "mg, a", 20, 20, 0, RED)
PL_FORM("red{.relaxed|.release}{$scope78}{.global}.(.min|.max).L2::cache_hint.(.u32|.s32)",
        "mg, a, a:u64", 20, 20, 0, RED)
PL_FORM("red{.relaxed|.release}{$scope78}{$gsss}.(.min|.max).(.u64|.s64)", "mg, a", 31, 32, 0, RED)
PL_FORM("red{.relaxed|.release}{$scope78}{.global}.(.min|.max).L2::cache_hint.(.u64|.s64)",
        "mg, a, a:u64", 31, 32, 0, RED)
PL_FORM("red{.relaxed|.release}{$scope78}{$gsss}.add.noftz.f16x2", "mg, r", 62, 60, 0, RED)
PL_FORM("red{.relaxed|.release}{$scope78}{$gsss}.add.noftz.f16", "mg, r", 63, 70, 0, RED)
PL_FORM("red{.relaxed|.release}{$scope78}{$gsss}.add.noftz$bf16t", "mg, r", 78, 90, 0, RED)
PL_FORM("red{.relaxed|.release}{$scope78}{.global}.add.noftz.L2::cache_hint$f16t", "mg, r, a:u64",
        74, 80, 0, RED)
PL_FORM("red{.relaxed|.release}{$scope78}{.global}.add.noftz.L2::cache_hint$bf16t", "mg, r, a:u64",
        78, 90, 0, RED)
PL_FORM("red{.relaxed|.release}{$scope78}{.global}.add{.L2::cache_hint}.(.v2|.v4).f32",
        "mg, rv, a<.L2::cache_hint>:u64", 81, 90, 0, RED)
PL_FORM("red{.relaxed|.release}{$scope78}{.global}.(.add|.min|.max).noftz{.L2::cache_hint}.(.v2|"
        ".v4|.v8).(.f16|.bf16)", "mg, rv, a<.L2::cache_hint>:u64", 81, 90, 0, RED)
PL_FORM("red{.relaxed|.release}{$scope78}{.global}.(.add|.min|.max).noftz{.L2::cache_hint}.(.v2|"
        ".v4).(.f16x2|.bf16x2)", "mg, rv, a<.L2::cache_hint>:u64", 81, 90, 0, RED)

/* ---- warp level ---- */
PL_FORM("shfl.sync.(.up|.down|.bfly|.idx).b32", "d|, a, a:u32, a:u32, a:u32", 60, 30, 0, SHFL)
PL_FORM("vote.sync.(.all|.any|.uni).pred", "p, p!, a:u32", 60, 30, 0, VOTE)
PL_FORM("vote.sync.ballot.b32", "d, p!, a:u32", 60, 30, 0, VOTE)
PL_FORM("activemask.b32", "d", 62, 30, 0, ACTIVEMASK)
PL_FORM("redux.sync.(.add|.min|.max).(.u32|.s32)", "d, a, a:u32", 70, 80, 0, REDUX)
PL_FORM("redux.sync.(.and|.or|.xor).b32", "d:b32=i, a:b32=i, a:u32", 70, 80, 0, REDUX)
PL_FORM("redux.sync.(.min|.max){.abs}{.NaN}.f32", "d, a, a:u32", 86, 100, PLA_FAMILY_A, REDUX)
PL_FORM("match.any.sync$b32_64", "d:b32=i, a, a:u32", 60, 70, 0, MATCH)
PL_FORM("match.all.sync$b32_64", "d|:b32, a, a:u32", 60, 70, 0, MATCH)
PL_FORM("bar.warp.sync", "a:u32", 60, 30, 0, BARWARP)

/* ---- barriers and fences ---- */
/* bar and barrier (barrier: .aligned is optional), cluster barriers */
PL_FORM("bar{.cta}.sync", "a:u32^15, a?:u32%32", 10, 10, 0, BAR)
PL_FORM("bar{.cta}.arrive", "a:u32^15, a:u32%32^1..4294967295", 20, 20, 0, BAR)
PL_FORM("bar{.cta}.red.popc.u32", "d, a:u32^15, a?:u32%32, p!", 20, 20, 0, BAR)
PL_FORM("bar{.cta}.red.(.and|.or).pred", "p, a:u32^15, a?:u32%32, p!", 20, 20, 0, BAR)
PL_FORM("barrier{.cta}.sync{.aligned}", "a:u32^15, a?:u32%32", 60, 30, 0, BARRIER)
PL_FORM("barrier{.cta}.arrive{.aligned}", "a:u32^15, a:u32%32^1..4294967295", 60, 30, 0, BARRIER)
PL_FORM("barrier{.cta}.red.popc{.aligned}.u32", "d, a:u32^15, a?:u32%32, p!", 60, 30, 0, BARRIER)
PL_FORM("barrier{.cta}.red.(.and|.or){.aligned}.pred", "p, a:u32^15, a?:u32%32, p!", 60, 30, 0,
        BARRIER)
PL_FORM("barrier.cluster.arrive{.release|.relaxed}{.aligned}", "", 78, 90, 0, CLBAR)
PL_FORM("barrier.cluster.wait{.acquire}{.aligned}", "", 78, 90, 0, CLBAR)
/* membar and fence: thread fences, restricted fences, proxy fences */
PL_FORM("membar.(.cta|.gl)", "", 14, 20, 0, MEMBAR)
PL_FORM("membar.sys", "", 20, 20, 0, MEMBAR)
PL_FORM("membar.proxy.alias", "", 75, 70, 0, MEMBAR)
PL_FORM("fence{.sc|.acq_rel}$scope78", "", 60, 70, 0, MEMBAR)
/* ptxas takes fence.acquire/.release as early as fence.acq_rel (at the least version and target
** it assembles: PTX 6.3, sm_75), whatever the ISA's 8.6 and sm_90 */
PL_FORM("fence.(.acquire|.release)$scope78", "", 60, 70, 0, MEMBAR)
PL_FORM("fence.acquire.sync_restrict::shared::cluster.cluster", "", 86, 90, 0, MEMBAR)
PL_FORM("fence.release.sync_restrict::shared::cta.cluster", "", 86, 90, 0, MEMBAR)
PL_FORM("fence.mbarrier_init.release.cluster", "", 80, 90, 0, FENCEMBINIT)
PL_FORM("fence.proxy.alias", "", 75, 70, 0, FENCEPROXY)
PL_FORM("fence.proxy.async{.global|.shared::cta|.shared::cluster}", "", 80, 90, 0, FENCEPROXY)
PL_FORM("fence.proxy.tensormap::generic.release$scope78", "", 83, 90, 0, FENCEPROXY)
PL_FORM("fence.proxy.tensormap::generic.acquire$scope78", "m, i:u32@128", 83, 90, 0, FENCEPROXY)
PL_FORM("fence.proxy.async::generic.acquire.sync_restrict::shared::cluster.cluster", "", 86, 90, 0,
        FENCEPROXY)
PL_FORM("fence.proxy.async::generic.release.sync_restrict::shared::cta.cluster", "", 86, 90, 0,
        FENCEPROXY)

/* ---- control flow ---- */
PL_FORM("bra{.uni}", "l", 10, 10, PLA_BRANCH, BRA)
PL_FORM("brx.idx{.uni}", "a:u32, x", 60, 30, 0, _)
/* a direct call: (results), callee, (arguments); each list may be left out (the second form) */
PL_FORM("call{.uni}", "R, F, L?", 20, 20, 0, CALL)
PL_FORM("call{.uni}", "F, L?", 20, 20, 0, CALL)
/* an indirect call through a function pointer (a .b64 register): then a .callprototype label, or
** a .calltargets list, says what it may call (nvcc writes function pointers and virtual calls
** so) */
PL_FORM("call{.uni}", "R, r:b64=i, L, x", 21, 20, 0, CALL)
PL_FORM("call{.uni}", "r:b64=i, L, x", 21, 20, 0, CALL)
PL_FORM("call{.uni}", "r:b64=i, x", 21, 20, 0, CALL)
PL_FORM("ret{.uni}", "", 10, 10, 0, RET)
PL_FORM("exit", "", 10, 10, 0, EXIT)
PL_FORM("trap", "", 10, 10, 0, TRAP)
PL_FORM("brkpt", "", 10, 11, 0, BRKPT)
PL_FORM("nanosleep.u32", "a", 63, 70, 0, BRKPT)
PL_FORM("pmevent", "i^15", 10, 10, 0, BRKPT)
PL_FORM("pmevent.mask", "i^65535", 30, 20, 0, BRKPT)

/* ---- tensor cores (Ampere forms) and their data movement ---- */
PL_FORM("mma.sync.aligned.m16n8k16.row.col.f32.bf16.bf16.f32",
        "d[4]:f32, r[4]:b32=, r[2]:b32=, r[4]:f32", 70, 80, 0, MMA)
PL_FORM("mma.sync.aligned.m16n8k8.row.col.f32.bf16.bf16.f32",
        "d[4]:f32, r[2]:b32=, r[1]:b32=, r[4]:f32", 70, 80, 0, MMA)
PL_FORM("mma.sync.aligned.m16n8k16.row.col.f32.f16.f16.f32",
        "d[4]:f32, r[4]:b32=h, r[2]:b32=h, r[4]:f32", 70, 80, 0, MMA)
PL_FORM("mma.sync.aligned.m16n8k8.row.col.f32.f16.f16.f32",
        "d[4]:f32, r[2]:b32=h, r[1]:b32=h, r[4]:f32", 65, 75, 0, MMA)
PL_FORM("mma.sync.aligned.m16n8k16.row.col.f16.f16.f16.f16",
        "d[2]:b32=h, r[4]:b32=h, r[2]:b32=h, r[2]:b32=h", 70, 80, 0, MMA)
PL_FORM("mma.sync.aligned.m16n8k8.row.col.f16.f16.f16.f16",
        "d[2]:b32=h, r[2]:b32=h, r[1]:b32=h, r[2]:b32=h", 65, 75, 0, MMA)
PL_FORM("mma.sync.aligned.m16n8k8.row.col.f32.tf32.tf32.f32",
        "d[4]:f32, r[4]:b32=, r[2]:b32=, r[4]:f32", 70, 80, 0, MMA)
PL_FORM("mma.sync.aligned.m8n8k4.row.col.f64.f64.f64.f64", "d[2]:b64, r[1]:b64, r[1]:b64, r[2]:b64",
        70, 80, 0, MMA)
PL_FORM("mma.sync.aligned.m16n8k32.row.col{.satfinite}.s32.(.s8|.u8).(.s8|.u8).s32",
        "d[4]:s32, r[4]:b32, r[2]:b32, r[4]:s32", 70, 80, 0, MMA)
/* fp8 operands (sm_89; PTX 8.4 for m16n8k32 with .f32 accumulators, 8.7 for the rest), and the
** .kind::f8f6f4 forms of PTX 8.7: fp8 operands on any arch- or family-specific target from sm_100
** on, fp6 and fp4 ones (.e3m2, .e2m3, .e2m1) on the sm_120 family's (ptxas 13.0 probed) */
PL_SET(mmaf8, ".e4m3|.e5m2")
PL_SET(mmaf6f4, ".e4m3|.e5m2|.e3m2|.e2m3|.e2m1")
PL_FORM("mma.sync.aligned.m16n8k32.row.col.f32$mmaf8$mmaf8.f32",
        "d[4]:f32, r[4]:b32, r[2]:b32, r[4]:f32", 84, 89, 0, MMA)
PL_FORM("mma.sync.aligned.m16n8k32.row.col.f16$mmaf8$mmaf8.f16",
        "d[2]:b32=h, r[4]:b32, r[2]:b32, r[2]:b32=h", 87, 89, 0, MMA)
PL_FORM("mma.sync.aligned.m16n8k16.row.col.f32$mmaf8$mmaf8.f32",
        "d[4]:f32, r[2]:b32, r[1]:b32, r[4]:f32", 87, 89, 0, MMA)
PL_FORM("mma.sync.aligned.m16n8k16.row.col.f16$mmaf8$mmaf8.f16",
        "d[2]:b32=h, r[2]:b32, r[1]:b32, r[2]:b32=h", 87, 89, 0, MMA)
PL_FORM("mma.sync.aligned.m16n8k32.row.col.kind::f8f6f4.f32$mmaf8$mmaf8.f32",
        "d[4]:f32, r[4]:b32, r[2]:b32, r[4]:f32", 87, 100, PLA_SPECIFIC, MMA)
PL_FORM("mma.sync.aligned.m16n8k32.row.col.kind::f8f6f4.f16$mmaf8$mmaf8.f16",
        "d[2]:b32=h, r[4]:b32, r[2]:b32, r[2]:b32=h", 87, 100, PLA_SPECIFIC, MMA)
PL_FORM("mma.sync.aligned.m16n8k32.row.col.kind::f8f6f4.f32$mmaf6f4$mmaf6f4.f32",
        "d[4]:f32, r[4]:b32, r[2]:b32, r[4]:f32", 87, 120, PLA_FAMILY_A, MMA)
PL_FORM("mma.sync.aligned.m16n8k32.row.col.kind::f8f6f4.f16$mmaf6f4$mmaf6f4.f16",
        "d[2]:b32=h, r[4]:b32, r[2]:b32, r[2]:b32=h", 87, 120, PLA_FAMILY_A, MMA)
/* wmma (sm_70 f16, sm_80 tf32): fragments of a warp-wide matrix; the a/b fragments of .f16 are 8
** .b32 registers (f16 pairs), of .tf32 4; c/d are 8 .f32 or 4 .b32 (f16 pairs). An optional
** stride (.u32) follows the address. ptxas also takes the shape before the layout and the state
** space anywhere before the type (nvcc and hand writers use both orders); the forms list the
** orders the corpus shows. */
PL_SET(wmss, ".global|.shared|.shared::cta")
PL_SET(wmlay, ".row|.col")
PL_FORM("wmma.load.(.a|.b).sync.aligned$wmlay.m16n16k16{$wmss}.f16", "d[8]:b32=h, mg, a?:u32", 60,
        70, 0, WMMA)
PL_FORM("wmma.load.(.a|.b).sync.aligned$wmlay.(.m32n8k16|.m8n32k16){$wmss}.f16",
        "d[8]:b32=h, mg, a?:u32", 61, 70, 0, WMMA)
PL_FORM("wmma.load.c.sync.aligned$wmlay.m16n16k16{$wmss}.f16", "d[4]:b32=h, mg, a?:u32", 60, 70, 0,
        WMMA)
PL_FORM("wmma.load.c.sync.aligned$wmlay.m16n16k16{$wmss}.f32", "d[8]:f32, mg, a?:u32", 60, 70, 0,
        WMMA)
PL_FORM("wmma.store.d.sync.aligned$wmlay.m16n16k16{$wmss}.f16", "mg, r[4]:b32=h, a?:u32", 60, 70, 0,
        WMMA)
PL_FORM("wmma.store.d.sync.aligned$wmlay.m16n16k16{$wmss}.f32", "mg, r[8]:f32, a?:u32", 60, 70, 0,
        WMMA)
PL_FORM("wmma.store.d.sync.aligned.m16n16k16{$wmss}$wmlay.f32", "mg, r[8]:f32, a?:u32", 60, 70, 0,
        WMMA)
PL_FORM("wmma.mma.sync.aligned$wmlay$wmlay.m16n16k16.f16.f16",
        "d[4]:b32=h, r[8]:b32=h, r[8]:b32=h, r[4]:b32=h", 60, 70, 0, WMMA)
PL_FORM("wmma.mma.sync.aligned$wmlay$wmlay.m16n16k16.f32.f16",
        "d[8]:f32, r[8]:b32=h, r[8]:b32=h, r[4]:b32=h", 60, 70, 0, WMMA)
PL_FORM("wmma.mma.sync.aligned$wmlay$wmlay.m16n16k16.f16.f32",
        "d[4]:b32=h, r[8]:b32=h, r[8]:b32=h, r[8]:f32", 60, 70, 0, WMMA)
PL_FORM("wmma.mma.sync.aligned$wmlay$wmlay.m16n16k16.f32.f32",
        "d[8]:f32, r[8]:b32=h, r[8]:b32=h, r[8]:f32", 60, 70, 0, WMMA)
PL_FORM("wmma.load.(.a|.b).sync.aligned$wmlay.m16n16k8{$wmss}.tf32", "d[4]:b32=, mg, a?:u32", 70,
        80, 0, WMMA)
PL_FORM("wmma.load.c.sync.aligned$wmlay.m16n16k8{$wmss}.f32", "d[8]:f32, mg, a?:u32", 70, 80, 0,
        WMMA)
PL_FORM("wmma.store.d.sync.aligned$wmlay.m16n16k8{$wmss}.f32", "mg, r[8]:f32, a?:u32", 70, 80, 0,
        WMMA)
PL_FORM("wmma.mma.sync.aligned$wmlay$wmlay.m16n16k8.f32.tf32.tf32.f32",
        "d[8]:f32, r[4]:b32=h, r[4]:b32=h, r[8]:f32", 70, 80, 0, WMMA)
PL_FORM("wmma.mma.sync.aligned.m16n16k8$wmlay$wmlay.f32.tf32.tf32.f32",
        "d[8]:f32, r[4]:b32=h, r[4]:b32=h, r[8]:f32", 70, 80, 0, WMMA)
/* the f16 accumulators of m32n8k16 and m8n32k16 (PTX 6.1), .bf16 (7.0, sm_80: A and B fragments of
** M*K/64 and K*N/64 .b32 registers, .f32 accumulators) and .s8/.u8 (6.3, sm_72: M*K/128 and K*N/128
** .b32 registers, .s32 accumulators; A and B of the same type) */
PL_SET(wmsh, ".m16n16k16|.m32n8k16|.m8n32k16")
PL_SET(wmi8, ".s8|.u8")
PL_FORM("wmma.load.c.sync.aligned$wmlay.(.m32n8k16|.m8n32k16){$wmss}.f16", "d[4]:b32=h, mg, a?:u32",
        61, 70, 0, WMMA)
PL_FORM("wmma.load.c.sync.aligned$wmlay.(.m32n8k16|.m8n32k16){$wmss}.f32", "d[8]:f32, mg, a?:u32",
        61, 70, 0, WMMA)
PL_FORM("wmma.store.d.sync.aligned$wmlay.(.m32n8k16|.m8n32k16){$wmss}.f16",
        "mg, r[4]:b32=h, a?:u32", 61, 70, 0, WMMA)
PL_FORM("wmma.store.d.sync.aligned$wmlay.(.m32n8k16|.m8n32k16){$wmss}.f32", "mg, r[8]:f32, a?:u32",
        61, 70, 0, WMMA)
PL_FORM("wmma.mma.sync.aligned$wmlay$wmlay.(.m32n8k16|.m8n32k16).f16.f16",
        "d[4]:b32=h, r[8]:b32=h, r[8]:b32=h, r[4]:b32=h", 61, 70, 0, WMMA)
PL_FORM("wmma.mma.sync.aligned$wmlay$wmlay.(.m32n8k16|.m8n32k16).f32.f16",
        "d[8]:f32, r[8]:b32=h, r[8]:b32=h, r[4]:b32=h", 61, 70, 0, WMMA)
PL_FORM("wmma.mma.sync.aligned$wmlay$wmlay.(.m32n8k16|.m8n32k16).f16.f32",
        "d[4]:b32=h, r[8]:b32=h, r[8]:b32=h, r[8]:f32", 61, 70, 0, WMMA)
PL_FORM("wmma.mma.sync.aligned$wmlay$wmlay.(.m32n8k16|.m8n32k16).f32.f32",
        "d[8]:f32, r[8]:b32=h, r[8]:b32=h, r[8]:f32", 61, 70, 0, WMMA)
PL_FORM("wmma.load.(.a|.b).sync.aligned$wmlay.m16n16k16{$wmss}.bf16", "d[4]:b32=, mg, a?:u32", 70,
        80, 0, WMMA)
PL_FORM("wmma.load.a.sync.aligned$wmlay.m32n8k16{$wmss}.bf16", "d[8]:b32=, mg, a?:u32", 70, 80, 0,
        WMMA)
PL_FORM("wmma.load.b.sync.aligned$wmlay.m32n8k16{$wmss}.bf16", "d[2]:b32=, mg, a?:u32", 70, 80, 0,
        WMMA)
PL_FORM("wmma.load.a.sync.aligned$wmlay.m8n32k16{$wmss}.bf16", "d[2]:b32=, mg, a?:u32", 70, 80, 0,
        WMMA)
PL_FORM("wmma.load.b.sync.aligned$wmlay.m8n32k16{$wmss}.bf16", "d[8]:b32=, mg, a?:u32", 70, 80, 0,
        WMMA)
PL_FORM("wmma.mma.sync.aligned$wmlay$wmlay.m16n16k16.f32.bf16.bf16.f32",
        "d[8]:f32, r[4]:b32=, r[4]:b32=, r[8]:f32", 70, 80, 0, WMMA)
PL_FORM("wmma.mma.sync.aligned$wmlay$wmlay.m32n8k16.f32.bf16.bf16.f32",
        "d[8]:f32, r[8]:b32=, r[2]:b32=, r[8]:f32", 70, 80, 0, WMMA)
PL_FORM("wmma.mma.sync.aligned$wmlay$wmlay.m8n32k16.f32.bf16.bf16.f32",
        "d[8]:f32, r[2]:b32=, r[8]:b32=, r[8]:f32", 70, 80, 0, WMMA)
PL_FORM("wmma.load.(.a|.b).sync.aligned$wmlay.m16n16k16{$wmss}$wmi8", "d[2]:b32=i, mg, a?:u32", 63,
        72, 0, WMMA)
PL_FORM("wmma.load.a.sync.aligned$wmlay.m32n8k16{$wmss}$wmi8", "d[4]:b32=i, mg, a?:u32", 63, 72, 0,
        WMMA)
PL_FORM("wmma.load.b.sync.aligned$wmlay.m32n8k16{$wmss}$wmi8", "d[1]:b32=i, mg, a?:u32", 63, 72, 0,
        WMMA)
PL_FORM("wmma.load.a.sync.aligned$wmlay.m8n32k16{$wmss}$wmi8", "d[1]:b32=i, mg, a?:u32", 63, 72, 0,
        WMMA)
PL_FORM("wmma.load.b.sync.aligned$wmlay.m8n32k16{$wmss}$wmi8", "d[4]:b32=i, mg, a?:u32", 63, 72, 0,
        WMMA)
PL_FORM("wmma.load.c.sync.aligned$wmlay$wmsh{$wmss}.s32", "d[8]:s32, mg, a?:u32", 63, 72, 0, WMMA)
PL_FORM("wmma.store.d.sync.aligned$wmlay$wmsh{$wmss}.s32", "mg, r[8]:s32, a?:u32", 63, 72, 0, WMMA)
PL_FORM("wmma.mma.sync.aligned$wmlay$wmlay.m16n16k16.s32(.s8.s8|.u8.u8).s32{.satfinite}",
        "d[8]:s32, r[2]:b32=i, r[2]:b32=i, r[8]:s32", 63, 72, 0, WMMA)
PL_FORM("wmma.mma.sync.aligned$wmlay$wmlay.m32n8k16.s32(.s8.s8|.u8.u8).s32{.satfinite}",
        "d[8]:s32, r[4]:b32=i, r[1]:b32=i, r[8]:s32", 63, 72, 0, WMMA)
PL_FORM("wmma.mma.sync.aligned$wmlay$wmlay.m8n32k16.s32(.s8.s8|.u8.u8).s32{.satfinite}",
        "d[8]:s32, r[1]:b32=i, r[4]:b32=i, r[8]:s32", 63, 72, 0, WMMA)
/* f64 (PTX 7.0, sm_80): a and b one .f64 each, c and d two (ptxas takes any 64-bit register); an
** optional rounding on the mma (nvcc writes it last:
** wmma.mma.sync.aligned.row.col.m8n8k4.f64.f64.f64.f64.rn) */
PL_FORM("wmma.load.(.a|.b).sync.aligned$wmlay.m8n8k4{$wmss}.f64", "d[1]:b64, mg, a?:u32", 70, 80, 0,
        WMMA)
PL_FORM("wmma.load.c.sync.aligned$wmlay.m8n8k4{$wmss}.f64", "d[2]:b64, mg, a?:u32", 70, 80, 0, WMMA)
PL_FORM("wmma.store.d.sync.aligned$wmlay.m8n8k4{$wmss}.f64", "mg, r[2]:b64, a?:u32", 70, 80, 0,
        WMMA)
PL_FORM("wmma.mma.sync.aligned$wmlay$wmlay.m8n8k4{$rnd}.f64.f64.f64.f64",
        "d[2]:b64, r[1]:b64, r[1]:b64, r[2]:b64", 70, 80, 0, WMMA)
/* sub-byte (PTX 6.3, sm_75; CUDA's wmma::experimental): A row-major, B column-major, one .b32
** each; .s32 accumulators in pairs; .b1 multiplies by a bit operation (.xor; .and from PTX 7.1,
** sm_80) and counts with .popc */
PL_FORM("wmma.load.a.sync.aligned.row.m8n8k32{$wmss}(.s4|.u4)", "d[1]:b32=i, mg, a?:u32", 63, 75, 0,
        WMMA)
PL_FORM("wmma.load.b.sync.aligned.col.m8n8k32{$wmss}(.s4|.u4)", "d[1]:b32=i, mg, a?:u32", 63, 75, 0,
        WMMA)
PL_FORM("wmma.load.a.sync.aligned.row.m8n8k128{$wmss}.b1", "d[1]:b32=i, mg, a?:u32", 63, 75, 0,
        WMMA)
PL_FORM("wmma.load.b.sync.aligned.col.m8n8k128{$wmss}.b1", "d[1]:b32=i, mg, a?:u32", 63, 75, 0,
        WMMA)
PL_FORM("wmma.load.c.sync.aligned$wmlay.(.m8n8k32|.m8n8k128){$wmss}.s32", "d[2]:s32, mg, a?:u32",
        63, 75, 0, WMMA)
PL_FORM("wmma.store.d.sync.aligned$wmlay.(.m8n8k32|.m8n8k128){$wmss}.s32", "mg, r[2]:s32, a?:u32",
        63, 75, 0, WMMA)
PL_FORM("wmma.mma.sync.aligned.row.col.m8n8k32.s32(.s4.s4|.u4.u4).s32{.satfinite}",
        "d[2]:s32, r[1]:b32=i, r[1]:b32=i, r[2]:s32", 63, 75, 0, WMMA)
PL_FORM("wmma.mma.xor.popc.sync.aligned.row.col.m8n8k128.s32.b1.b1.s32",
        "d[2]:s32, r[1]:b32=i, r[1]:b32=i, r[2]:s32", 63, 75, 0, WMMA)
PL_FORM("wmma.mma.and.popc.sync.aligned.row.col.m8n8k128.s32.b1.b1.s32",
        "d[2]:s32, r[1]:b32=i, r[1]:b32=i, r[2]:s32", 71, 80, 0, WMMA)
PL_FORM("ldmatrix.sync.aligned.m8n8.(.x1|.x2|.x4){.trans}{.shared|.shared::cta}.b16",
        "d[x]:b32, mg", 65, 75, 0, LDMATRIX)
PL_FORM("stmatrix.sync.aligned.m8n8.(.x1|.x2|.x4){.trans}{.shared|.shared::cta}.b16",
        "mg, r[x]:b32", 78, 90, 0, STMATRIX)
PL_FORM("movmatrix.sync.aligned.m8n8.trans.b16", "d:b32, r:b32", 78, 75, 0, _)
/* cp.async: .ca copies 4, 8 or 16 bytes, .cg 16; an immediate src-size is at most the copy size */
PL_FORM("cp.async.ca.(.shared|.shared::cta).global{.L2::cache_hint}{$prefsz}",
        "mg, mg2, i:u32@4/8/16, a?:u32^<, a<.L2::cache_hint>:u64", 70, 80, 0, CPASYNC)
PL_FORM("cp.async.ca.(.shared|.shared::cta).global{.L2::cache_hint}{$prefsz}",
        "mg, mg2, i:u32@4/8/16, p, a<.L2::cache_hint>:u64", 75, 80, 0, CPASYNC)
PL_FORM("cp.async.cg.(.shared|.shared::cta).global{.L2::cache_hint}{$prefsz}",
        "mg, mg2, i:u32@16, a?:u32^<, a<.L2::cache_hint>:u64", 70, 80, 0, CPASYNC)
PL_FORM("cp.async.cg.(.shared|.shared::cta).global{.L2::cache_hint}{$prefsz}",
        "mg, mg2, i:u32@16, p, a<.L2::cache_hint>:u64", 75, 80, 0, CPASYNC)
PL_FORM("cp.async.commit_group", "", 70, 80, 0, CPCOMMIT)
PL_FORM("cp.async.wait_group", "i:u32", 70, 80, 0, CPWAIT)
PL_FORM("cp.async.wait_all", "", 70, 80, 0, CPWAIT)

/* ---- Hopper and Blackwell async families ---- */
/* wgmma (sm_90a): the accumulator is a vector of n/2 (.f32, .s32) or n/4 (.f16 pairs in .b32)
** registers for shape m64nNkK; A comes from a descriptor (.b64 register or immediate) or from
** four .b32 registers (then the form has no imm-trans-a). Operands after the matrices: scale-d
** (a predicate), imm-scale-a/b (1 or -1), imm-trans-a/b (0 or 1); sparse forms add sp-meta and
** sp-sel after b-desc. Shapes by K: */
PL_SET(wgk8,
       ".m64n8k8|.m64n16k8|.m64n24k8|.m64n32k8|.m64n40k8|.m64n48k8|.m64n56k8|.m64n64k8|.m64n72k8|"
       ".m64n80k8|.m64n88k8|.m64n96k8|.m64n104k8|.m64n112k8|.m64n120k8|.m64n128k8|.m64n136k8|"
       ".m64n144k8|.m64n152k8|.m64n160k8|.m64n168k8|.m64n176k8|.m64n184k8|.m64n192k8|.m64n200k8|"
       ".m64n208k8|.m64n216k8|.m64n224k8|.m64n232k8|.m64n240k8|.m64n248k8|.m64n256k8")
PL_SET(wgk16,
       ".m64n8k16|.m64n16k16|.m64n24k16|.m64n32k16|.m64n40k16|.m64n48k16|.m64n56k16|.m64n64k16|"
       ".m64n72k16|.m64n80k16|.m64n88k16|.m64n96k16|.m64n104k16|.m64n112k16|.m64n120k16|"
       ".m64n128k16|.m64n136k16|.m64n144k16|.m64n152k16|.m64n160k16|.m64n168k16|.m64n176k16|"
       ".m64n184k16|.m64n192k16|.m64n200k16|.m64n208k16|.m64n216k16|.m64n224k16|.m64n232k16|"
       ".m64n240k16|.m64n248k16|.m64n256k16")
PL_SET(wgk32,
       ".m64n8k32|.m64n16k32|.m64n24k32|.m64n32k32|.m64n40k32|.m64n48k32|.m64n56k32|.m64n64k32|"
       ".m64n72k32|.m64n80k32|.m64n88k32|.m64n96k32|.m64n104k32|.m64n112k32|.m64n120k32|"
       ".m64n128k32|.m64n136k32|.m64n144k32|.m64n152k32|.m64n160k32|.m64n168k32|.m64n176k32|"
       ".m64n184k32|.m64n192k32|.m64n200k32|.m64n208k32|.m64n216k32|.m64n224k32|.m64n232k32|"
       ".m64n240k32|.m64n248k32|.m64n256k32")
PL_SET(wgk64,
       ".m64n8k64|.m64n16k64|.m64n24k64|.m64n32k64|.m64n40k64|.m64n48k64|.m64n56k64|.m64n64k64|"
       ".m64n72k64|.m64n80k64|.m64n88k64|.m64n96k64|.m64n104k64|.m64n112k64|.m64n120k64|"
       ".m64n128k64|.m64n136k64|.m64n144k64|.m64n152k64|.m64n160k64|.m64n168k64|.m64n176k64|"
       ".m64n184k64|.m64n192k64|.m64n200k64|.m64n208k64|.m64n216k64|.m64n224k64|.m64n232k64|"
       ".m64n240k64|.m64n248k64|.m64n256k64")
PL_SET(wgi32,
       ".m64n8k32|.m64n16k32|.m64n24k32|.m64n32k32|.m64n48k32|.m64n64k32|.m64n80k32|.m64n96k32|"
       ".m64n112k32|.m64n128k32|.m64n144k32|.m64n160k32|.m64n176k32|.m64n192k32|.m64n208k32|"
       ".m64n224k32|.m64n240k32|.m64n256k32")
PL_SET(wgi64,
       ".m64n8k64|.m64n16k64|.m64n24k64|.m64n32k64|.m64n48k64|.m64n64k64|.m64n80k64|.m64n96k64|"
       ".m64n112k64|.m64n128k64|.m64n144k64|.m64n160k64|.m64n176k64|.m64n192k64|.m64n208k64|"
       ".m64n224k64|.m64n240k64|.m64n256k64")
PL_SET(wgf16, ".f16.f16|.bf16.bf16")
PL_SET(wgf8, ".e4m3.e4m3|.e4m3.e5m2|.e5m2.e4m3|.e5m2.e5m2")
PL_FORM("wgmma.fence.sync.aligned", "", 80, 90, PLA_ARCH_A, WGFENCE)
PL_FORM("wgmma.commit_group.sync.aligned", "", 80, 90, PLA_ARCH_A, WGCOMMIT)
PL_FORM("wgmma.wait_group.sync.aligned", "i:u32^4294967295", 80, 90, PLA_ARCH_A, WGWAIT)
PL_FORM("wgmma.mma_async.sync.aligned$wgk16.f32$wgf16",
        "d[n/2]:f32, a:b64=i, a:b64=i, p, i:s32~-1/1, i:s32~-1/1, i:s32^1, i:s32^1", 80, 90,
        PLA_ARCH_A, WGMMA)
PL_FORM("wgmma.mma_async.sync.aligned$wgk16.f32$wgf16",
        "d[n/2]:f32, r[4]:b32=h, a:b64=i, p, i:s32~-1/1, i:s32~-1/1, i:s32^1", 80, 90, PLA_ARCH_A,
        WGMMA)
PL_FORM("wgmma.mma_async.sync.aligned$wgk16.f16.f16.f16",
        "d[n/4]:b32=h, a:b64=i, a:b64=i, p, i:s32~-1/1, i:s32~-1/1, i:s32^1, i:s32^1", 80, 90,
        PLA_ARCH_A, WGMMA)
PL_FORM("wgmma.mma_async.sync.aligned$wgk16.f16.f16.f16",
        "d[n/4]:b32=h, r[4]:b32=h, a:b64=i, p, i:s32~-1/1, i:s32~-1/1, i:s32^1", 80, 90, PLA_ARCH_A,
        WGMMA)
PL_FORM("wgmma.mma_async.sync.aligned$wgk8.f32.tf32.tf32",
        "d[n/2]:f32, a:b64=i, a:b64=i, p, i:s32~-1/1, i:s32~-1/1", 80, 90, PLA_ARCH_A, WGMMA)
PL_FORM("wgmma.mma_async.sync.aligned$wgk8.f32.tf32.tf32",
        "d[n/2]:f32, r[4]:b32=h, a:b64=i, p, i:s32~-1/1, i:s32~-1/1", 80, 90, PLA_ARCH_A, WGMMA)
PL_FORM("wgmma.mma_async.sync.aligned$wgk32.f32$wgf8",
        "d[n/2]:f32, a:b64=i, a:b64=i, p, i:s32~-1/1, i:s32~-1/1", 80, 90, PLA_ARCH_A, WGMMA)
PL_FORM("wgmma.mma_async.sync.aligned$wgk32.f32$wgf8",
        "d[n/2]:f32, r[4]:b32=h, a:b64=i, p, i:s32~-1/1, i:s32~-1/1", 80, 90, PLA_ARCH_A, WGMMA)
PL_FORM("wgmma.mma_async.sync.aligned$wgk32.f16$wgf8",
        "d[n/4]:b32=h, a:b64=i, a:b64=i, p, i:s32~-1/1, i:s32~-1/1", 80, 90, PLA_ARCH_A, WGMMA)
PL_FORM("wgmma.mma_async.sync.aligned$wgk32.f16$wgf8",
        "d[n/4]:b32=h, r[4]:b32=h, a:b64=i, p, i:s32~-1/1, i:s32~-1/1", 80, 90, PLA_ARCH_A, WGMMA)
PL_FORM("wgmma.mma_async.sync.aligned$wgi32{.satfinite}.s32(.s8.s8|.u8.u8)",
        "d[n/2]:s32, a:b64=i, a:b64=i, p", 80, 90, PLA_ARCH_A, WGMMA)
PL_FORM("wgmma.mma_async.sync.aligned$wgi32{.satfinite}.s32(.s8.s8|.u8.u8)",
        "d[n/2]:s32, r[4]:b32, a:b64=i, p", 80, 90, PLA_ARCH_A, WGMMA)
PL_FORM("wgmma.mma_async.sync.aligned$wgi32{.satfinite}.s32(.s8.u8|.u8.s8)",
        "d[n/2]:s32, a:b64=i, a:b64=i, p", 84, 90, PLA_ARCH_A, WGMMA)
PL_FORM("wgmma.mma_async.sync.aligned$wgi32{.satfinite}.s32(.s8.u8|.u8.s8)",
        "d[n/2]:s32, r[4]:b32, a:b64=i, p", 84, 90, PLA_ARCH_A, WGMMA)
PL_FORM("wgmma.mma_async.sp.sync.aligned$wgk32.f32$wgf16",
        "d[n/2]:f32, a:b64=i, a:b64=i, r:b32, i:s32^1, p, i:s32~-1/1, i:s32~-1/1, i:s32^1, i:s32^1",
        82, 90, PLA_ARCH_A, WGMMA)
PL_FORM("wgmma.mma_async.sp.sync.aligned$wgk32.f32$wgf16",
        "d[n/2]:f32, r[4]:b32=h, a:b64=i, r:b32, i:s32^1, p, i:s32~-1/1, i:s32~-1/1, i:s32^1", 82,
        90, PLA_ARCH_A, WGMMA)
PL_FORM("wgmma.mma_async.sp.sync.aligned$wgk32.f16.f16.f16",
        "d[n/4]:b32=h, a:b64=i, a:b64=i, r:b32, i:s32^1, p, i:s32~-1/1, i:s32~-1/1, i:s32^1, "
        "i:s32^1", 82, 90, PLA_ARCH_A, WGMMA)
PL_FORM("wgmma.mma_async.sp.sync.aligned$wgk32.f16.f16.f16",
        "d[n/4]:b32=h, r[4]:b32=h, a:b64=i, r:b32, i:s32^1, p, i:s32~-1/1, i:s32~-1/1, i:s32^1", 82,
        90, PLA_ARCH_A, WGMMA)
PL_FORM("wgmma.mma_async.sp.sync.aligned$wgk16.f32.tf32.tf32",
        "d[n/2]:f32, a:b64=i, a:b64=i, r:b32, i:s32^1, p, i:s32~-1/1, i:s32~-1/1", 82, 90,
        PLA_ARCH_A, WGMMA)
PL_FORM("wgmma.mma_async.sp.sync.aligned$wgk16.f32.tf32.tf32",
        "d[n/2]:f32, r[4]:b32=h, a:b64=i, r:b32, i:s32^1, p, i:s32~-1/1, i:s32~-1/1", 82, 90,
        PLA_ARCH_A, WGMMA)
PL_FORM("wgmma.mma_async.sp.sync.aligned$wgk64.f32$wgf8",
        "d[n/2]:f32, a:b64=i, a:b64=i, r:b32, i:s32^0, p, i:s32~-1/1, i:s32~-1/1", 82, 90,
        PLA_ARCH_A, WGMMA)
PL_FORM("wgmma.mma_async.sp.sync.aligned$wgk64.f32$wgf8",
        "d[n/2]:f32, r[4]:b32=h, a:b64=i, r:b32, i:s32^0, p, i:s32~-1/1, i:s32~-1/1", 82, 90,
        PLA_ARCH_A, WGMMA)
PL_FORM("wgmma.mma_async.sp.sync.aligned$wgk64.f16$wgf8",
        "d[n/4]:b32=h, a:b64=i, a:b64=i, r:b32, i:s32^0, p, i:s32~-1/1, i:s32~-1/1", 82, 90,
        PLA_ARCH_A, WGMMA)
PL_FORM("wgmma.mma_async.sp.sync.aligned$wgk64.f16$wgf8",
        "d[n/4]:b32=h, r[4]:b32=h, a:b64=i, r:b32, i:s32^0, p, i:s32~-1/1, i:s32~-1/1", 82, 90,
        PLA_ARCH_A, WGMMA)
PL_FORM("wgmma.mma_async.sp.sync.aligned$wgi64{.satfinite}.s32(.s8.s8|.u8.u8)",
        "d[n/2]:s32, a:b64=i, a:b64=i, r:b32, i:s32^0, p", 82, 90, PLA_ARCH_A, WGMMA)
PL_FORM("wgmma.mma_async.sp.sync.aligned$wgi64{.satfinite}.s32(.s8.s8|.u8.u8)",
        "d[n/2]:s32, r[4]:b32, a:b64=i, r:b32, i:s32^0, p", 82, 90, PLA_ARCH_A, WGMMA)
PL_FORM("wgmma.mma_async.sp.sync.aligned$wgi64{.satfinite}.s32(.s8.u8|.u8.s8)",
        "d[n/2]:s32, a:b64=i, a:b64=i, r:b32, i:s32^0, p", 84, 90, PLA_ARCH_A, WGMMA)
PL_FORM("wgmma.mma_async.sp.sync.aligned$wgi64{.satfinite}.s32(.s8.u8|.u8.s8)",
        "d[n/2]:s32, r[4]:b32, a:b64=i, r:b32, i:s32^0, p", 84, 90, PLA_ARCH_A, WGMMA)
PL_SET(wgb1,
       ".m64n8k256|.m64n16k256|.m64n24k256|.m64n32k256|.m64n48k256|.m64n64k256|.m64n80k256|"
       ".m64n96k256|.m64n112k256|.m64n128k256|.m64n144k256|.m64n160k256|.m64n176k256|.m64n192k256|"
       ".m64n208k256|.m64n224k256|.m64n240k256|.m64n256k256")
PL_FORM("wgmma.mma_async.sync.aligned$wgb1.s32.b1.b1.and.popc", "d[n/2]:s32, a:b64=i, a:b64=i, p",
        80, 90, PLA_ARCH_A, WGMMA)
PL_FORM("wgmma.mma_async.sync.aligned$wgb1.s32.b1.b1.and.popc", "d[n/2]:s32, r[4]:b32, a:b64=i, p",
        80, 90, PLA_ARCH_A, WGMMA)
/* mbarrier: a .b64 object in shared memory; state .b64, parity .u32, counts .u32. .release /
** .acquire with a scope from PTX 8.0 (sm_90), .relaxed from 8.6; a remote (.shared::cluster)
** arrive returns no state: its destination is the sink '_' */
PL_SET(mbsp, ".shared|.shared::cta")
PL_FORM("mbarrier.init{$mbsp}.b64", "mgS, a:u32", 70, 80, 0, MBAR)
PL_FORM("mbarrier.inval{$mbsp}.b64", "mgS", 70, 80, 0, MBAR)
PL_FORM("mbarrier.arrive{$mbsp}.b64", "d:b64=i_, mgS", 70, 80, 0, MBAR)
PL_FORM("mbarrier.arrive{$mbsp}.b64", "d:b64=i_, mgS, a:u32^1..4294967295", 78, 90, 0, MBAR)
PL_FORM("mbarrier.arrive.noComplete{$mbsp}.b64", "d:b64=i_, mgS, a:u32^1..4294967295", 70, 80, 0,
        MBAR)
/* from sm_80 without a count (ptxas: a count needs sm_90) */
PL_FORM("mbarrier.arrive.release.(.cta|.cluster){$mbsp}.b64", "d:b64=i_, mgS", 80, 80, 0, MBAR)
PL_FORM("mbarrier.arrive.release.(.cta|.cluster){$mbsp}.b64",
        "d:b64=i_, mgS, a:u32^1..4294967295", 80, 90, 0, MBAR)
PL_FORM("mbarrier.arrive{.release.cta|.release.cluster}.shared::cluster.b64",
        "_, mgS, a?:u32^1..4294967295", 80, 90, 0, MBAR)
PL_FORM("mbarrier.arrive.expect_tx{.release.cta|.release.cluster}{$mbsp}.b64",
        "d:b64=i_, mgS, a:u32", 80, 90, 0, MBAR)
PL_FORM("mbarrier.arrive.expect_tx{.release.cta|.release.cluster}.shared::cluster.b64",
        "_, mgS, a:u32", 80, 90, 0, MBAR)
PL_FORM("mbarrier.arrive_drop{$mbsp}.b64", "d:b64=i_, mgS", 70, 80, 0, MBAR)
PL_FORM("mbarrier.arrive_drop{$mbsp}.b64", "d:b64=i_, mgS, a:u32^1..4294967295", 78, 90, 0, MBAR)
PL_FORM("mbarrier.arrive_drop.noComplete{$mbsp}.b64", "d:b64=i_, mgS, a:u32^1..4294967295", 70, 80,
        0, MBAR)
/* from sm_80 without a count (ptxas: a count needs sm_90) */
PL_FORM("mbarrier.arrive_drop.release.(.cta|.cluster){$mbsp}.b64", "d:b64=i_, mgS", 80, 80, 0, MBAR)
PL_FORM("mbarrier.arrive_drop.release.(.cta|.cluster){$mbsp}.b64",
        "d:b64=i_, mgS, a:u32^1..4294967295", 80, 90, 0, MBAR)
PL_FORM("mbarrier.arrive_drop{.release.cta|.release.cluster}.shared::cluster.b64",
        "_, mgS, a?:u32^1..4294967295", 80, 90, 0, MBAR)
PL_FORM("mbarrier.arrive_drop.expect_tx{.release.cta|.release.cluster}{$mbsp}.b64",
        "d:b64=i_, mgS, a:u32", 80, 90, 0, MBAR)
PL_FORM("mbarrier.expect_tx{.relaxed.cta|.relaxed.cluster}{$mbsp|.shared::cluster}.b64",
        "mgS, a:u32", 80, 90, 0, MBAR)
PL_FORM("mbarrier.complete_tx{.relaxed.cta|.relaxed.cluster}{$mbsp|.shared::cluster}.b64",
        "mgS, a:u32", 80, 90, 0, MBAR)
PL_FORM("mbarrier.test_wait{$mbsp}.b64", "p, mgS, a:b64=i", 70, 80, 0, MBWAIT)
PL_FORM("mbarrier.test_wait.parity{$mbsp}.b64", "p, mgS, a:u32^1", 71, 80, 0, MBWAIT)
PL_FORM("mbarrier.test_wait.acquire.(.cta|.cluster){$mbsp}.b64", "p, mgS, a:b64=i", 80, 80, 0,
        MBWAIT)
PL_FORM("mbarrier.test_wait.parity.acquire.(.cta|.cluster){$mbsp}.b64", "p, mgS, a:u32^1", 80, 80,
        0, MBWAIT)
PL_FORM("mbarrier.try_wait{$mbsp}.b64", "p, mgS, a:b64=i, a?:u32", 78, 90, 0, MBWAIT)
PL_FORM("mbarrier.try_wait.parity{$mbsp}.b64", "p, mgS, a:u32^1, a?:u32", 78, 90, 0, MBWAIT)
PL_FORM("mbarrier.try_wait.acquire.(.cta|.cluster){$mbsp}.b64", "p, mgS, a:b64=i, a?:u32", 80, 90,
        0, MBWAIT)
PL_FORM("mbarrier.try_wait.parity.acquire.(.cta|.cluster){$mbsp}.b64", "p, mgS, a:u32^1, a?:u32",
        80, 90, 0, MBWAIT)
PL_FORM("mbarrier.pending_count.b64", "d:u32, a:b64=i", 70, 80, 0, MBPENDING)
PL_FORM("cp.async.mbarrier.arrive{.noinc}{$mbsp}.b64", "mg", 70, 80, 0, CPMBARRIVE)
/* bulk copies (sm_90): g2s completes on an mbarrier, s2g on a bulk group; sizes in bytes (.u32) */
PL_FORM("cp.async.bulk.shared::cluster.global.mbarrier::complete_tx::bytes{.multicast::cluster}{"
        ".L2::cache_hint}",
        "mg, mg2, a:u32%16^1048560, mgS, a<.multicast::cluster>:b16, a<.L2::cache_hint>:u64", 80,
        90, 0, BULK)
PL_FORM("cp.async.bulk.global.shared::cta.bulk_group{.L2::cache_hint}",
        "mg, mg2, a:u32%16^1048560, a<.L2::cache_hint>:u64", 80, 90, 0, BULK)
PL_FORM("cp.async.bulk.shared::cluster.shared::cta.mbarrier::complete_tx::bytes",
        "mg, mg2, a:u32%16^1048560, mgS", 80, 90, 0, BULK)
/* PTX 8.6: a global to .shared::cta copy (sm_90 on; no multicast), and a store to global that
** writes only the bytes of each 16 its .b16 byteMask selects (.cp_mask, sm_100 on) */
PL_FORM("cp.async.bulk.shared::cta.global.mbarrier::complete_tx::bytes{.L2::cache_hint}",
        "mg, mg2, a:u32%16^1048560, mgS, a<.L2::cache_hint>:u64", 86, 90, 0, _)
PL_FORM("cp.async.bulk.global.shared::cta.bulk_group{.L2::cache_hint}.cp_mask",
        "mg, mg2, a:u32%16^1048560, a<.L2::cache_hint>:u64, a:b16=i", 86, 100, 0, _)
/* st.bulk (PTX 8.6, sm_100): sets size bytes (a multiple of 8, at most 16 MiB) of shared memory
** to initval, which must be 0; a .shared::cta address through a register only */
PL_FORM("st.bulk{.weak}", "mg>n, a:b64=i%8^16777216, i:u32~0", 86, 100, 0, _)
PL_FORM("st.bulk{.weak}.shared::cta", "mg>#, a:b64=i%8^16777216, i:u32~0", 86, 100, 0, _)
/* TMA (sm_90, PTX 8.0): tensor copies addressed by a tensor map [tmap, {c0, ...}] with one .s32
** coordinate per dimension; im2col (3d-5d) loads and prefetches add D-2 .b16 offsets; a
** multicast load its .b16 ctaMask; .L2::cache_hint its .u64 cache-policy. Stores and reductions
** read shared::cta and complete on a bulk group; their im2col mode is .im2col_no_offs. */
PL_SET(tmadim, ".1d|.2d|.3d|.4d|.5d")
PL_SET(tmadim3, ".3d|.4d|.5d")
PL_SET(tmared, ".add|.min|.max|.inc|.dec|.and|.or|.xor")
PL_FORM("cp.async.bulk.tensor$tmadim.shared::cluster.global{.tile}.mbarrier::complete_tx::bytes{"
        ".multicast::cluster}{.L2::cache_hint}",
        "mg, T[d]:b32, mgS, a<.multicast::cluster>:b16, a<.L2::cache_hint>:u64", 80, 90, 0, TMA)
PL_FORM("cp.async.bulk.tensor$tmadim3.shared::cluster.global.im2col.mbarrier::complete_tx::bytes{"
        ".multicast::cluster}{.L2::cache_hint}",
        "mg, T[d]:b32, mgS, r[d-2]:b16=i, a<.multicast::cluster>:b16, a<.L2::cache_hint>:u64", 80,
        90, 0, TMA)
/* sm_100: .cta_group::1/::2 (the mbarrier may be the peer CTA's), and (PTX 8.6, sm_90 on) a
** .shared::cta destination, which takes no multicast */
PL_FORM("cp.async.bulk.tensor$tmadim.shared::cluster.global{.tile}.mbarrier::complete_tx::bytes{"
        ".multicast::cluster}$tccg{.L2::cache_hint}",
        "mg, T[d]:b32, mgS, a<.multicast::cluster>:b16, a<.L2::cache_hint>:u64", 86, 100,
        PLA_FAMILY_A | PLA_SM110, TMA)
PL_FORM("cp.async.bulk.tensor$tmadim3.shared::cluster.global.im2col.mbarrier::complete_tx::bytes{"
        ".multicast::cluster}$tccg{.L2::cache_hint}",
        "mg, T[d]:b32, mgS, r[d-2]:b16=i, a<.multicast::cluster>:b16, a<.L2::cache_hint>:u64", 86,
        100, PLA_FAMILY_A | PLA_SM110, TMA)
PL_FORM("cp.async.bulk.tensor$tmadim.shared::cta.global{.tile}.mbarrier::complete_tx::bytes{"
        ".L2::cache_hint}", "mg, T[d]:b32, mgS, a<.L2::cache_hint>:u64", 86, 90, 0, TMA)
PL_FORM("cp.async.bulk.tensor$tmadim3.shared::cta.global.im2col.mbarrier::complete_tx::bytes{"
        ".L2::cache_hint}", "mg, T[d]:b32, mgS, r[d-2]:b16=i, a<.L2::cache_hint>:u64", 86, 90, 0,
        TMA)
PL_FORM("cp.async.bulk.tensor$tmadim.shared::cta.global{.tile}.mbarrier::complete_tx::bytes$tccg{"
        ".L2::cache_hint}", "mg, T[d]:b32, mgS, a<.L2::cache_hint>:u64", 86, 100,
        PLA_FAMILY_A | PLA_SM110, TMA)
PL_FORM("cp.async.bulk.tensor$tmadim3.shared::cta.global.im2col.mbarrier::complete_tx::bytes$tccg{"
        ".L2::cache_hint}", "mg, T[d]:b32, mgS, r[d-2]:b16=i, a<.L2::cache_hint>:u64", 86, 100,
        PLA_FAMILY_A | PLA_SM110, TMA)
/* the sm_100 load modes (PTX 8.6): .tile::gather4, 2d only, five .s32 coordinates (a column and
** four rows); .im2col::w and .im2col::w::128, 3d-5d, with im2colInfo {wHalo, wOffset} (two .b16).
** Into .shared::cta on every target from sm_100 (.im2col::w::128 and a .cta_group only on the
** family targets, sm_110 too), into .shared::cluster on the family targets; the store mode
** .tile::scatter4 and prefetches in either mode on the family targets */
PL_SET(tmaw, ".im2col::w|.im2col::w::128")
PL_FORM("cp.async.bulk.tensor.2d.shared::cta.global.tile::gather4.mbarrier::complete_tx::bytes{"
        ".L2::cache_hint}", "mg, T[5]:b32, mgS, a<.L2::cache_hint>:u64", 86, 100, 0, _)
PL_FORM("cp.async.bulk.tensor.2d.shared::cta.global.tile::gather4.mbarrier::complete_tx::bytes"
        "$tccg{.L2::cache_hint}", "mg, T[5]:b32, mgS, a<.L2::cache_hint>:u64", 86, 100,
        PLA_FAMILY_A | PLA_SM110, _)
PL_FORM("cp.async.bulk.tensor.2d.shared::cluster.global.tile::gather4.mbarrier::complete_tx::bytes{"
        ".multicast::cluster}{$tccg}{.L2::cache_hint}",
        "mg, T[5]:b32, mgS, a<.multicast::cluster>:b16, a<.L2::cache_hint>:u64", 86, 100,
        PLA_FAMILY_A | PLA_SM110, _)
PL_FORM("cp.async.bulk.tensor$tmadim3.shared::cta.global.im2col::w.mbarrier::complete_tx::bytes{"
        ".L2::cache_hint}", "mg, T[d]:b32, mgS, r[2]:b16=i, a<.L2::cache_hint>:u64", 86, 100, 0, _)
PL_FORM("cp.async.bulk.tensor$tmadim3.shared::cta.global.im2col::w.mbarrier::complete_tx::bytes"
        "$tccg{.L2::cache_hint}", "mg, T[d]:b32, mgS, r[2]:b16=i, a<.L2::cache_hint>:u64", 86, 100,
        PLA_FAMILY_A | PLA_SM110, _)
PL_FORM("cp.async.bulk.tensor$tmadim3.shared::cta.global.im2col::w::128.mbarrier::complete_tx::"
        "bytes{$tccg}{.L2::cache_hint}", "mg, T[d]:b32, mgS, r[2]:b16=i, a<.L2::cache_hint>:u64",
        86, 100, PLA_FAMILY_A | PLA_SM110, _)
PL_FORM("cp.async.bulk.tensor$tmadim3.shared::cluster.global$tmaw.mbarrier::complete_tx::bytes{"
        ".multicast::cluster}{$tccg}{.L2::cache_hint}",
        "mg, T[d]:b32, mgS, r[2]:b16=i, a<.multicast::cluster>:b16, a<.L2::cache_hint>:u64", 86,
        100, PLA_FAMILY_A | PLA_SM110, _)
PL_FORM("cp.async.bulk.tensor.2d.global.shared::cta.tile::scatter4.bulk_group{.L2::cache_hint}",
        "T[5]:b32, mg2, a<.L2::cache_hint>:u64", 86, 100, PLA_FAMILY_A | PLA_SM110, _)
/* ptxas 13 takes .tile::scatter4 for the reductions too */
PL_FORM("cp.reduce.async.bulk.tensor.2d.global.shared::cta$tmared.tile::scatter4.bulk_group{"
        ".L2::cache_hint}", "T[5]:b32, mg2, a<.L2::cache_hint>:u64", 86, 100,
        PLA_FAMILY_A | PLA_SM110, _)
PL_FORM("cp.async.bulk.prefetch.tensor.2d.L2.global.tile::gather4{.L2::cache_hint}",
        "T[5]:b32, a<.L2::cache_hint>:u64", 86, 100, PLA_FAMILY_A | PLA_SM110, _)
PL_FORM("cp.async.bulk.prefetch.tensor$tmadim3.L2.global$tmaw{.L2::cache_hint}",
        "T[d]:b32, r[2]:b16=i, a<.L2::cache_hint>:u64", 86, 100, PLA_FAMILY_A | PLA_SM110, _)
PL_FORM("cp.async.bulk.tensor$tmadim.global.shared::cta{.tile}.bulk_group{.L2::cache_hint}",
        "T[d]:b32, mg2, a<.L2::cache_hint>:u64", 80, 90, 0, TMA)
PL_FORM("cp.async.bulk.tensor$tmadim3.global.shared::cta.im2col_no_offs.bulk_group{"
        ".L2::cache_hint}", "T[d]:b32, mg2, a<.L2::cache_hint>:u64", 80, 90, 0, TMA)
PL_FORM("cp.reduce.async.bulk.tensor$tmadim.global.shared::cta$tmared{.tile}.bulk_group{"
        ".L2::cache_hint}", "T[d]:b32, mg2, a<.L2::cache_hint>:u64", 80, 90, 0, TMA)
PL_FORM("cp.reduce.async.bulk.tensor$tmadim3.global.shared::cta$tmared.im2col_no_offs.bulk_group{"
        ".L2::cache_hint}", "T[d]:b32, mg2, a<.L2::cache_hint>:u64", 80, 90, 0, TMA)
PL_FORM("cp.async.bulk.prefetch.tensor$tmadim.L2.global{.tile}{.L2::cache_hint}",
        "T[d]:b32, a<.L2::cache_hint>:u64", 80, 90, 0, TMA)
PL_FORM("cp.async.bulk.prefetch.tensor$tmadim3.L2.global.im2col{.L2::cache_hint}",
        "T[d]:b32, r[d-2]:b16=i, a<.L2::cache_hint>:u64", 80, 90, 0, TMA)
PL_FORM("cp.async.bulk.prefetch.L2.global{.L2::cache_hint}",
        "mg, a:u32%16^1048560, a<.L2::cache_hint>:u64", 80, 90, 0, BULK)
PL_FORM("cp.async.bulk.commit_group", "", 80, 90, 0, BULKCOMMIT)
PL_FORM("cp.async.bulk.wait_group{.read}", "i:u32", 80, 90, 0, BULKWAIT)
PL_FORM("cp.reduce.async.bulk.global.shared::cta.bulk_group{.L2::cache_hint}.(.and|.or|"
        ".xor)$b32_64", "mg, mg2, a:u32%16^1048560, a<.L2::cache_hint>:u64", 80, 90, 0, BULK)
PL_FORM("cp.reduce.async.bulk.global.shared::cta.bulk_group{.L2::cache_hint}.add.(.u32|.s32|.u64|"
        ".f32|.f64)", "mg, mg2, a:u32%16^1048560, a<.L2::cache_hint>:u64", 80, 90, 0, BULK)
PL_FORM("cp.reduce.async.bulk.global.shared::cta.bulk_group{.L2::cache_hint}.(.min|.max).(.u32|"
        ".s32|.u64|.s64)", "mg, mg2, a:u32%16^1048560, a<.L2::cache_hint>:u64", 80, 90, 0, BULK)
PL_FORM("cp.reduce.async.bulk.global.shared::cta.bulk_group{.L2::cache_hint}.(.inc|.dec).u32",
        "mg, mg2, a:u32%16^1048560, a<.L2::cache_hint>:u64", 80, 90, 0, BULK)
PL_FORM("cp.reduce.async.bulk.global.shared::cta.bulk_group{.L2::cache_hint}.add.noftz.(.f16|"
        ".bf16)", "mg, mg2, a:u32%16^1048560, a<.L2::cache_hint>:u64", 80, 90, 0, BULK)
PL_FORM("cp.reduce.async.bulk.global.shared::cta.bulk_group{.L2::cache_hint}.(.min|.max).(.f16|"
        ".bf16)", "mg, mg2, a:u32%16^1048560, a<.L2::cache_hint>:u64", 80, 90, 0, BULK)
PL_FORM("cp.reduce.async.bulk.shared::cluster.shared::cta.mbarrier::complete_tx::bytes.(.and|.or|"
        ".xor).b32", "mg, mg2, a:u32%16^1048560, mgS", 80, 90, 0, BULK)
PL_FORM("cp.reduce.async.bulk.shared::cluster.shared::cta.mbarrier::complete_tx::bytes.(.add|.min|"
        ".max|.inc|.dec).u32", "mg, mg2, a:u32%16^1048560, mgS", 80, 90, 0, BULK)
PL_FORM("cp.reduce.async.bulk.shared::cluster.shared::cta.mbarrier::complete_tx::bytes.(.add|.min|"
        ".max).s32", "mg, mg2, a:u32%16^1048560, mgS", 80, 90, 0, BULK)
PL_FORM("cp.reduce.async.bulk.shared::cluster.shared::cta.mbarrier::complete_tx::bytes.add.u64",
        "mg, mg2, a:u32%16^1048560, mgS", 80, 90, 0, BULK)
/* tensor maps: fields of a 128-byte CUtensorMap in global or shared memory (sm_90a, and every
** arch- or family-specific target after it: ptxas 13.0 takes them on sm_100a/f and sm_120a/f) */
PL_SET(tmsp, ".global|.shared::cta")
PL_FORM("tensormap.replace.tile.global_address$tmsp.b1024.b64", "mg, a:b64", 83, 90, PLA_SPECIFIC,
        TMAP)
PL_FORM("tensormap.replace.tile.rank$tmsp.b1024.b32", "mg, a:b32", 83, 90, PLA_SPECIFIC, TMAP)
PL_FORM("tensormap.replace.tile.(.box_dim|.global_dim|.element_stride)$tmsp.b1024.b32",
        "mg, i:b32^4, a:b32=i", 83, 90, PLA_SPECIFIC, TMAP)
PL_FORM("tensormap.replace.tile.global_stride$tmsp.b1024.b64", "mg, i:b32^4, a:b64", 83, 90,
        PLA_SPECIFIC, TMAP)
PL_FORM("tensormap.replace.tile.elemtype$tmsp.b1024.b32", "mg, i:b32^12", 83, 90, PLA_SPECIFIC,
        TMAP)
PL_FORM("tensormap.replace.tile.elemtype$tmsp.b1024.b32", "mg, i:b32^13..15", 87, 100,
        PLA_SPECIFIC, TMAP)
PL_FORM("tensormap.replace.tile.interleave_layout$tmsp.b1024.b32", "mg, i:b32^2", 83, 90,
        PLA_SPECIFIC, TMAP)
PL_FORM("tensormap.replace.tile.swizzle_mode$tmsp.b1024.b32", "mg, i:b32^3", 83, 90, PLA_SPECIFIC,
        TMAP)
PL_FORM("tensormap.replace.tile.swizzle_mode$tmsp.b1024.b32", "mg, i:b32^4..4", 88, 103, PLA_ARCH_A,
        TMAP)
PL_FORM("tensormap.replace.tile.fill_mode$tmsp.b1024.b32", "mg, i:b32^1", 83, 90, PLA_SPECIFIC,
        TMAP)
/* the sm_100 fields and values: .swizzle_atomicity (PTX 8.6), the packed sub-byte element types
** 13..15 (PTX 8.7) on every arch- or family-specific target from sm_100, and swizzle mode 4 (96B,
** PTX 8.8) on sm_103a alone (ptxas 13) */
PL_FORM("tensormap.replace.tile.swizzle_atomicity$tmsp.b1024.b32", "mg, i:b32^3", 86, 100,
        PLA_SPECIFIC, TMAP)
/* copy a tensor map from shared to global memory with the fence that makes the tensormap proxy
** see it */
PL_FORM("tensormap.cp_fenceproxy.global.shared::cta.tensormap::generic.release(.cta|.cluster|.gpu|"
        ".sys).sync.aligned", "mg>, mg2, i:u32~128", 83, 90, 0, TMAP)
/* tcgen05 (PTX 8.6): tensor memory and the 5th-generation tensor core, on sm_100a/f, sm_103a/f
** and sm_110a/f (PTX 9.0; PLA_SM110). Tensor-memory addresses are 32-bit registers in brackets
** ([%r1]): .b32 only for tcgen05.mma's [d-tmem], [a-tmem], scale vectors and sparse metadata
** (ptxas 13: "Arguments mismatch" for a .u32), any 32-bit integer for ld/st/cp/shift;
** tcgen05.alloc writes the allocated address to shared memory; descriptors are .b64, the
** instruction descriptor .b32. A kernel uses one .cta_group throughout (PTX 9.0; ptxas checks it
** per function, and so do --lint and the DSL). .kind::i8 exists on sm_100a and sm_110a only (not
** sm_103a: PLA_NO103), tcgen05.shift on the arch-specific targets. tcgen05.mma:
** disable-output-lane is 4 .b32 under ::1, 8 under ::2; .kind::f16/.tf32 take an immediate
** scale-input-d (0..15) on the sm_100 family only; .kind::i8 an optional sixth predicate that
** ptxas takes though the ISA lists none; .ashift needs A in tensor memory and takes only the
** lastuse/discard collector usages. tcgen05.ld/st: .32x32b, .16x64b and .16x32bx2 move N
** registers for .xN, .16x128b 2N, .16x256b 4N; .16x32bx2 adds an immediate offset. */
PL_SET(tccg, ".cta_group::1|.cta_group::2")
PL_SET(tckind, ".kind::f16|.kind::tf32|.kind::f8f6f4")
PL_SET(tcka, ".collector::a::fill|.collector::a::use|.collector::a::lastuse|.collector::a::discard")
PL_SET(tcksh, ".collector::a::lastuse|.collector::a::discard")
PL_SET(tckb,
       ".collector::b0::fill|.collector::b0::use|.collector::b0::lastuse|.collector::b0::discard|"
       ".collector::b1::fill|.collector::b1::use|.collector::b1::lastuse|.collector::b1::discard|"
       ".collector::b2::fill|.collector::b2::use|.collector::b2::lastuse|.collector::b2::discard|"
       ".collector::b3::fill|.collector::b3::use|.collector::b3::lastuse|.collector::b3::discard")
PL_SET(tcx128, ".x1|.x2|.x4|.x8|.x16|.x32|.x64|.x128")
PL_SET(tcx64, ".x1|.x2|.x4|.x8|.x16|.x32|.x64")
PL_SET(tcx32, ".x1|.x2|.x4|.x8|.x16|.x32")
PL_FORM("tcgen05.alloc$tccg.sync.aligned{.shared::cta}.b32", "m, a:u32@32/64/128/256/512", 86, 100,
        PLA_FAMILY_A | PLA_SM110, TCALLOC)
PL_FORM("tcgen05.dealloc$tccg.sync.aligned.b32", "a:b32=i, a:u32%32", 86, 100,
        PLA_FAMILY_A | PLA_SM110, TCDEALLOC)
PL_FORM("tcgen05.relinquish_alloc_permit$tccg.sync.aligned", "", 86, 100, PLA_FAMILY_A | PLA_SM110,
        TCRELINQ)
/* tcgen05.mma, dense and sparse (.sp: [sp-meta-tmem] after b-desc), A from a descriptor or tensor
** memory, with and without disable-output-lane: the kinds without block scaling */
PL_FORM("tcgen05.mma.cta_group::1.(.kind::f16|.kind::tf32){$tcka}",
        "m:b32=, a:b64=i, a:b64=i, a:b32=i, p", 86, 100, PLA_FAMILY_A | PLA_SM110, TCMMA)
PL_FORM("tcgen05.mma.cta_group::1.(.kind::f16|.kind::tf32){$tcka}",
        "m:b32=, a:b64=i, a:b64=i, a:b32=i, r[4]:b32, p", 86, 100, PLA_FAMILY_A | PLA_SM110, TCMMA)
PL_FORM("tcgen05.mma.cta_group::1.(.kind::f16|.kind::tf32){$tcka}",
        "m:b32=, m:b32=, a:b64=i, a:b32=i, p", 86, 100, PLA_FAMILY_A | PLA_SM110, TCMMA)
PL_FORM("tcgen05.mma.cta_group::1.(.kind::f16|.kind::tf32){$tcka}",
        "m:b32=, m:b32=, a:b64=i, a:b32=i, r[4]:b32, p", 86, 100, PLA_FAMILY_A | PLA_SM110, TCMMA)
PL_FORM("tcgen05.mma.cta_group::1.(.kind::f16|.kind::tf32){$tcka}",
        "m:b32=, a:b64=i, a:b64=i, a:b32=i, r[4]?:b32, p, i:u32^15", 86, 100, PLA_FAMILY_A, TCMMA)
PL_FORM("tcgen05.mma.cta_group::1.(.kind::f16|.kind::tf32){$tcka}",
        "m:b32=, m:b32=, a:b64=i, a:b32=i, r[4]?:b32, p, i:u32^15", 86, 100, PLA_FAMILY_A, TCMMA)
PL_FORM("tcgen05.mma.cta_group::1.(.kind::f16|.kind::tf32).ashift{$tcksh}",
        "m:b32=, m:b32=, a:b64=i, a:b32=i, p", 86, 100, PLA_FAMILY_A | PLA_SM110, _)
PL_FORM("tcgen05.mma.cta_group::1.(.kind::f16|.kind::tf32).ashift{$tcksh}",
        "m:b32=, m:b32=, a:b64=i, a:b32=i, r[4]:b32, p", 86, 100, PLA_FAMILY_A | PLA_SM110, _)
PL_FORM("tcgen05.mma.cta_group::1.(.kind::f16|.kind::tf32).ashift{$tcksh}",
        "m:b32=, m:b32=, a:b64=i, a:b32=i, r[4]?:b32, p, i:u32^15", 86, 100, PLA_FAMILY_A, _)
PL_FORM("tcgen05.mma.cta_group::2.(.kind::f16|.kind::tf32){$tcka}",
        "m:b32=, a:b64=i, a:b64=i, a:b32=i, p", 86, 100, PLA_FAMILY_A | PLA_SM110, TCMMA)
PL_FORM("tcgen05.mma.cta_group::2.(.kind::f16|.kind::tf32){$tcka}",
        "m:b32=, a:b64=i, a:b64=i, a:b32=i, r[8]:b32, p", 86, 100, PLA_FAMILY_A | PLA_SM110, TCMMA)
PL_FORM("tcgen05.mma.cta_group::2.(.kind::f16|.kind::tf32){$tcka}",
        "m:b32=, m:b32=, a:b64=i, a:b32=i, p", 86, 100, PLA_FAMILY_A | PLA_SM110, TCMMA)
PL_FORM("tcgen05.mma.cta_group::2.(.kind::f16|.kind::tf32){$tcka}",
        "m:b32=, m:b32=, a:b64=i, a:b32=i, r[8]:b32, p", 86, 100, PLA_FAMILY_A | PLA_SM110, TCMMA)
PL_FORM("tcgen05.mma.cta_group::2.(.kind::f16|.kind::tf32){$tcka}",
        "m:b32=, a:b64=i, a:b64=i, a:b32=i, r[8]?:b32, p, i:u32^15", 86, 100, PLA_FAMILY_A, TCMMA)
PL_FORM("tcgen05.mma.cta_group::2.(.kind::f16|.kind::tf32){$tcka}",
        "m:b32=, m:b32=, a:b64=i, a:b32=i, r[8]?:b32, p, i:u32^15", 86, 100, PLA_FAMILY_A, TCMMA)
PL_FORM("tcgen05.mma.cta_group::2.(.kind::f16|.kind::tf32).ashift{$tcksh}",
        "m:b32=, m:b32=, a:b64=i, a:b32=i, p", 86, 100, PLA_FAMILY_A | PLA_SM110, _)
PL_FORM("tcgen05.mma.cta_group::2.(.kind::f16|.kind::tf32).ashift{$tcksh}",
        "m:b32=, m:b32=, a:b64=i, a:b32=i, r[8]:b32, p", 86, 100, PLA_FAMILY_A | PLA_SM110, _)
PL_FORM("tcgen05.mma.cta_group::2.(.kind::f16|.kind::tf32).ashift{$tcksh}",
        "m:b32=, m:b32=, a:b64=i, a:b32=i, r[8]?:b32, p, i:u32^15", 86, 100, PLA_FAMILY_A, _)
PL_FORM("tcgen05.mma.cta_group::1.kind::f8f6f4{$tcka}", "m:b32=, a:b64=i, a:b64=i, a:b32=i, p", 86,
        100, PLA_FAMILY_A | PLA_SM110, TCMMA)
PL_FORM("tcgen05.mma.cta_group::1.kind::f8f6f4{$tcka}",
        "m:b32=, a:b64=i, a:b64=i, a:b32=i, r[4]:b32, p", 86, 100, PLA_FAMILY_A | PLA_SM110, TCMMA)
PL_FORM("tcgen05.mma.cta_group::1.kind::f8f6f4{$tcka}", "m:b32=, m:b32=, a:b64=i, a:b32=i, p", 86,
        100, PLA_FAMILY_A | PLA_SM110, TCMMA)
PL_FORM("tcgen05.mma.cta_group::1.kind::f8f6f4{$tcka}",
        "m:b32=, m:b32=, a:b64=i, a:b32=i, r[4]:b32, p", 86, 100, PLA_FAMILY_A | PLA_SM110, TCMMA)
PL_FORM("tcgen05.mma.cta_group::1.kind::f8f6f4.ashift{$tcksh}",
        "m:b32=, m:b32=, a:b64=i, a:b32=i, p", 86, 100, PLA_FAMILY_A | PLA_SM110, _)
PL_FORM("tcgen05.mma.cta_group::1.kind::f8f6f4.ashift{$tcksh}",
        "m:b32=, m:b32=, a:b64=i, a:b32=i, r[4]:b32, p", 86, 100, PLA_FAMILY_A | PLA_SM110, _)
PL_FORM("tcgen05.mma.cta_group::2.kind::f8f6f4{$tcka}", "m:b32=, a:b64=i, a:b64=i, a:b32=i, p", 86,
        100, PLA_FAMILY_A | PLA_SM110, TCMMA)
PL_FORM("tcgen05.mma.cta_group::2.kind::f8f6f4{$tcka}",
        "m:b32=, a:b64=i, a:b64=i, a:b32=i, r[8]:b32, p", 86, 100, PLA_FAMILY_A | PLA_SM110, TCMMA)
PL_FORM("tcgen05.mma.cta_group::2.kind::f8f6f4{$tcka}", "m:b32=, m:b32=, a:b64=i, a:b32=i, p", 86,
        100, PLA_FAMILY_A | PLA_SM110, TCMMA)
PL_FORM("tcgen05.mma.cta_group::2.kind::f8f6f4{$tcka}",
        "m:b32=, m:b32=, a:b64=i, a:b32=i, r[8]:b32, p", 86, 100, PLA_FAMILY_A | PLA_SM110, TCMMA)
PL_FORM("tcgen05.mma.cta_group::2.kind::f8f6f4.ashift{$tcksh}",
        "m:b32=, m:b32=, a:b64=i, a:b32=i, p", 86, 100, PLA_FAMILY_A | PLA_SM110, _)
PL_FORM("tcgen05.mma.cta_group::2.kind::f8f6f4.ashift{$tcksh}",
        "m:b32=, m:b32=, a:b64=i, a:b32=i, r[8]:b32, p", 86, 100, PLA_FAMILY_A | PLA_SM110, _)
PL_FORM("tcgen05.mma.cta_group::1.kind::i8{$tcka}", "m:b32=, a:b64=i, a:b64=i, a:b32=i, p, p?", 86,
        100, PLA_ARCH_A | PLA_SM110 | PLA_NO103, TCMMA)
PL_FORM("tcgen05.mma.cta_group::1.kind::i8{$tcka}",
        "m:b32=, a:b64=i, a:b64=i, a:b32=i, r[4]:b32, p", 86, 100,
        PLA_ARCH_A | PLA_SM110 | PLA_NO103, TCMMA)
PL_FORM("tcgen05.mma.cta_group::1.kind::i8{$tcka}", "m:b32=, m:b32=, a:b64=i, a:b32=i, p, p?", 86,
        100, PLA_ARCH_A | PLA_SM110 | PLA_NO103, TCMMA)
PL_FORM("tcgen05.mma.cta_group::1.kind::i8{$tcka}", "m:b32=, m:b32=, a:b64=i, a:b32=i, r[4]:b32, p",
        86, 100, PLA_ARCH_A | PLA_SM110 | PLA_NO103, TCMMA)
PL_FORM("tcgen05.mma.cta_group::1.kind::i8.ashift{$tcksh}",
        "m:b32=, m:b32=, a:b64=i, a:b32=i, p, p?", 86, 100, PLA_ARCH_A | PLA_SM110 | PLA_NO103, _)
PL_FORM("tcgen05.mma.cta_group::1.kind::i8.ashift{$tcksh}",
        "m:b32=, m:b32=, a:b64=i, a:b32=i, r[4]:b32, p", 86, 100,
        PLA_ARCH_A | PLA_SM110 | PLA_NO103, _)
PL_FORM("tcgen05.mma.cta_group::2.kind::i8{$tcka}", "m:b32=, a:b64=i, a:b64=i, a:b32=i, p, p?", 86,
        100, PLA_ARCH_A | PLA_SM110 | PLA_NO103, TCMMA)
PL_FORM("tcgen05.mma.cta_group::2.kind::i8{$tcka}",
        "m:b32=, a:b64=i, a:b64=i, a:b32=i, r[8]:b32, p", 86, 100,
        PLA_ARCH_A | PLA_SM110 | PLA_NO103, TCMMA)
PL_FORM("tcgen05.mma.cta_group::2.kind::i8{$tcka}", "m:b32=, m:b32=, a:b64=i, a:b32=i, p, p?", 86,
        100, PLA_ARCH_A | PLA_SM110 | PLA_NO103, TCMMA)
PL_FORM("tcgen05.mma.cta_group::2.kind::i8{$tcka}", "m:b32=, m:b32=, a:b64=i, a:b32=i, r[8]:b32, p",
        86, 100, PLA_ARCH_A | PLA_SM110 | PLA_NO103, TCMMA)
PL_FORM("tcgen05.mma.cta_group::2.kind::i8.ashift{$tcksh}",
        "m:b32=, m:b32=, a:b64=i, a:b32=i, p, p?", 86, 100, PLA_ARCH_A | PLA_SM110 | PLA_NO103, _)
PL_FORM("tcgen05.mma.cta_group::2.kind::i8.ashift{$tcksh}",
        "m:b32=, m:b32=, a:b64=i, a:b32=i, r[8]:b32, p", 86, 100,
        PLA_ARCH_A | PLA_SM110 | PLA_NO103, _)
PL_FORM("tcgen05.mma.sp.cta_group::1.(.kind::f16|.kind::tf32){$tcka}",
        "m:b32=, a:b64=i, a:b64=i, m:b32=, a:b32=i, p", 86, 100, PLA_FAMILY_A | PLA_SM110, _)
PL_FORM("tcgen05.mma.sp.cta_group::1.(.kind::f16|.kind::tf32){$tcka}",
        "m:b32=, a:b64=i, a:b64=i, m:b32=, a:b32=i, r[4]:b32, p", 86, 100, PLA_FAMILY_A | PLA_SM110,
        _)
PL_FORM("tcgen05.mma.sp.cta_group::1.(.kind::f16|.kind::tf32){$tcka}",
        "m:b32=, m:b32=, a:b64=i, m:b32=, a:b32=i, p", 86, 100, PLA_FAMILY_A | PLA_SM110, _)
PL_FORM("tcgen05.mma.sp.cta_group::1.(.kind::f16|.kind::tf32){$tcka}",
        "m:b32=, m:b32=, a:b64=i, m:b32=, a:b32=i, r[4]:b32, p", 86, 100, PLA_FAMILY_A | PLA_SM110,
        _)
PL_FORM("tcgen05.mma.sp.cta_group::1.(.kind::f16|.kind::tf32){$tcka}",
        "m:b32=, a:b64=i, a:b64=i, m:b32=, a:b32=i, r[4]?:b32, p, i:u32^15", 86, 100, PLA_FAMILY_A,
        _)
PL_FORM("tcgen05.mma.sp.cta_group::1.(.kind::f16|.kind::tf32){$tcka}",
        "m:b32=, m:b32=, a:b64=i, m:b32=, a:b32=i, r[4]?:b32, p, i:u32^15", 86, 100, PLA_FAMILY_A,
        _)
PL_FORM("tcgen05.mma.sp.cta_group::1.(.kind::f16|.kind::tf32).ashift{$tcksh}",
        "m:b32=, m:b32=, a:b64=i, m:b32=, a:b32=i, p", 86, 100, PLA_FAMILY_A | PLA_SM110, _)
PL_FORM("tcgen05.mma.sp.cta_group::1.(.kind::f16|.kind::tf32).ashift{$tcksh}",
        "m:b32=, m:b32=, a:b64=i, m:b32=, a:b32=i, r[4]:b32, p", 86, 100, PLA_FAMILY_A | PLA_SM110,
        _)
PL_FORM("tcgen05.mma.sp.cta_group::1.(.kind::f16|.kind::tf32).ashift{$tcksh}",
        "m:b32=, m:b32=, a:b64=i, m:b32=, a:b32=i, r[4]?:b32, p, i:u32^15", 86, 100, PLA_FAMILY_A,
        _)
PL_FORM("tcgen05.mma.sp.cta_group::2.(.kind::f16|.kind::tf32){$tcka}",
        "m:b32=, a:b64=i, a:b64=i, m:b32=, a:b32=i, p", 86, 100, PLA_FAMILY_A | PLA_SM110, _)
PL_FORM("tcgen05.mma.sp.cta_group::2.(.kind::f16|.kind::tf32){$tcka}",
        "m:b32=, a:b64=i, a:b64=i, m:b32=, a:b32=i, r[8]:b32, p", 86, 100, PLA_FAMILY_A | PLA_SM110,
        _)
PL_FORM("tcgen05.mma.sp.cta_group::2.(.kind::f16|.kind::tf32){$tcka}",
        "m:b32=, m:b32=, a:b64=i, m:b32=, a:b32=i, p", 86, 100, PLA_FAMILY_A | PLA_SM110, _)
PL_FORM("tcgen05.mma.sp.cta_group::2.(.kind::f16|.kind::tf32){$tcka}",
        "m:b32=, m:b32=, a:b64=i, m:b32=, a:b32=i, r[8]:b32, p", 86, 100, PLA_FAMILY_A | PLA_SM110,
        _)
PL_FORM("tcgen05.mma.sp.cta_group::2.(.kind::f16|.kind::tf32){$tcka}",
        "m:b32=, a:b64=i, a:b64=i, m:b32=, a:b32=i, r[8]?:b32, p, i:u32^15", 86, 100, PLA_FAMILY_A,
        _)
PL_FORM("tcgen05.mma.sp.cta_group::2.(.kind::f16|.kind::tf32){$tcka}",
        "m:b32=, m:b32=, a:b64=i, m:b32=, a:b32=i, r[8]?:b32, p, i:u32^15", 86, 100, PLA_FAMILY_A,
        _)
PL_FORM("tcgen05.mma.sp.cta_group::2.(.kind::f16|.kind::tf32).ashift{$tcksh}",
        "m:b32=, m:b32=, a:b64=i, m:b32=, a:b32=i, p", 86, 100, PLA_FAMILY_A | PLA_SM110, _)
PL_FORM("tcgen05.mma.sp.cta_group::2.(.kind::f16|.kind::tf32).ashift{$tcksh}",
        "m:b32=, m:b32=, a:b64=i, m:b32=, a:b32=i, r[8]:b32, p", 86, 100, PLA_FAMILY_A | PLA_SM110,
        _)
PL_FORM("tcgen05.mma.sp.cta_group::2.(.kind::f16|.kind::tf32).ashift{$tcksh}",
        "m:b32=, m:b32=, a:b64=i, m:b32=, a:b32=i, r[8]?:b32, p, i:u32^15", 86, 100, PLA_FAMILY_A,
        _)
PL_FORM("tcgen05.mma.sp.cta_group::1.kind::f8f6f4{$tcka}",
        "m:b32=, a:b64=i, a:b64=i, m:b32=, a:b32=i, p", 86, 100, PLA_FAMILY_A | PLA_SM110, _)
PL_FORM("tcgen05.mma.sp.cta_group::1.kind::f8f6f4{$tcka}",
        "m:b32=, a:b64=i, a:b64=i, m:b32=, a:b32=i, r[4]:b32, p", 86, 100, PLA_FAMILY_A | PLA_SM110,
        _)
PL_FORM("tcgen05.mma.sp.cta_group::1.kind::f8f6f4{$tcka}",
        "m:b32=, m:b32=, a:b64=i, m:b32=, a:b32=i, p", 86, 100, PLA_FAMILY_A | PLA_SM110, _)
PL_FORM("tcgen05.mma.sp.cta_group::1.kind::f8f6f4{$tcka}",
        "m:b32=, m:b32=, a:b64=i, m:b32=, a:b32=i, r[4]:b32, p", 86, 100, PLA_FAMILY_A | PLA_SM110,
        _)
PL_FORM("tcgen05.mma.sp.cta_group::1.kind::f8f6f4.ashift{$tcksh}",
        "m:b32=, m:b32=, a:b64=i, m:b32=, a:b32=i, p", 86, 100, PLA_FAMILY_A | PLA_SM110, _)
PL_FORM("tcgen05.mma.sp.cta_group::1.kind::f8f6f4.ashift{$tcksh}",
        "m:b32=, m:b32=, a:b64=i, m:b32=, a:b32=i, r[4]:b32, p", 86, 100, PLA_FAMILY_A | PLA_SM110,
        _)
PL_FORM("tcgen05.mma.sp.cta_group::2.kind::f8f6f4{$tcka}",
        "m:b32=, a:b64=i, a:b64=i, m:b32=, a:b32=i, p", 86, 100, PLA_FAMILY_A | PLA_SM110, _)
PL_FORM("tcgen05.mma.sp.cta_group::2.kind::f8f6f4{$tcka}",
        "m:b32=, a:b64=i, a:b64=i, m:b32=, a:b32=i, r[8]:b32, p", 86, 100, PLA_FAMILY_A | PLA_SM110,
        _)
PL_FORM("tcgen05.mma.sp.cta_group::2.kind::f8f6f4{$tcka}",
        "m:b32=, m:b32=, a:b64=i, m:b32=, a:b32=i, p", 86, 100, PLA_FAMILY_A | PLA_SM110, _)
PL_FORM("tcgen05.mma.sp.cta_group::2.kind::f8f6f4{$tcka}",
        "m:b32=, m:b32=, a:b64=i, m:b32=, a:b32=i, r[8]:b32, p", 86, 100, PLA_FAMILY_A | PLA_SM110,
        _)
PL_FORM("tcgen05.mma.sp.cta_group::2.kind::f8f6f4.ashift{$tcksh}",
        "m:b32=, m:b32=, a:b64=i, m:b32=, a:b32=i, p", 86, 100, PLA_FAMILY_A | PLA_SM110, _)
PL_FORM("tcgen05.mma.sp.cta_group::2.kind::f8f6f4.ashift{$tcksh}",
        "m:b32=, m:b32=, a:b64=i, m:b32=, a:b32=i, r[8]:b32, p", 86, 100, PLA_FAMILY_A | PLA_SM110,
        _)
PL_FORM("tcgen05.mma.sp.cta_group::1.kind::i8{$tcka}",
        "m:b32=, a:b64=i, a:b64=i, m:b32=, a:b32=i, p", 86, 100, PLA_ARCH_A | PLA_SM110 | PLA_NO103,
        _)
PL_FORM("tcgen05.mma.sp.cta_group::1.kind::i8{$tcka}",
        "m:b32=, a:b64=i, a:b64=i, m:b32=, a:b32=i, r[4]:b32, p", 86, 100,
        PLA_ARCH_A | PLA_SM110 | PLA_NO103, _)
PL_FORM("tcgen05.mma.sp.cta_group::1.kind::i8{$tcka}",
        "m:b32=, m:b32=, a:b64=i, m:b32=, a:b32=i, p", 86, 100, PLA_ARCH_A | PLA_SM110 | PLA_NO103,
        _)
PL_FORM("tcgen05.mma.sp.cta_group::1.kind::i8{$tcka}",
        "m:b32=, m:b32=, a:b64=i, m:b32=, a:b32=i, r[4]:b32, p", 86, 100,
        PLA_ARCH_A | PLA_SM110 | PLA_NO103, _)
PL_FORM("tcgen05.mma.sp.cta_group::1.kind::i8.ashift{$tcksh}",
        "m:b32=, m:b32=, a:b64=i, m:b32=, a:b32=i, p", 86, 100, PLA_ARCH_A | PLA_SM110 | PLA_NO103,
        _)
PL_FORM("tcgen05.mma.sp.cta_group::1.kind::i8.ashift{$tcksh}",
        "m:b32=, m:b32=, a:b64=i, m:b32=, a:b32=i, r[4]:b32, p", 86, 100,
        PLA_ARCH_A | PLA_SM110 | PLA_NO103, _)
PL_FORM("tcgen05.mma.sp.cta_group::2.kind::i8{$tcka}",
        "m:b32=, a:b64=i, a:b64=i, m:b32=, a:b32=i, p", 86, 100, PLA_ARCH_A | PLA_SM110 | PLA_NO103,
        _)
PL_FORM("tcgen05.mma.sp.cta_group::2.kind::i8{$tcka}",
        "m:b32=, a:b64=i, a:b64=i, m:b32=, a:b32=i, r[8]:b32, p", 86, 100,
        PLA_ARCH_A | PLA_SM110 | PLA_NO103, _)
PL_FORM("tcgen05.mma.sp.cta_group::2.kind::i8{$tcka}",
        "m:b32=, m:b32=, a:b64=i, m:b32=, a:b32=i, p", 86, 100, PLA_ARCH_A | PLA_SM110 | PLA_NO103,
        _)
PL_FORM("tcgen05.mma.sp.cta_group::2.kind::i8{$tcka}",
        "m:b32=, m:b32=, a:b64=i, m:b32=, a:b32=i, r[8]:b32, p", 86, 100,
        PLA_ARCH_A | PLA_SM110 | PLA_NO103, _)
PL_FORM("tcgen05.mma.sp.cta_group::2.kind::i8.ashift{$tcksh}",
        "m:b32=, m:b32=, a:b64=i, m:b32=, a:b32=i, p", 86, 100, PLA_ARCH_A | PLA_SM110 | PLA_NO103,
        _)
PL_FORM("tcgen05.mma.sp.cta_group::2.kind::i8.ashift{$tcksh}",
        "m:b32=, m:b32=, a:b64=i, m:b32=, a:b32=i, r[8]:b32, p", 86, 100,
        PLA_ARCH_A | PLA_SM110 | PLA_NO103, _)
/* the block-scaled kinds, scale vectors [scale-A-tmem], [scale-B-tmem] in tensor memory: .block16,
** .block32 and the default (.block32) PTX 8.8 on the family targets; .scale_vec::NX 8.6 (mxf4nvf4
** 8.7) arch-specific; mxf8f6f4 scales by 32 (1X), mxf4 by 32 (2X), mxf4nvf4 by 32 or 16 (2X, 4X);
** sparse mxf4 and mxf4nvf4 only on the arch-specific targets */
PL_FORM("tcgen05.mma$tccg.kind::mxf8f6f4.block_scale{.block32}{$tcka}",
        "m:b32=, a:b64=i, a:b64=i, a:b32=i, m:b32=, m:b32=, p", 88, 100, PLA_FAMILY_A | PLA_SM110,
        TCMMA)
PL_FORM("tcgen05.mma$tccg.kind::mxf8f6f4.block_scale{.block32}{$tcka}",
        "m:b32=, m:b32=, a:b64=i, a:b32=i, m:b32=, m:b32=, p", 88, 100, PLA_FAMILY_A | PLA_SM110,
        TCMMA)
PL_FORM("tcgen05.mma$tccg.kind::mxf8f6f4.block_scale.scale_vec::1X{$tcka}",
        "m:b32=, a:b64=i, a:b64=i, a:b32=i, m:b32=, m:b32=, p", 86, 100, PLA_ARCH_A | PLA_SM110,
        TCMMA)
PL_FORM("tcgen05.mma$tccg.kind::mxf8f6f4.block_scale.scale_vec::1X{$tcka}",
        "m:b32=, m:b32=, a:b64=i, a:b32=i, m:b32=, m:b32=, p", 86, 100, PLA_ARCH_A | PLA_SM110,
        TCMMA)
PL_FORM("tcgen05.mma$tccg.kind::mxf4.block_scale{.block32}{$tcka}",
        "m:b32=, a:b64=i, a:b64=i, a:b32=i, m:b32=, m:b32=, p", 88, 100, PLA_FAMILY_A | PLA_SM110,
        TCMMA)
PL_FORM("tcgen05.mma$tccg.kind::mxf4.block_scale{.block32}{$tcka}",
        "m:b32=, m:b32=, a:b64=i, a:b32=i, m:b32=, m:b32=, p", 88, 100, PLA_FAMILY_A | PLA_SM110,
        TCMMA)
PL_FORM("tcgen05.mma$tccg.kind::mxf4.block_scale.scale_vec::2X{$tcka}",
        "m:b32=, a:b64=i, a:b64=i, a:b32=i, m:b32=, m:b32=, p", 86, 100, PLA_ARCH_A | PLA_SM110,
        TCMMA)
PL_FORM("tcgen05.mma$tccg.kind::mxf4.block_scale.scale_vec::2X{$tcka}",
        "m:b32=, m:b32=, a:b64=i, a:b32=i, m:b32=, m:b32=, p", 86, 100, PLA_ARCH_A | PLA_SM110,
        TCMMA)
PL_FORM("tcgen05.mma$tccg.kind::mxf4nvf4.block_scale.(.block16|.block32){$tcka}",
        "m:b32=, a:b64=i, a:b64=i, a:b32=i, m:b32=, m:b32=, p", 88, 100, PLA_FAMILY_A | PLA_SM110,
        TCMMA)
PL_FORM("tcgen05.mma$tccg.kind::mxf4nvf4.block_scale.(.block16|.block32){$tcka}",
        "m:b32=, m:b32=, a:b64=i, a:b32=i, m:b32=, m:b32=, p", 88, 100, PLA_FAMILY_A | PLA_SM110,
        TCMMA)
PL_FORM("tcgen05.mma$tccg.kind::mxf4nvf4.block_scale.(.scale_vec::2X|.scale_vec::4X){$tcka}",
        "m:b32=, a:b64=i, a:b64=i, a:b32=i, m:b32=, m:b32=, p", 87, 100, PLA_ARCH_A | PLA_SM110,
        TCMMA)
PL_FORM("tcgen05.mma$tccg.kind::mxf4nvf4.block_scale.(.scale_vec::2X|.scale_vec::4X){$tcka}",
        "m:b32=, m:b32=, a:b64=i, a:b32=i, m:b32=, m:b32=, p", 87, 100, PLA_ARCH_A | PLA_SM110,
        TCMMA)
PL_FORM("tcgen05.mma.sp$tccg.kind::mxf8f6f4.block_scale{.block32}{$tcka}",
        "m:b32=, a:b64=i, a:b64=i, m:b32=, a:b32=i, m:b32=, m:b32=, p", 88, 100,
        PLA_FAMILY_A | PLA_SM110, _)
PL_FORM("tcgen05.mma.sp$tccg.kind::mxf8f6f4.block_scale{.block32}{$tcka}",
        "m:b32=, m:b32=, a:b64=i, m:b32=, a:b32=i, m:b32=, m:b32=, p", 88, 100,
        PLA_FAMILY_A | PLA_SM110, _)
PL_FORM("tcgen05.mma.sp$tccg.kind::mxf8f6f4.block_scale.scale_vec::1X{$tcka}",
        "m:b32=, a:b64=i, a:b64=i, m:b32=, a:b32=i, m:b32=, m:b32=, p", 86, 100,
        PLA_ARCH_A | PLA_SM110, _)
PL_FORM("tcgen05.mma.sp$tccg.kind::mxf8f6f4.block_scale.scale_vec::1X{$tcka}",
        "m:b32=, m:b32=, a:b64=i, m:b32=, a:b32=i, m:b32=, m:b32=, p", 86, 100,
        PLA_ARCH_A | PLA_SM110, _)
PL_FORM("tcgen05.mma.sp$tccg.kind::mxf4.block_scale{.block32}{$tcka}",
        "m:b32=, a:b64=i, a:b64=i, m:b32=, a:b32=i, m:b32=, m:b32=, p", 88, 100,
        PLA_ARCH_A | PLA_SM110, _)
PL_FORM("tcgen05.mma.sp$tccg.kind::mxf4.block_scale{.block32}{$tcka}",
        "m:b32=, m:b32=, a:b64=i, m:b32=, a:b32=i, m:b32=, m:b32=, p", 88, 100,
        PLA_ARCH_A | PLA_SM110, _)
PL_FORM("tcgen05.mma.sp$tccg.kind::mxf4.block_scale.scale_vec::2X{$tcka}",
        "m:b32=, a:b64=i, a:b64=i, m:b32=, a:b32=i, m:b32=, m:b32=, p", 86, 100,
        PLA_ARCH_A | PLA_SM110, _)
PL_FORM("tcgen05.mma.sp$tccg.kind::mxf4.block_scale.scale_vec::2X{$tcka}",
        "m:b32=, m:b32=, a:b64=i, m:b32=, a:b32=i, m:b32=, m:b32=, p", 86, 100,
        PLA_ARCH_A | PLA_SM110, _)
PL_FORM("tcgen05.mma.sp$tccg.kind::mxf4nvf4.block_scale.(.block16|.block32){$tcka}",
        "m:b32=, a:b64=i, a:b64=i, m:b32=, a:b32=i, m:b32=, m:b32=, p", 88, 100,
        PLA_ARCH_A | PLA_SM110, _)
PL_FORM("tcgen05.mma.sp$tccg.kind::mxf4nvf4.block_scale.(.block16|.block32){$tcka}",
        "m:b32=, m:b32=, a:b64=i, m:b32=, a:b32=i, m:b32=, m:b32=, p", 88, 100,
        PLA_ARCH_A | PLA_SM110, _)
PL_FORM("tcgen05.mma.sp$tccg.kind::mxf4nvf4.block_scale.(.scale_vec::2X|.scale_vec::4X){$tcka}",
        "m:b32=, a:b64=i, a:b64=i, m:b32=, a:b32=i, m:b32=, m:b32=, p", 87, 100,
        PLA_ARCH_A | PLA_SM110, _)
PL_FORM("tcgen05.mma.sp$tccg.kind::mxf4nvf4.block_scale.(.scale_vec::2X|.scale_vec::4X){$tcka}",
        "m:b32=, m:b32=, a:b64=i, m:b32=, a:b32=i, m:b32=, m:b32=, p", 87, 100,
        PLA_ARCH_A | PLA_SM110, _)
/* .ws: ::1 only, collector buffers b0-b3, an optional .b64 zero-column mask */
PL_FORM("tcgen05.mma.ws.cta_group::1$tckind{$tckb}", "m:b32=, a:b64=i, a:b64=i, a:b32=i, p, a?:b64",
        86, 100, PLA_FAMILY_A | PLA_SM110, _)
PL_FORM("tcgen05.mma.ws.cta_group::1$tckind{$tckb}", "m:b32=, m:b32=, a:b64=i, a:b32=i, p, a?:b64",
        86, 100, PLA_FAMILY_A | PLA_SM110, _)
PL_FORM("tcgen05.mma.ws.cta_group::1.kind::i8{$tckb}",
        "m:b32=, a:b64=i, a:b64=i, a:b32=i, p, a?:b64", 86, 100, PLA_ARCH_A | PLA_SM110 | PLA_NO103,
        _)
PL_FORM("tcgen05.mma.ws.cta_group::1.kind::i8{$tckb}",
        "m:b32=, m:b32=, a:b64=i, a:b32=i, p, a?:b64", 86, 100, PLA_ARCH_A | PLA_SM110 | PLA_NO103,
        _)
PL_FORM("tcgen05.mma.ws.sp.cta_group::1$tckind{$tckb}",
        "m:b32=, a:b64=i, a:b64=i, m:b32=, a:b32=i, p, a?:b64", 86, 100, PLA_FAMILY_A | PLA_SM110,
        _)
PL_FORM("tcgen05.mma.ws.sp.cta_group::1$tckind{$tckb}",
        "m:b32=, m:b32=, a:b64=i, m:b32=, a:b32=i, p, a?:b64", 86, 100, PLA_FAMILY_A | PLA_SM110, _)
PL_FORM("tcgen05.mma.ws.sp.cta_group::1.kind::i8{$tckb}",
        "m:b32=, a:b64=i, a:b64=i, m:b32=, a:b32=i, p, a?:b64", 86, 100,
        PLA_ARCH_A | PLA_SM110 | PLA_NO103, _)
PL_FORM("tcgen05.mma.ws.sp.cta_group::1.kind::i8{$tckb}",
        "m:b32=, m:b32=, a:b64=i, m:b32=, a:b32=i, p, a?:b64", 86, 100,
        PLA_ARCH_A | PLA_SM110 | PLA_NO103, _)
PL_FORM("tcgen05.commit$tccg.mbarrier::arrive::one{.shared::cluster}.b64", "m", 86, 100,
        PLA_FAMILY_A | PLA_SM110, TCCOMMIT)
PL_FORM("tcgen05.commit$tccg.mbarrier::arrive::one{.shared::cluster}.multicast::cluster.b64",
        "m, r:b16=i", 86, 100, PLA_FAMILY_A | PLA_SM110, TCCOMMIT)
PL_FORM("tcgen05.ld.sync.aligned.(.32x32b|.16x64b)$tcx128{.pack::16b}.b32", "d[x]:b32, m:b32=i", 86,
        100, PLA_FAMILY_A | PLA_SM110, TCLD)
PL_FORM("tcgen05.ld.sync.aligned.16x128b$tcx64{.pack::16b}.b32", "d[x*2]:b32, m:b32=i", 86, 100,
        PLA_FAMILY_A | PLA_SM110, TCLD)
PL_FORM("tcgen05.ld.sync.aligned.16x256b$tcx32{.pack::16b}.b32", "d[x*4]:b32, m:b32=i", 86, 100,
        PLA_FAMILY_A | PLA_SM110, TCLD)
PL_FORM("tcgen05.ld.sync.aligned.16x32bx2$tcx128{.pack::16b}.b32", "d[x]:b32, m:b32=i, i:u32", 86,
        100, PLA_FAMILY_A | PLA_SM110, _)
PL_FORM("tcgen05.st.sync.aligned.(.32x32b|.16x64b)$tcx128{.unpack::16b}.b32", "m:b32=i, r[x]:b32",
        86, 100, PLA_FAMILY_A | PLA_SM110, TCST)
PL_FORM("tcgen05.st.sync.aligned.16x128b$tcx64{.unpack::16b}.b32", "m:b32=i, r[x*2]:b32", 86, 100,
        PLA_FAMILY_A | PLA_SM110, TCST)
PL_FORM("tcgen05.st.sync.aligned.16x256b$tcx32{.unpack::16b}.b32", "m:b32=i, r[x*4]:b32", 86, 100,
        PLA_FAMILY_A | PLA_SM110, TCST)
PL_FORM("tcgen05.st.sync.aligned.16x32bx2$tcx128{.unpack::16b}.b32", "m:b32=i, i:u32, r[x]:b32", 86,
        100, PLA_FAMILY_A | PLA_SM110, _)
/* tcgen05.ld.red (PTX 8.8, sm_103a/f and sm_110a/f, not sm_100): .32x32b and .16x32bx2 loads of
** .x2 to .x128 that also reduce the loaded values (.min, .max) into redval, a destination */
PL_SET(tcx2, ".x2|.x4|.x8|.x16|.x32|.x64|.x128")
PL_FORM("tcgen05.ld.red.sync.aligned.32x32b$tcx2.(.min|.max){.abs}{.NaN}.f32",
        "d[x]:b32, d:b32, m:b32=i", 88, 103, PLA_FAMILY_A | PLA_SM110, _)
PL_FORM("tcgen05.ld.red.sync.aligned.32x32b$tcx2.(.min|.max).(.u32|.s32)",
        "d[x]:b32, d:b32, m:b32=i", 88, 103, PLA_FAMILY_A | PLA_SM110, _)
PL_FORM("tcgen05.ld.red.sync.aligned.16x32bx2$tcx2.(.min|.max){.abs}{.NaN}.f32",
        "d[x]:b32, d:b32, m:b32=i, i:u32", 88, 103, PLA_FAMILY_A | PLA_SM110, _)
PL_FORM("tcgen05.ld.red.sync.aligned.16x32bx2$tcx2.(.min|.max).(.u32|.s32)",
        "d[x]:b32, d:b32, m:b32=i, i:u32", 88, 103, PLA_FAMILY_A | PLA_SM110, _)
PL_FORM("tcgen05.wait::ld.sync.aligned", "", 86, 100, PLA_FAMILY_A | PLA_SM110, TCWAIT)
PL_FORM("tcgen05.wait::st.sync.aligned", "", 86, 100, PLA_FAMILY_A | PLA_SM110, TCWAIT)
PL_FORM("tcgen05.fence::before_thread_sync", "", 86, 100, PLA_FAMILY_A | PLA_SM110, TCFENCE)
PL_FORM("tcgen05.fence::after_thread_sync", "", 86, 100, PLA_FAMILY_A | PLA_SM110, TCFENCE)
/* tcgen05.cp: shared memory (a matrix descriptor) to tensor memory, optionally decompressing 6- or
** 4-bit elements (.b6x16_p32, .b4x16_p64) into bytes */
PL_FORM("tcgen05.cp$tccg.(.128x256b|.4x256b|.128x128b|.64x128b.warpx2::02_13|.64x128b"
        ".warpx2::01_23|.32x128b.warpx4){.b8x16.b6x16_p32|.b8x16.b4x16_p64}", "m:b32=i, a:b64=i",
        86, 100, PLA_FAMILY_A | PLA_SM110, TCCP)
PL_FORM("tcgen05.shift$tccg.down", "m:b32=i", 86, 100, PLA_ARCH_A | PLA_SM110, _)
/* cluster launch control (sm_100, PTX 8.6): try_cancel writes a 16-byte response to shared memory
** and completes 16 bytes of tx on an mbarrier (without .shared::cta at any generic address: a
** variable of .shared, .global or .local, not .const or .param; .shared::cta variables with
** it); .multicast::cluster::all writes it in every CTA of the cluster, on the arch- and
** family-specific targets; query_cancel decodes the response (a .b128 register) */
PL_FORM("clusterlaunchcontrol.try_cancel.async.shared::cta.mbarrier::complete_tx::bytes.b128",
        "mg>, mg", 86, 100, 0, CLCTRY)
PL_FORM("clusterlaunchcontrol.try_cancel.async.mbarrier::complete_tx::bytes.b128", "mg>, mg", 86,
        100, 0, CLCTRY)
PL_FORM("clusterlaunchcontrol.try_cancel.async.shared::cta.mbarrier::complete_tx::bytes"
        ".multicast::cluster::all.b128", "mg>, mg", 86, 100, PLA_SPECIFIC, CLCTRY)
PL_FORM("clusterlaunchcontrol.try_cancel.async.mbarrier::complete_tx::bytes"
        ".multicast::cluster::all.b128", "mg>, mg", 86, 100, PLA_SPECIFIC, CLCTRY)
PL_FORM("clusterlaunchcontrol.query_cancel.is_canceled.pred.b128", "p, r:b128", 86, 100, 0,
        CLCQUERY)
PL_FORM("clusterlaunchcontrol.query_cancel.get_first_ctaid.v4.b32.b128", "d[4]:b32_, r:b128", 86,
        100, 0, CLCQUERY)
PL_FORM("clusterlaunchcontrol.query_cancel.(.get_first_ctaid::x|.get_first_ctaid::y|"
        ".get_first_ctaid::z).b32.b128", "d:b32, r:b128", 86, 100, 0, CLCQUERY)
/* clusters, elections, dependent grids, register budgets */
PL_FORM("mapa{.shared::cluster}.(.u32|.u64)", "d, A, a:u32", 78, 90, 0, MAPA)
PL_FORM("getctarank{.shared::cluster}.(.u32|.u64)", "d:u32, A", 78, 90, 0, GETRANK)
PL_FORM("elect.sync", "d:b32_||, a:u32", 80, 90, 0, ELECT)
PL_FORM("griddepcontrol.(.launch_dependents|.wait)", "", 78, 90, 0, GRIDDEP)
PL_FORM("setmaxnreg.(.inc|.dec).sync.aligned.u32", "i:u32%8^24..256", 80, 90, PLA_SPECIFIC,
        SETMAXNREG)
