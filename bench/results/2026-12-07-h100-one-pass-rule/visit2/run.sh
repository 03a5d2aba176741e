#!/bin/bash
# One device visit: decode steps whose default changes with
# kOnePassSharedWindowTiles (windows of 192 and 256 keys at B=4 and 8), this
# build's library against the previous one's (.carry/old), two alternating
# passes; then every GPU test (check_all.sh GPU_ONLY=1) and the Python tests.
cd "$(dirname "$0")/../../../.."
B=.carry/build
L=/tmp/logs_v4; rm -rf $L; mkdir -p "$OUT" $L
S="$OUT/summary.txt"
echo "commit $(cat $B/COMMIT | tr '\n' ' ') $(date -u +%FT%TZ)" > $S
nvidia-smi --query-gpu=name,driver_version,clocks.max.sm --format=csv,noheader >> $S
export JITK_CACHE_DIR=/tmp/jitk-cache LD_LIBRARY_PATH=$PWD/$B/lib/c_api
for pass in 1 2; do
  for lib in old new; do
    so=$PWD/$B/lib/c_api/libjitk_c.so; [[ $lib == old ]] && so=$PWD/.carry/old/libjitk_c.so
    for wb in "192 8" "256 8" "256 4" "192 4"; do
      set -- $wb
      echo "## $lib pass $pass"
      JITK_CACHE_DIR=/tmp/jitk-cache-$lib JITK_LIBRARY=$so PYTHONPATH=$PWD/python timeout 100 \
        python3 bench/device/decode_step.py --window $1 --shapes "$2,32,8,1,32768" 2>&1 | grep -v "system DB"
    done
  done
done > $OUT/decode_ab.txt
echo "decode rc=$? $(date -u +%T)" >> $S
export JITK_LIBRARY=$PWD/$B/lib/c_api/libjitk_c.so
GPU_ONLY=1 OUT=$L timeout 330 bash bench/device/check_all.sh $B > $OUT/check_table.txt 2>&1
echo "check_all rc=$? $(date -u +%T)" >> $S
gzip -c $L/check_all.log > $OUT/check_all.log.gz
PYTHONPATH=$PWD/python timeout 300 python3 -m unittest discover -s tests/python -v > $L/python_tests.log 2>&1
echo "python tests rc=$? $(grep -E '^(Ran|OK|FAILED)' $L/python_tests.log | tr '\n' ' ') $(date -u +%T)" >> $S
cp $L/python_tests.log $OUT/
cat $S; tail -8 $OUT/check_table.txt
grep -E "FAIL|ERROR" $L/python_tests.log | head
grep -E "^##|32768" $OUT/decode_ab.txt | cut -c1-110 | paste - - 
