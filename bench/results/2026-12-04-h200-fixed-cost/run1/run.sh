#!/bin/bash
# Device visit 1 (b80af87's build, template variants in .carry/tpl_*): where the
# fixed cost per query tile goes. Warp-specialized wgmma (sm_90a): base against
# no ping-pong (np), no O stores (wsnostore, wrong on purpose) and Q copied for
# a block's first tile only (wsnoq, wrong on purpose). mma.sync (sm_90): base
# against no O stores (nostore) and the refill issued after S = Q K^T on full
# tiles (mid3). Two alternating passes each.
cd "$(dirname "$0")/../../../.."
B=.carry/build
L=/tmp/logs; mkdir -p "$OUT" $L
S="$OUT/summary.txt"
echo "commit $(cat $B/COMMIT) $(date -u +%FT%TZ)" > $S
nvidia-smi --query-gpu=name,driver_version,clocks.max.sm --format=csv,noheader >> $S
BIN=$B/tests/jitk_lib_attention_tests OUT=$L/ws TIMEOUT=120 bash bench/device/attention_ab.sh \
  sm_90a 2 base=- np=.carry/tpl_np wsnostore=.carry/tpl_wsnostore wsnoq=.carry/tpl_wsnoq \
  -- "random blocks 10%,random blocks 30%,causal f16 L=4096,dense f16 L=4096" > /dev/null 2>&1
cp $L/ws/table.md $OUT/table_sm_90a.md; cat $L/ws/runs.txt >> $S
BIN=$B/tests/jitk_lib_attention_tests OUT=$L/mma TIMEOUT=120 bash bench/device/attention_ab.sh \
  sm_90 2 base=- nostore=.carry/tpl_nostore mid3=.carry/tpl_mid3 \
  -- "causal f16 L=4096,causal bf16 L=4096,dense f16 L=4096" > /dev/null 2>&1
cp $L/mma/table.md $OUT/table_sm_90.md; cat $L/mma/runs.txt >> $S
echo "done $(date -u +%T)" >> $S
tar czf "$OUT/logs.tar.gz" -C $L .
cat $S $OUT/table_sm_90a.md $OUT/table_sm_90.md
