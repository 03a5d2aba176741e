// DynamicLibrary: a vendor library opened at run time.
//
// jitk never links a GPU library, so a binary starts on machines with no GPU
// stack. Each backend declares one function table per library and fills it
// with Resolve(); a missing file is kUnavailable naming the files tried and
// the package that provides them.
#ifndef JITK_LIB_BACKEND_INTERNAL_DYNAMIC_LIBRARY_H_
#define JITK_LIB_BACKEND_INTERNAL_DYNAMIC_LIBRARY_H_

#include <memory>
#include <string>
#include "absl/strings/string_view.h"
#include <vector>

#include "absl/status/statusor.h"
#include "absl/types/span.h"

namespace jitk::internal {

class DynamicLibrary {
 public:
  // Tries each file name in order (dlopen search rules: LD_LIBRARY_PATH,
  // rpath, ld.so.cache), also under each of `extra_dirs`.
  // `package_hint` completes the error message, e.g.
  // "install libamdhip64-5 (Debian) or ROCm".
  static absl::StatusOr<std::unique_ptr<DynamicLibrary>> Open(
      absl::Span<const std::string> file_names, absl::string_view package_hint,
      absl::Span<const std::string> extra_dirs = {});

  ~DynamicLibrary();
  DynamicLibrary(const DynamicLibrary&) = delete;
  DynamicLibrary& operator=(const DynamicLibrary&) = delete;

  // The file that was opened, e.g. "libamdhip64.so.5".
  const std::string& path() const { return path_; }

  // Address of `symbol`, or nullptr.
  void* Symbol(const char* symbol) const;

  // Fills a typed pointer; kUnavailable naming the symbol and library.
  template <typename Fn>
  absl::Status Resolve(const char* symbol, Fn*& fn) const {
    fn = reinterpret_cast<Fn*>(Symbol(symbol));
    return fn ? absl::OkStatus() : MissingSymbol(symbol);
  }

  // Like Resolve but leaves `fn` null without error (optional entry points).
  template <typename Fn>
  void ResolveOptional(const char* symbol, Fn*& fn) const {
    fn = reinterpret_cast<Fn*>(Symbol(symbol));
  }

 private:
  DynamicLibrary(void* handle, std::string path) : handle_(handle), path_(std::move(path)) {}
  absl::Status MissingSymbol(const char* symbol) const;

  void* handle_;
  std::string path_;
};

}  // namespace jitk::internal

#endif  // JITK_LIB_BACKEND_INTERNAL_DYNAMIC_LIBRARY_H_
