// sparse_attn_staged.h — the K / V pipeline of an engine that has no
// asynchronous copy into shared memory (AMD's MFMA engine at STAGES = 2).
//
// gfx9 copies global -> LDS through registers, so a copy issued right before
// the MFMAs that need it waits out the whole load latency; with one block of
// four waves per CU (128x64 at d = 128: 248 VGPRs and 34 KB of LDS) no other
// wave hides it. Here tile t + 1 is loaded into registers (StagedRows) before
// tile t is computed and written to LDS once every wave is done with tile t,
// so the loads are in flight under the MFMAs, as the cp.async stages and
// TMA copies are on NVIDIA. LDS holds one tile (two of 128x64 would not fit
// 64 KiB); the next costs each thread 2 * BLOCK_N * HEAD_DIM * 2 / (4 *
// threads) registers (32 at 128x64x4, d = 128). Two barriers per tile: after
// the store (tile t visible) and after the MMAs (its LDS free).
#pragma once

#include "sparse_attn_common.h"

#if JITK_ATTN_HAS_MFMA

namespace jitk {
namespace attn {

// ROWS rows of a [len, HEAD_DIM] tensor between their global loads and their
// store into shared memory (padded rows), 16 bytes per register quad. Each
// thread holds one column chunk of rows r0, r0 + kStep, ...; rows outside
// [0, len) are zeros.
template <int ROWS, int HEAD_DIM, int THREADS, typename T>
struct StagedRows {
  static constexpr int kChunk = 16 / int(sizeof(T));  // elements per 16 bytes
  static constexpr int kPerRow = HEAD_DIM / kChunk;
  static constexpr int kStep = THREADS / kPerRow;
  static constexpr int kChunks = (ROWS + kStep - 1) / kStep;
  static constexpr int kRow = PaddedRow(HEAD_DIM, int(sizeof(T)));
  static_assert(HEAD_DIM % kChunk == 0 && THREADS % kPerRow == 0,
                "a whole number of threads per row of 16-byte chunks");

  Vec16 chunks[kChunks];

  // src: the tensor's first row, read in place of rows outside [0, len).
  JITK_DEVICE void load(const T* src, i64 stride, int start, int len) {
    const int r0 = int(threadIdx.x) / kPerRow;
    const int col = (int(threadIdx.x) - r0 * kPerRow) * kChunk;
    const bool inside = start >= 0 && start + ROWS <= len;
    const T* g = src + (i64(start) + r0) * stride + col;
#pragma unroll
    for (int i = 0; i < kChunks; ++i) {
      const int r = r0 + i * kStep;
      if (ROWS % kStep != 0 && r >= ROWS) continue;
      const bool valid = inside || unsigned(start + r) < unsigned(len);
      chunks[i] = load16(valid ? g : src, valid);
      g += i64(kStep) * stride;
    }
  }

  JITK_DEVICE void store(T* dst) const {
    const int r0 = int(threadIdx.x) / kPerRow;
    const int col = (int(threadIdx.x) - r0 * kPerRow) * kChunk;
#pragma unroll
    for (int i = 0; i < kChunks; ++i) {
      const int r = r0 + i * kStep;
      if (ROWS % kStep != 0 && r >= ROWS) continue;
      store16(smem_ptr(dst + r * kRow + col), chunks[i]);
    }
  }
};

// One query tile, as attention_tile, with the next key tile staged in
// registers.
template <typename E, int MASK>
JITK_DEVICE void attention_tile_staged(const SparseAttnParams& p, char* smem) {
  typedef typename E::Elem T;
  constexpr int BN = E::kBlockN;
  constexpr int D = E::kHeadDim;
  typedef StagedRows<BN, D, E::kThreads, T> Rows;

  const GridTile g = grid_tile<E::kBlockM, MASK>(p);
  const int hk = g.h / (p.heads_q / p.heads_kv);
  const KvSchedule sched = query_schedule(p, g.q0, g.h, g.b, BN);
  if (sched.n_tiles == 0) {
    write_empty_rows<E::kBlockM, D, E::kThreads, T>(output_rows<T>(p, g.b, g.h), p.o_stride_l,
                                                    lse_rows(p, g.b, g.h), g.q0, p.len_q);
    return;
  }
  const T* kg = head_rows<T>(p.k, p.k_stride_b, p.k_stride_h, g.b, hk);
  const T* vg = head_rows<T>(p.v, p.v_stride_b, p.v_stride_h, g.b, hk);
  T* sk = reinterpret_cast<T*>(smem);
  T* sv = sk + BN * Rows::kRow;

  E engine;
  engine.begin(head_rows<T>(p.q, p.q_stride_b, p.q_stride_h, g.b, g.h), p.q_stride_l, g.q0,
               p.len_q);
  Rows k, v;
  KvCursor fill;  // the tile in registers
  fill.seek(sched, 0);
  k.load(kg, p.k_stride_l, fill.start, p.len_k);
  v.load(vg, p.v_stride_l, fill.start, p.len_k);
  for (int t = 0; t < sched.n_tiles; ++t) {
    const int kv0 = fill.start;
    const bool partial = fill.partial;
    k.store(sk);
    v.store(sv);
    block_sync();  // tile t is in LDS
    const bool more = t + 1 < sched.n_tiles;
    if (more) {
      fill.advance(sched);
      k.load(kg, p.k_stride_l, fill.start, p.len_k);
      v.load(vg, p.v_stride_l, fill.start, p.len_k);
    }
    engine.tile(nullptr, sk, sv, g.q0, kv0, partial, p);
    if (more) block_sync();  // every wave is done with tile t
  }
  engine.finish(output_rows<T>(p, g.b, g.h), p.o_stride_l, lse_rows(p, g.b, g.h), g.q0, p.len_q);
}

}  // namespace attn
}  // namespace jitk

#endif  // JITK_ATTN_HAS_MFMA
