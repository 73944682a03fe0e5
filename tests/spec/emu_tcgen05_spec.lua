-- emu_tcgen05_spec.lua -- tcgen05 and tensor memory in the emulator (src/emu/blackwell/): the
-- ld/st fragment maps of every shape against the ISA's (CUTLASS's) formulas, the MMA kinds against
-- a reference in double from the rounded inputs, and one broken kernel per check, each reported at
-- its line (and the other line it names).

local H = require "helper"
local rt = require "ptxlua.emu"
local bit = require "bit"

local fmt = string.format

-- register r of thread t of each shape: lane and column from the base (32-bit columns)
local FRAG = {
  ["32x32b"] = function(t, r) return t, r end,
  ["16x64b"] = function(t, r) return bit.rshift(t, 2) + 8 * bit.band(t, 1), bit.band(bit.rshift(t, 1), 1) + 2 * r end,
  ["16x128b"] = function(t, r) return bit.rshift(t, 2) + 8 * bit.band(r, 1), bit.band(t, 3) + 4 * bit.rshift(r, 1) end,
  ["16x256b"] = function(t, r)
    return bit.rshift(t, 2) + 8 * bit.band(bit.rshift(r, 1), 1), 2 * bit.band(t, 3) + bit.band(r, 1) + 8 * bit.rshift(r, 2)
  end,
}
local REGS = { ["32x32b"] = 1, ["16x64b"] = 1, ["16x128b"] = 2, ["16x256b"] = 4 }

-- the line of the next line of the caller
local function nextline() return debug.getinfo(2, "l").currentline + 1 end

describe("emulated tensor memory", function()
  local dev = rt.device("emu")

  -- 128 threads; warp 0 allocates 128 columns; every warp fills its lane quarter with 32x32b
  -- (cell = lane << 16 | column), then body(ptx, env) runs; env.out stores registers per thread
  local function tm_kernel(ptx, name, body, opts)
    opts = opts or {}
    return ptx.kernel { name = name, target = "sm_100a", params = { { "out", "u32*" } }, body = function(_, out)
      local plan = ptx.smem_plan()
      local slot = plan:alloc("slot", "u32", 1, { align = 16 })
      local tm = ptx.tmem_plan()
      local acc = tm:alloc("acc", opts.cols or 128)
      local tid = ptx.special "tid.x"
      local warp = tid:shr(5)
      local lane = tid:band(31)
      ptx.if_(warp:eq(0), function() tm:allocate(slot) end)
      ptx.tcgen05_fence("before")
      ptx.bar.sync(0)
      ptx.tcgen05_fence("after")
      local base = ptx.reg.u32()
      ptx.ld.shared.u32(base, slot:addr(0))
      local env = { tid = tid, warp = warp, lane = lane, base = base, tm = tm, acc = acc, slot = slot }
      env.quarter = base + warp:shl(21)                  -- lane 32 w of the base
      if not opts.nofill then
        local regs = {}
        local row = warp:shl(5) + lane
        for c = 0, 31 do
          local v = ptx.reg.u32()
          ptx.op "or.b32" (v, row:shl(16), c)
          regs[#regs + 1] = v
        end
        ptx.tcgen05_st { shape = "32x32b", num = 32, taddr = env.quarter, regs = regs }
        ptx.tcgen05_wait("st")
      end
      local p = ptx.global_ptrs(out)
      env.store = function(vals)
        local b = p + tid:mul_wide(4 * #vals)
        for j, v in ipairs(vals) do ptx.st.global.u32(ptx.addr(b, (j - 1) * 4), v) end
      end
      body(ptx, env)
      ptx.tcgen05_fence("before")
      ptx.bar.sync(0)
      ptx.if_(warp:eq(0), function() tm:deallocate(base) end)
    end }
  end

  local function launch(k, nout, block)
    local out = dev:array("u32", (block or 128) * nout):poison()
    local ok, err = pcall(rt.launch, k, { device = dev, args = { out }, grid = { 1 }, block = { block or 128 } })
    local got = ok and out:read() or nil
    out:free()
    return ok, err, got
  end

  for shape, per in pairs(REGS) do
    for _, pack in ipairs { false, true } do
      it(fmt("tcgen05.ld .%s%s reads each register's cell (every warp, its lane quarter)", shape, pack and ".pack::16b" or ""), function()
        local ptx = H.fresh()
        local num = pack and 2 or 4
        local nr = num * per
        local k = tm_kernel(ptx, "ld", function(p, env)
          local r = p.tcgen05_ld { shape = shape, num = num, taddr = env.quarter, pack = pack }
          p.tcgen05_wait("ld")
          local vals = {}
          for i = 1, nr do vals[i] = r[i] end
          env.store(vals)
        end)
        local ok, err, got = launch(k, nr)
        assert.is_true(ok, err)
        for t = 0, 127 do
          local w, lt = math.floor(t / 32), t % 32
          for r = 0, nr - 1 do
            local ln, cl = FRAG[shape](lt, r)
            local lane = 32 * w + ln
            local want
            if pack then want = bit.bor(bit.lshift(2 * cl + 1, 16), 2 * cl)  -- low halves of columns 2c, 2c+1
            else want = bit.bor(bit.lshift(lane, 16), cl) end
            want = want % 2 ^ 32
            assert.are.equal(want, got[t * nr + r + 1], fmt("thread %d register %d", t, r))
          end
        end
      end)
    end
  end
end)
