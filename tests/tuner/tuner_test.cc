// The whole tuner on the fake backend: search, validation, pruning, typed
// failures, budgets, persistence and resume — no GPU needed.
#include "tuner/tuner.h"

#include <algorithm>
#include <cmath>
#include <set>

#include "gmock/gmock.h"
#include "gtest/gtest.h"
#include "tests/testing/fake_backend.h"
#include "tests/testing/status_matchers.h"
#include "tuner/result_store.h"

namespace jitk::tuner {
namespace {

using ::jitk::testing::FakeBackend;
using ::jitk::testing::FakeBackendOptions;
using ::jitk::testing::FaultInjectingBackend;
using ::jitk::testing::IsOk;
using ::jitk::testing::StatusIs;
using ::testing::HasSubstr;

Shape F32(int64_t n) { return Shape(DType::kF32).Set("n", n); }

TuneOptions Quick(std::string strategy = "exhaustive") {
  TuneOptions options;
  options.strategy = std::move(strategy);
  options.compile_threads = 2;
  options.measure.min_repetitions = 3;
  options.measure.max_repetitions = 5;
  options.measure.rotate_bytes = 1 << 20;
  return options;
}

const CandidateResult* Fastest(const TuneResult& r) {
  const CandidateResult* best = nullptr;
  for (const CandidateResult& c : r.candidates) {
    if (c.ok() && (best == nullptr || c.cost() < best->cost())) best = &c;
  }
  return best;
}

const CandidateResult* Find(const TuneResult& r, const KernelConfig& config) {
  for (const CandidateResult& c : r.candidates) {
    if (c.config == config) return &c;
  }
  return nullptr;
}

TEST(TuneTest, ExhaustiveOnAFakeGpuValidatesTimesAndFindsTheFastest) {
  FakeBackend fake;
  TuneTarget where{.device = fake.OpenDevice()};
  absl::StatusOr<TuneResult> r = Tune("scaled_add", F32(1 << 16), where, Quick());
  ASSERT_THAT(r, IsOk());
  EXPECT_THAT(r->status, IsOk());
  EXPECT_FALSE(r->compile_only);
  EXPECT_EQ(r->evaluated(), r->space_size);
  EXPECT_EQ(r->space_size, 72u);
  ASSERT_TRUE(r->best.has_value());
  EXPECT_EQ(r->best->config, Fastest(*r)->config);
  EXPECT_TRUE(r->best->timing.median_ms > 0);
  EXPECT_GT(r->best->timing.repetitions, 0);
  ASSERT_TRUE(r->default_result.has_value());
  EXPECT_EQ(r->default_result->config, r->default_config);
  EXPECT_EQ(r->candidates.front().config, r->default_config);  // the default goes first
  EXPECT_GE(r->speedup(), 1.0);
  EXPECT_GT(r->best_tbps(), 0);
  EXPECT_EQ(r->key.device_name, "Fake H200");
  EXPECT_EQ(r->key.compute_units, 132);
  EXPECT_EQ(r->key.compiler, "fake 1.0");
  EXPECT_EQ(r->key.arch, "sm_90");
  // Every candidate was validated on the host (one execution each) and timed.
  EXPECT_EQ(fake.executed(), int(r->Count(Outcome::kOk) + r->Count(Outcome::kWrongResult)));
  EXPECT_GT(fake.timed_calls(), int(r->space_size));
  EXPECT_EQ(fake.live_allocations(), 0u);
}

TEST(TuneTest, SmallShapesRotateInputSetsSoCachesDoNotFlatterThem) {
  FakeBackend fake;
  TuneOptions options = Quick();
  options.budget.max_evaluations = 1;
  options.measure.rotate_bytes = 8 << 20;  // 768 KiB per set → 11 sets
  absl::StatusOr<TuneResult> r =
      Tune("scaled_add", F32(1 << 16), {.device = fake.OpenDevice()}, options);
  ASSERT_THAT(r, IsOk());
  EXPECT_EQ(r->input_sets, 11);
  ASSERT_TRUE(r->best.has_value());
  EXPECT_EQ(r->best->timing.launches_per_repetition % 11, 0);
  options.measure.rotate_bytes = 1 << 10;
  r = Tune("scaled_add", F32(1 << 16), {.device = fake.OpenDevice()}, options);
  ASSERT_THAT(r, IsOk());
  EXPECT_EQ(r->input_sets, 1);
}

TEST(TuneTest, GuidedOnAFakeGpuIsWithin2PercentOfExhaustiveAtMost30Percent) {
  for (DType dtype : {DType::kF32, DType::kF16}) {
    FakeBackend fake;
    const Shape shape = Shape(dtype).Set("n", 1 << 18);
    absl::StatusOr<TuneResult> all =
        Tune("scaled_add", shape, {.device = fake.OpenDevice()}, Quick());
    absl::StatusOr<TuneResult> guided =
        Tune("scaled_add", shape, {.device = fake.OpenDevice()}, Quick("guided"));
    ASSERT_THAT(all, IsOk());
    ASSERT_THAT(guided, IsOk());
    EXPECT_THAT(guided->status, IsOk());
    EXPECT_LE(guided->best->timing.median_ms, all->best->timing.median_ms * 1.02);
    EXPECT_LE(double(guided->evaluated()), std::ceil(0.3 * double(all->space_size)));
  }
}

TEST(TuneTest, AWrongResultIsRecordedAndCannotWin) {
  FakeBackend fake;
  TuneTarget clean{.device = fake.OpenDevice()};
  absl::StatusOr<TuneResult> first = Tune("scaled_add", F32(1 << 14), clean, Quick());
  ASSERT_THAT(first, IsOk());
  const KernelConfig winner = first->best->config;

  // The same sweep with the winner's outputs corrupted after each launch.
  FaultInjectingBackend faults(&fake);
  faults.CorruptOutput(absl::StrCat("jitk::scaled_add<", winner.at("BLOCK"), ", ", winner.at("EPT"),
                                    ", ", winner.at("VEC"), ", float>"),
                       /*pointer_arg=*/0, 64);
  absl::StatusOr<TuneResult> second =
      Tune("scaled_add", F32(1 << 14), {.device = faults.OpenDevice(fake.OpenDevice())}, Quick());
  ASSERT_THAT(second, IsOk());
  const CandidateResult* corrupted = Find(*second, winner);
  ASSERT_NE(corrupted, nullptr);
  EXPECT_EQ(corrupted->outcome, Outcome::kWrongResult);
  EXPECT_THAT(corrupted->message, HasSubstr("out: out[0]"));
  EXPECT_THAT(corrupted->message, HasSubstr("f32 tolerance"));
  ASSERT_TRUE(second->best.has_value());
  EXPECT_NE(second->best->config, winner);
  EXPECT_EQ(second->Count(Outcome::kWrongResult), 1u);
  EXPECT_GT(faults.injected(), 0);
}

TEST(TuneTest, OverResourceCandidatesArePrunedBeforeAnyDeviceTime) {
  FakeBackend fake;
  FaultInjectingBackend faults(&fake);
  // Every EPT=8 instantiation reports 300 registers per thread.
  for (int block : {32, 64, 128, 256, 512, 1024}) {
    faults.EditResources(absl::StrCat("scaled_add<", block, ", 8,"),
                         [](ResourceUsage& u) { u.registers = 300; });
  }
  Device device = faults.OpenDevice(fake.OpenDevice());
  absl::StatusOr<TuneResult> r = Tune("scaled_add", F32(1 << 14), {.device = device}, Quick());
  ASSERT_THAT(r, IsOk());
  EXPECT_EQ(r->Count(Outcome::kOutOfResources), 18u);  // 6 blocks × 3 vector widths
  for (const CandidateResult& c : r->candidates) {
    if (c.config.at("EPT") == 8) {
      EXPECT_EQ(c.outcome, Outcome::kOutOfResources);
      EXPECT_THAT(c.message, HasSubstr("needs 300 registers per thread; sm_90 allows 255"));
      EXPECT_EQ(c.timing.repetitions, 0);
    } else {
      EXPECT_EQ(c.outcome, Outcome::kOk) << c.message;
    }
  }
  // Pruned candidates were never validated on the device.
  EXPECT_EQ(fake.executed(), int(r->Count(Outcome::kOk)));
}

TEST(TuneTest, FailuresAreTypedOutcomesNotErrors) {
  FakeBackend fake;
  FaultInjectingBackend faults(&fake);
  faults.FailCompile("scaled_add<32, 1,", absl::InvalidArgumentError("error: expected ';'"));
  faults.FailLoad("scaled_add<64, 1,", absl::FailedPreconditionError("no kernel image"));
  faults.FailLaunch("scaled_add<128, 1,", absl::InternalError("illegal address"));
  Device device = faults.OpenDevice(fake.OpenDevice());
  absl::StatusOr<TuneResult> r = Tune("scaled_add", F32(1 << 12), {.device = device}, Quick());
  ASSERT_THAT(r, IsOk());
  EXPECT_EQ(r->Count(Outcome::kCompileFailed), 3u);
  EXPECT_EQ(r->Count(Outcome::kRuntimeFailed), 6u);
  const CandidateResult* compile = Find(*r, {{"BLOCK", 32}, {"EPT", 1}, {"VEC", 1}});
  const CandidateResult* load = Find(*r, {{"BLOCK", 64}, {"EPT", 1}, {"VEC", 2}});
  const CandidateResult* launch = Find(*r, {{"BLOCK", 128}, {"EPT", 1}, {"VEC", 4}});
  ASSERT_TRUE(compile && load && launch);
  EXPECT_EQ(compile->outcome, Outcome::kCompileFailed);
  EXPECT_THAT(compile->message, HasSubstr("expected ';'"));
  EXPECT_EQ(load->outcome, Outcome::kRuntimeFailed);
  EXPECT_THAT(load->message, HasSubstr("load: no kernel image"));
  EXPECT_EQ(launch->outcome, Outcome::kRuntimeFailed);
  EXPECT_THAT(launch->message, HasSubstr("validation launch: illegal address"));
  EXPECT_TRUE(r->best.has_value());
}

TEST(TuneTest, WhenTimingFailsNothingWins) {
  FakeBackend fake;
  FaultInjectingBackend faults(&fake);
  faults.FailTiming(absl::UnavailableError("event timer unavailable"));
  TuneOptions options = Quick();
  options.budget.max_evaluations = 4;
  absl::StatusOr<TuneResult> r =
      Tune("scaled_add", F32(1 << 12), {.device = faults.OpenDevice(fake.OpenDevice())}, options);
  ASSERT_THAT(r, IsOk());
  EXPECT_FALSE(r->best.has_value());
  EXPECT_EQ(r->Count(Outcome::kRuntimeFailed), 4u);
  EXPECT_THAT(r->candidates[0].message, HasSubstr("timing: event timer unavailable"));
}

TEST(TuneTest, AWallTimeBudgetEndsWithDeadlineExceededAndKeepsTheBestSoFar) {
  FakeBackendOptions slow;
  slow.compile_delay = absl::Milliseconds(40);
  FakeBackend fake(slow);
  std::unique_ptr<ResultStore> store = NewMemoryResultStore();
  TuneOptions options = Quick();
  options.compile_threads = 1;
  options.budget.max_time = absl::Milliseconds(300);
  options.store = store.get();
  absl::StatusOr<TuneResult> r =
      Tune("scaled_add", F32(1 << 12), {.device = fake.OpenDevice()}, options);
  ASSERT_THAT(r, IsOk());
  EXPECT_THAT(r->status,
              StatusIs(absl::StatusCode::kDeadlineExceeded, "wall-time budget of 300ms spent"));
  EXPECT_THAT(r->status, StatusIs(absl::StatusCode::kDeadlineExceeded, "best so far is kept"));
  EXPECT_GT(r->evaluated(), 0u);
  EXPECT_LT(r->evaluated(), r->space_size);
  ASSERT_TRUE(r->best.has_value());
  EXPECT_EQ(r->best->config, Fastest(*r)->config);
  EXPECT_LT(r->wall_s, 2.0);
  // The best so far is stored like any winner.
  absl::StatusOr<std::optional<cache::TuningRecord>> stored = store->FindTuning(r->key);
  ASSERT_THAT(stored, IsOk());
  ASSERT_TRUE(stored->has_value());
  EXPECT_EQ((*stored)->config, KernelConfigToString(r->best->config));
}

TEST(TuneTest, ACountBudgetEndsWithDeadlineExceeded) {
  FakeBackend fake;
  TuneOptions options = Quick("random");
  options.budget.max_evaluations = 7;
  absl::StatusOr<TuneResult> r =
      Tune("scaled_add", F32(1 << 12), {.device = fake.OpenDevice()}, options);
  ASSERT_THAT(r, IsOk());
  EXPECT_THAT(r->status,
              StatusIs(absl::StatusCode::kDeadlineExceeded, "budget of 7 candidates spent"));
  EXPECT_EQ(r->evaluated(), 7u);
  EXPECT_TRUE(r->best.has_value());
}

TEST(TuneTest, TheWinnerCodeObjectsAndCandidatesAreStored) {
  FakeBackend fake;
  std::unique_ptr<ResultStore> store = NewMemoryResultStore();
  TuneOptions options = Quick();
  options.store = store.get();
  absl::StatusOr<TuneResult> r =
      Tune("scaled_add", F32(1 << 12), {.device = fake.OpenDevice()}, options);
  ASSERT_THAT(r, IsOk());
  absl::StatusOr<std::optional<cache::TuningRecord>> row = store->FindTuning(r->key);
  ASSERT_THAT(row, IsOk());
  ASSERT_TRUE(row->has_value());
  const cache::TuningRecord& t = **row;
  EXPECT_EQ(t.kernel, "scaled_add");
  EXPECT_EQ(t.shape_key, "f32;n=4096");
  EXPECT_EQ(t.device_name, "Fake H200");
  EXPECT_EQ(t.compute_units, 132);
  EXPECT_EQ(t.compiler, "fake 1.0");
  EXPECT_EQ(t.config, KernelConfigToString(r->best->config));
  EXPECT_DOUBLE_EQ(t.median_ms, r->best->timing.median_ms);
  EXPECT_TRUE(t.validated);
  ASSERT_EQ(t.runner_ups.size(), 5u);
  for (const cache::RunnerUp& up : t.runner_ups) EXPECT_GE(up.median_ms, t.median_ms);
  EXPECT_TRUE(
      std::is_sorted(t.runner_ups.begin(), t.runner_ups.end(),
                     [](const auto& a, const auto& b) { return a.median_ms < b.median_ms; }));
  absl::StatusOr<std::vector<CandidateResult>> candidates = store->Candidates(r->key);
  ASSERT_THAT(candidates, IsOk());
  EXPECT_EQ(candidates->size(), r->space_size);
}

TEST(TuneTest, ResumeContinuesInsideAShapeAndSkipsFinishedOnes) {
  FakeBackend fake;
  std::unique_ptr<ResultStore> store = NewMemoryResultStore();
  TuneOptions options = Quick();
  options.store = store.get();
  options.budget.max_evaluations = 10;
  absl::StatusOr<TuneResult> first =
      Tune("scaled_add", F32(1 << 12), {.device = fake.OpenDevice()}, options);
  ASSERT_THAT(first, IsOk());
  EXPECT_EQ(first->evaluated(), 10u);
  const int compiles = fake.compiles();

  // Interrupted sweeps leave a winner row; drop it to resume inside the shape.
  std::unique_ptr<ResultStore> partial = NewMemoryResultStore();
  absl::StatusOr<std::vector<CandidateResult>> done = store->Candidates(first->key);
  ASSERT_THAT(done, IsOk());
  ASSERT_EQ(done->size(), 10u);
  for (const CandidateResult& c : *done) {
    ASSERT_THAT(partial->PutCandidate(first->key, c), IsOk());
  }
  options.store = partial.get();
  options.resume = true;
  options.budget = {};
  absl::StatusOr<TuneResult> resumed =
      Tune("scaled_add", F32(1 << 12), {.device = fake.OpenDevice()}, options);
  ASSERT_THAT(resumed, IsOk());
  EXPECT_EQ(resumed->reloaded, 10u);
  EXPECT_EQ(resumed->evaluated(), resumed->space_size);
  EXPECT_EQ(fake.compiles() - compiles, int(resumed->space_size) - 10);
  EXPECT_FALSE(resumed->skipped);

  // Now the shape has a winner: resume does nothing at all.
  const int launches = fake.launches();
  absl::StatusOr<TuneResult> again =
      Tune("scaled_add", F32(1 << 12), {.device = fake.OpenDevice()}, options);
  ASSERT_THAT(again, IsOk());
  EXPECT_TRUE(again->skipped);
  EXPECT_EQ(again->best->config, resumed->best->config);
  EXPECT_EQ(fake.launches(), launches);
}

TEST(TuneTest, StoredCodeObjectsAreNotCompiledAgain) {
  FakeBackend fake;
  std::unique_ptr<ResultStore> store = NewMemoryResultStore();
  TuneOptions options = Quick();
  options.store = store.get();
  ASSERT_THAT(Tune("scaled_add", F32(1 << 12), {.device = fake.OpenDevice()}, options), IsOk());
  const int compiles = fake.compiles();
  // Another n, same instantiations: every code object comes from the store.
  absl::StatusOr<TuneResult> r =
      Tune("scaled_add", F32(1 << 13), {.device = fake.OpenDevice()}, options);
  ASSERT_THAT(r, IsOk());
  EXPECT_EQ(fake.compiles(), compiles);
  EXPECT_EQ(r->CodeReused(), r->space_size);
}

TEST(TuneTest, WithoutTheTargetGpuItCompilesOnlyAndSaysWhy) {
  FakeBackend fake;
  std::unique_ptr<ResultStore> store = NewMemoryResultStore();
  TuneOptions options = Quick();
  options.store = store.get();
  // No device at all.
  absl::StatusOr<TuneResult> r =
      Tune("scaled_add", F32(1 << 20), {.arch = "sm_80", .compile_backend = &fake}, options);
  ASSERT_THAT(r, IsOk());
  EXPECT_TRUE(r->compile_only);
  EXPECT_EQ(r->compile_only_reason, "no GPU");
  EXPECT_EQ(r->strategy, "exhaustive");
  EXPECT_EQ(r->Count(Outcome::kCompiledOnly) + r->Count(Outcome::kOutOfResources), r->space_size);
  EXPECT_FALSE(r->best.has_value());
  EXPECT_EQ(fake.launches(), 0);
  EXPECT_EQ(r->key.device_name, "");
  absl::StatusOr<std::optional<cache::TuningRecord>> row = store->FindTuning(r->key);
  ASSERT_THAT(row, IsOk());
  EXPECT_FALSE(row->has_value());  // nothing was timed, so nothing won
  // A device of another architecture: compile-only too, naming it.
  r = Tune("scaled_add", F32(1 << 20), {.arch = "sm_80", .device = fake.OpenDevice()}, options);
  ASSERT_THAT(r, IsOk());
  EXPECT_TRUE(r->compile_only);
  EXPECT_THAT(r->compile_only_reason, HasSubstr("the GPU present is sm_90 (Fake H200)"));
  EXPECT_EQ(fake.launches(), 0);
}

TEST(TuneTest, ResourceReportsOfCompileOnlySweepsComeFromTheCompiler) {
  FakeBackend fake;
  absl::StatusOr<TuneResult> r = Tune("scaled_add", Shape(DType::kF16).Set("n", 1 << 20),
                                      {.arch = "sm_90", .compile_backend = &fake}, Quick());
  ASSERT_THAT(r, IsOk());
  // The fake compiler caps registers at 64 for BLOCK=1024 and spills the rest.
  const CandidateResult* big = Find(*r, {{"BLOCK", 1024}, {"EPT", 8}, {"VEC", 8}});
  ASSERT_NE(big, nullptr);
  EXPECT_EQ(big->outcome, Outcome::kOutOfResources);
  EXPECT_THAT(big->message, HasSubstr("spills"));
  EXPECT_EQ(big->resources.registers, 64);
  const CandidateResult* small = Find(*r, {{"BLOCK", 128}, {"EPT", 1}, {"VEC", 8}});
  ASSERT_NE(small, nullptr);
  EXPECT_EQ(small->outcome, Outcome::kCompiledOnly);
  EXPECT_GT(small->occupancy, 0.9);
  EXPECT_EQ(small->threads_per_block, 128);
}

TEST(TuneTest, TheSameSeedGivesTheSameSearch) {
  FakeBackend a, b;
  TuneOptions options = Quick("guided");
  options.seed = 9;
  absl::StatusOr<TuneResult> x =
      Tune("scaled_add", F32(1 << 14), {.device = a.OpenDevice()}, options);
  absl::StatusOr<TuneResult> y =
      Tune("scaled_add", F32(1 << 14), {.device = b.OpenDevice()}, options);
  ASSERT_THAT(x, IsOk());
  ASSERT_THAT(y, IsOk());
  ASSERT_EQ(x->candidates.size(), y->candidates.size());
  for (size_t i = 0; i < x->candidates.size(); ++i) {
    EXPECT_EQ(x->candidates[i].config, y->candidates[i].config);
  }
}

TEST(TuneTest, BadRequestsAreErrors) {
  FakeBackend fake;
  EXPECT_THAT(Tune("saxpy", F32(16), {.device = fake.OpenDevice()}),
              StatusIs(absl::StatusCode::kInvalidArgument, "unknown kernel 'saxpy'"));
  EXPECT_THAT(Tune("scaled_add", Shape(DType::kF32), {.device = fake.OpenDevice()}),
              StatusIs(absl::StatusCode::kInvalidArgument, "'n'"));
  EXPECT_THAT(Tune("scaled_add", F32(16), {}),
              StatusIs(absl::StatusCode::kInvalidArgument, "needs an architecture"));
  EXPECT_THAT(Tune("scaled_add", F32(16), {.arch = "gfx1"}),
              StatusIs(absl::StatusCode::kNotFound, "gfx1"));
  EXPECT_THAT(Tune("scaled_add", F32(16), {.arch = "tpu_v5"}),
              StatusIs(absl::StatusCode::kInvalidArgument, "tpu_v5"));
  TuneOptions bad = Quick("annealing");
  EXPECT_THAT(Tune("scaled_add", F32(16), {.device = fake.OpenDevice()}, bad),
              StatusIs(absl::StatusCode::kInvalidArgument, "unknown strategy"));
  // The fake compiler refuses a vendor it does not build for.
  absl::StatusOr<TuneResult> amd =
      Tune("scaled_add", F32(16), {.arch = "gfx90a", .compile_backend = &fake}, Quick());
  ASSERT_THAT(amd, IsOk());
  EXPECT_EQ(amd->Count(Outcome::kCompileFailed), amd->space_size);
  EXPECT_THAT(amd->candidates[0].message, HasSubstr("cannot build for gfx90a"));
}

}  // namespace
}  // namespace jitk::tuner
