// sparse_attn.h — block-sparse flash attention, forward pass.
//
//   O = softmax(Q K^T * scale + mask) V,  LSE = log(sum exp(Q K^T * scale))
//
// One block of the grid computes BLOCK_M query rows of one (batch, head):
// it walks the key blocks its query block lists in the block mask (full
// blocks first, no mask work; then partial blocks with the element mask
// MASK), BLOCK_N keys per tile, with an online softmax in fp32. K/V tiles
// stream through STAGES shared-memory buffers (cp.async groups on NVIDIA;
// tensor-memory copies for the mma engine from sm_90 on, sparse_attn_tma_fwd);
// AMD's MFMA engine keeps one in LDS (V transposed) and, at STAGES = 2,
// loads the next into registers under the MFMAs (sparse_attn_staged.h).
// Query blocks with no key block write zeros and LSE -inf and exit; a row
// whose every key is masked ends with l = 0 and does the same, never NaN.
//
// Grid: (ceil(len_q / BLOCK_M), heads_q, batch), or (heads_q, ceil(len_q /
// BLOCK_M), batch) in rank-major order (TileOrder); the query tiles go in
// reverse so those with the most key blocks of a causal mask start first.
// The warp-specialized wgmma engine is sparse_attn_ws_fwd, with a
// persistent grid: (at most WgmmaBlocksPerSm blocks per SM, 1, 1), each
// block walking query tiles in head-major order, or in rank-major order
// under a causal mask where the host picks it (QueryTileWalk). Both it and
// sparse_attn_tma_fwd take the tensor maps as a second argument. The split
// kernels (sparse_attn_split_fwd, sparse_attn_tma_split_fwd) run a launch's
// key ranges apart and then merge them, in two passes (sparse_attn_split.h).
// Block: WAVES * wave size threads. NVIDIA takes the shared memory as dynamic
// (SmemBytes() bytes); AMD as static LDS, so the code object reports it.
//
// ENGINE picks the matrix path (EngineKind): kEngineMma (sm_80+ f16/bf16),
// kEngineWgmma (sm_90a f16/bf16; warp-specialized when WAVES has a producer
// warpgroup beyond BLOCK_M / 16 warps), kEngineMfma (CDNA f16/bf16),
// kEngineFma (fp32 storage, and the fallback).
#pragma once

#include "prelude.h"
#include "sparse_attn_common.h"
#include "sparse_attn_fma.h"
#include "sparse_attn_mfma.h"
#include "sparse_attn_mma.h"
#include "sparse_attn_params.h"
#include "sparse_attn_split.h"
#include "sparse_attn_staged.h"
#include "sparse_attn_tma_ops.h"
#include "sparse_attn_wgmma.h"
#include "sparse_attn_wgmma_ws.h"

namespace jitk {
namespace attn {

template <int ENGINE, int BLOCK_M, int BLOCK_N, int WAVES, int STAGES, int HEAD_DIM, typename T,
          int MASK>
struct EngineSelect {
  static_assert(ENGINE == kEngineFma, "this matrix engine is not available for the target");
  typedef FmaEngine<BLOCK_M, BLOCK_N, WAVES, STAGES, HEAD_DIM, T, MASK> type;
};
#if JITK_ATTN_HAS_MMA
template <int BLOCK_M, int BLOCK_N, int WAVES, int STAGES, int HEAD_DIM, typename T, int MASK>
struct EngineSelect<kEngineMma, BLOCK_M, BLOCK_N, WAVES, STAGES, HEAD_DIM, T, MASK> {
  typedef MmaEngine<BLOCK_M, BLOCK_N, WAVES, STAGES, HEAD_DIM, T, MASK> type;
};
#endif
#if JITK_ATTN_HAS_WGMMA
template <int BLOCK_M, int BLOCK_N, int WAVES, int STAGES, int HEAD_DIM, typename T, int MASK>
struct EngineSelect<kEngineWgmma, BLOCK_M, BLOCK_N, WAVES, STAGES, HEAD_DIM, T, MASK> {
  typedef WgmmaEngine<BLOCK_M, BLOCK_N, WAVES, STAGES, HEAD_DIM, T, MASK> type;
};
#endif
#if JITK_ATTN_HAS_MFMA
template <int BLOCK_M, int BLOCK_N, int WAVES, int STAGES, int HEAD_DIM, typename T, int MASK>
struct EngineSelect<kEngineMfma, BLOCK_M, BLOCK_N, WAVES, STAGES, HEAD_DIM, T, MASK> {
  typedef MfmaEngine<BLOCK_M, BLOCK_N, WAVES, STAGES, HEAD_DIM, T, MASK> type;
};
#endif

template <typename E>
JITK_DEVICE void set_engine_shared(E&, char*) {}
template <int BM, int BN, int W, int S, int D, typename T, int MASK>
JITK_DEVICE void set_engine_shared(FmaEngine<BM, BN, W, S, D, T, MASK>& e, char* smem) {
  e.set_shared(smem);
}

// Whether engine E reads wgmma's swizzled tiles (Sw128Offset) instead of
// padded rows.
template <typename E, typename = void>
struct Swizzled {
  static constexpr bool value = false;
};
template <typename E>
struct Swizzled<E, decltype(void(E::kSwizzled))> {
  static constexpr bool value = E::kSwizzled;
};

// A ROWS-row tile of Q, K or V into shared memory in E's layout, rows
// outside [lo, len) as zeros.
template <typename E, int ROWS>
JITK_DEVICE void load_tile(typename E::Elem* dst, const typename E::Elem* src, i64 stride,
                           int start, int len, int lo = 0) {
  typedef typename E::Elem T;
  if constexpr (Swizzled<E>::value) {
    global_to_shared_sw128<ROWS, E::kHeadDim, E::kThreads, T>(dst, src, stride, start, len, lo);
  } else {
    global_to_shared<ROWS, E::kHeadDim, E::kThreads, T>(dst, src, stride, start, len, lo);
  }
}

// The walk over a query tile's key tiles: wait(t) until tile t has landed,
// then one barrier per tile, after which the stage of tile t - 1 takes tile
// t + STAGES - 1 (refill; with one stage, tile t before the wait), and the
// engine computes tile t. K and V of a stage are kKV elements apart. The
// engine's masks take the tile's first query position (mask_position).
template <typename E, int kKV, typename Wait, typename Refill>
JITK_DEVICE void walk_tiles(E& engine, int n_tiles, const typename E::Elem* sq,
                            const typename E::Elem* skv, const TileSlot* slots, int q0,
                            const SparseAttnParams& p, const Wait& wait, const Refill& refill) {
  typedef typename E::Elem T;
  constexpr int S = E::kStages;
  for (int t = 0; t < n_tiles; ++t) {
    if constexpr (S == 1) refill(t);
    wait(t);
    block_sync();
    // Every thread is past tile t - 1, so its stage takes tile t + S - 1:
    // one barrier per tile. Tile t's slot, written before it, is visible.
    if constexpr (S > 1) refill(t + S - 1);
    if (t == 0) engine.load_q(sq);
    const T* stage = skv + (t % S) * 2 * kKV;
    const TileSlot cur = slots[t % S];
    engine.tile(sq, stage, stage + kKV, q0 + p.q_offset, cur.start, cur.partial != 0, p);
    if constexpr (S == 1) block_sync();  // before the next tile overwrites the only stage
  }
}

// One query tile: the pipeline over its key tiles (of its key range when
// SPLIT) around an engine E that applies element mask MASK.
template <typename E, int MASK, bool SPLIT>
JITK_DEVICE void attention_tile(const SparseAttnParams& p, char* smem, TileSlot* slots) {
  typedef typename E::Elem T;
  constexpr int BM = E::kBlockM;
  constexpr int BN = E::kBlockN;
  constexpr int S = E::kStages;
  constexpr int D = E::kHeadDim;
  constexpr int kThreads = E::kThreads;
  constexpr int kRow = Swizzled<E>::value ? D : PaddedRow(D, int(sizeof(T)));
  constexpr int kKV = BN * kRow;  // elements of one K (or V) tile

  const GridTile g = split_grid_tile<BM, MASK, SPLIT>(p);
  const int q0 = g.q0, h = g.h, b = g.b;
  const int hk = h / (p.heads_q / p.heads_kv);
  const int ob = output_batch<SPLIT>(b);

  const KvSchedule sched = block_schedule<SPLIT>(p, q0, h, b, BN);

  if (sched.n_tiles == 0) {
    write_empty_rows<BM, D, kThreads, T>(output_rows<T>(p, ob, h), p.o_stride_l,
                                         lse_rows(p, ob, h), q0, p.len_q);
    return;
  }

  const T* qg = head_rows<T>(p.q, p.q_stride_b, p.q_stride_h, b, h);
  // The K and V rows of the head are formed at each load: kept across the
  // loop, the two pointers take four registers from the tiles (and made
  // the mma engine's 64-key passes spill). So is the first key copied
  // (kept, it made sm_80's sliding decode kernel spill).
  auto load_kv = [&](T* dst, int kv0, bool partial) {
    const int lo = first_copied_key<MASK>(q0 + p.q_offset, kv0, partial, p);
    load_tile<E, BN>(dst, head_rows<T>(p.k, p.k_stride_b, p.k_stride_h, b, hk), p.k_stride_l, kv0,
                     p.len_k, lo);
    load_tile<E, BN>(dst + kKV, head_rows<T>(p.v, p.v_stride_b, p.v_stride_h, b, hk), p.v_stride_l,
                     kv0, p.len_k, lo);
  };
  T* sq = reinterpret_cast<T*>(smem);
  T* skv = sq + (E::kQInShared ? BM * kRow : 0);

  E engine;
  set_engine_shared(engine, smem);
  engine.begin(qg, p.q_stride_l, q0, p.len_q);
  if (E::kQInShared) load_tile<E, BM>(sq, qg, p.q_stride_l, q0, p.len_q);
  cp_async_commit();
#pragma unroll
  for (int t = 0; t < S - 1; ++t) {
    if (t < sched.n_tiles) {
      bool partial;
      int kv0 = sched.tile_start(t, &partial);
      load_kv(skv + t * 2 * kKV, kv0, partial);
      if (threadIdx.x == 0) slots[t] = TileSlot{kv0, partial};
    }
    cp_async_commit();
  }

  KvCursor fill;  // the tile loaded next, S - 1 ahead of the one computed
  fill.seek(sched, S - 1);
  // Loads tile `next` into its stage, as one copy group (empty past the end).
  auto refill = [&](int next) {
    if (next < sched.n_tiles) {
      load_kv(skv + (next % S) * 2 * kKV, fill.start, fill.partial);
      if (threadIdx.x == 0) slots[next % S] = TileSlot{fill.start, fill.partial};
      fill.advance(sched);
    }
    cp_async_commit();
  };
  auto wait = [&](int) {
    // Tile t (and Q) have landed; S - 2 later tiles may still be in flight.
    cp_async_wait<S == 1 ? 0 : S - 2>();
#if JITK_ATTN_HAS_WGMMA
    if (Swizzled<E>::value) async_proxy_fence();  // before wgmma reads them
#endif
  };
  walk_tiles<E, kKV>(engine, sched.n_tiles, sq, skv, slots, q0, p, wait, refill);
  // The output pointers are formed only now: kept across the loop they
  // would take registers from the tiles.
  engine.finish(output_rows<T>(p, ob, h), p.o_stride_l, lse_rows(p, ob, h), q0, p.len_q);
}

#if JITK_ATTN_HAS_TMA
// attention_tile for the mma engine on sm_90+: one thread copies each K / V
// tile with the tensor-memory engine, one box per tensor whose rows are as
// wide as the padded rows (the columns past HEAD_DIM lie outside the tensor
// and arrive as zeros, as do rows past its end), landing on the stage's
// mbarrier. On the engine's loop alone the 16 cp.async per thread and tile
// of attention_tile cost 23 % and two such copies 3 %: issued in one burst,
// the cp.async held up the warps' ldmatrix
// (bench/results/2026-12-04-h200-mma-peak/). Q, copied once, stays with
// cp.async. bars: one mbarrier per stage.
template <typename E, int MASK, bool SPLIT>
JITK_DEVICE void attention_tile_tma(const SparseAttnParams& p, const SparseAttnTensorMaps& maps,
                                    char* smem, SmemPtr bars, TileSlot* slots) {
  typedef typename E::Elem T;
  constexpr int BM = E::kBlockM;
  constexpr int BN = E::kBlockN;
  constexpr int S = E::kStages;
  constexpr int D = E::kHeadDim;
  constexpr int kRow = PaddedRow(D, int(sizeof(T)));
  constexpr int kKV = BN * kRow;  // elements of one K (or V) tile
  static_assert(!Swizzled<E>::value && E::kQInShared, "padded rows, Q in shared memory");
  static_assert(BM * kRow * int(sizeof(T)) % 128 == 0 && kKV * int(sizeof(T)) % 128 == 0,
                "tensor copies land on 128-byte boundaries");

  const GridTile g = split_grid_tile<BM, MASK, SPLIT>(p);
  const int q0 = g.q0, h = g.h, b = g.b;
  const int hk = h / (p.heads_q / p.heads_kv);
  const int ob = output_batch<SPLIT>(b);
  const KvSchedule sched = block_schedule<SPLIT>(p, q0, h, b, BN);
  if (sched.n_tiles == 0) {
    write_empty_rows<BM, D, E::kThreads, T>(output_rows<T>(p, ob, h), p.o_stride_l,
                                            lse_rows(p, ob, h), q0, p.len_q);
    return;
  }

  T* sq = reinterpret_cast<T*>(smem);
  T* skv = sq + BM * kRow;
  const bool copier = threadIdx.x == 0;
  auto load_kv = [&](int stage, int kv0) {
    const SmemPtr bar = bars + 8 * stage;
    const SmemPtr dst = smem_ptr(skv + stage * 2 * kKV);
    mbar_arrive_expect_tx(bar, 2 * kKV * int(sizeof(T)));
    tma_load_4d(dst, &maps.k, 0, kv0, hk, b, bar);
    tma_load_4d(dst + kKV * int(sizeof(T)), &maps.v, 0, kv0, hk, b, bar);
  };

  E engine;
  engine.begin(nullptr, 0, q0, p.len_q);
  load_tile<E, BM>(sq, head_rows<T>(p.q, p.q_stride_b, p.q_stride_h, b, h), p.q_stride_l, q0,
                   p.len_q);
  cp_async_commit();
  if (copier) {
#pragma unroll
    for (int s = 0; s < S; ++s) mbar_init(bars + 8 * s, 1);
    mbar_init_fence();
#pragma unroll
    for (int t = 0; t < S - 1; ++t) {
      if (t < sched.n_tiles) {
        bool partial;
        const int kv0 = sched.tile_start(t, &partial);
        load_kv(t, kv0);
        slots[t] = TileSlot{kv0, partial};
      }
    }
  }

  KvCursor fill;  // the tile loaded next (the copying thread advances it)
  fill.seek(sched, S - 1);
  auto refill = [&](int next) {
    if (copier && next < sched.n_tiles) {
      load_kv(next % S, fill.start);
      slots[next % S] = TileSlot{fill.start, fill.partial};
      fill.advance(sched);
    }
  };
  cp_async_wait<0>();  // Q, published by the walk's first barrier
  block_sync();        // the mbarriers' inits, before anyone waits on them
  auto wait = [&](int t) { mbar_wait(bars + 8 * (t % S), (t / S) & 1); };
  walk_tiles<E, kKV>(engine, sched.n_tiles, sq, skv, slots, q0, p, wait, refill);
  engine.finish(output_rows<T>(p, ob, h), p.o_stride_l, lse_rows(p, ob, h), q0, p.len_q);
}
#endif

}  // namespace attn

// The waves per SIMD asked of the compiler (MfmaWavesPerSimd); CDNA1
// (gfx908) accumulates in AGPRs only. JITK_ATTN_NO_WAVES_PER_SIMD leaves the
// request out: the library's second compile where a compiler spills with it.
#if JITK_HIP && defined(__AMDGCN__) && !defined(__gfx908__) && !defined(JITK_ATTN_NO_WAVES_PER_SIMD)
#define JITK_ATTN_WAVES_PER_SIMD(N) __attribute__((amdgpu_waves_per_eu(N)))
#else
#define JITK_ATTN_WAVES_PER_SIMD(N)
#endif

namespace attn {

// sparse_attn_fwd's block on its shared memory of SmemBytes (the tile slots
// at its end): one query tile, or, SPLIT, either pass of a split launch.
template <int BLOCK_M, int BLOCK_N, int WAVES, int STAGES, int HEAD_DIM, typename T, int MASK,
          int ENGINE, bool SPLIT>
JITK_DEVICE void fwd_block(const SparseAttnParams& p, char* smem) {
  if (ran_combine_pass<HEAD_DIM, WAVES * kWaveSize, T, SPLIT>(p)) return;
  if constexpr (SPLIT && ENGINE == kEngineWgmma) {
    // A launch of one range runs the unsplit code, whose schedule starts at
    // a known first tile: a 4.6 us decode step of the split code takes 4.4
    // (bench/results/2026-12-07-h100-one-range/). The wgmma engine's only:
    // with both paths the other engines' decode kernels spill (sm_80's mma
    // and the fma engine at d = 128, the MFMA engine's SGPRs on gfx90a;
    // bench/results/2026-12-07-cpu-decode-spills/), as mma_tma_block's did.
    if (p.kv_splits == 1) {
      fwd_block<BLOCK_M, BLOCK_N, WAVES, STAGES, HEAD_DIM, T, MASK, ENGINE, false>(p, smem);
      return;
    }
  }
  constexpr int kSmem = SmemBytes(ENGINE, BLOCK_M, BLOCK_N, STAGES, HEAD_DIM, int(sizeof(T)));
  typedef typename EngineSelect<ENGINE, BLOCK_M, BLOCK_N, WAVES, STAGES, HEAD_DIM, T, MASK>::type
      Engine;
#if JITK_ATTN_HAS_MFMA
  if constexpr (ENGINE == kEngineMfma) {
    attention_tile_staged<Engine, MASK, SPLIT>(p, smem);
  } else
#endif
  {
    attention_tile<Engine, MASK, SPLIT>(
        p, smem, reinterpret_cast<TileSlot*>(smem + kSmem - STAGES * kTileSlotBytes));
  }
}

// A kernel of fwd_block: its shared memory, static on AMD (so the code
// object reports it), dynamic on NVIDIA (SmemBytes() bytes at launch).
template <int BLOCK_M, int BLOCK_N, int WAVES, int STAGES, int HEAD_DIM, typename T, int MASK,
          int ENGINE, bool SPLIT>
JITK_DEVICE void fwd_kernel(const SparseAttnParams& p) {
  static_assert(STAGES >= 1, "STAGES must be at least 1");
  constexpr int kSmem = SmemBytes(ENGINE, BLOCK_M, BLOCK_N, STAGES, HEAD_DIM, int(sizeof(T)));
#if JITK_HIP
  __shared__ __attribute__((aligned(16))) char smem[kSmem];
#else
  static_assert(kSmem > 0, "shared memory layout");
  extern __shared__ __align__(1024) char smem[];  // wgmma's swizzle atoms are 1 KiB
#endif
  fwd_block<BLOCK_M, BLOCK_N, WAVES, STAGES, HEAD_DIM, T, MASK, ENGINE, SPLIT>(p, smem);
}

}  // namespace attn

template <int BLOCK_M, int BLOCK_N, int WAVES, int STAGES, int HEAD_DIM, typename T, int MASK,
          int ENGINE>
__global__ void __launch_bounds__(WAVES * kWaveSize) JITK_ATTN_WAVES_PER_SIMD(
    attn::MfmaWavesPerSimd(ENGINE, BLOCK_N, HEAD_DIM, STAGES, WAVES * kWaveSize))
    sparse_attn_fwd(const SparseAttnParams p) {
  attn::fwd_kernel<BLOCK_M, BLOCK_N, WAVES, STAGES, HEAD_DIM, T, MASK, ENGINE, false>(p);
}

// Both passes of a split launch (sparse_attn_split.h) with the same tiles.
template <int BLOCK_M, int BLOCK_N, int WAVES, int STAGES, int HEAD_DIM, typename T, int MASK,
          int ENGINE>
__global__ void __launch_bounds__(WAVES * kWaveSize) JITK_ATTN_WAVES_PER_SIMD(
    attn::MfmaWavesPerSimd(ENGINE, BLOCK_N, HEAD_DIM, STAGES, WAVES * kWaveSize))
    sparse_attn_split_fwd(const SparseAttnParams p) {
  attn::fwd_kernel<BLOCK_M, BLOCK_N, WAVES, STAGES, HEAD_DIM, T, MASK, ENGINE, true>(p);
}

#if JITK_ATTN_HAS_TMA && JITK_ATTN_HAS_MMA
namespace attn {

// sparse_attn_tma_fwd's block on its shared memory: Q and the stages, then
// the stages' mbarriers and tile slots at the end (SmemBytes); or, SPLIT,
// the combine pass.
template <int BLOCK_M, int BLOCK_N, int WAVES, int STAGES, int HEAD_DIM, typename T, int MASK,
          bool SPLIT>
JITK_DEVICE void mma_tma_block(const SparseAttnParams& p, const SparseAttnTensorMaps& maps,
                               char* smem) {
  static_assert(STAGES >= 1, "STAGES must be at least 1");
  if (ran_combine_pass<HEAD_DIM, WAVES * kWaveSize, T, SPLIT>(p)) return;
  constexpr int kSmem = SmemBytes(kEngineMma, BLOCK_M, BLOCK_N, STAGES, HEAD_DIM, int(sizeof(T)));
  char* slots = smem + kSmem - STAGES * kTileSlotBytes;
  typedef MmaEngine<BLOCK_M, BLOCK_N, WAVES, STAGES, HEAD_DIM, T, MASK> Engine;
  attention_tile_tma<Engine, MASK, SPLIT>(p, maps, smem, smem_ptr(slots - MmaBarrierBytes(STAGES)),
                                   reinterpret_cast<TileSlot*>(slots));
}

}  // namespace attn

#if JITK_CUDA  // the CPU emulator runs mma_tma_block on a buffer of its own
// The mma engine with tensor-memory copies (sm_90+): its own entry point,
// the maps in parameter space.
template <int BLOCK_M, int BLOCK_N, int WAVES, int STAGES, int HEAD_DIM, typename T, int MASK>
__global__ void __launch_bounds__(WAVES * kWaveSize)
    sparse_attn_tma_fwd(const __grid_constant__ SparseAttnParams p,
                        const __grid_constant__ SparseAttnTensorMaps maps) {
  extern __shared__ __align__(128) char smem[];  // tensor copies land on 128 bytes
  attn::mma_tma_block<BLOCK_M, BLOCK_N, WAVES, STAGES, HEAD_DIM, T, MASK, false>(p, maps, smem);
}

// Both passes of a split launch with the same tiles.
template <int BLOCK_M, int BLOCK_N, int WAVES, int STAGES, int HEAD_DIM, typename T, int MASK>
__global__ void __launch_bounds__(WAVES * kWaveSize)
    sparse_attn_tma_split_fwd(const __grid_constant__ SparseAttnParams p,
                              const __grid_constant__ SparseAttnTensorMaps maps) {
  extern __shared__ __align__(128) char smem[];
  attn::mma_tma_block<BLOCK_M, BLOCK_N, WAVES, STAGES, HEAD_DIM, T, MASK, true>(p, maps, smem);
}
#endif
#endif

#if JITK_ATTN_HAS_WGMMA
namespace attn {

// sparse_attn_ws_fwd's block on its shared memory: Q and the stages, then
// the barriers and tile slots at the end (SmemBytes); or, SPLIT, the
// combine pass.
template <int BLOCK_M, int BLOCK_N, int WAVES, int STAGES, int HEAD_DIM, typename T, int MASK,
          bool SPLIT = false>
JITK_DEVICE void wgmma_ws_block(const SparseAttnParams& p, const SparseAttnTensorMaps& maps,
                                char* smem) {
  typedef WgmmaPipeline<BLOCK_M, BLOCK_N, STAGES, HEAD_DIM, T, MASK> Pipeline;
  static_assert(WgmmaWarpSpecialized(BLOCK_M, WAVES), "a copying warpgroup");
  static_assert(Pipeline::kThreads == WAVES * kWaveSize, "one producer warpgroup");
  if (ran_combine_pass<HEAD_DIM, WAVES * kWaveSize, T, SPLIT>(p)) return;
  constexpr int kSmem = SmemBytes(kEngineWgmma, BLOCK_M, BLOCK_N, STAGES, HEAD_DIM, int(sizeof(T)));
  char* slots = smem + kSmem - STAGES * kTileSlotBytes;
  attention_ws<Pipeline, SPLIT>(p, maps, smem, smem_ptr(slots - WgmmaBarrierBytes(STAGES)),
                                reinterpret_cast<TileSlot*>(slots));
}

}  // namespace attn

#if JITK_CUDA  // the CPU emulator runs wgmma_ws_block on a buffer of its own
// The warp-specialized wgmma engine (WgmmaWarpSpecialized configs): its own
// entry point, with a persistent grid and the parameters kept in parameter
// space (__grid_constant__), where the tensor-memory engine reads the maps.
template <int BLOCK_M, int BLOCK_N, int WAVES, int STAGES, int HEAD_DIM, typename T, int MASK>
__global__ void __launch_bounds__(
    WAVES * kWaveSize,
    attn::WgmmaPipeline<BLOCK_M, BLOCK_N, STAGES, HEAD_DIM, T, MASK>::kBlocksPerSm)
    sparse_attn_ws_fwd(const __grid_constant__ SparseAttnParams p,
                       const __grid_constant__ SparseAttnTensorMaps maps) {
  extern __shared__ __align__(1024) char smem[];  // wgmma's swizzle atoms are 1 KiB
  attn::wgmma_ws_block<BLOCK_M, BLOCK_N, WAVES, STAGES, HEAD_DIM, T, MASK>(p, maps, smem);
}

// Both passes of a split launch with the same tiles: the persistent grid
// walks every key range of every query tile.
template <int BLOCK_M, int BLOCK_N, int WAVES, int STAGES, int HEAD_DIM, typename T, int MASK>
__global__ void __launch_bounds__(
    WAVES * kWaveSize,
    attn::WgmmaPipeline<BLOCK_M, BLOCK_N, STAGES, HEAD_DIM, T, MASK>::kBlocksPerSm)
    sparse_attn_ws_split_fwd(const __grid_constant__ SparseAttnParams p,
                             const __grid_constant__ SparseAttnTensorMaps maps) {
  extern __shared__ __align__(1024) char smem[];
  attn::wgmma_ws_block<BLOCK_M, BLOCK_N, WAVES, STAGES, HEAD_DIM, T, MASK, true>(p, maps, smem);
}
#endif
#endif

}  // namespace jitk
