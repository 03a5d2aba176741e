// sparse_attn_staged.h — the K / V pipeline of AMD's MFMA engine, which has
// no asynchronous copy into LDS: tiles go global -> registers -> LDS.
//
// K is stored as it comes (rows of HEAD_DIM), V transposed (rows of
// BLOCK_N keys), so that the four keys of one column that an MFMA operand of
// O^T = V^T P^T takes are one 8-byte read instead of four 2-byte ones. Each
// thread loads four consecutive keys of one 8-column chunk of V and writes
// them as eight 8-byte columns. Both tiles are unpadded, their 8-byte units
// permuted within each row (MfmaTileOffset).
// At STAGES = 2, tile t + 1 is loaded into registers before tile t is
// computed and written to LDS once every wave is done with tile t, so the
// loads are in flight under the MFMAs (as the cp.async stages and TMA copies
// are on NVIDIA) instead of in front of them: a CU holds at most two blocks
// (128x64 at d = 128 takes 32 KiB of the 64 KiB), too few waves to hide
// that latency by themselves. LDS holds one tile pair (a second one would
// halve the blocks per CU); the next costs each thread about BLOCK_N * HEAD_DIM / threads
// registers (32 at 128x64x4, d = 128; the register estimate counts them
// exactly). At STAGES = 1 a tile is loaded right before it is stored. Two
// barriers per tile: after the store (tile t visible) and after the MFMAs
// (its LDS free).
#pragma once

#include "sparse_attn_common.h"
#include "sparse_attn_split.h"

#if JITK_ATTN_HAS_MFMA

namespace jitk {
namespace attn {

// ROWS rows of a [len, HEAD_DIM] 16-bit tensor between their global loads
// and their store into LDS as swizzled rows (MfmaTileOffset). Chunk c (16
// bytes, thread c % THREADS) is column chunk c % kPerRow of row c / kPerRow,
// so consecutive threads read consecutive bytes of a row, and write 16-byte
// pairs of units that the swizzle keeps whole (swapping the two halves in
// odd rows of the permutation) and, 8 lanes per LDS cycle, on distinct
// banks; rows outside [lo, len) are zeros, never read (the tensor's first
// row is read in their place). load and store walk the chunks each in its own loop:
// one walk through a helper taking a lambda compiled to more instructions,
// and spilled at d = 256.
template <int ROWS, int HEAD_DIM, int THREADS, typename T>
struct StagedRows {
  static_assert(sizeof(T) == 2 && HEAD_DIM % 8 == 0, "16-byte chunks of 16-bit elements");
  static constexpr int kPerRow = HEAD_DIM / 8;
  static constexpr int kTotal = ROWS * kPerRow;
  static constexpr int kChunks = (kTotal + THREADS - 1) / THREADS;
  static constexpr int kUnits = HEAD_DIM / 4;

  Vec16 chunks[kChunks];

  // src: the tensor's first row, read in place of rows outside [lo, len).
  JITK_DEVICE void load(const T* src, i64 stride, int start, int len, int lo) {
    const bool inside = rows_copied<ROWS>(start, lo, len);
#pragma unroll
    for (int i = 0; i < kChunks; ++i) {
      const int c = int(threadIdx.x) + i * THREADS;
      if (kTotal % THREADS != 0 && c >= kTotal) continue;
      const int r = c / kPerRow;
      const bool valid = inside || row_copied(start + r, lo, len);
      const T* g = src + (i64(start) + r) * stride + (c - r * kPerRow) * 8;
      chunks[i] = load16(valid ? g : src);
    }
  }

  // The rows loaded from `start`; those outside [lo, len) become zeros.
  JITK_DEVICE void store(T* dst, int start, int len, int lo) const {
    const bool inside = rows_copied<ROWS>(start, lo, len);
    const int tid = opaque(int(threadIdx.x));  // addresses computed here, not held
#pragma unroll
    for (int i = 0; i < kChunks; ++i) {
      const int c = tid + i * THREADS;
      if (kTotal % THREADS != 0 && c >= kTotal) continue;
      const int r = c / kPerRow;
      const bool valid = inside || row_copied(start + r, lo, len);
      const int unit = 2 * (c - r * kPerRow);
      const bool swap = MfmaSwizzle(kUnits, r) & 1;  // the pair's first unit lands second
      store16(smem_ptr(dst + MfmaTileOffset(kUnits, r, unit) - 4 * swap), chunks[i], valid, swap);
    }
  }
};

// ROWS rows of a [len, HEAD_DIM] 16-bit tensor, stored transposed: HEAD_DIM
// rows of ROWS keys (kGroups units), swizzled (MfmaTileOffset). A thread's
// part is four consecutive rows of one 8-column chunk; consecutive threads
// take consecutive row groups of one chunk, so their 8-byte column writes
// are units of one LDS row, which the swizzle only permutes (the other order
// would put them in different rows at one unit, on few banks). The price: a
// wave's load reads 64 contiguous bytes of 16 rows, where K's read whole
// rows.
template <int ROWS, int HEAD_DIM, int THREADS, typename T>
struct StagedColumns {
  static_assert(sizeof(T) == 2, "16-bit storage");
  static constexpr int kGroups = ROWS / 4;
  static constexpr int kUnits = kGroups * (HEAD_DIM / 8);
  static constexpr int kPerThread = (kUnits + THREADS - 1) / THREADS;
  static_assert(ROWS % 4 == 0 && HEAD_DIM % 8 == 0, "whole 4 x 8 units");

  Vec16 chunks[kPerThread][4];

  JITK_DEVICE void load(const T* src, i64 stride, int start, int len, int lo) {
    const bool inside = rows_copied<ROWS>(start, lo, len);
#pragma unroll
    for (int j = 0; j < kPerThread; ++j) {
      const int u = int(threadIdx.x) + j * THREADS;
      if (kUnits % THREADS != 0 && u >= kUnits) continue;
      const int g = u % kGroups, c = u / kGroups;
      const T* row = src + (i64(start) + 4 * g) * stride + 8 * c;
#pragma unroll
      for (int r = 0; r < 4; ++r) {
        const int key = start + 4 * g + r;
        const bool valid = inside || row_copied(key, lo, len);
        chunks[j][r] = load16(valid ? row + r * stride : src);
      }
    }
  }

  // The rows loaded from `start`; those outside [lo, len) become zeros.
  JITK_DEVICE void store(T* dst, int start, int len, int lo) const {
    const bool inside = rows_copied<ROWS>(start, lo, len);
    const int tid = opaque(int(threadIdx.x));  // addresses computed here, not held
#pragma unroll
    for (int j = 0; j < kPerThread; ++j) {
      const int u = tid + j * THREADS;
      if (kUnits % THREADS != 0 && u >= kUnits) continue;
      const int g = u % kGroups, c = u / kGroups;
      const int at = MfmaTileOffset(kGroups, 8 * c, g);
      bool valid[4];
#pragma unroll
      for (int r = 0; r < 4; ++r) {
        const int key = start + 4 * g + r;
        valid[r] = inside || row_copied(key, lo, len);
      }
#pragma unroll
      for (int e = 0; e < 8; ++e) {  // column 8c + e: the four rows' element e
        const int shift = 16 * (e % 2);
        auto elem = [&](int r) {
          return valid[r] ? u64((chunks[j][r][e / 2] >> shift) & 0xffffu) : u64(0);
        };
        *reinterpret_cast<u64*>(dst + (at ^ MfmaRowXor(kGroups, e)) + 4 * e * kGroups) =
            elem(0) | (elem(1) << 16) | (elem(2) << 32) | (elem(3) << 48);
      }
    }
  }
};

// One query tile, as attention_tile does it for the other engines.
template <typename E, int MASK, bool SPLIT>
JITK_DEVICE void attention_tile_staged(const SparseAttnParams& p, char* smem) {
  typedef typename E::Elem T;
  constexpr int BN = E::kBlockN;
  constexpr int D = E::kHeadDim;
  constexpr bool kAhead = E::kStages > 1;  // the next tile loaded under this one's MFMAs
  static_assert(E::kStages <= 2, "one tile in LDS and at most one in registers");
  static_assert(2 * BN * D * int(sizeof(T)) ==
                    SmemBytes(kEngineMfma, E::kBlockM, BN, E::kStages, D, int(sizeof(T))),
                "the LDS layout SmemBytes reports");

  const GridTile g = split_grid_tile<E::kBlockM, MASK, SPLIT>(p);
  const int hk = g.h / (p.heads_q / p.heads_kv);
  const KvSchedule sched = block_schedule<SPLIT>(p, g.q0, g.h, g.b, BN);
  const int ob = output_batch<SPLIT>(g.b);
  if (sched.n_tiles == 0) {
    write_empty_rows<E::kBlockM, D, E::kThreads, T>(output_rows<T>(p, ob, g.h), p.o_stride_l,
                                                    lse_rows(p, ob, g.h), g.q0, p.len_q);
    return;
  }
  const T* kg = head_rows<T>(p.k, p.k_stride_b, p.k_stride_h, g.b, hk);
  const T* vg = head_rows<T>(p.v, p.v_stride_b, p.v_stride_h, g.b, hk);
  T* sk = reinterpret_cast<T*>(smem);
  T* svt = sk + BN * D;

  E engine;
  engine.begin(head_rows<T>(p.q, p.q_stride_b, p.q_stride_h, g.b, g.h), p.q_stride_l, g.q0,
               p.len_q);
  StagedRows<BN, D, E::kThreads, T> k;
  StagedColumns<BN, D, E::kThreads, T> v;
  KvCursor fill;  // the tile in registers
  fill.seek(sched, 0);
  const int pos0 = g.q0 + p.q_offset;  // the first query position
  auto load = [&] {
    const int lo = first_copied_key<MASK>(pos0, fill.start, fill.partial, p);
    k.load(kg, p.k_stride_l, fill.start, p.len_k, lo);
    v.load(vg, p.v_stride_l, fill.start, p.len_k, lo);
  };
  if (kAhead) load();
  for (int t = 0; t < sched.n_tiles; ++t) {
    const int kv0 = fill.start;
    const bool partial = fill.partial;
    if (!kAhead) load();
    const int lo = first_copied_key<MASK>(pos0, kv0, partial, p);
    k.store(sk, kv0, p.len_k, lo);
    v.store(svt, kv0, p.len_k, lo);
    block_sync();  // tile t is in LDS
    const bool more = t + 1 < sched.n_tiles;
    if (more) fill.advance(sched);
    if (kAhead && more) load();
    engine.tile(sk, svt, pos0, kv0, partial, p);
    if (more) block_sync();  // every wave is done with tile t
  }
  engine.finish(output_rows<T>(p, ob, g.h), p.o_stride_l, lse_rows(p, ob, g.h), g.q0, p.len_q);
}

}  // namespace attn
}  // namespace jitk

#endif  // JITK_ATTN_HAS_MFMA
