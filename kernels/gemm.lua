-- gemm.lua -- the Hopper GEMM: C = A * B^T, A M x K and B N x K row-major bf16 (both K-major),
-- f32 accumulation, C M x N row-major in OUT (bf16 or f32). sm_90a: TMA, wgmma, mbarriers, warp
-- specialization, thread-block clusters with TMA multicast, a persistent tile scheduler.
-- (kernels/gemm_mma.lua is the sm_80 mma.sync GEMM.) docs/hopper.md, "Writing a pipelined Hopper
-- kernel", walks through this file phase by phase. The pipeline's steps (barriers, producer and
-- consumer steps, stage advance, TMA-store publish) are kernels/lib/hopper_pipe.lua's.
--
-- Phases:
--   plan       shared memory: STAGES stages of an A tile (BM x BK) and a B tile (BN x BK), both
--              128B-swizzled as the TMA writes them and wgmma reads them; a full and an empty
--              mbarrier per stage; two epilogue buffers per consumer warpgroup (64 rows x 128 bytes).
--   maps       three tensor maps, passed by value (.param .align 64 .b8 [128]); their address goes
--              into a .u64 register with cvta.param (ptxas refuses the parameter inside [map, {..}]):
--                A: dims {K, M}, box {BK, BM},            swizzle 128B
--                B: dims {K, N}, box {BK, BN / CLUSTER},  swizzle 128B
--                C: dims {N, M}, box {EN, 64},            swizzle 128B  (EN = 128 bytes of OUT)
--              declared with the kernel (ptx.tensormap over the tensors A, B, C): a launch given the
--              tensors builds them; `maps(t)` (returned by this file) gives their dev:tensormap specs.
--   barriers   full[s]: one arrival (the producer's arrive.expect_tx) + the stage's bytes;
--              empty[s]: one arrival per consumer warp of every CTA of the cluster (a multicast
--              writes the stage in every CTA, so all of them must have released it).
--   producer   warpgroup 0, 40 registers; one thread walks the same tiles and k-tiles as the
--              consumers: wait empty[s], expect the stage's bytes on full[s], load A (its own rows)
--              and its 1/CLUSTER share of B multicast to every CTA of the cluster.
--   consumers  warpgroups 1 .. BM/64, 232 registers; warpgroup w owns rows 64(w-1) .. of the tile:
--              per k-tile wait full[s], issue BK/16 wgmma m64nBNk16 from descriptors, then wait
--              until only these are in flight and release the previous k-tile's stage (a remote
--              mbarrier arrive on its empty barrier in every CTA of the cluster).
--   epilogue   per 128-byte column chunk: accumulators -> bf16/f32 into a swizzled buffer
--              (st.shared), fence.proxy.async, a named barrier, one thread stores the 64 x EN box
--              with TMA (clipped at the M, N edges); two buffers alternate (wait_group.read 1).
--   scheduler  persistent: a grid of at most SMS CTAs (a multiple of CLUSTER); cluster c takes
--              cluster tiles c, c + nclusters, ...; a cluster tile is CLUSTER tile-rows (one per CTA,
--              by rank) of one tile-column. Tiles run in bands of GROUP cluster-rows: down a band's
--              column, then its next column, then the next band (GROUP >= the cluster-rows: plain
--              column order), so the CTAs working at once share a few rows of A and columns of B
--              in L2 instead of all of A. The producer runs ahead into the next tile while the
--              consumers store this one.
--
-- Shapes: any M, N >= 1 and K >= 8 with K % 8 == 0 (TMA global strides are multiples of 16 bytes);
-- N % 8 == 0 for bf16 output, N % 4 == 0 for f32 (the same rule for C's rows). Partial tiles need
-- nothing: the TMA zero-fills loads outside the tensor and clips stores.
-- ptxas (CUDA 13.0, sm_90a) at the defaults (128 x 256 x 64 tiles, 4 stages, clusters of 2, bf16
-- out): 384 threads, 168 registers at entry (setmaxnreg then moves them: 40 producer, 232
-- consumers), no spills; 224 KB of dynamic shared memory.
local ptx = require "ptxlua"
local hp = ptx.import "lib/hopper_pipe.lua"

local OUT_BYTES = { bf16 = 2, f32 = 4 }

-- the tiling for a set of templates; every impossible combination is an error here
local function plan(t)
  ptx.check_templates(t, {
    M = { min = 1 }, N = { min = 1 }, SMS = { min = 1 }, GROUP = { min = 1 },
    K = { min = 8, multiple = 8, why = "TMA rows are multiples of 16 bytes (pad K with zeros)" },
    OUT = { one_of = { "bf16", "f32" } },
    BM = { one_of = { 64, 128 }, why = "one or two consumer warpgroups of 64 rows" },
    BN = { one_of = { 64, 128, 192, 256 }, why = "the n of wgmma m64nNk16, whole 128-byte epilogue chunks" },
    BK = { one_of = { 64 }, why = "one 128-byte swizzle row of bf16" },
    STAGES = { min = 2 },
    CLUSTER = { one_of = { 1, 2, 4 } },
  })
  local P = {}
  P.ob = OUT_BYTES[t.OUT]
  if (t.N * P.ob) % 16 ~= 0 then ptx.error("N (%d) times %d bytes must be a multiple of 16: TMA rows of C are multiples of 16 bytes", t.N, P.ob) end
  if (t.BN / t.CLUSTER) % 8 ~= 0 then ptx.error("BN (%d) must split into CLUSTER (%d) multicast slices of whole 8-row groups", t.BN, t.CLUSTER) end
  if t.SMS < t.CLUSTER then ptx.error("SMS (%d) must hold at least one cluster of %d", t.SMS, t.CLUSTER) end
  P.wgs = t.BM / 64                                     -- consumer warpgroups
  P.threads = 128 * (1 + P.wgs)
  P.en = 128 / P.ob                                     -- epilogue chunk: 128 bytes of a C row
  P.chunks = math.ceil(t.BN / P.en)
  P.a_bytes, P.b_bytes = t.BM * t.BK * 2, t.BN * t.BK * 2
  P.b_slice = t.BN / t.CLUSTER                          -- rows of B each CTA loads and multicasts
  P.smem = t.STAGES * (P.a_bytes + P.b_bytes) + 2 * P.wgs * 8192 + 16 * t.STAGES
  if P.smem > 232448 then
    ptx.error("%d stages of (%d + %d) x %d bf16 and the epilogue buffers need %d bytes of shared memory (227 KB a block)", t.STAGES, t.BM, t.BN, t.BK, P.smem)
  end
  P.kt = math.ceil(t.K / t.BK)
  P.tm, P.tn = math.ceil(t.M / t.BM), math.ceil(t.N / t.BN)
  P.tmc = math.ceil(P.tm / t.CLUSTER)                   -- cluster tile-rows
  P.tiles = P.tmc * P.tn                                -- cluster tiles
  P.group = math.min(t.GROUP, P.tmc)                    -- cluster-rows per band
  P.band = P.group * P.tn                               -- cluster tiles per whole band
  P.last = P.tmc - math.floor((P.tmc - 1) / P.group) * P.group   -- cluster-rows of the last band
  P.clusters = math.min(math.floor(t.SMS / t.CLUSTER), P.tiles)
  if P.tiles > 2 ^ 31 or t.M >= 2 ^ 31 or t.N >= 2 ^ 31 or t.K >= 2 ^ 31 then ptx.error("M, N, K (%d, %d, %d) must be below 2^31", t.M, t.N, t.K) end
  return P
end

local K = ptx.kernel {
  name = "gemm",
  doc = "C[M, N] = A[M, K] * B[N, K]^T on Hopper: TMA, wgmma, mbarrier pipeline, clusters, persistent",
  target = "sm_90a",
  templates = { M = 8192, N = 8192, K = 8192, BM = 128, BN = 256, BK = 64, STAGES = 4, CLUSTER = 2, SMS = 132, GROUP = 8, OUT = "bf16" },
  -- the tensors behind the maps (row-major, outermost first) and the maps over them: dims are the
  -- shape reversed (K innermost), the box innermost first as the copies' coordinates {k0, m0}
  tensors = {
    A = ptx.tensor("bf16", { "M", "K" }),
    B = ptx.tensor("bf16", { "N", "K" }),
    C = ptx.tensor("OUT", { "M", "N" }),
  },
  params = {
    { "A_map", ptx.tensormap { of = "A", box = { "BK", "BM" }, swizzle = "128B" } },
    { "B_map", ptx.tensormap { of = "B", box = { "BK", "BN / CLUSTER" }, swizzle = "128B" } },
    -- C: 64 rows of 128 bytes (EN = 64 bf16 or 32 f32 columns), the epilogue's chunk
    { "C_map", ptx.tensormap { of = "C", box = function(t) return { 128 / OUT_BYTES[t.OUT], 64 } end, swizzle = "128B" } },
  },
  -- --emulate: partial tiles on every edge, 3 tile-rows (the last cluster's second CTA outside C),
  -- one cluster walking both cluster tiles; C against the product in doubles
  emulate = { M = 300, N = 264, K = 136, SMS = 2 },
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
  grid = function(t) local P = plan(t); return { P.clusters * t.CLUSTER } end,
  block = function(t) return { plan(t).threads } end,
  maxntid = function(t) return { plan(t).threads } end,
  cluster = function(t) plan(t); return { t.CLUSTER } end,
  body = function(t, A_map, B_map, C_map)
    local P = plan(t)
    local CL = t.CLUSTER

    -- plan: every offset is fixed here; the block is dynamic (over 48 KB)
    local sm = ptx.smem_plan()
    local sA = sm:alloc("A", "bf16", { t.BM, t.BK }, { stages = t.STAGES, swizzle = "128B" })
    local sB = sm:alloc("B", "bf16", { t.BN, t.BK }, { stages = t.STAGES, swizzle = "128B" })
    local sC = sm:alloc("C", t.OUT, { 64, P.en }, { stages = 2 * P.wgs, swizzle = "128B" })
    local full = sm:alloc("full", "b64", t.STAGES, { align = 8 })
    local empty = sm:alloc("empty", "b64", t.STAGES, { align = 8 })
    local pipe = hp.pipe { stages = t.STAGES, full = full, empty = empty, cluster = CL }

    -- tensor maps: their generic addresses
    local amap, bmap, cmap = ptx.reg.u64(), ptx.reg.u64(), ptx.reg.u64()
    ptx.op "cvta.param.u64" (amap, A_map)
    ptx.op "cvta.param.u64" (bmap, B_map)
    ptx.op "cvta.param.u64" (cmap, C_map)

    -- barriers: thread 0 initializes them (empty[s]: the 4 consumer warps of each warpgroup, in
    -- every CTA of the cluster), the fence makes them visible to the async proxy and the cluster,
    -- and every CTA of the cluster waits for all of them before any copy
    local tid = ptx.special "tid.x"
    pipe:init(tid:eq(0), 4 * P.wgs)

    -- the scheduler: this CTA's cluster, the number of clusters, its rank in the cluster
    local cid, ncl, rank = ptx.reg.u32(), ptx.reg.u32(), ptx.reg.u32()
    if CL > 1 then
      ptx.mov.u32(cid, ptx.sreg.clusterid.x)
      ptx.mov.u32(ncl, ptx.sreg.nclusterid.x)
      ptx.mov.u32(rank, ptx.sreg.cluster_ctarank)
    else
      ptx.mov.u32(cid, ptx.sreg.ctaid.x)
      ptx.mov.u32(ncl, ptx.sreg.nctaid.x)
      ptx.mov.u32(rank, 0)
    end
    -- the tile loop shared by both roles: body(m0, n0) for every tile of this CTA
    local function tiles(body)
      local ct = ptx.reg.u32()
      ptx.mov.u32(ct, cid)
      local top, done = ptx.label(), ptx.label()
      ptx.place(top)
      ptx.at(ct:ge(P.tiles)).bra(done)
      local cm, cn
      if P.group == P.tmc then
        cm, cn = ct % P.tmc, ct / P.tmc
      else
        -- band b = ct / band; inside it, g cluster-rows (GROUP, or what the last band has left)
        local b, i = ct / P.band, ct % P.band
        local g = ptx.reg.u32()
        ptx.mov.u32(g, P.group)
        ptx.at(ct:ge(P.tiles - P.last * P.tn)).mov.u32(g, P.last)
        local r = ptx.reg.u32()
        ptx.rem.u32(r, i, g)
        cm, cn = b:mad(P.group, r), ptx.reg.u32()
        ptx.div.u32(cn, i, g)
      end
      local m0 = cm:mad(CL, rank) * t.BM
      local n0 = cn * t.BN
      body(m0, n0)
      ptx.add.u32(ct, ct, ncl)
      ptx.bra.uni(top)
      ptx.place(done)
    end

    ptx.warp_specialize {
      regs = { producer = 40, consumers = 232 },

      -- producer: thread 0 issues every copy of this CTA
      producer = function()
        ptx.if_(tid:eq(0), function()
          local ring = pipe:ring()
          local base = ptx.reg.u32()
          ptx.mov.u32(base, ptx.sym "smem")
          ring.base = base
          local bslice = rank * (P.b_slice * t.BK * 2)
          tiles(function(m0, n0)
            local nb = rank:mad(P.b_slice, n0)                     -- this CTA's rows of B
            ptx.loop(P.kt, function(kt)
              local k0 = kt * t.BK
              -- wait until stage s is free everywhere, expect its bytes on full[s] (fb), load it
              ring:produce(P.a_bytes + P.b_bytes, function(fb)
                local da = ring:stage(sA)
                local db = ring:stage(sB) + bslice
                local load = ptx.op "cp.async.bulk.tensor.2d.shared::cluster.global.tile.mbarrier::complete_tx::bytes"
                load(ptx.addr(da), ptx.taddr(amap, { k0, m0 }), ptx.addr(fb))
                if CL > 1 then                                      -- B: this CTA's slice, to every CTA
                  local mcast = ptx.op "cp.async.bulk.tensor.2d.shared::cluster.global.tile.mbarrier::complete_tx::bytes.multicast::cluster"
                  mcast(ptx.addr(db), ptx.taddr(bmap, { k0, nb }), ptx.addr(fb), 2 ^ CL - 1)
                else
                  load(ptx.addr(db), ptx.taddr(bmap, { k0, nb }), ptx.addr(fb))
                end
              end)
            end)
          end)
        end)
      end,

      -- consumers: warpgroup wg (1-based) computes rows 64 (wg - 1) .. of each tile
      consumers = function(wg)
        local w, wtid, warp, lane, g, q = hp.place(tid, wg)     -- this thread in its warpgroup
        local base = ptx.reg.u32()
        ptx.mov.u32(base, ptx.sym "smem")
        local acc = ptx.regs.f32(t.BN / 2, "acc", 0)
        local ring = pipe:ring(base)

        -- descriptors of stage 0, k-step 0: A's rows of this warpgroup, all of B
        local da0 = ptx.wgmma_desc(sA, { mn = 64, k = t.BK, base = w:mad(64 * 128, base), swizzle = "128B" }):as("u64")
        local db0 = ptx.wgmma_desc(sB, { mn = t.BN, k = t.BK, base = base, swizzle = "128B" }):as("u64")

        -- release targets: empty[s] of every CTA of the cluster, through mapa (lane 0 of each warp)
        local is_lead = lane:eq(0)
        local release = pipe:releaser(base)

        -- epilogue addresses: row 16 warp + g (+8) of this warpgroup's buffer, the 8-byte (f32) or
        -- 4-byte (bf16) piece of n8 block j of a chunk, 128B-swizzled: chunk16 ^ (row & 7)
        local jpc = P.en / 8                                     -- n8 blocks per chunk
        local row = warp:mad(16, g)
        local cbuf = w:mad(2 * sC.stage_bytes, base + sC.offset)
        local rowaddr = row:mad(128, cbuf)
        local paddr = {}
        for j = 0, jpc - 1 do
          local byte = q:mad(2 * P.ob, j * 8 * P.ob)
          local c16 = byte:shr(4):bxor(g):shl(4)
          paddr[j] = rowaddr + c16 + byte:band(15)
        end
        -- lane 0 of each warp releases each stage once wgmma.wait_group says it has been read
        ring:as_consumer(is_lead, release)
        local wlead = wtid:eq(0)
        local namedbar = w + 1                                   -- bar.sync 1 + w, 128 threads
        local ptrue = lane:eq(lane)                              -- wgmma scale-d: accumulate

        tiles(function(m0, n0)
          -- main loop: k-tiles through the stages
          ptx.loop(P.kt, function(kt)
            -- wait for full[s]; BK/16 wgmmas from stage s; release the previous k-tile's stage
            ring:consume(kt, function(accumulate)
              local sa, sb = ring:desc_step(sA), ring:desc_step(sB)
              local da, db = da0 + sa, db0 + sb
              local wgmma = ptx.op("wgmma.mma_async.sync.aligned.m64n" .. t.BN .. "k16.f32.bf16.bf16")
              hp.mma(wgmma, acc, da, db, t.BK / 16, accumulate, ptrue)
            end)
          end)
          ring:drain()

          -- epilogue: chunk c holds columns c*EN .. of the tile, buffer c % 2 of this warpgroup
          local y = w:mad(64, m0)
          for c = 0, P.chunks - 1 do
            local boff = (c % 2) * sC.stage_bytes
            -- the store that last read this buffer is done: at most the other buffer's is pending
            -- (an odd number of chunks: the previous tile's last store read this very buffer)
            local pending = (c == 0 and P.chunks % 2 == 1) and 0 or 1
            ptx.if_(wlead, function() ptx.op "cp.async.bulk.wait_group.read" (pending) end)
            ptx.bar.sync(namedbar, 128)
            for j = 0, jpc - 1 do
              local nb = c * jpc + j                               -- n8 block of the tile
              if nb < t.BN / 8 then
                for h = 0, 1 do
                  local a0, a1 = acc[4 * nb + 2 * h + 1], acc[4 * nb + 2 * h + 2]
                  local at = ptx.addr(paddr[j], boff + h * 8 * 128)
                  if t.OUT == "bf16" then
                    local v = ptx.reg.b32()
                    ptx.op "cvt.rn.bf16x2.f32" (v, a1, a0)
                    ptx.st.shared.b32(at, v)
                  else
                    ptx.st.shared.v2.f32(at, { a0, a1 })
                  end
                end
              end
            end
            -- fence.proxy.async, the warpgroup's barrier, one thread stores the box
            hp.store(wlead, namedbar, function()
              local src = cbuf + boff
              local store = ptx.op "cp.async.bulk.tensor.2d.global.shared::cta.tile.bulk_group"
              store(ptx.taddr(cmap, { n0 + c * P.en, y }), ptx.addr(src))
            end)
          end
        end)
        ptx.if_(wlead, function() ptx.op "cp.async.bulk.wait_group" (0) end)
      end,
    }

    -- no CTA leaves while a peer may still multicast into it or arrive on its barriers
    pipe:leave()
    ptx.ret()
  end,
}

-- the tensor-map specs of the declaration above, for dev:tensormap(array, spec), at template values
-- t (the defaults filled in): A, B, C (launches build them from the tensors themselves)
return { maps = function(t) return K:maps(t) end }
