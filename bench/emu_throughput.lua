-- emu_throughput.lua -- the emulator's speed: thread instructions per second on one core, for SIMT
-- kernels (vector add, RMSNorm at its default size, a softmax block), the mma.sync GEMM and the
-- Hopper GEMM (kernels/gemm.lua: TMA, wgmma, mbarriers, a cluster of 2, 256x256x128, and without
-- --quick 1024x1024x1024: 32 tiles on 2 CTAs, 16 k-tiles each).
-- Run from the repository root:
--   luajit bench/emu_throughput.lua [--build DIR] [--runs 3] [--quick] [--races]
-- Prints one line per case: thread instructions, CPU seconds (median of the runs), M thread-instr/s.
-- --races runs every case with the opt-in races check on (shared and global memory).
local runs, quick, build, races = 3, false, "build", false
local i = 1
while i <= #arg do
  if arg[i] == "--runs" then runs = tonumber(arg[i + 1]); i = i + 1
  elseif arg[i] == "--build" then build = arg[i + 1]; i = i + 1
  elseif arg[i] == "--quick" then quick = true
  elseif arg[i] == "--races" then races = true
  else io.stderr:write("usage: emu_throughput.lua [--build DIR] [--runs N] [--quick] [--races]\n"); os.exit(2) end
  i = i + 1
end
package.path = "lua/?.lua;lua/?/init.lua;" .. package.path
package.cpath = build .. "/lua/?.so;" .. package.cpath
local ptx = require "ptxlua"
local rt = require "ptxlua.emu"

local function load(file)
  ptx.reset()
  local ret = dofile(file)
  local ks = {}
  for _, k in ipairs(ptx.kernels()) do ks[k.name] = k end
  return ks, ret
end

local dev = rt.device("emu")
local function rand(n)
  local s = 12345
  return function() s = (s * 16807) % 2147483647; return (s / 2147483647) * 2 - 1 end
end

-- one case: kernel, defines, arrays (dtype, count, and a dev:tensormap spec when the kernel takes
-- the array's tensor map), scalar args; returns thread instructions, seconds
local function case(k, defines, arrays, scalars)
  local args, made = {}, {}
  for idx, spec in ipairs(arrays) do
    if spec then
      local r = rand()
      local a = dev:array(spec[1], spec[2], function() return r() end)
      args[idx] = spec[3] and dev:tensormap(a, spec[3]) or a
      made[#made + 1] = a
    end
  end
  for idx, v in pairs(scalars or {}) do args[idx] = v end
  local times, insns = {}, 0
  for _ = 1, runs do
    local st = k:launch { device = dev, args = args, defines = defines, checks = races and { races = true } or nil }
    times[#times + 1] = st.seconds
    insns = st.thread_insns
  end
  for _, a in ipairs(made) do a:free() end
  table.sort(times)
  return insns, times[math.floor((#times + 1) / 2)]
end

local rows = {}
local function report(name, insns, secs)
  rows[#rows + 1] = string.format("%-34s %14.0f %9.3f %10.1f", name, insns, secs, insns / secs / 1e6)
end

local va = load("kernels/vector_add.lua").vector_add
local n = quick and 65536 or 4194304
report(string.format("vector_add N=%d", n), case(va, { N = n }, { { "f32", n }, { "f32", n }, { "f32", n } }, { [4] = n }))

local rms = load("kernels/rmsnorm.lua").rmsnorm
local B, N = quick and 16 or 2048, 8192
report(string.format("rmsnorm B=%d N=%d", B, N),
       case(rms, { B = B, N = N }, { { "f32", B * N }, { "f32", N }, { "f32", B * N } }, { [4] = 1e-6 }))

local sm = load("kernels/softmax.lua").softmax
B = quick and 16 or 512
report(string.format("softmax B=%d N=%d", B, N), case(sm, { B = B, N = N }, { { "f32", B * N }, { "f32", B * N } }))

local gemm = load("kernels/gemm_mma.lua").gemm_mma
local M = quick and 128 or 256
report(string.format("gemm (mma.sync) %dx%dx%d", M, M, M),
       case(gemm, { M = M, N = M, K = M }, { { "bf16", M * M }, { "bf16", M * M }, { "f32", M * M } }))

local hgemm, hret = load("kernels/gemm.lua")
hgemm = hgemm.gemm
local HM, HK = quick and 128 or 256, quick and 64 or 128
local hdefs = { M = HM, N = HM, K = HK, SMS = 2 }
local ma, mb, mc = hret.maps(hdefs)
report(string.format("gemm (wgmma, TMA) %dx%dx%d", HM, HM, HK),
       case(hgemm, hdefs, { { "bf16", HM * HK, ma }, { "bf16", HM * HK, mb }, { "bf16", HM * HM, mc } }))
if not quick then                 -- a persistent GEMM of many tiles and k-tiles: the pipeline's bookkeeping
  hdefs = { M = 1024, N = 1024, K = 1024, SMS = 2 }
  ma, mb, mc = hret.maps(hdefs)
  report("gemm (wgmma, TMA) 1024x1024x1024",
         case(hgemm, hdefs, { { "bf16", 1024 * 1024, ma }, { "bf16", 1024 * 1024, mb }, { "bf16", 1024 * 1024, mc } }))
end

print(string.format("%-34s %14s %9s %10s", "case", "thread insns", "cpu s", "M/s"))
for _, r in ipairs(rows) do print(r) end
