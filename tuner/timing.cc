#include "tuner/timing.h"

#include <algorithm>
#include <cmath>

#include "absl/strings/str_format.h"
#include "lib/internal/status_macros.h"

namespace jitk::tuner {

double Quantile(const std::vector<double>& sorted, double q) {
  const double pos = q * double(sorted.size() - 1);
  const size_t lo = size_t(std::floor(pos));
  const size_t hi = std::min(sorted.size() - 1, lo + 1);
  return sorted[lo] + (sorted[hi] - sorted[lo]) * (pos - double(lo));
}

Timing Summarize(std::vector<double> samples, int launches_per_repetition, bool stable) {
  Timing t;
  if (samples.empty()) return t;
  std::sort(samples.begin(), samples.end());
  t.median_ms = Quantile(samples, 0.5);
  t.min_ms = samples.front();
  t.max_ms = samples.back();
  t.spread =
      t.median_ms > 0 ? (Quantile(samples, 0.75) - Quantile(samples, 0.25)) / t.median_ms : 0;
  t.repetitions = int(samples.size());
  t.launches_per_repetition = launches_per_repetition;
  t.stable = stable;
  return t;
}

absl::StatusOr<Timing> MeasureStable(absl::FunctionRef<absl::StatusOr<double>(int)> batch,
                                     int launch_unit, const MeasureOptions& options, double best_ms,
                                     std::string* note) {
  const int unit = std::max(1, launch_unit);
  const int max_launches = std::max(unit, options.max_launches_per_batch / unit * unit);
  double spent_ms = 0;

  // Calibrate the batch size (these runs are warm-up too).
  int launches = unit;
  JITK_ASSIGN_OR_RETURN(double ms, batch(launches));
  spent_ms += ms;
  for (int round = 0; round < 8 && ms < options.min_batch_ms && launches < max_launches; ++round) {
    const double grow = options.min_batch_ms / std::max(ms, 1e-4) * 1.2;
    int next = int(std::ceil(double(launches) * grow / unit)) * unit;
    launches = std::min(max_launches, std::max(next, launches + unit));
    JITK_ASSIGN_OR_RETURN(ms, batch(launches));
    spent_ms += ms;
  }
  for (int i = 1; i < options.warmup; ++i) {
    JITK_ASSIGN_OR_RETURN(ms, batch(launches));
    spent_ms += ms;
  }

  std::vector<double> samples;
  bool stable = false;
  while (true) {
    JITK_ASSIGN_OR_RETURN(ms, batch(launches));
    spent_ms += ms;
    samples.push_back(ms / launches);
    const int reps = int(samples.size());
    if (reps < options.min_repetitions) continue;
    Timing t = Summarize(samples, launches, false);
    if (t.spread <= options.target_spread) {
      stable = true;
      break;
    }
    if (options.early_stop_ratio > 0 && std::isfinite(best_ms) &&
        t.min_ms > options.early_stop_ratio * best_ms) {
      if (note != nullptr) {
        *note =
            absl::StrFormat("stopped early: %.2fx slower than the best so far", t.min_ms / best_ms);
      }
      break;
    }
    if (reps >= options.max_repetitions || spent_ms >= options.max_candidate_ms) break;
  }
  return Summarize(std::move(samples), launches, stable);
}

}  // namespace jitk::tuner
