-- rmsnorm.lua -- RMSNorm of each row, f32: y = x / sqrt(mean(x^2) + eps) * w.
-- One CTA per row. Thread i owns the VEC-wide vectors i, i + T, i + 2T, ... of its row (T threads,
-- so every sweep of the block is one coalesced run of 16-byte loads). The row stays in registers
-- when it fits (at most rows.CACHE floats a thread); longer rows are streamed through a PTX loop twice.
-- Reduction: warp butterfly (shfl.sync.bfly), one partial per warp in shared memory, bar.sync,
-- then every thread adds the partials in warp order (the same order everywhere: one result).
--
-- Templates: B rows, N columns, BLOCK the most threads a row gets (the block shrinks to the row
-- when the row is short), VEC the widest vector in floats (4 = 16-byte ld/st.v4).
-- Shapes: every B >= 1 and N >= 1. The vector width narrows to the widest of VEC, 2, 1 that divides
-- N, so that every row starts 16-byte (8-, 4-byte) aligned; threads past the end of the last
-- sweep are masked. x, w, y must be 16-byte aligned (cudaMalloc gives 256).
-- ptxas (CUDA 13.0, sm_90a) at the defaults: 256 threads, 52 registers, 32 bytes of shared memory,
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

ptx.kernel {
  name = "rmsnorm",
  doc = "y[b, :] = x[b, :] / sqrt(mean(x[b, :]^2) + eps) * w",
  templates = { B = 2048, N = 8192, BLOCK = 256, VEC = 4 },
  params = { {"x", "f32*", shape = {"B", "N"}}, {"w", "f32*", shape = {"N"}},
             {"y", "f32*", shape = {"B", "N"}}, {"eps", "f32"} },
  grid = function(t) plan(t); return { t.B } end,
  block = function(t) return { plan(t).threads } end,
  maxntid = function(t) return { plan(t).threads } end,
  -- --emulate: a few rows of an uneven length, y against the definition in doubles (f32: 1e-5)
  emulate = { B = 3, N = 999 },
  inputs = rows.inputs,
  reference = rows.reference.rmsnorm,
  body = function(t, x, w, y, eps)
    local P = plan(t)
    local px, pw, py = ptx.global_ptrs(x, w, y)
    local epsv = eps:load()

    -- place: row = ctaid.x; this thread starts at vector tid.x of the row
    local R = rows.place(t, P, px, py, { pw })
    local lane, warp, xrow, yrow, wrow, tail_ok = R.lane, R.warp, R.xrow, R.yrow, R.cols[1], R.tail_ok

    -- load x (kept in registers when it fits) and sum x^2, one accumulator per vector lane
    local acc = {}
    for j = 1, P.vec do acc[j] = ptx.f32(0) end
    local xs = {}
    sweep(P, { xrow }, tail_ok, function(s, b, off, g)
      local v = fregs(P.vec)
      load(v, b[1], off, g, 0)
      for j = 1, P.vec do ptx.fma.rn.f32(acc[j], v[j], v[j], acc[j]) end
      if s then xs[s] = v end
    end)
    local ss = acc[1]
    for j = 2, P.vec do ss = ss + acc[j] end

    -- reduce: sum of squares over the block, then rstd = 1 / sqrt(sum / N + eps)
    local total = block_reduce(P, ss, "sum", "red", lane, warp)
    local ms = total / t.N
    local rms = (ms + epsv):sqrt()
    local rstd = ptx.reg.f32()
    ptx.rcp.rn.f32(rstd, rms)

    -- normalize and store: y = (x * rstd) * w
    sweep(P, { xrow, wrow, yrow }, tail_ok, function(s, b, off, g)
      local v = xs[s]
      if not v then v = fregs(P.vec); load(v, b[1], off, g, 0) end
      local wv = fregs(P.vec)
      load(wv, b[2], off, g, 0)
      local out = {}
      for j = 1, P.vec do out[j] = v[j] * rstd * wv[j] end
      store(out, b[3], off, g)
    end)
    ptx.ret()
  end,
}
