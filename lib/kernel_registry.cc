#include <vector>

#include "absl/strings/str_cat.h"
#include "absl/strings/str_join.h"
#include "lib/kernel_template.h"
#include "lib/kernels/builtin_templates.h"

namespace jitk::internal {

absl::Span<const KernelTemplate* const> KernelTemplates() {
  // One line per built-in template; explicit so static linking keeps them.
  static const KernelTemplate* const kTemplates[] = {
      &ScaledAddKernelTemplate(),
      &SparseAttnKernelTemplate(),
  };
  return kTemplates;
}

absl::StatusOr<const KernelTemplate*> FindKernelTemplate(absl::string_view name) {
  std::vector<absl::string_view> names;
  for (const KernelTemplate* t : KernelTemplates()) {
    if (t->name() == name) return t;
    names.push_back(t->name());
  }
  return absl::InvalidArgumentError(absl::StrCat("unknown kernel '", name,
                                                 "': built-in kernels are ",
                                                 absl::StrJoin(names, ", ")));
}

}  // namespace jitk::internal

namespace jitk {

std::vector<std::string> KernelNames() {
  std::vector<std::string> names;
  for (const internal::KernelTemplate* t : internal::KernelTemplates()) {
    names.emplace_back(t->name());
  }
  return names;
}

}  // namespace jitk
