-- sugar_speed.lua -- `ptxlua --from-ptx --sugar` against the plain transpile on multi-MB compiler
-- output (issue 15: sugar within 5x of the plain transpile on every file, linear in the input).
-- Builds the stand-ins first: bench/sugar_standin.cu (inline-PTX helpers in `{ }` blocks, as
-- CUTLASS / FlashAttention-3 / cuda_fp16.h write them) instantiated until nvcc 13.0's PTX reaches
-- each size, as is, with -lineinfo and with -G. Then, per file, CPU time (user + sys, median of
-- RUNS) of the plain transpile, the sugared one, and the sugared script run back to the PTX
-- (`ptxlua OUT.lua --print-ptx`), checking that it prints the file back byte for byte; with
-- --base DIR (a build of the code before a change) the same commands of that build, interleaved
-- run by run with the new ones, side by side.
--   luajit bench/sugar_speed.lua [--build DIR] [--base DIR] [--sizes 6,12] [--flavors plain,lineinfo,G]
--                                [--runs 3] [--base-runs 1] [--base-timeout S] [--dir DIR]
-- --dir keeps the stand-ins (and reuses those already there). --base-timeout: a base command still
-- running after S seconds (the quadratic writer takes minutes on 12 MB) is stopped and shown as >S. Needs nvcc (CUDA 13.0) on the PATH or
-- in /usr/local/cuda/bin.
package.path = debug.getinfo(1, "S").source:match("^@(.*/)") .. "?.lua;" .. package.path
local R = require "runstat"

local root = debug.getinfo(1, "S").source:match("^@(.*)/bench/[^/]*$") or "."
local opts = { build = root .. "/build", sizes = "6,12", flavors = "plain,lineinfo,G", runs = 3, base_runs = 1, base_timeout = 900 }
local i = 1
while i <= #arg do
  local a = arg[i]
  local function val() i = i + 1; return arg[i] or error("missing value for " .. a, 0) end
  if a == "--build" then opts.build = val()
  elseif a == "--base" then opts.base = val()
  elseif a == "--sizes" then opts.sizes = val()
  elseif a == "--flavors" then opts.flavors = val()
  elseif a == "--runs" then opts.runs = tonumber(val())
  elseif a == "--base-runs" then opts.base_runs = tonumber(val())
  elseif a == "--base-timeout" then opts.base_timeout = tonumber(val())
  elseif a == "--dir" then opts.dir = val()
  else io.stderr:write("usage: luajit bench/sugar_speed.lua [--build DIR] [--base DIR] [--sizes 6,12] [--flavors plain,lineinfo,G] [--runs N] [--base-runs N] [--dir DIR]\n"); os.exit(2) end
  i = i + 1
end

local function sh(cmd)
  local ok = os.execute(cmd)
  return ok == true or ok == 0
end
local function shq(s) return "'" .. tostring(s):gsub("'", "'\\''") .. "'" end
local function read(p) local f = io.open(p, "rb"); if not f then return nil end local s = f:read("*a"); f:close(); return s end
local function write(p, s) local f = assert(io.open(p, "wb")); f:write(s); f:close() end
local function list(s) local t = {} for x in s:gmatch("[^,]+") do t[#t + 1] = x end return t end

local nvcc = "nvcc"
if not sh("command -v nvcc >/dev/null 2>&1") then nvcc = "/usr/local/cuda/bin/nvcc" end
if not sh("test -x " .. shq(nvcc) .. " || command -v nvcc >/dev/null 2>&1") then
  io.stderr:write("sugar_speed: nvcc not found (CUDA 13.0)\n"); os.exit(2)
end
local dir = opts.dir or os.tmpname() .. ".d"
sh("mkdir -p " .. shq(dir))

local FLAGS = { plain = "", lineinfo = "-lineinfo", G = "-G" }
-- the stand-in of `flavor` with n instances of attn (N = 20 + k iterations each, distinct V)
local function standin(flavor, n, out)
  local inc = {}
  for k = 1, n do
    inc[#inc + 1] = string.format("template __global__ void attn<%d, %d>(const half *, const half *, float *, float, int);\n", 20 + k % 17, k)
  end
  local d = dir .. "/src_" .. flavor
  sh("mkdir -p " .. shq(d))
  write(d .. "/attn_instances.inc", table.concat(inc))
  sh("cp " .. shq(root .. "/bench/sugar_standin.cu") .. " " .. shq(d .. "/sugar_standin.cu"))
  local cmd = string.format("env -u LD_PRELOAD %s -ptx -arch=sm_90a %s %s -o %s", shq(nvcc), FLAGS[flavor],
                            shq(d .. "/sugar_standin.cu"), shq(out))
  if not sh(cmd) then error("nvcc failed: " .. cmd, 0) end
end

-- the stand-ins: for each flavor, the bytes one instance adds, then the count for each size
local files = {}
for _, flavor in ipairs(list(opts.flavors)) do
  if not FLAGS[flavor] then error("unknown flavor " .. flavor, 0) end
  local per
  for _, mb in ipairs(list(opts.sizes)) do
    local out = string.format("%s/standin_%s_%smb.ptx", dir, flavor, mb)
    if not read(out) then
      if not per then
        local p4 = dir .. "/probe_" .. flavor .. ".ptx"
        standin(flavor, 8, p4)
        per = #read(p4) / 8
      end
      standin(flavor, math.max(1, math.floor(tonumber(mb) * 1e6 / per + 0.5)), out)
    end
    files[#files + 1] = out
  end
end

-- the median CPU seconds of argv over runs (quiet), or nil when a run went past timeout seconds
local function cpu_of(argv, runs, timeout)
  if timeout then
    local t = { "timeout", tostring(timeout) }
    for _, a in ipairs(argv) do t[#t + 1] = a end
    argv = t
  end
  local ok, r = pcall(R.measure, argv, runs, 0, true)
  if not ok then
    if timeout and tostring(r):find("status 124", 1, true) then return nil end
    error(r, 0)
  end
  return r.cpu.median
end
-- one build's three commands on file f: medians of CPU seconds; whether the script printed f back
local function measure(exe, f, runs, tag, timeout)
  local plain = f .. "." .. tag .. ".plain.lua"
  local sugar = f .. "." .. tag .. ".sugar.lua"
  local back = f .. "." .. tag .. ".back"
  local t = {}
  t.plain = cpu_of({ exe, "--from-ptx", f, "-o", plain }, runs)
  t.sugar = cpu_of({ exe, "--from-ptx", f, "--sugar", "-o", sugar }, runs, timeout)
  if not t.sugar then t.timeout = true; return t end
  t.run = cpu_of({ exe, sugar, "--print-ptx" }, runs)
  sh(string.format("%s %s --print-ptx > %s 2>/dev/null; %s --from-ptx %s --sugar -o %s 2> %s.notes", shq(exe), shq(sugar), shq(back),
                   shq(exe), shq(f), shq(sugar), shq(sugar)))
  local notes = read(sugar .. ".notes") or ""
  t.same = read(back) == read(f)
  t.kept = notes:match("kept verbatim: (%d+) of %d+ statements") or (notes:find("the whole file", 1, true) and "whole file")
  if not t.kept then   -- the notes of a build before the summary: a line per run of statements
    local n = 0
    for l in notes:gmatch("[^\n]+") do n = n + (tonumber(l:match("%((%d+) statements%)$")) or (l:find("kept verbatim", 1, true) and 1 or 0)) end
    t.kept = tostring(n)
  end
  os.remove(back)
  return t
end

local load = (read("/proc/loadavg") or "?"):match("^(%S+ %S+ %S+)")
local commit = io.popen("git -C " .. shq(root) .. " rev-parse --short HEAD 2>/dev/null"):read("*l") or "?"
print(string.format("sugar_speed: %s, commit %s, %d cores, load %s; CPU s (user+sys), median of %d (base: %d)",
                    os.date("!%Y-%m-%d %H:%M UTC"), commit, tonumber(io.popen("nproc"):read("*l")) or 0, load, opts.runs, opts.base_runs))
print("| file | MB | plain | sugar | sugar/plain | run script | kept verbatim | round trip |" .. (opts.base and " base sugar | base/plain | base run | base kept |" or ""))
print("| --- | --- | --- | --- | --- | --- | --- | --- |" .. (opts.base and " --- | --- | --- | --- |" or ""))
for _, f in ipairs(files) do
  local size = #read(f) / 1e6
  local b
  if opts.base then b = measure(opts.base .. "/ptxlua", f, opts.base_runs, "base", opts.base_timeout) end
  local t = measure(opts.build .. "/ptxlua", f, opts.runs, "new")
  local row = string.format("| %s | %.1f | %.3f | %.3f | %.1fx | %.3f | %s | %s |", f:match("[^/]+$"), size, t.plain, t.sugar,
                            t.sugar / t.plain, t.run, t.kept, t.same and "identical" or "DIFFERS")
  if b and b.timeout then
    row = row .. string.format(" > %d | > %dx | - | - |", opts.base_timeout, math.floor(opts.base_timeout / b.plain))
  elseif b then
    row = row .. string.format(" %.3f | %.1fx | %.3f | %s |", b.sugar, b.sugar / b.plain, b.run, b.kept)
  end
  print(row)
  io.stdout:flush()
end
load = (read("/proc/loadavg") or "?"):match("^(%S+ %S+ %S+)")
print("load at the end: " .. load .. (opts.dir and "" or ("; stand-ins in " .. dir)))
