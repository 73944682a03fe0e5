-- emu_kernels_spec.lua -- every kernel in kernels/ but the Hopper ones (emu_kernels_hopper_spec.lua;
-- broken copies: emu_kernels_broken_spec.lua) run in the emulator at small and odd sizes, every
-- output element compared with a double-precision Lua reference. Outputs are poisoned (NaN) before
-- each launch, so an element the kernel never writes fails the comparison; the opt-in checks
-- (races, reads of never-written shared memory and registers) are on for every launch, and the
-- always-on ones (out-of-bounds, misalignment, deadlock, barrier misuse) stop any run that trips them.
--
-- Inputs: deterministic pseudo-random values (Park-Miller, exact in doubles: the same on every
-- machine), never all zeros. bf16 inputs are written rounded to nearest even, and the reference is
-- computed from the rounded values read back.
--
-- Tolerances (|got - ref| <= bound for every element; see docs/emulator.md, "Testing kernels"):
--   vector_add            exact: the f32 rounding of the double sum (one f32 add; rounding the
--                         double sum again to f32 is exact, as 53 >= 2 * 24 + 2)
--   rmsnorm, layernorm    1e-5 * |ref| + 1e-5 (f32 sums along chains of a few dozen partial sums,
--                         a sqrt and an rcp: a few 1e-7 relative; outputs are O(1))
--   softmax               1e-5 * |ref| + 1e-12 (ex2.approx.ftz: a couple of ulp, plus |x - max| * 2^-24
--                         from the fused x*log2(e) - max*log2(e), plus the f32 sum)
--   swiglu_f32            1e-5 * |ref| + 1e-6 (ex2.approx and rcp.approx: a few ulp each)
--   swiglu (bf16 out)     half a bf16 ulp of the result (the final cvt.rn.bf16) + 1e-5 * |ref|
--                         (the f32 math before it)
--   gemm_mma (bf16 in,    K * 2^-24 * sum_k |a_ik * b_jk|: the error bound of summing K exact products
--     f32 out)            in f32 in any order (gamma_K); bf16 products are exact in f32
-- Nothing is printed on success; a failure names the kernel, the size, the element, got and expected.
local H = require "helper"
local rt = require "ptxlua.emu"

local dev = rt.device("emu")
local E = require "emu_common"
local T = E.on(dev)
local one = T.one
local abs, floor = math.abs, math.floor
local fmt = string.format
local CHECKS = { races = true, uninit_shared = true, uninit_regs = true }

local KC = require "kcheck"
local load, rng, f32, bf16_half_ulp, desc, compare, free = KC.load, KC.rng, KC.f32, KC.bf16_half_ulp, KC.desc, KC.compare, KC.free

local function launch(k, args, defs)
  return k:launch { device = dev, args = args, defines = defs, checks = CHECKS }
end

---------------------------------------------------------------------------------------------------
describe("emulated kernels: vector_add", function()
  local k = load("vector_add.lua").vector_add
  for _, c in ipairs { { N = 1 }, { N = 7 }, { N = 100 }, { N = 1000 }, { N = 4097 }, { N = 37, BLOCK = 32 },
                       { N = 4097, BLOCK = 64 }, { N = 256 } } do
    it(desc(c), function()
      local n = c.N
      local r = rng(n)
      local x = dev:array("f32", n, function() return r(-100, 100) end, "x")
      local y = dev:array("f32", n, function() return r(-1, 1) end, "y")
      local out = dev:array("f32", n, nil, "out"):poison()
      launch(k, { x, y, out, n }, c)
      local xs, ys, want = x:read(), y:read(), {}
      for i = 1, n do want[i] = f32(xs[i] + ys[i]) end
      compare("vector_add " .. desc(c), out:read(), want, function() return 0 end)
      free(x, y, out)
    end)
  end

  it("counts statistics and the instruction limit per launch (the traced kernel is reused)", function()
    local n = 1000
    local x, y, out = dev:array("f32", n, 1), dev:array("f32", n, 2), dev:array("f32", n)
    local defs = { N = n }
    local a = k:launch { device = dev, args = { x, y, out, n }, defines = defs }
    local b = k:launch { device = dev, args = { x, y, out, n }, defines = defs, limit = a.warp_insns }
    assert(a.thread_insns == b.thread_insns and a.warp_insns == b.warp_insns and a.ctas == b.ctas and b.ctas == 4,
           fmt("first launch %d/%d/%d, second %d/%d/%d", a.thread_insns, a.warp_insns, a.ctas, b.thread_insns, b.warp_insns, b.ctas))
    free(x, y, out)
  end)
end)

---------------------------------------------------------------------------------------------------
-- the row kernels: B x N, one CTA a row. The sizes cover each path of the kernels' plan: vector
-- widths 4 (N % 4 == 0), 2 and 1; one warp (no shared-memory reduction) and several: 2, 3 (the
-- partials read as v2, as scalars), 8 and 32 (v4); rows held in registers (one sweep, several
-- sweeps, with and without a partial last sweep) and streamed (BLOCK = 32 or 64, N = 20002 or
-- 32768: the unrolled PTX loop, with and without rest sweeps after it and a partial tail sweep)
local ROWS = {
  { B = 1, N = 1 }, { B = 3, N = 7 }, { B = 5, N = 100 }, { B = 3, N = 1000 }, { B = 1, N = 4097 },
  { B = 5, N = 6 }, { B = 3, N = 1002 }, { B = 1, N = 4096, VEC = 2 }, { B = 2, N = 1000, VEC = 1 },
  { B = 3, N = 200 }, { B = 2, N = 300 }, { B = 2, N = 4096 },
  { B = 2, N = 8190, BLOCK = 1024 }, { B = 2, N = 4097, BLOCK = 32 }, { B = 3, N = 5000, BLOCK = 64 },
  { B = 1, N = 20002 }, { B = 1, N = 32768 },
}

local function rc(N) return function(i) return fmt("[%d][%d]", floor((i - 1) / N), (i - 1) % N) end end

-- the TMA row kernels (rmsnorm_tma, layernorm_tma: N a multiple of 4, several rows a CTA through a
-- ring of shared-memory buffers). The sizes cover: one row and one warp (N = 4); B not a multiple
-- of ROWS (a last CTA with fewer rows, rows guarded off); ROWS above B; STAGES 1 (no prefetch), 2, 3
-- and 4 (more buffers than rows, parities wrapping); partial last sweeps (N = 1000, 4100 at BLOCK
-- 1024); rows held in registers and rows read twice from shared memory (N = 20000, and N = 5000 at
-- BLOCK = 64). The tolerance is that of rmsnorm and layernorm (the same arithmetic, reordered sums).
local ROWS_TMA = {
  { B = 1, N = 4 }, { B = 3, N = 1000 }, { B = 5, N = 100 }, { B = 7, N = 8, ROWS = 2 },
  { B = 9, N = 1000, ROWS = 4, STAGES = 3 }, { B = 3, N = 4096, ROWS = 2, STAGES = 1 },
  { B = 6, N = 20000, ROWS = 3 }, { B = 5, N = 5000, BLOCK = 64 }, { B = 17, N = 200, ROWS = 16, STAGES = 4 },
  { B = 2, N = 4100, BLOCK = 1024, ROWS = 8 }, { B = 2, N = 1000, ROWS = 1 },
}

-- the two normalizations, each run as its SIMT kernel over ROWS and its TMA kernel over ROWS_TMA:
-- the seed of the inputs (its TMA run adds 1), the range of x, whether there is a bias (layernorm)
local NORMS = {
  { name = "rmsnorm", seed = 7919, x = { -3, 3 } },
  { name = "layernorm", seed = 104729, x = { -2, 2.5 }, bias = true },   -- mean ~0.25, not 0
}

-- the double-precision reference of row b: y = x * rstd * w (rmsnorm, rstd over x^2), or
-- y = (x - mean) * rstd * w + bias (layernorm, rstd over (x - mean)^2)
local function norm_row(want, xs, ws, bs, e32, b, N)
  local mean = 0
  if bs then
    local s = 0
    for j = 1, N do s = s + xs[b * N + j] end
    mean = s / N
  end
  local ss = 0
  for j = 1, N do ss = ss + (xs[b * N + j] - mean) ^ 2 end
  local rstd = 1 / math.sqrt(ss / N + e32)
  for j = 1, N do want[b * N + j] = (xs[b * N + j] - mean) * rstd * ws[j] + (bs and bs[j] or 0) end
end

for _, variant in ipairs { { "", ROWS, 0 }, { "_tma", ROWS_TMA, 1 } } do
  for _, norm in ipairs(NORMS) do
    local name = norm.name .. variant[1]
    describe("emulated kernels: " .. name, function()
      local k = load(name .. ".lua")[name]
      for _, c in ipairs(variant[2]) do
        it(desc(c), function()
          local B, N = c.B, c.N
          local r = rng(B * norm.seed + N + variant[3])
          local x = dev:array("f32", B * N, function() return r(norm.x[1], norm.x[2]) end, "x")
          local w = dev:array("f32", N, function() return r(0.5, 1.5) end, "w")
          local bias = norm.bias and dev:array("f32", N, function() return r(-0.5, 0.5) end, "b") or nil
          local y = dev:array("f32", B * N, nil, "y"):poison()
          local eps = 1e-5
          launch(k, bias and { x, w, bias, y, eps } or { x, w, y, eps }, c)
          local xs, ws, bs, e32 = x:read(), w:read(), bias and bias:read(), f32(eps)
          local want = {}
          for b = 0, B - 1 do norm_row(want, xs, ws, bs, e32, b, N) end
          compare(name .. " " .. desc(c), y:read(), want, function(_, v) return 1e-5 * abs(v) + 1e-5 end, rc(N))
          free(x, w, y, bias)
        end)
      end
    end)
  end
end

describe("emulated kernels: softmax", function()
  local k = load("softmax.lua").softmax
  local cases = {}
  for _, c in ipairs(ROWS) do cases[#cases + 1] = c end
  cases[#cases + 1] = { B = 3, N = 300, special = true }   -- -inf entries, and logits ~100 under the max
  for _, c in ipairs(cases) do
    local defs = {}
    for key, v in pairs(c) do if key ~= "special" then defs[key] = v end end
    it(desc(c), function()
      local B, N = c.B, c.N
      local r = rng(B * 15485863 + N)
      local vals = {}
      for i = 1, B * N do vals[i] = r(-4, 4) end
      if c.special then
        for i = 1, B * N, 7 do vals[i] = -math.huge end
        for i = 3, B * N, 11 do vals[i] = -100 end
        vals[2] = 20                                        -- one dominant logit in row 0
      end
      local x = dev:array("f32", B * N, vals, "x")
      local y = dev:array("f32", B * N, nil, "y"):poison()
      launch(k, { x, y }, defs)
      local xs, want = x:read(), {}
      for b = 0, B - 1 do
        local m = -math.huge
        for j = 1, N do m = math.max(m, xs[b * N + j]) end
        local s = 0
        for j = 1, N do s = s + math.exp(xs[b * N + j] - m) end
        for j = 1, N do want[b * N + j] = math.exp(xs[b * N + j] - m) / s end
      end
      compare("softmax " .. desc(c), y:read(), want, function(_, v) return 1e-5 * abs(v) + 1e-12 end, rc(N))
      free(x, y)
    end)
  end
end)

---------------------------------------------------------------------------------------------------
-- swiglu: out = g / (1 + exp(-g)) * u over M x N, walked as one flat array of 16-byte vectors. The
-- sizes have M*N odd (a last partial vector done element by element, by a thread's first, second
-- or third vector), M*N filling every CTA exactly (no guards), M*N with skipped vectors in the last
-- CTA, UNROLL 1 and 3, blocks of 32 and 64
local SWIGLU = {
  { M = 1, N = 1 }, { M = 3, N = 7 }, { M = 5, N = 99 }, { M = 37, N = 41 }, { M = 99, N = 101 },
  { M = 64, N = 64 }, { M = 32, N = 64 }, { M = 123, N = 457, BLOCK = 64, UNROLL = 3 },
  { M = 17, N = 33, BLOCK = 32, UNROLL = 1 }, { M = 8, N = 1001, UNROLL = 3 },
  { M = 3, N = 401, BLOCK = 64, UNROLL = 3 }, { M = 9, N = 67, BLOCK = 64, UNROLL = 3 },
}

local function silu_mul(g, u) return g / (1 + math.exp(-g)) * u end

for _, variant in ipairs { { "swiglu", "bf16" }, { "swiglu_f32", "f32" } } do
  local name, dtype = variant[1], variant[2]
  describe("emulated kernels: " .. name, function()
    local k = load("swiglu.lua")[name]
    for _, c in ipairs(SWIGLU) do
      it(desc(c), function()
        local n = c.M * c.N
        local r = rng(c.M * 31337 + c.N + #dtype)
        local gate = dev:array(dtype, n, function() return r(-6, 6) end, "gate")
        local up = dev:array(dtype, n, function() return r(-2, 2) end, "up")
        local out = dev:array(dtype, n, nil, "out"):poison()
        launch(k, { gate, up, out }, c)
        local gs, us, want = gate:read(), up:read(), {}
        for i = 1, n do want[i] = silu_mul(gs[i], us[i]) end
        local bound
        if dtype == "bf16" then
          bound = function(_, v, g) return bf16_half_ulp(math.max(abs(v), abs(g))) + 1e-5 * abs(v) end
        else
          bound = function(_, v) return 1e-5 * abs(v) + 1e-6 end
        end
        compare(name .. " " .. desc(c), out:read(), want, bound, rc(c.N))
        free(gate, up, out)
      end)
    end
  end)
end

---------------------------------------------------------------------------------------------------
-- gemm_mma (the mma.sync GEMM): C[M, N] = A[M, K] * B[N, K]^T, bf16 in, f32 out. Shapes: one mma tile (16 x 8 x 8, K below
-- one k-tile), partial tiles on every edge (100 x 72 x 40, 257 x 129 x 72: odd N takes the scalar
-- stores), exact tiles (128 x 128 x 64, 256 x 256 x 256: no guards, no zero fill), and other tile
-- configurations: BK = 64 and 128, STAGES = 2, GROUP = 1 (and GROUP = 2 over an uneven grid), a
-- 64 x 64 CTA tile with BK = 16 and 4 stages, a 64 x 64 warp tile, a one-warp CTA whose copy rows
-- are 4 apart (swizzled offsets computed per piece rather than by an immediate); and the smallest
-- shapes: 1 x 1 x 8, 33 x 17 x 104
local GEMM = {
  { M = 16, N = 8, K = 8 }, { M = 100, N = 72, K = 40 }, { M = 128, N = 128, K = 64 },
  { M = 257, N = 129, K = 72 }, { M = 256, N = 256, K = 256 },
  { M = 130, N = 200, K = 136, BM = 64, BN = 64, BK = 64 },
  { M = 72, N = 136, K = 200, BM = 64, BK = 64, STAGES = 2 }, { M = 128, N = 96, K = 80, STAGES = 2 },
  { M = 200, N = 136, K = 48, GROUP = 1 }, { M = 520, N = 136, K = 24, GROUP = 2 },
  { M = 96, N = 80, K = 88, BM = 64, BN = 64, WM = 32, WN = 32, BK = 16, STAGES = 4, GROUP = 1 },
  { M = 1, N = 1, K = 8 }, { M = 33, N = 17, K = 104 }, { M = 130, N = 70, K = 40, BN = 64, WN = 64 },
  { M = 40, N = 50, K = 136, BM = 32, BN = 32, WM = 32, WN = 32, BK = 64 },
  { M = 48, N = 100, K = 264, BM = 32, BN = 64, WM = 32, WN = 32, BK = 128, STAGES = 2 },
}

describe("emulated kernels: gemm_mma", function()
  local k = load("gemm_mma.lua").gemm_mma
  for _, c in ipairs(GEMM) do
    it(desc(c), function()
      local M, N, K = c.M, c.N, c.K
      local r = rng(M * 1000003 + N * 1009 + K)
      local A = dev:array("bf16", M * K, function() return r(-1, 1) end, "A")
      local B = dev:array("bf16", N * K, function() return r(-1, 1) end, "B")
      local C = dev:array("f32", M * N, nil, "C"):poison()
      local st = launch(k, { A, B, C }, c)
      local as, bs = A:read(), B:read()
      local want, mag = {}, {}
      for i = 0, M - 1 do
        for j = 0, N - 1 do
          local s, m = 0, 0
          local ai, bj = i * K, j * K
          for kk = 1, K do
            local p = as[ai + kk] * bs[bj + kk]
            s, m = s + p, m + abs(p)
          end
          want[i * N + j + 1], mag[i * N + j + 1] = s, m
        end
      end
      compare("gemm_mma " .. desc(c), C:read(), want, function(i) return K * 2 ^ -24 * mag[i] end, rc(N))
      if M == 256 and N == 256 and K == 256 then
        assert(st.seconds < 1, fmt("the 256^3 GEMM took %.2f s to emulate (the goal: well under a second)", st.seconds))
      end
      free(A, B, C)
    end)
  end
end)

-- ------------------------------------------------------------------------------------------------
-- vector_add and rmsnorm again, built and launched as a script does (the emulator's first kernels)
local THIS = debug.getinfo(1, "S").source:sub(2)

-- a line of this file, found by a marker comment on it
local function line_of(marker) return H.marker_line(THIS, marker) end

describe("emulator: kernels/vector_add.lua", function()
  local ptx = H.fresh()
  dofile(H.root .. "/kernels/vector_add.lua")
  local k = ptx.kernels()[1]

  for _, n in ipairs { 1, 37, 1000 } do
    for _, block in ipairs { 256, 32 } do
      it(string.format("adds n = %d with blocks of %d, every element checked", n, block), function()
        local x = dev:array("f32", n, function(i) return i * 0.25 - 3 end, "x")
        local y = dev:array("f32", n, function(i) return 1 / i end, "y")
        local out = dev:array("f32", n, nil, "out"):poison()
        rt.launch(k, { device = dev, args = { x, y, out, n }, defines = { N = n, BLOCK = block } })
        -- the reference: the double sum of the two f32 inputs (exact at these magnitudes), rounded
        -- to f32 once by writing it into an f32 array
        local xs, ys, o = x:read(), y:read(), out:read()
        local sums = {}
        for i = 1, n do sums[i] = xs[i] + ys[i] end
        local ref = dev:array("f32", n, sums)
        local want = ref:read()
        for i = 1, n do assert.are.equal(want[i], o[i], "element " .. i) end
        x:free(); y:free(); out:free(); ref:free()
      end)
    end
  end

  it("catches an off-by-one bounds check with the line of the load", function()
    local p2 = H.fresh()
    local bad = p2.kernel { name = "vector_add_bad", templates = { N = 37, BLOCK = 32 },
      params = { { "x", "f32*" }, { "y", "f32*" }, { "out", "f32*" }, { "n", "u32" } },
      block = function(t) return { t.BLOCK } end, grid = function(t) return { math.ceil(t.N / t.BLOCK) } end,
      body = function(t, x, y, out, n)
        local px, py, po = p2.global_ptrs(x, y, out)
        local i = p2.special("ctaid.x"):mad(p2.special "ntid.x", p2.special "tid.x")
        local L = p2.label "done"
        p2.at(i:gt(n:load())).bra(L)                      -- should be ge
        local off = i:mul_wide(4)
        local a, b = p2.reg.f32(), p2.reg.f32()
        p2.ld.global.f32(a, p2.addr(px + off)) -- OFFBYONE
        p2.ld.global.f32(b, p2.addr(py + off))
        p2.st.global.f32(p2.addr(po + off), a + b)
        p2.place(L)
        p2.ret()
      end }
    local n = 37
    local x, y, out = dev:array("f32", n, 1, "x"), dev:array("f32", n, 2, "y"), dev:array("f32", n, nil, "out")
    local ok, err = pcall(rt.launch, bad, { device = dev, args = { x, y, out, n } })
    assert.is_false(ok)
    assert.truthy(err:find(THIS .. ":" .. line_of("-- OFFBYONE") .. ": error: out-of-bounds ld.global.f32 by thread (5,0,0) of CTA (1,0,0)", 1, true), err)
    assert.truthy(err:find("just past the end of buffer 'x' (148 bytes", 1, true), err)
  end)

  it("summarizes a run on generated inputs (the --emulate command)", function()
    local text = rt.emulate(k, { defines = { N = 1000 } })
    assert.truthy(text:find("emulated vector_add: grid (4,1,1) block (256,1,1)", 1, true), text)
    assert.truthy(text:find("x        f32[1000]  unchanged", 1, true), text)
    assert.truthy(text:find("out      f32[1000]  written: min", 1, true), text)
  end)
end)

describe("emulator: kernels/rmsnorm.lua", function()
  it("matches a double-precision reference at small and uneven sizes, with every check on", function()
    local ptx = H.fresh()
    dofile(H.root .. "/kernels/rmsnorm.lua")
    local k
    for _, kk in ipairs(ptx.kernels()) do if kk.name == "rmsnorm" then k = kk end end
    local names = {}
    for i, p in ipairs(k and k.params or {}) do names[i] = p[1] end
    if not k or table.concat(names, ",") ~= "x,w,y,eps" then
      return H.pending("kernels/rmsnorm.lua changed its interface (params: " .. table.concat(names, ",") .. ")")
    end
    for _, c in ipairs { { 3, 37 }, { 2, 1000 }, { 1, 4096 }, { 5, 1 }, { 2, 6 }, { 1, 70001 } } do
      local B, N = c[1], c[2]
      local x = dev:array("f32", B * N, function(i) return math.sin(i * 0.7) * 3 end, "x")
      local w = dev:array("f32", N, function(i) return 1 + (i % 5) * 0.125 end, "w")
      local y = dev:array("f32", B * N, nil, "y"):poison()
      local eps = 1e-5
      rt.launch(k, { device = dev, args = { x, w, y, eps }, defines = { B = B, N = N },
                     checks = { races = true, uninit_shared = true, uninit_regs = true } })
      local xs, ws, ys = x:read(), w:read(), y:read()
      local e32 = dev:array("f32", 1, { eps }):read()[1]            -- the f32 parameter's value
      for b = 0, B - 1 do
        local ss = 0
        for j = 1, N do ss = ss + xs[b * N + j] ^ 2 end
        local r = 1 / math.sqrt(ss / N + e32)
        for j = 1, N do
          local ref = xs[b * N + j] * r * ws[j]
          local got = ys[b * N + j]
          assert(math.abs(got - ref) <= 1e-6 * math.abs(ref) + 1e-30,
                 string.format("B=%d N=%d: y[%d][%d] = %.9g, reference %.9g", B, N, b, j - 1, got, ref))
        end
      end
      x:free(); w:free(); y:free()
    end
  end)
end)
