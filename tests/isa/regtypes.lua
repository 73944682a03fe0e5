-- regtypes.lua -- the register types each operand of each form takes, the validator against ptxas.
-- For every form (its first instance), every register operand of a sized type is given, in turn,
-- a register of each type of that width (.bN, .uN, .sN, .fN, .f16x2 ...); the line goes through the
-- validator and, raw, through ptxas. Prints the disagreements, one a line:
--   "looser  <form> operand K .T: <ptxas's message>"  the validator takes what ptxas rejects
--   "stricter <form> operand K .T"                      ptxas takes what the validator rejects
-- and a summary. tests/spec/isa_holes_spec.lua runs the same sweep (G.regtype_sweep) and fails on
-- any "looser" line.
--   LUA_PATH=... LUA_CPATH=build/lua/?.so luajit tests/isa/regtypes.lua [base ...]
local root = os.getenv("PTXLUA_ROOT") or "."
package.path = root .. "/tests/isa/?.lua;" .. package.path
local G = require("isagen").init(root)
local ptx = require "ptxlua"
local PTXAS = os.getenv("PTXAS") or "ptxas"
local TMP = os.tmpname() .. ".ptx"
local only = {}
for _, a in ipairs(arg) do only[a] = true end

local res = G.regtype_sweep(ptx, function(text, target) local ok, errs = G.ptxas(PTXAS, text, target, TMP); return ok, errs end,
                            next(only) and only or nil)
for _, l in ipairs(res.looser) do print("looser  " .. l) end
for _, l in ipairs(res.stricter) do print("stricter " .. l) end
print(("%d probes, %d looser, %d stricter"):format(res.count, #res.looser, #res.stricter))
os.remove(TMP)
