#include "cache/arch_db.h"

#include <sys/stat.h>
#include <unistd.h>

#include <filesystem>
#include <map>
#include <random>
#include <string>

#include "cache/schema.h"
#include "cache_test_util.h"
#include "gmock/gmock.h"
#include "gtest/gtest.h"

namespace jitk::cache {
namespace {

using ::jitk::cache::testing::AnyNameContains;
using ::jitk::cache::testing::IsOk;
using ::jitk::cache::testing::MakeCodeObject;
using ::jitk::cache::testing::MakeTuning;
using ::jitk::cache::testing::ReadBytes;
using ::jitk::cache::testing::RunInChild;
using ::jitk::cache::testing::StatusIs;
using ::jitk::cache::testing::TempDir;
using ::jitk::cache::testing::Warnings;
using ::jitk::cache::testing::WriteBytes;
using ::testing::HasSubstr;

TuningKey KeyOf(const TuningRecord& r) {
  return {r.kernel, r.shape_key, r.device_name, r.compute_units, r.compiler};
}

class ArchDbTest : public ::testing::Test {
 protected:
  ArchDbOptions Options(DbMode mode = DbMode::kWal) {
    ArchDbOptions options;
    options.mode = mode;
    options.busy_timeout = absl::Seconds(10);
    options.warn = warnings_.Sink();
    return options;
  }

  std::unique_ptr<ArchDb> Open(const std::string& path, DbMode mode = DbMode::kWal,
                               const std::string& arch = "gfx90a") {
    absl::StatusOr<std::unique_ptr<ArchDb>> db = ArchDb::Open(path, arch, Options(mode));
    EXPECT_THAT(db, IsOk());
    return db.ok() ? std::move(*db) : nullptr;
  }

  // Three code objects of 20 KB (several overflow pages each) and four
  // tuning rows; closed afterwards, so the main file holds everything.
  void Fill(const std::string& path, DbMode mode = DbMode::kWal,
            const std::string& arch = "gfx90a") {
    std::unique_ptr<ArchDb> db = Open(path, mode, arch);
    for (const char* key : {"k1", "k2", "k3"}) {
      code_[key] = MakeCodeObject(key, 20000, key[1]);
      ASSERT_THAT(db->PutCodeObject(code_[key]), IsOk());
      code_[key] = *db->GetCodeObject(key);  // with the filled-in version and time
    }
    for (int n : {1024, 4096, 16384, 65536}) {
      TuningRecord r = MakeTuning(absl::StrCat("f32;n=", n), absl::StrCat("BLOCK=", n / 16));
      ASSERT_THAT(db->PutTuning(r), IsOk());
      tuning_.push_back(*db->GetTuning(KeyOf(r)));
    }
    db.reset();
    if (mode == DbMode::kWal) {
      EXPECT_EQ(std::filesystem::file_size(path + "-wal"), 0u) << "closing empties the WAL";
    }
  }

  // Every lookup returns the original row or an error, never other bytes.
  void ExpectNothingCorrupt(ArchDb& db) {
    for (const auto& [key, original] : code_) {
      absl::StatusOr<CodeObjectRecord> got = db.GetCodeObject(key);
      if (got.ok()) {
        EXPECT_EQ(got->code, original.code) << key;
        EXPECT_EQ(got->symbol, original.symbol) << key;
      }
    }
    for (const TuningRecord& r : tuning_) {
      absl::StatusOr<TuningRecord> got = db.GetTuning(KeyOf(r));
      if (got.ok()) EXPECT_EQ(got->config, r.config);
    }
  }

  void ExpectFreshFileWorks(ArchDb& db) {
    CodeObjectRecord fresh = MakeCodeObject("fresh", 3000);
    ASSERT_THAT(db.PutCodeObject(fresh), IsOk());
    absl::StatusOr<CodeObjectRecord> got = db.GetCodeObject("fresh");
    ASSERT_THAT(got, IsOk());
    EXPECT_EQ(got->code, fresh.code);
  }

  TempDir dir_;
  Warnings warnings_;
  std::map<std::string, CodeObjectRecord> code_;
  std::vector<TuningRecord> tuning_;
};

TEST_F(ArchDbTest, RoundTripAndReopen) {
  const std::string path = dir_ / "gfx90a.db";
  Fill(path);
  std::unique_ptr<ArchDb> db = Open(path);
  EXPECT_TRUE(db->writable());
  for (const auto& [key, original] : code_) EXPECT_EQ(db->GetCodeObject(key)->code, original.code);
  for (const TuningRecord& r : tuning_) EXPECT_EQ(*db->GetTuning(KeyOf(r)), r);
  EXPECT_THAT(db->GetCodeObject("none"), StatusIs(absl::StatusCode::kNotFound, HasSubstr("none")));
  EXPECT_EQ(warnings_.lines().size(), 0u) << warnings_.All();
}

TEST_F(ArchDbTest, CreatesTheDirectory) {
  std::unique_ptr<ArchDb> db = Open(dir_ / "a/b/c/gfx90a.db");
  ExpectFreshFileWorks(*db);
}

TEST_F(ArchDbTest, RejectsBadArchNames) {
  EXPECT_THAT(ArchDb::Open(dir_ / "x.db", "../x", Options()),
              StatusIs(absl::StatusCode::kInvalidArgument, HasSubstr("not an architecture")));
}

TEST_F(ArchDbTest, GarbageFileIsMovedAside) {
  const std::string path = dir_ / "gfx90a.db";
  std::string garbage(8192, 0);
  std::mt19937 rng(1);
  for (char& c : garbage) c = static_cast<char>(rng());
  WriteBytes(path, garbage);
  std::unique_ptr<ArchDb> db = Open(path);
  ASSERT_NE(db, nullptr);
  EXPECT_EQ(warnings_.Count("moved it to"), 1) << warnings_.All();
  EXPECT_EQ(warnings_.Count("not a SQLite database"), 1) << warnings_.All();
  EXPECT_TRUE(AnyNameContains(dir_.path(), "gfx90a.db.corrupt-"));
  EXPECT_THAT(db->GetCodeObject("k1"), StatusIs(absl::StatusCode::kNotFound, HasSubstr("k1")));
  ExpectFreshFileWorks(*db);
}

TEST_F(ArchDbTest, TinyFileIsMovedAside) {
  const std::string path = dir_ / "gfx90a.db";
  WriteBytes(path, std::string("SQLite format 3\0abc", 19));
  std::unique_ptr<ArchDb> db = Open(path);
  EXPECT_EQ(warnings_.Count("truncated to 19 bytes"), 1) << warnings_.All();
  ExpectFreshFileWorks(*db);
}

TEST_F(ArchDbTest, TruncatedMidPageIsMovedAsideAndSalvaged) {
  const std::string path = dir_ / "gfx90a.db";
  Fill(path);
  std::filesystem::resize_file(path, std::filesystem::file_size(path) - 1000);
  std::unique_ptr<ArchDb> db = Open(path);
  EXPECT_EQ(warnings_.Count("not a whole number of"), 1) << warnings_.All();
  EXPECT_EQ(warnings_.Count("salvaged"), 1) << warnings_.All();
  EXPECT_TRUE(AnyNameContains(dir_.path(), "gfx90a.db.corrupt-"));
  ExpectNothingCorrupt(*db);
  ExpectFreshFileWorks(*db);
}

TEST_F(ArchDbTest, TruncatedRollbackJournalFileIsCaughtByTheHeader) {
  const std::string path = dir_ / "gfx90a.db";
  Fill(path, DbMode::kNfs);
  std::filesystem::resize_file(path, std::filesystem::file_size(path) / 4096 / 2 * 4096);
  std::unique_ptr<ArchDb> db = Open(path, DbMode::kNfs);
  EXPECT_EQ(warnings_.Count("the header counts"), 1) << warnings_.All();
  ExpectNothingCorrupt(*db);
  ExpectFreshFileWorks(*db);
}

TEST_F(ArchDbTest, TruncatedWalFileIsCaughtOnRead) {
  const std::string path = dir_ / "gfx90a.db";
  Fill(path);
  // Whole pages: nothing to see in the header of a WAL file; the missing
  // pages show up when a lookup needs them.
  std::filesystem::resize_file(path, std::filesystem::file_size(path) / 4096 / 2 * 4096);
  std::unique_ptr<ArchDb> db = Open(path);
  ASSERT_NE(db, nullptr);
  int data_loss = 0;
  for (const auto& [key, original] : code_) {
    absl::StatusOr<CodeObjectRecord> got = db->GetCodeObject(key);
    if (got.ok()) EXPECT_EQ(got->code, original.code);
    data_loss += absl::IsDataLoss(got.status()) ? 1 : 0;
  }
  EXPECT_GE(data_loss + warnings_.Count("moved it to"), 1) << warnings_.All();
  EXPECT_TRUE(AnyNameContains(dir_.path(), "gfx90a.db.corrupt-"));
  ExpectNothingCorrupt(*db);
  ExpectFreshFileWorks(*db);
}

TEST_F(ArchDbTest, GarbagePagesBehindAValidHeader) {
  const std::string path = dir_ / "gfx90a.db";
  Fill(path);
  std::string bytes = ReadBytes(path);
  for (size_t i = 4096; i < bytes.size(); ++i) bytes[i] = static_cast<char>(i * 7919);
  WriteBytes(path, bytes);
  std::unique_ptr<ArchDb> db = Open(path);
  ASSERT_NE(db, nullptr);
  ExpectNothingCorrupt(*db);
  EXPECT_EQ(warnings_.Count("moved it to"), 1) << warnings_.All();
  ExpectFreshFileWorks(*db);
}

TEST_F(ArchDbTest, FutureSchemaIsMovedAside) {
  const std::string path = dir_ / "gfx90a.db";
  Fill(path);
  {
    std::unique_ptr<SqliteDb> raw = std::move(*SqliteDb::Open(path, {}));
    ASSERT_THAT(raw->Exec("PRAGMA user_version=7"), IsOk());
  }
  std::unique_ptr<ArchDb> db = Open(path);
  EXPECT_EQ(warnings_.Count("schema version 7, newer than this jitk's 1"), 1) << warnings_.All();
  EXPECT_EQ(warnings_.Count("nothing salvaged"), 1) << "rows of another schema are not read";
  EXPECT_THAT(db->GetCodeObject("k1"), StatusIs(absl::StatusCode::kNotFound, HasSubstr("k1")));
  ExpectFreshFileWorks(*db);
}

TEST_F(ArchDbTest, ForeignSqliteFileIsMovedAside) {
  const std::string path = dir_ / "gfx90a.db";
  {
    std::unique_ptr<SqliteDb> raw = std::move(*SqliteDb::Open(path, {}));
    ASSERT_THAT(raw->Exec("CREATE TABLE notes (t TEXT); INSERT INTO notes VALUES ('mine')"),
                IsOk());
  }
  std::unique_ptr<ArchDb> db = Open(path);
  EXPECT_EQ(warnings_.Count("not a jitk cache DB"), 1) << warnings_.All();
  ExpectFreshFileWorks(*db);
}

TEST_F(ArchDbTest, OtherArchFileIsMovedAside) {
  const std::string path = dir_ / "gfx90a.db";
  Fill(path, DbMode::kWal, "sm_90");
  std::unique_ptr<ArchDb> db = Open(path);
  EXPECT_EQ(warnings_.Count("holds arch 'sm_90', not 'gfx90a'"), 1) << warnings_.All();
  EXPECT_THAT(db->GetCodeObject("k1"), StatusIs(absl::StatusCode::kNotFound, HasSubstr("k1")));
}

// A file the user named (jitk-tune --db) that is sound but of another arch
// or a newer schema is refused and left as it is, its rows intact.
TEST_F(ArchDbTest, RefuseForeignLeavesOtherArchAndNewerSchemaFiles) {
  const std::string path = dir_ / "cluster.db";
  Fill(path, DbMode::kWal, "sm_90");
  ArchDbOptions options = Options();
  options.refuse_foreign = true;
  EXPECT_THAT(ArchDb::Open(path, "gfx90a", options),
              StatusIs(absl::StatusCode::kFailedPrecondition,
                       HasSubstr("holds arch 'sm_90', not 'gfx90a'")));
  {
    std::unique_ptr<SqliteDb> raw = std::move(*SqliteDb::Open(path, {}));
    ASSERT_THAT(raw->Exec("PRAGMA user_version=7"), IsOk());
  }
  EXPECT_THAT(ArchDb::Open(path, "sm_90", options),
              StatusIs(absl::StatusCode::kFailedPrecondition, HasSubstr("schema version 7")));
  EXPECT_EQ(warnings_.All(), "") << "nothing moved aside";
  for (const std::string& name : testing::ListDir(dir_.path())) {
    EXPECT_EQ(name.find(".corrupt-"), std::string::npos) << name;
  }
  {
    std::unique_ptr<SqliteDb> raw = std::move(*SqliteDb::Open(path, {}));
    ASSERT_THAT(raw->Exec(absl::StrCat("PRAGMA user_version=", kSchemaVersion)), IsOk());
  }
  std::unique_ptr<ArchDb> db = Open(path, DbMode::kWal, "sm_90");
  ASSERT_NE(db, nullptr);
  ExpectNothingCorrupt(*db);
  EXPECT_THAT(db->GetCodeObject("k1"), IsOk()) << "the rows are still there";
}

// The same for files that are no jitk DB at all, and for a rollback-journal
// DB of another arch, which is read without switching it to WAL.
TEST_F(ArchDbTest, RefuseForeignLeavesFilesThatAreNoJitkDb) {
  ArchDbOptions options = Options();
  options.refuse_foreign = true;
  const std::string text = dir_ / "notes.txt";
  WriteBytes(text, "my notes, not a database\n");
  EXPECT_THAT(ArchDb::Open(text, "gfx90a", options),
              StatusIs(absl::StatusCode::kDataLoss, HasSubstr(text)));
  EXPECT_EQ(ReadBytes(text), "my notes, not a database\n");

  const std::string other = dir_ / "other.sqlite";
  {
    std::unique_ptr<SqliteDb> raw = std::move(*SqliteDb::Open(other, {}));
    ASSERT_THAT(raw->Exec("CREATE TABLE notes (t TEXT); INSERT INTO notes VALUES ('mine')"),
                IsOk());
  }
  const std::string other_bytes = ReadBytes(other);
  EXPECT_THAT(ArchDb::Open(other, "gfx90a", options),
              StatusIs(absl::StatusCode::kDataLoss, HasSubstr("not a jitk cache DB")));
  EXPECT_EQ(ReadBytes(other), other_bytes);

  const std::string rollback = dir_ / "sm_90.db";
  Fill(rollback, DbMode::kNfs, "sm_90");
  const std::string rollback_bytes = ReadBytes(rollback);
  EXPECT_THAT(ArchDb::Open(rollback, "gfx90a", options),
              StatusIs(absl::StatusCode::kFailedPrecondition, HasSubstr("holds arch 'sm_90'")));
  EXPECT_EQ(ReadBytes(rollback), rollback_bytes) << "not switched to WAL";
  EXPECT_EQ(warnings_.All(), "");
  for (const std::string& name : testing::ListDir(dir_.path())) {
    EXPECT_EQ(name.find(".corrupt-"), std::string::npos) << name;
    EXPECT_NE(name, "sm_90.db-wal");
  }
}

TEST_F(ArchDbTest, BadBlobChecksumDropsThatRowOnly) {
  const std::string path = dir_ / "gfx90a.db";
  Fill(path);
  {
    std::unique_ptr<SqliteDb> raw = std::move(*SqliteDb::Open(path, {}));
    ASSERT_THAT(raw->Exec("UPDATE code_objects SET code = substr(code, 1, 99) || X'00' || "
                          "substr(code, 101) WHERE key = 'k2'"),
                IsOk());
  }
  std::unique_ptr<ArchDb> db = Open(path);
  EXPECT_THAT(db->GetCodeObject("k2"),
              StatusIs(absl::StatusCode::kDataLoss, HasSubstr("fails its checksum")));
  EXPECT_EQ(warnings_.Count("moved it to"), 1) << warnings_.All();
  EXPECT_EQ(warnings_.Count("salvaged 6 verified rows, dropped 1 bad"), 1) << warnings_.All();
  // The damaged file is kept for inspection; every intact row survived.
  EXPECT_TRUE(AnyNameContains(dir_.path(), "gfx90a.db.corrupt-"));
  EXPECT_THAT(db->GetCodeObject("k2"), StatusIs(absl::StatusCode::kNotFound, HasSubstr("k2")));
  EXPECT_EQ(db->GetCodeObject("k1")->code, code_["k1"].code);
  EXPECT_EQ(db->GetCodeObject("k3")->code, code_["k3"].code);
  for (const TuningRecord& r : tuning_) EXPECT_EQ(*db->GetTuning(KeyOf(r)), r);
}

TEST_F(ArchDbTest, BadTuningChecksumIsDataLoss) {
  const std::string path = dir_ / "gfx90a.db";
  Fill(path);
  {
    std::unique_ptr<SqliteDb> raw = std::move(*SqliteDb::Open(path, {}));
    ASSERT_THAT(raw->Exec("UPDATE tuning SET config = 'BLOCK=1' WHERE shape_key = 'f32;n=4096'"),
                IsOk());
  }
  std::unique_ptr<ArchDb> db = Open(path);
  EXPECT_THAT(db->GetTuning(KeyOf(tuning_[1])),
              StatusIs(absl::StatusCode::kDataLoss, HasSubstr("fails its checksum")));
  EXPECT_THAT(db->GetTuning(KeyOf(tuning_[1])),
              StatusIs(absl::StatusCode::kNotFound, HasSubstr("4096")));
  EXPECT_EQ(*db->GetTuning(KeyOf(tuning_[0])), tuning_[0]);
}

TEST_F(ArchDbTest, RandomDamageNeverYieldsWrongBytesOrCrashes) {
  const std::string pristine = dir_ / "pristine.db";
  Fill(pristine);
  const std::string original = ReadBytes(pristine);
  std::mt19937 rng(42);
  for (int round = 0; round < 40; ++round) {
    TempDir work;
    std::string bytes = original;
    const int flips = 1 + round % 8;
    for (int i = 0; i < flips; ++i)
      bytes[rng() % bytes.size()] ^= static_cast<char>(1 + rng() % 255);
    const std::string path = work / "gfx90a.db";
    WriteBytes(path, bytes);
    absl::StatusOr<std::unique_ptr<ArchDb>> db = ArchDb::Open(path, "gfx90a", Options());
    ASSERT_THAT(db, IsOk()) << "round " << round;
    ExpectNothingCorrupt(**db);
    ExpectFreshFileWorks(**db);
  }
}

TEST_F(ArchDbTest, ReopensAFileReplacedByAnotherProcess) {
  const std::string path = dir_ / "gfx90a.db";
  std::unique_ptr<ArchDb> a = Open(path);
  ASSERT_THAT(a->PutCodeObject(MakeCodeObject("old")), IsOk());
  // Someone moves the file aside and starts a new one.
  std::filesystem::rename(path, dir_ / "elsewhere.db");
  std::filesystem::rename(path + "-wal", dir_ / "elsewhere.db-wal");
  std::filesystem::remove(path + "-shm");
  {
    std::unique_ptr<ArchDb> b = Open(path);
    ASSERT_THAT(b->PutCodeObject(MakeCodeObject("new")), IsOk());
  }
  EXPECT_THAT(a->GetCodeObject("new"), IsOk());
  EXPECT_THAT(a->GetCodeObject("old"), StatusIs(absl::StatusCode::kNotFound, HasSubstr("old")));
}

TEST_F(ArchDbTest, RecreatesADeletedFile) {
  const std::string path = dir_ / "gfx90a.db";
  std::unique_ptr<ArchDb> a = Open(path);
  ASSERT_THAT(a->PutCodeObject(MakeCodeObject("x")), IsOk());
  for (const char* suffix : {"", "-wal", "-shm"}) std::filesystem::remove(path + suffix);
  ExpectFreshFileWorks(*a);
  EXPECT_TRUE(std::filesystem::exists(path));
}

TEST_F(ArchDbTest, InMemory) {
  absl::StatusOr<std::unique_ptr<ArchDb>> db = ArchDb::OpenInMemory("gfx90a", Options());
  ASSERT_THAT(db, IsOk());
  ExpectFreshFileWorks(**db);
  EXPECT_EQ(dir_.path().empty(), false);
  EXPECT_TRUE(testing::ListDir(dir_.path()).empty());
}

TEST_F(ArchDbTest, SystemDbIsReadOnlyAndNeverRepaired) {
  const std::string path = dir_ / "gfx90a.db";
  Fill(path, DbMode::kNfs);
  ArchDbOptions system = Options(DbMode::kReadOnly);
  system.role = DbRole::kSystem;
  absl::StatusOr<std::unique_ptr<ArchDb>> db = ArchDb::Open(path, "gfx90a", system);
  ASSERT_THAT(db, IsOk());
  EXPECT_FALSE((*db)->writable());
  EXPECT_EQ((*db)->GetCodeObject("k1")->code, code_["k1"].code);
  EXPECT_THAT((*db)->PutCodeObject(MakeCodeObject("x")),
              StatusIs(absl::StatusCode::kPermissionDenied, HasSubstr("read-only")));
  EXPECT_THAT(ArchDb::Open(dir_ / "none.db", "gfx90a", system),
              StatusIs(absl::StatusCode::kNotFound, HasSubstr("none.db")));
  // Damage in a shipped DB is reported, the file is left alone.
  WriteBytes(dir_ / "bad.db", std::string(4096, 'z'));
  EXPECT_THAT(ArchDb::Open(dir_ / "bad.db", "gfx90a", system),
              StatusIs(absl::StatusCode::kDataLoss, HasSubstr("bad.db")));
  EXPECT_TRUE(std::filesystem::exists(dir_ / "bad.db"));
  EXPECT_FALSE(AnyNameContains(dir_.path(), "corrupt"));
}

// Read-only files and directories: run unprivileged, since root ignores
// permission bits.
class ArchDbReadOnlyTest : public ArchDbTest, public ::testing::WithParamInterface<DbMode> {};

TEST_P(ArchDbReadOnlyTest, ReadOnlyFileInReadOnlyDirectory) {
  const std::string path = dir_ / "gfx90a.db";
  Fill(path, GetParam());
  for (const auto& entry : std::filesystem::directory_iterator(dir_.path())) {
    ::chmod(entry.path().c_str(), 0444);
  }
  ::chmod(dir_.path().c_str(), 0555);
  std::string result = RunInChild(
      [&]() -> std::string {
        Warnings w;
        ArchDbOptions options = Options(GetParam());
        options.warn = w.Sink();
        absl::StatusOr<std::unique_ptr<ArchDb>> db = ArchDb::Open(path, "gfx90a", options);
        if (!db.ok()) return absl::StrCat("open: ", db.status().ToString());
        if ((*db)->writable()) return "writable";
        absl::StatusOr<CodeObjectRecord> got = (*db)->GetCodeObject("k1");
        if (!got.ok() || got->code != code_["k1"].code) {
          return absl::StrCat("lookup: ", got.status().ToString());
        }
        absl::StatusOr<TuningRecord> t = (*db)->GetTuning(KeyOf(tuning_[0]));
        if (!t.ok()) return absl::StrCat("tuning: ", t.status().ToString());
        absl::Status put = (*db)->PutCodeObject(MakeCodeObject("new"));
        if (!absl::IsPermissionDenied(put)) return absl::StrCat("put: ", put.ToString());
        if (w.Count("read-only") != 1) return absl::StrCat("warnings: ", w.All());
        return "";
      },
      /*unprivileged=*/true);
  EXPECT_EQ(result, "");
}

INSTANTIATE_TEST_SUITE_P(Modes, ArchDbReadOnlyTest, ::testing::Values(DbMode::kWal, DbMode::kNfs),
                         [](const auto& info) { return std::string(DbModeName(info.param)); });

TEST_F(ArchDbTest, ReadOnlyFileInWritableDirectory) {
  const std::string path = dir_ / "gfx90a.db";
  Fill(path, DbMode::kNfs);
  ::chmod(path.c_str(), 0444);
  ::chmod(dir_.path().c_str(), 0777);
  std::string result = RunInChild(
      [&]() -> std::string {
        ArchDbOptions options = Options(DbMode::kNfs);
        Warnings w;
        options.warn = w.Sink();
        absl::StatusOr<std::unique_ptr<ArchDb>> db = ArchDb::Open(path, "gfx90a", options);
        if (!db.ok()) return absl::StrCat("open: ", db.status().ToString());
        if ((*db)->writable()) return "writable";
        if (!(*db)->GetCodeObject("k2").ok()) return "lookup failed";
        if (!absl::IsPermissionDenied((*db)->PutCodeObject(MakeCodeObject("new")))) {
          return "put was not refused";
        }
        return "";
      },
      /*unprivileged=*/true);
  EXPECT_EQ(result, "");
  EXPECT_FALSE(AnyNameContains(dir_.path(), "corrupt")) << "a read-only file is never moved";
}

}  // namespace
}  // namespace jitk::cache
