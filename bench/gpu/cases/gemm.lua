-- gemm: the Hopper GEMM (kernels/gemm.lua: TMA, wgmma, mbarrier pipeline, 2-CTA clusters with
-- multicast, persistent). C = A * B^T, A M x K and B N x K row-major bf16, C M x N bf16 (f32
-- accumulation). Reference: the same product in f64 (cuBLAS DGEMM on the GPU). Tolerance: the
-- default bf16 1e-2 (the output's rounding, 2^-9 relative, dominates). cuBLAS runs the same
-- bf16 x bf16 -> bf16 product. The third shape has partial tiles at every edge and an odd number
-- of tile-rows (ceil(1100 / 128) = 9: the last cluster's second CTA computes a tile entirely
-- outside C); so has the first emulator shape (M = 300: 3 tile-rows).
-- The kernel declares its tensors and the maps over them: the case passes the tensors.
return {
  script = "kernels/gemm.lua",
  kernel = "gemm",
  configs = { { M = 8192, N = 8192, K = 8192 }, { M = 4096, N = 4096, K = 4096 }, { M = 1100, N = 1000, K = 1000 } },
  -- the same 8192^3 product with one template changed (no multicast; clusters of 4; bands of 16
  -- cluster-rows), run after every other case while the budget lasts: which way the tiling could go
  later = { { M = 8192, N = 8192, K = 8192, CLUSTER = 1 }, { M = 8192, N = 8192, K = 8192, CLUSTER = 4 },
            { M = 8192, N = 8192, K = 8192, GROUP = 16 } },
  emu = { { M = 300, N = 264, K = 136, SMS = 2 }, { M = 72, N = 136, K = 200, SMS = 2, CLUSTER = 1 } },
  sets = 2,
  runs = 20,
  tensors = function(t)
    return { A = { "bf16", t.M * t.K }, B = { "bf16", t.N * t.K }, C = { "bf16", t.M * t.N, output = true } }
  end,
  args = function(t, T) return { T.A, T.B, T.C } end,
  reference = function(t, In, Out, ctx)
    ctx.gemm_f64 { A = In.A, B = In.B, C = Out.C, M = t.M, N = t.N, K = t.K, b_layout = "NK" }
  end,
  flops = function(t) return 2 * t.M * t.N * t.K end,
  cublas = function(t) return { M = t.M, N = t.N, K = t.K, a = "bf16", b = "bf16", c = "bf16", b_layout = "NK", A = "A", B = "B" } end,
}
