#!/usr/bin/env bash
# Run busted specs against a build directory: tests/spec.sh [spec files...]  (BUILD=build by default)
# The specs find the DSL sources in lua/ and the compiled core in $BUILD/lua.
set -eu
root=$(cd "$(dirname "$0")/.." && pwd)
build=${BUILD:-build}
case "$build" in /*) ;; *) build="$root/$build" ;; esac
export LUA_PATH="$root/lua/?.lua;$root/lua/?/init.lua;$root/tests/spec/?.lua;;"
export LUA_CPATH="$build/lua/?.so;;"
export PTXLUA_ROOT="$root" PTXLUA_BUILD="$build" PTXLUA_EXE="$build/ptxlua"
cd "$root"
if [ $# -eq 0 ]; then set -- tests/spec; fi
exec busted --lua=luajit --output=plainTerminal "$@"
