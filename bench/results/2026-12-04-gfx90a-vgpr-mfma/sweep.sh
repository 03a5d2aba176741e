#!/bin/bash
# Compile-only (no GPU): every gfx90a config of sparse_attn's search space
# (causal f16, d = 32, 64, 96, 128) with the two-waves-per-SIMD request made
# for every MFMA config (the tree's templates with attn::MfmaWavesPerSimd
# returning 2), and whether the tree's rule makes it. Prints a table.
#   bench/results/2026-12-04-gfx90a-vgpr-mfma/sweep.sh
set -euo pipefail
cd "$(dirname "$0")/../../.."
TUNE=build/tuner/jitk-tune
W=$(mktemp -d)
cp kernel_templates/*.h "$W/"
python3 - "$W/sparse_attn_params.h" <<'PY'
import re, sys
p = sys.argv[1]
s = open(p).read()
s, n = re.subn(r"(constexpr int MfmaWavesPerSimd\([^)]*\) \{\n  return ).*?;\n}",
               r"\1engine == kEngineMfma ? 2 : 0;\n}", s, flags=re.S)
assert n == 1
open(p, "w").write(s)
PY
for d in 32 64 96 128; do
  JITK_TEMPLATE_DIR=$W $TUNE --arch gfx90a --kernel sparse_attn --strategy exhaustive \
    --shape "f16;b=1;hq=8;hkv=8;lq=4096;lk=4096;d=$d;block=128;layout=1" \
    --compile-only --db "$W/sweep.db" --budget 400 > /dev/null 2>&1
done
printf '| BLOCK_M x BLOCK_N x WAVES x STAGES | d | VGPR | AGPR | spills | 3d/4 + BN + BN d S / threads | rule asks |\n'
printf '|---|---|---|---|---|---|---|\n'
sqlite3 "$W/sweep.db" "select name_expression, registers, accum_registers, spills from code_objects" |
  python3 -c '
import re, sys
rows = []
for line in sys.stdin:
    name, regs, agpr, spills = line.strip().split("|")
    bm, bn, w, s, d = map(int, re.search(r"<(\d+), (\d+), (\d+), (\d+), (\d+),", name).groups())
    r = 3 * d // 4 + bn + bn * d * s // (w * 64)
    rows.append((r, bm, bn, w, s, d, regs, agpr, spills))
for r, bm, bn, w, s, d, regs, agpr, spills in sorted(rows):
    asks = "yes" if d <= 128 and r <= 224 else "no"
    print(f"| {bm}x{bn}x{w}x{s} | {d} | {regs} | {agpr} | {spills} | {r} | {asks} |")
'
rm -rf "$W"
