#include "cache/cache_options.h"

#include <map>
#include <string>

#include "cache_test_util.h"
#include "gmock/gmock.h"
#include "gtest/gtest.h"

namespace jitk::cache {
namespace {

using ::jitk::cache::testing::StatusIs;
using ::jitk::cache::testing::Warnings;
using ::testing::ElementsAre;
using ::testing::HasSubstr;
using ::testing::IsEmpty;

EnvLookup Env(std::map<std::string, std::string> vars) {
  return [vars](const char* name) -> std::optional<std::string> {
    auto it = vars.find(name);
    if (it == vars.end()) return std::nullopt;
    return it->second;
  };
}

TEST(CacheOptionsFromEnvTest, CacheDirPrecedence) {
  Warnings w;
  EXPECT_EQ(
      CacheOptionsFromEnv(
          Env({{"JITK_CACHE_DIR", "/a/b/"}, {"XDG_CACHE_HOME", "/x"}, {"HOME", "/h"}}), w.Sink())
          .cache_dir,
      "/a/b/");
  EXPECT_EQ(
      CacheOptionsFromEnv(Env({{"XDG_CACHE_HOME", "/x"}, {"HOME", "/h"}}), w.Sink()).cache_dir,
      "/x/jitk");
  EXPECT_EQ(CacheOptionsFromEnv(Env({{"HOME", "/h"}}), w.Sink()).cache_dir, "/h/.cache/jitk");
  // Empty values count as unset.
  EXPECT_EQ(CacheOptionsFromEnv(Env({{"JITK_CACHE_DIR", ""}, {"HOME", "/h"}}), w.Sink()).cache_dir,
            "/h/.cache/jitk");
  EXPECT_THAT(w.lines(), IsEmpty());
}

TEST(CacheOptionsFromEnvTest, NoHomeWarnsAndHasNoCacheDir) {
  Warnings w;
  CacheOptions options = CacheOptionsFromEnv(Env({}), w.Sink());
  EXPECT_EQ(options.cache_dir, "");
  EXPECT_EQ(w.Count("no user cache DB"), 1);
}

TEST(CacheOptionsFromEnvTest, DisableCache) {
  Warnings w;
  for (const char* on : {"1", "true", "YES", "on"}) {
    EXPECT_FALSE(
        CacheOptionsFromEnv(Env({{"JITK_DISABLE_CACHE", on}, {"HOME", "/h"}}), w.Sink()).enabled)
        << on;
  }
  for (const char* off : {"0", "false", "no", "OFF", ""}) {
    EXPECT_TRUE(
        CacheOptionsFromEnv(Env({{"JITK_DISABLE_CACHE", off}, {"HOME", "/h"}}), w.Sink()).enabled)
        << off;
  }
  EXPECT_THAT(w.lines(), IsEmpty());
  EXPECT_FALSE(CacheOptionsFromEnv(Env({{"JITK_DISABLE_CACHE", "maybe"}, {"HOME", "/h"}}), w.Sink())
                   .enabled);
  EXPECT_EQ(w.Count("JITK_DISABLE_CACHE='maybe'"), 1);
}

TEST(CacheOptionsFromEnvTest, DbMode) {
  Warnings w;
  EXPECT_EQ(CacheOptionsFromEnv(Env({{"HOME", "/h"}}), w.Sink()).mode, DbMode::kWal);
  EXPECT_EQ(CacheOptionsFromEnv(Env({{"JITK_DB_MODE", "nfs"}, {"HOME", "/h"}}), w.Sink()).mode,
            DbMode::kNfs);
  EXPECT_EQ(CacheOptionsFromEnv(Env({{"JITK_DB_MODE", "Per-Host"}, {"HOME", "/h"}}), w.Sink()).mode,
            DbMode::kPerHost);
  EXPECT_THAT(w.lines(), IsEmpty());
  EXPECT_EQ(CacheOptionsFromEnv(Env({{"JITK_DB_MODE", "fast"}, {"HOME", "/h"}}), w.Sink()).mode,
            DbMode::kWal);
  EXPECT_EQ(w.Count("unknown database mode 'fast'"), 1);
}

TEST(CacheOptionsFromEnvTest, SystemDbPathComesFirstAndIsDeduplicated) {
  Warnings w;
  CacheOptions options = CacheOptionsFromEnv(
      Env({{"JITK_SYSTEM_DB_PATH", "/s1::/s2/:/s1"}, {"HOME", "/h"}}), w.Sink());
  std::vector<std::string> defaults = DefaultSystemDbDirs();
  ASSERT_GE(options.system_db_dirs.size(), 2u + 1);
  EXPECT_EQ(options.system_db_dirs[0], "/s1");
  EXPECT_EQ(options.system_db_dirs[1], "/s2/");
  EXPECT_EQ(options.system_db_dirs.size(), 2 + defaults.size());
  EXPECT_TRUE(absl::EndsWith(options.system_db_dirs.back(), "share/jitk/db"));
}

TEST(DbModeTest, NamesRoundTrip) {
  for (DbMode mode :
       {DbMode::kWal, DbMode::kNfs, DbMode::kPerHost, DbMode::kMemory, DbMode::kReadOnly}) {
    absl::StatusOr<DbMode> parsed = ParseDbMode(DbModeName(mode));
    ASSERT_TRUE(parsed.ok());
    EXPECT_EQ(*parsed, mode);
  }
  EXPECT_THAT(ParseDbMode("wall"),
              StatusIs(absl::StatusCode::kInvalidArgument, HasSubstr("wal, nfs, per-host")));
}

TEST(ValidateArchNameTest, AcceptsArchNamesOnly) {
  for (const char* ok : {"gfx942", "gfx90a", "sm_90", "sm_90a", "gfx1100"}) {
    EXPECT_TRUE(ValidateArchName(ok).ok()) << ok;
  }
  for (const char* bad : {"", "../etc", "gfx942:xnack-", "GFX942", "a/b", "sm 90"}) {
    EXPECT_THAT(ValidateArchName(bad),
                StatusIs(absl::StatusCode::kInvalidArgument, HasSubstr("not an architecture name")))
        << bad;
  }
}

}  // namespace
}  // namespace jitk::cache
