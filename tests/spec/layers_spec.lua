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
    -- a header is included by its name alone (a layer's subfolders are on its include path)
    local layer, name = f:match("^src/([a-z]+)/.-([^/]+%.h)$")
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

-- the emulator's boundaries (docs/design.md §1): the rest of ptxlua sees it through emu.h; its
-- state is one header of types (state.h) and each module declares its own functions; the core
-- emulator reaches the Hopper families (src/emu/hopper/) through hooks.h alone
local function includes(f)
  local out, n = {}, 0
  for line in assert(H.read(H.root .. "/" .. f)):gmatch("([^\n]*)\n") do
    n = n + 1
    local inc = line:match('^%s*#%s*include%s+"([^"]+)"')
    if inc then out[#out + 1] = { name = inc, line = n } end
  end
  return out
end

describe("the emulator's boundaries", function()
  local all = files()
  local emuh = {}                          -- header name -> its path, for the headers of src/emu
  for _, f in ipairs(all) do
    if f:match("^src/emu/.+%.h$") then emuh[f:match("([^/]+)$")] = f end
  end

  it("are seen from outside src/emu through emu.h alone", function()
    local bad = {}
    for _, f in ipairs(all) do
      if not f:match("^src/emu/") then
        for _, i in ipairs(includes(f)) do
          if emuh[i.name] and i.name ~= "emu.h" then
            bad[#bad + 1] = string.format("%s:%d: includes %s (the emulator's internals)", f, i.line, emuh[i.name])
          end
        end
      end
    end
    assert(#bad == 0, table.concat(bad, "\n"))
  end)

  it("keep the Blackwell families behind bwhooks.h", function()
    local bad = {}
    for _, f in ipairs(all) do
      if f:match("^src/emu/[^/]+%.[ch]$") or f:match("^src/emu/hopper/") then  -- the core, and Hopper
        for _, i in ipairs(includes(f)) do
          local p = emuh[i.name]
          if p and p:match("^src/emu/blackwell/") and i.name ~= "bwhooks.h" then
            bad[#bad + 1] = string.format("%s:%d: includes %s (only bwhooks.h is the core's)", f, i.line, p)
          end
        end
        local n = 0
        for line in assert(H.read(H.root .. "/" .. f)):gmatch("([^\n]*)\n") do
          n = n + 1
          local name = line:match("%f[%w_](plX__b_[%w_]+)")
          if name then bad[#bad + 1] = string.format("%s:%d: names %s (blackwell/blackwell.h's)", f, n, name) end
        end
      end
    end
    assert(#bad == 0, table.concat(bad, "\n"))
  end)

  it("keep the Hopper families behind hooks.h", function()
    local bad = {}
    for _, f in ipairs(all) do
      if f:match("^src/emu/[^/]+%.[ch]$") then           -- a core file of the emulator
        for _, i in ipairs(includes(f)) do
          local p = emuh[i.name]
          if p and p:match("^src/emu/hopper/") and i.name ~= "hooks.h" then
            bad[#bad + 1] = string.format("%s:%d: includes %s (only hooks.h is the core's)", f, i.line, p)
          end
        end
        local n = 0
        for line in assert(H.read(H.root .. "/" .. f)):gmatch("([^\n]*)\n") do
          n = n + 1
          local name = line:match("%f[%w_](plX__h_[%w_]+)")
          if name then bad[#bad + 1] = string.format("%s:%d: names %s (hopper/hopper.h's)", f, n, name) end
        end
      end
    end
    assert(#bad == 0, table.concat(bad, "\n"))
  end)

  it("hold their state in a header of types only", function()
    local text = assert(H.read(H.root .. "/src/emu/state.h"))
    local bad = {}
    local n = 0
    for line in text:gmatch("([^\n]*)\n") do
      n = n + 1
      -- a prototype: at file scope, a name and its parameters closed by ';' (an inline function
      -- has a body; a typedef of a function pointer names a type)
      if line:match("^[%a_][%w_%s%*]-%f[%w_][%a_][%w_]*%s*%b()%s*;") and not line:match("^typedef")
         or line:match("^%s*extern%s") then
        bad[#bad + 1] = string.format("src/emu/state.h:%d: %s", n, line)
      end
    end
    -- a macro reads only its parameters: none relies on a `w`, `l` or `e` in scope where it is used
    for params, body in text:gmatch("#define [%w_]+%(([^)]*)%)([^\n]*)") do
      local own = {}
      for p in params:gmatch("[%w_]+") do own[p] = true end
      for _, v in ipairs { "w", "l", "e" } do
        if body:match("%f[%w_]" .. v .. "%f[^%w_]") and not own[v] then
          bad[#bad + 1] = "src/emu/state.h: a macro uses " .. v .. " without taking it: " .. body
        end
      end
    end
    assert(#bad == 0, table.concat(bad, "\n"))
  end)

  it("export the emulator's types with its prefix", function()
    -- a type in a header of src/emu is plX_*: `typedef struct NAME {...} NAME;` and `struct NAME`
    local bad = {}
    for _, p in pairs(emuh) do
      local text = assert(H.read(H.root .. "/" .. p)):gsub("/%*.-%*/", "")   -- code, not prose
      for name in text:gmatch("}%s*([%a_][%w_]*)%s*;") do
        if not name:match("^plX_") then bad[#bad + 1] = p .. ": type " .. name end
      end
      for name in text:gmatch("struct%s+([%a_][%w_]*)") do
        if not name:match("^plX_") then bad[#bad + 1] = p .. ": struct " .. name end
      end
    end
    assert(#bad == 0, table.concat(bad, "\n"))
  end)
end)
