#!/usr/bin/env bash
# CPU machine (no GPU), nvcc 13.0: the decode defaults' split kernels compiled
# from this tree's templates and from 5287220's (ptxas registers, spills, the
# griddepcontrol pair), and the unsplit instances' PTX compared.
cd "$(dirname "$0")/../../../.."
N=/usr/local/cuda-13.0/bin
D=bench/results/2026-12-06-h100-dependent-combine/cpu
old=$(mktemp -d) && git archive 5287220 kernel_templates | tar -x -C "$old"
ptx() { $N/nvcc -arch=sm_90a -ptx -I"$1" -I"$1/kernel_templates" "$2" -o "$3" 2>/dev/null; }
ptx . $D/split_kernels.cu /tmp/new.ptx && ptx "$old" $D/split_kernels.cu /tmp/old.ptx
{ echo "## new ($(git rev-parse --short HEAD))"
  $N/ptxas -arch=sm_90a -v /tmp/new.ptx -o /dev/null 2>&1 | grep -E "Compiling|Used|spill"
  echo "griddepcontrol in the PTX:"; grep -c griddepcontrol /tmp/new.ptx
  echo "## old (5287220)"
  $N/ptxas -arch=sm_90a -v /tmp/old.ptx -o /dev/null 2>&1 | grep -E "Compiling|Used|spill"
  ptx . $D/unsplit_kernels.cu /tmp/new_u.ptx && ptx "$old" $D/unsplit_kernels.cu /tmp/old_u.ptx
  diff <(grep -v "^//" /tmp/old_u.ptx) <(grep -v "^//" /tmp/new_u.ptx) >/dev/null &&
    echo "unsplit PTX identical"
} > $D/ptxas.txt
