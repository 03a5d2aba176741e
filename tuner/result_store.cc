#include "tuner/result_store.h"

#include <map>
#include <tuple>
#include <utility>

#include "absl/base/thread_annotations.h"
#include "absl/strings/str_cat.h"
#include "absl/synchronization/mutex.h"
#include "cache/arch_db.h"
#include "lib/internal/status_macros.h"

namespace jitk::tuner {

std::string RunKey::ToString() const {
  return absl::StrCat(kernel, " ", shape_key, " on ", device_name.empty() ? arch : device_name,
                      compute_units > 0 ? absl::StrCat(" (", compute_units, " CUs)") : "", " with ",
                      compiler);
}

namespace {

using KeyTuple = std::tuple<std::string, std::string, std::string, std::string, int, std::string>;
KeyTuple Tuple(const RunKey& k) {
  return {k.arch, k.kernel, k.shape_key, k.device_name, k.compute_units, k.compiler};
}

class MemoryResultStore final : public ResultStore {
 public:
  std::string Describe() const override { return "memory"; }

  absl::StatusOr<std::optional<cache::CodeObjectRecord>> FindCodeObject(
      absl::string_view arch, absl::string_view key) override {
    absl::MutexLock lock(&mu_);
    auto it = code_.find({std::string(arch), std::string(key)});
    if (it == code_.end()) return std::optional<cache::CodeObjectRecord>();
    return std::optional<cache::CodeObjectRecord>(it->second);
  }
  absl::Status PutCodeObject(absl::string_view arch,
                             const cache::CodeObjectRecord& record) override {
    if (record.key.empty() || record.code.empty()) {
      return absl::InvalidArgumentError("code object without key or bytes");
    }
    absl::MutexLock lock(&mu_);
    code_[{std::string(arch), record.key}] = record;
    return absl::OkStatus();
  }

  absl::StatusOr<std::optional<cache::TuningRecord>> FindTuning(const RunKey& key) override {
    absl::MutexLock lock(&mu_);
    auto it = tuning_.find(Tuple(key));
    if (it == tuning_.end()) return std::optional<cache::TuningRecord>();
    return std::optional<cache::TuningRecord>(it->second);
  }
  absl::Status PutTuning(const RunKey& key, const cache::TuningRecord& record) override {
    absl::MutexLock lock(&mu_);
    tuning_[Tuple(key)] = record;
    return absl::OkStatus();
  }

  bool keeps_candidates() const override { return true; }
  absl::Status PutCandidate(const RunKey& key, const CandidateResult& result) override {
    absl::MutexLock lock(&mu_);
    std::vector<CandidateResult>& list = candidates_[Tuple(key)];
    for (CandidateResult& r : list) {
      if (r.config == result.config) {
        r = result;
        return absl::OkStatus();
      }
    }
    list.push_back(result);
    return absl::OkStatus();
  }
  absl::StatusOr<std::vector<CandidateResult>> Candidates(const RunKey& key) override {
    absl::MutexLock lock(&mu_);
    auto it = candidates_.find(Tuple(key));
    if (it == candidates_.end()) return std::vector<CandidateResult>{};
    return it->second;
  }

 private:
  absl::Mutex mu_;
  std::map<std::pair<std::string, std::string>, cache::CodeObjectRecord> code_ ABSL_GUARDED_BY(mu_);
  std::map<KeyTuple, cache::TuningRecord> tuning_ ABSL_GUARDED_BY(mu_);
  std::map<KeyTuple, std::vector<CandidateResult>> candidates_ ABSL_GUARDED_BY(mu_);
};

// A miss, or a damaged row the cache has dropped, are both "not there".
template <typename T>
absl::StatusOr<std::optional<T>> MissIsEmpty(absl::StatusOr<T> found) {
  if (found.ok()) return std::optional<T>(*std::move(found));
  if (absl::IsNotFound(found.status()) || absl::IsDataLoss(found.status())) {
    return std::optional<T>();
  }
  return found.status();
}

class DbResultStore final : public ResultStore {
 public:
  explicit DbResultStore(std::unique_ptr<cache::ArchDb> db) : db_(std::move(db)) {}

  std::string Describe() const override { return db_->path(); }

  absl::StatusOr<std::optional<cache::CodeObjectRecord>> FindCodeObject(
      absl::string_view arch, absl::string_view key) override {
    JITK_RETURN_IF_ERROR(CheckArch(arch));
    return MissIsEmpty(db_->GetCodeObject(key));
  }
  absl::Status PutCodeObject(absl::string_view arch,
                             const cache::CodeObjectRecord& record) override {
    JITK_RETURN_IF_ERROR(CheckArch(arch));
    return db_->PutCodeObject(record);
  }
  absl::StatusOr<std::optional<cache::TuningRecord>> FindTuning(const RunKey& key) override {
    JITK_RETURN_IF_ERROR(CheckArch(key.arch));
    return MissIsEmpty(db_->GetTuning(key.AsTuningKey()));
  }
  absl::Status PutTuning(const RunKey& key, const cache::TuningRecord& record) override {
    JITK_RETURN_IF_ERROR(CheckArch(key.arch));
    return db_->PutTuning(record).status();
  }

 private:
  absl::Status CheckArch(absl::string_view arch) const {
    if (arch == db_->arch()) return absl::OkStatus();
    return absl::FailedPreconditionError(absl::StrCat(db_->path(), " holds ", db_->arch(),
                                                      " results; this run is for ", arch,
                                                      " (use one --db file per architecture)"));
  }

  std::unique_ptr<cache::ArchDb> db_;
};

class KernelCacheResultStore final : public ResultStore {
 public:
  explicit KernelCacheResultStore(cache::KernelCache& cache) : cache_(cache) {}

  std::string Describe() const override {
    return absl::StrCat("cache ", cache_.options().cache_dir);
  }
  absl::StatusOr<std::optional<cache::CodeObjectRecord>> FindCodeObject(
      absl::string_view arch, absl::string_view key) override {
    absl::StatusOr<cache::CodeObjectHit> hit = cache_.GetCodeObject(arch, key);
    if (!hit.ok()) return MissIsEmpty(absl::StatusOr<cache::CodeObjectRecord>(hit.status()));
    return std::optional<cache::CodeObjectRecord>(*hit->record);
  }
  absl::Status PutCodeObject(absl::string_view arch,
                             const cache::CodeObjectRecord& record) override {
    return cache_.PutCodeObject(arch, record);
  }
  absl::StatusOr<std::optional<cache::TuningRecord>> FindTuning(const RunKey& key) override {
    cache::TuningQuery query{.arch = key.arch,
                             .device_name = key.device_name,
                             .compute_units = key.compute_units,
                             .kernel = key.kernel,
                             .shape_key = key.shape_key,
                             .compiler = key.compiler,
                             .allow_nearest = false};
    absl::StatusOr<cache::TuningHit> hit = cache_.LookupTuning(query);
    if (!hit.ok()) return MissIsEmpty(absl::StatusOr<cache::TuningRecord>(hit.status()));
    if (!hit->exact) return std::optional<cache::TuningRecord>();
    return std::optional<cache::TuningRecord>(*hit->record);
  }
  absl::Status PutTuning(const RunKey& key, const cache::TuningRecord& record) override {
    return cache_.PutTuning(key.arch, record);
  }

 private:
  cache::KernelCache& cache_;
};

}  // namespace

std::unique_ptr<ResultStore> NewMemoryResultStore() {
  return std::make_unique<MemoryResultStore>();
}

absl::StatusOr<std::unique_ptr<ResultStore>> OpenDbResultStore(const std::string& path,
                                                               absl::string_view arch) {
  cache::ArchDbOptions options;
  options.refuse_foreign = true;
  absl::StatusOr<std::unique_ptr<cache::ArchDb>> db =
      cache::ArchDb::Open(path, std::string(arch), options);
  if (absl::IsFailedPrecondition(db.status())) {
    return absl::FailedPreconditionError(
        absl::StrCat(db.status().message(), ": a DB holds the results of one arch and this jitk's ",
                     "schema; pass --db a new file for ", arch, " (e.g. ", arch, ".db)"));
  }
  if (absl::IsDataLoss(db.status())) {
    return absl::DataLossError(absl::StrCat(
        db.status().message(), ": jitk-tune leaves a file named by --db as it is; pass --db a ",
        "new file for ", arch, " (e.g. ", arch, ".db), or move this one aside"));
  }
  if (!db.ok()) return db.status();
  return std::unique_ptr<ResultStore>(std::make_unique<DbResultStore>(*std::move(db)));
}

std::unique_ptr<ResultStore> NewKernelCacheResultStore(cache::KernelCache& cache) {
  return std::make_unique<KernelCacheResultStore>(cache);
}

}  // namespace jitk::tuner
