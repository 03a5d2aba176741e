#!/usr/bin/env bash
# CPU machine (no GPU), nvcc 13.0: ptxas registers and spills of the split
# kernels of ../2026-12-07-cpu-edge-tiles/kernels.cu with 8a75216's templates
# (the combine pass's two lanes per row's columns) and the working tree's
# (one lane up to eight ranges, two past), sm_90a and sm_80.
cd "$(dirname "$0")/../../.."
N=/usr/local/cuda-13.0/bin
D=bench/results/2026-12-07-cpu-combine-one-lane
rm -rf /tmp/base && mkdir -p /tmp/base && git archive 8a75216 kernel_templates | tar -x -C /tmp/base
for root in /tmp/base $PWD; do
  echo "## templates of $([[ $root == /tmp/base ]] && echo 8a75216 || git log -1 --format=%h) $([[ $root != /tmp/base ]] && git status --short kernel_templates | tr '\n' ' ')"
  for arch in sm_90a sm_80; do
    $N/nvcc -arch=$arch -ptx -diag-suppress 1886,128 -I$root -I$root/kernel_templates \
      bench/results/2026-12-07-cpu-edge-tiles/kernels.cu -o /tmp/lanes.ptx
    $N/ptxas -arch=$arch -v /tmp/lanes.ptx -o /dev/null 2>&1 | grep -E "Compiling|Used|spill|C75" |
      sed 's/ptxas info    : Compiling entry function//'
  done
done > $D/ptxas.txt
