-- sugar_spec.lua -- `ptxlua --from-ptx FILE.ptx --sugar`: an editable DSL script whose round trip
-- is byte-identical, which says on stderr which statements it kept as written and why. Run on
-- nvcc -ptx output of tests/cuda/*.cu (assembled by ptxas), on PTX the DSL printed (loops, mbarrier
-- waits), and on the corpus when present: all 219 files in a release build; in a sanitizer build
-- (ASan + UBSan run the scripts about three times slower) the files under 20 KB, every one of the
-- corpus's directories and kinds but the few large generated kernels, which the release run covers.
local H = require "helper"

local CORPUS = H.root .. "/../shared/corpus/pyptx"

-- sugar one PTX file: the script's text, its stderr, and whether it prints the file back
local function sugar(path)
  local lua = H.tmpfile(".lua")
  local _, err, rc = H.ptxlua { "--from-ptx", path, "--sugar", "-o", lua }
  assert(rc == 0, path .. ": --sugar failed: " .. err)
  local out, err2, rc2 = H.ptxlua { lua, "--print-ptx" }
  assert(rc2 == 0, path .. ": the sugared script failed: " .. err2)
  return H.read(lua), err, out == H.read(path), lua, out
end

-- instructions written as DSL calls (those of a Lua loop counted once per iteration), statements
-- and layout kept as text, loops folded (ptx.do_while, ptx.mbarrier_wait), runs folded (for)
local function counts(text)
  local calls, kept, loops, runs, reps = 0, 0, 0, 0, nil
  for line in text:gmatch("[^\n]+") do
    local n = line:match("^%s*for i = 0, (%d+) do")
    if n then
      runs = runs + 1
      if line:match(" end$") then calls = calls + n + 1 else reps = n + 1 end
    elseif reps and line:match("^%s*end$") then reps = nil
    elseif line:match("^%s*ptx%.[%w_]") then calls = calls + (reps or 1) end
    if line:match("^%s*sugar%.text ") then kept = kept + 1 end
    if line:match("^%s*ptx%.do_while%(") or line:match("^%s*ptx%.mbarrier_wait%(") then loops = loops + 1 end
  end
  return calls, kept, loops, runs
end

-- sugar many files two at a time (CI has two cores): for each, { text, notes, same }
local function sugar_all(paths)
  local dir = H.tmpfile(".d")
  local _, merr, mrc = H.sh("mkdir -p " .. H.shq(dir))
  assert(mrc == 0, merr)
  local one = H.write(dir .. "/one.sh", table.concat({
    "#!/bin/sh",
    "# one.sh EXE DIR N FILE: sugar FILE into DIR/N.lua (notes DIR/N.err), print it back, compare",
    'exe=$1; d=$2; n=$3; f=$4',
    '"$exe" --from-ptx "$f" --sugar -o "$d/$n.lua" 2>"$d/$n.err" || { echo "sugar failed: $?" >"$d/$n.bad"; exit 0; }',
    '"$exe" "$d/$n.lua" --print-ptx >"$d/$n.out" 2>"$d/$n.err2" || { echo "script failed" >"$d/$n.bad"; exit 0; }',
    'cmp -s "$d/$n.out" "$f" || echo differs >"$d/$n.bad"',
    'rm -f "$d/$n.out"', "" }, "\n"))
  local args = {}
  for i, p in ipairs(paths) do args[#args + 1] = i .. "\0" .. p .. "\0" end
  local list = H.write(dir .. "/list", table.concat(args))
  local _, err, rc = H.sh(string.format("xargs -0 -n 2 -P 2 sh %s %s %s < %s", H.shq(one), H.shq(H.exe), H.shq(dir), H.shq(list)))
  assert(rc == 0, err)
  local res = {}
  for i, p in ipairs(paths) do
    local bad = H.read(dir .. "/" .. i .. ".bad")
    res[i] = { path = p, text = H.read(dir .. "/" .. i .. ".lua") or "", notes = H.read(dir .. "/" .. i .. ".err") or "",
               same = bad == nil, why = bad and (bad .. (H.read(dir .. "/" .. i .. ".err2") or "")) }
  end
  return res
end

-- the lines of the notes (--sugar's summary of what it kept as written)
local function note_lines(notes)
  local lines = {}
  for l in notes:gmatch("[^\n]+") do lines[#lines + 1] = l end
  return lines
end

local function sanitized()
  local cache = H.read(H.build .. "/CMakeCache.txt") or ""
  return cache:find("PTXLUA_SANITIZE:BOOL=ON", 1, true) ~= nil
end

local function nvcc(cu, arch, flags)
  local _, _, rc = H.sh("command -v nvcc")
  if rc ~= 0 then
    assert(not H.ci, "nvcc is required under CI=true")
    return nil
  end
  local ptx = H.tmpfile(".ptx")
  local _, err, nrc = H.sh(string.format("env -u LD_PRELOAD nvcc -ptx %s -arch=%s %s -o %s", flags, arch, H.shq(H.root .. "/tests/cuda/" .. cu), ptx))
  assert(nrc == 0, cu .. ": nvcc: " .. err)
  return ptx
end

describe("ptxlua --from-ptx --sugar", function()
  it("turns nvcc output into DSL calls that print it back byte for byte, and ptxas takes the result", function()
    local cases = { { "simt.cu", "sm_90a", "" }, { "mma.cu", "sm_80", "" }, { "calls.cu", "sm_90a", "" }, { "calls.cu", "sm_90a", "-G" },
                    -- the async families (inline PTX in nvcc's nested { } blocks) and tcgen05 for sm_100a
                    { "wgmma.cu", "sm_90a", "" }, { "tma.cu", "sm_90a", "" }, { "mbarrier.cu", "sm_90a", "" },
                    { "clusters.cu", "sm_90a", "" }, { "tcgen05.cu", "sm_100a", "" } }
    local ran = 0
    for _, c in ipairs(cases) do
      local ptx = nvcc(c[1], c[2], c[3])
      if not ptx then return H.pending("nvcc is not installed") end
      local text, notes, same, _, back = sugar(ptx)
      assert(same, c[1] .. " " .. c[3] .. ": the sugared round trip differs")
      -- every instruction outside nested { } call blocks is a DSL call
      local ninsn = 0
      for line in H.read(ptx):gmatch("[^\n]+") do
        if line:match("^\t@?%%?[%w!%%]*%s*[%a][%w%.:]*[ \t].*;") or line:match("^\t[%a][%w%.]*;") then ninsn = ninsn + 1 end
      end
      local calls, kept = counts(text)
      assert(calls > 0.6 * ninsn, string.format("%s %s: %d DSL calls for %d instructions", c[1], c[3], calls, ninsn))
      assert.truthy(text:find("sugar.regs(\"b32\", ", 1, true))
      -- what stays verbatim is one summary: the total, then a line per reason
      local q = ptx:gsub("%p", "%%%0")
      for i, l in ipairs(note_lines(notes)) do
        if i == 1 then assert.truthy(l:match("^" .. q .. ": note: kept verbatim: %d+ of %d+ statements, for %d+ reasons?:$"), l)
        else assert.truthy(l:match("^" .. q .. ":%d+: note: kept verbatim: %d+ statements?[ :].+"), l) end
      end
      if c[1] == "simt.cu" then
        assert.are.equal("", notes)               -- all of simt.cu's SIMT code has a DSL form
        assert.truthy(text:find("ptx.at(p[1]).bra(L.BB0_3)", 1, true))
        assert.truthy(text:find("ptx.ld.param.u32(r[6], ptx.addr(param_0))", 1, true))
        -- saxpy's grid-stride loop is a ptx.do_while on nvcc's label, its condition returned
        assert.truthy(text:find("\n    ptx.do_while%(L%.BB0_%d+, function%(%)\n      ptx%.mul%.wide%.s32%(.-\n      return p%[%d+%]\n    end%)\n"), text)
      end
      if c[1] == "mma.cu" then
        -- the fragment loads, four .u32 words 4 bytes apart, are one Lua loop
        assert.truthy(text:find("for i = 0, 3 do ptx%.ld%.global%.u32%(r%[%d+ %+ i%], ptx%.addr%(rd%[%d+%], 4 %* i%)%) end"), text)
      end
      if c[1] == "calls.cu" then
        -- nvcc's call sequences are nested blocks: Lua blocks between sugar.open (its `{ // callseq 0, 0`
        -- line as written) and sugar.close, their scoped .reg a DSL register, the call itself (an
        -- argument list) kept
        assert.truthy(text:find('do sugar.open("\\t{ // callseq 0, 0\\n")', 1, true), text)
        assert.truthy(text:find('sugar.close("\\t} // callseq 0\\n") end', 1, true), text)
        assert.truthy(text:find('local temp_param_reg = sugar.reg("b32", { "temp_param_reg", bare = true }', 1, true), text)
        assert.falsy(notes:find("nested { } block", 1, true), notes)
      end
      if H.ptxas_path() then
        local aok, aout = H.assemble(back, c[2])
        assert(aok, c[1] .. ": ptxas: " .. tostring(aout))
      end
      ran = ran + 1
    end
    assert.are.equal(#cases, ran)
  end)

  it("gives an editable kernel: a changed instruction and a new register print as edited", function()
    local ptx = nvcc("simt.cu", "sm_90a", "")
    if not ptx then return H.pending("nvcc is not installed") end
    local text = sugar(ptx)
    local old = "ptx.fma.rn.f32(f[4], f[2], f[1], f[3])"
    assert.truthy(text:find(old, 1, true))
    -- y = a*x + y becomes y = a*x*2 + y: a named register, one mul, the fma reading it
    local new = "local two = ptx.reg.f32 \"two\"; two:set(2.0)\n    local ax = ptx.reg.f32 \"ax\"; ptx.mul.rn.f32(ax, f[2], two)\n    ptx.fma.rn.f32(f[4], ax, f[1], f[3])"
    local edited = H.write(H.tmpfile(".lua"), (text:gsub(old:gsub("%p", "%%%0"), (new:gsub("%%", "%%%%")))))
    local out, err, rc = H.ptxlua { edited, "--print-ptx" }
    assert(rc == 0, err)
    assert.truthy(out:find("\t.reg .f32 \t%two;\n", 1, true), out)
    assert.truthy(out:find("\tmov.f32 \t%two, 0f40000000;\n\tmul.rn.f32 \t%ax, %f2, %two;\n\tfma.rn.f32 \t%f4, %ax, %f1, %f3;\n", 1, true), out)
    if H.ptxas_path() then
      local aok, aout = H.assemble(out, "sm_90a")
      assert(aok, "ptxas: " .. tostring(aout))
    end
    -- a wrong edit is an error at the script line that holds it
    local bad = text:gsub(old:gsub("%p", "%%%0"), "ptx.fma.rn.f32(f[4], f[2], f[1])")
    local broken = H.write(H.tmpfile(".lua"), bad)
    local lineno = 0
    for l in bad:gmatch("([^\n]*)\n") do lineno = lineno + 1; if l:find("ptx.fma.rn.f32(f[4], f[2], f[1])", 1, true) then break end end
    local _, berr, brc = H.ptxlua { broken, "--print-ptx" }
    assert.are.equal(1, brc)
    assert.truthy(berr:find(broken .. ":" .. lineno .. ": error:", 1, true), berr)
  end)

  it("keeps what the DSL cannot write as written, says which line and why, and stays byte-identical", function()
    -- line 15: its own indentation, gap and comment; 16: 33 bits for a .u32 operand (the DSL
    -- refuses it); 19: no space after a comma; then a second kernel, b
    local src = H.fixture "sugar/hand_written.ptx"
    local ptx = H.write(H.tmpfile(".ptx"), src)
    local text, notes, same = sugar(ptx)
    assert.is_true(same)
    local lines = note_lines(notes)
    assert.are.equal(3, #lines, notes)
    assert.are.equal(ptx .. ": note: kept verbatim: 2 of 10 statements, for 2 reasons:", lines[1])
    assert.truthy(lines[2]:find(ptx .. ":16: note: kept verbatim: 1 statement: the DSL refuses it: ", 1, true), notes)
    assert.truthy(lines[3]:find(ptx .. ":19: note: kept verbatim: 1 statement: written differently", 1, true), notes)
    assert.truthy(text:find("sugar.indent \"    \"", 1, true))
    assert.truthy(text:find("sugar.gap \" \"", 1, true))
    assert.truthy(text:find("ptx.mov.u32(r[1], ptx.sreg.tid.x)\n    sugar.eol \"   // the lane\\n\"", 1, true), text)
    assert.truthy(text:find("ptx.at(p[1]).bra(L[\"DONE\"])", 1, true), text)
    -- both kernels are kept, each under its own name
    assert.truthy(text:find("doc:kernel {\n  name = \"a\"", 1, true))
    assert.truthy(text:find("doc:kernel {\n  name = \"b\"", 1, true))
    local out, err, rc = H.ptxlua { H.write(H.tmpfile(".lua"), text), "--kernel", "b", "--print-ptx" }
    assert(rc == 0, err)
    assert.are.equal(src, out)
  end)

  it("folds the DSL's own loops and mbarrier waits back into ptx.do_while and ptx.mbarrier_wait", function()
    local kernel = H.write(H.tmpfile(".lua"), [[
local ptx = require "ptxlua"
ptx.kernel { name = "waits", target = "sm_90a", params = { {"n", "u32"} }, body = function(t, n)
  local acc = ptx.reg.u32()
  acc:set(0)
  ptx.range(0, n:load(), function(i) acc:set(acc + i) end)
  local bar = ptx.shared("bar", "b64", 1)
  ptx.mbarrier_wait(ptx.addr(bar), 0)
  ptx.mbarrier_wait(ptx.addr(bar), acc, { op = "mbarrier.try_wait.parity.acquire.cta.shared::cta.b64", uni = true })
end }
]])
    local ptxt, err, rc = H.ptxlua { kernel, "--print-ptx" }
    assert(rc == 0, err)
    local ptx = H.write(H.tmpfile(".ptx"), ptxt)
    local text, notes, same = sugar(ptx)
    assert.is_true(same)
    assert.are.equal("", notes)
    local _, _, loops = counts(text)
    assert.are.equal(3, loops)
    -- the counted loop: its label, its body, the branch on the predicate it returns
    assert.truthy(text:find("ptx.do_while(L.loop1, function()\n", 1, true), text)
    assert.truthy(text:find("\n      return p[2]\n    end)\n", 1, true), text)
    -- the waits: the file's labels and predicates, the opcode and bra.uni where they differ
    assert.truthy(text:find('ptx.mbarrier_wait(ptx.addr(ptx.sym "bar"), 0, { label = L["$L__3"], pred = p[3] })', 1, true), text)
    assert.truthy(text:find('ptx.mbarrier_wait(ptx.addr(ptx.sym "bar"), r[1], { label = L["$L__4"], pred = p[4], op = "mbarrier.try_wait.parity.acquire.cta.shared::cta.b64", uni = true })', 1, true), text)
    -- editing the loop body edits the loop: an instruction added before the branch
    local edited = text:gsub("\n      return p%[2%]\n", "\n      ptx.bar.sync(0)\n      return p[2]\n")
    local out, err2, rc2 = H.ptxlua { H.write(H.tmpfile(".lua"), edited), "--print-ptx" }
    assert(rc2 == 0, err2)
    assert.truthy(out:find("\tbar.sync \t0;\n\t@%p2 bra \t$L__loop1;\n", 1, true), out)
    if H.ptxas_path() then
      local aok, aout = H.assemble(out, "sm_90a")
      assert(aok, "ptxas: " .. tostring(aout))
    end
  end)

  it("folds nested loops whose bodies are longer than one Lua function holds", function()
    local lines = { ".version 8.0\n.target sm_90a\n.address_size 64\n\n.visible .entry big()\n{\n",
      "\t.reg .b32 \t%r<9>;\n\t.reg .pred \t%p<3>;\n\n$L__BB0_1:\n" }
    local function body(n)   -- n instructions that do not step (no run folds them)
      for i = 0, n - 1 do
        lines[#lines + 1] = string.format("\tadd.s32 \t%%r%d, %%r%d, %d;\n", 1 + (i * 3) % 7, 1 + (i * 5) % 7, (i * i) % 11)
      end
    end
    body(700)
    lines[#lines + 1] = "$L__BB0_2:\n"
    body(400)
    lines[#lines + 1] = "\tsetp.lt.s32 \t%p2, %r1, 5;\n\t@%p2 bra \t$L__BB0_2;\n\tsetp.lt.s32 \t%p1, %r1, 5;\n\t@!%p1 bra.uni \t$L__BB0_1;\n\tret;\n}\n"
    local ptx = H.write(H.tmpfile(".ptx"), table.concat(lines))
    local text, notes, same = sugar(ptx)
    assert.is_true(same)
    assert.are.equal("", notes)
    local _, _, loops = counts(text)
    assert.are.equal(2, loops)
    -- the inner loop's condition is returned from its body, after the body's last chunk closes
    assert.truthy(text:find("\n        end)\n        return p[2]\n      end)\n", 1, true), text)
    assert.truthy(text:find("\n      return p[1]:inv()\n    end, { uni = true })\n", 1, true), text)
  end)

  it("folds runs that step a register index or an immediate into Lua loops, only where nothing sits between", function()
    -- a run of four loads, three adds whose immediates step by -8, four movs a comment splits, two
    -- stores (two: not a run)
    local src = H.fixture "sugar/runs.ptx"
    local ptx = H.write(H.tmpfile(".ptx"), src)
    local text, notes, same = sugar(ptx)
    assert.is_true(same)
    assert.are.equal("", notes)
    assert.truthy(text:find("for i = 0, 3 do ptx.ld.global.f32(f[1 + i], ptx.addr(rd[1], 4 * i)) end", 1, true), text)
    assert.truthy(text:find("for i = 0, 2 do ptx.add.s32(r[1 + 2 * i], r[2 + 2 * i], 16 - 8 * i) end", 1, true), text)
    assert.truthy(text:find("ptx.mov.b32(r[8], 2)\n    sugar.eol", 1, true), text)
    assert.falsy(text:find("for i = 0, 1 do", 1, true))
    assert.falsy(text:find("ptx.mov.b32(r[7 + i]", 1, true))
    local _, _, _, runs = counts(text)
    assert.are.equal(2, runs)
    -- a longer loop is a longer run: six loads
    local edited = text:gsub("for i = 0, 3 do ptx%.ld", "for i = 0, 5 do ptx.ld")
    local out, err, rc = H.ptxlua { H.write(H.tmpfile(".lua"), edited), "--print-ptx" }
    assert(rc == 0, err)
    assert.truthy(out:find("\tld.global.f32 \t%f5, [%rd1+16];\n\tld.global.f32 \t%f6, [%rd1+20];\n\tadd.s32", 1, true), out)
  end)

  it("writes a folded run one statement at a time when the DSL refuses it, and keeps only the refused ones", function()
    -- setmaxnreg needs sm_90a: on sm_90 the DSL refuses it (a target check made only by running)
    local src = H.fixture "sugar/setmaxnreg_run.ptx"
    local ptx = H.write(H.tmpfile(".ptx"), src)
    local text, notes, same = sugar(ptx)
    assert.is_true(same)
    local lines = note_lines(notes)
    assert.are.equal(2, #lines, notes)
    -- the three are calls of one shape: one refusal keeps them all (one check, not one a statement)
    assert.truthy(lines[2]:find("^" .. ptx:gsub("%p", "%%%0") .. ":11: note: kept verbatim: 3 statements: the DSL refuses it: .*setmaxnreg"), notes)
    assert.truthy(text:find("ptx.mov.u32(r[1], 1)\n    ptx.mov.u32(r[2], 2)\n", 1, true), text)
  end)

  it("round-trips every corpus file through the sugared script (the small ones under sanitizers)", function()
    if not H.read(CORPUS .. "/PTXAS-VERDICTS.tsv") then return H.pending("the corpus is absent (../shared/corpus)") end
    local all, paths = 0, {}
    local small = sanitized()
    for line in H.read(CORPUS .. "/PTXAS-VERDICTS.tsv"):gmatch("[^\n]+") do
      local f = line:match("^([^#\t][^\t]*)\t")
      if f then
        all = all + 1
        local size = #(H.read(CORPUS .. "/" .. f) or "")
        if not small or size < 20000 then paths[#paths + 1] = CORPUS .. "/" .. f end
      end
    end
    assert.are.equal(219, all)
    if small then assert(#paths >= 180, #paths .. " files under 20 KB") else assert.are.equal(219, #paths) end
    local bad, calls, kept, loops, runs = {}, 0, 0, 0, 0
    for _, r in ipairs(sugar_all(paths)) do
      if not r.same then bad[#bad + 1] = r.path .. ": " .. r.why end
      local c, k, l, n = counts(r.text)
      calls, kept, loops, runs = calls + c, kept + k, loops + l, runs + n
    end
    assert.are.same({}, bad)
    assert(calls > kept, string.format("%d DSL calls, %d statements kept as text", calls, kept))
    -- loops and repeated runs of the corpus are folded (docs/performance.md has the counts)
    assert(loops >= (small and 20 or 30), loops .. " loops folded")
    assert(runs >= (small and 40 or 100), runs .. " runs folded")
  end)

  it("writes inline-asm-heavy nvcc output (bench/sugar_standin.cu: blocks, bare names, wait loops) as DSL blocks, fast", function()
    local _, _, nrc = H.sh("command -v nvcc")
    if nrc ~= 0 then
      assert(not H.ci, "nvcc is required under CI=true")
      return H.pending("nvcc is not installed")
    end
    -- twelve instantiations of the attention loop: about 1 MB of PTX, some 19,000 inline-asm blocks
    local dir = H.tmpdir()
    local inc = {}
    for k = 1, 12 do inc[#inc + 1] = string.format("template __global__ void attn<%d, %d>(const half *, const half *, float *, float, int);\n", 20 + k, k) end
    H.write(dir .. "/attn_instances.inc", table.concat(inc))
    local _, cerr, crc = H.sh("cp " .. H.shq(H.root .. "/bench/sugar_standin.cu") .. " " .. H.shq(dir) .. " && env -u LD_PRELOAD nvcc -ptx -arch=sm_90a "
                              .. H.shq(dir .. "/sugar_standin.cu") .. " -o " .. H.shq(dir .. "/standin.ptx"))
    assert(crc == 0, cerr)
    local ptx = dir .. "/standin.ptx"
    local src = H.read(ptx)
    local nblocks = select(2, src:gsub("\n[ \t]+{", ""))   -- every `{` statement (the bodies' own are not indented)
    assert(#src > 500000 and nblocks > 1000, #src .. " bytes, " .. nblocks .. " blocks")
    local R = dofile(H.root .. "/bench/runstat.lua")
    local lua = dir .. "/standin.lua"
    local tp = R.run_once({ H.exe, "--from-ptx", ptx, "-o", dir .. "/plain.lua" }, true)
    local ts = R.run_once({ H.exe, "--from-ptx", ptx, "--sugar", "-o", lua }, true)
    assert.are.equal(0, ts.status)
    local _, notes, rc = H.ptxlua { "--from-ptx", ptx, "--sugar", "-o", lua }
    assert.are.equal(0, rc, notes)
    local text = H.read(lua)
    -- every block is a DSL block: nothing kept as written, the wait loops folded in their blocks
    assert.are.equal("", notes)
    assert.are.equal(nblocks, select(2, text:gsub("do sugar%.open%(", "")))
    assert.truthy(text:find('local P1 = sugar.reg("pred", { "P1", bare = true }, ".reg .pred                P1;\\n")', 1, true), text:sub(1, 3000))
    assert.truthy(text:find('local lo, hi = sugar.reg("b16", { "lo", bare = true }, "  .reg .b16 lo, hi;\\n"), sugar.reg("b16", { "hi", bare = true }, "")', 1, true), text:sub(1, 3000))
    assert.truthy(text:find('ptx.do_while(L1["LAB_WAIT"], function()', 1, true), text:sub(1, 3000))
    local back, berr, brc = H.ptxlua { lua, "--print-ptx" }
    assert.are.equal(0, brc, berr)
    assert(back == src, "the sugared stand-in does not print the file back")
    if H.ptxas_path() then assert(H.assemble(back, "sm_90a")) end
    -- linear: within a few times the plain transpile (the quadratic writer took 90 times as long;
    -- docs/performance.md has the figures, this only guards the order of magnitude)
    assert(ts.cpu < 12 * tp.cpu + 0.3, string.format("sugar %.3f s, plain %.3f s", ts.cpu, tp.cpu))
  end)

  it("sums up what it keeps as written: one line per reason, the most first, with the lines of its first places", function()
    local body = {}
    for i = 1, 7 do   -- written differently, in 7 places between the statements the DSL writes
      body[#body + 1] = "\tadd.u32 \t%r1, %r2, " .. i .. ";\n"
      body[#body + 1] = "\tadd.u32 %r1,%r2, " .. i .. ";\n"
    end
    for _ = 1, 2 do body[#body + 1] = "\tshfl.sync.bfly.b32 \t%r1, %r2, 16, 31, 4294967296;\n" end   -- refused, 1 place
    local src = ".version 8.0\n.target sm_90a\n.address_size 64\n\n.visible .entry k()\n{\n\t.reg .b32 \t%r<3>;\n\n" .. table.concat(body) .. "\tret;\n\n}\n"
    local ptx = H.write(H.tmpfile(".ptx"), src)
    local _, notes, same = sugar(ptx)
    assert.is_true(same)
    local lines = note_lines(notes)
    assert.are.same({
      ptx .. ": note: kept verbatim: 9 of 18 statements, for 2 reasons:",
      ptx .. ":10: note: kept verbatim: 7 statements in 7 places (lines 10, 12, 14, 16, 18, ...): written differently from the printer's layout (spacing or operand spelling)",
      ptx .. ":23: note: kept verbatim: 2 statements: the DSL refuses it: operand 5 of 'shfl.sync.bfly.b32': immediate 4294967296 does not fit .u32",
    }, lines)
  end)

  it("--sugar goes with --from-ptx only", function()
    local _, err, rc = H.ptxlua { "--lint", H.write(H.tmpfile(".ptx"), ".version 8.0\n.target sm_90a\n"), "--sugar" }
    assert.are.equal(2, rc)
    assert.truthy(err:find("--sugar goes with --from-ptx", 1, true), err)
  end)
end)
