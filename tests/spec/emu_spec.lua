-- emu_spec.lua -- the emulator: one test per instruction family against hand-computed results,
-- warp and block behaviour, the checks (OOB, misalignment, deadlock, races, uninitialized reads),
-- and kernels/vector_add.lua at small and odd sizes against a Lua reference.
local H = require "helper"
local rt = require "ptxlua.emu"

local dev = rt.device("emu")
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

local STORE = { f32 = "f32", f64 = "f64", u32 = "u32", s32 = "s32", u64 = "u64", s64 = "s64", b32 = "b32",
                f16 = "b16", bf16 = "b16", u16 = "u16", s16 = "s16", b16 = "b16", u8 = "u8", b64 = "b64" }

-- run fn(ptx, tid) in `threads` threads (one CTA, 32 by default); every value fn returns (a
-- register, or a list of registers) is stored per thread; returns the list of value lists (1-based
-- per thread) as numbers of type t
local function per_thread(t, fn, opts)
  opts = opts or {}
  local threads = opts.threads or 32
  local ptx = H.fresh()
  local nout
  local k = ptx.kernel { name = "k", target = opts.target, params = { { "out", t .. "*" } }, body = function(_, out)
    local p = ptx.global_ptrs(out)
    local tid = ptx.special "tid.x"
    local vs = fn(ptx, tid)
    if ptx.isreg(vs) then vs = { vs } end
    nout = #vs
    local sz = rt.sizes[t]
    local base = p + tid:mul_wide(sz * #vs)
    for j, v in ipairs(vs) do ptx.st.global[STORE[t]](ptx.addr(base, (j - 1) * sz), v) end
  end }
  -- trace once to learn how many values a thread stores
  k:trace {}
  local out = dev:array(t, threads * nout):poison()
  local st = rt.launch(k, { device = dev, args = { out }, grid = { 1 }, block = { threads }, checks = opts.checks,
                            trace = opts.trace })
  local all = out:read()
  local res = {}
  for i = 1, threads do
    res[i] = {}
    for j = 1, nout do res[i][j] = all[(i - 1) * nout + j] end
  end
  out:free()
  return res, st
end

-- one thread's values
local function one(t, fn, opts)
  opts = opts or {}
  opts.threads = 1
  return per_thread(t, fn, opts)[1]
end

-- the error a kernel body raises when run (nil when it runs)
local function run_error(params, body, launch)
  local ptx = H.fresh()
  local k = ptx.kernel { name = "k", params = params or {}, body = function(...) body(ptx, ...) end }
  launch = launch or {}
  launch.device = dev
  launch.grid = launch.grid or { 1 }
  launch.block = launch.block or { 32 }
  local ok, err = pcall(rt.launch, k, launch)
  if ok then return nil end
  return err
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

describe("emulator: divergence and reconvergence", function()
  it("runs both sides of a branch and reconverges after if/else and after loops of lane-dependent length", function()
    local r = per_thread("u32", function(ptx, tid)
      local x = ptx.u32(0)
      local inside = ptx.reg.b32()
      ptx.if_(tid:lt(10), function()
        ptx.add.u32(x, x, 1)
        ptx.activemask.b32(inside)
      end, function()
        ptx.add.u32(x, x, 100)
      end)
      local after = ptx.reg.b32(); ptx.activemask.b32(after)
      local acc = ptx.u32(0)
      ptx.range(ptx.u32(0), tid + 1, 1, function(i) ptx.add.u32(acc, acc, i) end)
      local after2 = ptx.reg.b32(); ptx.activemask.b32(after2)
      return { x, after:as("u32"), acc, after2:as("u32"), tid:lt(10):select(inside:as("u32"), ptx.u32(0)) }
    end)
    for l = 0, 31 do
      assert.are.same({ l < 10 and 1 or 100, 0xffffffff, l * (l + 1) / 2, 0xffffffff, l < 10 and 0x3ff or 0 }, r[l + 1])
    end
  end)
end)

describe("emulator: warp-level instructions", function()
  it("shuffles up, down, butterfly and by index, with sub-warp segments and clamps", function()
    local r = per_thread("u32", function(ptx, tid)
      local v = tid * 10 + 1
      local function sh(mode, b, c) local d = ptx.reg.u32(); ptx.op("shfl.sync." .. mode .. ".b32")(d, v, b, c, 0xffffffff); return d end
      return { sh("up", 1, 0), sh("down", 1, 31), sh("bfly", 1, 31), sh("idx", 5, 31), sh("idx", 2, 0x181f),
               sh("down", 1, 0x181f), sh("up", 3, 0x1800), sh("bfly", 16, 31), sh("idx", 37, 31) }
    end)
    for l = 0, 31 do
      local seg = l - l % 8
      local function v(j) return j * 10 + 1 end
      assert.are.same({ v(l >= 1 and l - 1 or l), v(l < 31 and l + 1 or l), v(bit.bxor(l, 1)), v(5), v(seg + 2),
                        v(l % 8 < 7 and l + 1 or l), v(l % 8 >= 3 and l - 3 or l), v(bit.bxor(l, 16)), v(5) }, r[l + 1],
                        "lane " .. l)
    end
  end)

  it("votes, ballots, reduces and matches across the warp", function()
    local r = per_thread("u32", function(ptx, tid)
      local function vote(mode, p) local q = ptx.pred(); ptx.op("vote.sync." .. mode .. ".pred")(q, p, 0xffffffff); return q:select(ptx.u32(1), ptx.u32(0)) end
      local bal = ptx.reg.b32(); ptx.vote.sync.ballot.b32(bal, tid:band(1):eq(0), 0xffffffff)
      local sum = ptx.reg.u32(); ptx.redux.sync.add.u32(sum, tid, 0xffffffff)
      local mn = ptx.reg.s32(); ptx.redux.sync.min.s32(mn, ptx.s32(0) - tid:as("s32"), 0xffffffff)
      local ma = ptx.reg.b32(); ptx.match.any.sync.b32(ma, tid:shr(3):as("b32"), 0xffffffff)
      local mall = ptx.reg.b32(); ptx.match.all.sync.b32(mall, ptx.b32(5), 0xffffffff)
      return { vote("all", tid:lt(40)), vote("any", tid:eq(3)), vote("uni", tid:lt(16)), vote("all", tid:lt(16):inv()),
               bal:as("u32"), sum, mn:as("u32"), ma:as("u32"), mall:as("u32") }
    end)
    for l = 0, 31 do
      assert.are.same({ 1, 1, 0, 0, 0x55555555, 496, 2 ^ 32 - 31, 0xff * 2 ^ (8 * math.floor(l / 8)), 0xffffffff }, r[l + 1])
    end
  end)

  it("reports a shuffle whose membermask names lanes that are elsewhere", function()
    local err = run_error({}, function(ptx)
      local tid = ptx.special "tid.x"
      local d = ptx.reg.u32()
      ptx.if_(tid:lt(16), function()
        ptx.shfl.sync.bfly.b32(d, tid, 1, 31, 0xffffffff) -- SHFLMASK
      end)
    end)
    assert.truthy(err and err:find(THIS .. ":" .. line_of("-- SHFLMASK") .. ": error: shfl.sync.bfly.b32", 1, true), err)
    assert.truthy(err:find("did not execute this instruction", 1, true), err)
  end)
end)

describe("emulator: barriers", function()
  -- every thread writes s[tid], then reads s[(tid + 32) % n] (another warp's element)
  local function exchange(ptx, with_barrier)
    local tid = ptx.special "tid.x"
    local s = ptx.reg.u32(); ptx.mov.u32(s, ptx.shared("s", "u32", 128))
    ptx.st.shared.u32(ptx.addr(tid:mad(4, s)), tid) -- XCHG_ST
    if with_barrier then ptx.bar.sync(0) end
    local j = (tid + 32):band(127)
    local v = ptx.reg.u32()
    ptx.ld.shared.u32(v, ptx.addr(j:mad(4, s))) -- XCHG_LD
    return v
  end

  it("synchronizes the warps of a CTA at bar.sync, with no race reported", function()
    local r = per_thread("u32", function(ptx) return exchange(ptx, true) end,
                         { threads = 128, checks = { races = true, uninit_shared = true } })
    for t = 0, 127 do assert.are.equal((t + 32) % 128, r[t + 1][1]) end
  end)

  it("reports the race of a missing bar.sync (opt-in) and the read of never-written shared memory", function()
    local err = run_error({}, function(ptx) exchange(ptx, false) end, { block = { 128 }, checks = { races = true } })
    assert.truthy(err and err:find(THIS .. ":" .. line_of("-- XCHG_ST") .. ": error: shared-memory race", 1, true), err)
    err = run_error({}, function(ptx) exchange(ptx, false) end, { block = { 128 }, checks = { uninit_shared = true } })
    assert.truthy(err and err:find(THIS .. ":" .. line_of("-- XCHG_LD") .. ": error: ld.shared.u32 by thread (0,0,0)", 1, true), err)
    assert.truthy(err:find("which no thread has written", 1, true), err)
  end)

  it("reports a deadlock when threads exited while others wait, and an aligned barrier in divergent code", function()
    local err = run_error({}, function(ptx)
      local tid = ptx.special "tid.x"
      ptx.at(tid:ge(32)).ret()
      ptx.bar.sync(0) -- DEADLOCK
    end, { block = { 64 } })
    assert.truthy(err and err:find(THIS .. ":" .. line_of("-- DEADLOCK") .. ": error: deadlock in CTA (0,0,0): bar.sync", 1, true), err)
    assert.truthy(err:find("waits on barrier 0 for 64 threads, 32 arrived; warp 1: 32 threads exited", 1, true), err)
    err = run_error({}, function(ptx)
      local tid = ptx.special "tid.x"
      ptx.if_(tid:lt(16), function()
        ptx.bar.sync(0) -- HALFWARP
      end)
    end, { block = { 64 } })
    assert.truthy(err and err:find(THIS .. ":" .. line_of("-- HALFWARP") .. ": error: bar.sync", 1, true), err)
    assert.truthy(err:find("part of a warp", 1, true), err)
    err = run_error({}, function(ptx)
      local tid = ptx.special "tid.x"
      ptx.if_(tid:lt(32), function() ptx.bar.sync(1, 64) end, function()
        ptx.bar.sync(1, 96) -- COUNTS
      end)
    end, { block = { 64 } })
    assert.truthy(err and err:find(THIS .. ":" .. line_of("-- COUNTS") .. ": error: bar.sync", 1, true), err)
    assert.truthy(err:find("expects 96 threads here but 64", 1, true), err)
  end)

  it("reduces across the CTA with bar.red and pairs producers with consumers through named barriers", function()
    local r = per_thread("u32", function(ptx, tid)
      local c = ptx.reg.u32()
      ptx.bar.red.popc.u32(c, 0, tid:band(3):eq(0))
      local all, any = ptx.pred(), ptx.pred()
      ptx.bar.red["and"].pred(all, 1, tid:lt(1000))
      ptx.bar.red["or"].pred(any, 2, tid:eq(70))
      -- warp 0 produces into shared memory, warp 1 consumes: bar.arrive / bar.sync on barrier 3 (64 threads)
      local s = ptx.reg.u32(); ptx.mov.u32(s, ptx.shared("buf", "u32", 32))
      local got = ptx.u32(0)
      local lane = tid:band(31)
      ptx.if_(tid:lt(32), function()
        ptx.st.shared.u32(ptx.addr(lane:mad(4, s)), lane * 7)
        ptx.bar.arrive(3, 64)
      end, function()
        ptx.if_(tid:lt(64), function()
          ptx.bar.sync(3, 64)
          ptx.ld.shared.u32(got, ptx.addr(lane:mad(4, s)))
        end)
      end)
      return { c, all:select(ptx.u32(1), ptx.u32(0)), any:select(ptx.u32(1), ptx.u32(0)), got }
    end, { threads = 96 })
    for t = 0, 95 do
      assert.are.same({ 24, 1, 1, (t >= 32 and t < 64) and (t % 32) * 7 or 0 }, r[t + 1])
    end
  end)
end)

describe("emulator: memory", function()
  it("loads and stores vectors in global, shared (static and dynamic), local and param space, and through generic addresses", function()
    local ptx = H.fresh()
    local k = ptx.kernel { name = "k", params = { { "x", "f32*" }, { "out", "f32*" }, { "scale", "f32" } }, body = function(_, x, out, scale)
      local px, po = ptx.global_ptrs(x, out)
      local tid = ptx.special "tid.x"
      local v = ptx.regs.f32(4)
      ptx.ld.global.v4.f32(v, ptx.addr(px + tid:mul_wide(16)))           -- 4 floats a thread
      -- static shared: a v2 round trip
      local s = ptx.reg.u32(); ptx.mov.u32(s, ptx.shared("st", "f32", 64, 16))
      ptx.st.shared.v2.f32(ptx.addr(tid:mad(8, s)), { v[1], v[2] })
      -- dynamic shared, through a generic address (cvta)
      local dyn = ptx.shared_dynamic("dyn")
      local g = ptx.reg.u64(); ptx.cvta.shared.u64(g, dyn)
      local ga = g + tid:mul_wide(8)
      ptx.st.v2.f32(ptx.addr(ga), { v[3], v[4] })
      -- local memory
      ptx._current().mod:var("local", "tmp", "f32", 4, 2)
      ptx.st["local"].f32(ptx.addr(ptx.sym "tmp", 4), v[1])
      local w = ptx.regs.f32(4)
      ptx.ld.shared.v2.f32({ w[1], w[2] }, ptx.addr(tid:mad(8, s)))
      local back = ptx.reg.u64(); ptx.cvta.to.shared.u64(back, ga)
      ptx.ld.shared.v2.f32({ w[3], w[4] }, ptx.addr(back:to("u32"):as("u32")))
      local l = ptx.reg.f32(); ptx.ld["local"].f32(l, ptx.addr(ptx.sym "tmp", 4))
      local sc = scale:load()
      for j = 1, 4 do ptx.mul.rn.f32(w[j], w[j], sc) end
      ptx.st.global.v4.f32(ptx.addr(po + tid:mul_wide(32)), w)
      ptx.st.global.f32(ptx.addr(po + tid:mul_wide(32), 16), l)
    end }
    local n = 8
    local x = dev:array("f32", 4 * n, function(i) return i end, "x")
    local out = dev:array("f32", 8 * n, nil, "out"):poison()
    rt.launch(k, { device = dev, args = { x, out, 0.5 }, grid = { 1 }, block = { n }, smem = 8 * n })
    local o = out:read()
    for t = 0, n - 1 do
      for j = 1, 4 do assert.are.equal((4 * t + j) * 0.5, o[8 * t + j]) end
      assert.are.equal(4 * t + 1, o[8 * t + 5])
    end
  end)

  it("gives a launch without smem the kernel's own `smem` field as dynamic shared memory", function()
    local ptx = H.fresh()
    local k = ptx.kernel { name = "dynfield", templates = { N = 16 }, smem = function(t) return 4 * t.N end,
      params = { { "out", "f32*" } }, block = function(t) return { t.N } end, grid = { 1 },
      body = function(_, out)
        local po = ptx.global_ptrs(out)
        local tid = ptx.special "tid.x"
        local s = ptx.reg.u32(); ptx.mov.u32(s, ptx.shared_dynamic("dynf"))
        local v = ptx.reg.f32(); ptx.cvt.rn.f32.u32(v, tid)
        ptx.st.shared.f32(ptx.addr(tid:mad(4, s)), v)
        ptx.bar.sync(0)
        local r = ptx.reg.f32(); ptx.ld.shared.f32(r, ptx.addr((tid:bxor(1)):mad(4, s)))
        ptx.st.global.f32(ptx.addr(po + tid:mul_wide(4)), r)
      end }
    for _, n in ipairs { 16, 64 } do
      local out = dev:array("f32", n, nil, "out"):poison()
      rt.launch(k, { device = dev, args = { out }, defines = { N = n } })
      local o = out:read()
      for t = 0, n - 1 do assert.are.equal(bit.bxor(t, 1), o[t + 1]) end
      out:free()
    end
  end)

  it("reads module .const data from its initializer and refuses writes to it", function()
    local r = one("f32", function(ptx)
      ptx._current().mod:var("const", "ctab", "f32", 4, 4, "{1.5, 2.5, 0f40600000, -4}", "", true)
      local a, b = ptx.reg.f32(), ptx.reg.f32()
      ptx.ld.const.f32(a, ptx.addr(ptx.sym "ctab", 8))
      local p = ptx.reg.u64(); ptx.mov.u64(p, ptx.sym "ctab")
      ptx.ld.const.f32(b, ptx.addr(p, 12))
      return { a, b }
    end)
    assert.are.same({ 3.5, -4 }, r)
    local err = run_error({}, function(ptx)
      ptx._current().mod:var("const", "cw", "u32", 4, 1, nil, "", true)
      local p = ptx.reg.u64(); ptx.mov.u64(p, ptx.sym "cw")       -- .const data lives in the global window
      ptx.st.global.u32(ptx.addr(p), ptx.u32(1)) -- CONSTWRITE
    end, { block = { 1 } })
    assert.truthy(err and err:find(THIS .. ":" .. line_of("-- CONSTWRITE") .. ": error: write to constant memory by st.global.u32", 1, true), err)
  end)

  it("reports out-of-bounds and misaligned accesses at the instruction's line", function()
    local x = dev:array("f32", 4, nil, "xs")
    local err = run_error({ { "x", "f32*" } }, function(ptx, _, xp)
      local p = ptx.global_ptrs(xp)
      local v = ptx.reg.f32()
      ptx.ld.global.f32(v, ptx.addr(p + ptx.special("tid.x"):mul_wide(4))) -- OOB
    end, { args = { x } })
    assert.truthy(err and err:find(THIS .. ":" .. line_of("-- OOB") .. ": error: out-of-bounds ld.global.f32 by thread (4,0,0) of CTA (0,0,0)", 1, true), err)
    assert.truthy(err:find("is just past the end of buffer 'xs' (16 bytes", 1, true), err)
    err = run_error({ { "x", "f32*" } }, function(ptx, _, xp)
      local p = ptx.global_ptrs(xp)
      local v = ptx.reg.f32()
      ptx.ld.global.f32(v, ptx.addr(p, 2)) -- MISALIGNED
    end, { args = { x } })
    assert.truthy(err and err:find(THIS .. ":" .. line_of("-- MISALIGNED") .. ": error: misaligned ld.global.f32", 1, true), err)
    err = run_error({}, function(ptx)
      local s = ptx.reg.u32(); ptx.mov.u32(s, ptx.shared("sm", "f32", 8))
      ptx.st.shared.f32(ptx.addr(s, 32), ptx.f32(1)) -- SHOOB
    end)
    assert.truthy(err and err:find(THIS .. ":" .. line_of("-- SHOOB") .. ": error: out-of-bounds st.shared.f32", 1, true), err)
    x:free()
  end)

  it("applies atomics and reductions in a deterministic order", function()
    local ptx = H.fresh()
    local k = ptx.kernel { name = "k", params = { { "cnt", "u32*" }, { "out", "u32*" } }, body = function(_, cnt, out)
      local pc, po = ptx.global_ptrs(cnt, out)
      local tid = ptx.special "tid.x"
      local old, inc, cas, mx, ex = ptx.reg.u32(), ptx.reg.u32(), ptx.reg.u32(), ptx.reg.u32(), ptx.reg.u32()
      ptx.atom.global.add.u32(old, ptx.addr(pc), 1)
      ptx.atom.global.inc.u32(inc, ptx.addr(pc, 4), 2)
      ptx.atom.global.cas.b32(cas, ptx.addr(pc, 8), tid, tid + 1)        -- a chain: only tid == value succeeds
      ptx.atom.global.max.u32(mx, ptx.addr(pc, 12), tid)
      ptx.atom.global.exch.b32(ex, ptx.addr(pc, 16), tid)
      ptx.red.global.add.u32(ptx.addr(pc, 20), tid)
      -- shared: a float sum and a counter
      local s = ptx.reg.u32(); ptx.mov.u32(s, ptx.shared("acc", "f32", 2))
      local fo = ptx.reg.f32(); ptx.atom.shared.add.f32(fo, ptx.addr(s), ptx.f32(0.5))
      ptx.bar.sync(0)
      local tot = ptx.reg.f32(); ptx.ld.shared.f32(tot, ptx.addr(s))
      local base = po + tid:mul_wide(24)
      for j, v in ipairs { old, inc, cas, mx, ex, tot:as("u32") } do ptx.st.global.u32(ptx.addr(base, (j - 1) * 4), v) end
    end }
    local cnt = dev:array("u32", 6, 0)
    local out = dev:array("u32", 64 * 6):poison()
    rt.launch(k, { device = dev, args = { cnt, out }, grid = { 1 }, block = { 64 }, checks = { races = true } })
    local o, c = out:read(), cnt:read()
    for t = 0, 63 do
      local r = { unpack(o, 6 * t + 1, 6 * t + 6) }
      assert.are.same({ t, t % 3, t, t == 0 and 0 or t - 1, t == 0 and 0 or t - 1, 0x42000000 }, r, "thread " .. t)
    end
    assert.are.same({ 64, 64 % 3, 64, 63, 63, 2016 }, c)
  end)

  it("copies with cp.async at wait_group, filling the rest of a short copy with zeros", function()
    local r = per_thread("u32", function(ptx, tid)
      local s = ptx.reg.u32(); ptx.mov.u32(s, ptx.shared("buf", "u32", 32 * 4, 16))
      local src = ptx.reg.u64(); ptx.mov.u64(src, ptx.sym "table")
      ptx._current().mod:var("global", "table", "u32", 16, 128, "{" .. table.concat((function()
        local t = {} for i = 1, 128 do t[i] = tostring(i * 3) end return t end)(), ", ") .. "}", "", true)
      local dst = tid:mad(16, s)
      local from = src + tid:mul_wide(16)
      ptx.cp.async.ca.shared.global(ptx.addr(dst), ptx.addr(from), 16, tid:band(1):eq(0):select(ptx.u32(16), ptx.u32(8)))
      ptx.cp.async.commit_group()
      ptx.cp.async.wait_group(0)
      local v = ptx.regs.u32(4)
      ptx.ld.shared.v4.u32(v, ptx.addr(dst))
      return v
    end)
    for t = 0, 31 do
      local full = t % 2 == 0
      assert.are.same({ (4 * t + 1) * 3, (4 * t + 2) * 3, full and (4 * t + 3) * 3 or 0, full and (4 * t + 4) * 3 or 0 }, r[t + 1])
    end
    -- a read before the wait sees memory the copy has not written yet
    local err = run_error({ { "x", "u32*" } }, function(ptx, _, xp)
      local p = ptx.global_ptrs(xp)
      local s = ptx.reg.u32(); ptx.mov.u32(s, ptx.shared("buf", "u32", 4, 16))
      ptx.cp.async.cg.shared.global(ptx.addr(s), ptx.addr(p), 16)
      ptx.cp.async.commit_group()
      local v = ptx.reg.u32()
      ptx.ld.shared.u32(v, ptx.addr(s)) -- EARLY
      ptx.cp.async.wait_all()
    end, { block = { 1 }, args = { dev:array("u32", 4, 7) }, checks = { uninit_shared = true } })
    assert.truthy(err and err:find(THIS .. ":" .. line_of("-- EARLY") .. ": error: ld.shared.u32", 1, true), err)
  end)
end)

describe("emulator: tensor cores", function()
  -- A 16x16, B 16x8 (k x n), C 16x8: small integers, so every product and sum is exact
  local function Aval(i, k) return (i + 2 * k) % 5 - 2 end
  local function Bval(k, n) return (3 * k + n) % 7 - 3 end
  local function Cval(i, n) return i - n end

  for _, variant in ipairs { "bf16", "f16" } do
    it("multiplies m16n8k16 ." .. variant .. " fragments loaded by ldmatrix (.x4 for A, .x2 and .x2.trans for B)", function()
      local ptx = H.fresh()
      local k = ptx.kernel { name = "k", params = { { "a", variant .. "*" }, { "bt", variant .. "*" }, { "b", variant .. "*" },
                                                    { "c", "f32*" }, { "d", "f32*" } }, body = function(_, a, bt, b, c, d)
        local pa, pbt, pb, pc, pd = ptx.global_ptrs(a, bt, b, c, d)
        local lane = ptx.special "tid.x"
        local sA = ptx.reg.u32(); ptx.mov.u32(sA, ptx.shared("sA", "b16", 256, 128))
        local sBt = ptx.reg.u32(); ptx.mov.u32(sBt, ptx.shared("sBt", "b16", 128, 128))
        local sB = ptx.reg.u32(); ptx.mov.u32(sB, ptx.shared("sB", "b16", 128, 128))
        -- stage: 16 bytes a thread for A (512 bytes), half the warp each for Bt and B (256 bytes)
        ptx.cp.async.cg.shared.global(ptx.addr(lane:mad(16, sA)), ptx.addr(pa + lane:mul_wide(16)), 16)
        local half = lane:band(15)
        local isbt = lane:lt(16)
        local dbt, dB, gbt, gB = half:mad(16, sBt), half:mad(16, sB), pbt + half:mul_wide(16), pb + half:mul_wide(16)
        ptx.at(isbt).cp.async.cg.shared.global(ptx.addr(dbt), ptx.addr(gbt), 16)   -- the guard takes the next instruction
        ptx.at_not(isbt).cp.async.cg.shared.global(ptx.addr(dB), ptx.addr(gB), 16)
        ptx.cp.async.wait_all()
        ptx.bar.sync(0)
        -- A: matrix i = lane / 8 holds rows (i % 2) * 8 .. +7, columns (i / 2) * 8 .. +7
        local i, r = lane:shr(3), lane:band(7)
        local arow = i:band(1) * 8 + r
        local aaddr = sA + arow * 32 + i:shr(1) * 16
        local af = ptx.regs.b32(4)
        ptx.ldmatrix.sync.aligned.m8n8.x4.shared.b16(af, ptx.addr(aaddr))
        -- B from Bt (n rows of k): matrix j = (lane / 8) % 2 holds k = 8j .. 8j+7
        local j = i:band(1)
        local bf = ptx.regs.b32(2)
        ptx.ldmatrix.sync.aligned.m8n8.x2.shared.b16(bf, ptx.addr(sBt + r * 32 + j * 16))
        -- the same B from row-major k x n, transposed on the way
        local bf2 = ptx.regs.b32(2)
        ptx.ldmatrix.sync.aligned.m8n8.x2.trans.shared.b16(bf2, ptx.addr(sB + (j * 8 + r) * 16))
        -- C fragment: c0, c1 at row g, columns 2t, 2t+1; c2, c3 at row g + 8
        local g, t = lane:shr(2), lane:band(3)
        local cf, df, df2 = ptx.regs.f32(4), ptx.regs.f32(4), ptx.regs.f32(4)
        local crow0 = pc + (g * 8 + t * 2):mul_wide(4)
        ptx.ld.global.v2.f32({ cf[1], cf[2] }, ptx.addr(crow0))
        ptx.ld.global.v2.f32({ cf[3], cf[4] }, ptx.addr(crow0, 8 * 8 * 4))
        local mma = ptx.op("mma.sync.aligned.m16n8k16.row.col.f32." .. variant .. "." .. variant .. ".f32")
        mma(df, af, bf, cf)
        mma(df2, af, bf2, cf)
        local drow0 = pd + (g * 8 + t * 2):mul_wide(4)
        ptx.st.global.v2.f32(ptx.addr(drow0), { df[1], df[2] })
        ptx.st.global.v2.f32(ptx.addr(drow0, 8 * 8 * 4), { df[3], df[4] })
        ptx.st.global.v2.f32(ptx.addr(drow0, 16 * 8 * 4), { df2[1], df2[2] })
        ptx.st.global.v2.f32(ptx.addr(drow0, 24 * 8 * 4), { df2[3], df2[4] })
      end }
      local A, Bt, B, C = {}, {}, {}, {}
      for i = 0, 15 do for kk = 0, 15 do A[i * 16 + kk + 1] = Aval(i, kk) end end
      for n = 0, 7 do for kk = 0, 15 do Bt[n * 16 + kk + 1] = Bval(kk, n) end end
      for kk = 0, 15 do for n = 0, 7 do B[kk * 8 + n + 1] = Bval(kk, n) end end
      for i = 0, 15 do for n = 0, 7 do C[i * 8 + n + 1] = Cval(i, n) end end
      local a, bt, b = dev:array(variant, 256, A), dev:array(variant, 128, Bt), dev:array(variant, 128, B)
      local c, d = dev:array("f32", 128, C), dev:array("f32", 256):poison()
      rt.launch(k, { device = dev, args = { a, bt, b, c, d }, grid = { 1 }, block = { 32 } })
      local o = d:read()
      for i = 0, 15 do
        for n = 0, 7 do
          local s = Cval(i, n)
          for kk = 0, 15 do s = s + Aval(i, kk) * Bval(kk, n) end
          assert.are.equal(s, o[i * 8 + n + 1], string.format("D[%d][%d]", i, n))
          assert.are.equal(s, o[128 + i * 8 + n + 1], string.format("D[%d][%d] (trans)", i, n))
        end
      end
    end)
  end

  it("needs the whole warp for ldmatrix and mma", function()
    local err = run_error({}, function(ptx)
      local s = ptx.reg.u32(); ptx.mov.u32(s, ptx.shared("m", "b16", 64, 16))
      local f = ptx.regs.b32(1)
      ptx.ldmatrix.sync.aligned.m8n8.x1.shared.b16(f, ptx.addr(s)) -- PARTIAL
    end, { block = { 16 } })
    assert.truthy(err and err:find(THIS .. ":" .. line_of("-- PARTIAL") .. ": error: ldmatrix", 1, true), err)
    assert.truthy(err:find("needs all 32 threads", 1, true), err)
  end)
end)

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

describe("emulator: what it refuses and how it helps", function()
  it("stops at an instruction it does not emulate, with the line", function()
    local err = run_error({}, function(ptx)
      local d = ptx.reg.b32()
      ptx.op "fns.b32" (d, ptx.b32(1), ptx.u32(1), ptx.s32(1)) -- FNS
    end)
    assert.are.equal(THIS .. ":" .. line_of("-- FNS") .. ": error: fns.b32 is not emulated", err)
    err = run_error({}, function(ptx)
      local a, b = ptx.reg.b128(), ptx.reg.b128()
      ptx.mov.b128(a, b) -- B128
    end)
    assert.are.equal(THIS .. ":" .. line_of("-- B128") .. ": error: mov.b128 is not emulated (128-bit types)", err)
  end)

  it("reports reads of never-written registers (opt-in) and stops runaway loops at a limit", function()
    local err = run_error({}, function(ptx)
      local r = ptx.reg.u32()
      local s = r + 1 -- UNINIT
    end, { checks = { uninit_regs = true } })
    assert.truthy(err and err:find(THIS .. ":" .. line_of("-- UNINIT") .. ": error: add.u32: reads %r", 1, true), err)
    assert.truthy(err:find("which no instruction has written (thread (0,0,0) of CTA (0,0,0))", 1, true), err)
    err = run_error({}, function(ptx)
      local L = ptx.label "top"
      ptx.place(L)
      ptx.bra(L) -- FOREVER
    end, { limit = 1000 })
    assert.truthy(err and err:find(THIS .. ":" .. line_of("-- FOREVER") .. ": error: the instruction limit", 1, true), err)
  end)

  it("traces the instructions one thread executes, with the values it writes", function()
    local _, st = per_thread("f32", function(ptx, tid)
      local x = tid:to("f32")
      return x * ptx.f32(0.5)
    end, { threads = 8, trace = { cta = 0, thread = 5 } })
    assert.truthy(st.trace:find("cvt.rn.f32.u32  %f1 = 5 (0x40a00000)", 1, true), st.trace)
    assert.truthy(st.trace:find("mul.rn.f32  %f3 = 2.5 (0x40200000)", 1, true), st.trace)
  end)

  it("steps a warp: one line per warp instruction with its lanes and every lane's values", function()
    local _, st = per_thread("u32", function(ptx, tid)
      local r = ptx.u32(0)
      ptx.if_(tid:lt(2), function()
        ptx.add.u32(r, r, tid) -- INBRANCH
      end)
      return r
    end, { threads = 4, trace = { cta = 0, warp = 0 } })
    assert.truthy(st.trace:find("[warp 0, lanes 0x0000000f] " .. THIS, 1, true), st.trace)
    assert.truthy(st.trace:find("bra  (guard true in lanes 0x0000000c)", 1, true), st.trace)
    assert.truthy(st.trace:find("[warp 0, lanes 0x00000003] " .. THIS .. ":" .. line_of("-- INBRANCH") .. ": add.u32  %r", 1, true), st.trace)
    assert.truthy(st.trace:find(" = {0, 1, _, _}", 1, true), st.trace)
  end)

  it("keeps the trace of a run that failed", function()
    local tr = { cta = 0, thread = 0 }
    local err = run_error({}, function(ptx)
      local q = ptx.u32(7) / ptx.special "tid.x"
    end, { block = { 1 }, trace = tr })
    assert.truthy(err and err:find("division by zero", 1, true), err)
    assert.truthy(tr.text:find("mov.u32  %r1 = 7 (0x7)", 1, true), tr.text)
  end)
end)

describe("emulator: kernels/vector_add.lua", function()
  local ptx = H.fresh()
  dofile(H.root .. "/kernels/vector_add.lua")
  local k = ptx.kernels()[1]

  for _, n in ipairs { 1, 37, 1000 } do
    for _, block in ipairs { 256, 32 } do
      it(string.format("adds n = %d with blocks of %d, every element checked", n, block), function()
        local x = dev:array("f32", n, function(i) return i * 0.25 - 3 end, "x")
        local y = dev:array("f32", n, function(i) return 1 / i end, "y")
        local out = dev:array("f32", n, nil, "out"):poison()
        rt.launch(k, { device = dev, args = { x, y, out, n }, defines = { N = n, BLOCK = block } })
        -- the reference: the double sum of the two f32 inputs (exact at these magnitudes), rounded
        -- to f32 once by writing it into an f32 array
        local xs, ys, o = x:read(), y:read(), out:read()
        local sums = {}
        for i = 1, n do sums[i] = xs[i] + ys[i] end
        local ref = dev:array("f32", n, sums)
        local want = ref:read()
        for i = 1, n do assert.are.equal(want[i], o[i], "element " .. i) end
        x:free(); y:free(); out:free(); ref:free()
      end)
    end
  end

  it("catches an off-by-one bounds check with the line of the load", function()
    local p2 = H.fresh()
    local bad = p2.kernel { name = "vector_add_bad", templates = { N = 37, BLOCK = 32 },
      params = { { "x", "f32*" }, { "y", "f32*" }, { "out", "f32*" }, { "n", "u32" } },
      block = function(t) return { t.BLOCK } end, grid = function(t) return { math.ceil(t.N / t.BLOCK) } end,
      body = function(t, x, y, out, n)
        local px, py, po = p2.global_ptrs(x, y, out)
        local i = p2.special("ctaid.x"):mad(p2.special "ntid.x", p2.special "tid.x")
        local L = p2.label "done"
        p2.at(i:gt(n:load())).bra(L)                      -- should be ge
        local off = i:mul_wide(4)
        local a, b = p2.reg.f32(), p2.reg.f32()
        p2.ld.global.f32(a, p2.addr(px + off)) -- OFFBYONE
        p2.ld.global.f32(b, p2.addr(py + off))
        p2.st.global.f32(p2.addr(po + off), a + b)
        p2.place(L)
        p2.ret()
      end }
    local n = 37
    local x, y, out = dev:array("f32", n, 1, "x"), dev:array("f32", n, 2, "y"), dev:array("f32", n, nil, "out")
    local ok, err = pcall(rt.launch, bad, { device = dev, args = { x, y, out, n } })
    assert.is_false(ok)
    assert.truthy(err:find(THIS .. ":" .. line_of("-- OFFBYONE") .. ": error: out-of-bounds ld.global.f32 by thread (5,0,0) of CTA (1,0,0)", 1, true), err)
    assert.truthy(err:find("just past the end of buffer 'x' (148 bytes", 1, true), err)
  end)

  it("summarizes a run on generated inputs (the --emulate command)", function()
    local text = rt.emulate(k, { defines = { N = 1000 } })
    assert.truthy(text:find("emulated vector_add: grid (4,1,1) block (256,1,1)", 1, true), text)
    assert.truthy(text:find("x        f32[1000]  unchanged", 1, true), text)
    assert.truthy(text:find("out      f32[1000]  written: min", 1, true), text)
  end)
end)

describe("emulator: kernels/rmsnorm.lua", function()
  it("matches a double-precision reference at small and uneven sizes, with every check on", function()
    local ptx = H.fresh()
    dofile(H.root .. "/kernels/rmsnorm.lua")
    local k
    for _, kk in ipairs(ptx.kernels()) do if kk.name == "rmsnorm" then k = kk end end
    local names = {}
    for i, p in ipairs(k and k.params or {}) do names[i] = p[1] end
    if not k or table.concat(names, ",") ~= "x,w,y,eps" then
      return H.pending("kernels/rmsnorm.lua changed its interface (params: " .. table.concat(names, ",") .. ")")
    end
    for _, c in ipairs { { 3, 37 }, { 2, 1000 }, { 1, 4096 }, { 5, 1 }, { 2, 6 }, { 1, 70001 } } do
      local B, N = c[1], c[2]
      local x = dev:array("f32", B * N, function(i) return math.sin(i * 0.7) * 3 end, "x")
      local w = dev:array("f32", N, function(i) return 1 + (i % 5) * 0.125 end, "w")
      local y = dev:array("f32", B * N, nil, "y"):poison()
      local eps = 1e-5
      rt.launch(k, { device = dev, args = { x, w, y, eps }, defines = { B = B, N = N },
                     checks = { races = true, uninit_shared = true, uninit_regs = true } })
      local xs, ws, ys = x:read(), w:read(), y:read()
      local e32 = dev:array("f32", 1, { eps }):read()[1]            -- the f32 parameter's value
      for b = 0, B - 1 do
        local ss = 0
        for j = 1, N do ss = ss + xs[b * N + j] ^ 2 end
        local r = 1 / math.sqrt(ss / N + e32)
        for j = 1, N do
          local ref = xs[b * N + j] * r * ws[j]
          local got = ys[b * N + j]
          assert(math.abs(got - ref) <= 1e-6 * math.abs(ref) + 1e-30,
                 string.format("B=%d N=%d: y[%d][%d] = %.9g, reference %.9g", B, N, b, j - 1, got, ref))
        end
      end
      x:free(); w:free(); y:free()
    end
  end)
end)
