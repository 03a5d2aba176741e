#!/bin/bash
# One device visit (.carry/build of the commit in COMMIT): every GPU test
# (check_all.sh GPU_ONLY=1), the Python tests, examples/sparse_attn_torch.py at
# L = 4096; on an H200, side_by_side.py for f16 / bf16 at L = 4096, 16384.
# Then the defaults on the headline attention cases (attention_ab.sh, two
# passes) and decode steps under windows of 1024 and 4096 keys with 128-key
# tiles beside the default's 64.
cd "$(dirname "$0")/../../.."
B=.carry/build
L=/tmp/logs_f; rm -rf $L; mkdir -p "$OUT" $L
S="$OUT/summary.txt"
echo "commit $(cat $B/COMMIT | tr '\n' ' ') $(date -u +%FT%TZ)" > $S
nvidia-smi --query-gpu=name,driver_version,clocks.max.sm --format=csv,noheader >> $S
export JITK_CACHE_DIR=/tmp/jitk-cache LD_LIBRARY_PATH=$PWD/$B/lib/c_api
export JITK_LIBRARY=$PWD/$B/lib/c_api/libjitk_c.so
GPU_ONLY=1 OUT=$L timeout 330 bash bench/device/check_all.sh $B > $OUT/check_table.txt 2>&1
echo "check_all rc=$? $(date -u +%T)" >> $S
gzip -c $L/check_all.log > $OUT/check_all.log.gz
PYTHONPATH=$PWD/python timeout 300 python3 -m unittest discover -s tests/python -v > $L/python_tests.log 2>&1
echo "python tests rc=$? $(grep -E '^(Ran|OK|FAILED)' $L/python_tests.log | tr '\n' ' ') $(date -u +%T)" >> $S
PYTHONPATH=$PWD/python timeout 120 python3 examples/sparse_attn_torch.py > $OUT/example.txt 2>&1
echo "example rc=$?" >> $S
if nvidia-smi --query-gpu=name --format=csv,noheader | grep -q H200; then
  PYTHONPATH=$PWD/python timeout 330 python3 bench/device/side_by_side.py --out /tmp/sbs --build $B --sizes 24-24 \
    --dtypes float16 --attn-lengths 4096,16384 --attn-dtypes float16,bfloat16 --attn-budget-s 240 > $L/sbs.log 2>&1
  echo "side_by_side rc=$? $(date -u +%T)" >> $S
  cp /tmp/sbs/results.md "$OUT/sbs_results.md"; cp /tmp/sbs/short.md "$OUT/sbs_short.md"; cp /tmp/sbs/attention.csv "$OUT/"
fi
BIN=$B/tests/jitk_lib_attention_tests OUT=$L/ab timeout 240 bash bench/device/attention_ab.sh - 2 main=- -- \
  "causal f16 L=4096,causal bf16 L=16384,random blocks 10% f16 L=4096,sliding 1024+128 f16 L=16384" \
  > $OUT/attention_ab.txt 2>&1
echo "attention_ab rc=$? $(date -u +%T)" >> $S
for w in 1024 4096; do
  PYTHONPATH=$PWD/python timeout 100 python3 bench/device/decode_step.py --window $w \
    --shapes "1,32,8,1,32768;8,32,8,1,32768" \
    --configs "BLOCK_M=64,BLOCK_N=128,KV_SPLITS=32,STAGES=2,WAVES=4" 2>&1 | grep -v "system DB"
done > $OUT/decode_tiles.txt
echo "decode rc=$? $(date -u +%T)" >> $S
tar czf "$OUT/logs.tar.gz" --exclude=jitk-cache* --exclude=cache_* --exclude=check_all.log -C $L .
cat $S; tail -25 $OUT/check_table.txt; cat $OUT/example.txt | grep -v "no system DB"
grep -E "FAIL|ERROR" $L/python_tests.log | head
tail -12 $OUT/attention_ab.txt; grep 32768 $OUT/decode_tiles.txt | cut -c1-130
[ -f $OUT/sbs_short.md ] && cat $OUT/sbs_short.md | cut -c1-200 | head -40
