#!/usr/bin/env bash
# CPU machine (no GPU), nvcc 13.0: the split and the unsplit sliding decode
# kernels of decode_kernels.cu, compiled for sm_90a: ptxas registers, counts
# of PTX instructions per kernel and the size of each kernel's SASS (.text
# section of the cubin, 16 bytes per instruction).
cd "$(dirname "$0")/../../.."
N=/usr/local/cuda-13.0/bin
D=bench/results/2026-12-07-cpu-one-pass-kernels
T=/tmp/one_pass_kernels; rm -rf $T; mkdir -p $T
$N/nvcc -arch=sm_90a -ptx -diag-suppress 1886,128 -I. -Ikernel_templates $D/decode_kernels.cu -o $T/k.ptx
$N/ptxas -arch=sm_90a -v $T/k.ptx -o $T/k.cubin 2>&1 | grep -E "Compiling|Used|spill" |
  sed 's/ptxas info    : Compiling entry function//' > $D/report.txt
split_start=$(grep -n "^.visible .entry.*split_fwd" $T/k.ptx | cut -d: -f1)
unsplit_start=$(grep -n "^.visible .entry.*15sparse_attn_fwd" $T/k.ptx | cut -d: -f1)
first=$((split_start < unsplit_start ? split_start : unsplit_start))
second=$((split_start < unsplit_start ? unsplit_start : split_start))
sed -n "${first},$((second - 1))p" $T/k.ptx > $T/first.ptx
sed -n "${second},\$p" $T/k.ptx > $T/second.ptx
for f in first second; do
  printf '%s: %s\n' "$(grep -o 'sparse_attn_[a-z_]*fwd' $T/$f.ptx | head -1)" \
    "$(for op in wgmma.mma_async cp.async.cg ex2 shfl bra ld.global st.global call; do
         printf '%s %s, ' $op "$(grep -c "$op" $T/$f.ptx)"; done)"
done >> $D/report.txt
readelf -S -W $T/k.cubin 2>/dev/null | awk '$2 ~ /^\.text\./ {print $2, $6}' |
  while read -r section size; do
    echo "$section SASS 0x$size bytes = $((16#$size / 16)) instructions"
  done >> $D/report.txt
cat $D/report.txt
