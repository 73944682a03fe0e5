-- bench/gpu/run.lua -- the GPU check: every case of bench/gpu/cases/ loaded, run on random inputs,
-- checked element by element against a double-precision reference, then timed with CUDA events,
-- and one table printed. The case format and the options are in bench/gpu/README.md.
-- Exit status: 0 every check passed; 1 a check failed or a case raised an error; 2 no CUDA driver.
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
            quick = false, copy_mb = 1024, only = {}, set = {} }
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

local ok_drv, why = cuda.available()
if not ok_drv then
  print(tostring(why):match("^no CUDA driver") and why or ("no CUDA driver: " .. tostring(why)))
  os.exit(2)
end
local dev = cuda.device(0)
local MOCK = tostring(dev):find("mock", 1, true) ~= nil
local T0 = os.clock()
local function wall() return os.time() end
local START = wall()

---------------------------------------------------------------------------------------------------
-- host buffers and element conversions
---------------------------------------------------------------------------------------------------
local function addr(p) return tonumber(ffi.cast("uintptr_t", p)) end
local function check(okv, err) if not okv then error(err, 0) end return okv end

local SIZE = { f64 = 8, f32 = 4, f16 = 2, bf16 = 2, u8 = 1, s8 = 1, b8 = 1, u16 = 2, s16 = 2, b16 = 2,
               u32 = 4, s32 = 4, b32 = 4, u64 = 8, s64 = 8, b64 = 8 }
local CTYPE = { f64 = "double", f32 = "float", f16 = "uint16_t", bf16 = "uint16_t", u8 = "uint8_t", s8 = "int8_t",
                b8 = "uint8_t", u16 = "uint16_t", s16 = "int16_t", b16 = "uint16_t", u32 = "uint32_t", s32 = "int32_t",
                b32 = "uint32_t", u64 = "uint64_t", s64 = "int64_t", b64 = "uint64_t" }
local FLOAT = { f64 = true, f32 = true, f16 = true, bf16 = true }
local TOL = { f64 = 1e-12, f32 = 1e-5, tf32 = 1e-3, f16 = 2e-3, bf16 = 1e-2, e4m3 = 1e-1, e5m2 = 1e-1 }

local f32box = ffi.new("float[1]")
local u32box = ffi.cast("uint32_t*", f32box)
-- bf16 bits of v (round to nearest even from f32), and the value they stand for
local function to_bf16(v)
  f32box[0] = v
  local b = u32box[0]
  if v ~= v then return 0x7FC0, v end
  local r = bit.rshift(b + 0x7FFF + bit.band(bit.rshift(b, 16), 1), 16)
  r = bit.band(r, 0xFFFF)
  u32box[0] = bit.lshift(r, 16)
  return r, f32box[0]
end
local function from_bf16(h) u32box[0] = bit.lshift(h, 16); return f32box[0] end
-- f16 bits of v (round to nearest even), and its value
local function from_f16(h)
  local s = bit.band(h, 0x8000) ~= 0 and -1 or 1
  local e = bit.band(bit.rshift(h, 10), 0x1F)
  local m = bit.band(h, 0x3FF)
  if e == 0 then return s * m * 2 ^ -24 end
  if e == 31 then return m == 0 and s * math.huge or 0 / 0 end
  return s * (1 + m / 1024) * 2 ^ (e - 15)
end
local function to_f16(v)
  if v ~= v then return 0x7E00, v end
  local s = (v < 0 or 1 / v < 0) and 0x8000 or 0
  local a = math.abs(v)
  if a >= 65520 then return s + 0x7C00, s ~= 0 and -math.huge or math.huge end
  local q
  if a < 2 ^ -14 then q = a * 2 ^ 24                       -- subnormal: units of 2^-24
  else
    local m, e = math.frexp(a)                              -- a = m * 2^e, 0.5 <= m < 1
    q = (m * 2048 - 1024) + (e + 14) * 1024                 -- (exponent field << 10) + mantissa, fractional
  end
  local f = math.floor(q)
  local r = q - f
  if r > 0.5 or (r == 0.5 and f % 2 == 1) then f = f + 1 end
  local h = s + f
  return h, from_f16(h)
end

-- a host staging buffer of n elements of dtype
local function stage(dtype, n) return ffi.new(CTYPE[dtype] .. "[?]", n) end

-- random values into the device array and the f64 host copy (exactly the stored values); never 0
local function fill_input(arr, spec, dbl, rng)
  local dtype, n = spec[1], spec[2]
  local lo, hi = -1, 1
  if not FLOAT[dtype] then lo, hi = 0, 100 end
  if spec.fill then lo, hi = spec.fill[1], spec.fill[2] end
  local nonzero = lo / 2 + hi / 2 + 1e-3
  local buf = stage(dtype, n)
  local w = hi - lo
  for i = 0, n - 1 do
    local v = lo + w * rng()
    if not FLOAT[dtype] then v = math.floor(v) end
    if v == 0 then v = FLOAT[dtype] and nonzero or math.floor(nonzero + 1) end
    if dtype == "bf16" then local h, x = to_bf16(v); buf[i] = h; dbl[i] = x
    elseif dtype == "f16" then local h, x = to_f16(v); buf[i] = h; dbl[i] = x
    else buf[i] = v; dbl[i] = tonumber(buf[i]) end
  end
  check(core.cuda_htod_ptr(arr.addr, addr(buf), n * SIZE[dtype]))
end

-- NaN for floats (a canonical quiet NaN: LuaJIT must never load a non-canonical one), 0xA5.. else
local QNAN = { f32 = { "uint32_t", 0x7FC00000 }, bf16 = { "uint16_t", 0x7FC0 }, f16 = { "uint16_t", 0x7E00 } }
local function poison(arr, spec)
  local dtype, n = spec[1], spec[2]
  local bytes = n * SIZE[dtype]
  local buf = ffi.new("uint8_t[?]", bytes)
  if dtype == "f64" then
    local d = ffi.cast("double*", buf)
    for i = 0, n - 1 do d[i] = 0 / 0 end
  elseif QNAN[dtype] then
    local q = ffi.cast(QNAN[dtype][1] .. "*", buf)
    for i = 0, n - 1 do q[i] = QNAN[dtype][2] end
  else ffi.fill(buf, bytes, 0xA5) end
  check(core.cuda_htod_ptr(arr.addr, addr(buf), bytes))
end

-- the output as doubles; any NaN the kernel wrote (of any bit pattern) becomes a canonical NaN
local function read_output(arr, spec, dbl)
  local dtype, n = spec[1], spec[2]
  local bytes = n * SIZE[dtype]
  local raw = ffi.new("uint8_t[?]", bytes)
  check(core.cuda_dtoh_ptr(addr(raw), arr.addr, bytes))
  local nan = 0 / 0
  if dtype == "bf16" or dtype == "f16" then
    local h = ffi.cast("uint16_t*", raw)
    local conv = dtype == "bf16" and from_bf16 or from_f16
    local emask, mmask = dtype == "bf16" and 0x7F80 or 0x7C00, dtype == "bf16" and 0x007F or 0x03FF
    for i = 0, n - 1 do
      local b = h[i]
      if bit.band(b, emask) == emask and bit.band(b, mmask) ~= 0 then dbl[i] = nan else dbl[i] = conv(b) end
    end
  elseif dtype == "f32" then
    local u, f = ffi.cast("uint32_t*", raw), ffi.cast("float*", raw)
    for i = 0, n - 1 do
      local b = u[i]
      if bit.band(b, 0x7F800000) == 0x7F800000 and bit.band(b, 0x007FFFFF) ~= 0 then dbl[i] = nan else dbl[i] = f[i] end
    end
  elseif dtype == "f64" then
    local u, f = ffi.cast("uint32_t*", raw), ffi.cast("double*", raw)
    for i = 0, n - 1 do
      local hi, lo = u[2 * i + 1], u[2 * i]
      if bit.band(hi, 0x7FF00000) == 0x7FF00000 and (bit.band(hi, 0xFFFFF) ~= 0 or lo ~= 0) then dbl[i] = nan else dbl[i] = f[i] end
    end
  else
    local buf = ffi.cast(CTYPE[dtype] .. "*", raw)
    for i = 0, n - 1 do dbl[i] = tonumber(buf[i]) end
  end
end

-- ||out - ref|| / ||ref||, and how many elements are not finite where the reference is
local function compare(out, ref, n)
  local num, den, bad, first = 0, 0, 0, nil
  for i = 0, n - 1 do
    local o, r = out[i], ref[i]
    if o ~= o or o == math.huge or o == -math.huge then
      if r == r and r ~= math.huge and r ~= -math.huge then bad = bad + 1; first = first or i end
    else
      local dd = o - r
      num = num + dd * dd
      den = den + r * r
    end
  end
  local rel = den > 0 and math.sqrt(num / den) or math.sqrt(num)
  return rel, bad, first
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

-- C[M,N] = A[M,K] * B (row-major; B is N x K with b_layout "NK", K x N with "KN") on device addresses
local function cublas_gemm(g, A, B, C)
  local alpha, beta = ffi.new("float[1]", 1), ffi.new("float[1]", 0)
  local ta, ldb = OP_N, g.N
  if (g.b_layout or "NK") == "NK" then ta, ldb = OP_T, g.K end
  local rc = CUBLAS.cublasGemmEx(HANDLE, ta, OP_N, g.N, g.M, g.K, alpha, ffi.cast("void*", B), CUDA_TYPE[g.b], ldb,
                                 ffi.cast("void*", A), CUDA_TYPE[g.a], g.K, beta, ffi.cast("void*", C), CUDA_TYPE[g.c], g.N, 68, -1)
  if rc ~= 0 then error("cublasGemmEx failed (" .. rc .. ")", 0) end
end

-- the f64 reference product for cases: on the GPU through cublasDgemm, else on the CPU
local CPU_REF = false
local function gemm_f64(g)
  local M, N, K, batch = g.M, g.N, g.K, g.batch or 1
  local alpha, beta = g.alpha or 1, g.beta or 0
  local nk = (g.b_layout or "NK") == "NK"
  if CUBLAS then
    local sa, sb, sc = M * K * 8, N * K * 8, M * N * 8
    local dA, dB, dC = check(core.cuda_alloc(sa * batch)), check(core.cuda_alloc(sb * batch)), check(core.cuda_alloc(sc * batch))
    check(core.cuda_htod_ptr(dA, addr(g.A), sa * batch))
    check(core.cuda_htod_ptr(dB, addr(g.B), sb * batch))
    if beta ~= 0 then check(core.cuda_htod_ptr(dC, addr(g.C), sc * batch)) end
    local al, be = ffi.new("double[1]", alpha), ffi.new("double[1]", beta)
    for i = 0, batch - 1 do
      local rc = CUBLAS.cublasDgemm_v2(HANDLE, nk and OP_T or OP_N, OP_N, N, M, K, al,
                                       ffi.cast("double*", dB + i * sb), nk and K or N, ffi.cast("double*", dA + i * sa), K, be,
                                       ffi.cast("double*", dC + i * sc), N)
      if rc ~= 0 then error("cublasDgemm failed (" .. rc .. ")", 0) end
    end
    check(core.cuda_sync())
    check(core.cuda_dtoh_ptr(addr(g.C), dC, sc * batch))
    core.cuda_free(dA); core.cuda_free(dB); core.cuda_free(dC)
    return
  end
  CPU_REF = true
  local A, B, C = g.A, g.B, g.C
  for bi = 0, batch - 1 do
    local a0, b0, c0 = bi * M * K, bi * N * K, bi * M * N
    for m = 0, M - 1 do
      for n = 0, N - 1 do
        local s = 0
        if nk then for k = 0, K - 1 do s = s + A[a0 + m * K + k] * B[b0 + n * K + k] end
        else for k = 0, K - 1 do s = s + A[a0 + m * K + k] * B[b0 + k * N + n] end end
        C[c0 + m * N + n] = alpha * s + beta * C[c0 + m * N + n]
      end
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
  local T, In, Out, outs = {}, {}, {}, {}
  local names = {}
  for tn in pairs(specs) do names[#names + 1] = tn end
  table.sort(names)
  for _, tn in ipairs(names) do
    local s = specs[tn]
    if not SIZE[s[1]] or type(s[2]) ~= "number" or s[2] < 1 then
      error(fmt("%s: error: tensor %s: { dtype, count } with a known dtype and a positive count expected", c.path, tn), 0)
    end
    T[tn] = dev:array(s[1], s[2])
    if s.output then Out[tn] = ffi.new("double[?]", s[2]); outs[#outs + 1] = tn
    else In[tn] = ffi.new("double[?]", s[2]) end
  end
  local ctx = { device = dev, tensormap = function(a, spec) return dev:tensormap(a, spec) end, gemm_f64 = gemm_f64,
                has_cublas = CUBLAS ~= nil }
  local L = c.launch and c.launch(t) or {}
  local opts = { device = dev, defines = cfg, grid = L.grid, block = L.block, cluster = L.cluster, smem = L.smem, async = true }
  local sets = O.quick and 1 or (O.sets or c.sets or 3)
  local runs = c.runs and math.min(c.runs, O.runs) or O.runs
  local rng_state = O.seed
  local function rng()                              -- deterministic: the same inputs on every machine
    rng_state = (rng_state * 1103515245 + 12345) % 2147483648
    return rng_state / 2147483648
  end
  local worst, failed_why, all_ms = 0, nil, {}
  local got = {}
  for tn in pairs(Out) do got[tn] = ffi.new("double[?]", specs[tn][2]) end
  CPU_REF = false
  for set = 1, sets do
    for _, tn in ipairs(names) do if In[tn] then fill_input(T[tn], specs[tn], In[tn], rng) end end
    for _, tn in ipairs(outs) do poison(T[tn], specs[tn]) end
    opts.args = c.args(t, T, ctx)
    k:launch(opts)
    check(core.cuda_sync())
    c.reference(t, In, Out, ctx)
    for _, tn in ipairs(outs) do
      read_output(T[tn], specs[tn], got[tn])
      local rel, bad, first = compare(got[tn], Out[tn], specs[tn][2])
      local tol = (c.tolerance and c.tolerance[tn]) or TOL[specs[tn][1]] or 0
      if rel > worst then worst = rel end
      if bad > 0 then failed_why = failed_why or fmt("%s: %d elements NaN/Inf (not written?), first [%d]", tn, bad, first)
      elseif not (rel <= tol) then failed_why = failed_why or fmt("%s: rel err %.3g > %.3g", tn, rel, tol) end
      c._tol = tol
    end
    local ms = time_runs(function() k:launch(opts) end, runs, O.warmup)
    for _, v in ipairs(ms) do all_ms[#all_ms + 1] = v end
  end
  local med, mn = median(all_ms), math.huge
  for _, v in ipairs(all_ms) do if v < mn then mn = v end end
  local r = { case = name, config = config_text(cfg), rel = worst, tol = c._tol, med = med, min = mn,
              check = failed_why and ("FAIL " .. failed_why) or fmt("ok (%d set%s)", sets, sets == 1 and "" or "s") }
  if CPU_REF then r.check = r.check .. ", cpu reference" end
  if failed_why then FAILED = true end
  if c.flops then r.tflops = c.flops(t) / (med * 1e-3) / 1e12 end
  if c.bytes then r.gbs = c.bytes(t) / (med * 1e-3) / 1e9 end
  if c.cublas then
    if CUBLAS then
      local g = c.cublas(t)
      local A = check(core.cuda_alloc(g.M * g.K * SIZE[g.a]))
      local B = check(core.cuda_alloc(g.N * g.K * SIZE[g.b]))
      local C = check(core.cuda_alloc(g.M * g.N * SIZE[g.c]))
      -- the case's own inputs as cuBLAS's operands when it names them (same bytes, same layout)
      if g.A and T[g.A] then check(core.cuda_dtod(A, T[g.A].addr, math.min(g.M * g.K * SIZE[g.a], T[g.A].bytes))) end
      if g.B and T[g.B] then check(core.cuda_dtod(B, T[g.B].addr, math.min(g.N * g.K * SIZE[g.b], T[g.B].bytes))) end
      local ms = time_runs(function() cublas_gemm(g, A, B, C) end, runs, O.warmup)
      core.cuda_free(A); core.cuda_free(B); core.cuda_free(C)
      r.vs = fmt("%.2f cuBLAS", median(ms) / med)
    else r.vs = "- (" .. tostring(CUBLAS_WHY) .. ")" end
  elseif c.bytes and BW then r.vs = fmt("%.2f copy", r.gbs / BW) end
  for _, a in pairs(T) do a:free() end
  if c.note then NOTES[#NOTES + 1] = name .. ": " .. c.note end
  row(r)
end

---------------------------------------------------------------------------------------------------
-- main
---------------------------------------------------------------------------------------------------
load_cublas()
print(fmt("ptxlua GPU check on %s%s", tostring(dev), MOCK and "  [MOCK DRIVER: no kernel runs; checks fail and timings are meaningless]" or ""))
local okbw, BW = pcall(copy_bandwidth)
if okbw then print(fmt("device-to-device copy: %.0f GB/s (%d MiB, median of 20)", BW, O.copy_mb))
else print("device-to-device copy: failed: " .. tostring(BW)); BW = nil end
print("cuBLAS: " .. (CUBLAS and "loaded" or tostring(CUBLAS_WHY)))

for _, name in ipairs(list_cases()) do
  if wall() - START > O.budget then
    row { case = name, config = "-", check = fmt("skipped: over the %d s budget", O.budget) }
  else
    local okc, err = pcall(function()
      local c = load_case(name)
      local k = kernel_of(c)
      local cfgs = c.configs
      for i, cfg0 in ipairs(cfgs) do
        if O.quick and i > 1 then break end
        local cfg = {}
        for n, v in pairs(cfg0) do cfg[n] = v end
        if wall() - START > O.budget then
          row { case = name, config = config_text(cfg), check = fmt("skipped: over the %d s budget", O.budget) }
        else
          local okr, e2 = xpcall(run_config, function(m) return os.getenv("RUN_DEBUG") and debug.traceback(m) or m end, name, c, k, cfg, BW)
          if not okr then FAILED = true; row { case = name, config = config_text(cfg), check = "ERROR " .. tostring(e2) }; if os.getenv("RUN_DEBUG") then print(e2) end end
        end
      end
    end)
    if not okc then FAILED = true; row { case = name, config = "-", check = "ERROR " .. tostring(err) } end
  end
end

local function num(v, f) return v and v == v and fmt(f, v) or "-" end
print(fmt("%-14s %-32s %-10s %-8s %-10s %-10s %-8s %-8s %s", "case", "config", "rel err", "tol", "median ms", "min ms",
          "TFLOPS", "GB/s", "vs"))
for _, r in ipairs(ROWS) do
  print(fmt("%-14s %-32s %-10s %-8s %-10s %-10s %-8s %-8s %s", r.case, r.config, num(r.rel, "%.2g"), num(r.tol, "%.0e"),
            num(r.med, "%.4f"), num(r.min, "%.4f"), num(r.tflops, "%.1f"), num(r.gbs, "%.0f"), r.vs or "-"))
  print("    " .. r.check)
end
for _, n in ipairs(NOTES) do print("note: " .. n) end
print(fmt("%d rows in %d s (%.1f s CPU)%s", #ROWS, wall() - START, os.clock() - T0, FAILED and "; FAILED" or "; all checks passed"))
os.exit(FAILED and 1 or 0)
