#include "cache/portable_file.h"

#include <unistd.h>

#include <cstdio>
#include <cstring>
#include <filesystem>
#include <fstream>
#include <nlohmann/json.hpp>
#include <sstream>
#include <system_error>

#include "absl/status/status.h"
#include "absl/strings/escaping.h"
#include "absl/strings/match.h"
#include "absl/strings/numbers.h"
#include "absl/strings/str_cat.h"
#include "absl/strings/str_format.h"
#include "absl/time/clock.h"
#include "cache/code_object_store.h"
#include "cache/schema.h"
#include "cache/tuning_store.h"
#include "jitk/version.h"
#include "lib/internal/status_macros.h"

namespace jitk::cache {

namespace {

using Json = nlohmann::json;

constexpr absl::string_view kJsonFormat = "jitk-cache-export";
constexpr int kJsonFormatVersion = 1;

std::string Hex64(uint64_t v) { return absl::StrFormat("%016x", v); }

absl::StatusOr<std::string> ReadFile(const std::string& path) {
  std::ifstream in(path, std::ios::binary);
  if (!in) return absl::NotFoundError(absl::StrCat("cannot read ", path));
  std::ostringstream text;
  text << in.rdbuf();
  return text.str();
}

// Writes `path` through a temporary file and a rename.
absl::Status ReplaceFile(const std::string& path, absl::string_view bytes) {
  std::string tmp = absl::StrCat(path, ".tmp-", ::getpid());
  {
    std::ofstream out(tmp, std::ios::binary | std::ios::trunc);
    out.write(bytes.data(), static_cast<std::streamsize>(bytes.size()));
    out.flush();
    if (!out) {
      std::remove(tmp.c_str());
      return absl::UnavailableError(absl::StrCat("cannot write ", tmp));
    }
  }
  if (std::rename(tmp.c_str(), path.c_str()) != 0) {
    std::remove(tmp.c_str());
    return absl::UnavailableError(absl::StrCat("cannot rename ", tmp, " to ", path));
  }
  return absl::OkStatus();
}

Json CodeObjectJson(const CodeObjectRecord& r) {
  const ResourceUsage& u = r.resources;
  return Json{{"key", r.key},
              {"kernel", r.kernel},
              {"symbol", r.symbol},
              {"name_expression", r.name_expression},
              {"target", r.target},
              {"compiler", r.compiler},
              {"config", r.config},
              {"resources",
               {{"registers", u.registers},
                {"scalar_registers", u.scalar_registers},
                {"accum_registers", u.accum_registers},
                {"lds_bytes", u.lds_bytes},
                {"scratch_bytes", u.scratch_bytes},
                {"spills", u.spills},
                {"wave_size", u.wave_size},
                {"max_threads_per_block", u.max_threads_per_block}}},
              {"compile_ms", r.compile_ms},
              {"jitk_version", r.jitk_version},
              {"created_unix", r.created_unix},
              {"size", r.code.size()},
              {"checksum", Hex64(CodeObjectChecksum(r))},
              {"code_base64", absl::Base64Escape(r.code)}};
}


// Typed field access that never throws: a missing or mistyped field reads as
// the default, and the row's checksum then rejects it.
std::string Str(const Json& o, const char* key) {
  auto it = o.find(key);
  return it != o.end() && it->is_string() ? it->get<std::string>() : std::string();
}
int64_t Int(const Json& o, const char* key) {
  auto it = o.find(key);
  return it != o.end() && it->is_number_integer() ? it->get<int64_t>() : 0;
}
double Num(const Json& o, const char* key) {
  auto it = o.find(key);
  return it != o.end() && it->is_number() ? it->get<double>() : 0.0;
}
bool Bool(const Json& o, const char* key) {
  auto it = o.find(key);
  return it != o.end() && it->is_boolean() && it->get<bool>();
}
// true when the row has no checksum, or the given one matches.
bool ChecksumMatches(const Json& o, uint64_t actual) {
  auto it = o.find("checksum");
  if (it == o.end()) return true;
  uint64_t stated;
  return it->is_string() && absl::SimpleHexAtoi(it->get<std::string>(), &stated) &&
         stated == actual;
}

absl::Status LoadJson(const Json& doc, SqliteDb& db, int* bad_rows) {
  const Json* code_objects = doc.contains("code_objects") ? &doc["code_objects"] : nullptr;
  const Json* tuning = doc.contains("tuning") ? &doc["tuning"] : nullptr;
  return db.WriteTransaction([&]() -> absl::Status {
    *bad_rows = 0;
    if (code_objects != nullptr && code_objects->is_array()) {
      for (const Json& o : *code_objects) {
        if (!o.is_object()) {
          ++*bad_rows;
          continue;
        }
        CodeObjectRecord r;
        r.key = Str(o, "key");
        r.kernel = Str(o, "kernel");
        r.symbol = Str(o, "symbol");
        r.name_expression = Str(o, "name_expression");
        r.target = Str(o, "target");
        r.compiler = Str(o, "compiler");
        r.config = Str(o, "config");
        if (auto it = o.find("resources"); it != o.end() && it->is_object()) {
          const Json& u = *it;
          r.resources.registers = static_cast<int>(Int(u, "registers"));
          r.resources.scalar_registers = static_cast<int>(Int(u, "scalar_registers"));
          r.resources.accum_registers = static_cast<int>(Int(u, "accum_registers"));
          r.resources.lds_bytes = static_cast<int>(Int(u, "lds_bytes"));
          r.resources.scratch_bytes = static_cast<int>(Int(u, "scratch_bytes"));
          r.resources.spills = static_cast<int>(Int(u, "spills"));
          r.resources.wave_size = static_cast<int>(Int(u, "wave_size"));
          r.resources.max_threads_per_block = static_cast<int>(Int(u, "max_threads_per_block"));
        }
        r.compile_ms = Num(o, "compile_ms");
        r.jitk_version = Str(o, "jitk_version");
        r.created_unix = Int(o, "created_unix");
        bool decoded = absl::Base64Unescape(Str(o, "code_base64"), &r.code);
        if (!decoded || !ChecksumMatches(o, CodeObjectChecksum(r)) || !PutCodeObject(db, r).ok()) {
          ++*bad_rows;
        }
      }
    }
    if (tuning != nullptr && tuning->is_array()) {
      for (const Json& o : *tuning) {
        if (!o.is_object()) {
          ++*bad_rows;
          continue;
        }
        TuningRecord r;
        r.kernel = Str(o, "kernel");
        r.shape_key = Str(o, "shape_key");
        r.device_name = Str(o, "device_name");
        r.compute_units = static_cast<int>(Int(o, "compute_units"));
        r.compiler = Str(o, "compiler");
        r.config = Str(o, "config");
        r.median_ms = Num(o, "median_ms");
        r.spread_ms = Num(o, "spread_ms");
        if (auto it = o.find("runner_ups"); it != o.end() && it->is_array()) {
          for (const Json& u : *it) {
            if (u.is_object()) r.runner_ups.push_back({Str(u, "config"), Num(u, "median_ms")});
          }
        }
        r.validated = Bool(o, "validated");
        r.jitk_version = Str(o, "jitk_version");
        r.tuned_unix = Int(o, "tuned_unix");
        // Rows written by hand may leave the version and time out.
        bool intact = ChecksumMatches(o, TuningChecksum(r));
        if (!intact || !PutTuning(db, r, TuningConflict::kKeepBetter).ok()) ++*bad_rows;
      }
    }
    return absl::OkStatus();
  });
}

absl::StatusOr<std::unique_ptr<SqliteDb>> OpenJson(const std::string& path, absl::string_view text,
                                                   int* bad_rows) {
  Json doc = Json::parse(text.begin(), text.end(), nullptr, /*allow_exceptions=*/false);
  if (doc.is_discarded() || !doc.is_object()) {
    return absl::DataLossError(absl::StrCat(path, " is not valid JSON"));
  }
  if (Str(doc, "format") != kJsonFormat) {
    return absl::DataLossError(absl::StrCat(path, " is not a jitk cache export (\"format\": \"",
                                            kJsonFormat, "\" missing)"));
  }
  if (Int(doc, "format_version") != kJsonFormatVersion) {
    return absl::FailedPreconditionError(absl::StrCat(path, " has export format version ",
                                                      Int(doc, "format_version"),
                                                      "; this jitk "
                                                      "reads version ",
                                                      kJsonFormatVersion));
  }
  std::string arch = Str(doc, "arch");
  JITK_ASSIGN_OR_RETURN(std::unique_ptr<SqliteDb> db, SqliteDb::OpenInMemory());
  JITK_RETURN_IF_ERROR(EnsureSchema(*db, arch));
  try {
    JITK_RETURN_IF_ERROR(LoadJson(doc, *db, bad_rows));
  } catch (const Json::exception& e) {
    return absl::DataLossError(absl::StrCat(path, ": malformed export: ", e.what()));
  }
  return db;
}

}  // namespace

Json TuningJson(const TuningRecord& r) {
  Json runner_ups = Json::array();
  for (const RunnerUp& u : r.runner_ups) {
    runner_ups.push_back({{"config", u.config}, {"median_ms", u.median_ms}});
  }
  return Json{{"kernel", r.kernel},
              {"shape_key", r.shape_key},
              {"device_name", r.device_name},
              {"compute_units", r.compute_units},
              {"compiler", r.compiler},
              {"config", r.config},
              {"median_ms", r.median_ms},
              {"spread_ms", r.spread_ms},
              {"runner_ups", runner_ups},
              {"validated", r.validated},
              {"jitk_version", r.jitk_version},
              {"tuned_unix", r.tuned_unix},
              {"checksum", Hex64(TuningChecksum(r))}};
}

PortableFormat FormatForPath(absl::string_view path) {
  return absl::EndsWithIgnoreCase(path, ".json") ? PortableFormat::kJson : PortableFormat::kSqlite;
}

absl::StatusOr<PortableFormat> ParsePortableFormat(absl::string_view name) {
  if (name == "sqlite") return PortableFormat::kSqlite;
  if (name == "json") return PortableFormat::kJson;
  return absl::InvalidArgumentError(
      absl::StrCat("unknown export format '", name, "'; use sqlite or json"));
}

absl::StatusOr<MergeStats> ExportDb(SqliteDb& src, const std::string& path,
                                    const ExportOptions& options) {
  std::error_code error;
  if (!options.overwrite && std::filesystem::exists(path, error)) {
    return absl::AlreadyExistsError(absl::StrCat(path, " exists (use --force to replace it)"));
  }
  JITK_ASSIGN_OR_RETURN(SchemaInfo info, ReadSchemaInfo(src));
  MergeStats stats;

  if (options.format == PortableFormat::kJson) {
    Json doc = {{"format", kJsonFormat},
                {"format_version", kJsonFormatVersion},
                {"schema_version", kSchemaVersion},
                {"arch", info.arch},
                {"exported_by", "jitk " JITK_VERSION_STRING},
                {"exported_unix", absl::ToUnixSeconds(absl::Now())},
                {"code_objects", Json::array()},
                {"tuning", Json::array()}};
    if (options.tables.code_objects) {
      JITK_RETURN_IF_ERROR(ForEachCodeObject(
          src, [&](const CodeObjectRecord& r, const absl::Status& check) -> absl::Status {
            if (!check.ok()) {
              ++stats.bad_rows;
            } else {
              doc["code_objects"].push_back(CodeObjectJson(r));
              ++stats.code_objects_copied;
            }
            return absl::OkStatus();
          }));
    }
    if (options.tables.tuning) {
      JITK_RETURN_IF_ERROR(
          ForEachTuning(src, [&](const TuningRecord& r, const absl::Status& check) -> absl::Status {
            if (!check.ok()) {
              ++stats.bad_rows;
            } else {
              doc["tuning"].push_back(TuningJson(r));
              ++stats.tuning_copied;
            }
            return absl::OkStatus();
          }));
    }
    // Invalid UTF-8 (from a damaged row) is replaced instead of throwing.
    JITK_RETURN_IF_ERROR(
        ReplaceFile(path, doc.dump(1, ' ', false, Json::error_handler_t::replace) + "\n"));
    return stats;
  }

  std::string tmp = absl::StrCat(path, ".tmp-", ::getpid());
  std::filesystem::remove(tmp, error);
  absl::Status written = [&]() -> absl::Status {
    SqliteOpenOptions open;
    open.journal = JournalMode::kDelete;
    JITK_ASSIGN_OR_RETURN(std::unique_ptr<SqliteDb> out, SqliteDb::Open(tmp, open));
    JITK_RETURN_IF_ERROR(EnsureSchema(*out, info.arch));
    JITK_RETURN_IF_ERROR(MergeRows(src, *out, &stats, options.tables));
    return out->Exec("VACUUM");
  }();
  if (!written.ok()) {
    std::filesystem::remove(tmp, error);
    return written;
  }
  if (std::rename(tmp.c_str(), path.c_str()) != 0) {
    std::filesystem::remove(tmp, error);
    return absl::UnavailableError(absl::StrCat("cannot rename ", tmp, " to ", path));
  }
  return stats;
}

absl::StatusOr<std::unique_ptr<SqliteDb>> OpenPortableFile(const std::string& path, int* bad_rows) {
  *bad_rows = 0;
  std::error_code error;
  if (!std::filesystem::is_regular_file(path, error)) {
    return absl::NotFoundError(absl::StrCat("no file ", path));
  }
  char head[16] = {};
  {
    std::ifstream in(path, std::ios::binary);
    in.read(head, sizeof(head));
  }
  if (std::memcmp(head, "SQLite format 3", 16) == 0) {
    SqliteOpenOptions open;
    open.read_only = true;
    open.journal = JournalMode::kKeep;
    JITK_ASSIGN_OR_RETURN(std::unique_ptr<SqliteDb> db, SqliteDb::Open(path, open));
    JITK_RETURN_IF_ERROR(EnsureSchema(*db, ""));
    return db;
  }
  JITK_ASSIGN_OR_RETURN(std::string text, ReadFile(path));
  return OpenJson(path, text, bad_rows);
}

}  // namespace jitk::cache
