-- helper.lua -- shared by the specs: paths, running the ptxlua command, assembling with ptxas.
-- ptxas is the oracle: a missing ptxas makes those tests pending locally and fails them under CI.
local H = {}

H.root = os.getenv("PTXLUA_ROOT") or "."
H.build = os.getenv("PTXLUA_BUILD") or (H.root .. "/build")
H.exe = os.getenv("PTXLUA_EXE") or (H.build .. "/ptxlua")
H.ci = os.getenv("CI") == "true"

local tmpn = 0
-- a fresh temporary directory for this process
local TMPDIR
function H.tmpdir()
  if not TMPDIR then
    local p = io.popen("mktemp -d /tmp/ptxlua-spec.XXXXXX")
    TMPDIR = p:read("*l"); p:close()
  end
  return TMPDIR
end
function H.tmpfile(suffix)
  tmpn = tmpn + 1
  return string.format("%s/f%d%s", H.tmpdir(), tmpn, suffix or "")
end

function H.write(path, text)
  local f = assert(io.open(path, "wb")); f:write(text); f:close()
  return path
end
function H.read(path)
  local f = io.open(path, "rb")
  if not f then return nil end
  local s = f:read("*a"); f:close()
  return s
end

-- the text of tests/fixtures/NAME (PTX and other text a spec would otherwise paste as a long
-- string, or that several tests share), exactly as the file holds it
function H.fixture(name)
  local path = H.root .. "/tests/fixtures/" .. name
  local text = H.read(path)
  if not text then error("no fixture " .. path, 2) end
  return text
end

local function shq(s) return "'" .. tostring(s):gsub("'", "'\\''") .. "'" end
H.shq = shq

-- run a shell command; returns stdout, stderr, exit code
function H.sh(cmd)
  local out, err = H.tmpfile(".out"), H.tmpfile(".err")
  local ok, how, code = os.execute("( " .. cmd .. " ) >" .. out .. " 2>" .. err)
  -- LuaJIT (5.1 semantics) returns the raw status
  local rc
  if type(ok) == "number" then rc = ok >= 256 and math.floor(ok / 256) or ok
  else rc = code or (ok and 0 or 1) end
  return H.read(out) or "", H.read(err) or "", rc
end

-- run the ptxlua command with arguments (a list of strings)
function H.ptxlua(args)
  local parts = { shq(H.exe) }
  for _, a in ipairs(args) do parts[#parts + 1] = shq(a) end
  return H.sh(table.concat(parts, " "))
end

-- mark the running test pending. busted gives each running `it` its own `pending` (one that throws;
-- the global of that name only declares a pending test), in the test element's environment. The
-- element is found on the stack, in busted's frame that runs the test, so that `return H.pending(...)`
-- -- a tail call, which drops the test's own frame -- works too (it used to pass silently). Outside a
-- running test this is an error: a test must never pass for want of a pending.
function H.pending(msg)
  for level = 2, 60 do
    local info = debug.getinfo(level, "S")
    if not info then break end
    if info.short_src:find("busted/core.lua", 1, true) then
      for i = 1, 50 do
        local name, val = debug.getlocal(level, i)
        if not name then break end
        if name == "element" and type(val) == "table" and val.descriptor == "it" and val.env
           and type(rawget(val.env, "pending")) == "function" then
          rawget(val.env, "pending")(msg)              -- throws busted's pending
        end
      end
    end
  end
  error("H.pending outside a running test: " .. tostring(msg), 2)
end

-- ptxas
local PTXAS
function H.ptxas_path()
  if PTXAS == nil then
    local out, _, rc = H.sh("command -v ptxas || ls /usr/local/cuda/bin/ptxas")
    PTXAS = rc == 0 and out:match("[^\n]+") or false
  end
  return PTXAS
end

-- assemble PTX text for arch; returns ok, ptxas output (the -v resource report included)
-- when ptxas is missing: pending() locally, an error under CI
function H.assemble(ptx_text, arch, extra)
  local ptxas = H.ptxas_path()
  if not ptxas then
    if H.ci then error("ptxas not found (CI requires the CUDA toolkit)") end
    H.pending("ptxas not found", 3)
    return nil
  end
  local src = H.write(H.tmpfile(".ptx"), ptx_text)
  local cmd = string.format("%s -arch=%s -v %s %s -o %s", shq(ptxas), arch or "sm_90a", extra or "", shq(src), shq(src .. ".cubin"))
  local out, err, rc = H.sh(cmd)
  return rc == 0, out .. err
end

-- the PTX of every kernel of a fresh ptxlua module (H.fresh) must be what ptxas takes for arch
-- (sm_90a by default); pending / an error under CI without ptxas, as H.assemble
function H.assembles(ptx, arch)
  local ok, out = H.assemble(ptx.ptx {}, arch or "sm_90a")
  if ok ~= nil then assert(ok, out) end
end

-- true when the CUDA toolkit (ptxas, and nvJitLink beside it) is here; else pending() locally
-- (level: the caller's caller is the test) and an error under CI
function H.toolkit()
  if H.ptxas_path() then return true end
  if H.ci then error("ptxas not found (CI requires the CUDA toolkit)") end
  H.pending("the CUDA toolkit (ptxas / nvJitLink) is not installed", 4)
  return false
end

-- spill bytes from a ptxas -v report (sum of stores and loads over all functions)
function H.spills(report)
  local total = 0
  for st, ld in report:gmatch("(%d+) bytes spill stores, (%d+) bytes spill loads") do
    total = total + tonumber(st) + tonumber(ld)
  end
  return total
end

-- the --from-ptx forms a spec runs a PTX text through
H.PTX_FORMS = { plain = {}, sugar = { "--sugar" } }

-- FILE.ptx written and transpiled (form: "plain" or "sugar", H.PTX_FORMS) -> the script's path; the
-- script must print the file back byte for byte (what the transpiler promises: the same kernel runs)
function H.transpile(text, base, form)
  local dir = H.tmpdir()
  local ptx_path = H.write(dir .. "/" .. base .. ".ptx", text)
  local out = dir .. "/" .. base .. "_" .. form .. ".lua"
  local args = { "--from-ptx", ptx_path, "-o", out }
  for _, a in ipairs(H.PTX_FORMS[form]) do args[#args + 1] = a end
  local _, err, rc = H.ptxlua(args)
  if rc ~= 0 then error("ptxlua --from-ptx " .. base .. ".ptx (" .. form .. ") exited " .. tostring(rc) .. ": " .. tostring(err), 2) end
  local back, perr, prc = H.ptxlua { out, "--print-ptx" }
  if prc ~= 0 then error(out .. " --print-ptx exited " .. tostring(prc) .. ": " .. tostring(perr), 2) end
  if back ~= text then error(out .. " does not print " .. base .. ".ptx back byte for byte", 2) end
  return out
end

-- the number of the first line of `path` holding `needle` (plain text)
function H.line_holding(path, needle)
  local n = 0
  for l in H.read(path):gmatch("([^\n]*)\n") do
    n = n + 1
    if l:find(needle, 1, true) then return n end
  end
  error("not in " .. path .. ": " .. needle)
end

-- run the kernel script at path in this process, into a fresh registry: its kernels by name, what
-- the script returned, and the ptxlua module
function H.load_script(path)
  local ptx = H.fresh()
  local ret = dofile(path)
  local ks = {}
  for _, k in ipairs(ptx.kernels()) do ks[k.name] = k end
  return ks, ret, ptx
end

-- a pseudo-random pick, the same sequence on every machine (math.random's differs between builds):
-- H.lcg(seed) -> function(n) returning 1 .. n
function H.lcg(seed)
  local s = seed
  return function(n)
    s = (s * 1103515245 + 12345) % 2147483648
    return 1 + s % n
  end
end

-- launch kernel k in the emulator on device dev (rt.launch with opts); the error as a string, nil
-- when the kernel ran cleanly
function H.emu_launch(dev, k, opts)
  opts.device = dev
  local ok, err = pcall(require("ptxlua.emu").launch, k, opts)
  if ok then return nil end
  return tostring(err)
end

-- assert that err is an error at path:line ("path:line: error: ...") holding each plain string given
function H.expect_error(err, path, line, ...)
  if type(err) ~= "string" then error("the kernel ran without an error", 2) end
  local at = string.format("%s:%d: error: ", path, line)
  if err:sub(1, #at) ~= at then error(string.format("expected the error at %s, got: %s", at, err), 2) end
  for _, s in ipairs { ... } do
    if not err:find(s, 1, true) then error(string.format("expected %q in: %s", s, err), 2) end
  end
end

-- the number of the line of file that carries marker (a comment such as "-- TOO_FEW"), skipping
-- the lines that only name it in a string ("-- TOO_FEW" right after a quote: the lookups)
function H.marker_line(file, marker)
  local n = 0
  for l in io.lines(file) do
    n = n + 1
    local at = 1
    while true do
      local a = l:find(marker, at, true)
      if not a then break end
      if l:sub(a - 1, a - 1) ~= '"' then return n end
      at = a + 1
    end
  end
  error("marker not found: " .. marker)
end

function H.fresh()
  local ptx = require "ptxlua"
  ptx.reset()
  return ptx
end

-- trace a kernel body quickly: H.body(function(ptx, ...) ... end, params, opts) -> PTX text
function H.body(fn, params, opts)
  local ptx = H.fresh()
  opts = opts or {}
  ptx.kernel { name = opts.name or "k", target = opts.target, params = params or {},
               templates = opts.templates, body = function(...) fn(ptx, ...) end }
  return ptx.ptx { anchors = opts.anchors, defines = opts.defines }
end

-- the instruction lines of a PTX text (tab-indented lines after the register declarations)
function H.insns(ptx_text)
  local out = {}
  for line in ptx_text:gmatch("[^\n]+") do
    if line:match("^\t[%a@]") and not line:match("^\t%.reg") and not line:match("^\t//") and not line:match("^\t%.shared") and not line:match("^\t%.local") then
      out[#out + 1] = (line:gsub("^\t", ""):gsub(" \t", " "))
    elseif line:match("^%$[%w_]+:$") then
      out[#out + 1] = line
    end
  end
  return out
end

-- Turning opt-in checks on never changes an always-on report (docs/emulator.md, "Checks"): every
-- emulator launch of the specs that fails with no opt-in check on runs again from the same inputs
-- (its arrays restored, a fresh emulator for its module variables) with every one on, and must fail
-- with the same message. So every always-on mistake a spec makes is held to it, the new ones too.
-- Launches whose arrays hold more than 16 MB are not run twice.
-- (compiled from a string: its frames are not "@file" ones, so the DSL's errors still name the
-- spec's line, as they would without the wrapper)
H.check_order = { runs = 0 }                      -- how many launches ran twice (a spec can see it worked)
assert(loadstring([=[
  local H = ...
  local rt = require "ptxlua.emu"
  local launch = rt.launch
  local ALL = { races = true, uninit_shared = true, uninit_regs = true }
  local function snapshot(opts)
    local snap, total = {}, 0
    for _, v in pairs(opts.args or {}) do
      local a = getmetatable(v) == rt.TensorMap and v.array or v
      if rt.is_array(a) and not a.freed and not snap[a] then
        total = total + a.nbytes
        if total > 16 * 2^20 then return nil end
        snap[a] = a:bytes()
      end
    end
    return snap
  end
  rt.launch = function(k, opts)
    local c = type(opts) == "table" and opts.checks
    if type(opts) ~= "table" or opts.sample or (c and (c.races or c.uninit_shared or c.uninit_regs)) then return launch(k, opts) end
    local snap = snapshot(opts)
    local ok, st = pcall(launch, k, opts)
    if ok then return st end
    if snap and type(opts.device) == "table" and opts.device.cache then
      for a, bytes in pairs(snap) do a.device.mem:bytes(a.addr, bytes) end
      local o = {}
      for key, v in pairs(opts) do o[key] = v end
      o.checks, o.trace = ALL, nil
      opts.device.cache[k] = nil                  -- module .global variables as they were
      local ok2, err2 = pcall(launch, k, o)
      H.check_order.runs = H.check_order.runs + 1
      if ok2 or tostring(err2) ~= tostring(st) then
        error(string.format("with every opt-in check on, the launch of %s reports something else than without (an opt-in check " ..
                            "replaced an always-on report):\n  without: %s\n  with:    %s", tostring(k.name), tostring(st),
                            ok2 and "(no error)" or tostring(err2)), 0)
      end
    end
    error(st, 0)
  end
]=], "=(helper.lua: the check-order wrapper)"))(H)

return H
