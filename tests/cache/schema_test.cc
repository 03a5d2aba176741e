#include "cache/schema.h"

#include <memory>

#include "cache_test_util.h"
#include "gmock/gmock.h"
#include "gtest/gtest.h"

namespace jitk::cache {
namespace {

using ::jitk::cache::testing::IsOk;
using ::jitk::cache::testing::StatusIs;
using ::jitk::cache::testing::TempDir;
using ::testing::HasSubstr;

std::unique_ptr<SqliteDb> Memory() {
  absl::StatusOr<std::unique_ptr<SqliteDb>> db = SqliteDb::OpenInMemory();
  EXPECT_TRUE(db.ok());
  return std::move(*db);
}

TEST(SchemaTest, CreatesTablesAndMarkers) {
  std::unique_ptr<SqliteDb> db = Memory();
  ASSERT_THAT(EnsureSchema(*db, "gfx942"), IsOk());
  absl::StatusOr<SchemaInfo> info = ReadSchemaInfo(*db);
  ASSERT_THAT(info, IsOk());
  EXPECT_EQ(info->application_id, kApplicationId);
  EXPECT_EQ(info->version, kSchemaVersion);
  EXPECT_EQ(info->arch, "gfx942");
  EXPECT_TRUE(info->has_tables);
  EXPECT_TRUE(absl::StartsWith(info->created_by, "jitk "));
  // Idempotent.
  EXPECT_THAT(EnsureSchema(*db, "gfx942"), IsOk());
}

TEST(SchemaTest, OtherArchIsFailedPrecondition) {
  std::unique_ptr<SqliteDb> db = Memory();
  ASSERT_THAT(EnsureSchema(*db, "gfx942"), IsOk());
  EXPECT_THAT(EnsureSchema(*db, "sm_90"),
              StatusIs(absl::StatusCode::kFailedPrecondition, HasSubstr("holds arch 'gfx942'")));
  EXPECT_THAT(EnsureSchema(*db, ""), IsOk()) << "an empty arch accepts any";
}

TEST(SchemaTest, FutureVersionIsFailedPrecondition) {
  std::unique_ptr<SqliteDb> db = Memory();
  ASSERT_THAT(EnsureSchema(*db, "gfx942"), IsOk());
  ASSERT_THAT(db->Exec("PRAGMA user_version=99"), IsOk());
  EXPECT_THAT(EnsureSchema(*db, "gfx942"),
              StatusIs(absl::StatusCode::kFailedPrecondition,
                       HasSubstr("schema version 99, newer than this jitk's 1")));
}

TEST(SchemaTest, ForeignDbIsDataLoss) {
  std::unique_ptr<SqliteDb> db = Memory();
  ASSERT_THAT(db->Exec("CREATE TABLE notes (text)"), IsOk());
  EXPECT_THAT(EnsureSchema(*db, "gfx942"),
              StatusIs(absl::StatusCode::kDataLoss, HasSubstr("not a jitk cache DB")));
}

TEST(SchemaTest, MissingTablesIsDataLoss) {
  std::unique_ptr<SqliteDb> db = Memory();
  ASSERT_THAT(EnsureSchema(*db, "gfx942"), IsOk());
  ASSERT_THAT(db->Exec("DROP TABLE tuning"), IsOk());
  EXPECT_THAT(EnsureSchema(*db, "gfx942"),
              StatusIs(absl::StatusCode::kDataLoss, HasSubstr("lacks the jitk tables")));
}

TEST(SchemaTest, MigratesAnOlderFileStepByStep) {
  std::unique_ptr<SqliteDb> db = Memory();
  ASSERT_THAT(EnsureSchema(*db, "gfx942"), IsOk());
  const Migration steps[] = {
      {1, "ALTER TABLE tuning ADD COLUMN power_w REAL NOT NULL DEFAULT 0"},
      {2, "CREATE TABLE notes (text TEXT)"},
  };
  ASSERT_THAT(EnsureSchema(*db, "gfx942", steps, 3), IsOk());
  EXPECT_EQ(ReadSchemaInfo(*db)->version, 3);
  EXPECT_THAT(db->Exec("SELECT power_w FROM tuning; SELECT text FROM notes"), IsOk());
}

TEST(SchemaTest, MissingMigrationIsFailedPrecondition) {
  std::unique_ptr<SqliteDb> db = Memory();
  ASSERT_THAT(EnsureSchema(*db, "gfx942"), IsOk());
  const Migration steps[] = {{2, "SELECT 1"}};
  EXPECT_THAT(EnsureSchema(*db, "gfx942", steps, 3),
              StatusIs(absl::StatusCode::kFailedPrecondition,
                       HasSubstr("no migration from schema version 1 to 2")));
  EXPECT_EQ(ReadSchemaInfo(*db)->version, 1) << "a failed migration changes nothing";
}

TEST(SchemaTest, ReadOnlyOldFileCannotMigrate) {
  TempDir dir;
  {
    std::unique_ptr<SqliteDb> db = std::move(*SqliteDb::Open(dir / "a.db", {}));
    ASSERT_THAT(EnsureSchema(*db, "gfx942"), IsOk());
  }
  SqliteOpenOptions ro;
  ro.read_only = true;
  std::unique_ptr<SqliteDb> db = std::move(*SqliteDb::Open(dir / "a.db", ro));
  const Migration steps[] = {{1, "CREATE TABLE x (a)"}};
  EXPECT_THAT(EnsureSchema(*db, "gfx942", steps, 2),
              StatusIs(absl::StatusCode::kFailedPrecondition, HasSubstr("read-only")));
  EXPECT_THAT(EnsureSchema(*db, "gfx942"), IsOk()) << "the current version is readable";
}

TEST(SchemaTest, ReleasedMigrationsLeadToTheCurrentVersion) {
  // Every version below kSchemaVersion has exactly one step.
  for (int v = 1; v < kSchemaVersion; ++v) {
    int steps = 0;
    for (const Migration& m : Migrations()) steps += m.from_version == v ? 1 : 0;
    EXPECT_EQ(steps, 1) << "from version " << v;
  }
  for (const Migration& m : Migrations()) EXPECT_LT(m.from_version, kSchemaVersion);
}

}  // namespace
}  // namespace jitk::cache
