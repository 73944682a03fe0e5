-- emu_kernels_hopper_spec.lua -- the Hopper kernels (kernels/gemm.lua, flash_attention.lua,
-- grouped_gemm.lua: TMA, wgmma, mbarriers, warp specialization, clusters) run in the emulator at
-- small, uneven sizes -- partial tiles on every edge, persistent loops with more tiles than CTAs,
-- clusters whose second CTA works outside C -- every output element compared with a double
-- reference; outputs poisoned (NaN) first, the opt-in checks (races, uninitialized shared memory and
-- registers) on.
--
-- Tolerances (|got - ref| <= bound for every element):
--   gemm, grouped_gemm   K 2^-24 sum_k |a_ik b_jk| (gamma_K of an f32 sum of exact bf16 products, in
--                        any order), plus half a bf16 ulp of the result for bf16 output
--   flash_attention O    half a bf16 ulp of O, plus 2^-8 sum_j p_ij |v_jd| (P is rounded to bf16
--                        before P V: 2^-9 relative each, doubled for ex2.approx and the f32 sums),
--                        plus 1e-6
--   flash_attention LSE  1e-5 |ref| + 1e-5 (ex2.approx, lg2.approx: a few ulp; f32 row sums)
--
-- A test whose kernel uses something the emulator cannot run is marked pending with the emulator's
-- own message ("... is not emulated", or no dev:tensormap): never passed. The sizes keep the whole
-- file to a few seconds (a few tens under ASan), so it runs in every build.
local H = require "helper"
local rt = require "ptxlua.emu"

local dev = rt.device("emu")
local abs, exp, log, sqrt, floor = math.abs, math.exp, math.log, math.sqrt, math.floor
local fmt = string.format
local CHECKS = { races = true, uninit_shared = true, uninit_regs = true }
local LIMIT = 200000000                    -- warp instructions: a stuck pipeline fails, never hangs

local KC = require "kcheck"
local load, rng, bf16_half_ulp, desc, compare, free = KC.load, KC.rng, KC.bf16_half_ulp, KC.desc, KC.compare, KC.free

-- launch, or the reason the emulator cannot run this kernel yet (nil, why)
local function try_launch(k, args, defs)
  local ok, st = pcall(k.launch, k, { device = dev, args = args, defines = defs, checks = CHECKS, limit = LIMIT })
  if ok then return st end
  local msg = tostring(st)
  if msg:find("is not emulated", 1, true) then return nil, "the emulator cannot run it yet: " .. msg end
  error(msg, 0)
end
local function no_maps()
  if type(dev.tensormap) ~= "function" then
    return "the emulator device has no dev:tensormap yet: the TMA tensor maps these kernels take cannot be made"
  end
  local a = dev:array("bf16", 64, 1, "probe")
  local ok, err = pcall(dev.tensormap, dev, a, { dims = { 8, 8 }, box = { 8, 8 } })
  a:free()
  if not ok then return "dev:tensormap cannot make a tensor map in this build yet: " .. tostring(err) end
end

---------------------------------------------------------------------------------------------------
-- gemm: C = A B^T. M = 200, N = 264, K = 136: partial tiles in M, N and K; 2 x 2 tiles of 128 x 256,
-- one cluster of 2 (SMS = 2) walking both cluster tiles; CLUSTER = 1 with 2 CTAs over 4 tiles;
-- BN = 64 with 5 tiles a CTA; f32 output; an odd number of tile-rows (the second CTA of the last
-- cluster computes a tile wholly outside C, its stores clipped); clusters of 4; bands of GROUP
-- cluster-rows (6 tile-rows in bands of 4 and 2; 3 cluster-rows of 2 in bands of 2 and 1)
local GEMM = {
  { M = 200, N = 264, K = 136, SMS = 2 },
  { M = 200, N = 264, K = 136, SMS = 2, CLUSTER = 1 },
  { M = 130, N = 200, K = 72, SMS = 2, BN = 64, CLUSTER = 1, STAGES = 3 },
  { M = 72, N = 136, K = 200, SMS = 2, OUT = "f32" },
  { M = 300, N = 64, K = 64, SMS = 4, BN = 64 },
  { M = 520, N = 128, K = 64, SMS = 4, BN = 128, CLUSTER = 4 },
  { M = 8, N = 8, K = 8, SMS = 2, BN = 64, STAGES = 2 },
  { M = 330, N = 200, K = 72, SMS = 3, BM = 64, BN = 64, CLUSTER = 1, GROUP = 4 },
  { M = 330, N = 136, K = 64, SMS = 4, BM = 64, BN = 64, GROUP = 2 },
}

describe("emulated Hopper kernels: gemm", function()
  local ks, ret = load("gemm.lua")
  local k = ks.gemm
  for _, c in ipairs(GEMM) do
    it(desc(c), function()
      local why = no_maps()
      if why then H.pending(why); return end
      local M, N, K = c.M, c.N, c.K
      local out = c.OUT or "bf16"
      local r = rng(M * 1000003 + N * 1009 + K)
      local A = dev:array("bf16", M * K, function() return r(-1, 1) end, "A")
      local B = dev:array("bf16", N * K, function() return r(-1, 1) end, "B")
      local C = dev:array(out, M * N, nil, "C"):poison()
      local sa, sb, sc = ret.maps(c)
      local st
      st, why = try_launch(k, { dev:tensormap(A, sa), dev:tensormap(B, sb), dev:tensormap(C, sc) }, c)
      if not st then free(A, B, C); H.pending(why); return end
      local as, bs = A:read(), B:read()
      local want, mag = {}, {}
      for i = 0, M - 1 do
        for j = 0, N - 1 do
          local s, m = 0, 0
          for kk = 1, K do
            local p = as[i * K + kk] * bs[j * K + kk]
            s, m = s + p, m + abs(p)
          end
          want[i * N + j + 1], mag[i * N + j + 1] = s, m
        end
      end
      compare("gemm " .. desc(c), C:read(), want, function(i, w)
        return K * 2 ^ -24 * mag[i] + (out == "bf16" and bf16_half_ulp(w) or 0)
      end, function(i) return fmt("C[%d][%d]", floor((i - 1) / N), (i - 1) % N) end)
      free(A, B, C)
    end)
  end
end)

---------------------------------------------------------------------------------------------------
-- flash attention: BH heads of S rows; S = 200, 130, 300, 330 ... are not multiples of the tiles
-- (zero-filled keys masked, query rows past S clipped); causal and not; D = 64 and 128. The
-- overlapped loop has a prologue (S_0), nkv - 1 blocks and an epilogue (the last P V): nkv = 1
-- (S = 100; a causal first tile), 2, 3 (S = 300 and 330: K and V rings wrap with 2 stages), 4, 5;
-- BQ = 128 takes the ping-pong between two consumer warpgroups, BQ = 64 its one-warpgroup path;
-- BKV = 80 is a tile that is not a power of two, 176 FA3's tile for D = 128, 256 the widest wgmma
local FA = {
  { BH = 2, S = 200, D = 64, CAUSAL = 0 },
  { BH = 2, S = 200, D = 64, CAUSAL = 1 },
  { BH = 1, S = 130, D = 128, CAUSAL = 1, STAGES = 3 },
  { BH = 3, S = 72, D = 64, CAUSAL = 1, BQ = 64, BKV = 64 },
  { BH = 1, S = 256, D = 128, CAUSAL = 0, BKV = 64 },
  { BH = 2, S = 100, D = 64, CAUSAL = 0 },
  { BH = 1, S = 300, D = 128, CAUSAL = 0 },
  { BH = 2, S = 330, D = 128, CAUSAL = 1 },
  { BH = 1, S = 150, D = 128, CAUSAL = 0, BQ = 64 },
  { BH = 2, S = 260, D = 64, CAUSAL = 1, BQ = 64, BKV = 64, STAGES = 2 },
  { BH = 1, S = 390, D = 64, CAUSAL = 0, BKV = 80, STAGES = 3 },
  { BH = 1, S = 400, D = 128, CAUSAL = 1, BKV = 176 },
  { BH = 1, S = 300, D = 64, CAUSAL = 0, BKV = 256 },
}

describe("emulated Hopper kernels: flash_attention", function()
  local ks, ret = load("flash_attention.lua")
  local k = ks.flash_attention
  for _, c in ipairs(FA) do
    it(desc(c), function()
      local why = no_maps()
      if why then H.pending(why); return end
      local BH, S, D = c.BH, c.S, c.D
      local n = BH * S * D
      local r = rng(BH * 7919 + S * 31 + D)
      local Q = dev:array("bf16", n, function() return r(-2, 2) end, "Q")
      local Kx = dev:array("bf16", n, function() return r(-2, 2) end, "K")
      local V = dev:array("bf16", n, function() return r(-1, 1) end, "V")
      local O = dev:array("bf16", n, nil, "O"):poison()
      local L = dev:array("f32", BH * S, nil, "LSE"):poison()
      local mq, mk, mv, mo = ret.maps(c)
      local st
      st, why = try_launch(k, { dev:tensormap(Q, mq), dev:tensormap(Kx, mk), dev:tensormap(V, mv), dev:tensormap(O, mo), L }, c)
      if not st then free(Q, Kx, V, O, L); H.pending(why); return end
      local q, kx, v = Q:read(), Kx:read(), V:read()
      local scale = 1 / sqrt(D)
      local wantO, boundO, wantL = {}, {}, {}
      for h = 0, BH - 1 do
        for i = 0, S - 1 do
          local last = c.CAUSAL == 1 and i or S - 1
          local sc, m = {}, -math.huge
          for j = 0, last do
            local s = 0
            for d = 1, D do s = s + q[(h * S + i) * D + d] * kx[(h * S + j) * D + d] end
            sc[j] = s * scale
            if sc[j] > m then m = sc[j] end
          end
          local sum = 0
          for j = 0, last do sc[j] = exp(sc[j] - m); sum = sum + sc[j] end
          wantL[h * S + i + 1] = m + log(sum)
          for d = 1, D do
            local o, spread = 0, 0
            for j = 0, last do
              local p, x = sc[j] / sum, v[(h * S + j) * D + d]
              o, spread = o + p * x, spread + p * abs(x)
            end
            local at = (h * S + i) * D + d
            wantO[at], boundO[at] = o, bf16_half_ulp(o) + 2 ^ -8 * spread + 1e-6
          end
        end
      end
      compare("flash_attention O " .. desc(c), O:read(), wantO, function(i) return boundO[i] end,
              function(i) local e = i - 1; return fmt("O[%d][%d][%d]", floor(e / (S * D)), floor(e / D) % S, e % D) end)
      compare("flash_attention LSE " .. desc(c), L:read(), wantL, function(_, w) return 1e-5 * abs(w) + 1e-5 end,
              function(i) return fmt("LSE[%d][%d]", floor((i - 1) / S), (i - 1) % S) end)
      free(Q, Kx, V, O, L)
    end)
  end
end)

---------------------------------------------------------------------------------------------------
-- grouped GEMM: groups of 70, 0 and 130 rows (a group boundary inside a tile-row, an empty group,
-- a partial last tile), N = 264 and K = 136 partial; 3 CTAs over 6 tiles; BN = 64 with 9 groups
local GG = {
  { G = 3, MTOT = 200, N = 264, K = 136, SMS = 3, sizes = { 70, 0, 130 } },
  { G = 9, MTOT = 333, N = 72, K = 64, SMS = 4, BN = 64, BM = 64, sizes = { 1, 64, 65, 0, 0, 100, 3, 0, 100 } },
}

describe("emulated Hopper kernels: grouped_gemm", function()
  local ks, ret = load("grouped_gemm.lua")
  local k = ks.grouped_gemm
  for _, c in ipairs(GG) do
    local defs = {}
    for key, v in pairs(c) do if key ~= "sizes" then defs[key] = v end end
    it(desc(defs) .. " sizes " .. table.concat(c.sizes, ","), function()
      local why = no_maps()
      if why then H.pending(why); return end
      local G, M, N, K = c.G, c.MTOT, c.N, c.K
      local offs, A, B, C, O = KC.grouped_inputs(dev, c)
      local sa, sb = ret.maps(defs)
      local st
      st, why = try_launch(k, { dev:tensormap(A, sa), dev:tensormap(B, sb), C, O }, defs)
      if not st then free(A, B, C, O); H.pending(why); return end
      local as, bs = A:read(), B:read()
      local want, mag = {}, {}
      for g = 0, G - 1 do
        for i = offs[g + 1], offs[g + 2] - 1 do
          for j = 0, N - 1 do
            local s, m = 0, 0
            for kk = 1, K do
              local p = as[i * K + kk] * bs[(g * N + j) * K + kk]
              s, m = s + p, m + abs(p)
            end
            want[i * N + j + 1], mag[i * N + j + 1] = s, m
          end
        end
      end
      compare("grouped_gemm " .. desc(defs), C:read(), want, function(i, w) return K * 2 ^ -24 * mag[i] + bf16_half_ulp(w) end,
              function(i) return fmt("C[%d][%d]", floor((i - 1) / N), (i - 1) % N) end)
      free(A, B, C, O)
    end)
  end
end)
