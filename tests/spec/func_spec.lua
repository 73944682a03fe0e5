-- func_spec.lua -- device functions (ptx.func) and calls (ptx.call): the exact PTX they record,
-- ptxas on a module that calls them, errors at the script's line, and the emulator running them.
local H = require "helper"
local rt = require "ptxlua.emu"
local dev = rt.device("emu")

-- the PTX of a script: funcs(ptx) defines the functions and returns what body(ptx, out...) needs
local function module(funcs, body, params)
  local ptx = H.fresh()
  local env = funcs(ptx)
  local k = ptx.kernel { name = "k", params = params or { { "out", "s32*" } },
                         body = function(_, ...) body(ptx, env, ...) end }
  return ptx.ptx(), k, ptx
end

-- the lines between `{` and `}` of the function named `name` (instructions only)
local function body_of(text, name)
  local out, inside = {}, false
  for line in text:gmatch("[^\n]*") do
    if line:match("^%.func.- " .. name .. "[%(]?$") or line:match("^%.func " .. name .. "$")
       or line:match("^%.func.-%) " .. name .. "%(") or line:match("^%.visible %.entry " .. name .. "%(") then inside = "head"
    elseif inside == "head" and line == "{" then inside = true
    elseif inside == true and line == "}" then break
    elseif inside == true and line:match("^\t[%a@]") and not line:match("^\t%.reg") then
      out[#out + 1] = (line:gsub("^\t", ""):gsub(" \t", " "))
    end
  end
  return out
end

local function fails(needle, fn)
  local ok, err = pcall(fn)
  assert.is_false(ok, "expected an error mentioning: " .. needle)
  assert.truthy(tostring(err):match("^[^\n]*func_spec%.lua:%d+: error: "), "not at the script's line: " .. tostring(err))
  assert.truthy(tostring(err):find(needle, 1, true), "expected '" .. needle .. "' in: " .. tostring(err))
  return err
end

local function addone(ptx)
  return ptx.func { name = "addone", params = { { "a", "s32" } }, returns = { { "r", "s32" } },
    body = function(_, a, r) local v = a:load(); r:store(v + 1) end }
end

describe("ptx.func", function()
  it("prints a .func before the kernels, its params as ld.param and its results as st.param", function()
    local text = module(function(ptx) return addone(ptx) end, function() end)
    assert.truthy(text:find(".func (.param .s32 r) addone(\n\t.param .s32 a\n)\n{", 1, true), text)
    assert.are.same({ "ld.param.s32 %si1, [a];", "add.s32 %si2, %si1, 1;", "st.param.s32 [r], %si2;" }, body_of(text, "addone"))
    assert.truthy(text:find("addone", 1, true) < text:find(".entry k", 1, true))
  end)

  it("is traced in definition order, into every module the script builds", function()
    local text = module(function(ptx)
      ptx.func { name = "first", body = function() end }
      ptx.func { name = "second", params = { { "p", "f32*" } }, body = function(_, p) p:load() end }
    end, function() end)
    local a, b = text:find(".func first", 1, true), text:find(".func second", 1, true)
    assert.truthy(a and b and a < b, text)
    assert.are.same({ "ld.param.u64 %rd1, [p];" }, body_of(text, "second"))
  end)

  it("r:store(v) is exactly one st.param", function()
    local text = module(function(ptx)
      return ptx.func { name = "seven", returns = { { "r", "u32" } }, body = function(_, r) r:store(7) end }
    end, function() end)
    assert.are.same({ "st.param.u32 [r], 7;" }, body_of(text, "seven"))
  end)
end)

describe("ptx.call", function()
  it("records one call.uni with the results and arguments as lists of registers", function()
    local text = module(function(ptx)
      return { addone = addone(ptx), nothing = ptx.func { name = "nothing", body = function() end },
               sink = ptx.func { name = "sink", params = { { "x", "u32" } }, body = function() end },
               seven = ptx.func { name = "seven", returns = { { "r", "u32" } }, body = function(_, r) r:store(7) end } }
    end, function(ptx, f)
      local a = ptx.s32(3)
      local b = ptx.reg.s32()
      ptx.call(f.addone, { b }, { a })
      ptx.call(f.addone, { b }, { 5 })
      ptx.call(f.nothing)
      local u = ptx.reg.u32()
      ptx.call(f.sink, nil, { u })
      ptx.call(f.sink, {}, { 9 })
      ptx.call(f.seven, { u })
      ptx.call("addone", { b }, { b })
      ptx.at(a:eq(1)).call(f.addone, { b }, { a }, { uni = false })
    end)
    assert.are.same({
      "mov.s32 %si1, 3;",
      "call.uni (%si2), addone, (%si1);",
      "call.uni (%si2), addone, (5);",
      "call.uni nothing;",
      "call.uni sink, (%r1);",
      "call.uni sink, (9);",
      "call.uni (%r1), seven;",
      "call.uni (%si2), addone, (%si2);",
      "setp.eq.s32 %p1, %si1, 1;",
      "@%p1 call (%si2), addone, (%si1);",
    }, body_of(text, "k"))
  end)

  it("a module with a kernel calling two functions (one calling the other) assembles", function()
    local text = module(function(ptx)
      local one = addone(ptx)
      local two = ptx.func { name = "addtwo", params = { { "a", "s32" } }, returns = { { "r", "s32" } },
        body = function(_, a, r)
          local b = ptx.reg.s32()
          ptx.call(one, { b }, { a:load() })
          local c = ptx.reg.s32()
          ptx.call(one, { c }, { b })
          r:store(c)
        end }
      local mix = ptx.func { name = "mix", params = { { "x", "f32" }, { "p", "f32*" }, { "n", "u32" } },
        returns = { { "hi", "u64" } },   -- ptxas takes one .param result (several need .reg ones)
        body = function(_, x, p, n, hi) x:load(); hi:store(p:load() + n:load():to("u64")) end }
      return { one = one, two = two, mix = mix }
    end, function(ptx, f, out)
      local a, b = ptx.s32(1), ptx.reg.s32()
      ptx.call(f.two, { b }, { a })
      local hi = ptx.reg.u64()
      ptx.call(f.mix, { hi }, { ptx.f32(1.5), out:load(), 4 })
    end)
    local ok, report = H.assemble(text, "sm_90a")
    if ok == nil then return end
    assert.is_true(ok, report .. "\n" .. text)
  end)

  it("checks the results and arguments against the function, at the script's line", function()
    local function with(body)
      return function()
        module(function(ptx) return { addone = addone(ptx),
          fl = ptx.func { name = "fl", params = { { "x", "f32" } }, body = function() end } } end, body)
      end
    end
    fails("ptx.call addone: 1 argument expected, got 2", with(function(ptx, f)
      local a = ptx.s32(1); ptx.call(f.addone, { a }, { a, a }) end))
    fails("ptx.call addone: 1 result expected, got 0", with(function(ptx, f)
      local a = ptx.s32(1); ptx.call(f.addone, nil, { a }) end))
    fails("argument 1 ('a') is .s32, got a .u32 register", with(function(ptx, f)
      local a, b = ptx.u32(1), ptx.reg.s32(); ptx.call(f.addone, { b }, { a }) end))
    fails("result 1 ('r') is .s32, got a .f32 register", with(function(ptx, f)
      local a, b = ptx.s32(1), ptx.reg.f32(); ptx.call(f.addone, { b }, { a }) end))
    fails("argument 1 ('x') is .f32: pass a register", with(function(ptx, f) ptx.call(f.fl, nil, { 1.5 }) end))
    fails("no function named 'nosuch'", with(function(ptx) ptx.call("nosuch") end))
    fails("must be a function from ptx.func", with(function(ptx) ptx.call({ name = "addone" }) end))
  end)

  it("refuses a function that is not (or no longer) defined, or defined after its caller", function()
    local ptx = H.fresh()
    local old = addone(ptx)
    ptx.reset()
    fails("is not defined in this script", function()
      ptx.kernel { name = "k", body = function() local a = ptx.s32(1); ptx.call(old, { a }, { a }) end }
      ptx.ptx()
    end)
    ptx.reset()
    local later
    ptx.func { name = "early", body = function() ptx.call(later) end }
    later = ptx.func { name = "later", body = function() end }
    ptx.kernel { name = "k", body = function() end }
    fails("function 'later' is defined after 'early'", function() ptx.ptx() end)
  end)

  it("refuses bad definitions at the line of ptx.func", function()
    local ptx = H.fresh()
    fails("unknown field 'param'", function() ptx.func { name = "f", param = {}, body = function() end } end)
    fails("a function parameter is a scalar or a pointer", function()
      ptx.func { name = "f", params = { { "b", "b8", size = 8 } }, body = function() end } end)
    fails("parameter 'a' twice", function()
      ptx.func { name = "f", params = { { "a", "u32" } }, returns = { { "a", "u32" } }, body = function() end } end)
    ptx.func { name = "g", body = function() end }
    fails("function 'g' is defined twice", function() ptx.func { name = "g", body = function() end } end)
  end)
end)

describe("the emulator runs calls", function()
  local function run(funcs, body, n, checks)
    local _, k = module(funcs, body)
    local out = dev:array("s32", n)
    rt.launch(k, { device = dev, args = { out }, grid = { 1 }, block = { n }, checks = checks or { uninit_regs = true } })
    return out:read()
  end
  -- out[tid] = v
  local function store(ptx, out, tid, v)
    local o = ptx.global_ptrs(out)
    ptx.st.global.s32(ptx.addr(o + tid:mul_wide(4)), v)
  end

  it("a call in every thread, and a function calling another", function()
    local got = run(function(ptx)
      local one = addone(ptx)
      local two = ptx.func { name = "addtwo", params = { { "a", "s32" } }, returns = { { "r", "s32" } },
        body = function(_, a, r)
          local b, c = ptx.reg.s32(), ptx.reg.s32()
          ptx.call(one, { b }, { a:load() })
          ptx.call(one, { c }, { b })
          r:store(c)
        end }
      return { two = two }
    end, function(ptx, f, out)
      local tid = ptx.special("tid.x")
      local y = ptx.reg.s32()
      ptx.call(f.two, { y }, { tid:to("s32") * 10 })
      store(ptx, out, tid, y)
    end, 40)
    for i = 1, 40 do assert.are.equal((i - 1) * 10 + 2, got[i]) end
  end)

  it("a divergent call: the threads that skip it wait, and all reconverge after it", function()
    local got = run(function(ptx) return { one = addone(ptx) } end, function(ptx, f, out)
      local tid = ptx.special("tid.x")
      local x = tid:to("s32")
      local y = ptx.reg.s32()
      y:set(x)
      ptx.at(tid:lt(5)).call(f.one, { y }, { x }, { uni = false })
      -- a full-warp shuffle right after: every lane must be back here together
      local z = ptx.reg.s32()
      ptx.shfl.sync.idx.b32(z, y, 0, 31, 0xffffffff)
      store(ptx, out, tid, y + z)
    end, 32)
    for i = 1, 32 do
      local t = i - 1
      assert.are.equal((t < 5 and t + 1 or t) + 1, got[i])
    end
  end)

  it("divergence inside a function, several params, and a kernel's ret", function()
    local got = run(function(ptx)
      return { divmod = ptx.func { name = "divmod", params = { { "a", "s32" }, { "b", "s32" } },
        returns = { { "qr", "s32" } },                  -- q * 100 + r: ptxas takes one .param result
        body = function(_, a, b, qr)
          local x, y = a:load(), b:load()
          ptx.if_(x:lt(0), function() qr:store(-101) end, function()
            qr:store((x / y) * 100 + x % y)
          end)
        end } }
    end, function(ptx, f, out)
      local tid = ptx.special("tid.x")
      local qr = ptx.reg.s32()
      ptx.call(f.divmod, { qr }, { tid:to("s32") - 3, 4 })
      store(ptx, out, tid, qr)
      ptx.ret()
      store(ptx, out, tid, qr + 1)                      -- never runs: ret ends the kernel's threads
    end, 20)
    for i = 1, 20 do
      local a = i - 4
      assert.are.equal(a < 0 and -101 or math.floor(a / 4) * 100 + a % 4, got[i])
    end
  end)

  it("refuses a second result, which ptxas would reject", function()
    local ptx = H.fresh()
    local ok, err = pcall(ptx.func, { name = "two", returns = { { "q", "s32" }, { "r", "s32" } }, body = function() end })
    assert.is_false(ok)
    assert.truthy(tostring(err):find("ptxas takes one .param result", 1, true), err)
  end)

  it("runs recursion; one without end stops at the call's line when 1024 calls are nested", function()
    local _, k = module(function(ptx)
      local f
      f = ptx.func { name = "rec", params = { { "a", "s32" } }, body = function(_, a)
        local v = a:load()
        ptx.call("rec", nil, { v })                     -- the call's line
      end }
      return { rec = f }
    end, function(ptx, f) ptx.call(f.rec, nil, { 1 }) end)
    local ok, err = pcall(rt.launch, k, { device = dev, args = { dev:array("s32", 1) }, grid = { 1 }, block = { 1 } })
    assert.is_false(ok)
    assert.truthy(err:match("func_spec%.lua:%d+: error: call%.uni: the call stack is full: calls nested 1024 deep"), err)
    assert.truthy(err:find("func_spec.lua:" .. H.marker_line("tests/spec/func_spec.lua", "-- the call's line") .. ":", 1, true), err)
  end)
end)
