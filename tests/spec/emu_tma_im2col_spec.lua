-- emu_tma_im2col_spec.lua -- TMA im2col mode end to end on the emulator: dev:tensormap{ mode = "im2col" }
-- and the cp.async.bulk.tensor.{3,4,5}d ... .im2col loads (offsets, multicast), .im2col_no_offs
-- stores and reductions, and im2col prefetches, each kernel written here, its PTX assembled by
-- ptxas for sm_90a, and every shared-memory element it copies back compared with an im2col
-- computed here the convolution way (output pixel m -> image, row, column -> input pixel at
-- lower corner + stride x position + filter offset), not by re-walking the ISA's pixel order.
-- Then the mismatches a user can make (a tile map under an im2col copy and the reverse, a rank
-- that is not the copy's, an offsets vector of the wrong length) at the user's line. Last, the
-- bulk-group checks on im2col stores.
local H = require "helper"
local rt = require "ptxlua.emu"
local bit = require "bit"

local fmt = string.format

local SPATIAL = { "w", "h", "d" }

local assembles = H.assembles               -- the PTX of every kernel a test traces is assembled by ptxas

-- the shared byte address (relative to a 1024-aligned tile) of linear byte off under swizzle sw
local function swz(sw, off)
  local B = ({ none = 0, ["32B"] = 1, ["64B"] = 2, ["128B"] = 3 })[sw]
  local mask = bit.lshift(bit.lshift(1, B) - 1, 7)
  return bit.bxor(off, bit.rshift(bit.band(off, mask), 3))
end

-- An im2col case: an N(D)(H)WC tensor of element size es (2 or 4 bytes), with spatial sizes sp
-- (W first), C channels, padded row pitch; the pixel box corners lo/hi, traversal strides st (W
-- first), channels per pixel cpp from channel c0, ppc pixels from output pixel m0.
-- Returns the tensor's value at (n, spatial, c) (or nil outside) and the reference im2col.
local function tensor_value(case, n, s, c)
  if n < 0 or n >= case.N or c < 0 or c >= case.C then return nil end
  local lin = n
  for i = #case.sp, 1, -1 do
    if s[i] < 0 or s[i] >= case.sp[i] then return nil end
    lin = lin * case.sp[i] + s[i]
  end
  local v = (lin * case.C + c) * 2654435761 % 4294967296
  return case.es == 2 and bit.band(bit.rshift(v, 8), 0xffff) or bit.tobit(v) % 4294967296
end

-- the output grid of the convolution the box describes: per spatial dim, the count of positions
-- lo, lo + st, ... up to size - 1 + hi
local function out_sizes(case)
  local q = {}
  for i = 1, #case.sp do q[i] = math.floor((case.sp[i] - 1 + case.hi[i] - case.lo[i]) / case.st[i]) + 1 end
  return q
end

-- output pixel m (0-based, W fastest) -> image n and the window's corner (W first)
local function out_pixel(case, m)
  local q = out_sizes(case)
  local s = {}
  for i = 1, #q do
    s[i] = case.lo[i] + (m % q[i]) * case.st[i]
    m = math.floor(m / q[i])
  end
  return m, s
end

-- the tensor coordinates of output pixel m: {c0, w, h, d, n} innermost first
local function start_coords(case, m)
  local n, s = out_pixel(case, m)
  local c = { case.c0 }
  for i = 1, #s do c[#c + 1] = s[i] end
  c[#c + 1] = n
  return c
end

-- what im2col must put at element (pixel p, channel j) for filter offsets off (W first)
local function reference(case, off, p, j)
  local n, s = out_pixel(case, case.m0 + p)
  local at = {}
  for i = 1, #s do at[i] = s[i] + off[i] end
  return tensor_value(case, n, at, case.c0 + j)
end

local function make_tensor(dev, case)
  local pitch = case.C                                  -- elements a pixel (no padding between pixels)
  local total = case.N * pitch
  for i = 1, #case.sp do total = total * case.sp[i] end
  local ty = case.es == 2 and "u16" or "u32"
  local a = dev:array(ty, total)
  local vals, idx = {}, 1
  local function fill(dim, n, s)
    if dim == 0 then
      for c = 0, case.C - 1 do vals[idx] = tensor_value(case, n, s, c); idx = idx + 1 end
      return
    end
    for x = 0, case.sp[dim] - 1 do s[dim] = x; fill(dim - 1, n, s) end
  end
  for n = 0, case.N - 1 do fill(#case.sp, n, {}) end
  a:write(vals)
  local dims = { case.C }
  for i = 1, #case.sp do dims[#dims + 1] = case.sp[i] end
  dims[#dims + 1] = case.N
  local es = { 1 }
  for i = 1, #case.sp do es[#es + 1] = case.st[i] end
  es[#es + 1] = 1
  local map = dev:tensormap(a, { mode = "im2col", dtype = case.dtype, dims = dims, lower_corner = case.lo, upper_corner = case.hi,
    channels_per_pixel = case.cpp, pixels_per_column = case.ppc, element_strides = es, swizzle = case.sw, oob_fill = case.oob })
  return a, map
end

-- a kernel: thread 0 issues one D-d im2col load (tx bytes expected: `expect`), every thread waits
-- and copies the tile's raw slots (es bytes each) out; `multicast`: a 2-CTA cluster where CTA 0
-- loads into both CTAs and each copies its own tile to its half of out
local function load_kernel(ptx, name, D, case, opts)
  opts = opts or {}
  local es = case.es
  local bytes = case.ppc * case.cpp * es
  local span = case.sw == "none" and bytes or math.ceil(bytes / 128) * 128
  local slots = span / es
  local params = { { "tmap", "tensormap" }, { "out", es == 2 and "u16*" or "u32*" } }
  local cn = { "c" }
  for i = 1, D - 2 do cn[#cn + 1] = SPATIAL[i] end
  cn[#cn + 1] = "n"
  for _, c in ipairs(cn) do params[#params + 1] = { c, "s32" } end
  for i = 1, D - 2 do params[#params + 1] = { "o" .. SPATIAL[i], "u16" } end
  local ncta = opts.multicast and 2 or 1
  return ptx.kernel { name = name, target = "sm_90a", grid = { ncta }, block = { 128 },
    cluster = opts.multicast and { 2 } or nil, params = params,
    body = function(_, tmap, out, ...)
      local args = { ... }
      local plan = ptx.smem_plan()
      local bar = plan:alloc("bar", "b64", 1, { align = 8 })
      local tile = plan:alloc("tile", "b8", span, { align = 1024 })
      local desc = ptx.reg.u64()
      ptx.op "cvta.param.u64" (desc, tmap)
      local tid = ptx.special "tid.x"
      local rank = opts.multicast and ptx.special "cluster_ctarank" or nil
      ptx.if_(tid:eq(0), function()
        ptx.op "mbarrier.init.shared::cta.b64" (bar:addr(0), 1)
        ptx.op "mbarrier.arrive.expect_tx.shared::cta.b64" (ptx._, bar:addr(0), opts.expect or bytes)
      end)
      if opts.multicast then
        ptx.op "barrier.cluster.arrive.release.aligned" ()
        ptx.op "barrier.cluster.wait.acquire.aligned" ()
      else
        ptx.bar.sync(0)
      end
      local issue = tid:eq(0)
      if opts.multicast then issue = issue:and_(rank:eq(0)) end
      ptx.if_(issue, function()
        local coords, offs = {}, {}
        for i = 1, D do coords[i] = ptx.reg.b32(); ptx.mov.b32(coords[i], args[i]:load()) end
        for i = 1, D - 2 do offs[i] = ptx.reg.b16(); ptx.mov.b16(offs[i], args[D + i]:load()) end
        if opts.offsets then offs = opts.offsets(ptx, offs) end
        if opts.multicast then
          local mask = ptx.reg.b16()
          ptx.mov.b16(mask, 3)
          local ld = ptx.op(fmt("cp.async.bulk.tensor.%dd.shared::cluster.global.im2col.mbarrier::complete_tx::bytes.multicast::cluster", D))
          opts.line = debug.getinfo(1, "l").currentline + 1
          ld(tile:addr(0), ptx.taddr(desc, coords), bar:addr(0), offs, mask)
        else
          local ld = ptx.op(fmt("cp.async.bulk.tensor.%dd.shared::cluster.global.im2col.mbarrier::complete_tx::bytes", D))
          opts.line = debug.getinfo(1, "l").currentline + 1
          ld(tile:addr(0), ptx.taddr(desc, coords), bar:addr(0), offs)
          ptx.op(fmt("cp.async.bulk.prefetch.tensor.%dd.L2.global.im2col", D)) (ptx.taddr(desc, coords), offs)
        end
      end)
      ptx.mbarrier_wait(bar, 0)
      local po = ptx.global_ptrs(out)
      local base = ptx.reg.u32()
      if opts.multicast then ptx.mul.lo.u32(base, rank, slots) else ptx.mov.u32(base, 0) end
      local sa = ptx.reg.u32()
      ptx.mov.u32(sa, ptx.sym "smem")
      for i = 0, math.ceil(slots / 128) - 1 do
        local idx = tid + i * 128
        ptx.if_(idx:lt(slots), function()
          local v = es == 2 and ptx.reg.u16() or ptx.reg.u32()
          local g = ptx.reg.u32()
          ptx.add.u32(g, idx, base)
          if es == 2 then
            ptx.ld.shared.u16(v, ptx.addr(sa + tile.offset + idx:shl(1)))
            ptx.st.global.u16(ptx.addr(po + g:mul_wide(2)), v)
          else
            ptx.ld.shared.u32(v, ptx.addr(sa + tile.offset + idx:shl(2)))
            ptx.st.global.u32(ptx.addr(po + g:mul_wide(4)), v)
          end
        end)
      end
      if opts.multicast then
        ptx.op "barrier.cluster.arrive.release.aligned" ()
        ptx.op "barrier.cluster.wait.acquire.aligned" ()
      end
    end }
end

-- run one case for each filter offset in offs_list; returns the count of checked elements
local function run_case(case, offs_list, opts)
  opts = opts or {}
  local D = #case.sp + 2
  local ptx = H.fresh()
  local k = load_kernel(ptx, "i2c" .. D, D, case, opts)
  assembles(ptx)
  local dev = rt.device("emu")
  local _, map = make_tensor(dev, case)
  local es = case.es
  local bytes = case.ppc * case.cpp * es
  local span = case.sw == "none" and bytes or math.ceil(bytes / 128) * 128
  local slots = span / es
  local ncta = opts.multicast and 2 or 1
  local sentinel = es == 2 and 0xA5A5 or 0xA5A5A5A5
  local nan = es == 2 and 0x7fff or 0x7fffffff
  local checked = 0
  for _, off in ipairs(offs_list) do
    local out = dev:array(es == 2 and "u16" or "u32", slots * ncta, sentinel)
    local args = { map, out }
    for _, c in ipairs(start_coords(case, case.m0)) do args[#args + 1] = c end
    for i = 1, D - 2 do args[#args + 1] = off[i] % 65536 end
    rt.launch(k, { device = dev, args = args })
    local got = out:read()
    for cta = 0, ncta - 1 do
      local bad, first = 0, nil
      for p = 0, case.ppc - 1 do
        for j = 0, case.cpp - 1 do
          local want = reference(case, off, p, j)
          if want == nil then want = case.oob == "nan" and nan or 0 end
          local slot = swz(case.sw, (p * case.cpp + j) * es) / es
          local v = got[cta * slots + slot + 1]
          if v ~= want then
            bad = bad + 1
            first = first or fmt("pixel %d channel %d: got 0x%x, want 0x%x", p, j, v, want)
          end
          checked = checked + 1
        end
      end
      assert.are.equal(0, bad, fmt("%dd, offsets {%s}, CTA %d: %d elements wrong (first: %s)", D,
        table.concat(off, ", "), cta, bad, tostring(first)))
    end
  end
  return checked
end

describe("emulated TMA im2col loads", function()
  it("loads 4d NHWC columns: padding, uneven H/W, OOB channels, offsets, 32B swizzle, a column across images", function()
    -- 3x3 filter, padding 1: box from -1 to size - 2; output 7 x 5 per image, 48 pixels from m = 9
    -- run from image 0 into image 1; channels 16..31 of 24: the upper 8 are out of bounds
    local case = { N = 2, sp = { 7, 5 }, C = 24, es = 2, dtype = "f16", lo = { -1, -1 }, hi = { -1, -1 }, st = { 1, 1 },
                   cpp = 16, ppc = 48, c0 = 16, m0 = 9, sw = "32B" }
    local n = run_case(case, { { 0, 0 }, { 2, 1 }, { 1, 2 }, { 2, 2 } })
    assert.are.equal(4 * 48 * 16, n)
    case.c0 = 8                                         -- channels 8..23: all in bounds
    run_case(case, { { 1, 1 } })
  end)

  it("walks strided boxes (element strides 2 x 3) with 64B and 128B swizzles and the NaN fill", function()
    -- stride 2 along W, 3 along H, padding 2 below, a 5 x 4 filter with padding 1 above
    local case = { N = 3, sp = { 11, 9 }, C = 32, es = 2, dtype = "bf16", lo = { -2, -2 }, hi = { 1 - 4, 1 - 3 }, st = { 2, 3 },
                   cpp = 32, ppc = 40, c0 = 0, m0 = 5, sw = "64B" }
    run_case(case, { { 0, 0 }, { 4, 3 }, { 3, 1 } })
    case.sw, case.cpp, case.C, case.oob = "128B", 64, 64, "nan"
    run_case(case, { { 0, 0 }, { 4, 3 } })
  end)

  it("loads 3d NWC and 5d NDHWC columns (f32 elements, negative offsets)", function()
    local c3 = { N = 2, sp = { 37 }, C = 8, es = 4, dtype = "f32", lo = { -3 }, hi = { -3 }, st = { 1 },
                 cpp = 8, ppc = 64, c0 = 0, m0 = 3, sw = "32B" }
    run_case(c3, { { 0 }, { 6 }, { -2 } })
    local c5 = { N = 2, sp = { 5, 4, 3 }, C = 16, es = 2, dtype = "f16", lo = { -1, -1, -1 }, hi = { -1, -1, 0 }, st = { 1, 1, 1 },
                 cpp = 16, ppc = 100, c0 = 0, m0 = 7, sw = "none" }
    run_case(c5, { { 0, 0, 0 }, { 2, 1, 1 }, { 1, 2, 0 } })
  end)

  it("multicasts an im2col load into both CTAs of a cluster", function()
    local case = { N = 1, sp = { 9, 6 }, C = 16, es = 2, dtype = "f16", lo = { -1, -1 }, hi = { -1, -1 }, st = { 1, 1 },
                   cpp = 16, ppc = 32, c0 = 0, m0 = 4, sw = "32B" }
    assert.are.equal(2 * 2 * 32 * 16, run_case(case, { { 1, 0 }, { 2, 2 } }, { multicast = true }))
  end)

  it("completes exactly pixels x channels x element bytes on the mbarrier", function()
    local case = { N = 1, sp = { 6, 6 }, C = 16, es = 2, dtype = "f16", lo = { 0, 0 }, hi = { 0, 0 }, st = { 1, 1 },
                   cpp = 16, ppc = 24, c0 = 0, m0 = 0, sw = "none" }
    run_case(case, { { 0, 0 } })                       -- expect_tx of 24 x 16 x 2 completes the phase
    local ptx = H.fresh()
    local opts = { expect = 24 * 16 * 2 + 32 }
    local k = load_kernel(ptx, "short", 4, case, opts)
    assembles(ptx)
    local dev = rt.device("emu")
    local _, map = make_tensor(dev, case)
    local out = dev:array("u16", 24 * 16)
    local ok, err = pcall(rt.launch, k, { device = dev, args = { map, out, 0, 0, 0, 0, 0, 0 } })
    assert.is_false(ok)
    assert.matches("can never complete: all its 1 arrivals are in, but its copies brought 768 transaction bytes", err, 1, true)
    assert.matches("where its expect_tx announced 800", err, 1, true)
    assert.matches("32 bytes are missing, and no copy in flight will bring them; a deadlock", err, 1, true)
  end)
end)

-- a kernel that fills a [ppc][cpp] u32 tile (value 1000 + pixel * 64 + channel, swizzled like a load)
-- with st.shared, fences it to the async proxy and stores or reduces it through an im2col map
local function store_kernel(ptx, name, case, op)
  local bytes = case.ppc * case.cpp * 4
  return ptx.kernel { name = name, target = "sm_90a", grid = { 1 }, block = { 128 },
    params = { { "tmap", "tensormap" }, { "c", "s32" }, { "w", "s32" }, { "h", "s32" }, { "n", "s32" } },
    body = function(_, tmap, c, w, h, n)
      local plan = ptx.smem_plan()
      local tile = plan:alloc("tile", "b8", bytes, { align = 1024 })
      local desc = ptx.reg.u64()
      ptx.op "cvta.param.u64" (desc, tmap)
      local tid = ptx.special "tid.x"
      local sa = ptx.reg.u32()
      ptx.mov.u32(sa, ptx.sym "smem")
      for i = 0, math.ceil(case.ppc * case.cpp / 128) - 1 do
        local idx = tid + i * 128
        ptx.if_(idx:lt(case.ppc * case.cpp), function()
          local p, j, v = ptx.reg.u32(), ptx.reg.u32(), ptx.reg.u32()
          ptx.div.u32(p, idx, case.cpp)
          ptx.rem.u32(j, idx, case.cpp)
          ptx.mad.lo.u32(v, p, 64, j)
          ptx.add.u32(v, v, 1000)
          local o = ptx.reg.u32()                       -- the 32B swizzle: bit 4 ^= bit 7
          ptx.shl.b32(o, idx, 2)
          local t = ptx.reg.u32()
          ptx.shr.u32(t, o, 3)
          ptx["and"].b32(t, t, 16)
          ptx.xor.b32(o, o, t)
          ptx.st.shared.u32(ptx.addr(sa + tile.offset + o), v)
        end)
      end
      ptx.op "fence.proxy.async.shared::cta" ()
      ptx.bar.sync(0)
      ptx.if_(tid:eq(0), function()
        local co = {}
        for i, p in ipairs { c, w, h, n } do co[i] = ptx.reg.b32(); ptx.mov.b32(co[i], p:load()) end
        if op == "store" then
          ptx.op "cp.async.bulk.tensor.4d.global.shared::cta.im2col_no_offs.bulk_group" (ptx.taddr(desc, co), tile:addr(0))
        else
          ptx.op "cp.reduce.async.bulk.tensor.4d.global.shared::cta.add.im2col_no_offs.bulk_group" (ptx.taddr(desc, co), tile:addr(0))
        end
        ptx.op "cp.async.bulk.commit_group" ()
        ptx.op "cp.async.bulk.wait_group" (0)
      end)
    end }
end

describe("emulated TMA im2col stores and reductions", function()
  it("stores and add-reduces a column back to its pixels, skipping those outside the tensor", function()
    local case = { N = 2, sp = { 7, 5 }, C = 16, es = 4, dtype = "u32", lo = { -1, -1 }, hi = { -1, 0 }, st = { 1, 2 },
                   cpp = 8, ppc = 40, c0 = 8, m0 = 2, sw = "32B" }
    for _, op in ipairs { "store", "add" } do
      local ptx = H.fresh()
      local k = store_kernel(ptx, "im2col_" .. op, case, op)
      assembles(ptx)
      local dev = rt.device("emu")
      local a, map = make_tensor(dev, case)
      local before = a:read()
      local args = { map }
      for _, c in ipairs(start_coords(case, case.m0)) do args[#args + 1] = c end
      rt.launch(k, { device = dev, args = args })
      local after = a:read()
      -- what each element must be: untouched unless pixel p of the walk (no offsets) covers it
      local want = {}
      for i, v in ipairs(before) do want[i] = v end
      local q = out_sizes(case)
      local hits = 0
      for p = 0, case.ppc - 1 do
        local nimg, s = out_pixel(case, case.m0 + p)
        if nimg < case.N and s[1] >= 0 and s[1] < case.sp[1] and s[2] >= 0 and s[2] < case.sp[2] then
          for j = 0, case.cpp - 1 do
            local ch = case.c0 + j
            if ch < case.C then
              local i = ((nimg * case.sp[2] + s[2]) * case.sp[1] + s[1]) * case.C + ch + 1
              local v = 1000 + p * 64 + j
              want[i] = op == "store" and v or (before[i] + v) % 4294967296
              hits = hits + 1
            end
          end
        end
      end
      assert.is_true(hits > 100 and hits < case.ppc * case.cpp, "the case covers both written and skipped pixels")
      assert.is_true(q[1] == 7 and q[2] == 3)
      local bad, first = 0, nil
      for i = 1, #want do
        if after[i] ~= want[i] then bad = bad + 1; first = first or fmt("element %d: got %d, want %d", i - 1, after[i], want[i]) end
      end
      assert.are.equal(0, bad, fmt("%s: %d elements wrong (first: %s)", op, bad, tostring(first)))
    end
  end)
end)

describe("im2col tensor maps and copies that do not match", function()
  local case = { N = 1, sp = { 6, 6 }, C = 16, es = 2, dtype = "f16", lo = { 0, 0 }, hi = { 0, 0 }, st = { 1, 1 },
                 cpp = 16, ppc = 16, c0 = 0, m0 = 0, sw = "none" }

  it("refuses a tile map under an im2col copy, at the copy's line", function()
    local ptx = H.fresh()
    local opts = {}
    local k = load_kernel(ptx, "tile_map", 4, case, opts)
    assembles(ptx)
    local dev = rt.device("emu")
    local a = dev:array("u16", 6 * 6 * 16)
    local tile = dev:tensormap(a, { dims = { 16, 6, 6, 1 }, box = { 16, 4, 4, 1 }, dtype = "f16" })
    local ok, err = pcall(rt.launch, k, { device = dev, args = { tile, dev:array("u16", 256), 0, 0, 0, 0, 0, 0 } })
    assert.is_false(ok)
    assert.matches(fmt(":%d: error: ", opts.line), err, 1, true)
    assert.matches("an im2col copy through a tile-mode tensor map", err, 1, true)
  end)

  it("refuses an im2col map under a tile copy, and a rank that is not the copy's", function()
    local ptx = H.fresh()
    local lines = {}
    local k = ptx.kernel { name = "tile_copy", target = "sm_90a", grid = { 1 }, block = { 1 },
      params = { { "tmap", "tensormap" }, { "which", "u32" } },
      body = function(_, tmap, which)
        local plan = ptx.smem_plan()
        local bar = plan:alloc("bar", "b64", 1, { align = 8 })
        local tile = plan:alloc("tile", "b8", 1024, { align = 1024 })
        local desc, z = ptx.reg.u64(), ptx.reg.b32()
        ptx.op "cvta.param.u64" (desc, tmap)
        ptx.mov.b32(z, 0)
        local w = ptx.reg.u32()
        ptx.mov.u32(w, which:load())
        ptx.op "mbarrier.init.shared::cta.b64" (bar:addr(0), 1)
        ptx.if_(w:eq(0), function()
          lines[0] = debug.getinfo(1, "l").currentline + 1
          ptx.op "cp.async.bulk.tensor.4d.shared::cluster.global.tile.mbarrier::complete_tx::bytes" (tile:addr(0), ptx.taddr(desc, { z, z, z, z }), bar:addr(0))
        end)
        ptx.if_(w:eq(1), function()
          local o = ptx.reg.b16()
          ptx.mov.b16(o, 0)
          lines[1] = debug.getinfo(1, "l").currentline + 1
          ptx.op "cp.async.bulk.tensor.5d.shared::cluster.global.im2col.mbarrier::complete_tx::bytes" (tile:addr(0), ptx.taddr(desc, { z, z, z, z, z }), bar:addr(0), { o, o, o })
        end)
      end }
    assembles(ptx)
    local dev = rt.device("emu")
    local _, map = make_tensor(dev, case)
    local ok, err = pcall(rt.launch, k, { device = dev, args = { map, 0 } })
    assert.is_false(ok)
    assert.matches(fmt(":%d: error: ", lines[0]), err, 1, true)
    assert.matches("a tile-mode copy through an im2col tensor map", err, 1, true)
    ok, err = pcall(rt.launch, k, { device = dev, args = { map, 1 } })
    assert.is_false(ok)
    assert.matches(fmt(":%d: error: ", lines[1]), err, 1, true)
    assert.matches("a 5d copy through a tensor map of rank 4", err, 1, true)
  end)

  it("refuses an offsets vector that is not D-2 long at the user's line", function()
    local ptx = H.fresh()
    local line
    local ok, err = pcall(function()
      ptx.kernel { name = "offs", target = "sm_90a", params = { { "tmap", "tensormap" } }, body = function(_, tmap)
        local plan = ptx.smem_plan()
        local bar = plan:alloc("bar", "b64", 1, { align = 8 })
        local tile = plan:alloc("tile", "b8", 1024, { align = 1024 })
        local desc, z, o = ptx.reg.u64(), ptx.reg.b32(), ptx.reg.b16()
        ptx.op "cvta.param.u64" (desc, tmap)
        line = debug.getinfo(1, "l").currentline + 1
        ptx.op "cp.async.bulk.tensor.4d.shared::cluster.global.im2col.mbarrier::complete_tx::bytes" (tile:addr(0), ptx.taddr(desc, { z, z, z, z }), bar:addr(0), { o })
      end }
      return ptx.ptx {}
    end)
    assert.is_false(ok)
    assert.matches(fmt(":%d: error: operand 4 of 'cp.async.bulk.tensor.4d.shared::cluster.global.im2col.mbarrier::complete_tx::bytes': " ..
                       "expected a vector of 2 registers, got 1", line), err, 1, true)
  end)

  it("refuses forged map bytes that carry a valid checksum", function()
    local ptx = H.fresh()
    local k = load_kernel(ptx, "forged", 4, case)
    assembles(ptx)
    local dev = rt.device("emu")
    local _, map = make_tensor(dev, case)
    local raw = { map.bytes:byte(1, 128) }
    raw[113], raw[114] = 0, 0                           -- channels per pixel: 0
    local h = 2166136261ULL                             -- the checksum: FNV-1a of bytes 24..127
    for i = 25, 128 do h = (bit.bxor(h, raw[i]) * 16777619ULL) % 4294967296ULL end
    for i = 0, 3 do raw[21 + i] = tonumber(h / (256ULL ^ i) % 256ULL) end
    local forged = string.char(unpack(raw))
    local ok, err = pcall(rt.launch, k, { device = dev, args = { forged, dev:array("u16", 256), 0, 0, 0, 0, 0, 0 } })
    assert.is_false(ok)
    assert.matches("is not usable: 0 channels per pixel, 16 pixels per column", err, 1, true)
  end)

  it("validates the im2col map like cuTensorMapEncodeIm2col", function()
    local dev = rt.device("emu")
    local a = dev:array("f16", 2 * 5 * 7 * 32)
    local base = { mode = "im2col", dims = { 32, 7, 5, 2 }, pixels_per_column = 64 }
    local function spec(t)
      local s = {}
      for k, v in pairs(base) do s[k] = v end
      for k, v in pairs(t) do s[k] = v end
      return s
    end
    local function bad(t, msg)
      local ok, err = pcall(dev.tensormap, dev, a, spec(t))
      assert.is_false(ok, msg)
      assert.matches(msg, err, 1, true)
    end
    bad({ lower_corner = { -1, -129 }, upper_corner = { 0, 0 } }, "pixel box corner of H (lower -129, upper 0) outside -128..127 for rank 4")
    bad({ lower_corner = { 0 }, upper_corner = { 0, 0 } }, "takes 2 lower_corner and upper_corner entries")
    bad({ upper_corner = { -7, 0 } }, "the pixel box along W is empty")
    bad({ channels_per_pixel = 300 }, "channels_per_pixel = 300 outside 1..256")
    bad({ pixels_per_column = 2000 }, "pixels_per_column = 2000 outside 1..1024")
    bad({ pixels_per_column = false }, "pixels_per_column must be a number")
    bad({ swizzle = "32B" }, "exceed the 32-byte span of swizzle 32B")
    bad({ channels_per_pixel = 4 }, "must be a multiple of 16 bytes")
    bad({ dims = { 32, 7 }, lower_corner = {}, upper_corner = {} }, "rank 3, 4 or 5")
    bad({ box = { 32, 7, 5, 2 } }, "'box' is a field of tile maps")
    bad({ oob_fill = "inf" }, "unknown oob_fill")
    bad({ interleave = "32B" }, "not emulated")
    local u = dev:array("u32", 2 * 5 * 7 * 32)
    local ok, err = pcall(dev.tensormap, dev, u, spec { oob_fill = "nan" })
    assert.is_false(ok)
    assert.matches("NaN OOB fill needs a 16- or 32-bit floating-point element type", err, 1, true)
    ok, err = pcall(dev.tensormap, dev, a, { pixels_per_column = 4, dims = { 32, 7, 5, 2 }, box = { 32, 1, 1, 1 } })
    assert.is_false(ok)
    assert.matches("'pixels_per_column' is a field of im2col maps", err, 1, true)
    assert.is_true(pcall(dev.tensormap, dev, a, spec { swizzle = "64B", lower_corner = { -1, -1 }, upper_corner = { -1, -1 } }))
  end)
end)

describe("im2col tensor maps on ptxlua.cuda (the mock driver)", function()
  local shq = H.shq
  local MOCK = os.getenv("PTXLUA_MOCK_LIBCUDA") or (H.build .. "/tests/mock_cuda/libcuda.so.1")

  it("hands cuTensorMapEncodeIm2col the spec's arguments, and its refusal back as an error at the user's line", function()
    if select(3, H.sh("test -f " .. shq(MOCK))) ~= 0 then return H.pending("no mock driver built") end
    local script = H.write(H.tmpfile(".lua"), [[
local ffi = require "ffi"
ffi.cdef [=[
struct ptxmock_im2col { int dtype; unsigned rank; uint64_t addr, dims[5], strides[4];
  int lower[3], upper[3]; unsigned channels, pixels, estr[5]; int interleave, swizzle, l2, oob; };
const struct ptxmock_im2col *ptxmock_last_im2col(void);
]=]
local mock = ffi.load(os.getenv("PTXLUA_LIBCUDA"))
local cuda = require "ptxlua.cuda"
local dev = cuda.device(0)
local a = dev:array("bf16", 2 * 9 * 11 * 64, 0)
local tm = dev:tensormap(a, { mode = "im2col", dims = { 64, 11, 9, 2 }, lower_corner = { -2, -1 }, upper_corner = { -3, 1 },
  channels_per_pixel = 64, pixels_per_column = 256, element_strides = { 1, 2, 3, 1 }, swizzle = "128B", l2_promotion = "64B",
  oob_fill = "nan" })
local r = mock.ptxmock_last_im2col()
print(#tm.bytes, r.dtype, r.rank, r.addr == a.addr, tonumber(r.dims[0]), tonumber(r.dims[1]), tonumber(r.dims[2]), tonumber(r.dims[3]))
print(tonumber(r.strides[0]), tonumber(r.strides[1]), tonumber(r.strides[2]), r.lower[0], r.lower[1], r.upper[0], r.upper[1])
print(r.channels, r.pixels, r.estr[0], r.estr[1], r.estr[2], r.estr[3], r.interleave, r.swizzle, r.l2, r.oob)
local ok, e = pcall(dev.tensormap, dev, a, { mode = "im2col", dims = { 64, 11, 9, 2 }, lower_corner = { -129, 0 },
  upper_corner = { 0, 0 }, pixels_per_column = 16 })
print(ok, e)
]])
    local out, err, rc = H.sh("PTXLUA_LIBCUDA=" .. shq(MOCK) .. " luajit " .. shq(script))
    assert.are.equal(0, rc, err)
    assert.are.equal(table.concat({
      "128\t9\t4\ttrue\t64\t11\t9\t2",
      "128\t1408\t12672\t-2\t-1\t-3\t1",
      "64\t256\t1\t2\t3\t1\t0\t3\t1\t1",
      "false\t" .. script .. ":18: error: cuTensorMapEncodeIm2col: CUDA_ERROR_INVALID_VALUE (invalid argument)", "" }, "\n"), out)
  end)
end)

local K = require "kcheck"

local function here() return debug.getinfo(2, "l").currentline end

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

local function run(k, seed)
  local dev = rt.device("emu")
  local ta, tb = maps(dev, seed)
  return pcall(rt.launch, k, { device = dev, args = { ta, tb } })
end

describe("the bulk-group checks on TMA im2col stores", function()
  -- an NWC tensor of C = 16 u32 channels, W = 64, N = 2; the im2col map walks 64 pixels of 16
  -- channels from {c, w, n} = {0, 0, 1}: all of image 1. Every thread fills the 4 KB tile with
  -- ordinary stores and fences; thread 0 stores it (or add-reduces it) through the map, commits and
  -- waits per opts.wait; after a CTA barrier every thread reads image 1 back (or overwrites the tile)
  local C, W, NI = 16, 64, 2
  local PIX = C * W                                       -- elements of one image, and of the tile
  local function kernel(ptx, name, opts, lines)
    return ptx.kernel { name = name, target = "sm_90a", grid = { 1 }, block = { 128 },
      params = { { "img", "u32*" }, { "back", "u32*" }, { "tm", "tensormap" } },
      body = function(_, img, back, tm)
        local plan = ptx.smem_plan()
        local tile = plan:alloc("tile", "u32", PIX, { align = 128 })
        local pi, pb = ptx.global_ptrs(img, back)
        local desc = ptx.reg.u64()
        ptx.op "cvta.param.u64" (desc, tm)
        local tid = ptx.special "tid.x"
        local sa = ptx.reg.u32()
        ptx.mov.u32(sa, ptx.sym "smem")
        for i = 0, PIX / 128 - 1 do
          local idx = tid + i * 128
          ptx.st.shared.u32(ptx.addr(sa + tile.offset + idx:shl(2)), idx:mad(2654435761, 17))
        end
        ptx.op "fence.proxy.async.shared::cta" ()
        ptx.bar.sync(0)
        ptx.if_(tid:eq(0), function()
          local z, one = ptx.reg.b32(), ptx.reg.b32()
          ptx.mov.b32(z, 0)
          ptx.mov.b32(one, 1)
          local op = opts.reduce and ptx.op "cp.reduce.async.bulk.tensor.3d.global.shared::cta.add.im2col_no_offs.bulk_group"
                                  or ptx.op "cp.async.bulk.tensor.3d.global.shared::cta.im2col_no_offs.bulk_group"
          lines.store = here() + 1
          op(ptx.taddr(desc, { z, z, one }), tile:addr(0))
          ptx.op "cp.async.bulk.commit_group" ()
          if opts.wait == "read" then ptx.op "cp.async.bulk.wait_group.read" (0)
          elseif opts.wait == "full" then ptx.op "cp.async.bulk.wait_group" (0) end
        end)
        ptx.bar.sync(0)
        for i = 0, PIX / 128 - 1 do
          local idx = tid + i * 128
          if opts.overwrite then
            if i == 0 then lines.use = here() + 1 end
            ptx.st.shared.u32(ptx.addr(sa + tile.offset + idx:shl(2)), 0)
          else
            local v = ptx.reg.u32()
            if i == 0 then lines.use = here() + 1 end
            ptx.ld.global.u32(v, ptx.addr(pi + (idx + PIX):mul_wide(4)))
            ptx.st.global.u32(ptx.addr(pb + idx:mul_wide(4)), v)
          end
        end
      end }
  end

  local function run(opts)
    local ptx = H.fresh()
    local lines = {}
    local k = kernel(ptx, "i2c_bg", opts, lines)
    assembles(ptx)
    local dev = rt.device("emu")
    local img = dev:array("u32", PIX * NI, function(i) return i * 7 end)
    local back = dev:array("u32", PIX, 0)
    local tm = dev:tensormap(img, { mode = "im2col", dtype = "u32", dims = { C, W, NI }, pixels_per_column = W })
    local ok, err = pcall(rt.launch, k, { device = dev, args = { img, back, tm } })
    return ok, err, lines, img, back
  end

  -- element i (1-based) of image 1 after the store or the reduction
  local function want(i, reduce)
    local v = ((i - 1) * 2654435761 + 17) % 2 ^ 32
    return reduce and (v + (PIX + i) * 7) % 2 ^ 32 or v
  end

  it("reads back what an im2col store or reduction wrote once wait_group (without .read) covered it", function()
    for _, reduce in ipairs { false, true } do
      local ok, err, _, img, back = run { wait = "full", reduce = reduce }
      assert(ok, err)
      local o, b, bad = img:read(), back:read(), 0
      for i = 1, PIX do if o[PIX + i] ~= want(i, reduce) or b[i] ~= want(i, reduce) or o[i] ~= i * 7 then bad = bad + 1 end end
      assert.are.equal(0, bad, reduce and "reduction" or "store")
    end
  end)

  it("flags an ld.global of an im2col store's pixels waited for with wait_group.read only, at the load", function()
    for _, reduce in ipairs { false, true } do
      local ok, err, lines = run { wait = "read", reduce = reduce }
      assert.is_false(ok, reduce and "reduction" or "store")
      assert.matches(fmt(":%d: error: ld.global.u32 by thread %%(%%d+,0,0%%) of CTA %%(0,0,0%%) reads global address 0x", lines.use), err)
      assert.matches(fmt("of line %d (by thread (0,0,0) of CTA (0,0,0)) may still be writing: its bulk group was waited for with cp.async.bulk.wait_group.read only",
                         lines.store), err, 1, true)
    end
  end)

  it("flags an st.shared over an im2col store's source before any wait_group, and allows it after wait_group.read", function()
    for _, reduce in ipairs { false, true } do
      local ok, err, lines = run { overwrite = true, reduce = reduce }
      assert.is_false(ok, reduce and "reduction" or "store")
      assert.matches(fmt(":%d: error: st.shared.u32 by thread %%(%%d+,0,0%%) of CTA %%(0,0,0%%) writes shared byte 0x", lines.use), err)
      assert.matches(fmt("of line %d (by thread (0,0,0) of CTA (0,0,0)) may still be reading: no cp.async.bulk.wait_group", lines.store), err, 1, true)
      local ok2, err2, _, img = run { overwrite = true, reduce = reduce, wait = "read" }
      assert(ok2, err2)
      assert.are.equal(want(PIX, reduce), img:get(2 * PIX))
    end
  end)
end)
