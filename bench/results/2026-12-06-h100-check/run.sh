#!/bin/bash
# One device visit (.carry/build of the commit in COMMIT): every GPU test
# (check_all.sh GPU_ONLY=1), the Python tests, examples/sparse_attn_torch.py at
# L = 4096; on an H200, side_by_side.py for f16 / bf16 at L = 4096, 16384.
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
tar czf "$OUT/logs.tar.gz" --exclude=jitk-cache* --exclude=check_all.log -C $L .
cat $S; tail -25 $OUT/check_table.txt; cat $OUT/example.txt | grep -v "no system DB"
grep -E "FAIL|ERROR" $L/python_tests.log | head
[ -f $OUT/sbs_short.md ] && cat $OUT/sbs_short.md | cut -c1-200 | head -40
