// exhaustive: every valid configuration, in index order.
#include <numeric>
#include <vector>

#include "tuner/strategy.h"

namespace jitk::tuner {
namespace {

class Exhaustive final : public Strategy {
 public:
  absl::string_view name() const override { return "exhaustive"; }
  size_t Planned(const SearchSpace& space, const StrategyContext&) const override {
    return space.size();
  }
  void Run(const SearchSpace& space, Objective& objective, const StrategyContext&) override {
    std::vector<size_t> all(space.size());
    std::iota(all.begin(), all.end(), size_t{0});
    objective.Evaluate(all);  // one batch: the runner compiles ahead of the timing
  }
};

}  // namespace

std::unique_ptr<Strategy> NewExhaustiveStrategy() { return std::make_unique<Exhaustive>(); }

}  // namespace jitk::tuner
