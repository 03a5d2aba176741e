// tuner/outcome.h — what happened to one candidate configuration.
//
// Failures are values, not strings: a strategy, the summary table and the
// database all branch on the Outcome, and the message only explains it.
// Only kOk candidates were validated against the reference and timed, so
// only they can win.
#ifndef JITK_TUNER_OUTCOME_H_
#define JITK_TUNER_OUTCOME_H_

#include "absl/status/status.h"
#include "absl/status/statusor.h"
#include "absl/strings/string_view.h"

namespace jitk::tuner {

enum class Outcome {
  kOk,              // validated and timed
  kCompileFailed,   // the compiler rejected the instantiation (log in the message)
  kInvalidConfig,   // the template's constraints reject the configuration
  kOutOfResources,  // registers, LDS, spills or occupancy beyond the limits (pruned, never run)
  kWrongResult,     // ran, but the output differs from the reference
  kRuntimeFailed,   // load, launch or timing failed on the device
  kCompiledOnly,    // compiled within the limits; not timed (no device for this arch)
};

// "ok", "compile-failed", "invalid-config", "out-of-resources",
// "wrong-result", "runtime-failed", "compiled-only".
absl::string_view OutcomeName(Outcome outcome);

// Inverse of OutcomeName; kInvalidArgument listing the names.
absl::StatusOr<Outcome> ParseOutcome(absl::string_view name);

// The outcome a failed compile status stands for: kInvalidArgument from the
// template's constraints → kInvalidConfig (`config_rejected`), a compile error
// → kCompileFailed, kResourceExhausted → kOutOfResources.
Outcome OutcomeForCompileError(const absl::Status& status, bool config_rejected);

}  // namespace jitk::tuner

#endif  // JITK_TUNER_OUTCOME_H_
