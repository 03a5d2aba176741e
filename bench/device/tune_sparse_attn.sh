#!/usr/bin/env bash
# Tunes sparse_attn on the GPU present with jitk-tune: its standard shapes
# (B=4, H=32, D=128: causal f16/bf16 L=4096, causal f16 L=16384, sliding
# window 1024 + 128 global f16 L=16384, causal fp32 L=4096), exhaustive
# sweep, and reports per shape the default and tuned configuration, the
# speed-up of tuned over default, and TFLOP/s (causal: 4 B H L^2 D / 2).
#
# Run from the repository root with the build folder at ./build:
#   OUT=/path/to/out BUDGET=40,45s bash bench/device/tune_sparse_attn.sh
# Writes under $OUT: sweep.json (`jitk-tune --json`), tune.log (progress),
# tuned.db (winners + code objects), tuned.json (its tuning rows exported for
# cache/shipped/<cluster>/<arch>.json), summary.md (printed last).
set -uo pipefail
BUILD=${BUILD:-build}
OUT=${OUT:-$PWD/tune_sparse_attn_out}
BUDGET=${BUDGET:-40,45s}
mkdir -p "$OUT"
export JITK_CACHE_DIR="$OUT/cache"  # never the user's cache
start=$(date +%s.%N)
"$BUILD/tuner/jitk-tune" --kernel sparse_attn --strategy exhaustive --budget "$BUDGET" \
  --db "$OUT/tuned.db" --json > "$OUT/sweep.json" 2> "$OUT/tune.log"
echo "jitk-tune rc=$? wall_s=$(awk "BEGIN { print $(date +%s.%N) - $start }")" >> "$OUT/tune.log"
"$BUILD/cache/jitk-db" export "$OUT/tuned.db" "$OUT/tuned.json" --format json --tuning-only \
  >> "$OUT/tune.log" 2>&1

python3 - "$OUT" <<'PY' | tee "$OUT/summary.md"
import json, sys
out = sys.argv[1]
try:
    results = json.load(open(f"{out}/sweep.json"))["results"]
except Exception as e:  # noqa: BLE001
    print(f"no sweep: {e}")
    sys.exit(0)
print("| shape | default | ms | tuned | ms | speed-up | TFLOP/s tuned | evaluated | wall s |")
print("| --- | --- | --- | --- | --- | --- | --- | --- | --- |")
for r in results:
    dims = dict(kv.split("=") for kv in r["shape"].split(";")[1:])
    b, h, lq, lk, d = (int(dims[k]) for k in ("b", "hq", "lq", "lk", "d"))
    causal = dims.get("layout") == "1"
    best, default = r.get("best", {}), r.get("default", {})
    tflops = ""
    if causal and "median_ms" in best:
        tflops = f"{4 * b * h * lq * lk * d / 2 / (best['median_ms'] * 1e-3) / 1e12:.1f}"
    def ms(c):
        return f"{c['median_ms']:.3f}" if "median_ms" in c else c.get("outcome", "-")
    print(f"| {r['shape']} | {default.get('config', r.get('default_config', '-'))} | {ms(default)} "
          f"| {best.get('config', r['status'])} | {ms(best)} | {r.get('speedup', 0):.3f} | {tflops} "
          f"| {r['evaluated']} | {r['wall_s']:.1f} |")
PY
