#!/usr/bin/env bash
# Key-range splits on the GPU: every GPU test, the decode steps with the
# default configs, a tuning sweep of two decode shapes, the decode steps
# with the tuned configs, the Python tests.
cd "$(dirname "$0")/../../../.."
B=.carry/build
export JITK_LIBRARY=$PWD/$B/lib/c_api/libjitk_c.so PYTHONPATH=$PWD/python
export JITK_CACHE_DIR=$OUT/cache
nvidia-smi --query-gpu=name,driver_version --format=csv,noheader | tee $OUT/gpu.txt
cat $B/COMMIT | tee -a $OUT/gpu.txt
OUT=$OUT/check GPU_ONLY=1 bash bench/device/check_all.sh $B > $OUT/check_table.txt 2>&1
python3 bench/device/decode_step.py > $OUT/decode_default.txt 2>&1
python3 -m unittest discover -s tests/python > $OUT/python_tests.txt 2>&1
for s in "f16;b=1;block=128;d=128;hkv=8;hq=32;layout=0;lk=32768;lq=1" \
         "f16;b=8;block=128;d=128;hkv=8;hq=32;layout=0;lk=8192;lq=1"; do
  $B/tuner/jitk-tune --kernel sparse_attn --shape "$s" --budget 60s --json >> $OUT/tune.json 2>> $OUT/tune.log
done
python3 bench/device/decode_step.py > $OUT/decode_tuned.txt 2>&1
rm -rf $OUT/cache/*.db-* 2>/dev/null
tail -4 $OUT/python_tests.txt; cat $OUT/check_table.txt | tail -25
cat $OUT/decode_default.txt $OUT/decode_tuned.txt | grep -v "system DB"
