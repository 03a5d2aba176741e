#include "jitk/dtype.h"

#include "absl/strings/str_cat.h"

namespace jitk {

absl::string_view DTypeName(DType dtype) {
  switch (dtype) {
    case DType::kF32: return "f32";
    case DType::kF16: return "f16";
    case DType::kBF16: return "bf16";
  }
  return "?";
}

absl::StatusOr<DType> ParseDType(absl::string_view name) {
  if (name == "f32" || name == "float32" || name == "fp32") return DType::kF32;
  if (name == "f16" || name == "float16" || name == "fp16" || name == "half") return DType::kF16;
  if (name == "bf16" || name == "bfloat16") return DType::kBF16;
  return absl::InvalidArgumentError(
      absl::StrCat("unknown dtype '", name, "': use f32, f16 or bf16"));
}

size_t DTypeSize(DType dtype) { return dtype == DType::kF32 ? 4 : 2; }

}  // namespace jitk
