-- blackwell_spec.lua -- the Blackwell helpers of lua/ptxlua/blackwell.lua: the instruction and
-- shared-memory descriptors on the host (values from the ISA's tables), the tensor-memory plan
-- (ranges, the power-of-two allocation, the 512-column limit at the allocation's line), and every
-- helper's exact PTX (docs/blackwell.md lists them), each kernel assembled by ptxas for sm_100a.
local H = require "helper"
local core = require "ptxlua.core"

local T = "sm_100a"
local function body(fn, params) return H.body(fn, params, { target = T }) end
local function lines(fn, params) return H.insns(body(fn, params)) end
local function assembles(text)
  local ok, out = H.assemble(text, T)
  if ok ~= nil then assert.is_true(ok, out .. "\n" .. text) end
end
local function fails(msg, fn, target)
  local ok, err = pcall(H.body, fn, nil, { target = target or T })
  assert.is_false(ok, "expected an error: " .. msg)
  assert.truthy(tostring(err):find(msg, 1, true), "expected '" .. msg .. "' in: " .. tostring(err))
  assert.truthy(tostring(err):find("blackwell_spec.lua:%d+: error:"), "not at the spec's line: " .. tostring(err))
  return err
end

-- the shared state most cases need: a slot for the tensor-memory address, a barrier, two tiles
local function setup(ptx, cols)
  local smem = ptx.smem_plan()
  local s = { slot = smem:alloc("tslot", "u32", 1, { align = 16 }), bar = smem:alloc("bar", "b64", 1, { align = 8 }),
              A = smem:alloc("A", "bf16", { 128, 64 }, { swizzle = "128B" }),
              B = smem:alloc("B", "bf16", { 128, 64 }, { swizzle = "128B" }) }
  s.tm = ptx.tmem_plan()
  s.acc = s.tm:alloc("acc", cols or 128)
  s.base = ptx.reg.u32()
  return s
end

describe("ptx.tcgen05_idesc", function()
  it("gives the ISA's values (the worked bf16 example, a block-scaled one) and decodes them back", function()
    local ptx = H.fresh()
    local v
    ptx.kernel { name = "k", target = T, body = function()
      v = ptx.tcgen05_idesc { kind = "f16", d = "f32", a = "bf16", b = "bf16", m = 128, n = 256 }
    end }
    ptx.ptx()
    assert.are.equal(0x08400490, v)
    local f = ptx.tcgen05_idesc_decode(v, "f16")
    assert.are.same({ "f32", "bf16", "bf16", 128, 256, 0, 0 }, { f.d, f.a, f.b, f.m, f.n, f.trans_a, f.trans_b })
    -- mxf4nvf4, ue4m3 scales, M 256 under cta_group::2: e2m1 = 1 at 7 and 10, N>>3 at 17, M>>7 at 27
    local w = core.tc_idesc { kind = "mxf4nvf4", cta_group = 2, a = "e2m1", b = "e2m1", m = 256, n = 128,
                              scale = "ue4m3", sfa_id = 2 }
    assert.are.equal(1 * 2^7 + 1 * 2^10 + 16 * 2^17 + 2 * 2^27 + 2 * 2^29, w)
    local g = ptx.tcgen05_idesc_decode(w, "mxf4nvf4", 2)
    assert.are.same({ "ue4m3", 2, 0, 256 }, { g.scale, g.sfa_id, g.sfb_id, g.m })
  end)
  it("reports a shape, a type or a field the kind does not take at the call's line", function()
    fails("M = 256, must be 64 or 128", function(ptx) ptx.tcgen05_idesc { kind = "f16", d = "f32", a = "f16", b = "f16", m = 256, n = 64 } end)
    fails("A of type e4m3, must be f16 or bf16", function(ptx) ptx.tcgen05_idesc { kind = "f16", d = "f32", a = "e4m3", b = "f16", m = 128, n = 64 } end)
    fails(".kind::i8 cannot negate", function(ptx) ptx.tcgen05_idesc { kind = "i8", d = "s32", a = "s8", b = "s8", m = 128, n = 64, neg_a = true } end)
    fails("unknown field 'M'", function(ptx) ptx.tcgen05_idesc { kind = "f16", M = 128 } end)
    fails("K = 96 is for sm_103a only", function(ptx)
      ptx.tcgen05_idesc { kind = "mxf4", a = "e2m1", b = "e2m1", m = 128, n = 64, scale = "ue8m0", k96 = true }
    end)
    fails("reserved bits", function(ptx) ptx.tcgen05_idesc_decode(0x08400490 + 2^23, "f16") end)
  end)
end)

describe("ptx.tcgen05_desc", function()
  it("the sm_100 layout: bit 46 and the 3-bit swizzle code over the wgmma strides; the Hopper one unchanged", function()
    local ins = lines(function(ptx)
      local s = setup(ptx)
      local d = ptx.tcgen05_desc(s.B, { mn = 128, k = 64 })
      ptx.mov.b64(ptx.reg.b64(), ptx.tcgen05_desc(s.A, { mn = 128, k = 64, address = 0x400 }))
      return d
    end)
    assert.are.same({ "mov.u32 %r2, smem;", "add.u32 %r3, %r2, 17408;", "shr.u32 %r4, %r3, 4;", "and.b32 %r4, %r4, 16383;",
                      "cvt.u64.u32 %bd1, %r4;", "or.b64 %bd1, %bd1, 0x4000404000010000;",
                      -- A at 0x400 + its offset 1024: start (0x800 >> 4) in the low bits
                      "mov.b64 %bd2, 0x4000404000010080;" }, ins)
    -- the same tile on sm_90a: the wgmma constant (no bit 46, 128B at 62)
    local lo, hi = core.smem_desc_tile(0x800, 2, 128, 64, true, "128B")
    assert.are.same({ 0x00010080, 0x40000040 }, { lo, hi })
    local lo1, hi1, f = core.smem_desc_tile(0x800, 2, 128, 64, true, "128B", 100)
    assert.are.same({ 0x00010080, 0x40004040, true }, { lo1, hi1, f.tcgen05 })
    -- decode round trip, and the fixed bits checked
    local g = core.smem_desc_decode(lo1, hi1, 100)
    assert.are.same({ 0x800, 16, 1024, "128B", 0 }, { g.start, g.lbo, g.sbo, g.swizzle, g.lbo_mode })
    local nope, msg = core.smem_desc_decode(lo1, hi1 - 0x4000, 100)
    assert.is_nil(nope); assert.truthy(msg:find("0b001", 1, true))
    local e = core.smem_desc_encode(0, 16, 1024, 0, "128B_32B", 100)
    assert.are.equal(1 * 2^29 + 0x4000 + 64, select(2, core.smem_desc_encode(0, 16, 1024, 0, "128B_32B", 100)))
    assert.are.equal(0x10000, e)
  end)
  it("refuses a target without tcgen05, at the line", function()
    fails("tcgen05 is for the sm_100 family", function(ptx)
      local A = ptx.smem_plan():alloc("A", "bf16", { 64, 64 }, { swizzle = "128B" })
      ptx.tcgen05_desc(A, { mn = 64, k = 64 })
    end, "sm_90a")
    fails("tcgen05 is for the sm_100 family", function(ptx) ptx.tmem_plan() end, "sm_100")
  end)
  it("ptx.wgmma_desc (the sm_90 layout) is refused on the sm_100 family and before sm_90, at the line", function()
    for _, t in ipairs { "sm_100a", "sm_100f", "sm_103a", "sm_110a" } do
      fails("whose tcgen05.mma reads the sm_100 layout", function(ptx)
        local A = ptx.smem_plan():alloc("A", "bf16", { 64, 64 }, { swizzle = "128B" })
        ptx.wgmma_desc(A, { mn = 64, k = 64 })
      end, t)
      fails("use ptx.tcgen05_desc", function(ptx)
        local A = ptx.smem_plan():alloc("A", "bf16", { 64, 64 }, { swizzle = "128B" })
        ptx.wgmma_desc_host(A, { mn = 64, k = 64, address = 0 })
      end, t)
    end
    fails("this kernel targets sm_80, which has no wgmma", function(ptx)
      local A = ptx.smem_plan():alloc("A", "bf16", { 64, 64 }, { swizzle = "128B" })
      ptx.wgmma_desc(A, { mn = 64, k = 64, address = 0 })
    end, "sm_80")
    -- sm_90a keeps it
    local ins = H.insns(H.body(function(ptx)
      local A = ptx.smem_plan():alloc("A", "bf16", { 64, 64 }, { swizzle = "128B" })
      ptx.mov.b64(ptx.reg.b64(), ptx.wgmma_desc(A, { mn = 64, k = 64, address = 0 }))
    end, nil, { target = "sm_90a" }))
    assert.are.equal(1, #ins)
  end)
end)

describe("ptx.tmem_plan", function()
  it("places named ranges and allocates the next power of two (at least 32); the pair of helpers' sequence", function()
    local plan
    local text = body(function(ptx)
      local s = setup(ptx, 100)
      plan = s.tm
      local b = s.tm:alloc("b", 64, { align = 64 })
      assert.are.same({ 0, 100, 128, 64 }, { s.acc.col, s.acc.cols, b.col, b.cols })
      assert.are.equal(256, s.tm.cols)
      s.tm:allocate(s.slot)
      ptx.ld.shared.u32(s.base, s.slot:addr(0))
      s.tm:address(s.base, "b", 32, 8)
      s.tm:deallocate(s.base)
    end)
    assert.are.same({ "tcgen05.alloc.cta_group::1.sync.aligned.shared::cta.b32 [smem], 256;",
                      "tcgen05.relinquish_alloc_permit.cta_group::1.sync.aligned;",
                      "ld.shared.u32 %r1, [smem];",
                      "add.u32 %b1, %r1, 2097288;",          -- lane 32 << 16, column 128 + 8
                      "tcgen05.dealloc.cta_group::1.sync.aligned.b32 %r1, 256;" }, H.insns(text))
    assembles(text)
    assert.truthy(plan:format():find("total 192 columns, allocated 256", 1, true))
    -- a small plan still allocates 32; cta_group::2 and no relinquish
    local t2 = lines(function(ptx)
      local slot = ptx.smem_plan():alloc("slot", "u32", 1)
      local tm = ptx.tmem_plan { cta_group = 2 }
      tm:alloc("x", 3)
      tm:allocate(slot, { relinquish = false })
    end)
    assert.are.same({ "tcgen05.alloc.cta_group::2.sync.aligned.shared::cta.b32 [smem], 32;" }, t2)
  end)
  it("reports a kernel over 512 columns at the allocation's line, and the other mistakes", function()
    local err = fails("brings the plan to 544 columns, over the 512 columns", function(ptx)
      local tm = ptx.tmem_plan()
      tm:alloc("acc0", 256)
      tm:alloc("acc1", 256, { align = 32 })
      tm:alloc("extra", 32)
    end)
    assert.truthy(err:find("'extra'", 1, true), err)
    fails("cols must be an integer from 1 to 512", function(ptx) ptx.tmem_plan():alloc("a", 0) end)
    fails("align must be a power of two", function(ptx) ptx.tmem_plan():alloc("a", 8, { align = 3 }) end)
    fails("has a tensor-memory plan already", function(ptx) ptx.tmem_plan(); ptx.tmem_plan() end)
    fails("the name is taken", function(ptx) local t = ptx.tmem_plan(); t:alloc("a", 8); t:alloc("a", 8) end)
    fails("the plan has no ranges", function(ptx) ptx.tmem_plan():allocate(ptx.smem_plan():alloc("s", "u32", 1)) end)
    fails("column 64 outside range 'a'", function(ptx)
      local t = ptx.tmem_plan(); local a = t:alloc("a", 64); t:address(ptx.reg.u32(), a, 0, 64)
    end)
  end)
end)

describe("the MMA, its commit, ld/st, fences and waits", function()
  it("records exactly the documented instructions, and ptxas takes them", function()
    local text = body(function(ptx)
      local s = setup(ptx)
      s.tm:allocate(s.slot)
      ptx.tcgen05_fence("before")
      ptx.bar.sync(0)
      ptx.tcgen05_fence("after")
      ptx.ld.shared.u32(s.base, s.slot:addr(0))
      local d = s.tm:address(s.base, s.acc)
      local ad = ptx.tcgen05_desc(s.A, { mn = 128, k = 64, address = 0 })
      local bd = ptx.reg.b64()
      ptx.mov.b64(bd, ptx.tcgen05_desc(s.B, { mn = 128, k = 64, address = 0 }))
      local id = ptx.tcgen05_idesc { kind = "f16", d = "f32", a = "bf16", b = "bf16", m = 128, n = 128 }
      local acc = ptx.pred()
      ptx.setp.ne.u32(acc, s.base, 0)
      ptx.tcgen05_mma { d = d, a = ad, b = bd, idesc = id, accumulate = acc }
      ptx.tcgen05_mma { d = d, a = bd, b = bd, idesc = id, accumulate = acc, scale_d = 3 }
      ptx.tcgen05_commit(s.bar)
      ptx.tcgen05_mma_commit { mmas = { { d = d, a = ad, b = bd, idesc = id, accumulate = acc },
                                        { d = d, a = bd, b = bd, idesc = id, accumulate = acc } }, bar = s.bar }
      local r = ptx.tcgen05_ld { shape = "32x32b", num = 2, taddr = d }
      local q = ptx.tcgen05_ld { shape = "16x256b", num = 1, taddr = d, pack = true }
      local x = ptx.tcgen05_ld { shape = "16x32bx2", num = 1, taddr = d, offset = 16 }
      ptx.tcgen05_wait("ld")
      assert.are.same({ 2, 4, 1 }, { #r, #q, #x })
      ptx.tcgen05_st { shape = "16x64b", num = 2, taddr = d, regs = r }
      ptx.tcgen05_st { shape = "16x128b", num = 2, taddr = d, regs = q, unpack = true }
      ptx.tcgen05_st { shape = "16x32bx2", num = 1, taddr = d, regs = x, offset = 16 }
      ptx.tcgen05_wait("st")
      s.tm:deallocate(s.base)
    end)
    local ins = H.insns(text)
    local want = {
      "tcgen05.alloc.cta_group::1.sync.aligned.shared::cta.b32 [smem], 128;",
      "tcgen05.relinquish_alloc_permit.cta_group::1.sync.aligned;",
      "tcgen05.fence::before_thread_sync;",
      "bar.sync 0;",
      "tcgen05.fence::after_thread_sync;",
      "ld.shared.u32 %r1, [smem];",
      "add.u32 %b1, %r1, 0;",
      "mov.b64 %bd1, 0x4000404000010440;",
      "setp.ne.u32 %p1, %r1, 0;",
      "tcgen05.mma.cta_group::1.kind::f16 [%b1], 0x4000404000010040, %bd1, 0x8200490, %p1;",
      "tcgen05.mma.cta_group::1.kind::f16 [%b1], %bd1, %bd1, 0x8200490, %p1, 3;",
      "tcgen05.commit.cta_group::1.mbarrier::arrive::one.shared::cluster.b64 [smem+16];",
      "elect.sync _|%p2, 0xFFFFFFFF;",
      "@%p2 tcgen05.mma.cta_group::1.kind::f16 [%b1], 0x4000404000010040, %bd1, 0x8200490, %p1;",
      "@%p2 tcgen05.mma.cta_group::1.kind::f16 [%b1], %bd1, %bd1, 0x8200490, %p1;",
      "@%p2 tcgen05.commit.cta_group::1.mbarrier::arrive::one.shared::cluster.b64 [smem+16];",
      "tcgen05.ld.sync.aligned.32x32b.x2.b32 {%bv1_0, %bv1_1}, [%b1];",
      "tcgen05.ld.sync.aligned.16x256b.x1.pack::16b.b32 {%bv2_0, %bv2_1, %bv2_2, %bv2_3}, [%b1];",
      "tcgen05.ld.sync.aligned.16x32bx2.x1.b32 {%bv3_0}, [%b1], 16;",
      "tcgen05.wait::ld.sync.aligned;",
      "tcgen05.st.sync.aligned.16x64b.x2.b32 [%b1], {%bv1_0, %bv1_1};",
      "tcgen05.st.sync.aligned.16x128b.x2.unpack::16b.b32 [%b1], {%bv2_0, %bv2_1, %bv2_2, %bv2_3};",
      "tcgen05.st.sync.aligned.16x32bx2.x1.b32 [%b1], 16, {%bv3_0};",
      "tcgen05.wait::st.sync.aligned;",
      "tcgen05.dealloc.cta_group::1.sync.aligned.b32 %r1, 128;",
    }
    assert.are.same(want, ins)
    assembles(text)
  end)

  it("the block-scaled kinds: .block_scale with the scale vector or block size, then [scale-A], [scale-B]; ptxas takes them", function()
    local text = body(function(ptx)
      local s = setup(ptx)
      ptx.ld.shared.u32(s.base, s.slot:addr(0))
      local d = s.tm:address(s.base, s.acc)
      local sa, sb = ptx.reg.b32(), ptx.reg.b32()
      ptx.mov.b32(sa, 64)
      ptx.mov.b32(sb, 68)
      local ad, bd = ptx.reg.b64(), ptx.reg.b64()
      ptx.mov.b64(ad, ptx.tcgen05_desc(s.A, { mn = 128, k = 64, address = 0 }))
      ptx.mov.b64(bd, ptx.tcgen05_desc(s.B, { mn = 128, k = 64, address = 0 }))
      local acc = ptx.pred()
      ptx.setp.ne.u32(acc, s.base, 0)
      local id8 = ptx.tcgen05_idesc { kind = "mxf8f6f4", a = "e4m3", b = "e4m3", m = 128, n = 128, scale = "ue8m0", sfa_id = 1, sfb_id = 1 }
      local id4 = ptx.tcgen05_idesc { kind = "mxf4nvf4", a = "e2m1", b = "e2m1", m = 128, n = 128, scale = "ue4m3" }
      ptx.tcgen05_mma { kind = "mxf8f6f4", scale_vec = "1X", d = d, a = ad, b = bd, idesc = id8, scale_a = sa, scale_b = sb, accumulate = acc }
      local idf4 = ptx.tcgen05_idesc { kind = "mxf4", a = "e2m1", b = "e2m1", m = 128, n = 64, scale = "ue8m0", sfa_id = 2, sfb_id = 2 }
      ptx.tcgen05_mma { kind = "mxf4", scale_vec = "2X", d = d, a = ad, b = bd, idesc = idf4, scale_a = sa, scale_b = sb, accumulate = acc }
      ptx.tcgen05_mma { kind = "mxf4nvf4", scale_vec = "4X", d = d, a = ad, b = bd, idesc = id4, scale_a = sa, scale_b = sb, accumulate = acc }
      ptx.tcgen05_mma_commit { kind = "mxf8f6f4", scale_vec = "1X", d = d, a = d, b = bd, idesc = id8, scale_a = sa, scale_b = sb,
                               accumulate = acc, bar = s.bar }
    end)
    local ins = H.insns(text)
    local want = {
      "tcgen05.mma.cta_group::1.kind::mxf8f6f4.block_scale.scale_vec::1X [%b1], %bd1, %bd2, 0x28A00010, [%b2], [%b3], %p1;",
      "tcgen05.mma.cta_group::1.kind::mxf4.block_scale.scale_vec::2X [%b1], %bd1, %bd2, 0x489004A0, [%b2], [%b3], %p1;",
      "tcgen05.mma.cta_group::1.kind::mxf4nvf4.block_scale.scale_vec::4X [%b1], %bd1, %bd2, 0x8200480, [%b2], [%b3], %p1;",
      "elect.sync _|%p2, 0xFFFFFFFF;",
      "@%p2 tcgen05.mma.cta_group::1.kind::mxf8f6f4.block_scale.scale_vec::1X [%b1], [%b1], %bd2, 0x28A00010, [%b2], [%b3], %p1;",
      "@%p2 tcgen05.commit.cta_group::1.mbarrier::arrive::one.shared::cluster.b64 [smem+16];",
    }
    local got = {}
    for _, l in ipairs(ins) do if l:find("tcgen05.mma", 1, true) or l:find("elect", 1, true) or l:find("commit", 1, true) then got[#got + 1] = l end end
    assert.are.same(want, got)
    assembles(text)
  end)

  it("sizes the register arrays by shape and count (1, 1, 2, 4 a count; at most 128)", function()
    local n = {}
    body(function(ptx)
      local d = ptx.reg.b32()
      for _, c in ipairs { { "32x32b", 128 }, { "16x64b", 8 }, { "16x128b", 64 }, { "16x256b", 32 } } do
        n[#n + 1] = #ptx.tcgen05_ld { shape = c[1], num = c[2], taddr = d }
      end
    end)
    assert.are.same({ 128, 8, 128, 128 }, n)
    fails("num must be a power of two with num x 4 registers at most 128", function(ptx)
      ptx.tcgen05_ld { shape = "16x256b", num = 64, taddr = ptx.reg.b32() }
    end)
    fails("regs must be a list of 8 32-bit registers", function(ptx)
      ptx.tcgen05_st { shape = "16x128b", num = 4, taddr = ptx.reg.b32(), regs = ptx.regs.b32(4) }
    end)
    fails("offset is an operand of .16x32bx2 only", function(ptx)
      ptx.tcgen05_ld { shape = "32x32b", num = 1, taddr = ptx.reg.b32(), offset = 4 }
    end)
  end)

  it("ptx.tcgen05_ld_red: one tcgen05.ld.red (sm_103a/f, sm_110a/f), registers and the reduced value of its type", function()
    local regs, red
    local text = H.body(function(ptx)
      local d = ptx.reg.b32()
      regs, red = ptx.tcgen05_ld_red { shape = "32x32b", num = 4, taddr = d, op = "max", abs = true, nan = true }
      local r2, m2 = ptx.tcgen05_ld_red { shape = "16x32bx2", num = 2, taddr = d, op = "min", type = "s32", offset = 16 }
      ptx.tcgen05_wait("ld")
      assert.are.same({ 2, "s32" }, { #r2, getmetatable(m2).ptype })
    end, nil, { target = "sm_103a" })
    assert.are.same({ "tcgen05.ld.red.sync.aligned.32x32b.x4.max.abs.NaN.f32 {%fv1_0, %fv1_1, %fv1_2, %fv1_3}, %f1, [%b1];",
                      "tcgen05.ld.red.sync.aligned.16x32bx2.x2.min.s32 {%siv2_0, %siv2_1}, %si1, [%b1], 16;",
                      "tcgen05.wait::ld.sync.aligned;" }, H.insns(text))
    assert.are.same({ 4, "f32" }, { #regs, getmetatable(red).ptype })
    local ok, out = H.assemble(text, "sm_103a")
    if ok ~= nil then assert.is_true(ok, out .. "\n" .. text) end
    -- sm_110f takes it too; sm_100a does not (ptxas: "not supported on .target 'sm_100a'")
    H.body(function(ptx) ptx.tcgen05_ld_red { shape = "32x32b", num = 2, taddr = ptx.reg.b32(), op = "min" } end, nil, { target = "sm_110f" })
    fails("tcgen05.ld.red is for sm_103a/f and sm_110a/f (PTX 8.8), not sm_100", function(ptx)
      ptx.tcgen05_ld_red { shape = "32x32b", num = 2, taddr = ptx.reg.b32(), op = "min" }
    end)
    local function on103(msg, o)
      fails(msg, function(ptx) o.taddr = ptx.reg.b32(); ptx.tcgen05_ld_red(o) end, "sm_103a")
    end
    on103("shape must be 32x32b or 16x32bx2", { shape = "16x64b", num = 2, op = "min" })
    on103("num must be 2 to 128", { shape = "32x32b", num = 1, op = "min" })
    on103("op must be \"min\" or \"max\"", { shape = "32x32b", num = 2, op = "add" })
    on103("abs is for type f32 only", { shape = "32x32b", num = 2, op = "min", type = "u32", abs = true })
    on103("type must be f32, u32 or s32", { shape = "32x32b", num = 2, op = "min", type = "b32" })
    on103(".16x32bx2 takes offset", { shape = "16x32bx2", num = 2, op = "min" })
  end)

  it("CTA pairs: the roles, and the multicast commit of a cta_group::2 kernel", function()
    local text = body(function(ptx)
      local smem = ptx.smem_plan()
      local slot, bar = smem:alloc("tslot", "u32", 1), smem:alloc("bar", "b64", 1, { align = 8 })
      local tm = ptx.tmem_plan { cta_group = 2 }
      local acc = tm:alloc("acc", 256)
      tm:allocate(slot)
      local base = ptx.reg.u32()
      ptx.ld.shared.u32(base, slot:addr(0))
      local pair = ptx.cta_pair()
      local d = tm:address(base, acc)
      local id = ptx.tcgen05_idesc { kind = "f16", cta_group = 2, d = "f32", a = "bf16", b = "bf16", m = 256, n = 256 }
      local desc = ptx.reg.b64()
      ptx.mov.b64(desc, 0)
      ptx.if_(pair.leader, function()
        ptx.tcgen05_mma_commit { d = d, a = desc, b = desc, idesc = id, accumulate = pair.leader, bar = bar,
                                 multicast = pair.mask }
      end)
      tm:deallocate(base)
    end)
    local ins = H.insns(text)
    local at = 0
    for i, l in ipairs(ins) do if l:find("cluster_ctarank", 1, true) then at = i end end
    assert.are.same({ "mov.u32 %r2, %cluster_ctarank;", "and.b32 %r3, %r2, 1;", "setp.eq.u32 %p1, %r3, 0;",
                      "xor.b32 %r4, %r2, 1;", "and.b32 %r5, %r2, 0xFFFFFFFE;", "shl.b32 %r6, 3, %r5;",
                      "cvt.u16.u32 %us1, %r6;" }, { unpack(ins, at, at + 6) })
    local commit
    for _, l in ipairs(ins) do if l:find("tcgen05.commit", 1, true) then commit = l end end
    assert.are.equal("@%p2 tcgen05.commit.cta_group::2.mbarrier::arrive::one.shared::cluster.multicast::cluster.b64 " ..
                     "[smem+128], %us1;", commit)
    assembles(text)
  end)

  it("holds raw tcgen05 instructions to one .cta_group a kernel too, at the line that breaks it", function()
    -- the rule is the core's: ptx.op strings, chains and the helpers share it
    local err = fails("uses .cta_group::2, but this kernel's tcgen05 instructions use .cta_group::1 (the first at", function(ptx)
      local t = ptx.reg.b32()
      ptx.op "tcgen05.shift.cta_group::1.down" (ptx.addr(t))
      ptx.tcgen05.fence__before_thread_sync()
      ptx.tcgen05.shift.cta_group__2.down(ptx.addr(t))
    end)
    assert.truthy(tostring(err):find("blackwell_spec.lua:%d+%)"), tostring(err))
    fails("uses .cta_group::1, but this kernel's tcgen05 instructions use .cta_group::2", function(ptx)
      ptx.tcgen05_commit(ptx.smem_plan():alloc("bar", "b64", 1), { cta_group = 2 })
      ptx.op "tcgen05.relinquish_alloc_permit.cta_group::1.sync.aligned" ()
    end)
    -- each kernel has its own
    local ptx = require "ptxlua"
    ptx.reset()
    for g = 1, 2 do
      ptx.kernel { name = "k" .. g, target = T, body = function()
        local t = ptx.reg.b32()
        ptx.op(("tcgen05.shift.cta_group::%d.down"):format(g))(ptx.addr(t))
        ptx.op(("tcgen05.shift.cta_group::%d.down"):format(g))(ptx.addr(t))
      end }
    end
    local text = ptx.ptx {}
    local ok, out = H.assemble(text, T)
    if ok ~= nil then assert(ok, out) end
  end)

  it("reports the mistakes at the call's line: one .cta_group a kernel, operand types, block-scaled kinds", function()
    fails("cta_group::2, but this kernel's tcgen05 instructions use cta_group::1", function(ptx)
      ptx.tmem_plan():alloc("a", 32)
      ptx.tcgen05_commit(ptx.smem_plan():alloc("bar", "b64", 1), { cta_group = 2 })
    end)
    fails("d must be a .b32 register", function(ptx)
      ptx.tcgen05_mma { d = ptx.reg.u32(), a = ptx.reg.b64(), b = ptx.reg.b64(), idesc = 0, accumulate = ptx.pred() }
    end)
    fails("accumulate (enable-input-d) must be a .pred register", function(ptx)
      ptx.tcgen05_mma { d = ptx.reg.b32(), a = ptx.reg.b64(), b = ptx.reg.b64(), idesc = 0, accumulate = false }
    end)
    fails("scale_a must be a .b32 register, the tensor-memory address of the scale factors", function(ptx)
      ptx.tcgen05_mma { kind = "mxf4", d = ptx.reg.b32(), a = ptx.reg.b64(), b = ptx.reg.b64(), idesc = 0, accumulate = ptx.pred() }
    end)
    fails("scale_b must be a .b32 register", function(ptx)
      ptx.tcgen05_mma { kind = "mxf8f6f4", d = ptx.reg.b32(), a = ptx.reg.b64(), b = ptx.reg.b64(), idesc = 0, accumulate = ptx.pred(),
                        scale_a = ptx.reg.b32(), scale_b = ptx.reg.u32() }
    end)
    fails(".kind::mxf8f6f4 takes scale_vec 1X (got 2X)", function(ptx)
      ptx.tcgen05_mma { kind = "mxf8f6f4", d = ptx.reg.b32(), a = ptx.reg.b64(), b = ptx.reg.b64(), idesc = 0, accumulate = ptx.pred(),
                        scale_a = ptx.reg.b32(), scale_b = ptx.reg.b32(), scale_vec = "2X" }
    end)
    fails(".kind::mxf4 takes block 32 (got 16)", function(ptx)
      ptx.tcgen05_mma { kind = "mxf4", d = ptx.reg.b32(), a = ptx.reg.b64(), b = ptx.reg.b64(), idesc = 0, accumulate = ptx.pred(),
                        scale_a = ptx.reg.b32(), scale_b = ptx.reg.b32(), block = 16 }
    end)
    fails("give scale_vec or block, not both", function(ptx)
      ptx.tcgen05_mma { kind = "mxf4nvf4", d = ptx.reg.b32(), a = ptx.reg.b64(), b = ptx.reg.b64(), idesc = 0, accumulate = ptx.pred(),
                        scale_a = ptx.reg.b32(), scale_b = ptx.reg.b32(), block = 16, scale_vec = "4X" }
    end)
    fails("scale_a, scale_b, scale_vec and block are for the block-scaled kinds", function(ptx)
      ptx.tcgen05_mma { d = ptx.reg.b32(), a = ptx.reg.b64(), b = ptx.reg.b64(), idesc = 0, accumulate = ptx.pred(),
                        scale_a = ptx.reg.b32(), scale_b = ptx.reg.b32() }
    end)
    fails("scale_d (scale-input-d) is for kinds f16 and tf32 only", function(ptx)
      ptx.tcgen05_mma { kind = "mxf8f6f4", d = ptx.reg.b32(), a = ptx.reg.b64(), b = ptx.reg.b64(), idesc = 0, accumulate = ptx.pred(),
                        scale_a = ptx.reg.b32(), scale_b = ptx.reg.b32(), scale_d = 1 }
    end)
    fails("multicast must be a 16-bit register", function(ptx)
      ptx.tcgen05_commit(ptx.smem_plan():alloc("bar", "b64", 1), { multicast = 3 })
    end)
    fails("scale_d (scale-input-d) is for kinds f16 and tf32 only", function(ptx)
      ptx.tcgen05_mma { kind = "f8f6f4", d = ptx.reg.b32(), a = ptx.reg.b64(), b = ptx.reg.b64(), idesc = 0,
                        accumulate = ptx.pred(), scale_d = 1 }
    end)
    fails("ptx.tcgen05_wait(\"ld\"|\"st\")", function(ptx) ptx.tcgen05_wait("all") end)
  end)
end)

describe("ptx.clc_next, the tile scheduler through cluster launch control", function()
  it("records exactly the documented instructions, and ptxas takes them", function()
    local got = {}
    local text = body(function(ptx)
      local plan = ptx.smem_plan()
      local bar = plan:alloc("bar", "b64", 1, { align = 8 })
      local resp = plan:alloc("resp", "b64", 2, { align = 16 })
      local phase = ptx.reg.u32()
      ptx.mov.u32(phase, 0)
      got = { ptx.clc_next(resp, bar, phase) }
      local issue = ptx.special("cluster_ctarank"):eq(0)
      ptx.clc_next(resp, bar, 1, { issue = issue })
    end)
    assert.are.equal(4, #got)
    local want = {
      "mov.u32 %r1, 0;",
      "mbarrier.arrive.expect_tx.shared::cta.b64 _, [smem], 16;",
      "clusterlaunchcontrol.try_cancel.async.shared::cta.mbarrier::complete_tx::bytes.multicast::cluster::all.b128 [smem+16], [smem];",
      "$L__1:",
      "mbarrier.try_wait.parity.shared::cta.b64 %p2, [smem], %r1;",
      "@!%p2 bra $L__1;",
      "fence.proxy.async::generic.acquire.sync_restrict::shared::cluster.cluster;",
      "ld.shared.b128 %bq1, [smem+16];",
      "clusterlaunchcontrol.query_cancel.is_canceled.pred.b128 %p1, %bq1;",
      "@%p1 clusterlaunchcontrol.query_cancel.get_first_ctaid.v4.b32.b128 {%r2, %r3, %r4, _}, %bq1;",
      "mov.u32 %r5, %cluster_ctarank;",
      "setp.eq.u32 %p3, %r5, 0;",
      "mbarrier.arrive.expect_tx.shared::cta.b64 _, [smem], 16;",
      "@%p3 clusterlaunchcontrol.try_cancel.async.shared::cta.mbarrier::complete_tx::bytes.multicast::cluster::all.b128 [smem+16], [smem];",
    }
    local ins = H.insns(text)
    for i, w in ipairs(want) do assert.are.equal(w, ins[i]) end
    assembles(text)
  end)

  it("reports its mistakes at the call's line", function()
    fails("phase is the mbarrier phase's parity", function(ptx)
      local plan = ptx.smem_plan()
      ptx.clc_next(plan:alloc("r", "b64", 2), plan:alloc("b", "b64", 1), 2)
    end)
    fails("opts.issue must be a .pred register", function(ptx)
      local plan = ptx.smem_plan()
      ptx.clc_next(plan:alloc("r", "b64", 2), plan:alloc("b", "b64", 1), 0, { issue = true })
    end)
    fails("is for the arch- and family-specific targets of sm_100 on", function(ptx)
      local plan = ptx.smem_plan()
      ptx.clc_next(plan:alloc("r", "b64", 2), plan:alloc("b", "b64", 1), 0)
    end, "sm_100")
  end)
end)
