-- emu_tcgen05_spec.lua -- tcgen05 and tensor memory in the emulator (src/emu/blackwell/): the
-- ld/st fragment maps of every shape against the ISA's (CUTLASS's) formulas, the MMA kinds against
-- a reference in double from the rounded inputs, and one broken kernel per check, each reported at
-- its line (and the other line it names).

local H = require "helper"
local rt = require "ptxlua.emu"
local bit = require "bit"

local fmt = string.format

-- register r of thread t of each shape: lane and column from the base (32-bit columns)
local FRAG = {
  ["32x32b"] = function(t, r) return t, r end,
  ["16x64b"] = function(t, r) return bit.rshift(t, 2) + 8 * bit.band(t, 1), bit.band(bit.rshift(t, 1), 1) + 2 * r end,
  ["16x128b"] = function(t, r) return bit.rshift(t, 2) + 8 * bit.band(r, 1), bit.band(t, 3) + 4 * bit.rshift(r, 1) end,
  ["16x256b"] = function(t, r)
    return bit.rshift(t, 2) + 8 * bit.band(bit.rshift(r, 1), 1), 2 * bit.band(t, 3) + bit.band(r, 1) + 8 * bit.rshift(r, 2)
  end,
}
local REGS = { ["32x32b"] = 1, ["16x64b"] = 1, ["16x128b"] = 2, ["16x256b"] = 4 }

-- the line of the next line of the caller
local function nextline() return debug.getinfo(2, "l").currentline + 1 end
-- the caller's line
local function here() return debug.getinfo(2, "l").currentline end

describe("emulated tensor memory", function()
  local dev = rt.device("emu")

  -- 128 threads; warp 0 allocates 128 columns; every warp fills its lane quarter with 32x32b
  -- (cell = lane << 16 | column), then body(ptx, env) runs; env.out stores registers per thread
  local function tm_kernel(ptx, name, body, opts)
    opts = opts or {}
    return ptx.kernel { name = name, target = "sm_100a", params = { { "out", "u32*" } }, body = function(_, out)
      local plan = ptx.smem_plan()
      local slot = plan:alloc("slot", "u32", 1, { align = 16 })
      local tm = ptx.tmem_plan()
      local acc = tm:alloc("acc", opts.cols or 128)
      local tid = ptx.special "tid.x"
      local warp = tid:shr(5)
      local lane = tid:band(31)
      ptx.if_(warp:eq(0), function() tm:allocate(slot) end)
      ptx.tcgen05_fence("before")
      ptx.bar.sync(0)
      ptx.tcgen05_fence("after")
      local base = ptx.reg.u32()
      ptx.ld.shared.u32(base, slot:addr(0))
      local env = { tid = tid, warp = warp, lane = lane, base = base, tm = tm, acc = acc, slot = slot }
      env.quarter = base + warp:shl(21)                  -- lane 32 w of the base
      if not opts.nofill then
        local regs = {}
        local row = warp:shl(5) + lane
        for c = 0, 31 do
          local v = ptx.reg.u32()
          ptx.op "or.b32" (v, row:shl(16), c)
          regs[#regs + 1] = v
        end
        ptx.tcgen05_st { shape = "32x32b", num = 32, taddr = env.quarter, regs = regs }
        ptx.tcgen05_wait("st")
      end
      local p = ptx.global_ptrs(out)
      env.store = function(vals)
        local b = p + tid:mul_wide(4 * #vals)
        for j, v in ipairs(vals) do ptx.st.global.u32(ptx.addr(b, (j - 1) * 4), v) end
      end
      body(ptx, env)
      ptx.tcgen05_fence("before")
      ptx.bar.sync(0)
      ptx.if_(warp:eq(0), function() tm:deallocate(base) end)
    end }
  end

  local function launch(k, nout, block)
    local out = dev:array("u32", (block or 128) * nout):poison()
    local ok, err = pcall(rt.launch, k, { device = dev, args = { out }, grid = { 1 }, block = { block or 128 } })
    local got = ok and out:read() or nil
    out:free()
    return ok, err, got
  end

  for shape, per in pairs(REGS) do
    for _, pack in ipairs { false, true } do
      it(fmt("tcgen05.ld .%s%s reads each register's cell (every warp, its lane quarter)", shape, pack and ".pack::16b" or ""), function()
        local ptx = H.fresh()
        local num = pack and 2 or 4
        local nr = num * per
        local k = tm_kernel(ptx, "ld", function(p, env)
          local r = p.tcgen05_ld { shape = shape, num = num, taddr = env.quarter, pack = pack }
          p.tcgen05_wait("ld")
          local vals = {}
          for i = 1, nr do vals[i] = r[i] end
          env.store(vals)
        end)
        local ok, err, got = launch(k, nr)
        assert.is_true(ok, err)
        for t = 0, 127 do
          local w, lt = math.floor(t / 32), t % 32
          for r = 0, nr - 1 do
            local ln, cl = FRAG[shape](lt, r)
            local lane = 32 * w + ln
            local want
            if pack then want = bit.bor(bit.lshift(2 * cl + 1, 16), 2 * cl)  -- low halves of columns 2c, 2c+1
            else want = bit.bor(bit.lshift(lane, 16), cl) end
            want = want % 2 ^ 32
            assert.are.equal(want, got[t * nr + r + 1], fmt("thread %d register %d", t, r))
          end
        end
      end)
    end
  end
end)

-- ---- tcgen05.mma against a reference in double ------------------------------------------------
local ffi = require "ffi"
local floor, ldexp, frexp = math.floor, math.ldexp, math.frexp

-- element codecs: bits of a value (exact inputs only) and the value of bits
local function f32_bits(v) local f = ffi.new("float[1]", v); return ffi.cast("uint32_t*", f)[0] end
local function minifloat(b, eb, mb, bias)    -- no inf/NaN (the inputs avoid them)
  local s = bit.rshift(b, eb + mb) % 2 == 1 and -1 or 1
  local e, m = bit.band(bit.rshift(b, mb), 2 ^ eb - 1), bit.band(b, 2 ^ mb - 1)
  if e == 0 then return s * ldexp(m / 2 ^ mb, 1 - bias) end
  return s * ldexp(1 + m / 2 ^ mb, e - bias)
end
local function enc(v, eb, mb, bias)          -- a value exact in the format, normal or zero
  if v == 0 then return 0 end
  local s = v < 0 and 2 ^ (eb + mb) or 0
  local m, e = frexp(math.abs(v))             -- m in [0.5, 1)
  return s + (e - 1 + bias) * 2 ^ mb + (m * 2 - 1) * 2 ^ mb
end
-- a value rounded to f16, to nearest even (normal and subnormal; no overflow here)
local function rn16(x)
  if x == 0 then return 0 end
  local _, e = frexp(math.abs(x))              -- |x| in [2^(e-1), 2^e)
  local ulp = 2 ^ math.max(e - 11, -24)
  local q = math.abs(x) / ulp
  local r = floor(q)
  if q - r > 0.5 or (q - r == 0.5 and r % 2 == 1) then r = r + 1 end
  return (x < 0 and -1 or 1) * r * ulp
end
local TYPES = {
  f16 = { bytes = 2, bits = function(v) return enc(v, 5, 10, 15) end, val = function(b) return minifloat(b, 5, 10, 15) end },
  bf16 = { bytes = 2, bits = function(v) return enc(v, 8, 7, 127) end, val = function(b) return minifloat(b, 8, 7, 127) end },
  tf32 = { bytes = 4, bits = function(v) return f32_bits(v) end, val = function(b) return minifloat(bit.rshift(b, 13), 8, 10, 127) end },
  e4m3 = { bytes = 1, code = true, val = function(b) return minifloat(b, 4, 3, 7) end },
  e5m2 = { bytes = 1, code = true, val = function(b) return minifloat(b, 5, 2, 15) end },
  s8 = { bytes = 1, code = true, val = function(b) return b >= 128 and b - 256 or b end },
  u8 = { bytes = 1, code = true, val = function(b) return b end },
}
-- deterministic inputs: exact small values for the float kinds, codes for the 8-bit ones
local function gen(tn, count, seed, small)
  local r, out = seed, {}
  local T = TYPES[tn]
  for i = 1, count do
    r = r * 16807 % 2147483647
    if T.nbits then
      out[i] = r % 2 ^ T.nbits                        -- a 4- or 6-bit code: every one finite
    elseif T.code then
      local c = r % 256
      if tn == "e4m3" and bit.band(c, 0x7f) == 0x7f then c = 0x38 end     -- not NaN
      if tn == "e5m2" and bit.band(c, 0x7c) == 0x7c then c = 0x3c end     -- not inf/NaN
      if tn == "e5m2" and bit.band(c, 0x7c) >= 0x58 then c = bit.band(c, 0x83) + 0x38 end   -- keep sums finite
      if small and (tn == "e4m3" or tn == "e5m2") then c = bit.band(c, 0xbf) end  -- below 2: f16 sums stay finite
      out[i] = c
    else
      out[i] = T.bits((r % 65 - 32) / 8)
    end
  end
  return out
end

-- the bytes of an R x K operand (codes[i*K + j + 1]) in shared memory: K-major or MN-major, in
-- swizzle mode sw ("none", "32B", "64B", "128B", "128B_32B"), at byte offset base (1024-aligned) of
-- img (a table of bytes); its LBO and SBO
local function place(img, base, codes, R, K, esz, mn, sw)
  local W = ({ none = 0, ["32B"] = 32, ["64B"] = 64, ["128B"] = 128, ["128B_32B"] = 128 })[sw]
  local lbo, sbo
  local function at(i, j)
    if not mn then
      if W == 0 then lbo, sbo = 128, 128 * (K * esz / 16); return floor(i / 8) * sbo + floor(j * esz / 16) * lbo + (i % 8) * 16 + (j * esz) % 16 end
      lbo, sbo = 16, 8 * W
      return floor(i / 8) * sbo + (i % 8) * W + j * esz
    end
    local ib = i * esz
    if W == 0 then sbo, lbo = 128, 128 * (R * esz / 16); return floor(ib / 16) * sbo + floor(j / 8) * lbo + (j % 8) * 16 + ib % 16 end
    lbo, sbo = 8 * W, 8 * W * (R * esz / W)
    return floor(ib / W) * lbo + floor(j / 8) * sbo + (j % 8) * W + ib % W
  end
  for i = 0, R - 1 do
    for j = 0, K - 1 do
      local a = base + at(i, j)
      if sw == "128B_32B" then a = bit.bxor(a, bit.lshift(bit.band(bit.rshift(a, 7), 3), 5))
      elseif W > 0 then a = bit.bxor(a, bit.lshift(bit.band(bit.rshift(a, 7), W / 16 - 1), 4)) end
      local c = codes[i * K + j + 1]
      for b = 0, esz - 1 do img[a + b + 1] = bit.band(bit.rshift(c, 8 * b), 255) end
    end
  end
  return lbo, sbo
end
local SWCODE = { none = 0, ["128B_32B"] = 1, ["128B"] = 2, ["64B"] = 4, ["32B"] = 6 }

-- an sm_100 shared-memory descriptor without swizzle of the bytes at sb + at (sb: the block's
-- address register), LBO and SBO in bytes: start (>> 4) and LBO in the low word, SBO and the
-- fixed bit 46 in the high one
local function plain_desc(ptx, sb, at, lbo, sbo)
  local lo = ptx.reg.u32()
  ptx.op "add.u32" (lo, sb, at)
  ptx.op "shr.u32" (lo, lo, 4)
  ptx.op "or.b32" (lo, lo, (lbo / 16) * 65536)
  local dl, dh, dd = ptx.reg.u64(), ptx.reg.u64(), ptx.reg.b64()
  ptx.op "cvt.u64.u32" (dl, lo)
  ptx.op "mov.u64" (dh, sbo / 16 + 2 ^ 14)
  ptx.op "shl.b64" (dh, dh, 32)
  ptx.op "or.b64" (dd, dh, dl)
  return dd
end

-- a CTA barrier, or for a pair the cluster barrier
local function sync_ctas(ptx, pair)
  if not pair then ptx.bar.sync(0); return end
  ptx.op "barrier.cluster.arrive.aligned" ()
  ptx.op "barrier.cluster.wait.aligned" ()
end

-- the operands written by every thread reach the MMA or copy: fence.proxy.async (when proxy), the
-- pair's mbarrier-init fence, tcgen05.fence before, the CTA (cluster) barrier, tcgen05.fence
-- after; then the allocated base from its slot. Returns the base and acc's address
local function handoff(ptx, pair, proxy, slot, tm, acc)
  if proxy then ptx.op "fence.proxy.async.shared::cta" () end
  if pair then ptx.op "fence.mbarrier_init.release.cluster" () end
  ptx.tcgen05_fence("before")
  sync_ctas(ptx, pair)
  ptx.tcgen05_fence("after")
  local base = ptx.reg.u32()
  ptx.ld.shared.u32(base, slot:addr(0))
  return base, tm:address(base, acc)
end

describe("emulated tcgen05.mma", function()
  local dev = rt.device("emu")

  -- one CTA of 128 threads: the operands' image copied into shared memory by every thread
  -- (fence.proxy.async), thread 0 issues the MMAs (o.mmas: list of { acc =, scale = }) and a
  -- commit, every warp waits, fences and reads D back (32x32b for M=128, 16x256b for M=64)
  local function mma_kernel(ptx, o)
    local M, N = o.M, o.N
    local nimg = #o.img / 4
    local pair = o.pair
    return ptx.kernel { name = "mma", target = "sm_100a", params = { { "img", "u32*" }, { "out", "u32*" } },
      cluster = pair and { 2, 1, 1 } or nil,
      body = function(_, img, out)
        local plan = ptx.smem_plan()
        local slot = plan:alloc("slot", "u32", 1, { align = 16 })
        local bar = plan:alloc("bar", "b64", 1, { align = 8 })
        local region = plan:alloc("ab", "u32", nimg, { align = 1024 })
        local tm = ptx.tmem_plan { cta_group = pair and 2 or 1 }
        local cols = 32
        local dcols = (pair and M == 128) and N / 2 or N
        while cols < dcols + (o.atmem and 8 or 0) do cols = cols * 2 end
        local acc = tm:alloc("acc", cols)
        local tid = ptx.special "tid.x"
        local warp = tid:shr(5)
        ptx.if_(warp:eq(0), function() tm:allocate(slot) end)
        ptx.if_(tid:eq(0), function() ptx.op "mbarrier.init.shared::cta.b64" (bar:addr(0), 1) end)
        local gi = ptx.global_ptrs(img)
        local rank = ptx.reg.u32()
        ptx.mov.u32(rank, pair and ptx.special "cluster_ctarank" or 0)
        gi = gi + rank:mul_wide(4 * nimg)                 -- a pair: each CTA its own image
        local function cta_sync() sync_ctas(ptx, pair) end
        local sb = ptx.reg.u32()
        ptx.mov.u32(sb, ptx.sym "smem")
        for i = 0, nimg - 1, 128 do
          local idx = tid + i
          ptx.if_(idx:lt(nimg), function()
            local v = ptx.reg.u32()
            ptx.ld.global.u32(v, ptx.addr(gi + idx:mul_wide(4)))
            ptx.st.shared.u32(ptx.addr(sb + region.offset + idx:shl(2)), v)
          end)
        end
        local base, d = handoff(ptx, pair, true, slot, tm, acc)
        local at
        if o.atmem then                                 -- A in tensor memory after D: row m at lane m
          local ab = tm:address(base, acc, 0, N)
          local q = ptx.reg.u32()
          ptx.op "add.u32" (q, ab, warp:shl(21))
          local regs = {}
          for c = 0, 7 do
            local v = ptx.reg.u32()
            local row = warp:shl(5) + tid:band(31)
            ptx.ld.global.u32(v, ptx.addr(gi + (row:shl(3) + (o.atmem + c)):mul_wide(4)))
            regs[#regs + 1] = v
          end
          ptx.tcgen05_st { shape = "32x32b", num = 8, taddr = q, regs = regs }
          ptx.tcgen05_wait("st")
          ptx.tcgen05_fence("before")
          cta_sync()
          ptx.tcgen05_fence("after")
          at = ab
        end
        local function desc(off, lbo, sbo, sw)
          local lo, hi = ptx.reg.u32(), ptx.reg.u32()
          ptx.op "add.u32" (lo, sb, region.offset + off)
          ptx.op "shr.u32" (lo, lo, 4)
          ptx.op "and.b32" (lo, lo, 0x3fff)
          ptx.op "or.b32" (lo, lo, (lbo / 16) * 65536)
          ptx.mov.u32(hi, sbo / 16 + 2 ^ 14 + SWCODE[sw] * 2 ^ 29)
          local dl, dh, dd = ptx.reg.u64(), ptx.reg.u64(), ptx.reg.b64()
          ptx.op "cvt.u64.u32" (dl, lo)
          ptx.op "cvt.u64.u32" (dh, hi)
          ptx.op "shl.b64" (dh, dh, 32)
          ptx.op "or.b64" (dd, dh, dl)
          return dd
        end
        ptx.if_(tid:eq(0):band(rank:eq(0)), function()
          local ad = at or desc(o.aoff, o.albo, o.asbo, o.asw)
          local bd = desc(o.boff, o.blbo, o.bsbo, o.bsw)
          for _, m in ipairs(o.mmas) do
            local p = ptx.reg.pred()
            if m.acc then ptx.setp.eq.u32(p, tid, tid) else ptx.setp.ne.u32(p, tid, tid) end
            ptx.tcgen05_mma { d = d, a = ad, b = bd, idesc = o.idesc, accumulate = p, kind = o.kind, scale_d = m.scale }
          end
          if pair then
            local mask = ptx.reg.u16()
            ptx.mov.u16(mask, 3)
            ptx.tcgen05_commit(bar, { multicast = mask })
          else ptx.tcgen05_commit(bar) end
        end)
        ptx.mbarrier_wait(bar, 0)
        ptx.tcgen05_fence("after")
        local q = ptx.reg.u32()
        ptx.op "add.u32" (q, base, warp:shl(21))
        local vals = {}
        local wide = M == 128 or pair                   -- 32x32b over every lane
        local c0, step = 0, wide and 1 or 8             -- columns a repetition
        N = (pair and M == 128) and N / 2 or N          -- the columns each CTA holds
        while c0 < N do                                 -- the largest power of two that fits
          local n = 1
          while n * 2 * step <= N - c0 and n * 2 * (wide and 1 or 4) <= 128 do n = n * 2 end
          local r = ptx.tcgen05_ld { shape = wide and "32x32b" or "16x256b", num = n, taddr = q + c0 }
          for i = 1, #r do vals[#vals + 1] = r[i] end
          c0 = c0 + n * step
        end
        ptx.tcgen05_wait("ld")
        local p = ptx.global_ptrs(out)
        local b = p + tid:mul_wide(4 * #vals) + rank:mul_wide(4 * #vals * 128)
        for j, v in ipairs(vals) do ptx.st.global.u32(ptx.addr(b, (j - 1) * 4), v) end
        ptx.tcgen05_fence("before")
        cta_sync()
        ptx.if_(warp:eq(0), function() tm:deallocate(base) end)
      end }
  end

  -- run one MMA case: kind, types a/b/d, M, N, layouts; returns the worst error in units of the
  -- bound (f32: 2^-22 of the sum of |products|; s32: exact)
  local function run_case(c)
    local K = ({ f16 = 16, tf32 = 8, f8f6f4 = 32, i8 = 32 })[c.kind]
    local TA, TB = TYPES[c.a], TYPES[c.b]
    local M, N = c.M, c.N
    local small = c.d == "f16"
    local A, B = gen(c.a, M * K, 11 + M + N, small), gen(c.b, N * K, 17 + N, small)
    local o = { M = M, N = N, kind = c.kind, mmas = c.mmas or { { acc = false } }, asw = c.asw or "128B", bsw = c.bsw or "128B",
                pair = c.pair }
    local nc = c.pair and 2 or 1
    local Mc, Nc = M / nc, N / nc                        -- each CTA's rows of A and of B
    local function size(R, esz, mn, sw)               -- the operand's bytes, rounded up to 1 KB
      local W = ({ none = 0, ["32B"] = 32, ["64B"] = 64, ["128B"] = 128, ["128B_32B"] = 128 })[sw]
      local n = (mn or W == 0) and R * K * esz or R * W
      return math.ceil(n / 1024) * 1024
    end
    local function sub(X, r0, rows) local t = {}; for i = 1, rows * K do t[i] = X[r0 * K + i] end; return t end
    local boff = c.atmem and 0 or size(Mc, TA.bytes, c.trans_a, o.asw)
    local total = boff + size(Nc, TB.bytes, c.trans_b, o.bsw)
    local words = {}
    for k = 0, nc - 1 do
      local img = {}
      for i = 1, total + 128 * 32 do img[i] = 0 end
      if c.atmem then                                   -- A's rows as 8 words each after the image
        o.atmem = total / 4
        for m = 0, 127 do
          for w = 0, 7 do
            local word = 0
            for b = 0, 3 do
              local bitpos = (w * 4 + b) * 8
              local kk = floor(bitpos / (8 * TA.bytes))
              local row = (M == 128 or c.pair) and m or (m % 32 < 16 and floor(m / 32) * 16 + m % 32) or nil  -- layout F
              local code = row and A[(k * Mc + row) * K + kk + 1] or 0
              local byte = bit.band(bit.rshift(code, 8 * (((w * 4 + b)) % TA.bytes)), 255)
              word = word + byte * 2 ^ (8 * b)
            end
            local at = o.atmem * 4 + (m * 8 + w) * 4
            for b = 0, 3 do img[at + b + 1] = bit.band(bit.rshift(word, 8 * b), 255) end
          end
        end
      else
        o.aoff = 0
        o.albo, o.asbo = place(img, 0, sub(A, k * Mc, Mc), Mc, K, TA.bytes, c.trans_a, o.asw)
      end
      o.boff = boff
      o.blbo, o.bsbo = place(img, boff, sub(B, k * Nc, Nc), Nc, K, TB.bytes, c.trans_b, o.bsw)
      for i = 1, #img, 4 do words[#words + 1] = img[i] + img[i + 1] * 256 + img[i + 2] * 65536 + img[i + 3] * 16777216 end
    end
    local img = {}
    for i = 1, #words / nc * 4 do img[i] = 0 end
    o.img = img
    local ptx = H.fresh()
    o.idesc = ptx.tcgen05_idesc { kind = c.kind, d = c.d, a = c.a, b = c.b, m = M, n = N, neg_a = c.neg_a, neg_b = c.neg_b,
                                  trans_a = c.trans_a, trans_b = c.trans_b, saturate = c.saturate, cta_group = c.pair and 2 or 1 }
    local k = mma_kernel(ptx, o)
    local gimg = dev:array("u32", #words, words)
    local nout = c.pair and (M == 128 and N / 2 or N) or (M == 128 and N or N / 2)
    local out = dev:array("u32", 128 * nout * nc):poison()
    rt.launch(k, { device = dev, args = { gimg, out }, grid = { nc }, block = { 128 } })
    local got = out:read()
    gimg:free(); out:free()
    -- D[m][n] from the per-thread registers
    local D = {}
    for t = 0, 128 * nc - 1 do
      local w, lt, cta = floor(t % 128 / 32), t % 32, floor(t / 128)
      for r = 0, nout - 1 do
        local row, col
        if c.pair and M == 256 then row, col = 128 * cta + 32 * w + lt, r      -- layout A
        elseif c.pair then                              -- layout B: lanes 64.. hold the second half
          local ln = 32 * w + lt
          row, col = 64 * cta + ln % 64, r + (ln >= 64 and N / 2 or 0)
        elseif M == 128 then row, col = 32 * w + lt, r
        else                                            -- chunks of 16x256b: 4 registers, 8 columns a repetition
          local ln, cl = FRAG["16x256b"](lt, r % 4)
          row, col = 16 * w + ln, cl + 8 * floor(r / 4)
        end
        D[row * N + col] = got[t * nout + r + 1]
      end
    end
    local sa, sb = c.neg_a and -1 or 1, c.neg_b and -1 or 1
    local worst = 0
    for m = 0, M - 1 do
      for n = 0, N - 1 do
        local s, sabs = 0, 0
        for kk = 0, K - 1 do
          local p = sa * TA.val(A[m * K + kk + 1]) * sb * TB.val(B[n * K + kk + 1])
          s = s + p; sabs = sabs + math.abs(p)
        end
        local want, bound = s, sabs
        for i = 2, #o.mmas do                         -- D = A B + D 2^-scale
          want = want + want * 2 ^ -(o.mmas[i].scale or 0); bound = bound * 3
        end
        local g = D[m * N + n]
        local e
        if c.d == "s32" then
          if c.saturate then want = math.max(-2 ^ 31, math.min(2 ^ 31 - 1, want)) end
          g = g >= 2 ^ 31 and g - 2 ^ 32 or g
          e = g == want and 0 or math.huge
        elseif c.d == "f16" then                       -- the lower 16 bits of the cell, the upper 0
          local gv = TYPES.f16.val(g % 65536)
          if #o.mmas == 1 then                        -- one MMA of exact small values: RN(sum) exactly
            e = gv == rn16(want) and 0 or math.huge
          else                                        -- half an ulp of each MMA's result
            e = math.abs(gv - want) / (#o.mmas * (math.abs(want) + bound) * 2 ^ -11 + 1e-30)
          end
          if g >= 65536 then e = math.huge end
          if e ~= e then e = math.huge end
        else
          local gv = ffi.cast("float*", ffi.new("uint32_t[1]", g))[0]
          e = math.abs(gv - want) / (bound * 2 ^ -22 + 1e-30)
          if e ~= e then e = math.huge end
        end
        if e > worst then worst = e; if worst > 1 then return worst, fmt("D[%d][%d] = %s, want %s", m, n, tostring(g), tostring(want)) end end
      end
    end
    return worst
  end

  -- a pipelined GEMM as the fast kernels are built: a producer warp (bulk copies into a 2-stage
  -- ring, full barriers with expect_tx), an MMA warp (one elected thread: wait full, fence, MMA,
  -- commit to the stage's empty barrier; at the end a commit to `done`), and 4 epilogue warps
  -- (wait done, fence, tcgen05.ld): it runs with no report and matches the reference
  for _, broken in ipairs { false, true } do
  it(broken and "flags the pipelined GEMM whose MMA warp releases a stage with a plain mbarrier.arrive, at the refill"
            or "runs a pipelined GEMM (TMA-style ring released by tcgen05.commit) with no report, matching a reference", function()
    local lcopy, lmma
    local M, N, KB, NK = 128, 64, 16, 4                 -- 4 k-blocks of 16
    local A, B = gen("bf16", M * KB * NK, 5), gen("bf16", N * KB * NK, 9)
    local stage = M * 32 + N * 32                       -- the 32B swizzle: one row of 16 bf16 a 32-byte line
    local words = {}
    for kb = 0, NK - 1 do
      local img = {}
      for i = 1, stage do img[i] = 0 end
      local sa, sb = {}, {}
      for m = 0, M - 1 do for k = 0, KB - 1 do sa[m * KB + k + 1] = A[m * KB * NK + kb * KB + k + 1] end end
      for n = 0, N - 1 do for k = 0, KB - 1 do sb[n * KB + k + 1] = B[n * KB * NK + kb * KB + k + 1] end end
      place(img, 0, sa, M, KB, 2, false, "32B")
      place(img, M * 32, sb, N, KB, 2, false, "32B")
      for i = 1, stage, 4 do words[#words + 1] = img[i] + img[i + 1] * 256 + img[i + 2] * 65536 + img[i + 3] * 16777216 end
    end
    local ptx = H.fresh()
    local idesc = ptx.tcgen05_idesc { kind = "f16", d = "f32", a = "bf16", b = "bf16", m = M, n = N }
    local k = ptx.kernel { name = "pipe", target = "sm_100a", params = { { "g", "u32*" }, { "out", "f32*" } }, body = function(_, g, out)
      local plan = ptx.smem_plan()
      local slot = plan:alloc("slot", "u32", 1, { align = 16 })
      local full = { plan:alloc("full0", "b64", 1, { align = 8 }), plan:alloc("full1", "b64", 1, { align = 8 }) }
      local empty = { plan:alloc("empty0", "b64", 1, { align = 8 }), plan:alloc("empty1", "b64", 1, { align = 8 }) }
      local done = plan:alloc("fin", "b64", 1, { align = 8 })
      local ring = plan:alloc("ring", "u8", 2 * stage, { align = 1024 })
      local tm = ptx.tmem_plan()
      local acc = tm:alloc("acc", N)
      local tid = ptx.special "tid.x"
      local warp, lane = tid:shr(5), tid:band(31)
      ptx.if_(warp:eq(0), function() tm:allocate(slot) end)
      ptx.if_(tid:eq(0), function()
        for s = 0, 1 do
          ptx.op "mbarrier.init.shared::cta.b64" (full[s + 1]:addr(0), 1)
          ptx.op "mbarrier.init.shared::cta.b64" (empty[s + 1]:addr(0), 1)
        end
        ptx.op "mbarrier.init.shared::cta.b64" (done:addr(0), 1)
      end)
      ptx.tcgen05_fence("before")
      ptx.bar.sync(0)
      ptx.tcgen05_fence("after")
      local base = ptx.reg.u32()
      ptx.ld.shared.u32(base, slot:addr(0))
      local sb = ptx.reg.u32()
      ptx.mov.u32(sb, ptx.sym "smem")
      local gp = ptx.global_ptrs(g)
      ptx.if_(warp:eq(1), function()                    -- the producer
        for kb = 0, NK - 1 do
          local s = kb % 2
          if kb >= 2 then ptx.mbarrier_wait(empty[s + 1]:addr(0), (math.floor(kb / 2) - 1) % 2) end
          ptx.if_(lane:eq(0), function()
            ptx.op "mbarrier.arrive.expect_tx.shared::cta.b64" (ptx._, full[s + 1]:addr(0), stage)
            if kb == 2 then lcopy = nextline() end
            ptx.op "cp.async.bulk.shared::cluster.global.mbarrier::complete_tx::bytes" (ring:addr(0, s * stage),
              ptx.addr(gp, kb * stage), stage, full[s + 1]:addr(0))
          end)
        end
      end)
      ptx.if_(warp:eq(0), function()                    -- the MMA warp
        for kb = 0, NK - 1 do
          local s = kb % 2
          ptx.mbarrier_wait(full[s + 1]:addr(0), math.floor(kb / 2) % 2)
          ptx.tcgen05_fence("after")
          local function desc(off)
            local lo, dh, dl, dd = ptx.reg.u32(), ptx.reg.u64(), ptx.reg.u64(), ptx.reg.b64()
            ptx.op "add.u32" (lo, sb, ring.offset + off)
            ptx.op "shr.u32" (lo, lo, 4)
            ptx.op "and.b32" (lo, lo, 0x3fff)
            ptx.op "or.b32" (lo, lo, 65536)
            ptx.op "cvt.u64.u32" (dl, lo)
            ptx.op "mov.u64" (dh, 256 / 16 + 2 ^ 14 + 6 * 2 ^ 29)
            ptx.op "shl.b64" (dh, dh, 32)
            ptx.op "or.b64" (dd, dh, dl)
            return dd
          end
          local p = ptx.reg.pred()
          if kb == 0 then ptx.setp.ne.u32(p, tid, tid) else ptx.setp.eq.u32(p, tid, tid) end
          local ad, bd = desc(s * stage), desc(s * stage + M * 32)
          if broken then                                -- the pyptx hazard: the arrive does not wait for the MMA
            ptx.if_(lane:eq(0), function()
              if kb == 0 then lmma = nextline() end
              ptx.tcgen05_mma { d = tm:address(base, acc), a = ad, b = bd, idesc = idesc, accumulate = p }
              ptx.op "mbarrier.arrive.shared::cta.b64" (ptx._, empty[s + 1]:addr(0))
            end)
          else
            ptx.tcgen05_mma_commit { d = tm:address(base, acc), a = ad, b = bd, idesc = idesc, accumulate = p, bar = empty[s + 1]:addr(0) }
          end
        end
        ptx.if_(lane:eq(0), function() ptx.tcgen05_commit(done:addr(0)) end)
      end)
      ptx.mbarrier_wait(done:addr(0), 0)                -- the epilogue: every warp
      ptx.tcgen05_fence("after")
      local r = ptx.tcgen05_ld { shape = "32x32b", num = N, taddr = base + warp:shl(21) }
      ptx.tcgen05_wait("ld")
      local o = ptx.global_ptrs(out)
      local row = o + tid:mul_wide(4 * N)
      for j = 1, N do ptx.st.global.b32(ptx.addr(row, (j - 1) * 4), r[j]) end
      ptx.tcgen05_fence("before")
      ptx.bar.sync(0)
      ptx.if_(warp:eq(0), function() tm:deallocate(base) end)
    end }
    local gimg = dev:array("u32", #words, words)
    local out = dev:array("f32", M * N):poison()
    local ok, err = pcall(rt.launch, k, { device = dev, args = { gimg, out }, grid = { 1 }, block = { 128 },
                                         checks = { races = true, uninit_shared = true } })
    if broken then
      assert.is_false(ok)
      assert.matches(fmt("emu_tcgen05_spec.lua:%d: error: cp.async.bulk", lcopy), err, 1, true)
      assert.matches(fmt("which the tcgen05.mma of line %d (warp 0 of CTA (0,0,0)) reads, and this thread does not know that MMA complete", lmma), err, 1, true)
      return
    end
    assert.is_true(ok, err)
    local got = out:read()
    for m = 0, M - 1 do
      for n = 0, N - 1 do
        local s, sabs = 0, 0
        for kk = 0, KB * NK - 1 do
          local p = TYPES.bf16.val(A[m * KB * NK + kk + 1]) * TYPES.bf16.val(B[n * KB * NK + kk + 1])
          s = s + p; sabs = sabs + math.abs(p)
        end
        assert(math.abs(got[m * N + n + 1] - s) <= sabs * 2 ^ -22 + 1e-30, fmt("D[%d][%d] = %g, want %g", m, n, got[m * N + n + 1], s))
      end
    end
  end)
  end

  local CASES = {
    { kind = "f16", a = "bf16", b = "bf16", d = "f32", M = 128, N = 64 },
    { kind = "f16", a = "f16", b = "f16", d = "f32", M = 128, N = 256, asw = "64B", bsw = "32B" },
    { kind = "f16", a = "bf16", b = "bf16", d = "f32", M = 64, N = 128, asw = "none", bsw = "none" },
    { kind = "f16", a = "bf16", b = "bf16", d = "f32", M = 128, N = 8, bsw = "none" },
    { kind = "f16", a = "f16", b = "f16", d = "f32", M = 128, N = 64, neg_a = true, trans_a = true, trans_b = true },
    { kind = "f16", a = "bf16", b = "bf16", d = "f32", M = 128, N = 32, atmem = true },
    { kind = "f16", a = "bf16", b = "bf16", d = "f32", M = 64, N = 64, atmem = true },
    { kind = "f16", a = "bf16", b = "bf16", d = "f32", M = 128, N = 64, mmas = { { acc = false }, { acc = true, scale = 0 } } },
    { kind = "f16", a = "f16", b = "f16", d = "f32", M = 128, N = 64, mmas = { { acc = false }, { acc = true, scale = 3 } } },
    -- an f16 D: each cell holds one f16 in its lower 16 bits (the ISA's packing format of D)
    { kind = "f16", a = "f16", b = "f16", d = "f16", M = 128, N = 64 },
    { kind = "f16", a = "f16", b = "f16", d = "f16", M = 64, N = 32, mmas = { { acc = false }, { acc = true, scale = 1 } } },
    { kind = "f16", a = "f16", b = "f16", d = "f16", M = 256, N = 64, pair = true },
    { kind = "f8f6f4", a = "e4m3", b = "e5m2", d = "f16", M = 128, N = 32 },
    { kind = "tf32", a = "tf32", b = "tf32", d = "f32", M = 128, N = 64 },
    { kind = "tf32", a = "tf32", b = "tf32", d = "f32", M = 64, N = 32, neg_b = true, bsw = "64B" },
    { kind = "tf32", a = "tf32", b = "tf32", d = "f32", M = 128, N = 32, trans_a = true, trans_b = true, asw = "128B_32B", bsw = "128B_32B" },
    { kind = "tf32", a = "tf32", b = "tf32", d = "f32", M = 128, N = 16, atmem = true },
    { kind = "f8f6f4", a = "e4m3", b = "e5m2", d = "f32", M = 128, N = 64 },
    { kind = "f8f6f4", a = "e5m2", b = "e4m3", d = "f32", M = 64, N = 256, trans_b = true },
    { kind = "f8f6f4", a = "e4m3", b = "e4m3", d = "f32", M = 128, N = 32, atmem = true, trans_a = false, neg_a = true },
    { kind = "i8", a = "s8", b = "u8", d = "s32", M = 128, N = 64 },
    { kind = "i8", a = "u8", b = "u8", d = "s32", M = 64, N = 24, bsw = "none" },
    { kind = "i8", a = "s8", b = "s8", d = "s32", M = 128, N = 128, trans_a = true, trans_b = true },
    { kind = "i8", a = "s8", b = "u8", d = "s32", M = 128, N = 48, asw = "32B", bsw = "64B" },
    { kind = "i8", a = "u8", b = "s8", d = "s32", M = 128, N = 32, atmem = true, saturate = true },
    { kind = "f16", a = "bf16", b = "bf16", d = "f32", M = 256, N = 64, pair = true },
    { kind = "f16", a = "f16", b = "f16", d = "f32", M = 256, N = 128, pair = true, trans_b = true, bsw = "64B" },
    { kind = "f16", a = "bf16", b = "bf16", d = "f32", M = 128, N = 64, pair = true },
    { kind = "tf32", a = "tf32", b = "tf32", d = "f32", M = 256, N = 32, pair = true, atmem = true },
    { kind = "i8", a = "s8", b = "u8", d = "s32", M = 128, N = 64, pair = true },
  }
  for _, c in ipairs(CASES) do
    local name = fmt(".kind::%s %s x %s -> %s, M=%d N=%d%s%s%s%s%s%s", c.kind, c.a, c.b, c.d, c.M, c.N,
      c.atmem and ", A in tensor memory" or fmt(", A %s%s", c.trans_a and "MN-major " or "", c.asw or "128B"),
      fmt(", B %s%s", c.trans_b and "MN-major " or "", c.bsw or "128B"), c.neg_a and ", -A" or "", c.neg_b and ", -B" or "",
      c.mmas and fmt(", then accumulate (scale-input-d %d)", c.mmas[2].scale or 0) or "", c.saturate and ", saturate" or "")
    if c.pair then name = name .. ", cta_group::2 (a CTA pair)" end
    it(name .. " matches a reference in double", function()
      local worst, why = run_case(c)
      assert(worst <= 1, why)
    end)
  end
end)

-- ---- the checks: one broken kernel each, reported at its line (and the other line it names) ----
describe("emulated tcgen05 checks", function()
  local dev = rt.device("emu")
  local BF16 = 0x08100490                             -- bf16 x bf16 -> f32, M 128, N 64, K-major

  -- 128 threads; warp 0 allocates 64 columns (env.alloc replaces it); thread 0 issues one MMA
  -- (M 128, N 64; zero operands: the checks look at ordering, not values) and commits it to
  -- `full` (env.issue replaces both); every warp waits on full, fences and reads D (env.consume);
  -- a fence, a barrier, warp 0 deallocates (env.finish). Every hook gets (ptx, env).
  local function kernel(o)
    local ptx = H.fresh()
    return ptx.kernel { name = "chk", target = "sm_100a", params = { { "out", "u32*" } }, body = function(_, out)
      local plan = ptx.smem_plan()
      local slot = plan:alloc("slot", "u32", 1, { align = 16 })
      local full = plan:alloc("full", "b64", 1, { align = 8 })
      local empty = plan:alloc("empty", "b64", 1, { align = 8 })
      local A = plan:alloc("A", "u8", 16384, { align = 1024 })
      local B = plan:alloc("B", "u8", 8192, { align = 1024 })
      local tm = ptx.tmem_plan()
      local acc = tm:alloc("acc", 64)
      local tid = ptx.special "tid.x"
      local warp = tid:shr(5)
      local env = { tid = tid, warp = warp, tm = tm, acc = acc, slot = slot, full = full, empty = empty, A = A, B = B, out = out }
      if o.alloc then o.alloc(ptx, env) else ptx.if_(warp:eq(0), function() tm:allocate(slot) end) end
      ptx.if_(tid:eq(0), function()
        ptx.op "mbarrier.init.shared::cta.b64" (full:addr(0), 1)
        ptx.op "mbarrier.init.shared::cta.b64" (empty:addr(0), o.empty_count or 1)
      end)
      ptx.tcgen05_fence("before")
      ptx.bar.sync(0)
      ptx.tcgen05_fence("after")
      local base = ptx.reg.u32()
      ptx.ld.shared.u32(base, slot:addr(0))
      env.base = base
      env.d = tm:address(base, acc)
      env.quarter = base + warp:shl(21)
      local sb = ptx.reg.u32()
      ptx.mov.u32(sb, ptx.sym "smem")
      env.sb = sb
      env.desc = function(off)                        -- 128B swizzle, SBO 1024, K-major
        local lo = ptx.reg.u32()
        ptx.op "add.u32" (lo, sb, off)
        ptx.op "shr.u32" (lo, lo, 4)
        ptx.op "and.b32" (lo, lo, 0x3fff)
        ptx.op "or.b32" (lo, lo, 65536)
        local dl, dh, dd = ptx.reg.u64(), ptx.reg.u64(), ptx.reg.b64()
        ptx.op "cvt.u64.u32" (dl, lo)
        ptx.op "mov.u64" (dh, o.desc_hi or (64 + 2 ^ 14 + 2 * 2 ^ 29))
        ptx.op "shl.b64" (dh, dh, 32)
        ptx.op "or.b64" (dd, dh, dl)
        return dd
      end
      env.mma = function(acc_on, d, idesc, kind)
        local p = ptx.reg.pred()
        if acc_on then ptx.setp.eq.u32(p, tid, tid) else ptx.setp.ne.u32(p, tid, tid) end
        local a, b = env.desc(A.offset), env.desc(B.offset)
        env.lmma = nextline()
        ptx.tcgen05_mma { d = d or env.d, a = a, b = b, idesc = idesc or BF16, accumulate = p, kind = kind }
      end
      env.ld = function()
        env.lld = nextline()
        local r = ptx.tcgen05_ld { shape = "32x32b", num = 4, taddr = env.quarter }
        return r
      end
      if o.issue then o.issue(ptx, env) else
        ptx.if_(tid:eq(0), function()
          env.mma(false)
          ptx.tcgen05_commit(full)
        end)
      end
      if o.consume then o.consume(ptx, env) else
        ptx.mbarrier_wait(full, 0)
        ptx.tcgen05_fence("after")
        env.ld()
        ptx.tcgen05_wait("ld")
      end
      if o.finish then o.finish(ptx, env) else
        ptx.tcgen05_fence("before")
        ptx.bar.sync(0)
        ptx.if_(warp:eq(0), function() tm:deallocate(base) end)
      end
    end }
  end
  local function run(o)
    local k = kernel(o)
    local out = dev:array("u32", 128 * 8)
    local ok, err = pcall(rt.launch, k, { device = dev, args = { out }, grid = { 1 }, block = { 128 } })
    out:free()
    return ok, err
  end
  local function fails(o)
    local ok, err = run(o)
    assert.is_false(ok, "it ran")
    return err
  end
  -- err is reported at line, and holds every string of ...
  local function at(err, line, ...)
    assert.matches(fmt("emu_tcgen05_spec.lua:%d: error: ", line), err, 1, true)
    for _, s in ipairs { ... } do assert.matches(s, err, 1, true) end
  end
  local function sync(p) p.tcgen05_fence("before"); p.bar.sync(0); p.tcgen05_fence("after") end

  it("runs the correct kernel", function()
    local ok, err = run {}
    assert.is_true(ok, err)
  end)

  -- check 1: reading D before its MMA is known complete
  it("flags a tcgen05.ld of D with no commit -> wait chain, at the ld, naming the MMA", function()
    local l1, l2
    local err = fails { issue = function(p, env)
      p.if_(env.tid:eq(0), function() env.mma(false); l1 = env.lmma end)
    end, consume = function(p, env)
      sync(p)
      env.ld(); l2 = env.lld
      p.tcgen05_wait("ld")
    end }
    at(err, l2, fmt("written by the tcgen05.mma of line %d (warp 0 of CTA (0,0,0)), whose completion this warp does not know", l1))
  end)
  it("flags a tcgen05.ld of D after the wait but without fence::after_thread_sync, naming the wait", function()
    local lw, ll
    local err = fails { consume = function(p, env)
      lw = here(); p.mbarrier_wait(env.full, 0)
      env.ld(); ll = env.lld
      p.tcgen05_wait("ld")
    end }
    at(err, ll, fmt("the wait at line %d orders it after that MMA's commit, but no tcgen05.fence::after_thread_sync came since", lw))
  end)
  it("flags an MMA accumulating into another thread's D it does not know complete", function()
    local l1, l2
    local err = fails { issue = function(p, env)
      p.if_(env.tid:eq(0), function() env.mma(false); l1 = env.lmma; p.tcgen05_commit(env.full) end)
      p.bar.sync(0)
      p.if_(env.tid:eq(32), function() env.mma(true); l2 = env.lmma end)
    end, consume = function() end, finish = function() end }
    at(err, l2, fmt("tcgen05.mma (D) reads tensor memory lane 0, column 0, written by the tcgen05.mma of line %d", l1))
  end)

  -- check 2: shared memory an MMA still reads, refilled before its completion is known
  for _, commit in ipairs { true, false } do
    it(commit and "accepts a stage released by tcgen05.commit and refilled after the wait"
              or "flags a stage released by a plain mbarrier.arrive and refilled (the store's line, naming the MMA)", function()
      local lm, ls
      local o = { issue = function(p, env)
        p.if_(env.tid:eq(0), function()
          env.mma(false); lm = env.lmma
          p.tcgen05_commit(env.full)
          if commit then p.tcgen05_commit(env.empty) else p.op "mbarrier.arrive.shared::cta.b64" (p._, env.empty:addr(0)) end
        end)
        p.if_(env.warp:eq(1), function()
          p.mbarrier_wait(env.empty, 0)
          ls = here(); p.st.shared.u32(p.addr(env.sb + env.A.offset + env.tid:shl(2)), 0)
        end)
      end }
      if commit then local ok, err = run(o); assert.is_true(ok, err); return end
      local err = fails(o)
      at(err, ls, "st.shared.u32 writes shared byte 0x", fmt("which the tcgen05.mma of line %d (warp 0 of CTA (0,0,0)) reads, and this thread does not know that MMA complete", lm))
    end)
  end

  it("flags a bulk copy refilling a stage released by a plain mbarrier.arrive, at the copy's line", function()
    local lm, lc
    local k = kernel { issue = function(p, env)
      p.if_(env.tid:eq(0), function()
        env.mma(false); lm = env.lmma
        p.tcgen05_commit(env.full)
        p.op "mbarrier.arrive.shared::cta.b64" (p._, env.empty:addr(0))
      end)
      p.if_(env.tid:eq(32), function()
        p.mbarrier_wait(env.empty, 0)
        local g = p.global_ptrs(env.out)
        p.op "mbarrier.arrive.expect_tx.shared::cta.b64" (p._, env.full:addr(0), 1024)
        lc = here(); p.op "cp.async.bulk.shared::cluster.global.mbarrier::complete_tx::bytes" (env.A:addr(0), p.addr(g), 1024, env.full:addr(0))
      end)
    end }
    local ok, err = pcall(rt.launch, k, { device = dev, args = { dev:array("u32", 1024) }, grid = { 1 }, block = { 128 } })
    assert.is_false(ok)
    at(err, lc, "cp.async.bulk.shared::cluster.global.mbarrier::complete_tx::bytes writes shared byte 0x",
       fmt("which the tcgen05.mma of line %d (warp 0 of CTA (0,0,0)) reads, and this thread does not know that MMA complete", lm))
  end)

  -- check 3: a hand-off of tensor memory without wait::ld / wait::st
  for _, waited in ipairs { true, false } do
    it(waited and "accepts D handed back after tcgen05.wait::ld" or "flags an MMA overwriting cells a tcgen05.ld not waited for still reads", function()
      local ll, lm
      local o = { empty_count = 4, consume = function(p, env)
        p.mbarrier_wait(env.full, 0)
        p.tcgen05_fence("after")
        env.ld(); ll = env.lld
        if waited then p.tcgen05_wait("ld") end
        p.tcgen05_fence("before")
        p.if_(env.tid:band(31):eq(0), function() p.op "mbarrier.arrive.shared::cta.b64" (p._, env.empty:addr(0)) end)
        p.if_(env.warp:eq(0), function()                -- the MMA warp: one thread issues
          p.mbarrier_wait(env.empty, 0)
          p.tcgen05_fence("after")
          p.if_(env.tid:eq(0), function() env.mma(false); lm = env.lmma; p.tcgen05_commit(env.full) end)
          p.mbarrier_wait(env.full, 1)
        end)
      end }
      if waited then local ok, err = run(o); assert.is_true(ok, err); return end
      at(fails(o), lm, fmt("which the tcgen05.ld of line %d (warp 0) still reads: that warp has not waited for it", ll))
    end)
  end
  it("flags an MMA reading cells a tcgen05.st of another warp wrote, not waited for", function()
    local ls, lm
    local err = fails { issue = function() end, consume = function(p, env)
      local regs = {}
      for i = 1, 64 do regs[i] = p.reg.u32(); p.mov.u32(regs[i], i) end
      ls = here(); p.tcgen05_st { shape = "32x32b", num = 64, taddr = env.quarter, regs = regs }
      p.if_(env.warp:ne(0), function() p.tcgen05_wait("st") end)
      sync(p)
      p.if_(env.tid:eq(32), function() env.mma(true); lm = env.lmma end)
    end, finish = function() end }
    at(err, lm, fmt("which the tcgen05.st of line %d (warp 0) writes: that warp has not waited for it", ls))
  end)
  it("flags a dealloc while a tcgen05.ld is not waited for", function()
    local ll, ld
    local err = fails { consume = function(p, env)
      p.mbarrier_wait(env.full, 0)
      p.tcgen05_fence("after")
      env.ld(); ll = env.lld
    end, finish = function(p, env)
      p.if_(env.warp:eq(0), function() ld = here(); env.tm:deallocate(env.base) end)
    end }
    at(err, ld, fmt("while the tcgen05.ld of line %d (warp 0) on them is not waited for", ll))
  end)

  -- check 4: the lane quarter
  it("flags a tcgen05.ld outside the warp's lane quarter, and takes a lane below 32 as the warp's own", function()
    local l
    local err = fails { consume = function(p, env)
      p.mbarrier_wait(env.full, 0)
      p.tcgen05_fence("after")
      p.tcgen05_ld { shape = "32x32b", num = 4, taddr = env.base }      -- relaxed: lane 0 is each warp's first
      p.tcgen05_wait("ld")
      p.if_(env.warp:eq(1), function() l = here(); p.tcgen05_ld { shape = "16x64b", num = 1, taddr = env.base + 64 * 65536 } end)
    end }
    at(err, l, "tcgen05.ld at lane 64: warp 1 (warp 1 of its warpgroup) may access lanes 32-63 only")
  end)

  it("reads a lane below 32 absolutely with checks = { tmem_lanes = true } (strict), at the ld's line", function()
    local l
    local o = { consume = function(p, env)
      p.mbarrier_wait(env.full, 0)
      p.tcgen05_fence("after")
      l = here(); p.tcgen05_ld { shape = "32x32b", num = 4, taddr = env.base }
      p.tcgen05_wait("ld")
    end }
    local ok, err = run(o)
    assert.is_true(ok, err)
    local k = kernel(o)
    ok, err = pcall(rt.launch, k, { device = dev, args = { dev:array("u32", 8) }, grid = { 1 }, block = { 128 },
                                   checks = { tmem_lanes = true } })
    assert.is_false(ok)
    at(err, l, "tcgen05.ld in warp 1 of CTA (0,0,0) at lane 0: the warp's lane quarter is lanes 32-63")
  end)

  -- check 5: allocations
  local function alloc_with(ncols_reg, pre)
    return function(p, env)
      p.if_(env.warp:eq(0), function()
        if pre then pre(p, env) end
        local n = p.reg.u32(); p.mov.u32(n, ncols_reg)
        env.aline = here(); p.op "tcgen05.alloc.cta_group::1.sync.aligned.shared::cta.b32" (env.slot:addr(0), n)
      end)
    end
  end
  it("flags an allocation of a column count that is not a power of 2 from 32 to 512", function()
    local env = {}
    local err = fails { alloc = function(p, e) alloc_with(48)(p, e); env.l = e.aline end }
    at(err, env.l, "nCols 48: a power of 2 from 32 to 512")
  end)
  it("flags an allocation after relinquish_alloc_permit, naming it", function()
    local env = {}
    local err = fails { alloc = function(p, e)
      p.if_(e.warp:eq(0), function() env.r = here(); e.tm:allocate(e.slot) end)
      alloc_with(32)(p, e); env.l = e.aline
    end }
    at(err, env.l, "an allocation after the CTA gave up its allocation permit (tcgen05.relinquish_alloc_permit at line")
  end)
  it("flags an allocation past 512 live columns (it would block forever)", function()
    local env = {}
    local err = fails { alloc = function(p, e)
      p.if_(e.warp:eq(0), function()
        local n = p.reg.u32(); p.mov.u32(n, 512)
        p.op "tcgen05.alloc.cta_group::1.sync.aligned.shared::cta.b32" (e.slot:addr(0), n)
      end)
      alloc_with(64)(p, e); env.l = e.aline
    end }
    at(err, env.l, "64 columns requested with 512 of the 512 allocated: tcgen05.alloc would block", "(would block forever)")
  end)
  it("flags an allocation of more columns than the one before", function()
    local env = {}
    local err = fails { alloc = function(p, e)
      p.if_(e.warp:eq(0), function()
        local n = p.reg.u32(); p.mov.u32(n, 32)
        p.op "tcgen05.alloc.cta_group::1.sync.aligned.shared::cta.b32" (e.slot:addr(0), n)
      end)
      alloc_with(64)(p, e); env.l = e.aline
    end }
    at(err, env.l, "64 columns after an allocation of 32 (line", "should not increase")
  end)
  it("flags an allocation by part of a warp", function()
    local l
    local err = fails { alloc = function(p, e)
      p.if_(e.tid:lt(16), function() l = here(); e.tm:allocate(e.slot) end)
    end }
    at(err, l, "needs all 32 threads of the warp")
  end)

  -- check 6: deallocations
  it("flags a dealloc of columns no allocation holds", function()
    local l
    local err = fails { finish = function(p, env)
      sync(p)
      p.if_(env.warp:eq(0), function()
        l = here(); p.op "tcgen05.dealloc.cta_group::1.sync.aligned.b32" (env.base, 32)
      end)
    end }
    at(err, l, "deallocates 32 columns at 0x00000000 (lane 0, column 0), which no live allocation of this CTA is", "64 columns at 0")
  end)
  it("flags a dealloc by another warp than the allocating one", function()
    local l
    local err = fails { finish = function(p, env)
      sync(p)
      p.if_(env.warp:eq(2), function() l = here(); env.tm:deallocate(env.base) end)
    end }
    at(err, l, "warp 2 deallocates columns 0-63, which warp 0 allocated at line")
  end)
  it("flags a missing dealloc at the allocation's line when the CTA exits", function()
    local l
    local err = fails { alloc = function(p, e)
      p.if_(e.warp:eq(0), function() l = here(); e.tm:allocate(e.slot) end)
    end, finish = function() end }
    assert.matches("missing dealloc: the 64 columns (0-63) warp 0 of CTA (0,0,0) allocated here are still allocated when the CTA exits", err, 1, true)
    assert.matches(fmt(":%d: error: ", l), err, 1, true)
  end)

  -- checks 8 and 9: descriptors and D
  local function issue_with(f)
    return { issue = function(p, env)
      p.if_(env.tid:eq(0), function() f(p, env); p.tcgen05_commit(env.full) end)
    end }
  end
  it("flags an instruction descriptor with a reserved bit set", function()
    local l
    local err = fails(issue_with(function(p, env) env.mma(false, nil, BF16 + 2 ^ 23); l = env.lmma end))
    at(err, l, "an invalid instruction descriptor for .kind::f16", "reserved bits 0x00800000 are set")
  end)
  it("flags the sparse bit in a dense MMA's instruction descriptor", function()
    local l
    local err = fails(issue_with(function(p, env) env.mma(false, nil, BF16 + 4); l = env.lmma end))
    at(err, l, "sets the sparse bit (2), but this is not tcgen05.mma.sp")
  end)
  it("flags a shared-memory descriptor without the fixed bits 46-48", function()
    local l
    local o = issue_with(function(p, env) env.mma(false); l = env.lmma end)
    o.desc_hi = 64 + 2 * 2 ^ 29
    local err = fails(o)
    at(err, l, "an invalid shared-memory descriptor", "bits 46-48 are 0, the tcgen05 layout fixes them at 0b001")
  end)
  it("flags D outside the allocation", function()
    local l
    local err = fails(issue_with(function(p, env)
      local d = p.reg.b32(); p.op "add.u32" (d, env.base, 32)
      env.mma(false, d); l = env.lmma
    end))
    at(err, l, "D: columns 32-95 of CTA (0,0,0) are not inside one allocation (allocated: columns 0-63")
  end)
  it("flags an M=128 D whose lane field is not 0", function()
    local l
    local err = fails(issue_with(function(p, env)
      local d = p.reg.b32(); p.op "add.u32" (d, env.base, 16 * 65536)
      env.mma(false, d); l = env.lmma
    end))
    at(err, l, "lane field 16, where an M=128 D starts at lane 0")
  end)
  it("flags enable-input-d on cells never written", function()
    local l
    local err = fails(issue_with(function(p, env) env.mma(true); l = env.lmma end))
    at(err, l, "enable-input-d is true, but D's lane 0, column 0 of CTA (0,0,0) was never written")
  end)

  -- check 10: one thread issues
  it("flags an MMA issued by every thread of a warp", function()
    local l
    local err = fails { issue = function(p, env)
      p.if_(env.warp:eq(0), function() env.mma(false); l = env.lmma end)
    end, consume = function() end, finish = function() end }
    at(err, l, "issued by 32 threads of the warp at once: each thread issues its own MMA (32 of them)")
  end)
  it("flags a commit by every thread of a warp", function()
    local l
    local err = fails { issue = function(p, env)
      p.if_(env.tid:eq(0), function() env.mma(false) end)
      p.if_(env.warp:eq(0), function() l = here(); p.tcgen05_commit(env.full) end)
    end, consume = function() end, finish = function() end }
    at(err, l, "issued by 32 threads of the warp at once")
  end)

  -- the operands all ones (u8 1, or bf16 0x0101 = a small positive number), by generic stores
  local function ones(p, env)
    for _, t in ipairs { env.A, env.B } do
      for i = 0, t.size / 4 - 1, 128 do
        p.st.shared.u32(p.addr(env.sb + t.offset + (env.tid + i):shl(2)), 0x01010101)
      end
    end
    p.op "fence.proxy.async.shared::cta" ()
    sync(p)
  end
  -- D (64 columns) of every lane set to v by tcgen05.st, then waited and handed to thread 0
  local function preset(p, env, v)
    local regs = {}
    for i = 1, 64 do regs[i] = p.reg.u32(); p.mov.u32(regs[i], v) end
    p.tcgen05_st { shape = "32x32b", num = 64, taddr = env.quarter, regs = regs }
    p.tcgen05_wait("st")
    sync(p)
  end
  local function readback(p, env, out)
    p.mbarrier_wait(env.full, 0)
    p.tcgen05_fence("after")
    local r = p.tcgen05_ld { shape = "32x32b", num = 2, taddr = env.quarter }
    p.tcgen05_wait("ld")
    local g = p.global_ptrs(out)
    p.st.global.u32(p.addr(g + env.tid:mul_wide(8)), r[1])
    p.st.global.u32(p.addr(g + env.tid:mul_wide(8), 4), r[2])
  end
  for _, sat in ipairs { true, false } do
    it(sat and ".kind::i8 with saturate clamps an accumulation past 2^31 - 1" or ".kind::i8 without saturate wraps", function()
      local idesc = H.fresh().tcgen05_idesc { kind = "i8", d = "s32", a = "u8", b = "u8", m = 128, n = 64, saturate = sat }
      local kern = kernel { issue = function(p, env)
        ones(p, env)
        preset(p, env, 0x7ffffff0)
        p.if_(env.tid:eq(0), function() env.mma(true, nil, idesc, "i8"); p.tcgen05_commit(env.full) end)
      end, consume = function(p, env) readback(p, env, env.out) end }
      local out = dev:array("u32", 256):poison()
      rt.launch(kern, { device = dev, args = { out }, grid = { 1 }, block = { 128 } })
      local got = out:read()
      out:free()
      for t = 1, 256 do assert.are.equal(sat and 0x7fffffff or 0x80000010, got[t]) end
    end)
  end

  it("leaves the rows of disabled output lanes alone (disable-output-lane)", function()
    local kern = kernel { issue = function(p, env)
      preset(p, env, 0x3f800000)                        -- 1.0f everywhere
      p.if_(env.tid:eq(0), function()
        local mask = {}
        for i = 1, 4 do mask[i] = p.reg.b32(); p.mov.b32(mask[i], ({ 0x5, 0, 0x80000000, 0xffffffff })[i]) end
        local f = p.reg.pred(); p.setp.ne.u32(f, env.tid, env.tid)
        p.op "tcgen05.mma.cta_group::1.kind::f16" (p.addr(env.d), env.desc(env.A.offset), env.desc(env.B.offset), BF16, mask, f)
        p.tcgen05_commit(env.full)
      end)
    end, consume = function(p, env) readback(p, env, env.out) end }
    local out = dev:array("u32", 256):poison()
    rt.launch(kern, { device = dev, args = { out }, grid = { 1 }, block = { 128 } })
    local got = out:read()
    out:free()
    for lane = 0, 127 do
      local off = lane == 0 or lane == 2 or lane == 95 or lane >= 96
      assert.are.equal(off and 0x3f800000 or 0, got[2 * lane + 1], "lane " .. lane)
    end
  end)

  it("takes .collector::a::fill then ::use of the same A, and flags a ::use naming another A", function()
    local function mk(other)
      local lu
      local kern = kernel { issue = function(p, env)
        ones(p, env)
        p.if_(env.tid:eq(0), function()
          if other then p.st.shared.u32(p.addr(env.sb + env.A.offset), 0x3f803f80); p.op "fence.proxy.async.shared::cta" () end
          local f = p.reg.pred(); p.setp.ne.u32(f, env.tid, env.tid)
          local t = p.reg.pred(); p.setp.eq.u32(t, env.tid, env.tid)
          p.op "tcgen05.mma.cta_group::1.kind::f16.collector::a::fill" (p.addr(env.d), env.desc(env.A.offset), env.desc(env.B.offset), BF16, f)
          local a2 = env.desc(other and env.A.offset + 1024 or env.A.offset)   -- other: rows 8.. (row 0 differs)
          lu = here(); p.op "tcgen05.mma.cta_group::1.kind::f16.collector::a::use" (p.addr(env.d), a2, env.desc(env.B.offset), BF16, t)
          p.tcgen05_commit(env.full)
        end)
      end }
      return kern, function() return lu end
    end
    local ok, err = pcall(rt.launch, (mk(false)), { device = dev, args = { dev:array("u32", 8) }, grid = { 1 }, block = { 128 } })
    assert.is_true(ok, err)
    local kern, lu = mk(true)
    ok, err = pcall(rt.launch, kern, { device = dev, args = { dev:array("u32", 8) }, grid = { 1 }, block = { 128 } })
    assert.is_false(ok)
    at(err, lu(), ".collector::a::use: A[", "differs from what the .collector::a::fill of line")
  end)

  it("multicasts a commit to the mbarrier of every CTA of its mask (a cluster of 2, cta_group::1)", function()
    local ptx = H.fresh()
    local k = ptx.kernel { name = "mc", target = "sm_100a", cluster = { 2, 1, 1 }, params = { { "out", "u32*" } }, body = function(_, out)
      local plan = ptx.smem_plan()
      local slot = plan:alloc("slot", "u32", 1, { align = 16 })
      local full = plan:alloc("full", "b64", 1, { align = 8 })
      local A = plan:alloc("A", "u8", 16384, { align = 1024 })
      local tm = ptx.tmem_plan()
      local acc = tm:alloc("acc", 64)
      local tid = ptx.special "tid.x"
      local warp = tid:shr(5)
      local rank = ptx.reg.u32()
      ptx.mov.u32(rank, ptx.special "cluster_ctarank")
      ptx.if_(warp:eq(0), function() tm:allocate(slot) end)
      ptx.if_(tid:eq(0), function() ptx.op "mbarrier.init.shared::cta.b64" (full:addr(0), 1) end)
      ptx.op "fence.mbarrier_init.release.cluster" ()
      ptx.tcgen05_fence("before")
      ptx.op "barrier.cluster.arrive.aligned" ()
      ptx.op "barrier.cluster.wait.aligned" ()
      ptx.tcgen05_fence("after")
      local base = ptx.reg.u32()
      ptx.ld.shared.u32(base, slot:addr(0))
      ptx.if_(tid:eq(0), function()
        ptx.if_(rank:eq(0), function()
          local lo, dh, dl, dd = ptx.reg.u32(), ptx.reg.u64(), ptx.reg.u64(), ptx.reg.b64()
          ptx.mov.u32(lo, ptx.sym "smem")
          ptx.op "add.u32" (lo, lo, A.offset)
          ptx.op "shr.u32" (lo, lo, 4)
          ptx.op "or.b32" (lo, lo, 65536)
          ptx.op "cvt.u64.u32" (dl, lo)
          ptx.op "mov.u64" (dh, 64 + 2 ^ 14 + 2 * 2 ^ 29)
          ptx.op "shl.b64" (dh, dh, 32)
          ptx.op "or.b64" (dd, dh, dl)
          local f = ptx.reg.pred(); ptx.setp.ne.u32(f, tid, tid)
          ptx.tcgen05_mma { d = tm:address(base, acc), a = dd, b = dd, idesc = 0x08100490, accumulate = f }
          local mask = ptx.reg.u16()
          ptx.mov.u16(mask, 3)
          ptx.tcgen05_commit(full, { multicast = mask })
        end)
      end)
      ptx.mbarrier_wait(full, 0)                      -- in both CTAs: the multicast arrives on each
      ptx.tcgen05_fence("after")
      ptx.if_(rank:eq(0), function()
        local r = ptx.tcgen05_ld { shape = "32x32b", num = 1, taddr = base + warp:shl(21) }
        ptx.tcgen05_wait("ld")
        local g = ptx.global_ptrs(out)
        ptx.st.global.u32(ptx.addr(g + tid:mul_wide(4)), r[1])
      end)
      ptx.tcgen05_fence("before")
      ptx.op "barrier.cluster.arrive.aligned" ()
      ptx.op "barrier.cluster.wait.aligned" ()
      ptx.if_(warp:eq(0), function() tm:deallocate(base) end)
    end }
    local out = dev:array("u32", 128):poison()
    local ok, err = pcall(rt.launch, k, { device = dev, args = { out }, grid = { 2 }, block = { 128 } })
    assert.is_true(ok, err)
    for t = 1, 128 do assert.are.equal(0, out:read()[t]) end
  end)

  -- check 7: CTA pairs
  local function pair_kernel(cluster, peer_allocates)
    local ptx = H.fresh()
    local lines = {}
    local k = ptx.kernel { name = "pr", target = "sm_100a", cluster = cluster, params = { { "out", "u32*" } }, body = function()
      local plan = ptx.smem_plan()
      local slot = plan:alloc("slot", "u32", 1, { align = 16 })
      local A = plan:alloc("A", "u8", 16384, { align = 1024 })
      local tm = ptx.tmem_plan { cta_group = 2 }
      local acc = tm:alloc("acc", 64)
      local tid = ptx.special "tid.x"
      local rank = ptx.reg.u32()
      ptx.mov.u32(rank, ptx.special "cluster_ctarank")
      local who = tid:shr(5):eq(0)
      if not peer_allocates then who = who:band(rank:eq(0)) end
      ptx.if_(who, function() lines.alloc = here(); tm:allocate(slot) end)
      ptx.tcgen05_fence("before")
      ptx.op "barrier.cluster.arrive.aligned" ()
      ptx.op "barrier.cluster.wait.aligned" ()
      ptx.tcgen05_fence("after")
      local base = ptx.reg.u32()
      ptx.ld.shared.u32(base, slot:addr(0))
      ptx.if_(tid:eq(0):band(rank:eq(0)), function()
        local lo, dh, dl, dd = ptx.reg.u32(), ptx.reg.u64(), ptx.reg.u64(), ptx.reg.b64()
        ptx.mov.u32(lo, ptx.sym "smem")
        ptx.op "add.u32" (lo, lo, A.offset)
        ptx.op "shr.u32" (lo, lo, 4)
        ptx.op "or.b32" (lo, lo, 65536)
        ptx.op "cvt.u64.u32" (dl, lo)
        ptx.op "mov.u64" (dh, 64 + 2 ^ 14 + 2 * 2 ^ 29)
        ptx.op "shl.b64" (dh, dh, 32)
        ptx.op "or.b64" (dd, dh, dl)
        local f = ptx.reg.pred(); ptx.setp.ne.u32(f, tid, tid)
        local idesc = ptx.tcgen05_idesc { kind = "f16", d = "f32", a = "bf16", b = "bf16", m = 256, n = 64, cta_group = 2 }
        lines.mma = here(); ptx.tcgen05_mma { d = tm:address(base, acc), a = dd, b = dd, idesc = idesc, accumulate = f }
      end)
    end }
    return k, lines
  end
  it("flags a cta_group::2 allocation outside a cluster of CTA pairs", function()
    local k, lines = pair_kernel(nil, true)
    local ok, err = pcall(rt.launch, k, { device = dev, args = { dev:array("u32", 4) }, grid = { 1 }, block = { 128 } })
    assert.is_false(ok)
    at(err, lines.alloc, "tcgen05.alloc.cta_group::2 in a cluster of 1 CTA: a CTA pair is two CTAs of a cluster")
  end)
  it("flags a pair MMA whose D the peer CTA has not allocated", function()
    local k, lines = pair_kernel({ 2, 1, 1 }, false)
    local ok, err = pcall(rt.launch, k, { device = dev, args = { dev:array("u32", 4) }, grid = { 2 }, block = { 128 } })
    assert.is_false(ok)
    at(err, lines.mma, "D: columns 0-63 of CTA (1,0,0) are not inside one allocation (none is live)")
  end)
end)

-- ---- tcgen05.cp: shared memory to tensor memory -----------------------------------------------
-- The source is the shape's rows x bytes read through the descriptor (no swizzle, K-major: byte
-- j of row r at (r % 8) * 16 + (r / 8) * SBO + (j / 16) * LBO + j % 16), row r into lane r, byte j
-- into column j / 4 at bits 8 (j % 4); .32x128b.warpx4 writes its 32 rows into every lane quarter.
describe("emulated tcgen05.cp", function()
  local dev = rt.device("emu")
  local SHAPES = {
    ["128x256b"] = { rows = 128, bytes = 32 },
    ["128x128b"] = { rows = 128, bytes = 16 },
    ["32x128b.warpx4"] = { rows = 32, bytes = 16, reps = 4 },
  }
  local LBO, SBO = 2048, 256
  local function pat(i, rank) return (i * 7 + 3 + 97 * (rank or 0)) % 251 end   -- byte i of CTA rank's region
  local function src(r, j) return (r % 8) * 16 + math.floor(r / 8) * SBO + math.floor(j / 16) * LBO + j % 16 end

  -- 128 threads fill 8 KB of shared memory with pat, thread 0 copies with tcgen05.cp (o.cp: the
  -- shape) to column 0 and commits (unless o.nocommit), every warp waits (o.nowait: not), fences
  -- and reads its lane quarter's o.ncol (8) columns with 32x32b into out. o.pair: a cluster of 2,
  -- each CTA its own pattern, the even CTA's thread 0 copies with .cta_group::2 and commits to
  -- both CTAs' barriers
  local function cp_kernel(o)
    local ptx = H.fresh()
    local pair = o.pair
    return ptx.kernel { name = "cp", target = "sm_100a", params = { { "out", "u32*" } }, cluster = pair and { 2, 1, 1 } or nil,
      body = function(_, out)
      local plan = ptx.smem_plan()
      local slot = plan:alloc("slot", "u32", 1, { align = 16 })
      local bar = plan:alloc("bar", "b64", 1, { align = 8 })
      local region = plan:alloc("src", "u32", 2048, { align = 1024 })
      local tm = ptx.tmem_plan { cta_group = pair and 2 or 1 }
      local acc = tm:alloc("acc", 32)
      local tid = ptx.special "tid.x"
      local warp = tid:shr(5)
      ptx.if_(warp:eq(0), function() tm:allocate(slot) end)
      ptx.if_(tid:eq(0), function() ptx.op "mbarrier.init.shared::cta.b64" (bar:addr(0), 1) end)
      local sb = ptx.reg.u32()
      ptx.mov.u32(sb, ptx.sym "smem")
      local rank = ptx.reg.u32()
      ptx.mov.u32(rank, pair and ptx.special "cluster_ctarank" or 0)
      local function cta_sync() sync_ctas(ptx, pair) end
      for i = 0, 2047, 128 do
        local w = ptx.reg.u32()
        local idx = tid + i
        -- word idx: bytes 4 idx .. 4 idx + 3 of pat
        local b0 = idx:shl(2)
        ptx.mov.u32(w, 0)
        for j = 3, 0, -1 do
          local v = ptx.reg.u32()
          ptx.op "mad.lo.u32" (v, b0 + j, 7, 3)
          local r97 = ptx.reg.u32()
          ptx.op "mul.lo.u32" (r97, rank, 97)
          ptx.op "add.u32" (v, v, r97)
          ptx.op "rem.u32" (v, v, 251)
          ptx.op "shl.b32" (w, w, 8)
          ptx.op "or.b32" (w, w, v)
        end
        ptx.st.shared.u32(ptx.addr(sb + region.offset + idx:shl(2)), w)
      end
      local base, d = handoff(ptx, pair, not o.noproxy, slot, tm, acc)
      ptx.if_(tid:eq(0):band(rank:eq(0)), function()
        local dd = plain_desc(ptx, sb, region.offset, LBO, SBO)
        o.lcp = nextline()
        ptx.op("tcgen05.cp.cta_group::" .. (pair and 2 or 1) .. "." .. o.cp) (ptx.addr(d), dd)
        if pair then
          local mask = ptx.reg.u16()
          ptx.mov.u16(mask, 3)
          ptx.tcgen05_commit(bar, { multicast = mask })
        elseif not o.nocommit then ptx.tcgen05_commit(bar) end
      end)
      -- no wait: a barrier still orders the issue before every warp's load (each then reads
      -- cells the cp wrote, not cells nothing wrote yet), but not the copy's completion
      if not o.nowait then ptx.mbarrier_wait(bar, 0) else cta_sync() end
      ptx.tcgen05_fence("after")
      local q = ptx.reg.u32()
      ptx.op "add.u32" (q, d, warp:shl(21))
      local nc = o.ncol or 8
      o.lld = nextline()
      local r = ptx.tcgen05_ld { shape = "32x32b", num = nc, taddr = q }
      ptx.tcgen05_wait("ld")
      local p = ptx.global_ptrs(out) + tid:mul_wide(32) + rank:mul_wide(128 * 32)
      for j = 1, nc do ptx.st.global.u32(ptx.addr(p, (j - 1) * 4), r[j]) end
      ptx.tcgen05_fence("before")
      cta_sync()
      ptx.if_(warp:eq(0), function() tm:deallocate(base) end)
    end }
  end
  local function run(o)
    local k = cp_kernel(o)
    local nc = o.pair and 2 or 1
    local out = dev:array("u32", 128 * 8 * nc):fill(0)
    local ok, err = pcall(rt.launch, k, { device = dev, args = { out }, grid = { nc }, block = { 128 } })
    local got = ok and out:read() or nil
    out:free()
    return ok, err, got
  end

  for name, s in pairs(SHAPES) do
    for _, pair in ipairs { false, true } do
      it(fmt("copies .%s row r into lane r (bytes in increasing columns)%s%s", name, s.reps and ", in every lane quarter" or "",
             pair and "; .cta_group::2 into both CTAs, each from its own shared memory" or ""), function()
        -- the cells of the copy's columns, as the warp of each lane quarter reads them
        local o = { cp = name, ncol = s.bytes / 4, pair = pair }
        local ok, err, got = run(o)
        assert.is_true(ok, err)
        for rank = 0, pair and 1 or 0 do
          for lane = 0, 127 do
            local r = s.reps and lane % 32 or lane
            for c = 0, s.bytes / 4 - 1 do
              local want = 0
              for j = 3, 0, -1 do want = want * 256 + pat(src(r, 4 * c + j), rank) end
              assert.are.equal(want, got[rank * 1024 + lane * 8 + c + 1], fmt("CTA %d lane %d column %d", rank, lane, c))
            end
          end
        end
      end)
    end
  end

  local function at(err, line, ...)
    assert.matches(fmt("emu_tcgen05_spec.lua:%d: error: ", line), err, 1, true)
    for _, x in ipairs { ... } do assert.matches(x, err, 1, true) end
  end
  it("flags a tcgen05.ld of cells a tcgen05.cp wrote before its commit is known complete, naming the cp", function()
    local o = { cp = "128x256b", nocommit = true, nowait = true }
    local ok, err = run(o)
    assert.is_false(ok, "it ran")
    at(err, o.lld, fmt("written by the tcgen05.cp of line %d", o.lcp), "does not know")
  end)
  it("flags a tcgen05.cp reading generic writes without fence.proxy.async, at the cp", function()
    local o = { cp = "128x128b", ncol = 4, noproxy = true }
    local ok, err = run(o)
    assert.is_false(ok, "it ran")
    at(err, o.lcp, "fence.proxy.async")
  end)
  for _, f in ipairs { { "4x256b", "not pinned" }, { "64x128b.warpx2::02_13", "not pinned" },
                       { "64x128b.warpx2::01_23", "not pinned" },
                       { "128x128b.b8x16.b6x16_p32", "figure" }, { "128x256b.b8x16.b4x16_p64", "figure" } } do
    it(fmt("says .%s is not emulated, at the cp", f[1]), function()
      local o = { cp = f[1] }
      local ok, err = run(o)
      assert.is_false(ok, "it ran")
      at(err, o.lcp, "is not emulated", f[2])
    end)
  end
end)

-- ---- tcgen05.mma, the block-scaled kinds and the 4- and 6-bit elements ---------------------------
-- M 128, N 64, two MMAs into D (the second accumulating), K-major A and B without swizzle, 64 bytes
-- a row: 8-bit elements (K 32 an MMA); e2m1 two a byte (.kind::mxf4, mxf4nvf4: K 64); 4- and 6-bit
-- elements in 16-byte chunks of 16 (.kind::f8f6f4, mxf8f6f4: K 32), the chunk's padding filled
-- with junk the MMA must not read as elements. Block-scaled: nsf scale factors a row of A (column
-- of B) and MMA, each different, over blocks of K / nsf; factor g of a row (g = j nsf + s for MMA
-- j) in atom g // 4 (512 bytes: row r at byte 16 (r % 32) + 4 (r / 32) + g % 4), each atom copied
-- to four tensor-memory columns with tcgen05.cp .32x128b.warpx4; MMA j names its atom and byte
-- (the SF IDs of its descriptor: 1X byte j, 2X half-word 2j, 4X a whole atom, ID 0).
TYPES.e2m1 = { code = true, nbits = 4, val = function(c) return minifloat(c, 2, 1, 1) end }
TYPES.e2m3 = { code = true, nbits = 6, val = function(c) return minifloat(c, 2, 3, 1) end }
TYPES.e3m2 = { code = true, nbits = 6, val = function(c) return minifloat(c, 3, 2, 3) end }
local UE = {
  ue8m0 = { code = function(r, g, salt) return 127 + (r * 5 + g * 3 + salt) % 9 - 4 end,    -- 2^-4 .. 2^4
            val = function(c) return 2 ^ (c - 127) end },
  ue4m3 = { code = function(r, g, salt) return 0x28 + (r * 5 + g * 3 + salt) % 32 end,     -- 0.25 .. 3.75
            val = function(c) return minifloat(c, 4, 3, 7) end },
}
-- row i of an R x K operand (codes) as its 64 shared bytes
local function row_bytes(codes, i, K, tn, packed)
  local nb, out = TYPES[tn].nbits, {}
  local function c(k) return codes[i * K + k + 1] end
  if not nb then for k = 0, K - 1 do out[k + 1] = c(k) end return out end
  if packed then for j = 0, K / 2 - 1 do out[j + 1] = c(2 * j) + 16 * c(2 * j + 1) end return out end
  for ch = 0, K / 16 - 1 do                           -- 16 elements packed from the chunk's byte 0
    local bytes = {}
    for q = 0, 15 do bytes[q] = (q * 37 + 0xa5) % 256 end   -- the padding: junk
    for q = 0, nb * 2 - 1 do bytes[q] = 0 end
    for e = 0, 15 do
      local v, b0 = c(16 * ch + e), nb * e
      for t = 0, nb - 1 do
        if bit.band(v, 2 ^ t) ~= 0 then
          local p = b0 + t
          bytes[floor(p / 8)] = bytes[floor(p / 8)] + 2 ^ (p % 8)
        end
      end
    end
    for q = 0, 15 do out[16 * ch + q + 1] = bytes[q] end
  end
  return out
end

describe("emulated tcgen05.mma block-scaled", function()
  local dev = rt.device("emu")
  local M, N = 128, 64
  local CASES = {
    { name = ".kind::mxf8f6f4 e4m3 x e5m2, scale_vec::1X", kind = "mxf8f6f4", a = "e4m3", b = "e5m2", sv = "1X", scale = "ue8m0", nsf = 1 },
    { name = ".kind::mxf4 e2m1, scale_vec::2X (the j-th MMA half-word 2j)", kind = "mxf4", a = "e2m1", b = "e2m1", sv = "2X", scale = "ue8m0", nsf = 2 },
    { name = ".kind::mxf4 e2m1, no scale vector (block32)", kind = "mxf4", a = "e2m1", b = "e2m1", scale = "ue8m0", nsf = 2 },
    { name = ".kind::mxf4nvf4 e2m1, scale_vec::4X with ue4m3 factors (nvfp4)", kind = "mxf4nvf4", a = "e2m1", b = "e2m1", sv = "4X", scale = "ue4m3", nsf = 4 },
    { name = ".kind::mxf4nvf4 e2m1, block16 with ue8m0 factors", kind = "mxf4nvf4", a = "e2m1", b = "e2m1", block = 16, scale = "ue8m0", nsf = 4 },
    { name = ".kind::mxf4nvf4 e2m1, block32 (2X) with ue8m0 factors", kind = "mxf4nvf4", a = "e2m1", b = "e2m1", block = 32, scale = "ue8m0", nsf = 2 },
    { name = ".kind::mxf8f6f4 e2m1 x e3m2 (padded 4- and 6-bit chunks)", kind = "mxf8f6f4", a = "e2m1", b = "e3m2", sv = "1X", scale = "ue8m0", nsf = 1 },
    { name = ".kind::mxf8f6f4 e2m3 x e4m3", kind = "mxf8f6f4", a = "e2m3", b = "e4m3", sv = "1X", scale = "ue8m0", nsf = 1 },
    { name = ".kind::f8f6f4 e2m1 x e2m3, no scales", kind = "f8f6f4", a = "e2m1", b = "e2m3" },
    { name = ".kind::f8f6f4 e3m2 x e5m2, no scales", kind = "f8f6f4", a = "e3m2", b = "e5m2" },
  }
  local function setup(c)
    local packed = c.kind == "mxf4" or c.kind == "mxf4nvf4"
    local KM = packed and 64 or 32                   -- K of one MMA
    local K = 2 * KM
    local nsf = c.nsf or 0
    local na = math.max(1, math.ceil(2 * nsf / 4))    -- scale atoms a matrix
    local S = {
      c = c, packed = packed, KM = KM, K = K, nsf = nsf, na = na,
      A = gen(c.a, M * K, 23), B = gen(c.b, N * K, 29),
      AOFF = 0, BOFF = 8192, SAOFF = 12288, SBOFF = 12288 + 512 * na, TOTAL = 12288 + 1024 * na,
    }
    function S.sfcode(r, g, salt) return UE[c.scale or "ue8m0"].code(r, g, salt) end
    return S
  end

  local function image(S)
    local img = {}
    for i = 1, S.TOTAL do img[i] = 0 end
    local function operand(off, codes, R, tn)
      local bytes = {}
      for i = 0, R - 1 do
        local rb = row_bytes(codes, i, S.K, tn, S.packed)
        for j = 1, 64 do bytes[i * 64 + j] = rb[j] end
      end
      place(img, off, bytes, R, 64, 1, false, "none")
    end
    operand(S.AOFF, S.A, M, S.c.a)
    operand(S.BOFF, S.B, N, S.c.b)
    for r = 0, 127 do
      for g = 0, 2 * S.nsf - 1 do
        local at = 512 * floor(g / 4) + 16 * (r % 32) + 4 * floor(r / 32) + g % 4
        img[S.SAOFF + at + 1] = S.sfcode(r, g, 0)
        img[S.SBOFF + at + 1] = S.sfcode(r, g, 4)
      end
    end
    if S.spoil_sf then img[S.SAOFF + 1] = S.spoil_sf end
    local words = {}
    for i = 1, S.TOTAL, 4 do words[#words + 1] = img[i] + img[i + 1] * 256 + img[i + 2] * 65536 + img[i + 3] * 16777216 end
    return words
  end

  -- o.cp_tid: the thread that issues the copies (0: the MMA thread); o.st_sfa: scale-A's first
  -- atom by tcgen05.st instead ("spoil": warp 2's copy of row 0 differs); o.sfa_id: MMA 0's IDs
  -- instead of its own; o.lmma, o.lcp: their lines
  local function kernel(S, o)
    local c = S.c
    local ptx = H.fresh()
    local idesc = {}
    for j = 0, 1 do
      local id = (j * S.nsf) % 4
      if o.sfa_id and j == 0 then id = o.sfa_id end
      idesc[j] = c.nsf and ptx.tcgen05_idesc { kind = c.kind, a = c.a, b = c.b, m = M, n = N, scale = c.scale, sfa_id = id, sfb_id = id }
                 or ptx.tcgen05_idesc { kind = c.kind, d = "f32", a = c.a, b = c.b, m = M, n = N }
    end
    return ptx.kernel { name = "bs", target = "sm_100a", params = { { "img", "u32*" }, { "out", "u32*" } }, body = function(_, img, out)
      local plan = ptx.smem_plan()
      local slot = plan:alloc("slot", "u32", 1, { align = 16 })
      local bar = plan:alloc("bar", "b64", 1, { align = 8 })
      local region = plan:alloc("ab", "u32", S.TOTAL / 4, { align = 1024 })
      local tm = ptx.tmem_plan()
      local acc = tm:alloc("acc", 128)
      local tid = ptx.special "tid.x"
      local warp = tid:shr(5)
      ptx.if_(warp:eq(0), function() tm:allocate(slot) end)
      ptx.if_(tid:eq(0), function() ptx.op "mbarrier.init.shared::cta.b64" (bar:addr(0), 1) end)
      local gi = ptx.global_ptrs(img)
      local sb = ptx.reg.u32()
      ptx.mov.u32(sb, ptx.sym "smem")
      for i = 0, S.TOTAL / 4 - 1, 128 do
        local function copy()
          local v = ptx.reg.u32()
          ptx.ld.global.u32(v, ptx.addr(gi + (tid + i):mul_wide(4)))
          ptx.st.shared.u32(ptx.addr(sb + region.offset + (tid + i):shl(2)), v)
        end
        -- o.skip: A's words left unwritten, "pad" its chunks' padding (words 2-3 of 4, 4-bit A),
        -- "data" a word of elements
        if o.skip and i < S.BOFF / 4 then
          local keep = o.skip == "pad" and tid:band(3):lt(2) or tid:ne(5)
          ptx.if_(keep, copy)
        else copy() end
      end
      local base, d = handoff(ptx, false, true, slot, tm, acc)
      local sfa, sfb = {}, {}
      for a = 0, S.na - 1 do
        sfa[a] = tm:address(base, acc, 0, N + 4 * a)
        sfb[a] = tm:address(base, acc, 0, N + 4 * S.na + 4 * a)
      end
      local function desc(off, lbo, sbo) return plain_desc(ptx, sb, region.offset + off, lbo, sbo) end
      if o.st_sfa then                                -- scale-A's atom 0 by tcgen05.st: every warp its quarter
        local l = tid:band(31)
        local regs = {}
        for q = 0, 3 do
          local v = ptx.reg.u32()
          ptx.ld.global.u32(v, ptx.addr(gi + (l:shl(2) + (S.SAOFF / 4 + q)):mul_wide(4)))
          if q == 0 and o.st_sfa == "spoil" then       -- warp 2's copy of row 0 differs
            local p = ptx.reg.pred()
            ptx.setp.eq.u32(p, tid, 64)
            ptx.at(p).add.u32(v, v, 1)
          end
          regs[#regs + 1] = v
        end
        local q = ptx.reg.u32()
        ptx.op "add.u32" (q, sfa[0], warp:shl(21))
        ptx.tcgen05_st { shape = "32x32b", num = 4, taddr = q, regs = regs }
        ptx.tcgen05_wait("st")
      end
      if c.nsf then
        ptx.if_(tid:eq(o.cp_tid or 0), function()
          for a = 0, S.na - 1 do
            if a == 0 then o.lcp = nextline() end
            if not (o.st_sfa and a == 0) then ptx.op "tcgen05.cp.cta_group::1.32x128b.warpx4" (ptx.addr(sfa[a]), desc(S.SAOFF + 512 * a, 16, 128)) end
            ptx.op "tcgen05.cp.cta_group::1.32x128b.warpx4" (ptx.addr(sfb[a]), desc(S.SBOFF + 512 * a, 16, 128))
          end
        end)
      end
      if o.cp_tid or o.st_sfa then
        ptx.tcgen05_fence("before")
        ptx.bar.sync(0)
        ptx.tcgen05_fence("after")
      end
      ptx.if_(tid:eq(0), function()
        for j = 0, 1 do                               -- MMA j: 32 bytes a row on, 2 core matrices (LBO 128)
          local p = ptx.reg.pred()
          if j > 0 then ptx.setp.eq.u32(p, tid, tid) else ptx.setp.ne.u32(p, tid, tid) end
          local ad, bd = desc(S.AOFF + 256 * j, 128, 512), desc(S.BOFF + 256 * j, 128, 512)
          if c.nsf then
            local at = floor(j * S.nsf / 4)
            if j == 0 then o.lmma = nextline() end
            ptx.tcgen05_mma { d = d, a = ad, b = bd, idesc = idesc[j], accumulate = p, kind = c.kind,
                              scale_vec = c.sv, block = c.block, scale_a = sfa[at], scale_b = sfb[at] }
          else
            if j == 0 then o.lmma = nextline() end
            ptx.tcgen05_mma { d = d, a = ad, b = bd, idesc = idesc[j], accumulate = p, kind = c.kind }
          end
        end
        ptx.tcgen05_commit(bar)
      end)
      ptx.mbarrier_wait(bar, 0)
      ptx.tcgen05_fence("after")
      local q = ptx.reg.u32()
      ptx.op "add.u32" (q, d, warp:shl(21))
      local r = ptx.tcgen05_ld { shape = "32x32b", num = N, taddr = q }
      ptx.tcgen05_wait("ld")
      local p = ptx.global_ptrs(out) + tid:mul_wide(4 * N)
      for j = 1, N do ptx.st.global.u32(ptx.addr(p, (j - 1) * 4), r[j]) end
      ptx.tcgen05_fence("before")
      ptx.bar.sync(0)
      ptx.if_(warp:eq(0), function() tm:deallocate(base) end)
    end }
  end
  local function launch(S, o)
    local k = kernel(S, o)
    local words = image(S)
    local gimg = dev:array("u32", #words, words)
    local out = dev:array("u32", 128 * N):poison()
    local ok, err, got = pcall(rt.launch, k, { device = dev, args = { gimg, out }, grid = { 1 }, block = { 128 },
                                               checks = o.skip and { uninit_shared = true } or nil })
    got = ok and out:read() or nil
    gimg:free(); out:free()
    return ok, err, got
  end

  local function check(S, got)
    local EA, EB, K = TYPES[S.c.a].val, TYPES[S.c.b].val, S.K
    local blk = S.nsf > 0 and S.KM / S.nsf or K
    local SV = UE[S.c.scale or "ue8m0"].val
    local plain = 0                                    -- the products without scales differ somewhere
    for m = 0, M - 1 do
      for n = 0, N - 1 do
        local s, sabs, u = 0, 0, 0
        for kk = 0, K - 1 do
          local g = floor(kk / blk)
          local a, b = EA(S.A[m * K + kk + 1]), EB(S.B[n * K + kk + 1])
          local p = a * b
          if S.nsf > 0 then p = p * SV(S.sfcode(m, g, 0)) * SV(S.sfcode(n, g, 4)) end
          s = s + p; sabs = sabs + math.abs(p); u = u + a * b
        end
        local gv = ffi.cast("float*", ffi.new("uint32_t[1]", got[m * N + n + 1]))[0]
        assert(math.abs(gv - s) <= sabs * 2 ^ -22 + 1e-30, fmt("D[%d][%d] = %.9g, want %.9g", m, n, gv, s))
        if math.abs(u - s) > sabs * 2 ^ -20 then plain = plain + 1 end
      end
    end
    if S.nsf > 0 then assert.is_true(plain > M * N / 2, "the scales change most results") end
  end
  for _, c in ipairs(CASES) do
    it(c.name .. ": each block of each row of A and column of B by its own factor (against a double reference)", function()
      local S = setup(c)
      local ok, err, got = launch(S, {})
      assert.is_true(ok, err)
      check(S, got)
    end)
  end

  local base = setup(CASES[1])
  it("takes scale-A written by tcgen05.st, every warp its lane quarter (the same result)", function()
    local ok, err, got = launch(base, { st_sfa = true })
    assert.is_true(ok, err)
    check(base, got)
  end)
  it("flags scale factors a lane quarter holds differently, at the MMA", function()
    local o = { st_sfa = "spoil" }
    local ok, err = launch(base, o)
    assert.is_false(ok, "it ran")
    assert.matches(fmt("emu_tcgen05_spec.lua:%d: error: ", o.lmma), err, 1, true)
    assert.matches("scale-A of row 0: byte 0 of lane 0, column 64", err, 1, true)
    assert.matches("lane 64 0x", err, 1, true)
    assert.matches("duplicated in all four lane quarters", err, 1, true)
  end)
  it("flags an MMA reading scale factors another thread's tcgen05.cp wrote, with no commit -> wait chain, naming the cp", function()
    local o = { cp_tid = 32 }
    local ok, err = launch(base, o)
    assert.is_false(ok, "it ran")
    assert.matches(fmt("emu_tcgen05_spec.lua:%d: error: ", o.lmma), err, 1, true)
    assert.matches(fmt("written by the tcgen05.cp of line %d", o.lcp), err, 1, true)
  end)
  it("flags scale-factor IDs other than 0 with .scale_vec::4X, at the MMA", function()
    local o = { sfa_id = 2 }
    local ok, err = launch(setup(CASES[4]), o)
    assert.is_false(ok, "it ran")
    assert.matches(fmt("emu_tcgen05_spec.lua:%d: error: ", o.lmma), err, 1, true)
    assert.matches("scale-factor IDs A 2, B 2 with .scale_vec::4X / .block16", err, 1, true)
  end)
  it("flags a 2X MMA reading the wrong half-word (both MMAs ID 2: the first reads the second's factors)", function()
    local o = { sfa_id = 2 }
    local S = setup(CASES[2])
    local ok, err, got = launch(S, o)
    assert.is_true(ok, err)
    assert.has_error(function() check(S, got) end)
  end)
  it("flags ue4m3 factors with .scale_vec::2X (ue4m3 goes with 4X), at the MMA", function()
    local c = { kind = "mxf4nvf4", a = "e2m1", b = "e2m1", sv = "2X", scale = "ue4m3", nsf = 2 }
    local o = {}
    local ok, err = launch(setup(c), o)
    assert.is_false(ok, "it ran")
    assert.matches(fmt("emu_tcgen05_spec.lua:%d: error: ", o.lmma), err, 1, true)
    assert.matches("ue4m3 goes with .scale_vec::4X / .block16 only", err, 1, true)
  end)
  it("reads no 4-bit chunk's padding as elements: unwritten padding passes the uninitialized-shared check, unwritten elements do not", function()
    local S = setup(CASES[7])
    local ok, err, got = launch(S, { skip = "pad" })
    assert.is_true(ok, err)
    check(S, got)
    local o = { skip = "data" }
    ok, err = launch(S, o)
    assert.is_false(ok, "it ran")
    assert.matches(fmt("emu_tcgen05_spec.lua:%d: error: ", o.lmma), err, 1, true)
    assert.matches("operand A reads shared byte 0x", err, 1, true)
    assert.matches("which nothing has written", err, 1, true)
  end)
  it("stops at a ue4m3 factor with its top bit set (not emulated), at the MMA", function()
    local S = setup(CASES[4])
    S.spoil_sf = 0xb8
    local o = {}
    local ok, err = launch(S, o)
    assert.is_false(ok, "it ran")
    assert.matches(fmt("emu_tcgen05_spec.lua:%d: error: ", o.lmma), err, 1, true)
    assert.matches("holds 0xb8, a ue4m3 code with its top bit set", err, 1, true)
  end)
end)
