-- sugar_scale_spec.lua -- `ptxlua --from-ptx FILE.ptx --sugar` at scale (docs/performance.md): files
-- past each limit LuaJIT puts on one function (65536 constants, 200 locals, deep nesting) round-trip
-- byte for byte with nothing fallen back to "the whole file" verbatim; a declared range costs what
-- its used registers cost; and the time grows linearly (a file twice as large, measured in the
-- same run: well under 4x the time). Small sizes of bench/ptx_shapes.lua's shapes (the bench runs
-- them at multi-MB sizes).
local H = require "helper"
package.path = H.root .. "/bench/?.lua;" .. package.path
local SH = require "ptx_shapes"

local function sanitized()
  local cache = H.read(H.build .. "/CMakeCache.txt") or ""
  return cache:find("PTXLUA_SANITIZE:BOOL=ON", 1, true) ~= nil
end

-- sugar the PTX text: the script's text and notes; asserts the round trip and no whole-file fallback
local function roundtrip(what, text)
  local ptx = H.write(H.tmpfile(".ptx"), text)
  local lua = H.tmpfile(".lua")
  local _, notes, rc = H.ptxlua { "--from-ptx", ptx, "--sugar", "-o", lua }
  assert(rc == 0, what .. ": --sugar failed: " .. notes)
  assert.falsy(notes:find("the whole file", 1, true), what .. ": " .. notes)
  local out, err, rc2 = H.ptxlua { lua, "--print-ptx" }
  assert(rc2 == 0, what .. ": the sugared script failed: " .. err)
  assert(out == text, what .. ": the sugared round trip differs")
  return H.read(lua), notes, lua
end

-- n tiny kernels, each after a comment of its own (four distinct constants each in the main chunk)
local function tiny_kernels(n)
  local o = { ".version 8.5\n.target sm_90a\n.address_size 64\n\n" }
  for i = 0, n - 1 do
    o[#o + 1] = string.format("\t// .globl\tk_%d\n.visible .entry k_%d(\n\t.param .u32 k_%d_p\n)\n{\n\tret;\n\n}\n", i, i, i)
  end
  return table.concat(o)
end

-- CPU seconds (user + sys) of the command line, the least of `runs` runs
local function cpu(cmd, runs)
  local best = math.huge
  for _ = 1, runs do
    local _, err, rc = H.sh("/usr/bin/time -f '@cpu %U %S' " .. cmd .. " > /dev/null")
    assert(rc == 0, err)
    local u, s = err:match("@cpu ([%d.]+) ([%d.]+)")
    best = math.min(best, tonumber(u) + tonumber(s))
  end
  return best
end

describe("ptxlua --from-ptx --sugar at scale", function()
  it("writes a file of 20000 kernels (past 65536 constants in one Lua function) in groups, byte-identical", function()
    local text = tiny_kernels(20000)
    local script, _, lua = roundtrip("20000 kernels", text)
    -- the main chunk is cut into groups; the same script without them is past LuaJIT's limit
    local groups = select(2, script:gsub("\nsugar%.block%(function%(%)\n", ""))
    assert(groups >= 2, "no groups in the main chunk")
    local flat = script:gsub("\nsugar%.block%(function%(%)\n", "\n"):gsub("\nend%)\n", "\n")
    local _, err, rc = H.ptxlua { H.write(lua .. ".flat.lua", flat), "--print-ptx" }
    assert.are_not.equal(0, rc)
    assert.truthy(err:find("more than 65536 constants", 1, true), err)
  end)

  it("round-trips every shape of bench/ptx_shapes.lua past Lua's limits, keeping no whole file", function()
    -- huge: one kernel of more than 65536 distinct numbers (immediates, register numbers); blocks: nesting 30 deep; labels: a
    -- kernel of thousands of labels and far branches; inline_asm: thousands of scoped blocks
    local sizes = { huge = 3.6e6, blocks = 3e5, labels = 3e5, inline_asm = 3e5, regs = 3e4, params = 2e5,
                    funcs = 2e5, kernels = 1e5, vars = 2e5, debug = 1e5, loc = 1e5, longlines = 1e5 }
    for _, shape in ipairs(SH.names) do
      local text = SH.file(shape, sizes[shape] or 1e5)
      local script = roundtrip(shape, text)
      if shape == "huge" then
        local imms = {}
        local n = 0
        for v in text:gmatch("%d+") do if not imms[v] then imms[v] = true; n = n + 1 end end
        for v in text:gmatch("0[fd]%x+") do if not imms[v] then imms[v] = true; n = n + 1 end end
        assert(n > 65536, "huge: only " .. n .. " distinct numbers")
        assert.truthy(script:find("ptx%.[%w.]+%(r%[%d+%]"), "huge: no DSL calls")
      end
    end
  end)

  it("holds a kernel of 300 register names and a block of 250 (past 200 Lua locals)", function()
    local o = { ".version 8.5\n.target sm_90a\n.address_size 64\n\n.visible .entry many(\n\t.param .u64 many_param_0\n)\n{\n" }
    for i = 0, 299 do o[#o + 1] = string.format("\t.reg .b32 \t%%a%d;\n", i) end
    o[#o + 1] = "\n"
    for i = 0, 299 do o[#o + 1] = string.format("\tmov.u32 \t%%a%d, %d;\n", i, i) end
    o[#o + 1] = "\t{\n"
    for i = 0, 249 do o[#o + 1] = string.format("\t.reg .b32 \tt%d;\n", i) end
    for i = 0, 249 do o[#o + 1] = string.format("\tadd.u32 \tt%d, %%a%d, 1;\n", i, i) end
    o[#o + 1] = "\t}\n\tret;\n\n}\n"
    local script = roundtrip("300 registers", table.concat(o))
    assert.truthy(script:find("ptx.mov.u32(", 1, true))
  end)

  it("makes a declared range's registers as they are used: five %r<100000> in each of 200 kernels", function()
    local text = SH.generate("regs", 200)
    assert.truthy(text:find("%r<100000>", 1, true))
    local ptx = H.write(H.tmpfile(".ptx"), text)
    local t = cpu(H.shq(H.exe) .. " --from-ptx " .. H.shq(ptx) .. " --sugar -o " .. H.shq(H.tmpfile(".lua")), 1)
    roundtrip("regs", text)
    -- 10^8 registers made one by one take minutes; the used ones, a fraction of a second
    assert(t < (sanitized() and 20 or 5), string.format("regs: %.2f s", t))
  end)

  it("keeps an enclosing range's register made inside a block alive after it, and refuses one a block hides", function()
    local head = 'local ptx = require "ptxlua"\nlocal sugar = require "ptxlua.sugar"\nlocal doc = sugar.module "t"\n' ..
                 'doc:target_is "sm_90a"\ndoc:text ".version 8.5\\n.target sm_90a\\n.address_size 64\\n\\n"\n' ..
                 'doc:kernel {\n  name = "k",\n  params = { {"k_param_0", "u64"} },\n  body = function(t, ...)\n' ..
                 '    local r = sugar.regs("b32", 100000, "r")\n    sugar.block(function()\n    ptx.mov.u32(r[1], 1)\n'
    local tail = "    end)\n  end,\n}\ndoc:done()\n"
    -- %r99999 is first used inside the block: it is the kernel's, alive after the block
    local ok = H.write(H.tmpfile(".lua"), head ..
      "    do sugar.open()\n      ptx.add.u32(r[99999], r[1], 2)\n    sugar.close() end\n" ..
      "    ptx.add.u32(r[2], r[99999], 3)\n" .. tail)
    local out, err, rc = H.ptxlua { ok, "--print-ptx" }
    assert(rc == 0, err)
    assert.truthy(out:find("\t{\n\tadd.u32 \t%r99999, %r1, 2;\n\t}\n\tadd.u32 \t%r2, %r99999, 3;\n", 1, true), out)
    -- %r7 first used inside a block that declares %r<10>: it would print as the block's own
    local bad = H.write(H.tmpfile(".lua"), head ..
      '    do sugar.open()\n      local q = sugar.regs("b32", 10, "r")\n      ptx.add.u32(q[1], r[7], 2)\n' ..
      "    sugar.close() end\n" .. tail)
    local _, err2, rc2 = H.ptxlua { bad, "--print-ptx" }
    assert.are.equal(1, rc2)
    assert.truthy(err2:find(":15: error: %r7 here is a register from outside this ptx.scope block", 1, true), err2)
  end)

  -- the check script --sugar ran last (PTXLUA_SUGAR_CHECK names where it goes): how many functions
  -- it traces, how many it checks only the names of
  local function check_script(text)
    local ptx = H.write(H.tmpfile(".ptx"), text)
    local ck = H.tmpfile(".check.lua")
    local _, err, rc = H.sh("PTXLUA_SUGAR_CHECK=" .. H.shq(ck) .. " " .. H.shq(H.exe) .. " --from-ptx " .. H.shq(ptx) ..
                            " --sugar -o " .. H.shq(H.tmpfile(".lua")))
    assert(rc == 0, err)
    local s = H.read(ck) or ""
    return select(2, s:gsub("\ndoc:kernel {", "")) + select(2, s:gsub("\ndoc:func {", "")), select(2, s:gsub("\ndoc:check_names {", ""))
  end

  it("checks a call once whatever variable it names: kernels alike but for their variables trace once", function()
    -- each unit of the vars shape: a kernel reading its own g_i, c_i, sp_i, s_i (the same declarations)
    local t40, n40 = check_script(SH.generate("vars", 40))
    local t160, n160 = check_script(SH.generate("vars", 160))
    assert(t160 <= t40 + 2, string.format("40 kernels: %d traced; 160 kernels: %d traced", t40, t160))
    assert(n160 >= 160 - t160 and n160 > 100, string.format("160 kernels: %d traced, %d names checked", t160, n160))
    roundtrip("vars", SH.generate("vars", 160))
  end)

  it("checks a run, a nested block and a store's offset once per shape: the check stays the same size", function()
    -- params: runs of ld.param / add per kernel; blocks: sibling blocks nested up to 30 deep, each
    -- storing at its own offset; regs: kernels alike but for their integers. Four times the units,
    -- (nearly) the same functions traced
    for _, c in ipairs { { "params", 10, 40 }, { "blocks", 256, 1024 }, { "regs", 10, 40 } } do
      local shape, a, b = c[1], c[2], c[3]
      local ta = check_script(SH.generate(shape, a))
      local tb, nb = check_script(SH.generate(shape, b))
      assert(tb <= ta + 2, string.format("%s: %d units: %d traced; %d units: %d traced (%d by name)", shape, a, ta, b, tb, nb))
      assert(tb < (shape == "blocks" and 3 or b / 4), string.format("%s: %d units: %d traced", shape, b, tb))
    end
  end)

  it("checks a loop once per shape and holds only the labels it uses: many loops, the same check", function()
    -- the labels shape: one kernel of two-trip loops, forward branches and far branches; each loop
    -- its own label (a label's name is not the loop's shape). Four times the loops, (nearly) the
    -- same loops and labels in the check script
    local function loops(n)
      local ptx = H.write(H.tmpfile(".ptx"), SH.generate("labels", n))
      local ck = H.tmpfile(".check.lua")
      local _, err, rc = H.sh("PTXLUA_SUGAR_CHECK=" .. H.shq(ck) .. " " .. H.shq(H.exe) .. " --from-ptx " .. H.shq(ptx) ..
                              " --sugar -o " .. H.shq(H.tmpfile(".lua")))
      assert(rc == 0, err)
      local s = H.read(ck) or ""
      local tab = s:match("local L = sugar%.labels {([^}]*)}") or ""
      return select(2, s:gsub("ptx%.do_while%(", "")), select(2, tab:gsub('"', "")) / 2
    end
    local la, na = loops(200)
    local lb, nb = loops(800)
    assert(lb <= la + 4 and lb < 40, string.format("200 loops: %d traced; 800 loops: %d traced", la, lb))
    assert(nb <= na + 8 and nb < 80, string.format("labels in the check: %d of 200 units, %d of 800", na, nb))
    roundtrip("labels", SH.generate("labels", 800))
  end)

  it("keeps a loop in the check when a branch outside it names its label (a run's branch to it)", function()
    -- the second loop is of the first's shape with nothing new inside, but the run before it (traced
    -- whole: its shape is new) branches to its label: left out, the label would be undefined in the
    -- check, and the run written one call at a time in a second round
    local text = ".version 8.5\n.target sm_90a\n.address_size 64\n\n.visible .entry k(\n\t.param .u64 k_param_0\n)\n{\n" ..
      "\t.reg .pred \t%p<4>;\n\t.reg .b32 \t%r<6>;\n\n\tmov.u32 \t%r4, 0;\n\tmov.u32 \t%r3, 0;\n" ..
      "$L__BB0_10:\n\tadd.s32 \t%r3, %r3, 1;\n\tsetp.lt.u32 \t%p1, %r3, 2;\n\t@%p1 bra \t$L__BB0_10;\n" ..
      "\tadd.s32 \t%r4, %r4, 1;\n\t@%p1 bra \t$L__BB0_12;\n\tadd.s32 \t%r4, %r4, 2;\n\t@%p1 bra \t$L__BB0_12;\n" ..
      "\tadd.s32 \t%r4, %r4, 3;\n\t@%p1 bra \t$L__BB0_12;\n\tmov.u32 \t%r3, 0;\n" ..
      "$L__BB0_12:\n\tadd.s32 \t%r3, %r3, 1;\n\tsetp.lt.u32 \t%p1, %r3, 2;\n\t@%p1 bra \t$L__BB0_12;\n\tret;\n\n}\n"
    local script = roundtrip("a run's branch to a loop", text)
    assert.truthy(script:find("    for i = 0, 2 do\n      ptx.add.s32(r[4], r[4], 1 + i)\n      ptx.at(p[1]).bra(L.BB0_12)\n    end\n", 1, true), script)
    assert.truthy(script:find("ptx.do_while(L.BB0_12, function()", 1, true), script)
  end)

  it("takes time linear in the file: twice the kernels, well under four times the time", function()
    if sanitized() then return H.pending("timed in the release build only") end
    local a = H.write(H.tmpfile(".ptx"), tiny_kernels(12000))
    local b = H.write(H.tmpfile(".ptx"), tiny_kernels(24000))
    local function cmd(f) return H.shq(H.exe) .. " --from-ptx " .. H.shq(f) .. " --sugar -o " .. H.shq(H.tmpfile(".lua")) end
    -- interleaved, the least of three each: the load of a shared machine hits both alike
    local ta, tb = math.huge, math.huge
    for _ = 1, 3 do ta = math.min(ta, cpu(cmd(a), 1)); tb = math.min(tb, cpu(cmd(b), 1)) end
    assert(tb < 3.2 * math.max(ta, 0.05), string.format("12000 kernels %.2f s, 24000 kernels %.2f s", ta, tb))
  end)
end)
