-- flash_attention: forward attention on Hopper (kernels/flash_attention.lua): Q, K, V, O are
-- [BH][S][D] bf16, LSE [BH][S] f32 (natural log), O = softmax(Q K^T / sqrt(D)) V, causal or not.
-- Reference, in f64 on the CPU, row by row from the definition (scores, masked softmax, log-sum-exp,
-- P V): every row at the emulator's sizes; at the GPU's, ROWS rows picked at random per input set
-- (ctx.sample: the error norm over their elements; the NaN/Inf check -- every element written --
-- over all of O and LSE). Tolerances: O the default bf16 1e-2; LSE 1e-4 instead of f32's 1e-5:
-- ex2.approx / lg2.approx (about 2 ulp each) and the f32 row sums of up to S terms.
-- FLOPs: 4 BH S^2 D (two products), halved for causal.
-- The GPU shapes are FlashAttention-3's benchmark (its paper, Shah et al. 2024, figure 5: 16k
-- tokens, batch x seqlen = 16384, heads x D = 2048, bf16 forward on an H100 80GB SXM5), so the
-- `vs` column is the ratio to FA3's published TFLOPS at the same shape; an H200 has the H100's SMs
-- and clocks (the same dense bf16 peak), and attention at these sizes is bound by the tensor cores,
-- not memory. The last config has partial tiles (S not a multiple of 128), is causal and has no
-- published figure.
local ROWS = 192
local FA3 = {                         -- [D][causal][S]: TFLOPS, FA3 paper figure 5 (H100 SXM5)
  [64] = { [0] = { [2048] = 460, [8192] = 496 }, [1] = { [2048] = 371, [8192] = 460 } },
  [128] = { [0] = { [2048] = 625, [8192] = 646 }, [1] = { [2048] = 521, [8192] = 602 } },
}
-- The kernel declares its tensors and the maps over them: the case passes the tensors.
return {
  script = "kernels/flash_attention.lua",
  kernel = "flash_attention",
  configs = { { BH = 128, S = 2048, D = 128, CAUSAL = 0 }, { BH = 128, S = 2048, D = 128, CAUSAL = 1 },
              { BH = 32, S = 8192, D = 128, CAUSAL = 0 }, { BH = 256, S = 2048, D = 64, CAUSAL = 0 },
              { BH = 64, S = 8192, D = 64, CAUSAL = 1 }, { BH = 6, S = 1000, D = 64, CAUSAL = 1 } },
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
  args = function(t, T) return { T.Q, T.K, T.V, T.O, T.LSE } end,
  reference = function(t, In, Out, ctx)
    local ffi = require "ffi"
    local S, D, BH = t.S, t.D, t.BH
    local scale = 1 / math.sqrt(D)
    local exp, log = math.exp, math.log
    local p = ffi.new("double[?]", S)
    local o = ffi.new("double[?]", D)
    -- row i of head h: O[h][i][*] and LSE[h][i]
    local function row(h, i)
      local q = In.Q + (h * S + i) * D
      local last = (t.CAUSAL == 1) and i or S - 1
      local m = -math.huge
      for j = 0, last do
        local k, x = In.K + (h * S + j) * D, 0
        for d = 0, D - 1 do x = x + q[d] * k[d] end
        x = x * scale
        p[j] = x
        if x > m then m = x end
      end
      local sum = 0
      for j = 0, last do local e = exp(p[j] - m); p[j] = e; sum = sum + e end
      for d = 0, D - 1 do o[d] = 0 end
      for j = 0, last do
        local v, w = In.V + (h * S + j) * D, p[j] / sum
        for d = 0, D - 1 do o[d] = o[d] + w * v[d] end
      end
      local at = (h * S + i) * D
      for d = 0, D - 1 do Out.O[at + d] = o[d] end
      Out.LSE[h * S + i] = m + log(sum)
      return at
    end
    if BH * S * S * D <= ctx.cpu_macs or BH * S <= ROWS then
      for h = 0, BH - 1 do for i = 0, S - 1 do row(h, i) end end
    else
      local seen = {}
      for _ = 1, ROWS do
        local r = ctx.pick(BH * S)
        while seen[r] do r = (r + 1) % (BH * S) end
        seen[r] = true
        local h, i = math.floor(r / S), r % S
        local at = row(h, i)
        for d = 0, D - 1 do ctx.sample("O", at + d) end
        ctx.sample("LSE", h * S + i)
      end
    end
  end,
  tolerance = { LSE = 1e-4 },
  flops = function(t) return 4 * t.BH * t.S * t.S * t.D / (t.CAUSAL == 1 and 2 or 1) end,
  -- FA3's published TFLOPS at this shape (16k tokens, 2048 hidden), or nil
  published = function(t)
    local f = t.BH * t.S * t.D == 16384 * 2048 and FA3[t.D] and FA3[t.D][t.CAUSAL][t.S]
    if f then return f, "FA3 (paper, H100)" end
  end,
}
