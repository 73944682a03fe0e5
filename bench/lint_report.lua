-- lint_report.lua -- `ptxlua --lint` on a big file of rejected statements: CPU time and the size of
-- the report. The file (about 1.2 MB at the default 10817 statements) cycles through ten kinds of
-- statement ptxas rejects (an unknown modifier, a name's words out of place, a wrong operand count,
-- a type mismatch naming one of 48 registers, a form the target lacks, ...), each with a comment.
--   luajit bench/lint_report.lua [--build DIR] [--exe PTXLUA] [--stmts N] [--runs R]
-- Also a module: require("lint_report").text(n) -> the file's text (tests/spec/lint_report_spec.lua).
local L = {}

local BAD = {
  "ldmatrix.sync.aligned.m8n8.x3.shared.b16 \t{%r1, %r2, %r3, %r4}, [tile];",
  "mul.s32.lo \t%r5, %r6, %r7;",
  "add.s33 \t%r1, %r2, %r3;",
  "mad.lo.s32 \t%r1, %r2, %r3;",
  "atom.global.add.b32 \t%r1, [%rd1], %r2;",
  "add.f32 \t%f1, %u@, %f2;",                       -- @: one of 48 .u32 registers, a message each
  "wgmma.fence.sync.aligned;",
  "ld.global.u32 \t%r1, [16];",
  "cvt.rn.f32.u33 \t%f1, %r1;",
  "setp.lt.s32 \t%p1, %r1;",
}

function L.text(n)
  local out = { ".version 8.5\n.target sm_80\n.address_size 64\n\n.visible .entry many(\n\t.param .u64 many_param_0\n)\n{\n",
                "\t.reg .pred \t%p<4>;\n\t.reg .b32 \t%r<64>;\n\t.reg .u32 \t%u<64>;\n\t.reg .f32 \t%f<8>;\n\t.reg .b64 \t%rd<4>;\n",
                "\t.shared .align 16 .b8 tile[512];\n\n\tld.param.u64 \t%rd1, [many_param_0];\n" }
  for i = 1, n do
    local s = BAD[(i - 1) % #BAD + 1]:gsub("@", tostring(10 + (i * 7) % 48))
    out[#out + 1] = ("\t%s \t// statement %d of the generated file, which ptxas rejects\n"):format(s, i)
  end
  out[#out + 1] = "\tret;\n\n}\n"
  return table.concat(out)
end
L.KINDS = #BAD

if not ... or (...) ~= "lint_report" then           -- run as a script
  local root = arg[0]:match("^(.*)/bench/[^/]*$") or "."
  package.path = root .. "/bench/?.lua;" .. package.path
  local R = require "runstat"
  local build, exe, n, runs = "build", nil, 10817, 3
  local i = 1
  while i <= #arg do
    local a = arg[i]
    if a == "--build" then build = arg[i + 1]; i = i + 2
    elseif a == "--exe" then exe = arg[i + 1]; i = i + 2
    elseif a == "--stmts" then n = tonumber(arg[i + 1]); i = i + 2
    elseif a == "--runs" then runs = tonumber(arg[i + 1]); i = i + 2
    else io.stderr:write("usage: luajit bench/lint_report.lua [--build DIR] [--exe PTXLUA] [--stmts N] [--runs R]\n"); os.exit(2) end
  end
  exe = exe or (build .. "/ptxlua")
  local path = os.tmpname() .. ".ptx"
  local f = assert(io.open(path, "wb")); f:write(L.text(n)); f:close()
  local size = #L.text(n)
  local p = io.popen(("%q --lint %q 2>&1 >/dev/null"):format(exe, path))
  local report = p:read("*a")
  p:close()
  local cpu = {}                                      -- lint exits 1 here: time each run by hand
  local sh = ("exec %q --lint %q 2>/dev/null"):format(exe, path)   -- the report itself is measured above
  for k = 1, runs do cpu[k] = R.run_once({ "/bin/sh", "-c", sh }).cpu end
  table.sort(cpu)
  local errors = 0
  for _ in report:gmatch("error: ") do errors = errors + 1 end
  print(("lint_report: %s, %d statements (%.2f MB): CPU %.3f s (median of %d; min %.3f, max %.3f), report %d bytes, %d error lines")
        :format(exe, n, size / 1e6, cpu[math.floor((runs + 1) / 2)], runs, cpu[1], cpu[runs], #report, errors))
  os.remove(path)
end
return L
