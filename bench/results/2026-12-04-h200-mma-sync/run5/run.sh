#!/bin/bash
# Device visit 5 (commit in .carry/build/COMMIT): jitk next to SDPA and
# FlexAttention (torch, CUDA graphs, cold L2) with the defaults of e35425f
# and the shipped DB re-tuned in visit 4.
cd "$(dirname "$0")/../../../.."
L=/tmp/logs; mkdir -p "$OUT" $L
S="$OUT/summary.txt"
echo "commit $(cat .carry/build/COMMIT) $(date -u +%FT%TZ)" > $S
nvidia-smi --query-gpu=name,driver_version --format=csv,noheader >> $S
export JITK_LIBRARY=$PWD/.carry/build/lib/c_api/libjitk_c.so PYTHONPATH=$PWD/python LD_LIBRARY_PATH=$PWD/.carry/build/lib/c_api
timeout 300 python3 bench/device/side_by_side.py --out /tmp/sbs --build .carry/build --sizes 24-24 --dtypes float16 \
  --attn-lengths 4096,16384 --attn-dtypes float16,bfloat16 --attn-budget-s 240 > $L/sbs.log 2>&1
echo "side_by_side rc=$?" >> $S; cp /tmp/sbs/short.md "$OUT/sbs_short.md"; cp /tmp/sbs/results.md "$OUT/sbs_results.md"
tar czf "$OUT/logs.tar.gz" -C $L .
cat $S; echo "--- torch"; tail -24 "$OUT/sbs_short.md"
