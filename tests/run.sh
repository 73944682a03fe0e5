#!/usr/bin/env bash
# Set everything up and run every test: the release build, then the same suite built with
# AddressSanitizer and UndefinedBehaviorSanitizer.
set -eu
root=$(cd "$(dirname "$0")/.." && pwd)
cd "$root"
tests/bootstrap.sh
# the CUDA toolkit (ptxas, nvcc, nvJitLink) is the tests' oracle: find it where Debian's CUDA
# packages and NVIDIA's installer put it when it is not on the PATH already
if ! command -v ptxas >/dev/null 2>&1; then
  for d in "${CUDA_HOME:-}" /usr/local/cuda /usr/local/cuda-13.0; do
    if [ -n "$d" ] && [ -x "$d/bin/ptxas" ]; then export PATH="$d/bin:$PATH" CUDA_HOME="$d"; break; fi
  done
fi
jobs=$(nproc)
cmake --build build -j"$jobs" >/dev/null                      # the tests' programs too
echo "== tests (release build)"
ctest --test-dir build -j"$jobs" --output-on-failure
echo "== tests (ASan + UBSan build)"
cmake -S . -B build-asan -DCMAKE_BUILD_TYPE=Debug -DPTXLUA_SANITIZE=ON >/dev/null
cmake --build build-asan -j"$jobs" >/dev/null
ctest --test-dir build-asan -j"$jobs" --output-on-failure
