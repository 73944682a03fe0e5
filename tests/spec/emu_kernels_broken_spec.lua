-- emu_kernels_broken_spec.lua -- deliberately broken copies of the kernels in kernels/ must be caught by the
-- emulator, at the right line. Each copy is made at test time by a plain-text substitution in the
-- real kernel file, or in kernels/lib/rows.lua that the row kernels load (each pattern must occur
-- exactly once), written to a temporary folder laid out as kernels/ is and loaded from there, so the
-- copies follow the kernels as they change and every message names the temporary file: the
-- expected line is computed from the edited text.
--   off-by-one bounds (vector_add, rmsnorm's tail)     -> out-of-bounds, at the load or store
--   a store that skips the last element (vector_add)   -> the poisoned output shows it
--   no bar.sync in a block reduction (rmsnorm)         -> uninit_shared at the ld.shared, races at
--                                                         the st.shared, wrong results without checks
--   bar.sync inside a branch (softmax)                 -> deadlock (some warps) or barrier misuse
--                                                         (part of a warp), at the bar.sync
--   gemm_mma: no cp.async.wait_group                       -> uninit_shared at the ldmatrix, naming the
--                                                         cp.async still in flight; wrong results
--   gemm_mma: no bar.sync in the k loop                    -> races at the cp.async, uninit_shared at
--                                                         the ldmatrix
--   gemm_mma: A read without its swizzle                   -> wrong results (no check can see it)
--   rmsnorm_tma: no mbarrier wait before reading a row  -> uninit_shared at the ld.shared of the warp that
--                                                         runs first; with no check on, the in-flight-copy
--                                                         check at the leader warp's ld.shared
--   rmsnorm_tma: expect_tx of 16 bytes too many          -> deadlock at the mbarrier wait, naming the
--                                                         mbarrier and the bytes it still misses
--   gemm: a stage released above the wgmma.wait_group  -> the early-release check at the producer's TMA
--         that retires its wgmmas                         refill, naming the arrive and the wgmma lines
--   grouped_gemm: rows guarded by the end of C, not of   -> races (global memory) at the st.global: a
--         the group                                       tile-row reaching into the next group stores
--                                                         over rows another CTA writes
--   gemm (clusters): bar.sync instead of the cluster   -> the producer's multicast TMA: a peer's mbarrier
--         barrier after the mbarrier inits                whose init nothing orders before it, at the copy
--   flash_attention: no wgmma.fence before the last P V -> the wgmma.fence check at that wgmma: O's
--                                                         accumulators (rescaled) and P's registers
--                                                         were written after the last fence
local H = require "helper"
local rt = require "ptxlua.emu"

local dev = rt.device("emu")
local abs, fmt = math.abs, string.format

-- kernels/<file> with edits applied: { { old, new }, ... } (plain text; each old exactly once)
local function edited(file, edits)
  return require("kcheck").edited(H.root .. "/kernels/" .. file, edits, "kernels/" .. file)
end

-- kernels/<file> with edits applied and, beside it, kernels/lib/<lib> with lib_edits applied, in a
-- fresh temporary folder laid out as kernels/. Returns the kernels by name, the file's return value,
-- the kernel file's temporary path and edited text, and the library's.
local function copied(file, lib, edits, lib_edits)
  local text, lib_text = edited(file, edits), edited("lib/" .. lib, lib_edits)
  local dir = H.tmpfile("_kernels")
  assert(os.execute(fmt("mkdir -p '%s/lib'", dir)))
  local path = H.write(dir .. "/" .. file, text)
  local lib_path = H.write(dir .. "/lib/" .. lib, lib_text)
  local ks, ret = H.load_script(path)
  return ks, ret, path, text, lib_path, lib_text
end

-- a row kernel (its pieces in lib/rows.lua): the kernels by name, paths and texts
local function broken(file, edits, lib_edits)
  local ks, _, path, text, lib_path, lib_text = copied(file, "rows.lua", edits, lib_edits)
  return ks, path, text, lib_path, lib_text
end

-- a Hopper kernel (its pipeline in lib/hopper_pipe.lua): the kernel named kname, the file's return
-- value (its maps), paths and texts
local function piped(file, kname, edits, lib_edits)
  local ks, ret, path, text, lib_path, lib_text = copied(file, "hopper_pipe.lua", edits, lib_edits)
  return assert(ks[kname], "no kernel " .. kname .. " in " .. file), ret, path, text, lib_path, lib_text
end

-- the number of the one line of text that contains needle (plain)
local line_of = require("kcheck").line_of

-- the error of a launch (the test fails if it runs cleanly)
local function launch_error(k, opts)
  opts.device = dev
  local ok, err = pcall(k.launch, k, opts)
  assert(not ok, "the broken kernel ran without an error")
  return err
end

local expect = H.expect_error                     -- err at path:line, holding each string given

local rng = require("kcheck").rng                  -- deterministic inputs (Park-Miller)

-- elements where |got - want| > bound (NaN counts), and the first of them (0-based)
local function mismatches(got, want, bound)
  local n, first = 0, nil
  for i = 1, #want do
    if not (abs(got[i] - want[i]) <= bound(i)) then n = n + 1; first = first or i - 1 end
  end
  return n, first
end

---------------------------------------------------------------------------------------------------
describe("broken kernels: off-by-one indices", function()
  local n = 37
  local x, y, out

  before_each(function()
    x = dev:array("f32", n, function(i) return i end, "x")
    y = dev:array("f32", n, 0.5, "y")
    out = dev:array("f32", n, nil, "out"):poison()
  end)
  after_each(function() x:free(); y:free(); out:free() end)

  it("vector_add: a bound check that lets i == n through reads past x, at the load", function()
    local ks, path, text = broken("vector_add.lua", { { "local done = i:ge(count)", "local done = i:gt(count)  -- BROKEN" } })
    local err = launch_error(ks.vector_add, { args = { x, y, out, n }, defines = { N = n, BLOCK = 32 } })
    -- i = 37: thread 5 of CTA 1, the first load after the branch
    expect(err, path, line_of(text, "ptx.ld.global.f32(a, ptx.addr(ax))"),
           "out-of-bounds ld.global.f32 by thread (5,0,0) of CTA (1,0,0)", "just past the end of buffer 'x' (148 bytes")
  end)

  it("vector_add: an output address one element too far writes past out, at the store", function()
    local ks, path, text = broken("vector_add.lua",
      { { "local ax, ay, ao = px + off, py + off, po + off", "local ax, ay, ao = px + off, py + off, po + off + 4  -- BROKEN" } })
    local err = launch_error(ks.vector_add, { args = { x, y, out, n }, defines = { N = n, BLOCK = 32 } })
    -- i = 36 (thread 4 of CTA 1) stores out[37]
    expect(err, path, line_of(text, "ptx.st.global.f32(ptx.addr(ao), a + b)"),
           "out-of-bounds st.global.f32 by thread (4,0,0) of CTA (1,0,0)", "just past the end of buffer 'out' (148 bytes")
  end)

  it("vector_add: a bound check one too tight leaves the last element poisoned", function()
    local ks = broken("vector_add.lua", { { "local done = i:ge(count)", "local done = i:ge(count - 1)  -- BROKEN" } })
    ks.vector_add:launch { device = dev, args = { x, y, out, n }, defines = { N = n, BLOCK = 32 },
                           checks = { races = true, uninit_shared = true, uninit_regs = true } }
    local o = out:read()
    for i = 1, n - 1 do assert(o[i] == i + 0.5, fmt("out[%d] = %s", i - 1, tostring(o[i]))) end
    assert(o[n] ~= o[n], "out[36] was written: " .. tostring(o[n]))        -- still NaN
  end)

  it("rmsnorm: a tail guard of <= instead of < reads one vector past the row, at the load", function()
    local ks, _, _, lib_path, lib_text = broken("rmsnorm.lua", {},
      { { "R.tail_ok = P.tail > 0 and tid:lt(P.tail) or nil\n  return R", "R.tail_ok = P.tail > 0 and tid:le(P.tail) or nil  -- BROKEN\n  return R" } })
    local w = dev:array("f32", n, 1, "w")
    -- N = 37: one-float vectors, 64 threads, 37 of them in the (only, partial) sweep; thread 37 is let through
    local err = launch_error(ks.rmsnorm, { args = { x, w, out, 1e-5 }, defines = { B = 1, N = n } })
    expect(err, lib_path, line_of(lib_text, "if #v == 1 then on(guard).ld.global.nc.f32(v[1], ptx.addr(base, off))"),
           "out-of-bounds ld.global.nc.f32 by thread (37,0,0) of CTA (0,0,0)", "just past the end of buffer 'x'")
    w:free()
  end)
end)

---------------------------------------------------------------------------------------------------
describe("broken kernels: barriers", function()
  -- rmsnorm at N = 1000: four-float vectors, 256 threads, 8 warps reduce through shared memory
  local B, N = 2, 1000
  -- the bar.sync of the SIMT kernels' block reduction (kernels/lib/rows.lua), replaced by `new`
  local REDUCE_BAR = "ptx.bar.sync(0)\n  return combine(P, red, 0, op)"
  local function at_bar(new) return { { REDUCE_BAR, new .. "\n  return combine(P, red, 0, op)" } } end
  local NOBAR = at_bar("do end  -- BROKEN: no bar.sync")
  local x, w, y
  before_each(function()
    local r = rng(7)
    x = dev:array("f32", B * N, function() return r(-2, 2) end, "x")
    w = dev:array("f32", N, function() return r(0.5, 1.5) end, "w")
    y = dev:array("f32", B * N, nil, "y"):poison()
  end)
  after_each(function() x:free(); w:free(); y:free() end)

  it("rmsnorm without the reduction's bar.sync: warp 0 reads partials not yet written (uninit_shared)", function()
    local ks, _, _, lib_path, lib_text = broken("rmsnorm.lua", {}, NOBAR)
    local err = launch_error(ks.rmsnorm, { args = { x, w, y, 1e-5 }, defines = { B = B, N = N }, checks = { uninit_shared = true } })
    expect(err, lib_path, line_of(lib_text, "if n == 4 then ptx.ld.shared.v4.f32(chunk, ptx.addr(red, off + w * 4))"),
           "ld.shared.v4.f32 by thread (0,0,0) of CTA (0,0,0) reads shared byte 0x4, which no thread has written")
  end)

  it("rmsnorm without the reduction's bar.sync: warp 1's partial races with warp 0's read (races)", function()
    local ks, _, _, lib_path, lib_text = broken("rmsnorm.lua", {}, NOBAR)
    local err = launch_error(ks.rmsnorm, { args = { x, w, y, 1e-5 }, defines = { B = B, N = N }, checks = { races = true } })
    expect(err, lib_path, line_of(lib_text, "ptx.at(lane:eq(0)).st.shared.f32(ptx.addr(slot), v)"),
           "shared-memory race on byte 0x4: st.shared.f32 by thread (32,0,0) of CTA (0,0,0) writes it after thread (0,0,0) of CTA (0,0,0) read it with no barrier between")
  end)

  it("rmsnorm without the reduction's bar.sync: wrong results when no check is on", function()
    local ks = broken("rmsnorm.lua", {}, NOBAR)
    ks.rmsnorm:launch { device = dev, args = { x, w, y, 1e-5 }, defines = { B = B, N = N } }
    local xs, ws, want = x:read(), w:read(), {}
    local e32 = dev:array("f32", 1, { 1e-5 })
    local eps = e32:read()[1]; e32:free()
    for b = 0, B - 1 do
      local ss = 0
      for j = 1, N do ss = ss + xs[b * N + j] ^ 2 end
      for j = 1, N do want[b * N + j] = xs[b * N + j] / math.sqrt(ss / N + eps) * ws[j] end
    end
    local bad, first = mismatches(y:read(), want, function(i) return 1e-5 * abs(want[i]) + 1e-5 end)
    assert(bad > 0, "the broken rmsnorm gave the right results")
    assert(first == 0, "the first wrong element is " .. tostring(first))   -- warp 0 summed its own partial only
  end)

  it("softmax with its bar.sync reached by warp 0 only: deadlock, at the bar.sync", function()
    local ks, path, text, lib_path, lib_text = broken("softmax.lua", {},
      at_bar("ptx.if_(warp:eq(0), function() ptx.bar.sync(0) end)  -- BROKEN"))
    local err = launch_error(ks.softmax, { args = { x, y }, defines = { B = B, N = N } })
    -- the exit is in softmax.lua, the error's line in lib/rows.lua: the message names the other file
    expect(err, lib_path, line_of(lib_text, "-- BROKEN"),
           "deadlock in CTA (0,0,0): bar.sync waits on barrier 0 for 256 threads, 32 arrived",
           fmt("warp 1: 32 threads exited (line %d in %s)", line_of(text, "    ptx.ret()"), path))
  end)

  it("softmax with its bar.sync reached by half of each warp: barrier misuse, at the bar.sync", function()
    local ks, _, _, lib_path, lib_text = broken("softmax.lua", {},
      at_bar("ptx.if_(lane:lt(16), function() ptx.bar.sync(0) end)  -- BROKEN"))
    local err = launch_error(ks.softmax, { args = { x, y }, defines = { B = B, N = N } })
    expect(err, lib_path, line_of(lib_text, "-- BROKEN"),
           "bar.sync in warp 0 of CTA (0,0,0): an aligned barrier executed by part of a warp",
           "(lanes 0xffff0000)")
  end)
end)

---------------------------------------------------------------------------------------------------
describe("broken kernels: the mma.sync GEMM", function()
  local M, N, K = 64, 72, 96          -- partial tiles in M and N, three k-tiles of 32
  local A, B, C, want, mag
  setup(function()
    local r = rng(11)
    A = dev:array("bf16", M * K, function() return r(-1, 1) end, "A")
    B = dev:array("bf16", N * K, function() return r(-1, 1) end, "B")
    C = dev:array("f32", M * N, nil, "C")
    local as, bs = A:read(), B:read()
    want, mag = {}, {}
    for i = 0, M - 1 do
      for j = 0, N - 1 do
        local s, m = 0, 0
        for kk = 1, K do local p = as[i * K + kk] * bs[j * K + kk]; s, m = s + p, m + abs(p) end
        want[i * N + j + 1], mag[i * N + j + 1] = s, m
      end
    end
  end)
  teardown(function() A:free(); B:free(); C:free() end)
  local function bound(i) return K * 2 ^ -24 * mag[i] end
  local function run(k, checks)
    C:poison()
    k:launch { device = dev, args = { A, B, C }, defines = { M = M, N = N, K = K }, checks = checks }
    return C:read()
  end

  it("the real kernel passes (the reference and its bound are right)", function()
    local ptx = H.fresh()
    dofile(H.root .. "/kernels/gemm_mma.lua")
    local bad, first = mismatches(run(ptx.kernels()[1], { races = true, uninit_shared = true }), want, bound)
    assert(bad == 0, fmt("%d wrong elements, the first C[%s]", bad, tostring(first)))
  end)

  it("without cp.async.wait_group: ldmatrix reads a tile still in flight (uninit_shared), and the results are wrong", function()
    local ks, path, text = broken("gemm_mma.lua", { { "ptx.cp.async.wait_group(t.STAGES - 2)", "do end  -- BROKEN: no wait" } })
    local err = launch_error(ks.gemm_mma, { args = { A, B, C }, defines = { M = M, N = N, K = K }, checks = { uninit_shared = true } })
    local cp_line = line_of(text, "ptx.cp.async.cg.shared.global(ptx.addr(sdst, simm), ptx.addr(src), 16, n)")   -- the zero-filling copy
    expect(err, path, line_of(text, "ptx.ldmatrix.sync.aligned.m8n8.x4.shared.b16(af[mi]"),
           "ldmatrix.sync.aligned.m8n8.x4.shared.b16 by thread", "which no thread has written",
           fmt("(a cp.async of line %d by thread", cp_line), "still in flight: no cp.async.wait_group has covered its group)")
    local bad = mismatches(run(ks.gemm_mma), want, bound)
    assert(bad > 0, "the GEMM without cp.async.wait_group gave the right results")
  end)

  it("without the k loop's bar.sync: a refill races with other warps' reads (races), or is read unwritten (uninit_shared)", function()
    local ks, path, text = broken("gemm_mma.lua", { { "ptx.bar.sync(0)", "do end  -- BROKEN: no bar.sync" } })
    local err = launch_error(ks.gemm_mma, { args = { A, B, C }, defines = { M = M, N = N, K = K }, checks = { races = true } })
    expect(err, path, line_of(text, "ptx.cp.async.cg.shared.global(ptx.addr(sdst, simm), ptx.addr(src), 16, n)"),
           "shared-memory race on byte", "cp.async.cg.shared.global by thread (32,0,0) of CTA (0,0,0) writes it after thread",
           "read it with no barrier between")
    err = launch_error(ks.gemm_mma, { args = { A, B, C }, defines = { M = M, N = N, K = K }, checks = { uninit_shared = true } })
    expect(err, path, line_of(text, "ptx.ldmatrix.sync.aligned.m8n8.x4.shared.b16(af[mi]"),
           "ldmatrix.sync.aligned.m8n8.x4.shared.b16 by thread", "which no thread has written")
  end)

  it("reading A without its swizzle: every check passes, the results are wrong", function()
    local ks = broken("gemm_mma.lua", { { "lda[ks] = smem + swz(arow_l, ks == 0 and apiece or apiece + 2 * ks)",
                                      "lda[ks] = smem + arow_l:mad(P.rb, (ks == 0 and apiece or apiece + 2 * ks):shl(4))  -- BROKEN" } })
    local bad, first = mismatches(run(ks.gemm_mma, { races = true, uninit_shared = true, uninit_regs = true }), want, bound)
    assert(bad > 0, "the GEMM with an unswizzled A read gave the right results")
    assert(first == 2 * N, "the first wrong element is C[" .. tostring(first) .. "]")   -- rows 0, 1 have f(r) = 0
  end)
end)

---------------------------------------------------------------------------------------------------
describe("broken kernels: the TMA RMSNorm", function()
  -- B = 5 rows of N = 1000 (256 threads, a partial last sweep), 2 rows a CTA: three CTAs, the last with one row
  local B, N = 5, 1000
  local defs = { B = B, N = N, ROWS = 2 }
  local x, w, y
  before_each(function()
    local r = rng(13)
    x = dev:array("f32", B * N, function() return r(-2, 2) end, "x")
    w = dev:array("f32", N, function() return r(0.5, 1.5) end, "w")
    y = dev:array("f32", B * N, nil, "y"):poison()
  end)
  after_each(function() x:free(); w:free(); y:free() end)
  local WAIT = "ptx.mbarrier_wait(full:addr(0, 8 * s), math.floor(j / t.STAGES) % 2)"

  -- the last warp to reach the bar.sync after the mbarrier inits runs on first: it reads the row
  -- before the leader has even issued its copy (uninit_shared, when on, sees bytes no thread has
  -- written); then the leader's warp reads it while the copy is in flight (copies land only when
  -- every warp waits) -- reported always, naming the copy and its mbarrier. The opt-in check's
  -- report comes first but is kept back: the always-on one is the report, checks on or off
  it("without the mbarrier wait: with every check on, still the in-flight copy and its mbarrier (not 'no thread has written')", function()
    local ks, path, text, lib_path = broken("rmsnorm_tma.lua", { { WAIT, "do end  -- BROKEN: no wait" } })
    local all = { uninit_shared = true, uninit_regs = true, races = true }
    local err = launch_error(ks.rmsnorm_tma, { args = { x, w, y, 1e-5 }, defines = defs, checks = all })
    expect(err, path, line_of(text, "on(g).ld.shared.v4.f32(v, ptx.addr(mine, sbase + (k - 1) * P.stride))"),
           "ld.shared.v4.f32 reads shared byte 0x0, which the cp.async.bulk.shared::cluster.global.mbarrier::complete_tx::bytes of line",
           fmt("in %s (by thread (0,0,0) of CTA (0,0,0)) is still writing: no wait on its mbarrier (shared 0x2000) has seen the copy land", lib_path))
    assert.is_nil(err:find("no thread has written", 1, true), err)
  end)

  it("without the mbarrier wait: ptxlua --emulate --check all names the copy and its mbarrier too", function()
    local ks, path, text, lib_path = broken("rmsnorm_tma.lua", { { WAIT, "do end  -- BROKEN: no wait" } })
    for _, extra in ipairs { {}, { "--check", "all" } } do
      local args = { path, "--emulate", "-D", "B=5", "-D", "N=1000", "-D", "ROWS=2" }
      for _, a in ipairs(extra) do args[#args + 1] = a end
      local _, err, rc = H.ptxlua(args)
      assert.are.equal(1, rc, err)
      expect(err, path, line_of(text, "on(g).ld.shared.v4.f32(v, ptx.addr(mine, sbase + (k - 1) * P.stride))"),
             "which the cp.async.bulk.shared::cluster.global.mbarrier::complete_tx::bytes of line",
             fmt("in %s (by thread (0,0,0) of CTA (0,0,0)) is still writing: no wait on its mbarrier (shared 0x", lib_path))
      assert.is_nil(err:find("has written", 1, true), err)
    end
  end)

  it("without the mbarrier wait: with no check on, the leader's warp reads the row while its copy is in flight", function()
    local ks, path, text, lib_path = broken("rmsnorm_tma.lua", { { WAIT, "do end  -- BROKEN: no wait" } })
    local err = launch_error(ks.rmsnorm_tma, { args = { x, w, y, 1e-5 }, defines = defs })
    expect(err, path, line_of(text, "on(g).ld.shared.v4.f32(v, ptx.addr(mine, sbase + (k - 1) * P.stride))"),
           "ld.shared.v4.f32 reads shared byte 0x0, which the cp.async.bulk.shared::cluster.global.mbarrier::complete_tx::bytes of line",
           fmt("in %s (by thread (0,0,0) of CTA (0,0,0)) is still writing: no wait on its mbarrier (shared 0x2000) has seen the copy land", lib_path))
  end)

  -- the phase's bytes differ from its expect_tx: at the copy's line, naming the expect_tx's
  local EXPECT = "(ptx._, full:addr(0, 8 * s), P.rowbytes)"
  local COPY = 'ptx.op "cp.async.bulk.shared::cluster.global.mbarrier::complete_tx::bytes" ('
  it("expecting 16 bytes more than the row's copy brings: the phase can never complete, at the copy, naming the expect_tx", function()
    local ks, path, text, lib_path, lib_text = broken("rmsnorm_tma.lua", {}, { { EXPECT, "(ptx._, full:addr(0, 8 * s), P.rowbytes + 16)  -- BROKEN" } })
    local err = launch_error(ks.rmsnorm_tma, { args = { x, w, y, 1e-5 }, defines = defs })
    -- two 4000-byte rows, each buffer rounded to 4096 bytes: the mbarriers follow at 0x2000
    expect(err, lib_path, line_of(lib_text, COPY),
           "phase 0 of the mbarrier at shared 0x2000 of CTA (0,0,0)",
           fmt("(initialized at line %d) can never complete", line_of(lib_text, 'ptx.op "mbarrier.init.shared::cta.b64"')),
           fmt("its copies brought 4000 transaction bytes (the last at line %d) where its expect_tx announced 4016 (line %d)",
               line_of(lib_text, COPY), line_of(lib_text, "P.rowbytes + 16)  -- BROKEN")),
           "16 bytes are missing", fmt("waits on it (warp 0 of CTA (0,0,0))"))
  end)

  it("expecting 16 bytes fewer than the row's copy brings: the phase would complete mid-copy, at the copy, naming the expect_tx", function()
    local ks, path, text, lib_path, lib_text = broken("rmsnorm_tma.lua", {}, { { EXPECT, "(ptx._, full:addr(0, 8 * s), P.rowbytes - 16)  -- BROKEN" } })
    local err = launch_error(ks.rmsnorm_tma, { args = { x, w, y, 1e-5 }, defines = defs })
    expect(err, lib_path, line_of(lib_text, COPY),
           "the copy completes 4000 transaction bytes on the mbarrier at shared 0x2000 of CTA (0,0,0), whose phase 0 has all its "
           .. "arrivals and expects only 3984 more",
           fmt("its expect_tx announced 3984 bytes, line %d", line_of(lib_text, "P.rowbytes - 16)  -- BROKEN")),
           "its last 16 bytes count against phase 1")
  end)
end)

---------------------------------------------------------------------------------------------------
-- gemm (TMA + wgmma, warp-specialized): the consumer releases the previous stage (its arrive on the
-- stage's empty barrier) above the wgmma.wait_group that retires the wgmmas still reading that
-- stage. The producer, ordered after that arrive only, refills the stage with TMA: a race with the
-- tensor cores that the emulator's schedule (each warp runs until it blocks, so the wait_group has
-- run by then) would otherwise hide behind correct results. The consumer step (wgmma, wait_group,
-- release) is kernels/lib/hopper_pipe.lua's, edited there; the TMA loads are the kernel's own.
describe("broken kernels: the TMA/wgmma GEMM", function()
  local WAIT = "ptx.wgmma.wait_group.sync.aligned(1)\n  ptx.if_(self.lead:and_(accumulate), function() self.release(self.prev) end)"
  local EARLY = "ptx.if_(self.lead:and_(accumulate), function() self.release(self.prev) end)  -- BROKEN: before the wait\n" ..
                "  ptx.wgmma.wait_group.sync.aligned(1)"
  local function gemm(lib_edits) return piped("gemm.lua", "gemm", {}, lib_edits) end
  for _, c in ipairs { { M = 200, N = 264, K = 136, SMS = 2, CLUSTER = 1 }, { M = 130, N = 200, K = 72, SMS = 2, BN = 64, CLUSTER = 1, STAGES = 3 },
                       { M = 200, N = 264, K = 136, SMS = 2 } } do
    local what = fmt("M=%d N=%d K=%d%s%s", c.M, c.N, c.K, c.CLUSTER and " CLUSTER=1" or " (cluster of 2)", c.STAGES and " STAGES=3" or "")
    it("releasing a stage before the wait_group that retires its wgmmas: error at the TMA refill, naming both lines, " .. what, function()
      local r = rng(c.M + c.N + c.K)
      local A = dev:array("bf16", c.M * c.K, function() return r(-1, 1) end, "A")
      local B = dev:array("bf16", c.N * c.K, function() return r(-1, 1) end, "B")
      local C = dev:array("bf16", c.M * c.N, nil, "C"):poison()
      -- the real kernel runs cleanly (no false report on the correct order)
      local k, ret = gemm({})
      local sa, sb, sc = ret.maps(c)
      k:launch { device = dev, args = { dev:tensormap(A, sa), dev:tensormap(B, sb), dev:tensormap(C, sc) }, defines = c }
      local kb, retb, path, text, lib_path, lib_text = gemm({ { WAIT, EARLY } })
      sa, sb, sc = retb.maps(c)
      local err = launch_error(kb, { args = { dev:tensormap(A, sa), dev:tensormap(B, sb), dev:tensormap(C, sc) }, defines = c })
      A:free(); B:free(); C:free()
      -- the arrive inside release(), called from the line moved above the wait_group
      expect(err, path, line_of(text, "load(ptx.addr(da), ptx.taddr(amap, { k0, m0 }), ptx.addr(fb))"),
             "cp.async.bulk.tensor.2d.shared::cluster.global.tile.mbarrier::complete_tx::bytes writes shared byte",
             fmt("which the wgmma.mma_async of line %d in %s", line_of(lib_text, "wgmma(acc, at_kstep(da, kk)"), lib_path),
             fmt("stage released at line %d in %s before wgmma.wait_group covers the wgmma at line %d in %s",
                 line_of(lib_text, c.CLUSTER == 1 and 'ptx.op "mbarrier.arrive.shared::cta.b64"' or 'ptx.op "mbarrier.arrive.release.cluster'),
                 lib_path, line_of(lib_text, "wgmma(acc, at_kstep(da, kk)"), lib_path))
    end)
  end
end)

-- gemm whose consumer does not wait for the stage's full barrier: its wgmma reads the stage through
-- its descriptors while the producer's TMA still writes it -- the always-on in-flight check's report,
-- naming the TMA's line and the mbarrier. With every opt-in check on the report is the same: the
-- uninit_shared check sees those bytes unwritten first, and keeps its report back ("nothing has
-- written", which was the report before the opt-in checks learned to give way)
describe("broken kernels: the TMA/wgmma GEMM without the consumer's wait", function()
  local NOWAIT = { "function Ring:consume(kt, body)\n  self:wait()", "function Ring:consume(kt, body)\n  -- BROKEN: no self:wait()" }
  it("names the TMA and its mbarrier, checks on or off", function()
    local c = { M = 130, N = 200, K = 72, SMS = 2, BN = 64, CLUSTER = 1, STAGES = 3 }
    local r = rng(7)
    local A = dev:array("bf16", c.M * c.K, function() return r(-1, 1) end, "A")
    local B = dev:array("bf16", c.N * c.K, function() return r(-1, 1) end, "B")
    local C = dev:array("bf16", c.M * c.N, nil, "C"):poison()
    local kb, retb, path, text, lib_path, lib_text = piped("gemm.lua", "gemm", {}, { NOWAIT })
    local errs = {}
    for i, checks in ipairs { {}, { uninit_shared = true, uninit_regs = true, races = true } } do
      local sa, sb, sc = retb.maps(c)
      errs[i] = launch_error(kb, { args = { dev:tensormap(A, sa), dev:tensormap(B, sb), dev:tensormap(C, sc) }, defines = c, checks = checks })
    end
    A:free(); B:free(); C:free()
    expect(errs[1], lib_path, line_of(lib_text, "wgmma(acc, at_kstep(da, kk)"), "wgmma.mma_async", "is still writing: no wait on its mbarrier (shared 0x",
           fmt("which the cp.async.bulk.tensor.2d.shared::cluster.global.tile.mbarrier::complete_tx::bytes of line %d in %s",
               line_of(text, "load(ptx.addr(da), ptx.taddr(amap, { k0, m0 }), ptx.addr(fb))"), path))
    assert.are.equal(errs[1], errs[2])
  end)
end)

---------------------------------------------------------------------------------------------------
-- gemm with clusters of 2: after the mbarrier inits, a CTA barrier instead of the cluster barrier.
-- The first multicast TMA then completes on a peer's mbarrier that nothing orders after its init: at
-- the copy, naming the peer and the init (had the peer not run its init yet, the message would say so)
describe("broken kernels: the clustered GEMM's barrier init", function()
  local SYNC = "ptx.op \"barrier.cluster.arrive.release.aligned\" ()\n    ptx.op \"barrier.cluster.wait.acquire.aligned\" ()\n  else"
  it("a CTA barrier where the cluster barrier belongs: the multicast TMA meets a peer's uninitialized mbarrier", function()
    local c = { M = 200, N = 264, K = 136, SMS = 2 }
    local r = rng(5)
    local A = dev:array("bf16", c.M * c.K, function() return r(-1, 1) end, "A")
    local B = dev:array("bf16", c.N * c.K, function() return r(-1, 1) end, "B")
    local C = dev:array("bf16", c.M * c.N, nil, "C"):poison()
    local k, ret, path, text = piped("gemm.lua", "gemm", {}, { { SYNC, "ptx.bar.sync(0)  -- BROKEN: not the cluster\n  else" } })
    local sa, sb, sc = ret.maps(c)
    local err = launch_error(k, { args = { dev:tensormap(A, sa), dev:tensormap(B, sb), dev:tensormap(C, sc) }, defines = c })
    A:free(); B:free(); C:free()
    local lib_text = edited("lib/hopper_pipe.lua")
    expect(err, path, line_of(text, "mcast(ptx.addr(db), ptx.taddr(bmap"), "uses the mbarrier at shared 0x",
           fmt("of CTA (1,0,0), which its thread (0,0,0) initialized at line %d in ", line_of(lib_text, "ptx.op \"mbarrier.init.shared::cta.b64\" (self.full")),
           "before a barrier.cluster completed since: it may still look uninitialized here")
  end)
end)

---------------------------------------------------------------------------------------------------
-- grouped_gemm: the epilogue keeps the rows below the group's end (mend); guarded by the end of C
-- (MTOT) instead, a tile-row that reaches past its group stores its products (that group's B times
-- the next group's rows of A) over rows the next group's tile stores too, from another CTA. Which
-- one lands last depends on the order the CTAs run in: here the emulator's, on a GPU any. Only the
-- races check on global memory sees it whatever the order.
describe("broken kernels: the grouped GEMM", function()
  local GUARD = "local rok = { r0:lt(mend), (r0 + 8):lt(mend) }"
  local BAD = "local rok = { r0:lt(t.MTOT), (r0 + 8):lt(t.MTOT) }  -- BROKEN: the end of C, not of the group"
  local function grouped(edits) return piped("grouped_gemm.lua", "grouped_gemm", edits) end
  -- groups of 70, 0 and 130 rows: the first tile-row (rows 0..127) reaches 58 rows into group 2
  local c = { G = 3, MTOT = 200, N = 264, K = 136, SMS = 3 }
  it("storing a tile-row's rows past its group: a global-memory race at the store, between two CTAs", function()
    local r = rng(7)
    local A = dev:array("bf16", c.MTOT * c.K, function() return r(-1, 1) end, "A")
    local B = dev:array("bf16", c.G * c.N * c.K, function() return r(-1, 1) end, "B")
    local C = dev:array("bf16", c.MTOT * c.N, nil, "C"):poison()
    local O = dev:array("u32", c.G + 1, { 0, 70, 70, 200 }, "offs")
    local k, ret = grouped({})
    local sa, sb = ret.maps(c)
    k:launch { device = dev, args = { dev:tensormap(A, sa), dev:tensormap(B, sb), C, O }, defines = c, checks = { races = true } }
    local kb, retb, path, text = grouped({ { GUARD, BAD } })
    sa, sb = retb.maps(c)
    local err = launch_error(kb, { args = { dev:tensormap(A, sa), dev:tensormap(B, sb), C, O }, defines = c, checks = { races = true } })
    A:free(); B:free(); C:free(); O:free()
    expect(err, path, line_of(text, "ptx.at(ok).st.global.b32(at, v)"), "global-memory race on byte", "of buffer 'C'",
           "st.global.b32 by thread", fmt("wrote it (line %d)", line_of(text, "ptx.at(ok).st.global.b32(at, v)")),
           "two CTAs of other clusters run in any order")
  end)
end)

---------------------------------------------------------------------------------------------------
-- flash_attention: the last P V (after the key loop) accumulates into O, which the softmax rescaled,
-- from P's registers, which it wrote, both after the loop's last wgmma.fence; without the fence
-- before it the tensor cores may see the registers before those writes (the PTX ISA leaves it
-- undefined). Results are right in the emulator either way.
describe("broken kernels: flash attention", function()
  local FENCE = "vring:wait()\n        ptx.wgmma.fence.sync.aligned()\n        issue_pv()"
  local c = { BH = 1, S = 130, D = 64, CAUSAL = 1 }
  it("without the wgmma.fence before the last P V: an error at its wgmma, naming P's register and its writer", function()
    local r = rng(11)
    local n = c.BH * c.S * c.D
    local Q = dev:array("bf16", n, function() return r(-2, 2) end, "Q")
    local Kx = dev:array("bf16", n, function() return r(-2, 2) end, "K")
    local V = dev:array("bf16", n, function() return r(-1, 1) end, "V")
    local O = dev:array("bf16", n, nil, "O"):poison()
    local L = dev:array("f32", c.BH * c.S, nil, "LSE"):poison()
    local k, ret = piped("flash_attention.lua", "flash_attention")
    local mq, mk, mv, mo = ret.maps(c)
    k:launch { device = dev, args = { dev:tensormap(Q, mq), dev:tensormap(Kx, mk), dev:tensormap(V, mv), dev:tensormap(O, mo), L }, defines = c }
    local kb, retb, path, text, lib_path, lib_text = piped("flash_attention.lua", "flash_attention", { { FENCE, "vring:wait()\n        issue_pv()  -- BROKEN: no fence" } })
    mq, mk, mv, mo = retb.maps(c)
    local err = launch_error(kb, { args = { dev:tensormap(Q, mq), dev:tensormap(Kx, mk), dev:tensormap(V, mv), dev:tensormap(O, mo), L }, defines = c })
    Q:free(); Kx:free(); V:free(); O:free(); L:free()
    local wline = line_of(text, "ow(oacc, { pa[4 * kk + 1], pa[4 * kk + 2], pa[4 * kk + 3], pa[4 * kk + 4] }")
    -- the first register it meets: O's accumulator, rescaled (mul) after the loop's last fence, which
    -- is hp.mma's (in the library)
    expect(err, path, wline, "wgmma.mma_async.sync.aligned.m64n64k16.f32.bf16.bf16 in warp 4 of CTA (0,0,0): it uses %o0 as an accumulator, which the mul.rn.f32 of line",
           fmt("accessed after the warp's last wgmma.fence (line %d in %s): a wgmma.fence must come between them",
               line_of(lib_text, "ptx.wgmma.fence.sync.aligned()"), lib_path))
  end)
end)
