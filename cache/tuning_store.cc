#include "cache/tuning_store.h"

#include <cmath>
#include <limits>

#include "absl/strings/numbers.h"
#include "absl/strings/str_cat.h"
#include "absl/strings/str_format.h"
#include "absl/strings/str_split.h"
#include "absl/time/clock.h"
#include "cache/content_hash.h"
#include "cache/shape_distance.h"
#include "jitk/version.h"
#include "lib/internal/status_macros.h"

namespace jitk::cache {

namespace {

constexpr absl::string_view kColumns =
    "kernel, shape_key, device_name, compute_units, compiler, config, median_ms, spread_ms, "
    "runner_ups, validated, jitk_version, tuned_unix, checksum";

// Runner-ups as lines "<median_ms>\t<config>"; configs never hold tabs or
// newlines (PutTuning checks), and %.17g round-trips a double exactly.
std::string EncodeRunnerUps(const std::vector<RunnerUp>& runner_ups) {
  std::string out;
  for (const RunnerUp& r : runner_ups) {
    absl::StrAppendFormat(&out, "%s%.17g\t%s", out.empty() ? "" : "\n", r.median_ms, r.config);
  }
  return out;
}

std::vector<RunnerUp> DecodeRunnerUps(absl::string_view text) {
  std::vector<RunnerUp> out;
  if (text.empty()) return out;
  for (absl::string_view line : absl::StrSplit(text, '\n')) {
    std::pair<absl::string_view, absl::string_view> parts = absl::StrSplit(line, '\t');
    RunnerUp r;
    // A garbled line decodes to something the checksum then rejects.
    if (!absl::SimpleAtod(parts.first, &r.median_ms)) r.median_ms = -1;
    r.config = std::string(parts.second);
    out.push_back(std::move(r));
  }
  return out;
}

TuningRecord ReadRow(const Statement& s, uint64_t* checksum) {
  TuningRecord r;
  r.kernel = std::string(s.ColumnText(0));
  r.shape_key = std::string(s.ColumnText(1));
  r.device_name = std::string(s.ColumnText(2));
  r.compute_units = static_cast<int>(s.ColumnInt(3));
  r.compiler = std::string(s.ColumnText(4));
  r.config = std::string(s.ColumnText(5));
  r.median_ms = s.ColumnDouble(6);
  r.spread_ms = s.ColumnDouble(7);
  r.runner_ups = DecodeRunnerUps(s.ColumnText(8));
  r.validated = s.ColumnInt(9) != 0;
  r.jitk_version = std::string(s.ColumnText(10));
  r.tuned_unix = s.ColumnInt(11);
  *checksum = static_cast<uint64_t>(s.ColumnInt(12));
  return r;
}

absl::Status Check(const TuningRecord& r, uint64_t checksum, const std::string& path) {
  if (TuningChecksum(r) == checksum) return absl::OkStatus();
  return absl::DataLossError(absl::StrCat("tuning row ", r.kernel, " '", r.shape_key, "' for ",
                                          r.device_name, " in ", path, " fails its checksum"));
}

double Rank(double median_ms) {
  return median_ms > 0 ? median_ms : std::numeric_limits<double>::infinity();
}

bool Printable(absl::string_view config) {
  return config.find_first_of("\t\n") == absl::string_view::npos;
}

}  // namespace

bool IsBetterTuning(const TuningRecord& a, const TuningRecord& b) {
  if (a.validated != b.validated) return a.validated;
  if (Rank(a.median_ms) != Rank(b.median_ms)) return Rank(a.median_ms) < Rank(b.median_ms);
  if (a.tuned_unix != b.tuned_unix) return a.tuned_unix > b.tuned_unix;
  return a.config < b.config;
}

uint64_t TuningChecksum(const TuningRecord& r) {
  ContentHasher h;
  h.AddField("tuning").AddField(r.kernel).AddField(r.shape_key).AddField(r.device_name);
  h.AddInt(r.compute_units).AddField(r.compiler).AddField(r.config);
  h.AddDouble(r.median_ms).AddDouble(r.spread_ms);
  h.AddInt(static_cast<int64_t>(r.runner_ups.size()));
  for (const RunnerUp& u : r.runner_ups) h.AddField(u.config).AddDouble(u.median_ms);
  h.AddInt(r.validated ? 1 : 0).AddField(r.jitk_version).AddInt(r.tuned_unix);
  return h.Digest64();
}

absl::StatusOr<bool> PutTuning(SqliteDb& db, const TuningRecord& in, TuningConflict conflict) {
  JITK_ASSIGN_OR_RETURN(ShapeKey shape, ParseShapeKey(in.shape_key));
  if (in.kernel.empty() || in.compiler.empty() || in.config.empty()) {
    return absl::InvalidArgumentError(
        absl::StrCat("tuning row for '", in.kernel, "' '", in.shape_key,
                     "': kernel, compiler and config must ", "not be empty"));
  }
  bool finite = std::isfinite(in.median_ms) && std::isfinite(in.spread_ms);
  bool printable = Printable(in.config);
  for (const RunnerUp& u : in.runner_ups) {
    finite = finite && std::isfinite(u.median_ms);
    printable = printable && Printable(u.config) && !u.config.empty();
  }
  if (!finite || !printable) {
    return absl::InvalidArgumentError(
        absl::StrCat("tuning row for '", in.kernel, "' '", in.shape_key,
                     "': times must be finite and configs non-empty without tabs or newlines"));
  }
  TuningRecord r = in;
  if (r.jitk_version.empty()) r.jitk_version = JITK_VERSION_STRING;
  if (r.tuned_unix == 0) r.tuned_unix = absl::ToUnixSeconds(absl::Now());

  if (conflict == TuningConflict::kKeepBetter) {
    absl::StatusOr<TuningRecord> old =
        GetTuning(db, {r.kernel, r.shape_key, r.device_name, r.compute_units, r.compiler});
    if (old.ok() && !IsBetterTuning(r, *old)) return false;
    // A missing or corrupt old row is replaced; other errors are real.
    if (!old.ok() && !absl::IsNotFound(old.status()) && !absl::IsDataLoss(old.status())) {
      return old.status();
    }
  }

  std::string runner_ups = EncodeRunnerUps(r.runner_ups);
  std::string dim_names = shape.DimNames();
  JITK_ASSIGN_OR_RETURN(
      Statement s,
      db.Prepare(absl::StrCat("INSERT OR REPLACE INTO tuning (", kColumns,
                              ", dtype, dim_names) VALUES (?1, ?2, ?3, ?4, ?5, ?6, ?7, ?8, ?9, "
                              "?10, ?11, ?12, ?13, ?14, ?15)")));
  s.BindText(1, r.kernel).BindText(2, r.shape_key).BindText(3, r.device_name);
  s.BindInt(4, r.compute_units).BindText(5, r.compiler).BindText(6, r.config);
  s.BindDouble(7, r.median_ms).BindDouble(8, r.spread_ms).BindText(9, runner_ups);
  s.BindInt(10, r.validated ? 1 : 0).BindText(11, r.jitk_version).BindInt(12, r.tuned_unix);
  s.BindInt(13, static_cast<int64_t>(TuningChecksum(r)));
  s.BindText(14, shape.dtype).BindText(15, dim_names);
  JITK_RETURN_IF_ERROR(s.Run());
  return true;
}

absl::StatusOr<TuningRecord> GetTuning(SqliteDb& db, const TuningKey& key) {
  JITK_ASSIGN_OR_RETURN(
      Statement s,
      db.Prepare(absl::StrCat("SELECT ", kColumns,
                              " FROM tuning WHERE kernel = ?1 AND shape_key = ?2 AND "
                              "device_name = ?3 AND compute_units = ?4 AND compiler = ?5")));
  s.BindText(1, key.kernel).BindText(2, key.shape_key).BindText(3, key.device_name);
  s.BindInt(4, key.compute_units).BindText(5, key.compiler);
  JITK_ASSIGN_OR_RETURN(bool row, s.Step());
  if (!row) {
    return absl::NotFoundError(absl::StrCat("no tuning row for ", key.kernel, " '", key.shape_key,
                                            "' on ", key.device_name, " in ", db.path()));
  }
  uint64_t checksum;
  TuningRecord r = ReadRow(s, &checksum);
  JITK_RETURN_IF_ERROR(Check(r, checksum, db.path()));
  return r;
}

absl::StatusOr<TuningFamily> FindTuningFamily(SqliteDb& db, absl::string_view kernel,
                                              absl::string_view compiler,
                                              absl::string_view shape_key) {
  JITK_ASSIGN_OR_RETURN(ShapeKey shape, ParseShapeKey(shape_key));
  std::string dim_names = shape.DimNames();
  JITK_ASSIGN_OR_RETURN(Statement s,
                        db.Prepare(absl::StrCat(
                            "SELECT ", kColumns,
                            " FROM tuning WHERE kernel = ?1 AND compiler = ?2 AND dtype = ?3 "
                            "AND dim_names = ?4 ORDER BY shape_key, device_name, compute_units")));
  s.BindText(1, kernel).BindText(2, compiler).BindText(3, shape.dtype).BindText(4, dim_names);
  TuningFamily family;
  while (true) {
    JITK_ASSIGN_OR_RETURN(bool row, s.Step());
    if (!row) return family;
    uint64_t checksum;
    TuningRecord r = ReadRow(s, &checksum);
    if (Check(r, checksum, db.path()).ok()) {
      family.rows.push_back(std::move(r));
    } else {
      ++family.bad_rows;
    }
  }
}

absl::StatusOr<bool> HasTuningForDevice(SqliteDb& db, absl::string_view device_name,
                                        int compute_units) {
  JITK_ASSIGN_OR_RETURN(Statement s, db.Prepare("SELECT 1 FROM tuning WHERE device_name = ?1 "
                                                "AND compute_units = ?2 LIMIT 1"));
  s.BindText(1, device_name).BindInt(2, compute_units);
  return s.Step();
}

absl::Status ForEachTuning(
    SqliteDb& db,
    absl::FunctionRef<absl::Status(const TuningRecord& record, const absl::Status& check)> visit) {
  JITK_ASSIGN_OR_RETURN(Statement s,
                        db.Prepare(absl::StrCat("SELECT ", kColumns,
                                                " FROM tuning ORDER BY kernel, shape_key, "
                                                "device_name, compute_units, compiler")));
  while (true) {
    JITK_ASSIGN_OR_RETURN(bool row, s.Step());
    if (!row) return absl::OkStatus();
    uint64_t checksum;
    TuningRecord r = ReadRow(s, &checksum);
    JITK_RETURN_IF_ERROR(visit(r, Check(r, checksum, db.path())));
  }
}

}  // namespace jitk::cache
