-- emu_memory_spec.lua -- the emulator's memory: loads and stores in each state space and through
-- generic addresses, dynamic shared memory, .const data, out-of-bounds and misaligned accesses,
-- atomics and reductions, cp.async; then an out-of-range .param access, which says where the access
-- is and where the parameters are. (Races: emu_races_global_spec.lua, emu_races_atomics_spec.lua.)

local H = require "helper"
local rt = require "ptxlua.emu"

local dev = rt.device("emu")
local E = require "emu_common"
local T = E.on(dev)
local per_thread, one, run_error = T.per_thread, T.one, T.run_error
local THIS = debug.getinfo(1, "S").source:sub(2)

-- a line of this file, found by a marker comment on it
local function line_of(marker) return H.marker_line(THIS, marker) end

describe("emulator: memory", function()
  it("loads and stores vectors in global, shared (static and dynamic), local and param space, and through generic addresses", function()
    local ptx = H.fresh()
    local k = ptx.kernel { name = "k", params = { { "x", "f32*" }, { "out", "f32*" }, { "scale", "f32" } }, body = function(_, x, out, scale)
      local px, po = ptx.global_ptrs(x, out)
      local tid = ptx.special "tid.x"
      local v = ptx.regs.f32(4)
      ptx.ld.global.v4.f32(v, ptx.addr(px + tid:mul_wide(16)))           -- 4 floats a thread
      -- static shared: a v2 round trip
      local s = ptx.reg.u32(); ptx.mov.u32(s, ptx.shared("st", "f32", 64, 16))
      ptx.st.shared.v2.f32(ptx.addr(tid:mad(8, s)), { v[1], v[2] })
      -- dynamic shared, through a generic address (cvta)
      local dyn = ptx.shared_dynamic("dyn")
      local g = ptx.reg.u64(); ptx.cvta.shared.u64(g, dyn)
      local ga = g + tid:mul_wide(8)
      ptx.st.v2.f32(ptx.addr(ga), { v[3], v[4] })
      -- local memory
      ptx._current().mod:var("local", "tmp", "f32", 4, 2)
      ptx.st["local"].f32(ptx.addr(ptx.sym "tmp", 4), v[1])
      local w = ptx.regs.f32(4)
      ptx.ld.shared.v2.f32({ w[1], w[2] }, ptx.addr(tid:mad(8, s)))
      local back = ptx.reg.u64(); ptx.cvta.to.shared.u64(back, ga)
      ptx.ld.shared.v2.f32({ w[3], w[4] }, ptx.addr(back:to("u32"):as("u32")))
      local l = ptx.reg.f32(); ptx.ld["local"].f32(l, ptx.addr(ptx.sym "tmp", 4))
      local sc = scale:load()
      for j = 1, 4 do ptx.mul.rn.f32(w[j], w[j], sc) end
      ptx.st.global.v4.f32(ptx.addr(po + tid:mul_wide(32)), w)
      ptx.st.global.f32(ptx.addr(po + tid:mul_wide(32), 16), l)
    end }
    local n = 8
    local x = dev:array("f32", 4 * n, function(i) return i end, "x")
    local out = dev:array("f32", 8 * n, nil, "out"):poison()
    rt.launch(k, { device = dev, args = { x, out, 0.5 }, grid = { 1 }, block = { n }, smem = 8 * n })
    local o = out:read()
    for t = 0, n - 1 do
      for j = 1, 4 do assert.are.equal((4 * t + j) * 0.5, o[8 * t + j]) end
      assert.are.equal(4 * t + 1, o[8 * t + 5])
    end
  end)

  it("gives a launch without smem the kernel's own `smem` field as dynamic shared memory", function()
    local ptx = H.fresh()
    local k = ptx.kernel { name = "dynfield", templates = { N = 16 }, smem = function(t) return 4 * t.N end,
      params = { { "out", "f32*" } }, block = function(t) return { t.N } end, grid = { 1 },
      body = function(_, out)
        local po = ptx.global_ptrs(out)
        local tid = ptx.special "tid.x"
        local s = ptx.reg.u32(); ptx.mov.u32(s, ptx.shared_dynamic("dynf"))
        local v = ptx.reg.f32(); ptx.cvt.rn.f32.u32(v, tid)
        ptx.st.shared.f32(ptx.addr(tid:mad(4, s)), v)
        ptx.bar.sync(0)
        local r = ptx.reg.f32(); ptx.ld.shared.f32(r, ptx.addr((tid:bxor(1)):mad(4, s)))
        ptx.st.global.f32(ptx.addr(po + tid:mul_wide(4)), r)
      end }
    for _, n in ipairs { 16, 64 } do
      local out = dev:array("f32", n, nil, "out"):poison()
      rt.launch(k, { device = dev, args = { out }, defines = { N = n } })
      local o = out:read()
      for t = 0, n - 1 do assert.are.equal(bit.bxor(t, 1), o[t + 1]) end
      out:free()
    end
  end)

  it("reads module .const data from its initializer and refuses writes to it", function()
    local r = one("f32", function(ptx)
      ptx._current().mod:var("const", "ctab", "f32", 4, 4, "{1.5, 2.5, 0f40600000, -4}", "", true)
      local a, b = ptx.reg.f32(), ptx.reg.f32()
      ptx.ld.const.f32(a, ptx.addr(ptx.sym "ctab", 8))
      local p = ptx.reg.u64(); ptx.mov.u64(p, ptx.sym "ctab")
      ptx.ld.const.f32(b, ptx.addr(p, 12))
      return { a, b }
    end)
    assert.are.same({ 3.5, -4 }, r)
    local err = run_error({}, function(ptx)
      ptx._current().mod:var("const", "cw", "u32", 4, 1, nil, "", true)
      local p = ptx.reg.u64(); ptx.mov.u64(p, ptx.sym "cw")       -- .const data lives in the global window
      ptx.st.global.u32(ptx.addr(p), ptx.u32(1)) -- CONSTWRITE
    end, { block = { 1 } })
    assert.truthy(err and err:find(THIS .. ":" .. line_of("-- CONSTWRITE") .. ": error: write to constant memory by st.global.u32", 1, true), err)
  end)

  it("reports out-of-bounds and misaligned accesses at the instruction's line", function()
    local x = dev:array("f32", 4, nil, "xs")
    local err = run_error({ { "x", "f32*" } }, function(ptx, _, xp)
      local p = ptx.global_ptrs(xp)
      local v = ptx.reg.f32()
      ptx.ld.global.f32(v, ptx.addr(p + ptx.special("tid.x"):mul_wide(4))) -- OOB
    end, { args = { x } })
    assert.truthy(err and err:find(THIS .. ":" .. line_of("-- OOB") .. ": error: out-of-bounds ld.global.f32 by thread (4,0,0) of CTA (0,0,0)", 1, true), err)
    assert.truthy(err:find("is just past the end of buffer 'xs' (16 bytes", 1, true), err)
    err = run_error({ { "x", "f32*" } }, function(ptx, _, xp)
      local p = ptx.global_ptrs(xp)
      local v = ptx.reg.f32()
      ptx.ld.global.f32(v, ptx.addr(p, 2)) -- MISALIGNED
    end, { args = { x } })
    assert.truthy(err and err:find(THIS .. ":" .. line_of("-- MISALIGNED") .. ": error: misaligned ld.global.f32", 1, true), err)
    err = run_error({}, function(ptx)
      local s = ptx.reg.u32(); ptx.mov.u32(s, ptx.shared("sm", "f32", 8))
      ptx.st.shared.f32(ptx.addr(s, 32), ptx.f32(1)) -- SHOOB
    end)
    assert.truthy(err and err:find(THIS .. ":" .. line_of("-- SHOOB") .. ": error: out-of-bounds st.shared.f32", 1, true), err)
    x:free()
  end)

  it("applies atomics and reductions in a deterministic order", function()
    local ptx = H.fresh()
    local k = ptx.kernel { name = "k", params = { { "cnt", "u32*" }, { "out", "u32*" } }, body = function(_, cnt, out)
      local pc, po = ptx.global_ptrs(cnt, out)
      local tid = ptx.special "tid.x"
      local old, inc, cas, mx, ex = ptx.reg.u32(), ptx.reg.u32(), ptx.reg.u32(), ptx.reg.u32(), ptx.reg.u32()
      ptx.atom.global.add.u32(old, ptx.addr(pc), 1)
      ptx.atom.global.inc.u32(inc, ptx.addr(pc, 4), 2)
      ptx.atom.global.cas.b32(cas, ptx.addr(pc, 8), tid, tid + 1)        -- a chain: only tid == value succeeds
      ptx.atom.global.max.u32(mx, ptx.addr(pc, 12), tid)
      ptx.atom.global.exch.b32(ex, ptx.addr(pc, 16), tid)
      ptx.red.global.add.u32(ptx.addr(pc, 20), tid)
      -- shared: a float sum and a counter
      local s = ptx.reg.u32(); ptx.mov.u32(s, ptx.shared("acc", "f32", 2))
      local fo = ptx.reg.f32(); ptx.atom.shared.add.f32(fo, ptx.addr(s), ptx.f32(0.5))
      ptx.bar.sync(0)
      local tot = ptx.reg.f32(); ptx.ld.shared.f32(tot, ptx.addr(s))
      local base = po + tid:mul_wide(24)
      for j, v in ipairs { old, inc, cas, mx, ex, tot:as("u32") } do ptx.st.global.u32(ptx.addr(base, (j - 1) * 4), v) end
    end }
    local cnt = dev:array("u32", 6, 0)
    local out = dev:array("u32", 64 * 6):poison()
    rt.launch(k, { device = dev, args = { cnt, out }, grid = { 1 }, block = { 64 }, checks = { races = true } })
    local o, c = out:read(), cnt:read()
    for t = 0, 63 do
      local r = { unpack(o, 6 * t + 1, 6 * t + 6) }
      assert.are.same({ t, t % 3, t, t == 0 and 0 or t - 1, t == 0 and 0 or t - 1, 0x42000000 }, r, "thread " .. t)
    end
    assert.are.same({ 64, 64 % 3, 64, 63, 63, 2016 }, c)
  end)

  it("copies with cp.async at wait_group, filling the rest of a short copy with zeros", function()
    local r = per_thread("u32", function(ptx, tid)
      local s = ptx.reg.u32(); ptx.mov.u32(s, ptx.shared("buf", "u32", 32 * 4, 16))
      local src = ptx.reg.u64(); ptx.mov.u64(src, ptx.sym "table")
      ptx._current().mod:var("global", "table", "u32", 16, 128, "{" .. table.concat((function()
        local t = {} for i = 1, 128 do t[i] = tostring(i * 3) end return t end)(), ", ") .. "}", "", true)
      local dst = tid:mad(16, s)
      local from = src + tid:mul_wide(16)
      ptx.cp.async.ca.shared.global(ptx.addr(dst), ptx.addr(from), 16, tid:band(1):eq(0):select(ptx.u32(16), ptx.u32(8)))
      ptx.cp.async.commit_group()
      ptx.cp.async.wait_group(0)
      local v = ptx.regs.u32(4)
      ptx.ld.shared.v4.u32(v, ptx.addr(dst))
      return v
    end)
    for t = 0, 31 do
      local full = t % 2 == 0
      assert.are.same({ (4 * t + 1) * 3, (4 * t + 2) * 3, full and (4 * t + 3) * 3 or 0, full and (4 * t + 4) * 3 or 0 }, r[t + 1])
    end
    -- a read before the wait sees memory the copy has not written yet
    local err = run_error({ { "x", "u32*" } }, function(ptx, _, xp)
      local p = ptx.global_ptrs(xp)
      local s = ptx.reg.u32(); ptx.mov.u32(s, ptx.shared("buf", "u32", 4, 16))
      ptx.cp.async.cg.shared.global(ptx.addr(s), ptx.addr(p), 16)
      ptx.cp.async.commit_group()
      local v = ptx.reg.u32()
      ptx.ld.shared.u32(v, ptx.addr(s)) -- EARLY
      ptx.cp.async.wait_all()
    end, { block = { 1 }, args = { dev:array("u32", 4, 7) }, checks = { uninit_shared = true } })
    assert.truthy(err and err:find(THIS .. ":" .. line_of("-- EARLY") .. ": error: ld.shared.u32", 1, true), err)
  end)
end)

-- ------------------------------------------------------------------------------------------------
-- an out-of-range .param access says where the access is and where the
-- parameters are: the kernel's parameter block (its bytes, each parameter's range, a generic
-- address as the program computed it), and a .func's parameter, result or a call's .param
-- variable, each a variable of its own (an access past one reads nothing of its neighbours).

local fmt = string.format
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
