#!/usr/bin/env bash
# Where block 0 of the warp-specialized wgmma engine spends its clocks, per
# timing case: the kernel templates copied with JITK_ATTN_TRACE defined
# (kernel_templates/sparse_attn_trace.h), SparseAttnGpuTest.DISABLED_Timing
# run on them at the default configs (its times include the trace's stores),
# each case launched once more with its events read back, and
# attention_timeline.py's summary printed.
#
#   BIN=build/tests/jitk_lib_attention_tests OUT=/tmp/timeline \
#     bash bench/device/attention_timeline.sh "causal f16 L=4096,random blocks 10% f16 L=4096"
# env: EVENTS kept per warpgroup (default 4096), TIMEOUT seconds (default 150),
#      SRC the templates to trace (default: the repository's kernel_templates).
set -uo pipefail
if (($# != 1)); then
  sed -n '2,12p' "$0" >&2
  exit 2
fi
HERE=$(cd "$(dirname "$0")" && pwd)
BIN=${BIN:-build/tests/jitk_lib_attention_tests}
OUT=${OUT:-/tmp/attention_timeline}
mkdir -p "$OUT"
TEMPLATES="$OUT/templates"
rm -rf "$TEMPLATES" && mkdir -p "$TEMPLATES"
cp "${SRC:-$HERE/../../kernel_templates}/"*.h "$TEMPLATES/"
sed -i "1i #define JITK_ATTN_TRACE ${EVENTS:-4096}" "$TEMPLATES/sparse_attn_trace.h"
JITK_TEMPLATE_DIR="$TEMPLATES" JITK_CACHE_DIR="$OUT/cache" JITK_ATTN_NO_SWEEP=1 JITK_ATTN_ONLY="$1" \
  JITK_ATTN_TIMELINE="$OUT/timeline.tsv" JITK_ATTN_RESULTS="$OUT/timing.txt" \
  timeout "${TIMEOUT:-150}" "$BIN" --gtest_also_run_disabled_tests \
  --gtest_filter='SparseAttnGpuTest.DISABLED_Timing' > "$OUT/run.log" 2>&1
echo "timing with the trace rc=$?" | tee -a "$OUT/run.log"
python3 "$HERE/attention_timeline.py" "$OUT/timeline.tsv" | tee "$OUT/summary.txt"
