#!/bin/bash
# One device visit. (1) The warp-specialized engine's S(0) issued outside the
# two computing warpgroups' turns (s0) against the templates of the build
# (base), three alternating passes. (2) Sliding-window decode steps: the
# build's planner (the window's key tiles counted without slack) against
# f330e8b's (.carry/old), two alternating passes, with pinned one-pass and
# two-range configs on the new build. (3) The attention GPU tests at the
# build's commit, then the engine's test with the s0 templates.
# Part ab: (1) and the s0 test; part decode: (2) and the build's tests.
cd "$(dirname "$0")/../../../.."
PART=${1:-all}
B=.carry/build
L=/tmp/logs; rm -rf $L; mkdir -p "$OUT" $L
S="$OUT/summary.txt"
echo "commit $(cat $B/COMMIT | tr '\n' ' ') $(date -u +%FT%TZ)" > $S
nvidia-smi --query-gpu=name,driver_version,clocks.max.sm --format=csv,noheader >> $S
if [[ $PART != decode ]]; then
BIN=$B/tests/jitk_lib_attention_tests OUT=$L/ab TIMEOUT=100 bash bench/device/attention_ab.sh sm_90a 3 \
  s0=.carry/tpl_s0 base=.carry/tpl_base -- \
  "causal f16 L=4096,random blocks 10% f16 L=4096,random blocks 10% same keys,random blocks 30%,sliding 1024+128 f16 L=16384" \
  > /dev/null 2>&1
cp $L/ab/table.md $OUT/table_ab.md; grep rc= $L/ab/runs.txt | tr '\n' ';' >> $S
echo "ab done $(date -u +%T)" >> $S
JITK_TEMPLATE_DIR=$PWD/.carry/tpl_s0 timeout 100 $B/tests/jitk_lib_attention_tests \
  --gtest_filter='SparseAttnGpuTest.WgmmaEngineOnHopper' > $OUT/gpu_tests_s0.txt 2>&1
echo "gpu tests (s0) rc=$? $(date -u +%T)" >> $S
fi
if [[ $PART != ab ]]; then
export PYTHONPATH=$PWD/python
cp $B/lib/c_api/libabsl_* .carry/old/ 2>/dev/null
SHAPES="1,32,8,1,32768;8,32,8,1,32768"
CFG="BLOCK_M=64,BLOCK_N=64,KV_SPLITS=1,STAGES=2,WAVES=4;BLOCK_M=64,BLOCK_N=64,KV_SPLITS=2,STAGES=2,WAVES=4"
for pass in 1 2; do
  for lib in old new; do
    so=$PWD/$B/lib/c_api/libjitk_c.so cfg=$CFG
    [[ $lib == old ]] && so=$PWD/.carry/old/libjitk_c.so cfg=""
    for w in 128 1024; do
      JITK_LIBRARY=$so JITK_CACHE_DIR=/tmp/jc-$lib timeout 120 python3 bench/device/decode_step.py \
        --window $w --shapes "$SHAPES" --configs "$cfg" 2>&1 | grep -v "system DB" \
        > $OUT/decode_w${w}_${lib}_pass$pass.txt
    done
  done
done
echo "decode done $(date -u +%T)" >> $S

export JITK_CACHE_DIR=/tmp/jc-tests
timeout 150 $B/tests/jitk_lib_attention_tests --gtest_filter='SparseAttnGpuTest.*' \
  > $OUT/gpu_tests.txt 2>&1
echo "gpu tests (build) rc=$? $(date -u +%T)" >> $S
fi
for f in $OUT/gpu_tests*.txt; do
  awk '/ cos /{for(i=1;i<=NF;i++) if($i=="cos") print $(i+1)}' $f | sort -g | head -1 |
    sed "s/^/$(basename $f) worst cos /" >> $S
  grep -E "^\[  (PASSED|FAILED)" $f >> $S
done
tar czf $OUT/logs.tar.gz --exclude=cache* --exclude=templates -C $L . 2>/dev/null
cat $S $OUT/table_ab.md 2>/dev/null | cut -c1-300
for f in $OUT/decode_w*_pass*.txt; do echo "== $(basename $f)"; tail -n +3 $f | cut -c1-140; done
