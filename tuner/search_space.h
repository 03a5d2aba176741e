// tuner/search_space.h — the configurations a tuner may try.
//
// A search space is a list of tunable parameters, each with its candidate
// values, and a constraint between them (the kernel template's
// ValidateConfig). It enumerates the valid configurations once, in a fixed
// order (the last parameter varies fastest), so an index names a
// configuration the same way in every process: strategies, shards and
// replayed sweeps all agree on it.
//
// Example:
//   JITK_ASSIGN_OR_RETURN(SearchSpace space, SearchSpace::ForTemplate(*t, shape, arch));
//   for (size_t i = 0; i < space.size(); ++i) Try(space.config(i));
#ifndef JITK_TUNER_SEARCH_SPACE_H_
#define JITK_TUNER_SEARCH_SPACE_H_

#include <cstddef>
#include <cstdint>
#include <functional>
#include <optional>
#include <vector>

#include "absl/container/flat_hash_map.h"
#include "absl/status/status.h"
#include "absl/status/statusor.h"
#include "jitk/arch.h"
#include "jitk/kernel.h"
#include "jitk/shape.h"
#include "lib/kernel_template.h"

namespace jitk::tuner {

using jitk::internal::TunableParam;

class SearchSpace {
 public:
  // OK, or why the configuration is not allowed (kInvalidArgument).
  using Constraint = std::function<absl::Status(const KernelConfig&)>;

  // At most this many raw combinations are enumerated.
  static constexpr size_t kMaxCombinations = size_t{1} << 22;

  // kInvalidArgument when there is no parameter, a parameter has no values
  // or repeats a value, or two parameters share a name; kResourceExhausted
  // beyond kMaxCombinations. A null constraint allows every combination.
  static absl::StatusOr<SearchSpace> Create(std::vector<TunableParam> params,
                                            Constraint constraint = nullptr);

  // The template's parameters for `shape` on `arch`, constrained by its
  // ValidateConfig. kInvalidArgument when no combination is valid.
  static absl::StatusOr<SearchSpace> ForTemplate(
      const jitk::internal::KernelTemplate& kernel_template, const Shape& shape,
      const ArchInfo& arch);

  const std::vector<TunableParam>& params() const { return params_; }

  // Valid configurations.
  size_t size() const { return valid_.size(); }
  // All combinations before the constraint.
  size_t combinations() const { return combinations_; }

  // REQUIRES: index < size().
  const KernelConfig& config(size_t index) const { return configs_[index]; }
  // Per parameter, the position of the configuration's value in its list.
  const std::vector<int>& coordinates(size_t index) const { return coordinates_[index]; }

  // The index of a valid configuration of this space; nullopt when the
  // configuration has other parameters, a value not in the lists, or fails
  // the constraint.
  std::optional<size_t> IndexOf(const KernelConfig& config) const;

  // The constraint's verdict on any configuration (also outside the lists).
  absl::Status Check(const KernelConfig& config) const;

  // Valid configurations one step away: one parameter moved to the adjacent
  // value in its list. Sorted by index.
  std::vector<size_t> Neighbors(size_t index) const;
  // Valid configurations that differ in exactly one parameter (any value).
  std::vector<size_t> LineNeighbors(size_t index) const;
  // Valid configurations with two parameters each moved one step (the
  // diagonal moves a valley between interacting parameters needs).
  std::vector<size_t> DiagonalNeighbors(size_t index) const;

 private:
  SearchSpace() = default;
  std::optional<size_t> IndexOfCoordinates(const std::vector<int>& coordinates) const;

  std::vector<TunableParam> params_;
  Constraint constraint_;
  size_t combinations_ = 0;
  std::vector<int64_t> valid_;  // mixed-radix index of each valid configuration
  std::vector<KernelConfig> configs_;
  std::vector<std::vector<int>> coordinates_;
  absl::flat_hash_map<int64_t, size_t> index_of_;  // mixed-radix index → valid index
};

}  // namespace jitk::tuner

#endif  // JITK_TUNER_SEARCH_SPACE_H_
