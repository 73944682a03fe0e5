-- kcheck.lua -- what the kernel specs (emu_kernels_spec, emu_kernels_hopper_spec,
-- emu_kernels_broken_spec, emu_kernels_blackwell_spec) share to run kernels against references:
-- loading a kernel file into a fresh registry, the deterministic inputs, float rounding, the
-- element-by-element comparison, and the text edits that make broken copies.
local H = require "helper"

local K = {}
local abs, floor, frexp, ldexp = math.abs, math.floor, math.frexp, math.ldexp
local fmt = string.format
local ffi, bit = require "ffi", require "bit"

-- the kernels of kernels/<file>, by name (each file loaded into a fresh registry), and what the file
-- returned (the Hopper kernels return their tensor-map specs)
function K.load(file)
  local ks, ret = H.load_script(H.root .. "/kernels/" .. file)
  return ks, ret
end

-- deterministic pseudo-random numbers in [lo, hi): Park-Miller (products stay below 2^53)
function K.rng(seed)
  local s = seed % 2147483646 + 1
  return function(lo, hi)
    s = s * 16807 % 2147483647
    return lo + (hi - lo) * (s / 2147483647)
  end
end

-- x rounded to a binary float with `bits` significand bits, to nearest even (normal range)
function K.round_to(x, bits)
  if x == 0 or x ~= x or abs(x) == math.huge then return x end
  local m, e = frexp(x)                          -- x = m * 2^e, 0.5 <= |m| < 1
  local r = m * 2 ^ bits
  local f = floor(r)
  local d = r - f
  if d > 0.5 or (d == 0.5 and f % 2 == 1) then f = f + 1 end
  return ldexp(f, e - bits)
end
function K.f32(x) return K.round_to(x, 24) end

-- half an ulp of bf16 at |x| (8 significand bits)
function K.bf16_half_ulp(x)
  if x == 0 then return 2 ^ -134 end
  local _, e = frexp(abs(x))
  return 2 ^ (e - 9)
end

-- "K=1 N=7": a table of template values, sorted by name (test names)
function K.desc(defs)
  local keys = {}
  for k in pairs(defs) do keys[#keys + 1] = k end
  table.sort(keys)
  local s = {}
  for _, k in ipairs(keys) do s[#s + 1] = k .. "=" .. tostring(defs[k]) end
  return table.concat(s, " ")
end

-- every element: |got - want| <= bound(i, want, got) (NaN fails); the first failure is an error
function K.compare(what, got, want, bound, index_name)
  assert(#got == #want, fmt("%s: %d outputs, %d expected", what, #got, #want))
  for i = 1, #want do
    local g, w = got[i], want[i]
    local b = bound(i, w, g)
    if not (abs(g - w) <= b) and g ~= w then
      error(fmt("%s: element %s = %.9g, expected %.9g (|error| %.3g > %.3g)", what,
                index_name and index_name(i) or tostring(i - 1), g, w, abs(g - w), b), 2)
    end
  end
end

function K.free(...) for _, a in ipairs { ... } do a:free() end end

-- a grouped GEMM's inputs for case c (c.G groups of c.sizes rows, c.MTOT rows in all, c.N, c.K):
-- the row offsets (a Lua array of G + 1, from 0) and, on dev, A (MTOT x K) and B (G N x K) of
-- values in [-1, 1), C (MTOT x N, poisoned) and the offsets as u32
function K.grouped_inputs(dev, c)
  local G, M, N, Kc = c.G, c.MTOT, c.N, c.K
  local offs = { 0 }
  for g = 1, G do offs[g + 1] = offs[g] + c.sizes[g] end
  assert(offs[G + 1] == M, "the group sizes must add up to MTOT")
  local r = K.rng(G * 101 + M + N * 7 + Kc)
  local A = dev:array("bf16", M * Kc, function() return r(-1, 1) end, "A")
  local B = dev:array("bf16", G * N * Kc, function() return r(-1, 1) end, "B")
  local C = dev:array("bf16", M * N, nil, "C"):poison()
  return offs, A, B, C, dev:array("u32", G + 1, offs, "offs")
end

-- test kernels with TMA: the addresses of tensor-map parameters (cvta.param: ptxas refuses the
-- parameter itself inside [map, {..}]), one register each
function K.map_addrs(ptx, ...)
  local r = {}
  for i, m in ipairs { ... } do r[i] = ptx.reg.u64(); ptx.op "cvta.param.u64" (r[i], m) end
  return unpack(r)
end

-- the f32 accumulators of a wgmma m64n64 (32 per thread, the PTX ISA's fragments: warp w owns rows
-- 16w .., register i of lane 4g + q is row g (+ 8), column 8 (i / 4) + 2q + i % 2) stored row-major
-- into the 64 x 64 f32 array of pointer parameter d
function K.store_d64(ptx, acc, tid, d)
  local pd = ptx.global_ptrs(d)
  local warp, lane = tid:shr(5), tid:band(31)
  local g, q = lane:shr(2), lane:band(3)
  for i = 0, 31 do
    local row = warp:mad(16, g) + 8 * (math.floor(i / 2) % 2)
    local col = q:mad(2, 8 * math.floor(i / 4) + i % 2)
    ptx.st.global.f32(ptx.addr(pd + row:mad(64, col):mul_wide(4)), acc[i + 1])
  end
end

-- one thread's TMA loads of the 64 x 64 bf16 box (128-byte rows) at (0, 0) of each map into its
-- shared destination, announced on the mbarrier at address bar (expect_tx of them all, then the
-- copies completing on it); boxes: { { destination, map address }, ... }
function K.load_boxes(ptx, bar, boxes)
  ptx.op "mbarrier.arrive.expect_tx.shared::cta.b64" (ptx._, bar, #boxes * 64 * 128)
  local ld = ptx.op "cp.async.bulk.tensor.2d.shared::cluster.global.tile.mbarrier::complete_tx::bytes"
  local z = ptx.reg.b32()
  ptx.mov.b32(z, 0)
  for _, b in ipairs(boxes) do ld(b[1], ptx.taddr(b[2], { z, z }), bar) end
end

-- bf16 bits of a float (round to nearest even), and the value of bf16 bits
function K.bf16_bits(x)
  local f = ffi.new("float[1]", x)
  local u = ffi.cast("uint32_t*", f)[0]
  return bit.band(bit.rshift(u + 0x7fff + bit.band(bit.rshift(u, 16), 1), 16), 0xffff)
end
function K.bf16_val(b)
  local u = ffi.new("uint32_t[1]", bit.lshift(b, 16))
  return tonumber(ffi.cast("float*", u)[0])
end

-- the text of the file at path with edits { {old, new}, ... } applied (plain text; each old must
-- occur exactly once); shown names the file in the messages (default: path)
function K.edited(path, edits, shown)
  shown = shown or path
  local text = assert(H.read(path), "cannot read " .. shown)
  for _, e in ipairs(edits or {}) do
    local a, b = text:find(e[1], 1, true)
    assert(a, fmt("%s no longer contains %q: update this test", shown, e[1]))
    assert(not text:find(e[1], b + 1, true), fmt("%s contains %q more than once: update this test", shown, e[1]))
    text = text:sub(1, a - 1) .. e[2] .. text:sub(b + 1)
  end
  return text
end

-- the line number of the one line of text that contains needle
function K.line_of(text, needle)
  local n, found = 0, nil
  for l in (text .. "\n"):gmatch("([^\n]*)\n") do
    n = n + 1
    if l:find(needle, 1, true) then
      assert(not found, fmt("%q is on lines %d and %d", needle, found or 0, n))
      found = n
    end
  end
  return assert(found, fmt("%q not found", needle))
end

return K
