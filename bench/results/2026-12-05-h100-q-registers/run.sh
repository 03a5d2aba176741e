#!/bin/bash
# One device visit (.carry/build of the working tree in .carry/build/COMMIT):
# Q held in registers by the consumer warps (.carry/tpl_qreg) and, on top of
# it, the next query tile's S(0) issued with the last P V (the build's own
# templates, "s0") against the templates of the commit before (.carry/tpl_base),
# three alternating passes; then every GPU and compile test with "s0", and the
# attention GPU tests with "qreg". Short tables last.
cd "$(dirname "$0")/../../.."
B=.carry/build
L=/tmp/logs; mkdir -p "$OUT" $L
S="$OUT/summary.txt"
echo "commit $(cat $B/COMMIT | tr '\n' ' ') $(date -u +%FT%TZ)" > $S
nvidia-smi --query-gpu=name,driver_version,clocks.max.sm --format=csv,noheader >> $S
BIN=$B/tests/jitk_lib_attention_tests OUT=$L/ab TIMEOUT=100 bash bench/device/attention_ab.sh sm_90a 3 \
  base=.carry/tpl_base qreg=.carry/tpl_qreg s0=- -- \
  "causal f16 L=4096,dense f16 L=4096,random blocks 10%,random blocks 30%,sliding 1024+128 f16" \
  > /dev/null 2>&1
cp $L/ab/table.md $OUT/table_ab.md; grep rc= $L/ab/runs.txt >> $S
echo "timing done $(date -u +%T)" >> $S
export LD_LIBRARY_PATH=$B/bench:$B/lib/c_api
GPU_ONLY=1 JITK_CACHE_DIR=/tmp/c_check OUT=$L/check timeout 270 bash bench/device/check_all.sh $B \
  > $OUT/check_all.txt 2>&1
grep -E "^(worst attention|tests )" $OUT/check_all.txt | sed 's/^/s0: /' >> $S
grep -E "^\[  FAILED  \] [A-Z]" $L/check/check_all.log | sort -u >> $S
cp $L/check/check_all.log $OUT/
echo "check done $(date -u +%T)" >> $S
JITK_TEMPLATE_DIR=$(realpath .carry/tpl_qreg) JITK_CACHE_DIR=/tmp/c_qreg timeout 150 \
  $B/tests/jitk_lib_attention_tests --gtest_filter='SparseAttnGpuTest.*' > $OUT/qreg_gpu_tests.log 2>&1
echo "qreg: attention GPU tests rc=$? $(grep -E '^\[  (PASSED|FAILED)' $OUT/qreg_gpu_tests.log | tr '\n' ' ')" >> $S
grep -o "cos [0-9.]*" $OUT/qreg_gpu_tests.log | sort -t' ' -k2 | head -1 | sed 's/^/qreg: worst /' >> $S
echo "done $(date -u +%T)" >> $S
tar czf $OUT/logs.tar.gz -C $L ab 2>/dev/null
cat $S; tail -14 $OUT/check_all.txt; cat $OUT/table_ab.md
