-- ptx_scale.lua -- PTX in at every scale (issue 15): each shape of bench/ptx_shapes.lua at 1x, 2x,
-- 4x, 8x a base size, the CPU time (user + sys, median of RUNS) of every command that reads PTX:
--   lint      ptxlua --lint F
--   plain     ptxlua --from-ptx F -o P.lua          sugar     ptxlua --from-ptx F --sugar -o S.lua
--   run P     ptxlua P.lua --print-ptx              run S     ptxlua S.lua --print-ptx
--   diff      ptxlua --diff F F                     emu       a kernel of F run by the emulator
--                                                             (rt.launch of the plain script's
--                                                             kernel: parse + layout + one CTA)
-- and checks each file: lint clean, both scripts print F back byte for byte, --sugar never keeps
-- the whole file. Per command, the time ratio per doubling of the file (x2.0 is linear; a ratio
-- above 2.5 twice in a row is marked `<- superlinear`). With --base DIR (a build of the code before
-- a change) the same commands of that build, side by side, in the same run.
--   luajit bench/ptx_scale.lua [--build DIR] [--base DIR] [--shapes a,b] [--mb 2] [--steps 4]
--                              [--runs 3] [--base-runs 1] [--timeout S] [--base-timeout S]
--                              [--only lint,plain,...] [--dir DIR]
-- --mb: the base size (1x) in MB; --steps: how many doublings (4: 1x 2x 4x 8x); --dir keeps the
-- files (and reuses those already there). A command past its timeout shows as >S.
-- Internal: luajit bench/ptx_scale.lua --emulate SCRIPT.lua KERNEL (what the emu column runs).
package.path = debug.getinfo(1, "S").source:match("^@(.*/)") .. "?.lua;" .. package.path
local root = debug.getinfo(1, "S").source:match("^@(.*)/bench/[^/]*$") or "."

-- the emu column's command: load the script, launch KERNEL on one CTA of 32 threads (a .u64
-- parameter takes a 16 KB array, a byte array a string of zeros, a scalar 0)
if arg[1] == "--emulate" then
  local ptx = require "ptxlua"
  local rt = require "ptxlua.emu"
  dofile(arg[2])
  local k
  for _, x in ipairs(ptx.kernels()) do if x.name == arg[3] then k = x end end
  if not k then io.stderr:write("ptx_scale: no kernel " .. tostring(arg[3]) .. "\n"); os.exit(1) end
  local dev = rt.device "emu"
  local args = {}
  for i, p in ipairs(k.params) do
    if p.count then args[i] = string.rep("\0", p.count)
    elseif p.pointer then args[i] = dev:array("u32", 4096, 0)
    else args[i] = 0 end
  end
  k:launch { device = dev, args = args, grid = 1, block = 32 }
  os.exit(0)
end

local R = require "runstat"
local SH = require "ptx_shapes"

local opts = { build = root .. "/build", mb = 2, steps = 4, runs = 3, base_runs = 1, timeout = 600, base_timeout = 300 }
local i = 1
while i <= #arg do
  local a = arg[i]
  local function val() i = i + 1; return arg[i] or error("missing value for " .. a, 0) end
  if a == "--build" then opts.build = val()
  elseif a == "--base" then opts.base = val()
  elseif a == "--shapes" then opts.shapes = val()
  elseif a == "--mb" then opts.mb = tonumber(val())
  elseif a == "--steps" then opts.steps = tonumber(val())
  elseif a == "--runs" then opts.runs = tonumber(val())
  elseif a == "--base-runs" then opts.base_runs = tonumber(val())
  elseif a == "--timeout" then opts.timeout = tonumber(val())
  elseif a == "--base-timeout" then opts.base_timeout = tonumber(val())
  elseif a == "--only" then opts.only = val()
  elseif a == "--dir" then opts.dir = val()
  else
    io.stderr:write("usage: luajit bench/ptx_scale.lua [--build DIR] [--base DIR] [--shapes a,b] [--mb 2] [--steps 4] [--runs 3] " ..
                    "[--base-runs 1] [--timeout S] [--base-timeout S] [--only lint,plain,...] [--dir DIR]\n")
    os.exit(2)
  end
  i = i + 1
end

local function shq(s) return "'" .. tostring(s):gsub("'", "'\\''") .. "'" end
local function sh(cmd) local ok = os.execute(cmd) return ok == true or ok == 0 end
local function read(p) local f = io.open(p, "rb"); if not f then return nil end local s = f:read("*a"); f:close(); return s end
local function write(p, s) local f = assert(io.open(p, "wb")); f:write(s); f:close() end
local function list(s) local t = {} for x in s:gmatch("[^,]+") do t[#t + 1] = x end return t end
local function abs(p) if p:sub(1, 1) == "/" then return p end return (os.getenv("PWD") or ".") .. "/" .. p end

local dir = opts.dir or os.tmpname() .. ".d"
sh("mkdir -p " .. shq(dir))
local COLS = { "lint", "plain", "sugar", "runP", "runS", "diff", "emu" }
local only = {}
for _, c in ipairs(list(opts.only or table.concat(COLS, ","))) do only[c] = true end

-- median CPU seconds of argv over runs, or nil, "timeout" / "exit N" (stderr of a failure kept)
local function cpu_of(argv, runs, timeout, env)
  local full = { "timeout", tostring(timeout) }
  if env then full[#full + 1] = "env"; for _, e in ipairs(env) do full[#full + 1] = e end end
  for _, a in ipairs(argv) do full[#full + 1] = a end
  local t = {}
  for r = 1, runs do
    local x = R.run_once(full, true)
    if x.status == 124 then return nil, "timeout" end
    if x.status ~= 0 then return nil, "exit " .. x.status end
    t[r] = x.cpu
  end
  return R.median(t)
end

-- one build's commands on file f (emulable variant fe); results by column, and the checks
local function measure(build, f, fe, kernel, runs, timeout, tag)
  local exe = abs(build) .. "/ptxlua"
  -- the Lua modules of the tree the build was made from (another commit's, for --base)
  local cache = read(abs(build) .. "/CMakeCache.txt") or ""
  local src = cache:match("CMAKE_HOME_DIRECTORY:INTERNAL=([^\n]+)") or root
  local lpath = "LUA_PATH=" .. src .. "/lua/?.lua;" .. src .. "/lua/?/init.lua;;"
  local cpath = "LUA_CPATH=" .. abs(build) .. "/lua/?.so;;"
  local P, S, PE = f .. "." .. tag .. ".plain.lua", f .. "." .. tag .. ".sugar.lua", fe .. "." .. tag .. ".plain.lua"
  local t, why = {}, {}
  local function col(name, argv, env)
    if not only[name] then return end
    t[name], why[name] = cpu_of(argv, runs, timeout, env)
  end
  col("lint", { exe, "--lint", f })
  col("plain", { exe, "--from-ptx", f, "-o", P })
  col("sugar", { exe, "--from-ptx", f, "--sugar", "-o", S })
  col("runP", { exe, P, "--print-ptx" })
  col("runS", { exe, S, "--print-ptx" })
  col("diff", { exe, "--diff", f, f })
  if only.emu then
    if fe ~= f then sh(string.format("%s --from-ptx %s -o %s", shq(exe), shq(fe), shq(PE))) else PE = P end
    t.emu, why.emu = cpu_of({ "luajit", root .. "/bench/ptx_scale.lua", "--emulate", PE, kernel }, runs, timeout, { lpath, cpath })
  end
  -- the checks (outside the timed runs)
  local src = read(f)
  local chk = {}
  if only.lint then chk.lint = sh(string.format("%s --lint %s > /dev/null 2>&1", shq(exe), shq(f))) end
  if t.plain then
    sh(string.format("timeout %d %s %s --print-ptx > %s.back 2>/dev/null", timeout, shq(exe), shq(P), shq(f)))
    chk.plain = read(f .. ".back") == src
  end
  if t.sugar then
    sh(string.format("timeout %d %s %s --print-ptx > %s.back 2>/dev/null", timeout, shq(exe), shq(S), shq(f)))
    chk.sugar = read(f .. ".back") == src
    sh(string.format("timeout %d %s --from-ptx %s --sugar -o %s 2> %s.notes", timeout, shq(exe), shq(f), shq(S), shq(S)))
    local notes = read(S .. ".notes") or ""
    chk.whole = notes:find("the whole file", 1, true) ~= nil
    chk.kept = notes:match("kept verbatim: (%d+) of %d+ statements") or (chk.whole and "whole file") or "0"
  end
  os.remove(f .. ".back")
  return t, why, chk
end

local function cell(t, why, c, timeout)
  if t[c] then return string.format("%.3f", t[c]) end
  if why[c] == "timeout" then return string.format(">%d", timeout) end
  return why[c] or "-"
end

local load = (read("/proc/loadavg") or "?"):match("^(%S+ %S+ %S+)")
local commit = io.popen("git -C " .. shq(root) .. " rev-parse --short HEAD 2>/dev/null"):read("*l") or "?"
if io.popen("git -C " .. shq(root) .. " status --porcelain --untracked-files=no 2>/dev/null"):read("*a") ~= "" then commit = commit .. "+changes" end
print(string.format("ptx_scale: %s, commit %s, %d cores, load %s; CPU s (user+sys), median of %d%s",
                    os.date("!%Y-%m-%d %H:%M UTC"), commit, tonumber(io.popen("nproc"):read("*l")) or 0, load, opts.runs,
                    opts.base and string.format(" (base %s: %d run, timeout %d s)", opts.base, opts.base_runs, opts.base_timeout) or ""))
local hdr = "| shape | MB | lint | plain | sugar | sugar/plain | run P | run S | diff | emu | checks |"
if opts.base then hdr = hdr .. " base lint | base plain | base sugar | base sugar/plain | base run S | base diff | base emu | base checks |" end
print(hdr)
print((hdr:gsub("[^|]+", " --- ")))
local bad = 0
local series = {}   -- shape -> column -> times by step (this build, then the base as "b.")
for _, shape in ipairs(list(opts.shapes or table.concat(SH.names, ","))) do
  series[shape] = {}
  for step = 0, opts.steps - 1 do
    local mb = opts.mb * 2 ^ step
    local f = string.format("%s/%s_%gmb.ptx", dir, shape, mb)
    if not read(f) then write(f, (SH.file(shape, mb * 1e6))) end
    local fe = f
    if shape == "vars" then   -- the emulator does not lay out generic() initializers
      fe = string.format("%s/%s_%gmb.emu.ptx", dir, shape, mb)
      if not read(fe) then write(fe, (SH.file(shape, mb * 1e6, { emulable = true }))) end
    end
    local size = #read(f) / 1e6
    local kernel = SH.info[shape].kernel
    local b, bw, bc
    if opts.base then b, bw, bc = measure(opts.base, f, fe, kernel, opts.base_runs, opts.base_timeout, "base") end
    local t, w, c = measure(opts.build, f, fe, kernel, opts.runs, opts.timeout, "new")
    local checks = {}
    local function flag(ok, name) if ok == false then checks[#checks + 1] = name; bad = bad + 1 end end
    flag(c.lint, "LINT"); flag(c.plain, "PLAIN-DIFFERS"); flag(c.sugar, "SUGAR-DIFFERS")
    if c.whole then checks[#checks + 1] = "WHOLE-FILE"; bad = bad + 1 end
    local ck = #checks == 0 and ("ok, kept " .. (c.kept or "?")) or table.concat(checks, " ")
    local row = string.format("| %s | %.1f | %s | %s | %s | %s | %s | %s | %s | %s | %s |", shape, size, cell(t, w, "lint", opts.timeout),
                              cell(t, w, "plain", opts.timeout), cell(t, w, "sugar", opts.timeout),
                              (t.sugar and t.plain) and string.format("%.1fx", t.sugar / t.plain) or "-",
                              cell(t, w, "runP", opts.timeout), cell(t, w, "runS", opts.timeout), cell(t, w, "diff", opts.timeout),
                              cell(t, w, "emu", opts.timeout), ck)
    if b then
      local bchecks = {}
      if bc.lint == false then bchecks[#bchecks + 1] = "LINT" end
      if bc.sugar == false then bchecks[#bchecks + 1] = "SUGAR-DIFFERS" end
      if bc.whole then bchecks[#bchecks + 1] = "WHOLE-FILE" end
      row = row .. string.format(" %s | %s | %s | %s | %s | %s | %s | %s |", cell(b, bw, "lint", opts.base_timeout),
                                 cell(b, bw, "plain", opts.base_timeout), cell(b, bw, "sugar", opts.base_timeout),
                                 (b.sugar and b.plain) and string.format("%.1fx", b.sugar / b.plain) or "-",
                                 cell(b, bw, "runS", opts.base_timeout), cell(b, bw, "diff", opts.base_timeout),
                                 cell(b, bw, "emu", opts.base_timeout),
                                 #bchecks == 0 and ("ok, kept " .. (bc.kept or "-")) or table.concat(bchecks, " "))
    end
    print(row)
    io.stdout:flush()
    for _, col in ipairs(COLS) do
      series[shape][col] = series[shape][col] or {}
      series[shape][col][step + 1] = t[col] or false
      if b then
        series[shape]["b." .. col] = series[shape]["b." .. col] or {}
        series[shape]["b." .. col][step + 1] = b[col] or false
      end
    end
  end
end

-- the time ratio per doubling, per shape and command (figures under 20 ms are noise: not judged)
print("")
print("time ratio per doubling (x2.0 is linear; `<- superlinear`: above 2.5 twice in a row)")
local super = 0
for _, shape in ipairs(list(opts.shapes or table.concat(SH.names, ","))) do
  local parts = {}
  for _, col in ipairs(COLS) do
    for _, key in ipairs { col, "b." .. col } do
      local s = series[shape][key]
      if s and opts.steps > 1 then
        local r, high, mark = {}, 0, ""
        for k = 2, #s do
          if s[k] and s[k - 1] and s[k - 1] >= 0.02 then
            local x = s[k] / s[k - 1]
            r[#r + 1] = string.format("%.1f", x)
            high = x > 2.5 and high + 1 or 0
            if high >= 2 then mark = " <- superlinear" end
          else r[#r + 1] = "-" end
        end
        if mark ~= "" and key == col then super = super + 1 end
        parts[#parts + 1] = string.format("%s %s%s", key, table.concat(r, " "), mark)
      end
    end
  end
  print(string.format("%-10s %s", shape, table.concat(parts, "; ")))
end
load = (read("/proc/loadavg") or "?"):match("^(%S+ %S+ %S+)")
print(string.format("load at the end: %s; %d failed checks, %d superlinear series (this build)%s", load, bad, super,
                    opts.dir and "" or ("; files in " .. dir)))
os.exit((bad == 0 and super == 0) and 0 or 1)
