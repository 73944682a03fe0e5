-- vector_add: out = x + y over N f32 (memory bound: 12 bytes an element). An uneven N checks the
-- bounds guard of the last CTA.
return {
  script = "kernels/vector_add.lua",
  kernel = "vector_add",
  configs = { { N = 134217728 }, { N = 1000003 } },
  emu = { { N = 100003 }, { N = 257 } },
  tensors = function(t)
    return { x = { "f32", t.N }, y = { "f32", t.N }, out = { "f32", t.N, output = true } }
  end,
  args = function(t, T) return { T.x, T.y, T.out, t.N } end,
  reference = function(t, In, Out)
    for i = 0, t.N - 1 do Out.out[i] = In.x[i] + In.y[i] end
  end,
  bytes = function(t) return 3 * 4 * t.N end,
}
