# Compiles the decode defaults of one arch (argv[1]) for every dtype, head dim,
# mask, batch (1: split, grouped heads packed; 8) and block mask per head or not,
# through jitk.compile_kernel; prints each config with registers and spills.
import itertools, sys, jitk
arch = sys.argv[1]
rows = []
for dt, d, (layout, mask), b, per_head, lq in itertools.product(
        ("f16", "bf16", "f32"), (64, 128), ((0, 0), (1, 1), (2, 2), (2, 3)), (1, 8), (0, 1), (1, 4)):
    if lq == 4 and mask in (0, 1): continue
    shape = "%s;b=%d;block=128;d=%d;hkv=8;hq=32;layout=%d;lk=32768;lq=%d;mask=%d%s" % (
        dt, b, d, layout, lq, mask, ";mask_per_head=1" if per_head else "")
    try:
        k = jitk.compile_kernel("sparse_attn", shape, arch)
        r = k.resources
        print("%-80s %-52s regs %3d acc %3d spills %3d scratch %4d" % (shape, k.config, r["registers"], r["accum_registers"], r["spills"], r["scratch_bytes"]), flush=True)
    except Exception as e:
        print("%-80s ERROR %s" % (shape, str(e)[:150]), flush=True)
