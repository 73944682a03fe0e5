#!/usr/bin/env bash
# Install what is missing (Debian: cmake, gcc, luajit, libluajit-5.1-dev, lua-busted, pkg-config,
# clang for the fuzz target, clang-format for the format check, libdlpack-dev, python3-numpy,
# python3-torch, python3-pip and python3-setuptools for the Python package)
# and build ptxlua into build/. Safe to run again: it only installs what is absent.
set -eu
root=$(cd "$(dirname "$0")/.." && pwd)
cd "$root"

need=()
command -v cmake >/dev/null 2>&1 || need+=(cmake)
command -v gcc >/dev/null 2>&1 || need+=(gcc)
command -v make >/dev/null 2>&1 || need+=(make)
command -v pkg-config >/dev/null 2>&1 || need+=(pkg-config)
command -v luajit >/dev/null 2>&1 || need+=(luajit)
[ -f /usr/include/luajit-2.1/lua.h ] || need+=(libluajit-5.1-dev)
command -v busted >/dev/null 2>&1 || need+=(lua-busted)
command -v clang >/dev/null 2>&1 || need+=(clang)   # the parser's libFuzzer target
command -v clang-format >/dev/null 2>&1 || need+=(clang-format)   # the C format check
[ -f /usr/include/dlpack/dlpack.h ] || need+=(libdlpack-dev)   # DLPack tensors in the C API
# the Python package's tests: Debian's python3 with NumPy and PyTorch (CPU tensors on the emulator)
[ -x /usr/bin/python3 ] || need+=(python3)
/usr/bin/python3 -c "import numpy" >/dev/null 2>&1 || need+=(python3-numpy)
/usr/bin/python3 -c "import torch" >/dev/null 2>&1 || need+=(python3-torch)
/usr/bin/python3 -c "import setuptools, pip" >/dev/null 2>&1 || need+=(python3-setuptools python3-pip)
if [ ${#need[@]} -gt 0 ]; then
  echo "bootstrap: installing ${need[*]}" >&2
  sudo=""
  [ "$(id -u)" -eq 0 ] || sudo="sudo"
  $sudo apt-get update -qq
  DEBIAN_FRONTEND=noninteractive $sudo apt-get install -y -qq "${need[@]}" >/dev/null
fi
# the CUDA toolkit's ptxas is the oracle of the tests; it lives outside the PATH on some machines
if ! command -v ptxas >/dev/null 2>&1 && [ -x /usr/local/cuda/bin/ptxas ]; then
  echo "bootstrap: note: ptxas is in /usr/local/cuda/bin (not on the PATH); the tests find it there" >&2
fi

cmake -S . -B build -DCMAKE_BUILD_TYPE=Release >/dev/null
# the product: the command, the libraries, the Lua module (tests/run.sh builds the tests' own
# programs, the fuzz targets among them, on top)
cmake --build build -j"$(nproc)" --target ptxlua ptxlua_static ptxlua_shared ptxlua_luamod >/dev/null
