#!/bin/bash
# Device visit (CUDA backend and tuner test binaries of the commit in
# .carry/build/COMMIT.cuda): the CUDA backend's tests three times in a row
# (the first may fill NVRTC's own cache, the later ones are served from it,
# without a ptxas report; the register-limit test among them), then the
# tuner's compile-pruning tests.
B=.carry/build
mkdir -p "$OUT"
S="$OUT/summary.txt"
echo "commit $(cat $B/COMMIT.cuda) $(date -u +%FT%TZ)" > $S
nvidia-smi --query-gpu=name,driver_version --format=csv,noheader >> $S
for i in 1 2 3; do
  $B/tests/jitk_lib_backend_cuda_tests > $OUT/cuda_tests_$i.log 2>&1
  echo "cuda backend tests run $i rc=$? $(grep -E '^\[  (PASSED|FAILED|SKIPPED) ' $OUT/cuda_tests_$i.log | tr '\n' ' ')" >> $S
  grep -E "^\[  FAILED  \] [A-Z]" $OUT/cuda_tests_$i.log | sort -u >> $S
done
$B/tests/jitk_tuner_tests --gtest_filter='CompilePruningTest.*' > $OUT/pruning.log 2>&1
echo "compile pruning rc=$? $(grep -E '^\[  (PASSED|FAILED|SKIPPED) ' $OUT/pruning.log | tr '\n' ' ')" >> $S
grep -E "Skipped|skipped" -A1 $OUT/pruning.log | head -4 >> $S
cat $S
