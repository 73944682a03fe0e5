-- gemm_mma: C = A * B^T, A M x K and B N x K row-major bf16, C M x N f32 (mma.sync m16n8k16, f32
-- accumulation). Reference: the same product in f64 (cuBLAS DGEMM on the GPU). Tolerance: the
-- default f32 1e-5 -- f32 accumulation over K = 8192 of products in [-1, 1] stays near 1e-6.
-- The second shape has partial tiles at every edge.
return {
  script = "kernels/gemm_mma.lua",
  kernel = "gemm_mma",
  configs = { { M = 8192, N = 8192, K = 8192 }, { M = 1000, N = 1000, K = 1000 } },
  sets = 2,
  runs = 20,
  tensors = function(t)
    return { A = { "bf16", t.M * t.K }, B = { "bf16", t.N * t.K }, C = { "f32", t.M * t.N, output = true } }
  end,
  args = function(t, T) return { T.A, T.B, T.C } end,
  reference = function(t, In, Out, ctx)
    ctx.gemm_f64 { A = In.A, B = In.B, C = Out.C, M = t.M, N = t.N, K = t.K, b_layout = "NK" }
  end,
  flops = function(t) return 2 * t.M * t.N * t.K end,
  cublas = function(t) return { M = t.M, N = t.N, K = t.K, a = "bf16", b = "bf16", c = "f32", b_layout = "NK", A = "A", B = "B" } end,
}
