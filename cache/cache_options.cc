#include "cache/cache_options.h"

#include <cstdlib>
#include <filesystem>
#include <system_error>

#include "absl/status/status.h"
#include "absl/strings/ascii.h"
#include "absl/strings/str_cat.h"
#include "absl/strings/str_split.h"

#ifndef JITK_INSTALL_PREFIX
#define JITK_INSTALL_PREFIX "/usr/local"
#endif

namespace jitk::cache {

namespace {

constexpr std::pair<DbMode, absl::string_view> kModeNames[] = {
    {DbMode::kWal, "wal"},       {DbMode::kNfs, "nfs"},           {DbMode::kPerHost, "per-host"},
    {DbMode::kMemory, "memory"}, {DbMode::kReadOnly, "readonly"},
};

std::string NonEmpty(const EnvLookup& env, const char* name) {
  std::optional<std::string> value = env(name);
  return value.has_value() ? *value : std::string();
}

std::string NormalizeDir(const std::string& dir) {
  return std::filesystem::path(dir).lexically_normal().string();
}

}  // namespace

absl::string_view DbModeName(DbMode mode) {
  for (const auto& [m, name] : kModeNames) {
    if (m == mode) return name;
  }
  return "unknown";
}

absl::StatusOr<DbMode> ParseDbMode(absl::string_view text) {
  std::string lower = absl::AsciiStrToLower(text);
  for (const auto& [mode, name] : kModeNames) {
    if (lower == name) return mode;
  }
  return absl::InvalidArgumentError(absl::StrCat(
      "unknown database mode '", text, "'; use one of: wal, nfs, per-host, memory, readonly"));
}

EnvLookup ProcessEnv() {
  return [](const char* name) -> std::optional<std::string> {
    const char* value = std::getenv(name);
    if (value == nullptr) return std::nullopt;
    return std::string(value);
  };
}

std::vector<std::string> DefaultSystemDbDirs() {
  std::vector<std::string> dirs;
  std::error_code error;
  std::filesystem::path exe = std::filesystem::read_symlink("/proc/self/exe", error);
  if (!error && exe.has_parent_path()) {
    dirs.push_back(NormalizeDir((exe.parent_path() / ".." / "share" / "jitk" / "db").string()));
  }
  std::string prefix_dir = NormalizeDir(absl::StrCat(JITK_INSTALL_PREFIX, "/share/jitk/db"));
  if (dirs.empty() || dirs.front() != prefix_dir) dirs.push_back(prefix_dir);
  return dirs;
}

CacheOptions CacheOptionsFromEnv(const EnvLookup& env, const WarningSink& warn) {
  CacheOptions options;
  options.warn = warn;

  std::string disable = absl::AsciiStrToLower(NonEmpty(env, "JITK_DISABLE_CACHE"));
  if (!disable.empty() && disable != "0" && disable != "false" && disable != "no" &&
      disable != "off") {
    if (disable != "1" && disable != "true" && disable != "yes" && disable != "on") {
      warn(absl::StrCat("JITK_DISABLE_CACHE='", disable,
                        "' is not one of 1/0, true/false, yes/no, on/off; the cache is disabled"));
    }
    options.enabled = false;
  }

  if (std::string dir = NonEmpty(env, "JITK_CACHE_DIR"); !dir.empty()) {
    options.cache_dir = NormalizeDir(dir);
  } else if (std::string xdg = NonEmpty(env, "XDG_CACHE_HOME"); !xdg.empty()) {
    options.cache_dir = NormalizeDir(xdg + "/jitk");
  } else if (std::string home = NonEmpty(env, "HOME"); !home.empty()) {
    options.cache_dir = NormalizeDir(home + "/.cache/jitk");
  } else if (options.enabled) {
    warn("neither JITK_CACHE_DIR, XDG_CACHE_HOME nor HOME is set; no user cache DB is used");
  }

  if (std::string mode = NonEmpty(env, "JITK_DB_MODE"); !mode.empty()) {
    absl::StatusOr<DbMode> parsed = ParseDbMode(mode);
    if (parsed.ok()) {
      options.mode = *parsed;
    } else {
      warn(absl::StrCat("JITK_DB_MODE: ", parsed.status().message(), "; using wal"));
    }
  }

  for (absl::string_view dir : absl::StrSplit(NonEmpty(env, "JITK_SYSTEM_DB_PATH"), ':')) {
    if (!dir.empty()) options.system_db_dirs.push_back(NormalizeDir(std::string(dir)));
  }
  for (std::string& dir : DefaultSystemDbDirs()) options.system_db_dirs.push_back(std::move(dir));
  // The same directory twice would be the same layer twice.
  std::vector<std::string> unique;
  for (std::string& dir : options.system_db_dirs) {
    bool seen = false;
    for (const std::string& u : unique) seen = seen || u == dir;
    if (!seen) unique.push_back(std::move(dir));
  }
  options.system_db_dirs = std::move(unique);
  return options;
}

absl::Status ValidateArchName(absl::string_view arch) {
  bool ok = !arch.empty() && arch.size() <= 32;
  for (char c : arch) ok = ok && (absl::ascii_islower(c) || absl::ascii_isdigit(c) || c == '_');
  if (ok) return absl::OkStatus();
  return absl::InvalidArgumentError(absl::StrCat(
      "'", arch, "' is not an architecture name such as gfx942 or sm_90 (expected [a-z0-9_]+)"));
}

}  // namespace jitk::cache
