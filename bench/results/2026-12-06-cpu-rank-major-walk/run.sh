#!/usr/bin/env bash
# CPU machine (no GPU), nvcc 13.0: the warp-specialized kernels (causal,
# dense, sliding; split) compiled from this tree's templates and from
# 927e37c's: ptxas registers and spills, and whether the non-causal
# instances' PTX is unchanged.
cd "$(dirname "$0")/../../.."
N=/usr/local/cuda-13.0/bin
D=bench/results/2026-12-06-cpu-rank-major-walk
old=$(mktemp -d) && git archive 927e37c kernel_templates | tar -x -C "$old"
ptx() { $N/nvcc -arch=sm_90a -ptx -I"$1" -I"$1/kernel_templates" "$2" -o "$3" 2>/dev/null; }
ptx . $D/ws_kernels.cu /tmp/new.ptx && ptx "$old" $D/ws_kernels.cu /tmp/old.ptx
{ echo "## new (templates of $(git log -1 --format=%h -- kernel_templates))"
  $N/ptxas -arch=sm_90a -v /tmp/new.ptx -o /dev/null 2>&1 | grep -E "Compiling|Used|spill|C75"
  echo "## old (927e37c)"
  $N/ptxas -arch=sm_90a -v /tmp/old.ptx -o /dev/null 2>&1 | grep -E "Compiling|Used|spill|C75"
  echo "## PTX of each entry, old vs new (lines differing)"
  for e in $(grep -o "^.visible .entry [A-Za-z0-9_]*" /tmp/new.ptx | awk '{print $3}'); do
    n=$(diff <(awk "/entry $e\(/,/^}/" /tmp/old.ptx) <(awk "/entry $e\(/,/^}/" /tmp/new.ptx) | grep -c '^[<>]')
    echo "$e $n"
  done
} > $D/ptxas.txt
