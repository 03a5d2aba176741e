#include "lib/backend/hip/vendor_library.h"

#include <dlfcn.h>
#include <limits.h>
#include <stdlib.h>

#include <algorithm>
#include <vector>

#include "absl/strings/match.h"
#include "absl/strings/str_cat.h"
#include "absl/strings/str_join.h"

namespace jitk::internal {
namespace {

bool AlreadyLoaded(const std::string& file_name) {
  void* handle = dlopen(file_name.c_str(), RTLD_LAZY | RTLD_LOCAL | RTLD_NOLOAD);
  if (handle == nullptr) return false;
  dlclose(handle);  // drops only the reference RTLD_NOLOAD just took
  return true;
}

// True when `opened` (a name from the list, possibly prefixed with a
// directory by DynamicLibrary::Open) came from `candidate`.
bool OpenedFrom(const std::string& opened, const std::string& candidate) {
  return opened == candidate || absl::EndsWith(opened, absl::StrCat("/", candidate));
}

}  // namespace

absl::StatusOr<std::unique_ptr<DynamicLibrary>> OpenVendorLibrary(
    absl::Span<const std::string> file_names, const char* probe_symbol,
    absl::string_view package_hint) {
  std::vector<std::string> remaining(file_names.begin(), file_names.end());
  std::stable_partition(remaining.begin(), remaining.end(), AlreadyLoaded);
  const std::vector<std::string> extra_dirs = {kRocmLibDir};

  std::vector<std::string> without_symbol;
  while (!remaining.empty()) {
    absl::StatusOr<std::unique_ptr<DynamicLibrary>> library =
        DynamicLibrary::Open(remaining, package_hint, extra_dirs);
    if (!library.ok()) {
      if (without_symbol.empty()) return library.status();
      break;
    }
    if ((*library)->Symbol(probe_symbol) != nullptr) return library;
    without_symbol.push_back((*library)->path());
    const std::string& opened = (*library)->path();
    remaining.erase(std::remove_if(remaining.begin(), remaining.end(),
                                   [&](const std::string& c) { return OpenedFrom(opened, c); }),
                    remaining.end());
  }
  return absl::UnavailableError(
      absl::StrCat("none of ", absl::StrJoin(file_names, ", "), " provides ", probe_symbol, " (",
                   absl::StrJoin(without_symbol, ", "), " loaded without it); ", package_hint));
}

std::string LibraryFileVersion(const void* symbol) {
  Dl_info info;
  if (symbol == nullptr || dladdr(symbol, &info) == 0 || info.dli_fname == nullptr) return "";
  char resolved[PATH_MAX];
  std::string path = realpath(info.dli_fname, resolved) != nullptr ? resolved : info.dli_fname;
  const size_t so = path.rfind(".so.");
  if (so == std::string::npos || path.find('/', so) != std::string::npos) return "";
  return path.substr(so + 4);
}

}  // namespace jitk::internal
