#include "cache/lookup_memo.h"

#include <memory>

#include "cache_test_util.h"
#include "gmock/gmock.h"
#include "gtest/gtest.h"

namespace jitk::cache {
namespace {

using ::jitk::cache::testing::MakeCodeObject;
using ::jitk::cache::testing::MakeTuning;

std::shared_ptr<const CodeObjectRecord> Code(const std::string& key, size_t size) {
  return std::make_shared<const CodeObjectRecord>(MakeCodeObject(key, size));
}

TEST(LookupMemoTest, CodeObjectsByArchAndKey) {
  LookupMemo memo(1 << 20);
  memo.PutCode("gfx90a", Code("k", 100));
  EXPECT_NE(memo.FindCode("gfx90a", "k"), nullptr);
  EXPECT_EQ(memo.FindCode("gfx942", "k"), nullptr);
  EXPECT_EQ(memo.FindCode("gfx90a", "other"), nullptr);
}

TEST(LookupMemoTest, CodeBytesStayUnderTheCap) {
  LookupMemo memo(10000);
  for (int i = 0; i < 10; ++i) memo.PutCode("a", Code(absl::StrCat("k", i), 3000));
  int present = 0;
  for (int i = 0; i < 10; ++i) present += memo.FindCode("a", absl::StrCat("k", i)) ? 1 : 0;
  EXPECT_EQ(present, 3);
  EXPECT_NE(memo.FindCode("a", "k9"), nullptr) << "the newest entry is kept";
  memo.PutCode("a", Code("huge", 20000));
  EXPECT_EQ(memo.FindCode("a", "huge"), nullptr) << "larger than the cap: not memoized";
  memo.Clear();
  EXPECT_EQ(memo.FindCode("a", "k9"), nullptr);
}

TEST(LookupMemoTest, TuningHitsMissesAndForget) {
  LookupMemo memo(0);
  TuningQuery q;
  q.arch = "gfx90a";
  q.device_name = "d";
  q.compute_units = 4;
  q.kernel = "k";
  q.shape_key = "f32;n=1";
  q.compiler = "c";
  TuningHit hit;
  EXPECT_EQ(memo.FindTuning(q, &hit), LookupMemo::Found::kNo);
  memo.PutTuning(q, nullptr);
  EXPECT_EQ(memo.FindTuning(q, &hit), LookupMemo::Found::kKnownMiss);

  TuningHit stored{std::make_shared<const TuningRecord>(MakeTuning("f32;n=2")),
                   CacheLayer::kSystemDb, false, false, 1.0};
  memo.PutTuning(q, &stored);
  ASSERT_EQ(memo.FindTuning(q, &hit), LookupMemo::Found::kHit);
  EXPECT_TRUE(hit.from_memo);
  EXPECT_EQ(hit.layer, CacheLayer::kSystemDb);
  EXPECT_FALSE(hit.exact);
  EXPECT_EQ(hit.record, stored.record);

  // Every field of the query is part of the key.
  TuningQuery other = q;
  other.compute_units = 8;
  EXPECT_EQ(memo.FindTuning(other, &hit), LookupMemo::Found::kNo);
  other = q;
  other.compiler = "c2";
  EXPECT_EQ(memo.FindTuning(other, &hit), LookupMemo::Found::kNo);
  other = q;
  other.allow_nearest = false;
  EXPECT_EQ(memo.FindTuning(other, &hit), LookupMemo::Found::kNo);
  const std::vector<std::string> exact = {"layout"};
  other = q;
  other.exact_dims = exact;
  EXPECT_EQ(memo.FindTuning(other, &hit), LookupMemo::Found::kNo);

  memo.ForgetTuning();
  EXPECT_EQ(memo.FindTuning(q, &hit), LookupMemo::Found::kNo);
}

}  // namespace
}  // namespace jitk::cache
