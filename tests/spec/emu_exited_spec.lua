-- emu_exited_spec.lua -- an access to the shared memory of a CTA of the cluster that has exited.
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
local H = require "helper"
local rt = require "ptxlua.emu"

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
