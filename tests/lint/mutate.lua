-- mutate.lua -- lint agreement with ptxas on mutated copies of the corpus files ptxas accepts.
-- Each mutant changes one thing in one instruction: a modifier, a type, or an operand (deterministic:
-- a fixed-seed generator, so the same corpus gives the same mutants). Both tools judge each
-- mutant; the report is the share where both accept or both reject, and every disagreement.
--   luajit tests/lint/mutate.lua [--build DIR] [--corpus DIR] [--count N] [--seed S] [--list]
local args = { build = "build", corpus = nil, count = 300, seed = 1 }
local i = 1
while i <= #arg do
  local a = arg[i]
  if a == "--build" then args.build = arg[i + 1]; i = i + 2
  elseif a == "--corpus" then args.corpus = arg[i + 1]; i = i + 2
  elseif a == "--count" then args.count = tonumber(arg[i + 1]); i = i + 2
  elseif a == "--seed" then args.seed = tonumber(arg[i + 1]); i = i + 2
  elseif a == "--ptxas" then args.ptxas = arg[i + 1]; i = i + 2
  else io.stderr:write("usage: luajit tests/lint/mutate.lua [--build DIR] [--corpus DIR] [--count N] [--seed S] [--ptxas PATH]\n"); os.exit(2) end
end
local root = (arg[0]:match("^(.*)/tests/lint/[^/]*$") or ".")
local function abs(p) return p:sub(1, 1) == "/" and p or (io.popen("cd " .. root .. " && pwd"):read("*l") .. "/" .. p) end
local exe = abs(args.build) .. "/ptxlua"
local corpus = args.corpus or abs("../shared/corpus/pyptx")
local ptxas = args.ptxas or "ptxas"
local function shq(s) return "'" .. s:gsub("'", "'\\''") .. "'" end
local function read(p) local f = io.open(p, "rb"); if not f then return nil end local s = f:read("*a"); f:close(); return s end
local function write(p, s) local f = assert(io.open(p, "wb")); f:write(s); f:close() end
local function run(cmd) -- rc, first line of output
  local f = io.popen(cmd .. " 2>&1; echo \"@rc=$?\"")
  local out = f:read("*a"); f:close()
  local rc = tonumber(out:match("@rc=(%d+)%s*$"))
  return rc, (out:gsub("@rc=%d+%s*$", "")):match("[^\n]*")
end

local tsv = read(corpus .. "/PTXAS-VERDICTS.tsv")
if not tsv then print("mutate: corpus absent (" .. corpus .. "), skipped"); os.exit(0) end
if run("command -v " .. ptxas .. " >/dev/null") ~= 0 then print("mutate: no ptxas, skipped"); os.exit(0) end

-- the files ptxas accepts, with their instruction lines
local files = {}
for line in tsv:gmatch("[^\n]+") do
  local f, target, rc = line:match("^([^#\t][^\t]*)\t([^\t]+)\t(%d+)")
  if f and rc == "0" then
    local text = read(corpus .. "/" .. f)
    if text then
      local lines, insns = {}, {}
      for l in (text .. (text:sub(-1) == "\n" and "" or "\n")):gmatch("([^\n]*)\n") do
        lines[#lines + 1] = l
        local body = l:match("^%s*(.-)%s*$")
        if body:match("^@?!?%%?[%w_]*%s*[a-z][%w_]*[%.%s].*;") and not body:match("^%.") and not body:match("^//") then
          insns[#insns + 1] = #lines
        end
      end
      if #insns > 0 then files[#files + 1] = { name = f, target = target, lines = lines, insns = insns, trail = text:sub(-1) == "\n" } end
    end
  end
end
table.sort(files, function(a, b) return a.name < b.name end)

-- a fixed-seed LCG: the same mutants on every machine
local state = args.seed
local function rnd(n) state = (state * 1103515245 + 12345) % 2147483648; return math.floor(state / 65536) % n + 1 end

local swaps = {
  types = { ".u32", ".s32", ".u64", ".s64", ".b32", ".b64", ".f32", ".f64", ".f16", ".bf16", ".u16", ".s16", ".b16", ".pred", ".u8", ".s8", ".f16x2" },
  mods = { ".rn", ".rz", ".rm", ".rp", ".lo", ".hi", ".wide", ".sat", ".ftz", ".approx", ".full", ".global", ".shared", ".local", ".const", ".param",
           ".acquire", ".release", ".relaxed", ".cta", ".gpu", ".sys", ".cluster", ".sync", ".aligned", ".eq", ".ne", ".lt", ".ge", ".v2", ".v4", ".x4", ".trans" },
}
local function mutate(l)
  local kind = rnd(4)
  local op, rest = l:match("^(%s*@?!?%%?[%w_]*%s*[a-z][%w_]*%S*)(.*)$")
  if not op then return nil end
  if kind == 1 or kind == 2 then -- a type (1) or a modifier (2) of the opcode: replace one, or drop one
    local toks = {}
    for t in op:gmatch("%.[%w_]+") do toks[#toks + 1] = t end
    if #toks == 0 then return nil end
    local k = rnd(#toks)
    local pool = kind == 1 and swaps.types or swaps.mods
    local rep = rnd(5) == 1 and "" or pool[rnd(#pool)]
    if rep == toks[k] then return nil end
    local n = 0
    local newop = op:gsub("%.[%w_]+", function(t) n = n + 1; if n == k then return rep end end)
    return newop .. rest, (kind == 1 and "type " or "modifier ") .. toks[k] .. " -> " .. (rep == "" and "(none)" or rep)
  else -- an operand: replace a register by an immediate or another register class, or drop the last
    local ops = {}
    for o in rest:gmatch("[^,;]+") do ops[#ops + 1] = o end
    if #ops == 0 then return nil end
    local m = rnd(3)
    if m == 1 and #ops > 1 then
      local new = rest:gsub(",[^,]*;", ";", 1)
      if new == rest then return nil end
      return op .. new, "operand: drop the last"
    end
    local regs = {}
    for r in rest:gmatch("%%[%a_][%w_]*") do regs[#regs + 1] = r end
    if #regs == 0 then return nil end
    local k = rnd(#regs)
    local rep = m == 2 and "1" or ({ "%rd1", "%r1", "%f1", "%p1", "%fd1", "%rs1", "%undeclared_reg" })[rnd(7)]
    if rep == regs[k] then return nil end
    local n = 0
    local new = rest:gsub("%%[%a_][%w_]*", function(t) n = n + 1; if n == k then return rep end end)
    return op .. new, "operand " .. regs[k] .. " -> " .. rep
  end
end

local tmp = os.tmpname(); os.remove(tmp); os.execute("mkdir -p " .. shq(tmp))
local n, both_acc, both_rej, dis = 0, 0, 0, {}
local tries = 0
while n < args.count and tries < args.count * 20 and #files > 0 do
  tries = tries + 1
  local f = files[(tries - 1) % #files + 1]
  local ln = f.insns[rnd(#f.insns)]
  local new, what = mutate(f.lines[ln])
  if new and new ~= f.lines[ln] then
    n = n + 1
    local lines = {}
    for k, l in ipairs(f.lines) do lines[k] = k == ln and new or l end
    local p = tmp .. "/m" .. n .. ".ptx"
    write(p, table.concat(lines, "\n") .. (f.trail and "\n" or ""))
    local arch = f.target:gsub("^compute_", "sm_")
    local prc, pmsg = run(ptxas .. " -arch=" .. arch .. " -o " .. shq(tmp .. "/out.cubin") .. " " .. shq(p))
    local lrc, lmsg = run(shq(exe) .. " --lint " .. shq(p))
    local pa, la = prc == 0, lrc == 0
    if pa and la then both_acc = both_acc + 1
    elseif not pa and not la then both_rej = both_rej + 1
    else dis[#dis + 1] = string.format("%s:%d %s: ptxas %s, lint %s (%s)", f.name, ln, what,
        pa and "accepts" or "rejects", la and "accepts" or "rejects", ((pa and lmsg or pmsg):gsub("^.-line (%d+);", "line %1;"))) end
    os.remove(p)
  end
end
os.execute("rm -rf " .. shq(tmp))
local agree = both_acc + both_rej
print(string.format("mutants: %d from %d accepted files; agreement %d of %d (%.1f%%): both accept %d, both reject %d; disagreements %d",
  n, #files, agree, n, n > 0 and 100 * agree / n or 0, both_acc, both_rej, #dis))
for _, d in ipairs(dis) do print("  " .. d) end
