// BoundLaunchArgs: a launch's arguments matched, in one pass, to the names
// a kernel template reads (LaunchArgNames), then read by position.
//
// A name the template does not read is refused with the list of those it
// does: a misspelt stride or pointer would otherwise be ignored and the
// default used. The messages for a missing argument or one of the wrong
// kind name it and the LaunchArgs setter to use.
#ifndef JITK_LIB_BOUND_LAUNCH_ARGS_H_
#define JITK_LIB_BOUND_LAUNCH_ARGS_H_

#include <array>
#include <cstdint>

#include "absl/container/flat_hash_map.h"
#include "absl/status/status.h"
#include "absl/status/statusor.h"
#include "absl/strings/string_view.h"
#include "absl/types/span.h"
#include "jitk/kernel.h"

namespace jitk::internal {

// The launch arguments of one kernel template, by position.
class LaunchArgNames {
 public:
  static constexpr size_t kMaxNames = 32;

  // `names` (string literals) outlive the table; at most kMaxNames.
  LaunchArgNames(absl::string_view kernel, absl::Span<const absl::string_view> names);

  absl::string_view kernel() const { return kernel_; }
  absl::Span<const absl::string_view> names() const { return names_; }
  absl::string_view name(int index) const { return names_[index]; }
  size_t size() const { return names_.size(); }
  // The position of `name`, or -1.
  int Find(absl::string_view name) const;

 private:
  absl::string_view kernel_;
  absl::Span<const absl::string_view> names_;
  absl::flat_hash_map<absl::string_view, int> positions_;
};

class BoundLaunchArgs {
 public:
  // kInvalidArgument naming an argument `names` lacks.
  absl::Status Bind(const LaunchArgNames& names, const LaunchArgs& args);

  bool Has(int index) const { return args_[index] != nullptr; }
  // Required arguments: kInvalidArgument when missing or of another kind.
  absl::StatusOr<const void*> Pointer(int index) const;
  absl::StatusOr<int64_t> Int(int index) const;
  absl::StatusOr<float> Float(int index) const;
  // Optional ones: the fallback when absent, an error when of another kind.
  absl::StatusOr<const void*> PointerOr(int index, const void* fallback) const;
  absl::StatusOr<int64_t> IntOr(int index, int64_t fallback) const;
  absl::StatusOr<float> FloatOr(int index, float fallback) const;

 private:
  absl::StatusOr<const LaunchArgs::Arg*> Require(int index, LaunchArgs::Kind kind) const;

  const LaunchArgNames* names_ = nullptr;
  std::array<const LaunchArgs::Arg*, LaunchArgNames::kMaxNames> args_{};
};

}  // namespace jitk::internal

#endif  // JITK_LIB_BOUND_LAUNCH_ARGS_H_
