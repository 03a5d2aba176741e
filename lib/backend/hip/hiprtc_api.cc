#include "lib/backend/hip/hiprtc_api.h"

#include "absl/strings/str_cat.h"
#include "lib/backend/hip/vendor_library.h"
#include "lib/internal/status_macros.h"

namespace jitk::internal {

std::string HiprtcApi::ErrorName(hiprtcResult result) const {
  const char* text = hiprtcGetErrorString != nullptr ? hiprtcGetErrorString(result) : nullptr;
  return text != nullptr ? std::string(text) : absl::StrCat("hiprtc error ", int(result));
}

absl::StatusOr<std::unique_ptr<HiprtcApi>> LoadHiprtcApi(absl::Span<const std::string> file_names) {
  auto api = std::make_unique<HiprtcApi>();
  JITK_ASSIGN_OR_RETURN(
      api->library,
      OpenVendorLibrary(file_names, "hiprtcCreateProgram",
                        "hiprtc is part of libamdhip64 up to ROCm 5 (apt-get install "
                        "libamdhip64-5) and libhiprtc from ROCm 6 on; or install ROCm"));
  const DynamicLibrary& lib = *api->library;
#define JITK_RESOLVE(fn) JITK_RETURN_IF_ERROR(lib.Resolve(#fn, api->fn))
  JITK_RESOLVE(hiprtcGetErrorString);
  JITK_RESOLVE(hiprtcVersion);
  JITK_RESOLVE(hiprtcCreateProgram);
  JITK_RESOLVE(hiprtcDestroyProgram);
  JITK_RESOLVE(hiprtcAddNameExpression);
  JITK_RESOLVE(hiprtcCompileProgram);
  JITK_RESOLVE(hiprtcGetProgramLogSize);
  JITK_RESOLVE(hiprtcGetProgramLog);
  JITK_RESOLVE(hiprtcGetCodeSize);
  JITK_RESOLVE(hiprtcGetCode);
  JITK_RESOLVE(hiprtcGetLoweredName);
#undef JITK_RESOLVE
  return api;
}

}  // namespace jitk::internal
