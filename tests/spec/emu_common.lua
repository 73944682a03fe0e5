-- emu_common.lua -- what the emulator specs share: running a body per thread and reading back what
-- each thread stored, and the error a kernel body raises when launched. E.on(dev) gives them on the
-- spec's device (the arrays a spec passes to run_error live there).
local H = require "helper"
local rt = require "ptxlua.emu"

local E = {}

function E.on(dev)

  local STORE = { f32 = "f32", f64 = "f64", u32 = "u32", s32 = "s32", u64 = "u64", s64 = "s64", b32 = "b32",
                  f16 = "b16", bf16 = "b16", u16 = "u16", s16 = "s16", b16 = "b16", u8 = "u8", b64 = "b64" }

  -- run fn(ptx, tid) in `threads` threads (one CTA, 32 by default); every value fn returns (a
  -- register, or a list of registers) is stored per thread; returns the list of value lists (1-based
  -- per thread) as numbers of type t
  local function per_thread(t, fn, opts)
    opts = opts or {}
    local threads = opts.threads or 32
    local ptx = H.fresh()
    local nout
    local k = ptx.kernel { name = "k", target = opts.target, params = { { "out", t .. "*" } }, body = function(_, out)
      local p = ptx.global_ptrs(out)
      local tid = ptx.special "tid.x"
      local vs = fn(ptx, tid)
      if ptx.isreg(vs) then vs = { vs } end
      nout = #vs
      local sz = rt.sizes[t]
      local base = p + tid:mul_wide(sz * #vs)
      for j, v in ipairs(vs) do ptx.st.global[STORE[t]](ptx.addr(base, (j - 1) * sz), v) end
    end }
    -- trace once to learn how many values a thread stores
    k:trace {}
    local out = dev:array(t, threads * nout):poison()
    local st = rt.launch(k, { device = dev, args = { out }, grid = { 1 }, block = { threads }, checks = opts.checks,
                              trace = opts.trace })
    local all = out:read()
    local res = {}
    for i = 1, threads do
      res[i] = {}
      for j = 1, nout do res[i][j] = all[(i - 1) * nout + j] end
    end
    out:free()
    return res, st
  end

  -- one thread's values
  local function one(t, fn, opts)
    opts = opts or {}
    opts.threads = 1
    return per_thread(t, fn, opts)[1]
  end

  -- the error a kernel body raises when run (nil when it runs)
  local function run_error(params, body, launch)
    local ptx = H.fresh()
    local k = ptx.kernel { name = "k", params = params or {}, body = function(...) body(ptx, ...) end }
    launch = launch or {}
    launch.device = dev
    launch.grid = launch.grid or { 1 }
    launch.block = launch.block or { 32 }
    local ok, err = pcall(rt.launch, k, launch)
    if ok then return nil end
    return err
  end

  return { per_thread = per_thread, one = one, run_error = run_error }
end

return E
