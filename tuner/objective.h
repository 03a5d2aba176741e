// tuner/objective.h — the cost function a strategy sees.
//
// Strategies know nothing of compilers, devices or databases: they ask for
// the cost of configurations by index into the SearchSpace and get back the
// median device time in milliseconds, or +inf for a candidate that failed
// (did not compile, was pruned, gave a wrong result). Asking again for a
// known index costs nothing. When the budget is spent Evaluate returns fewer
// costs than asked and exhausted() turns true; the strategy should then
// return.
//
// Evaluating several indices in one call lets the runner compile the later
// ones on a thread pool while it times the earlier ones, so strategies
// should batch what they already know they want.
#ifndef JITK_TUNER_OBJECTIVE_H_
#define JITK_TUNER_OBJECTIVE_H_

#include <cstddef>
#include <optional>
#include <vector>

#include "absl/types/span.h"

namespace jitk::tuner {

class Objective {
 public:
  virtual ~Objective() = default;

  // Costs of `indices`, in order; a prefix of them when the budget runs out.
  virtual std::vector<double> Evaluate(absl::Span<const size_t> indices) = 0;
  // The cost of an index already evaluated (in this run or reloaded).
  virtual std::optional<double> Known(size_t index) const = 0;
  // Distinct candidates evaluated so far, reloaded ones included.
  virtual size_t evaluations() const = 0;
  // The budget is spent: Evaluate will evaluate nothing new.
  virtual bool exhausted() const = 0;
};

}  // namespace jitk::tuner

#endif  // JITK_TUNER_OBJECTIVE_H_
