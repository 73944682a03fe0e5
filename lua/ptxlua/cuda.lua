-- ptxlua.cuda -- run kernels on a CUDA GPU through the driver (loaded at run time, never linked).
-- The same calls as the emulator (ptxlua.emu), so host code runs unchanged on either:
--
--   local cuda = require "ptxlua.cuda"
--   local dev = cuda.device(0)                      -- a clear error where there is no driver
--   local x = dev:array("f32", n, function(i) return i * 0.5 end)
--   kernel:launch { device = dev, args = { x, y, out, n }, defines = { N = n } }
--   local ms = dev:time(function() kernel:launch { device = dev, args = { x, y, out, n } } end)
--
-- PTX is assembled by nvJitLink (or ptxas) through the disk cache; the driver loads the cubin.

local core = require "ptxlua.core"

local M = {}
local fmt, floor, type, pairs, ipairs, tostring = string.format, math.floor, type, pairs, ipairs, tostring

local DT = require "ptxlua.dtypes"
local SIZES, FLOAT = DT.array, DT.float     -- array element types: bytes, and the floating-point ones

-- errors at the caller's line, in the project's format
local fail = require("ptxlua").error                 -- the DSL's: the first frame outside ptxlua's Lua files

-- is a CUDA driver usable here? -> true | false, why
function M.available()
  local ok, err = core.cuda_init()
  if ok then return true end
  return false, err
end

---------------------------------------------------------------------------------------------------
-- arrays: device memory with a host mirror (an emulator buffer) that converts values to bytes
---------------------------------------------------------------------------------------------------
local Array = {}
Array.__index = Array
Array.__tostring = function(a) return fmt("%s[%d] on %s", a.dtype, a.n, tostring(a.device)) end
M.Array = Array

local function check(ok, err) if not ok then fail("%s", err) end return ok end

local function push(a) check(core.cuda_htod(a.addr, a.device.mirror:bytes(a.host))) end
local function pull(a)
  local s, err = core.cuda_dtoh(a.addr, a.nbytes)
  if not s then fail("%s", err) end
  a.device.mirror:bytes(a.host, s)
end

function Array.write(a, values)
  if a.freed then fail("the array was freed") end
  local tv = type(values)
  if tv == "function" then
    local t = {}
    for i = 1, a.n do t[i] = values(i) end
    values = t
  elseif tv ~= "number" and tv ~= "table" then fail("array values must be a table, a number or a function of the index") end
  if tv == "table" and #values > a.n then fail("%d values for an array of %d", #values, a.n) end
  DT.write(a.device.mirror, a.host, a.dtype, values, 0, a.n, function(why) fail("%s array: %s", a.dtype, why) end)
  push(a)
  return a
end
Array.fill = Array.write
function Array.poison(a)
  if FLOAT[a.dtype] then return a:write(0 / 0) end
  local mf = DT.mini[a.dtype]
  if mf then return a:write(mf.nancode and 0 / 0 or mf.max) end
  local s = SIZES[a.dtype]
  return a:write(s == 1 and 0xA5 or s == 2 and 0xA5A5 or 0xA5A5A5A5)
end
function Array.read(a, first, count)
  if a.freed then fail("the array was freed") end
  pull(a)
  return DT.read(a.device.mirror, a.host, a.dtype, (first or 1) - 1, count, a.n)
end
function Array.get(a, i)
  if type(i) ~= "number" or i < 1 or i > a.n or i ~= floor(i) then fail("index %s outside 1..%d", tostring(i), a.n) end
  return a:read(i, 1)[1]
end
function Array.set(a, i, v)
  if type(i) ~= "number" or i < 1 or i > a.n or i ~= floor(i) then fail("index %s outside 1..%d", tostring(i), a.n) end
  pull(a)
  DT.write(a.device.mirror, a.host, a.dtype, { v }, i - 1, a.n, function(why) fail("%s array: %s", a.dtype, why) end)
  push(a)
end
function Array.bytes(a) pull(a); return a.device.mirror:bytes(a.host) end
-- raw copies between host memory (an FFI pointer) and the first `bytes` of the array: one driver
-- copy each, no per-element conversion, the host mirror bypassed (read/get/set pull it again)
local function raw_span(a, ptr, bytes)
  if a.freed then fail("the array was freed") end
  bytes = bytes or a.nbytes
  if type(bytes) ~= "number" or bytes < 0 or bytes > a.nbytes or bytes % 1 ~= 0 then fail("%s bytes for an array of %d bytes", tostring(bytes), a.nbytes) end
  return tonumber(require("ffi").cast("uintptr_t", ptr)), bytes
end
function Array.upload_from(a, ptr, bytes) local p, n = raw_span(a, ptr, bytes); check(core.cuda_htod_ptr(a.addr, p, n)); return a end
function Array.download_to(a, ptr, bytes) local p, n = raw_span(a, ptr, bytes); check(core.cuda_dtoh_ptr(p, a.addr, n)); return a end
function Array.free(a)
  if not a.freed then core.cuda_free(a.addr); a.device.mirror:free(a.host); a.freed = true end
end

---------------------------------------------------------------------------------------------------
-- devices
---------------------------------------------------------------------------------------------------
local Device = {}
Device.__index = Device
Device.__tostring = function(d) return fmt("cuda device %d (%s, sm_%d%d)", d.ordinal, d.info.name, d.info.cc_major, d.info.cc_minor) end
M.Device = Device

local DEVICES = {}
function M.device(ordinal)
  ordinal = ordinal or 0
  if type(ordinal) ~= "number" or ordinal < 0 or ordinal ~= floor(ordinal) then fail("cuda.device: a device number expected (0, 1, ...)") end
  if DEVICES[ordinal] then return DEVICES[ordinal] end
  local info, err = core.cuda_device(ordinal)
  if not info then fail("CUDA device %d is not available: %s", ordinal, err) end
  local d = setmetatable({ kind = "cuda", ordinal = ordinal, info = info, mirror = core.emu_mem(),
                           modules = setmetatable({}, { __mode = "k" }) }, Device)
  DEVICES[ordinal] = d
  return d
end

function Device.array(d, dtype, n, values, name)
  if not SIZES[dtype] then fail("unknown element type '%s' (f32, f16, bf16, f64, u8 .. s64, e4m3, e5m2, e2m3, e3m2, e2m1, ue8m0, ue4m3)", tostring(dtype)) end
  if type(n) ~= "number" or n < 1 or n ~= floor(n) then fail("array length must be a positive integer (got %s)", tostring(n)) end
  local a = setmetatable({ device = d, dtype = dtype, n = n, nbytes = DT.nbytes(dtype, n) }, Array)
  check(core.cuda_current(d.info.ctx))
  local addr, err = core.cuda_alloc(a.nbytes)
  if not addr then fail("%s", err) end
  a.addr = addr
  a.host = d.mirror:alloc(a.nbytes, name or fmt("%s[%d]", dtype, n))
  if values ~= false then a:write(values ~= nil and values or 0) end   -- false: left as allocated (upload_from fills it)
  return a
end

-- a TMA tensor map over an array: { dims = {inner, ...}, box = {...}, strides = {bytes of dim 2, ...}
-- (default: packed), swizzle = "none"|"32B"|"64B"|"128B", dtype = (default the array's) }
-- (cuTensorMapEncodeTiled); with mode = "im2col", lower_corner, upper_corner, channels_per_pixel,
-- pixels_per_column, interleave, l2_promotion, oob_fill instead of box (cuTensorMapEncodeIm2col).
-- The spec is read as ptxlua.emu's dev:tensormap reads it.
local TensorMap = { __name = "ptxlua.tensormap" }
TensorMap.__index = TensorMap
M.TensorMap = TensorMap
function Device.tensormap(d, a, spec)
  if getmetatable(a) ~= Array then fail("tensormap: a device array expected") end
  local t = require("ptxlua.emu")._tmspec(a, spec, fail)
  local bytes, err
  if t.mode == "tile" then
    bytes, err = core.cuda_tensormap(t.dtype, a.addr, t.dims, t.strides, t.box, t.element_strides, t.swizzle)
  else
    bytes, err = core.cuda_tensormap_im2col(t.dtype, a.addr, t.dims, t.strides, t.lower, t.upper, t.channels_per_pixel,
                                            t.pixels_per_column, t.element_strides, t.interleave, t.swizzle, t.l2_promotion, t.oob_fill)
  end
  if not bytes then fail("%s", err) end
  return setmetatable({ bytes = bytes, array = a }, TensorMap)
end

function Device.launch(d, k, opts)
  opts = opts or {}
  opts.device = d
  return M.launch(k, opts)
end

function Device.sync(d) check(core.cuda_current(d.info.ctx)); check(core.cuda_sync()) end

-- milliseconds of GPU time fn's launches take (events around it)
function Device.time(d, fn)
  check(core.cuda_current(d.info.ctx))
  local a, b = core.cuda_event(), core.cuda_event()
  if not a or not b then fail("cannot create CUDA events") end
  check(core.cuda_record(a))
  fn()
  check(core.cuda_record(b))
  local ms, err = core.cuda_elapsed(a, b)
  core.cuda_event_free(a); core.cuda_event_free(b)
  if not ms then fail("%s", err) end
  return ms
end

---------------------------------------------------------------------------------------------------
-- argument packing: by the kernel's declared parameters, checked before anything is launched
---------------------------------------------------------------------------------------------------
local INT_RANGE = { u8 = { 0, 255 }, u16 = { 0, 65535 }, u32 = { 0, 4294967295 }, s8 = { -128, 127 },
                    s16 = { -32768, 32767 }, s32 = { -2147483648, 2147483647 } }

-- the bytes of each argument, in parameter order: args by position or by name.
-- device: arrays must live on it (nil: any array is accepted, for tests without a GPU)
function M.pack_args(k, args, device)
  args = args or {}
  local params = k.params
  local n = 0
  for _ in pairs(args) do n = n + 1 end
  if #args > 0 and #args ~= #params and n == #args then fail("launch of %s: %d arguments for %d parameters", k.name, #args, #params) end
  local out = {}
  for i, p in ipairs(params) do
    local name = p[1]
    local v = args[i]
    if v == nil then v = args[name] end
    if v == nil then fail("launch of %s: no argument for parameter %d (%s)", k.name, i, name) end
    local where = fmt("argument %d (%s) of %s", i, name, k.name)
    if p.pointer then
      if getmetatable(v) == Array then
        if device and v.device ~= device then fail("%s: the array lives on another device", where) end
        if v.freed then fail("%s: the array was freed", where) end
        if p.elem and SIZES[p.elem] ~= SIZES[v.dtype] then fail("%s: a %s array for a %s* parameter", where, v.dtype, p.elem) end
        out[i] = core.emu_pack("u64", v.addr)
      elseif type(v) == "number" and v >= 0 and v == floor(v) then out[i] = core.emu_pack("u64", v)
      else fail("%s: a device array expected, got %s", where, type(v) == "table" and tostring(v) or type(v)) end
    elseif p.tensormap then
      if getmetatable(v) == TensorMap then v = v.bytes end
      if type(v) ~= "string" or #v ~= 128 then fail("%s: a tensor map (dev:tensormap(array, {...})) expected, got %s", where, type(v)) end
      out[i] = v
    elseif p.count and p.count > 0 then
      local size = p.count * SIZES[p.ptype]
      if getmetatable(v) == TensorMap and size == 128 then v = v.bytes end   -- nvcc's .b8 name[128] of a CUtensorMap
      if type(v) ~= "string" or #v ~= size then fail("%s: a string of %d bytes expected", where, size) end
      out[i] = v
    else
      if type(v) == "boolean" then v = v and 1 or 0 end
      if type(v) ~= "number" then fail("%s: a number expected, got %s", where, type(v)) end
      local t = p.ptype
      if not FLOAT[t] then
        if v ~= floor(v) then fail("%s: %s is not an integer (.%s)", where, tostring(v), t) end
        local r = INT_RANGE[t]
        if r and (v < r[1] or v > r[2]) then fail("%s: %s does not fit .%s", where, tostring(v), t) end
      end
      out[i] = core.emu_pack(t, v)
    end
  end
  return out
end

---------------------------------------------------------------------------------------------------
-- launches
---------------------------------------------------------------------------------------------------
local function key_of(opts)
  local keys = {}
  for name, v in pairs(opts.defines or {}) do keys[#keys + 1] = tostring(name) .. "=" .. tostring(v) end
  table.sort(keys)
  return table.concat(keys, ";") .. "|" .. tostring(opts.arch)
end

-- assemble (through the cache) and load; errors at the script's lines
local function module_of(d, k, opts)
  local per = d.modules[k]
  if not per then per = {}; d.modules[k] = per end
  local key = key_of(opts)
  local e = per[key]
  if e then return e end
  local m = k:trace { defines = opts.defines, arch = opts.arch }
  local text = m:print("comment")
  -- a cubin runs only on its own SM major version: PTX of an older target (gemm_mma's sm_80) is
  -- assembled for this device's architecture, an arch-specific one (sm_90a) only on that device
  local target, aerr = core.cuda_arch(text:match("\n%.target ([%w_]+)") or "", d.info.cc_major, d.info.cc_minor)
  if not target then fail("%s: %s", k.name, aerr) end
  local r, err = core.compile(text, target, { key = "driver " .. tostring(d.info.driver) })
  if not r then fail("%s", err) end
  if not r.ok then
    local lines = {}
    for _, dg in ipairs(r.diagnostics) do
      if dg.error then
        local f, l = core.ptx_anchor(text, dg.ptx_line)
        if not f and k.ptx_where then f, l = k:ptx_where(dg.ptx_line) end   -- a kernel read from PTX
        if not f and (dg.func ~= "" or dg.ptx_line > 0) then f, l = k.file, k.line end
        lines[#lines + 1] = f and fmt("%s:%d: error: %s", f, l, dg.message) or ("error: " .. dg.message)
      end
    end
    error(#lines > 0 and table.concat(lines, "\n") or "error: the assembler rejected the PTX of " .. k.name, 0)
  end
  check(core.cuda_current(d.info.ctx))
  -- a cubin nvJitLink assembled separately ignores setmaxnreg (C7504: there was no ptxas for
  -- whole-program assembly): let the driver's JIT assemble the PTX whole instead
  local jit = r.via == "nvJitLink" and r.log:find("C7504", 1, true) ~= nil
  local mod, merr
  if jit then mod, merr = core.cuda_module(text, true) else mod, merr = core.cuda_module(r.cubin, false) end
  if not mod then fail("loading %s: %s", k.name, merr) end
  local fn, ferr = core.cuda_function(mod, k.name)
  if not fn then fail("%s", ferr) end
  -- the cluster the kernel was compiled for (.reqnctapercluster), or nil: such a kernel is launched
  -- without the cluster launch attribute, as <<< >>> launches a __cluster_dims__ kernel
  local cx, cy, cz = core.cuda_func_cluster(fn)
  if not cx then fail("%s", cy) end
  -- dynamic shared memory: the kernel's `smem`, or what this trace's shared-memory plans put in
  -- the dynamic block (ptx.smem_plan over 48 KB), whichever is larger (both start at its base)
  -- smem_set: the dynamic size cuFuncSetAttribute allowed; the driver's default is 48 KB less the
  -- kernel's static shared arrays (not 48 KB), so any dynamic size is set once
  e = { module = mod, fn = fn, smem_set = 0, report = r, compiled_cluster = cx > 0 and { cx, cy, cz } or nil,
        smem = k:dynamic_smem_for(opts.defines) }
  per[key] = e
  return e
end

-- kernel:launch{ device = cuda.device(0), args =, grid =, block =, cluster =, smem =, defines =,
-- arch =, async = } -- the emulator's call; waits for the kernel unless async
function M.launch(k, opts)
  opts = opts or {}
  local d = opts.device
  if getmetatable(d) ~= Device then fail("launch: device must come from cuda.device()") end
  local grid, block, cluster, blame = require("ptxlua")._geometry(k, opts)
  -- tensors passed for tensor-map parameters become maps; every declared tensor is checked
  local args = require("ptxlua.tensors").bind(k, opts.args or {}, opts.defines, function(v) return getmetatable(v) == Array end,
                                              function(a, spec) return d:tensormap(a, spec) end, fail)
  local packed = M.pack_args(k, args, d)          -- before anything touches the GPU
  local e = module_of(d, k, opts)
  local smem = opts.smem or e.smem
  if smem > e.smem_set then check(core.cuda_set_smem(e.fn, smem)); e.smem_set = smem end
  local attr = cluster
  if e.compiled_cluster then
    local cc = e.compiled_cluster
    if cluster and (cluster[1] ~= cc[1] or cluster[2] ~= cc[2] or cluster[3] ~= cc[3]) then
      blame(string.format("a cluster of %dx%dx%d, but the kernel was compiled for clusters of %dx%dx%d",
                          cluster[1], cluster[2], cluster[3], cc[1], cc[2], cc[3]))
    end
    cluster, attr = cc, nil
  end
  check(core.cuda_current(d.info.ctx))
  local lok, lerr = core.cuda_launch(e.fn, grid, block, attr, smem, nil, packed)
  if not lok then blame(lerr) end
  if not opts.async then check(core.cuda_sync()) end
  return { grid = grid, block = block, cluster = cluster, smem = smem, registers = e.report.funcs[1] and e.report.funcs[1].registers }
end

-- mean milliseconds per launch over `iters` launches (after one warm-up)
function M.bench(k, opts)
  local d = opts.device
  local o = {}
  for name, v in pairs(opts) do o[name] = v end
  o.async = true
  M.launch(k, o)
  d:sync()
  local iters = opts.iters or 20
  local ms = d:time(function() for _ = 1, iters do M.launch(k, o) end end)
  return ms / iters
end

-- dynamic shared memory of the kernel named `name` for the defines (KERNEL.dynamic_smem_for),
-- 0 for no such kernel; ptxlua --check reports it right after tracing
function M.dynamic_smem(name, defines)
  for _, k in ipairs(require("ptxlua").kernels()) do
    if k.name == name then return k:dynamic_smem_for(defines) end
  end
  return 0
end

return M
