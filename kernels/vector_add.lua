-- vector_add.lua -- out[i] = x[i] + y[i] for i < n: the smallest complete ptxlua kernel.
local ptx = require "ptxlua"

ptx.kernel {
  name = "vector_add",
  templates = { N = 1048576, BLOCK = 256 },
  params = { {"x", "f32*", shape = {"n"}}, {"y", "f32*", shape = {"n"}}, {"out", "f32*", shape = {"n"}}, {"n", "u32"} },
  block = function(t) return { t.BLOCK } end,
  grid = function(t) return { math.ceil(t.N / t.BLOCK) } end,
  maxntid = function(t) return { t.BLOCK } end,
  -- --emulate: n = N = 1003 (a partial last block), out against x + y (f32 adds: exact to 1 ulp)
  emulate = { N = 1003 },
  reference = function(t, x)
    local out = {}
    for i = 1, x.n do out[i] = x.x[i] + x.y[i] end
    return { out = out }
  end,
  body = function(t, x, y, out, n)
    -- index: i = ctaid.x * ntid.x + tid.x
    local px, py, po = ptx.global_ptrs(x, y, out)
    local count = n:load()
    local i = ptx.special("ctaid.x"):mad(ptx.special "ntid.x", ptx.special "tid.x")
    -- bounds: threads past the end do nothing
    local done = i:ge(count)
    local L = ptx.label "done"
    ptx.at(done).bra(L)
    -- load, add, store
    local off = i:mul_wide(4)
    local a = ptx.reg.f32()
    local b = ptx.reg.f32()
    local ax, ay, ao = px + off, py + off, po + off
    ptx.ld.global.f32(a, ptx.addr(ax))
    ptx.ld.global.f32(b, ptx.addr(ay))
    ptx.st.global.f32(ptx.addr(ao), a + b)
    ptx.place(L)
    ptx.ret()
  end,
}
