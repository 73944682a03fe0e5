-- gemm_fp8_sm100: the block-scaled MXFP8 GEMM on Blackwell (kernels/gemm_fp8_sm100.lua):
-- C = (A . SA) * (B . SB)^T, A M x K and B N x K row-major e4m3, one ue8m0 scale factor (a power
-- of two) per 32 elements of a row of A and of B, C M x N bf16 (f32 accumulation). sm_100a: a
-- compute capability 10.0 device only. The scale factors are in the 128 x 4 atom layout the
-- kernel's header defines (the MX layout of cuBLAS and CUTLASS): the factor of row r, k-block j at
-- byte 512 (floor(r / 128) KT + floor(j / 4)) + 16 (r % 32) + 4 floor((r % 128) / 32) + j % 4, KT =
-- ceil(K / 128). Inputs: e4m3 codes of values in [-1, 1], scale codes of 2^-3 .. 2^3. Reference:
-- A and B multiplied by their factors in f64 (exact: powers of two), then one f64 product (cuBLAS
-- DGEMM on the GPU). Tolerance: the default bf16 1e-2 (every product of e4m3 values and powers of
-- two is exact in f32; the output's rounding dominates). No cuBLAS ratio: run.lua's cuBLAS call is
-- cublasGemmEx, which has no block-scaled fp8; the row gives TFLOPS.
local function sf_byte(r, j, KT)
  local rr = r % 128
  return 512 * (math.floor(r / 128) * KT + math.floor(j / 4)) + 16 * (rr % 32) + 4 * math.floor(rr / 32) + j % 4
end
local function cdiv(a, b) return math.ceil(a / b) end
-- X (rows x K, f64) times its scale factors SF (f64 values) into a new f64 array
local function scaled(X, SF, rows, K)
  local ffi = require "ffi"
  local out = ffi.new("double[?]", rows * K)
  local KT = cdiv(K, 128)
  for r = 0, rows - 1 do
    for j = 0, cdiv(K, 32) - 1 do
      local f = SF[sf_byte(r, j, KT)]
      local k1 = math.min(K, 32 * j + 32) - 1
      for k = 32 * j, k1 do out[r * K + k] = X[r * K + k] * f end
    end
  end
  return out
end
return {
  script = "kernels/gemm_fp8_sm100.lua",
  kernel = "gemm_fp8_sm100",
  configs = { { M = 8192, N = 8192, K = 8192 }, { M = 4096, N = 4096, K = 4096 }, { M = 1100, N = 1000, K = 1024 } },
  later = { { M = 8192, N = 8192, K = 8192, CLUSTER = 4 } },
  emu = { { M = 300, N = 200, K = 304 }, { M = 520, N = 136, K = 144, CLUSTER = 4 } },
  sets = 2,
  runs = 20,
  tensors = function(t)
    local sa, sb = 512 * cdiv(t.M, 128) * cdiv(t.K, 128), 512 * cdiv(t.N, 128) * cdiv(t.K, 128)
    return { A = { "e4m3", t.M * t.K }, B = { "e4m3", t.N * t.K },
             SFA = { "ue8m0", sa, fill = { 0.125, 8 } }, SFB = { "ue8m0", sb, fill = { 0.125, 8 } },
             C = { "bf16", t.M * t.N, output = true } }
  end,
  args = function(t, T) return { T.A, T.B, T.SFA, T.SFB, T.C } end,
  reference = function(t, In, Out, ctx)
    local A, B = scaled(In.A, In.SFA, t.M, t.K), scaled(In.B, In.SFB, t.N, t.K)
    ctx.gemm_f64 { A = A, B = B, C = Out.C, M = t.M, N = t.N, K = t.K, b_layout = "NK" }
  end,
  flops = function(t) return 2 * t.M * t.N * t.K end,
}
