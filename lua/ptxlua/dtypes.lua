-- dtypes.lua -- the element types of device arrays and shared-memory tiles: sizes and kinds read
-- from the C core's type table (core.types, src/base/types.h), not typed again here.
local core = require "ptxlua.core"

local C = core.types()
local D = {}
local fmt = string.format

-- bytes of an element of each PTX type a tile or a parameter may hold (sub-byte types have none)
D.bytes = {}
for name, t in pairs(C) do
  if t.bits >= 8 then D.bytes[name] = t.bits / 8 end
end

-- the element types of device arrays (the emulator's and CUDA's dev:array): bytes each, and which of
-- them hold floating-point values (a host number converts to each exactly, or rounds once)
D.array, D.float = {}, {}
for _, name in ipairs { "b8", "u8", "s8", "b16", "u16", "s16", "f16", "bf16", "b32", "u32", "s32", "f32",
                        "b64", "u64", "s64", "f64" } do
  D.array[name] = D.bytes[name]
  if C[name].class == "f" then D.float[name] = true end
end

---------------------------------------------------------------------------------------------------
-- the narrow floating-point types tensor cores read (OCP MX formats and NVIDIA's scale types):
-- arrays of them hold codes; a Lua number converts to the nearest code (ties to the even code),
-- one rounding from the exact value; a code converts back exactly (docs/runtime.md, "Narrow
-- floating-point arrays"). Overflow: e5m2 has infinities and rounds as IEEE 754 does (to +-inf
-- from the midpoint between its largest value and 2^16 on); every other type saturates to its
-- largest value (PTX's cvt .satfinite, OCP's saturating conversion), infinities included. NaN:
-- the type's NaN of the same sign (e4m3 S.1111.111, e5m2 S.11111.10, ue8m0 0xFF, ue4m3 0x7F);
-- e2m3, e3m2 and e2m1 have none (a NaN is an error), ue8m0 and ue4m3 have no sign (a negative
-- value is an error) and ue8m0 no zero (0 is an error; below 2^-127 saturates to it).
-- Storage: the 8-bit types one a byte; e2m1 two a byte (element 0 in the low nibble); e2m3 and
-- e3m2 four in three bytes (element i at bits 6i .. 6i+5 of the little-endian bit stream).
---------------------------------------------------------------------------------------------------
local MINI = {
  e4m3 = { e = 4, m = 3, bias = 7, signed = true, nan = "top" },
  e5m2 = { e = 5, m = 2, bias = 15, signed = true, inf = true, nan = "ieee" },
  e2m3 = { e = 2, m = 3, bias = 1, signed = true },
  e3m2 = { e = 3, m = 2, bias = 3, signed = true },
  e2m1 = { e = 2, m = 1, bias = 1, signed = true },
  ue8m0 = { e = 8, m = 0, bias = 127, nan = "top", nosub = true },
  ue4m3 = { e = 4, m = 3, bias = 7, nan = "top" },
}
D.mini = MINI
local ffi = require "ffi"
local NANBOX = ffi.new("union { double d; uint64_t u; }")
local function nan_sign(x) NANBOX.d = x; return NANBOX.u >= 0x8000000000000000ULL end
local function signed_nan(neg)
  NANBOX.u = neg and 0xFFF8000000000000ULL or 0x7FF8000000000000ULL
  return NANBOX.d
end
-- the code tables of format f, made on first use (a script that holds no narrow array pays nothing)
local function build(f)
  local emax = 2 ^ f.e - 1
  -- the magnitude of code c (sign bit clear), or nil for a NaN or infinity code
  local function mag(c)
    local ef, mf = math.floor(c / 2 ^ f.m), c % 2 ^ f.m
    if f.nan == "top" and c == 2 ^ (f.e + f.m) - 1 then return nil end
    if f.inf and ef == emax then return nil end
    if ef == 0 and not f.nosub then return mf * 2 ^ (1 - f.bias - f.m) end
    return (1 + mf / 2 ^ f.m) * 2 ^ (ef - f.bias)
  end
  -- every finite magnitude in increasing order with its code (codes increase with magnitudes)
  f.codes, f.vals = {}, {}
  for c = 0, 2 ^ (f.e + f.m) - 1 do
    local v = mag(c)
    if v then f.codes[#f.codes + 1], f.vals[#f.vals + 1] = c, v end
  end
  f.max = f.vals[#f.vals]
  f.nancode = f.nan == "top" and 2 ^ (f.e + f.m) - 1 or f.nan == "ieee" and emax * 2 ^ f.m + 2 ^ (f.m - 1) or nil
  f.infcode = f.inf and emax * 2 ^ f.m or nil
  f.decode_table = {}
  for c = 0, 2 ^ f.bits - 1 do
    local neg = f.signed and c >= f.signbit
    local v = mag(neg and c - f.signbit or c)
    local body = neg and c - f.signbit or c
    if v == nil then
      if f.inf and body == f.infcode then v = math.huge
      else v = signed_nan(neg) end
    end
    f.decode_table[c] = neg and -v or v
  end
end
local LAZY = { __index = function(f, key)
  if key ~= "codes" and key ~= "vals" and key ~= "max" and key ~= "nancode" and key ~= "infcode" and key ~= "decode_table" then return nil end
  setmetatable(f, nil)
  build(f)
  return rawget(f, key)
end }
for name, f in pairs(MINI) do
  f.name = name
  f.bits = f.e + f.m + (f.signed and 1 or 0)
  f.bytes = f.bits / 8                                 -- 0.5 (e2m1), 0.75 (e2m3, e3m2), 1
  f.signbit = f.signed and 2 ^ (f.e + f.m) or 0
  D.array[name], D.bytes[name] = f.bytes, f.bytes >= 1 and f.bytes or nil
  setmetatable(f, LAZY)
end

-- the code of Lua number x in narrow type name; nil, why for a value the type cannot hold
function D.encode(name, x)
  local f = MINI[name]
  local neg = x < 0 or (x == 0 and 1 / x < 0) or (x ~= x and nan_sign(x))
  if x ~= x then
    if not f.nancode then return nil, name .. " has no NaN" end
    return f.nancode + ((neg and f.signed) and f.signbit or 0)
  end
  if neg and not f.signed then
    if x == 0 then return 0 end                     -- -0 of an unsigned type: 0
    return nil, fmt("%s holds no negative values (got %.17g)", name, x)
  end
  local a = math.abs(x)
  local sb = neg and f.signbit or 0
  if a == 0 and f.nosub then return nil, name .. " has no zero (its smallest value is 2^-127)" end
  local vals, codes = f.vals, f.codes
  if a >= f.max then
    if f.inf then
      -- IEEE 754: from the midpoint between the largest value and the next power step, infinity
      local lim = f.max + 2 ^ (math.floor(math.log(f.max) / math.log(2) + 1e-9) - f.m - 1)
      if a >= lim then return f.infcode + sb end
    end
    return codes[#codes] + sb
  end
  -- the neighbours lo <= a < hi (binary search), then the nearer; a tie goes to the even code
  local lo, hi = 1, #vals
  while hi - lo > 1 do
    local mid = math.floor((lo + hi) / 2)
    if vals[mid] <= a then lo = mid else hi = mid end
  end
  if a <= vals[1] then return codes[1] + sb end
  local dl, dh = a - vals[lo], vals[hi] - a
  local c
  if dl < dh then c = codes[lo] elseif dh < dl then c = codes[hi]
  else c = (codes[lo] % 2 == 0) and codes[lo] or codes[hi] end
  return c + sb
end
function D.decode(name, code) return MINI[name].decode_table[code] end
local fmt_ = string.format
fmt = fmt_

-- the codes of elements first .. first + count - 1 (0-based) of a narrow array at addr in mem (an
-- emulator memory), and writing them back: bytes read as u8, sub-byte codes unpacked
local function span_bytes(f, first, count)
  local b0 = math.floor(first * f.bits / 8)
  local b1 = math.ceil((first + count) * f.bits / 8)
  return b0, b1 - b0
end
local function get_codes(mem, addr, f, first, count)
  local b0, nb = span_bytes(f, first, count)
  local bytes = mem:read(addr, "u8", b0, nb)
  local out = {}
  if f.bits == 8 then
    for i = 1, count do out[i] = bytes[i] end
    return out, bytes, b0
  end
  for i = 0, count - 1 do
    local bit0 = (first + i) * f.bits - b0 * 8
    local v = 0
    for k = f.bits - 1, 0, -1 do
      local b = bit0 + k
      local byte = bytes[math.floor(b / 8) + 1]
      v = v * 2 + math.floor(byte / 2 ^ (b % 8)) % 2
    end
    out[i + 1] = v
  end
  return out, bytes, b0
end
local function put_codes(mem, addr, f, first, codes)
  local count = #codes
  if f.bits == 8 then mem:write(addr, "u8", codes, first); return end
  local _, bytes, b0 = get_codes(mem, addr, f, first, count)
  for i = 0, count - 1 do
    local bit0 = (first + i) * f.bits - b0 * 8
    local c = codes[i + 1]
    for k = 0, f.bits - 1 do
      local b = bit0 + k
      local j = math.floor(b / 8) + 1
      local want = math.floor(c / 2 ^ k) % 2
      local have = math.floor(bytes[j] / 2 ^ (b % 8)) % 2
      bytes[j] = bytes[j] + (want - have) * 2 ^ (b % 8)
    end
  end
  mem:write(addr, "u8", bytes, b0)
end

-- values (a table, or one number for all n elements) into elements offset .. of a narrow array
-- (fail(msg) for a value the type cannot hold, naming its index)
function D.write(mem, addr, dtype, values, offset, n, fail)
  local f = MINI[dtype]
  if not f then return mem:write(addr, dtype, values, offset) end
  offset = offset or 0
  local codes = {}
  if type(values) == "number" then
    local c, why = D.encode(dtype, values)
    if not c then fail(why) end
    for i = 1, n - offset do codes[i] = c end
  else
    for i = 1, #values do
      local v = values[i]
      if type(v) ~= "number" then fail(fmt("value %d is a %s, not a number", i, type(v))) end
      local c, why = D.encode(dtype, v)
      if not c then fail(fmt("value %d: %s", i, why)) end
      codes[i] = c
    end
  end
  put_codes(mem, addr, f, offset, codes)
end
function D.read(mem, addr, dtype, first, count, n)
  local f = MINI[dtype]
  if not f then return mem:read(addr, dtype, first, count) end
  count = count or (n - first)
  local codes = get_codes(mem, addr, f, first, count)
  local t = f.decode_table
  for i = 1, count do codes[i] = t[codes[i]] end
  return codes
end
-- the raw codes of a narrow array (tests, and what a kernel wrote bit for bit)
function D.read_codes(mem, addr, dtype, first, count) return (get_codes(mem, addr, MINI[dtype], first, count)) end
function D.write_codes(mem, addr, dtype, first, codes) put_codes(mem, addr, MINI[dtype], first, codes) end
-- bytes of n elements
function D.nbytes(dtype, n) return math.ceil(n * D.array[dtype] - 1e-9) end
-- the storage a TMA map reads an 8-bit narrow type as
D.storage = { e4m3 = "u8", e5m2 = "u8", ue8m0 = "u8", ue4m3 = "u8" }
-- the map element type of a packed narrow float: the driver's 16 x U4 (CUDA 12.8; dense in shared
-- memory, or "16u4_align16b": each 8 bytes in a 16-byte slot) and 16 x U6 (each 12 bytes in a
-- 16-byte slot) types, whose dims count the values; and the bits of each
D.packed = { e2m1 = "16u4_align8b", e2m3 = "16u6_align16b", e3m2 = "16u6_align16b" }
D.packed_bits = { ["16u4_align8b"] = 4, ["16u4_align16b"] = 4, ["16u6_align16b"] = 6 }

return D
