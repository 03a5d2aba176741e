// cache/cache_options.h — where the cache lives and how it opens its files.
//
// The process-wide cache is configured from the environment:
//   JITK_CACHE_DIR       user DBs (default $XDG_CACHE_HOME/jitk, else ~/.cache/jitk)
//   JITK_DISABLE_CACHE   1: read and write nothing (every lookup misses)
//   JITK_SYSTEM_DB_PATH  colon-separated dirs of shipped, read-only DBs, searched
//                        before <prefix>/share/jitk/db
//   JITK_DB_MODE         wal (default) | nfs | per-host | memory | readonly
// docs/cache.md describes each mode.
//
// Example:
//   jitk::cache::CacheOptions options = jitk::cache::CacheOptionsFromEnv();
//   options.warn = [&](absl::string_view m) { lines.emplace_back(m); };
#ifndef JITK_CACHE_CACHE_OPTIONS_H_
#define JITK_CACHE_CACHE_OPTIONS_H_

#include <cstddef>
#include <functional>
#include <optional>
#include <string>
#include <vector>

#include "absl/status/statusor.h"
#include "absl/strings/string_view.h"
#include "absl/time/time.h"
#include "cache/warning_sink.h"

namespace jitk::cache {

enum class DbMode {
  kWal,       // WAL journal: concurrent readers and one writer; local filesystems
  kNfs,       // rollback journal (DELETE), fsync on commit; network filesystems
  kPerHost,   // one file per host (<arch>.<host>.db, rollback journal), merged later
  kMemory,    // user DB in process memory only; system DBs still read
  kReadOnly,  // user DB read, never written
};

// "wal", "nfs", "per-host", "memory", "readonly".
absl::string_view DbModeName(DbMode mode);
// Inverse of DbModeName; kInvalidArgument listing the valid names.
absl::StatusOr<DbMode> ParseDbMode(absl::string_view text);

struct CacheOptions {
  // --- What is used
  // false: every lookup misses and every store is a no-op (JITK_DISABLE_CACHE=1).
  bool enabled = true;
  // Directory of the user DBs (<dir>/<arch>.db), created on first write.
  // Empty: no user DB (lookups use the system DBs only).
  std::string cache_dir;
  DbMode mode = DbMode::kWal;
  // Read-only layers, searched in order after the user DB: <dir>/<arch>.db.
  std::vector<std::string> system_db_dirs;

  // --- Behaviour
  // kPerHost: the user DB is <arch>.<host_name>.db. Empty: gethostname().
  std::string host_name;
  // How long one statement waits for another process's lock before the
  // operation fails with kUnavailable ("database is locked").
  absl::Duration busy_timeout = absl::Seconds(30);
  // Upper bound on code-object bytes kept in the in-process memo.
  size_t memo_max_code_bytes = size_t{256} << 20;
  // Where warnings go (corrupt file moved aside, read-only DB, missing system DB).
  WarningSink warn = StderrWarningSink();
};

// Returns the value of an environment variable, or nullopt when unset.
using EnvLookup = std::function<std::optional<std::string>(const char* name)>;

// getenv(3).
EnvLookup ProcessEnv();

// Options from the variables listed at the top of this file. Bad values
// (an unknown JITK_DB_MODE, no HOME) are reported through `warn` and replaced
// by the defaults; never fails.
CacheOptions CacheOptionsFromEnv(const EnvLookup& env = ProcessEnv(),
                                 const WarningSink& warn = StderrWarningSink());

// The shipped-DB directories that come after JITK_SYSTEM_DB_PATH:
// <dir of the running executable>/../share/jitk/db and <install prefix>/share/jitk/db.
std::vector<std::string> DefaultSystemDbDirs();

// OK when `arch` can name a DB file ("gfx942", "sm_90", "gfx90a"):
// [a-z0-9_]+, at most 32 characters. Otherwise kInvalidArgument.
absl::Status ValidateArchName(absl::string_view arch);

}  // namespace jitk::cache

#endif  // JITK_CACHE_CACHE_OPTIONS_H_
