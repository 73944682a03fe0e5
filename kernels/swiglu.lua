-- swiglu.lua -- SwiGLU, elementwise: out = silu(gate) * up, silu(g) = g / (1 + exp(-g)).
-- gate, up and out are separate M x N row-major tensors (not one fused [M, 2N] tensor), bf16 in
-- kernel `swiglu` and f32 in kernel `swiglu_f32`; the math is f32 in registers. The tensors are
-- walked as one flat array of M*N elements in 16-byte vectors (8 bf16 or 4 f32): each thread takes
-- UNROLL vectors, a block-width apart (coalesced ld.global.nc.v4 / st.global.v4). Vectors past the
-- end are skipped (a branch, only in the last CTAs of an uneven shape); a last partial vector (M*N
-- not a multiple of the vector) is done element by element by the one thread whose vector it is.
--
-- Accuracy: exp(-g) is ex2.approx.ftz(g * -log2(e)) and 1/(1 + e) is rcp.approx.ftz: a few f32 ulp,
-- far below bf16 rounding (outputs are rounded to nearest even by cvt.rn.bf16x2.f32). For g below
-- about -88, exp(-g) overflows to +inf and silu(g) = g * 0 = -0 (the true value is below 1e-36).
--
-- Templates: M, N the shape, BLOCK threads per CTA, UNROLL vectors a thread.
-- Shapes: every M, N >= 1 with M*N < 2^32. Pointers must be 16-byte aligned.
-- ptxas (CUDA 13.0, sm_90a) at the defaults: 256 threads, 32 registers (both kernels), no shared
-- memory, no spills; 14336 CTAs of 512 vectors, no bounds checks (the shape fills them).
local ptx = require "ptxlua"

local LOG2E = 1.4426950408889634

local function plan(t, dtype)
  ptx.check_templates(t, {
    M = { min = 1 }, N = { min = 1 },
    BLOCK = { min = 32, max = 1024, multiple = 32 },
    UNROLL = { min = 1, max = 8 },
  })
  local P = { esize = dtype == "bf16" and 2 or 4 }
  P.total = t.M * t.N
  if P.total >= 2 ^ 32 then ptx.error("M*N = %.0f elements: the kernel indexes with 32 bits (M*N must be below 2^32)", P.total) end
  P.vec = 16 / P.esize                                  -- elements per 16-byte vector
  P.nvec = math.floor(P.total / P.vec)                  -- whole vectors
  P.rest = P.total % P.vec                              -- elements in the last, partial vector
  P.per_cta = t.BLOCK * t.UNROLL                        -- vectors per CTA
  P.items = P.nvec + (P.rest > 0 and 1 or 0)
  P.ctas = math.ceil(P.items / P.per_cta)
  if P.ctas > 2147483647 then ptx.error("grid of %.0f CTAs exceeds 2^31-1 (raise BLOCK or UNROLL)", P.ctas) end
  return P
end

-- silu(g) * u in f32: e = 2^(-g*log2(e)); r = 1/(1+e); (g*r)*u   (mul, ex2, add, rcp, mul, mul)
local function swiglu(g, u)
  local e = ptx.reg.f32()
  ptx.ex2.approx.ftz.f32(e, g * -LOG2E)
  local r = ptx.reg.f32()
  ptx.rcp.approx.ftz.f32(r, e + 1)
  return g * r * u
end

-- n fresh registers of type t
local function regs(t, n)
  local r = {}
  for j = 1, n do r[j] = ptx.reg[t]() end
  return r
end

-- the two f32 values of a bf16x2 word: lo = bits << 16, hi = bits & 0xffff0000 (low half first in memory)
local function unpack_bf16x2(word)
  local lo, hi = ptx.reg.f32(), ptx.reg.f32()
  ptx.shl.b32(lo, word, 16)
  ptx.and_.b32(hi, word, 0xffff0000)
  return lo, hi
end

-- one kernel per element type: swiglu (bf16 in and out) and swiglu_f32
local function define(name, dtype)
  ptx.kernel {
    name = name,
    doc = "out = silu(gate) * up elementwise over M x N (" .. dtype .. " in and out, f32 math)",
    templates = { M = 4096, N = 14336, BLOCK = 256, UNROLL = 2 },
    params = { {"gate", dtype .. "*", shape = {"M", "N"}}, {"up", dtype .. "*", shape = {"M", "N"}},
               {"out", dtype .. "*", shape = {"M", "N"}} },
    grid = function(t) return { plan(t, dtype).ctas } end,
    block = function(t) plan(t, dtype); return { t.BLOCK } end,
    maxntid = function(t) plan(t, dtype); return { t.BLOCK } end,
    -- --emulate: an uneven M x N; out against silu(gate) * up in doubles (the type's tolerance:
    -- bf16 1e-2, f32 1e-5, relative plus that much of out's RMS)
    emulate = { M = 7, N = 1001 },
    reference = function(t, x)
      local g, u, out = x.gate, x.up, {}
      for i = 1, t.M * t.N do local v = g[i]; out[i] = v / (1 + math.exp(-v)) * u[i] end
      return { out = out }
    end,
    body = function(t, gate, up, out)
      local P = plan(t, dtype)
      local pg, pu, po = ptx.global_ptrs(gate, up, out)

      -- place: this thread's first vector v0 = ctaid.x * BLOCK * UNROLL + tid.x; its other
      -- vectors follow a block-width (BLOCK vectors) apart
      local tid = ptx.special "tid.x"
      local v0 = ptx.special("ctaid.x"):mad(P.per_cta, tid)
      local off = v0:mul_wide(16)
      local ag, au, ao = pg + off, pu + off, po + off
      local exact = P.ctas * P.per_cta == P.nvec        -- every thread has all its vectors: no guards

      for u = 0, t.UNROLL - 1 do
        local at = u * t.BLOCK * 16                      -- byte offset of this vector from v0's
        local function vector()
          if dtype == "bf16" then
            -- load 8 + 8 bf16 (4 words each), unpack to f32, compute, pack pairs, store 8 bf16
            local g, w = regs("b32", 4), regs("b32", 4)
            ptx.ld.global.nc.v4.b32(g, ptx.addr(ag, at))
            ptx.ld.global.nc.v4.b32(w, ptx.addr(au, at))
            local o = regs("b32", 4)
            for j = 1, 4 do
              local g0, g1 = unpack_bf16x2(g[j])
              local u0, u1 = unpack_bf16x2(w[j])
              local y0, y1 = swiglu(g0, u0), swiglu(g1, u1)
              ptx.op "cvt.rn.bf16x2.f32" (o[j], y1, y0)  -- the first operand goes to the high half
            end
            ptx.st.global.v4.b32(ptx.addr(ao, at), o)
          else
            -- load 4 + 4 f32, compute, store 4 f32
            local g, w = regs("f32", 4), regs("f32", 4)
            ptx.ld.global.nc.v4.f32(g, ptx.addr(ag, at))
            ptx.ld.global.nc.v4.f32(w, ptx.addr(au, at))
            local o = {}
            for j = 1, 4 do o[j] = swiglu(g[j], w[j]) end
            ptx.st.global.v4.f32(ptx.addr(ao, at), o)
          end
        end
        -- a vector past the end (only in the last CTAs of an uneven shape) is skipped
        if exact then vector()
        else ptx.if_(v0:lt(math.max(0, P.nvec - u * t.BLOCK)), vector) end

        -- the last, partial vector (item nvec): its one thread does it element by element
        if P.rest > 0 and u == math.floor((P.nvec % P.per_cta) / t.BLOCK) then
          ptx.if_(v0:eq(P.nvec - u * t.BLOCK), function()
            for j = 0, P.rest - 1 do
              local b = at + j * P.esize
              local gf, uf = ptx.reg.f32(), ptx.reg.f32()
              if dtype == "bf16" then
                local gb, ub = ptx.reg.u32(), ptx.reg.u32()
                ptx.ld.global.nc.u16(gb, ptx.addr(ag, b))
                ptx.ld.global.nc.u16(ub, ptx.addr(au, b))
                ptx.shl.b32(gf, gb, 16)
                ptx.shl.b32(uf, ub, 16)
                local h = ptx.reg.b16()
                ptx.op "cvt.rn.bf16.f32" (h, swiglu(gf, uf))
                ptx.st.global.b16(ptx.addr(ao, b), h)
              else
                ptx.ld.global.nc.f32(gf, ptx.addr(ag, b))
                ptx.ld.global.nc.f32(uf, ptx.addr(au, b))
                ptx.st.global.f32(ptx.addr(ao, b), swiglu(gf, uf))
              end
            end
          end)
        end
      end
      ptx.ret()
    end,
  }
end

define("swiglu", "bf16")
define("swiglu_f32", "f32")
