#!/bin/bash
# Device visit 2, right after run.sh on the same machine (.carry/build of
# 81eccf0): the register-limit test alone and in its suites, with and without
# the carried libraries on the path; which NVRTC the image has.
B=.carry/build; T=$B/tests/jitk_lib_backend_cuda_tests; F=CudaGpuTest.MaxThreadsPerBlockMatchesTheDriver
r(){ echo "== $1"; shift; "$@" 2>&1 | grep -E "registers read|^\[  (PASSED|FAILED) " | head -3; }
r alone $T --gtest_filter=$F
r alone-ldpath env LD_LIBRARY_PATH=$B/bench:$B/lib/c_api $T --gtest_filter=$F
r gpu-suite $T --gtest_filter='*GpuTest*'
r gpu-suite-ldpath env LD_LIBRARY_PATH=$B/bench:$B/lib/c_api $T --gtest_filter='*GpuTest*'
r all $T
ldd $T | grep -i -E "nvrtc|cuda"; ls /usr/local/cuda/lib64 | grep -i nvrtc | head
env | grep -i -E "^CUDA|NVRTC" | head
