-- repl.lua -- the commands of the ptxlua REPL (src/cli/repl.c reads the lines and calls in here).
-- Every command is a Lua function of this module and a ":name args" line at the prompt.
local ptx = require "ptxlua"
local emu = require "ptxlua.emu"
local core = require "ptxlua.core"

local R = { defines = {}, file = nil, selected = nil, anchors = "none", arch = nil }
local fmt = string.format

local function out(...) io.stdout:write(...); io.stdout:flush() end

-- the C side hands over the engine's defines table and the check call (ptxlua_check)
function R.init(ctx)
  R.ctx = ctx or {}
  if R.ctx.defines then R.defines = R.ctx.defines end
  return R
end

-- plans made while one kernel is traced (ptx.smem_plan of ptxlua/hopper.lua), for :plan
local capture
if ptx.smem_plan then
  local orig = ptx.smem_plan
  ptx.smem_plan = function(...)
    local p = orig(...)
    if capture then capture[#capture + 1] = p end
    return p
  end
end

local function kernel_names()
  local t = {}
  for _, k in ipairs(ptx.kernels()) do t[#t + 1] = k.name end
  return t
end

local function find_kernel(name)
  for _, k in ipairs(ptx.kernels()) do if k.name == name then return k end end
  local names = kernel_names()
  error(fmt("error: no kernel named '%s' (loaded: %s)", tostring(name), #names > 0 and table.concat(names, ", ") or "none"), 0)
end

-- the kernels a command works on: the one named, else the :ptx selection, else all of them
local function selection(name)
  if name and name ~= "" then return { find_kernel(name) } end
  if R.selected then return { find_kernel(R.selected) } end
  local ks = ptx.kernels()
  if #ks == 0 then error("error: no kernel loaded (:load FILE, or define one with ptx.kernel{...})", 0) end
  local t = {}
  for _, k in ipairs(ks) do t[#t + 1] = k end
  return t
end

-- :load FILE -- run a kernel script; its kernels replace the loaded ones
function R.load(file)
  if not file or file == "" then error("error: :load needs a file name", 0) end
  local f, err = loadfile(file)
  if not f then error(require("ptxlua.core").expand_chunk(err, file), 0) end
  ptx.reset()
  if file ~= R.file then  -- a new script: its own template parameters (:reload keeps them)
    for n in pairs(R.defines) do R.defines[n] = nil end
  end
  R.file, R.selected = file, nil
  f()
  local names = kernel_names()
  out(fmt("loaded %s: %d kernel%s (%s)\n", file, #names, #names == 1 and "" or "s", table.concat(names, ", ")))
end

-- :reload -- the same script again (after editing it)
function R.reload()
  if not R.file then error("error: nothing to reload (:load FILE first)", 0) end
  return R.load(R.file)
end

-- :kernels -- the loaded kernels and their template parameters
function R.kernels()
  for _, k in ipairs(ptx.kernels()) do
    local ts = {}
    for n, v in pairs(k.templates or {}) do ts[#ts + 1] = fmt("%s=%s", n, tostring(R.defines[n] or v)) end
    table.sort(ts)
    out(k.name, #ts > 0 and ("  " .. table.concat(ts, " ")) or "", "\n")
  end
end

local function names_of(list)
  local t = {}
  for _, k in ipairs(list) do t[#t + 1] = k.name end
  return t
end

-- :ptx [KERNEL] -- print the PTX (all kernels, or one: it stays selected for :set)
function R.ptx(name)
  if name == "*" then R.selected = nil; name = nil end
  local list = selection(name)
  if name and name ~= "" then R.selected = name end
  out(ptx.ptx { kernels = names_of(list), defines = R.defines, arch = R.arch, anchors = R.anchors })
end

-- :anchors [none|comment|loc] -- mark each instruction with its script line (default comment)
function R.set_anchors(mode)
  mode = (mode and mode ~= "") and mode or "comment"
  if mode ~= "none" and mode ~= "comment" and mode ~= "loc" then error("error: anchors are none, comment or loc", 0) end
  R.anchors = mode
  out("anchors: ", mode, "\n")
end

-- :arch [SM] -- target every kernel at SM (no argument: the scripts' own); an unknown target is
-- refused when typed, as the command's --arch refuses it, and the old one stays
function R.set_arch(sm)
  if sm == "" then sm = nil end
  if sm == "native" then                        -- the GPU's own target (the driver says which)
    local a, why = core.cuda_native_arch()
    if not a then error(fmt("error: :arch native needs the GPU's compute capability: %s; the target stays %s", tostring(why), R.arch or "the scripts' own"), 0) end
    sm = a
  end
  if sm ~= nil and (type(sm) ~= "string" or not core.target(sm)) then
    error(fmt("error: unknown target '%s' (expected sm_80, sm_90a, sm_100a, ...); the target stays %s", tostring(sm),
              R.arch or "the scripts' own"), 0)
  end
  R.arch = sm
  out("arch: ", sm or "the scripts' own", "\n")
end

-- :set NAME=VALUE -- a template parameter (as -D), then the PTX again; :set NAME= removes it
function R.set(assign)
  local name, value = (assign or ""):match("^%s*([%a_][%w_]*)%s*=%s*(.-)%s*$")
  if not name then error("error: :set expects NAME=VALUE", 0) end
  -- with kernels loaded the new value is tried at once (the PTX printed again): a value that fails
  -- is refused when typed, and the old one stays (else every later command would fail on it)
  local old = R.defines[name]
  R.defines[name] = value ~= "" and value or nil
  if #ptx.kernels() > 0 then
    local ok, err = pcall(R.ptx)
    if not ok then
      R.defines[name] = old
      error(fmt("%s\n(:set %s=%s refused: %s)", tostring(err), name, value,
                old ~= nil and fmt("%s stays %s", name, tostring(old)) or fmt("%s stays unset", name)), 0)
    end
  end
end

-- :check [KERNEL] -- assemble (nvJitLink or ptxas) and report registers, spills, shared memory
function R.check(name)
  local list = selection(name)
  if not (R.ctx and R.ctx.check) then error("error: :check needs the ptxlua command", 0) end
  local report, err = R.ctx.check(table.concat(names_of(list), ","), R.arch)
  if report then out(report) end
  if err then error(err, 0) end
end

-- :plan [KERNEL] -- the shared-memory plan of each kernel (ptx.smem_plan), or "no plan"
function R.plan(name)
  for _, k in ipairs(selection(name)) do
    capture = {}
    local ok, err = pcall(ptx.build, { kernels = { k.name }, defines = R.defines, arch = R.arch, registry = { k } })
    local plans = capture
    capture = nil
    if not ok then error(err, 0) end
    if #plans == 0 then out(fmt("%s: no plan\n", k.name)) end
    for _, p in ipairs(plans) do
      out(fmt("%s: plan '%s', %d bytes\n", k.name, p.name, p:total()))
      local text = p:format()
      out(text, text:sub(-1) == "\n" and "" or "\n")
    end
  end
end

-- :emu [KERNEL] -- run in the CPU emulator on generated inputs and summarize what it wrote
function R.emulate(name)
  for _, k in ipairs(selection(name)) do
    local text, _, mismatch = emu.emulate(k, { defines = R.defines, arch = R.arch })
    out(text, "\n")
    if mismatch then error(mismatch, 0) end      -- after the summary: which elements are off
  end
end

-- the device :compare and :time run on: the first CUDA device when there is a driver, else the emulator
local function run_device(need_gpu)
  local cuda = require "ptxlua.cuda"
  local ok, why = cuda.available()
  if ok then return cuda.device(0), true end
  if need_gpu then return nil, why end
  R._emu = R._emu or emu.device("emu")
  return R._emu, false
end

local SIZES = emu.sizes
local FLOAT = require("ptxlua.dtypes").float
local TOL = { f64 = 1e-12, f32 = 1e-5, f16 = 1e-3, bf16 = 1e-2 }

-- "file:line: " of a kernel's definition (where its shapes are written), for the errors of its test data
local function at_kernel(k) return k.file and fmt("%s:%d: ", k.file, k.line or 0) or "" end

-- test data for kernel k: pointer parameters get arrays sized by their shapes, inputs filled with
-- deterministic random values (never 0), every array poisoned first; scalars from the templates
local function test_data(k, dev, t)
  local env, args, inputs, arrays = {}, {}, {}, {}
  for name, v in pairs(t) do if type(v) == "number" then env[name] = v end end
  for i, p in ipairs(k.params) do
    if not p.pointer then
      local v = t[p[1]] or t[p[1]:upper()] or t[p[1]:lower()]
      if p.count then v = string.rep("\0", p.count * (SIZES[p.ptype] or 1))
      elseif v == nil then
        if FLOAT[p.ptype] then v = 1e-5 else error(fmt("error: %s: no value for scalar parameter '%s' (give it a template)", k.name, p[1]), 0) end
      end
      args[i], inputs[p[1]] = v, v
      if type(v) == "number" then env[p[1]] = v end
    end
  end
  local seed = 12345
  local function rnd() seed = (seed * 1103515245 + 12345) % 2147483648; return seed / 2147483648 end
  for i, p in ipairs(k.params) do
    if p.pointer then
      local n = 1
      for _, dim in ipairs(p.shape or {}) do
        local v = type(dim) == "number" and dim or env[dim]
        if v == nil then
          local f = loadstring("return " .. tostring(dim))
          if f then setfenv(f, env); local okf, r = pcall(f); if okf then v = r end end
        end
        if type(v) ~= "number" then error(fmt("%serror: %s: cannot size parameter '%s' (shape entry '%s')", at_kernel(k), k.name, p[1], tostring(dim)), 0) end
        n = n * v
      end
      if not p.shape then error(fmt("error: %s: pointer parameter '%s' has no shape", k.name, p[1]), 0) end
      if not (n >= 1 and n <= 2^28 and n % 1 == 0) then      -- test data is made in Lua: up to 2^28 elements
        error(fmt("%serror: %s: parameter '%s' would have %s elements (1 to 2^28 for test data)", at_kernel(k), k.name, p[1], tostring(n)), 0)
      end
      local dtype = SIZES[p.elem] and p.elem or "u8"
      local vals = {}
      for j = 1, n do
        local v
        if FLOAT[dtype] then v = 2 * rnd() - 1; if v == 0 then v = 0.5 end else v = 1 + math.floor(rnd() * 99) end
        vals[j] = v
      end
      local a = dev:array(dtype, n, vals)
      vals = a:read()                       -- as stored (rounded to the element type)
      a.pname = p[1]
      args[i], inputs[p[1]], arrays[p[1]] = a, vals, a
    end
  end
  return args, inputs, arrays
end

-- the outputs a reference gives: ref(inputs, t) -> { name = { values } }, a kernel name, or a
-- file returning either
local function reference_of(ref)
  if type(ref) == "function" or type(ref) == "table" then return ref end
  if type(ref) ~= "string" or ref == "" then error("error: :compare needs a reference: a Lua file returning function(inputs, t) or a kernel name", 0) end
  for _, k in ipairs(ptx.kernels()) do if k.name == ref then return k end end
  local f, err = loadfile(ref)
  if not f then error(require("ptxlua.core").expand_chunk(err, ref), 0) end
  local r = f()
  if type(r) == "string" then return reference_of(r) end
  if type(r) ~= "function" then error(fmt("error: %s must return function(inputs, t) (or a kernel name)", ref), 0) end
  return r
end

-- :compare KERNEL REF -- run KERNEL on test data (GPU when there is one, else the emulator) and
-- compare its outputs with the reference's: max abs / rel error, the first mismatches
function R.compare(arg, ref)
  local name
  if type(arg) == "string" and ref == nil then name, ref = arg:match("^(%S+)%s+(%S+)$") end
  name = name or arg
  if ref == nil and R.selected and name then name, ref = R.selected, name end
  local k = selection(name)[1]
  ref = reference_of(ref)
  local dev, gpu = run_device(false)
  local t = k:resolve(R.defines)
  local args, inputs, arrays = test_data(k, dev, t)
  -- outputs: what the reference returns (a function), or every pointer of the other kernel
  local want = {}
  if getmetatable(ref) == getmetatable(k) then
    local args2, _, arrays2 = test_data(ref, dev, ref:resolve(R.defines))
    local before = {}
    for pname, a in pairs(arrays2) do before[pname] = a:read() end
    ref:launch { device = dev, args = args2, defines = R.defines, arch = R.arch }
    -- its outputs: the arrays it changed (of the same name in the kernel under test)
    for pname, a in pairs(arrays2) do
      local now, b = a:read(), before[pname]
      local changed = false
      for i = 1, #now do if now[i] ~= b[i] and (now[i] == now[i] or b[i] == b[i]) then changed = true; break end end
      if arrays[pname] and changed then want[pname] = now end
    end
    for _, a in pairs(arrays2) do a:free() end
  else
    want = ref(inputs, t) or {}
  end
  for pname in pairs(want) do
    if not arrays[pname] then error(fmt("error: the reference gives '%s', which is not a pointer parameter of %s", pname, k.name), 0) end
    arrays[pname]:poison()
  end
  k:launch { device = dev, args = args, defines = R.defines, arch = R.arch }
  local names = {}
  for pname in pairs(want) do names[#names + 1] = pname end
  table.sort(names)
  if #names == 0 then out(fmt("%s: the reference gave no outputs\n", k.name)) end
  local all_ok = true
  for _, pname in ipairs(names) do
    local a, w = arrays[pname], want[pname]
    local got = a:read()
    local tol = TOL[a.dtype] or 0
    local maxabs, maxrel, bad, shown = 0, 0, 0, {}
    for i = 1, a.n do
      local g, x = got[i], w[i]
      if x ~= nil then
        local d = math.abs(g - x)
        if g ~= g then d = math.huge end
        if x ~= x and g ~= g then d = 0 end
        if d > maxabs then maxabs = d end
        local r = d / math.max(math.abs(x), 1e-30)
        if d > 0 and r > maxrel then maxrel = r end
        if d > tol * (1 + math.abs(x)) then
          bad = bad + 1
          if #shown < 5 then shown[#shown + 1] = fmt("    [%d] got %.9g, want %.9g", i, g, x) end
        end
      end
    end
    all_ok = all_ok and bad == 0
    out(fmt("%s.%s on %s: %d elements, max abs err %.3g, max rel err %.3g, %d mismatch%s (tol %g)\n", k.name, pname,
            gpu and tostring(dev) or "emu", a.n, maxabs, maxrel, bad, bad == 1 and "" or "es", tol))
    for _, l in ipairs(shown) do out(l, "\n") end
  end
  for _, a in pairs(arrays) do a:free() end
  return all_ok
end

-- :time [KERNEL] -- on the GPU: the median of CUDA-event timings of single launches (warm-up first)
function R.time(name, runs)
  local dev, why = run_device(true)
  if not dev then out("no GPU here: ", tostring(why), "\n"); return end
  local core = require "ptxlua.core"
  runs = tonumber(runs) or 50
  for _, k in ipairs(selection(name)) do
    local args, _, arrays = test_data(k, dev, k:resolve(R.defines))
    local opts = { device = dev, args = args, defines = R.defines, arch = R.arch, async = true }
    for _ = 1, 3 do k:launch(opts) end
    dev:sync()
    local ms = {}
    local a, b = core.cuda_event(), core.cuda_event()
    for i = 1, runs do
      core.cuda_record(a)
      k:launch(opts)
      core.cuda_record(b)
      ms[i] = assert(core.cuda_elapsed(a, b))
    end
    core.cuda_event_free(a); core.cuda_event_free(b)
    table.sort(ms)
    local med = runs % 2 == 1 and ms[(runs + 1) / 2] or (ms[runs / 2] + ms[runs / 2 + 1]) / 2
    out(fmt("%s: median %.4f ms, min %.4f ms over %d launches on %s\n", k.name, med, ms[1], runs, tostring(dev)))
    for _, x in pairs(arrays) do x:free() end
  end
end
R.gpu = R.time

function R.help()
  out([[
commands (each also a function: repl.load(FILE), repl.ptx(NAME), ...):
  :load FILE        run a kernel script (its kernels replace the loaded ones)
  :reload           run it again
  :kernels          the loaded kernels and their template parameters
  :ptx [KERNEL]     print the PTX (all, or one kernel; :ptx * for all again)
  :anchors [MODE]   none, comment (file:line after each instruction) or loc
  :arch [SM]        target sm_80, sm_90a, sm_100a, ... (no argument: the scripts' own)
  :set NAME=VALUE   set a template parameter and print the PTX again (NAME= removes it)
  :check [KERNEL]   assemble and report registers, spills, shared memory
  :plan [KERNEL]    the shared-memory plan (ptx.smem_plan), or "no plan"
  :emu [KERNEL]     run in the CPU emulator on generated inputs
  :compare [KERNEL] REF  run on test data (GPU, else the emulator) and compare with REF: a Lua file
                    returning function(inputs, t) -> { output = values }, or another kernel's name
  :time [KERNEL]    median of CUDA-event timings on the GPU, or why there is none (:gpu too)
  :help             this text
anything else is Lua: expressions print their values; `ptx` is require "ptxlua"
]])
end

local COMMANDS = {
  load = R.load, reload = R.reload, kernels = R.kernels, ptx = R.ptx, anchors = R.set_anchors,
  arch = R.set_arch, set = R.set, check = R.check, plan = R.plan, emu = R.emulate, emulate = R.emulate,
  gpu = R.time, time = R.time, compare = R.compare, help = R.help,
}

-- a ":name args" line
function R.command(line)
  local name, arg = line:match("^:(%S*)%s*(.-)%s*$")
  local fn = COMMANDS[name or ""]
  if not fn then error(fmt("error: unknown command ':%s' (:help lists them)", tostring(name)), 0) end
  return fn(arg ~= "" and arg or nil)
end

-- print the values of an evaluated line, as the Lua REPL does
function R.print_values(...)
  local n = select("#", ...)
  if n == 0 then return end
  local t = {}
  for i = 1, n do t[i] = tostring((select(i, ...))) end
  out(table.concat(t, "\t"), "\n")
end

return R
