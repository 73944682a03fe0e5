-- emu_wgmma_sparse_spec.lua -- sparse wgmma (wgmma.mma_async.sp) in the emulator. For each A type (f16,
-- bf16, tf32, e4m3, e5m2, s8, u8) and N from 8 to 256, a kernel built here runs one sparse wgmma on
-- random inputs with a random valid pattern (2:4, or 1:2 for tf32), A from registers or from shared
-- memory; every accumulator element is compared with a plain dense product, in Lua, of the
-- decompressed A with B. The lanes the sparsity selector does not pick hold random metadata (they
-- must be ignored). Undefined metadata (both positions of a 2:4 chunk equal, a tf32 index other
-- than 0b0100/0b1110) are errors at the wgmma's line. Every kernel's PTX is assembled by ptxas for
-- sm_90a (which rejects a sparsity selector out of range itself).
local H = require "helper"
local rt = require "ptxlua.emu"
local K = require "kcheck"

local fmt, floor = string.format, math.floor
local dev = rt.device("emu")

-- bits of x (exactly representable: a normal number or zero) in a float format of e exponent and m
-- mantissa bits
local function fbits(x, e, m)
  if x == 0 then return 0 end
  local s = x < 0 and 1 or 0
  local f, ex = math.frexp(math.abs(x))                    -- |x| = f 2^ex, f in [0.5, 1)
  local bias = 2 ^ (e - 1) - 1
  return s * 2 ^ (e + m) + (ex - 1 + bias) * 2 ^ m + (f * 2 - 1) * 2 ^ m
end

-- the A types: PTX name, bytes, dense K, chunk (2 for tf32's 1:2, else 4), the accumulators, B's
-- type, element bits of a value, random values (exact in the format, so sums are exact)
local TYPES = {
  f16 = { elt = 2, K = 32, chunk = 4, d = "f32", bits = function(x) return fbits(x, 5, 10) end },
  bf16 = { elt = 2, K = 32, chunk = 4, d = "f32", bits = function(x) return fbits(x, 8, 7) end },
  tf32 = { elt = 4, K = 16, chunk = 2, d = "f32", bits = function(x) return fbits(x, 8, 23) end },
  e4m3 = { elt = 1, K = 64, chunk = 4, d = "f32", bits = function(x) return fbits(x, 4, 3) end },
  e5m2 = { elt = 1, K = 64, chunk = 4, d = "f16", bits = function(x) return fbits(x, 5, 2) end },
  s8 = { elt = 1, K = 64, chunk = 4, d = "s32", int = true, bits = function(x) return x % 256 end },
  u8 = { elt = 1, K = 64, chunk = 4, d = "s32", int = true, bits = function(x) return x end },
}
local function value(name, rnd)
  if name == "s8" then return floor(rnd(-128, 128)) end
  if name == "u8" then return floor(rnd(0, 256)) end
  if TYPES[name].elt == 1 then return floor(rnd(-8, 9)) / 4 end   -- k/4: exact in e4m3 and e5m2
  return floor(rnd(-127, 128)) / 64
end

-- byte offset of element (i, j) of an mn x k K-major tile without swizzle: 8 x 16-byte core
-- matrices, LBO = 128 along k, SBO = 128 (k bytes / 16) along mn (docs/hopper.md)
local function kmajor_at(i, j, k, elt)
  local per = 16 / elt
  return floor(i / 8) * 128 * (k * elt / 16) + floor(j / per) * 128 + (i % 8) * 16 + (j % per) * elt
end

-- the bytes of a matrix (rows x cols values of bits) laid out K-major, as u32 words
local function image(M, rows, cols, elt)
  local bytes = {}
  for i = 0, rows - 1 do
    for j = 0, cols - 1 do
      local v, o = M[i * cols + j + 1], kmajor_at(i, j, cols, elt)
      for b = 0, elt - 1 do bytes[o + b] = floor(v / 2 ^ (8 * b)) % 256 end
    end
  end
  local words = {}
  for w = 0, rows * cols * elt / 4 - 1 do
    local x = 0
    for b = 3, 0, -1 do x = x * 256 + (bytes[4 * w + b] or 0) end
    words[w + 1] = x
  end
  return words
end

-- a random sparse problem: dense A (64 x K, the pattern applied), B (N x K), stored A (64 x K/2,
-- bits), B's bits (as type bt), the register fragments of stored A (128 threads x 4 words), the metadata (128 words)
local function problem(tn, N, sel, seed, bt)
  local T = TYPES[tn]
  local rnd = K.rng(seed)
  local Kd, Kc = T.K, T.K / 2
  local A, Ac, B = {}, {}, {}
  local nib = {}                                         -- [m][q] = the chunk's 4 metadata bits
  for m = 0, 63 do
    nib[m] = {}
    for q = 0, Kd / T.chunk - 1 do
      local keep
      if T.chunk == 2 then
        local p = floor(rnd(0, 2))
        keep = { p }
        nib[m][q] = p == 0 and 4 or 14
      else
        local pairs_ = { { 0, 1 }, { 0, 2 }, { 0, 3 }, { 1, 2 }, { 1, 3 }, { 2, 3 } }
        keep = pairs_[floor(rnd(0, 6)) + 1]
        nib[m][q] = keep[1] + 4 * keep[2]
      end
      for c = 0, T.chunk - 1 do A[m * Kd + q * T.chunk + c + 1] = 0 end
      for s, p in ipairs(keep) do
        local v = value(tn, rnd)
        A[m * Kd + q * T.chunk + p + 1] = v
        Ac[m * Kc + q * #keep + s] = T.bits(v)
      end
    end
  end
  for i = 1, N * Kd do B[i] = value(tn, rnd) end
  -- register fragments of stored A: the dense wgmma's A fragments of a 64 x K/2 matrix
  local frag = {}
  for tid = 0, 127 do
    local w, l = floor(tid / 32), tid % 32
    local g, tq = floor(l / 4), l % 4
    for j = 0, 3 do
      local row = 16 * w + g + 8 * (j % 2)
      local x
      if T.elt == 2 then
        local col = 2 * tq + 8 * floor(j / 2)
        x = Ac[row * Kc + col + 1] + 65536 * Ac[row * Kc + col + 2]
      elseif T.elt == 4 then
        x = Ac[row * Kc + tq + 4 * floor(j / 2) + 1]
      else
        x = 0
        for b = 3, 0, -1 do x = x * 256 + Ac[row * Kc + 4 * tq + 16 * floor(j / 2) + b + 1] end
      end
      frag[tid * 4 + j + 1] = x
    end
  end
  -- metadata: random in every lane, then the selected lanes' bits for their rows and chunks
  local meta = {}
  for t = 1, 128 do meta[t] = floor(rnd(0, 2 ^ 32)) end
  local function put(tid, bitpos, v)
    local old = meta[tid + 1]
    local cur = floor(old / 2 ^ bitpos) % 16
    meta[tid + 1] = old + (v - cur) * 2 ^ bitpos
  end
  for m = 0, 63 do
    local w, r = floor(m / 16), m % 16
    local g, h = r % 8, floor(r / 8)
    for q = 0, Kd / T.chunk - 1 do
      local lane, bitpos
      if T.elt == 1 then lane, bitpos = 4 * g + h + 2 * floor(q / 8), 4 * (q % 8)
      else lane, bitpos = 4 * g + 2 * sel + floor(q / 4), 16 * h + 4 * (q % 4) end
      put(32 * w + lane, bitpos, nib[m][q])
    end
  end
  local Bbits = {}
  for i = 1, N * Kd do Bbits[i] = TYPES[bt or tn].bits(B[i]) end
  return { A = A, B = B, Ac = Ac, Bbits = Bbits, frag = frag, meta = meta, put = put }
end

-- the kernel: stored A (from registers or shared memory) and B copied from global to shared memory,
-- one wgmma.mma_async.sp, the accumulators stored as raw words, thread-major
local function sparse_kernel(ptx, tn, N, opts)
  local T = TYPES[tn]
  local Kd, Kc = T.K, T.K / 2
  local nacc = T.d == "f16" and N / 4 or N / 2
  local bt = opts.bt or tn
  local dt = T.d
  local awords, bwords = 64 * Kc * T.elt / 4, N * Kd * T.elt / 4
  local where = {}
  local k = ptx.kernel { name = fmt("sp_%s_n%d%s", tn, N, opts.tag or ""), target = "sm_90a", grid = { 1 }, block = { 128 },
    params = { { "a", "u32*" }, { "b", "u32*" }, { "meta", "u32*" }, { "out", "u32*" } },
    body = function(_, a, b, meta, out)
      local plan = ptx.smem_plan()
      local eltype = ({ "u8", "u16", nil, "u32" })[T.elt]
      local sA = not opts.aregs and plan:alloc("A", eltype, { 64, Kc }) or nil
      local sB = plan:alloc("B", eltype, { N, Kd })
      local pa, pb, pm, po = ptx.global_ptrs(a, b, meta, out)
      local tid = ptx.special "tid.x"
      local base = ptx.reg.u32()
      ptx.mov.u32(base, ptx.sym "smem")
      local function copy(src, dst, words)
        for it = 0, words / 128 - 1 do
          local i = tid + it * 128
          local v = ptx.reg.u32()
          ptx.ld.global.u32(v, ptx.addr(src + i:mul_wide(4)))
          ptx.st.shared.u32(ptx.addr(base + dst.offset + i:shl(2)), v)
        end
      end
      if sA then copy(pa, sA, awords) end
      copy(pb, sB, bwords)
      ptx.op "fence.proxy.async.shared::cta" ()
      ptx.bar.sync(0)
      local m = ptx.reg.u32()
      ptx.ld.global.u32(m, ptx.addr(pm + tid:mul_wide(4)))
      local aop
      if opts.aregs then
        aop = ptx.regs.b32(4, "af")
        for j = 1, 4 do ptx.ld.global.u32(aop[j], ptx.addr(pa + tid:mad(4, j - 1):mul_wide(4))) end
      else
        aop = ptx.wgmma_desc(sA, { mn = 64, k = Kc, base = base }):as("b64")
      end
      local db = ptx.wgmma_desc(sB, { mn = N, k = Kd, base = base }):as("b64")
      local acc = dt == "f32" and ptx.regs.f32(nacc, "acc", 0) or dt == "s32" and ptx.regs.s32(nacc, "acc", 0)
                  or ptx.regs.b32(nacc, "acc", 0)
      ptx.wgmma.fence.sync.aligned()
      local wg = ptx.op(fmt("wgmma.mma_async.sp.sync.aligned.m64n%dk%d.%s.%s.%s", N, Kd, dt, tn, bt))
      local p = ptx.reg.pred()
      ptx.setp.ne.u32(p, tid, 4096)                      -- true: accumulate into the zeroed acc
      local ops = { acc, aop, db, m, opts.sel or 0, p }
      if not T.int then ops[#ops + 1] = 1; ops[#ops + 1] = 1 end
      if T.elt == 2 then
        if not opts.aregs then ops[#ops + 1] = 0 end
        ops[#ops + 1] = 0
      end
      where.line = debug.getinfo(1, "l").currentline + 1
      wg(table.unpack(ops))
      ptx.wgmma.commit_group.sync.aligned()
      ptx.wgmma.wait_group.sync.aligned(0)
      for i = 1, nacc do
        local v = ptx.reg.b32()
        ptx.mov.b32(v, acc[i])
        ptx.st.global.u32(ptx.addr(po + tid:mad(nacc, i - 1):mul_wide(4)), v)
      end
    end }
  return k, where                                         -- where.line: the wgmma's, once traced
end

-- float of f16 bits
local function f16_val(x)
  local s, e, m = floor(x / 32768), floor(x / 1024) % 32, x % 1024
  local v = e == 0 and m * 2 ^ -24 or (1 + m / 1024) * 2 ^ (e - 15)
  return s == 1 and -v or v
end
local function f32_val(x)
  local ffi = require "ffi"
  local u = ffi.new("uint32_t[1]", x)
  return tonumber(ffi.cast("float*", u)[0])
end

-- run the problem; compare every accumulator element with the dense product of A and B
local function check(tn, N, opts)
  local T = TYPES[tn]
  local ptx = H.fresh()
  local k = sparse_kernel(ptx, tn, N, opts)
  local ok, report = H.assemble(k:ptx(), "sm_90a")
  assert(ok, report)
  local P = problem(tn, N, opts.sel or 0, opts.seed, opts.bt)
  local Kd, Kc = T.K, T.K / 2
  local nacc = T.d == "f16" and N / 4 or N / 2
  local a = dev:array("u32", opts.aregs and 512 or 64 * Kc * T.elt / 4, opts.aregs and P.frag or image(P.Ac, 64, Kc, T.elt))
  local b = dev:array("u32", N * Kd * T.elt / 4, image(P.Bbits, N, Kd, T.elt))
  local meta = dev:array("u32", 128, P.meta)
  local out = dev:array("u32", 128 * nacc):poison()
  rt.launch(k, { device = dev, args = { a, b, meta, out }, checks = { uninit_shared = true, uninit_regs = true } })
  local got = out:read()
  local bad = 0
  for tid = 0, 127 do
    local w, l = floor(tid / 32), tid % 32
    local g, tq = floor(l / 4), l % 4
    for i = 0, nacc - 1 do
      local x = got[tid * nacc + i + 1] % 2 ^ 32
      local cells = {}
      if T.d == "f16" then
        for h = 0, 1 do
          cells[#cells + 1] = { 16 * w + g + 8 * (i % 2), 8 * floor(i / 2) + 2 * tq + h, f16_val(floor(x / 65536 ^ h) % 65536) }
        end
      else
        local v = T.d == "s32" and (x >= 2 ^ 31 and x - 2 ^ 32 or x) or f32_val(x)
        cells[1] = { 16 * w + g + 8 * (floor(i / 2) % 2), 8 * floor(i / 4) + 2 * tq + i % 2, v }
      end
      for _, c in ipairs(cells) do
        local s = 0
        for kk = 0, Kd - 1 do s = s + P.A[c[1] * Kd + kk + 1] * P.B[c[2] * Kd + kk + 1] end
        local tol = T.d == "f16" and math.abs(s) * 2 ^ -11 or 0      -- f16: rounded; f32/s32: exact
        if not (math.abs(c[3] - s) <= tol) then
          bad = bad + 1
          if bad <= 3 then print(fmt("%s n%d: D[%d][%d] = %s, want %s", tn, N, c[1], c[2], tostring(c[3]), tostring(s))) end
        end
      end
    end
  end
  assert.are.equal(0, bad, fmt("%s N=%d: %d wrong accumulator elements", tn, N, bad))
end

describe("emulated sparse wgmma", function()
  local cases = {
    { "f16", 8 }, { "f16", 256, aregs = true, sel = 1 }, { "f16", 64, sel = 1 },
    { "bf16", 16, aregs = true }, { "bf16", 256 },
    { "tf32", 24, aregs = true, sel = 1 }, { "tf32", 256 },
    { "e4m3", 32 }, { "e4m3", 256, aregs = true },
    { "e5m2", 8, aregs = true }, { "e5m2", 256, bt = "e4m3" },
    { "s8", 16 }, { "s8", 256, aregs = true },
    { "u8", 48, aregs = true }, { "u8", 256 },
  }
  for n, c in ipairs(cases) do
    local tn, N = c[1], c[2]
    it(fmt("m64n%dk%d .%s from %s (sp-sel %d) matches the dense product of the decompressed A", N, TYPES[tn].K, tn,
           c.aregs and "registers" or "shared memory", c.sel or 0), function()
      check(tn, N, { aregs = c.aregs, sel = c.sel, bt = c.bt, seed = 1000 + n, tag = c.aregs and "r" or "s" })
    end)
  end

  -- metadata the ISA leaves undefined, reported at the wgmma's line
  local function bad_meta(tn, edit, aregs)
    local T = TYPES[tn]
    local ptx = H.fresh()
    local k, where = sparse_kernel(ptx, tn, 16, { aregs = aregs, sel = edit.sel, tag = "bad" })
    local ok, report = H.assemble(k:ptx(), "sm_90a")
    assert(ok, report)
    local P = problem(tn, 16, edit.sel or 0, 77)
    if edit.lane then P.put(edit.lane, edit.bit, edit.nib) end
    local Kc = T.K / 2
    local a = dev:array("u32", aregs and 512 or 64 * Kc * T.elt / 4, aregs and P.frag or image(P.Ac, 64, Kc, T.elt))
    local b = dev:array("u32", 16 * T.K * T.elt / 4, image(P.Bbits, 16, T.K, T.elt))
    local run_ok, err = pcall(rt.launch, k, { device = dev, args = { a, b, dev:array("u32", 128, P.meta), dev:array("u32", 128 * 8) } })
    assert.is_false(run_ok)
    assert.matches(fmt(":%d: error: wgmma.mma_async.sp", where.line), err, 1, true)
    return err
  end

  it("reports a 2:4 chunk whose two positions are equal, at the wgmma's line", function()
    -- warp 1, lane 4g + 1 (sel 0: chunks 4-7), row g + 8 of the warp: bits 16 + 4 (q % 4)
    local err = bad_meta("f16", { lane = 32 + 4 * 3 + 1, bit = 16 + 4 * 2, nib = 5 })
    assert.matches("sparsity metadata 0x5 (bits 27-24) for row 27, columns 24-27 of A: both stored values at position 1", err, 1, true)
  end)

  it("reports an 8-bit chunk's undefined metadata, at the wgmma's line", function()
    -- warp 3, lane 4 * 6 + 1 + 2: row 48 + 14, chunks 8-15; chunk 8 + 5 at bits 20-23
    local err = bad_meta("s8", { lane = 96 + 27, bit = 20, nib = 0 }, true)
    assert.matches("sparsity metadata 0x0 (bits 23-20) for row 62, columns 52-55 of A", err, 1, true)
  end)

  it("reports a tf32 index other than 0b0100 and 0b1110, at the wgmma's line", function()
    local err = bad_meta("tf32", { lane = 2 + 1, bit = 4, nib = 8, sel = 1 })
    assert.matches("sparsity metadata 0x8 (bits 7-4) for row 0, columns 10-11 of A: a tf32 chunk's index is 0b0100 or 0b1110", err, 1, true)
  end)

end)
