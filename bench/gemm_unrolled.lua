-- gemm_unrolled.lua -- the benchmark kernel: a fully unrolled bf16 tensor-core GEMM main loop of
-- about N instructions (templates N), the shape of code a real sm_80 GEMM traces to.
-- CTA tile 128x128x32, 4 warps each owning a 64x32 tile of C: a 64-register f32 accumulator array
-- (4 x 4 m16n8k16 tiles). One stage of the main loop (BK = 32, a 3-slot cp.async ring):
--   staging: 2 add.u64 (advance the global pointers), 1 add.u32 (ring slot address),
--            8 cp.async.cg.shared.global 16-byte copies (4 for A, 4 for B), commit, wait_group 1, bar.sync
--   twice (k16 = 0, 16): 6 xor.b32 swizzled fragment addresses, 4 ldmatrix.x4 for A, 2 for B,
--            16 mma.sync.aligned.m16n8k16.row.col.f32.bf16.bf16.f32 on the accumulators
-- = 70 instructions a stage, every one recorded through the DSL (operators for the address
-- arithmetic, instruction chains for the rest). The main loop has as many stages as fit in N after
-- the prologue (pointers, thread coordinates, 64 mov.f32 zeroing the accumulators: 107
-- instructions) and the epilogue (10 address instructions, 64 st.global.f32): a trace has between
-- N - 69 and N instructions (181 at least); the K this kernel multiplies is 32 * stages. It is a
-- benchmark, not a numerically checked GEMM (no K tail, no bounds handling).
-- Used by bench/trace_throughput.lua and bench/callgrind.sh; runnable by itself (N = 1M by default):
--   ptxlua bench/gemm_unrolled.lua -D N=100000 --print-ptx
local ptx = require "ptxlua"

local STAGES = 3               -- slots of the cp.async ring
local SLOT_A = 128 * 32 * 2    -- bytes of one A slot (128 rows x 32 bf16)
local SLOT_B = 128 * 32 * 2
local PER_STAGE = 70           -- instructions of one stage of the main loop
local EPILOGUE = 10 + 64       -- instructions after the main loop (10 address arithmetic + 64 stores)

-- instructions recorded so far in the kernel being traced
local function recorded() return ptx._current().mod:stats().instructions end

ptx.kernel {
  name = "gemm_unrolled",
  target = "sm_80",
  templates = { N = 1000000, LDA = 4096 },
  params = { {"A", "bf16*"}, {"B", "bf16*"}, {"C", "f32*"} },
  block = { 128 },
  maxntid = { 128 },
  body = function(t, A, B, C)
    if type(t.N) ~= "number" or t.N < 0 then ptx.error("N must be a number >= 0 (got %s)", tostring(t.N)) end
    local lda = t.LDA                                  -- row stride of A and B (elements)
    -- prologue: pointers, thread coordinates, shared memory addresses
    local pa, pb, pc = ptx.global_ptrs(A, B, C)
    local tid = ptx.special "tid.x"
    local lane = tid:band(31)
    local warp = tid:shr(5)
    local sA = ptx.shared("sA", "bf16", STAGES * SLOT_A / 2, 128)
    local sB = ptx.shared("sB", "bf16", STAGES * SLOT_B / 2, 128)
    local sa, sb = ptx.reg.u32(), ptx.reg.u32()
    ptx.mov.u32(sa, sA)
    ptx.mov.u32(sb, sB)
    -- cp.async: thread tid copies 16 bytes of row tid/4 (+32, +64, +96), column (tid%4)*8
    local crow, ccol = tid:shr(2), tid:band(3)
    local goff = (crow * lda + ccol * 8):mul_wide(2)
    local ga, gb = pa + goff, pb + goff
    local swa = sa + (crow * 64 + ccol * 16)           -- this thread's store address in slot 0
    local swb = sb + (crow * 64 + ccol * 16)
    -- ldmatrix: lane l reads row l%16 of its warp's tile, 16-byte column l/16 (xor-swizzled)
    local lrow, lcol = lane:band(15), lane:shr(4)
    local ra = sa + ((warp:band(1) * 64 + lrow) * 64 + lcol * 16)
    local rb = sb + ((warp:shr(1) * 32 + lrow) * 64 + lcol * 16)
    local acc = ptx.regs.f32(64, "acc")
    local af = ptx.regs.b32(16, "af")                 -- A fragments: 4 m16 tiles x 4 registers
    local bf = ptx.regs.b32(8, "bf")                  -- B fragments: 4 n8 tiles x 2 registers
    for i = 1, 64 do ptx.mov.f32(acc[i], 0) end

    -- the fully unrolled main loop
    local function stage(s)
      local slot = s % STAGES
      ga, gb = ga + 64, gb + 64                        -- next 32 columns of A and B
      local wa = swa + slot * SLOT_A
      for i = 0, 3 do ptx.cp.async.cg.shared.global(ptx.addr(wa, i * 2048), ptx.addr(ga, i * 32 * lda * 2), 16) end
      for i = 0, 3 do ptx.cp.async.cg.shared.global(ptx.addr(swb, slot * SLOT_B + i * 2048), ptx.addr(gb, i * 32 * lda * 2), 16) end
      ptx.cp.async.commit_group()
      ptx.cp.async.wait_group(STAGES - 2)
      ptx.bar.sync(0)
      local rslot = (s + 1) % STAGES                   -- the slot that is ready
      for k16 = 0, 1 do
        for mi = 0, 3 do
          local adr = ra:bxor(k16 * 32 + mi * 16)
          local f = { af[mi * 4 + 1], af[mi * 4 + 2], af[mi * 4 + 3], af[mi * 4 + 4] }
          ptx.ldmatrix.sync.aligned.m8n8.x4.shared.b16(f, ptx.addr(adr, rslot * SLOT_A + mi * 1024))
        end
        for ni = 0, 1 do
          local adr = rb:bxor(k16 * 32 + ni * 16)
          local f = { bf[ni * 4 + 1], bf[ni * 4 + 2], bf[ni * 4 + 3], bf[ni * 4 + 4] }
          ptx.ldmatrix.sync.aligned.m8n8.x4.shared.b16(f, ptx.addr(adr, rslot * SLOT_B + ni * 1024))
        end
        for mi = 0, 3 do
          local a = { af[mi * 4 + 1], af[mi * 4 + 2], af[mi * 4 + 3], af[mi * 4 + 4] }
          for ni = 0, 3 do
            local b = { bf[ni * 2 + 1], bf[ni * 2 + 2] }
            local c0 = (mi * 4 + ni) * 4
            local d = { acc[c0 + 1], acc[c0 + 2], acc[c0 + 3], acc[c0 + 4] }
            ptx.mma.sync.aligned.m16n8k16.row.col.f32.bf16.bf16.f32(d, a, b, d)
          end
        end
      end
    end
    local before = recorded()
    local stages = math.max(0, math.floor((t.N - before - EPILOGUE) / PER_STAGE))
    for s = 0, stages - 1 do stage(s) end
    assert(recorded() - before == stages * PER_STAGE, "PER_STAGE is out of date")

    -- epilogue: each thread stores its 64 accumulators
    -- (lane l holds rows l/4 and l/4 + 8, columns 2*(l%4) and +1 of each m16n8 tile)
    local cp = pc + ((warp:band(1) * 64 + lane:shr(2)) * lda + lane:band(3) * 2):mul_wide(4)
    for i = 0, 63 do
      local mi, ni, e = math.floor(i / 16), math.floor(i / 4) % 4, i % 4
      local off = (mi * 16 + math.floor(e / 2) * 8) * lda * 4 + (ni * 8 + e % 2) * 4
      ptx.st.global.f32(ptx.addr(cp, off), acc[i + 1])
    end
  end,
}
