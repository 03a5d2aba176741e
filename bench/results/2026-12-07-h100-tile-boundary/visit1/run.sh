#!/bin/bash
# One device visit: the staged O's end-of-row math (1 / l and the LSE) under
# the query tile's last P V. Kernel templates against each other in the C++
# harness (three alternating passes, default configs): base (f330e8b's), new
# (finish_rows after the next tile's walk), b (finish_rows before the walk).
# Then the attention GPU tests on sm_90a with the new templates.
cd "$(dirname "$0")/../../../.."
B=.carry/build
L=/tmp/logs; rm -rf $L; mkdir -p "$OUT" $L
S="$OUT/summary.txt"
echo "commit $(cat $B/COMMIT | tr '\n' ' ') $(date -u +%FT%TZ)" > $S
nvidia-smi --query-gpu=name,driver_version,clocks.max.sm --format=csv,noheader >> $S
BIN=$B/tests/jitk_lib_attention_tests OUT=$L/ab TIMEOUT=100 bash bench/device/attention_ab.sh sm_90a 3 \
  new=.carry/tpl_new base=.carry/tpl_base b=.carry/tpl_b -- \
  "causal f16 L=4096,random blocks 10% f16 L=4096,random blocks 10% same keys,random blocks 30%,sliding 1024+128 f16 L=16384" \
  > /dev/null 2>&1
cp $L/ab/table.md $OUT/table_ab.md; grep rc= $L/ab/runs.txt | tr '\n' ';' >> $S
echo "ab done $(date -u +%T)" >> $S
JITK_TEMPLATE_DIR=$PWD/.carry/tpl_new timeout 150 $B/tests/jitk_lib_attention_tests \
  --gtest_filter='SparseAttnGpuTest.WgmmaEngineOnHopper' > $OUT/gpu_tests.txt 2>&1
echo "gpu tests rc=$? $(date -u +%T)" >> $S
awk '/ cos /{for(i=1;i<=NF;i++) if($i=="cos") print $(i+1)}' $OUT/gpu_tests.txt | sort -g | head -1 |
  sed 's/^/worst cos /' >> $S
grep -E "^\[  (PASSED|FAILED)" $OUT/gpu_tests.txt >> $S
tar czf $OUT/logs.tar.gz --exclude=cache* --exclude=templates -C $L . 2>/dev/null
cat $S $OUT/table_ab.md | cut -c1-300
