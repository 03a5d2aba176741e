// CudaDriverApi: the CUDA driver (libcuda) opened at run time, one typed
// pointer per entry point.
//
// cuda.h #defines many names to versioned symbols (cuMemAlloc -> cuMemAlloc_v2,
// cuCtxDestroy -> cuCtxDestroy_v2, cuEventElapsedTime -> cuEventElapsedTime_v2).
// The library still exports the old names with their old ABI, so the table
// lists the versioned names explicitly: each member is named after, and
// resolved by, the exact symbol whose signature its type comes from.
#ifndef JITK_LIB_BACKEND_CUDA_CUDA_DRIVER_API_H_
#define JITK_LIB_BACKEND_CUDA_CUDA_DRIVER_API_H_

#include <cuda.h>

#include <memory>
#include <string>

#include "absl/status/status.h"
#include "absl/status/statusor.h"
#include "absl/strings/string_view.h"
#include "absl/types/span.h"
#include "lib/backend/internal/dynamic_library.h"
#include "lib/backend/internal/stream_capture.h"

namespace jitk::internal {

// Every entry point jitk uses. Write the versioned name where cuda.h has a
// #define for the plain one: X(cuMemAlloc) would take cuMemAlloc_v2's type
// but resolve the 32-bit "cuMemAlloc".
#define JITK_CUDA_DRIVER_FUNCTIONS(X) \
  X(cuGetErrorName)                   \
  X(cuGetErrorString)                 \
  X(cuInit)                           \
  X(cuDriverGetVersion)               \
  X(cuDeviceGetCount)                 \
  X(cuDeviceGet)                      \
  X(cuDeviceGetName)                  \
  X(cuDeviceGetAttribute)             \
  X(cuDeviceTotalMem_v2)              \
  X(cuDevicePrimaryCtxRetain)         \
  X(cuDevicePrimaryCtxRelease_v2)     \
  X(cuCtxSetCurrent)                  \
  X(cuModuleLoadData)                 \
  X(cuModuleUnload)                   \
  X(cuModuleGetFunction)              \
  X(cuModuleGetGlobal_v2)             \
  X(cuFuncGetAttribute)               \
  X(cuFuncSetAttribute)               \
  X(cuLaunchKernel)                   \
  X(cuMemAlloc_v2)                    \
  X(cuMemFree_v2)                     \
  X(cuMemcpyHtoD_v2)                  \
  X(cuMemcpyDtoH_v2)                  \
  X(cuMemsetD8_v2)                    \
  X(cuStreamSynchronize)              \
  X(cuEventCreate)                    \
  X(cuEventRecord)                    \
  X(cuEventSynchronize)               \
  X(cuEventDestroy_v2)

struct CudaDriverApi {
#define JITK_CUDA_DECLARE_(name) decltype(&::name) name = nullptr;
  JITK_CUDA_DRIVER_FUNCTIONS(JITK_CUDA_DECLARE_)
#undef JITK_CUDA_DECLARE_
  // cuEventElapsedTime_v2 (CUDA 12.8+), else the older cuEventElapsedTime,
  // which has the same signature.
  decltype(&::cuEventElapsedTime_v2) cuEventElapsedTime_v2 = nullptr;
  // Tensor maps (CUDA 12.0+ drivers); null on older ones.
  decltype(&::cuTensorMapEncodeTiled) cuTensorMapEncodeTiled = nullptr;
  // Launches with attributes (CUDA 12.0+ drivers); null on older ones.
  decltype(&::cuLaunchKernelEx) cuLaunchKernelEx = nullptr;
  // Stream capture modes (CUDA 10.1+ drivers); null on older ones.
  decltype(&::cuThreadExchangeStreamCaptureMode) cuThreadExchangeStreamCaptureMode = nullptr;

  std::unique_ptr<DynamicLibrary> library;
};

// The default file name of the driver library.
inline constexpr absl::string_view kCudaDriverLibrary = "libcuda.so.1";

// Opens the first of `file_names` that loads and resolves every entry point.
// kUnavailable naming the files; the driver library is not part of the CUDA
// toolkit, so the message says it comes with the NVIDIA driver.
absl::StatusOr<std::unique_ptr<CudaDriverApi>> LoadCudaDriverApi(
    absl::Span<const std::string> file_names);

// Relaxes this thread's capture mode while alive (stream_capture.h); construct
// with api.cuThreadExchangeStreamCaptureMode.
using RelaxedCaptureMode = ScopedRelaxedCaptureMode<CUstreamCaptureMode, CUresult, CUDA_SUCCESS,
                                                    CU_STREAM_CAPTURE_MODE_RELAXED>;

// A status for a failed driver call: "<what>: CUDA_ERROR_NAME (description)".
// CUDA_ERROR_OUT_OF_MEMORY and CUDA_ERROR_LAUNCH_OUT_OF_RESOURCES are
// kResourceExhausted; other codes map to the closest canonical code. Stream
// capture errors say what cannot run inside a capture and what to do.
absl::Status CudaError(const CudaDriverApi& api, CUresult result, absl::string_view what);

}  // namespace jitk::internal

#endif  // JITK_LIB_BACKEND_CUDA_CUDA_DRIVER_API_H_
