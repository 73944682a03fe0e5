-- gemm_mma: C = A * B^T, A M x K and B N x K row-major bf16, C M x N f32 (mma.sync m16n8k16, f32
-- accumulation). Reference: the same product in f64 (cuBLAS DGEMM on the GPU). Tolerance: 1e-4,
-- not f32's 1e-5: the tensor cores add each m16n8k16 step into the f32 accumulator with truncation
-- (round toward zero, measured on V100..A100; Hopper's is not documented), an error of up to an ulp
-- of the running sum, biased against its sign, over K/16 = 512 steps: about 2^-24 K/16 / sqrt(3) =
-- 1.8e-5 relative for K = 8192 (round-to-nearest would give ~1e-7; the emulator, which rounds to
-- nearest, shows ~7e-8 at K = 264). A wrong tile or k-slice is off by O(1).
-- The second shape has partial tiles at every edge.
return {
  script = "kernels/gemm_mma.lua",
  kernel = "gemm_mma",
  configs = { { M = 8192, N = 8192, K = 8192 }, { M = 1000, N = 1000, K = 1000 } },
  emu = { { M = 200, N = 136, K = 264 }, { M = 256, N = 128, K = 64 } },
  sets = 2,
  runs = 20,
  tensors = function(t)
    return { A = { "bf16", t.M * t.K }, B = { "bf16", t.N * t.K }, C = { "f32", t.M * t.N, output = true } }
  end,
  args = function(t, T) return { T.A, T.B, T.C } end,
  tolerance = { C = 1e-4 },
  reference = function(t, In, Out, ctx)
    ctx.gemm_f64 { A = In.A, B = In.B, C = Out.C, M = t.M, N = t.N, K = t.K, b_layout = "NK" }
  end,
  flops = function(t) return 2 * t.M * t.N * t.K end,
  cublas = function(t) return { M = t.M, N = t.N, K = t.K, a = "bf16", b = "bf16", c = "f32", b_layout = "NK", A = "A", B = "B" } end,
}
