-- emu_hopper_spec.lua -- the emulator's Hopper families on small hand-written kernels, each result
-- compared with a reference computed here in Lua: a TMA 2D box load with the 128B swizzle (every
-- byte's position, out-of-bounds elements zero), a TMA store that skips the out-of-bounds part, one
-- wgmma m64n64k16 bf16 from TMA-loaded swizzled tiles against a double reference, mbarrier
-- deadlocks and over-arrivals at their lines, a 2-CTA cluster exchanging data through mapa (and the
-- races check on another CTA's shared memory: accesses no barrier.cluster orders), the
-- accumulator and proxy checks, writes (st.shared, a TMA load) into a wgmma's operands before its
-- wait_group or after a release (mbarrier arrive) that precedes it, elect.sync, and the tensor map's validation.
local H = require "helper"
local rt = require "ptxlua.emu"
local bit = require "bit"

local fmt = string.format

local K = require "kcheck"
local bf16_bits, bf16_val = K.bf16_bits, K.bf16_val   -- bf16 bits of a float (nearest even), and back
local function swz128(off) return bit.bxor(off, bit.rshift(bit.band(off, 0x380), 3)) end

-- a kernel that TMA-loads box (64 x ROWS bf16, 128B swizzle) at (x0, y0), then copies the tile's raw
-- bytes to out (u16 per element slot) with plain ld.shared
local function tma_kernel(ptx, rows)
  return ptx.kernel { name = "tma_box", target = "sm_90a",
    params = { { "tmap", "tensormap" }, { "out", "u16*" }, { "x0", "u32" }, { "y0", "u32" } },
    grid = { 1 }, block = { 128 },
    body = function(_, tmap, out, x0, y0)
      local plan = ptx.smem_plan()
      local bar = plan:alloc("bar", "b64", 1, { align = 8 })
      local tile = plan:alloc("tile", "bf16", { rows, 64 }, { swizzle = "128B" })
      local desc = ptx.reg.u64()
      ptx.op "cvta.param.u64" (desc, tmap)
      local tid = ptx.special "tid.x"
      ptx.if_(tid:eq(0), function()
        ptx.op "mbarrier.init.shared::cta.b64" (bar:addr(0), 1)
        ptx.op "mbarrier.arrive.expect_tx.shared::cta.b64" (ptx._, bar:addr(0), rows * 128)
        local x, y = ptx.reg.b32(), ptx.reg.b32()
        ptx.mov.b32(x, x0:load())
        ptx.mov.b32(y, y0:load())
        local ld = ptx.op "cp.async.bulk.tensor.2d.shared::cluster.global.tile.mbarrier::complete_tx::bytes"
        ld(tile:addr(0), ptx.taddr(desc, { x, y }), bar:addr(0))
      end)
      ptx.bar.sync(0)
      ptx.mbarrier_wait(bar, 0)
      local po = ptx.global_ptrs(out)
      for i = 0, rows * 64 / 128 - 1 do
        local idx = tid + i * 128
        local v = ptx.reg.u16()
        local sa = ptx.reg.u32()
        ptx.mov.u32(sa, ptx.sym "smem")
        ptx.ld.shared.u16(v, ptx.addr(sa + tile.offset + idx:shl(1)))
        ptx.st.global.u16(ptx.addr(po + idx:mul_wide(2)), v)
      end
    end }
end

describe("emulated TMA", function()
  it("loads a 2D box into 128B-swizzled shared memory, zeros outside the tensor", function()
    local ptx = H.fresh()
    local k = tma_kernel(ptx, 16)
    local dev = rt.device("emu")
    local W, Ht = 100, 40                           -- a tensor of 40 rows x 100 bf16 (row pitch 208 bytes: padded)
    local pitch = 104
    local src = dev:array("u16", pitch * Ht, function(i) return (i * 37) % 65536 end)
    local tm = dev:tensormap(src, { dims = { W, Ht }, strides = { pitch * 2 }, box = { 64, 16 }, swizzle = "128B", dtype = "bf16" })
    for _, c in ipairs { { 0, 0 }, { 64, 30 }, { 40, 0 } } do
      local out = dev:array("u16", 16 * 64, 0xA5A5)
      rt.launch(k, { device = dev, args = { tm, out, c[1], c[2] } })
      local got = out:read()
      local bad = 0
      for r = 0, 15 do
        for col = 0, 63 do
          local gx, gy = c[1] + col, c[2] + r
          local want = (gx < W and gy < Ht) and ((gy * pitch + gx + 1) * 37) % 65536 or 0
          local slot = swz128(r * 128 + col * 2) / 2
          if got[slot + 1] ~= want then bad = bad + 1 end
        end
      end
      assert.are.equal(0, bad, fmt("box at (%d, %d): %d elements misplaced", c[1], c[2], bad))
    end
  end)

  it("validates the tensor map like cuTensorMapEncodeTiled", function()
    local dev = rt.device("emu")
    local a = dev:array("bf16", 4096)
    local function bad(spec, msg)
      local ok, err = pcall(dev.tensormap, dev, a, spec)
      assert.is_false(ok)
      assert.matches(msg, err, 1, true)
    end
    bad({ dims = { 64, 64 }, box = { 64, 300 } }, "box[2] = 300 outside 1..256")
    bad({ dims = { 64, 64 }, box = { 64, 8 }, swizzle = "64B" }, "exceeds the 64-byte span of swizzle 64B")
    bad({ dims = { 60, 64 }, strides = { 120 }, box = { 8, 8 } }, "must be a multiple of 16")
    bad({ dims = { 64, 65 }, box = { 64, 8 } }, "runs past the end of buffer")
    bad({ dims = { 64, 64 }, box = { 4, 8 } }, "must be a multiple of 16 bytes")
    local ok = pcall(dev.tensormap, dev, a, { dims = { 64, 64 }, box = { 64, 8 }, swizzle = "128B" })
    assert.is_true(ok)
  end)

  it("refuses 128 bytes that are not one of its tensor maps", function()
    local ptx = H.fresh()
    local k = tma_kernel(ptx, 16)
    local dev = rt.device("emu")
    local out = dev:array("u16", 1024)
    local ok, err = pcall(rt.launch, k, { device = dev, args = { string.rep("\0", 128), out, 0, 0 } })
    assert.is_false(ok)
    assert.matches("not a tensor map of this emulator", err, 1, true)
  end)
end)

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

describe("emulated wgmma", function()
  -- A (64 x 16) and B (64 x 16, K-major: B^T rows) bf16 loaded by TMA with the 128B swizzle into one
  -- box each (64 rows x 64 k: 128 bytes a row), one wgmma m64n64k16 per k16 step over K = 64; D
  -- stored as fragments say: row 16 warp + g (+8), column 8 (i / 4) + 2 t + (i % 2)
  local function gemm_kernel(ptx, opts)
    return ptx.kernel { name = "wg" .. (opts.name or ""), target = "sm_90a", grid = { 1 }, block = { 128 },
      params = { { "amap", "tensormap" }, { "bmap", "tensormap" }, { "d", "f32*" } },
      body = function(_, amap, bmap, dout)
        local plan = ptx.smem_plan()
        local bar = plan:alloc("bar", "b64", 1, { align = 8 })
        local sA = plan:alloc("A", "bf16", { 64, 64 }, { swizzle = "128B" })
        local sB = plan:alloc("B", "bf16", { 64, 64 }, { swizzle = "128B" })
        local ma, mb = K.map_addrs(ptx, amap, bmap)
        local tid = ptx.special "tid.x"
        ptx.if_(tid:eq(0), function()
          ptx.op "mbarrier.init.shared::cta.b64" (bar:addr(0), 1)
          K.load_boxes(ptx, bar:addr(0), { { sA:addr(0), ma }, { sB:addr(0), mb } })
        end)
        ptx.bar.sync(0)
        ptx.mbarrier_wait(bar, opts.parity or 0)   -- 1: the wrong parity (passes at once)
        if opts.store then opts.store(ptx, sA) end
        local base = ptx.reg.u32()
        ptx.mov.u32(base, ptx.sym "smem")
        local da = ptx.wgmma_desc(sA, { mn = 64, k = 64, base = base, swizzle = "128B" }):as("u64")
        if opts.mangle then                           -- layout bits 62-63: 1 (128B) -> 2 (64B), past the DSL's check
          local x = ptx.reg.u64()
          ptx.xor.b64(x, da, -4611686018427387904)
          da = x
        end
        local db = ptx.wgmma_desc(sB, { mn = 64, k = 64, base = base }):as("u64")
        if opts.fence == "early" then ptx.wgmma.fence.sync.aligned() end   -- wrong: before the accumulators' init
        opts.lines = opts.lines or {}
        opts.lines.init = debug.getinfo(1, "l").currentline + 1
        local acc = ptx.regs.f32(32, "acc", 0)
        if opts.fence == nil then ptx.wgmma.fence.sync.aligned() end
        local wg = ptx.op "wgmma.mma_async.sync.aligned.m64n64k16.f32.bf16.bf16"
        for kk = 0, 3 do
          local p = ptx.reg.pred()
          ptx.setp.ne.u32(p, tid, 4096)               -- true: accumulate
          if kk == 0 then opts.lines.wgmma = debug.getinfo(1, "l").currentline + 1 end
          wg(acc, (da + 2 * kk):as("b64"), (db + 2 * kk):as("b64"), p, 1, 1, 0, 0)
        end
        ptx.wgmma.commit_group.sync.aligned()
        if opts.early then opts.early(ptx, acc, { sA = sA, sB = sB, bar = bar, ma = ma, tid = tid }) end
        ptx.wgmma.wait_group.sync.aligned(0)
        K.store_d64(ptx, acc, tid, dout)
      end }
  end

  local function inputs(dev)
    local r = 7
    local function rnd() r = r * 16807 % 2147483647; return (r / 2147483647) * 2 - 1 end
    local A, B = {}, {}
    for i = 1, 64 * 64 do A[i] = bf16_bits(rnd()); B[i] = bf16_bits(rnd()) end
    local a = dev:array("u16", 64 * 64, A)
    local b = dev:array("u16", 64 * 64, B)
    local ta = dev:tensormap(a, { dims = { 64, 64 }, box = { 64, 64 }, swizzle = "128B", dtype = "bf16" })
    local tbm = dev:tensormap(b, { dims = { 64, 64 }, box = { 64, 64 }, swizzle = "128B", dtype = "bf16" })
    return A, B, ta, tbm
  end

  it("m64n64k16 bf16 from swizzled shared memory matches a double reference", function()
    local ptx = H.fresh()
    local k = gemm_kernel(ptx, {})
    local dev = rt.device("emu")
    local A, B, ta, tbm = inputs(dev)
    local d = dev:array("f32", 64 * 64):poison()
    rt.launch(k, { device = dev, args = { ta, tbm, d }, checks = { uninit_shared = true, races = true } })
    local got = d:read()
    local worst = 0
    for m = 0, 63 do
      for n = 0, 63 do
        local s, sabs = 0, 0
        for kk = 0, 63 do
          local p = bf16_val(A[m * 64 + kk + 1]) * bf16_val(B[n * 64 + kk + 1])
          s = s + p; sabs = sabs + math.abs(p)
        end
        local err = math.abs(got[m * 64 + n + 1] - s) / (sabs * 2 ^ -22 + 1e-30)
        if not (err <= 1) then worst = math.max(worst, err ~= err and math.huge or err) end
      end
    end
    assert.are.equal(0, worst)
  end)

  it("flags a tile read through a descriptor of another swizzle", function()
    local ptx = H.fresh()
    local k = gemm_kernel(ptx, { name = "sw", mangle = true })
    local dev = rt.device("emu")
    local _, _, ta, tbm = inputs(dev)
    local d = dev:array("f32", 64 * 64)
    local ok, err = pcall(rt.launch, k, { device = dev, args = { ta, tbm, d } })
    assert.is_false(ok)
    assert.matches("through a descriptor declaring swizzle 64B, but a TMA load wrote it with swizzle 128B", err, 1, true)
  end)

  it("flags an accumulator read before wgmma.wait_group, at the reading line", function()
    local ptx = H.fresh()
    local line
    local k = gemm_kernel(ptx, { name = "early", early = function(p, acc)
      local t = p.reg.f32()
      line = debug.getinfo(1, "l").currentline + 1
      p.mov.f32(t, acc[5])
    end })
    local dev = rt.device("emu")
    local _, _, ta, tbm = inputs(dev)
    local ok, err = pcall(rt.launch, k, { device = dev, args = { ta, tbm, dev:array("f32", 4096) } })
    assert.is_false(ok)
    assert.matches(fmt(":%d: error: mov.f32: accumulator read before wgmma.wait_group", line), err, 1, true)
  end)

  -- the wgmma reads its operands any time before the wait_group that covers it: writing them in
  -- between races with the tensor cores (a stage released before its wgmmas are waited for)
  it("flags an st.shared into a wgmma operand before wgmma.wait_group, at the storing line", function()
    local ptx = H.fresh()
    local line
    local k = gemm_kernel(ptx, { name = "clobst", early = function(p, _, env)
      local s = p.reg.u32()
      p.mov.u32(s, p.sym "smem")
      line = debug.getinfo(1, "l").currentline + 1
      p.st.shared.u32(p.addr(s + env.sB.offset + env.tid:shl(2)), 0)
    end })
    local dev = rt.device("emu")
    local _, _, ta, tbm = inputs(dev)
    local ok, err = pcall(rt.launch, k, { device = dev, args = { ta, tbm, dev:array("f32", 4096) } })
    assert.is_false(ok)
    assert.matches(fmt(":%d: error: st.shared.u32 writes shared byte 0x", line), err, 1, true)
    assert.matches("of CTA %(0,0,0%), which the wgmma.mma_async of line %d+ %(warp 0%) reads: no wgmma.wait_group has covered that wgmma yet", err)
  end)

  it("flags a TMA load landing in a wgmma operand before wgmma.wait_group, at the load's line", function()
    local ptx = H.fresh()
    local line
    local k = gemm_kernel(ptx, { name = "clobtma", early = function(p, _, env)
      p.bar.sync(0)                                 -- every warp has issued its wgmmas (still in flight)
      p.if_(env.tid:eq(0), function()
        p.op "mbarrier.arrive.expect_tx.shared::cta.b64" (p._, env.bar:addr(0), 64 * 128)
        local z = p.reg.b32()
        p.mov.b32(z, 0)
        line = debug.getinfo(1, "l").currentline + 1
        p.op "cp.async.bulk.tensor.2d.shared::cluster.global.tile.mbarrier::complete_tx::bytes" (env.sA:addr(0), p.taddr(env.ma, { z, z }), env.bar:addr(0))
      end)
      p.mbarrier_wait(env.bar, 1)                   -- the copy lands while every warp waits here
    end })
    local dev = rt.device("emu")
    local _, _, ta, tbm = inputs(dev)
    local ok, err = pcall(rt.launch, k, { device = dev, args = { ta, tbm, dev:array("f32", 4096) } })
    assert.is_false(ok)
    assert.matches(fmt(":%d: error: cp.async.bulk.tensor.2d.shared::cluster.global.tile.mbarrier::complete_tx::bytes writes shared byte", line), err, 1, true)
    assert.matches("which the wgmma.mma_async of line %d+ %(warp %d%) reads: no wgmma.wait_group has covered that wgmma yet", err)
  end)

  -- warp 0 releases row 0 of A (an arrive on the mbarrier) and warp 1, after waiting for that phase,
  -- overwrites it: fine after warp 0's wgmma.wait_group, a race with warp 0's wgmma before it, even
  -- though warp 0 runs its wait_group first here (the release carries the pending reads)
  for _, early in ipairs { false, true } do
    it(early and "flags a write ordered after a release that precedes the wgmma.wait_group, at the writing line"
             or "accepts a write ordered after a release that follows the wgmma.wait_group", function()
      local ptx = H.fresh()
      local line, arline
      local k = gemm_kernel(ptx, { name = early and "relearly" or "rellate", early = function(p, _, env)
        local warp = env.tid:shr(5)
        p.bar.sync(0)                               -- every warp is past its wait on phase 0
        local function release()
          p.if_(env.tid:eq(0), function()
            arline = debug.getinfo(1, "l").currentline + 1
            p.op "mbarrier.arrive.shared::cta.b64" (p._, env.bar:addr(0))
          end)
        end
        p.if_(warp:eq(0), function()
          if early then release(); p.wgmma.wait_group.sync.aligned(0)
          else p.wgmma.wait_group.sync.aligned(0); release() end
        end)
        p.if_(warp:eq(1), function()
          p.wgmma.wait_group.sync.aligned(0)
          p.mbarrier_wait(env.bar, 1)
          local s = p.reg.u32()
          p.mov.u32(s, p.sym "smem")
          line = debug.getinfo(1, "l").currentline + 1
          p.st.shared.u32(p.addr(s + env.sA.offset + env.tid:band(31):shl(2)), 0)
        end)
      end })
      local dev = rt.device("emu")
      local _, _, ta, tbm = inputs(dev)
      local ok, err = pcall(rt.launch, k, { device = dev, args = { ta, tbm, dev:array("f32", 4096) } })
      if not early then assert.is_true(ok, err); return end
      assert.is_false(ok)
      assert.matches(fmt(":%d: error: st.shared.u32 writes shared byte 0x", line), err, 1, true)
      local wl = err:match("which the wgmma.mma_async of line (%d+) %(warp 0%) reads: ")
      assert.is_truthy(wl, err)
      assert.matches(fmt("stage released at line %d before wgmma.wait_group covers the wgmma at line %s", arline, wl), err, 1, true)
    end)
  end

  it("flags a wgmma with no wgmma.fence before it, or one whose accumulators were written after the fence", function()
    local dev = rt.device("emu")
    local _, _, ta, tbm = inputs(dev)
    local ptx = H.fresh()
    local opts = { name = "nofence", fence = "none" }
    local k = gemm_kernel(ptx, opts)
    H.assembles(ptx)
    local ok, err = pcall(rt.launch, k, { device = dev, args = { ta, tbm, dev:array("f32", 4096) } })
    assert.is_false(ok)
    assert.matches(fmt(":%d: error: wgmma.mma_async.sync.aligned.m64n64k16.f32.bf16.bf16 in warp 0 of CTA (0,0,0): a wgmma.mma_async with no wgmma.fence before it in this warp", opts.lines.wgmma),
                   err, 1, true)
    ptx = H.fresh()
    opts = { name = "earlyfence", fence = "early" }
    k = gemm_kernel(ptx, opts)
    H.assembles(ptx)
    ok, err = pcall(rt.launch, k, { device = dev, args = { ta, tbm, dev:array("f32", 4096) } })
    assert.is_false(ok)
    assert.matches(fmt(":%d: error: wgmma.mma_async.sync.aligned.m64n64k16.f32.bf16.bf16 in warp 0 of CTA (0,0,0): it uses %%acc0 as an accumulator, which the mov.f32 of line %d accessed after the warp's last wgmma.fence (line %d): a wgmma.fence must come between them",
                       opts.lines.wgmma, opts.lines.init, opts.lines.init - 3), err, 1, true)
  end)

  it("flags a wgmma reading a tile its TMA load still writes (a wait on the wrong parity passes at once)", function()
    local dev = rt.device("emu")
    local _, _, ta, tbm = inputs(dev)
    local ptx = H.fresh()
    local opts = { name = "parity", parity = 1 }
    local k = gemm_kernel(ptx, opts)
    H.assembles(ptx)
    local ok, err = pcall(rt.launch, k, { device = dev, args = { ta, tbm, dev:array("f32", 4096) } })
    assert.is_false(ok)
    -- warp 3, the last at the bar.sync before the wait, runs on first: its rows 48..63 of A
    assert.matches(fmt(":%d: error: wgmma.mma_async.sync.aligned.m64n64k16.f32.bf16.bf16 in warp 3 of CTA (0,0,0): wgmma.mma_async.sync.aligned.m64n64k16.f32.bf16.bf16 (operand A) "
                       .. "reads shared byte 0x1c00, which the cp.async.bulk.tensor.2d.shared::cluster.global.tile.mbarrier::complete_tx::bytes of line", opts.lines.wgmma), err, 1, true)
    assert.matches("(by thread (0,0,0) of CTA (0,0,0)) is still writing: no wait on its mbarrier (shared 0x0) has seen the copy land", err, 1, true)
  end)

  it("flags shared memory written by ordinary stores and read by wgmma without fence.proxy.async", function()
    local ptx = H.fresh()
    local k = gemm_kernel(ptx, { name = "proxy", store = function(p, sA)
      local s = p.reg.u32()
      p.mov.u32(s, p.sym "smem")
      p.st.shared.u32(p.addr(s + sA.offset + p.special("tid.x"):shl(2)), 0)
    end })
    local dev = rt.device("emu")
    local _, _, ta, tbm = inputs(dev)
    local ok, err = pcall(rt.launch, k, { device = dev, args = { ta, tbm, dev:array("f32", 4096) } })
    assert.is_false(ok)
    assert.matches("no fence.proxy.async by that thread since", err, 1, true)
    assert.matches("wgmma.mma_async", err, 1, true)
  end)
end)

describe("emulated clusters", function()
  -- each CTA of a cluster of 2 stores a value per thread into its buffer, then (first) a cluster
  -- barrier, reads the other CTA's element through mapa, (second) a cluster barrier, stores it out;
  -- without the barrier named by `without`, every other part as is
  local function swap_kernel(ptx, without, lines)
    return ptx.kernel { name = "swap", target = "sm_90a", grid = { 4 }, block = { 32 }, cluster = { 2 },
      params = { { "out", "u32*" } }, body = function(_, out)
        local plan = ptx.smem_plan()
        local buf = plan:alloc("buf", "u32", 32)
        local tid = ptx.special "tid.x"
        local rank = ptx.special "cluster_ctarank"
        local s = ptx.reg.u32()
        ptx.mov.u32(s, ptx.sym "smem")
        local mine = s + buf.offset + tid:shl(2)
        lines.st = debug.getinfo(1, "l").currentline + 1
        ptx.st.shared.u32(ptx.addr(mine), ptx.special("ctaid.x"):mad(100000, rank:mad(1000, tid)))
        if without ~= "first" then
          ptx.op "barrier.cluster.arrive.release.aligned" ()
          ptx.op "barrier.cluster.wait.acquire.aligned" ()
        end
        local other, remote, v = ptx.reg.u32(), ptx.reg.u32(), ptx.reg.u32()
        ptx.xor.b32(other, rank, 1)
        ptx.op "mapa.shared::cluster.u32" (remote, mine, other)
        lines.ld = debug.getinfo(1, "l").currentline + 1
        ptx.op "ld.shared::cluster.u32" (v, ptx.addr(remote))
        if without ~= "second" then
          ptx.op "barrier.cluster.arrive.release.aligned" ()
          ptx.op "barrier.cluster.wait.acquire.aligned" ()
        end
        local po = ptx.global_ptrs(out)
        local i = ptx.special("ctaid.x"):mad(32, tid)
        ptx.st.global.u32(ptx.addr(po + i:mul_wide(4)), v)
        -- a CTA may exit only once the other has read its shared memory: the second barrier; and
        -- then overwrite its own buffer (ordered by that barrier too)
        ptx.st.shared.u32(ptx.addr(mine), 0)
      end }
  end

  it("two CTAs exchange shared memory through mapa and barrier.cluster (with the races check: clean)", function()
    local ptx = H.fresh()
    local k = swap_kernel(ptx, nil, {})
    H.assembles(ptx)
    local dev = rt.device("emu")
    local out = dev:array("u32", 128):poison()
    rt.launch(k, { device = dev, args = { out }, checks = { races = true, uninit_shared = true } })
    local got = out:read()
    for c = 0, 3 do
      for t = 0, 31 do
        local oc = bit.bxor(c, 1)
        assert.are.equal((oc % 2) * 1000 + t + oc * 100000, got[c * 32 + t + 1], fmt("CTA %d thread %d", c, t))
      end
    end
  end)

  it("reports a CTA's access to another's shared memory that no barrier.cluster orders (races)", function()
    local THIS = debug.getinfo(1, "S").source:sub(2)
    local dev = rt.device("emu")
    local out = dev:array("u32", 128):poison()
    -- without the first barrier: CTA 0 reads CTA 1's element before CTA 1 has stored it (here:
    -- CTA 1 runs after CTA 0 blocks), so CTA 1's store comes after a read by another CTA
    local ptx, lines = H.fresh(), {}
    local k = swap_kernel(ptx, "first", lines)
    H.assembles(ptx)
    local ok, err = pcall(rt.launch, k, { device = dev, args = { out }, checks = { races = true } })
    assert.is_false(ok)
    assert.matches(fmt("%s:%d: error: shared-memory race on byte 0x0: st.shared.u32 by thread (0,0,0) of CTA (1,0,0) writes it after thread (0,0,0) of CTA (0,0,0) read it with no barrier.cluster between",
                       THIS, lines.st), err, 1, true)
    -- without the second: CTA 1 (the last to arrive at the first barrier, so it runs on) overwrites
    -- its buffer and exits before CTA 0 has read it: CTA 0's read comes after another CTA's write,
    -- and after that CTA exited -- the always-on check's diagnosis, which the races check (opt-in)
    -- never replaces: the same message with it as without it
    ptx, lines = H.fresh(), {}
    k = swap_kernel(ptx, "second", lines)
    H.assembles(ptx)
    local want = fmt("%s:%d: error: ld.shared::cluster.u32 by thread (0,0,0) of CTA (0,0,0) reads shared 0x0 of CTA (1,0,0), which has exited (every thread of it)",
                     THIS, lines.ld)
    for _, checks in ipairs { { races = true }, {} } do
      ok, err = pcall(rt.launch, k, { device = dev, args = { out }, checks = checks })
      assert.is_false(ok)
      assert.matches(want, err, 1, true)
    end
    out:free()
  end)

  it("reports two CTAs storing into the same bytes of a third's shared memory with no barrier.cluster between", function()
    local ptx = H.fresh()
    local line
    local k = ptx.kernel { name = "two_writers", target = "sm_90a", grid = { 2 }, block = { 32 }, cluster = { 2 }, body = function()
      local plan = ptx.smem_plan()
      local buf = plan:alloc("buf", "u32", 32)
      local tid = ptx.special "tid.x"
      local s, remote = ptx.reg.u32(), ptx.reg.u32()
      ptx.mov.u32(s, ptx.sym "smem")
      ptx.op "mapa.shared::cluster.u32" (remote, s + buf.offset + tid:shl(2), 0)   -- CTA rank 0's buffer
      line = debug.getinfo(1, "l").currentline + 1
      ptx.op "st.shared::cluster.u32" (ptx.addr(remote), tid)
      ptx.op "barrier.cluster.arrive.release.aligned" ()
      ptx.op "barrier.cluster.wait.acquire.aligned" ()
    end }
    H.assembles(ptx)
    local ok, err = pcall(rt.launch, k, { device = rt.device("emu"), checks = { races = true } })
    assert.is_false(ok)
    assert.matches(fmt(":%d: error: shared-memory race on byte 0x0 of CTA (0,0,0): st.shared::cluster.u32 by thread (0,0,0) of CTA (1,0,0) writes it after thread (0,0,0) of CTA (0,0,0) wrote it with no barrier.cluster between", line),
                   err, 1, true)
  end)

  it("a cluster wait that not every thread reaches is a deadlock", function()
    local ptx = H.fresh()
    local k = ptx.kernel { name = "cl_stuck", target = "sm_90a", grid = { 2 }, block = { 64 }, cluster = { 2 }, body = function()
      local skip = ptx.label "skip"
      ptx.at(ptx.special("cluster_ctarank"):eq(1):and_(ptx.special("tid.x"):ge(32))).bra(skip)
      ptx.op "barrier.cluster.arrive" ()
      ptx.place(skip)
      ptx.op "barrier.cluster.wait" ()
    end }
    local ok, err = pcall(rt.launch, k, { device = rt.device("emu") })
    assert.is_false(ok)
    assert.matches("barrier.cluster.wait without a barrier.cluster.arrive before it", err, 1, true)
  end)
end)

describe("emulated elect.sync", function()
  it("elects the lowest active lane", function()
    local ptx = H.fresh()
    local k = ptx.kernel { name = "elect", target = "sm_90a", grid = { 1 }, block = { 32 }, params = { { "out", "u32*" } },
      body = function(_, out)
        local tid = ptx.special "tid.x"
        local po = ptx.global_ptrs(out)
        local skip = ptx.label "skip"
        ptx.at(tid:lt(5)).bra(skip)
        local d, p = ptx.reg.u32(), ptx.reg.pred()
        ptx.op "elect.sync" (ptx.pair(d, p), 0xffffffe0)
        local v = ptx.reg.u32()
        ptx.selp.u32(v, 1000, 0, p)
        ptx.st.global.u32(ptx.addr(po + tid:mul_wide(4)), v + d)
        ptx.place(skip)
      end }
    local dev = rt.device("emu")
    local out = dev:array("u32", 32, 7)
    rt.launch(k, { device = dev, args = { out } })
    local got = out:read()
    for t = 0, 31 do
      local want = t < 5 and 7 or (t == 5 and 1005 or 5)
      assert.are.equal(want, got[t + 1], "lane " .. t)
    end
  end)
end)
