#!/bin/bash
# Device visit 3 (working tree on bc9e566): five template sets of the
# warp-specialized engine timed at the sm_90a defaults in three alternating
# passes (no GPU tests: the embedded templates are not among them):
#   base  bc9e566
#   B     the next tile's S(0) issued after the last P V's wait, before this
#         tile's stores (visit 2's "new")
#   D     B's loop with the stores before S(0): the loop's shape without the overlap
#   E     base, Q freed as soon as the last S = Q K^T completes (before its softmax)
#   B2    B + E
# and the SASS of each set's dense kernel (128x128x12x3 f16) summarised.
cd "$(dirname "$0")/../../../.."
B=.carry/build
L=/tmp/logs; mkdir -p "$OUT" $L/sass
S="$OUT/summary.txt"
echo "commit $(cat $B/COMMIT | tr '\n' ' ') $(date -u +%FT%TZ)" > $S
nvidia-smi --query-gpu=name,driver_version --format=csv,noheader >> $S
for v in base B D E B2; do
  cuobjdump -sass .carry/cubin/$v.cubin > $L/sass/$v.sass 2>&1
  f=$L/sass/$v.sass
  echo "sass $v: instr $(grep -cE '^\s+/\*[0-9a-f]{4}\*/' $f) HGMMA $(grep -c HGMMA $f) DEPBAR $(grep -c 'WARPGROUP.DEPBAR' $f) ARRIVE $(grep -c 'WARPGROUP.ARRIVE' $f) SHFL $(grep -c SHFL $f) STG $(grep -c 'STG' $f) BAR $(grep -cE ' BAR\.' $f) SYNCS $(grep -c SYNCS $f)" >> $S
done
BIN=$B/tests/jitk_lib_attention_tests OUT=$L/ab TIMEOUT=120 bash bench/device/attention_ab.sh \
  sm_90a 3 base=.carry/tpl_base B=.carry/tpl_B D=.carry/tpl_D E=.carry/tpl_E B2=.carry/tpl_B2 -- f16 > /dev/null 2>&1
cp $L/ab/table.md $OUT/table_sm_90a.md; cat $L/ab/runs.txt >> $S
echo "ab done $(date -u +%T)" >> $S
tar czf "$OUT/logs.tar.gz" -C $L .
cat $S $OUT/table_sm_90a.md
