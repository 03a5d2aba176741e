// tuner/tuner.h — tune one kernel for one shape.
//
// Tune() puts the pieces together: the template's search space, a strategy
// (by name), a runner (the device when the target's GPU is present,
// compile-only otherwise), the compile pipeline and budget (Evaluator), and
// the ResultStore. The template's default configuration is always
// evaluated first, so every result can say how much tuning gained.
//
// Example:
//   JITK_ASSIGN_OR_RETURN(jitk::Device gpu, jitk::Device::Open());
//   jitk::tuner::TuneTarget where{.device = gpu};
//   jitk::tuner::TuneOptions options{.strategy = "guided"};
//   JITK_ASSIGN_OR_RETURN(jitk::tuner::TuneResult r,
//       jitk::tuner::Tune("scaled_add", jitk::Shape(jitk::DType::kF16).Set("n", 1 << 24),
//                         where, options));
//   if (r.best) printf("%s: %.3f ms, %.2fx\n", KernelConfigToString(r.best->config).c_str(),
//                      r.best->timing.median_ms, r.speedup());
#ifndef JITK_TUNER_TUNER_H_
#define JITK_TUNER_TUNER_H_

#include <cstdint>
#include <optional>
#include <string>
#include <vector>

#include "absl/status/status.h"
#include "absl/status/statusor.h"
#include "absl/strings/string_view.h"
#include "jitk/device.h"
#include "jitk/kernel.h"
#include "jitk/shape.h"
#include "lib/backend/backend.h"
#include "tuner/budget.h"
#include "tuner/candidate.h"
#include "tuner/resource_limits.h"
#include "tuner/result_store.h"
#include "tuner/timing.h"

namespace jitk::tuner {

struct TuneResult;

// Hooks for progress displays; called on the tuning thread.
class Observer {
 public:
  virtual ~Observer() = default;
  // `planned`: candidates the strategy expects to evaluate (for an ETA).
  virtual void OnRunStart(const RunKey& key, size_t planned, bool compile_only) {}
  virtual void OnCandidate(const RunKey& key, const CandidateResult& result, size_t done,
                           size_t planned) {}
  virtual void OnRunEnd(const TuneResult& result) {}
};

struct TuneOptions {
  // --- Search
  std::string strategy = "guided";  // see strategy.h; compile-only runs are exhaustive
  Budget budget;
  uint64_t seed = 1;  // strategy and input data

  // --- Measuring and pruning
  MeasureOptions measure;
  PruneOptions prune;
  int compile_threads = 0;  // 0: one per hardware thread
  // Compile and prune only, even when the target's GPU is present.
  bool compile_only = false;

  // --- Persistence
  ResultStore* store = nullptr;  // not owned; nullptr: nothing is stored
  // Continue from `store`: a shape with a stored winner is not tuned again;
  // stored candidates and code objects are reused.
  bool resume = false;
  bool store_code_objects = true;

  Observer* observer = nullptr;  // not owned
};

// Where to compile and time.
struct TuneTarget {
  // Compile target ("gfx90a", "gfx942:sramecc+:xnack-", "sm_90"); empty:
  // the device's.
  std::string arch;
  // The GPU to time on. Absent, or of another architecture than `arch`:
  // compile-only.
  std::optional<Device> device;
  // Compiles with this backend (not owned). nullptr: the device's backend,
  // else the built-in one for the target's vendor.
  jitk::internal::Backend* compile_backend = nullptr;
};

struct TuneResult {
  RunKey key;
  Shape shape;
  // OK, or kDeadlineExceeded when the budget cut the search short (the best
  // configuration found so far is still in `best` and stored).
  absl::Status status;
  bool compile_only = false;
  std::string compile_only_reason;  // "no GPU", "the GPU present is sm_90"
  bool skipped = false;             // resume: a stored winner was found, nothing ran
  std::string strategy;

  size_t space_size = 0;                    // valid configurations
  size_t combinations = 0;                  // before the constraints
  size_t reloaded = 0;                      // candidates taken from the store
  std::vector<CandidateResult> candidates;  // reloaded first, then in evaluation order

  KernelConfig default_config;
  std::optional<CandidateResult> default_result;
  std::optional<CandidateResult> best;  // fastest kOk candidate

  double wall_s = 0;
  double bytes_moved = 0;  // per launch, read + written (0: unknown)
  int input_sets = 0;

  size_t evaluated() const { return candidates.size(); }
  size_t Count(Outcome outcome) const;
  size_t CodeReused() const;
  // Default median / best median; 0 when either is unknown.
  double speedup() const;
  // Bytes moved / best median in TB/s; 0 when unknown.
  double best_tbps() const;
};

// Tunes `kernel` for `shape`. Errors: unknown kernel, bad shape or arch →
// kInvalidArgument / kNotFound; timing a kernel without a Problem →
// kNotFound; device or store failures as they come. A budget that runs out
// is not an error: see TuneResult::status.
absl::StatusOr<TuneResult> Tune(absl::string_view kernel, const Shape& shape,
                                const TuneTarget& target, const TuneOptions& options = {});

// Whether code for `arch` should be timed on `device`: the same architecture
// (sm_90a counts as sm_90) with compatible target features.
bool DeviceRunsArch(const DeviceInfo& device, const Target& arch);

}  // namespace jitk::tuner

#endif  // JITK_TUNER_TUNER_H_
