#!/bin/bash
# Device visit (the build in .carry/build, COMMIT names it; .carry/before holds
# the previous commit's launch_bench): every GPU test at the default attention
# target and the attention GPU tests at sm_90 with the launch planner; launch_bench
# before / after, alternating, three runs each; the register-limit test of the
# CUDA backend repeated 20 times under each target setting; a diagnostic
# template set timed against the embedded one. Short tables last.
cd "$(dirname "$0")/../../.."
B=.carry/build
L=/tmp/logs; mkdir -p "$OUT" $L
S="$OUT/summary.txt"
echo "commit $(cat $B/COMMIT) $(date -u +%FT%TZ)" > $S
nvidia-smi --query-gpu=name,driver_version,clocks.max.sm --format=csv,noheader >> $S
export LD_LIBRARY_PATH=$B/bench:$B/lib/c_api
GTEST_FILTER='*GpuTest*:CompilePruningTest.*:HipBackendTest.*' JITK_CACHE_DIR=/tmp/c_default \
  OUT=$L/default timeout 200 bash bench/device/check_all.sh $B > $L/default.txt 2>&1
JITK_ATTN_TARGET=sm_90 JITK_CACHE_DIR=/tmp/c_sm90 timeout 150 $B/tests/jitk_lib_attention_tests \
  --gtest_filter='SparseAttnGpuTest.*' --gtest_brief=1 > $L/attention_sm90.log 2>&1
echo "attention sm_90 rc=$? $(grep -E '^\[  (PASSED|FAILED)' $L/attention_sm90.log | tr '\n' ' ')" >> $S
echo "== check_all default" >> $S
grep -E "rc=|FAILED" $L/default.txt >> $S
grep -o "cos [0-9.]*" $L/default/check_all.log $L/attention_sm90.log | sort -t' ' -k2 | head -1 | sed 's/^/worst attention /' >> $S
grep -E "^\[  (PASSED|SKIPPED|FAILED)  ?\] [0-9]+ test" $L/default/check_all.log |
  awk '{n[$2]+=$4} END {for (k in n) print "tests " k, n[k]}' >> $S
for t in default sm_90; do
  env $([[ $t == sm_90 ]] && echo JITK_ATTN_TARGET=sm_90) $B/tests/jitk_lib_backend_cuda_tests \
    --gtest_filter='CudaGpuTest.MaxThreadsPerBlockMatchesTheDriver' --gtest_repeat=20 \
    > $L/maxthreads_$t.log 2>&1
  echo "max-threads test x20 ($t): rc=$? failed $(grep -c '^\[  FAILED  \] CudaGpuTest' $L/maxthreads_$t.log)" >> $S
done
echo "checks done $(date -u +%T)" >> $S
for i in 1 2 3; do
  for v in before after; do
    bin=$B/bench/launch_bench; [[ $v == before ]] && bin=.carry/before/launch_bench
    timeout 80 $bin --benchmark_filter='SparseAttn|BM_Launch' --benchmark_min_time=0.2 \
      --benchmark_repetitions=3 --benchmark_report_aggregates_only=true \
      --benchmark_out=$OUT/launch_${v}_$i.json --benchmark_out_format=json > $L/launch_${v}_$i.txt 2>&1
    echo "launch_bench $v $i rc=$?" >> $S
  done
done
# Diagnostic, wrong on purpose: .carry/tpl_nostore never stores the staged O
# (the copying thread refills its stage at once): what the store ahead of
# the next query tile's third K / V copy costs at 10 % density.
BIN=$B/tests/jitk_lib_attention_tests OUT=$L/nostore TIMEOUT=120 bash bench/device/attention_ab.sh \
  sm_90a 2 head=- nostore=.carry/tpl_nostore -- \
  "random blocks 10% f16 L=4096,random blocks 10% same keys,causal f16 L=4096,random blocks 30%" \
  > /dev/null 2>&1
cp $L/nostore/table.md $OUT/table_nostore.md; cat $L/nostore/runs.txt >> $S
echo "done $(date -u +%T)" >> $S
python3 - "$OUT" >> $S <<'PY'
import json, sys, glob, collections
rows = collections.defaultdict(dict)
for f in sorted(glob.glob(sys.argv[1] + "/launch_*_*.json")):
    v, i = f.rsplit("/", 1)[1][len("launch_"):-5].split("_")
    for b in json.load(open(f))["benchmarks"]:
        if b.get("aggregate_name") == "median":
            rows[b["run_name"]][f"{v} {i}"] = round(b["real_time"])
cols = [f"{v} {i}" for i in "123" for v in ("before", "after")]
print("| benchmark (median ns) | " + " | ".join(cols) + " |")
print("|---|" + "---|" * len(cols))
for name, r in rows.items():
    print(f"| {name} | " + " | ".join(str(r.get(c, "")) for c in cols) + " |")
PY
tar czf "$OUT/logs.tar.gz" --exclude='jitk-cache' -C $L .
cat $S $OUT/table_nostore.md
