// sparse_attn_common.h — what every sparse_attn engine shares: the element
// mask, the walk over a query block's key blocks, tile copies into shared
// memory, and 4-element loads / stores in any storage type.
#pragma once

#include "prelude.h"
#include "sparse_attn_ops.h"
#include "sparse_attn_params.h"

namespace jitk {
namespace attn {

JITK_DEVICE float neg_inf() { return __uint_as_float(0xff800000u); }
constexpr float kLn2 = 0.69314718055994530942f;

// The running maximum of a row only moves when a tile's maximum exceeds it
// by more than this (log2 units): P and l then grow by at most 2^8 between
// rescales, far inside fp32 and f16 / bf16 range, and O is rescaled on a few
// tiles of a row instead of every one.
constexpr float kRescaleSlack = 8.f;

// Query positions: the engines' element masks take a query's position
// among the keys, its row plus q_offset, added once to a tile's first row
// (walk_tiles, the staged MFMA loop and the warp-specialized loop). Where
// grouped heads are packed as the rows of a tile, packed row r is at
// q_offset + (r & q_row_mask), q_row_mask = len_q - 1 for a power-of-two
// len_q (0 for a decode step): the sliding masks fold the rows so; the
// causal mask takes them as they come, since the host packs a causal launch
// only where its rows see every key (q_offset >= len_k - 1), which every
// later position does too. Kept to the sliding masks, the fold costs the
// causal kernels nothing (at 255 registers, sm_90's mma engine spilled with
// it). keys_visible folds the two ends of a row range: they bound the
// folded rows where the range is aligned to its power-of-two size, as every
// caller's is (a tile's, a warpgroup's, a warp's or a wave's rows).
template <int MASK>
JITK_DEVICE int mask_position(int pos, const SparseAttnParams& p) {
  if (MASK != kMaskSliding && MASK != kMaskSlidingCausal) return pos;
  return ((pos - p.q_offset) & p.q_row_mask) + p.q_offset;
}

// The element mask of partial blocks (see MaskKind), per query position:
// key k is visible when 0 <= k < hi and (k > lo or k < global). With
// apply_mod these are exactly the keys below len_k that the mask kind
// allows (the host's ElementMask::Allows) for every position in
// [0, len_q + len_k): the host keeps that sum an int and q_offset <= len_k,
// and pos + window is only formed below len_k. Without apply_mod, the keys
// in bounds. Formed once per row, they cost one to three compares per
// element; bitwise & and |, not && and ||: a branch-free select per element
// is cheaper than short-circuit branches.
struct RowKeys {
  int lo, hi, global;
};
JITK_DEVICE bool key_visible(int key, RowKeys keys) {
  return (unsigned(key) < unsigned(keys.hi)) & ((key > keys.lo) | (key < keys.global));
}

template <int MASK>
JITK_DEVICE RowKeys row_keys(int pos, bool apply_mod, const SparseAttnParams& p) {
  RowKeys keys{-1, p.len_k, 0};
  if (apply_mod) {
    pos = mask_position<MASK>(pos, p);
    const int window = min(p.window, p.len_q + p.len_k);
    if (MASK == kMaskCausal || MASK == kMaskSlidingCausal) keys.hi = min(keys.hi, pos + 1);
    if (MASK == kMaskSlidingCausal || MASK == kMaskSliding) {
      keys.lo = pos - window;
      keys.global = p.global_tokens;
    }
    if (MASK == kMaskSliding && pos >= p.global_tokens && window <= p.len_k - pos) {
      keys.hi = pos + window;
    }
    if (MASK == kMaskSliding && pos < p.global_tokens) keys.lo = -1;
  }
  return keys;
}

// Corner tests of a partial tile under a causal or sliding-causal element
// mask, for keys [k_lo, k_hi]: false when query positions [skip_lo,
// skip_hi] (the rows that compute the tile together) see none of them, so
// the tile can be skipped; clears *partial when positions [row_lo, row_hi]
// (the rows that mask together) see all of them. Other masks, and full
// tiles, are visible.
template <int MASK>
JITK_DEVICE bool keys_visible(int skip_lo, int skip_hi, int row_lo, int row_hi, int k_lo,
                              int k_hi, const SparseAttnParams& p, bool* partial) {
  if ((MASK != kMaskCausal && MASK != kMaskSlidingCausal) || !*partial) return true;
  skip_lo = mask_position<MASK>(skip_lo, p);
  skip_hi = mask_position<MASK>(skip_hi, p);
  row_lo = mask_position<MASK>(row_lo, p);
  row_hi = mask_position<MASK>(row_hi, p);
  bool none = k_lo > skip_hi;
  bool all = k_hi <= row_lo;
  if (MASK == kMaskSlidingCausal) {
    none = none | ((skip_lo - k_hi >= p.window) & (k_lo >= p.global_tokens));
    all = all & ((row_hi - k_lo < p.window) | (k_hi < p.global_tokens));
  }
  if (all) *partial = false;
  return !none;
}

// The key tiles one query block visits: its full blocks, then its partial
// ones, each cut into block / BLOCK_N tiles.
struct KvSchedule {
  const int* full;
  const int* partial;
  int n_full;
  int n_blocks;  // full + partial
  int tiles_per_block;
  int n_tiles;
  int first;  // the first tile of the range this block computes (split launches)
  int block;
  int block_n;
  int num_blocks;  // key blocks of the keys: valid indices are [0, num_blocks)

  // First key of the bi-th listed block; sets *is_partial. An index outside
  // [0, num_blocks) (a mask that was never validated, e.g. from torch) reads
  // as the block just past the keys: zeros, masked as out of bounds, and no
  // index * block overflow.
  JITK_DEVICE int block_start(int bi, bool* is_partial) const {
    int index;
    if (bi < n_full) {
      index = full[bi];
      *is_partial = false;
    } else {
      index = partial[bi - n_full];
      *is_partial = true;
    }
    if (unsigned(index) >= unsigned(num_blocks)) index = num_blocks;
    return index * block;
  }

  // Start key of tile t of the range; sets *is_partial.
  JITK_DEVICE int tile_start(int t, bool* is_partial) const {
    t += first;
    int bi = t / tiles_per_block;
    return block_start(bi, is_partial) + (t - bi * tiles_per_block) * block_n;
  }
};

// What a K/V stage holds (kTileSlotBytes): the tile's first key and whether
// its mask block is partial, written by whoever copies the tile.
struct TileSlot {
  int start;
  int partial;
};
static_assert(sizeof(TileSlot) == kTileSlotBytes, "kTileSlotBytes");

// Walks the tiles of a KvSchedule one at a time: one index load per mask
// block, no division per tile.
struct KvCursor {
  int bi;
  int sub;
  int start;
  bool partial;

  JITK_DEVICE void seek(const KvSchedule& s, int t) {
    t += s.first;
    bi = t / s.tiles_per_block;
    sub = t - bi * s.tiles_per_block;
    partial = false;
    start = (bi < s.n_blocks ? s.block_start(bi, &partial) : 0) + sub * s.block_n;
  }
  JITK_DEVICE void advance(const KvSchedule& s) {
    if (++sub < s.tiles_per_block) {
      start += s.block_n;
      return;
    }
    sub = 0;
    ++bi;
    if (bi < s.n_blocks) start = s.block_start(bi, &partial);
  }
};

JITK_DEVICE int clamp_count(int n, int hi) { return n < 0 ? 0 : (n > hi ? hi : n); }

// The rows of head h, batch b of a [batch, heads, len, head_dim] input.
template <typename T>
JITK_DEVICE const T* head_rows(const void* base, i64 stride_b, i64 stride_h, int b, int h) {
  return static_cast<const T*>(base) + b * stride_b + h * stride_h;
}

// The query tile, head and batch of this block of a grid of query tiles
// (TileOrder).
struct GridTile {
  int q0, h, b;
};
template <int BLOCK_M, int MASK>
JITK_DEVICE GridTile grid_tile(const SparseAttnParams& p) {
  const int num_q_tiles = (p.len_q + BLOCK_M - 1) / BLOCK_M;
  // Straight from the block index: values computed from it would stay live
  // across the tile loop (a division spilled the mma engine's registers).
  // Only causal masks take rank-major order; the other kernels keep the
  // code they had (the select alone cost the dense mma kernel 4 % on the
  // H200).
  const bool rank_major = MASK == kMaskCausal && p.tile_order == kOrderRankMajor;
  return GridTile{(num_q_tiles - 1 - int(rank_major ? blockIdx.y : blockIdx.x)) * BLOCK_M,
                  int(rank_major ? blockIdx.x : blockIdx.y), int(blockIdx.z)};
}

// The key tiles of BLOCK_N keys that query rows from q0 of head h, batch b
// visit, from the block mask's row for them.
JITK_DEVICE KvSchedule query_schedule(const SparseAttnParams& p, int q0, int h, int b,
                                      int block_n) {
  const int mrow = b * p.mask_stride_b + h * p.mask_stride_h + q0 / p.block;
  KvSchedule sched;
  sched.block = p.block;
  sched.block_n = block_n;
  sched.num_blocks = p.num_kv_blocks;
  sched.tiles_per_block = p.block / block_n;
  sched.partial = p.kv_indices + i64(mrow) * p.num_kv_blocks;
  const int n_partial = clamp_count(p.kv_num_blocks[mrow], p.num_kv_blocks);
  sched.n_full = 0;
  sched.full = sched.partial;
  if (p.full_kv_num_blocks != nullptr) {
    sched.full = p.full_kv_indices + i64(mrow) * p.num_kv_blocks;
    sched.n_full = clamp_count(p.full_kv_num_blocks[mrow], p.num_kv_blocks);
  }
  sched.n_blocks = sched.n_full + n_partial;
  sched.n_tiles = sched.n_blocks * sched.tiles_per_block;
  sched.first = 0;
  return sched;
}

// The first key a tile from kv0 copies for query positions from pos0 (a
// query tile's first row, whose folded position is the tile's lowest): a
// partial tile past the global tokens leaves out (zeros, masked) the keys
// below the window of that row, which no row of the tile sees; the edge
// blocks of a decode step's window are mostly such keys. Without a window
// (the other masks, a global token's row under the two-sided mask) row_keys'
// lo is -1, and so is every other tile's first key 0.
template <int MASK>
JITK_DEVICE int first_copied_key(int pos0, int kv0, bool partial, const SparseAttnParams& p) {
  return partial && kv0 >= p.global_tokens ? row_keys<MASK>(pos0, true, p).lo + 1 : 0;
}

// Whether a copy reads row `row` of a [len, ...] tensor when the rows below
// lo are left out (zeros in shared memory, no read); rows_copied: every row
// of a ROWS-row tile from `start`, which then needs no check per row.
JITK_DEVICE bool row_copied(int row, int lo, int len) {
  return row >= lo && unsigned(row) < unsigned(len);
}
template <int ROWS>
JITK_DEVICE bool rows_copied(int start, int lo, int len) {
  return start >= lo && start + ROWS <= len;
}

// Copies rows [start, start + ROWS) of a [len, HEAD_DIM] tensor (row stride
// `stride` elements) into shared memory with padded rows. Rows outside
// [lo, len) become zeros without a read: indices from a bad mask never read
// out of bounds, and keys a window hides cost no memory traffic.
template <int ROWS, int HEAD_DIM, int THREADS, typename T>
JITK_DEVICE void global_to_shared(T* dst, const T* src, i64 stride, int start, int len,
                                  int lo = 0) {
  constexpr int kChunk = 16 / int(sizeof(T));
  constexpr int kPerRow = HEAD_DIM / kChunk;
  constexpr int kRow = PaddedRow(HEAD_DIM, int(sizeof(T)));
  constexpr int kTotal = ROWS * kPerRow;
  static_assert(HEAD_DIM % kChunk == 0, "rows must be whole 16-byte chunks");
  if (sizeof(T) == 2 && THREADS % kPerRow == 0 && kTotal % THREADS == 0) {
    // Each thread copies one column chunk of rows r0, r0 + kStep, ...: one
    // pointer step per chunk, no bounds test when the whole tile is inside.
    // (16-bit storage only: the fp32 FMA engine spills with the extra live
    // pointer at d=128.)
    constexpr int kStep = THREADS / kPerRow;
    const int r0 = int(threadIdx.x) / kPerRow;
    const int col = (int(threadIdx.x) - r0 * kPerRow) * kChunk;
    const bool inside = rows_copied<ROWS>(start, lo, len);
    const i64 step = i64(kStep) * stride;
    const T* g = src + (i64(start) + r0) * stride + col;
    const SmemPtr d = smem_ptr(dst + r0 * kRow + col);
#pragma unroll
    for (int i = 0; i < kTotal / THREADS; ++i) {
      const int row = start + r0 + i * kStep;
      const bool valid = inside || row_copied(row, lo, len);
      copy16_async(d + i * kStep * kRow * int(sizeof(T)), valid ? g : src, valid);
      g += step;
    }
    return;
  }
#pragma unroll
  for (int i = 0; i < (kTotal + THREADS - 1) / THREADS; ++i) {
    int c = int(threadIdx.x) + i * THREADS;
    if (kTotal % THREADS == 0 || c < kTotal) {
      int r = c / kPerRow;
      int col = (c - r * kPerRow) * kChunk;
      int row = start + r;
      bool valid = row_copied(row, lo, len);
      const T* g = src + (valid ? i64(row) * stride + col : i64(0));
      copy16_async(smem_ptr(dst + r * kRow + col), g, valid);
    }
  }
}

// wgmma's 128-byte-swizzled tile layout (16-bit elements): 64-column blocks
// of `rows` rows, 128 bytes per row, and 16-byte chunk c of row r stored at
// chunk c ^ (r % 8) of its row. Byte offset of chunk `chunk` (of 8 elements)
// of row r.
JITK_ATTN_HOST_DEVICE constexpr int Sw128Offset(int rows, int r, int chunk) {
  return (chunk >> 3) * rows * 128 + r * 128 + (((chunk & 7) ^ (r & 7)) << 4);
}

// global_to_shared into the Sw128Offset layout by the block's THREADS
// threads. Each thread copies one chunk column of rows r0, r0 + kStep, ...;
// kStep is a multiple of 8, so the swizzle is the same for all of them.
template <int ROWS, int HEAD_DIM, int THREADS, typename T>
JITK_DEVICE void global_to_shared_sw128(T* dst, const T* src, i64 stride, int start, int len,
                                        int lo = 0) {
  const int tid = int(threadIdx.x);
  constexpr int kPerRow = HEAD_DIM / 8;
  constexpr int kStep = THREADS / kPerRow;
  static_assert(sizeof(T) == 2 && HEAD_DIM % 64 == 0, "64-column blocks of 16-bit elements");
  static_assert(THREADS % kPerRow == 0 && kStep % 8 == 0 && ROWS % kStep == 0,
                "a whole number of 8-row steps per thread");
  const int r0 = tid / kPerRow;
  const int chunk = tid - r0 * kPerRow;
  const bool inside = rows_copied<ROWS>(start, lo, len);
  const i64 step = i64(kStep) * stride;
  const T* g = src + (i64(start) + r0) * stride + chunk * 8;
  const SmemPtr d = smem_ptr(dst) + Sw128Offset(ROWS, r0, chunk);
#pragma unroll
  for (int i = 0; i < ROWS / kStep; ++i) {
    const int row = start + r0 + i * kStep;
    const bool valid = inside || row_copied(row, lo, len);
    copy16_async(d + i * kStep * 128, valid ? g : src, valid);
    g += step;
  }
}

// Where the output rows and the LSE of head h, batch b start.
template <typename T>
JITK_DEVICE T* output_rows(const SparseAttnParams& p, int b, int h) {
  return static_cast<T*>(p.o) + b * p.o_stride_b + h * p.o_stride_h;
}
JITK_DEVICE float* lse_rows(const SparseAttnParams& p, int b, int h) {
  return p.lse == nullptr ? nullptr : p.lse + (i64(b) * p.heads_q + h) * p.len_q;
}

// One 16-byte store.
struct alignas(16) Chunk16 {
  u32 x, y, z, w;
};

// Four consecutive elements as floats, and back.
struct F4 {
  float v[4];
};

template <typename T>
JITK_DEVICE F4 load4(const T* p) {
  Frag4 f = *reinterpret_cast<const Frag4*>(p);
  T e0, e1, e2, e3;
  e0.bits = u16(f.lo);
  e1.bits = u16(f.lo >> 16);
  e2.bits = u16(f.hi);
  e3.bits = u16(f.hi >> 16);
  F4 r = {{to_float(e0), to_float(e1), to_float(e2), to_float(e3)}};
  return r;
}
template <>
JITK_DEVICE F4 load4<float>(const float* p) {
  return *reinterpret_cast<const F4*>(p);
}

template <typename T>
JITK_DEVICE void store4(T* p, float a, float b, float c, float d) {
  Frag4 f;
  f.lo = u32(from_float<T>(a).bits) | (u32(from_float<T>(b).bits) << 16);
  f.hi = u32(from_float<T>(c).bits) | (u32(from_float<T>(d).bits) << 16);
  *reinterpret_cast<Frag4*>(p) = f;
}
template <>
JITK_DEVICE void store4<float>(float* p, float a, float b, float c, float d) {
  F4 r = {{a, b, c, d}};
  *reinterpret_cast<F4*>(p) = r;
}

// Rows of a query tile whose every key is masked: zeros and LSE -inf.
template <int ROWS, int HEAD_DIM, int THREADS, typename T>
JITK_DEVICE void write_empty_rows(T* o, i64 o_stride, float* lse, int q0, int len_q) {
  constexpr int kPerRow = HEAD_DIM / 4;
  for (int c = int(threadIdx.x); c < ROWS * kPerRow; c += THREADS) {
    int r = c / kPerRow;
    int row = q0 + r;
    if (row < len_q) store4<T>(o + i64(row) * o_stride + (c - r * kPerRow) * 4, 0.f, 0.f, 0.f, 0.f);
  }
  if (lse != nullptr) {
    for (int r = int(threadIdx.x); r < ROWS; r += THREADS) {
      if (q0 + r < len_q) lse[q0 + r] = neg_inf();
    }
  }
}

}  // namespace attn
}  // namespace jitk
