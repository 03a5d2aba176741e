#!/usr/bin/env bash
# CPU machine (no GPU), nvcc 13.0 and the build folder `build`: the softmax's
# exponentials two at a time in 16 bits (exp2_f16x2.patch on 0efe66d's
# templates). ptxas of the warp-specialized default (128/128/12/3, d = 128,
# f16, no element mask), then the emulator's wgmma cases (the templates are
# compiled into the test binary: patched, rebuilt, run, restored).
cd "$(dirname "$0")/../../.."
N=/usr/local/cuda-13.0/bin
D=bench/results/2026-12-07-cpu-exp2-f16x2
git apply $D/exp2_f16x2.patch
{
  $N/nvcc -arch=sm_90a -ptx -diag-suppress 1886,128 -I. -Ikernel_templates $D/ws_kernel.cu -o /tmp/ws.ptx
  echo "ex2.approx.f16x2 in the PTX: $(grep -c 'ex2.approx.f16x2' /tmp/ws.ptx)"
  $N/ptxas -arch=sm_90a -v /tmp/ws.ptx -o /dev/null 2>&1 | grep -E "Used|spill|C75"
  cmake --build build -j2 > /dev/null 2>&1
  build/tests/jitk_lib_attention_tests --gtest_filter='EmulatedWgmma*' 2>&1 |
    grep -E "Failure|Expected: \(result|: max_abs=|^\[  (PASSED|FAILED)"
} > $D/result.txt
git apply -R $D/exp2_f16x2.patch
cmake --build build -j2 > /dev/null 2>&1
