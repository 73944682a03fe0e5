-- rmsnorm: y[r, :] = x[r, :] / sqrt(mean(x[r, :]^2) + eps) * w over B rows of N f32. The second and
-- third shapes leave a partial last sweep (N = 5000) and force scalar loads (N = 4099, odd).
local EPS = 1e-5
return {
  script = "kernels/rmsnorm.lua",
  kernel = "rmsnorm",
  configs = { { B = 4096, N = 8192 }, { B = 1000, N = 5000 }, { B = 333, N = 4099 } },
  emu = { { B = 3, N = 8192 }, { B = 5, N = 5000 }, { B = 7, N = 4099 } },
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
