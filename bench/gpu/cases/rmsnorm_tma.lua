-- rmsnorm_tma: y[r, :] = x[r, :] / sqrt(mean(x[r, :]^2) + eps) * w over B rows of N f32, the rows
-- loaded by cp.async.bulk (kernels/rmsnorm_tma.lua: N a multiple of 4). The second shape leaves a
-- partial last sweep (N = 5000) and a last CTA with fewer rows (ROWS = 3: 334 CTAs, the last with
-- one row); the third has short rows, many per CTA (ROWS = 8, the last CTA with 6).
-- The tensors, arguments, reference and byte count are those of cases/rmsnorm.lua (the same
-- computation); only the kernel and its shapes differ.
local case = {}
for k, v in pairs(dofile((debug.getinfo(1, "S").source:match("^@(.*[/\\])") or "") .. "rmsnorm.lua")) do case[k] = v end
case.script, case.kernel = "kernels/rmsnorm_tma.lua", "rmsnorm_tma"
case.configs = { { B = 4096, N = 8192 }, { B = 1000, N = 5000, ROWS = 3 }, { B = 8190, N = 1024, ROWS = 8 } }
case.emu = { { B = 3, N = 8192 }, { B = 5, N = 5000, ROWS = 3 }, { B = 7, N = 1024, ROWS = 8 } }
return case
