-- layernorm_tma.lua -- LayerNorm of each row, f32, on Hopper (sm_90a): y = (x - mean) * rstd * w + b,
-- rstd = 1/sqrt(var + eps), the rows brought into shared memory by the bulk-copy engine (TMA).
-- The same ring as rmsnorm_tma.lua: one CTA handles ROWS consecutive rows through STAGES row buffers
-- in shared memory; thread 0 announces each row's bytes on its buffer's mbarrier
-- (mbarrier.arrive.expect_tx) and issues one cp.async.bulk global -> shared for the row; every thread
-- waits on the mbarrier (the parity of the row's pass through the ring) and reads its 16-byte vectors
-- i, i + T, ... with ld.shared.v4.
-- Numerics as layernorm.lua: two passes. The mean first (a block reduction of the sum), then the
-- variance as the mean of (x - mean)^2 over the same values (a second block reduction) -- no
-- cancellation of sum(x^2) - N*mean^2. Each reduction has its own shared array of per-warp partials:
-- a warp writes row i + 1's sum partial only after row i's second bar.sync, which every thread
-- reaches after reading row i's sum partials (and likewise for the second), so no slot alternates.
-- The ring: a row held in registers (at most rows.CACHE floats a thread) frees its buffer at the first
-- reduction's bar.sync, and the copy of row i + STAGES is issued there, streaming in while row i's
-- variance, normalization and stores run; a longer row is read from shared memory three times and its
-- buffer refilled after one more bar.sync.
--
-- Why TMA helps here: layernorm.lua keeps a row's loads in flight as 8 x ld.global.nc.v4 per thread
-- (2048 load instructions and their registers per 32 KB row) and cannot fetch the next row while it
-- computes without twice its registers; here one instruction moves a whole row, no register waits on
-- it, and STAGES rows (64 KB at the defaults) are in flight per CTA.
--
-- Templates: B rows, N columns, BLOCK the most threads a row gets (fewer when the row is short),
-- ROWS the rows of one CTA (1..16; the last CTA takes what is left), STAGES the row buffers (1..4).
-- Shapes: every B >= 1; N a multiple of 4 (a bulk copy moves whole 16-byte units and every row must
-- start 16-byte aligned in global memory: other N are an error here -- layernorm.lua takes any N),
-- with STAGES row buffers fitting the 227 KB of shared memory of a block (N up to 29,024 at
-- STAGES = 2). x, w, b, y must be 16-byte aligned. w and b are read with ld.global.nc per row.
-- ptxas (CUDA 13.0, sm_90a) at the defaults (N = 8192, BLOCK = 256, ROWS = 4, STAGES = 2): 256
-- threads, 128 registers (ptxas hoists the w and b loads of all 8 sweeps), no spills; 65,616 bytes
-- of dynamic shared memory (two 32 KB rows, the mbarriers, the partials of both reductions): 2 CTAs
-- an SM. N = 1000, B = 3: 37 registers, 8,272 bytes (static); N = 20000 (rows read from shared
-- memory in each pass): 202 registers; N = 29024: 222 registers, no spills.
local ptx = require "ptxlua"

local rows = ptx.import "lib/rows.lua"

local SMEM = 232448  -- bytes of shared memory a block may have on sm_90

-- the launch plan for a set of templates: the checks here, so that a bad value is an error on the
-- line of its check; the arithmetic in rows.tma_plan (kernels/lib/rows.lua)
local function plan(t)
  ptx.check_templates(t, {
    B = { min = 1, max = 2147483647, why = "rows" },
    N = { min = 4, multiple = 4, why = "a bulk copy moves whole 16-byte units and each row must start 16-byte aligned (layernorm.lua takes any N)" },
    BLOCK = { min = 32, max = 1024, multiple = 32 },
    ROWS = { min = 1, max = 16 },
    STAGES = { min = 1, max = 4 },
  })
  local P = rows.tma_plan(t)
  if P.smem > SMEM then
    ptx.error("N (%d) with STAGES = %d needs %d bytes of shared memory, over the %d (227 KB) of a block: fewer STAGES, or layernorm.lua", t.N, t.STAGES, P.smem, SMEM)
  end
  return P
end
local on, fregs, block_sum = rows.on, rows.fregs, rows.block_sum

ptx.kernel {
  name = "layernorm_tma",
  doc = "y[r, :] = (x[r, :] - mean) / sqrt(var + eps) * w + b (biased variance); rows loaded by cp.async.bulk into a ring of shared-memory buffers",
  target = "sm_90a",
  templates = { B = 2048, N = 8192, BLOCK = 256, ROWS = 4, STAGES = 2 },
  params = { {"x", "f32*", shape = {"B", "N"}}, {"w", "f32*", shape = {"N"}}, {"b", "f32*", shape = {"N"}},
             {"y", "f32*", shape = {"B", "N"}}, {"eps", "f32"} },
  grid = function(t) return { plan(t).ctas } end,
  block = function(t) return { plan(t).threads } end,
  maxntid = function(t) return { plan(t).threads } end,
  -- --emulate: a few rows of an uneven length, y against the definition in doubles (f32: 1e-5)
  emulate = { B = 5, N = 1000, ROWS = 2 },
  inputs = rows.inputs,
  reference = rows.reference.layernorm,
  body = function(t, x, w, b, y, eps)
    local P = plan(t)
    local px, pw, pb, py = ptx.global_ptrs(x, w, b, y)
    local epsv = eps:load()

    -- the block (kernels/lib/rows.lua): row buffers, one mbarrier per buffer, the partials of each
    -- reduction; the places; the mbarriers initialized and the first STAGES rows requested
    local red_sum, red_sq
    local R = rows.tma_ring(t, P, px, py, { pw, pb }, function(sm)
      red_sum = sm:alloc("red_sum", "f32", 4 * math.ceil(P.warps / 4), { align = 16 })
      red_sq = sm:alloc("red_sq", "f32", 4 * math.ceil(P.warps / 4), { align = 16 })
      return red_sum
    end)
    local sq_off = red_sq.offset - red_sum.offset                 -- red_sq follows red_sum at a constant offset
    local lane, warp, mine, redp, full = R.lane, R.warp, R.mine, R.redp, R.full
    local yrows, wrow, brow, tail_ok, fetch = R.yrows, R.cols[1], R.cols[2], R.tail_ok, R.fetch
    local exists = R.exists

    -- v: this thread's vector k of the row in buffer offset sbase (registers when cached); masked
    -- lanes of the last sweep read zeros
    local function vector(xs, k, sbase, g)
      if xs[k] then return xs[k] end
      local v = fregs(4)
      if g then for c = 1, 4 do ptx.mov.f32(v[c], 0) end end
      on(g).ld.shared.v4.f32(v, ptx.addr(mine, sbase + (k - 1) * P.stride))
      if P.cached then xs[k] = v end
      return v
    end
    local function guard(k) return (k == P.sweeps and P.tail > 0) and tail_ok or nil end

    for j = 0, P.rows - 1 do
      local function row()
        local s = j % t.STAGES
        local sbase = s * P.stage_bytes
        ptx.mbarrier_wait(full:addr(0, 8 * s), math.floor(j / t.STAGES) % 2)

        -- reduce 1: mean = sum / N (one accumulator per vector lane; masked lanes add zeros)
        local acc = fregs(4)
        for c = 1, 4 do ptx.mov.f32(acc[c], 0) end
        local xs = {}
        for k = 1, P.sweeps do
          local v = vector(xs, k, sbase, guard(k))
          for c = 1, 4 do ptx.add.rn.f32(acc[c], acc[c], v[c]) end
        end
        local sum, synced = block_sum(P, (acc[1] + acc[2]) + (acc[3] + acc[4]), redp, 0, lane, warp)
        local mean = sum / t.N

        -- a row held in registers frees its buffer now: every thread has read it
        if P.cached and j + t.STAGES < P.rows then
          if not synced then ptx.bar.sync(0) end
          fetch(j + t.STAGES)
        end

        -- reduce 2: var = sum((x - mean)^2) / N over the same values (masked lanes add nothing)
        local sq = fregs(4)
        for c = 1, 4 do ptx.mov.f32(sq[c], 0) end
        for k = 1, P.sweeps do
          local g = guard(k)
          local v = vector(xs, k, sbase, g)
          for c = 1, 4 do
            local d = v[c] - mean
            on(g).fma.rn.f32(sq[c], d, d, sq[c])
          end
        end
        local var = block_sum(P, (sq[1] + sq[2]) + (sq[3] + sq[4]), redp, sq_off, lane, warp) / t.N
        local rstd = ptx.reg.f32()
        ptx.rcp.rn.f32(rstd, (var + epsv):sqrt())

        -- normalize and store: y = ((x - mean) * rstd) * w + b
        for k = 1, P.sweeps do
          local g = guard(k)
          local off = (k - 1) * P.stride
          local v = vector(xs, k, sbase, g)
          local wv, bv = fregs(4), fregs(4)
          if g then for c = 1, 4 do ptx.mov.f32(wv[c], 0); ptx.mov.f32(bv[c], 0) end end
          on(g).ld.global.nc.v4.f32(wv, ptx.addr(wrow, off))
          on(g).ld.global.nc.v4.f32(bv, ptx.addr(brow, off))
          local out = {}
          for c = 1, 4 do out[c] = ((v[c] - mean) * rstd):fma(wv[c], bv[c]) end
          on(g).st.global.v4.f32(ptx.addr(yrows, j * P.rowbytes + off), out)
        end

        -- a row read from shared memory in every pass frees its buffer after one more barrier
        if not P.cached and j + t.STAGES < P.rows then
          ptx.bar.sync(0)
          fetch(j + t.STAGES)
        end
      end
      local e = exists(j)
      if e then ptx.if_(e, row) else row() end
    end
    ptx.ret()
  end,
}
