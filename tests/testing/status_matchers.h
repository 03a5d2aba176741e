// gmock matchers for absl::Status / absl::StatusOr.
//
//   EXPECT_THAT(LookupArch("gfx1"), StatusIs(absl::StatusCode::kNotFound, "gfx1"));
//   EXPECT_THAT(ParseDType("f16"), IsOk());
#ifndef JITK_TESTS_TESTING_STATUS_MATCHERS_H_
#define JITK_TESTS_TESTING_STATUS_MATCHERS_H_

#include <string>

#include "absl/status/status.h"
#include "absl/status/statusor.h"
#include "gmock/gmock.h"

namespace jitk::testing {

inline const absl::Status& GetStatus(const absl::Status& status) { return status; }
template <typename T>
const absl::Status& GetStatus(const absl::StatusOr<T>& status_or) {
  return status_or.status();
}

MATCHER(IsOk, "is OK") {
  const absl::Status& status = GetStatus(arg);
  if (!status.ok()) *result_listener << "status: " << status.ToString();
  return status.ok();
}

// The code matches and the message contains `substring`.
MATCHER_P2(StatusIs, code, substring,
           std::string("has code ") + absl::StatusCodeToString(code) + " and a message with '" +
               std::string(substring) + "'") {
  const absl::Status& status = GetStatus(arg);
  *result_listener << "status: " << status.ToString();
  return status.code() == code &&
         std::string(status.message()).find(std::string(substring)) != std::string::npos;
}

}  // namespace jitk::testing

#endif  // JITK_TESTS_TESTING_STATUS_MATCHERS_H_
