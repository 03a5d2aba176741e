#include "lib/backend/hip/hip_runtime_api.h"

#include "absl/strings/str_cat.h"
#include "lib/backend/hip/vendor_library.h"
#include "lib/internal/status_macros.h"

namespace jitk::internal {

std::string HipRuntimeApi::ErrorName(hipError_t error) const {
  const char* name = hipGetErrorName != nullptr ? hipGetErrorName(error) : nullptr;
  const char* text = hipGetErrorString != nullptr ? hipGetErrorString(error) : nullptr;
  std::string out = name != nullptr ? name : absl::StrCat("hipError ", int(error));
  // HIP 5 returns the name from both calls.
  if (text != nullptr && (name == nullptr || absl::string_view(text) != name)) {
    absl::StrAppend(&out, " (", text, ")");
  }
  return out;
}

absl::Status HipRuntimeApi::Check(hipError_t error, absl::string_view what) const {
  if (error == hipSuccess) return absl::OkStatus();
  std::string message = absl::StrCat(what, ": ", ErrorName(error));
  switch (error) {
    case hipErrorOutOfMemory:
    case hipErrorLaunchOutOfResources:
      return absl::ResourceExhaustedError(message);
    case hipErrorInvalidValue:
    case hipErrorInvalidDevice:
    case hipErrorInvalidDevicePointer:
    case hipErrorInvalidConfiguration:
    case hipErrorInvalidHandle:
    case hipErrorInvalidImage:
    case hipErrorInvalidKernelFile:
      return absl::InvalidArgumentError(message);
    case hipErrorNotFound:
    case hipErrorNoDevice:
      return absl::NotFoundError(message);
    case hipErrorNoBinaryForGpu:
      return absl::FailedPreconditionError(message);
    case hipErrorStreamCaptureUnsupported:
    case hipErrorStreamCaptureInvalidated:
    case hipErrorStreamCaptureImplicit:
      return absl::FailedPreconditionError(absl::StrCat(message, kCaptureErrorHint));
    default:
      return absl::InternalError(message);
  }
}

absl::StatusOr<std::unique_ptr<HipRuntimeApi>> LoadHipRuntimeApi(
    absl::Span<const std::string> file_names) {
  auto api = std::make_unique<HipRuntimeApi>();
  JITK_ASSIGN_OR_RETURN(
      api->library,
      OpenVendorLibrary(file_names, "hipModuleLaunchKernel",
                        "apt-get install libamdhip64-5 (Debian/Ubuntu) or install ROCm"));
  const DynamicLibrary& lib = *api->library;
#define JITK_RESOLVE(fn) JITK_RETURN_IF_ERROR(lib.Resolve(#fn, api->fn))
  JITK_RESOLVE(hipGetErrorName);
  JITK_RESOLVE(hipGetErrorString);
  JITK_RESOLVE(hipGetDeviceCount);
  JITK_RESOLVE(hipSetDevice);
  JITK_RESOLVE(hipDeviceGetPCIBusId);
  JITK_RESOLVE(hipModuleLoadData);
  JITK_RESOLVE(hipModuleUnload);
  JITK_RESOLVE(hipModuleGetFunction);
  JITK_RESOLVE(hipModuleGetGlobal);
  JITK_RESOLVE(hipModuleLaunchKernel);
  JITK_RESOLVE(hipMalloc);
  JITK_RESOLVE(hipFree);
  JITK_RESOLVE(hipMemcpy);
  JITK_RESOLVE(hipMemset);
  JITK_RESOLVE(hipStreamSynchronize);
  JITK_RESOLVE(hipEventCreate);
  JITK_RESOLVE(hipEventRecord);
  JITK_RESOLVE(hipEventSynchronize);
  JITK_RESOLVE(hipEventElapsedTime);
  JITK_RESOLVE(hipEventDestroy);
#undef JITK_RESOLVE
  lib.ResolveOptional("hipThreadExchangeStreamCaptureMode",
                      api->hipThreadExchangeStreamCaptureMode);
  return api;
}

}  // namespace jitk::internal
