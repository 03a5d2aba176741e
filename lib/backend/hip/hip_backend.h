// The HIP backend: hiprtc + comgr compile, HSA describes the GPUs, the HIP
// module API loads, launches and times.
//
// Nothing is linked: each ROCm library is opened on first use, so a binary
// with this backend starts on machines without ROCm, and every problem (a
// missing library, no GPU, a driver that is not loaded) is a status or a line
// in Report(), never a crash.
//
// Status codes beyond backend.h: Devices() is kUnavailable when libamdhip64
// cannot be loaded and empty (with the reason in Report().runtime_status)
// when it loads but finds no GPU; device calls are then kNotFound, and an
// ordinal past the last device is kInvalidArgument.
//
// Example:
//   std::unique_ptr<Backend> hip = NewHipBackend();
//   BackendReport report = hip->Report();
//   printf("%s: %s\n", report.compiler_version.c_str(), report.runtime_status.c_str());
#ifndef JITK_LIB_BACKEND_HIP_HIP_BACKEND_H_
#define JITK_LIB_BACKEND_HIP_HIP_BACKEND_H_

#include <memory>
#include <string>
#include <vector>

#include "lib/backend/backend.h"

namespace jitk::internal {

// File names to try for each library, in order (the dynamic loader's search
// path, then /opt/rocm/lib). A library the process already has open is
// preferred over the order.
struct HipLibraryNames {
  std::vector<std::string> hip = {"libamdhip64.so.7", "libamdhip64.so.6", "libamdhip64.so.5",
                                  "libamdhip64.so"};
  // hiprtc is inside libamdhip64 up to ROCm 5, its own library from ROCm 6.
  std::vector<std::string> hiprtc = {"libhiprtc.so.7", "libhiprtc.so.6", "libhiprtc.so",
                                     "libamdhip64.so.5", "libamdhip64.so"};
  std::vector<std::string> comgr = {"libamd_comgr.so.3", "libamd_comgr.so.2", "libamd_comgr.so"};
  std::vector<std::string> hsa = {"libhsa-runtime64.so.1", "libhsa-runtime64.so"};
};

// Never fails; problems surface as statuses from the methods.
std::unique_ptr<Backend> NewHipBackend(HipLibraryNames names = {});

}  // namespace jitk::internal

#endif  // JITK_LIB_BACKEND_HIP_HIP_BACKEND_H_
