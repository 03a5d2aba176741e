#include "cache/portable_file.h"

#include <filesystem>
#include <memory>
#include <nlohmann/json.hpp>

#include "cache/arch_db.h"
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
using ::jitk::cache::testing::ReadBytes;
using ::jitk::cache::testing::StatusIs;
using ::jitk::cache::testing::TempDir;
using ::jitk::cache::testing::WriteBytes;
using ::testing::HasSubstr;

TuningKey KeyOf(const TuningRecord& r) {
  return {r.kernel, r.shape_key, r.device_name, r.compute_units, r.compiler};
}

class PortableFileTest : public ::testing::TestWithParam<PortableFormat> {
 protected:
  void SetUp() override {
    src_ = std::move(*SqliteDb::Open(dir_ / "gfx90a.db", {}));
    ASSERT_THAT(EnsureSchema(*src_, "gfx90a"), IsOk());
    for (const char* key : {"a", "b"}) {
      ASSERT_THAT(PutCodeObject(*src_, MakeCodeObject(key, 3000)), IsOk());
      code_.push_back(*GetCodeObject(*src_, key));
    }
    for (int n : {16, 256}) {
      TuningRecord r = MakeTuning(absl::StrCat("f16;n=", n), absl::StrCat("BLOCK=", n), 1.0 / 3);
      ASSERT_THAT(PutTuning(*src_, r), IsOk());
      tuning_.push_back(*GetTuning(*src_, KeyOf(r)));
    }
  }
  std::string Out() const {
    return dir_ / (GetParam() == PortableFormat::kJson ? "export.json" : "export.db");
  }
  ExportOptions Options() const {
    ExportOptions options;
    options.format = GetParam();
    return options;
  }

  TempDir dir_;
  std::unique_ptr<SqliteDb> src_;
  std::vector<CodeObjectRecord> code_;
  std::vector<TuningRecord> tuning_;
};

TEST_P(PortableFileTest, ExportThenOpenGivesEqualRows) {
  absl::StatusOr<MergeStats> stats = ExportDb(*src_, Out(), Options());
  ASSERT_THAT(stats, IsOk());
  EXPECT_EQ(stats->code_objects_copied, 2);
  EXPECT_EQ(stats->tuning_copied, 2);
  int bad = -1;
  absl::StatusOr<std::unique_ptr<SqliteDb>> in = OpenPortableFile(Out(), &bad);
  ASSERT_THAT(in, IsOk());
  EXPECT_EQ(bad, 0);
  EXPECT_EQ(ReadSchemaInfo(**in)->arch, "gfx90a");
  for (const CodeObjectRecord& r : code_) {
    absl::StatusOr<CodeObjectRecord> got = GetCodeObject(**in, r.key);
    ASSERT_THAT(got, IsOk());
    EXPECT_EQ(got->code, r.code);
    EXPECT_EQ(got->created_unix, r.created_unix);
    EXPECT_EQ(CodeObjectChecksum(*got), CodeObjectChecksum(r));
  }
  for (const TuningRecord& r : tuning_) EXPECT_EQ(*GetTuning(**in, KeyOf(r)), r);
  EXPECT_FALSE(std::filesystem::exists(Out() + absl::StrCat(".tmp-", ::getpid())));
}

TEST_P(PortableFileTest, ExistingFileNeedsOverwrite) {
  WriteBytes(Out(), "keep me");
  EXPECT_THAT(ExportDb(*src_, Out(), Options()),
              StatusIs(absl::StatusCode::kAlreadyExists, HasSubstr("--force")));
  EXPECT_EQ(ReadBytes(Out()), "keep me");
  ExportOptions overwrite = Options();
  overwrite.overwrite = true;
  EXPECT_THAT(ExportDb(*src_, Out(), overwrite), IsOk());
}

TEST_P(PortableFileTest, TuningOnlyAndBadRowsLeftOut) {
  ASSERT_THAT(src_->Exec("UPDATE tuning SET validated = 0 WHERE shape_key = 'f16;n=16'"), IsOk());
  ExportOptions options = Options();
  options.tables.code_objects = false;
  absl::StatusOr<MergeStats> stats = ExportDb(*src_, Out(), options);
  ASSERT_THAT(stats, IsOk());
  EXPECT_EQ(stats->code_objects_copied, 0);
  EXPECT_EQ(stats->tuning_copied, 1);
  EXPECT_EQ(stats->bad_rows, 1);
  int bad = 0;
  absl::StatusOr<std::unique_ptr<SqliteDb>> in = OpenPortableFile(Out(), &bad);
  ASSERT_THAT(in, IsOk());
  EXPECT_THAT(GetCodeObject(**in, "a"), StatusIs(absl::StatusCode::kNotFound, HasSubstr("a")));
  EXPECT_THAT(GetTuning(**in, KeyOf(tuning_[1])), IsOk());
}

INSTANTIATE_TEST_SUITE_P(Formats, PortableFileTest,
                         ::testing::Values(PortableFormat::kSqlite, PortableFormat::kJson),
                         [](const auto& info) {
                           return info.param == PortableFormat::kJson ? "json" : "sqlite";
                         });

TEST(PortableSqliteTest, ExportIsAShippableRollbackJournalFile) {
  TempDir dir;
  std::unique_ptr<SqliteDb> src = std::move(*SqliteDb::Open(dir / "live.db", {}));
  ASSERT_THAT(EnsureSchema(*src, "gfx90a"), IsOk());
  ASSERT_THAT(PutTuning(*src, MakeTuning("f32;n=8")), IsOk());
  ASSERT_THAT(ExportDb(*src, dir / "ship.db", {}), IsOk());
  EXPECT_EQ(ReadBytes(dir / "ship.db")[18], 1) << "rollback-journal format, no -wal needed";
  // It opens as an immutable system DB.
  ArchDbOptions system;
  system.role = DbRole::kSystem;
  absl::StatusOr<std::unique_ptr<ArchDb>> db = ArchDb::Open(dir / "ship.db", "gfx90a", system);
  ASSERT_THAT(db, IsOk());
  EXPECT_THAT((*db)->GetTuning(KeyOf(MakeTuning("f32;n=8"))), IsOk());
}

TEST(PortableJsonTest, HandWrittenRowsWithoutChecksumAreAccepted) {
  TempDir dir;
  WriteBytes(dir / "hand.json", R"({
    "format": "jitk-cache-export", "format_version": 1, "arch": "gfx942",
    "tuning": [{"kernel": "scaled_add", "shape_key": "f16;n=4096", "device_name": "AMD Instinct MI300X",
                "compute_units": 304, "compiler": "hiprtc 6.2", "config": "BLOCK=512",
                "median_ms": 0.01, "validated": true}]
  })");
  int bad = -1;
  absl::StatusOr<std::unique_ptr<SqliteDb>> in = OpenPortableFile(dir / "hand.json", &bad);
  ASSERT_THAT(in, IsOk());
  EXPECT_EQ(bad, 0);
  absl::StatusOr<TuningRecord> r =
      GetTuning(**in, {"scaled_add", "f16;n=4096", "AMD Instinct MI300X", 304, "hiprtc 6.2"});
  ASSERT_THAT(r, IsOk());
  EXPECT_EQ(r->config, "BLOCK=512");
  EXPECT_TRUE(r->validated);
}

TEST(PortableJsonTest, EditedRowFailsItsChecksumAndIsDropped) {
  TempDir dir;
  std::unique_ptr<SqliteDb> src = std::move(*SqliteDb::OpenInMemory());
  ASSERT_THAT(EnsureSchema(*src, "gfx90a"), IsOk());
  ASSERT_THAT(PutTuning(*src, MakeTuning("f32;n=8", "BLOCK=64", 0.5)), IsOk());
  ASSERT_THAT(PutCodeObject(*src, MakeCodeObject("k")), IsOk());
  ExportOptions json;
  json.format = PortableFormat::kJson;
  ASSERT_THAT(ExportDb(*src, dir / "e.json", json), IsOk());
  nlohmann::json doc = nlohmann::json::parse(ReadBytes(dir / "e.json"));
  doc["tuning"][0]["median_ms"] = 0.1;  // a "better" time typed in by hand
  doc["code_objects"][0]["code_base64"] = "AAAA";
  WriteBytes(dir / "e.json", doc.dump());
  int bad = 0;
  absl::StatusOr<std::unique_ptr<SqliteDb>> in = OpenPortableFile(dir / "e.json", &bad);
  ASSERT_THAT(in, IsOk());
  EXPECT_EQ(bad, 2);
  EXPECT_THAT(GetTuning(**in, KeyOf(MakeTuning("f32;n=8"))),
              StatusIs(absl::StatusCode::kNotFound, HasSubstr("f32;n=8")));
}

TEST(PortableJsonTest, InvalidUtf8DoesNotStopTheExport) {
  TempDir dir;
  std::unique_ptr<SqliteDb> src = std::move(*SqliteDb::OpenInMemory());
  ASSERT_THAT(EnsureSchema(*src, "gfx90a"), IsOk());
  TuningRecord r = MakeTuning("f32;n=8");
  r.device_name = "GPU \xff\xfe";
  ASSERT_THAT(PutTuning(*src, r), IsOk());
  ExportOptions json;
  json.format = PortableFormat::kJson;
  absl::StatusOr<MergeStats> stats = ExportDb(*src, dir / "u.json", json);
  ASSERT_THAT(stats, IsOk());
  EXPECT_EQ(stats->tuning_copied, 1);
  int bad = 0;
  EXPECT_THAT(OpenPortableFile(dir / "u.json", &bad), IsOk());
  EXPECT_EQ(bad, 1) << "the replaced bytes no longer match the checksum";
}

TEST(PortableFileErrorsTest, WhatIsNotAnExport) {
  TempDir dir;
  int bad = 0;
  EXPECT_THAT(OpenPortableFile(dir / "missing.json", &bad),
              StatusIs(absl::StatusCode::kNotFound, HasSubstr("missing.json")));
  WriteBytes(dir / "text.json", "{not json");
  EXPECT_THAT(OpenPortableFile(dir / "text.json", &bad),
              StatusIs(absl::StatusCode::kDataLoss, HasSubstr("not valid JSON")));
  WriteBytes(dir / "other.json", R"({"format": "something else"})");
  EXPECT_THAT(OpenPortableFile(dir / "other.json", &bad),
              StatusIs(absl::StatusCode::kDataLoss, HasSubstr("not a jitk cache export")));
  WriteBytes(dir / "future.json", R"({"format": "jitk-cache-export", "format_version": 9})");
  EXPECT_THAT(OpenPortableFile(dir / "future.json", &bad),
              StatusIs(absl::StatusCode::kFailedPrecondition, HasSubstr("format version 9")));
  WriteBytes(dir / "types.json", R"({"format": "jitk-cache-export", "format_version": 1,
      "arch": "gfx90a", "tuning": [1, {"kernel": 5}], "code_objects": {"x": 1}})");
  absl::StatusOr<std::unique_ptr<SqliteDb>> typed = OpenPortableFile(dir / "types.json", &bad);
  ASSERT_THAT(typed, IsOk()) << "mistyped rows are dropped, not fatal";
  EXPECT_EQ(bad, 2);
  EXPECT_EQ(FormatForPath("x.JSON"), PortableFormat::kJson);
  EXPECT_EQ(FormatForPath("x.db"), PortableFormat::kSqlite);
  EXPECT_THAT(ParsePortableFormat("yaml"),
              StatusIs(absl::StatusCode::kInvalidArgument, HasSubstr("sqlite or json")));
}

}  // namespace
}  // namespace jitk::cache
