#include "lib/backend/cuda/nvrtc_api.h"

#include <dlfcn.h>

#include "absl/strings/str_cat.h"
#include "absl/strings/string_view.h"
#include "lib/internal/status_macros.h"

namespace jitk::internal {
namespace {

// The directory of the file that defines `address`, or "" when unknown.
std::string DirectoryOf(const void* address) {
  Dl_info info;
  if (dladdr(address, &info) == 0 || info.dli_fname == nullptr) return "";
  absl::string_view path = info.dli_fname;
  size_t slash = path.rfind('/');
  return slash == absl::string_view::npos ? "" : std::string(path.substr(0, slash));
}

}  // namespace

std::vector<std::string> DefaultNvrtcNames() {
  return {"libnvrtc.so.13", "libnvrtc.so.12", "libnvrtc.so"};
}

std::vector<std::string> DefaultCudaLibraryDirs() {
  return {"/usr/local/cuda/lib64", "/usr/local/cuda/targets/x86_64-linux/lib"};
}

absl::StatusOr<std::unique_ptr<NvrtcApi>> LoadNvrtcApi(absl::Span<const std::string> file_names,
                                                       absl::Span<const std::string> extra_dirs) {
  auto api = std::make_unique<NvrtcApi>();
  JITK_ASSIGN_OR_RETURN(
      api->library,
      DynamicLibrary::Open(file_names,
                           "NVRTC comes with the CUDA toolkit (package cuda-nvrtc-13-0 or "
                           "cuda-nvrtc-12-x; install it or add its lib64 directory to "
                           "LD_LIBRARY_PATH)",
                           extra_dirs));
#define JITK_NVRTC_RESOLVE_(name) JITK_RETURN_IF_ERROR(api->library->Resolve(#name, api->name));
  JITK_NVRTC_FUNCTIONS(JITK_NVRTC_RESOLVE_)
#undef JITK_NVRTC_RESOLVE_

  nvrtcResult result = api->nvrtcVersion(&api->major, &api->minor);
  if (result != NVRTC_SUCCESS) {
    return absl::UnavailableError(absl::StrCat(
        api->library->path(), ": nvrtcVersion failed: ", api->nvrtcGetErrorString(result)));
  }

  // NVRTC opens libnvrtc-builtins.so.<major>.<minor> by name when it first
  // compiles, so only the loader path (LD_LIBRARY_PATH, ld.so.cache) counts:
  // a libnvrtc found under /usr/local/cuda/lib64 with that directory on no
  // path would fail every compile with NVRTC_ERROR_BUILTIN_OPERATION_FAILURE.
  // Opening the builtins from libnvrtc's own directory first makes the later
  // by-name open find the library already loaded.
  std::string dir = DirectoryOf(reinterpret_cast<const void*>(api->nvrtcVersion));
  if (!dir.empty()) {
    const std::string builtins[] = {
        absl::StrCat(dir, "/libnvrtc-builtins.so.", api->major, ".", api->minor)};
    absl::StatusOr<std::unique_ptr<DynamicLibrary>> opened = DynamicLibrary::Open(builtins, "");
    // Not fatal: NVRTC reports a missing builtins library itself, in the log.
    if (opened.ok()) api->builtins = *std::move(opened);
  }
  return api;
}

}  // namespace jitk::internal
