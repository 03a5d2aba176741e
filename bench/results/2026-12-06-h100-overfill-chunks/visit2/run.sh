#!/usr/bin/env bash
# mask_per_head and the overfill rule (default splits for equal tiles past one
# round): the Python tests; the prefill chunks' new defaults against pinned
# splits in two rounds; the tuner (now sweeping KV_SPLITS there) on a
# 640-row chunk and on a dense 8-head launch of 160 tiles; every GPU test last.
cd "$(dirname "$0")/../../../.."
B=.carry/build
export JITK_LIBRARY=$PWD/$B/lib/c_api/libjitk_c.so PYTHONPATH=$PWD/python
nvidia-smi --query-gpu=name,driver_version --format=csv,noheader | tee $OUT/gpu.txt
cat $B/COMMIT | tee -a $OUT/gpu.txt
export JITK_CACHE_DIR=$OUT/cache
python3 -m unittest discover -s tests/python > $OUT/python_tests.txt 2>&1
tail -3 $OUT/python_tests.txt
WS="BLOCK_M=128,BLOCK_N=128,WAVES=12,STAGES=3"
python3 bench/device/prefill_chunk.py --rounds 2 \
  --shapes "1,32,8,640,32768;1,40,8,512,32768;1,32,8,768,32768;1,32,8,1024,32768;1,32,8,1280,32768" \
  --configs "$WS;$WS,KV_SPLITS=2;$WS,KV_SPLITS=4" > $OUT/overfill.txt 2>&1
grep -v "system DB" $OUT/overfill.txt | cut -c1-160
for shape in "f16;b=1;block=128;d=128;hkv=8;hq=32;layout=1;lk=32768;lq=640" \
             "f16;b=1;block=128;d=128;hkv=8;hq=8;layout=0;lk=2560;lq=2560"; do
  f=$OUT/tune_$(echo $shape | tr -dc 'a-z0-9=' | tail -c 24).json
  timeout 150 $B/tuner/jitk-tune --kernel sparse_attn --budget 30s --json --shape "$shape" > $f 2>> $OUT/tune.log
  python3 -c "import json, sys; r = json.load(open(sys.argv[1]))['results'][0]; print(r['shape'], 'default', r['default']['config'], r['default']['median_ms'], 'best', r['best']['config'], r['best']['median_ms'], 'speedup', r['speedup'])" $f
done
rm -rf $OUT/cache
OUT=$OUT/check GPU_ONLY=1 bash bench/device/check_all.sh $B > $OUT/check_table.txt 2>&1
tail -4 $OUT/check_table.txt
