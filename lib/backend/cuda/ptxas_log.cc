#include "lib/backend/cuda/ptxas_log.h"

#include <algorithm>
#include <vector>

#include "absl/strings/ascii.h"
#include "absl/strings/match.h"
#include "absl/strings/numbers.h"
#include "absl/strings/str_split.h"
#include "absl/strings/string_view.h"
#include "absl/strings/strip.h"

namespace jitk::internal {
namespace {

// For "<N> <rest>" with `rest` starting with `unit`, stores N.
bool ReadCount(absl::string_view item, absl::string_view unit, int* out) {
  item = absl::StripAsciiWhitespace(item);
  size_t space = item.find(' ');
  if (space == absl::string_view::npos) return false;
  if (!absl::StartsWith(item.substr(space + 1), unit)) return false;
  return absl::SimpleAtoi(item.substr(0, space), out);
}

// The comma-separated items after the "ptxas info    :" or "ptxas    ." prefix.
std::vector<absl::string_view> Items(absl::string_view line) {
  size_t colon = line.find(':');
  size_t dot = line.find('.');
  size_t start = std::min(colon, dot);
  if (start == absl::string_view::npos) return {};
  return absl::StrSplit(line.substr(start + 1), ',');
}

}  // namespace

absl::flat_hash_map<std::string, PtxasFunctionInfo> ParsePtxasLog(absl::string_view log) {
  absl::flat_hash_map<std::string, PtxasFunctionInfo> functions;
  PtxasFunctionInfo* current = nullptr;
  for (absl::string_view line : absl::StrSplit(log, '\n')) {
    if (!absl::StartsWith(line, "ptxas")) continue;
    constexpr absl::string_view kEntry = "Compiling entry function '";
    constexpr absl::string_view kProperties = "Function properties for ";
    if (size_t at = line.find(kEntry); at != absl::string_view::npos) {
      absl::string_view name = line.substr(at + kEntry.size());
      name = name.substr(0, name.find('\''));
      current = &functions[name];
    } else if (size_t at = line.find(kProperties); at != absl::string_view::npos) {
      absl::string_view name = absl::StripAsciiWhitespace(line.substr(at + kProperties.size()));
      current = &functions[name];
    } else if (current == nullptr) {
      continue;
    } else if (absl::StrContains(line, "bytes stack frame")) {
      for (absl::string_view item : Items(line)) {
        ReadCount(item, "bytes stack frame", &current->stack_frame_bytes) ||
            ReadCount(item, "bytes spill stores", &current->spill_store_bytes) ||
            ReadCount(item, "bytes spill loads", &current->spill_load_bytes);
      }
    } else if (size_t used = line.find("Used "); used != absl::string_view::npos) {
      for (absl::string_view item : absl::StrSplit(line.substr(used), ',')) {
        item = absl::StripAsciiWhitespace(item);
        if (absl::ConsumePrefix(&item, "Used ") || absl::ConsumePrefix(&item, "used ")) {
          ReadCount(item, "registers", &current->registers) ||
              ReadCount(item, "barriers", &current->barriers);
        } else {
          ReadCount(item, "bytes smem", &current->shared_bytes) ||
              ReadCount(item, "bytes cumulative stack size", &current->cumulative_stack_bytes);
        }
      }
    }
  }
  return functions;
}

}  // namespace jitk::internal
