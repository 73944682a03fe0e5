-- emu_holes_spec.lua -- emulator checks across the CTAs of a cluster, and im2col bulk stores:
--   * a store, red or atom through a shared::cluster address (mapa) into bytes another CTA's
--     wgmma.mma_async reads before that CTA's wgmma.wait_group covers it is reported at the write,
--     naming the writer and the CTA whose operand it hits; the same write after the wait_group
--     passes. A multicast TMA load, issued in one CTA by a warp ordered after another CTA's early
--     release, is reported when it is issued even when that order is gone by the time it lands;
--   * the early-release check keeps each CTA's warps apart on an mbarrier both CTAs arrive on:
--     CTA 0's consumer warp 0 releasing after its wait_group does not cover CTA 1's warp 0, which
--     released before it;
--   * TMA im2col stores (.im2col_no_offs, store and add-reduction) take part in the bulk-group checks
--     as tile stores do: an ld.global of a destination pixel after wait_group.read only, and an
--     st.shared over the source before any wait_group, are reported at their lines.
--   * the proxy check follows stores into another CTA's shared memory: a tile CTA 1 writes in CTA 0
--     with st.shared::cluster and CTA 0 TMA-stores past a cluster barrier is reported at the TMA
--     store, naming the writer, unless the writer ran fence.proxy.async (no space or
--     .shared::cluster, not .shared::cta) before the barrier; the reader's fence does not clear it.
-- Every kernel's PTX is assembled by ptxas for sm_90a first.
local H = require "helper"
local rt = require "ptxlua.emu"
local K = require "kcheck"

local fmt = string.format
local assembles = H.assembles

local function here() return debug.getinfo(2, "l").currentline end

-- 64 x 64 bf16 A and B (K-major, values in [-1, 1)), their tensor maps (one box, 128B swizzle)
local function maps(dev, seed)
  local rnd = K.rng(seed)
  local A, B = {}, {}
  for i = 1, 64 * 64 do A[i] = K.bf16_bits(rnd(-1, 1)); B[i] = K.bf16_bits(rnd(-1, 1)) end
  local function map(t)
    return dev:tensormap(dev:array("u16", 64 * 64, t), { dims = { 64, 64 }, box = { 64, 64 }, swizzle = "128B", dtype = "bf16" })
  end
  return map(A), map(B)
end

-- a 2-CTA cluster of one warpgroup each: every CTA TMA-loads A and B, every warp issues a wgmma
-- m64n64k16 over them (commit, no wait), then `after(ptx, env)` runs; a cluster barrier ends it.
-- bars: 0 the loads' mbarrier; 1..3 for `after` (counts in env.counts, default 1)
local function cluster_kernel(ptx, name, counts, after)
  return ptx.kernel { name = name, target = "sm_90a", grid = { 2 }, block = { 128 }, cluster = { 2 },
    params = { { "amap", "tensormap" }, { "bmap", "tensormap" } },
    body = function(_, amap, bmap)
      local plan = ptx.smem_plan()
      local bars = plan:alloc("bars", "b64", 4, { align = 8 })
      local sA = plan:alloc("A", "bf16", { 64, 64 }, { swizzle = "128B" })
      local sB = plan:alloc("B", "bf16", { 64, 64 }, { swizzle = "128B" })
      local ma, mb = K.map_addrs(ptx, amap, bmap)
      local tid = ptx.special "tid.x"
      local base = ptx.reg.u32()
      ptx.mov.u32(base, ptx.sym "smem")
      local env = { tid = tid, warp = tid:shr(5), rank = ptx.special "cluster_ctarank", sA = sA, sB = sB, base = base, bdesc = mb,
                    bar = function(i) return bars:addr(0, 8 * i) end }
      -- the shared::cluster address of byte `off` of the smem block in CTA r
      function env.remote(off, r)
        local a, x = ptx.reg.u32(), ptx.reg.u32()
        ptx.add.u32(a, base, off)
        ptx.op "mapa.shared::cluster.u32" (x, a, r)
        return x
      end
      function env.bar_off(i) return bars.offset + 8 * i end
      ptx.if_(tid:eq(0), function()
        for i = 0, 3 do ptx.op "mbarrier.init.shared::cta.b64" (env.bar(i), counts[i] or 1) end
      end)
      ptx.op "fence.mbarrier_init.release.cluster" ()
      ptx.op "barrier.cluster.arrive.release.aligned" ()
      ptx.op "barrier.cluster.wait.acquire.aligned" ()
      ptx.if_(tid:eq(0), function() K.load_boxes(ptx, env.bar(0), { { sA:addr(0), ma }, { sB:addr(0), mb } }) end)
      ptx.mbarrier_wait(env.bar(0), 0)
      local da = ptx.wgmma_desc(sA, { mn = 64, k = 64, base = base }):as("b64")
      local db = ptx.wgmma_desc(sB, { mn = 64, k = 64, base = base }):as("b64")
      local acc = ptx.regs.f32(32, "acc", 0)
      local p = ptx.reg.pred()
      ptx.setp.ne.u32(p, tid, 4096)
      ptx.wgmma.fence.sync.aligned()
      env.wgmma = here() + 1
      ptx.op "wgmma.mma_async.sync.aligned.m64n64k16.f32.bf16.bf16" (acc, da, db, p, 1, 1, 0, 0)
      ptx.wgmma.commit_group.sync.aligned()
      after(ptx, env)
      ptx.op "barrier.cluster.arrive.release.aligned" ()
      ptx.op "barrier.cluster.wait.acquire.aligned" ()
    end }
end

local function run(k, seed)
  local dev = rt.device("emu")
  local ta, tb = maps(dev, seed)
  return pcall(rt.launch, k, { device = dev, args = { ta, tb } })
end

describe("the wgmma operand check across the CTAs of a cluster", function()
  -- CTA 0 issues its wgmmas, passes a cluster barrier and waits on its bar1 before (bad) or after
  -- (good) its wgmma.wait_group; CTA 1, past the same cluster barrier, writes the first 128 bytes of
  -- CTA 0's A (row 0, which CTA 0's warp 0 reads) through shared::cluster, then arrives on CTA 0's
  -- bar1 remotely. In the bad program CTA 0's tensor cores may still be reading A.
  local forms = {                                 -- each notes its line in at.write
    st = function(p, a, at)
      at.write = here() + 1
      p.op "st.shared::cluster.u32" (p.addr(a), 0x3f803f80)
    end,
    red = function(p, a, at)
      at.write = here() + 1
      p.op "red.shared::cluster.add.u32" (p.addr(a), 0x00010001)
    end,
    atom = function(p, a, at)
      local d = p.reg.u32()
      at.write = here() + 1
      p.op "atom.shared::cluster.or.b32" (d, p.addr(a), 0x00400040)
    end,
  }
  local function kernel(ptx, form, early)
    local at = {}
    local k = cluster_kernel(ptx, form .. (early and "_early" or "_late"), {}, function(p, env)
      p.if_(env.rank:eq(0), function()
        if not early then p.wgmma.wait_group.sync.aligned(0) end
        p.op "barrier.cluster.arrive.release.aligned" ()
        p.op "barrier.cluster.wait.acquire.aligned" ()
        p.mbarrier_wait(env.bar(1), 0)
        if early then p.wgmma.wait_group.sync.aligned(0) end
      end, function()
        p.wgmma.wait_group.sync.aligned(0)
        p.op "barrier.cluster.arrive.release.aligned" ()
        p.op "barrier.cluster.wait.acquire.aligned" ()
        p.if_(env.warp:eq(1), function()
          local dst = env.remote(env.sA.offset, 0)
          local o = p.reg.u32()
          p.mad.lo.u32(o, env.tid:band(31), 4, dst)
          forms[form](p, o, at)
          p.if_(env.tid:eq(32), function()
            p.op "mbarrier.arrive.release.cluster.shared::cluster.b64" (p._, p.addr(env.remote(env.bar_off(1), 0)))
          end)
        end)
      end)
      at.wgmma = env.wgmma
    end)
    return k, at
  end

  it("flags a st, red or atom through shared::cluster into another CTA's wgmma operand before its wait_group", function()
    local ops = { st = "st.shared::cluster.u32", red = "red.shared::cluster.add.u32", atom = "atom.shared::cluster.or.b32" }
    for _, form in ipairs { "st", "red", "atom" } do
      local ptx = H.fresh()
      local k, at = kernel(ptx, form, true)
      assembles(ptx)
      local ok, err = run(k, 3)
      assert.is_false(ok, form)
      assert.matches(fmt(":%d: error: %s by thread (32,0,0) of CTA (1,0,0) writes shared byte 0x", at.write, ops[form]), err, 1, true)
      assert.matches(fmt(" of CTA (0,0,0), which the wgmma.mma_async of line %d (warp 0) reads: no wgmma.wait_group has covered that wgmma yet",
                         at.wgmma), err, 1, true)
    end
  end)

  it("accepts the same writes once the other CTA's wait_group retired its wgmma", function()
    for _, form in ipairs { "st", "red", "atom" } do
      local ptx = H.fresh()
      local k = kernel(ptx, form, false)
      assembles(ptx)
      local ok, err = run(k, 3)
      assert(ok, err)
    end
  end)

  -- bar1 of CTA 0 takes one arrival from each warp of both CTAs (remote ones through mapa), after
  -- its wgmma.wait_group -- except, in the bad program, CTA 1's warp 0, which arrives before it.
  -- CTA 0's warp 1 waits for that phase and multicasts a TMA load of B into A of both CTAs
  -- (completing on bar2 of each, announced by each CTA's thread 0), then waits on bar3, whose phase
  -- CTA 1's warp 0 completes with a second arrive after its wait_group: once that wait is over,
  -- warp 1 is ordered after CTA 1's wgmma, but the copy was issued before and may land while CTA
  -- 1's tensor cores still read A. Reported at the copy's issue.
  for _, early in ipairs { true, false } do
    it(early and "flags a multicast TMA load issued after another CTA's early release, at its issue"
             or "accepts the multicast TMA load when every warp released after its wait_group", function()
      local ptx = H.fresh()
      local at = {}
      local k = cluster_kernel(ptx, early and "mc_early" or "mc_late", { [1] = 8 }, function(p, env)
        at.wgmma = env.wgmma
        p.if_(env.tid:eq(0), function()
          p.op "mbarrier.arrive.expect_tx.shared::cta.b64" (p._, env.bar(2), 64 * 128)
        end)
        local function release(i)
          p.if_(env.tid:band(31):eq(0), function()
            if i == 1 then at.arrive = here() + 1 end
            p.op "mbarrier.arrive.release.cluster.shared::cluster.b64" (p._, p.addr(env.remote(env.bar_off(i), 0)))
          end)
        end
        local function good() p.wgmma.wait_group.sync.aligned(0); release(1) end
        if early then                                   -- CTA 1's warp 0 arrives before its wait_group
          p.if_(env.rank:eq(1):and_(env.warp:eq(0)), function() release(1); p.wgmma.wait_group.sync.aligned(0) end, good)
        else good() end
        p.if_(env.rank:eq(1):and_(env.warp:eq(0)), function() release(3) end)
        p.if_(env.rank:eq(0):and_(env.warp:eq(1)), function()
          p.mbarrier_wait(env.bar(1), 0)
          p.if_(env.tid:eq(32), function()
            local z, mask = p.reg.b32(), p.reg.u16()
            p.mov.b32(z, 0)
            p.mov.u16(mask, 3)
            local mc = p.op "cp.async.bulk.tensor.2d.shared::cluster.global.tile.mbarrier::complete_tx::bytes.multicast::cluster"
            at.copy = here() + 1
            mc(env.sA:addr(0), p.taddr(env.bdesc, { z, z }), env.bar(2), mask)
          end)
          p.mbarrier_wait(env.bar(3), 0)
        end)
        p.mbarrier_wait(env.bar(2), 0)
      end)
      assembles(ptx)
      local ok, err = run(k, 4)
      if not early then assert(ok, err); return end
      assert.is_false(ok)
      assert.matches(fmt(":%d: error: cp.async.bulk.tensor.2d.shared::cluster.global.tile.mbarrier::complete_tx::bytes.multicast::cluster writes shared byte 0x",
                         at.copy), err, 1, true)
      assert.matches(fmt(" of CTA (1,0,0), which the wgmma.mma_async of line %d (warp 0) reads: stage released at line %d before wgmma.wait_group",
                         at.wgmma, at.arrive), err, 1, true)
    end)
  end
end)

describe("the early-release check with two CTAs arriving on one mbarrier", function()
  -- bar1 of CTA 0 takes 2 arrivals: warp 0 of each CTA, CTA 1's through mapa. CTA 0's warp 0 arrives
  -- after its wait_group; CTA 1's before (bad) or after (good). CTA 0's warp 1 waits for the phase,
  -- then bulk-copies 128 bytes of its B into row 0 of CTA 1's A, completing on CTA 1's bar2.
  for _, early in ipairs { true, false } do
    it(early and "reports the write into CTA 1's stage that only CTA 1's warp 0 released early, naming CTA 1"
             or "accepts it when both CTAs' warps 0 release after their wait_group", function()
      local ptx = H.fresh()
      local at = {}
      local k = cluster_kernel(ptx, early and "two_early" or "two_late", { [1] = 2 }, function(p, env)
        p.if_(env.rank:eq(1):and_(env.tid:eq(0)), function()
          p.op "mbarrier.arrive.expect_tx.shared::cta.b64" (p._, env.bar(2), 128)
        end)
        local function release()
          p.if_(env.tid:eq(0), function()
            at.arrive = here() + 1
            p.op "mbarrier.arrive.release.cluster.shared::cluster.b64" (p._, p.addr(env.remote(env.bar_off(1), 0)))
          end)
        end
        p.if_(env.warp:eq(0), function()
          if early then
            p.if_(env.rank:eq(1), function() release(); p.wgmma.wait_group.sync.aligned(0) end,
                                  function() p.wgmma.wait_group.sync.aligned(0); release() end)
          else
            p.wgmma.wait_group.sync.aligned(0); release()
          end
        end, function()
          p.wgmma.wait_group.sync.aligned(0)
        end)
        p.if_(env.rank:eq(0):and_(env.warp:eq(1)), function()
          p.mbarrier_wait(env.bar(1), 0)
          p.if_(env.tid:eq(32), function()
            local dst, mbar = env.remote(env.sA.offset, 1), env.remote(env.bar_off(2), 1)
            local src = p.reg.u32()
            p.add.u32(src, env.base, env.sB.offset)
            at.copy = here() + 1
            p.op "cp.async.bulk.shared::cluster.shared::cta.mbarrier::complete_tx::bytes" (p.addr(dst), p.addr(src), 128, p.addr(mbar))
          end)
        end)
        p.if_(env.rank:eq(1), function() p.mbarrier_wait(env.bar(2), 0) end)
      end)
      assembles(ptx)
      local ok, err = run(k, 5)
      if not early then assert(ok, err); return end
      assert.is_false(ok)
      assert.matches(fmt(":%d: error: cp.async.bulk.shared::cluster.shared::cta.mbarrier::complete_tx::bytes writes shared byte 0x", at.copy), err, 1, true)
      assert.matches("of CTA (1,0,0), which the wgmma.mma_async of line", err, 1, true)
      assert.matches(fmt("(warp 0) reads: stage released at line %d before wgmma.wait_group covers", at.arrive), err, 1, true)
    end)
  end
end)

describe("the proxy check on stores into another CTA's shared memory", function()
  -- a 2-CTA cluster: past a cluster barrier every thread of CTA 1 writes 8 words of CTA 0's 4 KB
  -- tile with st.shared::cluster (through mapa), runs opts.fence (if any), and both CTAs pass a
  -- second cluster barrier; then thread 0 of CTA 0 (after opts.rfence, if any) TMA-stores the tile
  -- to global memory and waits for it. The async proxy reads what another CTA's generic proxy wrote:
  -- the writer's fence.proxy.async (no space or .shared::cluster) before the barrier orders it.
  local N = 1024                                          -- u32 words of the tile, 64 x 16
  local function kernel(ptx, name, opts, lines)
    return ptx.kernel { name = name, target = "sm_90a", grid = { 2 }, block = { 128 }, cluster = { 2 },
      params = { { "tm", "tensormap" } },
      body = function(_, tm)
        local plan = ptx.smem_plan()
        local tile = plan:alloc("tile", "u32", N, { align = 128 })
        local desc = ptx.reg.u64()
        ptx.op "cvta.param.u64" (desc, tm)
        local tid = ptx.special "tid.x"
        local rank = ptx.special "cluster_ctarank"
        local sa, peer = ptx.reg.u32(), ptx.reg.u32()
        ptx.mov.u32(sa, ptx.sym "smem")
        ptx.add.u32(sa, sa, tile.offset)
        ptx.op "barrier.cluster.arrive.release.aligned" ()
        ptx.op "barrier.cluster.wait.acquire.aligned" ()
        ptx.if_(rank:eq(1), function()
          ptx.op "mapa.shared::cluster.u32" (peer, sa, 0)
          for i = 0, N / 128 - 1 do
            local idx = tid + i * 128
            if i == 0 then lines.write = here() + 1 end
            ptx.op "st.shared::cluster.u32" (ptx.addr(peer + idx:shl(2)), idx:mad(2654435761, 17))
          end
          if opts.fence then ptx.op(opts.fence) () end
        end)
        ptx.op "barrier.cluster.arrive.release.aligned" ()
        ptx.op "barrier.cluster.wait.acquire.aligned" ()
        ptx.if_(rank:eq(0):and_(tid:eq(0)), function()
          if opts.rfence then ptx.op(opts.rfence) () end
          local z = ptx.reg.b32()
          ptx.mov.b32(z, 0)
          lines.store = here() + 1
          ptx.op "cp.async.bulk.tensor.2d.global.shared::cta.tile.bulk_group" (ptx.taddr(desc, { z, z }), ptx.addr(sa))
          ptx.op "cp.async.bulk.commit_group" ()
          ptx.op "cp.async.bulk.wait_group" (0)
        end)
      end }
  end

  local function run(name, opts)
    local ptx = H.fresh()
    local lines = {}
    local k = kernel(ptx, name, opts, lines)
    assembles(ptx)
    local dev = rt.device("emu")
    local out = dev:array("u32", N, 0)
    local tm = dev:tensormap(out, { dims = { 64, N / 64 }, box = { 64, N / 64 } })
    local ok, err = pcall(rt.launch, k, { device = dev, args = { tm } })
    return ok, err, lines, out
  end

  local function reported(name, opts)
    local ok, err, lines = run(name, opts)
    assert.is_false(ok, name)
    assert.matches(fmt(":%d: error: cp.async.bulk.tensor.2d.global.shared::cta.tile.bulk_group", lines.store), err, 1, true)
    assert.matches("tile.bulk_group reads shared byte 0x0 of CTA (0,0,0), written by thread (0,0,0) of CTA (1,0,0) with an ordinary store through shared::cluster and no fence.proxy.async", err, 1, true)
  end

  it("flags a TMA store of a tile another CTA wrote with st.shared::cluster and no fence.proxy.async, at the store", function()
    reported("dsm_nofence", {})
  end)

  it("flags it when the writer's fence is .shared::cta (its own CTA only) or only the reader fences", function()
    reported("dsm_ctafence", { fence = "fence.proxy.async.shared::cta" })
    reported("dsm_rfence", { rfence = "fence.proxy.async" })
  end)

  it("accepts it with the writer's fence.proxy.async (or .shared::cluster) before the cluster barrier, and stores what was written", function()
    for _, f in ipairs { "fence.proxy.async", "fence.proxy.async.shared::cluster" } do
      local ok, err, _, out = run("dsm_fence", { fence = f })
      assert(ok, err)
      local o, bad = out:read(), 0
      for i = 1, N do if o[i] ~= ((i - 1) * 2654435761 + 17) % 2 ^ 32 then bad = bad + 1 end end
      assert.equals(0, bad, f)
    end
  end)
end)

describe("the bulk-group checks on TMA im2col stores", function()
  -- an NWC tensor of C = 16 u32 channels, W = 64, N = 2; the im2col map walks 64 pixels of 16
  -- channels from {c, w, n} = {0, 0, 1}: all of image 1. Every thread fills the 4 KB tile with
  -- ordinary stores and fences; thread 0 stores it (or add-reduces it) through the map, commits and
  -- waits per opts.wait; after a CTA barrier every thread reads image 1 back (or overwrites the tile)
  local C, W, NI = 16, 64, 2
  local PIX = C * W                                       -- elements of one image, and of the tile
  local function kernel(ptx, name, opts, lines)
    return ptx.kernel { name = name, target = "sm_90a", grid = { 1 }, block = { 128 },
      params = { { "img", "u32*" }, { "back", "u32*" }, { "tm", "tensormap" } },
      body = function(_, img, back, tm)
        local plan = ptx.smem_plan()
        local tile = plan:alloc("tile", "u32", PIX, { align = 128 })
        local pi, pb = ptx.global_ptrs(img, back)
        local desc = ptx.reg.u64()
        ptx.op "cvta.param.u64" (desc, tm)
        local tid = ptx.special "tid.x"
        local sa = ptx.reg.u32()
        ptx.mov.u32(sa, ptx.sym "smem")
        for i = 0, PIX / 128 - 1 do
          local idx = tid + i * 128
          ptx.st.shared.u32(ptx.addr(sa + tile.offset + idx:shl(2)), idx:mad(2654435761, 17))
        end
        ptx.op "fence.proxy.async.shared::cta" ()
        ptx.bar.sync(0)
        ptx.if_(tid:eq(0), function()
          local z, one = ptx.reg.b32(), ptx.reg.b32()
          ptx.mov.b32(z, 0)
          ptx.mov.b32(one, 1)
          local op = opts.reduce and ptx.op "cp.reduce.async.bulk.tensor.3d.global.shared::cta.add.im2col_no_offs.bulk_group"
                                  or ptx.op "cp.async.bulk.tensor.3d.global.shared::cta.im2col_no_offs.bulk_group"
          lines.store = here() + 1
          op(ptx.taddr(desc, { z, z, one }), tile:addr(0))
          ptx.op "cp.async.bulk.commit_group" ()
          if opts.wait == "read" then ptx.op "cp.async.bulk.wait_group.read" (0)
          elseif opts.wait == "full" then ptx.op "cp.async.bulk.wait_group" (0) end
        end)
        ptx.bar.sync(0)
        for i = 0, PIX / 128 - 1 do
          local idx = tid + i * 128
          if opts.overwrite then
            if i == 0 then lines.use = here() + 1 end
            ptx.st.shared.u32(ptx.addr(sa + tile.offset + idx:shl(2)), 0)
          else
            local v = ptx.reg.u32()
            if i == 0 then lines.use = here() + 1 end
            ptx.ld.global.u32(v, ptx.addr(pi + (idx + PIX):mul_wide(4)))
            ptx.st.global.u32(ptx.addr(pb + idx:mul_wide(4)), v)
          end
        end
      end }
  end

  local function run(opts)
    local ptx = H.fresh()
    local lines = {}
    local k = kernel(ptx, "i2c_bg", opts, lines)
    assembles(ptx)
    local dev = rt.device("emu")
    local img = dev:array("u32", PIX * NI, function(i) return i * 7 end)
    local back = dev:array("u32", PIX, 0)
    local tm = dev:tensormap(img, { mode = "im2col", dtype = "u32", dims = { C, W, NI }, pixels_per_column = W })
    local ok, err = pcall(rt.launch, k, { device = dev, args = { img, back, tm } })
    return ok, err, lines, img, back
  end

  -- element i (1-based) of image 1 after the store or the reduction
  local function want(i, reduce)
    local v = ((i - 1) * 2654435761 + 17) % 2 ^ 32
    return reduce and (v + (PIX + i) * 7) % 2 ^ 32 or v
  end

  it("reads back what an im2col store or reduction wrote once wait_group (without .read) covered it", function()
    for _, reduce in ipairs { false, true } do
      local ok, err, _, img, back = run { wait = "full", reduce = reduce }
      assert(ok, err)
      local o, b, bad = img:read(), back:read(), 0
      for i = 1, PIX do if o[PIX + i] ~= want(i, reduce) or b[i] ~= want(i, reduce) or o[i] ~= i * 7 then bad = bad + 1 end end
      assert.are.equal(0, bad, reduce and "reduction" or "store")
    end
  end)

  it("flags an ld.global of an im2col store's pixels waited for with wait_group.read only, at the load", function()
    for _, reduce in ipairs { false, true } do
      local ok, err, lines = run { wait = "read", reduce = reduce }
      assert.is_false(ok, reduce and "reduction" or "store")
      assert.matches(fmt(":%d: error: ld.global.u32 by thread %%(%%d+,0,0%%) of CTA %%(0,0,0%%) reads global address 0x", lines.use), err)
      assert.matches(fmt("of line %d (by thread (0,0,0) of CTA (0,0,0)) may still be writing: its bulk group was waited for with cp.async.bulk.wait_group.read only",
                         lines.store), err, 1, true)
    end
  end)

  it("flags an st.shared over an im2col store's source before any wait_group, and allows it after wait_group.read", function()
    for _, reduce in ipairs { false, true } do
      local ok, err, lines = run { overwrite = true, reduce = reduce }
      assert.is_false(ok, reduce and "reduction" or "store")
      assert.matches(fmt(":%d: error: st.shared.u32 by thread %%(%%d+,0,0%%) of CTA %%(0,0,0%%) writes shared byte 0x", lines.use), err)
      assert.matches(fmt("of line %d (by thread (0,0,0) of CTA (0,0,0)) may still be reading: no cp.async.bulk.wait_group", lines.store), err, 1, true)
      local ok2, err2, _, img = run { overwrite = true, reduce = reduce, wait = "read" }
      assert(ok2, err2)
      assert.are.equal(want(PIX, reduce), img:get(2 * PIX))
    end
  end)
end)
