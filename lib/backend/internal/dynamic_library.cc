#include "lib/backend/internal/dynamic_library.h"

#include <dlfcn.h>

#include "absl/strings/str_cat.h"
#include "absl/strings/str_join.h"

namespace jitk::internal {

absl::StatusOr<std::unique_ptr<DynamicLibrary>> DynamicLibrary::Open(
    absl::Span<const std::string> file_names, absl::string_view package_hint,
    absl::Span<const std::string> extra_dirs) {
  std::vector<std::string> candidates;
  for (const std::string& name : file_names) candidates.push_back(name);
  for (const std::string& dir : extra_dirs) {
    for (const std::string& name : file_names) candidates.push_back(absl::StrCat(dir, "/", name));
  }
  std::string last_error;
  for (const std::string& candidate : candidates) {
    // RTLD_LOCAL keeps vendor symbols out of the global namespace, so two
    // runtimes (HIP and CUDA) never interpose on each other.
    void* handle = dlopen(candidate.c_str(), RTLD_NOW | RTLD_LOCAL);
    if (handle != nullptr) {
      return std::unique_ptr<DynamicLibrary>(new DynamicLibrary(handle, candidate));
    }
    const char* error = dlerror();
    if (error != nullptr) last_error = error;
  }
  return absl::UnavailableError(absl::StrCat(
      "could not load ", absl::StrJoin(file_names, " or "), " (", last_error, "); ",
      package_hint));
}

DynamicLibrary::~DynamicLibrary() {
  // Vendor runtimes register atexit handlers and threads; unloading them
  // before process exit crashes some of them, so the handle stays open.
}

void* DynamicLibrary::Symbol(const char* symbol) const { return dlsym(handle_, symbol); }

absl::Status DynamicLibrary::MissingSymbol(const char* symbol) const {
  return absl::UnavailableError(
      absl::StrCat(path_, " has no symbol ", symbol, "; the library is too old or not the "
                   "expected one"));
}

}  // namespace jitk::internal
