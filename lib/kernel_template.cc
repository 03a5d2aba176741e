#include "lib/kernel_template.h"

#include "absl/strings/str_cat.h"
#include "absl/strings/str_join.h"
#include "lib/internal/status_macros.h"

namespace jitk::internal {

size_t PackedArgs::AddBytes(const void* data, size_t size, size_t align) {
  size_t offset = (used_ + align - 1) / align * align;
  // Templates declare a fixed handful of arguments; overflowing is a bug in
  // a template, not bad user input.
  if (count_ >= kMaxArgs || offset + size > kMaxBytes) std::abort();
  std::memcpy(storage_ + offset, data, size);
  pointers_[count_++] = storage_ + offset;
  used_ = offset + size;
  return offset;
}

absl::Status EncodeTensorMaps(Backend& backend, LaunchPlan& plan) {
  for (const TensorMapRequest& request : plan.tensor_maps) {
    JITK_RETURN_IF_ERROR(backend.EncodeTensorMap(request, plan.args.bytes(request.offset)));
  }
  plan.tensor_maps.clear();
  return absl::OkStatus();
}

void BindScratch(LaunchPlan& plan, void* scratch) {
  for (LaunchPlan* p = &plan; p != nullptr; p = p->next.get()) {
    for (const ScratchPointer& at : p->scratch_pointers) {
      void* address = static_cast<std::byte*>(scratch) + at.scratch_offset;
      if (!at.tensor_map_base) {
        std::memcpy(p->args.bytes(at.arg_offset), &address, sizeof(address));
        continue;
      }
      for (TensorMapRequest& request : p->tensor_maps) {
        if (request.offset == at.arg_offset) request.base = address;
      }
    }
  }
}

absl::Status LaunchPlanned(Backend& backend, int device, FunctionHandle function,
                           LaunchPlan& plan, Stream stream) {
  for (LaunchPlan* p = &plan; p != nullptr; p = p->next.get()) {
    if (p->grid.x == 0 || p->grid.y == 0 || p->grid.z == 0) return absl::OkStatus();
    JITK_RETURN_IF_ERROR(EncodeTensorMaps(backend, *p));
    void** args = p->args.pointers();
    JITK_RETURN_IF_ERROR(p->dependent
                             ? backend.LaunchDependent(device, function, p->grid, p->block,
                                                       p->dynamic_shared_bytes, stream, args)
                             : backend.Launch(device, function, p->grid, p->block,
                                              p->dynamic_shared_bytes, stream, args));
  }
  return absl::OkStatus();
}

absl::StatusOr<int64_t> ConfigValue(const KernelConfig& config, absl::string_view name) {
  auto it = config.find(name);
  if (it == config.end()) {
    return absl::InvalidArgumentError(absl::StrCat(
        "config {", KernelConfigToString(config), "} has no parameter ", name));
  }
  return it->second;
}

}  // namespace jitk::internal
