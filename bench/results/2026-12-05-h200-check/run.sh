#!/bin/bash
# Device visit (the build in .carry/build, COMMIT names its commit): every test
# that skips without a GPU, for real on the H200, at the default attention target
# (sm_90a) and again with JITK_ATTN_TARGET=sm_90 (mma.sync); launch_bench (the
# steps of Kernel::Launch); the sparse_attn defaults timed on the block-sparse
# cases and causal, two alternating passes of the embedded templates (head)
# and of .carry/tpl_np (the same without the two warpgroups' ping-pong).
# Short table last.
cd "$(dirname "$0")/../../.."
B=.carry/build
L=/tmp/logs; mkdir -p "$OUT" $L
S="$OUT/summary.txt"
echo "commit $(cat $B/COMMIT) $(date -u +%FT%TZ)" > $S
nvidia-smi --query-gpu=name,driver_version,clocks.max.sm --format=csv,noheader >> $S
export GTEST_FILTER='*GpuTest*:CompilePruningTest.*:HipBackendTest.*'
JITK_CACHE_DIR=/tmp/c_default OUT=$L/default timeout 200 bash bench/device/check_all.sh $B > $L/default.txt 2>&1
JITK_ATTN_TARGET=sm_90 JITK_CACHE_DIR=/tmp/c_sm90 OUT=$L/sm90 timeout 150 bash bench/device/check_all.sh $B > $L/sm90.txt 2>&1
unset GTEST_FILTER
for t in default sm90; do
  echo "== check_all $t" >> $S
  grep -E "rc=|FAILED" $L/$t.txt >> $S
  grep -o "cos [0-9.]*" $L/$t/check_all.log | sort | head -1 | sed 's/^/worst attention /' >> $S
  grep -E "^\[  (PASSED|SKIPPED|FAILED)  ?\] [0-9]+ test" $L/$t/check_all.log |
    awk '{n[$2]+=$4} END {for (k in n) print "tests " k, n[k]}' >> $S
done
echo "checks done $(date -u +%T)" >> $S
timeout 60 $B/bench/launch_bench --benchmark_min_time=0.2 --benchmark_out=$OUT/launch_bench.json \
  --benchmark_out_format=json > $L/launch_bench.txt 2>&1
echo "launch_bench rc=$?" >> $S
grep -E "^BM_" $L/launch_bench.txt >> $S
BIN=$B/tests/jitk_lib_attention_tests OUT=$L/timing TIMEOUT=120 bash bench/device/attention_ab.sh sm_90a 2 head=- np=.carry/tpl_np -- \
  "random blocks,causal f16 L=4096,causal f16 L=16384" > /dev/null 2>&1
cp $L/timing/table.md $OUT/table_sm_90a.md; cat $L/timing/runs.txt >> $S
echo "done $(date -u +%T)" >> $S
tar czf "$OUT/logs.tar.gz" --exclude='cache_*' --exclude='jitk-cache' -C $L .
cat $S $OUT/table_sm_90a.md
