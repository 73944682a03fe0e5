-- boundsgen.lua -- boundary cases of the DSL and of the ISA table, judged by ptxlua and by ptxas.
-- Three sweeps, each a list of probes; a probe is one kernel text (or one instruction line of a
-- shared kernel) that ptxlua either refuses (at the script's line) or prints, and that ptxas then
-- assembles. What ptxlua refuses is still written out, as the raw PTX the script meant, so that
-- ptxas judges every probe:
--   G.imm_sweep    every immediate operand of every form of the table (tests/isa/isagen.lua's first
--                  instance of each form), given the values at and one past each end of its type's
--                  range and of the narrower ranges PTX uses (0/1, 0..7, 0..31, 0..63, 0..255, ...)
--   G.name_sweep   every pair of declarations the DSL makes (registers, ranges, pools, shared
--                  variables, parameters, labels, functions, plans) under names that collide in PTX
--                  (the same, one extending the other by digits, a pool's, a special register's)
--   G.space_sweep  every state space of symbol (kernel and function parameters, return values,
--                  .param, .shared, .local, .const, .global variables) in every address of every
--                  form that takes one, and sizes at and past the targets' limits (static shared
--                  memory, parameters, register ranges, launch bounds)
-- Each returns { looser = {...}, stricter = {...}, count = n, lint = {...} }: "looser" lines are
-- probes ptxlua accepts and ptxas rejects (the holes); "stricter" ones it refuses though ptxas takes
-- them; "lint" ones ptxas rejects but `--lint` (the parser's checks) stays silent on.
local core = require "ptxlua.core"
local G = require "isagen"

local B = {}

---------------------------------------------------------------------------------------------------
-- running ptxas over probes: many probes a module, one line each, split where a fatal error hides
-- the lines (ptxas stops at some errors with no line)
---------------------------------------------------------------------------------------------------
local PTXAS, TMP, PTXLUA

function B.init(root, ptxas, ptxlua)
  G.init(root)
  PTXLUA = ptxlua or (root .. "/build/ptxlua")
  B.G = G
  PTXAS = ptxas
  TMP = os.tmpname() .. ".ptx"
  return B
end
function B.cleanup() if TMP then os.remove(TMP) end end

local function ptxas(text, target) return G.ptxas(PTXAS, text, target, TMP) end
B.ptxas = ptxas

-- the linter's verdict on a text, line by line (core.lint: every error with its line, where the
-- command's report prints each distinct message once): { [line] = message }, and the messages
function B.lint(text)
  local core = require "ptxlua.core"
  local list, perr = core.lint(text, "probe.ptx")
  local errs, out = {}, {}
  if not list then
    local l, msg = tostring(perr):match(":(%d+):%d+: error: ([^\n]*)")
    if l then errs[tonumber(l)] = msg end
    return errs, tostring(perr)
  end
  for _, e in ipairs(list) do
    errs[e.line] = errs[e.line] and (errs[e.line] .. "; " .. e.msg) or e.msg
    out[#out + 1] = ("probe.ptx:%d:%d: error: %s"):format(e.line, e.col, e.msg)
  end
  return errs, table.concat(out, "\n")
end

---------------------------------------------------------------------------------------------------
-- immediates
---------------------------------------------------------------------------------------------------
local SMALL = { -1, 0, 1, 2, 3, 4, 5, 7, 8, 9, 15, 16, 17, 31, 32, 33, 63, 64, 65, 127, 128, 129, 255, 256,
                1023, 1024, 1025, 4095, 4096, 65535, 65536 }

-- the values probed for an operand of n bits: SMALL, and the ends of the n-bit range and one past
local function values_for(bits)
  local out, seen = {}, {}
  local function add(v) if not seen[tostring(v)] then seen[tostring(v)] = true; out[#out + 1] = v end end
  for _, v in ipairs(SMALL) do if bits >= 64 or v < 2 ^ bits then add(v) end end
  if bits < 64 then
    add(-2 ^ (bits - 1)); add(-2 ^ (bits - 1) - 1); add(2 ^ (bits - 1) - 1); add(2 ^ (bits - 1))
    add(2 ^ bits - 1); add(2 ^ bits)
  else
    add(0x7fffffffffffffffLL); add(-0x7fffffffffffffffLL - 1); add(0xffffffffffffffffULL)
  end
  return out
end
B.values_for = values_for

local function vtext(v)
  if type(v) == "number" then return ("%d"):format(v) end
  return (tostring(v):gsub("U?LL$", ""))
end

local INT = { b = true, u = true, s = true }
local function int_type(t)
  return t and G.TYPEBITS[t] and INT[t:sub(1, 1)] and not t:find("x") and t ~= "b1"
end

-- probes: for each form (its first instance) and each immediate-taking operand of an integer type,
-- each value of values_for; groups of instances by target, as G.build wants
function B.imm_sweep(ptx, only, opts)
  opts = opts or {}
  local groups, order, count = {}, {}, 0
  for _, p in ipairs(G.parsed) do
    if (not only or only[p.base]) and p.base ~= "brx" and p.base ~= "call" then
      for _, text in ipairs((G.cover(p))) do
      local target, version = G.placement(text, p)
      if target then
        local sh = G.shape(p, text)
        local probes = { { k = 0 } }
        local k = 0
        for _, o in ipairs(sh.ops) do
          if not o.optional or opts.optional then
            k = k + 1
            local t = G.optype(sh, o)
            local l = o.letter
            if (l == "a" or l == "i" or l == "s" or l == "A") and not o.vec and not o.vecv and not o.vecx
               and not o.vecn and not o.vecd and (int_type(t) or (t == nil and l == "i")) then
              for _, v in ipairs(values_for(t and G.TYPEBITS[t] or 32)) do probes[#probes + 1] = { k = k, v = v, t = t } end
            end
          end
        end
        if #probes > 1 then
          -- groups of at most ~1500 lines (a form's probes stay together): the linter's time grows
          -- faster than the module
          local key = target .. "@" .. version
          if groups[key] and #groups[key].insts > 1500 then groups[key] = nil end
          if not groups[key] then
            groups[key] = { target = target, version = version, insts = {}, key = key }
            order[#order + 1] = groups[key]
          end
          local base
          for _, pr in ipairs(probes) do
            local it = { p = p, text = text, k = pr.k, v = pr.v, t = pr.t }
            if pr.k == 0 then base = it else it.base = base end
            it.run = function(q, env, emit)
              local ops, texts = G.operands(p, text, env, { optional = opts.optional })
              if pr.k > 0 then ops[pr.k], texts[pr.k] = pr.v, vtext(pr.v) end
              local ok, err = pcall(emit, text, unpack(ops, 1, #texts))
              it.validator_ok, it.msg = ok, not ok and tostring(err) or nil
              it.line = text .. " " .. table.concat(texts, ", ") .. ";"
              if not ok then env.raw(it.line, it) end
            end
            table.insert(groups[key].insts, it)
            count = count + 1
          end
        end
      end
      end
    end
  end
  local res = { looser = {}, stricter = {}, lint = {}, count = count, rows = {} }
  for _, g in ipairs(order) do
    local text, lines = G.build(ptx, g.insts, g.target, g.version / 10)
    local _, errs = ptxas(text, g.target)
    local lerrs = opts.lint ~= false and B.lint(text) or {}
    local status = {}
    for l, li in pairs(lines) do
      local it = li.it or li.raw
      if it then status[it] = { ok = not errs[l], msg = errs[l], lint = lerrs[l] } end
    end
    for _, it in ipairs(g.insts) do
      local st, bst = status[it], it.base and status[it.base]
      if st and it.k > 0 and bst and bst.ok and it.base.validator_ok then
        local what = ("%s [%s] operand %d (.%s) = %s"):format(it.text, it.p.pattern, it.k, tostring(it.t), vtext(it.v))
        res.rows[#res.rows + 1] = { it = it, ptxas_ok = st.ok, msg = st.msg, what = what, lint = st.lint }
        if it.validator_ok and not st.ok then res.looser[#res.looser + 1] = what .. ": " .. tostring(st.msg)
        elseif not it.validator_ok and st.ok then res.stricter[#res.stricter + 1] = what .. ": " .. tostring(it.msg) end
        if not st.ok and not st.lint and opts.lint ~= false then res.lint[#res.lint + 1] = what .. ": " .. it.line end
      end
    end
  end
  table.sort(res.looser); table.sort(res.stricter)
  return res
end

---------------------------------------------------------------------------------------------------
-- names: declarations made through the DSL's entry points, alone under names PTX gives a meaning
-- (special registers, predefined identifiers, directive and opcode words) and in pairs under names
-- that meet in PTX's spelling (the same name, one range's name followed by digits, a pool's)
---------------------------------------------------------------------------------------------------
-- an entry: dsl(name, env) declares and uses it inside a kernel body (env.kernel / env.params /
-- env.funcs for what lives outside the body); ptx(name, out) adds the same in PTX text to the
-- module's parts (out.mod, out.params, out.decl, out.body)
local NAMES = {}
local function entry(name, dsl, text) NAMES[#NAMES + 1] = { name = name, dsl = dsl, ptx = text } end
local function regmov(P, t, r) P.op("mov." .. t)(r, t == "f32" and 0.0 or 0) end
local ZERO = { u32 = "0", u64 = "0", f32 = "0f00000000" }
entry("reg", function(P, n) regmov(P, "u32", P.reg.u32(n)) end,
      function(n, o) o.decl[#o.decl + 1] = (".reg .u32 %%%s;"):format(n); o.body[#o.body + 1] = ("mov.u32 %%%s, 0;"):format(n) end)
entry("reg.f32", function(P, n) regmov(P, "f32", P.reg.f32(n)) end,
      function(n, o) o.decl[#o.decl + 1] = (".reg .f32 %%%s;"):format(n); o.body[#o.body + 1] = ("mov.f32 %%%s, 0f00000000;"):format(n) end)
entry("range2", function(P, n) for _, r in ipairs(P.regs.u32(2, n)) do regmov(P, "u32", r) end end,
      function(n, o)
        o.decl[#o.decl + 1] = (".reg .u32 %%%s<2>;"):format(n)
        for i = 0, 1 do o.body[#o.body + 1] = ("mov.u32 %%%s%d, 0;"):format(n, i) end
      end)
entry("range12.f32", function(P, n) for _, r in ipairs(P.regs.f32(12, n)) do regmov(P, "f32", r) end end,
      function(n, o)
        o.decl[#o.decl + 1] = (".reg .f32 %%%s<12>;"):format(n)
        for i = 0, 11 do o.body[#o.body + 1] = ("mov.f32 %%%s%d, 0f00000000;"):format(n, i) end
      end)
for _, pl in ipairs { { "u32", "r" }, { "f32", "f" }, { "u64", "rd" } } do
  local t, pre = pl[1], pl[2]
  entry("pool." .. t, function(P) for _ = 1, 12 do regmov(P, t, P.reg[t]()) end end,
        function(_, o)
          o.decl[#o.decl + 1] = (".reg .%s %%%s<13>;"):format(t, pre)
          for i = 1, 12 do o.body[#o.body + 1] = ("mov.%s %%%s%d, %s;"):format(t, pre, i, ZERO[t]) end
        end)
end
entry("unnamed-range", function(P) for _, r in ipairs(P.regs.f32(12)) do regmov(P, "f32", r) end end,
      function(_, o)
        o.decl[#o.decl + 1] = ".reg .f32 %fv1_<12>;"
        for i = 0, 11 do o.body[#o.body + 1] = ("mov.f32 %%fv1_%d, 0f00000000;"):format(i) end
      end)
entry("shared", function(P, n, e) P.mov.u64(e.zd, P.shared(n, "b32", 4)) end,
      function(n, o) o.decl[#o.decl + 1] = (".shared .align 4 .b32 %s[4];"):format(n); o.body[#o.body + 1] = ("mov.u64 %%zz_d, %s;"):format(n) end)
entry("shared_dynamic", function(P, n, e) P.mov.u64(e.zd, P.shared_dynamic(n)) end,
      function(n, o) o.mod[#o.mod + 1] = (".extern .shared .align 16 .b8 %s[];"):format(n); o.body[#o.body + 1] = ("mov.u64 %%zz_d, %s;"):format(n) end)
entry("smem_plan", function(P, n, e) local pl = P.smem_plan { name = n }; pl:alloc("a", "b32", 4); P.mov.u64(e.zd, pl.sym) end,
      function(n, o) o.decl[#o.decl + 1] = (".shared .align 128 .b8 %s[128];"):format(n); o.body[#o.body + 1] = ("mov.u64 %%zz_d, %s;"):format(n) end)
entry("param", function(P, n, e) P.ld.param.u32(e.zw, P.addr(e.param[n])) end,
      function(n, o) o.params[#o.params + 1] = (".param .u32 %s"):format(n); o.body[#o.body + 1] = ("ld.param.u32 %%zz_w, [%s];"):format(n) end,
      true)
NAMES[#NAMES].param = true
entry("label", function(P, n) local l = P.label(n); P.bra.uni(l); P.place(l) end,
      function(n, o) o.body[#o.body + 1] = ("bra.uni $%s;"):format(n); o.body[#o.body + 1] = ("$%s:"):format(n) end)
entry("func", function(P, n, e) P.call(e.func[n]) end,
      function(n, o) o.mod[#o.mod + 1] = (".func %s()\n{\n\tret;\n}"):format(n); o.body[#o.body + 1] = ("call.uni %s;"):format(n) end)
NAMES[#NAMES].func = true
entry("kernel", function() end, function(n, o) o.kname = n end)
NAMES[#NAMES].kernel = true
B.NAME_ENTRIES = NAMES

-- one probe: declarations { {entry, name}, ... } in order; returns ptxlua's verdict (ok, message),
-- the PTX it printed (or the PTX the script meant) and whether ptxas takes that
function B.name_probe(P, decls, target)
  target = target or "sm_90a"
  local o = { mod = {}, params = {}, decl = {}, body = {}, kname = "kq" }
  for _, d in ipairs(decls) do d[1].ptx(d[2], o) end
  local text = (".version 8.0\n.target %s\n.address_size 64\n\n%s\n.visible .entry %s(%s)\n{\n.reg .u64 %%zz_d;\n"
                .. ".reg .u32 %%zz_w;\n%s\n%s\nret;\n}\n"):format(target, table.concat(o.mod, "\n"), o.kname,
                table.concat(o.params, ", "), table.concat(o.decl, "\n"), table.concat(o.body, "\n"))
  P.reset()
  local ok, res = pcall(function()
    local kname, params, funcs = "kq", {}, {}
    for _, d in ipairs(decls) do
      if d[1].kernel then kname = d[2] end
      if d[1].param then params[#params + 1] = { d[2], "u32" } end
      if d[1].func then funcs[d[2]] = P.func { name = d[2], body = function() end } end
    end
    P.kernel { name = kname, target = target, params = params, body = function(_, ...)
      local env = { zd = P.reg.u64 "zz_d", zw = P.reg.u32 "zz_w", param = {}, func = funcs }
      for i, p in ipairs(params) do env.param[p[1]] = select(i, ...) end
      for _, d in ipairs(decls) do d[1].dsl(P, d[2], env) end
    end }
    return P.ptx {}
  end)
  local judged = ok and res or text
  local pok, errs, out = ptxas(judged, target)
  return ok, (not ok) and tostring(res) or nil, judged, pok, out
end

local SINGLE = { "q", "tid", "ntid", "laneid", "clock", "clock64", "ctaid", "envreg3", "pm0", "smid", "WARP_SZ",
                 "reg", "shared", "param", "global", "entry", "func", "add", "ret", "bra", "_", "__x", "L__x", "sm_90" }
local PAIRS = { { "v", "v" }, { "v", "v1" }, { "v1", "v" }, { "v1", "v10" }, { "v10", "v1" }, { "v", "v10" }, { "r", "r" },
                { "r1", "r1" }, { "r12", "r12" }, { "f", "f" }, { "f3", "f3" }, { "rd", "rd" }, { "rd2", "rd2" },
                { "fv1_", "fv1_" }, { "fv1_1", "fv1_1" }, { "kq", "kq" } }

function B.name_sweep(P)
  local res = { looser = {}, stricter = {}, lint = {}, count = 0, rows = {} }
  local function judge(decls)
    res.count = res.count + 1
    local ok, msg, text, pok, out = B.name_probe(P, decls)
    local parts = {}
    for _, d in ipairs(decls) do parts[#parts + 1] = d[1].name .. " '" .. d[2] .. "'" end
    local what = table.concat(parts, " + ")
    res.rows[#res.rows + 1] = { decls = decls, ok = ok, ptxas_ok = pok, what = what, msg = msg }
    if ok and not pok then res.looser[#res.looser + 1] = what .. ": " .. (out:match("error%s*: ([^\n]*)") or out)
    elseif not ok and pok then res.stricter[#res.stricter + 1] = what .. ": " .. (msg:gsub("\n.*", "")) end
    if not pok and not next((B.lint(text))) then res.lint[#res.lint + 1] = what end
  end
  for _, e in ipairs(NAMES) do
    for _, n in ipairs(SINGLE) do judge { { e, n } } end
  end
  for _, a in ipairs(NAMES) do
    for _, b in ipairs(NAMES) do
      if not (a.kernel and b.kernel) then
        for _, np in ipairs(PAIRS) do judge { { a, np[1] }, { b, np[2] } } end
      end
    end
  end
  return res
end

---------------------------------------------------------------------------------------------------
-- state spaces and sizes. Spaces: every address operand of every form (isagen's instances), given
-- in turn a symbol of each kind the DSL can name (a kernel parameter, a .shared, .local, .const,
-- .global variable, a function-local .param, the dynamic shared array); then st/ld through a .func's
-- parameters and result. Sizes: kernel probes (a DSL script and the PTX it means) at and past the
-- targets' limits.
---------------------------------------------------------------------------------------------------
-- (not the .param variable the kernels of isagen declare as raw text: ptxlua does not see raw declarations)
local SYMS = { "param", "parambytes", "shared", "dynamic", "local", "const", "global" }

function B.space_sweep(P, only)
  local groups, order, count = {}, {}, 0
  for _, p in ipairs(G.parsed) do
    local nm = 0
    for _, o in ipairs(p.ops) do if o.letter == "m" then nm = nm + 1 end end
    if nm > 0 and (not only or only[p.base]) and p.base ~= "tcgen05" then
      local seen = {}
      for _, text in ipairs((G.cover(p))) do
        local sh = G.shape(p, text)
        local key = table.concat(sh.spaces, ",")
        local target, version = G.placement(text, p)
        if target and not seen[key] then
          seen[key] = true
          local gk = target .. "@" .. version
          if not groups[gk] then groups[gk] = { target = target, version = version, insts = {} }; order[#order + 1] = gk end
          local base
          for k = 0, nm do
            for si, sym in ipairs(k == 0 and { false } or SYMS) do
              local it = { p = p, text = text, k = k, sym = sym }
              if k == 0 then base = it else it.base = base end
              it.run = function(q, env, emit)
                if not env.extra then
                  env.extra = true
                  env.mod:var("global", "gv_" .. env.kname, "b8", 16, 64, nil, "", true)
                  env.dyn = q.shared_dynamic("dyn_" .. env.kname)
                end
                local env2 = setmetatable({}, { __index = env })
                local mi = 0
                function env2.addr(space, i, s)
                  mi = mi + 1
                  if mi ~= k then return env.addr(space, i, s) end
                  local name = ({ param = "p", parambytes = "pb", shared = "sm_" .. env.kname, dynamic = "dyn_" .. env.kname,
                                  ["local"] = "lc_" .. env.kname, const = "cst_" .. env.kname, global = "gv_" .. env.kname,
                                  fparam = "prm_" .. env.kname })[sym]
                  return q.addr(q.sym(name)), "[" .. name .. "]"
                end
                local ops, texts = G.operands(p, text, env2, {})
                it.line = text .. " " .. table.concat(texts, ", ") .. ";"
                local ok, err = pcall(emit, text, unpack(ops, 1, #texts))
                it.validator_ok, it.msg = ok, not ok and tostring(err) or nil
                if not ok then env.raw(it.line, it) end
              end
              table.insert(groups[gk].insts, it)
              count = count + 1
            end
          end
        end
      end
    end
  end
  table.sort(order)
  local res = { looser = {}, stricter = {}, lint = {}, count = count, rows = {} }
  for _, gk in ipairs(order) do
    local g = groups[gk]
    local text, lines = G.build(P, g.insts, g.target, g.version / 10)
    local _, errs = ptxas(text, g.target)
    local lerrs = B.lint(text)
    local status = {}
    for l, li in pairs(lines) do
      local it = li.it or li.raw
      if it then status[it] = { ok = not errs[l], msg = errs[l], lint = lerrs[l] } end
    end
    for _, it in ipairs(g.insts) do
      local st, bst = status[it], it.base and status[it.base]
      if st and it.k > 0 and bst and bst.ok and it.base.validator_ok then
        local what = ("%s [%s] address %d = %s"):format(it.text, it.p.pattern, it.k, it.sym)
        if it.validator_ok and not st.ok then res.looser[#res.looser + 1] = what .. ": " .. tostring(st.msg)
        elseif not it.validator_ok and st.ok then res.stricter[#res.stricter + 1] = what .. ": " .. tostring(it.msg):gsub("\n.*", "") end
        if not st.ok and not st.lint then res.lint[#res.lint + 1] = what .. ": " .. it.line end
      end
    end
  end
  -- through a .func: stores to its parameter (an input) and its result, loads of both
  local function fprobe(what, body)
    count = count + 1
    local ptxt = (".version 8.0\n.target sm_90a\n.address_size 64\n.func (.param .u32 r) f(.param .u32 a)\n{\n.reg .u32 %%x;\n"
                  .. "mov.u32 %%x, 1;\n%s\nret;\n}\n.visible .entry k()\n{\n.reg .u32 %%y;\ncall.uni (%%y), f, (%%y);\nret;\n}\n"):format(body.ptx)
    P.reset()
    local ok, out = pcall(function()
      local f = P.func { name = "f", params = { { "a", "u32" } }, returns = { { "r", "u32" } }, body = function(_, a, r)
        local x = P.reg.u32 "x"
        P.mov.u32(x, 1)
        body.dsl(P, a, r, x)
      end }
      P.kernel { name = "k", body = function() local y = P.reg.u32 "y"; P.call(f, { y }, { y }) end }
      return P.ptx {}
    end)
    local pok, _, rep = ptxas(ok and out or ptxt, "sm_90a")
    if ok and not pok then res.looser[#res.looser + 1] = what .. ": " .. (rep:match("error%s*: ([^\n]*)") or rep)
    elseif not ok and pok then res.stricter[#res.stricter + 1] = what .. ": " .. tostring(out):gsub("\n.*", "") end
    if not pok and not next((B.lint(ptxt))) then res.lint[#res.lint + 1] = what end
  end
  fprobe("st.param to a .func's input parameter", { ptx = "st.param.u32 [a], %x;", dsl = function(P, a, r, x) P.st.param.u32(P.addr(a), x) end })
  fprobe("st.param to a .func's result", { ptx = "st.param.u32 [r], %x;", dsl = function(P, a, r, x) P.st.param.u32(P.addr(r), x) end })
  fprobe("ld.param of a .func's input parameter", { ptx = "ld.param.u32 %x, [a];", dsl = function(P, a, r, x) P.ld.param.u32(x, P.addr(a)) end })
  fprobe("st.param to a .func's input parameter at an offset", { ptx = "st.param.u32 [a+0], %x;", dsl = function(P, a, r, x) P.st.param.u32(P.addr(a, 0), x) end })
  res.count = count
  table.sort(res.looser); table.sort(res.stricter)
  return res
end

-- sizes at and past the targets' limits: { what, target, dsl = function(P) (defines kernels) end,
-- ptx = the module text the script means (judged when ptxlua refuses) }
local function module(target, version, body) return (".version %s\n.target %s\n.address_size 64\n%s\n"):format(version, target, body) end
local function use_shared(names)
  local t = { ".reg .b32 %zz_w;", "mov.b32 %zz_w, 0;" }
  for _, n in ipairs(names) do t[#t + 1] = ("st.shared.b32 [%s], %%zz_w;"):format(n) end
  return table.concat(t, "\n")
end
function B.size_probes()
  local out = {}
  local function add(p) out[#out + 1] = p end
  local TV = { sm_80 = "7.0", sm_86 = "7.1", sm_89 = "7.8", sm_90 = "7.8", sm_90a = "8.0", sm_100 = "8.6", sm_100a = "8.6", sm_120 = "8.7", sm_120a = "8.7" }
  for _, target in ipairs { "sm_80", "sm_86", "sm_89", "sm_90", "sm_90a", "sm_100", "sm_100a", "sm_120", "sm_120a" } do
    local v = TV[target]
    for _, bytes in ipairs { 49152, 49153, 101376, 101377, 166912, 166913, 232448, 232449 } do
      add { what = ("ptx.shared of %d bytes"):format(bytes), target = target,
            dsl = function(P) P.kernel { name = "k", target = target, body = function()
              local s = P.shared("s", "b8", bytes, 4); local w = P.reg.b32 "zz_w"; P.mov.b32(w, 0); P.st.shared.b32(P.addr(s), w) end } end,
            ptx = module(target, v, (".visible .entry k()\n{\n.shared .align 4 .b8 s[%d];\n%s\nret;\n}"):format(bytes, use_shared { "s" })) }
    end
    -- two arrays: the second's alignment pads the first (ptxas lays them out in order)
    for _, extra in ipairs { 0, 1 } do
      local a, b = 49152 - 32 - 16 + extra, 16
      add { what = ("ptx.shared %d bytes, then %d bytes aligned to 32"):format(a, b), target = target,
            dsl = function(P) P.kernel { name = "k", target = target, body = function()
              local s = P.shared("s", "b8", a, 4); local t = P.shared("t", "b8", b, 32)
              local w = P.reg.b32 "zz_w"; P.mov.b32(w, 0); P.st.shared.b32(P.addr(s), w); P.st.shared.b32(P.addr(t), w) end } end,
            ptx = module(target, v, (".visible .entry k()\n{\n.shared .align 4 .b8 s[%d];\n.shared .align 32 .b8 t[%d];\n%s\nret;\n}"):format(a, b, use_shared { "s", "t" })) }
    end
    -- a static plan beside a ptx.shared array; two static plans
    for _, extra in ipairs { 0, 16 } do
      add { what = ("a 40960-byte plan and a %d-byte ptx.shared array"):format(8192 + extra), target = target,
            dsl = function(P) P.kernel { name = "k", target = target, body = function()
              local pl = P.smem_plan { name = "smem" }; pl:alloc("a", "b8", 40960)
              local s = P.shared("s", "b8", 8192 + extra, 16)
              local w = P.reg.b32 "zz_w"; P.mov.b32(w, 0); P.st.shared.b32(pl.a:addr(), w); P.st.shared.b32(P.addr(s), w) end } end,
            ptx = module(target, v, (".visible .entry k()\n{\n.shared .align 16 .b8 s[%d];\n.shared .align 128 .b8 smem[40960];\n%s\nret;\n}"):format(8192 + extra, use_shared { "s", "smem" })) }
      add { what = ("plans of 40960 and %d bytes"):format(8192 + extra), target = target,
            dsl = function(P) P.kernel { name = "k", target = target, body = function()
              local p1 = P.smem_plan { name = "smem" }; p1:alloc("a", "b8", 40960)
              local p2 = P.smem_plan { name = "smem2" }; p2:alloc("b", "b8", 8192 + extra)
              local w = P.reg.b32 "zz_w"; P.mov.b32(w, 0); P.st.shared.b32(p1.a:addr(), w); P.st.shared.b32(p2.b:addr(), w) end } end,
            ptx = module(target, v, (".visible .entry k()\n{\n.shared .align 128 .b8 smem[40960];\n.shared .align 128 .b8 smem2[%d];\n%s\nret;\n}"):format(8192 + extra, use_shared { "smem", "smem2" })) }
    end
  end
  -- parameters: a byte-array parameter at and past the limits of the parameter space
  for _, bytes in ipairs { 4096, 4097, 32764, 32765, 32768 } do
    add { what = ("a %d-byte kernel parameter"):format(bytes), target = "sm_90a",
          dsl = function(P) P.kernel { name = "k", params = { { "b", "b8", size = bytes } }, body = function() end } end,
          ptx = module("sm_90a", "8.0", (".visible .entry k(\n.param .align 1 .b8 b[%d]\n)\n{\nret;\n}"):format(bytes)) }
  end
  -- register ranges, launch bounds, cluster shapes
  for _, n in ipairs { 65536, 16777216 } do
    add { what = ("a range of %d registers"):format(n), target = "sm_90a",
          dsl = function(P) P.kernel { name = "k", body = function() local r = P.regs.f32(n, "big"); P.mov.f32(r[n], 0.0) end } end,
          ptx = module("sm_90a", "8.0", (".visible .entry k()\n{\n.reg .f32 %%big<%d>;\nmov.f32 %%big%d, 0f00000000;\nret;\n}"):format(n, n - 1)) }
  end
  for _, f in ipairs { { "maxntid", { 1024 } }, { "maxntid", { 1025 } }, { "maxntid", { 32, 32, 2 } }, { "reqntid", { 1025 } },
                       { "reqntid", { 64, 64 } }, { "maxnreg", { 255 } }, { "maxnreg", { 256 } }, { "maxnreg", { 1 } },
                       { "minnctapersm", { 32 } }, { "minnctapersm", { 33 } }, { "minnctapersm", { 100000 } },
                       { "cluster", { 8 } }, { "cluster", { 16 } }, { "cluster", { 17 } }, { "cluster", { 4, 4, 2 } },
                       { "maxntid", { 65536 } } } do
    local field, dims = f[1], f[2]
    local dir = field == "cluster" and "reqnctapercluster" or field
    local d3 = { dims[1] or 1, dims[2] or 1, dims[3] or 1 }
    local line = (field == "maxnreg" or field == "minnctapersm") and ("." .. dir .. " " .. d3[1])
                 or ("." .. dir .. " " .. table.concat(d3, ", "))
    if field == "cluster" then line = ".explicitcluster\n" .. line end
    add { what = ("%s = {%s}"):format(field, table.concat(dims, ", ")), target = "sm_90a",
          dsl = function(P) P.kernel { name = "k", [field] = dims, body = function() end } end,
          ptx = module("sm_90a", "8.0", (".visible .entry k()\n%s\n{\nret;\n}"):format(line)) }
  end
  -- alignment of shared arrays
  for _, al in ipairs { 1024, 4096, 65536 } do
    add { what = ("ptx.shared aligned to %d"):format(al), target = "sm_90a",
          dsl = function(P) P.kernel { name = "k", body = function()
            local s = P.shared("s", "b8", 16, al); local w = P.reg.b32 "zz_w"; P.mov.b32(w, 0); P.st.shared.b32(P.addr(s), w) end } end,
          ptx = module("sm_90a", "8.0", (".visible .entry k()\n{\n.shared .align %d .b8 s[16];\n%s\nret;\n}"):format(al, use_shared { "s" })) }
  end
  return out
end

function B.size_sweep(P)
  local res = { looser = {}, stricter = {}, lint = {}, count = 0, rows = {} }
  for _, pr in ipairs(B.size_probes()) do
    res.count = res.count + 1
    P.reset()
    local ok, out = pcall(function() pr.dsl(P); return P.ptx {} end)
    local pok, _, rep = ptxas(ok and out or pr.ptx, pr.target)
    local what = pr.target .. ": " .. pr.what
    res.rows[#res.rows + 1] = { probe = pr, ok = ok, ptxas_ok = pok, msg = not ok and tostring(out) or nil, what = what }
    if ok and not pok then res.looser[#res.looser + 1] = what .. ": " .. (rep:match("error%s*: ([^\n]*)") or rep)
    elseif not ok and pok then res.stricter[#res.stricter + 1] = what .. ": " .. tostring(out):gsub("\n.*", "") end
    if not pok and not next((B.lint(ok and out or pr.ptx))) then res.lint[#res.lint + 1] = what end
  end
  return res
end

return B
