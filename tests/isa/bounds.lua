-- bounds.lua -- the boundary sweep (tests/isa/boundsgen.lua): immediates at and past their ranges,
-- names that collide, state spaces and sizes at and past the targets' limits, each judged by
-- ptxlua and by ptxas. Prints one line per disagreement:
--   "looser   <sweep> <probe>: <ptxas's message>"  ptxlua accepts what ptxas rejects (a hole)
--   "stricter <sweep> <probe>: <ptxlua's message>" ptxlua refuses what ptxas takes
--   "lint     <sweep> <probe>"                      ptxas rejects it, --lint stays silent
-- then a summary per sweep. Arguments: the sweeps to run (imm, names, spaces, sizes; default all), and
-- base names to limit the imm sweep to (shl shfl ...).
--   LUA_PATH=... LUA_CPATH=build/lua/?.so luajit tests/isa/bounds.lua [imm|names|spaces|sizes ...] [base ...]
local root = os.getenv("PTXLUA_ROOT") or "."
package.path = root .. "/tests/isa/?.lua;" .. package.path
local ptx = require "ptxlua"
local B = require("boundsgen").init(root, os.getenv("PTXAS") or "ptxas", os.getenv("PTXLUA"))
local sweeps, only = {}, nil
for _, a in ipairs(arg) do
  if a == "imm" or a == "names" or a == "spaces" or a == "sizes" then sweeps[a] = true
  else only = only or {}; only[a] = true end
end
if not next(sweeps) then sweeps = { imm = true, names = true, spaces = true, sizes = true } end
local function report(name, res)
  for _, l in ipairs(res.looser) do print("looser   " .. name .. " " .. l) end
  for _, l in ipairs(res.stricter) do print("stricter " .. name .. " " .. l) end
  for _, l in ipairs(res.lint or {}) do print("lint     " .. name .. " " .. l) end
  print(("%s: %d probes, %d looser, %d stricter, %d missed by --lint"):format(name, res.count, #res.looser,
        #res.stricter, #(res.lint or {})))
end
if sweeps.imm then
  report("imm", B.imm_sweep(ptx, only))
  report("imm-optional", B.imm_sweep(ptx, only, { optional = true }))
end
if sweeps.names then report("names", B.name_sweep(ptx)) end
if sweeps.spaces then report("spaces", B.space_sweep(ptx, only)) end
if sweeps.sizes then report("sizes", B.size_sweep(ptx)) end
B.cleanup()
