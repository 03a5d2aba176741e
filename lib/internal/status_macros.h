// Status propagation macros. Debian's abseil (20220623) ships none.
#ifndef JITK_LIB_INTERNAL_STATUS_MACROS_H_
#define JITK_LIB_INTERNAL_STATUS_MACROS_H_

#include "absl/status/status.h"
#include "absl/status/statusor.h"

#define JITK_RETURN_IF_ERROR(expr)                \
  do {                                            \
    ::absl::Status jitk_status_ = (expr);         \
    if (!jitk_status_.ok()) return jitk_status_;  \
  } while (0)

#define JITK_STATUS_CONCAT_INNER_(a, b) a##b
#define JITK_STATUS_CONCAT_(a, b) JITK_STATUS_CONCAT_INNER_(a, b)

// JITK_ASSIGN_OR_RETURN(auto x, MakeX()); — `lhs` may declare a variable.
#define JITK_ASSIGN_OR_RETURN(lhs, expr) \
  JITK_ASSIGN_OR_RETURN_IMPL_(JITK_STATUS_CONCAT_(jitk_statusor_, __LINE__), lhs, expr)

#define JITK_ASSIGN_OR_RETURN_IMPL_(statusor, lhs, expr) \
  auto statusor = (expr);                                \
  if (!statusor.ok()) return std::move(statusor).status(); \
  lhs = std::move(statusor).value()

#endif  // JITK_LIB_INTERNAL_STATUS_MACROS_H_
