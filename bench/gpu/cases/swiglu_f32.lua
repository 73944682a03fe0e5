-- swiglu_f32 (f32 in and out): out = silu(gate) * up over M x N; the uneven shape leaves a
-- partial last vector. Tolerance: the default f32 1e-5 (ex2.approx and rcp.approx: a few ulp).
return {
  script = "kernels/swiglu.lua",
  kernel = "swiglu_f32",
  configs = { { M = 4096, N = 14336 }, { M = 1000, N = 1001 } },
  emu = { { M = 3, N = 14336 }, { M = 7, N = 1001 } },
  tensors = function(t)
    local n = t.M * t.N
    return { gate = { "f32", n, fill = { -6, 6 } }, up = { "f32", n, fill = { -2, 2 } }, out = { "f32", n, output = true } }
  end,
  args = function(t, T) return { T.gate, T.up, T.out } end,
  reference = function(t, In, Out)
    local g, u, o = In.gate, In.up, Out.out
    for i = 0, t.M * t.N - 1 do local x = g[i]; o[i] = x / (1 + math.exp(-x)) * u[i] end
  end,
  bytes = function(t) return 4 * 3 * t.M * t.N end,
}
