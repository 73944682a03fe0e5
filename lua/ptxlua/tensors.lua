-- ptxlua.tensors -- what a kernel declares about the data behind its parameters, and what the
-- launchers make of it (docs/dsl.md, "Tensors and tensor maps").
--
--   ptx.tensor(dtype, shape [, { strides = {...} }])      a tensor: its element type and shape
--                                                         (outermost first, as a row-major array
--                                                         is written), names of templates and
--                                                         scalar parameters resolved at launch
--   ptx.tensormap { of = "A", box = {...}, swizzle = }    a TMA map over a tensor: every field as
--                                                         dev:tensormap takes it (innermost first)
--
-- A pointer parameter is a tensor ({ "x", ptx.tensor("f32", { "B", "N" }) }, or the older
-- { "x", "f32*", shape = { "B", "N" } }); a `tensormap` parameter names the tensor it views (a
-- `tensors` entry of the kernel, or a pointer parameter). Declarations add no instruction: they
-- only tell the launchers how to check the arrays passed and how to build the maps.
local DT = require "ptxlua.dtypes"

local M = {}
local fmt, type, pairs, ipairs, tostring, floor = string.format, type, pairs, ipairs, tostring, math.floor

local TENSOR = { __name = "ptxlua.tensor" }
TENSOR.__index = TENSOR
TENSOR.__tostring = function(d) return fmt("tensor %s {%s}", tostring(d.dtype), table.concat(M.shape_text(d.shape), ", ")) end
local TMAP = { __name = "ptxlua.tensormap_decl" }
TMAP.__index = TMAP
TMAP.__tostring = function(d) return fmt("tensormap of %s", tostring(d.of)) end

function M.is_tensor(v) return getmetatable(v) == TENSOR end
function M.is_tensormap(v) return getmetatable(v) == TMAP end

local function P() return require "ptxlua" end

-- an error of a declaration: at the line that wrote it (d.file, d.line), else the caller's
local function derr(d, msg, ...)
  msg = fmt(msg, ...)
  if d and d.file then error(fmt("%s:%d: error: %s", d.file, d.line, msg), 0) end
  P().error("%s", msg)
end
M.derr = derr

function M.shape_text(shape)
  local s = {}
  for i, e in ipairs(shape) do s[i] = type(e) == "function" and "function" or tostring(e) end
  return s
end

-- an extent written as a number or an expression of names ("M", "G * N", "BN / CLUSTER")
local function check_extent(d, what, e)
  if type(e) == "number" then
    if e < 0 or e ~= floor(e) then derr(d, "%s: %s is not a whole number", what, tostring(e)) end
    return
  end
  if type(e) ~= "string" then derr(d, "%s: an entry must be a number or a name (a template, a scalar parameter, or an expression of them), got a %s", what, type(e)) end
  if not loadstring("return " .. e) then derr(d, "%s: '%s' is not an expression of names", what, e) end
end

local function check_list(d, what, v, fn_ok)
  if fn_ok and type(v) == "function" then return end
  if type(v) ~= "table" or #v == 0 then derr(d, "%s must be a list of extents%s", what, fn_ok and " (or a function of the templates)" or "") end
  for key in pairs(v) do
    if type(key) ~= "number" or key < 1 or key > #v or key % 1 ~= 0 then derr(d, "%s must be a list (1, 2, ...), not a table with key %s", what, tostring(key)) end
  end
  for i, e in ipairs(v) do check_extent(d, fmt("%s[%d]", what, i), e) end
end

-- dtypes an array may have; "name" of a string template, or a function of the templates, resolved later
local function known_dtype(s) return DT.array[s] ~= nil end
M.known_dtype = known_dtype

function M.tensor(dtype, shape, opts)
  local file, line = P()._user_where()
  local d = setmetatable({ file = file, line = line }, TENSOR)
  if type(dtype) ~= "string" and type(dtype) ~= "function" then
    derr(d, "ptx.tensor(dtype, shape [, opts]): dtype must be an element type (\"bf16\", \"f32\", ...), the name of a template holding one, or a function of the templates")
  end
  if type(dtype) == "string" and not known_dtype(dtype) and not dtype:match("^[%a_][%w_]*$") then
    derr(d, "ptx.tensor: unknown element type '%s'", dtype)
  end
  if type(shape) == "number" or type(shape) == "string" then shape = { shape } end
  check_list(d, "ptx.tensor: the shape", shape, false)
  if opts ~= nil and type(opts) ~= "table" then derr(d, "ptx.tensor(dtype, shape [, { strides = {...} }]): a table of options expected") end
  opts = opts or {}
  for k in pairs(opts) do
    if k ~= "strides" then derr(d, "ptx.tensor: unknown option '%s' (strides)", tostring(k)) end
  end
  if opts.strides ~= nil then
    check_list(d, "ptx.tensor: strides", opts.strides, false)
    if #opts.strides ~= #shape then
      derr(d, "ptx.tensor: %d strides for a shape of %d dimensions (one a dimension, in elements, outermost first)", #opts.strides, #shape)
    end
  end
  d.dtype, d.shape, d.strides = dtype, shape, opts.strides
  return d
end

-- a pointer parameter's {"x", "f32*", shape = {...}}: taken as written (the emulator reports a
-- shape it cannot use when it sizes the array, as it always has)
function M.raw_tensor(dtype, shape, strides, file, line)
  if type(shape) ~= "table" then shape = { shape } end
  return setmetatable({ dtype = dtype, shape = shape, strides = strides, file = file, line = line, raw = true }, TENSOR)
end

-- the fields of --emulate's checks in a kernel definition: reference, tolerance, emulate, inputs
function M.check_checks(def, kline)
  local function bad(msg, ...) derr(kline, "ptx.kernel '%s': " .. msg, def.name, ...) end
  if def.reference ~= nil and type(def.reference) ~= "function" then bad("'reference' must be a function(t, x) returning the expected outputs { NAME = {values...} }") end
  if def.inputs ~= nil and type(def.inputs) ~= "function" then bad("'inputs' must be a function(t, x) returning input values { NAME = {values...} }") end
  if def.emulate ~= nil then
    if type(def.emulate) ~= "table" then bad("'emulate' must be a table of template values (the sizes --emulate runs at)") end
    for name, v in pairs(def.emulate) do
      if type(name) ~= "string" or not (def.templates or {})[name] then bad("emulate.%s: not a template of the kernel", tostring(name)) end
      if type(v) ~= type(def.templates[name]) then bad("emulate.%s: a %s for a template that defaults to a %s", name, type(v), type(def.templates[name])) end
    end
  end
  local function tol(v, what)
    if type(v) == "number" then
      if not (v >= 0) then bad("%s must be a number >= 0 (got %s)", what, tostring(v)) end
    elseif type(v) == "table" and (v.rel ~= nil or v.abs ~= nil) then
      for key, x in pairs(v) do
        if (key ~= "rel" and key ~= "abs") or type(x) ~= "number" or not (x >= 0) then bad("%s: { rel = number, abs = number } (>= 0)", what) end
      end
    else return false end
    return true
  end
  if def.tolerance ~= nil and type(def.tolerance) ~= "function" and not tol(def.tolerance, "tolerance") then
    if type(def.tolerance) ~= "table" then bad("'tolerance' must be a number, { rel =, abs = }, a table of them by output name, or a function of the templates returning one") end
    for name, v in pairs(def.tolerance) do
      if type(name) ~= "string" or not tol(v, "tolerance." .. tostring(name)) then bad("tolerance.%s must be a number or { rel =, abs = }", tostring(name)) end
    end
  end
end

-- the fields of a map declaration: the view (of), and what dev:tensormap takes
local MAP_FIELDS = { of = 1, dtype = 1, box = 1, swizzle = 1, element_strides = 1, mode = 1, lower_corner = 1, upper_corner = 1,
                     channels_per_pixel = 1, pixels_per_column = 1, interleave = 1, l2_promotion = 1, oob_fill = 1 }
local SWIZZLE = { none = "none", ["32B"] = "32B", ["64B"] = "64B", ["128B"] = "128B", [0] = "none", [32] = "32B", [64] = "64B", [128] = "128B" }

function M.tensormap(spec, d)
  if not d then
    local file, line = P()._user_where()
    d = { file = file, line = line }
  end
  setmetatable(d, TMAP)
  if type(spec) ~= "table" then derr(d, "ptx.tensormap { of = \"TENSOR\", box = {...}, swizzle = ... }: a table expected") end
  local keys = {}
  for k in pairs(spec) do keys[#keys + 1] = tostring(k) end
  table.sort(keys)
  for _, k in ipairs(keys) do
    if not MAP_FIELDS[k] then derr(d, "ptx.tensormap: unknown field '%s' (of, box, swizzle, element_strides, mode, and im2col's fields)", k) end
  end
  if type(spec.of) ~= "string" or not spec.of:match("^[%a_][%w_]*$") then
    derr(d, "ptx.tensormap: 'of' must name the tensor the map views (a tensors entry of the kernel, or a pointer parameter)")
  end
  local mode = spec.mode or "tile"
  if mode ~= "tile" and mode ~= "im2col" then derr(d, "ptx.tensormap: mode '%s' (tile, im2col)", tostring(mode)) end
  if spec.dtype ~= nil and type(spec.dtype) ~= "string" then
    derr(d, "ptx.tensormap: dtype must name the map's element type (\"16u4_align16b\", ...; default: the tensor's)")
  end
  if mode == "tile" and spec.box ~= nil then check_list(d, "ptx.tensormap: box", spec.box, true) end
  if spec.element_strides ~= nil then check_list(d, "ptx.tensormap: element_strides", spec.element_strides, true) end
  local sw = spec.swizzle
  if sw ~= nil and type(sw) ~= "function" then
    if SWIZZLE[sw] == nil then derr(d, "ptx.tensormap: swizzle must be \"none\", \"32B\", \"64B\" or \"128B\" (or 0, 32, 64, 128), got %s", tostring(sw)) end
    sw = SWIZZLE[sw]
  end
  for k, v in pairs(spec) do d[k] = v end
  d.swizzle, d.mode = sw, mode
  return d
end

-- A kernel's declarations checked together (at ptx.kernel): `tensors` entries, pointer params'
-- tensors, and each map's `of`. Returns the list of declared tensors { name, decl } in name order.
function M.check_kernel(def, params, kline)
  local list, byname = {}, {}
  if def.tensors ~= nil then
    if type(def.tensors) ~= "table" then derr(kline, "ptx.kernel '%s': 'tensors' must be a table { NAME = ptx.tensor(dtype, shape), ... }", def.name) end
    local names = {}
    for name in pairs(def.tensors) do
      if type(name) ~= "string" or not name:match("^[%a_][%w_]*$") then derr(kline, "ptx.kernel '%s': tensors: bad tensor name %s", def.name, tostring(name)) end
      names[#names + 1] = name
    end
    table.sort(names)
    for _, name in ipairs(names) do
      local t = def.tensors[name]
      if not M.is_tensor(t) then derr(kline, "ptx.kernel '%s': tensors.%s must be a ptx.tensor(dtype, shape) declaration", def.name, name) end
      for _, p in ipairs(params) do
        if p[1] == name then derr(t, "ptx.kernel '%s': tensor '%s' has the name of a parameter; a pointer parameter is a tensor already (declare its shape there)", def.name, name) end
      end
      list[#list + 1] = { name = name, decl = t }
      byname[name] = t
    end
  end
  for _, p in ipairs(params) do
    if p.tensor then byname[p[1]] = p.tensor end
  end
  for _, p in ipairs(params) do
    local v = p.view
    if v then
      local t = byname[v.of]
      if not t then
        local known = {}
        for name in pairs(byname) do known[#known + 1] = name end
        table.sort(known)
        derr(v, "ptx.kernel '%s': parameter '%s' views tensor '%s', which the kernel does not declare (%s)", def.name, p[1], v.of,
             #known > 0 and "its tensors: " .. table.concat(known, ", ") or "declare it: tensors = { " .. v.of .. " = ptx.tensor(dtype, shape) }")
      end
      if type(v.box) == "table" and #v.box ~= #t.shape then
        derr(v, "ptx.tensormap of %s: a box of %d dimensions for a tensor of %d (the box is innermost first, as the copy's coordinates)", v.of, #v.box, #t.shape)
      end
      if t.strides then
        local last = t.strides[#t.strides]
        if type(last) == "number" and last ~= 1 then
          derr(v, "ptx.tensormap of %s: the tensor's innermost stride is %s; a TMA map needs it contiguous (stride 1)", v.of, tostring(last))
        end
      end
    end
  end
  return list
end

---------------------------------------------------------------------------------------------------
-- resolution: the declarations at a launch's template values and scalar arguments
---------------------------------------------------------------------------------------------------
-- one entry's value and the names it read
local function eval_entry(e, env, d, what)
  if type(e) == "number" then return e, {} end
  if env[e] ~= nil then return env[e], { e } end
  local f = loadstring("return " .. e)
  local used, seen = {}, {}
  setfenv(f, setmetatable({}, { __index = function(_, n)
    local v = env[n]
    if v == nil then derr(d, "%s: '%s' is neither a template nor a scalar parameter", what, n) end
    if not seen[n] then seen[n] = true; used[#used + 1] = n end
    return v
  end }))
  local ok, v = pcall(f)
  if not ok then error(v, 0) end
  if type(v) ~= "number" then derr(d, "%s: '%s' is not a number (%s)", what, e, tostring(v)) end
  return v, used
end
M.eval_entry = eval_entry

local function eval_list(v, env, t, d, what)
  if type(v) == "function" then
    local ok, r = pcall(v, t)
    if not ok then error(r, 0) end
    if type(r) ~= "table" then derr(d, "%s: the function returned %s, not a list", what, type(r)) end
    v = r
  end
  local out = {}
  for i, e in ipairs(v) do out[i] = (eval_entry(e, env, d, fmt("%s[%d]", what, i))) end
  return out
end

-- the concrete tensor of a declaration: dtype, shape, strides (elements), span (elements)
function M.resolve_tensor(name, d, env, t)
  local dtype = d.dtype
  if type(dtype) == "function" then dtype = dtype(t) end
  if type(dtype) == "string" and not known_dtype(dtype) then
    local v = t[dtype]
    if type(v) ~= "string" then derr(d, "tensor %s: element type '%s' is neither a type nor a template holding one", name, dtype) end
    dtype = v
  end
  if not known_dtype(dtype) then derr(d, "tensor %s: unknown element type '%s'", name, tostring(dtype)) end
  local shape, used = {}, {}
  for i, e in ipairs(d.shape) do
    local v, names = eval_entry(e, env, d, fmt("tensor %s: shape[%d]", name, i))
    for _, n in ipairs(names) do used[#used + 1] = n end
    if not (v >= 1 and v < math.huge and v == floor(v)) then
      derr(d, "tensor %s: shape {%s} has an extent '%s' of %s: each must be a positive whole number", name,
           table.concat(M.shape_text(d.shape), ", "), tostring(e), tostring(v))
    end
    shape[i] = v
  end
  local strides
  if d.strides then strides = eval_list(d.strides, env, t, d, "tensor " .. name .. ": strides")
  else
    strides = {}
    local s = 1
    for i = #shape, 1, -1 do strides[i] = s; s = s * shape[i] end
  end
  local span = 1
  for i = 1, #shape do span = span + (shape[i] - 1) * strides[i] end
  return { name = name, dtype = dtype, shape = shape, strides = strides, span = span, packed = d.strides == nil, used = used, decl = d }
end

-- the dev:tensormap spec of map declaration v over the concrete tensor T
function M.map_spec(v, T, env, t)
  local spec = { dtype = v.dtype or T.dtype, mode = v.mode }
  local r = #T.shape
  spec.dims, spec.strides = {}, {}
  local bytes = DT.array[T.dtype]
  for i = 1, r do spec.dims[i] = T.shape[r + 1 - i] end
  for i = 2, r do spec.strides[i - 1] = T.strides[r + 1 - i] * bytes end
  if T.strides[r] ~= 1 then derr(v, "ptx.tensormap of %s: the tensor's innermost stride is %d; a TMA map needs it contiguous (stride 1)", T.name, T.strides[r]) end
  local what = "ptx.tensormap of " .. T.name
  if v.box ~= nil then spec.box = eval_list(v.box, env, t, v, what .. ": box") end
  if v.element_strides ~= nil then spec.element_strides = eval_list(v.element_strides, env, t, v, what .. ": element_strides") end
  local sw = v.swizzle
  if type(sw) == "function" then sw = SWIZZLE[sw(t)] or derr(v, "%s: the swizzle function returned %s", what, tostring(sw(t))) end
  spec.swizzle = sw
  for _, k in ipairs { "lower_corner", "upper_corner", "interleave", "l2_promotion", "oob_fill" } do
    local x = v[k]
    if type(x) == "function" then x = x(t) end
    spec[k] = x
  end
  for _, k in ipairs { "channels_per_pixel", "pixels_per_column" } do
    if v[k] ~= nil then spec[k] = type(v[k]) == "function" and v[k](t) or (eval_entry(v[k], env, v, what .. ": " .. k)) end
  end
  return spec
end

-- the environment of names for a launch: number templates, then scalar arguments
local function env_of(k, t, args)
  local env = {}
  for name, v in pairs(t) do if type(v) == "number" then env[name] = v end end
  for i, p in ipairs(k.params) do
    if not p.pointer and not p.tensormap and not p.count then
      local v = args and (args[i] ~= nil and args[i] or args[p[1]])
      if type(v) == "number" then env[p[1]] = v end
    end
  end
  return env
end
M.env_of = env_of

-- every tensor of kernel k at templates t and scalar arguments args: name -> concrete tensor
-- (pointer parameters' and the `tensors` entries); names that cannot be resolved (a scalar not
-- given) leave their tensor out when lenient
function M.resolve_all(k, t, args, lenient)
  local env = env_of(k, t, args)
  local out = {}
  local function one(name, d)
    if lenient then
      local ok, T = pcall(M.resolve_tensor, name, d, env, t)
      if ok then out[name] = T end
    else out[name] = M.resolve_tensor(name, d, env, t) end
  end
  for _, p in ipairs(k.params) do if p.tensor then one(p[1], p.tensor) end end
  for _, e in ipairs(k.tensors or {}) do one(e.name, e.decl) end
  return out, env
end

-- the declaration of tensor `name` of kernel k (a `tensors` entry or a pointer parameter's)
function M.decl_of(k, name)
  for _, e in ipairs(k.tensors or {}) do if e.name == name then return e.decl end end
  for _, p in ipairs(k.params) do if p[1] == name and p.tensor then return p.tensor end end
end

-- the specs of every map parameter at templates t (k:maps(defines)), in parameter order
function M.map_specs(k, defines, args)
  local t = k:resolve(defines)
  local all, env = M.resolve_all(k, t, args, false)
  local out = {}
  for _, p in ipairs(k.params) do
    if p.view then out[#out + 1] = M.map_spec(p.view, all[p.view.of], env, t) end
  end
  return unpack(out)
end

---------------------------------------------------------------------------------------------------
-- the declarations for the C launchers (src/api/launch.c, src/api/emitc.c): what a launch that is
-- not in Lua (ptxlua_launch, an --emit-c launcher) needs to check a tensor and build a map, with the
-- templates resolved and the scalar parameters left as names. An extent is { text, value } (a
-- number for these templates), { text, nil, j } (scalar parameter j, 0-based), { text, nil, nil,
-- ops } (arithmetic over scalar parameters: ops a flat list of code, operand pairs in postfix
-- order: 1 a number, 2 parameter j, 3 + 4 - 5 * 6 / 7 % 8 ^ (as Lua computes them) 9 unary -),
-- or { text } (what only a trace could say: not checked).
---------------------------------------------------------------------------------------------------
local SYM = {}
local function sym_node(op, a, b) return setmetatable({ op = op, a = a, b = b }, SYM) end
for mm, code in pairs { __add = 3, __sub = 4, __mul = 5, __div = 6, __mod = 7, __pow = 8 } do
  SYM[mm] = function(a, b) return sym_node(code, a, b) end
end
SYM.__unm = function(a) return sym_node(9, a) end
local function sym_ops(x, out)
  if type(x) == "number" then out[#out + 1] = 1; out[#out + 1] = x
  elseif x.op == 2 then out[#out + 1] = 2; out[#out + 1] = x.j
  else
    sym_ops(x.a, out)
    if x.op ~= 9 then sym_ops(x.b, out) end
    out[#out + 1] = x.op; out[#out + 1] = 0
  end
  return out
end

-- one extent: templates t (numbers), scalars: name -> 0-based parameter index
local function sym_extent(e, t, scalars)
  if type(e) == "number" then return { tostring(e), e } end
  if type(e) ~= "string" then return { tostring(e) } end
  if scalars[e] then return { e, nil, scalars[e] } end
  local f = loadstring("return " .. e)
  if not f then return { e } end
  setfenv(f, setmetatable({}, { __index = function(_, n)
    if scalars[n] then return setmetatable({ op = 2, j = scalars[n] }, SYM) end
    if type(t[n]) == "number" and n ~= "kernel" then return t[n] end
    error("open", 0)
  end }))
  local ok, v = pcall(f)
  if ok and type(v) == "number" then return { e, v } end
  if ok and getmetatable(v) == SYM then return { e, nil, nil, sym_ops(v, {}) } end
  return { e }
end

local function sym_list(v, t, scalars)
  if type(v) == "function" then
    local ok, r = pcall(v, t)
    if not ok then error(r, 0) end
    v = r
  end
  if type(v) ~= "table" then return nil end
  local out = {}
  for i, e in ipairs(v) do out[i] = sym_extent(e, t, scalars) end
  return out
end

local function c_tensor(name, d, t, scalars)
  local dtype = d.dtype
  if type(dtype) == "function" then dtype = dtype(t) end
  if type(dtype) == "string" and not known_dtype(dtype) and type(t[dtype]) == "string" then dtype = t[dtype] end
  local shape = d.shape
  if type(shape) ~= "table" then shape = { shape } end
  return { name = name, dtype = tostring(dtype), shape = sym_list(shape, t, scalars),
           strides = d.strides and sym_list(d.strides, t, scalars) or nil }
end

-- per parameter (in order): nil, or { tensor = ... } for a pointer that declares its tensor, or
-- { tensor = ..., view = ... } for a map that declares the tensor it views (view.err: why it could
-- not be read for these templates, said when a launch has to build it)
function M.c_info(k, defines)
  local t = k:resolve(defines)
  local scalars = {}
  for j, p in ipairs(k.params) do
    if not p.pointer and not p.tensormap and not p.count then scalars[p[1]] = j - 1 end
  end
  local out = {}
  for i, p in ipairs(k.params) do
    if p.tensor then
      local ok, T = pcall(c_tensor, p[1], p.tensor, t, scalars)
      out[i] = ok and { tensor = T } or nil
    elseif p.view then
      local v = p.view
      local ok, r = pcall(function()
        local d = M.decl_of(k, v.of)
        local T = c_tensor(v.of, d, t, scalars)
        local of_param = -1
        for j, q in ipairs(k.params) do if q[1] == v.of and q.pointer then of_param = j - 1 end end
        local tm = v.dtype or DT.packed[T.dtype] or DT.storage[T.dtype] or T.dtype
        local V = { of_param = of_param, mode = v.mode, tmdtype = tm, file = v.file, line = v.line }
        if v.box ~= nil then V.box = sym_list(v.box, t, scalars) end
        if v.element_strides ~= nil then V.element_strides = sym_list(v.element_strides, t, scalars) end
        local sw = v.swizzle
        if type(sw) == "function" then sw = SWIZZLE[sw(t)] or derr(v, "ptx.tensormap of %s: the swizzle function returned %s", v.of, tostring(sw(t))) end
        V.swizzle = sw or "none"
        for _, key in ipairs { "lower_corner", "upper_corner", "interleave", "l2_promotion", "oob_fill" } do
          local x = v[key]
          if type(x) == "function" then x = x(t) end
          V[key] = x
        end
        for _, key in ipairs { "channels_per_pixel", "pixels_per_column" } do
          local x = v[key]
          if type(x) == "function" then x = x(t) end
          if x ~= nil then V[key] = sym_extent(x, t, scalars) end
        end
        return { tensor = T, view = V }
      end)
      out[i] = ok and r or { view = { err = tostring(r) } }
    end
  end
  return out
end

local function coords(T, i)
  if not T.packed then return fmt("[%d]", i - 1) end
  local c, r = {}, i - 1
  for d = #T.shape, 1, -1 do c[d] = r % T.shape[d]; r = floor(r / T.shape[d]) end
  return "[" .. table.concat(c, "][") .. "]"
end
M.coords = coords

local function dims_text(T)
  local s = {}
  for i, e in ipairs(T.decl.shape) do
    s[i] = (type(e) == "string" and e ~= tostring(T.shape[i])) and fmt("%s = %d", e, T.shape[i]) or tostring(T.shape[i])
  end
  return "{" .. table.concat(s, ", ") .. "}"
end
M.dims_text = dims_text

-- The arguments of a launch with every tensor checked and every map built: args as the user gave
-- them (by position or by name: a map's tensor may be passed at the map's position, or by the
-- tensor's name); is_array(v) tells a device array; make_map(array, spec) builds a map on the
-- launch's device; fail(...) raises at the launch's line. Returns a new argument list (positions).
function M.bind(k, args, defines, is_array, make_map, fail)
  local has = false
  for _, p in ipairs(k.params) do if p.view or p.tensor then has = true; break end end
  if not has then return args end
  args = args or {}
  local t = k:resolve(defines)
  local all, env = M.resolve_all(k, t, args, true)
  local out = {}
  for key, v in pairs(args) do out[key] = v end
  local function check(T, a, what)
    if a.freed then fail("%s: the array was freed", what) end
    if a.n < T.span then
      fail("%s: tensor %s is %s %s (%.0f elements), the array has %.0f", what, T.name, T.dtype, dims_text(T), T.span, a.n)
    end
  end
  for i, p in ipairs(k.params) do
    local v = args[i]
    if v == nil then v = args[p[1]] end
    local what = fmt("argument %d (%s) of %s", i, p[1], k.name)
    if p.tensor and is_array(v) then
      local T = all[p[1]]
      if T then
        if DT.array[T.dtype] ~= DT.array[v.dtype] then fail("%s: a %s array for tensor %s of %s elements", what, v.dtype, p[1], T.dtype) end
        check(T, v, what)
      end
    elseif p.view then
      local of = p.view.of
      if v == nil then v = args[of] end
      if v == nil then
        for j, q in ipairs(k.params) do if q[1] == of then v = args[j] end end
      end
      local T = all[of]
      if v == nil then
        fail("launch of %s: no argument for parameter %d (%s): pass tensor %s (an array%s) or a tensor map", k.name, i, p[1], of,
             T and fmt(" of %s %s", T.dtype, dims_text(T)) or "")
      end
      if is_array(v) then
        if not T then T = M.resolve_tensor(of, M.decl_of(k, of), env, t) end
        if v.dtype ~= T.dtype then fail("%s: a %s array for tensor %s, which holds %s", what, v.dtype, of, T.dtype) end
        check(T, v, what .. fmt(" (tensor %s)", of))
        out[i] = make_map(v, M.map_spec(p.view, T, env, t))
        out[p[1]] = nil
      elseif args[i] == nil and args[p[1]] == nil then
        out[i] = v
      end
    end
  end
  for _, e in ipairs(k.tensors or {}) do out[e.name] = nil end
  return out
end

return M
