#!/usr/bin/env bash
# Tunes scaled_add on the GPU present (the H200) with jitk-tune:
# fp32 / fp16 / bf16 at n = 2^20, 2^24, 2^28, the full (exhaustive) sweep and
# the guided strategy, and reports per dtype-shape the winner, the tuning
# wall time, the speed-up of tuned over the default configuration and TB/s
# (bytes read + written = 3 n sizeof(T)). torch.add(x, y, alpha=) is timed
# alongside when torch is importable, for reference.
#
# Run from the repository root with the build folder at ./build:
#   OUT=/path/to/out bash bench/device/tune_scaled_add.sh
# Writes under $OUT:
#   logs/            stderr of every jitk-tune run (progress lines, notes)
#   sweeps/*.json    `jitk-tune --json` of the exhaustive sweeps: recorded
#                    sweeps; copy them into tests/tuner/testdata/ and
#                    replay_test.cc replays them in CI
#   guided/*.json    the guided runs
#   *.db             the cache DBs the runs wrote (winners + code objects)
#   summary.md       the table below, for bench/results/
# The short table is printed last.
set -uo pipefail

BUILD=${BUILD:-build}
OUT=${OUT:-$PWD/tune_scaled_add_out}
TUNE="$BUILD/tuner/jitk-tune"
mkdir -p "$OUT/logs" "$OUT/sweeps" "$OUT/guided"
export JITK_CACHE_DIR="$OUT/cache"   # never the user's cache

if [[ ! -x "$TUNE" ]]; then
  echo "tune_scaled_add: $TUNE not found (build the jitk-tune target; BUILD=$BUILD)" >&2
  exit 1
fi

{
  echo "== $(date -u +%FT%TZ) $(uname -n)"
  nvidia-smi --query-gpu=name,driver_version,clocks.max.sm,clocks.max.mem,memory.total --format=csv 2>&1 || true
  "$BUILD/lib/jitk-info" 2>&1 || true
} > "$OUT/logs/environment.txt"

DTYPES=(f32 f16 bf16)
LOGS=(20 24 28)

run_tune() {  # strategy dtype log2n db json
  local strategy=$1 dtype=$2 log=$3 db=$4 json=$5
  local n=$((1 << log))
  local start end rc
  start=$(date +%s.%N)
  "$TUNE" --kernel scaled_add --shape "${dtype};n=${n}" --strategy "$strategy" \
          --db "$db" --json > "$json" 2> "$OUT/logs/${strategy}_${dtype}_2e${log}.log"
  rc=$?
  end=$(date +%s.%N)
  echo "$strategy $dtype 2^$log rc=$rc process_wall_s=$(awk "BEGIN { print $end - $start }")" >> "$OUT/logs/runs.txt"
  tail -n 2 "$OUT/logs/${strategy}_${dtype}_2e${log}.log" >&2
}

# Exhaustive: one DB per dtype-shape, so every sweep compiles cold (the
# wall time is the full cost of a first tuning on a machine).
for dtype in "${DTYPES[@]}"; do
  for log in "${LOGS[@]}"; do
    run_tune exhaustive "$dtype" "$log" "$OUT/exhaustive_${dtype}_2e${log}.db" \
             "$OUT/sweeps/scaled_add_sm_90_${dtype}_2e${log}.json"
  done
done
# Guided: cold as well.
for dtype in "${DTYPES[@]}"; do
  for log in "${LOGS[@]}"; do
    run_tune guided "$dtype" "$log" "$OUT/guided_${dtype}_2e${log}.db" \
             "$OUT/guided/scaled_add_sm_90_${dtype}_2e${log}.json"
  done
done

# torch.add reference (bytes read + written), when torch is there.
python3 - "$OUT" <<'PY' > "$OUT/logs/torch.txt" 2>&1 || true
import json, sys
try:
    import torch
except Exception as e:  # noqa: BLE001
    print(json.dumps({"error": str(e)}))
    sys.exit(0)
out = {}
for name, dt in (("f32", torch.float32), ("f16", torch.float16), ("bf16", torch.bfloat16)):
    for log in (20, 24, 28):
        n = 1 << log
        sets = max(1, (512 << 20) // (3 * n * torch.tensor([], dtype=dt).element_size()))
        xs = [torch.rand(n, device="cuda", dtype=dt) for _ in range(sets)]
        ys = [torch.rand(n, device="cuda", dtype=dt) for _ in range(sets)]
        outs = [torch.empty(n, device="cuda", dtype=dt) for _ in range(sets)]
        for i in range(sets):
            torch.add(xs[i], ys[i], alpha=-0.75, out=outs[i])
        times = []
        for rep in range(15):
            reps = max(sets, 32)
            a, b = torch.cuda.Event(enable_timing=True), torch.cuda.Event(enable_timing=True)
            a.record()
            for i in range(reps):
                k = i % sets
                torch.add(xs[k], ys[k], alpha=-0.75, out=outs[k])
            b.record()
            b.synchronize()
            times.append(a.elapsed_time(b) / reps)
        times.sort()
        ms = times[len(times) // 2]
        out[f"{name};n={n}"] = {"ms": ms, "tbps": 3 * n * xs[0].element_size() / (ms * 1e-3) / 1e12}
        del xs, ys, outs
        torch.cuda.empty_cache()
print(json.dumps(out))
PY

python3 - "$OUT" <<'PY'
import glob, json, math, os, sys
out = sys.argv[1]

def load(path):
    try:
        with open(path) as f:
            return json.load(f)["results"][0]
    except Exception as e:  # noqa: BLE001
        return {"error": f"{os.path.basename(path)}: {e}"}

torch = {}
try:
    with open(os.path.join(out, "logs", "torch.txt")) as f:
        torch = json.loads(f.read().strip().splitlines()[-1])
except Exception:  # noqa: BLE001
    pass

rows = []
ok_goal = True
for dtype in ("f32", "f16", "bf16"):
    for log in (20, 24, 28):
        ex = load(os.path.join(out, "sweeps", f"scaled_add_sm_90_{dtype}_2e{log}.json"))
        gu = load(os.path.join(out, "guided", f"scaled_add_sm_90_{dtype}_2e{log}.json"))
        shape = f"{dtype};n={1 << log}"
        if "best" not in ex:
            rows.append([dtype, f"2^{log}", ex.get("error", ex.get("status", "no winner"))])
            continue
        best, default = ex["best"], ex.get("default", {})
        gap = evals = ""
        if "best" in gu:
            g = gu["best"]["median_ms"] / best["median_ms"] - 1
            gap = f"{100 * g:+.1f}%"
            evals = f"{gu['evaluated']}/{gu['space_size']}"
            if g > 0.02 or gu["evaluated"] > math.ceil(0.3 * gu["space_size"]):
                ok_goal = False
        t = torch.get(shape, {})
        rows.append([dtype, f"2^{log}", best["config"], f"{best['median_ms'] * 1e3:.1f}",
                     f"{best.get('tbps', 0):.2f}",
                     f"{default.get('tbps', 0):.2f}" if default else "-",
                     f"{ex.get('speedup', 0):.2f}x", f"{ex['evaluated']}/{ex['space_size']}",
                     f"{ex['wall_s']:.1f}",
                     f"{gu.get('wall_s', 0):.1f}" if "best" in gu else "-", gap, evals,
                     f"{t['tbps']:.2f}" if t else "-"])

head = ["dtype", "n", "tuned config", "us", "TB/s", "default TB/s", "speed-up", "swept",
        "sweep s", "guided s", "guided gap", "guided tried", "torch TB/s"]
table = [head] + rows
widths = [max(len(str(r[i])) if i < len(r) else 0 for r in table) for i in range(len(head))]
lines = []
for k, r in enumerate(table):
    lines.append("  ".join(str(c).ljust(widths[i]) for i, c in enumerate(r)).rstrip())
    if k == 0:
        lines.append("-" * len(lines[0]))
lines.append("")
lines.append("sweep s / guided s: wall time of the Tune run (cold: compiles included);"
             " TB/s counts bytes read + written (3 n sizeof(T)).")
lines.append("guided goal (within 2 % of the sweep's best, <= 30 % of the space): " +
             ("met on every shape" if ok_goal else "MISSED somewhere (see rows)"))
text = "\n".join(lines)
with open(os.path.join(out, "summary.md"), "w") as f:
    f.write("# scaled_add tuned on the H200 (jitk-tune)\n\n```\n" + text + "\n```\n")
print()
print(text)
PY
