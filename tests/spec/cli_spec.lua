-- cli_spec.lua -- the ptxlua command: options, exit status (0 ok, 1 an error in the script, 2 bad
-- usage), -o written atomically, --arch, --kernel, -D, --anchors.
local H = require "helper"

local function lit(s) return (s:gsub("[%^%$%(%)%%%.%[%]%*%+%-%?]", "%%%0")) end

-- a script with two kernels; line numbers matter for the anchor tests
local TWO = [[
local ptx = require "ptxlua"
ptx.kernel { name = "first", templates = { N = 4, FAST = false, MODE = "plain" }, body = function(t)
  local a = ptx.reg.u32()
  ptx.add.u32(a, a, t.N)
  if t.FAST then ptx.sub.u32(a, a, 1) end
  if t.MODE == "twice" then ptx.add.u32(a, a, t.N) end
end }
ptx.kernel { name = "second", body = function()
  local a = ptx.reg.f32()
  local b = a * a
  ptx.ret()
end }
]]

local function two() return H.write(H.tmpfile(".lua"), TWO) end

local ndir = 0
local function freshdir()
  ndir = ndir + 1
  local d = string.format("%s/cli%d", H.tmpdir(), ndir)
  assert(os.execute("mkdir -p " .. H.shq(d)))
  return d
end

describe("ptxlua --help and --version", function()
  it("--help prints every option and exits 0", function()
    for _, flag in ipairs { "--help", "-h" } do
      local out, err, rc = H.ptxlua { flag }
      assert.are.equal(0, rc)
      assert.are.equal("", err)
      assert.truthy(out:match("^usage: ptxlua FILE%.lua"), out)
      for _, opt in ipairs { "--print-ptx", "-o FILE", "--arch", "-D NAME=VALUE", "--kernel NAME", "--anchors", "--help", "--version" } do
        assert.truthy(out:find(opt, 1, true), opt .. " missing from --help")
      end
    end
  end)

  it("--version prints the version and exits 0", function()
    local out, _, rc = H.ptxlua { "--version" }
    assert.are.equal(0, rc)
    assert.are.equal("ptxlua " .. require("ptxlua")._VERSION .. "\n", out)
  end)
end)

describe("bad usage exits 2 and prints nothing on stdout", function()
  local path
  before_each(function() path = two() end)
  local CASES = {
    { { "--bogus" }, "unknown option '--bogus'" },
    { { "@", "other.lua" }, "more than one script given ('other.lua')" },
    { { "@", "-o" }, "-o needs a file name" },
    { { "@", "--arch" }, "--arch needs a target" },
    { { "@", "--arch", "sm_999" }, "unknown target 'sm_999'" },
    { { "@", "--arch=bogus" }, "unknown target 'bogus'" },
    { { "@", "-D" }, "-D needs NAME=VALUE" },
    { { "@", "-D", "N" }, "-D expects NAME=VALUE, got 'N'" },
    { { "@", "-D=4" }, "-D expects NAME=VALUE, got '=4'" },
    { { "@", "--kernel" }, "--kernel needs a kernel name" },
    { { "@", "--anchors=lines" }, "--anchors takes comment or loc, got 'lines'" },
    -- a check list: decided by its form, so a misspelt name is reported as a check, not a script
    { { "@", "--emulate", "--check", "races,uninit_regz" }, "unknown check 'uninit_regz' (races, uninit-shared, uninit-regs, all)" },
    { { "--emulate", "--check", "bogus", "@" }, "unknown check 'bogus' (races, uninit-shared, uninit-regs, all)" },
    { { "@", "--emulate", "--check=races,,all" }, "an empty name in the check list 'races,,all'" },
    { { "@", "--emulate", "--check=" }, "--check= needs a list" },
    { { "@", "--check", "races" }, "--check LIST goes with --emulate" },
    { { "@", "--check", "--emulate", "races" }, "more than one script given ('races'): a check list goes right after --check" },
    -- an option's value that is another option, or the script
    { { "@", "-o", "--emulate" }, "-o needs a file name, got '--emulate'" },
    { { "@", "-o", "-" }, "-o needs a file name, got '-'" },
    { { "@", "--arch", "--emulate" }, "--arch needs a target (sm_80, sm_90a, sm_100a, ...), got '--emulate'" },
    { { "@", "--kernel", "--emulate" }, "--kernel needs the name of a kernel the script defines, got '--emulate'" },
    { { "--kernel", "@" }, "--kernel needs the name of a kernel the script defines, got '" },
    { { "-o", "@" }, "no script given ('" },
    { { "@", "-o", "@" }, "that is the script itself; the output is PTX" },
    { { "@", "-o", "out.lua" }, "-o out.lua: a .lua name is a script's; the output is PTX" },
    { { "@", "-o", "a.ptx", "-o", "b.ptx" }, "-o given twice ('a.ptx', then 'b.ptx')" },
    -- a script name that is a value
    { { "@", "N=8" }, "more than one script given ('N=8'): did you mean -D N=8?" },
    { { "N=8", "@" }, "'N=8' is not a script: did you mean -D N=8?" },
    { { "sm_80" }, "'sm_80' is not a script (no such file): did you mean --arch sm_80?" },
    -- -D forms
    { { "@", "-D", "1N=2" }, "-D expects NAME=VALUE with NAME a template's name (letters, digits, '_'), got '1N=2'" },
    { { "@", "-D", "N M=2" }, "got 'N M=2'" },
  }
  for _, c in ipairs(CASES) do
    it(table.concat(c[1], " ") .. " -> " .. c[2], function()
      local args = {}
      for i, a in ipairs(c[1]) do args[i] = a == "@" and path or a end
      local out, err, rc = H.ptxlua(args)
      assert.are.equal(2, rc, err)
      assert.are.equal("", out)
      assert.truthy(err:find(c[2], 1, true), err)
    end)
  end
end)

describe("--emulate --check LIST", function()
  -- a register read before any write (line 8) and, with UNSHARED, a shared read of unwritten bytes
  local CHK = [[
local ptx = require "ptxlua"
ptx.kernel { name = "k", templates = { UNSHARED = false }, params = { {"out", "f32*", shape = {64}} }, block = {64}, grid = {1}, body = function(t, out)
  local po = ptx.global_ptrs(out)
  local i = ptx.special "tid.x"
  local s = ptx.shared("buf", "f32", 64)
  local v, w = ptx.reg.f32(), ptx.reg.f32()
  if t.UNSHARED then ptx.ld.shared.f32(v, ptx.addr(s, 4)) else ptx.mov.f32(v, 1.0) end
  ptx.st.global.f32(ptx.addr(po + i:mul_wide(4)), v + w)
end }
]]
  it("takes the list in either spelling, before or after the script, and turns those checks on", function()
    local p = H.write(H.tmpfile(".lua"), CHK)
    local out, err, rc = H.ptxlua { p, "--emulate" }
    assert.are.equal(0, rc, err)
    assert.truthy(out:find("emulated k: grid (1,1,1) block (64,1,1)", 1, true), out)
    for _, args in ipairs {
      { p, "--emulate", "--check", "uninit_regs" }, { p, "--emulate", "--check", "races,uninit-regs" },
      { "--emulate", "--check", "uninit_regs,races", p }, { p, "--emulate", "--check=all" },
      { "--check", "all", "--emulate", p },
    } do
      out, err, rc = H.ptxlua(args)
      assert.are.equal(1, rc, table.concat(args, " ") .. "\n" .. err)
      assert.truthy(err:match("^" .. lit(p) .. ":8: error: add%.rn%.f32: reads %%f2, which no instruction has written"), err)
    end
    -- races alone does not turn the register check on; uninit_shared names the ld.shared
    out, err, rc = H.ptxlua { p, "--emulate", "--check", "races" }
    assert.are.equal(0, rc, err)
    out, err, rc = H.ptxlua { p, "--emulate", "--check", "uninit_shared", "-D", "UNSHARED=true" }
    assert.are.equal(1, rc, err)
    assert.truthy(err:match("^" .. lit(p) .. ":7: error: ld%.shared%.f32 by thread %(0,0,0%) of CTA %(0,0,0%) reads shared byte 0x4, which no thread has written"), err)
  end)

  it("a -D value that makes a shape no array: an error at the kernel's line naming the template and its source", function()
    local p = H.write(H.tmpfile(".lua"), [[
local ptx = require "ptxlua"
ptx.kernel { name = "k", templates = { M = 5, N = 3 },
  params = { {"inp", "f32*", shape = {"M", "N"}}, {"out", "f32*", shape = {"M*N"}}, {"n", "u32"} },
  grid = {1}, block = {32}, body = function(t, inp, out, n)
  ptx.ret()
end }
]])
    local out, err, rc = H.ptxlua { p, "--emulate" }
    assert.are.equal(0, rc, err)
    assert.truthy(out:find("inp      f32[15]", 1, true), out)
    local CASES = {
      { "M=-1", "parameter 'inp' (shape {M, N}) has an extent 'M' of -1: each must be a positive whole number; M = -1 (-D M=-1)\n" },
      { "M=1.5", "parameter 'inp' (shape {M, N}) has an extent 'M' of 1.5: each must be a positive whole number; M = 1.5 (-D M=1.5)\n" },
      { "M=1e400", "parameter 'inp' (shape {M, N}) has an extent 'M' of inf: each must be a positive whole number; M = inf (-D M=1e400)\n" },
      { "N=0", "parameter 'inp' (shape {M, N}) has an extent 'N' of 0: each must be a positive whole number; N = 0 (-D N=0)\n" },
      { "M=1e12", "parameter 'inp' (shape {M, N}) would have 3000000000000 f32 elements, more memory than the emulator gives a buffer (1 TB); M = 1000000000000 (-D M=1e12), N = 3 (the template's default)\n" },
    }
    for _, c in ipairs(CASES) do
      out, err, rc = H.ptxlua { p, "--emulate", "-D", c[1] }
      assert.are.equal(1, rc, err)
      assert.are.equal("", out)
      assert.truthy(err:find("^" .. lit(p) .. ":2: error: emulate k: " .. lit(c[2]) .. "  ptx%.kernel"), c[1] .. ": " .. err)
    end
    -- an expression entry names every value it read
    local p2 = H.write(H.tmpfile(".lua"), (H.read(p):gsub('shape = {"M", "N"}', 'shape = {"M*N"}')))
    out, err, rc = H.ptxlua { p2, "--emulate", "-D", "M=-5" }
    assert.are.equal(1, rc)
    assert.truthy(err:find("^" .. lit(p2 .. ":2: error: emulate k: parameter 'inp' (shape {M*N}) has an extent 'M*N' of -15: " ..
                           "each must be a positive whole number; M = -5 (-D M=-5), N = 3 (the template's default)\n")), err)
  end)

  it("--check alone (the next word a script or an option) assembles", function()
    local p = H.write(H.tmpfile(".lua"), CHK)
    local out, err, rc = H.ptxlua { "--check", "--max-spills", "0", p }
    if rc == 1 and err:find("cannot assemble", 1, true) then return H.pending("no toolkit: " .. err) end
    assert.are.equal(0, rc, err)
    assert.truthy(out:find("k", 1, true), out)
  end)
end)

describe("output", function()
  it("prints the PTX on stdout by default and with --print-ptx, exit 0", function()
    local path = two()
    local out, err, rc = H.ptxlua { path }
    assert.are.equal(0, rc, err)
    assert.are.equal("", err)
    assert.truthy(out:find(".visible .entry first()", 1, true))
    assert.truthy(out:find(".visible .entry second()", 1, true))
    local out2, _, rc2 = H.ptxlua { path, "--print-ptx" }
    assert.are.equal(0, rc2)
    assert.are.equal(out, out2)
  end)

  it("-o FILE writes the file and nothing to stdout", function()
    local path, dir = two(), freshdir()
    local want = H.ptxlua { path }
    local out, err, rc = H.ptxlua { path, "-o", dir .. "/k.ptx" }
    assert.are.equal(0, rc, err)
    assert.are.equal("", out)
    assert.are.equal(want, H.read(dir .. "/k.ptx"))
    assert.are.equal("k.ptx\n", (H.sh("ls -A " .. H.shq(dir))))
    -- overwriting an existing file replaces it whole
    H.write(dir .. "/k.ptx", string.rep("x", 100000))
    _, _, rc = H.ptxlua { path, "-o", dir .. "/k.ptx" }
    assert.are.equal(0, rc)
    assert.are.equal(want, H.read(dir .. "/k.ptx"))
  end)

  it("-o FILE with --print-ptx does both", function()
    local path, dir = two(), freshdir()
    local want = H.ptxlua { path }
    local out, err, rc = H.ptxlua { path, "-o", dir .. "/k.ptx", "--print-ptx" }
    assert.are.equal(0, rc, err)
    assert.are.equal(want, out)
    assert.are.equal(want, H.read(dir .. "/k.ptx"))
  end)

  it("an error leaves a previous -o file untouched and no temporary file behind", function()
    local dir = freshdir()
    local bad = H.write(H.tmpfile(".lua"), "local ptx = require 'ptxlua'\nptx.kernel { name = 'k', body = function()\n  ptx.frob()\nend }\n")
    H.write(dir .. "/k.ptx", "previous\n")
    local out, err, rc = H.ptxlua { bad, "-o", dir .. "/k.ptx" }
    assert.are.equal(1, rc)
    assert.are.equal("", out)
    assert.truthy(err:match("^" .. lit(bad) .. ":3: error: "), err)
    assert.are.equal("previous\n", H.read(dir .. "/k.ptx"))
    assert.are.equal("k.ptx\n", (H.sh("ls -A " .. H.shq(dir))))
    -- with --print-ptx as well (one trace for both outputs): nothing on stdout, the file kept
    out, err, rc = H.ptxlua { bad, "-o", dir .. "/k.ptx", "--print-ptx" }
    assert.are.equal(1, rc)
    assert.are.equal("", out)
    assert.truthy(err:match("^" .. lit(bad) .. ":3: error: "), err)
    assert.are.equal("previous\n", H.read(dir .. "/k.ptx"))
    assert.are.equal("k.ptx\n", (H.sh("ls -A " .. H.shq(dir))))
    -- -D errors too
    _, err, rc = H.ptxlua { two(), "-D", "N=abc", "-o", dir .. "/k.ptx" }
    assert.are.equal(1, rc)
    assert.are.equal("previous\n", H.read(dir .. "/k.ptx"))
    assert.are.equal("k.ptx\n", (H.sh("ls -A " .. H.shq(dir))))
  end)

  it("-o into a directory that does not exist: exit 1, naming the file", function()
    local target = H.tmpdir() .. "/missing-dir/k.ptx"
    local _, err, rc = H.ptxlua { two(), "-o", target }
    assert.are.equal(1, rc)
    assert.truthy(err:find(target .. ": error: cannot write", 1, true), err)
  end)
end)

describe("--arch", function()
  it("sets .target and the .version that target needs", function()
    local path = two()
    local CASES = { { "sm_80", "7.0" }, { "sm_90", "7.8" }, { "sm_90a", "8.0" }, { "sm_100a", "8.6" } }
    for _, c in ipairs(CASES) do
      for _, form in ipairs { { "--arch", c[1] }, { "--arch=" .. c[1] } } do
        local args = { path }
        for _, a in ipairs(form) do args[#args + 1] = a end
        local out, err, rc = H.ptxlua(args)
        assert.are.equal(0, rc, err)
        assert.truthy(out:find("\n.version " .. c[2] .. "\n.target " .. c[1] .. "\n.address_size 64\n", 1, true), c[1] .. ":\n" .. out)
      end
    end
  end)

  it("without --arch, the kernel's own target (sm_90a by default)", function()
    local out = H.ptxlua { two() }
    assert.truthy(out:find("\n.version 8.0\n.target sm_90a\n", 1, true), out)
    local p = H.write(H.tmpfile(".lua"), "local ptx = require 'ptxlua'\nptx.kernel { name = 'k', target = 'sm_80', body = function() end }\n")
    out = H.ptxlua { p }
    assert.truthy(out:find("\n.version 7.0\n.target sm_80\n", 1, true), out)
  end)

  it("a form the chosen target does not have is an error at its line", function()
    local p = H.write(H.tmpfile(".lua"), "local ptx = require 'ptxlua'\nptx.kernel { name = 'k', body = function()\n" ..
                                         "  local a = ptx.reg.bf16()\n  ptx.add.bf16(a, a, a)\nend }\n")
    local _, _, rc = H.ptxlua { p }
    assert.are.equal(0, rc)
    local _, err, rc2 = H.ptxlua { p, "--arch", "sm_80" }
    assert.are.equal(1, rc2)
    assert.truthy(err:match("^" .. lit(p) .. ":4: error: 'add%.bf16' requires sm_90 or later %(the target is sm_80%)"), err)
  end)

  it("kernels with different targets need --kernel or --arch", function()
    local p = H.write(H.tmpfile(".lua"), "local ptx = require 'ptxlua'\n" ..
      "ptx.kernel { name = 'a', target = 'sm_80', body = function() end }\n" ..
      "ptx.kernel { name = 'b', target = 'sm_90a', body = function() end }\n")
    local _, err, rc = H.ptxlua { p }
    assert.are.equal(1, rc)
    assert.truthy(err:match("^" .. lit(p) .. ":3: error: kernel b targets sm_90a but kernel a targets sm_80"), err)
    local out, err2, rc2 = H.ptxlua { p, "--arch", "sm_90a" }
    assert.are.equal(0, rc2, err2)
    assert.truthy(out:find(".entry a(", 1, true) and out:find(".entry b(", 1, true))
    out, err2, rc2 = H.ptxlua { p, "--kernel", "a" }
    assert.are.equal(0, rc2, err2)
    assert.truthy(out:find("\n.target sm_80\n", 1, true))
  end)

  it("the PTX for sm_80 and sm_100a is accepted by ptxas", function()
    local path = two()
    for _, arch in ipairs { "sm_80", "sm_100a" } do
      local out, err, rc = H.ptxlua { path, "--arch", arch }
      assert.are.equal(0, rc, err)
      local ok, report = H.assemble(out, arch)
      if ok == nil then return end
      assert.is_true(ok, report)
    end
  end)
end)

describe("--kernel", function()
  it("selects one kernel, several in the order given, with either spelling", function()
    local path = two()
    local out, err, rc = H.ptxlua { path, "--kernel", "second" }
    assert.are.equal(0, rc, err)
    assert.truthy(out:find(".entry second(", 1, true))
    assert.falsy(out:find(".entry first(", 1, true))
    out = H.ptxlua { path, "--kernel=first" }
    assert.truthy(out:find(".entry first(", 1, true))
    assert.falsy(out:find(".entry second(", 1, true))
    out = H.ptxlua { path, "--kernel", "second", "--kernel", "first" }
    local a, b = out:find(".entry second(", 1, true), out:find(".entry first(", 1, true)
    assert.truthy(a and b and a < b, out)
  end)

  it("an unknown kernel: exit 1, listing the kernels the script defines", function()
    local out, err, rc = H.ptxlua { two(), "--kernel", "third" }
    assert.are.equal(1, rc)
    assert.are.equal("", out)
    assert.truthy(err:find("error: no kernel named 'third' (the script defines: first, second)", 1, true), err)
  end)
end)

describe("-D", function()
  it("overrides a template: numbers, booleans, strings, repeatable, both spellings", function()
    local path = two()
    local out, err, rc = H.ptxlua { path, "--kernel", "first", "-D", "N=7" }
    assert.are.equal(0, rc, err)
    assert.are.same({ "add.u32 %r1, %r1, 7;" }, H.insns(out))
    out = H.ptxlua { path, "--kernel", "first", "-DN=9", "-D", "FAST=true", "-D", "MODE=twice" }
    assert.are.same({ "add.u32 %r1, %r1, 9;", "sub.u32 %r1, %r1, 1;", "add.u32 %r1, %r1, 9;" }, H.insns(out))
    out = H.ptxlua { path, "--kernel", "first", "-D", "FAST=0", "-D", "N=0x10" }
    assert.are.same({ "add.u32 %r1, %r1, 16;" }, H.insns(out))
    -- the last of a repeated -D wins
    out = H.ptxlua { path, "--kernel", "first", "-D", "N=1", "-D", "N=2" }
    assert.are.same({ "add.u32 %r1, %r1, 2;" }, H.insns(out))
  end)

  it("a bad value: exit 1, at the kernel's definition, saying what is wrong", function()
    local path = two()
    local out, err, rc = H.ptxlua { path, "-D", "N=abc" }
    assert.are.equal(1, rc)
    assert.are.equal("", out)
    assert.truthy(err:match("^" .. lit(path) .. ":2: error: bad value for template N of kernel first: 'abc' is not a number\n"), err)
    _, err, rc = H.ptxlua { path, "-D", "FAST=maybe" }
    assert.are.equal(1, rc)
    assert.truthy(err:find("'maybe' is not a boolean", 1, true), err)
  end)

  it("a template no selected kernel has: exit 1, listing the known ones", function()
    local path = two()
    local _, err, rc = H.ptxlua { path, "-D", "M=3" }
    assert.are.equal(1, rc)
    assert.truthy(err:find("error: -D M: no kernel has a template parameter 'M' (known: FAST, MODE, N)", 1, true), err)
    _, err, rc = H.ptxlua { path, "--kernel", "second", "-D", "N=3" }
    assert.are.equal(1, rc)
    assert.truthy(err:find("no kernel has a template parameter 'N' (known: none)", 1, true), err)
  end)
end)

describe("--anchors", function()
  it("--anchors and --anchors=comment end each instruction with // file:line", function()
    local path = two()
    local out, err, rc = H.ptxlua { path, "--anchors" }
    assert.are.equal(0, rc, err)
    assert.truthy(out:find("\tadd.u32 \t%r1, %r1, 4;\t// " .. path .. ":4\n", 1, true), out)
    assert.truthy(out:find("\tmul.rn.f32 \t%f2, %f1, %f1;\t// " .. path .. ":10\n", 1, true), out)
    assert.truthy(out:find("\tret;\t// " .. path .. ":11\n", 1, true), out)
    assert.are.equal(out, (H.ptxlua { path, "--anchors=comment" }))
    -- every instruction line carries one
    for line in out:gmatch("[^\n]+") do
      if line:match("^\t[%a@]") and not line:match("^\t%.reg") and not line:match("^\t//") then
        assert.truthy(line:find("\t// " .. lit(path) .. ":%d+$"), line)
      end
    end
  end)

  it("helpers anchor every instruction they emit at the user's call", function()
    local p = H.write(H.tmpfile(".lua"), "local ptx = require 'ptxlua'\nptx.kernel { name = 'k', params = { {'x', 'f32*'} }, body = function(t, x)\n" ..
                                         "  local g = ptx.global_ptrs(x)\n  ptx.warp_reduce(ptx.reg.f32())\nend }\n")
    local out, err, rc = H.ptxlua { p, "--anchors" }
    assert.are.equal(0, rc, err)
    local n3, n4 = 0, 0
    for line in out:gmatch("[^\n]+") do
      if line:find("// " .. p .. ":3", 1, true) then n3 = n3 + 1 end
      if line:find("// " .. p .. ":4", 1, true) then n4 = n4 + 1 end
    end
    assert.are.equal(2, n3)
    assert.are.equal(10, n4)
  end)

  it("--anchors=loc writes .file once and .loc before each new line; ptxas accepts it", function()
    local path = two()
    local out, err, rc = H.ptxlua { path, "--anchors=loc" }
    assert.are.equal(0, rc, err)
    assert.truthy(out:find("\n.address_size 64\n.file\t1 \"" .. path .. "\"\n", 1, true), out)
    local _, nfile = out:gsub("\n%.file\t", "")
    assert.are.equal(1, nfile)
    assert.truthy(out:find("\t.loc\t1 4 0\n\tadd.u32 \t%r1, %r1, 4;\n", 1, true), out)
    assert.truthy(out:find("\t.loc\t1 10 0\n\tmul.rn.f32 \t%f2, %f1, %f1;\n\t.loc\t1 11 0\n\tret;\n", 1, true), out)
    local ok, report = H.assemble(out, "sm_90a")
    if ok == nil then return end
    assert.is_true(ok, report)
    -- and with -lineinfo, ptxas reads the line table
    ok, report = H.assemble(out, "sm_90a", "-lineinfo")
    assert.is_true(ok, report)
  end)
end)

describe("-o to something that is not a regular file", function()
  it("writes through a FIFO (or a device such as /dev/null) instead of replacing it", function()
    local dir = H.tmpdir()
    local fifo = dir .. "/out.fifo"
    local _, _, rc = H.sh("mkfifo " .. H.shq(fifo))
    if rc ~= 0 then H.pending("mkfifo unavailable") return end
    local got = dir .. "/got.ptx"
    -- a reader drains the FIFO into a file while the command writes to it
    local out, err, rc2 = H.sh("(cat " .. H.shq(fifo) .. " > " .. H.shq(got) .. " &) ; " ..
                               H.shq(H.exe) .. " " .. H.shq(H.root .. "/kernels/vector_add.lua") .. " -o " .. H.shq(fifo) ..
                               " ; sleep 0.2")
    assert.are.equal(0, rc2, err)
    local kind = H.sh("stat -c %F " .. H.shq(fifo))
    assert.truthy(kind:find("fifo", 1, true), "the FIFO was replaced: " .. kind)
    assert.truthy((H.read(got) or ""):find(".visible .entry vector_add(", 1, true))
  end)
end)
