-- real_ptx_spec.lua -- the linter on real compiler output: the PTX nvcc 13.0 writes for the CUDA
-- sources in tests/cuda/real (templates, inline PTX with { } scopes, cooperative groups, warp-level
-- primitives, atomics with memory orders, ldmatrix/stmatrix/mma, wmma of every type, TMA/mbarrier/
-- wgmma, tcgen05 and cluster launch control, calls through function pointers, -G, -lineinfo, -rdc;
-- sm_80, sm_90a, sm_100a/f, sm_103a, sm_110a/f, sm_120a),
-- checked in under tests/cuda/real/ptx by tests/cuda/real/make.sh (compiling them all takes about
-- 40 s). Every file: ptxas assembles it, `ptxlua --lint` is silent on it, and --from-ptx prints it
-- back byte for byte. Where nvcc is installed, a few are compiled again and must come out the same.
-- Also the corpus (../shared/corpus/pyptx): every file ptxas accepts lints clean.
local H = require "helper"

local DIR = H.root .. "/tests/cuda/real"

local function files()
  local out = {}
  local p = io.popen("ls " .. H.shq(DIR .. "/ptx") .. "/*.ptx 2>/dev/null")
  for f in p:lines() do out[#out + 1] = f end
  p:close()
  table.sort(out)
  return out
end

-- the .target of a PTX text ("sm_80" of ".target sm_80, debug")
local function target(text) return text:match("\n%.target%s+([%w_]+)") end

-- what make.sh builds: { source, target, flags, file }
local function listed()
  local out = {}
  local text = H.read(DIR .. "/make.sh")
  local list = text:match("<<'LIST'\n(.-)\nLIST")
  for line in list:gmatch("[^\n]+") do
    local src, arch, flags = line:match("^(%S+)%s+(%S+)%s*(.-)%s*$")
    local tag = flags:gsub("%-rdc=true", "rdc"):gsub("%-D[A-Z]*", ""):gsub("%-lineinfo", "lineinfo"):gsub("%-G", "G"):gsub(" ", "")
    out[#out + 1] = { src = src, arch = arch, flags = flags,
                      file = DIR .. "/ptx/" .. src:gsub("%.cu$", "") .. "." .. arch .. (tag ~= "" and "." .. tag or "") .. ".ptx" }
  end
  return out
end

describe("real compiler output (tests/cuda/real)", function()
  local FILES = files()

  it("is checked in for every source, target and flag make.sh lists, and nothing else", function()
    local want = {}
    for _, e in ipairs(listed()) do
      want[e.file] = true
      assert(H.read(e.file), "missing (run tests/cuda/real/make.sh): " .. e.file)
    end
    for _, f in ipairs(FILES) do assert(want[f], "not listed in make.sh: " .. f) end
    assert.is_true(#FILES >= 25)
  end)

  it("covers what the projects use: every target, -G, -lineinfo, -rdc, and the instruction families", function()
    local all, targets = {}, {}
    for _, f in ipairs(FILES) do
      local t = H.read(f)
      all[#all + 1] = t
      targets[target(t)] = true
    end
    for _, t in ipairs { "sm_80", "sm_90a", "sm_100a", "sm_120a" } do assert(targets[t], "no file for " .. t) end
    local text = table.concat(all)
    for _, want in ipairs {
      ".target sm_80, debug", "\t.loc\t", ".callprototype", "call.uni", "ldmatrix.sync.aligned.x4.m8n8.shared.b16",
      "stmatrix.sync.aligned.x2.m8n8.shared.b16", "atom.add.release.gpu.global.s32", "red.and.release.cta.global.b32",
      "wmma.mma.sync.aligned.row.col.m8n8k4.f64.f64.f64.f64.rn", "wmma.load.a.sync.aligned.row.m8n8k32.global.s4",
      "wmma.mma.and.popc.sync.aligned.row.col.m8n8k128.s32.b1.b1.s32", "mma.sync.aligned.m16n8k32.row.col.kind::f8f6f4",
      "wgmma.mma_async.sync.aligned.m64n64k16.f32.bf16.bf16", "cp.async.bulk.tensor.2d.shared::cluster.global",
      "mbarrier.try_wait.parity", "setmaxnreg.inc.sync.aligned.u32", "elect.sync", "griddepcontrol.wait",
      "atom.cas.acq_rel.gpu.b32", "atom.add.relaxed.gpu.s32", "fence.sc.sys", "redux.sync", "match.any.sync", "cp.async.cg.shared.global.L2::128B",
      ".extern .func", "vprintf", "malloc",
      -- Blackwell (blackwell.cu): the block-scaled, sparse, .ws and .ashift MMAs, CLC, TMA .cta_group
      "tcgen05.mma.cta_group::1.kind::mxf8f6f4.block_scale.block32", "tcgen05.mma.sp.cta_group::1.kind::f8f6f4",
      "tcgen05.mma.ws.cta_group::1.kind::f16.collector::b1::use", "tcgen05.mma.cta_group::1.kind::tf32.ashift",
      "tcgen05.cp.cta_group::1.32x128b.warpx4.b8x16.b4x16_p64", "clusterlaunchcontrol.try_cancel.async",
      "clusterlaunchcontrol.query_cancel.get_first_ctaid.v4.b32.b128", "ld.shared.b128",
      "mbarrier::complete_tx::bytes.cta_group::2", "tcgen05.mma.cta_group::2.kind::f16",
      ".target sm_110a", ".target sm_103a", ".target sm_100f",
    } do
      assert(text:find(want, 1, true), "no file holds " .. want)
    end
  end)

  it("assembles with ptxas, lints clean and prints back byte for byte", function()
    local problems = {}
    for _, f in ipairs(FILES) do
      local text = H.read(f)
      local base = f:match("([^/]+)%.ptx$")
      local ok, out = H.assemble(text, target(text), f:find("rdc", 1, true) and "-c" or nil)
      if ok == false then problems[#problems + 1] = base .. ": ptxas: " .. tostring(out) end
      local _, err, rc = H.ptxlua { "--lint", f }
      if rc ~= 0 or err ~= "" then problems[#problems + 1] = base .. ": lint: " .. err end
      local rt, why = pcall(H.transpile, text, base, "plain")
      if not rt then problems[#problems + 1] = base .. ": round trip: " .. tostring(why) end
    end
    assert(#problems == 0, #problems .. " problems:\n  " .. table.concat(problems, "\n  "))
  end)

  it("is what this nvcc writes (a few of the files compiled again)", function()
    local _, _, rc = H.sh("command -v nvcc")
    if rc ~= 0 then
      assert(not H.ci, "nvcc is required under CI=true")
      return H.pending("nvcc is not installed")
    end
    local ver = H.sh("nvcc --version"):match("release ([%d.]+)")
    for _, e in ipairs(listed()) do
      -- files without -G and -lineinfo: those name the source by its absolute path (the clone's)
      if (e.src == "calls.cu" and e.flags == "" and e.arch == "sm_80") or (e.src == "mma_asm.cu" and e.arch == "sm_90a") then
        local kept = H.read(e.file)
        local kver = kept:match("Cuda compilation tools, release ([%d.]+)")
        if kver ~= ver then return H.pending(("nvcc %s here, the files are from %s"):format(tostring(ver), tostring(kver))) end
        local out = H.tmpfile(".ptx")
        local _, err, nrc = H.sh(("cd %s && env -u LD_PRELOAD nvcc -ptx -arch=%s %s %s -o %s"):format(H.shq(DIR), e.arch, e.flags,
                                                                                                   e.src, H.shq(out)))
        assert(nrc == 0, e.src .. ": nvcc: " .. err)
        assert(H.read(out) == kept, e.file .. " is not what nvcc writes now: run tests/cuda/real/make.sh")
      end
    end
  end)
end)

describe("the pyptx corpus", function()
  it("lints clean wherever ptxas accepts the file", function()
    local corpus = H.root .. "/../shared/corpus/pyptx"
    local tsv = H.read(corpus .. "/PTXAS-VERDICTS.tsv")
    if not tsv then return H.pending("the corpus is absent (../shared/corpus)") end
    local bad, n = {}, 0
    for line in tsv:gmatch("[^\n]+") do
      local f, rc = line:match("^([^#\t][^\t]*)\t[^\t]+\t(%d+)")
      if f and rc == "0" then
        n = n + 1
        local _, err, lrc = H.ptxlua { "--lint", corpus .. "/" .. f }
        if lrc ~= 0 then bad[#bad + 1] = f .. ": " .. err end
      end
    end
    assert.is_true(n > 50)
    assert(#bad == 0, #bad .. " of " .. n .. " files ptxas accepts are rejected:\n  " .. table.concat(bad, "\n  "))
  end)
end)
