// cache/schema.h — the tables of a jitk cache DB and their version.
//
// Every DB file holds one architecture (meta.arch) and three tables:
//   meta(key, value)            arch, created_by, created_unix
//   code_objects(key, ...)      compiled bytes + metadata, keyed by content hash
//   tuning(kernel, shape_key, device_name, compute_units, compiler, ...)
// The file is marked with PRAGMA application_id = kApplicationId and
// PRAGMA user_version = the schema version.
#ifndef JITK_CACHE_SCHEMA_H_
#define JITK_CACHE_SCHEMA_H_

#include <cstdint>
#include <string>

#include "absl/status/statusor.h"
#include "absl/strings/string_view.h"
#include "absl/types/span.h"
#include "cache/sqlite_db.h"

namespace jitk::cache {

// The schema version this build reads and writes.
//
// Bump rule: bump kSchemaVersion in the same change that adds, removes,
// renames or changes the meaning of a table, column or index, and append a
// Migration{from_version = old version} to Migrations() in schema.cc that
// turns an old file into the new layout (ALTER TABLE, CREATE, copy, or DELETE
// of rows that cannot be converted — rows are a cache and may be dropped,
// files may not). Never edit a migration that has been released. A file with
// a newer version than this build is treated like a corrupt one (user DB:
// moved aside; system DB: skipped); an older file is migrated in place.
// Changing only how code objects are keyed is kCodeObjectKeyVersion
// (cache_key.h), not a schema bump.
inline constexpr int kSchemaVersion = 1;

// "JITK" — tells a jitk DB from any other SQLite file.
inline constexpr int32_t kApplicationId = 0x4A49544B;

// One step from `from_version` to `from_version + 1`.
struct Migration {
  int from_version;
  absl::string_view sql;
};

// The released migrations, in order.
absl::Span<const Migration> Migrations();

// What a DB file says about itself.
struct SchemaInfo {
  int32_t application_id = 0;
  int version = 0;          // PRAGMA user_version
  std::string arch;         // meta.arch, empty when absent
  std::string created_by;   // jitk version that created the file
  bool empty = false;       // no tables at all: a new file
  bool has_tables = false;  // meta, code_objects and tuning all exist
};

// Reads the markers and meta without changing anything, inside the
// caller's transaction.
absl::StatusOr<SchemaInfo> ReadSchemaInfo(SqliteDb& db);
// The same in a read transaction of its own: the pragmas and tables of a
// file another process is creating read as all there or none, never half
// (a half-created file would look like a foreign one).
absl::StatusOr<SchemaInfo> ReadSchemaSnapshot(SqliteDb& db);

// The checks EnsureSchema makes of what a file says about itself, for a
// caller that must not change the file: another application_id →
// kDataLoss; a schema newer than target_version → kFailedPrecondition.
absl::Status CheckMarkers(const SchemaInfo& info, const std::string& path,
                          int target_version = kSchemaVersion);
// meta.arch differs from `arch` (when `arch` is set) → kFailedPrecondition.
absl::Status CheckArch(const SchemaInfo& info, absl::string_view arch, const std::string& path);

// Makes `db` a usable DB for `arch` at `target_version`: creates the tables
// in a new file, migrates an older one (one transaction), checks the rest.
//   not a jitk DB (other application_id, missing tables) → kDataLoss
//   newer schema than target_version                    → kFailedPrecondition
//   older schema but the connection is read-only         → kFailedPrecondition
//   no migration from some older version                 → kFailedPrecondition
//   meta.arch differs from `arch` (when `arch` is set)   → kFailedPrecondition naming both
// Safe to race with other processes doing the same.
absl::Status EnsureSchema(SqliteDb& db, absl::string_view arch,
                          absl::Span<const Migration> migrations = Migrations(),
                          int target_version = kSchemaVersion);

}  // namespace jitk::cache

#endif  // JITK_CACHE_SCHEMA_H_
