-- blackwell.lua -- the Blackwell (sm_100 family) helpers of the DSL: tcgen05 instruction and
-- shared-memory descriptors, the tensor-memory plan, the single-thread MMA issue and its commit,
-- tcgen05.ld/st with register arrays sized by shape and count, the fences and waits, and the
-- CTA-pair roles. Loaded by init.lua: require("ptxlua.blackwell")(P).
-- Every helper that emits instructions emits the fixed sequence docs/blackwell.md lists (pinned by
-- tests/spec/blackwell_spec.lua); the descriptor math is src/base/smem.c's, through ptxlua.core.
local core = require "ptxlua.core"
local bit = require "bit"

return function(P)
  local perr = P.error
  local emit = P._emit
  local poolreg = P._poolreg
  local isreg = P.isreg
  local no_guard = P._no_guard
  local K = core.K

  local function cur_or_err(what)
    local cur = P._current()
    if not cur then perr("%s belongs inside a kernel body", what) end
    return cur
  end
  local function target_of(cur) return cur and cur.kernel and cur.kernel.target or "sm_90a" end
  local function sm_of(cur) return tonumber(target_of(cur):match("%d+")) or 90 end
  -- the tcgen05 family: sm_100, sm_103, sm_110 (arch- or family-specific targets)
  local function need_tcgen05(what)
    local cur = cur_or_err(what)
    local t = target_of(cur)
    if core.smem_desc_layout(sm_of(cur)) ~= 100 or not t:match("[af]$") then
      perr("%s: tcgen05 is for the sm_100 family's arch- or family-specific targets (sm_100a, sm_100f, sm_103a, ...); " ..
           "this kernel targets %s", what, t)
    end
    return cur
  end

  local function int_in(v, lo, hi) return type(v) == "number" and v % 1 == 0 and v >= lo and v <= hi end
  local function ptype(r) return isreg(r) and getmetatable(r).ptype end
  local function is_addr(x) return type(x) == "table" and rawget(x, 0) == K.ADDR end
  -- a shared-memory address: an address operand, or an allocation of a plan (its stage 0)
  local function smem_addr(x, what)
    if type(x) == "table" and getmetatable(x) ~= nil and type(x.addr) == "function" and x.plan then return x:addr(0) end
    if not is_addr(x) then perr("%s: an address ([smem+off], ptx.addr) or a shared-memory allocation expected", what) end
    return x
  end
  -- a tensor-memory address: a .b32/.u32 register (the column and lane in one word) in brackets
  local function tmem_addr(x, what)
    local t = ptype(x)
    if t ~= "b32" and t ~= "u32" then perr("%s: a tensor-memory address is a .b32 or .u32 register (got %s)", what, tostring(t or x)) end
    return P.addr(x)
  end

  -- every tcgen05 instruction of a kernel uses one .cta_group (ptxas checks it per function): the
  -- first use fixes it, at its line; a tensor-memory plan fixes it too
  local GROUP = setmetatable({}, { __mode = "k" })
  local function cta_group(cur, g, what)
    if g ~= nil and g ~= 1 and g ~= 2 then perr("%s: cta_group must be 1 or 2 (got %s)", what, tostring(g)) end
    local held = GROUP[cur]
    if held and g and g ~= held.g then
      perr("%s: cta_group::%d, but this kernel's tcgen05 instructions use cta_group::%d (%s:%d); a kernel uses one " ..
           ".cta_group throughout", what, g, held.g, tostring(held.file), held.line or 0)
    end
    if not held then
      held = { g = g or 1 }
      held.file, held.line = P._user_where()
      GROUP[cur] = held
    end
    return held.g
  end

  -------------------------------------------------------------------------------------------------
  -- host side: the instruction descriptor and the shared-memory matrix descriptor
  -------------------------------------------------------------------------------------------------
  local KINDS = { f16 = true, tf32 = true, f8f6f4 = true, i8 = true, mxf8f6f4 = true, mxf4 = true, mxf4nvf4 = true }
  local IDESC_KEYS = { kind = 1, cta_group = 1, ws = 1, d = 1, a = 1, b = 1, m = 1, n = 1, sparse = 1, selector = 1,
                       saturate = 1, neg_a = 1, neg_b = 1, trans_a = 1, trans_b = 1, max_shift = 1, scale = 1,
                       sfa_id = 1, sfb_id = 1, k96 = 1 }
  local TYPES = { f16 = 1, bf16 = 1, tf32 = 1, f32 = 1, s32 = 1, e4m3 = 1, e5m2 = 1, e2m3 = 1, e3m2 = 1, e2m1 = 1,
                  u8 = 1, s8 = 1, ue4m3 = 1, ue8m0 = 1 }

  -- ptx.tcgen05_idesc{ kind =, d =, a =, b =, m =, n =, ... } -> the 32-bit value (a number)
  function P.tcgen05_idesc(o)
    if type(o) ~= "table" then perr("ptx.tcgen05_idesc{ kind =, d =, a =, b =, m =, n =, ... }: a table of fields expected") end
    for k in pairs(o) do
      if not IDESC_KEYS[k] then perr("ptx.tcgen05_idesc: unknown field '%s'", tostring(k)) end
    end
    if not KINDS[o.kind] then
      perr("ptx.tcgen05_idesc: kind must be f16, tf32, f8f6f4, i8, mxf8f6f4, mxf4 or mxf4nvf4 (got %s)", tostring(o.kind))
    end
    for _, f in ipairs { "d", "a", "b", "scale" } do
      if o[f] ~= nil and not TYPES[o[f]] then perr("ptx.tcgen05_idesc: %s: unknown element type %s", f, tostring(o[f])) end
    end
    for _, f in ipairs { "cta_group", "m", "n", "selector", "max_shift", "sfa_id", "sfb_id" } do
      if o[f] ~= nil and not int_in(o[f], 0, 1024) then perr("ptx.tcgen05_idesc: %s must be a small integer (got %s)", f, tostring(o[f])) end
    end
    for _, f in ipairs { "ws", "sparse", "saturate", "neg_a", "neg_b", "trans_a", "trans_b", "k96" } do
      if o[f] ~= nil and type(o[f]) ~= "boolean" then perr("ptx.tcgen05_idesc: %s must be true or false", f) end
    end
    if o.m == nil or o.n == nil then perr("ptx.tcgen05_idesc: m and n (the MMA's shape) are required") end
    if o.k96 then
      local cur = P._current()
      if cur and target_of(cur) ~= "sm_103a" then perr("ptx.tcgen05_idesc: K = 96 is for sm_103a only (this kernel targets %s)", target_of(cur)) end
    end
    local v, msg = core.tc_idesc(o)
    if not v then perr("ptx.tcgen05_idesc: %s", msg) end
    return v
  end

  -- ptx.tcgen05_idesc_decode(value, kind [, cta_group [, ws]]) -> the fields
  function P.tcgen05_idesc_decode(v, kind, group, ws)
    if not int_in(v, 0, 0xffffffff) then perr("ptx.tcgen05_idesc_decode: a 32-bit value expected (got %s)", tostring(v)) end
    if not KINDS[kind] then perr("ptx.tcgen05_idesc_decode: unknown kind %s", tostring(kind)) end
    if group ~= nil and group ~= 1 and group ~= 2 then perr("ptx.tcgen05_idesc_decode: cta_group must be 1 or 2") end
    local f, msg = core.tc_idesc_decode(v, kind, group or 1, ws and true or false)
    if not f then perr("ptx.tcgen05_idesc_decode: %s", msg) end
    return f
  end

  local function alloc_of(a, what)
    if type(a) ~= "table" or type(a.offset_of) ~= "function" or not a.plan then
      perr("%s: the first argument must be an allocation of a shared-memory plan (plan:alloc)", what)
    end
    return a
  end

  -- host part: the tcgen05 descriptor of a tile; as ptx.wgmma_desc_host, in the sm_100 layout
  -- (chosen by the kernel's target). opts: mn, k, major, stage, offset, address, swizzle
  function P.tcgen05_desc_host(a, opts)
    local cur = need_tcgen05("ptx.tcgen05_desc")
    alloc_of(a, "ptx.tcgen05_desc")
    if type(opts) ~= "table" then perr("ptx.tcgen05_desc(alloc, { mn =, k =, ... }): a table of options expected") end
    if opts.address ~= nil and not int_in(opts.address, 0, 0x3ffff) then
      perr("ptx.tcgen05_desc: opts.address must be a shared-memory byte address (got %s)", tostring(opts.address))
    end
    local mn, k = opts.mn, opts.k
    if type(mn) ~= "number" or type(k) ~= "number" then perr("ptx.tcgen05_desc: opts.mn and opts.k (the tile's extents in elements) are required") end
    local kmajor = opts.major == nil or opts.major == "K" or opts.major == "k"
    if opts.major ~= nil and not kmajor and opts.major ~= "MN" and opts.major ~= "mn" then perr("ptx.tcgen05_desc: major must be \"K\" or \"MN\"") end
    local sw = a.swizzle
    if opts.swizzle ~= nil and opts.swizzle ~= sw then
      perr("ptx.tcgen05_desc: '%s' was written with swizzle %s but the descriptor asks for %s", a.name, sw, tostring(opts.swizzle))
    end
    local off = a:offset_of(opts.stage, opts.offset)
    local addr = opts.address and (opts.address + off) or off
    local lo, hi, f = core.smem_desc_tile(addr, a.elt, mn, k, kmajor, sw, sm_of(cur))
    if not lo then perr("ptx.tcgen05_desc '%s': %s", a.name, hi) end
    if not opts.address then lo = bit.band(lo, bit.bnot(0x3fff)) % 0x100000000 end  -- start filled in at run time
    return lo, hi, f, off
  end

  -- ptx.tcgen05_desc(alloc, opts): an immediate when opts.address is known; otherwise the .b64
  -- register of ptx.wgmma_desc's sequence (docs/blackwell.md), with the sm_100 constant
  function P.tcgen05_desc(a, opts)
    if type(opts) ~= "table" then perr("ptx.tcgen05_desc(alloc, { mn =, k =, ... }): a table of options expected") end
    local lo, hi, _, off = P.tcgen05_desc_host(a, opts)
    if opts.address then return P.hex(P.smem_u64(lo, hi)) end
    no_guard("ptx.tcgen05_desc")
    local base = opts.base
    if base ~= nil and ptype(base) ~= "u32" then perr("ptx.tcgen05_desc: opts.base must be a .u32 register") end
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
    emit("or.b64", d, d, P.hex(P.smem_u64(lo, hi)))
    return d
  end

  -------------------------------------------------------------------------------------------------
  -- the tensor-memory plan: named column ranges in one power-of-two allocation of at most 512
  -------------------------------------------------------------------------------------------------
  local TMEM_COLS = 512
  local TPLANS = setmetatable({}, { __mode = "k" })
  local TPlan = {}
  TPlan.__index = TPlan

  local function pow2_at_least(n)
    local p = 32
    while p < n do p = p * 2 end
    return p
  end

  -- ptx.tmem_plan{ cta_group = 1|2 } -> plan (one a kernel)
  function P.tmem_plan(opts)
    if opts ~= nil and type(opts) ~= "table" then perr("ptx.tmem_plan([{ cta_group = 1|2 }]): a table of options expected") end
    opts = opts or {}
    local cur = need_tcgen05("ptx.tmem_plan")
    if TPLANS[cur] then
      local p = TPLANS[cur]
      perr("ptx.tmem_plan: this kernel has a tensor-memory plan already (%s:%d); put its ranges in that one", tostring(p.file), p.line or 0)
    end
    local g = cta_group(cur, opts.cta_group, "ptx.tmem_plan")
    local p = setmetatable({ cta_group = g, ranges = {}, top = 0, cols = 32, cur = cur }, TPlan)
    p.file, p.line = P._user_where()
    TPLANS[cur] = p
    return p
  end

  -- plan:alloc(name, cols [, { align = }]) -> { name, col, cols }: columns col .. col+cols-1
  function TPlan:alloc(name, cols, opts)
    if type(name) ~= "string" or not name:match("^[%a_][%w_]*$") then perr("tmem plan:alloc(name, cols): bad name %s", tostring(name)) end
    if rawget(self, name) ~= nil or TPlan[name] ~= nil then perr("tmem plan:alloc '%s': the name is taken (plan.%s)", name, name) end
    if not int_in(cols, 1, TMEM_COLS) then perr("tmem plan:alloc '%s': cols must be an integer from 1 to 512 (got %s)", name, tostring(cols)) end
    if opts ~= nil and type(opts) ~= "table" then perr("tmem plan:alloc '%s': opts must be a table { align = }", name) end
    local align = opts and opts.align or 1
    if not int_in(align, 1, TMEM_COLS) or bit.band(align, align - 1) ~= 0 then
      perr("tmem plan:alloc '%s': align must be a power of two up to 512 (got %s)", name, tostring(align))
    end
    if self.allocated then perr("tmem plan:alloc '%s': the plan is allocated already (plan:allocate at %s:%d)", name, tostring(self.allocated.file), self.allocated.line or 0) end
    local col = math.ceil(self.top / align) * align
    local top = col + cols
    if top > TMEM_COLS then
      perr("tensor memory: '%s' (%d columns at column %d) brings the plan to %d columns, over the %d columns of a CTA's " ..
           "tensor memory", name, cols, col, top, TMEM_COLS)
    end
    local r = { name = name, col = col, cols = cols }
    self.ranges[#self.ranges + 1] = r
    self[name] = r
    self.top = top
    self.cols = pow2_at_least(top)
    return r
  end

  -- the plan as a table, one line a range
  function TPlan:format()
    local out = { string.format("%-16s %6s %6s", "range", "column", "cols") }
    for _, r in ipairs(self.ranges) do out[#out + 1] = string.format("%-16s %6d %6d", r.name, r.col, r.cols) end
    out[#out + 1] = string.format("total %d columns, allocated %d (cta_group::%d; %d in a CTA)", self.top, self.cols, self.cta_group, TMEM_COLS)
    return table.concat(out, "\n") .. "\n"
  end

  -- plan:allocate(slot [, { relinquish = true }]), by one warp:
  --   tcgen05.alloc.cta_group::G.sync.aligned.shared::cta.b32 [slot], COLS;
  --   tcgen05.relinquish_alloc_permit.cta_group::G.sync.aligned;      (unless relinquish = false)
  function TPlan:allocate(slot, opts)
    if opts ~= nil and type(opts) ~= "table" then perr("tmem plan:allocate(slot [, { relinquish = }]): a table of options expected") end
    local a = smem_addr(slot, "tmem plan:allocate(slot)")
    if #self.ranges == 0 then perr("tmem plan:allocate: the plan has no ranges (plan:alloc)") end
    no_guard("tmem plan:allocate")
    local g = self.cta_group
    emit(string.format("tcgen05.alloc.cta_group::%d.sync.aligned.shared::cta.b32", g), a, self.cols)
    if not (opts and opts.relinquish == false) then
      emit(string.format("tcgen05.relinquish_alloc_permit.cta_group::%d.sync.aligned", g))
    end
    local at = {}
    at.file, at.line = P._user_where()
    self.allocated = at
  end

  -- plan:deallocate(taddr), by the warp that allocated: tcgen05.dealloc.cta_group::G.sync.aligned.b32 taddr, COLS;
  function TPlan:deallocate(taddr)
    local t = ptype(taddr)
    if t ~= "b32" and t ~= "u32" then perr("tmem plan:deallocate(taddr): the allocation's address, a .b32/.u32 register") end
    emit(string.format("tcgen05.dealloc.cta_group::%d.sync.aligned.b32", self.cta_group), taddr, self.cols)
  end

  -- plan:address(base, range [, lane [, col]]) -> add.u32 r, base, (lane << 16) + range.col + col
  function TPlan:address(base, range, lane, col)
    if ptype(base) ~= "u32" and ptype(base) ~= "b32" then perr("tmem plan:address(base, range): base must be the allocation's .u32/.b32 address") end
    if type(range) == "string" then range = rawget(self, range) end
    if type(range) ~= "table" or range.col == nil then perr("tmem plan:address: range must be a range of this plan (or its name)") end
    lane, col = lane or 0, col or 0
    if not int_in(lane, 0, 127) then perr("tmem plan:address: lane must be 0..127 (got %s)", tostring(lane)) end
    if not int_in(col, 0, range.cols - 1) then perr("tmem plan:address: column %s outside range '%s' (0..%d)", tostring(col), range.name, range.cols - 1) end
    local r = poolreg("b32")     -- .b32: ptxas takes no other type for tcgen05.mma's [d-tmem]
    emit("add.u32", r, base, lane * 65536 + range.col + col)
    return r
  end

  -------------------------------------------------------------------------------------------------
  -- the MMA and its commit
  -------------------------------------------------------------------------------------------------
  local TABLE_KINDS = { f16 = true, tf32 = true, f8f6f4 = true, i8 = true }
  -- the scale vectors and block sizes each block-scaled kind takes (PTX ISA, tcgen05.mma)
  local SCALE_VECS = {
    mxf8f6f4 = { vec = { ["1X"] = true }, block = { [32] = true }, vec_text = "1X", block_text = "32" },
    mxf4 = { vec = { ["2X"] = true }, block = { [32] = true }, vec_text = "2X", block_text = "32" },
    mxf4nvf4 = { vec = { ["2X"] = true, ["4X"] = true }, block = { [16] = true, [32] = true },
                 vec_text = "2X or 4X", block_text = "16 or 32" },
  }
  local function desc_operand(x, what)
    if ptype(x) == "b64" or ptype(x) == "u64" then return x end
    if type(x) == "table" and rawget(x, 0) == K.IMM then return x end
    perr("%s: a shared-memory descriptor (a .b64 register, or ptx.tcgen05_desc's immediate) expected", what)
  end
  local function idesc_operand(x, what)
    if int_in(x, 0, 0xffffffff) then return P.hex(x) end
    if ptype(x) == "b32" or ptype(x) == "u32" then return x end
    perr("%s: idesc must be ptx.tcgen05_idesc's value or a .b32/.u32 register", what)
  end

  -- the operands and opcode of one tcgen05.mma, checked
  local function mma_parts(o, what, cur)
    if type(o) ~= "table" then perr("%s{ d =, a =, b =, idesc =, accumulate =, kind = }: a table expected", what) end
    local kind = o.kind or "f16"
    if not KINDS[kind] then perr("%s: unknown kind %s", what, tostring(kind)) end
    local scaled = not TABLE_KINDS[kind]
    local g = cta_group(cur, o.cta_group, what)
    if ptype(o.d) ~= "b32" then
      perr("%s: d must be a .b32 register (ptxas takes no other type for the tensor-memory address of " ..
           "tcgen05.mma; tmem plan:address gives one)", what)
    end
    local d = P.addr(o.d)
    local a
    if ptype(o.a) == "b32" then a = P.addr(o.a) else a = desc_operand(o.a, what .. " a") end
    local b = desc_operand(o.b, what .. " b")
    local id = idesc_operand(o.idesc, what)
    if ptype(o.accumulate) ~= "pred" then
      perr("%s: accumulate (enable-input-d) must be a .pred register: false for the first MMA into D", what)
    end
    local op = string.format("tcgen05.mma.cta_group::%d.kind::%s", g, kind)
    if scaled then
      -- the block-scaled kinds: .block_scale with a scale vector (.scale_vec::NX, arch-specific) or a
      -- block size (.block16/.block32, PTX 8.8), then [scale-A-tmem], [scale-B-tmem] before enable-input-d
      if o.scale_d ~= nil then perr("%s: scale_d (scale-input-d) is for kinds f16 and tf32 only", what) end
      local vec = SCALE_VECS[kind]
      local sv, blk = o.scale_vec, o.block
      if sv ~= nil and blk ~= nil then perr("%s: give scale_vec or block, not both", what) end
      local mod = ".block_scale"
      if sv ~= nil then
        if not vec.vec[sv] then perr("%s: .kind::%s takes scale_vec %s (got %s)", what, kind, vec.vec_text, tostring(sv)) end
        mod = mod .. ".scale_vec::" .. sv
      elseif blk ~= nil then
        if not vec.block[blk] then perr("%s: .kind::%s takes block %s (got %s)", what, kind, vec.block_text, tostring(blk)) end
        mod = mod .. ".block" .. blk
      end
      for _, f in ipairs { "scale_a", "scale_b" } do
        if ptype(o[f]) ~= "b32" then
          perr("%s: %s must be a .b32 register, the tensor-memory address of the scale factors " ..
               "(ptxas takes no other type; tmem plan:address gives one)", what, f)
        end
      end
      return op .. mod, d, a, b, id, P.addr(o.scale_a), P.addr(o.scale_b), o.accumulate
    end
    if o.scale_a ~= nil or o.scale_b ~= nil or o.scale_vec ~= nil or o.block ~= nil then
      perr("%s: scale_a, scale_b, scale_vec and block are for the block-scaled kinds (mxf8f6f4, mxf4, mxf4nvf4)", what)
    end
    if o.scale_d ~= nil then
      if kind ~= "f16" and kind ~= "tf32" then perr("%s: scale_d (scale-input-d) is for kinds f16 and tf32 only", what) end
      if not int_in(o.scale_d, 0, 15) then perr("%s: scale_d must be 0..15 (got %s)", what, tostring(o.scale_d)) end
      return op, d, a, b, id, o.accumulate, o.scale_d
    end
    return op, d, a, b, id, o.accumulate
  end

  -- ptx.tcgen05_mma{ d =, a =, b =, idesc =, accumulate =, kind =, cta_group =, scale_d = }: one instruction
  --   tcgen05.mma.cta_group::G.kind::K [d], a-desc|[a-tmem], b-desc, idesc, accumulate{, scale_d};
  function P.tcgen05_mma(o)
    local cur = need_tcgen05("ptx.tcgen05_mma")
    emit(mma_parts(o, "ptx.tcgen05_mma", cur))
  end

  local function commit_parts(bar, opts, what, cur)
    if opts ~= nil and type(opts) ~= "table" then perr("%s(bar [, { cta_group =, multicast = }]): a table of options expected", what) end
    opts = opts or {}
    local a = smem_addr(bar, what)
    local g = cta_group(cur, opts.cta_group, what)
    local mc = opts.multicast
    if mc == nil then
      return string.format("tcgen05.commit.cta_group::%d.mbarrier::arrive::one.shared::cluster.b64", g), a
    end
    -- ptxas takes the mask in a register only (ptx.b16(mask), or ptx.cta_pair's mask)
    if not (ptype(mc) == "u16" or ptype(mc) == "b16" or ptype(mc) == "s16") then
      perr("%s: multicast must be a 16-bit register holding the CTA mask (ptx.b16(mask), or ptx.cta_pair().mask)", what)
    end
    return string.format("tcgen05.commit.cta_group::%d.mbarrier::arrive::one.shared::cluster.multicast::cluster.b64", g),
           a, mc
  end

  -- ptx.tcgen05_commit(bar [, { cta_group =, multicast = mask }]): one instruction
  --   tcgen05.commit.cta_group::G.mbarrier::arrive::one.shared::cluster{.multicast::cluster}.b64 [bar]{, mask};
  function P.tcgen05_commit(bar, opts)
    local cur = need_tcgen05("ptx.tcgen05_commit")
    emit(commit_parts(bar, opts, "ptx.tcgen05_commit", cur))
  end

  -- ptx.tcgen05_mma_commit{ mma fields, or mmas = { {...}, ... }; bar =, multicast = }: one elected
  -- lane of the warp issues the MMAs and their commit:
  --   elect.sync _|p, -1;  @p tcgen05.mma ...;  (one a MMA)  @p tcgen05.commit ... [bar]{, mask};
  function P.tcgen05_mma_commit(o)
    local cur = need_tcgen05("ptx.tcgen05_mma_commit")
    if type(o) ~= "table" then perr("ptx.tcgen05_mma_commit{ d =, a =, b =, idesc =, accumulate =, bar = }: a table expected") end
    local list = o.mmas or { o }
    if type(list) ~= "table" or #list == 0 then perr("ptx.tcgen05_mma_commit: mmas must be a non-empty list of MMAs") end
    if o.bar == nil then perr("ptx.tcgen05_mma_commit: bar (the mbarrier the commit arrives on) is required") end
    local parts = {}
    for i, m in ipairs(list) do
      if o.mmas and type(m) == "table" and m.cta_group == nil then m = setmetatable({ cta_group = o.cta_group }, { __index = m }) end
      parts[i] = { mma_parts(m, "ptx.tcgen05_mma_commit", cur) }
    end
    local c = { commit_parts(o.bar, { cta_group = o.cta_group, multicast = o.multicast }, "ptx.tcgen05_mma_commit", cur) }
    no_guard("ptx.tcgen05_mma_commit")
    local p = poolreg("pred")
    emit("elect.sync", P.pair(P.sink, p), P.hex(0xffffffff))
    for _, q in ipairs(parts) do
      P._guard_next(p, false)
      emit(unpack(q))
    end
    P._guard_next(p, false)
    emit(unpack(c))
    return p
  end

  -------------------------------------------------------------------------------------------------
  -- tcgen05.ld / tcgen05.st: registers by shape and count
  -------------------------------------------------------------------------------------------------
  -- registers per .num: 1 (32x32b, 16x64b, 16x32bx2), 2 (16x128b), 4 (16x256b); at most 128
  local SHAPES = { ["32x32b"] = 1, ["16x64b"] = 1, ["16x32bx2"] = 1, ["16x128b"] = 2, ["16x256b"] = 4 }
  local function shape_parts(o, what)
    if type(o) ~= "table" then perr("%s{ shape =, num =, taddr = }: a table expected", what) end
    local per = SHAPES[o.shape]
    if not per then perr("%s: shape must be 32x32b, 16x64b, 16x128b, 16x256b or 16x32bx2 (got %s)", what, tostring(o.shape)) end
    local num = o.num or 1
    if not int_in(num, 1, 128) or bit.band(num, num - 1) ~= 0 or num * per > 128 then
      perr("%s: num must be a power of two with num x %d registers at most 128 for .%s (got %s)", what, per, o.shape, tostring(num))
    end
    local off = o.offset
    if o.shape == "16x32bx2" then
      if not int_in(off, 0, 0x7fffffff) then perr("%s: .16x32bx2 takes offset (immHalfSplitoff, the second half's column offset)", what) end
    elseif off ~= nil then
      perr("%s: offset is an operand of .16x32bx2 only", what)
    end
    return num * per, num, off
  end

  -- ptx.tcgen05_ld{ shape =, num =, taddr =, pack = true, offset = } -> { r1, ..., rN } (.b32),
  -- one instruction: tcgen05.ld.sync.aligned.SHAPE.xNUM{.pack::16b}.b32 {r...}, [taddr]{, offset};
  function P.tcgen05_ld(o)
    need_tcgen05("ptx.tcgen05_ld")
    local n, num, off = shape_parts(o, "ptx.tcgen05_ld")
    local ta = tmem_addr(o.taddr, "ptx.tcgen05_ld taddr")
    if o.pack ~= nil and type(o.pack) ~= "boolean" then perr("ptx.tcgen05_ld: pack must be true or false") end
    local regs = P.regs.b32(n)
    local op = string.format("tcgen05.ld.sync.aligned.%s.x%d%s.b32", o.shape, num, o.pack and ".pack::16b" or "")
    if off then emit(op, regs, ta, off) else emit(op, regs, ta) end
    return regs
  end

  -- ptx.tcgen05_ld_red{ shape =, num =, taddr =, op = "min"|"max", type = "f32"|"u32"|"s32",
  -- abs =, nan =, offset = } -> { r1, ..., rN }, red (registers of type), one instruction:
  --   tcgen05.ld.red.sync.aligned.SHAPE.xNUM.OP{.abs}{.NaN}.TYPE {r...}, red, [taddr]{, offset};
  -- a load that also reduces the values it loads into red (PTX 8.8: sm_103a/f and sm_110a/f only;
  -- shapes 32x32b and 16x32bx2, num 2 to 128; .abs and .NaN for f32)
  local RED_TYPES = { f32 = true, u32 = true, s32 = true }
  function P.tcgen05_ld_red(o)
    local what = "ptx.tcgen05_ld_red"
    local cur = need_tcgen05(what)
    local t = target_of(cur)
    local sm = sm_of(cur)
    if sm ~= 103 and sm ~= 110 then
      perr("%s: tcgen05.ld.red is for sm_103a/f and sm_110a/f (PTX 8.8), not sm_100; this kernel targets %s", what, t)
    end
    if type(o) ~= "table" then perr("%s{ shape =, num =, taddr =, op =, type = }: a table expected", what) end
    if o.shape ~= "32x32b" and o.shape ~= "16x32bx2" then
      perr("%s: shape must be 32x32b or 16x32bx2 (got %s)", what, tostring(o.shape))
    end
    local n, num, off = shape_parts(o, what)
    if num < 2 then perr("%s: num must be 2 to 128 (a reduction takes two values at least; got 1)", what) end
    if o.op ~= "min" and o.op ~= "max" then perr("%s: op must be \"min\" or \"max\" (got %s)", what, tostring(o.op)) end
    local ty = o.type or "f32"
    if not RED_TYPES[ty] then perr("%s: type must be f32, u32 or s32 (got %s)", what, tostring(ty)) end
    for _, k in ipairs { "abs", "nan" } do
      if o[k] ~= nil and type(o[k]) ~= "boolean" then perr("%s: %s must be true or false", what, k) end
      if o[k] and ty ~= "f32" then perr("%s: %s is for type f32 only (got %s)", what, k, ty) end
    end
    local ta = tmem_addr(o.taddr, what .. " taddr")
    local regs, red = P.regs[ty](n), P.reg[ty]()
    local op = string.format("tcgen05.ld.red.sync.aligned.%s.x%d.%s%s%s.%s", o.shape, num, o.op,
                             o.abs and ".abs" or "", o.nan and ".NaN" or "", ty)
    if off then emit(op, regs, red, ta, off) else emit(op, regs, red, ta) end
    return regs, red
  end

  -- ptx.tcgen05_st{ shape =, num =, taddr =, regs =, unpack = true, offset = }: one instruction
  --   tcgen05.st.sync.aligned.SHAPE.xNUM{.unpack::16b}.b32 [taddr]{, offset}, {r...};
  function P.tcgen05_st(o)
    need_tcgen05("ptx.tcgen05_st")
    local n, num, off = shape_parts(o, "ptx.tcgen05_st")
    local ta = tmem_addr(o.taddr, "ptx.tcgen05_st taddr")
    if o.unpack ~= nil and type(o.unpack) ~= "boolean" then perr("ptx.tcgen05_st: unpack must be true or false") end
    local regs = o.regs
    if type(regs) ~= "table" or #regs ~= n then
      perr("ptx.tcgen05_st: regs must be a list of %d 32-bit registers for .%s.x%d (got %s)", n, o.shape, num,
           type(regs) == "table" and tostring(#regs) or tostring(regs))
    end
    for i = 1, n do
      local t = ptype(regs[i])
      if t ~= "b32" and t ~= "u32" and t ~= "s32" and t ~= "f32" then perr("ptx.tcgen05_st: regs[%d] is not a 32-bit register", i) end
    end
    local op = string.format("tcgen05.st.sync.aligned.%s.x%d%s.b32", o.shape, num, o.unpack and ".unpack::16b" or "")
    if off then emit(op, ta, off, regs) else emit(op, ta, regs) end
  end

  -- ptx.tcgen05_wait("ld"|"st"): tcgen05.wait::ld.sync.aligned;  (or ::st)
  function P.tcgen05_wait(what)
    need_tcgen05("ptx.tcgen05_wait")
    if what ~= "ld" and what ~= "st" then perr("ptx.tcgen05_wait(\"ld\"|\"st\") (got %s)", tostring(what)) end
    emit("tcgen05.wait::" .. what .. ".sync.aligned")
  end

  -- ptx.tcgen05_fence("before"|"after"): tcgen05.fence::before_thread_sync;  (or ::after_thread_sync)
  function P.tcgen05_fence(what)
    need_tcgen05("ptx.tcgen05_fence")
    if what ~= "before" and what ~= "after" then perr("ptx.tcgen05_fence(\"before\"|\"after\") (got %s)", tostring(what)) end
    emit("tcgen05.fence::" .. what .. "_thread_sync")
  end

  -------------------------------------------------------------------------------------------------
  -- CTA pairs: ranks that differ in bit 0; the even one leads
  --   mov.u32 r, %cluster_ctarank;  and.b32 o, r, 1;  setp.eq.u32 leader, o, 0;  xor.b32 peer, r, 1;
  --   and.b32 e, r, 0xfffffffe;  shl.b32 m, 3, e;  cvt.u16.u32 mask, m;
  -------------------------------------------------------------------------------------------------
  function P.cta_pair()
    need_tcgen05("ptx.cta_pair")
    no_guard("ptx.cta_pair")
    local r, o, peer, e, m = poolreg("u32"), poolreg("u32"), poolreg("u32"), poolreg("u32"), poolreg("u32")
    local leader, mask = poolreg("pred"), poolreg("u16")
    emit("mov.u32", r, P.sreg.cluster_ctarank)
    emit("and.b32", o, r, 1)
    emit("setp.eq.u32", leader, o, 0)
    emit("xor.b32", peer, r, 1)
    emit("and.b32", e, r, P.hex(0xfffffffe))
    emit("shl.b32", m, 3, e)
    emit("cvt.u16.u32", mask, m)
    return { rank = r, peer = peer, leader = leader, mask = mask }
  end

  -------------------------------------------------------------------------------------------------
  -- a tile scheduler through cluster launch control (docs/blackwell.md), for one thread:
  --   mbarrier.arrive.expect_tx.shared::cta.b64 _, [bar], 16;
  --   {@issue} clusterlaunchcontrol.try_cancel.async.shared::cta.mbarrier::complete_tx::bytes
  --            .multicast::cluster::all.b128 [resp], [bar];
  --   L: mbarrier.try_wait.parity.shared::cta.b64 p, [bar], phase;  @!p bra L;
  --   fence.proxy.async::generic.acquire.sync_restrict::shared::cluster.cluster;
  --   ld.shared.b128 r, [resp];
  --   clusterlaunchcontrol.query_cancel.is_canceled.pred.b128 ok, r;
  --   @ok clusterlaunchcontrol.query_cancel.get_first_ctaid.v4.b32.b128 {x, y, z, _}, r;
  -- -> ok, x, y, z (.pred, then .u32: the first CTA of the cluster taken)
  -------------------------------------------------------------------------------------------------
  function P.clc_next(resp, bar, phase, opts)
    local what = "ptx.clc_next"
    local cur = cur_or_err(what)
    local t = target_of(cur)
    if sm_of(cur) < 100 or not t:match("[af]$") then
      perr("%s: .multicast::cluster::all try_cancel is for the arch- and family-specific targets of sm_100 on " ..
           "(sm_100a, sm_100f, ...); this kernel targets %s", what, t)
    end
    resp, bar = smem_addr(resp, what .. "(resp, ...)"), smem_addr(bar, what .. "(..., bar, ...)")
    if not (phase == 0 or phase == 1 or (isreg(phase) and (ptype(phase) == "u32" or ptype(phase) == "b32"))) then
      perr("%s(resp, bar, phase): phase is the mbarrier phase's parity, 0, 1 or a .u32 register (got %s)", what, tostring(phase))
    end
    if opts ~= nil and type(opts) ~= "table" then perr("%s(resp, bar, phase [, { issue = pred }])", what) end
    local issue = opts and opts.issue
    if issue ~= nil and ptype(issue) ~= "pred" then perr("%s: opts.issue must be a .pred register (got %s)", what, tostring(issue)) end
    no_guard(what)
    local r, ok = poolreg("b128"), poolreg("pred")
    local x, y, z = poolreg("u32"), poolreg("u32"), poolreg("u32")
    emit("mbarrier.arrive.expect_tx.shared::cta.b64", P.sink, bar, 16)
    if issue then P._guard_next(issue, false) end
    emit("clusterlaunchcontrol.try_cancel.async.shared::cta.mbarrier::complete_tx::bytes.multicast::cluster::all.b128",
         resp, bar)
    P.mbarrier_wait(bar, phase)
    emit("fence.proxy.async::generic.acquire.sync_restrict::shared::cluster.cluster")
    emit("ld.shared.b128", r, resp)
    emit("clusterlaunchcontrol.query_cancel.is_canceled.pred.b128", ok, r)
    P._guard_next(ok, false)
    emit("clusterlaunchcontrol.query_cancel.get_first_ctaid.v4.b32.b128", { x, y, z, P.sink }, r)
    return ok, x, y, z
  end
end
