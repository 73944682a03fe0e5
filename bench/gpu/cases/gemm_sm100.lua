-- gemm_sm100: the Blackwell GEMM (kernels/gemm_sm100.lua: CTA pairs with tcgen05.mma cta_group::2
-- of M = 256, TMA into a 6-stage ring, a double-buffered tensor-memory accumulator, an epilogue
-- warpgroup through TMA stores, cluster launch control). C = A * B^T, A M x K and B N x K row-major
-- bf16, C M x N bf16 (f32 accumulation). sm_100a: it runs on a compute capability 10.0 device only
-- (B200, GB200); elsewhere its rows say "another architecture". Reference: the same product in f64
-- (cuBLAS DGEMM on the GPU). Tolerance: the default bf16 1e-2 (the output's rounding, 2^-9
-- relative, dominates). cuBLAS runs the same bf16 x bf16 -> bf16 product.
-- Target (issue 17): at cuBLAS or above at 8192^3 (the row's `vs` at least 1.00).
-- The third shape has partial tiles at every edge and an odd number of pair tile-rows
-- (ceil(1100 / 256) = 5); so has the first emulator shape (M = 300: the second pair's rows past M).
return {
  script = "kernels/gemm_sm100.lua",
  kernel = "gemm_sm100",
  configs = { { M = 8192, N = 8192, K = 8192 }, { M = 4096, N = 4096, K = 4096 }, { M = 1100, N = 1000, K = 1000 } },
  -- the same 8192^3 product with one template changed (two pairs a cluster, B multicast between
  -- them; half-width tiles; a shorter ring; one CTA alone, cta_group::1; bands of 16 cluster-rows),
  -- after every other case while the budget lasts
  later = { { M = 8192, N = 8192, K = 8192, CLUSTER = 4 }, { M = 8192, N = 8192, K = 8192, BN = 128 },
            { M = 8192, N = 8192, K = 8192, STAGES = 4 }, { M = 8192, N = 8192, K = 8192, CLUSTER = 1, BN = 128 },
            { M = 8192, N = 8192, K = 8192, GROUP = 16 } },
  emu = { { M = 300, N = 200, K = 136, BN = 64 }, { M = 520, N = 136, K = 72, BN = 64, CLUSTER = 4 } },
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
  goal = function(t)
    if t.M == 8192 and t.N == 8192 and t.K == 8192 then return { cublas = 1.0, text = "cuBLAS or above at 8192^3" } end
  end,
}
