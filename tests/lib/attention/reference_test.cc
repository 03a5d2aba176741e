#include "lib/attention/reference.h"

#include <cmath>
#include <limits>
#include <vector>

#include "gmock/gmock.h"
#include "gtest/gtest.h"
#include "jitk/block_mask.h"
#include "tests/testing/status_matchers.h"

namespace jitk::internal {
namespace {

using ::jitk::testing::IsOk;
using ::jitk::testing::StatusIs;

constexpr double kInf = std::numeric_limits<double>::infinity();

// One head, d = 1: q = [1, 2], k = [0, 1], v = [10, 20], scale 1.
//   row 0 (causal: key 0 only): o = 10, lse = 0
//   row 1 (keys 0, 1): scores 0 and 2, p = [1, e^2] / (1 + e^2)
TEST(ReferenceTest, HandComputedCausal) {
  absl::StatusOr<BlockMask> mask = BlockMask::Causal(2, 2, 16);
  ASSERT_THAT(mask, IsOk());
  AttentionDims dims{1, 1, 1, 2, 2, 1};
  absl::StatusOr<ReferenceOutput> out =
      ReferenceSparseAttention(dims, 1.0, *mask, {1, 2}, {0, 1}, {10, 20});
  ASSERT_THAT(out, IsOk());
  const double e2 = std::exp(2.0);
  EXPECT_DOUBLE_EQ(out->o[0], 10.0);
  EXPECT_DOUBLE_EQ(out->lse[0], 0.0);
  EXPECT_NEAR(out->o[1], (10.0 + 20.0 * e2) / (1.0 + e2), 1e-12);
  EXPECT_NEAR(out->lse[1], std::log(1.0 + e2), 1e-12);
}

// d = 2, dense, scale 0.5, GQA: two query heads share one key/value head.
TEST(ReferenceTest, HandComputedDenseGqaWithScale) {
  absl::StatusOr<BlockMask> mask = BlockMask::Dense(1, 2, 16);
  ASSERT_THAT(mask, IsOk());
  AttentionDims dims{1, 2, 1, 1, 2, 2};
  // head 0: q = (2, 0); head 1: q = (0, 2). k0 = (1, 0), k1 = (0, 1).
  // v0 = (1, 0), v1 = (0, 1).
  absl::StatusOr<ReferenceOutput> out =
      ReferenceSparseAttention(dims, 0.5, *mask, {2, 0, 0, 2}, {1, 0, 0, 1}, {1, 0, 0, 1});
  ASSERT_THAT(out, IsOk());
  const double e = std::exp(1.0);
  // head 0: scores (1, 0) → weights (e, 1) / (e + 1).
  EXPECT_NEAR(out->o[0], e / (e + 1), 1e-12);
  EXPECT_NEAR(out->o[1], 1 / (e + 1), 1e-12);
  // head 1: scores (0, 1).
  EXPECT_NEAR(out->o[2], 1 / (e + 1), 1e-12);
  EXPECT_NEAR(out->o[3], e / (e + 1), 1e-12);
  EXPECT_NEAR(out->lse[0], std::log(e + 1), 1e-12);
}

TEST(ReferenceTest, RowWithNoKeyIsZeroWithMinusInfLse) {
  // Query block 1 (rows 16..19) lists no key block.
  absl::StatusOr<BlockMask> mask =
      BlockMask::FromIndices(1, 1, 20, 20, 16, {2, 0}, {0, 1, 0, 0}, {}, {});
  ASSERT_THAT(mask, IsOk());
  AttentionDims dims{1, 1, 1, 20, 20, 1};
  std::vector<double> q(20, 1.0), k(20, 0.5), v(20, 3.0);
  absl::StatusOr<ReferenceOutput> out = ReferenceSparseAttention(dims, 1.0, *mask, q, k, v);
  ASSERT_THAT(out, IsOk());
  EXPECT_NEAR(out->o[0], 3.0, 1e-12);
  EXPECT_NEAR(out->lse[0], 0.5 + std::log(20.0), 1e-12);
  for (int i = 16; i < 20; ++i) {
    EXPECT_EQ(out->o[i], 0.0);
    EXPECT_EQ(out->lse[i], -kInf);
  }
}

TEST(ReferenceTest, PartialBlocksApplyTheElementMask) {
  // Sliding causal window of 2: row 3 sees keys 2, 3 only.
  absl::StatusOr<BlockMask> mask = BlockMask::SlidingWindow(4, 4, 2, 0, true, 16);
  ASSERT_THAT(mask, IsOk());
  AttentionDims dims{1, 1, 1, 4, 4, 1};
  absl::StatusOr<ReferenceOutput> out =
      ReferenceSparseAttention(dims, 1.0, *mask, {0, 0, 0, 0}, {0, 0, 0, 0}, {1, 2, 3, 4});
  ASSERT_THAT(out, IsOk());
  EXPECT_NEAR(out->o[3], 3.5, 1e-12);
  EXPECT_NEAR(out->o[0], 1.0, 1e-12);
  EXPECT_NEAR(out->lse[3], std::log(2.0), 1e-12);
}

TEST(ReferenceTest, RejectsMismatchedInputs) {
  absl::StatusOr<BlockMask> mask = BlockMask::Dense(2, 2, 16);
  ASSERT_THAT(mask, IsOk());
  AttentionDims dims{1, 1, 1, 2, 2, 1};
  EXPECT_THAT(ReferenceSparseAttention(dims, 1.0, *mask, {1}, {0, 1}, {1, 2}),
              StatusIs(absl::StatusCode::kInvalidArgument, "q has 1 values"));
  AttentionDims gqa{1, 3, 2, 2, 2, 1};
  EXPECT_THAT(ReferenceSparseAttention(gqa, 1.0, *mask, {}, {}, {}),
              StatusIs(absl::StatusCode::kInvalidArgument, "heads_q=3 heads_kv=2"));
  AttentionDims longer{1, 1, 1, 3, 2, 1};
  EXPECT_THAT(ReferenceSparseAttention(longer, 1.0, *mask, {1, 2, 3}, {0, 1}, {1, 2}),
              StatusIs(absl::StatusCode::kInvalidArgument, "block mask is for len_q=2"));
}

}  // namespace
}  // namespace jitk::internal
