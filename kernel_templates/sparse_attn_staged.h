// sparse_attn_staged.h — the K / V pipeline of AMD's MFMA engine, which has
// no asynchronous copy into LDS: tiles go global -> registers -> LDS.
//
// K is stored as it comes, in padded rows; V transposed (MfmaVRow), so that
// the four keys of one column that an MFMA operand of O^T = V^T P^T takes
// are one 8-byte read instead of four 2-byte ones. Each thread loads four
// consecutive keys of one 8-column chunk of V and writes them as eight
// 8-byte columns.
//
// At STAGES = 2, tile t + 1 is loaded into registers before tile t is
// computed and written to LDS once every wave is done with tile t, so the
// loads are in flight under the MFMAs (as the cp.async stages and TMA copies
// are on NVIDIA) instead of in front of them: with one block of four waves
// per CU (128x64 at d = 128 takes 34 KB of the 64 KiB) no other wave hides
// that latency. LDS holds one tile pair (two would not fit); the next costs
// each thread BLOCK_N * HEAD_DIM / threads registers (32 at 128x64x4, d =
// 128). At STAGES = 1 a tile is loaded right before it is stored. Two
// barriers per tile: after the store (tile t visible) and after the MFMAs
// (its LDS free).
#pragma once

#include "sparse_attn_common.h"

#if JITK_ATTN_HAS_MFMA

namespace jitk {
namespace attn {

// ROWS rows of a [len, HEAD_DIM] tensor between their global loads and their
// store into LDS as padded rows. Each thread holds one 16-byte column chunk
// of rows r0, r0 + kStep, ...; rows outside [0, len) are zeros.
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

// ROWS rows of a [len, HEAD_DIM] 16-bit tensor, stored transposed: HEAD_DIM
// rows of ROWS keys with pitch MfmaVRow(ROWS). A unit is four consecutive
// rows of one 8-column chunk; consecutive threads take consecutive row
// groups of one chunk, so their 8-byte column writes are adjacent in LDS.
template <int ROWS, int HEAD_DIM, int THREADS, typename T>
struct StagedColumns {
  static_assert(sizeof(T) == 2, "16-bit storage");
  static constexpr int kGroups = ROWS / 4;
  static constexpr int kUnits = kGroups * (HEAD_DIM / 8);
  static constexpr int kPerThread = (kUnits + THREADS - 1) / THREADS;
  static constexpr int kPitch = MfmaVRow(ROWS);
  static_assert(ROWS % 4 == 0 && HEAD_DIM % 8 == 0, "whole 4 x 8 units");

  Vec16 chunks[kPerThread][4];

  JITK_DEVICE void load(const T* src, i64 stride, int start, int len) {
    const bool inside = start >= 0 && start + ROWS <= len;
#pragma unroll
    for (int j = 0; j < kPerThread; ++j) {
      const int u = int(threadIdx.x) + j * THREADS;
      if (kUnits % THREADS != 0 && u >= kUnits) continue;
      const int g = u % kGroups, c = u / kGroups;
      const T* row = src + (i64(start) + 4 * g) * stride + 8 * c;
#pragma unroll
      for (int r = 0; r < 4; ++r) {
        const bool valid = inside || unsigned(start + 4 * g + r) < unsigned(len);
        chunks[j][r] = load16(valid ? row + r * stride : src, valid);
      }
    }
  }

  JITK_DEVICE void store(T* dst) const {
#pragma unroll
    for (int j = 0; j < kPerThread; ++j) {
      const int u = int(threadIdx.x) + j * THREADS;
      if (kUnits % THREADS != 0 && u >= kUnits) continue;
      const int g = u % kGroups, c = u / kGroups;
#pragma unroll
      for (int e = 0; e < 8; ++e) {  // column 8c + e: the four rows' element e
        const int shift = 16 * (e % 2);
        auto elem = [&](int r) { return (chunks[j][r][e / 2] >> shift) & 0xffffu; };
        Frag4 col = {elem(0) | (elem(1) << 16), elem(2) | (elem(3) << 16)};
        *reinterpret_cast<Frag4*>(dst + (8 * c + e) * kPitch + 4 * g) = col;
      }
    }
  }
};

// One query tile, as attention_tile does it for the other engines.
template <typename E, int MASK>
JITK_DEVICE void attention_tile_staged(const SparseAttnParams& p, char* smem) {
  typedef typename E::Elem T;
  constexpr int BN = E::kBlockN;
  constexpr int D = E::kHeadDim;
  constexpr bool kAhead = E::kStages > 1;  // the next tile loaded under this one's MFMAs
  typedef StagedRows<BN, D, E::kThreads, T> KRows;

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
  T* svt = sk + BN * KRows::kRow;

  E engine;
  engine.begin(head_rows<T>(p.q, p.q_stride_b, p.q_stride_h, g.b, g.h), p.q_stride_l, g.q0,
               p.len_q);
  KRows k;
  StagedColumns<BN, D, E::kThreads, T> v;
  KvCursor fill;  // the tile in registers
  fill.seek(sched, 0);
  auto load = [&] {
    k.load(kg, p.k_stride_l, fill.start, p.len_k);
    v.load(vg, p.v_stride_l, fill.start, p.len_k);
  };
  if (kAhead) load();
  for (int t = 0; t < sched.n_tiles; ++t) {
    const int kv0 = fill.start;
    const bool partial = fill.partial;
    if (!kAhead) load();
    k.store(sk);
    v.store(svt);
    block_sync();  // tile t is in LDS
    const bool more = t + 1 < sched.n_tiles;
    if (more) fill.advance(sched);
    if (kAhead && more) load();
    engine.tile(nullptr, sk, svt, g.q0, kv0, partial, p);
    if (more) block_sync();  // every wave is done with tile t
  }
  engine.finish(output_rows<T>(p, g.b, g.h), p.o_stride_l, lse_rows(p, g.b, g.h), g.q0, p.len_q);
}

}  // namespace attn
}  // namespace jitk

#endif  // JITK_ATTN_HAS_MFMA
