#!/bin/bash
# Built on the CPU machine (CUDA 13.0 nvcc), carried as build-mp:
#   /usr/local/cuda/bin/nvcc -O3 -arch=sm_90 -o build-mp/mma_peak bench/device/mma_peak.cu
# then one device call, carry ["build-mp"]:
mkdir -p $OUT; for i in 1 2; do timeout 60 ./build-mp/mma_peak ; echo rc=$?; done | tee $OUT/mma_peak_full.md
