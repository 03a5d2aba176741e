// cache/portable_file.h — a cache DB as one file to copy, ship or review.
//
// Two formats, both holding one arch and only rows that verify:
//   sqlite  a standalone, vacuumed SQLite file in rollback-journal mode with
//           the normal schema: copy it into a JITK_SYSTEM_DB_PATH directory
//           as <arch>.db and it is a system DB.
//   json    {"format": "jitk-cache-export", "format_version": 1, "arch": ...,
//            "code_objects": [...], "tuning": [...]} with code as base64 and
//           each row's checksum as 16 hex digits; for review and diffs. A row
//           without "checksum" (written by hand) is accepted; a row whose
//           checksum does not match is skipped as damaged.
// Both are written to <path>.tmp-<pid> and renamed into place, so a reader
// never sees half a file.
#ifndef JITK_CACHE_PORTABLE_FILE_H_
#define JITK_CACHE_PORTABLE_FILE_H_

#include <memory>
#include <string>

#include <nlohmann/json.hpp>

#include "absl/status/statusor.h"
#include "absl/strings/string_view.h"
#include "cache/merge.h"
#include "cache/tuning_store.h"
#include "cache/sqlite_db.h"

namespace jitk::cache {

enum class PortableFormat { kSqlite, kJson };

// A tuning row as the JSON format writes it (also what `jitk-db show --json` prints).
nlohmann::json TuningJson(const TuningRecord& r);

// kJson for a name ending in ".json", else kSqlite.
PortableFormat FormatForPath(absl::string_view path);
// "sqlite" / "json"; kInvalidArgument otherwise.
absl::StatusOr<PortableFormat> ParsePortableFormat(absl::string_view name);

struct ExportOptions {
  PortableFormat format = PortableFormat::kSqlite;
  bool overwrite = false;  // replace an existing file (else kAlreadyExists)
  MergeOptions tables;     // which tables to write
};

// Writes the verified rows of `src` (which must have the current schema) to
// `path`. Returns what was written; rows failing their checksum are counted
// in bad_rows and left out.
absl::StatusOr<MergeStats> ExportDb(SqliteDb& src, const std::string& path,
                                    const ExportOptions& options);

// Opens a portable file, or any cache DB file, for reading; the formats are
// told apart by their first bytes. A SQLite file is opened read-only in
// place; a JSON file is loaded into a private in-memory DB. Either way the
// result has the current schema and meta.arch. JSON rows whose checksum
// fails are dropped and counted in *bad_rows. kNotFound for a missing file,
// kDataLoss for a file that is neither format (or a malformed one),
// kFailedPrecondition for another schema or format version.
absl::StatusOr<std::unique_ptr<SqliteDb>> OpenPortableFile(const std::string& path, int* bad_rows);

}  // namespace jitk::cache

#endif  // JITK_CACHE_PORTABLE_FILE_H_
