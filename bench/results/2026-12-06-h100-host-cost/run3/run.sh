#!/bin/bash
# One device visit (.carry/build of the working tree; .carry/lib_head and
# .carry/python_head = libjitk_c.so and python/ of a3e3425): the Python tests on the GPU;
# a first call with JITK_TUNE=force inside a capture (probe); host_cost.py head / working
# tree in fresh processes alternating, pinned to one core.
cd "$(dirname "$0")/../../../.."
B=.carry/build
L=/tmp/logs_g; rm -rf $L; mkdir -p "$OUT" $L
S="$OUT/summary.txt"
echo "commit $(cat $B/COMMIT | tr '\n' ' ') $(date -u +%FT%TZ)" > $S
nvidia-smi --query-gpu=name,driver_version,clocks.max.sm --format=csv,noheader >> $S
export JITK_CACHE_DIR=/tmp/jitk-cache LD_LIBRARY_PATH=$PWD/$B/lib/c_api
export JITK_LIBRARY=$PWD/$B/lib/c_api/libjitk_c.so
PYTHONPATH=$PWD/python timeout 300 python3 -m unittest discover -s tests/python -v > $L/python_tests.log 2>&1
echo "python tests rc=$? $(grep -E '^(Ran|OK|FAILED)' $L/python_tests.log | tr '\n' ' ')" >> $S
JITK_TUNE=force JITK_CACHE_DIR=/tmp/jitk-cache-tune PYTHONPATH=$PWD/python timeout 300 python3 .carry/probe_tune_capture.py  # probe_tune_capture.py beside this file > $OUT/probe_tune_capture.txt 2>&1
echo "probe rc=$?" >> $S
for pass in 1 2; do
  for v in head new; do
    if [ $v = head ]; then lib=.carry/lib_head; py=.carry/python_head; else lib=$B/lib/c_api; py=python; fi
    echo "$v: $lib $py" >> $OUT/host_cost.txt
    JITK_LIBRARY=$PWD/$lib/libjitk_c.so PYTHONPATH=$PWD/$py timeout 120 taskset -c 3 python3 bench/device/host_cost.py \
      >> $OUT/host_cost.txt 2>>$L/host_cost.err
  done
done
echo "host cost done rc=$? $(date -u +%T)" >> $S
tar czf $OUT/logs.tar.gz --exclude=jitk-cache* -C $L . 2>/dev/null
cat $S $OUT/host_cost.txt | cut -c1-300
tail -c 3000 $OUT/probe_tune_capture.txt
grep -E "FAIL|ERROR|Error" $L/python_tests.log | head
