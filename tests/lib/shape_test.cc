#include "jitk/shape.h"

#include "gtest/gtest.h"
#include "jitk/kernel.h"
#include "tests/testing/status_matchers.h"

namespace jitk {
namespace {

using ::jitk::testing::IsOk;
using ::jitk::testing::StatusIs;

TEST(ShapeTest, KeyIsCanonicalAndParses) {
  Shape a = Shape(DType::kBF16).Set("lk", 4096).Set("d", 128);
  Shape b = Shape(DType::kBF16).Set("d", 128).Set("lk", 4096);
  EXPECT_EQ(a.Key(), "bf16;d=128;lk=4096");
  EXPECT_EQ(a.Key(), b.Key());
  absl::StatusOr<Shape> parsed = Shape::Parse(a.Key());
  ASSERT_THAT(parsed, IsOk());
  EXPECT_EQ(*parsed, a);
}

TEST(ShapeTest, MissingDimensionIsNamed) {
  EXPECT_THAT(Shape().Set("n", 3).Get("d"), StatusIs(absl::StatusCode::kInvalidArgument, "'d'"));
  EXPECT_EQ(Shape().GetOr("d", 7), 7);
}

TEST(ShapeTest, ParseRejectsGarbage) {
  EXPECT_THAT(Shape::Parse("f64;n=1"), StatusIs(absl::StatusCode::kInvalidArgument, "f64"));
  EXPECT_THAT(Shape::Parse("f32;n=x"), StatusIs(absl::StatusCode::kInvalidArgument, "n=x"));
}

TEST(KernelConfigTest, RoundTrips) {
  KernelConfig config{{"BLOCK", 256}, {"EPT", 4}, {"VEC", 4}};
  EXPECT_EQ(KernelConfigToString(config), "BLOCK=256,EPT=4,VEC=4");
  EXPECT_EQ(*ParseKernelConfig("BLOCK=256,EPT=4,VEC=4"), config);
  EXPECT_THAT(ParseKernelConfig("BLOCK"), StatusIs(absl::StatusCode::kInvalidArgument, "BLOCK"));
}

TEST(DTypeTest, NamesAndSizes) {
  EXPECT_EQ(*ParseDType("bfloat16"), DType::kBF16);
  EXPECT_EQ(DTypeSize(DType::kF16), 2u);
  EXPECT_THAT(ParseDType("int8"), StatusIs(absl::StatusCode::kInvalidArgument, "f32, f16 or bf16"));
}

TEST(LaunchArgsTest, LaterValuesReplaceEarlierOnes) {
  LaunchArgs args;
  args.Int("n", 1).Float("scale", 2).Int("n", 5);
  ASSERT_NE(args.Find("n"), nullptr);
  EXPECT_EQ(args.Find("n")->integer, 5);
  EXPECT_EQ(args.args().size(), 2u);
  EXPECT_EQ(args.Find("missing"), nullptr);
}

}  // namespace
}  // namespace jitk
