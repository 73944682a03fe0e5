-- dsl_mutate_spec.lua -- user mistakes in real calls: every kernel of kernels/ is traced with each
-- ptx.* function wrapped, and each call the kernel makes is first tried again (a few times,
-- picked by a fixed generator) with one of its arguments, or one field of a table argument, swapped
-- for a wrong value: nil, false, a negative or huge or fractional number, NaN, a string, an empty
-- or odd table, a function, a register of another type. Such a call may work (it records what it
-- was asked) or fail; a failure must be an error at the line of this file that made the call
-- ("dsl_mutate_spec.lua:N: error: ..."), never a Lua error from inside ptxlua's own files, and must
-- end within a bounded amount of work. Then the real call runs, so the kernel goes on as written.
-- dsl_hostile_spec calls each function with hostile arguments alone; this reaches the checks
-- behind a valid first argument and a valid table, where a kernel's own mistakes are.
local H = require "helper"

local KDIR = H.root .. "/kernels/"
local LIB = "@" .. H.root .. "/lua/"
local THIS = "dsl_mutate_spec%.lua"
-- the kernels, each at a template setting that takes every path the file has by default
local FILES = {
  { "gemm.lua" }, { "gemm_mma.lua" }, { "grouped_gemm.lua" }, { "flash_attention.lua" },
  { "flash_attention.lua", { CAUSAL = 1 } }, { "rmsnorm_tma.lua" }, { "layernorm.lua" },
  { "softmax.lua" }, { "swiglu.lua" }, { "vector_add.lua" },
  { "gemm_sm100.lua" }, { "gemm_sm100.lua", { CLUSTER = 2 } }, { "gemm_fp8_sm100.lua" },
  { "grouped_gemm_sm100.lua" },
}
local TRIES = tonumber(os.getenv("MUTATE_TRIES") or 6) -- mutated calls per real call
local BUDGET = 2e7 -- Lua VM instructions a mutated call may take

local function lcg(seed)
  local s = seed
  return function(n)
    s = (s * 1103515245 + 12345) % 2147483648
    return math.floor(s / 65536) % n + 1
  end
end

-- at this file's line (the call), or at a line of the kernel's own code (a callback of the call:
-- a mutated ptx.if_ or ptx.warp_specialize runs the kernel's functions again); never in ptxlua's
-- library, never a Lua error
local function fine(msg)
  msg = tostring(msg)
  if msg:find("attempt to", 1, true) or msg:find("stack traceback", 1, true) then return false end
  if msg:match("^[^\n]*" .. THIS .. ":%d+: error: ") then return true end
  local file = msg:match("^([^\n:]+):%d+: error: ")
  return file ~= nil and file:sub(1, #KDIR) == KDIR
end

-- trace one kernel file with every ptx function wrapped; returns the findings and the counts
local function run(file, defines, seed)
  local ptx = H.fresh()
  local rnd = lcg(seed)
  local bad, calls, tried, failed = {}, 0, 0, 0
  local wrong -- registers of other types, made in the kernel being traced
  local function values()
    if not wrong then
      local ok, a, b, c = pcall(function() return ptx.reg.f16(), ptx.reg.s64(), ptx.pred() end)
      wrong = ok and { a, b, c } or {}
    end
    local V = { false, 0, -1, 0.5, 2 ^ 40, 1e300, 0 / 0, "", "x", "f32", {}, { 1, 2 }, { [0] = 99 },
                function() end }
    for _, r in ipairs(wrong) do V[#V + 1] = r end
    return V
  end
  -- one argument position or one field of a table argument, swapped; NIL stands for nil
  local NIL = {}
  local function mutate(args, n)
    local V = values()
    local v = V[rnd(#V + 1)] or NIL
    local pick = rnd(n)
    local a = args[pick]
    local out = {}
    for i = 1, n do out[i] = args[i] end
    if type(a) == "table" and getmetatable(a) == nil and next(a) ~= nil and rnd(3) > 1 then
      local keys = {}
      for k in pairs(a) do keys[#keys + 1] = k end
      table.sort(keys, function(x, y) return tostring(x) < tostring(y) end)
      local k = keys[rnd(#keys)]
      local t = {}
      for kk, vv in pairs(a) do t[kk] = vv end
      if v == NIL then t[k] = nil else t[k] = v end
      out[pick] = t
      return out, ("field %s of argument %d"):format(tostring(k), pick)
    end
    if v == NIL then out[pick] = nil else out[pick] = v end
    return out, ("argument %d"):format(pick)
  end
  local depth = 0
  local originals = {}
  for k, fn in pairs(ptx) do
    if type(fn) == "function" and not k:match("^_") then originals[k] = fn end
  end
  local SKIP = { reset = true, kernel = true, func = true, ptx = true, build = true, kernels = true,
                 select_kernels = true, write = true, print = true, import = true, error = true,
                 define = true, param = true, template = true,
                 check_templates = true, -- (its errors name the kernel's own line, by design)
                 -- declarations: a mutated one that works takes the name or the kernel's one plan,
                 -- and the real call after it fails (dsl_hostile_spec covers them)
                 tmem_plan = true, smem_plan = true, shared = true, shared_dynamic = true, regs = true,
                 ["local"] = true, global = true, const = true,
                 at = true } -- (a guard prefixes the next call: ptx.at(p).instruction(...))
  for name, fn in pairs(originals) do
    if not SKIP[name] then
      ptx[name] = function(...)
        local n = select("#", ...)
        -- a call of the kernel's own code (not one ptxlua's library makes)
        local src = debug.getinfo(2, "S").source
        local user = src:sub(1, #LIB) ~= LIB
        if depth == 0 and user and n > 0 then
          calls = calls + 1
          local args = { ... }
          for _ = 1, TRIES do
            local margs, what = mutate(args, n)
            tried = tried + 1
            depth = depth + 1
            local steps = 0
            debug.sethook(function()
              steps = steps + 1000
              if steps > BUDGET then error("dsl_mutate_spec: the call ran past its budget", 0) end
            end, "", 1000)
            local ok, err = pcall(fn, unpack(margs, 1, n))
            debug.sethook()
            depth = depth - 1
            if not ok then
              failed = failed + 1
              if not fine(err) and #bad < 25 then
                bad[#bad + 1] = ("%s: ptx.%s with %s swapped: %s"):format(file, name, what,
                                                                            tostring(err):gsub("\n.*", ""))
              end
            end
          end
        end
        return fn(...)
      end
    end
  end
  local ok, err = pcall(function()
    local chunk = assert(loadfile(KDIR .. file))
    chunk()
    ptx.ptx { defines = defines }
  end)
  for k, fn in pairs(originals) do ptx[k] = fn end
  return bad, calls, tried, failed, ok, err
end

describe("the DSL under mistakes in real calls", function()
  for i, f in ipairs(FILES) do
    local file, defines = f[1], f[2]
    local tag = file .. (defines and (" " .. H.shq((next(defines)))) or "")
    it("places every error of a mutated call at the caller's line: " .. tag, function()
      local bad, calls, tried, failed, ok, err = run(file, defines, 3000 + i)
      if os.getenv("MUTATE_VERBOSE") then
        io.stderr:write(("%s: %d calls, %d tried, %d failed, trace %s %s\n"):format(tag, calls, tried, failed,
          tostring(ok), tostring(err):sub(1, 300)))
      end
      assert(calls >= 5, tag .. ": only " .. calls .. " calls wrapped")
      assert(failed > tried / 20, tag .. ": only " .. failed .. " of " .. tried .. " mutated calls failed")
      assert.are.same({}, bad)
    end)
  end
end)
