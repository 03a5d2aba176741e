// sparse_attn_wgmma_ws.h — the wgmma engine, warp-specialized and pipelined
// (sm_90a; WgmmaWarpSpecialized(BLOCK_M, WAVES)).
//
// BLOCK_M / 64 consumer warpgroups compute; one thread of a producer
// warpgroup copies Q once and K / V tiles into STAGES buffers with the
// tensor-memory engine (TMA, the host's tensor maps of SparseAttnTensorMaps),
// each copy's bytes completing the buffer's "full" mbarrier (K and V apart:
// S = Q K^T starts before V has landed). The boxes land in the 128-byte
// swizzle wgmma reads, zeros past the end of the sequence. Consumers free a buffer on its "empty"
// barrier once P V has read it, so no block-wide barrier is ever taken and
// the two sides (and the consumer warpgroups among themselves) drift freely.
// The copying thread alone reads the block mask: each stage's first key and
// partial flag go beside it in a TileSlot, published by the K-full barrier.
//
// Within a consumer warpgroup the softmax is issued while P V runs:
//   issue S(t) = Q K(t);  O *= alpha(t-1);  issue O += P(t-1) V(t-1);
//   wait S(t);  mask, softmax S(t) -> alpha(t)      (P V still running)
//   wait P V;  free the stage;  pack P(t)
// so O is touched only while no MMA writes it, and P(t-1) keeps its
// registers until its MMA has read them (packing P(t) earlier would let
// ptxas reuse them, and it then serializes the MMAs). ptxas currently
// schedules the exponentials after the second wait (see
// docs/sparse_attn_perf_notes.md).
//
// With two consumer warpgroups the producer gives up registers
// (setmaxnreg) so that O, S(t) and P(t-1) of 64 rows by 128 keys fit, and
// the two take turns issuing their MMAs (ping-pong). One consumer
// warpgroup runs two blocks per SM where their shared memory fits
// (WgmmaBlocksPerSm), the producer's registers handed over likewise.
//
// O leaves through the same engine when a K tile holds it (BLOCK_N >=
// BLOCK_M): each consumer writes its rows, normalized and packed, into the
// K buffer of the query tile's last stage (every S = Q K^T has read it
// once "last K read" completes) and frees the stage; the copying thread,
// which waits for that stage before refilling it anyway, issues the TMA
// store and refills once the store has read it. The consumers go on to the
// next tile without waiting for stores from their registers.
//
// The grid is persistent: each block (one or two per SM) walks query tiles
// (QueryTileWalk) and the stage ring runs on across them, so the producer
// copies the next tile's first K / V while the consumers finish and store
// this tile, and its Q once they have passed the "Q free" barrier: two
// consumer warpgroups read Q from shared memory and free it after their
// last S = Q K^T; one holds its rows in registers (kQInRegisters) and frees
// Q at the start of the tile, so the next Q is copied during it. Launching
// a block per query tile paid that start-up with the SM idle.
#pragma once

#include "sparse_attn_common.h"
#include "sparse_attn_mma.h"
#include "sparse_attn_persistent.h"
#include "sparse_attn_trace.h"
#include "sparse_attn_wgmma.h"
#include "sparse_attn_wgmma_ops.h"

#if JITK_ATTN_HAS_WGMMA

namespace jitk {
namespace attn {

template <int BLOCK_M, int BLOCK_N, int STAGES, int HEAD_DIM, typename T, int MASK>
struct WgmmaPipeline {
  typedef T Elem;
  static constexpr int kBlockM = BLOCK_M;
  static constexpr int kBlockN = BLOCK_N;
  static constexpr int kHeadDim = HEAD_DIM;
  static constexpr int kMask = MASK;
  static constexpr int kGroups = BLOCK_M / 64;  // consumer warpgroups
  static constexpr int kConsumers = kGroups * 128;
  static constexpr int kThreads = kConsumers + 128;
  static constexpr int kTile = BLOCK_N * HEAD_DIM;  // elements of one K (or V) tile
  static constexpr int kNT = BLOCK_N / 8;
  static constexpr int kDT = HEAD_DIM / 8;
  // Blocks sharing an SM, as the host launches them (the same function of
  // the same shared memory); registers change hands unless one computing
  // warpgroup has the SM alone.
  static constexpr int kBlocksPerSm = WgmmaBlocksPerSm(
      BLOCK_M, SmemBytes(kEngineWgmma, BLOCK_M, BLOCK_N, STAGES, HEAD_DIM, int(sizeof(T))));
  static constexpr bool kHandOver = kGroups > 1 || kBlocksPerSm > 1;
  // Registers per thread after the hand-over (WgmmaComputeRegisters). With
  // 24 for the producer its copy loop spilled and the H200 hung with a
  // consumer warpgroup that never reached a barrier.
  static constexpr int kProducerRegs = kWgmmaCopyRegisters;
  static constexpr int kConsumerRegs = WgmmaComputeRegisters(BLOCK_M, kBlocksPerSm);
  // setmaxnreg.inc waits until the block's pool has the registers: the
  // hand-over must fit what the launch bounds give each block.
  static_assert(!kHandOver || kProducerRegs * 128 + kConsumerRegs * kConsumers <=
                                  65536 / kBlocksPerSm,
                "the register hand-over exceeds the block's share of the SM");
  static_assert(sizeof(T) == 2, "the wgmma engine takes f16 or bf16 storage");
  static_assert(BLOCK_M == 64 || BLOCK_M == 128, "one or two consumer warpgroups");
  static_assert(BLOCK_N == 64 || BLOCK_N == 128, "BLOCK_N must be 64 or 128");
  static_assert(HEAD_DIM == 64 || HEAD_DIM == 128, "HEAD_DIM must be 64 or 128");
  static_assert(STAGES >= 2, "a buffer is freed one tile after its S = Q K^T: STAGES >= 2");
  // O (BLOCK_M rows) goes out through a K buffer when one holds it.
  static constexpr bool kStagedStores = BLOCK_N >= BLOCK_M;
  // One computing warpgroup (64-row tiles, two blocks per SM) loads its
  // rows of Q into registers, the A operand of every S = Q K^T, and frees
  // Q's buffer at once: the copying thread copies the next query tile's Q
  // first, during this tile. Two warpgroups read Q from shared memory, free
  // it as soon as their last S = Q K^T has completed, and the copying thread
  // copies the next Q after that tile's first K / V. Each way ran faster
  // where it is used: Q in registers made one warpgroup's tiles 2-4 %
  // faster and two warpgroups' 1-5 % slower
  // (bench/results/2026-12-05-h100-q-registers/).
  static constexpr bool kQInRegisters = kGroups == 1;

  // Barrier addresses (WgmmaBarrierBytes): Q full and Q free, then K full,
  // V full and empty per stage, then "last K read". Then the stages' tile
  // slots.
  SmemPtr bars;
  TileSlot* slots;
  JITK_DEVICE SmemPtr q_full() const { return bars; }
  JITK_DEVICE SmemPtr q_free() const { return bars + 8; }
  JITK_DEVICE SmemPtr k_full(int s) const { return bars + 8 * (2 + s); }
  JITK_DEVICE SmemPtr v_full(int s) const { return bars + 8 * (2 + STAGES + s); }
  JITK_DEVICE SmemPtr empty(int s) const { return bars + 8 * (2 + 2 * STAGES + s); }
  // Every consumer warp's last S = Q K^T of the query tile has read its last
  // K tile, whose buffer then takes the staged O: Q free where Q is read
  // from shared memory (the same moment), a barrier of its own where not.
  JITK_DEVICE SmemPtr last_k_read() const {
    return kQInRegisters ? bars + 8 * (2 + 3 * STAGES) : q_free();
  }

  // Full barriers: the copying thread's arrival plus the copies' bytes.
  JITK_DEVICE void init_barriers() {
    mbar_init(q_full(), 1);
    mbar_init(q_free(), kGroups * 4);  // one arrival per consumer warp
    for (int s = 0; s < STAGES; ++s) {
      mbar_init(k_full(s), 1);
      mbar_init(v_full(s), 1);
      mbar_init(empty(s), kGroups * 4);
    }
    if (kQInRegisters) mbar_init(last_k_read(), kGroups * 4);
    mbar_init_fence();
  }

  // Query tiles done and key tiles passed through the ring so far: the
  // barriers' phases. Producer and consumers count the same tiles.
  u32 tiles_done = 0;
  u32 queries_done = 0;
  TraceRecorder trace;  // empty unless JITK_ATTN_TRACE

  // The copying thread, one query tile: every key tile into the stage ring,
  // and Q once its buffer is free (before the first key tile or after it:
  // kQInRegisters). Coordinates of the tensor maps: column, row, head, batch
  // (b, the input's; qt.b, O's).
  JITK_DEVICE void produce(const SparseAttnParams& p, const SparseAttnTensorMaps& maps, T* sq,
                           T* skv, const QueryTile& qt, int hk, int b, const KvSchedule& sched) {
    const int q0 = qt.q0, h = qt.h;
    constexpr int kPanels = HEAD_DIM / 64;  // boxes of 64 columns (128 bytes) per row
    auto copy_q = [&] {
      if (queries_done > 0) mbar_wait(q_free(), (queries_done - 1) & 1u);
      trace(kTraceQFree);
      mbar_arrive_expect_tx(q_full(), BLOCK_M * HEAD_DIM * 2);
#pragma unroll
      for (int c = 0; c < kPanels; ++c) {
        tma_load_4d(smem_ptr(sq + c * BLOCK_M * 64), &maps.q, c * 64, q0, h, b, q_full());
      }
      trace(kTraceQIssued);
    };
    trace(kTraceCopyTileStart);
    if (kQInRegisters) copy_q();
    KvCursor fill;
    fill.seek(sched, 0);
    for (int t = 0; t < sched.n_tiles; ++t) {
      const u32 g = tiles_done + t;
      const int s = int(g % STAGES);
      if (g >= STAGES) {
        mbar_wait(empty(s), (g / STAGES + 1) & 1u);
        store_staged(maps, skv, s);
      }
      trace(kTraceStageEmpty);
      T* k = skv + s * 2 * kTile;
      slots[s] = TileSlot{fill.start, int(fill.partial)};  // released by the arrival
      mbar_arrive_expect_tx(k_full(s), kTile * 2);
#pragma unroll
      for (int c = 0; c < kPanels; ++c) {
        tma_load_4d(smem_ptr(k + c * BLOCK_N * 64), &maps.k, c * 64, fill.start, hk, b, k_full(s));
      }
      mbar_arrive_expect_tx(v_full(s), kTile * 2);
#pragma unroll
      for (int c = 0; c < kPanels; ++c) {
        tma_load_4d(smem_ptr(k + kTile + c * BLOCK_N * 64), &maps.v, c * 64, fill.start, hk, b,
                    v_full(s));
      }
      trace(kTraceKvIssued);
      fill.advance(sched);
      // Q after the first K / V: their stage was freed early in the last
      // query tile, Q only once its last S = Q K^T has read it.
      if (!kQInRegisters && t == 0) copy_q();
    }
    tiles_done += sched.n_tiles;
    ++queries_done;
    if (kStagedStores) {
      const int last = int((tiles_done - 1) % STAGES);
#pragma unroll
      for (int i = 0; i < STAGES; ++i) {
        if (i == last) staged[i] = qt;
      }
    }
  }

  // Query tiles whose O waits in a stage's K buffer (q0 < 0: none); the
  // copying thread's, indexed by stage.
  QueryTile staged[STAGES];
  JITK_DEVICE void clear_staged() {
#pragma unroll
    for (int i = 0; i < STAGES; ++i) staged[i].q0 = -1;
  }

  // Once stage s is free: the TMA store of the O it holds, read out before
  // the stage is refilled.
  JITK_DEVICE void store_staged(const SparseAttnTensorMaps& maps, T* skv, int s) {
    if (!kStagedStores) return;
#pragma unroll
    for (int i = 0; i < STAGES; ++i) {  // unrolled: the array stays in registers
      if (i != s || staged[i].q0 < 0) continue;
      const SmemPtr src = smem_ptr(skv + i * 2 * kTile);
#pragma unroll
      for (int c = 0; c < HEAD_DIM / 64; ++c) {
        tma_store_4d(&maps.o, src + c * BLOCK_M * 128, c * 64, staged[i].q0, staged[i].h,
                     staged[i].b);
      }
      bulk_commit();
      bulk_wait_read();
      staged[i].q0 = -1;
    }
  }

  // After the last query tile: every stage's O out, and written.
  JITK_DEVICE void drain(const SparseAttnTensorMaps& maps, T* skv) {
    if (!kStagedStores) return;
    for (int i = 0; i < STAGES; ++i) {
      const u32 g = tiles_done + i;
      if (g < STAGES) continue;  // never filled
      const int s = int(g % STAGES);
      mbar_wait(empty(s), (g / STAGES + 1) & 1u);
      store_staged(maps, skv, s);
    }
    bulk_wait();
  }

  // Asks L2 for the next query tile's Q while this one is computed. With
  // two consumer warpgroups Q is copied once they let go of this tile's Q,
  // one tail of a P V and a store before it is needed: from HBM that
  // latency showed at every query tile of a sparse mask. (Prefetching the
  // first K / V tiles too cost time at 10 % density.)
  JITK_DEVICE void prefetch_q(const SparseAttnTensorMaps& maps, int q0, int h, int b) {
#pragma unroll
    for (int c = 0; c < HEAD_DIM / 64; ++c) tma_prefetch_4d(&maps.q, c * 64, q0, h, b);
  }

  // A consumer warpgroup's rows; returns with m and l final and the last
  // P V still running (finish_consume waits for it).
  float o[kDT][4];
  float m[2];
  float l[2];

  JITK_DEVICE void consume(const T* sq, const T* skv, int pos0, int n_tiles,
                           const SparseAttnParams& p) {
    const int warp = int(threadIdx.x) / 32;
    const int lane = int(threadIdx.x) % 32;
    const int group = warp / 4;
#pragma unroll
    for (int dt = 0; dt < kDT; ++dt) {
#pragma unroll
      for (int i = 0; i < 4; ++i) o[dt][i] = 0.f;
    }
    m[0] = m[1] = neg_inf();
    l[0] = l[1] = 0.f;

    const SmemPtr q_base = smem_ptr(sq) + group * 64 * 128;
    const SmemPtr kv_base = smem_ptr(skv);
    u32 qa[kDT][2];  // kQInRegisters; q_base otherwise
    float sc[kNT][4];
    u32 pk[kNT][2];
    float alpha[2];

    trace(kTraceTileStart);
    if constexpr (kQInRegisters) {
      mbar_wait(q_full(), queries_done & 1u);
      load_q_rows<BLOCK_M, HEAD_DIM>(qa, smem_ptr(sq), warp * 16, lane);
      release_q(lane);
    }
    take_turn(group);
    trace(kTraceTurnTaken);
    // In the turn: no spill with the two-sided mask.
    if constexpr (!kQInRegisters) mbar_wait(q_full(), queries_done & 1u);
    scores(sc, qa, q_base, kv_base, 0);
    pass_turn(group);
    trace(kTraceMmaIssued);
    wgmma_wait<0>();
    keep_registers(sc);
    trace(kTraceScoresReady);
    if (n_tiles == 1) release_last_k(lane);
    softmax(sc, alpha, pos0, group, warp, lane, 0, p);
    trace(kTraceSoftmaxDone);
    pack_probs<T>(sc, pk);
    for (int t = 1; t < n_tiles; ++t) {
      take_turn(group);
      trace(kTraceTurnTaken);
      scores(sc, qa, q_base, kv_base, t);
      rescale_rows(o, alpha);  // while S = Q K^T runs
      accumulate(pk, kv_base, t - 1);
      pass_turn(group);
      trace(kTraceMmaIssued);
      wgmma_wait<1>();
      keep_registers(sc);
      trace(kTraceScoresReady);
      if (t == n_tiles - 1) release_last_k(lane);
      softmax(sc, alpha, pos0, group, warp, lane, t, p);  // while P V runs
      trace(kTraceSoftmaxDone);
      wgmma_wait<0>();
      keep_registers(o);
      keep_registers(pk);
      trace(kTracePvDone);
      release((tiles_done + t - 1) % STAGES, lane);
      pack_probs<T>(sc, pk);
    }
    rescale_rows(o, alpha);
    accumulate(pk, kv_base, n_tiles - 1);
    trace(kTraceMmaIssued);
    tiles_done += n_tiles;
    ++queries_done;
  }

  // O final: the query tile's last P V, issued by consume, complete.
  JITK_DEVICE void finish_consume() {
    wgmma_wait<0>();
    keep_registers(o);
    trace(kTraceLastPvDone);
    if (!kStagedStores) release((tiles_done - 1) % STAGES, int(threadIdx.x) % 32);
  }

  // After consume (kStagedStores): O / l of this warpgroup's rows, packed,
  // into the K buffer of the last stage in the O tensor map's box layout
  // (BLOCK_M rows of 64 columns per box, 128-byte swizzle), and the LSE to
  // global memory; then the stage is freed for the copying thread to store.
  JITK_DEVICE void stage_rows(const T* skv, float* lse, int q0, int len_q) {
    const int warp = int(threadIdx.x) / 32;
    const int lane = int(threadIdx.x) % 32;
    const u32 s = (tiles_done - 1) % STAGES;
    trace(kTraceStageStart);
    // Every warp's last S = Q K^T has read K.
    mbar_wait(last_k_read(), (queries_done - 1) & 1u);
    trace(kTraceLastKRead);
    const int row = q0 + warp * 16 + (lane >> 2);
    float inv[2];
#pragma unroll
    for (int hr = 0; hr < 2; ++hr) {
      inv[hr] = finish_row(m[hr], l[hr], lse, row + 8 * hr, len_q, lane);
    }
    // stmatrix: lanes 8i..8i+7 address rows of matrix i (rows 0-7 / 8-15 of
    // this warp's 16, then the next 8 columns).
    const SmemPtr dst = smem_ptr(skv + s * 2 * kTile);
    const int r = warp * 16 + (lane & 7) + ((lane >> 3) & 1) * 8;
#pragma unroll
    for (int dp = 0; dp < kDT / 2; ++dp) {
      stmatrix_x4(dst + Sw128Offset(BLOCK_M, r, 2 * dp + (lane >> 4)),
                  pack2<T>(o[2 * dp][0] * inv[0], o[2 * dp][1] * inv[0]),
                  pack2<T>(o[2 * dp][2] * inv[1], o[2 * dp][3] * inv[1]),
                  pack2<T>(o[2 * dp + 1][0] * inv[0], o[2 * dp + 1][1] * inv[0]),
                  pack2<T>(o[2 * dp + 1][2] * inv[1], o[2 * dp + 1][3] * inv[1]));
    }
    trace(kTraceRowsDone);
    async_proxy_fence();  // the TMA store reads through the async proxy
    trace(kTraceFenced);
    release(s, lane);
    trace(kTraceStaged);
  }

  // Two consumer warpgroups take turns issuing their MMAs (named barriers
  // kTurnBarrier + group), so that one's softmax runs while the other's MMAs
  // do. The turns run on across query tiles: group 0 starts the next tile
  // once group 1 has issued its last turn, not once group 1 has stored. Group
  // 1 opens with one arrival for group 0 (begin_turns), and group 0 takes it
  // back after its last tile (end_turns), which leaves both barriers balanced.
  static constexpr bool kPingPong = kGroups == 2;
  static constexpr int kTurnBarrier = 1;  // and 2; 0 is block_sync's
  JITK_DEVICE void begin_turns(int group) {
    if (kPingPong && group == 1) named_barrier_arrive(kTurnBarrier, 256);  // group 0 first
  }
  JITK_DEVICE void end_turns(int group) {
    if (group == 0) take_turn(group);
  }
  JITK_DEVICE void take_turn(int group) {
    if (kPingPong) named_barrier_sync(kTurnBarrier + group, 256);
  }
  JITK_DEVICE void pass_turn(int group) {
    if (kPingPong) named_barrier_arrive(kTurnBarrier + 1 - group, 256);
  }

  // S = Q K^T for tile t of this query tile, K waited for first; Q from
  // registers (qa) or from shared memory (q_base).
  JITK_DEVICE void scores(float (&sc)[kNT][4], const u32 (&qa)[kDT][2], SmemPtr q_base,
                          SmemPtr kv_base, int t) {
    const u32 g = tiles_done + t;
    const int s = int(g % STAGES);
    mbar_wait(k_full(s), (g / STAGES) & 1u);  // TMA writes through the async proxy: no fence
    const SmemPtr k = kv_base + s * 2 * kTile * 2;
    if constexpr (kQInRegisters) {
      issue_scores<BLOCK_N, HEAD_DIM, T>(sc, qa, k);
    } else {
      issue_scores<BLOCK_M, BLOCK_N, HEAD_DIM, T>(sc, q_base, k);
    }
  }

  // Mask and softmax of tile t of this query tile (its slot was published
  // with K). A tile none of this warpgroup's rows sees (a causal diagonal) is
  // computed anyway and masked to P = 0: skipping it would put a branch
  // between the MMAs, which ptxas then serializes.
  JITK_DEVICE void softmax(float (&sc)[kNT][4], float (&alpha)[2], int pos0, int group, int warp,
                           int lane, int t, const SparseAttnParams& p) {
    const TileSlot tile = slots[(tiles_done + t) % STAGES];
    bool partial = tile.partial != 0;
    wgmma_tile_visible<MASK, BLOCK_N>(group, warp, pos0, tile.start, p, &partial);
    mask_wgmma_tile<MASK, BLOCK_N>(sc, pos0, warp, lane, tile.start, partial, p);
    softmax_scores(sc, m, l, alpha, p.scale_log2);
  }

  // O += P V for tile t of this query tile, V waited for first.
  JITK_DEVICE void accumulate(const u32 (&pk)[kNT][2], SmemPtr kv_base, int t) {
    const u32 g = tiles_done + t;
    const int s = int(g % STAGES);
    mbar_wait(v_full(s), (g / STAGES) & 1u);
    issue_pv<BLOCK_N, HEAD_DIM, T>(o, pk, kv_base + (s * 2 + 1) * kTile * 2);
  }

  // Frees stage s once its P V has read V (its S = Q K^T is long done):
  // one arrival per consumer warp.
  JITK_DEVICE void release(u32 s, int lane) {
    __syncwarp();
    if (lane == 0) mbar_arrive(empty(int(s)));
  }
  // Frees Q for the next query tile.
  JITK_DEVICE void release_q(int lane) {
    __syncwarp();
    if (lane == 0) mbar_arrive(q_free());
  }
  // This warp's last S = Q K^T of the query tile has completed (which frees
  // Q too where it is read from shared memory).
  JITK_DEVICE void release_last_k(int lane) {
    __syncwarp();
    if (lane == 0) mbar_arrive(last_k_read());
  }
};

// All query tiles of this block, warp-specialized; SPLIT, each key range of
// each (the split pass: O and the LSE go to the partial results, whose
// tensor map o is). The producer and the consumers walk them in separate
// loops: ptxas gives each loop the register budget of the setmaxnreg before it.
template <typename E, bool SPLIT>
JITK_DEVICE void attention_ws(const SparseAttnParams& p, const SparseAttnTensorMaps& maps,
                              char* smem, SmemPtr bars, TileSlot* slots) {
  typedef typename E::Elem T;
  constexpr int BM = E::kBlockM;
  constexpr int D = E::kHeadDim;
  const int num_q_tiles = (p.len_q + BM - 1) / BM;
  const int items = num_q_tiles * p.heads_q * p.batch * (SPLIT ? p.kv_splits : 1);

  E pipe;
  pipe.bars = bars;
  pipe.slots = slots;
  if (threadIdx.x == 0) pipe.init_barriers();
  block_sync();

  T* sq = reinterpret_cast<T*>(smem);
  T* skv = sq + BM * D;
  if (int(threadIdx.x) >= E::kConsumers) {
    if (E::kHandOver) set_max_registers_dec<E::kProducerRegs>();
    if (int(threadIdx.x) != E::kConsumers) return;  // one thread copies
    const int group_size = p.heads_q / p.heads_kv;
    pipe.clear_staged();
    QueryTileWalk walk;
    QueryTile qt, next;
    KvSchedule sched, next_sched;
    bool more = walk.take<BM, E::kBlockN, SPLIT, E::kMask>(p, num_q_tiles, items, &qt, &sched);
    while (more) {
      more = walk.take<BM, E::kBlockN, SPLIT, E::kMask>(p, num_q_tiles, items, &next, &next_sched);
      if (more && next_sched.n_tiles > 0) {
        pipe.prefetch_q(maps, next.q0, next.h, input_batch<SPLIT>(p, next.b));
      }
      if (sched.n_tiles > 0) {
        pipe.produce(p, maps, sq, skv, qt, qt.h / group_size, input_batch<SPLIT>(p, qt.b), sched);
      }
      qt = next;
      sched = next_sched;
    }
    pipe.drain(maps, skv);
    return;
  }
  if (E::kHandOver) set_max_registers_inc<E::kConsumerRegs>();
  pipe.begin_turns(int(threadIdx.x) / 128);
  QueryTileWalk walk;
  QueryTile qt;
  KvSchedule sched;
  for (bool more = walk.take<BM, E::kBlockN, SPLIT, E::kMask>(p, num_q_tiles, items, &qt, &sched);
       more;) {
    if (sched.n_tiles == 0) {
      write_empty_rows<BM, D, E::kConsumers, T>(output_rows<T>(p, qt.b, qt.h), p.o_stride_l,
                                                lse_rows(p, qt.b, qt.h), qt.q0, p.len_q);
      more = walk.take<BM, E::kBlockN, SPLIT, E::kMask>(p, num_q_tiles, items, &qt, &sched);
      continue;
    }
    pipe.consume(sq, skv, qt.q0 + p.q_offset, sched.n_tiles, p);  // the first query position
    const QueryTile done = qt;
    // The next tile's block-mask reads run under this one's last P V (1.5-2 %
    // at 10 % density, bench/results/2026-12-06-h200-staged-o/) and stores.
    more = walk.take<BM, E::kBlockN, SPLIT, E::kMask>(p, num_q_tiles, items, &qt, &sched);
    pipe.finish_consume();
    if constexpr (E::kStagedStores) {
      pipe.stage_rows(skv, lse_rows(p, done.b, done.h), done.q0, p.len_q);
    } else {
      store_rows<T>(pipe.o, pipe.m, pipe.l, output_rows<T>(p, done.b, done.h), p.o_stride_l,
                    lse_rows(p, done.b, done.h),
                    done.q0 + int(threadIdx.x) / 32 * 16 + (int(threadIdx.x) % 32 >> 2), p.len_q,
                    int(threadIdx.x) % 32);
    }
  }
  pipe.end_turns(int(threadIdx.x) / 128);
}

}  // namespace attn
}  // namespace jitk

#endif  // JITK_ATTN_HAS_WGMMA
