#include "cache/cache_key.h"

#include <algorithm>
#include <vector>

#include "absl/status/status.h"
#include "absl/strings/str_cat.h"
#include "cache/content_hash.h"

namespace jitk::cache {

absl::StatusOr<std::string> MakeCodeObjectKey(const CodeObjectKeyInputs& in) {
  const std::pair<absl::string_view, absl::string_view> required[] = {
      {"source", in.source},
      {"name_expression", in.name_expression},
      {"compiler", in.compiler},
      {"target", in.target}};
  for (const auto& [field, value] : required) {
    if (value.empty()) {
      return absl::InvalidArgumentError(
          absl::StrCat("code object key: '", field, "' is empty; it selects the binary"));
    }
  }

  // Headers are looked up by name, so their order is not part of the key.
  std::vector<HeaderText> headers(in.headers.begin(), in.headers.end());
  std::sort(headers.begin(), headers.end(), [](const HeaderText& a, const HeaderText& b) {
    return a.name != b.name ? a.name < b.name : a.contents < b.contents;
  });

  // Every field is tagged and length-prefixed: no two different inputs
  // encode to the same byte stream.
  ContentHasher h;
  h.AddField("jitk code object key").AddInt(kCodeObjectKeyVersion);
  h.AddField("source").AddField(in.source);
  h.AddField("headers").AddInt(static_cast<int64_t>(headers.size()));
  for (const HeaderText& header : headers) h.AddField(header.name).AddField(header.contents);
  h.AddField("name_expression").AddField(in.name_expression);
  h.AddField("options").AddInt(static_cast<int64_t>(in.options.size()));
  for (const std::string& option : in.options) h.AddField(option);
  h.AddField("compiler").AddField(in.compiler);
  h.AddField("target").AddField(in.target);
  return h.HexDigest();
}

}  // namespace jitk::cache
