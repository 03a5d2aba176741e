#!/usr/bin/env bash
# CPU machine: the compile test's sm_80 decode defaults (NVRTC, spills
# checked) under the sliding-causal mask (mask=2), with the tree's
# templates (the first copied key formed at each copy) and with the first
# key kept across the walk (first_window_key hoisted out of load_kv).
cd "$(dirname "$0")/../../.."
D=bench/results/2026-12-07-cpu-window-copies
rm -rf /tmp/kept && cp -r kernel_templates /tmp/kept
python3 - <<'PY'
p = '/tmp/kept/sparse_attn.h'
s = open(p).read()
a = '''  auto load_kv = [&](T* dst, int kv0, bool partial) {
    const int lo = first_copied_key<MASK>(q0 + p.q_offset, kv0, partial, p);'''
b = '''  const int window_lo = first_window_key<MASK>(q0 + p.q_offset, p);
  auto load_kv = [&](T* dst, int kv0, bool partial) {
    const int lo = partial && kv0 >= p.global_tokens ? window_lo : 0;'''
assert a in s
open(p, 'w').write(s.replace(a, b))
PY
for dir in kernel_templates /tmp/kept; do
  echo "## templates: $dir ($(git log -1 --format=%h) $(git status --short kernel_templates | tr '\n' ' '))"
  JITK_TEMPLATE_DIR=$([[ $dir == /* ]] && echo $dir || echo $PWD/$dir) build/tests/jitk_lib_attention_tests \
    --gtest_filter='*EveryDecodeDefault/sm_80*' 2>&1 | grep -E "mask=2 |actual|OK|FAILED  \]"
done > $D/compile_test.txt
