-- emu_clc_spec.lua -- cluster launch control in the emulator (src/emu/blackwell/clc.c) and the
-- 128-bit registers it reads: persistent kernels that take tiles through try_cancel and cover the
-- grid exactly once in each mode (clc = "all" | "none" | "alternate"), the response's decoding,
-- the mistakes (each at its line), and .b128 loads, stores and moves.

local H = require "helper"
local rt = require "ptxlua.emu"

local dev = rt.device("emu")
local fmt = string.format

-- a persistent kernel: every CTA works on its own tile (cover[tile] += 1, who[tile] = the CTA's
-- linear id), then its thread 0 asks for the next cluster through ptx.clc_next and hands the
-- answer to the CTA through shared memory; the CTA stops after the first failed request
local function persistent(ptx)
  return ptx.kernel { name = "pers", target = "sm_100a",
    params = { { "cover", "u32*" }, { "who", "u32*" } },
    body = function(_, cover, who)
      local plan = ptx.smem_plan()
      local bar = plan:alloc("bar", "b64", 1, { align = 8 })
      local resp = plan:alloc("resp", "b64", 2, { align = 16 })
      local next = plan:alloc("next", "u32", 4, { align = 16 })
      local pc, pw = ptx.global_ptrs(cover, who)
      local tid = ptx.special "tid.x"
      local leader = tid:eq(0)
      local nx, ny = ptx.special "nctaid.x", ptx.special "nctaid.y"
      ptx.if_(leader, function() ptx.op "mbarrier.init.shared::cta.b64" (bar:addr(0), 1) end)
      ptx.bar.sync(0)
      local cx, cy, cz = ptx.reg.u32(), ptx.reg.u32(), ptx.reg.u32()
      ptx.mov.u32(cx, ptx.special "ctaid.x")
      ptx.mov.u32(cy, ptx.special "ctaid.y")
      ptx.mov.u32(cz, ptx.special "ctaid.z")
      local me = (ptx.special "ctaid.z" * ny + ptx.special "ctaid.y") * nx + ptx.special "ctaid.x"
      local phase = ptx.reg.u32()
      ptx.mov.u32(phase, 0)
      local go = ptx.reg.pred()
      ptx.do_while(function()
        local tile = (cz * ny + cy) * nx + cx
        ptx.if_(leader, function()
          ptx.op "atom.global.add.u32" (ptx.reg.u32(), ptx.addr(pc + tile:mul_wide(4)), 1)
          ptx.st.global.u32(ptx.addr(pw + tile:mul_wide(4)), me)
          local ok, x, y, z = ptx.clc_next(resp, bar, phase)
          local f = ptx.reg.u32()
          ptx.selp.u32(f, 1, 0, ok)
          ptx.st.shared.v4.u32(next:addr(0), { f, x, y, z })
        end)
        ptx.op "barrier.sync" (0)                        -- (not aligned: lane 0 comes late)
        local f = ptx.reg.u32()
        ptx.ld.shared.v4.u32({ f, cx, cy, cz }, next:addr(0))
        phase:set(phase:xor(1))
        ptx.setp.ne.u32(go, f, 0)
        ptx.op "barrier.sync" (0)
        return go
      end)
    end }
end

describe("emulated cluster launch control", function()
  local ptx = H.fresh()
  local k = persistent(ptx)

  it("assembles for sm_100a (ptxas)", function()
    H.assembles(ptx, "sm_100a")
  end)

  -- grid 3 x 2 x 2 (12 tiles), each mode: every tile exactly once, by the CTAs the mode predicts
  local WANT = {
    all = { ctas = 1, canceled = 11 },        -- the first CTA takes every other cluster
    none = { ctas = 12, canceled = 0 },       -- every request fails: each CTA its own tile
    alternate = { ctas = 6, canceled = 6 },   -- each launched CTA takes one more, then fails
  }
  for _, mode in ipairs { "all", "none", "alternate" } do
    it("covers every tile exactly once with clc = \"" .. mode .. "\"", function()
      local n = 12
      local cover, who = dev:array("u32", n, 0), dev:array("u32", n, 0xffffffff)
      local st = rt.launch(k, { device = dev, args = { cover, who }, grid = { 3, 2, 2 }, block = { 64 }, clc = mode })
      local c, w = cover:read(), who:read()
      for i = 1, n do assert.are.equal(1, c[i], fmt("tile %d covered %d times", i - 1, c[i])) end
      assert.are.equal(WANT[mode].ctas, st.ctas)
      assert.are.equal(WANT[mode].canceled, st.canceled)
      -- who ran each tile: the CTA itself (none), the first (all), pairs (alternate)
      for i = 1, n do
        local want = mode == "none" and i - 1 or mode == "all" and 0 or (i - 1) - (i - 1) % 2
        assert.are.equal(want, w[i], fmt("tile %d run by CTA %d", i - 1, w[i]))
      end
      cover:free()
      who:free()
    end)
  end

  it("refuses a clc mode it does not know", function()
    local a, b = dev:array("u32", 1, 0), dev:array("u32", 1, 0)
    local ok, err = pcall(rt.launch, k, { device = dev, args = { a, b }, grid = { 1 }, block = { 64 }, clc = "some" })
    assert.is_false(ok)
    assert.matches('clc must be "all", "none" or "alternate" (got some)', err, 1, true)
  end)
end)

-- a cluster of 2: rank 0 asks for both (.multicast::cluster::all), each CTA's thread 0 expects the
-- 16 bytes on its own mbarrier, and every CTA decodes the same response
describe("emulated cluster launch control in clusters", function()
  local ptx = H.fresh()
  local k = ptx.kernel { name = "pers2", target = "sm_100a", cluster = { 2, 1, 1 },
    params = { { "cover", "u32*" } },
    body = function(_, cover)
      local plan = ptx.smem_plan()
      local bar = plan:alloc("bar", "b64", 1, { align = 8 })
      local resp = plan:alloc("resp", "b64", 2, { align = 16 })
      local next = plan:alloc("next", "u32", 2, { align = 8 })
      local pc = ptx.global_ptrs(cover)
      local tid = ptx.special "tid.x"
      local leader = tid:eq(0)
      local rank = ptx.special "cluster_ctarank"
      ptx.if_(leader, function() ptx.op "mbarrier.init.shared::cta.b64" (bar:addr(0), 1) end)
      ptx.op "barrier.cluster.arrive.release.aligned" ()
      ptx.op "barrier.cluster.wait.acquire.aligned" ()
      local first = ptx.reg.u32()                      -- the cluster's first CTA (x)
      ptx.mov.u32(first, ptx.special "ctaid.x" - rank)
      local phase = ptx.reg.u32()
      ptx.mov.u32(phase, 0)
      local go = ptx.reg.pred()
      ptx.do_while(function()
        ptx.if_(leader, function()
          ptx.op "atom.global.add.u32" (ptx.reg.u32(), ptx.addr(pc + (first + rank):mul_wide(4)), 1)
          local ok, x = ptx.clc_next(resp, bar, phase, { issue = rank:eq(0) })
          local f = ptx.reg.u32()
          ptx.selp.u32(f, 1, 0, ok)
          ptx.st.shared.v2.u32(next:addr(0), { f, x })
        end)
        ptx.op "barrier.sync" (0)                        -- (not aligned: lane 0 comes late)
        local f = ptx.reg.u32()
        ptx.ld.shared.v2.u32({ f, first }, next:addr(0))
        phase:set(phase:xor(1))
        ptx.setp.ne.u32(go, f, 0)
        -- both CTAs have read the response before rank 0 asks again (the next one lands in both)
        ptx.op "barrier.cluster.arrive.release.aligned" ()
        ptx.op "barrier.cluster.wait.acquire.aligned" ()
        return go
      end)
    end }

  for _, mode in ipairs { "all", "none", "alternate" } do
    it("covers every CTA's tile exactly once with clc = \"" .. mode .. "\"", function()
      local cover = dev:array("u32", 10, 0)
      local st = rt.launch(k, { device = dev, args = { cover }, grid = { 10 }, block = { 32 }, clc = mode })
      for i, v in ipairs(cover:read()) do assert.are.equal(1, v, fmt("tile %d covered %d times", i - 1, v)) end
      assert.are.equal(mode == "all" and 2 or mode == "none" and 10 or 6, st.ctas)
      cover:free()
    end)
  end
end)

-- a kernel around one request, written with ptx.op; `body(ptx, o)` after the request, where o has
-- the allocations and the registers, writes what it decodes to out
local function one_request(ptx, body)
  return ptx.kernel { name = "req", target = "sm_100a", params = { { "out", "u32*" } },
    body = function(_, out)
      local plan = ptx.smem_plan()
      local o = { bar = plan:alloc("bar", "b64", 1, { align = 8 }), resp = plan:alloc("resp", "b64", 2, { align = 16 }),
                  other = plan:alloc("other", "b64", 2, { align = 16 }), po = ptx.global_ptrs(out) }
      ptx.op "mbarrier.init.shared::cta.b64" (o.bar:addr(0), 1)
      ptx.op "mbarrier.arrive.expect_tx.shared::cta.b64" (ptx._, o.bar:addr(0), 16)
      local try = "clusterlaunchcontrol.try_cancel.async.shared::cta.mbarrier::complete_tx::bytes.b128"
      ptx.op(try)(o.resp:addr(0), o.bar:addr(0))
      body(ptx, o)
    end }
end

local function run(k, opts)
  local out = dev:array("u32", 8, 0xdeadbeef)
  local ok, err = pcall(rt.launch, k, { device = dev, args = { out }, grid = opts.grid or { 1 }, block = { 1 },
                                        clc = opts.clc, checks = opts.checks })
  local v = out:read()
  out:free()
  return ok, err, v
end

describe("the try_cancel response", function()
  it("decodes the first CTA of the cluster taken: ::x, ::y, ::z and .v4", function()
    local ptx = H.fresh()
    local k = one_request(ptx, function(ptx, o)
      ptx.mbarrier_wait(o.bar, 0)
      local r = ptx.reg.b128()
      ptx.ld.shared.b128(r, o.resp:addr(0))
      local p = ptx.reg.pred()
      ptx.op "clusterlaunchcontrol.query_cancel.is_canceled.pred.b128" (p, r)
      local f = ptx.reg.u32()
      ptx.selp.u32(f, 1, 0, p)
      ptx.st.global.u32(ptx.addr(o.po, 0), f)
      local x, y, z = ptx.reg.u32(), ptx.reg.u32(), ptx.reg.u32()
      ptx.at(p).op "clusterlaunchcontrol.query_cancel.get_first_ctaid::x.b32.b128" (x, r)
      ptx.at(p).op "clusterlaunchcontrol.query_cancel.get_first_ctaid::y.b32.b128" (y, r)
      ptx.at(p).op "clusterlaunchcontrol.query_cancel.get_first_ctaid::z.b32.b128" (z, r)
      ptx.st.global.u32(ptx.addr(o.po, 4), x)
      ptx.st.global.v2.u32(ptx.addr(o.po, 8), { y, z })
      local a, b, c = ptx.reg.u32(), ptx.reg.u32(), ptx.reg.u32()
      ptx.at(p).op "clusterlaunchcontrol.query_cancel.get_first_ctaid.v4.b32.b128" ({ a, b, c, ptx._ }, r)
      ptx.st.global.v4.u32(ptx.addr(o.po, 16), { a, b, c, f })
    end)
    -- CTA (0,0,0) takes the next cluster: (1,0,0) of a 2 x 3 x 1 grid; the later CTAs take theirs
    local ok, err, v = run(k, { grid = { 2, 3 } })
    assert.is_true(ok, err)
    -- the last CTA to run wrote last: (0,0,0) takes (1,0,0), then (0,1,0) starts and takes (1,1,0),
    -- (0,2,0) takes (1,2,0)
    assert.are.same({ 1, 1, 2, 0, 1, 2, 0, 1 }, v)
    ok, err, v = run(k, { grid = { 1 } })           -- no cluster left: a failure
    assert.is_true(ok, err)
    assert.are.equal(0, v[1])
  end)

  it("reports a try_cancel after the CTA saw a request fail (undefined behavior)", function()
    local ptx = H.fresh()
    local k = one_request(ptx, function(ptx, o)
      ptx.mbarrier_wait(o.bar, 0)
      local r = ptx.reg.b128()
      ptx.ld.shared.b128(r, o.resp:addr(0))
      local p = ptx.reg.pred()
      ptx.op "clusterlaunchcontrol.query_cancel.is_canceled.pred.b128" (p, r)     -- line A
      ptx.op "mbarrier.arrive.expect_tx.shared::cta.b64" (ptx._, o.bar:addr(0), 16)
      local try = "clusterlaunchcontrol.try_cancel.async.shared::cta.mbarrier::complete_tx::bytes.b128"
      ptx.op(try)(o.resp:addr(0), o.bar:addr(0))                                 -- line B
    end)
    local ok, err = run(k, { grid = { 4 }, clc = "none" })
    assert.is_false(ok)
    local src = H.read(H.root .. "/tests/spec/emu_clc_spec.lua")
    local la, lb = 0, 0
    local n = 0
    for line in src:gmatch("([^\n]*)\n") do
      n = n + 1
      if la == 0 and line:find("-- line A", 1, true) then la = n end
      if lb == 0 and line:find("-- line B", 1, true) then lb = n end
    end
    assert.matches(fmt("emu_clc_spec.lua:%d: error: ", lb), err, 1, true)
    assert.matches("after this CTA saw a request fail", err, 1, true)
    assert.matches(fmt("query_cancel of line %d", la), err, 1, true)
    -- with clc = "all" CTA 0 takes CTAs 1 and 2, CTA 3 takes 4 and asks once more: no failure seen
    ok, err = run(k, { grid = { 5 }, clc = "all" })
    assert.is_true(ok, err)
  end)

  it("reports a read of the response before its mbarrier says it landed", function()
    local ptx = H.fresh()
    local k = one_request(ptx, function(ptx, o)
      local r = ptx.reg.b128()
      ptx.ld.shared.b128(r, o.resp:addr(0))                    -- no wait: line C
    end)
    local ok, err = run(k, { grid = { 2 } })
    assert.is_false(ok)
    assert.matches("ld.shared.b128 reads shared byte 0x10, which the clusterlaunchcontrol.try_cancel", err, 1, true)
    assert.matches("is still writing", err, 1, true)
  end)

  it("reports a response no try_cancel wrote, and the ctaid of a failed request", function()
    local ptx = H.fresh()
    local k = one_request(ptx, function(ptx, o)
      ptx.mbarrier_wait(o.bar, 0)
      local r = ptx.reg.b128()
      ptx.ld.shared.b128(r, o.other:addr(0))                   -- the wrong buffer
      local p = ptx.reg.pred()
      ptx.op "clusterlaunchcontrol.query_cancel.is_canceled.pred.b128" (p, r)
    end)
    local ok, err = run(k, {})
    assert.is_false(ok)
    assert.matches("decodes 0x00000000000000000000000000000000, which no clusterlaunchcontrol.try_cancel wrote", err, 1, true)
    ptx = H.fresh()
    k = one_request(ptx, function(ptx, o)
      ptx.mbarrier_wait(o.bar, 0)
      local r = ptx.reg.b128()
      ptx.ld.shared.b128(r, o.resp:addr(0))
      local x = ptx.reg.u32()
      ptx.op "clusterlaunchcontrol.query_cancel.get_first_ctaid::x.b32.b128" (x, r)   -- unguarded
    end)
    ok, err = run(k, { clc = "none", grid = { 3 } })
    assert.is_false(ok)
    assert.matches("get_first_ctaid of a failed request's response (the clusterlaunchcontrol.try_cancel of line", err, 1, true)
    ok, err = run(k, { clc = "all", grid = { 3 } })   -- the first CTA's request succeeds; the next fails
    assert.is_false(ok)
    assert.matches("canceled no cluster", err, 1, true)
    ok, err = run(k, { clc = "all", grid = { 2 } })   -- one request, which takes the second CTA
    assert.is_true(ok, err)
  end)
end)

describe("emulated .b128 registers", function()
  -- each thread copies its 16 bytes through shared memory with ld/st.b128, taking it apart and
  -- back with mov.b128 (4 x .b32, 2 x .b64) on the way
  it("loads, stores and moves 128 bits", function()
    local ptx = H.fresh()
    local k = ptx.kernel { name = "q", target = "sm_90", params = { { "src", "u32*" }, { "dst", "u32*" } },
      body = function(_, src, dst)
        local ps, pd = ptx.global_ptrs(src, dst)
        local tid = ptx.special "tid.x"
        ptx.shared("buf", "b64", 64, 16)
        local a = ptx.reg.b128()
        ptx.ld.global.b128(a, ptx.addr(ps + tid:mul_wide(16)))
        local w = { ptx.reg.b32(), ptx.reg.b32(), ptx.reg.b32(), ptx.reg.b32() }
        ptx.mov.b128(w, a)
        local b = ptx.reg.b128()
        ptx.mov.b128(b, { w[2], w[1], w[4], w[3] })             -- swap within each half
        local d = { ptx.reg.b64(), ptx.reg.b64() }
        ptx.mov.b128(d, b)
        local c = ptx.reg.b128()
        ptx.mov.b128(c, { d[2], d[1] })                        -- swap the halves
        local e = ptx.reg.b128()
        ptx.mov.b128(e, c)
        local so = ptx.reg.u32()
        ptx.mov.u32(so, ptx.sym "buf")
        ptx.st.shared.b128(ptx.addr(so + tid:shl(4)), e)
        ptx.bar.sync(0)
        local f = ptx.reg.b128()
        ptx.ld.shared.b128(f, ptx.addr(so + tid:shl(4)))
        ptx.st.global.b128(ptx.addr(pd + tid:mul_wide(16)), f)
      end }
    local n = 32
    local src = dev:array("u32", 4 * n, function(i) return (i * 2654435761) % 4294967296 end)
    local dst = dev:array("u32", 4 * n, 0)
    rt.launch(k, { device = dev, args = { src, dst }, grid = { 1 }, block = { n }, checks = { uninit_regs = true, races = true } })
    local s, d = src:read(), dst:read()
    for t = 0, n - 1 do
      local i = 4 * t
      assert.are.same({ s[i + 4], s[i + 3], s[i + 2], s[i + 1] }, { d[i + 1], d[i + 2], d[i + 3], d[i + 4] })
    end
    H.assembles(ptx, "sm_90")
  end)

  it("checks 128-bit accesses: alignment, never-written registers", function()
    local ptx = H.fresh()
    local k = ptx.kernel { name = "q", target = "sm_90", params = { { "dst", "u32*" } },
      body = function(_, dst)
        local pd = ptx.global_ptrs(dst)
        local a = ptx.reg.b128()
        ptx.st.global.b128(ptx.addr(pd, 8), a)                  -- line D: misaligned, never written
      end }
    local dst = dev:array("u32", 16, 0)
    local ok, err = pcall(rt.launch, k, { device = dev, args = { dst }, grid = { 1 }, block = { 1 } })
    assert.is_false(ok)
    assert.matches("global address 0x%x+ is not a multiple of 16", err)
    ptx = H.fresh()
    k = ptx.kernel { name = "q", target = "sm_90", params = { { "dst", "u32*" } },
      body = function(_, dst)
        local pd = ptx.global_ptrs(dst)
        local a = ptx.reg.b128()
        ptx.st.global.b128(ptx.addr(pd, 16), a)
      end }
    ok, err = pcall(rt.launch, k, { device = dev, args = { dst }, grid = { 1 }, block = { 1 }, checks = { uninit_regs = true } })
    assert.is_false(ok)
    assert.matches("st.global.b128: reads %bq1, which no instruction has written", err, 1, true)
    dst:free()
  end)
end)
