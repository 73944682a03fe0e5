-- alloc_spec.lua -- instruction chains do not allocate per call once warmed up.
local H = require "helper"

describe("instruction chains", function()
  it("allocate nothing per call once warmed up", function()
    local ptx = H.fresh()
    local grew
    ptx.kernel { name = "k", params = {}, body = function()
      local a, b, c = ptx.reg.f32(), ptx.reg.f32(), ptx.reg.f32()
      local p = ptx.pred()
      local function burst(n)
        for _ = 1, n do
          ptx.fma.rn.f32(a, b, c, a)
          ptx.op "add.rn.f32" (a, a, b)
          ptx.at(p).mul.rn.f32(c, a, 2.0)
        end
      end
      burst(2000)                               -- warm up: chain nodes, opcode ids, JIT traces
      -- the smallest growth of three rounds: a trace LuaJIT compiles (or aborts) mid-round is heap
      -- too, once; an allocation per call would be there in every round (60000 calls a round)
      for _ = 1, 3 do
        collectgarbage("collect")
        collectgarbage("stop")
        local before = collectgarbage("count")
        burst(20000)
        local g = collectgarbage("count") - before
        collectgarbage("restart")
        grew = math.min(grew or g, g)
      end
      ptx.ret()
    end }
    ptx.build {}
    -- 60000 instructions recorded a round; a single table per call would be over a megabyte
    assert.is_true(grew < 4, string.format("Lua heap grew by %.1f KB", grew))
  end)
end)
