#include <memory>
#include <vector>

#include "absl/strings/str_cat.h"
#include "lib/backend/backend.h"

#if JITK_WITH_HIP
#include "lib/backend/hip/hip_backend.h"
#endif
#if JITK_WITH_CUDA
#include "lib/backend/cuda/cuda_backend.h"
#endif

namespace jitk::internal {
namespace {

std::vector<Backend*> MakeBackends() {
  std::vector<Backend*> backends;
  // Leaked on purpose: vendor runtimes must outlive every static destructor
  // that might still free device memory.
#if JITK_WITH_HIP
  backends.push_back(NewHipBackend().release());
#endif
#if JITK_WITH_CUDA
  backends.push_back(NewCudaBackend().release());
#endif
  return backends;
}

}  // namespace

absl::Span<Backend* const> BuiltinBackends() {
  static const std::vector<Backend*>* const kBackends = new std::vector<Backend*>(MakeBackends());
  return *kBackends;
}

absl::StatusOr<Backend*> BackendFor(Vendor vendor) {
  for (Backend* backend : BuiltinBackends()) {
    if (backend->vendor() == vendor) return backend;
  }
  return absl::UnavailableError(absl::StrCat(
      "this jitk was built without the ", vendor == Vendor::kAmd ? "HIP" : "CUDA",
      " backend: rebuild with ", vendor == Vendor::kAmd ? "-DJITK_WITH_HIP=ON" : "-DJITK_WITH_CUDA=ON",
      " (needs the ", vendor == Vendor::kAmd ? "ROCm (libamdhip64-dev, libamd-comgr-dev, "
                                               "libhsa-runtime-dev)" : "CUDA toolkit",
      " headers at build time)"));
}

}  // namespace jitk::internal
