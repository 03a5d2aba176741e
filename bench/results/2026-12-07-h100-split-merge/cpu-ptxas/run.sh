#!/usr/bin/env bash
# CPU machine (no GPU), nvcc 13.0: the split kernels of split_kernels.cu with
# a5800f4's templates and with the working tree's when run (../merge.patch: the split pass of fwd_kernel
# merges its ranges itself): ptxas registers and spills.
cd "$(dirname "$0")/../../../.."
N=/usr/local/cuda-13.0/bin
D=bench/results/2026-12-07-h100-split-merge/cpu-ptxas
rm -rf /tmp/base && mkdir -p /tmp/base && git archive a5800f4 kernel_templates | tar -x -C /tmp/base
for root in /tmp/base $PWD; do
  echo "## templates of $([[ $root == /tmp/base ]] && echo a5800f4 || git log -1 --format=%h) $([[ $root != /tmp/base ]] && git status --short kernel_templates)"
  $N/nvcc -arch=sm_90a -ptx -diag-suppress 1886,128 -I$root -I$root/kernel_templates $D/split_kernels.cu -o /tmp/split.ptx
  $N/ptxas -arch=sm_90a -v /tmp/split.ptx -o /dev/null 2>&1 | grep -E "Compiling|Used|spill|C75" |
    sed 's/ptxas info    : Compiling entry function//'
done > $D/ptxas.txt
