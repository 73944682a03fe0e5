-- runtime_spec.lua -- the CUDA backend (ptxlua.cuda): a clear error without a driver, argument
-- packing checked before launching (no GPU needed), and launches on a GPU (pending without one).
local H = require "helper"

local function kernel()
  local ptx = H.fresh()
  dofile(H.root .. "/kernels/vector_add.lua")
  return ptx.kernels()[1], ptx
end

describe("ptxlua.cuda", function()
  local cuda = require "ptxlua.cuda"

  it("names the missing driver piece when no driver is installed", function()
    local ok, why = cuda.available()
    if ok then return H.pending("a CUDA driver is installed here") end
    local okd, err = pcall(cuda.device, 0)
    assert.is_false(okd)
    assert.truthy(err:match("runtime_spec%.lua:%d+: error: CUDA device 0 is not available: .*libcuda%.so%.1"), err)
    assert.truthy(why:match("libcuda%.so%.1"), why)
  end)

  it("reports a driver it cannot load by name (PTXLUA_LIBCUDA)", function()
    local out, err, rc = H.sh("PTXLUA_LIBCUDA=/nonexistent/libcuda.so.1 " .. H.shq(H.exe) .. " --doctor")
    assert.are.equal(0, rc, err)
    assert.truthy(out:match("libcuda loads%s+no\n  why: no CUDA driver: cannot load /nonexistent/libcuda%.so%.1"), out)
  end)

  it("leaves the emulator path unchanged", function()
    local k = kernel()
    local emu = require "ptxlua.emu"
    local dev = emu.device("emu")
    local x, y, out = dev:array("f32", 10, 1), dev:array("f32", 10, 2), dev:array("f32", 10)
    k:launch { device = dev, args = { x, y, out, 10 }, defines = { N = 10 } }
    assert.are.equal(3, out:get(10))
  end)

  describe("argument packing", function()
    it("packs by the declared parameters, by position or by name", function()
      local k = kernel()
      local a = cuda.pack_args(k, { 4096, 8192, 0, 7 })
      assert.are.same({ 8, 8, 8, 4 }, { #a[1], #a[2], #a[3], #a[4] })
      assert.are.equal(string.char(7, 0, 0, 0), a[4])
      local b = cuda.pack_args(k, { x = 4096, y = 8192, out = 0, n = 7 })
      assert.are.same(a, b)
    end)

    it("rejects a wrong argument with a clear error, at the caller's line", function()
      local k = kernel()
      local cases = {
        { { 1, 2, 3, 1.5 }, "argument 4 %(n%) of vector_add: 1%.5 is not an integer %(%.u32%)" },
        { { 1, 2, 3, -1 }, "argument 4 %(n%) of vector_add: %-1 does not fit %.u32" },
        { { 1, 2, 3, 4294967296 }, "argument 4 %(n%) of vector_add: 4294967296 does not fit %.u32" },
        { { 1, 2, "x", 4 }, "argument 3 %(out%) of vector_add: a device array expected, got string" },
        { { 1, 2, 3 }, "launch of vector_add: 3 arguments for 4 parameters" },
        { { x = 1, y = 2, n = 3 }, "launch of vector_add: no argument for parameter 3 %(out%)" },
      }
      for _, c in ipairs(cases) do
        local ok, err = pcall(cuda.pack_args, k, c[1])
        assert.is_false(ok)
        assert.truthy(err:match("^.-runtime_spec%.lua:%d+: error: " .. c[2]), err)
      end
    end)

    it("takes 128 bytes for a tensormap parameter and checks byte-array sizes", function()
      local ptx = H.fresh()
      local k = ptx.kernel { name = "tm", params = { {"map", "tensormap"}, {"blob", "b8", size = 12}, {"s", "f32"} },
                             body = function() ptx.ret() end }
      local cuda2 = require "ptxlua.cuda"
      local a = cuda2.pack_args(k, { string.rep("\0", 128), string.rep("x", 12), 0.5 })
      assert.are.same({ 128, 12, 4 }, { #a[1], #a[2], #a[3] })
      local ok, err = pcall(cuda2.pack_args, k, { "short", string.rep("x", 12), 0.5 })
      assert.is_false(ok)
      assert.truthy(err:match("argument 1 %(map%) of tm: a tensor map"), err)
      ok, err = pcall(cuda2.pack_args, k, { string.rep("\0", 128), "abc", 0.5 })
      assert.truthy(err:match("argument 2 %(blob%) of tm: a string of 12 bytes expected"), err)
    end)
  end)

  describe("on a GPU", function()
    it("runs vector_add and agrees with the emulator", function()
      if not cuda.available() then return H.pending("needs a GPU (no CUDA driver here)") end
      local k = kernel()
      local dev = cuda.device(0)
      local n = 1000
      local x = dev:array("f32", n, function(i) return i * 0.5 end)
      local y = dev:array("f32", n, 1.0)
      local out = dev:array("f32", n):poison()
      k:launch { device = dev, args = { x, y, out, n }, defines = { N = n } }
      local r = out:read()
      for i = 1, n do assert.are.equal(i * 0.5 + 1, r[i]) end
      local ms = dev:time(function() k:launch { device = dev, args = { x, y, out, n }, defines = { N = n } } end)
      assert.is_true(ms > 0)
    end)
  end)
end)
