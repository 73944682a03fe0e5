-- parse_spec.lua -- PTX in: the parser's byte-identical round trip through a Lua script
-- (ptxlua --from-ptx, then ptxlua OUT.lua --print-ptx), the linter against ptxas's verdicts,
-- error positions, --diff. The corpus (../shared/corpus) and nvcc are used when present.
local H = require "helper"

local CORPUS = H.root .. "/../shared/corpus/pyptx"
local function have_corpus() return H.read(CORPUS .. "/PTXAS-VERDICTS.tsv") ~= nil end

-- round trip one PTX file; returns true or false, why
local function roundtrip(path)
  local lua = H.tmpfile(".lua")
  local _, err, rc = H.ptxlua { "--from-ptx", path, "-o", lua }
  if rc ~= 0 then return false, "from-ptx: " .. err end
  local out, err2, rc2 = H.ptxlua { lua, "--print-ptx" }
  if rc2 ~= 0 then return false, "script: " .. err2 end
  if out ~= H.read(path) then return false, "differs" end
  return true
end

local function verdicts()
  local t = {}
  for line in H.read(CORPUS .. "/PTXAS-VERDICTS.tsv"):gmatch("[^\n]+") do
    if line:sub(1, 1) ~= "#" then
      local f, target, rc, msg = line:match("^([^\t]*)\t([^\t]*)\t([^\t]*)\t?(.*)$")
      if f then t[#t + 1] = { file = f, rc = tonumber(rc), msg = msg } end
    end
  end
  return t
end

describe("PTX round trip", function()
  it("reprints every corpus file byte for byte through a Lua script", function()
    if not have_corpus() then return H.pending("the corpus is absent (../shared/corpus)") end
    local n, bad = 0, {}
    for _, v in ipairs(verdicts()) do
      local ok, why = roundtrip(CORPUS .. "/" .. v.file)
      n = n + 1
      if not ok then bad[#bad + 1] = v.file .. ": " .. why end
    end
    assert.are.equal(219, n)
    assert.are.same({}, bad)
  end)

  it("keeps a multi-kernel file whole, each kernel registered under its own name", function()
    local ptx = H.write(H.tmpfile(".ptx"), table.concat({
      "//\n// two kernels\n//\n\n.version 8.0\n.target sm_90a\n.address_size 64\n\n",
      "\t// .globl\ta\n.visible .entry a(\n\t.param .u64 a_param_0\n)\n{\n\t.reg .b32 %r<2>;\n\tmov.u32 %r1, %tid.x;\n\tret;\n}\n",
      "\n.visible .entry b()\n{\n\tret;\n}\n" }))
    assert.is_true(roundtrip(ptx))
    local lua = H.tmpfile(".lua")
    H.ptxlua { "--from-ptx", ptx, "-o", lua }
    local text = H.read(lua)
    assert.truthy(text:find('m:func("a", "entry")', 1, true))
    assert.truthy(text:find('m:func("b", "entry")', 1, true))
  end)

  it("round-trips the PTX of the project's own kernels", function()
    local out = H.sh("ls " .. H.shq(H.root .. "/kernels") .. "/*.lua 2>/dev/null")
    local n = 0
    for k in out:gmatch("[^\n]+") do
      local ptx, _, rc = H.ptxlua { k, "--print-ptx" }
      if rc == 0 and #ptx > 0 then
        local p = H.write(H.tmpfile(".ptx"), ptx)
        local ok, why = roundtrip(p)
        assert(ok, k .. ": " .. tostring(why))
        local _, lerr, lrc = H.ptxlua { "--lint", p }
        assert(lrc == 0, k .. ": lint: " .. lerr)
        n = n + 1
      end
    end
    if n == 0 then return H.pending("no kernel in kernels/ printed PTX") end
  end)

  it("round-trips nvcc -ptx output (SIMT, mma.sync, calls, printf, -G) and ptxas takes the result", function()
    local _, _, rc = H.sh("command -v nvcc")
    if rc ~= 0 then
      assert(not H.ci, "nvcc is required under CI=true")
      return H.pending("nvcc is not installed")
    end
    local cases = {
      { "simt.cu", "sm_90a", "" }, { "mma.cu", "sm_80", "" }, { "calls.cu", "sm_90a", "" }, { "calls.cu", "sm_90a", "-G" },
    }
    for _, c in ipairs(cases) do
      local ptx = H.tmpfile(".ptx")
      local _, err, nrc = H.sh(string.format("env -u LD_PRELOAD nvcc -ptx %s -arch=%s %s -o %s", c[3], c[2], H.shq(H.root .. "/tests/cuda/" .. c[1]), ptx))
      assert(nrc == 0, c[1] .. ": nvcc: " .. err)
      local ok, why = roundtrip(ptx)
      assert(ok, c[1] .. " " .. c[3] .. ": " .. tostring(why))
      local _, lerr, lrc = H.ptxlua { "--lint", ptx }
      assert(lrc == 0, c[1] .. ": lint: " .. lerr)
      if H.ptxas_path() then
        local lua = H.tmpfile(".lua")
        H.ptxlua { "--from-ptx", ptx, "-o", lua }
        local back = H.ptxlua { lua, "--print-ptx" }
        local aok, aout = H.assemble(back, c[2])
        assert(aok, c[1] .. ": ptxas: " .. tostring(aout))
      end
    end
  end)
end)

describe("the Lua script", function()
  it("holds one statement per call and reports an edited statement that no longer parses at its script line", function()
    local ptx = H.write(H.tmpfile(".ptx"), ".version 8.0\n.target sm_90a\n.address_size 64\n\n.visible .entry k()\n{\n\tret;\n}\n")
    local lua = H.tmpfile(".lua")
    H.ptxlua { "--from-ptx", ptx, "-o", lua }
    local text = H.read(lua)
    assert.truthy(text:find('m "\\tret;\\n"', 1, true))
    local broken = H.write(H.tmpfile(".lua"), (text:gsub('m "\\tret;\\n"', 'm "\\tret\\n"')))
    local lineno = 0
    for l in H.read(broken):gmatch("([^\n]*)\n") do lineno = lineno + 1; if l == 'm "\\tret\\n"' then break end end
    local _, err, rc = H.ptxlua { broken, "--print-ptx" }
    assert.are.equal(1, rc)
    assert.truthy(err:find(broken .. ":" .. lineno .. ": error: expected ';'", 1, true), err)
  end)

  it("--sugar says it is not there yet instead of writing a wrong script", function()
    local ptx = H.write(H.tmpfile(".ptx"), ".version 8.0\n.target sm_90a\n")
    local _, err, rc = H.ptxlua { "--from-ptx", ptx, "--sugar" }
    assert.are.equal(2, rc)
    assert.truthy(err:find("not implemented", 1, true))
  end)
end)

describe("parse errors", function()
  it("are file:line:col: error: message", function()
    local ptx = H.write(H.tmpfile(".ptx"), ".version 8.0\n.target sm_90a\n.entry k()\n{\n\tmov.u32 %r1, 1\n}\n")
    local _, err, rc = H.ptxlua { "--lint", ptx }
    assert.are.equal(1, rc)
    assert.truthy(err:find(ptx .. ":6:1: error: expected ';' before '}'", 1, true), err)
  end)
end)

describe("ptxlua --lint", function()
  it("reports undeclared registers and parameters, unknown modifiers and targets at line:col", function()
    local ptx = H.write(H.tmpfile(".ptx"), table.concat({
      ".version 8.0\n.target sm_90a\n.address_size 64\n\n.visible .entry k(\n\t.param .u64 p\n)\n{\n",
      "\t.reg .b32 %r<3>;\n\t.reg .b64 %rd<2>;\n",
      "\tld.param.u64 %rd1, [q];\n",          -- 11: undeclared parameter
      "\tadd.s32 %r1, %r9x, 1;\n",             -- 12: undeclared register
      "\tadd.s33 %r1, %r2, 1;\n",              -- 13: no such type
      "\tret;\n}\n" }))
    local _, err, rc = H.ptxlua { "--lint", ptx }
    assert.are.equal(1, rc)
    assert.truthy(err:find(ptx .. ":11:2: error: 'q' is not declared", 1, true), err)
    assert.truthy(err:find(ptx .. ":12:2: error: '%r9x' is not a declared register", 1, true), err)
    assert.truthy(err:find(ptx .. ":13:2: error:", 1, true), err)
  end)

  it("agrees with ptxas on at least 98% of the corpus (the disagreements are listed in docs/transpiler.md)", function()
    if not have_corpus() then return H.pending("the corpus is absent (../shared/corpus)") end
    local agree, n, dis = 0, 0, {}
    for _, v in ipairs(verdicts()) do
      local _, _, rc = H.ptxlua { "--lint", CORPUS .. "/" .. v.file }
      n = n + 1
      if (rc == 0) == (v.rc == 0) then agree = agree + 1 else dis[#dis + 1] = v.file end
    end
    print(string.format("lint agreement with ptxas: %d of %d (%.1f%%); disagreements: %s", agree, n, 100 * agree / n, table.concat(dis, ", ")))
    assert.is_true(agree / n >= 0.98, table.concat(dis, "\n"))
  end)
end)

describe("ptxlua --diff", function()
  it("aligns instructions by the IR: formatting and comments do not count, a changed operand does", function()
    local a = H.write(H.tmpfile(".ptx"), ".version 8.0\n.target sm_90a\n.entry k()\n{\n\t.reg .b32 %r<3>;\n\tmov.u32 %r1, 1;\n\tadd.s32 %r2, %r1, 2;\n\tret;\n}\n")
    local b = H.write(H.tmpfile(".ptx"), ".version 8.0\n.target sm_90a\n.entry k()\n{\n\t.reg .b32 %r<3>;\n  mov.u32   %r1, 1; // same\n\tadd.s32 %r2, %r1, 3;\n\tret;\n}\n")
    local same, _, rc0 = H.ptxlua { "--diff", a, a }
    assert.are.equal(0, rc0)
    assert.are.equal("", same)
    local out, _, rc = H.ptxlua { "--diff", a, b }
    assert.are.equal(1, rc)
    assert.truthy(out:find("-" .. a .. ":7: add.s32 %r2, %r1, 2", 1, true), out)
    assert.truthy(out:find("+" .. b .. ":7: add.s32 %r2, %r1, 3", 1, true), out)
    assert.falsy(out:find("mov.u32", 1, true))
  end)
end)

describe("tests/lint/mutate.lua", function()
  it("makes mutants of the accepted corpus files and reports lint agreement with ptxas (a small sample)", function()
    if not have_corpus() then pending("corpus absent: " .. CORPUS) return end
    local out, err, rc = H.sh("cd " .. H.shq(H.root) .. " && luajit tests/lint/mutate.lua --build " .. H.shq(H.build) .. " --count 4")
    assert.are.equal(0, rc, err)
    if out:find("no ptxas", 1, true) then pending("no ptxas") return end
    assert.truthy(out:find("mutants: 4 from %d+ accepted files; agreement %d+ of 4"), out)
  end)
end)
