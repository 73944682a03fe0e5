-- runstat.lua -- run a command many times; report wall time, CPU time (user + sys) and peak RSS.
-- A module for the other bench scripts and a command of its own (LuaJIT, Linux):
--   luajit bench/runstat.lua [-n RUNS] [--warmup K] -- COMMAND [ARGS...]
-- Each run is fork + execvp with stdin and stdout on /dev/null (stderr kept); the child's CPU
-- time (user + sys) comes from wait4, the wall time from CLOCK_MONOTONIC around fork .. wait4.
-- No shell sits between the timer and the command.
-- Peak RSS is measured in separate runs through /usr/bin/time (its %M): a child forked from this
-- process starts with this process's resident pages, and Linux keeps that in the child's
-- ru_maxrss across exec, so wait4's figure would be max(ours, the command's). /usr/bin/time is a
-- small process, as a shell would be; without it (Debian package `time`) RSS is not reported.
local ffi = require "ffi"

ffi.cdef [[
typedef int pid_t;
struct pl_timeval { long tv_sec; long tv_usec; };
struct pl_rusage {
  struct pl_timeval ru_utime, ru_stime;
  long ru_maxrss, ru_ixrss, ru_idrss, ru_isrss, ru_minflt, ru_majflt, ru_nswap, ru_inblock,
       ru_oublock, ru_msgsnd, ru_msgrcv, ru_nsignals, ru_nvcsw, ru_nivcsw;
};
struct pl_timespec { long tv_sec; long tv_nsec; };
int clock_gettime(int clk, struct pl_timespec *ts);
pid_t fork(void);
int execvp(const char *file, char *const argv[]);
pid_t wait4(pid_t pid, int *status, int options, struct pl_rusage *ru);
int open(const char *path, int flags, ...);
int dup2(int oldfd, int newfd);
int close(int fd);
void _exit(int status);
char *strerror(int errnum);
]]

local C = ffi.C
local CLOCK_MONOTONIC, O_RDONLY, O_WRONLY = 1, 0, 1

local R = {}

local function now()
  local ts = ffi.new("struct pl_timespec")
  C.clock_gettime(CLOCK_MONOTONIC, ts)
  return tonumber(ts.tv_sec) + tonumber(ts.tv_nsec) * 1e-9
end
R.now = now

local function median(t)
  local s = {}
  for i, v in ipairs(t) do s[i] = v end
  table.sort(s)
  local n = #s
  if n == 0 then return nil end
  if n % 2 == 1 then return s[(n + 1) / 2] end
  return (s[n / 2] + s[n / 2 + 1]) / 2
end
R.median = median

local function summary(t)
  local lo, hi = math.huge, -math.huge
  for _, v in ipairs(t) do lo = math.min(lo, v); hi = math.max(hi, v) end
  return { median = median(t), min = lo, max = hi, n = #t }
end
R.summary = summary

-- one run of argv (a list of strings); returns { wall, user, sys, cpu, maxrss_kb, minflt, status }
-- (quiet: stderr to /dev/null too)
function R.run_once(argv, quiet)
  local n = #argv
  local cargv = ffi.new("char *[?]", n + 1)
  local keep = {}
  for i = 1, n do
    keep[i] = ffi.new("char[?]", #argv[i] + 1, argv[i])
    cargv[i - 1] = keep[i]
  end
  cargv[n] = nil
  local ru = ffi.new("struct pl_rusage")
  local st = ffi.new("int[1]")
  io.stdout:flush(); io.stderr:flush()
  local t0 = now()
  local pid = C.fork()
  if pid == 0 then
    local fi = C.open("/dev/null", O_RDONLY)
    local fo = C.open("/dev/null", O_WRONLY)
    if fi >= 0 then C.dup2(fi, 0); C.close(fi) end
    if fo >= 0 then C.dup2(fo, 1); if quiet then C.dup2(fo, 2) end C.close(fo) end
    C.execvp(cargv[0], cargv)
    C._exit(127)
  end
  if pid < 0 then error("fork failed: " .. ffi.string(C.strerror(ffi.errno()))) end
  local r
  repeat r = C.wait4(pid, st, 0, ru) until r == pid or (r < 0 and ffi.errno() ~= 4)
  local t1 = now()
  if r < 0 then error("wait4 failed: " .. ffi.string(C.strerror(ffi.errno()))) end
  local user = tonumber(ru.ru_utime.tv_sec) + tonumber(ru.ru_utime.tv_usec) * 1e-6
  local sys = tonumber(ru.ru_stime.tv_sec) + tonumber(ru.ru_stime.tv_usec) * 1e-6
  local raw = st[0]
  local status = (raw % 128 == 0) and math.floor(raw / 256) % 256 or 128 + raw % 128
  return { wall = t1 - t0, user = user, sys = sys, cpu = user + sys, minflt = tonumber(ru.ru_minflt), status = status }
end

local TIME = "/usr/bin/time"
local function have_time()
  local f = io.open(TIME, "r")
  if f then f:close() end
  return f ~= nil
end

-- peak RSS (kB) of argv over `runs` runs through /usr/bin/time; nil, reason when it is missing
function R.peak_rss(argv, runs)
  if not have_time() then return nil, "/usr/bin/time not found (apt-get install time)" end
  local tmp = os.tmpname()
  local out = {}
  for i = 1, runs do
    local full = { TIME, "-f", "%M", "-o", tmp }
    for _, a in ipairs(argv) do full[#full + 1] = a end
    local r = R.run_once(full)
    if r.status ~= 0 then os.remove(tmp); error(string.format("`%s` exited with status %d", table.concat(argv, " "), r.status), 0) end
    local f = assert(io.open(tmp, "r"))
    local kb = tonumber((f:read("*a") or ""):match("(%d+)%s*$"))
    f:close()
    if not kb then os.remove(tmp); return nil, "cannot read the output of /usr/bin/time" end
    out[i] = kb
  end
  os.remove(tmp)
  return summary(out)
end

-- runs of argv after `warmup` unmeasured ones; a failing run is an error (its exit status shown)
function R.measure(argv, runs, warmup, quiet)
  for _ = 1, warmup or 0 do R.run_once(argv, quiet) end
  local wall, cpu, user, sys = {}, {}, {}, {}
  for i = 1, runs do
    local r = R.run_once(argv, quiet)
    if r.status ~= 0 then
      error(string.format("run %d of `%s` exited with status %d", i, table.concat(argv, " "), r.status), 0)
    end
    wall[i], cpu[i], user[i], sys[i] = r.wall, r.cpu, r.user, r.sys
  end
  return { wall = summary(wall), cpu = summary(cpu), user = summary(user), sys = summary(sys) }
end

-- the command-line use
local function main(args)
  local runs, warmup, i = 30, 3, 1
  while args[i] and args[i] ~= "--" do
    if args[i] == "-n" then runs = assert(tonumber(args[i + 1]), "-n needs a number"); i = i + 2
    elseif args[i] == "--warmup" then warmup = assert(tonumber(args[i + 1]), "--warmup needs a number"); i = i + 2
    else io.stderr:write("usage: luajit bench/runstat.lua [-n RUNS] [--warmup K] -- COMMAND [ARGS...]\n"); os.exit(2) end
  end
  local argv = {}
  for k = i + 1, #args do argv[#argv + 1] = args[k] end
  if #argv == 0 then io.stderr:write("runstat.lua: no command given\n"); os.exit(2) end
  local ok, s = pcall(R.measure, argv, runs, warmup)
  if not ok then io.stderr:write("runstat.lua: ", s, "\n"); os.exit(1) end
  local rss, why = R.peak_rss(argv, math.min(runs, 5))
  print(string.format("%-6s %10s %10s %10s   (%d runs, %d warm-up; stdout to /dev/null)", "", "median", "min", "max", runs, warmup))
  local function row(name, x, scale, f)
    print(string.format("%-6s %10" .. f .. " %10" .. f .. " %10" .. f, name, x.median * scale, x.min * scale, x.max * scale))
  end
  row("wall", s.wall, 1e3, ".2f"); row("cpu", s.cpu, 1e3, ".2f"); row("user", s.user, 1e3, ".2f"); row("sys", s.sys, 1e3, ".2f")
  print("(times in ms; user/sys split is tick-sampled by the kernel, their sum is exact)")
  if rss then row("rss", rss, 1, ".0f"); print(string.format("(peak RSS in kB, %d runs through /usr/bin/time)", rss.n))
  else print("rss: " .. why) end
end

local modname = ...
if not (type(modname) == "string" and modname:match("runstat$")) and arg and arg[0] and arg[0]:match("runstat%.lua$") then
  main(arg)
end
return R
