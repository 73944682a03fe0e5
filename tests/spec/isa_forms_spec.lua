-- isa_forms_spec.lua -- every form of the ISA table, proven by ptxas: generated instances of each
-- form (tests/isa/isagen.lua: the form with no optional modifier, then each alternative of each
-- group), traced through the DSL into one kernel per instruction name, assembled for the least
-- target and version the table gives them and again on sm_90a; mutated instances that the
-- validator must reject (and ptxas too); and the register type rules against ptxas.
local H = require "helper"
package.path = H.root .. "/tests/isa/?.lua;" .. package.path
local G = require("isagen").init(H.root)
-- immediates of the Hopper families: wgmma's sp-sel (operand 5 of a sparse form) is 0, its scales
-- and transposes 1; a register budget is a multiple of 8 in 24..256
G.IMM.wgmma = function(sh, k) return (sh.has.sp and k == 5) and 0 or 1 end
G.IMM.setmaxnreg = 240
-- tensormap.cp_fenceproxy copies a whole 128-byte map; tensormap.replace takes small field ordinals
G.IMM.tensormap = function(sh) return sh.has.cp_fenceproxy and 128 or 1 end
local core = require "ptxlua.core"
local ptx = require "ptxlua"

---------------------------------------------------------------------------------------------------
-- forms the generator cannot give operands to by itself: a short list of hand-written instances
---------------------------------------------------------------------------------------------------
local function brx(text)
  -- brx.idx takes a .branchtargets list, declared in the kernel body before it
  return { text = text, run = function(p, env, emit)
    local name = "bt_" .. env.kname .. "_" .. text:gsub("%.", "_")
    env.mod:raw(("%s: .branchtargets %s, %s;"):format(name, env.labelname, env.labelname))
    emit(text, p.reg.u32(), p.sym(name))
  end }
end

-- call needs a .func in the module: every module G.build makes gets one (G.build calls ptx.reset)
local reset = ptx.reset
ptx.reset = function()
  reset()
  ptx.func { name = "isa_fn", params = { { "a", "u32" } }, returns = { { "r", "u32" } }, body = function() end }
end
local function call(text, rets, args)
  return { text = text, run = function(p, env, emit)
    local PAREN = -10                                  -- the kind tag of a parenthesized list (init.lua)
    local ops = {}
    if rets then ops[#ops + 1] = { [0] = PAREN, p.reg.u32() } end
    ops[#ops + 1] = p.sym("isa_fn")
    if args then ops[#ops + 1] = { [0] = PAREN, args == "imm" and 7 or p.reg.u32() } end
    emit(text, unpack(ops))
  end }
end

-- an indirect call: through a .b64 function pointer, with the .callprototype that says its signature
local nproto = 0
local function icall(text, rets, args)
  return { text = text, run = function(p, env, emit)
    local PAREN = -10
    nproto = nproto + 1
    local proto = "proto_" .. env.kname .. "_" .. nproto
    env.mod:raw(("%s: .callprototype %s_ %s;"):format(proto, rets and "(.param .b32 _) " or "",
                                                       args and "(.param .b32 _)" or "()"))
    local ops = {}
    if rets then ops[#ops + 1] = { [0] = PAREN, p.reg.u32() } end
    ops[#ops + 1] = p.reg.b64()
    if args then ops[#ops + 1] = { [0] = PAREN, p.reg.u32() } end
    ops[#ops + 1] = p.sym(proto)
    emit(text, unpack(ops))
  end }
end

local HAND = {
  ["brx.idx{.uni}"] = { brx "brx.idx", brx "brx.idx.uni" },
  ["call{.uni}"] = { call("call.uni", true, "reg"), call("call", true, "imm"), icall("call", true, true), icall("call.uni", false, true),
                     icall("call", false, false) },
}

-- more instances, beside the generated ones: operand kinds the generator does not try
local function run(text, f) return { text = text, run = function(p, env, emit) emit(text, f(p, env)) end } end
local EXTRA = {
  ["mov$movtyp"] = {
    run("mov.u64", function(p, env) return p.reg.u64(), p.sym("sm_" .. env.kname) end),   -- a variable's address
    run("mov.u32", function(p) return p.reg.u32(), 7 end),
    run("mov.f32", function(p) return p.reg.f32(), 1.5 end),
    run("mov.f64", function(p) return p.reg.f64(), -0.25 end),
    run("mov.u32", function(p) return p.reg.u32(), p.sreg.tid.x end),
  },
  ["cvta$cvtspace.u64"] = {
    run("cvta.shared.u64", function(p, env) return p.reg.u64(), p.sym("sm_" .. env.kname) end),
    run("cvta.const.u64", function(p, env) return p.reg.u64(), p.sym("cst_" .. env.kname) end),
  },
  ["add$i16_64"] = { run("add.s32", function(p) return p.reg.s32(), p.reg.s32(), -5 end) },
  ["add{$rnd}{.ftz}{.sat}.f32"] = { run("add.f32", function(p) return p.reg.f32(), p.reg.f32(), 0.5 end) },
  ["st{.weak}{$stss}{$stcop}$ldvtq"] = {
    run("st.global.v4.f32", function(p, env) local z = p.reg.f32(); return p.addr(env.glob, 16), { z, 0.0, z, 1.0 } end),
  },
  ["setp$fcmp{$boolop}{.ftz}.f32"] = {
    run("setp.lt.f32", function(p) return p.pair(p.reg.pred(), p._), p.reg.f32(), 1.0 end),
  },
}

---------------------------------------------------------------------------------------------------
-- instances, placed on the least target the table gives them (and on sm_90a where it has them)
---------------------------------------------------------------------------------------------------
local function collect()
  local groups, order, missing, unplaced, count = {}, {}, {}, {}, 0
  local function place(it, target, version)
    local key = ("%s@%d"):format(target, version)
    local g = groups[key]
    if not g then g = { target = target, version = version, insts = {} }; groups[key] = g; order[#order + 1] = key end
    g.insts[#g.insts + 1] = it
    count = count + 1
  end
  for _, p in ipairs(G.parsed) do
    local its = {}
    for _, h in ipairs(HAND[p.pattern] or {}) do its[#its + 1] = { p = p, text = h.text, run = h.run } end
    for _, h in ipairs(EXTRA[p.pattern] or {}) do its[#its + 1] = { p = p, text = h.text, run = h.run } end
    if not HAND[p.pattern] then
      for _, t in ipairs((G.cover(p))) do
        its[#its + 1] = { p = p, text = t }
        if G.has_optional(p) then its[#its + 1] = { p = p, text = t, opts = { optional = true, pair = true } } end
      end
    end
    if #its == 0 then missing[#missing + 1] = p.pattern .. " (" .. p.operands .. ")" end
    for _, it in ipairs(its) do
      local target, version = G.placement(it.text, p)
      if not target then
        unplaced[#unplaced + 1] = it.text .. ": " .. tostring(version)
      else
        place(it, target, version)
        if target ~= "sm_90a" and G.target_ok(p, "sm_90a") and core.check_opcode(it.text, "sm_90a") then
          local _, need = core.check_opcode(it.text)
          place(it, "sm_90a", math.max(need, p.ptx, 80))
        end
      end
    end
  end
  table.sort(order)
  return groups, order, missing, unplaced, count
end

-- ptxas's errors by line
local function errors_by_line(report)
  local errs = {}
  for l, msg in report:gmatch("line (%d+); [ef]%a+%s*: ([^\n]*)") do
    l = tonumber(l)
    errs[l] = errs[l] and (errs[l] .. "; " .. msg) or msg
  end
  return errs
end

local GROUPS, ORDER, MISSING, UNPLACED, COUNT = collect()

describe("the ISA table", function()
  it("compiles: every pattern and operand list is well formed", function()
    -- a form that does not compile never matches; the C test counts them too (plA_bad_forms)
    local bad = {}
    for _, p in ipairs(G.parsed) do
      local texts = G.cover(p)
      for _, t in ipairs(texts) do
        if not core.check_opcode(t) then bad[#bad + 1] = t .. " [" .. p.pattern .. "]" end
      end
    end
    assert(#bad == 0, "opcode texts of the table that the validator does not know:\n  " .. table.concat(bad, "\n  "))
  end)

  it("uses every set it names", function()
    local unused = {}
    for name in pairs(G.sets) do
      local used = false
      for _, f in ipairs(G.forms) do used = used or f[1]:find("$" .. name .. "%f[^%w_]") ~= nil or f[2]:find("$" .. name .. ">", 1, true) ~= nil end
      for other, alts in pairs(G.sets) do used = used or (other ~= name and alts:find("$" .. name .. "%f[^%w_]") ~= nil) end
      if not used then unused[#unused + 1] = name end
    end
    table.sort(unused)
    assert(#unused == 0, "sets no form uses: " .. table.concat(unused, ", "))
  end)

  it("has an instance for every form", function()
    local patterns = {}
    for _, p in ipairs(G.parsed) do patterns[p.pattern] = true end
    for k in pairs(HAND) do assert(patterns[k], "HAND names no form: " .. k) end
    for k in pairs(EXTRA) do assert(patterns[k], "EXTRA names no form: " .. k) end
    assert(#MISSING == 0, "forms with no instance (add one to HAND in this spec):\n  " .. table.concat(MISSING, "\n  "))
    assert(#UNPLACED == 0, "instances no target takes:\n  " .. table.concat(UNPLACED, "\n  "))
    assert.is_true(COUNT > #G.parsed)
  end)

  it("every instance is accepted by the validator and by ptxas, at its least target and version", function()
    local problems = {}
    for _, key in ipairs(ORDER) do
      local g = GROUPS[key]
      local text, lines, rejected = G.build(ptx, g.insts, g.target, g.version / 10)
      for _, r in ipairs(rejected) do
        problems[#problems + 1] = ("validator, %s: %s [%s]: %s"):format(key, r.it.text, r.it.p.pattern, r.msg)
      end
      local want = ("\n.version %d.%d\n"):format(math.floor(g.version / 10), g.version % 10)
      if not text:find(want, 1, true) then
        problems[#problems + 1] = ("%s: the DSL did not pick .version %d.%d"):format(key, math.floor(g.version / 10), g.version % 10)
      end
      local ok, report = H.assemble(text, g.target)
      if ok == nil then return end                      -- no ptxas: pending
      if not ok then
        local errs = errors_by_line(report)
        local any = false
        for l, msg in pairs(errs) do
          any = true
          local li = lines[l]
          problems[#problems + 1] = ("ptxas, %s: %s [%s]: %s"):format(key, li and li.text or ("line " .. l),
            li and li.it and li.it.p and li.it.p.pattern or "?", msg)
        end
        if not any then problems[#problems + 1] = ("ptxas, %s: %s"):format(key, report) end
      end
    end
    table.sort(problems)
    assert(#problems == 0, #problems .. " mismatches:\n  " .. table.concat(problems, "\n  "))
  end)

  -------------------------------------------------------------------------------------------------
  -- special registers: mov from each, on its least target
  -------------------------------------------------------------------------------------------------
  it("every special register reads with mov on its least target, and not below it", function()
    local SREG = rawget(ptx.sreg.laneid, 0)             -- the kind tag of a special-register operand
    local function sreg(name, t) return { [0] = SREG, name, t } end
    local groups, order, problems = {}, {}, {}
    for _, e in ipairs(G.SREGS) do
      for _, name in ipairs(e.names) do
        local target
        for _, t in ipairs(G.TARGETS) do
          if tonumber(t:match("%d+")) >= e.sm then target = t; break end
        end
        local version = math.max(e.ptx, G.target_version(target))
        local key = target .. "@" .. version
        if not groups[key] then groups[key] = { target = target, version = version, insts = {} }; order[#order + 1] = key end
        local text = "mov." .. e.type
        table.insert(groups[key].insts, { text = text, name = name, run = function(p, env, emit)
          emit(text, p.reg[e.type](), sreg(name, e.type))
        end })
        -- below its least target the validator says no
        if e.sm > 75 then
          local low = e.sm >= 100 and "sm_90a" or e.sm >= 90 and "sm_89" or "sm_75"
          local ok = pcall(function()
            ptx.reset()
            ptx.kernel { name = "low", target = low, body = function() ptx.op(text)(ptx.reg[e.type](), sreg(name, e.type)) end }
            ptx.ptx {}
          end)
          if ok then problems[#problems + 1] = ("validator takes %%%s on %s"):format(name, low) end
        end
      end
    end
    -- and no unknown name, and no wrong type
    for _, bad in ipairs { { "mov.u32", "bogus", "u32" }, { "mov.u64", "tid.x", "u32" }, { "mov.u32", "laneid.x", "u32" },
                           { "mov.u32", "envreg32", "u32" } } do
      local ok = pcall(function()
        ptx.reset()
        ptx.kernel { name = "bad", body = function() ptx.op(bad[1])(ptx.reg[bad[1]:sub(5)](), sreg(bad[2], bad[3])) end }
        ptx.ptx {}
      end)
      if ok then problems[#problems + 1] = ("validator takes %s %%%s"):format(bad[1], bad[2]) end
    end
    table.sort(order)
    for _, key in ipairs(order) do
      local g = groups[key]
      local text, lines, rejected = G.build(ptx, g.insts, g.target, g.version / 10)
      for _, r in ipairs(rejected) do problems[#problems + 1] = ("validator, %s: %%%s: %s"):format(key, r.it.name, r.msg) end
      local ok, report = H.assemble(text, g.target)
      if ok == nil then return end
      if not ok then
        for l, msg in pairs(errors_by_line(report)) do
          problems[#problems + 1] = ("ptxas, %s: %s: %s"):format(key, lines[l] and lines[l].text or l, msg)
        end
        if not next(errors_by_line(report)) then problems[#problems + 1] = key .. ": " .. report end
      end
    end
    assert(#problems == 0, table.concat(problems, "\n  "))
  end)

  -------------------------------------------------------------------------------------------------
  -- mutated instances: the validator rejects them, and so does ptxas (the same text, raw)
  -------------------------------------------------------------------------------------------------
  -- a register type an operand of type t cannot take (types.c), for a relaxed operand a narrower one
  local FLOAT = { f16 = 1, f16x2 = 1, bf16 = 1, bf16x2 = 1, f32 = 1, f64 = 1, tf32 = 1, f32x2 = 1 }
  local function wrong_type(t, relaxed)
    local bits = G.TYPEBITS[t]
    if t == "pred" then return "u32" end
    if FLOAT[t] or (G.TYPEBITS[t] and t:match("^e%d") or t:match("^ue")) then
      return bits <= 8 and "f16" or bits == 16 and "u16" or bits == 32 and "u32" or "u64"
    end
    local c = t:sub(1, 1)
    if c == "u" or c == "s" then return bits == 32 and "f32" or bits == 64 and "f64" or "f16" end
    if c == "b" then
      if relaxed then return bits >= 16 and ("b" .. bits / 2) or "pred" end
      return bits == 128 and "b64" or ("b" .. bits * 2)
    end
  end

  -- the operand counts an opcode text takes, over every form it matches
  local function counts(text)
    local ok = {}
    for _, p in ipairs(G.matches(text)) do
      local sh = G.shape(p, text)
      local req, opt = 0, 0
      for _, o in ipairs(sh.ops) do if o.optional then opt = opt + 1 else req = req + 1 end end
      for n = req, req + opt do ok[n] = true end
    end
    return ok
  end

  local function negatives()
    local out = {}
    for _, p in ipairs(G.parsed) do
      local text = (G.cover(p))[1]
      if text and not HAND[p.pattern] then
        local sh = G.shape(p, text)
        -- 1. a register of a type the operand does not take
        for k, o in ipairs(sh.ops) do
          local t = G.optype(sh, o)
          if not o.optional and t and (o.letter == "a" or o.letter == "r" or o.letter == "d" or o.letter == "p")
             and not o.pair and wrong_type(t, o.relaxed) then
            out[#out + 1] = { p = p, text = text, kind = "type", opts = { retype = { [k] = wrong_type(t, o.relaxed) } } }
            break
          end
        end
        -- 2. a required modifier left out, or the type swapped for one no form of it has
        local base, toks = G.tokens(text)
        local mutated
        for i, tk in ipairs(toks) do
          if not G.TYPEBITS[tk] then
            local rest = {}
            for j, t2 in ipairs(toks) do if j ~= i then rest[#rest + 1] = "." .. t2 end end
            local cand = base .. table.concat(rest)
            if #G.matches(cand) == 0 then mutated = cand; break end
          end
        end
        if not mutated then
          for i, tk in ipairs(toks) do
            if G.TYPEBITS[tk] then
              for _, nt in ipairs { "f64", "pred", "u8", "f16", "b128", "s64", "bf16", "f32", "u32" } do
                local t2 = {}
                for j, x in ipairs(toks) do t2[j] = "." .. (j == i and nt or x) end
                local cand = base .. table.concat(t2)
                if #G.matches(cand) == 0 then mutated = cand; break end
              end
              if mutated then break end
            end
          end
        end
        if mutated then out[#out + 1] = { p = p, text = text, kind = "modifier", mutated = mutated } end
        -- 3. one operand too many, or too few
        local ok = counts(text)
        local req = 0
        for _, o in ipairs(sh.ops) do if not o.optional then req = req + 1 end end
        local n = req                                   -- the operands G.operands gives
        if not ok[n + 1] then out[#out + 1] = { p = p, text = text, kind = "count", extra = true }
        elseif req > 0 and not ok[req - 1] then out[#out + 1] = { p = p, text = text, kind = "count", drop = true } end
      end
    end
    return out
  end

  -- where ptxas takes more than the PTX ISA defines, the table follows the ISA (kind:opcode text)
  local PTXAS_LENIENT = {
    ["count:atom.and.b32"] = "ptxas takes a fourth operand on atom forms the ISA gives three",
    ["count:atom.exch.b128"] = "the same",
    ["count:atom.sys.exch.b128"] = "the same",
    ["modifier:testp.f32"] = "ptxas defaults the operation of testp; the ISA requires one",
    ["modifier:prefetch.L2::evict_last"] = "the ISA spells prefetch.global.L2::evict_last",
    ["modifier:cvt.bf16.f16"] = "the ISA requires a rounding modifier for cvt.bf16.f16",
    ["type:cvt.rn.bf16x2.ue8m0x2"] = "ptxas takes a .u32 register for .bf16x2; the ISA says .b32",
    ["type:atom.add.noftz.v2.f16"] = "ptxas takes vector elements of any type of the size",
    ["type:atom.add.v2.f32"] = "the same",
    ["type:red.add.noftz.v2.f16"] = "the same",
    ["type:red.add.v2.f32"] = "the same",
  }

  it("rejects mutated instances (wrong type, modifier, operand count), as ptxas does", function()
    local negs = negatives()
    assert.is_true(#negs > 2 * #G.parsed)
    -- place each on its form's least target (at the newest PTX version: only the mutation may fail)
    local groups, order = {}, {}
    for _, n in ipairs(negs) do
      local target = G.placement(n.text, n.p)
      if target then
        if not groups[target] then groups[target] = {}; order[#order + 1] = target end
        n.run = function(p, env, emit)
          local ops, texts = G.operands(n.p, n.text, env, n.opts)
          local text = n.mutated or n.text
          if n.extra then
            local r = p.reg.u32()
            ops[#ops + 1] = ops[#ops] or r; texts[#texts + 1] = texts[#texts] or r:name()
          end
          if n.drop then ops[#ops] = nil; texts[#texts] = nil end
          n.validator_ok = pcall(emit, text, unpack(ops))
          n.line = text .. " " .. table.concat(texts, ", ") .. ";"
          env.raw(n.line, n)
        end
        table.insert(groups[target], n)
      end
    end
    table.sort(order)
    -- a mutation may happen to be valid PTX (another form takes it): then both must take it
    local problems, both = {}, 0
    for _, target in ipairs(order) do
      local text, lines = G.build(ptx, groups[target], target, 9.0)
      local ok, report = H.assemble(text, target)
      if ok == nil then return end
      local fatal = report:gsub("[^\n]*aborted due to errors[^\n]*", "")
      assert(not fatal:find("fatal"), target .. ": " .. report)
      local errs = errors_by_line(report)
      for l, li in pairs(lines) do
        local n = li.raw
        if n then
          local ptxas_ok = not errs[l]
          local key = n.kind .. ":" .. (n.mutated or n.text)
          if n.validator_ok and not ptxas_ok then
            problems[#problems + 1] = ("validator takes (%s) what ptxas rejects, on %s: %s (%s)"):format(n.kind, target, li.text, errs[l])
          elseif ptxas_ok and not n.validator_ok and not PTXAS_LENIENT[key] then
            problems[#problems + 1] = ("ptxas takes (%s) what the validator rejects, on %s: %s"):format(n.kind, target, li.text)
          elseif not ptxas_ok and not n.validator_ok then
            both = both + 1
          end
        end
      end
    end
    table.sort(problems)
    assert(#problems == 0, #problems .. " problems:\n  " .. table.concat(problems, "\n  "))
    assert(both > 0.9 * #negs, ("only %d of %d mutations were rejected by both"):format(both, #negs))
  end)

  -------------------------------------------------------------------------------------------------
  -- the Blackwell targets: every form of sm_100 and later that only some targets have, on each
  -- arch- and family-specific target from sm_100a to sm_120f, where the validator and ptxas agree
  -- (sm_110a/f have tcgen05 as sm_100a/f do, .kind::i8 is off sm_103, scale-input-d off sm_110)
  -------------------------------------------------------------------------------------------------
  it("places every Blackwell form on the targets ptxas takes it on, and on no other", function()
    local TGTS = { "sm_100a", "sm_100f", "sm_103a", "sm_103f", "sm_110a", "sm_110f", "sm_120a", "sm_120f" }
    local insts, n = {}, 0
    for _, p in ipairs(G.parsed) do
      if p.sm >= 100 and p.flags % 16 > 0 and not HAND[p.pattern] then
        for _, t in ipairs((G.cover(p))) do
          insts[#insts + 1] = { p = p, text = t }
        end
      end
    end
    -- a tensor-memory address of tcgen05.mma is a .b32 register; ld/st take any 32-bit integer
    local function addr_probe(text, rt, want_ok, ops)
      local it = { text = text, probe = rt, want = want_ok }
      it.run = function(q, env, emit)
        local r = q.reg[rt]()
        local o, t = ops(q, r)
        it.validator_ok = pcall(emit, text, unpack(o))
        if not it.validator_ok then it.line = text .. " " .. t:gsub("R", r:name()) .. ";"; env.raw(it.line, it) end
      end
      return it
    end
    local probes = {
      addr_probe("tcgen05.mma.cta_group::1.kind::f16", "u32", false, function(q, r)
        local d1, d2, id, pr = q.reg.b64(), q.reg.b64(), q.reg.b32(), q.reg.pred()
        return { q.addr(r), d1, d2, id, pr }, ("[R], %s, %s, %s, %s"):format(d1:name(), d2:name(), id:name(), pr:name())
      end),
      addr_probe("tcgen05.ld.sync.aligned.32x32b.x1.b32", "u32", true, function(q, r)
        local v = q.reg.b32()
        return { { v }, q.addr(r) }, ("{%s}, [R]"):format(v:name())
      end),
      addr_probe("tcgen05.ld.sync.aligned.32x32b.x1.b32", "b64", false, function(q, r)
        local v = q.reg.b32()
        return { { v }, q.addr(r) }, ("{%s}, [R]"):format(v:name())
      end),
    }
    local problems = {}
    for _, target in ipairs(TGTS) do
      local list = {}
      for _, it0 in ipairs(insts) do
        local it = { p = it0.p, text = it0.text, target = target }
        it.run = function(q, env, emit)
          local ops, texts = G.operands(it.p, it.text, env, {})
          it.validator_ok = pcall(emit, it.text, unpack(ops))
          if not it.validator_ok then it.line = it.text .. " " .. table.concat(texts, ", ") .. ";"; env.raw(it.line, it) end
        end
        list[#list + 1] = it
      end
      if target == "sm_100a" then for _, pr in ipairs(probes) do list[#list + 1] = pr end end
      local text, lines = G.build(ptx, list, target, 9.0)
      local ok, report = H.assemble(text, target)
      if ok == nil then return end
      local errs = errors_by_line(report)
      for l, li in pairs(lines) do
        local it = li.it or li.raw
        if it and (it.target or it.probe) then
          n = n + 1
          local ptxas_ok = not errs[l]
          if it.validator_ok and not ptxas_ok then
            problems[#problems + 1] = ("validator takes what ptxas rejects, on %s: %s (%s)"):format(target, li.text, errs[l])
          elseif ptxas_ok and not it.validator_ok then
            problems[#problems + 1] = ("ptxas takes what the validator rejects, on %s: %s"):format(target, li.text)
          end
          if it.probe and it.validator_ok ~= it.want then
            problems[#problems + 1] = ("%s with a .%s address: the validator %s it"):format(it.text, it.probe, it.validator_ok and "takes" or "rejects")
          end
        end
      end
    end
    table.sort(problems)
    assert(#problems == 0, #problems .. " problems:\n  " .. table.concat(problems, "\n  "))
    assert.is_true(n > 8 * 100)
  end)

  -------------------------------------------------------------------------------------------------
  -- register types: which register each operand takes, against ptxas
  -------------------------------------------------------------------------------------------------
  it("takes the register types ptxas takes (src/base/types.c), operand by operand", function()
    -- { opcode text, operand probed }: plain and relaxed (ld/st/cvt) operands of each type class
    local PROBES = {
      { "add.f32", 2 }, { "add.rn.f64", 2 }, { "add.u32", 2 }, { "add.s64", 2 }, { "add.u16", 2 },
      { "and.b32", 2 }, { "and.b16", 2 }, { "and.b64", 1 }, { "add.rn.f16", 2 }, { "add.rn.f16x2", 1 },
      { "mov.b64", 1 }, { "mov.u32", 2 }, { "selp.b32", 4 }, { "setp.lt.f32", 2 }, { "setp.lt.f32", 1 },
      { "ld.global.u16", 1 }, { "ld.global.f32", 1 }, { "ld.global.b8", 1 }, { "ld.global.s32", 1 },
      { "st.global.u32", 2 }, { "st.global.f64", 2 }, { "st.global.b16", 2 },
      { "cvt.rn.f32.u16", 2 }, { "cvt.rzi.s32.f32", 1 }, { "cvt.rn.f16.f32", 1 }, { "cvt.f32.f16", 2 },
    }
    -- the DSL's register types as ptxas sees them (bf16 and bf16x2 are declared .b16 and .b32: the
    -- validator holds them to their logical type, which ptxas cannot see, so they are left out here)
    local REGS = { "pred", "b8", "b16", "b32", "b64", "u8", "u16", "u32", "u64", "s8", "s16", "s32", "s64",
                   "f16", "f16x2", "f32", "f64" }
    -- where ptxas takes more than src/base/types.c, by design: an integer instruction takes a .f16x2 register
    local function lenient(ins_type, reg) return reg == "f16x2" and ins_type:match("^[us]") ~= nil end
    local insts = {}
    for _, pr in ipairs(PROBES) do
      local p = G.matches(pr[1])[1]
      local sh = G.shape(p, pr[1])
      local want = G.optype(sh, sh.ops[pr[2]])
      for _, rt in ipairs(REGS) do
        local it = { p = p, text = pr[1], rt = rt, want = want, k = pr[2] }
        it.run = function(q, env, emit)
          local ops, texts = G.operands(p, pr[1], env, { retype = { [pr[2]] = rt } })
          it.validator_ok = pcall(emit, pr[1], unpack(ops))
          if not it.validator_ok then
            it.line = pr[1] .. " " .. table.concat(texts, ", ") .. ";"
            env.raw(it.line, it)
          end
        end
        insts[#insts + 1] = it
      end
    end
    local text, lines = G.build(ptx, insts, "sm_90a", 9.0)
    local ok, report = H.assemble(text, "sm_90a")
    if ok == nil then return end
    local errs = errors_by_line(report)
    local problems = {}
    for l, li in pairs(lines) do
      local it = li.it or li.raw
      if it and it.rt then
        local ptxas_ok = not errs[l]
        if it.validator_ok and not ptxas_ok then
          problems[#problems + 1] = ("validator takes a .%s register as operand %d of %s, ptxas does not: %s"):format(it.rt, it.k, it.text, errs[l])
        elseif not it.validator_ok and ptxas_ok and not lenient(it.want, it.rt) then
          problems[#problems + 1] = ("ptxas takes a .%s register as operand %d of %s, the validator does not"):format(it.rt, it.k, it.text)
        end
      end
    end
    table.sort(problems)
    assert(#problems == 0, table.concat(problems, "\n  "))
  end)

  -- what ptxas accepts, ptxlua reads: a minimum stricter than ptxas's refuses real PTX. The probe
  -- of tests/isa/explore.lua assembles every form's instances at their least target and version
  -- (ptxas must take them) and again one PTX version and one target below (ptxas must refuse each
  -- one there: else the table's minimum is above ptxas's). Its instances take the table's values
  -- for immediates (^N, ~a/b, @a/b/c), so a value constraint ptxas holds tighter shows too.
  it("every form's minimum PTX version and target are ptxas's: one below, ptxas refuses it (explore.lua --probe)", function()
    if not H.ptxas_path() then
      if H.ci then error("ptxas not found (CI requires the CUDA toolkit)") end
      return H.pending("ptxas not found")
    end
    local cmd = ("cd %s && PTXAS=%s LUA_PATH=%s LUA_CPATH=%s PTXLUA_ROOT=%s luajit tests/isa/explore.lua --probe"):format(
      H.shq(H.root), H.shq(H.ptxas_path()), H.shq(package.path), H.shq(package.cpath), H.shq(H.root))
    local out, err, rc = H.sh(cmd)
    assert.are.equal(0, rc, err)
    local found = {}
    for line in out:gmatch("[^\n]+") do
      if not line:match("^SKIP ") and not line:match("^%d+ forms,") and not line:match("^%d+ problems$") then
        found[#found + 1] = line:sub(1, 400)
      end
    end
    assert.truthy(out:find("\n0 problems\n", 1, true) or out:find("^0 problems\n"), table.concat(found, "\n  "))
    assert.are.equal(0, #found, table.concat(found, "\n  "))
  end)
end)
