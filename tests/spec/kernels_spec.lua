-- kernels_spec.lua -- every kernel in kernels/: printed by the ptxlua command at its defaults and at
-- uneven sizes, assembled by ptxas for its target (sm_90a; the Blackwell kernels *_sm100.lua for
-- sm_100a) with no spills; invalid template values fail with `file:line: error: ...` on the
-- kernel's own check; the small kernels' PTX at their defaults is pinned byte for byte in
-- tests/golden/<name>.ptx.
-- After an intended change to the PTX of a pinned kernel, regenerate the golden files with
--   PTXLUA_UPDATE_GOLDEN=1 BUILD=build tests/spec.sh tests/spec/kernels_spec.lua
-- and review the diff of tests/golden/ like code.
local H = require "helper"

local KDIR = H.root .. "/kernels/"
local GDIR = H.root .. "/tests/golden/"
local UPDATE = os.getenv("PTXLUA_UPDATE_GOLDEN") == "1"

-- template values to print and assemble each kernel file at: the defaults first, then uneven and
-- edge shapes (tails, short rows, partial tiles, the streaming path of the row kernels)
local SIZES = {
  ["vector_add.lua"] = { {}, { "N=1000" }, { "N=7", "BLOCK=32" } },
  ["rmsnorm.lua"] = { {}, { "N=1000" }, { "N=7", "B=3" }, { "N=100001", "B=5" }, { "N=65536", "BLOCK=1024" } },
  ["layernorm.lua"] = { {}, { "N=1000" }, { "N=7", "B=3" }, { "N=100001", "B=5" }, { "N=16384" } },
  ["softmax.lua"] = { {}, { "N=1000" }, { "N=7", "B=3" }, { "N=100001", "B=5" }, { "N=8190", "BLOCK=1024" } },
  -- the TMA row kernels take N a multiple of 4 up to what STAGES buffers fit in shared memory: one
  -- warp, partial last sweeps, rows read twice from shared memory (N = 20000), the largest row
  ["rmsnorm_tma.lua"] = { {}, { "N=1000", "B=3" }, { "N=4", "B=3" }, { "N=20000", "B=5", "ROWS=3" },
                          { "N=4100", "BLOCK=1024", "STAGES=4", "ROWS=16" }, { "N=29024" } },
  ["layernorm_tma.lua"] = { {}, { "N=1000", "B=3" }, { "N=4", "B=3" }, { "N=20000", "B=5", "ROWS=3" },
                            { "N=4100", "BLOCK=1024", "STAGES=4", "ROWS=16" }, { "N=29024" } },
  ["swiglu.lua"] = { {}, { "M=3", "N=7" }, { "M=1000", "N=1001", "UNROLL=3" }, { "M=8192", "N=8192", "BLOCK=128" } },
  ["gemm_mma.lua"] = { {}, { "M=1000", "N=1000", "K=1000" }, { "M=127", "N=33", "K=8" },
                       { "M=5000", "N=3001", "K=4104", "BM=128", "BN=64", "WM=64", "WN=64" },
                       { "M=96", "N=80", "K=88", "BM=64", "BN=64", "WM=32", "WN=32", "BK=16", "STAGES=4", "GROUP=1" } },
  ["gemm.lua"] = { {}, { "OUT=f32" }, { "M=200", "N=264", "K=136", "SMS=4" }, { "CLUSTER=1", "BN=128", "STAGES=6" },
                   { "M=1000", "N=1000", "K=1000", "BM=64", "BN=128", "CLUSTER=4", "STAGES=8", "OUT=f32" },
                   { "M=8", "N=8", "K=8", "BN=64", "STAGES=2" } },
  ["flash_attention.lua"] = { {}, { "CAUSAL=1" }, { "D=64" }, { "D=64", "CAUSAL=1", "BQ=64", "BKV=64", "STAGES=3" },
                              { "BH=3", "S=200", "CAUSAL=1" }, { "D=128", "STAGES=3", "SCALE=0.125" }, { "BKV=176" } },
  ["grouped_gemm.lua"] = { {}, { "G=3", "MTOT=200", "N=264", "K=136", "SMS=4" }, { "BM=64", "BN=128", "STAGES=6" },
                           { "G=64", "MTOT=5000", "N=1000", "K=1000", "BN=80", "STAGES=5" } },
  -- the Blackwell kernels (sm_100a): defaults, f32 out, clusters of 2 pairs (B multicast), partial
  -- tiles on every edge, the fewest stages, every tile width
  ["gemm_sm100.lua"] = { {}, { "OUT=f32" }, { "CLUSTER=4" }, { "M=300", "N=200", "K=136", "BN=64" },
                         { "BN=128", "STAGES=4", "CLUSTER=4", "OUT=f32" }, { "BN=192", "STAGES=6" },
                         { "M=8", "N=8", "K=8", "BN=64", "STAGES=2" }, { "M=5000", "N=3000", "K=1000", "BN=64", "OUT=f32", "CLUSTER=4" },
                         { "CLUSTER=1", "STAGES=4" }, { "CLUSTER=1", "BN=64", "M=300", "N=200", "K=136", "OUT=f32" },
                         { "GROUP=1" }, { "GROUP=3", "M=3000", "CLUSTER=4" } },
  ["gemm_fp8_sm100.lua"] = { {}, { "OUT=f32" }, { "CLUSTER=4" }, { "M=300", "N=200", "K=304" },
                             { "STAGES=3", "CLUSTER=4", "OUT=f32" }, { "M=16", "N=8", "K=16", "STAGES=2" },
                             { "CLUSTER=1", "STAGES=5" }, { "GROUP=3", "M=3000" } },
  ["grouped_gemm_sm100.lua"] = { {}, { "CLUSTER=4" }, { "G=3", "MTOT=600", "N=200", "K=136", "BN=64" },
                                 { "G=64", "MTOT=5000", "N=1000", "K=1000", "BN=128", "STAGES=4" },
                                 { "BN=192", "CLUSTER=4", "STAGES=5" }, { "CLUSTER=1", "BN=128", "STAGES=6" },
                                 { "G=3", "MTOT=600", "N=200", "K=136", "BN=64", "CLUSTER=1" } },
}

-- the target each kernel file is assembled for (sm_90a unless listed)
local ARCH = { ["gemm_sm100.lua"] = "sm_100a", ["gemm_fp8_sm100.lua"] = "sm_100a", ["grouped_gemm_sm100.lua"] = "sm_100a" }

-- invalid template values and the message each must give (a plain substring of it)
local INVALID = {
  ["vector_add.lua"] = { { { "BLOCK=0" }, "maxntid[1] must be a positive integer" },
                         { { "N=abc" }, "'abc' is not a number" } },
  ["rmsnorm.lua"] = { { { "N=0" }, "template N must be a whole number, at least 1 and below 1073741824" },
                      { { "VEC=3" }, "template VEC must be one of 1, 2, 4" },
                      { { "BLOCK=100" }, "BLOCK must be a multiple of 32" } },
  ["layernorm.lua"] = { { { "B=2.5" }, "template B must be a whole number from 1 to 2147483647" },
                        { { "BLOCK=2048" }, "template BLOCK must be a multiple of 32 from 32 to 1024 (got 2048)" } },
  ["softmax.lua"] = { { { "N=-4" }, "template N must be a whole number, at least 1 and below 1073741824" },
                      { { "N=2000000000" }, "a row of floats must be under 4 GiB (got 2000000000)" } },
  ["rmsnorm_tma.lua"] = { { { "N=1001" }, "template N must be a positive multiple of 4: a bulk copy moves whole 16-byte units" },
                          { { "N=7", "B=3" }, "template N must be a positive multiple of 4" },
                          { { "N=29028" }, "over the 232448 (227 KB) of a block" },
                          { { "STAGES=5" }, "template STAGES must be a whole number from 1 to 4 (got 5)" },
                          { { "ROWS=0" }, "template ROWS must be a whole number from 1 to 16 (got 0)" },
                          { { "BLOCK=100" }, "BLOCK must be a multiple of 32" } },
  ["layernorm_tma.lua"] = { { { "N=1002" }, "template N must be a positive multiple of 4" },
                            { { "N=16384", "STAGES=4" }, "over the 232448 (227 KB) of a block" },
                            { { "ROWS=17" }, "template ROWS must be a whole number from 1 to 16 (got 17)" },
                            { { "B=0" }, "template B must be a whole number from 1 to 2147483647" } },
  ["swiglu.lua"] = { { { "M=0" }, "template M must be a positive whole number (got 0)" },
                     { { "M=65536", "N=65536" }, "M*N must be below 2^32" },
                     { { "BLOCK=48" }, "BLOCK must be a multiple of 32" } },
  ["gemm_mma.lua"] = { { { "K=1001" }, "template K must be a positive multiple of 8: rows of A and B are copied in 16-byte pieces" },
                       { { "STAGES=4" }, "static limit 49152" },
                       { { "WM=24" }, "template WM must be a positive multiple of 16: the warp tile is made of 16 x 16 blocks (got 24)" },
                       { { "WN=8" }, "template WN must be a positive multiple of 16: the warp tile is made of 16 x 16 blocks (got 8)" },
                       { { "BM=96" }, "is not a grid of" },
                       { { "BK=48" }, "template BK must be one of 16, 32, 64, 128 (got 48)" },
                       { { "STAGES=1" }, "template STAGES must be a whole number, at least 2 (got 1)" },
                       { { "GROUP=0" }, "template GROUP must be a positive whole number (got 0)" },
                       { { "WM=128", "WN=64", "BM=128", "BN=64" }, "accumulator registers" },
                       { { "BM=32", "BN=32", "WM=16", "WN=16", "BK=16" }, "cannot split" } },
  ["gemm.lua"] = { { { "K=1001" }, "template K must be a positive multiple of 8: TMA rows are multiples of 16 bytes" },
                   { { "N=1001" }, "N (1001) times 2 bytes must be a multiple of 16" },
                   { { "N=1002", "OUT=f32" }, "N (1002) times 4 bytes must be a multiple of 16" },
                   { { "OUT=f16" }, "template OUT must be one of \"bf16\", \"f32\" (got \"f16\")" },
                   { { "BM=256" }, "template BM must be one of 64, 128: one or two consumer warpgroups of 64 rows (got 256)" },
                   { { "BN=96" }, "template BN must be one of 64, 128, 192, 256" },
                   { { "BK=32" }, "BK must be 64" },
                   { { "STAGES=5" }, "need 278608 bytes of shared memory" },
                   { { "STAGES=1" }, "template STAGES must be a whole number, at least 2 (got 1)" },
                   { { "CLUSTER=3" }, "template CLUSTER must be one of 1, 2, 4 (got 3)" },
                   { { "CLUSTER=4", "BN=64", "SMS=3" }, "SMS (3) must hold at least one cluster of 4" },
                   { { "SMS=0" }, "template SMS must be a positive whole number (got 0)" } },
  ["flash_attention.lua"] = { { { "D=96" }, "template D must be one of 64, 128 (got 96)" },
                              { { "CAUSAL=2" }, "template CAUSAL must be one of 0, 1 (got 2)" },
                              { { "BQ=192" }, "template BQ must be one of 64, 128" },
                              { { "BKV=40" }, "template BKV must be a multiple of 16 from 16 to 256" },
                              { { "STAGES=1" }, "template STAGES must be a whole number, at least 2 (got 1)" },
                              { { "STAGES=4" }, "need 295048 bytes of shared memory" },
                              { { "SCALE=-1" }, "SCALE must be a positive number" },
                              { { "S=0" }, "template S must be a whole number, at least 1 and below 2147483648 (got 0)" } },
  ["grouped_gemm.lua"] = { { { "K=100" }, "template K must be a positive multiple of 8" },
                           { { "N=1001" }, "template N must be a positive multiple of 2: C is stored in pairs (got 1001)" },
                           { { "BM=32" }, "template BM must be one of 64, 128" },
                           { { "BN=100" }, "template BN must be a multiple of 16 from 16 to 256" },
                           { { "BK=128" }, "BK must be 64" },
                           { { "STAGES=5" }, "need 245840 bytes of shared memory" },
                           { { "G=0" }, "template G must be a positive whole number (got 0)" } },
  ["gemm_sm100.lua"] = { { { "K=1001" }, "template K must be a positive multiple of 8: TMA rows are multiples of 16 bytes" },
                         { { "N=1001" }, "N (1001) times 2 bytes must be a multiple of 16" },
                         { { "OUT=f16" }, "template OUT must be one of \"bf16\", \"f32\" (got \"f16\")" },
                         { { "BN=96" }, "template BN must be one of 64, 128, 192, 256" },
                         { { "BK=128" }, "BK must be 64" },
                         { { "STAGES=7" }, "need 262336 bytes of shared memory" },
                         { { "STAGES=1" }, "template STAGES must be a whole number, at least 2 (got 1)" },
                         { { "CLUSTER=3" }, "template CLUSTER must be one of 1, 2, 4: one CTA, or one or two CTA pairs (got 3)" },
                         { { "CLUSTER=1" }, "6 stages of (128 + 256) x 64 bf16 and the epilogue buffers need 327856 bytes" },
                         { { "GROUP=0" }, "template GROUP must be a positive whole number (got 0)" } },
  ["gemm_fp8_sm100.lua"] = { { { "K=136" }, "template K must be a positive multiple of 16" },
                             { { "BN=256" }, "template BN must be 128" },
                             { { "BK=64" }, "template BK must be 128" },
                             { { "STAGES=8" }, "need 237776 bytes of shared memory" },
                             { { "N=1002", "OUT=f32" }, "N (1002) times 4 bytes must be a multiple of 16" },
                             { { "CLUSTER=8" }, "template CLUSTER must be one of 1, 2, 4" } },
  ["grouped_gemm_sm100.lua"] = { { { "K=100" }, "template K must be a positive multiple of 8" },
                                 { { "N=1004" }, "template N must be a positive multiple of 8: C is stored in 16-byte pieces" },
                                 { { "BN=80" }, "template BN must be one of 64, 128, 192, 256" },
                                 { { "STAGES=8" }, "need 262352 bytes of shared memory" },
                                 { { "G=0" }, "template G must be a positive whole number (got 0)" } },
}

-- kernels whose PTX at the defaults is pinned
local GOLDEN = { "vector_add", "rmsnorm", "softmax" }

local function args_of(file, defs)
  local a = { KDIR .. file, "--print-ptx" }
  for _, d in ipairs(defs) do a[#a + 1] = "-D"; a[#a + 1] = d end
  return a
end
local function label(file, defs)
  if #defs == 0 then return file .. " (defaults)" end
  return file .. " -D " .. table.concat(defs, " -D ")
end
local function lines_of(path)
  local t = {}
  for l in (H.read(path) or ""):gmatch("([^\n]*)\n?") do t[#t + 1] = l end
  return t
end

describe("kernels/", function()
  it("has sizes and invalid values listed here for every kernel file", function()
    local out, _, rc = H.sh("ls " .. H.shq(KDIR))
    assert.are.equal(0, rc)
    local n = 0
    for f in out:gmatch("[^\n]+") do
      if f:match("%.lua$") then
        n = n + 1
        assert.is_truthy(SIZES[f], "no sizes listed for kernels/" .. f)
        assert.is_truthy(INVALID[f], "no invalid values listed for kernels/" .. f)
      end
    end
    assert.is_true(n >= 6)
  end)

  for file, list in pairs(SIZES) do
    describe(file, function()
      for _, defs in ipairs(list) do
        local arch = ARCH[file] or "sm_90a"
        it("prints and assembles for " .. arch .. " with no spills: " .. label(file, defs), function()
          local out, err, rc = H.ptxlua(args_of(file, defs))
          assert.are.equal(0, rc, err)
          assert.truthy(out:find(".visible .entry", 1, true))
          local ok, report = H.assemble(out, arch)
          if ok == nil then return end
          assert.is_true(ok, report)
          assert.are.equal(0, H.spills(report), report)
        end)
      end

      for _, case in ipairs(INVALID[file] or {}) do
        local defs, msg = case[1], case[2]
        it("rejects " .. table.concat(defs, " ") .. " at the kernel's line", function()
          local out, err, rc = H.ptxlua(args_of(file, defs))
          assert.are.equal(1, rc, out .. err)
          assert.are.equal("", out)
          local path = KDIR .. file
          local line = err:match("^" .. path:gsub("%p", "%%%0") .. ":(%d+): error: ")
          assert.is_truthy(line, err)
          assert.truthy(err:find(msg, 1, true), err)
          -- the line named is the kernel's own: its check, or its ptx.kernel definition
          local src = lines_of(path)[tonumber(line)] or ""
          assert.truthy(src:find("ptx.error", 1, true) or src:find("ptx.kernel", 1, true), src)
        end)
      end
    end)
  end

  describe("golden PTX at the defaults", function()
    for _, name in ipairs(GOLDEN) do
      it(name, function()
        local out, err, rc = H.ptxlua { KDIR .. name .. ".lua", "--print-ptx" }
        assert.are.equal(0, rc, err)
        local path = GDIR .. name .. ".ptx"
        if UPDATE then H.write(path, out) end
        local want = H.read(path)
        assert.is_truthy(want, "missing " .. path .. " (PTXLUA_UPDATE_GOLDEN=1 writes it)")
        if out ~= want then
          local a, b = lines_of(path), {}
          for l in (out .. "\n"):gmatch("([^\n]*)\n") do b[#b + 1] = l end
          for i = 1, math.max(#a, #b) do
            if a[i] ~= b[i] then
              error(string.format("%s differs from the printed PTX at line %d:\n  golden:  %s\n  printed: %s\n" ..
                                  "(after an intended change: PTXLUA_UPDATE_GOLDEN=1)", path, i, tostring(a[i]), tostring(b[i])))
            end
          end
          error(path .. " differs from the printed PTX")
        end
      end)
    end
  end)

  it("runs the mma.sync GEMM's K loop in PTX: the same instructions at every K, one backward branch", function()
    local function count(text, pat) local n = 0; for _ in text:gmatch(pat) do n = n + 1 end return n end
    for _, k in ipairs { "64", "8192", "1000" } do
      local out, err, rc = H.ptxlua { KDIR .. "gemm_mma.lua", "--print-ptx", "-D", "K=" .. k }
      assert.are.equal(0, rc, err)
      -- defaults: 4 x 4 mma tiles of a 64 x 32 warp tile, 2 k-steps of 16 in a 32-wide k-tile
      assert.are.equal(32, count(out, "\tmma%.sync%.aligned%.m16n8k16%.row%.col%.f32%.bf16%.bf16%.f32%s"), "K=" .. k)
      assert.are.equal(12, count(out, "\tldmatrix%.sync%.aligned%.m8n8%.x4%.shared%.b16%s"), "K=" .. k)
      assert.are.equal(1, count(out, "\tbar%.sync%s"), "K=" .. k)
      local loop = out:match("\n(%$L__loop%d+):\n")
      assert.is_truthy(loop, out)
      assert.are.equal(1, count(out, "bra%s+" .. loop:gsub("%$", "%%$") .. ";"))
    end
  end)

  it("prints the same mma.sync GEMM twice, byte for byte", function()
    local a = H.ptxlua { KDIR .. "gemm_mma.lua", "--print-ptx", "-D", "M=1000" }
    local b = H.ptxlua { KDIR .. "gemm_mma.lua", "--print-ptx", "-D", "M=1000" }
    assert.are.equal(a, b)
  end)
end)
