#!/usr/bin/env bash
# Prefill chunks at batch 1: the warp-specialized engine split (default and
# pinned ranges) against unsplit and SDPA; decode steps whose default moved
# to the split warp-specialized tiles; the Python tests.
cd "$(dirname "$0")/../../../.."
B=.carry/build
export JITK_LIBRARY=$PWD/$B/lib/c_api/libjitk_c.so PYTHONPATH=$PWD/python
export JITK_CACHE_DIR=$OUT/cache
nvidia-smi --query-gpu=name,driver_version --format=csv,noheader | tee $OUT/gpu.txt
cat $B/COMMIT | tee -a $OUT/gpu.txt
WS="BLOCK_M=128,BLOCK_N=128,WAVES=12,STAGES=3"
python3 bench/device/prefill_chunk.py --configs "$WS;$WS,KV_SPLITS=2;$WS,KV_SPLITS=4;$WS,KV_SPLITS=8;BLOCK_M=64,BLOCK_N=64,WAVES=4,STAGES=2,KV_SPLITS=4" > $OUT/prefill.txt 2>&1
python3 bench/device/prefill_chunk.py --shapes "4,32,32,1,16384;1,32,32,1,32768" --calls 200 --passes 7 \
  --configs "BLOCK_M=64,BLOCK_N=64,WAVES=8,STAGES=3,KV_SPLITS=2;BLOCK_M=64,BLOCK_N=64,WAVES=4,STAGES=2,KV_SPLITS=2;BLOCK_M=64,BLOCK_N=64,WAVES=8,STAGES=3,KV_SPLITS=8;BLOCK_M=64,BLOCK_N=64,WAVES=4,STAGES=2,KV_SPLITS=8" > $OUT/decode_mha.txt 2>&1
python3 bench/device/decode_step.py > $OUT/decode_default.txt 2>&1
python3 bench/device/decode_step.py --per-head-mask --shapes "1,32,8,1,32768;8,32,8,1,8192" > $OUT/decode_per_head.txt 2>&1
python3 -m unittest discover -s tests/python > $OUT/python_tests.txt 2>&1
rm -rf $OUT/cache
tail -3 $OUT/python_tests.txt
grep -v "system DB" $OUT/prefill.txt $OUT/decode_mha.txt $OUT/decode_default.txt $OUT/decode_per_head.txt
