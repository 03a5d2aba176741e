#include "lib/c_api/last_error.h"

#include <string>

#include "absl/strings/str_cat.h"

namespace jitk::c_api {
namespace {

struct LastError {
  jitk_status code = JITK_OK;
  std::string message;
};

LastError& ThisThread() {
  thread_local LastError last;
  return last;
}

}  // namespace

jitk_status Record(const absl::Status& status) {
  LastError& last = ThisThread();
  last.code = static_cast<jitk_status>(status.code());
  if (status.ok()) {
    last.message.clear();  // keeps the capacity: no allocation on the hot path
  } else {
    last.message.assign(status.message().data(), status.message().size());
  }
  return last.code;
}

jitk_status NullArgument(const char* function, const char* parameter) {
  return Record(absl::InvalidArgumentError(absl::StrCat(function, ": ", parameter, " is NULL")));
}

jitk_status LastCode() { return ThisThread().code; }

const char* LastMessage() { return ThisThread().message.c_str(); }

}  // namespace jitk::c_api
