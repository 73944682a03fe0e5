-- fma_unrolled.lua -- a scalar-operand benchmark kernel: NINSN fma.rn.f32 on a 64-register accumulator
-- array (environment variable NINSN, default 1M). Run: NINSN=1000000 ptxlua bench/fma_unrolled.lua --print-ptx > /dev/null
local ptx = require "ptxlua"
local N = tonumber(os.getenv("NINSN") or "1000000")
ptx.kernel { name = "big", params = {{"x","f32*"}}, body = function(t, x)
  local a = ptx.regs.f32(64, "acc")
  local b = ptx.regs.f32(8, "bf")
  local n = 0
  while n < N do
    for i = 1, 64 do
      ptx.fma.rn.f32(a[i], b[(i % 8) + 1], b[((i + 3) % 8) + 1], a[i])
    end
    n = n + 64
  end
  ptx.ret()
end }
