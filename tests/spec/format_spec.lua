-- format_spec.lua -- the C of src/, include/, tests/ and bench/ is as .clang-format writes it, and no
-- line is over 100 columns (CONTRIBUTING.md). clang-format missing: the first check is pending
-- locally and fails under CI; the column check needs nothing.
local H = require "helper"

local function c_files()
  local out = {}
  local cmd = "cd " .. H.shq(H.root) .. " && find src include tests bench -name '*.[ch]'" ..
              " -not -path 'tests/fuzz/corpus*' | LC_ALL=C sort"
  for f in H.sh(cmd):gmatch("[^\n]+") do out[#out + 1] = f end
  return out
end

describe("the C sources", function()
  local files = c_files()

  it("are all found", function()
    assert.is_true(#files > 50, "found only " .. #files .. " C files")
  end)

  it("have no line over 100 columns", function()
    local bad = {}
    for _, f in ipairs(files) do
      local n = 0
      for line in (assert(H.read(H.root .. "/" .. f)) .. "\n"):gmatch("([^\n]*)\n") do
        n = n + 1
        -- columns, not bytes: UTF-8 continuation bytes take none
        local cols = #line - select(2, line:gsub("[\128-\191]", ""))
        if cols > 100 then bad[#bad + 1] = string.format("%s:%d: %d columns", f, n, cols) end
      end
    end
    assert(#bad == 0, #bad .. " lines over 100 columns:\n" .. table.concat(bad, "\n", 1, math.min(#bad, 30)))
  end)

  it("are formatted by .clang-format", function()
    local ok = os.execute("command -v clang-format >/dev/null 2>&1")
    if ok ~= 0 and ok ~= true then
      assert(not H.ci, "clang-format is missing (tests/bootstrap.sh installs it)")
      return H.pending("clang-format is missing: formatting not checked")
    end
    local list = H.tmpfile(".list")
    H.write(list, table.concat(files, "\n") .. "\n")
    local out = H.sh("cd " .. H.shq(H.root) .. " && xargs clang-format --dry-run --Werror < " ..
                     H.shq(list) .. " 2>&1 | grep -E '^[^ ]+:[0-9]+:[0-9]+: error' | head -20; true")
    assert(out == "", "not as .clang-format writes them (clang-format -i FILE):\n" .. out)
  end)
end)
