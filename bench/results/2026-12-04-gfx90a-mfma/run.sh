#!/bin/bash
# Compile-only (no GPU): the MFMA engine's gfx90a code objects before and
# after the staged K / V pipeline, from the build's jitk-tune (hiprtc, ROCm
# 5.2) and llvm-objdump-14. Prints, per kernel, what comgr reports and the
# instruction counts of the disassembly.
#   bench/results/2026-12-04-gfx90a-mfma/run.sh [BEFORE_COMMIT]
set -euo pipefail
cd "$(dirname "$0")/../../.."
BEFORE=${1:-57b37b3}
TUNE=build/tuner/jitk-tune
W=$(mktemp -d)
mkdir -p "$W/before"
for f in $(git ls-tree --name-only "$BEFORE" kernel_templates/); do
  git show "$BEFORE:$f" > "$W/before/$(basename "$f")"
done
ops='ds_read_u16|ds_read_b64|ds_read2_b64|ds_read2_b32|ds_write_b128|ds_write2?_b64|global_load_dwordx4|s_barrier|v_mfma_f32_32x32x8f16|v_exp_f32|v_pk_mul_f32|v_accvgpr_write_b32|v_accvgpr_read_b32'
printf '| templates | mask | d | config | VGPR | AGPR | LDS | spills | instructions | per op |\n|---|---|---|---|---|---|---|---|---|---|\n'
for variant in before after; do
  tpl=$([[ $variant == before ]] && echo "$W/before" || echo "$PWD/kernel_templates")
  for layout in 0 1; do for d in 64 128; do
    db="$W/$variant-$layout-$d.db"
    JITK_TEMPLATE_DIR=$tpl $TUNE --arch gfx90a --kernel sparse_attn --strategy exhaustive \
      --shape "f16;b=1;hq=8;hkv=8;lq=4096;lk=4096;d=$d;block=128;layout=$layout" \
      --compile-only --db "$db" --budget 60 > /dev/null 2>&1
    # Before, STAGES = 2 was no MFMA config (this host code would take it, with
    # the old templates' two LDS buffers): STAGES = 1 only.
    for st in $([[ $variant == before ]] && echo 1 || echo 1 2); do
      key=$(sqlite3 "$db" "select key from code_objects where config = 'BLOCK_M=128,BLOCK_N=64,STAGES=$st,WAVES=4'")
      [[ -z $key ]] && continue
      sqlite3 "$db" "select writefile('$W/co.bin', code) from code_objects where key = '$key'" > /dev/null
      llvm-objdump-14 -d --mcpu=gfx90a "$W/co.bin" > "$W/co.s"
      n=$(grep -cE '^\s+[a-z_0-9]+ ' "$W/co.s")
      counts=$(grep -oE "^\s+($ops)\b" "$W/co.s" | sort | uniq -c | awk '{printf "%s %s, ", $2, $1}')
      row=$(sqlite3 "$db" "select registers, accum_registers, lds_bytes, spills from code_objects where key = '$key'" | tr '|' ' ')
      set -- $row
      printf '| %s | %s | %s | 128x64x4x%s | %s | %s | %s | %s | %s | %s |\n' "$variant" \
        "$([[ $layout == 0 ]] && echo dense || echo causal)" "$d" "$st" "$1" "$2" "$3" "$4" "$n" "${counts%, }"
    done
  done; done
done
rm -rf "$W"
