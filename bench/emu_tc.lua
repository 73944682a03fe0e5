-- emu_tc.lua -- the emulator's tensor-core engine: GFLOP/s (2 M N K / CPU seconds of the launch, one
-- core) of the Hopper wgmma GEMM (kernels/gemm.lua: TMA, wgmma m64n256k16, a cluster of 2) at
-- 1024^3 and 512^3 bf16, and of the mma.sync GEMM (kernels/gemm_mma.lua: cp.async, ldmatrix,
-- mma.sync m16n8k16) at 512^3, and of the Blackwell tcgen05 GEMM (kernels/gemm_sm100.lua: one CTA
-- alone, CLUSTER = 1, tcgen05.mma.cta_group::1 m128n256k16, 4 stages) at 1024^3, each result
-- checked against a double reference on sampled entries.
-- With --base DIR the same cases run with another build (its own lua/ and kernels/, from the source
-- directory of its CMakeCache.txt) in the same run, the two builds alternating run by run; every
-- figure is the median of --runs runs, each a fresh process.
-- Run from the repository root:
--   luajit bench/emu_tc.lua [--build DIR] [--base DIR] [--runs 5] [--cases wgmma1024,wgmma512,mma512,tcgen05_1024]
--                           [--quick]
-- --quick: small shapes (wgmma and tcgen05 128 x 256 x 64, mma.sync 128^3), one run: that the
-- script works. A build whose source tree lacks a case's kernel file gets no figure for it.
local build, base, runs, quick, only = "build", nil, 5, false, nil
local self_path = arg[0]
local one
local i = 1
local function usage()
  io.stderr:write("usage: emu_tc.lua [--build DIR] [--base DIR] [--runs N] [--cases a,b] [--quick]\n")
  os.exit(2)
end
while i <= #arg do
  local a = arg[i]
  if a == "--build" then build = arg[i + 1]; i = i + 1
  elseif a == "--base" then base = arg[i + 1]; i = i + 1
  elseif a == "--runs" then runs = tonumber(arg[i + 1]) or usage(); i = i + 1
  elseif a == "--cases" then only = arg[i + 1]; i = i + 1
  elseif a == "--quick" then quick = true
  elseif a == "--one" then one = arg[i + 1]; i = i + 1   -- internal: run one case in this process
  else usage() end
  i = i + 1
end

-- name, kernel file, kernel name, M, N, K, extra defines
local CASES = {
  { "wgmma1024", "kernels/gemm.lua", "gemm", 1024, 1024, 1024, { SMS = 2 } },
  { "wgmma512", "kernels/gemm.lua", "gemm", 512, 512, 512, { SMS = 2 } },
  { "mma512", "kernels/gemm_mma.lua", "gemm_mma", 512, 512, 512, {} },
  { "tcgen05_1024", "kernels/gemm_sm100.lua", "gemm_sm100", 1024, 1024, 1024, { CLUSTER = 1, STAGES = 4 } },
}
local QUICK = {
  { "wgmma-quick", "kernels/gemm.lua", "gemm", 128, 256, 64, { SMS = 2 } },
  { "mma-quick", "kernels/gemm_mma.lua", "gemm_mma", 128, 128, 128, {} },
  { "tcgen05-quick", "kernels/gemm_sm100.lua", "gemm_sm100", 128, 256, 64, { CLUSTER = 1, STAGES = 4 } },
}
local function find_case(name)
  for _, list in ipairs { CASES, QUICK } do
    for _, c in ipairs(list) do if c[1] == name then return c end end
  end
end

---------------------------------------------------------------------------------------------------
-- one case in this process (the current directory is the build's source tree): prints
-- "RESULT seconds thread_insns checked max_err"
if one then
  local c = find_case(one)
  if not c then io.stderr:write("emu_tc.lua: no case " .. one .. "\n"); os.exit(2) end
  package.path = "lua/?.lua;lua/?/init.lua;" .. package.path
  package.cpath = build .. "/lua/?.so;" .. package.cpath
  local ptx = require "ptxlua"
  local rt = require "ptxlua.emu"
  local _, file, kname, M, N, K, extra = (table.unpack or unpack)(c)
  ptx.reset()
  local ret = dofile(file)
  local k
  for _, kk in ipairs(ptx.kernels()) do if kk.name == kname then k = kk end end
  local defs = { M = M, N = N, K = K }
  for n, v in pairs(extra) do defs[n] = v end
  local dev = rt.device("emu")
  local s = 12345
  local function rnd() s = (s * 16807) % 2147483647; return (s / 2147483647) * 2 - 1 end
  local A = dev:array("bf16", M * K, function() return rnd() end)
  local B = dev:array("bf16", N * K, function() return rnd() end)
  local C = dev:array("f32", M * N, nil)
  local args
  if ret and ret.maps then
    defs.OUT = "f32"
    local sa, sb, sc = ret.maps(defs)
    args = { dev:tensormap(A, sa), dev:tensormap(B, sb), dev:tensormap(C, sc) }
  else
    args = { A, B, C }
  end
  local st = k:launch { device = dev, args = args, defines = defs }
  -- sampled entries against a double reference: the bound of an f32 sum of K exact products
  local as, bs, cs = A:read(), B:read(), C:read()
  local worst, checked = 0, 0
  for t = 0, 255 do
    local r, q = (t * 7919) % M, (t * 104729 + 13) % N
    local sum, mag = 0, 0
    for kk = 1, K do
      local p = as[r * K + kk] * bs[q * K + kk]
      sum, mag = sum + p, mag + math.abs(p)
    end
    local err = math.abs(cs[r * N + q + 1] - sum) / (K * 2 ^ -24 * mag + 1e-30)
    if err > 1 then
      io.stderr:write(string.format("emu_tc.lua: %s C[%d][%d] = %.9g, want %.9g\n", one, r, q, cs[r * N + q + 1], sum))
      os.exit(1)
    end
    if err > worst then worst = err end
    checked = checked + 1
  end
  print(string.format("RESULT %.6f %.0f %d %.3f", st.seconds, st.thread_insns, checked, worst))
  os.exit(0)
end

---------------------------------------------------------------------------------------------------
-- the driver: every case, every build, alternating
local function sh_quote(s) return "'" .. tostring(s):gsub("'", "'\\''") .. "'" end
local function abspath(p)
  local h = io.popen("cd " .. sh_quote(p) .. " && pwd")
  local r = h:read("*l")
  h:close()
  if not r then io.stderr:write("emu_tc.lua: no directory " .. p .. "\n"); os.exit(2) end
  return r
end
-- the source directory a build was configured from
local function source_of(dir)
  local f = io.open(dir .. "/CMakeCache.txt")
  if not f then io.stderr:write("emu_tc.lua: " .. dir .. " has no CMakeCache.txt\n"); os.exit(2) end
  local src
  for line in f:lines() do
    src = src or line:match("^CMAKE_HOME_DIRECTORY:INTERNAL=(.*)$")
  end
  f:close()
  return src
end
local script = self_path:sub(1, 1) == "/" and self_path or (abspath(".") .. "/" .. self_path)
local builds = { { "build", abspath(build) } }
if base then builds[2] = { "base", abspath(base) } end
for _, b in ipairs(builds) do b[3] = source_of(b[2]) end

local list = quick and QUICK or CASES
if quick then runs = 1 end
if only then
  list = {}
  for name in only:gmatch("[^,]+") do
    local c = find_case(name)
    if not c then io.stderr:write("emu_tc.lua: no case " .. name .. "\n"); os.exit(2) end
    list[#list + 1] = c
  end
end

local function run_one(b, c)
  local cmd = "cd " .. sh_quote(b[3]) .. " && luajit " .. sh_quote(script) .. " --build " .. sh_quote(b[2]) ..
              " --one " .. sh_quote(c[1]) .. " 2>&1"
  local h = io.popen(cmd)
  local out = h:read("*a")
  h:close()
  local secs, insns, checked, worst = out:match("RESULT (%S+) (%S+) (%S+) (%S+)")
  if not secs then
    io.stderr:write("emu_tc.lua: " .. c[1] .. " with " .. b[2] .. " failed:\n" .. out)
    os.exit(1)
  end
  return tonumber(secs), tonumber(insns), tonumber(checked), tonumber(worst)
end

local function loadavg()
  local f = io.open("/proc/loadavg")
  local l = f and f:read("*l") or "?"
  if f then f:close() end
  return l:match("^(%S+ %S+ %S+)") or l
end

print("load average at start: " .. loadavg())
local rows = {}
for _, c in ipairs(list) do
  local t = {}
  for _, b in ipairs(builds) do t[b[1]] = {} end
  local insns = {}
  for _ = 1, runs do
    for _, b in ipairs(builds) do
      local f = io.open(b[3] .. "/" .. c[2])   -- a build from before the kernel: no figure
      if f then f:close() end
      local secs, n, worst
      if f then secs, n, _, worst = run_one(b, c) end
      if not secs then t[b[1]].none = true; break end
      table.insert(t[b[1]], secs)
      insns[b[1]] = n
      t[b[1]].worst = math.max(t[b[1]].worst or 0, worst)
    end
  end
  local flop = 2 * c[4] * c[5] * c[6]
  for _, b in ipairs(builds) do
    local v = t[b[1]]
    if v.none then
      rows[#rows + 1] = string.format("%-12s %-6s %5dx%dx%d  (no %s in this build)", c[1], b[1], c[4],
                                      c[5], c[6], c[2])
      goto next_build
    end
    table.sort(v)
    local med = v[math.floor((#v + 1) / 2)]
    rows[#rows + 1] = string.format("%-12s %-6s %5dx%dx%d %9.3f %9.3f %9.3f %8.2f %14.0f %7.2f",
                                    c[1], b[1], c[4], c[5], c[6], med, v[1], v[#v], flop / med / 1e9,
                                    insns[b[1]], v.worst)
    v.med = med
    ::next_build::
  end
  if base and t.base.med and t.build.med then
    rows[#rows + 1] = string.format("%-12s speedup %.2fx", c[1], t.base.med / t.build.med)
  end
end
print(string.format("%-12s %-6s %13s %9s %9s %9s %8s %14s %7s", "case", "build", "M x N x K", "median s",
                    "min s", "max s", "GFLOP/s", "thread insns", "err/bnd"))
for _, r in ipairs(rows) do print(r) end
print("load average at end: " .. loadavg())
