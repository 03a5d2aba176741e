#!/usr/bin/env bash
# CPU machine (no GPU), nvcc 13.0: the sliding-window decode step's default
# kernel on sm_90a (64/64/4/2, d = 128, f16, sliding causal mask, wgmma
# engine), unsplit and split: ptxas registers and spills, and the PTX
# instructions of each entry (a one-range launch runs the split kernel once).
cd "$(dirname "$0")/../../.."
N=/usr/local/cuda-13.0/bin
D=bench/results/2026-12-07-cpu-one-pass-split
$N/nvcc -arch=sm_90a -ptx -I. -Ikernel_templates $D/decode_kernels.cu -o /tmp/decode.ptx
{ echo "## templates of $(git log -1 --format=%h -- kernel_templates)"
  $N/ptxas -arch=sm_90a -v /tmp/decode.ptx -o /dev/null 2>&1 | grep -E "Compiling|Used|spill|C75"
  echo "## PTX instructions per entry"
  for e in $(grep -o "^.visible .entry [A-Za-z0-9_]*" /tmp/decode.ptx | awk '{print $3}'); do
    echo "$e $(awk "/entry $e\(/,/^}/" /tmp/decode.ptx | grep -cE '^\s+[a-z@]')"
  done
} > $D/ptxas.txt
