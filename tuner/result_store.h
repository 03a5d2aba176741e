// tuner/result_store.h — where tuning results go and come back from.
//
// The tuner persists three things through this interface:
//   * code objects of compiled candidates (keyed by the cache's content hash,
//     cache/cache_key.h), so a resumed or repeated sweep never recompiles and
//     a compile-only sweep leaves code objects + resource reports behind;
//   * the winner of each (device, kernel, shape, compiler) as a cache
//     TuningRecord, which get_kernel later finds;
//   * optionally every candidate's result, so an interrupted sweep resumes
//     inside a shape and a recorded sweep can be replayed (keeps_candidates()).
// Implementations: in memory (tests, a process without a cache), one cache
// DB file (jitk-tune --db), and the process-wide KernelCache (in-library
// tuning). All methods are thread-safe.
#ifndef JITK_TUNER_RESULT_STORE_H_
#define JITK_TUNER_RESULT_STORE_H_

#include <memory>
#include <optional>
#include <string>
#include <vector>

#include "absl/status/status.h"
#include "absl/status/statusor.h"
#include "absl/strings/string_view.h"
#include "cache/code_object_store.h"
#include "cache/kernel_cache.h"
#include "cache/tuning_store.h"
#include "tuner/candidate.h"

namespace jitk::tuner {

// What makes measured times comparable: the same kernel and shape on the
// same device with the same compiler. `arch` selects the DB file.
struct RunKey {
  std::string arch;         // "gfx90a", "sm_90"
  std::string kernel;       // "scaled_add"
  std::string shape_key;    // Shape::Key()
  std::string device_name;  // "NVIDIA H200"; "" for compile-only runs
  int compute_units = 0;
  std::string compiler;  // "nvrtc 13.0"

  cache::TuningKey AsTuningKey() const {
    return {kernel, shape_key, device_name, compute_units, compiler};
  }
  std::string ToString() const;
  bool operator==(const RunKey&) const = default;
};

class ResultStore {
 public:
  virtual ~ResultStore() = default;

  // "memory", "gfx90a.db", "cache ~/.cache/jitk".
  virtual std::string Describe() const = 0;

  // nullopt on a miss. A damaged row is a miss (the cache repairs itself).
  virtual absl::StatusOr<std::optional<cache::CodeObjectRecord>> FindCodeObject(
      absl::string_view arch, absl::string_view key) = 0;
  virtual absl::Status PutCodeObject(absl::string_view arch,
                                     const cache::CodeObjectRecord& record) = 0;

  // The exact row for `key` (never a nearest neighbour); nullopt on a miss.
  virtual absl::StatusOr<std::optional<cache::TuningRecord>> FindTuning(const RunKey& key) = 0;
  virtual absl::Status PutTuning(const RunKey& key, const cache::TuningRecord& record) = 0;

  // Per-candidate results. A store that does not keep them accepts and
  // forgets, and returns none.
  virtual bool keeps_candidates() const { return false; }
  virtual absl::Status PutCandidate(const RunKey& key, const CandidateResult& result) {
    return absl::OkStatus();
  }
  virtual absl::StatusOr<std::vector<CandidateResult>> Candidates(const RunKey& key) {
    return std::vector<CandidateResult>{};
  }
};

// Everything in process memory, candidates included.
std::unique_ptr<ResultStore> NewMemoryResultStore();

// One cache DB file for one architecture (created when missing). Errors as
// for cache::ArchDb::Open; a file that is not a sound jitk DB of this arch
// and schema is refused with the reason and the fix, and left as it is (the
// user named it: moving it aside would hide it).
absl::StatusOr<std::unique_ptr<ResultStore>> OpenDbResultStore(const std::string& path,
                                                               absl::string_view arch);

// The process-wide cache (user DB, then system DBs; writes go to the user
// DB). `cache` must outlive the store.
std::unique_ptr<ResultStore> NewKernelCacheResultStore(cache::KernelCache& cache);

}  // namespace jitk::tuner

#endif  // JITK_TUNER_RESULT_STORE_H_
