-- layernorm.lua -- LayerNorm of each row, f32: y = (x - mean) * rstd * w + b, rstd = 1/sqrt(var + eps).
-- One CTA per row; the same layout as rmsnorm.lua: thread i owns the VEC-wide vectors i, i + T, ...
-- of its row (coalesced 16-byte loads), the row stays in registers when it fits (at most rows.CACHE
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

local rows = ptx.import "lib/rows.lua"

-- the launch plan for a set of templates: the checks here, so that a bad value is an error on the
-- line of its check; the arithmetic in rows.plan (kernels/lib/rows.lua)
local function plan(t)
  ptx.check_templates(t, {
    B = { min = 1, max = 2147483647, why = "a CTA a row, and a grid has at most 2^31-1" },
    N = { min = 1, below = 2 ^ 30, why = "a row of floats must be under 4 GiB" },
    BLOCK = { min = 32, max = 1024, multiple = 32 },
    VEC = { one_of = { 1, 2, 4 }, why = "floats a vector" },
  })
  return rows.plan(t)
end
local on, fregs, sweep, load, store, block_reduce = rows.on, rows.fregs, rows.sweep, rows.load, rows.store, rows.block_reduce

ptx.kernel {
  name = "layernorm",
  doc = "y[r, :] = (x[r, :] - mean) / sqrt(var + eps) * w + b over each row r (biased variance)",
  templates = { B = 2048, N = 8192, BLOCK = 256, VEC = 4 },
  params = { {"x", "f32*", shape = {"B", "N"}}, {"w", "f32*", shape = {"N"}}, {"b", "f32*", shape = {"N"}},
             {"y", "f32*", shape = {"B", "N"}}, {"eps", "f32"} },
  grid = function(t) plan(t); return { t.B } end,
  block = function(t) return { plan(t).threads } end,
  maxntid = function(t) return { plan(t).threads } end,
  -- --emulate: a few rows of an uneven length, y against the definition in doubles (f32: 1e-5)
  emulate = { B = 5, N = 1001 },
  inputs = rows.inputs,
  reference = rows.reference.layernorm,
  body = function(t, x, w, b, y, eps)
    local P = plan(t)
    local px, pw, pb, py = ptx.global_ptrs(x, w, b, y)
    local epsv = eps:load()

    -- place: row = ctaid.x; this thread starts at vector tid.x of the row
    local R = rows.place(t, P, px, py, { pw, pb })
    local lane, warp, xrow, yrow, tail_ok = R.lane, R.warp, R.xrow, R.yrow, R.tail_ok
    local wrow, brow = R.cols[1], R.cols[2]

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
