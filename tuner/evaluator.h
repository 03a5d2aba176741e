// tuner/evaluator.h — the Objective the tuner hands to a strategy.
//
// The Evaluator owns the pipeline between a strategy and a Runner: it
// compiles the candidates of a batch on a CPU thread pool (at most
// `lookahead` ahead) while the calling thread measures them one after the
// other in batch order, remembers every result (a configuration is never
// evaluated twice), enforces the budget, and reports each result as it
// lands (so an interrupted sweep can be resumed from what was stored).
//
// Not thread-safe: one strategy drives one Evaluator.
#ifndef JITK_TUNER_EVALUATOR_H_
#define JITK_TUNER_EVALUATOR_H_

#include <cstddef>
#include <functional>
#include <memory>
#include <optional>
#include <vector>

#include "absl/container/flat_hash_map.h"
#include "absl/time/time.h"
#include "tuner/budget.h"
#include "tuner/candidate.h"
#include "tuner/internal/thread_pool.h"
#include "tuner/objective.h"
#include "tuner/runners/runner.h"
#include "tuner/search_space.h"

namespace jitk::tuner {

struct EvaluatorOptions {
  Budget budget;
  // The wall-time budget counts from here.
  absl::Time start = absl::Now();
  // Compile threads; 0: one per hardware thread.
  int compile_threads = 0;
  // Candidates compiled ahead of the one being measured; 0: 2 × threads.
  int lookahead = 0;
  // Called on the measuring thread with each new result, in order.
  std::function<void(const CandidateResult&)> on_result;
};

class Evaluator final : public Objective {
 public:
  // `space` and `runner` must outlive the Evaluator.
  Evaluator(const SearchSpace& space, Runner& runner, EvaluatorOptions options);
  ~Evaluator() override;

  // Results of an earlier run (--resume, a replayed DB): they count as
  // evaluated and are never measured again. Results whose configuration is
  // not in the space are ignored. Returns how many were taken.
  size_t Preload(const std::vector<CandidateResult>& results);

  // --- Objective
  std::vector<double> Evaluate(absl::Span<const size_t> indices) override;
  std::optional<double> Known(size_t index) const override;
  size_t evaluations() const override { return results_.size(); }
  bool exhausted() const override;

  // Some Evaluate call stopped early because the budget was spent.
  bool budget_cut() const { return budget_cut_; }
  // Why the budget is spent ("20 candidates", "wall time 30s"); empty if not.
  std::string BudgetReason() const;

  // Every result, reloaded ones first, then in evaluation order.
  const std::vector<CandidateResult>& results() const { return results_; }
  size_t preloaded() const { return preloaded_; }
  const CandidateResult* Find(size_t index) const;
  // The fastest kOk result; nullptr when none.
  const CandidateResult* best() const;

 private:
  void Record(size_t index, CandidateResult result, bool report);

  const SearchSpace& space_;
  Runner& runner_;
  EvaluatorOptions options_;
  std::unique_ptr<internal::ThreadPool> pool_;
  int lookahead_;
  std::vector<CandidateResult> results_;
  absl::flat_hash_map<size_t, size_t> position_;  // space index → results_ position
  size_t preloaded_ = 0;
  std::optional<size_t> best_;  // results_ position
  bool budget_cut_ = false;
};

}  // namespace jitk::tuner

#endif  // JITK_TUNER_EVALUATOR_H_
