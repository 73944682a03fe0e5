-- isa_bounds_spec.lua -- what the boundary sweep (tests/isa/bounds.lua, tests/isa/boundsgen.lua)
-- found ptxlua printing though ptxas rejects it, one class a block: immediates narrower than their
-- type, names PTX spells otherwise, state spaces, sizes past the targets' limits. Each case is
-- refused at the user's line with a message that says what to do; ptxas confirms it rejects the
-- PTX the script meant (and --lint reports it, for PTX read by the parser), and the value at the
-- edge is accepted and assembled. Then a few sweeps of the generator itself must find nothing.
local H = require "helper"
package.path = H.root .. "/tests/isa/?.lua;" .. package.path
local ptx = require "ptxlua"
local THIS = "isa_bounds_spec.lua"

-- trace a kernel whose body is f(line, params...) on target; line() marks the line the error must
-- point at. Returns the PTX, or nil, the error and the marked line.
local function trace(target, f, params, opts)
  ptx.reset()
  opts = opts or {}
  local at
  local function line(fn) at = fn and debug.getinfo(fn, "S").linedefined or debug.getinfo(2, "l").currentline end
  local ok, res = pcall(function()
    if opts.before then opts.before(line) end
    ptx.kernel { name = opts.name or "k", target = target, params = params, version = opts.version,
      body = function(_, ...) f(line, ...) end }
    return ptx.ptx {}
  end)
  if ok then return res end
  return nil, tostring(res), at
end

local function refused(target, f, params, ...)
  local strings = { ... }
  local opts
  if type(params) == "table" and params.opts then opts = params.opts; params = params.params end
  local text, err, at = trace(target, f, params, opts)
  assert(text == nil, "accepted:\n" .. tostring(text))
  assert(at, "the script never reached the marked line: " .. err)
  local file, l = err:match("([%w_]+%.lua):(%d+): error: ")
  assert.are.equal(THIS, file, err)
  assert.are.equal(at, tonumber(l), err)
  for _, s in ipairs(strings) do assert(err:find(s, 1, true), ("%q not in: %s"):format(s, err)) end
  return err
end

-- accepted, and ptxas assembles it (pending without ptxas locally, an error under CI)
local function assembles(target, f, params, opts)
  local text, err = trace(target, f, params, opts)
  assert(text, err)
  local ok, report = H.assemble(text, target)
  if ok ~= nil then assert(ok, report .. "\n" .. text) end
  return text
end

-- a module around a body, as the script meant it
local function module(target, version, entry)
  return (".version %s\n.target %s\n.address_size 64\n%s\n"):format(version, target, entry)
end
local function kernel_body(body)
  return ".visible .entry k(.param .u64 pp)\n{\n.reg .pred %p<4>;\n.reg .b32 %r<8>;\n.reg .u32 %u<8>;\n"
    .. ".reg .b64 %rd<8>;\n.reg .f32 %f<8>;\n.shared .align 16 .b8 sv[1024];\n.shared .align 8 .b64 bar;\n"
    .. body .. "\nret;\n}"
end

-- ptxas rejects the text (pending / CI error without ptxas), and so does --lint where asked
local function ptxas_rejects(text, target, lint)
  local ok, report = H.assemble(text, target)
  if ok ~= nil then assert.is_false(ok, "ptxas takes:\n" .. text) end
  if lint then
    local f = H.write(H.tmpfile(".ptx"), text)
    local out, err, rc = H.ptxlua { "--lint", f }
    assert.are_not.equal(0, rc, "--lint takes:\n" .. text)
    assert((out .. err):find(lint, 1, true), ("--lint does not say %q:\n%s%s"):format(lint, out, err))
  end
  return report
end

describe("immediates narrower than their type", function()
  local CASES = {
    { what = "an mbarrier phase parity is 0 or 1", msg = "2 is out of range (0 to 1)",
      bad = function(line) local p = ptx.pred(); local bar = ptx.shared("bar", "b64", 1, 8)
        line(); ptx.mbarrier.try_wait.parity.shared__cta.b64(p, ptx.addr(bar), 2) end,
      good = function() local p = ptx.pred(); local bar = ptx.shared("bar", "b64", 1, 8)
        ptx.mbarrier.try_wait.parity.shared__cta.b64(p, ptx.addr(bar), 1) end,
      raw = "mbarrier.try_wait.parity.shared::cta.b64 %p1, [bar], 2;" },
    { what = "ptx.mbarrier_wait's parity, at the script's line", msg = "2 is out of range (0 to 1)",
      bad = function(line) local bar = ptx.shared("bar", "b64", 1, 8); line(); ptx.mbarrier_wait(ptx.addr(bar), 2) end,
      good = function() local bar = ptx.shared("bar", "b64", 1, 8); ptx.mbarrier_wait(ptx.addr(bar), 0) end },
    { what = "an mbarrier arrival count is at least 1", msg = "0 is out of range (1 to 4294967295)",
      bad = function(line) local bar = ptx.shared("bar", "b64", 1, 8)
        line(); ptx.mbarrier.arrive.shared__cta.b64(ptx.reg.b64(), ptx.addr(bar), 0) end,
      good = function() local bar = ptx.shared("bar", "b64", 1, 8); ptx.mbarrier.arrive.shared__cta.b64(ptx.reg.b64(), ptx.addr(bar), 1) end,
      raw = "mbarrier.arrive.shared::cta.b64 %rd1, [bar], 0;" },
    { what = "a bfe position is 0 to 255", msg = "256 is out of range (0 to 255)",
      bad = function(line) local d, a = ptx.reg.u32(), ptx.reg.u32(); ptx.mov.u32(a, 7); line(); ptx.bfe.u32(d, a, 256, 8) end,
      good = function() local d, a = ptx.reg.u32(), ptx.reg.u32(); ptx.mov.u32(a, 7); ptx.bfe.u32(d, a, 255, 8) end,
      raw = "mov.u32 %u2, 7;\nbfe.u32 %u1, %u2, 256, 8;" },
    { what = "a bulk copy's size is a multiple of 16", msg = "24 is not a multiple of 16",
      bad = function(line) local s = ptx.shared("s", "b8", 256, 128); local bar = ptx.shared("bar", "b64", 1, 8)
        local g = ptx.reg.u64(); ptx.mov.u64(g, 0)
        line(); ptx.op "cp.async.bulk.shared::cluster.global.mbarrier::complete_tx::bytes" (ptx.addr(s), ptx.addr(g), 24, ptx.addr(bar)) end,
      good = function() local s = ptx.shared("s", "b8", 256, 128); local bar = ptx.shared("bar", "b64", 1, 8)
        local g = ptx.reg.u64(); ptx.mov.u64(g, 0)
        ptx.op "cp.async.bulk.shared::cluster.global.mbarrier::complete_tx::bytes" (ptx.addr(s), ptx.addr(g), 32, ptx.addr(bar)) end,
      raw = "mov.u64 %rd1, 0;\ncp.async.bulk.shared::cluster.global.mbarrier::complete_tx::bytes [sv], [%rd1], 24, [bar];" },
    { what = "a bulk copy's size is at most 1048560", msg = "1048576 is out of range (0 to 1048560)",
      bad = function(line) local s = ptx.shared("s", "b8", 256, 128); local g = ptx.reg.u64(); ptx.mov.u64(g, 0)
        line(); ptx.op "cp.async.bulk.global.shared::cta.bulk_group" (ptx.addr(g), ptx.addr(s), 1048576) end,
      raw = "mov.u64 %rd1, 0;\ncp.async.bulk.global.shared::cta.bulk_group [%rd1], [sv], 1048576;" },
    { what = "wgmma's scale immediates are -1 or 1", msg = "2 is not one of -1, 1",
      bad = function(line) local acc = ptx.regs.f32(4); local a, b = ptx.reg.u64(), ptx.reg.u64(); local p = ptx.pred()
        line(); ptx.op "wgmma.mma_async.sync.aligned.m64n8k16.f32.bf16.bf16" (acc, a, b, p, 2, 1, 0, 0) end,
      raw = "wgmma.mma_async.sync.aligned.m64n8k16.f32.bf16.bf16 {%f0, %f1, %f2, %f3}, %rd1, %rd2, %p1, 2, 1, 0, 0;" },
    { what = "wgmma's transposes are 0 or 1", msg = "-1 is out of range (0 to 1)",
      bad = function(line) local acc = ptx.regs.f32(4); local a, b = ptx.reg.u64(), ptx.reg.u64(); local p = ptx.pred()
        line(); ptx.op "wgmma.mma_async.sync.aligned.m64n8k16.f32.bf16.bf16" (acc, a, b, p, 1, 1, -1, 0) end },
    -- (5: mode 4, 96B, is sm_103a's alone, PTX 8.8)
    { what = "a tensormap.replace field has its range", msg = "5 is out of range (0 to 3)",
      bad = function(line) local tm = ptx.shared("tm", "b8", 128, 128)
        line(); ptx.op "tensormap.replace.tile.swizzle_mode.shared::cta.b1024.b32" (ptx.addr(tm), 5) end,
      good = function() local tm = ptx.shared("tm", "b8", 128, 128)
        ptx.op "tensormap.replace.tile.swizzle_mode.shared::cta.b1024.b32" (ptx.addr(tm), 3) end,
      raw = "tensormap.replace.tile.swizzle_mode.shared::cta.b1024.b32 [sv], 5;" },
    { what = "bar.arrive's thread count is not 0", msg = "0 is out of range (1 to 4294967295)",
      bad = function(line) line(); ptx.bar.arrive(1, 0) end, good = function() ptx.bar.arrive(1, 64) end,
      raw = "bar.arrive 1, 0;" },
    { what = "discard.L2 takes 128 bytes", msg = "64 is not 128 (the only size this form takes)",
      bad = function(line) local g = ptx.reg.u64(); ptx.mov.u64(g, 0); line(); ptx.discard.global.L2(ptx.addr(g), 64) end,
      raw = "mov.u64 %rd1, 0;\ndiscard.global.L2 [%rd1], 64;" },
    { what = "a sparse wgmma of 8-bit inputs takes sparsity selector 0 only", msg = "1 is out of range (0 to 0)",
      bad = function(line) local acc = ptx.regs.f32(4); local a, b = ptx.reg.u64(), ptx.reg.u64(); local m = ptx.reg.b32(); local p = ptx.pred()
        line(); ptx.op "wgmma.mma_async.sp.sync.aligned.m64n8k64.f32.e4m3.e4m3" (acc, a, b, m, 1, p, 1, 1) end,
      good = function() local acc = ptx.regs.f32(4); local a, b = ptx.reg.u64(), ptx.reg.u64(); local m = ptx.reg.b32(); local p = ptx.pred()
        ptx.mov.u64(a, 0); ptx.mov.u64(b, 0); ptx.mov.b32(m, 0); ptx.setp.eq.u32(p, 0, 0)
        ptx.op "wgmma.mma_async.sp.sync.aligned.m64n8k64.f32.e4m3.e4m3" (acc, a, b, m, 0, p, 1, 1) end,
      raw = "wgmma.mma_async.sp.sync.aligned.m64n8k64.s32.s8.u8 {%r1, %r2, %r3, %r4}, %rd1, %rd2, %r5, 1, %p1;" },
    { what = "setmaxnreg's count is a multiple of 8", msg = "100 is not a multiple of 8",
      bad = function(line) line(); ptx.op "setmaxnreg.inc.sync.aligned.u32" (100) end,
      good = function() ptx.op "setmaxnreg.inc.sync.aligned.u32" (240) end,
      raw = "setmaxnreg.inc.sync.aligned.u32 100;" },
    { what = "setmaxnreg's count is 24 to 256", msg = "16 is out of range (24 to 256)",
      bad = function(line) line(); ptx.op "setmaxnreg.dec.sync.aligned.u32" (16) end,
      raw = "setmaxnreg.dec.sync.aligned.u32 16;" },
    { what = "tensormap.cp_fenceproxy copies the whole 128-byte map", msg = "64 is not 128 (the only value this form takes)",
      bad = function(line) local tm = ptx.shared("tm", "b8", 128, 128); local g = ptx.reg.u64(); ptx.mov.u64(g, 0)
        line(); ptx.op "tensormap.cp_fenceproxy.global.shared::cta.tensormap::generic.release.gpu.sync.aligned" (ptx.addr(g), ptx.addr(tm), 64) end,
      raw = "mov.u64 %rd1, 0;\ntensormap.cp_fenceproxy.global.shared::cta.tensormap::generic.release.gpu.sync.aligned [%rd1], [sv], 64;" },
    { what = "pmevent's event is 0 to 15", msg = "16 is out of range (0 to 15)",
      bad = function(line) line(); ptx.pmevent(16) end, good = function() ptx.pmevent(15) end, raw = "pmevent 16;" },
    { what = "a packed 16-bit pair takes no immediate", msg = "expected a register of type .b32, got an immediate",
      bad = function(line) local d, a = ptx.reg.b32(), ptx.reg.b32(); ptx.mov.b32(a, 0); line(); ptx.add.u16x2(d, a, 1) end,
      raw = "mov.b32 %r2, 0;\nadd.u16x2 %r1, %r2, 1;" },
  }
  it("forms told apart by an immediate's values alone: the other form is written with its values", function()
    -- tensormap.replace's swizzle_mode takes 0..3 everywhere and 4 (96B) on sm_103a: the message
    -- says so instead of listing the same operands twice
    ptxas_rejects(module("sm_103a", "8.8", kernel_body("tensormap.replace.tile.swizzle_mode.shared::cta.b1024.b32 [sv], 5;")),
                  "sm_103a", "5 is out of range (0 to 3); other forms take (addr [address], new_val .b32 4)")
    ptxas_rejects(module("sm_100a", "8.8", kernel_body("tensormap.replace.tile.swizzle_mode.shared::cta.b1024.b32 [sv], 4;")),
                  "sm_100a", "with operands (addr [address], new_val .b32 4): ")
    ptxas_rejects(module("sm_100a", "8.8", kernel_body("tensormap.replace.tile.elemtype.shared::cta.b1024.b32 [sv], 16;")),
                  "sm_100a", "16 is out of range (0 to 12); other forms take (addr [address], new_val .b32 13 to 15)")
  end)
  for _, c in ipairs(CASES) do
    it(c.what, function()
      refused("sm_90a", c.bad, nil, "error: operand", c.msg)
      if c.good then assembles("sm_90a", c.good) end
      -- ptxas rejects the value, and --lint finds it in PTX text
      if c.raw then ptxas_rejects(module("sm_90a", "8.7", kernel_body(c.raw)), "sm_90a", c.msg) end
    end)
  end
end)

describe("names PTX spells otherwise", function()
  it("refuses a register range named with a trailing digit, which ptxas cannot use", function()
    refused("sm_90a", function(line) line(); local v = ptx.regs.f32(2, "v1") end, nil,
            "register range name 'v1' ends in a digit", "'v1_'")
    refused("sm_90a", function(line) line(); local v = ptx.regs.u32(4, "stage0") end, nil, "ends in a digit")
    ptxas_rejects(module("sm_90a", "8.0", ".visible .entry k()\n{\n.reg .f32 %v1<2>;\nmov.f32 %v10, 0f00000000;\nret;\n}"), "sm_90a",
                  "'%v10' is not a declared register")
    assembles("sm_90a", function() local v = ptx.regs.f32(2, "v1_"); ptx.mov.f32(v[2], 0.0) end)
  end)

  it("refuses a register named like a pool at the line that names it, before any pool register", function()
    for _, n in ipairs { "r", "r1", "rd", "rd12", "f", "f3", "p", "fv1_", "hb2" } do
      refused("sm_90a", function(line) line(); ptx.regs.u32(2, n) end, nil, ("register name '%%%s' is reserved"):format(n))
      refused("sm_90a", function(line) line(); ptx.reg.f32(n) end, nil, "is reserved", "choose another name")
    end
    -- the case of the report: a range "r", then a pool register: the error is the range's
    refused("sm_90a", function(line) line(); local v = ptx.regs.u32(2, "r"); local a = ptx.reg.u32(); ptx.add.u32(v[1], v[2], a) end,
            nil, "the pool of unnamed .u32 registers is %r1, %r2")
    assembles("sm_90a", function() local v = ptx.regs.u32(2, "rr"); local a = ptx.reg.u32(); ptx.add.u32(v[1], v[2], a) end)
  end)

  it("keeps PTX's own register names in a --sugar script (nvcc's %r<N>, %f<N>)", function()
    local text = H.fixture "sugar/nvcc_regs.ptx"
    local f = H.write(H.tmpfile(".ptx"), text)
    local out, err, rc = H.ptxlua { "--from-ptx", f, "--sugar" }
    assert.are.equal(0, rc, err)
    local lua = H.write(H.tmpfile(".lua"), out)
    local back, err2, rc2 = H.ptxlua { lua, "--print-ptx" }
    assert.are.equal(0, rc2, err2 .. "\n" .. out)
    assert.are.equal(text, back)
  end)

  it("refuses '_' and WARP_SZ as names of variables, parameters, functions and kernels", function()
    refused("sm_90a", function(line) line(); ptx.shared("WARP_SZ", "b32", 4) end, nil, "reserved in PTX", "warp-size constant")
    refused("sm_90a", function(line) line(); ptx.shared_dynamic("_") end, nil, "the sink")
    local _, err = trace("sm_90a", function() end, nil, { name = "WARP_SZ" })
    assert(err and err:find(THIS .. ":%d+: error: ptx.kernel: the name 'WARP_SZ' is reserved in PTX"), err)
    ptxas_rejects(module("sm_90a", "8.0", ".visible .entry k()\n{\n.shared .align 4 .b32 WARP_SZ[4];\nret;\n}"), "sm_90a",
                  "'WARP_SZ' is reserved in PTX")
  end)

  it("refuses a kernel variable or parameter that hides a ptx.func from the kernel's calls", function()
    local function with_f(line)
      ptx.func { name = "helper", body = function() end }
    end
    refused("sm_90a", function(line) line(); ptx.shared("helper", "b32", 4) end, { opts = { before = with_f } },
            "the name of the function defined at", "hides it")
    ptxas_rejects(module("sm_90a", "8.0", ".func helper()\n{\nret;\n}\n.visible .entry k()\n{\n.shared .align 4 .b32 helper[4];\n"
                         .. "call.uni helper;\nret;\n}"), "sm_90a", "hides the function of that name from the call")
  end)

  it("refuses a module-scope dynamic shared array named like a kernel or function of the script", function()
    refused("sm_90a", function(line) line(); ptx.shared_dynamic("k") end, nil, "is the name of a kernel", "inconsistent redefinition")
    refused("sm_90a", function(line) line(); ptx.shared_dynamic("helper") end,
            { opts = { before = function() ptx.func { name = "helper", body = function() end } end } }, "is the name of a function")
    -- (ptxas crashes after its message on the kernel's case; the function's shows the rule)
    ptxas_rejects(module("sm_90a", "8.0", ".func helper()\n{\nret;\n}\n.extern .shared .align 16 .b8 helper[];\n"
                         .. ".visible .entry k()\n{\nret;\n}"), "sm_90a", "inconsistent redefinition")
  end)
end)

describe("state spaces", function()
  it("refuses st.param to a kernel's parameter (read-only) and to a function's input", function()
    refused("sm_90a", function(line, n) local a = ptx.reg.u32(); ptx.mov.u32(a, 1); line(); ptx.st.param.u32(ptx.addr(n), a) end,
            { { "n", "u32" } }, "'n' is an input parameter of kernel k, which is read-only")
    ptxas_rejects(module("sm_90a", "8.0", ".visible .entry k(.param .u32 n)\n{\n.reg .u32 %r;\nmov.u32 %r, 1;\n"
                         .. "st.param.u32 [n], %r;\nret;\n}"), "sm_90a", "input parameter")
    ptx.reset()
    local ok, err = pcall(function()
      ptx.func { name = "f", params = { { "a", "u32" } }, returns = { { "r", "u32" } }, body = function(_, a, r)
        local x = ptx.reg.u32(); ptx.mov.u32(x, 1); ptx.st.param.u32(ptx.addr(a), x) end }
      ptx.kernel { name = "k", body = function() end }
      return ptx.ptx {}
    end)
    assert.is_false(ok)
    assert(tostring(err):find("'a' is an input parameter of function f", 1, true), err)
  end)

  it("refuses an mbarrier object outside .shared, also through a generic address", function()
    refused("sm_90a", function(line)
      ptx._current().mod:var("local", "lv", "b64", 8, 1)
      line(); ptx.mbarrier.init.b64(ptx.addr(ptx.sym "lv"), 1)
    end, nil, "'lv' is a .local variable", "an mbarrier object lives in .shared")
    ptxas_rejects(module("sm_90a", "8.0", ".visible .entry k()\n{\n.local .align 8 .b64 lv;\nmbarrier.init.b64 [lv], 1;\nret;\n}"),
                  "sm_90a", "an mbarrier object lives in .shared")
  end)

  it("checks each address of a copy in its own space", function()
    refused("sm_80", function(line)
      local s, t = ptx.shared("s", "b8", 64, 16), ptx.shared("t", "b8", 64, 16)
      line(); ptx.cp.async.ca.shared.global(ptx.addr(s), ptx.addr(t), 16)
    end, nil, "operand 2", "'t' is a .shared variable, which a .global access cannot address")
    ptxas_rejects(module("sm_80", "7.0", ".visible .entry k()\n{\n.shared .align 16 .b8 s[64];\n.shared .align 16 .b8 t[64];\n"
                         .. "cp.async.ca.shared.global [s], [t], 16;\nret;\n}"), "sm_80", "state space mismatch")
    refused("sm_90a", function(line) local s = ptx.shared("s", "b8", 64, 16); line(); ptx.prefetchu.L1(ptx.addr(s)) end, nil,
            "'s' is a .shared variable")
  end)
end)

describe("sizes at and past the targets' limits", function()
  local function arrays(sizes, aligns)
    return function(line)
      local w = ptx.reg.b32(); ptx.mov.b32(w, 0)
      for i, n in ipairs(sizes) do
        local s = (i < #sizes or line() or true) and ptx.shared("s" .. i, "b8", n, aligns and aligns[i] or 4)
        ptx.st.shared.b32(ptx.addr(s), w)
      end
    end
  end
  it("a kernel's static .shared: 48 KB on every target but the arch-specific ones", function()
    for _, target in ipairs { "sm_80", "sm_90", "sm_100", "sm_120" } do
      refused(target, arrays { 32768, 32768 }, nil, "static shared memory: 's2' brings k to 65536 bytes",
              "over the 49152 bytes (48 KB) ptxas allows on " .. target)
      assembles(target, arrays { 32768, 16384 })
    end
    -- the second array's alignment pads the first, as ptxas lays them out
    refused("sm_80", arrays({ 49120, 16 }, { 4, 64 }), nil, "brings k to 49168 bytes")
    assembles("sm_80", arrays({ 49072, 16 }, { 4, 64 }))
    ptxas_rejects(module("sm_80", "7.0", ".visible .entry k()\n{\n.shared .align 4 .b8 s1[49120];\n.shared .align 64 .b8 s2[16];\n"
                         .. ".reg .b32 %w;\nmov.b32 %w, 0;\nst.shared.b32 [s1], %w;\nst.shared.b32 [s2], %w;\nret;\n}"), "sm_80",
                  "kernel 'k' declares 49168 bytes of static .shared, over the 49152 bytes ptxas allows on sm_80")
  end)

  it("the block's limit on sm_90a, sm_100a (227 KB) and sm_120a (99 KB)", function()
    assembles("sm_90a", arrays { 200000, 32448 })
    refused("sm_90a", arrays { 200000, 32449 }, nil, "232449 bytes, over the 232448 bytes (227 KB) ptxas allows on sm_90a")
    refused("sm_100a", arrays { 232449 }, nil, "over the 232448 bytes")
    assembles("sm_120a", arrays { 101376 })
    refused("sm_120a", arrays { 101377 }, nil, "over the 101376 bytes (99 KB)")
  end)

  it("a static shared-memory plan counts with the kernel's arrays, at the plan's line", function()
    refused("sm_90", function(line)
      local s = ptx.shared("s", "b8", 8208, 16)
      line(); local pl = ptx.smem_plan { name = "smem" }
      pl:alloc("a", "b8", 40960)
    end, nil, "ptx.smem_plan 'smem' (40960 bytes, static): static shared memory: 'smem' brings k to 49280 bytes")
    assembles("sm_90", function()
      local s = ptx.shared("s", "b8", 8064, 16)
      local pl = ptx.smem_plan { name = "smem" }
      pl:alloc("a", "b8", 40960)
      local w = ptx.reg.b32(); ptx.mov.b32(w, 0); ptx.st.shared.b32(pl.a:addr(), w); ptx.st.shared.b32(ptx.addr(s), w)
    end)
  end)

  it("a kernel's parameters: 4352 bytes below PTX ISA 8.1 (the version rises), 32764 from 8.1", function()
    local text = assembles("sm_90a", function() end, { { "b", "b8", size = 32764 } })
    assert(text:find("\n.version 8.1\n", 1, true), text)
    text = assembles("sm_90a", function() end, { { "b", "b8", size = 4352 } })
    assert(text:find("\n.version 8.0\n", 1, true), text)
    local _, err = trace("sm_90a", function() end, { { "b", "b8", size = 32765 } })
    assert(err and err:find(THIS .. ":%d+: error: ptx.kernel 'k': its parameters take 32765 bytes"), err)
    _, err = trace("sm_90a", function() end, { { "b", "b8", size = 5000 } }, { version = 8.0 })
    assert(err and err:find("over the 4352 bytes ptxas allows below PTX ISA 8.1", 1, true), err)
    ptxas_rejects(module("sm_90a", "8.0", ".visible .entry k(.param .align 1 .b8 b[4353])\n{\nret;\n}"), "sm_90a",
                  "takes 4353 bytes of parameters, over the 4352 bytes ptxas allows below PTX ISA 8.1")
    ptxas_rejects(module("sm_90a", "8.1", ".visible .entry k(.param .align 1 .b8 b[32765])\n{\nret;\n}"), "sm_90a",
                  "over the 32764 bytes")
  end)
end)

describe("the boundary sweep (tests/isa/bounds.lua), on a few families", function()
  local function sweep(run)
    local ptxas = H.ptxas_path()
    if not ptxas then if H.ci then error("ptxas not found (CI requires the CUDA toolkit)") end; return H.pending("ptxas not found") end
    local B = require("boundsgen").init(H.root, H.shq(ptxas), H.exe)
    local res = run(B)
    B.cleanup()
    return res
  end
  local function clean(res, min)
    assert(res.count >= min, "only " .. res.count .. " probes")
    assert(#res.looser == 0, #res.looser .. " probes ptxlua takes and ptxas rejects:\n  " .. table.concat(res.looser, "\n  "))
    assert(#res.lint == 0, #res.lint .. " probes --lint misses:\n  " .. table.concat(res.lint, "\n  "))
  end
  it("immediates of mbarrier, bfe/bfi, bar, pmevent, discard and tensormap forms", function()
    sweep(function(B)
      local only = { mbarrier = true, bfe = true, bfi = true, bar = true, barrier = true, pmevent = true, discard = true,
                     applypriority = true, tensormap = true }
      clean(B.imm_sweep(ptx, only), 2000)
    end)
  end)
  it("names that collide (registers, ranges, pools, variables, parameters, labels): --lint says what ptxas says", function()
    sweep(function(B)
      clean(B.name_sweep(ptx), 3000)
    end)
  end)
  it("state spaces of every form's addresses (mbarrier, cp.async, st, prefetchu, ldmatrix, clusterlaunchcontrol, tensormap, ...)", function()
    sweep(function(B)
      clean(B.space_sweep(ptx), 3000)
    end)
  end)
end)
