#include "jitk/kernel.h"

namespace jitk {

// Later settings of the same name replace earlier ones, so argument sets can
// be built once and patched per launch.
static LaunchArgs::Arg& Slot(std::vector<LaunchArgs::Arg>& args, absl::string_view name) {
  for (LaunchArgs::Arg& arg : args) {
    if (arg.name == name) return arg;
  }
  args.push_back(LaunchArgs::Arg{std::string(name), LaunchArgs::Kind::kInt});
  return args.back();
}

LaunchArgs& LaunchArgs::Ptr(absl::string_view name, const void* device_pointer) {
  Arg& arg = Slot(args_, name);
  arg.kind = Kind::kPointer;
  arg.pointer = device_pointer;
  return *this;
}

LaunchArgs& LaunchArgs::Int(absl::string_view name, int64_t value) {
  Arg& arg = Slot(args_, name);
  arg.kind = Kind::kInt;
  arg.integer = value;
  return *this;
}

LaunchArgs& LaunchArgs::Float(absl::string_view name, float value) {
  Arg& arg = Slot(args_, name);
  arg.kind = Kind::kFloat;
  arg.real = value;
  return *this;
}

const LaunchArgs::Arg* LaunchArgs::Find(absl::string_view name) const {
  for (const Arg& arg : args_) {
    if (arg.name == name) return &arg;
  }
  return nullptr;
}

}  // namespace jitk
