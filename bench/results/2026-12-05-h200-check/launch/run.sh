#!/bin/bash
# Device visit 2 (right after run.sh, the same .carry/build): launch_bench twice,
# three repetitions each, with the carried Google Benchmark library on the path
# (run.sh's launch_bench call lacked it: rc=127 in its summary).
B=.carry/build; export LD_LIBRARY_PATH=$B/bench:$B/lib/c_api; mkdir -p $OUT
(nvidia-smi --query-gpu=name,driver_version --format=csv,noheader; date -u +%FT%TZ; cat $B/COMMIT) > $OUT/launch_header.txt
for i in 1 2; do
  timeout 100 $B/bench/launch_bench --benchmark_min_time=0.2 --benchmark_repetitions=3 \
    --benchmark_report_aggregates_only=true --benchmark_out=$OUT/launch_bench_$i.json \
    --benchmark_out_format=json > $OUT/launch_bench_$i.txt 2>&1; echo rc=$?
done
grep -E "median" $OUT/launch_bench_*.txt
