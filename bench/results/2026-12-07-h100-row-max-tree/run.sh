#!/bin/bash
# One device visit: each row's softmax maximum as a tree, both rows' side by
# side (the build's templates, "new") against bc48606's chains
# (.carry/tpl_base, "base"): the warp-specialized defaults on sm_90a, three
# alternating passes; the mma engine (sm_90) on causal L=4096, two passes;
# then the attention GPU tests on the build.
cd "$(dirname "$0")/../../.."
B=.carry/build
mkdir -p "$OUT"
S="$OUT/summary.txt"
echo "commit $(cat $B/COMMIT | tr '\n' ' ') $(date -u +%FT%TZ)" > $S
nvidia-smi --query-gpu=name,driver_version,clocks.max.sm --format=csv,noheader >> $S
export BIN=$B/tests/jitk_lib_attention_tests
OUT=/tmp/ab_ws timeout 300 bash bench/device/attention_ab.sh - 3 new=- base=.carry/tpl_base -- \
  "causal f16 L=4096,random blocks 10% f16 L=4096,dense f16 L=4096,sliding 1024+128 f16 L=16384" \
  > /tmp/ab_ws.log 2>&1
echo "ab sm_90a rc=$? $(date -u +%T)" >> $S
cp /tmp/ab_ws/table.md $OUT/table_sm90a.md
OUT=/tmp/ab_mma timeout 120 bash bench/device/attention_ab.sh sm_90 2 new=- base=.carry/tpl_base -- \
  "causal f16 L=4096" > /tmp/ab_mma.log 2>&1
echo "ab sm_90 rc=$? $(date -u +%T)" >> $S
cp /tmp/ab_mma/table.md $OUT/table_sm90.md
JITK_CACHE_DIR=/tmp/jc-tests timeout 150 $BIN --gtest_filter='SparseAttnGpuTest.*' > $OUT/gpu_tests.txt 2>&1
echo "gpu tests rc=$? $(date -u +%T)" >> $S
awk '/ cos /{for(i=1;i<=NF;i++) if($i=="cos") print $(i+1)}' $OUT/gpu_tests.txt | sort -g | head -1 | sed "s/^/worst cos /" >> $S
grep -E "^\[  (PASSED|FAILED)" $OUT/gpu_tests.txt >> $S
cat $S $OUT/table_sm90a.md $OUT/table_sm90.md
