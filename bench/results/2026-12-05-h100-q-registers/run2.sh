#!/bin/bash
# Second device visit (.carry/build of the working tree): Q in registers for
# one computing warpgroup only (kQInRegisters, the build's own templates,
# "new") against the templates of the commit before (.carry/tpl_base), three
# alternating passes; then every GPU and compile test with "new".
cd "$(dirname "$0")/../../.."
B=.carry/build
L=/tmp/logs2; mkdir -p "$OUT" $L
S="$OUT/summary.txt"
echo "commit $(cat $B/COMMIT | tr '\n' ' ') $(date -u +%FT%TZ)" > $S
nvidia-smi --query-gpu=name,driver_version,clocks.max.sm --format=csv,noheader >> $S
BIN=$B/tests/jitk_lib_attention_tests OUT=$L/ab TIMEOUT=100 bash bench/device/attention_ab.sh sm_90a 3 \
  base=.carry/tpl_base new=- -- \
  "causal f16 L=4096,dense f16 L=4096,random blocks 10%,random blocks 30%,sliding 1024+128 f16" \
  > /dev/null 2>&1
cp $L/ab/table.md $OUT/table_ab.md; grep rc= $L/ab/runs.txt >> $S
echo "timing done $(date -u +%T)" >> $S
export LD_LIBRARY_PATH=$B/bench:$B/lib/c_api
GPU_ONLY=1 JITK_CACHE_DIR=/tmp/c_check2 OUT=$L/check timeout 300 bash bench/device/check_all.sh $B \
  > $OUT/check_all.txt 2>&1
grep -E "^(worst attention|tests )" $OUT/check_all.txt >> $S
grep -E "^\[  FAILED  \] [A-Z]" $L/check/check_all.log | sort -u >> $S
cp $L/check/check_all.log $OUT/
echo "done $(date -u +%T)" >> $S
tar czf $OUT/logs.tar.gz -C $L ab 2>/dev/null
cat $S; tail -14 $OUT/check_all.txt; cat $OUT/table_ab.md
