-- emu_global_races_spec.lua -- the races check on global memory (checks = { races = true }): two
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
                                                                    -- CTAs reading each other's is also a WAR: emu_races2_spec)
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

