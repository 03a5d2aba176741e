// Opening the ROCm libraries: which file, and which version it is.
//
// ROCm moved hiprtc out of libamdhip64 in 6.0 and bumps sonames between
// releases, so each library is a list of candidate files. A candidate only
// counts when it exports the table's probe symbol (libamdhip64.so.6 loads
// fine but has no hiprtc). A library the process already holds wins over the
// list order: the comgr that hiprtc links against is the one whose ISA list
// says what hiprtc can compile, and an application that already runs a HIP
// runtime must not get a second one.
#ifndef JITK_LIB_BACKEND_HIP_VENDOR_LIBRARY_H_
#define JITK_LIB_BACKEND_HIP_VENDOR_LIBRARY_H_

#include <memory>
#include <string>

#include "absl/status/statusor.h"
#include "absl/strings/string_view.h"
#include "absl/types/span.h"
#include "lib/backend/internal/dynamic_library.h"

namespace jitk::internal {

// Directory searched after the dynamic loader's own paths.
inline constexpr char kRocmLibDir[] = "/opt/rocm/lib";

// The first of `file_names` (also under kRocmLibDir) that loads and exports
// `probe_symbol`, preferring one already loaded in the process. kUnavailable
// names the files and ends with `package_hint`.
absl::StatusOr<std::unique_ptr<DynamicLibrary>> OpenVendorLibrary(
    absl::Span<const std::string> file_names, const char* probe_symbol,
    absl::string_view package_hint);

// The version in the real file name of the library that defines `symbol`
// ("5.2.21153" for libamdhip64.so.5 -> libamdhip64.so.5.2.21153), or "" when
// the file name carries none.
std::string LibraryFileVersion(const void* symbol);

}  // namespace jitk::internal

#endif  // JITK_LIB_BACKEND_HIP_VENDOR_LIBRARY_H_
