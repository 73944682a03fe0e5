#!/usr/bin/env bash
# Set everything up and run every test: the release build, then the same suite built with
# AddressSanitizer and UndefinedBehaviorSanitizer.
set -eu
root=$(cd "$(dirname "$0")/.." && pwd)
cd "$root"
tests/bootstrap.sh
jobs=$(nproc)
echo "== tests (release build)"
ctest --test-dir build -j"$jobs" --output-on-failure
echo "== tests (ASan + UBSan build)"
cmake -S . -B build-asan -DCMAKE_BUILD_TYPE=Debug -DPTXLUA_SANITIZE=ON >/dev/null
cmake --build build-asan -j"$jobs" >/dev/null
ctest --test-dir build-asan -j"$jobs" --output-on-failure
