-- flash_attention.lua -- forward attention on Hopper: O = softmax(Q K^T * SCALE [+ causal mask]) V and
-- the log-sum-exp of every row, bf16 in and out, f32 softmax. sm_90a: TMA, wgmma, an mbarrier
-- pipeline, warp specialization.
--
-- CAUSAL: 1 masks key j > query i (0: no mask). SCALE: the factor of the scores (0, the default: 1/sqrt(D)).
-- Layout: Q, K, V, O are [BH][S][D] row-major bf16 (BH = batch x heads, D = 64 or 128); LSE is
-- [BH][S] f32, LSE[r] = ln sum_j exp(SCALE * q_r . k_j) over the keys row r attends to.
-- Tensor maps (`maps(t)` below, returned by this file, gives the specs for dev:tensormap):
--   Q: dims {D, S, BH}, box {64, BQ, 1}    K, V: dims {D, S, BH}, box {64, BKV, 1}
--   O: dims {D, S, BH}, box {64, 64, 1}    all 128B-swizzled; D = 128 is two boxes of 64 columns
-- Rows past S read as zeros (the TMA fills them) and are masked to -inf as keys; O rows past S are
-- clipped by the TMA store and their LSE is not written.
--
-- A CTA takes BQ query rows of one head (grid: S / BQ tiles x BH, causal tiles longest first);
-- warpgroup 0 is the producer (one thread: Q once, then K and V blocks of BKV keys into STAGES
-- stages, each on its own full barrier), warpgroups 1 .. BQ/64 consume 64 rows each:
--   S = Q K^T         wgmma m64nBKVk16, both operands from shared memory (K-major descriptors)
--   online softmax    scores scaled by SCALE * log2(e); row max and sum over the quad of lanes that
--                     share a row (shuffles); ex2.approx.ftz; O and the running sum rescaled by
--                     ex2(m_old - m_new)
--   O += P V          wgmma m64nDk16 with P in registers (the S accumulator layout is the A
--                     fragment layout: two n8 blocks of S are one k16 step of P) and V from shared
--                     memory through an MN-major descriptor (imm-trans-b = 1)
-- then the stage is released (empty barrier: one arrival per consumer warp). The epilogue divides by
-- the row sum, writes O through the warpgroup's Q slice (swizzled, st.shared) and stores it with TMA.
local ptx = require "ptxlua"

local LOG2E = 1.4426950408889634

local function plan(t)
  for _, k in ipairs { "BH", "S", "D", "BQ", "BKV", "STAGES" } do
    local v = t[k]
    if type(v) ~= "number" or v < 1 or v ~= math.floor(v) then ptx.error("template %s must be a positive integer (got %s)", k, tostring(v)) end
  end
  if t.CAUSAL ~= 0 and t.CAUSAL ~= 1 then ptx.error("CAUSAL must be 0 or 1 (got %s)", tostring(t.CAUSAL)) end
  if t.D ~= 64 and t.D ~= 128 then ptx.error("D must be 64 or 128 (got %d)", t.D) end
  if t.BQ ~= 64 and t.BQ ~= 128 then ptx.error("BQ must be 64 or 128: one or two consumer warpgroups (got %d)", t.BQ) end
  if t.BKV ~= 64 and t.BKV ~= 128 then ptx.error("BKV must be 64 or 128 (got %d)", t.BKV) end
  if t.STAGES < 2 then ptx.error("STAGES must be at least 2 (got %d)", t.STAGES) end
  if t.S >= 2 ^ 31 or t.BH > 65535 then ptx.error("S (%d) must be below 2^31 and BH (%d) at most 65535", t.S, t.BH) end
  local P = {}
  P.wgs = t.BQ / 64
  P.threads = 128 * (1 + P.wgs)
  P.q_bytes, P.kv_bytes = t.BQ * t.D * 2, t.BKV * t.D * 2
  P.smem = P.q_bytes + 2 * t.STAGES * P.kv_bytes + 8 * (3 * t.STAGES + 1)
  if P.smem > 232448 then
    ptx.error("Q (%d x %d) and %d stages of K and V (%d x %d) need %d bytes of shared memory (227 KB a block)", t.BQ, t.D, t.STAGES, t.BKV, t.D, P.smem)
  end
  P.qt = math.ceil(t.S / t.BQ)
  P.nkv = math.ceil(t.S / t.BKV)
  if type(t.SCALE) ~= "number" or t.SCALE < 0 then ptx.error("SCALE must be a positive number, or 0 for 1/sqrt(D) (got %s)", tostring(t.SCALE)) end
  P.scale = t.SCALE == 0 and 1 / math.sqrt(t.D) or t.SCALE
  return P
end

ptx.kernel {
  name = "flash_attention",
  doc = "O = softmax(Q K^T * SCALE) V and its log-sum-exp, bf16, Hopper (TMA, wgmma, mbarrier, warp specialization)",
  target = "sm_90a",
  templates = { BH = 16, S = 4096, D = 128, CAUSAL = 0, BQ = 128, BKV = 128, STAGES = 2, SCALE = 0 },
  params = { { "Q_map", "tensormap" }, { "K_map", "tensormap" }, { "V_map", "tensormap" }, { "O_map", "tensormap" },
             { "LSE", "f32*", shape = { "BH", "S" } } },
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
    local bars = sm:alloc("bars", "b64", 3 * t.STAGES + 1, { align = 8 })
    local FK, FV, EM, QB = 0, 8 * t.STAGES, 16 * t.STAGES, 24 * t.STAGES   -- byte offsets in bars

    local qm, km, vm, om = ptx.reg.u64(), ptx.reg.u64(), ptx.reg.u64(), ptx.reg.u64()
    ptx.op "cvta.param.u64" (qm, Q_map)
    ptx.op "cvta.param.u64" (km, K_map)
    ptx.op "cvta.param.u64" (vm, V_map)
    ptx.op "cvta.param.u64" (om, O_map)
    local plse = ptx.global_ptrs(LSE)

    local tid = ptx.special "tid.x"
    ptx.if_(tid:eq(0), function()
      for s = 0, t.STAGES - 1 do
        ptx.op "mbarrier.init.shared::cta.b64" (bars:addr(0, FK + 8 * s), 1)
        ptx.op "mbarrier.init.shared::cta.b64" (bars:addr(0, FV + 8 * s), 1)
        ptx.op "mbarrier.init.shared::cta.b64" (bars:addr(0, EM + 8 * s), 4 * P.wgs)
      end
      ptx.op "mbarrier.init.shared::cta.b64" (bars:addr(0, QB), 1)
      ptx.op "fence.mbarrier_init.release.cluster" ()
    end)
    ptx.bar.sync(0)

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
    local function bar(off, s) return ptx.addr(s:mad(8, base + (bars.offset + off))) end
    local function advance(s, phase)
      ptx.add.u32(s, s, 1)
      local wrap = s:eq(t.STAGES)
      ptx.at(wrap).mov.u32(s, 0)
      ptx.at(wrap).xor.b32(phase, phase, 1)
    end

    ptx.warp_specialize {
      regs = { producer = 40, consumers = 232 },

      producer = function()
        ptx.if_(tid:eq(0), function()
          local load = ptx.op "cp.async.bulk.tensor.3d.shared::cluster.global.tile.mbarrier::complete_tx::bytes"
          ptx.op "mbarrier.arrive.expect_tx.shared::cta.b64" (ptx._, bars:addr(0, QB), P.q_bytes)
          for d = 0, DB - 1 do
            load(sQ:addr(0, d * t.BQ * 128), ptx.taddr(qm, { d * 64, q0, bh }), bars:addr(0, QB))
          end
          local s, phase = ptx.u32(0), ptx.u32(0)
          ptx.range(0, nkv, function(j)
            local k0 = j * t.BKV
            ptx.mbarrier_wait(bar(EM, s), phase:bxor(1))
            local fk, fv = bar(FK, s), bar(FV, s)
            ptx.op "mbarrier.arrive.expect_tx.shared::cta.b64" (ptx._, fk, P.kv_bytes)
            local dk = s:mad(sK.stage_bytes, base + sK.offset)
            for d = 0, DB - 1 do load(ptx.addr(dk, d * t.BKV * 128), ptx.taddr(km, { d * 64, k0, bh }), fk) end
            ptx.op "mbarrier.arrive.expect_tx.shared::cta.b64" (ptx._, fv, P.kv_bytes)
            local dv = s:mad(sV.stage_bytes, base + sV.offset)
            for d = 0, DB - 1 do load(ptx.addr(dv, d * t.BKV * 128), ptx.taddr(vm, { d * 64, k0, bh }), fv) end
            advance(s, phase)
          end)
        end)
      end,

      consumers = function(wg)
        local w = wg - 1
        local wtid = tid:band(127)
        local warp, lane = wtid:shr(5), tid:band(31)
        local g, q = lane:shr(2), lane:band(3)
        local is_lead = lane:eq(0)
        local NS, NO = t.BKV / 2, t.D / 2                    -- accumulator registers: S, O
        local sacc = ptx.regs.f32(NS, "s", 0)
        local oacc = ptx.regs.f32(NO, "o", 0)
        local pa = ptx.regs.b32(t.BKV / 4, "pa")              -- P as bf16 pairs: 4 per k16 step
        local mrow = { ptx.f32(-math.huge), ptx.f32(-math.huge) }
        local lrow = { ptx.f32(0), ptx.f32(0) }
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

        ptx.mbarrier_wait(bars:addr(0, QB), 0)
        local s, phase = ptx.u32(0), ptx.u32(0)
        local sw = ptx.op("wgmma.mma_async.sync.aligned.m64n" .. t.BKV .. "k16.f32.bf16.bf16")
        local ow = ptx.op("wgmma.mma_async.sync.aligned.m64n" .. t.D .. "k16.f32.bf16.bf16")
        ptx.range(0, nkv, function(j)
          local k0 = j * t.BKV
          -- S = Q K^T
          ptx.mbarrier_wait(bar(FK, s), phase)
          local dk = dk0 + s:mul_wide(sK.stage_bytes / 16)
          ptx.wgmma.fence.sync.aligned()
          for kk = 0, t.D / 16 - 1 do
            sw(sacc, (dq + kstep(t.BQ, kk)):as("b64"), (dk + kstep(t.BKV, kk)):as("b64"), kk == 0 and pfalse or ptrue, 1, 1, 0, 0)
          end
          ptx.wgmma.commit_group.sync.aligned()
          ptx.wgmma.wait_group.sync.aligned(0)

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

          -- online softmax, per row h of this thread (its quad holds the rest of the row)
          for h = 1, 2 do
            local mx = ptx.f32(-math.huge)
            for nb = 0, t.BKV / 8 - 1 do
              for e = 0, 1 do mx:set(mx:max(sacc[4 * nb + 2 * (h - 1) + e + 1])) end
            end
            ptx.warp_reduce(mx, "max", 4)
            local mnew = mrow[h]:max(mx * cl2)
            local corr = ptx.reg.f32()
            ptx.ex2.approx.ftz.f32(corr, mrow[h] - mnew)
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
            lrow[h]:set(lrow[h]:fma(corr, sum))
            for nb = 0, t.D / 8 - 1 do
              for e = 0, 1 do
                local o = oacc[4 * nb + 2 * (h - 1) + e + 1]
                ptx.mul.rn.f32(o, o, corr)
              end
            end
          end
          -- P to bf16 pairs: k16 step kk is S blocks 2kk (a0: row g, a1: row g+8) and 2kk+1 (a2, a3)
          for kk = 0, t.BKV / 16 - 1 do
            for i = 0, 3 do
              local nb = 2 * kk + math.floor(i / 2)
              local h = i % 2
              ptx.op "cvt.rn.bf16x2.f32" (pa[4 * kk + i + 1], sacc[4 * nb + 2 * h + 2], sacc[4 * nb + 2 * h + 1])
            end
          end

          -- O += P V
          ptx.mbarrier_wait(bar(FV, s), phase)
          local dv = dv0 + s:mul_wide(sV.stage_bytes / 16)
          ptx.wgmma.fence.sync.aligned()
          for kk = 0, t.BKV / 16 - 1 do
            ow(oacc, { pa[4 * kk + 1], pa[4 * kk + 2], pa[4 * kk + 3], pa[4 * kk + 4] }, (dv + kk * 16 * 128 / 16):as("b64"),
               ptrue, 1, 1, 1)
          end
          ptx.wgmma.commit_group.sync.aligned()
          ptx.wgmma.wait_group.sync.aligned(0)
          ptx.if_(is_lead, function() ptx.op "mbarrier.arrive.shared::cta.b64" (ptx._, bar(EM, s)) end)
          advance(s, phase)
        end)

        -- epilogue: O / l into this warpgroup's Q slice (bf16, swizzled), TMA store; LSE
        local wlead = wtid:eq(0)
        local namedbar = w + 1
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
        ptx.op "fence.proxy.async.shared::cta" ()
        ptx.bar.sync(namedbar, 128)
        ptx.if_(wlead, function()
          local store = ptx.op "cp.async.bulk.tensor.3d.global.shared::cta.tile.bulk_group"
          for d = 0, DB - 1 do
            store(ptx.taddr(om, { d * 64, w:mad(64, q0), bh }), ptx.addr(slice, d * t.BQ * 128))
          end
          ptx.op "cp.async.bulk.commit_group" ()
          ptx.op "cp.async.bulk.wait_group.read" (0)
        end)
      end,
    }
    ptx.ret()
  end,
}

-- the tensor-map specs, for dev:tensormap(array, spec), at template values t: Q, K, V, O
local DEFAULTS = { BH = 16, S = 4096, D = 128, BQ = 128, BKV = 128 }
local function maps(t)
  local v = {}
  for k, d in pairs(DEFAULTS) do v[k] = (t or {})[k] or d end
  local dims = { v.D, v.S, v.BH }
  return { dims = dims, box = { 64, v.BQ, 1 }, swizzle = "128B" },
         { dims = dims, box = { 64, v.BKV, 1 }, swizzle = "128B" },
         { dims = dims, box = { 64, v.BKV, 1 }, swizzle = "128B" },
         { dims = dims, box = { 64, 64, 1 }, swizzle = "128B" }
end
return { maps = maps }
