-- softmax.lua -- softmax of each row, f32: y = exp(x - max) / sum(exp(x - max)).
-- One CTA per row; the same layout as rmsnorm.lua: thread i owns the VEC-wide vectors i, i + T, ...
-- of its row (coalesced 16-byte loads), the row stays in registers when it fits (at most rows.CACHE
-- floats a thread), longer rows are streamed through a PTX loop (read three times).
-- Phases: max (block reduction), exponentials and their sum (block reduction), scale by 1/sum.
-- Reductions: warp butterfly (shfl.sync.bfly), a partial per warp in its own shared array, bar.sync,
-- every thread combines the partials in warp order.
--
-- Accuracy: exp(x - m) is computed as ex2.approx.ftz(x * log2(e) - m * log2(e)), the subtraction
-- fused into one fma. ex2.approx is accurate to a couple of ulp; the rounding of m * log2(e) is the
-- same for every element of the row and cancels in the normalization; the remaining error of an
-- output is a few ulp plus about |x - m| * 2^-24 relative (from rounding the fma result and
-- log2(e)), e.g. ~1e-6 relative for logits within 16 of the maximum. Terms below 2^-126 (x more
-- than ~87 under the maximum) flush to zero (.ftz); their true value is below 1e-38 of the sum.
-- -inf inputs give 0; a row that is all -inf gives NaN (as 0/0 does in the reference).
--
-- Templates: B rows, N columns, BLOCK the most threads a row gets (fewer when the row is short),
-- VEC the widest vector in floats (4 = ld/st.v4).
-- Shapes: every B >= 1 and N >= 1. The vector width narrows to the widest of VEC, 2, 1 that divides
-- N (every row stays aligned); threads past the end of the last sweep are masked.
-- x and y must be 16-byte aligned.
-- ptxas (CUDA 13.0, sm_90a) at the defaults: 256 threads, 48 registers, 64 bytes of shared memory,
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
local fregs, sweep, load, store, block_reduce = rows.fregs, rows.sweep, rows.load, rows.store, rows.block_reduce

local LOG2E = 1.4426950408889634 -- log2(e), rounded to f32 in the instruction

ptx.kernel {
  name = "softmax",
  doc = "y[r, :] = exp(x[r, :] - max(x[r, :])) / sum(exp(x[r, :] - max(x[r, :])))",
  templates = { B = 2048, N = 8192, BLOCK = 256, VEC = 4 },
  params = { {"x", "f32*", shape = {"B", "N"}}, {"y", "f32*", shape = {"B", "N"}} },
  grid = function(t) plan(t); return { t.B } end,
  block = function(t) return { plan(t).threads } end,
  maxntid = function(t) return { plan(t).threads } end,
  -- --emulate: rows of an uneven length; y against the definition in doubles (ex2.approx: about
  -- 2 ulp; the default f32 tolerance, 1e-5 relative plus 1e-5 of y's RMS)
  emulate = { B = 5, N = 1001 },
  reference = function(t, x)
    local X, y, N = x.x, {}, t.N
    for r = 0, t.B - 1 do
      local base, m, s = r * N, -math.huge, 0
      for j = 1, N do if X[base + j] > m then m = X[base + j] end end
      for j = 1, N do local e = math.exp(X[base + j] - m); y[base + j] = e; s = s + e end
      for j = 1, N do y[base + j] = y[base + j] / s end
    end
    return { y = y }
  end,
  body = function(t, x, y)
    local P = plan(t)
    local px, py = ptx.global_ptrs(x, y)

    -- place: row = ctaid.x; this thread starts at vector tid.x of the row
    local R = rows.place(t, P, px, py, {})
    local lane, warp, xrow, yrow, tail_ok = R.lane, R.warp, R.xrow, R.yrow, R.tail_ok

    -- load x (kept in registers when it fits; masked lanes hold -inf) and take the running max
    local mx = {}
    for j = 1, P.vec do mx[j] = ptx.f32(-math.huge) end
    local xs = {}
    sweep(P, { xrow }, tail_ok, function(s, base, off, g)
      local v = fregs(P.vec)
      load(v, base[1], off, g, -math.huge)
      for j = 1, P.vec do ptx.max.f32(mx[j], mx[j], v[j]) end
      if s then xs[s] = v end
    end)
    local m = mx[1]
    for j = 2, P.vec do m = m:max(mx[j]) end

    -- reduce 1: the row maximum, pre-scaled: nms = -(max * log2(e))
    m = block_reduce(P, m, "max", "red_max", lane, warp)
    local nms = -(m * LOG2E)

    -- exponentials e = 2^(x * log2(e) - max * log2(e)) (kept in place of x when cached) and their sum
    local acc = {}
    for j = 1, P.vec do acc[j] = ptx.f32(0) end
    local function exps(v)
      for j = 1, P.vec do
        local e = ptx.reg.f32()
        ptx.ex2.approx.ftz.f32(e, v[j]:fma(LOG2E, nms))
        v[j] = e
      end
      return v
    end
    sweep(P, { xrow }, tail_ok, function(s, base, off, g)
      local v = xs[s]
      if not v then v = fregs(P.vec); load(v, base[1], off, g, -math.huge) end
      exps(v)
      for j = 1, P.vec do ptx.add.rn.f32(acc[j], acc[j], v[j]) end
    end)
    local sum = acc[1]
    for j = 2, P.vec do sum = sum + acc[j] end

    -- reduce 2: the row sum, then its reciprocal
    sum = block_reduce(P, sum, "sum", "red_sum", lane, warp)
    local inv = ptx.reg.f32()
    ptx.rcp.rn.f32(inv, sum)

    -- scale and store: y = e * (1 / sum)
    sweep(P, { xrow, yrow }, tail_ok, function(s, base, off, g)
      local v = xs[s]
      if not v then v = fregs(P.vec); load(v, base[1], off, g, -math.huge); exps(v) end
      local out = {}
      for j = 1, P.vec do out[j] = v[j] * inv end
      store(out, base[2], off, g)
    end)
    ptx.ret()
  end,
}
