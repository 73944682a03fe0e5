-- flash_attention.lua -- forward attention on Hopper: O = softmax(Q K^T * SCALE [+ causal mask]) V and
-- the log-sum-exp of every row, bf16 in and out, f32 softmax. sm_90a: TMA, wgmma, an mbarrier
-- pipeline, warp specialization with setmaxnreg, the softmax overlapped with the tensor cores.
--
-- CAUSAL: 1 masks key j > query i (0: no mask). SCALE: the factor of the scores (0, the default: 1/sqrt(D)).
-- Layout: Q, K, V, O are [BH][S][D] row-major bf16 (BH = batch x heads, D = 64 or 128); LSE is
-- [BH][S] f32, LSE[r] = ln sum_j exp(SCALE * q_r . k_j) over the keys row r attends to.
-- Tensor maps (declared with the kernel over the tensors Q, K, V, O; `maps(t)`, returned by this
-- file, gives their dev:tensormap specs):
--   Q: dims {D, S, BH}, box {64, BQ, 1}    K, V: dims {D, S, BH}, box {64, BKV, 1}
--   O: dims {D, S, BH}, box {64, 64, 1}    all 128B-swizzled; D = 128 is two boxes of 64 columns
-- Rows past S read as zeros (the TMA fills them) and are masked to -inf as keys; O rows past S are
-- clipped by the TMA store and their LSE is not written.
--
-- A CTA takes BQ query rows of one head (grid: S / BQ tiles x BH, causal tiles longest first).
-- Warpgroup 0 is the producer (one thread, setmaxnreg down to 24 registers): Q once, then K_0, then
-- K_j and V_(j-1) for j = 1 .. nkv-1, then V_(nkv-1), in BKV-key blocks into STAGES stages. K and V
-- stages each have a full barrier (TMA complete_tx) and an empty barrier (one arrival per consumer
-- warp), so a K stage is refilled as soon as the S that read it has completed, before the P V of
-- its block. K and V are two pipes of kernels/lib/hopper_pipe.lua, each with a ring per role; the
-- module emits the barrier init (Q's barrier is an extra of it), the producer's steps, the
-- consumers' waits and releases, the S wgmma group and the TMA-store publish. Warpgroups
-- 1 .. BQ/64 consume 64 query rows each (setmaxnreg up to 240):
--   S = Q K^T         wgmma m64nBKVk16, both operands from shared memory (K-major descriptors)
--   online softmax    scores scaled by SCALE * log2(e); row max and sum over the quad of lanes that
--                     share a row (shuffles); ex2.approx.ftz; O and the running sum rescaled by
--                     corr = ex2(m_old - m_new)
--   O += P V          wgmma m64nDk16 with P in registers (the S accumulator layout is the A
--                     fragment layout: two n8 blocks of S are one k16 step of P) and V from shared
--                     memory through an MN-major descriptor (imm-trans-b = 1)
--
-- Overlap inside a warpgroup (FA3's two-stage pipelining): the softmax of block j runs while the
-- tensor cores compute P_(j-1) V_(j-1). Per key block j = 1 .. nkv-1:
--   wait K_j and V_(j-1) full; [turn] wgmma.fence; S_j = Q K_j^T (commit); O += P_(j-1) V_(j-1)
--   (commit); [end of turn]; wait_group 1 (S_j done, P V may run on): release K_j; mask and softmax
--   of S_j (corr, new max and sum, P_j in f32); wait_group 0: release V_(j-1); O *= corr; P_j to
--   bf16 pairs (pa, read by the next block's P V).
-- Prologue: S_0, wait_group 0, release K_0, softmax, P_0. Epilogue: O += P_(nkv-1) V_(nkv-1),
-- wait_group 0, release V. Live at once: S (BKV/2 f32), O (D/2 f32), P (BKV/4 b32) -- 160 registers
-- at D = 128, BKV = 128; ptxas (whole-program) fits the consumers in 192 at D = 128, 160 at D = 64.
-- Register pool: ptxas gives the 384-thread entry 168 registers (65536 / 384, rounded down to 8);
-- 128 x 24 + 256 x 240 = 64512 = 384 x 168, so the consumers' setmaxnreg.inc always completes.
-- setmaxnreg needs a whole-program assembly (ptxas, or the driver's JIT of the PTX): a relocatable
-- one (nvJitLink, ptxas -c) ignores it (ptxas info C7504) and holds every thread to 168, where the
-- consumers spill at D = 128 and ptxas serializes the wgmmas (C7512).
--
-- Ping-pong between the two consumer warpgroups (BQ = 128; with BQ = 64 there is one, and no
-- barriers): warpgroup w (0 or 1) issues its wgmmas (a "turn": S_j and P_(j-1) V_(j-1), or S_0) only
-- between
--   bar.sync   SCHED + w,     256     -- its own scheduler barrier: its 128 threads + 128 arrivals
--   bar.arrive SCHED + 1 - w, 256     -- hands the turn to the other warpgroup
-- (SCHED = 3: barriers 3 and 4; 0 is the CTA's, 1 and 2 the epilogue's, 128 threads each).
-- Warpgroup 0 opens: it arrives on barrier 3 once before its first turn. So the turns alternate
-- 0, 1, 0, 1, ...: while warpgroup 1 issues and its GEMMs run, warpgroup 0 does its softmax, and
-- the other way round. Each warpgroup takes nkv turns (the last P V is outside them); warpgroup 1
-- skips its arrival after its last turn, so every arrival is matched by a bar.sync and no barrier
-- is left half-arrived at exit.
--
-- The epilogue divides by the row sum, writes O through the warpgroup's Q slice (swizzled,
-- st.shared; every wgmma that read the slice is waited), and stores it with TMA.
local ptx = require "ptxlua"
local hp = ptx.import "lib/hopper_pipe.lua"

local LOG2E = 1.4426950408889634
local EPI, SCHED = 1, 3            -- named barriers: the epilogue's (1, 2), the ping-pong's (3, 4)

local function plan(t)
  ptx.check_templates(t, {
    BH = { min = 1, max = 65535 },
    S = { min = 1, below = 2 ^ 31 },
    D = { one_of = { 64, 128 } },
    BQ = { one_of = { 64, 128 }, why = "one or two consumer warpgroups" },
    BKV = { min = 16, max = 256, multiple = 16, why = "the n of wgmma m64nBKVk16 and whole k16 steps of P V" },
    STAGES = { min = 2 },
    CAUSAL = { one_of = { 0, 1 } },
    SCALE = { type = "number", why = "a positive number, or 0 for 1/sqrt(D)" },
  })
  local P = {}
  P.wgs = t.BQ / 64
  P.threads = 128 * (1 + P.wgs)
  P.q_bytes, P.kv_bytes = t.BQ * t.D * 2, t.BKV * t.D * 2
  P.smem = P.q_bytes + 2 * t.STAGES * P.kv_bytes + 8 * (4 * t.STAGES + 1)
  if P.smem > 232448 then
    ptx.error("Q (%d x %d) and %d stages of K and V (%d x %d) need %d bytes of shared memory (227 KB a block)", t.BQ, t.D, t.STAGES, t.BKV, t.D, P.smem)
  end
  P.qt = math.ceil(t.S / t.BQ)
  P.nkv = math.ceil(t.S / t.BKV)
  if t.SCALE < 0 then ptx.error("SCALE must be a positive number, or 0 for 1/sqrt(D) (got %s)", tostring(t.SCALE)) end
  P.scale = t.SCALE == 0 and 1 / math.sqrt(t.D) or t.SCALE
  return P
end

local K = ptx.kernel {
  name = "flash_attention",
  doc = "O = softmax(Q K^T * SCALE) V and its log-sum-exp, bf16, Hopper (TMA, wgmma, mbarrier, warp specialization)",
  target = "sm_90a",
  templates = { BH = 16, S = 4096, D = 128, CAUSAL = 0, BQ = 128, BKV = 128, STAGES = 2, SCALE = 0 },
  tensors = { Q = ptx.tensor("bf16", { "BH", "S", "D" }), K = ptx.tensor("bf16", { "BH", "S", "D" }),
              V = ptx.tensor("bf16", { "BH", "S", "D" }), O = ptx.tensor("bf16", { "BH", "S", "D" }) },
  -- the maps: boxes of 64 columns (D = 128 is two of them), BQ or BKV or 64 rows, one head
  params = { { "Q_map", ptx.tensormap { of = "Q", box = { 64, "BQ", 1 }, swizzle = "128B" } },
             { "K_map", ptx.tensormap { of = "K", box = { 64, "BKV", 1 }, swizzle = "128B" } },
             { "V_map", ptx.tensormap { of = "V", box = { 64, "BKV", 1 }, swizzle = "128B" } },
             { "O_map", ptx.tensormap { of = "O", box = { 64, 64, 1 }, swizzle = "128B" } },
             { "LSE", "f32*", shape = { "BH", "S" } } },
  -- --emulate: two heads of 200 rows (partial tiles, zero-filled keys masked, 2 key blocks);
  -- O and LSE against the definition in doubles: O 2e-2 (bf16 O, and P rounded to bf16 before P V),
  -- LSE 1e-4 (ex2.approx, lg2.approx and f32 row sums)
  emulate = { BH = 2, S = 200, D = 64 },
  reference = function(t, x)
    local S, D, BH = t.S, t.D, t.BH
    local scale = t.SCALE ~= 0 and t.SCALE or 1 / math.sqrt(D)
    local Q, Kt, V, O, L = x.Q, x.K, x.V, {}, {}
    local p = {}
    for h = 0, BH - 1 do
      for i = 0, S - 1 do
        local q = (h * S + i) * D
        local last = t.CAUSAL == 1 and i or S - 1
        local m = -math.huge
        for j = 0, last do
          local kb, s = (h * S + j) * D, 0
          for d = 1, D do s = s + Q[q + d] * Kt[kb + d] end
          s = s * scale
          p[j] = s
          if s > m then m = s end
        end
        local sum = 0
        for j = 0, last do local e = math.exp(p[j] - m); p[j] = e; sum = sum + e end
        for d = 1, D do O[q + d] = 0 end
        for j = 0, last do
          local vb, w = (h * S + j) * D, p[j] / sum
          for d = 1, D do O[q + d] = O[q + d] + w * V[vb + d] end
        end
        L[h * S + i + 1] = m + math.log(sum)
      end
    end
    return { O = O, LSE = L }
  end,
  tolerance = { O = 2e-2, LSE = 1e-4 },
  grid = function(t) local P = plan(t); return { P.qt, t.BH } end,
  block = function(t) return { plan(t).threads } end,
  maxntid = function(t) return { plan(t).threads } end,
  body = function(t, Q_map, K_map, V_map, O_map, LSE)
    local P = plan(t)
    local DB = t.D / 64                                    -- 64-column boxes per row

    local sm = ptx.smem_plan()
    local sQ = sm:alloc("Q", "bf16", { t.BQ, t.D }, { swizzle = "128B" })
    local sK = sm:alloc("K", "bf16", { t.BKV, t.D }, { stages = t.STAGES, swizzle = "128B" })
    local sV = sm:alloc("V", "bf16", { t.BKV, t.D }, { stages = t.STAGES, swizzle = "128B" })
    -- mbarriers: a full and an empty one a stage for K and for V (two pipes of
    -- kernels/lib/hopper_pipe.lua, two rings), and Q's (one-shot)
    local function barriers(name) return sm:alloc(name, "b64", t.STAGES, { align = 8 }) end
    local kpipe = hp.pipe { stages = t.STAGES, full = barriers("kfull"), empty = barriers("kempty") }
    local vpipe = hp.pipe { stages = t.STAGES, full = barriers("vfull"), empty = barriers("vempty") }
    local qfull = sm:alloc("qfull", "b64", 1, { align = 8 }):addr()

    local qm, km, vm, om = ptx.reg.u64(), ptx.reg.u64(), ptx.reg.u64(), ptx.reg.u64()
    ptx.op "cvta.param.u64" (qm, Q_map)
    ptx.op "cvta.param.u64" (km, K_map)
    ptx.op "cvta.param.u64" (vm, V_map)
    ptx.op "cvta.param.u64" (om, O_map)
    local plse = ptx.global_ptrs(LSE)

    -- thread 0 initializes every barrier (empty: one arrival per consumer warp), then bar.sync 0
    local tid = ptx.special "tid.x"
    kpipe:init(tid:eq(0), 4 * P.wgs, function()
      vpipe:barriers(4 * P.wgs)
      ptx.op "mbarrier.init.shared::cta.b64" (qfull, 1)
    end)

    -- the tile: query rows q0 .. q0 + BQ - 1 of head bh; causal tiles run longest first
    local bh = ptx.special "ctaid.y"
    local qt = ptx.special "ctaid.x"
    if t.CAUSAL == 1 then qt = (P.qt - 1) - qt end
    local q0 = qt * t.BQ
    -- key blocks this tile needs: all, or (causal) up to the tile's last row
    local nkv
    if t.CAUSAL == 1 then
      nkv = (q0 + (t.BQ + t.BKV - 1)):min(P.nkv * t.BKV) / t.BKV
    else
      nkv = ptx.u32(P.nkv)
    end
    local base = ptx.reg.u32()
    ptx.mov.u32(base, ptx.sym "smem")

    local PINGPONG = P.wgs == 2
    ptx.warp_specialize {
      -- one consumer (BQ = 64, 256 threads): 255 registers each fit without moving any, and ptxas
      -- cannot tell the entry's count there (C7508: it would ignore setmaxnreg)
      regs = P.wgs == 2 and { producer = 24, consumers = 240 } or false,

      -- the producer: Q, then K_0, then K_j and V_(j-1) for j = 1 .. nkv-1, then V_(nkv-1): the order
      -- the consumers read them in. K and V stages each have their own empty barrier, so a K stage is
      -- refilled as soon as the S that read it has completed, before the P V of the same block.
      producer = function()
        ptx.if_(tid:eq(0), function()
          local load = ptx.op "cp.async.bulk.tensor.3d.shared::cluster.global.tile.mbarrier::complete_tx::bytes"
          ptx.op "mbarrier.arrive.expect_tx.shared::cta.b64" (ptx._, qfull, P.q_bytes)
          for d = 0, DB - 1 do
            load(sQ:addr(0, d * t.BQ * 128), ptx.taddr(qm, { d * 64, q0, bh }), qfull)
          end
          local kring, vring = kpipe:ring(base), vpipe:ring(base)
          -- key block j of K or V into the ring's next stage (wait until it is free, expect, load)
          local function fill(ring, tile, map, j)
            ring:produce(P.kv_bytes, function(fb)
              local dst = ring:stage(tile)
              for d = 0, DB - 1 do load(ptx.addr(dst, d * t.BKV * 128), ptx.taddr(map, { d * 64, j * t.BKV, bh }), ptx.addr(fb)) end
            end)
          end
          fill(kring, sK, km, ptx.u32(0))
          ptx.range(1, nkv, function(j)
            fill(kring, sK, km, j)
            fill(vring, sV, vm, j - 1)
          end)
          fill(vring, sV, vm, nkv - 1)
        end)
      end,

      consumers = function(wg)
        local w, wtid, warp, lane, g, q = hp.place(tid, wg)  -- this thread in its warpgroup
        local is_lead = lane:eq(0)
        local NS, NO = t.BKV / 2, t.D / 2                    -- accumulator registers: S, O
        local sacc = ptx.regs.f32(NS, "s")
        local oacc = ptx.regs.f32(NO, "o", 0)
        local pa = ptx.regs.b32(t.BKV / 4, "pa")              -- P as bf16 pairs: 4 per k16 step
        local mrow = { ptx.f32(-math.huge), ptx.f32(-math.huge) }
        local lrow = { ptx.f32(0), ptx.f32(0) }
        local corr = { ptx.reg.f32(), ptx.reg.f32() }        -- ex2(m_old - m_new) of the last softmax
        local cl2 = P.scale * LOG2E

        -- descriptors: Q rows of this warpgroup (K-major, k = D), K (K-major), V (MN-major)
        local dq = ptx.wgmma_desc(sQ, { mn = t.BQ, k = t.D, base = base, swizzle = "128B" }):as("u64")
        dq = dq + w:mul_wide(64 * 128 / 16)
        local dk0 = ptx.wgmma_desc(sK, { mn = t.BKV, k = t.D, base = base, swizzle = "128B" }):as("u64")
        local dv0 = ptx.wgmma_desc(sV, { mn = t.D, k = t.BKV, major = "MN", base = base, swizzle = "128B" }):as("u64")
        -- the k16 step kk of a K-major tile of `rows` rows: 32 bytes along the 128-byte row, or the
        -- next 64-column block (rows x 128 bytes further)
        local function kstep(rows, kk) return (kk % 4) * 2 + math.floor(kk / 4) * rows * 8 end

        -- rows of this thread: r0 = q0 + 64 w + 16 warp + g, r1 = r0 + 8; the number of keys each may
        -- see: S, or (causal) its own index + 1
        local r0 = q0 + w:mad(64, warp:mad(16, g))
        local rows = { r0, r0 + 8 }
        local lim = {}
        for h = 1, 2 do
          lim[h] = t.CAUSAL == 1 and (rows[h] + 1):min(t.S) or ptx.u32(t.S)
        end
        local q2 = q:shl(1)
        local pfalse, ptrue = q:ne(q), q:eq(q)                 -- wgmma scale-d: overwrite, accumulate

        -- the K and V rings; lane 0 of each warp releases a stage once wait_group covers the
        -- wgmmas that read it (ring:retire): one arrival per warp on its empty barrier
        local kring, vring = kpipe:ring(base), vpipe:ring(base)
        kring:as_consumer(is_lead, kpipe:releaser(base), true)
        vring:as_consumer(is_lead, vpipe:releaser(base), true)
        local sw = ptx.op("wgmma.mma_async.sync.aligned.m64n" .. t.BKV .. "k16.f32.bf16.bf16")
        local ow = ptx.op("wgmma.mma_async.sync.aligned.m64n" .. t.D .. "k16.f32.bf16.bf16")

        -- wgmma.fence, then S = Q K^T on K's stage (one commit group)
        local function issue_s()
          local dk = dk0 + kring:desc_step(sK)
          hp.mma(sw, sacc, function(kk) return (dq + kstep(t.BQ, kk)):as("b64") end,
                 function(kk) return (dk + kstep(t.BKV, kk)):as("b64") end, t.D / 16, pfalse, ptrue)
        end
        -- O += P V on V's stage (one commit group), P from the registers pa
        local function issue_pv()
          local dv = dv0 + vring:desc_step(sV)
          for kk = 0, t.BKV / 16 - 1 do
            ow(oacc, { pa[4 * kk + 1], pa[4 * kk + 2], pa[4 * kk + 3], pa[4 * kk + 4] }, (dv + kk * 16 * 128 / 16):as("b64"),
               ptrue, 1, 1, 1)
          end
          ptx.wgmma.commit_group.sync.aligned()
        end

        -- the masked online softmax of S (key block k0 .. k0 + BKV - 1): P in sacc (f32), the new row
        -- maxima and sums, and corr, the factor O must be rescaled by before P V is added to it
        local function softmax(k0)
          -- mask: keys at or past lim (-inf), only where the block reaches past some row's limit
          for h = 1, 2 do
            local room = (lim[h] - k0 - q2):as("s32")              -- columns 2q + c < room are kept
            local need = room:lt(t.BKV)
            ptx.if_(need, function()
              for nb = 0, t.BKV / 8 - 1 do
                for e = 0, 1 do
                  local r = sacc[4 * nb + 2 * (h - 1) + e + 1]
                  ptx.at(room:le(nb * 8 + e)).mov.f32(r, -math.huge)
                end
              end
            end)
          end
          -- per row h of this thread (its quad holds the rest of the row)
          for h = 1, 2 do
            local mx = ptx.f32(-math.huge)
            for nb = 0, t.BKV / 8 - 1 do
              for e = 0, 1 do mx:set(mx:max(sacc[4 * nb + 2 * (h - 1) + e + 1])) end
            end
            ptx.warp_reduce(mx, "max", 4)
            local mnew = mrow[h]:max(mx * cl2)
            ptx.ex2.approx.ftz.f32(corr[h], mrow[h] - mnew)
            mrow[h]:set(mnew)
            local sum = ptx.f32(0)
            for nb = 0, t.BKV / 8 - 1 do
              for e = 0, 1 do
                local r = sacc[4 * nb + 2 * (h - 1) + e + 1]
                ptx.ex2.approx.ftz.f32(r, r:fma(cl2, -mnew))
                sum:set(sum + r)
              end
            end
            ptx.warp_reduce(sum, "sum", 4)
            lrow[h]:set(lrow[h]:fma(corr[h], sum))
          end
        end
        local function rescale()
          for h = 1, 2 do
            for nb = 0, t.D / 8 - 1 do
              for e = 0, 1 do
                local o = oacc[4 * nb + 2 * (h - 1) + e + 1]
                ptx.mul.rn.f32(o, o, corr[h])
              end
            end
          end
        end
        -- P to bf16 pairs: k16 step kk is S blocks 2kk (a0: row g, a1: row g+8) and 2kk+1 (a2, a3)
        local function to_pa()
          for kk = 0, t.BKV / 16 - 1 do
            for i = 0, 3 do
              local nb = 2 * kk + math.floor(i / 2)
              local h = i % 2
              ptx.op "cvt.rn.bf16x2.f32" (pa[4 * kk + i + 1], sacc[4 * nb + 2 * h + 2], sacc[4 * nb + 2 * h + 1])
            end
          end
        end

        -- ping-pong turns (the protocol is in the header): bar.sync on this warpgroup's barrier, the
        -- wgmmas, bar.arrive on the other's; warpgroup 1 does not hand over after its last turn
        local function turn_begin() if PINGPONG then ptx.bar.sync(w + SCHED, 256) end end
        local function turn_end(last)
          if not PINGPONG then return end
          local go, other = last:not_():or_(w:eq(0)), w:bxor(1) + SCHED
          ptx.at(go).bar.arrive(other, 256)
        end
        if PINGPONG then ptx.at(w:eq(0)).bar.arrive(SCHED, 256) end

        ptx.mbarrier_wait(qfull, 0)
        -- prologue: S_0 and its softmax
        kring:wait()
        turn_begin()
        issue_s()
        turn_end(nkv:eq(1))
        kring:retire(0)
        softmax(ptx.u32(0))
        to_pa()
        -- block j: S_j = Q K_j^T and O += P_(j-1) V_(j-1) in flight together; the softmax of S_j runs
        -- while P V does (wait_group 1: S_j only), then O is rescaled once P V is done (wait_group 0)
        ptx.range(1, nkv, function(j)
          kring:wait()
          vring:wait()
          turn_begin()
          issue_s()
          issue_pv()
          turn_end((j + 1):eq(nkv))
          kring:retire(1)                     -- S_j done (P V may run on): release K_j
          softmax(j * t.BKV)
          vring:retire(0)                     -- P_(j-1) V_(j-1) done: release V_(j-1)
          rescale()
          to_pa()
        end)
        -- epilogue: the last P V
        vring:wait()
        ptx.wgmma.fence.sync.aligned()
        issue_pv()
        vring:retire(0)

        -- epilogue: O / l into this warpgroup's Q slice (bf16, swizzled), TMA store; LSE
        local wlead = wtid:eq(0)
        local namedbar = w + EPI
        local slice = w:mad(64 * 128, base + sQ.offset)
        local rowaddr = warp:mad(16, g):mad(128, slice)
        for h = 1, 2 do
          local inv = ptx.reg.f32()
          ptx.rcp.approx.ftz.f32(inv, lrow[h])
          for nb = 0, t.D / 8 - 1 do
            local o0, o1 = oacc[4 * nb + 2 * (h - 1) + 1], oacc[4 * nb + 2 * (h - 1) + 2]
            ptx.mul.rn.f32(o0, o0, inv)
            ptx.mul.rn.f32(o1, o1, inv)
          end
          -- LSE (natural log): (m + log2 l) * ln 2
          local lg = ptx.reg.f32()
          ptx.lg2.approx.ftz.f32(lg, lrow[h])
          local lse = (mrow[h] + lg) * (1 / LOG2E)
          ptx.if_(q:eq(0):and_(rows[h]:lt(t.S)), function()
            local idx = bh:mad(t.S, rows[h])
            ptx.st.global.f32(ptx.addr(plse + idx:mul_wide(4)), lse)
          end)
        end
        -- every wgmma of this warpgroup has read its Q slice (wait_group 0 above): reuse it for O
        for nb = 0, t.D / 8 - 1 do
          local blk, c = math.floor(nb / 8), nb % 8                 -- 64-column block, 16-byte chunk
          local chunk = g:bxor(c):shl(4)
          for h = 0, 1 do
            local v = ptx.reg.b32()
            ptx.op "cvt.rn.bf16x2.f32" (v, oacc[4 * nb + 2 * h + 2], oacc[4 * nb + 2 * h + 1])
            ptx.st.shared.b32(ptx.addr(rowaddr + chunk + q:shl(2), blk * t.BQ * 128 + h * 8 * 128), v)
          end
        end
        -- fence.proxy.async, the warpgroup's barrier, one thread stores and waits until it is read
        hp.store(wlead, namedbar, function()
          local store = ptx.op "cp.async.bulk.tensor.3d.global.shared::cta.tile.bulk_group"
          for d = 0, DB - 1 do
            store(ptx.taddr(om, { d * 64, w:mad(64, q0), bh }), ptx.addr(slice, d * t.BQ * 128))
          end
        end, 0)
      end,
    }
    ptx.ret()
  end,
}

-- the tensor-map specs of the declaration above, for dev:tensormap(array, spec), at template values
-- t: Q, K, V, O (launches build them from the tensors themselves)
return { maps = function(t) return K:maps(t) end }
