// Budgets and outcome names: the small vocabulary of the tuner.
#include "tuner/budget.h"

#include "gmock/gmock.h"
#include "gtest/gtest.h"
#include "tests/testing/status_matchers.h"
#include "tuner/outcome.h"

namespace jitk::tuner {
namespace {

using ::jitk::testing::IsOk;
using ::jitk::testing::StatusIs;

TEST(BudgetTest, ParsesCountsDurationsAndBoth) {
  absl::StatusOr<Budget> count = ParseBudget("40");
  ASSERT_THAT(count, IsOk());
  EXPECT_EQ(count->max_evaluations, 40);
  EXPECT_EQ(count->max_time, absl::InfiniteDuration());

  absl::StatusOr<Budget> time = ParseBudget("2m");
  ASSERT_THAT(time, IsOk());
  EXPECT_EQ(time->max_evaluations, 0);
  EXPECT_EQ(time->max_time, absl::Minutes(2));

  absl::StatusOr<Budget> both = ParseBudget("40, 500ms");
  ASSERT_THAT(both, IsOk());
  EXPECT_EQ(both->max_evaluations, 40);
  EXPECT_EQ(both->max_time, absl::Milliseconds(500));
  EXPECT_EQ(BudgetToString(*both), "40 candidates, 500ms");
  EXPECT_EQ(BudgetToString(Budget{}), "unlimited");
}

TEST(BudgetTest, BadBudgetsNameTheBadPart) {
  EXPECT_THAT(ParseBudget(""), StatusIs(absl::StatusCode::kInvalidArgument, "empty budget"));
  EXPECT_THAT(ParseBudget("0"), StatusIs(absl::StatusCode::kInvalidArgument, "must be positive"));
  EXPECT_THAT(ParseBudget("40,soon"), StatusIs(absl::StatusCode::kInvalidArgument, "'soon'"));
  EXPECT_THAT(ParseBudget("-3s"), StatusIs(absl::StatusCode::kInvalidArgument, "'-3s'"));
}

TEST(OutcomeTest, NamesRoundTrip) {
  for (Outcome o :
       {Outcome::kOk, Outcome::kCompileFailed, Outcome::kInvalidConfig, Outcome::kOutOfResources,
        Outcome::kWrongResult, Outcome::kRuntimeFailed, Outcome::kCompiledOnly}) {
    absl::StatusOr<Outcome> back = ParseOutcome(OutcomeName(o));
    ASSERT_THAT(back, IsOk());
    EXPECT_EQ(*back, o);
  }
  EXPECT_EQ(OutcomeName(Outcome::kWrongResult), "wrong-result");
  EXPECT_THAT(ParseOutcome("slow"), StatusIs(absl::StatusCode::kInvalidArgument, "wrong-result"));
}

TEST(OutcomeTest, CompileErrorsMapToTypedOutcomes) {
  EXPECT_EQ(OutcomeForCompileError(absl::InvalidArgumentError("error: x"), false),
            Outcome::kCompileFailed);
  EXPECT_EQ(OutcomeForCompileError(absl::InvalidArgumentError("BLOCK=100"), true),
            Outcome::kInvalidConfig);
  EXPECT_EQ(OutcomeForCompileError(absl::ResourceExhaustedError("too big"), false),
            Outcome::kOutOfResources);
}

}  // namespace
}  // namespace jitk::tuner
