-- hostile_spec.lua -- every C function of ptxlua.core, and every method of the objects it makes
-- (traced and parsed modules, emulator memories, emulators, shared-memory plans), called with
-- hostile arguments: wrong types, NaN and infinities, negative and huge numbers, long and binary
-- strings, tables shaped like operands with bad contents, objects of the wrong kind, erroring
-- metatables. Each call may fail with a Lua error; none may crash, and under the sanitizer build
-- (CI) none may touch memory it does not own or overflow an integer. The calls are drawn from a
-- fixed seed, so a failure repeats.
local core = require "ptxlua.core"
local H = require "helper"

local PTX = H.fixture "api/hostile_k.ptx"

-- a fresh set of objects of every kind, so a call that changed one does not decide the next
local function objects()
  local o = {}
  local ok, m = pcall(core.module, "sm_90a", 80)
  if ok then o.module = m end
  local pm = core.parse(PTX, "hostile.ptx")
  o.parsed = pm
  o.mem = core.emu_mem()
  local okE, e = pcall(core.emu, pm, "k", o.mem)
  if okE then o.emu = e end
  o.plan = core.smem_plan(90)
  o.plan:add("tile", 2, 64 * 64, 2, 1024, "128B")
  return o
end

local closed = io.tmpfile()
closed:close()

local function values(o)
  local V = { false, true, 0, -0.0, -1, 1, 2, 3, 7, 31, 32, 33, 127, 128, 255, 256, 1024, 65535, 65536,
    2^31 - 1, 2^31, 2^32, 2^32 + 1, -2^31, -2^31 - 1, 2^53, -2^53, 2^63, 2^64, 2^70, 1e300, -1e300, 0 / 0,
    1 / 0, -1 / 0, 0.5, -0.5, 1e-300,
    "", "x", "f32", "u64", "b128", "pred", "sm_90a", "sm_100a", "add.f32", "%r1", "ld.global.u32", "shared",
    "races", "k", "a", "bf16", "128B", "none", string.rep("a", 70000), "\0\1\2", string.rep("\255", 128),
    {}, { 1, 2, 3 }, { 1, { 2, { 3 } } }, { [0] = 1 }, { [0] = -3, "x" }, { [0] = 5, 1, 2 }, { [0] = 2^40 },
    { [0] = -2^40 }, { [0] = 0 / 0 }, { [0] = -1, { [0] = 1 }, 4 }, { n = -1, [1] = 2^33 },
    setmetatable({}, { __index = function() error("boom") end }),
    function() end, coroutine.create(function() end), io.tmpfile(), closed }
  for _, v in pairs(o) do V[#V + 1] = v end
  return V
end

local function methods(obj)
  local mt = getmetatable(obj)
  local idx = mt and mt.__index
  local names = {}
  if type(idx) == "table" then
    for k, f in pairs(idx) do if type(f) == "function" then names[#names + 1] = k end end
  end
  table.sort(names)
  return names, idx
end

local lcg = require("helper").lcg                 -- the same picks on every machine

local function hammer(name, f, first, V, rnd, rounds)
  local calls = 0
  local function call(args, n)
    calls = calls + 1
    pcall(f, unpack(args, 1, n))
  end
  local base = first and 1 or 0
  call({ first }, base)
  for _, v in ipairs(V) do call({ first, v }, base + 1) end
  for _ = 1, rounds do
    local n = rnd(5)
    local a = { first }
    for i = 1, n do a[base + i] = V[rnd(#V)] end
    call(a, base + n)
  end
  return calls
end

describe("the C core under hostile calls", function()
  it("every core function survives any arguments", function()
    local names = {}
    for k, f in pairs(core) do
      -- cuda_init would load a real driver where there is one; everything else answers without one
      if type(f) == "function" and k ~= "cuda_init" then names[#names + 1] = k end
    end
    table.sort(names)
    assert.is_true(#names > 40, "the core exports " .. #names .. " functions")
    local rnd, calls = lcg(12345), 0
    for _, name in ipairs(names) do
      local o = objects()
      calls = calls + hammer(name, core[name], nil, values(o), rnd, 250)
    end
    assert.is_true(calls > 40 * 250)
    -- the core still works after all that
    local m = core.parse(PTX, "after.ptx")
    assert.is_truthy(m)
  end)

  for _, kind in ipairs { "module", "parsed", "mem", "emu", "plan" } do
    it("every method of a " .. kind .. " object survives any arguments", function()
      local rnd = lcg(#kind * 7919)
      local o = objects()
      local names, idx = methods(o[kind])
      assert.is_true(#names >= (kind == "plan" and 3 or 8), kind .. " has " .. #names .. " methods")
      local calls = 0
      for _, name in ipairs(names) do
        local fresh = objects()
        calls = calls + hammer(kind .. ":" .. name, idx[name], fresh[kind], values(fresh), rnd, 250)
        -- and a method called on an object of another kind, or on nothing
        for _, other in pairs(fresh) do pcall(idx[name], other) end
        pcall(idx[name])
      end
      assert.is_true(calls > #names * 250)
    end)
  end

  it("a kernel whose parameters exceed the driver's 32764 bytes is refused at its line", function()
    local text = PTX:gsub("%.param %.u32 n%)", ".param .u32 n, .param .b8 big[4294967295])")
    local m = core.parse(text, "big.ptx")
    local e = core.emu(m, "k", core.emu_mem())
    assert.matches("^big%.ptx:4: error: the kernel's parameters take more than 32764 bytes %(parameter 'big'%)", e:error())
    text = PTX:gsub("%.param %.u32 n%)", ".param .u32 n, .param .b8 fits[32000])")
    assert.is_nil(core.emu(core.parse(text, "fits.ptx"), "k", core.emu_mem()):error())
  end)

  it("an emulator run after hostile options still reports at the kernel's lines", function()
    local o = objects()
    local e = o.emu
    for _, v in ipairs(values(o)) do pcall(e.options, e, { limit = v, trace = { v, v, v } }) end
    e:clear()
    e:options {}
    local a = o.mem:alloc(64)
    assert.is_true(e:set_param(1, core.emu_pack("u64", a)))
    assert.is_true(e:set_param(2, core.emu_pack("u32", 100)))
    assert.is_true(e:launch({ 1, 1, 1 }, { 64, 1, 1 }, 0))
    local ok, err = e:run()
    assert.is_falsy(ok)
    assert.matches("^hostile%.ptx:16: error: out%-of%-bounds st%.global%.u32", err)
  end)
end)
