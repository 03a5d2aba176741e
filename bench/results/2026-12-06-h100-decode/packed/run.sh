#!/usr/bin/env bash
# Grouped heads packed as rows: the decode steps against SDPA with the
# defaults, a tuning sweep of two decode shapes (splits counted on packed
# tiles), the attention GPU tests, the Python tests.
cd "$(dirname "$0")/../../../.."
B=.carry/build
export JITK_LIBRARY=$PWD/$B/lib/c_api/libjitk_c.so PYTHONPATH=$PWD/python
export JITK_CACHE_DIR=/tmp/jitk-cache
nvidia-smi --query-gpu=name,driver_version --format=csv,noheader | tee $OUT/gpu.txt
cat $B/COMMIT | tee -a $OUT/gpu.txt
SHAPES="1,32,8,1,4096;1,32,8,1,32768;1,32,8,1,131072;8,32,8,1,8192;4,32,32,1,16384;1,32,8,4,32768;1,32,8,16,32768"
python3 bench/device/decode_step.py --shapes "$SHAPES" > $OUT/decode_default.txt 2>&1
export JITK_CACHE_DIR=$OUT/tuned
for s in "f16;b=1;block=128;d=128;hkv=8;hq=32;layout=0;lk=32768;lq=1" \
         "f16;b=8;block=128;d=128;hkv=8;hq=32;layout=0;lk=8192;lq=1"; do
  $B/tuner/jitk-tune --kernel sparse_attn --shape "$s" --budget 45s --json >> $OUT/tune.json 2>> $OUT/tune.log
done
python3 bench/device/decode_step.py --shapes "1,32,8,1,32768;8,32,8,1,8192" > $OUT/decode_tuned.txt 2>&1
rm -f $OUT/tuned/*.lock
export JITK_CACHE_DIR=/tmp/jitk-cache
$B/tests/jitk_lib_attention_tests --gtest_filter='SparseAttnGpuTest.*' > $OUT/attention_gpu.txt 2>&1
echo "attention gpu rc=$?" >> $OUT/attention_gpu.txt
python3 -m unittest discover -s tests/python > $OUT/python_tests.txt 2>&1
tail -3 $OUT/attention_gpu.txt; grep -o "cos [0-9.]*" $OUT/attention_gpu.txt | sort -k2 | head -1
tail -3 $OUT/python_tests.txt; grep "best" $OUT/tune.log
cat $OUT/decode_default.txt $OUT/decode_tuned.txt | grep -v "system DB"
