-- emu_limits_spec.lua -- an emulation that would not end, or would take hours:
--   * the budget of warp instructions (rt.launch's limit, --limit N, the default M.LIMIT): past it the
--     run stops with an error at the executing instruction naming, for each place where warps of the
--     running CTAs are, the file:line, the threads, the CTA and the instructions their warps ran --
--     grouped by place, at most 8 places, then a count;
--   * Ctrl-C (a real SIGINT to a child process): the same report, at the next instruction, exit 1;
--     the process's own SIGINT handling is back once the run returns;
--   * --emulate's cost estimate: a launch a sample of its first cluster says would exceed the budget
--     is refused before its inputs are made, naming the cost and the templates that shrink it;
--     --limit N runs it anyway.
local H = require "helper"
local rt = require "ptxlua.emu"
local ffi = require "ffi"

local fmt = string.format
local THIS = debug.getinfo(1, "S").source:sub(2)
local function here() return debug.getinfo(2, "l").currentline end

-- a script file holding these kernels (the CLI runs it): spin never ends (warp 0 loops; the rest of
-- the CTA never starts under this scheduler); lockstep loops through a bar.sync; places leaves warp w
-- (w < 12) at a barrier of its own and warp 12 spinning; half: lanes 16-31 spin, 0-15 exit; work is
-- finite but long: 256 CTAs of ITERS iterations
local SCRIPT = [[
local ptx = require "ptxlua"
ptx.kernel { name = "spin", templates = { N = 128 }, block = { 128 }, grid = function(t) return { t.N / 128 } end,
  params = { { "out", "u32*", shape = { "N" } } },
  body = function(t, out)
    local x = ptx.special "tid.x" + 1           -- SPIN_START
    local L = ptx.label "again"
    ptx.place(L)
    x = x + 1                                   -- SPIN_LOOP
    ptx.bra(L)
  end }
ptx.kernel { name = "lockstep", block = { 1024 }, grid = { 1 },
  body = function()
    local L = ptx.label "again"
    ptx.place(L)
    local x = ptx.special "tid.x" + 1
    ptx.bar.sync(0)                             -- LOCKSTEP
    ptx.bra(L)
  end }
ptx.kernel { name = "places", block = { 13 * 32 }, grid = { 1 },
  body = function()
    local warp = ptx.special("tid.x"):shr(5)
    for w = 0, 11 do
      ptx.if_(warp:eq(w), function() ptx.bar.sync(w + 1, 64) end)   -- PLACES
    end
    local L = ptx.label "again"
    ptx.place(L)
    local x = warp + 1                          -- PLACES_SPIN
    ptx.bra(L)
  end }
ptx.kernel { name = "half", block = { 32 }, grid = { 1 },
  body = function()
    local tid = ptx.special "tid.x"
    ptx.if_(tid:lt(16), function() ptx.ret() end)
    local L = ptx.label "again"
    ptx.place(L)
    local x = tid + 1                           -- HALF
    ptx.bra(L)
  end }
ptx.kernel { name = "work", templates = { N = 256 * 128, ITERS = 50000 }, block = { 128 }, grid = function(t) return { t.N / 128 } end,
  params = { { "out", "u32*", shape = { "N" } } },
  body = function(t, out)
    ptx.range(0, t.ITERS, function(i) end)      -- WORK
  end }
]]

local path = H.write(H.tmpfile("_limits.lua"), SCRIPT)
local function line(marker) return H.marker_line(path, marker) end
local ks = H.load_script(path)

local function launch(name, opts)
  local dev = rt.device("emu")
  opts.device = dev
  opts.args = opts.args or (name == "spin" and { dev:array("u32", 128) } or {})
  local ok, err = pcall(rt.launch, ks[name], opts)
  assert.is_false(ok, "the launch ran to its end")
  return err
end

describe("the emulator's budget of warp instructions", function()
  it("stops an endless loop at its line, naming the warp that runs it and those that never started", function()
    local err = launch("spin", { limit = 5000 })
    local L = line("-- SPIN_LOOP")
    H.expect_error(err, path, L, "the instruction limit (5000 warp instructions) was reached: does the kernel loop forever?",
                   "grid (1,1,1): 0 CTAs finished, 1 running, 0 not started; where the warps still running are:",
                   fmt("\n  %s:%d (add.u32): threads (0,0,0)..(31,0,0) of CTA (0,0,0) (warp 0); ", path, L),
                   fmt("\n  %s:%d (mov.u32): threads (32,0,0)..(127,0,0) of CTA (0,0,0) (warps 1-3); not started", path, line("-- SPIN_START")))
  end)

  it("groups the warps at one place: 32 warps of a loop through bar.sync take two lines", function()
    local err = launch("lockstep", { limit = 10000 })
    local _, lines = err:gsub("\n  ", "")
    assert.are.equal(2, lines, err)
    assert.matches(fmt("\n  %s:%d (bar.sync, waiting): threads (", path, line("-- LOCKSTEP")), err, 1, true)
    assert.matches("(warps ", err, 1, true)
  end)

  it("lists at most 8 places, then counts the rest", function()
    local err = launch("places", { limit = 3000 })
    local L = line("-- PLACES_SPIN")
    H.expect_error(err, path, L, fmt("\n  %s:%d (add.u32): threads (384,0,0)..(415,0,0) of CTA (0,0,0) (warp 12); ", path, L),
                   fmt("\n  %s:%d (bar.sync, waiting): threads (0,0,0)..(31,0,0) of CTA (0,0,0) (warp 0); ", path, line("-- PLACES")),
                   "\n  ... and 5 more places (5 warps)")
    local _, n = err:gsub("\n  ", "")
    assert.are.equal(9, n, err)
  end)

  it("names the threads of a partial warp", function()
    local err = launch("half", { limit = 300 })
    local L = line("-- HALF")
    H.expect_error(err, path, L, fmt("\n  %s:%d (add.u32): threads (16,0,0)..(31,0,0) of CTA (0,0,0) (warp 0); ", path, L))
  end)

  it("takes limit = false (none) and refuses what is no number of warp instructions, at the caller's line", function()
    local dev = rt.device("emu")
    assert.is_table(rt.launch(ks.half, { device = dev, limit = false, grid = 1, block = 16 }))   -- every thread returns
    for _, bad in ipairs { 0, -3, 1.5, "many", true } do
      local at = here() + 1
      local ok, err = pcall(rt.launch, ks.half, { device = dev, limit = bad })
      assert.is_false(ok)
      H.expect_error(err, THIS, at, "limit must be a positive whole number of warp instructions, or false for none")
    end
  end)

  it("is 10^8 warp instructions by default (rt.LIMIT, the core's PLX_LIMIT_DEFAULT)", function()
    assert.are.equal(1e8, rt.LIMIT)
    assert.are.equal(1e8, require("ptxlua.core").emu_limit_default)
  end)
end)

describe("ptxlua FILE.lua --emulate --limit", function()
  it("stops at the budget given: exit 1, the report and the line", function()
    local _, err, rc = H.ptxlua { path, "--emulate", "--kernel", "spin", "--limit", "2000" }
    assert.are.equal(1, rc)
    local L = line("-- SPIN_LOOP")
    H.expect_error(err, path, L, "the instruction limit (2000 warp instructions) was reached",
                   fmt("\n  %s:%d (add.u32): threads (0,0,0)..(31,0,0) of CTA (0,0,0) (warp 0); ", path, L))
    assert.matches("\n      x = x + 1                                   -- SPIN_LOOP\n      ^", err, 1, true)
  end)

  it("takes --limit=N and --limit none; refuses other words, 0, and --limit without --emulate", function()
    local out, err, rc = H.ptxlua { path, "--emulate", "--kernel", "work", "-D", "ITERS=10", "--limit", "none" }
    assert.are.equal(0, rc, err)
    assert.matches("emulated work: grid (256,1,1)", out, 1, true)
    _, err, rc = H.ptxlua { path, "--emulate", "--kernel", "work", "-D", "ITERS=10", "--limit=100" }
    assert.are.equal(1, rc)
    assert.matches("the instruction limit (100 warp instructions) was reached", err, 1, true)
    for _, bad in ipairs { "0", "-5", "1e9", "lots", "" } do
      _, err, rc = H.ptxlua { path, "--emulate", "--limit", bad }
      assert.are.equal(2, rc, bad)
      assert.matches("--limit needs a positive number of warp instructions (or none), got '" .. bad .. "'", err, 1, true)
    end
    _, err, rc = H.ptxlua { path, "--limit", "100" }
    assert.are.equal(2, rc)
    assert.matches("--limit goes with --emulate", err, 1, true)
  end)
end)

describe("ptxlua FILE.lua --emulate: the cost estimate", function()
  it("refuses a launch its first CTA says would exceed the budget, naming the cost and the templates that shrink it", function()
    local t0 = os.time()
    local out, err, rc = H.ptxlua { path, "--emulate", "--kernel", "work" }
    assert.are.equal(1, rc)
    assert.are.equal("", out)
    H.expect_error(err, path, line('ptx.kernel { name = "work"'),
                   "emulating work at N = 32768 would take about 153,602,048 warp instructions and ",
                   "(its first CTA of 256 ran 600,008 in ",
                   "more than the emulator's budget of 100,000,000: shrink it with -D (the templates its arrays are sized by: N), e.g. -D N=",
                   "or run it anyway with --limit N (limit = N in rt.emulate), e.g. --limit 192002560, or --limit none")
    assert.is_true(os.time() - t0 < 60)
  end)

  it("runs it anyway with --limit N (here stopping at that budget)", function()
    local _, err, rc = H.ptxlua { path, "--emulate", "--kernel", "work", "--limit", "1000000" }
    assert.are.equal(1, rc)
    assert.matches("the instruction limit (1000000 warp instructions) was reached", err, 1, true)
    assert.matches("grid (256,1,1): 1 CTA finished, 1 running, 254 not started", err, 1, true)
  end)

  it("refuses the mma.sync GEMM at its default 8192^3 (about 585M warp instructions) and names M, N, K", function()
    -- -D over the kernel's declared emulation sizes (emulate = { M = 200, ... }): its real size
    local _, err, rc = H.ptxlua { H.root .. "/kernels/gemm_mma.lua", "--emulate", "-D", "M=8192", "-D", "N=8192", "-D", "K=8192" }
    assert.are.equal(1, rc)
    assert.matches("error: emulating gemm_mma at M = 8192, K = 8192, N = 8192 would take about 585,400,320 warp instructions", err, 1, true)
    assert.matches("e.g. -D M=2048 -D K=2048 -D N=2048", err, 1, true)
  end)

  it("runs the kernels whose default sizes fit (a sample first, then the launch)", function()
    local out, err, rc = H.ptxlua { H.root .. "/kernels/vector_add.lua", "--emulate", "-D", "N=1048576" }
    assert.are.equal(0, rc, err)
    assert.matches("emulated vector_add: grid (4096,1,1) block (256,1,1)", out, 1, true)
    assert.matches("out      matches the reference (1048576 elements", out, 1, true)
  end)
end)

---------------------------------------------------------------------------------------------------
-- Ctrl-C: a child process, SIGINT sent once its emulation runs (its SIGINT handler is in place:
-- /proc/PID/status's SigCgt has SIGINT's bit; before the run the process takes SIGINT's default)
ffi.cdef [[
int fork(void);
int execv(const char *path, char *const argv[]);
void _exit(int status);
int open(const char *pathname, int flags, int mode);
int dup2(int oldfd, int newfd);
int kill(int pid, int sig);
int waitpid(int pid, int *status, int options);
int poll(void *fds, unsigned long nfds, int timeout);
typedef void (*ptxlua_spec_sighandler)(int);
ptxlua_spec_sighandler signal(int signum, ptxlua_spec_sighandler handler);
]]
local SIGINT, O_WRONLY, O_CREAT, O_TRUNC, WNOHANG = 2, 1, 64, 512, 1

-- run argv (argv[1] the program) with stdout and stderr into files; its pid
local function spawn(argv, out, err)
  local cargv = ffi.new("char *[?]", #argv + 1)
  local keep = {}
  for i, a in ipairs(argv) do keep[i] = ffi.new("char[?]", #a + 1, a); cargv[i - 1] = keep[i] end
  cargv[#argv] = nil
  local old = ffi.C.signal(SIGINT, ffi.cast("ptxlua_spec_sighandler", 1))   -- SIG_IGN until the child has its own
  local pid = ffi.C.fork()
  if pid == 0 then                                   -- the child: SIGINT as a shell's foreground job has it
    pcall(function()                                 -- (never back into the test runner)
      ffi.C.signal(SIGINT, nil)
      ffi.C.dup2(ffi.C.open(out, O_WRONLY + O_CREAT + O_TRUNC, 420), 1)
      ffi.C.dup2(ffi.C.open(err, O_WRONLY + O_CREAT + O_TRUNC, 420), 2)
      ffi.C.execv(argv[1], cargv)
    end)
    ffi.C._exit(127)
  end
  ffi.C.signal(SIGINT, old)
  assert(pid > 0, "fork failed")
  return pid
end

local function sleep_ms(ms) ffi.C.poll(nil, 0, ms) end

-- does process pid, running program prog (exec'd: its command line says so), catch SIGINT now?
local function catches_sigint(pid, prog)
  local c = io.open(fmt("/proc/%d/cmdline", pid))
  if not c then return false end
  local cmd = c:read("*a"); c:close()
  if cmd:sub(1, #prog + 1) ~= prog .. "\0" then return false end
  local f = io.open(fmt("/proc/%d/status", pid))
  if not f then return false end
  local s = f:read("*a"); f:close()
  local hex = s:match("SigCgt:%s*(%x+)")
  return hex ~= nil and tonumber(hex:sub(-1), 16) % 4 >= 2
end

-- wait for pid to exit (at most secs): its exit status, or nil (killed then)
local function wait_exit(pid, secs)
  local st = ffi.new("int[1]")
  for _ = 1, secs * 20 do
    if ffi.C.waitpid(pid, st, WNOHANG) == pid then
      local s = st[0]
      if s % 128 == 0 then return math.floor(s / 256) % 256 end
      return -(s % 128)                               -- killed by a signal
    end
    sleep_ms(50)
  end
  ffi.C.kill(pid, 9)
  ffi.C.waitpid(pid, st, 0)
  return nil
end

local function wait_until(what, f, secs)
  for _ = 1, secs * 20 do
    if f() then return end
    sleep_ms(50)
  end
  error("timed out waiting for " .. what)
end

describe("Ctrl-C during an emulation", function()
  it("ptxlua FILE.lua --emulate: SIGINT stops it at the next instruction with the report, exit 1", function()
    local out, err = H.tmpfile(".out"), H.tmpfile(".err")
    local pid = spawn({ H.exe, path, "--emulate", "--kernel", "spin", "--limit", "none" }, out, err)
    local ok, why = pcall(wait_until, "the emulation to catch SIGINT", function() return catches_sigint(pid, H.exe) end, 60)
    if not ok then ffi.C.kill(pid, 9); wait_exit(pid, 5); error(why) end
    ffi.C.kill(pid, SIGINT)
    local rc = wait_exit(pid, 60)
    local text = H.read(err)
    assert.are.equal(1, rc, text)
    local L = line("-- SPIN_LOOP")                     -- at the add or at the bra of the loop
    local at = text:find(fmt("%s:%d: error: ", path, L), 1, true) == 1 and L or L + 1
    H.expect_error(text, path, at, "interrupted (SIGINT) after ", " warp instructions; grid (1,1,1): 0 CTAs finished, 1 running",
                   fmt("\n  %s:%d (%s): threads (0,0,0)..(31,0,0) of CTA (0,0,0) (warp 0); ", path, at, at == L and "add.u32" or "bra"),
                   fmt("(warps 1-3); not started"))
  end)

  it("from Lua: the launch raises the report, SIGINT is the script's own again, and the next launch runs", function()
    local child = H.write(H.tmpfile("_sigint.lua"), fmt([=[
local ffi = require "ffi"
ffi.cdef "typedef void (*sh_t)(int); sh_t signal(int, sh_t);"
local function disposition() local o = ffi.C.signal(2, nil); ffi.C.signal(2, o); return tostring(tonumber(ffi.cast("intptr_t", o))) end
ffi.C.signal(2, nil)                              -- the default, as in a shell's foreground job
local ptx = require "ptxlua"
local rt = require "ptxlua.emu"
dofile(%q)
local k
for _, x in ipairs(ptx.kernels()) do if x.name == "spin" then k = x end end
local dev = rt.device("emu")
local out = dev:array("u32", 128)
pcall(rt.launch, k, { device = dev, args = { out }, limit = 10 })   -- traced and ready
io.stdout:write("before ", disposition(), "\n"); io.stdout:flush()
local ok, err = pcall(rt.launch, k, { device = dev, args = { out }, limit = 3e8 })
io.stdout:write("after ", disposition(), "\n", tostring(ok), "\n", err, "\n")
local ok2, err2 = pcall(rt.launch, k, { device = dev, args = { out }, limit = 1000 })
io.stdout:write(err2:find("the instruction limit (1000 warp instructions)", 1, true) and "next: the budget" or ("next: " .. err2), "\n")
]=], path))
    local out, err = H.tmpfile(".out"), H.tmpfile(".err")
    local luajit = io.popen("command -v luajit"):read("*l")
    local pid = spawn({ luajit, child }, out, err)
    local ok, why = pcall(wait_until, "the emulation to catch SIGINT", function()
      return (H.read(out) or ""):find("before", 1, true) and catches_sigint(pid, luajit)
    end, 60)
    if not ok then ffi.C.kill(pid, 9); wait_exit(pid, 5); error(why .. ": " .. tostring(H.read(err))) end
    ffi.C.kill(pid, SIGINT)
    local rc = wait_exit(pid, 60)
    local text = H.read(out)
    assert.are.equal(0, rc, text .. tostring(H.read(err)))
    assert.matches("before 0\nafter 0\nfalse\n", text, 1, true)
    assert.matches("interrupted (SIGINT) after ", text, 1, true)
    local L = line("-- SPIN_LOOP")                     -- (at the add or at the bra of the loop)
    assert.is_truthy(text:find(fmt("\n  %s:%d (add.u32): threads (0,0,0)..(31,0,0) of CTA (0,0,0) (warp 0); ", path, L), 1, true) or
                     text:find(fmt("\n  %s:%d (bra): threads (0,0,0)..(31,0,0) of CTA (0,0,0) (warp 0); ", path, L + 1), 1, true), text)
    assert.matches("next: the budget\n", text, 1, true)
  end)
end)
