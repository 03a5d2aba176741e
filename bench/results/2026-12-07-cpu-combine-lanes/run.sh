#!/usr/bin/env bash
# CPU machine (no GPU), nvcc 13.0: the split kernels of
# ../2026-12-07-cpu-combine-in-flight/split_kernels.cu with 265331c's
# templates (one thread per four columns of a row, eight ranges in flight)
# and with the working tree's (two lanes per four columns, each taking every
# other range, merged by shuffles): ptxas registers and spills.
cd "$(dirname "$0")/../../.."
N=/usr/local/cuda-13.0/bin
D=bench/results/2026-12-07-cpu-combine-lanes
K=bench/results/2026-12-07-cpu-combine-in-flight/split_kernels.cu
rm -rf /tmp/base && mkdir -p /tmp/base && git archive 265331c kernel_templates | tar -x -C /tmp/base
for root in /tmp/base $PWD; do
  echo "## templates of $([[ $root == /tmp/base ]] && echo 265331c || git log -1 --format=%h) $([[ $root != /tmp/base ]] && git status --short kernel_templates | tr '\n' ' ')"
  $N/nvcc -arch=sm_90a -ptx -diag-suppress 1886,128 -I$root -I$root/kernel_templates $K -o /tmp/split.ptx
  $N/ptxas -arch=sm_90a -v /tmp/split.ptx -o /dev/null 2>&1 | grep -E "Compiling|Used|spill|C75" |
    sed 's/ptxas info    : Compiling entry function//'
done > $D/ptxas.txt
