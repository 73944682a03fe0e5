-- ptxlua.sugar -- the layout side of `ptxlua --from-ptx FILE.ptx --sugar` (docs/transpiler.md).
-- A sugared script writes each kernel as a real DSL body (ptx.kernel parameters, register arrays,
-- instruction chains, guards, labels) and keeps, next to it, what the DSL printer would not
-- reproduce: the text outside functions, a function header it would print differently, comments,
-- blank lines, .loc lines, indentation, and the statements it cannot express (kept as written).
-- Built, each body is traced by the DSL and laid out again in the file's own layout by the C core;
-- the whole text is then parsed like ptxlua.verbatim, so the result is a parsed module that prints
-- the file back byte for byte.
local core = require "ptxlua.core"
local P = require "ptxlua"
local V = require "ptxlua.verbatim"

local S = {}
local DOC = {}
DOC.__index = DOC
local K_SYM, K_LABEL = -3, -4

local caller_line = P._caller_line

-- Layout kept beside the code: each call records a marker in the body being traced (the C core
-- takes it only while a sugared body is traced, and anchors it at the script line that called):
-- sugar.text "..." text kept as written at this point (comments, blank lines, .loc lines, a
-- statement the DSL cannot express); sugar.eol "..." the rest of the previous instruction's line
-- (a trailing comment), newline included; sugar.indent / sugar.gap the indentation of the
-- instructions from here on (the printer's: one tab) and what separates an opcode from its
-- operands (the printer's: " \t"). They are the C functions themselves: one call each.
S.text = core.sugar_text
S.eol = core.sugar_eol
S.indent = core.sugar_indent
S.gap = core.sugar_gap
local MARK = core.sugar_mark

-- a register array indexed as PTX numbers it: r[5] is %r5. Each register is made when the script
-- first reads it and kept in the table (later reads are plain table reads, no metamethod): a file
-- declares %r<100000> and uses a few of them. An index outside the array is an error at the
-- script's line
local function view(make, name, n)
  local v = { _n = name, _c = n }
  return setmetatable(v, { __index = function(v, k)
    if type(k) ~= "number" then return nil end
    if k < 0 or k >= n or k % 1 ~= 0 then P.error("register %%%s%s is outside %%%s<%d>", name, tostring(k), name, n) end
    local r = make(k)
    rawset(v, k, r)
    return r
  end })
end

local DECLTYPE = { bf16 = "b16", bf16x2 = "b32", f16x2 = "b32" }
local function decl_text(t, name, n)
  local bare = type(name) == "table" and name.bare
  local nm = type(name) == "table" and name[1] or name
  return string.format("\t.reg .%s \t%s%s%s;\n", DECLTYPE[t] or t, bare and "" or "%", nm, n and ("<" .. n .. ">") or "")
end

-- sugar.regs(T, n, name [, text]): %name<n> as r[0] .. r[n-1]; text: the declaration as written
-- when the printer's differs (`.reg .b32 %r<5>;`), with any comment before it. name may be
-- { "name", bare = true } for a name without '%' (inline asm's scoped `.reg .b32 t<2>;`).
function S.regs(t, n, name, text)
  local make = P._declare_lazy(t, name, n)
  MARK("decl", text or decl_text(t, name, n))
  return view(make, type(name) == "table" and name[1] or name, n)
end
-- sugar.reg(T, name [, text]): the scalar register %name (or name, { "name", bare = true })
function S.reg(t, name, text)
  local r = P._declare(t, name)
  MARK("decl", text or decl_text(t, name, nil))
  return r
end
-- sugar.var(name, text): a variable declared in the body as written; returns its symbol
function S.var(name, text)
  S.text(text)
  return { [0] = K_SYM, name }
end
-- sugar.labels { "$L__BB0_2", ... }: label objects, L.BB0_2 (a leading "$L__" dropped) or L["name"]
function S.labels(list)
  local L = {}
  for _, name in ipairs(list) do
    local l = { [0] = K_LABEL, name }
    L[name] = l
    local short = name:match("^%$L__([%a_][%w_]*)$")
    if short then L[short] = l end
  end
  return L
end
-- statements in a function of their own (Lua limits the constants and jumps of one function)
function S.block(fn) fn() end
-- do sugar.open([text]) ... sugar.close([text]) end: a nested block `{ ... }`, ptx.scope's flat form
-- (a Lua block between the two calls, no function per block: a file holds tens of thousands); the
-- registers and labels made between them are the block's. text: the `{` or `}` line as written,
-- when it is not the printer's (the brace alone on its line in the current indentation).
S.open = core.sugar_open
S.close = core.sugar_close
-- the address of a symbol (a parameter, a variable): ptx.sym
S.sym = P.sym

---------------------------------------------------------------------------------------------------
-- the document
---------------------------------------------------------------------------------------------------
local LAST = nil            -- the document made last (what --sugar's check reads back)
function S.module(name)
  local file, line = caller_line(2)
  LAST = setmetatable({ name = name or "ptx", parts = {}, where = {}, file = file, line = line, kernels = {} }, DOC)
  return LAST
end

-- --sugar's check (src/cli/main.c, src/ptx/sugar.c): the check script it wrote holds each function's
-- structure and the first call of each shape; traced with core.sugar_check on (no anchors), each
-- function gives its header (when the script does not keep it as written) and its instructions and
-- labels as the printer writes them, one a line, "\1\n" after each function. A function the DSL
-- refuses gives "\2" and the error instead: every function's first error in one run (one round of
-- the check for the whole file, not one per function)
local CHECK = false
function S.check_mode() CHECK = true end   -- the check script's first call (src/ptx/sugar.c)
function S.check_canon()
  if not LAST then error("ptxlua.sugar: the script made no document", 0) end
  local out = {}
  for _, p in ipairs(LAST.parts) do
    if type(p) ~= "string" then
      local k = p.kernel
      local ok, m = false, p.err
      if k then
        core.sugar_mode(true)
        ok, m = pcall(P.build, { registry = { k }, kernels = { k.name }, arch = k.target })
        core.sugar_mode(false)
      end
      if ok then out[#out + 1] = m:sugar_canon(k.name, p.head == nil)
      elseif m ~= nil then out[#out + 1] = "\2" .. tostring(m) .. "\n" end   -- (nil: names checked, nothing traced)
      out[#out + 1] = "\1\n"
    end
  end
  return table.concat(out)
end

-- text outside the functions, kept as written
function DOC:text(s)
  if type(s) ~= "string" then error("ptxlua.sugar: doc:text expects a string", 2) end
  local n = #self.parts + 1
  self.parts[n] = s
  local _, line = caller_line(2)
  self.where[n] = line
  return self
end

local function add(doc, def, entry)
  local file, line = caller_line(3)
  if type(def) ~= "table" or type(def.name) ~= "string" or type(def.body) ~= "function" then
    error(string.format("%s:%d: error: doc:kernel { name = ..., params = ..., body = function ... }", file, line), 0)
  end
  local target = doc.target or "sm_90a"
  if not core.target(target) then target = "sm_100a" end
  local reg = P._registry
  local n0 = #reg
  local def2 = { name = def.name, params = def.params, body = def.body, target = target }
  local k, err
  if CHECK then   -- the check: a definition the DSL refuses is this function's error, not the script's
    local ok, r = pcall(P.kernel, def2)
    if ok then k = r else err = r end
  else
    k = P.kernel(def2)
  end
  -- the traced kernel is private: the script's kernel list holds the document's entries
  for i = #reg, n0 + 1, -1 do if reg[i] == k then table.remove(reg, i) end end
  local f = { kernel = k, err = err, head = def.head, tail = def.tail or "\n}\n", file = file, line = line }
  doc.parts[#doc.parts + 1] = f
  -- registered at doc:done() (ptx.kernel looks for its name among the registered kernels: one
  -- document of thousands of kernels would cost a look at each for each)
  if entry then doc.kernels[#doc.kernels + 1] = V.kernel(doc, def.name, file, line) end
  return doc
end
-- doc:check_names { name, parameter names... }: in the check script, a function whose like (the
-- same header but for the names, the same body) the check traces already: its names are checked
-- as ptx.kernel checks them, and nothing is traced
function DOC:check_names(names)
  local ok, err = pcall(function()
    local seen = {}
    for i, n in ipairs(names) do
      local what = i == 1 and "ptx.kernel" or string.format("params[%d]", i - 1)
      if type(n) ~= "string" or not n:match("^[%a_][%w_]*$") then P.error("%s: bad name '%s'", what, tostring(n)) end
      P._check_ident(what, n)
      if i > 1 and seen[n] then P.error("ptx.kernel '%s': parameter '%s' twice", names[1], n) end
      seen[n] = true
    end
  end)
  self.parts[#self.parts + 1] = { names = names, err = not ok and err or nil }
  return self
end

-- doc:kernel { name =, params = {...}, head = (kept header), tail = (kept closing), body = fn }
function DOC:kernel(def) local d = add(self, def, true) return d end   -- not tail calls: add names the caller's line
-- doc:func { ... }: a .func, traced the same way (its header is always kept as written)
function DOC:func(def) local d = add(self, def, false) return d end

function DOC:done()
  local reg = P._registry
  if #self.kernels == 0 then
    local file, line = caller_line(2)
    self.kernels[1] = V.kernel(self, self.name, file, line)
  end
  -- the document's kernels join the script's list; a kernel of the same name defined meanwhile
  -- (ptx.kernel between the document's functions) is one defined twice
  local names = {}
  for _, k in ipairs(reg) do names[k.name] = true end
  for _, k in ipairs(self.kernels) do
    if names[k.name] then error(string.format("%s:%d: error: kernel '%s' is defined twice", k.file, k.line, k.name), 0) end
  end
  for _, k in ipairs(self.kernels) do reg[#reg + 1] = k end
  return self
end

-- one function: traced by the DSL with its markers, then laid out by the C core as the file's
-- text (src/ptx/sugar.c, plP_sugar_layout); each piece's PTX line and byte, and the script line
-- (and file, when not the document's) that wrote it, appended to map
local function function_text(doc, f, map, pl, off)
  local k = f.kernel
  core.sugar_mode(true)
  local ok, m = pcall(P.build, { registry = { k }, kernels = { k.name }, arch = k.target })
  core.sugar_mode(false)
  if not ok then error(m, 0) end
  return m:sugar_layout(k.name, f.head, f.tail, f.line, doc.file, pl, off, map.starts, map.lines, map.files, map.bytes)
end

-- the whole text, and the map of its lines to the script's (V.reanchor)
function DOC:text_all()
  local out = {}
  local map = { starts = {}, lines = {}, files = {}, bytes = {} }
  local pl, off = 1, 0        -- the PTX line and byte the next piece starts at
  for i, p in ipairs(self.parts) do
    if type(p) == "string" then
      out[i] = p
      local n = #map.starts + 1
      map.starts[n], map.lines[n], map.bytes[n] = pl, self.where[i] or self.line, off
      local _, nl = p:gsub("\n", "")
      pl, off = pl + nl, off + #p
    else
      out[i], pl, off = function_text(self, p, map, pl, off)
    end
  end
  return table.concat(out), map
end

-- the parsed module (what P.build returns for a sugared document), each statement anchored at
-- the script line that wrote it (an instruction's DSL call, the sugar.text holding a statement)
function DOC:build()
  local text, map = self:text_all()
  local m, err = core.parse(text, self.name)
  if m then return V.reanchor(self, m, map) end
  V.parse_error(self, map, err, "the sugared document does not parse: ")
end

-- doc.target: the .target the document's functions are traced for
function DOC:target_is(t) self.target = t; return self end

return S
