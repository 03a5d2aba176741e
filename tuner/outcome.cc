#include "tuner/outcome.h"

#include "absl/strings/str_cat.h"

namespace jitk::tuner {
namespace {

constexpr Outcome kAll[] = {Outcome::kOk,
                            Outcome::kCompileFailed,
                            Outcome::kInvalidConfig,
                            Outcome::kOutOfResources,
                            Outcome::kWrongResult,
                            Outcome::kRuntimeFailed,
                            Outcome::kCompiledOnly};

}  // namespace

absl::string_view OutcomeName(Outcome outcome) {
  switch (outcome) {
    case Outcome::kOk:
      return "ok";
    case Outcome::kCompileFailed:
      return "compile-failed";
    case Outcome::kInvalidConfig:
      return "invalid-config";
    case Outcome::kOutOfResources:
      return "out-of-resources";
    case Outcome::kWrongResult:
      return "wrong-result";
    case Outcome::kRuntimeFailed:
      return "runtime-failed";
    case Outcome::kCompiledOnly:
      return "compiled-only";
  }
  return "?";
}

absl::StatusOr<Outcome> ParseOutcome(absl::string_view name) {
  std::string names;
  for (Outcome outcome : kAll) {
    if (OutcomeName(outcome) == name) return outcome;
    absl::StrAppend(&names, names.empty() ? "" : ", ", OutcomeName(outcome));
  }
  return absl::InvalidArgumentError(
      absl::StrCat("unknown candidate outcome '", name, "' (known: ", names, ")"));
}

Outcome OutcomeForCompileError(const absl::Status& status, bool config_rejected) {
  if (config_rejected) return Outcome::kInvalidConfig;
  if (status.code() == absl::StatusCode::kResourceExhausted) return Outcome::kOutOfResources;
  return Outcome::kCompileFailed;
}

}  // namespace jitk::tuner
