// The sparse_attn template's wgmma engines (sm_90a) compiled by g++ and run
// on the SIMT emulator against the fp64 reference: wgmma.mma_async on
// 128-byte-swizzled shared memory (emulated_wgmma.h), and for the
// warp-specialized engine its tensor-memory copies and stores, mbarriers,
// named barriers (the consumer warpgroups' turns) and persistent walk
// (emulated_tma.h). The host side (PlanLaunch, tensor maps) is the real one.
#include "jitk/block_mask.h"
#include "tests/lib/attention/emulated_runner.h"

#define jitk jitk_emu_wgmma
#define __HIP__ 1
#define __AMDGCN_WAVEFRONT_SIZE 32
#define JITK_ATTN_OPS_PROVIDED 1
// Order matters: the emulated ops must precede the kernel.
// clang-format off
#include "kernel_templates/prelude.h"
#include "tests/lib/attention/emulated_ops.h"
#include "kernel_templates/sparse_attn.h"
// clang-format on
#undef jitk

namespace jitk::attn_test {
namespace {

namespace attn = jitk_emu_wgmma::attn;
using E = jitk_emu_wgmma::SparseAttnParams;
using Maps = jitk_emu_wgmma::SparseAttnTensorMaps;
using jitk_emu_wgmma::bf16;
using jitk_emu_wgmma::f16;

// The blocks on a shared-memory buffer of the emulator's, aligned as the
// kernels declare theirs (the swizzle's 1 KiB atoms): the entry points take
// dynamic shared memory, which g++ has not.
template <int BM, int BN, int W, int S, int D, typename T, int MASK, bool SPLIT = false>
void WgmmaFwd(E p) {
  constexpr int kSmem = attn::SmemBytes(attn::kEngineWgmma, BM, BN, S, D, int(sizeof(T)));
  alignas(1024) static char smem[kSmem];
  attn::fwd_block<BM, BN, W, S, D, T, MASK, attn::kEngineWgmma, SPLIT>(p, smem);
}

template <int BM, int BN, int W, int S, int D, typename T, int MASK, bool SPLIT = false>
void WgmmaWsFwd(const E& p, const Maps& maps) {
  constexpr int kSmem = attn::SmemBytes(attn::kEngineWgmma, BM, BN, S, D, int(sizeof(T)));
  alignas(1024) static char smem[kSmem];
  attn::wgmma_ws_block<BM, BN, W, S, D, T, MASK, SPLIT>(p, maps, smem);
}

// One warpgroup, S = Q K^T from shared memory and P V with P in registers,
// a causal diagonal and lengths that end inside a tile.
TEST(EmulatedWgmmaTest, F16CausalOddLengths) {
  absl::StatusOr<BlockMask> mask = BlockMask::Causal(150, 150, 64);
  ASSERT_TRUE(mask.ok()) << mask.status();
  EmulatedRun run{Make(DType::kF16, 2, 1, 150, 150, 64), Config(64, 64, 4, 2), "sm_90a",
                  "jitk::sparse_attn_fwd<64, 64, 4, 2, 64, jitk::f16, 1, 3>"};
  RunEmulated<E>(&WgmmaFwd<64, 64, 4, 2, 64, f16, 1>, run, *mask);
}

// Two warpgroups, 128-key tiles, d = 128 (two 64-column panels per row).
TEST(EmulatedWgmmaTest, Bf16DenseHeadDim128) {
  absl::StatusOr<BlockMask> mask = BlockMask::Dense(130, 200, 128);
  ASSERT_TRUE(mask.ok()) << mask.status();
  EmulatedRun run{Make(DType::kBF16, 1, 1, 130, 200, 128), Config(128, 128, 8, 2), "sm_90a",
                  "jitk::sparse_attn_fwd<128, 128, 8, 2, 128, jitk::bf16, 0, 3>"};
  RunEmulated<E>(&WgmmaFwd<128, 128, 8, 2, 128, bf16, 0>, run, *mask);
}

// The sm_90a default: two consumer warpgroups taking turns, three stages,
// O out through a K buffer by tensor stores. Three blocks walk the query
// tiles of two batches and two heads, so the ring and the barriers' phases
// run on across query tiles.
// A decode step split over key ranges (sparse_attn_split.h): the split
// pass's 64-row tiles of one query row each, then the combine pass.
TEST(EmulatedWgmmaTest, F16DecodeKeyRangeSplits) {
  absl::StatusOr<BlockMask> mask = BlockMask::Dense(1, 1000, 64);
  ASSERT_TRUE(mask.ok()) << mask.status();
  KernelConfig config = Config(64, 64, 4, 2);
  config["KV_SPLITS"] = 4;
  EmulatedRun run{Make(DType::kF16, 8, 2, 1, 1000, 128), config, "sm_90a",
                  "jitk::sparse_attn_split_fwd<64, 64, 4, 2, 128, jitk::f16, 0, 3>"};
  RunEmulated<E>(&WgmmaFwd<64, 64, 4, 2, 128, f16, 0, true>, run, *mask);
}

// A sliding-window decode step at the last key: four heads packed as rows
// of one 64-row tile, the window's key tiles split over three ranges; and
// under a window of the query's own key, which leaves one range at launch,
// one pass of the split kernel, which writes o and lse.
TEST(EmulatedWgmmaTest, F16SlidingDecodePackedKeyRangeSplits) {
  absl::StatusOr<BlockMask> mask = BlockMask::SlidingWindow(1, 1000, 300, 0, true, 64, 999);
  ASSERT_TRUE(mask.ok()) << mask.status();
  KernelConfig config = Config(64, 64, 4, 2);
  config["KV_SPLITS"] = 3;
  EmulatedRun run{Make(DType::kF16, 8, 2, 1, 1000, 64), config, "sm_90a",
                  "jitk::sparse_attn_split_fwd<64, 64, 4, 2, 64, jitk::f16, 2, 3>"};
  run.expected_heads_q = 2;
  RunEmulated<E>(&WgmmaFwd<64, 64, 4, 2, 64, f16, 2, true>, run, *mask);
  absl::StatusOr<BlockMask> narrow = BlockMask::SlidingWindow(1, 1000, 1, 0, true, 64, 999);
  ASSERT_TRUE(narrow.ok()) << narrow.status();
  run.problem.batch = 2;  // block z is the batch, not a range
  run.expected_launches = 1;
  RunEmulated<E>(&WgmmaFwd<64, 64, 4, 2, 64, f16, 2, true>, run, *narrow);
}

// A decode step whose window crosses one more 128-token mask block than
// its 64-key tiles show: 257 keys to key 999 touch blocks 5-7, six tiles the
// kernel walks, where the window's worst count is five. Split, the launch
// takes a range per tile it visits. Split or not, the copies leave out the
// keys of block 5 below the window (640-742), which no row sees, so that
// stale or uninitialized K / V there (NaN here) never reaches O.
TEST(EmulatedWgmmaTest, F16SlidingDecodeOverWholeMaskBlocks) {
  absl::StatusOr<BlockMask> mask = BlockMask::SlidingWindow(1, 1000, 257, 0, true, 128, 999);
  ASSERT_TRUE(mask.ok()) << mask.status();
  for (int splits : {1, 8}) {
    SCOPED_TRACE(splits);
    KernelConfig config = Config(64, 64, 4, 2);
    config["KV_SPLITS"] = splits;
    const bool split = splits > 1;
    EmulatedRun run{Make(DType::kF16, 8, 2, 1, 1000, 64), config, "sm_90a",
                    split ? "jitk::sparse_attn_split_fwd<64, 64, 4, 2, 64, jitk::f16, 2, 3>"
                          : "jitk::sparse_attn_fwd<64, 64, 4, 2, 64, jitk::f16, 2, 3>"};
    run.expected_heads_q = 2;
    run.expected_kv_splits = split ? 6 : 1;
    run.nan_keys_from = 640;
    run.nan_keys_to = 999 - 257 + 1;
    RunEmulated<E>(split ? &WgmmaFwd<64, 64, 4, 2, 64, f16, 2, true>
                         : &WgmmaFwd<64, 64, 4, 2, 64, f16, 2, false>,
                   run, *mask);
  }
}

// 200 keys to key 959 (the last): blocks 5-7, six tiles walked, a range
// each, whatever the order of the block list: the blocks listed from the
// lowest and from the highest (as torch could pass them), a mask that lists
// blocks 6 and 7 only (two of its ranges stay empty), and four rows packed
// (positions 956-959) give the reference's O, with the keys no row sees
// (NaN here) never read.
TEST(EmulatedWgmmaTest, F16SlidingDecodeOfAnyBlockList) {
  const ElementMask window{MaskMod::kSlidingWindowCausal, 200, 0, 959};
  absl::StatusOr<BlockMask> mask = BlockMask::SlidingWindow(1, 960, 200, 0, true, 128, 959);
  ASSERT_TRUE(mask.ok()) << mask.status();
  KernelConfig config = Config(64, 64, 4, 2);
  config["KV_SPLITS"] = 8;
  EmulatedRun run{Make(DType::kF16, 8, 2, 1, 960, 64), config, "sm_90a",
                  "jitk::sparse_attn_split_fwd<64, 64, 4, 2, 64, jitk::f16, 2, 3>"};
  run.expected_heads_q = 2;
  run.expected_kv_splits = 6;
  run.nan_keys_from = 640;
  run.nan_keys_to = 760;
  auto* split_fwd = &WgmmaFwd<64, 64, 4, 2, 64, f16, 2, true>;
  RunEmulated<E>(split_fwd, run, *mask);
  const RawBlockLists highest_first{{3}, {7, 6, 5, 0, 0, 0, 0, 0}};
  RunEmulated<E>(split_fwd, run, *mask, &highest_first);

  absl::StatusOr<BlockMask> two_blocks =
      BlockMask::FromIndices(1, 1, 1, 960, 128, {2}, {6, 7, 0, 0, 0, 0, 0, 0}, {}, {}, window);
  ASSERT_TRUE(two_blocks.ok()) << two_blocks.status();
  run.nan_keys_to = 768;
  RunEmulated<E>(split_fwd, run, *two_blocks);

  absl::StatusOr<BlockMask> four_rows = BlockMask::SlidingWindow(4, 960, 200, 0, true, 128, 956);
  ASSERT_TRUE(four_rows.ok()) << four_rows.status();
  run.problem.len_q = 4;
  run.nan_keys_to = 757;
  RunEmulated<E>(split_fwd, run, *four_rows);
}

// The persistent grid's one pass (heads unpacked) under a window of the
// query's own key: O out by tensor stores into o.
TEST(EmulatedWgmmaTest, WsF16SlidingDecodeOfOneKeyTileInOnePass) {
  absl::StatusOr<BlockMask> mask = BlockMask::SlidingWindow(1, 1000, 1, 0, true, 64, 999);
  ASSERT_TRUE(mask.ok()) << mask.status();
  KernelConfig config = Config(64, 64, 8, 2);
  config["KV_SPLITS"] = 4;
  EmulatedRun run{Make(DType::kF16, 8, 2, 1, 1000, 64), config, "sm_90a",
                  "jitk::sparse_attn_ws_split_fwd<64, 64, 8, 2, 64, jitk::f16, 2>"};
  run.problem.batch = 2;  // block z is the batch, not a range
  run.compute_units = 2;
  run.expected_launches = 1;
  RunEmulated<E, Maps>(&WgmmaWsFwd<64, 64, 8, 2, 64, f16, 2, true>, run, *mask);
}

// Four speculative tokens at the end of the keys under a sliding window: a
// group's four heads of four rows packed as 16 rows of one 64-row tile,
// packed row r at position 996 + r mod 4, each row its own window.
TEST(EmulatedWgmmaTest, F16SlidingStepOfFourRowsPacked) {
  absl::StatusOr<BlockMask> mask = BlockMask::SlidingWindow(4, 1000, 300, 0, true, 64, 996);
  ASSERT_TRUE(mask.ok()) << mask.status();
  KernelConfig config = Config(64, 64, 4, 2);
  config["KV_SPLITS"] = 3;
  EmulatedRun run{Make(DType::kF16, 8, 2, 4, 1000, 64), config, "sm_90a",
                  "jitk::sparse_attn_split_fwd<64, 64, 4, 2, 64, jitk::f16, 2, 3>"};
  run.expected_heads_q = 2;
  RunEmulated<E>(&WgmmaFwd<64, 64, 4, 2, 64, f16, 2, true>, run, *mask);
}

// A causal prefill chunk at the end of the keys (q_offset 130) on the
// persistent engine: its corner tests and masks see positions, not rows.
TEST(EmulatedWgmmaTest, WsF16CausalChunkAtTheEndOfTheKeys) {
  absl::StatusOr<BlockMask> mask = BlockMask::Causal(200, 330, 128, 130);
  ASSERT_TRUE(mask.ok()) << mask.status();
  EmulatedRun run{Make(DType::kF16, 2, 1, 200, 330, 64), Config(128, 128, 12, 3), "sm_90a",
                  "jitk::sparse_attn_ws_fwd<128, 128, 12, 3, 64, jitk::f16, 1>"};
  run.compute_units = 2;
  RunEmulated<E, Maps>(&WgmmaWsFwd<128, 128, 12, 3, 64, f16, 1>, run, *mask);
}

// The same chunk split over three key ranges on the persistent grid: each
// block walks (query tile, range) items, its O going out by tensor stores
// into the partial results in the scratch, then the combine pass.
TEST(EmulatedWgmmaTest, WsF16CausalChunkKeyRangeSplits) {
  absl::StatusOr<BlockMask> mask = BlockMask::Causal(200, 900, 128, 700);
  ASSERT_TRUE(mask.ok()) << mask.status();
  KernelConfig config = Config(128, 128, 12, 3);
  config["KV_SPLITS"] = 3;
  EmulatedRun run{Make(DType::kF16, 2, 1, 200, 900, 64), config, "sm_90a",
                  "jitk::sparse_attn_ws_split_fwd<128, 128, 12, 3, 64, jitk::f16, 1>"};
  run.problem.batch = 2;
  run.compute_units = 5;
  RunEmulated<E, Maps>(&WgmmaWsFwd<128, 128, 12, 3, 64, f16, 1, true>, run, *mask);
}

TEST(EmulatedWgmmaTest, WsF16CausalGqaPersistent) {
  absl::StatusOr<BlockMask> mask = BlockMask::Causal(300, 300, 128);
  ASSERT_TRUE(mask.ok()) << mask.status();
  EmulatedRun run{Make(DType::kF16, 2, 1, 300, 300, 128), Config(128, 128, 12, 3), "sm_90a",
                  "jitk::sparse_attn_ws_fwd<128, 128, 12, 3, 128, jitk::f16, 1>"};
  run.problem.batch = 2;
  run.compute_units = 3;
  RunEmulated<E, Maps>(&WgmmaWsFwd<128, 128, 12, 3, 128, f16, 1>, run, *mask);
}

// Rank-major order on the persistent grid: two heads of six query tiles
// over eight blocks, where head-major rounds would give two blocks a long
// tile each round (QueryTileWalk).
TEST(EmulatedWgmmaTest, WsF16CausalRankMajorWalk) {
  absl::StatusOr<BlockMask> mask = BlockMask::Causal(768, 768, 128);
  ASSERT_TRUE(mask.ok()) << mask.status();
  EmulatedRun run{Make(DType::kF16, 2, 1, 768, 768, 64), Config(128, 128, 12, 3), "sm_90a",
                  "jitk::sparse_attn_ws_fwd<128, 128, 12, 3, 64, jitk::f16, 1>"};
  run.compute_units = 8;
  run.expected_tile_order = attn::kOrderRankMajor;
  RunEmulated<E, Maps>(&WgmmaWsFwd<128, 128, 12, 3, 64, f16, 1>, run, *mask);
}

// A decode step at the default tiles: one query row per head against 300
// keys, so Q's copy, the staged O and its store cover 127 rows past the end.
TEST(EmulatedWgmmaTest, WsBf16DecodeOneQueryRow) {
  absl::StatusOr<BlockMask> mask = BlockMask::Dense(1, 300, 128);
  ASSERT_TRUE(mask.ok()) << mask.status();
  EmulatedRun run{Make(DType::kBF16, 4, 2, 1, 300, 128), Config(128, 128, 12, 3), "sm_90a",
                  "jitk::sparse_attn_ws_fwd<128, 128, 12, 3, 128, jitk::bf16, 0>"};
  run.compute_units = 2;
  RunEmulated<E, Maps>(&WgmmaWsFwd<128, 128, 12, 3, 128, bf16, 0>, run, *mask);
}

// One consumer warpgroup (two blocks per SM), 64-token blocks, a sliding
// window with global tokens: partial and full tiles.
TEST(EmulatedWgmmaTest, WsBf16SlidingWindowOneConsumer) {
  absl::StatusOr<BlockMask> mask = BlockMask::SlidingWindow(320, 320, 70, 64, true, 64);
  ASSERT_TRUE(mask.ok()) << mask.status();
  EmulatedRun run{Make(DType::kBF16, 2, 2, 320, 320, 64), Config(64, 64, 8, 3), "sm_90a",
                  "jitk::sparse_attn_ws_fwd<64, 64, 8, 3, 64, jitk::bf16, 2>"};
  run.compute_units = 2;
  RunEmulated<E, Maps>(&WgmmaWsFwd<64, 64, 8, 3, 64, bf16, 2>, run, *mask);
}

// 64-key tiles under 128-row query tiles: O leaves from registers, not
// through a K buffer; two stages.
TEST(EmulatedWgmmaTest, WsF16DenseRegisterStores) {
  absl::StatusOr<BlockMask> mask = BlockMask::Dense(200, 130, 128);
  ASSERT_TRUE(mask.ok()) << mask.status();
  EmulatedRun run{Make(DType::kF16, 1, 1, 200, 130, 64), Config(128, 64, 12, 2), "sm_90a",
                  "jitk::sparse_attn_ws_fwd<128, 64, 12, 2, 64, jitk::f16, 0>"};
  run.compute_units = 1;
  RunEmulated<E, Maps>(&WgmmaWsFwd<128, 64, 12, 2, 64, f16, 0>, run, *mask);
}

// 64-row query tiles under 128-key tiles: O staged through a K buffer wider
// than its rows (boxes of BLOCK_M rows in a BLOCK_N-row buffer).
TEST(EmulatedWgmmaTest, WsBf16StagedNarrowQueryTiles) {
  absl::StatusOr<BlockMask> mask = BlockMask::Causal(200, 600, 128);
  ASSERT_TRUE(mask.ok()) << mask.status();
  EmulatedRun run{Make(DType::kBF16, 1, 1, 200, 600, 128), Config(64, 128, 8, 2), "sm_90a",
                  "jitk::sparse_attn_ws_fwd<64, 128, 8, 2, 128, jitk::bf16, 1>"};
  run.compute_units = 1;
  RunEmulated<E, Maps>(&WgmmaWsFwd<64, 128, 8, 2, 128, bf16, 1>, run, *mask);
}

// Two consumer warpgroups, O staged, a query tile with no key tile (its
// rows written empty, nothing copied for it) and one with four key tiles
// over two stages, so the copying thread waits on the stages' "empty"
// barriers within a query tile.
TEST(EmulatedWgmmaTest, WsF16EmptyQueryTileAndStageRing) {
  // Query blocks 0..3 see key blocks {2, 0}, {}, {3, 0, 1, 2} and {1}.
  absl::StatusOr<BlockMask> mask = BlockMask::FromIndices(
      1, 1, 500, 480, 128, {2, 0, 4, 1}, {2, 0, 0, 0, 0, 0, 0, 0, 3, 0, 1, 2, 1, 0, 0, 0}, {}, {});
  ASSERT_TRUE(mask.ok()) << mask.status();
  EmulatedRun run{Make(DType::kF16, 1, 1, 500, 480, 64), Config(128, 128, 12, 2), "sm_90a",
                  "jitk::sparse_attn_ws_fwd<128, 128, 12, 2, 64, jitk::f16, 0>"};
  run.compute_units = 1;
  RunEmulated<E, Maps>(&WgmmaWsFwd<128, 128, 12, 2, 64, f16, 0>, run, *mask);
}

// The same walk with one consumer warpgroup, which holds Q in registers and
// frees its buffer at the start of each query tile: 64-token blocks, a
// query tile with no key tile between ones with two and four, two stages.
TEST(EmulatedWgmmaTest, WsBf16EmptyQueryTileOneConsumer) {
  // Query blocks 0..3 see key blocks {2, 0}, {}, {3, 0, 1, 2} and {1}.
  absl::StatusOr<BlockMask> mask = BlockMask::FromIndices(
      1, 1, 250, 240, 64, {2, 0, 4, 1}, {2, 0, 0, 0, 0, 0, 0, 0, 3, 0, 1, 2, 1, 0, 0, 0}, {}, {});
  ASSERT_TRUE(mask.ok()) << mask.status();
  EmulatedRun run{Make(DType::kBF16, 1, 1, 250, 240, 128), Config(64, 64, 8, 2), "sm_90a",
                  "jitk::sparse_attn_ws_fwd<64, 64, 8, 2, 128, jitk::bf16, 0>"};
  run.compute_units = 1;
  RunEmulated<E, Maps>(&WgmmaWsFwd<64, 64, 8, 2, 128, bf16, 0>, run, *mask);
}

// The same walk split over three key ranges: ranges with no key tile (all
// three of query block 1's, two of block 3's) write empty partial rows,
// which the combine weighs nothing (and block 1's rows come out empty).
TEST(EmulatedWgmmaTest, WsBf16EmptyKeyRangesOneConsumer) {
  absl::StatusOr<BlockMask> mask = BlockMask::FromIndices(
      1, 1, 250, 240, 64, {2, 0, 4, 1}, {2, 0, 0, 0, 0, 0, 0, 0, 3, 0, 1, 2, 1, 0, 0, 0}, {}, {});
  ASSERT_TRUE(mask.ok()) << mask.status();
  KernelConfig config = Config(64, 64, 8, 2);
  config["KV_SPLITS"] = 3;
  EmulatedRun run{Make(DType::kBF16, 1, 1, 250, 240, 128), config, "sm_90a",
                  "jitk::sparse_attn_ws_split_fwd<64, 64, 8, 2, 128, jitk::bf16, 0>"};
  run.compute_units = 2;
  RunEmulated<E, Maps>(&WgmmaWsFwd<64, 64, 8, 2, 128, bf16, 0, true>, run, *mask);
}

}  // namespace
}  // namespace jitk::attn_test
