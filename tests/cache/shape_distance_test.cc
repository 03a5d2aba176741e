#include "cache/shape_distance.h"

#include <cmath>

#include "cache_test_util.h"
#include "gmock/gmock.h"
#include "gtest/gtest.h"

namespace jitk::cache {
namespace {

using ::jitk::cache::testing::StatusIs;
using ::testing::HasSubstr;

ShapeKey Parse(absl::string_view key) {
  absl::StatusOr<ShapeKey> shape = ParseShapeKey(key);
  EXPECT_TRUE(shape.ok()) << shape.status();
  return shape.ok() ? *shape : ShapeKey();
}

TEST(ParseShapeKeyTest, ParsesDtypeAndSortedDims) {
  ShapeKey s = Parse("bf16;lk=4096;d=128");
  EXPECT_EQ(s.dtype, "bf16");
  ASSERT_EQ(s.dims.size(), 2u);
  EXPECT_EQ(s.dims[0].first, "d");
  EXPECT_EQ(s.dims[0].second, 128);
  EXPECT_EQ(s.DimNames(), "d,lk");
  EXPECT_EQ(Parse("f32").dims.size(), 0u);
  EXPECT_EQ(Parse("f32;layout=-1").dims[0].second, -1);
}

TEST(ParseShapeKeyTest, RejectsMalformedKeys) {
  for (const char* bad : {"", ";n=1", "f16;n", "f16;n=", "f16;=4", "f16;n=x", "f16;n=1=2",
                          "f16;n=1;n=2", "f16;n=99999999999999999999"}) {
    EXPECT_THAT(ParseShapeKey(bad),
                StatusIs(absl::StatusCode::kInvalidArgument, HasSubstr("shape key")))
        << bad;
  }
}

TEST(ShapeDistanceTest, SumsAbsoluteLog2Ratios) {
  EXPECT_DOUBLE_EQ(*ShapeDistance(Parse("f16;n=1048576"), Parse("f16;n=1048576")), 0.0);
  EXPECT_DOUBLE_EQ(*ShapeDistance(Parse("f16;n=1048576"), Parse("f16;n=4194304")), 2.0);
  EXPECT_DOUBLE_EQ(*ShapeDistance(Parse("f16;n=4194304"), Parse("f16;n=1048576")), 2.0);
  // 2x in two dims is as far as 4x in one.
  EXPECT_DOUBLE_EQ(*ShapeDistance(Parse("f16;a=2;b=2"), Parse("f16;a=4;b=4")), 2.0);
  EXPECT_DOUBLE_EQ(*ShapeDistance(Parse("f16;a=2;b=2"), Parse("f16;a=8;b=2")), 2.0);
  EXPECT_NEAR(*ShapeDistance(Parse("f32;n=1000"), Parse("f32;n=3000")), std::log2(3.0), 1e-12);
}

TEST(ShapeDistanceTest, IncomparableShapes) {
  EXPECT_FALSE(ShapeDistance(Parse("f16;n=1"), Parse("f32;n=1")).has_value());  // dtype
  EXPECT_FALSE(ShapeDistance(Parse("f16;n=1"), Parse("f16;m=1")).has_value());  // names
  EXPECT_FALSE(ShapeDistance(Parse("f16;n=1"), Parse("f16;m=1;n=1")).has_value());
  // Non-positive values are categories: equal or incomparable.
  EXPECT_FALSE(ShapeDistance(Parse("f16;l=0;n=8"), Parse("f16;l=1;n=8")).has_value());
  EXPECT_DOUBLE_EQ(*ShapeDistance(Parse("f16;l=0;n=8"), Parse("f16;l=0;n=16")), 1.0);
}

TEST(ShapeDistanceTest, ExactDimsMustMatch) {
  const std::vector<std::string> exact = {"layout"};
  EXPECT_FALSE(
      ShapeDistance(Parse("f16;layout=1;n=8"), Parse("f16;layout=2;n=8"), exact).has_value());
  EXPECT_DOUBLE_EQ(*ShapeDistance(Parse("f16;layout=1;n=8"), Parse("f16;layout=2;n=8")), 1.0);
  EXPECT_DOUBLE_EQ(*ShapeDistance(Parse("f16;layout=2;n=8"), Parse("f16;layout=2;n=32"), exact),
                   2.0);
}

}  // namespace
}  // namespace jitk::cache
