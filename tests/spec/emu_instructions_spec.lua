-- emu_instructions_spec.lua -- the emulator's results, one test per instruction family, against
-- hand-computed values: integer arithmetic, f32 and f64, f16 and bf16, conversions, comparison and
-- selection, movement and special registers.

local H = require "helper"
local rt = require "ptxlua.emu"

local dev = rt.device("emu")
local E = require "emu_common"
local T = E.on(dev)
local per_thread, one, run_error = T.per_thread, T.one, T.run_error
local INF, NAN = math.huge, 0 / 0
local THIS = debug.getinfo(1, "S").source:sub(2)

-- a line of this file, found by a marker comment on it
local function line_of(marker) return H.marker_line(THIS, marker) end

-- bits of a float register set exactly (mov.b32 from a hex immediate)
local function fbits(ptx, u)
  local r = ptx.reg.f32()
  ptx.mov.b32(r, ptx.hex(u))
  return r
end

describe("emulator: integer arithmetic", function()
  it("wraps add, sub, mul and mad; saturates add.sat; mul.hi and mul.wide", function()
    local r = one("u32", function(ptx)
      local a, b = ptx.u32(0xffffffff), ptx.u32(2)
      local s32a, s32b = ptx.s32(2147483647), ptx.s32(1)
      local m = ptx.reg.s32()
      ptx.add.sat.s32(m, s32a, s32b)
      local hi = ptx.reg.u32(); ptx.mul.hi.u32(hi, a, a)
      local shi = ptx.reg.s32(); ptx.mul.hi.s32(shi, ptx.s32(-3), ptx.s32(0x40000000))
      local md = ptx.reg.u32(); ptx.mad.lo.u32(md, a, b, ptx.u32(5))
      local sub = ptx.reg.u32(); ptx.sub.u32(sub, ptx.u32(1), b)
      return { a + b, a * b, m:as("u32"), hi, shi:as("u32"), md, sub }
    end)
    assert.are.same({ 1, 0xfffffffe, 2147483647, 0xfffffffe, 0xffffffff, 3, 0xffffffff }, r)
    local w = one("u64", function(ptx)
      local a = ptx.u32(0xffffffff)
      local s = ptx.s32(-2)
      local mw = ptx.reg.s64(); ptx.mul.wide.s32(mw, s, ptx.s32(3))
      local mad = ptx.reg.u64(); ptx.mad.wide.u32(mad, a, a, ptx.u64(1))
      return { a:mul_wide(a), mw:as("u64"), mad }
    end)
    assert.are.equal(0xfffffffe00000001, w[1])
    assert.are.equal(2 ^ 64 - 6, w[2])
    assert.are.equal(0xfffffffe00000002, w[3])
  end)

  it("divides and takes remainders with C semantics (truncation), and reports division by zero", function()
    local r = one("s32", function(ptx)
      local a, b = ptx.s32(-7), ptx.s32(2)
      local mn = ptx.s32(-2147483648)
      local q = ptx.reg.s32(); ptx.div.s32(q, mn, ptx.s32(-1))
      return { a / b, a % b, ptx.s32(7) / ptx.s32(-2), q, (ptx.u32(7) / ptx.u32(2)):as("s32") }
    end)
    assert.are.same({ -3, -1, -3, -2147483648, 3 }, r)
    local err = run_error({}, function(ptx)
      local z = ptx.special "tid.x"
      local q = ptx.u32(10) / z -- DIVZERO
    end)
    assert.truthy(err, "no error")
    assert.truthy(err:find(THIS .. ":" .. line_of("-- DIVZERO") .. ": error: div.u32: division by zero", 1, true), err)
  end)

  it("takes min, max, abs and neg with signedness and wrap-around", function()
    local r = one("s32", function(ptx)
      local a, b = ptx.s32(-5), ptx.s32(3)
      local ua, ub = ptx.u32(0xfffffffb), ptx.u32(3)
      local mn = ptx.s32(-2147483648)
      local rl = ptx.reg.s32(); ptx.max.relu.s32(rl, a, ptx.s32(-9))
      return { a:min(b), a:max(b), ua:min(ub):as("s32"), ua:max(ub):as("s32"), a:abs(), mn:abs(), -mn, rl }
    end)
    assert.are.same({ -5, 3, 3, -5, 5, -2147483648, -2147483648, 0 }, r)
  end)

  it("clamps shift amounts at the register width", function()
    local r = one("u32", function(ptx)
      local x = ptx.u32(0x80000001)
      local s = ptx.s32(-8)
      return { x:shl(1), x:shl(31), x:shl(32), x:shl(100), x:shr(31), x:shr(32), x:shr(0xffffffff),
               s:shr(1):as("u32"), s:shr(40):as("u32"), ptx.s32(8):shr(40):as("u32") }
    end)
    assert.are.same({ 2, 0x80000000, 0, 0, 1, 0, 0, 0xfffffffc, 0xffffffff, 0 }, r)
  end)

  it("does bit operations: and/or/xor/not/cnot, popc, clz, brev, bfe, bfi, bfind, prmt, lop3, shf", function()
    local r = one("u32", function(ptx)
      local a, b = ptx.u32(0xf0f0ff00), ptx.u32(0x0ff0f0f0)
      local function op(text, ...) local d = ptx.reg.u32(); ptx.op(text)(d, ...); return d end
      local bd = ptx.reg.b32(); ptx.mov.b32(bd, 0xf0f0ff00)
      local function opb(text, ...) local d = ptx.reg.b32(); ptx.op(text)(d, ...); return d:as("u32") end
      local sx = ptx.reg.s32(); ptx.bfe.s32(sx, ptx.s32(0x00000f00), 8, 4)
      return {
        a:band(b), a:bor(b), a:bxor(b), a:bnot(),
        opb("cnot.b32", bd), opb("cnot.b32", ptx.b32(0)),
        op("popc.b32", bd), op("clz.b32", ptx.b32(0x00010000)), op("clz.b32", ptx.b32(0)),
        opb("brev.b32", ptx.b32(1)),
        op("bfe.u32", a, 4, 8), sx:as("u32"), op("bfe.u32", a, 28, 8), op("bfe.u32", a, 8, 0),
        opb("bfi.b32", ptx.b32(0xab), ptx.b32(0xffffffff), 8, 8),
        op("bfind.u32", ptx.u32(0x00400000)), op("bfind.u32", ptx.u32(0)),
        op("bfind.shiftamt.u32", ptx.u32(0x00400000)), op("bfind.s32", ptx.s32(-1)), op("bfind.s32", ptx.s32(-2)),
        opb("prmt.b32", ptx.b32(0x33221100), ptx.b32(0x77665544), ptx.b32(0x5140)),
        opb("prmt.b32", ptx.b32(0x33221180), ptx.b32(0x77665544), ptx.b32(0x8888)),
        opb("lop3.b32", ptx.b32(0xf0), ptx.b32(0xcc), ptx.b32(0xaa), 0x96),
        opb("shf.l.wrap.b32", ptx.b32(0x80000000), ptx.b32(0x1), ptx.u32(33)),
        opb("shf.r.clamp.b32", ptx.b32(0x80000000), ptx.b32(0x1), ptx.u32(40)),
      }
    end)
    assert.are.same({
      0x00f0f000, 0xfff0fff0, 0xff000ff0, 0x0f0f00ff,
      0, 1,
      16, 15, 32,
      0x80000000,
      0xf0, 0xffffffff, 0xf, 0,
      0xffffabff,
      22, 0xffffffff,
      9, 0xffffffff, 0,
      0x55114400,   -- bytes 0,4,1,5 of b:a -> 0x00, 0x44, 0x11, 0x55
      0xffffffff,   -- 8 = sign of byte 0 (0x80)
      0x96,
      0x00000003,   -- (1:0x80000000) << 1, upper word
      0x00000001,   -- clamp: (1:0x80000000) >> 32 is the upper word
    }, r)
  end)
end)

-- d = a new register of type t; ptx.op(text)(d, ...)
local function op(ptx, t, text, ...)
  local d = ptx.reg[t]()
  ptx.op(text)(d, ...)
  return d
end
-- a 16-bit float register with these bits
local function hbits(ptx, t, u)
  local r = ptx.reg[t]()
  ptx.mov.b16(r, ptx.hex(u))
  return r
end
local function h2bits(ptx, t, u)
  local r = ptx.reg[t]()
  ptx.mov.b32(r, ptx.hex(u))
  return r
end

describe("emulator: packed 16-bit integers", function()
  it("adds add.u16x2 and add.s16x2 half by half, each half wrapping", function()
    local r = per_thread("u32", function(ptx, tid)
      local a, b = ptx.reg.b32(), ptx.reg.b32()
      ptx.add.u32(a, tid, ptx.u32(0xffff0001))  -- halves 0xffff and 1 + tid
      ptx.mov.b32(b, ptx.b32(0x8001ffff))       -- halves 0x8001 and 0xffff
      local u, s = ptx.reg.b32(), ptx.reg.b32()
      ptx.op "add.u16x2" (u, a, b)
      ptx.op "add.s16x2" (s, b, a)
      return { u, s }
    end, { target = "sm_90" })
    for i = 1, 32 do
      local want = 0x80000000 + (i - 1)         -- hi: 0xffff + 0x8001 wraps to 0x8000; lo: tid
      assert.are.same({ want, want }, r[i], "thread " .. (i - 1))
    end
  end)
end)

describe("emulator: f32 and f64", function()
  it("rounds add, fma, div and sqrt in each mode", function()
    local r = one("u32", function(ptx)
      local one_, eps = ptx.f32(1), fbits(ptx, 0x33C00000)           -- 1 and 0.75 ulp(1)
      local m1, meps = ptx.f32(-1), fbits(ptx, 0xB3C00000)
      local res = {}
      for _, m in ipairs { "rn", "rz", "rm", "rp" } do
        res[#res + 1] = op(ptx, "f32", "add." .. m .. ".f32", one_, eps):as("u32")
        res[#res + 1] = op(ptx, "f32", "add." .. m .. ".f32", m1, meps):as("u32")
      end
      local a = fbits(ptx, 0x3f800800)                                 -- 1 + 2^-12
      local c = fbits(ptx, 0xbf801000)                                 -- -(1 + 2^-11)
      res[#res + 1] = op(ptx, "f32", "fma.rn.f32", a, a, c):as("u32")  -- 2^-24 exactly
      res[#res + 1] = (a * a + c):as("u32")                            -- the product rounds: 0
      local three = ptx.f32(3)
      res[#res + 1] = op(ptx, "f32", "div.rn.f32", one_, three):as("u32")
      res[#res + 1] = op(ptx, "f32", "div.rz.f32", one_, three):as("u32")
      res[#res + 1] = op(ptx, "f32", "div.rp.f32", m1, three):as("u32")
      res[#res + 1] = op(ptx, "f32", "sqrt.rn.f32", ptx.f32(2)):as("u32")
      res[#res + 1] = op(ptx, "f32", "sqrt.rp.f32", ptx.f32(2)):as("u32")
      res[#res + 1] = op(ptx, "f32", "rcp.rn.f32", three):as("u32")
      return res
    end)
    assert.are.same({ 0x3f800001, 0xbf800001, 0x3f800000, 0xbf800000, 0x3f800000, 0xbf800001, 0x3f800001, 0xbf800000,
                      0x33800000, 0, 0x3eaaaaab, 0x3eaaaaaa, 0xbeaaaaaa, 0x3fb504f3, 0x3fb504f4, 0x3eaaaaab }, r)
  end)

  it("handles NaN, infinities, .sat and subnormals with and without .ftz", function()
    local r = one("u32", function(ptx)
      local inf, ninf = fbits(ptx, 0x7f800000), fbits(ptx, 0xff800000)
      local nan = fbits(ptx, 0x7fc00123)
      local den = fbits(ptx, 0x00000001)                               -- 2^-149
      local tiny = fbits(ptx, 0x00800000)                              -- 2^-126
      local zero, half, big = ptx.f32(0), ptx.f32(0.5), fbits(ptx, 0x7f7fffff)
      return {
        (inf + ninf):as("u32"), (nan + ptx.f32(1)):as("u32"), (big * big):as("u32"),
        op(ptx, "f32", "add.rz.f32", big, big):as("u32"),
        op(ptx, "f32", "add.sat.f32", ptx.f32(0.75), half):as("u32"),
        op(ptx, "f32", "mul.sat.f32", ptx.f32(-2), ptx.f32(3)):as("u32"),
        op(ptx, "f32", "add.sat.f32", nan, half):as("u32"),
        (den + zero):as("u32"), op(ptx, "f32", "add.ftz.f32", den, zero):as("u32"),
        (tiny * half):as("u32"), op(ptx, "f32", "mul.ftz.f32", tiny, half):as("u32"),
        op(ptx, "f32", "mul.ftz.f32", fbits(ptx, 0x80000001), ptx.f32(1)):as("u32"),
        (ptx.f32(1) / zero):as("u32"), (zero / zero):as("u32"),
      }
    end)
    assert.are.same({ 0x7fffffff, 0x7fffffff, 0x7f800000, 0x7f7fffff, 0x3f800000, 0, 0,
                      1, 0, 0x00400000, 0, 0x80000000, 0x7f800000, 0x7fffffff }, r)
  end)

  it("follows the PTX NaN rules of min and max", function()
    local r = one("u32", function(ptx)
      local nan, one_ = fbits(ptx, 0x7fc00000), ptx.f32(1)
      local pz, nz = ptx.f32(0), fbits(ptx, 0x80000000)
      return { nan:min(one_):as("u32"), one_:max(nan):as("u32"), nan:min(nan):as("u32"),
               op(ptx, "f32", "min.NaN.f32", nan, one_):as("u32"), op(ptx, "f32", "max.NaN.f32", one_, one_):as("u32"),
               nz:min(pz):as("u32"), pz:min(nz):as("u32"), nz:max(pz):as("u32"),
               op(ptx, "f32", "min.xorsign.abs.f32", ptx.f32(-3), ptx.f32(2)):as("u32") }
    end)
    assert.are.same({ 0x3f800000, 0x3f800000, 0x7fffffff, 0x7fffffff, 0x3f800000, 0x80000000, 0x80000000, 0,
                      0xc0000000 }, r)
  end)

  it("rounds f64 in each mode", function()
    local r = one("u64", function(ptx)
      local one_ = ptx.f64(1)
      local eps = ptx.f64(1.5 * 2 ^ -53)
      local three = ptx.f64(3)
      return { op(ptx, "f64", "add.rn.f64", one_, eps):as("u64"), op(ptx, "f64", "add.rz.f64", one_, eps):as("u64"),
               op(ptx, "f64", "add.rp.f64", one_, eps):as("u64"), op(ptx, "f64", "div.rn.f64", one_, three):as("u64"),
               op(ptx, "f64", "div.rm.f64", one_, three):as("u64"), op(ptx, "f64", "div.rp.f64", one_, three):as("u64"),
               op(ptx, "f64", "fma.rn.f64", ptx.f64(2), three, ptx.f64(0.5)):as("u64") }
    end)
    assert.are.same({ 0x3ff0000000000001, 0x3ff0000000000000, 0x3ff0000000000001, 0x3fd5555555555555,
                      0x3fd5555555555555, 0x3fd5555555555556, 0x401a000000000000 }, r)
  end)

  it("computes the approximate functions within their PTX bounds, with their special values", function()
    local r = one("f32", function(ptx)
      local function f(text, x) return op(ptx, "f32", text, x) end
      return { f("ex2.approx.f32", ptx.f32(1)), f("ex2.approx.f32", ptx.f32(-0.5)), f("lg2.approx.f32", ptx.f32(8)),
               f("rsqrt.approx.f32", ptx.f32(4)), f("sin.approx.f32", ptx.f32(0.5)), f("cos.approx.f32", ptx.f32(0.5)),
               f("tanh.approx.f32", ptx.f32(0.5)), f("rcp.approx.f32", ptx.f32(3)), f("sqrt.approx.f32", ptx.f32(2)),
               f("ex2.approx.f32", fbits(ptx, 0xff800000)), f("lg2.approx.f32", ptx.f32(0)),
               f("rsqrt.approx.f32", fbits(ptx, 0x80000000)), f("sqrt.approx.f32", ptx.f32(-1)),
               f("ex2.approx.f32", ptx.f32(-130)), f("ex2.approx.ftz.f32", ptx.f32(-130)),
               op(ptx, "f32", "div.approx.f32", ptx.f32(1), ptx.f32(3)), op(ptx, "f32", "div.full.f32", ptx.f32(1), ptx.f32(3)),
               op(ptx, "f32", "div.approx.f32", ptx.f32(1), fbits(ptx, 0x7f000000)) }
    end)
    local want = { 2, 2 ^ -0.5, 3, 0.5, math.sin(0.5), math.cos(0.5), 0.46211715726000974, 1 / 3, math.sqrt(2) }
    for i, v in ipairs(want) do assert.is_true(math.abs(r[i] - v) <= 2 ^ -22 * math.abs(v), "value " .. i) end
    assert.are.equal(0, r[10]); assert.are.equal(-INF, r[11]); assert.are.equal(-INF, r[12])
    assert.is_true(r[13] ~= r[13])
    assert.are.equal(2 ^ -130, r[14]); assert.are.equal(0, r[15])
    assert.is_true(math.abs(r[16] - 1 / 3) < 1e-7 and math.abs(r[17] - 1 / 3) < 1e-7)
    assert.are.equal(0, r[18])                                          -- div.approx: 2^126 < |b| gives 0
  end)
end)

describe("emulator: f16 and bf16", function()
  it("adds, multiplies and fmas scalars and packed pairs, rounding to nearest even", function()
    local r = one("u32", function(ptx)
      local function h(u) return hbits(ptx, "f16", u) end
      local function b(u) return hbits(ptx, "bf16", u) end
      local res = {}
      local function put16(t, text, ...) local d = op(ptx, t, text, ...); local u = ptx.reg.u16(); ptx.mov.b16(u, d); res[#res + 1] = u:to("u32") end
      put16("f16", "add.f16", h(0x3c00), h(0x1000))      -- 1 + 2^-11: a tie, stays 1
      put16("f16", "add.rn.f16", h(0x3c00), h(0x1400))   -- 1 + 2^-10
      put16("f16", "mul.f16", h(0x7bff), h(0x4000))      -- 65504 * 2 -> inf
      put16("f16", "fma.rn.f16", h(0x3c01), h(0x3c01), h(0xbc02))   -- (1+u)^2 - (1+2u) = u^2 = 2^-20, subnormal
      put16("f16", "neg.f16", h(0x3c00))
      put16("bf16", "add.rn.bf16", b(0x3f80), b(0x3b80))  -- 1 + 2^-8: a tie, stays 1
      put16("bf16", "fma.rn.bf16", b(0x4040), b(0x4040), b(0xbf80))  -- 3*3-1 = 8
      put16("bf16", "abs.bf16", b(0xc000))
      put16("f16", "min.f16", h(0x7e00), h(0x3c00))
      put16("f16", "max.NaN.f16", h(0x7e00), h(0x3c00))
      local x2 = op(ptx, "f16x2", "mul.rn.f16x2", h2bits(ptx, "f16x2", 0x42004000), h2bits(ptx, "f16x2", 0xbc003800))
      res[#res + 1] = x2:as("u32")                         -- {2, 3} * {0.5, -1} = {1, -3}
      local y2 = op(ptx, "bf16x2", "add.rn.bf16x2", h2bits(ptx, "bf16x2", 0x3f804000), h2bits(ptx, "bf16x2", 0x3f80bf80))
      res[#res + 1] = y2:as("u32")                         -- {2, 1} + {-1, 1} = {1, 2}
      return res
    end)
    assert.are.same({ 0x3c00, 0x3c01, 0x7c00, 0x0010, 0xbc00, 0x3f80, 0x4100, 0x4000, 0x3c00, 0x7fff,
                      0xc2003c00, 0x40003f80 }, r)
  end)

  it("converts between f32, f16 and bf16 in each rounding mode, packing x2 with a in the upper half", function()
    local r = one("u32", function(ptx)
      local third = ptx.f32(1 / 3)
      local res = {}
      local function c(t, text, x) local d = op(ptx, t, text, x); local u = ptx.reg.u16(); ptx.mov.b16(u, d); res[#res + 1] = u:to("u32") end
      c("f16", "cvt.rn.f16.f32", third); c("f16", "cvt.rz.f16.f32", third); c("f16", "cvt.rp.f16.f32", third)
      c("f16", "cvt.rn.f16.f32", ptx.f32(65520)); c("f16", "cvt.rz.f16.f32", ptx.f32(1e6))
      c("f16", "cvt.rn.f16.f32", fbits(ptx, 0x33000000))   -- 2^-25: half the smallest subnormal, a tie -> 0
      c("f16", "cvt.rn.f16.f32", fbits(ptx, 0x33000001))   -- just above: the smallest subnormal
      c("bf16", "cvt.rn.bf16.f32", fbits(ptx, 0x3f808000)) -- 1 + 2^-8: a tie, even: 1
      c("bf16", "cvt.rn.bf16.f32", fbits(ptx, 0x3f818000)) -- 1 + 3*2^-8: a tie, even: 1 + 2^-6
      c("bf16", "cvt.rn.satfinite.bf16.f32", fbits(ptx, 0x7f800000))
      c("bf16", "cvt.rn.relu.bf16.f32", ptx.f32(-5))
      res[#res + 1] = op(ptx, "bf16x2", "cvt.rn.bf16x2.f32", ptx.f32(1), ptx.f32(-2)):as("u32")
      res[#res + 1] = op(ptx, "f16x2", "cvt.rn.f16x2.f32", ptx.f32(1), ptx.f32(2)):as("u32")
      res[#res + 1] = op(ptx, "f32", "cvt.f32.f16", hbits(ptx, "f16", 0x0001)):as("u32")
      res[#res + 1] = op(ptx, "f32", "cvt.f32.bf16", hbits(ptx, "bf16", 0xbf80)):as("u32")
      return res
    end)
    assert.are.same({ 0x3555, 0x3555, 0x3556, 0x7c00, 0x7bff, 0x0000, 0x0001, 0x3f80, 0x3f82, 0x7f7f, 0x0000,
                      0x3f80c000, 0x3c004000, 0x33800000, 0xbf800000 }, r)
  end)
end)

describe("emulator: conversions", function()
  it("rounds floats to integers in each mode and saturates, NaN to 0", function()
    local r = one("s32", function(ptx)
      local function c(text, x) return op(ptx, "s32", text, x) end
      return { c("cvt.rni.s32.f32", ptx.f32(2.5)), c("cvt.rni.s32.f32", ptx.f32(3.5)), c("cvt.rni.s32.f32", ptx.f32(-2.5)),
               c("cvt.rzi.s32.f32", ptx.f32(-2.7)), c("cvt.rmi.s32.f32", ptx.f32(-2.2)), c("cvt.rpi.s32.f32", ptx.f32(2.2)),
               c("cvt.rzi.s32.f32", fbits(ptx, 0x7fc00000)), c("cvt.rzi.s32.f32", ptx.f32(3e9)), c("cvt.rzi.s32.f32", ptx.f32(-3e9)),
               op(ptx, "u32", "cvt.rzi.u32.f32", ptx.f32(-1)):as("s32"), c("cvt.rni.s32.f64", ptx.f64(-1e300)) }
    end)
    assert.are.same({ 2, 4, -2, -2, -3, 3, 0, 2147483647, -2147483648, 0, -2147483648 }, r)
  end)

  it("rounds integers to floats, narrows and widens integers with and without .sat", function()
    local r = one("u32", function(ptx)
      local big = ptx.s32(16777217)
      local u8 = ptx.reg.u32(); ptx.mov.u32(u8, 0x80)
      local s8 = ptx.reg.s8(); ptx.op "cvt.s8.u32" (s8, u8)
      return { op(ptx, "f32", "cvt.rn.f32.s32", big):as("u32"), op(ptx, "f32", "cvt.rp.f32.s32", big):as("u32"),
               op(ptx, "f32", "cvt.rz.f32.u64", ptx.u64(0xffffffffffffffffULL)):as("u32"),
               op(ptx, "f32", "cvt.rn.f32.s64", ptx.s64(-3)):as("u32"),
               op(ptx, "u8", "cvt.sat.u8.s32", ptx.s32(300)):to("u32"), op(ptx, "u8", "cvt.sat.u8.s32", ptx.s32(-5)):to("u32"),
               op(ptx, "s8", "cvt.s8.s32", ptx.s32(300)):to("s32"):as("u32"), s8:to("s32"):as("u32"),
               op(ptx, "f32", "cvt.rn.f32.f64", ptx.f64(1 / 3)):as("u32"), op(ptx, "f32", "cvt.rz.f32.f64", ptx.f64(1 / 3)):as("u32"),
               op(ptx, "f32", "cvt.rni.f32.f32", ptx.f32(2.5)):as("u32"), op(ptx, "f32", "cvt.rzi.f32.f32", ptx.f32(-2.7)):as("u32"),
               op(ptx, "f32", "cvt.ftz.f32.f32", fbits(ptx, 0x00000005)):as("u32") }
    end)
    assert.are.same({ 0x4b800000, 0x4b800001, 0x5f7fffff, 0xc0400000, 255, 0, 44, 0xffffff80,
                      0x3eaaaaab, 0x3eaaaaaa, 0x40000000, 0xc0000000, 0 }, r)
    local w = one("u64", function(ptx)
      return { op(ptx, "u64", "cvt.u64.s32", ptx.s32(-1)), op(ptx, "s64", "cvt.s64.u32", ptx.u32(0xffffffff)):as("u64") }
    end)
    assert.are.same({ 2 ^ 64 - 1, 0xffffffff }, w)
  end)
end)

describe("emulator: comparison and selection", function()
  it("compares with every operator, unordered ones true on NaN, and combines predicates", function()
    local r = one("u32", function(ptx)
      local nan, one_, two = fbits(ptx, 0x7fc00000), ptx.f32(1), ptx.f32(2)
      local res = {}
      local function b(p) res[#res + 1] = p:select(ptx.u32(1), ptx.u32(0)) end
      for _, c in ipairs { "eq", "ne", "lt", "le", "gt", "ge", "equ", "neu", "ltu", "leu", "gtu", "geu", "num", "nan" } do
        b(op(ptx, "pred", "setp." .. c .. ".f32", nan, one_))
      end
      for _, c in ipairs { "lt", "le", "gt", "ge", "eq", "ne" } do b(op(ptx, "pred", "setp." .. c .. ".f32", one_, two)) end
      local u, s = ptx.u32(0xffffffff), ptx.s32(-1)
      b(op(ptx, "pred", "setp.hi.u32", u, ptx.u32(1))); b(op(ptx, "pred", "setp.lt.s32", s, ptx.s32(1)))
      b(op(ptx, "pred", "setp.ls.u32", u, ptx.u32(1)))
      local q = ptx.pred()
      ptx.setp.lt.s32(q, s, ptx.s32(0))                                  -- q = true
      local p1, p2 = ptx.pred(), ptx.pred()
      ptx.setp.gt["and"].s32(ptx.pair(p1, p2), s, ptx.s32(0), q:inv())  -- p = (-1 > 0) & !q, q' = !(-1 > 0) & !q
      b(p1); b(p2)
      local p3, p4 = ptx.pred(), ptx.pred()
      ptx.setp.gt["or"].s32(ptx.pair(p3, p4), s, ptx.s32(0), q)
      b(p3); b(p4)
      res[#res + 1] = op(ptx, "u32", "set.lt.u32.s32", s, ptx.s32(0))
      res[#res + 1] = op(ptx, "f32", "set.gt.f32.f32", two, one_):as("u32")
      res[#res + 1] = op(ptx, "u32", "selp.u32", ptx.u32(7), ptx.u32(9), q)
      return res
    end)
    assert.are.same({ 0, 0, 0, 0, 0, 0, 1, 1, 1, 1, 1, 1, 0, 1,
                      1, 1, 0, 0, 0, 1,
                      1, 1, 0,
                      0, 0, 1, 1,
                      0xffffffff, 0x3f800000, 7 }, r)
  end)
end)

describe("emulator: movement and special registers", function()
  it("packs and unpacks with mov, and reads tid, ntid, ctaid, nctaid, laneid, warpid and lanemasks", function()
    local r = one("u32", function(ptx)
      local a, b = ptx.reg.b16(), ptx.reg.b16()
      ptx.mov.b16(a, 0x1111); ptx.mov.b16(b, 0x2222)
      local p = ptx.reg.b32(); ptx.mov.b32(p, { a, b })
      local w = ptx.reg.b64(); ptx.mov.b64(w, ptx.hex(0x1234567890abcdefULL))
      local lo, hi = ptx.reg.b32(), ptx.reg.b32()
      ptx.mov.b64({ lo, hi }, w)
      return { p:as("u32"), lo:as("u32"), hi:as("u32") }
    end)
    assert.are.same({ 0x22221111, 0x90abcdef, 0x12345678 }, r)
    local ptx = H.fresh()
    local k = ptx.kernel { name = "k", params = { { "out", "u32*" } }, body = function(_, out)
      local po = ptx.global_ptrs(out)
      local names = { "tid.x", "tid.y", "ntid.x", "ntid.y", "ctaid.x", "ctaid.y", "nctaid.x", "nctaid.y", "laneid",
                      "warpid", "nwarpid", "lanemask_lt", "lanemask_ge" }
      -- linear thread id in the grid: ((ctaid.y * nctaid.x + ctaid.x) * 64 + tid.y * 16 + tid.x)
      local tx, ty, cx, cy = ptx.special "tid.x", ptx.special "tid.y", ptx.special "ctaid.x", ptx.special "ctaid.y"
      local lin = ((cy * 2 + cx) * 64 + ty * 16 + tx) * #names
      local base = po + lin:mul_wide(4)
      for j, n in ipairs(names) do ptx.st.global.u32(ptx.addr(base, (j - 1) * 4), ptx.special(n)) end
    end }
    local out = dev:array("u32", 2 * 3 * 64 * 13):poison()
    rt.launch(k, { device = dev, args = { out }, grid = { 2, 3 }, block = { 16, 4 } })
    local v = out:read()
    local function at(cx, cy, tx, ty) local b = ((cy * 2 + cx) * 64 + ty * 16 + tx) * 13; return { unpack(v, b + 1, b + 13) } end
    local lane = (2 * 16 + 5) % 32
    assert.are.same({ 5, 2, 16, 4, 1, 2, 2, 3, lane, 1, 2, 2 ^ lane - 1, 2 ^ 32 - 2 ^ lane }, at(1, 2, 5, 2))
    assert.are.same({ 0, 0, 16, 4, 0, 0, 2, 3, 0, 0, 2, 0, 0xffffffff }, at(0, 0, 0, 0))
  end)
end)
