-- dsl_spec.lua -- the DSL's semantics: for each operator and helper, the exact PTX lines it emits.
-- One call, one instruction; helpers that emit a fixed sequence have that sequence pinned here.
local H = require "helper"

-- the instruction lines (and labels) a kernel body records
local function lines(fn, params, opts) return H.insns(H.body(fn, params, opts)) end

-- the body must fail with a "<this file>:<line>: error: ..." message containing `needle`
local function fails(needle, fn, params, opts)
  local ok, err = pcall(H.body, fn, params, opts)
  assert.is_false(ok, "expected an error mentioning: " .. needle)
  assert.is_string(err)
  assert.truthy(err:match("^[^\n]*dsl_spec%.lua:%d+: error: "), "not at the script's line: " .. err)
  assert.truthy(err:find(needle, 1, true), "expected '" .. needle .. "' in: " .. err)
  return err
end

-- register pool prefixes, as the declarations name them
local PFX = { s32 = "%si", u32 = "%r", s64 = "%sd", u64 = "%rd", f32 = "%f", f64 = "%fd", f16 = "%h", bf16 = "%hb",
              u16 = "%us", s16 = "%ss", u8 = "%uc", s8 = "%sc", b32 = "%b", b64 = "%bd", b16 = "%bs", pred = "%p" }
local function R(t, i) return PFX[t] .. i end
local FLOAT = { f32 = true, f64 = true, f16 = true, bf16 = true }
local HALF = { f16 = true, bf16 = true }
local UNSIGNED = { u32 = true, u64 = true }
local IMM5 = { f32 = "0f40A00000", f64 = "0d4014000000000000" }

describe("arithmetic operators", function()
  for _, t in ipairs { "s32", "u32", "s64", "u64", "f32", "f64", "f16", "bf16" } do
    local add = FLOAT[t] and "add.rn." .. t or "add." .. t
    local sub = FLOAT[t] and "sub.rn." .. t or "sub." .. t
    local mul = FLOAT[t] and "mul.rn." .. t or "mul.lo." .. t

    it("+ - * on two ." .. t .. " registers: one instruction each, in order", function()
      assert.are.same({
        add .. " " .. R(t, 3) .. ", " .. R(t, 1) .. ", " .. R(t, 2) .. ";",
        sub .. " " .. R(t, 4) .. ", " .. R(t, 1) .. ", " .. R(t, 2) .. ";",
        mul .. " " .. R(t, 5) .. ", " .. R(t, 1) .. ", " .. R(t, 2) .. ";",
        sub .. " " .. R(t, 6) .. ", " .. R(t, 2) .. ", " .. R(t, 1) .. ";",
      }, lines(function(ptx)
        local a, b = ptx.reg[t](), ptx.reg[t]()
        local _ = a + b; _ = a - b; _ = a * b; _ = b - a
      end))
    end)

    if HALF[t] then
      it("a number with a ." .. t .. " register is refused (PTX has no ." .. t .. " immediate)", function()
        fails("a ." .. t .. " operand cannot be an immediate", function(ptx) local _ = ptx.reg[t]() + 1 end)
        fails("a ." .. t .. " operand cannot be an immediate", function(ptx) local _ = 2 * ptx.reg[t]() end)
      end)
    else
      it("a number on either side of a ." .. t .. " register keeps its place", function()
        local five = IMM5[t] or "5"
        assert.are.same({
          add .. " " .. R(t, 2) .. ", " .. R(t, 1) .. ", " .. five .. ";",
          add .. " " .. R(t, 3) .. ", " .. five .. ", " .. R(t, 1) .. ";",
          sub .. " " .. R(t, 4) .. ", " .. R(t, 1) .. ", " .. five .. ";",
          sub .. " " .. R(t, 5) .. ", " .. five .. ", " .. R(t, 1) .. ";",
          mul .. " " .. R(t, 6) .. ", " .. five .. ", " .. R(t, 1) .. ";",
        }, lines(function(ptx)
          local a = ptx.reg[t]()
          local _ = a + 5; _ = 5 + a; _ = a - 5; _ = 5 - a; _ = 5 * a
        end))
      end)
    end

    if HALF[t] then
      it("'/' and '%' are refused on ." .. t, function()
        fails("'/' is not defined for ." .. t, function(ptx) local a = ptx.reg[t](); local _ = a / a end)
        fails("'%' is not defined for ." .. t, function(ptx) local a = ptx.reg[t](); local _ = a % a end)
      end)
    elseif FLOAT[t] then
      it("'/' is div.rn, '%' is refused on ." .. t, function()
        assert.are.same({
          "div.rn." .. t .. " " .. R(t, 3) .. ", " .. R(t, 1) .. ", " .. R(t, 2) .. ";",
          "div.rn." .. t .. " " .. R(t, 4) .. ", " .. IMM5[t] .. ", " .. R(t, 1) .. ";",
        }, lines(function(ptx) local a, b = ptx.reg[t](), ptx.reg[t](); local _ = a / b; _ = 5 / a end))
        fails("'%' is not defined for ." .. t, function(ptx) local a = ptx.reg[t](); local _ = a % a end)
      end)
    else
      it("'/' is div, '%' is rem on ." .. t, function()
        assert.are.same({
          "div." .. t .. " " .. R(t, 3) .. ", " .. R(t, 1) .. ", " .. R(t, 2) .. ";",
          "rem." .. t .. " " .. R(t, 4) .. ", " .. R(t, 1) .. ", " .. R(t, 2) .. ";",
          "div." .. t .. " " .. R(t, 5) .. ", 7, " .. R(t, 1) .. ";",
          "rem." .. t .. " " .. R(t, 6) .. ", " .. R(t, 1) .. ", 3;",
        }, lines(function(ptx)
          local a, b = ptx.reg[t](), ptx.reg[t]()
          local _ = a / b; _ = a % b; _ = 7 / a; _ = a % 3
        end))
      end)
    end

    if UNSIGNED[t] then
      it("unary minus is refused on ." .. t, function()
        fails("unary minus on unsigned ." .. t, function(ptx) local _ = -ptx.reg[t]() end)
      end)
    else
      it("unary minus is neg." .. t, function()
        assert.are.same({ "neg." .. t .. " " .. R(t, 2) .. ", " .. R(t, 1) .. ";" },
          lines(function(ptx) local _ = -ptx.reg[t]() end))
      end)
    end
  end

  it("16-bit integers", function()
    assert.are.same({
      "add.u16 %us3, %us1, %us2;", "mul.lo.u16 %us4, %us1, 3;", "sub.s16 %ss3, %ss1, %ss2;", "neg.s16 %ss4, %ss1;",
    }, lines(function(ptx)
      local a, b = ptx.reg.u16(), ptx.reg.u16()
      local _ = a + b; _ = a * 3
      local c, d = ptx.reg.s16(), ptx.reg.s16()
      _ = c - d; _ = -c
    end))
  end)

  it("a chain of operators records one instruction per operator, left to right", function()
    assert.are.same({
      "mul.rn.f32 %f4, %f1, %f2;", "add.rn.f32 %f5, %f4, %f3;", "sub.rn.f32 %f6, %f5, 0f3F800000;",
    }, lines(function(ptx)
      local a, b, c = ptx.reg.f32(), ptx.reg.f32(), ptx.reg.f32()
      local _ = a * b + c - 1
    end))
  end)

  it("floating-point immediates are exact hex", function()
    assert.are.same({
      "add.rn.f32 %f2, %f1, 0f3F000000;", "mul.rn.f32 %f3, %f1, 0f3DCCCCCD;", "add.rn.f32 %f4, %f1, 0fBFC00000;",
      "mul.rn.f64 %fd2, %fd1, 0d3FB999999999999A;",
    }, lines(function(ptx)
      local a = ptx.reg.f32()
      local _ = a + 0.5; _ = a * 0.1; _ = a + -1.5
      _ = ptx.reg.f64() * 0.1
    end))
  end)

  it("64-bit LuaJIT integers (ULL, LL) are exact immediates of operators and methods", function()
    assert.are.same({
      "add.u64 %rd2, %rd1, 18446744073709551615;", "xor.b64 %rd3, %rd1, 13835058055282163712;",
      "and.b64 %rd4, %rd1, 255;", "sub.s64 %sd2, %sd1, -5;", "add.u32 %r1, %r1, 4294967295;", "add.u32 %r1, %r1, -1;",
    }, lines(function(ptx)
      local r, s = ptx.reg.u64(), ptx.reg.s64()
      local _ = r + 0xFFFFFFFFFFFFFFFFULL
      _ = r:bxor(0xC000000000000000ULL)
      _ = r:band(0xFFULL)
      _ = s - -5LL
      local u = ptx.reg.u32()
      ptx.add.u32(u, u, 0xFFFFFFFFULL)
      ptx.add.u32(u, u, -1LL)
    end))
  end)

  it("refuses a type mix, bit types, predicates and non-numbers", function()
    fails("type mismatch: .f32 + .s32", function(ptx) local _ = ptx.reg.f32() + ptx.reg.s32() end)
    fails("type mismatch: .u32 * .u64", function(ptx) local _ = ptx.reg.u32() * ptx.reg.u64() end)
    fails("type mismatch: .s32 - .u32", function(ptx) local _ = ptx.reg.s32() - ptx.reg.u32() end)
    fails("no arithmetic on .b32 registers", function(ptx) local _ = ptx.reg.b32() + 1 end)
    fails("no arithmetic on predicates", function(ptx) local _ = ptx.pred() + 1 end)
    fails("bad operand for '+': .u32 register + string", function(ptx) local _ = ptx.reg.u32() + "1" end)
    fails("bad operand for '+': .f32 register + nil", function(ptx) local _ = ptx.reg.f32() + nil end)
    fails("immediate 1.5 is not an integer", function(ptx) local _ = ptx.reg.u32() + 1.5 end)
    fails("immediate -2147483649 does not fit .u32", function(ptx) local _ = ptx.reg.u32() + (-2 ^ 31 - 1) end)
    fails("immediate 4294967296 does not fit .u32", function(ptx) local _ = ptx.reg.u32() + 2 ^ 32 end)
    fails("immediate 4294967296 does not fit .s32", function(ptx) local _ = ptx.reg.s32() + 2 ^ 32 end)
    -- 64-bit LuaJIT integers follow the same rule (they went through unchecked)
    fails("immediate 4294967296 does not fit .u32 (32 bits: -2147483648 to 4294967295)", function(ptx) local _ = ptx.reg.u32() + 0x100000000ULL end)
    fails("immediate -2147483649 does not fit .s32", function(ptx) local r = ptx.reg.s32(); ptx.add.s32(r, r, -2147483649LL) end)
    fails("immediate 18446744073709551615 does not fit .u16", function(ptx) local r = ptx.reg.u16(); ptx.mov.u16(r, ptx.imm(0xFFFFFFFFFFFFFFFFULL)) end)
    fails("a 64-bit integer (LuaJIT ULL/LL) for a .f32 operand", function(ptx) local f = ptx.reg.f32(); ptx.add.f32(f, f, 1ULL) end)
  end)

  it("Lua's comparison and concatenation operators are refused with the method to use", function()
    fails("use a:lt(b)", function(ptx) local _ = ptx.reg.u32() < ptx.reg.u32() end)
    fails("use a:le(b)", function(ptx) local _ = ptx.reg.u32() <= ptx.reg.u32() end)
    fails("use a:eq(b)", function(ptx) local _ = ptx.reg.u32() == ptx.reg.u32() end)
    fails("'..' on a register", function(ptx) local _ = ptx.reg.u32() .. "" end)
  end)
end)

describe("comparisons", function()
  it("integers: setp.<cmp>.<type> into a new predicate, numbers either side", function()
    assert.are.same({
      "setp.eq.s32 %p1, %si1, %si2;", "setp.ne.s32 %p2, %si1, %si2;", "setp.lt.s32 %p3, %si1, %si2;",
      "setp.le.s32 %p4, %si1, %si2;", "setp.gt.s32 %p5, %si1, %si2;", "setp.ge.s32 %p6, %si1, %si2;",
      "setp.lt.s32 %p7, %si1, -3;", "setp.ge.u64 %p8, %rd1, 7;",
    }, lines(function(ptx)
      local a, b = ptx.reg.s32(), ptx.reg.s32()
      a:eq(b); a:ne(b); a:lt(b); a:le(b); a:gt(b); a:ge(b); a:lt(-3)
      ptx.reg.u64():ge(7)
    end))
  end)

  it("floats: the ordered and unordered comparisons", function()
    local want, cmps = {}, { "eq", "ne", "lt", "le", "gt", "ge", "equ", "neu", "ltu", "leu", "gtu", "geu", "num", "nan" }
    for i, c in ipairs(cmps) do want[i] = "setp." .. c .. ".f32 %p" .. i .. ", %f1, %f2;" end
    want[#want + 1] = "setp.lt.f32 %p15, %f1, 0f3F000000;"
    want[#want + 1] = "setp.gt.f64 %p16, %fd1, 0d0000000000000000;"
    assert.are.same(want, lines(function(ptx)
      local a, b = ptx.reg.f32(), ptx.reg.f32()
      for _, c in ipairs(cmps) do a[c](a, b) end
      a:lt(0.5)
      ptx.reg.f64():gt(0)
    end))
  end)

  it("the predicate is a register: it guards and combines", function()
    assert.are.same({ "setp.lt.u32 %p1, %r1, 4;", "@%p1 add.u32 %r2, %r1, 1;" }, lines(function(ptx)
      local a = ptx.reg.u32()
      local p = a:lt(4)
      ptx.at(p).add.u32(ptx.reg.u32(), a, 1)
    end))
  end)

  it("refuses ordered comparisons of bit registers, predicates and a type mix", function()
    assert.are.same({ "setp.eq.b32 %p1, %b1, 0;" }, lines(function(ptx) ptx.reg.b32():eq(0) end))
    fails("ordered comparison of .b32", function(ptx) ptx.reg.b32():lt(1) end)
    fails("comparison of predicates", function(ptx) ptx.pred():eq(ptx.pred()) end)
    fails("type mismatch: .u32 lt .s32", function(ptx) ptx.reg.u32():lt(ptx.reg.s32()) end)
  end)
end)

describe("bitwise and shift methods", function()
  it("band/bor/bxor/bnot act on the bits of the width", function()
    assert.are.same({
      "and.b32 %r3, %r1, %r2;", "or.b32 %r4, %r1, %r2;", "xor.b32 %r5, %r1, %r2;", "not.b32 %r6, %r1;",
      "and.b32 %r7, %r1, 255;", "and.b64 %sd3, %sd1, %sd2;", "not.b64 %sd4, %sd1;",
    }, lines(function(ptx)
      local a, b = ptx.reg.u32(), ptx.reg.u32()
      a:band(b); a:bor(b); a:bxor(b); a:bnot(); a:band(255)
      local c, d = ptx.reg.s64(), ptx.reg.s64()
      c:band(d); c:bnot()
    end))
  end)

  it("on predicates: and/or/xor/not .pred, under both spellings", function()
    assert.are.same({
      "and.pred %p3, %p1, %p2;", "or.pred %p4, %p1, %p2;", "xor.pred %p5, %p1, %p2;", "not.pred %p6, %p1;",
      "and.pred %p7, %p1, %p2;", "or.pred %p8, %p1, %p2;", "xor.pred %p9, %p1, %p2;", "not.pred %p10, %p1;",
    }, lines(function(ptx)
      local p, q = ptx.pred(), ptx.pred()
      p:and_(q); p:or_(q); p:xor(q); p:not_()
      p:band(q); p:bor(q); p:bxor(q); p:bnot()
    end))
  end)

  it("shl is shl.bN; shr keeps the signedness (logical for .u, arithmetic for .s)", function()
    assert.are.same({
      "shl.b32 %r2, %r1, 3;", "shr.u32 %r3, %r1, 3;", "shl.b32 %r5, %r1, %r4;",
      "shr.s32 %si2, %si1, 2;", "shl.b32 %si3, %si1, 1;", "shl.b64 %rd2, %rd1, 1;", "shr.u64 %rd3, %rd1, 63;",
      "shr.s64 %sd2, %sd1, 1;",
    }, lines(function(ptx)
      local a = ptx.reg.u32(); a:shl(3); a:shr(3); a:shl(ptx.reg.u32())
      local s = ptx.reg.s32(); s:shr(2); s:shl(1)
      local d = ptx.reg.u64(); d:shl(1); d:shr(63)
      ptx.reg.s64():shr(1)
    end))
  end)

  it("refuses bit operations on floats", function()
    fails("bitwise and on .f32", function(ptx) ptx.reg.f32():band(1) end)
    fails("bitwise not on .f64", function(ptx) ptx.reg.f64():bnot() end)
    fails("shift of .f32", function(ptx) ptx.reg.f32():shl(1) end)
    fails("shift of .pred", function(ptx) ptx.pred():shr(1) end)
    -- a negative constant amount shifts every bit out (PTX reads it unsigned and clamps it)
    fails(":shl(-1): a negative shift amount", function(ptx) ptx.reg.u32():shl(-1) end)
    fails(":shr(-3): a negative shift amount", function(ptx) ptx.reg.s32():shr(-3) end)
    fails("shift the other way: :shl(2)", function(ptx) ptx.reg.u64():shr(ptx.imm(-2)) end)
    fails(":shl(-1): a negative shift amount", function(ptx) ptx.reg.b64():shl(-1LL) end)
  end)
end)

describe("min, max, abs", function()
  it("emit min/max/abs of the register's type", function()
    assert.are.same({
      "min.s32 %si3, %si1, %si2;", "max.s32 %si4, %si1, %si2;", "abs.s32 %si5, %si1;", "max.s32 %si6, %si1, 0;",
      "min.u32 %r3, %r1, %r2;", "max.u32 %r4, %r1, %r2;",
      "min.f32 %f3, %f1, %f2;", "max.f32 %f4, %f1, 0f00000000;", "abs.f32 %f5, %f1;",
      "abs.f64 %fd2, %fd1;", "min.f16 %h3, %h1, %h2;", "abs.bf16 %hb2, %hb1;",
    }, lines(function(ptx)
      local a, b = ptx.reg.s32(), ptx.reg.s32(); a:min(b); a:max(b); a:abs(); a:max(0)
      local u, v = ptx.reg.u32(), ptx.reg.u32(); u:min(v); u:max(v)
      local f, g = ptx.reg.f32(), ptx.reg.f32(); f:min(g); f:max(0); f:abs()
      ptx.reg.f64():abs()
      local h, k = ptx.reg.f16(), ptx.reg.f16(); h:min(k)
      ptx.reg.bf16():abs()
    end))
  end)

  it("refuses abs of unsigned registers", function()
    fails("abs of .u32", function(ptx) ptx.reg.u32():abs() end)
  end)
end)

describe("fused and widening multiplies", function()
  it("fma is fma.rn (floats), mad is mad.lo (integers)", function()
    assert.are.same({
      "fma.rn.f32 %f4, %f1, %f2, %f3;", "fma.rn.f32 %f5, %f1, 0f40000000, %f3;", "fma.rn.f32 %f6, %f1, %f2, 0f3F800000;",
      "fma.rn.f64 %fd2, %fd1, %fd1, %fd1;",
      "mad.lo.s32 %si4, %si1, %si2, %si3;", "mad.lo.u32 %r2, %r1, 4, %r1;",
    }, lines(function(ptx)
      local a, b, c = ptx.reg.f32(), ptx.reg.f32(), ptx.reg.f32()
      a:fma(b, c); a:fma(2, c); a:fma(b, 1)
      local d = ptx.reg.f64(); d:fma(d, d)
      local x, y, z = ptx.reg.s32(), ptx.reg.s32(), ptx.reg.s32(); x:mad(y, z)
      local u = ptx.reg.u32(); u:mad(4, u)
    end))
  end)

  it("mul_wide gives the double-width register; mul_hi the high half", function()
    assert.are.same({
      "mul.wide.s32 %sd1, %si1, %si2;", "mul.wide.u32 %rd1, %r1, 4;", "mul.wide.u16 %r2, %us1, %us1;",
      "mul.wide.s16 %si3, %ss1, %ss1;", "mul.hi.s32 %si4, %si1, %si2;", "mul.hi.u64 %rd3, %rd2, %rd2;",
    }, lines(function(ptx)
      local a, b = ptx.reg.s32(), ptx.reg.s32()
      local _ = a:mul_wide(b)
      local u = ptx.reg.u32(); _ = u:mul_wide(4)
      local h = ptx.reg.u16(); _ = h:mul_wide(h)
      local s = ptx.reg.s16(); _ = s:mul_wide(s)
      _ = a:mul_hi(b)
      local d = ptx.reg.u64(); _ = d:mul_hi(d)
    end))
  end)

  it("the wide result is a register of the wide type", function()
    assert.are.same({ "mul.wide.u32 %rd1, %r1, 4;", "add.u64 %rd3, %rd2, %rd1;" }, lines(function(ptx)
      local off = ptx.reg.u32():mul_wide(4)
      local _ = ptx.reg.u64() + off
    end))
  end)

  it("refuses the wrong class", function()
    fails(":fma is for floating point", function(ptx) ptx.reg.u32():fma(1, 2) end)
    fails(":mad is for integers", function(ptx) ptx.reg.f32():mad(1, 2) end)
    fails(":mul_wide is for 16/32-bit integers", function(ptx) ptx.reg.u64():mul_wide(1) end)
    fails("type mismatch: .f32 fma .f64", function(ptx) local a = ptx.reg.f32(); a:fma(a, ptx.reg.f64()) end)
  end)
end)

describe("set and select", function()
  it("set is mov into the register itself; halves move as bits", function()
    assert.are.same({
      "mov.f32 %f1, %f2;", "mov.f32 %f1, 0f3FC00000;", "mov.s32 %si1, -1;", "mov.u64 %rd1, 18446744073709551615;",
      "mov.b16 %h1, %h2;", "mov.b16 %hb1, %hb1;", "mov.pred %p1, %p2;",
    }, lines(function(ptx)
      local a, b = ptx.reg.f32(), ptx.reg.f32(); a:set(b); a:set(1.5)
      ptx.reg.s32():set(-1)
      ptx.reg.u64():set(0xFFFFFFFFFFFFFFFFULL)
      local h, g = ptx.reg.f16(), ptx.reg.f16(); h:set(g)
      local bh = ptx.reg.bf16(); bh:set(bh)
      local p, q = ptx.pred(), ptx.pred(); p:set(q)
    end))
  end)

  it("set of a number into a half-precision register moves its f16/bf16 bits, not the integer", function()
    assert.are.same({ "mov.b16 %h1, 0x3C00;", "mov.b16 %hb1, 0x3FC0;" }, lines(function(ptx)
      ptx.reg.f16():set(1)
      ptx.reg.bf16():set(1.5)
    end))
  end)

  it("select is selp (p ? a : b); halves select as bits", function()
    assert.are.same({
      "setp.lt.f32 %p1, %f1, %f2;", "selp.f32 %f3, %f1, %f2, %p1;", "selp.f32 %f4, 0f3F800000, %f2, %p1;",
      "selp.s32 %si2, %si1, 3, %p1;", "selp.b16 %h3, %h1, %h2, %p1;", "selp.b16 %h4, %h1, 0x3800, %p1;",
    }, lines(function(ptx)
      local a, b = ptx.reg.f32(), ptx.reg.f32()
      local p = a:lt(b)
      p:select(a, b); p:select(1, b)
      p:select(ptx.reg.s32(), 3)
      local h, g = ptx.reg.f16(), ptx.reg.f16()
      p:select(h, g); p:select(h, 0.5)
    end))
  end)

  it("refuses a type mix and a select on a non-predicate", function()
    fails("type mismatch in :set: .f32 := .u32", function(ptx) ptx.reg.f32():set(ptx.reg.u32()) end)
    fails("type mismatch: .f32 select .u32", function(ptx) ptx.pred():select(ptx.reg.f32(), ptx.reg.u32()) end)
    fails(":select is called on a predicate", function(ptx) ptx.reg.f32():select(1, 2) end)
    fails("needs a register operand", function(ptx) ptx.pred():select(1, 2) end)
  end)
end)

describe("conversions", function()
  -- from, to, the instruction
  local CASES = {
    { "s32", "s64", "cvt.s64.s32" }, { "u64", "u32", "cvt.u32.u64" }, { "u8", "s32", "cvt.s32.u8" },
    { "s32", "u16", "cvt.u16.s32" },                                    -- integer <-> integer: no rounding
    { "f32", "s32", "cvt.rzi.s32.f32" }, { "f64", "u64", "cvt.rzi.u64.f64" },
    { "f16", "s16", "cvt.rzi.s16.f16" },                                -- float -> integer: truncate, as C
    { "s32", "f32", "cvt.rn.f32.s32" }, { "u64", "f64", "cvt.rn.f64.u64" },
    { "u32", "f16", "cvt.rn.f16.u32" },                                 -- integer -> float: nearest
    { "f32", "f64", "cvt.f64.f32" }, { "f16", "f32", "cvt.f32.f16" }, { "bf16", "f32", "cvt.f32.bf16" }, -- exact
    { "f64", "f32", "cvt.rn.f32.f64" }, { "f32", "f16", "cvt.rn.f16.f32" }, { "f32", "bf16", "cvt.rn.bf16.f32" }, -- narrowing
    { "f16", "bf16", "cvt.rn.bf16.f16" }, { "bf16", "f16", "cvt.rn.f16.bf16" },  -- neither holds the other
  }
  for _, c in ipairs(CASES) do
    it(c[1] .. " -> " .. c[2] .. " is " .. c[3], function()
      assert.are.same({ c[3] .. " " .. R(c[2], 1) .. ", " .. R(c[1], 1) .. ";" },
        lines(function(ptx) ptx.reg[c[1]]():to(c[2]) end))
    end)
  end

  it("ptx.cvt(type, r) is r:to(type)", function()
    assert.are.same({ "cvt.rn.f32.s32 %f1, %si1;", "cvt.rn.f32.s32 %f2, %si1;" }, lines(function(ptx)
      local a = ptx.reg.s32()
      a:to("f32"); ptx.cvt("f32", a)
    end))
  end)

  it("refuses conversions that are not conversions", function()
    fails("cvt from .u32 to itself", function(ptx) ptx.reg.u32():to("u32") end)
    fails("cvt between .u32 and .pred", function(ptx) ptx.reg.u32():to("pred") end)
    fails("cvt between .b32 and .f32 (use :as", function(ptx) ptx.reg.b32():to("f32") end)
    fails("unknown type 'f33'", function(ptx) ptx.reg.u32():to("f33") end)
    fails("cvt: a register expected", function(ptx) ptx.cvt("f32", 1) end)
  end)

  it("as reinterprets the bits with mov.bN; sizes must agree", function()
    assert.are.same({ "mov.b32 %b1, %f1;", "mov.b32 %r1, %f1;", "mov.b32 %f2, %r2;", "mov.b16 %bs1, %h1;", "mov.b64 %fd1, %rd1;" },
      lines(function(ptx)
        local f = ptx.reg.f32(); f:as("b32"); f:as("u32")
        ptx.reg.u32():as("f32"); ptx.reg.f16():as("b16"); ptx.reg.u64():as("f64")
      end))
    fails(":as('u64') on a .f32 register: sizes differ", function(ptx) ptx.reg.f32():as("u64") end)
  end)

  it("sqrt is sqrt.rn for f32/f64 only", function()
    assert.are.same({ "sqrt.rn.f32 %f2, %f1;", "sqrt.rn.f64 %fd2, %fd1;" }, lines(function(ptx)
      ptx.reg.f32():sqrt(); ptx.reg.f64():sqrt()
    end))
    fails(":sqrt of .u32", function(ptx) ptx.reg.u32():sqrt() end)
  end)
end)

describe("typed constants", function()
  it("ptx.f32(v) is mov.f32 with the exact 0f bits", function()
    local vals = { 1.5, 0, -0.0, 1 / 0, -1 / 0, 0.1, 3.14159, 1e-45, 3.4028234663852886e38, 1 }
    local bits = { "3FC00000", "00000000", "80000000", "7F800000", "FF800000", "3DCCCCCD", "40490FD0", "00000001",
                   "7F7FFFFF", "3F800000" }
    local want = {}
    for i, b in ipairs(bits) do want[i] = "mov.f32 %f" .. i .. ", 0f" .. b .. ";" end
    assert.are.same(want, lines(function(ptx) for _, v in ipairs(vals) do ptx.f32(v) end end))
  end)

  it("ptx.f64(v) is mov.f64 with the exact 0d bits", function()
    assert.are.same({ "mov.f64 %fd1, 0d3FB999999999999A;", "mov.f64 %fd2, 0dC004000000000000;", "mov.f64 %fd3, 0d3FF0000000000000;" },
      lines(function(ptx) ptx.f64(0.1); ptx.f64(-2.5); ptx.f64(1) end))
  end)

  it("integer constants, cdata 64-bit literals and ptx.hex", function()
    assert.are.same({
      "mov.u32 %r1, 7;", "mov.s32 %si1, -7;", "mov.u64 %rd1, 18446744073709551615;", "mov.s64 %sd1, -1;",
      "mov.u64 %rd2, 9223372036854775807;", "mov.b32 %b1, 0xDEADBEEF;", "mov.u16 %us1, 65535;",
    }, lines(function(ptx)
      ptx.u32(7); ptx.s32(-7); ptx.u64(0xFFFFFFFFFFFFFFFFULL); ptx.s64(-1LL); ptx.u64(0x7FFFFFFFFFFFFFFFLL)
      ptx.b32(ptx.hex(0xdeadbeef)); ptx.u16(65535)
    end))
    fails("PTX has no mov for 8-bit registers", function(ptx) ptx.u8(255) end)
  end)

  it("ptx.f16 / ptx.bf16 round the number to nearest even and move its bits", function()
    local f16 = { { 1, "3C00" }, { 1.5, "3E00" }, { -2, "C000" }, { 0.1, "2E66" }, { 65504, "7BFF" }, { 65520, "7C00" },
                  { 1 / 0, "7C00" }, { 2 ^ -24, "0001" }, { -0.0, "8000" }, { 0, "0000" }, { 1 + 2 ^ -11, "3C00" },
                  { 1 + 3 * 2 ^ -11, "3C02" } }
    local bf16 = { { 1, "3F80" }, { 1.5, "3FC0" }, { -2, "C000" }, { 0.1, "3DCD" }, { 1 / 0, "7F80" }, { 3.0e38, "7F62" } }
    local want = {}
    for i, c in ipairs(f16) do want[#want + 1] = "mov.b16 %h" .. i .. ", 0x" .. c[2] .. ";" end
    for i, c in ipairs(bf16) do want[#want + 1] = "mov.b16 %hb" .. i .. ", 0x" .. c[2] .. ";" end
    want[#want + 1] = "mov.b32 %hh1, 0x3C003C00;"
    want[#want + 1] = "mov.b16 %h" .. (#f16 + 1) .. ", 0x1234;"
    assert.are.same(want, lines(function(ptx)
      for _, c in ipairs(f16) do ptx.f16(c[1]) end
      for _, c in ipairs(bf16) do ptx.bf16(c[1]) end
      ptx.f16x2(1)
      ptx.f16(ptx.hex(0x1234))   -- bits given as bits stay bits
    end))
  end)
end)

describe("registers", function()
  it("are numbered from 1 per type and declared as nvcc does (%f<N> for %f1..%f(N-1))", function()
    local text = H.body(function(ptx)
      local a, b = ptx.reg.f32(), ptx.reg.f32()
      local _ = a + b
      local p = ptx.pred()
      local n = ptx.reg.u32()
      ptx.at(p).add.u32(n, n, 1)
    end)
    assert.truthy(text:find("\t.reg .f32 \t%f<4>;\n\t.reg .pred \t%p<2>;\n\t.reg .u32 \t%r<2>;\n\n", 1, true), text)
  end)

  it("named scalars, named arrays and unnamed arrays", function()
    local text = H.body(function(ptx)
      local acc = ptx.reg.f32 "acc"
      local pz = ptx.pred "pz"
      local v = ptx.regs.f32(4, "v")
      local w = ptx.regs.u32(2)
      local w2 = ptx.regs.u32(3)
      assert.are.equal(4, #v)
      assert.are.equal("%acc", acc:name())
      assert.are.equal("%v3", v[4]:name())
      assert.are.equal("%pz", pz:name())
      assert.are.equal("%acc (.f32)", tostring(acc))
      assert.are.equal("f32", acc:type())
      local _ = acc + v[1]
      _ = w[2] + w2[3]
    end)
    local insns = H.insns(text)
    assert.are.same({ "add.rn.f32 %f1, %acc, %v0;", "add.u32 %r1, %rv1_1, %rv2_2;" }, insns)
    for _, decl in ipairs { "\t.reg .f32 \t%acc;\n", "\t.reg .pred \t%pz;\n", "\t.reg .f32 \t%v<4>;\n",
                            "\t.reg .u32 \t%rv1_<2>;\n", "\t.reg .u32 \t%rv2_<3>;\n" } do
      assert.truthy(text:find(decl, 1, true), decl .. " missing in:\n" .. text)
    end
  end)

  it("refuses a name twice, a name that collides with a range, and bad names or types", function()
    fails("register name '%x' is already declared", function(ptx) ptx.reg.f32 "x"; ptx.reg.u32 "x" end)
    fails("register name '%f1' is reserved: the pool of unnamed .f32 registers is %f1", function(ptx) ptx.reg.f32 "f1"; ptx.reg.f32() end)
    fails("register name '%f7' is reserved", function(ptx) ptx.reg.f32(); ptx.reg.f32 "f7" end)
    fails("collides", function(ptx) ptx.regs.f32(4, "acc"); ptx.reg.f32 "acc2" end)
    fails("bad register name", function(ptx) ptx.reg.f32 "a b" end)
    fails("unknown register type 'f33'", function(ptx) ptx.reg.f33() end)
    fails("register array size must be a positive integer", function(ptx) ptx.regs.f32(0) end)
    fails("register array size must be a positive integer", function(ptx) ptx.regs.f32(2.5) end)
  end)

  it("a register of one kernel is refused in another", function()
    local ptx = H.fresh()
    local leaked
    ptx.kernel { name = "a", body = function() leaked = ptx.reg.u32() end }
    ptx.kernel { name = "b", body = function() local x = ptx.reg.u32(); ptx.add.u32(x, x, leaked) end }
    local ok, err = pcall(ptx.ptx)
    assert.is_false(ok)
    assert.truthy(err:find("register %r1 belongs to another kernel (a)", 1, true), err)
  end)

  it("outside a kernel body, instructions and registers are refused", function()
    local ptx = H.fresh()
    local ok, err = pcall(function() return ptx.reg.f32() end)
    assert.is_false(ok)
    assert.truthy(err:find("no kernel is being traced", 1, true), err)
    ok, err = pcall(function() ptx.add.f32(1, 2, 3) end)
    assert.is_false(ok)
    assert.truthy(err:find("no kernel is being traced", 1, true), err)
  end)
end)

describe("special registers", function()
  local U32 = { "tid.x", "tid.y", "tid.z", "ntid.x", "ntid.y", "ntid.z", "ctaid.x", "ctaid.y", "ctaid.z",
                "nctaid.x", "nctaid.y", "nctaid.z", "clusterid.x", "clusterid.y", "clusterid.z",
                "nclusterid.x", "nclusterid.y", "nclusterid.z", "cluster_ctaid.x", "cluster_ctaid.y", "cluster_ctaid.z",
                "cluster_nctaid.x", "cluster_nctaid.y", "cluster_nctaid.z", "laneid", "warpid", "nwarpid", "smid", "nsmid",
                "lanemask_eq", "lanemask_le", "lanemask_lt", "lanemask_ge", "lanemask_gt", "clock", "clock_hi",
                "cluster_ctarank", "cluster_nctarank", "dynamic_smem_size", "total_smem_size", "aggr_smem_size" }
  local U64 = { "gridid", "clock64", "globaltimer" }

  it("ptx.special(name) is one mov of the register's type into a new register", function()
    local want = {}
    for i, n in ipairs(U32) do want[#want + 1] = "mov.u32 %r" .. i .. ", %" .. n .. ";" end
    for i, n in ipairs(U64) do want[#want + 1] = "mov.u64 %rd" .. i .. ", %" .. n .. ";" end
    want[#want + 1] = "mov.pred %p1, %is_explicit_cluster;"
    local text = H.body(function(ptx)
      for _, n in ipairs(U32) do ptx.special(n) end
      for _, n in ipairs(U64) do ptx.special(n) end
      ptx.special "is_explicit_cluster"
    end)
    assert.are.same(want, H.insns(text))
    -- %aggr_smem_size needs PTX ISA 8.1: the module's .version follows
    assert.truthy(text:find("\n.version 8.1\n", 1, true), text)
    local ok, report = H.assemble(text, "sm_90a")
    if ok == nil then return end
    assert.is_true(ok, report)
  end)

  it("as operands: ptx.sreg.tid.x in an instruction", function()
    assert.are.same({ "mov.u32 %r1, %tid.x;", "add.u32 %r2, %r1, 1;" }, lines(function(ptx)
      local r = ptx.reg.u32()
      ptx.mov.u32(r, ptx.sreg.tid.x)
      local _ = r + 1
    end))
  end)

  it("refuses unknown names and cluster registers on a target without clusters", function()
    fails("unknown special register '%tid.q'", function(ptx) ptx.special "tid.q" end)   -- .w: the .v4's fourth, ptxas takes it
    fails("%cluster_ctarank requires sm_90", function(ptx) ptx.special "cluster_ctarank" end, nil, { target = "sm_80" })
  end)
end)

describe("addresses", function()
  it("[r], [r+16], [r+-4], [param], [param+4], [absolute]", function()
    assert.are.same({
      "ld.global.f32 %f1, [%rd1];", "ld.global.f32 %f1, [%rd1+16];", "ld.global.f32 %f1, [%rd1+-4];",
      "ld.param.u64 %rd1, [x];", "ld.param.u32 %r1, [b+4];", "ld.global.f32 %f1, [256];",
      "st.shared.f32 [tile+8], %f1;",
    }, lines(function(ptx, t, x, b)
      local r, f = ptx.reg.u64(), ptx.reg.f32()
      ptx.ld.global.f32(f, ptx.addr(r)); ptx.ld.global.f32(f, ptx.addr(r, 16)); ptx.ld.global.f32(f, ptx.addr(r, -4))
      ptx.ld.param.u64(r, ptx.addr(x)); ptx.ld.param.u32(ptx.reg.u32(), ptx.addr(b, 4))
      ptx.ld.global.f32(f, ptx.addr(nil, 256))
      local tile = ptx.shared("tile", "f32", 64)
      ptx.st.shared.f32(ptx.addr(tile, 8), f)
    end, { { "x", "f32*" }, { "b", "b8", size = 128, align = 16 } }))
  end)

  it("refuses bad bases and offsets", function()
    fails("address offset must be a number", function(ptx) ptx.addr(ptx.reg.u64(), "8") end)
    fails("address base must be a register or a symbol", function(ptx) ptx.addr(5) end)
    fails("an address offset must be an integer", function(ptx) ptx.ld.global.f32(ptx.reg.f32(), ptx.addr(ptx.reg.u64(), 1.5)) end)
    fails("expected an address", function(ptx) ptx.ld.global.f32(ptx.reg.f32(), ptx.reg.u64()) end)
  end)
end)

describe("symbols", function()
  it("a symbol names a declared parameter, variable or function; else an error at its instruction", function()
    fails("'nosuch' (operand 2 of 'mov.u32') is not declared", function(ptx) ptx.mov.u32(ptx.reg.u32(), ptx.sym "nosuch") end)
    fails("'gone' (operand 2 of 'ld.shared.f32') is not declared", function(ptx)
      ptx.ld.shared.f32(ptx.reg.f32(), ptx.addr(ptx.sym "gone", 4))
    end)
    -- another kernel's variable is not this one's
    local ptx = H.fresh()
    ptx.kernel { name = "a", body = function() ptx.shared("mine", "f32", 4) end }
    ptx.kernel { name = "b", body = function() ptx.ld.shared.f32(ptx.reg.f32(), ptx.addr(ptx.sym "mine")) end }
    local ok, err = pcall(ptx.ptx, {})
    assert.is_false(ok)
    assert.truthy(err:find("'mine' (operand 2 of 'ld.shared.f32') is not declared", 1, true), err)
    -- declared anywhere in the body (a plan's block is declared when the body ends), a parameter, a function
    assert.are.same({ "mov.u32 %r1, t;", "ld.param.u32 %r2, [n];", "ld.shared.f32 %f1, [t+4];" }, lines(function(ptx, _, n)
      ptx.mov.u32(ptx.reg.u32(), ptx.sym "t")
      ptx.ld.param.u32(ptx.reg.u32(), ptx.addr(ptx.sym "n"))
      ptx.ld.shared.f32(ptx.reg.f32(), ptx.addr(ptx.sym "t", 4))
      ptx.shared("t", "f32", 4)
    end, { { "n", "u32" } }))
  end)
end)

describe("guards", function()
  it("ptx.at(p) and ptx.at_not(p) guard exactly the next instruction", function()
    assert.are.same({ "@%p1 add.u32 %r1, %r1, 1;", "@!%p1 sub.u32 %r1, %r1, 1;", "add.u32 %r1, %r1, 2;" },
      lines(function(ptx)
        local p, a = ptx.pred(), ptx.reg.u32()
        ptx.at(p).add.u32(a, a, 1); ptx.at_not(p).sub.u32(a, a, 1); ptx.add.u32(a, a, 2)
      end))
  end)

  it("guards the chained instruction, not the operators evaluated in its operands", function()
    assert.are.same({ "mul.wide.u32 %rd2, %r1, 4;", "add.u64 %rd3, %rd1, %rd2;", "add.rn.f32 %f2, %f1, 0f3F800000;",
                      "@%p1 st.global.f32 [%rd3], %f2;",
                      "mul.wide.u32 %rd4, %r1, 8;", "add.u64 %rd5, %rd1, %rd4;", "mul.rn.f32 %f3, %f1, 0f40000000;",
                      "@!%p1 st.global.f32 [%rd5], %f3;",
                      "add.u32 %r2, %r1, 3;", "@%p1 cvt.rn.f32.u32 %f1, %r2;",
                      "add.rn.f32 %f4, %f1, %f1;", "@%p1 st.global.f32 [%rd1], %f4;",
                      "@%p1 add.f32 %f1, %f1, 0f3F800000;", "@%p1 add.f32 %f1, %f1, 0f40000000;" },
      lines(function(ptx)
        local p, i, v, px = ptx.pred(), ptx.reg.u32(), ptx.reg.f32(), ptx.reg.u64()
        ptx.at(p).st.global.f32(ptx.addr(px + i:mul_wide(4)), v + 1)
        ptx.at_not(p).op "st.global.f32" (ptx.addr(px + i:mul_wide(8)), v * 2)
        ptx.at(p).cvt.rn.f32.u32(v, i + 3)
        local st = ptx.at(p).st.global.f32    -- the guard waits for this chain's call
        local w = v + v
        st(ptx.addr(px), w)
        local add = ptx.at(p).add.f32         -- every call made through a guard is guarded
        add(v, v, 1); add(v, v, 2)
      end))
    -- both errors at the user's line (found by its marker)
    local function at(marker)
      return "dsl_spec.lua:" .. H.marker_line(debug.getinfo(1, "S").source:sub(2), marker) .. ": error: "
    end
    local err = fails("nothing was called through this ptx.at guard", function(ptx)
      local _ = ptx.at(ptx.pred()).add.f32 -- NEVER_CALLED
    end)
    assert.truthy(err:find(at("-- NEVER_CALLED"), 1, true), err)
    err = fails("'add.f32' takes 3 operands", function(ptx)
      local v = ptx.reg.f32()
      ptx.at(ptx.pred()).add.f32(v, v + 1) -- TOO_FEW
    end)
    assert.truthy(err:find(at("-- TOO_FEW"), 1, true), err)
  end)

  it("refuses a non-predicate, a guard on a label, on nothing, and on a sequence", function()
    fails("ptx.at expects a predicate register", function(ptx) ptx.at(ptx.reg.u32()) end)
    fails("ptx.at_not expects a predicate register", function(ptx) ptx.at_not(true) end)
    fails("ptx.at guards one instruction, and ptx.at records none", function(ptx) local p = ptx.pred(); ptx.at(p).at(p).ret() end)
    fails("must be followed by an instruction, not a label", function(ptx) ptx.at(ptx.pred()).place(ptx.label()) end)
    fails("ptx.warp_reduce records several", function(ptx) local v = ptx.reg.f32(); ptx.at(ptx.pred()).warp_reduce(v) end)
    fails("ptx.range records several", function(ptx) ptx.at(ptx.pred()).range(0, 4, function() end) end)
    fails("ptx.if_ records several", function(ptx) local p = ptx.pred(); ptx.at(p).if_(p, function() end) end)
    fails("ptx.global_ptrs records several", function(ptx, t, x) ptx.at(ptx.pred()).global_ptrs(x) end, { { "x", "f32*" } })
    fails("ptx.label records none", function(ptx) ptx.at(ptx.pred()).label() end)
    fails("ptx.reg is not an instruction or a helper that records one", function(ptx) ptx.at(ptx.pred()).reg.f32() end)
    -- ptx.at(p) on its own guards nothing, and the next instruction is not guarded silently
    fails("nothing was called through this ptx.at guard", function(ptx) ptx.at(ptx.pred()) end)
    fails("nothing was called through this ptx.at guard", function(ptx)
      local p, a = ptx.pred(), ptx.reg.u32()
      ptx.at(p); local _ = a + a
    end)
  end)
end)

describe("labels and branches", function()
  it("named labels are $name, unnamed ones $L__N; bra and bra.uni", function()
    assert.are.same({ "@%p1 bra $out;", "bra $out;", "bra.uni $L__1;", "$L__1:", "$out:", "ret;" }, lines(function(ptx)
      local p = ptx.pred()
      local out, here = ptx.label "out", ptx.label()
      ptx.at(p).bra(out); ptx.bra(out); ptx.bra.uni(here)
      ptx.place(here); ptx.place(out)
      ptx.ret()
    end))
  end)

  it("refuses bad names, reserved names, placing twice and a label never placed", function()
    fails("bad label name 'a b'", function(ptx) ptx.label "a b" end)
    fails("reserved for generated labels", function(ptx) ptx.label "L__1" end)
    fails("label '$x' is placed twice", function(ptx) local l = ptx.label "x"; ptx.place(l); ptx.place(l) end)
    fails("undefined label '$nowhere'", function(ptx) ptx.bra(ptx.label "nowhere") end)
    fails("ptx.place expects a label", function(ptx) ptx.place "x" end)
  end)
end)

describe("ptx.if_", function()
  it("without else: @!p bra to the end", function()
    assert.are.same({ "@!%p1 bra $L__else1;", "add.u32 %r2, %r1, 1;", "$L__else1:" }, lines(function(ptx)
      local p, a = ptx.pred(), ptx.reg.u32()
      ptx.if_(p, function() local _ = a + 1 end)
    end))
  end)

  it("with else: @!p bra else; then; bra.uni end; else: ...; end:", function()
    assert.are.same({
      "@!%p1 bra $L__else1;", "add.u32 %r2, %r1, 2;", "bra.uni $L__endif2;", "$L__else1:", "add.u32 %r3, %r1, 3;", "$L__endif2:",
    }, lines(function(ptx)
      local p, a = ptx.pred(), ptx.reg.u32()
      ptx.if_(p, function() local _ = a + 2 end, function() local _ = a + 3 end)
    end))
  end)

  it("nests", function()
    assert.are.same({
      "@!%p1 bra $L__else1;", "@!%p2 bra $L__else2;", "ret;", "$L__else2:", "$L__else1:",
    }, lines(function(ptx)
      local p, q = ptx.pred(), ptx.pred()
      ptx.if_(p, function() ptx.if_(q, function() ptx.ret() end) end)
    end))
  end)

  it("refuses a non-predicate", function()
    fails("ptx.if_ expects a predicate register", function(ptx) ptx.if_(ptx.reg.u32(), function() end) end)
    fails("ptx.if_(p, then_fn [, else_fn])", function(ptx) ptx.if_(ptx.pred()) end)
    fails("ptx.if_(p, then_fn [, else_fn])", function(ptx) ptx.if_(ptx.pred(), function() end, 5) end)
  end)
end)

describe("ptx.range and ptx.loop", function()
  it("numeric bounds: no entry test, a backward branch", function()
    assert.are.same({
      "mov.u32 %r2, 0;", "$L__loop1:", "mov.u32 %r1, %r2;", "add.u32 %r2, %r2, 1;", "setp.lt.u32 %p1, %r2, 4;", "@%p1 bra $L__loop1;",
    }, lines(function(ptx)
      local acc = ptx.reg.u32()
      ptx.range(0, 4, function(i) acc:set(i) end)
    end))
  end)

  it("the body runs once while tracing (the loop is in the PTX, not unrolled)", function()
    local calls = 0
    lines(function(ptx) ptx.range(0, 100, function() calls = calls + 1 end) end)
    assert.are.equal(1, calls)
  end)

  it("ptx.loop(n) is range(0, n); empty numeric ranges record nothing", function()
    assert.are.same({
      "mov.u32 %r1, 0;", "$L__loop1:", "add.u32 %r1, %r1, 1;", "setp.lt.u32 %p1, %r1, 3;", "@%p1 bra $L__loop1;",
    }, lines(function(ptx)
      ptx.loop(3, function() end)
      ptx.range(4, 4, function() error("never") end)
      ptx.range(5, 1, function() error("never") end)
    end))
  end)

  it("a register bound: an entry test that skips the loop", function()
    assert.are.same({
      "ld.param.u32 %r1, [n];", "mov.u32 %r2, 0;", "setp.ge.u32 %p1, %r2, %r1;", "@%p1 bra $L__endloop2;",
      "$L__loop1:", "add.u32 %r2, %r2, 2;", "setp.lt.u32 %p2, %r2, %r1;", "@%p2 bra $L__loop1;", "$L__endloop2:",
    }, lines(function(ptx, t, n)
      ptx.range(0, n:load(), 2, function() end)
    end, { { "n", "u32" } }))
  end)

  it("a negative step counts down with sub, signed or unsigned", function()
    assert.are.same({
      "mov.s32 %si1, 8;", "$L__loop1:", "sub.s32 %si1, %si1, 2;", "setp.gt.s32 %p1, %si1, 0;", "@%p1 bra $L__loop1;",
      "ld.param.u32 %r1, [n];", "mov.u32 %r2, %r1;", "setp.le.u32 %p2, %r2, 0;", "@%p2 bra $L__endloop4;",
      "$L__loop3:", "sub.u32 %r2, %r2, 1;", "setp.gt.u32 %p3, %r2, 0;", "@%p3 bra $L__loop3;", "$L__endloop4:",
    }, lines(function(ptx, t, n)
      ptx.range(8, 0, -2, function() end)
      ptx.range(n:load(), 0, -1, function() end)
    end, { { "n", "u32" } }))
  end)

  it("64-bit counters follow the bound's type", function()
    assert.are.same({
      "ld.param.u64 %rd1, [n];", "mov.u64 %rd2, 0;", "setp.ge.u64 %p1, %rd2, %rd1;", "@%p1 bra $L__endloop2;",
      "$L__loop1:", "add.u64 %rd2, %rd2, 1;", "setp.lt.u64 %p2, %rd2, %rd1;", "@%p2 bra $L__loop1;", "$L__endloop2:",
    }, lines(function(ptx, t, n) ptx.loop(n:load(), function() end) end, { { "n", "u64" } }))
  end)

  it("a register step (a grid stride) adds the register: the loop counts up", function()
    assert.are.same({
      "ld.param.u32 %r1, [n];", "ld.param.u32 %r2, [s];", "mov.u32 %r3, 0;", "setp.ge.u32 %p1, %r3, %r1;", "@%p1 bra $L__endloop2;",
      "$L__loop1:", "add.u32 %r3, %r3, %r2;", "setp.lt.u32 %p2, %r3, %r1;", "@%p2 bra $L__loop1;", "$L__endloop2:",
      "ld.param.u64 %rd1, [w];", "mov.u64 %rd2, 3;", "$L__loop3:", "add.u64 %rd2, %rd2, %rd1;", "setp.lt.u64 %p3, %rd2, 100;",
      "@%p3 bra $L__loop3;",
    }, lines(function(ptx, t, n, s, w)
      ptx.range(0, n:load(), s:load(), function() end)
      ptx.range(3, 100, w:load(), function() end)    -- the counter takes the step's type
    end, { { "n", "u32" }, { "s", "u32" }, { "w", "u64" } }))
  end)

  it("a grid-stride loop with a register step visits every element once, at uneven sizes", function()
    local ptx = require "ptxlua"
    local rt = require "ptxlua.emu"
    local k = ptx.kernel { name = "gridstride", params = { { "x", "u32*" }, { "n", "u32" } }, body = function(t, x, n)
      local px = ptx.global_ptrs(x)
      local i0 = ptx.special "ctaid.x" * ptx.special "ntid.x" + ptx.special "tid.x"
      local stride = ptx.special "nctaid.x" * ptx.special "ntid.x"
      ptx.range(i0, n:load(), stride, function(i)
        local a = ptx.addr(px + i:mul_wide(4))
        local v = ptx.reg.u32()
        ptx.ld.global.u32(v, a)
        ptx.st.global.u32(a, v + i + 1)
      end)
    end }
    local dev = rt.device("emu")
    for _, c in ipairs { { 1, 3, 32 }, { 1000, 3, 64 }, { 97, 2, 32 }, { 0, 2, 32 }, { 4096, 4, 128 } } do
      local n, grid, block = c[1], c[2], c[3]
      local x = dev:array("u32", math.max(n, 1), function(i) return 7 * i end)   -- (i counts from 1)
      rt.launch(k, { device = dev, args = { x, n }, grid = { grid }, block = { block } })
      local o = x:read()
      for i = 0, n - 1 do assert.are.equal(7 * (i + 1) + i + 1, o[i + 1], ("n=%d element %d"):format(n, i)) end
    end
  end)

  it("refuses a zero or fractional step, float bounds, a bound type mix and unsigned steps below -1", function()
    fails("step must be a non-zero integer", function(ptx) ptx.range(0, 4, 0, function() end) end)
    fails("step must be a non-zero integer", function(ptx) ptx.range(0, 4, 0.5, function() end) end)
    fails("counter must be a 32/64-bit integer, got .f32", function(ptx) ptx.range(0, ptx.reg.f32(), function() end) end)
    fails("stop is .s32, the counter .u32", function(ptx) ptx.range(ptx.reg.u32(), ptx.reg.s32(), function() end) end)
    fails("step is .u64, the counter .u32", function(ptx) ptx.range(0, ptx.reg.u32(), ptx.reg.u64(), function() end) end)
    fails("step must be a non-zero integer or an integer register", function(ptx) ptx.range(0, 4, "2", function() end) end)
    fails("counter must be a 32/64-bit integer, got .f32", function(ptx) ptx.range(0, 4, ptx.reg.f32(), function() end) end)
    fails("cannot step by -2", function(ptx) ptx.range(ptx.reg.u32(), 0, -2, function() end) end)
    fails("ptx.range(start, stop, [step,] function(i) ... end)", function(ptx) ptx.range(0, 4) end)
  end)

  it("ptx.do_while: the given label, the body, the branch on what the body returns", function()
    assert.are.same({
      "mov.u32 %r1, %tid.x;", "$top:", "add.u32 %r3, %r2, 1;", "mov.u32 %r2, %r3;", "setp.lt.u32 %p1, %r2, %r1;", "@%p1 bra $top;",
      "$L__loop1:", "setp.ge.u32 %p2, %r2, 64;", "@!%p2 bra.uni $L__loop1;",
      "$again:", "@%p2 bra $out;", "bra $again;", "$out:",
    }, lines(function(ptx)
      local i = ptx.special "tid.x"
      local acc = ptx.reg.u32()
      local top = ptx.label "top"
      assert.are.equal(top, ptx.do_while(top, function() acc:set(acc + 1); return acc:lt(i) end))
      local q
      ptx.do_while(function() q = acc:ge(64); return q:inv() end, { uni = true })
      local out = ptx.label "out"
      ptx.do_while(ptx.label "again", function() ptx.at(q).bra(out); return true end)
      ptx.place(out)
    end))
  end)

  it("ptx.do_while refuses a body without a condition, a bad label and a guard", function()
    fails("must return the loop's condition", function(ptx) ptx.do_while(function() end) end)
    fails("must return the loop's condition", function(ptx) ptx.do_while(function() return ptx.reg.u32() end) end)
    fails("the label must be a label", function(ptx) ptx.do_while("top", function() return true end) end)
    fails("ptx.do_while([label,] function() ... return p end", function(ptx) ptx.do_while(ptx.label "x") end)
    fails("ptx.do_while records several", function(ptx) ptx.at(ptx.pred()).do_while(function() return true end) end)
  end)
end)

describe("kernel parameters", function()
  it("param:load() is ld.param of the declared type; pointers load as .u64", function()
    assert.are.same({ "ld.param.u32 %r1, [n];", "ld.param.f32 %f1, [s];", "ld.param.u64 %rd1, [x];", "ld.param.s64 %sd1, [k];" },
      lines(function(ptx, t, n, s, x, k) n:load(); s:load(); x:load(); k:load() end,
        { { "n", "u32" }, { "s", "f32" }, { "x", "f16*" }, { "k", "s64" } }))
  end)

  it("ptx.global_ptrs: ld.param.u64 then cvta.to.global.u64 for each pointer, in order", function()
    assert.are.same({
      "ld.param.u64 %rd1, [x];", "cvta.to.global.u64 %rd2, %rd1;", "ld.param.u64 %rd3, [y];", "cvta.to.global.u64 %rd4, %rd3;",
      "add.u64 %rd5, %rd2, %rd4;",
    }, lines(function(ptx, t, x, y)
      local gx, gy = ptx.global_ptrs(x, y)
      local _ = gx + gy
    end, { { "x", "f32*" }, { "y", "u8*" } }))
  end)

  it("declarations: scalars, pointers, byte arrays with alignment, tensor maps", function()
    local text = H.body(function() end, { { "x", "f32*" }, { "n", "u32" }, { "b", "b8", size = 128, align = 16 }, { "tm", "tensormap" } })
    assert.truthy(text:find(".visible .entry k(\n\t.param .u64 x,\n\t.param .u32 n,\n\t.param .align 16 .b8 b[128],\n" ..
                            "\t.param .align 64 .b8 tm[128]\n)\n{\n", 1, true), text)
  end)

  it("refuses loading a byte array and a non-pointer in global_ptrs", function()
    fails("is a byte array", function(ptx, t, b) b:load() end, { { "b", "b8", size = 16 } })
    fails("argument 1 is not a pointer parameter", function(ptx, t, n) ptx.global_ptrs(n) end, { { "n", "u32" } })
  end)
end)

describe("shared memory", function()
  it("ptx.shared declares .shared with alignment; ptx.shared_dynamic an extern unsized array", function()
    local text = H.body(function(ptx)
      local tile = ptx.shared("tile", "f32", 1024)
      local th = ptx.shared("th", "bf16", 64, 128)
      local dyn = ptx.shared_dynamic("smem")
      local r = ptx.reg.u32()
      ptx.mov.u32(r, tile); ptx.mov.u32(r, dyn)
      ptx.ld.shared.b16(ptx.reg.bf16(), ptx.addr(th, 2))
    end)
    -- ptxas takes .extern .shared at module scope only
    assert.truthy(text:find("\n.extern .shared .align 16 .b8 smem[];\n", 1, true), text)
    assert.truthy(text:find("\t.shared .align 4 .f32 tile[1024];\n\t.shared .align 128 .b16 th[64];\n", 1, true), text)
    local ok, report = H.assemble(text, "sm_90a")
    if ok ~= nil then assert.is_true(ok, report) end
    assert.are.same({ "mov.u32 %r1, tile;", "mov.u32 %r1, smem;", "ld.shared.b16 %hb1, [th+2];" }, H.insns(text))
  end)

  it("refuses bad names, bad types and a name twice", function()
    fails("ptx.shared: bad name", function(ptx) ptx.shared("a b", "f32", 4) end)
    fails("ptx.shared: bad type", function(ptx) ptx.shared("a", "f33", 4) end)
    fails("ptx.shared_dynamic: bad name", function(ptx) ptx.shared_dynamic(123) end)
    fails("'t' is declared twice in k: first .shared .align 4 .f32 t[4], then .shared .align 4 .f32 t[4]", function(ptx) ptx.shared("t", "f32", 4); ptx.shared("t", "f32", 4) end)
  end)
end)

describe("ptx.warp_reduce", function()
  local function seq(v, tmp, op, offs)
    local out = {}
    for _, k in ipairs(offs) do
      out[#out + 1] = "shfl.sync.bfly.b32 " .. tmp .. ", " .. v .. ", " .. k .. ", 31, 4294967295;"
      out[#out + 1] = op .. " " .. v .. ", " .. v .. ", " .. tmp .. ";"
    end
    return out
  end
  it("sum of .f32: five butterfly shuffles, each followed by add.rn, in place", function()
    assert.are.same(seq("%f1", "%f2", "add.rn.f32", { 16, 8, 4, 2, 1 }), lines(function(ptx)
      local v = ptx.reg.f32()
      assert.are.equal(v, ptx.warp_reduce(v, "sum"))
    end))
  end)
  it("max of .f32, sum of .u32 (the default op), min of .s32 over 8 lanes", function()
    local want = seq("%f1", "%f2", "max.f32", { 16, 8, 4, 2, 1 })
    for _, l in ipairs(seq("%r1", "%r2", "add.u32", { 16, 8, 4, 2, 1 })) do want[#want + 1] = l end
    for _, l in ipairs(seq("%si1", "%si2", "min.s32", { 4, 2, 1 })) do want[#want + 1] = l end
    assert.are.same(want, lines(function(ptx)
      ptx.warp_reduce(ptx.reg.f32(), "max")
      ptx.warp_reduce(ptx.reg.u32())
      ptx.warp_reduce(ptx.reg.s32(), "min", 8)
    end))
  end)
  it("refuses other widths, ops and types", function()
    fails("width must be 2, 4, 8, 16 or 32 (got 6)", function(ptx) ptx.warp_reduce(ptx.reg.f32(), "sum", 6) end)
    fails("op must be 'sum', 'max' or 'min'", function(ptx) ptx.warp_reduce(ptx.reg.f32(), "avg") end)
    fails("32-bit registers only (got .f64)", function(ptx) ptx.warp_reduce(ptx.reg.f64()) end)
    fails("a register expected", function(ptx) ptx.warp_reduce(1) end)
  end)
end)

describe("instruction chains", function()
  it("ptx.a.b.c(...) is the instruction a.b.c, operands as given", function()
    assert.are.same({ "ld.global.nc.f32 %f1, [%rd1];", "bar.sync 0;", "ret;", "exit;" }, lines(function(ptx)
      ptx.ld.global.nc.f32(ptx.reg.f32(), ptx.addr(ptx.reg.u64()))
      ptx.bar.sync(0); ptx.ret(); ptx.exit()
    end))
  end)

  it("spelling: a trailing _ for keywords, a leading _ before a digit, __ for ::", function()
    assert.are.same({
      "and.pred %p1, %p1, %p2;", "or.pred %p1, %p1, %p2;", "not.pred %p1, %p2;", "ld.local.u32 %r1, [%rd1];",
      "st.local.u32 [%rd1], %r1;", "setp.lt.and.u32 %p1, %r1, 4, %p2;", "isspacep.shared::cluster %p1, %rd1;",
      "atom.relaxed.cluster.shared::cluster.add.u32 %r1, [%r1], 1;", "ld.global.L2::cache_hint.f32 %f1, [%rd1], %rd1;",
    }, lines(function(ptx)
      local p, q, a, r = ptx.pred(), ptx.pred(), ptx.reg.u32(), ptx.reg.u64()
      ptx.and_.pred(p, p, q); ptx.or_.pred(p, p, q); ptx.not_.pred(p, q)
      ptx.ld.local_.u32(a, ptx.addr(r)); ptx.st.local_.u32(ptx.addr(r), a)
      ptx.setp.lt.and_.u32(p, a, 4, q)
      ptx.isspacep.shared__cluster(p, r)
      ptx.atom.relaxed.cluster.shared__cluster.add.u32(a, ptx.addr(a), 1)
      ptx.ld.global.L2__cache_hint.f32(ptx.reg.f32(), ptx.addr(r), r)
    end))
    local ptx = H.fresh()
    assert.are.equal("ptx instruction cp.async.bulk.tensor.2d.shared::cluster.global.mbarrier::complete_tx::bytes",
      tostring(ptx.cp.async.bulk.tensor._2d.shared__cluster.global.mbarrier__complete_tx__bytes))
    assert.are.equal("ptx instruction tcgen05.ld.sync.aligned.32x32b.x1.b32", tostring(ptx.tcgen05.ld.sync.aligned._32x32b.x1.b32))
  end)

  it("ptx.op \"text\" takes the opcode as PTX writes it", function()
    assert.are.same({ "add.u32 %r1, %r1, 1;", "ld.global.v4.f32 {%f1, %f2, %f3, %f4}, [%rd1];", "setp.lt.and.u32 %p1, %r1, 4, %p2;" },
      lines(function(ptx)
        local a, r = ptx.reg.u32(), ptx.reg.u64()
        ptx.op "add.u32" (a, a, 1)
        ptx.op "ld.global.v4.f32" ({ ptx.reg.f32(), ptx.reg.f32(), ptx.reg.f32(), ptx.reg.f32() }, ptx.addr(r))
        local p, q = ptx.pred(), ptx.pred()
        ptx.op "setp.lt.and.u32" (p, a, 4, q)
      end))
  end)

  it("vector operands, p|q pairs, !p and ptx.hex / 64-bit cdata immediates", function()
    assert.are.same({
      "ld.global.v4.f32 {%f1, %f2, %f3, %f4}, [%rd1+16];", "st.global.v2.f32 [%rd1], {%f1, %f2};",
      "setp.lt.u32 %p1|%p2, %r1, 4;", "selp.u32 %r1, %r1, 1, !%p1;", "and.b32 %r1, %r1, 0x00FF;",
      "add.u64 %rd1, %rd1, 18446744073709551615;", "mov.u64 %rd1, -1;", "mov.u64 %rd1, 9223372036854775807;",
      "xor.b64 %rd1, %rd1, 0xFFFFFFFFFFFFFFFF;",
    }, lines(function(ptx)
      local a, r = ptx.reg.u32(), ptx.reg.u64()
      local v = { ptx.reg.f32(), ptx.reg.f32(), ptx.reg.f32(), ptx.reg.f32() }
      ptx.ld.global.v4.f32(v, ptx.addr(r, 16))
      ptx.st.global.v2.f32(ptx.addr(r), { v[1], v[2] })
      local p, q = ptx.pred(), ptx.pred()
      ptx.setp.lt.u32(ptx.pair(p, q), a, 4)
      ptx.selp.u32(a, a, 1, p:inv())
      ptx.and_.b32(a, a, ptx.hex(0xff))
      ptx.add.u64(r, r, 0xFFFFFFFFFFFFFFFFULL)
      ptx.mov.u64(r, -1LL)
      ptx.mov.u64(r, 0x7FFFFFFFFFFFFFFFLL)
      ptx.xor.b64(r, r, ptx.hex(0xFFFFFFFFFFFFFFFFULL))
    end))
  end)

  it("refuses unknown opcodes, unknown modifiers, bad operand counts and kinds", function()
    fails("unknown instruction 'frobnicate'", function(ptx) ptx.frobnicate.f32(ptx.reg.f32()) end)
    fails("unknown modifier '.sideways' in 'add.sideways.f32'", function(ptx) local a = ptx.reg.f32(); ptx.add.sideways.f32(a, a, a) end)
    fails("'add.f32' takes 3 operands (d, a, b), got 2", function(ptx) local a = ptx.reg.f32(); ptx.add.f32(a, a) end)
    fails("operand 3 of 'add.f32': expected a .f32 register, got %r1 (.u32)", function(ptx)
      local a = ptx.reg.f32(); ptx.add.f32(a, a, ptx.reg.u32())
    end)
    fails("operand 3 of 'add.f32': expected a register, number, address or label, got string", function(ptx)
      local a = ptx.reg.f32(); ptx.add.f32(a, a, "x")
    end)
    fails("expected a vector of 4 registers, got 1", function(ptx) ptx.ld.global.v4.f32({ ptx.reg.f32() }, ptx.addr(ptx.reg.u64())) end)
    fails("requires sm_90 or later (the target is sm_80)", function(ptx) local a = ptx.reg.bf16(); ptx.add.bf16(a, a, a) end,
      nil, { target = "sm_80" })
    fails("ptx.op takes the opcode text", function(ptx) ptx.op(5) end)
  end)
end)

describe("the module around the kernel", function()
  it("header, target, entry and performance directives, exactly", function()
    local ptx = H.fresh()
    ptx.kernel { name = "k", target = "sm_90a", params = { { "x", "f32*" } }, reqntid = { 32, 2 },
                 minnctapersm = 2, maxnreg = 128, cluster = { 2, 1, 1 }, body = function() ptx.ret() end }
    assert.are.equal(table.concat({
      "//", "// Generated by ptxlua", "//", "", ".version 8.0", ".target sm_90a", ".address_size 64", "",
      "\t// .globl\tk", ".visible .entry k(", "\t.param .u64 x", ")", ".reqntid 32, 2, 1",
      ".minnctapersm 2", ".maxnreg 128", ".explicitcluster", ".reqnctapercluster 2, 1, 1", "{", "\tret;", "", "}", "",
    }, "\n"), ptx.ptx())
    ptx.reset()
    ptx.kernel { name = "k", maxntid = { 256 }, body = function() ptx.ret() end }
    assert.truthy(ptx.ptx():find("\n.maxntid 256, 1, 1\n{", 1, true))
  end)

  it("refuses maxntid with reqntid (ptxas rejects the pair)", function()
    local ptx = H.fresh()
    local ok, err = pcall(ptx.kernel, { name = "k", maxntid = { 256 }, reqntid = { 256 }, body = function() end })
    assert.is_false(ok)
    assert.truthy(tostring(err):find("maxntid and reqntid together conflict", 1, true), err)
  end)

  it("directives may be functions of the templates, and -D values reach them", function()
    local ptx = H.fresh()
    ptx.kernel { name = "k", templates = { BLOCK = 128 }, maxntid = function(t) return { t.BLOCK } end, body = function() end }
    assert.truthy(ptx.ptx():find("\n.maxntid 128, 1, 1\n", 1, true))
    assert.truthy(ptx.ptx { defines = { BLOCK = "64" } }:find("\n.maxntid 64, 1, 1\n", 1, true))
  end)

  it("templates reach the body, -D strings become the default's type", function()
    local seen
    H.body(function(ptx, t) seen = { t.N, t.F, t.S } end, nil,
      { templates = { N = 4, F = false, S = "a" }, defines = { N = "16", F = "true", S = "b" } })
    assert.are.same({ 16, true, "b" }, seen)
  end)

  it("several kernels share one module, in definition order", function()
    local ptx = H.fresh()
    ptx.kernel { name = "one", body = function() ptx.ret() end }
    ptx.kernel { name = "two", body = function() ptx.exit() end }
    local text = ptx.ptx()
    local a, b = text:find(".entry one(", 1, true), text:find(".entry two(", 1, true)
    assert.truthy(a and b and a < b, text)
    assert.are.same({ "ret;", "exit;" }, H.insns(text))
  end)

  it("the highest .version any kernel asks for is the module's", function()
    local ptx = H.fresh()
    ptx.kernel { name = "one", body = function() end }
    ptx.kernel { name = "two", version = 8.3, body = function() end }
    ptx.kernel { name = "three", version = 8.1, body = function() end }
    assert.truthy(ptx.ptx():find("\n.version 8.3\n", 1, true))
  end)

  it("the PTX ISA version follows the newest instruction used", function()
    local text = H.body(function(ptx) local a = ptx.reg.u32(); ptx.redux.sync.add.u32(a, a, 0xffffffff) end, nil, { target = "sm_80" })
    assert.truthy(text:find("\n.version 7.0\n.target sm_80\n", 1, true), text)
    text = H.body(function(ptx) ptx.special "aggr_smem_size" end, nil, { target = "sm_90a" })
    assert.truthy(text:find("\n.version 8.1\n.target sm_90a\n", 1, true), text)
  end)
end)

describe("assembly", function()
  it("ptxas accepts every conversion between the integer and float types", function()
    local T = { "s8", "u8", "s16", "u16", "s32", "u32", "s64", "u64", "f16", "bf16", "f32", "f64" }
    local n = 0
    local text = H.body(function(ptx)
      for _, a in ipairs(T) do
        for _, b in ipairs(T) do
          if a ~= b then ptx.reg[a]():to(b); n = n + 1 end
        end
      end
    end)
    assert.are.equal(132, n)
    assert.are.equal(132, #H.insns(text))
    local ok, report = H.assemble(text, "sm_90a")
    if ok == nil then return end
    assert.is_true(ok, report)
  end)

  it("ptxas accepts a kernel using every operator and helper", function()
    local text = H.body(function(ptx, t, x, y, n)
      local px, py = ptx.global_ptrs(x, y)
      local count = n:load()
      local i = ptx.special("ctaid.x"):mad(ptx.special "ntid.x", ptx.special "tid.x")
      local done = ptx.label "done"
      ptx.at(i:ge(count)).bra(done)
      local off = i:mul_wide(4)
      local a, b = ptx.reg.f32(), ptx.reg.f32()
      ptx.ld.global.f32(a, ptx.addr(px + off))
      local c = (a * b + 1.5) / a - a:sqrt():abs():max(0.25):min(b)
      c = c:fma(a, ptx.f32(0.1))
      local s = i:to("s32")
      local s2 = (5 - s) * s % 7 / 3
      s2 = -s2:band(0xff):bor(s):bxor(1):bnot():shl(2):shr(1)
      local w = s2:to("f32")
      ptx.warp_reduce(w, "sum"); ptx.warp_reduce(w, "max")
      local h = c:to("f16"); local hb = c:to("bf16")
      local h2 = -(h * ptx.f16(1.5) + h - h):abs()
      local hb2 = -(hb * ptx.bf16(0.5) + hb)
      c = c + h2:to("f32") + hb2:to("f32")
      local d = c:to("f64"); d = d * 0.5 + d:sqrt()
      c = d:to("f32")
      local p = c:lt(a)
      c = p:select(c, a)
      ptx.if_(p:and_(i:lt(8)), function() ptx.st.global.f32(ptx.addr(py + off), c) end,
              function() ptx.st.global.f32(ptx.addr(py + off, 4), a) end)
      local acc = ptx.f32(0)
      ptx.range(0, count, 2, function(k) acc:set(acc + k:to("f32")) end)
      ptx.range(8, 0, -1, function(k) acc:set(acc - k:to("f32")) end)
      local tile = ptx.shared("tile", "f32", 32)
      ptx.st.shared.f32(ptx.addr(tile, 4), acc)
      ptx.bar.sync(0)
      ptx.st.global.f32(ptx.addr(py + off), acc)
      local q = ptx.reg.u64(); q:set(0xFFFFFFFFFFFFFFFFULL)
      ptx.st.global.u64(ptx.addr(px), q)
      ptx.place(done)
      ptx.ret()
    end, { { "x", "f32*" }, { "y", "f32*" }, { "n", "u32" } })
    local ok, report = H.assemble(text, "sm_90a")
    if ok == nil then return end
    assert.is_true(ok, report .. "\n" .. text)
  end)
end)

describe("names the DSL shares with PTX", function()
  it("ptx.cvt is the conversion helper with a type name, the cvt chain when indexed", function()
    assert.are.same({ "cvt.rn.f32.s32 %f1, %si1;", "cvt.rn.f32.s32 %f2, %si1;" }, lines(function(ptx)
      local i = ptx.reg.s32()
      ptx.cvt("f32", i)
      ptx.cvt.rn.f32.s32(ptx.reg.f32(), i)
    end))
  end)

  it("a named register that takes a pool's name is refused where it is named", function()
    fails("register name '%r' is reserved: the pool of unnamed .u32 registers is %r1, %r2", function(ptx)
      ptx.reg.u32 "r"
    end)
  end)
end)

describe("special registers beyond ptx.sreg's table", function()
  it("any register the ISA table knows, by name", function()
    assert.are.same({ "mov.b32 %b1, %envreg3;", "mov.u32 %r1, %globaltimer_lo;" }, lines(function(ptx)
      ptx.special "envreg3"
      ptx.mov.u32(ptx.reg.u32(), ptx.sreg.globaltimer_lo)
    end))
    fails("unknown special register '%nosuch'", function(ptx) ptx.special "nosuch" end)
  end)
end)

describe("ptx.check_templates and ptx.import", function()
  -- a script file (so that errors carry its lines), its ptx.kernel line marked
  local function script(text)
    local path = H.write(H.tmpfile(".lua"), text)
    local line = 0
    for l in (text .. "\n"):gmatch("([^\n]*)\n") do line = line + 1; if l:find("--<", 1, true) then break end end
    return path, line
  end
  local function run(path, defines)
    local ptx = H.fresh()
    local ok, err = pcall(dofile, path)
    if ok then ok, err = pcall(ptx.ptx, { defines = defines }) end
    return ok, err
  end

  it("checks each template against its rule, at the kernel's line, in name order", function()
    local path, line = script([[
local ptx = require "ptxlua"
local function plan(t)
  ptx.check_templates(t, {
    N = { min = 1, below = 2 ^ 30, why = "a row must be under 4 GiB" },
    BLOCK = { min = 32, max = 1024, multiple = 32 },
    VEC = { one_of = { 1, 2, 4 } },
    MODE = { one_of = { "fast", "exact" } },
    K = { min = 8, multiple = 8 },
    ON = { type = "boolean" },
  })
  return t
end
ptx.kernel { name = "k", templates = { N = 64, BLOCK = 128, VEC = 4, MODE = "fast", K = 16, ON = true }, --<
  grid = function(t) plan(t); return { 1 } end, block = { 32 },
  body = function(t) plan(t) end }
]])
    assert.is_true((run(path)))
    for _, c in ipairs {
      { { N = "0" }, "template N must be a whole number, at least 1 and below 1073741824: a row must be under 4 GiB (got 0)" },
      { { N = "1.5" }, "template N must be a whole number" },
      { { BLOCK = "48" }, "template BLOCK must be a multiple of 32 from 32 to 1024 (got 48)" },
      { { BLOCK = "2048" }, "template BLOCK must be a multiple of 32 from 32 to 1024 (got 2048)" },
      { { VEC = "3" }, "template VEC must be one of 1, 2, 4 (got 3)" },
      { { MODE = "slow" }, "template MODE must be one of \"fast\", \"exact\" (got \"slow\")" },
      { { K = "12" }, "template K must be a positive multiple of 8 (got 12)" },
      { { ON = "false", K = "4" }, "template K must be a positive multiple of 8 (got 4)" },   -- K before ON
    } do
      local ok, err = run(path, c[1])
      assert.is_false(ok)
      assert.truthy(err:find(path .. ":" .. line .. ": error: " .. c[2], 1, true), err)
    end
    -- the k:launch_dims path (grid evaluated outside a trace) reports at the same line
    local ptx = H.fresh()
    dofile(path)
    local ok, err = pcall(ptx.kernels()[1].launch_dims, ptx.kernels()[1], { VEC = 5 })
    assert.is_false(ok)
    assert.truthy(err:find(path .. ":" .. line .. ": error: template VEC must be one of 1, 2, 4 (got 5)", 1, true), err)
  end)

  it("refuses a spec it cannot read", function()
    fails("the rule of N has an unknown field 'minimum'", function(ptx, t) ptx.check_templates(t, { N = { minimum = 1 } }) end)
    fails("the rule of N must be a table", function(ptx, t) ptx.check_templates(t, { N = 1 }) end)
    fails("spec must be a table", function(ptx, t) ptx.check_templates(t) end)
  end)

  it("imports a module by a path relative to the calling script, once until ptx.reset", function()
    local dir = H.tmpdir() .. "/imp"
    assert(os.execute("mkdir -p " .. H.shq(dir .. "/lib")))
    H.write(dir .. "/lib/counter.lua", "COUNTER_LOADS = (COUNTER_LOADS or 0) + 1\nreturn { n = COUNTER_LOADS }\n")
    H.write(dir .. "/lib/broken.lua", "return {\n  x = = 1,\n}\n")
    local main = H.write(dir .. "/main.lua", [[
local ptx = require "ptxlua"
local a = ptx.import "lib/counter.lua"
local b = ptx.import "lib/counter.lua"
return a, b
]])
    COUNTER_LOADS = nil
    local ptx = H.fresh()
    local a, b = dofile(main)
    assert.are.equal(a, b)
    assert.are.equal(1, COUNTER_LOADS)
    ptx.reset()
    local c = dofile(main)
    assert.are.equal(2, COUNTER_LOADS)
    assert.are_not.equal(a, c)
    -- a missing module, at the import's line; a module's syntax error, at its own line
    local miss = H.write(dir .. "/miss.lua", 'local ptx = require "ptxlua"\n\nptx.import "lib/nosuch.lua"\n')
    local ok, err = pcall(dofile, miss)
    assert.is_false(ok)
    assert.truthy(err:find(miss .. ":3: error: ptx.import: cannot open 'lib/nosuch.lua' (" .. dir .. "/lib/nosuch.lua)", 1, true), err)
    local bad = H.write(dir .. "/bad.lua", 'local ptx = require "ptxlua"\nptx.import "lib/broken.lua"\n')
    ok, err = pcall(dofile, bad)
    assert.is_false(ok)
    assert.truthy(err:find(dir .. "/lib/broken.lua:2: ", 1, true), err)
    COUNTER_LOADS = nil
  end)
end)
