-- softmax: y[r, :] = exp(x[r, :] - max) / sum(exp(x[r, :] - max)) over B rows of N f32. Logits in
-- [-8, 8]: the kernel's ex2.approx error stays near 1e-6 relative there (kernels/softmax.lua).
return {
  script = "kernels/softmax.lua",
  kernel = "softmax",
  configs = { { B = 4096, N = 8192 }, { B = 1000, N = 5000 }, { B = 333, N = 4099 } },
  emu = { { B = 3, N = 8192 }, { B = 5, N = 5000 }, { B = 7, N = 4099 } },
  tensors = function(t)
    return { x = { "f32", t.B * t.N, fill = { -8, 8 } }, y = { "f32", t.B * t.N, output = true } }
  end,
  args = function(t, T) return { T.x, T.y } end,
  reference = function(t, In, Out)
    local x, y, N = In.x, Out.y, t.N
    for r = 0, t.B - 1 do
      local base, m = r * N, -math.huge
      for j = 0, N - 1 do if x[base + j] > m then m = x[base + j] end end
      local s = 0
      for j = 0, N - 1 do local e = math.exp(x[base + j] - m); y[base + j] = e; s = s + e end
      for j = 0, N - 1 do y[base + j] = y[base + j] / s end
    end
  end,
  bytes = function(t) return 4 * 2 * t.B * t.N end,
}
