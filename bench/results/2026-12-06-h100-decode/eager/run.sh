#!/usr/bin/env bash
# Decode steps called eagerly from Python (two launches and the scratch
# lookup per split call); a tuning sweep of a short causal prefill at
# batch 1 (few query tiles), where KV_SPLITS is swept but not the default.
cd "$(dirname "$0")/../../../.."
B=.carry/build
export JITK_LIBRARY=$PWD/$B/lib/c_api/libjitk_c.so PYTHONPATH=$PWD/python
export JITK_CACHE_DIR=/tmp/jitk-cache
nvidia-smi --query-gpu=name,driver_version --format=csv,noheader | tee $OUT/gpu.txt
cat $B/COMMIT | tee -a $OUT/gpu.txt
python3 bench/device/decode_step.py --eager --calls 500 \
  --shapes "1,32,8,1,4096;1,32,8,1,32768;8,32,8,1,8192" > $OUT/decode_eager.txt 2>&1
export JITK_CACHE_DIR=$OUT/tuned
$B/tuner/jitk-tune --kernel sparse_attn --shape "f16;b=1;block=128;d=128;hkv=8;hq=8;layout=1;lk=2048;lq=2048" \
  --budget 75s --json > $OUT/tune_prefill.json 2> $OUT/tune_prefill.log
rm -rf $OUT/tuned; export JITK_CACHE_DIR=/tmp/jitk-cache
grep -v "system DB" $OUT/decode_eager.txt; grep "best" $OUT/tune_prefill.log
# The side-by-side table of the README (FlexAttention, SDPA), on this GPU.
timeout 300 python3 bench/device/side_by_side.py --out /tmp/sbs --build $B --sizes 24-24 --dtypes float16 \
  --attn-lengths 4096,16384 --attn-dtypes float16,bfloat16 --attn-budget-s 200 > $OUT/sbs.log 2>&1
echo "side_by_side rc=$?"
cp /tmp/sbs/results.md $OUT/sbs_results.md; cp /tmp/sbs/short.md $OUT/sbs_short.md
cp /tmp/sbs/attention.csv $OUT/
cat $OUT/sbs_short.md
