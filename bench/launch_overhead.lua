-- launch_overhead.lua -- host time per launch of a cached kernel through ptxlua.cuda (from Lua).
-- Run: LUA_PATH="lua/?.lua;lua/?/init.lua;;" LUA_CPATH="build/lua/?.so;;" luajit bench/launch_overhead.lua [N]
-- Without a CUDA driver it says so and exits 0.
local ptx = require "ptxlua"
local cuda = require "ptxlua.cuda"
local ok, why = cuda.available()
if not ok then print(tostring(why)); os.exit(0) end
dofile((os.getenv("PTXLUA_ROOT") or ".") .. "/kernels/vector_add.lua")
local k = ptx.kernels()[1]
local dev = cuda.device(0)
local n = 1024
local x, y, out = dev:array("f32", n, 1), dev:array("f32", n, 2), dev:array("f32", n)
local opts = { device = dev, args = { x, y, out, n }, defines = { N = n }, async = true }
k:launch(opts); dev:sync()                        -- assemble, load, warm up
local iters = tonumber(arg and arg[1]) or 20000
local t0 = os.clock()
for _ = 1, iters do k:launch(opts) end
local host = (os.clock() - t0) / iters
dev:sync()
assert(out:get(n) == 3, "wrong result")
print(string.format("%s: %d launches of vector_add, %.2f us host time per launch (Lua)", tostring(dev), iters, host * 1e6))
