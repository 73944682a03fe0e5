-- swiglu_f32 (f32 in and out): out = silu(gate) * up over M x N; the uneven shape leaves a
-- partial last vector. Tolerance: the default f32 1e-5 (ex2.approx and rcp.approx: a few ulp).
-- The case is swiglu.lua's (its `variant`), for the f32 kernel.
local here = debug.getinfo(1, "S").source:match("^@(.*[/\\])") or ""
return dofile(here .. "swiglu.lua").variant("swiglu_f32", "f32", 4)
