#!/bin/bash
# Device visit 6 (working tree on 7c3c142): the mma.sync engine runs the full
# tiles of causal masks in their own copy of the pass loop (no mask code).
# The GPU tests, then new vs base (7c3c142) alternately twice, the mma.sync
# engine (sm_90) over its configs.
cd "$(dirname "$0")/../../../.."
B=.carry/build
L=/tmp/logs; mkdir -p "$OUT" $L
S="$OUT/summary.txt"
echo "commit $(cat $B/COMMIT | tr '\n' ' ') $(date -u +%FT%TZ)" > $S
nvidia-smi --query-gpu=name,driver_version --format=csv,noheader >> $S
JITK_CACHE_DIR=/tmp/cache_new timeout 200 $B/tests/jitk_lib_attention_tests \
  --gtest_filter='SparseAttnGpuTest.*' > $L/attn_new.log 2>&1
echo "attention gpu tests new rc=$? $(grep -E '^\[  (PASSED|FAILED)' $L/attn_new.log | tr '\n' ' ')" \
  "worst $(grep -o 'cos [0-9.]*' $L/attn_new.log | sort | head -1), cases $(grep -c 'cos ' $L/attn_new.log)" >> $S
grep -E "^\[  FAILED  \] [A-Z]" $L/attn_new.log >> $S
run_timing() {  # variant pass target cases
  local v=$1 i=$2 tgt=$3 only=$4 T=""
  [ $v != new ] && T=$PWD/.carry/tpl_$v
  env ${T:+JITK_TEMPLATE_DIR=$T} JITK_CACHE_DIR=/tmp/cache_${v}_$tgt JITK_ATTN_TARGET=$tgt JITK_ATTN_ONLY="$only" \
    JITK_ATTN_RESULTS="$L/timing_${v}_$i.txt" timeout 150 $B/tests/jitk_lib_attention_tests \
    --gtest_also_run_disabled_tests --gtest_filter='SparseAttnGpuTest.DISABLED_Timing' > $L/timing_${v}_$i.log 2>&1
  echo "timing $tgt $v $i rc=$?" >> $S
}
ONLY="causal f16 L=4096,causal bf16 L=4096,causal bf16 L=16384,dense f16 L=4096,causal f16 L=16384,sliding"
V="new base"
for i in 1 2; do for v in $V; do run_timing $v $i sm_90 "$ONLY"; done; done
python3 - "$L" $V > $OUT/table.txt <<'PY'
import sys
d, vs = sys.argv[1], sys.argv[2:]
cols, rows = [], {}
for i in (1, 2):
  for v in vs:
    cols.append(f"{v}{i}")
    try: lines = open(f"{d}/timing_{v}_{i}.txt").read().splitlines()
    except OSError: lines = []
    for ln in lines:
      f = [x.strip() for x in ln.split("|")]
      rows.setdefault((f[0], f[1].replace(" (default)", "*")), {})[cols[-1]] = f[3].split()[0]
print("case | config | " + " | ".join(cols))
for (c, k), r in rows.items(): print(f"{c} | {k} | " + " | ".join(r.get(x, "-") for x in cols))
PY

tar czf "$OUT/logs.tar.gz" -C $L .
cat $S
cat $OUT/table.txt
