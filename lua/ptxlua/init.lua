-- ptxlua -- the Lua DSL: kernels, registers, instruction chains, operators and helpers.
-- Every instruction call and every operator on a register records exactly one PTX instruction
-- through the C core (ptxlua.core), which validates it against the ISA table at the caller's line.

local core = require "ptxlua.core"

local P = { _VERSION = "0.1.0" }
local floor, type, select, setmetatable, rawget, rawset = math.floor, type, select, setmetatable, rawget, rawset
local tostring, tonumber, pairs, ipairs, error = tostring, tonumber, pairs, ipairs, error
local fmt = string.format

-- frames from this directory are the library's; anchors and errors skip them
local LIBDIR = debug.getinfo(1, "S").source:match("^(@.*[/\\])") or "@ptxlua/"
core.internal_source(LIBDIR)
P._libdir = LIBDIR

-- operand kinds, the C binding's (core.K, from one list in src/lua/core.c): t[0] of an operand table
-- is the register id (> 0) for a register, or one of these negative codes; a plain list (t[0] ==
-- nil) is a vector operand. PAREN: a parenthesized list (a call's results and arguments); TADDR: a
-- tensor address [tmap, {c0, c1, ...}] (cp.async.bulk.tensor)
local K = core.K
local K_ADDR, K_SYM, K_LABEL, K_SREG, K_NEG, K_SINK, K_PAIR, K_IMM = K.ADDR, K.SYM, K.LABEL, K.SREG, K.NEG, K.SINK, K.PAIR, K.IMM
local K_PAREN, K_TADDR = K.PAREN, K.TADDR

---------------------------------------------------------------------------------------------------
-- errors at the user's line
---------------------------------------------------------------------------------------------------
local function user_where()
  for lvl = 3, 60 do
    local info = debug.getinfo(lvl, "Sl")
    if not info then break end
    local src = info.source
    if info.currentline and info.currentline > 0 and src:sub(1, 1) == "@"
       and src:sub(1, #LIBDIR) ~= LIBDIR then
      return src:sub(2), info.currentline
    end
  end
  return nil
end

local function perr(msg, ...)
  if type(msg) ~= "string" then msg = tostring(msg)
  elseif select("#", ...) > 0 then
    local ok, m = pcall(fmt, msg, ...)
    msg = ok and m or msg                      -- ptx.error("50%", t): the text as given
  end
  local file, line = user_where()
  if file then error(fmt("%s:%d: error: %s", file, line, msg), 0) end
  error("error: " .. msg, 0)
end
P.error = perr
P._user_where = user_where

-- file and line of the function `level` frames above the caller (1: the caller's caller), for the
-- PTX-in modules (ptxlua.verbatim, ptxlua.sugar) whose errors name a statement's script line
function P._caller_line(level)
  local info = debug.getinfo(level + 1, "Sl")
  if not info then return "?", 0 end
  local src = info.source or "?"
  if src:sub(1, 1) == "@" then src = src:sub(2) end
  return src, info.currentline or 0
end

-- the keys of a table in a fixed order: pairs() order differs between processes, messages must not
local function sorted_keys(t)
  local ks = {}
  for k in pairs(t) do ks[#ks + 1] = k end
  table.sort(ks, function(a, b) return tostring(a) < tostring(b) end)
  return ks
end

-- xpcall handler while tracing: any Lua error (a nil call in the body, a bad argument caught by
-- the C binding, a slip inside this library) becomes "file:line: error: message" at the user's line
local function user_error(e)
  if type(e) ~= "string" and type(e) ~= "number" then   -- error({code = 1}): at the raising frame
    local text = "error object is " .. (e == nil and "nil" or "a " .. type(e)) .. ", not a string"
    local mt = getmetatable(e)
    if type(mt) == "table" and rawget(mt, "__tostring") ~= nil then
      local ok, r = pcall(tostring, e)
      if ok and type(r) == "string" then text = text .. ": " .. r:sub(1, 200) end
    elseif type(e) == "boolean" then text = text .. ": " .. tostring(e)
    elseif type(e) == "table" then                       -- its scalar fields, sorted (no addresses)
      local parts, more = {}, ""
      for _, k in ipairs(sorted_keys(e)) do
        local v = rawget(e, k)
        if #parts == 4 then more = ", ..."
        elseif type(k) == "string" or type(k) == "number" then
          local vs = type(v) == "string" and fmt("%q", v:sub(1, 60)) or (type(v) == "number" or type(v) == "boolean") and tostring(v) or type(v)
          parts[#parts + 1] = (type(k) == "number" and "[" .. tostring(k) .. "]" or k:match("^[%a_][%w_]*$") and k or fmt("[%q]", k)) .. " = " .. vs
        end
      end
      text = text .. ": {" .. table.concat(parts, ", ") .. more .. "}"
    end
    for lvl = 2, 60 do                                   -- the raising frame: the first with a line
      local info = debug.getinfo(lvl, "Sl")
      if not info then break end
      if info.currentline and info.currentline > 0 then
        if info.source:match("^[@=]") and info.source:sub(1, #LIBDIR) ~= LIBDIR then   -- =stdin: the REPL
          return fmt("%s:%d: error: %s", info.source:sub(2), info.currentline, text)
        end
        break
      end
    end
    local uf, ul = user_where()
    return uf and fmt("%s:%d: error: %s", uf, ul, text) or "error: " .. text
  end
  if type(e) ~= "string" or e:match("^error: ") then return e end
  if e:sub(1, 3) == "..." then e = core.expand_chunk(e) end   -- a path Lua cut to 60 characters
  local f, l, rest = e:match("^(.-):(%d+): (.*)$")
  if f and rest:match("^error: ") then return e end
  if f and ("@" .. f):sub(1, #LIBDIR) ~= LIBDIR then return fmt("%s:%s: error: %s", f, l, rest) end
  local uf, ul = user_where()            -- the stack is still there: the innermost user line
  if uf then return fmt("%s:%d: error: %s", uf, ul, rest or e) end
  return "error: " .. (rest or e)
end
P._user_error = user_error   -- also the C API's message handler for values that are not strings

---------------------------------------------------------------------------------------------------
-- types
---------------------------------------------------------------------------------------------------
-- the register types of the DSL: { class, bits, pool prefix }. class ("f" float, "s" signed, "u"
-- unsigned, "b" bits, "p" predicate) and bits are the C core's (core.types, src/base/types.h); the
-- prefix names the type's pool registers (%r1, %f2, ...), a DSL convention
local PREFIX = {
  pred = "p", b8 = "bc", b16 = "bs", b32 = "b", b64 = "bd", b128 = "bq",
  u8 = "uc", u16 = "us", u32 = "r", u64 = "rd", s8 = "sc", s16 = "ss", s32 = "si", s64 = "sd",
  f16 = "h", f16x2 = "hh", bf16 = "hb", bf16x2 = "hhb", f32 = "f", f64 = "fd",
}
local CTYPES = core.types()
local TYPES = {}
for t, pre in pairs(PREFIX) do TYPES[t] = { CTYPES[t].class, CTYPES[t].bits, pre } end
P.types = TYPES
local function tclass(t) return TYPES[t][1] end
local function tbits(t) return TYPES[t][2] end

-- the operand for a number given to a half-precision mov/selp: its bits (PTX has no .f16 or .bf16
-- literal: mov.b16 %h1, 0x3C00 is 1.0, and a plain integer there would be the bit pattern), rounded
-- to nearest even as the emulator rounds (core.fp_bits); x2 types: the value in both halves
local HALF = { f16 = "f16", bf16 = "bf16", f16x2 = "f16", bf16x2 = "bf16" }
local function half_imm(t, v)
  local h = HALF[t]
  if not h or type(v) ~= "number" then return v end
  local b = core.fp_bits(v, h)
  if h ~= t then b = b * 65536 + b end
  return P.hex(b)
end

---------------------------------------------------------------------------------------------------
-- the trace being recorded
---------------------------------------------------------------------------------------------------
local CUR = nil          -- { mod = core module, kernel = def, nlabel = n, narr = n }
local MOD = nil          -- CUR.mod, cached
local OPC = {}           -- opcode text -> id (ids are stable for the Lua state)

local function opid(text)
  local id = OPC[text]
  if not id then id = core.opcode(text); OPC[text] = id end
  return id
end

local function need_trace()
  if not MOD then perr("no kernel is being traced (this call belongs inside a kernel body)") end
  return MOD
end

-- helpers that record several instructions refuse a ptx.at guard before they record anything
-- (a guarded call counts what it recorded afterwards too: this is the early, clearer error)
local function no_guard(what)
  local m = MOD or need_trace()
  if m:guarded() then
    perr("ptx.at guards one instruction, and %s records several; branch on the predicate instead (ptx.if_, or a guarded bra)", what)
  end
  return m
end
P._no_guard = no_guard

local EMIT = core.emit     -- records into the module made current by m:activate()

-- The fast path: the first operands' register ids read here (compiled by the JIT) into the C
-- core's operand buffer, then core.emitv, which takes them from there instead of reading each
-- register table through the Lua C API. Per operand: 0 (the C core converts the Lua value), 1 id
-- (a register), 2 n id1..idn (a list of n registers); OPB[0] = operands described.
local EMITV, OPB = nil, nil
do
  local ok, ffi = pcall(require, "ffi")
  if ok and core.emitv and core.opbuf then
    local buf, size = core.opbuf()
    if size and size >= 6 * 130 + 1 then OPB = ffi.cast("uint32_t *", buf); EMITV = core.emitv end
  end
end

-- the register id of e (a register table), or false; the C core checks the id it receives
-- (a register of this module and kernel) as it checks the ones it reads itself
local function rid(e)
  if type(e) ~= "table" then return false end
  local id = rawget(e, 0)
  return type(id) == "number" and id > 0 and id
end

local function describe(a, p)  -- operand a at OPB[p]: the next free position
  if type(a) == "table" then
    local id = rawget(a, 0)
    if id == nil then  -- a list: a vector operand when every element is a register
      local n = #a
      -- the common lengths without a loop: a loop here would be a trace of its own, entered and
      -- left for every vector
      if n == 4 then
        local i1, i2, i3, i4 = rid(rawget(a, 1)), rid(rawget(a, 2)), rid(rawget(a, 3)), rid(rawget(a, 4))
        if i1 and i2 and i3 and i4 then
          OPB[p] = 2; OPB[p + 1] = 4; OPB[p + 2] = i1; OPB[p + 3] = i2; OPB[p + 4] = i3; OPB[p + 5] = i4
          return p + 6
        end
      elseif n == 2 then
        local i1, i2 = rid(rawget(a, 1)), rid(rawget(a, 2))
        if i1 and i2 then
          OPB[p] = 2; OPB[p + 1] = 2; OPB[p + 2] = i1; OPB[p + 3] = i2
          return p + 4
        end
      elseif n >= 1 and n <= 128 then
        for k = 1, n do
          local e = rid(rawget(a, k))
          if not e then OPB[p] = 0; return p + 1 end
          OPB[p + 1 + k] = e
        end
        OPB[p] = 2; OPB[p + 1] = n
        return p + 2 + n
      end
    elseif type(id) == "number" and id > 0 then
      OPB[p] = 1; OPB[p + 1] = id
      return p + 2
    end
  end
  OPB[p] = 0
  return p + 1
end

-- up to six operands: every argument passed by name, no vararg call (the JIT compiles these
-- calls where a call with ... as its arguments would leave it for the interpreter). Called by
-- tail calls only (chains, emit): the caller of core.emitv here is this function, level 2 the
-- library function or user code that made the call.
local function emit_id(id, ...)
  local n = select("#", ...)
  if not OPB or n > 6 then EMIT(id, ...); return end
  local a1, a2, a3, a4, a5, a6 = ...
  if n == 0 then EMIT(id); return end
  local p = describe(a1, 1)
  if n == 1 then OPB[0] = 1; EMITV(id, a1); return end
  p = describe(a2, p)
  if n == 2 then OPB[0] = 2; EMITV(id, a1, a2); return end
  p = describe(a3, p)
  if n == 3 then OPB[0] = 3; EMITV(id, a1, a2, a3); return end
  p = describe(a4, p)
  if n == 4 then OPB[0] = 4; EMITV(id, a1, a2, a3, a4); return end
  p = describe(a5, p)
  if n == 5 then OPB[0] = 5; EMITV(id, a1, a2, a3, a4, a5); return end
  describe(a6, p)
  OPB[0] = 6; EMITV(id, a1, a2, a3, a4, a5, a6)
end

local function emit(text, ...)
  return emit_id(OPC[text] or opid(text), ...)  -- a tail call: the anchor search starts at the caller
end
P._emit = emit

---------------------------------------------------------------------------------------------------
-- registers
---------------------------------------------------------------------------------------------------
local REGMT = {}         -- type name -> metatable
local RegMethods = {}    -- type name -> methods table

-- a register: a table whose [0] is its id and whose metatable is a register type's (REGMT)
local function isreg(v)
  if type(v) ~= "table" then return false end
  local mt = getmetatable(v)
  return mt ~= nil and rawget(mt, "ptype") ~= nil and type(rawget(v, 0)) == "number" and rawget(v, 0) > 0
end
local function regtype(v) return getmetatable(v).ptype end
P.isreg = isreg

local function newreg(t, id) return setmetatable({ [0] = id }, REGMT[t]) end

-- names PTX gives a meaning of its own: a variable, parameter, function or kernel named so does not
-- parse (ptxas: syntax error)
local RESERVED_IDENT = { _ = "the sink '_'", WARP_SZ = "PTX's predefined warp-size constant" }
local function check_ident(what, name)
  local why = RESERVED_IDENT[name]
  if why then perr("%s: the name '%s' is reserved in PTX (%s); choose another", what, name, why) end
end
P._check_ident = check_ident

-- a kernel's own variable or parameter named like a ptx.func of the script hides the function
-- from the kernel's calls (ptxas: "Arguments mismatch for instruction 'call'")
local function check_hides_func(what, name)
  for _, f in ipairs(P._funcs or {}) do
    if f.name == name then
      perr("%s: '%s' is the name of the function defined at %s:%d; a variable or parameter of that name hides it " ..
           "from this function's calls (ptxas: arguments mismatch for 'call'); choose another name", what, name,
           tostring(f.file), f.line or 0)
    end
  end
end
P._check_hides_func = check_hides_func

-- a register name the pools hand out: %p1, %r2, %rd3 ... (and %fv1_0, the unnamed ranges); a named
-- register or range called so would be declared twice, or meet a pool register of another type
local POOL_OF = {}
for t, info in pairs(TYPES) do POOL_OF[info[3]] = t end
local function check_regname(name)
  local pre = name:match("^(.-)%d*$")
  local t = POOL_OF[pre] or POOL_OF[name:match("^(.-)v%d+_%d*$") or ""]
  if t then
    perr("register name '%%%s' is reserved: the pool of unnamed .%s registers is %%%s1, %%%s2, ...%s; choose another name",
         name, t, TYPES[t][3], TYPES[t][3], POOL_OF[pre] and "" or " (and its unnamed ranges " .. TYPES[t][3] .. "v1_ ...)")
  end
end

local function poolreg(t)
  local m = MOD or need_trace()
  return newreg(t, m:pool(TYPES[t][3], t))
end
P._poolreg = poolreg

local function typeof(v)
  if isreg(v) then return regtype(v) end
  return nil
end

-- the type of a binary operation: both registers of one type, or a register and a number
local function optype(a, b, op)
  local ta, tb = typeof(a), typeof(b)
  if ta and tb then
    if ta ~= tb then perr("type mismatch: .%s %s .%s (convert one side with :to(), no silent conversion)", ta, op, tb) end
    return ta
  end
  local t = ta or tb
  if not t then perr("'%s' needs a register operand (its type is the result's)", op) end
  local other = b
  if not ta then other = a end
  -- a number, ptx.imm(v), or a 64-bit LuaJIT integer (0x...ULL, -5LL: the core reads it exactly)
  local ot = type(other)
  if ot ~= "number" and ot ~= "cdata" and not (ot == "table" and rawget(other, 0) == K_IMM) then
    perr("bad operand for '%s': .%s register %s %s", op, t, op, ot == "table" and "operand object" or ot)
  end
  return t
end

-- opcode text of each operator per type class
local function arith_opcode(op, t)
  local c = tclass(t)
  if c == "p" then perr("no arithmetic on predicates (use :and_(), :or_(), :xor(), :not_())") end
  if c == "b" then perr("no arithmetic on .%s registers (declare them .u%d/.s%d/.f%d)", t, tbits(t), tbits(t), tbits(t)) end
  if c == "f" then
    if op == "rem" then perr("'%%' is not defined for .%s", t) end
    if op == "div" and (t == "f16" or t == "bf16" or t == "f16x2" or t == "bf16x2") then perr("'/' is not defined for .%s", t) end
    return op .. ".rn." .. t
  end
  if op == "mul" then return "mul.lo." .. t end
  return op .. "." .. t
end

local function arith(op, sym)
  local texts = {}  -- type -> opcode text (no string built per instruction)
  return function(a, b)
    local t = optype(a, b, sym)
    local text = texts[t]
    if not text then text = arith_opcode(op, t); texts[t] = text end
    local d = poolreg(t)
    emit(text, d, a, b)
    return d
  end
end

local function unm(a)
  local t = regtype(a)
  local c = tclass(t)
  if c == "u" then perr("unary minus on unsigned .%s (write 0 - x for wrap-around)", t) end
  if c == "b" or c == "p" then perr("unary minus on .%s", t) end
  local d = poolreg(t)
  emit("neg." .. t, d, a)
  return d
end

local function regtostring(r)
  if MOD and rawget(r, 0) then
    local ok, name = pcall(MOD.regname, MOD, r[0])
    if ok then return fmt("%s (.%s)", name, regtype(r)) end
  end
  return fmt("register #%d (.%s)", r[0], regtype(r))
end

local function cmp_text(cmp, t)
  local c = tclass(t)
  if c == "p" then perr("comparison of predicates") end
  if c == "b" and cmp ~= "eq" and cmp ~= "ne" then perr("ordered comparison of .%s registers (declare them .u/.s/.f)", t) end
  return "setp." .. cmp .. "." .. t
end

local function bits_type(t) return "b" .. tbits(t) end

local function method_table(t)
  local M = {}
  local c = tclass(t)
  -- comparisons -> a new predicate
  for _, cmp in ipairs { "eq", "ne", "lt", "le", "gt", "ge", "equ", "neu", "ltu", "leu", "gtu", "geu", "num", "nan" } do
    M[cmp] = function(a, b)
      local tt = optype(a, b, cmp)
      local p = poolreg("pred")
      emit(cmp_text(cmp, tt), p, a, b)
      return p
    end
  end
  -- bitwise
  local function bitop(name, op)
    local texts = {}  -- type -> opcode text (no string built per instruction)
    M[name] = function(a, b)
      local tt = optype(a, b, name)
      if tt == "pred" then
        local p = poolreg("pred"); emit(op .. ".pred", p, a, b); return p
      end
      if tclass(tt) == "f" then perr("bitwise %s on .%s (reinterpret with :as('b%d'))", op, tt, tbits(tt)) end
      local d = poolreg(tt)
      local text = texts[tt]
      if not text then text = op .. "." .. bits_type(tt); texts[tt] = text end
      emit(text, d, a, b)
      return d
    end
  end
  bitop("band", "and"); bitop("bor", "or"); bitop("bxor", "xor")
  bitop("and_", "and"); bitop("or_", "or"); bitop("xor", "xor")
  M.bnot = function(a)
    if t == "pred" then local p = poolreg("pred"); emit("not.pred", p, a); return p end
    if c == "f" then perr("bitwise not on .%s", t) end
    local d = poolreg(t); emit("not." .. bits_type(t), d, a); return d
  end
  M.not_ = M.bnot
  M.inv = function(a) -- !p as an operand (no instruction)
    if t ~= "pred" then perr(":inv() is for predicates") end
    return { [0] = K_NEG, a }
  end
  -- a constant shift amount: PTX reads it as an unsigned .u32 and clamps it to the width, so a
  -- negative one (x:shl(-1)) shifts everything out, which ptxas accepts and no one means
  local function shift_amount(name, n)
    if c == "f" or c == "p" then perr("shift of .%s", t) end
    if type(n) == "table" and rawget(n, 0) == K_IMM then n = rawget(n, 1) end
    local v = (type(n) == "number" or type(n) == "cdata") and tonumber(n)
    if v and v < 0 then
      perr(":%s(%s): a negative shift amount; PTX reads it as the unsigned %.0f, clamped to %d, which shifts every bit out (shift the other way: :%s(%s))",
           name, tostring(v), v % 4294967296, tbits(t), name == "shl" and "shr" or "shl", tostring(-v))
    end
  end
  M.shl = function(a, n)
    shift_amount("shl", n)
    local d = poolreg(t); emit("shl." .. bits_type(t), d, a, n); return d
  end
  M.shr = function(a, n)
    shift_amount("shr", n)
    local d = poolreg(t); emit("shr." .. t, d, a, n); return d
  end
  M.min = function(a, b)
    local tt = optype(a, b, "min"); local d = poolreg(tt); emit("min." .. tt, d, a, b); return d
  end
  M.max = function(a, b)
    local tt = optype(a, b, "max"); local d = poolreg(tt); emit("max." .. tt, d, a, b); return d
  end
  M.abs = function(a)
    if c == "u" or c == "b" or c == "p" then perr("abs of .%s", t) end
    local d = poolreg(t); emit("abs." .. t, d, a); return d
  end
  M.fma = function(a, b, cc) -- a*b + c, one rounding
    if c ~= "f" then perr(":fma is for floating point (use :mad for integers)") end
    optype(a, b, "fma"); optype(a, cc, "fma")
    local d = poolreg(t); emit("fma.rn." .. t, d, a, b, cc); return d
  end
  M.mad = function(a, b, cc) -- a*b + c, low half
    if c ~= "u" and c ~= "s" then perr(":mad is for integers (use :fma for floating point)") end
    optype(a, b, "mad"); optype(a, cc, "mad")
    local d = poolreg(t); emit("mad.lo." .. t, d, a, b, cc); return d
  end
  M.mul_wide = function(a, b)
    if not (t == "u32" or t == "s32" or t == "u16" or t == "s16") then perr(":mul_wide is for 16/32-bit integers") end
    optype(a, b, "mul_wide")
    local wide = (c == "u" and "u" or "s") .. (tbits(t) * 2)
    local d = poolreg(wide); emit("mul.wide." .. t, d, a, b); return d
  end
  M.mul_hi = function(a, b)
    optype(a, b, "mul_hi"); local d = poolreg(t); emit("mul.hi." .. t, d, a, b); return d
  end
  M.set = function(a, v) -- a := v (mov)
    if isreg(v) and regtype(v) ~= t then perr("type mismatch in :set: .%s := .%s", t, regtype(v)) end
    emit("mov." .. (t == "bf16" and "b16" or t == "bf16x2" and "b32" or t == "f16x2" and "b32" or t == "f16" and "b16" or t), a, half_imm(t, v))
    return a
  end
  M.select = function(p, a, b) -- p ? a : b
    if t ~= "pred" then perr(":select is called on a predicate") end
    local tt = optype(a, b, "select")
    local d = poolreg(tt)
    local st = tt
    if tclass(tt) == "f" and tbits(tt) ~= 32 and tbits(tt) ~= 64 then st = "b" .. tbits(tt) end
    emit("selp." .. st, d, half_imm(tt, a), half_imm(tt, b), p)
    return d
  end
  M.to = function(a, t2) return P.convert(t2, a) end
  M.as = function(a, t2) -- reinterpret the bits (mov.bN)
    if not TYPES[t2] then perr("unknown type '%s'", tostring(t2)) end
    if tbits(t2) ~= tbits(t) then perr(":as('%s') on a .%s register: sizes differ", t2, t) end
    local d = poolreg(t2); emit("mov.b" .. tbits(t), d, a); return d
  end
  M.sqrt = function(a)
    if t ~= "f32" and t ~= "f64" then perr(":sqrt of .%s", t) end
    local d = poolreg(t); emit("sqrt.rn." .. t, d, a); return d
  end
  M.type = function() return t end
  M.name = function(a) return MOD and MOD:regname(a[0]) end
  return M
end

for t in pairs(TYPES) do
  local methods = method_table(t)
  RegMethods[t] = methods
  REGMT[t] = {
    ptype = t, __index = methods, __name = "ptxlua.register",
    __add = arith("add", "+"), __sub = arith("sub", "-"), __mul = arith("mul", "*"),
    __div = arith("div", "/"), __mod = arith("rem", "%"), __unm = unm,
    __tostring = regtostring,
    __eq = function() perr("'==' cannot make a predicate in LuaJIT; use a:eq(b)") end,
    __lt = function() perr("'<' cannot make a predicate in LuaJIT; use a:lt(b)") end,
    __le = function() perr("'<=' cannot make a predicate in LuaJIT; use a:le(b)") end,
    __concat = function() perr("'..' on a register") end,
  }
end

-- conversions: ptx.cvt("f32", r) picks the rounding a C cast would (documented in docs/dsl.md);
-- ptx.cvt.rn.f32.s32(d, a) is the instruction chain (see the end of the chains section)
local function convert(t2, a)
  if not isreg(a) then perr("cvt: a register expected") end
  local t1 = regtype(a)
  if not TYPES[t2] then perr("unknown type '%s'", tostring(t2)) end
  if t1 == t2 then perr("cvt from .%s to itself", t1) end
  local c1, c2 = tclass(t1), tclass(t2)
  if c1 == "p" or c2 == "p" or c1 == "b" or c2 == "b" then perr("cvt between .%s and .%s (use :as or :select)", t1, t2) end
  local text
  if c1 ~= "f" and c2 ~= "f" then text = "cvt." .. t2 .. "." .. t1
  elseif c1 == "f" and c2 ~= "f" then text = "cvt.rzi." .. t2 .. "." .. t1
  elseif c1 ~= "f" then text = "cvt.rn." .. t2 .. "." .. t1
  elseif tbits(t2) >= tbits(t1) and tbits(t2) ~= 16 then text = "cvt." .. t2 .. "." .. t1 -- f16 <-> bf16 rounds
  else text = "cvt.rn." .. t2 .. "." .. t1 end
  local d = poolreg(t2)
  emit(text, d, a)
  return d
end

-- a register name: "acc" (printed %acc), or { "acc", bare = true } (printed acc, without the '%',
-- as inline asm names its registers: `.reg .pred p;`) -> name, bare
local function reg_name(name, what, t)
  if type(name) == "string" then return name, false end
  if type(name) == "table" and type(name[1]) == "string" and (name.bare == nil or type(name.bare) == "boolean") then
    for k in pairs(name) do
      if k ~= 1 and k ~= "bare" then perr("%s%s: a register name is \"name\" or { \"name\", bare = true } (unknown field %s)", what, t, tostring(k)) end
    end
    return name[1], name.bare == true
  end
  return nil
end

-- constructors: ptx.reg.f32() a fresh register, ptx.reg.f32 "name" a named one
P.reg = setmetatable({}, { __index = function(tab, t)
  if not TYPES[t] then perr("unknown register type '%s'", tostring(t)) end
  -- ptx.reg.T([name [, init]]): with an initial value, one mov (mov.T %name, init); made once per type
  local function ctor(name, init)
    local r
    if name == nil then r = poolreg(t)
    else
      local nm, bare = reg_name(name, "ptx.reg.", t)
      if not nm then perr("register name must be a string (initial values: ptx.%s(v) or ptx.reg.%s(name, v))", t, t) end
      local m = MOD or need_trace()
      if not bare then check_regname(nm) end
      r = newreg(t, m:reg(t, nm, nil, bare))
    end
    if init ~= nil then RegMethods[t].set(r, init) end
    return r
  end
  rawset(tab, t, ctor)
  return ctor
end })

-- arrays: ptx.regs.f32(64 [, "acc"]) -> { r1, ..., r64 } declared as %acc<64>
P.regs = setmetatable({}, { __index = function(tab, t)
  if not TYPES[t] then perr("unknown register type '%s'", tostring(t)) end
  -- ptx.regs.T(n [, name [, init]]): with an initial value, one mov per register, in order; made
  -- once per type
  local function ctor(n, name, init)
    local m = MOD or need_trace()
    if type(n) ~= "number" or n < 1 or n ~= floor(n) then perr("register array size must be a positive integer") end
    local auto = name == nil
    if auto then CUR.narr = CUR.narr + 1; name = TYPES[t][3] .. "v" .. CUR.narr .. "_" end
    local nm, bare = reg_name(name, "ptx.regs.", t)
    if not nm then perr("register array name must be a string") end
    if not auto and not bare then check_regname(nm) end
    local first = m:reg(t, nm, n, bare)
    local arr, mt = {}, REGMT[t]
    for i = 1, n do arr[i] = setmetatable({ [0] = first + i - 1 }, mt) end
    if init ~= nil then
      local set = RegMethods[t].set
      for i = 1, n do set(arr[i], init) end
    end
    return arr
  end
  rawset(tab, t, ctor)
  return ctor
end })

function P.pred(name) return P.reg.pred(name) end

-- a register or range under the name PTX text gave it (the --sugar scripts): no name is reserved
function P._declare(t, name, n)
  if not TYPES[t] then perr("unknown register type '%s'", tostring(t)) end
  local m = MOD or need_trace()
  local nm, bare = reg_name(name, "sugar.", t)
  if not nm then perr("register name must be a string") end
  local first = m:reg(t, nm, n, bare)
  if not n then return newreg(t, first) end
  local arr = {}
  for i = 1, n do arr[i] = newreg(t, first + i - 1) end
  return arr
end
-- the range %name<n> whose registers are made as they are first used: returns make(i), register
-- i (0-based; call it once per i and keep the result) -- a declared %r<100000> costs what it uses
function P._declare_lazy(t, name, n)
  if not TYPES[t] then perr("unknown register type '%s'", tostring(t)) end
  local m = MOD or need_trace()
  local nm, bare = reg_name(name, "sugar.", t)
  if not nm then perr("register name must be a string") end
  local d = m:reg_lazy(t, nm, n, bare)
  return function(i) return newreg(t, m:reg_elem(t, d, i)) end
end

-- typed constants: ptx.f32(1.5) -> a new .f32 register, mov.f32 %f1, 0f3FC00000
for t in pairs(TYPES) do
  if t ~= "pred" and t ~= "b128" then
    P[t] = function(v)
      if tbits(t) == 8 then perr("ptx.%s(v): PTX has no mov for 8-bit registers (make a 16-bit value and convert it with :to)", t) end
      local d = poolreg(t)
      local mt = t
      if t == "f16" or t == "bf16" then mt = "b16" elseif t == "f16x2" or t == "bf16x2" then mt = "b32" end
      emit("mov." .. mt, d, half_imm(t, v))
      return d
    end
  end
end

---------------------------------------------------------------------------------------------------
-- operands that are not registers
---------------------------------------------------------------------------------------------------
-- [base + offset]: base a register, a symbol (param, shared variable) or nil (absolute)
function P.addr(base, off)
  off = off or 0
  if type(off) ~= "number" then perr("address offset must be a number (add registers with an instruction)") end
  if base ~= nil and not (type(base) == "table" and (isreg(base) or rawget(base, 0) == K_SYM)) then
    perr("address base must be a register or a symbol")
  end
  return { [0] = K_ADDR, base, off }
end

function P.sym(name) return { [0] = K_SYM, name } end

-- [tmap, {c0, c1, ...}]: the tensor address of cp.async.bulk.tensor; tmap a symbol (a "tensormap"
-- kernel parameter) or a u64 register holding its address, coordinates registers or integers
function P.taddr(tmap, coords)
  if not (type(tmap) == "table" and (isreg(tmap) or rawget(tmap, 0) == K_SYM)) then
    perr("tensor address: the tensor map must be a register or a symbol")
  end
  if type(coords) ~= "table" or #coords < 1 or #coords > 5 then
    perr("tensor address: expected a list of 1 to 5 coordinates")
  end
  local c = {}
  for i = 1, #coords do c[i] = coords[i] end
  return { [0] = K_TADDR, tmap, c }
end
function P.hex(v) return { [0] = K_IMM, v, "hex" } end
function P.imm(v) return { [0] = K_IMM, v } end
P.sink = { [0] = K_SINK }
P._ = P.sink
function P.pair(p, q) return { [0] = K_PAIR, p, q } end

-- special registers: ptx.sreg.tid.x, ptx.sreg.laneid, ...
-- [3], [4]: the PTX ISA version (10*major+minor) and sm the register needs, where above the floor
local function sreg(name, t, ptxv, sm) return { [0] = K_SREG, name, t, ptxv, sm } end
local function xyz(base, t, ptxv, sm)
  return { x = sreg(base .. ".x", t, ptxv, sm), y = sreg(base .. ".y", t, ptxv, sm), z = sreg(base .. ".z", t, ptxv, sm) }
end
P.sreg = {
  tid = xyz("tid", "u32"), ntid = xyz("ntid", "u32"), ctaid = xyz("ctaid", "u32"), nctaid = xyz("nctaid", "u32"),
  clusterid = xyz("clusterid", "u32", 78, 90), nclusterid = xyz("nclusterid", "u32", 78, 90),
  cluster_ctaid = xyz("cluster_ctaid", "u32", 78, 90), cluster_nctaid = xyz("cluster_nctaid", "u32", 78, 90),
  laneid = sreg("laneid", "u32"), warpid = sreg("warpid", "u32"), nwarpid = sreg("nwarpid", "u32"),
  smid = sreg("smid", "u32"), nsmid = sreg("nsmid", "u32"), gridid = sreg("gridid", "u64"),
  lanemask_eq = sreg("lanemask_eq", "u32"), lanemask_le = sreg("lanemask_le", "u32"),
  lanemask_lt = sreg("lanemask_lt", "u32"), lanemask_ge = sreg("lanemask_ge", "u32"),
  lanemask_gt = sreg("lanemask_gt", "u32"),
  clock = sreg("clock", "u32"), clock_hi = sreg("clock_hi", "u32", 50), clock64 = sreg("clock64", "u64"),
  globaltimer = sreg("globaltimer", "u64", 31),
  cluster_ctarank = sreg("cluster_ctarank", "u32", 78, 90), cluster_nctarank = sreg("cluster_nctarank", "u32", 78, 90),
  is_explicit_cluster = sreg("is_explicit_cluster", "pred", 78, 90),
  dynamic_smem_size = sreg("dynamic_smem_size", "u32", 41), total_smem_size = sreg("total_smem_size", "u32", 41),
  aggr_smem_size = sreg("aggr_smem_size", "u32", 81, 90),
}
local SREG_BY_NAME = {}
for k, v in pairs(P.sreg) do
  if v[0] == K_SREG then SREG_BY_NAME[k] = v
  else for c, s in pairs(v) do SREG_BY_NAME[k .. "." .. c] = s end end
end

-- any other special register the ISA table knows (%envreg3, %pm0, %globaltimer_lo, ...)
local function sreg_lookup(name)
  local s = SREG_BY_NAME[name]
  if s == nil and type(name) == "string" then
    local t, pv, sm = core.sreg(name)
    if t then s = sreg(name, t, pv, sm); SREG_BY_NAME[name] = s end
  end
  return s
end
setmetatable(P.sreg, { __index = function(_, k) return sreg_lookup(k) end })

-- ptx.special "tid.x" -> a new register holding it (mov.u32 %r1, %tid.x;)
function P.special(name)
  local s = sreg_lookup(name)
  if not s then perr("unknown special register '%%%s'", tostring(name)) end
  local t = s[2]
  local d = poolreg(t)
  emit("mov." .. t, d, s)
  return d
end

---------------------------------------------------------------------------------------------------
-- instruction chains: ptx.add.f32(d, a, b) and ptx.op "add.f32" (d, a, b)
---------------------------------------------------------------------------------------------------
local CHAIN = {}
-- spelling of a Lua key as a PTX modifier: trailing '_' dropped (and_, local_), a leading '_'
-- before a digit dropped (_2d), '__' is '::' (shared__cluster)
local function spell(k)
  local s = k
  if s:sub(-1) == "_" and #s > 1 then s = s:sub(1, -2) end
  if s:match("^_%d") then s = s:sub(2) end
  s = s:gsub("__", "::")
  return s
end
P._spell = spell

local function chain_node(text) return setmetatable({ text, false }, CHAIN) end
CHAIN.__index = function(node, k)
  if type(k) ~= "string" then perr("bad instruction modifier %s", tostring(k)) end
  local child = chain_node(rawget(node, 1) .. "." .. spell(k))
  rawset(node, k, child)
  return child
end
CHAIN.__call = function(node, ...)
  local id = rawget(node, 2)
  if not id then id = opid(rawget(node, 1)); rawset(node, 2, id) end
  return emit_id(id, ...)  -- a tail call: level 2 of core.emitv's stack is the caller of the chain
end
CHAIN.__tostring = function(node) return "ptx instruction " .. rawget(node, 1) end
CHAIN.__name = "ptxlua.instruction"

-- ptx.cvt is both the conversion helper (a type name first: ptx.cvt("f32", r)) and the start of
-- the cvt instruction chain (ptx.cvt.rn.f32.s32(d, a))
P.convert = convert
local CVT = setmetatable({ "cvt", false }, {
  __index = CHAIN.__index, __tostring = CHAIN.__tostring, __name = CHAIN.__name,
  __call = function(node, t2, ...)
    if type(t2) == "string" then return convert(t2, ...) end
    return CHAIN.__call(node, t2, ...)
  end,
})
P.cvt = CVT

local ROOTS = {}
local OPCACHE = {}
function P.op(text)
  if type(text) ~= "string" then perr("ptx.op takes the opcode text, e.g. ptx.op \"add.f32\"") end
  local n = OPCACHE[text]
  if not n then n = chain_node(text); OPCACHE[text] = n end
  return n
end

---------------------------------------------------------------------------------------------------
-- guards, labels, control flow
---------------------------------------------------------------------------------------------------
local ROOT -- the table returned by require "ptxlua" (P with chain fallback)

-- ptx.at(p).add.f32(...) : @p add.f32 ...; ptx.at_not(p) : @!p
-- ptx.at(p) records nothing: it returns a guard, a stand-in for ptx through which a call is made
-- (an instruction chain, ptx.at(p).op "text", or a helper). The guard binds when that call runs,
-- after Lua has evaluated the call's arguments, so an instruction recorded by an argument
-- (v * 2, n:load(), an address computed in place) is never guarded by it. A chain records its
-- one instruction at once; a helper called through a guard must record exactly one instruction
-- (ptx.call, ptx.special, ptx.f32(...)), anything else is an error at the line. Every call made
-- through a guard is guarded; a ptx.at nothing was called through is an error at its line when
-- the kernel body ends (m:guard_open / m:guard_bind / m:guard_end in src/lua/core.c). A guard is
-- one per ptx.at site (line, predicate, sense) of the body, and the chains and helpers reached
-- through it are kept in it: a guarded instruction allocates nothing once warmed up.
local GUARD, GCHAIN = {}, {}              -- metatables: ptx.at(p)'s value, a chain reached through it

local function gchain(site, node) return setmetatable({ node, site }, GCHAIN) end

-- fn(...) run with the guard of site on the one instruction it must record
local function guarded_end(m, n0, name, ...)
  local n, waiting = m:guard_end(n0)
  if n ~= 1 then
    if waiting or n == 0 then perr("ptx.at guards one instruction, and %s records none", name) end
    perr("ptx.at guards one instruction, and %s records %d; branch on the predicate instead (ptx.if_, or a guarded bra)", name, n)
  end
  return ...
end
local function guarded_call(site, name, fn, ...)
  local m = MOD or need_trace()
  local n0 = m:ninsn()
  m:guard_bind(site)
  return guarded_end(m, n0, name, fn(...))
end

GCHAIN.__index = function(g, k)
  if type(k) ~= "string" then perr("bad instruction modifier %s", tostring(k)) end
  local c = gchain(rawget(g, 2), rawget(g, 1)[k])
  rawset(g, k, c)
  return c
end
GCHAIN.__call = function(g, ...)
  local node, site = rawget(g, 1), rawget(g, 2)
  if node == CVT then return guarded_call(site, "ptx.cvt", node, ...) end   -- ptx.cvt("f32", r) too
  local m = MOD or need_trace()
  m:guard_bind(site)
  return node(...)          -- a tail call into the chain: the caller's line anchors the instruction
end
GCHAIN.__tostring = function(g) return "guarded " .. tostring(rawget(g, 1)) end
GCHAIN.__name = "ptxlua.instruction"

-- helpers that never record an instruction (operands, declarations, the host side): refused at once
local NOT_INSN = {}
for _, k in ipairs { "addr", "sym", "taddr", "hex", "imm", "pair", "label", "pred", "at", "at_not", "error",
                     "isreg", "shared", "shared_dynamic", "smem_plan", "smem_u64", "swizzle_offset",
                     "wgmma_desc_host", "kernel", "func", "funcs", "kernels", "build", "ptx", "reset",
                     "select_kernels", "check_templates", "import", "tensor", "tensormap", "native_arch" } do
  NOT_INSN[k] = true
end

GUARD.__index = function(g, k)
  local site = rawget(g, 1)
  local r
  if k == "op" then
    local ops = {}                          -- opcode text -> guarded chain
    r = function(text)
      local c = ops[text]
      if not c then c = gchain(site, P.op(text)); ops[text] = c end
      return c
    end
  elseif NOT_INSN[k] then perr("ptx.at guards one instruction, and ptx.%s records none", k)
  else
    local v = type(k) == "string" and ROOT[k]
    if getmetatable(v) == CHAIN or v == CVT then r = gchain(site, v)
    elseif type(v) == "function" then
      local name = "ptx." .. k
      r = function(...) return guarded_call(site, name, v, ...) end
    else
      perr("ptx.at(p).%s: ptx.%s is not an instruction or a helper that records one", tostring(k), tostring(k))
    end
  end
  rawset(g, k, r)
  return r
end
GUARD.__newindex = function(_, k) perr("ptx.at(p).%s = ...: a guard is not a table to set", tostring(k)) end
GUARD.__tostring = function() return "ptx.at guard" end
GUARD.__name = "ptxlua.guard"

local function at(p, neg, what)
  if not isreg(p) or regtype(p) ~= "pred" then perr("%s expects a predicate register", what) end
  local m = MOD or need_trace()
  local site = m:guard_open(p, neg)
  local guards = CUR.guards
  local g = guards[site]
  if not g then g = setmetatable({ site }, GUARD); guards[site] = g end
  return g
end
function P.at(p) return at(p, false, "ptx.at") end
function P.at_not(p) return at(p, true, "ptx.at_not") end

-- the library's own sequences guard the instruction they record next (@p bra, @!p bra)
local function guard_next(p, neg) MOD:guard(p, neg) end
P._guard_next = guard_next

local function label_name(hint)
  CUR.nlabel = CUR.nlabel + 1
  return fmt("$L__%s%d", hint or "", CUR.nlabel)
end

-- ptx.label("name") -> a label object (placed later with ptx.place)
function P.label(name)
  need_trace()
  if name ~= nil and (type(name) ~= "string" or not name:match("^[%a_$][%w_$]*$")) then
    perr("bad label name '%s'", tostring(name))
  end
  if name and name:match("^L__") then perr("label names starting with 'L__' are reserved for generated labels ('%s')", name) end
  return { [0] = K_LABEL, name and ("$" .. name) or label_name("") }
end
function P.place(l)
  if type(l) ~= "table" or rawget(l, 0) ~= K_LABEL or type(rawget(l, 1)) ~= "string" then perr("ptx.place expects a label from ptx.label()") end
  local m = MOD or need_trace()
  m:place(l[1])
end

-- if/else as branches (exact sequence in docs/dsl.md)
function P.if_(p, then_fn, else_fn)
  if not isreg(p) or regtype(p) ~= "pred" then perr("ptx.if_ expects a predicate register") end
  if type(then_fn) ~= "function" or (else_fn ~= nil and type(else_fn) ~= "function") then perr("ptx.if_(p, then_fn [, else_fn])") end
  no_guard("ptx.if_")
  local l_else = { [0] = K_LABEL, label_name("else") }
  local l_end = else_fn and { [0] = K_LABEL, label_name("endif") } or l_else
  guard_next(p, true); emit("bra", l_else)
  then_fn()
  if else_fn then
    emit("bra.uni", l_end)
    MOD:place(l_else[1])
    else_fn()
  end
  MOD:place(l_end[1])
end

-- counted loop with a real backward branch: for i = start, stop-1, step
function P.range(start, stop, step, body)
  if body == nil and type(step) == "function" then body, step = step, 1 end
  step = step or 1
  -- a register step (a grid stride) counts up by its value, which the loop takes to be positive
  local rstep = typeof(step)
  if not rstep and (type(step) ~= "number" or step == 0 or step ~= floor(step)) then
    perr("ptx.range: step must be a non-zero integer or an integer register (counting up by its value)")
  end
  if type(body) ~= "function" then perr("ptx.range(start, stop, [step,] function(i) ... end)") end
  no_guard("ptx.range")
  local t = typeof(start) or typeof(stop) or rstep or "u32"
  for _, v in ipairs { { "start", start }, { "stop", stop }, { "step", step } } do
    local tv = typeof(v[2])
    if tv and tv ~= t then perr("ptx.range: %s is .%s, the counter .%s (start, stop and a register step have one type)", v[1], tv, t) end
  end
  if t ~= "u32" and t ~= "s32" and t ~= "u64" and t ~= "s64" then perr("ptx.range: counter must be a 32/64-bit integer, got .%s", t) end
  local rs = step
  if rstep then step = 1 end                -- the direction of a register step: up
  if step < 0 and t:sub(1, 1) == "u" and typeof(start) == nil and typeof(stop) == nil then t = "s32" end
  if step < -1 and t:sub(1, 1) == "u" then
    perr("ptx.range: a .%s counter cannot step by %d (it would wrap below 0); use .s%s bounds", t, step, t:sub(2))
  end
  local cmp_exit = step > 0 and "ge" or "le"
  local cmp_loop = step > 0 and "lt" or "gt"
  if type(start) == "number" and type(stop) == "number" then
    if (step > 0 and start >= stop) or (step < 0 and start <= stop) then return end -- zero trips: nothing
  end
  local i = poolreg(t)
  emit("mov." .. t, i, start)
  local l_loop = { [0] = K_LABEL, label_name("loop") }
  local l_end = { [0] = K_LABEL, label_name("endloop") }
  local known = type(start) == "number" and type(stop) == "number"
  if not known then
    local p = poolreg("pred")
    emit("setp." .. cmp_exit .. "." .. t, p, i, stop)
    guard_next(p, false); emit("bra", l_end)
  end
  MOD:place(l_loop[1])
  body(i)
  if rstep then emit("add." .. t, i, i, rs)
  elseif step > 0 then emit("add." .. t, i, i, step) else emit("sub." .. t, i, i, -step) end -- sub: unsigned counters too
  local q = poolreg("pred")
  emit("setp." .. cmp_loop .. "." .. t, q, i, stop)
  guard_next(q, false); emit("bra", l_loop)
  if not known then MOD:place(l_end[1]) end
end
function P.loop(n, body)
  no_guard("ptx.loop")
  return P.range(0, n, 1, body)
end

-- a loop on a label you give (or a fresh one): `L:` body `@p bra L;` (exact sequence in
-- docs/dsl.md). body returns the loop's condition: a predicate p (@p), p:inv() (@!p), or true (an
-- unguarded branch: a loop left only by branches out of it). opts.uni: bra.uni. Returns the label.
function P.do_while(l, body, opts)
  if type(l) == "function" then l, body, opts = nil, l, body end
  if l ~= nil and (type(l) ~= "table" or rawget(l, 0) ~= K_LABEL) then perr("ptx.do_while: the label must be a label (ptx.label())") end
  if type(body) ~= "function" or (opts ~= nil and type(opts) ~= "table") then
    perr("ptx.do_while([label,] function() ... return p end [, { uni = true }])")
  end
  no_guard("ptx.do_while")
  local m = MOD or need_trace()
  l = l or { [0] = K_LABEL, label_name("loop") }
  m:place(l[1])
  local c = body()
  local op = (opts and opts.uni) and "bra.uni" or "bra"
  if c == true then emit(op, l)
  elseif isreg(c) and regtype(c) == "pred" then guard_next(c, false); emit(op, l)
  elseif type(c) == "table" and rawget(c, 0) == K_NEG and isreg(c[1]) and regtype(c[1]) == "pred" then guard_next(c[1], true); emit(op, l)
  else perr("ptx.do_while: the body must return the loop's condition: a predicate p, p:inv(), or true (got %s)", tostring(c)) end
  return l
end

---------------------------------------------------------------------------------------------------
-- nested blocks: ptx.scope(function() ... end) is `{ ... }` (docs/dsl.md, "Nested blocks")
---------------------------------------------------------------------------------------------------
-- The body's instructions print between `{` and `}`; the registers made inside it (named, arrays,
-- and pool registers, which a block numbers from 1 as nvcc's inline asm does) are the block's:
-- declared at its top, gone when it closes, free to reuse names the enclosing code uses (an inner
-- declaration hides an outer one there; an outer register so hidden but used inside the block is
-- an error at its line). Labels placed inside are the block's too (two blocks may both place
-- "DONE"). The block records no instruction of its own; it returns what the body returns.
local function scope_end(m, ...)
  m:scope_close()
  return ...
end
function P.scope(body, ...)
  if type(body) ~= "function" then perr("ptx.scope(function() ... end): a function expected, got %s", type(body)) end
  local m = MOD or need_trace()
  if m:guarded() then
    perr("ptx.at guards one instruction, and ptx.scope opens a block ({ ... }); guard the instructions inside it")
  end
  m:scope_open()
  return scope_end(m, body(...))
end

---------------------------------------------------------------------------------------------------
-- kernel parameters
---------------------------------------------------------------------------------------------------
local PARAM = {}
PARAM.__index = PARAM
PARAM.__name = "ptxlua.param"
PARAM.__tostring = function(p) return fmt("param %s (%s)", p[1], p.spec) end

-- x:load() -> ld.param.<type> %r, [x]
function PARAM.load(p)
  local t = p.ptype
  if p.count then perr("param '%s' is a byte array; take its address with ptx.addr(%s)", p[1], p[1]) end
  local d = poolreg(t)
  emit("ld.param." .. t, d, { [0] = K_ADDR, p, 0 })
  return d
end

-- r:store(v) -> st.param.<type> [r], v (a .func's return value)
function PARAM.store(p, v)
  if not p.ret then perr("'%s' is not a return value of a ptx.func (only those are stored with :store)", p[1]) end
  if isreg(v) and regtype(v) ~= p.ptype and not (tclass(p.ptype) == "b" and tbits(regtype(v)) == tbits(p.ptype)) then
    perr("%s:store: a .%s value expected, got .%s", p[1], p.ptype, regtype(v))
  end
  emit("st.param." .. p.ptype, { [0] = K_ADDR, p, 0 }, v)
end

-- for each pointer parameter: ld.param.u64 %rdA, [p]; cvta.to.global.u64 %rdB, %rdA
function P.global_ptrs(...)
  no_guard("ptx.global_ptrs")
  local out = {}
  for k = 1, select("#", ...) do
    local p = select(k, ...)
    if getmetatable(p) ~= PARAM or not p.pointer then perr("ptx.global_ptrs: argument %d is not a pointer parameter", k) end
    local a = poolreg("u64")
    emit("ld.param.u64", a, { [0] = K_ADDR, p, 0 })
    local g = poolreg("u64")
    emit("cvta.to.global.u64", g, a)
    out[k] = g
  end
  return unpack(out, 1, select("#", ...))
end

-- parameter spec: {"x", "f32*", shape = {...}} | {"n", "u32"} | {"tmap", "tensormap"} | {"b", "b8", size=.., align=..}
-- {"x", ptx.tensor(dtype, shape)} | {"tmap", ptx.tensormap{ of =, box =, ... }} (ptxlua.tensors)
local TS = require "ptxlua.tensors"
local function parse_param(spec, i)
  local decl = type(spec) == "table" and (TS.is_tensor(spec[2]) or TS.is_tensormap(spec[2])) and spec[2] or nil
  if type(spec) ~= "table" or type(spec[1]) ~= "string" or (type(spec[2]) ~= "string" and not decl) then
    perr("params[%d]: expected {name, type}, e.g. {\"x\", \"f32*\"}", i)
  end
  local name, ts = spec[1], spec[2]
  if not name:match("^[%a_][%w_]*$") then perr("params[%d]: bad parameter name '%s'", i, name) end
  check_ident(("params[%d]"):format(i), name)
  if TS.is_tensor(decl) then      -- a pointer to a tensor: the pointer of its element type
    ts = type(decl.dtype) == "string" and TS.known_dtype(decl.dtype) and decl.dtype .. "*" or "b8*"
  elseif decl then ts = "tensormap" end
  local p = setmetatable({ [0] = K_SYM, name, spec = ts, shape = spec.shape }, PARAM)
  local elem = ts:match("^(%w+)%*$")
  if elem then
    if not TYPES[elem] then perr("params[%d]: unknown element type '%s'", i, elem) end
    p.pointer, p.elem, p.ptype = true, elem, "u64"
    if TS.is_tensor(decl) then
      p.tensor, p.shape = decl, decl.shape
      if not TS.known_dtype(decl.dtype) then p.elem = nil end     -- a template's type: checked at launch
    elseif spec.shape ~= nil then                                  -- the older {"x", "f32*", shape = {...}}
      local file, line = user_where()
      p.tensor = TS.raw_tensor(elem, spec.shape, spec.strides, file, line)
    end
  elseif ts == "tensormap" then
    p.ptype, p.align, p.count, p.tensormap = "b8", 64, 128, true
    if TS.is_tensormap(decl) then p.view = decl
    elseif spec.of ~= nil then                                     -- {"m", "tensormap", of =, box =, ...}
      local file, line = user_where()
      local v = {}
      for key, x in pairs(spec) do if type(key) == "string" then v[key] = x end end
      p.view = TS.tensormap(v, { file = file, line = line })
    end
  elseif TYPES[ts] then
    if ts == "pred" then perr("params[%d]: a parameter cannot be .pred", i) end
    p.ptype = ts
    if spec.size then
      if type(spec.size) ~= "number" or spec.size < 1 or spec.size ~= floor(spec.size) then perr("params[%d]: size must be a positive integer", i) end
      p.count, p.align = spec.size, spec.align
    end
  else
    perr("params[%d]: unknown parameter type '%s' (e.g. \"f32*\", \"u32\", \"tensormap\")", i, ts)
  end
  return p
end

---------------------------------------------------------------------------------------------------
-- shared memory (the planner of a later issue builds on these declarations)
---------------------------------------------------------------------------------------------------
-- ptx.shared("tile", "f32", 1024 [, align]) -> symbol of `.shared .align A .f32 tile[1024];`
function P.shared(name, t, count, align)
  local m = need_trace()
  if type(name) ~= "string" or not name:match("^[%a_][%w_]*$") then perr("ptx.shared: bad name %s", tostring(name)) end
  check_ident("ptx.shared", name)
  check_hides_func("ptx.shared", name)
  if not TYPES[t] or t == "pred" then perr("ptx.shared: bad type %s", tostring(t)) end
  if count ~= nil and (type(count) ~= "number" or count < 0 or count % 1 ~= 0) then perr("ptx.shared: the element count must be an integer (got %s)", tostring(count)) end
  if align ~= nil and (type(align) ~= "number" or align < 1 or align > 65536 or align % 1 ~= 0 or bit.band(align, align - 1) ~= 0) then
    perr("ptx.shared: the alignment must be a power of two (got %s)", tostring(align))
  end
  m:var("shared", name, (t == "bf16" or t == "f16") and "b16" or (t == "bf16x2" or t == "f16x2") and "b32" or t,
        align or math.max(4, tbits(t) / 8), count or 0)
  return { [0] = K_SYM, name }
end
-- ptx.shared_dynamic("smem" [, align]) -> `.extern .shared .align A .b8 smem[];`
-- declared at module scope (ptxas takes .extern .shared only there), once per name per module
local DYNAMIC = setmetatable({}, { __mode = "k" })
function P.shared_dynamic(name, align)
  local m = need_trace()
  if type(name) ~= "string" or not name:match("^[%a_][%w_]*$") then perr("ptx.shared_dynamic: bad name %s", tostring(name)) end
  check_ident("ptx.shared_dynamic", name)
  -- declared at module scope: a kernel or function of the script named so is redefined (ptxas:
  -- "Inconsistent redefinition of variable")
  for _, k in ipairs(P.kernels()) do
    if k.name == name then perr("ptx.shared_dynamic: '%s' is the name of a kernel of this script; a module-scope variable cannot share it (ptxas: inconsistent redefinition); choose another name", name) end
  end
  for _, f in ipairs(P._funcs or {}) do
    if f.name == name then perr("ptx.shared_dynamic: '%s' is the name of a function of this script; a module-scope variable cannot share it (ptxas: inconsistent redefinition); choose another name", name) end
  end
  if align ~= nil and (type(align) ~= "number" or align < 1 or align > 65536 or align % 1 ~= 0 or bit.band(align, align - 1) ~= 0) then
    perr("ptx.shared_dynamic: the alignment must be a power of two (got %s)", tostring(align))
  end
  local seen = DYNAMIC[m]
  if not seen then seen = {}; DYNAMIC[m] = seen end
  if not seen[name] then
    m:var("shared", name, "b8", align or 16, 0, nil, "extern", true)
    seen[name] = true
  end
  return { [0] = K_SYM, name }
end

---------------------------------------------------------------------------------------------------
-- warp helpers (their exact sequences are pinned by tests and listed in docs/dsl.md)
---------------------------------------------------------------------------------------------------
-- in place: v = op(v, shfl.bfly(v, k)) for k = 16, 8, 4, 2, 1 (width 32; `width` narrower)
function P.warp_reduce(v, op, width)
  if not isreg(v) then perr("ptx.warp_reduce: a register expected") end
  local t = regtype(v)
  if tbits(t) ~= 32 then perr("ptx.warp_reduce: 32-bit registers only (got .%s)", t) end
  width = width or 32
  if width ~= 2 and width ~= 4 and width ~= 8 and width ~= 16 and width ~= 32 then
    perr("ptx.warp_reduce: width must be 2, 4, 8, 16 or 32 (got %s)", tostring(width))
  end
  no_guard("ptx.warp_reduce")
  local ops = { sum = "add", max = "max", min = "min" }
  local o = ops[op or "sum"]
  if not o then perr("ptx.warp_reduce: op must be 'sum', 'max' or 'min'") end
  local text = (tclass(t) == "f") and (o == "add" and "add.rn." .. t or o .. "." .. t) or (o .. "." .. t)
  if tclass(t) == "b" then perr("ptx.warp_reduce: .%s has no arithmetic", t) end
  local tmp = poolreg(t)
  local k = width / 2
  while k >= 1 do
    emit("shfl.sync.bfly.b32", tmp, v, k, 31, 0xffffffff)
    emit(text, v, v, tmp)
    k = k / 2
  end
  return v
end

---------------------------------------------------------------------------------------------------
-- kernels
---------------------------------------------------------------------------------------------------
local REGISTRY = {}      -- definitions in script order
P._registry = REGISTRY

local KERNEL = {}
KERNEL.__index = KERNEL
KERNEL.__name = "ptxlua.kernel"
KERNEL.__tostring = function(k) return "kernel " .. k.name end

local KNOWN_FIELDS = {
  name = 1, target = 1, version = 1, params = 1, templates = 1, grid = 1, block = 1, cluster = 1,
  maxntid = 1, reqntid = 1, minnctapersm = 1, maxnreg = 1, body = 1, doc = 1, smem = 1,
  tensors = 1, reference = 1, tolerance = 1, emulate = 1, inputs = 1,     -- ptxlua.tensors, --emulate
}

-- declarations of the data behind parameters (docs/dsl.md, "Tensors and tensor maps")
function P.tensor(dtype, shape, opts) return TS.tensor(dtype, shape, opts) end
function P.tensormap(spec) return TS.tensormap(spec) end

function P.kernel(def)
  if type(def) ~= "table" then perr("ptx.kernel expects a table { name = ..., params = ..., body = function ... }") end
  for _, k in ipairs(sorted_keys(def)) do
    if not KNOWN_FIELDS[k] then perr("ptx.kernel: unknown field '%s'", tostring(k)) end
  end
  if type(def.name) ~= "string" or not def.name:match("^[%a_][%w_]*$") then perr("ptx.kernel: 'name' must be an identifier") end
  check_ident("ptx.kernel", def.name)
  if type(def.body) ~= "function" then perr("ptx.kernel '%s': 'body' must be a function", def.name) end
  if def.maxntid ~= nil and def.reqntid ~= nil then
    perr("ptx.kernel '%s': maxntid and reqntid together conflict (ptxas rejects the pair); give one", def.name)
  end
  local target = def.target or "sm_90a"
  if type(target) ~= "string" or not core.target(target) then perr("ptx.kernel '%s': unknown target '%s'", def.name, tostring(target)) end
  if def.params ~= nil and type(def.params) ~= "table" then perr("ptx.kernel '%s': 'params' must be a list of {name, type}", def.name) end
  local params = {}
  for i, s in ipairs(def.params or {}) do
    params[i] = parse_param(s, i)
    for j = 1, i - 1 do if params[j][1] == params[i][1] then perr("ptx.kernel '%s': parameter '%s' twice", def.name, params[i][1]) end end
  end
  -- the parameter space, laid out as ptxas counts it: 32764 bytes, 4352 below PTX ISA 8.1 (a larger
  -- list raises the module's .version to 8.1)
  local pbytes = 0
  for _, p in ipairs(params) do
    local elt = tbits(p.ptype) / 8
    local a = p.align or elt
    pbytes = math.ceil(pbytes / a) * a + elt * (p.count or 1)
  end
  if pbytes > 32764 then
    perr("ptx.kernel '%s': its parameters take %d bytes, over the 32764 bytes of parameter space ptxas allows; pass large data through a pointer",
         def.name, pbytes)
  end
  if pbytes > 4352 and type(def.version) == "number" and def.version < 8.1 then
    perr("ptx.kernel '%s': its parameters take %d bytes, over the 4352 bytes ptxas allows below PTX ISA 8.1 (version = %s)",
         def.name, pbytes, tostring(def.version))
  end
  if def.templates ~= nil and type(def.templates) ~= "table" then perr("ptx.kernel '%s': 'templates' must be a table", def.name) end
  for _, k in ipairs(sorted_keys(def.templates or {})) do
    local v = def.templates[k]
    if type(k) ~= "string" or not k:match("^[%a_][%w_]*$") then perr("ptx.kernel '%s': bad template name %s", def.name, tostring(k)) end
    local tv = type(v)
    if tv ~= "number" and tv ~= "string" and tv ~= "boolean" then perr("template '%s' must default to a number, string or boolean", k) end
  end
  for _, other in ipairs(REGISTRY) do
    if other.name == def.name then perr("kernel '%s' is defined twice", def.name) end
  end
  local file, line = user_where()
  local tensors = TS.check_kernel(def, params, { file = file, line = line })
  TS.check_checks(def, { file = file, line = line })
  local k = setmetatable({ name = def.name, def = def, target = target, params = params, tensors = tensors,
                           templates = def.templates or {}, file = file, line = line }, KERNEL)
  REGISTRY[#REGISTRY + 1] = k
  return k
end

-- an error in a kernel's definition found when it is traced: at the line of its ptx.kernel call
local function kerr(k, msg, ...)
  if select("#", ...) > 0 then msg = fmt(msg, ...) end
  if k.file then error(fmt("%s:%d: error: %s", k.file, k.line, msg), 0) end
  perr(msg)
end

local function coerce_define(k, name, raw, default)
  if type(raw) ~= "string" then return raw end
  local td = type(default)
  if td == "number" then
    local v = tonumber(raw)
    if not v then kerr(k, "bad value for template %s of kernel %s: '%s' is not a number", name, k.name, raw) end
    return v
  elseif td == "boolean" then
    if raw == "true" or raw == "1" then return true elseif raw == "false" or raw == "0" then return false end
    kerr(k, "bad value for template %s of kernel %s: '%s' is not a boolean", name, k.name, raw)
  end
  return raw
end

-- the template values for a trace: defaults, then overrides (strings from -D are coerced)
function KERNEL.resolve(k, overrides)
  local t = { kernel = k }
  for name, v in pairs(k.templates) do t[name] = v end
  for name, v in pairs(overrides or {}) do
    if k.templates[name] ~= nil then t[name] = coerce_define(k, name, v, k.templates[name]) end
  end
  return t
end

-- a field of the definition (grid, block, cluster, ...) for the templates t: a number, a list, or a
-- function of the templates returning one (its result checked: nil, a string, ... are errors at
-- the kernel's definition, naming what the function returned)
local function eval(v, t, what, k)
  if type(v) == "function" then
    local ok, r = xpcall(v, user_error, t)
    if not ok then error(r, 0) end
    if type(r) ~= "number" and type(r) ~= "table" then
      kerr(k, "kernel %s: the '%s' function returned %s; it must return a number or a list of 1 to 3 positive integers",
           k.name, what, r == nil and "nil" or type(r) == "string" and fmt("a string (%q)", r:sub(1, 40)) or "a " .. type(r))
    end
    v = r
  end
  if type(v) == "number" then v = { v } end
  if v ~= nil and type(v) ~= "table" then kerr(k, "kernel %s: '%s' must be a number, a list or a function of the templates (got a %s)", k.name, what, type(v)) end
  return v
end

-- a list of launch dimensions -> {x, y, z}; raise(fmt, ...) reports what is wrong with it
local function dims_list(v, what, raise)
  if type(v) == "number" then v = { v } end
  if type(v) ~= "table" then raise("%s must be a number or a list of 1 to 3 positive integers (got a %s)", what, type(v)) end
  local n = 0
  for key in pairs(v) do
    if type(key) ~= "number" or key < 1 or key > 3 or key % 1 ~= 0 then
      n = 4
      break
    end
    n = n + 1
  end
  if n == 0 or n > 3 or #v ~= n then
    local shown = {}
    for i = 1, math.min(#v, 6) do shown[i] = tostring(v[i]) end
    raise("%s must be a list of 1 to 3 positive integers (x, y, z), got {%s}%s", what, table.concat(shown, ", "),
          n > 3 and fmt(": %d entries", math.max(n, #v)) or "")
  end
  local d = { v[1] or 1, v[2] or 1, v[3] or 1 }
  for i = 1, 3 do
    if type(d[i]) ~= "number" or d[i] < 1 or d[i] ~= floor(d[i]) or d[i] > 4294967295 then
      raise("%s[%d] must be a positive integer (got %s)", what, i, tostring(d[i]))
    end
  end
  return d
end
P._dims = dims_list

local function dims_of(v, what, k)
  if v == nil then return nil end
  return dims_list(v, what, function(msg, ...) kerr(k, "kernel %s: " .. msg, k.name, ...) end)
end

-- launch geometry for the given templates (used by the runtime and the emulator)
function KERNEL.launch_dims(k, overrides)
  local t = k:resolve(overrides)
  local d = k.def
  return dims_of(eval(d.grid, t, "grid", k), "grid", k), dims_of(eval(d.block, t, "block", k), "block", k),
         dims_of(eval(d.cluster, t, "cluster", k), "cluster", k)
end

-- The geometry of a launch of k (the emulator's and the CUDA runtime's): grid, block and cluster
-- from opts where given, else from the definition for opts.defines, checked against the device
-- limits (core.launch_check). Every error is at the line that decided it: what the launch passed
-- at the launch (the first frame of the user's script, when a script launched it), what the
-- definition declares at the kernel's definition. Returns grid, block, cluster and blame(msg),
-- which raises an error of that launch (a message from the emulator or the driver without a
-- place) at the same line.
function P._geometry(k, opts)
  local function at_launch(msg, ...)
    if user_where() then perr(msg, ...) end
    kerr(k, msg, ...)
  end
  local function launch_dims(v, what)
    if v == nil then return nil end
    return dims_list(v, what, function(msg, ...) at_launch("launch of %s: " .. msg, k.name, ...) end)
  end
  local grid, block, cluster = launch_dims(opts.grid, "grid"), launch_dims(opts.block, "block"), launch_dims(opts.cluster, "cluster")
  local given = grid or block or cluster
  if not grid or not block or not cluster then
    local g, b, c = k:launch_dims(opts.defines)
    grid, block, cluster = grid or g, block or b, cluster or c
  end
  if not grid or not block then
    local what = not grid and not block and "grid or block" or not grid and "grid" or "block"
    at_launch("launch of %s: no %s given, and the kernel declares none", k.name, what)
  end
  local function blame(msg)
    if type(msg) == "string" and msg:match("^[^\n]-:%d+: error: ") then error(msg, 0) end
    msg = type(msg) == "string" and msg:gsub("^error: ", "") or tostring(msg)
    if given then at_launch("launch of %s: %s", k.name, msg) end
    kerr(k, "kernel %s: %s", k.name, msg)
  end
  local bad = core.launch_check(grid, block, cluster)
  if bad then blame(bad) end
  return grid, block, cluster, blame
end
P._kernel_error = kerr

-- the dynamic shared memory a launch of this kernel needs for the given templates: its `smem` field
-- (a number of bytes, or a function of them) or the dynamic block of its shared-memory plans as the
-- last trace left it, the larger (both start at the block's base); 0 when neither. Call it right
-- after tracing with the same templates (the emulator, the CUDA runtime and --check do).
function KERNEL.dynamic_smem_for(k, overrides)
  local s = k.def.smem
  if type(s) == "function" then s = s(k:resolve(overrides)) end
  return math.max(type(s) == "number" and s or 0, k.dynamic_smem or 0)
end

-- trace this kernel into module m (a core module)
local function trace_into(k, m, overrides)
  local d = k.def
  local t = k:resolve(overrides)
  t.kernel = k
  m:func(k.name, "entry", "visible")
  for _, p in ipairs(k.params) do
    for _, f in ipairs(P._funcs) do
      if f.name == p[1] then
        kerr(k, "kernel %s: parameter '%s' has the name of the function defined at %s:%d, which it hides from the kernel's " ..
                "calls (ptxas: arguments mismatch for 'call'); rename one", k.name, p[1], tostring(f.file), f.line or 0)
      end
    end
    m:param(p[1], p.ptype, p.align or 0, p.count or 0)
  end
  local function dirv(name)
    local v = dims_of(eval(d[name], t, name, k), name, k)
    if v then m:directive(name, v[1], v[2], v[3]) end
  end
  dirv("maxntid"); dirv("reqntid")
  local cl = dims_of(eval(d.cluster, t, "cluster", k), "cluster", k)
  if cl and cl[1] * cl[2] * cl[3] > 1 then m:directive("reqnctapercluster", cl[1], cl[2], cl[3]) end
  if d.minnctapersm then m:directive("minnctapersm", dims_of(eval(d.minnctapersm, t, "minnctapersm", k), "minnctapersm", k)[1]) end
  if d.maxnreg then m:directive("maxnreg", dims_of(eval(d.maxnreg, t, "maxnreg", k), "maxnreg", k)[1]) end
  local saved_cur, saved_mod = CUR, MOD
  k.dynamic_smem = 0                        -- this trace's shared-memory plans add their dynamic blocks
  CUR = { mod = m, kernel = k, nlabel = 0, narr = 0, t = t, guards = {} }
  MOD = m
  m:activate()
  local ok, err = xpcall(d.body, user_error, t, unpack(k.params))
  m:activate(false)
  CUR, MOD = saved_cur, saved_mod
  if MOD then MOD:activate() end
  if not ok then error(err, 0) end
  m:endfunc()
end

---------------------------------------------------------------------------------------------------
-- device functions (.func) and calls
---------------------------------------------------------------------------------------------------
local FUNCS = {}         -- ptx.func definitions in script order (traced before the kernels)
P._funcs = FUNCS
local FUNC = {}
FUNC.__index = FUNC
FUNC.__name = "ptxlua.func"
FUNC.__tostring = function(f) return "func " .. f.name end

local FUNC_FIELDS = { name = 1, params = 1, returns = 1, body = 1, doc = 1 }

-- ptx.func { name =, params = { {"a", "s32"} }, returns = { {"r", "s32"} }, body = function(t, a, r) } -> f
function P.func(def)
  if type(def) ~= "table" then perr("ptx.func expects a table { name = ..., params = ..., returns = ..., body = function ... }") end
  for _, k in ipairs(sorted_keys(def)) do
    if not FUNC_FIELDS[k] then perr("ptx.func: unknown field '%s'", tostring(k)) end
  end
  if type(def.name) ~= "string" or not def.name:match("^[%a_][%w_]*$") then perr("ptx.func: 'name' must be an identifier") end
  check_ident("ptx.func", def.name)
  if type(def.body) ~= "function" then perr("ptx.func '%s': 'body' must be a function", def.name) end
  local all = {}
  local function specs(list, what, ret)
    if list ~= nil and type(list) ~= "table" then perr("ptx.func '%s': '%s' must be a list of {name, type}", def.name, what) end
    local out = {}
    for i, sp in ipairs(list or {}) do
      local p = parse_param(sp, i)
      if p.count or p.tensormap then perr("ptx.func '%s': %s[%d]: a function parameter is a scalar or a pointer", def.name, what, i) end
      p.ret = ret
      for _, q in ipairs(all) do if q[1] == p[1] then perr("ptx.func '%s': parameter '%s' twice", def.name, p[1]) end end
      all[#all + 1] = p
      out[i] = p
    end
    return out
  end
  local params, rets = specs(def.params, "params", false), specs(def.returns, "returns", true)
  if #rets > 1 then
    perr("ptx.func '%s': %d results, but ptxas takes one .param result (return a packed value, or store through a pointer)", def.name, #rets)
  end
  for _, o in ipairs(FUNCS) do
    if o.name == def.name then perr("function '%s' is defined twice", def.name) end
  end
  for _, k in ipairs(REGISTRY) do
    if k.name == def.name then perr("function '%s': a kernel has that name", def.name) end
  end
  local file, line = user_where()
  local f = setmetatable({ name = def.name, def = def, params = params, returns = rets, file = file, line = line,
                           index = #FUNCS + 1 }, FUNC)
  FUNCS[#FUNCS + 1] = f
  return f
end
function P.funcs() return FUNCS end

local function trace_func(f, m)
  m:func(f.name, "func", "none")
  for _, p in ipairs(f.params) do m:param(p[1], p.ptype, 0, 0) end
  for _, p in ipairs(f.returns) do m:param(p[1], p.ptype, 0, 0, true) end
  local saved_cur, saved_mod = CUR, MOD
  local t = { func = f }
  CUR = { mod = m, func = f, nlabel = 0, narr = 0, t = t, guards = {} }
  MOD = m
  m:activate()
  local args = {}
  for _, p in ipairs(f.params) do args[#args + 1] = p end
  for _, p in ipairs(f.returns) do args[#args + 1] = p end
  local ok, err = xpcall(f.def.body, user_error, t, unpack(args))
  m:activate(false)
  CUR, MOD = saved_cur, saved_mod
  if MOD then MOD:activate() end
  if not ok then error(err, 0) end
  m:endfunc()
end

-- one operand of a call list: a register of the parameter's type (a .bN parameter takes any N-bit
-- register), or a number for an integer parameter
local function call_operand(f, p, v, what, i)
  if isreg(v) then
    local t = regtype(v)
    if t ~= p.ptype and not (tclass(p.ptype) == "b" and tbits(t) == tbits(p.ptype) and t ~= "pred") then
      perr("ptx.call %s: %s %d ('%s') is .%s, got a .%s register", f.name, what, i, p[1], p.ptype, t)
    end
    return v
  end
  if what == "argument" and type(v) == "number" then
    local c = tclass(p.ptype)
    if c == "f" then perr("ptx.call %s: argument %d ('%s') is .%s: pass a register (a number is for an integer parameter)", f.name, i, p[1], p.ptype) end
    if v ~= floor(v) then perr("ptx.call %s: argument %d ('%s'): %s is not an integer", f.name, i, p[1], tostring(v)) end
    return v
  end
  perr("ptx.call %s: %s %d ('%s') must be a .%s register%s, got %s", f.name, what, i, p[1], p.ptype,
       what == "argument" and " or an integer" or "", type(v) == "table" and "an operand object" or type(v))
end

-- ptx.call(f [, {results...} [, {arguments...} [, { uni = false }]]]): one instruction,
-- call.uni (%r), f, (%a); with no results or no arguments the list is left out
function P.call(f, rets, args, opts)
  local m = MOD or need_trace()
  if type(f) == "string" then
    local found
    for _, g in ipairs(FUNCS) do if g.name == f then found = g end end
    if not found then perr("ptx.call: no function named '%s' (define it with ptx.func)", f) end
    f = found
  end
  if getmetatable(f) ~= FUNC then perr("ptx.call: the first argument must be a function from ptx.func, got %s", type(f)) end
  if FUNCS[f.index] ~= f then perr("ptx.call: function '%s' is not defined in this script (ptx.reset forgot it?)", f.name) end
  local cur = CUR and CUR.func
  if cur and f.index > cur.index then
    perr("ptx.call: function '%s' is defined after '%s', which calls it (PTX declares a function before its calls): define it first", f.name, cur.name)
  end
  if rets ~= nil and type(rets) ~= "table" then perr("ptx.call %s: the results must be a list of registers", f.name) end
  if args ~= nil and type(args) ~= "table" then perr("ptx.call %s: the arguments must be a list", f.name) end
  if opts ~= nil and type(opts) ~= "table" then perr("ptx.call %s: options must be a table such as { uni = false }", f.name) end
  rets, args = rets or {}, args or {}
  if #rets ~= #f.returns then perr("ptx.call %s: %d result%s expected, got %d", f.name, #f.returns, #f.returns == 1 and "" or "s", #rets) end
  if #args ~= #f.params then perr("ptx.call %s: %d argument%s expected, got %d", f.name, #f.params, #f.params == 1 and "" or "s", #args) end
  local R, A = { [0] = K_PAREN }, { [0] = K_PAREN }
  for i, p in ipairs(f.returns) do R[i] = call_operand(f, p, rets[i], "result", i) end
  for i, p in ipairs(f.params) do A[i] = call_operand(f, p, args[i], "argument", i) end
  local text = (opts and opts.uni == false) and "call" or "call.uni"
  local sym = { [0] = K_SYM, f.name }
  if #R > 0 and #A > 0 then emit(text, R, sym, A)
  elseif #R > 0 then emit(text, R, sym)
  elseif #A > 0 then emit(text, sym, A)
  else emit(text, sym) end
end

-- build one module from kernels: opts.kernels (list of names, default all), opts.defines,
-- opts.arch (overrides each kernel's target), opts.version
-- arch = "native": the target of the GPU in use (device 0), asked of the CUDA driver (sm_XYa from
-- compute capability 9.0 on); an error naming what is missing where there is no driver or GPU
function P.native_arch()
  local a, why = core.cuda_native_arch()
  if not a then perr("arch = \"native\" needs the GPU's compute capability: %s", tostring(why)) end
  return a
end

-- the kernels named (each once, in the order given; all when names is empty) from a registry;
-- an unknown name, or no kernel at all, is an error listing what the script defines
function P.select_kernels(names, registry)
  local reg = registry or REGISTRY
  local list = {}
  if names and #names > 0 then
    local seen = {}
    for _, name in ipairs(names) do
      if not seen[name] then
        seen[name] = true
        local found
        for _, k in ipairs(reg) do if k.name == name then found = k end end
        if not found then
          local known = {}
          for _, k in ipairs(reg) do known[#known + 1] = k.name end
          error(fmt("error: no kernel named '%s' (the script defines: %s)", name, #known > 0 and table.concat(known, ", ") or "none"), 0)
        end
        list[#list + 1] = found
      end
    end
  else
    for _, k in ipairs(reg) do list[#list + 1] = k end
  end
  if #list == 0 then error("error: the script defines no kernel (call ptx.kernel{...})", 0) end
  return list
end

function P.build(opts)
  opts = opts or {}
  local list = P.select_kernels(opts.kernels, opts.registry)
  if list[1].verbatim then return list[1].verbatim:build(list, opts), list end  -- PTX kept as written (ptxlua.verbatim)
  -- every define must name a template of some selected kernel
  for _, name in ipairs(sorted_keys(opts.defines or {})) do
    local used = false
    for _, k in ipairs(list) do if k.templates[name] ~= nil then used = true end end
    if not used then
      local known = {}
      for _, k in ipairs(list) do for n in pairs(k.templates) do known[n] = true end end
      local names = sorted_keys(known)
      error(fmt("error: -D %s: no kernel has a template parameter '%s' (known: %s)", name, name,
                #names > 0 and table.concat(names, ", ") or "none"), 0)
    end
  end
  if opts.arch == "native" then opts.arch = P.native_arch() end
  local target = opts.arch or list[1].target
  for _, k in ipairs(list) do
    if not opts.arch and k.target ~= target then
      error(fmt("%s:%d: error: kernel %s targets %s but kernel %s targets %s; print them separately (--kernel) or pass --arch",
                k.file or "?", k.line or 0, k.name, k.target, list[1].name, target), 0)
    end
  end
  if not core.target(target) then error(fmt("error: unknown target '%s'", target), 0) end
  local m = core.module(target)
  for _, f in ipairs(FUNCS) do trace_func(f, m) end     -- before the kernels: PTX declares before calls
  for _, k in ipairs(list) do trace_into(k, m, opts.defines) end
  local version, vk = opts.version, nil   -- the highest .version a kernel asks for, and that kernel
  if not version then
    for _, k in ipairs(list) do
      local v = k.def.version
      if v ~= nil and type(v) ~= "number" then kerr(k, "ptx.kernel '%s': 'version' must be a number such as 8.0", k.name) end
      if v and (not version or v > version) then version, vk = v, k end
    end
  end
  if version then
    local _, _, minv = core.target(target)
    if version < minv - 1e-9 then
      local msg = fmt("target %s requires PTX ISA %.1f or later (the kernel asks for .version %.1f)", target, minv, version)
      if vk then kerr(vk, msg) end
      error("error: " .. msg, 0)
    end
  end
  m:version(version)
  return m, list
end

-- PTX text of one kernel (or of the module of several)
function KERNEL.ptx(k, opts)
  if opts ~= nil and type(opts) ~= "table" then perr("k:ptx([{ defines =, arch =, anchors = }]): a table of options expected") end
  opts = opts or {}
  local o = { kernels = { k.name }, defines = opts.defines, arch = opts.arch, version = opts.version, registry = { k } }
  local m = P.build(o)
  return m:print(opts.anchors)
end
function KERNEL.trace(k, opts)
  if opts ~= nil and type(opts) ~= "table" then perr("k:trace([{ defines =, arch = }]): a table of options expected") end
  opts = opts or {}
  return (P.build { kernels = { k.name }, defines = opts.defines, arch = opts.arch, registry = { k } })
end

-- run the kernel: kernel:launch{ device = ptxlua.emu.device("emu"), args = {...}, grid =, block =,
-- defines =, checks = } (the emulator today; a CUDA device later, through the same call)
function KERNEL.launch(k, opts)
  local d = type(opts) == "table" and opts.device
  if type(d) == "table" and d.kind == "cuda" then return require("ptxlua.cuda").launch(k, opts) end
  return require("ptxlua.emu").launch(k, opts)
end
-- the dev:tensormap specs of the kernel's map parameters at these templates (in parameter order)
function KERNEL.maps(k, defines, args) return TS.map_specs(k, defines, args) end
function KERNEL.bench(k, opts) return require("ptxlua.cuda").bench(k, opts) end
P._launch, P._bench = KERNEL.launch, KERNEL.bench   -- shared with the kernels of ptxlua.verbatim

function P.ptx(opts)
  if opts ~= nil and type(opts) ~= "table" then perr("ptx.ptx([{ kernels =, defines =, arch =, anchors = }]): a table of options expected") end
  opts = opts or {}
  local m = P.build(opts)
  return m:print(opts.anchors)
end

---------------------------------------------------------------------------------------------------
-- what kernels share: template checks, modules of their own
---------------------------------------------------------------------------------------------------
-- ptx.check_templates(t, spec): each template named in spec meets its rule, else an error at the
-- kernel's ptx.kernel line (where the templates are declared) naming the template, the rule and the
-- value. A rule: { int = true, min =, max =, below =, multiple =, one_of = {...}, type = "number" |
-- "string" | "boolean", why = "..." }; int (a whole number) is implied by min, max, below and
-- multiple. Templates are checked in name order, so the same values give the same first error.
local function describe_rule(r)
  if r.one_of then
    local vs = {}
    for i, v in ipairs(r.one_of) do vs[i] = type(v) == "string" and fmt("%q", v) or tostring(v) end
    return (#vs == 1 and "" or "one of ") .. table.concat(vs, ", ")
  end
  local numeric = r.int or r.min or r.max or r.below or r.multiple
  if not numeric then return "a " .. tostring(r.type or "value") end
  if r.min == 1 and not r.max and not r.below and not r.multiple then return "a positive whole number" end
  if r.multiple and r.min == r.multiple and not r.max and not r.below then return "a positive multiple of " .. tostring(r.multiple) end
  local base = r.multiple and "a multiple of " .. tostring(r.multiple) or "a whole number"
  local range = {}
  if r.min and r.max then return fmt("%s from %s to %s", base, tostring(r.min), tostring(r.max))
  elseif r.min then range[1] = "at least " .. tostring(r.min)
  elseif r.max then range[1] = "at most " .. tostring(r.max) end
  if r.below then range[#range + 1] = fmt("below %.0f", r.below) end
  if #range == 0 then return base end
  return base .. (r.multiple and " " or ", ") .. table.concat(range, " and ")
end

local RULE_FIELDS = { int = 1, min = 1, max = 1, below = 1, multiple = 1, one_of = 1, type = 1, why = 1 }

function P.check_templates(t, spec)
  if type(t) ~= "table" then perr("ptx.check_templates(t, spec): t must be the templates table a kernel's functions get") end
  if type(spec) ~= "table" then perr("ptx.check_templates(t, spec): spec must be a table { NAME = { rule } }") end
  local k = rawget(t, "kernel")
  local function bad(msg, ...)
    if k and getmetatable(k) == KERNEL then kerr(k, msg, ...) end
    perr(msg, ...)
  end
  for _, name in ipairs(sorted_keys(spec)) do
    local r = spec[name]
    if type(r) ~= "table" then perr("ptx.check_templates: the rule of %s must be a table such as { min = 1 }", tostring(name)) end
    for _, f in ipairs(sorted_keys(r)) do
      if not RULE_FIELDS[f] then perr("ptx.check_templates: the rule of %s has an unknown field '%s'", tostring(name), tostring(f)) end
    end
    local v = t[name]
    local ok = true
    if r.one_of then
      ok = false
      for _, w in ipairs(r.one_of) do if v == w then ok = true end end
    else
      local numeric = r.int or r.min or r.max or r.below or r.multiple
      if r.type and type(v) ~= r.type then ok = false
      elseif numeric then
        ok = type(v) == "number" and v == floor(v) and v > -math.huge and v < math.huge
        if ok and r.min and v < r.min then ok = false end
        if ok and r.max and v > r.max then ok = false end
        if ok and r.below and v >= r.below then ok = false end
        if ok and r.multiple and v % r.multiple ~= 0 then ok = false end
      end
    end
    if not ok then
      local got = type(v) == "string" and fmt("%q", v) or tostring(v)
      bad("template %s must be %s%s (got %s)", tostring(name), describe_rule(r), r.why and (": " .. r.why) or "", got)
    end
  end
  return t
end

-- ptx.import(path): the module a Lua file returns, path relative to the directory of the script
-- that calls it (a kernel loads kernels/lib/rows.lua as ptx.import "lib/rows.lua", wherever the
-- kernels folder is); loaded once, until ptx.reset
local IMPORTS = {}
function P.import(path)
  if type(path) ~= "string" or path == "" then perr("ptx.import(path): a path relative to the calling script expected") end
  local file = user_where()
  local dir = file and file:match("^(.*[/\\])") or ""
  local full = path:match("^/") and path or dir .. path
  local hit = IMPORTS[full]
  if hit ~= nil then return hit end
  local f, err = loadfile(full)
  if not f then
    local fh = io.open(full, "rb")
    if not fh then perr("ptx.import: cannot open '%s' (%s)", path, full) end
    fh:close()
    error(core.expand_chunk(tostring(err), full), 0)                 -- a syntax error, at its line
  end
  local r = f()
  if r == nil then r = true end
  IMPORTS[full] = r
  return r
end

-- forget every kernel defined so far, and the modules imported (the REPL reloads scripts)
function P.reset()
  for i = #REGISTRY, 1, -1 do REGISTRY[i] = nil end
  for i = #FUNCS, 1, -1 do FUNCS[i] = nil end
  for name in pairs(IMPORTS) do IMPORTS[name] = nil end
end
function P.kernels() return REGISTRY end

-- the trace state, for helpers in other modules
function P._current() return CUR end

---------------------------------------------------------------------------------------------------
-- the root table: helpers first, then any other key starts an instruction chain
---------------------------------------------------------------------------------------------------
ROOT = setmetatable(P, { __index = function(t, k)
  if type(k) ~= "string" then return nil end
  local n = chain_node(spell(k))
  rawset(t, k, n)
  return n
end })

require("ptxlua.hopper")(P)  -- Hopper helpers (smem plans, swizzle, descriptors, mbarrier waits): docs/hopper.md
require("ptxlua.blackwell")(P)  -- Blackwell helpers (tcgen05 descriptors, the tensor-memory plan, MMA issue, ld/st): docs/blackwell.md
return ROOT
