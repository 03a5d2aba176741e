#!/bin/bash
# One device visit. (1) The attention GPU tests at the build (the combine
# pass reading a row's ranges eight at a time). (2) Decode steps, the
# combine's A/B: the build's templates against 31f2dca's (.carry/tpl_base),
# dense and windows 256 / 1024, two alternating passes. (3) The one-pass
# bound: the build's planner (windows of at most three 64-key tiles in one
# pass) against one reading up to eight (.carry/wide), windows 192-384, the
# unsplit kernel pinned in one pass on the build; two alternating passes.
# (4) The defaults on the 10 % block-sparse and causal cases, two passes.
cd "$(dirname "$0")/../../../.."
PART=${1:-all}
B=.carry/build
L=/tmp/logs; mkdir -p "$OUT" $L
S="$OUT/summary_$PART.txt"
echo "commit $(cat $B/COMMIT | tr '\n' ' ') $(date -u +%FT%TZ)" > $S
nvidia-smi --query-gpu=name,driver_version,clocks.max.sm --format=csv,noheader >> $S
export PYTHONPATH=$PWD/python
cp $B/lib/c_api/libabsl_* .carry/wide/ 2>/dev/null
SHAPES="1,32,8,1,32768;8,32,8,1,32768"
PIN="BLOCK_M=64,BLOCK_N=64,KV_SPLITS=1,STAGES=2,WAVES=4"
step() {  # lib templates window configs
  local so=$PWD/$B/lib/c_api/libjitk_c.so
  [[ $1 == wide ]] && so=$PWD/.carry/wide/libjitk_c.so
  env ${2:+JITK_TEMPLATE_DIR=$PWD/$2} JITK_LIBRARY=$so JITK_CACHE_DIR=/tmp/jc-$1-${2##*/} \
    timeout 120 python3 bench/device/decode_step.py ${3:+--window $3} --shapes "$SHAPES" \
    --configs "$4" 2>&1 | grep -v "system DB"
}
if [[ $PART == all || $PART == tests ]]; then
  JITK_CACHE_DIR=/tmp/jc-tests timeout 150 $B/tests/jitk_lib_attention_tests \
    --gtest_filter='SparseAttnGpuTest.*' > $L/gpu_tests.txt 2>&1
  echo "gpu tests rc=$? $(date -u +%T)" >> $S
  awk '/ cos /{for(i=1;i<=NF;i++) if($i=="cos") print $(i+1)}' $L/gpu_tests.txt | sort -g | head -1 | sed "s/^/worst cos /" >> $S
  grep -E "^\[  (PASSED|FAILED)" $L/gpu_tests.txt >> $S
fi
if [[ $PART == all || $PART == combine ]]; then
  D=$OUT/decode_combine.txt; : > $D
  for pass in 1 2; do
    for tpl in "" .carry/tpl_base; do
      for w in "" 256 1024; do
        echo "== templates ${tpl:-build} window ${w:-none} pass $pass" >> $D
        step new "$tpl" "$w" "" >> $D
      done
    done
  done
  echo "combine done $(date -u +%T)" >> $S
fi
if [[ $PART == all || $PART == onepass ]]; then
  D=$OUT/decode_onepass.txt; : > $D
  for pass in 1 2; do
    for lib in new wide; do
      for w in 192 256 384; do
        echo "== lib $lib window $w pass $pass" >> $D
        step $lib "" $w "$([[ $lib == new ]] && echo $PIN)" >> $D
      done
    done
  done
  echo "onepass done $(date -u +%T)" >> $S
fi
if [[ $PART == all || $PART == ab ]]; then
  BIN=$B/tests/jitk_lib_attention_tests OUT=$L/ab TIMEOUT=100 bash bench/device/attention_ab.sh sm_90a 2 \
    main=- -- "causal f16 L=4096,random blocks 10% f16 L=4096" > /dev/null 2>&1
  cp $L/ab/table.md $OUT/table_ab.md; grep rc= $L/ab/runs.txt | tr '\n' ';' >> $S
  echo "ab done $(date -u +%T)" >> $S
fi
tar czf $OUT/logs_$PART.tar.gz --exclude=cache* --exclude=templates -C $L . 2>/dev/null
cat $S $OUT/table_ab.md 2>/dev/null | cut -c1-300
for f in $OUT/decode_*.txt; do grep -E "^==|32768" $f | cut -c1-150; done
