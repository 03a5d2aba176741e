#include "tuner/runners/replay_runner.h"

namespace jitk::tuner {

ReplayRunner::ReplayRunner(const std::vector<CandidateResult>& recorded) {
  for (const CandidateResult& r : recorded) results_[KernelConfigToString(r.config)] = r;
}

Prepared ReplayRunner::Prepare(const KernelConfig& config) {
  lookups_.fetch_add(1);
  Prepared p;
  auto it = results_.find(KernelConfigToString(config));
  if (it == results_.end()) {
    p.result.config = config;
    p.result.outcome = Outcome::kRuntimeFailed;
    p.result.message = "not in the recorded sweep";
  } else {
    p.result = it->second;
  }
  return p;
}

}  // namespace jitk::tuner
