-- emitc_spec.lua -- `ptxlua FILE.lua --emit-c DIR` (src/api/emitc.c): the C it writes compiles
-- warning-free as C11 and as C++, and launched against the mock driver (tests/mock_cuda, found as
-- libcuda.so.1 on LD_LIBRARY_PATH, as the generated dlopen looks for it) the driver receives the
-- embedded cubin byte for byte, the parameter block, the geometry, the dynamic shared memory and
-- the stream. The programs that launch are tests/fixtures/emitc/*_main.c. Then hostile input: a
-- directory that cannot be written, names that are no C identifiers, failures that leave DIR as
-- it was.
local H = require "helper"
local shq = H.shq
local ffi = require "ffi"
local bit = require "bit"

local MOCK = os.getenv("PTXLUA_MOCK_LIBCUDA") or (H.build .. "/tests/mock_cuda/libcuda.so.1")
local MOCKDIR = MOCK:match("^(.*)/[^/]*$")
local FIX = H.root .. "/tests/fixtures/emitc"
local KDIR = H.root .. "/kernels/"
local INC = " -I " .. shq(FIX) .. " -I " .. shq(H.root .. "/tests/mock_cuda")
local WARN = " -Wall -Wextra -pedantic -Werror "

-- assembling needs the toolkit; the mock must be built
local function ready()
  if select(3, H.sh("test -f " .. shq(MOCK))) ~= 0 then return false, "no mock driver built" end
  if not H.ptxas_path() then
    if H.ci then error("ptxas not found (CI requires the CUDA toolkit)") end
    return false, "ptxas not found"
  end
  return true
end

local function emit(args)
  local dir = H.tmpfile(".emit")
  local a = {}
  for i, v in ipairs(args) do a[i] = v end
  a[#a + 1] = "--emit-c"
  a[#a + 1] = dir
  local out, err, rc = H.ptxlua(a)
  return dir, out, err, rc
end

-- the generated source compiled both ways, warning-free
local function compiles(dir, name)
  local src = shq(dir .. "/" .. name .. ".c")
  local _, err, rc = H.sh("cc -std=c11" .. WARN .. "-c " .. src .. " -o " .. shq(dir .. "/c.o"))
  assert.are.equal(0, rc, "cc: " .. err)
  _, err, rc = H.sh("c++ -x c++ -std=c++11" .. WARN .. "-c " .. src .. " -o " .. shq(dir .. "/cxx.o"))
  assert.are.equal(0, rc, "c++: " .. err)
  _, err, rc = H.sh("c++ -x c++" .. WARN .. "-c " .. src .. " -o " .. shq(dir .. "/cxx.o"))
  assert.are.equal(0, rc, "c++: " .. err)
end

-- build fixtures/emitc/MAIN with the generated NAME.c; run it against the mock
local function run(dir, name, main, defs)
  local exe = dir .. "/" .. main
  local _, err, rc = H.sh("cc -std=c11" .. WARN .. (defs or "") .. " -I " .. shq(dir) .. INC .. " -o " .. shq(exe)
                          .. " " .. shq(FIX .. "/" .. main .. ".c") .. " " .. shq(dir .. "/" .. name .. ".c") .. " -ldl")
  assert.are.equal(0, rc, err)
  local out
  out, err, rc = H.sh("LD_LIBRARY_PATH=" .. shq(MOCKDIR) .. " " .. shq(exe))
  assert.are.equal(0, rc, err)
  return out
end

-- the bytes of the array PL_IMAGE_i in the generated source: their count and FNV-1a
local function image(dir, name, i)
  local c = assert(H.read(dir .. "/" .. name .. ".c"))
  local body = assert(c:match("PL_IMAGE_" .. i .. "%[%d+%] = {(.-)};"))
  local h, n = ffi.new("uint64_t", 1469598103934665603ULL), 0
  for hex in body:gmatch("0x(%x%x)") do
    h = bit.bxor(h, tonumber(hex, 16)) * 1099511628211ULL
    n = n + 1
  end
  return n, bit.tohex(h, 16)
end

describe("--emit-c", function()
  it("vector_add: a typed launcher; the driver gets the cubin, the parameters, the geometry, the stream", function()
    local ok, why = ready()
    if not ok then return pending(why) end
    local dir, out, err, rc = emit { KDIR .. "vector_add.lua", "-D", "N=1000" }
    assert.are.equal(0, rc, err)
    assert.are.equal("", out .. err)
    local h = assert(H.read(dir .. "/vector_add.h"))
    assert.truthy(h:find("CUresult vector_add_vector_add_launch(CUstream stream, float *x, float *y, float *out, uint32_t n);", 1, true), h)
    assert.truthy(h:find("#define vector_add_vector_add_GRID_X 4u", 1, true), h)
    assert.truthy(h:find("templates BLOCK=256 N=1000", 1, true), h)
    compiles(dir, "vector_add")
    local n, fnv = image(dir, "vector_add", 0)
    assert.are.equal(
      "launch before load: 3 (the kernels are not loaded (vector_add_load))\n" ..
      "load: 0 (no error)\n" ..
      "primary context retained 1, current yes\n" ..
      string.format("image 0: %d bytes, fnv %s\n", n, fnv) ..
      "launch: 0\n" ..
      "launch vector_add grid 4 1 1 block 256 1 1 cluster 1 1 1 (attribute 0) smem 0 (allowed 49152) stream 0x5150\n" ..
      "  param 0 at 0: 00 00 01 00 00 00 00 00\n" ..
      "  param 1 at 8: 00 00 02 00 00 00 00 00\n" ..
      "  param 2 at 16: 00 00 03 00 00 00 00 00\n" ..
      "  param 3 at 24: e8 03 00 00\n" ..
      "launch_dims: 0\n" ..
      "launch vector_add grid 3 2 1 block 256 1 1 cluster 1 1 1 (attribute 0) smem 0 (allowed 49152) stream (nil)\n" ..
      "  param 0 at 0: 00 00 03 00 00 00 00 00\n" ..
      "  param 1 at 8: 00 00 01 00 00 00 00 00\n" ..
      "  param 2 at 16: 00 00 02 00 00 00 00 00\n" ..
      "  param 3 at 24: 4d 00 00 00\n" ..
      "unloaded: context retained 0\n" ..
      "load, the image refused: 200 (device kernel image is invalid), context retained 0\n" ..
      "launch: 3\n", run(dir, "vector_add", "vector_add_main"))
    -- the same script and templates: the same files
    local dir2 = emit { KDIR .. "vector_add.lua", "-D", "N=1000" }
    assert.are.equal(H.read(dir .. "/vector_add.c"), H.read(dir2 .. "/vector_add.c"))
    assert.are.equal(H.read(dir .. "/vector_add.h"), H.read(dir2 .. "/vector_add.h"))
  end)

  it("gemm (TMA, a cluster, 224 KB of shared memory): the launcher takes the tensors and builds the maps", function()
    local ok, why = ready()
    if not ok then return pending(why) end
    local dir, _, err, rc = emit { KDIR .. "gemm.lua", "-D", "M=256", "-D", "N=256", "-D", "K=256" }
    assert.are.equal(0, rc, err)
    local h = assert(H.read(dir .. "/gemm.h"))
    assert.truthy(h:find("CUresult gemm_gemm_launch(CUstream stream, void *A, void *B, void *C);", 1, true), h)
    assert.truthy(h:find("**   B_map from B (bf16 [N, K], packed row-major, box {BK, BN / CLUSTER}, swizzle 128B)", 1, true), h)
    assert.truthy(h:find("CUresult gemm_gemm_launch_maps(CUstream stream, const unsigned grid[3], const unsigned block[3],\n" ..
                         "    const CUtensorMap *A_map, const CUtensorMap *B_map, const CUtensorMap *C_map);", 1, true), h)
    compiles(dir, "gemm")
    local out = run(dir, "gemm", "gemm_main")
    local n, fnv = image(dir, "gemm", 0)
    local a, b, c = out:match("maps: 0, fnv (%x+) (%x+) (%x+)\n")
    assert.truthy(a, out)
    local launch = "launch gemm grid 2 1 1 block 384 1 1 cluster 2 1 1 (attribute 0) smem 229440 (allowed 229440) stream 0x5151\n" ..
      "  param 0 at 48: 128 bytes, fnv " .. a .. "\n" ..
      "  param 1 at 176: 128 bytes, fnv " .. b .. "\n" ..
      "  param 2 at 304: 128 bytes, fnv " .. c .. "\n"
    assert.are.equal(
      "launch before load: 3\n" ..
      "load: 0\n" ..
      string.format("image 0: %d bytes, fnv %s\n", n, fnv) ..
      string.format("maps: 0, fnv %s %s %s\n", a, b, c) ..
      "a swizzle of 256B: 1\n" ..
      "launch: 0 (smem 229440)\n" .. launch ..     -- the maps it built are the ones encoded by hand
      "launch_maps: 0\n" .. launch ..
      "a NULL tensor: 1, launched 0\n" ..
      "a tensor the driver cannot map (8-byte aligned): 1, launched 0\n" ..
      "a NULL map: 1, launched 0\n", out)
  end)

  it("maps over a pointer parameter, over a tensor sized by the scalars, im2col: built by the launcher", function()
    local ok, why = ready()
    if not ok then return pending(why) end
    local dir, _, err, rc = emit { FIX .. "/views.lua" }
    assert.are.equal(0, rc, err)
    local h = assert(H.read(dir .. "/views.h"))
    assert.truthy(h:find("CUresult views_views_launch(CUstream stream, float *x, void *Y, void *Z, const CUtensorMap *raw,\n" ..
                         "    uint32_t rows, uint32_t cols);", 1, true), h)
    for l in (h .. "\n" .. H.read(dir .. "/views.c")):gmatch("[^\n]*") do assert(#l <= 100, "a line over 100 columns: " .. l) end
    compiles(dir, "views")
    assert.are.equal(
      "load: 0\n" ..
      "launch: 0\n" ..
      "7 parameters; x the address, xm as encoded, ym as encoded, raw as passed\n" ..
      "zm: dtype 6 rank 4 addr 300000 dims 64 9 9 2 strides 128 1152 10368\n" ..
      "    corners -1 -1 / 1 1, 64 channels, 128 pixels, swizzle 3\n" ..
      "rows = 3: 1, launched 0\n", run(dir, "views", "views_main"))
  end)

  it("a map whose extent only Lua can compute: an error at emit time", function()
    local script = H.write(H.tmpfile(".lua"), "local ptx = require 'ptxlua'\n" ..
      "ptx.kernel { name = 'k', target = 'sm_90a', tensors = { T = ptx.tensor('f32', { 'math.max(n, 2)' }) },\n" ..
      "  params = { { 'm', ptx.tensormap { of = 'T', box = { 32 } } }, { 'n', 'u32' } },\n" ..
      "  grid = { 1 }, block = { 32 }, body = function(t) ptx.ret() end }\n")
    local dir = H.tmpfile(".emit")
    local out, err, rc = H.ptxlua { script, "--emit-c", dir, "--emit-name", "k" }
    assert.are.equal(1, rc)
    assert.are.equal("", out)
    assert.truthy(err:find(":2: error: --emit-c: the map m over tensor T: 'math.max(n, 2)' is no arithmetic of " ..
                           "templates and scalar parameters, so the launcher cannot compute it", 1, true), err)
  end)

  it("every parameter kind: keywords renamed, f16 bits, arrays, pointers; no geometry: given", function()
    local ok, why = ready()
    if not ok then return pending(why) end
    local dir, _, err, rc = emit { FIX .. "/types.lua" }
    assert.are.equal(0, rc, err)
    local h = assert(H.read(dir .. "/types.h"))
    assert.truthy(h:find("CUresult types_types_launch(CUstream stream, uint16_t class_, const float w[3], void *stream_,\n    int64_t q, uint8_t b);", 1, true), h)
    assert.truthy(h:find("CUresult types_open_launch(CUstream stream, const unsigned grid[3], const unsigned block[3],\n    uint32_t x);", 1, true), h)
    assert.falsy(h:find("types_open_GRID_X", 1, true))
    for l in (h .. "\n" .. H.read(dir .. "/types.c")):gmatch("[^\n]*") do assert(#l <= 100, "a line over 100 columns: " .. l) end
    compiles(dir, "types")
    assert.are.equal(
      "load: 0\n" ..
      "types: 0\n" ..
      "launch types grid 2 3 1 block 32 1 1 cluster 1 1 1 (attribute 0) smem 0 (allowed 49152) stream (nil)\n" ..
      "  param 0 at 0: 00 3c\n" ..
      "  param 1 at 4: 00 00 80 3f 00 00 00 40 00 00 00 bf\n" ..
      "  param 2 at 16: 00 00 04 00 00 00 00 00\n" ..
      "  param 3 at 24: fe ff ff ff ff ff ff ff\n" ..
      "  param 4 at 32: 07\n" ..
      "open: 0\n" ..
      "launch open grid 5 1 1 block 64 2 1 cluster 1 1 1 (attribute 0) smem 0 (allowed 49152) stream (nil)\n" ..
      "  param 0 at 0: 09 00 00 00\n" ..
      "open with no grid: 1\n", run(dir, "types", "types_main"))
  end)

  it("two generated headers in one file, and <cuda.h> before them, compile", function()
    local ok, why = ready()
    if not ok then return pending(why) end
    local d1 = emit { KDIR .. "vector_add.lua" }
    local d2 = emit { FIX .. "/types.lua" }
    local tu = H.write(H.tmpfile(".c"), '#include "vector_add.h"\n#include "types.h"\nint main(void) { return 0; }\n')
    local inc = " -I " .. shq(d1) .. " -I " .. shq(d2) .. " "
    local _, err, rc = H.sh("cc -std=c11" .. WARN .. inc .. "-c " .. shq(tu) .. " -o /dev/null")
    assert.are.equal(0, rc, err)
    _, err, rc = H.sh("c++ -x c++" .. WARN .. inc .. "-c " .. shq(tu) .. " -o /dev/null")
    assert.are.equal(0, rc, err)
    if select(3, H.sh("test -f /usr/local/cuda/include/cuda.h")) == 0 then
      tu = H.write(H.tmpfile(".c"), '#include <cuda.h>\n#include "vector_add.h"\n' ..
                   'int main(void) { CUtensorMap m; (void)m; return vector_add_load() == CUDA_SUCCESS; }\n')
      _, err, rc = H.sh("cc -std=c11 -Wall -Wextra -Werror -I /usr/local/cuda/include" .. inc .. "-c " .. shq(tu) .. " -o /dev/null")
      assert.are.equal(0, rc, err)
    end
  end)

  it("without a driver, the load says why", function()
    local ok, why = ready()
    if not ok then return pending(why) end
    local dir = emit { KDIR .. "vector_add.lua", "-D", "N=1000" }
    local main = H.write(dir .. "/nodrv.c", '#include <stdio.h>\n#include "vector_add.h"\n' ..
      'int main(void) { CUresult r = vector_add_load(); printf("%d %s\\n", r, vector_add_error_string(r)); return 0; }\n')
    local _, err, rc = H.sh("cc -std=c11" .. WARN .. "'-DPTXLUA_EMIT_LIBCUDA=\"/nonexistent/libcuda.so.1\"' -I " .. shq(dir) ..
                            " -o " .. shq(dir .. "/nodrv") .. " " .. shq(main) .. " " .. shq(dir .. "/vector_add.c") .. " -ldl")
    assert.are.equal(0, rc, err)
    local out = H.sh(shq(dir .. "/nodrv"))
    assert.truthy(out:find("^303 no CUDA driver: cannot load /nonexistent/libcuda.so.1 %("), out)
  end)

  describe("hostile input", function()
    it("a directory that cannot be written: exit 1, nothing written", function()
      local file = H.write(H.tmpfile(".file"), "x")
      local out, err, rc = H.ptxlua { KDIR .. "vector_add.lua", "--emit-c", file .. "/sub" }
      assert.are.equal(1, rc)
      assert.are.equal("", out)
      assert.truthy(err:find("^error: cannot write to the directory " .. file:gsub("%p", "%%%0") .. "/sub: Not a directory\n"), err)
      out, err, rc = H.ptxlua { KDIR .. "vector_add.lua", "--emit-c", file }
      assert.are.equal(1, rc)
      assert.truthy(err:find("^error: %-%-emit%-c " .. file:gsub("%p", "%%%0") .. ": not a directory\n"), err)
      assert.are.equal("x", H.read(file))
      _, err, rc = H.ptxlua { KDIR .. "vector_add.lua", "--emit-c", "/proc/ptxlua-emit" }
      assert.are.equal(1, rc)
      assert.truthy(err:find("^error: cannot write to the directory /proc/ptxlua%-emit: "), err)
    end)

    it("a kernel whose name is no C identifier: an error at its line, before assembling", function()
      local ptxf = H.write(H.tmpfile(".ptx"), ".version 8.0\n.target sm_90a\n.address_size 64\n\n" ..
                           ".visible .entry k$1(\n\t.param .u64 k$1_param_0\n)\n{\n\tret;\n}\n")
      local script = H.tmpfile(".lua")
      local _, err, rc = H.ptxlua { "--from-ptx", ptxf, "-o", script }
      assert.are.equal(0, rc, err)
      local dir = H.tmpfile(".emit")
      local out
      out, err, rc = H.ptxlua { script, "--emit-c", dir, "--emit-name", "d" }
      assert.are.equal(1, rc)
      assert.are.equal("", out)
      local line = 0
      for l in assert(H.read(script)):gmatch("[^\n]*\n") do
        line = line + 1
        if l:find('m:func("k$1"', 1, true) then break end
      end
      assert.truthy(err:find("^" .. script:gsub("%p", "%%%0") .. ":" .. line ..
                             ": error: %-%-emit%-c: kernel 'k%$1' is no C identifier, so it cannot name its launcher %(d_k%$1_launch%); rename it\n"), err)
      assert.are_not.equal(0, select(3, H.sh("test -e " .. shq(dir))))
    end)

    it("a script whose name is no C identifier: usage error naming --emit-name", function()
      local ok, why = ready()
      if not ok then return pending(why) end
      local script = H.tmpdir() .. "/my-kernels.lua"
      H.write(script, assert(H.read(KDIR .. "vector_add.lua")))
      local dir = H.tmpfile(".emit")
      local _, err, rc = H.ptxlua { script, "--emit-c", dir }
      assert.are.equal(2, rc)
      assert.truthy(err:find("'my-kernels' is no C identifier", 1, true) and err:find("--emit-name NAME", 1, true), err)
      local _, err2, rc2 = H.ptxlua { script, "--emit-c", dir, "--emit-name", "mine" }
      assert.are.equal(0, rc2, err2)
      assert.truthy(H.read(dir .. "/mine.h"):find("CUresult mine_vector_add_launch(", 1, true))
      _, err, rc = H.ptxlua { script, "--emit-c", dir, "--emit-name", "1x" }
      assert.are.equal(2, rc)
      _, err, rc = H.ptxlua { script, "--emit-c", dir, "--print-ptx" }
      assert.are.equal(2, rc)
      assert.truthy(err:find("--emit-c writes C only", 1, true), err)
    end)

    it("a kernel that fails leaves DIR as it was, with no temporary files", function()
      local ok, why = ready()
      if not ok then return pending(why) end
      local dir, _, err, rc = emit { KDIR .. "gemm.lua", "-D", "M=256", "-D", "N=256", "-D", "K=256" }
      assert.are.equal(0, rc, err)
      local before_h, before_c = H.read(dir .. "/gemm.h"), H.read(dir .. "/gemm.c")
      local out
      out, err, rc = H.ptxlua { KDIR .. "gemm.lua", "-D", "K=1001", "--emit-c", dir }
      assert.are.equal(1, rc)
      assert.are.equal("", out)
      assert.truthy(err:find("gemm.lua:%d+: error: .*K must be a positive multiple of 8"), err)
      assert.are.equal(before_h, H.read(dir .. "/gemm.h"))
      assert.are.equal(before_c, H.read(dir .. "/gemm.c"))
      assert.are.equal("gemm.c\ngemm.h\n", (H.sh("ls " .. shq(dir))))
    end)
  end)
end)
