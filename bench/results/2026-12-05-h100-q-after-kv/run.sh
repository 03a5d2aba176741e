#!/bin/bash
# Device visit (.carry/build of the commit in .carry/build/COMMIT): NVRTC's
# cache check (three runs of the CUDA backend's tests), every GPU test
# (check_all.sh), then template variants of the warp-specialized engine
# (.carry/tpl_<name>, JITK_TEMPLATE_DIR) timed against the embedded
# templates, alternating, two passes; launch_bench three times (ten
# repetitions each). Short tables last.
cd "$(dirname "$0")/../../.."
B=.carry/build
L=/tmp/logs; mkdir -p "$OUT" $L
S="$OUT/summary.txt"
echo "commit $(cat $B/COMMIT | tr '\n' ' ') $(date -u +%FT%TZ)" > $S
nvidia-smi --query-gpu=name,driver_version,clocks.max.sm --format=csv,noheader >> $S
OUT=$OUT/nvrtc bash bench/results/2026-12-05-h200-nvrtc-cache/run.sh > /dev/null 2>&1
export LD_LIBRARY_PATH=$B/bench:$B/lib/c_api
JITK_CACHE_DIR=/tmp/c_check OUT=$L/check timeout 240 bash bench/device/check_all.sh $B > $OUT/check_all.txt 2>&1
grep -o "cos [0-9.]*" $L/check/check_all.log | sort -t' ' -k2 | head -1 | sed 's/^/worst attention /' >> $S
grep -E "^\[  (PASSED|SKIPPED|FAILED)  ?\] [0-9]+ test" $L/check/check_all.log |
  awk '{n[$2]+=$4} END {for (k in n) print "tests " k, n[k]}' >> $S
grep -E "^\[  FAILED  \] [A-Z]" $L/check/check_all.log | sort -u >> $S
cp $L/check/check_all.log $OUT/
echo "checks done $(date -u +%T)" >> $S
export BIN=$B/tests/jitk_lib_attention_tests
OUT=$L/ab TIMEOUT=150 bash bench/device/attention_ab.sh sm_90a 2 base=- kvfirst=.carry/tpl_kvfirst \
  kvq=.carry/tpl_kvq -- "causal f16 L=4096,dense f16 L=4096,random blocks 10%,random blocks 30%,sliding 1024+128 f16" \
  > /dev/null 2>&1
cp $L/ab/table.md $OUT/table_ab.md; grep rc= $L/ab/runs.txt >> $S
OUT=$L/noq TIMEOUT=100 bash bench/device/attention_ab.sh sm_90a 2 kvfirst=.carry/tpl_kvfirst \
  kvnoq=.carry/tpl_kvnoq -- "random blocks 10% f16 L=4096,random blocks 10% same" > /dev/null 2>&1
cp $L/noq/table.md $OUT/table_noq.md; grep rc= $L/noq/runs.txt >> $S
for i in 1 2 3; do
  timeout 60 $B/bench/launch_bench --benchmark_filter='BM_Launch(SparseAttnRawBackend|SparseAttnKernel|RawBackend|Kernel)$' \
    --benchmark_min_time=0.2 --benchmark_repetitions=10 --benchmark_report_aggregates_only=true \
    --benchmark_out=$OUT/launch_$i.json --benchmark_out_format=json > $L/launch_$i.txt 2>&1
  echo "launch_bench $i rc=$?" >> $S
done
tar czf $OUT/logs.tar.gz -C $L ab noq check 2>/dev/null
echo "done $(date -u +%T)" >> $S
cat $S; cat $OUT/nvrtc/summary.txt; tail -4 $OUT/check_all.txt; cat $OUT/table_ab.md $OUT/table_noq.md
python3 - $OUT <<'PY'
import json, sys, glob
rows = {}
for i in (1, 2, 3):
    try:
        for b in json.load(open(f"{sys.argv[1]}/launch_{i}.json"))["benchmarks"]:
            if b.get("aggregate_name") == "median":
                rows.setdefault(b["run_name"], {})[i] = b["real_time"]
    except Exception as e:  # noqa: BLE001
        print(f"launch_{i}: {e}")
print("| launch_bench median ns | run 1 | run 2 | run 3 |\n|---|---|---|---|")
for name, r in rows.items():
    print(f"| {name} | " + " | ".join(f"{r.get(i, 0):.0f}" for i in (1, 2, 3)) + " |")
PY
