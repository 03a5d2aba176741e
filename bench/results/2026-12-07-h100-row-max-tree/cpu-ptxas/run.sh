#!/usr/bin/env bash
# CPU machine (no GPU), nvcc 13.0: the kernels of kernels.cu with bc48606's
# templates (each row's maximum a chain) and with ../row_max_tree.patch applied (trees,
# both rows side by side): ptxas registers and spills, and the softmax's
# max.f32 instructions in the PTX.
cd "$(dirname "$0")/../../../.."
N=/usr/local/cuda-13.0/bin
D=bench/results/2026-12-07-h100-row-max-tree/cpu-ptxas
rm -rf /tmp/base && mkdir -p /tmp/base && git archive bc48606 kernel_templates | tar -x -C /tmp/base
for root in /tmp/base $PWD; do
  echo "## templates of $([[ $root == /tmp/base ]] && echo bc48606 || echo "the working tree: $(git status --short kernel_templates | tr '\n' ' ')")"
  for arch in sm_90a sm_90; do
    $N/nvcc -arch=$arch -ptx -diag-suppress 1886,128 $([[ $arch == sm_90a ]] && echo -DJITK_SM90A) \
      -I$root -I$root/kernel_templates $D/kernels.cu -o /tmp/k_$arch.ptx
    echo "# $arch: max.f32 in the PTX: $(grep -c 'max.f32' /tmp/k_$arch.ptx)"
    $N/ptxas -arch=$arch -v /tmp/k_$arch.ptx -o /dev/null 2>&1 | grep -E "Compiling|Used|spill|C75" |
      sed 's/ptxas info    : Compiling entry function//'
  done
done > $D/ptxas.txt
