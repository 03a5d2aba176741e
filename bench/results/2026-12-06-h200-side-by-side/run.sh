#!/bin/bash
# Device visit 2: the CUDA backend's GPU tests (a module variable read back);
# the C++ harness's timing of every case; block 0's timeline of the causal and
# 10 % cases (bench/device/attention_timeline.sh); the Python cost of one jitk.sparse_attn call with the
# package as it was (.carry/python_old) and as it is (python/), alternating
# in fresh processes; the Python tests on the GPU; then side_by_side.py
# (FlexAttention's recompile limit raised) for f16 / bf16 at L = 4096, 16384.
cd "$(dirname "$0")/../../.."
B=.carry/build
L=/tmp/logs; mkdir -p "$OUT" $L
S="$OUT/summary.txt"
echo "commit $(cat $B/COMMIT | tr '\n' ' ') $(date -u +%FT%TZ)" > $S
nvidia-smi --query-gpu=name,driver_version,clocks.max.sm --format=csv,noheader >> $S
export JITK_CACHE_DIR=/tmp/jitk-cache JITK_LIBRARY=$PWD/$B/lib/c_api/libjitk_c.so LD_LIBRARY_PATH=$PWD/$B/lib/c_api
JITK_ATTN_NO_SWEEP=1 JITK_ATTN_RESULTS=$OUT/timing_all.txt timeout 110 \
  $B/tests/jitk_lib_attention_tests --gtest_also_run_disabled_tests \
  --gtest_filter='SparseAttnGpuTest.DISABLED_Timing' > $L/timing_all.log 2>&1
echo "timing all rc=$? $(date -u +%T)" >> $S
timeout 60 $B/tests/jitk_lib_backend_cuda_tests --gtest_filter='CudaGpuTest.*' > $L/backend_gpu.log 2>&1
echo "cuda backend gpu tests rc=$? $(grep -E '^\[  (PASSED|FAILED|SKIPPED)' $L/backend_gpu.log | tr '\n' ' ')" >> $S
BIN=$B/tests/jitk_lib_attention_tests OUT=$L/timeline TIMEOUT=120 bash bench/device/attention_timeline.sh \
  "causal f16 L=4096,random blocks 10% f16 L=4096,random blocks 10% same keys" > /dev/null 2>&1
cp $L/timeline/summary.txt $OUT/timeline_summary.txt; cat $L/timeline/timing.txt >> $OUT/timeline_summary.txt
grep -E "rc=|no timeline|Failure|error" $L/timeline/run.log | head -5 >> $S
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
want = torch.nn.functional.scaled_dot_product_attention(q.float(), k.float(), v.float(), is_causal=True)
fn = lambda: jitk.sparse_attn(q, k, v, bm, mask="causal", out=o)
for _ in range(200): fn()
torch.cuda.synchronize()
err = (o.float() - want).abs().max().item()
samples = []
for _ in range(7):
    t0 = time.perf_counter()
    for _ in range(2000): fn()
    torch.cuda.synchronize()
    samples.append((time.perf_counter() - t0) / 2000 * 1e6)
print("{} us/call min {:.2f} median {:.2f} max_abs_err {:.2e}".format(sys.argv[1], min(samples), sorted(samples)[3], err))
ops = jitk._torch_ops
if hasattr(ops, "_sparse_attn_arg_array"):  # pieces of the call, this package only
    kernel = next(iter(ops._attn_kernels.values()))
    array = ops._sparse_attn_arg_array(True, False)
    stream = torch.cuda.current_stream(q.device).cuda_stream
    def piece(name, f, n=5000):
        f(); torch.cuda.synchronize(); t0 = time.perf_counter()
        for _ in range(n): f()
        torch.cuda.synchronize()
        print("  piece {:<28} {:.2f} us".format(name, (time.perf_counter() - t0) / n * 1e6))
    piece("C launch (launch_array)", lambda: kernel.launch_array(array, stream))
    piece("current_stream", lambda: torch.cuda.current_stream(q.device).cuda_stream)
    piece("_check_tensor x3", lambda: [ops._check_tensor(torch, "q", t) for t in (q, k, v)])
    piece("data_ptr x8", lambda: [t.data_ptr() for t in (q, k, v, o, bm.kv_num_blocks, bm.kv_indices, bm.full_kv_num_blocks, bm.full_kv_indices)])
PY
for pass in 1 2 3; do
  for pkg in .carry/python_old python; do timeout 60 python3 /tmp/overhead.py $PWD/$pkg >> $OUT/overhead.txt 2>>$L/overhead.err; done
done
echo "overhead done $(date -u +%T)" >> $S
PYTHONPATH=$PWD/python timeout 120 python3 -m unittest discover -s tests/python -v > $L/python_tests.log 2>&1
echo "python tests rc=$? $(grep -E '^(Ran|OK|FAILED)' $L/python_tests.log | tr '\n' ' ')" >> $S
PYTHONPATH=$PWD/python timeout 330 python3 bench/device/side_by_side.py --out /tmp/sbs --build $B --sizes 24-24 --dtypes float16 \
  --attn-lengths 4096,16384 --attn-dtypes float16,bfloat16 --attn-budget-s 260 > $L/sbs.log 2>&1
echo "side_by_side rc=$? $(date -u +%T)" >> $S
cp /tmp/sbs/results.md "$OUT/sbs_results.md"; cp /tmp/sbs/short.md "$OUT/sbs_short.md"
cp /tmp/sbs/attention.csv "$OUT/"; cp /tmp/sbs/header.json $L/
cp /tmp/sbs/scaled_add.csv /tmp/sbs/parity.csv $L/ 2>/dev/null
tar czf "$OUT/logs.tar.gz" -C $L .
cat $S $OUT/overhead.txt $OUT/timing_all.txt $OUT/timeline_summary.txt
grep -E "\| (jitk|flex|sdpa) \||from Python" "$OUT/sbs_results.md"
