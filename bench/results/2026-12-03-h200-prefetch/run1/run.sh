#!/bin/bash
# Device visit 1 for the L2 prefetch of the next query tile (working tree on
# 8a36a64): the sparse_attn GPU tests with the prefetching templates (embedded
# in the build), the CUDA backend tests, launch_bench (sparse_attn launch and
# tensor-map encoding cost), then the defaults timed alternately with five
# template sets: pf (embedded: next tile's Q and first K/V tiles prefetched
# into L2), base (8a36a64), pfq (Q only), and two diagnostics that are wrong
# on purpose and only bound the time: noq (Q loaded for the first tile only)
# and nost (output never stored).
cd "$(dirname "$0")/../../../.."
B=.carry/build
L=/tmp/logs; mkdir -p "$OUT" $L
S="$OUT/summary.txt"
echo "commit $(cat $B/COMMIT | tr '\n' ' ') $(date -u +%FT%TZ)" > $S
nvidia-smi --query-gpu=name,driver_version --format=csv,noheader >> $S
JITK_CACHE_DIR=/tmp/cache timeout 100 $B/tests/jitk_lib_backend_cuda_tests > $L/cuda_tests.log 2>&1
echo "cuda backend tests rc=$? $(grep -E '^\[  (PASSED|FAILED|SKIPPED)' $L/cuda_tests.log | tr '\n' ' ')" >> $S
grep -E "^\[  FAILED  \] [A-Z]" $L/cuda_tests.log >> $S
JITK_CACHE_DIR=/tmp/cache_pf timeout 150 $B/tests/jitk_lib_attention_tests \
  --gtest_filter='SparseAttnGpuTest.*' > $L/attn_pf.log 2>&1
echo "attention gpu tests pf rc=$? $(grep -E '^\[  (PASSED|FAILED)' $L/attn_pf.log | tr '\n' ' ')" \
  "worst $(grep -o 'cos [0-9.]*' $L/attn_pf.log | sort | head -1), cases $(grep -c 'cos ' $L/attn_pf.log)" >> $S
LD_LIBRARY_PATH=$B/bench JITK_CACHE_DIR=/tmp/cache_lb timeout 120 $B/bench/launch_bench \
  --benchmark_min_time=0.2 --benchmark_out="$OUT/launch_bench.json" --benchmark_out_format=json \
  > $L/launch_bench.log 2>&1
echo "launch_bench rc=$?" >> $S
ONLY="causal f16 L=4096,random blocks 10%,random blocks 30%,sliding,dense"
V="pf base pfq noq nost"
for i in 1 2; do for v in $V; do
  T=""; [ $v != pf ] && T=$PWD/.carry/tpl_$v
  env ${T:+JITK_TEMPLATE_DIR=$T} JITK_CACHE_DIR=/tmp/cache_$v JITK_ATTN_NO_SWEEP=1 JITK_ATTN_ONLY="$ONLY" \
    JITK_ATTN_RESULTS="$OUT/timing_${v}_$i.txt" timeout 60 $B/tests/jitk_lib_attention_tests \
    --gtest_also_run_disabled_tests --gtest_filter='SparseAttnGpuTest.DISABLED_Timing' > $L/timing_${v}_$i.log 2>&1
  echo "timing $v $i rc=$?" >> $S
done; done
tar czf "$OUT/logs.tar.gz" -C $L .
cat $S
grep -E "^BM_" $L/launch_bench.log
echo "case | pf1 | base1 | pfq1 | noq1 | nost1 | pf2 | base2 | pfq2 | noq2 | nost2"
C=""; for i in 1 2; do for v in $V; do
  cut -d'|' -f4 "$OUT/timing_${v}_$i.txt" > $L/col_${v}_$i; C="$C $L/col_${v}_$i"; done; done
paste -d'|' <(cut -d'|' -f1 "$OUT/timing_pf_1.txt") $C
