-- lint_report_spec.lua -- `ptxlua --lint` on a file with thousands of errors: each distinct error once,
-- at its first line, with how many more times it occurs and at which lines first, then a count; a
-- report of kilobytes however big the file, in time linear in it (bench/lint_report.lua times it:
-- docs/performance.md). A file with a few errors reads as before, one line each.
local H = require "helper"
package.path = H.root .. "/bench/?.lua;" .. package.path
local B = require "lint_report"

local function lit(s) return (s:gsub("[%^%$%(%)%%%.%[%]%*%+%-%?]", "%%%0")) end

local function run(n)
  local p = H.write(H.tmpfile(".ptx"), B.text(n))
  local t0 = os.time()
  local out, err, rc = H.ptxlua { "--lint", p }
  return err, rc, p, os.time() - t0, out
end

describe("ptxlua --lint on a file with thousands of errors", function()
  it("reports each distinct error once, with its count and first lines, and the totals", function()
    local n = 10817
    local err, rc, p, secs, out = run(n)
    assert.are.equal(1, rc)
    assert.are.equal("", out)
    assert(#err < 16 * 1024, #err .. " bytes of report")
    assert(secs <= 10, "took " .. secs .. " s")
    local lines, errors, more, first = {}, 0, 0, {}
    for l in err:gmatch("[^\n]+") do lines[#lines + 1] = l end
    for i, l in ipairs(lines) do
      local line, msg = l:match("^" .. lit(p) .. ":(%d+):%d+: error: (.*)$")
      if line then
        errors = errors + 1
        assert(not first[msg], "reported twice: " .. msg)
        first[msg] = tonumber(line)
        local nxt = lines[i + 1] or ""
        local at, cnt, listed = nxt:match("^" .. lit(p) .. ":(%d+): note: the same error (%d+) more times?, at lines? ([%d, ]+)")
        assert(at, "no count after: " .. l .. "\n" .. nxt)
        assert.are.equal(line, at)
        more = more + tonumber(cnt)
        local k = 0
        for x in listed:gmatch("%d+") do k = k + 1; assert(tonumber(x) > tonumber(line)) end
        assert(k == math.min(8, tonumber(cnt)), nxt)
      end
    end
    -- the ten kinds of statement, one of them naming one of 24 registers
    assert.are.equal(B.KINDS - 1 + 24, errors)
    assert.are.equal(n, errors + more)
    assert.are.equal(("%s: %d errors, %d distinct"):format(p, n, errors), lines[#lines])
    assert.truthy(err:find(":17:2: error: unknown modifier '.x3'", 1, true), err)
  end)

  it("stays small and quick as the file grows four times", function()
    local err1 = run(2000)
    local err4, rc, _, secs = run(8000)
    assert.are.equal(1, rc)
    assert(secs <= 10, "took " .. secs .. " s")
    assert(#err4 < #err1 * 1.2, #err1 .. " then " .. #err4 .. " bytes")
  end)

  it("lists a few errors one a line, as always", function()
    local p = H.write(H.tmpfile(".ptx"), ".version 8.5\n.target sm_90a\n.address_size 64\n.visible .entry k()\n{\n" ..
                      "\t.reg .b32 %r<4>;\n\tadd.s33 %r1, %r2, %r3;\n\tmul.s32.lo %r1, %r2, %r3;\n\tret;\n}\n")
    local _, err, rc = H.ptxlua { "--lint", p }
    assert.are.equal(1, rc)
    local n = 0
    for _ in err:gmatch("[^\n]+") do n = n + 1 end
    assert.are.equal(2, n, err)
    assert.truthy(err:find(p .. ":7:2: error: unknown modifier '.s33'", 1, true), err)
    assert.truthy(err:find(p .. ":8:2: error: 'mul.s32.lo' is not a valid form of mul", 1, true), err)
  end)
end)

describe("ptxlua --lint beside operands it keeps as text", function()
  -- an address expression ([%rd1+2560*3]) or a .reg parameter used by name keeps an instruction's
  -- operands from the table's kinds; its destination and its immediates are still checked
  it("rejects an immediate in a destination vector and an integer immediate for a float", function()
    local text = H.fixture "lint/kept_as_text.ptx"
    local p = H.write(H.tmpfile(".ptx"), text)
    local _, err, rc = H.ptxlua { "--lint", p }
    assert.are.equal(1, rc)
    assert.truthy(err:find(p .. ":8:2: error: operand 3 of 'add.f32' is .f32: an integer immediate does not stand for a float", 1, true), err)
    assert.truthy(err:find(p .. ":17:2: error: operand 1 of 'wmma.load.b.sync.aligned.row.m16n16k8.shared.tf32' is its destination", 1, true), err)
    local ok, out = H.assemble(text, "sm_90a")
    if ok ~= nil then
      assert(ok == false, out)
      assert.truthy(out:find("line 8;", 1, true), out)
      assert.truthy(out:find("line 17;", 1, true), out)
    end
    -- and the same file without the two mistakes is clean
    local good = text:gsub("add%.f32 rv, x, 1", "add.s32 rv, x, 1"):gsub("{%%r0, 1, ", "{%%r0, %%r1, ")
    local _, gerr, grc = H.ptxlua { "--lint", H.write(H.tmpfile(".ptx"), good) }
    assert.are.equal(0, grc, gerr)
  end)
end)

describe("ptxlua --lint on names declared twice in one scope", function()
  -- each body is what ptxas refuses ("Duplicate definition of variable/label") or takes (the same
  -- name in a nested { } block, a register past a range's count); --lint says the same
  local CASES = {
    { ".reg .u32 %a; .reg .u32 %a;", "register '%a' is declared twice in one scope" },
    { ".reg .u32 %a; .reg .f32 %a;", "register '%a' is declared twice in one scope" },
    { ".reg .u32 %r<4>; .reg .u32 %r2;", "register '%r2' is declared twice in one scope: a range declared before it holds it" },
    { ".reg .u32 %r<4>; .reg .u32 %r02;", "register '%r02' is declared twice in one scope: a range declared before it holds it" },
    { ".reg .u32 %r2; .reg .u32 %r<4>;", "register range '%r<..>' holds a register declared before it in this scope" },
    { ".reg .u32 %r<4>; .reg .f32 %r<2>;", "register range '%r<..>' is declared twice in one scope" },
    { "{ .reg .pred p; .reg .pred p; }", "register 'p' is declared twice in one scope" },
    { "L1: L1: ret;", "label 'L1' is defined twice in one block" },
    { "{ L1: L1: }", "label 'L1' is defined twice in one block" },
    { ".reg .u32 %a; { .reg .u32 %a; }" },
    { ".reg .u32 %r<4>; { .reg .u32 %r<4>; }" },
    { ".reg .u32 %r<4>; .reg .u32 %r7;" },
    { ".reg .u32 %r10; .reg .u32 %r<2>;" },
    { "L1: { L1: } { L1: }" },
    { ".shared .u32 s; .shared .u32 s;", "variable 's' is declared twice in one scope of 'k'" },
    { ".local .u32 s; .shared .u32 s;", "variable 's' is declared twice in one scope of 'k'" },
    { ".shared .u32 a, a;", "variable 'a' is declared twice in one scope of 'k'" },
    { ".shared .u32 x;", "variable 'x' has the name of a parameter of 'k'" },
    { ".shared .u32 s; { .shared .u32 s; }" },
    { "{ .shared .u32 x; }" },
    { "{ .param .b32 p0; } { .param .b32 p0; }" },
  }
  for _, c in ipairs(CASES) do
    it((c[2] and "refuses " or "takes ") .. c[1], function()
      local text = (".version 8.0\n.target sm_80\n.address_size 64\n.visible .entry k(.param .u32 x)\n{\n%s\nret;\n}\n"):format(c[1])
      local p = H.write(H.tmpfile(".ptx"), text)
      local _, err, rc = H.ptxlua { "--lint", p }
      local ok, out = H.assemble(text, "sm_80")
      if c[2] then
        assert.are.equal(1, rc, err)
        local esc = function(x) return (x:gsub("%p", "%%%0")) end
        assert.truthy(err:find(esc(p) .. ":6:%d+: error: " .. esc(c[2])), err)
        if ok ~= nil then assert(ok == false and out:find("Duplicate definition", 1, true), out) end
      else
        assert.are.equal(0, rc, err)
        if ok ~= nil then assert(ok, out) end
      end
    end)
  end
end)
