#!/bin/bash
# One device visit (.carry/build of 943e010; .carry/tpl_blfast = the fast-math finish,
# blfast.patch beside this file; .carry/python_old = the Python package of 5180e96):
# main / blfast timed in three alternating passes; then the host cost of one
# jitk.sparse_attn call from Python, old and new package, beside SDPA's, in
# alternating fresh processes; last, the attention GPU tests with blfast's templates.
cd "$(dirname "$0")/../../../.."
B=.carry/build
L=/tmp/logs_v1; rm -rf $L; mkdir -p "$OUT" $L
S="$OUT/summary.txt"
echo "commit $(cat $B/COMMIT | tr '\n' ' ') $(date -u +%FT%TZ)" > $S
nvidia-smi --query-gpu=name,driver_version,clocks.max.sm --format=csv,noheader >> $S
BIN=$B/tests/jitk_lib_attention_tests OUT=$L/ab TIMEOUT=100 bash bench/device/attention_ab.sh sm_90a 3 \
  main=- blfast=.carry/tpl_blfast -- \
  "causal f16 L=4096,dense f16 L=4096,random blocks 10% f16 L=4096,random blocks 10% same" > /dev/null 2>&1
cp $L/ab/table.md $OUT/table_ab.md; grep rc= $L/ab/runs.txt | tr '\n' ';' >> $S
echo "ab done $(date -u +%T)" >> $S
cat > /tmp/overhead.py <<'PY'
import sys, time
sys.path.insert(0, sys.argv[1])
import torch, jitk
from torch.nn.attention.flex_attention import create_block_mask
L, D = 256, 128
q, k, v = (torch.randn(1, 1, L, D, device="cuda", dtype=torch.float16) for _ in range(3))
o = torch.empty_like(q)
bm = create_block_mask(lambda b, h, qi, ki: ki <= qi, None, None, L, L, device="cuda", BLOCK_SIZE=128)
want = torch.nn.functional.scaled_dot_product_attention(q.float(), k.float(), v.float(), is_causal=True)
sdpa = torch.nn.functional.scaled_dot_product_attention
calls = {"jitk": lambda: jitk.sparse_attn(q, k, v, bm, mask="causal", out=o),
         "sdpa": lambda: sdpa(q, k, v, is_causal=True)}
for fn in calls.values():
    for _ in range(200): fn()
torch.cuda.synchronize()
err = (o.float() - want).abs().max().item()
samples = {name: [] for name in calls}
for _ in range(7):
    for name, fn in calls.items():
        t0 = time.perf_counter()
        for _ in range(2000): fn()
        torch.cuda.synchronize()
        samples[name].append((time.perf_counter() - t0) / 2000 * 1e6)
for name, s in samples.items():
    s.sort()
    print("{} {} us/call min {:.2f} median {:.2f}{}".format(
        sys.argv[1].split("/")[-1], name, s[0], s[3], " max_abs_err {:.2e}".format(err) if name == "jitk" else ""))
PY
export JITK_CACHE_DIR=/tmp/jitk-cache JITK_LIBRARY=$PWD/$B/lib/c_api/libjitk_c.so LD_LIBRARY_PATH=$PWD/$B/lib/c_api
for pass in 1 2 3; do
  for pkg in .carry/python_old python; do timeout 60 python3 /tmp/overhead.py $PWD/$pkg >> $OUT/overhead.txt 2>>$L/overhead.err; done
done
echo "overhead done $(date -u +%T)" >> $S
JITK_TEMPLATE_DIR=$PWD/.carry/tpl_blfast JITK_CACHE_DIR=/tmp/c_check timeout 200 $B/tests/jitk_lib_attention_tests \
  --gtest_filter='SparseAttnGpuTest.*' > $L/check_attention.log 2>&1
echo "attention GPU tests (blfast) rc=$?" >> $S
grep -E "^\[  (PASSED|FAILED|SKIPPED) +\]" $L/check_attention.log | sort | uniq -c >> $S
tar czf $OUT/logs.tar.gz --exclude=cache* --exclude=templates -C $L . 2>/dev/null
cat $S $OUT/table_ab.md $OUT/overhead.txt | cut -c1-300
