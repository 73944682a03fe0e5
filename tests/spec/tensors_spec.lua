-- tensors_spec.lua -- kernels declare their tensors (ptx.tensor) and the maps over them
-- (ptx.tensormap); launchers take tensors and build the maps; --emulate runs every kernel of
-- kernels/ at its declared sizes against its reference, and a broken copy fails with the report.
local H = require "helper"
local rt = require "ptxlua.emu"

local KDIR = H.root .. "/kernels"
local lit = function(s) return (s:gsub("[%^%$%(%)%%%.%[%]%*%+%-%?]", "%%%0")) end

-- every kernel file of kernels/ (not its lib/)
local function kernel_files()
  local out = {}
  local p = io.popen("ls " .. H.shq(KDIR) .. "/*.lua")
  for l in p:lines() do out[#out + 1] = l end
  p:close()
  return out
end

describe("--emulate on every kernel of kernels/", function()
  it("runs each at its declared sizes and matches its reference, within the time budget", function()
    local files = kernel_files()
    assert.is_true(#files >= 11, "the kernels of kernels/")
    local t0 = os.time()
    local waiting = {}
    for _, f in ipairs(files) do
      local out, err, rc = H.ptxlua { f, "--emulate" }
      -- the Blackwell kernels wait for the emulator's tcgen05 (it refuses, at the instruction's
      -- line, what it does not emulate); any other failure of theirs fails here
      if rc == 1 and f:match("_sm100%.lua$") and err:find(": error: tcgen05", 1, true) and err:find(" is not emulated", 1, true) then
        waiting[#waiting + 1] = f:match("[^/]+$")
        goto next
      end
      assert.are.equal(0, rc, f .. ": " .. err .. out)
      assert.is_nil(out:find("DOES NOT MATCH", 1, true), out)
      -- every kernel of the file ran and was compared with its reference
      local ran, matched = 0, 0
      for _ in out:gmatch("emulated [%w_]+: grid") do ran = ran + 1 end
      for _ in out:gmatch("matches the reference") do matched = matched + 1 end
      assert.is_true(ran >= 1 and matched >= ran, f .. ":\n" .. out)
      ::next::
    end
    -- a minute in the release build (about 3 s here); the sanitized debug build runs slower
    local sanitized = (H.read(H.build .. "/CMakeCache.txt") or ""):find("PTXLUA_SANITIZE:BOOL=ON", 1, true)
    assert.is_true(os.time() - t0 < (sanitized and 300 or 60), "all kernels within a minute (release)")
    if #waiting > 0 then H.pending("the emulator says it cannot run these yet: " .. table.concat(waiting, ", ")) end
  end)

  it("the TMA kernels run without a map passed by hand: the maps come from their declarations", function()
    local out, err, rc = H.ptxlua { KDIR .. "/gemm.lua", "--emulate", "-D", "M=72", "-D", "N=136", "-D", "K=200", "-D", "CLUSTER=1" }
    assert.are.equal(0, rc, err)
    assert.matches("A        bf16[14400]  unchanged", out, 1, true)
    assert.matches("C        matches the reference (9792 elements, rel 0.01", out, 1, true)
  end)
end)

describe("a broken kernel copy", function()
  local function broken(file, from, to)
    local src = H.read(KDIR .. "/" .. file)
    local a, b = src:find(from, 1, true)
    assert.truthy(a, "the line to break: " .. from)
    src = src:sub(1, a - 1) .. to .. src:sub(b + 1)
    local dir = H.tmpdir() .. "/broken"
    os.execute("mkdir -p " .. H.shq(dir) .. " && cp -r " .. H.shq(KDIR .. "/lib") .. " " .. H.shq(dir))
    local path = dir .. "/" .. file
    H.write(path, src)
    return path, src
  end

  it("exits 1 with the summary and the largest error, at the kernel's line (vector_add: a - b)", function()
    local path = broken("vector_add.lua", "a + b)", "a - b)")
    local out, err, rc = H.ptxlua { path, "--emulate" }
    assert.are.equal(1, rc)
    assert.matches("emulated vector_add: grid (4,1,1)", out, 1, true)
    assert.matches("out      DOES NOT MATCH the reference: %d+ of 1003 elements outside rel 1e%-05", out)
    local line = H.line_holding(path, "ptx.kernel {")
    assert.truthy(err:find("^" .. lit(path) .. ":" .. line .. ": error: emulate vector_add: out does not match the reference %(%d+ of 1003 elements"), err)
    assert.matches("the largest error at out%[%d+%]: got [-%d.e]+, want [-%d.e]+%)", err)
  end)

  it("exits 1 for a TMA kernel whose epilogue swaps the halves of each bf16 pair (gemm)", function()
    local path = broken("gemm.lua", 'ptx.op "cvt.rn.bf16x2.f32" (v, a1, a0)', 'ptx.op "cvt.rn.bf16x2.f32" (v, a0, a1)')
    local out, err, rc = H.ptxlua { path, "--emulate" }
    assert.are.equal(1, rc)
    assert.matches("C        DOES NOT MATCH the reference: %d+ of 79200 elements", out)
    assert.matches("error: emulate gemm: C does not match the reference", err, 1, true)
  end)

  it("in the REPL, :emu prints the summary and then the mismatch", function()
    local path = broken("vector_add.lua", "a + b)", "a - b)")
    local script = H.tmpfile(".txt")
    H.write(script, ":load " .. path .. "\n:emu\n")
    local out, err = H.sh(H.shq(H.exe) .. " < " .. H.shq(script))
    local all = out .. err
    assert.matches("out      DOES NOT MATCH the reference", all, 1, true)
    assert.matches("emulate vector_add: out does not match the reference", all, 1, true)
  end)
end)

---------------------------------------------------------------------------------------------------
-- launches with tensors: the maps built from the declarations equal the maps made by hand
describe("launching with tensors", function()
  local ks, ret = H.load_script(KDIR .. "/gemm.lua")
  local k = ks.gemm
  local defs = { M = 72, N = 136, K = 64, SMS = 2, CLUSTER = 1, BN = 64 }
  local dev = rt.device("emu")
  local function inputs()
    local A = dev:array("bf16", 72 * 64, function(i) return ((i * 37) % 17 - 8) / 8 end)
    local B = dev:array("bf16", 136 * 64, function(i) return ((i * 11) % 13 - 6) / 8 end)
    return A, B, dev:array("bf16", 72 * 136, 0)
  end

  it("k:maps gives the specs the kernel's maps() gave (dims innermost first, box, swizzle, dtype)", function()
    local a, b, c = k:maps { M = 300, N = 264, K = 136, OUT = "f32", CLUSTER = 2 }
    assert.are.same({ 136, 300 }, a.dims)
    assert.are.same({ 64, 128 }, a.box)
    assert.are.same({ 272 }, a.strides)
    assert.are.equal("128B", a.swizzle)
    assert.are.equal("bf16", a.dtype)
    assert.are.same({ 64, 128 }, b.box)                 -- BK, BN / CLUSTER
    assert.are.same({ 264, 300 }, c.dims)
    assert.are.same({ 32, 64 }, c.box)                  -- 128 bytes of f32
    assert.are.equal("f32", c.dtype)
    local r1, r2, r3 = ret.maps { M = 300 }
    assert.are.same({ 8192, 300 }, r1.dims)
    assert.truthy(r2 and r3)
  end)

  it("by position, by the tensors' names, and as maps by hand: the same C", function()
    local A, B, C = inputs()
    k:launch { device = dev, args = { A, B, C }, defines = defs }
    local c1 = C:read()
    C:write(0)
    k:launch { device = dev, args = { A = A, B = B, C = C }, defines = defs }
    assert.are.same(c1, C:read())
    C:write(0)
    local sa, sb, sc = k:maps(defs)
    k:launch { device = dev, args = { dev:tensormap(A, sa), dev:tensormap(B, sb), dev:tensormap(C, sc) }, defines = defs }
    assert.are.same(c1, C:read())
    local nz = 0
    for _, v in ipairs(c1) do if v ~= 0 then nz = nz + 1 end end
    assert.is_true(nz > 72 * 136 / 2)
  end)

  it("refuses, at the launch's line, a tensor of another type or too few elements", function()
    local A, B, C = inputs()
    local F = dev:array("f16", 72 * 64, 0)
    local ok, err = pcall(function() k:launch { device = dev, args = { F, B, C }, defines = defs } end)  -- F16
    assert.is_false(ok)
    H.expect_error(err, debug.getinfo(1, "S").source:sub(2), H.line_holding(debug.getinfo(1, "S").source:sub(2), "-- F16"),
                   "argument 1 (A_map) of gemm: a f16 array for tensor A, which holds bf16")
    local small = dev:array("bf16", 100, 0)
    ok, err = pcall(function() k:launch { device = dev, args = { A, small, C }, defines = defs } end)
    assert.is_false(ok)
    assert.matches("argument 2 (B_map) of gemm (tensor B): tensor B is bf16 {N = 136, K = 64} (8704 elements), the array has 100", err, 1, true)
    ok, err = pcall(function() k:launch { device = dev, args = { A, B }, defines = defs } end)
    assert.is_false(ok)
    assert.matches("no argument for parameter 3 (C_map): pass tensor C (an array of bf16 {M = 72, N = 136}) or a tensor map", err, 1, true)
  end)

  it("checks a pointer parameter's tensor too: too few elements for its shape", function()
    local ks2 = H.load_script(KDIR .. "/softmax.lua")
    local x, y = dev:array("f32", 5 * 1001, 1), dev:array("f32", 1000, 0)
    local ok, err = pcall(function() ks2.softmax:launch { device = dev, args = { x, y }, defines = { B = 5, N = 1001 } } end)
    assert.is_false(ok)
    assert.matches("argument 2 (y) of softmax: tensor y is f32 {B = 5, N = 1001} (5005 elements), the array has 1000", err, 1, true)
  end)
end)

---------------------------------------------------------------------------------------------------
-- declarations: errors at the declaration's line
describe("declarations", function()
  local function define(src)
    local path = H.tmpfile(".lua")
    H.write(path, "local ptx = require 'ptxlua'\n" .. src)
    H.fresh()
    local ok, err = pcall(dofile, path)
    return ok, err, path
  end
  local body = "body = function() ptx.ret() end"

  for _, c in ipairs {
    { "ptx.tensor('bf16', {})", "ptx.tensor: the shape must be a list of extents" },
    { "ptx.tensor('bf17', {'M'})", "" },   -- a name: a template's type, checked when resolved
    { "ptx.tensor('bf16', {'M', true})", "ptx.tensor: the shape[2]: an entry must be a number or a name" },
    { "ptx.tensor('bf16', {'M +'})", "the shape[1]: 'M +' is not an expression of names" },
    { "ptx.tensor('bf16', {'M'}, { strides = { 1, 2 } })", "ptx.tensor: 2 strides for a shape of 1 dimensions" },
    { "ptx.tensor('bf16', {'M'}, { layout = 'row' })", "ptx.tensor: unknown option 'layout' (strides)" },
    { "ptx.tensormap { of = 'A', box = { 64 }, swizzle = 96 }", "swizzle must be \"none\", \"32B\", \"64B\" or \"128B\" (or 0, 32, 64, 128), got 96" },
    { "ptx.tensormap { of = 'A', boxes = { 64 } }", "ptx.tensormap: unknown field 'boxes'" },
    { "ptx.tensormap { box = { 64 } }", "ptx.tensormap: 'of' must name the tensor the map views" },
  } do
    it(c[1] .. (c[2] ~= "" and " is refused at its line" or " is taken"), function()
      local ok, err, path = define("local d = " .. c[1] .. "\n")
      if c[2] == "" then assert.is_true(ok, err); return end
      assert.is_false(ok)
      H.expect_error(err, path, 2, c[2])
    end)
  end

  it("a map of an undeclared tensor, or a box of the wrong rank: at the map's line", function()
    local ok, err, path = define(([[
ptx.kernel { name = "k", templates = { M = 8, K = 8 },
  tensors = { A = ptx.tensor("bf16", { "M", "K" }) },
  params = { { "m", ptx.tensormap { of = "B", box = { 8, 8 } } } },
  %s }]]):format(body))
    assert.is_false(ok)
    H.expect_error(err, path, 4, "parameter 'm' views tensor 'B', which the kernel does not declare (its tensors: A)")
    ok, err, path = define(([[
ptx.kernel { name = "k", templates = { M = 8, K = 8 },
  tensors = { A = ptx.tensor("bf16", { "M", "K" }) },
  params = {
    { "m", ptx.tensormap { of = "A", box = { 8 } } } },
  %s }]]):format(body))
    assert.is_false(ok)
    H.expect_error(err, path, 5, "a box of 1 dimensions for a tensor of 2")
  end)

  it("a map's dtype: the packed type it names goes to the map spec; not a string, at its line", function()
    local ok, err = define(([[
local k = ptx.kernel { name = "k", templates = { M = 8 }, block = 32, grid = 1,
  tensors = { Q = ptx.tensor("e2m1", { "M", 256 }) },
  params = { { "q", ptx.tensormap { of = "Q", box = { 128, 8 }, dtype = "16u4_align16b" } },
             { "d", ptx.tensormap { of = "Q", box = { 64, 8 } } } },
  %s }
return k]]):format(body))
    assert.is_true(ok, err)
    local k = require("ptxlua").kernels()[1]
    local q, d = k:maps {}
    assert.are.equal("16u4_align16b", q.dtype)
    assert.are.same({ 256, 8 }, q.dims)
    assert.are.same({ 128 }, q.strides)                      -- 256 values of 4 bits a row
    assert.are.equal("e2m1", d.dtype)                        -- dev:tensormap maps it as 16u4_align8b
    local path
    ok, err, path = define(([[
ptx.kernel { name = "k", tensors = { Q = ptx.tensor("e2m1", { 8, 256 }) },
  params = { { "q", ptx.tensormap { of = "Q", box = { 128, 8 }, dtype = 4 } } },
  %s }]]):format(body))
    assert.is_false(ok)
    H.expect_error(err, path, 3, "ptx.tensormap: dtype must name the map's element type")
  end)

  it("a name in a shape that is neither a template nor a scalar: at the tensor's line, when launched", function()
    local ok, err, path = define(([[
local k = ptx.kernel { name = "k", templates = { M = 8 }, block = 32, grid = 1,
  tensors = {
    A = ptx.tensor("bf16", { "M", "Q" }) },
  params = { { "m", ptx.tensormap { of = "A", box = { 8, 8 } } } },
  %s }
return k]]):format(body))
    assert.is_true(ok, err)
    local ks = require("ptxlua").kernels()
    local dev = rt.device("emu")
    local a = dev:array("bf16", 64, 0)
    local lok, lerr = pcall(function() ks[1]:launch { device = dev, args = { a } } end)
    assert.is_false(lok)
    H.expect_error(lerr, path, 4, "tensor A: shape[2]: 'Q' is neither a template nor a scalar parameter")
  end)

  it("adds no instruction: a kernel with declarations prints the PTX of the same kernel without", function()
    local function ptx_of(decl)
      local ptx = H.fresh()
      ptx.kernel { name = "k", templates = { M = 64, K = 64 }, tensors = decl and { A = ptx.tensor("bf16", { "M", "K" }) } or nil,
                   params = { { "m", decl and ptx.tensormap { of = "A", box = { 64, 64 }, swizzle = "128B" } or "tensormap" },
                              { "x", decl and ptx.tensor("f32", { "M" }) or "f32*" } },
                   body = function(t, m, x) local p = ptx.global_ptrs(x); ptx.ret() end }
      return ptx.ptx()
    end
    assert.are.equal(ptx_of(false), ptx_of(true))
  end)

  it("checks --emulate's fields at the kernel's line", function()
    for _, c in ipairs {
      { "reference = 3", "'reference' must be a function(t, x)" },
      { "emulate = { Q = 3 }", "emulate.Q: not a template of the kernel" },
      { "emulate = { M = 'x' }", "emulate.M: a string for a template that defaults to a number" },
      { "tolerance = { y = 'tight' }", "tolerance.y must be a number or { rel =, abs = }" },
      { "tolerance = -1", "tolerance must be a number >= 0" },
    } do
      local ok, err, path = define(("ptx.kernel { name = 'k', templates = { M = 8 }, %s, %s }"):format(c[1], body))
      assert.is_false(ok)
      H.expect_error(err, path, 2, c[2])
    end
  end)
end)
