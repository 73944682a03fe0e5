#!/usr/bin/env bash
# The Python package installed two ways, each imported from a clean directory by Debian's python3:
# `pip install ./python` (a copy of it: pip writes build files beside the sources; no network, so
# the system's setuptools) finding libptxlua through $PTXLUA_LIBRARY, and `cmake --install`, whose
# package finds the installed library by itself.
set -eu
build=$1
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
cp -r python "$tmp/src"
/usr/bin/python3 -m pip install -q --no-build-isolation --no-index --target "$tmp/pip" "$tmp/src" 2>&1 | grep -v "WARNING: Running pip as" || true
script='import ptxlua, sys; e = ptxlua.Engine(sys.argv[1], N=64); assert e.kernels == ["vector_add"]; assert ".entry vector_add" in e.ptx(); print(ptxlua.library_path())'
# the sanitizer build's library needs its runtime first in the process ($PTXLUA_PY_PRELOAD)
py() { LD_PRELOAD="${PTXLUA_PY_PRELOAD:-${LD_PRELOAD:-}}" /usr/bin/python3 "$@"; }
(cd "$tmp" && PYTHONPATH="$tmp/pip" PTXLUA_LIBRARY="$PTXLUA_LIBRARY_BUILT" py -c "$script" "$OLDPWD/kernels/vector_add.lua")
cmake --install "$build" --prefix "$tmp/prefix" > /dev/null
site=$(cd "$tmp/prefix" && ls -d lib/python3*/dist-packages)
lib=$(unset PTXLUA_LIBRARY; cd "$tmp" && PYTHONPATH="$tmp/prefix/$site" py -c "$script" "$OLDPWD/kernels/vector_add.lua")
case "$lib" in
  "$tmp/prefix/"*) echo "cmake --install: $lib" ;;
  *) echo "the installed package found $lib, not the installed library" >&2; exit 1 ;;
esac
