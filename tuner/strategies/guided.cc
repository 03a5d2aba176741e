// guided: a surrogate model of log(time) steering a local search.
//
// Kernel time is close to a product of per-parameter factors (access width,
// work per thread, block size), i.e. close to additive in log(time), with
// interactions where a combination matters (work per thread is EPT x VEC,
// elements per block BLOCK x EPT x VEC). The strategy
//   1. evaluates the start configuration and a covering design: every value
//      of every parameter appears at least once;
//   2. fits log(time) = mu + sum_p w_p[value_p] + sum_{p<q} w_pq[value_p,
//      value_q] + w_prod[product of all values] by ridge regression
//      (weighted backfitting) on the successful candidates, weighting those
//      near the best most; the interaction terms are shrunk harder;
//   3. each round evaluates the best-predicted unevaluated neighbours of the
//      three leading configurations (one parameter changed to any value, or
//      two moved one step each; the incumbent's first) plus one of the
//      model's most promising unevaluated configurations (by a lower
//      confidence bound, so rarely seen values get tried); with no promising
//      neighbour left the whole round is model picks;
//   4. stops when the leaders have no promising neighbour left and the model
//      predicts no improvement (once 10 % of the space is explored), after
//      `patience` rounds without a better incumbent, or at its evaluation cap
//      (30 % of the space by default).
#include <algorithm>
#include <cmath>
#include <limits>
#include <numeric>
#include <vector>

#include "tuner/internal/random.h"
#include "tuner/strategy.h"

namespace jitk::tuner {
namespace {

constexpr double kInf = std::numeric_limits<double>::infinity();

class AdditiveModel {
 public:
  // One categorical feature per parameter, one per pair of parameters (the
  // pair's combination of values), and, with three or more parameters, one
  // for the product of all values (elements per block for BLOCK x EPT x
  // VEC). The pair and product features carry the interactions a sum of
  // per-parameter effects cannot express: on a flat landscape the winner is
  // often a particular combination (EPT=1 with VEC=8), not a set of
  // individually good values.
  explicit AdditiveModel(const SearchSpace& space) : space_(space) {
    const std::vector<TunableParam>& params = space.params();
    const size_t dims = params.size();
    const size_t n = space.size();
    for (size_t p = 0; p < dims; ++p) {
      std::vector<int> level(n);
      for (size_t i = 0; i < n; ++i) level[i] = space.coordinates(i)[p];
      AddFeature(std::move(level), params[p].values.size());
    }
    main_features_ = features_.size();
    for (size_t a = 0; a < dims; ++a) {
      for (size_t b = a + 1; b < dims; ++b) {
        const int width = int(params[b].values.size());
        std::vector<int> level(n);
        for (size_t i = 0; i < n; ++i) {
          level[i] = space.coordinates(i)[a] * width + space.coordinates(i)[b];
        }
        AddFeature(std::move(level), params[a].values.size() * params[b].values.size());
      }
    }
    if (dims >= 3) {
      std::vector<int> level(n);
      std::vector<double> products;  // distinct log products seen so far
      for (size_t i = 0; i < n; ++i) {
        double log_product = 0;
        for (size_t p = 0; p < dims; ++p) {
          const int64_t v = params[p].values[space.coordinates(i)[p]];
          log_product += std::log(double(std::max<int64_t>(v, 1)));
        }
        auto it = std::find_if(products.begin(), products.end(),
                               [&](double x) { return std::abs(x - log_product) < 1e-9; });
        level[i] = int(it - products.begin());
        if (it == products.end()) products.push_back(log_product);
      }
      AddFeature(std::move(level), products.size());
    }
  }

  // Fits on (index, log cost) pairs by weighted backfitting: each feature's
  // effects are the ridge-shrunk weighted mean residuals of its levels; the
  // interaction features are shrunk harder, so they explain only what the
  // per-parameter effects cannot. A point's weight falls off with its
  // distance from the best (exp(-(y - y_best) / locality)): the model has to
  // be right near the optimum, and a value seen only in a terrible
  // configuration should stay uncertain rather than be blamed for it.
  void Fit(const std::vector<std::pair<size_t, double>>& points, double ridge, double locality) {
    const size_t features = features_.size();
    for (Feature& f : features_) {
      std::fill(f.weights.begin(), f.weights.end(), 0.0);
      std::fill(f.counts.begin(), f.counts.end(), 0.0);
    }
    mu_ = 0;
    residual_sd_ = kMinResidual;
    if (points.empty()) return;
    double best = points[0].second;
    for (const auto& [index, y] : points) best = std::min(best, y);
    std::vector<double> weight(points.size());
    double total = 0;
    for (size_t i = 0; i < points.size(); ++i) {
      weight[i] = std::exp(-(points[i].second - best) / locality);
      total += weight[i];
      for (Feature& f : features_) f.counts[f.level[points[i].first]] += weight[i];
    }
    const double interaction_ridge = std::max(ridge, kInteractionRidge);
    for (int iteration = 0; iteration < 60; ++iteration) {
      double sum = 0;
      for (size_t i = 0; i < points.size(); ++i) {
        sum += weight[i] * (points[i].second - Effects(points[i].first));
      }
      mu_ = sum / total;
      for (size_t k = 0; k < features; ++k) {
        Feature& f = features_[k];
        std::vector<double> residual(f.weights.size(), 0.0);
        for (size_t i = 0; i < points.size(); ++i) {
          const int v = f.level[points[i].first];
          residual[v] +=
              weight[i] * (points[i].second - mu_ - (Effects(points[i].first) - f.weights[v]));
        }
        const double shrink = k < main_features_ ? ridge : interaction_ridge;
        for (size_t v = 0; v < residual.size(); ++v) {
          f.weights[v] = residual[v] / (f.counts[v] + shrink);
        }
      }
    }
    double squares = 0;
    for (size_t i = 0; i < points.size(); ++i) {
      const double r = points[i].second - Predict(points[i].first);
      squares += weight[i] * r * r;
    }
    residual_sd_ = std::max(kMinResidual, std::sqrt(squares / total));
  }

  double Predict(size_t index) const { return mu_ + Effects(index); }

  // A lower confidence bound: the prediction minus `kappa` times the fit's
  // residual spread, scaled up for configurations whose parameter values
  // were seen rarely. Unexplored corners of the space get their turn.
  double LowerBound(size_t index, double kappa) const {
    double rarity = 0;
    for (size_t k = 0; k < main_features_; ++k) {
      const Feature& f = features_[k];
      rarity += 1.0 / (1.0 + f.counts[f.level[index]]);
    }
    rarity /= double(std::max<size_t>(1, main_features_));
    return Predict(index) - kappa * residual_sd_ * std::sqrt(rarity);
  }

 private:
  struct Feature {
    std::vector<int> level;       // level of every configuration
    std::vector<double> weights;  // effect per level
    std::vector<double> counts;   // weighted observations per level
  };

  void AddFeature(std::vector<int> level, size_t levels) {
    features_.push_back({std::move(level), std::vector<double>(levels, 0.0),
                         std::vector<double>(levels, 0.0)});
  }

  double Effects(size_t index) const {
    double s = 0;
    for (const Feature& f : features_) s += f.weights[f.level[index]];
    return s;
  }

  // Measurement noise floor in log time (1 %).
  static constexpr double kMinResidual = 0.01;
  // Ridge penalty of the interaction features' effects.
  static constexpr double kInteractionRidge = 1.5;

  const SearchSpace& space_;
  size_t main_features_ = 0;  // features_[0, main_features_) are the parameters
  double mu_ = 0;
  double residual_sd_ = 0;
  std::vector<Feature> features_;
};

class Guided final : public Strategy {
 public:
  explicit Guided(GuidedOptions options) : options_(options) {}

  absl::string_view name() const override { return "guided"; }

  size_t Planned(const SearchSpace& space, const StrategyContext& context) const override {
    return Cap(space, context);
  }

  void Run(const SearchSpace& space, Objective& objective,
           const StrategyContext& context) override {
    const size_t n = space.size();
    if (n == 0) return;
    const size_t cap = Cap(space, context);
    internal::Random rng(context.seed);

    // 1. Start + covering design.
    std::vector<size_t> design;
    if (context.start.has_value() && *context.start < n) design.push_back(*context.start);
    for (size_t index : CoveringDesign(space, rng)) {
      if (std::find(design.begin(), design.end(), index) == design.end()) design.push_back(index);
    }
    if (design.size() > cap) design.resize(cap);
    EvaluateUnknown(objective, design, cap);

    AdditiveModel model(space);
    double incumbent_cost = kInf;
    int stale_rounds = 0;
    while (!objective.exhausted() && objective.evaluations() < cap) {
      // 2. Fit on what is known.
      std::vector<std::pair<size_t, double>> points;
      size_t incumbent = n;
      double best = kInf;
      std::vector<size_t> unknown;
      for (size_t i = 0; i < n; ++i) {
        std::optional<double> cost = objective.Known(i);
        if (!cost.has_value()) {
          unknown.push_back(i);
        } else if (std::isfinite(*cost) && *cost > 0) {
          points.emplace_back(i, std::log(*cost));
          if (*cost < best) best = *cost, incumbent = i;
        }
      }
      if (unknown.empty()) return;
      const bool explored_enough =
          double(objective.evaluations()) >= options_.min_fraction * double(n);
      if (best < incumbent_cost) {
        incumbent_cost = best;
        stale_rounds = 0;
      } else if (++stale_rounds >= options_.patience && explored_enough) {
        return;
      }
      model.Fit(points, options_.ridge, options_.locality);
      auto by_prediction = [&](size_t a, size_t b) {
        const double pa = model.Predict(a), pb = model.Predict(b);
        return pa != pb ? pa < pb : a < b;
      };

      // 3. Model picks (by lower bound) and the leaders' promising
      // neighbours: predicted within neighbour_margin of the incumbent.
      std::vector<size_t> neighbours;
      if (incumbent < n) {
        // The best few known configurations, fastest first.
        std::vector<std::pair<double, size_t>> leaders;
        for (const auto& [index, y] : points) leaders.emplace_back(y, index);
        std::sort(leaders.begin(), leaders.end());
        leaders.resize(std::min(leaders.size(), std::max<size_t>(1, options_.incumbents)));
        const double limit = std::log(incumbent_cost) + std::log1p(options_.neighbour_margin);
        for (const auto& [y, leader] : leaders) {
          std::vector<size_t> around = space.LineNeighbors(leader);
          if (options_.diagonal_moves) {
            std::vector<size_t> diagonal = space.DiagonalNeighbors(leader);
            around.insert(around.end(), diagonal.begin(), diagonal.end());
          }
          // Leader by leader (the incumbent's neighbours first), each
          // leader's best predicted first: on a flat landscape the model
          // cannot rank far-apart configurations, but it can rank one
          // leader's neighbours.
          const size_t first_new = neighbours.size();
          for (size_t j : around) {
            if (objective.Known(j).has_value() || model.Predict(j) > limit) continue;
            if (std::find(neighbours.begin(), neighbours.end(), j) == neighbours.end()) {
              neighbours.push_back(j);
            }
          }
          std::sort(neighbours.begin() + first_new, neighbours.end(), by_prediction);
        }
      }
      auto by_bound = [&](size_t a, size_t b) {
        const double la = model.LowerBound(a, options_.exploration);
        const double lb = model.LowerBound(b, options_.exploration);
        return la != lb ? la < lb : a < b;
      };
      std::sort(unknown.begin(), unknown.end(), by_bound);
      const double best_bound = model.LowerBound(unknown.front(), options_.exploration);
      if (options_.stop_at_local_optimum && explored_enough && incumbent < n &&
          neighbours.empty() && best_bound >= std::log(incumbent_cost) - kMinPredictedGain) {
        return;  // 4. a verified local optimum the model cannot beat
      }

      const size_t batch = std::max<size_t>(1, options_.batch);
      // While the leaders have promising neighbours, one model pick per
      // round keeps exploring and the rest of the batch refines the leaders.
      const size_t model_picks = neighbours.empty() ? batch : 1;
      std::vector<size_t> round;
      for (size_t i = 0; i < unknown.size() && round.size() < model_picks; ++i) {
        round.push_back(unknown[i]);
      }
      for (size_t j : neighbours) {
        if (round.size() >= batch) break;
        if (std::find(round.begin(), round.end(), j) == round.end()) round.push_back(j);
      }
      EvaluateUnknown(objective, round, cap);
    }
  }

 private:
  // Below this predicted gain (in log time, ~0.5 %) the model's pick is noise.
  static constexpr double kMinPredictedGain = 0.005;

  size_t Cap(const SearchSpace& space, const StrategyContext& context) const {
    size_t cap = context.max_evaluations > 0
                     ? size_t(context.max_evaluations)
                     : std::max(options_.min_evaluations,
                                size_t(std::ceil(options_.max_fraction * double(space.size()))));
    return std::min(cap, space.size());
  }

  // Evaluates `indices` without going past `cap` evaluations in total.
  static void EvaluateUnknown(Objective& objective, const std::vector<size_t>& indices,
                              size_t cap) {
    std::vector<size_t> todo;
    size_t planned = objective.evaluations();
    for (size_t i : indices) {
      if (objective.Known(i).has_value()) continue;
      if (planned >= cap) break;
      todo.push_back(i);
      ++planned;
    }
    if (!todo.empty()) objective.Evaluate(todo);
  }

  // max_p |values_p| configurations in which every value of every parameter
  // appears; a combination the constraint rejects is replaced by the valid
  // configuration that agrees with it on the most parameters.
  static std::vector<size_t> CoveringDesign(const SearchSpace& space, internal::Random& rng) {
    const std::vector<TunableParam>& params = space.params();
    size_t rows = 0;
    for (const TunableParam& p : params) rows = std::max(rows, p.values.size());
    std::vector<std::vector<int>> columns;
    for (const TunableParam& p : params) {
      std::vector<int> column(rows);
      for (size_t r = 0; r < rows; ++r) column[r] = int(r % p.values.size());
      rng.Shuffle(column);
      columns.push_back(std::move(column));
    }
    std::vector<size_t> design;
    for (size_t r = 0; r < rows; ++r) {
      size_t best = 0;
      int best_matches = -1;
      for (size_t i = 0; i < space.size(); ++i) {
        int matches = 0;
        for (size_t p = 0; p < params.size(); ++p) {
          matches += space.coordinates(i)[p] == columns[p][r];
        }
        if (matches > best_matches) best = i, best_matches = matches;
      }
      if (std::find(design.begin(), design.end(), best) == design.end()) design.push_back(best);
    }
    return design;
  }

  GuidedOptions options_;
};

}  // namespace

std::unique_ptr<Strategy> NewGuidedStrategy(GuidedOptions options) {
  return std::make_unique<Guided>(options);
}

}  // namespace jitk::tuner
