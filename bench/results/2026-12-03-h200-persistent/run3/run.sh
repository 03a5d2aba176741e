#!/bin/bash
# Device visit 3: jitk-tune's sweep of the standard shapes (exported for the
# shipped DB) and jitk next to SDPA / FlexAttention (CUDA graphs), with the
# TMA + persistent warp-specialized engine.
cd "$(dirname "$0")/../../../.."
L=/tmp/logs; mkdir -p "$OUT" $L
S="$OUT/summary.txt"
echo "commit $(cat .carry/build/COMMIT) $(date -u +%FT%TZ)" > $S
nvidia-smi --query-gpu=name,driver_version --format=csv,noheader >> $S
OUT=/tmp/tune BUILD=.carry/build BUDGET=20,22s timeout 250 bash bench/device/tune_sparse_attn.sh > $L/tune_stdout.log 2>&1
echo "tune rc=$?" >> $S; cp /tmp/tune/summary.md "$OUT/tune_summary.md"; cp /tmp/tune/sweep.json "$OUT/sweep.json"
cp /tmp/tune/tuned.json "$OUT/sm_90a.json"; cp /tmp/tune/tune.log $L/
export JITK_LIBRARY=$PWD/.carry/build/lib/c_api/libjitk_c.so PYTHONPATH=$PWD/python LD_LIBRARY_PATH=$PWD/.carry/build/lib/c_api
timeout 230 python3 bench/device/side_by_side.py --out /tmp/sbs --build .carry/build --sizes 24-24 --dtypes float16 \
  --attn-lengths 4096,16384 --attn-dtypes float16,bfloat16 --attn-budget-s 180 > $L/sbs.log 2>&1
echo "side_by_side rc=$?" >> $S; cp /tmp/sbs/short.md "$OUT/sbs_short.md"; cp /tmp/sbs/results.md "$OUT/sbs_results.md"
tar czf "$OUT/logs.tar.gz" -C $L .
cat $S; echo "--- tune"; cat "$OUT/tune_summary.md"; echo "--- torch"; tail -24 "$OUT/sbs_short.md"
