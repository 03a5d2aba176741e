// The thread-local result of the last status-returning C API call.
//
// Every jitk_* function that returns a jitk_status records what it returns
// here (an empty message on success), so a caller can ask for the message
// right after the call on the same thread, as ctypes does.
#ifndef JITK_LIB_C_API_LAST_ERROR_H_
#define JITK_LIB_C_API_LAST_ERROR_H_

#include "absl/status/status.h"
#include "jitk/jitk_c.h"

namespace jitk::c_api {

// Records `status` as this thread's last result and returns its code.
jitk_status Record(const absl::Status& status);

// Records success.
inline jitk_status Ok() { return Record(absl::OkStatus()); }

// Records kInvalidArgument "<function>: <parameter> is NULL".
jitk_status NullArgument(const char* function, const char* parameter);

jitk_status LastCode();
const char* LastMessage();

}  // namespace jitk::c_api

#endif  // JITK_LIB_C_API_LAST_ERROR_H_
