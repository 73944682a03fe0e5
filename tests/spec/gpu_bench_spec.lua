-- gpu_bench_spec.lua -- bench/gpu/run.sh, the GPU check, proven without a GPU: `--device emu` runs
-- every case of bench/gpu/cases/ on the CPU emulator at the case's `emu` configs (the case's own
-- inputs, poisoning, reference, tensor maps and tolerance), and every check must pass; a case is
-- pending only while the emulator refuses its kernel as not emulated (the Blackwell ones, until
-- tcgen05 is emulated), which is checked too. Also: a wrong
-- reference and a case without `emu` configs fail it (the harness can fail), `emu_pending` lists a
-- case without running it, and the GPU mode without a driver exits 2 with "no CUDA driver".
--
-- Every case runs in every build: this file takes about 2.5 s in a Release build and about 8 s in
-- the ASan + UBSan Debug build on 2 shared cores (the emu configs are small: a few hundred rows and
-- columns; see bench/gpu/README.md), so no subset is needed under ASan.
local H = require "helper"
local shq = H.shq

local RUN = H.root .. "/bench/gpu/run.sh"
local CASES = H.root .. "/bench/gpu/cases"

local function run(args, env)
  return H.sh((env or "") .. " BUILD=" .. shq(H.build) .. " " .. shq(RUN) .. " " .. args)
end

-- the case names (file names without .lua) and the number of emu configs of each
local function cases()
  local out = H.sh("ls " .. shq(CASES))
  local list = {}
  for name in out:gmatch("([%w_]+)%.lua") do
    local c = dofile(CASES .. "/" .. name .. ".lua")
    list[#list + 1] = { name = name, emu = c.emu, pending = c.emu_pending }
  end
  return list
end

-- the rows of the table: { case =, config =, rel =, tol =, line =, check = } (a row line: the case,
-- its NAME=VALUE words, then the columns; the next line, indented, is its check)
local function rows(out)
  local r, last = {}, nil
  for line in out:gmatch("[^\n]+") do
    local check = line:match("^    (.*)$")
    if check then
      if last then last.check = check; last = nil end
    elseif line:match("^[%w_]+%s") and not line:match("^case%s") and not line:match("^note:") and not line:match("^timing:") then
      local w = {}
      for word in line:gmatch("%S+") do w[#w + 1] = word end
      local i, config = 2, {}
      while w[i] and (w[i]:find("=", 1, true) or w[i] == "-") do config[#config + 1] = w[i]; i = i + 1 end
      if #config > 0 then
        last = { case = w[1], config = table.concat(config, " "), rel = tonumber(w[i]), tol = tonumber(w[i + 1]), line = line }
        r[#r + 1] = last
      end
    end
  end
  return r
end

describe("bench/gpu/run.sh --device emu", function()
  it("runs every case on the emulator, with its opt-in checks (races, uninitialized memory), and every check passes", function()
    local list = cases()
    assert.is_true(#list >= 10, "cases found: " .. #list)
    local out, err, rc = run("--device emu --checks")
    assert.are.equal(0, rc, out .. err)
    assert.truthy(out:find("timing: skipped", 1, true), out)
    assert.truthy(out:find("; all checks passed", 1, true), out)
    local got = rows(out)
    local want = 0
    for _, c in ipairs(list) do
      assert.are.equal("table", type(c.emu), c.name .. " has no emu configs")
      if c.pending then
        -- pending only while the emulator refuses the kernel: run with --pending, each emu config
        -- must end at an instruction the emulator names as not emulated (once it runs, this fails)
        assert.truthy(tostring(c.pending):find("is not emulated", 1, true), c.name .. " is pending on the emulator: " .. tostring(c.pending))
        local pout, perr, prc = run("--device emu --pending " .. c.name)
        assert.are.equal(1, prc, pout .. perr)
        local n = 0
        for _, r in ipairs(rows(pout)) do
          if r.case == c.name then
            n = n + 1
            assert.truthy(r.check and r.check:match("^ERROR .*: error: ") and r.check:find(" is not emulated", 1, true),
                          r.line .. "\n" .. tostring(r.check))
          end
        end
        assert.are.equal(#c.emu, n, c.name .. ": one row per emu config expected\n" .. pout)
        goto next
      end
      want = want + #c.emu
      local n = 0
      for _, r in ipairs(got) do
        if r.case == c.name then
          n = n + 1
          -- "ok (1 set)", never a pending or skipped one, and a real error below its tolerance
          assert.truthy(r.check and r.check:match("^ok %(%d+ sets?"), r.line .. "\n" .. tostring(r.check))
          assert.truthy(r.rel and r.tol and r.rel <= r.tol, r.line)
          assert.truthy(r.line:find("emulated in", 1, true), r.line)
        end
      end
      assert.are.equal(#c.emu, n, c.name .. ": one row per emu config expected\n" .. out)
      ::next::
    end
    -- the pending cases' rows say so (one each), the others' are checks
    local pend = 0
    for _, r in ipairs(got) do if r.check and r.check:find("^pending on the emulator: ") then pend = pend + 1 end end
    assert.are.equal(want + pend, #got, out)
  end)

  it("fails on a wrong reference and on a case without emu configs; lists a pending one", function()
    local dir = H.tmpfile("-cases")
    H.sh("mkdir -p " .. shq(dir))
    local src = H.read(CASES .. "/vector_add.lua")
    -- the reference of out = x + y turned into x - y: the check must catch it
    local wrong = src:gsub("In%.x%[i%] %+ In%.y%[i%]", "In.x[i] - In.y[i]")
    assert.are_not.equal(src, wrong)
    H.write(dir .. "/wrong_ref.lua", wrong)
    H.write(dir .. "/no_emu.lua", (src:gsub("\n%s*emu = [^\n]*", "")))
    H.write(dir .. "/later.lua", (src:gsub("return {", "return {\n  emu_pending = \"waiting for a fix\",", 1)))
    H.write(dir .. "/right.lua", src)
    local out, err, rc = run("--device emu --cases " .. shq(dir))
    assert.are.equal(1, rc, out .. err)
    local by = {}
    for _, r in ipairs(rows(out)) do by[r.case] = by[r.case] or r end
    assert.truthy(by.wrong_ref and by.wrong_ref.check:match("^FAIL out: rel err [%d.e+-]+ > 1e%-05$"), out)
    assert.truthy(by.no_emu and by.no_emu.check:find("no_emu.lua: error: the case has no 'emu' configs", 1, true), out)
    assert.truthy(by.later and by.later.check == "pending on the emulator: waiting for a fix", out)
    assert.truthy(by.right and by.right.check:match("^ok %(1 set%)"), out)
    assert.truthy(out:find("; FAILED (1 case pending)", 1, true), out)
  end)
end)

describe("bench/gpu/run.sh sampled GEMM references (no cuBLAS, large shapes)", function()
  -- --cpu-macs 1000 makes every emu GEMM "too large for the CPU": the reference is then sampled
  -- (bench/gpu/README.md, "Host time"), exactly as a GPU run without cuBLAS samples 8192^3
  it("checks the kernels on sampled elements, and a wrong sampled reference fails", function()
    local out, err, rc = run("--device emu --cpu-macs 1000 gemm_mma grouped_gemm")
    assert.are.equal(0, rc, out .. err)
    local got = rows(out)
    assert.are.equal(4, #got, out)
    for _, r in ipairs(got) do
      local n, total = r.check:match("^ok %(1 set%), sampled cpu reference %(C: (%d+) of (%d+) elements%)$")
      assert.truthy(n, r.line .. "\n" .. tostring(r.check))
      assert.truthy(tonumber(n) >= 4096 and tonumber(n) <= tonumber(total) * 4, r.check)
      assert.truthy(r.rel and r.tol and r.rel <= r.tol and r.rel > 0, r.line)
    end
    local dir = H.tmpfile("-sampled")
    H.sh("mkdir -p " .. shq(dir))
    local src = H.read(CASES .. "/gemm_mma.lua")
    -- the reference's B read as K x N instead of N x K: every sampled element is wrong
    local wrong = src:gsub('K = t%.K, b_layout = "NK" }\n  end', 'K = t.K, b_layout = "KN" }\n  end')
    assert.are_not.equal(src, wrong)
    H.write(dir .. "/wrong_layout.lua", wrong)
    out, err, rc = run("--device emu --cpu-macs 1000 --cases " .. shq(dir))
    assert.are.equal(1, rc, out .. err)
    got = rows(out)
    assert.are.equal(2, #got, out)
    for _, r in ipairs(got) do assert.truthy(r.check:match("^FAIL C: rel err [%d.e+-]+ > 0%.0001, sampled cpu reference"), r.check) end
  end)
end)

describe("bench/gpu/run.sh flash attention's sampled reference", function()
  -- at the GPU shapes the case computes 192 random rows of O and LSE on the CPU (ctx.sample);
  -- --cpu-macs 1000 takes that path at the emulator's shapes
  it("checks the sampled rows, and fails when the reference's scale is off by 1%", function()
    local out, err, rc = run("--device emu --cpu-macs 1000 flash_attention")
    assert.are.equal(0, rc, out .. err)
    local got = rows(out)
    assert.are.equal(3, #got, out)
    local sampled = 0
    for _, r in ipairs(got) do
      assert.truthy(r.check:match("^ok %(1 set, worst O%)"), r.check)
      local nl, tl, no, to = r.check:match("sampled cpu reference %(LSE: (%d+) of (%d+) elements%) %(O: (%d+) of (%d+) elements%)$")
      if nl then                          -- 192 whole rows, no repeats (a head of 192 rows or fewer: all)
        nl, tl, no, to = tonumber(nl), tonumber(tl), tonumber(no), tonumber(to)
        assert.truthy(nl == 192 and nl < tl and no == nl * (to / tl), r.check)
        sampled = sampled + 1
      end
      assert.truthy(r.rel and r.rel <= r.tol and r.rel > 0, r.line)
    end
    assert.are.equal(2, sampled, out)
    local dir = H.tmpfile("-fa")
    H.sh("mkdir -p " .. shq(dir))
    local src = H.read(CASES .. "/flash_attention.lua")
    -- (a wrong mask such as `i + 1` would read past the FFI arrays: keep the mutant in bounds)
    local wrong = src:gsub("local scale = 1 / math%.sqrt%(D%)", "local scale = 1.01 / math.sqrt(D)")
    assert.are_not.equal(src, wrong)
    H.write(dir .. "/flash_attention.lua", wrong)
    out, err, rc = run("--device emu --cpu-macs 1000 --cases " .. shq(dir))
    assert.are.equal(1, rc, out .. err)
    assert.truthy(out:find("FAIL", 1, true), out)
  end)
end)

describe("bench/gpu/run.sh on a GPU", function()
  it("exits 2 with 'no CUDA driver' when there is no driver", function()
    local out, err, rc = run("--quick", "PTXLUA_LIBCUDA=/nonexistent")
    assert.are.equal(2, rc, out .. err)
    assert.truthy(out:match("^no CUDA driver: "), out)
    assert.are.equal(1, select(2, out:gsub("\n", "")), "it prints one line and does nothing else:\n" .. out)
  end)
end)
