// cache/maintenance.h — inspecting, checking and pruning one cache DB.
//
// What `jitk-db list`, `verify` and `prune` do, as functions. They work on
// any DB file, including damaged ones: VerifyDbFile never fails, it reports.
#ifndef JITK_CACHE_MAINTENANCE_H_
#define JITK_CACHE_MAINTENANCE_H_

#include <cstdint>
#include <optional>
#include <string>
#include <vector>

#include "absl/status/statusor.h"
#include "absl/strings/string_view.h"
#include "absl/time/time.h"
#include "cache/schema.h"
#include "cache/sqlite_db.h"

namespace jitk::cache {

struct DbSummary {
  SchemaInfo schema;
  std::string journal_mode;  // "wal", "delete"
  int64_t code_objects = 0;
  int64_t code_bytes = 0;  // sum of code object sizes
  int64_t tuning_rows = 0;
  int64_t used_bytes = 0;              // pages in use × page size (the file after VACUUM)
  std::vector<std::string> compilers;  // distinct compilers of all rows
};

// Counts rows and bytes. Errors as the SQLite calls (kDataLoss for damage).
absl::StatusOr<DbSummary> SummarizeDb(SqliteDb& db);

struct VerifyReport {
  std::string path;
  std::optional<DbSummary> summary;   // when the file could be read
  std::vector<std::string> problems;  // empty: the file is sound
  int64_t bad_rows = 0;

  bool ok() const { return problems.empty(); }
};

// Opens `path` read-only and checks: it is SQLite, the jitk markers and
// schema version, meta.arch (against `expected_arch` when not empty),
// PRAGMA integrity_check, and the checksum of every row.
VerifyReport VerifyDbFile(const std::string& path, absl::string_view expected_arch = "");

struct PruneOptions {
  // Rows created / tuned before now - older_than.
  std::optional<absl::Duration> older_than;
  // Rows made by exactly this compiler ("hiprtc 5.2.21153").
  std::optional<std::string> compiler;
  // Rows made by any compiler but this one.
  std::optional<std::string> keep_compiler;
  // Then the oldest code objects until the used size is at most this
  // (tuning rows are small and are never removed for size).
  std::optional<int64_t> max_bytes;
  bool dry_run = false;  // count, change nothing
  absl::Time now = absl::Now();
};

struct PruneStats {
  int64_t code_objects_removed = 0;
  int64_t tuning_removed = 0;
  int64_t used_bytes_before = 0;
  int64_t used_bytes_after = 0;  // after VACUUM (dry run: estimated)
};

// Removes what `options` selects in one transaction, then VACUUMs (not in a
// dry run). The DB may be in use by others meanwhile.
absl::StatusOr<PruneStats> PruneDb(SqliteDb& db, const PruneOptions& options);

// "30d", "12h", "90m", "45s", "2w" → duration; kInvalidArgument otherwise.
absl::StatusOr<absl::Duration> ParseAge(absl::string_view text);
// "500M", "2G", "64K", "1048576" (powers of 1024) → bytes; kInvalidArgument otherwise.
absl::StatusOr<int64_t> ParseSize(absl::string_view text);

}  // namespace jitk::cache

#endif  // JITK_CACHE_MAINTENANCE_H_
