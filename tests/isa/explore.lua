-- explore.lua -- a development tool for the ISA table: assembles instances of every form with
-- ptxas and reports what ptxas rejects, and (with --probe) whether each form's minimum PTX
-- version and target are tight (ptxas rejects the form one version / one target below).
--   LUA_PATH=... LUA_CPATH=build/lua/?.so luajit tests/isa/explore.lua [--all] [--probe] [base ...]
-- --all assembles the whole cartesian product of each form (at most $CAP texts a form, default
-- 5000; CAP=1000000 takes ~35 s and finds over-wide patterns). DUMP=dir keeps each module's PTX.
local root = os.getenv("PTXLUA_ROOT") or "."
package.path = root .. "/tests/isa/?.lua;" .. package.path
local G = require("isagen").init(root)
local ptx = require "ptxlua"

local all, probe, only = false, false, {}
for _, a in ipairs(arg) do
  if a == "--all" then all = true elseif a == "--probe" then probe = true else only[a] = true end
end
local PTXAS = os.getenv("PTXAS") or "ptxas"
local TMP = os.tmpname() .. ".ptx"

local VERSIONS = { 10, 11, 12, 13, 14, 15, 20, 21, 22, 23, 30, 31, 32, 40, 41, 42, 43, 50, 51, 60, 61, 62, 63,
  64, 65, 70, 71, 72, 73, 74, 75, 76, 77, 78, 80, 81, 82, 83, 84, 85, 86, 87, 88, 90 }
local function prev_version(v)
  for i = #VERSIONS, 1, -1 do if VERSIONS[i] < v then return VERSIONS[i] end end
end
local PREV_TARGET = { sm_80 = "sm_75", sm_86 = "sm_80", sm_87 = "sm_86", sm_88 = "sm_87", sm_89 = "sm_88",
  sm_90 = "sm_89", sm_90a = "sm_90", sm_100 = "sm_90a", sm_100a = "sm_100f", sm_100f = "sm_100",
  sm_103 = "sm_100", sm_103f = "sm_100f", sm_103a = "sm_103f", sm_110 = "sm_103", sm_110a = "sm_110f", sm_120 = "sm_110",
  sm_120a = "sm_120f", sm_121 = "sm_120", sm_121a = "sm_121f" }

local function vstr(v) return ("%d.%d"):format(math.floor(v / 10), v % 10) end
local function retarget(text, target, version)
  text = text:gsub("\n%.version [%d.]+\n", ("\n.version %d.%d\n"):format(math.floor(version / 10), version % 10), 1)
  return (text:gsub("\n%.target [%w_]+\n", "\n.target " .. target .. "\n", 1))
end

-- instances grouped by the least target and version the validator gives them
local groups, gorder = {}, {}
local nforms, ninst = 0, 0
local function add(p, t, opts)
  local target, v = G.placement(t, p)
  if not target then io.write(("NOPLACE %s: %s\n"):format(t, tostring(v))); return end
  local key = target .. "@" .. v
  if not groups[key] then groups[key] = { target = target, version = v, insts = {} }; gorder[#gorder + 1] = key end
  table.insert(groups[key].insts, { p = p, text = t, opts = opts })
  ninst = ninst + 1
end
for _, p in ipairs(G.parsed) do
  if p.base == "brx" or p.base == "call" then
    io.write("SKIP " .. p.base .. ": its operands are lists and a function, .branchtargets or .callprototype (hand instances in isa_forms_spec.lua)\n")
  elseif next(only) == nil or only[p.base] then
    nforms = nforms + 1
    local texts, shadowed = G.cover(p)
    if all then texts = G.all(p, tonumber(os.getenv("CAP")) or 5000) end
    for _, s in ipairs(shadowed) do io.write(("SHADOWED %s: %s\n"):format(p.pattern, s)) end
    for _, t in ipairs(texts) do
      if all or G.resolves_to(t, p) then
        add(p, t)
        if G.has_optional(p) then add(p, t, { optional = true, pair = true }) end
      end
    end
  end
end
table.sort(gorder)
io.write(("%d forms, %d instances, %d groups\n"):format(nforms, ninst, #gorder))

local bad = 0
for _, key in ipairs(gorder) do
  local g = groups[key]
  local text, lines, rejected = G.build(ptx, g.insts, g.target, g.version / 10)
  for _, r in ipairs(rejected) do
    bad = bad + 1
    io.write(("VALIDATOR %s: %s: %s\n"):format(key, r.it.text, r.msg))
  end
  if os.getenv("DUMP") then
    local f = io.open(os.getenv("DUMP") .. "/" .. key .. ".ptx", "wb"); f:write(text); f:close()
  end
  local ok, errs, out = G.ptxas(PTXAS, text, g.target, TMP)
  for l, msg in pairs(errs) do
    bad = bad + 1
    local li = lines[l]
    if li and li.raw then li = nil end
    io.write(("PTXAS %s: %s [%s]: %s\n"):format(key, li and li.text or ("line " .. l), li and li.it and li.it.p.pattern or "?", msg))
  end
  if not ok and next(errs) == nil then io.write("PTXAS " .. key .. ": " .. out .. "\n") end
  if probe then
    local pv = prev_version(g.version)
    if g.version > G.target_version(g.target) then
      local ok2, errs2 = G.ptxas(PTXAS, retarget(text, g.target, pv), g.target, TMP)
      for l, li in pairs(lines) do
        if li.it and not errs[l] and not errs2[l] then
          io.write(("LOOSE-VERSION %s: %s [%s] accepted at %s\n"):format(key, li.text, li.it.p.pattern, vstr(pv)))
        end
      end
    end
    local pt = PREV_TARGET[g.target]
    if pt then
      local v2 = math.max(g.version, G.target_version(pt))
      local ok3, errs3 = G.ptxas(PTXAS, retarget(text, pt, v2), pt, TMP)
      for l, li in pairs(lines) do
        if li.it and not errs[l] and not errs3[l] then
          io.write(("LOOSE-TARGET %s: %s [%s] accepted on %s\n"):format(key, li.text, li.it.p.pattern, pt))
        end
      end
    end
  end
end
os.remove(TMP)
io.write(("%d problems\n"):format(bad))
