// Helpers shared by the tuner tests: the fake backend's scaled_add cost
// model as a plain cost function, and a strategy run over a cost function.
#ifndef JITK_TESTS_TUNER_TUNER_TEST_UTIL_H_
#define JITK_TESTS_TUNER_TUNER_TEST_UTIL_H_

#include <functional>
#include <limits>
#include <optional>
#include <string>
#include <vector>

#include "absl/strings/str_cat.h"
#include "lib/kernel_template.h"
#include "tests/testing/fake_backend.h"
#include "tuner/evaluator.h"
#include "tuner/resource_limits.h"
#include "tuner/runners/replay_runner.h"
#include "tuner/search_space.h"
#include "tuner/strategy.h"

namespace jitk::tuner::testutil {

inline constexpr double kInf = std::numeric_limits<double>::infinity();

// The fake backend's scaled_add model for one GPU and shape, with the
// tuner's default resource pruning: what a Tune on that fake GPU measures,
// without the device round trips.
struct FakeScaledAddCost {
  testing::FakeGpu gpu;
  ArchInfo arch;
  Shape shape;

  CandidateResult operator()(const KernelConfig& config) const {
    const DType dtype = shape.dtype();
    testing::FakeInstance instance;
    instance.kernel = "scaled_add";
    instance.template_args = {std::to_string(config.at("BLOCK")), std::to_string(config.at("EPT")),
                              std::to_string(config.at("VEC")),
                              dtype == DType::kF32   ? "float"
                              : dtype == DType::kF16 ? "jitk::f16"
                                                     : "jitk::bf16"};
    instance.name_expression = absl::StrCat(
        "jitk::scaled_add<", instance.template_args[0], ", ", instance.template_args[1], ", ",
        instance.template_args[2], ", ", instance.template_args[3], ">");
    instance.arch = arch;
    testing::FakeKernelModel model = testing::ScaledAddFakeModel();
    CandidateResult r;
    r.resources = *model.resources(instance);
    if (!CheckResources(r.resources, int(config.at("BLOCK")), 0, arch, {}).ok()) {
      r.outcome = Outcome::kOutOfResources;
      return r;
    }
    int64_t n = *shape.Get("n");
    void* args[5] = {nullptr, nullptr, nullptr, &n, nullptr};
    testing::FakeLaunch launch;
    launch.args = args;
    r.outcome = Outcome::kOk;
    r.timing.median_ms = model.time_ms(instance, launch, gpu);
    return r;
  }
};

// A search space with a cost function over it.
struct Landscape {
  std::string name;
  SearchSpace space;
  std::function<CandidateResult(const KernelConfig&)> cost;
  std::optional<size_t> start;  // the template's default, when it has one

  double Optimum() const {
    double best = kInf;
    for (size_t i = 0; i < space.size(); ++i) best = std::min(best, cost(space.config(i)).cost());
    return best;
  }
};

// scaled_add on the fake H200 and MI250X, every dtype, n = 2^16 ... 2^28.
inline std::vector<Landscape> FakeScaledAddLandscapes() {
  std::vector<Landscape> out;
  const jitk::internal::KernelTemplate* t = *jitk::internal::FindKernelTemplate("scaled_add");
  for (const testing::FakeGpu& gpu : {testing::FakeH200(), testing::FakeMi250x()}) {
    const ArchInfo arch = *LookupArch(gpu.info.arch);
    for (DType dtype : {DType::kF32, DType::kF16, DType::kBF16}) {
      for (int log_n : {16, 20, 22, 24, 26, 28}) {
        Shape shape = Shape(dtype).Set("n", int64_t{1} << log_n);
        Landscape l{absl::StrCat(gpu.info.arch, " ", shape.Key()),
                    *SearchSpace::ForTemplate(*t, shape, arch), FakeScaledAddCost{gpu, arch, shape},
                    std::nullopt};
        l.start = l.space.IndexOf(t->DefaultConfig(shape, arch));
        out.push_back(std::move(l));
      }
    }
  }
  return out;
}

struct SearchRun {
  double best = kInf;
  size_t evaluations = 0;
  bool budget_cut = false;
  std::vector<KernelConfig> order;  // evaluation order
};

// Runs a strategy the way Tune does: the start first, then the strategy.
inline SearchRun RunStrategy(Strategy& strategy, const Landscape& l, uint64_t seed,
                             Budget budget = {}) {
  CostModelRunner runner(l.cost);
  SearchRun run;
  EvaluatorOptions options;
  options.budget = budget;
  options.compile_threads = 1;
  options.on_result = [&](const CandidateResult& r) { run.order.push_back(r.config); };
  Evaluator evaluator(l.space, runner, options);
  if (l.start.has_value()) {
    const size_t first[] = {*l.start};
    evaluator.Evaluate(first);
  }
  strategy.Run(l.space, evaluator,
               {.seed = seed, .start = l.start, .max_evaluations = budget.max_evaluations});
  if (evaluator.best() != nullptr) run.best = evaluator.best()->cost();
  run.evaluations = evaluator.evaluations();
  run.budget_cut = evaluator.budget_cut();
  return run;
}

inline SearchRun RunStrategy(const std::string& name, const Landscape& l, uint64_t seed,
                             Budget budget = {}) {
  std::unique_ptr<Strategy> strategy = *MakeStrategy(name);
  return RunStrategy(*strategy, l, seed, budget);
}

}  // namespace jitk::tuner::testutil

#endif  // JITK_TESTS_TUNER_TUNER_TEST_UTIL_H_
