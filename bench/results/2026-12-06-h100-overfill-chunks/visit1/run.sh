#!/usr/bin/env bash
# At b99d408 (mask_heads in the shape): every GPU test and the Python tests;
# one-row steps under a per-head mask, the new default against the packed
# rule's old one and the warp-specialized splits; prefill chunks whose tiles
# just overfill the GPU, split and unsplit; the tuner on a per-head step.
cd "$(dirname "$0")/../../../.."
B=.carry/build
export JITK_LIBRARY=$PWD/$B/lib/c_api/libjitk_c.so PYTHONPATH=$PWD/python
nvidia-smi --query-gpu=name,driver_version --format=csv,noheader | tee $OUT/gpu.txt
cat $B/COMMIT | tee -a $OUT/gpu.txt
OUT=$OUT/check GPU_ONLY=1 bash bench/device/check_all.sh $B > $OUT/check_table.txt 2>&1
export JITK_CACHE_DIR=$OUT/cache
python3 -m unittest discover -s tests/python > $OUT/python_tests.txt 2>&1
W64="BLOCK_M=64,BLOCK_N=64,WAVES=8,STAGES=3" M64="BLOCK_M=64,BLOCK_N=64,WAVES=4,STAGES=2"
python3 bench/device/prefill_chunk.py --per-head-mask --rounds 2 --calls 200 --passes 7 \
  --shapes "1,32,8,1,32768;8,32,8,1,8192" \
  --configs "$M64,KV_SPLITS=32;$M64,KV_SPLITS=4;$W64,KV_SPLITS=4;$W64,KV_SPLITS=8;$W64,KV_SPLITS=16;$W64" > $OUT/decode_per_head.txt 2>&1
WS="BLOCK_M=128,BLOCK_N=128,WAVES=12,STAGES=3"
python3 bench/device/prefill_chunk.py --rounds 2 \
  --shapes "1,32,8,640,32768;1,32,8,768,32768;1,40,8,512,32768;1,32,8,1280,32768" \
  --configs "$WS;$WS,KV_SPLITS=2;$WS,KV_SPLITS=4" > $OUT/overfill.txt 2>&1
timeout 120 $B/tuner/jitk-tune --kernel sparse_attn --budget 30s --json \
  --shape "f16;b=1;block=128;d=128;hkv=8;hq=32;layout=1;lk=32768;lq=1;mask_heads=32" > $OUT/tune_per_head.json 2> $OUT/tune.log
rm -rf $OUT/cache
tail -4 $OUT/check_table.txt
tail -3 $OUT/python_tests.txt
grep -v "system DB" $OUT/decode_per_head.txt $OUT/overfill.txt | cut -c1-160
python3 -c "import json, sys; r = json.load(open(sys.argv[1]))['results'][0]; print(r['shape'], 'default', r['default']['config'], r['default']['median_ms'], 'best', r['best']['config'], r['best']['median_ms'], 'speedup', r['speedup'])" $OUT/tune_per_head.json
