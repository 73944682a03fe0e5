#!/usr/bin/env bash
# bench/gpu/prepare.sh -- run HERE (a Debian machine with network) before asking for a GPU machine:
# the device machine has CUDA, CMake and a compiler but no LuaJIT and no package registry, so this
#   1. downloads Debian's LuaJIT packages (luajit, libluajit-5.1-2, -common) into .gpu-deps/
#   2. builds the Release tree in $BUILD (default build) that session.sh runs there
# Both paths are git-ignored; name them in the device call's `carry` (bench/gpu/README.md, "On a
# lent device machine"). Together about 25 MB of the 64 MB a call may carry.
set -eu
root=$(cd "$(dirname "$0")/../.." && pwd)
build=${BUILD:-build}
case "$build" in /*) ;; *) build="$root/$build" ;; esac
deps="$root/.gpu-deps"
mkdir -p "$deps"
tmp=$(mktemp -d)
(cd "$tmp" && apt-get download luajit libluajit-5.1-2 libluajit-5.1-common >/dev/null 2>&1) || {
  echo "prepare.sh: apt-get download failed (no network or no Debian sources?)" >&2; exit 1; }
rm -f "$deps"/*.deb
for f in "$tmp"/*.deb; do                      # plain names: the device tool carries simple paths
  n=$(basename "$f"); cp "$f" "$deps/${n%%_*}.deb"
done
rm -rf "$tmp"
cmake -S "$root" -B "$build" -DCMAKE_BUILD_TYPE=Release >/dev/null
cmake --build "$build" -j"$(nproc)" >/dev/null
echo "ready: $(ls "$deps" | tr '\n' ' ')and $build ($(du -sh "$build" | cut -f1))"
