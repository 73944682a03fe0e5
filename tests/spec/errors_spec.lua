-- errors_spec.lua -- every mistake is reported as "file:line: error: message" at the line the user wrote,
-- in this process (pcall on the DSL) and through the command (exit 1, the line and a caret shown,
-- no crash, no -o file written).
local H = require "helper"

-- each case: a script whose offending line carries the marker "--<" (its line is the expected
-- one), a piece of the expected message, and how to run it
local CASES = {
  { "a Lua syntax error", cmd_only = true, needle = "unexpected symbol near '='", [[
local ptx = require "ptxlua"
ptx.kernel { name = "k", body = function()
  local x = = 1 --<
end }
]] },
  { "a runtime error at the top of the script (calling nil)", cmd_only = true, needle = "attempt to call global 'undefined_helper'", [[
local ptx = require "ptxlua"
undefined_helper(1) --<
]] },
  { "a runtime error in a kernel body (calling nil)", needle = "attempt to call local 'f' (a nil value)", [[
local ptx = require "ptxlua"
ptx.kernel { name = "k", body = function()
  local a = ptx.reg.u32()
  local f
  f(a) --<
end }
]] },
  { "error() in a kernel body", needle = "error: boom", [[
local ptx = require "ptxlua"
ptx.kernel { name = "k", body = function()
  error("boom") --<
end }
]] },
  { "error() with a table in a kernel body: its line, the type and the fields", needle = "error: error object is a table, not a string: {code = 1, why = \"bad\"}", [[
local ptx = require "ptxlua"
ptx.kernel { name = "k", body = function()
  local a = ptx.reg.f32()
  error({ code = 1, why = "bad" }) --<
end }
]] },
  { "error() with a table in a helper the body calls: the helper's line", needle = "error object is a table, not a string: {[1] = 7}", [[
local ptx = require "ptxlua"
local function check(v)
  if v > 3 then error({ v }) end --<
end
ptx.kernel { name = "k", templates = { N = 7 }, body = function(t)
  check(t.N)
end }
]] },
  { "error() with a value that has __tostring: its text", needle = "error object is a table, not a string: E42", [[
local ptx = require "ptxlua"
local E = setmetatable({}, { __tostring = function() return "E42" end })
ptx.kernel { name = "k", body = function()
  error(E) --<
end }
]] },
  { "error() with a table at the top of the script", cmd_only = true, needle = "error object is a table, not a string: {top = true}", [[
local ptx = require "ptxlua"
error({ top = true }) --<
]] },
  { "ptx.shared named like a kernel parameter (ptxas: duplicate definition)", needle = "'x' is already a parameter of k: the variable .shared .align 4 .f32 x[4] needs another name", [[
local ptx = require "ptxlua"
ptx.kernel { name = "k", params = { {"x", "f32*"} }, body = function(t, x)
  local s = ptx.shared("x", "f32", 4) --<
end }
]] },
  { "ptx.shared twice with one name", needle = "'t' is declared twice in k: first .shared .align 4 .f32 t[4], then .shared .align 8 .f64 t[2]", [[
local ptx = require "ptxlua"
ptx.kernel { name = "k", body = function()
  local a = ptx.shared("t", "f32", 4)
  local b = ptx.shared("t", "f64", 2) --<
end }
]] },
  { "a shared-memory plan named like a ptx.shared array before it", needle = "ptx.smem_plan 'smem' declares its block under that name, but 'smem' is declared twice in k: first .shared .align 4 .f32 smem[4], then .shared .align 128 .b8 smem[128]; give the plan another name", [[
local ptx = require "ptxlua"
ptx.kernel { name = "k", target = "sm_90a", body = function()
  local s = ptx.shared("smem", "f32", 4)
  local plan = ptx.smem_plan() --<
  plan:alloc("a", "f32", 4)
end }
]] },
  { "a dynamic shared-memory plan named like a ptx.shared array", needle = "'big' is declared twice in k (at module scope, hidden by the kernel's own): first .shared .align 4 .f32 big[4], then .extern .shared .align 128 .b8 big[]", [[
local ptx = require "ptxlua"
ptx.kernel { name = "k", target = "sm_90a", body = function()
  local s = ptx.shared("big", "f32", 4)
  local plan = ptx.smem_plan { name = "big" } --<
  plan:alloc("a", "f32", 16384)
end }
]] },
  { "ptx.shared named like a shared-memory plan before it", needle = "ptx.shared 'smem': the name is taken by the shared-memory plan of ", [[
local ptx = require "ptxlua"
ptx.kernel { name = "k", target = "sm_90a", body = function()
  local plan = ptx.smem_plan()
  plan:alloc("a", "f32", 4)
  local s = ptx.shared("smem", "f32", 4) --<
end }
]] },
  { "a wrong operand type (register)", needle = "operand 3 of 'add.f32': expected a .f32 register, got %r1 (.u32)", [[
local ptx = require "ptxlua"
ptx.kernel { name = "k", body = function()
  local a = ptx.reg.f32()
  local b = ptx.reg.u32()
  ptx.add.f32(a, a, b) --<
end }
]] },
  { "a wrong operand type (a string)", needle = "operand 3 of 'add.f32': expected a register, number, address or label, got string", [[
local ptx = require "ptxlua"
ptx.kernel { name = "k", body = function()
  local a = ptx.reg.f32()
  ptx.add.f32(a, a, "x") --<
end }
]] },
  { "a wrong operand kind (a register for an address)", needle = "operand 2 of 'ld.global.f32': expected an address", [[
local ptx = require "ptxlua"
ptx.kernel { name = "k", body = function()
  local a, p = ptx.reg.f32(), ptx.reg.u64()
  ptx.ld.global.f32(a, p) --<
end }
]] },
  { "a wrong operand count", needle = "'add.f32' takes 3 operands (d, a, b), got 2", [[
local ptx = require "ptxlua"
ptx.kernel { name = "k", body = function()
  local a = ptx.reg.f32()
  ptx.add.f32(a, a) --<
end }
]] },
  { "an immediate that does not fit", needle = "immediate 4294967296 does not fit .u32", [[
local ptx = require "ptxlua"
ptx.kernel { name = "k", body = function()
  local a = ptx.reg.u32()
  ptx.add.u32(a, a, 2^32) --<
end }
]] },
  { "an unknown opcode", needle = "unknown instruction 'frobnicate'", [[
local ptx = require "ptxlua"
ptx.kernel { name = "k", body = function()
  local a = ptx.reg.f32()
  ptx.frobnicate.f32(a, a) --<
end }
]] },
  { "an unknown modifier", needle = "unknown modifier '.sideways' in 'add.sideways.f32'", [[
local ptx = require "ptxlua"
ptx.kernel { name = "k", body = function()
  local a = ptx.reg.f32()
  ptx.add.sideways.f32(a, a, a) --<
end }
]] },
  { "an unknown opcode through ptx.op", needle = "unknown instruction 'frob'", [[
local ptx = require "ptxlua"
ptx.kernel { name = "k", body = function()
  ptx.op "frob.b32" (ptx.reg.b32()) --<
end }
]] },
  { "a form the target does not have", needle = "'add.bf16' requires sm_90 or later (the target is sm_80)", [[
local ptx = require "ptxlua"
ptx.kernel { name = "k", target = "sm_80", body = function()
  local a = ptx.reg.bf16()
  ptx.add.bf16(a, a, a) --<
end }
]] },
  { "a form only the arch-specific target has", needle = "'redux.sync.min.f32' requires sm_100", [[
local ptx = require "ptxlua"
ptx.kernel { name = "k", target = "sm_90a", body = function()
  local a = ptx.reg.f32()
  ptx.redux.sync.min.f32(a, a, 0xffffffff) --<
end }
]] },
  { "a special register the target does not have", needle = "%cluster_ctarank requires sm_90 or later (the target is sm_80)", [[
local ptx = require "ptxlua"
ptx.kernel { name = "k", target = "sm_80", body = function()
  local r = ptx.special "cluster_ctarank" --<
end }
]] },
  { "an undefined label (at the branch)", needle = "undefined label '$nowhere'", [[
local ptx = require "ptxlua"
ptx.kernel { name = "k", body = function()
  local L = ptx.label "nowhere"
  ptx.bra(L) --<
  ptx.ret()
end }
]] },
  { "a register of another kernel", needle = "operand 3: register %r1 belongs to another kernel (a)", [[
local ptx = require "ptxlua"
local leaked
ptx.kernel { name = "a", body = function()
  leaked = ptx.reg.u32()
end }
ptx.kernel { name = "b", body = function()
  local x = ptx.reg.u32()
  ptx.add.u32(x, x, leaked) --<
end }
]] },
  { "a type mix in an operator", needle = "type mismatch: .f32 + .s32", [[
local ptx = require "ptxlua"
ptx.kernel { name = "k", body = function()
  local a = ptx.reg.f32()
  local b = ptx.reg.s32()
  local c = a + b --<
end }
]] },
  { "a bad -D value (at the kernel's definition)", defines = { N = "abc" }, needle = "bad value for template N of kernel k: 'abc' is not a number", [[
local ptx = require "ptxlua"
ptx.kernel { name = "k", templates = { N = 4 }, body = function(t) --<
  local a = ptx.reg.u32()
  ptx.add.u32(a, a, t.N)
end }
]] },
  { "a bad -D boolean", defines = { FAST = "maybe" }, needle = "'maybe' is not a boolean", [[
local ptx = require "ptxlua"
local x = 1
ptx.kernel { name = "k", templates = { FAST = false }, body = function(t) --<
end }
]] },
  { "an error inside a library helper (at the user's call)", needle = "ptx.warp_reduce: width must be 2, 4, 8, 16 or 32 (got 6)", [[
local ptx = require "ptxlua"
ptx.kernel { name = "k", body = function()
  local v = ptx.reg.f32()
  ptx.warp_reduce(v, "sum", 6) --<
end }
]] },
  { "an error inside an instruction a library helper emits (at the user's call)", needle = "immediate 1.5 is not an integer", [[
local ptx = require "ptxlua"
ptx.kernel { name = "k", body = function()
  local n = ptx.reg.u32()
  n:set(1.5) --<
end }
]] },
  { "an instruction above the requested PTX version (at that instruction)", needle = "'ld.global.L2::cache_hint.f32' requires PTX ISA 7.4, above the requested .version 7.0", [[
local ptx = require "ptxlua"
ptx.kernel { name = "k", target = "sm_80", version = 7.0, body = function()
  local a, p = ptx.reg.f32(), ptx.reg.u64()
  ptx.ld.global.f32(a, ptx.addr(p))
  ptx.ld.global.L2__cache_hint.f32(a, ptx.addr(p), p) --<
  ptx.ld.global.f32(a, ptx.addr(p))
end }
]] },
  { "a bad argument caught by the C binding (at the user's call)", needle = "bad argument #4 to 'add' (number expected, got string)", [[
local ptx = require "ptxlua"
ptx.kernel { name = "k", target = "sm_90a", body = function()
  local plan = ptx.smem_plan {}
  plan:alloc("A", "bf16", { 64, 64 }, { stages = "many" }) --<
end }
]] },
  { "a bad argument the DSL checks (at the user's call)", needle = "ptx.shared: the element count must be an integer (got many)", [[
local ptx = require "ptxlua"
ptx.kernel { name = "k", body = function()
  ptx.shared("t", "f32", "many") --<
end }
]] },
  { "an error in the user's own helper (at its line)", needle = "type mismatch: .f32 + .u32", [[
local ptx = require "ptxlua"
local function helper(x)
  return x + ptx.reg.u32() --<
end
ptx.kernel { name = "k", body = function()
  helper(ptx.reg.f32())
end }
]] },
  { "a bad parameter type (at the kernel's definition)", needle = "params[1]: unknown element type 'f33'", [[
local ptx = require "ptxlua"
ptx.kernel { --<
  name = "k", params = { {"x", "f33*"} },
  body = function() end }
]] },
  { "params that are not a list", needle = "ptx.kernel 'k': 'params' must be a list of {name, type}", [[
local ptx = require "ptxlua"
ptx.kernel { name = "k", params = 5, body = function() end } --<
]] },
  { "a target that is not a name", needle = "ptx.kernel 'k': unknown target", [[
local ptx = require "ptxlua"
ptx.kernel { name = "k", target = {}, body = function() end } --<
]] },
  { "an unknown field in a kernel definition", needle = "ptx.kernel: unknown field 'blocks'", [[
local ptx = require "ptxlua"
ptx.kernel { name = "k", blocks = 4, body = function() end } --<
]] },
  { "a kernel defined twice", needle = "kernel 'k' is defined twice", [[
local ptx = require "ptxlua"
ptx.kernel { name = "k", body = function() end }
ptx.kernel { name = "k", body = function() end } --<
]] },
  { "a bad directive value (at the kernel's definition)", needle = "kernel k: maxntid[1] must be a positive integer", [[
local ptx = require "ptxlua"
ptx.kernel { name = "k", maxntid = { 0 }, body = function() end } --<
]] },
  { "an error in a directive function", needle = "attempt to perform arithmetic", [[
local ptx = require "ptxlua"
ptx.kernel { name = "k", body = function() end,
  maxntid = function(t) return { t.NOPE * 2 } end } --<
]] },
  { "a requested PTX version below the target's (at the kernel's definition)", needle = "target sm_80 requires PTX ISA 7.0 or later", [[
local ptx = require "ptxlua"
ptx.kernel { name = "k", target = "sm_80", version = 6.0, body = function() end } --<
]] },
  { "a guard left dangling", needle = "nothing was called through this ptx.at guard", [[
local ptx = require "ptxlua"
ptx.kernel { name = "k", body = function()
  local p = ptx.pred()
  ptx.at(p) --<
end }
]] },
  { "a label placed twice", needle = "label '$x' is placed twice", [[
local ptx = require "ptxlua"
ptx.kernel { name = "k", body = function()
  local L = ptx.label "x"
  ptx.place(L)
  ptx.place(L) --<
end }
]] },
}

local function marked_line(text)
  local n = 0
  for line in (text .. "\n"):gmatch("([^\n]*)\n") do
    n = n + 1
    if line:find("--<", 1, true) then return n, line end
  end
  error("no marker in the case's script")
end

local function lit(s) return (s:gsub("[%^%$%(%)%%%.%[%]%*%+%-%?]", "%%%0")) end

-- a fresh, empty directory
local ndir = 0
local function freshdir()
  ndir = ndir + 1
  local d = string.format("%s/errors%d", H.tmpdir(), ndir)
  assert(os.execute("mkdir -p " .. H.shq(d)))
  return d
end

local function defines_args(defs)
  local args = {}
  for k, v in pairs(defs or {}) do args[#args + 1] = "-D"; args[#args + 1] = k .. "=" .. v end
  return args
end

describe("errors in this process", function()
  local ptx = require "ptxlua"
  for _, c in ipairs(CASES) do
    if not c.cmd_only then
      it(c[1], function()
        local path = H.write(H.tmpfile(".lua"), c[2])
        local line = marked_line(c[2])
        ptx.reset()
        local ok, err = pcall(dofile, path)
        if ok then ok, err = pcall(ptx.ptx, { defines = c.defines }) end
        assert.is_false(ok, "expected an error")
        assert.is_string(err)
        assert.truthy(err:match("^" .. lit(path) .. ":" .. line .. ": error: "), "expected " .. path .. ":" .. line .. ", got: " .. err)
        assert.truthy(err:find(c.needle, 1, true), "expected '" .. c.needle .. "' in: " .. err)
        assert.falsy(err:find(H.root .. "/lua/", 1, true), "the message points into the library: " .. err)
      end)
    end
  end
end)

describe("errors through the command", function()
  for _, c in ipairs(CASES) do
    it(c[1], function()
      local path = H.write(H.tmpfile(".lua"), c[2])
      local line, src = marked_line(c[2])
      local dir = freshdir()
      local out = dir .. "/out.ptx"
      local args = { path, "-o", out }
      for _, a in ipairs(defines_args(c.defines)) do args[#args + 1] = a end
      local stdout, stderr, rc = H.ptxlua(args)
      assert.are.equal(1, rc, stderr)
      assert.are.equal("", stdout)
      local l1, l2, l3 = stderr:match("^([^\n]*)\n([^\n]*)\n([^\n]*)\n")
      assert.truthy(l1, "expected three lines on stderr: " .. stderr)
      assert.truthy(l1:match("^" .. lit(path) .. ":" .. line .. ": error: "), "expected " .. path .. ":" .. line .. ", got: " .. l1)
      assert.truthy(l1:find(c.needle, 1, true), "expected '" .. c.needle .. "' in: " .. l1)
      -- the source line, and a caret under its first character
      assert.are.equal("  " .. src, l2)
      assert.are.equal("  " .. src:match("^%s*") .. "^", l3)
      -- no -o file, no temporary left behind
      local listing = H.sh("ls -A " .. H.shq(dir))
      assert.are.equal("", listing)
    end)
  end

  it("a missing script file: its name, exit 1", function()
    local path = H.tmpdir() .. "/no/such/script.lua"
    local stdout, stderr, rc = H.ptxlua { path }
    assert.are.equal(1, rc)
    assert.are.equal("", stdout)
    assert.truthy(stderr:match("^" .. lit(path) .. ": error: cannot open: No such file or directory\n"), stderr)
  end)

  it("a script that defines no kernel", function()
    local path = H.write(H.tmpfile(".lua"), "local ptx = require 'ptxlua'\n")
    local _, stderr, rc = H.ptxlua { path }
    assert.are.equal(1, rc)
    assert.truthy(stderr:find("error: the script defines no kernel", 1, true), stderr)
  end)

end)

describe("one name in two kernels", function()
  it("a kernel's own variable may share the name of another kernel's dynamic plan (ptxas accepts it)", function()
    local ptx = require "ptxlua"
    ptx.reset()
    local path = H.write(H.tmpfile(".lua"), [[
local ptx = require "ptxlua"
ptx.kernel { name = "a", target = "sm_90a", body = function()
  local plan = ptx.smem_plan()
  local x = plan:alloc("a", "f32", 16384)
  ptx.ld.shared.f32(ptx.reg.f32(), x:addr())
end }
ptx.kernel { name = "b", target = "sm_90a", body = function()
  local s = ptx.shared("smem", "f32", 4)
  ptx.ld.shared.f32(ptx.reg.f32(), ptx.addr(s))
end }
]])
    local out, err, rc = H.ptxlua { path }
    assert.are.equal(0, rc, err)
    assert.truthy(out:find(".extern .shared .align 128 .b8 smem[];", 1, true), out)
    assert.truthy(out:find(".shared .align 4 .f32 smem[4];", 1, true), out)
  end)
end)

describe("error messages are stable", function()
  it("several unknown fields: the same one is reported in every process", function()
    local path = H.write(H.tmpfile(".lua"), [[
local ptx = require "ptxlua"
ptx.kernel { name = "k", zeta = 1, alpha = 2, mid = 3, omega = 4, beta = 5, body = function() end }
]])
    local first
    for _ = 1, 4 do
      local _, stderr, rc = H.ptxlua { path }
      assert.are.equal(1, rc)
      first = first or stderr
      assert.are.equal(first, stderr)
    end
    assert.truthy(first:find("unknown field 'alpha'", 1, true), first)
  end)
end)
