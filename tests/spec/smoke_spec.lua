-- smoke_spec.lua -- the first things a user does: print the example kernel, assemble it.
local H = require "helper"

describe("ptxlua command", function()
  it("prints the PTX of kernels/vector_add.lua and ptxas accepts it", function()
    local out, err, rc = H.ptxlua { H.root .. "/kernels/vector_add.lua", "--print-ptx" }
    assert.are.equal(0, rc, err)
    assert.truthy(out:find(".visible .entry vector_add(", 1, true))
    local ok, report = H.assemble(out, "sm_90a")
    if ok == nil then return end
    assert.is_true(ok, report)
    assert.are.equal(0, H.spills(report))
  end)
end)

describe("the DSL in this LuaJIT", function()
  it("records one instruction per operator", function()
    local text = H.body(function(ptx)
      local a, b = ptx.reg.f32(), ptx.reg.f32()
      local c = a + b
    end)
    assert.are.same({ "add.rn.f32 %f3, %f1, %f2;" }, H.insns(text))
  end)
end)
