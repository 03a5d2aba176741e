// tuner/timing.h — repeated device-event timing until the median is stable.
//
// One repetition times a batch of launches between two device events
// (Backend::TimeMs) and divides by the launch count; the batch grows until
// it takes min_batch_ms so event resolution and launch gaps do not dominate.
// After warm-up, repetitions continue until the interquartile range is
// within target_spread of the median (stable), the repetition or time cap is
// reached (reported as not stable), or the candidate is clearly slower than
// the best so far (early stop: it cannot win, so its time need not be exact).
#ifndef JITK_TUNER_TIMING_H_
#define JITK_TUNER_TIMING_H_

#include <cstddef>
#include <string>
#include <vector>

#include "absl/functional/function_ref.h"
#include "absl/status/statusor.h"
#include "tuner/candidate.h"

namespace jitk::tuner {

struct MeasureOptions {
  // --- Repetitions
  int warmup = 2;  // batches run and discarded (after calibration)
  int min_repetitions = 5;
  int max_repetitions = 40;
  double target_spread = 0.02;  // stop when IQR / median falls below this
  double min_batch_ms = 0.5;    // launches per batch grow until a batch takes this long
  int max_launches_per_batch = 4096;
  double max_candidate_ms = 2000;  // device time spent on one candidate, at most
  // After min_repetitions, stop timing a candidate whose fastest repetition
  // is this many times slower than the best median so far (0: never).
  double early_stop_ratio = 1.5;

  // --- Inputs (DeviceRunner)
  // Input sets are added until their total size reaches this, so successive
  // launches read cold memory (L2 / Infinity Cache do not flatter small
  // shapes); one set when a single set is already larger.
  size_t rotate_bytes = size_t{512} << 20;
  int max_input_sets = 64;
  // Output bytes compared per candidate: everything up to this size, beyond
  // it a head, a tail and evenly spaced chunks totalling this many bytes.
  size_t validate_bytes = size_t{16} << 20;
  uint64_t seed = 1;  // input data
};

// Quantile q in [0, 1] of `sorted` (linear interpolation). REQUIRES: non-empty.
double Quantile(const std::vector<double>& sorted, double q);

// Statistics of per-launch times (ms).
Timing Summarize(std::vector<double> samples, int launches_per_repetition, bool stable);

// Runs the loop described above. `batch(launches)` enqueues `launches`
// launches between device events and returns the elapsed ms; `launch_unit`
// is the granularity of the launch count (e.g. one pass over the input
// sets). `note` receives "stopped early: ..." when that happened. Errors
// from `batch` are returned.
absl::StatusOr<Timing> MeasureStable(absl::FunctionRef<absl::StatusOr<double>(int)> batch,
                                     int launch_unit, const MeasureOptions& options, double best_ms,
                                     std::string* note);

}  // namespace jitk::tuner

#endif  // JITK_TUNER_TIMING_H_
