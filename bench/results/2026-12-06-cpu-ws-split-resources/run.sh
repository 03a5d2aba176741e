#!/usr/bin/env bash
# Compiled resources (CPU only: NVRTC compiles without a GPU) of the
# warp-specialized engine: unsplit at 1dff41e's templates and this
# checkout's (expected identical), and split. Needs the build's libjitk_c.so.
cd "$(dirname "$0")/../../.."
HERE=bench/results/2026-12-06-cpu-ws-split-resources
BASE=$(mktemp -d)
git archive 1dff41e kernel_templates | tar -x -C "$BASE"
export JITK_LIBRARY=$PWD/build/lib/c_api/libjitk_c.so PYTHONPATH=$PWD/python
run() {
  JITK_CACHE_DIR=$(mktemp -d) JITK_TEMPLATE_DIR=$1 python3 $HERE/resources.py $2 2>&1 |
    grep -v "system DB"
}
run "$BASE/kernel_templates" > $HERE/base.txt
run "$PWD/kernel_templates" > $HERE/current.txt
run "$PWD/kernel_templates" split > $HERE/split.txt
echo "== unsplit, 1dff41e against this checkout"; diff $HERE/base.txt $HERE/current.txt && echo identical
echo "== split"; cat $HERE/split.txt
