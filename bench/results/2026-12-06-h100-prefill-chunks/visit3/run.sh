#!/usr/bin/env bash
# At 712cca0 (default splits counted over SMs): every GPU test; prefill
# chunks split against unsplit in three alternating rounds; decode steps
# with a block-mask row per head (unpacked): the warp-specialized 64-row
# tiles against 64/64/4/2, both split; the tuner on a 256-row chunk.
cd "$(dirname "$0")/../../../.."
B=.carry/build
export JITK_LIBRARY=$PWD/$B/lib/c_api/libjitk_c.so PYTHONPATH=$PWD/python
nvidia-smi --query-gpu=name,driver_version --format=csv,noheader | tee $OUT/gpu.txt
cat $B/COMMIT | tee -a $OUT/gpu.txt
OUT=$OUT/check GPU_ONLY=1 bash bench/device/check_all.sh $B > $OUT/check_table.txt 2>&1
export JITK_CACHE_DIR=$OUT/cache
WS="BLOCK_M=128,BLOCK_N=128,WAVES=12,STAGES=3"
python3 bench/device/prefill_chunk.py --rounds 3 --shapes "1,32,8,128,32768;1,32,8,256,32768;1,32,8,384,32768" \
  --configs "$WS;$WS,KV_SPLITS=2;$WS,KV_SPLITS=4" > $OUT/prefill_rounds.txt 2>&1
W64="BLOCK_M=64,BLOCK_N=64,WAVES=8,STAGES=3" M64="BLOCK_M=64,BLOCK_N=64,WAVES=4,STAGES=2"
python3 bench/device/prefill_chunk.py --per-head-mask --rounds 2 --calls 200 --passes 7 \
  --shapes "1,32,8,1,32768;8,32,8,1,8192" \
  --configs "$W64,KV_SPLITS=4;$W64,KV_SPLITS=8;$M64,KV_SPLITS=4;$M64,KV_SPLITS=8;$W64;$M64,KV_SPLITS=2" > $OUT/decode_per_head.txt 2>&1
$B/tuner/jitk-tune --kernel sparse_attn --budget 30s --json \
  --shape "f16;b=1;block=128;d=128;hkv=8;hq=32;layout=1;lk=32768;lq=256" > $OUT/tune_256.json 2> $OUT/tune.log
rm -rf $OUT/cache
tail -4 $OUT/check_table.txt
grep -v "system DB" $OUT/prefill_rounds.txt $OUT/decode_per_head.txt | cut -c1-150
python3 -c "import json, sys; r = json.load(open(sys.argv[1]))['results'][0]; print(r['shape'], 'default', r['default']['config'], r['default']['median_ms'], 'best', r['best']['config'], r['best']['median_ms'], 'speedup', r['speedup'])" $OUT/tune_256.json
