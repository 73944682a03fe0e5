-- gemm_fp8_sm100.lua -- the block-scaled fp8 GEMM on Blackwell (MXFP8): C = (A . SA) * (B . SB)^T,
-- A M x K and B N x K row-major e4m3 (both K-major), one ue8m0 scale factor (a power of two) per
-- 32 consecutive elements of a row of A and of B, f32 accumulation in tensor memory, C M x N
-- row-major in OUT (bf16 or f32). sm_100a: tcgen05.mma.cta_group::2.kind::mxf8f6f4.block_scale
-- .scale_vec::1X of M = 256, K = 32, with the scale factors moved from shared memory to tensor
-- memory by tcgen05.cp (32x128b.warpx4) each k-tile. The rest is kernels/gemm_sm100.lua's pipeline
-- (kernels/lib/sm100_gemm.lua): CTA pairs, TMA .cta_group::2 (B multicast between pairs), a
-- double-buffered accumulator, TMA, MMA and epilogue roles, a persistent schedule through cluster
-- launch control.
--
-- The scale factors (the layout cuBLAS and CUTLASS use for MX formats, "128 x 4 atoms"): for every
-- 128-row tile mt of A and every 128-column k-tile kt, one 512-byte atom holds the 128 x 4 scale
-- factors of those rows and k-blocks, the factor of row r (0..127) and k-block j (0..3) at byte
-- 16 (r % 32) + 4 (r / 32) + j. Atom (mt, kt) is bytes 512 (mt KT + kt) .. of SFA, declared as
-- 4 MT KT rows of 128 bytes (MT = ceil(M / 128), KT = ceil(K / 128)); SFB is the same over N.
-- Each stage loads one atom of A (this CTA's 128 rows) and the BN / 128 atoms of B (all BN rows,
-- in both CTAs of the pair) with TMA; the MMA thread copies them to tensor memory (4 columns an
-- atom: lanes 32q + l hold row l's 16 bytes in every quarter q) and the k-th MMA of the k-tile
-- reads byte k of each 32-bit cell (the scale-factor IDs of the instruction descriptor, one
-- descriptor a k step).
--
-- Shapes: any M, N >= 1, K >= 16 with K % 16 == 0 (TMA rows are multiples of 16 bytes); N % 8
-- (bf16 out) or N % 4 (f32). Partial tiles: the TMA zero-fills A and B outside the tensors (zero
-- products whatever the scale) and clips the stores.
local ptx = require "ptxlua"
local bw = ptx.import "lib/sm100_gemm.lua"

local OUT_BYTES = { bf16 = 2, f32 = 4 }
local function cdiv(a, b) return math.ceil(a / b) end

local function plan(t)
  ptx.check_templates(t, {
    M = { min = 1 }, N = { min = 1 },
    K = { min = 16, multiple = 16, why = "TMA rows are multiples of 16 bytes (pad K with zeros)" },
    OUT = { one_of = { "bf16", "f32" } },
    BN = { one_of = { 128 }, why = "the N of the MMA (256 or 128 x 128 x 32): two accumulators and the scale factors in 512 columns, whole 128-row scale atoms of B" },
    BK = { one_of = { 128 }, why = "one 128-byte swizzle row of e4m3, one scale atom of 4 k-blocks" },
    STAGES = { min = 2 },
    CLUSTER = { one_of = { 1, 2, 4 }, why = "one CTA, or one or two CTA pairs" },
    GROUP = { min = 1 },
  })
  t.TMA_STORE = true
  local P = bw.plan(t, "mxf8")
  if (t.N * P.ob) % 16 ~= 0 then ptx.error("N (%d) times %d bytes must be a multiple of 16: TMA rows of C are multiples of 16 bytes", t.N, P.ob) end
  if P.tmem > 512 then
    ptx.error("two accumulators of %d columns and %d stages of %d scale-factor columns need %d columns of tensor memory (512 a CTA)", t.BN, t.STAGES, P.sf_cols, P.tmem)
  end
  if P.smem > 232448 then
    ptx.error("%d stages of (128 + %d) x %d e4m3, their scale factors and the epilogue buffers need %d bytes of shared memory (227 KB a block)", t.STAGES, P.bhalf, t.BK, P.smem)
  end
  P.kt = cdiv(t.K, t.BK)
  P.tm = cdiv(t.M, P.m)
  P.tmc = cdiv(P.tm, P.npair)
  P.tn = cdiv(t.N, t.BN)
  P.tiles = P.tmc * P.tn
  bw.bands(P, t.GROUP)                                        -- the raster: bands of GROUP cluster-rows
  if P.tiles * t.CLUSTER >= 2 ^ 31 or t.M >= 2 ^ 31 or t.N >= 2 ^ 31 or t.K >= 2 ^ 31 then ptx.error("M, N, K (%d, %d, %d) are too large for one grid", t.M, t.N, t.K) end
  return P
end

-- rows of 128 bytes of a scale tensor over X rows: 4 a 128 x 128 atom (an expression of templates)
local function sf_rows(x) return string.format("4 * ((%s + 127 - (%s + 127) %% 128) / 128) * ((K + 127 - (K + 127) %% 128) / 128)", x, x) end

-- the byte of scale tensor SF (0-based) for row r and k-block j (32 elements of K)
local function sf_index(r, j, KT)
  local atom = math.floor(r / 128) * KT + math.floor(j / 4)
  local rr = r % 128
  return 512 * atom + 16 * (rr % 32) + 4 * math.floor(rr / 32) + j % 4
end

-- scale factors 2^-3 .. 2^3, deterministic and different for every (row, k-block)
local function scales(rows, K)
  local KT = cdiv(K, 128)
  local v = {}
  for i = 1, 512 * cdiv(rows, 128) * KT do v[i] = 1 end
  for r = 0, rows - 1 do
    for j = 0, cdiv(K, 32) - 1 do v[sf_index(r, j, KT) + 1] = 2 ^ ((r * 7 + j * 3) % 7 - 3) end
  end
  return v
end

local K = ptx.kernel {
  name = "gemm_fp8_sm100",
  doc = "C = (A . SA) * (B . SB)^T, MXFP8 (e4m3 with ue8m0 scales per 32 of K) on Blackwell: tcgen05 block-scaled MMAs, CTA pairs",
  target = "sm_100a",
  templates = { M = 8192, N = 8192, K = 8192, BN = 128, BK = 128, STAGES = 6, CLUSTER = 2, GROUP = 8, OUT = "bf16" },
  tensors = {
    A = ptx.tensor("e4m3", { "M", "K" }),
    B = ptx.tensor("e4m3", { "N", "K" }),
    SFA = ptx.tensor("ue8m0", { sf_rows("M"), 128 }),
    SFB = ptx.tensor("ue8m0", { sf_rows("N"), 128 }),
    C = ptx.tensor("OUT", { "M", "N" }),
  },
  params = {
    { "A_map", ptx.tensormap { of = "A", box = { "BK", 128 }, swizzle = "128B" } },
    { "B_map", ptx.tensormap { of = "B", box = { "BK", "BN / CLUSTER" }, swizzle = "128B" } },
    { "SFA_map", ptx.tensormap { of = "SFA", box = { 128, 4 } } },
    { "SFB_map", ptx.tensormap { of = "SFB", box = { 128, 4 } } },
    { "C_map", ptx.tensormap { of = "C", box = function(t) return { 128 / OUT_BYTES[t.OUT], 32 } end, swizzle = "128B" } },
  },
  -- --emulate: partial tiles on every edge, three k-tiles (the last partial), scales of every size
  emulate = { M = 300, N = 200, K = 304 },
  inputs = function(t) return { SFA = scales(t.M, t.K), SFB = scales(t.N, t.K) } end,
  reference = function(t, x)
    local A, B, SA, SB, C, M, N, K = x.A, x.B, x.SFA, x.SFB, {}, t.M, t.N, t.K
    local KT = cdiv(K, 128)
    for i = 0, M - 1 do
      for j = 0, N - 1 do
        local s, a, b = 0, i * K, j * K
        for kk = 0, K - 1 do
          local kb = math.floor(kk / 32)
          s = s + A[a + kk + 1] * SA[sf_index(i, kb, KT) + 1] * B[b + kk + 1] * SB[sf_index(j, kb, KT) + 1]
        end
        C[i * N + j + 1] = s
      end
    end
    return { C = C }
  end,
  tolerance = 1e-2,   -- relative, plus 1e-2 of C's RMS: exact products of e4m3 and powers of two, an f32 sum, bf16 out
  grid = function(t) local P = plan(t); return { P.tiles * t.CLUSTER } end,
  block = function(t) return { plan(t).threads } end,
  maxntid = function(t) return { plan(t).threads } end,
  minnctapersm = 1,
  cluster = function(t) plan(t); return { t.CLUSTER } end,
  body = function(t, A_map, B_map, SFA_map, SFB_map, C_map)
    local P = plan(t)
    local amap, bmap, samap, sbmap, cmap = ptx.reg.u64(), ptx.reg.u64(), ptx.reg.u64(), ptx.reg.u64(), ptx.reg.u64()
    ptx.op "cvta.param.u64" (amap, A_map)
    ptx.op "cvta.param.u64" (bmap, B_map)
    ptx.op "cvta.param.u64" (samap, SFA_map)
    ptx.op "cvta.param.u64" (sbmap, SFB_map)
    ptx.op "cvta.param.u64" (cmap, C_map)
    -- one instruction descriptor a k step: the scale factors' byte k of each cell
    local idesc = {}
    for k = 0, P.ksteps - 1 do
      idesc[k] = ptx.tcgen05_idesc { kind = "mxf8f6f4", a = "e4m3", b = "e4m3", m = P.m, n = t.BN, cta_group = P.group,
                                     scale = "ue8m0", sfa_id = k, sfb_id = k }
    end
    bw.gemm(t, {
      kind = "mxf8", P = P, kt = P.kt, sf_rows_k = 4 * P.kt,
      maps = { A = amap, B = bmap, SFA = samap, SFB = sbmap },
      idesc = idesc,
      decode = function(ct, p, h)
        local cm, cn = bw.band_tile(ct, P)
        local m0 = cm:mad(P.npair, p):mad(P.m, h * 128)
        local n0 = cn * t.BN
        return { m0 = m0, n0 = n0, nb = h:mad(P.bhalf, n0), sf_m = m0:shr(7), sf_n = n0:shr(7) }
      end,
      store = bw.tma_store(cmap),
    })
  end,
}

return { maps = function(t) return K:maps(t) end }
