#!/bin/sh
# parse_throughput.sh -- the PTX parser's speed: parse MB/s, transpile (--from-ptx: parse + Lua
# writer) MB/s and the round trip (parse + print back + compare) per file, in process, CPU time,
# best of RUNS, on the NFILES biggest corpus files, the PTX of kernels/*.lua, and a synthetic file
# made by concatenating all of them to SYN_MB megabytes. Builds bench/parse_bench.c against
# $BUILD/libptxlua.a first.
#   BUILD=build bench/parse_throughput.sh [-n NFILES] [-s SYN_MB] [-r RUNS]
set -eu
ROOT=$(cd "$(dirname "$0")/.." && pwd)
BUILD=${BUILD:-build}
case $BUILD in /*) ;; *) BUILD=$ROOT/$BUILD ;; esac
NFILES=6; SYN=32; RUNS=5
while [ $# -gt 0 ]; do
  case $1 in
    -n) NFILES=$2; shift 2 ;;
    -s) SYN=$2; shift 2 ;;
    -r) RUNS=$2; shift 2 ;;
    *) echo "usage: BUILD=build bench/parse_throughput.sh [-n NFILES] [-s SYN_MB] [-r RUNS]" >&2; exit 2 ;;
  esac
done
TMP=$(mktemp -d); trap 'rm -rf "$TMP"' EXIT
# a sanitizer build's library needs the sanitizer runtimes at link time
SAN=""
if grep -q '^PTXLUA_SANITIZE:BOOL=ON' "$BUILD/CMakeCache.txt" 2>/dev/null; then SAN="-fsanitize=address,undefined"; fi
cc -O2 $SAN $(for d in "$ROOT"/src/*/; do printf -- "-I%s " "$d"; done) -I"$ROOT/include" "$ROOT/bench/parse_bench.c" "$BUILD/libptxlua.a" \
  $(pkg-config --libs luajit) -lm -ldl -lpthread -o "$TMP/parse_bench"
CORPUS=$ROOT/../shared/corpus/pyptx
set --
if [ -d "$CORPUS" ]; then
  for f in $(find "$CORPUS" -name '*.ptx' -printf '%s %p\n' | sort -rn | head -n "$NFILES" | cut -d' ' -f2); do set -- "$@" "$f"; done
else
  echo "(corpus $CORPUS absent: kernels' PTX only)"
fi
for k in "$ROOT"/kernels/*.lua; do
  b=$(basename "$k" .lua)
  if (cd "$ROOT" && "$BUILD/ptxlua" "$k" --print-ptx > "$TMP/kernel_$b.ptx" 2>/dev/null) && [ -s "$TMP/kernel_$b.ptx" ]; then
    set -- "$@" "$TMP/kernel_$b.ptx"
  fi
done
echo "parse_throughput: $(date -u +%Y-%m-%d) $(nproc) cores, load $(cut -d' ' -f1-3 /proc/loadavg); CPU time, best of $RUNS"
"$TMP/parse_bench" -r "$RUNS" -s "$SYN" "$@"
