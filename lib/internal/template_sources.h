// The kernel template sources a compile sees.
//
// Normally the copies embedded at build time; with JITK_TEMPLATE_DIR set,
// the *.h files of that directory instead (edit a template, rerun, no
// rebuild).
#ifndef JITK_LIB_INTERNAL_TEMPLATE_SOURCES_H_
#define JITK_LIB_INTERNAL_TEMPLATE_SOURCES_H_

#include <string>
#include <utility>
#include <vector>

#include "absl/status/statusor.h"

namespace jitk::internal {

using SourceFiles = std::vector<std::pair<std::string, std::string>>;  // (name, text)

// kNotFound when JITK_TEMPLATE_DIR names a directory without templates.
absl::StatusOr<SourceFiles> TemplateSources();

}  // namespace jitk::internal

#endif  // JITK_LIB_INTERNAL_TEMPLATE_SOURCES_H_
