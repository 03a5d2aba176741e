// tuner/strategy.h — search strategies, registered by name.
//
// A strategy decides which configurations of a SearchSpace to evaluate and
// in what order, seeing only an Objective (a cost per index). Built in:
//   exhaustive  every valid configuration, in index order
//   random      a seeded random order, until the budget is spent
//   guided      an additive surrogate model of log-time plus local search
//               around the best configurations; stops at a verified local
//               optimum or after 30 % of the space (strategies/guided.cc)
// Other strategies can be registered at run time.
//
// Example:
//   JITK_ASSIGN_OR_RETURN(std::unique_ptr<Strategy> s, MakeStrategy("guided"));
//   s->Run(space, objective, {.seed = 7, .start = space.IndexOf(default_config)});
#ifndef JITK_TUNER_STRATEGY_H_
#define JITK_TUNER_STRATEGY_H_

#include <cstddef>
#include <cstdint>
#include <functional>
#include <memory>
#include <optional>
#include <string>
#include <vector>

#include "absl/status/status.h"
#include "absl/status/statusor.h"
#include "absl/strings/string_view.h"
#include "tuner/objective.h"
#include "tuner/search_space.h"

namespace jitk::tuner {

struct StrategyContext {
  // Same seed, same space, same costs → same sequence of evaluations.
  uint64_t seed = 1;
  // A configuration worth starting from (the template's default); it has
  // usually been evaluated already.
  std::optional<size_t> start;
  // The count budget, 0 when none; strategies may plan with it.
  int64_t max_evaluations = 0;
};

class Strategy {
 public:
  virtual ~Strategy() = default;

  virtual absl::string_view name() const = 0;
  // How many evaluations Run will make at most if the budget allows
  // (for progress and ETA); the space size when unknown.
  virtual size_t Planned(const SearchSpace& space, const StrategyContext& context) const = 0;
  // Evaluates until done or objective.exhausted(). Must not throw; failures
  // are costs of +inf.
  virtual void Run(const SearchSpace& space, Objective& objective,
                   const StrategyContext& context) = 0;
};

using StrategyFactory = std::function<std::unique_ptr<Strategy>()>;

struct StrategyInfo {
  std::string name;
  std::string description;
};

// kAlreadyExists when the name is taken. Thread-safe.
absl::Status RegisterStrategy(absl::string_view name, absl::string_view description,
                              StrategyFactory factory);

// kInvalidArgument listing the registered names when `name` is not one.
absl::StatusOr<std::unique_ptr<Strategy>> MakeStrategy(absl::string_view name);

// Built-in strategies first, then registered ones, each in registration order.
std::vector<StrategyInfo> ListStrategies();

// The built-in strategies' factories (strategies/*.cc).
std::unique_ptr<Strategy> NewExhaustiveStrategy();
std::unique_ptr<Strategy> NewRandomStrategy();

struct GuidedOptions {
  // Evaluations the strategy allows itself, as a fraction of the space
  // (at least min_evaluations), when no count budget is given.
  double max_fraction = 0.30;
  size_t min_evaluations = 8;
  // Candidates evaluated per round (model picks plus neighbours), so the
  // runner can compile ahead.
  size_t batch = 4;
  // Rounds without a better incumbent before it stops.
  int patience = 4;
  // Ridge penalty of the additive model.
  double ridge = 1e-2;
  // Points this far above the best in log time weigh 1/e in the fit.
  double locality = 0.08;
  // Weight of the model's uncertainty in its picks (lower confidence bound).
  double exploration = 1.0;
  // Neighbours of the incumbent predicted slower than this fraction above
  // it are not worth a measurement.
  double neighbour_margin = 0.15;
  // How many of the best known configurations have their neighbours explored.
  size_t incumbents = 3;
  // Neighbours include two-parameter diagonal steps, not only one-parameter
  // changes.
  bool diagonal_moves = true;
  // Stop once the leaders have no promising neighbour and the model sees
  // nothing better (false: always spend the cap).
  bool stop_at_local_optimum = true;
  // ... but not before this fraction of the space has been evaluated.
  double min_fraction = 0.10;
};
std::unique_ptr<Strategy> NewGuidedStrategy(GuidedOptions options = {});

}  // namespace jitk::tuner

#endif  // JITK_TUNER_STRATEGY_H_
