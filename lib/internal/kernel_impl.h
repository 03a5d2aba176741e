// What a jitk::Kernel handle points at, and the steps get_kernel is made of
// (shared with the tuner, which compiles and loads candidates itself).
#ifndef JITK_LIB_INTERNAL_KERNEL_IMPL_H_
#define JITK_LIB_INTERNAL_KERNEL_IMPL_H_

#include <memory>
#include <utility>

#include "jitk/kernel.h"
#include "lib/backend/backend.h"
#include "lib/internal/launch_scratch.h"
#include "lib/kernel_template.h"

namespace jitk {

struct Kernel::Impl {
  const internal::KernelTemplate* kernel_template = nullptr;
  Shape shape;
  ConfigSource config_source = ConfigSource::kDefault;
  CompiledKernel compiled;
  DeviceInfo device;
  ArchInfo arch;
  internal::Backend* backend = nullptr;
  std::unique_ptr<internal::Module> module;
  internal::FunctionHandle function = nullptr;
  std::unique_ptr<const internal::LaunchPlanner> planner;
  std::unique_ptr<internal::LaunchScratch> scratch;  // for plans that ask for it
};

namespace internal {

// The compile request of one instance (source, embedded headers, name
// expression, options): what get_kernel and the tuner both compile.
absl::StatusOr<CompileRequest> InstanceRequest(const KernelTemplate& kernel_template,
                                               const Shape& shape, const KernelConfig& config,
                                               const Target& target, const ArchInfo& arch);

// Compiles `request` (InstanceRequest of `config`) with `backend`: one
// symbol, and where it spills registers and the template has a fallback
// (SpillFallbackOptions), the compile that spills less, its log saying so.
absl::StatusOr<CodeObject> CompileInstance(const KernelTemplate& kernel_template, Backend& backend,
                                           const CompileRequest& request,
                                           const KernelConfig& config, const Shape& shape,
                                           const ArchInfo& arch);

// The code-object cache key of `request` compiled by `compiler_id`
// ("nvrtc 13.0"): code stored by the tuner is found by get_kernel.
absl::StatusOr<std::string> CodeObjectKey(const CompileRequest& request,
                                          absl::string_view compiler_id);

// Whether CompileTemplate looks the code up in the code-object cache and
// stores what it compiles. A cached row keeps no compiler log: kBypass
// compiles now, for a caller that reads the log.
enum class CodeObjectCache { kUse, kBypass };

// Compiles `config` of `kernel_template` for `target` (no GPU needed).
// `arch` supplies the facts used by the template's constraints.
absl::StatusOr<CompiledKernel> CompileTemplate(const KernelTemplate& kernel_template,
                                               const Shape& shape, const KernelConfig& config,
                                               const Target& target, const ArchInfo& arch,
                                               CodeObjectCache code_cache = CodeObjectCache::kUse);

// The configuration get_kernel uses when none is given: tuned (cache: user
// DB, system DBs, nearest tuned shape) or the template's default.
std::pair<KernelConfig, ConfigSource> ChooseConfig(const KernelTemplate& kernel_template,
                                                   const Shape& shape, const DeviceInfo& device,
                                                   const ArchInfo& arch);

// Loads a compiled kernel on `device`; refuses code for another target.
absl::StatusOr<Kernel> LoadCompiled(const KernelTemplate& kernel_template, const Shape& shape,
                                    CompiledKernel compiled, ConfigSource source,
                                    const Device& device);

// The backend and its device ordinal behind a loaded kernel (for timing).
Backend& KernelBackend(const Kernel& kernel);

// A variable of the kernel's loaded module, for diagnostics (a template
// compiled with JITK_ATTN_TRACE writes its timeline into one).
absl::StatusOr<DeviceGlobal> KernelGlobal(const Kernel& kernel, absl::string_view name);

}  // namespace internal
}  // namespace jitk

#endif  // JITK_LIB_INTERNAL_KERNEL_IMPL_H_
