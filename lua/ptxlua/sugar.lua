-- ptxlua.sugar -- the layout side of `ptxlua --from-ptx FILE.ptx --sugar` (docs/transpiler.md).
-- A sugared script writes each kernel as a real DSL body (ptx.kernel parameters, register arrays,
-- instruction chains, guards, labels) and keeps, next to it, what the DSL printer would not
-- reproduce: the text outside functions, a function header it would print differently, comments,
-- blank lines, .loc lines, indentation, and the statements it cannot express (kept as written).
-- Built, each body is traced by the DSL, printed, and its statement lines are laid out again in
-- the file's own layout; the whole text is then parsed like ptxlua.verbatim, so the result is a
-- parsed module that prints the file back byte for byte.
local core = require "ptxlua.core"
local P = require "ptxlua"
local V = require "ptxlua.verbatim"

local S = {}
local DOC = {}
DOC.__index = DOC
local K_SYM, K_LABEL = -3, -4
local MARK = "\1"          -- a raw statement "\1<n>" stands for layout chunk n of the function

local CUR = nil            -- the function being traced: { chunks = {}, owned = {} }

local caller_line = P._caller_line

local function need()
  if not CUR then P.error("ptxlua.sugar: this call belongs inside a sugared kernel body") end
  return CUR
end

-- a marker statement for layout chunk `text` of kind `kind` (nil: inserted as is; "eol": the rest
-- of the previous line, replacing its newline; "indent"/"gap": the layout of the next instructions)
local function mark(kind, text)
  local c = need()
  local n = #c.chunks + 1
  local _, line = caller_line(3)           -- the script line of the sugar call (its anchor)
  c.chunks[n] = { kind, text, line }
  local cur = P._current()
  if not cur then P.error("ptxlua.sugar: no kernel is being traced") end
  cur.mod:raw(MARK .. n)
end

-- text kept as written at this point of the body (comments, blank lines, .loc lines, a statement
-- the DSL cannot express)
function S.text(s)
  if type(s) ~= "string" then P.error("sugar.text expects a string") end
  mark(nil, s)
end
-- the rest of the previous instruction's line (a trailing comment), newline included
function S.eol(s) mark("eol", s) end
-- indentation of the instructions from here on (the printer's is one tab)
function S.indent(s) mark("indent", s) end
-- what separates an opcode from its operands from here on (the printer's is " \t")
function S.gap(s) mark("gap", s) end

-- a 0-based view of a register array: r[5] is %r5
local VIEW = {}
VIEW.__index = function(v, k)
  local a = rawget(v, "_a")
  if type(k) == "number" then
    local r = a[k + 1]
    if r == nil then P.error("register %%%s%d is outside %%%s<%d>", rawget(v, "_n"), k, rawget(v, "_n"), #a) end
    return r
  end
  return nil
end
VIEW.__len = function(v) return #rawget(v, "_a") end

local function decl_text(ptype, name, n)
  return string.format("\t.reg .%s \t%%%s%s;\n", ptype, name, n and ("<" .. n .. ">") or "")
end
local DECLTYPE = { bf16 = "b16", bf16x2 = "b32", f16x2 = "b32" }

-- sugar.regs(T, n, name [, text]): %name<n> as r[0] .. r[n-1]; text: the declaration as written
-- when the printer's differs (`.reg .b32 %r<5>;`), with any comment before it
function S.regs(t, n, name, text)
  local c = need()
  local a = P._declare(t, name, n)
  c.owned[name] = true
  mark(nil, text or decl_text(DECLTYPE[t] or t, name, n))
  return setmetatable({ _a = a, _n = name }, VIEW)
end
-- sugar.reg(T, name [, text]): the scalar register %name
function S.reg(t, name, text)
  local c = need()
  local r = P._declare(t, name)
  c.owned[name] = true
  mark(nil, text or decl_text(DECLTYPE[t] or t, name, nil))
  return r
end
-- sugar.var(name, text): a variable declared in the body as written; returns its symbol
function S.var(name, text)
  mark(nil, text)
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
-- the address of a symbol (a parameter, a variable): ptx.sym
S.sym = P.sym

---------------------------------------------------------------------------------------------------
-- the document
---------------------------------------------------------------------------------------------------
function S.module(name)
  local file, line = caller_line(2)
  return setmetatable({ name = name or "ptx", parts = {}, where = {}, file = file, line = line, kernels = {} }, DOC)
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
  local k = P.kernel { name = def.name, params = def.params, body = def.body, target = target }
  -- the traced kernel is private: the script's kernel list holds the document's entries
  for i = #reg, n0 + 1, -1 do if reg[i] == k then table.remove(reg, i) end end
  local f = { kernel = k, head = def.head, tail = def.tail or "\n}\n", file = file, line = line }
  doc.parts[#doc.parts + 1] = f
  if entry then
    local proxy = V.kernel(doc, def.name, file, line)
    reg[#reg + 1] = proxy
    doc.kernels[#doc.kernels + 1] = proxy
  end
  return doc
end
-- doc:kernel { name =, params = {...}, head = (kept header), tail = (kept closing), body = fn }
function DOC:kernel(def) local d = add(self, def, true) return d end   -- not tail calls: add names the caller's line
-- doc:func { ... }: a .func, traced the same way (its header is always kept as written)
function DOC:func(def) local d = add(self, def, false) return d end

function DOC:done()
  if #self.kernels == 0 then
    local file, line = caller_line(2)
    local proxy = V.kernel(self, self.name, file, line)
    P._registry[#P._registry + 1] = proxy
    self.kernels[1] = proxy
  end
  return self
end

-- one function: traced by the DSL, printed, laid out again -> its text, and beside each piece of
-- it the script line (and file) that wrote it: `at` gets { piece index, line, file } entries
local function function_text(doc, f, at)
  local k = f.kernel
  local c = { chunks = {}, owned = {} }
  local saved = CUR
  CUR = c
  local ok, m = pcall(P.build, { registry = { k }, kernels = { k.name }, arch = k.target })
  CUR = saved
  if not ok then error(m, 0) end
  local t = m:print("comment")          -- each instruction line ends in "\t// FILE:LINE", its anchor
  local e = t:find("%.entry ")
  local lb = e and t:find("\n{\n", e, true)
  if not lb then error(string.format("%s:%d: error: ptxlua.sugar: unexpected printer output for %s", f.file, f.line, k.name), 0) end
  local out = {}
  local head = f.head
  if not head then
    local ls = e
    while ls > 1 and t:sub(ls - 1, ls - 1) ~= "\n" do ls = ls - 1 end
    head = t:sub(ls, lb + 2)
  end
  out[1] = head
  at[#at + 1] = { 1, f.line }
  local pos = lb + 3
  local stop = #t - 3          -- the printer ends a body with "\n}\n"
  -- declarations the DSL printed: those of sugar.regs are laid out where the script made them
  local user = {}
  while pos <= stop and t:sub(pos, pos + 1) == "\t." do
    local nl = t:find("\n", pos, true)
    local line = t:sub(pos, nl)
    local name = line:match("^\t%.reg %.%S+ \t%%([^<;]+)")
    if not (name and c.owned[name]) then user[#user + 1] = line end
    pos = nl + 1
  end
  if t:sub(pos, pos) == "\n" then pos = pos + 1 end
  for _, l in ipairs(user) do out[#out + 1] = l end
  if #user > 0 then at[#at + 1] = { 2, f.line } end
  local indent, gap = "\t", " \t"
  while pos <= stop do
    local nl = t:find("\n", pos, true)
    if not nl or nl > stop then break end
    local line = t:sub(pos, nl - 1)
    pos = nl + 1
    local id = line:match("^\t\1(%d+)$")
    if id then
      local ch = c.chunks[tonumber(id)]
      local kind, text = ch[1], ch[2]
      if kind == nil then
        out[#out + 1] = text
        at[#at + 1] = { #out, ch[3] }
      elseif kind == "eol" then
        local last = out[#out]
        if last:sub(-1) == "\n" then out[#out] = last:sub(1, -2) end
        out[#out + 1] = text
      elseif kind == "indent" then indent = text
      elseif kind == "gap" then gap = text end
    elseif line:sub(1, 1) == "\t" then
      line = line:sub(2)
      local insn, afile, aline = line:match("^(.*;)\t// (.+):(%d+)$")
      if insn then line = insn end
      if gap ~= " \t" then
        local a, b = line:find(" \t", 1, true)
        if a then line = line:sub(1, a - 1) .. gap .. line:sub(b + 1) end
      end
      out[#out + 1] = indent .. line .. "\n"
      if insn then at[#at + 1] = { #out, tonumber(aline), afile } end
    else
      out[#out + 1] = line .. "\n"
    end
  end
  out[#out + 1] = f.tail
  at[#at + 1] = { #out, f.line }
  return table.concat(out), out
end

-- the whole text, and the map of its lines to the script's (V.reanchor)
function DOC:text_all()
  local out = {}
  local map = { starts = {}, lines = {}, files = {} }
  local pl = 1                -- the PTX line the next piece starts on
  local function add_map(line, file)
    local n = #map.starts + 1
    map.starts[n], map.lines[n], map.files[n] = pl, line, file or self.file
  end
  for i, p in ipairs(self.parts) do
    if type(p) == "string" then
      out[i] = p
      add_map(self.where[i] or self.line)
      local _, nl = p:gsub("\n", "")
      pl = pl + nl
    else
      local at = {}
      local text, pieces = function_text(self, p, at)
      out[i] = text
      local j = 1
      for k, piece in ipairs(pieces) do
        while at[j] and at[j][1] < k do j = j + 1 end
        if at[j] and at[j][1] == k then add_map(at[j][2], at[j][3]) end
        local _, nl = piece:gsub("\n", "")
        pl = pl + nl
      end
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
