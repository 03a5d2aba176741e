// jitk-tune end to end: the built binary, compile-only for gfx90a and sm_90
// (the real compilers work without a GPU), rows in the DB, resume, shards.
#include <sys/wait.h>
#include <unistd.h>

#include <cstdio>
#include <filesystem>
#include <fstream>
#include <set>
#include <sstream>
#include <string>

#include "gmock/gmock.h"
#include "gtest/gtest.h"
#include "lib/backend/backend.h"
#include "nlohmann/json.hpp"
#include "sqlite3.h"

namespace jitk::tuner {
namespace {

using ::testing::HasSubstr;
namespace fs = std::filesystem;

// <build>/tests/jitk_tuner_tests → <build>/tuner/jitk-tune
fs::path Tool() {
  return fs::read_symlink("/proc/self/exe").parent_path().parent_path() / "tuner" / "jitk-tune";
}

struct ToolRun {
  int status = -1;
  std::string out, err;
};

class JitkTuneTest : public ::testing::Test {
 protected:
  void SetUp() override {
    ASSERT_TRUE(fs::exists(Tool())) << Tool() << " is not built";
    std::string name = ::testing::UnitTest::GetInstance()->current_test_info()->name();
    for (char& c : name) {
      if (c == '/') c = '_';  // parameterized names: "Test/0"
    }
    dir_ = fs::temp_directory_path() / ("jitk_tune_test_" + std::to_string(getpid()) + "_" + name);
    fs::remove_all(dir_);
    fs::create_directories(dir_);
  }
  void TearDown() override { fs::remove_all(dir_); }

  ToolRun Tune(const std::string& args) {
    const fs::path err = dir_ / "stderr.txt";
    const std::string command = "JITK_CACHE_DIR='" + (dir_ / "cache").string() + "' '" +
                                Tool().string() + "' " + args + " 2>'" + err.string() + "'";
    ToolRun run;
    FILE* pipe = popen(command.c_str(), "r");
    if (pipe == nullptr) return run;
    char buffer[4096];
    size_t n;
    while ((n = fread(buffer, 1, sizeof buffer, pipe)) > 0) run.out.append(buffer, n);
    const int status = pclose(pipe);
    run.status = WIFEXITED(status) ? WEXITSTATUS(status) : -1;
    std::ifstream in(err);
    std::stringstream text;
    text << in.rdbuf();
    run.err = text.str();
    return run;
  }

  static bool CompilerFor(const char* arch) {
    absl::StatusOr<Target> target = ParseTarget(arch);
    absl::StatusOr<jitk::internal::Backend*> backend = jitk::internal::BackendFor(target->vendor);
    return backend.ok() && (*backend)->Compiler().ok();
  }

  // Rows of code_objects in `db`: (target, config, registers).
  static std::vector<std::tuple<std::string, std::string, int>> CodeObjects(const fs::path& db) {
    std::vector<std::tuple<std::string, std::string, int>> rows;
    sqlite3* handle = nullptr;
    if (sqlite3_open_v2(db.c_str(), &handle, SQLITE_OPEN_READONLY, nullptr) != SQLITE_OK) {
      sqlite3_close(handle);
      return rows;
    }
    sqlite3_stmt* stmt = nullptr;
    sqlite3_prepare_v2(handle, "SELECT target, config, registers FROM code_objects ORDER BY config",
                       -1, &stmt, nullptr);
    while (stmt != nullptr && sqlite3_step(stmt) == SQLITE_ROW) {
      rows.emplace_back(reinterpret_cast<const char*>(sqlite3_column_text(stmt, 0)),
                        reinterpret_cast<const char*>(sqlite3_column_text(stmt, 1)),
                        sqlite3_column_int(stmt, 2));
    }
    sqlite3_finalize(stmt);
    sqlite3_close(handle);
    return rows;
  }

  fs::path dir_;
};

TEST_F(JitkTuneTest, HelpListsTheFlags) {
  ToolRun run = Tune("--help");
  EXPECT_EQ(run.status, 0);
  for (const char* flag : {"--arch", "--kernel", "--shape", "--shapes", "--all", "--db",
                           "--strategy", "--budget", "--shard", "--resume", "--json"}) {
    EXPECT_THAT(run.out, HasSubstr(flag));
  }
  run = Tune("--list-strategies");
  EXPECT_EQ(run.status, 0);
  EXPECT_THAT(run.out, HasSubstr("guided"));
}

TEST_F(JitkTuneTest, BadUsageExitsWithTwoAndSaysWhy) {
  ToolRun run = Tune("--arch sm_90 --kernel scaled_add --shape 'f16;n=64' --shard 4/4");
  EXPECT_EQ(run.status, 2);
  EXPECT_THAT(run.err, HasSubstr("bad shard '4/4'"));
  run = Tune("--arch sm_90");
  EXPECT_EQ(run.status, 2);
  EXPECT_THAT(run.err, HasSubstr("nothing to tune"));
  run = Tune("--arch sm_90 --shape 'f16;n=64'");
  EXPECT_EQ(run.status, 2);
  EXPECT_THAT(run.err, HasSubstr("--shape needs --kernel"));
  run = Tune("--arch sm_90 --kernel scaled_add --shape 'f16;n=64' --budget soon");
  EXPECT_EQ(run.status, 2);
  EXPECT_THAT(run.err, HasSubstr("'soon'"));
  run = Tune("--arch sm_90 --kernel scaled_add --strategy annealing");
  EXPECT_EQ(run.status, 2);
  EXPECT_THAT(run.err, HasSubstr("unknown strategy 'annealing'"));
  run = Tune("--arch gfx1 --kernel scaled_add");
  EXPECT_NE(run.status, 0);
  EXPECT_THAT(run.err, HasSubstr("gfx1"));
}

// A DB of another arch named with --db is refused with the fix, and kept
// as it was (not moved aside as damaged).
TEST_F(JitkTuneTest, DbOfAnotherArchIsRefusedAndKept) {
  if (!CompilerFor("sm_90")) GTEST_SKIP() << "no NVRTC";
  const fs::path db = dir_ / "cluster.db";
  ToolRun run = Tune("--arch sm_90 --compile-only --kernel scaled_add --shape 'f32;n=4096' "
                     "--budget 1 --db '" + db.string() + "'");
  ASSERT_EQ(run.status, 0) << run.err;
  const auto rows = CodeObjects(db);
  ASSERT_EQ(rows.size(), 1u);
  run = Tune("--arch sm_80 --compile-only --kernel scaled_add --shape 'f32;n=4096' --budget 1 "
             "--db '" + db.string() + "'");
  EXPECT_NE(run.status, 0);
  EXPECT_THAT(run.err, HasSubstr("holds arch 'sm_90', not 'sm_80'"));
  EXPECT_THAT(run.err, HasSubstr("pass --db a new file for sm_80"));
  EXPECT_EQ(CodeObjects(db), rows) << "the sm_90 DB is where it was, its rows intact";
  for (const auto& entry : fs::directory_iterator(dir_)) {
    EXPECT_EQ(entry.path().string().find(".corrupt-"), std::string::npos) << entry.path();
  }
}

// A file that is no DB at all, named with --db, is refused and kept.
TEST_F(JitkTuneTest, DbThatIsNoDatabaseIsRefusedAndKept) {
  const fs::path notes = dir_ / "notes.txt";
  { std::ofstream(notes) << "my notes\n"; }
  ToolRun run = Tune("--arch sm_90 --compile-only --kernel scaled_add --shape 'f32;n=4096' "
                     "--budget 1 --db '" + notes.string() + "'");
  EXPECT_NE(run.status, 0);
  EXPECT_THAT(run.err, HasSubstr("leaves a file named by --db as it is"));
  std::ifstream in(notes);
  std::stringstream text;
  text << in.rdbuf();
  EXPECT_EQ(text.str(), "my notes\n");
  for (const auto& entry : fs::directory_iterator(dir_)) {
    EXPECT_EQ(entry.path().string().find(".corrupt-"), std::string::npos) << entry.path();
  }
}

class JitkTuneArchTest : public JitkTuneTest, public ::testing::WithParamInterface<const char*> {};

TEST_P(JitkTuneArchTest, CompileOnlyWritesCodeObjectsAndResourceReportsToTheDb) {
  const std::string arch = GetParam();
  if (!CompilerFor(arch.c_str())) GTEST_SKIP() << "no compiler for " << arch;
  const fs::path db = dir_ / (arch + ".db");
  // --compile-only: on a machine with this GPU the tool would time instead.
  ToolRun run = Tune("--arch " + arch +
                     " --compile-only --kernel scaled_add --shape 'f32;n=1048576' --budget 4 "
                     "--json --db '" + db.string() + "'");
  ASSERT_EQ(run.status, 0) << run.err;
  EXPECT_THAT(run.err, HasSubstr("compile-only"));
  EXPECT_THAT(run.err, HasSubstr("timing needs the " + arch + " device"));
  nlohmann::json doc = nlohmann::json::parse(run.out);
  ASSERT_EQ(doc["results"].size(), 1u);
  const nlohmann::json& r = doc["results"][0];
  EXPECT_EQ(r["compile_only"], true);
  EXPECT_EQ(r["arch"], arch);
  EXPECT_EQ(r["evaluated"], 4);
  EXPECT_EQ(r["candidates"][0]["config"], r["default_config"]);
  for (const auto& c : r["candidates"]) {
    EXPECT_EQ(c["outcome"], "compiled-only") << c.dump();
    EXPECT_GT(c["registers"].get<int>(), 0);
  }
  auto rows = CodeObjects(db);
  ASSERT_EQ(rows.size(), 4u);
  for (const auto& [target, config, registers] : rows) {
    EXPECT_THAT(target, HasSubstr(arch));
    EXPECT_THAT(config, HasSubstr("BLOCK="));
    EXPECT_GT(registers, 0);
  }

  // --resume continues from the DB: the four stored code objects are reused.
  run = Tune("--arch " + arch +
             " --compile-only --kernel scaled_add --shape 'f32;n=1048576' --budget 6 --json --resume --db '" +
             db.string() + "'");
  ASSERT_EQ(run.status, 0) << run.err;
  doc = nlohmann::json::parse(run.out);
  EXPECT_EQ(doc["results"][0]["evaluated"], 6);
  EXPECT_EQ(doc["results"][0]["code_reused"], 4);
  EXPECT_EQ(CodeObjects(db).size(), 6u);

  // The human summary says what happened and what is missing.
  run = Tune("--arch " + arch +
             " --compile-only --kernel scaled_add --shape 'f32;n=1048576' --budget 2 --resume --db '" +
             db.string() + "'");
  ASSERT_EQ(run.status, 0) << run.err;
  EXPECT_THAT(run.out, HasSubstr("configs"));
  EXPECT_THAT(run.out, HasSubstr("scaled_add  f32;n=1048576"));
  EXPECT_THAT(run.out, HasSubstr("timing needs the " + arch + " device"));
  EXPECT_THAT(run.err, HasSubstr("[1/1] scaled_add f32;n=1048576"));
}

INSTANTIATE_TEST_SUITE_P(Archs, JitkTuneArchTest, ::testing::Values("gfx90a", "sm_90"));

TEST_F(JitkTuneTest, ShardsOfAllCoverTheStandardShapesOnce) {
  if (!CompilerFor("sm_90")) GTEST_SKIP() << "no NVRTC";
  std::multiset<std::string> shapes;
  for (int k = 0; k < 3; ++k) {
    ToolRun run = Tune("--arch sm_90 --all --budget 1 --json --shard " + std::to_string(k) +
                       "/3 --db '" + (dir_ / "sm_90.db").string() + "'");
    ASSERT_EQ(run.status, 0) << run.err;
    nlohmann::json doc = nlohmann::json::parse(run.out);
    // 9 scaled_add + 5 sparse_attn shapes: shards of 5, 5 and 4.
    EXPECT_EQ(doc["results"].size(), k < 2 ? 5u : 4u);
    for (const auto& r : doc["results"])
      shapes.insert(r["kernel"].get<std::string>() + " " + r["shape"].get<std::string>());
  }
  EXPECT_EQ(shapes.size(), 14u);
  EXPECT_EQ(std::set<std::string>(shapes.begin(), shapes.end()).size(), 14u);
  EXPECT_EQ(shapes.count("scaled_add f16;n=16777216"), 1u);
  int sparse_attn = 0;
  for (const std::string& s : shapes) sparse_attn += s.rfind("sparse_attn ", 0) == 0;
  EXPECT_EQ(sparse_attn, 5);
}

TEST_F(JitkTuneTest, ShapesFilesAreRead) {
  if (!CompilerFor("sm_90")) GTEST_SKIP() << "no NVRTC";
  std::ofstream(dir_ / "shapes.txt") << "# two shapes\nscaled_add f16;n=4096\nbf16;n=4096\n";
  ToolRun run =
      Tune("--arch sm_90 --kernel scaled_add --budget 1 --json --shapes '" +
           (dir_ / "shapes.txt").string() + "' --db '" + (dir_ / "sm_90.db").string() + "'");
  ASSERT_EQ(run.status, 0) << run.err;
  nlohmann::json doc = nlohmann::json::parse(run.out);
  ASSERT_EQ(doc["results"].size(), 2u);
  EXPECT_EQ(doc["results"][0]["shape"], "bf16;n=4096");  // sorted
  EXPECT_EQ(doc["results"][1]["shape"], "f16;n=4096");
}

}  // namespace
}  // namespace jitk::tuner
