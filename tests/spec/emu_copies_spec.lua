-- emu_copies_spec.lua -- where TMA and bulk copies into shared memory may write, and the transaction
-- bytes their mbarrier phases count, on small kernels ptxas assembles for sm_90a:
--   * a copy must stay inside the allocation of a ptx.smem_plan it lands in -- inside one stage of a
--     staged one -- or inside the .shared variable it lands in: one that writes past it (a box or size
--     larger than the tile) is reported at the copy's line, naming the allocation, the stage and what
--     it overwrites;
--   * a copy's bytes belong to the phase it was issued in: one landing after that phase completed
--     (its bytes would count against the next) is reported at the copy's line, naming the phase's
--     expect_tx; so is one completing more bytes than a phase whose arrivals are all in still
--     expects (it would complete mid-copy); bytes that land before the expect_tx announcing them are
--     fine (the count is negative meanwhile: emu_hopper2_spec.lua).
local H = require "helper"
local rt = require "ptxlua.emu"

local fmt = string.format
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
