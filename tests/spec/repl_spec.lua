-- repl_spec.lua -- the REPL of `ptxlua` with no arguments, driven through stdin (and a
-- pseudo-terminal with `script` when there is one): values printed, multi-line input, errors that
-- do not end the session, and the :load/:ptx/:set/:emu/:plan commands.
local H = require "helper"

local SCRIPT = [[
local ptx = require "ptxlua"
ptx.kernel { name = "add", templates = { N = 4 }, grid = { 1 }, block = { 32 }, body = function(t)
  local a = ptx.reg.u32()
  ptx.mov.u32(a, 1)
  ptx.add.u32(a, a, t.N)
end }
]]

-- run the REPL on these input lines; returns stdout, stderr, exit status
local function repl(lines)
  local input = H.write(H.tmpfile(".in"), table.concat(lines, "\n") .. "\n")
  return H.sh(H.shq(H.exe) .. " < " .. H.shq(input))
end

describe("the REPL through stdin", function()
  it("prints the values of expressions and exits 0 at the end of input", function()
    local out, err, rc = repl { "1 + 2", "'a', nil, 3", "x = 5", "x * 2" }
    assert.are.equal(0, rc, err)
    assert.are.equal("", err)
    assert.are.equal("3\na\tnil\t3\n10\n", out)
  end)

  it("reads on while a chunk is unfinished", function()
    local out, err, rc = repl { "function f(a)", "  local b = a + 1", "  return b * 2", "end", "f(20)", "t = {", "1, 2 }", "#t" }
    assert.are.equal(0, rc, err)
    assert.are.equal("42\n2\n", out)
  end)

  it("prints errors as file:line: error: and goes on", function()
    local out, err, rc = repl { "nosuch.field", "x y", ":bogus", "error('boom')", "7" }
    assert.are.equal(0, rc)
    assert.truthy(err:find("stdin:1: error: attempt to index global 'nosuch'", 1, true), err)
    assert.truthy(err:find("stdin:1: error: '=' expected near 'y'", 1, true), err)
    assert.truthy(err:find("error: unknown command ':bogus'", 1, true), err)
    assert.truthy(err:find("boom", 1, true), err)
    assert.are.equal("7\n", out)
  end)

  it("has the DSL loaded as ptx", function()
    local out, err, rc = repl { "type(ptx.kernel)", "type(repl.load)" }
    assert.are.equal(0, rc, err)
    assert.are.equal("function\nfunction\n", out)
  end)

  it("loads a script, prints its PTX, sets a template and re-prints, with anchors", function()
    local path = H.write(H.tmpfile(".lua"), SCRIPT)
    local file = path:match("[^/]+$")
    local out, err, rc = repl { ":load " .. path, ":kernels", ":ptx add", ":set N=16", ":anchors", ":ptx" }
    assert.are.equal(0, rc, err)
    assert.are.equal("", err)
    assert.truthy(out:find("loaded " .. path .. ": 1 kernel (add)", 1, true), out)
    assert.truthy(out:find("add  N=4", 1, true), out)
    assert.truthy(out:find("add.u32 \t%r1, %r1, 4;", 1, true), out)
    assert.truthy(out:find("add.u32 \t%r1, %r1, 16;\n", 1, true), out)
    assert.truthy(out:find("add.u32 \t%r1, %r1, 16;\t// " .. path .. ":5", 1, true) or out:find(file .. ":5", 1, true), out)
  end)

  it("refuses a :set that fails when typed and keeps the old value", function()
    local path = H.write(H.tmpfile(".lua"), SCRIPT)
    local out, err, rc = repl { ":load " .. path, ":set N=16", ":set FOO=1", ":kernels", ":set N=abc", ":kernels", ":emu", ":plan" }
    assert.are.equal(0, rc, err)
    assert.truthy(err:find("error: -D FOO: no kernel has a template parameter 'FOO' (known: N)\n(:set FOO=1 refused: FOO stays unset)\n", 1, true), err)
    assert.truthy(err:find("bad value for template N of kernel add: 'abc' is not a number\n(:set N=abc refused: N stays 16)\n", 1, true), err)
    -- the later commands run with N = 16: no -D FOO or N=abc error after the two refusals
    local _, nerr = err:gsub("error:", "")
    assert.are.equal(2, nerr, err)
    local _, nk = out:gsub("add  N=16\n", "")
    assert.are.equal(2, nk, out)
    assert.truthy(out:find("emulated add", 1, true), out)
    assert.truthy(out:find("add: no plan", 1, true), out)
  end)

  it("refuses an unknown :arch target when typed, as --arch does, and keeps the old one", function()
    local path = H.write(H.tmpfile(".lua"), SCRIPT)
    local out, err, rc = repl { ":load " .. path, ":arch sm_99", ":ptx", ":arch sm_80", ":arch sm_9000", ":ptx" }
    assert.are.equal(0, rc, err)
    assert.truthy(err:find("error: unknown target 'sm_99' (expected sm_80, sm_90a, sm_100a, ...); the target stays the scripts' own\n", 1, true), err)
    assert.truthy(err:find("error: unknown target 'sm_9000' (expected sm_80, sm_90a, sm_100a, ...); the target stays sm_80\n", 1, true), err)
    local _, nerr = err:gsub("error:", "")
    assert.are.equal(2, nerr, err)
    assert.truthy(out:find("\n.target sm_90a\n.*arch: sm_80\n.*\n.target sm_80\n"), out)
  end)

  it("re-prints after a template change in well under a second", function()
    local path = H.write(H.tmpfile(".lua"), SCRIPT)
    local lines = { ":load " .. path }
    for i = 1, 20 do lines[#lines + 1] = ":set N=" .. i end
    local start = os.time()
    local out, err, rc = repl(lines)
    assert.are.equal(0, rc, err)
    assert.truthy(out:find("add.u32 \t%r1, %r1, 20;", 1, true), out)
    assert.truthy(os.time() - start <= 3, "20 re-prints took more than 3 s")
  end)

  it("reloads, emulates, shows the plan (or none) and reports a bad kernel name", function()
    local path = H.write(H.tmpfile(".lua"), SCRIPT)
    local out, err, rc = repl { ":load " .. path, ":reload", ":emu", ":plan", ":ptx nope", "1" }
    assert.are.equal(0, rc)
    assert.truthy(select(2, out:gsub("loaded ", "")) == 2, out)
    assert.truthy(out:find("emulated add: grid (1,1,1) block (32,1,1)", 1, true), out)
    assert.truthy(out:find("add: no plan", 1, true), out)
    assert.truthy(err:find("no kernel named 'nope'", 1, true), err)
    assert.truthy(out:find("\n1\n$"), out)
  end)

  it("shows a kernel's shared-memory plan", function()
    local path = H.write(H.tmpfile(".lua"), [[
local ptx = require "ptxlua"
ptx.kernel { name = "staged", target = "sm_90a", templates = { STAGES = 2 }, body = function(t)
  local plan = ptx.smem_plan()
  local A = plan:alloc("A", "bf16", { 64, 64 }, { stages = t.STAGES, swizzle = "128B" })
  ptx.op "mbarrier.init.shared::cta.b64" (A:addr(0), 1)
end }
]])
    local out, err, rc = repl { ":load " .. path, ":plan", ":set STAGES=3", ":plan" }
    assert.are.equal(0, rc, err)
    assert.truthy(out:find("staged: plan 'smem', 16384 bytes", 1, true), out)
    assert.truthy(out:find("staged: plan 'smem', 24576 bytes", 1, true), out)
  end)

  it("a script error on :load is reported at the script's line", function()
    local path = H.write(H.tmpfile(".lua"), "local ptx = require 'ptxlua'\nptx.nosuch_helper_call_x()\n")
    local out, err, rc = repl { ":load " .. path, "2" }
    assert.are.equal(0, rc)
    assert.truthy(err:find(":2: error:", 1, true), err)
    assert.are.equal("2\n", out)
  end)
end)

describe("the REPL's :compare and :time", function()
  local ADD = [[
local ptx = require "ptxlua"
ptx.kernel { name = "add2", templates = { N = 300 }, params = { {"x", "f32*", shape = {"N"}}, {"y", "f32*", shape = {"N"}},
  {"out", "f32*", shape = {"N"}}, {"n", "u32"} }, grid = { 3 }, block = { 128 }, body = function(t, x, y, out, n)
  local px, py, po = ptx.global_ptrs(x, y, out)
  local i = ptx.special("ctaid.x"):mad(ptx.special "ntid.x", ptx.special "tid.x")
  local L = ptx.label "done"
  ptx.at(i:ge(n:load())).bra(L)
  local off = i:mul_wide(4)
  local a, b = ptx.reg.f32(), ptx.reg.f32()
  ptx.ld.global.f32(a, ptx.addr(px + off))
  ptx.ld.global.f32(b, ptx.addr(py + off))
  ptx.st.global.f32(ptx.addr(po + off), a + b)
  ptx.place(L)
  ptx.ret()
end }
]]
  it("compares a kernel with a Lua reference and reports the first mismatches", function()
    local path = H.write(H.tmpfile(".lua"), ADD)
    local good = H.write(H.tmpfile(".lua"), "return function(i, t) local o = {} for k = 1, t.N do o[k] = i.x[k] + i.y[k] end return { out = o } end\n")
    local bad = H.write(H.tmpfile(".lua"), "return function(i, t) local o = {} for k = 1, t.N do o[k] = i.x[k] + i.y[k] + (k == 200 and 0.5 or 0) end return { out = o } end\n")
    local input = H.write(H.tmpfile(".in"), table.concat({ ":load " .. path, ":compare add2 " .. good, ":compare add2 " .. bad,
      ":set N=260", ":compare add2 " .. bad, ":time" }, "\n") .. "\n")
    local out, err, rc = H.sh("PTXLUA_LIBCUDA=/nonexistent " .. H.shq(H.exe) .. " < " .. H.shq(input))
    assert.are.equal(0, rc, err)
    assert.are.equal("", err)
    assert.truthy(out:find("add2.out on emu: 300 elements, max abs err [%d.e%-]+, max rel err [%d.e%-]+, 0 mismatches %(tol 1e%-05%)"), out)
    assert.truthy(out:find("add2.out on emu: 300 elements, max abs err 0.5, max rel err [%d.e%-]+, 1 mismatch %(tol 1e%-05%)\n    %[200%] got"), out)
    assert.truthy(out:find("add2.out on emu: 260 elements", 1, true), out)   -- the template change reached it
    assert.truthy(out:find("no GPU here: no CUDA driver: cannot load /nonexistent", 1, true), out)
  end)

  it("refuses test data of an absurd size, and goes on", function()
    local path = H.write(H.tmpfile(".lua"), ADD)
    local good = H.write(H.tmpfile(".lua"), "return function(i, t) local o = {} for k = 1, t.N do o[k] = i.x[k] + i.y[k] end return { out = o } end\n")
    local out, err, rc = repl { ":load " .. path, ":set N=1e300", ":compare add2 " .. good, ":emu", ":set N=0.5", ":emu", ":set N=30", ":emu", "7" }
    assert.are.equal(0, rc, err)
    assert.truthy(err:find(path .. ":2: error: add2: parameter 'x' would have 1e+300 elements (1 to 2^28 for test data)", 1, true), err)
    assert.truthy(err:find("more memory than the emulator gives a buffer", 1, true) or err:find("elements", 1, true), err)
    assert.falsy(err:find("lua/ptxlua/", 1, true), err)
    assert.truthy(out:find("emulated add2", 1, true), out)
    assert.truthy(out:find("\n7\n$"), out)
  end)

  it("survives random command sequences: every error a message, no Lua traceback, exit 0", function()
    local path = H.write(H.tmpfile(".lua"), ADD)
    local CMDS = { ":load " .. path, ":load kernels/vector_add.lua", ":load /nonexistent/k.lua", ":load", ":reload",
      ":kernels", ":ptx", ":ptx add2", ":ptx nope", ":ptx *", ":anchors", ":anchors comment", ":anchors loc",
      ":anchors bogus", ":arch sm_80", ":arch sm_90a", ":arch sm_9000", ":arch", ":set N=64", ":set N=", ":set =",
      ":set N=-5", ":set N=1e300", ":set N=abc", ":set BLOCK=0", ":plan", ":plan nope", ":emu", ":emu nope",
      ":compare", ":compare add2 nope", ":compare add2 add2", ":help", ":", ":emu add2 extra", "ptx.kernels()",
      "repl.ptx('x')", "repl.load(nil)", "repl.set(nil)", "error('mine')", "return 1/0", "for i = 1, 3 do", "end",
      "ptx.reset()", "(", "\1\2", "ptx.kernel { name = 'z', body = function() ptx.ret() end }" }
    local pick = H.lcg(4242)
    for _ = 1, 3 do
      local lines = {}
      for i = 1, 40 do lines[i] = CMDS[pick(#CMDS)] end
      lines[#lines + 1] = "end"                        -- close an open chunk, then a last value
      lines[#lines + 1] = "123456"
      local out, err, rc = repl(lines)
      assert.are.equal(0, rc, err)
      assert.falsy(err:find("traceback", 1, true), err)
      assert.falsy(err:find("lua/ptxlua/", 1, true), err)
      assert.truthy(out:find("123456\n$"), out)
    end
  end)

  it("compares two kernels on the same test data, only on what the reference wrote", function()
    local path = H.write(H.tmpfile(".lua"), ADD .. ADD:gsub("^local ptx = require \"ptxlua\"\n", ""):gsub("add2", "add3"):gsub("a %+ b", "a - b"))
    local out, err, rc = repl { ":load " .. path, ":compare add2 add2", ":compare add2 add3" }
    assert.are.equal(0, rc, err)
    local first, second = out:match("(add2%.out on emu[^\n]*)\n(.*)")
    assert.truthy(first and first:find("0 mismatches", 1, true), out)
    assert.truthy(second:find("add2.out on emu: 300 elements", 1, true) and not second:find(" 0 mismatches", 1, true), out)
    assert.falsy(out:find("add2.x on", 1, true), out)
  end)
end)

describe("the REPL through a pseudo-terminal", function()
  it("prompts, evaluates and quits at Ctrl-D", function()
    local _, _, has = H.sh("command -v script")
    if has ~= 0 then return H.pending("no `script` command for a pseudo-terminal") end
    local input = H.write(H.tmpfile(".in"), "1 + 41\nfunction g()\nreturn 'multi'\nend\ng()\n\4")
    local out, err, rc = H.sh("PTXLUA_NO_READLINE=1 script -qec " .. H.shq(H.exe) .. " /dev/null < " .. H.shq(input))
    assert.are.equal(0, rc, err)
    assert.truthy(out:find("ptx> ", 1, true), out)
    assert.truthy(out:find("...> ", 1, true), out)
    assert.truthy(out:find("42", 1, true), out)
    assert.truthy(out:find("multi", 1, true), out)
  end)
end)
