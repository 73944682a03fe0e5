-- sm100_gemm.lua -- the Blackwell (sm_100a) GEMM pipeline that kernels/gemm_sm100.lua,
-- gemm_fp8_sm100.lua and grouped_gemm_sm100.lua share: CTA pairs multiplying as one with
-- cta_group::2 MMAs of M = 256, a ring of STAGES shared-memory stages filled by TMA (B multicast
-- between the pairs of a cluster of 4), a double-buffered tensor-memory accumulator, one TMA
-- thread, one MMA thread, an epilogue warpgroup and a persistent schedule through cluster launch
-- control. A kernel loads it by a path relative to its own file:
--   local bw = ptx.import "lib/sm100_gemm.lua"
--
-- A CTA has 256 threads, 8 warps, each with one role (docs/blackwell.md, "Writing a Blackwell
-- kernel"):
--   warp 0        the producer: lane 0 walks the tiles and k-tiles, waits until stage s is free
--                 (empty[s]), and loads this CTA's share of A and B (and, block-scaled, the scale
--                 factors) with TMA .cta_group::2, completing on the pair leader's full[s]
--   warp 1        the MMA issuer, in the pair's leader (the even CTA) only: lane 0 waits until the
--                 accumulator buffer is empty (tempty[a]) and each stage is full, issues the
--                 k-tile's MMAs for both CTAs of the pair, and commits them to empty[s] of every
--                 CTA of the cluster (the stage may be refilled) and, after a tile, to tfull[a]
--                 of both CTAs of the pair (the accumulator may be read)
--   warp 2        allocates the tensor memory (both CTAs of a pair, cta_group::2), runs the
--                 scheduler (lane 0: clusterlaunchcontrol.try_cancel from the cluster's rank 0,
--                 multicast to every CTA) and deallocates at the end
--   warp 3        idle
--   warps 4-7     the epilogue warpgroup: warp 4 + q reads lanes 32q .. 32q + 31 of the
--                 accumulator (its quarter of tensor memory: rows 32q .. of this CTA's 128),
--                 releases the buffer to the next tile's MMAs (tempty[a] of the leader), then
--                 stores: the kernel's store(ctx) (TMA through swizzled shared memory, or guarded
--                 st.global)
--
-- Barriers (all .b64 mbarriers in shared memory, initialized by thread 0):
--   full[s]     1 arrival (the leader's producer: arrive.expect_tx of the pair's bytes) + the bytes
--               of both CTAs' loads; used in the leader only
--   empty[s]    NPAIR arrivals (each pair leader's commit, multicast to every CTA of the cluster:
--               a multicast B slice is read by both pairs)
--   tfull[a]    1 arrival: the leader's commit after a tile's last MMA, multicast to the pair
--   tempty[a]   8 arrivals (the 4 epilogue warps of each CTA of the pair); the leader's only
--   clc_full    1 arrival (this CTA's scheduler: expect_tx 16) + the 16 bytes of the response
--   clc_empty   7 x CLUSTER arrivals (every reader of a response: producer, MMA thread, scheduler
--               and the 4 epilogue warps of each CTA); rank 0's only
--
-- The kernel passes a spec (bw.gemm(t, spec)):
--   kind        "bf16" (kind::f16, K 16 an MMA) or "mxf8" (kind::mxf8f6f4.block_scale, e4m3 A and
--               B, ue8m0 scale factors per 32 elements of K: K 32 an MMA)
--   BN, BK, STAGES, CLUSTER, OUT   the templates; BM is 128 rows a CTA (256 a pair); CLUSTER 1
--               is one CTA alone: cta_group::1 MMAs of M = 128, loads and commits without the pair
--               (its own full[s], tempty[a] of its 4 epilogue warps, no multicast)
--   maps        { A =, B =, SFA =, SFB =, C = } the .u64 addresses of the tensor maps
--   tiles       the number of cluster tiles (a number) or nil (grouped: first, decode say)
--   decode(ct, pair, half) -> tile   the tile of cluster tile ct for pair `pair` (0..NPAIR-1),
--               half = rank & 1: { valid =, m0 = (this CTA's first row of A), n0 = (first column
--               of C), nb = (first row of B for this CTA's half), sf_m =, sf_n = (block-scaled: the
--               scale-factor tiles), ... } plus what store() needs
--   store(ctx)  the epilogue's stores of one chunk (see Epi below)
local ptx = require "ptxlua"
local core = require "ptxlua.core"

local bw = {}

local BF16, MXF8 = "bf16", "mxf8"

-- the plan of a spec: sizes in bytes, counts; every impossible combination an error at the
-- kernel's check (the kernel calls bw.plan from its own plan so the message names its line)
function bw.plan(t, kind)
  local P = { kind = kind }
  -- CLUSTER 2 or 4: CTA pairs (cta_group::2, MMAs of M = 256); CLUSTER 1: one CTA (cta_group::1,
  -- MMAs of M = 128), the same roles and barriers without the pair's signalling
  P.pair = t.CLUSTER >= 2
  P.group = P.pair and 2 or 1                                 -- the kernel's .cta_group
  P.m = 128 * P.group                                         -- the MMA's M
  P.npair = P.pair and t.CLUSTER / 2 or 1
  P.eb = kind == MXF8 and 1 or 2                              -- bytes of an A or B element
  P.kstep = kind == MXF8 and 32 or 16                         -- K of one MMA
  P.ksteps = t.BK / P.kstep
  P.ob = t.OUT == "f32" and 4 or 2
  P.en = 128 / P.ob                                           -- epilogue chunk: 128 bytes of a row
  P.chunks = t.BN / P.en
  P.bhalf = t.BN / P.group                                    -- rows of B a CTA of the pair holds
  P.bslice = P.bhalf / P.npair                                -- rows of B a CTA loads (multicast)
  P.a_bytes = 128 * t.BK * P.eb
  P.b_bytes = P.bhalf * t.BK * P.eb
  P.sf_bytes = kind == MXF8 and 512 or 0                      -- one 128 x 4 scale atom
  P.sfb_atoms = kind == MXF8 and math.ceil(t.BN / 128) or 0
  P.stage_bytes = P.a_bytes + P.b_bytes + P.sf_bytes * (1 + P.sfb_atoms)
  P.tx = P.group * P.stage_bytes                               -- bytes of a stage, both CTAs
  P.cbuf = 32 * 128                                           -- one epilogue warp's buffer
  P.smem = t.STAGES * P.stage_bytes + (t.TMA_STORE and 8 * P.cbuf or 0) + 8 * (2 * t.STAGES + 6) + 32
  -- tensor memory: two accumulators of BN columns, then (block-scaled) the scale factors of each
  -- stage: 4 columns for A, 4 a 128-row atom of B
  P.sf_cols = kind == MXF8 and 4 * (1 + P.sfb_atoms) or 0
  P.tmem = 2 * t.BN + t.STAGES * P.sf_cols
  P.threads = 256
  return P
end

-- the raster of a dense GEMM's cluster tiles (kernels/gemm_sm100.lua, gemm_fp8_sm100.lua): P.tmc
-- cluster-rows by P.tn columns, in bands of `group` cluster-rows -- down a band's column, then its
-- next column, then the next band (the last band has what is left) -- so the clusters running at
-- once share a few rows of A and columns of B in L2 instead of all of A. bw.bands(P, group) sets
-- P.bandrows, P.band (cluster tiles a whole band), P.last (cluster-rows of the last band);
-- bw.band_tile(ct, P) -> cm, cn (registers) for cluster tile ct
function bw.bands(P, group)
  P.bandrows = math.min(group, P.tmc)
  P.band = P.bandrows * P.tn
  P.last = P.tmc - math.floor((P.tmc - 1) / P.bandrows) * P.bandrows
end

function bw.band_tile(ct, P)
  if P.bandrows == P.tmc then return ct % P.tmc, ct / P.tmc end
  -- band b = ct / band; inside it, g cluster-rows (the band's, or what the last band has left)
  local b, i = ct / P.band, ct % P.band
  local g = ptx.reg.u32()
  ptx.mov.u32(g, P.bandrows)
  ptx.at(ct:ge(P.tmc * P.tn - P.last * P.tn)).mov.u32(g, P.last)
  local r, cn = ptx.reg.u32(), ptx.reg.u32()
  ptx.rem.u32(r, i, g)
  ptx.div.u32(cn, i, g)
  return b:mad(P.bandrows, r), cn
end

-- mbarrier waits: ptx.mbarrier_wait at an address register
local function wait(a, parity) ptx.mbarrier_wait(ptx.addr(a), parity) end
local function arrive_remote(a) ptx.op "mbarrier.arrive.release.cluster.shared::cluster.b64" (ptx._, ptx.addr(a)) end
local function toggle(r) ptx.xor.b32(r, r, 1) end

-- the ring position of one role: stage s and its parity
local Ring = {}
Ring.__index = Ring
local function ring(n) return setmetatable({ n = n, s = ptx.u32(0), phase = ptx.u32(0) }, Ring) end
function Ring:advance()
  ptx.add.u32(self.s, self.s, 1)
  local wrap = self.s:eq(self.n)
  ptx.at(wrap).mov.u32(self.s, 0)
  ptx.at(wrap).xor.b32(self.phase, self.phase, 1)
end

-- the persistent schedule through cluster launch control, as an object a kernel's roles share:
--   S = bw.clc_schedule { smem = plan, readers = R, cluster = CL }   its barriers and response
--                                    buffer in the plan: clc_full (1 arrival + 16 bytes, every
--                                    CTA), clc_empty (R x CL arrivals: the R readers of each CTA;
--                                    rank 0's), resp (16 bytes, aligned to 16)
--   S:init()                         the two mbarrier.init (from the thread that initializes the
--                                    kernel's barriers, before its fence.mbarrier_init)
--   S:setup(base, rank, decode)      after the cluster barrier that publishes the barriers: base the
--                                    .u32 address of smem, rank %cluster_ctarank, decode(ct) -> tile
--                                    (a table; tile.valid, a .pred, false past the last tile)
--   S:walk(body, reader, warpwide)   one role: body(tile) for cluster tile %clusterid.x, then for
--                                    each cluster a try_cancel took, until one fails (or decodes
--                                    invalid); `reader` (a .pred: one lane a warp) arrives on rank
--                                    0's clc_empty once the response is read (`sync`, a function:
--                                    the barrier after which every lane of the warp has read it, a
--                                    named bar.sync of the warp); every reader the
--                                    count names must walk, in every CTA
--   S:run()                          the scheduler, one thread a CTA (a reader itself): in rank 0,
--                                    once every reader has released the last response, ptx.clc_next
--                                    asks for the next cluster (try_cancel multicast to every CTA of
--                                    the cluster); in every CTA it expects the response's 16 bytes on
--                                    clc_full, waits and reads it
local Sched = {}
Sched.__index = Sched

function bw.clc_schedule(o)
  local sm = o.smem
  return setmetatable({
    cl = o.cluster or 1, readers = o.readers,
    full = sm:alloc("clc_full", "b64", 1, { align = 8 }),
    empty = sm:alloc("clc_empty", "b64", 1, { align = 8 }),
    resp = sm:alloc("resp", "b32", 4, { align = 16 }),
  }, Sched)
end

function Sched:init()
  local init = ptx.op "mbarrier.init.shared::cta.b64"
  init(self.full:addr(0), 1)
  init(self.empty:addr(0), self.readers * self.cl)
end

function Sched:setup(base, rank, decode)
  self.base, self.rank, self.decode = base, rank, decode
  self.empty0 = ptx.reg.u32()                                   -- clc_empty of rank 0
  ptx.op "mapa.shared::cluster.u32" (self.empty0, base + self.empty.offset, 0)
end

-- wait for the response of this phase and read it: ok (a cluster was taken) and its first CTA's x
function Sched:read(cphase)
  wait(self.base + self.full.offset, cphase)
  ptx.op "fence.proxy.async::generic.acquire.sync_restrict::shared::cluster.cluster" ()
  local r = ptx.reg.b128()
  ptx.ld.shared.b128(r, self.resp:addr(0))
  local ok = ptx.pred()
  ptx.op "clusterlaunchcontrol.query_cancel.is_canceled.pred.b128" (ok, r)
  local x = ptx.reg.b32()
  ptx.at(ok).op "clusterlaunchcontrol.query_cancel.get_first_ctaid::x.b32.b128" (x, r)
  return ok, x
end

function Sched:walk(body, reader, sync)
  local ct, cphase = ptx.reg.u32(), ptx.u32(0)
  ptx.mov.u32(ct, ptx.sreg.clusterid.x)
  local top, done = ptx.label(), ptx.label()
  ptx.place(top)
  local tile = self.decode(ct)
  if tile.valid then ptx.at_not(tile.valid).bra(done) end
  body(tile)
  -- the next cluster tile: the response of the scheduler's try_cancel
  local ok, x = self:read(cphase)
  if sync then sync() end                                       -- every lane has read it
  ptx.if_(reader, function() arrive_remote(self.empty0) end)
  toggle(cphase)
  ptx.at_not(ok).bra(done)
  ptx.div.u32(ct, x:as("u32"), self.cl)
  ptx.bra.uni(top)
  ptx.place(done)
end

function Sched:run()
  local cphase = ptx.u32(0)
  local top, done = ptx.label(), ptx.label()
  local c0 = ptx.reg.u32()
  ptx.mov.u32(c0, ptx.sreg.clusterid.x)
  local first = self.decode(c0)
  if first.valid then ptx.at_not(first.valid).bra(done) end
  ptx.place(top)
  local asks = self.rank:eq(0)
  ptx.if_(asks, function()
    wait(self.base + self.empty.offset, cphase:bxor(1))         -- every reader has read the last
  end)
  -- expect the 16 bytes here, rank 0 asks for every CTA (multicast), wait, read (ptx.clc_next)
  local ok, x = ptx.clc_next(self.resp, self.full, cphase, { issue = asks })
  arrive_remote(self.empty0)
  toggle(cphase)
  ptx.at_not(ok).bra(done)
  if first.valid then
    -- a taken cluster past the last tile (grouped: the grid is an upper bound) ends it too
    local nt = self.decode(x / self.cl)
    ptx.at_not(nt.valid).bra(done)
  end
  ptx.bra.uni(top)
  ptx.place(done)
end

function bw.gemm(t, spec)
  local kind, P = spec.kind, spec.P
  local CL, NP, ST, G = t.CLUSTER, P.npair, t.STAGES, P.group

  -- shared memory: every offset fixed here
  local sm = ptx.smem_plan()
  local sA = sm:alloc("A", kind == MXF8 and "b8" or "bf16", { 128, t.BK }, { stages = ST, swizzle = "128B" })
  local sB = sm:alloc("B", kind == MXF8 and "b8" or "bf16", { P.bhalf, t.BK }, { stages = ST, swizzle = "128B" })
  local sSFA, sSFB
  if kind == MXF8 then
    sSFA = sm:alloc("SFA", "b8", { 512 }, { stages = ST, align = 128 })
    sSFB = sm:alloc("SFB", "b8", { 512 * P.sfb_atoms }, { stages = ST, align = 128 })
  end
  local sC
  if t.TMA_STORE then sC = sm:alloc("C", t.OUT, { 32, P.en }, { stages = 8, swizzle = "128B" }) end
  local full = sm:alloc("full", "b64", ST, { align = 8 })
  local empty = sm:alloc("empty", "b64", ST, { align = 8 })
  local tfull = sm:alloc("tfull", "b64", 2, { align = 8 })
  local tempty = sm:alloc("tempty", "b64", 2, { align = 8 })
  local sched = bw.clc_schedule { smem = sm, readers = 7, cluster = CL }
  local tslot = sm:alloc("tslot", "u32", 1, { align = 16 })

  -- tensor memory: the two accumulators, then the scale factors of each stage
  local tm = ptx.tmem_plan { cta_group = G }
  local tacc = tm:alloc("acc", 2 * t.BN)
  local tsf
  if kind == MXF8 then tsf = tm:alloc("sf", ST * P.sf_cols) end

  local tid = ptx.special "tid.x"
  local warp, lane = tid:shr(5), tid:band(31)
  local base = ptx.reg.u32()
  ptx.mov.u32(base, ptx.sym "smem")

  -- the pair: rank, the leader's rank and whether this CTA is it, the masks of commits
  local pair = ptx.cta_pair()
  local rank, leader = pair.rank, pair.leader
  local half = rank:band(1)
  local pidx = rank:shr(1)                                     -- the pair's index in the cluster
  local lrank = rank:band(0xfffffffe)
  local allmask = ptx.reg.u16()
  ptx.mov.u16(allmask, 2 ^ CL - 1)

  -- barriers: thread 0 initializes; the fence publishes them to the cluster and the async proxy
  ptx.if_(tid:eq(0), function()
    local init = ptx.op "mbarrier.init.shared::cta.b64"
    for s = 0, ST - 1 do
      init(full:addr(0, 8 * s), 1)
      init(empty:addr(0, 8 * s), NP)
    end
    for a = 0, 1 do
      init(tfull:addr(0, 8 * a), 1)
      init(tempty:addr(0, 8 * a), 4 * G)
    end
    sched:init()
    ptx.op "fence.mbarrier_init.release.cluster" ()
  end)
  -- warp 2 allocates the tensor memory (the same columns in both CTAs of the pair)
  ptx.if_(warp:eq(2), function() tm:allocate(tslot) end)
  ptx.tcgen05_fence("before")
  ptx.op "barrier.cluster.arrive.release.aligned" ()
  ptx.op "barrier.cluster.wait.acquire.aligned" ()
  ptx.tcgen05_fence("after")
  local tbase = ptx.reg.u32()
  ptx.ld.shared.u32(tbase, tslot:addr(0))

  -- addresses in the pair leader (full, tempty) and in rank 0 (clc_empty), through mapa
  local function at_rank(alloc, r)
    local a = ptx.reg.u32()
    ptx.op "mapa.shared::cluster.u32" (a, base + alloc.offset, r)
    return a
  end

  -- the schedule every role walks (bw.clc_schedule): body(tile) for each cluster tile of this cluster
  sched:setup(base, rank, function(ct) return spec.decode(ct, pidx, half) end)
  local function schedule(body, reader, sync) sched:walk(body, reader, sync) end

  local is0 = lane:eq(0)
  ptx.if_(warp:eq(0), function()
    ---------------------------------------------------------------------------------------------
    -- producer: lane 0 loads this CTA's share of every stage
    ---------------------------------------------------------------------------------------------
    ptx.if_(is0, function()
      local rg = ring(ST)
      local lfull = at_rank(full, lrank)                         -- full[0] of the pair leader
      -- a pair's loads complete on the leader's barrier (.cta_group::2); one CTA's on its own
      local load = ptx.op("cp.async.bulk.tensor.2d.shared::cluster.global.tile.mbarrier::complete_tx::bytes" ..
                          (P.pair and ".cta_group::2" or ""))
      local mcast = ptx.op "cp.async.bulk.tensor.2d.shared::cluster.global.tile.mbarrier::complete_tx::bytes.multicast::cluster.cta_group::2"
      local bmask
      if NP > 1 then
        -- the CTAs of this parity in every pair hold the same half of B: each loads 1/NPAIR of it
        local pm = 0
        for p = 0, NP - 1 do pm = pm + 2 ^ (2 * p) end
        local m = ptx.reg.u32()
        ptx.shl.b32(m, pm, half)
        bmask = ptx.reg.u16()
        ptx.cvt.u16.u32(bmask, m)
      end
      local bslice_off = pidx * (P.bslice * t.BK * P.eb)
      schedule(function(tile)
        ptx.loop(spec.kt, function(kt)
          local k0 = kt * t.BK
          wait(rg.s:mad(8, base + empty.offset), rg.phase:bxor(1))  -- free in this CTA
          local fb = rg.s:mad(8, lfull)
          ptx.if_(leader, function()
            ptx.op "mbarrier.arrive.expect_tx.shared::cta.b64" (ptx._, ptx.addr(rg.s:mad(8, base + full.offset)), P.tx)
          end)
          load(ptx.addr(rg.s:mad(sA.stage_bytes, base + sA.offset)), ptx.taddr(spec.maps.A, { k0, tile.m0 }), ptx.addr(fb))
          local db = rg.s:mad(sB.stage_bytes, base + sB.offset)
          if NP > 1 then
            mcast(ptx.addr(db + bslice_off), ptx.taddr(spec.maps.B, { k0, tile.nb + pidx * P.bslice }), ptx.addr(fb), bmask)
          else
            load(ptx.addr(db), ptx.taddr(spec.maps.B, { k0, tile.nb }), ptx.addr(fb))
          end
          if kind == MXF8 then
            -- the scale factors: one 512-byte atom (4 rows of 128 bytes) of A's 128 rows, and the
            -- atoms of all BN rows of B (the same in both CTAs of the pair)
            local kb = kt * 4
            load(ptx.addr(rg.s:mad(sSFA.stage_bytes, base + sSFA.offset)),
                 ptx.taddr(spec.maps.SFA, { 0, tile.sf_m:mad(spec.sf_rows_k, kb) }), ptx.addr(fb))
            for a = 0, P.sfb_atoms - 1 do
              load(ptx.addr(rg.s:mad(sSFB.stage_bytes, base + sSFB.offset + 512 * a)),
                   ptx.taddr(spec.maps.SFB, { 0, (tile.sf_n + a):mad(spec.sf_rows_k, kb) }), ptx.addr(fb))
            end
          end
          rg:advance()
        end)
      end, is0)
    end)
  end, function()
    ptx.if_(warp:eq(1), function()
      -------------------------------------------------------------------------------------------
      -- MMA issuer: lane 0 of the leader issues the pair's MMAs; the peer only walks the schedule
      -------------------------------------------------------------------------------------------
      ptx.if_(is0, function()
        local rg = ring(ST)
        local acc, aphase = ptx.u32(0), ptx.u32(0)
        local idesc = spec.idesc
        local ptrue = lane:eq(lane)
        -- descriptors of stage 0, k-step 0 (the peer's A and B sit at the same offsets)
        local da0 = ptx.tcgen05_desc(sA, { mn = 128, k = t.BK, base = base }):as("u64")
        local db0 = ptx.tcgen05_desc(sB, { mn = P.bhalf, k = t.BK, base = base }):as("u64")
        local sfd0
        if kind == MXF8 then
          -- the scale atoms as tcgen05.cp sources: 32 rows of 16 bytes, no swizzle, SBO 128
          local lo, hi = core.smem_desc_encode(0, 16, 128, 0, "none", 100)
          sfd0 = ptx.reg.u64()
          ptx.cvt.u64.u32(sfd0, base:shr(4))
          ptx.op "or.b64" (sfd0, sfd0, ptx.hex(ptx.smem_u64(lo, hi)))
        end
        schedule(function()
          ptx.if_(leader, function()
            wait(acc:mad(8, base + tempty.offset), aphase:bxor(1))   -- the epilogue has read it
            ptx.tcgen05_fence("after")
            local d = (tbase + acc * t.BN + tacc.col):as("b32")
            ptx.loop(spec.kt, function(kt)
              wait(rg.s:mad(8, base + full.offset), rg.phase)
              ptx.tcgen05_fence("after")
              local da = da0 + rg.s:mul_wide(sA.stage_bytes / 16)
              local db = db0 + rg.s:mul_wide(sB.stage_bytes / 16)
              local first = kt:ne(0)
              local sfa, sfb
              if kind == MXF8 then
                -- scale factors of this stage into tensor memory (ordered before the MMAs)
                local col = rg.s:mad(P.sf_cols, tbase + tsf.col)
                sfa, sfb = col:as("b32"), (col + 4):as("b32")
                local cp = ptx.op("tcgen05.cp.cta_group::" .. G .. ".32x128b.warpx4")
                local sa = sfd0 + rg.s:mad(sSFA.stage_bytes, sSFA.offset):shr(4):mul_wide(1)
                cp(ptx.addr(sfa), sa:as("b64"))
                for a = 0, P.sfb_atoms - 1 do
                  local sb = sfd0 + rg.s:mad(sSFB.stage_bytes, sSFB.offset + 512 * a):shr(4):mul_wide(1)
                  cp(ptx.addr((col + 4 + 4 * a):as("b32")), sb:as("b64"))
                end
              end
              for k = 0, P.ksteps - 1 do
                local step = k * P.kstep * P.eb / 16                  -- 32 bytes a K step
                local o = { d = d, a = (da + step):as("b64"), b = (db + step):as("b64"), cta_group = G,
                            accumulate = k == 0 and first or ptrue }
                if kind == MXF8 then
                  o.kind, o.scale_vec, o.scale_a, o.scale_b = "mxf8f6f4", "1X", sfa, sfb
                  o.idesc = idesc[k]
                else
                  o.kind, o.idesc = "f16", idesc
                end
                ptx.tcgen05_mma(o)
              end
              -- the stage is free once these MMAs are done: in every CTA of the cluster
              ptx.tcgen05_commit(ptx.addr(rg.s:mad(8, base + empty.offset)), { cta_group = G, multicast = P.pair and allmask or nil })
              rg:advance()
            end)
            -- the accumulator is complete: tell both CTAs' epilogues
            ptx.tcgen05_commit(ptx.addr(acc:mad(8, base + tfull.offset)), { cta_group = G, multicast = P.pair and pair.mask or nil })
            toggle(acc)
            ptx.at(acc:eq(0)).xor.b32(aphase, aphase, 1)
          end)
        end, is0)
      end)
    end, function()
      ptx.if_(warp:eq(2), function()
        -----------------------------------------------------------------------------------------
        -- scheduler: lane 0 of rank 0 asks for the next cluster; every CTA expects the response
        -----------------------------------------------------------------------------------------
        ptx.if_(is0, function() sched:run() end)
      end, function()
        ptx.if_(warp:ge(4), function()
          ---------------------------------------------------------------------------------------
          -- epilogue: warp 4 + q reads rows 32q .. 32q + 31 of this CTA's accumulator
          ---------------------------------------------------------------------------------------
          local q = warp - 4
          local acc, aphase = ptx.u32(0), ptx.u32(0)
          local ltempty = at_rank(tempty, lrank)
          local lane_off = q:shl(21)                                -- (32 q) << 16
          -- the warp's own barrier, named 1 + q of 32 threads: orders its lanes' tensor-memory
          -- loads, shared stores and CLC reads before lane 0's release, store or arrive
          local bid = q + 1
          local function wsync() ptx.bar.sync(bid, 32) end
          local cbuf
          if sC then cbuf = q:mad(2 * sC.stage_bytes, base + sC.offset) end
          schedule(function(tile)
            wait(acc:mad(8, base + tfull.offset), aphase)
            ptx.tcgen05_fence("after")
            local ta = tbase + lane_off + acc * t.BN + tacc.col
            local ctx = { tile = tile, q = q, lane = lane, cbuf = cbuf, sC = sC, P = P, t = t, sync = wsync }
            for c = 0, P.chunks - 1 do
              local v = ptx.tcgen05_ld { shape = "32x32b", num = P.en, taddr = (ta + c * P.en) }
              ptx.tcgen05_wait("ld")
              if c == P.chunks - 1 then
                -- every column is in registers: the next tile's MMAs may overwrite the buffer
                ptx.tcgen05_fence("before")
                wsync()
                ptx.if_(is0, function() arrive_remote(acc:mad(8, ltempty)) end)
              end
              ctx.c, ctx.v = c, v
              spec.store(ctx)
            end
            toggle(acc)
            ptx.at(acc:eq(0)).xor.b32(aphase, aphase, 1)
          end, is0, wsync)
          if sC then ptx.if_(is0, function() ptx.op "cp.async.bulk.wait_group" (0) end) end
        end)
      end)
    end)
  end)

  -- no CTA deallocates or leaves while its pair may still write its tensor memory or a peer may
  -- multicast into it or arrive on its barriers (not .aligned: the single-thread roles' lanes
  -- arrive apart from the rest of their warp)
  ptx.tcgen05_fence("before")
  ptx.op "barrier.cluster.arrive.release" ()
  ptx.op "barrier.cluster.wait.acquire" ()
  ptx.if_(warp:eq(2), function()
    ptx.tcgen05_fence("after")
    tm:deallocate(tbase)
  end)
  ptx.ret()
end

-- the TMA-store epilogue of one chunk (kernels/gemm_sm100.lua, gemm_fp8_sm100.lua): the warp's
-- 32 rows x 128 bytes into its buffer c % 2, 128B-swizzled (16-byte piece j of row r at
-- (j ^ (r & 7)) * 16), then lane 0 stores the box { EN, 32 } at (n0 + c EN, m0 + 32 q)
function bw.tma_store(cmap)
  return function(x)
    local P, t, c, v, lane = x.P, x.t, x.c, x.v, x.lane
    local is0 = lane:eq(0)
    local boff = (c % 2) * x.sC.stage_bytes
    -- the store that last read this buffer is done: at most the other buffer's is pending (an
    -- odd number of chunks: the previous tile's last store read this very buffer)
    local pending = (c == 0 and P.chunks % 2 == 1) and 0 or 1
    ptx.if_(is0, function() ptx.op "cp.async.bulk.wait_group.read" (pending) end)
    x.sync()
    local row = lane:mad(128, x.cbuf + boff)
    local sw = lane:band(7)
    for j = 0, 7 do
      local at = ptx.addr(row + sw:bxor(j):shl(4))
      if t.OUT == "bf16" then
        local w = {}
        for i = 0, 3 do
          local p = ptx.reg.b32()
          ptx.op "cvt.rn.bf16x2.f32" (p, v[8 * j + 2 * i + 2]:as("f32"), v[8 * j + 2 * i + 1]:as("f32"))
          w[i + 1] = p
        end
        ptx.st.shared.v4.b32(at, w)
      else
        ptx.st.shared.v4.b32(at, { v[4 * j + 1], v[4 * j + 2], v[4 * j + 3], v[4 * j + 4] })
      end
    end
    ptx.op "fence.proxy.async.shared::cta" ()
    x.sync()
    ptx.if_(is0, function()
      local store = ptx.op "cp.async.bulk.tensor.2d.global.shared::cta.tile.bulk_group"
      store(ptx.taddr(cmap, { x.tile.n0 + c * P.en, x.q:mad(32, x.tile.m0) }), ptx.addr(x.cbuf + boff))
      ptx.op "cp.async.bulk.commit_group" ()
    end)
  end
end

return bw
