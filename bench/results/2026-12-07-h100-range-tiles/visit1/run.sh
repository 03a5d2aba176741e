#!/bin/bash
# One device visit (.carry/old/c_api: the library of the commit in
# .carry/old/COMMIT; .carry/tpl_a: its templates with the split kernel's
# one-range test ahead of the combine test). Decode steps, one query row,
# Hq = 32, Hkv = 8:
# - window 128 (one pass of the split kernel) at B=1 and 8: the default,
#   the default with tpl_a, and the unsplit kernel (KV_SPLITS=1), two passes;
# - window 512 at B=1 where its keys cross nine tiles (LK=32731, as 63 of
#   64 positions do): 9 ranges (the default) against 8, two passes;
# - windows 1024 and 4096 at B=8: other range counts and three K / V stages.
cd "$(dirname "$0")/../../../.."
L=/tmp/logs_v2; rm -rf $L; mkdir -p "$OUT" $L
S="$OUT/summary.txt"
echo "library $(cat .carry/old/COMMIT | tr '\n' ' ') $(date -u +%FT%TZ)" > $S
nvidia-smi --query-gpu=name,driver_version,clocks.max.sm --format=csv,noheader >> $S
run_decode() {  # templates (- for the library's), window, shape, configs
  local t=""; [ "$1" != - ] && t=$PWD/$1
  env ${t:+JITK_TEMPLATE_DIR=$t} JITK_LIBRARY=$PWD/.carry/old/c_api/libjitk_c.so \
    JITK_CACHE_DIR=/tmp/jitk-cache-${1//\//_} PYTHONPATH=$PWD/python \
    timeout 100 python3 bench/device/decode_step.py --window $2 --shapes "$3" ${4:+--configs "$4"} \
    2>&1 | grep -v "system DB" | sed "s|^|$1 w$2 |"
}
cfg() { echo "BLOCK_M=64,BLOCK_N=64,KV_SPLITS=$1,STAGES=$2,WAVES=4"; }
{
  for i in 1 2; do
    run_decode - 128 "1,32,8,1,32768;8,32,8,1,32768" "$(cfg 1 2)"
    run_decode .carry/tpl_a 128 "1,32,8,1,32768;8,32,8,1,32768"
  done
  for i in 1 2; do run_decode - 512 "1,32,8,1,32731" "$(cfg 8 2)"; done
  run_decode - 1024 "8,32,8,1,32768" "$(cfg 2 3);$(cfg 4 3);$(cfg 8 2);$(cfg 8 3)"
  run_decode - 4096 "8,32,8,1,32768" "$(cfg 8 2);$(cfg 8 3)"
} > $OUT/decode.txt
echo "decode rc=$? $(date -u +%T)" >> $S
cat $S; grep -E "[0-9],32,8,1," $OUT/decode.txt | cut -c1-190
