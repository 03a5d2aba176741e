#include "cache/tuning_store.h"

#include <cmath>
#include <limits>
#include <memory>

#include "cache/schema.h"
#include "cache_test_util.h"
#include "gmock/gmock.h"
#include "gtest/gtest.h"

namespace jitk::cache {
namespace {

using ::jitk::cache::testing::IsOk;
using ::jitk::cache::testing::MakeTuning;
using ::jitk::cache::testing::StatusIs;
using ::testing::HasSubstr;

class TuningStoreTest : public ::testing::Test {
 protected:
  void SetUp() override {
    db_ = std::move(*SqliteDb::OpenInMemory());
    ASSERT_THAT(EnsureSchema(*db_, "gfx90a"), IsOk());
  }
  static TuningKey KeyOf(const TuningRecord& r) {
    return {r.kernel, r.shape_key, r.device_name, r.compute_units, r.compiler};
  }
  std::unique_ptr<SqliteDb> db_;
};

TEST_F(TuningStoreTest, RoundTripKeepsEveryField) {
  TuningRecord in = MakeTuning("f16;n=1048576", "BLOCK=256,EPT=4", 0.012345678901234567);
  in.jitk_version = "0.1.0";
  ASSERT_THAT(PutTuning(*db_, in), IsOk());
  absl::StatusOr<TuningRecord> out = GetTuning(*db_, KeyOf(in));
  ASSERT_THAT(out, IsOk());
  EXPECT_EQ(*out, in) << "doubles, runner-ups and flags round-trip exactly";
}

TEST_F(TuningStoreTest, KeyIncludesDeviceAndCompiler) {
  TuningRecord a = MakeTuning("f32;n=4096");
  ASSERT_THAT(PutTuning(*db_, a), IsOk());
  TuningRecord b = a;
  b.compute_units = 110;
  TuningRecord c = a;
  c.compiler = "hiprtc 6.0.0";
  EXPECT_THAT(GetTuning(*db_, KeyOf(b)),
              StatusIs(absl::StatusCode::kNotFound, HasSubstr("f32;n=4096")));
  EXPECT_THAT(GetTuning(*db_, KeyOf(c)), StatusIs(absl::StatusCode::kNotFound, HasSubstr("MI210")));
  ASSERT_THAT(PutTuning(*db_, c), IsOk());
  EXPECT_EQ(GetTuning(*db_, KeyOf(a))->compiler, a.compiler) << "rows of two compilers coexist";
  EXPECT_EQ(GetTuning(*db_, KeyOf(c))->compiler, c.compiler);
}

TEST_F(TuningStoreTest, ReplaceAndKeepBetter) {
  TuningRecord fast = MakeTuning("f32;n=4096", "BLOCK=256", 0.5, true);
  TuningRecord slow = MakeTuning("f32;n=4096", "BLOCK=64", 0.9, true);
  ASSERT_TRUE(*PutTuning(*db_, fast));
  absl::StatusOr<bool> written;
  ASSERT_THAT(db_->WriteTransaction([&] {
    written = PutTuning(*db_, slow, TuningConflict::kKeepBetter);
    return written.status();
  }),
              IsOk());
  EXPECT_FALSE(*written);
  EXPECT_EQ(GetTuning(*db_, KeyOf(fast))->config, "BLOCK=256");
  ASSERT_TRUE(*PutTuning(*db_, slow, TuningConflict::kReplace));
  EXPECT_EQ(GetTuning(*db_, KeyOf(fast))->config, "BLOCK=64") << "a re-tune replaces";
}

TEST(IsBetterTuningTest, TotalOrder) {
  TuningRecord validated_slow = MakeTuning("f32;n=1", "A=1", 2.0, true);
  TuningRecord unvalidated_fast = MakeTuning("f32;n=1", "A=2", 1.0, false);
  EXPECT_TRUE(IsBetterTuning(validated_slow, unvalidated_fast)) << "validated first";
  EXPECT_FALSE(IsBetterTuning(unvalidated_fast, validated_slow));

  TuningRecord validated_fast = MakeTuning("f32;n=1", "A=3", 1.0, true);
  EXPECT_TRUE(IsBetterTuning(validated_fast, validated_slow)) << "then time";

  TuningRecord zero = MakeTuning("f32;n=1", "A=4", 0.0, true);
  EXPECT_FALSE(IsBetterTuning(zero, validated_slow)) << "a non-positive time never wins";

  TuningRecord newer = validated_fast;
  newer.config = "A=9";
  newer.tuned_unix += 10;
  EXPECT_TRUE(IsBetterTuning(newer, validated_fast)) << "then newer";

  TuningRecord twin = validated_fast;
  twin.config = "A=0";
  EXPECT_TRUE(IsBetterTuning(twin, validated_fast)) << "then config text";
  EXPECT_FALSE(IsBetterTuning(validated_fast, twin));
  EXPECT_FALSE(IsBetterTuning(twin, twin)) << "irreflexive";
}

TEST_F(TuningStoreTest, RejectsMalformedRecords) {
  TuningRecord bad_shape = MakeTuning("n=4;f16");
  EXPECT_THAT(PutTuning(*db_, bad_shape),
              StatusIs(absl::StatusCode::kInvalidArgument, HasSubstr("shape key")));
  TuningRecord nan = MakeTuning("f32;n=4", "A=1", std::nan(""));
  EXPECT_THAT(PutTuning(*db_, nan),
              StatusIs(absl::StatusCode::kInvalidArgument, HasSubstr("finite")));
  TuningRecord tab = MakeTuning("f32;n=4", "A=1\tB=2");
  EXPECT_THAT(PutTuning(*db_, tab),
              StatusIs(absl::StatusCode::kInvalidArgument, HasSubstr("tabs")));
  TuningRecord empty = MakeTuning("f32;n=4", "");
  EXPECT_THAT(PutTuning(*db_, empty),
              StatusIs(absl::StatusCode::kInvalidArgument, HasSubstr("must not be empty")));
}

TEST_F(TuningStoreTest, ChangedRowIsDataLoss) {
  TuningRecord r = MakeTuning("f32;n=4096");
  ASSERT_THAT(PutTuning(*db_, r), IsOk());
  ASSERT_THAT(db_->Exec("UPDATE tuning SET median_ms = 0.001"), IsOk());
  EXPECT_THAT(GetTuning(*db_, KeyOf(r)),
              StatusIs(absl::StatusCode::kDataLoss, HasSubstr("fails its checksum")));
}

TEST_F(TuningStoreTest, FamilyIsSameKernelCompilerDtypeAndDimNames) {
  for (const char* key : {"f16;n=1024", "f16;n=4096", "f32;n=1024", "f16;m=4;n=1024"}) {
    ASSERT_THAT(PutTuning(*db_, MakeTuning(key)), IsOk());
  }
  TuningRecord other_device = MakeTuning("f16;n=2048");
  other_device.device_name = "AMD Instinct MI250X";
  ASSERT_THAT(PutTuning(*db_, other_device), IsOk());
  TuningRecord other_compiler = MakeTuning("f16;n=8192");
  other_compiler.compiler = "hiprtc 6.0";
  ASSERT_THAT(PutTuning(*db_, other_compiler), IsOk());

  absl::StatusOr<TuningFamily> family =
      FindTuningFamily(*db_, "scaled_add", "hiprtc 5.2.21153", "f16;n=333");
  ASSERT_THAT(family, IsOk());
  std::vector<std::string> keys;
  for (const TuningRecord& r : family->rows) keys.push_back(r.shape_key);
  EXPECT_EQ(keys, (std::vector<std::string>{"f16;n=1024", "f16;n=2048", "f16;n=4096"}));
  EXPECT_EQ(family->bad_rows, 0);

  ASSERT_THAT(db_->Exec("UPDATE tuning SET spread_ms = 9 WHERE shape_key = 'f16;n=4096'"), IsOk());
  family = FindTuningFamily(*db_, "scaled_add", "hiprtc 5.2.21153", "f16;n=333");
  EXPECT_EQ(family->rows.size(), 2u);
  EXPECT_EQ(family->bad_rows, 1);
}

TEST_F(TuningStoreTest, HasTuningForDevice) {
  ASSERT_THAT(PutTuning(*db_, MakeTuning("f32;n=1")), IsOk());
  EXPECT_TRUE(*HasTuningForDevice(*db_, "AMD Instinct MI210", 104));
  EXPECT_FALSE(*HasTuningForDevice(*db_, "AMD Instinct MI210", 52));
  EXPECT_FALSE(*HasTuningForDevice(*db_, "NVIDIA H200", 132));
}

}  // namespace
}  // namespace jitk::cache
