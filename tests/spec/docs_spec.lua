-- docs_spec.lua -- every snippet of docs/*.md, and the runnable parts of README.md, run and checked.
--
-- The convention of docs/*.md (docs/design.md, "Testing the docs", sums it up for writers).
--
-- Each doc runs top to bottom in its own sandbox: a temporary directory that mirrors the
-- repository root (one symlink per top-level entry) with build/ pointing at the build under test,
-- so that commands run exactly as the doc shows them. Annotations are HTML comments on the lines
-- right before a fence: <!-- file: NAME -->, <!-- args: ARGS -->, <!-- skip: WHY -->,
-- <!-- no-ptxas: WHY -->, <!-- excerpt: PATH -->, <!-- figure -->. A fence is one of:
--
--   ```lua  a complete script, saved in the sandbox as example.lua (as NAME with `file: NAME`).
--           If the next fence is ```sh, that command runs it (and must name the file). Otherwise it
--           runs as `build/ptxlua NAME --print-ptx ARGS` (`args: ARGS`, default none) and must exit
--           0 -- unless its output block is an error example (below).
--   ```c    saved as NAME (`file: NAME` is required); the next fence must be the ```sh that builds it.
--           ```cpp is the same (C++ source).
--   ```sh   a bash script run in the sandbox, ptxas on the PATH; it must exit 0. With `skip: WHY`
--           it is not run, but every word of it holding a '/' must be an existing path.
--   ```text / ```ptx right after a runnable fence (prose between is fine): its expected output.
--           text: compared with stdout followed by stderr, exactly but for trailing blanks at the
--           end; a line `...` stands for any number of lines. After a ```lua fence, a text block
--           whose first line is `FILE:LINE: error: ...` is an error example: the script must exit
--           with status 1 and print exactly this on standard error.
--           ptx: if it starts with `//`, the whole output, exactly. If it starts with a declaration
--           (.reg, .shared, .extern, .local), the body of the one function (the lines between `{`
--           and `}`); otherwise the instruction and label lines of that body. Body lines compare
--           with leading and trailing blanks dropped, inner runs of blanks as one space, blank lines
--           ignored. The printed PTX is then assembled by ptxas for its .target (pending when there
--           is no ptxas, an error under CI) unless `no-ptxas: WHY` stands before the ```ptx fence.
--   any fence after `excerpt: PATH`: its lines must appear in PATH, adjacent and in order (blanks
--           normalized as for ptx bodies). It is not run.
--   any fence after `figure`: a figure, not run. Any other fence is an error.
--
-- README.md belongs to the lead and carries no annotations; it is checked by what it says: its
-- ```sh commands run in a sandbox (tests/bootstrap.sh, which installs packages, and tests/run.sh,
-- which runs this suite, are only checked to exist and be executable); its ```lua script is saved
-- under the name its `build/ptxlua NAME.lua` command uses, printed, assembled, and printed again
-- with every option the following paragraph names in backticks; an error it shows (a ```text block
-- `NAME:LINE: error: ...` followed by a source line) must be what the script prints when that line
-- is put at LINE; every path it names in backticks must exist.
--
-- A failure names the doc file and the line of the fence.
local H = require "helper"

local function shq(s) return H.shq(s) end

local ROOT = (function()
  local out = H.sh("cd " .. shq(H.root) .. " && pwd")
  return (out:gsub("%s+$", ""))
end)()
local BUILD = (function()
  local out = H.sh("cd " .. shq(H.build) .. " && pwd")
  return (out:gsub("%s+$", ""))
end)()

---------------------------------------------------------------------------------------------------
-- markdown
---------------------------------------------------------------------------------------------------
-- blocks of a markdown text: { lang, info, text, line, notes = {key = value}, prose_before, prose_after }
local function parse_md(text)
  local lines = {}
  for l in (text .. "\n"):gmatch("(.-)\r?\n") do lines[#lines + 1] = l end
  local blocks, i, prose = {}, 1, {}
  while i <= #lines do
    local l = lines[i]
    local fence, info = l:match("^(```+)%s*(.-)%s*$")
    if fence then
      local body, j = {}, i + 1
      while j <= #lines and not lines[j]:match("^" .. fence .. "%s*$") do body[#body + 1] = lines[j]; j = j + 1 end
      if j > #lines then error(string.format("line %d: unclosed fence", i)) end
      local notes, k = {}, i - 1
      while k >= 1 and lines[k]:match("^%s*<!%-%-.*%-%->%s*$") do
        local key, val = lines[k]:match("^%s*<!%-%-%s*([%w%-]+)%s*:?%s*(.-)%s*%-%->%s*$")
        if key then notes[key] = val end
        k = k - 1
      end
      local b = { lang = info:match("^(%S*)"), info = info, text = table.concat(body, "\n"), lines = body,
                  line = i, notes = notes, prose_before = table.concat(prose, "\n") }
      if #blocks > 0 then blocks[#blocks].prose_after = b.prose_before end
      blocks[#blocks + 1] = b
      prose = {}
      i = j + 1
    else
      prose[#prose + 1] = l
      i = i + 1
    end
  end
  if #blocks > 0 then blocks[#blocks].prose_after = table.concat(prose, "\n") end
  return blocks
end

---------------------------------------------------------------------------------------------------
-- comparing
---------------------------------------------------------------------------------------------------
local function split(s)
  local t = {}
  for l in (s .. "\n"):gmatch("(.-)\n") do t[#t + 1] = l end
  return t
end
local function rtrim(s) return (s:gsub("%s+$", "")) end
local function norm(l) return (l:gsub("^%s+", ""):gsub("%s+$", ""):gsub("%s+", " ")) end

-- expected lines (with `...` wildcards) against actual lines
local function match_lines(exp, act, ei, ai)
  ei, ai = ei or 1, ai or 1
  while ei <= #exp do
    if exp[ei] == "..." then
      for k = ai, #act + 1 do if match_lines(exp, act, ei + 1, k) then return true end end
      return false
    end
    if ai > #act or exp[ei] ~= act[ai] then return false end
    ei, ai = ei + 1, ai + 1
  end
  return ai == #act + 1
end

local function show_diff(exp, act)
  local e, a = split(exp), split(act)
  local n = 1
  while n <= #e and n <= #a and (e[n] == a[n] or e[n] == "...") do n = n + 1 end
  return string.format("first difference at line %d of the block:\n  expected: %s\n  actual:   %s\n--- actual output ---\n%s\n---",
                       n, tostring(e[n]), tostring(a[n]), act)
end

local function text_equal(expected, actual)
  local e, a = split(rtrim(expected)), split(rtrim(actual))
  for i = 1, #a do a[i] = rtrim(a[i]) end
  for i = 1, #e do e[i] = rtrim(e[i]) end
  return match_lines(e, a)
end

local DECL = { ["%.reg"] = 1, ["%.shared"] = 1, ["%.extern"] = 1, ["%.local"] = 1 }
local function is_decl(l)
  for p in pairs(DECL) do if l:match("^" .. p .. "[%s]") then return true end end
  return false
end

-- the lines of the one function body in a PTX text, normalized; nil, why if there is not one
local function ptx_body(text)
  local body, depth, n = {}, 0, 0
  for l in (text .. "\n"):gmatch("(.-)\n") do
    if l == "{" then depth = depth + 1; n = n + 1
    elseif l == "}" then depth = depth - 1
    elseif depth > 0 then
      local t = norm(l)
      if t ~= "" then body[#body + 1] = t end
    end
  end
  if n ~= 1 then return nil, string.format("the output holds %d function bodies; show it whole (a block starting with //)", n) end
  return body
end

-- compare a ```ptx block with printed PTX; true or false, message
local function ptx_equal(block, actual)
  local first = norm(block:match("^%s*([^\n]*)") or "")
  if first:sub(1, 2) == "//" then
    if rtrim(block) == rtrim(actual) then return true end
    return false, show_diff(rtrim(block), rtrim(actual))
  end
  local body, why = ptx_body(actual)
  if not body then return false, why end
  local want = {}
  for l in (block .. "\n"):gmatch("(.-)\n") do local t = norm(l); if t ~= "" then want[#want + 1] = t end end
  local have = body
  if not is_decl(first) then
    have = {}
    for _, l in ipairs(body) do if not is_decl(l) then have[#have + 1] = l end end
  end
  local ws, hs = table.concat(want, "\n"), table.concat(have, "\n")
  if ws == hs then return true end
  return false, show_diff(ws, hs)
end

-- is the fenced text an excerpt of the file (adjacent lines, normalized)?
local function is_excerpt(text, path)
  local file = H.read(path)
  if not file then return false, "cannot read " .. path end
  local want, have = {}, {}
  for _, l in ipairs(split(text)) do local t = norm(l); if t ~= "" then want[#want + 1] = t end end
  for _, l in ipairs(split(file)) do local t = norm(l); if t ~= "" then have[#have + 1] = t end end
  for s = 1, #have - #want + 1 do
    local ok = true
    for k = 1, #want do if have[s + k - 1] ~= want[k] then ok = false; break end end
    if ok then return true end
  end
  return false, "these lines are not (any more) in " .. path .. ":\n" .. text
end

---------------------------------------------------------------------------------------------------
-- running
---------------------------------------------------------------------------------------------------
local function ptxas_dir()
  local p = H.ptxas_path()
  return p and p:match("^(.*)/[^/]*$") or nil
end

-- a fresh directory mirroring the repository root, build/ being the build under test
local function sandbox()
  local dir = H.tmpfile(".sandbox")
  local cmd = { "mkdir -p " .. shq(dir) }
  local ls = H.sh("ls -A " .. shq(ROOT))
  for name in ls:gmatch("[^\n]+") do
    if name ~= ".git" and not name:match("^build") then
      cmd[#cmd + 1] = string.format("ln -s %s %s", shq(ROOT .. "/" .. name), shq(dir .. "/" .. name))
    end
  end
  cmd[#cmd + 1] = string.format("ln -s %s %s", shq(BUILD), shq(dir .. "/build"))
  -- a sanitizer build's library links only with the sanitizer runtimes: cc says so for the docs
  local cache = H.read(BUILD .. "/CMakeCache.txt") or ""
  if cache:match("PTXLUA_SANITIZE:BOOL=ON") then
    cmd[#cmd + 1] = "mkdir -p " .. shq(dir .. "/.tools")
    H.write(dir .. ".cc", '#!/bin/sh\nexec "$(command -v -p cc)" "$@" -fsanitize=address,undefined\n')
    cmd[#cmd + 1] = string.format("cp %s %s && chmod +x %s", shq(dir .. ".cc"), shq(dir .. "/.tools/cc"), shq(dir .. "/.tools/cc"))
  end
  local _, err, rc = H.sh(table.concat(cmd, " && "))
  assert(rc == 0, "cannot make a sandbox: " .. err)
  return dir
end

local function run_in(dir, script)
  local f = H.write(H.tmpfile(".sh"), script .. "\n")
  local path = { dir .. "/.tools" }
  if ptxas_dir() then path[#path + 1] = ptxas_dir() end
  local env = "PATH=" .. shq(table.concat(path, ":")) .. ":\"$PATH\" "
  return H.sh(string.format("cd %s && %sbash %s", shq(dir), env, shq(f)))
end

local function words(s)
  local t = {}
  for w in s:gmatch("[^%s;&|()<>]+") do t[#t + 1] = w end
  return t
end

-- assemble printed PTX with ptxas, in the `it` that asks (H.assemble marks that test pending)
local function target_of(text) return text:match("\n%.target%s+([%w_]+)") or "sm_90a" end

---------------------------------------------------------------------------------------------------
-- docs/*.md
---------------------------------------------------------------------------------------------------
local DOCS = {}
do
  local ls = H.sh("ls " .. shq(ROOT .. "/docs") .. "/*.md 2>/dev/null")
  for path in ls:gmatch("[^\n]+") do DOCS[#DOCS + 1] = path:match("(docs/[^/]+)$") end
  table.sort(DOCS)
end

local RUNNABLE = { lua = true, sh = true, c = true, cpp = true }
local OUTPUT = { text = true, ptx = true }

describe("docs", function()
  it("are there: guide, dsl and design", function()
    for _, d in ipairs { "docs/guide.md", "docs/dsl.md", "docs/design.md" } do
      assert.is_truthy(H.read(ROOT .. "/" .. d), d .. " is missing")
    end
  end)

  it("design.md names every file of src/", function()
    local text = assert(H.read(ROOT .. "/docs/design.md"))
    local pats = {}
    for tok in text:gmatch("`(src/[^`%s]+)`") do
      pats[#pats + 1] = "^" .. tok:gsub("[%.%-%+%?%(%)%[%]%^%$]", "%%%0"):gsub("%*", ".*") .. "$"
    end
    local missing = {}
    local ls = H.sh("cd " .. shq(ROOT) .. " && find src -type f | LC_ALL=C sort")
    for name in ls:gmatch("[^\n]+") do
      local covered = false
      for _, p in ipairs(pats) do if name:match(p) then covered = true end end
      if not covered then missing[#missing + 1] = name end
    end
    assert(#missing == 0, "docs/design.md (section 1) does not name: " .. table.concat(missing, ", "))
  end)

  for _, doc in ipairs(DOCS) do
    describe(doc, function()
      local blocks = parse_md(assert(H.read(ROOT .. "/" .. doc)))
      local dir -- the sandbox of this doc, made on first use
      local function box() dir = dir or sandbox(); return dir end

      -- attach outputs, and check that every fence has a role
      local role = {}
      for i, b in ipairs(blocks) do
        if b.notes.excerpt or b.notes.figure then role[i] = "static"
        elseif RUNNABLE[b.lang] then
          role[i] = "run"
          local o = blocks[i + 1]
          if o and OUTPUT[o.lang] and not o.notes.figure and not o.notes.excerpt then b.output = o; role[i + 1] = "output" end
        elseif not role[i] then role[i] = "orphan" end
      end

      for i, b in ipairs(blocks) do
        local where = string.format("%s:%d", doc, b.line)
        if role[i] == "orphan" then
          it(where .. ": ```" .. b.info .. " has a role", function()
            error(where .. ": a ```" .. b.info .. " block that is not run: it must follow a runnable block, or carry <!-- figure --> or <!-- excerpt: PATH -->", 0)
          end)
        elseif role[i] == "static" and b.notes.excerpt then
          it(where .. ": excerpt of " .. b.notes.excerpt, function()
            local ok, why = is_excerpt(b.text, ROOT .. "/" .. b.notes.excerpt)
            assert(ok, where .. ": " .. tostring(why))
          end)
        elseif role[i] == "run" and b.lang == "lua" then
          local name = b.notes.file or "example.lua"
          local nxt = blocks[i + 1]
          if nxt and nxt.lang == "sh" and not b.output then
            it(where .. ": " .. name .. " (run by the next ```sh)", function()
              H.write(box() .. "/" .. name, b.text .. "\n")
              assert(nxt.text:find(name, 1, true), where .. ": the ```sh block after it does not run " .. name)
            end)
          else
            it(where .. ": ptxlua " .. name .. (b.notes.args and (" " .. b.notes.args) or ""), function()
              local d = box()
              H.write(d .. "/" .. name, b.text .. "\n")
              local ok, out, err, rc = true, nil, nil, nil
              out, err, rc = run_in(d, "build/ptxlua " .. shq(name) .. " --print-ptx " .. (b.notes.args or ""))
              local o = b.output
              local is_err = o and o.lang == "text" and o.lines[1] and o.lines[1]:match("^%S+:%d+: error: ")
              if is_err then
                assert(rc == 1, string.format("%s: expected the script to fail with exit status 1, got %d\n%s%s", where, rc, out, err))
                assert(text_equal(o.text, err), where .. ": the error differs from the block at line " .. o.line .. "\n" .. show_diff(o.text, err))
                return
              end
              assert(rc == 0, string.format("%s: ptxlua exited with %d:\n%s", where, rc, err))
              if not o then return end
              if o.lang == "text" then
                ok = text_equal(o.text, out .. err)
                assert(ok, where .. ": output differs from the block at line " .. o.line .. "\n" .. show_diff(o.text, out .. err))
              else
                local same, why = ptx_equal(o.text, out)
                assert(same, where .. ": PTX differs from the block at line " .. o.line .. "\n" .. tostring(why))
                if not o.notes["no-ptxas"] then
                  local assembled, report = H.assemble(out, target_of(out))
                  if assembled ~= nil then assert(assembled, where .. ": ptxas rejects the PTX:\n" .. tostring(report)) end
                end
              end
            end)
          end
        elseif role[i] == "run" and (b.lang == "c" or b.lang == "cpp") then
          it(where .. ": " .. tostring(b.notes.file) .. " (built by the next ```sh)", function()
            assert(b.notes.file, where .. ": a ```" .. b.lang .. " block needs <!-- file: NAME -->")
            local nxt = blocks[i + 1]
            assert(nxt and nxt.lang == "sh" and nxt.text:find(b.notes.file, 1, true), where .. ": the next block must be the ```sh that builds " .. b.notes.file)
            H.write(box() .. "/" .. b.notes.file, b.text .. "\n")
          end)
        elseif role[i] == "run" and b.lang == "sh" then
          if b.notes.skip then
            it(where .. ": (not run: " .. b.notes.skip .. ") its paths exist", function()
              for _, w in ipairs(words(b.text)) do
                if w:find("/", 1, true) and not w:match("^%-") then
                  local _, _, rc = H.sh("cd " .. shq(box()) .. " && test -e " .. shq(w))
                  assert(rc == 0, where .. ": " .. w .. " does not exist")
                end
              end
            end)
          else
            it(where .. ": sh " .. (b.lines[1] or ""), function()
              if b.text:match("%f[%w]ptxas%f[^%w]") and not H.ptxas_path() then
                if H.ci then error("ptxas not found (CI requires the CUDA toolkit)") end
                pending("ptxas not found")
              end
              local out, err, rc = run_in(box(), b.text)
              assert(rc == 0, string.format("%s: exit status %d\n%s%s", where, rc, out, err))
              local o = b.output
              if not o then return end
              if o.lang == "text" then
                assert(text_equal(o.text, out .. err), where .. ": output differs from the block at line " .. o.line .. "\n" .. show_diff(o.text, out .. err))
              else
                local same, why = ptx_equal(o.text, out)
                assert(same, where .. ": PTX differs from the block at line " .. o.line .. "\n" .. tostring(why))
                if not o.notes["no-ptxas"] then
                  local assembled, report = H.assemble(out, target_of(out))
                  if assembled ~= nil then assert(assembled, where .. ": ptxas rejects the PTX:\n" .. tostring(report)) end
                end
              end
            end)
          end
        end
      end
    end)
  end
end)

---------------------------------------------------------------------------------------------------
-- README.md
---------------------------------------------------------------------------------------------------
local README = H.read(ROOT .. "/README.md")

describe("README.md", function()
  if not README then
    it("(there is no README.md)", function() end)
    return
  end
  local blocks = parse_md(README)
  local dir
  local function box() dir = dir or sandbox(); return dir end

  for i, b in ipairs(blocks) do
    local where = string.format("README.md:%d", b.line)
    if b.lang == "sh" then
      local cmds = {}
      for line in (b.text .. "\n"):gmatch("(.-)\n") do
        for c in (line .. "&&"):gmatch("%s*(.-)%s*&&") do if c ~= "" then cmds[#cmds + 1] = c end end
      end
      for _, c in ipairs(cmds) do
        local script = c:match("^(tests/bootstrap%.sh)%f[%s%z]") or c:match("^(tests/run%.sh)%f[%s%z]")
        if script then
          it(where .. ": " .. c .. " (not run) exists", function()
            local _, _, rc = H.sh("test -x " .. shq(ROOT .. "/" .. script))
            assert(rc == 0, where .. ": " .. script .. " is not an executable file")
          end)
        else
          it(where .. ": " .. c, function()
            local out, err, rc = run_in(box(), c)
            assert(rc == 0, string.format("%s: `%s` exits with %d\n%s", where, c, rc, err))
            assert(#out > 0, where .. ": `" .. c .. "` prints nothing")
          end)
        end
      end
    elseif b.lang == "lua" then
      local after = b.prose_after or ""
      local name = after:match("build/ptxlua%s+([%w_%-%.]+%.lua)") or "example.lua"
      it(where .. ": " .. name .. " prints and assembles", function()
        local d = box()
        H.write(d .. "/" .. name, b.text .. "\n")
        local out, err, rc = run_in(d, "build/ptxlua " .. shq(name) .. " --print-ptx")
        assert(rc == 0, where .. ": " .. err)
        local assembled, report = H.assemble(out, target_of(out))
        if assembled ~= nil then assert(assembled, where .. ": ptxas rejects the PTX:\n" .. tostring(report)) end
      end)
      -- the options the paragraph after it names: `-D BLOCK=128`, `--arch sm_100a`, `-o FILE`, ...
      for opt in after:gmatch("`(%-[^`]*)`") do
        it(where .. ": " .. name .. " " .. opt, function()
          local d = box()
          H.write(d .. "/" .. name, b.text .. "\n")
          local args = opt
          local ofile = opt:match("^%-o%s+(%S+)$")
          if ofile then args = "-o " .. shq(d .. "/readme-out.ptx") end
          local out, err, rc = run_in(d, "build/ptxlua " .. shq(name) .. " " .. args)
          assert(rc == 0, string.format("%s: `ptxlua %s %s` exits with %d\n%s", where, name, opt, rc, err))
          if ofile then
            local plain = run_in(d, "build/ptxlua " .. shq(name) .. " --print-ptx")
            assert.are.equal(plain, H.read(d .. "/readme-out.ptx"))
          else
            assert(out:find(".entry", 1, true), where .. ": no PTX printed")
          end
        end)
      end
    elseif b.lang == "text" and b.lines[1] and b.lines[1]:match("^%S+%.lua:%d+: error: ") then
      it(where .. ": the error example is what ptxlua prints", function()
        local file, ln = b.lines[1]:match("^(%S+%.lua):(%d+): error: ")
        ln = tonumber(ln)
        local src = b.lines[2] and b.lines[2]:match("^  (.*)$")
        assert(src, where .. ": the source line should follow the message")
        -- the script: the last ```lua block before this one, saved as `file`
        local script
        for k = i - 1, 1, -1 do if blocks[k].lang == "lua" then script = blocks[k]; break end end
        assert(script, where .. ": no ```lua block before the error example")
        local lines = split(script.text)
        assert(lines[ln], where .. ": the script has no line " .. ln)
        lines[ln] = src
        local d = box()
        H.write(d .. "/" .. file, table.concat(lines, "\n") .. "\n")
        local _, err, rc = run_in(d, "build/ptxlua " .. shq(file) .. " --print-ptx")
        assert(rc == 1, where .. ": expected exit status 1, got " .. rc)
        assert(text_equal(b.text, err), where .. ": the error differs\n" .. show_diff(b.text, err))
      end)
    end
  end

  it("names only paths that exist", function()
    local missing = {}
    local seen = {}
    for tok in README:gmatch("`([^`\n]+)`") do
      if not tok:find("%s") and tok:find("/", 1, true) and tok:match("^[%w_%.%-/]+$") and not seen[tok] then
        seen[tok] = true
        local _, _, rc = H.sh("cd " .. shq(box()) .. " && test -e " .. shq(tok))
        if rc ~= 0 then missing[#missing + 1] = tok end
      end
    end
    -- and the commands' scripts: build/ptxlua kernels/X.lua
    for path in README:gmatch("build/ptxlua%s+(kernels/[%w_%-]+%.lua)") do
      if not seen[path] then
        seen[path] = true
        local _, _, rc = H.sh("test -e " .. shq(ROOT .. "/" .. path))
        if rc ~= 0 then missing[#missing + 1] = path end
      end
    end
    assert(#missing == 0, "README.md names paths that do not exist: " .. table.concat(missing, ", "))
  end)
end)
