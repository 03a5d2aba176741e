#!/bin/bash
# One device visit (.carry/build: the working tree on the commit in COMMIT,
# with decode ranges past eight rounded down to multiples of eight;
# .carry/old/c_api: the library of the commit in .carry/old/COMMIT).
# - The SASS of the sliding decode default as split and unsplit kernels
#   (cubins compiled on the CPU by the library, .carry/sass).
# - Decode steps at B=1 under windows of 9 and 13 key tiles, old against new
#   library alternating, the old one also with 8 ranges pinned; window
#   1024 at B=1 and 8 (launches the rule leaves alone); window 4096 at B=1 with
#   other tiles and stages.
# - jitk-tune on the standard shapes (sm_90a, the shipped DB's rows) and on
#   three decode shapes for sm_90 (the mma engine's decode default).
# - The GPU tests (check_all.sh GPU_ONLY=1) in the time left.
cd "$(dirname "$0")/../../.."
B=.carry/build
L=/tmp/logs_v1; rm -rf $L; mkdir -p "$OUT" $L
S="$OUT/summary.txt"
echo "commit $(head -1 $B/COMMIT) (old $(cat .carry/old/COMMIT | tr '\n' ' ')) $(date -u +%FT%TZ)" > $S
cat $B/COMMIT >> $S
nvidia-smi --query-gpu=name,driver_version,clocks.max.sm --format=csv,noheader >> $S
export JITK_CACHE_DIR=/tmp/jitk-cache
for k in split unsplit; do cuobjdump --dump-sass .carry/sass/$k.cubin > $L/$k.sass 2>&1; done
echo "sass rc=$? $(wc -l $L/*.sass | tr '\n' ' ')" >> $S
run_decode() {  # library, window, shape, configs
  JITK_LIBRARY=$PWD/$1/libjitk_c.so JITK_CACHE_DIR=/tmp/jitk-cache-${1//\//_} PYTHONPATH=$PWD/python \
    timeout 100 python3 bench/device/decode_step.py --window $2 --shapes "$3" ${4:+--configs "$4"} \
    2>&1 | grep -v "system DB" | sed "s|^|$1 w$2 |"
}
OLD=.carry/old/c_api NEW=$B/lib/c_api
C8='BLOCK_M=64,BLOCK_N=64,KV_SPLITS=8,STAGES=2,WAVES=4'
{
  for i in 1 2; do
    for w in 512 768; do
      run_decode $OLD $w "1,32,8,1,32768" "$C8"
      run_decode $NEW $w "1,32,8,1,32768"
    done
  done
  run_decode $OLD 1024 "1,32,8,1,32768;8,32,8,1,32768"
  run_decode $NEW 1024 "1,32,8,1,32768;8,32,8,1,32768"
  run_decode $OLD 4096 "1,32,8,1,32768" "BLOCK_M=64,BLOCK_N=128,KV_SPLITS=16,STAGES=2,WAVES=4;BLOCK_M=64,BLOCK_N=64,KV_SPLITS=16,STAGES=3,WAVES=4;BLOCK_M=64,BLOCK_N=128,KV_SPLITS=8,STAGES=2,WAVES=4"
} > $OUT/decode.txt
echo "decode rc=$? $(date -u +%T)" >> $S
export LD_LIBRARY_PATH=$PWD/$B/lib/c_api
OUT=$L/tune BUILD=$B BUDGET=40,45s timeout 150 bash bench/device/tune_sparse_attn.sh > $L/tune_stdout.txt 2>&1
echo "tune rc=$? $(date -u +%T)" >> $S
cp $L/tune/summary.md $OUT/tune_summary.md; cp $L/tune/tuned.json $OUT/tuned.json
for s in "f16;b=1;block=128;d=128;hkv=8;hq=32;layout=0;lk=32768;lq=1" \
         "f16;b=8;block=128;d=128;hkv=8;hq=32;layout=0;lk=8192;lq=1" \
         "f16;b=1;block=128;d=128;hkv=8;hq=32;layout=2;lk=32768;lq=1;mask=2"; do
  JITK_CACHE_DIR=$L/decode_sm_90 timeout 40 $B/tuner/jitk-tune --arch sm_90 --kernel sparse_attn \
    --shape "$s" --strategy exhaustive --budget 15s --json >> $L/decode_tune_sm_90.json 2>> $L/decode_tune.log
  echo "decode tune sm_90 rc=$? $(date -u +%T)" >> $S
done
python3 - $L/decode_tune_sm_90.json > $OUT/decode_tune.md <<'PY'
import json, sys
text = open(sys.argv[1]).read()
dec = json.JSONDecoder(); i = 0
print("| arch | shape | default | us | tuned | us | speed-up | evaluated |")
print("| --- | --- | --- | --- | --- | --- | --- | --- |")
while True:
    while i < len(text) and text[i].isspace(): i += 1
    if i >= len(text): break
    doc, i = dec.raw_decode(text, i)
    for r in doc["results"]:
        b, d = r.get("best", {}), r.get("default", {})
        us = lambda c: f"{c['median_ms'] * 1e3:.2f}" if "median_ms" in c else c.get("outcome", "-")
        print(f"| {r['arch']} | {r['shape']} | {d.get('config', '-')} | {us(d)} | "
              f"{b.get('config', r['status'])} | {us(b)} | {r.get('speedup', 0):.3f} | {r['evaluated']} |")
PY
# The GPU tests with what is left of the visit (the decode rule is host-side).
left=$((560 - SECONDS)); ((left < 30)) && left=30
GPU_ONLY=1 OUT=$L/check timeout $left bash bench/device/check_all.sh $B > $OUT/check_table.txt 2>&1
echo "check_all rc=$? (limit ${left}s) $(date -u +%T)" >> $S
gzip -c $L/check/check_all.log > $OUT/check_all.log.gz
tar czf "$OUT/logs.tar.gz" --exclude=decode_sm_90 --exclude=tune/cache --exclude=check -C $L .
cat $S; tail -6 $OUT/check_table.txt; cat $OUT/tune_summary.md $OUT/decode_tune.md | cut -c1-220
grep -E "32768" $OUT/decode.txt | cut -c1-160 | head -60
