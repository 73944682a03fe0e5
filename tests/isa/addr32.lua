-- addr32.lua -- a development tool for the ISA table: which address operands ptxas takes as a
-- 32-bit register under .address_size 64. For each form with an address operand [..], one
-- instance per distinct set of state spaces, each address in turn replaced by a .u32 register;
-- each module assembled alone (a 32-bit address is a fatal error with no line). Prints one line
-- per (form, spaces, operand): "ok32" (ptxas takes it), "no32" (it does not), or "base-fails".
--   LUA_PATH=... LUA_CPATH=build/lua/?.so luajit tests/isa/addr32.lua [base ...]
local root = os.getenv("PTXLUA_ROOT") or "."
package.path = root .. "/tests/isa/?.lua;" .. package.path
local G = require("isagen").init(root)
local ptx = require "ptxlua"
local PTXAS = os.getenv("PTXAS") or "ptxas"
local TMP = os.tmpname() .. ".ptx"
local only = {}
for _, a in ipairs(arg) do only[a] = true end

local function assemble(text, target)
  local ok = G.ptxas(PTXAS, text, target, TMP)
  return ok
end

for _, p in ipairs(G.parsed) do
  local nm = 0
  for _, o in ipairs(p.ops) do if o.letter == "m" then nm = nm + 1 end end
  if nm > 0 and (not next(only) or only[p.base]) then
    local seen = {}
    for _, text in ipairs((G.cover(p))) do
      local sh = G.shape(p, text)
      local key = table.concat(sh.spaces, ",")
      local target, version = G.placement(text, p)
      if not seen[key] and target then
        seen[key] = true
        for k = 0, nm do          -- 0: the instance as it is (the baseline)
          local line
          local insts = { { p = p, text = text, run = function(q, env, emit)
            local env2 = setmetatable({}, { __index = env })
            local mi = 0
            function env2.addr(space, i, s)
              mi = mi + 1
              if mi == k then local r = q.reg.u32(); return q.addr(r), "[" .. r:name() .. "]" end
              return env.addr(space, i, s)
            end
            local ops, texts = G.operands(p, text, env2, {})
            line = text .. " " .. table.concat(texts, ", ") .. ";"
            env.raw(line)
          end } }
          local ptxtext = G.build(ptx, insts, target, version / 10)
          local ok = assemble(ptxtext, target)
          if k == 0 and not ok then print(("base-fails %s [%s] {%s}: %s"):format(text, p.pattern, key, line or "?")); break end
          if k > 0 then print(("%s %s [%s] {%s} operand-address %d"):format(ok and "ok32" or "no32", text, p.pattern, key, k)) end
        end
      end
    end
  end
end
os.remove(TMP)
