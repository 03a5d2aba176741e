// The CUDA backend: NVRTC compiles, the CUDA driver API loads and launches.
//
// Both libraries are opened at run time on first use, so a jitk binary starts
// (and compiles for sm_XY) on machines without an NVIDIA driver. Problems
// surface as statuses, never as a failed construction: no libcuda.so.1 means
// Devices() is empty and Report() says why; no NVRTC means Compile() is
// kUnavailable naming the files tried.
//
// Example:
//   std::unique_ptr<Backend> cuda = NewCudaBackend();
//   CompileRequest request;
//   request.target = {"sm_90", "", Vendor::kNvidia};
//   request.source = "template <int N> __global__ void k(float* p) { p[N] = 1; }";
//   request.name_expressions = {"k<3>"};
//   absl::StatusOr<CodeObject> code = cuda->Compile(request);
#ifndef JITK_LIB_BACKEND_CUDA_CUDA_BACKEND_H_
#define JITK_LIB_BACKEND_CUDA_CUDA_BACKEND_H_

#include <memory>
#include <string>
#include <vector>

#include "lib/backend/backend.h"

namespace jitk::internal {

// File names to try, in order, for each library; empty means the defaults:
// driver "libcuda.so.1"; NVRTC "libnvrtc.so.13", "libnvrtc.so.12",
// "libnvrtc.so", each also under /usr/local/cuda/lib64 and
// /usr/local/cuda/targets/x86_64-linux/lib.
struct CudaLibraryNames {
  std::vector<std::string> driver, nvrtc;
};

// Never fails. FunctionHandles it hands out point at backend-owned records
// (not raw CUfunctions), valid while their Module lives; pass them only to
// this backend's Launch. Modules must not outlive the backend.
std::unique_ptr<Backend> NewCudaBackend(CudaLibraryNames names = {});

}  // namespace jitk::internal

#endif  // JITK_LIB_BACKEND_CUDA_CUDA_BACKEND_H_
