#!/usr/bin/env bash
# CPU machine (no GPU; NVRTC 13.0, hiprtc of ROCm 5.2): the decode defaults
# compiled for sm_80, sm_90a and gfx90a with three template sets: 139cfe2's
# (before the one-range branch in fwd_block), 27cfa8b's (the branch in every
# engine's split kernel) and the working tree's (the branch in the wgmma
# engine's only); then the compile test over the decode defaults of every
# arch, as CI runs it.
cd "$(dirname "$0")/../../.."
D=bench/results/2026-12-07-cpu-decode-spills
export JITK_LIBRARY=$PWD/build/lib/c_api/libjitk_c.so PYTHONPATH=$PWD/python
for v in 139cfe2 27cfa8b fixed; do
  tpl=""
  if [[ $v != fixed ]]; then
    tpl=/tmp/decode_spills_$v; rm -rf $tpl; mkdir -p $tpl
    git archive $v kernel_templates | tar -x -C $tpl; tpl=$tpl/kernel_templates
  fi
  for a in sm_80 sm_90a gfx90a; do
    JITK_TEMPLATE_DIR=$tpl JITK_CACHE_DIR=/tmp/decode_spills_cache_$v python3 $D/survey.py $a 2>&1 |
      grep -v "system DB" > $D/${v}_$a.txt
  done
done
build/tests/jitk_lib_attention_tests --gtest_filter='Archs/SparseAttnCompileTest.EveryDecodeDefault/*' \
  > $D/compile_test.txt 2>&1
# sm_90's mma decode tiles: the old default 128x64x4x2 against 64x64x4x2.
python3 - > $D/sm90_tiles.txt 2>&1 <<'PY'
import jitk
shapes = ["f16;b=1;block=128;d=128;hkv=8;hq=32;layout=1;lk=32768;lq=1;mask=1",
          "f16;b=1;block=128;d=128;hkv=8;hq=32;layout=2;lk=32768;lq=1;mask=2",
          "f16;b=8;block=128;d=128;hkv=8;hq=32;layout=1;lk=32768;lq=1;mask=1;mask_per_head=1",
          "f16;b=8;block=128;d=128;hkv=8;hq=32;layout=2;lk=32768;lq=1;mask=2;mask_per_head=1",
          "f16;b=8;block=128;d=128;hkv=8;hq=32;layout=2;lk=32768;lq=1;mask=3;mask_per_head=1"]
for shape in shapes:
    for tiles in ("BLOCK_M=128,BLOCK_N=64", "BLOCK_M=64,BLOCK_N=64"):
        config = tiles + (",KV_SPLITS=16" if "b=1;" in shape else "") + ",STAGES=2,WAVES=4"
        r = jitk.compile_kernel("sparse_attn", shape, "sm_90", config).resources
        print("{:<84} {:<52} registers {:>3} spills {:>3} scratch {:>3}".format(
            shape, config, r["registers"], r["spills"], r["scratch_bytes"]))
PY
