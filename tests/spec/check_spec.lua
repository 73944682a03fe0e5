-- check_spec.lua -- `ptxlua FILE.lua --check`: assembling (nvJitLink or ptxas), the resource report,
-- errors mapped to the script's lines, --json, --max-spills, and the cubin cache.
-- Needs the CUDA toolkit: pending without one, a failure under CI=true.
local H = require "helper"

local toolkit = H.toolkit

local CACHE = H.tmpdir() .. "/cache"
local function run(args, env)
  local parts = { "PTXLUA_CACHE_DIR=" .. H.shq(env and env.cache or CACHE) }
  if env and env.assembler then parts[#parts + 1] = "PTXLUA_ASSEMBLER=" .. env.assembler end
  parts[#parts + 1] = H.shq(H.exe)
  for _, a in ipairs(args) do parts[#parts + 1] = H.shq(a) end
  return H.sh(table.concat(parts, " "))
end

-- what only the assembler knows: a register budget (maxnreg) too small for one instruction, whose
-- message names the PTX line in its text ("... instruction at line 18 in function bad")
local BAD = [[
local ptx = require "ptxlua"
ptx.kernel {
  name = "bad",
  maxnreg = 24,
  body = function(t)
    local d, a, b = ptx.regs.f32(128), ptx.reg.b64(), ptx.reg.b64()
    ptx.wgmma.mma_async.sync.aligned.m64n256k16.f32.bf16.bf16(d, a, b, ptx.pred(), 1, 1, 0, 0)
    ptx.ret()
  end,
}
]]
local BIG = [[
local ptx = require "ptxlua"
ptx.kernel {
  name = "big",
  params = { {"n", "u32"} },
  body = function(t, n)
    -- a module-scope array (ptx.shared's own are held to the target's limit at their line, so
    -- the function-level error comes from ptxas only this way)
    ptx._current().mod:var("shared", "tile", "f32", 4, 100000, nil, "", true)
    local s = ptx.sym "tile"
    local r = ptx.reg.u32()
    ptx.mov.u32(r, s)
    ptx.st.shared.f32(ptx.addr(s), ptx.f32(1))
    ptx.ret()
  end,
}
]]

describe("ptxlua --check", function()
  for _, name in ipairs { "vector_add", "rmsnorm", "softmax", "layernorm", "swiglu", "gemm_mma", "gemm", "flash_attention", "grouped_gemm", "rmsnorm_tma", "layernorm_tma",
                         "gemm_sm100", "gemm_fp8_sm100", "grouped_gemm_sm100" } do
    it("reports " .. name .. " with its figures and no spills", function()
      if not toolkit() then return end
      local out, err, rc = run { H.root .. "/kernels/" .. name .. ".lua", "--check", "--max-spills", "0" }
      assert.are.equal(0, rc, err)
      assert.truthy(out:match("^assembled for sm_%w+ by "), out)
      assert.truthy(out:match("\nkernel%s+regs%s+smem static%s+smem dynamic%s+stack%s+spill st%s+spill ld%s+warnings\n"), out)
      local regs, st, ld = out:match("\n" .. name .. "%s+(%d+)%s+%d+%s+%d+%s+%d+%s+(%d+)%s+(%d+)%s+%d+\n")
      assert.truthy(regs, out)
      assert.is_true(tonumber(regs) > 0)
      assert.are.equal(0, tonumber(st) + tonumber(ld))
    end)
  end

  it("maps a ptxas error on a PTX line to the script's line", function()
    if not toolkit() then return end
    local f = H.write(H.tmpfile(".lua"), BAD)
    for _, asm in ipairs { "nvjitlink", "ptxas" } do
      local out, err, rc = run({ f, "--check", "--no-cache" }, { assembler = asm })
      assert.are.equal(1, rc, asm)
      assert.truthy(err:find(f .. ":7: error: (C7602) Insufficient registers (24) to compile instruction at line ", 1, true), asm .. ": " .. err)
      assert.truthy(err:find("(PTX line %d+)"), asm .. ": " .. err)
      -- the report says the assembly failed (not "assembled for"), each message once
      assert.truthy(out:match("^rejected for sm_%w+ by "), asm .. ": " .. out)
      local _, n = err:gsub("Insufficient registers", "")
      assert.are.equal(1, n, asm .. ": " .. err)
    end
  end)

  it("reports an error the assembler repeats (one per operand) once", function()
    if not toolkit() then return end
    -- PTX read as written (not validated by the DSL): mma's A and B fragments must be .b32
    local ptx = H.write(H.tmpfile(".ptx"), table.concat({
      ".version 8.0", ".target sm_90a", ".address_size 64", ".visible .entry k()", "{", "\t.reg .f32 %f<12>;",
      "\tmma.sync.aligned.m16n8k8.row.col.f32.tf32.tf32.f32 {%f1, %f2, %f3, %f4}, {%f5, %f6, %f7, %f8}, {%f9, %f10}, {%f1, %f2, %f3, %f4};",
      "\tret;", "}", "" }, "\n"))
    local f = H.tmpfile(".lua")
    local _, e0, rc0 = run { "--from-ptx", ptx, "-o", f }
    assert.are.equal(0, rc0, e0)
    for _, asm in ipairs { "nvjitlink", "ptxas" } do
      local out, err, rc = run({ f, "--check", "--no-cache" }, { assembler = asm })
      assert.are.equal(1, rc, asm)
      assert.truthy(out:match("^rejected for sm_90a by "), asm .. ": " .. out)
      local _, n = err:gsub("error: Arguments mismatch for instruction 'mma' %(PTX line 7%)", "")
      assert.are.equal(1, n, asm .. ": " .. err)
    end
  end)

  it("maps a function-level error to the kernel's definition", function()
    if not toolkit() then return end
    local f = H.write(H.tmpfile(".lua"), BIG)
    local out, err, rc = run { f, "--check" }
    assert.are.equal(1, rc)
    assert.truthy(err:find(f .. ":2: error: Entry function 'big' uses too much shared data", 1, true), err)
    assert.truthy(out:match("\nbig%s+%d+%s+%d+%s"), out)
  end)

  it("--json parses and carries the figures and the mapped diagnostics", function()
    if not toolkit() then return end
    local f = H.write(H.tmpfile(".lua"), BAD)
    local out, _, rc = run { f, "--check", "--json" }
    assert.are.equal(1, rc)
    -- JSON to a Lua table by a tiny rewrite (the report holds no ':' or brackets inside strings but these)
    local lua = out:gsub('"([%w_]+)":', '["%1"]='):gsub("%[%s*{", "{{"):gsub("}%s*%]", "}}"):gsub("%[%]", "{}"):gsub(": null", "=nil"):gsub("null", "nil")
    local t = assert(loadstring("return " .. lua))()
    assert.are.equal(false, t.ok)
    assert.are.equal("sm_90a", t.target)
    assert.are.equal("error", t.diagnostics[1].severity)
    assert.are.equal(7, t.diagnostics[1].line)
    assert.are.equal(17, t.diagnostics[1].ptx_line)
    local out2, _, rc2 = run { H.root .. "/kernels/vector_add.lua", "--check", "--json" }
    assert.are.equal(0, rc2)
    assert.truthy(out2:match('"name": "vector_add", "registers": %d+'), out2)
    assert.truthy(out2:match('"spill_stores": 0, "spill_loads": 0'), out2)
  end)

  it("--max-spills gates on spill bytes", function()
    if not toolkit() then return end
    -- a kernel that spills: a maxnreg too small for what stays live
    local src = H.write(H.tmpfile(".lua"), [[
local ptx = require "ptxlua"
ptx.kernel {
  name = "spill", maxnreg = 24,
  params = { {"x", "f32*"} },
  body = function(t, x)
    local p = ptx.global_ptrs(x)
    local v = {}
    for i = 1, 64 do v[i] = ptx.reg.f32(); ptx.ld.global.f32(v[i], ptx.addr(p, 4 * i)) end
    local s = ptx.reg.f32()
    ptx.mov.f32(s, 0)
    for i = 1, 64 do ptx.fma.rn.f32(s, s, v[i], v[65 - i]) end
    ptx.st.global.f32(ptx.addr(p), s)
    ptx.ret()
  end,
}
]])
    local out, err, rc = run { src, "--check" }
    assert.are.equal(0, rc, err)
    local st, ld = out:match("\nspill%s+%d+%s+%d+%s+%d+%s+%d+%s+(%d+)%s+(%d+)")
    assert.truthy(st, out)
    local spilled = tonumber(st) + tonumber(ld)
    assert.is_true(spilled > 0, out)
    local _, err2, rc2 = run { src, "--check", "--max-spills", "0" }
    assert.are.equal(1, rc2)
    assert.truthy(err2:match("kernel spill spills %d+ bytes"), err2)
    local _, _, rc3 = run { src, "--check", "--max-spills", tostring(spilled) }
    assert.are.equal(0, rc3)
  end)
end)

describe("the cubin cache", function()
  local VA = H.root .. "/kernels/vector_add.lua"

  it("hits on the second run and --no-cache bypasses it", function()
    if not toolkit() then return end
    local cache = H.tmpdir() .. "/c1"
    local out1 = run({ VA, "--check" }, { cache = cache })
    local out2 = run({ VA, "--check" }, { cache = cache })
    local out3 = run({ VA, "--check", "--no-cache" }, { cache = cache })
    assert.falsy(out1:match("%(cached%)"), out1)
    assert.truthy(out2:match("^assembled for sm_90a by .- %(cached%)\n"), out2)
    assert.falsy(out3:match("%(cached%)"), out3)
    assert.are.equal(out1, (out2:gsub(" %(cached%)", "")))
  end)

  it("never serves a truncated or corrupted entry: it is rebuilt", function()
    if not toolkit() then return end
    local cache = H.tmpdir() .. "/c2"
    run({ VA, "--check" }, { cache = cache })
    local name = H.sh("ls " .. H.shq(cache)):match("[%x]+%.cubin")
    assert.truthy(name)
    local path = cache .. "/" .. name
    local good = H.read(path)
    H.write(path, good:sub(1, #good - 100))                       -- truncated
    local out = run({ VA, "--check" }, { cache = cache })
    assert.falsy(out:match("%(cached%)"), out)
    assert.are.equal(good:sub(1, 72), H.read(path):sub(1, 72))    -- rebuilt in place (same magic and key)
    H.write(path, good:sub(1, 200) .. "X" .. good:sub(202))       -- one byte changed
    out = run({ VA, "--check" }, { cache = cache })
    assert.falsy(out:match("%(cached%)"), out)
    H.write(path, "not a cache entry")                             -- foreign
    out = run({ VA, "--check" }, { cache = cache })
    assert.falsy(out:match("%(cached%)"), out)
    out = run({ VA, "--check" }, { cache = cache })
    assert.truthy(out:match("%(cached%)"), out)
  end)

  it("stays valid with several writers at once", function()
    if not toolkit() then return end
    local cache = H.tmpdir() .. "/c3"
    local cmd = {}
    for i = 1, 8 do
      cmd[#cmd + 1] = string.format("PTXLUA_CACHE_DIR=%s %s %s --check --kernel vector_add >/dev/null 2>&1 &", H.shq(cache), H.shq(H.exe), H.shq(VA))
    end
    cmd[#cmd + 1] = "wait"
    H.sh(table.concat(cmd, "\n"))
    local files = H.sh("ls -a " .. H.shq(cache))
    local n = 0
    for f in files:gmatch("[^\n]+") do if f:match("%.cubin$") then n = n + 1 end end
    assert.are.equal(1, n, files)
    assert.falsy(files:match("%.tmp%."), files)                   -- no temporary left behind
    local out = run({ VA, "--check" }, { cache = cache })
    assert.truthy(out:match("%(cached%)"), out)
  end)

  it("--clear-cache empties it", function()
    if not toolkit() then return end
    local cache = H.tmpdir() .. "/c4"
    run({ VA, "--check" }, { cache = cache })
    local out, _, rc = run({ "--clear-cache" }, { cache = cache })
    assert.are.equal(0, rc)
    assert.truthy(out:match("^removed 1 cache entry from "), out)
    assert.falsy(H.sh("ls " .. H.shq(cache)):match("%.cubin"))
  end)
end)

describe("ptxlua --doctor", function()
  it("says what holds and why not, in one screen", function()
    local out, _, rc = H.ptxlua { "--doctor" }
    assert.are.equal(0, rc)
    for _, what in ipairs { "ptxas runs", "nvJitLink loads", "toolkit found", "libcuda loads", "cuInit", "device count", "compute capability" } do
      assert.truthy(out:find(what, 1, true), what .. " missing in:\n" .. out)
    end
    local _, nl = out:gsub("\n", "")
    assert.is_true(nl <= 24, out)
  end)
end)
