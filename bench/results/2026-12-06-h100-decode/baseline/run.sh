#!/usr/bin/env bash
# decode-step baseline and the Python GPU tests
cd "$(dirname "$0")/../../../.."
B=.carry/build
export JITK_LIBRARY=$PWD/$B/lib/c_api/libjitk_c.so PYTHONPATH=$PWD/python JITK_CACHE_DIR=/tmp/jitk-cache
nvidia-smi --query-gpu=name,driver_version --format=csv,noheader | tee $OUT/gpu.txt
python3 -c "import torch; print(torch.__version__)" | tee -a $OUT/gpu.txt
python3 bench/device/decode_step.py 2>&1 | tee $OUT/decode_step.txt
python3 -m unittest discover -s tests/python 2>&1 | tail -5 | tee $OUT/python_tests.txt
cat $OUT/decode_step.txt
