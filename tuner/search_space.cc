#include "tuner/search_space.h"

#include <algorithm>
#include <set>
#include <utility>

#include "absl/strings/str_cat.h"

namespace jitk::tuner {

absl::StatusOr<SearchSpace> SearchSpace::Create(std::vector<TunableParam> params,
                                                Constraint constraint) {
  if (params.empty()) return absl::InvalidArgumentError("a search space needs a parameter");
  std::set<std::string, std::less<>> names;
  size_t combinations = 1;
  for (const TunableParam& param : params) {
    if (param.values.empty()) {
      return absl::InvalidArgumentError(
          absl::StrCat("tunable parameter ", param.name, " has no values"));
    }
    if (!names.insert(param.name).second) {
      return absl::InvalidArgumentError(
          absl::StrCat("tunable parameter ", param.name, " appears twice"));
    }
    if (std::set<int64_t>(param.values.begin(), param.values.end()).size() != param.values.size()) {
      return absl::InvalidArgumentError(
          absl::StrCat("tunable parameter ", param.name, " repeats a value"));
    }
    if (combinations > kMaxCombinations / param.values.size()) {
      return absl::ResourceExhaustedError(absl::StrCat(
          "search space has more than ", kMaxCombinations, " combinations; narrow ", param.name));
    }
    combinations *= param.values.size();
  }

  SearchSpace space;
  space.params_ = std::move(params);
  space.constraint_ = std::move(constraint);
  space.combinations_ = combinations;
  const size_t dims = space.params_.size();
  std::vector<int> coords(dims, 0);
  for (size_t flat = 0; flat < combinations; ++flat) {
    // coords is the mixed-radix digit vector of `flat` (last digit fastest).
    KernelConfig config;
    for (size_t p = 0; p < dims; ++p) {
      config[space.params_[p].name] = space.params_[p].values[coords[p]];
    }
    if (!space.constraint_ || space.constraint_(config).ok()) {
      space.index_of_[int64_t(flat)] = space.valid_.size();
      space.valid_.push_back(int64_t(flat));
      space.configs_.push_back(std::move(config));
      space.coordinates_.push_back(coords);
    }
    for (size_t p = dims; p-- > 0;) {
      if (++coords[p] < int(space.params_[p].values.size())) break;
      coords[p] = 0;
    }
  }
  return space;
}

absl::StatusOr<SearchSpace> SearchSpace::ForTemplate(
    const jitk::internal::KernelTemplate& kernel_template, const Shape& shape,
    const ArchInfo& arch) {
  const jitk::internal::KernelTemplate* t = &kernel_template;
  absl::StatusOr<SearchSpace> space =
      Create(t->SearchSpace(shape, arch), [t, shape, arch](const KernelConfig& config) {
        return t->ValidateConfig(config, shape, arch);
      });
  if (space.ok() && space->size() == 0) {
    return absl::InvalidArgumentError(absl::StrCat(kernel_template.name(), " has no valid ",
                                                   "configuration for ", shape.Key(), " on ",
                                                   arch.name));
  }
  return space;
}

std::optional<size_t> SearchSpace::IndexOfCoordinates(const std::vector<int>& coordinates) const {
  int64_t flat = 0;
  for (size_t p = 0; p < params_.size(); ++p) {
    flat = flat * int64_t(params_[p].values.size()) + coordinates[p];
  }
  auto it = index_of_.find(flat);
  if (it == index_of_.end()) return std::nullopt;
  return it->second;
}

std::optional<size_t> SearchSpace::IndexOf(const KernelConfig& config) const {
  if (config.size() != params_.size()) return std::nullopt;
  std::vector<int> coords(params_.size());
  for (size_t p = 0; p < params_.size(); ++p) {
    auto it = config.find(params_[p].name);
    if (it == config.end()) return std::nullopt;
    const std::vector<int64_t>& values = params_[p].values;
    auto v = std::find(values.begin(), values.end(), it->second);
    if (v == values.end()) return std::nullopt;
    coords[p] = int(v - values.begin());
  }
  return IndexOfCoordinates(coords);
}

absl::Status SearchSpace::Check(const KernelConfig& config) const {
  return constraint_ ? constraint_(config) : absl::OkStatus();
}

std::vector<size_t> SearchSpace::Neighbors(size_t index) const {
  std::vector<size_t> out;
  std::vector<int> coords = coordinates_[index];
  for (size_t p = 0; p < params_.size(); ++p) {
    for (int step : {-1, 1}) {
      const int original = coords[p];
      coords[p] += step;
      if (coords[p] >= 0 && coords[p] < int(params_[p].values.size())) {
        if (std::optional<size_t> n = IndexOfCoordinates(coords)) out.push_back(*n);
      }
      coords[p] = original;
    }
  }
  std::sort(out.begin(), out.end());
  return out;
}

std::vector<size_t> SearchSpace::LineNeighbors(size_t index) const {
  std::vector<size_t> out;
  std::vector<int> coords = coordinates_[index];
  for (size_t p = 0; p < params_.size(); ++p) {
    const int original = coords[p];
    for (int v = 0; v < int(params_[p].values.size()); ++v) {
      if (v == original) continue;
      coords[p] = v;
      if (std::optional<size_t> n = IndexOfCoordinates(coords)) out.push_back(*n);
    }
    coords[p] = original;
  }
  std::sort(out.begin(), out.end());
  return out;
}

std::vector<size_t> SearchSpace::DiagonalNeighbors(size_t index) const {
  std::vector<size_t> out;
  std::vector<int> coords = coordinates_[index];
  for (size_t p = 0; p < params_.size(); ++p) {
    for (size_t q = p + 1; q < params_.size(); ++q) {
      for (int sp : {-1, 1}) {
        for (int sq : {-1, 1}) {
          const int op = coords[p], oq = coords[q];
          coords[p] += sp;
          coords[q] += sq;
          if (coords[p] >= 0 && coords[p] < int(params_[p].values.size()) && coords[q] >= 0 &&
              coords[q] < int(params_[q].values.size())) {
            if (std::optional<size_t> n = IndexOfCoordinates(coords)) out.push_back(*n);
          }
          coords[p] = op;
          coords[q] = oq;
        }
      }
    }
  }
  std::sort(out.begin(), out.end());
  return out;
}

}  // namespace jitk::tuner
