// Tuning problem for scaled_add: out = x + y * scale.
//
// Inputs are uniform in [-2, 2) stored in the shape's dtype; the reference is
// computed in fp64 from the stored (rounded) inputs. The kernel computes in
// fp32 and rounds once to the storage type, so its error is bounded by
// rtol · (|x| + |y · scale|) with rtol twice the storage type's unit
// roundoff — a bound that holds under cancellation and for a compiler that
// does not contract to an fma.
#include <cmath>
#include <memory>
#include <string>
#include <vector>

#include "absl/strings/str_cat.h"
#include "absl/strings/str_format.h"
#include "lib/internal/status_macros.h"
#include "tuner/problem.h"
#include "tuner/problems/storage.h"

namespace jitk::tuner {
namespace {

constexpr float kScale = -0.75f;  // exact in every storage type

// Twice the unit roundoff of the storage type, plus a floor for underflow.
struct Tolerance {
  double rtol, atol;
};
Tolerance ToleranceFor(DType dtype) {
  switch (dtype) {
    case DType::kF32:
      return {0x1.0p-23, 1e-30};
    case DType::kF16:
      return {0x1.0p-10, 0x1.0p-24};
    case DType::kBF16:
      return {0x1.0p-7, 1e-30};
  }
  return {0, 0};
}

class ScaledAddInstance final : public ProblemInstance {
 public:
  ScaledAddInstance(DType dtype, int64_t n, uint64_t seed)
      : dtype_(dtype), n_(n), seed_(seed), element_(DTypeSize(dtype)) {
    const size_t bytes = size_t(n) * element_;
    buffers_ = {{"out", bytes, element_, true},
                {"x", bytes, element_, false},
                {"y", bytes, element_, false}};
  }

  const std::vector<BufferSpec>& buffers() const override { return buffers_; }

  void FillInput(size_t buffer, size_t offset, absl::Span<char> out) const override {
    const size_t first = offset / element_;
    for (size_t i = 0; i < out.size() / element_; ++i) {
      problems::StoreAs(dtype_, Input(buffer, first + i), out.data() + i * element_);
    }
  }

  CheckResult CheckOutput(size_t buffer, size_t offset, absl::Span<const char> got) const override {
    CheckResult result;
    const Tolerance tol = ToleranceFor(dtype_);
    const size_t first = offset / element_;
    for (size_t i = 0; i < got.size() / element_; ++i) {
      const size_t index = first + i;
      const double x = StoredInput(1, index), y = StoredInput(2, index);
      const double expected = x + y * double(kScale);
      const double value = problems::LoadAs(dtype_, got.data() + i * element_);
      const double bound = tol.atol + tol.rtol * (std::fabs(x) + std::fabs(y * double(kScale)));
      const double error = std::fabs(value - expected) / bound;
      ++result.checked;
      if (!(error <= 1.0)) {  // NaN fails too
        if (result.ok) {
          result.detail = absl::StrFormat(
              "out[%d] = %s, expected %.9g = %.9g + %.9g * %g (%s tolerance %.3g)", index,
              std::isnan(value) ? std::string("nan") : absl::StrFormat("%.9g", value), expected, x,
              y, double(kScale), DTypeName(dtype_), bound);
        }
        result.ok = false;
      }
      if (std::isnan(error) || error > result.max_error) {
        result.max_error = std::isnan(error) ? INFINITY : error;
      }
    }
    return result;
  }

  LaunchArgs Args(absl::Span<void* const> pointers) const override {
    return LaunchArgs()
        .Ptr("out", pointers[0])
        .Ptr("x", pointers[1])
        .Ptr("y", pointers[2])
        .Int("n", n_)
        .Float("scale", kScale);
  }

  double bytes_moved() const override { return 3.0 * double(n_) * double(element_); }
  double flops() const override { return 2.0 * double(n_); }

 private:
  float Input(size_t buffer, size_t index) const {
    return problems::UniformAt(seed_, buffer, index, -2.0f, 2.0f);
  }
  double StoredInput(size_t buffer, size_t index) const {
    char bytes[4];
    problems::StoreAs(dtype_, Input(buffer, index), bytes);
    return problems::LoadAs(dtype_, bytes);
  }

  DType dtype_;
  int64_t n_;
  uint64_t seed_;
  size_t element_;
  std::vector<BufferSpec> buffers_;
};

class ScaledAddProblem final : public Problem {
 public:
  absl::string_view kernel() const override { return "scaled_add"; }

  absl::StatusOr<std::unique_ptr<ProblemInstance>> Create(const Shape& shape,
                                                          uint64_t seed) const override {
    JITK_ASSIGN_OR_RETURN(int64_t n, shape.Get("n"));
    if (n <= 0) {
      return absl::InvalidArgumentError(absl::StrCat("scaled_add: tuning needs n > 0, got ", n));
    }
    return std::make_unique<ScaledAddInstance>(shape.dtype(), n, seed);
  }

  std::vector<Shape> StandardShapes() const override {
    std::vector<Shape> shapes;
    for (DType dtype : {DType::kF32, DType::kF16, DType::kBF16}) {
      for (int log_n : {20, 24, 28}) shapes.push_back(Shape(dtype).Set("n", int64_t{1} << log_n));
    }
    return shapes;
  }
};

}  // namespace

std::unique_ptr<Problem> NewScaledAddProblem() { return std::make_unique<ScaledAddProblem>(); }

}  // namespace jitk::tuner
