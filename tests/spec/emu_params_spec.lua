-- emu_params_spec.lua -- an out-of-range .param access says where the access is and where the
-- parameters are: the kernel's parameter block (its bytes, each parameter's range, a generic
-- address as the program computed it), and a .func's parameter, result or a call's .param
-- variable, each a variable of its own (an access past one reads nothing of its neighbours).
local H = require "helper"
local rt = require "ptxlua.emu"

local fmt = string.format
local THIS = debug.getinfo(1, "S").source:sub(2)
local function here() return debug.getinfo(2, "l").currentline end

describe("an out-of-range access of the kernel's parameters", function()
  local lines = {}
  local function kernels(ptx)
    ptx.kernel { name = "past", params = { { "out", "u32*" }, { "n", "u32" } }, block = { 32 }, grid = { 1 },
      body = function(t, out, n)
        local po = ptx.global_ptrs(out)
        local r = ptx.reg.u32()
        lines.past = here() + 1
        ptx.op "ld.param.u32" (r, ptx.addr(n, 4))
        ptx.st.global.u32(ptx.addr(po), r)
      end }
    ptx.kernel { name = "generic", params = { { "out", "u32*" }, { "n", "u32" } }, block = { 32 }, grid = { 1 },
      body = function(t, out, n)
        local po = ptx.global_ptrs(out)
        local r, a = ptx.reg.u32(), ptx.reg.u64()
        ptx.op "mov.u64" (a, n)
        ptx.op "cvta.param.u64" (a, a)
        lines.generic = here() + 1
        ptx.op "ld.u32" (r, ptx.addr(a, 8))
        ptx.st.global.u32(ptx.addr(po), r)
      end }
  end

  it("names the bytes it reads and the block's parameters, each with its bytes", function()
    local ptx = H.fresh()
    kernels(ptx)
    H.assembles(ptx)
    local dev = rt.device("emu")
    local out = dev:array("u32", 1)
    local ks = {}
    for _, k in ipairs(ptx.kernels()) do ks[k.name] = k end
    local ok, err = pcall(rt.launch, ks.past, { device = dev, args = { out, 5 } })
    assert.is_false(ok)
    H.expect_error(err, THIS, lines.past, "out-of-bounds ld.param.u32 by thread (0,0,0) of CTA (0,0,0): bytes 12..15 of the kernel's "
                   .. "parameters, outside its 12-byte parameter block (out: bytes 0..7, n: bytes 8..11)")
    ok, err = pcall(rt.launch, ks.generic, { device = dev, args = { out, 5 } })
    assert.is_false(ok)
    H.expect_error(err, THIS, lines.generic, "out-of-bounds ld.u32 by thread (0,0,0) of CTA (0,0,0): bytes 16..19 of the kernel's "
                   .. "parameters (generic address 0x300000000010), outside its 12-byte parameter block (out: bytes 0..7, n: bytes 8..11)")
  end)
end)

describe("an out-of-range access of a function's own .param variables", function()
  -- f reads past its parameter a (into what the emulator lays out next to it: its result r); the
  -- kernel reads past r0, its call's result variable
  local function ptx_text(a_off, r0_off)
    return table.concat({
      ".version 8.0", ".target sm_80", ".address_size 64", "",
      ".func (.param .b32 r) f(.param .b32 a)", "{", "\t.reg .b32 \t%r<3>;",
      fmt("\tld.param.b32 \t%%r1, [a+%d];", a_off), "\tst.param.b32 \t[r], %r1;", "\tret;", "}", "",
      ".visible .entry k(.param .u64 out)", "{", "\t.reg .b32 \t%r<3>;", "\t.reg .b64 \t%rd<3>;",
      "\tld.param.u64 \t%rd1, [out];", "\tcvta.to.global.u64 \t%rd2, %rd1;", "\tmov.b32 \t%r1, 5;", "\t{",
      "\t.param .b32 p0;", "\t.param .b32 r0;", "\tst.param.b32 \t[p0], %r1;", "\tcall (r0), f, (p0);",
      fmt("\tld.param.b32 \t%%r2, [r0+%d];", r0_off), "\t}", "\tst.global.u32 \t[%rd2], %r2;", "\tret;", "}", "" }, "\n")
  end
  local function run(text, base)
    local path = H.transpile(text, base, "plain")
    local ks = H.load_script(path)
    local dev = rt.device("emu")
    local out = dev:array("u32", 1)
    local ok, err = pcall(rt.launch, ks.k, { device = dev, args = { out }, grid = 1, block = 1 })
    return path, ok and out:get(1) or nil, not ok and err or nil
  end

  it("in range: the call's value comes back", function()
    local _, got, err = run(ptx_text(0, 0), "param_ok")
    assert.is_nil(err)
    assert.are.equal(5, got)
  end)

  it("past a .func's parameter: at the access, naming the parameter, its function and its size", function()
    local path, _, err = run(ptx_text(4, 0), "param_past")
    H.expect_error(err, path, H.line_holding(path, "[a+4]"), "out-of-range ld.param.b32: it reads bytes 4..7 of parameter 'a' of f, "
                   .. "which holds 4 bytes (0..3): each .param of a function (a parameter, a result, a call's .param variable) is a "
                   .. "variable of its own, with nothing past its end")
  end)

  it("past a call's .param variable, and far past a parameter", function()
    local path, _, err = run(ptx_text(0, 4), "param_r0")
    H.expect_error(err, path, H.line_holding(path, "[r0+4]"), "out-of-range ld.param.b32: it reads bytes 4..7 of the .param variable 'r0', which holds 4 bytes (0..3)")
    path, _, err = run(ptx_text(4000, 0), "param_far")
    H.expect_error(err, path, H.line_holding(path, "[a+4000]"), "it reads bytes 4000..4003 of parameter 'a' of f")
  end)
end)

describe("the specs' check-order wrapper (helper.lua)", function()
  it("runs a launch that fails with no opt-in check on again with every one on", function()
    local ptx = H.fresh()
    local k = ptx.kernel { name = "oob", params = { { "out", "u32*" } }, block = { 32 }, grid = { 1 },
      body = function(t, out)
        local po = ptx.global_ptrs(out)
        ptx.st.global.u32(ptx.addr(po + 4096), ptx.special "tid.x")
      end }
    local dev = rt.device("emu")
    local before = H.check_order.runs
    assert.is_false(pcall(rt.launch, k, { device = dev, args = { dev:array("u32", 4) } }))
    assert.are.equal(before + 1, H.check_order.runs)
  end)
end)
