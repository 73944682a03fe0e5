-- ptxlua.verbatim -- PTX kept as written: the DSL side of `ptxlua --from-ptx`.
-- A document is a sequence of PTX statements, each a string holding its exact text (its leading
-- comments and blank lines, the statement, the rest of its line). Built, the text is parsed by the
-- C parser into the IR (real opcodes and operands, checked by --lint) and prints back byte for
-- byte. Edit a statement string and the change is what you get; a statement that no longer parses
-- is reported at the script line that holds it.
local core = require "ptxlua.core"
local P = require "ptxlua"

local V = {}
local DOC = {}
DOC.__index = DOC

local caller_line = P._caller_line

-- a new document; name: what errors call the PTX (the original file name)
function V.module(name)
  local file, line = caller_line(2)
  return setmetatable({ name = name or "ptx", parts = {}, where = {}, file = file, line = line, kernels = {} }, DOC)
end

-- doc "text": one statement (or any text) kept as written
DOC.__call = function(d, text)
  if type(text) ~= "string" then error("ptxlua.verbatim: a statement must be a string", 2) end
  local n = #d.parts + 1
  d.parts[n] = text
  local _, line = caller_line(2)
  d.where[n] = line
  return d
end

-- a kernel (or device function) of the document, by name: registered so that --kernel, the
-- kernel list and ptxlua --print-ptx see it. A document prints whole (every kernel it holds).
function DOC:func(name, kind)
  local file, line = caller_line(2)
  if kind == "entry" or kind == nil then
    local k = { name = name, target = "?", templates = {}, params = {}, verbatim = self, file = file, line = line, def = {} }
    local reg = P._registry
    reg[#reg + 1] = k
    self.kernels[#self.kernels + 1] = k
  end
  return self
end

-- statements in a function of their own (Lua limits the constants of one function)
function DOC:block(fn) fn(self) return self end

-- register the document even when it holds no .entry (a library of .func, a fragment)
function DOC:done()
  if #self.kernels == 0 then self:func(self.name, "entry") end
  return self
end

-- the PTX text as the document holds it
function DOC:text() return table.concat(self.parts) end

-- the parsed module (what P.build returns for a verbatim document)
function DOC:build()
  local text = self:text()
  local m, err = core.parse(text, self.name)
  if m then return m end
  -- name:line:col: error: msg -> the script line of the statement that holds that PTX line
  local pl, pc, msg = err:match(":(%d+):(%d+): error: (.*)$")
  pl = tonumber(pl)
  if pl then
    local line = 1
    for i, part in ipairs(self.parts) do
      local _, nl = part:gsub("\n", "")
      if pl <= line + nl then
        error(string.format("%s:%d: error: %s (PTX line %d, column %s)", self.file, self.where[i], msg, pl, pc), 0)
      end
      line = line + nl
    end
  end
  error(string.format("%s:%d: error: %s", self.file, self.line, err), 0)
end

return V
