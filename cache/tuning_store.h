// cache/tuning_store.h — tuned configurations in one cache DB.
//
// A tuning row says: on this device (name + CU/SM count) with this compiler,
// the best configuration of `kernel` for `shape_key` is `config`, at
// `median_ms`. Rows are keyed by (kernel, shape_key, device_name,
// compute_units, compiler), so a new compiler version adds rows beside the
// old ones instead of invalidating the file; `jitk-db prune` removes old ones.
// Each row carries a checksum over its fields, verified on every read.
//
// Conflict rule (IsBetterTuning), used by merge and import, a total order so
// that merging files in any order gives the same result:
//   1. a validated result beats an unvalidated one;
//   2. then the lower median time wins (a non-positive time never wins);
//   3. then the newer measurement;
//   4. then the smaller config text (only to be deterministic).
//
// Example:
//   TuningRecord r;
//   r.kernel = "scaled_add"; r.shape_key = "f16;n=1048576";
//   r.device_name = "AMD Instinct MI300X"; r.compute_units = 304;
//   r.compiler = "hiprtc 6.2.41133"; r.config = "BLOCK=256,EPT=4";
//   r.median_ms = 0.0123; r.validated = true;
//   JITK_RETURN_IF_ERROR(PutTuning(db, r).status());
#ifndef JITK_CACHE_TUNING_STORE_H_
#define JITK_CACHE_TUNING_STORE_H_

#include <cstdint>
#include <string>
#include <vector>

#include "absl/functional/function_ref.h"
#include "absl/status/status.h"
#include "absl/status/statusor.h"
#include "absl/strings/string_view.h"
#include "cache/sqlite_db.h"

namespace jitk::cache {

struct RunnerUp {
  std::string config;  // KernelConfigToString()
  double median_ms = 0;

  bool operator==(const RunnerUp&) const = default;
};

struct TuningRecord {
  // --- Key
  std::string kernel;       // "scaled_add"
  std::string shape_key;    // jitk::Shape::Key(), "f16;n=1048576"
  std::string device_name;  // "AMD Instinct MI300X", "NVIDIA H200"
  int compute_units = 0;    // CUs / SMs the device reported
  std::string compiler;     // "hiprtc 5.2.21153", "nvrtc 13.0"

  // --- Result
  std::string config;                // the winner, KernelConfigToString()
  double median_ms = 0;              // the winner's median time
  double spread_ms = 0;              // the tuner's dispersion of those timings
  std::vector<RunnerUp> runner_ups;  // next best, fastest first
  bool validated = false;            // the winner's output was checked against a reference
  std::string jitk_version;          // empty: this build's, filled in by Put
  int64_t tuned_unix = 0;            // 0: now, filled in by Put

  bool operator==(const TuningRecord&) const = default;
};

// The key fields of a row, as views (no allocation for a lookup).
struct TuningKey {
  absl::string_view kernel;
  absl::string_view shape_key;
  absl::string_view device_name;
  int compute_units = 0;
  absl::string_view compiler;
};

// The conflict rule above: true when `a` should replace `b`.
bool IsBetterTuning(const TuningRecord& a, const TuningRecord& b);

// The checksum stored with a row.
uint64_t TuningChecksum(const TuningRecord& record);

enum class TuningConflict {
  kReplace,     // the new row replaces an existing one (a re-tune)
  kKeepBetter,  // the new row is stored only if IsBetterTuning(new, old) (merge)
};

// Stores `record`; returns whether it was written (kKeepBetter may keep the
// old row). kInvalidArgument for a malformed shape key, an empty kernel,
// compiler or config, or a non-finite time.
// REQUIRES for kKeepBetter: inside db.WriteTransaction() (read, then write).
absl::StatusOr<bool> PutTuning(SqliteDb& db, const TuningRecord& record,
                               TuningConflict conflict = TuningConflict::kReplace);

// The row with exactly this key. kNotFound when absent; kDataLoss when its
// checksum fails.
absl::StatusOr<TuningRecord> GetTuning(SqliteDb& db, const TuningKey& key);

// Rows that can stand in for `shape_key` on any device: same kernel,
// compiler, dtype and dimension names (see shape_distance.h).
struct TuningFamily {
  std::vector<TuningRecord> rows;  // checksums verified
  int bad_rows = 0;                // rows skipped because their checksum failed
};
absl::StatusOr<TuningFamily> FindTuningFamily(SqliteDb& db, absl::string_view kernel,
                                              absl::string_view compiler,
                                              absl::string_view shape_key);

// Whether any row is for this device.
absl::StatusOr<bool> HasTuningForDevice(SqliteDb& db, absl::string_view device_name,
                                        int compute_units);

// Calls `visit` for every row in key order with its check (OK or kDataLoss).
// A non-OK return from `visit` stops the walk and is returned.
absl::Status ForEachTuning(
    SqliteDb& db,
    absl::FunctionRef<absl::Status(const TuningRecord& record, const absl::Status& check)> visit);

}  // namespace jitk::cache

#endif  // JITK_CACHE_TUNING_STORE_H_
