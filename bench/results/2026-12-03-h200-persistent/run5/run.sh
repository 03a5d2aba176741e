#!/bin/bash
# Device visit 5, commit b046bd9: the CUDA backend's GPU tests (tensor-map
# encoding among them), the sparse_attn GPU tests of the committed build and
# of .carry/tpl_pre (templates through JITK_TEMPLATE_DIR: the computing
# warpgroups read the next query tile's block-mask row before storing this
# one), and the defaults timed alternately with both.
cd "$(dirname "$0")/../../../.."
B=.carry/build/tests
L=/tmp/logs; mkdir -p "$OUT" $L
S="$OUT/summary.txt"
echo "commit $(cat .carry/build/COMMIT) $(date -u +%FT%TZ)" > $S
nvidia-smi --query-gpu=name,driver_version --format=csv,noheader >> $S
JITK_CACHE_DIR=/tmp/cache timeout 100 $B/jitk_lib_backend_cuda_tests > $L/cuda_tests.log 2>&1
echo "cuda backend tests rc=$? $(grep -E '^\[  (PASSED|FAILED|SKIPPED)' $L/cuda_tests.log | tr '\n' ' ')" >> $S
grep -E "^\[  FAILED  \] [A-Z]|EncodesTensorMaps|broadcast stride" $L/cuda_tests.log >> $S
for v in base pre; do
  T=""; [ $v = pre ] && T=$PWD/.carry/tpl_pre
  env ${T:+JITK_TEMPLATE_DIR=$T} JITK_CACHE_DIR=/tmp/cache_$v timeout 150 $B/jitk_lib_attention_tests \
    --gtest_filter='SparseAttnGpuTest.*' > $L/attn_$v.log 2>&1
  echo "attention gpu tests $v rc=$? $(grep -E '^\[  (PASSED|FAILED)' $L/attn_$v.log | tr '\n' ' ')" \
    "worst $(grep -o 'cos [0-9.]*' $L/attn_$v.log | sort | head -1), cases $(grep -c 'cos ' $L/attn_$v.log)" >> $S
done
for i in 1 2; do for v in base pre; do
  T=""; [ $v = pre ] && T=$PWD/.carry/tpl_pre
  env ${T:+JITK_TEMPLATE_DIR=$T} JITK_CACHE_DIR=/tmp/cache_$v JITK_ATTN_NO_SWEEP=1 \
    JITK_ATTN_RESULTS="$OUT/timing_${v}_$i.txt" timeout 90 $B/jitk_lib_attention_tests \
    --gtest_also_run_disabled_tests --gtest_filter='SparseAttnGpuTest.DISABLED_Timing' > $L/timing_${v}_$i.log 2>&1
  echo "timing $v $i rc=$?" >> $S
done; done
tar czf "$OUT/logs.tar.gz" -C $L .
cat $S
paste -d'|' <(cut -d'|' -f1,3 "$OUT/timing_base_1.txt") <(cut -d'|' -f3 "$OUT/timing_pre_1.txt") \
  <(cut -d'|' -f3 "$OUT/timing_base_2.txt") <(cut -d'|' -f3 "$OUT/timing_pre_2.txt")
