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
    local ptx = H.write(H.tmpfile(".ptx"), H.fixture "parse/two_kernels.ptx")
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

  it("round-trips nvcc -ptx output (SIMT, mma.sync, calls, printf, -G, wgmma, TMA, mbarrier, clusters, tcgen05) and ptxas takes the result", function()
    local _, _, rc = H.sh("command -v nvcc")
    if rc ~= 0 then
      assert(not H.ci, "nvcc is required under CI=true")
      return H.pending("nvcc is not installed")
    end
    local cases = {
      { "simt.cu", "sm_90a", "" }, { "mma.cu", "sm_80", "" }, { "calls.cu", "sm_90a", "" }, { "calls.cu", "sm_90a", "-G" },
      -- the Hopper and Blackwell families: each file's PTX must hold the instructions it was written for
      { "wgmma.cu", "sm_90a", "", { "wgmma.fence.sync.aligned", "wgmma.mma_async.sync.aligned.m64n8k16.f32.f16.f16", "wgmma.wait_group.sync.aligned" } },
      { "tma.cu", "sm_90a", "", { "cp.async.bulk.tensor.2d.shared::cluster.global.tile.mbarrier::complete_tx::bytes",
                                  "cp.async.bulk.tensor.2d.global.shared::cta.tile.bulk_group", "prefetch.tensormap" } },
      { "mbarrier.cu", "sm_90a", "", { "mbarrier.init.shared::cta.b64", "mbarrier.try_wait.parity.acquire.cta.shared::cta.b64",
                                       "mbarrier.expect_tx", "mbarrier.inval" } },
      { "clusters.cu", "sm_90a", "", { "%cluster_ctarank", "mapa.shared::cluster.u32", "barrier.cluster.wait.acquire.aligned", "elect.sync" } },
      { "tcgen05.cu", "sm_100a", "", { "tcgen05.alloc.cta_group::1", "tcgen05.mma.cta_group::1.kind::f16", "tcgen05.commit.cta_group::1",
                                       "tcgen05.ld.sync.aligned.32x32b.x4.b32", "tcgen05.ld.sync.aligned.16x128b.x1.b32", "tcgen05.st.sync.aligned",
                                       "tcgen05.cp.cta_group::1.128x256b", "tcgen05.shift.cta_group::1.down", "tcgen05.dealloc" } },
    }
    for _, c in ipairs(cases) do
      local ptx = H.tmpfile(".ptx")
      local _, err, nrc = H.sh(string.format("env -u LD_PRELOAD nvcc -ptx %s -arch=%s %s -o %s", c[3], c[2], H.shq(H.root .. "/tests/cuda/" .. c[1]), ptx))
      assert(nrc == 0, c[1] .. ": nvcc: " .. err)
      for _, want in ipairs(c[4] or {}) do
        assert(H.read(ptx):find(want, 1, true), c[1] .. ": the PTX has no " .. want)
      end
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

  -- an edited statement that breaks the parse is reported at the script line holding it, in plain
  -- and --sugar scripts alike: an error inside a statement names that statement (not the one
  -- before it, though the error is on the line where that one ends); a missing ';' names the
  -- statement that lacks it, and so does an error in what such a statement ran on into
  local SRC = ".version 8.0\n.target sm_90a\n.address_size 64\n.visible .entry k()\n{\n\t.reg .b32 %r<4>;\n\tmov.b32 %r1, 1;\n\tret;\n}\n"
  local BREAKS = {
    { "an error inside a statement", '.reg .b32 %r<4>;', '.reg .zz %r<4>;', '.reg', "a register declaration needs a type" },
    { "a missing ';' before '}'", 'ret;', 'ret', 'ret', "expected ';' before '}'",
      sugar = { 'ptx.ret()', 'sugar.text "\\tret\\n"', 'sugar.text' } },
    { "a statement that runs on into the next", '.reg .b32 %r<4>;', '.reg .b32 %r<4>', '.reg', "bad register name (in the statement that starts on line 6)" },
  }
  for _, sugared in ipairs { false, true } do
    for _, b in ipairs(BREAKS) do
      it((sugared and "--sugar: " or "") .. b[1] .. " is reported at the line of the statement in error", function()
        local ptx = H.write(H.tmpfile(".ptx"), SRC)
        local lua = H.tmpfile(".lua")
        local _, e0, rc0 = H.ptxlua { "--from-ptx", ptx, "-o", lua, sugared and "--sugar" or nil }
        assert.are.equal(0, rc0, e0)
        local from, to, marker = b[2], b[3], b[4]
        if sugared and b.sugar then from, to, marker = b.sugar[1], b.sugar[2], b.sugar[3] end
        local text, n = H.read(lua):gsub(from:gsub("%p", "%%%0"), (to:gsub("%%", "%%%%")), 1)
        assert.are.equal(1, n)
        local broken = H.write(H.tmpfile(".lua"), text)
        local want = 0
        local lineno = 0
        for l in text:gmatch("([^\n]*)\n") do
          lineno = lineno + 1
          if want == 0 and l:find(marker, 1, true) and not l:find("^%s*%-%-") then want = lineno end
        end
        assert.is_true(want > 0)
        local _, err, rc = H.ptxlua { broken, "--print-ptx" }
        assert.are.equal(1, rc)
        assert.truthy(err:find(broken .. ":" .. want .. ": error: ", 1, true), err)
        assert.truthy(err:find(b[5], 1, true), err)
      end)
    end
  end

  it("--sugar writes a script that prints the file back too (tests/spec/sugar_spec.lua has the rest)", function()
    local ptx = H.write(H.tmpfile(".ptx"), ".version 8.0\n.target sm_90a\n")
    local lua = H.tmpfile(".lua")
    local _, err, rc = H.ptxlua { "--from-ptx", ptx, "--sugar", "-o", lua }
    assert.are.equal(0, rc, err)
    assert.are.equal(H.read(ptx), (H.ptxlua { lua, "--print-ptx" }))
  end)
end)

describe("parse errors", function()
  it("are file:line:col: error: message", function()
    local ptx = H.write(H.tmpfile(".ptx"), ".version 8.0\n.target sm_90a\n.entry k()\n{\n\tmov.u32 %r1, 1\n}\n")
    local _, err, rc = H.ptxlua { "--lint", ptx }
    assert.are.equal(1, rc)
    assert.truthy(err:find(ptx .. ":5:16: error: expected ';' before '}'", 1, true), err)
  end)
end)

describe("ptxlua --lint", function()
  it("reports undeclared registers and parameters, unknown modifiers and targets at line:col", function()
    -- line 11: an undeclared parameter; 12: an undeclared register; 13: no such type
    local ptx = H.write(H.tmpfile(".ptx"), H.fixture "lint/undeclared.ptx")
    local _, err, rc = H.ptxlua { "--lint", ptx }
    assert.are.equal(1, rc)
    assert.truthy(err:find(ptx .. ":11:2: error: 'q' is not declared", 1, true), err)
    assert.truthy(err:find(ptx .. ":12:2: error: '%r9x' is not a declared register", 1, true), err)
    assert.truthy(err:find(ptx .. ":13:2: error:", 1, true), err)
  end)

  -- each line alone in a kernel: ptxas rejects it, and the linter says where and what would be legal
  local LINT_HEAD = ".version 8.6\n.target %s\n.address_size 64\n.global .u32 gv;\n.const .u32 cv;\n" ..
    ".visible .entry k(.param .u64 p)\n{\n\t.reg .b64 %%rd<4>;\n\t.reg .b32 %%r<8>;\n\t.reg .f32 %%f<4>;\n\t.reg .pred %%p<3>;\n\t.local .u32 lv;\n"
  local function lint_case(body, target)
    return H.write(H.tmpfile(".ptx"), LINT_HEAD:format(target or "sm_90a") .. body .. "\tret;\n}\n")
  end
  local BAD = {
    { "\tld.global.u32 %r1, [16];\n", "legal only in the .local state space" },
    { "\tld.u32 %r1, [cv];\n", "state space mismatch: 'cv' is in .const" },
    { "\tld.local.u32 %r1, [p];\n", "'p' is in .param, but this address of 'ld.local.u32' is in .local" },
    { "\tst.param.u64 [p], %rd1;\n", "'p' is an input parameter" },
    { "\tadd.u32 %r1, %tid.x, 1;\n", "read only by mov or cvt" },
    { "\tmov.u64 %rd1, %tid.x;\n", "mov takes one of the register's size" },
    { "\tmov.u32 %r1, %laneid.x;\n", "PTX has %laneid (no component)" },
    { "\tshl.b64 1, %rd1, 3;\n", "operand 1 of 'shl.b64' is its destination" },
    { "\tadd.f32 %f1, %f2, 1;\n", "an integer immediate does not stand for a float" },
    { "\tmov.u32 %r1, 1.5;\n", "a float immediate stands only for a float or for .b64 bits" },
    { "\tshl.x4 %rd1, %rd1, 3;\n", "shl" },
    { "\ttcgen05.ld.sync.aligned.16x128b.x1.b32 {%r1}, [%r2];\n", "expected a vector of 2 registers", "sm_100a" },
    { "\ttcgen05.fence::before_thread_sync;\n", "requires sm_100a, sm_100f, sm_103a, sm_103f, sm_110a or sm_110f (arch- or family-specific; the target is sm_90a)", "sm_90a" },
    { "\twmma.load.a.sync.aligned.row.m16n16k8.shared.tf32 {%r1, %r2, %r3, %r4}, [gv];\n", "state space mismatch" },
  }
  it("rejects operands and spaces ptxas rejects, each at its line:col with what is legal", function()
    for _, c in ipairs(BAD) do
      local ptx = lint_case(c[1], c[3])
      local _, err, rc = H.ptxlua { "--lint", ptx }
      assert(rc == 1, c[1] .. ": lint took it")
      assert(err:find(ptx .. ":13:2: error: ", 1, true), c[1] .. ": " .. err)
      assert(err:find(c[2], 1, true), c[1] .. ": " .. err)
      local ok = H.assemble(H.read(ptx), c[3] or "sm_90a")
      if ok ~= nil then assert(ok == false, c[1] .. ": ptxas takes it") end
    end
  end)

  it("holds a function's tcgen05 instructions to one .cta_group, as ptxas does, naming the first", function()
    local ptx = lint_case("\ttcgen05.shift.cta_group::1.down [%r1];\n\ttcgen05.fence::before_thread_sync;\n" ..
                          "\ttcgen05.shift.cta_group::2.down [%r1];\n", "sm_100a")
    local _, err, rc = H.ptxlua { "--lint", ptx }
    assert(rc == 1, "lint took a function that mixes .cta_group::1 and ::2")
    assert(err:find(ptx .. ":15:2: error: 'tcgen05.shift.cta_group::2.down' uses .cta_group::2, but this function's " ..
                    "tcgen05 instructions use .cta_group::1 (the first at line 13)", 1, true), err)
    local ok = H.assemble(H.read(ptx), "sm_100a")
    if ok ~= nil then assert(ok == false, "ptxas takes it") end
    -- one group throughout, or another function's: legal (a TMA .cta_group is no tcgen05 instruction's)
    local good = lint_case("\ttcgen05.shift.cta_group::2.down [%r1];\n\ttcgen05.shift.cta_group::2.down [%r2];\n" ..
                           "\tcp.async.bulk.tensor.1d.shared::cluster.global.mbarrier::complete_tx::bytes.cta_group::1 [%r1], [%rd1, {%r2}], [%r3];\n", "sm_100a")
    local _, err2, rc2 = H.ptxlua { "--lint", good }
    assert(rc2 == 0, err2)
    local ok2, out2 = H.assemble(H.read(good), "sm_100a")
    if ok2 ~= nil then assert(ok2, out2) end
  end)

  -- the sm_100 forms of PTX 8.6-8.8 (issue 17): linted clean, assembled by ptxas, printed back byte for
  -- byte both as written and as DSL code; and the mistakes around them, refused by both at the line
  it("takes the sm_100 forms of PTX 8.6-8.8 (gather4, scatter4, im2col::w, st.bulk, cp_mask, tcgen05.ld.red, tensormap fields) and prints them back", function()
    local ptx = H.write(H.tmpfile(".ptx"), H.fixture "parse/sm100_forms.ptx")
    local _, err, rc = H.ptxlua { "--lint", ptx }
    assert(rc == 0, err)
    local ok, out = H.assemble(H.read(ptx), "sm_103a")
    if ok ~= nil then assert(ok, out) end
    assert.is_true(roundtrip(ptx))
    local lua = H.tmpfile(".lua")
    local _, e2, rc2 = H.ptxlua { "--from-ptx", ptx, "--sugar", "-o", lua }
    assert(rc2 == 0, e2)
    -- every instruction a DSL call (ptx.op "..." or a chain), none kept as text
    local script = H.read(lua)
    for line in script:gmatch("[^\n]+") do
      if line:find("sugar.text", 1, true) then
        assert.falsy(line:find("cp%.async") or line:find("st%.bulk") or line:find("tcgen05"), line)
      end
    end
    for _, want in ipairs { "tile::gather4", "tile::scatter4", "im2col::w::128", "cp_mask", "st.bulk.weak.shared__cta", "ld.red" } do
      assert.truthy(script:find(want, 1, true), want)
    end
    local back, e3, rc3 = H.ptxlua { lua, "--print-ptx" }
    assert(rc3 == 0, e3)
    assert.are.equal(H.read(ptx), back)
  end)

  local HEAD100 = ".version %s\n.target %s\n.address_size 64\n.shared .align 16 .b8 sv[64];\n.visible .entry k(.param .u64 p)\n{\n" ..
    "\t.reg .b64 %%rd<4>;\n\t.reg .b32 %%r<8>;\n\t.reg .f32 %%f<4>;\n\t.reg .b16 %%rs<4>;\n"
  local BAD100 = {
    { "st.bulk.weak.shared::cta [sv], 8, 0;", "the address must be a register", "sm_100a", "8.6" },
    { "st.bulk.weak.shared::cta [%rd1], 12, 0;", "12 is not a multiple of 8", "sm_100a", "8.6" },
    { "st.bulk [%rd1], 8, 1;", "1 is not 0", "sm_100a", "8.6" },
    { "st.bulk.weak [p], 8, 0;", "'p' is in .param, which a generic address does not reach", "sm_100a", "8.6" },
    { "tcgen05.ld.red.sync.aligned.32x32b.x2.min.f32 {%f1, %f2}, %f3, [%r1];",
      "requires sm_103a, sm_103f, sm_110a or sm_110f (arch- or family-specific; the target is sm_100a)", "sm_100a", "8.8" },
    { "tcgen05.ld.red.sync.aligned.32x32b.x1.min.f32 {%f1}, %f3, [%r1];", "is not a valid form of tcgen05", "sm_103a", "8.8" },
    { "tcgen05.ld.red.sync.aligned.32x32b.x2.add.u32 {%r1, %r2}, %r3, [%r1];", "is not a valid form of tcgen05", "sm_103a", "8.8" },
    { "tcgen05.ld.red.sync.aligned.32x32b.x2.min.u32 {%r1, %r2}, 5, [%r1];", "operand 2 of", "sm_103a", "8.8" },
    { "cp.async.bulk.tensor.2d.shared::cta.global.tile::gather4.mbarrier::complete_tx::bytes [%rd1], [%rd2, {%r1, %r2, %r3, %r4}], [%rd3];",
      "expected 5 tensor coordinates, got 4", "sm_100a", "8.6" },
    { "cp.async.bulk.tensor.3d.shared::cluster.global.im2col::w.mbarrier::complete_tx::bytes [%rd1], [%rd2, {%r1, %r2, %r3}], [%rd3], {%rs1, %rs2};",
      "requires sm_100a, sm_100f, sm_103a, sm_103f, sm_110a or sm_110f", "sm_100", "8.6" },
    { "cp.async.bulk.tensor.3d.shared::cta.global.im2col::w.mbarrier::complete_tx::bytes [%rd1], [%rd2, {%r1, %r2, %r3}], [%rd3], {%rs1};",
      "expected a vector of 2 registers, got 1", "sm_100a", "8.6" },
    { "cp.async.bulk.tensor.2d.global.shared::cta.tile::scatter4.bulk_group [%rd2, {%r1, %r2, %r3, %r4, %r5}], [%rd1];",
      "requires sm_100a, sm_100f", "sm_100", "8.6" },
    { "cp.async.bulk.shared::cta.global.mbarrier::complete_tx::bytes [%rd1], [%rd2], 16, [%rd3];", "requires PTX ISA 8.6", "sm_90a", "8.5" },
    { "cp.async.bulk.global.shared::cta.bulk_group.cp_mask [%rd1], [%rd2], 16, %rs1;", "requires sm_100 or later", "sm_90a", "8.6" },
    { "tensormap.replace.tile.swizzle_atomicity.shared::cta.b1024.b32 [sv], 4;", "4 is out of range (0 to 3)", "sm_100a", "8.6" },
    { "tensormap.replace.tile.swizzle_atomicity.shared::cta.b1024.b32 [sv], 1;", "an arch- or family-specific target from sm_100", "sm_90a", "8.6" },
    { "tensormap.replace.tile.elemtype.shared::cta.b1024.b32 [sv], 13;", "with these operands requires PTX ISA 8.7 (the module declares 8.6)", "sm_100a", "8.6" },
    { "tensormap.replace.tile.swizzle_mode.shared::cta.b1024.b32 [sv], 4;", "requires sm_103a (arch-specific; the target is sm_100f)", "sm_100f", "8.8" },
  }
  -- and each at the least target and version the table gives it (the refusals above are one below)
  local GOOD100 = {
    { "st.bulk.weak.shared::cta [%rd1], 8, 0;", "sm_100", "8.6" },
    { "st.bulk.weak [%r1], %rd1, 0;", "sm_100", "8.6" },
    { "cp.async.bulk.shared::cta.global.mbarrier::complete_tx::bytes [%rd1], [%rd2], 16, [%rd3];", "sm_90", "8.6" },
    { "cp.async.bulk.global.shared::cta.bulk_group.cp_mask [%rd1], [%rd2], 16, %rs1;", "sm_100", "8.6" },
    { "cp.async.bulk.tensor.2d.shared::cta.global.tile::gather4.mbarrier::complete_tx::bytes [%rd1], [%rd2, {%r1, %r2, %r3, %r4, %r5}], [%rd3];", "sm_100", "8.6" },
    { "cp.async.bulk.tensor.2d.shared::cluster.global.tile::gather4.mbarrier::complete_tx::bytes.cta_group::2 [%rd1], [%rd2, {%r1, %r2, %r3, %r4, %r5}], [%rd3];", "sm_100a", "8.6" },
    { "cp.async.bulk.tensor.3d.shared::cta.global.im2col::w.mbarrier::complete_tx::bytes [%rd1], [%rd2, {%r1, %r2, %r3}], [%rd3], {%rs1, %rs2};", "sm_100", "8.6" },
    { "cp.async.bulk.tensor.3d.shared::cta.global.im2col::w.mbarrier::complete_tx::bytes [%rd1], [%rd2, {%r1, %r2, %r3}], [%rd3], {%rs1, %rs2};", "sm_120", "8.7" },
    { "cp.async.bulk.tensor.4d.shared::cta.global.im2col::w::128.mbarrier::complete_tx::bytes [%rd1], [%rd2, {%r1, %r2, %r3, %r4}], [%rd3], {%rs1, %rs2};", "sm_100a", "8.6" },
    { "cp.async.bulk.tensor.2d.global.shared::cta.tile::scatter4.bulk_group [%rd2, {%r1, %r2, %r3, %r4, %r5}], [%rd1];", "sm_100a", "8.6" },
    { "cp.reduce.async.bulk.tensor.2d.global.shared::cta.add.tile::scatter4.bulk_group [%rd2, {%r1, %r2, %r3, %r4, %r5}], [%rd1];", "sm_110f", "9.0" },
    { "cp.async.bulk.prefetch.tensor.5d.L2.global.im2col::w [%rd2, {%r1, %r2, %r3, %r4, %r5}], {%rs1, %rs2};", "sm_100a", "8.6" },
    { "tcgen05.ld.red.sync.aligned.32x32b.x2.min.f32 {%f1, %f2}, %f3, [%r1];", "sm_103a", "8.8" },
    { "tcgen05.ld.red.sync.aligned.16x32bx2.x128.max.s32 {" .. ("%r1, "):rep(127) .. "%r1}, %r2, [%r1], 64;", "sm_110a", "9.0" },
    { "tensormap.replace.tile.swizzle_atomicity.shared::cta.b1024.b32 [sv], 1;", "sm_100a", "8.6" },
    { "tensormap.replace.tile.elemtype.shared::cta.b1024.b32 [sv], 15;", "sm_100a", "8.7" },
    { "tensormap.replace.tile.swizzle_mode.shared::cta.b1024.b32 [sv], 4;", "sm_103a", "8.8" },
  }
  it("takes each sm_100 form of PTX 8.6-8.8 at its least target and version, as ptxas does", function()
    for _, c in ipairs(GOOD100) do
      local ptx = H.write(H.tmpfile(".ptx"), HEAD100:format(c[3], c[2]) .. "\t" .. c[1] .. "\n\tret;\n}\n")
      local _, err, rc = H.ptxlua { "--lint", ptx }
      assert(rc == 0, c[1] .. " on " .. c[2] .. ": " .. err)
      local ok, out = H.assemble(H.read(ptx), c[2])
      if ok ~= nil then assert(ok, c[1] .. " on " .. c[2] .. ": " .. out) end
    end
  end)

  it("refuses what ptxas refuses around the sm_100 forms of PTX 8.6-8.8, at the line", function()
    for _, c in ipairs(BAD100) do
      local ptx = H.write(H.tmpfile(".ptx"), HEAD100:format(c[4], c[3]) .. "\t" .. c[1] .. "\n\tret;\n}\n")
      local _, err, rc = H.ptxlua { "--lint", ptx }
      assert(rc == 1, c[1] .. ": lint took it")
      assert(err:find(ptx .. ":11:2: error: ", 1, true), c[1] .. ": " .. err)
      assert(err:find(c[2], 1, true), c[1] .. ": " .. err)
      local ok = H.assemble(H.read(ptx), c[3])
      if ok ~= nil then assert(ok == false, c[1] .. ": ptxas takes it") end
    end
  end)

  it("takes the legal PTX beside those: float literals, {r} for a scalar, %tid.w, generic and .local addresses, tcgen05", function()
    local ptx = lint_case(table.concat({
      "\tmov.f32 %f1, 0.5;\n", "\tmov.b64 %rd1, 1.0;\n", "\tadd.f32 %f1, %f1, 0f3F800000;\n",
      "\tld.param.u64 %rd2, [p];\n", "\tst.global.b32 [%rd2], {%r1};\n", "\tmov.u32 %r1, %tid.w;\n",
      "\tmov.u32 %r2, %clusterid.w;\n", "\tld.u32 %r3, [gv];\n", "\tld.local.u32 %r3, [8];\n", "\tld.u32 %r4, [lv];\n",
      "\tcvt.u64.u32 %rd3, %tid.x;\n", "\ttcgen05.ld.sync.aligned.16x128b.x1.b32 {%r5, %r6}, [%r2];\n",
      "\ttcgen05.wait::ld.sync.aligned;\n", "\tst.global.f32 [%rd2], %f1;\n" }), "sm_100a")
    local _, err, rc = H.ptxlua { "--lint", ptx }
    assert(rc == 0, err)
    local ok, out = H.assemble(H.read(ptx), "sm_100a")
    if ok ~= nil then assert(ok, out) end
  end)

  it("agrees with ptxas on at least 99% of the corpus (the disagreements are listed in docs/transpiler.md)", function()
    if not have_corpus() then return H.pending("the corpus is absent (../shared/corpus)") end
    local agree, n, dis = 0, 0, {}
    for _, v in ipairs(verdicts()) do
      local _, _, rc = H.ptxlua { "--lint", CORPUS .. "/" .. v.file }
      n = n + 1
      if (rc == 0) == (v.rc == 0) then agree = agree + 1 else dis[#dis + 1] = v.file end
    end
    print(string.format("lint agreement with ptxas: %d of %d (%.1f%%); disagreements: %s", agree, n, 100 * agree / n, table.concat(dis, ", ")))
    assert.is_true(agree / n >= 0.99, table.concat(dis, "\n"))
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
