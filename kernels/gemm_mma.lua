-- gemm_mma.lua -- C = A * B^T on the tensor cores: A M x K, B N x K (both row-major bf16), C M x N f32.
-- mma.sync.aligned.m16n8k16.row.col.f32.bf16.bf16.f32, fed by ldmatrix.x4 from shared memory that
-- cp.async (16 bytes, .cg) fills STAGES k-tiles ahead.
--
-- Tiling: a CTA computes a BM x BN tile of C with (BM/WM) x (BN/WN) warps; a warp owns a WM x WN
-- tile: (WM/16) x (WN/8) mma tiles, four f32 accumulators each per thread. The K loop is a real
-- PTX loop over k-tiles of BK (one bar.sync per tile); the warp tile and the k-steps of 16 inside
-- a k-tile are unrolled by Lua. The 1-D grid walks the tiles of C GROUP tile-rows at a time
-- (GROUP = 1: row by row), for L2 reuse.
--
-- Templates: M, N, K the shape; BM, BN, BK the CTA tile; WM, WN the warp tile; STAGES the depth of
-- the cp.async pipeline; GROUP the tile-rows of the grid walk. Every combination that does not fit
-- (tiles not multiples of 16, more than 1024 threads, more than 48 KB of static shared memory,
-- pieces that do not split evenly over the threads, over 128 accumulators) is an error naming it.
--
-- Shared memory: STAGES stages of [A tile BM x BK | B tile BN x BK], rows of BK bf16 (BK/8 pieces of
-- 16 bytes). Piece c of row r is stored at piece c ^ f(r), f(r) = (r >> SH) & FM, which puts the 8
-- rows an ldmatrix phase reads (and the rows a warp's cp.async writes) in 8 different 16-byte
-- bank groups: no bank conflicts and no padding.
--
-- Fragments (PTX ISA, mma.m16n8k16, g = lane >> 2, q = lane & 3):
--   A: reg0 = A[g][2q..2q+1], reg1 = A[g+8][2q..], reg2 = A[g][2q+8..], reg3 = A[g+8][2q+8..]
--      = ldmatrix.x4 of the 8x8 blocks (rows 0-7, k 0-7), (rows 8-15, k 0-7), (rows 0-7, k 8-15),
--        (rows 8-15, k 8-15); lane l gives the address of row l & 15, k (l >> 4) * 8.
--   B: reg0 = B^T[n=g][k=2q..2q+1], reg1 = B^T[g][2q+8..]: B's rows are the n of the mma, so one
--      ldmatrix.x4 (no .trans) gives two n8 tiles: blocks (n 0-7, k 0-7), (n 0-7, k 8-15),
--      (n 8-15, k 0-7), (n 8-15, k 8-15); lane l gives row (l & 7) + (l >> 4) * 8, k ((l >> 3) & 1) * 8.
--   C: c0, c1 = C[g][2q], C[g][2q+1]; c2, c3 = C[g+8][2q], C[g+8][2q+1].
--
-- Shapes: any M, N >= 1, K >= 8 with K % 8 == 0 (16-byte rows for cp.async). Partial tiles at the
-- M, N and K edges are zero-filled in shared memory (cp.async with src-size 0, source clamped to
-- the matrix start) and C is stored under bounds guards; shapes that fill every tile get neither.
-- A, B, C must be 16-byte aligned.
-- (sm_80 and later; kernels/gemm.lua is the Hopper TMA + wgmma GEMM.)
-- ptxas (CUDA 13.0, sm_90a) at the defaults (128 x 128 x 32 tiles, 8 warps of 64 x 32, 3 stages):
-- 256 threads, 100 registers, 49152 bytes of shared memory, no spills; 4096 CTAs.
local ptx = require "ptxlua"

local function log2(x) local n = 0; while x > 1 do x = x / 2; n = n + 1 end return n end

-- the tiling for a set of templates; every impossible combination is an error here
local function plan(t)
  ptx.check_templates(t, {
    M = { min = 1 }, N = { min = 1 }, BM = { min = 1 }, BN = { min = 1 }, GROUP = { min = 1 },
    K = { min = 8, multiple = 8, why = "rows of A and B are copied in 16-byte pieces (pad K with zeros)" },
    BK = { one_of = { 16, 32, 64, 128 } },
    WM = { min = 16, multiple = 16, why = "the warp tile is made of 16 x 16 blocks" },
    WN = { min = 16, multiple = 16, why = "the warp tile is made of 16 x 16 blocks" },
    STAGES = { min = 2 },
  })
  if t.BM % t.WM ~= 0 or t.BN % t.WN ~= 0 then ptx.error("the CTA tile %d x %d is not a grid of %d x %d warp tiles", t.BM, t.BN, t.WM, t.WN) end
  local P = {}
  P.warps_m, P.warps_n = t.BM / t.WM, t.BN / t.WN
  P.threads = P.warps_m * P.warps_n * 32
  if P.threads > 1024 then ptx.error("%d warps of %d x %d make %d threads (at most 1024)", P.warps_m * P.warps_n, t.WM, t.WN, P.threads) end
  P.mt, P.nt = t.WM / 16, t.WN / 8                       -- mma tiles of a warp
  P.acc = P.mt * P.nt * 4
  if P.acc > 128 then ptx.error("a %d x %d warp tile needs %d accumulator registers a thread (at most 128)", t.WM, t.WN, P.acc) end
  P.cpr = t.BK / 8                                       -- 16-byte pieces per tile row
  P.rb = t.BK * 2                                        -- bytes per tile row
  P.ks = t.BK / 16                                       -- mma k-steps per k-tile
  P.sh = log2(math.max(1, 8 / P.cpr))                    -- swizzle f(r) = (r >> sh) & fm
  P.fm = math.min(P.cpr, 8) - 1
  P.a_bytes = t.BM * P.rb
  P.stage = (t.BM + t.BN) * P.rb                         -- bytes per stage
  P.smem = t.STAGES * P.stage
  if P.smem > 49152 then ptx.error("%d stages of (%d + %d) x %d bf16 need %d bytes of shared memory (static limit 49152)", t.STAGES, t.BM, t.BN, t.BK, P.smem) end
  if (t.BM * P.cpr) % P.threads ~= 0 or (t.BN * P.cpr) % P.threads ~= 0 then
    ptx.error("%d threads cannot split the %d x %d and %d x %d tiles in whole 16-byte pieces", P.threads, t.BM, t.BK, t.BN, t.BK)
  end
  P.a_it, P.b_it = t.BM * P.cpr / P.threads, t.BN * P.cpr / P.threads   -- pieces per thread
  P.rstep = P.threads / P.cpr                            -- rows between a thread's pieces
  P.kt = math.ceil(t.K / t.BK)                           -- k-tiles
  P.gx, P.gy = math.ceil(t.N / t.BN), math.ceil(t.M / t.BM)  -- tiles of C along N and M
  if P.gx * P.gy > 2147483647 then ptx.error("%d x %d tiles exceed the grid limit 2^31-1", P.gy, P.gx) end
  if t.K * 2 >= 2 ^ 31 or t.N * 4 >= 2 ^ 31 then ptx.error("K (%d) or N (%d) is too large for 32-bit row offsets", t.K, t.N) end
  if math.max(t.BM, t.BN) * t.K * 2 >= 2 ^ 31 or t.WM * t.N * 4 >= 2 ^ 31 then
    ptx.error("a tile spans more than 2 GiB (K = %d, N = %d): address offsets overflow", t.K, t.N)
  end
  P.edge_m, P.edge_n, P.edge_k = t.M % t.BM ~= 0, t.N % t.BN ~= 0, t.K % t.BK ~= 0
  P.zfill = P.edge_m or P.edge_n or P.edge_k             -- some tile is partial: zero-fill copies
  return P
end

-- n fresh registers of type t
local function regs(t, n)
  local r = {}
  for j = 1, n do r[j] = ptx.reg[t]() end
  return r
end

ptx.kernel {
  name = "gemm_mma",
  doc = "C[M, N] = A[M, K] * B[N, K]^T, bf16 inputs, f32 accumulation and output",
  target = "sm_80",
  templates = { M = 8192, N = 8192, K = 8192, BM = 128, BN = 128, BK = 32, WM = 64, WN = 32, STAGES = 3, GROUP = 8 },
  params = { {"A", "bf16*", shape = {"M", "K"}}, {"B", "bf16*", shape = {"N", "K"}}, {"C", "f32*", shape = {"M", "N"}} },
  grid = function(t) local P = plan(t); return { P.gx * P.gy } end,
  block = function(t) return { plan(t).threads } end,
  maxntid = function(t) return { plan(t).threads } end,
  -- --emulate: partial tiles in M, N and K; C against the product in doubles (exact bf16 products,
  -- an f32 sum of K of them: 1e-5 relative, plus 1e-5 of C's RMS)
  emulate = { M = 200, N = 136, K = 264 },
  reference = function(t, x)
    local A, B, C, M, N, K = x.A, x.B, {}, t.M, t.N, t.K
    for i = 0, M - 1 do
      for j = 0, N - 1 do
        local s, a, b = 0, i * K, j * K
        for kk = 1, K do s = s + A[a + kk] * B[b + kk] end
        C[i * N + j + 1] = s
      end
    end
    return { C = C }
  end,
  tolerance = 1e-5,
  body = function(t, A, B, C)
    local P = plan(t)
    local pa, pb, pc = ptx.global_ptrs(A, B, C)

    -- place: CTA ctaid.x takes tile (bm, bn) of C, walking GROUP tile-rows at a time column by
    -- column, so that the CTAs resident together share rows of A and columns of B in L2;
    -- warp (wm, wn) of the CTA's warp grid
    local pid = ptx.special "ctaid.x"
    local bm, bn
    if t.GROUP == 1 then
      bm, bn = pid / P.gx, pid % P.gx
    else
      local first = (pid / (t.GROUP * P.gx)) * t.GROUP          -- first tile-row of pid's group
      local rows = (P.gy - first):min(t.GROUP)                     -- tile-rows in the group
      local inner = pid % (t.GROUP * P.gx)
      bm, bn = first + inner % rows, inner / rows
    end
    local tid = ptx.special "tid.x"
    local lane = tid:band(31)
    local warp = tid:shr(5)
    local wm, wn = warp / P.warps_n, warp % P.warps_n
    local smem = ptx.reg.u32()
    ptx.mov.u32(smem, ptx.shared("smem", "b8", P.smem, 128))

    -- copy roles: thread tid copies piece cc of tile rows crow + j * rstep (A: j < a_it, B: j < b_it)
    local crow, cc = tid / P.cpr, tid % P.cpr
    local arow, brow = bm:mad(t.BM, crow), bn:mad(t.BN, crow)     -- global rows of piece 0
    local coff = cc:mul_wide(16)
    local ga = pa + arow:mul_wide(t.K * 2) + coff                 -- global address of piece 0
    local gb = pb + brow:mul_wide(t.K * 2) + coff
    local function swz(row, chunk)                                -- row * RB + (chunk ^ f(row)) * 16
      local f = (P.sh > 0 and row:shr(P.sh) or row):band(P.fm)
      return row:mad(P.rb, chunk:bxor(f):shl(4))
    end
    local dst = {}                                                -- smem offset of each piece in a stage
    for j = 0, math.max(P.a_it, P.b_it) - 1 do
      if j == 0 or P.rstep % 8 ~= 0 then dst[j] = smem + swz(j == 0 and crow or crow + j * P.rstep, cc)
      else dst[j] = dst[0] end                                   -- f repeats every 8 rows: offset by an immediate
    end
    local function dimm(j) return (j == 0 or P.rstep % 8 ~= 0) and 0 or j * P.rstep * P.rb end
    local a_ok, b_ok = {}, {}                                     -- rows inside the matrices
    for j = 0, P.a_it - 1 do if P.edge_m then a_ok[j] = arow:lt(math.max(0, t.M - j * P.rstep)) end end
    for j = 0, P.b_it - 1 do if P.edge_n then b_ok[j] = brow:lt(math.max(0, t.N - j * P.rstep)) end end
    local cc8 = cc:shl(3)                                         -- first k of this thread's piece

    -- one 16-byte piece, global -> shared; ok: nil (always), false (never) or a predicate
    local function piece(sdst, simm, gsrc, gimm, ok, base)
      if ok == false then return end
      if ok == nil then ptx.cp.async.cg.shared.global(ptx.addr(sdst, simm), ptx.addr(gsrc, gimm), 16); return end
      if not P.zfill then ptx.at(ok).cp.async.cg.shared.global(ptx.addr(sdst, simm), ptx.addr(gsrc, gimm), 16); return end
      local src = ok:select(gimm == 0 and gsrc or gsrc + gimm, base)  -- out of range: from the matrix start,
      local n = ptx.reg.u32()                                         -- 0 bytes (16 zeros land in shared)
      ptx.selp.u32(n, 16, 0, ok)
      ptx.cp.async.cg.shared.global(ptx.addr(sdst, simm), ptx.addr(src), 16, n)
    end
    local function both(p, q)
      if p == false or q == false then return false end
      if p == nil then return q end
      if q == nil then return p end
      return p:and_(q)
    end
    -- a k-tile: A and B pieces into the stage at sbase + simm, from ga/gb + gimm; kok: k in range
    local function load_tile(sbase, simm, gA, gB, gimm, kok)
      for j = 0, P.a_it - 1 do
        piece(sbase[j], simm + dimm(j), gA, gimm + j * P.rstep * t.K * 2, both(kok, a_ok[j]), pa)
      end
      for j = 0, P.b_it - 1 do
        piece(sbase[j], simm + P.a_bytes + dimm(j), gB, gimm + j * P.rstep * t.K * 2, both(kok, b_ok[j]), pb)
      end
    end

    -- ldmatrix roles: the tile row whose address this lane gives (A: row l & 15 of a 16-row block,
    -- B: row (l & 7) + 8 * (l >> 4) of a 16-column block) and its piece in k-step 0 (A: l >> 4,
    -- B: (l >> 3) & 1); k-step ks is 2 * ks pieces further. lda/ldb: shared addresses in stage 0
    local arow_l = wm:mad(t.WM, lane:band(15))
    local brow_l = wn:mad(t.WN, lane:band(7) + lane:shr(4):shl(3))
    local apiece, bpiece = lane:shr(4), lane:shr(3):band(1)
    local sb = smem + P.a_bytes
    local lda, ldb = {}, {}
    for ks = 0, P.ks - 1 do
      lda[ks] = smem + swz(arow_l, ks == 0 and apiece or apiece + 2 * ks)
      ldb[ks] = sb + swz(brow_l, ks == 0 and bpiece or bpiece + 2 * ks)
    end

    -- accumulators: acc[mi][ni] = the four f32 of mma tile (mi, ni), zero
    local acc = {}
    for mi = 1, P.mt do
      acc[mi] = {}
      for ni = 1, P.nt do
        acc[mi][ni] = regs("f32", 4)
        for r = 1, 4 do ptx.mov.f32(acc[mi][ni][r], 0) end
      end
    end

    -- prologue: k-tiles 0 .. STAGES-2 into stages 0 .. STAGES-2, one commit group each
    for s = 0, t.STAGES - 2 do
      local kok = nil
      if s * t.BK >= t.K then kok = false                      -- past K: nothing to copy
      elseif (s + 1) * t.BK > t.K then kok = cc8:lt(t.K - s * t.BK) end
      load_tile(dst, s * P.stage, ga, gb, s * t.BK * 2, kok)
      ptx.cp.async.commit_group()
    end

    -- main loop over k-tiles: wait for tile kt, refill the stage of tile kt-1 with tile
    -- kt + STAGES-1, multiply tile kt
    local rd = ptx.u32(0)                                         -- stage offset of tile kt
    local wr = ptx.u32((t.STAGES - 1) * P.stage)                  -- stage offset of tile kt + STAGES-1
    local kn = cc8 + (t.STAGES - 1) * t.BK                        -- k of this thread's piece of that tile
    local gan = ga + (t.STAGES - 1) * t.BK * 2                    -- its global addresses
    local gbn = gb + (t.STAGES - 1) * t.BK * 2
    local function advance(off)                                   -- off = (off + stage) mod (STAGES * stage)
      ptx.add.u32(off, off, P.stage)
      ptx.at(off:eq(t.STAGES * P.stage)).mov.u32(off, 0)
    end
    ptx.loop(P.kt, function()
      ptx.cp.async.wait_group(t.STAGES - 2)
      ptx.bar.sync(0)

      -- load: tile kt + STAGES-1 (pieces past K are skipped, or zero-filled at the K edge)
      local wdst, moved = {}, {}
      for j, d in pairs(dst) do moved[d] = moved[d] or d + wr; wdst[j] = moved[d] end
      load_tile(wdst, 0, gan, gbn, 0, kn:lt(t.K))
      ptx.cp.async.commit_group()
      ptx.add.u32(kn, kn, t.BK)
      ptx.add.u64(gan, gan, t.BK * 2)
      ptx.add.u64(gbn, gbn, t.BK * 2)
      advance(wr)

      -- multiply: per k-step, A fragments (ldmatrix.x4 per 16 rows), B fragments (ldmatrix.x4
      -- per 16 columns), then every mma of the warp tile
      for ks = 0, P.ks - 1 do
        local ra, rb = lda[ks] + rd, ldb[ks] + rd
        local af, bf = {}, {}
        for mi = 1, P.mt do
          af[mi] = regs("b32", 4)
          ptx.ldmatrix.sync.aligned.m8n8.x4.shared.b16(af[mi], ptx.addr(ra, (mi - 1) * 16 * P.rb))
        end
        for np = 1, P.nt / 2 do
          local r = regs("b32", 4)
          ptx.ldmatrix.sync.aligned.m8n8.x4.shared.b16(r, ptx.addr(rb, (np - 1) * 16 * P.rb))
          bf[2 * np - 1], bf[2 * np] = { r[1], r[2] }, { r[3], r[4] }
        end
        for mi = 1, P.mt do
          for ni = 1, P.nt do
            ptx.op "mma.sync.aligned.m16n8k16.row.col.f32.bf16.bf16.f32" (acc[mi][ni], af[mi], bf[ni], acc[mi][ni])
          end
        end
      end
      advance(rd)
    end)
    ptx.cp.async.wait_all()                                       -- nothing left in flight at exit

    -- store: thread (g, q) of a warp holds C[g (+8)][2q, 2q+1] of each mma tile
    local g, q = lane:shr(2), lane:band(3)
    local row0 = bm:mad(t.BM, wm:mad(t.WM, g))
    local col0 = bn:mad(t.BN, wn:mad(t.WN, q:shl(1)))
    local cbase = pc + row0:mul_wide(t.N * 4) + col0:mul_wide(4)
    local rok, cok = {}, {}
    for r = 0, 2 * P.mt - 1 do if P.edge_m then rok[r] = row0:lt(math.max(0, t.M - r * 8)) end end
    for ni = 0, P.nt - 1 do
      if P.edge_n then
        cok[ni] = col0:lt(math.max(0, t.N - ni * 8))
        if t.N % 2 == 1 then cok[ni + P.nt] = col0:lt(math.max(0, t.N - ni * 8 - 1)) end  -- column 2q+1
      end
    end
    for mi = 1, P.mt do
      for h = 0, 1 do
        local r = 2 * (mi - 1) + h                                -- rows r*8 .. r*8+7 of the warp tile
        for ni = 1, P.nt do
          local imm = (r * 8 * t.N + (ni - 1) * 8) * 4
          local c = acc[mi][ni]
          if t.N % 2 == 0 then                                    -- 8-byte aligned pairs
            local ok = both(rok[r], cok[ni - 1])
            if ok then ptx.at(ok).st.global.v2.f32(ptx.addr(cbase, imm), { c[2 * h + 1], c[2 * h + 2] })
            else ptx.st.global.v2.f32(ptx.addr(cbase, imm), { c[2 * h + 1], c[2 * h + 2] }) end
          else
            for e = 0, 1 do
              local ok = both(rok[r], cok[ni - 1 + e * P.nt])
              if ok then ptx.at(ok).st.global.f32(ptx.addr(cbase, imm + 4 * e), c[2 * h + 1 + e])
              else ptx.st.global.f32(ptx.addr(cbase, imm + 4 * e), c[2 * h + 1 + e]) end
            end
          end
        end
      end
    end
    ptx.ret()
  end,
}
