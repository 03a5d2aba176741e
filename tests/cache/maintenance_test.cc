#include "cache/maintenance.h"

#include <memory>

#include "cache/code_object_store.h"
#include "cache/schema.h"
#include "cache/tuning_store.h"
#include "cache_test_util.h"
#include "gmock/gmock.h"
#include "gtest/gtest.h"

namespace jitk::cache {
namespace {

using ::jitk::cache::testing::IsOk;
using ::jitk::cache::testing::MakeCodeObject;
using ::jitk::cache::testing::MakeTuning;
using ::jitk::cache::testing::StatusIs;
using ::jitk::cache::testing::TempDir;
using ::jitk::cache::testing::WriteBytes;
using ::testing::Contains;
using ::testing::ElementsAre;
using ::testing::HasSubstr;

class MaintenanceTest : public ::testing::Test {
 protected:
  void SetUp() override {
    db_ = std::move(*SqliteDb::Open(path_, {}));
    ASSERT_THAT(EnsureSchema(*db_, "gfx90a"), IsOk());
  }
  void AddCode(const std::string& key, int64_t created, const std::string& compiler,
               size_t size = 10000) {
    CodeObjectRecord r = MakeCodeObject(key, size);
    r.created_unix = created;
    r.compiler = compiler;
    ASSERT_THAT(PutCodeObject(*db_, r), IsOk());
  }
  void AddTuning(const std::string& shape, int64_t tuned, const std::string& compiler) {
    TuningRecord r = MakeTuning(shape);
    r.tuned_unix = tuned;
    r.compiler = compiler;
    ASSERT_THAT(PutTuning(*db_, r), IsOk());
  }

  TempDir dir_;
  std::string path_ = dir_ / "gfx90a.db";
  std::unique_ptr<SqliteDb> db_;
  const absl::Time now_ = absl::FromUnixSeconds(1764000000);
  const int64_t day_ = 86400;
};

TEST_F(MaintenanceTest, Summary) {
  AddCode("a", 1, "hiprtc 5.2");
  AddTuning("f32;n=1", 1, "hiprtc 6.0");
  absl::StatusOr<DbSummary> s = SummarizeDb(*db_);
  ASSERT_THAT(s, IsOk());
  EXPECT_EQ(s->schema.arch, "gfx90a");
  EXPECT_EQ(s->code_objects, 1);
  EXPECT_EQ(s->code_bytes, 10000);
  EXPECT_EQ(s->tuning_rows, 1);
  EXPECT_EQ(s->journal_mode, "wal");
  EXPECT_GT(s->used_bytes, 10000);
  EXPECT_THAT(s->compilers, ElementsAre("hiprtc 5.2", "hiprtc 6.0"));
}

TEST_F(MaintenanceTest, VerifySoundFile) {
  AddCode("a", 1, "c");
  VerifyReport report = VerifyDbFile(path_, "gfx90a");
  EXPECT_TRUE(report.ok()) << absl::StrJoin(report.problems, "; ");
  EXPECT_EQ(report.summary->code_objects, 1);
}

TEST_F(MaintenanceTest, VerifyFindsEachKindOfProblem) {
  AddCode("a", 1, "c");
  AddCode("b", 1, "c");
  ASSERT_THAT(db_->Exec("UPDATE code_objects SET config = 'X=1' WHERE key = 'b'"), IsOk());
  VerifyReport report = VerifyDbFile(path_, "sm_90");
  EXPECT_FALSE(report.ok());
  EXPECT_EQ(report.bad_rows, 1);
  EXPECT_THAT(report.problems, Contains(HasSubstr("1 rows fail their checksum: code object b")));
  EXPECT_THAT(report.problems, Contains(HasSubstr("holds arch 'gfx90a', expected 'sm_90'")));

  ASSERT_THAT(db_->Exec("PRAGMA user_version=5"), IsOk());
  report = VerifyDbFile(path_);
  EXPECT_THAT(report.problems, Contains(HasSubstr("schema version 5, this jitk reads 1")));

  WriteBytes(dir_ / "garbage.db", std::string(8192, '#'));
  report = VerifyDbFile(dir_ / "garbage.db");
  EXPECT_THAT(report.problems, Contains(HasSubstr("not a database")));
  EXPECT_THAT(VerifyDbFile(dir_ / "none.db").problems, ElementsAre("no such file"));
}

TEST_F(MaintenanceTest, VerifyFindsDamagedPages) {
  for (int i = 0; i < 20; ++i) AddCode(absl::StrCat("k", i), 1, "c", 6000);
  db_.reset();
  std::string bytes = testing::ReadBytes(path_);
  for (size_t i = bytes.size() / 2; i < bytes.size() / 2 + 8192; ++i) bytes[i] = 'Z';
  WriteBytes(path_, bytes);
  VerifyReport report = VerifyDbFile(path_);
  EXPECT_FALSE(report.ok());
}

TEST_F(MaintenanceTest, PruneByAgeAndCompiler) {
  AddCode("old", absl::ToUnixSeconds(now_) - 40 * day_, "hiprtc 5.2");
  AddCode("new", absl::ToUnixSeconds(now_) - 1 * day_, "hiprtc 5.2");
  AddCode("other", absl::ToUnixSeconds(now_) - 1 * day_, "hiprtc 6.0");
  AddTuning("f32;n=1", absl::ToUnixSeconds(now_) - 40 * day_, "hiprtc 5.2");
  AddTuning("f32;n=2", absl::ToUnixSeconds(now_) - 1 * day_, "hiprtc 6.0");

  PruneOptions dry;
  dry.now = now_;
  dry.older_than = absl::Hours(24 * 30);
  dry.dry_run = true;
  absl::StatusOr<PruneStats> stats = PruneDb(*db_, dry);
  ASSERT_THAT(stats, IsOk());
  EXPECT_EQ(stats->code_objects_removed, 1);
  EXPECT_EQ(stats->tuning_removed, 1);
  EXPECT_THAT(GetCodeObject(*db_, "old"), IsOk()) << "a dry run changes nothing";

  PruneOptions age = dry;
  age.dry_run = false;
  ASSERT_THAT(PruneDb(*db_, age), IsOk());
  EXPECT_THAT(GetCodeObject(*db_, "old"), StatusIs(absl::StatusCode::kNotFound, HasSubstr("old")));
  EXPECT_THAT(GetCodeObject(*db_, "new"), IsOk());

  PruneOptions compiler;
  compiler.compiler = "hiprtc 6.0";
  stats = PruneDb(*db_, compiler);
  EXPECT_EQ(stats->code_objects_removed, 1);
  EXPECT_EQ(stats->tuning_removed, 1);
  EXPECT_THAT(GetCodeObject(*db_, "new"), IsOk()) << "only that compiler's rows go";

  AddCode("x", 5, "hiprtc 7.0");
  PruneOptions keep;
  keep.keep_compiler = "hiprtc 7.0";
  stats = PruneDb(*db_, keep);
  EXPECT_EQ(stats->code_objects_removed, 1);
  EXPECT_THAT(GetCodeObject(*db_, "x"), IsOk());
}

TEST_F(MaintenanceTest, PruneToSizeDropsTheOldestCodeObjects) {
  for (int i = 0; i < 30; ++i) AddCode(absl::StrCat("k", i), 1000 + i, "c", 40000);
  AddTuning("f32;n=1", 1, "c");
  PruneOptions cap;
  cap.max_bytes = 600 << 10;
  absl::StatusOr<PruneStats> stats = PruneDb(*db_, cap);
  ASSERT_THAT(stats, IsOk());
  EXPECT_GT(stats->used_bytes_before, 1 << 20);
  EXPECT_LE(stats->used_bytes_after, 600 << 10);
  EXPECT_GE(stats->code_objects_removed, 15);
  EXPECT_THAT(GetCodeObject(*db_, "k29"), IsOk()) << "the newest stay";
  EXPECT_THAT(GetCodeObject(*db_, "k0"), StatusIs(absl::StatusCode::kNotFound, HasSubstr("k0")));
  EXPECT_THAT(GetTuning(*db_, {"scaled_add", "f32;n=1", "AMD Instinct MI210", 104, "c"}), IsOk())
      << "tuning rows are never dropped for size";
}

TEST(ParseAgeTest, Units) {
  EXPECT_EQ(*ParseAge("45s"), absl::Seconds(45));
  EXPECT_EQ(*ParseAge("90m"), absl::Minutes(90));
  EXPECT_EQ(*ParseAge("12h"), absl::Hours(12));
  EXPECT_EQ(*ParseAge("30d"), absl::Hours(720));
  EXPECT_EQ(*ParseAge("2W"), absl::Hours(336));
  for (const char* bad : {"", "d", "30", "-1d", "3x", "1.5d"}) {
    EXPECT_THAT(ParseAge(bad), StatusIs(absl::StatusCode::kInvalidArgument, HasSubstr("bad age")))
        << bad;
  }
}

TEST(ParseSizeTest, Units) {
  EXPECT_EQ(*ParseSize("1048576"), 1 << 20);
  EXPECT_EQ(*ParseSize("64K"), 64 << 10);
  EXPECT_EQ(*ParseSize("500M"), int64_t{500} << 20);
  EXPECT_EQ(*ParseSize("2GiB"), int64_t{2} << 30);
  EXPECT_EQ(*ParseSize("1tb"), int64_t{1} << 40);
  for (const char* bad : {"", "M", "-5M", "5X", "1.5G"}) {
    EXPECT_THAT(ParseSize(bad), StatusIs(absl::StatusCode::kInvalidArgument, HasSubstr("bad size")))
        << bad;
  }
}

}  // namespace
}  // namespace jitk::cache
