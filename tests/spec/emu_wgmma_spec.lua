-- emu_wgmma_spec.lua -- wgmma.mma_async in the emulator (sparse: emu_wgmma_sparse_spec.lua):
-- results against a reference, the checks (a descriptor of another swizzle, an operand or
-- accumulator touched before wgmma.wait_group, a missing wgmma.fence or fence.proxy.async), the
-- descriptor's base offset, and the early-release check through chains of mbarriers.

local H = require "helper"
local rt = require "ptxlua.emu"

local fmt = string.format

local K = require "kcheck"
local bf16_bits, bf16_val = K.bf16_bits, K.bf16_val   -- bf16 bits of a float (nearest even), and back

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

  -- the same descriptor over a B tile that a second TMA load replaced: the warps (and the emulator's
  -- gather cache, hopper/desc.c) must read the new bytes. D = A B0^T + A B1^T, B0 and B1 the two
  -- 64-row boxes of a 128 x 64 B.
  it("reads a tile again through the same descriptor after a TMA load replaced it", function()
    local ptx = H.fresh()
    local k = ptx.kernel { name = "wg_reload", target = "sm_90a", grid = { 1 }, block = { 128 },
      params = { { "amap", "tensormap" }, { "bmap", "tensormap" }, { "d", "f32*" } },
      body = function(_, amap, bmap, dout)
        local plan = ptx.smem_plan()
        local bar = plan:alloc("bar", "b64", 1, { align = 8 })
        local sA = plan:alloc("A", "bf16", { 64, 64 }, { swizzle = "128B" })
        local sB = plan:alloc("B", "bf16", { 64, 64 }, { swizzle = "128B" })
        local ma, mb = K.map_addrs(ptx, amap, bmap)
        local tid = ptx.special "tid.x"
        local ld = ptx.op "cp.async.bulk.tensor.2d.shared::cluster.global.tile.mbarrier::complete_tx::bytes"
        local z, r64 = ptx.reg.b32(), ptx.reg.b32()
        ptx.mov.b32(z, 0)
        ptx.mov.b32(r64, 64)
        ptx.if_(tid:eq(0), function()
          ptx.op "mbarrier.init.shared::cta.b64" (bar:addr(0), 1)
          K.load_boxes(ptx, bar:addr(0), { { sA:addr(0), ma }, { sB:addr(0), mb } })
        end)
        ptx.bar.sync(0)
        ptx.mbarrier_wait(bar, 0)
        local base = ptx.reg.u32()
        ptx.mov.u32(base, ptx.sym "smem")
        local da = ptx.wgmma_desc(sA, { mn = 64, k = 64, base = base, swizzle = "128B" }):as("u64")
        local db = ptx.wgmma_desc(sB, { mn = 64, k = 64, base = base }):as("u64")
        local acc = ptx.regs.f32(32, "acc", 0)
        local wg = ptx.op "wgmma.mma_async.sync.aligned.m64n64k16.f32.bf16.bf16"
        local p = ptx.reg.pred()
        ptx.setp.ne.u32(p, tid, 4096)                 -- true: accumulate
        local function four()
          ptx.wgmma.fence.sync.aligned()
          for kk = 0, 3 do wg(acc, (da + 2 * kk):as("b64"), (db + 2 * kk):as("b64"), p, 1, 1, 0, 0) end
          ptx.wgmma.commit_group.sync.aligned()
          ptx.wgmma.wait_group.sync.aligned(0)
        end
        four()
        ptx.bar.sync(0)                               -- every warp's reads of B0 are retired
        ptx.if_(tid:eq(0), function()                 -- B1 (rows 64-127 of B) over B0
          ptx.op "mbarrier.arrive.expect_tx.shared::cta.b64" (ptx._, bar:addr(0), 64 * 128)
          ld(sB:addr(0), ptx.taddr(mb, { z, r64 }), bar:addr(0))
        end)
        ptx.mbarrier_wait(bar, 1)
        four()
        K.store_d64(ptx, acc, tid, dout)
      end }
    local dev = rt.device("emu")
    local r = 11
    local function rnd() r = r * 16807 % 2147483647; return (r / 2147483647) * 2 - 1 end
    local A, B = {}, {}
    for i = 1, 64 * 64 do A[i] = bf16_bits(rnd()) end
    for i = 1, 128 * 64 do B[i] = bf16_bits(rnd()) end
    local ta = dev:tensormap(dev:array("u16", 64 * 64, A), { dims = { 64, 64 }, box = { 64, 64 }, swizzle = "128B", dtype = "bf16" })
    local tbm = dev:tensormap(dev:array("u16", 128 * 64, B), { dims = { 64, 128 }, box = { 64, 64 }, swizzle = "128B", dtype = "bf16" })
    local d = dev:array("f32", 64 * 64):poison()
    rt.launch(k, { device = dev, args = { ta, tbm, d } })
    local got = d:read()
    local worst = 0
    for m = 0, 63 do
      for n = 0, 63 do
        local s, sabs = 0, 0
        for half = 0, 1 do
          for kk = 0, 63 do
            local p = bf16_val(A[m * 64 + kk + 1]) * bf16_val(B[(64 * half + n) * 64 + kk + 1])
            s = s + p; sabs = sabs + math.abs(p)
          end
        end
        local err = math.abs(got[m * 64 + n + 1] - s) / (sabs * 2 ^ -20 + 1e-30)
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

-- ------------------------------------------------------------------------------------------------
-- the wgmma descriptor's base offset, and the early-release check through
-- chains of mbarriers. Base offset: A is TMA-loaded (128B swizzle, whose pattern follows the absolute
-- shared address) at a tile 384 bytes past a 1024-byte boundary; read with the base offset the ISA
-- gives for it ((address >> 7) & 7 = 3) the wgmma m64n64k16 bf16 matches a double reference, read
-- with base offset 0 it is reported at the wgmma's line. Chains: a stage released (mbarrier arrive)
-- before the wgmma.wait_group that covers its readers, then written by a warp ordered after that
-- arrive through a second mbarrier (warp A arrives on bar1; warp B waits bar1, arrives on bar2;
-- warp C waits bar2 and writes), or through an arrive on the other CTA's mbarrier of a 2-CTA
-- cluster, is reported at the write; the same programs with the arrive after the wait_group pass.
local bit = require "bit"
local dev = rt.device("emu")

-- 64 x 64 bf16 A and B (K-major), their tensor maps (one 64 x 64 box, 128B swizzle)
local function inputs(seed)
  local rnd = K.rng(seed)
  local A, B = {}, {}
  for i = 1, 64 * 64 do A[i] = bf16_bits(rnd(-1, 1)); B[i] = bf16_bits(rnd(-1, 1)) end
  local function map(t)
    return dev:tensormap(dev:array("u16", 64 * 64, t), { dims = { 64, 64 }, box = { 64, 64 }, swizzle = "128B", dtype = "bf16" })
  end
  return A, B, map(A), map(B)
end

describe("wgmma descriptor base offset", function()
  local SHIFT = 384                                      -- the tile starts 3 rows of 128 bytes past the boundary
  local function kernel(ptx, wrong)
    local where = {}
    local k = ptx.kernel { name = wrong and "bo_wrong" or "bo_right", target = "sm_90a", grid = { 1 }, block = { 128 },
      params = { { "amap", "tensormap" }, { "bmap", "tensormap" }, { "d", "f32*" } },
      body = function(_, amap, bmap, dout)
        local plan = ptx.smem_plan()
        local bar = plan:alloc("bar", "b64", 1, { align = 8 })
        local sA = plan:alloc("A", "bf16", { 72, 64 }, { swizzle = "128B" })   -- room for the shifted box
        local sB = plan:alloc("B", "bf16", { 64, 64 }, { swizzle = "128B" })
        local ma, mb = K.map_addrs(ptx, amap, bmap)
        local tid = ptx.special "tid.x"
        ptx.if_(tid:eq(0), function()
          ptx.op "mbarrier.init.shared::cta.b64" (bar:addr(0), 1)
          K.load_boxes(ptx, bar:addr(0), { { sA:addr(0, SHIFT), ma }, { sB:addr(0), mb } })
        end)
        ptx.bar.sync(0)                                  -- the other warps see the mbarrier's init
        ptx.mbarrier_wait(bar, 0)
        local base = ptx.reg.u32()
        ptx.mov.u32(base, ptx.sym "smem")
        local da = ptx.wgmma_desc(sA, { mn = 64, k = 64, base = base, offset = SHIFT, swizzle = "128B" }):as("u64")
        if wrong then                                    -- bits 49-51: 3 -> 0
          local x = ptx.reg.u64()
          ptx.xor.b64(x, da, 3 * 2 ^ 49)
          da = x
        end
        local db = ptx.wgmma_desc(sB, { mn = 64, k = 64, base = base }):as("u64")
        local acc = ptx.regs.f32(32, "acc", 0)
        ptx.wgmma.fence.sync.aligned()
        local wg = ptx.op "wgmma.mma_async.sync.aligned.m64n64k16.f32.bf16.bf16"
        local p = ptx.reg.pred()
        ptx.setp.ne.u32(p, tid, 4096)
        for kk = 0, 3 do
          if kk == 0 then where.line = debug.getinfo(1, "l").currentline + 1 end
          wg(acc, (da + 2 * kk):as("b64"), (db + 2 * kk):as("b64"), p, 1, 1, 0, 0)
        end
        ptx.wgmma.commit_group.sync.aligned()
        ptx.wgmma.wait_group.sync.aligned(0)
        K.store_d64(ptx, acc, tid, dout)
      end }
    return k, where
  end

  it("a TMA tile off the 1024-byte boundary, read with the ISA's base offset, matches a double reference", function()
    local ptx = H.fresh()
    local k = kernel(ptx, false)
    local ok, report = H.assemble(k:ptx(), "sm_90a")
    assert(ok, report)
    assert.matches("or.b64%s+%%bd%d+, %%bd%d+, 0x40060040", k:ptx())   -- the descriptor's high word: base offset 3
    local A, B, ta, tb = inputs(11)
    local d = dev:array("f32", 64 * 64):poison()
    rt.launch(k, { device = dev, args = { ta, tb, d }, checks = { uninit_shared = true } })
    local got, bad = d:read(), 0
    for m = 0, 63 do
      for n = 0, 63 do
        local s, sabs = 0, 0
        for kk = 0, 63 do
          local pr = bf16_val(A[m * 64 + kk + 1]) * bf16_val(B[n * 64 + kk + 1])
          s = s + pr; sabs = sabs + math.abs(pr)
        end
        if not (math.abs(got[m * 64 + n + 1] - s) <= sabs * 2 ^ -22) then bad = bad + 1 end
      end
    end
    assert.are.equal(0, bad)
  end)

  it("the same tile read with base offset 0 is reported at the wgmma's line", function()
    local ptx = H.fresh()
    local k, where = kernel(ptx, true)
    local ok, report = H.assemble(k:ptx(), "sm_90a")
    assert(ok, report)
    local _, _, ta, tb = inputs(11)
    local run_ok, err = pcall(rt.launch, k, { device = dev, args = { ta, tb, dev:array("f32", 64 * 64) } })
    assert.is_false(run_ok)
    assert.matches(fmt(":%d: error: wgmma.mma_async.sync.aligned.m64n64k16.f32.bf16.bf16", where.line), err, 1, true)
    assert.matches("(operand A) reads shared byte 0x", err, 1, true)
    assert.matches("through a descriptor with base offset 0, but a TMA load wrote it with the 128B pattern of the absolute address: "
                   .. "for the tile at 0x", err, 1, true)
    assert.matches("the base offset is 3", err, 1, true)
  end)
end)

-- every warp of the warpgroup runs wgmma m64n64k16 bf16 over TMA-loaded A and B, then `after` runs
-- (the release and the writes); bar (1 arrival) completes phase 0 by the TMA loads
local function wg_kernel(ptx, name, cluster, after)
  return ptx.kernel { name = name, target = "sm_90a", grid = { cluster and 2 or 1 }, block = { 128 }, cluster = cluster and { 2 } or nil,
    params = { { "amap", "tensormap" }, { "bmap", "tensormap" } },
    body = function(_, amap, bmap)
      local plan = ptx.smem_plan()
      local bars = plan:alloc("bars", "b64", 3, { align = 8 })   -- bar, bar2, bar3
      local sA = plan:alloc("A", "bf16", { 64, 64 }, { swizzle = "128B" })
      local sB = plan:alloc("B", "bf16", { 64, 64 }, { swizzle = "128B" })
      local ma, mb = K.map_addrs(ptx, amap, bmap)
      local tid = ptx.special "tid.x"
      local env = { tid = tid, warp = tid:shr(5), sA = sA, sB = sB,
                    bar = function(i) return bars:addr(0, 8 * i) end, offset = function(i) return bars.offset + 8 * i end }
      ptx.if_(tid:eq(0), function()
        for i = 0, 2 do ptx.op "mbarrier.init.shared::cta.b64" (env.bar(i), 1) end
      end)
      if cluster then
        ptx.op "fence.mbarrier_init.release.cluster" ()
        ptx.op "barrier.cluster.arrive.release.aligned" ()
        ptx.op "barrier.cluster.wait.acquire.aligned" ()
      else
        ptx.bar.sync(0)
      end
      ptx.if_(tid:eq(0), function() K.load_boxes(ptx, env.bar(0), { { sA:addr(0), ma }, { sB:addr(0), mb } }) end)
      ptx.mbarrier_wait(env.bar(0), 0)
      local base = ptx.reg.u32()
      ptx.mov.u32(base, ptx.sym "smem")
      local da = ptx.wgmma_desc(sA, { mn = 64, k = 64, base = base }):as("b64")
      local db = ptx.wgmma_desc(sB, { mn = 64, k = 64, base = base }):as("b64")
      local acc = ptx.regs.f32(32, "acc", 0)
      local p = ptx.reg.pred()
      ptx.setp.ne.u32(p, tid, 4096)
      ptx.wgmma.fence.sync.aligned()
      ptx.op "wgmma.mma_async.sync.aligned.m64n64k16.f32.bf16.bf16" (acc, da, db, p, 1, 1, 0, 0)
      ptx.wgmma.commit_group.sync.aligned()
      env.base = base
      after(ptx, env)
      if cluster then
        ptx.op "barrier.cluster.arrive.release.aligned" ()
        ptx.op "barrier.cluster.wait.acquire.aligned" ()
      end
    end }
end

describe("the early-release check through chains", function()
  -- warp 0 releases (arrive on bar, phase 1) before or after its wait_group; warp 1 waits for that
  -- phase and arrives on bar2; warp 2 waits for bar2 and overwrites row 0 of A, which warp 0's
  -- wgmma reads. Warp 0 runs its wait_group before warp 2 writes either way (each warp runs until it
  -- blocks): only the order the release carries tells the two apart.
  for _, early in ipairs { false, true } do
    it(early and "flags a write ordered after an early release through a second mbarrier, at the write"
             or "accepts a write ordered through a second mbarrier after a release that follows the wait_group", function()
      local ptx = H.fresh()
      local at = {}
      local k = wg_kernel(ptx, early and "chain_early" or "chain_late", false, function(p, env)
        p.bar.sync(0)                                    -- every warp is past its wait on bar's phase 0
        local function release()
          p.if_(env.tid:eq(0), function()
            at.arrive = debug.getinfo(1, "l").currentline + 1
            p.op "mbarrier.arrive.shared::cta.b64" (p._, env.bar(0))
          end)
        end
        p.if_(env.warp:eq(0), function()
          if early then release(); p.wgmma.wait_group.sync.aligned(0)
          else p.wgmma.wait_group.sync.aligned(0); release() end
        end)
        p.if_(env.warp:eq(1), function()
          p.wgmma.wait_group.sync.aligned(0)
          p.mbarrier_wait(env.bar(0), 1)
          p.if_(env.tid:eq(32), function() p.op "mbarrier.arrive.shared::cta.b64" (p._, env.bar(1)) end)
        end)
        p.if_(env.warp:eq(2), function()
          p.wgmma.wait_group.sync.aligned(0)
          p.mbarrier_wait(env.bar(1), 0)
          at.write = debug.getinfo(1, "l").currentline + 1
          p.st.shared.u32(p.addr(env.base + env.sA.offset + env.tid:band(31):shl(2)), 0)
        end)
        p.if_(env.warp:eq(3), function() p.wgmma.wait_group.sync.aligned(0) end)
      end)
      local ok, report = H.assemble(k:ptx(), "sm_90a")
      assert(ok, report)
      local _, _, ta, tb = inputs(5)
      local run_ok, err = pcall(rt.launch, k, { device = dev, args = { ta, tb } })
      if not early then assert.is_true(run_ok, err); return end
      assert.is_false(run_ok)
      assert.matches(fmt(":%d: error: st.shared.u32 writes shared byte 0x", at.write), err, 1, true)
      local wl = err:match("which the wgmma.mma_async of line (%d+) %(warp 0%) reads: ")
      assert.is_truthy(wl, err)
      assert.matches(fmt("stage released at line %d before wgmma.wait_group covers the wgmma at line %s", at.arrive, wl), err, 1, true)
    end)
  end

  -- a 2-CTA cluster: warp 0 of CTA 0 releases by a remote arrive on CTA 1's bar2; warp 1 of CTA 1
  -- waits for it and bulk-copies 128 bytes into row 0 of CTA 0's A (completing on CTA 0's bar3)
  for _, early in ipairs { false, true } do
    it(early and "flags a copy from another CTA ordered after an early remote release, at the copy"
             or "accepts a copy from another CTA ordered after a remote release that follows the wait_group", function()
      local ptx = H.fresh()
      local at = {}
      local k = wg_kernel(ptx, early and "remote_early" or "remote_late", true, function(p, env)
        local rank = p.special "cluster_ctarank"
        local function remote(off, r)
          local a, x = p.reg.u32(), p.reg.u32()
          p.add.u32(a, env.base, off)
          p.op "mapa.shared::cluster.u32" (x, a, r)
          return x
        end
        p.if_(rank:eq(0):and_(env.tid:eq(0)), function()
          p.op "mbarrier.arrive.expect_tx.shared::cta.b64" (p._, env.bar(2), 128)
        end)
        local function release()
          p.if_(env.tid:eq(0), function()
            local r = remote(env.offset(1), 1)
            at.arrive = debug.getinfo(1, "l").currentline + 1
            p.op "mbarrier.arrive.release.cluster.shared::cluster.b64" (p._, p.addr(r))
          end)
        end
        p.if_(rank:eq(0):and_(env.warp:eq(0)), function()
          if early then release(); p.wgmma.wait_group.sync.aligned(0)
          else p.wgmma.wait_group.sync.aligned(0); release() end
        end)
        p.if_(rank:eq(0):and_(env.warp:ne(0)), function() p.wgmma.wait_group.sync.aligned(0) end)
        p.if_(rank:eq(1), function()
          p.wgmma.wait_group.sync.aligned(0)
          p.if_(env.warp:eq(1), function()
            p.mbarrier_wait(env.bar(1), 0)
            p.if_(env.tid:eq(32), function()
              local dst, mbar = remote(env.sA.offset, 0), remote(env.offset(2), 0)
              local src = p.reg.u32()
              p.add.u32(src, env.base, env.sB.offset)
              at.copy = debug.getinfo(1, "l").currentline + 1
              p.op "cp.async.bulk.shared::cluster.shared::cta.mbarrier::complete_tx::bytes" (p.addr(dst), p.addr(src), 128, p.addr(mbar))
            end)
          end)
        end)
        p.if_(rank:eq(0), function() p.mbarrier_wait(env.bar(2), 0) end)   -- the copy lands while CTA 0 waits
      end)
      local ok, report = H.assemble(k:ptx(), "sm_90a")
      assert(ok, report)
      local _, _, ta, tb = inputs(6)
      local run_ok, err = pcall(rt.launch, k, { device = dev, args = { ta, tb } })
      if not early then assert.is_true(run_ok, err); return end
      assert.is_false(run_ok)
      assert.matches(fmt(":%d: error: cp.async.bulk.shared::cluster.shared::cta.mbarrier::complete_tx::bytes writes shared byte 0x", at.copy), err, 1, true)
      assert.matches("of CTA (0,0,0), which the wgmma.mma_async of line", err, 1, true)
      assert.matches(fmt("(warp 0) reads: stage released at line %d before wgmma.wait_group covers", at.arrive), err, 1, true)
    end)
  end
end)
