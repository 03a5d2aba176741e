"""Compiles sparse_attn's default configs (no GPU) and prints each one's
resources: long launches (unsplit kernels), or with `split` the decode step
of the same shapes (b=1, lq=1, lk=32768, dense: split kernels). Run once with
JITK_TEMPLATE_DIR at the templates before key-range splits and once at the
current ones; run.sh compares them."""
import sys

import jitk

CASES = [
    ("sm_90a", "f16", dict(b=4, hq=32, hkv=32, lq=4096, lk=4096, d=128, layout=1, mask=1), None),
    ("sm_90a", "bf16", dict(b=4, hq=32, hkv=32, lq=4096, lk=4096, d=128, layout=0, mask=0),
     "BLOCK_M=64,BLOCK_N=64,WAVES=4,STAGES=2"),
    ("sm_90a", "f16", dict(b=4, hq=32, hkv=32, lq=4096, lk=4096, d=128, block=64, layout=4,
                           mask=1), None),
    ("sm_90", "f16", dict(b=4, hq=32, hkv=32, lq=4096, lk=4096, d=128, layout=1, mask=1), None),
    ("sm_80", "f16", dict(b=4, hq=32, hkv=32, lq=4096, lk=4096, d=128, layout=1, mask=1), None),
    ("sm_80", "f32", dict(b=4, hq=32, hkv=32, lq=4096, lk=4096, d=128, layout=1, mask=1), None),
    ("gfx90a", "f16", dict(b=4, hq=32, hkv=32, lq=4096, lk=4096, d=128, layout=1, mask=1), None),
    ("gfx90a", "bf16", dict(b=4, hq=32, hkv=32, lq=4096, lk=4096, d=64, layout=2, mask=2), None),
]

split = sys.argv[1:] == ["split"]
for arch, dtype, dims, config in CASES:
    if split:
        dims, config = dict(dims, b=1, lq=1, lk=32768, layout=0, mask=0), None
    kernel = jitk.compile_kernel("sparse_attn", jitk.shape_key(dtype, dims), arch, config=config)
    r = kernel.resources
    print(arch, dtype, kernel.config, "registers", r["registers"], "spills", r["spills"],
          "scratch", r["scratch_bytes"], "lds", r["lds_bytes"])
