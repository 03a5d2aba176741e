#!/usr/bin/env bash
# The combine pass as a dependent launch (sm_90+): decode steps, sliding-window
# steps (one query row, and four: packed since this build), per-head-mask
# steps and a split prefill chunk, this build against
# 5287220's libjitk_c.so (.carry/old), two alternating passes, after the
# Python tests and every GPU test.
cd "$(dirname "$0")/../../../.."
B=.carry/build
export PYTHONPATH=$PWD/python
cp $B/lib/c_api/libabsl_* .carry/old/
{ nvidia-smi --query-gpu=name,driver_version,clocks.max.sm --format=csv,noheader; cat $B/COMMIT; } | tee $OUT/gpu.txt
JITK_LIBRARY=$PWD/$B/lib/c_api/libjitk_c.so JITK_CACHE_DIR=/tmp/jc-py \
  python3 -m unittest discover -s tests/python > $OUT/python_tests.txt 2>&1
tail -3 $OUT/python_tests.txt
OUT=$OUT/check GPU_ONLY=1 timeout 300 bash bench/device/check_all.sh $B > $OUT/check_table.txt 2>&1
tail -4 $OUT/check_table.txt
lib() { [[ $1 == old ]] && echo $PWD/.carry/old/libjitk_c.so || echo $PWD/$B/lib/c_api/libjitk_c.so; }
step() {  # old|new, then decode_step.py's arguments
  JITK_LIBRARY=$(lib $1) JITK_CACHE_DIR=/tmp/jc-$1 python3 bench/device/decode_step.py "${@:2}" 2>&1 |
    grep -v "system DB" | grep -v "^#"
}
for pass in $(seq ${PASSES:-2}); do
  for v in old new; do
    echo "== dense, $v (pass $pass)"
    step $v --shapes "1,32,8,1,4096;1,32,8,1,32768;8,32,8,1,8192"
    echo "== per-head mask, $v (pass $pass)"
    step $v --per-head-mask --shapes "1,32,8,1,32768"
    echo "== window 128, $v (pass $pass)"
    step $v --window 128 --shapes "1,32,8,1,32768;8,32,8,1,32768;1,32,8,4,32768;8,32,8,4,32768"
    echo "== prefill chunk, $v (pass $pass)"
    JITK_LIBRARY=$(lib $v) JITK_CACHE_DIR=/tmp/jc-$v python3 bench/device/prefill_chunk.py \
      --shapes "1,32,8,640,32768" 2>&1 | grep -v "system DB" | grep -v "^#"
  done
done > $OUT/decode_ab.txt 2>&1
grep -E "^==|^ +[0-9]" $OUT/decode_ab.txt | cut -c1-120
