-- orders.lua -- modifier order, the linter against ptxas: every form's instances (isagen's cover)
-- with their modifiers reordered (every order up to 5 modifiers; beyond, each modifier moved to
-- each place and 20 shuffles, from a fixed seed), each written on a line of its own beside the
-- original in one module per target and base name, then judged line by line by ptxas and by the linter
-- (core.lint). Reports where they disagree:
--   "takes   <target> <text> (<canonical>): <ptxas's message>"   the linter takes what ptxas rejects
--   "rejects <target> <text> (<canonical>): <linter's message>"  the linter rejects what ptxas takes
--   LUA_PATH=... LUA_CPATH=build/lua/?.so luajit tests/isa/orders.lua [--sample N] [base ...]
-- --sample N keeps N reorderings per instance (tests/spec/isa_order_spec.lua runs a sample).
-- A module is also a library: require("orders").run{ ptxas =, sample =, only = } -> the same counts.
local O = {}

local function perms(toks, cap, rnd)
  local n, out, seen = #toks, {}, {}
  local function add(p)
    local k = table.concat(p, ".")
    if not seen[k] then seen[k] = true; out[#out + 1] = p end
  end
  if n <= 5 then
    local function rec(pre, used)
      if #pre == n then add({ unpack(pre) }); return end
      for i = 1, n do
        if not used[i] then used[i] = true; pre[#pre + 1] = toks[i]; rec(pre, used); pre[#pre] = nil; used[i] = nil end
      end
    end
    rec({}, {})
  else
    for i = 1, n do
      for j = 1, n do                                  -- modifier i moved to place j
        local p = { unpack(toks) }
        local t = table.remove(p, i)
        table.insert(p, j, t)
        add(p)
      end
    end
    for _ = 1, 20 do
      local p = { unpack(toks) }
      for i = n, 2, -1 do local j = rnd(i); p[i], p[j] = p[j], p[i] end
      add(p)
    end
  end
  if cap and #out > cap then                           -- a sample: spread over the list
    local s = {}
    for k = 1, cap do s[k] = out[math.floor((k - 1) * #out / cap) + 1] end
    out = s
  end
  return out
end

function O.run(opts)
  local root = opts.root or os.getenv("PTXLUA_ROOT") or "."
  package.path = root .. "/tests/isa/?.lua;" .. package.path
  local G = require("isagen").init(root)
  -- immediates ptxas wants in these forms (as tests/spec/isa_forms_spec.lua gives them)
  G.IMM.wgmma = function(sh, k) return (sh.has.sp and k == 5) and 0 or 1 end
  G.IMM.setmaxnreg = 240
  G.IMM.tensormap = function(sh) return sh.has.cp_fenceproxy and 128 or 1 end
  local core = require "ptxlua.core"
  local ptx = require "ptxlua"
  local tmp = os.tmpname() .. ".ptx"
  local state = opts.seed or 7
  local function rnd(n) state = (state * 1103515245 + 12345) % 2147483648; return math.floor(state / 65536) % n + 1 end
  local only = opts.only or {}

  local groups, gorder = {}, {}
  for _, p in ipairs(G.parsed) do
    if p.base ~= "brx" and p.base ~= "call" and (next(only) == nil or only[p.base]) then
      for _, t in ipairs((G.cover(p))) do
        if G.resolves_to(t, p) then
          local target, v = G.placement(t, p)
          if target then
            -- a module per base name: ptxas checks in phases, and a syntax error of one line (a cp
            -- reordering) hides the later phase's errors of every other line (tcgen05's name words)
            local key = target .. "@" .. v .. "+" .. p.base
            if not groups[key] then groups[key] = { target = target, version = v, insts = {} }; gorder[#gorder + 1] = key end
            table.insert(groups[key].insts, { p = p, text = t })
          end
        end
      end
    end
  end
  table.sort(gorder)
  local res = { lines = 0, agree = 0, instances = 0, skipped = 0, takes = {}, rejects = {} }
  for _, key in ipairs(gorder) do
    local g = groups[key]
    local text, lines = G.build(ptx, g.insts, g.target, g.version / 10)
    local out, map, n, ln = {}, {}, 0, 0
    for line in (text .. "\n"):gmatch("([^\n]*)\n") do
      ln = ln + 1
      n = n + 1
      out[n] = line
      local li = lines[ln]
      if li and li.it then
        local pre, opc, rest = line:match("^(\t@!?%%[%w_]+%s+)([%a][%w_.:]*)(.*)$")
        if not pre then pre, opc, rest = line:match("^(\t)([%a][%w_.:]*)(.*)$") end
        if opc == li.it.text then
          local canon_n = n
          map[canon_n] = { canon = opc }
          local base, toks = G.tokens(opc)
          for _, pm in ipairs(perms(toks, opts.sample, rnd)) do
            local v = base .. (#pm > 0 and "." .. table.concat(pm, ".") or "")
            if v ~= opc then
              n = n + 1
              out[n] = pre .. v .. rest
              map[n] = { canon = opc, v = v, of = canon_n }
            end
          end
        end
      end
    end
    local module = table.concat(out, "\n")
    local _, perr = G.ptxas(opts.ptxas or "ptxas", module, g.target, tmp)
    local lerr = {}
    for _, d in ipairs(assert(core.lint(module, key))) do
      lerr[d.line] = lerr[d.line] and (lerr[d.line] .. "; " .. d.msg) or d.msg
    end
    for l, m in pairs(map) do
      if m.v then
        local c = m.of
        if perr[c] or lerr[c] then
          res.skipped = res.skipped + 1                -- the instance itself is not taken: nothing to compare
        else
          res.lines = res.lines + 1
          local pok, lok = not perr[l], not lerr[l]
          if pok == lok then res.agree = res.agree + 1
          elseif lok then res.takes[#res.takes + 1] = ("takes   %s %s (%s): %s"):format(key, m.v, m.canon, perr[l])
          else res.rejects[#res.rejects + 1] = ("rejects %s %s (%s): %s"):format(key, m.v, m.canon, lerr[l]) end
        end
      else
        res.instances = res.instances + 1
      end
    end
  end
  os.remove(tmp)
  table.sort(res.takes)
  table.sort(res.rejects)
  return res
end

if not ... or (...) ~= "orders" then                   -- run as a script
  local opts = { only = {} }
  local i = 1
  while i <= #arg do
    if arg[i] == "--sample" then opts.sample = tonumber(arg[i + 1]); i = i + 2
    else opts.only[arg[i]] = true; i = i + 1 end
  end
  opts.ptxas = os.getenv("PTXAS") or "ptxas"
  local r = O.run(opts)
  for _, l in ipairs(r.takes) do print(l) end
  for _, l in ipairs(r.rejects) do print(l) end
  print(("%d instances, %d reordered texts: %d agree (%.2f%%), the linter takes %d that ptxas rejects and rejects %d " ..
         "that ptxas takes; %d skipped (the instance itself not taken)"):format(r.instances, r.lines, r.agree,
         100 * r.agree / math.max(r.lines, 1), #r.takes, #r.rejects, r.skipped))
end
return O
