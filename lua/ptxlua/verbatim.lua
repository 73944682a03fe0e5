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
local fmt = string.format

---------------------------------------------------------------------------------------------------
-- kernels of a PTX-in document (ptxlua.verbatim, ptxlua.sugar): what the script's kernel list holds.
-- They launch as ptx.kernel's kernels do (k:launch{...}, rt.launch(k, {...}) on the emulator or a
-- CUDA device, the C API's ptxlua_kernel_prepare): the document's parsed module is what runs. Their
-- parameters are the .param declarations the PTX has, read from the parsed module (k.params, on
-- first use); a .u64/.b64 parameter takes a device array or a number (an address). The block of a
-- kernel with .reqntid defaults to it (and its cluster to .reqnctapercluster).
---------------------------------------------------------------------------------------------------
local PK = {}
PK.__name = "ptxlua.kernel"
PK.__tostring = function(k) return "kernel " .. k.name .. " (read from PTX)" end
PK.__index = function(k, key)
  local v = PK[key]
  if v ~= nil then return v end
  if key == "params" then return k:info().params end
  return nil
end
V.Kernel = PK

local POINTER = { u64 = true, b64 = true }

function V.kernel(doc, name, file, line)
  return setmetatable({ name = name, target = "?", templates = {}, verbatim = doc, file = file, line = line, def = {} }, PK)
end

-- what the parsed module says of the kernel: { params = (the DSL's parameter records), reqntid =,
-- reqnctapercluster = } (kept from the first build)
function PK.info(k)
  local info = rawget(k, "_info")
  if info then return info end
  local m = k.verbatim:build()
  local fi = m:func_info(k.name)
  if not fi or fi.kind ~= "entry" then
    error(fmt("%s:%d: error: the document has no .entry named '%s' to run", k.file, k.line, k.name), 0)
  end
  local params = {}
  for i, p in ipairs(fi.params) do
    local count = p.count ~= 0 and p.count or nil
    params[i] = { p.name, ptype = p.type, align = p.align ~= 0 and p.align or nil, count = count,
                  pointer = (POINTER[p.type] and not count) or nil, ptx = true }
  end
  info = { params = params, reqntid = fi.reqntid, reqnctapercluster = fi.reqnctapercluster }
  rawset(k, "_info", info)
  rawset(k, "params", params)
  return info
end

-- the parsed module (the whole document: every kernel it holds)
function PK.trace(k) return k.verbatim:build() end
function PK.ptx(k) return k.verbatim:build():print() end
-- no templates: nothing to resolve, no grid; the block and cluster the PTX requires
function PK.resolve() return {} end
function PK.launch_dims(k)
  local info = k:info()
  return nil, info.reqntid, info.reqnctapercluster
end
-- dynamic shared memory is the launch's smem (the PTX's extern .shared arrays say no size)
function PK.dynamic_smem_for() return 0 end
-- the script file and line that hold PTX line `line` of the document's text (nil when unknown)
function PK.ptx_where(k, line)
  local map = k.verbatim.linemap
  if not map or type(line) ~= "number" then return nil end
  local lo, hi = 0, #map.starts
  while lo < hi do
    local mid = math.floor((lo + hi + 1) / 2)
    if map.starts[mid] <= line then lo = mid else hi = mid - 1 end
  end
  if lo == 0 then return nil end
  return map.files and map.files[lo] or k.verbatim.file, map.lines[lo]
end
-- ptx.kernel's k:launch and k:bench (tail calls: errors name the caller's line)
PK.launch, PK.bench = P._launch, P._bench

-- anchor the parsed module m at the script lines of map ({ starts = PTX lines, lines = script
-- lines [, files = script files] }) and keep the map for PK.ptx_where
function V.reanchor(doc, m, map)
  doc.linemap = map
  m:reanchor(doc.file, map.starts, map.lines, map.files or false, map.bytes)
  return m
end

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
    local k = V.kernel(self, name, file, line)
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
  -- part i (a statement) starts on PTX line starts[i] and is written at script line lines[i]: the
  -- parsed module's anchors (the emulator reports there) and the parser's errors go there
  -- (bytes[i]: the text offset it starts at, which places statements that share a PTX line)
  local starts, lines, bytes, pl, off = {}, {}, {}, 1, 0
  for i, part in ipairs(self.parts) do
    starts[i], lines[i], bytes[i] = pl, self.where[i], off
    local _, nl = part:gsub("\n", "")
    pl, off = pl + nl, off + #part
  end
  local map = { starts = starts, lines = lines, bytes = bytes }
  local m, err = core.parse(self:text(), self.name)
  if m then return V.reanchor(self, m, map) end
  V.parse_error(self, map, err, "")
end

-- a parse error of document doc (its text's lines mapped by map, as V.reanchor's), raised at the
-- script line that holds the PTX statement in error: the one on the line the parser names, or the
-- one it says the error is in when that starts on an earlier line (a statement that lacks its ';'
-- runs into the next; the parser reports a missing ';' after the last token of the statement)
function V.parse_error(doc, map, err, what)
  local pl, pc, msg = err:match(":(%d+):(%d+): error: (.*)$")
  if pl then
    local sl = msg:match("%(in the statement that starts on line (%d+)%)$")
    local f, l = PK.ptx_where({ verbatim = { linemap = map, file = doc.file } }, tonumber(sl or pl))
    if f then error(fmt("%s:%d: error: %s%s (PTX line %s, column %s)", f, l, what, msg, pl, pc), 0) end
  end
  error(fmt("%s:%d: error: %s%s", doc.file, doc.line, what, err), 0)
end

return V
