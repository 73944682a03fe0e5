-- emu_nvcc_spec.lua -- the forms nvcc writes, run in the emulator from PTX (ptxlua --from-ptx, plain
-- and --sugar): shfl.sync with a predicate destination (d|p), nested { } blocks of inline asm (and
-- the script line of a statement that shares its PTX line with others), mov.pred of an immediate,
-- a membermask per cooperative-groups tile, `.reg.b32 f;` written without a space, the .param
-- calling convention (arguments, results, byte-array parameters, calls from a .func, recursion and
-- its depth limit, printf through vprintf), and a .weak .entry in a --sugar script. Each kernel is
-- written here as nvcc lays it out, assembled by ptxas, and checked against a Lua reference.
local H = require "helper"
local rt = require "ptxlua.emu"
local bit = require "bit"
local shq = H.shq

local FORMS = H.PTX_FORMS
local line_holding = H.line_holding

-- FILE.ptx assembled by ptxas (sm_80), then transpiled (H.transpile: printed back byte for byte)
local function transpile(text, base, form)
  local ok, out = H.assemble(text, "sm_80")
  if ok ~= nil then assert(ok, out) end
  return H.transpile(text, base, form)
end

local function kernels(script) return (H.load_script(script)) end

local HEAD = ".version 8.5\n.target sm_80\n.address_size 64\n\n"

-- a kernel of one u64 output pointer and a u32 n, nvcc's prologue: %r1 = global thread index,
-- %rd1 = the output's global address, %rd2 = &out[i] (u32 elements); body follows
local function entry(name, regs, body)
  return HEAD .. ".visible .entry " .. name .. "(\n\t.param .u64 " .. name .. "_param_0,\n\t.param .u32 " .. name .. "_param_1\n)\n{\n" ..
    regs ..
    "\tld.param.u64 \t%rd3, [" .. name .. "_param_0];\n" ..
    "\tld.param.u32 \t%r9, [" .. name .. "_param_1];\n" ..
    "\tcvta.to.global.u64 \t%rd1, %rd3;\n" ..
    "\tmov.u32 \t%r2, %ctaid.x;\n\tmov.u32 \t%r3, %ntid.x;\n\tmov.u32 \t%r4, %tid.x;\n" ..
    "\tmad.lo.s32 \t%r1, %r2, %r3, %r4;\n" ..
    "\tmul.wide.s32 \t%rd4, %r1, 4;\n\tadd.s64 \t%rd2, %rd1, %rd4;\n" ..
    body .. "\tret;\n\n}\n"
end

-- launch k over n threads (a multiple of block: the skeleton stores out[i] for every thread) with
-- every check on; narg: the kernel's n argument (n by default). The output array, or nil and the error
local function launch(k, dev, n, block, opts, narg)
  local out = dev:array("u32", n):poison()
  local o = { device = dev, args = { out, narg or n }, grid = math.ceil(n / block), block = block,
              checks = { races = true, uninit_shared = true, uninit_regs = true } }
  for key, v in pairs(opts or {}) do o[key] = v end
  local ok, err = pcall(k.launch, k, o)
  if not ok then return nil, tostring(err) end
  local got = out:read()
  out:free()
  return got
end

local function expect(got, want, what)
  for i = 1, #want do
    if got[i] ~= want[i] then error(string.format("%s: [%d] = %s, want %s", what, i - 1, tostring(got[i]), tostring(want[i])), 2) end
  end
end

---------------------------------------------------------------------------------------------------
-- 1. shfl.sync d|p: p says whether the source lane was in range (inside the clamp or the segment)
---------------------------------------------------------------------------------------------------
-- out[i] = (shuffled value) * 2 + p, for down by 3 over the whole warp (clamp 31) and up by 2 in
-- segments of 8 lanes (c = 0x1800: the segment mask 24 in bits 8-12, the clamp 0)
local SHFL = entry("shflp", "\t.reg .pred \t%p<3>;\n\t.reg .b32 \t%r<20>;\n\t.reg .b64 \t%rd<5>;\n\n",
  "\tmul.lo.s32 \t%r5, %r1, 7;\n" ..
  "\tmov.u32 \t%r6, -1;\n" ..
  "\tshfl.sync.down.b32 \t%r7|%p1, %r5, 3, 31, %r6;\n" ..
  "\tshfl.sync.up.b32 \t%r8|%p2, %r5, 2, 6144, %r6;\n" ..
  "\tselp.u32 \t%r10, 1, 0, %p1;\n\tselp.u32 \t%r11, 1, 0, %p2;\n" ..
  "\tadd.s32 \t%r12, %r7, %r8;\n\tshl.b32 \t%r13, %r12, 2;\n" ..
  "\tshl.b32 \t%r14, %r11, 1;\n\tor.b32 \t%r15, %r13, %r14;\n\tor.b32 \t%r16, %r15, %r10;\n" ..
  "\tst.global.u32 \t[%rd2], %r16;\n")

-- 2. nested blocks: cuda_fp16's `{  cvt.rn.f16.f32 %rs1, %f1;}` on one line, and an inline asm
-- block that declares a register of its own (the same name as one outside)
local BLOCKS = entry("blocks", "\t.reg .b16 \t%rs<4>;\n\t.reg .f32 \t%f<4>;\n\t.reg .b32 \t%r<20>;\n\t.reg .b64 \t%rd<5>;\n\n",
  "\tcvt.rn.f32.s32 \t%f1, %r1;\n" ..
  "\t// begin inline asm\n\t{  cvt.rn.f16.f32 %rs1, %f1;}\n\n\t// end inline asm\n" ..
  "\t// begin inline asm\n\t{add.f16 %rs2,%rs1,%rs1;\n}\n\t// end inline asm\n" ..
  "\tcvt.f32.f16 \t%f2, %rs2;\n\tcvt.rzi.u32.f32 \t%r5, %f2;\n" ..
  "\tmov.u32 \t%r6, 100;\n" ..
  "\t// begin inline asm\n\t{\n\t.reg .b32 %r6;\n\tadd.u32 %r6, %r1, 5;\n\tmul.lo.u32 %r7, %r6, 3;\n\t}\n\t// end inline asm\n" ..
  "\tadd.s32 \t%r8, %r5, %r7;\n\tadd.s32 \t%r10, %r8, %r6;\n" ..
  "\tst.global.u32 \t[%rd2], %r10;\n")

-- an out-of-bounds load inside a block that shares its PTX line with the other statements
local BLOCKERR = entry("blockerr", "\t.reg .b32 \t%r<20>;\n\t.reg .b64 \t%rd<8>;\n\n",
  "\tadd.s64 \t%rd5, %rd2, 4096;\n" ..
  "\t// begin inline asm\n\t{  add.u32 %r5, %r1, 1; ld.global.u32 %r6, [%rd5]; add.u32 %r7, %r6, 1;}\n\t// end inline asm\n" ..
  "\tst.global.u32 \t[%rd2], %r7;\n")

-- 3. mov.pred of an immediate, as nvcc writes `i < n && i % 3 == 0`: out[i] = 1 or 0
local MOVPRED = entry("movpred", "\t.reg .pred \t%p<4>;\n\t.reg .b32 \t%r<20>;\n\t.reg .b64 \t%rd<5>;\n\n",
  "\tmov.pred \t%p3, 0;\n" ..
  "\tsetp.ge.s32 \t%p1, %r1, %r9;\n" ..
  "\t@%p1 bra \t$L__BB0_2;\n\n" ..
  "\trem.s32 \t%r5, %r1, 3;\n\tsetp.eq.s32 \t%p3, %r5, 0;\n\n" ..
  "$L__BB0_2:\n" ..
  "\tmov.pred \t%p2, 1;\n\txor.pred \t%p2, %p2, %p3;\n" ..
  "\tselp.u32 \t%r6, 1, 0, %p3;\n\tselp.u32 \t%r7, 2, 0, %p2;\n\tor.b32 \t%r8, %r6, %r7;\n" ..
  "\tst.global.u32 \t[%rd2], %r8;\n")

-- 4. cooperative-groups tiles of 8: each group passes 0xff << 8 * (lane / 8) (cg::tiled_partition<8>):
-- a butterfly sum over the tile, the tile's max (redux), a ballot of odd values, elect's leader
local TILES = entry("tiles", "\t.reg .pred \t%p<4>;\n\t.reg .b32 \t%r<40>;\n\t.reg .b64 \t%rd<5>;\n\n",
  "\tmov.u32 \t%r5, %laneid;\n" ..
  "\tand.b32 \t%r6, %r5, -8;\n\tmov.u32 \t%r7, 255;\n\tshl.b32 \t%r8, %r7, %r6;\n" ..
  "\tmul.lo.s32 \t%r10, %r1, 13;\n\trem.u32 \t%r11, %r10, 29;\n" ..
  "\tshfl.sync.bfly.b32 \t%r12|%p1, %r11, 4, 6175, %r8;\n\tadd.s32 \t%r13, %r11, %r12;\n" ..
  "\tshfl.sync.bfly.b32 \t%r14|%p1, %r13, 2, 6175, %r8;\n\tadd.s32 \t%r15, %r13, %r14;\n" ..
  "\tshfl.sync.bfly.b32 \t%r16|%p1, %r15, 1, 6175, %r8;\n\tadd.s32 \t%r17, %r15, %r16;\n" ..
  "\tredux.sync.max.u32 \t%r18, %r11, %r8;\n" ..
  "\tand.b32 \t%r19, %r11, 1;\n\tsetp.eq.s32 \t%p2, %r19, 1;\n\tvote.sync.ballot.b32 \t%r20, %p2, %r8;\n" ..
  "\tshr.u32 \t%r21, %r20, %r6;\n" ..
  "\tshl.b32 \t%r22, %r17, 16;\n\tshl.b32 \t%r23, %r18, 8;\n\tor.b32 \t%r24, %r22, %r23;\n\tor.b32 \t%r25, %r24, %r21;\n" ..
  "\tst.global.u32 \t[%rd2], %r25;\n")

-- lanes that disagree on the mask: lane 0 passes 0xffffffff (naming lane 1), the others 0xfffffffe
local BADMASK = entry("badmask", "\t.reg .pred \t%p<4>;\n\t.reg .b32 \t%r<20>;\n\t.reg .b64 \t%rd<5>;\n\n",
  "\tmov.u32 \t%r5, %laneid;\n\tmov.u32 \t%r6, -1;\n" ..
  "\tsetp.ne.s32 \t%p1, %r5, 0;\n\tselp.b32 \t%r7, -2, -1, %p1;\n" ..
  "\tshfl.sync.idx.b32 \t%r8|%p2, %r1, 1, 31, %r7;\n" ..
  "\tst.global.u32 \t[%rd2], %r8;\n")

-- each tile of 8 passes its own mask but reads lane (lane + 8) % 32, a lane of another tile
local OUTSIDE = entry("outside", "\t.reg .pred \t%p<4>;\n\t.reg .b32 \t%r<20>;\n\t.reg .b64 \t%rd<5>;\n\n",
  "\tmov.u32 \t%r5, %laneid;\n" ..
  "\tand.b32 \t%r6, %r5, -8;\n\tmov.u32 \t%r7, 255;\n\tshl.b32 \t%r8, %r7, %r6;\n" ..
  "\tadd.s32 \t%r10, %r5, 8;\n\tand.b32 \t%r11, %r10, 31;\n" ..
  "\tshfl.sync.idx.b32 \t%r12|%p1, %r1, %r11, 31, %r8;\n" ..
  "\tst.global.u32 \t[%rd2], %r12;\n")

-- 5. `.reg.b32 f, C;` (cuda_fp16.hpp's inline asm), `.reg.pred q;`, `.local.align 8 .b8 buf[16];`
local JOINED = entry("joined", "\t.local.align 8 .b8 \t__buf[16];\n\t.reg .pred \t%p<2>;\n\t.reg .b32 \t%r<20>;\n\t.reg .b64 \t%rd<6>;\n\n",
  "\t// begin inline asm\n\t{.reg.b32 f, C;\n\t.reg.pred q;\n" ..
  "\tmul.lo.u32 f, %r1, 5;\n\tadd.u32 C, f, 2;\n\tsetp.gt.u32 q, C, 100;\n\tselp.b32 %r5, 1000, 0, q;\n\tadd.u32 %r6, C, %r5;\n}\n\t// end inline asm\n" ..
  "\tmov.u64 \t%rd5, __buf;\n\tst.local.u32 \t[%rd5+12], %r6;\n\tld.local.u32 \t%r7, [__buf+12];\n" ..
  "\tst.global.u32 \t[%rd2], %r7;\n")

for form in pairs(FORMS) do
  describe("nvcc's warp and block forms in the emulator (" .. form .. " script)", function()
    local dev = rt.device "emu"

    it("shfl.sync d|p sets p where the source lane is in range (down over the warp, up in segments of 8)", function()
      local k = kernels(transpile(SHFL, "shflp", form)).shflp
      local n = 96
      local got = assert(launch(k, dev, n, 96))
      local want = {}
      for i = 0, n - 1 do
        local lane, base = i % 32, i - i % 32
        local dj, dp = lane + 3, 1
        if dj > 31 then dj, dp = lane, 0 end
        local uj, up = lane - 2, 1
        if uj < lane - lane % 8 then uj, up = lane, 0 end
        want[i + 1] = ((base + dj) * 7 + (base + uj) * 7) * 4 + up * 2 + dp
      end
      expect(got, want, "shfl d|p")
    end)

    it("runs the statements of nested { } blocks (one-line inline asm, a block's own register)", function()
      local k = kernels(transpile(BLOCKS, "blocks", form)).blocks
      local n = 256
      local got = assert(launch(k, dev, n, 64))
      local want = {}
      for i = 0, n - 1 do want[i + 1] = 2 * i + (i + 5) * 3 + 100 end
      expect(got, want, "blocks")
    end)

    it("mov.pred takes an immediate 0 or 1 (nvcc's short-circuit &&)", function()
      local k = kernels(transpile(MOVPRED, "movpred", form)).movpred
      local n, narg = 192, 150                        -- threads 150.. take the path of mov.pred %p3, 0
      local got = assert(launch(k, dev, n, 64, nil, narg))
      local want = {}
      for i = 0, n - 1 do local p = (i < narg and i % 3 == 0) and 1 or 0; want[i + 1] = p + 2 * (1 - p) end
      expect(got, want, "mov.pred")
    end)

    it("takes a membermask per tile of 8 lanes: shfl, redux, vote each over the lane's own tile", function()
      local k = kernels(transpile(TILES, "tiles", form)).tiles
      local n = 128
      local got = assert(launch(k, dev, n, 64))
      local want = {}
      for i = 0, n - 1 do
        local t0 = i - i % 8
        local sum, max, odd = 0, 0, 0
        for j = 0, 7 do
          local v = ((t0 + j) * 13) % 29
          sum = sum + v
          if v > max then max = v end
          if v % 2 == 1 then odd = odd + 2 ^ j end
        end
        want[i + 1] = sum * 65536 + max * 256 + odd
      end
      expect(got, want, "tiles")
    end)

    it("reports lanes whose masks disagree, and a shfl reading a lane outside the reader's mask", function()
      local script = transpile(BADMASK, "badmask", form)
      local _, err = launch(kernels(script).badmask, dev, 32, 32)
      assert.truthy(err, "the kernel ran")
      assert.truthy(err:find("membermask differs between lanes", 1, true), err)
      assert.truthy(err:find("shfl.sync.idx.b32", 1, true), err)
      script = transpile(OUTSIDE, "outside", form)
      _, err = launch(kernels(script).outside, dev, 32, 32)
      assert.truthy(err, "the kernel ran")
      assert.truthy(err:find("reads lane 8, which is not in its membermask", 1, true), err)
    end)

    it("declares the registers of `.reg.b32 f, C;` and the variable of `.local.align 8`", function()
      local k = kernels(transpile(JOINED, "joined", form)).joined
      local n = 64
      local got = assert(launch(k, dev, n, 32))
      local want = {}
      for i = 0, n - 1 do local c = i * 5 + 2; want[i + 1] = c + (c > 100 and 1000 or 0) end
      expect(got, want, "joined")
    end)
  end)
end

describe("a statement that shares its PTX line with others", function()
  it("is reported at the script line that holds it (plain script)", function()
    local dev = rt.device "emu"
    local script = transpile(BLOCKERR, "blockerr", "plain")
    local _, err = launch(kernels(script).blockerr, dev, 32, 32)
    H.expect_error(err, script, line_holding(script, "ld.global.u32 %r6"), "ld.global.u32")
  end)
end)

---------------------------------------------------------------------------------------------------
-- 6. the .param calling convention
---------------------------------------------------------------------------------------------------
-- poly(x, deg) (a f32 and an s32 in, a f32 out), pair(struct {u32 a; u64 b}) by value through a
-- .b8 array, outer(i) = poly called from a .func; calls(out, n): out[i] = bits of the results mixed
local CALLS = HEAD .. [[
.func  (.param .b32 func_retval0) _Z4polyfi(
	.param .b32 _Z4polyfi_param_0,
	.param .b32 _Z4polyfi_param_1
)
{
	.reg .pred 	%p<2>;
	.reg .f32 	%f<6>;
	.reg .b32 	%r<4>;


	ld.param.f32 	%f1, [_Z4polyfi_param_0];
	ld.param.u32 	%r1, [_Z4polyfi_param_1];
	mov.f32 	%f5, 0f00000000;

$L__BB0_1:
	add.s32 	%r2, %r1, 1;
	cvt.rn.f32.s32 	%f3, %r2;
	fma.rn.f32 	%f5, %f5, %f1, %f3;
	add.s32 	%r1, %r1, -1;
	setp.ge.s32 	%p1, %r1, 0;
	@%p1 bra 	$L__BB0_1;

	st.param.f32 	[func_retval0+0], %f5;
	ret;

}
.func  (.param .align 8 .b8 func_retval0[16]) _Z4pair4Pair(
	.param .align 8 .b8 _Z4pair4Pair_param_0[16]
)
{
	.reg .b32 	%r<4>;
	.reg .b64 	%rd<4>;


	ld.param.u32 	%r1, [_Z4pair4Pair_param_0];
	ld.param.u64 	%rd1, [_Z4pair4Pair_param_0+8];
	cvt.u64.u32 	%rd2, %r1;
	add.s64 	%rd3, %rd1, %rd2;
	mul.lo.s32 	%r2, %r1, 3;
	st.param.b32 	[func_retval0+0], %r2;
	st.param.b64 	[func_retval0+8], %rd3;
	ret;

}
.func  (.param .b32 func_retval0) _Z5outeri(
	.param .b32 _Z5outeri_param_0
)
{
	.reg .b32 	%r<6>;
	.reg .f32 	%f<4>;


	ld.param.u32 	%r1, [_Z5outeri_param_0];
	cvt.rn.f32.s32 	%f1, %r1;
	mul.f32 	%f2, %f1, 0f3E800000;
	{ // callseq 0, 0
	.reg .b32 temp_param_reg;
	.param .b32 param0;
	st.param.f32 	[param0+0], %f2;
	.param .b32 param1;
	st.param.b32 	[param1+0], 2;
	.param .b32 retval0;
	call.uni (retval0), 
	_Z4polyfi, 
	(
	param0, 
	param1
	);
	ld.param.f32 	%f3, [retval0+0];
	} // callseq 0
	cvt.rzi.s32.f32 	%r2, %f3;
	add.s32 	%r3, %r2, %r1;
	st.param.b32 	[func_retval0+0], %r3;
	ret;

}
	// .globl	calls
.visible .entry calls(
	.param .u64 calls_param_0,
	.param .u32 calls_param_1
)
{
	.reg .pred 	%p<2>;
	.reg .b32 	%r<20>;
	.reg .f32 	%f<4>;
	.reg .b64 	%rd<10>;


	ld.param.u64 	%rd1, [calls_param_0];
	ld.param.u32 	%r2, [calls_param_1];
	mov.u32 	%r3, %ctaid.x;
	mov.u32 	%r4, %ntid.x;
	mov.u32 	%r5, %tid.x;
	mad.lo.s32 	%r1, %r3, %r4, %r5;
	setp.ge.s32 	%p1, %r1, %r2;
	@%p1 bra 	$L__BB3_2;

	cvt.rn.f32.s32 	%f1, %r1;
	rem.s32 	%r6, %r1, 4;
	{ // callseq 1, 0
	.reg .b32 temp_param_reg;
	.param .b32 param0;
	st.param.f32 	[param0+0], %f1;
	.param .b32 param1;
	st.param.b32 	[param1+0], %r6;
	.param .b32 retval0;
	call.uni (retval0), 
	_Z4polyfi, 
	(
	param0, 
	param1
	);
	ld.param.f32 	%f2, [retval0+0];
	} // callseq 1
	cvt.rzi.u32.f32 	%r7, %f2;
	cvt.u64.u32 	%rd2, %r1;
	shl.b64 	%rd3, %rd2, 32;
	{ // callseq 2, 0
	.reg .b32 temp_param_reg;
	.param .align 8 .b8 param0[16];
	st.param.b32 	[param0+0], %r1;
	st.param.b64 	[param0+8], %rd3;
	.param .align 8 .b8 retval0[16];
	call.uni (retval0), 
	_Z4pair4Pair, 
	(
	param0
	);
	ld.param.b32 	%r8, [retval0+0];
	ld.param.b64 	%rd4, [retval0+8];
	} // callseq 2
	shr.u64 	%rd5, %rd4, 32;
	cvt.u32.u64 	%r9, %rd5;
	cvt.u32.u64 	%r10, %rd4;
	{ // callseq 3, 0
	.reg .b32 temp_param_reg;
	.param .b32 param0;
	st.param.b32 	[param0+0], %r1;
	.param .b32 retval0;
	call.uni (retval0), 
	_Z5outeri, 
	(
	param0
	);
	ld.param.b32 	%r11, [retval0+0];
	} // callseq 3
	add.s32 	%r12, %r7, %r8;
	add.s32 	%r13, %r12, %r9;
	add.s32 	%r14, %r13, %r10;
	mul.lo.s32 	%r15, %r11, 1000000;
	add.s32 	%r16, %r14, %r15;
	cvta.to.global.u64 	%rd6, %rd1;
	mul.wide.s32 	%rd7, %r1, 4;
	add.s64 	%rd8, %rd6, %rd7;
	st.global.u32 	[%rd8], %r16;

$L__BB3_2:
	ret;

}
]]

-- fib(n) recursive, as nvcc writes it; fibs(out, n): out[i] = fib(i % 15); deep(out, n) recurses
-- without end (a missing base case): the depth limit is an error at the call
local FIB = HEAD .. [[
.func  (.param .b32 func_retval0) _Z3fibi(
	.param .b32 _Z3fibi_param_0
)
{
	.reg .pred 	%p<2>;
	.reg .b32 	%r<9>;


	ld.param.u32 	%r8, [_Z3fibi_param_0];
	setp.lt.s32 	%p1, %r8, 2;
	@%p1 bra 	$L__BB0_2;

	add.s32 	%r4, %r8, -1;
	{ // callseq 0, 0
	.reg .b32 temp_param_reg;
	.param .b32 param0;
	st.param.b32 	[param0+0], %r4;
	.param .b32 retval0;
	call.uni (retval0), 
	_Z3fibi, 
	(
	param0
	);
	ld.param.b32 	%r5, [retval0+0];
	} // callseq 0
	add.s32 	%r6, %r8, -2;
	{ // callseq 1, 0
	.reg .b32 temp_param_reg;
	.param .b32 param0;
	st.param.b32 	[param0+0], %r6;
	.param .b32 retval0;
	call.uni (retval0), 
	_Z3fibi, 
	(
	param0
	);
	ld.param.b32 	%r7, [retval0+0];
	} // callseq 1
	add.s32 	%r8, %r7, %r5;

$L__BB0_2:
	st.param.b32 	[func_retval0+0], %r8;
	ret;

}
.func  (.param .b32 func_retval0) _Z4deepi(
	.param .b32 _Z4deepi_param_0
)
{
	.reg .b32 	%r<4>;


	ld.param.u32 	%r1, [_Z4deepi_param_0];
	add.s32 	%r2, %r1, 1;
	{ // callseq 2, 0
	.reg .b32 temp_param_reg;
	.param .b32 param0;
	st.param.b32 	[param0+0], %r2;
	.param .b32 retval0;
	call.uni (retval0), 
	_Z4deepi, 
	(
	param0
	);
	ld.param.b32 	%r3, [retval0+0];
	} // callseq 2
	st.param.b32 	[func_retval0+0], %r3;
	ret;

}
	// .globl	fibs
.visible .entry fibs(
	.param .u64 fibs_param_0,
	.param .u32 fibs_param_1
)
{
	.reg .pred 	%p<2>;
	.reg .b32 	%r<12>;
	.reg .b64 	%rd<5>;


	ld.param.u64 	%rd1, [fibs_param_0];
	ld.param.u32 	%r2, [fibs_param_1];
	mov.u32 	%r3, %ctaid.x;
	mov.u32 	%r4, %ntid.x;
	mov.u32 	%r5, %tid.x;
	mad.lo.s32 	%r1, %r3, %r4, %r5;
	setp.ge.s32 	%p1, %r1, %r2;
	@%p1 bra 	$L__BB2_2;

	rem.s32 	%r6, %r1, 15;
	{ // callseq 3, 0
	.reg .b32 temp_param_reg;
	.param .b32 param0;
	st.param.b32 	[param0+0], %r6;
	.param .b32 retval0;
	call.uni (retval0), 
	_Z3fibi, 
	(
	param0
	);
	ld.param.b32 	%r7, [retval0+0];
	} // callseq 3
	cvta.to.global.u64 	%rd2, %rd1;
	mul.wide.s32 	%rd3, %r1, 4;
	add.s64 	%rd4, %rd2, %rd3;
	st.global.u32 	[%rd4], %r7;

$L__BB2_2:
	ret;

}
	// .globl	deep
.visible .entry deep(
	.param .u64 deep_param_0,
	.param .u32 deep_param_1
)
{
	.reg .b32 	%r<4>;
	.reg .b64 	%rd<3>;


	ld.param.u64 	%rd1, [deep_param_0];
	mov.u32 	%r1, %tid.x;
	{ // callseq 4, 0
	.reg .b32 temp_param_reg;
	.param .b32 param0;
	st.param.b32 	[param0+0], %r1;
	.param .b32 retval0;
	call.uni (retval0), 
	_Z4deepi, 
	(
	param0
	);
	ld.param.b32 	%r2, [retval0+0];
	} // callseq 4
	cvta.to.global.u64 	%rd2, %rd1;
	st.global.u32 	[%rd2], %r2;
	ret;

}
]]

-- printf("thread %d of %d: %f %s|%5x|%lld\n", i, n, 0.5 * i, "ok", i * 3, -(long long)i) from the
-- threads with i % 17 == 0, as nvcc writes it: the arguments packed in a local buffer (int, int,
-- double at 8, a char* at 16, int at 24, long long at 32)
local HELLO = HEAD .. [[
.extern .func  (.param .b32 func_retval0) vprintf
(
	.param .b64 vprintf_param_0,
	.param .b64 vprintf_param_1
)
;
.global .align 1 .b8 $str[33] = {116, 104, 114, 101, 97, 100, 32, 37, 100, 32, 111, 102, 32, 37, 100, 58, 32, 37, 102, 32, 37, 115, 124, 37, 53, 120, 124, 37, 108, 108, 100, 10, 0};
.global .align 1 .b8 $str$1[3] = {111, 107, 0};

	// .globl	hello
.visible .entry hello(
	.param .u64 hello_param_0,
	.param .u32 hello_param_1
)
{
	.local .align 16 .b8 	__local_depot0[48];
	.reg .b64 	%SP;
	.reg .b64 	%SPL;
	.reg .pred 	%p<3>;
	.reg .b32 	%r<12>;
	.reg .f64 	%fd<3>;
	.reg .b64 	%rd<12>;


	mov.u64 	%SPL, __local_depot0;
	cvta.local.u64 	%SP, %SPL;
	ld.param.u64 	%rd10, [hello_param_0];
	ld.param.u32 	%r2, [hello_param_1];
	mov.u32 	%r3, %ctaid.x;
	mov.u32 	%r4, %ntid.x;
	mov.u32 	%r5, %tid.x;
	mad.lo.s32 	%r1, %r3, %r4, %r5;
	setp.ge.s32 	%p1, %r1, %r2;
	@%p1 bra 	$L__BB0_3;

	rem.s32 	%r6, %r1, 17;
	setp.ne.s32 	%p2, %r6, 0;
	@%p2 bra 	$L__BB0_3;

	add.u64 	%rd1, %SP, 0;
	add.u64 	%rd2, %SPL, 0;
	cvt.rn.f64.s32 	%fd1, %r1;
	mul.f64 	%fd2, %fd1, 0d3FE0000000000000;
	st.local.v2.u32 	[%rd2], {%r1, %r2};
	st.local.f64 	[%rd2+8], %fd2;
	mov.u64 	%rd3, $str$1;
	cvta.global.u64 	%rd4, %rd3;
	st.local.u64 	[%rd2+16], %rd4;
	mul.lo.s32 	%r7, %r1, 3;
	st.local.u32 	[%rd2+24], %r7;
	cvt.s64.s32 	%rd5, %r1;
	neg.s64 	%rd6, %rd5;
	st.local.u64 	[%rd2+32], %rd6;
	mov.u64 	%rd7, $str;
	cvta.global.u64 	%rd8, %rd7;
	{ // callseq 0, 0
	.reg .b32 temp_param_reg;
	.param .b64 param0;
	st.param.b64 	[param0+0], %rd8;
	.param .b64 param1;
	st.param.b64 	[param1+0], %rd1;
	.param .b32 retval0;
	call.uni (retval0), 
	vprintf, 
	(
	param0, 
	param1
	);
	ld.param.b32 	%r8, [retval0+0];
	} // callseq 0
	cvta.to.global.u64 	%rd9, %rd10;
	mul.wide.s32 	%rd11, %r1, 4;
	add.s64 	%rd9, %rd9, %rd11;
	st.global.u32 	[%rd9], %r8;

$L__BB0_3:
	ret;

}
]]

local function fib(n) if n < 2 then return n end return fib(n - 1) + fib(n - 2) end

for form in pairs(FORMS) do
  describe("nvcc's calling convention in the emulator (" .. form .. " script)", function()
    local dev = rt.device "emu"

    it("passes arguments and results through .param variables: scalars, a 16-byte struct, a call from a .func", function()
      local k = kernels(transpile(CALLS, "calls", form)).calls
      local f32 = function(v) return tonumber(require("ffi").new("float[1]", v)[0]) end
      local function poly(x, deg)
        local r = 0
        for d = deg, 0, -1 do r = f32(r * x + (d + 1)) end   -- fma: one rounding (exact for these integers)
        return r
      end
      for _, n in ipairs { 100, 33 } do
        local got = assert(launch(k, dev, n, 64))
        local want = {}
        for i = 0, n - 1 do
          local p = math.floor(poly(i, i % 4))
          local outer = math.floor(poly(i * 0.25, 2)) + i
          local v = p + i * 3 + i + (i * 2 ^ 32 + i) % 2 ^ 32 + outer * 1000000
          want[i + 1] = v % 2 ^ 32
        end
        expect(got, want, "calls n=" .. n)
      end
    end)

    it("runs recursion (fib), each activation its own registers and parameters", function()
      local k = kernels(transpile(FIB, "fib", form)).fibs
      local n = 70
      local got = assert(launch(k, dev, n, 32))
      local want = {}
      for i = 0, n - 1 do want[i + 1] = fib(i % 15) end
      expect(got, want, "fib")
    end)

    it("stops a recursion without end at the call, an error naming the depth limit", function()
      local script = transpile(FIB, "fib", form)
      local _, err = launch(kernels(script).deep, dev, 32, 32)
      assert.truthy(err, "the kernel ran")
      local line = form == "plain" and line_holding(script, "_Z4deepi, ") or nil
      if line then H.expect_error(err, script, line, "the call stack is full", "1024") end
      assert.truthy(err:find("the call stack is full: calls nested 1024 deep", 1, true), err)
    end)

    it("prints printf's output (vprintf) on stdout, lanes in order; it returns the argument count", function()
      local script = transpile(HELLO, "hello", form)
      local driver = H.write(H.tmpfile(".lua"), string.format([[
        local ptx = require "ptxlua"
        local rt = require "ptxlua.emu"
        dofile(%q)
        local k = ptx.kernels()[1]
        local dev = rt.device "emu"
        local out = dev:array("s32", 40, -7)
        io.write("before\n")
        k:launch { device = dev, args = { out, 40 }, grid = 2, block = 32 }
        io.write("after\n")
        local r = out:read()
        io.write(r[1], " ", r[18], " ", r[2], "\n")
      ]], script))
      local out, err, rc = H.sh("luajit " .. shq(driver))
      assert.are.equal(0, rc, err)
      assert.are.equal("before\n" ..
        "thread 0 of 40: 0.000000 ok|    0|0\n" ..
        "thread 17 of 40: 8.500000 ok|   33|-17\n" ..
        "thread 34 of 40: 17.000000 ok|   66|-34\n" ..
        "after\n6 6 -7\n", out)
    end)
  end)
end

---------------------------------------------------------------------------------------------------
-- 7. a .weak .entry (nvcc -G's template instantiations) in a --sugar script: a kernel to launch
---------------------------------------------------------------------------------------------------
describe("a .weak .entry", function()
  local WEAK = HEAD .. [[
	// .weak	_Z4fillIiEvPT_i
.weak .entry _Z4fillIiEvPT_i(
	.param .u64 _Z4fillIiEvPT_i_param_0,
	.param .u32 _Z4fillIiEvPT_i_param_1
)
{
	.reg .pred 	%p<2>;
	.reg .b32 	%r<6>;
	.reg .b64 	%rd<5>;


	ld.param.u64 	%rd1, [_Z4fillIiEvPT_i_param_0];
	ld.param.u32 	%r2, [_Z4fillIiEvPT_i_param_1];
	mov.u32 	%r3, %ctaid.x;
	mov.u32 	%r4, %ntid.x;
	mov.u32 	%r5, %tid.x;
	mad.lo.s32 	%r1, %r3, %r4, %r5;
	setp.ge.s32 	%p1, %r1, %r2;
	@%p1 bra 	$L__BB0_2;

	cvta.to.global.u64 	%rd2, %rd1;
	mul.wide.s32 	%rd3, %r1, 4;
	add.s64 	%rd4, %rd2, %rd3;
	st.global.u32 	[%rd4], %r1;

$L__BB0_2:
	ret;

}
]]
  for form in pairs(FORMS) do
    it("is a launchable kernel of the " .. form .. " script, its header kept as written", function()
      local script = transpile(WEAK, "weak", form)
      local k = kernels(script)["_Z4fillIiEvPT_i"]
      assert.truthy(k, "no kernel _Z4fillIiEvPT_i")
      local dev = rt.device "emu"
      local got = assert(launch(k, dev, 77, 32))
      local want = {}
      for i = 0, 76 do want[i + 1] = i end
      expect(got, want, "weak")
    end)
  end
end)
