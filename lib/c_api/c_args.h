// jitk_arg arrays → jitk::LaunchArgs, with every malformed entry named.
#ifndef JITK_LIB_C_API_C_ARGS_H_
#define JITK_LIB_C_API_C_ARGS_H_

#include <cstddef>

#include "absl/status/statusor.h"
#include "jitk/jitk_c.h"
#include "jitk/kernel.h"

namespace jitk::c_api {

// kInvalidArgument when `args` is NULL with num_args > 0, or an entry has a
// NULL or empty name, an unknown kind, or repeats an earlier name.
absl::StatusOr<LaunchArgs> ToLaunchArgs(const jitk_arg* args, size_t num_args);

}  // namespace jitk::c_api

#endif  // JITK_LIB_C_API_C_ARGS_H_
