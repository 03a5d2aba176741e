#include "cache/merge.h"

#include <utility>
#include <variant>
#include <vector>

#include "cache/code_object_store.h"
#include "cache/tuning_store.h"
#include "lib/internal/status_macros.h"

namespace jitk::cache {

namespace {

// Rows buffered between two destination transactions.
constexpr size_t kBatchRows = 256;
constexpr size_t kBatchBytes = size_t{32} << 20;

class BatchWriter {
 public:
  BatchWriter(SqliteDb& dst, MergeStats* stats) : dst_(dst), stats_(stats) {}

  absl::Status Add(CodeObjectRecord record) {
    bytes_ += record.code.size();
    pending_.emplace_back(std::move(record));
    return Full() ? Flush() : absl::OkStatus();
  }
  absl::Status Add(TuningRecord record) {
    pending_.emplace_back(std::move(record));
    return Full() ? Flush() : absl::OkStatus();
  }

  absl::Status Flush() {
    if (pending_.empty()) return absl::OkStatus();
    MergeStats batch;
    // The transaction may run again after a lost lock: count from zero each time.
    JITK_RETURN_IF_ERROR(dst_.WriteTransaction([&]() -> absl::Status {
      batch = MergeStats();
      for (const auto& row : pending_) {
        if (const auto* code = std::get_if<CodeObjectRecord>(&row)) {
          absl::StatusOr<CodeObjectRecord> existing = GetCodeObject(dst_, code->key);
          if (existing.ok()) {
            ++batch.code_objects_kept;
            continue;
          }
          if (!absl::IsNotFound(existing.status()) && !absl::IsDataLoss(existing.status())) {
            return existing.status();
          }
          JITK_RETURN_IF_ERROR(PutCodeObject(dst_, *code));
          ++batch.code_objects_copied;
        } else {
          JITK_ASSIGN_OR_RETURN(bool written, PutTuning(dst_, std::get<TuningRecord>(row),
                                                        TuningConflict::kKeepBetter));
          ++(written ? batch.tuning_copied : batch.tuning_kept);
        }
      }
      return absl::OkStatus();
    }));
    *stats_ += batch;
    pending_.clear();
    bytes_ = 0;
    return absl::OkStatus();
  }

 private:
  bool Full() const { return pending_.size() >= kBatchRows || bytes_ >= kBatchBytes; }

  SqliteDb& dst_;
  MergeStats* stats_;
  std::vector<std::variant<CodeObjectRecord, TuningRecord>> pending_;
  size_t bytes_ = 0;
};

}  // namespace

MergeStats& MergeStats::operator+=(const MergeStats& o) {
  code_objects_copied += o.code_objects_copied;
  code_objects_kept += o.code_objects_kept;
  tuning_copied += o.tuning_copied;
  tuning_kept += o.tuning_kept;
  bad_rows += o.bad_rows;
  return *this;
}

absl::Status MergeRows(SqliteDb& src, SqliteDb& dst, MergeStats* stats,
                       const MergeOptions& options) {
  BatchWriter writer(dst, stats);
  absl::Status walk = absl::OkStatus();
  if (options.code_objects)
    walk = ForEachCodeObject(
        src, [&](const CodeObjectRecord& record, const absl::Status& check) -> absl::Status {
          if (!check.ok()) {
            ++stats->bad_rows;
            return absl::OkStatus();
          }
          return writer.Add(record);
        });
  if (walk.ok() && options.tuning) {
    walk = ForEachTuning(
        src, [&](const TuningRecord& record, const absl::Status& check) -> absl::Status {
          if (!check.ok()) {
            ++stats->bad_rows;
            return absl::OkStatus();
          }
          return writer.Add(record);
        });
  }
  // Keep what was read before a damaged page stopped the walk.
  absl::Status flushed = writer.Flush();
  return walk.ok() ? flushed : walk;
}

}  // namespace jitk::cache
