-- ptx_emu_spec.lua -- kernels read from PTX (ptxlua --from-ptx, plain and --sugar) run: launched in
-- the emulator with arrays of the test's own (k:launch, rt.launch, dev:launch), results checked
-- against a Lua reference; errors found while running them at the script line that holds the
-- statement; --emulate refusing them with a clear error at the kernel's line; the CUDA path
-- against the mock driver (what reaches cuLaunchKernelEx, assembler errors at the script's line).
local H = require "helper"
local rt = require "ptxlua.emu"
local core = require "ptxlua.core"
local ffi = require "ffi"
local shq = H.shq

-- nvcc's layout: c[i] = a[i] + b[i] for i < n (a grid-sized guard, no loop)
local VADD = H.fixture "nvcc/vadd.ptx"

-- a block sum: each CTA of 128 threads (.reqntid) adds its elements in shared memory, a tree with
-- bar.sync between its levels; thread 0 writes the CTA's sum
local BSUM = H.fixture "nvcc/bsum.ptx"

local FORMS = H.PTX_FORMS
local transpile, line_holding = H.transpile, H.line_holding

-- the script run in this process; its kernels by name
local function load(script) return (H.load_script(script)) end

local function f32(v) return tonumber(ffi.new("float[1]", v)[0]) end

-- the statement in each form: the plain script holds the PTX text, the sugared one a DSL call
local STORE = { plain = "st.global.f32 \\t[%rd10], %f3;", sugar = "ptx.st.global.f32(ptx.addr(rd[10]), f[3])" }
local KERNEL_LINE = { plain = 'm:func("vadd", "entry")', sugar = "doc:kernel {" }

for form in pairs(FORMS) do
  describe("a kernel read from PTX (" .. form .. " script)", function()
    local dev = rt.device "emu"

    it("vadd runs in the emulator with arrays; c = a + b for every element, none past n written", function()
      local k = load(transpile(VADD, "vadd", form)).vadd
      assert.are.equal("vadd", k.name)
      for _, n in ipairs { 1000, 31, 4097 } do
        local a = dev:array("f32", n, function(i) return i * 0.37 - 5 end)
        local b = dev:array("f32", n, function(i) return math.sin(i) * 1000 end)
        local c = dev:array("f32", n + 64):poison()       -- room past n: nothing may land there
        local st = k:launch { device = dev, args = { a, b, c, n }, grid = math.ceil(n / 128), block = 128 }
        assert.are.same({ 128, 1, 1 }, st.block)
        local got = c:read()
        for i = 1, n do
          local want = f32(f32(i * 0.37 - 5) + f32(math.sin(i) * 1000))
          if got[i] ~= want then error(string.format("n = %d: c[%d] = %s, want %s", n, i, tostring(got[i]), tostring(want))) end
        end
        for i = n + 1, n + 64 do assert.is_true(got[i] ~= got[i], "c[" .. i .. "] written past n") end
        a:free(); b:free(); c:free()
      end
    end)

    it("takes its arguments by position or by PTX name, a u64 as an array or an address, through rt.launch and dev:launch", function()
      local k = load(transpile(VADD, "vadd", form)).vadd
      assert.are.same({ "vadd_param_0", "vadd_param_1", "vadd_param_2", "vadd_param_3" },
                      { k.params[1][1], k.params[2][1], k.params[3][1], k.params[4][1] })
      local n = 300
      local a = dev:array("f32", n, function(i) return i end)
      local b = dev:array("f32", n, function(i) return 1000 * i end)
      local c = dev:array("f32", n, 0)
      rt.launch(k, { device = dev, args = { vadd_param_0 = a, vadd_param_1 = b.addr, vadd_param_2 = c, vadd_param_3 = n },
                     grid = { 3 }, block = { 100 } })
      local got = c:read()
      for i = 1, n do assert.are.equal(1001 * i, got[i]) end
      c:write(0)
      dev:launch(k, { args = { b, a, c, 150 }, grid = 2, block = 75 })
      got = c:read()
      for i = 1, 150 do assert.are.equal(1001 * i, got[i]) end
      for i = 151, n do assert.are.equal(0, got[i]) end
      -- wrong arguments: named at the caller's line, before anything runs
      local ok, err = pcall(k.launch, k, { device = dev, args = { a, b, c }, grid = 1, block = 32 })
      assert.is_false(ok)
      assert.truthy(err:find("launch of vadd: 3 arguments for 4 parameters", 1, true), err)
      assert.truthy(err:match("^[^\n]*ptx_emu_spec%.lua:%d+: error: "), err)
      ok, err = pcall(k.launch, k, { device = dev, args = { a, b, "c", n }, grid = 1, block = 32 })
      assert.is_false(ok)
      assert.truthy(err:find("argument 3 (vadd_param_2) of vadd: a device array expected, got string", 1, true), err)
      ok, err = pcall(k.launch, k, { device = dev, args = { a, b, c, n } })
      assert.is_false(ok)
      assert.truthy(err:find("no grid or block given, and the kernel declares none", 1, true), err)
    end)

    it("bsum (shared memory, bar.sync) sums each CTA's elements; its block is the .reqntid", function()
      local k = load(transpile(BSUM, "bsum", form)).bsum
      for _, n in ipairs { 1000, 128, 129 } do
        local ctas = math.ceil(n / 128)
        local x = dev:array("f32", n, function(i) return (i * 7) % 13 - 6 end)   -- integers: exact sums
        local sums = dev:array("f32", ctas):poison()
        local st = k:launch { device = dev, args = { x, sums, n }, grid = ctas }  -- no block: .reqntid 128
        assert.are.same({ 128, 1, 1 }, st.block)
        assert.are.equal(ctas, st.ctas)
        local got = sums:read()
        for b = 1, ctas do
          local want = 0
          for i = (b - 1) * 128 + 1, math.min(b * 128, n) do want = want + (i * 7) % 13 - 6 end
          assert.are.equal(want, got[b], string.format("n = %d: CTA %d", n, b - 1))
        end
        x:free(); sums:free()
      end
      -- another block than .reqntid is the kernel's own error (the emulator checks the directive)
      local x, s = dev:array("f32", 64, 1), dev:array("f32", 1, 0)
      local ok, err = pcall(k.launch, k, { device = dev, args = { x, s, 64 }, grid = 1, block = 64 })
      assert.is_false(ok)
      assert.truthy(err:find("reqntid", 1, true), err)
    end)

    it("an out-of-bounds store is reported at the script line that holds the statement", function()
      local script = transpile(VADD, "vadd", form)
      local k = load(script).vadd
      local n = 200
      local a, b = dev:array("f32", n, 1), dev:array("f32", n, 2)
      local c = dev:array("f32", n - 1, 0)                 -- one short: thread n - 1 stores past it
      local ok, err = pcall(k.launch, k, { device = dev, args = { a, b, c, n }, grid = 2, block = 128 })
      assert.is_false(ok)
      local want = string.format("%s:%d: error: out-of-bounds st.global.f32 ", script, line_holding(script, STORE[form]))
      assert.are.equal(want, err:sub(1, #want), err)
      assert.truthy(err:find("f32[199]", 1, true), err)
      assert.is_nil(err:find("emu.lua", 1, true), err)
    end)

    it("--emulate refuses it at the kernel's line: no sizes for the buffers behind .u64 parameters", function()
      local script = transpile(VADD, "vadd", form)
      local out, err, rc = H.ptxlua { script, "--emulate" }
      assert.are.equal(1, rc, out .. err)
      assert.are.equal("", out)
      local want = string.format("%s:%d: error: --emulate cannot run vadd, a kernel read from PTX: its parameter vadd_param_0 (.u64) is an address",
                                 script, line_holding(script, KERNEL_LINE[form]))
      assert.are.equal(want, err:sub(1, #want), err)
      assert.truthy(err:find("rt.launch(k, {", 1, true), err)
      assert.is_nil(err:find("traceback", 1, true), err)
      assert.is_nil(err:find("emu.lua", 1, true), err)
    end)
  end)
end

-- a byte-array parameter, as nvcc declares a struct or a CUtensorMap (__grid_constant__): the
-- kernel copies its 128 bytes out, 8 at a time
local BYTES = H.fixture "nvcc/cp_bytes.ptx"

describe("a kernel read from PTX with a byte-array parameter", function()
  for form in pairs(FORMS) do
    it("takes a string of its size or a tensor map (" .. form .. ")", function()
      local k = load(transpile(BYTES, "cp", form)).cp
      assert.are.equal(128, k.params[1].count)
      local dev = rt.device "emu"
      local out = dev:array("u8", 128, 0)
      local function bytes_of(a)                 -- the raw bytes, and the same read as numbers
        assert.are.equal(string.char(unpack(a:read())), a:bytes())
        return a:bytes()
      end
      local blob = {}
      for i = 1, 128 do blob[i] = string.char((i * 37) % 256) end
      blob = table.concat(blob)
      k:launch { device = dev, args = { blob, out }, grid = 1 }
      assert.are.equal(blob, bytes_of(out))
      local src = dev:array("f32", 64 * 16, 0)
      local tm = dev:tensormap(src, { dims = { 64, 16 }, box = { 32, 8 } })
      out:write(0)
      k:launch { device = dev, args = { tm, out }, grid = 1 }
      assert.are.equal(tm.bytes, bytes_of(out))
      local ok, err = pcall(k.launch, k, { device = dev, args = { blob:sub(2), out }, grid = 1 })
      assert.is_false(ok)
      assert.truthy(err:find("argument 1 (cp_param_0) of cp: 128 bytes expected, got 127", 1, true), err)
    end)
  end
end)

describe("PTX parsed from a file", function()
  it("anchors its statements at the file's lines: the emulator's errors read FILE.ptx:LINE", function()
    local m = assert(core.parse(VADD, "vadd.ptx"))
    local mem = core.emu_mem()
    local e = core.emu(m, "vadd", mem)
    assert.is_nil(e:error())
    local a = mem:alloc(4 * 40, "a")
    local c = mem:alloc(4 * 20, "c")
    for i, v in ipairs { a, a, c } do assert.is_true(e:set_param(i, core.emu_pack("u64", v))) end
    assert.is_true(e:set_param(4, core.emu_pack("u32", 40)))
    assert.is_true(e:launch({ 1, 1, 1 }, { 64, 1, 1 }, 0))
    local ok, err = e:run()
    assert.is_nil(ok)
    local line = 0
    for l in VADD:gmatch("([^\n]*)\n") do
      line = line + 1
      if l:find("st.global.f32", 1, true) then break end
    end
    local want = string.format("vadd.ptx:%d: error: out-of-bounds st.global.f32 ", line)
    assert.are.equal(want, err:sub(1, #want), err)
  end)

  it("a sugared script's kept-as-written statement is anchored at its sugar.text line", function()
    -- a statement the DSL cannot write stays sugar.text; the error lands on that line of the script
    local text = VADD:gsub("\tst%.global%.f32 \t%[%%rd10%], %%f3;", "\tst.global.f32 [%%rd10],%%f3;")
    local dir = H.tmpdir()
    local ptx_path = H.write(dir .. "/kept.ptx", text)
    local script = dir .. "/kept_sugar.lua"
    local _, notes, rc = H.ptxlua { "--from-ptx", ptx_path, "--sugar", "-o", script }
    assert.are.equal(0, rc, notes)
    assert.truthy(notes:find("kept verbatim", 1, true), notes)
    local k = load(script).vadd
    local dev = rt.device "emu"
    local a, c = dev:array("f32", 64, 1), dev:array("f32", 10, 0)
    local ok, err = pcall(k.launch, k, { device = dev, args = { a, a, c, 64 }, grid = 1, block = 64 })
    assert.is_false(ok)
    local want = string.format("%s:%d: error: out-of-bounds st.global.f32 ", script, line_holding(script, "st.global.f32 [%rd10],%f3;"))
    assert.are.equal(want, err:sub(1, #want), err)
  end)
end)

describe("a kernel read from PTX assembled: ptxlua --check, and CUDA on the mock driver", function()
  local MOCK = os.getenv("PTXLUA_MOCK_LIBCUDA") or (H.build .. "/tests/mock_cuda/libcuda.so.1")
  local function run_lua(text)
    local path = H.write(H.tmpfile(".lua"), text)
    return H.sh("PTXLUA_LIBCUDA=" .. shq(MOCK) .. " PATH=/usr/local/cuda/bin:$PATH luajit " .. shq(path))
  end
  local PRELUDE = [[
local ffi = require "ffi"
ffi.cdef [=[
struct ptxmock_launch { char func[256]; unsigned grid[3], block[3], cluster[3], smem; void *stream; uint32_t param_size; unsigned char params[4096]; int cluster_attr; };
const struct ptxmock_launch *ptxmock_last_launch(void);
int ptxmock_param_layout(const char *name, uint32_t *off, uint32_t *size, int max);
]=]
local mock = ffi.load(os.getenv("PTXLUA_LIBCUDA"))
local ptx = require "ptxlua"
local cuda = require "ptxlua.cuda"
local core = require "ptxlua.core"
]]

  for form in pairs(FORMS) do
    it("k:launch packs the arguments by the PTX's .param declarations (" .. form .. ")", function()
      if select(3, H.sh("test -f " .. shq(MOCK))) ~= 0 then return H.pending("no mock driver built") end
      if not H.ptxas_path() then return H.pending("no ptxas") end
      local script = transpile(BSUM, "bsum", form)
      local out, err, rc = run_lua(PRELUDE .. string.format([[
dofile(%q)
local k = ptx.kernels()[1]
local dev = cuda.device(0)
local x, s = dev:array("f32", 1000, 1), dev:array("f32", 8, 0)
k:launch { device = dev, args = { x, s.addr, 1000 }, grid = 8 }
local L = mock.ptxmock_last_launch()
local off, size = ffi.new("uint32_t[4]"), ffi.new("uint32_t[4]")
assert(mock.ptxmock_param_layout("bsum", off, size, 4) == 3)
local blk = ffi.string(L.params, L.param_size)
local function at(i) return blk:sub(off[i] + 1, off[i] + size[i]) end
print(ffi.string(L.func), L.grid[0], L.block[0], L.block[1], at(0) == core.emu_pack("u64", x.addr),
      at(1) == core.emu_pack("u64", s.addr), at(2) == core.emu_pack("u32", 1000))
local ok, e = pcall(k.launch, k, { device = dev, args = { x, s, 1.5 }, grid = 8 })
print(e)
]], script))
      assert.are.equal(0, rc, err)
      local lines = {}
      for l in out:gmatch("[^\n]+") do lines[#lines + 1] = l end
      assert.are.equal("bsum\t8\t128\t1\ttrue\ttrue\ttrue", lines[1])      -- the block from .reqntid
      assert.truthy(lines[2]:find("argument 3 (bsum_param_2) of bsum: 1.5 is not an integer (.u32)", 1, true), out)
    end)

    it("ptxlua --check reports what the assembler rejects at the script line that holds it (" .. form .. ")", function()
      if not H.ptxas_path() then return H.pending("no ptxas") end
      local text = VADD:gsub("add%.f32 \t%%f3, %%f2, %%f1;", "add.f32 \t%%f3, %%f2, 1;")
      local script = transpile(text, "vadd_check", form)
      local out, err, rc = H.sh("PATH=/usr/local/cuda/bin:$PATH " .. shq(H.exe) .. " " .. shq(script) .. " --check")
      assert.are.equal(1, rc, out .. err)
      local want = string.format("%s:%d: error: ", script, line_holding(script, "add.f32 \\t%f3, %f2, 1;"))
      assert.are.equal(want, err:sub(1, #want), err)
    end)

    it("an instruction ptxas rejects is reported at the script line that holds it (" .. form .. ")", function()
      if select(3, H.sh("test -f " .. shq(MOCK))) ~= 0 then return H.pending("no mock driver built") end
      if not H.ptxas_path() then return H.pending("no ptxas") end
      -- an integer immediate for a float operand: the parser takes it, ptxas does not
      local text = VADD:gsub("add%.f32 \t%%f3, %%f2, %%f1;", "add.f32 \t%%f3, %%f2, 1;")
      local script = transpile(text, "vadd_bad", form)
      local out, err, rc = run_lua(PRELUDE .. string.format([[
dofile(%q)
local k = ptx.kernels()[1]
local dev = cuda.device(0)
local x = dev:array("f32", 32, 1)
local ok, e = pcall(k.launch, k, { device = dev, args = { x, x, x, 32 }, grid = 1, block = 32 })
print(e)
]], script))
      assert.are.equal(0, rc, err)
      -- both forms hold the statement as written (the DSL refuses it: sugar keeps it as text)
      local want = string.format("%s:%d: error: ", script, line_holding(script, "add.f32 \\t%f3, %f2, 1;"))
      assert.are.equal(want, out:sub(1, #want), out)
    end)
  end
end)
