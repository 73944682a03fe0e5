-- repl.lua -- the commands of the ptxlua REPL (src/repl.c reads the lines and calls in here).
-- Every command is a Lua function of this module and a ":name args" line at the prompt.
local ptx = require "ptxlua"
local emu = require "ptxlua.emu"

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
  if not f then error(err, 0) end
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

-- :arch [SM] -- target every kernel at SM (no argument: the scripts' own)
function R.set_arch(sm)
  if sm == "" then sm = nil end
  R.arch = sm
  out("arch: ", sm or "the scripts' own", "\n")
end

-- :set NAME=VALUE -- a template parameter (as -D), then the PTX again; :set NAME= removes it
function R.set(assign)
  local name, value = (assign or ""):match("^%s*([%a_][%w_]*)%s*=%s*(.-)%s*$")
  if not name then error("error: :set expects NAME=VALUE", 0) end
  R.defines[name] = value ~= "" and value or nil
  if #ptx.kernels() > 0 then return R.ptx() end
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
    out((emu.emulate(k, { defines = R.defines, arch = R.arch })), "\n")
  end
end

-- :gpu [KERNEL] -- mean milliseconds per launch on a CUDA device (when there is one)
function R.gpu(name)
  local cuda = require "ptxlua.cuda"
  local ok, why = cuda.available()
  if not ok then out("no GPU here: ", tostring(why), "\n"); return end
  local d = cuda.device(0)
  for _, k in ipairs(selection(name)) do
    -- the same generated inputs as the emulator, copied to the device
    local args = {}
    local t = k:resolve(R.defines)
    for i, p in ipairs(k.params) do
      if p.pointer then
        local n = 1
        for _, dim in ipairs(p.shape or { 1 }) do n = n * (type(dim) == "number" and dim or t[dim] or 1) end
        args[i] = d:array(p.elem, n)
      else
        args[i] = t[p[1]] or t[p[1]:upper()] or 1
      end
    end
    local ms = cuda.bench(k, { device = d, args = args, defines = R.defines })
    out(fmt("%s: %.4f ms per launch on %s\n", k.name, ms, tostring(d)))
    for _, a in ipairs(args) do if type(a) == "table" and a.free then a:free() end end
  end
end

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
  :gpu [KERNEL]     time on a CUDA device, when there is one
  :help             this text
anything else is Lua: expressions print their values; `ptx` is require "ptxlua"
]])
end

local COMMANDS = {
  load = R.load, reload = R.reload, kernels = R.kernels, ptx = R.ptx, anchors = R.set_anchors,
  arch = R.set_arch, set = R.set, check = R.check, plan = R.plan, emu = R.emulate, emulate = R.emulate,
  gpu = R.gpu, help = R.help,
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
