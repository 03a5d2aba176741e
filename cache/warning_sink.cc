#include "cache/warning_sink.h"

#include <unistd.h>

#include <string>

#include "absl/strings/str_cat.h"

namespace jitk::cache {

WarningSink StderrWarningSink() {
  return [](absl::string_view message) {
    // One write(2) per line keeps lines of concurrent processes apart.
    std::string line = absl::StrCat("jitk: ", message, "\n");
    ssize_t ignored = ::write(STDERR_FILENO, line.data(), line.size());
    (void)ignored;
  };
}

}  // namespace jitk::cache
