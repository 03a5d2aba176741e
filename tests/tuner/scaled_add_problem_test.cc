// scaled_add's tuning problem: deterministic inputs, the fp64 reference with
// per-dtype tolerances, and the problem registry.
#include <bit>
#include <cmath>
#include <cstring>

#include "gmock/gmock.h"
#include "gtest/gtest.h"
#include "tests/testing/gpu.h"
#include "tests/testing/status_matchers.h"
#include "tuner/problem.h"
#include "tuner/problems/storage.h"

namespace jitk::tuner {
namespace {

using ::jitk::testing::IsOk;
using ::jitk::testing::StatusIs;
using ::testing::HasSubstr;

std::unique_ptr<ProblemInstance> Make(DType dtype, int64_t n, uint64_t seed = 1) {
  const Problem* problem = *FindProblem("scaled_add");
  return *problem->Create(Shape(dtype).Set("n", n), seed);
}

// What the kernel computes: fp32 fma, rounded to the storage type.
std::string Compute(const ProblemInstance& p, DType dtype, int64_t n) {
  const size_t e = DTypeSize(dtype);
  std::string x(n * e, '\0'), y(n * e, '\0'), out(n * e, '\0');
  p.FillInput(1, 0, absl::MakeSpan(x.data(), x.size()));
  p.FillInput(2, 0, absl::MakeSpan(y.data(), y.size()));
  for (int64_t i = 0; i < n; ++i) {
    const float xv = float(problems::LoadAs(dtype, x.data() + i * e));
    const float yv = float(problems::LoadAs(dtype, y.data() + i * e));
    problems::StoreAs(dtype, std::fmaf(yv, -0.75f, xv), out.data() + i * e);
  }
  return out;
}

TEST(ScaledAddProblemTest, BuffersArgsAndTraffic) {
  std::unique_ptr<ProblemInstance> p = Make(DType::kF16, 1000);
  ASSERT_EQ(p->buffers().size(), 3u);
  EXPECT_EQ(p->buffers()[0].name, "out");
  EXPECT_TRUE(p->buffers()[0].output);
  EXPECT_FALSE(p->buffers()[1].output);
  EXPECT_EQ(p->buffers()[1].bytes, 2000u);
  EXPECT_EQ(p->buffers()[1].element_bytes, 2u);
  EXPECT_DOUBLE_EQ(p->bytes_moved(), 6000);
  int a = 0, b = 0, c = 0;
  void* pointers[] = {&a, &b, &c};
  LaunchArgs args = p->Args(pointers);
  EXPECT_EQ(args.Find("y")->pointer, &c);
  EXPECT_EQ(args.Find("n")->integer, 1000);
  EXPECT_EQ(args.Find("scale")->kind, LaunchArgs::Kind::kFloat);
}

TEST(ScaledAddProblemTest, InputsAreDeterministicAndChunkIndependent) {
  std::unique_ptr<ProblemInstance> p = Make(DType::kF32, 4096, 7);
  std::string whole(4096 * 4, '\0'), halves(4096 * 4, '\0');
  p->FillInput(1, 0, absl::MakeSpan(whole.data(), whole.size()));
  p->FillInput(1, 0, absl::MakeSpan(halves.data(), 8192));
  p->FillInput(1, 8192, absl::MakeSpan(halves.data() + 8192, 8192));
  EXPECT_EQ(whole, halves);
  std::string other(4096 * 4, '\0');
  Make(DType::kF32, 4096, 8)->FillInput(1, 0, absl::MakeSpan(other.data(), other.size()));
  EXPECT_NE(whole, other);  // the seed matters
  std::string y(4096 * 4, '\0');
  p->FillInput(2, 0, absl::MakeSpan(y.data(), y.size()));
  EXPECT_NE(whole, y);  // x and y differ
  float lo = 1e9, hi = -1e9;
  for (int i = 0; i < 4096; ++i) {
    float v;
    std::memcpy(&v, whole.data() + 4 * i, 4);
    lo = std::min(lo, v), hi = std::max(hi, v);
  }
  EXPECT_GE(lo, -2.0f);
  EXPECT_LT(hi, 2.0f);
  EXPECT_LT(lo, -1.5f);
  EXPECT_GT(hi, 1.5f);
}

TEST(ScaledAddProblemTest, TheKernelsArithmeticPassesForEveryDType) {
  for (DType dtype : {DType::kF32, DType::kF16, DType::kBF16}) {
    std::unique_ptr<ProblemInstance> p = Make(dtype, 5000);
    std::string out = Compute(*p, dtype, 5000);
    CheckResult r = p->CheckOutput(0, 0, absl::MakeConstSpan(out.data(), out.size()));
    EXPECT_TRUE(r.ok) << DTypeName(dtype) << ": " << r.detail;
    EXPECT_EQ(r.checked, 5000u);
    EXPECT_LE(r.max_error, 1.0);
    // A chunk in the middle checks against the right elements.
    const size_t e = DTypeSize(dtype);
    CheckResult mid =
        p->CheckOutput(0, 1000 * e, absl::MakeConstSpan(out.data() + 1000 * e, 500 * e));
    EXPECT_TRUE(mid.ok) << mid.detail;
  }
}

TEST(ScaledAddProblemTest, ErrorsBeyondTheDTypesToleranceAndNaNsFail) {
  for (DType dtype : {DType::kF32, DType::kF16, DType::kBF16}) {
    std::unique_ptr<ProblemInstance> p = Make(dtype, 256);
    std::string out = Compute(*p, dtype, 256);
    const size_t e = DTypeSize(dtype);
    // Four units of roundoff off at element 17.
    const double v = problems::LoadAs(dtype, out.data() + 17 * e);
    const double ulp = dtype == DType::kF32   ? 0x1.0p-23
                       : dtype == DType::kF16 ? 0x1.0p-10
                                              : 0x1.0p-7;
    problems::StoreAs(dtype, float(v + 8 * ulp * std::max(1.0, std::fabs(v))), out.data() + 17 * e);
    CheckResult r = p->CheckOutput(0, 0, absl::MakeConstSpan(out.data(), out.size()));
    EXPECT_FALSE(r.ok) << DTypeName(dtype);
    EXPECT_THAT(r.detail, HasSubstr("out[17]"));
    EXPECT_THAT(r.detail, HasSubstr(std::string(DTypeName(dtype)) + " tolerance"));
    EXPECT_GT(r.max_error, 1.0);
    std::memset(out.data() + 3 * e, 0xff, e);  // NaN
    r = p->CheckOutput(0, 0, absl::MakeConstSpan(out.data(), out.size()));
    EXPECT_THAT(r.detail, HasSubstr("out[3] = nan"));
  }
}

TEST(ScaledAddProblemTest, BadShapesAreRejected) {
  const Problem* problem = *FindProblem("scaled_add");
  EXPECT_THAT(problem->Create(Shape(DType::kF32), 1),
              StatusIs(absl::StatusCode::kInvalidArgument, "'n'"));
  EXPECT_THAT(problem->Create(Shape(DType::kF32).Set("n", 0), 1),
              StatusIs(absl::StatusCode::kInvalidArgument, "n > 0"));
  EXPECT_EQ(problem->StandardShapes().size(), 9u);
}

TEST(StorageTest, HalfAndBfloatConversionsRoundToNearestEven) {
  const float specials[] = {0.0f,    -0.0f, 1.0f,     -2.5f,    65504.0f, 65520.0f, 1e-8f,
                            6.1e-5f, 3e-7f, 5.96e-8f, 2.98e-8f, INFINITY, -INFINITY};
  std::vector<float> values(std::begin(specials), std::end(specials));
  std::vector<float> random = jitk::testing::RandomFloats(20000, 5, -70000.0f, 70000.0f);
  values.insert(values.end(), random.begin(), random.end());
  std::vector<float> small = jitk::testing::RandomFloats(20000, 6, -1e-4f, 1e-4f);
  values.insert(values.end(), small.begin(), small.end());
  for (float v : values) {
    EXPECT_EQ(problems::FloatToHalfBits(v), jitk::testing::FloatToHalf(v)) << v;
    EXPECT_EQ(problems::FloatToBf16Bits(v), jitk::testing::FloatToBFloat16(v)) << v;
    const uint16_t h = problems::FloatToHalfBits(v);
    EXPECT_EQ(std::bit_cast<uint32_t>(problems::HalfBitsToFloat(h)),
              std::bit_cast<uint32_t>(jitk::testing::HalfToFloat(h)))
        << v;
  }
  EXPECT_TRUE(std::isnan(problems::HalfBitsToFloat(problems::FloatToHalfBits(NAN))));
}

class TinyProblem final : public Problem {
 public:
  absl::string_view kernel() const override { return "tiny_test_kernel"; }
  absl::StatusOr<std::unique_ptr<ProblemInstance>> Create(const Shape&, uint64_t) const override {
    return absl::UnimplementedError("tiny");
  }
  std::vector<Shape> StandardShapes() const override { return {}; }
};

TEST(ProblemRegistryTest, ProblemsPlugInByKernelName) {
  EXPECT_THAT(FindProblem("tiny_test_kernel"),
              StatusIs(absl::StatusCode::kNotFound, "kernels with one: scaled_add"));
  ASSERT_THAT(RegisterProblem(std::make_unique<TinyProblem>()), IsOk());
  absl::StatusOr<const Problem*> found = FindProblem("tiny_test_kernel");
  ASSERT_THAT(found, IsOk());
  EXPECT_EQ((*found)->kernel(), "tiny_test_kernel");
  EXPECT_THAT(RegisterProblem(std::make_unique<TinyProblem>()),
              StatusIs(absl::StatusCode::kAlreadyExists, "tiny_test_kernel"));
  EXPECT_THAT(RegisterProblem(nullptr), StatusIs(absl::StatusCode::kInvalidArgument, "null"));
}

}  // namespace
}  // namespace jitk::tuner
