#include "tuner/work_list.h"

#include <set>

#include "gmock/gmock.h"
#include "gtest/gtest.h"
#include "tests/testing/status_matchers.h"

namespace jitk::tuner {
namespace {

using ::jitk::testing::IsOk;
using ::jitk::testing::StatusIs;

TEST(WorkListTest, ShapesFilesTakeCommentsAndADefaultKernel) {
  absl::StatusOr<std::vector<WorkItem>> items = ParseShapes(
      "# scaled_add sweep\n"
      "f16;n=1048576\n"
      "\n"
      "  scaled_add   bf16;n=16777216   # big\n",
      "scaled_add");
  ASSERT_THAT(items, IsOk());
  ASSERT_EQ(items->size(), 2u);
  EXPECT_EQ((*items)[0].kernel, "scaled_add");
  EXPECT_EQ((*items)[0].shape.Key(), "f16;n=1048576");
  EXPECT_EQ((*items)[1].shape.Key(), "bf16;n=16777216");
}

TEST(WorkListTest, BadLinesAreNamedByNumber) {
  EXPECT_THAT(ParseShapes("f16;n=1\nf16;n=x\n", "scaled_add"),
              StatusIs(absl::StatusCode::kInvalidArgument, "line 2"));
  EXPECT_THAT(ParseShapes("f16;n=1\n", ""),
              StatusIs(absl::StatusCode::kInvalidArgument, "no --kernel"));
  EXPECT_THAT(ParseShapes("a b c\n", "k"), StatusIs(absl::StatusCode::kInvalidArgument, "line 1"));
  EXPECT_THAT(ReadShapesFile("/nonexistent/shapes.txt", "k"),
              StatusIs(absl::StatusCode::kNotFound, "/nonexistent/shapes.txt"));
}

TEST(WorkListTest, StandardWorkIsEveryKernelWithAProblem) {
  absl::StatusOr<std::vector<WorkItem>> all = StandardWork("");
  ASSERT_THAT(all, IsOk());
  absl::StatusOr<std::vector<WorkItem>> scaled_add = StandardWork("scaled_add");
  ASSERT_THAT(scaled_add, IsOk());
  EXPECT_EQ(scaled_add->size(), 9u);  // 3 dtypes x n = 2^20, 2^24, 2^28
  EXPECT_GE(all->size(), scaled_add->size());
  EXPECT_THAT(StandardWork("nope"), StatusIs(absl::StatusCode::kInvalidArgument, "'nope'"));
}

TEST(ShardTest, ParsesKOverN) {
  absl::StatusOr<Shard> s = ParseShard("3/16");
  ASSERT_THAT(s, IsOk());
  EXPECT_EQ(s->index, 3);
  EXPECT_EQ(s->count, 16);
  for (const char* bad : {"4/4", "-1/4", "1/0", "1", "a/b", "1/4/5"}) {
    EXPECT_THAT(ParseShard(bad), StatusIs(absl::StatusCode::kInvalidArgument, "0 <= K < N")) << bad;
  }
}

TEST(ShardTest, ShardsPartitionTheWorkDeterministicallyAndCompletely) {
  std::vector<WorkItem> items;
  for (int i = 0; i < 23; ++i) {
    items.push_back({i % 2 ? "a_kernel" : "b_kernel", Shape(DType::kF16).Set("n", 1000 + i)});
  }
  items.push_back(items[5]);  // a duplicate is tuned once
  std::vector<WorkItem> reversed(items.rbegin(), items.rend());
  for (int n : {1, 2, 5, 23, 40}) {
    std::set<std::string> seen;
    size_t total = 0;
    for (int k = 0; k < n; ++k) {
      std::vector<WorkItem> mine = SelectShard(items, {k, n});
      // The same share whatever the input order.
      EXPECT_EQ(mine, SelectShard(reversed, {k, n})) << k << "/" << n;
      // Balanced within one item.
      EXPECT_LE(mine.size(), size_t(23 / n + 1));
      for (const WorkItem& w : mine) {
        EXPECT_TRUE(seen.insert(w.kernel + " " + w.shape.Key()).second)
            << "twice: " << w.shape.Key();
      }
      total += mine.size();
    }
    EXPECT_EQ(total, 23u) << n << " shards";
    EXPECT_EQ(seen.size(), 23u);
  }
}

}  // namespace
}  // namespace jitk::tuner
