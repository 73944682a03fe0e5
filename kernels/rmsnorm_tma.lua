-- rmsnorm_tma.lua -- RMSNorm of each row, f32, on Hopper (sm_90a): y = x / sqrt(mean(x^2) + eps) * w,
-- the rows brought into shared memory by the bulk-copy engine (TMA).
-- One CTA handles ROWS consecutive rows through a ring of STAGES row buffers in shared memory. One
-- thread announces each row's bytes on the buffer's mbarrier (mbarrier.arrive.expect_tx) and issues
-- one cp.async.bulk global -> shared for the whole row; every thread waits on the mbarrier (the
-- phase parity of the row's pass through the ring), reads its VEC-4 vectors i, i + T, i + 2T, ... from
-- shared memory (ld.shared.v4: conflict-free), and reduces as rmsnorm.lua does (warp butterfly, one
-- partial per warp in shared memory, bar.sync, every thread adds the partials in warp order). The
-- partials alternate between two slots by row, so a fast warp writing row i + 1's partial never
-- meets a slow one still reading row i's.
-- The ring: when the row is held in registers (at most rows.CACHE floats a thread), its buffer is free
-- once the reduction's bar.sync has passed, and the copy of row i + STAGES is issued right there, so
-- it streams in while row i is normalized and stored and rows i + 1 .. are reduced; a longer row is
-- read from shared memory a second time and its buffer refilled after one more bar.sync.
--
-- Why TMA helps here: rmsnorm.lua keeps a row's loads in flight as 8 x ld.global.nc.v4 per thread
-- (2048 load instructions and their registers per 32 KB row); here one instruction moves the whole
-- row and no register waits on it, so the next rows' bytes are in flight while this row computes
-- (the async prefetch the SIMT kernel cannot do without twice its registers), and a CTA keeps
-- STAGES rows (64 KB at the defaults) in flight on its own.
--
-- Templates: B rows, N columns, BLOCK the most threads a row gets (fewer when the row is short),
-- ROWS the rows of one CTA (1..16; the last CTA takes what is left), STAGES the row buffers (1..4;
-- 2 = the next row loads while this one computes).
-- Shapes: every B >= 1; N a multiple of 4 (a bulk copy moves whole 16-byte units and every row must
-- start 16-byte aligned in global memory: other N are an error here -- rmsnorm.lua takes any N) with
-- STAGES row buffers fitting the 227 KB of shared memory of a block (N up to 29,024 at STAGES = 2).
-- x, w, y must be 16-byte aligned (cudaMalloc gives 256). w is read with ld.global.nc per row.
-- ptxas (CUDA 13.0, sm_90a) at the defaults (N = 8192, BLOCK = 256, ROWS = 4, STAGES = 2): 256
-- threads, 88 registers (ptxas hoists the w loads of all 8 sweeps), no spills; 65,616 bytes of
-- dynamic shared memory (two 32 KB rows, the mbarriers, two slots of partials): 2 CTAs an SM by
-- registers, 4 rows in flight. N = 1000, B = 3: 38 registers, 8,272 bytes (static); N = 20000 (rows
-- read twice from shared memory): 120 registers; N = 29024: 158 registers, no spills.
local ptx = require "ptxlua"

local rows = ptx.import "lib/rows.lua"

local SMEM = 232448  -- bytes of shared memory a block may have on sm_90

-- the launch plan for a set of templates: the checks here, so that a bad value is an error on the
-- line of its check; the arithmetic in rows.tma_plan (kernels/lib/rows.lua)
local function plan(t)
  ptx.check_templates(t, {
    B = { min = 1, max = 2147483647, why = "rows" },
    N = { min = 4, multiple = 4, why = "a bulk copy moves whole 16-byte units and each row must start 16-byte aligned (rmsnorm.lua takes any N)" },
    BLOCK = { min = 32, max = 1024, multiple = 32 },
    ROWS = { min = 1, max = 16 },
    STAGES = { min = 1, max = 4 },
  })
  local P = rows.tma_plan(t)
  if P.smem > SMEM then
    ptx.error("N (%d) with STAGES = %d needs %d bytes of shared memory, over the %d (227 KB) of a block: fewer STAGES, or rmsnorm.lua", t.N, t.STAGES, P.smem, SMEM)
  end
  return P
end
local on, fregs, block_sum = rows.on, rows.fregs, rows.block_sum

ptx.kernel {
  name = "rmsnorm_tma",
  doc = "y[b, :] = x[b, :] / sqrt(mean(x[b, :]^2) + eps) * w; rows loaded by cp.async.bulk into a ring of shared-memory buffers",
  target = "sm_90a",
  templates = { B = 2048, N = 8192, BLOCK = 256, ROWS = 4, STAGES = 2 },
  params = { {"x", "f32*", shape = {"B", "N"}}, {"w", "f32*", shape = {"N"}},
             {"y", "f32*", shape = {"B", "N"}}, {"eps", "f32"} },
  grid = function(t) return { plan(t).ctas } end,
  block = function(t) return { plan(t).threads } end,
  maxntid = function(t) return { plan(t).threads } end,
  -- --emulate: a few rows of an uneven length, y against the definition in doubles (f32: 1e-5)
  emulate = { B = 7, N = 1024, ROWS = 3 },
  inputs = rows.inputs,
  reference = rows.reference.rmsnorm,
  body = function(t, x, w, y, eps)
    local P = plan(t)
    local px, pw, py = ptx.global_ptrs(x, w, y)
    local epsv = eps:load()

    -- the block (kernels/lib/rows.lua): row buffers, one mbarrier per buffer, two slots of per-warp
    -- partials; the places; the mbarriers initialized and the first STAGES rows requested
    local R = rows.tma_ring(t, P, px, py, { pw }, function(sm)
      return sm:alloc("red", "f32", 2 * 4 * math.ceil(P.warps / 4), { align = 16 })
    end)
    local slot = 16 * math.ceil(P.warps / 4)                      -- bytes from one slot to the other
    local lane, warp, mine, redp, full = R.lane, R.warp, R.mine, R.redp, R.full
    local yrows, wrow, tail_ok, fetch = R.yrows, R.cols[1], R.tail_ok, R.fetch
    local exists = R.exists

    for j = 0, P.rows - 1 do
      local function row()
        local s = j % t.STAGES
        local sbase = s * P.stage_bytes
        ptx.mbarrier_wait(full:addr(0, 8 * s), math.floor(j / t.STAGES) % 2)

        -- sum of x^2 from shared memory, one accumulator per vector lane (masked lanes add nothing)
        local acc = fregs(4)
        for c = 1, 4 do ptx.mov.f32(acc[c], 0) end
        local xs = {}
        for k = 1, P.sweeps do
          local g = (k == P.sweeps and P.tail > 0) and tail_ok or nil
          local v = fregs(4)
          if g then for c = 1, 4 do ptx.mov.f32(v[c], 0) end end
          on(g).ld.shared.v4.f32(v, ptx.addr(mine, sbase + (k - 1) * P.stride))
          for c = 1, 4 do ptx.fma.rn.f32(acc[c], v[c], v[c], acc[c]) end
          if P.cached then xs[k] = v end
        end
        local ss = (acc[1] + acc[2]) + (acc[3] + acc[4])
        local total, synced = block_sum(P, ss, redp, (j % 2) * slot, lane, warp)

        -- a row held in registers frees its buffer now: every thread has read it
        if P.cached and j + t.STAGES < P.rows then
          if not synced then ptx.bar.sync(0) end
          fetch(j + t.STAGES)
        end

        local rstd = ptx.reg.f32()
        ptx.rcp.rn.f32(rstd, (total / t.N + epsv):sqrt())

        -- normalize and store: y = (x * rstd) * w
        for k = 1, P.sweeps do
          local g = (k == P.sweeps and P.tail > 0) and tail_ok or nil
          local off = (k - 1) * P.stride
          local v = xs[k]
          if not v then
            v = fregs(4)
            if g then for c = 1, 4 do ptx.mov.f32(v[c], 0) end end
            on(g).ld.shared.v4.f32(v, ptx.addr(mine, sbase + off))
          end
          local wv = fregs(4)
          if g then for c = 1, 4 do ptx.mov.f32(wv[c], 0) end end
          on(g).ld.global.nc.v4.f32(wv, ptx.addr(wrow, off))
          local out = {}
          for c = 1, 4 do out[c] = v[c] * rstd * wv[c] end
          on(g).st.global.v4.f32(ptx.addr(yrows, j * P.rowbytes + off), out)
        end

        -- a row read twice from shared memory frees its buffer after one more barrier
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
