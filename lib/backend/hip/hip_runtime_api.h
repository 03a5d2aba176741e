// HipRuntimeApi: the HIP runtime entry points jitk uses (module API, memory,
// events), resolved from libamdhip64 at run time.
#ifndef JITK_LIB_BACKEND_HIP_HIP_RUNTIME_API_H_
#define JITK_LIB_BACKEND_HIP_HIP_RUNTIME_API_H_

// The C++ convenience overloads (template hipMalloc, ...) make decltype of
// the C entry points ambiguous.
#ifndef __HIP_DISABLE_CPP_FUNCTIONS__
#define __HIP_DISABLE_CPP_FUNCTIONS__ 1
#endif
#include <hip/hip_runtime_api.h>

#include <memory>
#include <string>

#include "absl/status/status.h"
#include "absl/status/statusor.h"
#include "absl/strings/string_view.h"
#include "absl/types/span.h"
#include "lib/backend/internal/dynamic_library.h"
#include "lib/backend/internal/stream_capture.h"

namespace jitk::internal {

struct HipRuntimeApi {
  std::unique_ptr<DynamicLibrary> library;

  decltype(&::hipGetErrorName) hipGetErrorName = nullptr;
  decltype(&::hipGetErrorString) hipGetErrorString = nullptr;
  decltype(&::hipGetDeviceCount) hipGetDeviceCount = nullptr;
  decltype(&::hipSetDevice) hipSetDevice = nullptr;
  decltype(&::hipDeviceGetPCIBusId) hipDeviceGetPCIBusId = nullptr;
  decltype(&::hipModuleLoadData) hipModuleLoadData = nullptr;
  decltype(&::hipModuleUnload) hipModuleUnload = nullptr;
  decltype(&::hipModuleGetFunction) hipModuleGetFunction = nullptr;
  decltype(&::hipModuleGetGlobal) hipModuleGetGlobal = nullptr;
  decltype(&::hipModuleLaunchKernel) hipModuleLaunchKernel = nullptr;
  decltype(&::hipMalloc) hipMalloc = nullptr;
  decltype(&::hipFree) hipFree = nullptr;
  decltype(&::hipMemcpy) hipMemcpy = nullptr;
  decltype(&::hipMemset) hipMemset = nullptr;
  decltype(&::hipStreamSynchronize) hipStreamSynchronize = nullptr;
  decltype(&::hipEventCreate) hipEventCreate = nullptr;
  decltype(&::hipEventRecord) hipEventRecord = nullptr;
  decltype(&::hipEventSynchronize) hipEventSynchronize = nullptr;
  decltype(&::hipEventElapsedTime) hipEventElapsedTime = nullptr;
  decltype(&::hipEventDestroy) hipEventDestroy = nullptr;
  // Stream capture modes (HIP 5.0+); null on older runtimes.
  decltype(&::hipThreadExchangeStreamCaptureMode) hipThreadExchangeStreamCaptureMode = nullptr;

  // "hipErrorNoDevice (no ROCm-capable device is detected)".
  std::string ErrorName(hipError_t error) const;

  // OK for hipSuccess; otherwise "<what>: <error>" with a code chosen by
  // kind: out of memory → kResourceExhausted, bad handle/value/device →
  // kInvalidArgument, missing symbol → kNotFound, image for another GPU →
  // kFailedPrecondition, no device → kNotFound, capture errors →
  // kFailedPrecondition saying what to do, the rest kInternal.
  absl::Status Check(hipError_t error, absl::string_view what) const;
};

// Relaxes this thread's capture mode while alive (stream_capture.h); construct
// with api.hipThreadExchangeStreamCaptureMode.
using HipRelaxedCaptureMode = ScopedRelaxedCaptureMode<hipStreamCaptureMode, hipError_t, hipSuccess,
                                                       hipStreamCaptureModeRelaxed>;

// kUnavailable naming the files when none loads.
absl::StatusOr<std::unique_ptr<HipRuntimeApi>> LoadHipRuntimeApi(
    absl::Span<const std::string> file_names);

}  // namespace jitk::internal

#endif  // JITK_LIB_BACKEND_HIP_HIP_RUNTIME_API_H_
