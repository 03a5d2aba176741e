#!/usr/bin/env bash
# Sliding-window decode steps with the split capped at the window's key tiles
# (58ec288) against the build before it (7a52b6d's libjitk_c.so, carried as
# .carry/old), two alternating passes; then the attention GPU tests and the
# Python tests at 58ec288.
cd "$(dirname "$0")/../../../.."
B=.carry/build
export PYTHONPATH=$PWD/python
nvidia-smi --query-gpu=name,driver_version --format=csv,noheader | tee $OUT/gpu.txt
cat $B/COMMIT | tee -a $OUT/gpu.txt
S="1,32,8,1,32768;8,32,8,1,32768"
for pass in 1 2; do
  for lib in old new; do
    so=$PWD/$B/lib/c_api/libjitk_c.so
    [[ $lib == old ]] && so=$PWD/.carry/old/libjitk_c.so
    for w in 128 1024 4096; do
      JITK_LIBRARY=$so JITK_CACHE_DIR=/tmp/jc-$lib python3 bench/device/decode_step.py \
        --window $w --shapes "$S" 2>&1 | grep -v "system DB" > $OUT/decode_w${w}_${lib}_pass$pass.txt
    done
  done
done
export JITK_LIBRARY=$PWD/$B/lib/c_api/libjitk_c.so JITK_CACHE_DIR=/tmp/jc-new
$B/tests/jitk_lib_attention_tests --gtest_filter='SparseAttnGpuTest.*' > $OUT/attention_gpu.txt 2>&1
echo "attention gpu rc=$?" >> $OUT/attention_gpu.txt
python3 -m unittest discover -s tests/python > $OUT/python_tests.txt 2>&1
tail -3 $OUT/attention_gpu.txt; grep -o "cos [0-9.]*" $OUT/attention_gpu.txt | sort -k2 | head -1
tail -3 $OUT/python_tests.txt
for f in $OUT/decode_w*_pass*.txt; do echo "== $(basename $f)"; tail -n 2 $f; done
