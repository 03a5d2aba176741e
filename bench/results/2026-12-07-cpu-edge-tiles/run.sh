#!/usr/bin/env bash
# CPU machine (no GPU), nvcc 13.0: ptxas registers and spills of
# kernels.cu with 76ffc3a's templates (every tile of a listed block walked)
# and the working tree's (the window's edge blocks cut), sm_90a and sm_80.
cd "$(dirname "$0")/../../.."
N=/usr/local/cuda-13.0/bin
D=bench/results/2026-12-07-cpu-edge-tiles
rm -rf /tmp/base && mkdir -p /tmp/base && git archive 76ffc3a kernel_templates | tar -x -C /tmp/base
for root in /tmp/base $PWD; do
  echo "## templates of $([[ $root == /tmp/base ]] && echo 76ffc3a || git log -1 --format=%h) $([[ $root != /tmp/base ]] && git status --short kernel_templates | tr '\n' ' ')"
  for arch in sm_90a sm_80; do
    $N/nvcc -arch=$arch -ptx -diag-suppress 1886,128 -I$root -I$root/kernel_templates $D/kernels.cu -o /tmp/edge.ptx
    $N/ptxas -arch=$arch -v /tmp/edge.ptx -o /dev/null 2>&1 | grep -E "Compiling|Used|spill|C75" |
      sed 's/ptxas info    : Compiling entry function//'
  done
done > $D/ptxas.txt
