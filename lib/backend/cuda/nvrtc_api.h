// NvrtcApi: NVRTC (libnvrtc) opened at run time, one typed pointer per entry point.
//
// The pointer types come from the real nvrtc.h, so a mismatch with the header
// is a compile error, not a crash. Member names are the exported symbols.
#ifndef JITK_LIB_BACKEND_CUDA_NVRTC_API_H_
#define JITK_LIB_BACKEND_CUDA_NVRTC_API_H_

#include <nvrtc.h>

#include <memory>
#include <string>
#include <vector>

#include "absl/status/statusor.h"
#include "absl/types/span.h"
#include "lib/backend/internal/dynamic_library.h"

namespace jitk::internal {

// Every entry point jitk uses; each must be exported by the library.
#define JITK_NVRTC_FUNCTIONS(X) \
  X(nvrtcGetErrorString)        \
  X(nvrtcVersion)               \
  X(nvrtcGetNumSupportedArchs)  \
  X(nvrtcGetSupportedArchs)     \
  X(nvrtcCreateProgram)         \
  X(nvrtcDestroyProgram)        \
  X(nvrtcAddNameExpression)     \
  X(nvrtcCompileProgram)        \
  X(nvrtcGetProgramLogSize)     \
  X(nvrtcGetProgramLog)         \
  X(nvrtcGetCUBINSize)          \
  X(nvrtcGetCUBIN)              \
  X(nvrtcGetLoweredName)

struct NvrtcApi {
#define JITK_NVRTC_DECLARE_(name) decltype(&::name) name = nullptr;
  JITK_NVRTC_FUNCTIONS(JITK_NVRTC_DECLARE_)
#undef JITK_NVRTC_DECLARE_

  std::unique_ptr<DynamicLibrary> library;
  // libnvrtc-builtins, opened from libnvrtc's own directory when it is there
  // (NVRTC itself only searches the loader path, see LoadNvrtcApi); may be null.
  std::unique_ptr<DynamicLibrary> builtins;
  int major = 0, minor = 0;  // nvrtcVersion
};

// Opens the first of `file_names` that loads (also under `extra_dirs`) and
// resolves every entry point. kUnavailable naming the files and the package.
absl::StatusOr<std::unique_ptr<NvrtcApi>> LoadNvrtcApi(absl::Span<const std::string> file_names,
                                                       absl::Span<const std::string> extra_dirs);

// The default file names and directories tried, newest NVRTC first.
std::vector<std::string> DefaultNvrtcNames();
std::vector<std::string> DefaultCudaLibraryDirs();

}  // namespace jitk::internal

#endif  // JITK_LIB_BACKEND_CUDA_NVRTC_API_H_
