-- emu_diagnostics_spec.lua -- what the emulator refuses and how it helps: an instruction it does not
-- emulate, stopped at its line; reads of never-written registers and runaway loops; the trace of one
-- thread's instructions and a warp's steps, kept when the run fails. (The budget of warp
-- instructions and Ctrl-C: emu_limits_spec.lua.)

local H = require "helper"
local rt = require "ptxlua.emu"

local dev = rt.device("emu")
local E = require "emu_common"
local T = E.on(dev)
local per_thread, one, run_error = T.per_thread, T.one, T.run_error
local THIS = debug.getinfo(1, "S").source:sub(2)

-- a line of this file, found by a marker comment on it
local function line_of(marker) return H.marker_line(THIS, marker) end

describe("emulator: what it refuses and how it helps", function()
  it("stops at an instruction it does not emulate, with the line", function()
    local err = run_error({}, function(ptx)
      local d = ptx.reg.b32()
      ptx.op "fns.b32" (d, ptx.b32(1), ptx.u32(1), ptx.s32(1)) -- FNS
    end)
    assert.are.equal(THIS .. ":" .. line_of("-- FNS") .. ": error: fns.b32 is not emulated", err)
    err = run_error({}, function(ptx)
      local a, b, c = ptx.reg.b128(), ptx.reg.b128(), ptx.reg.b128()
      ptx.shared("q", "b64", 2, 16)
      ptx.op "atom.shared.cas.b128" (a, ptx.addr(ptx.sym "q"), b, c) -- B128
    end)
    assert.are.equal(THIS .. ":" .. line_of("-- B128") .. ": error: atom.shared.cas.b128 is not emulated (128-bit types)", err)
  end)

  it("reports reads of never-written registers (opt-in) and stops runaway loops at a limit", function()
    local err = run_error({}, function(ptx)
      local r = ptx.reg.u32()
      local s = r + 1 -- UNINIT
    end, { checks = { uninit_regs = true } })
    assert.truthy(err and err:find(THIS .. ":" .. line_of("-- UNINIT") .. ": error: add.u32: reads %r", 1, true), err)
    assert.truthy(err:find("which no instruction has written (thread (0,0,0) of CTA (0,0,0))", 1, true), err)
    err = run_error({}, function(ptx)
      local L = ptx.label "top"
      ptx.place(L)
      ptx.bra(L) -- FOREVER
    end, { limit = 1000 })
    assert.truthy(err and err:find(THIS .. ":" .. line_of("-- FOREVER") .. ": error: the instruction limit", 1, true), err)
  end)

  it("traces the instructions one thread executes, with the values it writes", function()
    local _, st = per_thread("f32", function(ptx, tid)
      local x = tid:to("f32")
      return x * ptx.f32(0.5)
    end, { threads = 8, trace = { cta = 0, thread = 5 } })
    assert.truthy(st.trace:find("cvt.rn.f32.u32  %f1 = 5 (0x40a00000)", 1, true), st.trace)
    assert.truthy(st.trace:find("mul.rn.f32  %f3 = 2.5 (0x40200000)", 1, true), st.trace)
  end)

  it("steps a warp: one line per warp instruction with its lanes and every lane's values", function()
    local _, st = per_thread("u32", function(ptx, tid)
      local r = ptx.u32(0)
      ptx.if_(tid:lt(2), function()
        ptx.add.u32(r, r, tid) -- INBRANCH
      end)
      return r
    end, { threads = 4, trace = { cta = 0, warp = 0 } })
    assert.truthy(st.trace:find("[warp 0, lanes 0x0000000f] " .. THIS, 1, true), st.trace)
    assert.truthy(st.trace:find("bra  (guard true in lanes 0x0000000c)", 1, true), st.trace)
    assert.truthy(st.trace:find("[warp 0, lanes 0x00000003] " .. THIS .. ":" .. line_of("-- INBRANCH") .. ": add.u32  %r", 1, true), st.trace)
    assert.truthy(st.trace:find(" = {0, 1, _, _}", 1, true), st.trace)
  end)

  it("keeps the trace of a run that failed", function()
    local tr = { cta = 0, thread = 0 }
    local err = run_error({}, function(ptx)
      local q = ptx.u32(7) / ptx.special "tid.x"
    end, { block = { 1 }, trace = tr })
    assert.truthy(err and err:find("division by zero", 1, true), err)
    assert.truthy(tr.text:find("mov.u32  %r1 = 7 (0x7)", 1, true), tr.text)
  end)
end)
