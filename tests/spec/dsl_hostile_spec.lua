-- dsl_hostile_spec.lua -- every function of the DSL (ptx.*) and every method of what it returns
-- (registers of several types, a shared-memory plan, an allocation) called inside a kernel body
-- with hostile arguments: nil, NaN, huge numbers, strings, empty and malformed tables, registers of
-- the wrong type, symbols, addresses, functions. A call may succeed (then it recorded what it was
-- asked) or fail; a failure must be an error at the line of this file that made the call
-- ("dsl_hostile_spec.lua:N: error: ..."), never a Lua error from inside ptxlua's own files.
local H = require "helper"

local lcg = H.lcg                                 -- the same picks on every machine

-- functions that are not called inside a kernel body (they trace, reset or print the registry)
local SKIP = { reset = true, kernel = true, func = true, ptx = true, build = true, kernels = true,
               select_kernels = true, write = true, print = true }

local function where_ok(msg)
  return type(msg) == "string" and msg:match("^[^\n]*dsl_hostile_spec%.lua:%d+: error: ") ~= nil
end

local function run(seed, trials, target)
  local ptx = H.fresh()
  local bad, calls, nnames, nmethods = {}, 0, 0, 0
  ptx.kernel { name = "k", target = target or "sm_90a", params = { {"a", "u64"}, {"n", "u32"}, {"x", "f32*"} }, body = function(_, a, n, x)
    local rnd = lcg(seed)
    local tplan                                   -- sm_100a: the tensor-memory plan (one a kernel), a range in it
    if target == "sm_100a" then tplan = ptx.tmem_plan(); tplan:alloc("acc", 128) end
    local r, f, p, rd = ptx.reg.u32(), ptx.reg.f32(), ptx.pred(), ptx.reg.u64()
    local h, s64, b16 = ptx.reg.f16(), ptx.reg.s64(), ptx.reg.b16()
    local V = { false, true, 0, -1, 7, 2^40, 1e300, 0 / 0, "", "x", "f32", "u64", "128B", {}, { 1, 2 }, { [0] = 99 },
                { [0] = "x" }, { [0] = -5, "y" }, r, f, p, rd, h, s64, b16, a, n, x, ptx.addr(rd), ptx.addr(rd, 8),
                function() end, setmetatable({}, { __index = function() error("boom") end }) }
    local function try(what, fn, first, nfirst)
      local args = { first }
      local na = rnd(5) - 1
      for i = 1, na do args[nfirst + i] = V[rnd(#V)] end
      calls = calls + 1
      local ok, err = pcall(fn, unpack(args, 1, nfirst + na))
      if not ok and not where_ok(err) and #bad < 20 then bad[#bad + 1] = what .. ": " .. tostring(err):gsub("\n.*", "") end
    end
    local names = {}
    for k, v in pairs(ptx) do if type(v) == "function" and not k:match("^_") and not SKIP[k] then names[#names + 1] = k end end
    table.sort(names)
    nnames = #names
    for _, name in ipairs(names) do
      for _ = 1, trials do try("ptx." .. name, ptx[name], nil, 0) end
    end
    local objs = { u32 = r, f32 = f, pred = p, u64 = rd, f16 = h, s64 = s64, b16 = b16 }
    local plan = ptx.smem_plan { name = "sm" }
    objs.plan = plan
    objs.alloc = plan:alloc("A", "bf16", { 64, 64 }, { swizzle = "128B", stages = 2 })
    objs.tplan = tplan
    for oname, o in pairs(objs) do
      local mt = getmetatable(o)                  -- (a tensor-memory range is a plain table)
      local idx = mt and mt.__index
      local ms = {}
      if type(idx) == "table" then
        for k, fn in pairs(idx) do if type(fn) == "function" and not SKIP[k] then ms[#ms + 1] = k end end
      end
      table.sort(ms)
      nmethods = nmethods + #ms
      for _, m in ipairs(ms) do
        for _ = 1, trials do try(oname .. ":" .. m, idx[m], o, 1) end
      end
    end
    ptx.ret()
  end }
  -- the kernel itself may not trace (hostile calls leave it in any state): only the errors matter
  pcall(ptx.ptx)
  return bad, calls, nnames, nmethods
end

-- instructions of every family, each called with hostile operands (the C core converts and checks them)
local OPS = { "add.f32", "add.u32", "mad.lo.u32", "fma.rn.f32", "ld.global.u32", "st.global.f32", "ld.shared.v4.f32",
  "st.shared.v2.u32", "setp.lt.u32", "selp.f32", "cvt.rn.f32.u32", "cvt.u64.u32", "mov.u32", "mov.b64", "shfl.sync.bfly.b32",
  "bar.sync", "atom.global.add.u32", "red.shared.add.f32", "mbarrier.init.shared::cta.b64",
  "mbarrier.try_wait.parity.shared::cta.b64", "cp.async.bulk.tensor.2d.shared::cluster.global.tile.mbarrier::complete_tx::bytes",
  "wgmma.mma_async.sync.aligned.m64n64k16.f32.bf16.bf16", "wgmma.fence.sync.aligned", "ldmatrix.sync.aligned.m8n8.x4.shared.b16",
  "stmatrix.sync.aligned.m8n8.x4.shared.b16", "mapa.shared::cluster.u32", "elect.sync", "setmaxnreg.inc.sync.aligned.u32",
  "tensormap.replace.tile.global_address.global.b1024.b64", "bra", "call", "ret", "cp.async.bulk.commit_group", "prmt.b32",
  "bfe.u32", "vote.sync.ballot.b32", "mma.sync.aligned.m16n8k16.row.col.f32.bf16.bf16.f32" }

describe("the DSL under hostile calls", function()
  it("places every error of an instruction with hostile operands at the caller's line", function()
    local ptx = H.fresh()
    local bad, calls = {}, 0
    ptx.kernel { name = "k", target = "sm_90a", params = { {"a", "u64"}, {"n", "u32"}, {"tm", "tensormap"} }, body = function(_, a, n, tm)
      local rnd = lcg(99)
      local r, f, p, rd, h = ptx.reg.u32(), ptx.reg.f32(), ptx.pred(), ptx.reg.u64(), ptx.reg.f16()
      local V = { false, 0, -1, 2^40, 1e300, 0 / 0, "", "x", {}, { r, r }, { r, f, p }, { [0] = 99 }, { [0] = "x" }, true,
                  r, f, p, rd, h, a, n, tm, ptx.addr(rd), ptx.addr(r, 4), ptx.taddr(rd, { r, r }), ptx.label "L",
                  function() end, ptx._, { r, r, r, r }, { f, f, f, f, f, f, f, f } }
      for _, op in ipairs(OPS) do
        for _ = 1, 150 do
          local args, na = {}, rnd(7) - 1
          for i = 1, na do args[i] = V[rnd(#V)] end
          calls = calls + 1
          local ok, err = pcall(ptx.op(op), unpack(args, 1, na))
          if not ok and (not where_ok(err) or tostring(err):find("attempt to", 1, true)) and #bad < 20 then
            bad[#bad + 1] = op .. ": " .. tostring(err):gsub("\n.*", "")
          end
        end
      end
      ptx.ret()
    end }
    pcall(ptx.ptx)
    assert.are.equal(#OPS * 150, calls)
    assert.are.same({}, bad)
  end)


  for _, c in ipairs { { 1, "sm_90a" }, { 2, "sm_90a" }, { 3, "sm_100a" }, { 4, "sm_100a" } } do
    local seed, target = c[1], c[2]
    it("places every error at the caller's line (seed " .. seed .. ", " .. target .. ")", function()
      local bad, calls, nnames, nmethods = run(seed, 40, target)
      assert.is_true(nnames > 40 and nmethods > 100, nnames .. " functions, " .. nmethods .. " methods")
      assert.is_true(calls > 5000, calls .. " calls")
      assert.are.same({}, bad)
    end)
  end
end)
