#include "jitk/block_mask.h"

#include <cstdint>
#include <functional>
#include <set>
#include <vector>

#include "gmock/gmock.h"
#include "gtest/gtest.h"
#include "tests/testing/status_matchers.h"

namespace jitk {
namespace {

using ::jitk::testing::IsOk;
using ::jitk::testing::StatusIs;
using ::testing::HasSubstr;

// Every (q, k) of every mask row against the intended element predicate.
void ExpectAllows(const BlockMask& mask, int heads,
                  const std::function<bool(int h, int q, int k)>& want) {
  for (int h = 0; h < heads; ++h) {
    for (int q = 0; q < mask.len_q(); ++q) {
      for (int k = 0; k < mask.len_k(); ++k) {
        ASSERT_EQ(mask.Allows(0, h, q, k), want(h, q, k)) << "h=" << h << " q=" << q << " k=" << k;
      }
    }
  }
}

int FullCount(const BlockMask& m, int row) { return m.full_kv_num_blocks()[row]; }
int PartialCount(const BlockMask& m, int row) { return m.kv_num_blocks()[row]; }

TEST(BlockMaskTest, DenseIsAllFull) {
  absl::StatusOr<BlockMask> mask = BlockMask::Dense(100, 300, 64);
  ASSERT_THAT(mask, IsOk());
  EXPECT_EQ(mask->layout(), AttentionLayout::kDense);
  EXPECT_EQ(mask->num_q_blocks(), 2);
  EXPECT_EQ(mask->num_kv_blocks(), 5);
  for (int qb = 0; qb < 2; ++qb) {
    EXPECT_EQ(PartialCount(*mask, qb), 0);
    EXPECT_EQ(FullCount(*mask, qb), 5);
  }
  EXPECT_DOUBLE_EQ(mask->Density(), 1.0);
  ExpectAllows(*mask, 1, [](int, int, int) { return true; });
}

TEST(BlockMaskTest, CausalHasOnePartialBlockPerRow) {
  absl::StatusOr<BlockMask> mask = BlockMask::Causal(256, 256, 64);
  ASSERT_THAT(mask, IsOk());
  for (int qb = 0; qb < 4; ++qb) {
    EXPECT_EQ(PartialCount(*mask, qb), 1) << qb;  // the diagonal
    EXPECT_EQ(mask->kv_indices()[qb * 4], qb);
    EXPECT_EQ(FullCount(*mask, qb), qb);  // everything left of it
  }
  EXPECT_EQ(mask->VisitedBlocks(), 10);
  ExpectAllows(*mask, 1, [](int, int q, int k) { return k <= q; });
}

TEST(BlockMaskTest, CausalOddLengthsTopLeftAligned) {
  absl::StatusOr<BlockMask> mask = BlockMask::Causal(70, 100, 32);
  ASSERT_THAT(mask, IsOk());
  ExpectAllows(*mask, 1, [](int, int q, int k) { return k <= q; });
}

// A prefill chunk at the end of a KV cache: query row q at key q + 130.
TEST(BlockMaskTest, CausalQueriesAtTheEndOfTheKeys) {
  absl::StatusOr<BlockMask> mask = BlockMask::Causal(70, 200, 32, 130);
  ASSERT_THAT(mask, IsOk());
  EXPECT_EQ(mask->element_mask().q_offset, 130);
  ExpectAllows(*mask, 1, [](int, int q, int k) { return k <= q + 130; });
  // A decode step at the last key sees every key: full blocks only.
  absl::StatusOr<BlockMask> decode = BlockMask::Causal(1, 200, 32, 199);
  ASSERT_THAT(decode, IsOk());
  EXPECT_EQ(PartialCount(*decode, 0), 0);
  EXPECT_EQ(FullCount(*decode, 0), 7);
  ExpectAllows(*decode, 1, [](int, int, int) { return true; });
}

TEST(BlockMaskTest, SlidingWindowDecodeStep) {
  const int w = 50, g = 4;
  absl::StatusOr<BlockMask> mask = BlockMask::SlidingWindow(1, 300, w, g, true, 16, 299);
  ASSERT_THAT(mask, IsOk());
  ExpectAllows(*mask, 1, [&](int, int, int k) { return k < g || 299 - k < w; });
  EXPECT_EQ(mask->VisitedBlocks(), 5) << "the global block and the window's four";
}

TEST(BlockMaskTest, QueryOffsetLiesAmongTheKeys) {
  EXPECT_THAT(
      BlockMask::Causal(10, 100, 16, 101),
      StatusIs(absl::StatusCode::kInvalidArgument, "q_offset=101 must be in [0, len_k=100]"));
  EXPECT_THAT(BlockMask::SlidingWindow(10, 100, 8, 0, true, 16, -1),
              StatusIs(absl::StatusCode::kInvalidArgument, "q_offset=-1"));
  EXPECT_THAT(BlockMask::Causal(10, 100, 16, 100), IsOk());
}

TEST(BlockMaskTest, SlidingWindowCausalWithGlobalTokens) {
  const int w = 40, g = 8;
  absl::StatusOr<BlockMask> mask = BlockMask::SlidingWindow(200, 200, w, g, true, 32);
  ASSERT_THAT(mask, IsOk());
  EXPECT_EQ(mask->element_mask().kind, MaskMod::kSlidingWindowCausal);
  ExpectAllows(*mask, 1, [&](int, int q, int k) { return k <= q && (q - k < w || k < g); });
  // Far from the diagonal and the global tokens, blocks are skipped.
  EXPECT_LT(mask->Density(), 0.6);
}

TEST(BlockMaskTest, SlidingWindowBidirectional) {
  const int w = 20, g = 5;
  absl::StatusOr<BlockMask> mask = BlockMask::SlidingWindow(130, 110, w, g, false, 16);
  ASSERT_THAT(mask, IsOk());
  EXPECT_EQ(mask->element_mask().kind, MaskMod::kSlidingWindow);
  ExpectAllows(*mask, 1,
               [&](int, int q, int k) { return q < g || k < g || (q - k < w && k - q < w); });
}

TEST(BlockMaskTest, BigBirdRowsHaveWindowGlobalAndRandomBlocks) {
  BlockMask::BigBirdOptions opts;
  opts.block_size = 16;
  opts.window_blocks = 3;
  opts.global_blocks = 1;
  opts.random_blocks = 2;
  opts.seed = 7;
  absl::StatusOr<BlockMask> mask = BlockMask::BigBird(3, 160, 160, opts);
  ASSERT_THAT(mask, IsOk());
  EXPECT_EQ(mask->heads(), 3);
  const int nqb = 10, nkb = 10;
  bool heads_differ = false;
  for (int h = 0; h < 3; ++h) {
    for (int qb = 0; qb < nqb; ++qb) {
      const int row = h * nqb + qb;
      EXPECT_EQ(PartialCount(*mask, row), 0);
      std::set<int> blocks;
      for (int i = 0; i < FullCount(*mask, row); ++i) {
        blocks.insert(mask->full_kv_indices()[row * nkb + i]);
      }
      if (qb == 0) {
        EXPECT_EQ(blocks.size(), size_t(nkb)) << "a global query block sees everything";
        continue;
      }
      std::set<int> fixed = {0};
      for (int kb = qb - 1; kb <= qb + 1; ++kb) {
        if (kb >= 0 && kb < nkb) fixed.insert(kb);
      }
      for (int kb : fixed) EXPECT_TRUE(blocks.count(kb)) << "h=" << h << " qb=" << qb;
      EXPECT_EQ(blocks.size(), fixed.size() + 2) << "two random blocks";
      if (h > 0) {
        std::set<int> other;
        for (int i = 0; i < FullCount(*mask, qb); ++i) {
          other.insert(mask->full_kv_indices()[qb * nkb + i]);
        }
        heads_differ = heads_differ || other != blocks;
      }
    }
  }
  EXPECT_TRUE(heads_differ) << "random blocks are drawn per head";
  absl::StatusOr<BlockMask> again = BlockMask::BigBird(3, 160, 160, opts);
  ASSERT_THAT(again, IsOk());
  EXPECT_EQ(again->full_kv_indices(), mask->full_kv_indices()) << "the seed fixes the draw";
}

// Phi-3-small: block 64, 16 local blocks, vertical stride 8, per head.
TEST(BlockMaskTest, StridedMatchesPhi3SmallPattern) {
  BlockMask::StridedOptions opts;  // defaults are Phi-3-small's
  EXPECT_EQ(opts.block_size, 64);
  EXPECT_EQ(opts.local_blocks, 16);
  EXPECT_EQ(opts.vertical_stride, 8);
  const int heads = 4, len = 64 * 40;
  absl::StatusOr<BlockMask> mask = BlockMask::Strided(heads, len, len, opts);
  ASSERT_THAT(mask, IsOk());
  EXPECT_EQ(mask->heads(), heads);
  const int step = 8 / heads;  // head_sliding_step = max(1, vertical_stride / heads)
  for (int h = 0; h < heads; ++h) {
    for (int qb = 0; qb < 40; ++qb) {
      for (int kb = 0; kb < 40; ++kb) {
        const bool want = kb <= qb && (qb - kb < 16 || (kb + h * step + 1) % 8 == 0);
        EXPECT_EQ(mask->Allows(0, h, qb * 64 + 63, kb * 64), want)
            << "h=" << h << " qb=" << qb << " kb=" << kb;
      }
      const int row = h * 40 + qb;
      EXPECT_EQ(PartialCount(*mask, row), 1) << "only the diagonal block is partial";
    }
  }
  EXPECT_FALSE(mask->Allows(0, 0, 100, 101)) << "causal inside the diagonal block";
  EXPECT_TRUE(mask->Allows(0, 0, 101, 100));
  EXPECT_NE(mask->Allows(0, 0, 39 * 64, 7 * 64), mask->Allows(0, 1, 39 * 64, 7 * 64))
      << "heads see different vertical stripes";
}

TEST(BlockMaskTest, StridedSameForAllHeadsBroadcasts) {
  BlockMask::StridedOptions opts;
  opts.block_size = 16;
  opts.local_blocks = 2;
  opts.vertical_stride = 3;
  opts.same_for_all_heads = true;
  absl::StatusOr<BlockMask> mask = BlockMask::Strided(8, 160, 160, opts);
  ASSERT_THAT(mask, IsOk());
  EXPECT_EQ(mask->heads(), 1);
  ExpectAllows(*mask, 1, [](int, int q, int k) {
    const int qb = q / 16, kb = k / 16;
    return k <= q && (qb - kb < 2 || (kb + 1) % 3 == 0);
  });
}

TEST(BlockMaskTest, FromIndicesKeepsArraysAndElementMask) {
  std::vector<int32_t> counts = {1, 1}, indices = {1, 0, 0, 0};
  std::vector<int32_t> full_counts = {0, 1}, full_indices = {0, 0, 1, 0};
  absl::StatusOr<BlockMask> mask =
      BlockMask::FromIndices(1, 1, 32, 32, 16, counts, indices, full_counts, full_indices,
                             ElementMask{MaskMod::kCausal, 0, 0});
  ASSERT_THAT(mask, IsOk());
  EXPECT_EQ(mask->layout(), AttentionLayout::kCustom);
  EXPECT_EQ(mask->kv_indices(), indices);
  // Row 0 lists key block 1 as partial: causal kills it for queries < 16.
  // Row 1: key block 0 partial (causal, all below the queries), 1 full.
  ExpectAllows(*mask, 1, [](int, int q, int k) { return q >= 16; });
}

TEST(BlockMaskTest, FromIndicesWithoutFullBlocks) {
  absl::StatusOr<BlockMask> mask =
      BlockMask::FromIndices(1, 1, 20, 20, 16, {2, 0}, {0, 1, 0, 0}, {}, {});
  ASSERT_THAT(mask, IsOk());
  EXPECT_TRUE(mask->Allows(0, 0, 3, 19));
  EXPECT_FALSE(mask->Allows(0, 0, 17, 0)) << "query block 1 has no key block";
  EXPECT_FALSE(mask->Allows(0, 0, 3, 20)) << "out of bounds";
}

TEST(BlockMaskTest, RejectsBadSizes) {
  EXPECT_THAT(BlockMask::Dense(0, 10), StatusIs(absl::StatusCode::kInvalidArgument, "len_q=0"));
  EXPECT_THAT(BlockMask::Causal(10, 10, 24),
              StatusIs(absl::StatusCode::kInvalidArgument, "multiple of 16, got 24"));
  EXPECT_THAT(BlockMask::SlidingWindow(64, 64, 0, 0),
              StatusIs(absl::StatusCode::kInvalidArgument, "window must be at least 1"));
  BlockMask::BigBirdOptions even;
  even.window_blocks = 2;
  EXPECT_THAT(BlockMask::BigBird(1, 64, 64, even),
              StatusIs(absl::StatusCode::kInvalidArgument, "window_blocks must be odd"));
  BlockMask::StridedOptions zero;
  zero.vertical_stride = 0;
  EXPECT_THAT(BlockMask::Strided(1, 64, 64, zero),
              StatusIs(absl::StatusCode::kInvalidArgument, "vertical_stride"));
}

TEST(BlockMaskTest, FromIndicesRejectsWrongShapes) {
  // 2 query blocks x 2 key blocks: counts need 2 entries, indices 4.
  EXPECT_THAT(BlockMask::FromIndices(1, 1, 32, 32, 16, {1}, {0, 0, 0, 0}, {}, {}),
              StatusIs(absl::StatusCode::kInvalidArgument,
                       "kv_num_blocks has 1 entries, want batch * heads * num_q_blocks"));
  EXPECT_THAT(BlockMask::FromIndices(1, 1, 32, 32, 16, {1, 1}, {0, 0, 0}, {}, {}),
              StatusIs(absl::StatusCode::kInvalidArgument, "kv_indices has 3 entries"));
  EXPECT_THAT(BlockMask::FromIndices(1, 1, 32, 32, 16, {1, 1}, {0, 0, 0, 0}, {0}, {}),
              StatusIs(absl::StatusCode::kInvalidArgument, "full_kv_num_blocks has 1 entries"));
  EXPECT_THAT(BlockMask::FromIndices(2, 1, 32, 32, 16, {1, 1}, {0, 0, 0, 0}, {}, {}),
              StatusIs(absl::StatusCode::kInvalidArgument, "= 2 * 1 * 2"));
}

TEST(BlockMaskTest, FromIndicesRejectsBadIndices) {
  EXPECT_THAT(BlockMask::FromIndices(1, 1, 32, 32, 16, {3, 0}, {0, 1, 0, 0}, {}, {}),
              StatusIs(absl::StatusCode::kInvalidArgument,
                       "kv_num_blocks[b=0, h=0, q_block=0] = 3 is outside [0, 2]"));
  EXPECT_THAT(BlockMask::FromIndices(1, 1, 32, 32, 16, {1, 1}, {0, 0, 2, 0}, {}, {}),
              StatusIs(absl::StatusCode::kInvalidArgument,
                       "kv_indices[b=0, h=0, q_block=1][0] = 2 is outside [0, 2)"));
  EXPECT_THAT(BlockMask::FromIndices(1, 1, 32, 32, 16, {1, 0}, {-1, 0, 0, 0}, {}, {}),
              StatusIs(absl::StatusCode::kInvalidArgument, "= -1 is outside"));
  EXPECT_THAT(BlockMask::FromIndices(1, 1, 32, 32, 16, {2, 0}, {1, 1, 0, 0}, {}, {}),
              StatusIs(absl::StatusCode::kInvalidArgument, "key block 1 is listed twice"));
  EXPECT_THAT(BlockMask::FromIndices(1, 1, 32, 32, 16, {1, 0}, {0, 0, 0, 0}, {1, 0}, {0, 0, 0, 0}),
              StatusIs(absl::StatusCode::kInvalidArgument, "key block 0 is listed twice"));
  // Entries past a row's count are ignored, as in FlexAttention.
  EXPECT_THAT(BlockMask::FromIndices(1, 1, 32, 32, 16, {1, 0}, {0, 99, -5, 7}, {}, {}), IsOk());
}

TEST(BlockMaskTest, FromIndicesRejectsBadElementMask) {
  EXPECT_THAT(BlockMask::FromIndices(1, 1, 16, 16, 16, {1}, {0}, {}, {},
                                     ElementMask{MaskMod::kSlidingWindow, 0, 0}),
              StatusIs(absl::StatusCode::kInvalidArgument, "window >= 1"));
}

TEST(BlockMaskTest, CheckCompatible) {
  absl::StatusOr<BlockMask> causal = BlockMask::Causal(64, 64, 16);
  ASSERT_THAT(causal, IsOk());
  EXPECT_THAT(causal->CheckCompatible(4, 32, 64, 64), IsOk()) << "B = H = 1 broadcasts";
  EXPECT_THAT(causal->CheckCompatible(4, 32, 64, 65),
              StatusIs(absl::StatusCode::kInvalidArgument, "len_k=64, the problem has"));
  BlockMask::StridedOptions opts;
  opts.block_size = 16;
  absl::StatusOr<BlockMask> strided = BlockMask::Strided(4, 64, 64, opts);
  ASSERT_THAT(strided, IsOk());
  EXPECT_THAT(strided->CheckCompatible(2, 4, 64, 64), IsOk());
  EXPECT_THAT(strided->CheckCompatible(2, 8, 64, 64),
              StatusIs(absl::StatusCode::kInvalidArgument, "heads 4 must be 1 or"));
}

TEST(BlockMaskTest, AttentionShapeCarriesLayoutAndNonDefaultMask) {
  absl::StatusOr<BlockMask> causal = BlockMask::Causal(4096, 4096);
  ASSERT_THAT(causal, IsOk());
  Shape shape = causal->AttentionShape(DType::kF16, 4, 32, 8, 128);
  EXPECT_EQ(shape.Key(), "f16;b=4;block=128;d=128;hkv=8;hq=32;layout=1;lk=4096;lq=4096");
  absl::StatusOr<BlockMask> longformer = BlockMask::SlidingWindow(256, 256, 64, 16, false);
  ASSERT_THAT(longformer, IsOk());
  EXPECT_EQ(longformer->AttentionShape(DType::kBF16, 1, 1, 1, 64).GetOr("mask", -1),
            int64_t(MaskMod::kSlidingWindow));
  // A mask per query head says so where it keeps a group's heads from
  // sharing a tile's rows: grouped heads whose rows fit one mask block.
  BlockMask::StridedOptions options;
  options.block_size = 64;
  for (int len_q : {16, 17}) {
    absl::StatusOr<BlockMask> strided = BlockMask::Strided(8, len_q, 256, options);
    ASSERT_THAT(strided, IsOk());
    // 4 heads x 16 rows fill a 64-row block; 17 rows do not.
    EXPECT_EQ(strided->AttentionShape(DType::kF16, 1, 8, 2, 64).Has("mask_per_head"), len_q == 16);
    EXPECT_FALSE(strided->AttentionShape(DType::kF16, 1, 8, 8, 64).Has("mask_per_head"));
  }
  options.same_for_all_heads = true;
  absl::StatusOr<BlockMask> shared = BlockMask::Strided(8, 16, 256, options);
  ASSERT_THAT(shared, IsOk());
  EXPECT_FALSE(shared->AttentionShape(DType::kF16, 1, 8, 2, 64).Has("mask_per_head"));
}

TEST(BlockMaskTest, Names) {
  EXPECT_EQ(AttentionLayoutName(AttentionLayout::kStrided), "strided");
  EXPECT_EQ(MaskModName(MaskMod::kSlidingWindowCausal), "sliding_window_causal");
  EXPECT_EQ(DefaultMaskMod(AttentionLayout::kBigBird), MaskMod::kNone);
}

}  // namespace
}  // namespace jitk
