#include "lib/c_api/c_args.h"

#include "absl/strings/str_cat.h"

namespace jitk::c_api {

absl::StatusOr<LaunchArgs> ToLaunchArgs(const jitk_arg* args, size_t num_args) {
  if (args == nullptr && num_args > 0) {
    return absl::InvalidArgumentError(
        absl::StrCat("args is NULL but num_args is ", num_args));
  }
  LaunchArgs launch_args;
  launch_args.Reserve(num_args);
  for (size_t i = 0; i < num_args; ++i) {
    const jitk_arg& arg = args[i];
    if (arg.name == nullptr || arg.name[0] == '\0') {
      return absl::InvalidArgumentError(
          absl::StrCat("argument ", i, " has ", arg.name == nullptr ? "a NULL" : "an empty",
                       " name"));
    }
    switch (arg.kind) {
      case JITK_ARG_POINTER:
        launch_args.Ptr(arg.name, arg.pointer);
        break;
      case JITK_ARG_INT:
        launch_args.Int(arg.name, arg.integer);
        break;
      case JITK_ARG_FLOAT:
        launch_args.Float(arg.name, static_cast<float>(arg.real));
        break;
      default:
        return absl::InvalidArgumentError(absl::StrCat(
            "argument '", arg.name, "' has unknown kind ", arg.kind,
            " (JITK_ARG_POINTER=1, JITK_ARG_INT=2, JITK_ARG_FLOAT=3)"));
    }
    // LaunchArgs lets a later entry replace an earlier one (the set did not
    // grow); across the C ABI a repeated name is almost certainly a bug in
    // the caller's table.
    if (launch_args.args().size() != i + 1) {
      return absl::InvalidArgumentError(
          absl::StrCat("argument '", arg.name, "' is given twice (entries ", i, " and earlier)"));
    }
  }
  return launch_args;
}

}  // namespace jitk::c_api
