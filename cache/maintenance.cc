#include "cache/maintenance.h"

#include <sqlite3.h>

#include <filesystem>
#include <system_error>

#include "absl/status/status.h"
#include "absl/strings/ascii.h"
#include "absl/strings/numbers.h"
#include "absl/strings/str_cat.h"
#include "absl/strings/str_join.h"
#include "absl/strings/strip.h"
#include "cache/code_object_store.h"
#include "cache/tuning_store.h"
#include "lib/internal/status_macros.h"

namespace jitk::cache {

namespace {

absl::StatusOr<int64_t> QueryInt(SqliteDb& db, absl::string_view sql) {
  JITK_ASSIGN_OR_RETURN(Statement s, db.Prepare(sql));
  JITK_ASSIGN_OR_RETURN(bool row, s.Step());
  return row ? s.ColumnInt(0) : 0;
}

absl::StatusOr<int64_t> UsedBytes(SqliteDb& db) {
  JITK_ASSIGN_OR_RETURN(int64_t pages, QueryInt(db, "PRAGMA page_count"));
  JITK_ASSIGN_OR_RETURN(int64_t free_pages, QueryInt(db, "PRAGMA freelist_count"));
  JITK_ASSIGN_OR_RETURN(int64_t page_size, QueryInt(db, "PRAGMA page_size"));
  return (pages - free_pages) * page_size;
}

// Runs a DELETE with one optional bound value; returns the rows removed.
absl::StatusOr<int64_t> Delete(SqliteDb& db, absl::string_view sql, const std::string* text,
                               const int64_t* number) {
  JITK_ASSIGN_OR_RETURN(Statement s, db.Prepare(sql));
  if (text != nullptr) s.BindText(1, *text);
  if (number != nullptr) s.BindInt(1, *number);
  JITK_RETURN_IF_ERROR(s.Run());
  return sqlite3_changes64(db.raw());
}

}  // namespace

absl::StatusOr<DbSummary> SummarizeDb(SqliteDb& db) {
  DbSummary summary;
  JITK_ASSIGN_OR_RETURN(summary.schema, ReadSchemaInfo(db));
  {
    JITK_ASSIGN_OR_RETURN(Statement s, db.Prepare("PRAGMA journal_mode"));
    JITK_ASSIGN_OR_RETURN(bool row, s.Step());
    if (row) summary.journal_mode = std::string(s.ColumnText(0));
  }
  JITK_ASSIGN_OR_RETURN(summary.used_bytes, UsedBytes(db));
  if (!summary.schema.has_tables) return summary;
  JITK_ASSIGN_OR_RETURN(summary.code_objects, QueryInt(db, "SELECT COUNT(*) FROM code_objects"));
  JITK_ASSIGN_OR_RETURN(summary.code_bytes,
                        QueryInt(db, "SELECT COALESCE(SUM(size), 0) FROM code_objects"));
  JITK_ASSIGN_OR_RETURN(summary.tuning_rows, QueryInt(db, "SELECT COUNT(*) FROM tuning"));
  JITK_ASSIGN_OR_RETURN(Statement s, db.Prepare("SELECT compiler FROM code_objects UNION "
                                                "SELECT compiler FROM tuning ORDER BY 1"));
  while (true) {
    JITK_ASSIGN_OR_RETURN(bool row, s.Step());
    if (!row) break;
    summary.compilers.emplace_back(s.ColumnText(0));
  }
  return summary;
}

VerifyReport VerifyDbFile(const std::string& path, absl::string_view expected_arch) {
  VerifyReport report;
  report.path = path;
  std::error_code error;
  if (!std::filesystem::is_regular_file(path, error)) {
    report.problems.push_back("no such file");
    return report;
  }
  SqliteOpenOptions open;
  open.read_only = true;
  open.journal = JournalMode::kKeep;
  open.busy_timeout = absl::Seconds(5);
  absl::StatusOr<std::unique_ptr<SqliteDb>> db = SqliteDb::Open(path, open);
  if (!db.ok() && absl::IsUnavailable(db.status())) {
    open.immutable = true;  // a WAL file in a read-only directory
    db = SqliteDb::Open(path, open);
  }
  if (!db.ok()) {
    report.problems.emplace_back(db.status().message());
    return report;
  }
  absl::StatusOr<SchemaInfo> info = ReadSchemaInfo(**db);
  if (!info.ok()) {
    report.problems.emplace_back(info.status().message());
    return report;
  }
  if (info->application_id != kApplicationId) {
    report.problems.push_back(
        absl::StrCat("not a jitk cache DB (application_id ", info->application_id, ")"));
  } else if (info->version != kSchemaVersion) {
    report.problems.push_back(
        absl::StrCat("schema version ", info->version, ", this jitk reads ", kSchemaVersion));
  } else if (!info->has_tables) {
    report.problems.push_back("the jitk tables (meta, code_objects, tuning) are missing");
  }
  if (!expected_arch.empty() && info->arch != expected_arch) {
    report.problems.push_back(
        absl::StrCat("holds arch '", info->arch, "', expected '", expected_arch, "'"));
  }

  absl::StatusOr<Statement> integrity = (*db)->Prepare("PRAGMA integrity_check(20)");
  if (!integrity.ok()) {
    report.problems.emplace_back(integrity.status().message());
  } else {
    while (true) {
      absl::StatusOr<bool> row = integrity->Step();
      if (!row.ok()) {
        report.problems.emplace_back(row.status().message());
        break;
      }
      if (!*row) break;
      if (integrity->ColumnText(0) != "ok") {
        report.problems.push_back(absl::StrCat("integrity: ", integrity->ColumnText(0)));
      }
    }
  }

  if (info->application_id == kApplicationId && info->version == kSchemaVersion &&
      info->has_tables) {
    std::vector<std::string> bad;
    auto note = [&](const absl::Status& check) {
      if (check.ok()) return;
      ++report.bad_rows;
      if (bad.size() < 5) bad.emplace_back(check.message());
    };
    absl::Status walk = ForEachCodeObject(
        **db, [&](const CodeObjectRecord&, const absl::Status& check) -> absl::Status {
          note(check);
          return absl::OkStatus();
        });
    if (walk.ok()) {
      walk = ForEachTuning(**db, [&](const TuningRecord&, const absl::Status& check) {
        note(check);
        return absl::OkStatus();
      });
    }
    if (!walk.ok()) report.problems.emplace_back(walk.message());
    if (report.bad_rows > 0) {
      report.problems.push_back(
          absl::StrCat(report.bad_rows, " rows fail their checksum: ", absl::StrJoin(bad, "; ")));
    }
  }
  absl::StatusOr<DbSummary> summary = SummarizeDb(**db);
  if (summary.ok()) report.summary = std::move(*summary);
  return report;
}

absl::StatusOr<PruneStats> PruneDb(SqliteDb& db, const PruneOptions& options) {
  PruneStats stats;
  JITK_ASSIGN_OR_RETURN(stats.used_bytes_before, UsedBytes(db));
  const absl::Status kDryRun = absl::CancelledError("dry run");
  absl::Status status = db.WriteTransaction([&]() -> absl::Status {
    stats.code_objects_removed = stats.tuning_removed = 0;
    auto both = [&](absl::string_view code_sql, absl::string_view tuning_sql,
                    const std::string* text, const int64_t* number) -> absl::Status {
      JITK_ASSIGN_OR_RETURN(int64_t code, Delete(db, code_sql, text, number));
      JITK_ASSIGN_OR_RETURN(int64_t tuning, Delete(db, tuning_sql, text, number));
      stats.code_objects_removed += code;
      stats.tuning_removed += tuning;
      return absl::OkStatus();
    };
    if (options.older_than.has_value()) {
      const int64_t cutoff = absl::ToUnixSeconds(options.now - *options.older_than);
      JITK_RETURN_IF_ERROR(both("DELETE FROM code_objects WHERE created_unix < ?1",
                                "DELETE FROM tuning WHERE tuned_unix < ?1", nullptr, &cutoff));
    }
    if (options.compiler.has_value()) {
      JITK_RETURN_IF_ERROR(both("DELETE FROM code_objects WHERE compiler = ?1",
                                "DELETE FROM tuning WHERE compiler = ?1", &*options.compiler,
                                nullptr));
    }
    if (options.keep_compiler.has_value()) {
      JITK_RETURN_IF_ERROR(both("DELETE FROM code_objects WHERE compiler != ?1",
                                "DELETE FROM tuning WHERE compiler != ?1", &*options.keep_compiler,
                                nullptr));
    }
    if (options.max_bytes.has_value()) {
      while (true) {
        JITK_ASSIGN_OR_RETURN(int64_t used, UsedBytes(db));
        if (used <= *options.max_bytes) break;
        JITK_ASSIGN_OR_RETURN(
            int64_t removed,
            Delete(db,
                   "DELETE FROM code_objects WHERE key IN (SELECT key FROM code_objects "
                   "ORDER BY created_unix, key LIMIT 8)",
                   nullptr, nullptr));
        if (removed == 0) break;
        stats.code_objects_removed += removed;
      }
    }
    JITK_ASSIGN_OR_RETURN(stats.used_bytes_after, UsedBytes(db));
    return options.dry_run ? kDryRun : absl::OkStatus();
  });
  if (options.dry_run && status == kDryRun) return stats;
  JITK_RETURN_IF_ERROR(status);
  JITK_RETURN_IF_ERROR(db.Exec("VACUUM"));
  JITK_RETURN_IF_ERROR(db.Exec("PRAGMA wal_checkpoint(TRUNCATE)"));
  JITK_ASSIGN_OR_RETURN(stats.used_bytes_after, UsedBytes(db));
  return stats;
}

absl::StatusOr<absl::Duration> ParseAge(absl::string_view text) {
  auto bad = [&] {
    return absl::InvalidArgumentError(
        absl::StrCat("bad age '", text, "'; use a number and s, m, h, d or w, e.g. 30d"));
  };
  if (text.size() < 2) return bad();
  int64_t n;
  if (!absl::SimpleAtoi(text.substr(0, text.size() - 1), &n) || n < 0) return bad();
  switch (absl::ascii_tolower(text.back())) {
    case 's':
      return absl::Seconds(n);
    case 'm':
      return absl::Minutes(n);
    case 'h':
      return absl::Hours(n);
    case 'd':
      return absl::Hours(24 * n);
    case 'w':
      return absl::Hours(24 * 7 * n);
    default:
      return bad();
  }
}

absl::StatusOr<int64_t> ParseSize(absl::string_view text) {
  auto bad = [&] {
    return absl::InvalidArgumentError(
        absl::StrCat("bad size '", text, "'; use bytes or a number with K, M, G or T, e.g. 500M"));
  };
  std::string t = absl::AsciiStrToUpper(text);
  absl::string_view v = t;
  if (!absl::ConsumeSuffix(&v, "IB")) absl::ConsumeSuffix(&v, "B");
  int shift = 0;
  if (!v.empty()) {
    switch (v.back()) {
      case 'K':
        shift = 10;
        break;
      case 'M':
        shift = 20;
        break;
      case 'G':
        shift = 30;
        break;
      case 'T':
        shift = 40;
        break;
      default:
        break;
    }
    if (shift != 0) v.remove_suffix(1);
  }
  int64_t n;
  if (!absl::SimpleAtoi(v, &n) || n < 0 || n > (int64_t{1} << (62 - shift))) return bad();
  return n << shift;
}

}  // namespace jitk::cache
