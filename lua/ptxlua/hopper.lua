-- hopper.lua -- the Hopper helpers of the DSL: shared-memory plans, swizzles, wgmma descriptors,
-- mbarrier waits and warp specialization. Loaded by init.lua: require("ptxlua.hopper")(P).
-- Every helper that emits instructions emits the fixed sequence docs/hopper.md lists (pinned by
-- tests/spec/hopper_spec.lua); the layout math is src/base/smem.c's, through ptxlua.core.
local core = require "ptxlua.core"
local bit = require "bit"

return function(P)
  local perr = P.error
  local emit = P._emit
  local poolreg = P._poolreg
  local isreg = P.isreg

  local no_guard = P._no_guard   -- a ptx.at guard refused by a helper that records several instructions

  local DTYPE_BYTES = require("ptxlua.dtypes").bytes   -- bytes of a tile element, from the C type table
  local SWIZZLES = { none = "none", ["32B"] = "32B", ["64B"] = "64B", ["128B"] = "128B" }

  local function swizzle_name(s, what)
    if s == nil or s == false then return "none" end
    if s == 0 then return "none" end
    if type(s) == "number" then s = tostring(s) .. "B" end
    local n = SWIZZLES[s]
    if not n then perr("%s: swizzle must be \"none\", \"32B\", \"64B\" or \"128B\" (got %s)", what, tostring(s)) end
    return n
  end

  local function sm_of(cur)
    local t = cur and cur.kernel and cur.kernel.target or "sm_90a"
    return tonumber(t:match("%d+")) or 90
  end

  -- a u64 from two 32-bit halves, as a LuaJIT 64-bit integer (printed exactly, in hex)
  local function u64(lo, hi)
    if type(lo) ~= "number" or type(hi) ~= "number" then perr("ptx.smem_u64(lo, hi): two numbers expected") end
    return 0x100000000ULL * hi + lo
  end
  P.smem_u64 = u64

  -------------------------------------------------------------------------------------------------
  -- plans: ptx.smem_plan{ name = "smem" } -> plan; plan:alloc(name, dtype, shape, opts) -> allocation
  -------------------------------------------------------------------------------------------------
  -- plans made during a trace, finished (their block declared) when the kernel body returns
  local OPEN = setmetatable({}, { __mode = "k" })

  local Plan, Alloc = {}, {}
  Plan.__index, Alloc.__index = Plan, Alloc

  function P.smem_plan(opts)
    if opts ~= nil and type(opts) ~= "table" then perr("ptx.smem_plan([{ name = }]): a table of options expected") end
    opts = opts or {}
    local cur = P._current()
    if not cur then perr("ptx.smem_plan belongs inside a kernel body") end
    local name = opts.name or "smem"
    if type(name) ~= "string" or not name:match("^[%a_][%w_]*$") then perr("ptx.smem_plan: bad name %s", tostring(name)) end
    P._check_ident("ptx.smem_plan", name)
    P._check_hides_func("ptx.smem_plan", name)
    local list = OPEN[cur] or {}
    OPEN[cur] = list
    for _, p in ipairs(list) do if p.name == name then perr("ptx.smem_plan: a plan named '%s' already exists in this kernel", name) end end
    local p = setmetatable({ name = name, sym = P.sym(name), c = core.smem_plan(sm_of(cur)), allocs = {}, cur = cur }, Plan)
    p.file, p.line = P._user_where()
    list[#list + 1] = p
    return p
  end

  -- plan:alloc("A", "bf16", {128, 64}, { stages = 4, swizzle = "128B", align = 1024 })
  function Plan:alloc(name, dtype, shape, opts)
    if opts ~= nil and type(opts) ~= "table" then perr("plan:alloc(name, dtype, shape [, { stages =, swizzle =, align = }]): a table of options expected") end
    opts = opts or {}
    if self.done then perr("smem plan '%s' is finished (the kernel body returned)", self.name) end
    if type(name) ~= "string" then perr("plan:alloc(name, dtype, shape [, opts]): name must be a string") end
    local held = rawget(self, name)
    if (held ~= nil and getmetatable(held) ~= Alloc) or Plan[name] ~= nil then
      perr("plan:alloc '%s': the name is taken by the plan itself (plan.%s); the allocation would hide it", name, name)
    end
    local elt = DTYPE_BYTES[dtype]
    if not elt then perr("plan:alloc '%s': unknown dtype %s", name, tostring(dtype)) end
    if type(shape) == "number" then shape = { shape } end
    if type(shape) ~= "table" or #shape == 0 then perr("plan:alloc '%s': shape must be a number or a list of extents", name) end
    local elems = 1
    for i, e in ipairs(shape) do
      if type(e) ~= "number" or e < 1 or e ~= math.floor(e) then perr("plan:alloc '%s': extent %d must be a positive integer", name, i) end
      elems = elems * e
    end
    local stages = opts.stages or 1
    local sw = swizzle_name(opts.swizzle, "plan:alloc '" .. name .. "'")
    local off, size, stage_bytes, align, pad = self.c:add(name, elt, elems, stages, opts.align or 0, sw)
    if not off then perr("%s", size) end
    -- bytes: one stage's elements (what a TMA load of the whole tile writes: its expect_tx count);
    -- stage_bytes: that rounded up to the alignment (the stride of the stages); size: every stage
    local a = setmetatable({ plan = self, name = name, dtype = dtype, elt = elt, shape = shape, stages = stages,
                             swizzle = sw, offset = off, size = size, stage_bytes = stage_bytes, align = align,
                             pad = pad, bytes = elems * elt }, Alloc)
    self.allocs[#self.allocs + 1] = a
    self[name] = a
    return a
  end

  function Plan:total() return self.c:total() end
  function Plan:format() return self.c:format() end
  function Plan:print() io.stderr:write(self.c:format()) end

  -- declare the block: static .shared up to 48 KB, one extern dynamic block above
  local function finish(p)
    if p.done then return end
    p.done = true
    local total, align, dynamic = p.c:total()
    if total == 0 then return end
    local m = p.cur.mod
    local at = p.file and string.format("%s:%d: ", p.file, p.line) or ""
    local function declare(f, ...)     -- the block's name taken (a ptx.shared): at the plan's line
      local ok, err = pcall(f, ...)
      if not ok and tostring(err):find("static shared memory: ", 1, true) then  -- over the target's static limit
        error(string.format("%serror: ptx.smem_plan '%s' (%d bytes, static): %s", at, p.name, total,
                            (tostring(err):gsub("^.-error: ", ""):gsub("\n.*", ""))), 0)
      end
      if not ok then
        error(string.format("%serror: ptx.smem_plan '%s' declares its block under that name, but %s; give the plan another " ..
                            "name (ptx.smem_plan{ name = ... })", at, p.name, (tostring(err):gsub("^.-error: ", ""))), 0)
      end
    end
    if dynamic then
      -- every .extern .shared array starts at the dynamic block's base: a second dynamic plan would
      -- lie on top of the first
      local first = p.cur.dynamic_plan
      if first then
        error(string.format("%serror: shared-memory plans '%s' (%d bytes) and '%s' are both over 48 KB: each would be a " ..
                            "dynamic block at the same address; put their allocations in one plan", at, p.name, total, first.name), 0)
      end
      p.cur.dynamic_plan = p
      declare(P.shared_dynamic, p.name, align)
      if p.cur.kernel then p.cur.kernel.dynamic_smem = (p.cur.kernel.dynamic_smem or 0) + total end
    else
      declare(m.var, m, "shared", p.name, "b8", align, total)
    end
    p.dynamic, p.bytes = dynamic, total
    -- the layout, for the emulator (copies must stay in the allocation, the stage, they land in):
    -- the kernel's smem_regions, as this trace left them
    local k = p.cur.kernel
    if k then
      for _, a in ipairs(p.allocs) do
        k.smem_regions[#k.smem_regions + 1] = { var = p.name, name = a.name, offset = a.offset, stage_bytes = a.stage_bytes,
                                                bytes = a.bytes, stages = a.stages }
      end
    end
  end
  P._smem_finish = function(cur) for _, p in ipairs(OPEN[cur] or {}) do finish(p) end end

  -- the byte offset of stage s (0-based) plus extra bytes, from the block's start
  function Alloc:offset_of(stage, extra)
    stage = stage or 0
    if type(stage) ~= "number" or stage < 0 or stage >= self.stages or stage ~= math.floor(stage) then
      perr("allocation '%s': stage %s out of 0..%d", self.name, tostring(stage), self.stages - 1)
    end
    if extra ~= nil and (type(extra) ~= "number" or extra % 1 ~= 0) then
      perr("allocation '%s': the extra byte offset must be an integer (got %s)", self.name, tostring(extra))
    end
    return self.offset + stage * self.stage_bytes + (extra or 0)
  end
  -- [smem+offset] of stage s: an address operand
  function Alloc:addr(stage, extra) return P.addr(self.plan.sym, self:offset_of(stage, extra)) end
  -- a per-stage slice, or a named view of bytes inside one stage
  function Alloc:stage(s)
    local offset = self:offset_of(s)                 -- checks s
    return setmetatable({ plan = self.plan, name = self.name .. "[" .. (s or 0) .. "]", dtype = self.dtype, elt = self.elt,
                          shape = self.shape, stages = 1, swizzle = self.swizzle, offset = offset,
                          size = self.stage_bytes, stage_bytes = self.stage_bytes, align = self.align, pad = 0,
                          bytes = self.bytes }, Alloc)
  end
  function Alloc:view(name, byte_offset, bytes)
    if type(name) ~= "string" or type(byte_offset) ~= "number" or type(bytes) ~= "number" or byte_offset % 1 ~= 0 or bytes % 1 ~= 0 then
      perr("allocation '%s': view(name, byte_offset, bytes) takes a name and two integers", self.name)
    end
    if byte_offset < 0 or byte_offset + bytes > self.stage_bytes then
      perr("view '%s' of '%s': bytes %d..%d outside the %d of a stage", name, self.name, byte_offset, byte_offset + bytes, self.stage_bytes)
    end
    local v = self:stage(0)
    v.name, v.offset, v.size, v.bytes, v.stage_bytes, v.stages = name, self.offset + byte_offset, bytes, bytes, self.stage_bytes, self.stages
    return v
  end

  -- ptx.shared named like a plan of this kernel: refused at its line (the plan's block takes the name)
  local shared = P.shared
  function P.shared(name, ...)
    local cur = P._current()
    for _, p in ipairs(cur and OPEN[cur] or {}) do
      if p.name == name then
        perr("ptx.shared '%s': the name is taken by the shared-memory plan of %s:%d, whose block is declared under it; " ..
             "give one of them another name", name, tostring(p.file), p.line or 0)
      end
    end
    return shared(name, ...)
  end

  -- wrap kernel bodies so that their plans are finished when the body returns (the only change
  -- the plan makes after the trace is that declaration: the instructions never change)
  local kernel = P.kernel
  function P.kernel(def)
    if type(def) == "table" and type(def.body) == "function" then
      local body = def.body
      local d = {}
      for k, v in pairs(def) do d[k] = v end
      d.body = function(...)
        local cur = P._current()
        if cur and cur.kernel then cur.kernel.smem_regions = {} end   -- this trace's plans, filled when they finish
        body(...)
        P._smem_finish(P._current())
      end
      def = d
    end
    return kernel(def)
  end

  -------------------------------------------------------------------------------------------------
  -- swizzle: y = x ^ ((x & mask) >> 3), three instructions
  -------------------------------------------------------------------------------------------------
  function P.swizzle_offset(mode, off)
    local sw = swizzle_name(mode, "ptx.swizzle_offset")
    if type(off) ~= "number" or off < 0 or off >= 2^32 or off % 1 ~= 0 then perr("ptx.swizzle_offset(mode, offset): the offset must be a byte offset (got %s)", tostring(off)) end
    return core.smem_swizzle(sw, off)
  end

  -- ptx.swizzle(x, "128B") -> y:  and.b32 t, x, 896;  shr.b32 t, t, 3;  xor.b32 y, x, t
  function P.swizzle(x, mode)
    if not isreg(x) then perr("ptx.swizzle(x, mode): x must be a 32-bit register") end
    local t = getmetatable(x).ptype
    if t ~= "u32" and t ~= "b32" and t ~= "s32" then perr("ptx.swizzle: x must be a .u32/.b32/.s32 register (got .%s)", t) end
    local sw = swizzle_name(mode, "ptx.swizzle")
    if sw == "none" then perr("ptx.swizzle: mode \"none\" has nothing to emit; use the offset as it is") end
    no_guard("ptx.swizzle")
    local _, mask, shift = core.smem_swizzle_info(sw)
    local tmp, y = poolreg(t), poolreg(t)
    emit("and.b32", tmp, x, mask)
    emit("shr.b32", tmp, tmp, shift)
    emit("xor.b32", y, x, tmp)
    return y
  end

  -------------------------------------------------------------------------------------------------
  -- wgmma descriptors
  -------------------------------------------------------------------------------------------------
  -- host part: the descriptor of a tile at a byte offset within the block (start field 0 unless
  -- opts.address gives the absolute shared address); returns lo, hi, fields
  function P.wgmma_desc_host(a, opts)
    if getmetatable(a) ~= Alloc then perr("ptx.wgmma_desc(alloc, opts): the first argument must be an allocation of a shared-memory plan (plan:alloc)") end
    if type(opts) ~= "table" then perr("ptx.wgmma_desc(alloc, { mn =, k =, ... }): a table of options expected") end
    local cur = P._current()
    if cur and core.smem_desc_layout(sm_of(cur)) ~= 90 then
      local t = cur.kernel and cur.kernel.target or "?"
      if core.smem_desc_layout(sm_of(cur)) == 100 then
        perr("ptx.wgmma_desc: wgmma's descriptor layout is sm_90's, and this kernel targets %s, whose tcgen05.mma " ..
             "reads the sm_100 layout (bits 46-48 = 0b001, a 3-bit swizzle code): use ptx.tcgen05_desc", t)
      end
      perr("ptx.wgmma_desc: wgmma's descriptor is for sm_90a; this kernel targets %s, which has no wgmma", t)
    end
    if opts.address ~= nil and (type(opts.address) ~= "number" or opts.address < 0 or opts.address % 1 ~= 0) then
      perr("ptx.wgmma_desc: opts.address must be a shared-memory byte address (got %s)", tostring(opts.address))
    end
    local mn, k = opts.mn, opts.k
    if type(mn) ~= "number" or type(k) ~= "number" then perr("ptx.wgmma_desc: opts.mn and opts.k (the tile's extents in elements) are required") end
    local kmajor = opts.major == nil or opts.major == "K" or opts.major == "k"
    if opts.major ~= nil and not kmajor and opts.major ~= "MN" and opts.major ~= "mn" then perr("ptx.wgmma_desc: major must be \"K\" or \"MN\"") end
    local sw = a.swizzle
    if opts.swizzle ~= nil then
      local want = swizzle_name(opts.swizzle, "ptx.wgmma_desc")
      if want ~= sw then
        perr("ptx.wgmma_desc: '%s' was written with swizzle %s but the descriptor asks for %s", a.name, sw, want)
      end
    end
    local off = a:offset_of(opts.stage, opts.offset)
    local addr = opts.address and (opts.address + off) or off
    local lo, hi, f = core.smem_desc_tile(addr, a.elt, mn, k, kmajor, sw)
    if not lo then perr("ptx.wgmma_desc '%s': %s", a.name, hi) end
    local ok, msg = core.smem_desc_check(lo, hi, sw)
    if not ok then perr("ptx.wgmma_desc '%s': %s", a.name, msg) end
    if not opts.address then lo = bit.band(lo, bit.bnot(0x3fff)) % 0x100000000 end  -- start filled in at run time
    return lo, hi, f, off
  end

  -- ptx.wgmma_desc(alloc, { mn =, k =, major = "K"|"MN", stage =, offset =, base = reg, address = n })
  -- address known (opts.address, the block's shared address): a u64 immediate, no instruction.
  -- Otherwise a .b64 register, by this sequence (docs/hopper.md):
  --   mov.u32 a, smem;            (only without opts.base, a .u32 register holding the block's address)
  --   add.u32 a, a|base, off;     (only when off ~= 0)
  --   shr.u32 s, a, 4;  and.b32 s, s, 16383;  cvt.u64.u32 d, s;  or.b64 d, d, CONST
  function P.wgmma_desc(a, opts)
    if type(opts) ~= "table" then perr("ptx.wgmma_desc(alloc, { mn =, k =, ... }): a table of options expected") end
    if getmetatable(a) ~= Alloc then perr("ptx.wgmma_desc: the first argument must be an allocation of ptx.smem_plan") end
    local lo, hi, _, off = P.wgmma_desc_host(a, opts)
    if opts.address then return P.hex(u64(lo, hi)) end
    no_guard("ptx.wgmma_desc")
    local base = opts.base
    if base ~= nil and not (isreg(base) and getmetatable(base).ptype == "u32") then perr("ptx.wgmma_desc: opts.base must be a .u32 register") end
    local ad
    if base then ad = base else ad = poolreg("u32"); emit("mov.u32", ad, a.plan.sym) end
    if off ~= 0 then
      local r = poolreg("u32")
      emit("add.u32", r, ad, off)
      ad = r
    end
    local s, d = poolreg("u32"), poolreg("b64")
    emit("shr.u32", s, ad, 4)
    emit("and.b32", s, s, 16383)
    emit("cvt.u64.u32", d, s)
    emit("or.b64", d, d, P.hex(u64(lo, hi)))
    return d
  end

  -------------------------------------------------------------------------------------------------
  -- mbarrier wait loop:  L: mbarrier.try_wait.parity.shared::cta.b64 p, [bar], parity;  @!p bra L;
  -------------------------------------------------------------------------------------------------
  -- opts (all optional, to print a given file's loop exactly): label (a label object), pred (a
  -- .pred register), op (the try_wait opcode, "mbarrier.try_wait..."), uni (bra.uni)
  function P.mbarrier_wait(bar, parity, opts)
    if getmetatable(bar) == Alloc then bar = bar:addr(0) end
    if type(bar) ~= "table" or rawget(bar, 0) == nil then perr("ptx.mbarrier_wait(bar, parity): bar must be an address or an allocation") end
    if parity == nil then perr("ptx.mbarrier_wait(bar, parity): the phase parity (0, 1 or a .u32 register) is required") end
    if opts ~= nil and type(opts) ~= "table" then perr("ptx.mbarrier_wait(bar, parity [, { label =, pred =, op =, uni = }])") end
    opts = opts or {}
    if opts.label ~= nil and (type(opts.label) ~= "table" or rawget(opts.label, 0) ~= core.K.LABEL) then perr("ptx.mbarrier_wait: opts.label must be a label (ptx.label())") end
    if opts.pred ~= nil and not (isreg(opts.pred) and getmetatable(opts.pred).ptype == "pred") then perr("ptx.mbarrier_wait: opts.pred must be a .pred register") end
    if opts.op ~= nil and (type(opts.op) ~= "string" or not opts.op:match("^mbarrier%.try_wait[%w_.:]*$")) then
      perr("ptx.mbarrier_wait: opts.op must be a mbarrier.try_wait opcode (got %s)", tostring(opts.op))
    end
    no_guard("ptx.mbarrier_wait")
    local l = opts.label or P.label()
    local p = opts.pred or poolreg("pred")
    P.place(l)
    emit(opts.op or "mbarrier.try_wait.parity.shared::cta.b64", p, bar, parity)
    P._guard_next(p, true); emit(opts.uni and "bra.uni" or "bra", l)
    return p
  end

  -------------------------------------------------------------------------------------------------
  -- warp specialization: warpgroup 0 produces, the others consume, each with its register budget
  --   mov.u32 t, %tid.x;  shr.u32 w, t, 7;  setp.eq.u32 p, w, 0;
  --   @!p bra ELSE;  setmaxnreg.dec.sync.aligned.u32 P;  producer(w);  bra.uni END;
  --   ELSE:  setmaxnreg.inc.sync.aligned.u32 C;  consumers(w);  END:
  -------------------------------------------------------------------------------------------------
  local function budget(v, what)
    if type(v) ~= "number" or v < 24 or v > 256 or v % 8 ~= 0 then
      perr("ptx.warp_specialize: %s register budget must be a multiple of 8 in 24..256 (got %s)", what, tostring(v))
    end
    return v
  end
  function P.warp_specialize(o)
    if type(o) ~= "table" or type(o.producer) ~= "function" or type(o.consumers) ~= "function" then
      perr("ptx.warp_specialize{ producer = fn, consumers = fn, regs = { producer = 40, consumers = 232 } }")
    end
    -- regs = false: no setmaxnreg (a CTA whose threads all fit their need without moving registers;
    -- ptxas ignores setmaxnreg where it cannot tell the entry's count, C7508)
    local regs = o.regs == nil and {} or o.regs
    if regs ~= false and type(regs) ~= "table" then perr("ptx.warp_specialize: regs must be a table { producer =, consumers = } or false") end
    local rp = regs and budget(regs.producer or 40, "the producer's")
    local rc = regs and budget(regs.consumers or 232, "the consumers'")
    no_guard("ptx.warp_specialize")
    local t, w, p = poolreg("u32"), poolreg("u32"), poolreg("pred")
    emit("mov.u32", t, P.sreg.tid.x)
    emit("shr.u32", w, t, 7)
    emit("setp.eq.u32", p, w, 0)
    P.if_(p, function()
      if rp then emit("setmaxnreg.dec.sync.aligned.u32", rp) end
      o.producer(w)
    end, function()
      if rc then emit("setmaxnreg.inc.sync.aligned.u32", rc) end
      o.consumers(w)
    end)
    return w
  end
end
