// sparse_attn_params.h — the one argument struct of sparse_attn, shared by
// the host (lib/attention/) and the device code (sparse_attn.h).
//
// Plain C++ with no includes, so hiprtc, NVRTC and the host compiler all see
// the same layout: the host fills a SparseAttnParams and passes it by value
// as the kernel's single argument.
#pragma once

#if defined(__CUDACC__) || defined(__CUDACC_RTC__) || defined(__HIPCC_RTC__) || defined(__HIP__)
#define JITK_ATTN_HOST_DEVICE __host__ __device__
#else
#define JITK_ATTN_HOST_DEVICE
#endif

namespace jitk {
namespace attn {

// Element mask applied inside partial blocks (template parameter MASK).
// q, k are query / key positions (a query row's position:
// SparseAttnParams::q_offset).
enum MaskKind {
  kMaskNone = 0,           // every key (bounds only)
  kMaskCausal = 1,         // k <= q
  kMaskSlidingCausal = 2,  // k <= q && (q - k < window || k < global_tokens)
  kMaskSliding = 3,        // |q - k| < window || k < global_tokens || q < global_tokens
};

// How the tiles are multiplied (template parameter ENGINE).
enum EngineKind {
  kEngineFma = 0,   // plain fp32 FMA: fp32 storage everywhere, 16-bit fallback
  kEngineMma = 1,   // NVIDIA mma.sync m16n8k16 + ldmatrix + cp.async (sm_80+; K, V by TMA from sm_90)
  kEngineMfma = 2,  // AMD MFMA 32x32x8 (CDNA), wave64
  kEngineWgmma = 3, // NVIDIA Hopper wgmma.mma_async from swizzled shared memory (sm_90a)
};

// Which block of the grid computes which query tile (the field tile_order).
// The hardware starts blocks with x changing fastest (in practice; CUDA does
// not promise an order); in both orders each head's query tiles go last
// first, so the tiles with the most key blocks of a causal mask start first.
enum TileOrder {
  // Grid (query tiles, heads_q, batch): one head after another.
  kOrderHeadMajor = 0,
  // Grid (heads_q, query tiles, batch): per batch, the query tiles rank by
  // rank, every head's side by side, so the last blocks to start are the
  // short tiles of all heads rather than a last head's long ones, which would
  // run on alone at the end of the launch. Each head's K / V is read by a few
  // blocks at a time instead of by most of its tiles: the host picks it for
  // causal launches where that is enough (kRankMajorMaxWaves in
  // sparse_attn_template.cc). The persistent grid's walk (QueryTileWalk)
  // ranks the tiles of every batch together.
  kOrderRankMajor = 1,
};

// Shared-memory row padding in bytes: rows stay 16-byte aligned and
// consecutive rows start in different bank groups.
constexpr int kRowPadBytes = 16;

JITK_ATTN_HOST_DEVICE constexpr int PaddedRow(int head_dim, int elem_bytes) {
  return head_dim + kRowPadBytes / elem_bytes;
}

// The MFMA engine's LDS tiles (16-bit elements): K as BLOCK_N rows of
// HEAD_DIM, V transposed as HEAD_DIM rows of BLOCK_N keys, unpadded, so that
// 128x64 at d = 128 takes 32 KiB and two blocks share a CU's 64 KiB. Its
// operands are 8-byte reads ("units" of four elements) by lanes of
// consecutive rows at one unit, 16 lanes per LDS cycle: unpadded, those rows
// would start on the same bank. So a row's units are permuted, unit u of row
// r stored at u ^ MfmaSwizzle(units, r): 16 consecutive rows (from a multiple
// of 16) then put one unit on 16 different bank pairs. A row of a multiple of
// 16 units spans whole 128-byte lines and XORs with r % 16; one of 8 (mod 16)
// units starts on half a line, by row parity, and XORs with r / 2 % 8. Units
// per row are a multiple of 8 (HEAD_DIM and BLOCK_N multiples of 32), so a
// permuted unit stays in its row, and a 16-byte pair of units in its pair.
JITK_ATTN_HOST_DEVICE constexpr int MfmaSwizzle(int units, int row) {
  return units % 16 == 0 ? row & 15 : (row >> 1) & 7;
}
// Element offset of unit `unit` of row `row`, in a tile of rows of `units`.
JITK_ATTN_HOST_DEVICE constexpr int MfmaTileOffset(int units, int row, int unit) {
  return 4 * (row * units + (unit ^ MfmaSwizzle(units, row)));
}
// The same offsets as a lane's own offset, one XOR and one constant, so that
// a lane keeps one register per tile instead of one address per access:
//   MfmaTileOffset(units, row + 16 * i, 2 * pair + odd)
//     == (MfmaTileOffset(units, row, odd) ^ MfmaPairXor(units, pair))
//        + MfmaPairStep(units, row_step, pair)   (row_step = 16 * i)
// for the engine's reads (a lane reads unit pairs of its rows), and
//   MfmaTileOffset(units, row + e, unit)             (row % 8 == 0, e < 8)
//     == (MfmaTileOffset(units, row, unit) ^ MfmaRowXor(units, e)) + 4 * e * units
// for its transposed stores (a thread writes eight consecutive rows).
JITK_ATTN_HOST_DEVICE constexpr int MfmaSwizzleWidth(int units) { return units % 16 == 0 ? 16 : 8; }
JITK_ATTN_HOST_DEVICE constexpr int MfmaPairXor(int units, int pair) {
  return 8 * (pair % (MfmaSwizzleWidth(units) / 2));
}
JITK_ATTN_HOST_DEVICE constexpr int MfmaPairStep(int units, int row_step, int pair) {
  return 4 * (row_step * units + MfmaSwizzleWidth(units) * (pair / (MfmaSwizzleWidth(units) / 2)));
}
JITK_ATTN_HOST_DEVICE constexpr int MfmaRowXor(int units, int e) {
  return 4 * MfmaSwizzle(units, e);
}

// Threads per query row in the FMA engine: the largest power of two <= 16
// that divides head_dim / 4.
JITK_ATTN_HOST_DEVICE constexpr int FmaThreadsPerRow(int head_dim) {
  int tpr = 16;
  while (tpr > 1 && (head_dim / 4) % tpr != 0) tpr /= 2;
  return tpr;
}

// Per K/V stage, the first key and the partial flag of the tile it holds
// (TileSlot, at the end of shared memory): the threads that compute read them
// back instead of keeping a second tile cursor in registers (or, when one
// warp copies, instead of reading the block mask themselves).
constexpr int kTileSlotBytes = 8;

// The wgmma engine runs warp-specialized when WAVES adds one warpgroup to
// the BLOCK_M / 16 that compute: that warpgroup only copies, through
// shared-memory barriers (mbarriers: Q full and free, then per stage K full,
// V full and empty, then "last K read", used by one computing warpgroup),
// and the others overlap the softmax of one tile with the MMAs of the next
// (sparse_attn_wgmma_ws.h). Its grid is persistent: one block per SM (or
// two: WgmmaBlocksPerSm) walks the query tiles.
JITK_ATTN_HOST_DEVICE constexpr bool WgmmaWarpSpecialized(int block_m, int waves) {
  return waves == block_m / 16 + 4;
}
JITK_ATTN_HOST_DEVICE constexpr int WgmmaBarrierBytes(int stages) { return (3 + 3 * stages) * 8; }
// The mma engine's tensor-copy pipeline (sm_90+): one mbarrier per stage
// (reserved on sm_80 too, where they go unused: a few bytes).
JITK_ATTN_HOST_DEVICE constexpr int MmaBarrierBytes(int stages) { return stages * 8; }

// Registers per thread of the warp-specialized engine after setmaxnreg: the
// copying warpgroup keeps kWgmmaCopyRegisters (its loop fits without
// spilling), the computing ones share the rest of the block's part of the
// SM's 64 Ki, in multiples of 8. One computing warpgroup alone on an SM needs
// no hand-over: it has the 255 of a block of 256 threads.
constexpr int kWgmmaCopyRegisters = 40;
JITK_ATTN_HOST_DEVICE constexpr int WgmmaComputeRegisters(int block_m, int blocks_per_sm) {
  return block_m > 64 || blocks_per_sm > 1
             ? (65536 / blocks_per_sm / 128 - kWgmmaCopyRegisters) / (block_m / 64) / 8 * 8
             : 255;
}

// The combine pass of a split launch (sparse_attn_split.h): CombineLanes
// threads take four columns of a row, each lane a share of its key ranges,
// read kCombineInFlight at a time: one lane up to that many ranges, two past
// it. CombineRowsPerBlock: the query rows one block merges.
constexpr int kCombineInFlight = 8;
JITK_ATTN_HOST_DEVICE constexpr int CombineLanes(int kv_splits) {
  return kv_splits > kCombineInFlight ? 2 : 1;
}
JITK_ATTN_HOST_DEVICE constexpr int CombineRowsPerBlock(int head_dim, int threads, int lanes) {
  const int per_row = head_dim / 4 * lanes;
  return threads >= per_row ? threads / per_row : 1;
}

// Shared memory of a Hopper SM (sm_90), of which 1 KiB per resident block is
// the system's.
constexpr int kHopperSmemPerSm = 228 * 1024;
constexpr int kSmemReservedPerBlock = 1024;

// Blocks of the warp-specialized engine per SM. One computing warpgroup
// shares its SM with a second block when both blocks' shared memory fits:
// their query tiles start and end at different times, so one block's first
// S = Q K^T and last P V of a query tile run beside the other's MMAs, as the
// mma.sync engine's two blocks per SM overlap. Two computing warpgroups
// take an SM's registers alone.
JITK_ATTN_HOST_DEVICE constexpr int WgmmaBlocksPerSm(int block_m, int smem_bytes) {
  return block_m == 64 && 2 * (smem_bytes + kSmemReservedPerBlock) <= kHopperSmemPerSm ? 2 : 1;
}

// Waves per SIMD the MFMA engine asks the compiler for on CDNA2 and later
// (sparse_attn_fwd's amdgpu_waves_per_eu; 0: no request, which clang leaves
// out of the code object). With two, its code fits 256 registers and,
// needing no AGPRs, its MFMAs accumulate in VGPRs instead of having O moved
// between the files around every tile's MFMAs. Asked only where it fits: Q's and O's rows (3 d / 4 per
// thread), S's columns (BLOCK_N, with P and the exponentials) and the K
// elements of all stages per thread at most 224, up to d = 128. A sweep of
// every gfx90a config at d = 32 to 128 has each such config without spills
// and the first above it spilling (bench/results/2026-12-04-gfx90a-vgpr-mfma/).
JITK_ATTN_HOST_DEVICE constexpr int MfmaWavesPerSimd(int engine, int block_n, int head_dim,
                                                     int stages, int threads) {
  return engine == kEngineMfma && head_dim <= 128 &&
                 3 * head_dim / 4 + block_n + block_n * head_dim * stages / threads <= 224
             ? 2
             : 0;
}

// Shared memory one block of the kernel needs, in bytes. The device code
// static_asserts that its layout matches.
JITK_ATTN_HOST_DEVICE constexpr int SmemBytes(int engine, int block_m, int block_n, int stages, int head_dim,
                        int elem_bytes) {
  // The MFMA engine: Q goes straight to registers, and LDS holds one K tile
  // and one V^T tile (at STAGES = 2 the next pair waits in registers:
  // sparse_attn_staged.h).
  if (engine == kEngineMfma) {
    return 2 * block_n * head_dim * elem_bytes;
  }
  // wgmma reads unpadded, swizzled rows.
  int row = (engine == kEngineWgmma ? head_dim : PaddedRow(head_dim, elem_bytes)) * elem_bytes;
  int kv = 2 * stages * block_n * row;
  // The tile slots last; before them, the wgmma or mma engine's barriers.
  int slots = stages * kTileSlotBytes + (engine == kEngineWgmma ? WgmmaBarrierBytes(stages)
                                         : engine == kEngineMma ? MmaBarrierBytes(stages)
                                                                : 0);
  int q = block_m * row;
  if (engine == kEngineFma) return q + kv + block_m * (block_n + 4) * 4 + slots;  // + fp32 P tile
  return q + kv + slots;
}

// A Hopper tensor map (the driver's CUtensorMap: 128 opaque bytes, 64-byte
// aligned), encoded by the host at launch.
struct alignas(64) TensorMapBytes {
  unsigned long long opaque[16];
};

}  // namespace attn

// Strides are in elements; the head dimension is contiguous (stride 1).
// Block-mask arrays follow PyTorch FlexAttention's BlockMask: counts are
// int32 [MB, MH, num_q_blocks], indices int32 [MB, MH, num_q_blocks,
// num_kv_blocks], with MB in {1, batch} and MH in {1, heads_q}.
struct SparseAttnParams {
  const void* q;  // [batch, heads_q, len_q, head_dim]
  const void* k;  // [batch, heads_kv, len_k, head_dim]
  const void* v;  // [batch, heads_kv, len_k, head_dim]
  void* o;        // [batch, heads_q, len_q, head_dim], same dtype as q
  float* lse;     // [batch, heads_q, len_q] natural-log LSE, contiguous; may be null
  const int* kv_num_blocks;       // partial blocks (element mask applied)
  const int* kv_indices;
  const int* full_kv_num_blocks;  // full blocks (no mask work); may be null
  const int* full_kv_indices;
  long long q_stride_b, q_stride_h, q_stride_l;
  long long k_stride_b, k_stride_h, k_stride_l;
  long long v_stride_b, v_stride_h, v_stride_l;
  long long o_stride_b, o_stride_h, o_stride_l;
  int batch, heads_q, heads_kv, len_q, len_k;
  int block;          // mask block size (query and key blocks)
  int num_q_blocks;   // ceil(len_q / block)
  int num_kv_blocks;  // ceil(len_k / block): length of one index row
  int mask_stride_b;  // in index rows: heads * num_q_blocks, or 0 when broadcast
  int mask_stride_h;  // num_q_blocks, or 0 when broadcast
  int window;         // kMaskSliding*: keys on each side, the query's own included
  int global_tokens;  // kMaskSliding*: leading keys (and queries) seen by all
  // The element mask's position of query row r is r + q_offset: 0 (top-left
  // aligned) up to len_k (len_k - len_q: the last len_q positions of a KV
  // cache). q_row_mask is -1, or, where grouped heads are packed as rows,
  // the original len_q - 1 for a power-of-two len_q: packed row r is at
  // q_offset + (r & q_row_mask) (mask_position).
  int q_offset;
  int q_row_mask;
  float scale_log2;   // softmax scale * log2(e), > 0
  int tile_order;     // TileOrder: how the grid's blocks map to query tiles
  // Key ranges computed apart (sparse_attn_split.h; 1 unsplit). In the split
  // pass o and lse point at the partial results, [kv_splits * batch,
  // heads_q, len_q, head_dim] and [kv_splits * batch, heads_q, len_q]; the
  // combine pass (combine = 1) reads them as o_partial and lse_partial.
  int kv_splits;
  int combine;
  const void* o_partial;
  const float* lse_partial;
};

// The second argument of the kernels that copy with the tensor-memory engine
// (TMA): q and o as [batch][heads_q][len_q][head_dim], k and v likewise with
// heads_kv. The warp-specialized wgmma kernel's boxes are 64 columns by
// BLOCK_M (q, o) or BLOCK_N rows, 128-byte swizzled; the mma kernel on sm_90+
// (sparse_attn_tma_fwd) reads k and v alone, in unswizzled boxes of its padded
// rows. Apart from SparseAttnParams, so the other kernels' argument stays
// small.
struct SparseAttnTensorMaps {
  attn::TensorMapBytes q, k, v, o;
};

}  // namespace jitk
