-- emu_diagnostics_spec.lua -- what the emulator refuses and how it helps: an instruction it does not
-- emulate, stopped at its line; reads of never-written registers and runaway loops; the trace of one
-- thread's instructions and a warp's steps, kept when the run fails. (The budget of warp
-- instructions and Ctrl-C: emu_limits_spec.lua.)

local H = require "helper"
local rt = require "ptxlua.emu"

local dev = rt.device("emu")
local THIS = debug.getinfo(1, "S").source:sub(2)

-- a line of this file, found by a marker comment on it
local function line_of(marker) return H.marker_line(THIS, marker) end

local STORE = { f32 = "f32", f64 = "f64", u32 = "u32", s32 = "s32", u64 = "u64", s64 = "s64", b32 = "b32",
                f16 = "b16", bf16 = "b16", u16 = "u16", s16 = "s16", b16 = "b16", u8 = "u8", b64 = "b64" }

-- run fn(ptx, tid) in `threads` threads (one CTA, 32 by default); every value fn returns (a
-- register, or a list of registers) is stored per thread; returns the list of value lists (1-based
-- per thread) as numbers of type t
local function per_thread(t, fn, opts)
  opts = opts or {}
  local threads = opts.threads or 32
  local ptx = H.fresh()
  local nout
  local k = ptx.kernel { name = "k", target = opts.target, params = { { "out", t .. "*" } }, body = function(_, out)
    local p = ptx.global_ptrs(out)
    local tid = ptx.special "tid.x"
    local vs = fn(ptx, tid)
    if ptx.isreg(vs) then vs = { vs } end
    nout = #vs
    local sz = rt.sizes[t]
    local base = p + tid:mul_wide(sz * #vs)
    for j, v in ipairs(vs) do ptx.st.global[STORE[t]](ptx.addr(base, (j - 1) * sz), v) end
  end }
  -- trace once to learn how many values a thread stores
  k:trace {}
  local out = dev:array(t, threads * nout):poison()
  local st = rt.launch(k, { device = dev, args = { out }, grid = { 1 }, block = { threads }, checks = opts.checks,
                            trace = opts.trace })
  local all = out:read()
  local res = {}
  for i = 1, threads do
    res[i] = {}
    for j = 1, nout do res[i][j] = all[(i - 1) * nout + j] end
  end
  out:free()
  return res, st
end

-- one thread's values
local function one(t, fn, opts)
  opts = opts or {}
  opts.threads = 1
  return per_thread(t, fn, opts)[1]
end

-- the error a kernel body raises when run (nil when it runs)
local function run_error(params, body, launch)
  local ptx = H.fresh()
  local k = ptx.kernel { name = "k", params = params or {}, body = function(...) body(ptx, ...) end }
  launch = launch or {}
  launch.device = dev
  launch.grid = launch.grid or { 1 }
  launch.block = launch.block or { 32 }
  local ok, err = pcall(rt.launch, k, launch)
  if ok then return nil end
  return err
end

describe("emulator: what it refuses and how it helps", function()
  it("stops at an instruction it does not emulate, with the line", function()
    local err = run_error({}, function(ptx)
      local d = ptx.reg.b32()
      ptx.op "fns.b32" (d, ptx.b32(1), ptx.u32(1), ptx.s32(1)) -- FNS
    end)
    assert.are.equal(THIS .. ":" .. line_of("-- FNS") .. ": error: fns.b32 is not emulated", err)
    err = run_error({}, function(ptx)
      local a, b = ptx.reg.b128(), ptx.reg.b128()
      ptx.mov.b128(a, b) -- B128
    end)
    assert.are.equal(THIS .. ":" .. line_of("-- B128") .. ": error: mov.b128 is not emulated (128-bit types)", err)
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
