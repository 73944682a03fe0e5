-- emu_simt_spec.lua -- the emulator's warps and blocks: divergence and reconvergence, the warp-level
-- instructions (shfl, vote, match, redux, elect.sync) and barriers (bar.sync and its misuse, deadlock).

local H = require "helper"
local rt = require "ptxlua.emu"

local dev = rt.device("emu")
local E = require "emu_common"
local T = E.on(dev)
local per_thread, run_error = T.per_thread, T.run_error
local THIS = debug.getinfo(1, "S").source:sub(2)

-- a line of this file, found by a marker comment on it
local function line_of(marker) return H.marker_line(THIS, marker) end

describe("emulator: divergence and reconvergence", function()
  it("runs both sides of a branch and reconverges after if/else and after loops of lane-dependent length", function()
    local r = per_thread("u32", function(ptx, tid)
      local x = ptx.u32(0)
      local inside = ptx.reg.b32()
      ptx.if_(tid:lt(10), function()
        ptx.add.u32(x, x, 1)
        ptx.activemask.b32(inside)
      end, function()
        ptx.add.u32(x, x, 100)
      end)
      local after = ptx.reg.b32(); ptx.activemask.b32(after)
      local acc = ptx.u32(0)
      ptx.range(ptx.u32(0), tid + 1, 1, function(i) ptx.add.u32(acc, acc, i) end)
      local after2 = ptx.reg.b32(); ptx.activemask.b32(after2)
      return { x, after:as("u32"), acc, after2:as("u32"), tid:lt(10):select(inside:as("u32"), ptx.u32(0)) }
    end)
    for l = 0, 31 do
      assert.are.same({ l < 10 and 1 or 100, 0xffffffff, l * (l + 1) / 2, 0xffffffff, l < 10 and 0x3ff or 0 }, r[l + 1])
    end
  end)
end)

describe("emulator: warp-level instructions", function()
  it("shuffles up, down, butterfly and by index, with sub-warp segments and clamps", function()
    local r = per_thread("u32", function(ptx, tid)
      local v = tid * 10 + 1
      local function sh(mode, b, c) local d = ptx.reg.u32(); ptx.op("shfl.sync." .. mode .. ".b32")(d, v, b, c, 0xffffffff); return d end
      return { sh("up", 1, 0), sh("down", 1, 31), sh("bfly", 1, 31), sh("idx", 5, 31), sh("idx", 2, 0x181f),
               sh("down", 1, 0x181f), sh("up", 3, 0x1800), sh("bfly", 16, 31), sh("idx", 37, 31) }
    end)
    for l = 0, 31 do
      local seg = l - l % 8
      local function v(j) return j * 10 + 1 end
      assert.are.same({ v(l >= 1 and l - 1 or l), v(l < 31 and l + 1 or l), v(bit.bxor(l, 1)), v(5), v(seg + 2),
                        v(l % 8 < 7 and l + 1 or l), v(l % 8 >= 3 and l - 3 or l), v(bit.bxor(l, 16)), v(5) }, r[l + 1],
                        "lane " .. l)
    end
  end)

  it("votes, ballots, reduces and matches across the warp", function()
    local r = per_thread("u32", function(ptx, tid)
      local function vote(mode, p) local q = ptx.pred(); ptx.op("vote.sync." .. mode .. ".pred")(q, p, 0xffffffff); return q:select(ptx.u32(1), ptx.u32(0)) end
      local bal = ptx.reg.b32(); ptx.vote.sync.ballot.b32(bal, tid:band(1):eq(0), 0xffffffff)
      local sum = ptx.reg.u32(); ptx.redux.sync.add.u32(sum, tid, 0xffffffff)
      local mn = ptx.reg.s32(); ptx.redux.sync.min.s32(mn, ptx.s32(0) - tid:as("s32"), 0xffffffff)
      local ma = ptx.reg.b32(); ptx.match.any.sync.b32(ma, tid:shr(3):as("b32"), 0xffffffff)
      local mall = ptx.reg.b32(); ptx.match.all.sync.b32(mall, ptx.b32(5), 0xffffffff)
      return { vote("all", tid:lt(40)), vote("any", tid:eq(3)), vote("uni", tid:lt(16)), vote("all", tid:lt(16):inv()),
               bal:as("u32"), sum, mn:as("u32"), ma:as("u32"), mall:as("u32") }
    end)
    for l = 0, 31 do
      assert.are.same({ 1, 1, 0, 0, 0x55555555, 496, 2 ^ 32 - 31, 0xff * 2 ^ (8 * math.floor(l / 8)), 0xffffffff }, r[l + 1])
    end
  end)

  it("reports a shuffle whose membermask names lanes that are elsewhere", function()
    local err = run_error({}, function(ptx)
      local tid = ptx.special "tid.x"
      local d = ptx.reg.u32()
      ptx.if_(tid:lt(16), function()
        ptx.shfl.sync.bfly.b32(d, tid, 1, 31, 0xffffffff) -- SHFLMASK
      end)
    end)
    assert.truthy(err and err:find(THIS .. ":" .. line_of("-- SHFLMASK") .. ": error: shfl.sync.bfly.b32", 1, true), err)
    assert.truthy(err:find("did not execute this instruction", 1, true), err)
  end)
end)

describe("emulator: barriers", function()
  -- every thread writes s[tid], then reads s[(tid + 32) % n] (another warp's element)
  local function exchange(ptx, with_barrier)
    local tid = ptx.special "tid.x"
    local s = ptx.reg.u32(); ptx.mov.u32(s, ptx.shared("s", "u32", 128))
    ptx.st.shared.u32(ptx.addr(tid:mad(4, s)), tid) -- XCHG_ST
    if with_barrier then ptx.bar.sync(0) end
    local j = (tid + 32):band(127)
    local v = ptx.reg.u32()
    ptx.ld.shared.u32(v, ptx.addr(j:mad(4, s))) -- XCHG_LD
    return v
  end

  it("synchronizes the warps of a CTA at bar.sync, with no race reported", function()
    local r = per_thread("u32", function(ptx) return exchange(ptx, true) end,
                         { threads = 128, checks = { races = true, uninit_shared = true } })
    for t = 0, 127 do assert.are.equal((t + 32) % 128, r[t + 1][1]) end
  end)

  it("reports the race of a missing bar.sync (opt-in) and the read of never-written shared memory", function()
    local err = run_error({}, function(ptx) exchange(ptx, false) end, { block = { 128 }, checks = { races = true } })
    assert.truthy(err and err:find(THIS .. ":" .. line_of("-- XCHG_ST") .. ": error: shared-memory race", 1, true), err)
    err = run_error({}, function(ptx) exchange(ptx, false) end, { block = { 128 }, checks = { uninit_shared = true } })
    assert.truthy(err and err:find(THIS .. ":" .. line_of("-- XCHG_LD") .. ": error: ld.shared.u32 by thread (0,0,0)", 1, true), err)
    assert.truthy(err:find("which no thread has written", 1, true), err)
  end)

  it("reports a deadlock when threads exited while others wait, and an aligned barrier in divergent code", function()
    local err = run_error({}, function(ptx)
      local tid = ptx.special "tid.x"
      ptx.at(tid:ge(32)).ret()
      ptx.bar.sync(0) -- DEADLOCK
    end, { block = { 64 } })
    assert.truthy(err and err:find(THIS .. ":" .. line_of("-- DEADLOCK") .. ": error: deadlock in CTA (0,0,0): bar.sync", 1, true), err)
    assert.truthy(err:find("waits on barrier 0 for 64 threads, 32 arrived; warp 1: 32 threads exited", 1, true), err)
    err = run_error({}, function(ptx)
      local tid = ptx.special "tid.x"
      ptx.if_(tid:lt(16), function()
        ptx.bar.sync(0) -- HALFWARP
      end)
    end, { block = { 64 } })
    assert.truthy(err and err:find(THIS .. ":" .. line_of("-- HALFWARP") .. ": error: bar.sync", 1, true), err)
    assert.truthy(err:find("part of a warp", 1, true), err)
    err = run_error({}, function(ptx)
      local tid = ptx.special "tid.x"
      ptx.if_(tid:lt(32), function() ptx.bar.sync(1, 64) end, function()
        ptx.bar.sync(1, 96) -- COUNTS
      end)
    end, { block = { 64 } })
    assert.truthy(err and err:find(THIS .. ":" .. line_of("-- COUNTS") .. ": error: bar.sync", 1, true), err)
    assert.truthy(err:find("expects 96 threads here but 64", 1, true), err)
  end)

  it("reduces across the CTA with bar.red and pairs producers with consumers through named barriers", function()
    local r = per_thread("u32", function(ptx, tid)
      local c = ptx.reg.u32()
      ptx.bar.red.popc.u32(c, 0, tid:band(3):eq(0))
      local all, any = ptx.pred(), ptx.pred()
      ptx.bar.red["and"].pred(all, 1, tid:lt(1000))
      ptx.bar.red["or"].pred(any, 2, tid:eq(70))
      -- warp 0 produces into shared memory, warp 1 consumes: bar.arrive / bar.sync on barrier 3 (64 threads)
      local s = ptx.reg.u32(); ptx.mov.u32(s, ptx.shared("buf", "u32", 32))
      local got = ptx.u32(0)
      local lane = tid:band(31)
      ptx.if_(tid:lt(32), function()
        ptx.st.shared.u32(ptx.addr(lane:mad(4, s)), lane * 7)
        ptx.bar.arrive(3, 64)
      end, function()
        ptx.if_(tid:lt(64), function()
          ptx.bar.sync(3, 64)
          ptx.ld.shared.u32(got, ptx.addr(lane:mad(4, s)))
        end)
      end)
      return { c, all:select(ptx.u32(1), ptx.u32(0)), any:select(ptx.u32(1), ptx.u32(0)), got }
    end, { threads = 96 })
    for t = 0, 95 do
      assert.are.same({ 24, 1, 1, (t >= 32 and t < 64) and (t % 32) * 7 or 0 }, r[t + 1])
    end
  end)
end)

describe("emulated elect.sync", function()
  it("elects the lowest active lane", function()
    local ptx = H.fresh()
    local k = ptx.kernel { name = "elect", target = "sm_90a", grid = { 1 }, block = { 32 }, params = { { "out", "u32*" } },
      body = function(_, out)
        local tid = ptx.special "tid.x"
        local po = ptx.global_ptrs(out)
        local skip = ptx.label "skip"
        ptx.at(tid:lt(5)).bra(skip)
        local d, p = ptx.reg.u32(), ptx.reg.pred()
        ptx.op "elect.sync" (ptx.pair(d, p), 0xffffffe0)
        local v = ptx.reg.u32()
        ptx.selp.u32(v, 1000, 0, p)
        ptx.st.global.u32(ptx.addr(po + tid:mul_wide(4)), v + d)
        ptx.place(skip)
      end }
    local dev = rt.device("emu")
    local out = dev:array("u32", 32, 7)
    rt.launch(k, { device = dev, args = { out } })
    local got = out:read()
    for t = 0, 31 do
      local want = t < 5 and 7 or (t == 5 and 1005 or 5)
      assert.are.equal(want, got[t + 1], "lane " .. t)
    end
  end)
end)
