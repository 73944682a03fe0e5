-- layernorm_tma: y[r, :] = (x[r, :] - mean) / sqrt(var + eps) * w + b (biased variance) over B rows
-- of N f32, the rows loaded by cp.async.bulk (kernels/layernorm_tma.lua: N a multiple of 4); shapes
-- as for rmsnorm_tma. Inputs get an offset (x in [2, 4]) so that the mean matters.
-- The tensors, arguments, reference and byte count are those of cases/layernorm.lua (the same
-- computation); only the kernel and its shapes differ.
local case = {}
for k, v in pairs(dofile((debug.getinfo(1, "S").source:match("^@(.*[/\\])") or "") .. "layernorm.lua")) do case[k] = v end
case.script, case.kernel = "kernels/layernorm_tma.lua", "layernorm_tma"
case.configs = { { B = 4096, N = 8192 }, { B = 1000, N = 5000, ROWS = 3 }, { B = 8190, N = 1024, ROWS = 8 } }
case.emu = { { B = 3, N = 8192 }, { B = 5, N = 5000, ROWS = 3 }, { B = 7, N = 1024, ROWS = 8 } }
return case
