// The kernel template sources compiled into the library (see cmake/JitkEmbed.cmake).
#ifndef JITK_LIB_INTERNAL_EMBEDDED_TEMPLATES_H_
#define JITK_LIB_INTERNAL_EMBEDDED_TEMPLATES_H_

#include "absl/strings/string_view.h"

#include "absl/types/span.h"

namespace jitk::internal {

struct EmbeddedFile {
  absl::string_view name;  // "scaled_add.h"
  absl::string_view text;
};

absl::Span<const EmbeddedFile> EmbeddedTemplates();

}  // namespace jitk::internal

#endif  // JITK_LIB_INTERNAL_EMBEDDED_TEMPLATES_H_
