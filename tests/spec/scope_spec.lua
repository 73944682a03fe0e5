-- scope_spec.lua -- nested blocks `{ }`: the DSL's ptx.scope (what it prints, what it refuses), the
-- parser's scoped registers (an inner %r<3> hides only %r0..%r2), the emulator running blocks
-- (registers hidden by a block's own, a label every block places), and --sugar writing the blocks
-- of nvcc's inline asm as sugar.open/sugar.close blocks that print back byte for byte.
local H = require "helper"
local rt = require "ptxlua.emu"
local core = require "ptxlua.core"

-- the body of a kernel, as lines (between `{` and `}`), for the DSL's output
local function body_lines(text)
  local b = text:match("\n{\n(.*)\n}\n") or ""
  local out = {}
  for l in (b .. "\n"):gmatch("([^\n]*)\n") do out[#out + 1] = l end
  return out
end

local function dsl_error(fn, params)
  local ok, err = pcall(H.body, fn, params)
  assert(not ok, "the DSL took it")
  return tostring(err)
end

-- PTX with nested blocks as inline asm writes them: a range %r<3> hiding the kernel's %r0..%r2 but
-- not %r3, %r4; a loop on the label LOOP that each of two blocks places; a bare `t` hidden by an
-- inner `t`. out[i] = 3*i + 200 + 1007 when it runs as ptxas reads it.
local BLOCKS = H.fixture "scope/blocks.ptx"

describe("ptx.scope", function()
  it("prints its body in a block with its own declarations, pools named for its depth, labels of its own", function()
    local text = H.body(function(ptx, _, out)
      local x = ptx.special "tid.x"
      ptx.scope(function()
        local t = ptx.reg.b32 { "t", bare = true }
        local q = ptx.reg.u32()
        local l = ptx.label "l"
        ptx.place(l)
        ptx.add.u32(t, x, 1)
        ptx.mov.u32(q, t)
        ptx.scope(function()
          local t2 = ptx.reg.b32 { "t", bare = true }   -- hides the outer t in here
          ptx.mov.b32(t2, ptx.reg.u32())
        end)
        ptx.bra(l)
      end)
      ptx.scope(function()
        local l = ptx.label "l"                          -- a sibling block places the same label
        ptx.place(l)
        ptx.add.u32(ptx.reg.u32(), x, 2)
      end)
      ptx.st.global.u32(ptx.addr(ptx.global_ptrs(out)), x)
    end, { {"out", "u32*"} })
    assert.are.same({
      "\t.reg .u32 \t%r<2>;",
      "\t.reg .u64 \t%rd<3>;",
      "",
      "\tmov.u32 \t%r1, %tid.x;",
      "\t{",
      "\t.reg .b32 \tt;",
      "\t.reg .u32 \t%r_<2>;",
      "$l:",
      "\tadd.u32 \tt, %r1, 1;",
      "\tmov.u32 \t%r_1, t;",
      "\t{",
      "\t.reg .b32 \tt;",
      "\t.reg .u32 \t%r__<2>;",
      "\tmov.b32 \tt, %r__1;",
      "\t}",
      "\tbra \t$l;",
      "\t}",
      "\t{",
      "\t.reg .u32 \t%r_<2>;",
      "$l:",
      "\tadd.u32 \t%r_1, %r1, 2;",
      "\t}",
      "\tld.param.u64 \t%rd1, [out];",
      "\tcvta.to.global.u64 \t%rd2, %rd1;",
      "\tst.global.u32 \t[%rd2], %r1;",
      "" }, body_lines(text))
    if H.ptxas_path() then
      local ok, msg = H.assemble(text, "sm_90a")
      assert(ok, msg)
    end
  end)

  it("refuses at the user's line what PTX scoping forbids", function()
    local err = dsl_error(function(ptx)
      local t
      ptx.scope(function() t = ptx.reg.u32(); ptx.mov.u32(t, 1) end)
      ptx.mov.u32(ptx.reg.u32(), t)                                  -- a closed block's register
    end)
    assert.truthy(err:find("register %r_1 was declared inside a ptx.scope block that has closed", 1, true), err)
    err = dsl_error(function(ptx)
      ptx.scope(function() ptx.place(ptx.label "a"); ptx.place(ptx.label "a") end)
    end)
    assert.truthy(err:find("label '$a' is placed twice in one ptx.scope block", 1, true), err)
    err = dsl_error(function(ptx)
      ptx.scope(function() ptx.place(ptx.label "a") end)
      ptx.bra(ptx.label "a")                                         -- not visible outside its block
    end)
    assert.truthy(err:find("undefined label '$a'", 1, true), err)
    err = dsl_error(function(ptx)
      ptx.scope(function() ptx.reg.u32 "q"; ptx.reg.u32 "q" end)
    end)
    assert.truthy(err:find("register name '%q' is already declared", 1, true), err)
    err = dsl_error(function(ptx)
      local t = ptx.reg.b32 { "t", bare = true }
      ptx.mov.b32(t, 1)
      ptx.scope(function()
        local inner = ptx.reg.b32 { "t", bare = true }
        ptx.add.u32(inner, t, 1)                                     -- the outer t, hidden here
      end)
    end)
    assert.truthy(err:find("t here is a register from outside this ptx.scope block, but the block declares `.reg .b32 t;`", 1, true), err)
    err = dsl_error(function(ptx)
      local p = ptx.pred()
      ptx.setp.eq.u32(p, ptx.special "tid.x", 0)
      ptx.at(p).scope(function() ptx.ret() end)
    end)
    assert.truthy(err:find("ptx.at guards one instruction, and ptx.scope opens a block", 1, true), err)
    err = dsl_error(function(ptx) ptx.scope(7) end)
    assert.truthy(err:find("ptx.scope(function() ... end): a function expected, got number", 1, true), err)
  end)

  it("runs in the emulator: each block's registers its own, its labels found in it", function()
    local ptx = H.fresh()
    -- the same loop in two blocks, on one label name, each counting with a block register
    local k = ptx.kernel { name = "k", params = { {"out", "u32*"} }, body = function(t, out)
      local o = ptx.global_ptrs(out)
      local x = ptx.special "tid.x"
      local acc = ptx.reg.u32 "acc"
      acc:set(0)
      for _, n in ipairs { 3, 5 } do
        ptx.scope(function()
          local left = ptx.reg.u32()
          local p = ptx.reg.pred { "p", bare = true }
          local again = ptx.label "again"
          left:set(n)
          ptx.place(again)
          ptx.add.u32(acc, acc, x)
          ptx.sub.u32(left, left, 1)
          ptx.setp.ne.u32(p, left, 0)
          ptx.at(p).bra(again)
        end)
      end
      local addr = ptx.reg.u64()
      ptx.mul.wide.u32(addr, x, 4)
      ptx.add.s64(addr, addr, o)
      ptx.st.global.u32(ptx.addr(addr), acc)
    end }
    local dev = rt.device "emu"
    local out = dev:array("u32", 64):poison()
    k:launch { device = dev, args = { out }, grid = 1, block = 64 }
    for i = 1, 64 do assert.are.equal(8 * (i - 1), out:get(i)) end
  end)
end)

describe("nested blocks read from PTX", function()
  it("the parser finds %r3 and %r4 outside an inner %r<3>, the inner t inside its block, and lints clean", function()
    local ptx_path = H.write(H.tmpfile(".ptx"), BLOCKS)
    local _, err, rc = H.ptxlua { "--lint", ptx_path }
    assert.are.equal(0, rc, err)
    if H.ptxas_path() then assert(H.assemble(BLOCKS, "sm_90a")) end
  end)

  for _, form in ipairs { "plain", "sugar" } do
    it("run in the emulator as ptxas reads them (" .. form .. "): hidden registers, a label of each block", function()
      local script = H.transpile(BLOCKS, "blocks", form)
      local ks = H.load_script(script)
      local dev = rt.device "emu"
      local out = dev:array("u32", 64):poison()
      ks.blocks:launch { device = dev, args = { out }, grid = 1, block = 64 }
      for i = 1, 64 do assert.are.equal(3 * (i - 1) + 200 + 1007, out:get(i)) end
    end)
  end

  it("--sugar writes them as DSL blocks, with nothing kept as written", function()
    local ptx_path = H.write(H.tmpfile(".ptx"), BLOCKS)
    local lua = H.tmpfile(".lua")
    local _, notes, rc = H.ptxlua { "--from-ptx", ptx_path, "--sugar", "-o", lua }
    assert.are.equal(0, rc, notes)
    assert.are.equal("", notes)
    local text = H.read(lua)
    -- the block's range under another Lua name (the kernel's r is still visible: %r3, %r4)
    assert.truthy(text:find('local r_2 = sugar.regs("b32", 3, "r")', 1, true), text)
    assert.truthy(text:find("ptx.add.u32(r[4], r[4], r[3])", 1, true), text)
    assert.truthy(text:find('local P1 = sugar.reg("pred", { "P1", bare = true })', 1, true), text)
    -- each block's labels in a table of its own, its loop folded on its label
    assert.truthy(text:find('local L1 = sugar.labels { "LOOP" }', 1, true), text)
    assert.truthy(text:find("ptx.do_while(L1[\"LOOP\"], function()", 1, true), text)
    -- the inner t hides the outer one, in Lua as in PTX
    assert.truthy(text:find('local t_ = sugar.reg("b32", { "t", bare = true })', 1, true), text)
    assert.truthy(text:find('local t__2 = sugar.reg("b32", { "t", bare = true })', 1, true), text)
    local back, err2 = H.ptxlua { lua, "--print-ptx" }
    assert.are.equal(BLOCKS, back, err2)
  end)
end)
