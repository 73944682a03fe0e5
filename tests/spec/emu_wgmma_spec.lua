-- emu_wgmma_spec.lua -- the wgmma descriptor's base offset, and the early-release check through
-- chains of mbarriers. Base offset: A is TMA-loaded (128B swizzle, whose pattern follows the absolute
-- shared address) at a tile 384 bytes past a 1024-byte boundary; read with the base offset the ISA
-- gives for it ((address >> 7) & 7 = 3) the wgmma m64n64k16 bf16 matches a double reference, read
-- with base offset 0 it is reported at the wgmma's line. Chains: a stage released (mbarrier arrive)
-- before the wgmma.wait_group that covers its readers, then written by a warp ordered after that
-- arrive through a second mbarrier (warp A arrives on bar1; warp B waits bar1, arrives on bar2;
-- warp C waits bar2 and writes), or through an arrive on the other CTA's mbarrier of a 2-CTA
-- cluster, is reported at the write; the same programs with the arrive after the wait_group pass.
local H = require "helper"
local rt = require "ptxlua.emu"
local K = require "kcheck"
local bit = require "bit"

local fmt = string.format
local dev = rt.device("emu")

local bf16_bits, bf16_val = K.bf16_bits, K.bf16_val

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
