-- gemm_sm100.lua -- the Blackwell GEMM: C = A * B^T, A M x K and B N x K row-major bf16 (both
-- K-major), f32 accumulation in tensor memory, C M x N row-major in OUT (bf16 or f32). sm_100a:
-- CTA pairs with tcgen05.mma.cta_group::2 of M = 256, TMA (.cta_group::2, B multicast between the
-- pairs of a cluster of 4) into a STAGES-deep ring, a double-buffered tensor-memory accumulator,
-- one TMA thread, one MMA thread, an epilogue warpgroup (tensor memory -> registers -> swizzled
-- shared memory -> TMA store) that overlaps the next tile's MMAs, and a persistent schedule through
-- cluster launch control. The pipeline is kernels/lib/sm100_gemm.lua's (its header lists the roles
-- and barriers); docs/blackwell.md, "Writing a Blackwell kernel", walks through it phase by phase.
-- CLUSTER = 1 runs one CTA alone (cta_group::1 MMAs of M = 128, all BN rows of B in the CTA).
--
-- Phases:
--   plan       shared memory: STAGES stages of an A tile (128 x BK: this CTA's half of the pair's
--              256 rows) and a B tile (BN/2 x BK: this CTA's half of the BN columns), both
--              128B-swizzled as the TMA writes them and tcgen05.mma reads them; 8 epilogue buffers
--              (2 for each epilogue warp, 32 rows x 128 bytes); the barriers; the CLC response.
--              Tensor memory: two accumulators of BN columns (512 at BN = 256).
--   maps       A: dims {K, M}, box {BK, 128}; B: dims {K, N}, box {BK, BN / CLUSTER} (a pair's
--              half of B, split between the pairs of the cluster); C: dims {N, M}, box {EN, 32},
--              EN = 128 bytes of OUT; all 128B-swizzled; declared with the kernel (ptx.tensormap)
--   schedule   cluster tile ct covers NPAIR = CLUSTER / 2 tile-rows of 256 (one a pair) of one
--              column of BN, in bands of GROUP cluster-rows (down a band's column, then its next
--              column, then the next band: bw.band_tile), so the clusters running at once share a
--              few rows of A and columns of B in L2. The grid launches
--              every cluster tile; a running cluster takes the next one not yet launched with
--              clusterlaunchcontrol.try_cancel until none is left (a persistent kernel that also
--              runs correctly when no cancel succeeds).
--
-- Shapes: any M, N >= 1 and K >= 8 with K % 8 == 0; N % 8 == 0 for bf16 output, N % 4 == 0 for
-- f32. Partial tiles need nothing: the TMA zero-fills loads outside the tensors and clips stores.
local ptx = require "ptxlua"
local bw = ptx.import "lib/sm100_gemm.lua"

local OUT_BYTES = { bf16 = 2, f32 = 4 }

local function plan(t)
  ptx.check_templates(t, {
    M = { min = 1 }, N = { min = 1 },
    K = { min = 8, multiple = 8, why = "TMA rows are multiples of 16 bytes (pad K with zeros)" },
    OUT = { one_of = { "bf16", "f32" } },
    BN = { one_of = { 64, 128, 192, 256 }, why = "the N of the MMA (256 or 128 x BN x 16), two accumulators in 512 columns, whole 128-byte epilogue chunks" },
    BK = { one_of = { 64 }, why = "one 128-byte swizzle row of bf16" },
    STAGES = { min = 2 },
    CLUSTER = { one_of = { 1, 2, 4 }, why = "one CTA, or one or two CTA pairs" },
    GROUP = { min = 1 },
  })
  t.TMA_STORE = true
  local P = bw.plan(t, "bf16")
  if (t.N * P.ob) % 16 ~= 0 then ptx.error("N (%d) times %d bytes must be a multiple of 16: TMA rows of C are multiples of 16 bytes", t.N, P.ob) end
  if P.smem > 232448 then
    ptx.error("%d stages of (128 + %d) x %d bf16 and the epilogue buffers need %d bytes of shared memory (227 KB a block)", t.STAGES, P.bhalf, t.BK, P.smem)
  end
  P.kt = math.ceil(t.K / t.BK)
  P.tm = math.ceil(t.M / P.m)                                  -- pair (or CTA) tile-rows
  P.tmc = math.ceil(P.tm / P.npair)                            -- cluster-rows
  P.tn = math.ceil(t.N / t.BN)
  P.tiles = P.tmc * P.tn
  bw.bands(P, t.GROUP)                                        -- the raster: bands of GROUP cluster-rows
  if P.tiles * t.CLUSTER >= 2 ^ 31 or t.M >= 2 ^ 31 or t.N >= 2 ^ 31 or t.K >= 2 ^ 31 then ptx.error("M, N, K (%d, %d, %d) are too large for one grid", t.M, t.N, t.K) end
  return P
end

local K = ptx.kernel {
  name = "gemm_sm100",
  doc = "C[M, N] = A[M, K] * B[N, K]^T on Blackwell: CTA pairs, tcgen05.mma, tensor memory, TMA, cluster launch control",
  target = "sm_100a",
  templates = { M = 8192, N = 8192, K = 8192, BN = 256, BK = 64, STAGES = 6, CLUSTER = 2, GROUP = 8, OUT = "bf16" },
  tensors = {
    A = ptx.tensor("bf16", { "M", "K" }),
    B = ptx.tensor("bf16", { "N", "K" }),
    C = ptx.tensor("OUT", { "M", "N" }),
  },
  params = {
    { "A_map", ptx.tensormap { of = "A", box = { "BK", 128 }, swizzle = "128B" } },
    { "B_map", ptx.tensormap { of = "B", box = { "BK", "BN / CLUSTER" }, swizzle = "128B" } },
    { "C_map", ptx.tensormap { of = "C", box = function(t) return { 128 / OUT_BYTES[t.OUT], 32 } end, swizzle = "128B" } },
  },
  -- --emulate: partial tiles on every edge (the second pair's rows past M), several k-tiles
  emulate = { M = 300, N = 200, K = 136, BN = 64 },
  reference = function(t, x)
    local A, B, C, M, N, K = x.A, x.B, {}, t.M, t.N, t.K
    for i = 0, M - 1 do
      for j = 0, N - 1 do
        local s, a, b = 0, i * K, j * K
        for kk = 1, K do s = s + A[a + kk] * B[b + kk] end
        C[i * N + j + 1] = s
      end
    end
    return { C = C }
  end,
  tolerance = 1e-2,   -- relative, plus 1e-2 of C's RMS: bf16 output (2^-9) over an f32 sum of exact products
  grid = function(t) local P = plan(t); return { P.tiles * t.CLUSTER } end,
  block = function(t) return { plan(t).threads } end,
  maxntid = function(t) return { plan(t).threads } end,
  minnctapersm = 1,   -- one CTA an SM (its shared memory and tensor memory take the SM): no occupancy target for ptxas
  cluster = function(t) plan(t); return { t.CLUSTER } end,
  body = function(t, A_map, B_map, C_map)
    local P = plan(t)
    local amap, bmap, cmap = ptx.reg.u64(), ptx.reg.u64(), ptx.reg.u64()
    ptx.op "cvta.param.u64" (amap, A_map)
    ptx.op "cvta.param.u64" (bmap, B_map)
    ptx.op "cvta.param.u64" (cmap, C_map)
    bw.gemm(t, {
      kind = "bf16", P = P, kt = P.kt,
      maps = { A = amap, B = bmap },
      idesc = ptx.tcgen05_idesc { kind = "f16", d = "f32", a = "bf16", b = "bf16", m = P.m, n = t.BN, cta_group = P.group },
      -- cluster tile ct: cluster-row ct % TMC, column ct / TMC; pair p of it, half h of the pair
      decode = function(ct, p, h)
        local cm, cn = bw.band_tile(ct, P)
        local m0 = cm:mad(P.npair, p):mad(P.m, h * 128)
        local n0 = cn * t.BN
        return { m0 = m0, n0 = n0, nb = h:mad(P.bhalf, n0) }
      end,
      store = bw.tma_store(cmap),
    })
  end,
}

-- the tensor-map specs of the declaration above, for dev:tensormap(array, spec), at template values
-- t (the defaults filled in): A, B, C (launches build them from the tensors themselves)
return { maps = function(t) return K:maps(t) end }
