#!/bin/bash
# One device visit (.carry/build of the working tree; .carry/lib_head = libjitk_c.so of
# the commit before it): the CUDA backend, C API and Python tests on the GPU; the three
# CUDA-graph tests with the head library too; host_cost.py with head / working-tree
# libraries in fresh processes alternating, then a profile of the working tree's calls.
cd "$(dirname "$0")/../../../.."
B=.carry/build
L=/tmp/logs_g; rm -rf $L; mkdir -p "$OUT" $L
S="$OUT/summary.txt"
echo "commit $(cat $B/COMMIT | tr '\n' ' ') $(date -u +%FT%TZ)" > $S
nvidia-smi --query-gpu=name,driver_version,clocks.max.sm --format=csv,noheader >> $S
export JITK_CACHE_DIR=/tmp/jitk-cache LD_LIBRARY_PATH=$PWD/$B/lib/c_api
for t in jitk_lib_backend_cuda_tests jitk_lib_c_api_tests; do
  timeout 200 $B/tests/$t > $L/$t.log 2>&1
  echo "$t rc=$? $(grep -E '^\[  (PASSED|FAILED) +\]' $L/$t.log | tr '\n' ' ') skipped $(grep -c '^\[  SKIPPED \]' $L/$t.log)" >> $S
done
export JITK_LIBRARY=$PWD/$B/lib/c_api/libjitk_c.so
PYTHONPATH=$PWD/python timeout 300 python3 -m unittest discover -s tests/python -v > $L/python_tests.log 2>&1
echo "python tests rc=$? $(grep -E '^(Ran|OK|FAILED)' $L/python_tests.log | tr '\n' ' ')" >> $S
GRAPH_TESTS="test_torch.ScaledAddTest.test_first_call_inside_a_cuda_graph_capture_replays test_torch.ScaledAddTest.test_a_process_whose_first_jitk_call_is_captured test_torch.SparseAttnTest.test_first_call_inside_a_cuda_graph_capture_replays test_torch.SparseAttnTest.test_replays_in_a_cuda_graph_after_a_warm_up"
(cd tests/python && JITK_CACHE_DIR=/tmp/jitk-cache-head JITK_LIBRARY=$PWD/../../.carry/lib_head/libjitk_c.so \
  PYTHONPATH=$PWD/../../python timeout 300 python3 -m unittest -v $GRAPH_TESTS) > $L/graph_tests_head.log 2>&1
echo "graph tests, head library rc=$? $(grep -E '^(Ran|OK|FAILED)' $L/graph_tests_head.log | tr '\n' ' ')" >> $S
grep -E " \.\.\. " $L/graph_tests_head.log >> $S
for pass in 1 2 3; do
  for lib in .carry/lib_head $B/lib/c_api; do
    echo "library $lib" >> $OUT/host_cost.txt
    JITK_LIBRARY=$PWD/$lib/libjitk_c.so PYTHONPATH=$PWD/python timeout 120 python3 bench/device/host_cost.py \
      >> $OUT/host_cost.txt 2>>$L/host_cost.err
  done
done
PYTHONPATH=$PWD/python timeout 120 python3 bench/device/host_cost.py --passes 1 --profile $OUT/profile.txt > /dev/null 2>>$L/host_cost.err
echo "host cost done rc=$? $(date -u +%T)" >> $S
tar czf $OUT/logs.tar.gz --exclude=jitk-cache* -C $L . 2>/dev/null
cat $S $OUT/host_cost.txt | cut -c1-300
grep -E "FAIL|ERROR|Error" $L/python_tests.log | head
grep -E "Error|error" $L/graph_tests_head.log | head -5
