// tuner/runners/compile_only_runner.h — compile and prune, time nothing.
//
// For an architecture that is not present (or no GPU at all): every
// candidate is compiled and checked against the architecture's resource
// limits; those that fit end as kCompiledOnly. With a ResultStore behind
// the CandidateCompiler the code objects and their resource reports land in
// the DB, ready for the device that will time them.
#ifndef JITK_TUNER_RUNNERS_COMPILE_ONLY_RUNNER_H_
#define JITK_TUNER_RUNNERS_COMPILE_ONLY_RUNNER_H_

#include "tuner/candidate_compiler.h"
#include "tuner/runners/runner.h"

namespace jitk::tuner {

class CompileOnlyRunner final : public Runner {
 public:
  // `compiler` must outlive the runner.
  explicit CompileOnlyRunner(const CandidateCompiler& compiler) : compiler_(compiler) {}

  Prepared Prepare(const KernelConfig& config) override { return compiler_.Prepare(config); }
  CandidateResult Measure(Prepared prepared, double) override {
    return std::move(prepared.result);  // kCompiledOnly, or the pruning outcome
  }
  bool times() const override { return false; }

 private:
  const CandidateCompiler& compiler_;
};

}  // namespace jitk::tuner

#endif  // JITK_TUNER_RUNNERS_COMPILE_ONLY_RUNNER_H_
