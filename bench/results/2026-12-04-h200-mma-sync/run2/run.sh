#!/bin/bash
# Device visit 2 (working tree on 6291d11): the sparse_attn GPU tests with the
# embedded templates (new: one barrier per key tile; mma.sync 64-key passes
# for two m-tiles per warp; K/V head pointers formed per refill; the element
# mask from per-row key ranges), the SASS of two mma.sync cubins compiled
# here (spill stores/loads and where they sit), then the mma.sync engine
# (JITK_ATTN_TARGET=sm_90) over its configs, alternately twice: new, base
# (6291d11), a (one barrier per tile only), m (new with 32-key passes); last
# the sm_90a engine, new and base, on the causal and sliding cases.
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
for c in .carry/cubin/*.cubin; do
  n=$(basename $c .cubin); cuobjdump -sass $c > $L/$n.sass 2>&1
  echo "$n: HMMA $(grep -c HMMA $L/$n.sass) LDSM $(grep -c LDSM $L/$n.sass) LDGSTS $(grep -c LDGSTS $L/$n.sass)" \
    "STL $(grep -c 'STL' $L/$n.sass) LDL $(grep -c 'LDL' $L/$n.sass) BAR $(grep -c 'BAR.SYNC' $L/$n.sass)" >> $S
  grep -n -E 'STL|LDL|BAR.SYNC|BRA' $L/$n.sass | head -60 > $L/$n.spills
done
run_timing() {  # variant pass target cases
  local v=$1 i=$2 tgt=$3 only=$4 T=""
  [ $v != new ] && T=$PWD/.carry/tpl_$v
  env ${T:+JITK_TEMPLATE_DIR=$T} JITK_CACHE_DIR=/tmp/cache_${v}_$tgt JITK_ATTN_TARGET=$tgt JITK_ATTN_ONLY="$only" \
    JITK_ATTN_RESULTS="$L/timing_${v}_$i.txt" timeout 100 $B/tests/jitk_lib_attention_tests \
    --gtest_also_run_disabled_tests --gtest_filter='SparseAttnGpuTest.DISABLED_Timing' > $L/timing_${v}_$i.log 2>&1
  echo "timing $tgt $v $i rc=$?" >> $S
}
ONLY="causal f16 L=4096,causal bf16 L=16384,dense f16 L=4096,causal f16 L=16384,sliding"
V="new base a m"
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
mkdir -p $L/ws; mv $L/timing_* $L/ws/ 2>/dev/null; mv $L/ws $L/mma
for i in 1 2; do for v in new base; do run_timing $v $i sm_90a "causal f16 L=4096,sliding"; done; done
python3 - "$L" $V > $OUT/table_sm90a.txt <<'PY'
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
cat $OUT/table_sm90a.txt
