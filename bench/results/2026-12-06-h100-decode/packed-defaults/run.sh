#!/usr/bin/env bash
# Decode defaults with grouped heads packed: the decode steps against SDPA
# (f16 and bf16), the attention GPU tests, the Python tests.
cd "$(dirname "$0")/../../../.."
B=.carry/build
export JITK_LIBRARY=$PWD/$B/lib/c_api/libjitk_c.so PYTHONPATH=$PWD/python
export JITK_CACHE_DIR=/tmp/jitk-cache
nvidia-smi --query-gpu=name,driver_version --format=csv,noheader | tee $OUT/gpu.txt
cat $B/COMMIT | tee -a $OUT/gpu.txt
SHAPES="1,32,8,1,4096;1,32,8,1,32768;1,32,8,1,131072;8,32,8,1,8192;4,32,32,1,16384;1,32,8,4,32768;1,32,8,16,32768"
python3 bench/device/decode_step.py --shapes "$SHAPES" > $OUT/decode_default.txt 2>&1
python3 bench/device/decode_step.py --dtype bfloat16 --shapes "1,32,8,1,32768;8,32,8,1,8192" \
  > $OUT/decode_default_bf16.txt 2>&1
$B/tests/jitk_lib_attention_tests --gtest_filter='SparseAttnGpuTest.*' > $OUT/attention_gpu.txt 2>&1
echo "attention gpu rc=$?" >> $OUT/attention_gpu.txt
python3 -m unittest discover -s tests/python > $OUT/python_tests.txt 2>&1
tail -3 $OUT/attention_gpu.txt; grep -o "cos [0-9.]*" $OUT/attention_gpu.txt | sort -k2 | head -1
tail -3 $OUT/python_tests.txt
cat $OUT/decode_default.txt $OUT/decode_default_bf16.txt | grep -v "system DB"
