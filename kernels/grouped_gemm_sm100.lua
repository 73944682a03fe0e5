-- grouped_gemm_sm100.lua -- the grouped (MoE) GEMM on Blackwell: for every group g < G,
--   C[offs[g] .. offs[g+1]) = A[offs[g] .. offs[g+1]) * B[g]^T
-- A is MTOT x K (the rows of all groups, one after the other), B is G x N x K (one N x K matrix per
-- group), C is MTOT x N; bf16 inputs and output, f32 accumulation in tensor memory. offs is a
-- device array of G + 1 u32 (offs[0] = 0, nondecreasing, offs[G] = MTOT): groups may be empty.
--
-- The pipeline is kernels/gemm_sm100.lua's (kernels/lib/sm100_gemm.lua): CTA pairs with
-- tcgen05.mma.cta_group::2 of M = 256, TMA .cta_group::2 into STAGES stages (B multicast between
-- the pairs of a cluster of 4), a double-buffered tensor-memory accumulator, TMA, MMA and
-- epilogue roles, cluster launch control. The schedule: cluster tile ct of the concatenation of
-- all groups (group by group; inside a group cluster-rows of 256 NPAIR rows fastest, then columns
-- of BN); every role walks offs to find the group of each tile. The grid launches an upper bound
-- of the tiles, (ceil(MTOT / (256 NPAIR)) + G) tile-columns' worth, since offs is known on the
-- device only: a cluster whose tile is past the last one stops (and takes no more). A tile-row
-- may reach past its group into the next one's rows of A (or past MTOT, where the TMA fills
-- zeros): those rows are computed and not stored. The epilogue therefore stores from registers
-- with row and column guards (st.global.v4, 8 columns a store), not with a TMA box, which would
-- write over the next group's rows.
-- Tensor maps (declared with the kernel over the tensors A and B): A dims {K, MTOT} box {BK, 128};
-- B dims {K, G * N} box {BK, BN / CLUSTER}; both 128B-swizzled.
local ptx = require "ptxlua"
local bw = ptx.import "lib/sm100_gemm.lua"

local function plan(t)
  ptx.check_templates(t, {
    G = { min = 1 }, MTOT = { min = 1 },
    N = { min = 8, multiple = 8, why = "C is stored in 16-byte pieces" },
    K = { min = 8, multiple = 8, why = "TMA rows are multiples of 16 bytes (pad K with zeros)" },
    BN = { one_of = { 64, 128, 192, 256 }, why = "the N of the MMA (256 or 128 x BN x 16), two accumulators in 512 columns, whole 64-column epilogue chunks" },
    BK = { one_of = { 64 }, why = "one 128-byte swizzle row of bf16" },
    STAGES = { min = 2 },
    CLUSTER = { one_of = { 1, 2, 4 }, why = "one CTA, or one or two CTA pairs" },
  })
  t.OUT, t.TMA_STORE = "bf16", false
  local P = bw.plan(t, "bf16")
  if P.smem > 232448 then
    ptx.error("%d stages of (128 + %d) x %d bf16 need %d bytes of shared memory (227 KB a block)", t.STAGES, P.bhalf, t.BK, P.smem)
  end
  P.ct = P.m * P.npair                                         -- rows of a cluster tile
  P.kt = math.ceil(t.K / t.BK)
  P.tn = math.ceil(t.N / t.BN)
  P.bound = (math.ceil(t.MTOT / P.ct) + t.G) * P.tn             -- cluster tiles, at most
  if t.G * t.N >= 2 ^ 31 or t.MTOT >= 2 ^ 31 or t.K >= 2 ^ 31 or P.bound * t.CLUSTER >= 2 ^ 31 then
    ptx.error("G * N, MTOT and K must be below 2^31 (and the grid with them)")
  end
  return P
end

-- offs (G + 1 values, 1-based) of uneven groups of MTOT rows: group 1 empty, none a multiple of the
-- 256-row tile, the last one taking what is left
local function group_offsets(t)
  local w, sum = {}, 0
  for g = 0, t.G - 1 do w[g] = (g == 1) and 0 or ((g * 37) % 11 + 3); sum = sum + w[g] end
  local offs, acc = { 0 }, 0
  for g = 0, t.G - 1 do
    acc = acc + w[g]
    offs[g + 2] = (g == t.G - 1) and t.MTOT or math.floor(t.MTOT * acc / sum)
  end
  return offs
end

local K = ptx.kernel {
  name = "grouped_gemm_sm100",
  doc = "C[offs[g]..offs[g+1]) = A[offs[g]..offs[g+1]) * B[g]^T for every group g: grouped (MoE) GEMM on Blackwell",
  target = "sm_100a",
  templates = { G = 4, MTOT = 8192, N = 2048, K = 2048, BN = 256, BK = 64, STAGES = 7, CLUSTER = 2 },
  tensors = { A = ptx.tensor("bf16", { "MTOT", "K" }), B = ptx.tensor("bf16", { "G * N", "K" }) },
  params = { { "A_map", ptx.tensormap { of = "A", box = { "BK", 128 }, swizzle = "128B" } },
             { "B_map", ptx.tensormap { of = "B", box = { "BK", "BN / CLUSTER" }, swizzle = "128B" } },
             { "C", "bf16*", shape = { "MTOT", "N" } }, { "offs", "u32*", shape = { "G + 1" } } },
  -- --emulate: 3 uneven groups (one empty) over 600 rows (a group of several tile-rows, tiles
  -- reaching into the next group), partial tiles in N and K
  emulate = { G = 3, MTOT = 600, N = 200, K = 136, BN = 64 },
  inputs = function(t) return { offs = group_offsets(t) } end,
  reference = function(t, x)
    local A, B, offs, C, N, K = x.A, x.B, x.offs, {}, t.N, t.K
    for g = 0, t.G - 1 do
      for i = offs[g + 1], offs[g + 2] - 1 do
        for j = 0, N - 1 do
          local s, a, b = 0, i * K, (g * N + j) * K
          for kk = 1, K do s = s + A[a + kk] * B[b + kk] end
          C[i * N + j + 1] = s
        end
      end
    end
    return { C = C }
  end,
  tolerance = 1e-2,
  grid = function(t) local P = plan(t); return { P.bound * t.CLUSTER } end,
  block = function(t) return { plan(t).threads } end,
  maxntid = function(t) return { plan(t).threads } end,
  minnctapersm = 1,
  cluster = function(t) plan(t); return { t.CLUSTER } end,
  body = function(t, A_map, B_map, C, offs)
    local P = plan(t)
    local amap, bmap = ptx.reg.u64(), ptx.reg.u64()
    ptx.op "cvta.param.u64" (amap, A_map)
    ptx.op "cvta.param.u64" (bmap, B_map)
    local pc, po = ptx.global_ptrs(C, offs)

    -- cluster tile ct: walk the groups to the one holding it (groups with no tiles are skipped);
    -- valid is false past the last group's tiles
    local function decode(ct, p, h)
      local g, gstart = ptx.u32(0), ptx.u32(0)
      local m0, n0, nb, mend = ptx.u32(0), ptx.u32(0), ptx.u32(0), ptx.reg.u32()
      local mbeg = ptx.reg.u32()
      local valid = ptx.pred()
      ptx.setp.ne.u32(valid, g, g)                               -- false until the group is found
      ptx.ld.global.u32(mbeg, ptx.addr(po))
      ptx.ld.global.u32(mend, ptx.addr(po, 4))
      local find, found, out = ptx.label(), ptx.label(), ptx.label()
      ptx.place(find)
      local gtm = (mend - mbeg + (P.ct - 1)) / P.ct                -- cluster-rows of group g
      local gend = gtm:mad(P.tn, gstart)
      ptx.at(ct:lt(gend)).bra(found)
      ptx.add.u32(g, g, 1)
      ptx.at(g:ge(t.G)).bra(out)
      gstart:set(gend)
      mbeg:set(mend)
      ptx.ld.global.u32(mend, ptx.addr(po + g:mul_wide(4), 4))
      ptx.bra.uni(find)
      ptx.place(found)
      ptx.setp.eq.u32(valid, g, g)
      local l = ct - gstart
      m0:set((l % gtm):mad(P.ct, mbeg):mad(1, p:mad(P.m, h * 128)))
      n0:set((l / gtm) * t.BN)
      nb:set(g:mad(t.N, h:mad(P.bhalf, n0)))
      ptx.place(out)
      return { valid = valid, m0 = m0, n0 = n0, nb = nb, mend = mend }
    end

    -- the epilogue of one chunk: row m0 + 32 q + lane of C, columns n0 + 64 c .. + 63, stored in
    -- 16-byte pieces where the row is its group's and the columns are below N
    local function store(x)
      local tile, c, v = x.tile, x.c, x.v
      local row = x.q:mad(32, tile.m0) + x.lane
      local rok = row:lt(tile.mend)
      local col = tile.n0 + c * 64
      local room = (ptx.u32(t.N) - col):as("s32")                   -- pieces j with 8 j < room
      local rowp = pc + row:mul_wide(2 * t.N) + col:mul_wide(2)
      for j = 0, 7 do
        local w = {}
        for i = 0, 3 do
          local p = ptx.reg.b32()
          ptx.op "cvt.rn.bf16x2.f32" (p, v[8 * j + 2 * i + 2]:as("f32"), v[8 * j + 2 * i + 1]:as("f32"))
          w[i + 1] = p
        end
        ptx.at(rok:and_(room:gt(8 * j))).st.global.v4.b32(ptx.addr(rowp, 16 * j), w)
      end
    end

    bw.gemm(t, {
      kind = "bf16", P = P, kt = P.kt,
      maps = { A = amap, B = bmap },
      idesc = ptx.tcgen05_idesc { kind = "f16", d = "f32", a = "bf16", b = "bf16", m = P.m, n = t.BN, cta_group = P.group },
      decode = decode,
      store = store,
    })
  end,
}

return { maps = function(t) return K:maps(t) end }
