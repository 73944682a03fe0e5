-- isa_holes_spec.lua -- PTX the validator used to take though ptxas rejects it (and the reverse):
-- each refused at the user's line with a message that says what to do, and the variant ptxas takes
-- accepted and assembled. ptxas is the oracle: what the validator refuses, ptxas refuses too.
local H = require "helper"
package.path = H.root .. "/tests/isa/?.lua;" .. package.path
local ptx = require "ptxlua"
local THIS = "isa_holes_spec.lua"

-- trace a kernel whose body is f(x, line) on target; returns the PTX, or nil and the error. f calls
-- line() on the line of the instruction under test, which is where the error must point.
local function trace(target, f)
  ptx.reset()
  local at
  -- line(): the caller's current line; line(fn): the line a one-line function fn is written on
  local function line(fn) at = fn and debug.getinfo(fn, "S").linedefined or debug.getinfo(2, "l").currentline end
  local ok, res = pcall(function()
    ptx.kernel { name = "k", target = target, params = { { "x", "f32*" }, { "n", "u32" } },
      body = function(_, x, n) f(x, line, n) end }
    return ptx.ptx {}
  end)
  if ok then return res end
  return nil, tostring(res), at
end

-- the error is at the marked line of this file and holds each string given
local function refused(target, f, ...)
  local text, err, at = trace(target, f)
  assert(text == nil, "accepted:\n" .. tostring(text))
  assert(at, "the body never reached the instruction: " .. err)
  local file, l = err:match("([%w_]+%.lua):(%d+): error: ")
  assert.are.equal(THIS, file, err)
  assert.are.equal(at, tonumber(l), err)
  for _, s in ipairs { ... } do assert(err:find(s, 1, true), ("%q not in: %s"):format(s, err)) end
  return err
end

-- accepted, and ptxas assembles it (pending without ptxas)
local function assembles(target, f)
  local text, err = trace(target, f)
  assert(text, err)
  local ok, report = H.assemble(text, target)
  if ok == nil then return text end
  assert(ok, report .. "\n" .. text)
  return text
end

-- ptxas on a whole module, raw: ok (nil without ptxas)
local function ptxas_takes(target, body)
  local text = (".version 8.7\n.target %s\n.address_size 64\n.global .f32 gv[4];\n"
    .. ".visible .entry k(.param .u64 pp)\n{\n.reg .pred %%p<4>;\n.reg .b16 %%h<4>;\n.reg .u16 %%uh<4>;\n"
    .. ".reg .b32 %%r<8>;\n.reg .u32 %%u<8>;\n.reg .f32 %%f<8>;\n.reg .b64 %%rd<8>;\n.reg .u64 %%ud<8>;\n"
    .. ".reg .f64 %%fd<4>;\n.shared .align 16 .b8 sv[1024];\n%s\nret;\n}\n"):format(target, body)
  local ok = H.assemble(text, target)
  return ok
end

describe("address operands", function()
  -- ptxas fails the module, with no line, on a 32-bit .global or generic address (sm_80: "32-Bit
  -- compilation is no longer supported", sm_90: "32-Bit ABI ... not supported"); .shared, .local,
  -- .param and .const take one
  local NO32 = {
    { "st.global.f32", "st", function(a) ptx.st.global.f32(a, ptx.f32(1)) end, "st.global.f32 [%u1], %f1;" },
    { "ld.f32", "ld", function(a) ptx.ld.f32(ptx.reg.f32(), a) end, "ld.f32 %f1, [%u1];" },
    { "ld.global.nc.f32", "ld", function(a) ptx.op "ld.global.nc.f32" (ptx.reg.f32(), a) end, "ld.global.nc.f32 %f1, [%u1];" },
    { "atom.global.add.u32", "atom", function(a) ptx.op "atom.global.add.u32" (ptx.reg.u32(), a, 1) end, "atom.global.add.u32 %u2, [%u1], 1;" },
    { "red.add.u32", "red", function(a) ptx.op "red.add.u32" (a, 1) end, "red.add.u32 [%u1], 1;" },
    { "prefetch.global.L2", "prefetch", function(a) ptx.op "prefetch.global.L2" (a) end, "prefetch.global.L2 [%u1];" },
    { "mbarrier.init.b64", "mbarrier", function(a) ptx.op "mbarrier.init.b64" (a, 1) end, "mbarrier.init.b64 [%u1], 1;" },
  }
  for _, target in ipairs { "sm_90a", "sm_80" } do
    for _, c in ipairs(NO32) do
      it(("refuses a 32-bit %s address on %s, as ptxas does"):format(c[1], target), function()
        refused(target, function(_, line) local a = ptx.reg.u32(); ptx.mov.u32(a, 0); line(c[3]); c[3](ptx.addr(a)) end,
                "operand", "must be a 64-bit register", "%r", ".u32")
        local ok = ptxas_takes(target, c[4])
        if ok ~= nil then assert.is_false(ok, "ptxas takes " .. c[4]) end
        -- the same through a 64-bit register: accepted and assembled
        assembles(target, function(x) local a = ptx.reg.u64(); ptx.cvta.to.global.u64(a, ptx.reg.u64()); c[3](ptx.addr(a)) end)
      end)
    end
  end

  it("takes a 32-bit address into .shared, .local and .param, and ptxas assembles it", function()
    for _, target in ipairs { "sm_90a", "sm_80" } do
      local text = assembles(target, function(x)
        local s = ptx.shared("tile", "f32", 32)
        local a = ptx.reg.u32()
        ptx.mov.u32(a, s)
        ptx.st.shared.f32(ptx.addr(a), ptx.f32(1))
        ptx.op "atom.shared.add.u32" (ptx.reg.u32(), ptx.addr(a), 1)
        ptx.ld.local_.f32(ptx.reg.f32(), ptx.addr(a))
        ptx.ld.param.u32(ptx.reg.u32(), ptx.addr(a))
      end)
      assert.truthy(text:find("st.shared.f32", 1, true))
    end
  end)

  it("refuses a kernel parameter as the address of a .global or generic access (state space mismatch)", function()
    refused("sm_90a", function(x, line) line(); ptx.ld.global.f32(ptx.reg.f32(), ptx.addr(x)) end,
            "'x' is a .param variable", ".global access", "ld.param")
    refused("sm_90a", function(x, line) line(); ptx.ld.f32(ptx.reg.f32(), ptx.addr(x)) end, "generic access")
    refused("sm_90a", function(x, line) line(); ptx.st.global.f32(ptx.addr(x), ptx.f32(0)) end, "'x' is a .param variable")
    if ptxas_takes("sm_90a", "ld.global.f32 %f1, [pp];") ~= nil then
      assert.is_false(ptxas_takes("sm_90a", "ld.global.f32 %f1, [pp];"))
      assert.is_false(ptxas_takes("sm_90a", "ld.f32 %f1, [pp];"))
    end
    -- what ptxas takes: the parameter read with ld.param, then the pointer it holds
    assembles("sm_90a", function(x)
      local p = ptx.reg.u64()
      ptx.ld.param.u64(p, ptx.addr(x))
      local g = ptx.reg.u64()
      ptx.cvta.to.global.u64(g, p)
      ptx.ld.global.f32(ptx.reg.f32(), ptx.addr(g))
    end)
  end)

  it("refuses a .shared variable in a .global access, takes it in a generic one", function()
    refused("sm_90a", function(_, line)
      local s = ptx.shared("buf", "f32", 8)
      line(); ptx.ld.global.f32(ptx.reg.f32(), ptx.addr(s))
    end, "'buf' is a .shared variable", "ld/st.shared")
    assembles("sm_90a", function()
      local s = ptx.shared("buf", "f32", 8)
      ptx.ld.f32(ptx.reg.f32(), ptx.addr(s))
      ptx.ld.shared.f32(ptx.reg.f32(), ptx.addr(s, 4))
    end)
  end)
end)

describe("register classes of .bN operands", function()
  it("refuses .u32/.s32/.f32 mma fragments (ptxas: Arguments mismatch), takes .b32 and .f16x2", function()
    for _, rt in ipairs { "u32", "s32", "f32" } do
      local err = refused("sm_80", function(_, line)
        local acc = ptx.regs.f32(4, "acc", 0)
        local a, b = ptx.regs[rt](4, "fa", 0), ptx.regs[rt](2, "fb", 0)
        line(); ptx.op "mma.sync.aligned.m16n8k16.row.col.f32.f16.f16.f32" (acc, a, b, acc)
      end, "operand 2", "ptxas takes only .b32 or .f16x2 registers here", "(." .. rt .. ")", "ptx.reg.b32")
      assert.falsy(err:find("other forms", 1, true))
    end
    for _, rt in ipairs { "b32", "f16x2" } do
      assembles("sm_80", function()
        local acc = ptx.regs.f32(4, "acc", 0)
        local a, b = ptx.regs[rt](4, "fa", 0), ptx.regs[rt](2, "fb", 0)
        ptx.op "mma.sync.aligned.m16n8k16.row.col.f32.f16.f16.f32" (acc, a, b, acc)
      end)
    end
    -- bf16 fragments: .b32 only (not even .f16x2)
    refused("sm_80", function(_, line)
      local acc = ptx.regs.f32(4, "acc", 0)
      local a, b = ptx.regs.f16x2(4, "fa", 0), ptx.regs.f16x2(2, "fb", 0)
      line(); ptx.op "mma.sync.aligned.m16n8k16.row.col.f32.bf16.bf16.f32" (acc, a, b, acc)
    end, "ptxas takes only .b32 registers here")
  end)

  it("refuses .u32 wgmma A registers and an .f64 descriptor, takes .b32 and .u64", function()
    refused("sm_90a", function(_, line)
      local d = ptx.regs.f32(32, "d", 0)
      local a = ptx.regs.u32(4, "fa", 0)
      local bdesc = ptx.reg.b64()
      ptx.mov.b64(bdesc, 0)
      line(); ptx.op "wgmma.mma_async.sync.aligned.m64n64k16.f32.bf16.bf16" (d, a, bdesc, ptx.special("tid.x"):ge(0), 1, 1, 0)
    end, "operand 2", ".b32 or .f16x2")
    assembles("sm_90a", function()
      local d = ptx.regs.f32(32, "d", 0)
      local a = ptx.regs.b32(4, "fa", 0)
      local bdesc = ptx.reg.u64()
      ptx.mov.u64(bdesc, 0)
      ptx.wgmma.fence.sync.aligned()
      ptx.op "wgmma.mma_async.sync.aligned.m64n64k16.f32.bf16.bf16" (d, a, bdesc, ptx.special("tid.x"):ge(0), 1, 1, 0)
    end)
  end)

  -- the sweep behind the table's classes (tests/isa/regtypes.lua): every register operand of a
  -- sized type of every form, given each register type of its width; the validator must never take
  -- what ptxas rejects
  it("takes no register type ptxas rejects, for any operand of any form", function()
    local ptxas = H.ptxas_path()
    if not ptxas then if H.ci then error("ptxas not found") end; return H.pending("ptxas not found") end
    local G = require("isagen").init(H.root)
    local tmp = H.tmpfile(".ptx")
    local res = G.regtype_sweep(ptx, function(text, target)
      local ok, errs = G.ptxas(H.shq(ptxas), text, target, tmp)
      return ok, errs
    end)
    assert.is_true(res.count > 3000)
    assert(#res.looser == 0, #res.looser .. " operands take registers ptxas rejects:\n  " .. table.concat(res.looser, "\n  "))
  end)
end)

describe("immediate values", function()
  it("refuses a cp.async.cg size other than 16 and a src-size above the copy size", function()
    local function cp(size, src)
      return function(_, line)
        local s = ptx.shared("buf", "b8", 64, 16)
        local g = ptx.reg.u64()
        ptx.mov.u64(g, 0)
        if src then line(); ptx.cp.async.ca.shared.global(ptx.addr(s), ptx.addr(g), size, src)
        else line(); ptx.cp.async.cg.shared.global(ptx.addr(s), ptx.addr(g), size) end
      end
    end
    refused("sm_80", cp(4), "operand 3", "4 is not 16")
    refused("sm_80", cp(8), "8 is not 16")
    refused("sm_80", cp(4, 8), "operand 4", "8 is out of range (0 to operand 3, 4)")
    assert.is_false(ptxas_takes("sm_80", "cp.async.cg.shared.global [%u1], [%ud2], 4;") ~= false)
    assembles("sm_80", cp(16))
    assembles("sm_80", cp(8, 8))
    -- .ca takes 4, 8 and 16, not 2
    refused("sm_80", function(_, line)
      local s = ptx.shared("buf", "b8", 64, 16)
      line(); ptx.cp.async.ca.shared.global(ptx.addr(s), ptx.addr(ptx.reg.u64()), 2)
    end, "2 is not one of 4, 8, 16")
  end)

  it("refuses a barrier thread count that is not whole warps, and a barrier number above 15", function()
    local CASES = {
      function() ptx.bar.sync(0, 33) end,
      function() ptx.bar.arrive(1, 48) end,
      function() ptx.op "barrier.sync" (0, 40) end,
      function() ptx.op "barrier.sync.aligned" (2, 31) end,
      function() ptx.op "bar.red.popc.u32" (ptx.reg.u32(), 0, 33, ptx.reg.pred()) end,
    }
    for _, f in ipairs(CASES) do
      refused("sm_90a", function(_, line) line(f); f() end, "is not a multiple of 32", "whole number of warps")
    end
    refused("sm_90a", function(_, line) line(); ptx.bar.sync(16) end, "operand 1", "16 is out of range (0 to 15)")
    local ok = ptxas_takes("sm_90a", "bar.sync 0, 33;")
    if ok ~= nil then
      assert.is_false(ok)
      assert.is_false(ptxas_takes("sm_90a", "bar.sync 16;"))
    end
    assembles("sm_90a", function(_, _, n)
      ptx.bar.sync(15, 64)
      ptx.bar.arrive(1, 1024)
      ptx.bar.sync(0, n:load())                      -- a register count: ptxas checks it at run time
    end)
  end)

  it("takes an N-bit immediate as signed or unsigned whatever the type, as ptxas does", function()
    local text = assembles("sm_90a", function(_, _, n)
      local r = n:load()
      local m = r + (-1)                             -- add.u32 %r, %r, -1: ptxas takes it
      local a = r:band(-16)
      local h = ptx.reg.u16()
      ptx.mov.u16(h, -1)
      local s = ptx.reg.s16()
      ptx.mov.s16(s, 65535)
      ptx.op "shfl.sync.idx.b32" (ptx.reg.b32(), ptx.reg.b32(), 0, 31, -1)  -- the full member mask
      ptx.op "vote.sync.ballot.b32" (ptx.reg.b32(), ptx.reg.pred(), -1)
    end)
    assert.truthy(text:find("add.u32[^\n]*, %-1;"), text)   -- printed as written; ptxas reads 0xFFFFFFFF
    -- values wider than the type are refused (ptxas would cut them silently)
    refused("sm_90a", function(_, line, n) local r = n:load(); line(); local m = r + 4294967296 end,
            "immediate 4294967296 does not fit .u32", "32 bits")
    refused("sm_90a", function(_, line) local h = ptx.reg.u16(); line(); ptx.mov.u16(h, 65536) end, "does not fit .u16")
    refused("sm_90a", function(_, line) local h = ptx.reg.s16(); line(); ptx.mov.s16(h, -32769) end, "does not fit .s16")
  end)

  it("computes with a negative immediate on an unsigned register as ptxas does (the emulator)", function()
    local rt = require "ptxlua.emu"
    ptx.reset()
    local k = ptx.kernel { name = "negimm", grid = { 1 }, block = { 32 }, params = { { "out", "u32*" }, { "n", "u32" } },
      body = function(_, out, n)
        local r = n:load()
        local i = ptx.reg.u32()
        ptx.mov.u32(i, ptx.sreg.tid.x)
        local v = ptx.reg.u32()
        ptx.mov.u32(v, r + (-1))                     -- n - 1
        local lt = ptx.reg.pred()
        ptx.op "setp.lt.u32" (lt, i, -1)             -- every lane: tid < 0xffffffff
        local w = ptx.reg.u32()
        ptx.selp.u32(w, v, 0, lt)
        local p = ptx.reg.u64()
        ptx.op "mad.wide.u32" (p, i, 4, ptx.global_ptrs(out))
        ptx.st.global.u32(ptx.addr(p), w)
      end }
    local dev = rt.device("emu")
    for _, n in ipairs { 5, 0, 1000 } do
      local out = dev:array("u32", 32, 7, "out")
      local err = H.emu_launch(dev, k, { args = { out, n } })
      assert(err == nil, err)
      local want = (n - 1) % 4294967296
      for j = 1, 32 do assert.are.equal(want, out:get(j)) end
    end
  end)
end)

describe("an unknown modifier", function()
  it("suggests the closest one, in a short message", function()
    local err = refused("sm_90a", function(_, line)
      line(); ptx.ld.shard.f32(ptx.reg.f32(), ptx.addr(ptx.reg.u64()))
    end, "unknown modifier '.shard'", "did you mean '.shared'?")
    assert(#err < 700, #err .. " characters: " .. err)
    refused("sm_90a", function(_, line) line(); ptx.op "st.globl.f32" (ptx.addr(ptx.reg.u64()), ptx.reg.f32()) end,
            "did you mean '.global'?")
    local far = refused("sm_90a", function(_, line) line(); ptx.op "ld.zzzzzzzz.f32" (ptx.reg.f32(), ptx.addr(ptx.reg.u64())) end,
                        "unknown modifier '.zzzzzzzz'")
    assert.falsy(far:find("did you mean", 1, true))
  end)
end)
