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
local PTXAS, TMP

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

-- `ptxlua --lint` on a text: { [line] = message }, and whether it parsed
local PTXLUA
function B.lint(text)
  local f = assert(io.open(TMP, "wb")); f:write(text); f:close()
  local pipe = io.popen(("%s --lint %s 2>&1"):format(PTXLUA, TMP))
  local out = pipe:read("*a")
  pipe:close()
  local errs = {}
  for l, msg in out:gmatch(":(%d+):%d+: error: ([^\n]*)") do
    l = tonumber(l)
    errs[l] = errs[l] and (errs[l] .. "; " .. msg) or msg
  end
  return errs, out
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
          local key = target .. "@" .. version
          if not groups[key] then groups[key] = { target = target, version = version, insts = {} }; order[#order + 1] = key end
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
  table.sort(order)
  local res = { looser = {}, stricter = {}, lint = {}, count = count, rows = {} }
  for _, key in ipairs(order) do
    local g = groups[key]
    local text, lines = G.build(ptx, g.insts, g.target, g.version / 10)
    local _, errs = ptxas(text, g.target)
    local status = {}
    for l, li in pairs(lines) do
      local it = li.it or li.raw
      if it then status[it] = { ok = not errs[l], msg = errs[l] } end
    end
    for _, it in ipairs(g.insts) do
      local st, bst = status[it], it.base and status[it.base]
      if st and it.k > 0 and bst and bst.ok and it.base.validator_ok then
        local what = ("%s [%s] operand %d (.%s) = %s"):format(it.text, it.p.pattern, it.k, tostring(it.t), vtext(it.v))
        res.rows[#res.rows + 1] = { it = it, ptxas_ok = st.ok, msg = st.msg, what = what }
        if it.validator_ok and not st.ok then res.looser[#res.looser + 1] = what .. ": " .. tostring(st.msg)
        elseif not it.validator_ok and st.ok then res.stricter[#res.stricter + 1] = what .. ": " .. tostring(it.msg) end
      end
    end
  end
  table.sort(res.looser); table.sort(res.stricter)
  return res
end

return B
