// tuner/runners/replay_runner.h — answer from recorded or computed results.
//
// ReplayRunner serves the results of an earlier sweep (a sweep file written
// by `jitk-tune --json`, or candidate rows of a store), so strategies can be
// run and compared without a GPU; a configuration that was not recorded is
// kRuntimeFailed. CostModelRunner calls a function instead (simulations and
// tests). Both are thread-safe and never touch a device.
#ifndef JITK_TUNER_RUNNERS_REPLAY_RUNNER_H_
#define JITK_TUNER_RUNNERS_REPLAY_RUNNER_H_

#include <atomic>
#include <functional>
#include <map>
#include <string>
#include <vector>

#include "tuner/runners/runner.h"

namespace jitk::tuner {

class ReplayRunner final : public Runner {
 public:
  explicit ReplayRunner(const std::vector<CandidateResult>& recorded);

  Prepared Prepare(const KernelConfig& config) override;
  CandidateResult Measure(Prepared prepared, double) override { return std::move(prepared.result); }
  bool times() const override { return true; }

  size_t recorded() const { return results_.size(); }
  // Prepare calls so far (how many candidates a strategy asked for).
  size_t lookups() const { return lookups_.load(); }

 private:
  std::map<std::string, CandidateResult> results_;  // by KernelConfigToString
  std::atomic<size_t> lookups_{0};
};

class CostModelRunner final : public Runner {
 public:
  // `model` must be thread-safe; it fills outcome and timing (config is set
  // by the tuner).
  using Model = std::function<CandidateResult(const KernelConfig& config)>;
  explicit CostModelRunner(Model model) : model_(std::move(model)) {}

  Prepared Prepare(const KernelConfig& config) override {
    lookups_.fetch_add(1);
    Prepared p;
    p.result = model_(config);
    p.result.config = config;
    return p;
  }
  CandidateResult Measure(Prepared prepared, double) override { return std::move(prepared.result); }
  bool times() const override { return true; }

  size_t lookups() const { return lookups_.load(); }

 private:
  Model model_;
  std::atomic<size_t> lookups_{0};
};

}  // namespace jitk::tuner

#endif  // JITK_TUNER_RUNNERS_REPLAY_RUNNER_H_
