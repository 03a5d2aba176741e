#!/bin/bash
# One device visit (.carry/build of the commit in COMMIT): the Python tests on the GPU;
# host_cost.py in two fresh processes (pinned to one core); side_by_side.py (jitk next
# to FlexAttention and SDPA) for f16 / bf16 at L = 4096, 16384.
cd "$(dirname "$0")/../.."
B=.carry/build
L=/tmp/logs_s; rm -rf $L; mkdir -p "$OUT" $L
S="$OUT/summary.txt"
echo "commit $(cat $B/COMMIT | tr '\n' ' ') $(date -u +%FT%TZ)" > $S
nvidia-smi --query-gpu=name,driver_version,clocks.max.sm --format=csv,noheader >> $S
export JITK_CACHE_DIR=/tmp/jitk-cache LD_LIBRARY_PATH=$PWD/$B/lib/c_api
export JITK_LIBRARY=$PWD/$B/lib/c_api/libjitk_c.so
PYTHONPATH=$PWD/python timeout 300 python3 -m unittest discover -s tests/python -v > $L/python_tests.log 2>&1
echo "python tests rc=$? $(grep -E '^(Ran|OK|FAILED)' $L/python_tests.log | tr '\n' ' ')" >> $S
for pass in 1 2; do
  PYTHONPATH=$PWD/python timeout 120 taskset -c 3 python3 bench/device/host_cost.py >> $OUT/host_cost.txt 2>>$L/host_cost.err
done
echo "host cost done rc=$? $(date -u +%T)" >> $S
PYTHONPATH=$PWD/python timeout 330 python3 bench/device/side_by_side.py --out /tmp/sbs --build $B --sizes 24-24 --dtypes float16 \
  --attn-lengths 4096,16384 --attn-dtypes float16,bfloat16 --attn-budget-s 260 > $L/sbs.log 2>&1
echo "side_by_side rc=$? $(date -u +%T)" >> $S
cp /tmp/sbs/results.md "$OUT/sbs_results.md"; cp /tmp/sbs/short.md "$OUT/sbs_short.md"
cp /tmp/sbs/attention.csv "$OUT/"; cp /tmp/sbs/header.json $L/
cp /tmp/sbs/scaled_add.csv /tmp/sbs/parity.csv $L/ 2>/dev/null
tar czf "$OUT/logs.tar.gz" --exclude=jitk-cache* -C $L .
cat $S $OUT/host_cost.txt
grep -E "\| (jitk|flex|sdpa) \||from Python" "$OUT/sbs_short.md" "$OUT/sbs_results.md" | cut -c1-250 | head -40
grep -E "FAIL|ERROR" $L/python_tests.log | head
