#!/usr/bin/env bash
# bench/gpu/session.sh [run.lua options] -- everything a lent GPU session runs, in one call of the device tool
# (after bench/gpu/prepare.sh here; carry .gpu-deps and build). Steps, each logged under $OUT
# (the tool's folder; ./gpu-session elsewhere):
#   0. LuaJIT from .gpu-deps/*.deb, unpacked under /tmp/ptxlua-deps, when the machine has none
#   1. the Release build in $BUILD (default build), built there only if it did not travel
#   2. device.txt: nvidia-smi and `ptxlua --doctor`
#   3. gpu_check.txt: bench/gpu/run.sh -- every kernel checked, then timed (its own 270 s budget)
#   4. launch.txt: host time per launch on the real driver, from C and from Lua
# Exit status: run.sh's (0 every check passed, 1 a check failed, 2 no CUDA driver), 124 when the
# check outlived CHECK_TIMEOUT seconds (default 360) and was killed, or 3 when LuaJIT or the build
# is missing and cannot be had.
set -u
root=$(cd "$(dirname "$0")/../.." && pwd)
out=${OUT:-$root/gpu-session}
build=${BUILD:-build}
case "$build" in /*) ;; *) build="$root/$build" ;; esac
# the C engine (ptxlua --doctor, bench/launch_overhead_c) finds its Lua files by the source path the
# build was configured at: the device machine's copy of the tree sits elsewhere, so name this one
export PTXLUA_LUA_DIR="$root/lua"
mkdir -p "$out"
say() { echo "== $*"; }
start=$(date +%s)

if [ "${PTXLUA_DEPS:-}" = force ] || ! command -v luajit >/dev/null 2>&1; then
  if ! ls "$root"/.gpu-deps/*.deb >/dev/null 2>&1; then
    echo "session.sh: no luajit here and no .gpu-deps/*.deb (run bench/gpu/prepare.sh, carry .gpu-deps)" >&2; exit 3
  fi
  for f in "$root"/.gpu-deps/*.deb; do dpkg -x "$f" /tmp/ptxlua-deps; done
  lj=$(ls /tmp/ptxlua-deps/usr/bin/luajit* 2>/dev/null | head -1)
  mkdir -p /tmp/ptxlua-deps/bin && ln -sf "$lj" /tmp/ptxlua-deps/bin/luajit
  export PATH=/tmp/ptxlua-deps/bin:$PATH
  export LD_LIBRARY_PATH=/tmp/ptxlua-deps/usr/lib/x86_64-linux-gnu${LD_LIBRARY_PATH:+:$LD_LIBRARY_PATH}
  say "LuaJIT from .gpu-deps: $(luajit -v)"
fi
export PATH=/usr/local/cuda/bin:$PATH
if [ ! -x "$build/ptxlua" ]; then
  say "building $build"
  if ! { cmake -S "$root" -B "$build" -DCMAKE_BUILD_TYPE=Release && cmake --build "$build" -j"$(nproc)"; } > "$out/build.txt" 2>&1; then
    tail -20 "$out/build.txt" >&2; exit 3
  fi
fi

say "device" > "$out/device.txt"
{ date -u; nvidia-smi 2>&1 | head -20; "$build/ptxlua" --doctor 2>&1; } >> "$out/device.txt"
cat "$out/device.txt"

say "GPU check (bench/gpu/run.sh)"
set -o pipefail
# a kernel that never finishes would hold the check until the device call's own limit took
# everything: the check gets CHECK_TIMEOUT seconds (its budget of 270 s starts no case after
# that, plus the one running); its progress lines say which rows were done and which one hung
limit=${CHECK_TIMEOUT:-360}
BUILD="$build" timeout -k 5 "$limit" "$root/bench/gpu/run.sh" "$@" 2>&1 | tee "$out/gpu_check.txt"
rc=$?
if [ $rc -eq 124 ] || [ $rc -eq 137 ]; then
  say "the GPU check did not finish in $limit s (a kernel that never finished?): killed; see its last '--' line" | tee -a "$out/gpu_check.txt"
fi

say "launch overhead" | tee "$out/launch.txt"
(cd "$root" && "$build/bench/launch_overhead_c" 2>&1 | tee -a "$out/launch.txt")
(cd "$root" && LUA_PATH="$root/lua/?.lua;$root/lua/?/init.lua;;" LUA_CPATH="$build/lua/?.so;;" PTXLUA_ROOT="$root" \
  luajit "$root/bench/launch_overhead.lua" 2>&1 | tee -a "$out/launch.txt")
say "done in $(( $(date +%s) - start )) s; GPU check exit $rc"
exit $rc
