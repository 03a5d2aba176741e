#!/bin/bash
# One device visit (.carry/build of the commit in COMMIT): every GPU test
# (check_all.sh GPU_ONLY=1) and the Python tests; the memory floor of the
# headline shape (memory_floor.py) beside the defaults on the headline
# attention cases (attention_ab.sh, two passes); decode steps under windows
# of 256, 1024 and 4096 keys: the default, its range count pinned, and
# three K / V stages instead of two.
cd "$(dirname "$0")/../../.."
B=.carry/build
L=/tmp/logs_v1; rm -rf $L; mkdir -p "$OUT" $L
S="$OUT/summary.txt"
echo "commit $(cat $B/COMMIT | tr '\n' ' ') $(date -u +%FT%TZ)" > $S
nvidia-smi --query-gpu=name,driver_version,clocks.max.sm --format=csv,noheader >> $S
export JITK_CACHE_DIR=/tmp/jitk-cache LD_LIBRARY_PATH=$PWD/$B/lib/c_api
export JITK_LIBRARY=$PWD/$B/lib/c_api/libjitk_c.so
GPU_ONLY=1 OUT=$L timeout 330 bash bench/device/check_all.sh $B > $OUT/check_table.txt 2>&1
echo "check_all rc=$? $(date -u +%T)" >> $S
gzip -c $L/check_all.log > $OUT/check_all.log.gz
PYTHONPATH=$PWD/python timeout 300 python3 -m unittest discover -s tests/python -v > $L/python_tests.log 2>&1
echo "python tests rc=$? $(grep -E '^(Ran|OK|FAILED)' $L/python_tests.log | tr '\n' ' ') $(date -u +%T)" >> $S
{
  timeout 60 python3 bench/device/memory_floor.py
  BIN=$B/tests/jitk_lib_attention_tests OUT=$L/ab timeout 200 bash bench/device/attention_ab.sh - 2 main=- -- \
    "causal f16 L=4096,random blocks 10% f16 L=4096,causal f16 L=4096 d=64,random blocks 10% f16 L=4096 d=64"
  timeout 60 python3 bench/device/memory_floor.py --d 64
} > $OUT/memory_floor.txt 2>&1
echo "memory floor rc=$? $(date -u +%T)" >> $S
run_decode() {  # window, shape, ranges
  PYTHONPATH=$PWD/python timeout 100 python3 bench/device/decode_step.py --window $1 --shapes "$2" \
    --configs "BLOCK_M=64,BLOCK_N=64,KV_SPLITS=$3,STAGES=2,WAVES=4;BLOCK_M=64,BLOCK_N=64,KV_SPLITS=$3,STAGES=3,WAVES=4" \
    2>&1 | grep -v "system DB"
}
for w in 256 1024 4096; do
  run_decode $w "1,32,8,1,32768" 16
  run_decode $w "8,32,8,1,32768" 4
done > $OUT/decode.txt
echo "decode rc=$? $(date -u +%T)" >> $S
tar czf "$OUT/logs.tar.gz" --exclude=jitk-cache* --exclude=cache_* --exclude=check_all.log -C $L .
cat $S; tail -8 $OUT/check_table.txt
grep -E "FAIL|ERROR" $L/python_tests.log | head
grep -E "^\||TB/s|O = " $OUT/memory_floor.txt | cut -c1-150
grep 32768 $OUT/decode.txt | cut -c1-150
