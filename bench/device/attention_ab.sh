#!/usr/bin/env bash
# Times sparse_attn kernel-template sets against each other on the GPU present,
# alternating the variants within one run (machines drift between runs), and
# prints one table: per case and config, ms and TFLOP/s of every variant and pass.
#
#   bench/device/attention_ab.sh TARGET PASSES VARIANT... [-- CASE,CASE,...]
#     TARGET   sm_90 (mma.sync), sm_90a (warp-specialized wgmma), or the device's own: -
#     VARIANT  name=DIR: the *.h templates of DIR (JITK_TEMPLATE_DIR); name=- : the embedded ones;
#              name=DIR@BINARY: that test binary (a build whose host code differs) instead of BIN
#     CASE     substrings of SparseAttnGpuTest.DISABLED_Timing's case names (default: all)
#   env: BIN (default build/tests/jitk_lib_attention_tests), OUT (default /tmp/attention_ab),
#        SWEEP=1 to time the test's config sweep too (default: the default config only),
#        TIMEOUT seconds per timing run (default 150).
# Example, from the repository root with the build folder carried as .carry/build:
#   BIN=.carry/build/tests/jitk_lib_attention_tests OUT=$OUT/mma \
#     bash bench/device/attention_ab.sh sm_90 2 new=- base=.carry/tpl_base -- "causal f16 L=4096,sliding"
set -uo pipefail
if (($# < 3)); then
  sed -n '2,15p' "$0" >&2
  exit 2
fi
TARGET=$1 PASSES=$2
shift 2
VARIANTS=()
while (($#)) && [[ $1 != -- ]]; do VARIANTS+=("$1"); shift; done
CASES=""
if (($#)); then shift; CASES="${1:-}"; fi
BIN=${BIN:-build/tests/jitk_lib_attention_tests}
OUT=${OUT:-/tmp/attention_ab}
mkdir -p "$OUT"
names=()
for i in $(seq 1 "$PASSES"); do
  for v in "${VARIANTS[@]}"; do
    name=${v%%=*} dir=${v#*=} bin=$BIN
    if [[ $dir == *@* ]]; then bin=${dir#*@} dir=${dir%%@*}; fi
    ((i == 1)) && names+=("$name")
    env ${dir:+$([[ $dir != - ]] && echo "JITK_TEMPLATE_DIR=$(realpath "$dir")")} \
      ${TARGET:+$([[ $TARGET != - ]] && echo "JITK_ATTN_TARGET=$TARGET")} \
      JITK_CACHE_DIR="$OUT/cache_$name" JITK_ATTN_NO_SWEEP=$([[ ${SWEEP:-0} == 1 ]] && echo 0 || echo 1) \
      JITK_ATTN_ONLY="$CASES" JITK_ATTN_RESULTS="$OUT/timing_${name}_$i.txt" \
      timeout "${TIMEOUT:-150}" "$bin" --gtest_also_run_disabled_tests \
      --gtest_filter='SparseAttnGpuTest.DISABLED_Timing' >"$OUT/timing_${name}_$i.log" 2>&1
    echo "timing $TARGET $name pass $i rc=$?" | tee -a "$OUT/runs.txt"
  done
done
python3 "$(dirname "$0")/timing_table.py" "$OUT" "$PASSES" "${names[@]}" | tee "$OUT/table.md"
