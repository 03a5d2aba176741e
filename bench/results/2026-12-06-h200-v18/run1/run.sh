#!/bin/bash
# One short device visit on an H200 (.carry/build of 61bf625, Version 18): the issue's
# block-sparse target, random 10 % against causal at L=4096 (three alternating passes of
# the C++ harness, default configs).
cd "$(dirname "$0")/../../../.."
B=.carry/build
L=/tmp/logs_v5; rm -rf $L; mkdir -p "$OUT" $L
S="$OUT/summary.txt"
echo "commit $(cat $B/COMMIT | tr '\n' ' ') $(date -u +%FT%TZ)" > $S
nvidia-smi --query-gpu=name,driver_version,clocks.max.sm --format=csv,noheader >> $S
BIN=$B/tests/jitk_lib_attention_tests OUT=$L/ab TIMEOUT=100 bash bench/device/attention_ab.sh sm_90a 3 \
  v18=- -- "causal f16 L=4096,causal bf16 L=4096,random blocks 10% f16 L=4096" > /dev/null 2>&1
cp $L/ab/table.md $OUT/table_ab.md; grep rc= $L/ab/runs.txt | tr '\n' ';' >> $S
echo "ab done $(date -u +%T)" >> $S
tar czf $OUT/logs.tar.gz --exclude=cache* --exclude=templates -C $L . 2>/dev/null
cat $S $OUT/table_ab.md | cut -c1-300
