#!/usr/bin/env bash
# CPU machine, nvcc 13.0: ptxas registers and spills of variants of the
# working tree's templates that were compiled and not kept:
#   ws-cuts:    the warp-specialized engine's persistent walk with the
#               sliding masks' cuts, kernels.cu;
#   count-down: a cursor counting down its block's tiles (no `end`),
#               kernels.cu;
#   no-cursor:  the cuts computed, the cp.async engines' cursor and
#               tile_start without them (wrong walks: registers only), on
#               sm_90's mma split kernels of sm90_kernels.cu, against
#               76ffc3a and the working tree.
cd "$(dirname "$0")/../../.."
N=/usr/local/cuda-13.0/bin
D=bench/results/2026-12-07-cpu-edge-tiles
fresh() {  # a copy of the working tree's templates in /tmp/variant
  rm -rf /tmp/variant && mkdir -p /tmp/variant && cp -r kernel_templates /tmp/variant/
}
ptxas() {  # root arch file
  $N/nvcc -arch=$2 -ptx -diag-suppress 1886,128 -I$1 -I$1/kernel_templates $3 -o /tmp/variant.ptx
  $N/ptxas -arch=$2 -v /tmp/variant.ptx -o /dev/null 2>&1 | grep -E "Compiling|Used|spill" |
    sed 's/ptxas info    : Compiling entry function//'
}
{
  echo "## ws-cuts ($(git log -1 --format=%h) $(git status --short kernel_templates | tr '\n' ' '))"
  fresh
  sed -i 's/query_schedule<MASK, kWalkCuts>/query_schedule<MASK>/' \
    /tmp/variant/kernel_templates/sparse_attn_persistent.h
  sed -i 's/KvCursor<QueryTileWalk::kWalkCuts> fill;/KvCursor<kWindowCuts<kMask>> fill;/' \
    /tmp/variant/kernel_templates/sparse_attn_wgmma_ws.h
  ptxas /tmp/variant sm_90a $D/kernels.cu | grep -A2 sparse_attn_ws
  echo "## count-down"
  fresh
  python3 - /tmp/variant/kernel_templates/sparse_attn_common.h <<'PY'
import sys
p = sys.argv[1]
s = open(p).read()
a = s.index("template <bool CUTS>\nstruct KvCursor {")
b = s.index("JITK_DEVICE int clamp_count")
s = s[:a] + '''template <bool CUTS>
struct KvCursor {
  int bi;
  int left;  // tiles of block bi still to walk, this one's included
  int start;
  bool partial;

  JITK_DEVICE void seek(const KvSchedule& s, int t) {
    t = CUTS ? s.whole_block_tile(t + s.first) : t + s.first;
    bi = t / s.tiles_per_block;
    const int sub = t - bi * s.tiles_per_block;
    int lo;
    left = (CUTS ? s.walked_tiles(bi, &lo) : s.tiles_per_block) - sub;
    partial = false;
    start = (bi < s.n_blocks ? s.block_start(bi, &partial) : 0) + sub * s.block_n;
  }
  JITK_DEVICE void advance(const KvSchedule& s) {
    if (--left > 0) {
      start += s.block_n;
      return;
    }
    ++bi;
    int lo = 0;
    left = CUTS ? s.walked_tiles(bi, &lo) - lo : s.tiles_per_block;
    if (bi < s.n_blocks) start = s.block_start(bi, &partial) + lo * s.block_n;
  }
};

''' + s[b:]
open(p, "w").write(s)
PY
  for arch in sm_90a sm_80; do ptxas /tmp/variant $arch $D/kernels.cu; done
  echo "## no-cursor: 76ffc3a, the working tree, then the variant"
  rm -rf /tmp/base && mkdir -p /tmp/base && git archive 76ffc3a kernel_templates | tar -x -C /tmp/base
  ptxas /tmp/base sm_90 $D/sm90_kernels.cu
  ptxas $PWD sm_90 $D/sm90_kernels.cu
  fresh
  sed -i 's/KvCursor<kWindowCuts<MASK>> fill;/KvCursor<false> fill;/; s/sched.tile_start<kWindowCuts<MASK>>/sched.tile_start<false>/' \
    /tmp/variant/kernel_templates/sparse_attn.h
  ptxas /tmp/variant sm_90 $D/sm90_kernels.cu
} > $D/variants.txt
