-- bench_spec.lua -- the benchmark scripts in bench/ still run (at tiny sizes) and print their
-- tables. No timing is asserted here: the figures live in docs/performance.md.
local H = require "helper"

local function luajit(args)
  local parts = { "luajit" }
  for _, a in ipairs(args) do parts[#parts + 1] = H.shq(a) end
  return H.sh(table.concat(parts, " "))
end

describe("bench/gemm_unrolled.lua", function()
  it("traces to about N instructions of real sm_80 code that ptxas accepts", function()
    local out, err, rc = H.ptxlua { H.root .. "/bench/gemm_unrolled.lua", "-D", "N=2000", "--print-ptx" }
    assert.are.equal(0, rc, err)
    local n, mma, ldm = 0, 0, 0
    for _, line in ipairs(H.insns(out)) do
      n = n + 1
      if line:find("^mma%.sync%.aligned%.m16n8k16%.row%.col%.f32%.bf16%.bf16%.f32") then mma = mma + 1 end
      if line:find("^ldmatrix%.sync%.aligned%.m8n8%.x4%.shared%.b16") then ldm = ldm + 1 end
    end
    assert.is_true(n > 1900 and n <= 2000, "instructions: " .. n)
    assert.is_true(mma > 0 and ldm > 0)
    assert.truthy(out:find("cp.async.cg.shared.global", 1, true))
    local ok, report = H.assemble(out, "sm_80")
    if ok == nil then return end
    assert.is_true(ok, report)
    assert.are.equal(0, H.spills(report))
  end)
end)

describe("bench/trace_throughput.lua", function()
  it("prints its in-process and whole-command tables", function()
    local out, err, rc = luajit { H.root .. "/bench/trace_throughput.lua", "--build", H.build, "--sizes", "300,1000", "--runs", "1" }
    assert.are.equal(0, rc, err)
    assert.truthy(out:find("in process (ptx.build = trace + validate", 1, true), out)
    assert.truthy(out:find("\n%s+300%s+%d+%s+[%d.]+"), out)
    assert.truthy(out:find("\n%s+1000%s+%d+%s+[%d.]+"), out)
    assert.truthy(out:find("whole command: ptxlua bench/gemm_unrolled.lua", 1, true), out)
    assert.truthy(out:find("\n%s+0%s+%d+%s+[%d.]+"), out)
  end)
end)

describe("bench/runstat.lua", function()
  it("reports wall and CPU time of a command", function()
    local out, err, rc = luajit { H.root .. "/bench/runstat.lua", "-n", "2", "--warmup", "0", "--", H.exe, "--version" }
    assert.are.equal(0, rc, err)
    assert.truthy(out:find("\nwall%s+[%d.]+%s+[%d.]+%s+[%d.]+"), out)
    assert.truthy(out:find("\ncpu%s+[%d.]+%s+[%d.]+%s+[%d.]+"), out)
  end)
  it("fails when the command fails", function()
    local _, err, rc = luajit { H.root .. "/bench/runstat.lua", "-n", "1", "--warmup", "0", "--", H.exe, "/nonexistent.lua" }
    assert.are.equal(1, rc)
    assert.truthy(err:find("exited with status 1", 1, true), err)
  end)
end)

describe("bench/startup.sh", function()
  local function startup(args)
    local parts = { "BUILD=" .. H.shq(H.build), H.shq(H.root .. "/bench/startup.sh") }
    for _, a in ipairs(args) do parts[#parts + 1] = H.shq(a) end
    return H.sh(table.concat(parts, " "))
  end
  it("times a kernel script", function()
    local out, err, rc = startup { "-n", "2", H.root .. "/kernels/vector_add.lua" }
    assert.are.equal(0, rc, err)
    assert.truthy(out:find("kernels/vector_add.lua --print-ptx", 1, true), out)
    assert.truthy(out:find("\nwall%s+[%d.]+"), out)
    assert.truthy(out:find("\ncpu%s+[%d.]+"), out)
  end)
  it("measures kernels/gemm.lua by default, and says so when it is missing", function()
    local out, err, rc = startup { "-n", "2" }
    if H.read(H.root .. "/kernels/gemm.lua") then
      assert.are.equal(0, rc, err)
      assert.truthy(out:find("kernels/gemm.lua --print-ptx", 1, true), out)
    else
      assert.are.equal(1, rc)
      assert.truthy(err:find("kernels/gemm.lua does not exist", 1, true), err)
      assert.truthy(out:find("kernels/vector_add.lua --print-ptx", 1, true), out)
    end
  end)
end)

describe("bench/callgrind.sh", function()
  it("counts machine instructions per PTX instruction", function()
    local _, _, has = H.sh("command -v valgrind")
    if has ~= 0 then H.pending("valgrind not found (an optional tool: apt-get install valgrind)"); return end
    local cache = H.read(H.build .. "/CMakeCache.txt") or ""
    if cache:find("PTXLUA_SANITIZE:BOOL=ON", 1, true) or (os.getenv("LD_PRELOAD") or ""):find("asan", 1, true) then
      H.pending("valgrind cannot run a build with AddressSanitizer")
      return
    end
    local out, err, rc = H.sh("BUILD=" .. H.shq(H.build) .. " " .. H.shq(H.root .. "/bench/callgrind.sh") .. " 300")
    assert.are.equal(0, rc, err)
    assert.truthy(out:find("Ir/insn", 1, true), out)
    assert.truthy(out:find("\n%s+300%s+%d+%s+%d+%s+%d+"), out)
  end)
end)

describe("bench/emu_throughput.lua", function()
  it("runs every case in the emulator and prints its table", function()
    local out, err, rc = H.sh("cd " .. H.shq(H.root) .. " && luajit bench/emu_throughput.lua --build " .. H.shq(H.build) .. " --quick --runs 1")
    assert.are.equal(0, rc, err)
    for _, name in ipairs { "vector_add", "rmsnorm", "softmax", "gemm" } do
      assert.truthy(out:find("\n" .. name, 1, true) or out:find("^" .. name), name .. " missing:\n" .. out)
    end
    assert.truthy(out:find("M/s", 1, true), out)
  end)
end)

describe("bench/emu_tc.lua", function()
  it("runs the tensor-core GEMMs (checked against a reference) and prints GFLOP/s", function()
    local out, err, rc = H.sh("cd " .. H.shq(H.root) .. " && luajit bench/emu_tc.lua --build " .. H.shq(H.build) .. " --quick")
    assert.are.equal(0, rc, err)
    for _, name in ipairs { "wgmma-quick", "mma-quick", "tcgen05-quick" } do
      assert.truthy(out:find("\n" .. name:gsub("%-", "%%-") .. "%s+build%s+%d+x%d+x%d+%s+[%d.]+"), name .. " missing:\n" .. out)
    end
    assert.truthy(out:find("GFLOP/s", 1, true), out)
  end)
  it("fails on a case it does not know", function()
    local _, err, rc = H.sh("cd " .. H.shq(H.root) .. " && luajit bench/emu_tc.lua --build " .. H.shq(H.build) .. " --cases nosuch")
    assert.are_not.equal(0, rc)
    assert.truthy(err:find("no case nosuch", 1, true), err)
  end)
end)

describe("bench/fma_unrolled.lua", function()
  it("traces NINSN scalar fma instructions that ptxas accepts", function()
    local out, err, rc = H.sh("NINSN=640 " .. H.shq(H.exe) .. " " .. H.shq(H.root .. "/bench/fma_unrolled.lua") .. " --print-ptx")
    assert.are.equal(0, rc, err)
    local n = select(2, out:gsub("fma%.rn%.f32", ""))
    assert.are.equal(640, n)
    local ok, report = H.assemble(out, "sm_90a")
    if ok ~= nil then assert.is_true(ok, report) end
  end)
end)

describe("bench/parse_throughput.sh", function()
  it("builds the parse bench and prints parse / transpile / round-trip figures at a tiny size", function()
    local out, err, rc = H.sh("BUILD=" .. H.shq(H.build) .. " " .. H.shq(H.root .. "/bench/parse_throughput.sh") .. " -n 1 -s 0.05 -r 1")
    assert.are.equal(0, rc, err)
    assert.truthy(out:find("parse MB/s", 1, true), out)
    assert.truthy(out:find("synthetic", 1, true), out)
    assert.falsy(out:find("DIFFERS", 1, true), out)
  end)
end)

describe("bench/lint_report.lua", function()
  it("times --lint on a file of rejected statements and prints the report's size", function()
    local out, err, rc = H.sh("cd " .. H.shq(H.root) .. " && luajit bench/lint_report.lua --build " .. H.shq(H.build) .. " --stmts 500 --runs 1")
    assert.are.equal(0, rc, err)
    assert.truthy(out:find("lint_report: .*500 statements .*CPU [%d.]+ s.*report %d+ bytes, 33 error lines"), out)
  end)
end)

describe("bench/sugar_speed.lua", function()
  it("builds a stand-in with nvcc and prints plain / sugar / run-script figures at a tiny size", function()
    local _, _, nrc = H.sh("command -v nvcc || test -x /usr/local/cuda/bin/nvcc")
    if nrc ~= 0 then
      assert(not H.ci, "nvcc is required under CI=true")
      return H.pending("nvcc is not installed")
    end
    local dir = H.tmpdir()
    local out, err, rc = luajit { H.root .. "/bench/sugar_speed.lua", "--build", H.build, "--sizes", "0.05", "--flavors", "plain",
                                 "--runs", "1", "--dir", dir }
    assert(rc == 0, err)
    assert.truthy(out:find("| file | MB | plain | sugar | sugar/plain | run script | kept verbatim | round trip |", 1, true), out)
    assert.truthy(out:find("| standin_plain_0.05mb.ptx |", 1, true), out)
    assert.truthy(out:find("| identical |", 1, true), out)
  end)
end)

describe("bench/ptx_scale.lua", function()
  it("generates bench/ptx_shapes.lua's shapes and prints the lint / plain / sugar table with its checks", function()
    local dir = H.tmpfile(".d")
    local out, err, rc = luajit { H.root .. "/bench/ptx_scale.lua", "--build", H.build, "--shapes", "kernels,regs", "--mb", "0.02",
                                 "--steps", "2", "--runs", "1", "--only", "lint,plain,sugar", "--dir", dir }
    assert(rc == 0, out .. err)
    assert.truthy(out:find("| shape | MB | lint | plain | sugar | sugar/plain |", 1, true), out)
    assert.truthy(out:find("\n| kernels | 0.0 | [%d.]+ | [%d.]+ | [%d.]+ | [%d.]+x | %- | %- | %- | %- | ok, kept %d+ |"), out)
    assert.truthy(out:find("\n| regs | 0.0 | ", 1, true), out)
    assert.truthy(out:find("0 failed checks, 0 superlinear series", 1, true), out)
  end)
end)
