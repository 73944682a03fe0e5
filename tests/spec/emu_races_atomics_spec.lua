-- emu_races_atomics_spec.lua -- the races check (checks = { races = true }) on atomics against plain
-- accesses. The PTX memory model makes two conflicting accesses a data race unless they are ordered
-- or both morally strong; a plain ld/st is never strong, so an atomic (atom, red, and the async
-- proxy's cp.reduce.async.bulk) races with a plain access of the same byte that nothing orders.
-- Atomics among themselves, and atomics with strong accesses (.relaxed, .acquire, .volatile at a
-- scope covering both threads), never race. The emulator runs CTAs one cluster after another and a
-- CTA's warps one after another, so each buggy kernel below gives the expected values here: only the
-- check shows the bug. Small hand-written kernels, each assembled by ptxas first:
--   global memory, across CTAs: a counter CTA 0 increments, read by the other CTAs with a plain load
--   (reported at the load, naming both threads and the atomic's line), with strong loads or after a
--   fence (clean), with a .cta-scoped strong load (reported: the scope does not cover CTA 0); a plain
--   store resetting a counter the other CTAs then increment (reported at the first atomic after it),
--   the same reset with a strong store, or by the last CTA after the ticket (clean); histogram bins
--   read while later CTAs still add to them (reported at the later CTA's red, naming the read's line),
--   and read by the last CTA after the ticket (clean); a bulk reduction (cp.reduce.async.bulk) read by
--   another CTA with a plain load (reported) and a strong one (clean);
--   global memory, across the warps of one CTA: an atomic and a plain load with no bar.sync between
--   (reported), and with one (clean);
--   shared memory: a counter one warp updates atomically and another reads (reported; clean with a
--   barrier, ld.volatile or ld.relaxed.cta); histogram bins read before another warp's atomics
--   (reported at the atomic), a plain store zeroing them before another warp's atomics (reported),
--   with bar.sync, or a volatile store (clean); through shared::cluster, another CTA's atomics on a
--   counter its own CTA reads with no barrier.cluster between (reported), and with one (clean);
--   the CAS loop's seed load (PTX as nvcc writes it, kept verbatim): the f64 max (atom.global.cas.b64)
--   and f32 add (atom.cas.b32, generic) loops over 4 CTAs of 3 warps (clean, exact results); a plain
--   load of a counter others add to atomically, seeding a CAS of it (clean) or stored, compared,
--   returned from a .func, seeding a CAS of another word, or followed by a barrier before its CAS
--   (reported at the load); the same in shared memory (f32 add and counter CAS loops clean, a stored
--   load reported).
local H = require "helper"
local rt = require "ptxlua.emu"
local ffi = require "ffi"

local fmt = string.format
local dev = rt.device("emu")
local assembles = H.assembles
local RACES = { races = true }

local function here() return debug.getinfo(2, "l").currentline end
local THIS = debug.getinfo(1, "S").source:sub(2)

-- the launch's error (nil when it runs cleanly), and the error at THIS:line holding each string
local function launch(k, opts) return H.emu_launch(dev, k, opts) end
local function expect(err, line, ...) return H.expect_error(err, THIS, line, ...) end

local function fill(n, v) local t = {} for i = 1, n do t[i] = v end return t end

describe("the races check: atomics and plain accesses of global memory across CTAs", function()
  -- 4 CTAs of 32 threads: CTA 0's threads each add 1 to cnt; the other CTAs' threads read cnt with
  -- `load` (after `pre`, an instruction or nil) and store it to out[cta * 32 + tid]
  local function poll(load, pre, lines)
    local ptx = H.fresh()
    local k = ptx.kernel { name = "poll", grid = { 4 }, block = { 32 }, params = { { "cnt", "u32*" }, { "out", "u32*" } },
      body = function(_, cnt, out)
        local pc, po = ptx.global_ptrs(cnt, out)
        local tid, cta = ptx.special "tid.x", ptx.special "ctaid.x"
        ptx.if_(cta:eq(0), function()
          local old = ptx.reg.u32()
          lines.atom = here() + 1
          ptx.atom.global.add.u32(old, ptx.addr(pc), 1)
        end, function()
          if pre then ptx.op(pre)() end
          local v = ptx.reg.u32()
          lines.load = here() + 1
          ptx.op(load)(v, ptx.addr(pc))
          ptx.st.global.u32(ptx.addr(po + cta:mad(32, tid):mul_wide(4)), v)
        end)
      end }
    assembles(ptx)
    return k
  end

  local function run_poll(k)
    local cnt, out = dev:array("u32", 1, 0, "cnt"), dev:array("u32", 128, nil, "out"):poison()
    local err = launch(k, { args = { cnt, out }, checks = RACES })
    local got = not err and out:read()
    local c = cnt:read()[1]
    cnt:free(); out:free()
    return err, got, c
  end

  it("reports a counter another CTA increments read with a plain load, at the load, naming the atomic's line", function()
    for _, load in ipairs { "ld.global.u32", "ld.u32", "ld.relaxed.cta.global.u32", "ld.weak.global.u32" } do
      local lines = {}
      local err = run_poll(poll(load, nil, lines))
      expect(err, lines.load, "global-memory race on byte 0 of buffer 'cnt'",
             load .. " by thread (0,0,0) of CTA (1,0,0) reads it after thread (31,0,0) of CTA (0,0,0) updated it atomically (line " .. lines.atom .. ")",
             "two CTAs of other clusters run in any order (a fence, atomic or strong access by the second CTA before its access orders it after the atomic")
    end
    -- without the check it runs, and every reader sees the whole count (here; on a GPU, any value)
    local k = poll("ld.global.u32", nil, {})
    local cnt, out = dev:array("u32", 1, 0, "cnt"), dev:array("u32", 128, nil, "out"):poison()
    assert.is_nil(launch(k, { args = { cnt, out } }))
    local got = out:read()
    for i = 33, 128 do assert.are.equal(32, got[i]) end
    cnt:free(); out:free()
  end)

  it("takes strong loads (.relaxed.gpu, .acquire.gpu, .volatile), or a fence before a plain one, as ordered", function()
    for _, c in ipairs { { "ld.relaxed.gpu.global.u32" }, { "ld.acquire.gpu.global.u32" }, { "ld.volatile.global.u32" },
                         { "ld.relaxed.sys.u32" }, { "ld.global.u32", "fence.acq_rel.gpu" }, { "ld.global.u32", "membar.gl" } } do
      local err, got, n = run_poll(poll(c[1], c[2], {}))
      assert.is_nil(err, c[1])
      assert.are.equal(32, n)
      for i = 33, 128 do assert.are.equal(32, got[i], c[1]) end
    end
  end)

  -- 4 CTAs of 32 threads; `reset`: thread 0 of CTA 0 stores 0 to cnt (with `store`) before every
  -- thread adds 1; `last`: every CTA's thread 0 takes a ticket, and the last CTA's resets cnt
  local function counter(mode, store, lines)
    local ptx = H.fresh()
    local k = ptx.kernel { name = "counter", grid = { 4 }, block = { 32 }, params = { { "cnt", "u32*" }, { "ticket", "u32*" } },
      body = function(_, cnt, ticket)
        local pc, pt = ptx.global_ptrs(cnt, ticket)
        local tid, cta, n = ptx.special "tid.x", ptx.special "ctaid.x", ptx.special "nctaid.x"
        if mode == "reset" then
          lines.store = here() + 1
          ptx.at(tid:eq(0):and_(cta:eq(0))).op(store)(ptx.addr(pc), 0)
        end
        lines.red = here() + 1
        ptx.red.global.add.u32(ptx.addr(pc), 1)
        if mode == "last" then
          local old, last = ptx.reg.u32(), ptx.reg.pred()
          ptx.membar.gl()
          ptx.at(tid:eq(0)).atom.global.add.u32(old, ptx.addr(pt), 1)
          ptx.setp.eq.u32(last, old, n - 1)
          ptx.at(last:and_(tid:eq(0))).st.global.u32(ptx.addr(pc), 0)
        end
      end }
    assembles(ptx)
    return k
  end

  it("reports a plain store resetting a counter other CTAs update atomically, at the first atomic after it", function()
    local lines = {}
    local k = counter("reset", "st.global.u32", lines)
    local cnt, ticket = dev:array("u32", 1, 7, "cnt"), dev:array("u32", 1, 0, "ticket")
    local err = launch(k, { args = { cnt, ticket }, checks = RACES })
    expect(err, lines.red, "global-memory race on byte 0 of buffer 'cnt'",
           "red.global.add.u32 by thread (0,0,0) of CTA (1,0,0) updates it atomically after thread (0,0,0) of CTA (0,0,0) wrote it (line " .. lines.store .. ")",
           "a fence or atomic by the writer after its store and one by the atomic's CTA before the atomic, not the atomic itself, order them")
    -- without the check: the reset came first here (on a GPU it may land after other CTAs' adds)
    cnt:write { 7 }
    assert.is_nil(launch(k, { args = { cnt, ticket } }))
    assert.are.same({ 128 }, cnt:read())
    cnt:free(); ticket:free()
  end)

  it("takes a strong reset, or the last CTA's reset after its ticket (threadfence reduction), as no race", function()
    local k = counter("reset", "st.relaxed.gpu.global.u32", {})
    local cnt, ticket = dev:array("u32", 1, 7, "cnt"), dev:array("u32", 1, 0, "ticket")
    assert.is_nil(launch(k, { args = { cnt, ticket }, checks = RACES }))
    assert.are.same({ 128 }, cnt:read())
    k = counter("last", nil, {})
    cnt:write { 7 }
    assert.is_nil(launch(k, { args = { cnt, ticket }, checks = RACES }))
    assert.are.same({ 0 }, cnt:read())
    assert.are.same({ 4 }, ticket:read())
    cnt:free(); ticket:free()
  end)

  -- 4 CTAs of 32 threads add 1 to bins[tid % 8]; then threads 0..7 copy bins[tid] to out: every CTA
  -- (`early`, while later CTAs still add), or only the last CTA by a ticket (fence, atomic, bar.red)
  local function histogram(early, lines)
    local ptx = H.fresh()
    local k = ptx.kernel { name = "histogram", grid = { 4 }, block = { 32 },
      params = { { "bins", "u32*" }, { "ticket", "u32*" }, { "out", "u32*" } },
      body = function(_, bins, ticket, out)
        local pb, pt, po = ptx.global_ptrs(bins, ticket, out)
        local tid, cta, n = ptx.special "tid.x", ptx.special "ctaid.x", ptx.special "nctaid.x"
        lines.red = here() + 1
        ptx.red.global.add.u32(ptx.addr(pb + tid:band(7):mul_wide(4)), 1)
        local go = tid:lt(8)
        if not early then
          local old, last, any = ptx.reg.u32(), ptx.reg.pred(), ptx.reg.pred()
          ptx.membar.gl()
          ptx.at(tid:eq(0)).atom.global.add.u32(old, ptx.addr(pt), 1)
          ptx.setp.eq.u32(last, old, n - 1)
          ptx.op "bar.red.or.pred" (any, 0, last:and_(tid:eq(0)))
          go = go:and_(any)
        end
        ptx.if_(go, function()
          local v = ptx.reg.u32()
          lines.load = here() + 1
          ptx.ld.global.u32(v, ptx.addr(pb + tid:mul_wide(4)))
          ptx.st.global.u32(ptx.addr(po + cta:mad(8, tid):mul_wide(4)), v)
        end)
      end }
    assembles(ptx)
    return k
  end

  it("reports histogram bins read while later CTAs still add to them, at the later CTA's red, naming the read's line", function()
    local lines = {}
    local k = histogram(true, lines)
    local bins, ticket, out = dev:array("u32", 8, 0, "bins"), dev:array("u32", 1, 0, "ticket"), dev:array("u32", 32, 0, "out")
    local err = launch(k, { args = { bins, ticket, out }, checks = RACES })
    expect(err, lines.red, "global-memory race on byte 0 of buffer 'bins'",
           "red.global.add.u32 by thread (0,0,0) of CTA (1,0,0) updates it atomically after thread (0,0,0) of CTA (0,0,0) read it (line " .. lines.load .. ")",
           "a fence or atomic by the reader's CTA after its load and one by the atomic's CTA before the atomic")
    -- the last CTA, after its ticket, reads the whole histogram: no race
    k = histogram(false, {})
    bins:write(fill(8, 0)); out:write(fill(32, 0))
    assert.is_nil(launch(k, { args = { bins, ticket, out }, checks = RACES }))
    local got = out:read()
    for b = 0, 7 do assert.are.equal(16, got[24 + b + 1], "bin " .. b) end
    for i = 1, 24 do assert.are.equal(0, got[i]) end
    bins:free(); ticket:free(); out:free()
  end)

  -- CTA 0's thread 0 reduces 32 words of shared memory (its values, 1..32) into acc with a bulk
  -- reduction (each element a .relaxed.gpu atomic); CTA 1's threads read acc with `load`
  local function bulk_reduce(load, lines)
    local ptx = H.fresh()
    local k = ptx.kernel { name = "bulkred", target = "sm_90a", grid = { 2 }, block = { 32 },
      params = { { "acc", "u32*" }, { "out", "u32*" } },
      body = function(_, acc, out)
        local plan = ptx.smem_plan()
        local tile = plan:alloc("tile", "u32", 32, { align = 128 })
        local pa, po = ptx.global_ptrs(acc, out)
        local tid, cta = ptx.special "tid.x", ptx.special "ctaid.x"
        local sa = ptx.reg.u32()
        ptx.mov.u32(sa, ptx.sym "smem")
        ptx.st.shared.u32(ptx.addr(sa + tile.offset + tid:shl(2)), tid + 1)
        ptx.op "fence.proxy.async.shared::cta" ()
        ptx.bar.sync(0)
        ptx.if_(cta:eq(0):and_(tid:eq(0)), function()
          lines.reduce = here() + 1
          ptx.op "cp.reduce.async.bulk.global.shared::cta.bulk_group.add.u32" (ptx.addr(pa), tile:addr(0), 128)
          ptx.op "cp.async.bulk.commit_group" ()
          ptx.op "cp.async.bulk.wait_group" (0)
        end)
        ptx.if_(cta:eq(1), function()
          local v = ptx.reg.u32()
          lines.load = here() + 1
          ptx.op(load)(v, ptx.addr(pa + tid:mul_wide(4)))
          ptx.st.global.u32(ptx.addr(po + tid:mul_wide(4)), v)
        end)
      end }
    assembles(ptx)
    return k
  end

  it("takes a bulk reduction (cp.reduce.async.bulk) as atomics: a plain load of its words races, a strong one does not", function()
    local lines = {}
    local k = bulk_reduce("ld.global.u32", lines)
    local acc, out = dev:array("u32", 32, 100, "acc"), dev:array("u32", 32, nil, "out"):poison()
    local err = launch(k, { args = { acc, out }, checks = RACES })
    expect(err, lines.load, "global-memory race on byte 0 of buffer 'acc'",
           "ld.global.u32 by thread (0,0,0) of CTA (1,0,0) reads it after thread (0,0,0) of CTA (0,0,0) updated it atomically (line " .. lines.reduce .. ")")
    k = bulk_reduce("ld.relaxed.gpu.global.u32", {})
    acc:write(fill(32, 100))
    assert.is_nil(launch(k, { args = { acc, out }, checks = RACES }))
    local got = out:read()
    for t = 0, 31 do assert.are.equal(100 + t + 1, got[t + 1]) end
    acc:free(); out:free()
  end)
end)

describe("the races check: atomics and plain accesses of global memory across the warps of a CTA", function()
  -- one CTA of 64 threads: warp 0 adds 1 to x, warp 1 reads x with a plain load (after a bar.sync
  -- when `bar`) and stores it to out[tid - 32]
  local function warps(bar, lines)
    local ptx = H.fresh()
    local k = ptx.kernel { name = "warps", grid = { 1 }, block = { 64 }, params = { { "x", "u32*" }, { "out", "u32*" } },
      body = function(_, x, out)
        local px, po = ptx.global_ptrs(x, out)
        local tid = ptx.special "tid.x"
        local old = ptx.reg.u32()
        lines.atom = here() + 1
        ptx.at(tid:lt(32)).atom.global.add.u32(old, ptx.addr(px), 1)
        if bar then ptx.bar.sync(0) end
        ptx.if_(tid:ge(32), function()
          local v = ptx.reg.u32()
          lines.load = here() + 1
          ptx.ld.global.u32(v, ptx.addr(px))
          ptx.st.global.u32(ptx.addr(po + (tid - 32):mul_wide(4)), v)
        end)
      end }
    assembles(ptx)
    return k
  end

  it("reports an atomic and another warp's plain load with no bar.sync between, and not with one", function()
    local lines = {}
    local x, out = dev:array("u32", 1, 0, "x"), dev:array("u32", 32, nil, "out"):poison()
    local err = launch(warps(false, lines), { args = { x, out }, checks = RACES })
    expect(err, lines.load, "global-memory race on byte 0 of buffer 'x'",
           "ld.global.u32 by thread (32,0,0) of CTA (0,0,0) reads it after thread (31,0,0) of CTA (0,0,0) updated it atomically (line " .. lines.atom .. ")",
           "no barrier completed between them (an atomic and a plain access race")
    x:write { 0 }
    assert.is_nil(launch(warps(true, {}), { args = { x, out }, checks = RACES }))
    assert.are.same(fill(32, 32), out:read())
    x:free(); out:free()
  end)
end)

describe("the races check: atomics and plain accesses of shared memory", function()
  -- one CTA of 64 threads; thread 0 zeroes a shared counter, bar.sync; warp 0 adds 1 to it, warp 1
  -- reads it with `load` (after a bar.sync when `bar`) into out[tid - 32]. (The emulator runs the
  -- warp that completes a barrier on: warp 1 reads before warp 0's atomics when nothing orders them.)
  local function counter(load, bar, lines)
    local ptx = H.fresh()
    local k = ptx.kernel { name = "scount", grid = { 1 }, block = { 64 }, params = { { "out", "u32*" } },
      body = function(_, out)
        local po = ptx.global_ptrs(out)
        local tid = ptx.special "tid.x"
        local s = ptx.reg.u32()
        ptx.mov.u32(s, ptx.shared("cnt", "u32", 1))
        ptx.at(tid:eq(0)).st.shared.u32(ptx.addr(s), 0)
        ptx.bar.sync(0)
        local old = ptx.reg.u32()
        lines.atom = here() + 1
        ptx.at(tid:lt(32)).atom.shared.add.u32(old, ptx.addr(s), 1)
        if bar then ptx.bar.sync(0) end
        ptx.if_(tid:ge(32), function()
          local v = ptx.reg.u32()
          lines.load = here() + 1
          ptx.op(load)(v, ptx.addr(s))
          ptx.st.global.u32(ptx.addr(po + (tid - 32):mul_wide(4)), v)
        end)
      end }
    assembles(ptx)
    return k
  end

  it("reports a counter one warp reads with a plain load and another then updates atomically, at the atomic", function()
    local lines = {}
    local out = dev:array("u32", 32, nil, "out"):poison()
    local err = launch(counter("ld.shared.u32", false, lines), { args = { out }, checks = RACES })
    expect(err, lines.atom, "shared-memory race on byte 0x",
           ": atom.shared.add.u32 by thread (0,0,0) of CTA (0,0,0) updates it atomically after thread (32,0,0) of CTA (0,0,0) read it with no barrier between",
           "(an atomic and a plain access race")
    -- without the check: warp 1 read first here, so it saw 0 (on a GPU, anything from 0 to 32)
    assert.is_nil(launch(counter("ld.shared.u32", false, {}), { args = { out } }))
    assert.are.same(fill(32, 0), out:read())
    out:free()
  end)

  it("takes a barrier, ld.volatile or ld.relaxed.cta as no race with the atomics", function()
    for _, c in ipairs { { "ld.shared.u32", true, 32 }, { "ld.volatile.shared.u32", false, 0 }, { "ld.relaxed.cta.shared.u32", false, 0 } } do
      local out = dev:array("u32", 32, nil, "out"):poison()
      assert.is_nil(launch(counter(c[1], c[2], {}), { args = { out }, checks = RACES }), c[1])
      assert.are.same(fill(32, c[3]), out:read())                  -- (strong loads: what they read first here)
      out:free()
    end
  end)

  -- one CTA of 64 threads, 8 shared bins: `init` (a store instruction) zeroes them by threads 0..7,
  -- followed by a bar.sync when `initbar`; every thread adds 1 to bins[tid % 8] (red.shared.add);
  -- threads 0..7 copy bins[tid] to out, after a bar.sync when `bar`
  local function histogram(init, initbar, bar, lines)
    local ptx = H.fresh()
    local k = ptx.kernel { name = "shist", grid = { 1 }, block = { 64 }, params = { { "out", "u32*" } },
      body = function(_, out)
        local po = ptx.global_ptrs(out)
        local tid = ptx.special "tid.x"
        local s = ptx.reg.u32()
        ptx.mov.u32(s, ptx.shared("bins", "u32", 8))
        if init then
          lines.init = here() + 1
          ptx.at(tid:lt(8)).op(init)(ptx.addr(s + tid:shl(2)), 0)
          if initbar then ptx.bar.sync(0) end
        end
        lines.red = here() + 1
        ptx.red.shared.add.u32(ptx.addr(s + tid:band(7):shl(2)), 1)
        if bar then ptx.bar.sync(0) end
        ptx.if_(tid:lt(8), function()
          local v = ptx.reg.u32()
          lines.load = here() + 1
          ptx.ld.shared.u32(v, ptx.addr(s + tid:shl(2)))
          ptx.st.global.u32(ptx.addr(po + tid:mul_wide(4)), v)
        end)
      end }
    assembles(ptx)
    return k
  end

  it("reports bins read while other warps add to them, at the read, and bins zeroed before other warps' atomics, at the atomic", function()
    local lines = {}
    local out = dev:array("u32", 8, nil, "out"):poison()
    -- (warp 1, completing the first barrier, adds first; then warp 0 adds and reads)
    local err = launch(histogram("st.shared.u32", true, false, lines), { args = { out }, checks = RACES })
    expect(err, lines.load, "shared-memory race on byte 0x",
           ": ld.shared.u32 by thread (0,0,0) of CTA (0,0,0) reads it while threads of other warps update it atomically with no barrier between")
    lines = {}
    err = launch(histogram("st.shared.u32", false, true, lines), { args = { out }, checks = RACES })
    expect(err, lines.red, "shared-memory race on byte 0x",
           ": red.shared.add.u32 by thread (32,0,0) of CTA (0,0,0) updates it atomically after thread (0,0,0) of CTA (0,0,0) wrote it with no barrier between")
    out:free()
  end)

  it("takes barriers around the atomics, or a volatile store zeroing the bins, as no race", function()
    for _, c in ipairs { { "st.shared.u32", true }, { "st.volatile.shared.u32", false } } do
      local out = dev:array("u32", 8, nil, "out"):poison()
      assert.is_nil(launch(histogram(c[1], c[2], true, {}), { args = { out }, checks = RACES }), c[1])
      assert.are.same(fill(8, 8), out:read())
      out:free()
    end
  end)

  -- a cluster of 2 CTAs of 32 threads: each zeroes its counter, barrier.cluster; the threads of the
  -- CTA of rank 1 - t add 1 to the counter of CTA t through shared::cluster, CTA t's threads read
  -- their own (after a barrier.cluster when `sync`) into out; a last barrier.cluster keeps both alive
  local function cluster(sync, lines, t)
    local ptx = H.fresh()
    local k = ptx.kernel { name = "dsmem", target = "sm_90a", grid = { 2 }, block = { 32 }, cluster = { 2 },
      params = { { "out", "u32*" } },
      body = function(_, out)
        local po = ptx.global_ptrs(out)
        local tid, rank = ptx.special "tid.x", ptx.special "cluster_ctarank"
        local s, remote = ptx.reg.u32(), ptx.reg.u32()
        ptx.mov.u32(s, ptx.shared("cnt", "u32", 1))
        ptx.op "mapa.shared::cluster.u32" (remote, s, t)
        ptx.at(tid:eq(0)).st.shared.u32(ptx.addr(s), 0)
        local function cbar()
          ptx.op "barrier.cluster.arrive.release.aligned" ()
          ptx.op "barrier.cluster.wait.acquire.aligned" ()
        end
        cbar()
        local old = ptx.reg.u32()
        lines.atom = here() + 1
        ptx.at(rank:eq(1 - t)).op "atom.shared::cluster.add.u32" (old, ptx.addr(remote), 1)
        if sync then cbar() end
        ptx.if_(rank:eq(t), function()
          local v = ptx.reg.u32()
          lines.load = here() + 1
          ptx.ld.shared.u32(v, ptx.addr(s))
          ptx.st.global.u32(ptx.addr(po + tid:mul_wide(4)), v)
        end)
        cbar()
      end }
    assembles(ptx)
    return k
  end

  it("reports another CTA's atomics through shared::cluster and a plain read with no barrier.cluster between", function()
    local lines = {}
    local out = dev:array("u32", 32, nil, "out"):poison()
    local err = launch(cluster(false, lines, 0), { args = { out }, checks = RACES })
    -- (CTA 1, completing the cluster barrier, runs on first: its atomics come before CTA 0's read)
    expect(err, lines.load, "shared-memory race on byte 0x0: ld.shared.u32 by thread (0,0,0) of CTA (0,0,0) reads it after ",
           "thread (0,0,0) of CTA (1,0,0) updated it atomically with no barrier.cluster between")
    -- CTA 1 reads its counter first, then CTA 0's atomics reach it
    lines = {}
    err = launch(cluster(false, lines, 1), { args = { out }, checks = RACES })
    expect(err, lines.atom, "shared-memory race on byte 0x0 of CTA (1,0,0): atom.shared::cluster.add.u32 by thread (0,0,0) of CTA (0,0,0) ",
           "updates it atomically after thread (0,0,0) of CTA (1,0,0) read it with no barrier.cluster between")
    for t = 0, 1 do
      assert.is_nil(launch(cluster(true, {}, t), { args = { out }, checks = RACES }))
      assert.are.same(fill(32, 32), out:read())
    end
    out:free()
  end)
end)

-- PTX as nvcc writes it, kept as written (ptxlua.verbatim, as `ptxlua --from-ptx` scripts are):
-- each m "..." below is one statement, and the emulator reports at the line of this file holding it
local V = require "ptxlua.verbatim"
local HEAD = ".version 8.0\n.target sm_80\n.address_size 64\n\n"

describe("the races check: the CAS loop's seed load (the CUDA Programming Guide's atomicCAS idiom)", function()
  -- x[i] for every i < n: dmax = max(dmax, x[i]) by `old = *a; do { assumed = old; old = atomicCAS(a,
  -- assumed, max(x[i], assumed)); } while (assumed != old)` on an f64 (atom.global.cas.b64), then
  -- fsum += x[i] the same way on an f32 through a generic pointer (ld.u32, atom.cas.b32): nvcc's PTX
  -- of those two device functions, inlined
  local function casloop(lines)
    H.fresh()
    local m = V.module "casloop"
    m(HEAD)
    m:func("casloop", "entry")
    m ".visible .entry casloop(\n\t.param .u64 casloop_param_0,\n\t.param .u32 casloop_param_1,\n\t.param .u64 casloop_param_2,\n\t.param .u64 casloop_param_3\n)\n{\n"
    m "\t.reg .pred \t%p<4>;\n"
    m "\t.reg .f32 \t%f<5>;\n"
    m "\t.reg .b32 \t%r<11>;\n"
    m "\t.reg .f64 \t%fd<4>;\n"
    m "\t.reg .b64 \t%rd<14>;\n"
    m "\tld.param.u64 \t%rd7, [casloop_param_0];\n"
    m "\tld.param.u32 \t%r5, [casloop_param_1];\n"
    m "\tld.param.u64 \t%rd8, [casloop_param_2];\n"
    m "\tld.param.u64 \t%rd1, [casloop_param_3];\n"
    m "\tmov.u32 \t%r6, %ntid.x;\n"
    m "\tmov.u32 \t%r7, %ctaid.x;\n"
    m "\tmov.u32 \t%r8, %tid.x;\n"
    m "\tmad.lo.s32 \t%r1, %r7, %r6, %r8;\n"
    m "\tsetp.ge.s32 \t%p1, %r1, %r5;\n"
    m "\t@%p1 bra \t$L__BB0_5;\n"
    m "\tcvta.to.global.u64 \t%rd10, %rd7;\n"
    m "\tmul.wide.s32 \t%rd11, %r1, 4;\n"
    m "\tadd.s64 \t%rd2, %rd10, %rd11;\n"
    m "\tld.global.f32 \t%f2, [%rd2];\n"
    m "\tcvt.f64.f32 \t%fd1, %f2;\n"
    m "\tcvta.to.global.u64 \t%rd3, %rd8;\n"
    m "\tld.global.u64 \t%rd13, [%rd3];\n"
    m "$L__BB0_2:\n"
    m "\tmov.b64 \t%fd2, %rd13;\n"
    m "\tmax.f64 \t%fd3, %fd1, %fd2;\n"
    m "\tmov.b64 \t%rd12, %fd3;\n"
    m "\tatom.global.cas.b64 \t%rd6, [%rd3], %rd13, %rd12;\n"
    m "\tsetp.ne.s64 \t%p2, %rd13, %rd6;\n"
    m "\tmov.u64 \t%rd13, %rd6;\n"
    m "\t@%p2 bra \t$L__BB0_2;\n"
    m "\tld.global.f32 \t%f1, [%rd2];\n"
    m "\tld.u32 \t%r10, [%rd1];\n"
    m "$L__BB0_4:\n"
    m "\tmov.b32 \t%f3, %r10;\n"
    m "\tadd.f32 \t%f4, %f1, %f3;\n"
    m "\tmov.b32 \t%r9, %f4;\n"
    m "\tatom.cas.b32 \t%r4, [%rd1], %r10, %r9;\n"
    m "\tsetp.ne.s32 \t%p3, %r10, %r4;\n"
    m "\tmov.u32 \t%r10, %r4;\n"
    m "\t@%p3 bra \t$L__BB0_4;\n"
    m "$L__BB0_5:\n"
    m "\tret;\n"
    m "}\n"
    m:done()
    local ok, out = H.assemble(m:text(), "sm_80")
    if ok ~= nil then assert(ok, out) end
    return m.kernels[1]
  end

  it("runs nvcc's f64 max (atom.global.cas.b64) and f32 add (atom.cas.b32) loops clean, 4 CTAs of 3 warps, with the right results", function()
    local k = casloop()
    for _, n in ipairs { 384, 300 } do                             -- (300: the last CTA's last warp part-full)
      -- quarters below 2^9: every partial sum is exact in f32, so the sum is the same in any order
      local vals = {}
      for i = 1, n do vals[i] = ((i * 37) % 509) * 0.25 - 40 end
      local x = dev:array("f32", n, vals, "x")
      local dmax, fsum = dev:array("f64", 1, -1e300, "dmax"), dev:array("f32", 1, 0, "fsum")
      assert.is_nil(launch(k, { args = { x, n, dmax, fsum }, grid = { 4 }, block = { 96 }, checks = RACES }))
      local want_max, want_sum = -math.huge, 0
      for i = 1, n do want_max = math.max(want_max, vals[i]); want_sum = want_sum + vals[i] end
      assert.are.equal(want_max, dmax:read()[1])
      assert.are.equal(want_sum, fsum:read()[1])
      x:free(); dmax:free(); fsum:free()
    end
  end)

  -- 3 CTAs of 96 threads: warp 0 of each adds 1 to cnt (atom.global.add); warps 1 and 2 read cnt with
  -- a plain load (line lines.load) and then, by `use`: store it to out[i] ("stored"); compare it
  -- with 1000 and add 1 when below ("compared": check then act); get it from a .func that returns
  -- what it loads ("returned"); seed a CAS loop on out[i], not cnt ("other"); seed a CAS loop on
  -- cnt after a barrier ("barrier"); seed a CAS loop incrementing cnt ("cas": the idiom)
  local function peek(use, lines)
    H.fresh()
    local m = V.module "peek"
    m(HEAD)
    if use == "returned" then
      m ".func  (.param .b32 func_retval0) load_cnt(\n\t.param .b64 load_cnt_param_0\n)\n{\n"
      m "\t.reg .b32 \t%r<2>;\n"
      m "\t.reg .b64 \t%rd<2>;\n"
      m "\tld.param.u64 \t%rd1, [load_cnt_param_0];\n"
      lines.load = here() + 1
      m "\tld.global.u32 \t%r1, [%rd1];\n"
      m "\tst.param.b32 \t[func_retval0], %r1;\n"
      m "\tret;\n"
      m "}\n"
    end
    m:func("peek", "entry")
    m ".visible .entry peek(\n\t.param .u64 peek_param_0,\n\t.param .u64 peek_param_1\n)\n{\n"
    m "\t.reg .pred \t%p<4>;\n"
    m "\t.reg .b32 \t%r<10>;\n"
    m "\t.reg .b64 \t%rd<7>;\n"
    m "\tld.param.u64 \t%rd1, [peek_param_0];\n"
    m "\tld.param.u64 \t%rd2, [peek_param_1];\n"
    m "\tcvta.to.global.u64 \t%rd3, %rd1;\n"
    m "\tcvta.to.global.u64 \t%rd4, %rd2;\n"
    m "\tmov.u32 \t%r1, %tid.x;\n"
    m "\tmov.u32 \t%r2, %ctaid.x;\n"
    m "\tmov.u32 \t%r3, %ntid.x;\n"
    m "\tmad.lo.s32 \t%r4, %r2, %r3, %r1;\n"
    m "\tmul.wide.u32 \t%rd5, %r4, 4;\n"
    m "\tadd.s64 \t%rd6, %rd4, %rd5;\n"
    m "\tsetp.ge.u32 \t%p1, %r1, 32;\n"
    m "\t@%p1 bra \t$L__BB0_2;\n"
    lines.atom = here() + 1
    m "\tatom.global.add.u32 \t%r5, [%rd3], 1;\n"
    if use == "barrier" then m "\tbarrier.sync \t0;\n" end
    m "\tbra.uni \t$L__BB0_9;\n"
    m "$L__BB0_2:\n"
    if use == "returned" then
      m "\t{ // callseq 0, 0\n\t.param .b64 param0;\n\tst.param.b64 \t[param0], %rd3;\n\t.param .b32 retval0;\n\tcall.uni (retval0), load_cnt, (param0);\n\tld.param.b32 \t%r6, [retval0];\n\t} // callseq 0\n"
      m "\tst.global.u32 \t[%rd6], %r6;\n"
    else
      lines.load = here() + 1
      m "\tld.global.u32 \t%r6, [%rd3];\n"
    end
    if use == "stored" then
      m "\tst.global.u32 \t[%rd6], %r6;\n"
    elseif use == "compared" then
      m "\tsetp.gt.u32 \t%p2, %r6, 999;\n"
      m "\t@%p2 bra \t$L__BB0_9;\n"
      m "\tred.global.add.u32 \t[%rd3], 1;\n"
    elseif use == "other" or use == "cas" or use == "barrier" then
      local at = use == "other" and "%rd6" or "%rd3"
      if use == "barrier" then m "\tbarrier.sync \t0;\n" end
      m "$L__BB0_3:\n"
      m "\tadd.s32 \t%r7, %r6, 1;\n"
      m("\tatom.global.cas.b32 \t%r8, [" .. at .. "], %r6, %r7;\n")
      m "\tsetp.ne.s32 \t%p3, %r6, %r8;\n"
      m "\tmov.u32 \t%r6, %r8;\n"
      m "\t@%p3 bra \t$L__BB0_3;\n"
    end
    m "$L__BB0_9:\n"
    m "\tret;\n"
    m "}\n"
    m:done()
    local ok, out = H.assemble(m:text(), "sm_80")
    if ok ~= nil then assert(ok, out) end
    return m.kernels[1]
  end

  it("runs a CAS loop its load seeds, over a counter other warps and CTAs add to atomically, clean", function()
    local cnt, out = dev:array("u32", 1, 0, "cnt"), dev:array("u32", 3 * 96, 0, "out")
    assert.is_nil(launch(peek("cas", {}), { args = { cnt, out }, grid = { 3 }, block = { 96 }, checks = RACES }))
    assert.are.same({ 3 * 96 }, cnt:read())                       -- every thread added 1, by atom.add or by its CAS
    cnt:free(); out:free()
  end)

  it("still reports a plain load of the counter used for anything but seeding a CAS of it, at the load's line", function()
    for _, use in ipairs { "stored", "compared", "returned", "other", "barrier" } do
      local lines = {}
      local k = peek(use, lines)
      local cnt, out = dev:array("u32", 1, 0, "cnt"), dev:array("u32", 3 * 96, 0, "out")
      local err = launch(k, { args = { cnt, out }, grid = { 3 }, block = { 96 }, checks = RACES })
      expect(err, lines.load, "global-memory race on byte 0 of buffer 'cnt'",
             "ld.global.u32 by thread (32,0,0) of CTA (0,0,0) reads it after thread (31,0,0) of CTA (0,0,0) updated it atomically (line " .. lines.atom .. ")",
             "(an atomic and a plain access race")
      -- without the check they run: warp 0 added before the others read (here; on a GPU, any order)
      cnt:write { 0 }
      assert.is_nil(launch(k, { args = { cnt, out }, grid = { 3 }, block = { 96 } }), use)
      cnt:free(); out:free()
    end
  end)

  -- shared memory, 2 CTAs of 96 threads: thread 0 zeroes acc (f32) and cnt (u32), bar.sync; every
  -- thread adds x[i] to acc by a CAS loop (ld.shared.u32, atom.shared.cas.b32); warp 2 adds 1 to cnt
  -- (atom.shared.add), warps 0 and 1 read cnt with a plain load (line lines.load) and, by `use`,
  -- store it to out[i] ("stored") or seed a CAS loop adding 1 to it ("cas"); bar.sync; thread 0
  -- writes acc and cnt to res[2 * cta] and res[2 * cta + 1]. (The warp that completes a barrier runs
  -- on first here: warp 2's atomics come before the other warps' loads.)
  local function sacc(use, lines)
    H.fresh()
    local m = V.module "sacc"
    m(HEAD)
    m:func("sacc", "entry")
    m ".visible .entry sacc(\n\t.param .u64 sacc_param_0,\n\t.param .u64 sacc_param_1,\n\t.param .u64 sacc_param_2\n)\n{\n"
    m "\t.reg .pred \t%p<5>;\n"
    m "\t.reg .f32 \t%f<5>;\n"
    m "\t.reg .b32 \t%r<16>;\n"
    m "\t.reg .b64 \t%rd<10>;\n"
    m "\t.shared .align 4 .b8 acc[8];\n"
    m "\tld.param.u64 \t%rd1, [sacc_param_0];\n"
    m "\tld.param.u64 \t%rd2, [sacc_param_1];\n"
    m "\tld.param.u64 \t%rd3, [sacc_param_2];\n"
    m "\tmov.u32 \t%r1, %tid.x;\n"
    m "\tmov.u32 \t%r2, %ctaid.x;\n"
    m "\tmov.u32 \t%r3, %ntid.x;\n"
    m "\tmad.lo.s32 \t%r4, %r2, %r3, %r1;\n"
    m "\tmov.u32 \t%r5, acc;\n"
    m "\tsetp.ne.s32 \t%p1, %r1, 0;\n"
    m "\t@%p1 bra \t$L__BB0_2;\n"
    m "\tmov.u32 \t%r6, 0;\n"
    m "\tst.shared.v2.u32 \t[%r5], {%r6, %r6};\n"
    m "$L__BB0_2:\n"
    m "\tbar.sync \t0;\n"
    m "\tcvta.to.global.u64 \t%rd4, %rd1;\n"
    m "\tmul.wide.s32 \t%rd5, %r4, 4;\n"
    m "\tadd.s64 \t%rd6, %rd4, %rd5;\n"
    m "\tld.global.f32 \t%f1, [%rd6];\n"
    m "\tld.shared.u32 \t%r7, [%r5];\n"
    m "$L__BB0_3:\n"
    m "\tmov.b32 \t%f2, %r7;\n"
    m "\tadd.f32 \t%f3, %f1, %f2;\n"
    m "\tmov.b32 \t%r8, %f3;\n"
    m "\tatom.shared.cas.b32 \t%r9, [%r5], %r7, %r8;\n"
    m "\tsetp.ne.s32 \t%p2, %r7, %r9;\n"
    m "\tmov.u32 \t%r7, %r9;\n"
    m "\t@%p2 bra \t$L__BB0_3;\n"
    m "\tsetp.lt.u32 \t%p3, %r1, 64;\n"
    m "\t@%p3 bra \t$L__BB0_5;\n"
    lines.atom = here() + 1
    m "\tatom.shared.add.u32 \t%r10, [%r5+4], 1;\n"
    m "\tbra.uni \t$L__BB0_7;\n"
    m "$L__BB0_5:\n"
    lines.load = here() + 1
    m "\tld.shared.u32 \t%r11, [%r5+4];\n"
    if use == "stored" then
      m "\tcvta.to.global.u64 \t%rd7, %rd2;\n"
      m "\tadd.s64 \t%rd8, %rd7, %rd5;\n"
      m "\tst.global.u32 \t[%rd8], %r11;\n"
    else
      m "$L__BB0_6:\n"
      m "\tadd.s32 \t%r12, %r11, 1;\n"
      m "\tatom.shared.cas.b32 \t%r13, [%r5+4], %r11, %r12;\n"
      m "\tsetp.ne.s32 \t%p4, %r11, %r13;\n"
      m "\tmov.u32 \t%r11, %r13;\n"
      m "\t@%p4 bra \t$L__BB0_6;\n"
    end
    m "$L__BB0_7:\n"
    m "\tbar.sync \t0;\n"
    m "\t@%p1 bra \t$L__BB0_9;\n"
    m "\tld.shared.v2.u32 \t{%r14, %r15}, [%r5];\n"
    m "\tcvta.to.global.u64 \t%rd7, %rd3;\n"
    m "\tmul.wide.u32 \t%rd9, %r2, 8;\n"
    m "\tadd.s64 \t%rd8, %rd7, %rd9;\n"
    m "\tst.global.v2.u32 \t[%rd8], {%r14, %r15};\n"
    m "$L__BB0_9:\n"
    m "\tret;\n"
    m "}\n"
    m:done()
    local ok, out = H.assemble(m:text(), "sm_80")
    if ok ~= nil then assert(ok, out) end
    return m.kernels[1]
  end

  it("runs CAS loops on shared memory clean (f32 add, a counter others add to), with the right results", function()
    local vals = {}
    for i = 1, 192 do vals[i] = ((i * 53) % 401) * 0.5 - 60 end
    local x, out, res = dev:array("f32", 192, vals, "x"), dev:array("u32", 192, 0, "out"), dev:array("u32", 4, nil, "res"):poison()
    assert.is_nil(launch(sacc("cas", {}), { args = { x, out, res }, grid = { 2 }, block = { 96 }, checks = RACES }))
    local got = res:read()
    for c = 0, 1 do
      local want = 0
      for i = c * 96 + 1, c * 96 + 96 do want = want + vals[i] end
      assert.are.equal(want, tonumber(ffi.cast("float *", ffi.new("uint32_t[1]", got[2 * c + 1]))[0]), "CTA " .. c)
      assert.are.equal(96, got[2 * c + 2], "CTA " .. c)
    end
    x:free(); out:free(); res:free()
  end)

  it("still reports a plain load of a shared counter other warps add to, stored, at the load's line", function()
    local lines = {}
    local x, out, res = dev:array("f32", 192, 1, "x"), dev:array("u32", 192, 0, "out"), dev:array("u32", 4, 0, "res")
    local err = launch(sacc("stored", lines), { args = { x, out, res }, grid = { 2 }, block = { 96 }, checks = RACES })
    expect(err, lines.load, "shared-memory race on byte 0x4: ld.shared.u32 by thread (0,0,0) of CTA (0,0,0) reads it after ",
           "thread (64,0,0) of CTA (0,0,0) updated it atomically with no barrier between", "(an atomic and a plain access race")
    x:free(); out:free(); res:free()
  end)
end)
