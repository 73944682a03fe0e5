-- rows.lua -- the pieces the row kernels share: rmsnorm.lua, layernorm.lua and softmax.lua (one CTA
-- a row, the row in registers or streamed from global memory) and rmsnorm_tma.lua, layernorm_tma.lua
-- (ROWS rows a CTA through a ring of shared-memory buffers filled by cp.async.bulk).
-- A kernel loads it by a path relative to its own file, so that a copy of the kernels/ folder works:
--   local rows = ptx.import "lib/rows.lua"
-- What is here:
--   rows.plan(t), rows.tma_plan(t)   the launch-plan arithmetic of a SIMT / TMA row kernel, for
--                                    templates the kernel has already checked (ptx.check_templates in the
--                                    kernel files, so that a bad value is an error at the kernel's line)
--   rows.on, rows.fregs              ptx or ptx.at(guard); n fresh .f32 registers
--   rows.place(t, P, px, py, cols)   a SIMT thread's places: its row (ctaid.x) and first vector
--   rows.sweep, rows.load, rows.store  visit / load / store the VEC-wide vectors a thread owns (SIMT)
--   rows.block_reduce(P, v, op, name, lane, warp)  block-wide sum or max through a named shared array
--   rows.block_sum(P, v, red, off, lane, warp)     block-wide sum through a slot of the TMA kernels' block
--   rows.tma_ring(t, P, px, py, cols, alloc_red)   the TMA kernels' block, per-thread places, mbarriers
--                                    and bulk copies (fetch), up to the first STAGES rows requested
-- Instructions emitted here are anchored (--anchors, emulator errors) at the lines of this file.
local ptx = require "ptxlua"

local rows = {}

rows.CACHE = 64   -- floats a thread keeps in registers (fewer in big blocks); longer rows are streamed
rows.UNROLL = 4   -- sweeps per iteration of the streaming loop (SIMT kernels)

-- 64K registers per SM: a CTA of T threads gets at most 65536 / T each, ~32 of them for the rest
local function cached(P)
  return P.sweeps * P.vec <= math.min(rows.CACHE, 65536 / P.threads - 32)
end

-- the launch plan of a SIMT row kernel (templates B, N, BLOCK, VEC, already checked): one CTA a row,
-- thread i owns the vectors i, i + T, ... of the row
function rows.plan(t)
  local P = { vec = t.VEC }
  while t.N % P.vec ~= 0 do P.vec = P.vec / 2 end
  P.nvec = t.N / P.vec                                           -- vectors in a row
  P.threads = math.min(t.BLOCK, math.ceil(P.nvec / 32) * 32)    -- threads of the CTA
  P.warps = P.threads / 32
  P.sweeps = math.ceil(P.nvec / P.threads)                       -- vectors per thread
  P.full = math.floor(P.nvec / P.threads)                        -- sweeps where every thread has one
  P.tail = P.nvec % P.threads                                    -- threads with a vector in the last sweep
  P.stride = P.threads * P.vec * 4                               -- bytes from one sweep to the next
  P.cached = cached(P)
  return P
end

-- the launch plan of a TMA row kernel (templates B, N a multiple of 4, BLOCK, ROWS, STAGES, already
-- checked). P.smem: the bytes of shared memory the block needs (STAGES row buffers, 128-byte aligned,
-- the mbarriers, two slots of partials); the kernel checks it against the limit.
function rows.tma_plan(t)
  local P = { vec = 4, rowbytes = t.N * 4 }
  P.nvec = t.N / 4                                               -- vectors in a row
  P.threads = math.min(t.BLOCK, math.ceil(P.nvec / 32) * 32)    -- threads of the CTA
  P.warps = P.threads / 32
  P.sweeps = math.ceil(P.nvec / P.threads)                       -- vectors per thread
  P.tail = P.nvec % P.threads                                    -- threads with a vector in the last sweep
  P.stride = P.threads * 16                                      -- bytes from one sweep to the next
  P.cached = cached(P)
  P.rows = math.min(t.ROWS, t.B)                                 -- rows of a full CTA
  P.ctas = math.ceil(t.B / t.ROWS)
  P.stage_bytes = math.ceil(P.rowbytes / 128) * 128
  P.smem = t.STAGES * P.stage_bytes + 8 * t.STAGES + 2 * 16 * math.ceil(P.warps / 4)
  return P
end

-- ptx, or ptx.at(g) when the instruction is guarded by g
local function on(g) if g then return ptx.at(g) end return ptx end
rows.on = on

-- n fresh .f32 registers
local function fregs(n)
  local r = {}
  for j = 1, n do r[j] = ptx.reg.f32() end
  return r
end
rows.fregs = fregs

-- a SIMT row kernel's places: row = ctaid.x; this thread starts at vector tid.x of the row.
-- cols: the global pointers read per column (w, b). Returns R: tid, lane, warp, xrow and yrow (this
-- thread's first vector of its row in x and y), cols (its first vector in each of cols), tail_ok
-- (nil, or the predicate of the threads with a vector in the last, partial sweep).
function rows.place(t, P, px, py, cols)
  local R = {}
  local tid = ptx.special "tid.x"
  R.tid, R.lane, R.warp = tid, tid:band(31), tid:shr(5)
  local row = ptx.special "ctaid.x"
  local rowoff = row:mul_wide(t.N * 4)
  local coloff = tid:mul_wide(P.vec * 4)
  R.xrow = px + rowoff + coloff
  R.yrow = py + rowoff + coloff
  R.cols = {}
  for i, p in ipairs(cols) do R.cols[i] = p + coloff end
  R.tail_ok = P.tail > 0 and tid:lt(P.tail) or nil
  return R
end

-- visit every vector of the row this thread owns, in order: fn(s, bases, off, guard).
-- s: the sweep number (cached plans only); off: byte offset from the registers in bases;
-- guard: nil, or the predicate of the last, partial sweep.
function rows.sweep(P, bases, tail_ok, fn)
  if P.cached then
    for s = 1, P.sweeps do
      fn(s, bases, (s - 1) * P.stride, (s == P.sweeps and P.tail > 0) and tail_ok or nil)
    end
    return
  end
  local UNROLL = rows.UNROLL
  local ps = {}
  for i, b in ipairs(bases) do ps[i] = ptx.reg.u64(); ptx.mov.u64(ps[i], b) end
  local iters = math.floor(P.full / UNROLL)
  if iters > 0 then
    ptx.loop(iters, function()
      for u = 0, UNROLL - 1 do fn(nil, ps, u * P.stride, nil) end
      for _, p in ipairs(ps) do ptx.add.u64(p, p, UNROLL * P.stride) end
    end)
  end
  local rest = P.full - iters * UNROLL
  for u = 0, rest - 1 do fn(nil, ps, u * P.stride, nil) end
  if P.tail > 0 then fn(nil, ps, rest * P.stride, tail_ok) end
end

-- VEC floats from global memory (read-only path) into the registers of v; a guarded load
-- first fills v with `fill`, so masked lanes hold a neutral value
function rows.load(v, base, off, guard, fill)
  if guard then for j = 1, #v do ptx.mov.f32(v[j], fill) end end
  if #v == 1 then on(guard).ld.global.nc.f32(v[1], ptx.addr(base, off))
  else on(guard).ld.global.nc["v" .. #v].f32(v, ptx.addr(base, off)) end
end
function rows.store(v, base, off, guard)
  if #v == 1 then on(guard).st.global.f32(ptx.addr(base, off), v[1])
  else on(guard).st.global["v" .. #v].f32(ptx.addr(base, off), v) end
end

-- the partials of the warps at red + off (a .u32 shared address), combined in warp order
-- (ld.shared.v4 where four are together) with op "sum" or "max"
local function combine(P, red, off, op)
  local parts = fregs(P.warps)
  for w = 0, P.warps - 1, 4 do
    local n = math.min(4, P.warps - w)
    local chunk = { unpack(parts, w + 1, w + n) }
    if n == 4 then ptx.ld.shared.v4.f32(chunk, ptx.addr(red, off + w * 4))
    elseif n == 2 then ptx.ld.shared.v2.f32(chunk, ptx.addr(red, off + w * 4))
    else for j = 1, n do ptx.ld.shared.f32(chunk[j], ptx.addr(red, off + (w + j - 1) * 4)) end end
  end
  local total = parts[1]
  for w = 2, P.warps do
    if op == "sum" then total = total + parts[w] else total = total:max(parts[w]) end
  end
  return total
end

-- block-wide reduction of v (op "sum" or "max"; every thread gets the same value):
-- 5 x (shfl.sync.bfly + op) in the warp; lane 0 stores the warp's partial in the shared array
-- `name`; bar.sync 0; every thread combines name[0 .. warps-1] in warp order (ld.shared.v4)
function rows.block_reduce(P, v, op, name, lane, warp)
  ptx.warp_reduce(v, op)
  if P.warps == 1 then return v end
  local red = ptx.reg.u32()
  ptx.mov.u32(red, ptx.shared(name, "f32", P.warps, 16))
  local slot = warp:mad(4, red)
  ptx.at(lane:eq(0)).st.shared.f32(ptx.addr(slot), v)
  ptx.bar.sync(0)
  return combine(P, red, 0, op)
end

-- block-wide sum of v: the warp butterfly; lane 0 stores the warp's partial at red + 4 * warp
-- (`red` a .u32 shared address, `off` the slot's byte offset from it); bar.sync 0; every thread
-- adds the partials in warp order. Returns the sum and whether a bar.sync was issued.
function rows.block_sum(P, v, red, off, lane, warp)
  ptx.warp_reduce(v, "sum")
  if P.warps == 1 then return v, false end
  local mine = warp:mad(4, red)
  ptx.at(lane:eq(0)).st.shared.f32(ptx.addr(mine, off), v)
  ptx.bar.sync(0)
  return combine(P, red, off, "sum"), true
end

-- the TMA kernels' block and places. alloc_red(sm) allocates the kernel's arrays of partials after
-- the row buffers and mbarriers and returns the one R.redp points at. cols: the global pointers read
-- per column (w, b); R.cols[i] is this thread's first vector in each. Emits the places, then thread 0
-- initializes the mbarriers (one arrival: its expect_tx), the fence publishes them to the async
-- proxy, the bar.sync to every thread, and the first STAGES rows are requested.
-- R: buf, full (the smem_plan allocations), tid, lane, warp, first (this CTA's first row), mine (this
-- thread's vector in buffer 0, a .u32 shared address), redp, yrows (this thread's first vector of
-- row 0 in y), cols, tail_ok, exists(j) (nil for row 0, else the predicate first + j < B) and
-- fetch(j) (thread 0: announce row j's bytes on its buffer's mbarrier and copy the row in).
function rows.tma_ring(t, P, px, py, cols, alloc_red)
  local R = {}
  local sm = ptx.smem_plan()
  local buf = sm:alloc("rows", "f32", t.N, { stages = t.STAGES })
  local full = sm:alloc("full", "b64", t.STAGES, { align = 8 })
  local red = alloc_red(sm)
  R.buf, R.full = buf, full

  -- place: this CTA's first row; this thread's first vector in a buffer and in a row
  local tid = ptx.special "tid.x"
  R.tid, R.lane, R.warp = tid, tid:band(31), tid:shr(5)
  local first = ptx.special("ctaid.x") * t.ROWS
  R.first = first
  local base = ptx.reg.u32()
  ptx.mov.u32(base, ptx.sym "smem")
  R.mine = tid:mad(16, base + buf.offset)                       -- my vector in buffer 0
  R.redp = base + red.offset
  local xrows = px + first:mul_wide(P.rowbytes)                 -- row 0 of this CTA
  local coloff = tid:mul_wide(16)
  R.yrows = py + first:mul_wide(P.rowbytes) + coloff
  R.cols = {}
  for i, p in ipairs(cols) do R.cols[i] = p + coloff end
  R.tail_ok = P.tail > 0 and tid:lt(P.tail) or nil
  local leader = tid:eq(0)

  -- row j of this CTA exists when first + j < B (row 0 always does)
  local function exists(j) if j == 0 then return nil end return first:lt(t.B - j) end
  local function fetch(j)
    local s = j % t.STAGES
    local go = leader
    local e = exists(j)
    if e then go = go:and_(e) end
    ptx.if_(go, function()
      ptx.op "mbarrier.arrive.expect_tx.shared::cta.b64" (ptx._, full:addr(0, 8 * s), P.rowbytes)
      ptx.op "cp.async.bulk.shared::cluster.global.mbarrier::complete_tx::bytes" (
        buf:addr(s), ptx.addr(xrows + j * P.rowbytes), P.rowbytes, full:addr(0, 8 * s))
    end)
  end
  R.exists, R.fetch = exists, fetch

  ptx.if_(leader, function()
    for s = 0, t.STAGES - 1 do ptx.op "mbarrier.init.shared::cta.b64" (full:addr(0, 8 * s), 1) end
    ptx.op "fence.mbarrier_init.release.cluster" ()
  end)
  ptx.bar.sync(0)
  for j = 0, math.min(t.STAGES, P.rows) - 1 do fetch(j) end
  return R
end

-- the references of --emulate (the kernels' `reference` fields), in doubles from the definitions:
-- x holds the inputs as flat 1-based lists (x.x, x.w, x.b) and the scalars (x.eps); row r, column j
-- of x at x.x[r * N + j + 1]
rows.reference = {}
function rows.reference.layernorm(t, x)
  local X, W, Bv, y, N = x.x, x.w, x.b, {}, t.N
  for r = 0, t.B - 1 do
    local base, s, sq = r * N, 0, 0
    for j = 1, N do s = s + X[base + j] end
    local mean = s / N
    for j = 1, N do local d = X[base + j] - mean; sq = sq + d * d end
    local rstd = 1 / math.sqrt(sq / N + x.eps)
    for j = 1, N do y[base + j] = (X[base + j] - mean) * rstd * W[j] + Bv[j] end
  end
  return { y = y }
end
function rows.reference.rmsnorm(t, x)
  local X, W, y, N = x.x, x.w, {}, t.N
  for r = 0, t.B - 1 do
    local base, ss = r * N, 0
    for j = 1, N do local v = X[base + j]; ss = ss + v * v end
    local rstd = 1 / math.sqrt(ss / N + x.eps)
    for j = 1, N do y[base + j] = X[base + j] * rstd * W[j] end
  end
  return { y = y }
end
-- eps as a real run passes it (1e-5), and the sizes of a check: every shape class in a few rows
rows.inputs = function() return { eps = 1e-5 } end

return rows
