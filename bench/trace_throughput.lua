-- trace_throughput.lua -- trace + validate + print throughput and memory on bench/gemm_unrolled.lua.
-- Runs under LuaJIT: luajit bench/trace_throughput.lua [options]   (bench/README.md)
--   --build DIR     the build directory holding ptxlua and lua/ptxlua/core.so (default $PTXLUA_BUILD or build)
--   --sizes LIST    instruction counts, comma separated (default 10000,100000,1000000)
--   --runs N        repetitions of each measurement; the median is reported (default 5)
--   --no-command    skip the whole-command measurement (in-process figures only)
-- In process (CPU time, os.clock): (a) ptx.build = trace + validate, (b) m:write to /dev/null =
-- print, streamed the way the command does. Whole command: `ptxlua bench/gemm_unrolled.lua -D N=...
-- --print-ptx > /dev/null` run by bench/runstat.lua (CPU time from wait4; peak RSS through
-- /usr/bin/time); bytes per instruction are its peak RSS minus that of the same command at N=0,
-- divided by the extra instructions.
-- No thresholds are checked here: the figures and the targets are compared in docs/performance.md.

local function script_dir()
  local src = debug.getinfo(1, "S").source:sub(2)
  return src:match("^(.*)/[^/]*$") or "."
end
local ROOT = script_dir():match("^(.*)/bench$") or (script_dir() == "bench" and ".") or (script_dir() .. "/..")

local opts = { build = os.getenv("PTXLUA_BUILD") or (ROOT .. "/build"),
               sizes = { 10000, 100000, 1000000 }, runs = 5, command = true }
do
  local i = 1
  while arg and arg[i] do
    local a = arg[i]
    if a == "--build" then opts.build = arg[i + 1]; i = i + 1
    elseif a == "--sizes" then
      opts.sizes = {}
      for s in (arg[i + 1] or ""):gmatch("[^,]+") do opts.sizes[#opts.sizes + 1] = assert(tonumber(s), "bad size " .. s) end
      i = i + 1
    elseif a == "--runs" then opts.runs = assert(tonumber(arg[i + 1]), "--runs needs a number"); i = i + 1
    elseif a == "--no-command" then opts.command = false
    else io.stderr:write("trace_throughput.lua: unknown option ", a, "\n"); os.exit(2) end
    i = i + 1
  end
end
if not opts.build:match("^/") then opts.build = os.getenv("PWD") .. "/" .. opts.build end

package.path = ROOT .. "/lua/?.lua;" .. ROOT .. "/lua/?/init.lua;" .. ROOT .. "/bench/?.lua;" .. package.path
package.cpath = opts.build .. "/lua/?.so;" .. package.cpath
local ptx = require "ptxlua"
local runstat = require "runstat"
local KERNEL = ROOT .. "/bench/gemm_unrolled.lua"
local EXE = opts.build .. "/ptxlua"

local median = runstat.median

local function si(v)
  if v >= 1e6 then return string.format("%.2fM", v / 1e6) end
  if v >= 1e3 then return string.format("%.0fk", v / 1e3) end
  return string.format("%.0f", v)
end

---------------------------------------------------------------------------------------------------
-- in process: trace + validate, then print
---------------------------------------------------------------------------------------------------
ptx.reset()
dofile(KERNEL)

local function in_process(n)
  local tr, pr, insns, irb = {}, {}, 0, 0
  for _ = 1, opts.runs do
    collectgarbage("collect")
    local t0 = os.clock()
    local m = ptx.build { defines = { N = n } }
    local t1 = os.clock()
    local f = assert(io.open("/dev/null", "w"))
    assert(m:write(f))
    f:close()
    local t2 = os.clock()
    local st = m:stats()
    insns, irb = st.instructions, st.ir_bytes
    tr[#tr + 1], pr[#pr + 1] = t1 - t0, t2 - t1
    m = nil -- luacheck: ignore
  end
  collectgarbage("collect")
  return { insns = insns, ir_bytes = irb, trace = median(tr), print = median(pr),
           trace_min = math.min(unpack(tr)), print_min = math.min(unpack(pr)) }
end

---------------------------------------------------------------------------------------------------
-- the whole command
---------------------------------------------------------------------------------------------------
local function command(n)
  local argv = { EXE, KERNEL, "-D", "N=" .. n, "--print-ptx" }
  local s = runstat.measure(argv, opts.runs, 1)
  local rss = runstat.peak_rss(argv, math.min(opts.runs, 3))
  return { wall = s.wall.median, cpu = s.cpu.median, cpu_min = s.cpu.min, cpu_max = s.cpu.max, rss_kb = rss and rss.median }
end

---------------------------------------------------------------------------------------------------
-- report
---------------------------------------------------------------------------------------------------
local f = io.popen("grep -m1 'model name' /proc/cpuinfo")
local cpu_name = f and (f:read("*l") or ""):gsub("^model name%s*:%s*", "") or "?"
if f then f:close() end
f = io.open("/proc/loadavg")
local load = f and f:read("*l") or "?"
if f then f:close() end

f = io.popen("git -C '" .. ROOT .. "' rev-parse --short HEAD 2>/dev/null")
local rev = f and f:read("*l") or nil
if f then f:close() end

print(string.format("ptxlua trace throughput -- bench/gemm_unrolled.lua, %d run(s) each, medians of CPU time", opts.runs))
print(string.format("build: %s; source: %s (HEAD %s)", opts.build, ROOT, rev or "?"))
print(string.format("cpu: %s; nproc %s; loadavg at start: %s", cpu_name, (io.popen("nproc"):read("*l")), load))
print("")
print("in process (ptx.build = trace + validate; m:write to /dev/null = print)")
print(string.format("%10s %9s %9s %12s %9s %12s %12s %9s",
  "N", "insns", "trace s", "trace ins/s", "print s", "print ins/s", "total ins/s", "IR B/ins"))
local rows = {}
for _, n in ipairs(opts.sizes) do
  local r = in_process(n)
  rows[n] = r
  local tot = r.trace + r.print
  print(string.format("%10d %9d %9.4f %12s %9.4f %12s %12s %9.1f", n, r.insns, r.trace,
    si(r.insns / math.max(r.trace, 1e-9)), r.print, si(r.insns / math.max(r.print, 1e-9)),
    si(r.insns / math.max(tot, 1e-9)), r.ir_bytes / math.max(r.insns, 1)))
end

if opts.command then
  print("")
  print("whole command: ptxlua bench/gemm_unrolled.lua -D N=<N> --print-ptx > /dev/null (fork + exec, wait4 rusage)")
  local base = command(0)
  local b0 = in_process(0).insns
  print(string.format("%10s %9s %9s %9s %9s %9s %12s %11s %9s", "N", "insns", "wall s", "cpu s", "cpu min", "cpu max",
    "cpu ins/s", "peak RSS kB", "B/ins"))
  local function kb(v) return v and string.format("%d", v) or "n/a" end
  print(string.format("%10d %9d %9.3f %9.3f %9.3f %9.3f %12s %11s %9s", 0, b0, base.wall, base.cpu, base.cpu_min, base.cpu_max,
    "-", kb(base.rss_kb), "-"))
  for _, n in ipairs(opts.sizes) do
    local c = command(n)
    local r = rows[n]
    local bpi = (c.rss_kb and base.rss_kb) and string.format("%.1f", (c.rss_kb - base.rss_kb) * 1024 / math.max(r.insns - b0, 1)) or "n/a"
    print(string.format("%10d %9d %9.3f %9.3f %9.3f %9.3f %12s %11s %9s", n, r.insns, c.wall, c.cpu, c.cpu_min, c.cpu_max,
      si(r.insns / math.max(c.cpu, 1e-9)), kb(c.rss_kb), bpi))
  end
  if not base.rss_kb then print("(peak RSS needs /usr/bin/time: apt-get install time)") end
end
