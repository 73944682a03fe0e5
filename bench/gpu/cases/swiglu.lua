-- swiglu (bf16 in and out, f32 math): out = silu(gate) * up, silu(g) = g / (1 + exp(-g)), over
-- M x N. The uneven shape (M*N not a multiple of the 8-element vector) checks the tail element path.
-- swiglu_f32.lua is the same case for the f32 kernel: it takes `variant` below.

-- the case of kernel `kernel` of kernels/swiglu.lua, whose gate, up and out are `dtype` (bytes each)
local function variant(kernel, dtype, bytes)
  return {
    script = "kernels/swiglu.lua",
    kernel = kernel,
    configs = { { M = 4096, N = 14336 }, { M = 1000, N = 1001 } },
    emu = { { M = 3, N = 14336 }, { M = 7, N = 1001 } },
    tensors = function(t)
      local n = t.M * t.N
      return { gate = { dtype, n, fill = { -6, 6 } }, up = { dtype, n, fill = { -2, 2 } }, out = { dtype, n, output = true } }
    end,
    args = function(t, T) return { T.gate, T.up, T.out } end,
    reference = function(t, In, Out)
      local g, u, o = In.gate, In.up, Out.out
      for i = 0, t.M * t.N - 1 do local x = g[i]; o[i] = x / (1 + math.exp(-x)) * u[i] end
    end,
    bytes = function(t) return bytes * 3 * t.M * t.N end,
  }
end

local case = variant("swiglu", "bf16", 2)
case.variant = variant
return case
