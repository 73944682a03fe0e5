-- emu_mma_spec.lua -- the warp-level tensor-core instructions in the emulator: mma.sync and
-- ldmatrix (a whole warp each), then wmma (mma.h). (wgmma: emu_wgmma_spec.lua.)

local H = require "helper"
local rt = require "ptxlua.emu"

local dev = rt.device("emu")
local THIS = debug.getinfo(1, "S").source:sub(2)

-- a line of this file, found by a marker comment on it
local function line_of(marker) return H.marker_line(THIS, marker) end

-- the error a kernel body raises when run (nil when it runs)
local function run_error(params, body, launch)
  local ptx = H.fresh()
  local k = ptx.kernel { name = "k", params = params or {}, body = function(...) body(ptx, ...) end }
  launch = launch or {}
  launch.device = dev
  launch.grid = launch.grid or { 1 }
  launch.block = launch.block or { 32 }
  local ok, err = pcall(rt.launch, k, launch)
  if ok then return nil end
  return err
end

describe("emulator: tensor cores", function()
  -- A 16x16, B 16x8 (k x n), C 16x8: small integers, so every product and sum is exact
  local function Aval(i, k) return (i + 2 * k) % 5 - 2 end
  local function Bval(k, n) return (3 * k + n) % 7 - 3 end
  local function Cval(i, n) return i - n end

  for _, variant in ipairs { "bf16", "f16" } do
    it("multiplies m16n8k16 ." .. variant .. " fragments loaded by ldmatrix (.x4 for A, .x2 and .x2.trans for B)", function()
      local ptx = H.fresh()
      local k = ptx.kernel { name = "k", params = { { "a", variant .. "*" }, { "bt", variant .. "*" }, { "b", variant .. "*" },
                                                    { "c", "f32*" }, { "d", "f32*" } }, body = function(_, a, bt, b, c, d)
        local pa, pbt, pb, pc, pd = ptx.global_ptrs(a, bt, b, c, d)
        local lane = ptx.special "tid.x"
        local sA = ptx.reg.u32(); ptx.mov.u32(sA, ptx.shared("sA", "b16", 256, 128))
        local sBt = ptx.reg.u32(); ptx.mov.u32(sBt, ptx.shared("sBt", "b16", 128, 128))
        local sB = ptx.reg.u32(); ptx.mov.u32(sB, ptx.shared("sB", "b16", 128, 128))
        -- stage: 16 bytes a thread for A (512 bytes), half the warp each for Bt and B (256 bytes)
        ptx.cp.async.cg.shared.global(ptx.addr(lane:mad(16, sA)), ptx.addr(pa + lane:mul_wide(16)), 16)
        local half = lane:band(15)
        local isbt = lane:lt(16)
        local dbt, dB, gbt, gB = half:mad(16, sBt), half:mad(16, sB), pbt + half:mul_wide(16), pb + half:mul_wide(16)
        ptx.at(isbt).cp.async.cg.shared.global(ptx.addr(dbt), ptx.addr(gbt), 16)   -- the guard takes the next instruction
        ptx.at_not(isbt).cp.async.cg.shared.global(ptx.addr(dB), ptx.addr(gB), 16)
        ptx.cp.async.wait_all()
        ptx.bar.sync(0)
        -- A: matrix i = lane / 8 holds rows (i % 2) * 8 .. +7, columns (i / 2) * 8 .. +7
        local i, r = lane:shr(3), lane:band(7)
        local arow = i:band(1) * 8 + r
        local aaddr = sA + arow * 32 + i:shr(1) * 16
        local af = ptx.regs.b32(4)
        ptx.ldmatrix.sync.aligned.m8n8.x4.shared.b16(af, ptx.addr(aaddr))
        -- B from Bt (n rows of k): matrix j = (lane / 8) % 2 holds k = 8j .. 8j+7
        local j = i:band(1)
        local bf = ptx.regs.b32(2)
        ptx.ldmatrix.sync.aligned.m8n8.x2.shared.b16(bf, ptx.addr(sBt + r * 32 + j * 16))
        -- the same B from row-major k x n, transposed on the way
        local bf2 = ptx.regs.b32(2)
        ptx.ldmatrix.sync.aligned.m8n8.x2.trans.shared.b16(bf2, ptx.addr(sB + (j * 8 + r) * 16))
        -- C fragment: c0, c1 at row g, columns 2t, 2t+1; c2, c3 at row g + 8
        local g, t = lane:shr(2), lane:band(3)
        local cf, df, df2 = ptx.regs.f32(4), ptx.regs.f32(4), ptx.regs.f32(4)
        local crow0 = pc + (g * 8 + t * 2):mul_wide(4)
        ptx.ld.global.v2.f32({ cf[1], cf[2] }, ptx.addr(crow0))
        ptx.ld.global.v2.f32({ cf[3], cf[4] }, ptx.addr(crow0, 8 * 8 * 4))
        local mma = ptx.op("mma.sync.aligned.m16n8k16.row.col.f32." .. variant .. "." .. variant .. ".f32")
        mma(df, af, bf, cf)
        mma(df2, af, bf2, cf)
        local drow0 = pd + (g * 8 + t * 2):mul_wide(4)
        ptx.st.global.v2.f32(ptx.addr(drow0), { df[1], df[2] })
        ptx.st.global.v2.f32(ptx.addr(drow0, 8 * 8 * 4), { df[3], df[4] })
        ptx.st.global.v2.f32(ptx.addr(drow0, 16 * 8 * 4), { df2[1], df2[2] })
        ptx.st.global.v2.f32(ptx.addr(drow0, 24 * 8 * 4), { df2[3], df2[4] })
      end }
      local A, Bt, B, C = {}, {}, {}, {}
      for i = 0, 15 do for kk = 0, 15 do A[i * 16 + kk + 1] = Aval(i, kk) end end
      for n = 0, 7 do for kk = 0, 15 do Bt[n * 16 + kk + 1] = Bval(kk, n) end end
      for kk = 0, 15 do for n = 0, 7 do B[kk * 8 + n + 1] = Bval(kk, n) end end
      for i = 0, 15 do for n = 0, 7 do C[i * 8 + n + 1] = Cval(i, n) end end
      local a, bt, b = dev:array(variant, 256, A), dev:array(variant, 128, Bt), dev:array(variant, 128, B)
      local c, d = dev:array("f32", 128, C), dev:array("f32", 256):poison()
      rt.launch(k, { device = dev, args = { a, bt, b, c, d }, grid = { 1 }, block = { 32 } })
      local o = d:read()
      for i = 0, 15 do
        for n = 0, 7 do
          local s = Cval(i, n)
          for kk = 0, 15 do s = s + Aval(i, kk) * Bval(kk, n) end
          assert.are.equal(s, o[i * 8 + n + 1], string.format("D[%d][%d]", i, n))
          assert.are.equal(s, o[128 + i * 8 + n + 1], string.format("D[%d][%d] (trans)", i, n))
        end
      end
    end)
  end

  it("needs the whole warp for ldmatrix and mma", function()
    local err = run_error({}, function(ptx)
      local s = ptx.reg.u32(); ptx.mov.u32(s, ptx.shared("m", "b16", 64, 16))
      local f = ptx.regs.b32(1)
      ptx.ldmatrix.sync.aligned.m8n8.x1.shared.b16(f, ptx.addr(s)) -- PARTIAL
    end, { block = { 16 } })
    assert.truthy(err and err:find(THIS .. ":" .. line_of("-- PARTIAL") .. ": error: ldmatrix", 1, true), err)
    assert.truthy(err:find("needs all 32 threads", 1, true), err)
  end)
end)

-- ------------------------------------------------------------------------------------------------
-- wmma (what nvcc writes for CUDA's nvcuda::wmma, mma.h) in the emulator:
-- every type and shape the PTX ISA gives sm_80/sm_90 (f16 with f16/f32 accumulators, bf16, tf32,
-- s8/u8 with .s32 and .satfinite; m16n16k16, m32n8k16, m8n32k16, m16n16k8), every layout, tiles at
-- offsets of larger matrices (stride > width) and the default stride, against a GEMM computed here;
-- the fragment layout docs/emulator.md promises; shared and generic addresses; the checks (bounds,
-- alignment, lanes, uninitialized registers and shared memory, races); and a kernel as nvcc writes
-- it for mma.h, read with --from-ptx and run. Every module is assembled by ptxas.
local ffi = require "ffi"

local DIMS = { m16n16k16 = { 16, 16, 16 }, m32n8k16 = { 32, 8, 16 }, m8n32k16 = { 8, 32, 16 }, m16n16k8 = { 16, 16, 8 } }
-- bytes of an element in memory, the array type that holds it, and the registers of each fragment
local ES = { f16 = 2, bf16 = 2, s8 = 1, u8 = 1, tf32 = 4, f32 = 4, s32 = 4 }
local STORAGE = { f16 = "f16", bf16 = "bf16", s8 = "s8", u8 = "u8", tf32 = "f32", f32 = "f32", s32 = "s32" }
local function nregs(mat, shape, t)
  local M, N, K = unpack(DIMS[shape])
  if mat == "c" then return t == "f16" and 4 or 8 end
  if t == "f16" then return 8 end
  local els = (mat == "a" and M * K or K * N) / 32
  return els / (4 / ES[t])                          -- 32-bit registers of 4 s8/u8, 2 bf16 or 1 tf32 elements
end
local function fragment(ptx, mat, shape, t)
  if mat == "c" and t == "f32" then return ptx.regs.f32(8) end
  if mat == "c" and t == "s32" then return ptx.regs.s32(8) end
  return ptx.regs.b32(nregs(mat, shape, t))
end

-- a matrix of R x C elements stored in a larger buffer: .row (lines are rows) or .col, its lines
-- `stride` elements apart, starting at line `lo`, element `po` of its line (a tile of a bigger
-- matrix; stride "wide" or "odd"); stride nil: the matrix alone, packed (the default stride)
local function placement(R, C, layout, t, stride)
  local lines, len = layout == "row" and R or C, layout == "row" and C or R
  local p = { R = R, C = C, layout = layout, t = t, len = len }
  local lb = len * ES[t]
  if stride == "wide" then                         -- lines a multiple of 32 bytes apart: start at line 3, 32 bytes in
    p.stride, p.lo, p.po = (math.ceil(lb / 32) * 32 + 32) / ES[t], 3, 32 / ES[t]
    p.n = (p.lo + lines + 2) * p.stride
  elseif stride == "odd" then                      -- an odd multiple of 16 bytes (where one fits): start at line 2
    p.stride, p.lo, p.po = (math.ceil(lb / 16) * 16 + 16) / ES[t], 2, 0
    p.n = (p.lo + lines + 1) * p.stride
  else
    p.stride, p.lo, p.po, p.n = len, 0, 0, lines * len
  end
  p.base = (p.lo * p.stride + p.po) * ES[t]        -- bytes
  function p.index(r, c)                           -- 1-based index in the buffer of element (r, c)
    local line, pos = layout == "row" and r or c, layout == "row" and c or r
    return (p.lo + line) * p.stride + p.po + pos + 1
  end
  return p
end

-- values: small integers (every product and sum exact in f16), the full 8-bit range for s8/u8
local function aval(t, i, k)
  if t == "s8" then return (i * 37 + k * 91) % 256 - 128 elseif t == "u8" then return (i * 53 + k * 29 + 7) % 256 end
  return (i * 5 + k * 3 + 1) % 9 - 4
end
local function bval(t, k, j)
  if t == "s8" then return (k * 71 + j * 13 + 5) % 256 - 128 elseif t == "u8" then return (k * 17 + j * 101) % 256 end
  return (k * 7 + j * 2 + 3) % 11 - 5
end
local function cval(t, i, j) return t == "s32" and (i * 977 + j * 31) % 20000 - 10000 or (i * 3 + j) % 23 - 11 end

local SENTINEL = -77
local function buffer(p, f)
  local vals = {}
  for i = 1, p.n do vals[i] = SENTINEL end
  if f then for r = 0, p.R - 1 do for c = 0, p.C - 1 do vals[p.index(r, c)] = f(r, c) end end end
  return dev:array(STORAGE[p.t], p.n, vals)
end

-- one case: D = A B + C for one warp, each matrix placed by its layout, optional stride, space
local function build_case(ptx, cs, name)
  local M, N, K = unpack(DIMS[cs.shape])
  cs.pa = placement(M, K, cs.la, cs.ab, cs.stride)
  cs.pb = placement(K, N, cs.lb, cs.ab, cs.stride)
  cs.pc = placement(M, N, cs.lc, cs.ct, cs.stride)
  cs.pd = placement(M, N, cs.ld, cs.dt, cs.stride)
  local sp = cs.space == "generic" and "" or "." .. cs.space
  local ptype = function(t) return STORAGE[t] .. "*" end
  cs.kernel = ptx.kernel { name = name, target = "sm_80",
    params = { { "a", ptype(cs.ab) }, { "b", ptype(cs.ab) }, { "c", ptype(cs.ct) }, { "d", ptype(cs.dt) } },
    body = function(_, a, b, c, d)
      local pa, pb, pc, pd = ptx.global_ptrs(a, b, c, d)
      local fa, fb = fragment(ptx, "a", cs.shape, cs.ab), fragment(ptx, "b", cs.shape, cs.ab)
      local fc, fd = fragment(ptx, "c", cs.shape, cs.ct), fragment(ptx, "c", cs.shape, cs.dt)
      local function st(p) if cs.stride then return p.stride end end
      local abt = cs.ab == "tf32" and "tf32" or cs.ab
      ptx.op(("wmma.load.a.sync.aligned.%s.%s%s.%s"):format(cs.la, cs.shape, sp, abt))(fa, ptx.addr(pa, cs.pa.base), st(cs.pa))
      ptx.op(("wmma.load.b.sync.aligned.%s.%s%s.%s"):format(cs.lb, cs.shape, sp, abt))(fb, ptx.addr(pb, cs.pb.base), st(cs.pb))
      ptx.op(("wmma.load.c.sync.aligned.%s.%s%s.%s"):format(cs.lc, cs.shape, sp, cs.ct))(fc, ptx.addr(pc, cs.pc.base), st(cs.pc))
      local types
      if cs.ab == "f16" then types = cs.dt .. "." .. cs.ct
      else types = ("%s.%s.%s.%s"):format(cs.dt, cs.ab, cs.ab, cs.ct) end
      ptx.op(("wmma.mma.sync.aligned.%s.%s.%s.%s%s"):format(cs.la, cs.lb, cs.shape, types, cs.satfinite and ".satfinite" or ""))(fd, fa, fb, fc)
      ptx.op(("wmma.store.d.sync.aligned.%s.%s%s.%s"):format(cs.ld, cs.shape, sp, cs.dt))(ptx.addr(pd, cs.pd.base), fd, st(cs.pd))
    end }
end

local function run_case(cs)
  local M, N, K = unpack(DIMS[cs.shape])
  local A = buffer(cs.pa, function(i, k) return aval(cs.ab, i, k) end)
  local B = buffer(cs.pb, function(k, j) return bval(cs.ab, k, j) end)
  local C = buffer(cs.pc, function(i, j) return cs.cfun and cs.cfun(i, j) or cval(cs.ct, i, j) end)
  local D = buffer(cs.pd)
  rt.launch(cs.kernel, { device = dev, args = { A, B, C, D }, grid = { 1 }, block = { 32 } })
  local a, b, c, o = A:read(), B:read(), C:read(), D:read()
  local want = {}
  for i = 0, M - 1 do
    for j = 0, N - 1 do
      local s = c[cs.pc.index(i, j)]
      for k = 0, K - 1 do s = s + a[cs.pa.index(i, k)] * b[cs.pb.index(k, j)] end
      if cs.dt == "s32" then
        if cs.satfinite then s = math.max(-2^31, math.min(2^31 - 1, s))
        else s = (s + 2^31) % 2^32 - 2^31 end
      end
      want[cs.pd.index(i, j)] = s
    end
  end
  for idx = 1, cs.pd.n do
    local w = want[idx] or SENTINEL
    if o[idx] ~= w then
      local line, pos = math.floor((idx - 1) / cs.pd.stride) - cs.pd.lo, (idx - 1) % cs.pd.stride - cs.pd.po
      error(("%s: D element %d (line %d, position %d of the %s layout): got %s, want %s"):format(cs.desc, idx, line, pos,
            cs.ld, tostring(o[idx]), tostring(w)), 2)
    end
  end
  A:free(); B:free(); C:free(); D:free()
end

-- the cases: every layout pair of A and B for each type and shape, the accumulator types and the
-- C/D layouts in turn, every third one with the default stride, every other one on generic addresses
local function cases()
  local list, n = {}, 0
  local function add(ab, shape, ct, dt, extra)
    for _, la in ipairs { "row", "col" } do
      for _, lb in ipairs { "row", "col" } do
        n = n + 1
        local cs = { ab = ab, shape = shape, ct = ct, dt = dt, la = la, lb = lb,
                     lc = n % 2 == 0 and "row" or "col", ld = n % 3 == 0 and "col" or "row",
                     stride = n % 3 == 0 and "wide" or n % 3 == 2 and "odd" or nil, space = n % 2 == 0 and "generic" or "global" }
        for k, v in pairs(extra or {}) do cs[k] = v end
        cs.desc = ("%s %s %s.%s (%s %s, C %s, D %s, %s, %s)"):format(ab, shape, dt, ct, la, lb, cs.lc, cs.ld,
                  cs.stride and cs.stride .. " stride" or "default stride", cs.space)
        list[#list + 1] = cs
      end
    end
  end
  local ACC = { { "f32", "f32" }, { "f16", "f16" }, { "f16", "f32" }, { "f32", "f16" } }
  for si, shape in ipairs { "m16n16k16", "m32n8k16", "m8n32k16" } do
    for ai, acc in ipairs(ACC) do if (ai + si) % 2 == 0 or ai == si then add("f16", shape, acc[1], acc[2]) end end
    add("bf16", shape, "f32", "f32")
    add("s8", shape, "s32", "s32")
    add("u8", shape, "s32", "s32", { satfinite = si == 2 })
  end
  add("tf32", "m16n16k8", "f32", "f32")
  return list
end

-- what nvcc 13.0 writes (nvcc -ptx -arch=sm_80) for this mma.h kernel: C = 2 (A B), A row-major M x K,
-- B column-major (N rows of K), a warp per 16x16 tile of C, a K loop (#pragma unroll 1), the
-- accumulator doubled element by element (fc.x[i] *= 2) before store_matrix_sync:
--   wmma::load_matrix_sync(fa, a + tm * K + k, K); wmma::load_matrix_sync(fb, b + tn * K + k, K);
--   wmma::mma_sync(fc, fa, fb, fc); ... wmma::store_matrix_sync(c + tm * N + tn, fc, N, wmma::mem_row_major);
local NVCC_GEMM = H.fixture "nvcc/wmma_gemm.ptx"

describe("emulator: wmma", function()
  it("multiplies every type and shape, in every layout, tiles at offsets and packed, as a GEMM computed here", function()
    local ptx = H.fresh()
    local list = cases()
    for i, cs in ipairs(list) do build_case(ptx, cs, "wm" .. i) end
    H.assembles(ptx, "sm_80")
    local seen = {}
    for _, cs in ipairs(list) do
      run_case(cs)
      seen[cs.ab .. "." .. cs.shape] = true
      seen[cs.dt .. "." .. cs.ct] = true
    end
    for _, key in ipairs { "f16.m16n16k16", "f16.m32n8k16", "f16.m8n32k16", "bf16.m16n16k16", "bf16.m32n8k16",
                           "bf16.m8n32k16", "s8.m16n16k16", "u8.m32n8k16", "s8.m8n32k16", "tf32.m16n16k8",
                           "f32.f32", "f16.f16", "f16.f32", "f32.f16" } do
      assert.is_true(seen[key], key)
    end
  end)

  it("saturates with .satfinite, wraps without it (s8 and u8 into .s32)", function()
    local ptx = H.fresh()
    local big = function(i, j) return 2^31 - 1000 - i * 3 - j end        -- C near the top: A B pushes it over
    local list = {}
    for _, sat in ipairs { true, false } do
      for _, ab in ipairs { "u8", "s8" } do
        local cs = { ab = ab, shape = "m16n16k16", ct = "s32", dt = "s32", la = "row", lb = "col", lc = "row", ld = "row",
                     stride = "wide", space = "global", satfinite = sat, cfun = big, desc = ab .. (sat and " satfinite" or " wrapping") }
        list[#list + 1] = cs
        build_case(ptx, cs, "sat" .. #list)
      end
    end
    H.assembles(ptx, "sm_80")
    for _, cs in ipairs(list) do run_case(cs) end
    -- the u8 products are all positive: they do overflow (the test would prove nothing otherwise)
    local s = big(0, 0)
    for k = 0, 15 do s = s + aval("u8", 0, k) * bval("u8", k, 0) end
    assert.is_true(s > 2^31 - 1)
  end)

  it("rounds once, as mma.sync: exact products summed with C, rounded to f32 or f16 at the end", function()
    -- products of f16 values with 11-bit significands and an f32 C of another scale: the sum needs
    -- more than 24 bits, so summing in f32 step by step would differ from one rounding
    local ptx = H.fresh()
    local function hv(i, k) return (1 + ((i * 13 + k * 7) % 1024) / 1024) * 2^((i + k) % 5 - 2) end
    local list = {}
    for _, dt in ipairs { "f32", "f16" } do
      local cs = { ab = "f16", shape = "m16n16k16", ct = "f32", dt = dt, la = "row", lb = "row", lc = "row", ld = "row",
                   stride = false, space = "global", desc = "rounding to " .. dt }
      list[#list + 1] = cs
      build_case(ptx, cs, "rnd" .. dt)
    end
    H.assembles(ptx, "sm_80")
    for _, cs in ipairs(list) do
      local A = buffer(cs.pa, function(i, k) return hv(i, k) end)
      local B = buffer(cs.pb, function(k, j) return hv(j + 3, k) end)
      local C = buffer(cs.pc, function(i, j) return 3000.123 + i - j end)
      local D = buffer(cs.pd)
      rt.launch(cs.kernel, { device = dev, args = { A, B, C, D }, grid = { 1 }, block = { 32 } })
      local a, b, c, o = A:read(), B:read(), C:read(), D:read()
      local steps = 0
      for i = 0, 15 do
        for j = 0, 15 do
          local s, f = c[cs.pc.index(i, j)], ffi.new("float[1]")
          f[0] = s
          for k = 0, 15 do
            local p = a[cs.pa.index(i, k)] * b[cs.pb.index(k, j)]
            s = s + p
            f[0] = f[0] + p                              -- f32 step by step: what the emulator does not do
          end
          local want
          if cs.dt == "f32" then local g = ffi.new("float[1]", s); want = g[0]
          else
            local e = math.floor(math.log(math.abs(s)) / math.log(2))   -- f16: 11 significant bits, ties to even
            local q = 2^(e - 10)
            local m = s / q
            local fl = math.floor(m)
            if m - fl > 0.5 or (m - fl == 0.5 and fl % 2 == 1) then fl = fl + 1 end
            want = fl * q
          end
          assert.are.equal(want, o[cs.pd.index(i, j)], ("%s: D[%d][%d]"):format(cs.desc, i, j))
          if cs.dt == "f32" and f[0] ~= want then steps = steps + 1 end
        end
      end
      if cs.dt == "f32" then assert.is_true(steps > 0, "no element where one rounding differs from f32 steps") end
      A:free(); B:free(); C:free(); D:free()
    end
  end)

  it("lays fragments out as the mma.sync fragments (docs/emulator.md): C/D, A and B element by element", function()
    -- every lane stores its registers as they are: the positions docs/emulator.md gives
    local ptx = H.fresh()
    local k = ptx.kernel { name = "layout", target = "sm_80", params = { { "m", "f32*" }, { "h", "f16*" }, { "out", "u32*" } },
      body = function(_, m, h, out)
        local pm, ph, po = ptx.global_ptrs(m, h, out)
        local lane = ptx.special "tid.x"
        local fc = ptx.regs.f32(8)
        ptx.op "wmma.load.c.sync.aligned.row.m16n16k16.global.f32" (fc, ptx.addr(pm), 16)
        local fa, fb = ptx.regs.b32(8), ptx.regs.b32(8)
        ptx.op "wmma.load.a.sync.aligned.row.m16n16k16.global.f16" (fa, ptx.addr(ph), 16)
        ptx.op "wmma.load.b.sync.aligned.row.m16n16k16.global.f16" (fb, ptx.addr(ph), 16)
        local base = po + lane:mul_wide(4 * 24)
        for r = 1, 8 do ptx.st.global.f32(ptx.addr(base, 4 * (r - 1)), fc[r]) end
        for r = 1, 8 do ptx.st.global.b32(ptx.addr(base, 32 + 4 * (r - 1)), fa[r]) end
        for r = 1, 8 do ptx.st.global.b32(ptx.addr(base, 64 + 4 * (r - 1)), fb[r]) end
      end }
    H.assembles(ptx, "sm_80")
    local m = dev:array("f32", 256, function(i) return i - 1 end)                  -- m[r][c] = 16 r + c
    local h = dev:array("f16", 256, function(i) return i - 1 end)                  -- exact in f16 (< 2048)
    local out = dev:array("u32", 32 * 24):poison()
    rt.launch(k, { device = dev, args = { m, h, out }, grid = { 1 }, block = { 32 } })
    local o = out:read()
    local f = ffi.new("union { uint32_t u; float f; }")
    local function half_of(bits)                                                   -- small positive integers only
      if bits == 0 then return 0 end
      local e, mant = math.floor(bits / 1024) % 32, bits % 1024
      return (1 + mant / 1024) * 2^(e - 15)
    end
    for l = 0, 31 do
      local g, t = math.floor(l / 4), l % 4
      for r = 0, 7 do
        -- C/D: two m16n8 accumulators, columns 0-7 then 8-15; c0,c1 row g, c2,c3 row g+8
        f.u = o[l * 24 + r + 1]
        local row, col = g + 8 * (math.floor(r / 2) % 2), 2 * t + r % 2 + 8 * math.floor(r / 4)
        assert.are.equal(16 * row + col, f.f, ("lane %d, c register %d"):format(l, r))
        -- A: the m16n8k16 A fragment (a0 row g, a1 row g+8, a2/a3 columns +8), then again
        local v = o[l * 24 + 8 + r + 1]
        local j = r % 4
        local arow, acol = g + 8 * (j % 2), 2 * t + 8 * math.floor(j / 2)
        assert.are.equal(16 * arow + acol, half_of(v % 65536), ("lane %d, a register %d, low half"):format(l, r))
        assert.are.equal(16 * arow + acol + 1, half_of(math.floor(v / 65536)), ("lane %d, a register %d, high half"):format(l, r))
        -- B (k x n): the B fragment of columns 0-7 (b0 rows 2t, 2t+1; b1 rows 2t+8, 2t+9), of 8-15, then again
        v = o[l * 24 + 16 + r + 1]
        j = r % 4
        local bk, bn = 2 * t + 8 * (j % 2), g + 8 * math.floor(j / 2)
        assert.are.equal(16 * bk + bn, half_of(v % 65536), ("lane %d, b register %d, low half"):format(l, r))
        assert.are.equal(16 * (bk + 1) + bn, half_of(math.floor(v / 65536)), ("lane %d, b register %d, high half"):format(l, r))
      end
    end
  end)

  it("goes through shared memory (.shared and generic addresses), with the races and uninitialized-shared checks", function()
    local ptx = H.fresh()
    -- warp 0 stores its accumulator into shared memory, warp 1 loads it back (generic) after a barrier
    local function body(with_barrier)
      return function(_, c, d)
        local pc, pd = ptx.global_ptrs(c, d)
        local s = ptx.shared("tile", "f32", 24 * 16, 32)
        local sa = ptx.reg.u32(); ptx.mov.u32(sa, s)
        local ga = ptx.reg.u64(); ptx.cvta.shared.u64(ga, s)
        local warp = ptx.special("tid.x"):shr(5)
        local fc = ptx.regs.f32(8)
        ptx.if_(warp:eq(0), function()
          ptx.op "wmma.load.c.sync.aligned.col.m16n16k16.global.f32" (fc, ptx.addr(pc), 16)
          ptx.op "wmma.store.d.sync.aligned.row.m16n16k16.shared.f32" (ptx.addr(sa), fc, 24)
        end)
        if with_barrier then ptx.bar.sync(0) end
        ptx.if_(warp:eq(1), function()
          local f2 = ptx.regs.f32(8)
          ptx.op "wmma.load.c.sync.aligned.row.m16n16k16.f32" (f2, ptx.addr(ga), 24) -- SHLOAD
          ptx.op "wmma.store.d.sync.aligned.row.m16n16k16.global.f32" (ptx.addr(pd), f2, 16)
        end)
      end
    end
    local ok = ptx.kernel { name = "viashared", target = "sm_80", params = { { "c", "f32*" }, { "d", "f32*" } }, body = body(true) }
    local racy = ptx.kernel { name = "racy", target = "sm_80", params = { { "c", "f32*" }, { "d", "f32*" } }, body = body(false) }
    H.assembles(ptx, "sm_80")
    local c = dev:array("f32", 256, function(i) return i * 3 end)
    local d = dev:array("f32", 256):poison()
    rt.launch(ok, { device = dev, args = { c, d }, grid = { 1 }, block = { 64 }, checks = { races = true, uninit_shared = true } })
    local cv, o = c:read(), d:read()
    for r = 0, 15 do for col = 0, 15 do
      assert.are.equal(cv[col * 16 + r + 1], o[r * 16 + col + 1], ("D[%d][%d]: C read .col, written .row"):format(r, col))
    end end
    -- no barrier: warp 1's load races with warp 0's store (warp 0 runs first: it wrote the bytes)
    local err = H.emu_launch(dev, racy, { args = { c, d }, grid = { 1 }, block = { 64 }, checks = { races = true } })
    H.expect_error(err, THIS, line_of("-- SHLOAD"), "shared-memory race", "wmma.load.c.sync.aligned.row.m16n16k16.f32", "thread (32,0,0)")
    -- the padding columns 16..23 of the shared tile are never written: a load of them is reported
    local k2 = ptx.kernel { name = "pad", target = "sm_80", params = { { "c", "f32*" } }, body = function(_, c2)
      local pc = ptx.global_ptrs(c2)
      local s = ptx.shared("tile2", "f32", 24 * 16, 32)
      local sa = ptx.reg.u32(); ptx.mov.u32(sa, s)
      local fc = ptx.regs.f32(8)
      ptx.op "wmma.load.c.sync.aligned.row.m16n16k16.global.f32" (fc, ptx.addr(pc), 16)
      ptx.op "wmma.store.d.sync.aligned.row.m16n16k16.shared.f32" (ptx.addr(sa), fc, 24)
      ptx.op "wmma.load.c.sync.aligned.row.m16n16k16.shared.f32" (fc, ptx.addr(sa, 32), 24) -- PADLOAD
    end }
    err = H.emu_launch(dev, k2, { args = { c }, grid = { 1 }, block = { 32 }, checks = { uninit_shared = true } })
    H.expect_error(err, THIS, line_of("-- PADLOAD"), "wmma.load.c.sync.aligned.row.m16n16k16.shared.f32")
    assert.truthy(err:find("reads shared byte 0x40, which no thread has written", 1, true), err)
  end)

  it("reports bounds, alignment, lanes and uninitialized fragments at the line, naming the thread", function()
    local function fails(opts, body)
      local ptx = H.fresh()
      local k = ptx.kernel { name = "k", target = "sm_80", params = { { "m", "f32*" }, { "n", "u32" } }, body = function(_, m, n)
        body(ptx, ptx.global_ptrs(m))
      end }
      H.assembles(ptx, "sm_80")
      local m = dev:array("f32", 256, 1)
      return H.emu_launch(dev, k, { args = { m, 16 }, grid = { 1 }, block = { opts.block or 32 }, checks = opts.checks })
    end
    local err = fails({}, function(ptx, p)
      local f = ptx.regs.f32(8)
      ptx.op "wmma.load.c.sync.aligned.row.m16n16k16.global.f32" (f, ptx.addr(p, 32), 16) -- PAST
    end)
    H.expect_error(err, THIS, line_of("-- PAST"), "wmma.load.c", "out-of-bounds")
    err = fails({}, function(ptx, p)
      local f = ptx.regs.f32(8)
      ptx.op "wmma.load.c.sync.aligned.col.m16n16k16.global.f32" (f, ptx.addr(p), 20) -- LONGSTRIDE
    end)
    H.expect_error(err, THIS, line_of("-- LONGSTRIDE"), "out-of-bounds")
    err = fails({}, function(ptx, p)
      local f = ptx.regs.f32(8)
      ptx.op "wmma.load.c.sync.aligned.row.m16n16k16.global.f32" (f, ptx.addr(p, 16), 8) -- MISALIGNED
    end)
    H.expect_error(err, THIS, line_of("-- MISALIGNED"), "misaligned matrix: address", "not a multiple of 32", "thread (0,0,0)")
    err = fails({}, function(ptx, p)
      local f = ptx.regs.f32(8)
      ptx.op "wmma.load.c.sync.aligned.row.m16n16k16.global.f32" (f, ptx.addr(p), 14) -- ODDSTRIDE
    end)
    H.expect_error(err, THIS, line_of("-- ODDSTRIDE"), "stride 14 (56 bytes) is not a multiple of 16 bytes")
    err = fails({}, function(ptx, p)
      local f = ptx.regs.f32(8)
      local lane = ptx.special "tid.x"
      local q = p + lane:shr(4):mul_wide(64)
      ptx.op "wmma.load.c.sync.aligned.row.m16n16k16.f32" (f, ptx.addr(q), 8) -- LANES
    end)
    H.expect_error(err, THIS, line_of("-- LANES"), "differs from lane 0's", "thread (16,0,0)")
    err = fails({ block = 16 }, function(ptx, p)
      local f = ptx.regs.f32(8)
      ptx.op "wmma.load.c.sync.aligned.row.m16n16k16.global.f32" (f, ptx.addr(p), 16) -- HALFWARP
    end)
    H.expect_error(err, THIS, line_of("-- HALFWARP"), "needs all 32 threads")
    err = fails({ checks = { uninit_regs = true } }, function(ptx, p)
      local f = ptx.regs.f32(8)
      ptx.op "wmma.store.d.sync.aligned.row.m16n16k16.global.f32" (ptx.addr(p), f, 16) -- NOTLOADED
    end)
    H.expect_error(err, THIS, line_of("-- NOTLOADED"), "wmma.store.d", "which no instruction has written")
    err = fails({}, function(ptx, p)
      local f = ptx.regs.f32(8)
      ptx.op "wmma.store.d.sync.aligned.row.m16n16k16.global.f32" (ptx.addr(p, 1024), f, 16) -- STOREPAST
    end)
    H.expect_error(err, THIS, line_of("-- STOREPAST"), "wmma.store.d", "out-of-bounds")
  end)

  it("runs an mma.h GEMM as nvcc writes it, read with --from-ptx, at a size of several tiles", function()
    local dir = H.tmpdir()
    local path = H.write(dir .. "/wmma_gemm.ptx", NVCC_GEMM)
    local ok, report = H.assemble(NVCC_GEMM, "sm_80")
    if ok ~= nil then assert(ok, report) end
    local script = dir .. "/wmma_gemm.lua"
    local _, err, rc = H.ptxlua { "--from-ptx", path, "-o", script }
    assert.are.equal(0, rc, err)
    local back = H.ptxlua { script, "--print-ptx" }
    assert.are.equal(NVCC_GEMM, back)
    local ks = H.load_script(script)
    local k = ks["_Z9wmma_gemmPK6__halfS1_Pfii"]
    local M, N, K = 48, 32, 80
    local A = dev:array("f16", M * K, function(i) local r, c = math.floor((i - 1) / K), (i - 1) % K; return aval("f16", r, c) end)
    local B = dev:array("f16", N * K, function(i) local n, c = math.floor((i - 1) / K), (i - 1) % K; return bval("f16", c, n) end)
    local C = dev:array("f32", M * N):poison()
    k:launch { device = dev, args = { A, B, C, N, K }, grid = { N / 16, M / 16 }, block = { 32 }, checks = { uninit_regs = true } }
    local o = C:read()
    for i = 0, M - 1 do
      for j = 0, N - 1 do
        local s = 0
        for kk = 0, K - 1 do s = s + aval("f16", i, kk) * bval("f16", kk, j) end
        assert.are.equal(2 * s, o[i * N + j + 1], ("C[%d][%d]"):format(i, j))
      end
    end
  end)
end)
