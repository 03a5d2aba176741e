// tuner/in_library.h — tuning from inside an application (JITK_TUNE).
//
// get_kernel normally uses a stored tuning row or the template's default.
// JITK_TUNE changes what happens on a miss:
//   off    (default) never tune in the library; the DB or the default decides
//   lazy   tune once on a miss (on the device at hand), persist the winner in
//          the user cache, use it from then on
//   force  re-tune once per process even when a row exists, and persist
// TuneOnDevice is what get_kernel calls; it is thread-safe and tunes each
// (device, kernel, shape) once per process: concurrent callers for the same
// key wait for the first and share its result (failures included), and
// tuning runs on one device are serialized so their timings do not disturb
// each other.
//
// Example (in get_kernel, after a cache miss):
//   if (jitk::tuner::TuneModeFromEnv() != jitk::tuner::TuneMode::kOff) {
//     absl::StatusOr<jitk::tuner::TuneResult> tuned =
//         jitk::tuner::TuneOnDevice(device, name, shape, jitk::tuner::InLibraryTuneOptions());
//     if (tuned.ok() && tuned->best) config = tuned->best->config;
//   }
#ifndef JITK_TUNER_IN_LIBRARY_H_
#define JITK_TUNER_IN_LIBRARY_H_

#include <optional>

#include "absl/status/statusor.h"
#include "absl/strings/string_view.h"
#include "jitk/device.h"
#include "jitk/kernel.h"
#include "jitk/shape.h"
#include "tuner/tuner.h"

namespace jitk::tuner {

enum class TuneMode { kOff, kLazy, kForce };

// "off", "lazy", "force".
absl::string_view TuneModeName(TuneMode mode);
// Inverse of TuneModeName (also "0"/"1" for off/lazy); kInvalidArgument
// listing the values.
absl::StatusOr<TuneMode> ParseTuneMode(absl::string_view text);

// JITK_TUNE, read on every call (cheap). Unset or empty: off. A bad value is
// reported once on stderr and means off.
TuneMode TuneModeFromEnv();

// Options for in-library runs in `mode`: the guided strategy, a 60 s
// wall-time budget, the process-wide cache as the store (resume = true for
// lazy: a stored winner is used without tuning).
TuneOptions InLibraryTuneOptions(TuneMode mode = TuneModeFromEnv());

// Tunes `kernel` for `shape` on `device` once per process (see above).
// `options` is used by the first caller of a key only.
absl::StatusOr<TuneResult> TuneOnDevice(const Device& device, absl::string_view kernel,
                                        const Shape& shape, const TuneOptions& options);

// What get_kernel should use on a miss under JITK_TUNE: nullopt when the
// mode is off or tuning found no valid configuration; the tuned (or stored)
// winner otherwise. Errors of the tuner are returned.
absl::StatusOr<std::optional<KernelConfig>> TunedConfigForMiss(const Device& device,
                                                               absl::string_view kernel,
                                                               const Shape& shape);

// Forgets what TuneOnDevice memoized (tests).
void ResetInLibraryTuning();

}  // namespace jitk::tuner

#endif  // JITK_TUNER_IN_LIBRARY_H_
