-- flash_attention: forward attention on Hopper (kernels/flash_attention.lua): Q, K, V, O are
-- [BH][S][D] bf16, LSE [BH][S] f32 (natural log), O = softmax(Q K^T / sqrt(D)) V, causal or not.
-- Reference, in f64: the scores Q K^T per head (cuBLAS DGEMM, batched over BH), the masked softmax
-- and log-sum-exp of each row on the CPU, then P V (batched DGEMM). Tolerances: O the default bf16
-- 1e-2; LSE 1e-4 instead of f32's 1e-5: ex2.approx / lg2.approx (about 2 ulp each) and the f32
-- row sums of up to S terms. The last config has partial tiles (S not a multiple of 128) and is
-- causal. FLOPs: 4 BH S^2 D (two products), halved for causal.
local function fa_maps(t, ctx, T)
  local dims = { t.D, t.S, t.BH }
  return ctx.tensormap(T.Q, { dims = dims, box = { 64, t.BQ, 1 }, swizzle = "128B" }),
         ctx.tensormap(T.K, { dims = dims, box = { 64, t.BKV, 1 }, swizzle = "128B" }),
         ctx.tensormap(T.V, { dims = dims, box = { 64, t.BKV, 1 }, swizzle = "128B" }),
         ctx.tensormap(T.O, { dims = dims, box = { 64, 64, 1 }, swizzle = "128B" })
end
return {
  script = "kernels/flash_attention.lua",
  kernel = "flash_attention",
  configs = { { BH = 16, S = 2048, D = 128, CAUSAL = 0 }, { BH = 16, S = 2048, D = 128, CAUSAL = 1 },
              { BH = 32, S = 1024, D = 64, CAUSAL = 0 }, { BH = 6, S = 1000, D = 64, CAUSAL = 1 } },
  -- emu: nkv = 1 and 2 blocks a tile, and (S = 330, causal) 1 to 3: the overlapped loop's prologue,
  -- its blocks and its epilogue, with both consumer warpgroups taking turns
  emu = { { BH = 2, S = 200, D = 64, CAUSAL = 0 }, { BH = 1, S = 130, D = 128, CAUSAL = 1 },
          { BH = 1, S = 330, D = 128, CAUSAL = 1 } },
  sets = 1,
  runs = 20,
  tensors = function(t)
    local n = t.BH * t.S * t.D
    return { Q = { "bf16", n }, K = { "bf16", n }, V = { "bf16", n }, O = { "bf16", n, output = true },
             LSE = { "f32", t.BH * t.S, output = true } }
  end,
  args = function(t, T, ctx)
    local q, k, v, o = fa_maps(t, ctx, T)
    return { q, k, v, o, T.LSE }
  end,
  reference = function(t, In, Out, ctx)
    local ffi = require "ffi"
    local S, D, BH = t.S, t.D, t.BH
    local P = ffi.new("double[?]", BH * S * S)
    ctx.gemm_f64 { A = In.Q, B = In.K, C = P, M = S, N = S, K = D, b_layout = "NK", batch = BH }
    local scale = 1 / math.sqrt(D)
    local exp, log = math.exp, math.log
    for h = 0, BH - 1 do
      for i = 0, S - 1 do
        local row = h * S * S + i * S
        local last = (t.CAUSAL == 1) and i or S - 1
        local m = -math.huge
        for j = 0, last do local x = P[row + j] * scale; if x > m then m = x end end
        local sum = 0
        for j = 0, last do local e = exp(P[row + j] * scale - m); P[row + j] = e; sum = sum + e end
        for j = 0, last do P[row + j] = P[row + j] / sum end
        for j = last + 1, S - 1 do P[row + j] = 0 end
        Out.LSE[h * S + i] = m + log(sum)
      end
    end
    ctx.gemm_f64 { A = P, B = In.V, C = Out.O, M = S, N = D, K = S, b_layout = "KN", batch = BH }
  end,
  tolerance = { LSE = 1e-4 },
  flops = function(t) return 4 * t.BH * t.S * t.S * t.D / (t.CAUSAL == 1 and 2 or 1) end,
}
