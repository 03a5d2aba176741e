#!/bin/bash
# Device visit 4 (the build of .carry/full, commit in summary.txt): jitk next to
# SDPA and FlexAttention (side_by_side.py: CUDA graphs, cold L2, parity against
# fp32 at L=4096) with BlockMasks of 64-token blocks, where jitk's sm_90a
# default is the warp-specialized 64x64x8x3, two blocks per SM.
cd "$(dirname "$0")/../../../.."
B=.carry/full
L=/tmp/logs; mkdir -p "$OUT" $L
S="$OUT/summary.txt"
echo "commit $(cat $B/COMMIT) $(date -u +%FT%TZ)" > $S
nvidia-smi --query-gpu=name,driver_version --format=csv,noheader >> $S
export JITK_CACHE_DIR=/tmp/jitk-cache
export JITK_LIBRARY=$PWD/$B/lib/c_api/libjitk_c.so PYTHONPATH=$PWD/python LD_LIBRARY_PATH=$PWD/$B/lib/c_api
timeout 420 python3 bench/device/side_by_side.py --out /tmp/sbs --build $B --sizes 20-20 --dtypes float16 \
  --attn-lengths 4096,16384 --attn-dtypes float16 --attn-block 64 --attn-budget-s 300 > $L/sbs.log 2>&1
echo "side_by_side rc=$?" >> $S; cp /tmp/sbs/short.md "$OUT/sbs_short.md"; cp /tmp/sbs/results.md "$OUT/sbs_results.md"
tar czf "$OUT/logs.tar.gz" -C $L .
cat $S; grep -A40 -i "attention" "$OUT/sbs_results.md" | head -60
