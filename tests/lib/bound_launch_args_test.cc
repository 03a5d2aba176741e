#include "lib/bound_launch_args.h"

#include <cstdint>

#include "gmock/gmock.h"
#include "gtest/gtest.h"
#include "tests/testing/status_matchers.h"

namespace jitk::internal {
namespace {

using ::jitk::testing::IsOk;
using ::jitk::testing::StatusIs;

enum { kX, kN, kScale };
constexpr absl::string_view kNames[] = {"x", "n", "scale"};

const LaunchArgNames& Names() {
  static const LaunchArgNames* const names = new LaunchArgNames("toy", kNames);
  return *names;
}

TEST(LaunchArgNamesTest, FindsEachNameByPosition) {
  EXPECT_EQ(Names().size(), 3u);
  EXPECT_EQ(Names().Find("x"), kX);
  EXPECT_EQ(Names().Find("scale"), kScale);
  EXPECT_EQ(Names().Find("scal"), -1);
  EXPECT_EQ(Names().name(kN), "n");
}

TEST(BoundLaunchArgsTest, ReadsBoundArgumentsByPosition) {
  int data = 0;
  BoundLaunchArgs bound;
  ASSERT_THAT(bound.Bind(Names(), LaunchArgs().Int("n", 7).Ptr("x", &data)), IsOk());
  EXPECT_EQ(*bound.Pointer(kX), &data);
  EXPECT_EQ(*bound.Int(kN), 7);
  EXPECT_FALSE(bound.Has(kScale));
  EXPECT_EQ(*bound.FloatOr(kScale, 0.5f), 0.5f);
  EXPECT_EQ(*bound.IntOr(kN, 1), 7);
}

TEST(BoundLaunchArgsTest, AnUnknownNameIsRefusedWithTheKnownOnes) {
  BoundLaunchArgs bound;
  absl::Status status = bound.Bind(Names(), LaunchArgs().Int("n", 7).Float("scael", 1.0f));
  EXPECT_THAT(status, StatusIs(absl::StatusCode::kInvalidArgument,
                               "toy takes no launch argument 'scael'; it takes x, n, scale"));
}

TEST(BoundLaunchArgsTest, MissingOrWrongKindNamesTheArgumentAndTheSetter) {
  BoundLaunchArgs bound;
  ASSERT_THAT(bound.Bind(Names(), LaunchArgs().Float("n", 7).Int("scale", 1)), IsOk());
  EXPECT_THAT(bound.Pointer(kX), StatusIs(absl::StatusCode::kInvalidArgument,
                                          "missing launch argument 'x' (a device pointer, set "
                                          "with Ptr())"));
  EXPECT_THAT(bound.Int(kN), StatusIs(absl::StatusCode::kInvalidArgument,
                                      "launch argument 'n' must be an integer, set with Int()"));
  EXPECT_THAT(bound.FloatOr(kScale, 1.0f),
              StatusIs(absl::StatusCode::kInvalidArgument, "'scale' must be a float"));
  EXPECT_THAT(bound.PointerOr(kX, nullptr), IsOk()) << "absent optional";
}

TEST(BoundLaunchArgsTest, RebindingForgetsTheLastLaunch) {
  int data = 0;
  BoundLaunchArgs bound;
  ASSERT_THAT(bound.Bind(Names(), LaunchArgs().Ptr("x", &data)), IsOk());
  ASSERT_THAT(bound.Bind(Names(), LaunchArgs().Int("n", 1)), IsOk());
  EXPECT_FALSE(bound.Has(kX));
}

}  // namespace
}  // namespace jitk::internal
