// tuner/budget.h — how much a tuning run may spend.
//
// A budget caps the number of evaluated candidates, the wall time, or both.
// When a strategy is cut short by its budget the run ends with
// kDeadlineExceeded and keeps the best configuration found so far.
//
// Example:
//   JITK_ASSIGN_OR_RETURN(Budget b, ParseBudget("40,30s"));  // 40 candidates or 30 s
#ifndef JITK_TUNER_BUDGET_H_
#define JITK_TUNER_BUDGET_H_

#include <cstdint>
#include <string>

#include "absl/status/statusor.h"
#include "absl/strings/string_view.h"
#include "absl/time/time.h"

namespace jitk::tuner {

struct Budget {
  // Distinct candidates evaluated (compiled, pruned or timed); 0: no cap.
  int64_t max_evaluations = 0;
  // Wall time of the whole run, compiles included.
  absl::Duration max_time = absl::InfiniteDuration();

  bool unlimited() const { return max_evaluations == 0 && max_time == absl::InfiniteDuration(); }
};

// "40" (candidates), "30s" / "2m" / "1h" / "500ms" (wall time), or both
// separated by a comma, "40,30s". kInvalidArgument naming the bad part.
absl::StatusOr<Budget> ParseBudget(absl::string_view text);

// "40 candidates, 30s", "unlimited".
std::string BudgetToString(const Budget& budget);

}  // namespace jitk::tuner

#endif  // JITK_TUNER_BUDGET_H_
