// random: a seeded permutation of the space, evaluated until the budget ends.
#include "tuner/internal/random.h"

#include <algorithm>
#include <numeric>
#include <vector>

#include "tuner/strategy.h"

namespace jitk::tuner {
namespace {

class RandomSearch final : public Strategy {
 public:
  absl::string_view name() const override { return "random"; }
  size_t Planned(const SearchSpace& space, const StrategyContext& context) const override {
    return context.max_evaluations > 0 ? std::min(space.size(), size_t(context.max_evaluations))
                                       : space.size();
  }
  void Run(const SearchSpace& space, Objective& objective,
           const StrategyContext& context) override {
    std::vector<size_t> order(space.size());
    std::iota(order.begin(), order.end(), size_t{0});
    internal::Random rng(context.seed);
    rng.Shuffle(order);
    // Batches keep the compile pool busy without compiling far past the budget.
    constexpr size_t kBatch = 16;
    for (size_t i = 0; i < order.size() && !objective.exhausted(); i += kBatch) {
      const size_t end = std::min(order.size(), i + kBatch);
      objective.Evaluate(absl::MakeConstSpan(order).subspan(i, end - i));
    }
  }
};

}  // namespace

std::unique_ptr<Strategy> NewRandomStrategy() { return std::make_unique<RandomSearch>(); }

}  // namespace jitk::tuner
