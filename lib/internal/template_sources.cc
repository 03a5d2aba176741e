#include "lib/internal/template_sources.h"

#include <algorithm>
#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <sstream>

#include "absl/strings/str_cat.h"
#include "lib/internal/embedded_templates.h"

namespace jitk::internal {

absl::StatusOr<SourceFiles> TemplateSources() {
  SourceFiles files;
  const char* dir = std::getenv("JITK_TEMPLATE_DIR");
  if (dir == nullptr || *dir == '\0') {
    for (const EmbeddedFile& file : EmbeddedTemplates()) {
      files.emplace_back(std::string(file.name), std::string(file.text));
    }
    return files;
  }
  std::error_code error;
  for (const auto& entry : std::filesystem::directory_iterator(dir, error)) {
    if (entry.path().extension() != ".h") continue;
    std::ifstream in(entry.path(), std::ios::binary);
    std::stringstream text;
    text << in.rdbuf();
    files.emplace_back(entry.path().filename().string(), text.str());
  }
  if (files.empty()) {
    return absl::NotFoundError(absl::StrCat("JITK_TEMPLATE_DIR=", dir,
                                            " holds no kernel templates (*.h)",
                                            error ? absl::StrCat(": ", error.message()) : "",
                                            "; unset it to use the built-in ones"));
  }
  std::sort(files.begin(), files.end());
  return files;
}

}  // namespace jitk::internal
