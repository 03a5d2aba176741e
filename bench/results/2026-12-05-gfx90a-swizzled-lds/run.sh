#!/bin/bash
# Compile-only (no GPU): the MFMA engine's gfx90a code objects with the
# kernel's templates of BEFORE and of the tree (the build's jitk-tune:
# hiprtc, ROCm 5.2), disassembled with llvm-objdump-14. Per default kernel
# of a 128-token mask: comgr's registers, AGPRs, LDS and spills, the blocks
# of four waves a CU's 64 KiB of LDS holds, the instruction count and the
# counts of the LDS and XOR instructions (static counts).
#   bench/results/2026-12-05-gfx90a-swizzled-lds/run.sh [BEFORE_COMMIT]
set -euo pipefail
cd "$(dirname "$0")/../../.."
BEFORE=${1:-d9b4a13}
TUNE=build/tuner/jitk-tune
W=$(mktemp -d)
mkdir -p "$W/before"
for f in $(git ls-tree --name-only "$BEFORE" kernel_templates/); do
  git show "$BEFORE:$f" > "$W/before/$(basename "$f")"
done
ops='ds_read_b64|ds_read2_b64|ds_read2st64_b64|ds_write_b64|ds_write_b128|ds_write2_b64|v_xor_b32_e32|v_xor_b32_e64|v_cndmask_b32_e32|v_cndmask_b32_e64|scratch_store_dword|buffer_store_dword'
printf '| templates | mask | dtype | d | config | VGPR | AGPR | LDS | blocks/CU by LDS | spills | instructions | per op |\n'
printf '|---|---|---|---|---|---|---|---|---|---|---|---|\n'
for variant in before after; do
  tpl=$([[ $variant == before ]] && echo "$W/before" || echo "$PWD/kernel_templates")
  for layout in 0 1 2; do for dt in f16 bf16; do for d in 64 128; do
    db="$W/$variant-$layout-$dt-$d.db"
    JITK_TEMPLATE_DIR=$tpl $TUNE --arch gfx90a --kernel sparse_attn \
      --shape "$dt;b=1;hq=8;hkv=8;lq=4096;lk=4096;d=$d;block=128;layout=$layout" \
      --compile-only --db "$db" --budget 1 > /dev/null 2>&1
    sqlite3 "$db" "select writefile('$W/co.bin', code) from code_objects" > /dev/null
    llvm-objdump-14 -d --mcpu=gfx90a "$W/co.bin" > "$W/co.s"
    n=$(grep -cE '^\s+[a-z_0-9]+ ' "$W/co.s")
    counts=$(grep -oE "^\s+($ops)\b" "$W/co.s" | sort | uniq -c | awk '{printf "%s %s, ", $2, $1}')
    row=$(sqlite3 "$db" "select replace(config, ',', ' '), registers, accum_registers, lds_bytes, spills from code_objects" | tr '|' ';')
    IFS=';' read -r cfg vgpr agpr lds spills <<< "$row"
    mask=$(case $layout in 0) echo dense ;; 1) echo causal ;; *) echo sliding-causal ;; esac)
    printf '| %s | %s | %s | %s | %s | %s | %s | %s | %s | %s | %s | %s |\n' "$variant" "$mask" "$dt" \
      "$d" "$cfg" "$vgpr" "$agpr" "$lds" "$((65536 / lds))" "$spills" "$n" "${counts%, }"
  done; done; done
done
rm -rf "$W"
