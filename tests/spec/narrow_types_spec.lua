-- narrow_types_spec.lua -- arrays of the types tensor cores read (e4m3, e5m2, e2m3, e3m2, e2m1,
-- ue8m0, ue4m3): every code point decodes and encodes back to itself; every halfway case between
-- two neighbours goes to the even code and the doubles next to it to the nearer neighbour; the
-- overflow rules (e5m2 to infinity from the IEEE midpoint, the others saturate); the packing of the
-- sub-byte types; the emulator's own e4m3 / e5m2 rounding (core.fp_bits) agrees in range.
local DT = require "ptxlua.dtypes"
local rt = require "ptxlua.emu"
local core = require "ptxlua.core"
local ffi = require "ffi"

local NAMES = { "e4m3", "e5m2", "e2m3", "e3m2", "e2m1", "ue8m0", "ue4m3" }
local box = ffi.new("union { double d; uint64_t u; }")
local function is_negative(x) box.d = x; return box.u >= 0x8000000000000000ULL end
-- the doubles next to x (x > 0)
local function up(x) return x + x * 2 ^ -52 end
local function down(x) return x - x * 2 ^ -53 end

-- the facts of each format, stated independently of the codec: largest value, smallest nonzero
local FACTS = {
  e4m3 = { max = 448, min = 2 ^ -9, codes = 256 }, e5m2 = { max = 57344, min = 2 ^ -16, codes = 256 },
  e2m3 = { max = 7.5, min = 0.125, codes = 64 }, e3m2 = { max = 28, min = 0.0625, codes = 64 },
  e2m1 = { max = 6, min = 0.5, codes = 16 }, ue8m0 = { max = 2 ^ 127, min = 2 ^ -127, codes = 256 },
  ue4m3 = { max = 448, min = 2 ^ -9, codes = 128 },
}

describe("narrow floating-point types", function()
  for _, name in ipairs(NAMES) do
    local f = DT.mini[name]
    it(name .. ": every code point round trips (NaN codes to the NaN of their sign)", function()
      local n = 0
      for c = 0, 2 ^ f.bits - 1 do
        local v = DT.decode(name, c)
        local back = DT.encode(name, v)
        if v ~= v then
          assert.are.equal(f.nancode + (is_negative(v) and f.signbit or 0), back, name .. " NaN code " .. c)
        else
          assert.are.equal(c, back, ("%s code %d (%.17g)"):format(name, c, v))
        end
        n = n + 1
      end
      assert.are.equal(FACTS[name].codes, n)
    end)

    it(name .. ": its range (largest, smallest nonzero) as the format defines it", function()
      assert.are.equal(FACTS[name].max, f.max)
      assert.are.equal(FACTS[name].min, f.vals[1] ~= 0 and f.vals[1] or f.vals[2])
    end)

    it(name .. ": every halfway case goes to the even code, the doubles beside it to the nearer value", function()
      local vals, codes, cases = f.vals, f.codes, 0
      for i = 1, #vals - 1 do
        local a, b = vals[i], vals[i + 1]
        local m = (a + b) / 2
        assert.is_true(m > a and m < b)
        local even = codes[i] % 2 == 0 and codes[i] or codes[i + 1]
        for _, s in ipairs(f.signed and { 1, -1 } or { 1 }) do
          local sb = s < 0 and f.signbit or 0
          assert.are.equal(even + sb, DT.encode(name, s * m), ("%s halfway %.17g"):format(name, s * m))
          assert.are.equal(codes[i + 1] + sb, DT.encode(name, s * up(m)))
          assert.are.equal(codes[i] + sb, DT.encode(name, s * down(m)))
          assert.are.equal(codes[i] + sb, DT.encode(name, s * a))
          cases = cases + 1
        end
      end
      assert.is_true(cases >= #vals - 1)
    end)

    it(name .. ": beyond the largest value " .. (f.inf and "rounds to infinity from the IEEE midpoint" or "saturates"), function()
      local top = f.codes[#f.codes]
      if f.inf then
        local lim = 61440                            -- 57344 + half its ulp (8192)
        assert.are.equal(top, DT.encode(name, down(lim)))
        assert.are.equal(f.infcode, DT.encode(name, lim))
        assert.are.equal(f.infcode, DT.encode(name, math.huge))
        assert.are.equal(f.infcode + f.signbit, DT.encode(name, -math.huge))
      else
        assert.are.equal(top, DT.encode(name, f.max * 2))
        assert.are.equal(top, DT.encode(name, math.huge))
        if f.signed then assert.are.equal(top + f.signbit, DT.encode(name, -math.huge)) end
      end
      if not f.nancode then assert.is_nil((DT.encode(name, 0 / 0))) end
      if not f.signed then
        assert.is_nil((DT.encode(name, -1)))
        if not f.nosub then assert.are.equal(0, DT.encode(name, -0.0)) end
      end
    end)
  end

  it("e4m3 and e5m2 agree with the emulator's rounding (core.fp_bits) at 20,000 values in range", function()
    local s = 12345
    for _ = 1, 10000 do
      s = s * 16807 % 2147483647
      local x = (s / 2147483647 * 2 - 1) * 2 ^ ((s % 40) - 20)
      if math.abs(x) < 448 then assert.are.equal(core.fp_bits(x, "e4m3"), DT.encode("e4m3", x), x) end
      if math.abs(x) < 57344 then assert.are.equal(core.fp_bits(x, "e5m2"), DT.encode("e5m2", x), x) end
    end
  end)

  it("ue8m0: powers of two exact, ties between 2^k and 2^(k+1) to the even exponent code, no zero", function()
    assert.are.equal(127, DT.encode("ue8m0", 1))
    assert.are.equal(128, DT.encode("ue8m0", 3))         -- 3 = halfway 2 .. 4: code 128 (2) is even
    assert.are.equal(130, DT.encode("ue8m0", 12))        -- halfway 8 .. 16: 130 (8)
    assert.are.equal(0, DT.encode("ue8m0", 2 ^ -140))    -- saturates at the smallest
    assert.are.equal(255, DT.encode("ue8m0", 0 / 0))
    assert.is_nil((DT.encode("ue8m0", 0)))
  end)
end)

describe("narrow arrays", function()
  local dev = rt.device("emu")
  for _, name in ipairs(NAMES) do
    it(name .. ": values written and read back through the packed storage, one element at a time too", function()
      local f = DT.mini[name]
      local n = 37
      local vals = {}
      for i = 1, n do
        local j = (i * 7) % #f.vals + 1
        vals[i] = f.vals[j] * ((f.signed and i % 3 == 0) and -1 or 1)
      end
      local a = dev:array(name, n, vals)
      assert.are.equal(math.ceil(n * f.bits / 8), a.nbytes)
      assert.are.same(vals, a:read())
      a:set(6, f.vals[2])
      a:set(7, f.max)
      vals[6], vals[7] = f.vals[2], f.max
      assert.are.same(vals, a:read())
      assert.are.equal(f.max, a:get(7))
      assert.are.same({ vals[5], vals[6], vals[7] }, a:read(5, 3))
      a:free()
    end)
  end

  it("e2m1 packs element 0 in the low nibble; e3m2 four elements in three bytes, bit stream order", function()
    local a = dev:array("e2m1", 2, { 0.5, 6 })         -- codes 1 and 7
    assert.are.equal(string.char(0x71), a:bytes():sub(1, 1))
    local b = dev:array("e3m2", 4, { 0.0625, 0, 0, 28 })  -- codes 1, 0, 0, 31: bits 0 and 18..22
    local s = b:bytes()
    assert.are.equal(0x01, s:byte(1))
    assert.are.equal(0x00, s:byte(2))
    assert.are.equal(0x7C, s:byte(3))
  end)

  it("refuses a value the type cannot hold, at the caller's line, naming it", function()
    local ok, err = pcall(function() dev:array("e2m1", 3, { 1, 0 / 0 }) end)
    assert.is_false(ok)
    assert.matches("narrow_types_spec.lua:%d+: error: e2m1 array: value 2: e2m1 has no NaN", err)
    ok, err = pcall(function() dev:array("ue4m3", 3, { 1, -2 }) end)
    assert.matches("ue4m3 array: value 2: ue4m3 holds no negative values %(got %-2%)", err)
  end)
end)
