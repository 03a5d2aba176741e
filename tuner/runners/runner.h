// tuner/runners/runner.h — how a candidate is compiled and measured.
//
// A runner turns a configuration into a CandidateResult in two steps, so
// the tuner can pipeline them: Prepare (compile and resource pruning; no
// device; thread-safe, run on a CPU pool) and Measure (validate and time on
// the device; called from one thread, in order). Runners:
//   DeviceRunner       live: a Device, a Problem, device-event timing
//   CompileOnlyRunner  Prepare only; the outcome is kCompiledOnly
//   ReplayRunner       answers from recorded results (a sweep file, the DB)
//   CostModelRunner    answers from a cost function (tests, simulations)
#ifndef JITK_TUNER_RUNNERS_RUNNER_H_
#define JITK_TUNER_RUNNERS_RUNNER_H_

#include <optional>

#include "jitk/kernel.h"
#include "tuner/candidate.h"

namespace jitk::tuner {

// A candidate after Prepare: ready to measure (`compiled` set) or finished
// with the failure in `result.outcome`.
struct Prepared {
  CandidateResult result;
  std::optional<CompiledKernel> compiled;

  bool ready() const { return compiled.has_value(); }
};

class Runner {
 public:
  virtual ~Runner() = default;

  // Compiles `config` and checks its resources. Thread-safe.
  virtual Prepared Prepare(const KernelConfig& config) = 0;
  // Validates and times a prepared candidate (ready() or not: a finished one
  // passes through). `best_ms` is the best median so far (+inf when none),
  // so a clearly slower candidate can stop timing early.
  virtual CandidateResult Measure(Prepared prepared, double best_ms) = 0;
  // Whether Measure times on a device (false: compile-only results).
  virtual bool times() const = 0;
};

}  // namespace jitk::tuner

#endif  // JITK_TUNER_RUNNERS_RUNNER_H_
