#include "jitk/shape.h"

#include <cctype>
#include <vector>

#include "absl/strings/numbers.h"
#include "absl/strings/str_cat.h"
#include "absl/strings/str_split.h"

namespace jitk {

Shape& Shape::Set(absl::string_view dim, int64_t value) {
  dims_[std::string(dim)] = value;
  return *this;
}

bool Shape::Has(absl::string_view dim) const { return dims_.find(dim) != dims_.end(); }

absl::StatusOr<int64_t> Shape::Get(absl::string_view dim) const {
  auto it = dims_.find(dim);
  if (it == dims_.end()) {
    return absl::InvalidArgumentError(
        absl::StrCat("shape ", Key(), " has no dimension '", dim, "'"));
  }
  return it->second;
}

int64_t Shape::GetOr(absl::string_view dim, int64_t fallback) const {
  auto it = dims_.find(dim);
  return it == dims_.end() ? fallback : it->second;
}

std::string Shape::Key() const {
  std::string key(DTypeName(dtype_));
  for (const auto& [name, value] : dims_) absl::StrAppend(&key, ";", name, "=", value);
  return key;
}

absl::StatusOr<Shape> Shape::Parse(absl::string_view key) {
  std::vector<absl::string_view> parts = absl::StrSplit(key, ';');
  absl::StatusOr<DType> dtype = ParseDType(parts[0]);
  if (!dtype.ok()) {
    return absl::InvalidArgumentError(
        absl::StrCat("bad shape key '", key, "': ", dtype.status().message()));
  }
  Shape shape(*dtype);
  for (size_t i = 1; i < parts.size(); ++i) {
    std::pair<absl::string_view, absl::string_view> kv = absl::StrSplit(parts[i], '=');
    int64_t value = 0;
    if (kv.first.empty() || !absl::SimpleAtoi(kv.second, &value)) {
      return absl::InvalidArgumentError(
          absl::StrCat("bad shape key '", key, "': expected dim=value, got '", parts[i], "'"));
    }
    shape.Set(kv.first, value);
  }
  return shape;
}

}  // namespace jitk
