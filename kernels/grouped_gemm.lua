-- grouped_gemm.lua -- the grouped (MoE) GEMM on Hopper: for every group g < G,
--   C[offs[g] .. offs[g+1]) = A[offs[g] .. offs[g+1]) * B[g]^T
-- A is MTOT x K (the rows of all groups, one after the other), B is G x N x K (one N x K matrix per
-- group), C is MTOT x N; bf16 inputs and output, f32 accumulation. offs is a device
-- array of G + 1 u32 (offs[0] = 0, nondecreasing, offs[G] = MTOT): groups may be empty.
--
-- The pipeline is kernels/gemm.lua's without clusters (kernels/lib/hopper_pipe.lua): a producer
-- warpgroup (one thread issuing TMA loads into STAGES 128B-swizzled stages behind full/empty
-- mbarriers) and BM/64 consumer warpgroups (wgmma m64nBNk16 from descriptors, setmaxnreg 40/232).
-- The scheduler is persistent over all groups: tile i of the concatenation (group by group; inside
-- a group tile-rows fastest) goes to CTA i mod SMS; both roles walk offs to find the group of each
-- tile. A tile-row may reach past its group into the next one's rows of A (or past MTOT, where the
-- TMA fills zeros): those rows are computed and not stored. The epilogue therefore stores from
-- registers with row and column guards (st.global), not with a TMA box, which would write over the
-- next group's rows.
-- Tensor maps (declared with the kernel over the tensors A and B; `maps(t)`, returned by this file,
-- gives their dev:tensormap specs): A dims {K, MTOT} box {BK, BM}; B dims {K, G * N} box {BK, BN};
-- both 128B-swizzled.
local ptx = require "ptxlua"
local hp = ptx.import "lib/hopper_pipe.lua"

local function plan(t)
  ptx.check_templates(t, {
    G = { min = 1 }, MTOT = { min = 1 }, SMS = { min = 1 },
    N = { min = 2, multiple = 2, why = "C is stored in pairs" },
    K = { min = 8, multiple = 8, why = "TMA rows are multiples of 16 bytes (pad K with zeros)" },
    BM = { one_of = { 64, 128 }, why = "one or two consumer warpgroups of 64 rows" },
    BN = { min = 16, max = 256, multiple = 16, why = "the n of wgmma m64nNk16" },
    BK = { one_of = { 64 }, why = "one 128-byte swizzle row of bf16" },
    STAGES = { min = 2 },
  })
  local P = {}
  P.ob = 2
  if t.G * t.N >= 2 ^ 31 or t.MTOT >= 2 ^ 31 or t.K >= 2 ^ 31 then ptx.error("G * N, MTOT and K must be below 2^31") end
  P.wgs = t.BM / 64
  P.threads = 128 * (1 + P.wgs)
  P.a_bytes, P.b_bytes = t.BM * t.BK * 2, t.BN * t.BK * 2
  P.smem = t.STAGES * (P.a_bytes + P.b_bytes) + 16 * t.STAGES
  if P.smem > 232448 then
    ptx.error("%d stages of (%d + %d) x %d bf16 need %d bytes of shared memory (227 KB a block)", t.STAGES, t.BM, t.BN, t.BK, P.smem)
  end
  P.kt = math.ceil(t.K / t.BK)
  P.tn = math.ceil(t.N / t.BN)
  return P
end

-- offs (G + 1 values, 1-based) of uneven groups of MTOT rows: group 1 empty, none a multiple of the
-- 128-row tile, the last one taking what is left
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
  name = "grouped_gemm",
  doc = "C[offs[g]..offs[g+1]) = A[offs[g]..offs[g+1]) * B[g]^T for every group g: grouped (MoE) GEMM on Hopper",
  target = "sm_90a",
  templates = { G = 8, MTOT = 16384, N = 4096, K = 4096, BM = 128, BN = 256, BK = 64, STAGES = 4, SMS = 132 },
  -- A: the rows of every group; B: G matrices of N x K, one after the other (G * N rows of K)
  tensors = { A = ptx.tensor("bf16", { "MTOT", "K" }), B = ptx.tensor("bf16", { "G * N", "K" }) },
  params = { { "A_map", ptx.tensormap { of = "A", box = { "BK", "BM" }, swizzle = "128B" } },
             { "B_map", ptx.tensormap { of = "B", box = { "BK", "BN" }, swizzle = "128B" } },
             { "C", "bf16*", shape = { "MTOT", "N" } }, { "offs", "u32*", shape = { "G + 1" } } },
  -- --emulate: 3 uneven groups (one empty) over 200 rows, partial tiles in N and K, 3 CTAs walking
  -- the tiles of all groups; offs from group_offsets, C against each group's product in doubles
  emulate = { G = 3, MTOT = 200, N = 264, K = 136, SMS = 3 },
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
  grid = function(t) plan(t); return { t.SMS } end,
  block = function(t) return { plan(t).threads } end,
  maxntid = function(t) return { plan(t).threads } end,
  body = function(t, A_map, B_map, C, offs)
    local P = plan(t)
    local sm = ptx.smem_plan()
    local sA = sm:alloc("A", "bf16", { t.BM, t.BK }, { stages = t.STAGES, swizzle = "128B" })
    local sB = sm:alloc("B", "bf16", { t.BN, t.BK }, { stages = t.STAGES, swizzle = "128B" })
    local full = sm:alloc("full", "b64", t.STAGES, { align = 8 })
    local empty = sm:alloc("empty", "b64", t.STAGES, { align = 8 })
    local pipe = hp.pipe { stages = t.STAGES, full = full, empty = empty }

    local amap, bmap = ptx.reg.u64(), ptx.reg.u64()
    ptx.op "cvta.param.u64" (amap, A_map)
    ptx.op "cvta.param.u64" (bmap, B_map)
    local pc, po = ptx.global_ptrs(C, offs)

    local tid = ptx.special "tid.x"
    pipe:init(tid:eq(0), 4 * P.wgs)                              -- empty[s]: every consumer warp
    local cta, ncta = ptx.special "ctaid.x", ptx.special "nctaid.x"
    local base = ptx.reg.u32()
    ptx.mov.u32(base, ptx.sym "smem")

    -- the scheduler: tiles ct = ctaid, ctaid + nctaid, ... of the concatenation of all groups.
    -- g, the group of tile ct; gstart, its first tile; mbeg, mend its rows; gtm its tile-rows.
    -- body(m0, n0, mend, g): tile-row m0 (a row of A and C), column n0, rows below mend stored
    local function tiles(body)
      local ct, g, gstart = ptx.reg.u32(), ptx.u32(0), ptx.u32(0)
      ptx.mov.u32(ct, cta)
      local mbeg, mend = ptx.reg.u32(), ptx.reg.u32()
      ptx.ld.global.u32(mbeg, ptx.addr(po))
      ptx.ld.global.u32(mend, ptx.addr(po, 4))
      local gtm = (mend - mbeg + (t.BM - 1)) / t.BM
      local top, find, found, done = ptx.label(), ptx.label(), ptx.label(), ptx.label()
      ptx.place(top)
      -- advance to the group holding ct (groups with no tiles are skipped)
      ptx.place(find)
      local gend = gtm:mad(P.tn, gstart)
      ptx.at(ct:lt(gend)).bra(found)
      ptx.add.u32(g, g, 1)
      ptx.at(g:ge(t.G)).bra(done)
      gstart:set(gend)
      mbeg:set(mend)
      ptx.ld.global.u32(mend, ptx.addr(po + g:mul_wide(4), 4))
      gtm:set((mend - mbeg + (t.BM - 1)) / t.BM)
      ptx.bra.uni(find)
      ptx.place(found)
      local l = ct - gstart
      local m0 = (l % gtm):mad(t.BM, mbeg)
      local n0 = (l / gtm) * t.BN
      body(m0, n0, mend, g)
      ptx.add.u32(ct, ct, ncta)
      ptx.bra.uni(top)
      ptx.place(done)
    end

    ptx.warp_specialize {
      regs = { producer = 40, consumers = 232 },

      producer = function()
        ptx.if_(tid:eq(0), function()
          local ring = pipe:ring(base)
          local load = ptx.op "cp.async.bulk.tensor.2d.shared::cluster.global.tile.mbarrier::complete_tx::bytes"
          tiles(function(m0, n0, _, g)
            local nb = g:mad(t.N, n0)                              -- row of B[g] in the G*N rows
            ptx.loop(P.kt, function(kt)
              local k0 = kt * t.BK
              ring:produce(P.a_bytes + P.b_bytes, function(fb)
                load(ptx.addr(ring:stage(sA)), ptx.taddr(amap, { k0, m0 }), ptx.addr(fb))
                load(ptx.addr(ring:stage(sB)), ptx.taddr(bmap, { k0, nb }), ptx.addr(fb))
              end)
            end)
          end)
        end)
      end,

      consumers = function(wg)
        local w, wtid, warp, lane, g8, q = hp.place(tid, wg)     -- this thread in its warpgroup
        local acc = ptx.regs.f32(t.BN / 2, "acc", 0)
        local ring = pipe:ring(base)
        local da0 = ptx.wgmma_desc(sA, { mn = 64, k = t.BK, base = w:mad(64 * 128, base), swizzle = "128B" }):as("u64")
        local db0 = ptx.wgmma_desc(sB, { mn = t.BN, k = t.BK, base = base, swizzle = "128B" }):as("u64")
        ring:as_consumer(lane:eq(0), pipe:releaser(base))          -- lane 0 of each warp releases
        local wgmma = ptx.op("wgmma.mma_async.sync.aligned.m64n" .. t.BN .. "k16.f32.bf16.bf16")
        local rloc = w:mad(64, warp:mad(16, g8))                     -- row of this thread in the tile
        local q2 = q:shl(1)
        local ptrue = lane:eq(lane)                                -- wgmma scale-d: accumulate

        tiles(function(m0, n0, mend)
          ptx.loop(P.kt, function(kt)
            ring:consume(kt, function(accumulate)
              local da = da0 + ring:desc_step(sA)
              local db = db0 + ring:desc_step(sB)
              hp.mma(wgmma, acc, da, db, t.BK / 16, accumulate, ptrue)
            end)
          end)
          ring:drain()

          -- epilogue: rows below mend, columns below N, from the accumulators
          local r0 = m0 + rloc
          local c0 = n0 + q2
          local cbase = pc + r0:mul_wide(t.N * P.ob) + c0:mul_wide(P.ob)
          local rok = { r0:lt(mend), (r0 + 8):lt(mend) }
          local room = (ptx.u32(t.N) - c0):as("s32")                 -- columns c0 + c kept when c < room
          for nb = 0, t.BN / 8 - 1 do
            local cok = room:gt(nb * 8)
            for h = 0, 1 do
              local a0, a1 = acc[4 * nb + 2 * h + 1], acc[4 * nb + 2 * h + 2]
              local at = ptx.addr(cbase, (h * 8 * t.N + nb * 8) * P.ob)
              local ok = rok[h + 1]:and_(cok)
              local v = ptx.reg.b32()
              ptx.op "cvt.rn.bf16x2.f32" (v, a1, a0)
              ptx.at(ok).st.global.b32(at, v)
            end
          end
        end)
      end,
    }
    ptx.ret()
  end,
}

-- the tensor-map specs of the declaration above, for dev:tensormap(array, spec), at template values
-- t: A, B (launches build them from the tensors themselves)
return { maps = function(t) return K:maps(t) end }
