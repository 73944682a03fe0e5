-- layernorm.lua -- LayerNorm of each row, f32: y = (x - mean) * rstd * w + b, rstd = 1/sqrt(var + eps).
-- One CTA per row; the same layout as rmsnorm.lua: thread i owns the VEC-wide vectors i, i + T, ...
-- of its row (coalesced 16-byte loads), the row stays in registers when it fits (at most CACHE
-- floats a thread), longer rows are streamed through a PTX loop (read three times).
-- Numerics: two passes. The mean first (a block reduction of the sum), then the variance as the
-- mean of (x - mean)^2 over the same registers (a second block reduction) -- no cancellation of
-- sum(x^2) - N*mean^2. Each reduction: warp butterfly (shfl.sync.bfly), a partial per warp in its
-- own shared array (so the second needs no barrier to protect the first), bar.sync, every thread
-- combines the partials in warp order.
--
-- Templates: B rows, N columns, BLOCK the most threads a row gets (fewer when the row is short),
-- VEC the widest vector in floats (4 = ld/st.v4).
-- Shapes: every B >= 1 and N >= 1. The vector width narrows to the widest of VEC, 2, 1 that divides
-- N (every row stays aligned); threads past the end of the last sweep are masked.
-- x, w, b, y must be 16-byte aligned.
-- ptxas (CUDA 13.0, sm_90a) at the defaults: 256 threads, 64 registers, 64 bytes of shared memory,
-- no spills; the row (8 x ld.global.nc.v4.f32 a thread) is held in registers.
local ptx = require "ptxlua"

local CACHE = 64  -- floats a thread keeps in registers (fewer in big blocks); longer rows are streamed
local UNROLL = 4  -- sweeps per iteration of the streaming loop

-- the launch plan for a set of templates; a bad value is an error on the line of its check
local function plan(t)
  for _, k in ipairs { "B", "N", "BLOCK", "VEC" } do
    local v = t[k]
    if type(v) ~= "number" or v < 1 or v ~= math.floor(v) then ptx.error("template %s must be a positive integer (got %s)", k, tostring(v)) end
  end
  if t.VEC ~= 1 and t.VEC ~= 2 and t.VEC ~= 4 then ptx.error("VEC must be 1, 2 or 4 floats (got %d)", t.VEC) end
  if t.BLOCK % 32 ~= 0 or t.BLOCK > 1024 then ptx.error("BLOCK must be a multiple of 32 up to 1024 (got %d)", t.BLOCK) end
  if t.B > 2147483647 then ptx.error("B (%d) exceeds the grid limit 2^31-1", t.B) end
  if t.N * 4 >= 2 ^ 32 then ptx.error("N (%d) is too long: a row must be under 4 GiB", t.N) end
  local P = { vec = t.VEC }
  while t.N % P.vec ~= 0 do P.vec = P.vec / 2 end
  P.nvec = t.N / P.vec                                           -- vectors in a row
  P.threads = math.min(t.BLOCK, math.ceil(P.nvec / 32) * 32)    -- threads of the CTA
  P.warps = P.threads / 32
  P.sweeps = math.ceil(P.nvec / P.threads)                       -- vectors per thread
  P.full = math.floor(P.nvec / P.threads)                        -- sweeps where every thread has one
  P.tail = P.nvec % P.threads                                    -- threads with a vector in the last sweep
  P.stride = P.threads * P.vec * 4                               -- bytes from one sweep to the next
  -- 64K registers per SM: a CTA of T threads gets at most 65536 / T each, ~32 of them for the rest
  P.cached = P.sweeps * P.vec <= math.min(CACHE, 65536 / P.threads - 32)
  return P
end

-- ptx, or ptx.at(g) when the instruction is guarded by g
local function on(g) if g then return ptx.at(g) end return ptx end

-- n fresh .f32 registers
local function fregs(n)
  local r = {}
  for j = 1, n do r[j] = ptx.reg.f32() end
  return r
end

-- visit every vector of the row this thread owns, in order: fn(s, bases, off, guard).
-- s: the sweep number (cached plans only); off: byte offset from the registers in bases;
-- guard: nil, or the predicate of the last, partial sweep.
local function sweep(P, bases, tail_ok, fn)
  if P.cached then
    for s = 1, P.sweeps do
      fn(s, bases, (s - 1) * P.stride, (s == P.sweeps and P.tail > 0) and tail_ok or nil)
    end
    return
  end
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
local function load(v, base, off, guard, fill)
  if guard then for j = 1, #v do ptx.mov.f32(v[j], fill) end end
  if #v == 1 then on(guard).ld.global.nc.f32(v[1], ptx.addr(base, off))
  else on(guard).ld.global.nc["v" .. #v].f32(v, ptx.addr(base, off)) end
end
local function store(v, base, off, guard)
  if #v == 1 then on(guard).st.global.f32(ptx.addr(base, off), v[1])
  else on(guard).st.global["v" .. #v].f32(ptx.addr(base, off), v) end
end

-- block-wide reduction of v (op "sum" or "max"; every thread gets the same value):
-- 5 x (shfl.sync.bfly + op) in the warp; lane 0 stores the warp's partial in the shared array
-- `name`; bar.sync 0; every thread combines name[0 .. warps-1] in warp order (ld.shared.v4)
local function block_reduce(P, v, op, name, lane, warp)
  ptx.warp_reduce(v, op)
  if P.warps == 1 then return v end
  local red = ptx.reg.u32()
  ptx.mov.u32(red, ptx.shared(name, "f32", P.warps, 16))
  local slot = warp:mad(4, red)
  ptx.at(lane:eq(0)).st.shared.f32(ptx.addr(slot), v)
  ptx.bar.sync(0)
  local parts = fregs(P.warps)
  for w = 0, P.warps - 1, 4 do
    local n = math.min(4, P.warps - w)
    local chunk = { unpack(parts, w + 1, w + n) }
    if n == 4 then ptx.ld.shared.v4.f32(chunk, ptx.addr(red, w * 4))
    elseif n == 2 then ptx.ld.shared.v2.f32(chunk, ptx.addr(red, w * 4))
    else for j = 1, n do ptx.ld.shared.f32(chunk[j], ptx.addr(red, (w + j - 1) * 4)) end end
  end
  local total = parts[1]
  for w = 2, P.warps do
    if op == "sum" then total = total + parts[w] else total = total:max(parts[w]) end
  end
  return total
end

ptx.kernel {
  name = "layernorm",
  doc = "y[r, :] = (x[r, :] - mean) / sqrt(var + eps) * w + b over each row r (biased variance)",
  templates = { B = 2048, N = 8192, BLOCK = 256, VEC = 4 },
  params = { {"x", "f32*", shape = {"B", "N"}}, {"w", "f32*", shape = {"N"}}, {"b", "f32*", shape = {"N"}},
             {"y", "f32*", shape = {"B", "N"}}, {"eps", "f32"} },
  grid = function(t) plan(t); return { t.B } end,
  block = function(t) return { plan(t).threads } end,
  maxntid = function(t) return { plan(t).threads } end,
  body = function(t, x, w, b, y, eps)
    local P = plan(t)
    local px, pw, pb, py = ptx.global_ptrs(x, w, b, y)
    local epsv = eps:load()

    -- place: row = ctaid.x; this thread starts at vector tid.x of the row
    local tid = ptx.special "tid.x"
    local lane = tid:band(31)
    local warp = tid:shr(5)
    local row = ptx.special "ctaid.x"
    local rowoff = row:mul_wide(t.N * 4)
    local coloff = tid:mul_wide(P.vec * 4)
    local xrow = px + rowoff + coloff
    local yrow = py + rowoff + coloff
    local wrow = pw + coloff
    local brow = pb + coloff
    local tail_ok = P.tail > 0 and tid:lt(P.tail) or nil

    -- load x (kept in registers when it fits) and sum it, one accumulator per vector lane
    local acc = {}
    for j = 1, P.vec do acc[j] = ptx.f32(0) end
    local xs = {}
    sweep(P, { xrow }, tail_ok, function(s, base, off, g)
      local v = fregs(P.vec)
      load(v, base[1], off, g, 0)
      for j = 1, P.vec do ptx.add.rn.f32(acc[j], acc[j], v[j]) end
      if s then xs[s] = v end
    end)
    local sum = acc[1]
    for j = 2, P.vec do sum = sum + acc[j] end

    -- reduce 1: mean = sum / N
    local mean = block_reduce(P, sum, "sum", "red_sum", lane, warp) / t.N

    -- reduce 2: var = sum((x - mean)^2) / N over the same values (masked lanes add nothing)
    local sq = {}
    for j = 1, P.vec do sq[j] = ptx.f32(0) end
    sweep(P, { xrow }, tail_ok, function(s, base, off, g)
      local v = xs[s]
      if not v then v = fregs(P.vec); load(v, base[1], off, g, 0) end
      for j = 1, P.vec do
        local d = v[j] - mean
        on(g).fma.rn.f32(sq[j], d, d, sq[j])
      end
    end)
    local ssq = sq[1]
    for j = 2, P.vec do ssq = ssq + sq[j] end
    local var = block_reduce(P, ssq, "sum", "red_sq", lane, warp) / t.N
    local sd = (var + epsv):sqrt()
    local rstd = ptx.reg.f32()
    ptx.rcp.rn.f32(rstd, sd)

    -- normalize and store: y = ((x - mean) * rstd) * w + b
    sweep(P, { xrow, wrow, brow, yrow }, tail_ok, function(s, base, off, g)
      local v = xs[s]
      if not v then v = fregs(P.vec); load(v, base[1], off, g, 0) end
      local wv, bv = fregs(P.vec), fregs(P.vec)
      load(wv, base[2], off, g, 0)
      load(bv, base[3], off, g, 0)
      local out = {}
      for j = 1, P.vec do out[j] = ((v[j] - mean) * rstd):fma(wv[j], bv[j]) end
      store(out, base[4], off, g)
    end)
    ptx.ret()
  end,
}
