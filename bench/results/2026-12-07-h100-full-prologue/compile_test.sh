#!/usr/bin/env bash
# CPU machine: the compile test's sm_90 prefill defaults (NVRTC, spills
# checked) with b862f38's templates plus prologue.patch, and with the patch
# carried into the tensor-memory path as well (every stage's tile there too).
cd "$(dirname "$0")/../../.."
D=bench/results/2026-12-07-h100-full-prologue
rm -rf /tmp/prologue /tmp/prologue_tma && mkdir -p /tmp/prologue
git archive b862f38 kernel_templates | tar -x -C /tmp/prologue
(cd /tmp/prologue && patch -s -p1 < "$OLDPWD/$D/prologue.patch")
cp -r /tmp/prologue /tmp/prologue_tma
python3 - <<'PY'
p = '/tmp/prologue_tma/kernel_templates/sparse_attn.h'
s = open(p).read()
for a, b in [('''    // S - 1 tiles: attention_tile's S made sm_90's 128x64 prefill kernels
    // spill more (32 and 258 bytes, causal and two-sided sliding, from 24
    // and 256).
    for (int t = 0; t < S - 1; ++t) {''', '''    for (int t = 0; t < (S == 1 ? 0 : S); ++t) {'''),
             ('''  fill.seek(sched, S - 1);
  auto refill = [&](int next) {
    if (copier''', '''  fill.seek(sched, S == 1 ? 0 : S);
  auto refill = [&](int next) {
    if (copier'''),
             ('walk_tiles<E, kKV, S - 1>(engine', 'walk_tiles<E, kKV, S == 1 ? 0 : S>(engine')]:
    assert a in s
    s = s.replace(a, b)
open(p, 'w').write(s)
PY
for dir in /tmp/prologue /tmp/prologue_tma; do
  echo "## templates: $dir"
  JITK_TEMPLATE_DIR=$dir/kernel_templates build/tests/jitk_lib_attention_tests \
    --gtest_filter='*EveryLayoutDtypeAndHeadDim/sm_90' 2>&1 |
    grep -E "^sm_90 (causal|sliding_window) (f16|bf16) d=128|actual|OK \]|FAILED  \]"
done > $D/compile_test.txt
