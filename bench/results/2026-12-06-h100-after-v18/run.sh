#!/bin/bash
# One device visit (.carry/build of 61bf625, Version 18): block 0's timeline of the
# causal and 10 % cases; the host cost of one jitk.sparse_attn call from Python beside
# SDPA's; then side_by_side.py for f16 / bf16 at L = 4096.
cd "$(dirname "$0")/../../.."
B=.carry/build
L=/tmp/logs_v3; rm -rf $L; mkdir -p "$OUT" $L
S="$OUT/summary.txt"
echo "commit $(cat $B/COMMIT | tr '\n' ' ') $(date -u +%FT%TZ)" > $S
nvidia-smi --query-gpu=name,driver_version,clocks.max.sm --format=csv,noheader >> $S
export JITK_CACHE_DIR=/tmp/jitk-cache JITK_LIBRARY=$PWD/$B/lib/c_api/libjitk_c.so LD_LIBRARY_PATH=$PWD/$B/lib/c_api
BIN=$B/tests/jitk_lib_attention_tests OUT=$L/timeline TIMEOUT=120 bash bench/device/attention_timeline.sh \
  "causal f16 L=4096,random blocks 10% f16 L=4096" > /dev/null 2>&1
cp $L/timeline/summary.txt $OUT/timeline_summary.txt; cat $L/timeline/timing.txt >> $OUT/timeline_summary.txt
echo "timeline done $(date -u +%T)" >> $S
cat > /tmp/overhead.py <<'PY'
import sys, time
sys.path.insert(0, sys.argv[1])
import torch, jitk
from torch.nn.attention.flex_attention import create_block_mask
L, D = 256, 128
q, k, v = (torch.randn(1, 1, L, D, device="cuda", dtype=torch.float16) for _ in range(3))
o = torch.empty_like(q)
bm = create_block_mask(lambda b, h, qi, ki: ki <= qi, None, None, L, L, device="cuda", BLOCK_SIZE=128)
sdpa = torch.nn.functional.scaled_dot_product_attention
calls = {"jitk": lambda: jitk.sparse_attn(q, k, v, bm, mask="causal", out=o),
         "sdpa": lambda: sdpa(q, k, v, is_causal=True)}
for fn in calls.values():
    for _ in range(200): fn()
torch.cuda.synchronize()
samples = {name: [] for name in calls}
for _ in range(7):
    for name, fn in calls.items():
        t0 = time.perf_counter()
        for _ in range(2000): fn()
        torch.cuda.synchronize()
        samples[name].append((time.perf_counter() - t0) / 2000 * 1e6)
for name, s in samples.items():
    s.sort()
    print("{} us/call min {:.2f} median {:.2f}".format(name, s[0], s[3]))
PY
for pass in 1 2; do timeout 60 python3 /tmp/overhead.py $PWD/python >> $OUT/overhead.txt 2>>$L/overhead.err; done
echo "overhead done $(date -u +%T)" >> $S
PYTHONPATH=$PWD/python timeout 170 python3 bench/device/side_by_side.py --out /tmp/sbs --build $B --sizes 24-24 --dtypes float16 \
  --attn-lengths 4096 --attn-dtypes float16,bfloat16 --attn-budget-s 100 > $L/sbs.log 2>&1
echo "side_by_side rc=$? $(date -u +%T)" >> $S
cp /tmp/sbs/results.md "$OUT/sbs_results.md"; cp /tmp/sbs/short.md "$OUT/sbs_short.md"
cp /tmp/sbs/attention.csv "$OUT/"; cp /tmp/sbs/header.json $L/
tar czf "$OUT/logs.tar.gz" --exclude=cache* --exclude=templates -C $L .
cat $S $OUT/overhead.txt | cut -c1-300; cat $OUT/timeline_summary.txt | cut -c1-200
grep -E "\| (jitk|flex|sdpa) \||from Python" "$OUT/sbs_results.md"
