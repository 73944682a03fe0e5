#!/usr/bin/env bash
# startup.sh -- whole-process time of `ptxlua KERNEL --print-ptx > /dev/null`: median, min and max
# of wall and CPU time (user + sys) over RUNS runs after 3 warm-up runs, and peak RSS.
#   bench/startup.sh [-n RUNS] [KERNEL.lua ...]     (BUILD=build by default; RUNS 30)
# Without KERNEL arguments: kernels/gemm.lua (the target: under 20 ms median) and, for reference,
# kernels/vector_add.lua. A missing kernels/gemm.lua is an error (exit 1) after the reference is
# measured. The timing is done by bench/runstat.lua (fork + exec, wait4; no shell in between).
set -eu
root=$(cd "$(dirname "$0")/.." && pwd)
build=${BUILD:-build}
case "$build" in /*) ;; *) build="$root/$build" ;; esac
exe="$build/ptxlua"
runs=30
if [ "${1:-}" = "-n" ]; then runs=$2; shift 2; fi
cd "$root"
if [ ! -x "$exe" ]; then
  echo "startup.sh: $exe not found (build first: cmake -S . -B build && cmake --build build, or set BUILD)" >&2
  exit 2
fi

missing=0
if [ $# -eq 0 ]; then
  if [ ! -f kernels/gemm.lua ]; then
    echo "startup.sh: error: kernels/gemm.lua does not exist (yet): the startup target cannot be measured" >&2
    missing=1
    set -- kernels/vector_add.lua
  else
    set -- kernels/gemm.lua kernels/vector_add.lua
  fi
fi

echo "ptxlua startup -- $("$exe" --version), $(grep -m1 'model name' /proc/cpuinfo | sed 's/.*: //'), nproc $(nproc)"
echo "build: $build; source: $root (HEAD $(git -C "$root" rev-parse --short HEAD 2>/dev/null || echo '?'))"
echo "loadavg at start: $(cat /proc/loadavg)"
for k in "$@"; do
  echo
  echo "== $exe $k --print-ptx > /dev/null"
  "$exe" "$k" --print-ptx > /dev/null  # fails loudly (with the script's error) before any timing
  luajit "$root/bench/runstat.lua" -n "$runs" --warmup 3 -- "$exe" "$k" --print-ptx
done
echo
echo "loadavg at end: $(cat /proc/loadavg)"
if [ $missing -ne 0 ]; then
  echo "startup.sh: error: kernels/gemm.lua does not exist (yet); only the reference was measured" >&2
fi
exit $missing
