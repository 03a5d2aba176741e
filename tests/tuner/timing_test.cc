#include "tuner/timing.h"

#include <cmath>

#include "gmock/gmock.h"
#include "gtest/gtest.h"
#include "tests/testing/status_matchers.h"
#include "tuner/internal/random.h"

namespace jitk::tuner {
namespace {

using ::jitk::testing::IsOk;
using ::jitk::testing::StatusIs;

TEST(TimingTest, QuantilesAndSummary) {
  EXPECT_DOUBLE_EQ(Quantile({1, 2, 3, 4}, 0.5), 2.5);
  EXPECT_DOUBLE_EQ(Quantile({1, 2, 3, 4}, 0.0), 1);
  EXPECT_DOUBLE_EQ(Quantile({1, 2, 3, 4}, 1.0), 4);
  Timing t = Summarize({5, 1, 4, 2, 3}, 8, true);
  EXPECT_DOUBLE_EQ(t.median_ms, 3);
  EXPECT_DOUBLE_EQ(t.min_ms, 1);
  EXPECT_DOUBLE_EQ(t.max_ms, 5);
  EXPECT_DOUBLE_EQ(t.spread, (4.0 - 2.0) / 3.0);
  EXPECT_EQ(t.repetitions, 5);
  EXPECT_EQ(t.launches_per_repetition, 8);
}

TEST(TimingTest, ASteadyKernelIsStableAfterTheMinimumAndBatchesGrow) {
  int calls = 0;
  std::vector<int> launches;
  auto batch = [&](int n) -> absl::StatusOr<double> {
    ++calls;
    launches.push_back(n);
    return 0.01 * n;  // 10 us per launch
  };
  MeasureOptions options;
  options.min_batch_ms = 0.5;
  absl::StatusOr<Timing> t = MeasureStable(batch, 4, options, INFINITY, nullptr);
  ASSERT_THAT(t, IsOk());
  EXPECT_NEAR(t->median_ms, 0.01, 1e-12);
  EXPECT_TRUE(t->stable);
  EXPECT_EQ(t->repetitions, options.min_repetitions);
  EXPECT_GE(t->launches_per_repetition * 0.01, 0.5);  // a batch lasts >= min_batch_ms
  EXPECT_EQ(t->launches_per_repetition % 4, 0);       // whole passes over the input sets
  EXPECT_EQ(launches.front(), 4);
}

TEST(TimingTest, NoiseNeedsMoreRepetitionsAndIsReported) {
  internal::Random rng(3);
  auto batch = [&](int n) -> absl::StatusOr<double> {
    return n * 0.1 * (1.0 + 0.2 * (rng.Unit() - 0.5));
  };
  MeasureOptions options;
  options.max_repetitions = 12;
  std::string note;
  absl::StatusOr<Timing> t = MeasureStable(batch, 1, options, INFINITY, &note);
  ASSERT_THAT(t, IsOk());
  EXPECT_FALSE(t->stable);
  EXPECT_EQ(t->repetitions, 12);
  EXPECT_GT(t->spread, options.target_spread);
  EXPECT_NEAR(t->median_ms, 0.1, 0.01);
  EXPECT_TRUE(note.empty());
}

TEST(TimingTest, AClearlySlowerCandidateStopsEarly) {
  internal::Random rng(4);
  auto batch = [&](int n) -> absl::StatusOr<double> {
    return n * 1.0 * (1.0 + 0.2 * (rng.Unit() - 0.5));  // 2x the best, noisy
  };
  std::string note;
  absl::StatusOr<Timing> t = MeasureStable(batch, 1, {}, /*best_ms=*/0.5, &note);
  ASSERT_THAT(t, IsOk());
  EXPECT_EQ(t->repetitions, MeasureOptions().min_repetitions);
  EXPECT_THAT(note, ::testing::HasSubstr("stopped early"));
}

TEST(TimingTest, DeviceErrorsComeBack) {
  auto batch = [](int) -> absl::StatusOr<double> {
    return absl::InternalError("cuEventSynchronize: illegal address");
  };
  EXPECT_THAT(MeasureStable(batch, 1, {}, INFINITY, nullptr),
              StatusIs(absl::StatusCode::kInternal, "illegal address"));
}

}  // namespace
}  // namespace jitk::tuner
