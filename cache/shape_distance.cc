#include "cache/shape_distance.h"

#include <algorithm>
#include <cmath>

#include "absl/status/status.h"
#include "absl/strings/ascii.h"
#include "absl/strings/numbers.h"
#include "absl/strings/str_cat.h"
#include "absl/strings/str_join.h"
#include "absl/strings/str_split.h"

namespace jitk::cache {

std::string ShapeKey::DimNames() const {
  return absl::StrJoin(dims, ",",
                       [](std::string* out, const auto& dim) { out->append(dim.first); });
}

absl::StatusOr<ShapeKey> ParseShapeKey(absl::string_view key) {
  auto bad = [&](absl::string_view why) {
    return absl::InvalidArgumentError(
        absl::StrCat("shape key '", key, "': ", why, " (expected 'f16;n=1048576')"));
  };
  std::vector<absl::string_view> parts = absl::StrSplit(key, ';');
  ShapeKey shape;
  shape.dtype = std::string(parts[0]);
  if (shape.dtype.empty()) return bad("no dtype");
  for (char c : shape.dtype) {
    if (!absl::ascii_islower(c) && !absl::ascii_isdigit(c)) return bad("bad dtype");
  }
  for (size_t i = 1; i < parts.size(); ++i) {
    std::vector<absl::string_view> kv = absl::StrSplit(parts[i], '=');
    int64_t value;
    if (kv.size() != 2 || kv[0].empty() || !absl::SimpleAtoi(kv[1], &value)) {
      return bad(absl::StrCat("bad dimension '", parts[i], "'"));
    }
    shape.dims.emplace_back(std::string(kv[0]), value);
  }
  std::sort(shape.dims.begin(), shape.dims.end());
  for (size_t i = 1; i < shape.dims.size(); ++i) {
    if (shape.dims[i].first == shape.dims[i - 1].first) {
      return bad(absl::StrCat("dimension '", shape.dims[i].first, "' appears twice"));
    }
  }
  return shape;
}

std::optional<double> ShapeDistance(const ShapeKey& a, const ShapeKey& b,
                                    absl::Span<const std::string> exact_dims) {
  if (a.dtype != b.dtype || a.dims.size() != b.dims.size()) return std::nullopt;
  double distance = 0;
  for (size_t i = 0; i < a.dims.size(); ++i) {
    const auto& [name, x] = a.dims[i];
    const auto& [other_name, y] = b.dims[i];
    if (name != other_name) return std::nullopt;
    bool exact = x <= 0 || y <= 0 ||
                 std::find(exact_dims.begin(), exact_dims.end(), name) != exact_dims.end();
    if (exact) {
      if (x != y) return std::nullopt;
      continue;
    }
    distance += std::fabs(std::log2(static_cast<double>(x) / static_cast<double>(y)));
  }
  return distance;
}

}  // namespace jitk::cache
