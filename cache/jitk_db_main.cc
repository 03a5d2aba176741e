// jitk-db — inspect, check, ship and combine jitk cache DBs.
//
//   jitk-db list                         the DBs of the user cache and the system dirs
//   jitk-db show DB [--kernel K]         the rows of one DB (or portable file)
//   jitk-db export DB OUT [--format F]   a portable file (sqlite: shippable; json: reviewable)
//   jitk-db import FILE [--into DB]      merge a portable file into the user DB of its arch
//   jitk-db merge OUT IN...              merge many DBs (e.g. one per cluster node) into OUT
//   jitk-db verify DB...                 schema, SQLite integrity and every row's checksum
//   jitk-db prune DB --older-than 30d | --compiler-version V | --keep-compiler-version V
//                    | --max-size 500M [--dry-run]
// DB is a path, or an arch name ("gfx942") meaning that arch's user DB.
// Every command takes --json for machine-readable output. Exit status: 0 ok,
// 1 a failure or (verify) a problem found, 2 bad usage.
#include <CLI/CLI.hpp>
#include <cstdio>
#include <filesystem>
#include <memory>
#include <nlohmann/json.hpp>
#include <optional>
#include <string>
#include <system_error>
#include <vector>

#include "absl/status/status.h"
#include "absl/status/statusor.h"
#include "absl/strings/match.h"
#include "absl/strings/str_cat.h"
#include "absl/strings/str_format.h"
#include "absl/strings/str_join.h"
#include "absl/time/time.h"
#include "cache/cache_options.h"
#include "cache/code_object_store.h"
#include "cache/kernel_cache.h"
#include "cache/maintenance.h"
#include "cache/merge.h"
#include "cache/portable_file.h"
#include "cache/schema.h"
#include "cache/sqlite_db.h"
#include "cache/tuning_store.h"
#include "lib/internal/status_macros.h"

namespace jitk::cache {
namespace {

using Json = nlohmann::json;

struct Flags {
  bool json = false;
  std::string cache_dir;
};

std::string Time(int64_t unix_seconds) {
  return absl::FormatTime("%Y-%m-%d %H:%M:%S", absl::FromUnixSeconds(unix_seconds),
                          absl::UTCTimeZone());
}

std::string Bytes(int64_t n) {
  if (n >= (int64_t{1} << 30)) return absl::StrFormat("%.1f GiB", n / double(1 << 30));
  if (n >= (int64_t{1} << 20)) return absl::StrFormat("%.1f MiB", n / double(1 << 20));
  if (n >= (int64_t{1} << 10)) return absl::StrFormat("%.1f KiB", n / double(1 << 10));
  return absl::StrCat(n, " B");
}

// Invalid UTF-8 (from a damaged row) is replaced instead of throwing.
void Print(const Json& j) {
  std::printf("%s\n", j.dump(2, ' ', false, Json::error_handler_t::replace).c_str());
}

int Fail(const Flags& flags, const absl::Status& status) {
  if (flags.json) Print(Json{{"ok", false}, {"error", std::string(status.ToString())}});
  std::fprintf(stderr, "jitk-db: %s\n", std::string(status.ToString()).c_str());
  return 1;
}

CacheOptions Options(const Flags& flags) {
  CacheOptions options = CacheOptionsFromEnv(ProcessEnv(), [](absl::string_view) {});
  options.enabled = true;  // the tool works on the files even when the library may not
  if (!flags.cache_dir.empty()) options.cache_dir = flags.cache_dir;
  return options;
}

// A path, or an arch name meaning that arch's user DB.
std::string ResolveDb(const std::string& arg, const Flags& flags) {
  std::error_code error;
  if (absl::StrContains(arg, '/') || absl::EndsWith(arg, ".db") || absl::EndsWith(arg, ".json") ||
      std::filesystem::exists(arg, error) || !ValidateArchName(arg).ok()) {
    return arg;
  }
  KernelCache cache(Options(flags));
  std::string path = cache.UserDbPath(arg);
  return path.empty() ? arg : path;
}

Json SummaryJson(const DbSummary& s) {
  return Json{{"arch", s.schema.arch},
              {"schema_version", s.schema.version},
              {"created_by", s.schema.created_by},
              {"journal_mode", s.journal_mode},
              {"code_objects", s.code_objects},
              {"code_bytes", s.code_bytes},
              {"tuning_rows", s.tuning_rows},
              {"used_bytes", s.used_bytes},
              {"compilers", s.compilers}};
}

Json StatsJson(const MergeStats& s) {
  return Json{{"code_objects_copied", s.code_objects_copied},
              {"code_objects_kept", s.code_objects_kept},
              {"tuning_copied", s.tuning_copied},
              {"tuning_kept", s.tuning_kept},
              {"bad_rows", s.bad_rows}};
}

std::string StatsText(const MergeStats& s) {
  return absl::StrFormat(
      "code objects: %d copied, %d already present; tuning rows: %d copied, %d kept (existing "
      "row as good or better); %d bad rows skipped",
      s.code_objects_copied, s.code_objects_kept, s.tuning_copied, s.tuning_kept, s.bad_rows);
}

// ---- list

int List(const Flags& flags) {
  CacheOptions options = Options(flags);
  struct Dir {
    std::string path;
    const char* layer;
  };
  std::vector<Dir> dirs;
  if (!options.cache_dir.empty()) dirs.push_back({options.cache_dir, "user"});
  for (const std::string& dir : options.system_db_dirs) dirs.push_back({dir, "system"});

  Json out = Json::array();
  std::vector<std::vector<std::string>> rows = {
      {"LAYER", "ARCH", "SCHEMA", "CODE", "CODE SIZE", "TUNING", "STATUS", "PATH"}};
  for (const Dir& dir : dirs) {
    std::error_code error;
    std::vector<std::string> files;
    for (const auto& entry : std::filesystem::directory_iterator(dir.path, error)) {
      std::string name = entry.path().filename().string();
      bool aside = absl::StrContains(name, ".db.corrupt-") && !absl::EndsWith(name, "-wal") &&
                   !absl::EndsWith(name, "-journal");
      if ((absl::EndsWith(name, ".db") || aside) && entry.is_regular_file(error)) {
        files.push_back(entry.path().string());
      }
    }
    std::sort(files.begin(), files.end());
    for (const std::string& path : files) {
      const bool aside = absl::StrContains(path, ".db.corrupt-");
      Json item = {{"path", path}, {"layer", aside ? "moved-aside" : dir.layer}};
      std::string status = "ok";
      SqliteOpenOptions open;
      open.read_only = true;
      open.journal = JournalMode::kKeep;
      open.busy_timeout = absl::Seconds(5);
      absl::StatusOr<std::unique_ptr<SqliteDb>> db = SqliteDb::Open(path, open);
      if (!db.ok() && absl::IsUnavailable(db.status())) {
        open.immutable = true;
        db = SqliteDb::Open(path, open);
      }
      absl::StatusOr<DbSummary> summary =
          db.ok() ? SummarizeDb(**db) : absl::StatusOr<DbSummary>(db.status());
      std::vector<std::string> row = {item["layer"], "?", "?", "?", "?", "?", "", path};
      if (summary.ok()) {
        item.update(SummaryJson(*summary));
        if (summary->schema.application_id != kApplicationId) {
          status = "not a jitk DB";
        } else if (summary->schema.version != kSchemaVersion) {
          status = absl::StrCat("schema ", summary->schema.version, " (this jitk: ", kSchemaVersion,
                                ")");
        }
        row[1] = summary->schema.arch;
        row[2] = absl::StrCat(summary->schema.version);
        row[3] = absl::StrCat(summary->code_objects);
        row[4] = Bytes(summary->code_bytes);
        row[5] = absl::StrCat(summary->tuning_rows);
      } else {
        status = std::string(summary.status().message());
      }
      item["status"] = status;
      row[6] = status;
      rows.push_back(row);
      out.push_back(item);
    }
  }
  if (flags.json) {
    Print(Json{{"ok", true}, {"databases", out}});
    return 0;
  }
  if (rows.size() == 1) {
    std::printf("no cache DBs in %s\n", absl::StrJoin(dirs, ", ", [](std::string* o, const Dir& d) {
                                          o->append(d.path);
                                        }).c_str());
    return 0;
  }
  std::vector<size_t> width(rows[0].size(), 0);
  for (const auto& row : rows) {
    for (size_t i = 0; i < row.size(); ++i) width[i] = std::max(width[i], row[i].size());
  }
  for (const auto& row : rows) {
    std::string line;
    for (size_t i = 0; i < row.size(); ++i) {
      absl::StrAppend(&line, row[i],
                      i + 1 < row.size() ? std::string(width[i] - row[i].size() + 2, ' ') : "");
    }
    std::printf("%s\n", line.c_str());
  }
  return 0;
}

// ---- show

int Show(const Flags& flags, const std::string& arg, const std::string& kernel, bool code_only,
         bool tuning_only) {
  std::string path = ResolveDb(arg, flags);
  int bad = 0;
  absl::StatusOr<std::unique_ptr<SqliteDb>> db = OpenPortableFile(path, &bad);
  if (!db.ok()) return Fail(flags, db.status());
  absl::StatusOr<DbSummary> summary = SummarizeDb(**db);
  if (!summary.ok()) return Fail(flags, summary.status());

  Json code = Json::array(), tuning = Json::array();
  std::vector<std::string> code_lines, tuning_lines;
  absl::Status walk = absl::OkStatus();
  if (!tuning_only) {
    walk = ForEachCodeObject(**db, [&](const CodeObjectRecord& r, const absl::Status& check) {
      if (!kernel.empty() && r.kernel != kernel) return absl::OkStatus();
      const ResourceUsage& u = r.resources;
      code.push_back(Json{{"key", r.key},
                          {"kernel", r.kernel},
                          {"symbol", r.symbol},
                          {"name_expression", r.name_expression},
                          {"target", r.target},
                          {"compiler", r.compiler},
                          {"config", r.config},
                          {"size", r.code.size()},
                          {"registers", u.registers},
                          {"scalar_registers", u.scalar_registers},
                          {"accum_registers", u.accum_registers},
                          {"lds_bytes", u.lds_bytes},
                          {"scratch_bytes", u.scratch_bytes},
                          {"spills", u.spills},
                          {"compile_ms", r.compile_ms},
                          {"jitk_version", r.jitk_version},
                          {"created_unix", r.created_unix},
                          {"intact", check.ok()}});
      code_lines.push_back(absl::StrFormat(
          "  %s  %-12s %-28s %-24s %s  %s  regs %d  lds %d  spills %d  %s%s", r.key.substr(0, 16),
          r.kernel, r.name_expression, r.target, r.compiler, Bytes(r.code.size()), u.registers,
          u.lds_bytes, u.spills, Time(r.created_unix), check.ok() ? "" : "  [FAILS CHECKSUM]"));
      return absl::OkStatus();
    });
  }
  if (walk.ok() && !code_only) {
    walk = ForEachTuning(**db, [&](const TuningRecord& r, const absl::Status& check) {
      if (!kernel.empty() && r.kernel != kernel) return absl::OkStatus();
      Json row = TuningJson(r);
      row["intact"] = check.ok();
      tuning.push_back(std::move(row));
      tuning_lines.push_back(absl::StrFormat(
          "  %-12s %-24s %s (%d CUs)  %s  %s  %.4f ms ±%.4f  %s  %zu runner-ups  %s%s", r.kernel,
          r.shape_key, r.device_name, r.compute_units, r.compiler, r.config, r.median_ms,
          r.spread_ms, r.validated ? "validated" : "unvalidated", r.runner_ups.size(),
          Time(r.tuned_unix), check.ok() ? "" : "  [FAILS CHECKSUM]"));
      return absl::OkStatus();
    });
  }
  if (!walk.ok()) return Fail(flags, walk);
  if (flags.json) {
    Json out = {{"ok", true}, {"path", path}, {"summary", SummaryJson(*summary)}};
    if (!tuning_only) out["code_objects"] = code;
    if (!code_only) out["tuning"] = tuning;
    Print(out);
    return 0;
  }
  std::printf("%s: arch %s, schema %d, %s, created by %s\n", path.c_str(),
              summary->schema.arch.c_str(), summary->schema.version, summary->journal_mode.c_str(),
              summary->schema.created_by.c_str());
  if (!tuning_only) {
    std::printf("code objects (%zu):\n", code_lines.size());
    for (const std::string& line : code_lines) std::printf("%s\n", line.c_str());
  }
  if (!code_only) {
    std::printf("tuning rows (%zu):\n", tuning_lines.size());
    for (const std::string& line : tuning_lines) std::printf("%s\n", line.c_str());
  }
  return 0;
}

// ---- export / import / merge

int Export(const Flags& flags, const std::string& arg, const std::string& out,
           const std::string& format, bool tuning_only, bool force) {
  ExportOptions options;
  options.overwrite = force;
  options.format = FormatForPath(out);
  if (!format.empty()) {
    absl::StatusOr<PortableFormat> parsed = ParsePortableFormat(format);
    if (!parsed.ok()) return Fail(flags, parsed.status());
    options.format = *parsed;
  }
  options.tables.code_objects = !tuning_only;
  std::string path = ResolveDb(arg, flags);
  int bad = 0;
  absl::StatusOr<std::unique_ptr<SqliteDb>> src = OpenPortableFile(path, &bad);
  if (!src.ok()) return Fail(flags, src.status());
  absl::StatusOr<MergeStats> stats = ExportDb(**src, out, options);
  if (!stats.ok()) return Fail(flags, stats.status());
  stats->bad_rows += bad;
  if (flags.json) {
    Print(Json{{"ok", true}, {"from", path}, {"to", out}, {"stats", StatsJson(*stats)}});
  } else {
    std::printf("exported %s to %s: %d code objects, %d tuning rows (%d bad rows left out)\n",
                path.c_str(), out.c_str(), stats->code_objects_copied, stats->tuning_copied,
                stats->bad_rows);
  }
  return 0;
}

// Opens (creating) a DB to merge into, for `arch` ("" = whatever it holds).
absl::StatusOr<std::unique_ptr<SqliteDb>> OpenDestination(const std::string& path,
                                                          const std::string& arch) {
  std::error_code error;
  const bool exists = std::filesystem::exists(path, error);
  if (auto parent = std::filesystem::path(path).parent_path(); !parent.empty()) {
    std::filesystem::create_directories(parent, error);
  }
  SqliteOpenOptions open;
  open.journal = exists ? JournalMode::kKeep : JournalMode::kDelete;  // new files are shippable
  JITK_ASSIGN_OR_RETURN(std::unique_ptr<SqliteDb> db, SqliteDb::Open(path, open));
  if (db->read_only()) {
    return absl::PermissionDeniedError(absl::StrCat(path, " is read-only"));
  }
  JITK_RETURN_IF_ERROR(EnsureSchema(*db, arch));
  return db;
}

absl::StatusOr<std::string> ArchOf(SqliteDb& db) {
  JITK_ASSIGN_OR_RETURN(SchemaInfo info, ReadSchemaInfo(db));
  return info.arch;
}

int Import(const Flags& flags, const std::string& file, const std::string& into) {
  int bad = 0;
  absl::StatusOr<std::unique_ptr<SqliteDb>> src = OpenPortableFile(file, &bad);
  if (!src.ok()) return Fail(flags, src.status());
  absl::StatusOr<std::string> arch = ArchOf(**src);
  if (!arch.ok()) return Fail(flags, arch.status());
  std::string path = into.empty() ? ResolveDb(*arch, flags) : ResolveDb(into, flags);
  if (path == *arch) {
    return Fail(flags, absl::FailedPreconditionError(
                           "no user cache directory (set JITK_CACHE_DIR or pass --into)"));
  }
  absl::StatusOr<std::unique_ptr<SqliteDb>> dst = OpenDestination(path, *arch);
  if (!dst.ok()) return Fail(flags, dst.status());
  MergeStats stats;
  stats.bad_rows = bad;
  absl::Status merged = MergeRows(**src, **dst, &stats);
  if (!merged.ok()) return Fail(flags, merged);
  if (flags.json) {
    Print(Json{{"ok", true}, {"from", file}, {"to", path}, {"stats", StatsJson(stats)}});
  } else {
    std::printf("imported %s into %s: %s\n", file.c_str(), path.c_str(), StatsText(stats).c_str());
  }
  return 0;
}

int Merge(const Flags& flags, const std::string& out, const std::vector<std::string>& inputs) {
  // Open every input first: a wrong file fails the merge before anything is written.
  std::vector<std::unique_ptr<SqliteDb>> sources;
  std::vector<int> bad_rows;
  std::string arch;
  for (const std::string& input : inputs) {
    int bad = 0;
    absl::StatusOr<std::unique_ptr<SqliteDb>> src = OpenPortableFile(ResolveDb(input, flags), &bad);
    if (!src.ok()) return Fail(flags, src.status());
    absl::StatusOr<std::string> src_arch = ArchOf(**src);
    if (!src_arch.ok()) return Fail(flags, src_arch.status());
    if (arch.empty()) arch = *src_arch;
    if (*src_arch != arch) {
      return Fail(flags, absl::FailedPreconditionError(
                             absl::StrCat(input, " holds arch '", *src_arch, "' but ", inputs[0],
                                          " holds '", arch, "'; merge DBs of one arch at a time")));
    }
    sources.push_back(std::move(*src));
    bad_rows.push_back(bad);
  }
  std::string out_path = ResolveDb(out, flags);
  absl::StatusOr<std::unique_ptr<SqliteDb>> dst = OpenDestination(out_path, arch);
  if (!dst.ok()) return Fail(flags, dst.status());

  MergeStats total;
  Json per_input = Json::array();
  for (size_t i = 0; i < sources.size(); ++i) {
    MergeStats stats;
    stats.bad_rows = bad_rows[i];
    absl::Status merged = MergeRows(*sources[i], **dst, &stats);
    if (!merged.ok()) return Fail(flags, merged);
    total += stats;
    per_input.push_back(Json{{"input", inputs[i]}, {"stats", StatsJson(stats)}});
    if (!flags.json) std::printf("%s: %s\n", inputs[i].c_str(), StatsText(stats).c_str());
  }
  if (flags.json) {
    Print(Json{{"ok", true},
               {"to", out_path},
               {"arch", arch},
               {"inputs", per_input},
               {"total", StatsJson(total)}});
  } else {
    std::printf("merged %zu DB(s) into %s (arch %s)\n", inputs.size(), out_path.c_str(),
                arch.c_str());
  }
  return 0;
}

// ---- verify / prune

int Verify(const Flags& flags, const std::vector<std::string>& args) {
  bool all_ok = true;
  Json out = Json::array();
  for (const std::string& arg : args) {
    VerifyReport report = VerifyDbFile(ResolveDb(arg, flags));
    all_ok = all_ok && report.ok();
    Json item = {{"path", report.path},
                 {"ok", report.ok()},
                 {"problems", report.problems},
                 {"bad_rows", report.bad_rows}};
    if (report.summary.has_value()) item["summary"] = SummaryJson(*report.summary);
    out.push_back(item);
    if (!flags.json) {
      if (report.ok()) {
        std::printf("%s: ok (%lld code objects, %lld tuning rows, schema %d)\n",
                    report.path.c_str(),
                    static_cast<long long>(report.summary ? report.summary->code_objects : 0),
                    static_cast<long long>(report.summary ? report.summary->tuning_rows : 0),
                    report.summary ? report.summary->schema.version : 0);
      } else {
        std::printf("%s: %zu problem(s)\n", report.path.c_str(), report.problems.size());
        for (const std::string& p : report.problems) std::printf("  %s\n", p.c_str());
      }
    }
  }
  if (flags.json) Print(Json{{"ok", all_ok}, {"databases", out}});
  return all_ok ? 0 : 1;
}

int Prune(const Flags& flags, const std::string& arg, const std::string& older_than,
          const std::string& compiler, const std::string& keep_compiler,
          const std::string& max_size, bool dry_run) {
  PruneOptions options;
  options.dry_run = dry_run;
  if (!older_than.empty()) {
    absl::StatusOr<absl::Duration> age = ParseAge(older_than);
    if (!age.ok()) return Fail(flags, age.status());
    options.older_than = *age;
  }
  if (!compiler.empty()) options.compiler = compiler;
  if (!keep_compiler.empty()) options.keep_compiler = keep_compiler;
  if (!max_size.empty()) {
    absl::StatusOr<int64_t> bytes = ParseSize(max_size);
    if (!bytes.ok()) return Fail(flags, bytes.status());
    options.max_bytes = *bytes;
  }
  std::string path = ResolveDb(arg, flags);
  std::error_code error;
  if (!std::filesystem::is_regular_file(path, error)) {
    return Fail(flags, absl::NotFoundError(absl::StrCat("no DB ", path)));
  }
  SqliteOpenOptions open;
  open.create = false;
  open.journal = JournalMode::kKeep;
  absl::StatusOr<std::unique_ptr<SqliteDb>> db = SqliteDb::Open(path, open);
  if (!db.ok()) return Fail(flags, db.status());
  absl::Status schema = EnsureSchema(**db, "");
  if (!schema.ok()) return Fail(flags, schema);
  absl::StatusOr<PruneStats> stats = PruneDb(**db, options);
  if (!stats.ok()) return Fail(flags, stats.status());
  if (flags.json) {
    Print(Json{{"ok", true},
               {"path", path},
               {"dry_run", dry_run},
               {"code_objects_removed", stats->code_objects_removed},
               {"tuning_removed", stats->tuning_removed},
               {"used_bytes_before", stats->used_bytes_before},
               {"used_bytes_after", stats->used_bytes_after}});
  } else {
    std::printf("%s%s: removed %lld code objects and %lld tuning rows; %s -> %s\n",
                dry_run ? "(dry run) " : "", path.c_str(),
                static_cast<long long>(stats->code_objects_removed),
                static_cast<long long>(stats->tuning_removed),
                Bytes(stats->used_bytes_before).c_str(), Bytes(stats->used_bytes_after).c_str());
  }
  return 0;
}

int Main(int argc, char** argv) {
  CLI::App app{
      "jitk-db: inspect, check, ship and combine jitk cache DBs.\n"
      "DB is a path, or an arch name (gfx942, sm_90) meaning that arch's user DB in\n"
      "$JITK_CACHE_DIR (default $XDG_CACHE_HOME/jitk or ~/.cache/jitk).",
      "jitk-db"};
  Flags flags;
  app.add_flag("--json", flags.json, "machine-readable output");
  app.add_option("--cache-dir", flags.cache_dir, "the user cache directory (default from env)");
  app.require_subcommand(1);
  app.fallthrough();

  app.add_subcommand("list", "list the DBs of the user cache and the system directories");

  std::string db, out, kernel, format, into, older_than, compiler, keep_compiler, max_size;
  std::vector<std::string> dbs;
  bool code_only = false, tuning_only = false, force = false, dry_run = false;

  CLI::App* show = app.add_subcommand("show", "print the rows of a DB or portable file");
  show->add_option("db", db, "DB path, arch name or portable file")->required();
  show->add_option("--kernel", kernel, "only rows of this kernel");
  show->add_flag("--code", code_only, "only code objects");
  show->add_flag("--tuning", tuning_only, "only tuning rows");

  CLI::App* export_cmd = app.add_subcommand(
      "export", "write a portable file: sqlite (a shippable system DB) or json (reviewable)");
  export_cmd->add_option("db", db, "DB path or arch name")->required();
  export_cmd->add_option("out", out, "the file to write")->required();
  export_cmd->add_option("--format", format, "sqlite or json (default: json for *.json)");
  export_cmd->add_flag("--tuning-only", tuning_only, "leave the code objects out");
  export_cmd->add_flag("--force", force, "replace an existing file");

  CLI::App* import = app.add_subcommand(
      "import", "merge a portable file into the user DB of its arch (merge rule as `merge`)");
  import->add_option("file", out, "portable file (sqlite or json)")->required();
  import->add_option("--into", into, "merge into this DB instead");

  CLI::App* merge = app.add_subcommand(
      "merge",
      "merge DBs into OUT: code objects by key; per tuning key the validated row wins, then "
      "the lower median time, then the newer one");
  merge->add_option("out", out, "the DB to merge into (created if missing)")->required();
  merge->add_option("inputs", dbs, "DBs or portable files of the same arch")->required();

  CLI::App* verify =
      app.add_subcommand("verify", "check schema, SQLite integrity and every row's checksum");
  verify->add_option("dbs", dbs, "DB paths or arch names")->required();

  CLI::App* prune = app.add_subcommand("prune", "remove old or unwanted rows, then VACUUM");
  prune->add_option("db", db, "DB path or arch name")->required();
  prune->add_option("--older-than", older_than, "rows older than this age: 30d, 12h, 2w");
  prune->add_option("--compiler-version", compiler, "rows of exactly this compiler");
  prune->add_option("--keep-compiler-version", keep_compiler, "rows of any other compiler");
  prune->add_option("--max-size", max_size,
                    "then drop the oldest code objects until the DB fits: 500M, 2G");
  prune->add_flag("--dry-run", dry_run, "count only");

  try {
    app.parse(argc, argv);
  } catch (const CLI::ParseError& e) {
    int code = app.exit(e);
    return code == 0 ? 0 : 2;
  }

  if (app.got_subcommand("list")) return List(flags);
  if (app.got_subcommand(show)) return Show(flags, db, kernel, code_only, tuning_only);
  if (app.got_subcommand(export_cmd)) return Export(flags, db, out, format, tuning_only, force);
  if (app.got_subcommand(import)) return Import(flags, out, into);
  if (app.got_subcommand(merge)) return Merge(flags, out, dbs);
  if (app.got_subcommand(verify)) return Verify(flags, dbs);
  if (app.got_subcommand(prune)) {
    if (older_than.empty() && compiler.empty() && keep_compiler.empty() && max_size.empty()) {
      std::fprintf(stderr,
                   "jitk-db prune: give at least one of --older-than, --compiler-version, "
                   "--keep-compiler-version, --max-size\n");
      return 2;
    }
    return Prune(flags, db, older_than, compiler, keep_compiler, max_size, dry_run);
  }
  return 2;
}

}  // namespace
}  // namespace jitk::cache

int main(int argc, char** argv) {
  try {
    return jitk::cache::Main(argc, argv);
  } catch (const std::exception& e) {
    std::fprintf(stderr, "jitk-db: %s\n", e.what());
    return 1;
  }
}
