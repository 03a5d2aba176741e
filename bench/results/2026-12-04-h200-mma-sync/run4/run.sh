#!/bin/bash
# Device visit 4 (working tree on 6291d11 as committed next): the sparse_attn
# GPU tests, the defaults of both engines timed alternately twice against
# 6291d11 (new: embedded templates and defaults; base: 6291d11's templates
# with the same host library, so at the new defaults), then jitk-tune's
# exhaustive sweep of the standard shapes on sm_90a (the shipped DB rows).
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
run_timing() {  # variant pass target
  local v=$1 i=$2 tgt=$3 T=""
  [ $v != new ] && T=$PWD/.carry/tpl_$v
  env ${T:+JITK_TEMPLATE_DIR=$T} JITK_CACHE_DIR=/tmp/cache_${v}_$tgt JITK_ATTN_TARGET=$tgt JITK_ATTN_NO_SWEEP=1 \
    JITK_ATTN_RESULTS="$L/$tgt/timing_${v}_$i.txt" timeout 120 $B/tests/jitk_lib_attention_tests \
    --gtest_also_run_disabled_tests --gtest_filter='SparseAttnGpuTest.DISABLED_Timing' > $L/$tgt/timing_${v}_$i.log 2>&1
  echo "timing $tgt $v $i rc=$?" >> $S
}
V="new base"
for tgt in sm_90a sm_90; do
  mkdir -p $L/$tgt
  for i in 1 2; do for v in $V; do run_timing $v $i $tgt; done; done
  python3 - "$L/$tgt" $V > $OUT/table_$tgt.txt <<'PY'
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
      rows.setdefault((f[0], f[1].replace(" (default)", "*")), {})[cols[-1]] = f[2].split()[0] + " ms " + f[3].split()[0]
print("case | config | " + " | ".join(cols))
for (c, k), r in rows.items(): print(f"{c} | {k} | " + " | ".join(r.get(x, "-") for x in cols))
PY
done
OUT=$L/tune BUILD=$B BUDGET=40,45s timeout 330 bash bench/device/tune_sparse_attn.sh > $L/tune_stdout.txt 2>&1
echo "tune rc=$?" >> $S
cp $L/tune/summary.md $OUT/tune_summary.md 2>/dev/null
cp $L/tune/tuned.json $OUT/tuned.json 2>/dev/null
tar czf "$OUT/logs.tar.gz" --exclude=cache -C $L .
cat $S
cat $OUT/table_sm_90a.txt $OUT/table_sm_90.txt
cat $OUT/tune_summary.md
