#!/usr/bin/env bash
# bench/gpu/run.sh [run.lua options] -- the GPU check with the repository's Lua files and $BUILD/lua
# (the compiled core; BUILD=build by default). See bench/gpu/README.md.
set -eu
root=$(cd "$(dirname "$0")/../.." && pwd)
build=${BUILD:-build}
case "$build" in /*) ;; *) build="$root/$build" ;; esac
export LUA_PATH="$root/lua/?.lua;$root/lua/?/init.lua;;" LUA_CPATH="$build/lua/?.so;;" PTXLUA_ROOT="$root"
exec luajit "$root/bench/gpu/run.lua" "$@"
