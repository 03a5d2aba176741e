// jitk/dtype.h — element types of kernel storage.
//
// Kernels store data as fp32, fp16 or bf16 and always compute in fp32, so the
// same template gives the same numbers on HIP and CUDA.
#ifndef JITK_DTYPE_H_
#define JITK_DTYPE_H_

#include <cstddef>
#include "absl/strings/string_view.h"

#include "absl/status/statusor.h"

namespace jitk {

enum class DType { kF32, kF16, kBF16 };

// "f32", "f16", "bf16".
absl::string_view DTypeName(DType dtype);

// Accepts the names above and the long forms "float32", "float16", "bfloat16".
absl::StatusOr<DType> ParseDType(absl::string_view name);

// Bytes per element.
size_t DTypeSize(DType dtype);

}  // namespace jitk

#endif  // JITK_DTYPE_H_
