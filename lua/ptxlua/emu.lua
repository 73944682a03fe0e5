-- ptxlua.emu -- run kernels on the CPU emulator: devices, arrays, launches, generated inputs.
-- The calls are the ones a GPU backend will offer (rt.device(kind), dev:array, rt.launch), so host
-- code written against the emulator runs unchanged on a GPU later.
--
--   local rt = require "ptxlua.emu"
--   local dev = rt.device("emu")
--   local x = dev:array("f32", n, function(i) return i * 0.5 end)   -- i = 1 .. n
--   rt.launch(kernel, { device = dev, args = { x, y, out, n }, defines = { BLOCK = 128 } })
--   local values = out:read()                                         -- a Lua table, 1-based

local core = require "ptxlua.core"

local M = {}
local fmt, floor, type, pairs, ipairs, tostring = string.format, math.floor, type, pairs, ipairs, tostring

local DT = require "ptxlua.dtypes"
local SIZES, FLOAT = DT.array, DT.float     -- array element types: bytes, and the floating-point ones
M.sizes = SIZES

-- errors at the caller's line, in the project's format: the DSL's own (the first frame outside
-- ptxlua's Lua files; the REPL's commands are ptxlua's too: their errors carry no place)
local fail = require("ptxlua").error
-- an error of kernel k's definition (a shape, a parameter without a value): at its ptx.kernel line
local kfail = require("ptxlua")._kernel_error

---------------------------------------------------------------------------------------------------
-- arrays: device buffers of one element type
---------------------------------------------------------------------------------------------------
local Array = {}
Array.__index = Array
Array.__tostring = function(a) return fmt("%s[%d] on %s", a.dtype, a.n, a.device.kind) end
M.Array = Array

local function is_array(v) return getmetatable(v) == Array end
M.is_array = is_array

-- values: a table (1-based), a number for every element, or a function of the 1-based index
local function mini_fail(a) return function(why) fail("%s array: %s", a.dtype, why) end end
function Array.write(a, values)
  if a.freed then fail("the array was freed") end
  local tv = type(values)
  if DT.mini[a.dtype] then                      -- narrow floats: codes, packed (ptxlua.dtypes)
    if tv == "function" then
      local t = {}
      for i = 1, a.n do t[i] = values(i) end
      values, tv = t, "table"
    end
    if tv ~= "number" and tv ~= "table" then fail("array values must be a table, a number or a function of the index") end
    if tv == "table" and #values > a.n then fail("%d values for an array of %d", #values, a.n) end
    DT.write(a.device.mem, a.addr, a.dtype, values, 0, a.n, mini_fail(a))
    return a
  end
  if tv == "number" then a.device.mem:write(a.addr, a.dtype, values)
  elseif tv == "table" then
    if #values > a.n then fail("%d values for an array of %d", #values, a.n) end
    a.device.mem:write(a.addr, a.dtype, values)
  elseif tv == "function" then
    local t = {}
    for i = 1, a.n do t[i] = values(i) end
    a.device.mem:write(a.addr, a.dtype, t)
  else fail("array values must be a table, a number or a function of the index") end
  return a
end
Array.fill = Array.write

-- NaN for floats, a recognizable pattern for integers: for every element a kernel should write
function Array.poison(a)
  if FLOAT[a.dtype] then return a:write(0 / 0) end
  local mf = DT.mini[a.dtype]
  if mf then                                    -- its NaN, else its largest value
    local codes = {}
    for i = 1, a.n do codes[i] = mf.nancode or (mf.codes[#mf.codes] + mf.signbit) end
    DT.write_codes(a.device.mem, a.addr, a.dtype, 0, codes)
    return a
  end
  local s = SIZES[a.dtype]
  return a:write(s == 1 and 0xA5 or s == 2 and 0xA5A5 or 0xA5A5A5A5)
end

function Array.read(a, first, count)
  if a.freed then fail("the array was freed") end
  return DT.read(a.device.mem, a.addr, a.dtype, (first or 1) - 1, count, a.n)
end
function Array.get(a, i)
  if type(i) ~= "number" or i < 1 or i > a.n or i ~= floor(i) then fail("index %s outside 1..%d", tostring(i), a.n) end
  return DT.read(a.device.mem, a.addr, a.dtype, i - 1, 1, a.n)[1]
end
function Array.set(a, i, v)
  if type(i) ~= "number" or i < 1 or i > a.n or i ~= floor(i) then fail("index %s outside 1..%d", tostring(i), a.n) end
  DT.write(a.device.mem, a.addr, a.dtype, { v }, i - 1, a.n, mini_fail(a))
end
function Array.bytes(a) return a.device.mem:bytes(a.addr) end
-- raw copies between host memory (an FFI pointer) and the first `bytes` of the array (as ptxlua.cuda's)
local function raw_span(a, bytes)
  if a.freed then fail("the array was freed") end
  bytes = bytes or a.nbytes
  if type(bytes) ~= "number" or bytes < 0 or bytes > a.nbytes or bytes % 1 ~= 0 then fail("%s bytes for an array of %d bytes", tostring(bytes), a.nbytes) end
  return bytes
end
function Array.upload_from(a, ptr, bytes)
  local n = raw_span(a, bytes)
  a.device.mem:bytes(a.addr, require("ffi").string(ptr, n))
  return a
end
function Array.download_to(a, ptr, bytes)
  local n = raw_span(a, bytes)
  require("ffi").copy(ptr, a.device.mem:bytes(a.addr), n)
  return a
end
function Array.free(a)
  if not a.freed then a.device.mem:free(a.addr); a.freed = true end
end

---------------------------------------------------------------------------------------------------
-- devices
---------------------------------------------------------------------------------------------------
local Device = {}
Device.__index = Device
Device.__tostring = function(d) return "device " .. d.kind end
M.Device = Device

function M.device(kind)
  kind = kind or "emu"
  if kind ~= "emu" then fail("device '%s' is not available (this build runs kernels on the emulator: \"emu\")", tostring(kind)) end
  return setmetatable({ kind = "emu", mem = core.emu_mem(), cache = setmetatable({}, { __mode = "k" }) }, Device)
end

-- dev:array(dtype, n [, values [, name]])
function Device.array(d, dtype, n, values, name)
  if not SIZES[dtype] then fail("unknown element type '%s' (f32, f16, bf16, f64, u8 .. s64, e4m3, e5m2, e2m3, e3m2, e2m1, ue8m0, ue4m3)", tostring(dtype)) end
  if type(n) ~= "number" or n < 1 or n ~= floor(n) then fail("array length must be a positive integer (got %s)", tostring(n)) end
  if n * SIZES[dtype] > 2^40 then fail("an array of %s %s elements: more memory than the emulator gives a buffer (1 TB)", tostring(n), dtype) end
  local a = setmetatable({ device = d, dtype = dtype, n = n, nbytes = DT.nbytes(dtype, n) }, Array)
  a.addr = d.mem:alloc(a.nbytes, name or fmt("%s[%d]", dtype, n))
  if values ~= nil and values ~= false then a:write(values) end   -- false: as allocated (zeroed here)
  return a
end

-- a TMA tensor map over an array, for a `tensormap` kernel parameter: spec = { dims = {inner, ...}
-- (default: { array length }), strides = {bytes of dim 2, ...} (default: packed), box = {...}
-- (default: dims), element_strides = {...}, swizzle = "none"|"32B"|"64B"|"128B", dtype = (default the
-- array's) }; the call of ptxlua.cuda's device, with the emulator's own 128-byte encoding
-- (docs/emulator.md), validated as cuTensorMapEncodeTiled validates. With mode = "im2col" (rank 3-5:
-- NWC, NHWC, NDHWC, dims C first) the box is lower_corner / upper_corner (the pixel box, one
-- coordinate per spatial dim, W first; default 0s), channels_per_pixel (default C) and
-- pixels_per_column, plus interleave, l2_promotion and oob_fill ("zero"|"nan"), validated as
-- cuTensorMapEncodeIm2col validates.
local TensorMap = { __name = "ptxlua.emu.tensormap" }
TensorMap.__index = TensorMap
TensorMap.__tostring = function(t) return fmt("tensormap over %s", tostring(t.array)) end
M.TensorMap = TensorMap

local TM_KEYS = { dims = "both", strides = "both", dtype = "both", element_strides = "both", swizzle = "both", mode = "both",
  box = "tile", lower_corner = "im2col", upper_corner = "im2col", channels_per_pixel = "im2col",
  pixels_per_column = "im2col", interleave = "im2col", l2_promotion = "im2col", oob_fill = "im2col" }

-- the tensor map spec of dev:tensormap checked and completed (shared with ptxlua.cuda): mode, dtype,
-- dims, strides (packed by default), and the fields of that mode
function M._tmspec(a, spec, fail)
  spec = spec or {}
  if type(spec) ~= "table" then fail("tensormap: spec must be a table { dims =, box =, swizzle =, ... }") end
  local mode = spec.mode or "tile"
  if mode ~= "tile" and mode ~= "im2col" then fail("tensormap: mode '%s' (tile, im2col)", tostring(mode)) end
  for key in pairs(spec) do
    local m = TM_KEYS[key]
    if m and m ~= "both" and m ~= mode then
      fail("tensormap: '%s' is a field of %s maps (mode = \"%s\")%s", key, m, m, mode == "im2col" and "; im2col boxes are channels_per_pixel x pixels_per_column" or "")
    end
  end
  local dims = spec.dims or { a.n }
  local dtype = spec.dtype or a.dtype
  -- the packed sub-byte types: the driver's 16 x U4 (e2m1, dense or in 16-byte slots) and 16 x U6
  -- (e2m3, e3m2, in 16-byte slots) element types; the dims count the values
  dtype = DT.packed[dtype] or DT.storage[dtype] or dtype   -- an 8-bit narrow float: the map reads bytes
  local pbits = DT.packed_bits[dtype]
  if pbits and DT.mini[a.dtype] and DT.array[a.dtype] * 8 ~= pbits then
    fail("tensormap: a map of %d-bit elements (%s) over an array of %s", pbits, dtype, a.dtype)
  end
  if not SIZES[dtype] and dtype ~= "tf32" and not pbits then fail("tensormap: unknown element type '%s'", tostring(dtype)) end
  local strides = spec.strides
  if not strides then
    strides = {}
    local s = pbits and pbits / 8 or SIZES[dtype] or 4
    for i = 1, #dims - 1 do
      s = s * dims[i]
      if s ~= math.floor(s) then fail("tensormap: %d %d-bit elements are no whole number of bytes: give strides", dims[i], pbits) end
      strides[i] = s
    end
  end
  local t = { mode = mode, dtype = dtype, dims = dims, strides = strides, element_strides = spec.element_strides,
              swizzle = spec.swizzle or "none" }
  if mode == "tile" then
    t.box = spec.box or dims
  else
    local ns = #dims - 2
    local zeros = {}
    for i = 1, ns do zeros[i] = 0 end
    t.lower, t.upper = spec.lower_corner or zeros, spec.upper_corner or zeros
    if type(t.lower) ~= "table" or type(t.upper) ~= "table" then fail("tensormap: lower_corner and upper_corner are tables, one entry per spatial dimension (W first)") end
    if ns >= 1 and (#t.lower ~= ns or #t.upper ~= ns) then
      fail("tensormap: an im2col map of rank %d takes %d lower_corner and upper_corner entries (W%s), got %d and %d", #dims, ns,
           ns == 1 and "" or ns == 2 and ", H" or ", H, D", #t.lower, #t.upper)
    end
    t.channels_per_pixel = spec.channels_per_pixel or dims[1]
    t.pixels_per_column = spec.pixels_per_column
    if t.pixels_per_column == nil then fail("tensormap: an im2col map needs pixels_per_column (the pixels one copy walks)") end
    for _, k in ipairs { "channels_per_pixel", "pixels_per_column" } do
      if type(t[k]) ~= "number" then fail("tensormap: %s must be a number, got %s", k, type(t[k])) end
    end
    t.interleave, t.l2_promotion, t.oob_fill = spec.interleave or "none", spec.l2_promotion or "128B", spec.oob_fill or "zero"
  end
  return t
end

function Device.tensormap(d, a, spec)
  if not is_array(a) or a.device ~= d then fail("tensormap: a device array of this device expected") end
  if a.freed then fail("tensormap: the array was freed") end
  local t = M._tmspec(a, spec, fail)
  local bytes, err
  if t.mode == "tile" then
    bytes, err = d.mem:tensormap(t.dtype, a.addr, t.dims, t.strides, t.box, t.element_strides, t.swizzle)
  else
    bytes, err = d.mem:tensormap_im2col(t.dtype, a.addr, t.dims, t.strides, t.lower, t.upper, t.channels_per_pixel,
                                        t.pixels_per_column, t.element_strides, t.interleave, t.swizzle, t.l2_promotion, t.oob_fill)
  end
  if not bytes then fail("%s", err) end
  return setmetatable({ bytes = bytes, array = a, spec = spec or {} }, TensorMap)
end

function Device.launch(d, k, opts)
  opts = opts or {}
  opts.device = d
  return M.launch(k, opts)
end

---------------------------------------------------------------------------------------------------
-- launches
---------------------------------------------------------------------------------------------------
local function defines_key(defs)
  local keys = {}
  for k, v in pairs(defs or {}) do keys[#keys + 1] = tostring(k) .. "=" .. tostring(v) end
  table.sort(keys)
  return table.concat(keys, ";")
end

local DYN = setmetatable({}, { __mode = "k" })

-- the emulator of kernel k traced with these defines (cached per device and kernel)
local function emulator(d, k, opts)
  local per = d.cache[k]
  if not per then per = {}; d.cache[k] = per end
  local key = defines_key(opts.defines) .. "|" .. tostring(opts.arch)
  local e = per[key]
  if not e then
    local m = k:trace { defines = opts.defines, arch = opts.arch }
    e = core.emu(m, k.name, d.mem)
    local err = e:error()
    if err then error(err, 0) end
    -- the trace's shared-memory plans: TMA and bulk copies must stay in the allocation they land in
    for _, r in ipairs(k.smem_regions or {}) do e:region(r.var, r.name, r.offset, r.stage_bytes, r.bytes, r.stages) end
    per[key] = e
    -- the kernel's `smem`, or this trace's shared-memory plans' dynamic block, the larger (as on CUDA)
    DYN[e] = k:dynamic_smem_for(opts.defines)
  end
  e:clear()
  return e
end

-- the bytes of argument v for parameter p (p from emu:params(), kp the DSL's declaration)
local function arg_bytes(k, i, p, kp, v, d)
  if kp and kp.pointer then
    if is_array(v) then
      if v.device ~= d then fail("argument %d (%s) of %s: the array lives on another device", i, p.name, k.name) end
      if v.freed then fail("argument %d (%s) of %s: the array was freed", i, p.name, k.name) end
      if kp.elem and SIZES[kp.elem] and SIZES[kp.elem] ~= SIZES[v.dtype] then
        fail("argument %d (%s) of %s: a %s array for a %s* parameter", i, p.name, k.name, v.dtype, kp.elem)
      end
      return core.emu_pack("u64", v.addr)
    elseif type(v) == "number" then return core.emu_pack("u64", v)   -- a raw device address (or 0)
    end
    fail("argument %d (%s) of %s: a device array expected, got %s", i, p.name, k.name, type(v))
  end
  if getmetatable(v) == TensorMap then
    if v.array.device ~= d then fail("argument %d (%s) of %s: the tensor map's array lives on another device", i, p.name, k.name) end
    if v.array.freed then fail("argument %d (%s) of %s: the tensor map's array was freed", i, p.name, k.name) end
    v = v.bytes
  end
  if type(v) == "string" then
    if #v ~= p.size then fail("argument %d (%s) of %s: %d bytes expected, got %d", i, p.name, k.name, p.size, #v) end
    return v
  end
  if type(v) == "boolean" then v = v and 1 or 0 end
  if type(v) ~= "number" then fail("argument %d (%s) of %s: a number expected, got %s", i, p.name, k.name, type(v)) end
  if p.size ~= SIZES[p.type] then fail("argument %d (%s) of %s: a %d-byte parameter takes a string of bytes", i, p.name, k.name, p.size) end
  if not FLOAT[p.type] and v ~= floor(v) then fail("argument %d (%s) of %s: %s is not an integer", i, p.name, k.name, tostring(v)) end
  return core.emu_pack(p.type, v)
end

-- the budget of warp instructions a launch takes (nil: the emulator's default, M.LIMIT); a positive
-- whole number, or false (or math.huge) for none: the number the core takes (0: none)
M.LIMIT = core.emu_limit_default
function M._limit(v)
  if v == nil then return nil end
  if v == false or v == math.huge then return 0 end
  if type(v) ~= "number" or v < 1 or v ~= floor(v) or v >= 2^63 then
    fail("limit must be a positive whole number of warp instructions, or false for none (got %s)", tostring(v))
  end
  return v
end

-- rt.launch(kernel, { device =, args = {...}, grid =, block =, cluster =, smem =, defines =, arch =,
--                     checks = { uninit_regs =, uninit_shared =, races =, tmem_lanes = }, limit =,
--                     sample =, clc =, trace = { cta =, thread = } or { cta =, warp = } })
-- clc: which clusterlaunchcontrol.try_cancel requests succeed: "all" (the default: each one while a
-- cluster of the launch has not started), "none" (every one fails: the kernel's fallback path) or
-- "alternate" (the launch's requests alternately, the first succeeding).
-- limit: the budget of warp instructions (default M.LIMIT; false: none); sample = n: run only the
-- first n clusters (CTAs without clusters) of the grid, printing nothing (what the launch costs).
-- grid and block default to the kernel's launch_dims for the defines. Returns the run's statistics
-- (thread_insns, warp_insns, ctas, seconds, grid, block, trace); raises "file:line: error: ..."
-- on any failure (the line of the instruction for errors found while running). The trace text is
-- also left in opts.trace.text, so it can be read after a run that failed.
function M.launch(k, opts)
  opts = opts or {}
  local d = opts.device
  if d == nil then fail("launch: no device (pass device = rt.device \"emu\")") end
  if getmetatable(d) ~= Device then fail("launch: device must come from rt.device()") end
  if type(k) ~= "table" or type(k.trace) ~= "function" then fail("launch: a kernel (from ptx.kernel) expected") end
  local grid, block, cluster, blame = require("ptxlua")._geometry(k, opts)
  local e = emulator(d, k, opts)
  local ps = e:params()
  -- tensors passed for tensor-map parameters become maps; every declared tensor is checked
  local args = require("ptxlua.tensors").bind(k, opts.args or {}, opts.defines, is_array,
                                              function(a, spec) return d:tensormap(a, spec) end, fail)
  local n = 0
  for _ in pairs(args) do n = n + 1 end
  if #args ~= #ps and n == #args then fail("launch of %s: %d arguments for %d parameters", k.name, #args, #ps) end
  for i, p in ipairs(ps) do
    local v = args[i]
    if v == nil then v = args[p.name] end
    if v == nil then fail("launch of %s: no argument for parameter %d (%s)", k.name, i, p.name) end
    local ok, err = e:set_param(i, arg_bytes(k, i, p, k.params[i], v, d))
    if not ok then error(err, 0) end
  end
  local c = opts.checks or {}
  local tr = opts.trace
  local trace
  if tr then
    if type(tr) ~= "table" then fail("trace must be { cta = n, thread = n } or { cta = n, warp = n }") end
    trace = tr.warp and { tr.cta or 0, tr.warp * 32, true } or { tr.cta or 0, tr.thread or 0, false }
  end
  local clc = opts.clc
  if clc ~= nil and clc ~= "all" and clc ~= "none" and clc ~= "alternate" then
    fail("clc must be \"all\", \"none\" or \"alternate\" (got %s)", tostring(clc))
  end
  e:options { uninit_regs = c.uninit_regs, uninit_shared = c.uninit_shared, races = c.races, tmem_lanes = c.tmem_lanes,
              limit = M._limit(opts.limit), sample = opts.sample, clc = clc, trace = trace }
  local ok, err = e:launch(grid, block, opts.smem or DYN[e] or 0)
  if not ok then blame(err) end
  ok, err = e:cluster(cluster)
  if not ok then blame(err) end
  local t0 = os.clock()
  ok, err = e:run()
  local secs = os.clock() - t0
  local st = e:stats()
  st.seconds = secs
  st.grid, st.block, st.cluster = grid, block, cluster
  if tr then st.trace = e:trace_text(); tr.text = st.trace end   -- tr.text survives a failed run
  if not ok then error(err, 0) end
  return st
end

---------------------------------------------------------------------------------------------------
-- generated inputs and a summary (for `ptxlua FILE.lua --emulate`)
---------------------------------------------------------------------------------------------------
-- one shape entry's value, and the names it read (templates or scalar parameters)
local function resolve_dim(dim, env, k, pname)
  if type(dim) == "number" then return dim, {} end
  if type(dim) ~= "string" then kfail(k, "parameter %s of %s: a shape entry must be a number or a name", pname, k.name) end
  if env[dim] ~= nil then return env[dim], { dim } end
  local f = loadstring("return " .. dim)
  if f then
    local used, seen = {}, {}
    setfenv(f, setmetatable({}, { __index = function(_, n)
      local v = env[n]
      if v == nil then kfail(k, "parameter %s of %s: shape name '%s' is neither a template nor a scalar parameter", pname, k.name, n) end
      if not seen[n] then seen[n] = true; used[#used + 1] = n end
      return v
    end }))
    local ok, v = pcall(f)
    if ok and type(v) == "number" then return v, used end
    if not ok then error(v, 0) end
  end
  kfail(k, "parameter %s of %s: cannot evaluate shape entry '%s'", pname, k.name, dim)
end

-- a shape that gives no array (an entry not a positive whole number, or too many bytes): the error
-- is at the kernel's definition, where the shape is written, and names the values that made it so
-- and where each came from (-D, the template's default, a scalar parameter's value)
local function shape_error(k, p, opts, t, used, what)
  local shape = {}
  for i, dim in ipairs(p.shape) do shape[i] = type(dim) == "string" and dim or tostring(dim) end
  local from, seen = {}, {}
  for _, n in ipairs(used) do
    if not seen[n] then
      seen[n] = true
      local d, v = opts.defines and opts.defines[n], t[n]
      local src
      if d ~= nil and k.templates[n] ~= nil then
        src = type(d) == "string" and fmt("-D %s=%s", n, d) or fmt("defines.%s = %s", n, tostring(d))
      elseif k.templates[n] ~= nil then src = "the template's default"
      else src = "scalar parameter '" .. n .. "'"; v = nil end
      from[#from + 1] = fmt("%s = %s (%s)", n, tostring(v ~= nil and v or "?"), src)
    end
  end
  local at = k.file and fmt("%s:%d: ", k.file, k.line or 0) or ""
  error(fmt("%serror: emulate %s: parameter '%s' (shape {%s}) %s%s", at, k.name, p[1], table.concat(shape, ", "), what,
            #from > 0 and ("; " .. table.concat(from, ", ")) or ""), 0)
end

local function stats_line(a, before)
  local st
  if DT.mini[a.dtype] then                       -- narrow floats: over the decoded values
    st = { n = a.n, nan = 0, inf = 0, sum = 0 }
    for _, v in ipairs(a:read()) do
      if v ~= v then st.nan = st.nan + 1
      elseif v == math.huge or v == -math.huge then st.inf = st.inf + 1
      else
        st.sum = st.sum + v
        st.min = st.min and math.min(st.min, v) or v
        st.max = st.max and math.max(st.max, v) or v
      end
    end
  else st = a.device.mem:stats(a.addr, a.dtype) end
  local changed = a.device.mem:hash(a.addr) ~= before
  local finite = st.n - st.nan - st.inf
  local s = fmt("%-8s %s[%d]  %s", a.pname, a.dtype, a.n, changed and "written" or "unchanged")
  if finite > 0 then s = s .. fmt(": min %.6g max %.6g mean %.6g", st.min, st.max, st.sum / finite) end
  if st.nan > 0 or st.inf > 0 then s = s .. fmt(", %d NaN, %d Inf", st.nan, st.inf) end
  return s
end

-- rt.emulate(kernel, { defines =, values = { param = number }, checks =, limit =, seed =, clc = })
--   -> summary text, statistics
-- Pointer parameters get arrays sized by their `shape` (names: templates, then scalar parameters;
-- expressions such as "B*N" work), filled with deterministic values in [-1, 1) (floats) or [0, 100)
-- (integers), the same on every machine. A scalar parameter takes opts.values[name], else the template of that name (in
-- either case: n takes N), else 1 for a float; an integer without one is an error naming it.
-- A kernel read from PTX (ptxlua.verbatim, ptxlua.sugar) has no shapes and no grid: its .u64
-- parameters are addresses of buffers whose size the PTX does not say, so it is not run on guessed
-- sizes; the error, at the kernel's line in the script, says how to launch it instead.
local function ptx_kernel_unrunnable(k)
  local why
  for _, p in ipairs(k.params) do
    if p.pointer then
      why = fmt("its parameter %s (.%s) is an address, and the PTX does not say the size of the buffer behind it", p[1], p.ptype)
      break
    end
  end
  if not why then
    local _, block = k:launch_dims()
    why = block and "the PTX does not say its grid" or "the PTX does not say its grid and block (no .reqntid)"
  end
  error(fmt("%s:%d: error: --emulate cannot run %s, a kernel read from PTX: %s; launch it with arrays of your own: "
            .. "rt.launch(k, { device = rt.device \"emu\", args = {...}, grid =, block = }) (docs/transpiler.md, "
            .. "\"Running a kernel read from PTX\")", k.file or "?", k.line or 0, k.name, why), 0)
end

-- before generating the inputs of a launch of several clusters (CTAs without clusters): a sample of
-- its first cluster, on another device and zero-filled arrays (calloc'ed: only what it touches is
-- made), measures what one costs; a launch that would take more warp instructions than the budget
-- (M.LIMIT), or more than an hour of this machine, is refused at the kernel's definition with its
-- cost and the templates that shrink it. A sample that fails says nothing (the real run, on the
-- real inputs, reports it: a budget one cluster spends too). opts.limit given: no sample (the
-- caller chose the budget).
local function human(x)
  local s = fmt("%.0f", x)
  return (s:reverse():gsub("(%d%d%d)", "%1,"):reverse():gsub("^,", ""))
end
local function duration(secs)
  if secs < 120 then return fmt("%.0f seconds", secs) end
  if secs < 7200 then return fmt("%.0f minutes", secs / 60) end
  return fmt("%.1f hours", secs / 3600)
end
M.COST_SECONDS = 3600
local function refuse_costly(k, opts, t, specs, scalars, sizing)
  local grid, _, cluster = k:launch_dims(opts.defines)
  if not grid then return end
  local ncl = grid[1] * grid[2] * grid[3]
  if cluster then ncl = ncl / (cluster[1] * cluster[2] * cluster[3]) end
  if ncl <= 1 or ncl ~= floor(ncl) then return end
  local sd = M.device("emu")
  local args = {}
  for i, v in pairs(scalars) do args[i] = v end
  local made = {}
  for _, sp in ipairs(specs) do
    local a = sd:array(sp.dtype, sp.n, false, sp.name)
    made[#made + 1] = a
    if not sp.tensor then args[sp.i] = a end
    for i, p in ipairs(k.params) do if p.view and p.view.of == sp.name then args[i] = a end end
  end
  local ok, st = pcall(M.launch, k, { device = sd, args = args, defines = opts.defines, smem = opts.smem, arch = opts.arch,
                                      sample = 1 })
  for _, a in ipairs(made) do a:free() end
  sd.cache = {}
  collectgarbage()
  if not ok then return end                      -- the real run, on the real inputs, reports (a budget spent too)
  local w, secs = st.warp_insns * ncl, st.seconds * ncl
  if w <= M.LIMIT and secs <= M.COST_SECONDS then return end
  local what = cluster and cluster[1] * cluster[2] * cluster[3] > 1 and "clusters" or "CTAs"
  local at = k.file and fmt("%s:%d: ", k.file, k.line or 0) or ""
  local vals = {}
  for _, n in ipairs(sizing) do vals[#vals + 1] = fmt("%s = %s", n, tostring(t[n])) end
  local shrink = ""
  if #sizing > 0 then                                    -- each sizing template over the same power of 2
    local d = 2
    while w / d ^ #sizing > M.LIMIT / 4 do d = d * 2 end
    local sug = {}
    for _, n in ipairs(sizing) do
      local v = t[n]
      sug[#sug + 1] = fmt("-D %s=%d", n, math.max(1, floor(v / d)))
    end
    shrink = fmt("shrink it with -D (the templates its arrays are sized by: %s), e.g. %s (about %s warp instructions), or",
                 table.concat(sizing, ", "), table.concat(sug, " "), human(w / d ^ #sizing))
  end
  error(fmt("%serror: emulating %s%s would take about %s warp instructions and %s on this machine (its first %s of %s ran "
            .. "%s in %.2f s), %s: %s run it anyway with --limit N (limit = N in rt.emulate), e.g. --limit %s, or --limit none",
            at, k.name, #vals > 0 and (" at " .. table.concat(vals, ", ")) or "", human(w), duration(secs),
            what:sub(1, -2), human(ncl), human(st.warp_insns), st.seconds,
            w > M.LIMIT and fmt("more than the emulator's budget of %s", human(M.LIMIT)) or "over an hour",
            shrink, fmt("%.0f", floor(math.max(w * 1.25, M.LIMIT)))), 0)
end

-- the sizes --emulate runs a kernel at: its `emulate` templates, with the caller's defines over them
local function emulation_defines(k, defines)
  local e = k.def and k.def.emulate
  if not e then return defines end
  local out = {}
  for name, v in pairs(e) do out[name] = v end
  for name, v in pairs(defines or {}) do out[name] = v end
  return out
end
M._emulation_defines = emulation_defines

-- the tolerance of output `name` (dtype): { rel, abs } from the kernel's `tolerance` (a number r:
-- rel = r, abs = r times the reference's root mean square), else by the output's type
local DEFAULT_TOL = { f64 = 1e-12, f32 = 1e-5, f16 = 1e-3, bf16 = 1e-2, e4m3 = 0.125, e5m2 = 0.25, e2m3 = 0.25, e3m2 = 0.5,
                      e2m1 = 0.5, ue8m0 = 1, ue4m3 = 0.125 }
local function tolerance_of(k, name, dtype, rms, t)
  local tol = k.def.tolerance
  if type(tol) == "function" then tol = tol(t) end
  if type(tol) == "table" and tol.rel == nil and tol.abs == nil then tol = tol[name] end
  if tol == nil then tol = DEFAULT_TOL[dtype] or 0 end
  if type(tol) == "number" then return tol, tol * rms end
  return tol.rel or 0, tol.abs or 0
end

-- got (read back) against want (the reference) for output a: the report line, and the mismatch
-- message (nil: it matches)
local function compare_output(k, a, T, got, want, t)
  local n = math.min(#want, a.n)
  local ss = 0
  for i = 1, n do local w = want[i]; if w == w and w ~= math.huge and w ~= -math.huge then ss = ss + w * w end end
  local rms = n > 0 and math.sqrt(ss / n) or 0
  local rel, abs_tol = tolerance_of(k, a.pname, a.dtype, rms, t)
  local worst, wi, werr, bad = -1, nil, 0, 0
  for i = 1, n do
    local g, w = got[i], want[i]
    local err, ratio
    if w ~= w then err = (g ~= g) and 0 or math.huge              -- NaN wanted: NaN expected
    elseif g ~= g then err = math.huge                              -- NaN got: never written, or wrong
    elseif g == w then err = 0
    else err = math.abs(g - w) end
    local bound = rel * math.abs(w == w and w or 0) + abs_tol
    if err == 0 then ratio = 0 elseif bound > 0 then ratio = err / bound else ratio = math.huge end
    if ratio > 1 then bad = bad + 1 end
    if ratio > worst then worst, wi, werr = ratio, i, err end
  end
  local tol_text = fmt("rel %g + abs %g", rel, abs_tol)
  local where = wi and (a.pname .. require("ptxlua.tensors").coords(T, wi)) or "-"
  local vals = wi and fmt("got %.9g, want %.9g", got[wi], want[wi]) or ""
  if bad == 0 and worst <= 0 then
    return fmt("  %-8s matches the reference exactly (%d elements)", a.pname, n)
  end
  if bad == 0 then
    return fmt("  %-8s matches the reference (%d elements, %s): largest error %.3g (%.2f of the tolerance) at %s: %s",
               a.pname, n, tol_text, werr, worst < 0 and 0 or worst, where, vals)
  end
  local line = fmt("  %-8s DOES NOT MATCH the reference: %d of %d elements outside %s; largest error %.3g at %s: %s",
                   a.pname, bad, n, tol_text, werr, where, vals)
  local msg = fmt("emulate %s: %s does not match the reference (%d of %d elements outside %s; the largest error at %s: %s)",
                  k.name, a.pname, bad, n, tol_text, where, vals)
  return line, msg
end

function M.emulate(k, opts)
  opts = opts or {}
  if k.verbatim then ptx_kernel_unrunnable(k) end
  local d = opts.device or M.device("emu")
  do
    local o = {}
    for key, v in pairs(opts) do o[key] = v end
    o.defines = emulation_defines(k, opts.defines)
    opts = o
  end
  local t = k:resolve(opts.defines)
  local env = {}
  for name, v in pairs(t) do if type(v) == "number" then env[name] = v end end
  local values = opts.values or {}
  local args, arrays, from = {}, {}, {}           -- from: the template a scalar parameter took its value from
  for i, p in ipairs(k.params) do                 -- scalars first: shapes may name them
    if not p.pointer then
      local v = values[p[1]]
      for _, name in ipairs { p[1], p[1]:upper(), p[1]:lower() } do
        if v == nil and type(t[name]) == "number" then v = t[name]; from[p[1]] = name end
      end
      if p.count then v = string.rep("\0", p.count * (SIZES[p.ptype] or 1))
      elseif v == nil then
        if FLOAT[p.ptype] then v = 1
        else kfail(k, "emulate %s: no value for scalar parameter '%s' (give it a template or a value)", k.name, p[1]) end
      end
      args[i] = v
      if type(v) == "number" then env[p[1]] = v end
    end
  end
  local seed = opts.seed or 12345
  local specs, sizing, seen = {}, {}, {}          -- the arrays to make; the templates their shapes read
  for i, p in ipairs(k.params) do
    if p.pointer then
      local shape = p.shape
      if not shape then kfail(k, "emulate %s: pointer parameter '%s' has no shape (declare {\"%s\", \"%s*\", shape = {...}})", k.name, p[1], p[1], p.elem) end
      local n, used = 1, {}
      local dtype = SIZES[p.elem] and p.elem or "b8"
      for _, dim in ipairs(shape) do
        local v, names = resolve_dim(dim, env, k, p[1])
        for _, nm in ipairs(names) do
          used[#used + 1] = nm
          local tn = k.templates[nm] ~= nil and nm or from[nm]
          if tn and not seen[tn] then seen[tn] = true; sizing[#sizing + 1] = tn end
        end
        if not (v >= 1 and v < math.huge and v == floor(v)) then
          shape_error(k, p, opts, t, names, fmt("has an extent '%s' of %s: each must be a positive whole number", tostring(dim), tostring(v)))
        end
        n = n * v
      end
      if n * SIZES[dtype] > 2^40 then
        shape_error(k, p, opts, t, used, fmt("would have %.0f %s elements, more memory than the emulator gives a buffer (1 TB)", n, dtype))
      end
      specs[#specs + 1] = { i = i, dtype = dtype, n = n, name = p[1] }
    end
  end
  -- the tensors behind tensor-map parameters (the kernel's `tensors`): one array each, passed at
  -- the position of every map that views it (the launch builds the maps)
  local TS = require "ptxlua.tensors"
  local concrete = {}
  for j, e in ipairs(k.tensors or {}) do
    local T = TS.resolve_tensor(e.name, e.decl, env, t)
    concrete[e.name] = T
    for _, nm in ipairs(T.used) do
      local tn = k.templates[nm] ~= nil and nm or from[nm]
      if tn and not seen[tn] then seen[tn] = true; sizing[#sizing + 1] = tn end
    end
    if T.span * SIZES[T.dtype] > 2^40 then
      TS.derr(e.decl, "emulate %s: tensor %s would have %.0f %s elements, more memory than the emulator gives a buffer (1 TB)", k.name, e.name, T.span, T.dtype)
    end
    specs[#specs + 1] = { i = #k.params + j, dtype = T.dtype, n = T.span, name = e.name, tensor = e.name }
  end
  for _, sp in ipairs(specs) do
    if not sp.tensor then
      local p = k.params[sp.i]
      if p.tensor then
        local ok, T = pcall(TS.resolve_tensor, p[1], p.tensor, env, t)
        if ok then concrete[p[1]] = T end
      end
    end
  end
  local function place(sp, a)
    if not sp.tensor then args[sp.i] = a end
    for i, p in ipairs(k.params) do if p.view and p.view.of == sp.name then args[i] = a end end
  end
  if opts.limit == nil then
    local sargs = {}
    for i, v in pairs(args) do sargs[i] = v end
    refuse_costly(k, opts, t, specs, sargs, sizing)
  end
  for _, sp in ipairs(specs) do
    local a = d:array(sp.dtype, sp.n, nil, sp.name)
    a.pname = sp.name
    if DT.mini[sp.dtype] then                    -- narrow floats: values in [-1, 1) (or [0, 1)), rounded
      local r, lo = seed + sp.i, DT.mini[sp.dtype].signed and -1 or 0
      a:write(function() r = r * 16807 % 2147483647; return lo + (1 - lo) * (r / 2147483647) + (lo == 0 and 2 ^ -20 or 0) end)
    else d.mem:fill_random(a.addr, sp.dtype, seed + sp.i) end
    arrays[#arrays + 1] = a
    place(sp, a)
  end
  -- the kernel's own inputs (values that must be so: offsets, indices), then its reference
  local byname = {}
  for _, a in ipairs(arrays) do byname[a.pname] = a end
  local def = k.def
  local x
  local function values()
    x = {}
    for _, a in ipairs(arrays) do x[a.pname] = a:read() end
    for i, p in ipairs(k.params) do
      if not p.pointer and not p.tensormap and args[i] ~= nil then x[p[1]] = args[i] end
    end
    return x
  end
  if def.inputs then
    local ok, given = xpcall(def.inputs, debug.traceback, t, values())
    if not ok then error(given, 0) end
    if type(given) ~= "table" then kfail(k, "emulate %s: the kernel's inputs function returned %s, not a table { NAME = {values...} }", k.name, type(given)) end
    for name, v in pairs(given) do
      local si
      for i, p in ipairs(k.params) do if p[1] == name and not p.pointer and not p.tensormap and not p.count then si = i end end
      if si then
        if type(v) ~= "number" then kfail(k, "emulate %s: the inputs function gave a %s for scalar parameter '%s'", k.name, type(v), name) end
        args[si] = v                                -- a scalar parameter's value (eps = 1e-5)
      elseif not byname[name] then
        kfail(k, "emulate %s: the inputs function gave values for '%s', which is no tensor or scalar parameter of the kernel", k.name, tostring(name))
      else byname[name]:write(v) end
    end
  end
  local want
  if def.reference then
    local ok, r = xpcall(def.reference, debug.traceback, t, values())
    if not ok then error(r, 0) end
    if type(r) ~= "table" then kfail(k, "emulate %s: the reference returned %s, not a table { OUTPUT = {values...} }", k.name, type(r)) end
    for name in pairs(r) do
      if not byname[name] then kfail(k, "emulate %s: the reference returned values for '%s', which is no tensor of the kernel", k.name, tostring(name)) end
      byname[name]:poison()                        -- every element the kernel should write: NaN first
    end
    want = r
  end
  for _, a in ipairs(arrays) do a.before = d.mem:hash(a.addr) end
  local ok, st = pcall(M.launch, k, { device = d, args = args, defines = opts.defines, checks = opts.checks,
                                      limit = opts.limit, smem = opts.smem, arch = opts.arch, clc = opts.clc })
  if not ok then
    for _, a in ipairs(arrays) do a:free() end
    error(st, 0)
  end
  local lines = {}
  lines[1] = fmt("emulated %s: grid (%d,%d,%d) block (%d,%d,%d)", k.name, st.grid[1], st.grid[2], st.grid[3],
                 st.block[1], st.block[2], st.block[3])
  lines[2] = fmt("  %.0f thread instructions (%.0f warp instructions, %d CTAs) in %.3f s", st.thread_insns,
                 st.warp_insns, st.ctas, st.seconds)
  for _, a in ipairs(arrays) do lines[#lines + 1] = "  " .. stats_line(a, a.before) end
  local mismatch
  if want then
    local names = {}
    for name in pairs(want) do names[#names + 1] = name end
    table.sort(names)
    for _, name in ipairs(names) do
      local a = byname[name]
      local T = concrete[name] or { packed = false }
      local line, msg = compare_output(k, a, T, a:read(), want[name], t)
      lines[#lines + 1] = line
      mismatch = mismatch or msg
    end
  end
  for _, a in ipairs(arrays) do a:free() end
  if mismatch then
    mismatch = k.file and fmt("%s:%d: error: %s", k.file, k.line or 0, mismatch) or ("error: " .. mismatch)
  end
  return table.concat(lines, "\n"), st, mismatch
end

-- every selected kernel of the loaded script, on generated inputs (the command's --emulate):
-- opts.kernels (names; default all), opts.defines, opts.arch, opts.checks -> the summaries
function M.emulate_all(opts)
  opts = opts or {}
  local list = require("ptxlua").select_kernels(opts.kernels)
  local out, mismatch = {}, nil
  for _, k in ipairs(list) do
    local text, _, bad = M.emulate(k, { defines = opts.defines, arch = opts.arch, checks = opts.checks, limit = opts.limit,
                                        clc = opts.clc })
    out[#out + 1] = text
    mismatch = mismatch or bad
  end
  -- a kernel that does not match its reference: the summaries, and the error (the command exits 1)
  return table.concat(out, "\n") .. "\n", mismatch
end

return M
