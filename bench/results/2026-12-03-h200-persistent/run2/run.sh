#!/bin/bash
# Device visit 2: the warp-specialized engine copying with TMA. GPU tests,
# timings (sweep), the SASS of the causal kernel.
cd "$(dirname "$0")/../../../.."
B=.carry/build/tests
L=/tmp/logs; mkdir -p "$OUT" $L
S="$OUT/summary.txt"
echo "commit $(cat .carry/build/COMMIT) $(date -u +%FT%TZ)" > $S
nvidia-smi --query-gpu=name,driver_version --format=csv,noheader >> $S
gpu_tests() {  # name, then env
  local name=$1; shift
  env "$@" JITK_CACHE_DIR=/tmp/cache_$name timeout 150 $B/jitk_lib_attention_tests \
    --gtest_filter='SparseAttnGpuTest.*' > $L/tests_$name.log 2>&1
  echo "gpu tests $name rc=$? $(grep -E '^\[  (PASSED|FAILED)' $L/tests_$name.log | tr '\n' ' ')" >> $S
  grep -E "^\[  FAILED  \] [A-Z]" $L/tests_$name.log >> $S
  echo "  worst cos: $(grep -o 'cos [0-9.]*' $L/tests_$name.log | sort | head -1), cases $(grep -c 'cos ' $L/tests_$name.log)" >> $S
}
timing() {  # name, timeout, then env
  local name=$1 t=$2; shift 2
  env "$@" JITK_CACHE_DIR=/tmp/cache_$name JITK_ATTN_RESULTS="$OUT/timing_$name.txt" timeout $t \
    $B/jitk_lib_attention_tests --gtest_also_run_disabled_tests \
    --gtest_filter='SparseAttnGpuTest.DISABLED_Timing' > $L/timing_$name.log 2>&1
  echo "timing $name rc=$?" >> $S
}
gpu_tests base X=1
timing base 150 X=1


D=$(find /opt /usr/local -name cuobjdump -type f 2>/dev/null | head -1)
for c in .carry/cubins/*.cubin; do
  n=$(basename $c .cubin); $D -sass $c > $L/sass_$n.txt 2>&1
  echo "SASS $n: $(grep -c 'STL' $L/sass_$n.txt) STL, $(grep -c 'HGMMA' $L/sass_$n.txt) HGMMA, $(grep -c 'MUFU.EX2' $L/sass_$n.txt) MUFU.EX2, $(grep -c 'WARPGROUP.DEPBAR' $L/sass_$n.txt) DEPBAR, $(grep -c 'UTMALDG' $L/sass_$n.txt) UTMALDG, $(grep -c 'LDGSTS' $L/sass_$n.txt) LDGSTS, $(grep -c 'MEMBAR' $L/sass_$n.txt) MEMBAR" >> $S
  # MUFU.EX2 between the first DEPBAR.LE 0x1 and the next DEPBAR (the softmax under P V)
  awk '/WARPGROUP.DEPBAR.LE gsb0, 0x1/{w=1;n=0;next} /WARPGROUP.DEPBAR/{if(w)print "  between waits: " n " MUFU.EX2"; w=0} w&&/MUFU.EX2/{n++}' $L/sass_$n.txt >> $S
done
tar czf "$OUT/logs.tar.gz" -C $L .
cat $S; for f in "$OUT"/timing_*.txt; do echo "--- $f"; cut -d'|' -f1-4 "$f"; done
