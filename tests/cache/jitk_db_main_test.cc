// Runs the built jitk-db binary: <build>/cache/jitk-db next to
// <build>/tests/jitk_cache_tests.
#include <sys/wait.h>
#include <unistd.h>

#include <cstdio>
#include <filesystem>
#include <nlohmann/json.hpp>
#include <string>

#include "cache/arch_db.h"
#include "cache/code_object_store.h"
#include "cache/schema.h"
#include "cache/tuning_store.h"
#include "cache_test_util.h"
#include "gmock/gmock.h"
#include "gtest/gtest.h"

namespace jitk::cache {
namespace {

using ::jitk::cache::testing::AnyNameContains;
using ::jitk::cache::testing::IsOk;
using ::jitk::cache::testing::MakeCodeObject;
using ::jitk::cache::testing::MakeTuning;
using ::jitk::cache::testing::TempDir;
using ::jitk::cache::testing::WriteBytes;
using ::testing::HasSubstr;
using Json = nlohmann::json;

std::string ToolPath() {
  if (const char* path = std::getenv("JITK_DB_TOOL")) return path;
  std::filesystem::path exe = std::filesystem::read_symlink("/proc/self/exe").parent_path();
  for (const char* rel : {"../cache/jitk-db", "cache/jitk-db"}) {
    std::filesystem::path candidate = exe / rel;
    if (std::filesystem::exists(candidate)) return candidate.lexically_normal().string();
  }
  return (exe / "../cache/jitk-db").lexically_normal().string();
}

struct ToolRun {
  int exit_code;
  std::string out;  // stdout and stderr
};

ToolRun Tool(const std::string& args, const std::string& cache_dir) {
  std::string command = absl::StrCat("JITK_CACHE_DIR='", cache_dir, "' JITK_SYSTEM_DB_PATH= '",
                                     ToolPath(), "' ", args, " 2>&1");
  ToolRun run{-1, ""};
  FILE* pipe = ::popen(command.c_str(), "r");
  if (pipe == nullptr) return run;
  char buffer[4096];
  size_t n;
  while ((n = std::fread(buffer, 1, sizeof(buffer), pipe)) > 0) run.out.append(buffer, n);
  int status = ::pclose(pipe);
  run.exit_code = WIFEXITED(status) ? WEXITSTATUS(status) : -1;
  return run;
}

Json ParseJson(const ToolRun& run) {
  Json j = Json::parse(run.out, nullptr, false);
  EXPECT_FALSE(j.is_discarded()) << run.out;
  return j;
}

TuningKey KeyOf(const TuningRecord& r) {
  return {r.kernel, r.shape_key, r.device_name, r.compute_units, r.compiler};
}

class JitkDbTest : public ::testing::Test {
 protected:
  void SetUp() override {
    ASSERT_TRUE(std::filesystem::exists(ToolPath()))
        << "jitk-db not built at " << ToolPath() << " (build the jitk-db target)";
  }
  // A DB file with the given rows (rollback journal, closed).
  void MakeDb(const std::string& path, const std::vector<TuningRecord>& tuning,
              const std::vector<CodeObjectRecord>& code = {}, const std::string& arch = "gfx90a") {
    ArchDbOptions options;
    options.mode = DbMode::kNfs;
    absl::StatusOr<std::unique_ptr<ArchDb>> db = ArchDb::Open(path, arch, options);
    ASSERT_THAT(db, IsOk());
    for (const TuningRecord& r : tuning) ASSERT_THAT((*db)->PutTuning(r), IsOk());
    for (const CodeObjectRecord& r : code) ASSERT_THAT((*db)->PutCodeObject(r), IsOk());
  }
  absl::StatusOr<TuningRecord> ReadTuning(const std::string& path, const TuningRecord& r) {
    std::unique_ptr<SqliteDb> db = std::move(*SqliteDb::Open(path, {}));
    return GetTuning(*db, KeyOf(r));
  }
  TempDir dir_;
  std::string cache_ = dir_ / "cache";
};

TEST_F(JitkDbTest, HelpAndUsage) {
  ToolRun help = Tool("--help", cache_);
  EXPECT_EQ(help.exit_code, 0);
  for (const char* command : {"list", "show", "export", "import", "merge", "verify", "prune"}) {
    EXPECT_THAT(help.out, HasSubstr(command));
  }
  EXPECT_EQ(Tool("", cache_).exit_code, 2);
  EXPECT_EQ(Tool("frobnicate", cache_).exit_code, 2);
  EXPECT_EQ(Tool("prune gfx90a", cache_).exit_code, 2) << "prune needs a criterion";
  ToolRun prune_help = Tool("prune --help", cache_);
  EXPECT_EQ(prune_help.exit_code, 0);
  EXPECT_THAT(prune_help.out, HasSubstr("--older-than"));
}

TEST_F(JitkDbTest, ListAndShow) {
  MakeDb(cache_ + "/gfx90a.db", {MakeTuning("f32;n=64", "BLOCK=64")}, {MakeCodeObject("k1")});
  WriteBytes(cache_ + "/sm_90.db.corrupt-20260101T000000Z-1", "junk");
  ToolRun list = Tool("--json list", cache_);
  ASSERT_EQ(list.exit_code, 0) << list.out;
  Json j = ParseJson(list);
  // The build's shipped DBs (share/jitk/db beside the tool) are listed too.
  Json listed = Json::array();
  for (const Json& db : j["databases"]) {
    if (db["layer"] != "system") listed.push_back(db);
  }
  ASSERT_EQ(listed.size(), 2u) << list.out;
  EXPECT_EQ(listed[0]["arch"], "gfx90a");
  EXPECT_EQ(listed[0]["tuning_rows"], 1);
  EXPECT_EQ(listed[0]["code_objects"], 1);
  EXPECT_EQ(listed[0]["layer"], "user");
  EXPECT_EQ(listed[1]["layer"], "moved-aside");
  ToolRun human = Tool("list", cache_);
  EXPECT_EQ(human.exit_code, 0);
  EXPECT_THAT(human.out, HasSubstr("gfx90a.db"));

  // An arch name means that arch's user DB.
  ToolRun show = Tool("--json show gfx90a", cache_);
  ASSERT_EQ(show.exit_code, 0) << show.out;
  j = ParseJson(show);
  EXPECT_EQ(j["tuning"][0]["config"], "BLOCK=64");
  EXPECT_EQ(j["tuning"][0]["intact"], true);
  EXPECT_EQ(j["code_objects"][0]["key"], "k1");
  ToolRun show_text = Tool("show gfx90a --tuning", cache_);
  EXPECT_THAT(show_text.out, HasSubstr("f32;n=64"));
  EXPECT_THAT(show_text.out, ::testing::Not(HasSubstr("code objects")));
  EXPECT_EQ(Tool("show " + dir_ / "none.db", cache_).exit_code, 1);
}

TEST_F(JitkDbTest, ExportImportRoundTripBothFormats) {
  TuningRecord t = MakeTuning("f16;n=1048576", "BLOCK=256,EPT=4", 0.0123);
  CodeObjectRecord c = MakeCodeObject("kk", 5000);
  MakeDb(cache_ + "/gfx90a.db", {t}, {c});
  for (const char* name : {"out.json", "out.db"}) {
    const std::string file = dir_ / name;
    ToolRun exported = Tool(absl::StrCat("--json export gfx90a ", file), cache_);
    ASSERT_EQ(exported.exit_code, 0) << exported.out;
    EXPECT_EQ(ParseJson(exported)["stats"]["tuning_copied"], 1);
    EXPECT_EQ(Tool(absl::StrCat("export gfx90a ", file), cache_).exit_code, 1) << "exists";
    EXPECT_EQ(Tool(absl::StrCat("export gfx90a ", file, " --force"), cache_).exit_code, 0);

    const std::string other = dir_ / absl::StrCat("other-", name);
    ToolRun imported = Tool(absl::StrCat("--json import ", file), other);
    ASSERT_EQ(imported.exit_code, 0) << imported.out;
    EXPECT_EQ(ParseJson(imported)["to"], other + "/gfx90a.db");
    absl::StatusOr<TuningRecord> back = ReadTuning(other + "/gfx90a.db", t);
    ASSERT_THAT(back, IsOk());
    EXPECT_EQ(back->config, t.config);
    EXPECT_EQ(back->median_ms, t.median_ms);
    std::unique_ptr<SqliteDb> db = std::move(*SqliteDb::Open(other + "/gfx90a.db", {}));
    EXPECT_EQ(GetCodeObject(*db, "kk")->code, c.code);
    // Importing twice changes nothing.
    ToolRun again = Tool(absl::StrCat("--json import ", file), other);
    EXPECT_EQ(ParseJson(again)["stats"]["tuning_copied"], 0);
    EXPECT_EQ(ParseJson(again)["stats"]["code_objects_kept"], 1);
  }
  ToolRun tuning_only =
      Tool(absl::StrCat("--json export gfx90a ", dir_ / "t.json", " --tuning-only"), cache_);
  EXPECT_EQ(ParseJson(tuning_only)["stats"]["code_objects_copied"], 0);
}

TEST_F(JitkDbTest, MergeKeepsTheBestValidatedTimeInAnyOrder) {
  const std::string a = dir_ / "node1.db", b = dir_ / "node2.db", c = dir_ / "node3.db";
  MakeDb(a, {MakeTuning("f32;n=1", "A=1", 1.0, true), MakeTuning("f32;n=2", "A=2", 2.0, true)});
  MakeDb(b, {MakeTuning("f32;n=1", "B=1", 0.5, false), MakeTuning("f32;n=2", "B=2", 1.5, true)});
  MakeDb(c, {MakeTuning("f32;n=3", "C=3", 3.0, false)});
  ToolRun forward =
      Tool(absl::StrCat("--json merge ", dir_ / "m1.db", " ", a, " ", b, " ", c), cache_);
  ASSERT_EQ(forward.exit_code, 0) << forward.out;
  Json j = ParseJson(forward);
  EXPECT_EQ(j["total"]["tuning_copied"], 4);
  EXPECT_EQ(j["total"]["tuning_kept"], 1);
  ToolRun backward = Tool(absl::StrCat("merge ", dir_ / "m2.db", " ", c, " ", b, " ", a), cache_);
  ASSERT_EQ(backward.exit_code, 0) << backward.out;
  for (const std::string& merged : {dir_ / "m1.db", dir_ / "m2.db"}) {
    EXPECT_EQ(ReadTuning(merged, MakeTuning("f32;n=1"))->config, "A=1") << "validated beats faster";
    EXPECT_EQ(ReadTuning(merged, MakeTuning("f32;n=2"))->config, "B=2") << "faster validated wins";
    EXPECT_EQ(ReadTuning(merged, MakeTuning("f32;n=3"))->config, "C=3");
  }
  EXPECT_EQ(Tool(absl::StrCat("verify ", dir_ / "m1.db"), cache_).exit_code, 0);
}

TEST_F(JitkDbTest, MergeRefusesMixedArchs) {
  MakeDb(dir_ / "g.db", {MakeTuning("f32;n=1")});
  MakeDb(dir_ / "s.db", {MakeTuning("f32;n=1")}, {}, "sm_90");
  ToolRun run =
      Tool(absl::StrCat("merge ", dir_ / "out.db", " ", dir_ / "g.db", " ", dir_ / "s.db"), cache_);
  EXPECT_EQ(run.exit_code, 1);
  EXPECT_THAT(run.out, HasSubstr("holds arch 'sm_90'"));
  EXPECT_THAT(run.out, HasSubstr("'gfx90a'"));
  EXPECT_FALSE(std::filesystem::exists(dir_ / "out.db")) << "nothing written";
}

TEST_F(JitkDbTest, VerifyReportsDamageWithExitCode1) {
  const std::string path = dir_ / "v.db";
  MakeDb(path, {MakeTuning("f32;n=1")}, {MakeCodeObject("k1"), MakeCodeObject("k2")});
  EXPECT_EQ(Tool("verify " + path, cache_).exit_code, 0);
  {
    std::unique_ptr<SqliteDb> db = std::move(*SqliteDb::Open(path, {}));
    ASSERT_THAT(db->Exec("UPDATE code_objects SET code = X'00' || substr(code, 2) WHERE key='k2'"),
                IsOk());
  }
  ToolRun run = Tool("--json verify " + path, cache_);
  EXPECT_EQ(run.exit_code, 1);
  Json j = ParseJson(run);
  EXPECT_EQ(j["ok"], false);
  EXPECT_EQ(j["databases"][0]["bad_rows"], 1);
  ToolRun text = Tool("verify " + path, cache_);
  EXPECT_THAT(text.out, HasSubstr("code object k2"));
  EXPECT_THAT(text.out, HasSubstr("fails its checksum"));
  WriteBytes(dir_ / "junk.db", std::string(5000, 'j'));
  EXPECT_EQ(Tool("verify " + dir_ / "junk.db", cache_).exit_code, 1);
}

TEST_F(JitkDbTest, Prune) {
  const std::string path = dir_ / "p.db";
  TuningRecord old_row = MakeTuning("f32;n=1");
  old_row.tuned_unix = 1000;
  TuningRecord other_compiler = MakeTuning("f32;n=2");
  other_compiler.compiler = "hiprtc 4.0";
  other_compiler.tuned_unix = 0;  // now
  MakeDb(path, {old_row, other_compiler, MakeTuning("f32;n=3")});
  ToolRun dry = Tool("--json prune " + path + " --older-than 30d --dry-run", cache_);
  ASSERT_EQ(dry.exit_code, 0) << dry.out;
  EXPECT_EQ(ParseJson(dry)["tuning_removed"], 2) << "n=1 and n=3 are from 2025";
  EXPECT_THAT(ReadTuning(path, old_row), IsOk());
  ToolRun by_compiler = Tool("--json prune " + path + " --compiler-version 'hiprtc 4.0'", cache_);
  ASSERT_EQ(by_compiler.exit_code, 0) << by_compiler.out;
  EXPECT_EQ(ParseJson(by_compiler)["tuning_removed"], 1);
  EXPECT_FALSE(ReadTuning(path, other_compiler).ok());
  EXPECT_THAT(ReadTuning(path, old_row), IsOk());
  EXPECT_EQ(Tool("prune " + path + " --older-than soon", cache_).exit_code, 1);
  ToolRun sized = Tool("prune " + path + " --max-size 1M", cache_);
  EXPECT_EQ(sized.exit_code, 0) << sized.out;
  EXPECT_THAT(sized.out, HasSubstr("removed 0 code objects"));
}

}  // namespace
}  // namespace jitk::cache
