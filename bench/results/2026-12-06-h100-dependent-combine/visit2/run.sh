#!/usr/bin/env bash
# Causal launches from the first key whose tiles overfill the GPU, split by
# hand; the tuner on the dense 2560-key launch (its split count under the
# final range cost).
cd "$(dirname "$0")/../../../.."
B=.carry/build
{ nvidia-smi --query-gpu=name,driver_version,clocks.max.sm --format=csv,noheader; cat $B/COMMIT; } | tee $OUT/gpu.txt
export PYTHONPATH=$PWD/python
lib() { echo $PWD/$B/lib/c_api/libjitk_c.so; }
shape="f16;b=1;block=128;d=128;hkv=8;hq=8;layout=0;lk=2560;lq=2560"
JITK_CACHE_DIR=/tmp/jc-tune timeout 90 $B/tuner/jitk-tune --kernel sparse_attn --budget 30s --json \
  --shape "$shape" > $OUT/tune_dense2560.json 2> $OUT/tune.log
python3 -c "import json, sys; r = json.load(open(sys.argv[1]))['results'][0]; print(r['shape'], 'default', r['default']['config'], r['default']['median_ms'], 'best', r['best']['config'], r['best']['median_ms'], 'speedup', r['speedup'])" $OUT/tune_dense2560.json | tee $OUT/tune_summary.txt
WS="BLOCK_M=128,BLOCK_N=128,WAVES=12,STAGES=3"
JITK_LIBRARY=$(lib new) JITK_CACHE_DIR=/tmp/jc-new python3 bench/device/prefill_chunk.py --rounds 2 \
  --shapes "1,8,8,2560,2560;1,16,16,2560,2560;1,32,8,1280,1280" \
  --configs "$WS;$WS,KV_SPLITS=2;$WS,KV_SPLITS=4" > $OUT/causal_overfill.txt 2>&1
grep -v "system DB" $OUT/causal_overfill.txt | cut -c1-150
