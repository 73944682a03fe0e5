-- hopper_spec.lua -- the Hopper helpers of lua/ptxlua/hopper.lua: the shared-memory plan (offsets
-- at allocation, the block static up to 48 KB and dynamic above, the target's limit at the line),
-- the swizzle's three instructions, wgmma descriptors (host constants, the run-time sequence, the
-- swizzle check), the mbarrier wait loop and warp specialization; each sequence pinned, and a
-- kernel that uses them all (wgmma m64n256k16 with its 128 accumulators) assembled by ptxas.
local H = require "helper"
local core = require "ptxlua.core"

local function lines(fn, params, opts) return H.insns(H.body(fn, params, opts)) end
local function fails(msg, fn, params)
  local ok, err = pcall(H.body, fn, params)
  assert.is_false(ok, "expected an error: " .. msg)
  assert.truthy(tostring(err):find(msg, 1, true), "expected '" .. msg .. "' in: " .. tostring(err))
  assert.truthy(tostring(err):find("hopper_spec.lua:%d+: error:"), "not at the spec's line: " .. tostring(err))
end

describe("ptx.smem_plan", function()
  it("places allocations as they are made: aligned, staged, swizzled tiles on their repeat", function()
    local plan
    local text = H.body(function(ptx)
      plan = ptx.smem_plan()
      local bar = plan:alloc("bar", "b64", 2, { align = 8 })
      local A = plan:alloc("A", "bf16", { 64, 64 }, { stages = 3, swizzle = "128B" })
      local C = plan:alloc("C", "f32", { 10 })
      assert.are.same({ 0, 16, 8 }, { bar.offset, bar.size, bar.align })
      assert.are.same({ 1024, 8192, 24576, 1024, 1008 }, { A.offset, A.stage_bytes, A.size, A.align, A.pad })
      assert.are.same({ 25600, 128, 128 }, { C.offset, C.size, C.align })
      -- bytes: one stage's elements, unpadded (a TMA load's expect_tx); stage_bytes: the stride
      assert.are.same({ 16, 8192, 40, 128 }, { bar.bytes, A.bytes, C.bytes, C.stage_bytes })
      assert.are.same({ 8192, 8192 }, { A:stage(2).bytes, A:stage(2).size })
      assert.are.same({ 256, 256 }, { A:view("half", 256, 256).bytes, A:view("half", 256, 256).size })
      assert.are.equal(9216, A:offset_of(1))
      ptx.op "mbarrier.init.shared::cta.b64" (bar:addr(0), 1)
      ptx.op "mbarrier.init.shared::cta.b64" (A:addr(2, 64), 1)
    end)
    assert.truthy(text:find("\t.shared .align 1024 .b8 smem[25728];", 1, true), text)
    local ins = H.insns(text)
    assert.are.same({ "mbarrier.init.shared::cta.b64 [smem], 1;", "mbarrier.init.shared::cta.b64 [smem+17472], 1;" }, ins)
    local t = plan:format()
    assert.truthy(t:find("A                    1024    24576   1024      3    128B   1008", 1, true), t)
    assert.truthy(t:find("total 25728 bytes (static, align 1024; limit 232448 on sm_90)", 1, true), t)
  end)

  it("above 48 KB the block is one extern dynamic array, and the instructions do not change", function()
    local function trace(n)
      return H.body(function(ptx)
        local plan = ptx.smem_plan()
        local A = plan:alloc("A", "bf16", { 128, 64 }, { stages = n, swizzle = "128B" })
        ptx.op "mbarrier.init.shared::cta.b64" (A:addr(0), 1)
      end)
    end
    local small, big = trace(2), trace(4)
    assert.truthy(small:find("\t.shared .align 1024 .b8 smem[32768];", 1, true))
    assert.truthy(big:find("\n.extern .shared .align 1024 .b8 smem[];", 1, true))
    assert.are.same(H.insns(small), H.insns(big))
    local ok = H.assemble(big, "sm_90a")
    if ok ~= nil then assert.is_true(ok) end
  end)

  it("reports the target's limit, a duplicate and a bad swizzle at the allocation's line", function()
    fails("over the 232448 bytes (227 KB) a block may use on sm_90", function(ptx)
      local plan = ptx.smem_plan()
      plan:alloc("A", "bf16", { 128, 64 }, { stages = 7, swizzle = "128B" })
      plan:alloc("B", "bf16", { 128, 64 }, { stages = 8, swizzle = "128B" })
    end)
    fails("shared allocation 'A' already exists", function(ptx)
      local plan = ptx.smem_plan(); plan:alloc("A", "f32", 4); plan:alloc("A", "f32", 4)
    end)
    fails("swizzle must be", function(ptx) ptx.smem_plan():alloc("A", "f32", 256, { swizzle = "16B" }) end)
    fails("the name is taken by the plan itself (plan.c)", function(ptx) ptx.smem_plan():alloc("c", "f32", 4) end)
    fails("the name is taken by the plan itself (plan.alloc)", function(ptx) ptx.smem_plan():alloc("alloc", "f32", 4) end)
    fails("must be a multiple of 1024 bytes", function(ptx) ptx.smem_plan():alloc("A", "f32", 100, { swizzle = "128B" }) end)
  end)

  it("refuses a second plan over 48 KB in one kernel (both dynamic blocks would start at the same address)", function()
    local line
    local ok, err = pcall(H.body, function(ptx)
      ptx.smem_plan({ name = "pa" }):alloc("a", "f32", { 256, 64 })
      line = debug.getinfo(1, "l").currentline + 1
      ptx.smem_plan({ name = "pb" }):alloc("b", "f32", { 256, 64 })
      ptx.smem_plan({ name = "pc" }):alloc("d", "f32", { 16, 64 })      -- 4 KB: a static array, fine
    end)
    assert.is_false(ok)
    assert.truthy(tostring(err):find("hopper_spec.lua:" .. line .. ": error: shared-memory plans 'pb' (65536 bytes) and 'pa' are both over 48 KB", 1, true), err)
    local text = H.body(function(ptx)                                    -- one dynamic, one static: both kept
      local a = ptx.smem_plan({ name = "pa" }):alloc("a", "f32", { 256, 64 })
      local c = ptx.smem_plan({ name = "pc" }):alloc("d", "f32", { 16, 64 })
      local v = ptx.reg.f32()
      ptx.ld.shared.f32(v, a:addr(0)); ptx.st.shared.f32(c:addr(0), v)
    end)
    assert.truthy(text:find(".extern .shared .align 128 .b8 pa[];", 1, true), text)
    assert.truthy(text:find(".shared .align 128 .b8 pc[4096];", 1, true), text)
  end)
end)

describe("ptx.swizzle", function()
  it("emits exactly and, shr, xor: y = x ^ ((x & mask) >> 3)", function()
    for mode, mask in pairs { ["32B"] = 128, ["64B"] = 384, ["128B"] = 896 } do
      assert.are.same({ "and.b32 %r2, %r1, " .. mask .. ";", "shr.b32 %r2, %r2, 3;", "xor.b32 %r3, %r1, %r2;" }, lines(function(ptx)
        ptx.swizzle(ptx.reg.u32(), mode)
      end))
    end
  end)
  it("agrees with the host function", function()
    local ptx = require "ptxlua"
    assert.are.equal(0x90, ptx.swizzle_offset("128B", 0x80))
    assert.are.equal(0x380, ptx.swizzle_offset("128B", 0x3f0))
    assert.are.equal(0x40, ptx.swizzle_offset("none", 0x40))
    fails("x must be a .u32/.b32/.s32 register", function(ptx) ptx.swizzle(ptx.reg.f32(), "128B") end)
    fails("has nothing to emit", function(ptx) ptx.swizzle(ptx.reg.u32(), "none") end)
  end)
end)

describe("ptx.wgmma_desc", function()
  it("computes the constant on the host and the start address at run time (pinned sequence)", function()
    assert.are.same({
      "mov.u32 %r1, smem;", "add.u32 %r2, %r1, 8192;", "shr.u32 %r3, %r2, 4;", "and.b32 %r3, %r3, 16383;",
      "cvt.u64.u32 %bd1, %r3;", "or.b64 %bd1, %bd1, 0x4000004000010000;",
    }, lines(function(ptx)
      local A = ptx.smem_plan():alloc("A", "bf16", { 64, 64 }, { stages = 2, swizzle = "128B" })
      ptx.wgmma_desc(A, { mn = 64, k = 64, stage = 1 })
    end))
    -- with a base register, at offset 0: four instructions
    assert.are.same({ "shr.u32 %r2, %r1, 4;", "and.b32 %r2, %r2, 16383;", "cvt.u64.u32 %bd1, %r2;",
                      "or.b64 %bd1, %bd1, 0x8000002000010000;" }, lines(function(ptx)
      local A = ptx.smem_plan():alloc("A", "bf16", { 64, 32 }, { swizzle = "64B" })
      ptx.wgmma_desc(A, { mn = 64, k = 32, base = ptx.reg.u32() })
    end))
  end)
  it("gives an immediate when the address is known, with every field of the ISA's layout", function()
    local ptx = require "ptxlua"
    local lo, hi = core.smem_desc_encode(0x400, 16, 1024, 0, "128B")
    assert.are.same({ 0x40 + 0x10000, 64 + 0x40000000 }, { lo, hi })
    local text = H.body(function(p)
      local A = p.smem_plan():alloc("A", "bf16", { 64, 64 }, { swizzle = "128B" })
      local d = p.wgmma_desc(A, { mn = 64, k = 64, address = 0x400 })
      local r = p.reg.b64()
      p.mov.b64(r, d)
    end)
    assert.are.same({ "mov.b64 %bd1, 0x4000004000010040;" }, H.insns(text))
    -- MN-major: LBO = k * 128, SBO = 1024
    local _, _, f = core.smem_desc_tile(0, 2, 64, 16, false, "128B")
    assert.are.same({ 2048, 1024, "128B" }, { f.lbo, f.sbo, f.swizzle })
  end)
  it("refuses a descriptor that declares another swizzle than the tile's", function()
    fails("'A' was written with swizzle 128B but the descriptor asks for 64B", function(ptx)
      local A = ptx.smem_plan():alloc("A", "bf16", { 64, 64 }, { swizzle = "128B" })
      ptx.wgmma_desc(A, { mn = 64, k = 64, swizzle = "64B" })
    end)
    fails("must be a multiple of 128 bytes", function(ptx)
      local A = ptx.smem_plan():alloc("A", "bf16", { 64, 64 }, { swizzle = "128B" })
      ptx.wgmma_desc(A, { mn = 64, k = 24 })
    end)
  end)
end)

describe("ptx.mbarrier_wait and ptx.warp_specialize", function()
  it("the wait loop: label, try_wait.parity, @!p bra", function()
    assert.are.same({ "$L__1:", "mbarrier.try_wait.parity.shared::cta.b64 %p1, [smem+8], %r1;", "@!%p1 bra $L__1;" }, lines(function(ptx)
      local plan = ptx.smem_plan()
      plan:alloc("x", "b64", 1, { align = 8 })
      local bar = plan:alloc("full", "b64", 1, { align = 8 })
      ptx.mbarrier_wait(bar, ptx.reg.u32())
    end))
    fails("ptx.mbarrier_wait records several", function(ptx)
      local bar = ptx.smem_plan():alloc("full", "b64", 1)
      ptx.at(ptx.pred()).mbarrier_wait(bar, 0)
    end)
  end)
  it("the wait loop on a given label, predicate and opcode, with bra.uni", function()
    assert.are.same({ "$wait:", "mbarrier.try_wait.parity.acquire.cta.shared::cta.b64 %ready, [bar], 1;", "@!%ready bra.uni $wait;" },
      lines(function(ptx)
        local q = ptx.pred "ready"
        local l = ptx.label "wait"
        ptx.shared("bar", "b64", 1, 8)
        assert.are.equal(q, ptx.mbarrier_wait(ptx.addr(ptx.sym "bar"), 1,
          { label = l, pred = q, op = "mbarrier.try_wait.parity.acquire.cta.shared::cta.b64", uni = true }))
      end))
    fails("opts.op must be a mbarrier.try_wait opcode", function(ptx) ptx.mbarrier_wait(ptx.addr(ptx.sym "bar"), 0, { op = "bra" }) end)
    fails("opts.pred must be a .pred register", function(ptx) ptx.mbarrier_wait(ptx.addr(ptx.sym "bar"), 0, { pred = ptx.reg.u32() }) end)
    fails("opts.label must be a label", function(ptx) ptx.mbarrier_wait(ptx.addr(ptx.sym "bar"), 0, { label = "wait" }) end)
  end)
  it("splits on the warpgroup index with setmaxnreg in each branch", function()
    assert.are.same({
      "mov.u32 %r1, %tid.x;", "shr.u32 %r2, %r1, 7;", "setp.eq.u32 %p1, %r2, 0;", "@!%p1 bra $L__else1;",
      "setmaxnreg.dec.sync.aligned.u32 24;", "griddepcontrol.launch_dependents;", "bra.uni $L__endif2;", "$L__else1:",
      "setmaxnreg.inc.sync.aligned.u32 240;", "griddepcontrol.wait;", "$L__endif2:",
    }, lines(function(ptx)
      ptx.warp_specialize { regs = { producer = 24, consumers = 240 },
        producer = function() ptx.griddepcontrol.launch_dependents() end,
        consumers = function() ptx.griddepcontrol.wait() end }
    end))
    fails("multiple of 8 in 24..256", function(ptx)
      ptx.warp_specialize { regs = { producer = 20 }, producer = function() end, consumers = function() end }
    end)
    -- regs = false: the same split without setmaxnreg
    assert.are.same({
      "mov.u32 %r1, %tid.x;", "shr.u32 %r2, %r1, 7;", "setp.eq.u32 %p1, %r2, 0;", "@!%p1 bra $L__else1;",
      "griddepcontrol.launch_dependents;", "bra.uni $L__endif2;", "$L__else1:", "griddepcontrol.wait;", "$L__endif2:",
    }, lines(function(ptx)
      ptx.warp_specialize { regs = false,
        producer = function() ptx.griddepcontrol.launch_dependents() end,
        consumers = function() ptx.griddepcontrol.wait() end }
    end))
    fails("regs must be a table", function(ptx)
      ptx.warp_specialize { regs = 232, producer = function() end, consumers = function() end }
    end)
  end)
end)

describe("a Hopper kernel", function()
  it("uses the plan, TMA-free bulk copies, mbarriers, wgmma m64n256k16 and assembles for sm_90a", function()
    local text = H.body(function(ptx, t, src)
      local plan = ptx.smem_plan()
      local A = plan:alloc("A", "bf16", { 64, 64 }, { stages = 2, swizzle = "128B" })
      local B = plan:alloc("B", "bf16", { 256, 64 }, { stages = 2, swizzle = "128B" })
      local full = plan:alloc("full", "b64", 2, { align = 8 })
      local g = ptx.reg.u64()
      ptx.ld.param.u64(g, ptx.addr(src))
      ptx.op "mbarrier.init.shared::cta.b64" (full:addr(0), 1)
      ptx.op "fence.mbarrier_init.release.cluster" ()
      ptx.op "fence.proxy.async.shared::cta" ()
      local st = ptx.reg.b64()
      ptx.op "mbarrier.arrive.expect_tx.shared::cta.b64" (st, full:addr(0), A.stage_bytes)
      ptx.op "cp.async.bulk.shared::cluster.global.mbarrier::complete_tx::bytes" (A:addr(0), ptx.addr(g), A.stage_bytes, full:addr(0))
      ptx.mbarrier_wait(full, 0)
      local acc = ptx.regs.f32(128, "acc", 0.0)
      local da = ptx.wgmma_desc(A, { mn = 64, k = 64 })
      local db = ptx.wgmma_desc(B, { mn = 256, k = 64 })
      local scale = ptx.reg.pred()
      local tid = ptx.reg.u32()
      ptx.mov.u32(tid, ptx.sreg.tid.x)
      ptx.setp.ne.u32(scale, tid, 1000)
      ptx.op "wgmma.fence.sync.aligned" ()
      ptx.op "wgmma.mma_async.sync.aligned.m64n256k16.f32.bf16.bf16" (acc, da, db, scale, 1, 1, 0, 0)
      ptx.op "wgmma.commit_group.sync.aligned" ()
      ptx.op "wgmma.wait_group.sync.aligned" (0)
      local out = ptx.reg.u64()
      ptx.cvta.to.global.u64(out, g)
      for i = 1, 128 do ptx.st.global.f32(ptx.addr(out, 4 * (i - 1)), acc[i]) end
    end, { { "src", "b8*" } })
    local ok, report = H.assemble(text, "sm_90a")
    if ok == nil then return end
    assert.is_true(ok, report .. "\n" .. text)
  end)
end)

describe("TMA", function()
  it("loads a 2D box into shared memory through a tensor map on an mbarrier, for sm_90a", function()
    local text = H.body(function(ptx, _, tmap)
      local plan = ptx.smem_plan()
      local bar = plan:alloc("bar", "b64", 1, { align = 8 })
      local tile = plan:alloc("tile", "bf16", { 64, 64 }, { swizzle = "128B" })
      local desc, x, y = ptx.reg.u64(), ptx.reg.b32(), ptx.reg.b32()
      ptx.op "cvta.param.u64" (desc, tmap)
      ptx.mov.u32(x, ptx.sreg.ctaid.x)
      ptx.mov.u32(y, 0)
      ptx.op "mbarrier.init.shared::cta.b64" (bar:addr(0), 1)
      ptx.op "fence.proxy.async.shared::cta" ()
      local st = ptx.reg.b64()
      ptx.op "mbarrier.arrive.expect_tx.shared::cta.b64" (st, bar:addr(0), tile.size)
      local tma = ptx.op "cp.async.bulk.tensor.2d.shared::cluster.global.tile.mbarrier::complete_tx::bytes"
      tma(tile:addr(0), ptx.taddr(desc, { x, 7 }), bar:addr(0))
      ptx.mbarrier_wait(bar, 0)
    end, { { "tmap", "tensormap" } })
    assert.truthy(text:find(".param .align 64 .b8 tmap[128]", 1, true), text)
    assert.truthy(text:find("[%rd1, {%b1, 7}], [smem];", 1, true), text)
    local ok, report = H.assemble(text, "sm_90a")
    if ok == nil then return end
    assert.is_true(ok, report .. "\n" .. text)
  end)

  it("checks the tensor address: its coordinate count from .Dd, its map a 64-bit register", function()
    fails("expected 2 tensor coordinates, got 3", function(ptx)
      local d, x = ptx.reg.u64(), ptx.reg.b32()
      ptx.op "cp.async.bulk.prefetch.tensor.2d.L2.global" (ptx.taddr(d, { x, x, x }))
    end)
    fails("a tensor map register must be a 64-bit integer", function(ptx)
      local d, x = ptx.reg.u32(), ptx.reg.b32()
      ptx.op "cp.async.bulk.prefetch.tensor.2d.L2.global" (ptx.taddr(d, { x, x }))
    end)
    fails("tensor address: expected a list of 1 to 5 coordinates", function(ptx)
      ptx.taddr(ptx.reg.u64(), {})
    end)
  end)
end)
