-- hopper_pipe.lua -- the TMA -> wgmma pipeline the Hopper kernels share (kernels/gemm.lua,
-- grouped_gemm.lua, flash_attention.lua): a ring of STAGES shared-memory stages, each behind a full
-- and an empty mbarrier, filled by one producer thread with TMA and drained by consumer warpgroups
-- with wgmma. A kernel with several rings (flash attention: K and V) makes one pipe for each.
-- A kernel loads it by a path relative to its own file, so that a copy of the kernels/ folder works:
--   local hp = ptx.import "lib/hopper_pipe.lua"
--
-- The pipeline (one a ring of stages; nothing emitted until a method is called):
--   pipe = hp.pipe { stages =, full =, empty =, cluster = }
--     full, empty: smem_plan allocations of `stages` .b64 mbarriers; cluster: CTAs that multicast
--     into each other's stages (1, the default: none). pipe.stages, pipe.full, pipe.empty, pipe.cluster.
--   pipe:init(leader, warps, extra)   thread `leader` initializes full[s] (1 arrival: the producer's
--                                     expect_tx) and empty[s] (warps x cluster arrivals: every
--                                     consumer warp of every CTA), extra() may init more, the fence
--                                     publishes them; then every CTA of the cluster waits for all
--   pipe:barriers(warps)              the mbarrier.init of full[s] and empty[s] alone: another pipe's,
--                                     from the first pipe's init(.., extra)
--   pipe:releaser(base)               release(st): arrive on empty[st] in every CTA of the cluster
--                                     (mapa'd addresses made here when cluster > 1; a plain CTA
--                                     arrive when cluster is 1)
--   pipe:leave()                      the last cluster barrier: no CTA exits while a peer may still
--                                     multicast into it or arrive on its barriers (none when cluster 1)
-- A role's position in the ring (one per role; registers made here):
--   ring = pipe:ring(base)            stage ring.s = 0 and the parity ring.phase = 0 of its current
--                                     phase; base: the .u32 address of `smem` (a role that makes it
--                                     after its ring sets ring.base before the first step)
--   ring:bar(b)                       the address of barrier array b's mbarrier for stage s
--   ring:stage(alloc)                 the shared address of alloc's stage s
--   ring:desc_step(alloc)             what a stage-0 wgmma descriptor of alloc adds for stage s
--   ring:advance()                    the next stage; the parity flips when s wraps
--   ring:produce(bytes, loads)        producer step: wait until stage s is free (empty[s], the
--                                     other parity), announce `bytes` on full[s], loads(fb) issues
--                                     the copies completing on fb (full[s]'s address), advance
--   ring:as_consumer(lead, release, eager)  consumers: lanes `lead` release stages through
--                                     release(st): each one k-step late in consume and drain (makes
--                                     the register of that stage), or with `eager` only by retire
--   ring:wait()                       consumer: wait for full[s] (the stage's data has landed)
--   ring:consume(kt, body)            consumer step: wait for full[s], body(accumulate) issues the
--                                     k-tile's wgmma group (accumulate: false for k-tile kt = 0),
--                                     wait until only it is in flight, release k-tile kt - 1's stage
--                                     (the previous tile's last was released by drain), advance
--   ring:drain()                      after the last k-tile: wait for every wgmma, release its stage
--   ring:retire(pending)              wait until at most `pending` wgmma groups are in flight (none
--                                     of them reads stage s), release stage s now, advance
-- A consumer thread, wgmma and TMA stores:
--   hp.place(tid, wg)                 w = wg - 1 (warpgroup wg of warp_specialize, 0-based among
--                                     the consumers), wtid (thread in it), warp (in it), lane,
--                                     g = lane / 4, q = lane % 4: a wgmma accumulator of n8 block nb
--                                     holds acc[4 nb + 2 h + 1], [.. + 2] at row 16 warp + g + 8 h,
--                                     columns 8 nb + 2 q, + 1
--   hp.mma(wgmma, acc, da, db, ksteps, first, ptrue)  wgmma.fence, then one wgmma group over
--                                     ksteps k-steps of 16 from K-major 128B-swizzled bf16
--                                     descriptors (k-step kk: +2 kk, 32 bytes; da or db may be a
--                                     function kk -> descriptor instead); scale-d `first` for k-step
--                                     0, `ptrue` (accumulate) after it
--   hp.store(lead, bar, issue, wait)  publish a shared buffer written with st.shared to the TMA
--                                     (fence.proxy.async, bar.sync bar of 128 threads), then lane
--                                     `lead` runs issue() (the cp.async.bulk stores) and commits them;
--                                     with `wait`, it then waits until at most `wait` bulk groups
--                                     still read shared memory (0: the buffer may be reused or freed)
-- Instructions emitted here are anchored (--anchors, emulator errors) at the lines of this file.
local ptx = require "ptxlua"

local hp = {}

local Pipe, Ring = {}, {}
Pipe.__index, Ring.__index = Pipe, Ring

function hp.pipe(o)
  return setmetatable({ stages = o.stages, full = o.full, empty = o.empty, cluster = o.cluster or 1 }, Pipe)
end

function Pipe:barriers(warps)
  for s = 0, self.stages - 1 do
    ptx.op "mbarrier.init.shared::cta.b64" (self.full:addr(0, 8 * s), 1)
    ptx.op "mbarrier.init.shared::cta.b64" (self.empty:addr(0, 8 * s), warps * self.cluster)
  end
end

function Pipe:init(leader, warps, extra)
  ptx.if_(leader, function()
    self:barriers(warps)
    if extra then extra() end
    ptx.op "fence.mbarrier_init.release.cluster" ()
  end)
  -- no CTA copies into a peer (multicast) before that peer has initialized its barriers
  if self.cluster > 1 then
    ptx.op "barrier.cluster.arrive.release.aligned" ()
    ptx.op "barrier.cluster.wait.acquire.aligned" ()
  else
    ptx.bar.sync(0)
  end
end

function Pipe:releaser(base)
  local empty, CL = self.empty, self.cluster
  if CL == 1 then
    return function(st) ptx.op "mbarrier.arrive.shared::cta.b64" (ptx._, ptx.addr(st:mad(8, base + empty.offset))) end
  end
  local remote = {}                                        -- empty[0] of CTA r of the cluster
  for r = 0, CL - 1 do
    local a = ptx.reg.u32()
    ptx.op "mapa.shared::cluster.u32" (a, base + empty.offset, r)
    remote[r] = a
  end
  return function(st)
    for r = 0, CL - 1 do
      ptx.op "mbarrier.arrive.release.cluster.shared::cluster.b64" (ptx._, ptx.addr(st:mad(8, remote[r])))
    end
  end
end

function Pipe:leave()
  if self.cluster > 1 then
    ptx.op "barrier.cluster.arrive.release" ()
    ptx.op "barrier.cluster.wait.acquire" ()
  end
end

function Pipe:ring(base)
  return setmetatable({ pipe = self, s = ptx.u32(0), phase = ptx.u32(0), base = base }, Ring)
end

function Ring:bar(b) return self.s:mad(8, self.base + b.offset) end
function Ring:stage(alloc) return self.s:mad(alloc.stage_bytes, self.base + alloc.offset) end
function Ring:desc_step(alloc) return self.s:mul_wide(alloc.stage_bytes / 16) end

function Ring:advance()
  local s, phase = self.s, self.phase
  ptx.add.u32(s, s, 1)
  local wrap = s:eq(self.pipe.stages)
  ptx.at(wrap).mov.u32(s, 0)
  ptx.at(wrap).xor.b32(phase, phase, 1)
end

function Ring:produce(bytes, loads)
  local fb = self:bar(self.pipe.full)
  local eb = self:bar(self.pipe.empty)
  -- a fresh mbarrier counts its previous phase as complete: the first pass does not wait
  ptx.mbarrier_wait(ptx.addr(eb), self.phase:bxor(1))      -- the stage is free everywhere
  ptx.op "mbarrier.arrive.expect_tx.shared::cta.b64" (ptx._, ptx.addr(fb), bytes)
  loads(fb)
  self:advance()
end

function Ring:as_consumer(lead, release, eager)
  self.lead, self.release = lead, release
  if not eager then self.prev = ptx.u32(0) end
end

function Ring:wait()
  ptx.mbarrier_wait(ptx.addr(self:bar(self.pipe.full)), self.phase)
end

function Ring:consume(kt, body)
  self:wait()
  local accumulate = kt:ne(0)
  body(accumulate)
  -- k-tile kt - 1 is done when at most this one is in flight: release its stage
  ptx.wgmma.wait_group.sync.aligned(1)
  ptx.if_(self.lead:and_(accumulate), function() self.release(self.prev) end)
  self.prev:set(self.s)
  self:advance()
end

function Ring:drain()
  ptx.wgmma.wait_group.sync.aligned(0)
  ptx.if_(self.lead, function() self.release(self.prev) end)
end

function Ring:retire(pending)
  ptx.wgmma.wait_group.sync.aligned(pending)             -- the wgmmas that read stage s are done
  ptx.if_(self.lead, function() self.release(self.s) end)
  self:advance()
end

function hp.place(tid, wg)
  local w = wg - 1
  local wtid = tid:band(127)
  local warp, lane = wtid:shr(5), tid:band(31)
  return w, wtid, warp, lane, lane:shr(2), lane:band(3)
end

local function at_kstep(d, kk)
  if type(d) == "function" then return d(kk) end
  return (d + 2 * kk):as("b64")
end

function hp.mma(wgmma, acc, da, db, ksteps, first, ptrue)
  ptx.wgmma.fence.sync.aligned()                            -- acc was written since the last wgmma
  for kk = 0, ksteps - 1 do
    -- scale-d false (overwrite) at most for the first k-step of a tile's first k-tile
    wgmma(acc, at_kstep(da, kk), at_kstep(db, kk), kk == 0 and first or ptrue, 1, 1, 0, 0)
  end
  ptx.wgmma.commit_group.sync.aligned()
end

function hp.store(lead, bar, issue, wait)
  ptx.op "fence.proxy.async.shared::cta" ()                 -- st.shared made visible to the TMA
  ptx.bar.sync(bar, 128)
  ptx.if_(lead, function()
    issue()
    ptx.op "cp.async.bulk.commit_group" ()
    if wait then ptx.op "cp.async.bulk.wait_group.read" (wait) end
  end)
end

return hp
