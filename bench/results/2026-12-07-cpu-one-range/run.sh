#!/usr/bin/env bash
# CPU machine (no GPU), nvcc 13.0: the split kernels of split_kernels.cu with
# 139cfe2's templates, with a5800f4's (a launch of one range runs the unsplit
# code, in fwd_block), and with a5800f4's plus mma_tma_branch.patch (the same
# branch in mma_tma_block, not kept): ptxas registers and spills.
cd "$(dirname "$0")/../../.."
N=/usr/local/cuda-13.0/bin
D=bench/results/2026-12-07-cpu-one-range
for v in 139cfe2 a5800f4 a5800f4+mma_tma_branch; do
  root=/tmp/tpl_$v; rm -rf $root && mkdir -p $root
  git archive ${v%%+*} kernel_templates | tar -x -C $root
  [[ $v == *+* ]] && (cd $root && patch -s -p1 < $OLDPWD/$D/mma_tma_branch.patch)
  echo "## templates of $v"
  $N/nvcc -arch=sm_90a -ptx -diag-suppress 1886,128 -I$root -I$root/kernel_templates $D/split_kernels.cu -o /tmp/split.ptx
  $N/ptxas -arch=sm_90a -v /tmp/split.ptx -o /dev/null 2>&1 | grep -E "Compiling|Used|spill|C75" |
    sed 's/ptxas info    : Compiling entry function//'
done > $D/ptxas.txt
