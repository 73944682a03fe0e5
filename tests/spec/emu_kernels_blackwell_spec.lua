-- emu_kernels_blackwell_spec.lua -- the Blackwell kernels (kernels/gemm_sm100.lua,
-- gemm_fp8_sm100.lua, grouped_gemm_sm100.lua: CTA pairs, tcgen05.mma cta_group::2, tensor memory,
-- TMA .cta_group::2 and multicast, cluster launch control) run in the emulator at small, uneven
-- sizes -- partial tiles on every edge, the second pair of a cluster of 4 past M, several
-- persistent tiles a cluster (clc = "all": every try_cancel while a cluster is left succeeds), one
-- tile a cluster (clc = "none": the fallback path) and a mix ("alternate"), groups of different M --
-- every output element compared with a double reference; outputs poisoned (NaN) first, the opt-in
-- checks (races, uninitialized shared memory and registers) on. Then broken copies of the pipeline
-- (kernels/lib/sm100_gemm.lua), one per mistake the emulator's tcgen05 checks catch, each reported
-- at the broken line (at one CTA, cta_group::1):
--   a stage released by a plain mbarrier.arrive    -> at the producer's refill, naming the MMA
--   no wait on tfull before the epilogue's loads     -> at the tcgen05.ld
--   no tcgen05.fence::after_thread_sync after it     -> at the tcgen05.ld
--   no tcgen05.wait::ld before the hand-back         -> at the next MMA, naming the ld
--   an epilogue warp in another lane quarter         -> at the tcgen05.ld
--   no tcgen05.dealloc                               -> at the allocation
--   a second allocation after relinquish             -> at the second alloc
--   A's descriptor in the sm_90 layout               -> at the MMA
--   the first MMA accumulating (enable-input-d)      -> at the MMA
--   the MMA issued by the whole warp                 -> at the MMA
-- Not here: a CTA-group mismatch (the DSL and --lint refuse it before any run:
-- tests/spec/blackwell_spec.lua) and the pair's own mistakes (tests/spec/emu_tcgen05_spec.lua).
--
-- Tolerances (|got - ref| <= bound for every element):
--   gemm_sm100, grouped_gemm_sm100   K 2^-24 sum_k |a_ik b_jk| (gamma_K of an f32 sum of exact bf16
--                                    products, in any order and any grouping into MMAs), plus half a
--                                    bf16 ulp of the result for bf16 output
--   gemm_fp8_sm100                   the same over the scaled products a_ik sa_ik b_jk sb_jk (e4m3
--                                    values times powers of two: exact in f32)
--
-- A kernel the emulator cannot run yet (the fp8 kernel while tcgen05.cp and the block-scaled MMA
-- are not emulated) is pending with the emulator's own message ("... is not emulated"): never
-- passed. Any other failure fails.
local H = require "helper"
local rt = require "ptxlua.emu"

local dev = rt.device("emu")
local abs, floor, fmt = math.abs, math.floor, string.format
local CHECKS = { races = true, uninit_shared = true, uninit_regs = true }
local LIMIT = 400000000                    -- warp instructions: a stuck pipeline fails, never hangs

local KC = require "kcheck"
local load, rng, bf16_half_ulp, desc, compare, free = KC.load, KC.rng, KC.bf16_half_ulp, KC.desc, KC.compare, KC.free

-- launch, or the reason the emulator cannot run this kernel yet (nil, why)
local function try_launch(k, args, defs, clc)
  local ok, st = pcall(k.launch, k, { device = dev, args = args, defines = defs, checks = CHECKS, limit = LIMIT, clc = clc })
  if ok then return st end
  local msg = tostring(st)
  if msg:find("is not emulated", 1, true) then return nil, "the emulator cannot run it yet: " .. msg end
  error(msg, 0)
end

-- the reference of C = A B^T (row-major, 1-based Lua arrays of values) and sum_k |a b| per element;
-- sa(i, k), sb(j, k): scale factors (nil: 1)
local function product(as, bs, M, N, K, sa, sb, brow)
  local want, mag = {}, {}
  for i = 0, M - 1 do
    for j = 0, N - 1 do
      local s, m = 0, 0
      local b0 = (brow and brow(i, j) or j) * K
      for kk = 1, K do
        local p = as[i * K + kk] * bs[b0 + kk]
        if sa then p = p * sa(i, kk - 1) * sb(j, kk - 1) end
        s, m = s + p, m + abs(p)
      end
      want[i * N + j + 1], mag[i * N + j + 1] = s, m
    end
  end
  return want, mag
end
local function cname(N) return function(i) return fmt("C[%d][%d]", floor((i - 1) / N), (i - 1) % N) end end

---------------------------------------------------------------------------------------------------
-- gemm_sm100: M = 300 (two pair tile-rows, the second partial; three CTA tile-rows alone), N = 200 (four columns of 64, the
-- last partial), K = 136 (three k-tiles, the last partial); clusters of 4 (the second pair's rows
-- past M: its loads zero-filled, its stores clipped); f32 output with the shortest ring; a tile
-- smaller than one MMA's every edge; one CTA alone (CLUSTER = 1) at those shapes, with more
-- k-tiles than stages (the ring wraps inside a tile) and six tiles through both accumulators, and
-- with the widest tile (BN = 256, an f32 epilogue of 8 chunks), and in bands of 4 tile-rows (six
-- tile-rows: a band of 4, then one of 2)
local GEMM = {
  { M = 300, N = 200, K = 136, BN = 64 },
  { M = 300, N = 200, K = 136, BN = 64, CLUSTER = 1 },
  { M = 520, N = 136, K = 72, BN = 64, CLUSTER = 4 },
  { M = 200, N = 72, K = 200, BN = 64, OUT = "f32", STAGES = 2 },
  { M = 8, N = 8, K = 8, BN = 64, STAGES = 2 },
  { M = 200, N = 72, K = 200, BN = 64, OUT = "f32", STAGES = 2, CLUSTER = 1 },
  { M = 8, N = 8, K = 8, BN = 64, STAGES = 2, CLUSTER = 1 },
  { M = 260, N = 136, K = 320, BN = 128, STAGES = 3, CLUSTER = 1 },
  { M = 130, N = 256, K = 64, BN = 256, STAGES = 2, CLUSTER = 1, OUT = "f32" },
  { M = 700, N = 136, K = 64, BN = 64, STAGES = 2, CLUSTER = 1, GROUP = 4 },
}
local MODES = { "all", "none", "alternate" }

describe("emulated Blackwell kernels: gemm_sm100", function()
  local ks, ret = load("gemm_sm100.lua")
  local k = ks.gemm_sm100
  for ci, c in ipairs(GEMM) do
    for mi, clc in ipairs(MODES) do
      if ci <= 2 or mi == 1 then                        -- every mode on the first shapes (pairs, one CTA)
        it(desc(c) .. " clc=" .. clc, function()
          local M, N, K = c.M, c.N, c.K
          local out = c.OUT or "bf16"
          local r = rng(M * 1000003 + N * 1009 + K)
          local A = dev:array("bf16", M * K, function() return r(-1, 1) end, "A")
          local B = dev:array("bf16", N * K, function() return r(-1, 1) end, "B")
          local C = dev:array(out, M * N, nil, "C"):poison()
          local sa, sb, sc = ret.maps(c)
          local st, why = try_launch(k, { dev:tensormap(A, sa), dev:tensormap(B, sb), dev:tensormap(C, sc) }, c, clc)
          if not st then free(A, B, C); H.pending(why); return end
          local want, mag = product(A:read(), B:read(), M, N, K)
          compare("gemm_sm100 " .. desc(c), C:read(), want, function(i, w)
            return K * 2 ^ -24 * mag[i] + (out == "bf16" and bf16_half_ulp(w) or 0)
          end, cname(N))
          free(A, B, C)
        end)
      end
    end
  end
end)

---------------------------------------------------------------------------------------------------
-- gemm_fp8_sm100: K = 304 (three k-tiles of 128, the last partial: zero-filled A and B whatever
-- the scales), scale factors 2^-3 .. 2^3 different for every row and k-block; clusters of 4 with f32
-- output
local FP8 = {
  { M = 300, N = 200, K = 304 },
  { M = 260, N = 136, K = 144, CLUSTER = 4, OUT = "f32" },
  { M = 200, N = 136, K = 304, CLUSTER = 1, STAGES = 3 },
}

-- the scale byte of row r, k-block j (the 128 x 4 atoms of kernels/gemm_fp8_sm100.lua's header)
local function sf_byte(r, j, KT)
  local rr = r % 128
  return 512 * (floor(r / 128) * KT + floor(j / 4)) + 16 * (rr % 32) + 4 * floor(rr / 32) + j % 4
end

describe("emulated Blackwell kernels: gemm_fp8_sm100", function()
  local ks, ret = load("gemm_fp8_sm100.lua")
  local k = ks.gemm_fp8_sm100
  for _, c in ipairs(FP8) do
    it(desc(c), function()
      local M, N, K = c.M, c.N, c.K
      local out = c.OUT or "bf16"
      local KT = math.ceil(K / 128)
      local r = rng(M * 7919 + N * 31 + K)
      local function scales(rows)
        local v = {}
        for i = 1, 512 * math.ceil(rows / 128) * KT do v[i] = 1 end
        for row = 0, rows - 1 do
          for j = 0, math.ceil(K / 32) - 1 do v[sf_byte(row, j, KT) + 1] = 2 ^ (floor(r(0, 7)) - 3) end
        end
        return v
      end
      local A = dev:array("e4m3", M * K, function() return r(-1, 1) end, "A")
      local B = dev:array("e4m3", N * K, function() return r(-1, 1) end, "B")
      local SA = dev:array("ue8m0", 512 * math.ceil(M / 128) * KT, scales(M), "SFA")
      local SB = dev:array("ue8m0", 512 * math.ceil(N / 128) * KT, scales(N), "SFB")
      local C = dev:array(out, M * N, nil, "C"):poison()
      local ma, mb, msa, msb, mc = ret.maps(c)
      local st, why = try_launch(k, { dev:tensormap(A, ma), dev:tensormap(B, mb), dev:tensormap(SA, msa),
                                      dev:tensormap(SB, msb), dev:tensormap(C, mc) }, c, "all")
      if not st then free(A, B, SA, SB, C); H.pending(why); return end
      local sav, sbv = SA:read(), SB:read()
      local want, mag = product(A:read(), B:read(), M, N, K,
                                function(i, kk) return sav[sf_byte(i, floor(kk / 32), KT) + 1] end,
                                function(j, kk) return sbv[sf_byte(j, floor(kk / 32), KT) + 1] end)
      compare("gemm_fp8_sm100 " .. desc(c), C:read(), want, function(i, w)
        return K * 2 ^ -24 * mag[i] + (out == "bf16" and bf16_half_ulp(w) or 0)
      end, cname(N))
      free(A, B, SA, SB, C)
    end)
  end
end)

---------------------------------------------------------------------------------------------------
-- grouped_gemm_sm100: groups of 300, 0, 45 and 255 rows (a group of two pair tile-rows, an empty
-- one, tile-rows reaching into the next group, a partial last tile), N = 200 and K = 136 partial;
-- 5 groups over clusters of 4 (512-row cluster tiles, every group smaller)
local GG = {
  { G = 4, MTOT = 600, N = 200, K = 136, BN = 64, sizes = { 300, 0, 45, 255 } },
  { G = 5, MTOT = 333, N = 72, K = 64, BN = 64, CLUSTER = 4, sizes = { 1, 130, 0, 100, 102 } },
  { G = 4, MTOT = 600, N = 200, K = 136, BN = 64, CLUSTER = 1, sizes = { 300, 0, 45, 255 } },
}

describe("emulated Blackwell kernels: grouped_gemm_sm100", function()
  local ks, ret = load("grouped_gemm_sm100.lua")
  local k = ks.grouped_gemm_sm100
  for _, c in ipairs(GG) do
    local defs = {}
    for key, v in pairs(c) do if key ~= "sizes" then defs[key] = v end end
    it(desc(defs) .. " sizes " .. table.concat(c.sizes, ","), function()
      local G, M, N, K = c.G, c.MTOT, c.N, c.K
      local offs, A, B, C, O = KC.grouped_inputs(dev, c)
      local sa, sb = ret.maps(defs)
      local st, why = try_launch(k, { dev:tensormap(A, sa), dev:tensormap(B, sb), C, O }, defs, "all")
      if not st then free(A, B, C, O); H.pending(why); return end
      local group = {}
      for g = 0, G - 1 do for i = offs[g + 1], offs[g + 2] - 1 do group[i] = g end end
      local want, mag = product(A:read(), B:read(), M, N, K, nil, nil, function(i, j) return group[i] * N + j end)
      compare("grouped_gemm_sm100 " .. desc(defs), C:read(), want, function(i, w) return K * 2 ^ -24 * mag[i] + bf16_half_ulp(w) end,
              cname(N))
      free(A, B, C, O)
    end)
  end
end)

---------------------------------------------------------------------------------------------------
-- broken copies: kernels/gemm_sm100.lua with its pipeline, kernels/lib/sm100_gemm.lua, edited (a
-- plain-text substitution; each pattern must occur exactly once) in a temporary folder laid out as
-- kernels/. Each must be reported at the broken line of the library copy (the emulator names the
-- instruction's line, and for a two-party mistake the other line too).
---------------------------------------------------------------------------------------------------
local edited, line_of = KC.edited, KC.line_of

-- gemm_sm100 with lib edits: the kernel, its maps, the library copy's path and text
local function broken(lib_edits)
  local dir = H.tmpfile("_kernels")
  assert(os.execute(fmt("mkdir -p '%s/lib'", dir)))
  H.write(dir .. "/gemm_sm100.lua", assert(H.read(H.root .. "/kernels/gemm_sm100.lua")))
  local lib_text = edited(H.root .. "/kernels/lib/sm100_gemm.lua", lib_edits)
  local lib_path = H.write(dir .. "/lib/sm100_gemm.lua", lib_text)
  local ks, ret = H.load_script(dir .. "/gemm_sm100.lua")
  return ks.gemm_sm100, ret, lib_path, lib_text
end

-- the launch's error at a small shape (two k-tiles a tile, four tiles); nil, why when the
-- emulator refuses the kernel as not emulated
-- (one CTA, cta_group::1: every mistake below is one a CTA can make alone)
local BROKEN_SHAPE = { M = 256, N = 128, K = 320, BN = 64, STAGES = 2, CLUSTER = 1 }
local function broken_error(k, ret)
  local c = BROKEN_SHAPE
  local r = rng(17)
  local A = dev:array("bf16", c.M * c.K, function() return r(-1, 1) end, "A")
  local B = dev:array("bf16", c.N * c.K, function() return r(-1, 1) end, "B")
  local C = dev:array("bf16", c.M * c.N, nil, "C"):poison()
  local sa, sb, sc = ret.maps(c)
  local ok, err = pcall(k.launch, k, { device = dev, args = { dev:tensormap(A, sa), dev:tensormap(B, sb), dev:tensormap(C, sc) },
                                       defines = c, checks = CHECKS, limit = LIMIT, clc = "all" })
  free(A, B, C)
  assert(not ok, "the broken kernel ran without an error")
  err = tostring(err)
  if err:find("is not emulated", 1, true) then return nil, "the emulator cannot run it yet: " .. err end
  return err
end

-- each mistake: the edits, the lines (needles of the edited library) the error must name -- the
-- instruction's own as path:line, the other party's as path:line or "line N" -- and what it is
local BROKEN = {
  { what = "a stage released by a plain mbarrier.arrive instead of tcgen05.commit: the refill overwrites what an MMA still reads",
    edits = { { 'ptx.tcgen05_commit(ptx.addr(rg.s:mad(8, base + empty.offset)), { cta_group = G, multicast = P.pair and allmask or nil })',
                'arrive_remote(rg.s:mad(8, base + empty.offset))  -- BROKEN: plain arrive' } },
    at = { "load(ptx.addr(rg.s:mad(sA.stage_bytes, base + sA.offset)), ptx.taddr(spec.maps.A, { k0, tile.m0 }), ptx.addr(fb))",
           "ptx.tcgen05_mma(o)" } },
  { what = "the epilogue reads tensor memory without waiting for the MMA's commit",
    edits = { { "            wait(acc:mad(8, base + tfull.offset), aphase)\n", "            -- BROKEN: no wait on tfull\n" } },
    at = 'local v = ptx.tcgen05_ld { shape = "32x32b", num = P.en, taddr = (ta + c * P.en) }',
    -- the epilogue reads before the MMAs have written anything: cells nothing wrote (a deadlock,
    -- had the emulator missed it: the early hand-backs confuse tempty's phases)
  },
  { what = "no tcgen05.fence::after_thread_sync between the wait on tfull and the tcgen05.ld",
    edits = { { "            wait(acc:mad(8, base + tfull.offset), aphase)\n            ptx.tcgen05_fence(\"after\")\n",
                "            wait(acc:mad(8, base + tfull.offset), aphase)  -- BROKEN: no fence after\n" } },
    at = 'local v = ptx.tcgen05_ld { shape = "32x32b", num = P.en, taddr = (ta + c * P.en) }' },
  { what = "the accumulator handed back without tcgen05.wait::ld: the next MMAs overwrite cells a load still reads",
    edits = { { '              ptx.tcgen05_wait("ld")\n', "              -- BROKEN: no wait::ld\n" } },
    at = { "ptx.tcgen05_mma(o)", 'local v = ptx.tcgen05_ld { shape = "32x32b", num = P.en, taddr = (ta + c * P.en) }' } },
  { what = "an epilogue warp reading lanes outside its quarter of tensor memory",
    edits = { { "local lane_off = q:shl(21)", "local lane_off = (3 - q):shl(21)  -- BROKEN: another quarter" } },
    at = 'local v = ptx.tcgen05_ld { shape = "32x32b", num = P.en, taddr = (ta + c * P.en) }' },
  { what = "the tensor memory never deallocated",
    edits = { { "    tm:deallocate(tbase)\n", "    -- BROKEN: no dealloc\n" } },
    at = "ptx.if_(warp:eq(2), function() tm:allocate(tslot) end)" },
  { what = "a second allocation after the permit was relinquished",
    edits = { { "ptx.if_(warp:eq(2), function() tm:allocate(tslot) end)",
                "ptx.if_(warp:eq(2), function() tm:allocate(tslot); tm:allocate(tslot) end)  -- BROKEN: allocates twice" } },
    at = "-- BROKEN: allocates twice" },
  { what = "an MMA reading A through a descriptor of the sm_90 layout (bits 46-48 not 0b001)",
    edits = { { "local da0 = ptx.tcgen05_desc(sA, { mn = 128, k = t.BK, base = base }):as(\"u64\")",
                "local da0 = ptx.tcgen05_desc(sA, { mn = 128, k = t.BK, base = base }):as(\"u64\") - 0x400000000000  -- BROKEN: bit 46 cleared, wgmma's layout" } },
    at = "ptx.tcgen05_mma(o)" },
  { what = "the first MMA of a tile accumulating into cells no MMA has written",
    edits = { { "accumulate = k == 0 and first or ptrue }", "accumulate = ptrue }  -- BROKEN: accumulates from the start" } },
    at = "ptx.tcgen05_mma(o)" },
  { what = "the MMA issued by the whole warp, not one thread (32 MMAs and 32 commits)",
    edits = { { "      ptx.if_(is0, function()\n        local rg = ring(ST)\n        local acc, aphase = ptx.u32(0), ptx.u32(0)",
                "      ptx.scope(function()  -- BROKEN: every lane issues\n        local rg = ring(ST)\n        local acc, aphase = ptx.u32(0), ptx.u32(0)" } },
    at = "ptx.tcgen05_mma(o)" },
}

describe("broken Blackwell kernels: each mistake at its line", function()
  it("the real kernel at the broken copies' shape passes, or is pending with the emulator's message", function()
    local k, ret = broken({})
    local c = BROKEN_SHAPE
    local r = rng(17)
    local A = dev:array("bf16", c.M * c.K, function() return r(-1, 1) end, "A")
    local B = dev:array("bf16", c.N * c.K, function() return r(-1, 1) end, "B")
    local C = dev:array("bf16", c.M * c.N, nil, "C"):poison()
    local sa, sb, sc = ret.maps(c)
    local st, why = try_launch(k, { dev:tensormap(A, sa), dev:tensormap(B, sb), dev:tensormap(C, sc) }, c, "all")
    if not st then free(A, B, C); H.pending(why); return end
    local want, mag = product(A:read(), B:read(), c.M, c.N, c.K)
    compare("gemm_sm100 " .. desc(c), C:read(), want, function(i, w) return c.K * 2 ^ -24 * mag[i] + bf16_half_ulp(w) end, cname(c.N))
    free(A, B, C)
  end)

  for _, b in ipairs(BROKEN) do
    it(b.what, function()
      local k, ret, lib_path, lib_text = broken(b.edits)
      local err, why = broken_error(k, ret)
      if not err then H.pending(why); return end
      local ats = type(b.at) == "table" and b.at or { b.at }
      local first = line_of(lib_text, ats[1])
      assert.truthy(err:find(lib_path .. ":" .. first .. ": error: ", 1, true),
                    fmt("expected the error at %s:%d (%s):\n%s", lib_path, first, ats[1], err))
      for i = 2, #ats do
        local n = line_of(lib_text, ats[i])
        local named = err:find(lib_path .. ":" .. n .. "[^%d]") or err:find("line " .. n .. "[^%d]")
        assert.truthy(named, fmt("expected the error to name line %d (%s) too:\n%s", n, ats[i], err))
      end
    end)
  end
end)

---------------------------------------------------------------------------------------------------
-- the persistent schedule of kernels/lib/sm100_gemm.lua (bw.clc_schedule) alone, without tcgen05,
-- so the emulator's cluster launch control runs it today: clusters of 2, a single-thread reader
-- (warp 0), a whole-warp reader (warp 1) and the scheduler (warp 2) in each CTA. Each reader counts
-- the tiles it is given per CTA; every tile must reach every reader of both CTAs exactly once,
-- whether every try_cancel succeeds (one cluster does them all), none does (each cluster its own
-- tile) or they alternate, and with an upper-bound grid whose last clusters decode invalid.
---------------------------------------------------------------------------------------------------
describe("the CLC schedule of the sm100 pipeline (bw.clc_schedule)", function()
  local TILES = 7
  local function walk_kernel(extra)
    local ptx = H.fresh()
    local bw = dofile(H.root .. "/kernels/lib/sm100_gemm.lua")
    local grid = 2 * (TILES + extra)
    ptx.kernel { name = "clc_walk", target = "sm_100a", cluster = { 2, 1, 1 }, grid = { grid }, block = { 96 },
                 params = { { "v0", "u32*" }, { "v1", "u32*" } }, body = function(_, v0, v1)
      local sm = ptx.smem_plan()
      local S = bw.clc_schedule { smem = sm, readers = 3, cluster = 2 }
      local p0, p1 = ptx.global_ptrs(v0, v1)
      local tid = ptx.special "tid.x"
      local warp, lane = tid:shr(5), tid:band(31)
      local base, rank = ptx.reg.u32(), ptx.reg.u32()
      ptx.mov.u32(base, ptx.sym "smem")
      ptx.mov.u32(rank, ptx.sreg.cluster_ctarank)
      ptx.if_(tid:eq(0), function()
        S:init()
        ptx.op "fence.mbarrier_init.release.cluster" ()
      end)
      ptx.op "barrier.cluster.arrive.release.aligned" ()
      ptx.op "barrier.cluster.wait.acquire.aligned" ()
      S:setup(base, rank, function(ct)
        return { ct = ct, valid = extra > 0 and ct:lt(TILES) or nil }
      end)
      local is0 = lane:eq(0)
      local function count(p, tile)
        ptx.op "atom.global.add.u32" (ptx.reg.u32(), ptx.addr(p + tile.ct:mad(2, rank):mul_wide(4)), 1)
      end
      ptx.if_(warp:eq(0), function()
        ptx.if_(is0, function() S:walk(function(tile) count(p0, tile) end, is0) end)
      end, function()
        ptx.if_(warp:eq(1), function()
          S:walk(function(tile) ptx.if_(is0, function() count(p1, tile) end) end, is0, function() ptx.bar.sync(1, 32) end)
        end, function()
          ptx.if_(is0, function() S:run() end)
        end)
      end)
      ptx.op "barrier.cluster.arrive.release" ()
      ptx.op "barrier.cluster.wait.acquire" ()
      ptx.ret()
    end }
    return ptx.kernels()[1], grid
  end

  for _, extra in ipairs { 0, 3 } do
    for _, clc in ipairs(MODES) do
      it(fmt("every tile to every reader once: clc=%s, %d clusters for %d tiles", clc, TILES + extra, TILES), function()
        local k, grid = walk_kernel(extra)
        local v0 = dev:array("u32", grid, 0, "v0")
        local v1 = dev:array("u32", grid, 0, "v1")
        local ok, st = pcall(k.launch, k, { device = dev, args = { v0, v1 }, checks = CHECKS, limit = LIMIT, clc = clc })
        if not ok and tostring(st):find("is not emulated", 1, true) then free(v0, v1); H.pending(tostring(st)); return end
        assert(ok, tostring(st))
        local a, b = v0:read(), v1:read()
        for i = 1, grid do
          local want = (i - 1) < 2 * TILES and 1 or 0
          assert.are.equal(want, a[i], fmt("single-thread reader, tile %d rank %d", floor((i - 1) / 2), (i - 1) % 2))
          assert.are.equal(want, b[i], fmt("whole-warp reader, tile %d rank %d", floor((i - 1) / 2), (i - 1) % 2))
        end
        free(v0, v1)
      end)
    end
  end
end)

---------------------------------------------------------------------------------------------------
-- the raster of the dense kernels (bw.band_tile): every cluster tile ct of a tmc x tn grid maps to
-- one (cluster-row, column), each exactly once; inside a band the tiles go down a column of
-- `bandrows` cluster-rows (the last band: what is left) before the next column
---------------------------------------------------------------------------------------------------
describe("the raster of the sm100 GEMMs (bw.band_tile)", function()
  for _, c in ipairs { { tmc = 7, tn = 5, group = 3 }, { tmc = 6, tn = 4, group = 2 }, { tmc = 5, tn = 3, group = 8 },
                       { tmc = 9, tn = 2, group = 1 }, { tmc = 1, tn = 6, group = 4 } } do
    it(fmt("tmc=%d tn=%d GROUP=%d", c.tmc, c.tn, c.group), function()
      local ptx = H.fresh()
      local bw = dofile(H.root .. "/kernels/lib/sm100_gemm.lua")
      local P = { tmc = c.tmc, tn = c.tn }
      bw.bands(P, c.group)
      local n = c.tmc * c.tn
      ptx.kernel { name = "raster", target = "sm_100a", grid = { 1 }, block = { n }, params = { { "out", "u32*" } },
                   body = function(_, out)
        local po = ptx.global_ptrs(out)
        local ct = ptx.special "tid.x"
        local cm, cn = bw.band_tile(ct, P)
        ptx.st.global.u32(ptx.addr(po + ct:mul_wide(8)), cm)
        ptx.st.global.u32(ptx.addr(po + ct:mul_wide(8), 4), cn)
      end }
      local k = ptx.kernels()[1]
      local out = dev:array("u32", 2 * n, nil, "out"):poison()
      k:launch { device = dev, args = { out }, checks = CHECKS }
      local v = out:read()
      local seen = {}
      local g = math.min(c.group, c.tmc)
      for i = 0, n - 1 do
        local cm, cn = v[2 * i + 1], v[2 * i + 2]
        assert(cm < c.tmc and cn < c.tn, fmt("tile %d -> (%d, %d) outside %d x %d", i, cm, cn, c.tmc, c.tn))
        local key = cm * c.tn + cn
        assert(not seen[key], fmt("tiles %s and %d both map to (%d, %d)", tostring(seen[key]), i, cm, cn))
        seen[key] = i
        -- the band's rows: cm of one band, down a column first
        local band = floor(i / (g * c.tn))
        local rows = math.min(g, c.tmc - band * g)
        local j = i - band * g * c.tn
        assert.are.same({ band * g + j % rows, floor(j / rows) }, { cm, cn }, fmt("tile %d", i))
      end
      out:free()
    end)
  end
end)
