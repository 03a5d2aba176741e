"""Compiles the warp-specialized engine's configs (sm_90a, no GPU) and prints
each one's resources and the ptxas warnings of its compile log: unsplit
(run with JITK_TEMPLATE_DIR at the templates before the split and at the
current ones; run.sh compares them) or, with `split`, the same tiles with
key ranges (KV_SPLITS=4)."""
import sys

import jitk

TILES = ["BLOCK_M=128,BLOCK_N=128,WAVES=12,STAGES=3", "BLOCK_M=64,BLOCK_N=64,WAVES=8,STAGES=3",
         "BLOCK_M=128,BLOCK_N=64,WAVES=12,STAGES=3"]
MASKS = [dict(layout=1, mask=1), dict(layout=0, mask=0), dict(layout=2, mask=2),
         dict(layout=2, mask=3)]

split = sys.argv[1:] == ["split"]
for tiles in TILES:
    for dtype, d in (("f16", 128), ("bf16", 64)):
        for mask in MASKS:
            dims = dict(b=1, hq=32, hkv=8, lq=256, lk=32768, d=d, **mask)
            config = tiles + (",KV_SPLITS=4" if split else "")
            kernel = jitk.compile_kernel("sparse_attn", jitk.shape_key(dtype, dims), "sm_90a",
                                         config=config)
            r = kernel.resources
            log = kernel.info.get("log", "")
            warnings = sorted(set(w for w in log.split() if w.startswith("C75")))
            print(dtype, "d=%d" % d, "mask=%d" % mask["mask"], kernel.config, "registers",
                  r["registers"], "spills", r["spills"], "warnings", ",".join(warnings) or "none")
