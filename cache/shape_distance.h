// cache/shape_distance.h — how far one tuned shape is from another.
//
// When a shape was never tuned, the cache answers with the tuned shape of the
// same kernel and dtype that is nearest to it, and says so. "Nearest" is
//
//   distance(a, b) = Σ over dimensions d of |log2(a.d / b.d)|
//
// defined only when both shapes have the same dtype and the same dimension
// names; a dimension whose value is ≤ 0 in either shape, or that the caller
// names as exact (a layout id, a head size), must be equal. So doubling one
// dimension costs 1, doubling two costs 2, and a shape 4× larger in one
// dimension is as far as one 2× larger in two. Dimensions are compared as
// ratios because the best launch configuration changes with magnitude, not
// with absolute differences.
//
// Shape keys are the text of jitk::Shape::Key(): "bf16;d=128;lk=4096".
//
// Example:
//   absl::StatusOr<ShapeKey> a = ParseShapeKey("f16;n=1048576");
//   absl::StatusOr<ShapeKey> b = ParseShapeKey("f16;n=4194304");
//   std::optional<double> d = ShapeDistance(*a, *b);   // 2.0
#ifndef JITK_CACHE_SHAPE_DISTANCE_H_
#define JITK_CACHE_SHAPE_DISTANCE_H_

#include <cstdint>
#include <optional>
#include <string>
#include <utility>
#include <vector>

#include "absl/status/statusor.h"
#include "absl/strings/string_view.h"
#include "absl/types/span.h"

namespace jitk::cache {

struct ShapeKey {
  std::string dtype;                                  // "f16"
  std::vector<std::pair<std::string, int64_t>> dims;  // sorted by name

  // "d,lk": shapes with equal dtype and DimNames() are comparable.
  std::string DimNames() const;
};

// Parses "dtype" or "dtype;name=value;..." (values are signed 64-bit
// integers, names unique). kInvalidArgument quoting the key otherwise.
absl::StatusOr<ShapeKey> ParseShapeKey(absl::string_view key);

// The distance above, or nullopt when the shapes are not comparable.
std::optional<double> ShapeDistance(const ShapeKey& a, const ShapeKey& b,
                                    absl::Span<const std::string> exact_dims = {});

}  // namespace jitk::cache

#endif  // JITK_CACHE_SHAPE_DISTANCE_H_
