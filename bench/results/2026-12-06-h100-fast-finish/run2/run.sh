#!/bin/bash
# One device visit (.carry/build of 943e010; .carry/tpl_fastmath and .carry/tpl_blfast:
# the end-of-row math with __log2f / __fdividef, with and without its branches,
# patches beside this file; .carry/python_head = the Python package of 943e010, python/
# = the working tree's): main / fastmath / blfast at sm_90a in three alternating
# passes, main / fastmath at sm_90 (mma.sync) in two; the host cost of one
# jitk.sparse_attn call from Python (head and working tree, beside SDPA's, fresh
# processes alternating) and where the working tree's goes (cProfile); last, the
# Python tests on the GPU and the attention GPU tests with fastmath's templates.
cd "$(dirname "$0")/../../../.."
B=.carry/build
L=/tmp/logs_v2; rm -rf $L; mkdir -p "$OUT" $L
S="$OUT/summary.txt"
echo "commit $(cat $B/COMMIT | tr '\n' ' ') $(date -u +%FT%TZ)" > $S
nvidia-smi --query-gpu=name,driver_version,clocks.max.sm --format=csv,noheader >> $S
BIN=$B/tests/jitk_lib_attention_tests OUT=$L/ab TIMEOUT=100 bash bench/device/attention_ab.sh sm_90a 3 \
  main=- fastmath=.carry/tpl_fastmath blfast=.carry/tpl_blfast -- \
  "causal f16 L=4096,random blocks 10% f16 L=4096,random blocks 10% same,causal bf16 L=4096" > /dev/null 2>&1
cp $L/ab/table.md $OUT/table_ab.md; grep rc= $L/ab/runs.txt | tr '\n' ';' >> $S
echo "ab done $(date -u +%T)" >> $S
BIN=$B/tests/jitk_lib_attention_tests OUT=$L/ab90 TIMEOUT=100 bash bench/device/attention_ab.sh sm_90 2 \
  main=- fastmath=.carry/tpl_fastmath -- "causal f16 L=4096,random blocks 10% f16 L=4096" > /dev/null 2>&1
cp $L/ab90/table.md $OUT/table_ab_sm90.md; grep rc= $L/ab90/runs.txt | tr '\n' ';' >> $S
echo "ab sm_90 done $(date -u +%T)" >> $S
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
if len(sys.argv) > 2:  # where the time goes
    import cProfile, pstats
    pr = cProfile.Profile()
    pr.enable()
    for _ in range(5000): calls["jitk"]()
    torch.cuda.synchronize()
    pr.disable()
    pstats.Stats(pr, stream=open(sys.argv[2], "w")).sort_stats("tottime").print_stats(40)
    ops = jitk._torch_ops
    kernel = next(iter(jitk._core.kernel_cache._by_dims.values()))
    array = ops._sparse_attn_prepared(True, False)[0]
    def piece(name, f, n=20000):
        f(); torch.cuda.synchronize(); t0 = time.perf_counter()
        for _ in range(n): f()
        torch.cuda.synchronize()
        print("  piece {:<34} {:.2f} us".format(name, (time.perf_counter() - t0) / n * 1e6))
    piece("C launch (launch_array)", lambda: kernel.launch_array(array, None))
    piece("torch.cuda.current_stream(dev)", lambda: torch.cuda.current_stream(q.device).cuda_stream)
    piece("_current_stream (raw)", lambda: ops._current_stream(torch, 0))
    piece("_check_tensor x3", lambda: [ops._check_tensor(torch, "q", t) for t in (q, k, v)])
    piece("get_device x8", lambda: [t.get_device() for t in (q, k, v, o, bm.kv_num_blocks, bm.kv_indices, bm.full_kv_num_blocks, bm.full_kv_indices)])
    piece("data_ptr x8", lambda: [t.data_ptr() for t in (q, k, v, o, bm.kv_num_blocks, bm.kv_indices, bm.full_kv_num_blocks, bm.full_kv_indices)])
PY
export JITK_CACHE_DIR=/tmp/jitk-cache JITK_LIBRARY=$PWD/$B/lib/c_api/libjitk_c.so LD_LIBRARY_PATH=$PWD/$B/lib/c_api
for pass in 1 2 3; do
  for pkg in .carry/python_head python; do timeout 60 python3 /tmp/overhead.py $PWD/$pkg >> $OUT/overhead.txt 2>>$L/overhead.err; done
done
timeout 90 python3 /tmp/overhead.py $PWD/python $OUT/profile.txt >> $OUT/overhead.txt 2>>$L/overhead.err
echo "overhead done rc=$? $(date -u +%T)" >> $S
PYTHONPATH=$PWD/python timeout 120 python3 -m unittest discover -s tests/python -v > $L/python_tests.log 2>&1
echo "python tests rc=$? $(grep -E '^(Ran|OK|FAILED)' $L/python_tests.log | tr '\n' ' ')" >> $S
JITK_TEMPLATE_DIR=$PWD/.carry/tpl_fastmath JITK_CACHE_DIR=/tmp/c_check timeout 200 $B/tests/jitk_lib_attention_tests \
  --gtest_filter='SparseAttnGpuTest.*' > $L/check_attention.log 2>&1
echo "attention GPU tests (fastmath) rc=$?" >> $S
grep -E "^\[  (PASSED|FAILED|SKIPPED) +\]" $L/check_attention.log | sort | uniq -c >> $S
tar czf $OUT/logs.tar.gz --exclude=cache* --exclude=templates -C $L . 2>/dev/null
cat $S $OUT/table_ab.md $OUT/table_ab_sm90.md $OUT/overhead.txt | cut -c1-300
grep -E "FAIL|ERROR|Error" $L/python_tests.log | head
