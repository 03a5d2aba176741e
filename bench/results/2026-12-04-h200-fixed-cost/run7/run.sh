#!/bin/bash
# Device visit 7 (416b0ba's build): run 6's single loop (tpl_flat) against
# a variant that keeps the softmax of the next query tile's first key tile
# under the last P V and stores O after it (tpl_flat2, m and l of the
# finished tile kept aside), and base; two alternating passes; then the SASS
# of each variant's causal f16 kernel (DumpForParity's cubin, cuobjdump).
cd "$(dirname "$0")/../../../.."
BIN=.carry/base/jitk_lib_attention_tests
L=/tmp/logs; mkdir -p "$OUT" $L
S="$OUT/summary.txt"
echo "416b0ba + tpl_flat / tpl_flat2 $(date -u +%FT%TZ)" > $S
BIN=$BIN OUT=$L/ab TIMEOUT=150 bash bench/device/attention_ab.sh \
  sm_90a 2 flat=.carry/tpl_flat flat2=.carry/tpl_flat2 base=- \
  -- "causal f16 L=4096,dense f16 L=4096,random blocks 10%" > /dev/null 2>&1
cp $L/ab/table.md $OUT/table_sm_90a.md; cat $L/ab/runs.txt >> $S
CUOBJ=$(command -v cuobjdump || ls /usr/local/cuda/bin/cuobjdump 2>/dev/null | head -1)
for v in base flat flat2; do
  dir=""; [[ $v != base ]] && dir="JITK_TEMPLATE_DIR=$(realpath .carry/tpl_$v)"
  mkdir -p $L/d_$v
  env $dir JITK_CACHE_DIR=/tmp/cd_$v JITK_ATTN_DUMP=$L/d_$v JITK_ATTN_CUBIN=$L/$v.cubin timeout 120 \
    $BIN --gtest_also_run_disabled_tests --gtest_filter='SparseAttnGpuTest.DISABLED_DumpForParity' \
    > $L/dump_$v.log 2>&1
  $CUOBJ -sass $L/$v.cubin > $L/sass_$v.txt 2>&1
  echo "$v: lines $(grep -c '/\*[0-9a-f]*\*/' $L/sass_$v.txt) HGMMA $(grep -c HGMMA $L/sass_$v.txt)" \
    "DEPBAR $(grep -c 'WARPGROUP.DEPBAR' $L/sass_$v.txt) ARRIVE $(grep -c 'WARPGROUP.ARRIVE' $L/sass_$v.txt)" \
    "BAR $(grep -cE ' BAR\.(SYNC|ARV)' $L/sass_$v.txt) STL $(grep -c ' STL' $L/sass_$v.txt) LDL $(grep -c ' LDL' $L/sass_$v.txt)" >> $S
  rm -rf $L/d_$v
done
echo "done $(date -u +%T)" >> $S
tar czf "$OUT/logs.tar.gz" --exclude='cache_*' -C $L .
cat $S $OUT/table_sm_90a.md
