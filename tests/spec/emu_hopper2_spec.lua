-- emu_hopper2_spec.lua -- the emulator's remaining mbarrier, bulk-copy and tensor-map semantics, on
-- small hand-written kernels whose PTX ptxas assembles for sm_90a first:
--   * a negative transaction count: bytes that land before the expect_tx announcing them complete
--     the phase once it comes; more bytes than announced leave the phase pending (a deadlock at the
--     wait, naming the surplus); a count outside -(2^20-1)..2^20-1 is an error at its line;
--   * cp.async.bulk.wait_group.read: an ld.global of bytes a bulk or TMA store of the CTA may still
--     write (its group waited with .read only, or not at all) is reported at the load; an ordinary
--     shared store over the source of a store no wait_group has covered, at the store (another CTA's
--     through shared::cluster too, and a TMA store whose box is wholly outside the tensor); writers
--     whose fence.proxy.async comes after the barrier ordering them before the store;
--   * cp.reduce.async.bulk into shared::cluster: element-wise reductions into another CTA's shared
--     memory, completing on that CTA's mbarrier;
--   * tensormap.replace on the emulator's tensor maps, and the tensormap-proxy fences a map modified
--     in global memory needs before a TMA uses it.
local H = require "helper"
local rt = require "ptxlua.emu"
local bit = require "bit"

local fmt = string.format

local assembles = H.assembles               -- the kernel's PTX must be what ptxas takes for sm_90a

local function here() return debug.getinfo(2, "l").currentline end

-- deterministic inputs (Park-Miller), never all zeros
local function lcg(seed)
  local r = seed
  return function() r = r * 16807 % 2147483647; return r end
end

describe("emulated mbarrier transaction counts", function()
  -- thread 0 issues a bulk copy of N bytes completing on `data` BEFORE anyone announces them, and a
  -- 16-byte copy completing on `gate` (announced); it waits on gate, so every warp waits and both
  -- copies land: data's count goes to -N. Then it announces `expect` bytes on data; everyone waits on
  -- data and copies the tile out.
  local N = 4096
  local function kern(ptx, name, expect, lines)
    return ptx.kernel { name = name, target = "sm_90a", grid = { 1 }, block = { 128 },
      params = { { "src", "u32*" }, { "small", "u32*" }, { "out", "u32*" } },
      body = function(_, src, small, out)
        local plan = ptx.smem_plan()
        local data = plan:alloc("data", "b64", 1, { align = 8 })
        local gate = plan:alloc("gate", "b64", 1, { align = 8 })
        local tile = plan:alloc("tile", "u32", N / 4, { align = 128 })
        local side = plan:alloc("side", "u32", 4, { align = 16 })
        local ps, pm, po = ptx.global_ptrs(src, small, out)
        local tid = ptx.special "tid.x"
        ptx.if_(tid:eq(0), function()
          lines.init = here() + 1
          ptx.op "mbarrier.init.shared::cta.b64" (data:addr(0), 1)
          ptx.op "mbarrier.init.shared::cta.b64" (gate:addr(0), 1)
          ptx.op "fence.mbarrier_init.release.cluster" ()
        end)
        ptx.bar.sync(0)
        ptx.if_(tid:eq(0), function()
          ptx.op "mbarrier.arrive.expect_tx.shared::cta.b64" (ptx._, gate:addr(0), 16)
          lines.copy = here() + 1
          ptx.op "cp.async.bulk.shared::cluster.global.mbarrier::complete_tx::bytes" (tile:addr(0), ptx.addr(ps), N, data:addr(0))
          ptx.op "cp.async.bulk.shared::cluster.global.mbarrier::complete_tx::bytes" (side:addr(0), ptx.addr(pm), 16, gate:addr(0))
          ptx.mbarrier_wait(gate, 0)
          lines.expect = here() + 1
          ptx.op "mbarrier.arrive.expect_tx.shared::cta.b64" (ptx._, data:addr(0), expect)
        end)
        lines.wait = here() + 1
        ptx.mbarrier_wait(data, 0)
        local sa = ptx.reg.u32()
        ptx.mov.u32(sa, ptx.sym "smem")
        for i = 0, N / 4 / 128 - 1 do
          local idx = tid + i * 128
          local v = ptx.reg.u32()
          ptx.ld.shared.u32(v, ptx.addr(sa + tile.offset + idx:shl(2)))
          ptx.st.global.u32(ptx.addr(po + idx:mul_wide(4)), v)
        end
      end }
  end

  local function inputs(dev)
    local r = lcg(11)
    local S = {}
    for i = 1, N / 4 do S[i] = r() end
    return S, dev:array("u32", N / 4, S), dev:array("u32", 4, function(i) return i end)
  end

  it("completes a phase whose bytes landed before its expect_tx (the count was negative meanwhile)", function()
    local ptx = H.fresh()
    local lines = {}
    local k = kern(ptx, "early_bytes", N, lines)
    assembles(ptx)
    local dev = rt.device("emu")
    local S, src, small = inputs(dev)
    local out = dev:array("u32", N / 4, 0xA5A5A5A5)
    rt.launch(k, { device = dev, args = { src, small, out }, checks = { uninit_shared = true, races = true } })
    local got, bad = out:read(), 0
    for i = 1, N / 4 do if got[i] ~= S[i] then bad = bad + 1 end end
    assert.are.equal(0, bad)
  end)

  it("leaves a phase with more bytes than its expect_tx pending: at the copy, naming the expect_tx, the surplus and the wait", function()
    local ptx = H.fresh()
    local lines = {}
    local k = kern(ptx, "surplus", N - 48, lines)
    assembles(ptx)
    local dev = rt.device("emu")
    local _, src, small = inputs(dev)
    local ok, err = pcall(rt.launch, k, { device = dev, args = { src, small, dev:array("u32", N / 4) } })
    assert.is_false(ok)
    assert.matches(fmt(":%d: error: cp.async.bulk.shared::cluster.global.mbarrier::complete_tx::bytes: phase 0 of the mbarrier at "
                       .. "shared 0x0 of CTA (0,0,0) (initialized at line %d) can never complete: all its 1 arrivals are in, but its "
                       .. "copies brought 4096 transaction bytes (the last at line %d) where its expect_tx announced 4048 (line %d): "
                       .. "48 bytes too many (its transaction count is -48); a deadlock: mbarrier.try_wait.parity.shared::cta.b64 at line %d waits on it",
                       lines.copy, lines.init, lines.copy, lines.expect, lines.wait), err, 1, true)
  end)

  it("reports a transaction count outside -(2^20-1)..2^20-1 at the instruction that moves it there", function()
    for _, op in ipairs { "expect_tx", "complete_tx" } do
      local ptx = H.fresh()
      local line
      local k = ptx.kernel { name = "range_" .. op, target = "sm_90a", grid = { 1 }, block = { 32 }, body = function()
        local plan = ptx.smem_plan()
        local bar = plan:alloc("bar", "b64", 1, { align = 8 })
        ptx.if_(ptx.special("tid.x"):eq(0), function()
          ptx.op "mbarrier.init.shared::cta.b64" (bar:addr(0), 1)
          ptx.op("mbarrier." .. op .. ".shared::cta.b64") (bar:addr(0), 0xfff00)
          line = here() + 1
          ptx.op("mbarrier." .. op .. ".shared::cta.b64") (bar:addr(0), 0x200)
        end)
      end }
      assembles(ptx)
      local ok, err = pcall(rt.launch, k, { device = rt.device("emu") })
      assert.is_false(ok)
      local sign = op == "expect_tx" and "" or "-"
      assert.matches(fmt(":%d: error: mbarrier.%s.shared::cta.b64 %s 512 bytes on the mbarrier at shared 0x0 of CTA (0,0,0), whose transaction count in phase 0 is %s1048320: %s1048832 is outside the range -(2^20-1)..2^20-1",
                         line, op, op == "expect_tx" and "expects" or "completes", sign, sign), err, 1, true)
    end
  end)
end)

describe("emulated bulk-group waits", function()
  -- every thread fills the tile with ordinary stores, fences for the async proxy, and thread 0 stores
  -- it to global memory with one bulk (or TMA) store; then opts.wait, a CTA barrier, and every thread
  -- reads the result back with ld.global (or overwrites the tile with st.shared)
  local N = 4096
  local function kern(ptx, name, opts, lines)
    return ptx.kernel { name = name, target = "sm_90a", grid = { 1 }, block = { 128 },
      params = { { "out", "u32*" }, { "back", "u32*" }, { "tm", "tensormap" } },
      body = function(_, out, back, tm)
        local plan = ptx.smem_plan()
        local tile = plan:alloc("tile", "u32", N / 4, { align = 128 })
        local po, pb = ptx.global_ptrs(out, back)
        local desc = ptx.reg.u64()
        ptx.op "cvta.param.u64" (desc, tm)
        local tid = ptx.special "tid.x"
        local sa = ptx.reg.u32()
        ptx.mov.u32(sa, ptx.sym "smem")
        for i = 0, N / 4 / 128 - 1 do
          local idx = tid + i * 128
          ptx.st.shared.u32(ptx.addr(sa + tile.offset + idx:shl(2)), idx:mad(2654435761, 17))
        end
        if opts.fence_after then                                  -- wrong: the fence after the barrier
          ptx.bar.sync(0)
          ptx.op "fence.proxy.async.shared::cta" ()
        else
          ptx.op "fence.proxy.async.shared::cta" ()
          ptx.bar.sync(0)
        end
        ptx.if_(tid:eq(0), function()
          if opts.tma then
            local z, x = ptx.reg.b32(), ptx.reg.b32()
            ptx.mov.b32(z, 0)
            ptx.mov.b32(x, opts.oob and 64 or 0)                     -- 64: the box wholly outside the tensor
            lines.store = here() + 1
            ptx.op "cp.async.bulk.tensor.2d.global.shared::cta.tile.bulk_group" (ptx.taddr(desc, { x, z }), tile:addr(0))
          else
            lines.store = here() + 1
            ptx.op "cp.async.bulk.global.shared::cta.bulk_group" (ptx.addr(po), tile:addr(0), N)
          end
          ptx.op "cp.async.bulk.commit_group" ()
          if opts.wait == "read" then ptx.op "cp.async.bulk.wait_group.read" (0)
          elseif opts.wait == "full" then ptx.op "cp.async.bulk.wait_group" (0) end
        end)
        ptx.bar.sync(0)
        for i = 0, N / 4 / 128 - 1 do
          local idx = tid + i * 128
          if opts.overwrite then
            if i == 0 then lines.use = here() + 1 end
            ptx.st.shared.u32(ptx.addr(sa + tile.offset + idx:shl(2)), 0)
          else
            local v = ptx.reg.u32()
            if i == 0 then lines.use = here() + 1 end
            ptx.ld.global.u32(v, ptx.addr(po + idx:mul_wide(4)))
            ptx.st.global.u32(ptx.addr(pb + idx:mul_wide(4)), v)
          end
        end
      end }
  end

  local function run(opts)
    local ptx = H.fresh()
    local lines = {}
    local k = kern(ptx, "bg", opts, lines)
    assembles(ptx)
    local dev = rt.device("emu")
    local out = dev:array("u32", N / 4, 0)
    local back = dev:array("u32", N / 4, 0)
    local tm = dev:tensormap(out, { dims = { 64, N / 4 / 64 }, box = { 64, N / 4 / 64 } })
    local ok, err = pcall(rt.launch, k, { device = dev, args = { out, back, tm } })
    return ok, err, lines, out, back
  end

  local function want(i) return ((i - 1) * 2654435761 + 17) % 2 ^ 32 end

  it("reads back what a bulk store wrote once wait_group (without .read) covered it", function()
    for _, tma in ipairs { false, true } do
      local ok, err, _, out, back = run { wait = "full", tma = tma }
      assert(ok, err)
      local o, b, bad = out:read(), back:read(), 0
      for i = 1, N / 4 do if o[i] ~= want(i) or b[i] ~= want(i) then bad = bad + 1 end end
      assert.are.equal(0, bad, tma and "TMA store" or "bulk store")
    end
  end)

  it("flags an ld.global of a bulk store's destination waited for with wait_group.read only, at the load", function()
    for _, tma in ipairs { false, true } do
      local ok, err, lines = run { wait = "read", tma = tma }
      assert.is_false(ok)
      assert.matches(fmt(":%d: error: ld.global.u32 by thread %%(%%d+,0,0%%) of CTA %%(0,0,0%%) reads global address 0x", lines.use), err)
      assert.matches(fmt("of line %d (by thread (0,0,0) of CTA (0,0,0)) may still be writing: its bulk group was waited for with cp.async.bulk.wait_group.read only",
                         lines.store), err, 1, true)
    end
  end)

  it("flags an ld.global of a bulk store's destination no wait_group covered", function()
    local ok, err, lines = run { tma = false }
    assert.is_false(ok)
    assert.matches(fmt(":%d: error: ld.global.u32", lines.use), err, 1, true)
    assert.matches("may still be writing: no cp.async.bulk.wait_group has covered its bulk group", err, 1, true)
  end)

  it("flags an st.shared over a bulk store's source before any wait_group, and allows it after wait_group.read", function()
    for _, tma in ipairs { false, true } do
      local ok, err, lines = run { overwrite = true, tma = tma }
      assert.is_false(ok)
      assert.matches(fmt(":%d: error: st.shared.u32 by thread %%(%%d+,0,0%%) of CTA %%(0,0,0%%) writes shared byte 0x", lines.use), err)
      assert.matches(fmt("of line %d (by thread (0,0,0) of CTA (0,0,0)) may still be reading: no cp.async.bulk.wait_group", lines.store), err, 1, true)
      local ok2, err2, _, out = run { overwrite = true, tma = tma, wait = "read" }
      assert(ok2, err2)
      assert.are.equal(want(N / 4), out:get(N / 4))
    end
  end)

  it("flags an st.shared over the source of a TMA store whose box is wholly outside the tensor (it writes nothing, reads its source)", function()
    local ok, err, lines, out = run { overwrite = true, tma = true, oob = true }
    assert.is_false(ok)
    assert.matches(fmt(":%d: error: st.shared.u32 by thread", lines.use), err, 1, true)
    assert.matches(fmt("of line %d (by thread (0,0,0) of CTA (0,0,0)) may still be reading: no cp.async.bulk.wait_group", lines.store), err, 1, true)
    local ok2, err2
    ok2, err2, _, out = run { overwrite = true, tma = true, oob = true, wait = "read" }
    assert(ok2, err2)
    assert.are.same(0, out:get(1))                                 -- nothing stored
  end)

  -- a cluster of 2: CTA rank 0 fills its tile, stores it to global memory with one bulk store (then
  -- waits for its reads, or not), a cluster barrier; CTA rank 1 then overwrites rank 0's tile
  -- through shared::cluster
  local function remote_kernel(ptx, wait, lines)
    return ptx.kernel { name = "remote_over", target = "sm_90a", grid = { 2 }, block = { 32 }, cluster = { 2 },
      params = { { "out", "u32*" } },
      body = function(_, out)
        local plan = ptx.smem_plan()
        local tile = plan:alloc("tile", "u32", 32, { align = 128 })
        local po = ptx.global_ptrs(out)
        local tid, rank = ptx.special "tid.x", ptx.special "cluster_ctarank"
        local sa = ptx.reg.u32()
        ptx.mov.u32(sa, ptx.sym "smem")
        local mine = sa + tile.offset + tid:shl(2)
        ptx.st.shared.u32(ptx.addr(mine), tid)
        ptx.op "fence.proxy.async.shared::cta" ()
        ptx.bar.sync(0)
        ptx.if_(rank:eq(0):and_(tid:eq(0)), function()
          lines.store = here() + 1
          ptx.op "cp.async.bulk.global.shared::cta.bulk_group" (ptx.addr(po), tile:addr(0), 128)
          ptx.op "cp.async.bulk.commit_group" ()
          if wait then ptx.op "cp.async.bulk.wait_group.read" (0) end
        end)
        ptx.op "barrier.cluster.arrive.release.aligned" ()
        ptx.op "barrier.cluster.wait.acquire.aligned" ()
        ptx.if_(rank:eq(1), function()
          local remote = ptx.reg.u32()
          ptx.op "mapa.shared::cluster.u32" (remote, mine, 0)
          lines.over = here() + 1
          ptx.op "st.shared::cluster.u32" (ptx.addr(remote), 7)
        end)
        ptx.op "barrier.cluster.arrive.release.aligned" ()
        ptx.op "barrier.cluster.wait.acquire.aligned" ()
        ptx.if_(rank:eq(0):and_(tid:eq(0)), function() ptx.op "cp.async.bulk.wait_group" (0) end)
      end }
  end

  it("flags another CTA's store (shared::cluster) over a bulk store's source no wait_group covered, and allows it after wait_group.read", function()
    local dev = rt.device("emu")
    local out = dev:array("u32", 32, 0)
    local ptx, lines = H.fresh(), {}
    local k = remote_kernel(ptx, false, lines)
    assembles(ptx)
    local ok, err = pcall(rt.launch, k, { device = dev, args = { out } })
    assert.is_false(ok)
    assert.matches(fmt(":%d: error: st.shared::cluster.u32 by thread (0,0,0) of CTA (1,0,0) writes shared byte 0x0 of CTA (0,0,0), "
                       .. "which the cp.async.bulk.global.shared::cta.bulk_group of line %d (by thread (0,0,0) of CTA (0,0,0)) may still be reading",
                       lines.over, lines.store), err, 1, true)
    ptx = H.fresh()
    k = remote_kernel(ptx, true, {})
    assembles(ptx)
    rt.launch(k, { device = dev, args = { out } })
    local got = out:read()
    for i = 0, 31 do assert.are.equal(i, got[i + 1]) end
    out:free()
  end)

  it("flags a source whose writers fence for the async proxy only after the barrier that orders them before the store", function()
    for _, tma in ipairs { false, true } do
      local ok, err, lines = run { wait = "full", tma = tma, fence_after = true }
      assert.is_false(ok)
      -- thread 0 issues the store: its own bytes are ordered by its program order, thread 1's are not
      local op = tma and "cp.async.bulk.tensor.2d.global.shared::cta.tile.bulk_group" or "cp.async.bulk.global.shared::cta.bulk_group"
      assert.matches(fmt(":%d: error: %s", lines.store, op), err, 1, true)
      assert.matches(op .. " reads shared byte 0x4, written by thread (1,0,0) of CTA (0,0,0) with an ordinary store, "
                     .. "whose fence.proxy.async by that thread comes after the barrier that orders it before this read", err, 1, true)
    end
  end)
end)

describe("emulated cp.reduce.async.bulk into shared::cluster", function()
  -- a 2-CTA cluster: each CTA fills `acc` (its own values) and `mine`, then its thread 0 reduces
  -- `mine` into the OTHER CTA's acc (mapa), completing on that CTA's mbarrier, which announced the
  -- bytes; each CTA waits on its own mbarrier and writes acc out
  local N = 1024                                          -- bytes reduced per CTA
  local function kern(ptx, op, ty)
    local es = ty == "u64" and 8 or 4
    return ptx.kernel { name = "red_" .. op .. "_" .. ty, target = "sm_90a", grid = { 4 }, block = { 64 }, cluster = { 2 },
      params = { { "a", ty == "u64" and "u64*" or "u32*" }, { "b", ty == "u64" and "u64*" or "u32*" }, { "out", ty == "u64" and "u64*" or "u32*" } },
      body = function(_, a, b, out)
        local plan = ptx.smem_plan()
        local bar = plan:alloc("bar", "b64", 1, { align = 8 })
        local acc = plan:alloc("acc", "b8", N, { align = 128 })
        local mine = plan:alloc("mine", "b8", N, { align = 128 })
        local pa, pb, po = ptx.global_ptrs(a, b, out)
        local tid = ptx.special "tid.x"
        local rank = ptx.special "cluster_ctarank"
        local cta = ptx.special "ctaid.x"
        local s = ptx.reg.u32()
        ptx.mov.u32(s, ptx.sym "smem")
        local per = N / es / 64
        for i = 0, per - 1 do                             -- element cta*N/es + tid*per + i of a and b
          local idx = tid:mad(per, i)
          local g = cta:mad(N / es, idx)
          local va, vb = (es == 8 and ptx.reg.u64 or ptx.reg.u32)(), (es == 8 and ptx.reg.u64 or ptx.reg.u32)()
          local t = es == 8 and "u64" or "u32"
          ptx.ld.global[t](va, ptx.addr(pa + g:mul_wide(es)))
          ptx.ld.global[t](vb, ptx.addr(pb + g:mul_wide(es)))
          ptx.st.shared[t](ptx.addr(s + acc.offset + (idx * es)), va)
          ptx.st.shared[t](ptx.addr(s + mine.offset + (idx * es)), vb)
        end
        ptx.op "fence.proxy.async.shared::cta" ()
        ptx.if_(tid:eq(0), function()
          ptx.op "mbarrier.init.shared::cta.b64" (bar:addr(0), 1)
          ptx.op "mbarrier.arrive.expect_tx.shared::cta.b64" (ptx._, bar:addr(0), N)
        end)
        ptx.op "fence.mbarrier_init.release.cluster" ()
        ptx.op "barrier.cluster.arrive.release.aligned" ()
        ptx.op "barrier.cluster.wait.acquire.aligned" ()
        ptx.if_(tid:eq(0), function()
          local other, racc, rbar = ptx.reg.u32(), ptx.reg.u32(), ptx.reg.u32()
          ptx.xor.b32(other, rank, 1)
          ptx.op "mapa.shared::cluster.u32" (racc, s + acc.offset, other)
          ptx.op "mapa.shared::cluster.u32" (rbar, s + bar.offset, other)
          ptx.op("cp.reduce.async.bulk.shared::cluster.shared::cta.mbarrier::complete_tx::bytes." .. op .. "." .. ty) (
            ptx.addr(racc), mine:addr(0), N, ptx.addr(rbar))
        end)
        ptx.mbarrier_wait(bar, 0)
        for i = 0, per - 1 do
          local idx = tid:mad(per, i)
          local v = (es == 8 and ptx.reg.u64 or ptx.reg.u32)()
          local t = es == 8 and "u64" or "u32"
          ptx.ld.shared[t](v, ptx.addr(s + acc.offset + (idx * es)))
          ptx.st.global[t](ptx.addr(po + cta:mad(N / es, idx):mul_wide(es)), v)
        end
        ptx.op "barrier.cluster.arrive.release.aligned" ()     -- the other CTA's reduction has landed
        ptx.op "barrier.cluster.wait.acquire.aligned" ()
      end }
  end

  local M32 = 2 ^ 32
  local function s32(x) return x >= 2 ^ 31 and x - M32 or x end
  local ref = {
    add = function(x, y, ty) if ty == "u64" then return x + y end return (x + y) % M32 end,
    min = function(x, y, ty) if ty == "s32" then return s32(x) <= s32(y) and x or y end return math.min(x, y) end,
    max = function(x, y, ty) if ty == "s32" then return s32(x) >= s32(y) and x or y end return math.max(x, y) end,
    inc = function(x, y) return x >= y and 0 or x + 1 end,
    dec = function(x, y) return (x == 0 or x > y) and y or x - 1 end,
    ["and"] = function(x, y) return bit.band(x, y) % M32 end,
    ["or"] = function(x, y) return bit.bor(x, y) % M32 end,
    xor = function(x, y) return bit.bxor(x, y) % M32 end,
  }

  for _, c in ipairs { { "add", "u32" }, { "min", "s32" }, { "max", "u32" }, { "inc", "u32" }, { "dec", "u32" },
                       { "xor", "b32" }, { "and", "b32" }, { "add", "u64" } } do
    local op, ty = c[1], c[2]
    it(fmt(".%s.%s: every element reduced into the other CTA's shared memory", op, ty), function()
      local ptx = H.fresh()
      local k = kern(ptx, op, ty)
      assembles(ptx)
      local dev = rt.device("emu")
      local es = ty == "u64" and 8 or 4
      local n = 4 * N / es
      local r = lcg(op:byte(1) * 7 + es)
      local A, B = {}, {}
      -- inc/dec compare against the other operand: small bounds make both branches happen
      local lim = (op == "inc" or op == "dec") and 40 or (es == 8 and 2 ^ 40 or M32)
      for i = 1, n do A[i] = r() % lim; B[i] = r() % lim end
      if op == "dec" then for i = 1, n, 9 do A[i] = 0 end end
      local dt = es == 8 and "u64" or "u32"
      local a, b = dev:array(dt, n, A), dev:array(dt, n, B)
      local out = dev:array(dt, n):poison()
      rt.launch(k, { device = dev, args = { a, b, out }, checks = { uninit_shared = true } })
      local got, bad = out:read(), 0
      local per = N / es
      for cta = 0, 3 do
        local other = bit.bxor(cta, 1)
        for j = 1, per do
          local x, y = A[cta * per + j], B[other * per + j]
          if got[cta * per + j] ~= ref[op](x, y, ty) then bad = bad + 1 end
        end
      end
      assert.are.equal(0, bad)
    end)
  end
end)

describe("emulated tensormap.replace", function()
  -- the kernel copies its tensor-map parameter (A: 32 x 16 u32, box 32 x 16) into shared memory,
  -- points it at B and gives it B's 48 rows (tensormap.replace), copies it to `scratch` in global
  -- memory (tensormap.cp_fenceproxy, or st.global + a release fence), acquires it and TMA-loads the
  -- box at row 32 through it: rows 32..47 of B (through the unmodified map they would be zeros)
  local W, RA, RB, Y0 = 32, 16, 48, 32
  local function kern(ptx, name, opts, lines)
    return ptx.kernel { name = name, target = "sm_90a", grid = { 1 }, block = { 128 },
      params = { { "tm", "tensormap" }, { "b", "u32*" }, { "scratch", "u8*" }, { "out", "u32*" } },
      body = function(_, tm, bparam, scratch, out)
        local plan = ptx.smem_plan()
        local bar = plan:alloc("bar", "b64", 1, { align = 8 })
        local smap = plan:alloc("smap", "b8", 128, { align = 128 })
        local tile = plan:alloc("tile", "u32", W * RA, { align = 128 })
        local pb, ps, po = ptx.global_ptrs(bparam, scratch, out)
        local desc = ptx.reg.u64()
        ptx.op "cvta.param.u64" (desc, tm)
        local tid = ptx.special "tid.x"
        local sa = ptx.reg.u32()
        ptx.mov.u32(sa, ptx.sym "smem")
        ptx.if_(tid:lt(32), function()                 -- the parameter's 128 bytes into shared memory
          local v = ptx.reg.u32()
          ptx.ld.u32(v, ptx.addr(desc + tid:mul_wide(4)))
          ptx.st.shared.u32(ptx.addr(sa + smap.offset + tid:shl(2)), v)
        end)
        ptx.bar.sync(0)
        ptx.if_(tid:eq(0), function()
          ptx.op "mbarrier.init.shared::cta.b64" (bar:addr(0), 1)
          lines.replace = here() + 1
          ptx.op "tensormap.replace.tile.global_address.shared::cta.b1024.b64" (smap:addr(0), pb)
          ptx.op "tensormap.replace.tile.global_dim.shared::cta.b1024.b32" (smap:addr(0), 1, opts.rows or RB)
          if opts.extra then opts.extra(smap, lines) end
        end)
        ptx.bar.sync(0)
        if opts.cp then
          ptx.if_(tid:lt(32), function()
            ptx.op "tensormap.cp_fenceproxy.global.shared::cta.tensormap::generic.release.gpu.sync.aligned" (ptx.addr(ps), smap:addr(0), 128)
          end)
        else
          ptx.if_(tid:lt(32), function()
            local v = ptx.reg.u32()
            ptx.ld.shared.u32(v, ptx.addr(sa + smap.offset + tid:shl(2)))
            ptx.st.global.u32(ptx.addr(ps + tid:mul_wide(4)), v)
            if opts.release then ptx.op "fence.proxy.tensormap::generic.release.gpu" () end
          end)
        end
        ptx.bar.sync(0)
        ptx.if_(tid:eq(0), function()
          if opts.acquire then ptx.op "fence.proxy.tensormap::generic.acquire.gpu" (ptx.addr(ps), 128) end
          ptx.op "mbarrier.arrive.expect_tx.shared::cta.b64" (ptx._, bar:addr(0), W * RA * 4)
          local x, y = ptx.reg.b32(), ptx.reg.b32()
          ptx.mov.b32(x, 0)
          ptx.mov.b32(y, Y0)
          lines.tma = here() + 1
          ptx.op "cp.async.bulk.tensor.2d.shared::cluster.global.tile.mbarrier::complete_tx::bytes" (tile:addr(0), ptx.taddr(ps, { x, y }), bar:addr(0))
        end)
        ptx.mbarrier_wait(bar, 0)
        for i = 0, W * RA / 128 - 1 do
          local idx = tid + i * 128
          local v = ptx.reg.u32()
          ptx.ld.shared.u32(v, ptx.addr(sa + tile.offset + idx:shl(2)))
          ptx.st.global.u32(ptx.addr(po + idx:mul_wide(4)), v)
        end
      end }
  end

  local function run(name, opts)
    local ptx = H.fresh()
    local lines = {}
    local k = kern(ptx, name, opts, lines)
    assembles(ptx)
    local dev = rt.device("emu")
    local r = lcg(5)
    local A, B = {}, {}
    for i = 1, W * RA do A[i] = r() end
    for i = 1, W * RB do B[i] = r() end
    local a, b = dev:array("u32", W * RA, A), dev:array("u32", W * RB, B)
    local tm = dev:tensormap(a, { dims = { W, RA }, box = { W, RA } })
    local scratch = dev:array("u8", 128, 0)
    local out = dev:array("u32", W * RA, 0xA5A5A5A5)
    local ok, err = pcall(rt.launch, k, { device = dev, args = { tm, b, scratch, out }, checks = { uninit_shared = true } })
    return ok, err, lines, out, B
  end

  it("retargets a map copied to shared memory; a TMA through its fenced copy in global memory loads the other tensor", function()
    for _, v in ipairs { { cp = true, acquire = true }, { release = true, acquire = true } } do
      local ok, err, _, out, B = run(v.cp and "tmr_cp" or "tmr_st", v)
      assert(ok, err)
      local got, bad = out:read(), 0
      for i = 1, W * RA do if got[i] ~= B[Y0 * W + i] then bad = bad + 1 end end
      assert.are.equal(0, bad, v.cp and "tensormap.cp_fenceproxy" or "st.global + release")
    end
  end)

  it("reports a TMA through a modified map with no release fence, or no acquire, at the TMA's line", function()
    local ok, err, lines = run("tmr_norel", { acquire = true })
    assert.is_false(ok)
    assert.matches(fmt(":%d: error: cp.async.bulk.tensor.2d.shared::cluster.global.tile.mbarrier::complete_tx::bytes: a TMA through the tensor map at 0x", lines.tma), err, 1, true)
    assert.matches(fmt("which the tensormap.replace of line %d modified, with no fence.proxy.tensormap::generic.release", lines.replace + 1), err, 1, true)
    ok, err, lines = run("tmr_noacq", { release = true })
    assert.is_false(ok)
    assert.matches(fmt(":%d: error: cp.async.bulk.tensor", lines.tma), err, 1, true)
    assert.matches("without a fence.proxy.tensormap::generic.acquire [map], 128 by this thread after its release", err, 1, true)
    ok, err, lines = run("tmr_cp_noacq", { cp = true })
    assert.is_false(ok)
    assert.matches("without a fence.proxy.tensormap::generic.acquire", err, 1, true)
  end)

  it("checks each field's value at its line, and the map's consistency at the TMA", function()
    local P = require "ptxlua"
    local function rep(smap, lines, field, ty, ...)
      lines.bad = here() + 2
      local op = P.op("tensormap.replace.tile." .. field .. ".shared::cta.b1024." .. ty)
      op(smap:addr(0), ...)
    end
    local cases = {
      { "rank", "b32", { 5 }, "rank value 5 outside 0..4 (the field holds the rank minus one)" },
      { "box_dim", "b32", { 0, 300 }, "box_dim 0 = 300 outside 1..256" },
      { "element_stride", "b32", { 1, 9 }, "element_stride 1 = 9 outside 1..8" },
      { "global_stride", "b64", { 0, 200 }, "global_stride 0 = 200 is not a multiple of 16 below 2^40" },
    }
    for n, c in ipairs(cases) do
      local ok, err, lines = run("tmr_bad" .. n, { cp = true, acquire = true, extra = function(smap, lines) rep(smap, lines, c[1], c[2], unpack(c[3])) end })
      assert.is_false(ok, c[1])
      assert.matches(fmt(":%d: error: tensormap.replace.tile.%s.shared::cta.b1024.%s: %s", lines.bad, c[1], c[2], c[4]), err, 1, true)
    end
    -- legal values that leave the map unusable: an inner box of 24 bytes, a tensor past its array
    local ok, err, lines = run("tmr_box", { cp = true, acquire = true, extra = function(smap, lines) rep(smap, lines, "box_dim", "b32", 0, 6) end })
    assert.is_false(ok)
    assert.matches(fmt(":%d: error: cp.async.bulk.tensor.2d.shared::cluster.global.tile.mbarrier::complete_tx::bytes: the tensor map at 0x", lines.tma), err, 1, true)
    assert.matches(fmt("as the tensormap.replace of line %d left it, is not usable: the inner box (6 elements of 4 bytes) is not a multiple of 16 bytes", lines.bad), err, 1, true)
    ok, err, lines = run("tmr_sw", { cp = true, acquire = true, extra = function(smap, lines) rep(smap, lines, "swizzle_mode", "b32", 1) end })
    assert.is_false(ok)
    assert.matches(fmt(":%d: error: cp.async.bulk.tensor", lines.tma), err, 1, true)
    assert.matches(fmt("line %d left it, is not usable: the inner box (128 bytes) exceeds the 32-byte span of swizzle 32B", lines.bad), err, 1, true)
    ok, err, lines = run("tmr_past", { cp = true, acquire = true, rows = RB + 1 })
    assert.is_false(ok)
    assert.matches(fmt(":%d: error: cp.async.bulk.tensor", lines.tma), err, 1, true)
    assert.matches(fmt("is not usable: the tensor (%d bytes from 0x", W * (RB + 1) * 4), err, 1, true)
  end)
end)
