#!/bin/bash
# One device visit (.carry/build of the commit in COMMIT): decode steps with
# every key tile of a range in flight (four K / V stages) against the
# defaults, over one, two and the default's ranges; then the d = 64 configs
# of the timing test, four stages among them (attention_ab.sh SWEEP=1, two
# passes).
cd "$(dirname "$0")/../../.."
B=.carry/build
L=/tmp/logs_v2; rm -rf $L; mkdir -p "$OUT" $L
S="$OUT/summary.txt"
echo "commit $(cat $B/COMMIT | tr '\n' ' ') $(date -u +%FT%TZ)" > $S
nvidia-smi --query-gpu=name,driver_version,clocks.max.sm --format=csv,noheader >> $S
export JITK_CACHE_DIR=/tmp/jitk-cache LD_LIBRARY_PATH=$PWD/$B/lib/c_api
export JITK_LIBRARY=$PWD/$B/lib/c_api/libjitk_c.so
c() { echo -n "BLOCK_M=64,BLOCK_N=64,KV_SPLITS=$1,STAGES=$2,WAVES=4"; }
run_decode() {  # window, batch, configs
  PYTHONPATH=$PWD/python timeout 100 python3 bench/device/decode_step.py --window $1 --shapes "$2,32,8,1,32768" \
    --configs "$3" 2>&1 | grep -v "system DB"
}
{
  run_decode 256 8 "$(c 1 2);$(c 1 4);$(c 2 2);$(c 2 4);$(c 4 4)"
  run_decode 512 8 "$(c 1 4);$(c 2 2);$(c 2 4);$(c 4 2);$(c 4 4)"
  run_decode 1024 8 "$(c 2 4);$(c 4 4)"
  run_decode 4096 8 "$(c 4 4)"
  run_decode 256 1 "$(c 1 4);$(c 2 4);$(c 16 4)"
  run_decode 512 1 "$(c 8 4);$(c 16 4)"
  run_decode 1024 1 "$(c 8 4);$(c 16 4)"
  run_decode 4096 1 "$(c 16 4)"
} > $OUT/decode_stages.txt
echo "decode rc=$? $(date -u +%T)" >> $S
SWEEP=1 BIN=$B/tests/jitk_lib_attention_tests OUT=$L/ab timeout 300 bash bench/device/attention_ab.sh - 2 main=- -- \
  "causal f16 L=4096 d=64,random blocks 10% f16 L=4096 d=64" > $OUT/d64_stages.txt 2>&1
echo "d64 rc=$? $(date -u +%T)" >> $S
tar czf "$OUT/logs.tar.gz" --exclude=jitk-cache* --exclude=cache_* -C $L .
cat $S
grep -E "32768|window" $OUT/decode_stages.txt | cut -c1-150
grep -E "^\|" $OUT/d64_stages.txt
