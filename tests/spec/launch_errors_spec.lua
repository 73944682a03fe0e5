-- launch_errors_spec.lua -- launch geometry and launch arguments are checked at the line that
-- decided them: what a kernel's definition declares at its ptx.kernel line (ptxlua FILE --emulate),
-- what a launch passes at the launch (a script that launches); and a path longer than Lua's 60
-- characters of chunk name is reported whole, with its line echoed.
local H = require "helper"

local HEAD = 'local ptx = require "ptxlua"\n'

-- a kernel whose definition has `fields` (Lua text), its ptx.kernel line marked
local function kernel(fields, params)
  return HEAD .. 'ptx.kernel { name = "k", --<\n  params = ' .. (params or '{ { "x", "f32*", shape = { 4096 } } }') .. ',\n  '
      .. fields .. ',\n  body = function() ptx.ret() end }\n'
end

local DEFINITION = {
  { "a block over 1024 threads", kernel("grid = { 1 }, block = { 2048 }"),
    "kernel k: a block of 2048 threads (2048, 1, 1) exceeds the 1024 a CTA can have" },
  { "block.z over 64", kernel("grid = { 1 }, block = { 4, 2, 65 }"), "kernel k: block.z 65 exceeds 64" },
  { "a grid that is not a whole number of clusters", kernel("grid = { 3 }, block = { 32 }, cluster = { 2 }"),
    "kernel k: the grid (3, 1, 1) is not a whole number of clusters (2, 1, 1): grid.x 3 is not a multiple of 2" },
  { "a cluster over 16 CTAs", kernel("grid = { 32 }, block = { 32 }, cluster = { 32 }"),
    "kernel k: a cluster of 32 CTAs (32, 1, 1) exceeds 16" },
  { "grid.y past the device's limit", kernel("grid = { 1, 70000 }, block = { 32 }"),
    "kernel k: grid.y 70000 exceeds the device's limit of 65535" },
  { "grid.x past the device's limit", kernel("grid = { 2^31 }, block = { 32 }"),
    "kernel k: grid.x 2147483648 exceeds the device's limit of 2147483647" },
  { "a grid function returning a string", kernel('grid = function() return "abc" end, block = { 32 }'),
    "kernel k: the 'grid' function returned a string (\"abc\"); it must return a number or a list of 1 to 3 positive integers" },
  { "a grid function returning nil", kernel("grid = function() end, block = { 32 }"),
    "kernel k: the 'grid' function returned nil; it must return a number or a list" },
  { "a grid function returning four dimensions", kernel("grid = function() return { 1, 2, 3, 4 } end, block = { 32 }"),
    "kernel k: grid must be a list of 1 to 3 positive integers (x, y, z), got {1, 2, 3, 4}: 4 entries" },
  { "a block list with a named field", kernel("grid = { 1 }, block = { 32, z = 2 }"),
    "kernel k: block must be a list of 1 to 3 positive integers" },
  { "a zero block dimension", kernel("grid = { 1 }, block = { 32, 0 }"), "kernel k: block[2] must be a positive integer (got 0)" },
  { "a scalar parameter with no value", kernel("grid = { 1 }, block = { 32 }", '{ { "x", "f32*", shape = { 64 } }, { "n", "u32" } }'),
    "emulate k: no value for scalar parameter 'n'" },
  { "a pointer parameter without a shape", kernel("grid = { 1 }, block = { 32 }", '{ { "x", "f32*" } }'),
    "emulate k: pointer parameter 'x' has no shape" },
}

-- a script that launches k itself, the launch's line marked
local function launching(call, fields)
  return HEAD .. 'local rt = require "ptxlua.emu"\n'
      .. 'local k = ptx.kernel { name = "k", params = { { "x", "f32*" }, { "n", "u32" } }, ' .. (fields or "block = { 32 }")
      .. ', body = function() ptx.ret() end }\n'
      .. 'local d = rt.device "emu"\nlocal a = d:array("f32", 64)\n'
      .. call .. ' --<\n'
end

local LAUNCH = {
  { "a block over 1024 threads", launching("k:launch { device = d, args = { a, 3 }, grid = 1, block = { 2000 } }"),
    "launch of k: a block of 2000 threads (2000, 1, 1) exceeds the 1024 a CTA can have" },
  { "no grid", launching("k:launch { device = d, args = { a, 3 } }"), "launch of k: no grid given, and the kernel declares none" },
  { "a grid of four dimensions", launching("k:launch { device = d, args = { a, 3 }, grid = { 1, 1, 1, 1 } }"),
    "launch of k: grid must be a list of 1 to 3 positive integers (x, y, z), got {1, 1, 1, 1}: 4 entries" },
  { "a grid that is a string", launching('k:launch { device = d, args = { a, 3 }, grid = "8" }'),
    "launch of k: grid must be a number or a list of 1 to 3 positive integers (got a string)" },
  { "a grid that is not a whole number of clusters", launching("k:launch { device = d, args = { a, 3 }, grid = 3, cluster = 2 }"),
    "launch of k: the grid (3, 1, 1) is not a whole number of clusters (2, 1, 1)" },
  { "a launch grid against the definition's cluster", launching("k:launch { device = d, args = { a, 3 }, grid = 3 }",
                                                                 "block = { 32 }, cluster = { 2 }"),
    "launch of k: the grid (3, 1, 1) is not a whole number of clusters (2, 1, 1)" },
  { "a missing scalar argument", launching("k:launch { device = d, args = { a }, grid = 1 }"),
    "launch of k: 1 arguments for 2 parameters" },
}

local function marked(text)
  local n = 0
  for line in (text .. "\n"):gmatch("([^\n]*)\n") do
    n = n + 1
    if line:find("--<", 1, true) then return n, line end
  end
  error("no marker")
end

-- `ptxlua path args...` fails at path:line with needle, the line echoed and a caret under it
local function expect(path, text, args, needle)
  local line, src = marked(text)
  local cmd = { path }
  for _, a in ipairs(args) do cmd[#cmd + 1] = a end
  local stdout, stderr, rc = H.ptxlua(cmd)
  assert.are.equal(1, rc, stderr)
  assert.are.equal("", stdout)
  local l1, l2, l3 = stderr:match("^([^\n]*)\n([^\n]*)\n([^\n]*)\n")
  assert.truthy(l1, "expected three lines on stderr: " .. stderr)
  local want = path .. ":" .. line .. ": error: "
  assert.are.equal(want, l1:sub(1, #want), "expected " .. want .. "... got: " .. l1)
  assert.truthy(l1:find(needle, 1, true), "expected '" .. needle .. "' in: " .. l1)
  assert.are.equal("  " .. src, l2)
  assert.are.equal("  " .. src:match("^%s*") .. "^", l3)
end

describe("launch errors at the kernel's definition (--emulate)", function()
  for _, c in ipairs(DEFINITION) do
    it(c[1], function()
      local path = H.write(H.tmpfile(".lua"), c[2])
      expect(path, c[2], { "--emulate" }, c[3])
    end)
  end
end)

describe("launch errors at the launch", function()
  for _, c in ipairs(LAUNCH) do
    it(c[1], function()
      local path = H.write(H.tmpfile(".lua"), c[2])
      expect(path, c[2], {}, c[3])
    end)
  end
end)

describe("a path longer than Lua's 60 characters of chunk name", function()
  local dir = H.tmpdir() .. "/a-directory-with-a-rather-long-name/and-another-one-below-it/steering"
  assert(os.execute("mkdir -p " .. H.shq(dir)))
  local CASES = {
    { "a Lua error in a kernel body", HEAD .. 'ptx.kernel { name = "k", body = function()\n  local x = nil\n  x.y = 1 --<\nend }\n',
      {}, "attempt to index local 'x' (a nil value)" },
    { "a syntax error", HEAD .. "local x = = 2 --<\n", {}, "unexpected symbol near '='" },
    { "error(msg, 2) at the script's top level", HEAD .. 'local function f() error("mine", 2) end\nf() --<\n', {}, "mine" },
    { "a DSL error", HEAD .. 'ptx.kernel { name = "k", body = function()\n  ptx.add.f32(1) --<\nend }\n', {}, "'add.f32' takes 3 operands" },
    { "a launch geometry error", kernel("grid = { 1 }, block = { 2048 }"), { "--emulate" }, "exceeds the 1024" },
  }
  for i, c in ipairs(CASES) do
    it(c[1], function()
      local path = H.write(dir .. "/case" .. i .. ".lua", c[2])
      assert.is_true(#path > 60)
      expect(path, c[2], c[3], c[4])
    end)
  end
end)
