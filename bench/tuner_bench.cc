// Tuner overhead per candidate, measured on the fake backend (no GPU): what
// jitk-tune spends on its own bookkeeping — compile pipeline, validation,
// timing loop, strategy — around the compiler and the device.
//
//   build/bench/tuner_bench --benchmark_counters_tabular=true
#include <memory>
#include <numeric>

#include "benchmark/benchmark.h"
#include "lib/kernel_template.h"
#include "tuner/evaluator.h"
#include "tuner/runners/replay_runner.h"
#include "tuner/search_space.h"
#include "tuner/strategy.h"
#include "tuner/tuner.h"

// The fake backend is the tests' shared double (tests/testing); benchmark
// targets do not link the test library (it may not even be configured), so
// its one source file is compiled into this program.
#include "tests/testing/fake_backend.cc"  // NOLINT(build/include)

namespace jitk::tuner {
namespace {

// A whole exhaustive Tune on a fake H200: compile (fake, instant), prune,
// load, validate on the host, time with the repetition loop. Per candidate.
void BM_TuneExhaustiveOnFakeGpu(benchmark::State& state) {
  testing::FakeBackend fake;
  const Shape shape = Shape(DType::kF32).Set("n", state.range(0));
  TuneOptions options;
  options.strategy = "exhaustive";
  options.compile_threads = 2;
  options.measure.rotate_bytes = 0;
  size_t candidates = 0;
  for (auto _ : state) {
    absl::StatusOr<TuneResult> r =
        Tune("scaled_add", shape, {.device = fake.OpenDevice()}, options);
    if (!r.ok()) {
      state.SkipWithError(std::string(r.status().message()).c_str());
      return;
    }
    candidates += r->evaluated();
  }
  state.counters["candidates"] = benchmark::Counter(double(candidates));
  state.counters["per_candidate"] = benchmark::Counter(
      double(candidates), benchmark::Counter::kIsRate | benchmark::Counter::kInvert);
}
BENCHMARK(BM_TuneExhaustiveOnFakeGpu)
    ->Arg(1 << 10)
    ->Arg(1 << 16)
    ->UseRealTime()
    ->Unit(benchmark::kMillisecond);

// The Evaluator's pipeline alone (thread-pool hand-off, memo, budget) with
// a free cost function. Per candidate.
void BM_EvaluatorPipeline(benchmark::State& state) {
  std::vector<int64_t> values(256);
  std::iota(values.begin(), values.end(), 0);
  SearchSpace space = *SearchSpace::Create({{"X", values}});
  CostModelRunner runner([](const KernelConfig& c) {
    CandidateResult r;
    r.outcome = Outcome::kOk;
    r.timing.median_ms = 1.0 + double(c.at("X"));
    return r;
  });
  std::vector<size_t> all(space.size());
  std::iota(all.begin(), all.end(), size_t{0});
  for (auto _ : state) {
    Evaluator evaluator(space, runner, {.compile_threads = int(state.range(0))});
    benchmark::DoNotOptimize(evaluator.Evaluate(all));
  }
  state.SetItemsProcessed(state.iterations() * int64_t(space.size()));
}
BENCHMARK(BM_EvaluatorPipeline)->Arg(1)->Arg(4)->Unit(benchmark::kMicrosecond);

// The guided strategy's model fitting and picking, on the fake cost model of
// scaled_add f16 on sm_90 (96 configurations). Per evaluation.
void BM_GuidedStrategy(benchmark::State& state) {
  testing::FakeGpu gpu = testing::FakeH200();
  const ArchInfo arch = *LookupArch("sm_90");
  const Shape shape = Shape(DType::kF16).Set("n", 1 << 24);
  const jitk::internal::KernelTemplate* t = *jitk::internal::FindKernelTemplate("scaled_add");
  SearchSpace space = *SearchSpace::ForTemplate(*t, shape, arch);
  testing::FakeKernelModel model = testing::ScaledAddFakeModel();
  CostModelRunner runner([&](const KernelConfig& c) {
    testing::FakeInstance instance;
    instance.kernel = "scaled_add";
    instance.template_args = {std::to_string(c.at("BLOCK")), std::to_string(c.at("EPT")),
                              std::to_string(c.at("VEC")), "jitk::f16"};
    instance.name_expression = KernelConfigToString(c);
    instance.arch = arch;
    int64_t n = 1 << 24;
    void* args[5] = {nullptr, nullptr, nullptr, &n, nullptr};
    testing::FakeLaunch launch;
    launch.args = args;
    CandidateResult r;
    r.outcome = Outcome::kOk;
    r.timing.median_ms = model.time_ms(instance, launch, gpu);
    return r;
  });
  size_t evaluations = 0;
  for (auto _ : state) {
    Evaluator evaluator(space, runner, {.compile_threads = 1});
    std::unique_ptr<Strategy> guided = NewGuidedStrategy();
    guided->Run(space, evaluator,
                {.seed = 1, .start = space.IndexOf(t->DefaultConfig(shape, arch))});
    evaluations += evaluator.evaluations();
  }
  state.counters["evaluations"] =
      benchmark::Counter(double(evaluations) / double(state.iterations()));
  state.counters["per_evaluation"] = benchmark::Counter(
      double(evaluations), benchmark::Counter::kIsRate | benchmark::Counter::kInvert);
}
BENCHMARK(BM_GuidedStrategy)->Unit(benchmark::kMicrosecond);

void BM_SearchSpaceForTemplate(benchmark::State& state) {
  const jitk::internal::KernelTemplate* t = *jitk::internal::FindKernelTemplate("scaled_add");
  const ArchInfo arch = *LookupArch("sm_90");
  const Shape shape = Shape(DType::kF16).Set("n", 1 << 24);
  for (auto _ : state) benchmark::DoNotOptimize(SearchSpace::ForTemplate(*t, shape, arch));
}
BENCHMARK(BM_SearchSpaceForTemplate)->Unit(benchmark::kMicrosecond);

}  // namespace
}  // namespace jitk::tuner

BENCHMARK_MAIN();
