// tuner/progress.h — what jitk-tune shows while it works, and at the end.
//
// On a terminal ProgressPrinter redraws one status line (a bar over all
// work items, the current shape, its best time so far, and an ETA);
// otherwise (a log file, a cluster job) it prints one plain line per
// finished shape. FormatSummary renders the final table: per shape the best
// configuration, its time, TB/s and the speed-up over the default
// configuration (compile-only runs: what compiled and what was pruned).
#ifndef JITK_TUNER_PROGRESS_H_
#define JITK_TUNER_PROGRESS_H_

#include <chrono>
#include <cstdio>
#include <string>
#include <vector>

#include "tuner/tuner.h"

namespace jitk::tuner {

class ProgressPrinter final : public Observer {
 public:
  // `items`: how many Tune runs will follow. `out` is not owned.
  ProgressPrinter(std::FILE* out, bool tty, size_t items);

  void OnRunStart(const RunKey& key, size_t planned, bool compile_only) override;
  void OnCandidate(const RunKey& key, const CandidateResult& result, size_t done,
                   size_t planned) override;
  void OnRunEnd(const TuneResult& result) override;

  // Reports a run that failed with an error (no TuneResult).
  void OnRunError(const std::string& what, const absl::Status& status);
  // Clears the status line.
  void Finish();

 private:
  void Draw(bool force);
  double Elapsed() const;

  std::FILE* out_;
  bool tty_;
  size_t items_;
  size_t finished_ = 0;
  std::string current_;
  size_t done_ = 0, planned_ = 1;
  double best_ms_ = 0;
  std::chrono::steady_clock::time_point start_;
  std::chrono::steady_clock::time_point last_draw_;
  bool drawn_ = false;
};

// "h:mm:ss" / "m:ss".
std::string FormatEta(double seconds);

// One line per result.
std::string ResultLine(const TuneResult& result);

// The table printed after a run.
std::string FormatSummary(const std::vector<TuneResult>& results);

}  // namespace jitk::tuner

#endif  // JITK_TUNER_PROGRESS_H_
