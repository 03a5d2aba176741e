#include "cache/sqlite_db.h"

#include <sqlite3.h>

#include <memory>
#include <string>
#include <thread>

#include "cache_test_util.h"
#include "gmock/gmock.h"
#include "gtest/gtest.h"

namespace jitk::cache {
namespace {

using ::jitk::cache::testing::IsOk;
using ::jitk::cache::testing::StatusIs;
using ::jitk::cache::testing::TempDir;
using ::jitk::cache::testing::WriteBytes;
using ::testing::HasSubstr;

std::unique_ptr<SqliteDb> OpenOrDie(const std::string& path, SqliteOpenOptions options = {}) {
  absl::StatusOr<std::unique_ptr<SqliteDb>> db = SqliteDb::Open(path, options);
  EXPECT_TRUE(db.ok()) << db.status();
  return db.ok() ? std::move(*db) : nullptr;
}

std::string JournalMode(SqliteDb& db) {
  absl::StatusOr<Statement> s = db.Prepare("PRAGMA journal_mode");
  EXPECT_TRUE(s.ok());
  EXPECT_TRUE(*s->Step());
  return std::string(s->ColumnText(0));
}

TEST(SqliteDbTest, BindsAndReadsEveryType) {
  TempDir dir;
  std::unique_ptr<SqliteDb> db = OpenOrDie(dir / "t.db");
  ASSERT_THAT(db->Exec("CREATE TABLE t (a TEXT, b BLOB, c INTEGER, d REAL)"), IsOk());
  std::string blob("\0\1\2\3", 4);
  {
    absl::StatusOr<Statement> s = db->Prepare("INSERT INTO t VALUES (?1, ?2, ?3, ?4)");
    ASSERT_THAT(s, IsOk());
    ASSERT_THAT(s->BindText(1, "héllo")
                    .BindBlob(2, blob)
                    .BindInt(3, -(int64_t{1} << 40))
                    .BindDouble(4, 0.1)
                    .Run(),
                IsOk());
    s->Reset();
    ASSERT_THAT(s->BindText(1, "").BindBlob(2, "").BindInt(3, 0).BindDouble(4, 0).Run(), IsOk());
  }
  absl::StatusOr<Statement> s = db->Prepare("SELECT a, b, c, d FROM t ORDER BY rowid");
  ASSERT_THAT(s, IsOk());
  ASSERT_TRUE(*s->Step());
  EXPECT_EQ(s->ColumnText(0), "héllo");
  EXPECT_EQ(s->ColumnBlob(1), blob);
  EXPECT_EQ(s->ColumnInt(2), -(int64_t{1} << 40));
  EXPECT_EQ(s->ColumnDouble(3), 0.1);
  ASSERT_TRUE(*s->Step());
  EXPECT_FALSE(s->ColumnIsNull(1)) << "an empty blob must not become NULL";
  EXPECT_FALSE(*s->Step());
}

TEST(SqliteDbTest, JournalModes) {
  TempDir dir;
  SqliteOpenOptions wal;
  EXPECT_EQ(JournalMode(*OpenOrDie(dir / "w.db", wal)), "wal");
  SqliteOpenOptions del;
  del.journal = JournalMode::kDelete;
  EXPECT_EQ(JournalMode(*OpenOrDie(dir / "d.db", del)), "delete");
  // kKeep leaves an existing WAL file as it is.
  SqliteOpenOptions keep;
  keep.journal = JournalMode::kKeep;
  EXPECT_EQ(JournalMode(*OpenOrDie(dir / "w.db", keep)), "wal");
}

TEST(SqliteDbTest, GarbageFileIsDataLoss) {
  TempDir dir;
  WriteBytes(dir / "g.db", std::string(4096, 'g'));
  EXPECT_THAT(SqliteDb::Open(dir / "g.db", {}),
              StatusIs(absl::StatusCode::kDataLoss, HasSubstr("g.db")));
}

TEST(SqliteDbTest, MissingFileWithoutCreateIsUnavailable) {
  TempDir dir;
  SqliteOpenOptions options;
  options.create = false;
  EXPECT_THAT(SqliteDb::Open(dir / "none.db", options),
              StatusIs(absl::StatusCode::kUnavailable, HasSubstr("none.db")));
}

TEST(SqliteDbTest, ReadOnlyConnectionRefusesWrites) {
  TempDir dir;
  ASSERT_THAT(OpenOrDie(dir / "r.db")->Exec("CREATE TABLE t (a)"), IsOk());
  SqliteOpenOptions ro;
  ro.read_only = true;
  std::unique_ptr<SqliteDb> db = OpenOrDie(dir / "r.db", ro);
  EXPECT_TRUE(db->read_only());
  EXPECT_THAT(db->Exec("INSERT INTO t VALUES (1)"),
              StatusIs(absl::StatusCode::kPermissionDenied, HasSubstr("readonly")));
}

TEST(SqliteDbTest, LockHeldPastTimeoutIsUnavailable) {
  TempDir dir;
  std::unique_ptr<SqliteDb> holder = OpenOrDie(dir / "l.db");
  ASSERT_THAT(holder->Exec("CREATE TABLE t (a); BEGIN IMMEDIATE; INSERT INTO t VALUES (1)"),
              IsOk());
  SqliteOpenOptions quick;
  quick.busy_timeout = absl::Milliseconds(200);
  std::unique_ptr<SqliteDb> waiter = OpenOrDie(dir / "l.db", quick);
  absl::Time start = absl::Now();
  absl::Status status =
      waiter->WriteTransaction([&] { return waiter->Exec("INSERT INTO t VALUES (2)"); });
  absl::Duration waited = absl::Now() - start;
  EXPECT_THAT(status, StatusIs(absl::StatusCode::kUnavailable, HasSubstr("locked")));
  EXPECT_GE(waited, absl::Milliseconds(190));
  EXPECT_LT(waited, absl::Seconds(3));
}

TEST(SqliteDbTest, WriteTransactionWaitsForAShortLock) {
  TempDir dir;
  std::unique_ptr<SqliteDb> holder = OpenOrDie(dir / "l.db");
  ASSERT_THAT(holder->Exec("CREATE TABLE t (a); BEGIN IMMEDIATE; INSERT INTO t VALUES (1)"),
              IsOk());
  std::unique_ptr<SqliteDb> waiter = OpenOrDie(dir / "l.db");
  std::thread release([&] {
    absl::SleepFor(absl::Milliseconds(100));
    EXPECT_THAT(holder->Exec("COMMIT"), IsOk());
  });
  EXPECT_THAT(waiter->WriteTransaction([&] { return waiter->Exec("INSERT INTO t VALUES (2)"); }),
              IsOk());
  release.join();
  absl::StatusOr<Statement> count = waiter->Prepare("SELECT COUNT(*) FROM t");
  ASSERT_TRUE(*count->Step());
  EXPECT_EQ(count->ColumnInt(0), 2);
}

TEST(SqliteDbTest, FailedTransactionRollsBack) {
  absl::StatusOr<std::unique_ptr<SqliteDb>> db = SqliteDb::OpenInMemory();
  ASSERT_THAT(db, IsOk());
  ASSERT_THAT((*db)->Exec("CREATE TABLE t (a)"), IsOk());
  absl::Status status = (*db)->WriteTransaction([&]() -> absl::Status {
    EXPECT_THAT((*db)->Exec("INSERT INTO t VALUES (1)"), IsOk());
    return absl::InvalidArgumentError("nope");
  });
  EXPECT_THAT(status, StatusIs(absl::StatusCode::kInvalidArgument, HasSubstr("nope")));
  absl::StatusOr<Statement> count = (*db)->Prepare("SELECT COUNT(*) FROM t");
  ASSERT_TRUE(*count->Step());
  EXPECT_EQ(count->ColumnInt(0), 0);
}

TEST(SqliteDbTest, BadSqlIsInternal) {
  absl::StatusOr<std::unique_ptr<SqliteDb>> db = SqliteDb::OpenInMemory();
  EXPECT_THAT((*db)->Prepare("SELEKT 1"),
              StatusIs(absl::StatusCode::kInternal, HasSubstr("SELEKT")));
}

}  // namespace
}  // namespace jitk::cache
