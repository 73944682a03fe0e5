-- native_arch_spec.lua -- `--arch native` and arch = "native": the target of the GPU in use, asked
-- of the CUDA driver (the mock driver of tests/mock_cuda, its capability set by $PTXMOCK_CC), with
-- an error naming the missing driver where there is none; and a launch on the CUDA runtime that is
-- given tensors builds the kernel's declared maps with the driver (cuTensorMapEncodeTiled).
local H = require "helper"
local shq = H.shq
local MOCK = os.getenv("PTXLUA_MOCK_LIBCUDA") or (H.build .. "/tests/mock_cuda/libcuda.so.1")
local function have_mock() return select(3, H.sh("test -f " .. shq(MOCK))) == 0 end
local VA = H.root .. "/kernels/vector_add.lua"

local function cli(env, args)
  local parts = { env, shq(H.exe) }
  for _, a in ipairs(args) do parts[#parts + 1] = shq(a) end
  return H.sh(table.concat(parts, " "))
end

describe("--arch native", function()
  for _, c in ipairs { { "9.0", "sm_90a" }, { "8.6", "sm_86" }, { "10.0", "sm_100a" }, { "8.0", "sm_80" }, { "12.0", "sm_120a" } } do
    it("is " .. c[2] .. " on a GPU of compute capability " .. c[1], function()
      if not have_mock() then return H.pending("no mock driver built") end
      local out, err, rc = cli("PTXMOCK_CC=" .. c[1] .. " PTXLUA_LIBCUDA=" .. shq(MOCK), { VA, "--arch", "native" })
      assert.are.equal(0, rc, err)
      assert.matches("\n.target " .. c[2] .. "\n", out, 1, true)
    end)
  end

  it("without a driver: an error naming the library that is missing, exit 1", function()
    local out, err, rc = cli("PTXLUA_LIBCUDA=/nonexistent/libcuda.so.1", { VA, "--arch", "native" })
    assert.are.equal(1, rc)
    assert.are.equal("", out)
    assert.matches("ptxlua: error: --arch native needs the GPU's compute capability: no CUDA driver: cannot load /nonexistent/libcuda.so.1", err, 1, true)
  end)

  it("with a driver that sees no GPU: says so", function()
    if not have_mock() then return H.pending("no mock driver built") end
    local _, err, rc = cli("PTXMOCK_DEVICES=0 PTXLUA_LIBCUDA=" .. shq(MOCK), { VA, "--arch", "native" })
    assert.are.equal(1, rc)
    assert.matches("--arch native needs the GPU's compute capability", err, 1, true)
  end)

  it("arch = \"native\" in the Lua API (k:ptx), and its error at the caller's line", function()
    if not have_mock() then return H.pending("no mock driver built") end
    local script = H.write(H.tmpfile(".lua"), [[
local ptx = require "ptxlua"
local k = ptx.kernel { name = "k", target = "sm_80", body = function() ptx.ret() end }
io.write(k:ptx { arch = "native" }:match("%.target (%S+)"), "\n")
]])
    local path = H.write(H.tmpfile(".lua"), "package.path = " .. ("%q"):format(H.root .. "/lua/?.lua;" .. H.root .. "/lua/?/init.lua;") ..
                         " .. package.path\npackage.cpath = " .. ("%q"):format(H.build .. "/?.so;") .. " .. package.cpath\ndofile(" .. ("%q"):format(script) .. ")\n")
    local out, err, rc = H.sh("PTXMOCK_CC=8.9 PTXLUA_LIBCUDA=" .. shq(MOCK) .. " luajit " .. shq(path))
    assert.are.equal(0, rc, err)
    assert.are.equal("sm_89\n", out)
    out, err, rc = H.sh("PTXLUA_LIBCUDA=/nonexistent/libcuda.so.1 luajit " .. shq(path))
    assert.are_not.equal(0, rc)
    assert.matches(script .. ":3: error: arch = \"native\" needs the GPU's compute capability: no CUDA driver", err, 1, true)
  end)
end)

describe("the CUDA runtime given tensors", function()
  it("builds the declared maps with the driver: the launch's map bytes are dev:tensormap's", function()
    if not have_mock() then return H.pending("no mock driver built") end
    if not H.ptxas_path() then return H.pending("no ptxas") end
    local path = H.write(H.tmpfile(".lua"), [[
package.path = ]] .. ("%q"):format(H.root .. "/lua/?.lua;" .. H.root .. "/lua/?/init.lua;") .. [[ .. package.path
package.cpath = ]] .. ("%q"):format(H.build .. "/?.so;") .. [[ .. package.cpath
local ffi = require "ffi"
ffi.cdef [=[
struct ptxmock_launch { char func[256]; unsigned grid[3], block[3], cluster[3], smem; void *stream; uint32_t param_size; unsigned char params[4096]; int cluster_attr; };
const struct ptxmock_launch *ptxmock_last_launch(void);
int ptxmock_param_layout(const char *name, uint32_t *off, uint32_t *size, int max);
]=]
local mock = ffi.load(os.getenv("PTXLUA_LIBCUDA"))
local ptx = require "ptxlua"
local cuda = require "ptxlua.cuda"
dofile(]] .. ("%q"):format(H.root .. "/kernels/gemm.lua") .. [[)
local k = ptx.kernels()[1]
local dev = cuda.device(0)
local defs = { M = 256, N = 256, K = 64 }
local A, B, C = dev:array("bf16", 256 * 64, 1), dev:array("bf16", 256 * 64, 1), dev:array("bf16", 256 * 256, 0)
k:launch { device = dev, args = { A, B, C }, defines = defs }
local L = mock.ptxmock_last_launch()
local blk = ffi.string(L.params, L.param_size)
local off, size = ffi.new("uint32_t[8]"), ffi.new("uint32_t[8]")
local np = mock.ptxmock_param_layout("gemm", off, size, 8)
local function at(i) return blk:sub(off[i] + 1, off[i] + size[i]) end
local sa, sb, sc = k:maps(defs)
print(np, at(0) == dev:tensormap(A, sa).bytes, at(1) == dev:tensormap(B, sb).bytes, at(2) == dev:tensormap(C, sc).bytes)
local ok, e = pcall(function() k:launch { device = dev, args = { A, B, dev:array("f32", 10, 0) }, defines = defs } end)
print(ok, e:match("a f32 array for tensor C, which holds bf16") ~= nil)
]])
    local out, err, rc = H.sh("PTXLUA_LIBCUDA=" .. shq(MOCK) .. " PATH=/usr/local/cuda/bin:$PATH luajit " .. shq(path))
    assert.are.equal(0, rc, err)
    assert.are.equal("3\ttrue\ttrue\ttrue\nfalse\ttrue\n", out)
  end)
end)
