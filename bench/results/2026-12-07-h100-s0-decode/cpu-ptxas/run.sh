#!/usr/bin/env bash
# CPU machine (no GPU), nvcc 13.0: the warp-specialized kernels of
# 2026-12-06-cpu-rank-major-walk/ws_kernels.cu compiled from 9a1f9bc's
# templates (base) and with ../visit1/s0.patch (s0): ptxas registers,
# spills and serialized-wgmma warnings (C75xx).
cd "$(dirname "$0")/../../../.."
N=/usr/local/cuda-13.0/bin
D=bench/results/2026-12-07-h100-s0-decode
W=bench/results/2026-12-06-cpu-rank-major-walk/ws_kernels.cu
for v in base s0; do
  t=$(mktemp -d) && git archive 9a1f9bc kernel_templates | tar -x -C "$t"
  [[ $v == s0 ]] && patch -s -d "$t" -p1 < $D/visit1/s0.patch
  $N/nvcc -arch=sm_90a -ptx -I"$t" -I"$t/kernel_templates" $W -o /tmp/$v.ptx
  echo "## $v"
  $N/ptxas -arch=sm_90a -v /tmp/$v.ptx -o /dev/null 2>&1 | grep -E "Compiling|Used|spill|C75"
done > $D/cpu-ptxas/ptxas.txt
