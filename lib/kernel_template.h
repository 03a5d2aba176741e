// KernelTemplate: what jitk needs to know about one kernel template.
//
// Each built-in kernel (scaled_add, sparse_attn) implements this once: its
// source file in kernel_templates/, the shape it accepts, its tunable
// parameters with constraints and per-architecture defaults, how a config
// becomes a C++ name expression, and how launch arguments become a grid and
// a packed argument list (a LaunchPlanner, made once per loaded kernel).
// The core, tuner and tools see kernels only through this interface.
#ifndef JITK_LIB_KERNEL_TEMPLATE_H_
#define JITK_LIB_KERNEL_TEMPLATE_H_

#include <cstddef>
#include <cstdint>
#include <cstring>
#include <memory>
#include <string>
#include <vector>

#include "absl/container/inlined_vector.h"
#include "absl/status/status.h"
#include "absl/status/statusor.h"
#include "absl/strings/string_view.h"
#include "absl/types/span.h"
#include "jitk/arch.h"
#include "jitk/kernel.h"
#include "jitk/shape.h"
#include "lib/backend/backend.h"
#include "lib/bound_launch_args.h"
#include "lib/internal/status_macros.h"

namespace jitk::internal {

struct TunableParam {
  std::string name;             // "BLOCK"
  std::vector<int64_t> values;  // candidates, in increasing order
};

// Kernel arguments laid out for a launch: values in one inline buffer, so a
// launch allocates nothing.
class PackedArgs {
 public:
  static constexpr size_t kMaxArgs = 24;
  static constexpr size_t kMaxBytes = 1024;

  // Returns where the value starts in the buffer (for TensorMapRequest).
  template <typename T>
  size_t Add(const T& value) {
    static_assert(std::is_trivially_copyable_v<T>, "kernel arguments are copied as bytes");
    return AddBytes(&value, sizeof(T), alignof(T));
  }
  size_t AddBytes(const void* data, size_t size, size_t align);

  void Clear() { count_ = used_ = 0; }
  void** pointers() { return pointers_; }
  void* const* pointers() const { return pointers_; }
  size_t count() const { return count_; }
  std::byte* bytes(size_t offset) { return storage_ + offset; }

 private:
  alignas(64) std::byte storage_[kMaxBytes];
  void* pointers_[kMaxArgs];
  size_t count_ = 0;
  size_t used_ = 0;
};

// Where the address of a launch's scratch memory goes: byte `scratch_offset`
// of the scratch, written as a pointer at byte `arg_offset` of the
// arguments, or, tensor_map_base, as the base of the plan's tensor map
// encoded there (TensorMapRequest::offset == arg_offset).
struct ScratchPointer {
  size_t arg_offset;
  size_t scratch_offset;
  bool tensor_map_base = false;
};

struct LaunchPlan {
  Dim3 grid;
  Dim3 block;
  uint32_t dynamic_shared_bytes = 0;
  PackedArgs args;
  // Descriptors the backend encodes into `args` just before the launch
  // (sparse_attn's warp-specialized engine: q, k, v and o).
  absl::InlinedVector<TensorMapRequest, 4> tensor_maps;
  // Device memory the launch needs for itself, 0 when none (sparse_attn's
  // partial results of a key-range split), and where its addresses go in
  // this plan's arguments.
  size_t scratch_bytes = 0;
  absl::InlinedVector<ScratchPointer, 2> scratch_pointers;
  // A launch of the same function that follows this one on its stream and
  // reads what it wrote (the split's combine pass), sharing its scratch.
  std::unique_ptr<LaunchPlan> next;
  // Whether this launch's kernel waits for the stream's previous kernel
  // itself (griddepcontrol.wait), so that it may start while that one ends
  // (Backend::LaunchDependent).
  bool dependent = false;
};

// Writes the addresses in `scratch` (at least plan.scratch_bytes) into the
// arguments and tensor maps of the plan and of its next launches; before
// EncodeTensorMaps.
void BindScratch(LaunchPlan& plan, void* scratch);
// Encodes the plan's tensor maps into its arguments, once: the requests are
// dropped, so a plan launched many times is encoded only the first time.
absl::Status EncodeTensorMaps(Backend& backend, LaunchPlan& plan);
// EncodeTensorMaps, then the launch and its next ones (nothing for an empty
// grid), the scratch, if any, bound before.
absl::Status LaunchPlanned(Backend& backend, int device, FunctionHandle function,
                           LaunchPlan& plan, Stream stream);

// Turns one kernel's launch arguments into launch plans. What depends only
// on the kernel's config, shape and arch (grid, block, shared memory, the
// defaults of optional arguments) is worked out when the planner is made,
// once per loaded kernel, so a launch reads no config or shape by name.
class LaunchPlanner {
 public:
  explicit LaunchPlanner(const LaunchArgNames& names) : names_(names) {}
  virtual ~LaunchPlanner() = default;

  // Checks `args` and fills grid, block, packed arguments and tensor maps
  // (replacing what `plan` held). kInvalidArgument naming the bad argument.
  absl::Status Plan(const LaunchArgs& args, LaunchPlan& plan) const {
    plan.args.Clear();
    plan.tensor_maps.clear();
    plan.scratch_bytes = 0;
    plan.scratch_pointers.clear();
    plan.next.reset();
    plan.dependent = false;
    BoundLaunchArgs bound;
    JITK_RETURN_IF_ERROR(bound.Bind(names_, args));
    return Fill(bound, plan);
  }

 protected:
  // Plan's work, on a plan without arguments or tensor maps, with the
  // arguments bound to the template's LaunchArguments() positions.
  virtual absl::Status Fill(const BoundLaunchArgs& args, LaunchPlan& plan) const = 0;

 private:
  const LaunchArgNames& names_;
};

class KernelTemplate {
 public:
  virtual ~KernelTemplate() = default;

  virtual absl::string_view name() const = 0;
  virtual absl::string_view description() const = 0;
  // File in kernel_templates/ that defines the kernel, e.g. "scaled_add.h".
  virtual absl::string_view source_file() const = 0;

  // kInvalidArgument naming the bad or missing dimension.
  virtual absl::Status ValidateShape(const Shape& shape) const = 0;

  // Tunable parameters with candidate values for `arch`.
  virtual std::vector<TunableParam> SearchSpace(const Shape& shape,
                                                const ArchInfo& arch) const = 0;
  // kInvalidArgument naming the parameter or constraint that fails.
  virtual absl::Status ValidateConfig(const KernelConfig& config, const Shape& shape,
                                      const ArchInfo& arch) const = 0;
  // The untuned choice for `arch` (must pass ValidateConfig).
  virtual KernelConfig DefaultConfig(const Shape& shape, const ArchInfo& arch) const = 0;

  // C++ name expression to instantiate, e.g. "jitk::scaled_add<256, 4, 4, float>".
  virtual absl::StatusOr<std::string> NameExpression(const KernelConfig& config,
                                                     const Shape& shape,
                                                     const ArchInfo& arch) const = 0;
  // Extra backend-neutral compile options ("-DJITK_FOO=1"); usually none.
  virtual std::vector<std::string> CompileOptions(const KernelConfig& config, const Shape& shape,
                                                  const ArchInfo& arch) const {
    return {};
  }
  // Options added for a second compile when the first spills registers: a
  // variant that needs fewer, for register budgets a template asks of the
  // compiler by a rule fitted to one compiler version that another exceeds.
  // The compile that spills less is kept. Empty (usually): no second compile.
  virtual std::vector<std::string> SpillFallbackOptions(const KernelConfig& config,
                                                        const Shape& shape,
                                                        const ArchInfo& arch) const {
    return {};
  }

  // Shape dimensions that are categories, not sizes ("layout", "d"): a tuned
  // configuration is borrowed from a neighbouring shape only when these match.
  virtual std::vector<std::string> ExactDims() const { return {}; }

  // The launch arguments the kernel reads; a launch naming another fails.
  virtual const LaunchArgNames& LaunchArguments() const = 0;

  // The planner of `config`'s launches: one ValidateConfig accepted for
  // `shape` and `arch` (CompileTemplate checks it once; a launch does not
  // again). kInvalidArgument when the config lacks a parameter.
  virtual absl::StatusOr<std::unique_ptr<const LaunchPlanner>> NewLaunchPlanner(
      const KernelConfig& config, const Shape& shape, const ArchInfo& arch) const = 0;

  // One launch's plan, for callers that plan once (the tuner, tools, tests):
  // a planner made for it, then LaunchPlanner::Plan.
  absl::Status PlanLaunch(const KernelConfig& config, const Shape& shape, const ArchInfo& arch,
                          const LaunchArgs& args, LaunchPlan& plan) const {
    JITK_ASSIGN_OR_RETURN(std::unique_ptr<const LaunchPlanner> planner,
                          NewLaunchPlanner(config, shape, arch));
    return planner->Plan(args, plan);
  }
};

// The built-in templates, in a fixed order.
absl::Span<const KernelTemplate* const> KernelTemplates();

// kInvalidArgument listing the known kernels when `name` is not one.
absl::StatusOr<const KernelTemplate*> FindKernelTemplate(absl::string_view name);

// Value of a config parameter (kInvalidArgument when absent).
absl::StatusOr<int64_t> ConfigValue(const KernelConfig& config, absl::string_view name);

}  // namespace jitk::internal

#endif  // JITK_LIB_KERNEL_TEMPLATE_H_
