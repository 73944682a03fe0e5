-- mock_driver_spec.lua -- the Lua runtime (ptxlua.cuda), `ptxlua --doctor` and bench/gpu/run.lua
-- against the mock CUDA driver (tests/mock_cuda, $PTXLUA_MOCK_LIBCUDA), each in a child process
-- with PTXLUA_LIBCUDA pointing at it. The mock runs no kernel: this checks our side of the driver
-- ABI (what reaches cuLaunchKernelEx, cuFuncSetAttribute, cuTensorMapEncodeTiled), not the GPU.
local H = require "helper"
local shq = H.shq
local MOCK = os.getenv("PTXLUA_MOCK_LIBCUDA") or (H.build .. "/tests/mock_cuda/libcuda.so.1")

local function have_mock() return select(3, H.sh("test -f " .. shq(MOCK))) == 0 end

-- run a Lua script under luajit with the mock driver; returns stdout, stderr, status
local function run_lua(text, env)
  local path = H.write(H.tmpfile(".lua"), text)
  return H.sh((env or "") .. " PTXLUA_LIBCUDA=" .. shq(MOCK) .. " PATH=/usr/local/cuda/bin:$PATH luajit " .. shq(path))
end

local PRELUDE = [[
local ffi = require "ffi"
ffi.cdef [=[
struct ptxmock_launch { char func[256]; unsigned grid[3], block[3], cluster[3], smem; void *stream; uint32_t param_size; unsigned char params[4096]; int cluster_attr; };
int ptxmock_launch_count(void); const struct ptxmock_launch *ptxmock_last_launch(void);
int ptxmock_max_dynamic_smem(const char *name); void ptxmock_fail(const char *entry, int code);
int ptxmock_param_layout(const char *name, uint32_t *off, uint32_t *size, int max);
]=]
local mock = ffi.load(os.getenv("PTXLUA_LIBCUDA"))
local ptx = require "ptxlua"
local cuda = require "ptxlua.cuda"
]]

describe("ptxlua.cuda on the mock driver", function()
  it("--doctor reports the driver, the device and its compute capability", function()
    if not have_mock() then return H.pending("no mock driver built") end
    local out, err, rc = H.sh("PTXLUA_LIBCUDA=" .. shq(MOCK) .. " " .. shq(H.exe) .. " --doctor")
    assert.are.equal(0, rc, err)
    assert.truthy(out:find("libcuda loads          yes", 1, true), out)
    assert.truthy(out:find("cuInit                 ok", 1, true), out)
    assert.truthy(out:find("device count           1", 1, true), out)
    assert.truthy(out:find("device 0: ptxlua mock device (sm_90), sm_90", 1, true), out)
    out = H.sh("PTXMOCK_FAIL=cuInit=100 PTXLUA_LIBCUDA=" .. shq(MOCK) .. " " .. shq(H.exe) .. " --doctor")
    assert.truthy(out:find("cuInit failed: CUDA_ERROR_NO_DEVICE (no CUDA-capable device is detected)", 1, true), out)
  end)

  it("launches with the packed parameters, the smem attribute, the cluster and a tensor map", function()
    if not have_mock() then return H.pending("no mock driver built") end
    local out, err, rc = run_lua(PRELUDE .. [[
local k = ptx.kernel { name = "lk", target = "sm_90a", params = { {"p", "bf16*"}, {"n", "u32"}, {"map", "tensormap"}, {"s", "f32"} },
  grid = { 4 }, block = { 128 }, cluster = { 2 }, smem = 65536, body = function() ptx.ret() end }
local dev = cuda.device(0)
local a = dev:array("bf16", 64 * 128, 1)
local tm = dev:tensormap(a, { dims = { 64, 128 }, box = { 64, 16 }, swizzle = "128B" })
k:launch { device = dev, args = { a, 77, tm, 0.5 } }
local L = mock.ptxmock_last_launch()
local off, size = ffi.new("uint32_t[8]"), ffi.new("uint32_t[8]")
assert(mock.ptxmock_param_layout("lk", off, size, 8) == 4)
local blk = ffi.string(L.params, L.param_size)
local function at(i) return blk:sub(off[i] + 1, off[i] + size[i]) end
print(ffi.string(L.func), L.grid[0], L.block[0], L.cluster[0], L.smem, mock.ptxmock_max_dynamic_smem("lk"))
print(at(0) == require("ptxlua.core").emu_pack("u64", a.addr), at(1) == "\77\0\0\0",
      at(2) == tm.bytes, #at(2), at(3) == require("ptxlua.core").emu_pack("f32", 0.5))
local before = mock.ptxmock_launch_count()
local ok, e = pcall(k.launch, k, { device = dev, args = { a, 77, "short", 0.5 } })
print(ok, e:match("a tensor map") ~= nil, mock.ptxmock_launch_count() == before)
mock.ptxmock_fail("cuLaunchKernelEx", 701)
ok, e = pcall(k.launch, k, { device = dev, args = { a, 77, tm, 0.5 } })
print(ok, e:match("cuLaunchKernelEx: CUDA_ERROR_LAUNCH_OUT_OF_RESOURCES %(too many resources requested for launch%)") ~= nil)
ok, e = pcall(dev.tensormap, dev, a, { dims = { 64, 128 }, box = { 4, 16 }, swizzle = "128B" })
print(ok, e:match("cuTensorMapEncodeTiled: CUDA_ERROR_INVALID_VALUE") ~= nil)
]])
    assert.are.equal(0, rc, err)
    assert.are.equal("lk\t4\t128\t2\t65536\t65536\ntrue\ttrue\ttrue\t128\ttrue\nfalse\ttrue\ttrue\nfalse\ttrue\nfalse\ttrue\n", out)
  end)

  it("maps over packed sub-byte arrays: the driver's 16 x U4 and 16 x U6 types, the dims in values", function()
    if not have_mock() then return H.pending("no mock driver built") end
    local out, err, rc = run_lua(PRELUDE .. [[
ffi.cdef [=[
struct ptxmock_tiled { int dtype; unsigned rank; uint64_t addr, dims[5], strides[4]; unsigned box[5], estr[5]; int interleave, swizzle, l2, oob; };
const struct ptxmock_tiled *ptxmock_last_tiled(void);
]=]
local dev = cuda.device(0)
local function last()
  local t = mock.ptxmock_last_tiled()
  return string.format("dtype %d dims %d %d strides %d box %d %d", t.dtype, tonumber(t.dims[0]), tonumber(t.dims[1]),
                       tonumber(t.strides[0]), t.box[0], t.box[1])
end
local a = dev:array("e2m1", 256 * 4)                         -- 4 rows of 256 values, 128 bytes each
dev:tensormap(a, { dims = { 256, 4 }, box = { 64, 4 } })       -- dense: 16u4_align8b
print(last())
dev:tensormap(a, { dims = { 256, 4 }, box = { 128, 4 }, dtype = "16u4_align16b", swizzle = "128B" })
print(last())
local ok, e = pcall(dev.tensormap, dev, a, { dims = { 256, 4 }, box = { 64, 4 }, dtype = "16u4_align16b" })
print(ok, e:match("cuTensorMapEncodeTiled: CUDA_ERROR_INVALID_VALUE") ~= nil)   -- box[0] must be 128
local b = dev:array("e3m2", 64 * 4)                           -- 4 rows of 64 values, 48 bytes each
ok, e = pcall(dev.tensormap, dev, b, { dims = { 64, 4 }, box = { 128, 4 } })
print(ok, e:match("INVALID_VALUE") ~= nil)                    -- rows of 64: not a multiple of 128
b = dev:array("e3m2", 256 * 2)
dev:tensormap(b, { dims = { 256, 2 }, box = { 128, 2 } })    -- 192-byte rows: 16u6_align16b
print(last())
ok, e = pcall(dev.tensormap, dev, b, { dims = { 256, 2 }, box = { 128, 2 }, dtype = "16u4_align8b" })
print(ok, e:match("a map of 4%-bit elements %(16u4_align8b%) over an array of e3m2") ~= nil)
-- the emulator encodes none of them, and says so
local emu = require("ptxlua.emu").device "emu"
ok, e = pcall(emu.tensormap, emu, emu:array("e2m1", 256), { dims = { 256 }, box = { 64 } })
print(ok, e:match("packed 4%-bit elements %(16u4_align8b%) are not emulated") ~= nil)
]])
    assert.are.equal(0, rc, err)
    assert.are.equal("dtype 13 dims 256 4 strides 128 box 64 4\n" ..
                     "dtype 14 dims 256 4 strides 128 box 128 4\n" ..
                     "false\ttrue\nfalse\ttrue\n" ..
                     "dtype 15 dims 256 2 strides 192 box 128 2\n" ..
                     "false\ttrue\nfalse\ttrue\n", out)
  end)

  it("gives a kernel the dynamic shared memory its shared-memory plan needs, per template setting", function()
    if not have_mock() then return H.pending("no mock driver built") end
    -- a plan over 48 KB is one dynamic block (.extern .shared): the launch must ask the driver for
    -- all of it, or the kernel reads past its shared memory on a GPU
    local out, err, rc = run_lua(PRELUDE .. [[
local k = ptx.kernel { name = "planned", target = "sm_90a", templates = { ROWS = 256 }, params = { { "out", "f32*" } },
  grid = { 1 }, block = { 128 },
  body = function(t, o)
    local plan = ptx.smem_plan()
    local tile = plan:alloc("tile", "f32", { t.ROWS, 64 }, { swizzle = "128B" })
    local v = ptx.reg.f32()
    ptx.ld.shared.f32(v, tile:addr(0))
    ptx.st.global.f32(ptx.addr(ptx.global_ptrs(o)), v)
    ptx.ret()
  end }
local dev = cuda.device(0)
local a = dev:array("f32", 1, 0)
for _, rows in ipairs { 256, 384, 256 } do
  local r = k:launch { device = dev, args = { a }, defines = { ROWS = rows } }
  print(rows, r.smem, mock.ptxmock_last_launch().smem)
end
-- (the mock refuses a launch above the function's cuFuncSetAttribute size, as the driver does)
print(mock.ptxmock_max_dynamic_smem("planned"))
]])
    assert.are.equal(0, rc, err)
    assert.are.equal("256\t65536\t65536\n384\t98304\t98304\n256\t65536\t65536\n65536\n", out)
    -- and --check reports it
    local f = H.write(H.tmpfile(".lua"), "local ptx = require 'ptxlua'\n" ..
      "ptx.kernel { name = 'p', target = 'sm_90a', block = { 32 }, body = function()\n" ..
      "  local t = ptx.smem_plan():alloc('t', 'f32', { 300, 64 }, { swizzle = '128B' })\n" ..
      "  local v = ptx.reg.f32(); ptx.ld.shared.f32(v, t:addr(0)); ptx.ret() end }\n")
    out = H.sh("PATH=/usr/local/cuda/bin:$PATH " .. shq(H.exe) .. " " .. shq(f) .. " --check --json")
    if out:find('"kernels"', 1, true) then assert.truthy(out:find('"smem_dynamic": 76800', 1, true), out) end
  end)

  it("launches a kernel compiled for its cluster without the cluster launch attribute, as <<< >>> does", function()
    -- .reqnctapercluster fixes the cluster at compile time; the launch leaves it to the cubin (the
    -- documented way: a __cluster_dims__ kernel launched with <<< >>>), and a launch asking for
    -- another cluster is an error at its line before the driver sees it
    if not have_mock() then return H.pending("no mock driver built") end
    local out, err, rc = run_lua(PRELUDE .. [[
local k = ptx.kernel { name = "cl", target = "sm_90a", templates = { CL = 2 }, params = { { "out", "f32*" } },
  grid = { 8 }, block = { 32 }, cluster = function(t) return { t.CL } end,
  body = function(_, o) ptx.st.global.f32(ptx.addr(ptx.global_ptrs(o)), 1.5); ptx.ret() end }
local dev = cuda.device(0)
local a = dev:array("f32", 1, 0)
for _, c in ipairs { 2, 4, 1 } do
  local r = k:launch { device = dev, args = { a }, defines = { CL = c } }
  local L = mock.ptxmock_last_launch()
  print(c, r.cluster[1], L.cluster[0], L.cluster_attr)
end
local ok, e = pcall(k.launch, k, { device = dev, args = { a }, defines = { CL = 2 }, grid = { 8 }, block = { 32 }, cluster = { 4 } })
print(ok, (e:gsub("^.-:(%d+): ", "line %1: ")))
local free = ptx.kernel { name = "free", target = "sm_90a", params = { { "out", "f32*" } }, grid = { 8 }, block = { 32 },
  body = function(_, o) ptx.st.global.f32(ptx.addr(ptx.global_ptrs(o)), 1.5); ptx.ret() end }
free:launch { device = dev, args = { a }, cluster = { 4 } }              -- a launch-time cluster: the attribute
print(mock.ptxmock_last_launch().cluster[0], mock.ptxmock_last_launch().cluster_attr)
]])
    assert.are.equal(0, rc, err)
    assert.are.equal("2\t2\t2\t0\n4\t4\t4\t0\n1\t1\t1\t0\n" ..
      "false\tline 21: error: launch of cl: a cluster of 4x1x1, but the kernel was compiled for clusters of 2x1x1\n4\t1\n", out)
  end)

  it("assembles PTX of an older target for the device's architecture (an sm_80 cubin does not load on sm_90)", function()
    -- a cubin runs only on its own SM major version: kernels/gemm_mma.lua (.target sm_80) must be
    -- assembled for sm_90 to load on an H100/H200; an arch-specific target of another device fails
    -- at the script's line before anything is loaded
    if not have_mock() then return H.pending("no mock driver built") end
    local out, err, rc = run_lua(PRELUDE .. [[
local function kernel(name, target)
  return ptx.kernel { name = name, target = target, params = { { "out", "f32*" } }, grid = { 1 }, block = { 32 },
    body = function(_, o) ptx.st.global.f32(ptx.addr(ptx.global_ptrs(o)), 1.5); ptx.ret() end }
end
local dev = cuda.device(0)
local a = dev:array("f32", 1, 0)
for _, t in ipairs { "sm_80", "sm_86", "sm_90", "sm_90a" } do
  local k = kernel("k_" .. t, t)
  local ok, e = pcall(k.launch, k, { device = dev, args = { a } })
  print(t, ok, ok and ffi.string(mock.ptxmock_last_launch().func) or e)
end
local k = kernel("k_100a", "sm_100a")
local ok, e = pcall(k.launch, k, { device = dev, args = { a } })
print(ok, (e:gsub("^.-:(%d+): ", "line %1: ")))
print(require("ptxlua.core").cuda_arch("sm_80", 9, 0), require("ptxlua.core").cuda_arch("sm_100f", 10, 3), require("ptxlua.core").cuda_arch("sm_90a", 9, 0))
]])
    assert.are.equal(0, rc, err)
    assert.are.equal("sm_80\ttrue\tk_sm_80\nsm_86\ttrue\tk_sm_86\nsm_90\ttrue\tk_sm_90\nsm_90a\ttrue\tk_sm_90a\n" ..
      "false\tline 23: error: k_100a: PTX for sm_100a cannot run on this device (sm_90, compute capability 9.0): an arch-specific target runs only on that architecture\n" ..
      "sm_90\tsm_103\tsm_90a\n", out)
  end)

  it("raises the dynamic shared-memory limit when static and dynamic together pass 48 KB", function()
    -- the driver's default dynamic limit is 48 KB less the kernel's static shared arrays: a kernel
    -- with 40 KB of static arrays launched with 16 KB (or 48 KB) of dynamic shared memory needs
    -- cuFuncSetAttribute, though neither size alone is over 48 KB
    if not have_mock() then return H.pending("no mock driver built") end
    local out, err, rc = run_lua(PRELUDE .. [[
ffi.cdef "int ptxmock_static_smem(const char *name);"
local k = ptx.kernel { name = "mixed", target = "sm_90a", templates = { DYN = 16384 }, params = { { "out", "f32*" } },
  grid = { 1 }, block = { 128 }, smem = function(t) return t.DYN end,
  body = function(t, o)
    local st = ptx.shared("st", "f32", 10240)                    -- 40 KB of static shared memory
    local v = ptx.reg.f32()
    ptx.ld.shared.f32(v, ptx.addr(st, 4 * 10000))
    ptx.st.global.f32(ptx.addr(ptx.global_ptrs(o)), v)
    ptx.ret()
  end }
local dev = cuda.device(0)
local a = dev:array("f32", 1, 0)
for _, dyn in ipairs { 16384, 49152, 8192 } do
  local ok, e = pcall(k.launch, k, { device = dev, args = { a }, defines = { DYN = dyn } })
  print(dyn, ok, ok and mock.ptxmock_last_launch().smem or e)
end
print(mock.ptxmock_static_smem("mixed"))
]])
    assert.are.equal(0, rc, err)
    assert.are.equal("16384\ttrue\t16384\n49152\ttrue\t49152\n8192\ttrue\t8192\n40960\n", out)
  end)

  it("round-trips arrays through device memory and times with events", function()
    if not have_mock() then return H.pending("no mock driver built") end
    local out, err, rc = run_lua(PRELUDE .. [[
local dev = cuda.device(0)
local a = dev:array("f32", 1000, function(i) return i * 0.25 end)
local r = a:read()
a:set(10, -3)
print(r[1], r[1000], a:get(10), a:get(11))
local ms = dev:time(function() dev:sync() end)
print(ms > 0)
a:free()
]])
    assert.are.equal(0, rc, err)
    assert.are.equal("0.25\t250\t-3\t2.75\ntrue\n", out)
  end)
end)

describe("bench/gpu/run.lua", function()
  it("says there is no CUDA driver and exits 2", function()
    local out, _, rc = H.sh("PTXLUA_LIBCUDA=/nonexistent/libcuda.so.1 BUILD=" .. shq(H.build) .. " " .. shq(H.root .. "/bench/gpu/run.sh"))
    assert.are.equal(2, rc)
    assert.truthy(out:match("^no CUDA driver: cannot load /nonexistent/libcuda%.so%.1"), out)
  end)

  it("runs every case end to end on the mock (plumbing only: the checks must fail)", function()
    if not have_mock() then return H.pending("no mock driver built") end
    local out, err, rc = H.sh("PATH=/usr/local/cuda/bin:$PATH PTXLUA_LIBCUDA=" .. shq(MOCK) .. " BUILD=" .. shq(H.build) .. " " ..
      shq(H.root .. "/bench/gpu/run.sh") .. " --quick --copy-mb 4 --runs 3 --set N=2048 --set B=4 --set M=64 --set K=64" ..
      " vector_add rmsnorm layernorm softmax swiglu swiglu_f32 gemm_mma")
    assert.are.equal(1, rc, err)
    assert.truthy(out:find("MOCK DRIVER: no kernel runs", 1, true), out)
    assert.truthy(out:find("device%-to%-device copy: %d+ GB/s"), out)
    for _, case in ipairs { "vector_add", "rmsnorm", "layernorm", "softmax", "swiglu", "swiglu_f32", "gemm_mma" } do
      assert.truthy(out:find("\n" .. case .. " ", 1, true), case .. " missing:\n" .. out)
    end
    -- every output stayed poisoned: each check fails on elements that were never written
    local fails = select(2, out:gsub("\n    FAIL [%w_]+: %d+ elements NaN/Inf %(not written%?%)", ""))
    assert.are.equal(7, fails, out)
    assert.falsy(out:find("ERROR", 1, true), out)
  end)

  it("runs the Hopper cases end to end on the mock: tensor maps, clusters, dynamic shared memory", function()
    if not have_mock() then return H.pending("no mock driver built") end
    local cases = { "gemm", "grouped_gemm", "flash_attention", "rmsnorm_tma", "layernorm_tma" }
    local out, err, rc = H.sh("PATH=/usr/local/cuda/bin:$PATH PTXLUA_LIBCUDA=" .. shq(MOCK) .. " BUILD=" .. shq(H.build) .. " " ..
      shq(H.root .. "/bench/gpu/run.sh") .. " --quick --copy-mb 4 --runs 3 --set M=256 --set N=256 --set K=128" ..
      " --set BH=2 --set S=256 --set B=4 " .. table.concat(cases, " "))
    assert.are.equal(1, rc, err)
    for _, case in ipairs(cases) do
      assert.truthy(out:find("\n" .. case .. " ", 1, true), case .. " missing:\n" .. out)
    end
    local fails = select(2, out:gsub("\n    FAIL [%w_]+: %d+ elements NaN/Inf %(not written%?%)", ""))
    assert.are.equal(#cases, fails, out)
    assert.falsy(out:find("ERROR", 1, true), out)
  end)

  it("selects the cases by the device's compute capability: the Blackwell ones on 10.0, the Hopper ones on 9.0", function()
    if not have_mock() then return H.pending("no mock driver built") end
    local bw = { "gemm_sm100", "gemm_fp8_sm100", "grouped_gemm_sm100" }
    local function go(cc)
      return H.sh("PTXMOCK_CC=" .. cc .. " PATH=/usr/local/cuda/bin:$PATH PTXLUA_LIBCUDA=" .. shq(MOCK) .. " BUILD=" .. shq(H.build) .. " " ..
        shq(H.root .. "/bench/gpu/run.sh") .. " --quick --copy-mb 4 --runs 3 --set M=512 --set N=256 --set K=256 --set MTOT=1024 " ..
        table.concat(bw, " ") .. " gemm")
    end
    local other = "\n    skipped: another architecture: PTX for %s cannot run on this device"
    -- 10.0 (a B200): the Blackwell cases run end to end (tensor maps over e4m3 and ue8m0 tensors,
    -- clusters of 2, 256 threads, dynamic shared memory) and fail only for the mock's unwritten
    -- outputs; the sm_90a GEMM is another architecture's
    local out, err, rc = go("10.0")
    assert.are.equal(1, rc, err)
    for _, case in ipairs(bw) do assert.truthy(out:find("\n" .. case .. " ", 1, true), case .. " missing:\n" .. out) end
    assert.are.equal(3, select(2, out:gsub("\n    FAIL C: %d+ elements NaN/Inf %(not written%?%)", "")), out)
    assert.truthy(out:find(other:format("sm_90a"), 1, true), out)
    assert.truthy(out:find("(1 row for another architecture)", 1, true), out)
    assert.falsy(out:find("ERROR", 1, true), out)
    -- 9.0 (an H200): the other way round
    out, err, rc = go("9.0")
    assert.are.equal(1, rc, err)
    assert.are.equal(3, select(2, out:gsub(other:format("sm_100a"):gsub("%p", "%%%0"), "")), out)
    assert.are.equal(1, select(2, out:gsub("\n    FAIL C: %d+ elements NaN/Inf %(not written%?%)", "")), out)
    assert.truthy(out:find("(3 rows for another architecture)", 1, true), out)
    -- only rows of another architecture: nothing checked, and not a failure
    out, err, rc = H.sh("PTXMOCK_CC=9.0 PATH=/usr/local/cuda/bin:$PATH PTXLUA_LIBCUDA=" .. shq(MOCK) .. " BUILD=" .. shq(H.build) .. " " ..
      shq(H.root .. "/bench/gpu/run.sh") .. " --quick --copy-mb 4 --runs 3 gemm_sm100")
    assert.are.equal(0, rc, out .. err)
    assert.truthy(out:find("; nothing checked (1 row for another architecture)", 1, true), out)
  end)

  it("runs a case's `later` configs after every case's own, and none of a case skipped over the budget", function()
    if not have_mock() then return H.pending("no mock driver built") end
    local function check(extra)
      return H.sh("PATH=/usr/local/cuda/bin:$PATH PTXLUA_LIBCUDA=" .. shq(MOCK) .. " BUILD=" .. shq(H.build) .. " " ..
        shq(H.root .. "/bench/gpu/run.sh") .. " --copy-mb 4 --runs 2 --sets 1 --set M=256 --set N=256 --set K=128 " .. extra .. " gemm vector_add")
    end
    local out, err, rc = check("")
    assert.are.equal(1, rc, err)
    -- the table: gemm's own rows, vector_add's, then gemm's later ones (bench/gpu/cases/gemm.lua)
    local order = {}
    for case, config in out:gmatch("\n(%a[%w_]*) +(%S[^\n]-) +%d") do
      if case == "gemm" or case == "vector_add" then order[#order + 1] = case .. (config:match("^(%u+=%d+) K=") or "") end
    end
    assert.are.same({ "gemm", "gemm", "gemm", "vector_add", "vector_add", "gemmCLUSTER=1", "gemmCLUSTER=4", "gemmGROUP=16" }, order, out)
    assert.falsy(out:find("ERROR", 1, true), out)
    -- over the budget from the start: each case is one skipped row, and its later configs do not run
    out, err, rc = check("--budget -1")
    assert.are.equal(0, rc, err)
    assert.truthy(out:find("\ngemm +%-[^\n]*\n +skipped: over the %-1 s budget"), out)
    assert.truthy(out:find("\nvector_add +%-[^\n]*\n +skipped: over the %-1 s budget"), out)
    assert.truthy(out:find("2 rows in %d+ s %([%d.]+ s CPU%); nothing checked %(2 rows skipped over the budget%)"), out)
    assert.falsy(out:find("CLUSTER=", 1, true), out)
  end)

  it("bench/gpu/session.sh runs the doctor, the check and the launch overheads, logging each under $OUT", function()
    if not have_mock() then return H.pending("no mock driver built") end
    local dir = H.tmpfile("-session")
    local out, err, rc = H.sh("OUT=" .. shq(dir) .. " PTXLUA_LIBCUDA=" .. shq(MOCK) .. " BUILD=" .. shq(H.build) .. " " ..
      shq(H.root .. "/bench/gpu/session.sh") .. " --quick --copy-mb 4 --runs 3 --set N=2048 vector_add")
    assert.are.equal(1, rc, out .. err)                   -- the mock runs no kernel: the check fails
    assert.truthy(H.read(dir .. "/device.txt"):find("device 0: ptxlua mock device (sm_90), sm_90", 1, true))
    assert.truthy(H.read(dir .. "/gpu_check.txt"):find("\nvector_add ", 1, true))
    local launch = H.read(dir .. "/launch.txt")
    assert.truthy(launch:find("host time per launch (C API)", 1, true), launch)
    assert.truthy(launch:find("host time per launch (Lua)", 1, true), launch)
    assert.truthy(out:find("== done in %d+ s; GPU check exit 1"), out)
  end)

  it("bench/gpu/session.sh survives a kernel that never finishes: the check is killed, its done rows logged", function()
    -- the one GPU session must not lose everything to one hung kernel: PTXMOCK_HANG makes every wait
    -- after a softmax launch block forever, as a stuck mbarrier pipeline would on the GPU
    if not have_mock() then return H.pending("no mock driver built") end
    local dir = H.tmpfile("-hang")
    local t0 = os.time()
    local out, err, rc = H.sh("CHECK_TIMEOUT=4 PTXMOCK_HANG=softmax OUT=" .. shq(dir) .. " PTXLUA_LIBCUDA=" .. shq(MOCK) ..
      " BUILD=" .. shq(H.build) .. " timeout 60 " .. shq(H.root .. "/bench/gpu/session.sh") ..
      " --quick --copy-mb 4 --runs 3 --set N=2048 --set B=4 vector_add softmax swiglu")
    assert.are.equal(124, rc, out .. err)
    assert.is_true(os.time() - t0 < 60, "the check was not cut short")
    local log = H.read(dir .. "/gpu_check.txt")
    assert.truthy(log:find("\n%-%- vector_add N=2048 %.%.%. FAIL out: 2048 elements NaN/Inf"), log)   -- done before the hang
    -- the one that hung: its progress line never completed, the session's note follows it
    assert.truthy(log:find("\n-- softmax B=4 N=2048 ... == the GPU check did not finish in 4 s", 1, true), log)
    assert.falsy(log:find("-- swiglu", 1, true), log)
    assert.truthy((H.read(dir .. "/launch.txt") or ""):find("host time per launch (C API)", 1, true), out)
  end)

  it("bench/gpu/session.sh runs the Lua files of the tree it is in, not those of the path the build was configured at", function()
    -- the device machine gets a copy of the working tree at a path of its own and the carried
    -- build: every step (run.lua's luajit, the C API's engine, the Lua launch overhead) must load
    -- the copy's lua/. A marker in the copy's ptxlua/init.lua says which tree each step loaded.
    if not have_mock() then return H.pending("no mock driver built") end
    local copy = H.tmpfile("-tree")
    H.sh("mkdir -p " .. shq(copy) .. " && cp -r " .. shq(H.root .. "/bench") .. " " .. shq(H.root .. "/lua") .. " " ..
         shq(H.root .. "/kernels") .. " " .. shq(copy))
    local init = copy .. "/lua/ptxlua/init.lua"
    H.write(init, "io.stderr:write('LOADED FROM THE COPY\\n')\n" .. H.read(init))
    local dir = H.tmpfile("-session")
    local out, err = H.sh("OUT=" .. shq(dir) .. " PTXLUA_LIBCUDA=" .. shq(MOCK) .. " BUILD=" .. shq(H.build) .. " " ..
      shq(copy .. "/bench/gpu/session.sh") .. " --quick --copy-mb 4 --runs 3 --set N=2048 vector_add")
    H.sh("rm -rf " .. shq(copy))
    local launch = H.read(dir .. "/launch.txt") or ""
    assert.truthy(launch:find("host time per launch (C API)", 1, true), out .. err)
    -- the C API's engine and the Lua run each loaded the copy
    assert.are.equal(2, select(2, launch:gsub("LOADED FROM THE COPY", "")), launch)
    assert.truthy(H.read(dir .. "/gpu_check.txt"):find("LOADED FROM THE COPY", 1, true))
  end)

  it("prints the ratio to a case's published figure (flash attention: FA3's, at FA3's shapes only)", function()
    if not have_mock() then return H.pending("no mock driver built") end
    local fa = dofile(H.root .. "/bench/gpu/cases/flash_attention.lua")
    assert.are.same({ 625, "FA3 (paper, H100)" }, { fa.published { BH = 128, S = 2048, D = 128, CAUSAL = 0 } })
    assert.are.equal(521, (fa.published { BH = 128, S = 2048, D = 128, CAUSAL = 1 }))
    assert.are.equal(460, (fa.published { BH = 256, S = 2048, D = 64, CAUSAL = 0 }))
    assert.is_nil(fa.published { BH = 16, S = 2048, D = 128, CAUSAL = 0 })     -- not FA3's shape
    for _, c in ipairs(fa.configs) do                                             -- every GPU shape but the uneven one
      assert.are.equal(c.S % 128 ~= 0, fa.published(c) == nil, c.S)
    end
    local dir = H.tmpfile("-pub")
    H.sh("mkdir -p " .. shq(dir))
    H.write(dir .. "/va.lua", (H.read(H.root .. "/bench/gpu/cases/vector_add.lua"):gsub("\n}%s*$",
      "\n  flops = function(t) return t.N end,\n  published = function(t) return 1e-9, \"PUB (test)\" end,\n}\n")))
    local out, err = H.sh("PATH=/usr/local/cuda/bin:$PATH PTXLUA_LIBCUDA=" .. shq(MOCK) .. " BUILD=" .. shq(H.build) .. " " ..
      shq(H.root .. "/bench/gpu/run.sh") .. " --quick --copy-mb 4 --runs 3 --set N=2048 --cases " .. shq(dir))
    assert.truthy(out:find("va%s+N=2048 .- [%d.]+ PUB %(test%)"), out .. err)
  end)
end)
