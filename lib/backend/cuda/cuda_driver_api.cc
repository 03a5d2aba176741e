#include "lib/backend/cuda/cuda_driver_api.h"

#include "absl/strings/str_cat.h"
#include "absl/strings/string_view.h"
#include "lib/internal/status_macros.h"

namespace jitk::internal {
namespace {

bool IsCaptureError(CUresult result) {
  return result == CUDA_ERROR_STREAM_CAPTURE_UNSUPPORTED ||
         result == CUDA_ERROR_STREAM_CAPTURE_INVALIDATED ||
         result == CUDA_ERROR_STREAM_CAPTURE_IMPLICIT;
}

absl::StatusCode CodeFor(CUresult result) {
  if (IsCaptureError(result)) return absl::StatusCode::kFailedPrecondition;
  switch (result) {
    case CUDA_ERROR_OUT_OF_MEMORY:
    case CUDA_ERROR_LAUNCH_OUT_OF_RESOURCES:
      return absl::StatusCode::kResourceExhausted;
    case CUDA_ERROR_INVALID_VALUE:
    case CUDA_ERROR_INVALID_HANDLE:
    case CUDA_ERROR_INVALID_IMAGE:
    case CUDA_ERROR_INVALID_DEVICE:
    case CUDA_ERROR_INVALID_PTX:
      return absl::StatusCode::kInvalidArgument;
    case CUDA_ERROR_NOT_FOUND:
      return absl::StatusCode::kNotFound;
    case CUDA_ERROR_NO_BINARY_FOR_GPU:
    case CUDA_ERROR_UNSUPPORTED_PTX_VERSION:
    case CUDA_ERROR_INVALID_CONTEXT:
      return absl::StatusCode::kFailedPrecondition;
    case CUDA_ERROR_NOT_INITIALIZED:
    case CUDA_ERROR_DEINITIALIZED:
    case CUDA_ERROR_NO_DEVICE:
    case CUDA_ERROR_STUB_LIBRARY:
    case CUDA_ERROR_CALL_REQUIRES_NEWER_DRIVER:
    case CUDA_ERROR_SYSTEM_DRIVER_MISMATCH:
    case CUDA_ERROR_COMPAT_NOT_SUPPORTED_ON_DEVICE:
    case CUDA_ERROR_DEVICE_UNAVAILABLE:
    case CUDA_ERROR_SYSTEM_NOT_READY:
      return absl::StatusCode::kUnavailable;
    default:
      // Launch failures, illegal addresses and the like: the context is
      // broken and nothing the caller passed can fix it.
      return absl::StatusCode::kInternal;
  }
}

// For drivers that cannot name their own errors (the link stub cannot).
const char* FallbackName(CUresult result) {
  switch (result) {
#define JITK_CUDA_ERROR_NAME_(code) \
  case code:                        \
    return #code;
    JITK_CUDA_ERROR_NAME_(CUDA_ERROR_INVALID_VALUE)
    JITK_CUDA_ERROR_NAME_(CUDA_ERROR_OUT_OF_MEMORY)
    JITK_CUDA_ERROR_NAME_(CUDA_ERROR_NOT_INITIALIZED)
    JITK_CUDA_ERROR_NAME_(CUDA_ERROR_DEINITIALIZED)
    JITK_CUDA_ERROR_NAME_(CUDA_ERROR_STUB_LIBRARY)
    JITK_CUDA_ERROR_NAME_(CUDA_ERROR_DEVICE_UNAVAILABLE)
    JITK_CUDA_ERROR_NAME_(CUDA_ERROR_NO_DEVICE)
    JITK_CUDA_ERROR_NAME_(CUDA_ERROR_INVALID_DEVICE)
    JITK_CUDA_ERROR_NAME_(CUDA_ERROR_INVALID_IMAGE)
    JITK_CUDA_ERROR_NAME_(CUDA_ERROR_INVALID_CONTEXT)
    JITK_CUDA_ERROR_NAME_(CUDA_ERROR_NO_BINARY_FOR_GPU)
    JITK_CUDA_ERROR_NAME_(CUDA_ERROR_INVALID_PTX)
    JITK_CUDA_ERROR_NAME_(CUDA_ERROR_UNSUPPORTED_PTX_VERSION)
    JITK_CUDA_ERROR_NAME_(CUDA_ERROR_INVALID_HANDLE)
    JITK_CUDA_ERROR_NAME_(CUDA_ERROR_NOT_FOUND)
    JITK_CUDA_ERROR_NAME_(CUDA_ERROR_ILLEGAL_ADDRESS)
    JITK_CUDA_ERROR_NAME_(CUDA_ERROR_LAUNCH_OUT_OF_RESOURCES)
    JITK_CUDA_ERROR_NAME_(CUDA_ERROR_LAUNCH_FAILED)
    JITK_CUDA_ERROR_NAME_(CUDA_ERROR_CALL_REQUIRES_NEWER_DRIVER)
    JITK_CUDA_ERROR_NAME_(CUDA_ERROR_SYSTEM_NOT_READY)
    JITK_CUDA_ERROR_NAME_(CUDA_ERROR_SYSTEM_DRIVER_MISMATCH)
    JITK_CUDA_ERROR_NAME_(CUDA_ERROR_COMPAT_NOT_SUPPORTED_ON_DEVICE)
    JITK_CUDA_ERROR_NAME_(CUDA_ERROR_STREAM_CAPTURE_UNSUPPORTED)
    JITK_CUDA_ERROR_NAME_(CUDA_ERROR_STREAM_CAPTURE_INVALIDATED)
    JITK_CUDA_ERROR_NAME_(CUDA_ERROR_STREAM_CAPTURE_IMPLICIT)
#undef JITK_CUDA_ERROR_NAME_
    default:
      return nullptr;
  }
}

}  // namespace

absl::StatusOr<std::unique_ptr<CudaDriverApi>> LoadCudaDriverApi(
    absl::Span<const std::string> file_names) {
  auto api = std::make_unique<CudaDriverApi>();
  JITK_ASSIGN_OR_RETURN(
      api->library,
      DynamicLibrary::Open(file_names,
                           "the CUDA driver library comes with the NVIDIA driver, not with the "
                           "CUDA toolkit (whose stubs/libcuda.so only links); install the NVIDIA "
                           "driver to run on an NVIDIA GPU"));
#define JITK_CUDA_RESOLVE_(name) JITK_RETURN_IF_ERROR(api->library->Resolve(#name, api->name));
  JITK_CUDA_DRIVER_FUNCTIONS(JITK_CUDA_RESOLVE_)
#undef JITK_CUDA_RESOLVE_
  api->library->ResolveOptional("cuTensorMapEncodeTiled", api->cuTensorMapEncodeTiled);
  api->library->ResolveOptional("cuEventElapsedTime_v2", api->cuEventElapsedTime_v2);
  api->library->ResolveOptional("cuLaunchKernelEx", api->cuLaunchKernelEx);
  api->library->ResolveOptional("cuThreadExchangeStreamCaptureMode",
                                api->cuThreadExchangeStreamCaptureMode);
  if (api->cuEventElapsedTime_v2 == nullptr) {
    JITK_RETURN_IF_ERROR(api->library->Resolve("cuEventElapsedTime", api->cuEventElapsedTime_v2));
  }
  return api;
}

absl::Status CudaError(const CudaDriverApi& api, CUresult result, absl::string_view what) {
  const char* name = nullptr;
  const char* description = nullptr;
  if (api.cuGetErrorName(result, &name) != CUDA_SUCCESS || name == nullptr) {
    name = FallbackName(result);
  }
  if (api.cuGetErrorString(result, &description) != CUDA_SUCCESS) description = nullptr;
  if (result == CUDA_ERROR_STUB_LIBRARY) {
    description = "this libcuda is the CUDA toolkit's link stub, not the NVIDIA driver";
  }
  std::string text =
      name != nullptr ? std::string(name) : absl::StrCat("CUresult ", static_cast<int>(result));
  if (description != nullptr) absl::StrAppend(&text, " (", description, ")");
  if (IsCaptureError(result)) absl::StrAppend(&text, kCaptureErrorHint);
  return absl::Status(CodeFor(result), absl::StrCat(what, ": ", text));
}

}  // namespace jitk::internal
