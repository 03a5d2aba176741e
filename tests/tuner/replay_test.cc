// Strategies replayed on recorded sweeps: every `jitk-tune --json` document
// in tests/tuner/testdata (recorded on GPUs, or synthetic until recordings
// exist) is replayed through ReplayRunner.
#include <cmath>
#include <filesystem>

#include "gmock/gmock.h"
#include "gtest/gtest.h"
#include "lib/kernel_template.h"
#include "tests/testing/status_matchers.h"
#include "tests/tuner/tuner_test_util.h"
#include "tuner/runners/replay_runner.h"
#include "tuner/sweep_file.h"

namespace jitk::tuner {
namespace {

using ::jitk::testing::IsOk;
using testutil::Landscape;
using testutil::RunStrategy;
using testutil::SearchRun;

std::filesystem::path TestData() {
  return std::filesystem::path(__FILE__).parent_path() / "testdata";
}

struct Replay {
  std::string name;
  Landscape landscape;
  size_t recorded = 0;
};

std::vector<Replay> RecordedLandscapes() {
  std::vector<Replay> out;
  for (const auto& entry : std::filesystem::directory_iterator(TestData())) {
    if (entry.path().extension() != ".json") continue;
    absl::StatusOr<std::vector<RecordedSweep>> sweeps = ReadSweepFile(entry.path().string());
    EXPECT_THAT(sweeps, IsOk()) << entry.path();
    if (!sweeps.ok()) continue;
    for (RecordedSweep& sweep : *sweeps) {
      absl::StatusOr<const jitk::internal::KernelTemplate*> t =
          jitk::internal::FindKernelTemplate(sweep.kernel);
      absl::StatusOr<ArchInfo> arch = LookupArch(sweep.arch);
      if (!t.ok() || !arch.ok()) continue;
      absl::StatusOr<SearchSpace> space = SearchSpace::ForTemplate(**t, sweep.shape, *arch);
      if (!space.ok()) continue;
      auto runner = std::make_shared<ReplayRunner>(sweep.candidates);
      Replay r{
          absl::StrCat(entry.path().filename().string(), ": ", sweep.arch, " ", sweep.shape.Key()),
          Landscape{"", *std::move(space),
                    [runner](const KernelConfig& c) { return runner->Prepare(c).result; },
                    std::nullopt},
          sweep.candidates.size()};
      r.landscape.start = r.landscape.space.IndexOf((*t)->DefaultConfig(sweep.shape, *arch));
      out.push_back(std::move(r));
    }
  }
  return out;
}

TEST(ReplayTest, TestDataHoldsSweepsThatCoverTheirSpaces) {
  std::vector<Replay> replays = RecordedLandscapes();
  ASSERT_GE(replays.size(), 18u);  // at least the synthetic sm_90 + gfx90a sweeps
  for (const Replay& r : replays) {
    EXPECT_EQ(r.recorded, r.landscape.space.size()) << r.name << ": not an exhaustive sweep";
    EXPECT_TRUE(std::isfinite(r.landscape.Optimum())) << r.name;
  }
}

TEST(ReplayTest, ExhaustiveReplayFindsTheRecordedOptimum) {
  for (const Replay& r : RecordedLandscapes()) {
    SearchRun run = RunStrategy("exhaustive", r.landscape, 1);
    EXPECT_DOUBLE_EQ(run.best, r.landscape.Optimum()) << r.name;
  }
}

TEST(ReplayTest, GuidedIsWithin2PercentAtMost30PercentOnEveryRecordedSweep) {
  for (const Replay& r : RecordedLandscapes()) {
    const double optimum = r.landscape.Optimum();
    for (uint64_t seed = 1; seed <= 5; ++seed) {
      SearchRun guided = RunStrategy("guided", r.landscape, seed);
      EXPECT_LE(guided.best, optimum * 1.02) << r.name << " seed " << seed;
      EXPECT_LE(double(guided.evaluations), std::ceil(0.30 * double(r.landscape.space.size())))
          << r.name << " seed " << seed;
    }
  }
}

TEST(ReplayRunnerTest, AConfigurationOutsideTheRecordingIsARuntimeFailure) {
  CandidateResult recorded;
  recorded.config = {{"BLOCK", 256}};
  recorded.outcome = Outcome::kOk;
  recorded.timing.median_ms = 0.5;
  ReplayRunner runner({recorded});
  Prepared hit = runner.Prepare({{"BLOCK", 256}});
  EXPECT_EQ(hit.result.outcome, Outcome::kOk);
  EXPECT_DOUBLE_EQ(hit.result.timing.median_ms, 0.5);
  Prepared miss = runner.Prepare({{"BLOCK", 512}});
  EXPECT_EQ(miss.result.outcome, Outcome::kRuntimeFailed);
  EXPECT_THAT(miss.result.message, ::testing::HasSubstr("not in the recorded sweep"));
  EXPECT_EQ(runner.lookups(), 2u);
}

}  // namespace
}  // namespace jitk::tuner
