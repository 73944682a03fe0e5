-- emu_tma_spec.lua -- TMA and bulk copies in the emulator (im2col mode: emu_tma_im2col_spec.lua):
-- tiled TMA loads and stores, where a copy into shared memory may write and the phase its bytes
-- belong to, the bulk-group waits, cp.reduce.async.bulk into shared::cluster, and tensormap.replace.

local H = require "helper"
local rt = require "ptxlua.emu"
local bit = require "bit"

local fmt = string.format
local function swz128(off) return bit.bxor(off, bit.rshift(bit.band(off, 0x380), 3)) end

-- a kernel that TMA-loads box (64 x ROWS bf16, 128B swizzle) at (x0, y0), then copies the tile's raw
-- bytes to out (u16 per element slot) with plain ld.shared
local function tma_kernel(ptx, rows)
  return ptx.kernel { name = "tma_box", target = "sm_90a",
    params = { { "tmap", "tensormap" }, { "out", "u16*" }, { "x0", "u32" }, { "y0", "u32" } },
    grid = { 1 }, block = { 128 },
    body = function(_, tmap, out, x0, y0)
      local plan = ptx.smem_plan()
      local bar = plan:alloc("bar", "b64", 1, { align = 8 })
      local tile = plan:alloc("tile", "bf16", { rows, 64 }, { swizzle = "128B" })
      local desc = ptx.reg.u64()
      ptx.op "cvta.param.u64" (desc, tmap)
      local tid = ptx.special "tid.x"
      ptx.if_(tid:eq(0), function()
        ptx.op "mbarrier.init.shared::cta.b64" (bar:addr(0), 1)
        ptx.op "mbarrier.arrive.expect_tx.shared::cta.b64" (ptx._, bar:addr(0), rows * 128)
        local x, y = ptx.reg.b32(), ptx.reg.b32()
        ptx.mov.b32(x, x0:load())
        ptx.mov.b32(y, y0:load())
        local ld = ptx.op "cp.async.bulk.tensor.2d.shared::cluster.global.tile.mbarrier::complete_tx::bytes"
        ld(tile:addr(0), ptx.taddr(desc, { x, y }), bar:addr(0))
      end)
      ptx.bar.sync(0)
      ptx.mbarrier_wait(bar, 0)
      local po = ptx.global_ptrs(out)
      for i = 0, rows * 64 / 128 - 1 do
        local idx = tid + i * 128
        local v = ptx.reg.u16()
        local sa = ptx.reg.u32()
        ptx.mov.u32(sa, ptx.sym "smem")
        ptx.ld.shared.u16(v, ptx.addr(sa + tile.offset + idx:shl(1)))
        ptx.st.global.u16(ptx.addr(po + idx:mul_wide(2)), v)
      end
    end }
end

describe("emulated TMA", function()
  it("loads a 2D box into 128B-swizzled shared memory, zeros outside the tensor", function()
    local ptx = H.fresh()
    local k = tma_kernel(ptx, 16)
    local dev = rt.device("emu")
    local W, Ht = 100, 40                           -- a tensor of 40 rows x 100 bf16 (row pitch 208 bytes: padded)
    local pitch = 104
    local src = dev:array("u16", pitch * Ht, function(i) return (i * 37) % 65536 end)
    local tm = dev:tensormap(src, { dims = { W, Ht }, strides = { pitch * 2 }, box = { 64, 16 }, swizzle = "128B", dtype = "bf16" })
    for _, c in ipairs { { 0, 0 }, { 64, 30 }, { 40, 0 } } do
      local out = dev:array("u16", 16 * 64, 0xA5A5)
      rt.launch(k, { device = dev, args = { tm, out, c[1], c[2] } })
      local got = out:read()
      local bad = 0
      for r = 0, 15 do
        for col = 0, 63 do
          local gx, gy = c[1] + col, c[2] + r
          local want = (gx < W and gy < Ht) and ((gy * pitch + gx + 1) * 37) % 65536 or 0
          local slot = swz128(r * 128 + col * 2) / 2
          if got[slot + 1] ~= want then bad = bad + 1 end
        end
      end
      assert.are.equal(0, bad, fmt("box at (%d, %d): %d elements misplaced", c[1], c[2], bad))
    end
  end)

  it("validates the tensor map like cuTensorMapEncodeTiled", function()
    local dev = rt.device("emu")
    local a = dev:array("bf16", 4096)
    local function bad(spec, msg)
      local ok, err = pcall(dev.tensormap, dev, a, spec)
      assert.is_false(ok)
      assert.matches(msg, err, 1, true)
    end
    bad({ dims = { 64, 64 }, box = { 64, 300 } }, "box[2] = 300 outside 1..256")
    bad({ dims = { 64, 64 }, box = { 64, 8 }, swizzle = "64B" }, "exceeds the 64-byte span of swizzle 64B")
    bad({ dims = { 60, 64 }, strides = { 120 }, box = { 8, 8 } }, "must be a multiple of 16")
    bad({ dims = { 64, 65 }, box = { 64, 8 } }, "runs past the end of buffer")
    bad({ dims = { 64, 64 }, box = { 4, 8 } }, "must be a multiple of 16 bytes")
    local ok = pcall(dev.tensormap, dev, a, { dims = { 64, 64 }, box = { 64, 8 }, swizzle = "128B" })
    assert.is_true(ok)
  end)

  it("refuses 128 bytes that are not one of its tensor maps", function()
    local ptx = H.fresh()
    local k = tma_kernel(ptx, 16)
    local dev = rt.device("emu")
    local out = dev:array("u16", 1024)
    local ok, err = pcall(rt.launch, k, { device = dev, args = { string.rep("\0", 128), out, 0, 0 } })
    assert.is_false(ok)
    assert.matches("not a tensor map of this emulator", err, 1, true)
  end)
end)

-- ------------------------------------------------------------------------------------------------
-- where TMA and bulk copies into shared memory may write, and the transaction
-- bytes their mbarrier phases count, on small kernels ptxas assembles for sm_90a:
--   * a copy must stay inside the allocation of a ptx.smem_plan it lands in -- inside one stage of a
--     staged one -- or inside the .shared variable it lands in: one that writes past it (a box or size
--     larger than the tile) is reported at the copy's line, naming the allocation, the stage and what
--     it overwrites;
--   * a copy's bytes belong to the phase it was issued in: one landing after that phase completed
--     (its bytes would count against the next) is reported at the copy's line, naming the phase's
--     expect_tx; so is one completing more bytes than a phase whose arrivals are all in still
--     expects (it would complete mid-copy); bytes that land before the expect_tx announcing them are
--     fine (the count is negative meanwhile: emu_mbarrier_spec.lua).
local function here() return debug.getinfo(2, "l").currentline end
local THIS = debug.getinfo(1, "S").source:sub(2)

-- one warp; thread 0 announces `expect` bytes on `bar` and issues the copies of `copies(ptx, plan, ps,
-- bar)` (it records their lines); everyone waits on bar's phase 0 and writes the first 32 words of
-- allocation `first` out
local function kernel(ptx, name, expect, layout, copies, lines)
  return ptx.kernel { name = name, target = "sm_90a", grid = { 1 }, block = { 32 },
    params = { { "src", "u32*" }, { "out", "u32*" } },
    body = function(_, src, out)
      local plan = ptx.smem_plan()
      local bar = plan:alloc("bar", "b64", 1, { align = 8 })
      local A = layout(ptx, plan)
      local ps, po = ptx.global_ptrs(src, out)
      local tid = ptx.special "tid.x"
      ptx.if_(tid:eq(0), function()
        ptx.op "mbarrier.init.shared::cta.b64" (bar:addr(0), 1)
        ptx.op "fence.mbarrier_init.release.cluster" ()
      end)
      ptx.bar.sync(0)
      ptx.if_(tid:eq(0), function()
        lines.expect = here() + 1
        ptx.op "mbarrier.arrive.expect_tx.shared::cta.b64" (ptx._, bar:addr(0), expect)
        copies(ptx, A, ps, bar)
      end)
      lines.wait = here() + 1
      ptx.mbarrier_wait(bar, 0)
      local sa, v = ptx.reg.u32(), ptx.reg.u32()
      ptx.mov.u32(sa, ptx.sym "smem")
      ptx.ld.shared.u32(v, ptx.addr(sa + A.first.offset + tid:shl(2)))
      ptx.st.global.u32(ptx.addr(po + tid:mul_wide(4)), v)
    end }
end

local function run(k, checks)
  local dev = rt.device("emu")
  local src = dev:array("u32", 256, function(i) return i * 7 end, "src")
  local out = dev:array("u32", 32, nil, "out"):poison()
  local ok, err = pcall(rt.launch, k, { device = dev, args = { src, out }, checks = checks })
  if ok then return nil, out:read() end
  return err
end

local BULK = "cp.async.bulk.shared::cluster.global.mbarrier::complete_tx::bytes"

-- a copy of n bytes into `dst` (an address), completing on bar
local function bulk(lines, key, n)
  return function(ptx, A, ps, bar)
    lines[key] = here() + 1
    ptx.op(BULK)(A.dst, ptx.addr(ps), n, bar:addr(0))
  end
end

describe("emulated copies into shared memory stay inside their allocation", function()
  -- a: 128 bytes, then b: 128 bytes (both 128-byte aligned: b right after a)
  local function two(ptx, plan)
    local a = plan:alloc("a", "u32", 32)
    plan:alloc("b", "u32", 32)
    return { first = a, dst = a:addr(0) }
  end

  it("a copy that fits its allocation runs cleanly (and lands)", function()
    local ptx, lines = H.fresh(), {}
    local k = kernel(ptx, "fits", 128, two, bulk(lines, "copy", 128), lines)
    H.assembles(ptx)
    local err, got = run(k, { uninit_shared = true, races = true })
    assert.is_nil(err)
    for i = 1, 32 do assert.are.equal(i * 7, got[i]) end
  end)

  it("a copy twice its allocation's size: at the copy, naming the allocation and the one it overwrites", function()
    local ptx, lines = H.fresh(), {}
    local k = kernel(ptx, "twice", 256, two, bulk(lines, "copy", 256), lines)
    H.assembles(ptx)
    local err = run(k)
    H.expect_error(err, THIS, lines.copy, BULK .. ": the copy (256 bytes) writes shared bytes 0x80..0x17f: 128 past the end of "
                   .. "allocation 'a' of plan 'smem' (0x80..0xff: 128 bytes), into allocation 'b' of plan 'smem': a box or size "
                   .. "larger than the tile it lands in overwrites its neighbours (thread (0,0,0) of CTA (0,0,0))")
  end)

  it("a copy that runs from one stage into the next: naming both stages", function()
    local ptx, lines = H.fresh(), {}
    local function staged(ptx, plan)
      local s = plan:alloc("s", "u32", 32, { stages = 3 })
      return { first = s, dst = s:addr(1) }
    end
    local k = kernel(ptx, "stages", 256, staged, bulk(lines, "copy", 256), lines)
    H.assembles(ptx)
    H.expect_error(run(k), THIS, lines.copy, "writes shared bytes 0x100..0x1ff: 128 past the end of stage 1 of allocation 's' of "
                   .. "plan 'smem' (0x100..0x17f: 128 bytes a stage, 3 stages), into stage 2 of allocation 's' of plan 'smem'")
  end)

  it("a copy into the padding after a stage (the stage's bytes are not a multiple of its alignment)", function()
    local ptx, lines = H.fresh(), {}
    local function padded(ptx, plan)
      local p = plan:alloc("p", "u32", 20, { stages = 2 })   -- 80 bytes, stages 128 apart
      return { first = p, dst = p:addr(0) }
    end
    local k = kernel(ptx, "padded", 96, padded, bulk(lines, "copy", 96), lines)
    H.assembles(ptx)
    H.expect_error(run(k), THIS, lines.copy, "writes shared bytes 0x80..0xdf: 16 past the end of stage 0 of allocation 'p' of plan "
                   .. "'smem' (0x80..0xcf: 80 bytes a stage, 2 stages), into the padding after it")
  end)

  it("a copy larger than a .shared variable: naming the variable", function()
    local ptx, lines = H.fresh(), {}
    local function var(ptx, plan)
      ptx.shared("tile", "u32", 16, 128)
      ptx.shared("next", "u32", 16, 128)
      return { first = { offset = 0 }, dst = ptx.addr(ptx.sym "tile") }
    end
    local k = kernel(ptx, "var", 128, var, bulk(lines, "copy", 128), lines)
    H.assembles(ptx)
    H.expect_error(run(k), THIS, lines.copy, "the copy (128 bytes) writes shared bytes 0x0..0x7f: 64 past the end of shared "
                   .. "variable 'tile' (0x0..0x3f: 64 bytes), into ")
  end)

  it("a TMA box larger than the tile it lands in: the box, the allocation and its neighbour, at the TMA", function()
    local ptx, lines = H.fresh(), {}
    local k = ptx.kernel { name = "box", target = "sm_90a", grid = { 1 }, block = { 32 },
      params = { { "map", "tensormap" }, { "out", "u32*" } },
      body = function(_, map, out)
        local plan = ptx.smem_plan()
        local bar = plan:alloc("bar", "b64", 1, { align = 8 })
        local tile = plan:alloc("tile", "f32", { 8, 32 }, { stages = 2 })    -- 8 rows of 32: 1024 bytes a stage
        local po = ptx.global_ptrs(out)
        local m = ptx.reg.u64()
        ptx.op "mov.u64" (m, map)
        ptx.op "cvta.param.u64" (m, m)
        local tid = ptx.special "tid.x"
        ptx.if_(tid:eq(0), function()
          ptx.op "mbarrier.init.shared::cta.b64" (bar:addr(0), 1)
          ptx.op "fence.mbarrier_init.release.cluster" ()
          ptx.op "mbarrier.arrive.expect_tx.shared::cta.b64" (ptx._, bar:addr(0), 1024)
          lines.copy = here() + 1
          ptx.op "cp.async.bulk.tensor.2d.shared::cluster.global.tile.mbarrier::complete_tx::bytes" (tile:addr(0), ptx.taddr(m, { 0, 0 }), bar:addr(0))
        end)
        ptx.mbarrier_wait(bar, 0)
        local v = ptx.reg.u32()
        ptx.ld.shared.u32(v, tile:addr(0))
        ptx.st.global.u32(ptx.addr(po), v)
      end }
    H.assembles(ptx)
    local dev = rt.device("emu")
    local a = dev:array("f32", 32 * 16, 1.5, "a")
    local ok, err = pcall(rt.launch, k, { device = dev, args = { dev:tensormap(a, { dims = { 32, 16 }, box = { 32, 12 } }), dev:array("u32", 1) } })
    assert.is_false(ok)
    H.expect_error(err, THIS, lines.copy, "the copy (a box of 32 x 12 4-byte elements, 1536 bytes) writes shared bytes 0x80..0x67f: "
                   .. "512 past the end of stage 0 of allocation 'tile' of plan 'smem' (0x80..0x47f: 1024 bytes a stage, 2 stages), "
                   .. "into stage 1 of allocation 'tile' of plan 'smem'")
  end)
end)

describe("emulated copies complete their bytes in the phase they were issued in", function()
  local function one(ptx, plan)
    local a = plan:alloc("a", "u32", 32)
    local b = plan:alloc("b", "u32", 32)
    return { first = a, dst = a:addr(0), b = b }
  end

  it("a second copy the phase's expect_tx does not count: its bytes would go to the next phase, at that copy", function()
    local ptx, lines = H.fresh(), {}
    local function two_copies(ptx, A, ps, bar)
      lines.copy1 = here() + 1
      ptx.op(BULK)(A.dst, ptx.addr(ps), 128, bar:addr(0))
      lines.copy2 = here() + 1
      ptx.op(BULK)(A.b:addr(0), ptx.addr(ps + 128), 128, bar:addr(0))
    end
    local k = kernel(ptx, "spill", 128, one, two_copies, lines)
    H.assembles(ptx)
    H.expect_error(run(k), THIS, lines.copy2, BULK .. ": the copy was issued in phase 0 of the mbarrier at shared 0x0 of CTA (0,0,0), "
                   .. "but lands after that phase completed: its 128 transaction bytes count against phase 1. Phase 0's expect_tx "
                   .. fmt("announced 128 bytes (line %d) and its copies had brought 128", lines.expect))
  end)

  it("a copy larger than what the phase still expects once its arrivals are in: it would complete mid-copy", function()
    local ptx, lines = H.fresh(), {}
    local k = kernel(ptx, "midcopy", 112, one, bulk(lines, "copy", 128), lines)
    H.assembles(ptx)
    H.expect_error(run(k), THIS, lines.copy, BULK .. ": the copy completes 128 transaction bytes on the mbarrier at shared 0x0 of CTA "
                   .. fmt("(0,0,0), whose phase 0 has all its arrivals and expects only 112 more (its expect_tx announced 112 bytes, line %d; ", lines.expect)
                   .. "its copies brought 0 before this one): the phase completes before the copy ends, and its last 16 bytes count against phase 1")
  end)

  it("two copies the expect_tx counts both of: clean", function()
    local ptx, lines = H.fresh(), {}
    local function both(ptx, A, ps, bar)
      ptx.op(BULK)(A.dst, ptx.addr(ps), 128, bar:addr(0))
      ptx.op(BULK)(A.b:addr(0), ptx.addr(ps + 128), 128, bar:addr(0))
    end
    local k = kernel(ptx, "both", 256, one, both, lines)
    H.assembles(ptx)
    local err, got = run(k, { uninit_shared = true, races = true })
    assert.is_nil(err)
    for i = 1, 32 do assert.are.equal(i * 7, got[i]) end
  end)

  it("an expect_tx short of the copy, with bytes still missing: at the copy, naming the expect_tx and the wait", function()
    local ptx, lines = H.fresh(), {}
    local k = kernel(ptx, "short", 144, one, bulk(lines, "copy", 128), lines)
    H.assembles(ptx)
    H.expect_error(run(k), THIS, lines.copy, BULK .. ": phase 0 of the mbarrier at shared 0x0 of CTA (0,0,0)",
                   fmt("its copies brought 128 transaction bytes (the last at line %d) where its expect_tx announced 144 (line %d): "
                       .. "16 bytes are missing, and no copy in flight will bring them; a deadlock: mbarrier.try_wait.parity.shared::cta.b64 at line %d",
                       lines.copy, lines.expect, lines.wait))
  end)
end)

local assembles = H.assembles               -- the kernel's PTX must be what ptxas takes for sm_90a

-- deterministic inputs (Park-Miller), never all zeros
local function lcg(seed)
  local r = seed
  return function() r = r * 16807 % 2147483647; return r end
end

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

describe("a warp-synchronous hand-off to the async proxy (bar.warp.sync)", function()
  -- one warp: every lane stores its word of the tile, fences for the async proxy, bar.warp.sync
  -- (what __syncwarp() compiles to), then lane 0 bulk-stores the tile: bar.warp.sync orders the
  -- lanes' accesses among themselves, so this is correct; the fence after it, or no bar.warp.sync,
  -- is not
  local function run(order)
    local ptx = H.fresh()
    local at
    local k = ptx.kernel { name = "ws", target = "sm_90a", grid = { 1 }, block = { 32 }, params = { { "out", "u32*" } },
      body = function(_, out)
        local plan = ptx.smem_plan()
        local tile = plan:alloc("tile", "u32", 32, { align = 128 })
        local po = ptx.global_ptrs(out)
        local tid = ptx.special "tid.x"
        local sa = ptx.reg.u32()
        ptx.mov.u32(sa, ptx.sym "smem")
        ptx.st.shared.u32(ptx.addr(sa + tile.offset + tid:shl(2)), tid * 3 + 1)
        for _, step in ipairs(order) do
          if step == "fence" then ptx.op "fence.proxy.async.shared::cta" () else ptx.op "bar.warp.sync" (0xffffffff) end
        end
        ptx.if_(tid:eq(0), function()
          at = here() + 1
          ptx.op "cp.async.bulk.global.shared::cta.bulk_group" (ptx.addr(po), tile:addr(0), 128)
          ptx.op "cp.async.bulk.commit_group" ()
          ptx.op "cp.async.bulk.wait_group" (0)
        end)
      end }
    assembles(ptx)
    local dev = rt.device("emu")
    local out = dev:array("u32", 32, 0)
    local ok, err = pcall(rt.launch, k, { device = dev, args = { out } })
    return ok, err, at, out
  end
  it("takes the lanes' fences before bar.warp.sync as ordering their stores before lane 0's bulk store", function()
    local ok, err, _, out = run { "fence", "sync" }
    assert.is_true(ok, err)
    local got = out:read()
    for i = 0, 31 do assert.are.equal(i * 3 + 1, got[i + 1]) end
  end)
  it("reports a fence after bar.warp.sync, and no bar.warp.sync at all, at the store", function()
    for _, order in ipairs { { "sync", "fence" }, { "fence" } } do
      local ok, err, at = run(order)
      assert.is_false(ok, table.concat(order, ", "))
      assert.matches(fmt(":%d: error: cp.async.bulk.global.shared::cta.bulk_group", at), err, 1, true)
      assert.matches("reads shared byte 0x4, written by thread (1,0,0) of CTA (0,0,0) with an ordinary store", err, 1, true)
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
