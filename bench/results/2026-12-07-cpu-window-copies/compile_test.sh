#!/usr/bin/env bash
# CPU machine: the compile test's sm_80 decode defaults (NVRTC, spills
# checked) under the sliding-causal mask (mask=2), with b862f38's templates
# (the first copied key formed at each copy) and with that key kept across
# the walk (hoisted out of load_kv).
cd "$(dirname "$0")/../../.."
D=bench/results/2026-12-07-cpu-window-copies
rm -rf /tmp/formed /tmp/kept && mkdir -p /tmp/formed
git archive b862f38 kernel_templates | tar -x -C /tmp/formed
cp -r /tmp/formed /tmp/kept
python3 - <<'PY'
p = '/tmp/kept/kernel_templates/sparse_attn.h'
s = open(p).read()
a = '''  auto load_kv = [&](T* dst, int kv0, bool partial) {
    const int lo =
        partial && kv0 >= p.global_tokens ? first_window_key<MASK>(q0 + p.q_offset, p) : 0;'''
b = '''  const int window_lo = first_window_key<MASK>(q0 + p.q_offset, p);
  auto load_kv = [&](T* dst, int kv0, bool partial) {
    const int lo = partial && kv0 >= p.global_tokens ? window_lo : 0;'''
assert a in s
open(p, 'w').write(s.replace(a, b))
PY
for dir in /tmp/formed /tmp/kept; do
  echo "## templates: $dir (b862f38)"
  JITK_TEMPLATE_DIR=$dir/kernel_templates build/tests/jitk_lib_attention_tests \
    --gtest_filter='*EveryDecodeDefault/sm_80*' 2>&1 | grep -E "mask=2 |actual|OK|FAILED  \]"
done > $D/compile_test.txt
