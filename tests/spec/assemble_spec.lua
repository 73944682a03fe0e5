-- assemble_spec.lua -- which assembler a kernel gets, and why it matters for warp specialization.
-- nvJitLink assembles each input relocatably (as `ptxas -c`): ptxas then ignores setmaxnreg (C7504)
-- and every thread keeps the kernel-wide register budget, so a kernel that hands its consumers 232
-- or 240 registers spills. PTX with setmaxnreg therefore goes to the ptxas binary (whole-program);
-- without one, a CUDA launch lets the driver's JIT assemble the PTX whole. Both are checked here,
-- the CUDA side against the mock driver (tests/mock_cuda): which load entry point is used.
local H = require "helper"
local shq = H.shq
local MOCK = os.getenv("PTXLUA_MOCK_LIBCUDA") or (H.build .. "/tests/mock_cuda/libcuda.so.1")

local toolkit = H.toolkit

local CACHE = H.tmpdir() .. "/cache"
local function run(cmd, env)
  return H.sh("PTXLUA_CACHE_DIR=" .. shq(CACHE) .. " PATH=/usr/local/cuda/bin:$PATH " .. (env or "") .. " " .. cmd)
end

-- a warp-specialized kernel at its smallest: a producer warpgroup at 40 registers, two consumers at 232
local WS = [[
local ptx = require "ptxlua"
K = ptx.kernel { name = "ws", target = "sm_90a", block = { 384 }, maxntid = { 384 },
  body = function()
    ptx.warp_specialize { regs = { producer = 40, consumers = 232 },
      producer = function() end, consumers = function(wg) end }
    ptx.ret()
  end }
]]

describe("assembling kernels that use setmaxnreg", function()
  it("goes to ptxas, whole-program: flash attention (D = 128) assembles with no spill", function()
    if not toolkit() then return end
    local out, err, rc = run(shq(H.exe) .. " " .. shq(H.root .. "/kernels/flash_attention.lua") .. " --check --json")
    assert.are.equal(0, rc, err)
    assert.truthy(out:find('"assembler": *"ptxas '), out)
    assert.truthy(out:find('"spill_stores": *0'), out)
    assert.truthy(out:find('"spill_loads": *0'), out)
    assert.falsy(out:find("C7504", 1, true), out)
  end)

  -- the Hopper kernels at their shapes: no "Potential Performance Loss" note from ptxas (setmaxnreg
  -- honoured -- C7504/C7508 --, wgmma not serialized -- C7512 --), no spill
  for _, c in ipairs {
    { "gemm", {} }, { "gemm", { "BM=64" } }, { "grouped_gemm", {} },
    { "flash_attention", {} }, { "flash_attention", { "D=64", "CAUSAL=1" } }, { "flash_attention", { "BQ=64" } },
    { "flash_attention", { "BKV=176" } },
  } do
    it("gives " .. c[1] .. " " .. table.concat(c[2], " ") .. " no performance warning and no spill", function()
      if not toolkit() then return end
      local args = { shq(H.exe), shq(H.root .. "/kernels/" .. c[1] .. ".lua"), "--check", "--max-spills", "0" }
      for _, d in ipairs(c[2]) do args[#args + 1] = "-D " .. d end
      local out, err, rc = run(table.concat(args, " "))
      assert.are.equal(0, rc, out .. err)
      assert.falsy((out .. err):find("warning:", 1, true), out .. err)
      assert.truthy(out:match("\n" .. c[1] .. " +%d+ +%d+ +%d+ +0 +0 +0 +0\n"), out)   -- no stack, spill or warning
    end)
  end

  it("through nvJitLink (asked for by name) says setmaxnreg was ignored, as a warning", function()
    if not toolkit() then return end
    local f = H.write(H.tmpfile(".lua"), WS)
    local out, err, rc = run(shq(H.exe) .. " " .. shq(f) .. " --check", "PTXLUA_ASSEMBLER=nvjitlink")
    assert.are.equal(0, rc, err)
    if not out:find("by nvJitLink", 1, true) then
      if H.ci then error("nvJitLink did not load under CI: " .. out) end
      return H.pending("libnvJitLink is not installed")
    end
    assert.truthy(out:find("warning: (C7504) Potential Performance Loss: 'setmaxnreg' ignored", 1, true), out)
    -- the same file without setmaxnreg stays with nvJitLink by default (it is the faster path)
    local plain = H.write(H.tmpfile(".lua"), (WS:gsub("ptx.warp_specialize.-end }\n", "")))
    out = run(shq(H.exe) .. " " .. shq(plain) .. " --check")
    assert.truthy(out:find("by nvJitLink", 1, true), out)
  end)

  it("on a CUDA device, loads ptxas's cubin, or lets the driver JIT the PTX when only nvJitLink is there", function()
    if not toolkit() then return end
    if select(3, H.sh("test -f " .. shq(MOCK))) ~= 0 then return H.pending("no mock driver built") end
    local f = H.write(H.tmpfile(".lua"), WS .. [[
local cuda = require "ptxlua.cuda"
local k = K
local ok, e = pcall(k.launch, k, { device = cuda.device(0), grid = { 1 }, block = { 384 } })
print(ok and "launched" or ("failed: " .. tostring(e)))
]])
    local function go(env) return (run("luajit " .. shq(f), "PTXLUA_LIBCUDA=" .. shq(MOCK) .. " " .. env)) end
    -- ptxas assembled it: the cubin is loaded (cuModuleLoadData); the JIT entry is not used
    assert.truthy(go("PTXMOCK_FAIL=cuModuleLoadDataEx=200"):find("launched", 1, true))
    assert.truthy(go("PTXMOCK_FAIL=cuModuleLoadData=200"):find("failed: .*cuModuleLoadData"))
    -- nvJitLink assembled it (C7504): the PTX goes to the driver's JIT instead of the cubin
    local ck = run(shq(H.exe) .. " " .. shq(H.write(H.tmpfile(".lua"), WS)) .. " --check", "PTXLUA_ASSEMBLER=nvjitlink")
    if not ck:find("by nvJitLink", 1, true) then
      if H.ci then error("nvJitLink did not load under CI: " .. ck) end
      return H.pending("libnvJitLink is not installed")
    end
    assert.truthy(go("PTXLUA_ASSEMBLER=nvjitlink PTXMOCK_FAIL=cuModuleLoadData=200"):find("launched", 1, true))
    assert.truthy(go("PTXLUA_ASSEMBLER=nvjitlink PTXMOCK_FAIL=cuModuleLoadDataEx=200"):find("failed: .*cuModuleLoadDataEx"))
  end)
end)
