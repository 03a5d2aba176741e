// HiprtcApi: the hiprtc entry points jitk uses, resolved from the library at
// run time. Up to ROCm 5 hiprtc lives inside libamdhip64; from ROCm 6 on it
// is libhiprtc.
#ifndef JITK_LIB_BACKEND_HIP_HIPRTC_API_H_
#define JITK_LIB_BACKEND_HIP_HIPRTC_API_H_

#include <hip/hiprtc.h>

#include <memory>
#include <string>

#include "absl/status/statusor.h"
#include "absl/types/span.h"
#include "lib/backend/internal/dynamic_library.h"

namespace jitk::internal {

struct HiprtcApi {
  std::unique_ptr<DynamicLibrary> library;

  decltype(&::hiprtcGetErrorString) hiprtcGetErrorString = nullptr;
  decltype(&::hiprtcVersion) hiprtcVersion = nullptr;
  decltype(&::hiprtcCreateProgram) hiprtcCreateProgram = nullptr;
  decltype(&::hiprtcDestroyProgram) hiprtcDestroyProgram = nullptr;
  decltype(&::hiprtcAddNameExpression) hiprtcAddNameExpression = nullptr;
  decltype(&::hiprtcCompileProgram) hiprtcCompileProgram = nullptr;
  decltype(&::hiprtcGetProgramLogSize) hiprtcGetProgramLogSize = nullptr;
  decltype(&::hiprtcGetProgramLog) hiprtcGetProgramLog = nullptr;
  decltype(&::hiprtcGetCodeSize) hiprtcGetCodeSize = nullptr;
  decltype(&::hiprtcGetCode) hiprtcGetCode = nullptr;
  decltype(&::hiprtcGetLoweredName) hiprtcGetLoweredName = nullptr;

  // "HIPRTC_ERROR_COMPILATION".
  std::string ErrorName(hiprtcResult result) const;
};

// kUnavailable naming the files when none loads or exports hiprtc.
absl::StatusOr<std::unique_ptr<HiprtcApi>> LoadHiprtcApi(absl::Span<const std::string> file_names);

}  // namespace jitk::internal

#endif  // JITK_LIB_BACKEND_HIP_HIPRTC_API_H_
