-- guard_spec.lua -- ptx.at(p) guards exactly the instruction of the call it prefixes, never one that
-- the call's arguments record. Every DSL entry point is called through a guard with an argument
-- expression that records an instruction (a marker), and the PTX is checked against the same call
-- made without the guard: the marker unguarded, then the call's one instruction with @%p1, and
-- nothing else -- or an error at the call's line. A new entry point of the DSL fails the coverage
-- test until it is listed here with what a guard does to it.
local H = require "helper"

local MARK = "add.u32"   -- the marker: add.u32 %rM, %rM, 7 (a register kept for it)

-- each entry point: one of
--   one = function(g, e) ... end   a call through g (ptx.at(p), or ptx when unguarded) that
--                                  records one instruction; e.rec(x) records the marker, returns x
--   err = "needle", call = ...      the guarded call is an error at its line mentioning needle
-- setup(ptx) -> e (extra fields), finish(ptx, e): around the call
local function plan_bar(ptx)
  local plan = ptx.smem_plan()
  local tile = plan:alloc("a", "bf16", { 64, 64 }, { swizzle = "128B" })
  return { bar = plan:alloc("full", "b64", 1, { align = 8 }), tile = tile }
end

local CASES = {
  -- instruction chains and opcode strings
  ["chain add.u32"] = { one = function(g, e) g.add.u32(e.d, e.rec(e.a), 1) end },
  ["chain st.global.u32"] = { one = function(g, e) g.st.global.u32(e.ptx.addr(e.rec(e.px)), e.a) end },
  ["chain bra"] = { one = function(g, e) g.bra(e.rec(e.L)) end,
                    setup = function(ptx) return { L = ptx.label() } end,
                    finish = function(ptx, e) ptx.place(e.L) end },
  ["chain cvt.rn.f32.u32"] = { one = function(g, e) g.cvt.rn.f32.u32(e.f, e.rec(e.a)) end },
  ["chain kept in a local"] = { one = function(g, e) local st = g.st.global.u32; st(e.ptx.addr(e.rec(e.px)), e.a) end },
  op = { one = function(g, e) g.op "add.u32" (e.d, e.rec(e.a), 1) end },
  ["op text from an expression"] = { one = function(g, e) g.op(e.rec("mul.lo.u32"))(e.d, e.a, 3) end },
  -- helpers that record one instruction
  call = { one = function(g, e) g.call(e.fn, nil, { e.rec(e.a) }, { uni = false }) end },
  cvt = { one = function(g, e) g.cvt("f32", e.rec(e.a)) end },
  convert = { one = function(g, e) g.convert("f32", e.rec(e.a)) end },
  special = { one = function(g, e) g.special(e.rec("tid.x")) end },
  -- several instructions: refused
  do_while = { err = "ptx.do_while records several", call = function(g, e) g.do_while(function() return e.rec(e.p) end) end },
  if_ = { err = "ptx.if_ records several", call = function(g, e) g.if_(e.rec(e.p), function() end) end },
  range = { err = "ptx.range records several", call = function(g, e) g.range(0, e.rec(e.a), function() end) end },
  loop = { err = "ptx.loop records several", call = function(g, e) g.loop(e.rec(e.a), function() end) end },
  global_ptrs = { err = "ptx.global_ptrs records several", call = function(g, e) g.global_ptrs(e.rec(e.x)) end },
  warp_reduce = { err = "ptx.warp_reduce records several", call = function(g, e) g.warp_reduce(e.rec(e.f)) end },
  warp_specialize = { err = "ptx.warp_specialize records several",
                      call = function(g, e) g.warp_specialize(e.rec { producer = function() end, consumers = function() end }) end },
  mbarrier_wait = { err = "ptx.mbarrier_wait records several", setup = plan_bar,
                    call = function(g, e) g.mbarrier_wait(e.bar, e.rec(e.a)) end },
  swizzle = { err = "ptx.swizzle records several", call = function(g, e) g.swizzle(e.rec(e.a), "128B") end },
  wgmma_desc = { err = "ptx.wgmma_desc records several", setup = plan_bar,
                 call = function(g, e) g.wgmma_desc(e.tile, e.rec { mn = 64, k = 64 }) end },
  scope = { err = "ptx.at guards one instruction, and ptx.scope opens a block",
            call = function(g, e) g.scope(e.rec(function() e.ptx.add.u32(e.d, e.d, 1) end)) end },
  -- no instruction: refused
  place = { err = "must be followed by an instruction, not a label", setup = function(ptx) return { L = ptx.label() } end,
            call = function(g, e) g.place(e.rec(e.L)) end },
  ["wgmma_desc at a known address"] = { err = "ptx.wgmma_desc records none", setup = plan_bar,
                                        call = function(g, e) g.wgmma_desc(e.tile, e.rec { mn = 64, k = 64, address = 1024 }) end },
}

-- the Blackwell helpers (lua/ptxlua/blackwell.lua), traced for sm_100a
local function bw(ptx)
  local e = plan_bar(ptx)
  e.tb, e.db = ptx.reg.b32(), ptx.reg.b64()
  return e
end
local BW = {
  tcgen05_mma = { one = function(g, e) g.tcgen05_mma(e.rec { d = e.tb, a = e.db, b = e.db, idesc = 0x08400490, accumulate = e.p }) end },
  tcgen05_commit = { one = function(g, e) g.tcgen05_commit(e.rec(e.bar)) end },
  tcgen05_ld = { one = function(g, e) g.tcgen05_ld(e.rec { shape = "32x32b", num = 4, taddr = e.tb }) end },
  tcgen05_st = { one = function(g, e) g.tcgen05_st(e.rec { shape = "32x32b", num = 2, taddr = e.tb, regs = { e.tb, e.tb } }) end },
  tcgen05_wait = { one = function(g, e) g.tcgen05_wait(e.rec("ld")) end },
  tcgen05_fence = { one = function(g, e) g.tcgen05_fence(e.rec("after")) end },
  tcgen05_desc = { err = "ptx.tcgen05_desc records several", call = function(g, e) g.tcgen05_desc(e.tile, e.rec { mn = 64, k = 64 }) end },
  ["tcgen05_desc at a known address"] = { err = "ptx.tcgen05_desc records none",
                                          call = function(g, e) g.tcgen05_desc(e.tile, e.rec { mn = 64, k = 64, address = 0 }) end },
  tcgen05_mma_commit = { err = "ptx.tcgen05_mma_commit records several",
                         call = function(g, e) g.tcgen05_mma_commit(e.rec { d = e.tb, a = e.db, b = e.db, idesc = 0, accumulate = e.p, bar = e.bar }) end },
  cta_pair = { err = "ptx.cta_pair records several", call = function(g, e) g.cta_pair(e.rec()) end },
  clc_next = { err = "ptx.clc_next records several", call = function(g, e) g.clc_next(e.tile, e.bar, e.rec(0)) end },
  tcgen05_idesc = { err = "ptx.tcgen05_idesc records none",
                    call = function(g, e) g.tcgen05_idesc(e.rec { kind = "f16", d = "f32", a = "f16", b = "f16", m = 128, n = 64 }) end },
  tcgen05_idesc_decode = { err = "ptx.tcgen05_idesc_decode records none", call = function(g, e) g.tcgen05_idesc_decode(e.rec(0x08400490), "f16") end },
  tcgen05_desc_host = { err = "ptx.tcgen05_desc_host records none", call = function(g, e) g.tcgen05_desc_host(e.tile, e.rec { mn = 64, k = 64 }) end },
  tmem_plan = { err = "ptx.tmem_plan records none", call = function(g, e) g.tmem_plan(e.rec()) end },
}
for name, c in pairs(BW) do
  c.target, c.setup = "sm_100a", c.setup or bw
  CASES[name] = c
end

for _, t in ipairs { "b16", "b32", "b64", "bf16", "bf16x2", "f16", "f16x2", "f32", "f64", "s16", "s32", "s64",
                     "u16", "u32", "u64" } do
  CASES[t] = { one = function(g, e) g[t](e.rec(1)) end }
end
for _, t in ipairs { "b8", "s8", "u8" } do
  CASES[t] = { err = "PTX has no mov for 8-bit registers", call = function(g, e) g[t](e.rec(1)) end }
end
for _, k in ipairs { "addr", "sym", "taddr", "hex", "imm", "pair", "label", "pred", "at", "at_not", "error", "isreg",
                     "shared", "shared_dynamic", "smem_plan", "smem_u64", "swizzle_offset", "wgmma_desc_host", "kernel",
                     "func", "funcs", "kernels", "build", "ptx", "reset", "select_kernels", "check_templates", "import",
                     "tensor", "tensormap", "native_arch" } do
  CASES[k] = { err = "ptx.at guards one instruction, and ptx." .. k .. " records none",
               call = function(g, e) g[k](e.rec(e.a)) end }
end
for _, k in ipairs { "reg", "regs", "sreg", "sink", "_", "types" } do
  CASES[k] = { err = "ptx." .. k .. " is not an instruction or a helper that records one",
               call = function(g, e) local _ = g[k] end }
end

-- trace one case: guarded (through ptx.at(p)) or not; returns the PTX text
local function run(name, c, guarded, which)
  local ptx = H.fresh()
  local fn = ptx.func { name = "f", params = { { "v", "u32" } }, body = function() end }
  ptx.kernel { name = "k", target = c.target, params = { { "x", "f32*" } }, body = function(_, x)
    local e = c.setup and c.setup(ptx) or {}
    e.ptx, e.fn, e.x = ptx, fn, x
    e.p, e.a, e.d, e.f, e.px, e.m = ptx.pred(), ptx.reg.u32(), ptx.reg.u32(), ptx.reg.f32(), ptx.reg.u64(), ptx.reg.u32()
    e.rec = function(v) ptx.add.u32(e.m, e.m, 7); return v end
    local g = guarded and ptx.at(e.p) or ptx
    which(g, e)
    if c.finish then c.finish(ptx, e) end
  end }
  return ptx.ptx()
end

describe("ptx.at guards exactly the call it prefixes", function()
  local names = {}
  for name in pairs(CASES) do names[#names + 1] = name end
  table.sort(names)
  for _, name in ipairs(names) do
    local c = CASES[name]
    if c.one then
      it(name .. ": the argument's instruction unguarded, then the one guarded instruction", function()
        local plain = H.insns(run(name, c, false, c.one))
        local guarded = H.insns(run(name, c, true, c.one))
        assert.are.equal(#plain, #guarded, table.concat(guarded, "\n"))
        local n = 0
        for i = 1, #plain do
          if guarded[i] ~= plain[i] then
            n = n + 1
            assert.are.equal("@%p1 " .. plain[i], guarded[i])
            assert.is_nil(plain[i]:match("^" .. MARK .. " %%r%d+, %%r%d+, 7;$"), "the marker was guarded")
            -- the marker came first
            local seen = false
            for j = 1, i - 1 do if guarded[j]:match("^" .. MARK .. " %%r%d+, %%r%d+, 7;$") then seen = true end end
            assert.is_true(seen, "the argument's instruction is not before the guarded one:\n" .. table.concat(guarded, "\n"))
          end
        end
        assert.are.equal(1, n, "exactly one guarded instruction:\n" .. table.concat(guarded, "\n"))
        -- and the whole kernel is what ptxas assembles
        local ok, msg = H.assemble(run(name, c, true, c.one), c.target or "sm_90a")
        if ok ~= nil then assert.is_true(ok, msg) end
      end)
    else
      it(name .. ": an error at the call's line", function()
        local ok, err = pcall(run, name, c, true, c.call)
        assert.is_false(ok, "expected an error mentioning: " .. c.err)
        -- at the line of the guarded call (inside the case's function)
        local line = tonumber(err:match("^[^\n]*guard_spec%.lua:(%d+): error: "))
        local info = debug.getinfo(c.call, "S")
        assert.truthy(line and line >= info.linedefined and line <= info.lastlinedefined, "not at the call's line: " .. err)
        assert.truthy(err:find(c.err, 1, true), "expected '" .. c.err .. "' in: " .. err)
      end)
    end
  end

  it("covers every entry point of the DSL", function()
    local ptx = H.fresh()
    local missing = {}
    for k, v in pairs(ptx) do
      local mt = getmetatable(v)
      local chain = type(mt) == "table" and mt.__name == "ptxlua.instruction" and k ~= "cvt"
      if k:sub(1, 1) ~= "_" and not chain and type(v) ~= "string" and CASES[k] == nil then missing[#missing + 1] = k end
    end
    table.sort(missing)
    assert.are.same({}, missing)
  end)

  it("nested guards each guard their own call", function()
    local insns = H.insns(H.body(function(ptx)
      local p, q, px = ptx.pred(), ptx.pred(), ptx.reg.u64()
      ptx.at(p).st.global.u32(ptx.addr(px), ptx.at_not(q).special "tid.x")
    end))
    assert.are.same({ "@!%p2 mov.u32 %r1, %tid.x;", "@%p1 st.global.u32 [%rd1], %r1;" }, insns)
  end)

  it("a guarded helper's argument that records several instructions stays unguarded", function()
    local insns = H.insns(H.body(function(ptx, _, n)
      local p, a = ptx.pred(), ptx.reg.f32()
      ptx.at(p).f32(n:load():to("f32") * a)
    end, { { "n", "u32" } }))
    assert.are.same({ "ld.param.u32 %r1, [n];", "cvt.rn.f32.u32 %f2, %r1;", "mul.rn.f32 %f3, %f2, %f1;",
                      "@%p1 mov.f32 %f4, %f3;" }, insns)
  end)
end)
