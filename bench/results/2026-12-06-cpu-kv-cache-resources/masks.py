"""Compiles sparse_attn's default configs under each element mask at d = 128
(no GPU) and prints their resources; run.sh runs it with the templates
before q_offset (09af404) and after."""
import jitk

DIMS = dict(b=4, hq=32, hkv=32, lq=4096, lk=4096, d=128)
CASES = [(arch, layout, mask) for arch in ("sm_90", "sm_80", "sm_90a", "gfx90a")
         for layout, mask in ((1, 1), (2, 2), (5, 3))]
for arch, layout, mask in CASES:
    kernel = jitk.compile_kernel("sparse_attn", jitk.shape_key("f16", dict(DIMS, layout=layout,
                                                                         mask=mask)), arch)
    r = kernel.resources
    print(arch, "mask", mask, kernel.config, "registers", r["registers"], "spills", r["spills"],
          "scratch", r["scratch_bytes"])
