-- emu_mbarrier_spec.lua -- mbarriers in the emulator: a wait that never completes, phases and
-- parity waits, over-arrival, a use before a barrier made the init visible (a peer's too); then
-- transaction counts (negative meanwhile, a surplus, out of range).

local H = require "helper"
local rt = require "ptxlua.emu"

local fmt = string.format

describe("emulated mbarrier", function()
  it("reports a wait that can never complete as a deadlock at its line", function()
    local ptx = H.fresh()
    local line
    local k = ptx.kernel { name = "stuck", target = "sm_90a", grid = { 1 }, block = { 64 }, body = function()
      local plan = ptx.smem_plan()
      local bar = plan:alloc("bar", "b64", 1, { align = 8 })
      ptx.if_(ptx.special("tid.x"):eq(0), function() ptx.op "mbarrier.init.shared::cta.b64" (bar:addr(0), 65) end)
      ptx.bar.sync(0)
      ptx.op "mbarrier.arrive.shared::cta.b64" (ptx._, bar:addr(0))
      line = debug.getinfo(1, "l").currentline + 1
      ptx.mbarrier_wait(bar, 0)
    end }
    local ok, err = pcall(rt.launch, k, { device = rt.device("emu") })
    assert.is_false(ok)
    assert.matches(fmt(":%d: error: deadlock in CTA (0,0,0): mbarrier.try_wait.parity", line), err, 1, true)
    assert.matches("still misses 1 of 65 arrivals", err, 1, true)
  end)

  it("completes phases: parity waits see each phase, an over-arrival is an error at its line", function()
    local ptx = H.fresh()
    local line
    local function kern(extra)
      return ptx.kernel { name = "phases" .. (extra and "x" or ""), target = "sm_90a", grid = { 1 }, block = { 64 },
        params = { { "out", "u32*" } }, body = function(_, out)
        local plan = ptx.smem_plan()
        local bar = plan:alloc("bar", "b64", 1, { align = 8 })
        local tid = ptx.special "tid.x"
        ptx.if_(tid:eq(0), function() ptx.op "mbarrier.init.shared::cta.b64" (bar:addr(0), 64) end)
        ptx.bar.sync(0)
        local po = ptx.global_ptrs(out)
        for ph = 0, 2 do
          ptx.op "mbarrier.arrive.shared::cta.b64" (ptx._, bar:addr(0))
          ptx.mbarrier_wait(bar, ph % 2)
        end
        if extra then
          ptx.bar.sync(0)
          ptx.if_(tid:eq(0), function()
            line = debug.getinfo(1, "l").currentline + 1
            ptx.op "mbarrier.arrive.shared::cta.b64" (ptx._, bar:addr(0), 65)
          end)
        end
        ptx.st.global.u32(ptx.addr(po + tid:mul_wide(4)), tid)
      end }
    end
    local dev = rt.device("emu")
    local out = dev:array("u32", 64, 0)
    rt.launch(kern(false), { device = dev, args = { out } })
    assert.are.equal(63, out:get(64))
    local ok, err = pcall(rt.launch, kern(true), { device = dev, args = { out } })
    assert.is_false(ok)
    assert.matches(fmt(":%d: error: mbarrier.arrive.shared::cta.b64: 65 arrivals at the mbarrier", line), err, 1, true)
    assert.matches("only 64 are pending in phase 3", err, 1, true)
  end)

  -- thread 0 initializes the mbarrier; every thread arrives once and waits, after a bar.sync (or not)
  it("reports another warp's use of an mbarrier before a barrier made its init visible, at the use", function()
    local function kern(ptx, sync, lines)
      return ptx.kernel { name = sync and "init_sync" or "init_nosync", target = "sm_90a", grid = { 1 }, block = { 64 }, body = function()
        local plan = ptx.smem_plan()
        local bar = plan:alloc("bar", "b64", 1, { align = 8 })
        lines.init = debug.getinfo(1, "l").currentline + 1
        ptx.if_(ptx.special("tid.x"):eq(0), function() ptx.op "mbarrier.init.shared::cta.b64" (bar:addr(0), 64) end)
        if sync then ptx.bar.sync(0) end
        lines.arrive = debug.getinfo(1, "l").currentline + 1
        ptx.op "mbarrier.arrive.shared::cta.b64" (ptx._, bar:addr(0))
        ptx.mbarrier_wait(bar, 0)
      end }
    end
    local dev = rt.device("emu")
    local ptx = H.fresh()
    local k = kern(ptx, true, {})
    H.assembles(ptx)
    rt.launch(k, { device = dev })
    local lines = {}
    ptx = H.fresh()
    k = kern(ptx, false, lines)
    H.assembles(ptx)
    local ok, err = pcall(rt.launch, k, { device = dev })
    assert.is_false(ok)
    assert.matches(fmt(":%d: error: mbarrier.arrive.shared::cta.b64: uses the mbarrier at shared 0x0, which thread (0,0,0) initialized at line %d, "
                       .. "before any barrier of the CTA completed since: it may still look uninitialized here (a bar.sync after the init) (thread (32,0,0) of CTA (0,0,0))",
                       lines.arrive, lines.init), err, 1, true)
    -- published through another mbarrier's phase instead: thread 0 inits B, then arrives on A (set
    -- up before, behind a bar.sync); every thread waits on A before using B -- clean
    ptx = H.fresh()
    k = ptx.kernel { name = "init_chain", target = "sm_90a", grid = { 1 }, block = { 64 }, body = function()
      local plan = ptx.smem_plan()
      local a = plan:alloc("a", "b64", 1, { align = 8 })
      local b = plan:alloc("b", "b64", 1, { align = 8 })
      local first = ptx.special("tid.x"):eq(0)
      ptx.if_(first, function() ptx.op "mbarrier.init.shared::cta.b64" (a:addr(0), 1) end)
      ptx.bar.sync(0)
      ptx.if_(first, function()
        ptx.op "mbarrier.init.shared::cta.b64" (b:addr(0), 64)
        ptx.op "mbarrier.arrive.shared::cta.b64" (ptx._, a:addr(0))
      end)
      ptx.mbarrier_wait(a, 0)
      ptx.op "mbarrier.arrive.shared::cta.b64" (ptx._, b:addr(0))
      ptx.mbarrier_wait(b, 0)
    end }
    H.assembles(ptx)
    rt.launch(k, { device = dev })
  end)

  -- in a cluster of 2, thread 0 of each CTA initializes its mbarrier and, at once, multicasts a tile
  -- to both CTAs completing on each one's mbarrier: the peer's init is not ordered before the copy
  it("reports a multicast copy completing on a peer's mbarrier that no barrier.cluster orders after its init", function()
    local ptx = H.fresh()
    local line
    local k = ptx.kernel { name = "mc_early", target = "sm_90a", grid = { 2 }, block = { 32 }, cluster = { 2 },
      params = { { "src", "u32*" } }, body = function(_, src)
        local plan = ptx.smem_plan()
        local bar = plan:alloc("bar", "b64", 1, { align = 8 })
        local tile = plan:alloc("tile", "u32", 64, { align = 128 })
        local ps = ptx.global_ptrs(src)
        ptx.if_(ptx.special("tid.x"):eq(0), function()
          ptx.op "mbarrier.init.shared::cta.b64" (bar:addr(0), 1)
          ptx.op "mbarrier.arrive.expect_tx.shared::cta.b64" (ptx._, bar:addr(0), 256)
          ptx.if_(ptx.special("cluster_ctarank"):eq(0), function()
            line = debug.getinfo(1, "l").currentline + 1
            ptx.op "cp.async.bulk.shared::cluster.global.mbarrier::complete_tx::bytes.multicast::cluster" (tile:addr(0), ptx.addr(ps), 256, bar:addr(0), 3)
          end)
        end)
      end }
    H.assembles(ptx)
    local dev = rt.device("emu")
    local src = dev:array("u32", 64, 1)
    local ok, err = pcall(rt.launch, k, { device = dev, args = { src } })
    assert.is_false(ok)
    assert.matches(fmt(":%d: error: cp.async.bulk.shared::cluster.global.mbarrier::complete_tx::bytes.multicast::cluster: completes on the mbarrier at shared 0x0 of CTA (1,0,0), "
                       .. "which that CTA has not initialized (yet): order the copy after its mbarrier.init", line), err, 1, true)
    src:free()
  end)
end)

local assembles = H.assembles               -- the kernel's PTX must be what ptxas takes for sm_90a

local function here() return debug.getinfo(2, "l").currentline end

-- deterministic inputs (Park-Miller), never all zeros
local function lcg(seed)
  local r = seed
  return function() r = r * 16807 % 2147483647; return r end
end

describe("emulated mbarrier transaction counts", function()
  -- thread 0 issues a bulk copy of N bytes completing on `data` BEFORE anyone announces them, and a
  -- 16-byte copy completing on `gate` (announced); it waits on gate, so every warp waits and both
  -- copies land: data's count goes to -N. Then it announces `expect` bytes on data; everyone waits on
  -- data and copies the tile out.
  local N = 4096
  local function kern(ptx, name, expect, lines)
    return ptx.kernel { name = name, target = "sm_90a", grid = { 1 }, block = { 128 },
      params = { { "src", "u32*" }, { "small", "u32*" }, { "out", "u32*" } },
      body = function(_, src, small, out)
        local plan = ptx.smem_plan()
        local data = plan:alloc("data", "b64", 1, { align = 8 })
        local gate = plan:alloc("gate", "b64", 1, { align = 8 })
        local tile = plan:alloc("tile", "u32", N / 4, { align = 128 })
        local side = plan:alloc("side", "u32", 4, { align = 16 })
        local ps, pm, po = ptx.global_ptrs(src, small, out)
        local tid = ptx.special "tid.x"
        ptx.if_(tid:eq(0), function()
          lines.init = here() + 1
          ptx.op "mbarrier.init.shared::cta.b64" (data:addr(0), 1)
          ptx.op "mbarrier.init.shared::cta.b64" (gate:addr(0), 1)
          ptx.op "fence.mbarrier_init.release.cluster" ()
        end)
        ptx.bar.sync(0)
        ptx.if_(tid:eq(0), function()
          ptx.op "mbarrier.arrive.expect_tx.shared::cta.b64" (ptx._, gate:addr(0), 16)
          lines.copy = here() + 1
          ptx.op "cp.async.bulk.shared::cluster.global.mbarrier::complete_tx::bytes" (tile:addr(0), ptx.addr(ps), N, data:addr(0))
          ptx.op "cp.async.bulk.shared::cluster.global.mbarrier::complete_tx::bytes" (side:addr(0), ptx.addr(pm), 16, gate:addr(0))
          ptx.mbarrier_wait(gate, 0)
          lines.expect = here() + 1
          ptx.op "mbarrier.arrive.expect_tx.shared::cta.b64" (ptx._, data:addr(0), expect)
        end)
        lines.wait = here() + 1
        ptx.mbarrier_wait(data, 0)
        local sa = ptx.reg.u32()
        ptx.mov.u32(sa, ptx.sym "smem")
        for i = 0, N / 4 / 128 - 1 do
          local idx = tid + i * 128
          local v = ptx.reg.u32()
          ptx.ld.shared.u32(v, ptx.addr(sa + tile.offset + idx:shl(2)))
          ptx.st.global.u32(ptx.addr(po + idx:mul_wide(4)), v)
        end
      end }
  end

  local function inputs(dev)
    local r = lcg(11)
    local S = {}
    for i = 1, N / 4 do S[i] = r() end
    return S, dev:array("u32", N / 4, S), dev:array("u32", 4, function(i) return i end)
  end

  it("completes a phase whose bytes landed before its expect_tx (the count was negative meanwhile)", function()
    local ptx = H.fresh()
    local lines = {}
    local k = kern(ptx, "early_bytes", N, lines)
    assembles(ptx)
    local dev = rt.device("emu")
    local S, src, small = inputs(dev)
    local out = dev:array("u32", N / 4, 0xA5A5A5A5)
    rt.launch(k, { device = dev, args = { src, small, out }, checks = { uninit_shared = true, races = true } })
    local got, bad = out:read(), 0
    for i = 1, N / 4 do if got[i] ~= S[i] then bad = bad + 1 end end
    assert.are.equal(0, bad)
  end)

  it("leaves a phase with more bytes than its expect_tx pending: at the copy, naming the expect_tx, the surplus and the wait", function()
    local ptx = H.fresh()
    local lines = {}
    local k = kern(ptx, "surplus", N - 48, lines)
    assembles(ptx)
    local dev = rt.device("emu")
    local _, src, small = inputs(dev)
    local ok, err = pcall(rt.launch, k, { device = dev, args = { src, small, dev:array("u32", N / 4) } })
    assert.is_false(ok)
    assert.matches(fmt(":%d: error: cp.async.bulk.shared::cluster.global.mbarrier::complete_tx::bytes: phase 0 of the mbarrier at "
                       .. "shared 0x0 of CTA (0,0,0) (initialized at line %d) can never complete: all its 1 arrivals are in, but its "
                       .. "copies brought 4096 transaction bytes (the last at line %d) where its expect_tx announced 4048 (line %d): "
                       .. "48 bytes too many (its transaction count is -48); a deadlock: mbarrier.try_wait.parity.shared::cta.b64 at line %d waits on it",
                       lines.copy, lines.init, lines.copy, lines.expect, lines.wait), err, 1, true)
  end)

  it("reports a transaction count outside -(2^20-1)..2^20-1 at the instruction that moves it there", function()
    for _, op in ipairs { "expect_tx", "complete_tx" } do
      local ptx = H.fresh()
      local line
      local k = ptx.kernel { name = "range_" .. op, target = "sm_90a", grid = { 1 }, block = { 32 }, body = function()
        local plan = ptx.smem_plan()
        local bar = plan:alloc("bar", "b64", 1, { align = 8 })
        ptx.if_(ptx.special("tid.x"):eq(0), function()
          ptx.op "mbarrier.init.shared::cta.b64" (bar:addr(0), 1)
          ptx.op("mbarrier." .. op .. ".shared::cta.b64") (bar:addr(0), 0xfff00)
          line = here() + 1
          ptx.op("mbarrier." .. op .. ".shared::cta.b64") (bar:addr(0), 0x200)
        end)
      end }
      assembles(ptx)
      local ok, err = pcall(rt.launch, k, { device = rt.device("emu") })
      assert.is_false(ok)
      local sign = op == "expect_tx" and "" or "-"
      assert.matches(fmt(":%d: error: mbarrier.%s.shared::cta.b64 %s 512 bytes on the mbarrier at shared 0x0 of CTA (0,0,0), whose transaction count in phase 0 is %s1048320: %s1048832 is outside the range -(2^20-1)..2^20-1",
                         line, op, op == "expect_tx" and "expects" or "completes", sign, sign), err, 1, true)
    end
  end)
end)
