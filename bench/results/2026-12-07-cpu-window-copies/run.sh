#!/usr/bin/env bash
# CPU machine (no GPU), nvcc 13.0: the sliding decode kernels of
# decode_kernels.cu with 91d6f9e's templates (every row of a visited tile
# copied) and the working tree's (a partial tile's rows below the window
# left out): ptxas registers and spills, sm_90a and sm_80.
cd "$(dirname "$0")/../../.."
N=/usr/local/cuda-13.0/bin
D=bench/results/2026-12-07-cpu-window-copies
rm -rf /tmp/base && mkdir -p /tmp/base && git archive 91d6f9e kernel_templates | tar -x -C /tmp/base
for root in /tmp/base $PWD; do
  echo "## templates of $([[ $root == /tmp/base ]] && echo 91d6f9e || git log -1 --format=%h) $([[ $root != /tmp/base ]] && git status --short kernel_templates | tr '\n' ' ')"
  for arch in sm_90a sm_80; do
    $N/nvcc -arch=$arch -ptx -diag-suppress 1886,128 -I$root -I$root/kernel_templates $D/decode_kernels.cu -o /tmp/decode.ptx
    $N/ptxas -arch=$arch -v /tmp/decode.ptx -o /dev/null 2>&1 | grep -E "Compiling|Used|spill|C75" |
      sed 's/ptxas info    : Compiling entry function//'
  done
done > $D/ptxas.txt
