-- rmsnorm_tma: y[r, :] = x[r, :] / sqrt(mean(x[r, :]^2) + eps) * w over B rows of N f32, the rows
-- loaded by cp.async.bulk (kernels/rmsnorm_tma.lua: N a multiple of 4). The second shape leaves a
-- partial last sweep (N = 5000) and a last CTA with fewer rows (ROWS = 3: 334 CTAs, the last with
-- one row); the third has short rows, many per CTA (ROWS = 8, the last CTA with 6).
local EPS = 1e-5
return {
  script = "kernels/rmsnorm_tma.lua",
  kernel = "rmsnorm_tma",
  configs = { { B = 4096, N = 8192 }, { B = 1000, N = 5000, ROWS = 3 }, { B = 8190, N = 1024, ROWS = 8 } },
  emu = { { B = 3, N = 8192 }, { B = 5, N = 5000, ROWS = 3 }, { B = 7, N = 1024, ROWS = 8 } },
  tensors = function(t)
    return { x = { "f32", t.B * t.N }, w = { "f32", t.N, fill = { 0.5, 1.5 } }, y = { "f32", t.B * t.N, output = true } }
  end,
  args = function(t, T) return { T.x, T.w, T.y, EPS } end,
  reference = function(t, In, Out)
    local x, w, y, N = In.x, In.w, Out.y, t.N
    local eps = 9.99999974737875e-06   -- EPS as the f32 the kernel receives
    for r = 0, t.B - 1 do
      local base, ss = r * N, 0
      for j = 0, N - 1 do local v = x[base + j]; ss = ss + v * v end
      local rstd = 1 / math.sqrt(ss / N + eps)
      for j = 0, N - 1 do y[base + j] = x[base + j] * rstd * w[j] end
    end
  end,
  bytes = function(t) return 4 * (2 * t.B * t.N + t.N) end,
}
