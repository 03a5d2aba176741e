// The sparse_attn template compiled by g++ for 64-lane waves and run on the
// SIMT emulator: the AMD MFMA engine (register layouts of the CDNA ISA)
// and the FMA engine at wave64, against the fp64 reference.
#include "tests/lib/attention/emulated_runner.h"

#define jitk jitk_emu64
#define __HIP__ 1
#define __AMDGCN_WAVEFRONT_SIZE 64
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

using E = jitk_emu64::SparseAttnParams;

TEST(EmulatedWave64Test, MfmaF16CausalOddLengths) {
  absl::StatusOr<BlockMask> mask = BlockMask::Causal(100, 100, 64);
  ASSERT_TRUE(mask.ok()) << mask.status();
  EmulatedRun run{Make(DType::kF16, 2, 1, 100, 100, 64), Config(64, 32, 2, 1), "gfx90a",
                  "jitk::sparse_attn_fwd<64, 32, 2, 1, 64, jitk::f16, 1, 2>"};
  RunEmulated<E>(&jitk_emu64::sparse_attn_fwd<64, 32, 2, 1, 64, jitk_emu64::f16, 1, 2>, run, *mask);
}

TEST(EmulatedWave64Test, MfmaBf16SlidingWindowGqaBlhd) {
  absl::StatusOr<BlockMask> mask = BlockMask::SlidingWindow(70, 100, 24, 4, true, 32);
  ASSERT_TRUE(mask.ok()) << mask.status();
  EmulatedRun run{Make(DType::kBF16, 4, 2, 70, 100, 32, /*blhd=*/true), Config(32, 32, 1, 1),
                  "gfx90a", "jitk::sparse_attn_fwd<32, 32, 1, 1, 32, jitk::bf16, 2, 2>"};
  RunEmulated<E>(&jitk_emu64::sparse_attn_fwd<32, 32, 1, 1, 32, jitk_emu64::bf16, 2, 2>, run,
                 *mask);
}

// The two-sided window on the MFMA engine (one query row per lane): one that
// ends inside the keys, and one wider than both lengths.
TEST(EmulatedWave64Test, MfmaF16SlidingBidirectional) {
  for (int window : {29, 1000}) {
    absl::StatusOr<BlockMask> mask = BlockMask::SlidingWindow(100, 120, window, 5, false, 32);
    ASSERT_TRUE(mask.ok()) << mask.status();
    EmulatedRun run{Make(DType::kF16, 1, 1, 100, 120, 32), Config(32, 32, 1, 1), "gfx90a",
                    "jitk::sparse_attn_fwd<32, 32, 1, 1, 32, jitk::f16, 3, 2>"};
    RunEmulated<E>(&jitk_emu64::sparse_attn_fwd<32, 32, 1, 1, 32, jitk_emu64::f16, 3, 2>, run,
                   *mask);
  }
}

TEST(EmulatedWave64Test, MfmaF16BigBirdWideTile) {
  BlockMask::BigBirdOptions opts;
  opts.block_size = 64;
  opts.window_blocks = 1;
  opts.global_blocks = 1;
  opts.random_blocks = 1;
  absl::StatusOr<BlockMask> mask = BlockMask::BigBird(2, 200, 200, opts);
  ASSERT_TRUE(mask.ok()) << mask.status();
  EmulatedRun run{Make(DType::kF16, 2, 2, 200, 200, 32), Config(64, 64, 2, 1), "gfx90a",
                  "jitk::sparse_attn_fwd<64, 64, 2, 1, 32, jitk::f16, 0, 2>"};
  RunEmulated<E>(&jitk_emu64::sparse_attn_fwd<64, 64, 2, 1, 32, jitk_emu64::f16, 0, 2>, run, *mask);
}

// STAGES = 2 stages the next K / V tile in registers (sparse_attn_staged.h).
// A causal diagonal block of 64 rows in 32-key tiles: wave 0 masks the
// first tile and skips the second, wave 1 sees the first whole and masks
// the second; 130 keys end inside a tile.
TEST(EmulatedWave64Test, MfmaF16CausalStaged) {
  absl::StatusOr<BlockMask> mask = BlockMask::Causal(130, 130, 64);
  ASSERT_TRUE(mask.ok()) << mask.status();
  EmulatedRun run{Make(DType::kF16, 2, 1, 130, 130, 64), Config(64, 32, 2, 2), "gfx90a",
                  "jitk::sparse_attn_fwd<64, 32, 2, 2, 64, jitk::f16, 1, 2>"};
  RunEmulated<E>(&jitk_emu64::sparse_attn_fwd<64, 32, 2, 2, 64, jitk_emu64::f16, 1, 2>, run, *mask);
}

// The default CDNA config (128x64, four waves, staged) at d = 128, BLHD,
// with a sliding window and global tokens across several key tiles.
TEST(EmulatedWave64Test, MfmaBf16SlidingStagedDefaultTiles) {
  absl::StatusOr<BlockMask> mask = BlockMask::SlidingWindow(200, 260, 70, 6, true, 128);
  ASSERT_TRUE(mask.ok()) << mask.status();
  EmulatedRun run{Make(DType::kBF16, 2, 2, 200, 260, 128, /*blhd=*/true), Config(128, 64, 4, 2),
                  "gfx90a", "jitk::sparse_attn_fwd<128, 64, 4, 2, 128, jitk::bf16, 2, 2>"};
  RunEmulated<E>(&jitk_emu64::sparse_attn_fwd<128, 64, 4, 2, 128, jitk_emu64::bf16, 2, 2>, run,
                 *mask);
}

// A causal prefill chunk at the end of the keys (q_offset 90), staged: a
// wave's corner tests see positions, its diagonal off the blocks' corners.
TEST(EmulatedWave64Test, MfmaF16CausalChunkAtTheEndOfTheKeys) {
  absl::StatusOr<BlockMask> mask = BlockMask::Causal(100, 190, 64, 90);
  ASSERT_TRUE(mask.ok()) << mask.status();
  EmulatedRun run{Make(DType::kF16, 2, 1, 100, 190, 64), Config(64, 32, 2, 2), "gfx90a",
                  "jitk::sparse_attn_fwd<64, 32, 2, 2, 64, jitk::f16, 1, 2>"};
  RunEmulated<E>(&jitk_emu64::sparse_attn_fwd<64, 32, 2, 2, 64, jitk_emu64::f16, 1, 2>, run, *mask);
}

// The same chunk longer, at gfx942's defaults: four query tiles against 2000
// keys leave the CUs idle, so the staged MFMA tiles split the key ranges
// (DefaultKvSplits), the diagonal in the last range.
TEST(EmulatedWave64Test, MfmaF16PrefillChunkDefaultSplits) {
  absl::StatusOr<BlockMask> mask = BlockMask::Causal(200, 2000, 128, 1800);
  ASSERT_TRUE(mask.ok()) << mask.status();
  const Problem problem = Make(DType::kF16, 2, 1, 200, 2000, 64);
  absl::StatusOr<ArchInfo> arch = LookupArch("gfx942");
  ASSERT_TRUE(arch.ok()) << arch.status();
  const KernelConfig config = internal::SparseAttnKernelTemplate().DefaultConfig(
      mask->AttentionShape(problem.dtype, problem.batch, problem.heads_q, problem.heads_kv,
                           problem.head_dim),
      *arch);
  EXPECT_EQ(KernelConfigToString(config), "BLOCK_M=128,BLOCK_N=64,KV_SPLITS=8,STAGES=2,WAVES=4");
  EmulatedRun run{problem, config, "gfx942",
                  "jitk::sparse_attn_split_fwd<128, 64, 4, 2, 64, jitk::f16, 1, 2>"};
  RunEmulated<E>(&jitk_emu64::sparse_attn_split_fwd<128, 64, 4, 2, 64, jitk_emu64::f16, 1, 2>,
                 run, *mask);
}

// A decode step: one query row per head against 300 keys, the rest of the
// 128-row query tile past the end.
TEST(EmulatedWave64Test, MfmaF16DecodeOneQueryRow) {
  absl::StatusOr<BlockMask> mask = BlockMask::Dense(1, 300, 128);
  ASSERT_TRUE(mask.ok()) << mask.status();
  EmulatedRun run{Make(DType::kF16, 2, 1, 1, 300, 128), Config(128, 64, 4, 2), "gfx90a",
                  "jitk::sparse_attn_fwd<128, 64, 4, 2, 128, jitk::f16, 0, 2>"};
  RunEmulated<E>(&jitk_emu64::sparse_attn_fwd<128, 64, 4, 2, 128, jitk_emu64::f16, 0, 2>, run,
                 *mask);
}

// The same step split over key ranges (sparse_attn_split.h), staged and
// unstaged: 10 key tiles of 32 over 4 ranges, two batches.
TEST(EmulatedWave64Test, MfmaBf16DecodeKeyRangeSplits) {
  absl::StatusOr<BlockMask> mask = BlockMask::Dense(1, 300, 64);
  ASSERT_TRUE(mask.ok()) << mask.status();
  KernelConfig config = Config(64, 32, 2, 2);
  config["KV_SPLITS"] = 4;
  EmulatedRun run{Make(DType::kBF16, 4, 2, 1, 300, 64), config, "gfx90a",
                  "jitk::sparse_attn_split_fwd<64, 32, 2, 2, 64, jitk::bf16, 0, 2>"};
  run.problem.batch = 2;
  RunEmulated<E>(&jitk_emu64::sparse_attn_split_fwd<64, 32, 2, 2, 64, jitk_emu64::bf16, 0, 2>,
                 run, *mask);
  config["STAGES"] = 1;
  run.config = config;
  run.expected_name = "jitk::sparse_attn_split_fwd<64, 32, 2, 1, 64, jitk::bf16, 0, 2>";
  RunEmulated<E>(&jitk_emu64::sparse_attn_split_fwd<64, 32, 2, 1, 64, jitk_emu64::bf16, 0, 2>,
                 run, *mask);
}

// A decode step whose window starts inside a mask block: the copies leave
// out its keys below the window (640-742 of 640-767), NaN here, staged and
// unstaged, split and not.
TEST(EmulatedWave64Test, MfmaF16SlidingDecodeCopiesNoKeyBelowTheWindow) {
  absl::StatusOr<BlockMask> mask = BlockMask::SlidingWindow(1, 1000, 257, 0, true, 128, 999);
  ASSERT_TRUE(mask.ok()) << mask.status();
  EmulatedRun run{Make(DType::kF16, 8, 2, 1, 1000, 64), Config(64, 32, 2, 2), "gfx90a",
                  "jitk::sparse_attn_fwd<64, 32, 2, 2, 64, jitk::f16, 2, 2>"};
  run.nan_keys_from = 640;
  run.nan_keys_to = 999 - 257 + 1;
  RunEmulated<E>(&jitk_emu64::sparse_attn_fwd<64, 32, 2, 2, 64, jitk_emu64::f16, 2, 2>, run, *mask);
  run.config["STAGES"] = 1;
  run.config["KV_SPLITS"] = 4;
  run.expected_name = "jitk::sparse_attn_split_fwd<64, 32, 2, 1, 64, jitk::f16, 2, 2>";
  RunEmulated<E>(&jitk_emu64::sparse_attn_split_fwd<64, 32, 2, 1, 64, jitk_emu64::f16, 2, 2>, run,
                 *mask);
}

// Staged, unvalidated block lists: a query block with none (zeros, LSE
// -inf) and indices past the keys (read as masked keys). One wave at
// d = 128 stores two 4 x 8 units of V^T per thread.
TEST(EmulatedWave64Test, MfmaF16StagedEmptyAndOutOfRangeBlocks) {
  const int len = 96, block = 32, n = 3;
  std::vector<int32_t> counts = {2, 0, 2}, indices(n * n, 0);
  indices[0 * n + 1] = 2;
  indices[2 * n + 0] = 1;
  indices[2 * n + 1] = 2;
  absl::StatusOr<BlockMask> mask = BlockMask::FromIndices(1, 1, len, len, block, counts, indices,
                                                          {}, {}, ElementMask{MaskMod::kNone, 0, 0});
  ASSERT_TRUE(mask.ok()) << mask.status();
  RawBlockLists raw{{3, 0, 3}, indices};
  raw.kv_indices[0 * n + 2] = n;        // past the keys
  raw.kv_indices[2 * n + 2] = 1 << 27;  // * 32 wraps to 0
  EmulatedRun run{Make(DType::kF16, 1, 1, len, len, 128), Config(32, 32, 1, 2), "gfx90a",
                  "jitk::sparse_attn_fwd<32, 32, 1, 2, 128, jitk::f16, 0, 2>"};
  RunEmulated<E>(&jitk_emu64::sparse_attn_fwd<32, 32, 1, 2, 128, jitk_emu64::f16, 0, 2>, run,
                 *mask, &raw);
}

// d = 96: K rows of 12 chunks over 256 threads (1.5 per thread), V in 4 x 8
// units (96 over 256 threads).
TEST(EmulatedWave64Test, MfmaF16HeadDim96Staged) {
  absl::StatusOr<BlockMask> mask = BlockMask::Causal(150, 150, 128);
  ASSERT_TRUE(mask.ok()) << mask.status();
  EmulatedRun run{Make(DType::kF16, 1, 1, 150, 150, 96), Config(128, 32, 4, 2), "gfx90a",
                  "jitk::sparse_attn_fwd<128, 32, 4, 2, 96, jitk::f16, 1, 2>"};
  RunEmulated<E>(&jitk_emu64::sparse_attn_fwd<128, 32, 4, 2, 96, jitk_emu64::f16, 1, 2>, run,
                 *mask);
}

TEST(EmulatedWave64Test, FmaF32DenseWave64) {
  absl::StatusOr<BlockMask> mask = BlockMask::Dense(40, 50, 16);
  ASSERT_TRUE(mask.ok()) << mask.status();
  EmulatedRun run{Make(DType::kF32, 1, 1, 40, 50, 32), Config(16, 16, 2, 1), "gfx90a",
                  "jitk::sparse_attn_fwd<16, 16, 2, 1, 32, float, 0, 0>"};
  RunEmulated<E>(&jitk_emu64::sparse_attn_fwd<16, 16, 2, 1, 32, float, 0, 0>, run, *mask);
}

TEST(EmulatedWave64Test, FmaBf16Gfx908HasNoBf16Mfma) {
  absl::StatusOr<BlockMask> mask = BlockMask::Causal(40, 40, 32);
  ASSERT_TRUE(mask.ok()) << mask.status();
  EmulatedRun run{Make(DType::kBF16, 1, 1, 40, 40, 64), Config(32, 16, 2, 1), "gfx908",
                  "jitk::sparse_attn_fwd<32, 16, 2, 1, 64, jitk::bf16, 1, 0>"};
  RunEmulated<E>(&jitk_emu64::sparse_attn_fwd<32, 16, 2, 1, 64, jitk_emu64::bf16, 1, 0>, run,
                 *mask);
}

}  // namespace
}  // namespace jitk::attn_test
