#!/usr/bin/env bash
# make.sh -- nvcc -ptx of the real-world sources here, for the targets and flags kernel projects
# build with, into ptx/ (checked in: tests/spec/real_ptx_spec.lua lints, assembles and round-trips
# every file, and recompiles a few to check they are what this nvcc writes).
#   tests/cuda/real/make.sh [NVCC]
set -eu
here=$(cd "$(dirname "$0")" && pwd)
nvcc=${1:-nvcc}
mkdir -p "$here/ptx"
# source, target, flags (the file name: SOURCE.TARGET[.FLAG].ptx)
while read -r src arch flags; do
  [ -z "$src" ] && continue
  tag=$(printf '%s' "$flags" | sed 's/-rdc=true/rdc/; s/-D[A-Z]*//g; s/-lineinfo/lineinfo/; s/-G/G/; s/ //g')
  out="$here/ptx/${src%.cu}.$arch${tag:+.$tag}.ptx"
  (cd "$here" && env -u LD_PRELOAD "$nvcc" -ptx -arch="$arch" $flags "$src" -o "$out")
  echo "$out"
done <<'LIST'
templates.cu sm_80
templates.cu sm_90a
templates.cu sm_100a
templates.cu sm_120a
templates.cu sm_80 -lineinfo
templates.cu sm_90a -rdc=true -DRDC
atomics.cu sm_80
atomics.cu sm_90a
atomics.cu sm_120a
mma_asm.cu sm_80
mma_asm.cu sm_90a
mma_asm.cu sm_120a
mma_asm.cu sm_80 -G
wmma_all.cu sm_80
wmma_all.cu sm_90a
wmma_all.cu sm_120a
calls.cu sm_80
calls.cu sm_90a
calls.cu sm_120a
calls.cu sm_80 -G
calls.cu sm_90a -rdc=true -DRDC
calls_ext.cu sm_90a -rdc=true
hopper.cu sm_90a
hopper.cu sm_90a -lineinfo
misc.cu sm_80
misc.cu sm_90a
misc.cu sm_100a
misc.cu sm_120a
blackwell.cu sm_100a
blackwell.cu sm_100f
blackwell.cu sm_103a
blackwell.cu sm_110a
blackwell.cu sm_110f
LIST
