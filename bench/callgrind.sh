#!/usr/bin/env bash
# callgrind.sh -- machine instructions (valgrind's Ir) executed by the whole command
# `ptxlua bench/gemm_unrolled.lua -D N=... --print-ptx`, and per PTX instruction above N=0.
# Unlike CPU time these counts repeat to the last digit on a loaded machine: the linearity check.
#   bench/callgrind.sh [SIZES...]      (BUILD=build by default; sizes 10000 100000 by default;
#                                       1000000 takes about a minute under valgrind)
# Profiles are kept as /tmp/ptxlua-callgrind.N.out for callgrind_annotate.
set -eu
root=$(cd "$(dirname "$0")/.." && pwd)
build=${BUILD:-build}
case "$build" in /*) ;; *) build="$root/$build" ;; esac
exe="$build/ptxlua"
command -v valgrind >/dev/null 2>&1 || { echo "callgrind.sh: valgrind not found (apt-get install valgrind)" >&2; exit 2; }
[ -x "$exe" ] || { echo "callgrind.sh: $exe not found (set BUILD)" >&2; exit 2; }
[ $# -gt 0 ] || set -- 10000 100000
cd "$root"
tmp=$(mktemp -d /tmp/ptxlua-callgrind.XXXXXX)
trap 'rm -rf "$tmp"' EXIT

measure() {  # N -> "insns Ir"
  local n=$1 out="/tmp/ptxlua-callgrind.$1.out"
  valgrind --tool=callgrind --callgrind-out-file="$out" "$exe" bench/gemm_unrolled.lua -D "N=$n" --print-ptx \
    > "$tmp/ptx" 2> "$tmp/log" || { cat "$tmp/log" >&2; exit 1; }
  local insns ir
  insns=$(grep -c $'^\t[a-z@]' "$tmp/ptx" || true)
  ir=$(sed -n 's/.*Collected : \([0-9]*\).*/\1/p' "$tmp/log")
  echo "$insns $ir"
}

read -r i0 ir0 <<< "$(measure 0)"
[ -n "${ir0:-}" ] || { echo "callgrind.sh: the run at N=0 failed" >&2; exit 1; }
printf '%10s %10s %16s %12s\n' N insns Ir "Ir/insn"
printf '%10s %10s %16s %12s\n' 0 "$i0" "$ir0" -
for n in "$@"; do
  read -r i ir <<< "$(measure "$n")"
  [ -n "${ir:-}" ] || { echo "callgrind.sh: the run at N=$n failed" >&2; exit 1; }
  awk -v n="$n" -v i="$i" -v ir="$ir" -v i0="$i0" -v ir0="$ir0" \
    'BEGIN { printf "%10s %10s %16s %12.0f\n", n, i, ir, (ir - ir0) / (i - i0) }'
done
