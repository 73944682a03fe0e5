-- dtypes.lua -- the element types of device arrays and shared-memory tiles: sizes and kinds read
-- from the C core's type table (core.types, src/base/types.h), not typed again here.
local core = require "ptxlua.core"

local C = core.types()
local D = {}

-- bytes of an element of each PTX type a tile or a parameter may hold (sub-byte types have none)
D.bytes = {}
for name, t in pairs(C) do
  if t.bits >= 8 then D.bytes[name] = t.bits / 8 end
end

-- the element types of device arrays (the emulator's and CUDA's dev:array): bytes each, and which of
-- them hold floating-point values (a host number converts to each exactly, or rounds once)
D.array, D.float = {}, {}
for _, name in ipairs { "b8", "u8", "s8", "b16", "u16", "s16", "f16", "bf16", "b32", "u32", "s32", "f32",
                        "b64", "u64", "s64", "f64" } do
  D.array[name] = D.bytes[name]
  if C[name].class == "f" then D.float[name] = true end
end

return D
