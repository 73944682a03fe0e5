-- emu_clusters_spec.lua -- thread-block clusters in the emulator: %cluster_ctarank, mapa and
-- shared::cluster accesses, barrier.cluster; an access to the shared memory of a CTA that exited;
-- the checks across the CTAs of a cluster (wgmma operands, early release, the proxy check).

local H = require "helper"
local rt = require "ptxlua.emu"
local bit = require "bit"

local fmt = string.format

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

-- ------------------------------------------------------------------------------------------------
-- an access to the shared memory of a CTA of the cluster that has exited.
-- A CTA's shared memory is gone once every thread of it has exited, so a kernel whose CTAs touch
-- each other's shared memory (distributed shared memory) must keep every CTA alive until the
-- others are done with it: the usual end is a barrier.cluster.arrive / barrier.cluster.wait. Without
-- it the access is undefined behaviour, so the emulator reports it always (no checks needed), at
-- the access's line, naming the accessing thread, the CTA that exited and the fix:
--   * the access comes after the CTA exited (here: the accessing CTA waits at one more cluster
--     barrier, which completes without the exited CTA): "which has exited";
--   * the access comes first, and the CTA then exits with nothing ordering the two (no
--     barrier.cluster completed between them, no mbarrier wait of that CTA after it): "which then
--     exited with nothing ordering the access before its exit".
-- Each path that reads or writes another CTA's shared memory: st, ld, atom and red through a
-- shared::cluster address (mapa), a remote mbarrier arrive, a bulk copy into the other CTA
-- (cp.async.bulk.shared::cluster.shared::cta) and a multicast bulk copy (.multicast::cluster). The
-- correct twin of each (the final cluster barrier, CTA 0 waiting for the copies it is sent) runs
-- clean, and gives the values the access wrote.

local dev = rt.device("emu")
local function here() return debug.getinfo(2, "l").currentline end
local THIS = debug.getinfo(1, "S").source:sub(2)
local function launch(k, opts) return H.emu_launch(dev, k, opts) end
local function expect(err, line, ...) return H.expect_error(err, THIS, line, ...) end

-- a cluster of 2 CTAs of 32 threads: CTA 0's thread 0 writes 42 to buf[0] and 5 to buf[1], and each
-- CTA's thread 0 initializes its mbarrier; a cluster barrier. Without `final`, CTA 0 then exits; with
-- `early` the threads of CTA 1 wait at one more cluster barrier (CTA 0 exits meanwhile). Thread 0 of
-- CTA 1 then accesses CTA 0's buf (or mbarrier) by `path` (line lines.access). With `final`, CTA 0
-- stays (it takes part in the extra barrier, waits for the bytes a copy sends it) until the final
-- cluster barrier, and then stores its buf[0] to out[0]; CTA 1 stores what it loaded to out[1].
local function kernel(path, final, early, lines)
  local ptx = H.fresh()
  local k = ptx.kernel { name = "peer", target = "sm_90a", cluster = { 2 }, grid = { 2 }, block = { 32 },
    params = { { "src", "u32*" }, { "out", "u32*" } },
    body = function(_, src, out)
      local plan = ptx.smem_plan()
      local buf = plan:alloc("buf", "u32", 32, { align = 128 })
      local bar = plan:alloc("bar", "b64", 1, { align = 8 })
      local ps, po = ptx.global_ptrs(src, out)
      local tid, rank = ptx.special "tid.x", ptx.special "cluster_ctarank"
      local s, rbuf, rbar = ptx.reg.u32(), ptx.reg.u32(), ptx.reg.u32()
      ptx.mov.u32(s, ptx.sym "smem")
      ptx.op "mapa.shared::cluster.u32" (rbuf, s + buf.offset, 0)
      ptx.op "mapa.shared::cluster.u32" (rbar, s + bar.offset, 0)
      local copy = path == "bulk" or path == "multicast"
      ptx.if_(tid:eq(0), function()
        ptx.op "mbarrier.init.shared::cta.b64" (bar:addr(0), 1)
        ptx.if_(rank:eq(0), function()
          ptx.st.shared.u32(ptx.addr(s + buf.offset), 42)
          ptx.st.shared.u32(ptx.addr(s + buf.offset + 4), 5)
        end)
        ptx.if_(rank:eq(1), function() ptx.st.shared.u32(ptx.addr(s + buf.offset), 9) end)
        ptx.op "fence.proxy.async.shared::cta" ()
      end)
      ptx.op "fence.mbarrier_init.release.cluster" ()
      local function cbar()
        ptx.op "barrier.cluster.arrive.release.aligned" ()
        ptx.op "barrier.cluster.wait.acquire.aligned" ()
      end
      cbar()
      if not final then ptx.if_(rank:eq(0), function() ptx.exit() end) end
      if early then cbar() end
      -- a copy's receivers announce its bytes, and wait for them (CTA 0 only when it stays)
      local function receive(who)
        ptx.if_(who:and_(tid:eq(0)), function()
          ptx.op "mbarrier.arrive.expect_tx.shared::cta.b64" (ptx._, bar:addr(0), 16)
        end)
        ptx.if_(who, function() ptx.mbarrier_wait(bar, 0) end)
      end
      ptx.if_(rank:eq(1):and_(tid:eq(0)), function()
        local v = ptx.reg.u32()
        ptx.mov.u32(v, 0)
        if path == "st" then
          lines.access = here() + 1
          ptx.st.shared__cluster.u32(ptx.addr(rbuf), 7)
        elseif path == "ld" then
          lines.access = here() + 1
          ptx.ld.shared__cluster.u32(v, ptx.addr(rbuf + 4))
        elseif path == "atom" then
          lines.access = here() + 1
          ptx.op "atom.shared::cluster.add.u32" (v, ptx.addr(rbuf), 1)
        elseif path == "red" then
          lines.access = here() + 1
          ptx.op "red.shared::cluster.add.u32" (ptx.addr(rbuf), 3)
        elseif path == "arrive" then
          lines.access = here() + 1
          ptx.op "mbarrier.arrive.release.cluster.shared::cluster.b64" (ptx._, ptx.addr(rbar))
        elseif path == "bulk" then                        -- CTA 1's buf[0..3] into CTA 0's
          lines.access = here() + 1
          ptx.op "cp.async.bulk.shared::cluster.shared::cta.mbarrier::complete_tx::bytes" (ptx.addr(rbuf), buf:addr(0), 16, ptx.addr(rbar))
        elseif path == "multicast" then                   -- src[0..3] into buf of both CTAs
          local g = ptx.reg.u64()
          ptx.mov.u64(g, ps)
          lines.access = here() + 1
          ptx.op "cp.async.bulk.shared::cluster.global.mbarrier::complete_tx::bytes.multicast::cluster" (buf:addr(0), ptx.addr(g), 16, bar:addr(0), 3)
        end
        ptx.st.global.u32(ptx.addr(po + 4), v)
      end)
      if path == "multicast" then receive(rank:eq(1)) end
      if final then
        if path == "arrive" then ptx.if_(rank:eq(0), function() ptx.mbarrier_wait(bar, 0) end) end
        if copy then receive(rank:eq(0)) end
        cbar()
        ptx.if_(rank:eq(0):and_(tid:eq(0)), function()
          local w = ptx.reg.u32()
          ptx.ld.shared.u32(w, ptx.addr(s + buf.offset))
          ptx.st.global.u32(ptx.addr(po), w)
        end)
      end
    end }
  H.assembles(ptx)
  return k
end

-- out[0] (CTA 0's buf[0] at its end) and out[1] (what CTA 1 loaded) of each correct twin
local WANT = { st = { 7, 0 }, ld = { 42, 5 }, atom = { 43, 42 }, red = { 45, 0 }, arrive = { 42, 0 }, bulk = { 9, 0 }, multicast = { 1234, 0 } }
local OP = {
  st = "st.shared::cluster.u32", ld = "ld.shared::cluster.u32", atom = "atom.shared::cluster.add.u32",
  red = "red.shared::cluster.add.u32", arrive = "mbarrier.arrive.release.cluster.shared::cluster.b64",
  bulk = "cp.async.bulk.shared::cluster.shared::cta.mbarrier::complete_tx::bytes",
  multicast = "cp.async.bulk.shared::cluster.global.mbarrier::complete_tx::bytes.multicast::cluster",
}
local DOES = { st = "writes", ld = "reads", atom = "updates", red = "updates", arrive = "uses the mbarrier at", bulk = "copies into",
               multicast = "copies into" }
local PATHS = { "st", "ld", "atom", "red", "arrive", "bulk", "multicast" }
local FIX = "end the kernel with barrier.cluster.arrive and barrier.cluster.wait in every CTA of the cluster"

local function run(k, checks)
  local src, out = dev:array("u32", 4, { 1234, 1, 2, 3 }, "src"), dev:array("u32", 2, 0, "out")
  local err = launch(k, { args = { src, out }, checks = checks })
  local got = out:read()
  src:free(); out:free()
  return err, got
end

describe("an access to the shared memory of a CTA of the cluster that exited", function()
  it("is reported at the access when the CTA exited before it, on every path, with or without checks", function()
    for _, path in ipairs(PATHS) do
      local lines = {}
      local k = kernel(path, false, true, lines)
      for _, checks in ipairs { {}, { races = true, uninit_shared = true } } do
        local err = run(k, checks)
        expect(err, lines.access, OP[path] .. " by thread (0,0,0) of CTA (1,0,0) " .. DOES[path] .. " shared 0x",
               " of CTA (0,0,0), which has exited (every thread of it)", FIX)
      end
    end
  end)

  it("is reported at the access when the CTA exits after it with nothing ordering the two", function()
    for _, path in ipairs(PATHS) do
      local lines = {}
      local err = run(kernel(path, false, false, lines))
      expect(err, lines.access, OP[path] .. " by thread (0,0,0) of CTA (1,0,0) " .. DOES[path] .. " shared 0x",
             " of CTA (0,0,0), which then exited with nothing ordering the access before its exit", FIX)
    end
  end)

  it("is not reported with the final cluster barrier: every path runs clean, with the values it wrote", function()
    for _, path in ipairs(PATHS) do
      for _, early in ipairs { false, true } do
        for _, checks in ipairs { {}, { races = true, uninit_shared = true } } do
          local err, got = run(kernel(path, true, early, {}), checks)
          assert.is_nil(err, path)
          assert.are.same(WANT[path], got, path)
        end
      end
    end
  end)
end)

local K = require "kcheck"
local assembles = H.assembles

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

-- (this run, of cluster_kernel with its maps, is the one the blocks below call)
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
