#include "lib/bound_launch_args.h"

#include <cstdlib>

#include "absl/strings/str_cat.h"
#include "absl/strings/str_join.h"

namespace jitk::internal {

LaunchArgNames::LaunchArgNames(absl::string_view kernel,
                               absl::Span<const absl::string_view> names)
    : kernel_(kernel), names_(names) {
  // A template's table is fixed at build time: too many names is a bug in
  // the template, not bad input.
  if (names_.size() > kMaxNames) std::abort();
  for (size_t i = 0; i < names_.size(); ++i) positions_.emplace(names_[i], int(i));
}

int LaunchArgNames::Find(absl::string_view name) const {
  auto it = positions_.find(name);
  return it == positions_.end() ? -1 : it->second;
}

absl::Status BoundLaunchArgs::Bind(const LaunchArgNames& names, const LaunchArgs& args) {
  names_ = &names;
  args_.fill(nullptr);
  for (const LaunchArgs::Arg& arg : args.args()) {
    const int index = names.Find(arg.name);
    if (ABSL_PREDICT_FALSE(index < 0)) {
      return absl::InvalidArgumentError(absl::StrCat(names.kernel(), " takes no launch argument '",
                                                     arg.name, "'; it takes ",
                                                     absl::StrJoin(names.names(), ", ")));
    }
    args_[index] = &arg;
  }
  return absl::OkStatus();
}

absl::StatusOr<const LaunchArgs::Arg*> BoundLaunchArgs::Require(int index,
                                                                LaunchArgs::Kind kind) const {
  absl::string_view wanted;
  switch (kind) {
    case LaunchArgs::Kind::kPointer:
      wanted = "a device pointer, set with Ptr()";
      break;
    case LaunchArgs::Kind::kInt:
      wanted = "an integer, set with Int()";
      break;
    case LaunchArgs::Kind::kFloat:
      wanted = "a float, set with Float()";
      break;
  }
  const LaunchArgs::Arg* arg = args_[index];
  if (arg == nullptr) {
    return absl::InvalidArgumentError(
        absl::StrCat("missing launch argument '", names_->name(index), "' (", wanted, ")"));
  }
  if (arg->kind != kind) {
    return absl::InvalidArgumentError(
        absl::StrCat("launch argument '", names_->name(index), "' must be ", wanted));
  }
  return arg;
}

absl::StatusOr<const void*> BoundLaunchArgs::Pointer(int index) const {
  absl::StatusOr<const LaunchArgs::Arg*> arg = Require(index, LaunchArgs::Kind::kPointer);
  if (!arg.ok()) return arg.status();
  return (*arg)->pointer;
}

absl::StatusOr<int64_t> BoundLaunchArgs::Int(int index) const {
  absl::StatusOr<const LaunchArgs::Arg*> arg = Require(index, LaunchArgs::Kind::kInt);
  if (!arg.ok()) return arg.status();
  return (*arg)->integer;
}

absl::StatusOr<float> BoundLaunchArgs::Float(int index) const {
  absl::StatusOr<const LaunchArgs::Arg*> arg = Require(index, LaunchArgs::Kind::kFloat);
  if (!arg.ok()) return arg.status();
  return (*arg)->real;
}

absl::StatusOr<const void*> BoundLaunchArgs::PointerOr(int index, const void* fallback) const {
  if (!Has(index)) return fallback;
  return Pointer(index);
}

absl::StatusOr<int64_t> BoundLaunchArgs::IntOr(int index, int64_t fallback) const {
  if (!Has(index)) return fallback;
  return Int(index);
}

absl::StatusOr<float> BoundLaunchArgs::FloatOr(int index, float fallback) const {
  if (!Has(index)) return fallback;
  return Float(index);
}

}  // namespace jitk::internal
