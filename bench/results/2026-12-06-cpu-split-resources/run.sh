#!/usr/bin/env bash
# CPU only: the default configs' compiled resources with the templates of
# 2716474 (before key-range splits) and of this commit; unsplit launches,
# and (current templates) decode steps, which split.
cd "$(dirname "$0")/../../.."
D=bench/results/2026-12-06-cpu-split-resources
export JITK_LIBRARY=$PWD/build/lib/c_api/libjitk_c.so PYTHONPATH=$PWD/python
rm -rf /tmp/tpl_base && mkdir -p /tmp/tpl_base
git archive 2716474 kernel_templates | tar x -C /tmp/tpl_base --strip-components=1
for t in /tmp/tpl_base kernel_templates; do
  rm -rf /tmp/jitk-res-cache
  JITK_CACHE_DIR=/tmp/jitk-res-cache JITK_TEMPLATE_DIR=$(realpath $t) python3 $D/resources.py 2>/dev/null \
    > $D/unsplit_$(basename $t).txt
done
rm -rf /tmp/jitk-res-cache
JITK_CACHE_DIR=/tmp/jitk-res-cache JITK_TEMPLATE_DIR=$PWD/kernel_templates python3 $D/resources.py split \
  2>/dev/null > $D/split.txt
diff $D/unsplit_tpl_base.txt $D/unsplit_kernel_templates.txt && echo "unsplit: identical"
