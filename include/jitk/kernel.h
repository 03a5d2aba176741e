// jitk/kernel.h — get a kernel for a shape, launch it.
//
// get_kernel() instantiates a kernel template for the detected GPU with the
// best configuration known for the shape (tuned, cached, or the built-in
// default), compiles it (or reloads the cached code object) and loads it.
// compile_kernel() does the compile step alone for any architecture, with no
// GPU, and reports the resources the code object needs.
//
// Example:
//   jitk::Shape shape = jitk::Shape(jitk::DType::kF32).Set("n", n);
//   absl::StatusOr<jitk::Kernel> k = jitk::get_kernel("scaled_add", shape);
//   if (!k.ok()) return k.status();
//   return k->Launch(jitk::LaunchArgs()
//                        .Ptr("out", out).Ptr("x", x).Ptr("y", y)
//                        .Int("n", n).Float("scale", 0.5f));
#ifndef JITK_KERNEL_H_
#define JITK_KERNEL_H_

#include <cstdint>
#include <map>
#include <memory>
#include <optional>
#include <string>
#include "absl/strings/string_view.h"
#include <vector>

#include "absl/status/statusor.h"
#include "jitk/device.h"
#include "jitk/shape.h"

namespace jitk {

// Values of a template's tunable parameters, e.g. {BLOCK: 256, EPT: 4, VEC: 4}.
using KernelConfig = std::map<std::string, int64_t, std::less<>>;

// "BLOCK=256,EPT=4,VEC=4"; ParseKernelConfig is its inverse.
std::string KernelConfigToString(const KernelConfig& config);
absl::StatusOr<KernelConfig> ParseKernelConfig(absl::string_view text);

// What a compiled kernel needs from the hardware (per thread unless noted).
struct ResourceUsage {
  int registers = 0;         // VGPRs (AMD; gfx908: the larger of VGPRs and AGPRs) / registers
  int scalar_registers = 0;  // SGPRs (AMD only)
  int accum_registers = 0;   // AGPRs (AMD CDNA only; from gfx90a on, in the VGPRs' file)
  int lds_bytes = 0;         // static LDS / shared memory per block
  int scratch_bytes = 0;     // private segment / stack frame per thread
  int spills = 0;            // spilled registers (AMD) / spill bytes (NVIDIA)
  int wave_size = 0;
  int max_threads_per_block = 0;
};

// Kernel arguments by name; the kernel checks names and kinds at launch
// (a name it does not take is an error, not ignored).
class LaunchArgs {
 public:
  enum class Kind { kPointer, kInt, kFloat };
  struct Arg {
    std::string name;
    Kind kind;
    const void* pointer = nullptr;
    int64_t integer = 0;
    float real = 0;
  };

  LaunchArgs& Ptr(absl::string_view name, const void* device_pointer);
  LaunchArgs& Int(absl::string_view name, int64_t value);
  LaunchArgs& Float(absl::string_view name, float value);
  // Room for `count` arguments, so a large set builds without regrowing.
  void Reserve(size_t count) { args_.reserve(count); }

  // nullptr when absent.
  const Arg* Find(absl::string_view name) const;
  const std::vector<Arg>& args() const { return args_; }

 private:
  std::vector<Arg> args_;
};

// Where a kernel's configuration came from.
enum class ConfigSource {
  kExplicit,      // GetKernelOptions::config
  kMemo,          // a tuned row this process already read
  kUserDb,        // the user cache DB
  kSystemDb,      // a shipped DB
  kNearestTuned,  // the nearest tuned shape of the same kernel and dtype
  kTunedNow,      // tuned during this call (JITK_TUNE=lazy|force)
  kDefault,       // the template's built-in default
};
absl::string_view ConfigSourceName(ConfigSource source);

struct GetKernelOptions {
  int device = 0;                        // ordinal in DiscoverDevices()
  std::optional<KernelConfig> config;    // skip lookup, use exactly this
};

struct CompileOptions {
  std::string arch;                      // "gfx90a", "gfx942:sramecc+:xnack-", "sm_90"
  std::optional<KernelConfig> config;    // default: the template's default for `arch`
};

// A compiled, not loaded, kernel: portable bytes plus what the compiler said.
struct CompiledKernel {
  std::string kernel;         // template name, "scaled_add"
  std::string symbol;         // lowered (mangled) name in the code object
  std::string name_expression;
  KernelConfig config;
  std::string target;         // ISA the code object is for
  std::string code_object;    // bytes (AMD HSA code object / CUDA cubin)
  ResourceUsage resources;
  std::string compiler;       // "hiprtc 5.2.21153", "nvrtc 13.0"
  std::string log;            // the compiler's output; empty when the code came from the cache
  double compile_ms = 0;
};

// A loaded kernel. Cheap to copy; Launch is thread-safe.
class Kernel {
 public:
  const std::string& name() const;
  const KernelConfig& config() const;
  ConfigSource config_source() const;
  const CompiledKernel& compiled() const;
  const DeviceInfo& device() const;

  // Enqueues the kernel on `stream` (asynchronous). kInvalidArgument when an
  // argument is missing, unknown to the kernel, of the wrong kind, or out of
  // range for the shape.
  absl::Status Launch(const LaunchArgs& args, Stream stream = nullptr) const;

  struct Impl;
  explicit Kernel(std::shared_ptr<const Impl> impl) : impl_(std::move(impl)) {}
  const std::shared_ptr<const Impl>& impl() const { return impl_; }

 private:
  std::shared_ptr<const Impl> impl_;
};

// Names of the built-in kernel templates.
std::vector<std::string> KernelNames();

// Looks up, compiles (or reuses) and loads `name` for `shape` on a device.
// Errors: unknown kernel or bad shape → kInvalidArgument; no GPU →
// kNotFound; code object for another arch → kFailedPrecondition.
absl::StatusOr<Kernel> get_kernel(absl::string_view name, const Shape& shape,
                                  const GetKernelOptions& options = {});

// Compiles `name` for `options.arch` without a GPU.
absl::StatusOr<CompiledKernel> compile_kernel(absl::string_view name, const Shape& shape,
                                              const CompileOptions& options);

}  // namespace jitk

#endif  // JITK_KERNEL_H_
