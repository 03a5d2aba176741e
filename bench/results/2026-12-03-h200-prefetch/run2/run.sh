#!/bin/bash
# Device visit 2 (working tree on 8a36a64): the sparse_attn GPU tests with
# the embedded templates (next query tile's Q prefetched into L2, O written
# 16 bytes per lane after a transpose within each quad), launch_bench, then
# the defaults timed alternately three times: new (embedded), base
# (8a36a64), pfq (the prefetch alone).
cd "$(dirname "$0")/../../../.."
B=.carry/build
L=/tmp/logs; mkdir -p "$OUT" $L
S="$OUT/summary.txt"
echo "commit $(cat $B/COMMIT | tr '\n' ' ') $(date -u +%FT%TZ)" > $S
nvidia-smi --query-gpu=name,driver_version --format=csv,noheader >> $S
JITK_CACHE_DIR=/tmp/cache_new timeout 150 $B/tests/jitk_lib_attention_tests \
  --gtest_filter='SparseAttnGpuTest.*' > $L/attn_new.log 2>&1
echo "attention gpu tests new rc=$? $(grep -E '^\[  (PASSED|FAILED)' $L/attn_new.log | tr '\n' ' ')" \
  "worst $(grep -o 'cos [0-9.]*' $L/attn_new.log | sort | head -1), cases $(grep -c 'cos ' $L/attn_new.log)" >> $S
grep -E "^\[  FAILED  \] [A-Z]" $L/attn_new.log >> $S
LD_LIBRARY_PATH=$B/bench JITK_CACHE_DIR=/tmp/cache_lb timeout 120 $B/bench/launch_bench \
  --benchmark_min_time=0.2 --benchmark_filter=SparseAttn > $L/launch_bench.log 2>&1
echo "launch_bench rc=$?" >> $S
ONLY="causal f16 L=4096,causal bf16 L=16384,random blocks,sliding,dense"
V="new base pfq"
for i in 1 2 3; do for v in $V; do
  T=""; [ $v != new ] && T=$PWD/.carry/tpl_$v
  env ${T:+JITK_TEMPLATE_DIR=$T} JITK_CACHE_DIR=/tmp/cache_$v JITK_ATTN_NO_SWEEP=1 JITK_ATTN_ONLY="$ONLY" \
    JITK_ATTN_RESULTS="$L/timing_${v}_$i.txt" timeout 60 $B/tests/jitk_lib_attention_tests \
    --gtest_also_run_disabled_tests --gtest_filter='SparseAttnGpuTest.DISABLED_Timing' > $L/timing_${v}_$i.log 2>&1
  echo "timing $v $i rc=$?" >> $S
done; done
C=""; for i in 1 2 3; do for v in $V; do
  cut -d'|' -f4 "$L/timing_${v}_$i.txt" > $L/col_${v}_$i; C="$C $L/col_${v}_$i"; done; done
{ echo "case | new1 | base1 | pfq1 | new2 | base2 | pfq2 | new3 | base3 | pfq3"
  paste -d'|' <(cut -d'|' -f1 "$L/timing_new_1.txt") $C; } > $OUT/table.txt
cp $L/timing_new_1.txt $OUT/
tar czf "$OUT/logs.tar.gz" -C $L .
cat $S
grep -E "^BM_" $L/launch_bench.log
cat $OUT/table.txt
