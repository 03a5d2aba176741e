#!/usr/bin/env bash
# Every GPU test (GPU_ONLY=1) with the split warp-specialized engine.
cd "$(dirname "$0")/../../../.."
OUT=$OUT/check GPU_ONLY=1 bash bench/device/check_all.sh .carry/build > $OUT/check_table.txt 2>&1
tail -12 $OUT/check_table.txt
