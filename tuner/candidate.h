// tuner/candidate.h — the record of one evaluated configuration.
//
// Everything the tuner learnt about a candidate: its outcome, why, what the
// compiler said about resources, and (for kOk) the device-event timing.
// Records are what the database stores, what --resume reloads and what a
// replayed sweep feeds back to the strategies.
#ifndef JITK_TUNER_CANDIDATE_H_
#define JITK_TUNER_CANDIDATE_H_

#include <limits>
#include <string>

#include "jitk/kernel.h"
#include "tuner/outcome.h"

namespace jitk::tuner {

// Statistics of the repeated device-event timings of one candidate, in
// milliseconds per launch.
struct Timing {
  double median_ms = 0;
  double min_ms = 0;
  double max_ms = 0;
  // Interquartile range over the median: 0.01 means the middle half of the
  // repetitions lie within 1 % of the median.
  double spread = 0;
  int repetitions = 0;
  int launches_per_repetition = 0;
  bool stable = false;  // the spread fell below the target before the repetition cap
};

struct CandidateResult {
  KernelConfig config;
  Outcome outcome = Outcome::kRuntimeFailed;
  std::string message;  // why it failed, or a note ("stopped early: 2.1x slower than best")
  ResourceUsage resources;
  int threads_per_block = 0;
  double occupancy = 0;  // resident waves per CU / maximum, from the resources (0: unknown)
  double compile_ms = 0;
  size_t code_bytes = 0;
  bool code_reused = false;  // the code object came from the store, not the compiler
  Timing timing;             // meaningful for kOk only

  bool ok() const { return outcome == Outcome::kOk; }
  // Median time for kOk, +inf otherwise: strategies minimise this.
  double cost() const { return ok() ? timing.median_ms : std::numeric_limits<double>::infinity(); }
};

}  // namespace jitk::tuner

#endif  // JITK_TUNER_CANDIDATE_H_
