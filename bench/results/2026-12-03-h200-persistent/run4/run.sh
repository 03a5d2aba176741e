#!/bin/bash
# Device visit 4: the tensor maps as the kernel's second argument. GPU tests,
# timings of the defaults (no sweep).
cd "$(dirname "$0")/../../../.."
B=.carry/build/tests
L=/tmp/logs; mkdir -p "$OUT" $L
S="$OUT/summary.txt"
echo "commit $(cat .carry/build/COMMIT) $(date -u +%FT%TZ)" > $S
nvidia-smi --query-gpu=name,driver_version --format=csv,noheader >> $S
gpu_tests() {  # name, then env
  local name=$1; shift
  env "$@" JITK_CACHE_DIR=/tmp/cache_$name timeout 150 $B/jitk_lib_attention_tests \
    --gtest_filter='SparseAttnGpuTest.*' > $L/tests_$name.log 2>&1
  echo "gpu tests $name rc=$? $(grep -E '^\[  (PASSED|FAILED)' $L/tests_$name.log | tr '\n' ' ')" >> $S
  grep -E "^\[  FAILED  \] [A-Z]" $L/tests_$name.log >> $S
  echo "  worst cos: $(grep -o 'cos [0-9.]*' $L/tests_$name.log | sort | head -1), cases $(grep -c 'cos ' $L/tests_$name.log)" >> $S
}
timing() {  # name, timeout, then env
  local name=$1 t=$2; shift 2
  env "$@" JITK_CACHE_DIR=/tmp/cache_$name JITK_ATTN_RESULTS="$OUT/timing_$name.txt" timeout $t \
    $B/jitk_lib_attention_tests --gtest_also_run_disabled_tests \
    --gtest_filter='SparseAttnGpuTest.DISABLED_Timing' > $L/timing_$name.log 2>&1
  echo "timing $name rc=$?" >> $S
}
gpu_tests base X=1
timing base 150 JITK_ATTN_NO_SWEEP=1


tar czf "$OUT/logs.tar.gz" -C $L .
cat $S; for f in "$OUT"/timing_*.txt; do echo "--- $f"; cut -d'|' -f1-4 "$f"; done
