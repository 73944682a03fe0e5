-- emu_nvcc_spec.lua -- the forms nvcc writes, run in the emulator from PTX (ptxlua --from-ptx, plain
-- and --sugar): shfl.sync with a predicate destination (d|p), nested { } blocks of inline asm (and
-- the script line of a statement that shares its PTX line with others), mov.pred of an immediate,
-- a membermask per cooperative-groups tile, `.reg.b32 f;` written without a space, the .param
-- calling convention (arguments, results, byte-array parameters, calls from a .func, recursion and
-- its depth limit, printf through vprintf), and a .weak .entry in a --sugar script. Each kernel is a
-- file of tests/fixtures/nvcc/ as nvcc lays it out, assembled by ptxas, and checked against a Lua
-- reference.
local H = require "helper"
local rt = require "ptxlua.emu"
local bit = require "bit"
local shq = H.shq

local FORMS = H.PTX_FORMS
local line_holding = H.line_holding

-- FILE.ptx assembled by ptxas (sm_80), then transpiled (H.transpile: printed back byte for byte)
local function transpile(text, base, form)
  local ok, out = H.assemble(text, "sm_80")
  if ok ~= nil then assert(ok, out) end
  return H.transpile(text, base, form)
end

local function kernels(script) return (H.load_script(script)) end

-- the kernels of 1-5 share nvcc's prologue for one u64 output pointer and a u32 n: %r1 = global
-- thread index, %rd1 = the output's global address, %rd2 = &out[i] (u32 elements); the body follows

-- launch k over n threads (a multiple of block: the skeleton stores out[i] for every thread) with
-- every check on; narg: the kernel's n argument (n by default). The output array, or nil and the error
local function launch(k, dev, n, block, opts, narg)
  local out = dev:array("u32", n):poison()
  local o = { device = dev, args = { out, narg or n }, grid = math.ceil(n / block), block = block,
              checks = { races = true, uninit_shared = true, uninit_regs = true } }
  for key, v in pairs(opts or {}) do o[key] = v end
  local ok, err = pcall(k.launch, k, o)
  if not ok then return nil, tostring(err) end
  local got = out:read()
  out:free()
  return got
end

local function expect(got, want, what)
  for i = 1, #want do
    if got[i] ~= want[i] then error(string.format("%s: [%d] = %s, want %s", what, i - 1, tostring(got[i]), tostring(want[i])), 2) end
  end
end

---------------------------------------------------------------------------------------------------
-- 1. shfl.sync d|p: p says whether the source lane was in range (inside the clamp or the segment)
---------------------------------------------------------------------------------------------------
-- out[i] = (shuffled value) * 2 + p, for down by 3 over the whole warp (clamp 31) and up by 2 in
-- segments of 8 lanes (c = 0x1800: the segment mask 24 in bits 8-12, the clamp 0)
local SHFL = H.fixture "nvcc/shflp.ptx"

-- 2. nested blocks: cuda_fp16's `{  cvt.rn.f16.f32 %rs1, %f1;}` on one line, and an inline asm
-- block that declares a register of its own (the same name as one outside)
local BLOCKS = H.fixture "nvcc/blocks.ptx"

-- an out-of-bounds load inside a block that shares its PTX line with the other statements
local BLOCKERR = H.fixture "nvcc/blockerr.ptx"

-- 3. mov.pred of an immediate, as nvcc writes `i < n && i % 3 == 0`: out[i] = 1 or 0
local MOVPRED = H.fixture "nvcc/movpred.ptx"

-- 4. cooperative-groups tiles of 8: each group passes 0xff << 8 * (lane / 8) (cg::tiled_partition<8>):
-- a butterfly sum over the tile, the tile's max (redux), a ballot of odd values, elect's leader
local TILES = H.fixture "nvcc/tiles.ptx"

-- lanes that disagree on the mask: lane 0 passes 0xffffffff (naming lane 1), the others 0xfffffffe
local BADMASK = H.fixture "nvcc/badmask.ptx"

-- each tile of 8 passes its own mask but reads lane (lane + 8) % 32, a lane of another tile
local OUTSIDE = H.fixture "nvcc/outside.ptx"

-- 5. `.reg.b32 f, C;` (cuda_fp16.hpp's inline asm), `.reg.pred q;`, `.local.align 8 .b8 buf[16];`
local JOINED = H.fixture "nvcc/joined.ptx"

for form in pairs(FORMS) do
  describe("nvcc's warp and block forms in the emulator (" .. form .. " script)", function()
    local dev = rt.device "emu"

    it("shfl.sync d|p sets p where the source lane is in range (down over the warp, up in segments of 8)", function()
      local k = kernels(transpile(SHFL, "shflp", form)).shflp
      local n = 96
      local got = assert(launch(k, dev, n, 96))
      local want = {}
      for i = 0, n - 1 do
        local lane, base = i % 32, i - i % 32
        local dj, dp = lane + 3, 1
        if dj > 31 then dj, dp = lane, 0 end
        local uj, up = lane - 2, 1
        if uj < lane - lane % 8 then uj, up = lane, 0 end
        want[i + 1] = ((base + dj) * 7 + (base + uj) * 7) * 4 + up * 2 + dp
      end
      expect(got, want, "shfl d|p")
    end)

    it("runs the statements of nested { } blocks (one-line inline asm, a block's own register)", function()
      local k = kernels(transpile(BLOCKS, "blocks", form)).blocks
      local n = 256
      local got = assert(launch(k, dev, n, 64))
      local want = {}
      for i = 0, n - 1 do want[i + 1] = 2 * i + (i + 5) * 3 + 100 end
      expect(got, want, "blocks")
    end)

    it("mov.pred takes an immediate 0 or 1 (nvcc's short-circuit &&)", function()
      local k = kernels(transpile(MOVPRED, "movpred", form)).movpred
      local n, narg = 192, 150                        -- threads 150.. take the path of mov.pred %p3, 0
      local got = assert(launch(k, dev, n, 64, nil, narg))
      local want = {}
      for i = 0, n - 1 do local p = (i < narg and i % 3 == 0) and 1 or 0; want[i + 1] = p + 2 * (1 - p) end
      expect(got, want, "mov.pred")
    end)

    it("takes a membermask per tile of 8 lanes: shfl, redux, vote each over the lane's own tile", function()
      local k = kernels(transpile(TILES, "tiles", form)).tiles
      local n = 128
      local got = assert(launch(k, dev, n, 64))
      local want = {}
      for i = 0, n - 1 do
        local t0 = i - i % 8
        local sum, max, odd = 0, 0, 0
        for j = 0, 7 do
          local v = ((t0 + j) * 13) % 29
          sum = sum + v
          if v > max then max = v end
          if v % 2 == 1 then odd = odd + 2 ^ j end
        end
        want[i + 1] = sum * 65536 + max * 256 + odd
      end
      expect(got, want, "tiles")
    end)

    it("reports lanes whose masks disagree, and a shfl reading a lane outside the reader's mask", function()
      local script = transpile(BADMASK, "badmask", form)
      local _, err = launch(kernels(script).badmask, dev, 32, 32)
      assert.truthy(err, "the kernel ran")
      assert.truthy(err:find("membermask differs between lanes", 1, true), err)
      assert.truthy(err:find("shfl.sync.idx.b32", 1, true), err)
      script = transpile(OUTSIDE, "outside", form)
      _, err = launch(kernels(script).outside, dev, 32, 32)
      assert.truthy(err, "the kernel ran")
      assert.truthy(err:find("reads lane 8, which is not in its membermask", 1, true), err)
    end)

    it("declares the registers of `.reg.b32 f, C;` and the variable of `.local.align 8`", function()
      local k = kernels(transpile(JOINED, "joined", form)).joined
      local n = 64
      local got = assert(launch(k, dev, n, 32))
      local want = {}
      for i = 0, n - 1 do local c = i * 5 + 2; want[i + 1] = c + (c > 100 and 1000 or 0) end
      expect(got, want, "joined")
    end)
  end)
end

describe("a statement that shares its PTX line with others", function()
  it("is reported at the script line that holds it (plain script)", function()
    local dev = rt.device "emu"
    local script = transpile(BLOCKERR, "blockerr", "plain")
    local _, err = launch(kernels(script).blockerr, dev, 32, 32)
    H.expect_error(err, script, line_holding(script, "ld.global.u32 %r6"), "ld.global.u32")
  end)
end)

---------------------------------------------------------------------------------------------------
-- 6. the .param calling convention
---------------------------------------------------------------------------------------------------
-- poly(x, deg) (a f32 and an s32 in, a f32 out), pair(struct {u32 a; u64 b}) by value through a
-- .b8 array, outer(i) = poly called from a .func; calls(out, n): out[i] = bits of the results mixed
local CALLS = H.fixture "nvcc/calls.ptx"

-- fib(n) recursive, as nvcc writes it; fibs(out, n): out[i] = fib(i % 15); deep(out, n) recurses
-- without end (a missing base case): the depth limit is an error at the call
local FIB = H.fixture "nvcc/fib.ptx"

-- printf("thread %d of %d: %f %s|%5x|%lld\n", i, n, 0.5 * i, "ok", i * 3, -(long long)i) from the
-- threads with i % 17 == 0, as nvcc writes it: the arguments packed in a local buffer (int, int,
-- double at 8, a char* at 16, int at 24, long long at 32)
local HELLO = H.fixture "nvcc/hello.ptx"

local function fib(n) if n < 2 then return n end return fib(n - 1) + fib(n - 2) end

for form in pairs(FORMS) do
  describe("nvcc's calling convention in the emulator (" .. form .. " script)", function()
    local dev = rt.device "emu"

    it("passes arguments and results through .param variables: scalars, a 16-byte struct, a call from a .func", function()
      local k = kernels(transpile(CALLS, "calls", form)).calls
      local f32 = function(v) return tonumber(require("ffi").new("float[1]", v)[0]) end
      local function poly(x, deg)
        local r = 0
        for d = deg, 0, -1 do r = f32(r * x + (d + 1)) end   -- fma: one rounding (exact for these integers)
        return r
      end
      for _, n in ipairs { 100, 33 } do
        local got = assert(launch(k, dev, n, 64))
        local want = {}
        for i = 0, n - 1 do
          local p = math.floor(poly(i, i % 4))
          local outer = math.floor(poly(i * 0.25, 2)) + i
          local v = p + i * 3 + i + (i * 2 ^ 32 + i) % 2 ^ 32 + outer * 1000000
          want[i + 1] = v % 2 ^ 32
        end
        expect(got, want, "calls n=" .. n)
      end
    end)

    it("runs recursion (fib), each activation its own registers and parameters", function()
      local k = kernels(transpile(FIB, "fib", form)).fibs
      local n = 70
      local got = assert(launch(k, dev, n, 32))
      local want = {}
      for i = 0, n - 1 do want[i + 1] = fib(i % 15) end
      expect(got, want, "fib")
    end)

    it("stops a recursion without end at the call, an error naming the depth limit", function()
      local script = transpile(FIB, "fib", form)
      local _, err = launch(kernels(script).deep, dev, 32, 32)
      assert.truthy(err, "the kernel ran")
      local line = form == "plain" and line_holding(script, "_Z4deepi, ") or nil
      if line then H.expect_error(err, script, line, "the call stack is full", "1024") end
      assert.truthy(err:find("the call stack is full: calls nested 1024 deep", 1, true), err)
    end)

    it("prints printf's output (vprintf) on stdout, lanes in order; it returns the argument count", function()
      local script = transpile(HELLO, "hello", form)
      local driver = H.write(H.tmpfile(".lua"), string.format([[
        local ptx = require "ptxlua"
        local rt = require "ptxlua.emu"
        dofile(%q)
        local k = ptx.kernels()[1]
        local dev = rt.device "emu"
        local out = dev:array("s32", 40, -7)
        io.write("before\n")
        k:launch { device = dev, args = { out, 40 }, grid = 2, block = 32 }
        io.write("after\n")
        local r = out:read()
        io.write(r[1], " ", r[18], " ", r[2], "\n")
      ]], script))
      local out, err, rc = H.sh("luajit " .. shq(driver))
      assert.are.equal(0, rc, err)
      assert.are.equal("before\n" ..
        "thread 0 of 40: 0.000000 ok|    0|0\n" ..
        "thread 17 of 40: 8.500000 ok|   33|-17\n" ..
        "thread 34 of 40: 17.000000 ok|   66|-34\n" ..
        "after\n6 6 -7\n", out)
    end)
  end)
end

---------------------------------------------------------------------------------------------------
-- 7. a .weak .entry (nvcc -G's template instantiations) in a --sugar script: a kernel to launch
---------------------------------------------------------------------------------------------------
describe("a .weak .entry", function()
  local WEAK = H.fixture "nvcc/weak.ptx"
  for form in pairs(FORMS) do
    it("is a launchable kernel of the " .. form .. " script, its header kept as written", function()
      local script = transpile(WEAK, "weak", form)
      local k = kernels(script)["_Z4fillIiEvPT_i"]
      assert.truthy(k, "no kernel _Z4fillIiEvPT_i")
      local dev = rt.device "emu"
      local got = assert(launch(k, dev, 77, 32))
      local want = {}
      for i = 0, 76 do want[i + 1] = i end
      expect(got, want, "weak")
    end)
  end
end)
