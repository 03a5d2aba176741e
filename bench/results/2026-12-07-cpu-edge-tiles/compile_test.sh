#!/usr/bin/env bash
# CPU machine: the compile test's decode defaults for every arch (NVRTC and
# hiprtc, spills checked) with 76ffc3a's templates (whole mask blocks
# walked) and the working tree's (the window's edge blocks cut); registers
# and spills of the sliding-causal (mask=2) and two-sided (mask=3) ones.
cd "$(dirname "$0")/../../.."
D=bench/results/2026-12-07-cpu-edge-tiles
rm -rf /tmp/base && mkdir -p /tmp/base && git archive 76ffc3a kernel_templates | tar -x -C /tmp/base
for dir in /tmp/base/kernel_templates $PWD/kernel_templates; do
  echo "## templates: $([[ $dir == /tmp/base/* ]] && echo 76ffc3a || git log -1 --format=%h) $(git status --short kernel_templates | tr '\n' ' ')"
  JITK_TEMPLATE_DIR=$dir build/tests/jitk_lib_attention_tests --gtest_filter='*EveryDecodeDefault*' 2>&1 |
    grep -E "mask=[23] |actual|OK \]|FAILED  \]|SKIPPED \]"
done > $D/compile_test.txt
