#include "tuner/budget.h"

#include <vector>

#include "absl/strings/ascii.h"
#include "absl/strings/numbers.h"
#include "absl/strings/str_cat.h"
#include "absl/strings/str_split.h"
#include "absl/strings/strip.h"

namespace jitk::tuner {

absl::StatusOr<Budget> ParseBudget(absl::string_view text) {
  Budget budget;
  bool any = false;
  for (absl::string_view part : absl::StrSplit(text, ',', absl::SkipWhitespace())) {
    part = absl::StripAsciiWhitespace(part);
    int64_t count = 0;
    absl::Duration duration;
    if (absl::SimpleAtoi(part, &count)) {
      if (count <= 0) {
        return absl::InvalidArgumentError(
            absl::StrCat("budget '", text, "': a candidate count must be positive, got ", part));
      }
      budget.max_evaluations = count;
    } else if (absl::ParseDuration(part, &duration) && duration > absl::ZeroDuration()) {
      budget.max_time = duration;
    } else {
      return absl::InvalidArgumentError(absl::StrCat(
          "budget '", text, "': expected a candidate count (40), a duration (30s, 2m, 500ms) ",
          "or both (40,30s); got '", part, "'"));
    }
    any = true;
  }
  if (!any) return absl::InvalidArgumentError("empty budget: expected e.g. 40, 30s or 40,30s");
  return budget;
}

std::string BudgetToString(const Budget& budget) {
  if (budget.unlimited()) return "unlimited";
  std::string out;
  if (budget.max_evaluations > 0) absl::StrAppend(&out, budget.max_evaluations, " candidates");
  if (budget.max_time != absl::InfiniteDuration()) {
    absl::StrAppend(&out, out.empty() ? "" : ", ", absl::FormatDuration(budget.max_time));
  }
  return out;
}

}  // namespace jitk::tuner
