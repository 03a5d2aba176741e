#!/usr/bin/env bash
# The same warm H100 after visit 1, two calls: the Python tests, then the
# tuner on the causal launch of 8 heads over 2560 keys (rank-major walk).
cd "$(dirname "$0")/../../../.."
B=.carry/build
{ nvidia-smi --query-gpu=name --format=csv,noheader; cat $B/COMMIT; } > $OUT/gpu.txt
PYTHONPATH=$PWD/python JITK_LIBRARY=$PWD/$B/lib/c_api/libjitk_c.so JITK_CACHE_DIR=/tmp/jc-py \
  timeout 80 python3 -m unittest discover -s tests/python > $OUT/python_tests.txt 2>&1
tail -3 $OUT/python_tests.txt
shape="f16;b=1;block=128;d=128;hkv=8;hq=8;layout=1;lk=2560;lq=2560"
JITK_CACHE_DIR=/tmp/jc-tune timeout 100 $B/tuner/jitk-tune --kernel sparse_attn --budget 40s --json \
  --shape "$shape" > $OUT/tune_causal2560.json 2> $OUT/tune.log
python3 -c "import json, sys; r = json.load(open(sys.argv[1]))['results'][0]; print(r['shape'], 'default', r['default']['config'], r['default']['median_ms'], 'best', r['best']['config'], r['best']['median_ms'], 'speedup', r['speedup'])" $OUT/tune_causal2560.json | tee $OUT/tune_summary.txt
