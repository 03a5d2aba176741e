#include "tuner/evaluator.h"

#include <algorithm>
#include <atomic>
#include <memory>
#include <utility>

#include "absl/strings/str_cat.h"
#include "absl/synchronization/notification.h"

namespace jitk::tuner {

Evaluator::Evaluator(const SearchSpace& space, Runner& runner, EvaluatorOptions options)
    : space_(space), runner_(runner), options_(std::move(options)) {
  const int threads = options_.compile_threads > 0 ? options_.compile_threads
                                                   : internal::ThreadPool::DefaultThreads();
  pool_ = std::make_unique<internal::ThreadPool>(threads);
  lookahead_ = options_.lookahead > 0 ? options_.lookahead : 2 * threads;
}

Evaluator::~Evaluator() = default;

size_t Evaluator::Preload(const std::vector<CandidateResult>& results) {
  size_t taken = 0;
  for (const CandidateResult& result : results) {
    std::optional<size_t> index = space_.IndexOf(result.config);
    if (!index.has_value() || position_.contains(*index)) continue;
    Record(*index, result, /*report=*/false);
    ++taken;
  }
  preloaded_ += taken;
  return taken;
}

std::string Evaluator::BudgetReason() const {
  const Budget& b = options_.budget;
  if (b.max_evaluations > 0 && int64_t(results_.size()) >= b.max_evaluations) {
    return absl::StrCat("budget of ", b.max_evaluations, " candidates spent");
  }
  if (b.max_time != absl::InfiniteDuration() && absl::Now() - options_.start >= b.max_time) {
    return absl::StrCat("wall-time budget of ", absl::FormatDuration(b.max_time), " spent");
  }
  return "";
}

bool Evaluator::exhausted() const { return !BudgetReason().empty(); }

std::optional<double> Evaluator::Known(size_t index) const {
  auto it = position_.find(index);
  if (it == position_.end()) return std::nullopt;
  return results_[it->second].cost();
}

const CandidateResult* Evaluator::Find(size_t index) const {
  auto it = position_.find(index);
  return it == position_.end() ? nullptr : &results_[it->second];
}

const CandidateResult* Evaluator::best() const {
  return best_.has_value() ? &results_[*best_] : nullptr;
}

void Evaluator::Record(size_t index, CandidateResult result, bool report) {
  result.config = space_.config(index);
  position_[index] = results_.size();
  results_.push_back(std::move(result));
  const CandidateResult& r = results_.back();
  if (r.ok() && (!best_.has_value() || r.cost() < results_[*best_].cost())) {
    best_ = results_.size() - 1;
  }
  if (report && options_.on_result) options_.on_result(r);
}

std::vector<double> Evaluator::Evaluate(absl::Span<const size_t> indices) {
  // The new, distinct indices, in the order asked.
  std::vector<size_t> todo;
  for (size_t index : indices) {
    if (index >= space_.size() || position_.contains(index)) continue;
    if (std::find(todo.begin(), todo.end(), index) == todo.end()) todo.push_back(index);
  }

  // A slot is shared with its task: the task may still be returning from
  // Notify() when the waiter has seen the notification (absl::Notification
  // must outlive Notify()).
  struct Slot {
    absl::Notification done;
    Prepared prepared;
  };
  std::vector<std::shared_ptr<Slot>> slots;
  auto cancel = std::make_shared<std::atomic<bool>>(false);
  auto submit_until = [&](size_t limit) {
    while (slots.size() < std::min(limit, todo.size())) {
      auto slot = std::make_shared<Slot>();
      slots.push_back(slot);
      const KernelConfig* config = &space_.config(todo[slots.size() - 1]);
      pool_->Schedule([this, slot, config, cancel] {
        if (!cancel->load(std::memory_order_relaxed)) slot->prepared = runner_.Prepare(*config);
        slot->done.Notify();
      });
    }
  };

  for (size_t pos = 0; pos < todo.size(); ++pos) {
    if (exhausted()) {
      budget_cut_ = true;
      break;
    }
    // Compile ahead, but not past what the count budget still allows.
    size_t limit = pos + 1 + size_t(lookahead_);
    if (options_.budget.max_evaluations > 0) {
      const size_t left = size_t(options_.budget.max_evaluations) - results_.size();
      limit = std::min(limit, pos + left);
    }
    submit_until(limit);
    slots[pos]->done.WaitForNotification();
    if (exhausted()) {  // the compile itself may have spent the wall time
      budget_cut_ = true;
      break;
    }
    Prepared prepared = std::move(slots[pos]->prepared);
    const double best_ms =
        best_.has_value() ? results_[*best_].cost() : std::numeric_limits<double>::infinity();
    CandidateResult result = prepared.ready() ? runner_.Measure(std::move(prepared), best_ms)
                                              : std::move(prepared.result);
    Record(todo[pos], std::move(result), /*report=*/true);
  }
  // Compiles still queued are skipped; running ones finish before we return
  // (they use `runner_` and the slots).
  cancel->store(true, std::memory_order_relaxed);
  for (const std::shared_ptr<Slot>& slot : slots) slot->done.WaitForNotification();

  std::vector<double> costs;
  for (size_t index : indices) {
    std::optional<double> cost = Known(index);
    if (!cost.has_value()) break;
    costs.push_back(*cost);
  }
  return costs;
}

}  // namespace jitk::tuner
