#!/usr/bin/env bash
# CPU machine (no GPU): the four-stage configs of run.sh compiled for sm_90a
# through jitk.compile_kernel (NVRTC), beside their two- and three-stage
# neighbours: registers and spills.
cd "$(dirname "$0")/../../.."
export JITK_LIBRARY=$PWD/build/lib/c_api/libjitk_c.so PYTHONPATH=$PWD/python JITK_CACHE_DIR=/tmp/four_stages_cache
python3 - <<'PY' 2>&1 | grep -v "system DB"
import jitk
decode = "f16;b=8;block=128;d=128;hkv=8;hq=32;layout=2;lk=32768;lq=1;mask=2"
d64 = "f16;b=4;block=128;d=64;hkv=32;hq=32;layout=5;lk=4096;lq=4096"
cases = [(decode, "BLOCK_M=64,BLOCK_N=64,KV_SPLITS=%d,STAGES=%d,WAVES=4" % (r, s))
         for r in (1, 4) for s in (2, 4)]
cases += [(d64, "BLOCK_M=128,BLOCK_N=128,STAGES=%d,WAVES=12" % s) for s in (3, 4)]
for shape, config in cases:
    r = jitk.compile_kernel("sparse_attn", shape, "sm_90a", config).resources
    print("{:<36} {:<52} registers {:>3}, spills {}".format(shape[:36], config, r["registers"], r["spills"]))
PY
