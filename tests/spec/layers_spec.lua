-- layers_spec.lua -- the layers of src/ (docs/design.md §1): each folder includes only its own
-- headers and those of the layers below it, and each name a folder exports carries its prefix.
-- The build enforces the first (each layer's include path holds only the folders below it); this
-- spec says which line broke it, for headers too, and checks the prefixes, which no compiler does.
local H = require("helper")

local ORDER = { "base", "isa", "ir", "ptx", "emu", "cuda", "lua", "api", "cli" }
local PREFIX = { base = "plB_", isa = "plA_", ir = "plI_", ptx = "plP_", emu = "plX_", cuda = "plC_",
                 lua = "plL_", api = "plE_", cli = "plM_" }
local RANK = {}
for i, l in ipairs(ORDER) do RANK[l] = i end

local function files()
  local out = {}
  for f in H.sh("cd " .. H.shq(H.root) .. " && find src -type f -name '*.[ch]' | LC_ALL=C sort"):gmatch("[^\n]+") do
    out[#out + 1] = f
  end
  return out
end

describe("the layers of src/", function()
  local all = files()
  local owner = {}        -- header basename -> its layer
  for _, f in ipairs(all) do
    local layer, name = f:match("^src/([a-z]+)/(.+%.h)$")
    if layer then
      assert(not owner[name], "two headers named " .. name)
      owner[name] = layer
    end
  end

  it("has every file in a known layer", function()
    for _, f in ipairs(all) do
      local layer = f:match("^src/([a-z]+)/")
      assert(layer and RANK[layer], f .. " is not in a layer of " .. table.concat(ORDER, " "))
    end
  end)

  it("includes only the headers of the same layer or a lower one", function()
    local bad = {}
    for _, f in ipairs(all) do
      local layer = f:match("^src/([a-z]+)/")
      local n = 0
      for line in assert(H.read(H.root .. "/" .. f)):gmatch("([^\n]*)\n") do
        n = n + 1
        local inc = line:match('^%s*#%s*include%s+"([^"]+)"')
        local o = inc and owner[inc]
        if o and RANK[o] > RANK[layer] then
          bad[#bad + 1] = string.format("%s:%d: %s (%s) includes %s of %s", f, n, layer, line, inc, o)
        end
      end
    end
    assert(#bad == 0, table.concat(bad, "\n"))
  end)

  it("names what a layer's headers declare with the layer's prefix", function()
    local bad = {}
    for _, f in ipairs(all) do
      local layer = f:match("^src/([a-z]+)/.+%.h$")
      if layer then
        local text = assert(H.read(H.root .. "/" .. f))
        for name in text:gmatch("[%w_%*%s]%f[%w_](pl%u%l*_[%w_]+)%s*%(") do
          -- plX__ names an emulator operation (the decoder's table), not a function
          if name:sub(1, #PREFIX[layer]) ~= PREFIX[layer] and not name:match("^plX__") then
            bad[#bad + 1] = f .. ": " .. name .. " (want " .. PREFIX[layer] .. ")"
          end
        end
      end
    end
    assert(#bad == 0, table.concat(bad, "\n"))
  end)

  it("defines no function with another layer's prefix", function()
    local bad = {}
    for _, f in ipairs(all) do
      local layer = f:match("^src/([a-z]+)/.+%.c$")
      if layer then
        for line in assert(H.read(H.root .. "/" .. f)):gmatch("([^\n]*)\n") do
          -- a definition at the start of a line: type, name, parameters, brace
          local name = line:match("^[%a_][%w_%s%*]-%f[%w_](pl%u%l*_[%w_]+)%s*%b()%s*{")
          if name and name:sub(1, #PREFIX[layer]) ~= PREFIX[layer] and not name:match("^plX__") then
            bad[#bad + 1] = f .. ": " .. name .. " (want " .. PREFIX[layer] .. ")"
          end
        end
      end
    end
    assert(#bad == 0, table.concat(bad, "\n"))
  end)
end)
