#!/usr/bin/env python3
"""Writes synthetic_scaled_add_sweeps.json: exhaustive scaled_add sweeps in the
`jitk-tune --json` format, from a memory-roofline model that is independent of
the fake backend's (other functional forms, log-normal per-config noise).

It stands in for recorded GPU sweeps until real ones are added next to it:
bench/device/tune_scaled_add.sh writes `jitk-tune --json` files from the H200
that can be copied into this directory unchanged; replay_test.cc replays every
*.json here.

    python3 make_synthetic_sweeps.py > synthetic_scaled_add_sweeps.json
"""
import json
import math
import random

GPUS = [
    # name, arch, CUs, wave, max regs/CU, bandwidth GB/s, launch us, block-size factors
    ("Synthetic H200", "sm_90", 132, 32, 65536, 4800, 3.0,
     {32: 0.90, 64: 0.96, 128: 1.0, 256: 1.0, 512: 0.985, 1024: 0.96}),
    ("Synthetic MI250X GCD", "gfx90a", 110, 64, 131072, 1600, 5.0,
     {64: 0.93, 128: 0.98, 256: 1.0, 512: 0.99, 1024: 0.97}),
]
WIDTH = {"sm_90": {2: 0.55, 4: 0.80, 8: 0.92, 16: 0.97},
         "gfx90a": {2: 0.50, 4: 0.78, 8: 0.95, 16: 1.0}}
DTYPES = [("f32", 4), ("f16", 2), ("bf16", 2)]


def sweep(gpu, dtype, size, n, rng):
    name, arch, cus, wave, regfile, bw, launch_us, block_factor = gpu
    blocks_sizes = [b for b in (32, 64, 128, 256, 512, 1024) if b % wave == 0]
    vecs = [v for v in (1, 2, 4, 8) if v * size <= 16]
    candidates = []
    for block in blocks_sizes:
        for ept in (1, 2, 4, 8):
            for vec in vecs:
                config = f"BLOCK={block},EPT={ept},VEC={vec}"
                regs = 16 + int(1.5 * ept * vec * size / 2)
                access = vec * size
                if arch == "sm_90" and regs * block > regfile:
                    candidates.append({"config": config, "outcome": "out-of-resources",
                                       "message": "spills", "registers": regfile // block})
                    continue
                resident = min(2048, 32 * block, regfile // regs // block * block)
                per_block = block * ept * vec
                grid = math.ceil(n / per_block)
                active = min(grid * block, resident * cus) / cus
                inflight = active * ept * access * 2 / 30000.0
                mlp = inflight / (inflight + 0.25)
                waves = grid / max(1, cus * (resident // block))
                tail = 1.0 if waves <= 1 else 1 - 0.1 * (math.ceil(waves) - waves) / math.ceil(waves)
                eff = WIDTH[arch][access] * mlp * tail * block_factor[block]
                noise = math.exp(rng.gauss(0, 0.01))
                ms = (launch_us * 1e-3 + 3 * n * size / (bw * 1e9 * eff) * 1e3) * noise
                candidates.append({"config": config, "outcome": "ok", "median_ms": ms,
                                   "spread": 0.004, "registers": regs, "threads": block})
    return {"kernel": "scaled_add", "shape": f"{dtype};n={n}", "arch": arch,
            "device": name, "compute_units": cus, "compiler": "synthetic",
            "strategy": "exhaustive", "compile_only": False, "candidates": candidates}


def main():
    rng = random.Random(20261202)
    results = []
    for gpu in GPUS:
        for dtype, size in DTYPES:
            for log_n in (20, 24, 28):
                results.append(sweep(gpu, dtype, size, 1 << log_n, rng))
    print(json.dumps({"format": "jitk-tune", "version": 1, "jitk": "0.1.0",
                      "source": "synthetic model, tests/tuner/testdata/make_synthetic_sweeps.py",
                      "results": results}, indent=1))


if __name__ == "__main__":
    main()
