// sparse_attn_split.h — attention over key ranges computed apart (the
// kernels' SPLIT instances, KV_SPLITS > 1 on the host), for launches with
// too few query tiles to fill the GPU: a decode step's one query row per
// head against a long K / V cache.
//
// A split launch is two passes of one kernel. The split pass runs a grid
// whose z spans batch * kv_splits: block z computes range z / batch of the
// key tiles of its query tile, for batch z % batch, as an unsplit kernel
// computes all of them, and writes O and LSE of that range to the partial
// results (p.o and p.lse point there, "batch" z of [kv_splits * batch,
// heads_q, len_q]). The combine pass (p.combine) merges each row's ranges
// by their LSE into the caller's o and lse; a range that saw no key (LSE
// -inf) weighs nothing. On sm_90 and later the combine pass's launch
// starts before the split pass ends and waits for it on the GPU.
#pragma once

#include "prelude.h"
#include "sparse_attn_common.h"
#include "sparse_attn_params.h"

namespace jitk {
namespace attn {

// The query tile, head and input batch of a block of a split or unsplit
// grid, and the "batch" its results go to: z itself when split.
template <int BLOCK_M, int MASK, bool SPLIT>
JITK_DEVICE GridTile split_grid_tile(const SparseAttnParams& p) {
  GridTile g = grid_tile<BLOCK_M, MASK>(p);
  if (SPLIT) g.b = g.b % p.batch;
  return g;
}
template <bool SPLIT>
JITK_DEVICE int output_batch(int b) {
  return SPLIT ? int(blockIdx.z) : b;
}
// The input batch of "batch" z of the partial results (z itself unsplit).
template <bool SPLIT>
JITK_DEVICE int input_batch(const SparseAttnParams& p, int z) {
  return SPLIT ? z % p.batch : z;
}

// Range `range` of p.kv_splits of a query tile's key tiles.
JITK_DEVICE KvSchedule key_range(const SparseAttnParams& p, KvSchedule sched, int range) {
  const int first = int(i64(range) * sched.n_tiles / p.kv_splits);
  sched.n_tiles = int(i64(range + 1) * sched.n_tiles / p.kv_splits) - first;
  sched.first = first;
  return sched;
}

// The key tiles this block computes: its query tile's (query_schedule), or,
// SPLIT, range z / batch of them.
template <bool SPLIT>
JITK_DEVICE KvSchedule block_schedule(const SparseAttnParams& p, int q0, int h, int b,
                                      int block_n) {
  KvSchedule sched = query_schedule(p, q0, h, b, block_n);
  return SPLIT ? key_range(p, sched, int(blockIdx.z) / p.batch) : sched;
}

// The combine pass: block (x, h, b) merges rows [x * kRows, (x + 1) * kRows)
// of head h, batch b; LANES neighbouring threads take four columns of a
// row, lane j its ranges j, j + LANES, ..., and shuffles merge the lanes'
// sums at the end. A lane's ranges are read kInFlight at a time, every load
// of a group issued before any is used, and merged as they come (the
// running maximum rescales what was summed before it): read one after
// another, each range cost a round trip to L2, and a decode step's combine
// is a few rows over many ranges. Two lanes read twice kInFlight ranges in
// one round trip without the registers sixteen loads per thread take; up to
// kInFlight ranges one lane does, in half the blocks.
template <int HEAD_DIM, int THREADS, typename T, int LANES>
JITK_DEVICE void combine_splits(const SparseAttnParams& p) {
  constexpr int kPerRow = HEAD_DIM / 4 * LANES;
  constexpr int kRows = CombineRowsPerBlock(HEAD_DIM, THREADS, LANES);
  constexpr int kInFlight = kCombineInFlight;
  // Whole waves take each turn, as the shuffles ask: the turns cover the
  // block's rows rounded up to a wave.
  constexpr int kTurns = (kRows * kPerRow + kWaveSize - 1) / kWaveSize * kWaveSize;
  const int h = int(blockIdx.y), b = int(blockIdx.z);
  const i64 range_rows = i64(p.batch) * p.heads_q * p.len_q;  // rows of one key range
  T* o = output_rows<T>(p, b, h);
  float* lse = lse_rows(p, b, h);
  const T* o_partial = static_cast<const T*>(p.o_partial);
  for (int c = int(threadIdx.x); c < kTurns; c += THREADS) {
    const int r = c / kPerRow;
    const int lane = c % LANES;
    const int col = (c - r * kPerRow) / LANES * 4;
    const int row = int(blockIdx.x) * kRows + r;
    // A lane past the block's rows or the query's reads nothing but still
    // joins its wave's shuffles.
    const int ranges = c < kRows * kPerRow && row < p.len_q ? p.kv_splits : 0;
    const i64 first = (i64(b) * p.heads_q + h) * p.len_q + row;  // in range 0
    float m = neg_inf(), sum = 0.f;
    float acc[4] = {0.f, 0.f, 0.f, 0.f};
    for (int s0 = lane; s0 < ranges; s0 += kInFlight * LANES) {
      float part_lse[kInFlight];
      F4 part[kInFlight];
#pragma unroll
      for (int i = 0; i < kInFlight; ++i) {
        const int s = s0 + i * LANES;
        const i64 at = first + s * range_rows;
        const bool in = s < ranges;
        part_lse[i] = in ? p.lse_partial[at] : neg_inf();  // `at` read only when in
        part[i] = in ? load4<T>(o_partial + at * HEAD_DIM + col) : F4{};
      }
      float m_group = m;
#pragma unroll
      for (int i = 0; i < kInFlight; ++i) m_group = fmaxf(m_group, part_lse[i]);
      if (m_group == neg_inf()) continue;  // no range so far saw a key
      const float rescale = exp2f((m - m_group) * (1.f / kLn2));  // 0 while m is -inf
      sum *= rescale;
#pragma unroll
      for (int e = 0; e < 4; ++e) acc[e] *= rescale;
#pragma unroll
      for (int i = 0; i < kInFlight; ++i) {
        const float w = exp2f((part_lse[i] - m_group) * (1.f / kLn2));  // 0: an empty range
        sum += w;
#pragma unroll
        for (int e = 0; e < 4; ++e) acc[e] = fmaf(w, part[i].v[e], acc[e]);
      }
      m = m_group;
    }
#pragma unroll
    for (int offset = 1; offset < LANES; offset *= 2) {
      const float m_both = fmaxf(m, shuffle_xor(m, offset));
      const float rescale = m_both == neg_inf() ? 0.f : exp2f((m - m_both) * (1.f / kLn2));
      sum *= rescale;
      sum += shuffle_xor(sum, offset);
#pragma unroll
      for (int e = 0; e < 4; ++e) {
        acc[e] *= rescale;
        acc[e] += shuffle_xor(acc[e], offset);
      }
      m = m_both;
    }
    if (lane != 0 || ranges == 0) continue;
    const float inv = sum > 0.f ? 1.f / sum : 0.f;
    store4<T>(o + i64(row) * p.o_stride_l + col, acc[0] * inv, acc[1] * inv, acc[2] * inv,
              acc[3] * inv);
    if (lse != nullptr && col == 0) lse[row] = sum > 0.f ? m + log2f(sum) * kLn2 : neg_inf();
  }
}

// A split launch's passes overlap where the host asks for it (sm_90 and
// later: programmatic dependent launch): each block of the split pass lets
// the combine pass's launch start once every block has started, and the
// combine pass waits for the split pass to end, its writes visible, before
// reading them. Both do nothing on a plain launch and compile to nothing
// elsewhere.
JITK_DEVICE void let_dependent_grid_start() {
#if JITK_CUDA && defined(__CUDA_ARCH__) && __CUDA_ARCH__ >= 900
  asm volatile("griddepcontrol.launch_dependents;\n" ::: "memory");
#endif
}
JITK_DEVICE void wait_for_previous_grid() {
#if JITK_CUDA && defined(__CUDA_ARCH__) && __CUDA_ARCH__ >= 900
  asm volatile("griddepcontrol.wait;\n" ::: "memory");
#endif
}

// What a SPLIT kernel's block does first: the combine pass, whole (true),
// or the split pass's signal that the combine pass may start (false).
template <int HEAD_DIM, int THREADS, typename T, bool SPLIT>
JITK_DEVICE bool ran_combine_pass(const SparseAttnParams& p) {
  if (!SPLIT) return false;
  if (p.combine) {
    wait_for_previous_grid();
    if (CombineLanes(p.kv_splits) == 1) {
      combine_splits<HEAD_DIM, THREADS, T, 1>(p);
    } else {
      combine_splits<HEAD_DIM, THREADS, T, 2>(p);
    }
    return true;
  }
  let_dependent_grid_start();
  return false;
}

}  // namespace attn
}  // namespace jitk
