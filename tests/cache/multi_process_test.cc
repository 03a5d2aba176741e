// Many processes on one DB file: no lost rows, no lock errors, and a writer
// killed mid-transaction loses nothing it had committed.
#include <signal.h>
#include <sys/wait.h>
#include <unistd.h>

#include <chrono>
#include <filesystem>
#include <memory>
#include <random>
#include <set>
#include <string>
#include <thread>
#include <vector>

#include "cache/arch_db.h"
#include "cache/maintenance.h"
#include "cache/schema.h"
#include "cache_test_util.h"
#include "gmock/gmock.h"
#include "gtest/gtest.h"

namespace jitk::cache {
namespace {

using ::jitk::cache::testing::IsOk;
using ::jitk::cache::testing::MakeCodeObject;
using ::jitk::cache::testing::MakeTuning;
using ::jitk::cache::testing::TempDir;

// Runs fn(i) in n forked children at once; returns each one's result ("" = ok).
std::vector<std::string> ForkAll(int n, const std::function<std::string(int)>& fn) {
  std::vector<pid_t> pids;
  std::vector<int> reads;
  for (int i = 0; i < n; ++i) {
    int fds[2];
    if (::pipe(fds) != 0) return {"pipe failed"};
    pid_t pid = ::fork();
    if (pid == 0) {
      ::close(fds[0]);
      std::string result = fn(i);
      ssize_t ignored = ::write(fds[1], result.data(), result.size());
      (void)ignored;
      ::_exit(result.empty() ? 0 : 1);
    }
    ::close(fds[1]);
    pids.push_back(pid);
    reads.push_back(fds[0]);
  }
  std::vector<std::string> results(n);
  for (int i = 0; i < n; ++i) {
    char buffer[4096];
    ssize_t got;
    while ((got = ::read(reads[i], buffer, sizeof(buffer))) > 0) results[i].append(buffer, got);
    ::close(reads[i]);
    int status = 0;
    ::waitpid(pids[i], &status, 0);
    if (!WIFEXITED(status)) results[i] += absl::StrCat(" (died, status ", status, ")");
  }
  return results;
}

ArchDbOptions Options(DbMode mode) {
  ArchDbOptions options;
  options.mode = mode;
  options.busy_timeout = absl::Seconds(60);
  options.warn = [](absl::string_view m) {
    std::fprintf(stderr, "warning in child: %s\n", std::string(m).c_str());
  };
  return options;
}

TuningKey KeyOf(const TuningRecord& r) {
  return {r.kernel, r.shape_key, r.device_name, r.compute_units, r.compiler};
}

std::string Writer(const std::string& path, DbMode mode, int process, int writes) {
  absl::StatusOr<std::unique_ptr<ArchDb>> db = ArchDb::Open(path, "gfx90a", Options(mode));
  if (!db.ok()) return absl::StrCat("open: ", db.status().ToString());
  for (int i = 0; i < writes; ++i) {
    absl::Status status;
    if (i % 10 == 0) {
      status = (*db)->PutCodeObject(MakeCodeObject(absl::StrCat("p", process, "-", i), 2048));
    } else {
      status =
          (*db)->PutTuning(MakeTuning(absl::StrCat("f32;n=", process * 100000 + i + 1))).status();
    }
    if (!status.ok()) return absl::StrCat("write ", i, ": ", status.ToString());
    if (i % 25 == 1) {
      absl::StatusOr<TuningRecord> back =
          (*db)->GetTuning(KeyOf(MakeTuning(absl::StrCat("f32;n=", process * 100000 + i + 1))));
      if (!back.ok()) return absl::StrCat("read back ", i, ": ", back.status().ToString());
    }
  }
  return "";
}

void ExpectAllRows(const std::string& path, int processes, int writes) {
  VerifyReport report = VerifyDbFile(path, "gfx90a");
  EXPECT_TRUE(report.ok()) << absl::StrJoin(report.problems, "; ");
  ASSERT_TRUE(report.summary.has_value());
  EXPECT_EQ(report.summary->code_objects, processes * ((writes + 9) / 10));
  EXPECT_EQ(report.summary->tuning_rows, processes * (writes - (writes + 9) / 10));
}

class MultiProcessTest : public ::testing::TestWithParam<DbMode> {};

TEST_P(MultiProcessTest, EightProcessesWritingAtOnceLoseNothing) {
  TempDir dir;
  const std::string path = dir / "gfx90a.db";
  const int kProcesses = 8;
  // The rollback journal fsyncs every commit: fewer writes keep it CI-sized.
  const int kWrites = GetParam() == DbMode::kWal ? 500 : 25;
  auto start = std::chrono::steady_clock::now();
  std::vector<std::string> results =
      ForkAll(kProcesses, [&](int p) { return Writer(path, GetParam(), p, kWrites); });
  double seconds = std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count();
  for (int p = 0; p < kProcesses; ++p) EXPECT_EQ(results[p], "") << "process " << p;
  ExpectAllRows(path, kProcesses, kWrites);
  std::printf("%d processes x %d writes (%s): %.2f s\n", kProcesses, kWrites,
              std::string(DbModeName(GetParam())).c_str(), seconds);
}

INSTANTIATE_TEST_SUITE_P(Modes, MultiProcessTest, ::testing::Values(DbMode::kWal, DbMode::kNfs),
                         [](const auto& info) { return std::string(DbModeName(info.param)); });

// Processes that open a DB file nobody has created yet, all at once: one
// creates the tables, the others must see either no tables or all of them
// (a file caught mid-creation taken for a foreign one would be moved aside
// under the others' writes). Many rounds, since each is one chance to race.
TEST_P(MultiProcessTest, ProcessesCreatingOneFileAtOnceAllKeepIt) {
  const int kProcesses = 8, kRounds = 40;
  for (int round = 0; round < kRounds; ++round) {
    TempDir dir;
    const std::string path = dir / "gfx90a.db";
    std::vector<std::string> results = ForkAll(kProcesses, [&](int p) -> std::string {
      ArchDbOptions options = Options(GetParam());
      std::string warned;
      options.warn = [&](absl::string_view m) { warned = std::string(m); };
      absl::StatusOr<std::unique_ptr<ArchDb>> db = ArchDb::Open(path, "gfx90a", options);
      if (!db.ok()) return absl::StrCat("open: ", db.status().ToString());
      absl::Status put = (*db)->PutCodeObject(MakeCodeObject(absl::StrCat("p", p), 2048));
      if (!put.ok()) return absl::StrCat("write: ", put.ToString());
      return warned.empty() ? "" : absl::StrCat("warned: ", warned);
    });
    for (int p = 0; p < kProcesses; ++p) {
      ASSERT_EQ(results[p], "") << "round " << round << ", process " << p;
    }
    std::vector<std::string> files;
    for (const auto& entry : std::filesystem::directory_iterator(dir.path())) {
      files.push_back(entry.path().filename().string());
    }
    ASSERT_THAT(files, ::testing::Not(::testing::Contains(::testing::HasSubstr("corrupt"))))
        << "round " << round;
    VerifyReport report = VerifyDbFile(path, "gfx90a");
    ASSERT_TRUE(report.summary.has_value()) << absl::StrJoin(report.problems, "; ");
    EXPECT_EQ(report.summary->code_objects, kProcesses) << "round " << round;
  }
}

// Reads ints from `fd` until `stop` or EOF.
std::vector<int> ReadInts(int fd, int stop) {
  std::vector<int> values;
  int v;
  while (::read(fd, &v, sizeof(v)) == static_cast<ssize_t>(sizeof(v))) {
    if (v == stop) break;
    values.push_back(v);
  }
  return values;
}

TEST(SigkillTest, WriterKilledInsideATransactionLosesNothingCommitted) {
  TempDir dir;
  const std::string path = dir / "gfx90a.db";
  int fds[2];
  ASSERT_EQ(::pipe(fds), 0);
  pid_t pid = ::fork();
  if (pid == 0) {
    ::close(fds[0]);
    absl::StatusOr<std::unique_ptr<ArchDb>> db =
        ArchDb::Open(path, "gfx90a", Options(DbMode::kWal));
    if (!db.ok()) ::_exit(1);
    for (int i = 0; i < 100; ++i) {
      if (!(*db)->PutTuning(MakeTuning(absl::StrCat("f32;n=", i + 1))).ok()) ::_exit(2);
      ssize_t ignored = ::write(fds[1], &i, sizeof(i));
      (void)ignored;
    }
    // Open a transaction with uncommitted rows, then wait to be killed.
    SqliteOpenOptions open;
    std::unique_ptr<SqliteDb> raw = std::move(*SqliteDb::Open(path, open));
    if (!raw->Exec("BEGIN IMMEDIATE").ok()) ::_exit(3);
    for (int i = 0; i < 50; ++i) {
      if (!PutTuning(*raw, MakeTuning(absl::StrCat("f32;n=", 1000 + i))).ok()) ::_exit(4);
    }
    int in_transaction = -1;
    ssize_t ignored = ::write(fds[1], &in_transaction, sizeof(in_transaction));
    (void)ignored;
    while (true) ::pause();
  }
  ::close(fds[1]);
  std::vector<int> committed = ReadInts(fds[0], -1);
  ::close(fds[0]);
  ASSERT_EQ(committed.size(), 100u);
  ASSERT_EQ(::kill(pid, SIGKILL), 0);
  int status;
  ::waitpid(pid, &status, 0);
  ASSERT_TRUE(WIFSIGNALED(status));

  absl::StatusOr<std::unique_ptr<ArchDb>> db = ArchDb::Open(path, "gfx90a", Options(DbMode::kWal));
  ASSERT_THAT(db, IsOk());
  for (int i : committed) {
    EXPECT_THAT((*db)->GetTuning(KeyOf(MakeTuning(absl::StrCat("f32;n=", i + 1)))), IsOk()) << i;
  }
  for (int i = 0; i < 50; ++i) {
    EXPECT_FALSE((*db)->GetTuning(KeyOf(MakeTuning(absl::StrCat("f32;n=", 1000 + i)))).ok())
        << "an uncommitted row survived";
  }
  // The dead writer's lock is gone: a write goes through at once.
  auto start = std::chrono::steady_clock::now();
  EXPECT_THAT((*db)->PutTuning(MakeTuning("f32;n=99999")), IsOk());
  EXPECT_LT(std::chrono::steady_clock::now() - start, std::chrono::seconds(2));
  VerifyReport report = VerifyDbFile(path, "gfx90a");
  EXPECT_TRUE(report.ok()) << absl::StrJoin(report.problems, "; ");
}

TEST(SigkillTest, WriterKilledAtARandomMomentLosesNothingCommitted) {
  std::mt19937 rng(7);
  for (int round = 0; round < 3; ++round) {
    TempDir dir;
    const std::string path = dir / "gfx90a.db";
    int fds[2];
    ASSERT_EQ(::pipe(fds), 0);
    pid_t pid = ::fork();
    if (pid == 0) {
      ::close(fds[0]);
      absl::StatusOr<std::unique_ptr<ArchDb>> db =
          ArchDb::Open(path, "gfx90a", Options(DbMode::kWal));
      if (!db.ok()) ::_exit(1);
      for (int i = 0;; ++i) {
        // 64 KB objects: a commit spans many pages, so the kill lands mid-write.
        if (!(*db)->PutCodeObject(MakeCodeObject(absl::StrCat("k", i), 65536)).ok()) ::_exit(2);
        ssize_t ignored = ::write(fds[1], &i, sizeof(i));
        (void)ignored;
      }
    }
    ::close(fds[1]);
    std::vector<int> committed;
    int v;
    while (committed.size() < 20 && ::read(fds[0], &v, sizeof(v)) == sizeof(v))
      committed.push_back(v);
    std::this_thread::sleep_for(std::chrono::microseconds(rng() % 20000));
    ::kill(pid, SIGKILL);
    while (::read(fds[0], &v, sizeof(v)) == sizeof(v)) committed.push_back(v);
    ::close(fds[0]);
    ::waitpid(pid, nullptr, 0);

    absl::StatusOr<std::unique_ptr<ArchDb>> db =
        ArchDb::Open(path, "gfx90a", Options(DbMode::kWal));
    ASSERT_THAT(db, IsOk());
    for (int i : committed) {
      absl::StatusOr<CodeObjectRecord> got = (*db)->GetCodeObject(absl::StrCat("k", i));
      ASSERT_THAT(got, IsOk()) << "round " << round << " lost committed row " << i;
      EXPECT_EQ(got->code, MakeCodeObject(absl::StrCat("k", i), 65536).code);
    }
    VerifyReport report = VerifyDbFile(path, "gfx90a");
    EXPECT_TRUE(report.ok()) << absl::StrJoin(report.problems, "; ");
  }
}

}  // namespace
}  // namespace jitk::cache
