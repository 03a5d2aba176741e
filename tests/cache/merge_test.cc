#include "cache/merge.h"

#include <memory>

#include "cache/code_object_store.h"
#include "cache/schema.h"
#include "cache/tuning_store.h"
#include "cache_test_util.h"
#include "gmock/gmock.h"
#include "gtest/gtest.h"
#include "lib/internal/status_macros.h"

namespace jitk::cache {
namespace {

using ::jitk::cache::testing::IsOk;
using ::jitk::cache::testing::MakeCodeObject;
using ::jitk::cache::testing::MakeTuning;

std::unique_ptr<SqliteDb> NewDb() {
  std::unique_ptr<SqliteDb> db = std::move(*SqliteDb::OpenInMemory());
  EXPECT_THAT(EnsureSchema(*db, "gfx90a"), IsOk());
  return db;
}

TuningKey KeyOf(const TuningRecord& r) {
  return {r.kernel, r.shape_key, r.device_name, r.compute_units, r.compiler};
}

TEST(MergeRowsTest, CopiesRowsAndAppliesTheConflictRule) {
  std::unique_ptr<SqliteDb> a = NewDb(), b = NewDb(), out = NewDb();
  ASSERT_THAT(PutCodeObject(*a, MakeCodeObject("k1")), IsOk());
  ASSERT_THAT(PutCodeObject(*b, MakeCodeObject("k1")), IsOk());
  ASSERT_THAT(PutCodeObject(*b, MakeCodeObject("k2")), IsOk());
  // Same key on two nodes: b's unvalidated faster time loses to a's validated one,
  // and for the second shape b's faster validated time wins.
  ASSERT_THAT(PutTuning(*a, MakeTuning("f32;n=1", "BLOCK=256", 1.0, true)), IsOk());
  ASSERT_THAT(PutTuning(*b, MakeTuning("f32;n=1", "BLOCK=64", 0.5, false)), IsOk());
  ASSERT_THAT(PutTuning(*a, MakeTuning("f32;n=2", "BLOCK=256", 1.0, true)), IsOk());
  ASSERT_THAT(PutTuning(*b, MakeTuning("f32;n=2", "BLOCK=128", 0.8, true)), IsOk());

  MergeStats first, second;
  ASSERT_THAT(MergeRows(*a, *out, &first), IsOk());
  ASSERT_THAT(MergeRows(*b, *out, &second), IsOk());
  EXPECT_EQ(first.code_objects_copied, 1);
  EXPECT_EQ(first.tuning_copied, 2);
  EXPECT_EQ(second.code_objects_copied, 1);
  EXPECT_EQ(second.code_objects_kept, 1);
  EXPECT_EQ(second.tuning_copied, 1);
  EXPECT_EQ(second.tuning_kept, 1);
  EXPECT_EQ(GetTuning(*out, KeyOf(MakeTuning("f32;n=1")))->config, "BLOCK=256");
  EXPECT_EQ(GetTuning(*out, KeyOf(MakeTuning("f32;n=2")))->config, "BLOCK=128");

  // The other order gives the same rows.
  std::unique_ptr<SqliteDb> reverse = NewDb();
  MergeStats ignored;
  ASSERT_THAT(MergeRows(*b, *reverse, &ignored), IsOk());
  ASSERT_THAT(MergeRows(*a, *reverse, &ignored), IsOk());
  EXPECT_EQ(*GetTuning(*reverse, KeyOf(MakeTuning("f32;n=1"))),
            *GetTuning(*out, KeyOf(MakeTuning("f32;n=1"))));
  EXPECT_EQ(*GetTuning(*reverse, KeyOf(MakeTuning("f32;n=2"))),
            *GetTuning(*out, KeyOf(MakeTuning("f32;n=2"))));

  // Merging again changes nothing.
  MergeStats again;
  ASSERT_THAT(MergeRows(*a, *out, &again), IsOk());
  EXPECT_EQ(again.copied(), 0);
}

TEST(MergeRowsTest, BadRowsAreNotCopied) {
  std::unique_ptr<SqliteDb> src = NewDb(), dst = NewDb();
  ASSERT_THAT(PutCodeObject(*src, MakeCodeObject("good")), IsOk());
  ASSERT_THAT(PutCodeObject(*src, MakeCodeObject("bad")), IsOk());
  ASSERT_THAT(PutTuning(*src, MakeTuning("f32;n=1")), IsOk());
  ASSERT_THAT(src->Exec("UPDATE code_objects SET kernel = 'x' WHERE key = 'bad'"), IsOk());
  ASSERT_THAT(src->Exec("UPDATE tuning SET validated = 0"), IsOk());
  MergeStats stats;
  ASSERT_THAT(MergeRows(*src, *dst, &stats), IsOk());
  EXPECT_EQ(stats.code_objects_copied, 1);
  EXPECT_EQ(stats.tuning_copied, 0);
  EXPECT_EQ(stats.bad_rows, 2);
  EXPECT_THAT(GetCodeObject(*dst, "good"), IsOk());
  EXPECT_FALSE(GetCodeObject(*dst, "bad").ok());
}

TEST(MergeRowsTest, ReplacesACorruptDestinationRow) {
  std::unique_ptr<SqliteDb> src = NewDb(), dst = NewDb();
  ASSERT_THAT(PutCodeObject(*src, MakeCodeObject("k")), IsOk());
  ASSERT_THAT(PutCodeObject(*dst, MakeCodeObject("k")), IsOk());
  ASSERT_THAT(dst->Exec("UPDATE code_objects SET compile_ms = -1"), IsOk());
  MergeStats stats;
  ASSERT_THAT(MergeRows(*src, *dst, &stats), IsOk());
  EXPECT_EQ(stats.code_objects_copied, 1);
  EXPECT_THAT(GetCodeObject(*dst, "k"), IsOk());
}

TEST(MergeRowsTest, ManyRowsGoInBatches) {
  std::unique_ptr<SqliteDb> src = NewDb(), dst = NewDb();
  ASSERT_THAT(src->WriteTransaction([&]() -> absl::Status {
    for (int i = 0; i < 1000; ++i) {
      JITK_RETURN_IF_ERROR(PutTuning(*src, MakeTuning(absl::StrCat("f32;n=", i + 1))).status());
    }
    return absl::OkStatus();
  }),
              IsOk());
  MergeStats stats;
  MergeOptions tuning_only;
  tuning_only.code_objects = false;
  ASSERT_THAT(MergeRows(*src, *dst, &stats, tuning_only), IsOk());
  EXPECT_EQ(stats.tuning_copied, 1000);
}

}  // namespace
}  // namespace jitk::cache
