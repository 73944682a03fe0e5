-- determinism_spec.lua -- what you write is what you get, every time: the same script gives
-- byte-identical PTX in one process, in two processes, and whatever was traced before it.
local H = require "helper"

-- two kernels that use most of what allocates names: pools, arrays, labels, loops, shared memory
local SCRIPT = [[
local ptx = require "ptxlua"

ptx.kernel {
  name = "scale", templates = { N = 1024, BLOCK = 128 },
  params = { {"x", "f32*"}, {"y", "f32*"}, {"n", "u32"}, {"alpha", "f32"} },
  maxntid = function(t) return { t.BLOCK } end,
  body = function(t, x, y, n, alpha)
    local px, py = ptx.global_ptrs(x, y)
    local i = ptx.special("ctaid.x"):mad(t.BLOCK, ptx.special "tid.x")
    local done = ptx.label "done"
    ptx.at(i:ge(n:load())).bra(done)
    local off = i:mul_wide(4)
    local v = ptx.regs.f32(4)
    local a = alpha:load()
    ptx.ld.global.v4.f32(v, ptx.addr(px + off))
    local acc = ptx.f32(0)
    ptx.range(0, 4, function(k) acc:set(acc:fma(a, v[1])) end)
    ptx.if_(acc:lt(0), function() acc:set(0) end, function() acc:set(acc * 2) end)
    ptx.warp_reduce(acc, "sum")
    ptx.st.global.f32(ptx.addr(py + off), acc)
    ptx.place(done)
    ptx.ret()
  end,
}

ptx.kernel {
  name = "count", templates = { STEPS = 3 },
  params = { {"out", "u32*"}, {"n", "u32"} },
  body = function(t, out, n)
    local po = ptx.global_ptrs(out)
    local tile = ptx.shared("tile", "u32", 32)
    local total = ptx.u32(0)
    ptx.loop(n:load(), function(i) total:set(total + i) end)
    ptx.range(t.STEPS, 0, -1, function(i) total:set(total:bxor(i:as("u32"))) end)
    local r = ptx.reg.u32 "lane"
    ptx.mov.u32(r, ptx.sreg.laneid)
    ptx.st.shared.u32(ptx.addr(tile), total)
    ptx.if_(r:eq(0), function() ptx.st.global.u32(ptx.addr(po), total) end)
    ptx.ret()
  end,
}
]]

local function script_path()
  return H.write(H.tmpfile(".lua"), SCRIPT)
end

-- load the script in this process; returns the DSL and the kernels by name
local function load(path)
  local ks, _, ptx = H.load_script(path)
  return ptx, ks
end

-- the text of one function (from its .globl line to its closing brace)
local function func_text(ptx_text, name)
  local s = ptx_text:find("\t// .globl\t" .. name .. "\n", 1, true)
  assert.truthy(s, "no function " .. name)
  local e = ptx_text:find("\n}\n", s, true)
  return ptx_text:sub(s, e + 2)
end

describe("in one process", function()
  it("the same kernel traced twice is byte-identical (and so is the module)", function()
    local ptx, ks = load(script_path())
    for _, anchors in ipairs { "none", "comment", "loc" } do
      assert.are.equal(ks.scale:ptx { anchors = anchors }, ks.scale:ptx { anchors = anchors })
      assert.are.equal(ptx.ptx { anchors = anchors }, ptx.ptx { anchors = anchors })
    end
  end)

  it("a kernel's PTX does not depend on what was traced before it", function()
    local ptx, ks = load(script_path())
    local alone = ks.count:ptx()
    ks.scale:ptx(); ks.scale:ptx { defines = { BLOCK = "64" } }
    assert.are.equal(alone, ks.count:ptx())
    -- and inside a module after another kernel, its function reads the same
    local both = ptx.ptx()
    assert.are.equal(func_text(alone, "count"), func_text(both, "count"))
    assert.are.equal(func_text(ks.scale:ptx(), "scale"), func_text(both, "scale"))
  end)

  it("a trace that failed half-way leaves nothing behind", function()
    local ptx, ks = load(script_path())
    local before = ks.count:ptx()
    ptx.kernel { name = "broken", body = function()
      local p = ptx.pred()
      ptx.range(0, 4, function() ptx.reg.u32 "x"; ptx.at(p); error("stop") end)
    end }
    local ok = pcall(ptx.ptx, { kernels = { "broken" } })
    assert.is_false(ok)
    assert.are.equal(before, ks.count:ptx())
    -- and the DSL is not left inside a trace
    local ok2, err = pcall(function() return ptx.reg.f32() end)
    assert.is_false(ok2)
    assert.truthy(err:find("no kernel is being traced", 1, true), err)
  end)

  it("reloading the script gives the same text", function()
    local path = script_path()
    local ptx = load(path)
    local first = ptx.ptx { anchors = "comment" }
    ptx = load(path)
    assert.are.equal(first, ptx.ptx { anchors = "comment" })
  end)

  it("defines apply to one trace only", function()
    local _, ks = load(script_path())
    local default = ks.scale:ptx()
    local other = ks.scale:ptx { defines = { BLOCK = "64" } }
    assert.are_not.equal(default, other)
    assert.truthy(other:find(".maxntid 64, 1, 1", 1, true))
    assert.are.equal(default, ks.scale:ptx())
    assert.are.equal(other, ks.scale:ptx { defines = { BLOCK = "64" } })
  end)
end)

describe("in two processes", function()
  it("the command prints byte-identical PTX every run, the same as in this process", function()
    local path = script_path()
    for _, extra in ipairs { {}, { "--anchors" }, { "--anchors=loc" }, { "--kernel", "count" }, { "-D", "STEPS=5" } } do
      local args = { path }
      for _, a in ipairs(extra) do args[#args + 1] = a end
      local out1, err1, rc1 = H.ptxlua(args)
      local out2, _, rc2 = H.ptxlua(args)
      assert.are.equal(0, rc1, err1)
      assert.are.equal(0, rc2)
      assert.are.equal(out1, out2)
    end
    local out = H.ptxlua { path }
    local ptx = load(path)
    assert.are.equal(ptx.ptx(), out)
  end)

  it("-o writes the same bytes as standard output", function()
    local path = script_path()
    local out = H.ptxlua { path, "--anchors=loc" }
    local file = H.tmpfile(".ptx")
    local _, err, rc = H.ptxlua { path, "--anchors=loc", "-o", file }
    assert.are.equal(0, rc, err)
    assert.are.equal(out, H.read(file))
  end)
end)
