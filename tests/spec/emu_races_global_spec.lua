-- emu_races_global_spec.lua -- the races check on global memory (checks = { races = true }), in two
-- halves: a write after another thread's write or read (WAW, RAW), then a read followed by another
-- thread's write (WAR) and the async proxy's reads. (Atomics against plain accesses:
-- emu_races_atomics_spec.lua.) The first half: two
-- plain accesses of one global byte, at least one a write, that nothing orders. On a GPU the CTAs of
-- a launch run in any order (the emulator runs them one cluster after another, so a kernel whose CTAs
-- overwrite each other's output can pass every comparison here and fail there), and the warps of a
-- CTA too. Small hand-written kernels, each assembled by ptxas for its target first:
--   * two CTAs storing the same words: reported at the second store, naming both threads and the
--     first store's line; interleaved bytes of one word are not a race; without the check, no report;
--   * two warps of one CTA: reported without a barrier between them, not with one; two threads of one
--     warp never;
--   * a read of bytes another CTA wrote (read after write), and the last-block reduction that orders
--     it with a fence and an atomic (clean) or without them (reported);
--   * two CTAs of one cluster: ordered by barrier.cluster, reported without it;
--   * TMA and bulk stores of two CTAs over the same bytes; atomics of every CTA on one word (clean);
--   * a bulk store's writes are ordered by a later release only after a wait_group without .read.
local H = require "helper"
local rt = require "ptxlua.emu"

local dev = rt.device("emu")
local assembles = H.assembles
local RACES = { races = true }

local function here() return debug.getinfo(2, "l").currentline end
local THIS = debug.getinfo(1, "S").source:sub(2)

-- the launch's error (nil when it runs cleanly), and the error at THIS:line holding each string
local function launch(k, opts) return H.emu_launch(dev, k, opts) end
local function expect(err, line, ...) return H.expect_error(err, THIS, line, ...) end

describe("the races check on global memory: CTAs", function()
  -- every thread of every CTA stores ctaid * 1000 + tid at out[index(tid, ctaid)]
  local function stores(name, index, lines, ty)
    local ptx = H.fresh()
    local k = ptx.kernel { name = name, grid = { 2 }, block = { 64 }, params = { { "out", (ty or "u32") .. "*" } },
      body = function(_, out)
        local po = ptx.global_ptrs(out)
        local tid, cta = ptx.special "tid.x", ptx.special "ctaid.x"
        local v = cta:mad(1000, tid)
        local i = index(ptx, tid, cta)
        lines.store = here() + 1
        if ty == "u8" then ptx.st.global.u8(ptx.addr(po + i:mul_wide(1)), v) else ptx.st.global.u32(ptx.addr(po + i:mul_wide(4)), v) end
      end }
    assembles(ptx)
    return k
  end

  it("reports two CTAs storing the same words, at the second store, naming both threads and the first line", function()
    local lines = {}
    local k = stores("same", function(_, tid) return tid end, lines)
    local out = dev:array("u32", 64, nil, "out"):poison()
    local err = launch(k, { args = { out }, checks = RACES })
    expect(err, lines.store, "global-memory race on byte 0 of buffer 'out'",
           "st.global.u32 by thread (0,0,0) of CTA (1,0,0) writes it after thread (0,0,0) of CTA (0,0,0) wrote it (line " .. lines.store .. ")",
           "two CTAs of other clusters run in any order")
    -- without the check the emulator runs it (the last CTA's values win here; on a GPU, either's)
    assert.is_nil(launch(k, { args = { out } }))
    local got = out:read()
    for t = 0, 63 do assert.are.equal(1000 + t, got[t + 1]) end
    out:free()
  end)

  it("does not report two CTAs storing interleaved bytes of the same words, nor disjoint words", function()
    local lines = {}
    local k = stores("bytes", function(_, tid, cta) return tid:mad(2, cta) end, lines, "u8")
    local out = dev:array("u8", 128, nil, "out")
    assert.is_nil(launch(k, { args = { out }, checks = RACES }))
    local got = out:read()
    for i = 0, 127 do assert.are.equal(((i % 2) * 1000 + math.floor(i / 2)) % 256, got[i + 1], "byte " .. i) end
    out:free()
    k = stores("words", function(_, tid, cta) return cta:mad(64, tid) end, lines)
    out = dev:array("u32", 128, nil, "out"):poison()
    assert.is_nil(launch(k, { args = { out }, checks = RACES }))
    out:free()
  end)

  it("reports a CTA reading what another CTA wrote (read after write), at the load", function()
    local ptx = H.fresh()
    local lines = {}
    local k = ptx.kernel { name = "raw", grid = { 2 }, block = { 32 }, params = { { "out", "u32*" }, { "back", "u32*" } },
      body = function(_, out, back)
        local po, pb = ptx.global_ptrs(out, back)
        local tid, cta = ptx.special "tid.x", ptx.special "ctaid.x"
        ptx.st.global.u32(ptx.addr(po + cta:mad(32, tid):mul_wide(4)), tid)
        local other = tid                                           -- CTA 0's word (for CTA 1, another CTA's; both
                                                                    -- CTAs reading each other's is also a WAR: below)
        local v = ptx.reg.u32()
        lines.load = here() + 1
        ptx.ld.global.u32(v, ptx.addr(po + other:mul_wide(4)))
        ptx.st.global.u32(ptx.addr(pb + cta:mad(32, tid):mul_wide(4)), v)
      end }
    assembles(ptx)
    local out, back = dev:array("u32", 64, nil, "out"), dev:array("u32", 64, nil, "back")
    local err = launch(k, { args = { out, back }, checks = RACES })
    expect(err, lines.load, "ld.global.u32 by thread (0,0,0) of CTA (1,0,0) reads it after thread (0,0,0) of CTA (0,0,0) wrote it")
    out:free(); back:free()
  end)

  -- the last-block reduction: every CTA stores its partial (the CTA's id + 1), then (ordered) a fence
  -- and an atomic increment of a counter; the CTA that sees n - 1 sums the partials. Unordered: no
  -- fence and no atomic, the last CTA by id reads the partials.
  local function last_block(ordered, lines)
    local ptx = H.fresh()
    return ptx, ptx.kernel { name = ordered and "lastblock" or "lastblock_bad", grid = { 4 }, block = { 32 },
      params = { { "part", "u32*" }, { "count", "u32*" }, { "sum", "u32*" } },
      body = function(_, part, count, sum)
        local pp, pc, ps = ptx.global_ptrs(part, count, sum)
        local tid, cta, n = ptx.special "tid.x", ptx.special "ctaid.x", ptx.special "nctaid.x"
        local first = tid:eq(0)
        ptx.at(first).st.global.u32(ptx.addr(pp + cta:mul_wide(4)), cta + 1)
        local last = ptx.reg.pred()
        if ordered then
          ptx.membar.gl()
          local old = ptx.reg.u32()
          ptx.at(first).atom.global.add.u32(old, ptx.addr(pc), 1)
          ptx.setp.eq.u32(last, old, n - 1)
          last = last:and_(first)
        else
          last = first:and_(cta:eq(n - 1))
        end
        ptx.if_(last, function()
          local acc = ptx.reg.u32(); ptx.mov.u32(acc, 0)
          for j = 0, 3 do
            local v = ptx.reg.u32()
            if j == 0 then lines.read = here() + 1 end
            ptx.ld.global.u32(v, ptx.addr(pp, 4 * j))
            ptx.add.u32(acc, acc, v)
          end
          ptx.st.global.u32(ptx.addr(ps), acc)
        end)
      end }
  end

  it("takes a fence and an atomic after the writes and an atomic before the read as ordering them (last-block reduction)", function()
    local ptx, k = last_block(true, {})
    assembles(ptx)
    local part, count, sum = dev:array("u32", 4, nil, "part"):poison(), dev:array("u32", 1, 0, "count"), dev:array("u32", 1, nil, "sum"):poison()
    assert.is_nil(launch(k, { args = { part, count, sum }, checks = RACES }))
    assert.are.same({ 10 }, sum:read())
    assert.are.same({ 4 }, count:read())
    part:free(); count:free(); sum:free()
  end)

  it("reports the reduction's read of the partials when nothing orders it after their stores", function()
    local lines = {}
    local ptx, k = last_block(false, lines)
    assembles(ptx)
    local part, count, sum = dev:array("u32", 4, nil, "part"):poison(), dev:array("u32", 1, 0, "count"), dev:array("u32", 1, nil, "sum"):poison()
    local err = launch(k, { args = { part, count, sum }, checks = RACES })
    expect(err, lines.read, "global-memory race on byte 0 of buffer 'part'",
           "ld.global.u32 by thread (0,0,0) of CTA (3,0,0) reads it after thread (0,0,0) of CTA (0,0,0) wrote it")
    -- the emulator's order gives the right sum without the check: only the check shows the bug
    assert.is_nil(launch(k, { args = { part, count, sum } }))
    assert.are.same({ 10 }, sum:read())
    part:free(); count:free(); sum:free()
  end)

  it("does not report atomics of every CTA on one word", function()
    local ptx = H.fresh()
    local k = ptx.kernel { name = "atomics", grid = { 8 }, block = { 64 }, params = { { "count", "u32*" } },
      body = function(_, count)
        local pc = ptx.global_ptrs(count)
        ptx.red.global.add.u32(ptx.addr(pc), 1)
      end }
    assembles(ptx)
    local count = dev:array("u32", 1, 0, "count")
    assert.is_nil(launch(k, { args = { count }, checks = RACES }))
    assert.are.same({ 512 }, count:read())
    count:free()
  end)
end)

describe("the races check on global memory: warps of one CTA", function()
  -- warps 0 and 1 both store their lane's value at out[lane]; warp 1 after a bar.sync (or not)
  local function two_warps(barrier, lines)
    local ptx = H.fresh()
    return ptx, ptx.kernel { name = barrier and "warps_bar" or "warps", grid = { 1 }, block = { 64 }, params = { { "out", "u32*" } },
      body = function(_, out)
        local po = ptx.global_ptrs(out)
        local tid = ptx.special "tid.x"
        local at = ptx.addr(po + tid:band(31):mul_wide(4))
        ptx.if_(tid:lt(32), function() ptx.st.global.u32(at, tid) end)
        if barrier then ptx.bar.sync(0) end
        lines.second = here() + 1
        ptx.if_(tid:ge(32), function() ptx.st.global.u32(at, tid) end)
        -- two threads of one warp over the same word: never reported (lane + 1's word, program order)
        ptx.if_(tid:ge(32), function() ptx.st.global.u32(ptx.addr(po + (tid + 1):band(31):mul_wide(4)), tid) end)
      end }
  end

  it("reports two warps storing the same words with no barrier between them", function()
    local lines = {}
    local ptx, k = two_warps(false, lines)
    assembles(ptx)
    local out = dev:array("u32", 32, nil, "out")
    local err = launch(k, { args = { out }, checks = RACES })
    expect(err, lines.second, "st.global.u32 by thread (32,0,0) of CTA (0,0,0) writes it after thread (0,0,0) of CTA (0,0,0) wrote it",
           "no barrier completed between them")
    out:free()
  end)

  it("takes a bar.sync between them as ordering them", function()
    local ptx, k = two_warps(true, {})
    assembles(ptx)
    local out = dev:array("u32", 32, nil, "out")
    assert.is_nil(launch(k, { args = { out }, checks = RACES }))
    local got = out:read()
    for i = 0, 31 do assert.are.equal(32 + (i + 31) % 32, got[i + 1]) end
    out:free()
  end)
end)

describe("the races check on global memory: clusters, TMA and bulk stores", function()
  -- in each cluster of 2, rank 0 stores its values at out[cluster][tid], then (or not) a cluster
  -- barrier, then rank 1 stores over them
  local function cluster_kernel(barrier, lines)
    local ptx = H.fresh()
    return ptx, ptx.kernel { name = barrier and "cl_bar" or "cl", target = "sm_90a", grid = { 4 }, block = { 32 }, cluster = { 2 },
      params = { { "out", "u32*" } },
      body = function(_, out)
        local po = ptx.global_ptrs(out)
        local tid, cta, rank = ptx.special "tid.x", ptx.special "ctaid.x", ptx.special "cluster_ctarank"
        local at = ptx.addr(po + cta:shr(1):mad(32, tid):mul_wide(4))
        ptx.if_(rank:eq(0), function() ptx.st.global.u32(at, cta) end)
        if barrier then
          ptx.op "barrier.cluster.arrive.release.aligned" ()
          ptx.op "barrier.cluster.wait.acquire.aligned" ()
        end
        lines.second = here() + 1
        ptx.if_(rank:eq(1), function() ptx.st.global.u32(at, cta) end)
      end }
  end

  it("takes barrier.cluster between two CTAs of a cluster as ordering them, and reports its absence", function()
    local ptx, k = cluster_kernel(true, {})
    assembles(ptx)
    local out = dev:array("u32", 64, nil, "out"):poison()
    assert.is_nil(launch(k, { args = { out }, checks = RACES }))
    local got = out:read()
    for i = 0, 63 do assert.are.equal(2 * math.floor(i / 32) + 1, got[i + 1]) end
    local lines = {}
    ptx, k = cluster_kernel(false, lines)
    assembles(ptx)
    local err = launch(k, { args = { out }, checks = RACES })
    expect(err, lines.second, "st.global.u32 by thread (0,0,0) of CTA (1,0,0) writes it after thread (0,0,0) of CTA (0,0,0) wrote it",
           "no barrier, mbarrier phase or barrier.cluster completed between them")
    out:free()
  end)

  -- each CTA fills a 64 x 16 u32 tile and stores it with one TMA (or bulk) store at row `row(cta)`
  local function tile_store(tma, lines)
    local ptx = H.fresh()
    return ptx, ptx.kernel { name = tma and "tma_st" or "bulk_st", target = "sm_90a", grid = { 2 }, block = { 128 },
      params = { { "out", "u32*" }, { "tm", "tensormap" }, { "rows", "u32" } },
      body = function(_, out, tm, rows)
        local plan = ptx.smem_plan()
        local tile = plan:alloc("tile", "u32", 1024, { align = 128 })
        local po = ptx.global_ptrs(out)
        local desc = ptx.reg.u64()
        ptx.op "cvta.param.u64" (desc, tm)
        local tid, cta = ptx.special "tid.x", ptx.special "ctaid.x"
        local sa = ptx.reg.u32()
        ptx.mov.u32(sa, ptx.sym "smem")
        for i = 0, 7 do
          local idx = tid + i * 128
          ptx.st.shared.u32(ptx.addr(sa + tile.offset + idx:shl(2)), cta:mad(4096, idx))
        end
        ptx.op "fence.proxy.async.shared::cta" ()
        ptx.bar.sync(0)
        local r = rows:load()
        local row = cta * r                                          -- CTA c stores at row c * rows
        ptx.if_(tid:eq(0), function()
          if tma then
            local z = ptx.reg.b32(); ptx.mov.b32(z, 0)
            lines.store = here() + 1
            ptx.op "cp.async.bulk.tensor.2d.global.shared::cta.tile.bulk_group" (ptx.taddr(desc, { z, row }), tile:addr(0))
          else
            lines.store = here() + 1
            ptx.op "cp.async.bulk.global.shared::cta.bulk_group" (ptx.addr(po + row:mul_wide(64 * 4)), tile:addr(0), 4096)
          end
          ptx.op "cp.async.bulk.commit_group" ()
          ptx.op "cp.async.bulk.wait_group" (0)
        end)
      end }
  end

  for _, tma in ipairs { true, false } do
    local what = tma and "TMA" or "bulk"
    it(what .. " stores of two CTAs: disjoint boxes are clean, overlapping ones reported at the second store", function()
      local lines = {}
      local ptx, k = tile_store(tma, lines)
      assembles(ptx)
      local out = dev:array("u32", 64 * 32, nil, "out"):poison()
      local tm = dev:tensormap(out, { dims = { 64, 32 }, box = { 64, 16 } })
      assert.is_nil(launch(k, { args = { out, tm, 16 }, checks = RACES }))
      local got = out:read()
      for i = 0, 64 * 32 - 1 do assert.are.equal(math.floor(i / 1024) * 4096 + i % 1024, got[i + 1], "element " .. i) end
      -- rows 8 .. 15 of CTA 0's box are rows 0 .. 7 of CTA 1's
      local err = launch(k, { args = { out, tm, 8 }, checks = RACES })
      expect(err, lines.store, "global-memory race on byte 2048 of buffer 'out'",
             "by thread (0,0,0) of CTA (1,0,0) writes it after thread (0,0,0) of CTA (0,0,0) wrote it (line " .. lines.store .. ")",
             tma and "cp.async.bulk.tensor.2d.global.shared::cta.tile.bulk_group" or "cp.async.bulk.global.shared::cta.bulk_group")
      out:free()
    end)
  end

  -- each CTA stores a tile of partials with one bulk store, waits (.read only, or fully), then the
  -- last-block handshake (membar.gl, atom.add); the last CTA reads the other CTA's partials. A
  -- wait_group.read only frees the source: the store's global writes are not ordered by the
  -- release that follows, so the read races with them
  local function tma_handshake(full, lines)
    local ptx = H.fresh()
    return ptx, ptx.kernel { name = full and "bulk_full" or "bulk_read", target = "sm_90a", grid = { 2 }, block = { 32 },
      params = { { "part", "u32*" }, { "count", "u32*" }, { "sum", "u32*" } },
      body = function(_, part, count, sum)
        local plan = ptx.smem_plan()
        local tile = plan:alloc("tile", "u32", 32, { align = 128 })
        local pp, pc, ps = ptx.global_ptrs(part, count, sum)
        local tid, cta = ptx.special "tid.x", ptx.special "ctaid.x"
        local sa = ptx.reg.u32()
        ptx.mov.u32(sa, ptx.sym "smem")
        ptx.st.shared.u32(ptx.addr(sa + tile.offset + tid:shl(2)), cta:mad(100, tid))
        ptx.op "fence.proxy.async.shared::cta" ()
        ptx.bar.sync(0)
        ptx.if_(tid:eq(0), function()
          ptx.op "cp.async.bulk.global.shared::cta.bulk_group" (ptx.addr(pp + cta:mul_wide(128)), tile:addr(0), 128)
          ptx.op "cp.async.bulk.commit_group" ()
          if full then ptx.op "cp.async.bulk.wait_group" (0) else ptx.op "cp.async.bulk.wait_group.read" (0) end
          ptx.membar.gl()
          local old = ptx.reg.u32()
          ptx.atom.global.add.u32(old, ptx.addr(pc), 1)
          ptx.if_(old:eq(1), function()
            local v = ptx.reg.u32()
            lines.read = here() + 1
            ptx.ld.global.u32(v, ptx.addr(pp + cta:bxor(1):mul_wide(128)))
            ptx.st.global.u32(ptx.addr(ps), v)
          end)
        end)
      end }
  end

  it("orders a bulk store's writes by a later release only once a wait_group without .read has completed it", function()
    local ptx, k = tma_handshake(true, {})
    assembles(ptx)
    local part, count, sum = dev:array("u32", 64, nil, "part"):poison(), dev:array("u32", 1, 0, "count"), dev:array("u32", 1, nil, "sum"):poison()
    assert.is_nil(launch(k, { args = { part, count, sum }, checks = RACES }))
    assert.are.same({ 0 }, sum:read())                             -- CTA 1 read CTA 0's partial 0
    local lines = {}
    ptx, k = tma_handshake(false, lines)
    assembles(ptx)
    count:write({ 0 })
    local err = launch(k, { args = { part, count, sum }, checks = RACES })
    expect(err, lines.read, "ld.global.u32 by thread (0,0,0) of CTA (1,0,0) reads it after thread (0,0,0) of CTA (0,0,0) wrote it",
           "a TMA or bulk store is ordered with other threads only once a cp.async.bulk.wait_group (not .read) has completed its bulk group")
    part:free(); count:free(); sum:free()
  end)
end)


-- ------------------------------------------------------------------------------------------------
-- the races check on global memory (checks = { races = true }), the second
-- half: reads followed by another thread's unordered write (WAR), and the async proxy's reads (TMA
-- and bulk loads). The emulator runs a launch's CTAs one cluster after another, so each kernel with
-- a bug below gives the "right" answer here and may not on a GPU: only the check shows it. Small
-- hand-written kernels, each assembled by ptxas for its target first:
--   * an in-place halo stencil (CTA j reads the first word of CTA j + 1's block, which that CTA then
--     overwrites): reported at the store, naming both threads and the load's line; clean when the
--     CTAs of one cluster are ordered by barrier.cluster, or when it runs out of place;
--   * the same inside one CTA: warp 0's last lane reads warp 1's first word; bar.sync orders it;
--     a word read by two warps and written by one of them is reported against the other;
--   * a workspace every CTA reads, then the last CTA (by a fence + atomic handshake) overwrites:
--     clean; without the handshake, or with the atomic before the reads, reported;
--   * two CTAs reading each other's words after storing their own (both RAW and WAR);
--   * TMA and bulk loads of words another CTA stored: reported without the handshake, clean with
--     it and a fence.proxy.async by either CTA, reported (the async proxy) without that fence;
--   * a TMA load's read overwritten by another CTA's store (WAR through the async proxy);
--   * bulk and TMA prefetches of words another CTA stores, and reductions (cp.reduce.async.bulk)
--     of every CTA into the same words: never reported;
--   * a bulk load or store whose global range starts in one buffer and ends in the next: an error
--     at its line, with the check on or off (it used to copy past the end of the first buffer).

local fmt = string.format

-- x[i] <- x[i] + x[i + 1] (the last word of the array keeps x[i]), over G blocks of B words, one
-- CTA per block; opts.cluster: the whole grid one cluster; opts.sync: "bar", "cluster" or nil
-- between the loads and the stores; opts.out: write to a second array (out of place)
local function stencil(opts, lines)
  local ptx = H.fresh()
  local G, B = opts.grid, opts.block
  local params = { { "x", "u32*" }, { "y", "u32*" } }
  return ptx, ptx.kernel { name = "stencil", target = "sm_90a", grid = { G }, block = { B }, cluster = opts.cluster and { G } or nil,
    params = params,
    body = function(_, x, y)
      local px, py = ptx.global_ptrs(x, y)
      local tid, cta = ptx.special "tid.x", ptx.special "ctaid.x"
      local i = cta:mad(B, tid)
      local a, b = ptx.reg.u32(), ptx.reg.u32()
      ptx.ld.global.u32(a, ptx.addr(px + i:mul_wide(4)))
      ptx.mov.u32(b, 0)
      lines.load = here() + 1
      ptx.if_(i:lt(G * B - 1), function() ptx.ld.global.u32(b, ptx.addr(px + i:mul_wide(4), 4)) end)
      if opts.sync == "bar" then ptx.bar.sync(0)
      elseif opts.sync == "cluster" then
        ptx.op "barrier.cluster.arrive.release.aligned" ()
        ptx.op "barrier.cluster.wait.acquire.aligned" ()
      end
      lines.store = here() + 1
      ptx.st.global.u32(ptx.addr((opts.out and py or px) + i:mul_wide(4)), a + b)
    end }
end

local function stencil_init(n)
  local t = {}
  for i = 0, n - 1 do t[i + 1] = i * 3 + 1 end
  return t
end

local function stencil_arrays(n)
  local x = dev:array("u32", n, nil, "x")
  x:write(stencil_init(n))
  local y = dev:array("u32", n, nil, "y"):poison()
  return x, y
end

local function stencil_want(n)
  local want = {}
  for i = 0, n - 1 do want[i + 1] = (i * 3 + 1) + (i < n - 1 and ((i + 1) * 3 + 1) or 0) end
  return want
end

describe("the races check on global memory: a read, then another thread's write (WAR)", function()
  it("reports an in-place halo stencil across CTAs at the store, naming the reader, its line and the writer", function()
    local lines = {}
    local ptx, k = stencil({ grid = 4, block = 64 , sync = "bar" }, lines)
    assembles(ptx)
    local x, y = stencil_arrays(256)
    local err = launch(k, { args = { x, y }, checks = RACES })
    expect(err, lines.store, "global-memory race on byte 256 of buffer 'x'",
           "st.global.u32 by thread (0,0,0) of CTA (1,0,0) writes it after thread (63,0,0) of CTA (0,0,0) read it (line " .. lines.load .. ")",
           "two CTAs of other clusters run in any order (a fence or atomic by the reader's CTA after its load")
    -- without the check it runs, and gives what a GPU may not: every CTA read before the next wrote
    x:write(stencil_init(256))
    assert.is_nil(launch(k, { args = { x, y } }))
    assert.are.same(stencil_want(256), x:read())
    x:free(); y:free()
  end)

  it("runs the stencil out of place clean, and in place clean when barrier.cluster orders the CTAs of one cluster", function()
    local ptx, k = stencil({ grid = 4, block = 64, sync = "bar", out = true }, {})
    assembles(ptx)
    local x, y = stencil_arrays(256)
    assert.is_nil(launch(k, { args = { x, y }, checks = RACES }))
    assert.are.same(stencil_want(256), y:read())
    x:free(); y:free()
    ptx, k = stencil({ grid = 4, block = 64, sync = "cluster", cluster = true }, {})
    assembles(ptx)
    x, y = stencil_arrays(256)
    assert.is_nil(launch(k, { args = { x, y }, checks = RACES }))
    assert.are.same(stencil_want(256), x:read())
    x:free(); y:free()
    -- one cluster of one-warp CTAs, no barrier at all: the CTAs of a cluster are not ordered either
    -- (with a bar.sync in each CTA, lenient: any barrier completed in the cluster counts)
    local lines = {}
    ptx, k = stencil({ grid = 4, block = 32, cluster = true }, lines)
    assembles(ptx)
    x, y = stencil_arrays(128)
    local err = launch(k, { args = { x, y }, checks = RACES })
    expect(err, lines.store, "global-memory race on byte 128 of buffer 'x'",
           "st.global.u32 by thread (0,0,0) of CTA (1,0,0) writes it after thread (31,0,0) of CTA (0,0,0) read it (line " .. lines.load .. ")",
           "no barrier, mbarrier phase or barrier.cluster completed between them")
    x:free(); y:free()
  end)

  it("reports the stencil inside one CTA without bar.sync (warp 0's last lane reads warp 1's first word), not with it", function()
    local lines = {}
    local ptx, k = stencil({ grid = 1, block = 128 }, lines)
    assembles(ptx)
    local x, y = stencil_arrays(128)
    local err = launch(k, { args = { x, y }, checks = RACES })
    expect(err, lines.store, "global-memory race on byte 128 of buffer 'x'",
           "st.global.u32 by thread (32,0,0) of CTA (0,0,0) writes it after thread (31,0,0) of CTA (0,0,0) read it (line " .. lines.load .. ")",
           "no barrier completed between them")
    x:free(); y:free()
    ptx, k = stencil({ grid = 1, block = 128, sync = "bar" }, {})
    assembles(ptx)
    x, y = stencil_arrays(128)
    assert.is_nil(launch(k, { args = { x, y }, checks = RACES }))
    assert.are.same(stencil_want(128), x:read())
    x:free(); y:free()
  end)

  -- every thread of warps 0 .. 3 reads word 0; then thread 32 + 32 * who (warp `who`) stores it
  local function shared_word(barrier, who, lines)
    local ptx = H.fresh()
    return ptx, ptx.kernel { name = "word", grid = { 1 }, block = { 128 }, params = { { "x", "u32*" }, { "y", "u32*" } },
      body = function(_, x, y)
        local px, py = ptx.global_ptrs(x, y)
        local tid = ptx.special "tid.x"
        local v = ptx.reg.u32()
        lines.load = here() + 1
        ptx.ld.global.u32(v, ptx.addr(px))
        ptx.st.global.u32(ptx.addr(py + tid:mul_wide(4)), v)
        if barrier then ptx.bar.sync(0) end
        lines.store = here() + 1
        ptx.if_(tid:eq(32 * who), function() ptx.st.global.u32(ptx.addr(px), tid) end)
      end }
  end

  it("reports a word read by several warps and written by one of them against another reader, whichever warp writes", function()
    for who = 0, 3 do
      local lines = {}
      local ptx, k = shared_word(false, who, lines)
      assembles(ptx)
      local x, y = dev:array("u32", 1, 7, "x"), dev:array("u32", 128, nil, "y")
      local err = launch(k, { args = { x, y }, checks = RACES })
      -- warps run in order until they block: the readers before the store are warps 0 .. who, and
      -- the last of them in another warp than the writer is named
      local other = who == 0 and "thread (0,0,0)" or fmt("thread (%d,0,0)", 32 * who - 1)
      if who == 0 then
        -- warp 0 reads and stores first: no other warp has read yet; warp 1's read is then a RAW
        expect(err, lines.load, "ld.global.u32 by thread (32,0,0) of CTA (0,0,0) reads it after " .. other .. " of CTA (0,0,0) wrote it")
      else
        expect(err, lines.store, fmt("st.global.u32 by thread (%d,0,0) of CTA (0,0,0) writes it after %s of CTA (0,0,0) read it (line %d)",
                                     32 * who, other, lines.load), "no barrier completed between them")
      end
      x:free(); y:free()
    end
    local ptx, k = shared_word(true, 2, {})
    assembles(ptx)
    local x, y = dev:array("u32", 1, 7, "x"), dev:array("u32", 128, nil, "y")
    assert.is_nil(launch(k, { args = { x, y }, checks = RACES }))
    assert.are.same({ 64 }, x:read())
    for _, v in ipairs(y:read()) do assert.are.equal(7, v) end
    x:free(); y:free()
  end)

  -- every CTA copies the 32 words of ws into sums[cta][*]; mode "handshake": then membar.gl and an atomic
  -- increment, and the CTA that sees n - 1 clears ws (a workspace reused); "none": the last CTA by
  -- id clears it with nothing ordering; "early": the atomic comes before the reads
  local function workspace(mode, lines)
    local ptx = H.fresh()
    return ptx, ptx.kernel { name = "ws_" .. mode, grid = { 8 }, block = { 32 },
      params = { { "ws", "u32*" }, { "count", "u32*" }, { "sums", "u32*" } },
      body = function(_, ws, count, sums)
        local pw, pc, ps = ptx.global_ptrs(ws, count, sums)
        local tid, cta, n = ptx.special "tid.x", ptx.special "ctaid.x", ptx.special "nctaid.x"
        local old, last = ptx.reg.u32(), ptx.reg.pred()
        if mode == "early" then
          ptx.atom.global.add.u32(old, ptx.addr(pc), 1)
          ptx.setp.eq.u32(last, old, n * 32 - 1)
        end
        local v = ptx.reg.u32()
        lines.load = here() + 1
        ptx.ld.global.u32(v, ptx.addr(pw + tid:mul_wide(4)))
        ptx.st.global.u32(ptx.addr(ps + cta:mad(32, tid):mul_wide(4)), v)   -- (no atomic: it would count as a handshake)
        if mode == "handshake" then
          ptx.membar.gl()
          ptx.atom.global.add.u32(old, ptx.addr(pc), 1)
          ptx.setp.eq.u32(last, old, n * 32 - 1)
        elseif mode == "none" then
          ptx.setp.eq.u32(last, cta, n - 1)
        end
        ptx.bar.sync(0)
        -- the CTA that saw the count complete clears the workspace (each of its threads a word)
        local any = ptx.reg.pred()
        ptx.op "bar.red.or.pred" (any, 0, last)
        lines.store = here() + 1
        ptx.at(any).st.global.u32(ptx.addr(pw + tid:mul_wide(4)), 0)
      end }
  end

  local WS = {}
  for i = 1, 32 do WS[i] = i end

  it("takes a fence and an atomic after every CTA's reads as ordering the last CTA's reuse of a workspace", function()
    local ptx, k = workspace("handshake", {})
    assembles(ptx)
    local ws, count, sums = dev:array("u32", 32, nil, "ws"):write(WS), dev:array("u32", 1, 0, "count"), dev:array("u32", 256, 0, "sums")
    assert.is_nil(launch(k, { args = { ws, count, sums }, checks = RACES }))
    for i, s in ipairs(sums:read()) do assert.are.equal((i - 1) % 32 + 1, s) end
    for _, w in ipairs(ws:read()) do assert.are.equal(0, w) end
    assert.are.same({ 256 }, count:read())
    ws:free(); count:free(); sums:free()
  end)

  for _, mode in ipairs { "none", "early" } do
    it(fmt("reports the reuse of a workspace many CTAs read when %s", mode == "none" and "nothing orders it (the last CTA by id writes)"
                                                                      or "the atomic comes before the reads"), function()
      local lines = {}
      local ptx, k = workspace(mode, lines)
      assembles(ptx)
      local ws, count, sums = dev:array("u32", 32, nil, "ws"):write(WS), dev:array("u32", 1, 0, "count"), dev:array("u32", 256, 0, "sums")
      local err = launch(k, { args = { ws, count, sums }, checks = RACES })
      -- the first unordered reader is named: CTA 0's thread 0, the load's line
      expect(err, lines.store, "global-memory race on byte 0 of buffer 'ws'",
             "st.global.u32 by thread (0,0,0) of CTA (7,0,0) writes it after thread (0,0,0) of CTA (0,0,0) read it (line " .. lines.load .. ")",
             "two CTAs of other clusters run in any order")
      -- the emulator's order gives every CTA the full sum: only the check shows the bug
      count:write({ 0 })
      ws:write(WS)
      assert.is_nil(launch(k, { args = { ws, count, sums } }))
      for i, s in ipairs(sums:read()) do assert.are.equal((i - 1) % 32 + 1, s) end
      ws:free(); count:free(); sums:free()
    end)
  end

  it("reports two CTAs reading each other's words after storing their own (the reads race with the stores both ways)", function()
    local ptx = H.fresh()
    local lines = {}
    local k = ptx.kernel { name = "exchange", grid = { 2 }, block = { 32 }, params = { { "x", "u32*" }, { "y", "u32*" } },
      body = function(_, x, y)
        local px, py = ptx.global_ptrs(x, y)
        local tid, cta = ptx.special "tid.x", ptx.special "ctaid.x"
        lines.store = here() + 1
        ptx.st.global.u32(ptx.addr(px + cta:mad(32, tid):mul_wide(4)), tid)
        local v = ptx.reg.u32()
        lines.load = here() + 1
        ptx.ld.global.u32(v, ptx.addr(px + cta:bxor(1):mad(32, tid):mul_wide(4)))
        ptx.st.global.u32(ptx.addr(py + cta:mad(32, tid):mul_wide(4)), v)
      end }
    assembles(ptx)
    local x, y = dev:array("u32", 64, nil, "x"), dev:array("u32", 64, nil, "y")
    -- CTA 0 runs first: its load of CTA 1's word comes before CTA 1's store of it
    local err = launch(k, { args = { x, y }, checks = RACES })
    expect(err, lines.store, "global-memory race on byte 128 of buffer 'x'",
           "st.global.u32 by thread (0,0,0) of CTA (1,0,0) writes it after thread (0,0,0) of CTA (0,0,0) read it (line " .. lines.load .. ")")
    x:free(); y:free()
  end)
end)

-- the async proxy's reads: CTA c stores its 32 words data[c][*] (u32), then (handshake) membar.gl and
-- an atomic increment; the CTA that sees 1 loads the other CTA's row with a TMA (or bulk) load into
-- shared memory and copies it to out. opts.handshake false: CTA 1 loads with nothing ordering it;
-- opts.fence: "writer" (fence.proxy.async.global after the stores), "reader" (before the load), nil
local function async_load(opts, lines)
  local ptx = H.fresh()
  return ptx, ptx.kernel { name = "aload", target = "sm_90a", grid = { 2 }, block = { 32 },
    params = { { "data", "u32*" }, { "tm", "tensormap" }, { "count", "u32*" }, { "out", "u32*" } },
    body = function(_, data, tm, count, out)
      local plan = ptx.smem_plan()
      local bar = plan:alloc("bar", "b64", 1, { align = 8 })
      local tile = plan:alloc("tile", "u32", 32, { align = 128 })
      local pd, pc, po = ptx.global_ptrs(data, count, out)
      local desc = ptx.reg.u64()
      ptx.op "cvta.param.u64" (desc, tm)
      local tid, cta = ptx.special "tid.x", ptx.special "ctaid.x"
      lines.store = here() + 1
      ptx.st.global.u32(ptx.addr(pd + cta:mad(32, tid):mul_wide(4)), cta:mad(100, tid))
      if opts.fence == "writer" then ptx.op "fence.proxy.async.global" () end
      local go = ptx.reg.pred()
      if opts.handshake then
        ptx.membar.gl()
        local old = ptx.reg.u32()
        ptx.atom.global.add.u32(old, ptx.addr(pc), 1)
        ptx.setp.eq.u32(go, old, 63)                                -- the CTA whose last thread arrives last
        local any = ptx.reg.pred()
        ptx.op "bar.red.or.pred" (any, 0, go)
        go = any
      else
        go = cta:eq(1)
      end
      ptx.if_(go, function()
        if opts.fence == "reader" then ptx.op "fence.proxy.async.global" () end
        ptx.if_(tid:eq(0), function()
          ptx.op "mbarrier.init.shared::cta.b64" (bar:addr(0), 1)
          ptx.op "mbarrier.arrive.expect_tx.shared::cta.b64" (ptx._, bar:addr(0), 128)
          local x, y = ptx.reg.b32(), ptx.reg.b32()
          ptx.mov.b32(x, 0)
          ptx.mov.b32(y, cta:bxor(1))
          if opts.bulk then
            lines.load = here() + 1
            ptx.op "cp.async.bulk.shared::cluster.global.mbarrier::complete_tx::bytes" (tile:addr(0), ptx.addr(pd + cta:bxor(1):mul_wide(128)), 128, bar:addr(0))
          else
            lines.load = here() + 1
            ptx.op "cp.async.bulk.tensor.2d.shared::cluster.global.tile.mbarrier::complete_tx::bytes" (tile:addr(0), ptx.taddr(desc, { x, y }), bar:addr(0))
          end
        end)
        ptx.bar.sync(0)
        ptx.mbarrier_wait(bar, 0)
        local v, sa = ptx.reg.u32(), ptx.reg.u32()
        ptx.mov.u32(sa, ptx.sym "smem")
        ptx.ld.shared.u32(v, ptx.addr(sa + tile.offset + tid:shl(2)))
        ptx.st.global.u32(ptx.addr(po + tid:mul_wide(4)), v)
      end)
    end }
end

describe("the races check on global memory: the async proxy's reads (TMA and bulk loads)", function()
  local function arrays()
    local data = dev:array("u32", 64, nil, "data"):poison()
    local tm = dev:tensormap(data, { dims = { 32, 2 }, box = { 32, 1 } })
    return data, tm, dev:array("u32", 1, 0, "count"), dev:array("u32", 32, nil, "out"):poison()
  end

  for _, bulk in ipairs { false, true } do
    local what = bulk and "bulk load (cp.async.bulk)" or "TMA load"
    local op = bulk and "cp.async.bulk.shared::cluster.global.mbarrier::complete_tx::bytes"
                    or "cp.async.bulk.tensor.2d.shared::cluster.global.tile.mbarrier::complete_tx::bytes"

    it("reports a " .. what .. " of words another CTA stored with nothing ordering them, at the load", function()
      local lines = {}
      local ptx, k = async_load({ bulk = bulk, fence = "writer" }, lines)
      assembles(ptx)
      local data, tm, count, out = arrays()
      local err = launch(k, { args = { data, tm, count, out }, checks = RACES })
      expect(err, lines.load, "global-memory race on byte 0 of buffer 'data'",
             op .. " by thread (0,0,0) of CTA (1,0,0) reads it after thread (0,0,0) of CTA (0,0,0) wrote it (line " .. lines.store .. ")",
             "two CTAs of other clusters run in any order")
      -- without the check the emulator's order hides it
      count:write({ 0 })
      assert.is_nil(launch(k, { args = { data, tm, count, out } }))
      for t = 0, 31 do assert.are.equal(t, out:read()[t + 1]) end
      data:free(); count:free(); out:free()
    end)

    it("takes the fence + atomic handshake as ordering a " .. what .. " after another CTA's stores, with a fence.proxy.async by either CTA", function()
      for _, fence in ipairs { "writer", "reader" } do
        local ptx, k = async_load({ bulk = bulk, handshake = true, fence = fence }, {})
        assembles(ptx)
        local data, tm, count, out = arrays()
        assert.is_nil(launch(k, { args = { data, tm, count, out }, checks = RACES }))
        local got = out:read()
        for t = 0, 31 do assert.are.equal(t, got[t + 1], fence .. " fence, word " .. t) end   -- CTA 1 loaded CTA 0's row
        data:free(); count:free(); out:free()
      end
    end)

    it("reports a " .. what .. " of another CTA's ordinary stores with no fence.proxy.async (the async proxy may not see them)", function()
      local lines = {}
      local ptx, k = async_load({ bulk = bulk, handshake = true }, lines)
      assembles(ptx)
      local data, tm, count, out = arrays()
      local err = launch(k, { args = { data, tm, count, out }, checks = RACES })
      expect(err, lines.load, op .. " by thread (0,0,0) of CTA (1,0,0) reads byte 0 of buffer 'data'",
             "through the async proxy, written by thread (0,0,0) of CTA (0,0,0) with an ordinary store (line " .. lines.store .. ")",
             "no fence.proxy.async (.global, or no state space) by either CTA since")
      data:free(); count:free(); out:free()
    end)
  end

  it("reports a store over words another CTA's TMA load read, naming the load (WAR through the async proxy)", function()
    local ptx = H.fresh()
    local lines = {}
    local k = ptx.kernel { name = "tma_war", target = "sm_90a", grid = { 2 }, block = { 32 },
      params = { { "data", "u32*" }, { "tm", "tensormap" }, { "out", "u32*" } },
      body = function(_, data, tm, out)
        local plan = ptx.smem_plan()
        local bar = plan:alloc("bar", "b64", 1, { align = 8 })
        local tile = plan:alloc("tile", "u32", 32, { align = 128 })
        local pd, po = ptx.global_ptrs(data, out)
        local desc = ptx.reg.u64()
        ptx.op "cvta.param.u64" (desc, tm)
        local tid, cta = ptx.special "tid.x", ptx.special "ctaid.x"
        ptx.if_(tid:eq(0), function()
          ptx.op "mbarrier.init.shared::cta.b64" (bar:addr(0), 1)
          ptx.op "mbarrier.arrive.expect_tx.shared::cta.b64" (ptx._, bar:addr(0), 128)
          local z = ptx.reg.b32(); ptx.mov.b32(z, 0)
          lines.load = here() + 1
          ptx.op "cp.async.bulk.tensor.2d.shared::cluster.global.tile.mbarrier::complete_tx::bytes" (tile:addr(0), ptx.taddr(desc, { z, z }), bar:addr(0))
        end)
        ptx.bar.sync(0)
        ptx.mbarrier_wait(bar, 0)
        local v, sa = ptx.reg.u32(), ptx.reg.u32()
        ptx.mov.u32(sa, ptx.sym "smem")
        ptx.ld.shared.u32(v, ptx.addr(sa + tile.offset + tid:shl(2)))
        ptx.st.global.u32(ptx.addr(po + cta:mad(32, tid):mul_wide(4)), v)
        -- CTA 1 then overwrites row 0, which CTA 0's load read (on a GPU, possibly before)
        lines.store = here() + 1
        ptx.if_(cta:eq(1), function() ptx.st.global.u32(ptx.addr(pd + tid:mul_wide(4)), 0) end)
      end }
    assembles(ptx)
    local data = dev:array("u32", 64, function(i) return i end, "data")
    local tm = dev:tensormap(data, { dims = { 32, 2 }, box = { 32, 1 } })
    local out = dev:array("u32", 64, nil, "out")
    local err = launch(k, { args = { data, tm, out }, checks = RACES })
    expect(err, lines.store, "global-memory race on byte 0 of buffer 'data'",
           "st.global.u32 by thread (0,0,0) of CTA (1,0,0) writes it after thread (0,0,0) of CTA (0,0,0) read it (line " .. lines.load .. ")")
    data:free(); out:free()
  end)

  it("never reports prefetches (they read nothing a thread sees) nor reductions of every CTA into the same words", function()
    local ptx = H.fresh()
    local k = ptx.kernel { name = "pf_red", target = "sm_90a", grid = { 4 }, block = { 32 },
      params = { { "data", "u32*" }, { "tm", "tensormap" }, { "acc", "u32*" } },
      body = function(_, data, tm, acc)
        local plan = ptx.smem_plan()
        local tile = plan:alloc("tile", "u32", 32, { align = 128 })
        local pd, pa = ptx.global_ptrs(data, acc)
        local desc = ptx.reg.u64()
        ptx.op "cvta.param.u64" (desc, tm)
        local tid, cta = ptx.special "tid.x", ptx.special "ctaid.x"
        -- every CTA stores its own row of data, then prefetches the next CTA's row (CTA 3: CTA 0's,
        -- stored before with nothing ordering the two; CTA 0: CTA 1's, stored after)
        ptx.st.global.u32(ptx.addr(pd + cta:mad(32, tid):mul_wide(4)), tid)
        local sa = ptx.reg.u32()
        ptx.mov.u32(sa, ptx.sym "smem")
        ptx.st.shared.u32(ptx.addr(sa + tile.offset + tid:shl(2)), cta + 1)
        ptx.op "fence.proxy.async.shared::cta" ()
        ptx.bar.sync(0)
        ptx.if_(tid:eq(0), function()
          local nx = (cta + 1):band(3)
          ptx.op "cp.async.bulk.prefetch.L2.global" (ptx.addr(pd + nx:mul_wide(128)), 128)
          local z, y = ptx.reg.b32(), ptx.reg.b32()
          ptx.mov.b32(z, 0); ptx.mov.b32(y, nx)
          ptx.op "cp.async.bulk.prefetch.tensor.2d.L2.global" (ptx.taddr(desc, { z, y }))
          -- every CTA adds (cta + 1) into the same 32 words, with bulk reductions (atomic per element)
          ptx.op "cp.reduce.async.bulk.global.shared::cta.bulk_group.add.u32" (ptx.addr(pa), tile:addr(0), 128)
          ptx.op "cp.async.bulk.commit_group" ()
          ptx.op "cp.async.bulk.wait_group" (0)
        end)
      end }
    assembles(ptx)
    local data = dev:array("u32", 128, nil, "data")
    local tm = dev:tensormap(data, { dims = { 32, 4 }, box = { 32, 1 } })
    local acc = dev:array("u32", 32, 5, "acc")
    assert.is_nil(launch(k, { args = { data, tm, acc }, checks = RACES }))
    for _, v in ipairs(acc:read()) do assert.are.equal(5 + 1 + 2 + 3 + 4, v) end
    data:free(); acc:free()
  end)

  -- hostile input: a bulk copy whose range starts in one buffer and ends in the next (buffers are
  -- 256-byte aligned with a gap after each) is reported at its line, for a load and a store
  for _, store in ipairs { false, true } do
    it(fmt("reports a bulk %s whose global range runs past the end of its buffer into the next", store and "store" or "load"), function()
      local ptx = H.fresh()
      local line
      local k = ptx.kernel { name = "span", target = "sm_90a", grid = { 1 }, block = { 32 },
        params = { { "a", "u32*" }, { "n", "u32" } },
        body = function(_, a, n)
          local plan = ptx.smem_plan()
          local bar = plan:alloc("bar", "b64", 1, { align = 8 })
          local tile = plan:alloc("tile", "u8", 1024, { align = 128 })
          local pa = ptx.global_ptrs(a)
          local nn = n:load()
          ptx.if_(ptx.special("tid.x"):eq(0), function()
            ptx.op "mbarrier.init.shared::cta.b64" (bar:addr(0), 1)
            if store then
              line = here() + 1
              ptx.op "cp.async.bulk.global.shared::cta.bulk_group" (ptx.addr(pa), tile:addr(0), nn)
            else
              ptx.op "mbarrier.arrive.expect_tx.shared::cta.b64" (ptx._, bar:addr(0), nn)
              line = here() + 1
              ptx.op "cp.async.bulk.shared::cluster.global.mbarrier::complete_tx::bytes" (tile:addr(0), ptx.addr(pa), nn, bar:addr(0))
            end
          end)
        end }
      assembles(ptx)
      local a, b = dev:array("u32", 64, 1, "a"), dev:array("u32", 64, 2, "b")
      for _, checks in ipairs { RACES, false } do
        local err = launch(k, { args = { a, 528 }, checks = checks or nil })
        expect(err, line, "the 528 bytes at global 0x", "run past the end of their buffer")
      end
      assert.is_nil(launch(k, { args = { a, 256 }, checks = RACES }))           -- the whole buffer: fine
      a:free(); b:free()
    end)
  end
end)
