// jitk/shape.h — the problem a kernel is asked to solve.
//
// A Shape is a dtype plus named integer dimensions ("n" for scaled_add;
// "b", "hq", "hkv", "lq", "lk", "d", "block", "layout" and optionally "mask"
// and "mask_per_head" for sparse_attn, see docs/sparse_attn.md).
// It selects the tuned configuration and is part of every cache key, so two
// equal shapes always print the same Key().
//
// Example:
//   jitk::Shape shape = jitk::Shape(jitk::DType::kF16).Set("n", 1 << 20);
#ifndef JITK_SHAPE_H_
#define JITK_SHAPE_H_

#include <cstdint>
#include <map>
#include <string>
#include "absl/strings/string_view.h"

#include "absl/status/statusor.h"
#include "jitk/dtype.h"

namespace jitk {

class Shape {
 public:
  explicit Shape(DType dtype = DType::kF32) : dtype_(dtype) {}

  Shape& Set(absl::string_view dim, int64_t value);
  DType dtype() const { return dtype_; }
  bool Has(absl::string_view dim) const;
  // kInvalidArgument naming the missing dimension.
  absl::StatusOr<int64_t> Get(absl::string_view dim) const;
  // The value, or `fallback` when the dimension is absent.
  int64_t GetOr(absl::string_view dim, int64_t fallback) const;
  const std::map<std::string, int64_t, std::less<>>& dims() const { return dims_; }

  // Canonical text, "bf16;d=128;lk=4096" — dims sorted by name.
  std::string Key() const;
  // Inverse of Key(); kInvalidArgument on malformed text.
  static absl::StatusOr<Shape> Parse(absl::string_view key);

  bool operator==(const Shape& other) const = default;

 private:
  DType dtype_;
  std::map<std::string, int64_t, std::less<>> dims_;
};

}  // namespace jitk

#endif  // JITK_SHAPE_H_
