// The hook through which get_kernel tunes on a miss (JITK_TUNE=lazy|force).
//
// The tuner sits above the core, so the core only knows this function type;
// jitk::EnableInLibraryTuning() (tuner/) installs the real one.
#ifndef JITK_LIB_INTERNAL_MISS_TUNER_H_
#define JITK_LIB_INTERNAL_MISS_TUNER_H_

#include <functional>
#include <memory>
#include <optional>

#include "absl/status/statusor.h"
#include "absl/strings/string_view.h"
#include "jitk/device.h"
#include "jitk/kernel.h"
#include "jitk/shape.h"

namespace jitk::internal {

// Called once per (device, kernel, shape) per process, on get_kernel's slow
// path without an explicit config. `have_tuned` says whether the cache
// already had a tuned configuration. nullopt: keep what get_kernel chose.
using MissTuner = std::function<absl::StatusOr<std::optional<KernelConfig>>(
    const Device& device, absl::string_view kernel, const Shape& shape, bool have_tuned)>;

// Thread-safe; replaces any earlier hook.
void SetMissTuner(MissTuner tuner);

// The installed hook, or nullptr.
std::shared_ptr<const MissTuner> GetMissTuner();

}  // namespace jitk::internal

#endif  // JITK_LIB_INTERNAL_MISS_TUNER_H_
