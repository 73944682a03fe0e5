-- layernorm_tma: y[r, :] = (x[r, :] - mean) / sqrt(var + eps) * w + b (biased variance) over B rows
-- of N f32, the rows loaded by cp.async.bulk (kernels/layernorm_tma.lua: N a multiple of 4); shapes
-- as for rmsnorm_tma. Inputs get an offset (x in [2, 4]) so that the mean matters.
local EPS32 = 9.99999974737875e-06   -- 1e-5 as the f32 the kernel receives
return {
  script = "kernels/layernorm_tma.lua",
  kernel = "layernorm_tma",
  configs = { { B = 4096, N = 8192 }, { B = 1000, N = 5000, ROWS = 3 }, { B = 8190, N = 1024, ROWS = 8 } },
  emu = { { B = 3, N = 8192 }, { B = 5, N = 5000, ROWS = 3 }, { B = 7, N = 1024, ROWS = 8 } },
  tensors = function(t)
    return { x = { "f32", t.B * t.N, fill = { 2, 4 } }, w = { "f32", t.N, fill = { 0.5, 1.5 } }, b = { "f32", t.N },
             y = { "f32", t.B * t.N, output = true } }
  end,
  args = function(t, T) return { T.x, T.w, T.b, T.y, 1e-5 } end,
  reference = function(t, In, Out)
    local x, w, b, y, N = In.x, In.w, In.b, Out.y, t.N
    for r = 0, t.B - 1 do
      local base, s = r * N, 0
      for j = 0, N - 1 do s = s + x[base + j] end
      local mean, sq = s / N, 0
      for j = 0, N - 1 do local d = x[base + j] - mean; sq = sq + d * d end
      local rstd = 1 / math.sqrt(sq / N + EPS32)
      for j = 0, N - 1 do y[base + j] = (x[base + j] - mean) * rstd * w[j] + b[j] end
    end
  end,
  bytes = function(t) return 4 * (2 * t.B * t.N + 2 * t.N) end,
}
