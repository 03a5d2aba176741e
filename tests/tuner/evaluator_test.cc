// The pipeline between strategies and runners: memo, budgets, preloading,
// and compiles overlapping measurements.
#include "tuner/evaluator.h"

#include <atomic>
#include <thread>

#include "gmock/gmock.h"
#include "gtest/gtest.h"
#include "tests/testing/status_matchers.h"

namespace jitk::tuner {
namespace {

using ::testing::HasSubstr;

SearchSpace Line(int n) {
  std::vector<int64_t> values;
  for (int i = 0; i < n; ++i) values.push_back(i);
  return *SearchSpace::Create({{"X", values}});
}

// Costs X + 1 ms; Prepare takes `compile` and Measure `measure` of wall time.
class SlowRunner final : public Runner {
 public:
  SlowRunner(absl::Duration compile, absl::Duration measure)
      : compile_(compile), measure_(measure) {}

  Prepared Prepare(const KernelConfig& config) override {
    const int now = ++compiling_;
    int seen = max_compiling_.load();
    while (now > seen && !max_compiling_.compare_exchange_weak(seen, now)) {
    }
    absl::SleepFor(compile_);
    --compiling_;
    ++prepares_;
    Prepared p;
    p.result.config = config;
    p.result.outcome = Outcome::kCompiledOnly;
    p.compiled = CompiledKernel();
    return p;
  }
  CandidateResult Measure(Prepared prepared, double) override {
    if (compiling_.load() > 0) measured_while_compiling_ = true;
    measuring_ = true;
    absl::SleepFor(measure_);
    measuring_ = false;
    CandidateResult r = std::move(prepared.result);
    r.outcome = Outcome::kOk;
    r.timing.median_ms = 1.0 + double(r.config.at("X"));
    ++measures_;
    return r;
  }
  bool times() const override { return true; }

  std::atomic<int> prepares_{0}, measures_{0}, max_compiling_{0};
  std::atomic<bool> measured_while_compiling_{false};

 private:
  absl::Duration compile_, measure_;
  std::atomic<int> compiling_{0};
  std::atomic<bool> measuring_{false};
};

TEST(EvaluatorTest, EvaluatesEachConfigurationOnce) {
  SearchSpace space = Line(6);
  SlowRunner runner(absl::ZeroDuration(), absl::ZeroDuration());
  Evaluator evaluator(space, runner, {.compile_threads = 2});
  const size_t batch[] = {3, 1, 3, 1};
  EXPECT_THAT(evaluator.Evaluate(batch), ::testing::ElementsAre(4.0, 2.0, 4.0, 2.0));
  const size_t again[] = {1, 3, 5};
  EXPECT_THAT(evaluator.Evaluate(again), ::testing::ElementsAre(2.0, 4.0, 6.0));
  EXPECT_EQ(runner.prepares_.load(), 3);
  EXPECT_EQ(evaluator.evaluations(), 3u);
  EXPECT_EQ(evaluator.best()->config.at("X"), 1);
  EXPECT_EQ(evaluator.Known(5), 6.0);
  EXPECT_EQ(evaluator.Known(0), std::nullopt);
  EXPECT_FALSE(evaluator.exhausted());
}

TEST(EvaluatorTest, CompilesRunAheadOnThePoolWhileTheCurrentOneIsMeasured) {
  SearchSpace space = Line(8);
  SlowRunner runner(absl::Milliseconds(40), absl::Milliseconds(20));
  Evaluator evaluator(space, runner, {.compile_threads = 4});
  std::vector<size_t> all = {0, 1, 2, 3, 4, 5, 6, 7};
  const absl::Time start = absl::Now();
  EXPECT_EQ(evaluator.Evaluate(all).size(), 8u);
  const absl::Duration took = absl::Now() - start;
  EXPECT_GE(runner.max_compiling_.load(), 2);
  EXPECT_TRUE(runner.measured_while_compiling_.load());
  // Serial would be 8 x (40 + 20) ms = 480 ms.
  EXPECT_LT(took, absl::Milliseconds(400));
}

TEST(EvaluatorTest, ACountBudgetStopsTheBatch) {
  SearchSpace space = Line(10);
  SlowRunner runner(absl::ZeroDuration(), absl::ZeroDuration());
  Evaluator evaluator(space, runner, {.budget = {.max_evaluations = 4}, .compile_threads = 2});
  std::vector<size_t> all = {9, 8, 7, 6, 5, 4, 3};
  EXPECT_EQ(evaluator.Evaluate(all).size(), 4u);
  EXPECT_TRUE(evaluator.exhausted());
  EXPECT_TRUE(evaluator.budget_cut());
  EXPECT_THAT(evaluator.BudgetReason(), HasSubstr("budget of 4 candidates spent"));
  EXPECT_EQ(runner.measures_.load(), 4);
  // Nothing new once exhausted; known ones still answer.
  const size_t more[] = {9, 0};
  EXPECT_EQ(evaluator.Evaluate(more).size(), 1u);
  EXPECT_EQ(runner.measures_.load(), 4);
}

TEST(EvaluatorTest, AWallTimeBudgetKeepsWhatWasMeasured) {
  SearchSpace space = Line(50);
  SlowRunner runner(absl::Milliseconds(5), absl::Milliseconds(20));
  EvaluatorOptions options;
  options.budget.max_time = absl::Milliseconds(120);
  options.compile_threads = 2;
  Evaluator evaluator(space, runner, options);
  std::vector<size_t> all;
  for (size_t i = 0; i < 50; ++i) all.push_back(49 - i);
  std::vector<double> costs = evaluator.Evaluate(all);
  EXPECT_GT(costs.size(), 0u);
  EXPECT_LT(costs.size(), 50u);
  EXPECT_TRUE(evaluator.budget_cut());
  EXPECT_THAT(evaluator.BudgetReason(), HasSubstr("wall-time budget of 120ms spent"));
  ASSERT_NE(evaluator.best(), nullptr);
  EXPECT_EQ(evaluator.best()->cost(), costs.back());  // descending X: the last is the best
}

TEST(EvaluatorTest, PreloadedResultsCountAndAreNeverMeasuredAgain) {
  SearchSpace space = Line(5);
  SlowRunner runner(absl::ZeroDuration(), absl::ZeroDuration());
  std::vector<int> reported;
  EvaluatorOptions options;
  options.compile_threads = 1;
  options.on_result = [&](const CandidateResult& r) { reported.push_back(int(r.config.at("X"))); };
  Evaluator evaluator(space, runner, options);
  CandidateResult earlier;
  earlier.config = {{"X", 2}};
  earlier.outcome = Outcome::kOk;
  earlier.timing.median_ms = 0.25;
  CandidateResult foreign;
  foreign.config = {{"Y", 1}};  // not of this space
  EXPECT_EQ(evaluator.Preload({earlier, foreign}), 1u);
  EXPECT_EQ(evaluator.preloaded(), 1u);
  std::vector<size_t> all = {0, 1, 2, 3, 4};
  EXPECT_EQ(evaluator.Evaluate(all).size(), 5u);
  EXPECT_EQ(runner.measures_.load(), 4);
  EXPECT_EQ(evaluator.best()->timing.median_ms, 0.25);
  EXPECT_THAT(reported, ::testing::ElementsAre(0, 1, 3, 4));  // preloaded ones are not reported
}

}  // namespace
}  // namespace jitk::tuner
