#!/usr/bin/env bash
# The torch example with its sliding-window decode step, and the Python tests.
cd "$(dirname "$0")/../../../.."
B=.carry/build
export JITK_LIBRARY=$PWD/$B/lib/c_api/libjitk_c.so PYTHONPATH=$PWD/python JITK_CACHE_DIR=/tmp/jc
{ nvidia-smi --query-gpu=name,driver_version --format=csv,noheader; cat $B/COMMIT; } > $OUT/gpu.txt
{ python3 examples/sparse_attn_torch.py; echo "example rc=$?"; } > $OUT/example.txt 2>&1
python3 -m unittest discover -s tests/python > $OUT/python_tests.txt 2>&1
cat $OUT/gpu.txt; grep -v "system DB" $OUT/example.txt; tail -3 $OUT/python_tests.txt
