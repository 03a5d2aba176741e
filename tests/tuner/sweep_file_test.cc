#include "tuner/sweep_file.h"

#include "gmock/gmock.h"
#include "gtest/gtest.h"
#include "nlohmann/json.hpp"
#include "tests/testing/status_matchers.h"

namespace jitk::tuner {
namespace {

using ::jitk::testing::IsOk;
using ::jitk::testing::StatusIs;

TuneResult Sample() {
  TuneResult r;
  r.key = {"sm_90", "scaled_add", "f16;n=1048576", "NVIDIA H200", 132, "nvrtc 13.0"};
  r.shape = Shape(DType::kF16).Set("n", 1 << 20);
  r.strategy = "guided";
  r.space_size = 96;
  r.bytes_moved = 6.0 * (1 << 20);
  r.default_config = {{"BLOCK", 128}, {"EPT", 4}, {"VEC", 8}};
  CandidateResult ok;
  ok.config = {{"BLOCK", 256}, {"EPT", 2}, {"VEC", 8}};
  ok.outcome = Outcome::kOk;
  ok.timing = {.median_ms = 0.0021,
               .min_ms = 0.002,
               .max_ms = 0.0025,
               .spread = 0.01,
               .repetitions = 7,
               .launches_per_repetition = 43,
               .stable = true};
  ok.resources.registers = 40;
  ok.threads_per_block = 256;
  ok.occupancy = 1.0;
  ok.code_bytes = 9000;
  CandidateResult pruned;
  pruned.config = {{"BLOCK", 1024}, {"EPT", 8}, {"VEC", 8}};
  pruned.outcome = Outcome::kOutOfResources;
  pruned.message = "spills 324 bytes";
  pruned.resources.spills = 324;
  CandidateResult def = ok;
  def.config = r.default_config;
  def.timing.median_ms = 0.0025;
  r.candidates = {def, ok, pruned};
  r.best = ok;
  r.default_result = def;
  r.status = absl::DeadlineExceededError("budget of 3 candidates spent");
  return r;
}

TEST(SweepFileTest, ResultsRoundTrip) {
  const std::string json = TuneResultsToJson({Sample()});
  nlohmann::json doc = nlohmann::json::parse(json);
  EXPECT_EQ(doc["format"], "jitk-tune");
  const auto& r = doc["results"][0];
  EXPECT_EQ(r["best"]["config"], "BLOCK=256,EPT=2,VEC=8");
  EXPECT_NEAR(r["speedup"].get<double>(), 0.0025 / 0.0021, 1e-9);
  EXPECT_NEAR(r["best"]["tbps"].get<double>(), 6.0 * (1 << 20) / 0.0021e-3 / 1e12, 1e-9);
  EXPECT_EQ(r["counts"]["out-of-resources"], 1);
  EXPECT_THAT(r["status"].get<std::string>(), ::testing::HasSubstr("DEADLINE_EXCEEDED"));

  absl::StatusOr<std::vector<RecordedSweep>> back = ParseSweep(json);
  ASSERT_THAT(back, IsOk());
  ASSERT_EQ(back->size(), 1u);
  const RecordedSweep& s = (*back)[0];
  EXPECT_EQ(s.kernel, "scaled_add");
  EXPECT_EQ(s.shape, Sample().shape);
  EXPECT_EQ(s.arch, "sm_90");
  EXPECT_EQ(s.device_name, "NVIDIA H200");
  EXPECT_EQ(s.compute_units, 132);
  ASSERT_EQ(s.candidates.size(), 3u);
  EXPECT_EQ(s.candidates[1].config, Sample().best->config);
  EXPECT_EQ(s.candidates[1].outcome, Outcome::kOk);
  EXPECT_DOUBLE_EQ(s.candidates[1].timing.median_ms, 0.0021);
  EXPECT_EQ(s.candidates[1].timing.launches_per_repetition, 43);
  EXPECT_TRUE(s.candidates[1].timing.stable);
  EXPECT_EQ(s.candidates[2].outcome, Outcome::kOutOfResources);
  EXPECT_EQ(s.candidates[2].message, "spills 324 bytes");
  EXPECT_EQ(s.candidates[2].resources.spills, 324);
}

TEST(SweepFileTest, MalformedDocumentsAreRejectedWithAReason) {
  EXPECT_THAT(ParseSweep("not json"),
              StatusIs(absl::StatusCode::kInvalidArgument, "not a JSON object"));
  EXPECT_THAT(ParseSweep(R"({"format": "other"})"),
              StatusIs(absl::StatusCode::kInvalidArgument, "not a jitk-tune sweep"));
  EXPECT_THAT(ParseSweep(R"({"format": "jitk-tune", "version": 99, "results": []})"),
              StatusIs(absl::StatusCode::kInvalidArgument, "version 99"));
  EXPECT_THAT(ParseSweep(R"({"format": "jitk-tune", "version": 1})"),
              StatusIs(absl::StatusCode::kInvalidArgument, "no \"results\""));
  EXPECT_THAT(ParseSweep(R"({"format": "jitk-tune", "version": 1, "results": [
                {"kernel": "scaled_add", "shape": "f32;n=4",
                 "candidates": [{"config": "BLOCK=64", "outcome": "ok"}]}]})"),
              StatusIs(absl::StatusCode::kInvalidArgument, "no positive median_ms"));
  EXPECT_THAT(ParseSweep(R"({"format": "jitk-tune", "version": 1, "results": [
                {"kernel": "scaled_add", "shape": "f32;n=4",
                 "candidates": [{"config": "BLOCK=64", "outcome": "fast"}]}]})"),
              StatusIs(absl::StatusCode::kInvalidArgument, "unknown candidate outcome 'fast'"));
  EXPECT_THAT(ReadSweepFile("/nonexistent.json"),
              StatusIs(absl::StatusCode::kNotFound, "/nonexistent.json"));
}

}  // namespace
}  // namespace jitk::tuner
