#include <vector>

#include "absl/strings/numbers.h"
#include "absl/strings/str_cat.h"
#include "absl/strings/str_join.h"
#include "absl/strings/str_split.h"
#include "jitk/kernel.h"

namespace jitk {

std::string KernelConfigToString(const KernelConfig& config) {
  return absl::StrJoin(config, ",", absl::PairFormatter("="));
}

absl::StatusOr<KernelConfig> ParseKernelConfig(absl::string_view text) {
  KernelConfig config;
  for (absl::string_view item : absl::StrSplit(text, ',', absl::SkipWhitespace())) {
    std::pair<absl::string_view, absl::string_view> kv = absl::StrSplit(item, '=');
    int64_t value = 0;
    if (kv.first.empty() || !absl::SimpleAtoi(kv.second, &value)) {
      return absl::InvalidArgumentError(absl::StrCat(
          "bad kernel config '", text, "': expected NAME=VALUE[,NAME=VALUE...], got '", item,
          "'"));
    }
    config[std::string(kv.first)] = value;
  }
  return config;
}

absl::string_view ConfigSourceName(ConfigSource source) {
  switch (source) {
    case ConfigSource::kExplicit: return "explicit";
    case ConfigSource::kMemo: return "memo";
    case ConfigSource::kUserDb: return "user-db";
    case ConfigSource::kSystemDb: return "system-db";
    case ConfigSource::kNearestTuned: return "nearest-tuned";
    case ConfigSource::kTunedNow: return "tuned-now";
    case ConfigSource::kDefault: return "default";
  }
  return "?";
}

}  // namespace jitk
