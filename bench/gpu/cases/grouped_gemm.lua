-- grouped_gemm: the MoE GEMM (kernels/grouped_gemm.lua): for every group g, rows offs[g] ..
-- offs[g+1] of A (MTOT x K bf16) times B[g]^T (B is G x N x K bf16) into the same rows of C
-- (MTOT x N bf16). The group sizes are fixed here (uneven, one group empty, none a multiple of
-- the 128-row tile) and written into offs by `args`; the reference recomputes them from t and
-- multiplies each group in f64 (cuBLAS DGEMM per group). Tolerance: the default bf16 1e-2.
local function offsets(t)
  local w, sum = {}, 0
  for g = 0, t.G - 1 do w[g] = (g == 1) and 0 or ((g * 37) % 11 + 3); sum = sum + w[g] end
  local offs, acc = { [0] = 0 }, 0
  for g = 0, t.G - 1 do
    acc = acc + w[g]
    offs[g + 1] = (g == t.G - 1) and t.MTOT or math.floor(t.MTOT * acc / sum)
  end
  return offs
end
return {
  script = "kernels/grouped_gemm.lua",
  kernel = "grouped_gemm",
  configs = { { G = 8, MTOT = 16384, N = 4096, K = 4096 }, { G = 64, MTOT = 32768, N = 2048, K = 1024 },
              { G = 5, MTOT = 1000, N = 1000, K = 1000 } },
  emu = { { G = 3, MTOT = 200, N = 264, K = 136, SMS = 3 }, { G = 5, MTOT = 333, N = 72, K = 64, BM = 64, BN = 64, SMS = 4 } },
  sets = 2,
  runs = 20,
  tensors = function(t)
    return { A = { "bf16", t.MTOT * t.K }, B = { "bf16", t.G * t.N * t.K }, C = { "bf16", t.MTOT * t.N, output = true },
             offs = { "u32", t.G + 1 } }
  end,
  args = function(t, T, ctx)
    local o = offsets(t)
    local v = {}
    for g = 0, t.G do v[g + 1] = o[g] end
    T.offs:write(v)
    return { T.A, T.B, T.C, T.offs }         -- the kernel's declared maps are built from A and B
  end,
  reference = function(t, In, Out, ctx)
    local o = offsets(t)
    for g = 0, t.G - 1 do
      local m = o[g + 1] - o[g]
      if m > 0 then
        ctx.gemm_f64 { A = In.A + o[g] * t.K, B = In.B + g * t.N * t.K, C = Out.C + o[g] * t.N, M = m, N = t.N, K = t.K, b_layout = "NK" }
      end
    end
  end,
  flops = function(t) return 2 * t.MTOT * t.N * t.K end,
  note = "group sizes fixed by the case (one empty group); offs written by args",
}
