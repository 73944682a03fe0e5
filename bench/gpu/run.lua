-- bench/gpu/run.lua -- the GPU check: every case of bench/gpu/cases/ loaded, run on random inputs,
-- checked element by element against a double-precision reference, then timed with CUDA events,
-- and one table printed. The case format and the options are in bench/gpu/README.md.
-- Exit status: 0 every check passed; 1 a check failed or a case raised an error; 2 no CUDA driver.
-- `--device emu`: every case's check on the CPU emulator (ptxlua.emu) at the case's small `emu`
-- configs, the reference on the CPU, no timing and no cuBLAS -- the cases proven without a GPU.
local ffi = require "ffi"
local bit = require "bit"
local ptx = require "ptxlua"
local cuda = require "ptxlua.cuda"
local core = require "ptxlua.core"

local fmt = string.format
local HERE = (arg and arg[0] or "bench/gpu/run.lua"):match("^(.*)/[^/]*$") or "."
local ROOT = os.getenv("PTXLUA_ROOT") or (HERE .. "/../..")

---------------------------------------------------------------------------------------------------
-- options
---------------------------------------------------------------------------------------------------
local O = { sets = nil, runs = 50, warmup = 5, cases = HERE .. "/cases", cublas = true, seed = 1234, budget = 270,
            quick = false, copy_mb = 1024, only = {}, set = {}, device = "cuda", checks = false, pending = false,
            limit = 2e9, cpu_macs = 2 ^ 28 }
do
  local a, i = arg or {}, 1
  local function val() i = i + 1; if a[i] == nil then io.stderr:write("run.lua: ", a[i - 1], " needs a value\n"); os.exit(2) end return a[i] end
  while a[i] do
    local s = a[i]
    if s == "--quick" then O.quick = true
    elseif s == "--sets" then O.sets = tonumber(val())
    elseif s == "--runs" then O.runs = tonumber(val())
    elseif s == "--warmup" then O.warmup = tonumber(val())
    elseif s == "--cases" then O.cases = val()
    elseif s == "--no-cublas" then O.cublas = false
    elseif s == "--seed" then O.seed = tonumber(val())
    elseif s == "--budget" then O.budget = tonumber(val())
    elseif s == "--copy-mb" then O.copy_mb = tonumber(val())
    elseif s == "--device" then
      O.device = val()
      if O.device ~= "cuda" and O.device ~= "emu" then io.stderr:write("run.lua: --device cuda|emu\n"); os.exit(2) end
    elseif s == "--checks" then O.checks = true
    elseif s == "--pending" then O.pending = true
    elseif s == "--limit" then O.limit = tonumber(val())
    elseif s == "--cpu-macs" then O.cpu_macs = tonumber(val())
    elseif s == "--set" then
      local n, v = val():match("^([%a_][%w_]*)=(.+)$")
      if not n then io.stderr:write("run.lua: --set NAME=VALUE\n"); os.exit(2) end
      O.set[n] = tonumber(v) or v
    elseif s:sub(1, 2) == "--" then io.stderr:write("run.lua: unknown option ", s, " (bench/gpu/README.md)\n"); os.exit(2)
    else O.only[#O.only + 1] = s end
    i = i + 1
  end
  if O.quick then O.runs = math.min(O.runs, 10); O.warmup = math.min(O.warmup, 2) end
end

local EMU = O.device == "emu"
local dev
if EMU then
  dev = require("ptxlua.emu").device("emu")
else
  local ok_drv, why = cuda.available()
  if not ok_drv then
    print(tostring(why):match("^no CUDA driver") and why or ("no CUDA driver: " .. tostring(why)))
    os.exit(2)
  end
  dev = cuda.device(0)
end
local MOCK = tostring(dev):find("mock", 1, true) ~= nil
-- host CPU seconds by phase, and the tensor elements they went over (printed at the end)
local HOST = { fill = 0, poison = 0, ref = 0, check = 0, elems = 0 }
local T0 = os.clock()
local function wall() return os.time() end
local START = wall()

---------------------------------------------------------------------------------------------------
-- host buffers and element conversions
---------------------------------------------------------------------------------------------------
local function addr(p) return tonumber(ffi.cast("uintptr_t", p)) end
local function check(okv, err) if not okv then error(err, 0) end return okv end

-- bytes between a host buffer and a device array: one copy each way (Array.upload_from /
-- download_to of ptxlua.cuda: the driver's copy; of ptxlua.emu: the emulator's memory)
local function upload(arr, buf, bytes) arr:upload_from(buf, bytes) end
local function download(buf, arr, bytes) arr:download_to(buf, bytes) end
local function sync() if not EMU then check(core.cuda_sync()) end end

local SIZE = { f64 = 8, f32 = 4, f16 = 2, bf16 = 2, u8 = 1, s8 = 1, b8 = 1, u16 = 2, s16 = 2, b16 = 2,
               u32 = 4, s32 = 4, b32 = 4, u64 = 8, s64 = 8, b64 = 8, e4m3 = 1, e5m2 = 1, ue8m0 = 1, ue4m3 = 1 }
local CTYPE = { f64 = "double", f32 = "float", f16 = "uint16_t", bf16 = "uint16_t", u8 = "uint8_t", s8 = "int8_t",
                b8 = "uint8_t", u16 = "uint16_t", s16 = "int16_t", b16 = "uint16_t", u32 = "uint32_t", s32 = "int32_t",
                b32 = "uint32_t", u64 = "uint64_t", s64 = "int64_t", b64 = "uint64_t", e4m3 = "uint8_t", e5m2 = "uint8_t",
                ue8m0 = "uint8_t", ue4m3 = "uint8_t" }
-- the 8-bit floating-point types the tensor cores read (inputs only): codes, decoded by ptxlua.dtypes
local NARROW = { e4m3 = true, e5m2 = true, ue8m0 = true, ue4m3 = true }
local FLOAT = { f64 = true, f32 = true, f16 = true, bf16 = true }
local TOL = { f64 = 1e-12, f32 = 1e-5, tf32 = 1e-3, f16 = 2e-3, bf16 = 1e-2, e4m3 = 1e-1, e5m2 = 1e-1 }

-- the 16-bit float formats, each { from = bits -> value, to = v -> bits rounded to nearest even
-- and the value they stand for, inf = the exponent field's mask (all ones: Inf and NaN) }.
-- Arithmetic only: type punning through a float* and a uint32_t* of one box is not safe under the
-- JIT (its alias analysis takes pointers of different types to different memory, so a compiled loop
-- reads a stale box).
local function half_format(ebits, mbits)
  local munit, emax = 2 ^ mbits, 2 ^ ebits - 1
  local bias = 2 ^ (ebits - 1) - 1
  local sub = 2 ^ (1 - bias - mbits)                        -- a subnormal's unit: 2^-133 (bf16), 2^-24 (f16)
  local inf = emax * munit                                  -- 0x7F80 (bf16), 0x7C00 (f16)
  local over = (2 - 2 ^ -(mbits + 1)) * 2 ^ bias            -- halfway past the largest finite: rounds to Inf
  local F = { inf = inf }
  function F.from(h)
    local s = bit.band(h, 0x8000) ~= 0 and -1 or 1
    local e = bit.band(bit.rshift(h, mbits), emax)
    local m = bit.band(h, munit - 1)
    if e == 0 then return s * m * sub end
    if e == emax then return m == 0 and s * math.huge or 0 / 0 end
    return s * (1 + m / munit) * 2 ^ (e - bias)
  end
  function F.to(v)
    if v ~= v then return inf + munit / 2, v end            -- the quiet NaN 0x7FC0 (bf16), 0x7E00 (f16)
    local s = (v < 0 or 1 / v < 0) and 0x8000 or 0
    local a = math.abs(v)
    if a >= over then return s + inf, s ~= 0 and -math.huge or math.huge end
    local q
    if a < 2 ^ (1 - bias) then q = a / sub                  -- subnormal: units of sub
    else
      local m, e = math.frexp(a)                            -- a = m * 2^e, 0.5 <= m < 1
      q = (m * 2 * munit - munit) + (e + bias - 1) * munit  -- (exponent field << mbits) + mantissa, fractional
    end
    local f = math.floor(q)
    local r = q - f
    if r > 0.5 or (r == 0.5 and f % 2 == 1) then f = f + 1 end
    local h = s + f
    return h, F.from(h)
  end
  return F
end
local HALF = { bf16 = half_format(8, 7), f16 = half_format(5, 10) }

-- Everything per element below is a plain loop over raw host buffers (FFI cdata) -- no Lua
-- tables, closures or array-API calls per element: each tensor has one host buffer of its own
-- dtype for the whole config; inputs are generated straight into it and uploaded in one copy;
-- outputs are poisoned in it (memset) and uploaded, read back into it in one copy and compared
-- against the reference in one loop. A few ns an element (bench/gpu/README.md, "Host time").

-- Host buffers are pooled across configs and cases: fresh memory costs a page fault per 4 KiB
-- (measured at up to 5 ns a byte on a loaded VM), more than everything else here; a buffer taken
-- from the pool is reused as is (inputs and read-backs overwrite all of it; references are zeroed).
local POOL, TAKEN = {}, {}
local function host_buffer(bytes)
  local best
  for i, b in ipairs(POOL) do if b.bytes >= bytes and (not best or b.bytes < POOL[best].bytes) then best = i end end
  local b = best and table.remove(POOL, best) or { bytes = bytes, p = ffi.new("uint8_t[?]", bytes) }
  TAKEN[#TAKEN + 1] = b
  return b.p
end
local function release_buffers()
  for i = #TAKEN, 1, -1 do POOL[#POOL + 1] = TAKEN[i]; TAKEN[i] = nil end
end

-- the value of every bf16 / f16 bit pattern (0 for Inf/NaN patterns: those are never looked up)
local HALF_VAL = {}
local function half_values(dtype)
  if not HALF_VAL[dtype] then
    local t = ffi.new("double[65536]")
    local conv, emask = HALF[dtype].from, HALF[dtype].inf
    for h = 0, 65535 do if bit.band(h, emask) ~= emask then t[h] = conv(h) end end
    HALF_VAL[dtype] = t
  end
  return HALF_VAL[dtype]
end

-- the random generator: Park-Miller, s -> s * 16807 mod (2^31 - 1), exact in doubles (period
-- 2^31 - 2; an LCG whose product passes 2^53 loses its low bits and cycles within ~10^4 values);
-- deterministic: the same inputs on every machine. Its state is threaded through the fills.
local PM_A, PM_M = 16807, 2147483647
local CHUNK = 16384                                   -- bf16 fill: floats per pass (in L1/L2)
local SCRATCH = ffi.new("float[?]", CHUNK)

-- random values into the host buffer raw (the tensor's dtype) and its f64 copy dbl (exactly the
-- stored values), then one upload; never 0. Returns the generator's state.
local function fill_input(arr, spec, raw, dbl, s)
  local dtype, n = spec[1], spec[2]
  local lo, hi = -1, 1
  if not FLOAT[dtype] then lo, hi = 0, 100 end
  if spec.fill then lo, hi = spec.fill[1], spec.fill[2] end
  local w, nonzero = hi - lo, lo / 2 + hi / 2 + 1e-3
  if dtype == "f32" or dtype == "f64" then
    local buf = ffi.cast(CTYPE[dtype] .. "*", raw)
    for i = 0, n - 1 do
      s = s * PM_A % PM_M
      local v = lo + w * (s / PM_M)
      if v == 0 then v = nonzero end
      buf[i] = v
      dbl[i] = buf[i]                                 -- the stored (rounded) value
    end
  elseif dtype == "bf16" then
    -- two passes per chunk, each its own loop (its own trace): f32 values (round to nearest even),
    -- then their bits rounded to bf16 (nearest even; finite inputs only). Reading one buffer as
    -- float* and uint32_t* inside one loop is what the JIT's type-based alias analysis gets wrong.
    local buf, val = ffi.cast("uint16_t*", raw), half_values("bf16")
    local f, u = SCRATCH, ffi.cast("uint32_t*", SCRATCH)
    local band, rshift = bit.band, bit.rshift
    for base = 0, n - 1, CHUNK do
      local c = math.min(CHUNK, n - base)
      for j = 0, c - 1 do
        s = s * PM_A % PM_M
        local v = lo + w * (s / PM_M)
        if v == 0 then v = nonzero end
        f[j] = v
      end
      for j = 0, c - 1 do
        local b = u[j]
        local h = rshift(b + 0x7FFF + band(rshift(b, 16), 1), 16)
        buf[base + j] = h
        dbl[base + j] = val[h]
      end
    end
  elseif NARROW[dtype] then
    -- a uniformly chosen code among the finite, nonzero codes whose value lies in [lo, hi] (values
    -- spread over the type's binades, as scaled low-precision data is)
    local DT = require "ptxlua.dtypes"
    local codes, vals = {}, {}
    for code = 0, 255 do
      local v = DT.decode(dtype, code)
      if v and v == v and v ~= 0 and v >= lo and v <= hi and math.abs(v) < math.huge then
        codes[#codes + 1] = code; vals[#vals + 1] = v
      end
    end
    if #codes == 0 then error(fmt("no %s value in [%g, %g]", dtype, lo, hi), 0) end
    local buf, nc = ffi.cast("uint8_t*", raw), #codes
    for i = 0, n - 1 do
      s = s * PM_A % PM_M
      local j = s % nc + 1
      buf[i] = codes[j]
      dbl[i] = vals[j]
    end
  else                                                -- f16 and the integers: per element, slower
    local buf = ffi.cast(CTYPE[dtype] .. "*", raw)
    for i = 0, n - 1 do
      s = s * PM_A % PM_M
      local v = lo + w * (s / PM_M)
      if not FLOAT[dtype] then v = math.floor(v) end
      if v == 0 then v = FLOAT[dtype] and nonzero or math.floor(nonzero + 1) end
      if dtype == "f16" then local h, x = HALF.f16.to(v); buf[i] = h; dbl[i] = x
      else buf[i] = v; dbl[i] = tonumber(buf[i]) end
    end
  end
  upload(arr, raw, n * SIZE[dtype])
  return s
end

-- all-ones bytes for floats (a NaN in f64, f32, f16 and bf16 alike; the checks test bits, so no
-- NaN is ever loaded as a Lua number), 0xA5.. for integers: one memset and one upload
local function poison(arr, spec, raw)
  local bytes = spec[2] * SIZE[spec[1]]
  ffi.fill(raw, bytes, FLOAT[spec[1]] and 0xFF or 0xA5)
  upload(arr, raw, bytes)
end

-- compare(raw, ref, n, idx, nidx) for each output dtype, specialised from one template so that
-- each dtype's loop is a trace of its own: the output read back into raw (its dtype) against the
-- f64 reference. Returns sum (out - ref)^2, sum ref^2, the number of elements not finite where the
-- reference is (an element the kernel never wrote is still poisoned), the first of them (-1: none).
-- idx (1-based int32 array of nidx indices): a sampled reference -- the finiteness check still
-- covers every element, the error only the sampled ones.
local CMP_SRC = [[
local ffi, bit, VAL = ...
local band = bit.band
local function acc(B, V, ref, i, num, den, bad, first)
  local b = B[$BI]
  if $NONFINITE then
    local r = ref[i]
    if r - r == 0 then bad = bad + 1; if first < 0 then first = i end end
  else
    local o, r = $VALUE, ref[i]
    local d = o - r
    num, den = num + d * d, den + r * r
  end
  return num, den, bad, first
end
return function(raw, ref, n, idx, nidx)
  local B, V = ffi.cast("$BITS*", raw), ffi.cast("$VALS*", raw)
  local num, den, bad, first = 0, 0, 0, -1
  if not idx then
    for i = 0, n - 1 do num, den, bad, first = acc(B, V, ref, i, num, den, bad, first) end
  else
    for i = 0, n - 1 do
      local b = B[$BI]
      if $NONFINITE then
        local r = ref[i]
        if r - r == 0 then bad = bad + 1; if first < 0 then first = i end end
      end
    end
    for k = 0, nidx - 1 do num, den = acc(B, V, ref, idx[k], num, den, 0, 0) end
  end
  return num, den, bad, first
end
]]
local CMP_KIND = {
  f32 = { BITS = "uint32_t", VALS = "float", BI = "i", NONFINITE = "band(b, 0x7F800000) == 0x7F800000", VALUE = "V[i]" },
  f64 = { BITS = "uint32_t", VALS = "double", BI = "2 * i + 1", NONFINITE = "band(b, 0x7FF00000) == 0x7FF00000", VALUE = "V[i]" },
  bf16 = { BITS = "uint16_t", VALS = "uint16_t", BI = "i", NONFINITE = "band(b, 0x7F80) == 0x7F80", VALUE = "VAL[b]" },
  f16 = { BITS = "uint16_t", VALS = "uint16_t", BI = "i", NONFINITE = "band(b, 0x7C00) == 0x7C00", VALUE = "VAL[b]" },
}
local CMP = {}
local function comparer(dtype)
  if not CMP[dtype] then
    local k = CMP_KIND[dtype] or { BITS = CTYPE[dtype], VALS = CTYPE[dtype], BI = "i", NONFINITE = "false", VALUE = "tonumber(b)" }
    local src = CMP_SRC:gsub("%$(%u+)", k)
    CMP[dtype] = assert(load(src, "=compare_" .. dtype))(ffi, bit, (dtype == "bf16" or dtype == "f16") and half_values(dtype) or nil)
  end
  return CMP[dtype]
end

-- the output read back in one copy and compared in one loop: rel = ||out - ref|| / ||ref||, the
-- number of elements not finite where the reference is, and the first of them (or nil)
local function check_output(arr, spec, raw, ref, sample)
  local dtype, n = spec[1], spec[2]
  download(raw, arr, n * SIZE[dtype])
  local idx, nidx
  if sample and #sample > 0 then
    nidx = #sample
    idx = ffi.new("int32_t[?]", nidx)
    for k = 1, nidx do idx[k - 1] = sample[k] end
  end
  local num, den, bad, first = comparer(dtype)(raw, ref, n, idx, nidx)
  local rel = den > 0 and math.sqrt(num / den) or math.sqrt(num)
  return rel, bad, first >= 0 and first or nil
end


---------------------------------------------------------------------------------------------------
-- events, the copy bandwidth, cuBLAS
---------------------------------------------------------------------------------------------------
local function median(t)
  local s = {}
  for i, v in ipairs(t) do s[i] = v end
  table.sort(s)
  local n = #s
  if n == 0 then return 0 / 0 end
  return n % 2 == 1 and s[(n + 1) / 2] or (s[n / 2] + s[n / 2 + 1]) / 2
end

local EV = {}
local function event(i) if not EV[i] then EV[i] = check(core.cuda_event()) end return EV[i] end
-- milliseconds of each of `runs` calls of fn, each between its own pair of events
local function time_runs(fn, runs, warmup)
  for _ = 1, warmup do fn() end
  check(core.cuda_sync())
  for r = 1, runs do
    check(core.cuda_record(event(2 * r - 1)))
    fn()
    check(core.cuda_record(event(2 * r)))
  end
  local ms = {}
  for r = 1, runs do ms[r] = check(core.cuda_elapsed(event(2 * r - 1), event(2 * r))) end
  return ms
end

local function copy_bandwidth()
  local bytes = O.copy_mb * 1048576
  local a, b = check(core.cuda_alloc(bytes)), check(core.cuda_alloc(bytes))
  check(core.cuda_dtod(a, b, bytes))
  local ms = time_runs(function() check(core.cuda_dtod(b, a, bytes)) end, 20, 2)
  core.cuda_free(a); core.cuda_free(b)
  return 2 * bytes / (median(ms) * 1e-3) / 1e9
end

ffi.cdef [[
typedef struct cublasContext *cublasHandle_t;
int cublasCreate_v2(cublasHandle_t *h);
int cublasGemmEx(cublasHandle_t h, int ta, int tb, int m, int n, int k, const void *alpha, const void *A, int at, int lda,
                 const void *B, int bt, int ldb, const void *beta, void *C, int ct, int ldc, int compute, int algo);
int cublasDgemm_v2(cublasHandle_t h, int ta, int tb, int m, int n, int k, const double *alpha, const double *A, int lda,
                   const double *B, int ldb, const double *beta, double *C, int ldc);
]]
local CUBLAS, HANDLE, CUBLAS_WHY
local function load_cublas()
  if EMU then CUBLAS_WHY = "emulator: CPU reference"; return end
  if not O.cublas then CUBLAS_WHY = "--no-cublas"; return end
  if MOCK then CUBLAS_WHY = "mock driver"; return end
  local home = os.getenv("CUDA_HOME") or "/usr/local/cuda"
  for _, name in ipairs { "cublas", "libcublas.so.13", "libcublas.so.12", home .. "/lib64/libcublas.so", "libcublas.so" } do
    local okl, lib = pcall(ffi.load, name)
    if okl then
      local h = ffi.new("cublasHandle_t[1]")
      local rc = lib.cublasCreate_v2(h)
      if rc == 0 then CUBLAS, HANDLE = lib, h[0]; return end
      CUBLAS_WHY = "cublasCreate failed (" .. rc .. ")"
      return
    end
  end
  CUBLAS_WHY = "no cuBLAS"
end
local CUDA_TYPE = { f32 = 0, f64 = 1, f16 = 2, bf16 = 14 }
local OP_N, OP_T = 0, 1

-- The row-major product C[M,N] = A[M,K] * B (B N x K with b_layout "NK", K x N with "KN") as a
-- column-major BLAS call: C^T = op(B) * A^T, i.e. (transa, transb, m, n, k, lda, ldb, ldc) of the
-- call whose first operand is B and second A. cublasGemmEx, cublasDgemm and the CPU reference
-- (blas_dgemm below, BLAS semantics) all take these, so `--device emu` proves the mapping.
local function blas_shape(g)
  local nk = (g.b_layout or "NK") == "NK"
  return nk and OP_T or OP_N, OP_N, g.N, g.M, g.K, nk and g.K or g.N, g.K, g.N
end

-- column-major DGEMM with the BLAS definition on host double pointers:
-- C[m x n, ldc] = alpha * op(X)[m x k] * op(Y)[k x n] + beta * C
local function blas_dgemm(ta, tb, m, n, k, alpha, X, ldx, Y, ldy, beta, C, ldc)
  for j = 0, n - 1 do
    for i = 0, m - 1 do
      local s = 0
      if ta == OP_T and tb == OP_N then for p = 0, k - 1 do s = s + X[p + i * ldx] * Y[p + j * ldy] end
      elseif ta == OP_N and tb == OP_N then for p = 0, k - 1 do s = s + X[i + p * ldx] * Y[p + j * ldy] end
      else error("blas_dgemm: transb must be N", 0) end
      local c = alpha * s
      if beta ~= 0 then c = c + beta * C[i + j * ldc] end
      C[i + j * ldc] = c
    end
  end
end

-- C[M,N] = A[M,K] * B on device addresses, through cuBLAS (bf16/f16/f32 operands, f32 compute)
local function cublas_gemm(g, A, B, C)
  local alpha, beta = ffi.new("float[1]", 1), ffi.new("float[1]", 0)
  local ta, tb, m, n, k, ldb, lda, ldc = blas_shape(g)
  local rc = CUBLAS.cublasGemmEx(HANDLE, ta, tb, m, n, k, alpha, ffi.cast("void*", B), CUDA_TYPE[g.b], ldb,
                                 ffi.cast("void*", A), CUDA_TYPE[g.a], lda, beta, ffi.cast("void*", C), CUDA_TYPE[g.c], ldc, 68, -1)
  if rc ~= 0 then error("cublasGemmEx failed (" .. rc .. ")", 0) end
end

-- the f64 reference product for cases: on the GPU through cublasDgemm, else on the CPU
local CPU_REF = false
local GEMM_SAMPLES = 4096                            -- output elements per product when sampled
local SAMPLER                                        -- set per config by run_config
local function gemm_f64(g)
  local M, N, K, batch = g.M, g.N, g.K, g.batch or 1
  local alpha, beta = g.alpha or 1, g.beta or 0
  local ta, tb, m, n, k, ldb, lda, ldc = blas_shape(g)
  if CUBLAS then
    local sa, sb, sc = M * K * 8, N * K * 8, M * N * 8
    local dA, dB, dC = check(core.cuda_alloc(sa * batch)), check(core.cuda_alloc(sb * batch)), check(core.cuda_alloc(sc * batch))
    check(core.cuda_htod_ptr(dA, addr(g.A), sa * batch))
    check(core.cuda_htod_ptr(dB, addr(g.B), sb * batch))
    if beta ~= 0 then check(core.cuda_htod_ptr(dC, addr(g.C), sc * batch)) end
    local al, be = ffi.new("double[1]", alpha), ffi.new("double[1]", beta)
    for i = 0, batch - 1 do
      local rc = CUBLAS.cublasDgemm_v2(HANDLE, ta, tb, m, n, k, al, ffi.cast("double*", dB + i * sb), ldb,
                                       ffi.cast("double*", dA + i * sa), lda, be, ffi.cast("double*", dC + i * sc), ldc)
      if rc ~= 0 then error("cublasDgemm failed (" .. rc .. ")", 0) end
    end
    check(core.cuda_sync())
    check(core.cuda_dtoh_ptr(addr(g.C), dC, sc * batch))
    core.cuda_free(dA); core.cuda_free(dB); core.cuda_free(dC)
    return
  end
  local A, B, C = ffi.cast("double*", g.A), ffi.cast("double*", g.B), ffi.cast("double*", g.C)
  if M * N * K * batch <= O.cpu_macs then
    CPU_REF = CPU_REF or "cpu reference"            -- the same call as cuBLAS's, on the host
    for i = 0, batch - 1 do
      blas_dgemm(ta, tb, m, n, k, alpha, B + i * N * K, ldb, A + i * M * K, lda, beta, C + i * M * N, ldc)
    end
    return
  end
  -- too large for the CPU: GEMM_SAMPLES random elements of each product, each computed exactly
  -- (row-major, from the definition); the output's other elements are only checked for being
  -- written (finite). C must lie inside an output tensor (In/Out of the case).
  local tn, off = SAMPLER.locate(C, M * N * batch)
  if not tn then
    error(fmt("gemm_f64: a %d x %d x %d product (x%d) is too large for the CPU reference (--cpu-macs %.3g) and its C is "
              .. "not an output tensor, so it cannot be sampled: the case must sample it itself (ctx.sample)", M, N, K, batch, O.cpu_macs), 0)
  end
  CPU_REF = "sampled cpu reference"
  local nk = (g.b_layout or "NK") == "NK"
  for i = 0, batch - 1 do
    local a, b, c = A + i * M * K, B + i * N * K, C + i * M * N
    for _ = 1, GEMM_SAMPLES do
      local r, col = SAMPLER.pick(M), SAMPLER.pick(N)
      local s = 0
      if nk then for p = 0, K - 1 do s = s + a[r * K + p] * b[col * K + p] end
      else for p = 0, K - 1 do s = s + a[r * K + p] * b[p * N + col] end end
      local e = r * N + col
      c[e] = alpha * s + (beta ~= 0 and beta * c[e] or 0)
      SAMPLER.sample(tn, off + i * M * N + e)
    end
  end
end

---------------------------------------------------------------------------------------------------
-- cases
---------------------------------------------------------------------------------------------------
local function list_cases()
  local names = {}
  if #O.only > 0 then return O.only end
  local p = io.popen("ls " .. ("'" .. O.cases:gsub("'", "'\\''") .. "'") .. " 2>/dev/null")
  for l in p:lines() do if l:match("%.lua$") then names[#names + 1] = l:sub(1, -5) end end
  p:close()
  table.sort(names)
  return names
end

local REQUIRED = { "script", "kernel", "configs", "tensors", "args", "reference" }
local function load_case(name)
  local path = O.cases .. "/" .. name .. ".lua"
  local f, err = loadfile(path)
  if not f then error(err, 0) end
  local c = f()
  if type(c) ~= "table" then error(path .. ": error: a case returns a table (bench/gpu/README.md)", 0) end
  for _, k in ipairs(REQUIRED) do
    if c[k] == nil then error(fmt("%s: error: the case has no '%s' (bench/gpu/README.md)", path, k), 0) end
  end
  c.path = path
  return c
end

local function kernel_of(c)
  ptx.reset()
  dofile(ROOT .. "/" .. c.script)
  for _, k in ipairs(ptx.kernels()) do if k.name == c.kernel then return k end end
  error(fmt("%s: error: %s defines no kernel '%s'", c.path, c.script, c.kernel), 0)
end

local ROWS, NOTES, FAILED = {}, {}, false
local function row(r) ROWS[#ROWS + 1] = r end

local function config_text(cfg)
  local keys = {}
  for k, v in pairs(cfg) do keys[#keys + 1] = k .. "=" .. tostring(v) end
  table.sort(keys)
  return table.concat(keys, " ")
end

local function run_config(name, c, k, cfg, BW)
  for n, v in pairs(O.set) do if k.templates[n] ~= nil then cfg[n] = v end end   -- --set: only its own templates
  local t = k:resolve(cfg)
  local specs = c.tensors(t)
  local T, In, Out, Raw, outs = {}, {}, {}, {}, {}
  local names = {}
  for tn in pairs(specs) do names[#names + 1] = tn end
  table.sort(names)
  for _, tn in ipairs(names) do
    local s = specs[tn]
    if not SIZE[s[1]] or type(s[2]) ~= "number" or s[2] < 1 then
      error(fmt("%s: error: tensor %s: { dtype, count } with a known dtype and a positive count expected", c.path, tn), 0)
    end
    T[tn] = dev:array(s[1], s[2], false)                         -- every byte uploaded before use
    Raw[tn] = host_buffer(s[2] * SIZE[s[1]])                      -- the host side of every copy
    local d = ffi.cast("double*", host_buffer(s[2] * 8))
    if s.output then Out[tn] = d; ffi.fill(d, s[2] * 8); outs[#outs + 1] = tn else In[tn] = d end
  end
  -- sampled references: the indices of Out[name] that a sampled reference computed
  local samples = {}
  local pick_state = O.seed % 2147483646 + 1
  SAMPLER = {
    pick = function(n) pick_state = pick_state * PM_A % PM_M; return pick_state % n end,
    sample = function(tn, i)
      if not Out[tn] then error(fmt("ctx.sample: no output tensor '%s'", tostring(tn)), 0) end
      if type(i) ~= "number" or i < 0 or i >= specs[tn][2] or i % 1 ~= 0 then
        error(fmt("ctx.sample: index %s outside %s[0..%d]", tostring(i), tn, specs[tn][2] - 1), 0)
      end
      local l = samples[tn] or {}
      samples[tn] = l
      l[#l + 1] = i
    end,
    locate = function(p, count)                          -- the output holding count doubles at p, and its offset
      local a = addr(p)
      for _, tn in ipairs(outs) do
        local b = addr(Out[tn])
        if a >= b and (a - b) % 8 == 0 and a + count * 8 <= b + specs[tn][2] * 8 then return tn, (a - b) / 8 end
      end
    end,
  }
  local ctx = { device = dev, tensormap = function(a, spec) return dev:tensormap(a, spec) end, gemm_f64 = gemm_f64,
                has_cublas = CUBLAS ~= nil, cpu_macs = O.cpu_macs, pick = SAMPLER.pick,
                sample = function(tn, i) CPU_REF = "sampled cpu reference"; SAMPLER.sample(tn, i) end }
  local L = c.launch and c.launch(t) or {}
  local opts = { device = dev, defines = cfg, grid = L.grid, block = L.block, cluster = L.cluster, smem = L.smem, async = true }
  if EMU then
    opts.limit = O.limit                            -- warp instructions: a stuck pipeline fails, never hangs
    if O.checks then opts.checks = { races = true, uninit_shared = true, uninit_regs = true } end
  end
  local sets = O.quick and 1 or (O.sets or (EMU and 1) or c.sets or 3)
  local runs = c.runs and math.min(c.runs, O.runs) or O.runs
  local rng_state = O.seed % 2147483646 + 1           -- the input generator (fill_input)
  local worst, wtol, wname, failed_why, all_ms, emu_s = 0, nil, nil, nil, {}, 0
  CPU_REF = false
  local nsampled = {}
  for set = 1, sets do
    local h0 = os.clock()
    for _, tn in ipairs(names) do
      if In[tn] then rng_state = fill_input(T[tn], specs[tn], Raw[tn], In[tn], rng_state); HOST.elems = HOST.elems + specs[tn][2] end
    end
    local h1 = os.clock()
    for _, tn in ipairs(outs) do poison(T[tn], specs[tn], Raw[tn]) end
    opts.args = c.args(t, T, ctx)
    local h2 = os.clock()
    local st = k:launch(opts)
    if EMU then emu_s = emu_s + (st.seconds or 0) end
    sync()
    local h3 = os.clock()
    for tn in pairs(samples) do samples[tn] = nil end
    c.reference(t, In, Out, ctx)
    local h4 = os.clock()
    for _, tn in ipairs(outs) do
      local rel, bad, first = check_output(T[tn], specs[tn], Raw[tn], Out[tn], samples[tn])
      HOST.elems = HOST.elems + specs[tn][2]
      local tol = (c.tolerance and c.tolerance[tn]) or TOL[specs[tn][1]] or 0
      -- the row shows the output nearest to (or furthest past) its tolerance
      if not wtol or rel / tol > worst / wtol or rel ~= rel then worst, wtol, wname = rel, tol, tn end
      if bad > 0 then failed_why = failed_why or fmt("%s: %d elements NaN/Inf (not written?), first [%d]", tn, bad, first)
      elseif not (rel <= tol) then failed_why = failed_why or fmt("%s: rel err %.3g > %.3g", tn, rel, tol) end
      if samples[tn] then nsampled[tn] = #samples[tn] end
    end
    local h5 = os.clock()
    HOST.fill, HOST.poison, HOST.ref, HOST.check = HOST.fill + (h1 - h0), HOST.poison + (h2 - h1), HOST.ref + (h4 - h3), HOST.check + (h5 - h4)
    if not EMU then
      local ms = time_runs(function() k:launch(opts) end, runs, O.warmup)
      for _, v in ipairs(ms) do all_ms[#all_ms + 1] = v end
    end
  end
  local med, mn = median(all_ms), nil
  for _, v in ipairs(all_ms) do if not mn or v < mn then mn = v end end
  local r = { case = name, config = config_text(cfg), rel = worst, tol = wtol, med = med, min = mn,
              check = failed_why and ("FAIL " .. failed_why) or fmt("ok (%d set%s%s)", sets, sets == 1 and "" or "s",
                                                                    #outs > 1 and ", worst " .. wname or "") }
  if CPU_REF then r.check = r.check .. ", " .. CPU_REF end
  for _, tn in ipairs(outs) do
    if nsampled[tn] then r.check = r.check .. fmt(" (%s: %d of %d elements)", tn, nsampled[tn], specs[tn][2]) end
  end
  if failed_why then FAILED = true end
  if EMU then r.vs = fmt("emulated in %.2f s", emu_s)
  else
  if c.flops then r.tflops = c.flops(t) / (med * 1e-3) / 1e12 end
  if c.bytes then r.gbs = c.bytes(t) / (med * 1e-3) / 1e9 end
  if c.cublas then
    if CUBLAS then
      local g = c.cublas(t)
      local A = check(core.cuda_alloc(g.M * g.K * SIZE[g.a]))
      local B = check(core.cuda_alloc(g.N * g.K * SIZE[g.b]))
      local C = check(core.cuda_alloc(g.M * g.N * SIZE[g.c]))
      -- the case's own inputs as cuBLAS's operands when it names them (same bytes, same layout)
      if g.A and T[g.A] then check(core.cuda_dtod(A, T[g.A].addr, math.min(g.M * g.K * SIZE[g.a], T[g.A].nbytes))) end
      if g.B and T[g.B] then check(core.cuda_dtod(B, T[g.B].addr, math.min(g.N * g.K * SIZE[g.b], T[g.B].nbytes))) end
      local ms = time_runs(function() cublas_gemm(g, A, B, C) end, runs, O.warmup)
      core.cuda_free(A); core.cuda_free(B); core.cuda_free(C)
      r.cublas = median(ms) / med
      r.vs = fmt("%.2f cuBLAS", r.cublas)
    else r.vs = "- (" .. tostring(CUBLAS_WHY) .. ")" end
  elseif c.published and r.tflops and c.published(t) then
    local f, what = c.published(t)
    r.vs = fmt("%.2f %s", r.tflops / f, what)
  elseif c.bytes and BW then r.vs = fmt("%.2f copy", r.gbs / BW) end
  -- a target recorded by the case (issue 17's Blackwell figures): met or not, said on the row
  local goal = c.goal and c.goal(t)
  if goal and not failed_why then
    local met
    if goal.cublas then met = r.cublas and r.cublas >= goal.cublas
    elseif goal.tflops then met = r.tflops and r.tflops > goal.tflops end
    r.check = r.check .. fmt("; target %s: %s", goal.text or "?", met and "met" or (met == nil and "no figure" or "NOT met"))
  end
  end
  for _, a in pairs(T) do a:free() end
  release_buffers()
  row(r)
end

---------------------------------------------------------------------------------------------------
-- main
---------------------------------------------------------------------------------------------------
load_cublas()
local BW
if EMU then
  print("ptxlua GPU check on device emu (the CPU emulator): each case's `emu` configs, checks only")
  print("timing: skipped (emulator seconds are not GPU time); cuBLAS: skipped (references on the CPU)")
else
  print(fmt("ptxlua GPU check on %s%s", tostring(dev), MOCK and "  [MOCK DRIVER: no kernel runs; checks fail and timings are meaningless]" or ""))
  local okbw
  okbw, BW = pcall(copy_bandwidth)
  if okbw then print(fmt("device-to-device copy: %.0f GB/s (%d MiB, median of 20)", BW, O.copy_mb))
  else print("device-to-device copy: failed: " .. tostring(BW)); BW = nil end
  print("cuBLAS: " .. (CUBLAS and "loaded" or tostring(CUBLAS_WHY)))
end
local PENDING = 0
local OTHER_ARCH = 0                                 -- rows of cases for another compute capability
local LATER = {}                                    -- a case's `later` configs: { name, case, kernel, configs }

-- run configs of case c (kernel k) in order, each while the budget lasts
local function run_configs(name, c, k, cfgs)
  for i, cfg0 in ipairs(cfgs) do
    if O.quick and i > 1 then break end
    local cfg = {}
    for n, v in pairs(cfg0) do cfg[n] = v end
    if wall() - START > O.budget then
      row { case = name, config = config_text(cfg), check = fmt("skipped: over the %d s budget", O.budget) }
      if EMU then FAILED = true end
    else
      -- progress, flushed before the config runs: if a kernel never finishes (the session's
      -- timeout kills the check), the log still says which rows were done and which one hung
      for n, v in pairs(O.set) do if k.templates[n] ~= nil then cfg[n] = v end end   -- as run_config will
      io.write(fmt("-- %s %s ... ", name, config_text(cfg)))
      io.flush()
      local okr, e2 = xpcall(run_config, function(m) return os.getenv("RUN_DEBUG") and debug.traceback(m) or m end, name, c, k, cfg, BW)
      release_buffers()                         -- also after an error
      if not okr then FAILED = true; row { case = name, config = config_text(cfg), check = "ERROR " .. tostring(e2) }; if os.getenv("RUN_DEBUG") then print(e2) end end
      local last = ROWS[#ROWS]
      print(fmt("%s%s (%d s)", last.check, last.med and last.med == last.med and fmt(", median %.4f ms", last.med) or "", wall() - START))
    end
  end
end

for _, name in ipairs(list_cases()) do
  if wall() - START > O.budget then
    row { case = name, config = "-", check = fmt("skipped: over the %d s budget", O.budget) }
    if EMU then FAILED = true end                 -- on the emulator a skipped check is an unproven one
  else
    local okc, err = pcall(function()
      local c = load_case(name)
      local cfgs = c.configs
      if EMU then
        if c.emu_pending and not O.pending then
          PENDING = PENDING + 1
          row { case = name, config = "-", check = "pending on the emulator: " .. tostring(c.emu_pending) }
          return
        end
        cfgs = c.emu
        if type(cfgs) ~= "table" or #cfgs == 0 then
          error(fmt("%s: error: the case has no 'emu' configs for --device emu (bench/gpu/README.md)", c.path), 0)
        end
      end
      if c.note then NOTES[#NOTES + 1] = name .. ": " .. c.note end
      local k = kernel_of(c)
      -- the cases for this device's compute capability: an arch-specific kernel (sm_90a, sm_100a)
      -- runs only on its own architecture; the others' rows say so and count as not checked
      if not EMU then
        local arch, why = core.cuda_arch(tostring(k.target or ""), dev.info.cc_major, dev.info.cc_minor)
        if not arch then
          for i, cfg0 in ipairs(cfgs) do
            if not (O.quick and i > 1) then
              local cfg = {}
              for n, v in pairs(cfg0) do cfg[n] = v end
              for n, v in pairs(O.set) do if k.templates[n] ~= nil then cfg[n] = v end end
              OTHER_ARCH = OTHER_ARCH + 1
              row { case = name, config = config_text(cfg), check = "skipped: another architecture: " .. tostring(why) }
            end
          end
          return
        end
      end
      run_configs(name, c, k, cfgs)
      if not EMU and not O.quick and type(c.later) == "table" and #c.later > 0 then LATER[#LATER + 1] = { name, c, k, c.later } end
    end)
    if not okc then FAILED = true; row { case = name, config = "-", check = "ERROR " .. tostring(err) } end
  end
end
-- the configs cases run after every case's own (other tilings of one product): the budget keeps
-- the figures the check exists for first
for _, l in ipairs(LATER) do
  local okc, err = pcall(run_configs, l[1], l[2], l[3], l[4])
  if not okc then FAILED = true; row { case = l[1], config = "-", check = "ERROR " .. tostring(err) } end
end

local function num(v, f) return v and v == v and fmt(f, v) or "-" end
local wcase, wcfg = 14, 32                          -- columns wide enough for every row
for _, r in ipairs(ROWS) do wcase, wcfg = math.max(wcase, #r.case), math.max(wcfg, #r.config) end
local LINE = "%-" .. wcase .. "s %-" .. wcfg .. "s %-10s %-8s %-10s %-10s %-8s %-8s %s"
print(fmt(LINE, "case", "config", "rel err", "tol", "median ms", "min ms", "TFLOPS", "GB/s", "vs"))
for _, r in ipairs(ROWS) do
  print(fmt(LINE, r.case, r.config, num(r.rel, "%.2g"), num(r.tol, "%.0e"),
            num(r.med, "%.4f"), num(r.min, "%.4f"), num(r.tflops, "%.1f"), num(r.gbs, "%.0f"), r.vs or "-"))
  print("    " .. r.check)
end
for _, n in ipairs(NOTES) do print("note: " .. n) end
print(fmt("host CPU: inputs %.1f s, poison %.1f s, reference %.1f s, read back + compare %.1f s; %.0f ns per tensor element "
          .. "(inputs and outputs, without the reference; %.3g elements)", HOST.fill, HOST.poison, HOST.ref, HOST.check,
          HOST.elems > 0 and (HOST.fill + HOST.poison + HOST.check) / HOST.elems * 1e9 or 0, HOST.elems))
local SKIPPED = 0
for _, r in ipairs(ROWS) do if r.check and r.check:find("^skipped: over the") then SKIPPED = SKIPPED + 1 end end
print(fmt("%d rows in %d s (%.1f s CPU)%s%s%s%s", #ROWS, wall() - START, os.clock() - T0,
          FAILED and "; FAILED" or SKIPPED + OTHER_ARCH == #ROWS and "; nothing checked" or "; all checks passed",
          PENDING > 0 and fmt(" (%d case%s pending)", PENDING, PENDING == 1 and "" or "s") or "",
          SKIPPED > 0 and fmt(" (%d row%s skipped over the budget)", SKIPPED, SKIPPED == 1 and "" or "s") or "",
          OTHER_ARCH > 0 and fmt(" (%d row%s for another architecture)", OTHER_ARCH, OTHER_ARCH == 1 and "" or "s") or ""))
os.exit(FAILED and 1 or 0)
