-- isagen.lua -- concrete instances of the ISA table's forms, for the specs and tests/isa/explore.lua.
-- Reads the table through ptxlua.core (forms and sets), parses patterns and operand lists the way
-- src/isa/isa.c does, and builds opcode texts and DSL operands for each form.
local core = require "ptxlua.core"

local G = {}

---------------------------------------------------------------------------------------------------
-- types: read from src/base/types.h so that this file never drifts from the C list
---------------------------------------------------------------------------------------------------
local function read_types(root)
  local f = assert(io.open(root .. "/src/base/types.h", "rb"))
  local s = f:read("*a"); f:close()
  local bits = {}
  for name, w in s:gmatch('_%(%s*[%w_]+,%s*"(%w+)",%s*(%d+),') do bits[name] = tonumber(w) end
  return bits
end

-- special registers: PL_SREG(name, TYPE, ptx, sm, "parts") of src/isa/isa_table.h, each expanded to the
-- names it covers (.x/.y/.z, or the first and last of a numbered range)
local function read_sregs(root)
  local f = assert(io.open(root .. "/src/isa/isa_table.h", "rb"))
  local s = f:read("*a"); f:close()
  local out = {}
  for name, t, v, sm, parts in s:gmatch('\nPL_SREG%("([%w_]+)",%s*(%w+),%s*(%d+),%s*(%d+),%s*"([^"]*)"%)') do
    local e = { type = t:lower(), ptx = tonumber(v), sm = tonumber(sm), names = {} }
    if parts == "" then e.names = { name }
    elseif parts == "xyzw" then e.names = { name .. ".x", name .. ".y", name .. ".z", name .. ".w" }
    else
      local lo, hi, suffix = parts:match("^(%d+)-(%d+)(.*)$")
      e.names = { name .. lo .. suffix, name .. hi .. suffix }
    end
    out[#out + 1] = e
  end
  return out
end

function G.init(root)
  G.root = root or os.getenv("PTXLUA_ROOT") or "."
  G.TYPEBITS = read_types(G.root)
  G.SREGS = read_sregs(G.root)
  G.forms, G.sets = core.forms()
  G.parsed = {}
  G.bybase = {}
  for i, f in ipairs(G.forms) do
    local p = G.parse(f[1])
    p.index, p.pattern, p.operands, p.ptx, p.sm, p.flags = i, f[1], f[2], f[3], f[4], f[5]
    p.ops = G.parse_ops(f[2])
    G.parsed[i] = p
    local l = G.bybase[p.base] or {}
    l[#l + 1] = p
    G.bybase[p.base] = l
  end
  return G
end

---------------------------------------------------------------------------------------------------
-- patterns (the grammar of the header of src/isa/isa_table.h)
---------------------------------------------------------------------------------------------------
local function split_bar(s)
  local out, depth, cur = {}, 0, {}
  for ch in s:gmatch(".") do
    if ch == "|" and depth == 0 then out[#out + 1] = table.concat(cur); cur = {}
    else
      if ch == "(" or ch == "{" then depth = depth + 1 elseif ch == ")" or ch == "}" then depth = depth - 1 end
      cur[#cur + 1] = ch
    end
  end
  out[#out + 1] = table.concat(cur)
  return out
end

local function expand_one(text, out, depth)
  local pre, name, post = text:match("^(.-)%$([%w_]+)(.*)$")
  if not pre then
    local toks = {}
    for t in text:gmatch("%.([^.]+)") do toks[#toks + 1] = t end
    out[#out + 1] = toks
    return
  end
  assert(depth < 8, "sets nested too deep")
  local alts = assert(G.sets[name], "unknown set $" .. name)
  for _, a in ipairs(split_bar(alts)) do expand_one(pre .. a .. post, out, depth + 1) end
end

local function expand_alts(text)
  local out = {}
  for _, piece in ipairs(split_bar(text)) do expand_one(piece, out, 0) end
  return out
end

-- pattern -> { base = "ld", elems = { {opt = bool, alts = { {tok, ...}, ... }}, ... } }
function G.parse(pat)
  local base = pat:match("^[^.{($]*")
  local p = #base + 1
  local elems = {}
  while p <= #pat do
    local c = pat:sub(p, p)
    if c == "." and pat:sub(p + 1, p + 1):match("[({$]") then p = p + 1; c = pat:sub(p, p) end
    local content, opt
    if c == "{" or c == "(" then
      local close = c == "{" and "}" or ")"
      opt = c == "{"
      local depth, q = 0, p + 1
      while q <= #pat and (depth > 0 or pat:sub(q, q) ~= close) do
        local d = pat:sub(q, q)
        if d == "{" or d == "(" then depth = depth + 1 elseif d == "}" or d == ")" then depth = depth - 1 end
        q = q + 1
      end
      content = pat:sub(p + 1, q - 1)
      p = q + 1
    elseif c == "$" then
      local name = pat:match("^%$[%w_]+", p)
      content, opt = name, false
      p = p + #name
    elseif c == "." then
      local tok = pat:match("^%.[^.{($]+", p)
      content, opt = tok, false
      p = p + #tok
    else
      error("bad pattern " .. pat)
    end
    elems[#elems + 1] = { opt = opt, alts = expand_alts(content) }
  end
  return { base = base, elems = elems }
end

-- operand list -> { {letter, kinds..., tsrc, type, vec, flags} }
function G.parse_ops(s)
  local ops = {}
  s = s:gsub("^%s+", "")
  if s == "" then return ops end
  for spec in (s .. ","):gmatch("%s*([^,]+),") do
    local o = { letter = spec:sub(1, 1), tsrc = 1 }
    local l = o.letter
    if l == "m" or l == "p" or l == "P" or l == "l" or l == "x" or l == "_" then o.tsrc = 0 end
    if l == "T" then o.taddr = true end
    if l == "p" or l == "P" then o.type = "pred" end
    local rest = spec:sub(2)
    local i = 1
    while i <= #rest do
      local ch = rest:sub(i, i)
      if ch == "v" then o.vecv = true; i = i + 1
      elseif ch == "w" then o.relaxed = true; i = i + 1
      elseif ch == "?" then o.optional = true; i = i + 1
      elseif ch == "!" then o.negok = true; i = i + 1
      elseif ch == "_" then o.sink = true; i = i + 1
      elseif ch == "|" then
        if o.pair then o.paironly = true end
        o.pair = true; i = i + 1
      elseif ch == "<" then
        local c = rest:match("^<([^>]+)>", i)
        o.cond = {}
        for _, alt in ipairs(expand_alts(c)) do o.cond[alt[1]] = true end
        i = i + #c + 2
      elseif ch == "[" then
        local k = rest:match("^%[([^%]]+)%]", i)
        if k == "x" then o.vecx = true
        elseif k:match("^x%*%d$") then o.vecx = true; o.xmul = tonumber(k:sub(3))  -- [x*K]: N*K for .xN
        elseif k:match("^n/%d+$") then o.vecn = tonumber(k:sub(3))     -- [n/K]: N of .mMnNkK over K
        elseif k:match("^d") then o.vecd = tonumber(k:match("^d%-(%d)$") or 0) -- [d], [d-K]: .Dd
        else o.vec = tonumber(k) end
        i = i + #k + 2
      elseif ch == ":" then
        local t = rest:match("^:([%w*]+)", i)
        if t:match("^%d$") then o.tsrc = tonumber(t)
        elseif t == "*" then o.tsrc = 0; o.type = nil
        else o.tsrc = 0; o.type = t end
        i = i + #t + 1
        local rc = rest:match("^=[hi]?", i)            -- a register class: = .bN, =h or half, =i integer
        if rc then o.rclass = rc; i = i + #rc end
      elseif ch == "#" then o.regaddr = true; i = i + 1  -- an address through a register only
      elseif ch == "n" then o.addr32 = true; i = i + 1   -- a generic address a 32-bit register may give
      elseif ch == "g" then                           -- an address in a state space: g, g2, gS, gG
        o.space = true; i = i + 1
        local w = rest:match("^[2SG]", i)
        if w then o.gspace = w; i = i + 1 end
      elseif ch == ">" then o.written = true; i = i + 1  -- an address the instruction writes
      elseif ch == "%" or ch == "^" or ch == "@" or ch == "~" then -- an immediate's value: %K, ^N, ^L..N, ^<, @a/b/c, ~a/b/c
        local v = rest:match("^[%d/<%.%-]+", i + 1)
        o.ival = { kind = ch, text = v }
        i = i + 1 + #v
      else
        error("bad operand spec " .. spec)
      end
    end
    ops[#ops + 1] = o
  end
  return ops
end

---------------------------------------------------------------------------------------------------
-- matching opcode texts to forms (first form in table order wins, as in src/isa/isa.c)
---------------------------------------------------------------------------------------------------
local function match(p, ei, toks, ti)
  if ei > #p.elems then return ti > #toks end
  local el = p.elems[ei]
  for _, alt in ipairs(el.alts) do
    local ok = ti + #alt - 1 <= #toks
    for k = 1, #alt do if not ok then break end; ok = toks[ti + k - 1] == alt[k] end
    if ok and match(p, ei + 1, toks, ti + #alt) then return true end
  end
  return el.opt and match(p, ei + 1, toks, ti)
end

local function tokens(text)
  local base = text:match("^[^.]+")
  local toks = {}
  for t in text:sub(#base + 1):gmatch("%.([^.]+)") do toks[#toks + 1] = t end
  return base, toks
end
G.tokens = tokens

-- the forms an opcode text matches, in table order
function G.matches(text)
  local base, toks = tokens(text)
  local out = {}
  for _, p in ipairs(G.bybase[base] or {}) do
    if match(p, 1, toks, 1) then out[#out + 1] = p end
  end
  return out
end

-- can an opcode text reach form p? The first form that matches a text is its form; later ones
-- that match are alternatives told apart by their operands (src/isa/isa.c), unless an earlier match
-- takes the same operands.
function G.resolves_to(text, p)
  for _, m in ipairs(G.matches(text)) do
    if m == p then return true end
    if m.operands == p.operands then return false end
  end
  return false
end

---------------------------------------------------------------------------------------------------
-- instances: opcode texts of a form
---------------------------------------------------------------------------------------------------
local function text_of(p, choice)
  local parts = { p.base }
  for i, el in ipairs(p.elems) do
    local a = choice[i]
    if a then for _, t in ipairs(el.alts[a]) do parts[#parts + 1] = "." .. t end end
  end
  return table.concat(parts)
end

local function default_choice(p)
  local c = {}
  for i, el in ipairs(p.elems) do c[i] = (not el.opt) and 1 or false end
  return c
end

-- the form with no optional modifier, and each alternative of each group at least once; each text
-- resolves to this form. Returns the texts and a list of alternatives no text could reach.
function G.cover(p)
  local seen, out, shadowed = {}, {}, {}
  local function add(c)
    local t = text_of(p, c)
    if seen[t] then return true end
    if not G.resolves_to(t, p) then return false end
    seen[t] = true
    out[#out + 1] = t
    return true
  end
  local base = default_choice(p)
  local base_ok = add(base)
  for i, el in ipairs(p.elems) do
    for a = 1, #el.alts do
      local c = {}
      for k, v in pairs(base) do c[k] = v end
      c[i] = a
      if not add(c) then
        -- another element's choice may make it reach this form
        local done = false
        for k, el2 in ipairs(p.elems) do
          if k ~= i then
            for b = 1, #el2.alts do
              local c2 = {}
              for kk, v in pairs(c) do c2[kk] = v end
              c2[k] = b
              if add(c2) then done = true; break end
            end
          end
          if done then break end
        end
        if not done then shadowed[#shadowed + 1] = "." .. table.concat(el.alts[a], ".") end
      end
    end
  end
  if not base_ok and #out == 0 then shadowed[#shadowed + 1] = "(every instance)" end
  return out, shadowed
end

-- every opcode text of a form (the cartesian product), at most cap of them
function G.all(p, cap)
  cap = cap or 100000
  local out = {}
  local c = {}
  local function rec(i)
    if #out >= cap then return end
    if i > #p.elems then out[#out + 1] = text_of(p, c); return end
    local el = p.elems[i]
    if el.opt then c[i] = false; rec(i + 1) end
    for a = 1, #el.alts do c[i] = a; rec(i + 1) end
    c[i] = nil
  end
  rec(1)
  return out
end

---------------------------------------------------------------------------------------------------
-- operands
---------------------------------------------------------------------------------------------------
local SPACES = { global = "global", shared = "shared", ["shared::cta"] = "shared", ["shared::cluster"] = "shared",
                 ["local"] = "local", const = "const", param = "param", ["param::entry"] = "param",
                 ["param::func"] = "param" }
G.SPACES = SPACES

-- immediates where only immediates are allowed, by base name (default 1)
G.IMM = { lop3 = 0x96, ["cp"] = 16, pmevent = 1, nanosleep = 32, discard = 128, applypriority = 128, fence = 128,
          st = 0 }  -- st: st.bulk's initval, which must be 0

-- what an instance needs: its types, vector width, .xN, spaces and the operand specs present
function G.shape(p, text)
  local base, toks = tokens(text)
  local sh = { base = base, toks = toks, types = {}, spaces = {}, has = {} }
  for _, t in ipairs(toks) do
    sh.has[t] = true
    if G.TYPEBITS[t] then sh.types[#sh.types + 1] = t end
    local v = t:match("^v([248])$"); if v then sh.vec = tonumber(v) end
    local x = t:match("^x(%d+)$"); if x then sh.xn = tonumber(x) end
    local d = t:match("^([1-5])d$"); if d then sh.dims = tonumber(d) end
    local nn = t:match("^m%d+n(%d+)k%d+$"); if nn then sh.nn = tonumber(nn) end
    if SPACES[t] then sh.spaces[#sh.spaces + 1] = SPACES[t] end
  end
  sh.ops = {}
  for _, o in ipairs(p.ops) do
    local present = not o.cond
    for t in pairs(o.cond or {}) do present = present or sh.has[t] end
    if present then sh.ops[#sh.ops + 1] = o end
  end
  return sh
end

function G.optype(sh, o)
  if o.tsrc == 0 then return o.type end
  return sh.types[o.tsrc]
end

-- a register type of the DSL for a PTX type (types the DSL cannot declare become .bN)
function G.regtype(ptx, t)
  if t == nil then return "b32" end
  if ptx.types[t] then return t end
  local bits = G.TYPEBITS[t] or 32
  if bits < 8 then bits = 8 end
  return "b" .. bits
end

-- operands for one instance, and their PTX text. env: { ptx, addr = function(space, k, shape) ->
-- operand, text; label, labelname }. opts.optional: give optional operands too; opts.pair: d|p
-- and p|q where allowed. opts.retype = { [operand index] = type }: a register of another type there.
function G.operands(p, text, env, opts)
  opts = opts or {}
  local ptx = env.ptx
  local sh = G.shape(p, text)
  local out, texts = {}, {}
  local nm = 0
  for _, o in ipairs(sh.ops) do
    if o.optional and not opts.optional then goto continue end
    do
      local k = #out + 1
      local t = (opts.retype and opts.retype[k]) or G.optype(sh, o)
      local l = o.letter
      local function reg(tt)
        local r = ptx.reg[G.regtype(ptx, tt or t)]()
        return r, r:name()
      end
      local v, vt
      if l == "_" then
        v, vt = ptx._, "_"
      elseif l == "m" and o.regaddr then               -- a register, never a variable (st.bulk.shared::cta)
        nm = nm + 1
        local r = ptx.reg.u64()
        v, vt = ptx.addr(r), "[" .. r:name() .. "]"
      elseif l == "m" then
        nm = nm + 1
        v, vt = env.addr(sh.spaces[nm] or sh.spaces[1] or "generic", nm, sh)
      elseif l == "T" then  -- [tmap, {c0, ...}]: the tensormap parameter, D coordinate registers
        nm = nm + 1         -- it stands for the global space of the opcode
        local cs, ct = {}, {}
        for e = 1, o.vec or ((sh.dims or 1) - (o.vecd or 0)) do cs[e], ct[e] = reg() end  -- T[5]: gather4's five
        -- ptxas takes the tensor map's address in a register, not the parameter's name
        if not env.tmapreg then
          env.tmapreg = ptx.reg.u64()
          env.op("mov.b64", env.tmapreg, ptx.sym(env.tmapname))
        end
        v = ptx.taddr(env.tmapreg, cs)
        vt = "[" .. env.tmapreg:name() .. ", {" .. table.concat(ct, ", ") .. "}]"
      elseif l == "l" or l == "x" then
        v, vt = env.label, env.labelname
      elseif l == "i" then
        v = env.imm and env.imm(sh, o) or G.IMM[sh.base] or 1
        if type(v) == "function" then v = v(sh, k) end           -- by operand position
        -- into the operand's own range: a form told apart by its values (elemtype 13..15) gets one
        local lo, hi
        if o.ival and o.ival.kind == "^" then lo, hi = o.ival.text:match("^(%-?%d+)%.%.(%-?%d+)$") end
        if lo and type(v) == "number" and (v < tonumber(lo) or v > tonumber(hi)) then v = tonumber(lo) end
        -- and into the other kinds of value constraint: ^N at most N, ~a/b and @a/b one of the list
        local top = o.ival and o.ival.kind == "^" and tonumber(o.ival.text)
        if top and type(v) == "number" and v > top then v = top end
        if o.ival and (o.ival.kind == "~" or o.ival.kind == "@") and type(v) == "number" then
          local ok, first = false, nil
          for x in o.ival.text:gmatch("%-?%d+") do first = first or tonumber(x); ok = ok or tonumber(x) == v end
          if not ok and first then v = first end
        end
        vt = tostring(v)
      else
        local n = o.vec or (o.vecv and sh.vec) or (o.vecx and sh.xn and sh.xn * (o.xmul or 1)) or (o.vecn and sh.nn and sh.nn / o.vecn)
                  or (o.vecd and sh.dims and sh.dims - o.vecd)
        if n and n > 0 and (o.vec or o.vecv or o.vecx or o.vecn or o.vecd) then
          v, vt = {}, {}
          for e = 1, n do v[e], vt[e] = reg() end
          vt = "{" .. table.concat(vt, ", ") .. "}"
        else
          v, vt = reg(t == "pred" and "pred" or nil)
          if (opts.pair and o.pair) or o.paironly then
            local q, qt = reg("pred")
            v, vt = ptx.pair(v, q), vt .. "|" .. qt
          end
        end
      end
      out[k], texts[k] = v, vt
    end
    ::continue::
  end
  return out, texts
end

-- does the form take optional operands, or pairs?
function G.has_optional(p)
  for _, o in ipairs(p.ops) do if o.optional or o.pair then return true end end
  return false
end

---------------------------------------------------------------------------------------------------
-- targets: the least target ptxas (13.x: sm_75 and later) can check a form on, and the version
---------------------------------------------------------------------------------------------------
-- the targets ptxas 13 knows, in the order an instance is placed on the first that takes it
G.TARGETS = { "sm_75", "sm_80", "sm_86", "sm_87", "sm_88", "sm_89", "sm_90", "sm_90a", "sm_100", "sm_100f",
              "sm_100a", "sm_103", "sm_103f", "sm_103a", "sm_110", "sm_110f", "sm_110a", "sm_120", "sm_120f",
              "sm_120a", "sm_121", "sm_121f", "sm_121a" }

-- does a target satisfy a form's own minimum and flags (as target_ok in src/isa/isa.c)?
local function target_ok(p, target)
  local sm, suffix = target:match("^sm_(%d+)(%a?)$")
  sm = tonumber(sm)
  if sm < p.sm then return false end
  local bit = function(b) return math.floor(p.flags / b) % 2 == 1 end
  local family = math.floor(sm / 10) == math.floor(p.sm / 10)
  if bit(32) and math.floor(sm / 10) == 11 then family = true end        -- PLA_SM110
  if bit(64) and sm == 103 then family = false end                       -- PLA_NO103
  if bit(1) and not (suffix == "a" and family) then return false end     -- PLA_ARCH_A
  if bit(2) and not (suffix ~= "" and family) then return false end      -- PLA_FAMILY_A
  if bit(8) and suffix == "" then return false end                       -- PLA_SPECIFIC
  return true
end
G.target_ok = target_ok

-- the least target the validator accepts an instance of form p on, and the version it asks for
-- there: the opcode's own (its first form and modifier minimums) and, for an alternative, p's
function G.placement(text, p)
  local ok, ptxmin = core.check_opcode(text)
  if not ok then return nil, ptxmin end
  if p then ptxmin = math.max(ptxmin, p.ptx) end
  for _, t in ipairs(G.TARGETS) do
    if core.check_opcode(text, t) and (not p or target_ok(p, t)) then
      return t, math.max(ptxmin, G.target_version(t))
    end
  end
  return nil, "no target takes it"
end

function G.target_version(target)
  local _, _, v = core.target(target)
  return math.floor(v * 10 + 0.5)
end

---------------------------------------------------------------------------------------------------
-- modules: instances traced through the DSL, one kernel per instruction name
---------------------------------------------------------------------------------------------------
-- insts: { {p = parsed form, text = opcode text, opts = {...}, ops = function(ptx, env) -> operands} }
-- or { run = function(ptx, env, emit) ... end } for instances that need more (emit(text, ...) records
-- one instruction; env.raw(line, it) one raw line). Returns the PTX text, what stands behind each
-- statement line ({it = instance} or {raw = instance}), and the validator's rejections.
function G.build(ptx, insts, target, version)
  ptx.reset()
  local bybase, order = {}, {}
  for _, it in ipairs(insts) do
    local b = it.p and it.p.base or it.text:match("^[^.]+")
    -- a function uses one tcgen05 .cta_group (ptxas): the pair forms get a kernel of their own
    if b == "tcgen05" and it.text and it.text:find(".cta_group::2", 1, true) then b = "tcgen05_cg2" end
    if not bybase[b] then bybase[b] = {}; order[#order + 1] = b end
    table.insert(bybase[b], it)
  end
  local emitted = {}   -- kernel name -> list of instances (false for setup instructions)
  local rejected = {}
  for ki, b in ipairs(order) do
    local kname = ("k%d_%s"):format(ki, b:gsub("[^%w]", "_"))
    local list = {}
    emitted[kname] = list
    ptx.kernel { name = kname, target = target,
      params = { { "p", "b8*" }, { "pb", "b8", size = 64, align = 16 }, { "tmap", "tensormap" } },
      body = function(_, p, pb)
        local function op(text, ...) ptx.op(text)(...); list[#list + 1] = {} end
        local gen = ptx.reg.u64()
        op("ld.param.u64", gen, ptx.addr(p))
        local glob = ptx.reg.u64()
        op("cvta.to.global.u64", glob, gen)
        local sm = ptx.shared("sm_" .. kname, "b8", 1024, 128)
        local cur = ptx._current()
        cur.mod:var("local", "lc_" .. kname, "b8", 16, 64)
        cur.mod:var("const", "cst_" .. kname, "b8", 16, 256, nil, "", true)
        -- a function-local .param variable: what st.param writes (kernel parameters are read-only)
        cur.mod:raw((".param .align 16 .b8 prm_%s[64];"):format(kname))
        local label = ptx.label("L_" .. kname)
        local env = { ptx = ptx, label = label, labelname = "$L_" .. kname, gen = gen, glob = glob, sm = sm,
                      pb = pb, kname = kname, mod = cur.mod, tmapname = "tmap", op = op }
        function env.addr(space, k, sh)
          local function sym(name) return ptx.addr(ptx.sym(name)), "[" .. name .. "]" end
          -- tcgen05: a tensor-memory address is a .b32 register ([%r1]); alloc and commit take shared memory
          if sh and sh.base == "tcgen05" and not sh.has["alloc"] and not sh.has["commit"] then
            local r = ptx.reg.b32()
            return ptx.addr(r), "[" .. r:name() .. "]"
          end
          if space == "global" then return ptx.addr(glob), "[" .. glob:name() .. "]"
          elseif space == "shared" then return sym("sm_" .. kname)
          elseif space == "local" then return sym("lc_" .. kname)
          elseif space == "const" then return sym("cst_" .. kname)
          elseif space == "param" then return sym(sh and sh.base == "st" and "prm_" .. kname or "pb")
          end
          return ptx.addr(gen), "[" .. gen:name() .. "]"
        end
        -- a raw line (ptxas alone judges it), recorded so that errors map back to it
        function env.raw(line, it)
          cur.mod:raw(line)
          list[#list + 1] = { raw = it, line = line }
        end
        for _, it in ipairs(bybase[b]) do
          if it.run then
            local ok, err = pcall(it.run, ptx, env, function(text, ...) ptx.op(text)(...); list[#list + 1] = { it = it } end)
            if not ok then rejected[#rejected + 1] = { it = it, msg = tostring(err) } end
          else
            local ok, err = pcall(function()
              local ops = it.ops and it.ops(ptx, env) or G.operands(it.p, it.text, env, it.opts)
              ptx.op(it.text)(unpack(ops))
            end)
            if ok then list[#list + 1] = { it = it } else rejected[#rejected + 1] = { it = it, msg = tostring(err) } end
          end
        end
        ptx.place(label)
      end }
  end
  local text = ptx.ptx { version = version }
  -- statement lines, in order, per kernel: lines[n] = { it = instance, raw = instance, text = line }
  local lines, cur, k = {}, nil, 0
  local n = 0
  for line in (text .. "\n"):gmatch("([^\n]*)\n") do
    n = n + 1
    local kn = line:match("^%.visible %.entry ([%w_]+)%(")
    if kn then cur = emitted[kn]; k = 0
    elseif cur and line:match("^\t[%a@]") then
      k = k + 1
      local e = cur[k] or {}
      lines[n] = { it = e.it, raw = e.raw, text = (line:gsub("^\t", ""):gsub("\t", " "):gsub("%s*//.*$", "")) }
    end
  end
  return text, lines, rejected
end

-- run ptxas on a text; returns ok, { [line] = message }, the whole report
function G.ptxas(ptxas, text, arch, tmp)
  local f = assert(io.open(tmp, "wb")); f:write(text); f:close()
  local cmd = ("%s -arch=%s %s -o /dev/null 2>&1"):format(ptxas, arch, tmp)
  local pipe = io.popen(cmd)
  local out = pipe:read("*a")
  pipe:close()
  local errs = {}
  for l, msg in out:gmatch("line (%d+); [ef]%a+%s*: ([^\n]*)") do
    l = tonumber(l)
    errs[l] = errs[l] and (errs[l] .. "; " .. msg) or msg
  end
  return not out:find("error") and not out:find("fatal"), errs, out
end

---------------------------------------------------------------------------------------------------
-- register types: every register operand of a sized type given each register type of its width,
-- through the validator and ptxas. assemble(text, target) -> ok, { [line] = message }. Returns
-- { looser = {...}, stricter = {...}, count = n }: "looser" where the validator takes a register
-- ptxas rejects, "stricter" the reverse (ptxas's own leniencies, such as .f16x2 for integers).
---------------------------------------------------------------------------------------------------
local WIDTH_TYPES = { [8] = { "b8", "u8", "s8" }, [16] = { "b16", "u16", "s16", "f16" },
                      [32] = { "b32", "u32", "s32", "f32", "f16x2" }, [64] = { "b64", "u64", "s64", "f64" } }
G.WIDTH_TYPES = WIDTH_TYPES
function G.regtype_sweep(ptx, assemble, only)
  local groups, order, count = {}, {}, 0
  for _, p in ipairs(G.parsed) do
    if (not only or only[p.base]) and p.base ~= "brx" and p.base ~= "call" then
      local text = (G.cover(p))[1]
      local target, version
      if text then target, version = G.placement(text, p) end
      if target then
        local sh = G.shape(p, text)
        local probes = { { k = 0 } }            -- k = 0: the instance as it is
        local k = 0
        for _, o in ipairs(sh.ops) do
          if not o.optional then
            k = k + 1
            local t = G.optype(sh, o)
            local l = o.letter
            if t and t ~= "pred" and not o.relaxed and not o.pair and (l == "a" or l == "r" or l == "d") then
              for _, rt in ipairs(WIDTH_TYPES[G.TYPEBITS[t] or 0] or {}) do
                if rt ~= G.regtype(ptx, t) then probes[#probes + 1] = { k = k, rt = rt, want = t } end
              end
            end
          end
        end
        if #probes > 1 then
          local key = target .. "@" .. version
          if not groups[key] then groups[key] = { target = target, version = version, insts = {} }; order[#order + 1] = key end
          local base
          for _, pr in ipairs(probes) do
            local it = { p = p, text = text, k = pr.k, rt = pr.rt, want = pr.want }
            if pr.k == 0 then base = it else it.base = base end
            it.run = function(q, env, emit)
              local ops, texts = G.operands(p, text, env, { retype = pr.k > 0 and { [pr.k] = pr.rt } or nil })
              it.validator_ok = pcall(emit, text, unpack(ops))
              if not it.validator_ok then env.raw(text .. " " .. table.concat(texts, ", ") .. ";", it) end
            end
            table.insert(groups[key].insts, it)
            count = count + 1
          end
        end
      end
    end
  end
  table.sort(order)
  local looser, stricter = {}, {}
  for _, key in ipairs(order) do
    local g = groups[key]
    local text, lines = G.build(ptx, g.insts, g.target, g.version / 10)
    local _, errs = assemble(text, g.target)
    local status = {}
    for l, li in pairs(lines) do
      local it = li.it or li.raw
      if it then status[it] = { ok = not errs[l], msg = errs[l] } end
    end
    for _, it in ipairs(g.insts) do
      local st = status[it]
      local bst = it.base and status[it.base]
      if st and it.k > 0 and bst and bst.ok and it.base.validator_ok then
        local what = ("%s [%s] operand %d (.%s) given .%s"):format(it.text, it.p.pattern, it.k, it.want, it.rt)
        if it.validator_ok and not st.ok then looser[#looser + 1] = what .. ": " .. tostring(st.msg)
        elseif not it.validator_ok and st.ok then stricter[#stricter + 1] = what end
      end
    end
  end
  table.sort(looser); table.sort(stricter)
  return { looser = looser, stricter = stricter, count = count }
end

return G
