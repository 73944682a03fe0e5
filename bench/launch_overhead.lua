-- launch_overhead.lua -- host time per launch of a cached kernel through ptxlua.cuda (from Lua):
-- kernel:launch{ async = true } of vector_add with the same options table, N launches, best of 5
-- rounds. Target: under 5 us.
-- Run: LUA_PATH="lua/?.lua;lua/?/init.lua;;" LUA_CPATH="build/lua/?.so;;" luajit bench/launch_overhead.lua [N]
-- Without a CUDA driver it says so and exits 0. With the test build's mock driver
-- (PTXLUA_LIBCUDA=build/tests/mock_cuda/libcuda.so.1) it measures ptxlua's side only.
local ptx = require "ptxlua"
local cuda = require "ptxlua.cuda"
local ok, why = cuda.available()
if not ok then print(tostring(why)); os.exit(0) end
dofile((os.getenv("PTXLUA_ROOT") or ".") .. "/kernels/vector_add.lua")
local k = ptx.kernels()[1]
local dev = cuda.device(0)
local mock = tostring(dev):find("mock", 1, true) ~= nil
local n = 1024
local x, y, out = dev:array("f32", n, 1), dev:array("f32", n, 2), dev:array("f32", n)
local opts = { device = dev, args = { x, y, out, n }, defines = { N = n }, async = true }
k:launch(opts); dev:sync()                        -- assemble, load, warm up
local iters = tonumber(arg and arg[1]) or 20000
local best = math.huge
for _ = 1, 5 do
  local t0 = os.clock()
  for _ = 1, iters do k:launch(opts) end
  best = math.min(best, (os.clock() - t0) / iters)
  dev:sync()
end
if not mock then assert(out:get(n) == 3, "wrong result") end
print(string.format("%s: %d launches of vector_add x 5, best %.2f us host time per launch (Lua)%s", tostring(dev), iters,
                    best * 1e6, mock and " [mock driver: ptxlua's side only]" or ""))
