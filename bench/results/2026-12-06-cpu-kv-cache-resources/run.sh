#!/usr/bin/env bash
# Compiled resources (CPU only: NVRTC and hiprtc compile without a GPU) of
# the templates at 09af404 (before q_offset) and in this checkout: the
# default configs of long launches and decode steps
# (../2026-12-06-cpu-split-resources/resources.py) and of each element mask
# (masks.py). Needs the build's libjitk_c.so.
cd "$(dirname "$0")/../../.."
HERE=bench/results/2026-12-06-cpu-kv-cache-resources
BASE=$(mktemp -d)
git archive 09af404 kernel_templates | tar -x -C "$BASE"
export JITK_LIBRARY=$PWD/build/lib/c_api/libjitk_c.so PYTHONPATH=$PWD/python
for t in base current; do
  dir=$PWD/kernel_templates
  [[ $t == base ]] && dir=$BASE/kernel_templates
  for run in "resources.py" "resources.py split" "masks.py"; do
    set -- $run
    script=bench/results/2026-12-06-cpu-split-resources/$1
    [[ $1 == masks.py ]] && script=$HERE/masks.py
    JITK_CACHE_DIR=$(mktemp -d) JITK_TEMPLATE_DIR=$dir python3 $script ${2:-} 2>&1 |
      grep -v "system DB" > $HERE/${t}_${1%.py}${2:+_$2}.txt
  done
done
for f in resources resources_split masks; do
  echo "== $f"; diff $HERE/base_$f.txt $HERE/current_$f.txt && echo identical
done
