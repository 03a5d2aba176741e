#!/usr/bin/env bash
# One visit to a GPU machine: every test binary (GPU tests run for real),
# jitk-info, the examples; logs under $OUT, a short table printed last.
#   bench/device/check_all.sh [BUILD_DIR]     (the build folder built elsewhere and carried)
#   env: GPU_ONLY=1 runs only the tests that need the GPU or NVRTC (GPU, compile
#        and pruning tests); OUT (default /tmp/jitk-out) takes the log.
# The table ends with the worst attention cosine and the tests passed,
# skipped and failed, for a visit's summary.
set -uo pipefail
BUILD="${1:-build}"
if [[ ${GPU_ONLY:-0} == 1 ]]; then
  export GTEST_FILTER='*GpuTest*:CompilePruningTest.*:HipBackendTest.*:*CompileTest*:CompileInstanceTest.*'
fi
OUT="${OUT:-/tmp/jitk-out}"
mkdir -p "$OUT"
LOG="$OUT/check_all.log"
: >"$LOG"

{
  echo "# date: $(date -u +%FT%TZ)"
  echo "# commit: $(cat "$BUILD/COMMIT" 2>/dev/null || git rev-parse HEAD 2>/dev/null)"
  nvidia-smi --query-gpu=name,driver_version,memory.total --format=csv,noheader 2>/dev/null |
    sed 's/^/# gpu: /'
} | tee -a "$LOG"

echo "== jitk-info --compile" >>"$LOG"
"$BUILD/lib/jitk-info" --compile >>"$LOG" 2>&1
info_rc=$?

rows=()
for test in "$BUILD"/tests/jitk_*_tests; do
  name=$(basename "$test")
  echo "== $name" >>"$LOG"
  start=$(date +%s.%N)
  "$test" --gtest_brief=1 >>"$LOG" 2>&1
  rc=$?
  secs=$(awk -v a="$start" -v b="$(date +%s.%N)" 'BEGIN{print b-a}')
  rows+=("$(printf '%-34s rc=%-3s %6.1fs' "$name" "$rc" "$secs")")
  # 127: the binary did not start (a shared library missing); say which.
  if ((rc == 127)); then
    rows+=("  $(tail -n 1 "$LOG" | sed 's/.*: error while loading shared libraries: /missing: /')")
  fi
done

for example in "$BUILD"/examples/example_*; do
  [[ -x $example ]] || continue  # none built
  echo "== $(basename "$example")" >>"$LOG"
  "$example" >>"$LOG" 2>&1
  rows+=("$(printf '%-34s rc=%-3s' "$(basename "$example")" "$?")")
done

echo
echo "failed tests:"
grep -E "^\[  FAILED  \]" "$LOG" | sort -u | head -40
echo
printf '%-34s %s\n' "jitk-info --compile" "rc=$info_rc"
printf '%s\n' "${rows[@]}"
echo
grep -o "cos [0-9.]*" "$LOG" | sort -t' ' -k2 | head -1 | sed 's/^/worst attention /'
grep -E "^\[  (PASSED|SKIPPED|FAILED)  ?\] [0-9]+ test" "$LOG" |
  awk '{n[$2]+=$4} END {for (k in n) print "tests " k, n[k]}'
